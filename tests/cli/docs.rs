//! The committed man pages and completions are generated from the CLI definitions; these tests fail
//! when they are stale, and check that git really finds them.

use crate::common::*;
use std::path::Path;

fn project() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn assert_directory_matches_generated(what: &str, committed: &Path) {
    let env = TestEnv::new();
    let out = env
        .ucg(env.path())
        .args(["generate", what, "--out-dir", "gen"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let generated = snapshot(&env.path().join("gen"));
    let strip = |files: Vec<(std::path::PathBuf, Vec<u8>)>, base: &Path| {
        files
            .into_iter()
            .map(|(p, b)| (p.strip_prefix(base).unwrap().to_path_buf(), b))
            .collect::<Vec<_>>()
    };
    let generated = strip(generated, &env.path().join("gen"));
    let committed_files = strip(snapshot(committed), committed);
    assert!(
        generated == committed_files,
        "{} is stale: run `cargo run -- generate {what} --out-dir {}` and commit the result",
        committed.display(),
        committed.strip_prefix(project()).unwrap().display()
    );
}

#[test]
fn committed_man_pages_are_fresh() {
    assert_directory_matches_generated("man", &project().join("man"));
}

/// Issue 34 item 7: a command that states its usage (the lesson commands, whose arguments
/// DG-Anvil's parser reads) shows it in its man page's SYNOPSIS, not `[ARGS]…`.
#[test]
fn a_stated_usage_is_the_man_pages_synopsis() {
    let page = std::fs::read_to_string(project().join("man/git-ucg-lesson-query.1")).unwrap();
    let synopsis = page
        .split(".SH SYNOPSIS\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap();
    assert!(!synopsis.contains("[ARGS]"), "{synopsis}");
    assert!(synopsis.contains("[PATTERN] [\\-\\-limit N"), "{synopsis}");
}

#[test]
fn committed_completions_are_fresh() {
    assert_directory_matches_generated("completions", &project().join("completions"));
}

#[test]
fn bash_completion_works_under_gits_own_completion() {
    // git-completion.bash calls _git_ucg with `words`/`cword`/`cur` set for `git ucg <TAB>`.
    let script = project().join("completions/git-ucg.bash");
    let complete = |words: &str, cword: usize| {
        let probe = format!(
            "source '{}'; words=({words}); cword={cword}; cur=${{words[cword]}}; _git_ucg; echo \"${{COMPREPLY[*]}}\"",
            script.display()
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &probe])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out).trim().to_string()
    };
    assert_eq!(complete("git ucg res", 2), "resolve resume");
    assert_eq!(complete("git ucg red", 2), "reds");
    assert_eq!(complete("git ucg reds apply --s", 4), "--scan");
    assert_eq!(complete("git ucg config --j", 3), "--json");
    // Issue 34 item 7: the commands alone until a `-` is typed; `help` completes the commands
    // it explains; a command with options only still offers them.
    let top = complete("git ucg ''", 2);
    assert!(top.starts_with("config status runs pending"), "{top}");
    assert!(
        !top.contains('-') || !top.split(' ').any(|w| w.starts_with('-')),
        "{top}"
    );
    let flags = complete("git ucg -", 2);
    assert!(
        flags.split(' ').all(|w| w.starts_with('-')) && flags.contains("--color"),
        "{flags}"
    );
    assert_eq!(complete("git ucg help st", 3), "status");
    let topics = complete("git ucg help ''", 3);
    assert!(topics.contains("pending resolve resume"), "{topics}");
    assert!(!topics.contains("--"), "{topics}");
    let options = complete("git ucg pending ''", 3);
    assert!(
        options.contains("--json") && options.contains("--full"),
        "{options}"
    );
}

/// Whether this machine has `man` (said when it has not: the test is then skipped).
fn man_available() -> bool {
    let there = std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_ok();
    if !there {
        eprintln!("skipped: no man program on this machine");
    }
    there
}

#[test]
fn git_help_ucg_finds_the_installed_man_page() {
    if !man_available() {
        return;
    }
    // The README's install steps: the binary in <prefix>/bin, the pages in <prefix>/share/man/man1.
    let env = TestEnv::new();
    let prefix = env.path().join("prefix");
    let man1 = prefix.join("share/man/man1");
    std::fs::create_dir_all(&man1).unwrap();
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    copy_executable(Path::new(BIN), &prefix.join("bin/git-ucg"));
    for entry in std::fs::read_dir(project().join("man")).unwrap().flatten() {
        std::fs::copy(entry.path(), man1.join(entry.file_name())).unwrap();
    }
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        prefix.join("bin").display()
    );
    let mut git = std::process::Command::new("git");
    git.env_clear();
    let out = ucg_git::hermetic::isolate(&mut git)
        .current_dir(env.path())
        .env("PATH", &path)
        .env("HOME", env.path())
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "80")
        .args(["help", "ucg"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("git-ucg"), "{text}");
    assert!(text.contains("reds"), "{text}");
}

