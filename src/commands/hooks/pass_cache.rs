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
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use ucg_store::stamp::{
    all_stamps_match, decode_line_cache, encode_line_cache, parse_stamp_line, relative_stamps,
    stamp_line,
};
use ucg_store::{Stamp, Stamper};
use ucg_ultracode::gate::{escalation_names, GateInputs};

const CACHE_FILE: &str = "gate-cache";
/// The cache's first line: its layout and the version that wrote it (another version may decide
/// otherwise).
const HEADER: &str = concat!("git-ucg gate cache 3 ", env!("CARGO_PKG_VERSION"));
/// The fields after the header: the work tree, the keyed environment, the artifact directory's
/// line and its names line.
const FIELDS: usize = 1 + KEYED_ENV.len() + 2;
/// The environment that moves the run or git's configuration: its values are part of the cache.
const KEYED_ENV: [&str; 8] = [
    crate::context::IMPL_ARTIFACTS_ENV,
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CEILING_DIRECTORIES",
];
/// The environment under which the cache is neither read nor written: another repository or
/// configuration than the files say, or a bypass the full hook handles.
const BYPASSING_ENV: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CONFIG_COUNT",
    "GIT_UCG_SKIP",
    "ULTRACODE_STORY_ID",
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
    ucg_store::read_file(git_dir.join("ucg").join(CACHE_FILE))
        .is_ok_and(|bytes| fresh(&bytes, &root))
}

/// The environment's line for each of [`KEYED_ENV`]: `-` when unset, else `=` and the value.
fn env_lines() -> Vec<Vec<u8>> {
    KEYED_ENV
        .iter()
        .map(|name| match std::env::var_os(name) {
            Some(value) => [b"=".as_slice(), value.as_bytes()].concat(),
            None => b"-".to_vec(),
        })
        .collect()
}

/// Whether the cache at `bytes` is this version's, about the work tree `root` and this
/// environment, with every stamp still matching (public for the fuzz target).
pub fn fresh(bytes: &[u8], root: &Path) -> bool {
    let Some((fields, stamps)) = decode_line_cache(bytes, HEADER, FIELDS) else {
        return false;
    };
    let mut lines = fields.into_iter();
    if lines.next() != Some(root.as_os_str().as_bytes()) {
        return false;
    }
    for expected in env_lines() {
        if lines.next() != Some(expected.as_slice()) {
            return false;
        }
    }
    // The artifact directory: its escalation names, listed again unless the directory's stamp
    // says nothing in it changed (an active run's heartbeat and turn counters move the stamp, not
    // the names).
    let Some((stamp, dir)) = lines.next().and_then(parse_dir_line) else {
        return false;
    };
    let dir = root.join(std::ffi::OsStr::from_bytes(dir));
    let Some(names) = lines.next() else {
        return false;
    };
    let unchanged = stamp.is_some_and(|stamp| Stamper::default().stamp(&dir) == stamp);
    if !unchanged && names != names_line(escalation_names(&dir).as_deref()).as_slice() {
        return false;
    }
    !stamps.is_empty() && all_stamps_match(&stamps, root)
}

/// The artifact directory's line: its stamp line when the stamp can stand for its names, else
/// `? ` and its path.
fn parse_dir_line(line: &[u8]) -> Option<(Option<Stamp>, &[u8])> {
    match line.strip_prefix(b"? ") {
        Some(path) => Some((None, path)),
        None => parse_stamp_line(line).map(|(stamp, path)| (Some(stamp), path)),
    }
}

