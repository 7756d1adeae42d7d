//! The layering rules of `src/`, enforced by reading the source (`docs/ARCHITECTURE.md` describes
//! the layers; this test keeps the tree true to it).
//!
//! 1. **commands-on-top**: only `src/commands/` and `src/main.rs` mention `crate::commands`.
//! 2. **commands-independent**: no command module imports another command module.
//! 3. **gix-in-git**: the gitoxide crate (`gix`) is used only under `src/git/`.
//! 4. **processes-in-git**: `std::process::Command` is used only under `src/git/`, save for the
//!    exceptions named in [`PROCESS_EXCEPTIONS`].
//! 5. **domain-never-reaches-up**: the domain and the layers below it never mention
//!    `crate::commands`, `crate::cli`, `crate::context`, `crate::output` or `crate::render`.
//! 6. **domain-never-prints**: the domain never writes to the terminal itself.
//! 7. **writes-in-store**: only `src/store/` writes to the file system (creates, replaces,
//!    appends to, renames or removes files and directories).
//!
//! The check is textual, not a parse. Comments are stripped first, so prose may name anything;
//! paths are matched as whole identifiers, directly (`crate::cli::Args`) or as members of a `use`
//! group (`crate::{cli, store}`). Each rule has a synthetic test below proving it can fail.

use std::fs;
use std::path::{Path, PathBuf};

/// Where the command modules live.
const COMMANDS_DIR: &str = "src/commands/";

/// The one file outside `src/commands/` that may reach into it: the binary dispatches to commands.
const MAIN: &str = "src/main.rs";

/// The only home of gix and of git subprocesses.
const GIT_DIR: &str = "src/git/";

/// The domain, and the layers below it, as directories.
const DOMAIN_DIRS: &[&str] = &[
    "src/ucg/",
    "src/goal/",
    "src/sdlc/",
    "src/lesson/",
    "src/git/",
    "src/store/",
];

/// Single-file modules that sit with the domain or below it, and so must not reach up.
const LOWER_FILES: &[&str] = &["src/pyjson.rs", "src/config.rs", "src/error.rs"];

/// Single-file modules that, like the domain directories, must not print. `src/error.rs` is not
/// among them: it shapes the text an error shows on stderr.
const QUIET_FILES: &[&str] = &["src/pyjson.rs", "src/config.rs"];

/// The layers above the domain, as named after `crate::`.
const UPPER_LAYERS: &[&str] = &["commands", "cli", "context", "output", "render"];

/// What writes to the terminal directly.
const PRINTERS: &[&str] = &[
    "println!",
    "print!",
    "eprintln!",
    "eprint!",
    "dbg!",
    "stdout()",
    "stderr()",
];

/// Files outside `src/git/` that may start a process, each with the reason it is not git.
const PROCESS_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "src/output.rs",
        "the pager and the notification command: programs the user configured, not git",
    ),
    (
        "src/commands/status/prompt.rs",
        "the prompt's detached background refresh re-executes git-ucg itself",
    ),
];

/// The only home of file-system writes.
const STORE_DIR: &str = "src/store/";

/// What writes to the file system: std's writing calls and the temporary-file crate.
const WRITERS: &[&str] = &[
    "fs::write",
    "File::create",
    "OpenOptions",
    "fs::rename",
    "fs::remove_file",
    "fs::remove_dir",
    "fs::remove_dir_all",
    "fs::create_dir",
    "fs::create_dir_all",
    "fs::copy",
    "fs::hard_link",
    "set_permissions",
    "set_len",
    "tempfile::",
];

/// The line that opens a file's test module: what follows it may print (and write scratch files).
const CFG_TEST: &str = "#[cfg(test)]";

/// A layering rule: the name it is reported under, and the check that finds, in one file, the
/// offsets (into [`SourceFile::code`]) where the rule is broken.
struct Rule {
    name: &'static str,
    check: fn(&SourceFile, &Layout) -> Vec<usize>,
}

const RULES: &[Rule] = &[
    Rule {
        name: "commands-on-top",
        check: commands_on_top,
    },
    Rule {
        name: "commands-independent",
        check: commands_independent,
    },
    Rule {
        name: "gix-in-git",
        check: gix_in_git,
    },
    Rule {
        name: "processes-in-git",
        check: processes_in_git,
    },
    Rule {
        name: "domain-never-reaches-up",
        check: domain_never_reaches_up,
    },
    Rule {
        name: "domain-never-prints",
        check: domain_never_prints,
    },
    Rule {
        name: "writes-in-store",
        check: writes_in_store,
    },
];

