//! `git ucg generate man|completions --out-dir DIR`: the committed `man/` and `completions/` are
//! made by this command, and a test fails when they are stale.

use crate::cli::{GenerateArgs, GenerateWhat, InstallDocsArgs};
use crate::context::Context;
use crate::error::{cannot, Error, Result};
use clap::Command;
use clap_complete::Shell;
use std::path::Path;

pub(crate) fn run(_ctx: &Context, args: &GenerateArgs) -> Result<u8> {
    ucg_store::create_dirs(&args.out_dir).map_err(cannot("create", &args.out_dir))?;
    let files = match args.what {
        GenerateWhat::Man => man_pages(),
        GenerateWhat::Completions => completions(),
    };
    for (name, bytes) in files {
        let path = args.out_dir.join(name);
        ucg_store::write_small(&path, &bytes).map_err(cannot("write", &path))?;
    }
    Ok(0)
}

/// `git ucg install-docs`: the man pages and completions this binary carries, written where man and
/// the shells look for them (the command's help says where), each replaced atomically and made
/// readable by all; every path is said.
pub(crate) fn install_docs(args: &InstallDocsArgs) -> Result<u8> {
    let home = || std::env::var_os("HOME").map(std::path::PathBuf::from);
    let xdg = |name: &str, fallback: &str| {
        std::env::var_os(name)
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| home().map(|h| h.join(fallback)))
    };
    let no_home = || Error::new("HOME is not set: say where with --prefix DIR");
    // The bash and zsh completions go under the data directory, man pages and fish's apart.
    let (man_dir, data, fish) = match &args.prefix {
        Some(prefix) => {
            let share = prefix.join("share");
            let fish = share.join("fish/vendor_completions.d");
            (share.join("man/man1"), share, fish)
        }
        None => {
            let data = xdg("XDG_DATA_HOME", ".local/share").ok_or_else(no_home)?;
            let config = xdg("XDG_CONFIG_HOME", ".config").ok_or_else(no_home)?;
            // Beside the binary when it lives in a `bin` directory: man-db searches
            // <dir>/../share/man for every directory on PATH.
            let beside = std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(Path::to_path_buf))
                .filter(|dir| dir.file_name().is_some_and(|n| n == "bin"))
                .and_then(|bin| bin.parent().map(|p| p.join("share/man/man1")));
            let man_dir = beside.unwrap_or_else(|| data.join("man/man1"));
            (man_dir, data, config.join("fish/completions"))
        }
    };
    let bash = data.join("bash-completion/completions");
    let zsh = data.join("zsh/site-functions");
    let mut files: Vec<(std::path::PathBuf, Vec<u8>)> = man_pages()
        .into_iter()
        .map(|(name, bytes)| (man_dir.join(name), bytes))
        .collect();
    for (name, bytes) in completions() {
        let target = match name.as_str() {
            "git-ucg.bash" => bash.join("git-ucg"),
            "_git-ucg" => zsh.join("_git-ucg"),
            _ => fish.join("git-ucg.fish"),
        };
        files.push((target, bytes));
    }
    if !args.dry_run {
        for (path, bytes) in &files {
            // Its directories created, replaced atomically, readable by all.
            ucg_store::install_readable(path, bytes).map_err(cannot("install", path))?;
        }
    }
    let verb = if args.dry_run {
        "would install"
    } else {
        "installed"
    };
    let pages = files
        .iter()
        .filter(|(p, _)| p.starts_with(&man_dir))
        .count();
    let mut out = format!("{verb}: {pages} man pages in {}\n", man_dir.display());
    for (path, _) in files.iter().filter(|(p, _)| !p.starts_with(&man_dir)) {
        out.push_str(&format!("{verb}: {}\n", path.display()));
    }
    out.push_str(&format!(
        "zsh finds completions in the directories on $fpath: add {} to it if it is not there.\n",
        zsh.display()
    ));
    crate::output::print_prose(&out)?;
    Ok(0)
}

/// The man pages: `git-ucg.1` and one page per (nested) subcommand, hidden ones excepted.
pub(crate) fn man_pages() -> Vec<(String, Vec<u8>)> {
    let mut pages = Vec::new();
    // Built already: `cli::command` builds every command.
    collect_pages(&crate::cli::command(), "git-ucg", "git ucg", &mut pages);
    pages
}