/// Issue 34 item 6: `git ucg install-docs`, run by an installed binary, puts the man pages beside
/// it (<prefix>/share/man/man1, where man-db looks for a PATH directory's pages) and the
/// completions in the user's directories — after which `git ucg --help` (which git turns into
/// `man git-ucg`) opens the page. Before, `No manual entry for git-ucg` unless the pages were
/// copied by hand.
#[test]
fn install_docs_makes_git_ucg_help_work() {
    if !man_available() {
        return;
    }
    let env = TestEnv::new();
    let prefix = env.path().join("prefix");
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    copy_executable(Path::new(BIN), &prefix.join("bin/git-ucg"));
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        prefix.join("bin").display()
    );
    let run = |program: &str, args: &[&str]| {
        let mut command = std::process::Command::new(program);
        command.env_clear();
        ucg_git::hermetic::isolate(&mut command)
            .current_dir(env.path())
            .env("PATH", &path)
            .env("HOME", env.path())
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "80")
            .args(args)
            .output()
            .unwrap()
    };
    let help = run("git", &["ucg", "--help"]);
    assert!(!help.status.success(), "no page yet: {}", stdout(&help));
    let out = run(
        prefix.join("bin/git-ucg").to_str().unwrap(),
        &["install-docs"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let man1 = prefix.join("share/man/man1");
    assert!(
        stdout(&out).contains(&format!("man pages in {}", man1.display())),
        "{}",
        stdout(&out)
    );
    let page = man1.join("git-ucg.1");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&page).unwrap().permissions().mode() & 0o777,
        0o644
    );
    assert_eq!(
        std::fs::read(&page).unwrap(),
        std::fs::read(project().join("man/git-ucg.1")).unwrap()
    );
    let bash = env
        .path()
        .join(".local/share/bash-completion/completions/git-ucg");
    assert_eq!(
        std::fs::read(&bash).unwrap(),
        std::fs::read(project().join("completions/git-ucg.bash")).unwrap()
    );
    assert!(env
        .path()
        .join(".config/fish/completions/git-ucg.fish")
        .is_file());
    let help = run("git", &["ucg", "--help"]);
    assert!(help.status.success(), "{}", stderr(&help));
    assert!(stdout(&help).contains("reds"), "{}", stdout(&help));
    // --dry-run writes nothing; --prefix is a packager's layout.
    let other = env.path().join("pkg");
    let out = run(
        prefix.join("bin/git-ucg").to_str().unwrap(),
        &[
            "install-docs",
            "--prefix",
            other.to_str().unwrap(),
            "--dry-run",
        ],
    );
    assert!(
        stdout(&out).starts_with("would install: "),
        "{}",
        stdout(&out)
    );
    assert!(!other.exists());
}

#[test]
fn the_readme_lists_every_configuration_key_as_declared() {
    let readme = std::fs::read_to_string(project().join("README.md")).unwrap();
    let table = git_ucg::config_keys::markdown_table();
    assert!(
        readme.contains(&table),
        "README.md's table of configuration keys is not src/config_keys.rs's; it should read:\n{table}"
    );
}

/// A key is named in code only through its declaration: no string literal that is exactly a
/// `ucg.*` key appears anywhere else in the source.
#[test]
fn configuration_keys_are_named_only_where_declared() {
    let keys: Vec<&str> = git_ucg::config_keys::KEYS.iter().map(|k| k.name).collect();
    let mut found = Vec::new();
    let mut dirs = vec![project().join("src")];
    for entry in std::fs::read_dir(project().join("crates")).unwrap() {
        dirs.push(entry.unwrap().path().join("src"));
    }
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("src/config_keys.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for key in &keys {
                if text.contains(&format!("\"{key}\"")) {
                    found.push(format!("{}: \"{key}\"", path.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "keys named outside src/config_keys.rs:\n{}",
        found.join("\n")
    );
}
