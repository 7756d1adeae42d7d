//! `git ucg status --prompt`: one short segment for a shell prompt, e.g. `ucg 7 2/3 ⚑2R1E`.
//!
//! A prompt runs before every command line, so the common case is a handful of `stat` calls: the
//! last segment is cached under the git directory with the stamps (mtime, size, inode) of every
//! file and directory it was computed from, and served while they all still match. Only a changed
//! stamp recomputes, and that under a hard deadline: past it the last segment is printed with a
//! `?` and a detached `git ucg` finishes the work for the next prompt. Nothing is written under
//! the artifact directories; no worktree status, tree diff or object read ever happens here.

use crate::git::ArtifactSource;
use crate::pyjson::{self, Value};
use crate::render::visible;
use crate::ucg::decisions::DECISIONS_FILE;
use crate::ucg::escalations;
use crate::ucg::heartbeat::HEARTBEAT_FILE;
use crate::ucg::pending::{self, PendingInputs};
use crate::ucg::reds::REGISTRY_FILE;
use crate::ucg::status::PendingCounts;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The deadline when `ucg.prompt.timeoutMs` is not set.
pub const DEFAULT_TIMEOUT_MS: u64 = 50;
/// Set in the detached process that finishes a computation the deadline cut short.
const BACKGROUND_ENV: &str = "GIT_UCG_PROMPT_BACKGROUND";
const CACHE_FILE: &str = "prompt-cache.json";
const REFRESH_LOCK_FILE: &str = "prompt-refresh.lock";
/// Bumped when the cache's layout or the segment's meaning changes.
const CACHE_VERSION: u64 = 2;

/// What the segment shows.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// `(epic, position)`, from the heartbeat; `None` without a usable one.
    pub run: Option<(String, Option<String>)>,
    pub counts: PendingCounts,
    /// Raw markers and unreadable sidecars: escalations not (yet) answerable.
    pub unanswerable_escalations: usize,
    /// The registry is corrupt: the RED count is unknown.
    pub blocked: bool,
}

/// The segment: empty when there is no run and nothing pending.
pub fn segment(summary: &Summary) -> String {
    let escalations = summary.counts.escalation + summary.unanswerable_escalations;
    let mut flags = String::new();
    if summary.blocked {
        flags.push('!');
    }
    for (n, letter) in [
        (summary.counts.red, 'R'),
        (escalations, 'E'),
        (summary.counts.decision, 'D'),
    ] {
        if n > 0 {
            flags.push_str(&format!("{n}{letter}"));
        }
    }
    if summary.run.is_none() && flags.is_empty() {
        return String::new();
    }
    let mut out = String::from("ucg");
    if let Some((epic, position)) = &summary.run {
        // Artifact text, drawn by the shell at every prompt: no control character survives.
        out.push(' ');
        out.push_str(&visible::strip_controls(epic));
        if let Some(position) = position {
            out.push(' ');
            out.push_str(&visible::strip_controls(position));
        }
    }
    if !flags.is_empty() {
        out.push_str(" ⚑");
        out.push_str(&flags);
    }
    out
}

/// A file's or directory's stamp: `None` when absent.
type Stamp = Option<(i64, i64, u64, u64)>;

fn stamp(path: &Path) -> Stamp {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.mtime(), m.mtime_nsec(), m.size(), m.ino()))
}

#[derive(Debug, serde::Serialize, serde::Deserialize, PartialEq)]
struct Cache {
    version: u64,
    /// The work tree the segment is about: a copied repository (`cp -a`) carries the cache along,
    /// and must not show the original's run.
    root: PathBuf,
    /// `ULTRACODE_IMPL_ARTIFACTS` when the segment was computed (it moves the artifacts).
    env: Option<String>,
    segment: String,
    stamps: Vec<(PathBuf, Stamp)>,
}

impl Cache {
    /// Stamps are stored relative to the work tree where they lie inside it (so they name the
    /// copy's files in a copy) and checked against this work tree's files.
    fn fresh(&self, root: &Path, env: &Option<String>) -> bool {
        self.version == CACHE_VERSION
            && self.root == root
            && self.env == *env
            && self
                .stamps
                .iter()
                .all(|(path, old)| stamp(&root.join(path)) == *old)
    }
}

/// `stamps` with the paths inside `root` made relative to it.
fn relative_stamps(root: &Path, stamps: Vec<(PathBuf, Stamp)>) -> Vec<(PathBuf, Stamp)> {
    stamps
        .into_iter()
        .map(|(path, s)| match path.strip_prefix(root) {
            Ok(inside) => (inside.to_path_buf(), s),
            Err(_) => (path, s),
        })
        .collect()
}

