//! The commit hooks' remembered pass: a commit hook runs at every commit, and with nothing pending
//! its answer is the same until something it reads changes. When the gate lets a commit through,
//! the stamps (change time, size, inode) of everything the decision read are written to
//! `<git dir>/ucg/gate-cache`; the next commit hook whose stamps all still match passes at once,
//! on the process's first thread, without opening the repository or reading the run.
//!
//! Only a pass is remembered, and only when nothing can make it differ but those files: not under
//! strict mode, a chained hook, linked worktrees (another work tree's run can gate this branch),
//! `GIT_DIR` and its kind in the environment, or a warning printed; not when a file it read was
//! changed in the last two seconds (a change in the same clock tick as the stamp would not show:
//! git's "racily clean" case), nor when a file changed while the decision read it. The cache
//! keys on the environment that moves the run or git's configuration, and on git-ucg's version.

use crate::cli::HookName;
use crate::context::Context;
use std::path::PathBuf;
use ucg_store::stamp::relative_stamps;
use ucg_store::{Stamp, Stamper};
use ucg_ultracode::gate::{escalation_names, GateInputs};
use ucg_ultracode::gate_cache;

/// The environment under which the cache is neither read nor written: another repository or
/// configuration than the files say, or a bypass the full hook handles.
const BYPASSING_ENV: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CONFIG_COUNT",
    "GIT_UCG_SKIP",
    ucg_ultracode::STORY_ENV,
];
/// How recent a change must be for its stamp not to be trusted (filesystems with one-second
/// timestamps included).
const RACY_SECONDS: i64 = 2;

/// The hooks whose pass depends on the work tree's run alone (not on stdin, the invoking command,
/// or the refs pushed).
fn remembered(hook: HookName) -> bool {
    matches!(
        hook,
        HookName::PreCommit
            | HookName::PreMergeCommit
            | HookName::PreApplypatch
            | HookName::PreRebase
            | HookName::PostCommit
            | HookName::PostMerge
    )
}

fn bypassed() -> bool {
    BYPASSING_ENV
        .iter()
        .any(|name| std::env::var_os(name).is_some())
}

/// Whether `hook` (with no chained hook beside it: the caller checks) passes by the remembered
/// verdict. Never fails: anything unexpected is `false`, and the full hook decides.
pub(crate) fn passes(hook: HookName) -> bool {
    if !remembered(hook) || bypassed() {
        return false;
    }
    let Some((root, git_dir)) = std::env::current_dir()
        .ok()
        .and_then(|cwd| ucg_git::repo::work_tree_around(&cwd))
    else {
        return false;
    };
    ucg_store::read_file(ucg_store::ucg_dir(&git_dir).join(gate_cache::FILE))
        .is_ok_and(|bytes| gate_cache::fresh(&bytes, &root))
}

/// A decision being watched: the files it reads, stamped before it reads them.
pub(crate) struct Watch {
    root: PathBuf,
    cache: PathBuf,
    impl_dir: PathBuf,
    /// The artifact directory's stamp and escalation names before the decision.
    dir_stamp: Stamp,
    names: Option<Vec<String>>,
    /// Files the configuration was read from (each must still be there).
    read: Vec<PathBuf>,
    before: Vec<(PathBuf, Stamp)>,
}

