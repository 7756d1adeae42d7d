//! Announcing changes of what the run waits on (issue 20 item 2): what is new and what closed
//! since the last announcement, the document a notification command reads, and the record of
//! what was announced (`<git dir>/ucg/notify.json`) that keeps a change from being announced
//! twice. [`announce`] runs the command and records; the rest are pure functions.

use crate::error::{Error, Result};
use crate::pending::PendingItem;
use std::path::Path;

pub(crate) const SCHEMA: &str = "git-ucg.notify/1";
pub(crate) const STATE_SCHEMA: &str = "git-ucg.notify-state/1";
/// Under `<git dir>/ucg/`.
pub(crate) const STATE_FILE: &str = "notify.json";

/// A change of the pending set: items that appeared, ids that went.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingChange<'a> {
    pub new: Vec<&'a PendingItem>,
    pub closed: Vec<String>,
}

/// What changed between the ids announced last and the items pending now (`None`: nothing).
pub fn change<'a>(announced: &[String], pending: &'a [PendingItem]) -> Option<PendingChange<'a>> {
    let before: std::collections::HashSet<&str> = announced.iter().map(String::as_str).collect();
    let now: std::collections::HashSet<&str> = pending.iter().map(|i| i.id.as_str()).collect();
    let new: Vec<&PendingItem> = pending
        .iter()
        .filter(|item| !before.contains(item.id.as_str()))
        .collect();
    let closed: Vec<String> = announced
        .iter()
        .filter(|id| !now.contains(id.as_str()))
        .cloned()
        .collect();
    (!new.is_empty() || !closed.is_empty()).then_some(PendingChange { new, closed })
}

/// The document the command reads on its standard input.
pub fn document(change: &PendingChange, pending: usize) -> serde_json::Value {
    serde_json::json!({
        "schema": SCHEMA,
        "new": change.new,
        "closed": change.closed,
        "pending": pending,
    })
}

/// Everyone who decides one of the new items, each once, in order.
pub(crate) fn deciders(change: &PendingChange) -> Vec<String> {
    crate::deciders::each_once(change.new.iter().flat_map(|item| &item.deciders))
}

/// The ids announced last, from the state file's bytes (`None`: never announced, or a file that
/// is not the state — then everything pending is new, which announces too much rather than too
/// little).
pub(crate) fn announced(bytes: Option<&[u8]>) -> Option<Vec<String>> {
    let value: serde_json::Value = serde_json::from_slice(bytes?).ok()?;
    if value.get("schema")?.as_str()? != STATE_SCHEMA {
        return None;
    }
    value
        .get("announced")?
        .as_array()?
        .iter()
        .map(|id| id.as_str().map(str::to_string))
        .collect()
}

/// The state file recording `pending` as announced.
pub(crate) fn state(pending: &[PendingItem]) -> String {
    let ids: Vec<&str> = pending.iter().map(|i| i.id.as_str()).collect();
    let state = serde_json::json!({"schema": STATE_SCHEMA, "announced": ids});
    let mut text = serde_json::to_string_pretty(&state).unwrap_or_default();
    text.push('\n');
    text
}

/// What [`announce`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Announced {
    /// Nothing changed since the last announcement.
    Nothing,
    /// The command ran and succeeded: the change is recorded as announced.
    Done,
    /// The command failed (why): nothing is recorded, so the change is announced again with the
    /// next one.
    Failed(String),
}

/// How the notification command is run: with the document on its standard input and the given
/// environment; `Err(why)` when it did not succeed.
pub(crate) type Runner<'a> =
    &'a dyn Fn(&[u8], &[(&str, String)]) -> std::result::Result<(), String>;