/// The work tree and git directory around `cwd`, found with a few `stat` calls: `.git` as a
/// directory or as a `gitdir:` file (linked worktrees, submodules), stopping at
/// `GIT_CEILING_DIRECTORIES`. `GIT_DIR` in the environment hands over to gix's full discovery.
/// Bare repositories have no run: `None`.
fn discover(cwd: &Path) -> Option<(PathBuf, PathBuf)> {
    if std::env::var_os("GIT_DIR").is_some() {
        let repo = crate::git::repo::discover_from_environment(cwd).ok()?;
        let work_tree = std::path::absolute(repo.workdir()?).ok()?;
        let git_dir = std::path::absolute(repo.git_dir()).ok()?;
        return Some((work_tree, git_dir));
    }
    let ceilings: Vec<PathBuf> = std::env::var_os("GIT_CEILING_DIRECTORIES")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| p.is_absolute())
                .collect()
        })
        .unwrap_or_default();
    for (depth, dir) in cwd.ancestors().enumerate() {
        // Like git: a ceiling is never entered from below (the start itself is searched).
        if depth > 0 && ceilings.iter().any(|c| c == dir) {
            return None;
        }
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return dot_git
                .join("HEAD")
                .is_file()
                .then(|| (dir.to_path_buf(), dot_git));
        }
        let text = crate::store::read_text(&dot_git).ok()?;
        let target = text.strip_prefix("gitdir:")?.trim();
        let git_dir = dir.join(target);
        return git_dir
            .join("HEAD")
            .is_file()
            .then(|| (dir.to_path_buf(), git_dir));
    }
    None
}

/// What the segment is computed from, and the stamps that tell when to compute it again.
fn compute(root: &Path, env: Option<&str>) -> (String, Vec<(PathBuf, Stamp)>) {
    // Stamps are taken before the reads: a change during the computation leaves a stamp older
    // than the file, so the next prompt computes again.
    let mut stamps: Vec<(PathBuf, Stamp)> = crate::config::input_paths(root)
        .into_iter()
        .map(|p| {
            let s = stamp(&p);
            (p, s)
        })
        .collect();
    let config = crate::config::Config::load(root).ok();
    let configured = |key: &str| config.as_ref().and_then(|c| c.path(key).ok().flatten());
    let Some(impl_dir) = env
        .map(PathBuf::from)
        .or_else(|| configured("implementation_artifacts"))
    else {
        return (String::new(), stamps);
    };
    let impl_dir = root.join(impl_dir);
    // As `Context::deferred_work`: the configured ledger goes with the configured directory.
    let ledger = env
        .is_none()
        .then(|| configured("deferred_work_path"))
        .flatten()
        .map(|p| root.join(p))
        .unwrap_or_else(|| impl_dir.join("deferred-work.md"));

    let mut names: Vec<String> = crate::git::ArtifactSource::WorkTree.list(&impl_dir);
    names.sort();
    let mut watched = vec![
        impl_dir.clone(),
        impl_dir.join(HEARTBEAT_FILE),
        impl_dir.join(REGISTRY_FILE),
        impl_dir.join(DECISIONS_FILE),
        ledger.clone(),
    ];
    watched.extend(
        names
            .iter()
            .filter(|n| {
                escalations::sidecar_story(n).is_some() || escalations::marker_story(n).is_some()
            })
            .map(|n| impl_dir.join(n)),
    );
    stamps.extend(watched.into_iter().map(|p| {
        let s = stamp(&p);
        (p, s)
    }));

    let source = ArtifactSource::WorkTree;
    let run = source
        .read(&impl_dir.join(HEARTBEAT_FILE))
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .and_then(|text| match pyjson::loads(&text) {
            Ok(Value::Object(object)) => Some(object),
            _ => None,
        })
        .map(|heartbeat| {
            let text = |key: &str| {
                heartbeat
                    .get(key)
                    .filter(|v| v.is_truthy())
                    .map(pyjson::py_str)
            };
            let position = text("index")
                .zip(text("total"))
                .map(|(index, total)| format!("{index}/{total}"));
            (text("epic").unwrap_or_else(|| "?".into()), position)
        });
    let found = pending::enumerate(
        &PendingInputs {
            project_root: root,
            impl_dir: &impl_dir,
            ledger: &ledger,
        },
        &source,
    );
    let summary = Summary {
        run,
        counts: PendingCounts::of(&found),
        unanswerable_escalations: found.unpromoted.len() + found.unreadable.len(),
        blocked: !found.blockers.is_empty(),
    };
    (segment(&summary), stamps)
}