impl Watch {
    /// Stamps what the gate's decision for `hook` is about to read, when a pass could be
    /// remembered; `None` otherwise.
    pub(crate) fn start(ctx: &Context, hook: HookName, located: &GateInputs) -> Option<Watch> {
        if !remembered(hook) || bypassed() || ctx.strict_mode() {
            return None;
        }
        let repo = ctx.repo().ok()?;
        let git_dir = std::path::absolute(repo.git_dir()).ok()?;
        let common_dir = std::path::absolute(repo.common_dir()).ok()?;
        // Linked worktrees: another work tree's run may gate the branch committed on.
        let worktrees = common_dir.join("worktrees");
        if git_dir != common_dir || std::fs::symlink_metadata(&worktrees).is_ok() {
            return None;
        }
        let (config_files, config_read) = ucg_git::repo::config_files(repo)?;
        let root = located.project_root.clone();
        let mut read: Vec<PathBuf> = ctx
            .config()
            .ok()?
            .layers
            .iter()
            .filter(|layer| matches!(layer.state, ucg_ultracode::config::LayerState::Loaded))
            .map(|layer| layer.path.clone())
            .collect();
        read.extend(config_read);
        let mut paths = ucg_ultracode::config::input_paths(&root);
        paths.extend(config_files);
        paths.extend([git_dir.join("HEAD"), worktrees]);
        // The directory's stamp before its names, and the names before the sidecars' stamps: a
        // change after one moves the next.
        let dir_stamp = Stamper::default().stamp(&located.impl_dir);
        let names = escalation_names(&located.impl_dir);
        paths.extend(located.read_paths(names.as_deref().unwrap_or_default()));
        let before = stamps(&paths);
        Some(Watch {
            root,
            cache: ucg_store::ucg_dir(&git_dir).join(gate_cache::FILE),
            impl_dir: located.impl_dir.clone(),
            dir_stamp,
            names,
            read,
            before,
        })
    }

    /// Remembers the pass the decision came to, when every file it read is as it was before and
    /// none was changed too recently to tell.
    pub(crate) fn remember_pass(self, ctx: &Context) {
        if ctx.warned() {
            return;
        }
        let paths: Vec<PathBuf> = self.before.iter().map(|(p, _)| p.clone()).collect();
        let after = stamps(&paths);
        let present = |path: &PathBuf| {
            self.before
                .iter()
                .any(|(p, stamp)| p == path && stamp.is_some())
        };
        if after != self.before
            || !self.read.iter().all(present)
            || after.iter().any(racy)
            || escalation_names(&self.impl_dir) != self.names
        {
            return;
        }
        // The stamp stands for the names only if it held through the decision and is not racy.
        let dir_stamp = Stamper::default().stamp(&self.impl_dir);
        let steady = dir_stamp == self.dir_stamp && !racy(&(self.impl_dir.clone(), dir_stamp));
        // A value holding a newline cannot be written as a line: nothing is remembered.
        let Some(out) = gate_cache::encode(
            &self.root,
            &self.impl_dir,
            steady.then_some(dir_stamp),
            self.names.as_deref(),
            &relative_stamps(&self.root, after),
        ) else {
            return;
        };
        // Best effort: a cache that cannot be written is decided in full next time.
        if let Some(dir) = self.cache.parent() {
            if ucg_store::create_dirs(dir).is_ok() {
                let _ = ucg_store::replace_cache(&self.cache, ".gate-cache", &out);
            }
        }
    }
}

fn stamps(paths: &[PathBuf]) -> Vec<(PathBuf, Stamp)> {
    let mut stamper = Stamper::default();
    let mut seen = std::collections::HashSet::new();
    paths
        .iter()
        .filter(|path| seen.insert(path.as_path()))
        .map(|path| (path.clone(), stamper.stamp(path)))
        .collect()
}

/// Changed within [`RACY_SECONDS`] of now, or in the future: a later change within the same
/// timestamp would leave the stamp as it is.
fn racy((_, stamp): &(PathBuf, Stamp)) -> bool {
    let Some(freshness) = stamp else {
        return false;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(i64::MAX, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    freshness.ctime > now.saturating_sub(RACY_SECONDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_recent_or_future_change_is_racy() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
        let at = |seconds: i64| {
            let freshness = ucg_store::Freshness {
                ctime: seconds,
                ..Default::default()
            };
            (PathBuf::from("f"), Some(freshness))
        };
        assert!(racy(&at(now)));
        assert!(racy(&at(now - 1)));
        assert!(racy(&at(now + 3600)));
        assert!(!racy(&at(now - 3)));
        assert!(!racy(&(PathBuf::from("f"), None)));
    }
}