/// `name` is the page's file name (`git-ucg-reds-apply`), `usage` how it is typed (`git ucg reds apply`).
fn collect_pages(command: &Command, name: &str, usage: &str, pages: &mut Vec<(String, Vec<u8>)>) {
    // A command that states its usage itself (the lesson commands, whose arguments DG-Anvil's
    // parser reads) keeps it; the others' is built from their arguments.
    let stated = command
        .get_overridden_usage()
        .map(|u| u.to_string())
        .and_then(|u| u.strip_prefix(usage).map(|rest| rest.trim().to_string()));
    let page_command = command
        .clone()
        .name(name.to_string())
        .bin_name(usage.to_string())
        .override_usage(format!(
            "{usage} {}",
            stated.unwrap_or_else(|| synopsis(command))
        ));
    let mut buffer = Vec::new();
    let man = clap_mangen::Man::new(page_command)
        .title(name.to_uppercase())
        .section("1")
        .source(format!("git-ucg {}", env!("CARGO_PKG_VERSION")))
        .manual("Git Manual");
    // Rendering into memory cannot fail for I/O reasons.
    if man.render(&mut buffer).is_ok() {
        pages.push((format!("{name}.1"), buffer));
    }
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let sub_name = sub.get_name();
        collect_pages(
            sub,
            &format!("{name}-{sub_name}"),
            &format!("{usage} {sub_name}"),
            pages,
        );
    }
}

/// The SYNOPSIS line after the command's name (clap_mangen bolds the name): every option with its value placeholder
/// (`-C <PATH>`, `--close <ID>`), required ones bare, then the positionals and the subcommand.
fn synopsis(command: &Command) -> String {
    let placeholder = |arg: &clap::Arg| {
        arg.get_value_names()
            .map(|names| {
                names
                    .iter()
                    .map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join("> <")
            })
            .unwrap_or_else(|| arg.get_id().as_str().to_uppercase())
    };
    let visible: Vec<&clap::Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .collect();
    let mut parts = Vec::new();
    for arg in visible.iter().filter(|a| !a.is_positional()) {
        let name = match (arg.get_long(), arg.get_short()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => continue,
        };
        let value = match arg.get_action().takes_values() {
            true => format!(" <{}>", placeholder(arg)),
            false => String::new(),
        };
        parts.push(match arg.is_required_set() {
            true => format!("{name}{value}"),
            false => format!("[{name}{value}]"),
        });
    }
    for arg in visible.iter().filter(|a| a.is_positional()) {
        let many = match arg.get_action() {
            clap::ArgAction::Append => "…",
            _ => "",
        };
        parts.push(match arg.is_required_set() {
            true => format!("<{}>{many}", placeholder(arg)),
            false => format!("[{}]{many}", placeholder(arg)),
        });
    }
    if command.get_subcommands().any(|s| !s.is_hide_set()) {
        parts.push("<COMMAND>".into());
    }
    parts.join(" ")
}

/// The completion scripts: bash (with `_git_ucg` for git's own completion), zsh, fish.
pub(crate) fn completions() -> Vec<(String, Vec<u8>)> {
    let mut scripts = Vec::new();
    for (shell, file) in [
        (Shell::Bash, "git-ucg.bash"),
        (Shell::Zsh, "_git-ucg"),
        (Shell::Fish, "git-ucg.fish"),
    ] {
        // Completions are for the executable `git-ucg`; `git ucg` reaches them through the bridge.
        let mut command = with_bin_names(
            with_help_topics(visible_only(&crate::cli::command())),
            "git-ucg",
        );
        let mut buffer = Vec::new();
        clap_complete::generate(shell, &mut command, "git-ucg", &mut buffer);
        if shell == Shell::Bash {
            // clap_complete names a subcommand's case label by turning every `-` of the path into
            // `__subcmd__`, but sets `cmd` with `-` turned into `__`: for an executable whose name
            // has a dash the two never meet and options of subcommands do not complete. Align them.
            let script = String::from_utf8_lossy(&buffer).replace("git__subcmd__ucg", "git__ucg");
            buffer = script.into_bytes();
            buffer.extend_from_slice(GIT_BASH_BRIDGE.as_bytes());
        }
        let script = with_dynamic_values(shell, &String::from_utf8_lossy(&buffer));
        let script = with_operands(
            shell,
            &script,
            &operand_commands(&command, &[], "story"),
            "stories",
        );
        let sdlc_runs: Vec<Vec<String>> = operand_commands(&command, &[], "run")
            .into_iter()
            .filter(|path| path.first().is_some_and(|first| first == "sdlc"))
            .collect();
        let script = with_operands(shell, &script, &sdlc_runs, "sdlc-runs");
        scripts.push((file.to_string(), script.into_bytes()));
    }
    scripts
}