fn read_cache(path: &Path) -> Option<Cache> {
    serde_json::from_slice(&crate::store::read_file(path).ok()?).ok()
}

/// Best effort: a cache that cannot be written is recomputed next time.
fn write_cache(dir: &Path, cache: &Cache) {
    let Ok(bytes) = serde_json::to_vec(cache) else {
        return;
    };
    if crate::store::create_dirs(dir).is_err() {
        return;
    }
    let _ = crate::store::replace_cache(&dir.join(CACHE_FILE), ".prompt-cache", &bytes);
}

/// `ucg.prompt.timeoutMs` from the repository's git configuration.
fn timeout(git_dir: &Path) -> Duration {
    let configured = crate::git::repo::open(git_dir).and_then(|repo| {
        crate::git::repo::config_integer(&repo, "ucg.prompt.timeoutMs")
            .and_then(|ms| u64::try_from(ms).ok())
    });
    Duration::from_millis(configured.unwrap_or(DEFAULT_TIMEOUT_MS))
}

/// Runs the cut-short computation again, detached, so the next prompt finds it cached.
fn finish_in_background() {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let _ = Command::new(exe)
        .args(["status", "--prompt"])
        .env(BACKGROUND_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
}

/// Another background refresh holds the lock.
struct AnotherRefresh;

/// The background refresh's lock (`<git dir>/ucg/prompt-refresh.lock`); `Ok(None)` when no lock
/// file can be opened at all, which does not stop the refresh.
fn take_refresh_lock(cache_dir: &Path) -> Result<Option<std::fs::File>, AnotherRefresh> {
    let _ = crate::store::create_dirs(cache_dir);
    crate::store::try_lock_file(&cache_dir.join(REFRESH_LOCK_FILE)).map_err(|_| AnotherRefresh)
}

/// The segment for the repository around the current directory (empty outside one). Never fails.
pub fn run(started: Instant) -> String {
    let Some((root, git_dir)) = std::env::current_dir().ok().and_then(|cwd| discover(&cwd)) else {
        return String::new();
    };
    let cache_dir = git_dir.join("ucg");
    let cache_path = cache_dir.join(CACHE_FILE);
    // One background refresh at a time: prompts drawn while one runs each start another, which
    // would only repeat its work. Held until this function returns.
    let _refreshing = match std::env::var_os(BACKGROUND_ENV) {
        Some(_) => match take_refresh_lock(&cache_dir) {
            Ok(lock) => lock,
            Err(AnotherRefresh) => return String::new(),
        },
        None => None,
    };
    let env = std::env::var(crate::context::IMPL_ARTIFACTS_ENV)
        .ok()
        .filter(|v| !v.is_empty());
    let cached = read_cache(&cache_path);
    if let Some(cache) = cached.as_ref().filter(|c| c.fresh(&root, &env)) {
        return cache.segment.clone();
    }
    // The deadline is read first: finding it counts against it, as everything else does.
    let remaining = if std::env::var_os(BACKGROUND_ENV).is_some() {
        Duration::MAX
    } else {
        timeout(&git_dir).saturating_sub(started.elapsed())
    };
    let stale = || {
        finish_in_background();
        let last = cached.as_ref().map_or("ucg", |c| c.segment.as_str());
        format!("{last}?")
    };
    if remaining.is_zero() {
        return stale();
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let (task_root, task_env) = (root.clone(), env.clone());
    // The JSON reader recurses: the same stack as every command gets.
    let spawned = std::thread::Builder::new()
        .stack_size(crate::STACK_SIZE)
        .spawn(move || {
            let _ = sender.send(compute(&task_root, task_env.as_deref()));
        });
    if spawned.is_err() {
        return stale();
    }
    match receiver.recv_timeout(remaining) {
        Ok((segment, stamps)) => {
            let cache = Cache {
                version: CACHE_VERSION,
                stamps: relative_stamps(&root, stamps),
                root,
                env,
                segment,
            };
            write_cache(&cache_dir, &cache);
            cache.segment
        }
        Err(_) => stale(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments() {
        let mut summary = Summary::default();
        assert_eq!(segment(&summary), "");
        summary.counts.red = 2;
        assert_eq!(segment(&summary), "ucg ⚑2R");
        summary.run = Some(("7".into(), Some("2/3".into())));
        summary.counts.escalation = 1;
        summary.unanswerable_escalations = 1;
        summary.counts.decision = 1;
        assert_eq!(segment(&summary), "ucg 7 2/3 ⚑2R2E1D");
        summary.blocked = true;
        summary.counts = PendingCounts::default();
        summary.unanswerable_escalations = 0;
        assert_eq!(segment(&summary), "ucg 7 2/3 ⚑!");
    }
}