/// Every layering violation in `files` (`(path relative to the repository root, contents)`), one
/// per offending line and rule, as `path:line: rule: the offending line`, in file order, then
/// line order, then rule order.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let layout = Layout::of(files);
    let mut found = Vec::new();
    for (path, contents) in files {
        let file = SourceFile::new(path, contents);
        let mut broken: Vec<(usize, &str)> = RULES
            .iter()
            .flat_map(|rule| {
                (rule.check)(&file, &layout)
                    .into_iter()
                    .map(|offset| (file.line_number(offset), rule.name))
            })
            .collect();
        // Stable, so rules on the same line keep their order; one report per line and rule.
        broken.sort_by_key(|&(line, _)| line);
        broken.dedup();
        for (line, rule) in broken {
            let text = file.original_line(line);
            found.push(format!("{path}:{line}: {rule}: {text}"));
        }
    }
    found
}

/// **commands-on-top**: `crate::commands` may be mentioned only by files under `src/commands/`
/// and by `src/main.rs`.
///
/// Why: commands are the top layer. The domain and everything below it serve them and never reach
/// up into them, or the layers stop being layers.
fn commands_on_top(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if file.path.starts_with(COMMANDS_DIR) || file.path == MAIN {
        return Vec::new();
    }
    mentions(&file.code, "crate", "commands", Start::OfPath)
}

/// **commands-independent**: no command module imports another command module, whether as
/// `crate::commands::Y` or relatively (`super::Y` from `src/commands/X.rs` or
/// `src/commands/X/mod.rs`, `super::super::Y` one level down). Items of `src/commands/mod.rs`
/// itself are shared ground, not a command.
///
/// Why: what two commands share belongs in the domain (or in `commands/mod.rs`), where every
/// command can use it; a command borrowing from another ties the two together.
fn commands_independent(file: &SourceFile, layout: &Layout) -> Vec<usize> {
    let Some(own) = command_module_of(file.path) else {
        return Vec::new();
    };
    let up_to_commands = vec!["super"; depth_below_commands(file.path)].join("::");
    layout
        .command_modules
        .iter()
        .filter(|other| other.as_str() != own)
        .flat_map(|other| {
            let mut hits = mentions(&file.code, "crate::commands", other, Start::OfPath);
            hits.extend(mentions(&file.code, &up_to_commands, other, Start::OfPath));
            hits
        })
        .collect()
}

/// **gix-in-git**: `gix::` (the gitoxide crate), `use gix` and `extern crate gix` appear only
/// under `src/git/`.
///
/// Why: `src/git/` is the one adapter to the repository; keeping gix behind it keeps the rest of
/// the code independent of gitoxide's API and its upgrades.
fn gix_in_git(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if file.path.starts_with(GIT_DIR) {
        return Vec::new();
    }
    ["gix::", "use gix", "extern crate gix"]
        .iter()
        .flat_map(|needle| find_path(&file.code, needle, Start::Anywhere))
        .collect()
}

/// **processes-in-git**: `std::process::Command` (as `process::Command`, or as `Command` in a
/// `process::{…}` group) appears only under `src/git/`, save for [`PROCESS_EXCEPTIONS`].
///
/// Why: running git is the git adapter's job; a subprocess elsewhere is git called behind its
/// back, with its own environment, errors and cost.
fn processes_in_git(file: &SourceFile, _: &Layout) -> Vec<usize> {
    let excepted = PROCESS_EXCEPTIONS
        .iter()
        .any(|&(path, _)| path == file.path);
    if file.path.starts_with(GIT_DIR) || excepted {
        return Vec::new();
    }
    mentions(&file.code, "process", "Command", Start::Anywhere)
}

/// **domain-never-reaches-up**: files under `src/ucg/`, `src/goal/`, `src/sdlc/`, `src/lesson/`,
/// `src/git/` and `src/store/`, and `src/pyjson.rs`, `src/config.rs` and `src/error.rs`, never
/// mention `crate::commands`, `crate::cli`, `crate::context`, `crate::output` or `crate::render`.
///
/// Why: dependencies point down. The domain knows nothing of the command line, the run context,
/// or how results are shown, so it can be tested and reused without them.
fn domain_never_reaches_up(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if !is_domain_dir(file.path) && !LOWER_FILES.contains(&file.path) {
        return Vec::new();
    }
    UPPER_LAYERS
        .iter()
        .flat_map(|layer| mentions(&file.code, "crate", layer, Start::OfPath))
        .collect()
}

