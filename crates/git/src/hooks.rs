//! git's hooks: where git runs them, which of them are git-ucg's, and running a hook program the
//! way git does (arguments as given, the input on stdin, any failure a non-zero code).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What marks a hook file as git-ucg's.
pub(crate) const HOOK_ID: &str = "# git-ucg managed hook — id: git-ucg-hook-v1";

/// Whether the file at `path` is one of git-ucg's hooks.
pub fn is_ours(path: &Path) -> bool {
    ucg_store::read_file(path).is_ok_and(|b| String::from_utf8_lossy(&b).contains(HOOK_ID))
}

/// The argument on the `#!` line of a hook that the kernel starts git-ucg for (`hooks/direct`):
/// the binary then gets `__hook <hook path> <git's arguments>`.
pub const DIRECT_HOOK_ARG: &str = "__hook";

/// Whether `binary` can stand on a `#!` line: an absolute path without blanks (the kernel splits
/// the line at the first one) that fits in the 255 bytes the kernel reads of it.
pub fn fits_on_shebang(binary: &Path) -> bool {
    binary.to_str().is_some_and(|path| {
        path.starts_with('/')
            && !path.chars().any(|c| c.is_whitespace() || c.is_control())
            && "#!".len() + path.len() + 1 + DIRECT_HOOK_ARG.len() < 256
    })
}

/// The binary a direct hook names on its `#!` line, if the file at `path` is one.
pub fn direct_hook_binary(path: &Path) -> Option<PathBuf> {
    let bytes = ucg_store::read_file(path).ok()?;
    let first = bytes.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(first).ok()?.strip_prefix("#!")?;
    let binary = line.strip_suffix(&format!(" {DIRECT_HOOK_ARG}"))?;
    Some(PathBuf::from(binary))
}

/// Whether git would run the file at `path` as a hook: a file with an execute bit.
pub fn is_runnable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Where git runs hooks: `core.hooksPath` (relative to the work tree, `~/` expanded), else the
/// common git directory's `hooks/` — the same for every linked worktree. Also the raw
/// `core.hooksPath`. `work_tree` is asked only for a relative `core.hooksPath`. The directory is
/// as configured (`..` not resolved).
pub fn hooks_dir<E: From<std::io::Error>>(
    repo: &gix::Repository,
    work_tree: impl FnOnce() -> Result<PathBuf, E>,
) -> Result<(PathBuf, Option<String>), E> {
    let configured = crate::config_string(repo, "core.hooksPath").filter(|s| !s.is_empty());
    let dir = match &configured {
        Some(path) => {
            let path = match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
                (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
                _ => PathBuf::from(path),
            };
            if path.is_absolute() {
                path
            } else {
                work_tree()?.join(path)
            }
        }
        None => std::path::absolute(repo.common_dir().join("hooks"))?,
    };
    Ok((dir, configured))
}

/// Runs the hook program at `path` with `args` and `stdin`, as git runs a hook: its exit code, a
/// failure (or a signal) never 0.
pub fn run_hook_program(
    path: &Path,
    args: &[std::ffi::OsString],
    stdin: &[u8],
) -> std::io::Result<u8> {
    let mut child = std::process::Command::new(path)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .spawn()?;
    if let Some(mut input) = child.stdin.take() {
        // A hook that does not read its stdin closes it early: that is not a failure.
        let _ = input.write_all(stdin);
    }
    let status = child.wait()?;
    Ok(match status.code() {
        Some(0) => 0,
        Some(code) => u8::try_from(code).unwrap_or(1).max(1),
        None => 1,
    })
}

/// `git <args>` in `dir`, for the few writes gitoxide does not make here (the repository's own
/// configuration): whether it succeeded.
pub fn run_git(dir: &Path, args: &[&str]) -> std::io::Result<bool> {
    Ok(std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .status()?
        .success())
}

/// `git config --local --unset KEY` in `dir`: whether the key was there to remove (git's exit
/// code 5 says it was not); any other failure is an error.
pub fn unset_local_config(dir: &Path, key: &str) -> std::io::Result<bool> {
    let status = std::process::Command::new("git")
        .current_dir(dir)
        .args(["config", "--local", "--unset-all", key])
        .status()?;
    match status.code() {
        Some(0) => Ok(true),
        Some(5) => Ok(false),
        _ => Err(std::io::Error::other(format!(
            "git config --local --unset-all {key} failed ({status})"
        ))),
    }
}

/// `git diff --cached --quiet` in the current directory: `Some(true)` when something is staged,
/// `Some(false)` when nothing is, `None` when the index could not be read.
pub fn something_staged() -> Option<bool> {
    let code = std::process::Command::new("git")
        .args(["diff", "--cached", "--quiet"])
        .status()
        .ok()?
        .code();
    match code {
        Some(1) => Some(true),
        Some(0) => Some(false),
        _ => None,
    }
}

