//! `git ucg status --prompt`: one short segment for a shell prompt, e.g. `ucg 7 2/3 ⚑2R1E`.
//!
//! A prompt runs before every command line, so the common case is a handful of `stat` calls: the
//! last segment is cached under the git directory with the stamps (change time, size, inode) of
//! every file and directory it was computed from (the escalation files through their directory's:
//! they count by name), and served while they all still match. Only a changed stamp recomputes,
//! and that under a hard deadline: past it the last segment is printed with a
//! `?` and a detached `git ucg` finishes the work for the next prompt. Nothing is written under
//! the artifact directories; no worktree status, tree diff or object read ever happens here.

use crate::render::visible;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use ucg_git::ArtifactSource;
use ucg_store::pyjson;
use ucg_store::stamp::relative_stamps;
use ucg_store::{Stamp, Stamper};
use ucg_ultracode::decisions::DECISIONS_FILE;
use ucg_ultracode::heartbeat::HEARTBEAT_FILE;
use ucg_ultracode::pending::{self, PendingInputs};
use ucg_ultracode::prompt_cache::{self, PromptCache};
use ucg_ultracode::reds::REGISTRY_FILE;
use ucg_ultracode::status::PendingCounts;

/// The deadline when `ucg.prompt.timeoutMs` is not set.
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 50;
/// Set in the detached process that finishes a computation the deadline cut short.
const BACKGROUND_ENV: &str = "GIT_UCG_PROMPT_BACKGROUND";
const REFRESH_LOCK_FILE: &str = "prompt-refresh.lock";

/// What the segment shows.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    /// `(epic, position)`, from the heartbeat; `None` without a usable one.
    pub run: Option<(String, Option<String>)>,
    pub counts: PendingCounts,
    /// Raw markers and unreadable sidecars: escalations not (yet) answerable.
    pub unanswerable_escalations: usize,
    /// The registry is corrupt: the RED count is unknown.
    pub blocked: bool,
}

/// The segment: empty when there is no run and nothing pending.
pub(crate) fn segment(summary: &Summary) -> String {
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
        out.push_str(&format!(" {}", visible::strip_controls(epic)));
        if let Some(position) = position {
            out.push_str(&format!(" {}", visible::strip_controls(position)));
        }
    }
    if !flags.is_empty() {
        out.push_str(&format!(" ⚑{flags}"));
    }
    out
}

/// What the segment is computed from, and the stamps that tell when to compute it again.
fn compute(root: &Path, env: Option<&str>) -> (String, Vec<(PathBuf, Stamp)>) {
    // Stamps are taken before the reads: a change during the computation leaves a stamp older
    // than the file, so the next prompt computes again. The same stamper as the check's, so the
    // same looks-ups give the same stamps.
    let mut stamper = Stamper::default();
    let mut stamped = |p: PathBuf| {
        let s = stamper.stamp(&p);
        (p, s)
    };
    let config_paths = ucg_ultracode::config::input_paths(root);
    let mut stamps: Vec<(PathBuf, Stamp)> = config_paths.into_iter().map(&mut stamped).collect();
    let config = ucg_ultracode::config::Config::load(root).ok();
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
        .unwrap_or_else(|| impl_dir.join(ucg_ultracode::ledger::LEDGER_FILE));

    // The escalation files count by their names alone — a sidecar that reads and one that does
    // not are both an escalation, a raw marker is one by its name — so the directory's own
    // stamp, which every file created, removed or renamed in it changes, stands for them all:
    // one `stat` instead of one per file (a run of 1,000 stories has thousands).
    let watched = [
        impl_dir.clone(),
        impl_dir.join(HEARTBEAT_FILE),
        impl_dir.join(REGISTRY_FILE),
        impl_dir.join(DECISIONS_FILE),
        ledger.clone(),
    ];
    stamps.extend(watched.into_iter().map(stamped));

    let source = ArtifactSource::WorkTree;
    let run = source
        .read(&impl_dir.join(HEARTBEAT_FILE))
        .and_then(|bytes| pyjson::object_in(&bytes))
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

/// Best effort: a cache that cannot be written is recomputed next time.
fn write_cache(dir: &Path, cache: &PromptCache) {
    let Some(bytes) = cache.encode() else {
        return;
    };
    if ucg_store::create_dirs(dir).is_err() {
        return;
    }
    let _ = ucg_store::replace_cache(&dir.join(prompt_cache::FILE), ".prompt-cache", &bytes);
}

/// `ucg.prompt.timeoutMs` from the repository's git configuration.
fn timeout(git_dir: &Path) -> Duration {
    let configured = ucg_git::repo::open(git_dir).and_then(|repo| {
        ucg_git::repo::config_integer(&repo, crate::config_keys::PROMPT_TIMEOUT_MS.name)
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

/// The segment for the repository around the current directory (empty outside one). Never fails.
pub(crate) fn run(started: Instant) -> String {
    let Some((root, git_dir)) = std::env::current_dir()
        .ok()
        .and_then(|cwd| ucg_git::repo::work_tree_around(&cwd))
    else {
        return String::new();
    };
    let cache_dir = ucg_store::ucg_dir(&git_dir);
    let cache_path = cache_dir.join(prompt_cache::FILE);
    // One background refresh at a time: prompts drawn while one runs each start another, which
    // would only repeat its work. Held until this function returns. The lock is
    // `<git dir>/ucg/prompt-refresh.lock`; `Ok(None)`, when no lock file can be opened at all,
    // does not stop the refresh; an `Err` is another background refresh holding it.
    let _refreshing = match std::env::var_os(BACKGROUND_ENV) {
        Some(_) => {
            let _ = ucg_store::create_dirs(&cache_dir);
            match ucg_store::try_lock_file(&cache_dir.join(REFRESH_LOCK_FILE)) {
                Ok(lock) => lock,
                Err(_) => return String::new(),
            }
        }
        None => None,
    };
    let env = std::env::var(crate::context::IMPL_ARTIFACTS_ENV)
        .ok()
        .filter(|v| !v.is_empty());
    let cached = ucg_store::read_file(&cache_path).unwrap_or_default();
    // The cached segment when every stamp in the cache still matches (the prompt's fast path),
    // without control characters: whatever wrote the cache (it lies under the git directory),
    // the shell draws no escape.
    if let Some(segment) = prompt_cache::fresh_segment(&cached, &root, env.as_deref()) {
        return visible::strip_controls(&segment).into_owned();
    }
    // The deadline is read first: finding it counts against it, as everything else does.
    let remaining = if std::env::var_os(BACKGROUND_ENV).is_some() {
        Duration::MAX
    } else {
        timeout(&git_dir).saturating_sub(started.elapsed())
    };
    let stale = || {
        finish_in_background();
        // The last segment, fresh or not.
        let last = prompt_cache::last_segment(&cached).unwrap_or("ucg");
        // As when served fresh: whatever wrote the cache, no control character reaches the shell.
        format!("{}?", visible::strip_controls(last))
    };
    if remaining.is_zero() {
        return stale();
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let (task_root, task_env) = (root.clone(), env.clone());
    // The JSON reader recurses: the same stack as every command gets.
    let spawned = std::thread::Builder::new()
        .stack_size(ucg_store::pyjson::STACK_SIZE)
        .spawn(move || {
            let _ = sender.send(compute(&task_root, task_env.as_deref()));
        });
    if spawned.is_err() {
        return stale();
    }
    match receiver.recv_timeout(remaining) {
        Ok((segment, stamps)) => {
            let cache = PromptCache {
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
