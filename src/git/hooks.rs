//! git's hooks: where git runs them, which of them are git-ucg's, and running a hook program the
//! way git does (arguments as given, the input on stdin, any failure a non-zero code).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What marks a hook file as git-ucg's.
pub const HOOK_ID: &str = "# git-ucg managed hook — id: git-ucg-hook-v1";

/// Whether the file at `path` is one of git-ucg's hooks.
pub fn is_ours(path: &Path) -> bool {
    crate::store::read_file(path).is_ok_and(|b| String::from_utf8_lossy(&b).contains(HOOK_ID))
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
    let configured = repo
        .config_snapshot()
        .string("core.hooksPath")
        .map(|s| s.to_string())
        .filter(|s| !s.is_empty());
    let dir = match &configured {
        Some(path) => {
            let path = expand_home(path);
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

fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(path),
    }
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