/// Whether a `reference-transaction` update (its stdin: `<old> <new> <ref>` lines) makes a new
/// commit on a branch: a `refs/heads/` ref moved from `old` to a commit whose first parent is
/// `old` and that no other ref already points at (a cherry-pick, a revert, a commit — not a
/// fast-forward to a fetched or local tip, not a reset, a creation or a deletion). git gives a
/// zero `old` when the updater did not say what it expects (`git update-ref <ref> <new>`): the
/// ref's value, not yet changed while the transaction is prepared, is then the old one.
pub fn makes_a_new_commit(repo: &gix::Repository, lines: &str) -> bool {
    let zero = |id: &str| id.bytes().all(|b| b == b'0');
    let updates: Vec<(gix::ObjectId, gix::ObjectId, &str)> = lines
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(' ');
            let (old, new, name) = (fields.next()?, fields.next()?, fields.next()?);
            if !name.starts_with("refs/heads/") || zero(new) {
                return None;
            }
            let old = match zero(old) {
                true => crate::repo::ref_tip(repo, name).ok()??,
                false => gix::ObjectId::from_hex(old.as_bytes()).ok()?,
            };
            Some((old, gix::ObjectId::from_hex(new.as_bytes()).ok()?, name))
        })
        .collect();
    let on_top = |old: gix::ObjectId, new: gix::ObjectId| {
        repo.find_commit(new)
            .ok()
            .and_then(|commit| commit.parent_ids().next().map(|p| p.detach()))
            == Some(old)
    };
    let candidates: Vec<(gix::ObjectId, &str)> = updates
        .into_iter()
        .filter(|(old, new, _)| on_top(*old, *new))
        .map(|(_, new, name)| (new, name))
        .collect();
    if candidates.is_empty() {
        return false;
    }
    // A tip some other ref already has was made elsewhere (a pull, a local merge --ff).
    let Ok(references) = repo.references() else {
        return true;
    };
    let Ok(all) = references.all() else {
        return true;
    };
    let names: std::collections::HashSet<&str> = candidates.iter().map(|(_, n)| *n).collect();
    let tips: std::collections::HashSet<gix::ObjectId> = all
        .flatten()
        .filter(|reference| !names.contains(reference.name().as_bstr().to_string().as_str()))
        .filter_map(|reference| reference.target().try_id().map(|id| id.to_owned()))
        .collect();
    candidates.iter().any(|(new, _)| !tips.contains(new))
}

/// The git command that runs this hook — `commit`, `cherry-pick`, an alias as typed — read from
/// the parent process's command line (git starts a hook directly, and the scripts `exec` git-ucg,
/// so the parent is git). `None` where that cannot be known (no `/proc`, a parent that is not
/// git): the caller then assumes the worst.
pub fn invoking_git_command() -> Option<String> {
    let parent = std::os::unix::process::parent_id();
    let file = std::fs::File::open(format!("/proc/{parent}/cmdline")).ok()?;
    // A command line is a few pages at most (the kernel's limit); the cap is only a bound.
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(file, 4 << 20), &mut bytes).ok()?;
    git_subcommand(&bytes)
}

/// The subcommand of a git command line (NUL-separated words, as `/proc/<pid>/cmdline` gives
/// it): the first word after git's own options, or the dashed form's suffix (`git-commit`).
pub(crate) fn git_subcommand(cmdline: &[u8]) -> Option<String> {
    let mut words = cmdline
        .split(|b| *b == 0)
        .map(|word| std::str::from_utf8(word).ok());
    let program = words.next()??;
    let program = program.rsplit('/').next().unwrap_or(program);
    if let Some(dashed) = program.strip_prefix("git-") {
        return Some(dashed.to_string());
    }
    if program != "git" {
        return None;
    }
    // git's options that take their value as the next word.
    const WITH_VALUE: [&str; 7] = [
        "-c",
        "-C",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--attr-source",
    ];
    while let Some(word) = words.next() {
        let word = word?;
        if WITH_VALUE.contains(&word) {
            words.next();
        } else if !word.starts_with('-') {
            return Some(word.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::git_subcommand;

    #[test]
    fn the_subcommand_is_the_first_word_after_gits_options() {
        let cases: [(&[u8], Option<&str>); 8] = [
            (b"git\0commit\0-m\0x\0", Some("commit")),
            (
                b"/usr/bin/git\0-c\0a.b=c\0-C\0dir\0cherry-pick\0side\0",
                Some("cherry-pick"),
            ),
            (
                b"git\0--no-pager\0--git-dir=x\0revert\0HEAD\0",
                Some("revert"),
            ),
            (b"git\0--work-tree\0w\0ci\0", Some("ci")),
            (b"/usr/lib/git-core/git-merge\0--no-edit\0", Some("merge")),
            (b"git\0-c\0", None),
            (b"sh\0-c\0git commit\0", None),
            (b"", None),
        ];
        for (cmdline, expected) in cases {
            assert_eq!(git_subcommand(cmdline).as_deref(), expected, "{cmdline:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_command_line_is_read_without_panic(bytes: Vec<u8>) {
            let _ = git_subcommand(&bytes);
        }
    }
}