/// The line for the artifact directory's escalation names: `-` when it is not a directory, else
/// `=` and the names joined by `/` (which no name holds).
fn names_line(names: Option<&[String]>) -> Vec<u8> {
    match names {
        Some(names) => format!("={}", names.join("/")).into_bytes(),
        None => b"-".to_vec(),
    }
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
        let (config_files, config_read) = ucg_git::repo::config_files(repo);
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
            cache: git_dir.join("ucg").join(CACHE_FILE),
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
        let mut lines = vec![self.root.as_os_str().as_bytes().to_vec()];
        lines.extend(env_lines());
        let impl_dir = self
            .impl_dir
            .strip_prefix(&self.root)
            .unwrap_or(&self.impl_dir);
        let impl_dir = impl_dir.as_os_str().as_bytes();
        // The stamp stands for the names only if it held through the decision and is not racy.
        let dir_stamp = Stamper::default().stamp(&self.impl_dir);
        let steady = dir_stamp == self.dir_stamp && !racy(&(self.impl_dir.clone(), dir_stamp));
        lines.push(match steady {
            true => stamp_line(impl_dir, dir_stamp),
            false => [b"? ".as_slice(), impl_dir].concat(),
        });
        lines.push(names_line(self.names.as_deref()));
        let fields: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
        // A value holding a newline cannot be written as a line: nothing is remembered.
        let Some(out) = encode_line_cache(HEADER, &fields, &relative_stamps(&self.root, after))
        else {
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

    /// A cache about `root` with these stamp lines, for this process's environment.
    fn cache(root: &Path, stamp_lines: &[Vec<u8>]) -> Vec<u8> {
        let mut lines = vec![
            HEADER.as_bytes().to_vec(),
            root.as_os_str().as_bytes().to_vec(),
        ];
        lines.extend(env_lines());
        // An artifact directory that is not there.
        lines.extend([b"? absent-dir".to_vec(), b"-".to_vec()]);
        lines.extend(stamp_lines.iter().cloned());
        lines.push(format!("end {FIELDS} {}", stamp_lines.len()).into_bytes());
        let mut out = lines.join(&b'\n');
        out.push(b'\n');
        out
    }

    #[test]
    fn a_pass_holds_while_the_version_the_work_tree_the_environment_and_every_stamp_do() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        std::fs::write(root.join("registry"), b"{}").unwrap_or_else(|e| panic!("{e}"));
        let mut stamper = Stamper::default();
        let lines = vec![
            stamp_line(b"registry", stamper.stamp(&root.join("registry"))),
            stamp_line(b"absent", None),
        ];
        let good = cache(root, &lines);
        assert!(fresh(&good, root));
        assert!(!fresh(&good, Path::new("/elsewhere")), "another work tree");
        let other_version = [
            b"git-ucg gate cache 2 0.0.0".as_slice(),
            &good[HEADER.len()..],
        ]
        .concat();
        assert!(!fresh(&other_version, root), "another version");
        assert!(!fresh(&good[..good.len() - 1], root), "a torn cache");
        assert!(
            !fresh(&cache(root, &[]), root),
            "no stamps: nothing was read"
        );
        let one_env_line_less = {
            let mut lines: Vec<&[u8]> = good.split(|b| *b == b'\n').collect();
            lines.remove(2);
            lines.join(&b'\n')
        };
        assert!(!fresh(&one_env_line_less, root), "another environment");
        std::fs::write(root.join("absent"), b"").unwrap_or_else(|e| panic!("{e}"));
        assert!(!fresh(&good, root), "a file that appeared");
        std::fs::remove_file(root.join("absent")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("registry"), b"{\"reds\": []}").unwrap_or_else(|e| panic!("{e}"));
        assert!(!fresh(&good, root), "a file that changed");
    }

    #[test]
    fn of_the_artifact_directory_only_the_escalation_names_count() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        let impl_dir = root.join("impl");
        std::fs::create_dir(&impl_dir).unwrap_or_else(|e| panic!("{e}"));
        let touch = |name: &str| {
            std::fs::write(impl_dir.join(name), b"{}").unwrap_or_else(|e| panic!("{e}"));
        };
        touch("escalation-7-3.json");
        touch("run-status.json");
        let mut lines = vec![
            HEADER.as_bytes().to_vec(),
            root.as_os_str().as_bytes().to_vec(),
        ];
        lines.extend(env_lines());
        let names = b"=escalation-7-3.json".to_vec();
        let listed = [lines.clone(), vec![b"? impl".to_vec(), names.clone()]].concat();
        let dir_stamp = Stamper::default().stamp(&impl_dir);
        let stamped = [lines, vec![stamp_line(b"impl", dir_stamp), names]].concat();
        let cache = |lines: &[Vec<u8>]| {
            let end = format!("end {FIELDS} 1").into_bytes();
            let mut out = [lines, &[stamp_line(b"absent", None), end]]
                .concat()
                .join(&b'\n');
            out.push(b'\n');
            out
        };
        let (cached, stamped) = (cache(&listed), cache(&stamped));
        assert!(fresh(&cached, root) && fresh(&stamped, root));
        // The heartbeat rewritten by a rename, a turn counter: the same names.
        std::fs::rename(impl_dir.join("run-status.json"), impl_dir.join("x.tmp"))
            .unwrap_or_else(|e| panic!("{e}"));
        touch("run-status.json");
        touch(".budget-7-3.json");
        assert!(fresh(&cached, root), "files the decision does not read");
        assert!(
            fresh(&stamped, root),
            "the directory's stamp moved, the names did not"
        );
        touch(".escalation-8-1.md");
        assert!(!fresh(&cached, root), "a raw marker");
        assert!(!fresh(&stamped, root), "a raw marker, the stamp moved");
        std::fs::remove_file(impl_dir.join(".escalation-8-1.md")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::remove_file(impl_dir.join("escalation-7-3.json"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!fresh(&cached, root), "a sidecar gone");
        std::fs::remove_dir_all(&impl_dir).unwrap_or_else(|e| panic!("{e}"));
        assert!(!fresh(&cached, root), "the directory gone");
    }

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

    proptest::proptest! {
        /// Any bytes at all are read without a panic, and only a cache of this layout passes.
        #[test]
        fn any_bytes_are_read_without_a_panic(noise in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            proptest::prop_assert!(!fresh(&noise, Path::new("/nonexistent")));
            let mut spliced = cache(Path::new("/nonexistent"), &[]);
            spliced.extend_from_slice(&noise);
            let _ = fresh(&spliced, Path::new("/nonexistent"));
        }
    }
}