/// The (nested) commands that take the operand `id` (`baseline start STORY`, `sdlc show RUN`),
/// by path.
fn operand_commands(command: &Command, path: &[String], id: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    if !path.is_empty() && command.get_positionals().any(|arg| arg.get_id() == id) {
        found.push(path.to_vec());
    }
    for sub in command.get_subcommands() {
        let mut nested = path.to_vec();
        nested.push(sub.get_name().to_string());
        found.extend(operand_commands(sub, &nested, id));
    }
    found
}

/// Makes the operand of `commands` complete from `git-ucg __complete <what>`.
fn with_operands(shell: Shell, script: &str, commands: &[Vec<String>], what: &str) -> String {
    let call = format!("git-ucg __complete {what} 2>/dev/null");
    let operand = match what {
        "stories" => "story",
        _ => "run",
    };
    match shell {
        Shell::Bash => {
            let mut script = script.to_string();
            for path in commands {
                let label = format!(
                    "        git__ucg__subcmd__{})\n            opts=\"",
                    path.iter()
                        .map(|p| p.replace('-', "__"))
                        .collect::<Vec<_>>()
                        .join("__subcmd__")
                );
                let Some(at) = script.find(&label) else {
                    continue;
                };
                let start = at + label.len();
                if let Some(end) = script[start..].find('"') {
                    script.insert_str(start + end, &format!(" $({call})"));
                }
            }
            script
        }
        Shell::Fish => {
            let mut script = script.to_string();
            for path in commands {
                let condition = match path.as_slice() {
                    [only] => format!("__fish_git_ucg_using_subcommand {only}"),
                    [parent, child, ..] => format!(
                        "__fish_git_ucg_using_subcommand {parent}; and __fish_seen_subcommand_from {child}"
                    ),
                    [] => continue,
                };
                script.push_str(&format!(
                    "complete -c git-ucg -n \"{condition}\" -f -a \"({call})\"\n"
                ));
            }
            script
        }
        Shell::Zsh => edit_lines(script, |line| {
            let is_operand = line.starts_with(&format!("':{operand} -- "))
                || line.starts_with(&format!("'::{operand} -- "));
            is_operand.then(|| zsh_values(line, &call)).flatten()
        }),
        _ => script.to_string(),
    }
}

/// The options whose values come from the run itself, and what `git-ucg __complete` offers them.
const DYNAMIC_VALUES: [(&str, &str); 4] = [
    ("close", "pending"),
    ("defer", "pending"),
    ("story", "stories"),
    ("run", "runs"),
];

/// Makes the options of [`DYNAMIC_VALUES`] complete from `git-ucg __complete` (pending handles,
/// story ids, run folders) instead of file names. The generated scripts are patched where
/// clap_complete writes each option's value action; an option it no longer writes that way is
/// left as it was (the docs test notices: it completes the values).
fn with_dynamic_values(shell: Shell, script: &str) -> String {
    let mut script = script.to_string();
    for (option, what) in DYNAMIC_VALUES {
        let call = format!("git-ucg __complete {what} 2>/dev/null");
        script = match shell {
            Shell::Bash => script.replace(
                &format!("--{option})\n                    COMPREPLY=($(compgen -f \"${{cur}}\"))"),
                &format!(
                    "--{option})\n                    COMPREPLY=($(compgen -W \"$({call})\" -- \"${{cur}}\"))"
                ),
            ),
            Shell::Fish => edit_lines(&script, |line| {
                (line.contains(&format!(" -l {option} -d ")) && line.ends_with(" -r"))
                    .then(|| format!("{line} -f -a \"({call})\""))
            }),
            Shell::Zsh => edit_lines(&script, |line| {
                line.contains(&format!("--{option}=["))
                    .then(|| zsh_values(line, &call))
                    .flatten()
            }),
            _ => script,
        };
    }
    script
}