/// Under the lock of `<git dir>/ucg`: compares `pending` with what was announced last and, when
/// it changed, runs the command once through `run` with the change's document and
/// `GIT_UCG_DECIDERS` (the new items' deciders, comma-separated), `GIT_UCG_NEW`,
/// `GIT_UCG_CLOSED` and `GIT_UCG_PENDING` (counts). Only a success is recorded: a crash before it
/// announces the change again, never a change twice after it.
pub fn announce(git_dir: &Path, pending: &[PendingItem], run: Runner) -> Result<Announced> {
    let dir = ucg_store::ucg_dir(git_dir);
    ucg_store::create_dirs(&dir).map_err(|e| Error::io("create", &dir, e))?;
    let lock = ucg_store::lock_dir(&dir)?;
    let path = dir.join(STATE_FILE);
    let bytes = ucg_store::read_optional(&path).ok().flatten();
    let before = announced(bytes.as_deref()).unwrap_or_default();
    let Some(change) = change(&before, pending) else {
        return Ok(Announced::Nothing);
    };
    let input = format!("{}\n", document(&change, pending.len()));
    let env = [
        ("GIT_UCG_DECIDERS", deciders(&change).join(",")),
        ("GIT_UCG_NEW", change.new.len().to_string()),
        ("GIT_UCG_CLOSED", change.closed.len().to_string()),
        ("GIT_UCG_PENDING", pending.len().to_string()),
    ];
    match run(input.as_bytes(), &env) {
        Ok(()) => {
            // Our own record: anything else in its place (a link, a FIFO) is replaced, not
            // followed, and lends the record none of its permissions.
            if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
                ucg_store::remove_if_present(&path).map_err(|e| Error::io("replace", &path, e))?;
            }
            ucg_store::write_atomic(&lock, &path, state(pending).as_bytes())?;
            Ok(Announced::Done)
        }
        Err(why) => Ok(Announced::Failed(why)),
    }
}

/// [`announce`] for a loop that watches: a failed announcement is tried again only once the
/// pending set has changed again (not on every round while the command keeps failing).
#[derive(Default)]
pub struct Announcer {
    failed_on: Option<Vec<String>>,
}

impl Announcer {
    pub fn announce(&mut self, git_dir: &Path, pending: &[PendingItem], run: Runner) -> Result<()> {
        let ids: Vec<String> = pending.iter().map(|item| item.id.clone()).collect();
        if self.failed_on.as_ref() == Some(&ids) {
            return Ok(());
        }
        self.failed_on = match announce(git_dir, pending, run)? {
            Announced::Failed(_) => Some(ids),
            Announced::Nothing | Announced::Done => None,
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pending::Source;

    fn item(id: &str, deciders: &[&str]) -> PendingItem {
        PendingItem {
            decision_needed: "d".into(),
            deciders: deciders.iter().map(|d| d.to_string()).collect(),
            ..PendingItem::new(Source::Red, id.into(), "k".into(), "a".into())
        }
    }

    #[test]
    fn new_and_closed_since_the_last_announcement() {
        let now = [item("a", &["x@e"]), item("c", &["y@e", "X@e"])];
        let change = change(&["a".into(), "b".into()], &now).unwrap();
        assert_eq!(change.new, [&now[1]]);
        assert_eq!(change.closed, ["b"]);
        assert_eq!(deciders(&change), ["y@e", "X@e"]);
        assert!(super::change(&["a".into(), "c".into()], &now).is_none());
        let doc = document(&change, 2);
        assert_eq!(doc["schema"], SCHEMA);
        assert_eq!(doc["new"][0]["id"], "c");
        assert_eq!(doc["pending"], 2);
    }

    #[test]
    fn the_state_round_trips_and_anything_else_is_no_state() {
        let now = [item("a", &[]), item("b", &[])];
        let text = state(&now);
        assert_eq!(
            announced(Some(text.as_bytes())),
            Some(vec!["a".into(), "b".into()])
        );
        for bad in [
            &b"{"[..],
            b"[]",
            b"{\"schema\": \"other\", \"announced\": []}",
            b"\xff",
        ] {
            assert_eq!(announced(Some(bad)), None);
        }
        assert_eq!(announced(None), None);
    }

    proptest::proptest! {
        #[test]
        fn any_state_bytes_are_read_without_panic(bytes: Vec<u8>) {
            let _ = announced(Some(&bytes));
        }
    }
}