/// **domain-never-prints**: files under `src/ucg/`, `src/goal/`, `src/sdlc/`, `src/lesson/`,
/// `src/git/` and `src/store/`, and `src/pyjson.rs` and `src/config.rs`, use none of `println!`,
/// `print!`, `eprintln!`, `eprint!`, `dbg!`, `stdout()` or `stderr()` outside their
/// `#[cfg(test)]` tail.
///
/// Why: the domain returns values and errors; deciding what reaches the terminal, and in which
/// format, is the job of the layers above it.
fn domain_never_prints(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if !is_domain_dir(file.path) && !QUIET_FILES.contains(&file.path) {
        return Vec::new();
    }
    let outside_tests = &file.code[..file.test_tail];
    PRINTERS
        .iter()
        .flat_map(|printer| find_path(outside_tests, printer, Start::Anywhere))
        .collect()
}

/// **writes-in-store**: outside `src/store/`, no file under `src/` uses any of [`WRITERS`]
/// (outside its `#[cfg(test)]` tail).
///
/// Why: every write must be atomic, locked where writers race, append-only where it is a log, and
/// must never follow a symlink out of the project. Those rules live in one place, and a write
/// elsewhere would escape them.
fn writes_in_store(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if file.path.starts_with(STORE_DIR) {
        return Vec::new();
    }
    let outside_tests = &file.code[..file.test_tail];
    WRITERS
        .iter()
        .flat_map(|writer| find_path(outside_tests, writer, Start::Anywhere))
        .collect()
}

fn is_domain_dir(path: &str) -> bool {
    DOMAIN_DIRS.iter().any(|dir| path.starts_with(dir))
}

/// What the rules need to know about the file set as a whole.
struct Layout {
    /// The command modules: the entries of `src/commands/` (files and directories alike).
    command_modules: Vec<String>,
}

impl Layout {
    fn of(files: &[(String, String)]) -> Self {
        let mut command_modules: Vec<String> = files
            .iter()
            .filter_map(|(path, _)| command_module_of(path))
            .map(str::to_owned)
            .collect();
        command_modules.sort_unstable();
        command_modules.dedup();
        Layout { command_modules }
    }
}

/// The command module a file belongs to: `X` for `src/commands/X.rs` and for every file under
/// `src/commands/X/`; `None` for `src/commands/mod.rs` and for files outside `src/commands/`.
fn command_module_of(path: &str) -> Option<&str> {
    let entry = path.strip_prefix(COMMANDS_DIR)?;
    match entry.split_once('/') {
        Some((dir, _)) => Some(dir),
        None => entry.strip_suffix(".rs").filter(|&stem| stem != "mod"),
    }
}

/// How many `super::` lead from a file under `src/commands/` back to `crate::commands`: 1 for
/// `src/commands/X.rs` and `src/commands/X/mod.rs`, 2 for `src/commands/X/y.rs`, and so on.
fn depth_below_commands(path: &str) -> usize {
    let module = path.strip_prefix(COMMANDS_DIR).unwrap_or(path);
    let module = module.strip_suffix(".rs").unwrap_or(module);
    let module = module.strip_suffix("/mod").unwrap_or(module);
    module.split('/').count()
}

/// One source file, as the rules see it.
struct SourceFile<'a> {
    path: &'a str,
    /// The file as written, for quoting the offending line.
    lines: Vec<&'a str>,
    /// The file with its comments stripped, line for line: what the rules search.
    code: String,
    /// The offset in `code` at which each line starts.
    line_starts: Vec<usize>,
    /// The offset in `code` of the first line that is exactly `#[cfg(test)]`, or its length.
    test_tail: usize,
}