/// `script` with each line `edit` returns a replacement for replaced, every line ending in `\n`.
fn edit_lines(script: &str, edit: impl Fn(&str) -> Option<String>) -> String {
    script
        .lines()
        .map(|line| edit(line).unwrap_or_else(|| line.to_string()) + "\n")
        .collect()
}

/// A zsh argument spec whose values are files (`:_default'`) made to offer what `call` prints.
fn zsh_values(line: &str, call: &str) -> Option<String> {
    line.contains(":_default'")
        .then(|| line.replacen(":_default'", &format!(":{{compadd -- $({call})}}'"), 1))
}

/// The command tree without its hidden subcommands (`generate`, `hooks run`): clap_complete
/// offers every subcommand it is given. Names, help texts, arguments and the version flag are what
/// completion needs; they are kept.
fn visible_only(command: &Command) -> Command {
    let mut copy = Command::new(command.get_name().to_string())
        .disable_help_subcommand(true)
        // `--help` and `--version` are clap's own, added again to the copy.
        .args(
            command
                .get_arguments()
                .filter(|arg| !matches!(arg.get_id().as_str(), "help" | "version"))
                .cloned(),
        )
        .subcommands(
            command
                .get_subcommands()
                .filter(|sub| !sub.is_hide_set())
                .map(visible_only),
        );
    if let Some(about) = command.get_about() {
        copy = copy.about(about.clone());
    }
    if let Some(long_about) = command.get_long_about() {
        copy = copy.long_about(long_about.clone());
    }
    if let Some(version) = command.get_version() {
        copy = copy.version(version.to_string()).propagate_version(true);
    }
    copy
}

/// `git ucg help <TAB>` offers the commands it explains: in the completions' copy only, `help`'s
/// operand takes the subcommands' names (the parser takes any word, to say it is unknown).
fn with_help_topics(command: Command) -> Command {
    let topics: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .filter(|name| name != "help")
        .collect();
    command.mut_subcommand("help", |help| {
        help.mut_arg("command", |arg| {
            arg.value_parser(clap::builder::PossibleValuesParser::new(topics))
        })
    })
}

/// Sets every (nested) command's executable name, e.g. `git-ucg reds apply`.
fn with_bin_names(command: Command, bin: &str) -> Command {
    let names: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut command = command.bin_name(bin.to_string());
    for name in names {
        let nested = format!("{bin} {name}");
        command = command.mut_subcommand(&name, |sub| with_bin_names(sub, &nested));
    }
    command
}

/// git's bash completion calls `_git_ucg` for `git ucg …` with `words`/`cword` set; hand that
/// over to the generated function as if `git-ucg …` had been typed.
const GIT_BASH_BRIDGE: &str = r#"
# Options only once a `-` is typed, as git completes: `git ucg <TAB>` lists the commands. When a
# command takes nothing but options, they are offered all the same.
_git_ucg_complete() {
    _git__ucg "$@"
    if [[ "$2" != -* ]]; then
        local kept=() word
        for word in "${COMPREPLY[@]}"; do
            [[ $word == -* ]] || kept+=("$word")
        done
        [[ ${#kept[@]} -gt 0 ]] && COMPREPLY=("${kept[@]}")
    fi
    return 0
}
if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _git_ucg_complete -o nosort -o bashdefault -o default git-ucg
else
    complete -F _git_ucg_complete -o bashdefault -o default git-ucg
fi

# `git ucg <TAB>`: git's completion (git-completion.bash) calls _git_<subcommand>.
_git_ucg() {
    local COMP_WORDS=(git-ucg "${words[@]:2}")
    local COMP_CWORD=$((cword - 1))
    local COMP_LINE="${COMP_WORDS[*]}"
    local COMP_POINT=${#COMP_LINE}
    _git_ucg_complete git-ucg "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
}
"#;
