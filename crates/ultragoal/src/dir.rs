//! Where ultragoal state lives (docs/formats/ultragoal.md §1.1–1.3): the state directory `OMT_DIR` and
//! the session id, by the TypeScript CLI's rules, so both read and write the same files.

use super::Refusal;
use std::path::{Path, PathBuf};

/// The safe-id rule: `^[A-Za-z0-9_-]+$`, 1..=200 characters.
pub(crate) fn is_safe_session_id(sid: &str) -> bool {
    (1..=200).contains(&sid.len())
        && sid
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The session id: `--session`, else `OMT_SESSION_ID` (authoritative whenever present, even when
/// empty or unsafe), else a non-empty `CODEX_THREAD_ID`. The error is the CLI's message, without
/// its prefix.
pub fn session_id(flag: Option<&str>) -> Result<String, Refusal> {
    let env = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    let (source, given) = match (flag, env("OMT_SESSION_ID"), env("CODEX_THREAD_ID")) {
        (Some(sid), _, _) => ("--session", sid.to_string()),
        (None, Some(sid), _) => ("OMT_SESSION_ID", sid),
        (None, None, Some(sid)) if !sid.is_empty() => ("CODEX_THREAD_ID", sid),
        _ => return Err(
            "No session id: neither OMT_SESSION_ID (Claude) nor CODEX_THREAD_ID (Codex) is set."
                .into(),
        ),
    };
    if is_safe_session_id(&given) {
        Ok(given)
    } else {
        Err(format!(
            "{source} \"{given}\" is not a safe session id (must match ^[A-Za-z0-9_-]+$, length 1..200)."
        ).into())
    }
}

/// The project name the default state directory is named after: the directory holding the git
/// common directory (so every worktree of a repository shares one), spaces as `-`; outside a
/// repository the current directory's name, with a warning.
pub(crate) fn project_name(cwd: &Path) -> (String, Option<String>) {
    let found = ucg_git::repo::common_dir_around(cwd)
        // A linked worktree's common directory arrives as `…/worktrees/<name>/../..`.
        .map(|common| ucg_store::lexical_normal(&common))
        .and_then(|common| Some(common.parent()?.file_name()?.to_string_lossy().into_owned()));
    if let Some(name) = found {
        return (name.replace(' ', "-"), None);
    }
    let name = cwd
        .file_name()
        .map(|n| n.to_string_lossy().replace(' ', "-"))
        .unwrap_or_default();
    let warning = format!(
        "omt-dir: non-canonical project '{name}' from non-git path {}",
        cwd.display()
    );
    (name, Some(warning))
}

/// The environment variable that names the state directory.
pub const OMT_DIR_ENV: &str = "OMT_DIR";

/// The state directory's name, under the home directory (and in a project that keeps its own).
pub const OMT_DIR_NAME: &str = ".omt";

/// `OMT_DIR`: `--omt-dir`, else the environment's (non-empty, verbatim), else
/// `$HOME/.omt/<project>`. Read commands never create it.
pub fn omt_dir(flag: Option<&Path>, cwd: &Path) -> (PathBuf, Option<String>) {
    if let Some(dir) = flag {
        return (dir.to_path_buf(), None);
    }
    if let Some(dir) = std::env::var_os(OMT_DIR_ENV).filter(|d| !d.is_empty()) {
        return (PathBuf::from(dir), None);
    }
    let (project, warning) = project_name(cwd);
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    (home.join(OMT_DIR_NAME).join(project), warning)
}

/// What the name of each session's file of one kind starts with: `<prefix><sid>.json`.
pub(crate) const STATE_PREFIX: &str = "ultragoal-state-";
pub(crate) const VERDICT_PREFIX: &str = "ultragoal-verdict-";
pub(crate) const CODEREVIEW_PREFIX: &str = "ultragoal-codereview-";

/// `<prefix><sid>.json` in the state directory.
pub(crate) fn session_file(omt_dir: &Path, prefix: &str, sid: &str) -> PathBuf {
    omt_dir.join(format!("{prefix}{sid}.json"))
}

/// The session whose file of the kind `prefix` names is `name`, if it is one.
pub(crate) fn session_of<'a>(name: &'a str, prefix: &str) -> Option<&'a str> {
    name.strip_prefix(prefix)?.strip_suffix(".json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_ids() {
        assert!(is_safe_session_id("abc-DEF_09"));
        assert!(!is_safe_session_id(""));
        assert!(!is_safe_session_id("a/b"));
        assert!(!is_safe_session_id("a.b"));
        assert!(!is_safe_session_id(&"x".repeat(201)));
        assert!(is_safe_session_id(&"x".repeat(200)));
    }
}
