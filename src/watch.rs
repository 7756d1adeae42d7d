//! Watching directories for a live view (`status --watch`, `notify --watch`): the set watched
//! follows what the caller locates each round (a directory that went is dropped, one that came
//! back is watched again), and a wait ends at the first change (debounced by 200 ms) or after a
//! timeout, so a loop also notices what no event reports.

use crate::error::{Error, Result};
use notify_debouncer_mini::notify::RecursiveMode;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

pub(crate) struct DirWatcher {
    debouncer: notify_debouncer_mini::Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>,
    events: Receiver<notify_debouncer_mini::DebounceEventResult>,
    watched: Vec<PathBuf>,
}

/// How a wait ended.
pub(crate) enum Woken {
    Changed,
    TimedOut,
    /// The watcher is gone: the loop ends.
    Closed,
}

impl DirWatcher {
    pub(crate) fn new() -> Result<Self> {
        let (sender, events) = std::sync::mpsc::channel();
        let debouncer = notify_debouncer_mini::new_debouncer(Duration::from_millis(200), sender)
            .map_err(|e| Error::new(format!("cannot watch for changes: {e}")))?;
        Ok(DirWatcher {
            debouncer,
            events,
            watched: Vec::new(),
        })
    }

    /// Watches exactly those of `targets` that are directories now; whether the set changed.
    pub(crate) fn watch_only(&mut self, mut targets: Vec<PathBuf>) -> bool {
        targets.sort();
        targets.dedup();
        let before = self.watched.len();
        let watcher = self.debouncer.watcher();
        self.watched.retain(|dir| {
            let keep = targets.contains(dir) && dir.is_dir();
            if !keep {
                let _ = watcher.unwatch(dir);
            }
            keep
        });
        let mut changed = self.watched.len() != before;
        for dir in targets {
            if !self.watched.contains(&dir)
                && dir.is_dir()
                && watcher.watch(&dir, RecursiveMode::NonRecursive).is_ok()
            {
                self.watched.push(dir);
                changed = true;
            }
        }
        changed
    }

    /// Waits for a change under the watched directories, at most `timeout`.
    pub(crate) fn wait(&self, timeout: Duration) -> Woken {
        match self.events.recv_timeout(timeout) {
            Ok(_) => Woken::Changed,
            Err(RecvTimeoutError::Timeout) => Woken::TimedOut,
            Err(RecvTimeoutError::Disconnected) => Woken::Closed,
        }
    }
}