impl<'a> SourceFile<'a> {
    fn new(path: &'a str, contents: &'a str) -> Self {
        let code = strip_comments(contents);
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(code.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        let test_tail = line_starts
            .iter()
            .zip(code.split('\n'))
            .find(|(_, line)| line.trim() == CFG_TEST)
            .map_or(code.len(), |(&start, _)| start);
        SourceFile {
            path,
            lines: contents.lines().collect(),
            code,
            line_starts,
            test_tail,
        }
    }

    /// The 1-based number of the line holding `offset` (in `code`).
    fn line_number(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// Line `number` (1-based) as written, trimmed.
    fn original_line(&self, number: usize) -> &str {
        self.lines.get(number - 1).map_or("", |line| line.trim())
    }
}

/// Whether a match may continue a longer path (`std::process::Command` matches
/// `process::Command`) or must begin one (`crate`, `super`: which is what keeps `super::x` from
/// matching inside `super::super::x`).
#[derive(Clone, Copy, PartialEq)]
enum Start {
    Anywhere,
    OfPath,
}

/// Where `code` names `base::name`, directly (`crate::cli::Args`) or as the head of a member of a
/// `base::{…}` group (`crate::{cli::Args, store}`), with `name` a whole identifier.
fn mentions(code: &str, base: &str, name: &str, start: Start) -> Vec<usize> {
    let mut hits = find_path(code, &format!("{base}::{name}"), start);
    let group = format!("{base}::{{");
    for at in find_path(code, &group, start) {
        let open = at + group.len() - 1;
        hits.extend(
            group_heads(code, open)
                .into_iter()
                .filter(|&(_, head)| head == name)
                .map(|(offset, _)| offset),
        );
    }
    hits
}

/// The offsets of `needle` in `code` that stand as whole identifiers: not preceded by an
/// identifier character (nor, for [`Start::OfPath`], by `::`), and not followed by one when
/// `needle` ends in an identifier character.
fn find_path(code: &str, needle: &str, start: Start) -> Vec<usize> {
    let bytes = code.as_bytes();
    let ends_in_identifier = needle.bytes().last().is_some_and(is_identifier_byte);
    code.match_indices(needle)
        .map(|(at, _)| at)
        .filter(|&at| {
            let clean_start = match at.checked_sub(1).map(|before| bytes[before]) {
                None => true,
                Some(b':') => start == Start::Anywhere,
                Some(byte) => !is_identifier_byte(byte),
            };
            let after = bytes.get(at + needle.len()).copied();
            let clean_end = !ends_in_identifier || !after.is_some_and(is_identifier_byte);
            clean_start && clean_end
        })
        .collect()
}

/// The first identifier of each top-level member of the `{…}` group whose `{` is at `open`, with
/// its offset: `{Child, Command as Cmd, io::{self, Write}}` gives `Child`, `Command` and `io`.
fn group_heads(code: &str, open: usize) -> Vec<(usize, &str)> {
    let bytes = code.as_bytes();
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expecting_member = false;
    let mut at = open;
    while at < bytes.len() {
        let byte = bytes[at];
        match byte {
            b'{' => {
                depth += 1;
                expecting_member = depth == 1;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b',' if depth == 1 => expecting_member = true,
            _ if byte.is_ascii_whitespace() => {}
            _ if expecting_member && is_identifier_byte(byte) => {
                let length = bytes[at..]
                    .iter()
                    .take_while(|&&byte| is_identifier_byte(byte))
                    .count();
                heads.push((at, &code[at..at + length]));
                expecting_member = false;
                at += length;
                continue;
            }
            _ => expecting_member = false,
        }
        at += 1;
    }
    heads
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// `source` without its comments: `//…` to the end of the line (`///` and `//!` included) and
/// `/* … */` (nested, as Rust nests them). Every newline is kept, so offsets into the result
/// still fall on the right line. String and character literals are copied whole, so the `//` in
/// `"https://…"` does not start a comment.
fn strip_comments(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut code = String::with_capacity(source.len());
    let mut at = 0;
    while at < chars.len() {
        let rest = &chars[at..];
        if rest.starts_with(&['/', '/']) {
            at += rest.iter().position(|&c| c == '\n').unwrap_or(rest.len());
        } else if rest.starts_with(&['/', '*']) {
            let length = block_comment_length(rest);
            code.extend(rest[..length].iter().filter(|&&c| c == '\n'));
            at += length;
        } else {
            let length = literal_length(&chars, at).unwrap_or(1);
            code.extend(&rest[..length]);
            at += length;
        }
    }
    code
}

/// The length of the (possibly nested) block comment that `rest` starts with.
fn block_comment_length(rest: &[char]) -> usize {
    let mut depth = 0;
    let mut at = 0;
    while at < rest.len() {
        if rest[at..].starts_with(&['/', '*']) {
            depth += 1;
            at += 2;
        } else if rest[at..].starts_with(&['*', '/']) {
            depth -= 1;
            at += 2;
            if depth == 0 {
                return at;
            }
        } else {
            at += 1;
        }
    }
    rest.len()
}

/// The length of the string or character literal starting at `chars[at]`, if one does: `"…"`
/// (escapes honoured), `r"…"` / `r#"…"#` (with optional `b` or `c` prefix) and `'x'` / `'\n'`.
/// A lone `'` is a lifetime or a label, not a literal.
fn literal_length(chars: &[char], at: usize) -> Option<usize> {
    let rest = &chars[at..];
    match rest[0] {
        '"' => Some(quoted_length(rest)),
        '\'' if rest.get(1) == Some(&'\\') => {
            let close = rest.iter().skip(3).position(|&c| c == '\'');
            Some(close.map_or(rest.len(), |close| close + 4))
        }
        '\'' if rest.get(2) == Some(&'\'') => Some(3),
        _ if at == 0 || !is_identifier_char(chars[at - 1]) => raw_string_length(rest),
        _ => None,
    }
}

/// The length of the `"…"` literal that `rest` starts with, backslash escapes included.
fn quoted_length(rest: &[char]) -> usize {
    let mut at = 1;
    while at < rest.len() {
        match rest[at] {
            '\\' => at += 2,
            '"' => return at + 1,
            _ => at += 1,
        }
    }
    rest.len()
}

/// The length of the raw string literal (`r"…"`, `br#"…"#`, `cr"…"`) that `rest` starts with.
fn raw_string_length(rest: &[char]) -> Option<usize> {
    let prefix = usize::from(matches!(rest.first(), Some('b' | 'c')));
    if rest.get(prefix) != Some(&'r') {
        return None;
    }
    let hashes = rest[prefix + 1..].iter().take_while(|&&c| c == '#').count();
    let open = prefix + 1 + hashes;
    if rest.get(open) != Some(&'"') {
        return None;
    }
    let terminator: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    let body = &rest[open + 1..];
    let end = body
        .windows(terminator.len())
        .position(|window| window == terminator.as_slice());
    Some(end.map_or(rest.len(), |end| open + 1 + end + terminator.len()))
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every `.rs` file under `src/` of the crate, as `(path relative to the root, contents)`.
fn source_tree() -> Vec<(String, String)> {
    let root =
        std::env::var("CARGO_MANIFEST_DIR").map_or_else(|_| PathBuf::from("."), PathBuf::from);
    let mut files = Vec::new();
    collect_rust_files(&root, Path::new("src"), &mut files);
    files.sort();
    files
}

fn collect_rust_files(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    let entries = fs::read_dir(root.join(dir))
        .unwrap_or_else(|error| panic!("reading {}: {error}", root.join(dir).display()));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let relative = dir.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            collect_rust_files(root, &relative, files);
        } else if relative
            .extension()
            .is_some_and(|extension| extension == "rs")
        {
            let path: Vec<String> = relative
                .components()
                .map(|component| component.as_os_str().to_string_lossy().into_owned())
                .collect();
            let contents = fs::read_to_string(root.join(&relative))
                .unwrap_or_else(|error| panic!("reading {}: {error}", relative.display()));
            files.push((path.join("/"), contents));
        }
    }
}

#[test]
fn the_source_tree_keeps_its_layers() {
    let files = source_tree();
    assert!(
        files.iter().any(|(path, _)| path == "src/lib.rs"),
        "found no src/lib.rs: is CARGO_MANIFEST_DIR the crate root?"
    );
    let found = violations(&files);
    assert!(
        found.is_empty(),
        "{} layering violation(s); see docs/ARCHITECTURE.md and the rules in \
         tests/architecture.rs:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// A synthetic file set: each file as its lines, so that line numbers read off the array.
fn tree(files: &[(&str, &[&str])]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(path, lines)| (path.to_string(), lines.join("\n") + "\n"))
        .collect()
}

/// Asserts that `files` break `rule`, and no other rule, at exactly `expected` (`path:line`, in
/// file order, then line order).
fn assert_breaks(rule: &str, files: &[(&str, &[&str])], expected: &[&str]) {
    let found = violations(&tree(files));
    let mut places = Vec::new();
    for violation in &found {
        let mut fields = violation.splitn(3, ": ");
        let place = fields.next().unwrap_or_default();
        assert_eq!(fields.next(), Some(rule), "another rule broke: {violation}");
        places.push(place);
    }
    assert_eq!(places, expected, "found:\n{}", found.join("\n"));
}

#[test]
fn a_compliant_tree_has_no_violations() {
    let files = tree(&[
        ("src/main.rs", &["fn main() { crate::commands::run(); }"]),
        ("src/lib.rs", &["pub mod commands;", "pub mod git;"]),
        (
            "src/cli.rs",
            &[
                "use crate::{context::Context, output, render};",
                "fn f() { println!(); }",
            ],
        ),
        (
            "src/commands/mod.rs",
            &[
                "pub mod hooks;",
                "pub mod status;",
                "pub fn run() { println!(\"x\"); }",
            ],
        ),
        (
            "src/commands/hooks.rs",
            &[
                "use super::{run, status_helper};",
                "use super::super::status;",
                "/* gix::discover and std::process::Command,",
                "   /* nested */ still a comment: crate::commands::status */",
                "fn f() { super::run(); super::status_helper::x(); }",
            ],
        ),
        (
            "src/commands/status.rs",
            &[
                "use crate::commands::{run, status::prompt};",
                "use crate::commands::hooks_x;",
            ],
        ),
        (
            "src/commands/status/prompt.rs",
            &[
                "use std::process::{Command, Stdio};",
                "use super::super::status::render;",
                "use super::hooks;",
                "use super::super::super::hooks;",
                "// super::super::hooks and crate::commands::hooks, in a comment",
            ],
        ),
        (
            "src/output.rs",
            &[
                "use std::process::{Child, Command, Stdio};",
                "use crate::context::Context;",
            ],
        ),
        (
            "src/git/mod.rs",
            &[
                "extern crate gix;",
                "use gix::Repository;",
                "fn git() -> std::process::Command { std::process::Command::new(\"git\") }",
            ],
        ),
        (
            "src/goal/lock.rs",
            &[
                "use std::os::unix::process::CommandExt;",
                "use crate::git::gix_free;",
                "use crate::{clip, outputs, store::tree};",
                "fn pid() -> u32 { std::process::id() }",
                "/// Never `println!`: see crate::commands::goal.",
                "//! eprintln!(\"crate::cli\")",
                "const URL: &str = \"https://example.invalid\"; // println!",
                "fn quote() -> char { '\"' } // eprintln!",
                "fn escaped() -> [char; 2] { ['\\'', '\\\\'] } // dbg!(1)",
                "fn longest<'a>(a: &'a str) -> &'a str { a } // print!(\"x\")",
                "const RAW: &str = r#\"a \" // b\"#; // stdout()",
            ],
        ),
        (
            "src/ucg/mod.rs",
            &[
                "pub fn one() -> u8 { 1 }",
                "fn my_stdout() {}",
                "fn eprint_nothing() { my_stdout() }",
                "",
                "#[cfg(test)]",
                "mod tests {",
                "    fn show() { println!(\"{}\", super::one()); dbg!(1); }",
                "}",
            ],
        ),
        ("src/error.rs", &["fn report() { eprintln!(\"error\"); }"]),
        (
            "src/store/atomic.rs",
            &["fn f(out: &mut impl std::io::Write) { writeln!(out).ok(); }"],
        ),
    ]);
    let found = violations(&files);
    assert!(found.is_empty(), "found:\n{}", found.join("\n"));
}

#[test]
fn commands_on_top_is_broken_by_a_lower_module_reaching_into_commands() {
    assert_breaks(
        "commands-on-top",
        &[
            ("src/main.rs", &["fn main() { crate::commands::run(); }"]),
            (
                "src/commands/mod.rs",
                &["pub fn run() { crate::commands::go(); }"],
            ),
            (
                "src/status.rs",
                &["use crate::commands::status::dashboard;"],
            ),
            (
                "src/cli.rs",
                &[
                    "use crate::{context, commands::Cmd};",
                    "// crate::commands, in a comment",
                    "use crate::commands_like;",
                ],
            ),
            (
                "src/render/mod.rs",
                &["pub fn f() { crate::commands::print_json(); }"],
            ),
        ],
        &["src/status.rs:1", "src/cli.rs:1", "src/render/mod.rs:1"],
    );
}

#[test]
fn commands_independent_is_broken_by_a_command_importing_another() {
    assert_breaks(
        "commands-independent",
        &[
            ("src/commands/mod.rs", &["pub mod diff;", "pub fn run() {}"]),
            ("src/commands/diff.rs", &["pub fn print_range() {}"]),
            ("src/commands/gate.rs", &["pub struct Located;"]),
            (
                "src/commands/hooks.rs",
                &[
                    "use super::run;",
                    "fn f(located: &super::gate::Located) {}",
                    "use super::super::diff;",
                ],
            ),
            (
                "src/commands/status.rs",
                &[
                    "use super::status_helper;",
                    "fn f() { crate::commands::diff::print_range(); }",
                    "use crate::commands::{run, gate};",
                    "use crate::commands::status::prompt;",
                ],
            ),
            (
                "src/commands/status/prompt.rs",
                &[
                    "use super::super::hooks;",
                    "use super::diff;",
                    "use super::super::status::render;",
                    "use super::super::super::gate;",
                ],
            ),
            ("src/commands/resume/mod.rs", &["use super::{hooks, run};"]),
            (
                "src/commands/resume/route.rs",
                &["use super::super::{run, diff as d};"],
            ),
        ],
        &[
            "src/commands/hooks.rs:2",
            "src/commands/status.rs:2",
            "src/commands/status.rs:3",
            "src/commands/status/prompt.rs:1",
            "src/commands/resume/mod.rs:1",
            "src/commands/resume/route.rs:1",
        ],
    );
}

#[test]
fn command_modules_are_the_entries_of_src_commands() {
    let files = tree(&[
        ("src/commands/mod.rs", &[]),
        ("src/commands/diff.rs", &[]),
        ("src/commands/status.rs", &[]),
        ("src/commands/status/prompt.rs", &[]),
        ("src/commands/resume/mod.rs", &[]),
        ("src/status.rs", &[]),
    ]);
    assert_eq!(
        Layout::of(&files).command_modules,
        ["diff", "resume", "status"]
    );
    assert_eq!(depth_below_commands("src/commands/diff.rs"), 1);
    assert_eq!(depth_below_commands("src/commands/resume/mod.rs"), 1);
    assert_eq!(depth_below_commands("src/commands/status/prompt.rs"), 2);
}

#[test]
fn gix_in_git_is_broken_by_gix_outside_src_git() {
    assert_breaks(
        "gix-in-git",
        &[
            ("src/git/mod.rs", &["use gix::Repository;"]),
            (
                "src/goal/base.rs",
                &[
                    "extern crate gix;",
                    "use gix;",
                    "use gix::ObjectId;",
                    "fn f(repo: &gix::Repository) {}",
                    "fn g() { let _ = ::gix::discover(\".\"); }",
                    "use crate::git::gix_free;",
                    "// gix::discover, in a comment",
                ],
            ),
            (
                "src/commands/diff.rs",
                &["fn f() { gix::ObjectId::null(); }"],
            ),
        ],
        &[
            "src/goal/base.rs:1",
            "src/goal/base.rs:2",
            "src/goal/base.rs:3",
            "src/goal/base.rs:4",
            "src/goal/base.rs:5",
            "src/commands/diff.rs:1",
        ],
    );
}

#[test]
fn processes_in_git_is_broken_by_a_subprocess_outside_src_git() {
    assert_breaks(
        "processes-in-git",
        &[
            ("src/git/mod.rs", &["use std::process::Command;"]),
            (
                "src/output.rs",
                &["use std::process::{Child, Command, Stdio};"],
            ),
            (
                "src/commands/status/prompt.rs",
                &["use std::process::{Command, Stdio};"],
            ),
            (
                "src/commands/hooks.rs",
                &[
                    "use std::process::Command;",
                    "use std::process::{Child, Command as Cmd, Stdio};",
                    "use std::process::{",
                    "    Stdio,",
                    "    Command,",
                    "};",
                    "fn f() { std::process::Command::new(\"git\"); }",
                    "use std::os::unix::process::CommandExt;",
                    "fn id() -> u32 { std::process::id() }",
                    "use std::{io, process::Command};",
                ],
            ),
            (
                "src/status.rs",
                &[
                    "use std::process;",
                    "fn f() { process::Command::new(\"x\"); }",
                ],
            ),
        ],
        &[
            "src/commands/hooks.rs:1",
            "src/commands/hooks.rs:2",
            "src/commands/hooks.rs:5",
            "src/commands/hooks.rs:7",
            "src/commands/hooks.rs:10",
            "src/status.rs:2",
        ],
    );
}

#[test]
fn domain_never_reaches_up_is_broken_by_the_domain_naming_an_upper_layer() {
    assert_breaks(
        "domain-never-reaches-up",
        &[
            (
                "src/store/tree.rs",
                &[
                    "use crate::cli::Args;",
                    "use crate::{context::Context, error::Error};",
                    "use crate::{",
                    "    error::Error,",
                    "    output::Output,",
                    "};",
                ],
            ),
            (
                "src/error.rs",
                &["impl From<crate::render::Table> for Error {}"],
            ),
            (
                "src/lesson/mod.rs",
                &[
                    "use crate::git::Repo;",
                    "pub fn f(ctx: &crate::context::Context) {}",
                ],
            ),
            (
                "src/git/mod.rs",
                &["use crate::clip;", "use crate::rendering;"],
            ),
            (
                "src/status.rs",
                &["use crate::{cli, context, output, render};"],
            ),
        ],
        &[
            "src/store/tree.rs:1",
            "src/store/tree.rs:2",
            "src/store/tree.rs:5",
            "src/error.rs:1",
            "src/lesson/mod.rs:2",
        ],
    );
}

#[test]
fn a_domain_file_reaching_into_commands_breaks_both_layer_rules() {
    let found = violations(&tree(&[(
        "src/sdlc/workitem.rs",
        &["use crate::commands::sdlc::Layout;"],
    )]));
    assert_eq!(
        found,
        [
            "src/sdlc/workitem.rs:1: commands-on-top: use crate::commands::sdlc::Layout;",
            "src/sdlc/workitem.rs:1: domain-never-reaches-up: use crate::commands::sdlc::Layout;",
        ]
    );
}

#[test]
fn domain_never_prints_is_broken_by_the_domain_printing() {
    assert_breaks(
        "domain-never-prints",
        &[
            (
                "src/sdlc/run.rs",
                &[
                    "fn a() { println!(\"x\"); }",
                    "fn b() { print!(\"x\"); }",
                    "fn c() { eprintln!(\"x\"); }",
                    "fn d() { eprint!(\"x\"); }",
                    "fn e() { dbg!(1); }",
                    "fn f() { let _ = std::io::stdout(); }",
                    "fn g() { let _ = io::stderr().lock(); }",
                    "const URL: &str = \"https://x.invalid\"; fn h() { println!(\"{URL}\"); }",
                    "#[cfg(test)]",
                    "mod tests { fn t() { println!(\"tests may print\"); } }",
                ],
            ),
            ("src/pyjson.rs", &["fn p() { print!(\"x\") }"]),
            (
                "src/config.rs",
                &["// println!, in a comment", "fn q() { dbg!(2); }"],
            ),
            ("src/error.rs", &["fn report() { eprintln!(\"error\"); }"]),
            (
                "src/commands/status.rs",
                &["fn show() { println!(\"x\"); }"],
            ),
        ],
        &[
            "src/sdlc/run.rs:1",
            "src/sdlc/run.rs:2",
            "src/sdlc/run.rs:3",
            "src/sdlc/run.rs:4",
            "src/sdlc/run.rs:5",
            "src/sdlc/run.rs:6",
            "src/sdlc/run.rs:7",
            "src/sdlc/run.rs:8",
            "src/pyjson.rs:1",
            "src/config.rs:2",
        ],
    );
}

#[test]
fn writes_in_store_is_broken_by_a_write_outside_src_store() {
    assert_breaks(
        "writes-in-store",
        &[
            (
                "src/goal/session.rs",
                &[
                    "fn a() { std::fs::write(p, b); }",
                    "fn b() { let f = File::create(p); }",
                    "fn c() { std::fs::OpenOptions::new().append(true).open(p); }",
                    "fn d() { fs::rename(a, b); }",
                    "fn e() { std::fs::remove_file(p); }",
                    "fn f() { std::fs::create_dir_all(p); }",
                    "fn g() { tempfile::Builder::new(); }",
                    "fn h() { file.set_len(0); }",
                    "// std::fs::write, in a comment",
                    "fn i() { std::fs::read(p); }",
                    "#[cfg(test)]",
                    "mod tests { fn t() { std::fs::write(p, b); } }",
                ],
            ),
            (
                "src/commands/hooks.rs",
                &["fn j() { std::fs::remove_dir_all(p); }"],
            ),
            ("src/store/plain.rs", &["fn k() { std::fs::write(p, b); }"]),
        ],
        &[
            "src/goal/session.rs:1",
            "src/goal/session.rs:2",
            "src/goal/session.rs:3",
            "src/goal/session.rs:4",
            "src/goal/session.rs:5",
            "src/goal/session.rs:6",
            "src/goal/session.rs:7",
            "src/goal/session.rs:8",
            "src/commands/hooks.rs:1",
        ],
    );
}
