//! One session's files in the state directory (docs/formats/ultragoal.md §1.3, §3.1, §3.5): reading,
//! the self-healing seed, and the locked read-modify-write every writer goes through.

use super::state::{self, State};
use crate::store::{
    self,
    mkdir_lock::{self as lock, StateLock},
};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Session {
    pub dir: PathBuf,
    pub sid: String,
}

/// What reading a state file found.
pub enum Read {
    Absent,
    Parsed(State),
    /// Present but not a JSON object (or not readable): the reason, naming the file.
    Corrupt(String),
}

impl Session {
    pub fn new(dir: PathBuf, sid: String) -> Self {
        Session { dir, sid }
    }

    pub fn state_file(&self) -> PathBuf {
        super::dir::state_file(&self.dir, &self.sid)
    }

    pub fn verdict_file(&self) -> PathBuf {
        self.dir
            .join(format!("ultragoal-verdict-{}.json", self.sid))
    }

    pub fn codereview_file(&self) -> PathBuf {
        self.dir
            .join(format!("ultragoal-codereview-{}.json", self.sid))
    }

    pub fn adoption_log(&self) -> PathBuf {
        self.dir.join("adoption.log")
    }

    /// The state file's bytes, `None` when absent (a directory or unreadable file is an error).
    pub fn bytes(&self) -> Result<Option<Vec<u8>>, String> {
        read_optional(&self.state_file())
    }

    pub fn read(&self) -> Read {
        match self.bytes() {
            Ok(None) => Read::Absent,
            Ok(Some(bytes)) => match state::parse(&bytes) {
                Some(state) => Read::Parsed(state),
                None => Read::Corrupt(format!(
                    "{} is not a JSON object; repair it, or remove it to start over",
                    self.state_file().display()
                )),
            },
            Err(message) => Read::Corrupt(message),
        }
    }

    /// Whether `adoption.log` records this session's state as adopted away.
    fn was_adopted_away(&self) -> bool {
        let Ok(log) = std::fs::read(self.adoption_log()) else {
            return false;
        };
        String::from_utf8_lossy(&log).lines().any(|line| {
            let parts: Vec<&str> = line.split_whitespace().collect();
            parts.get(1..4) == Some(&["ultragoal", self.sid.as_str(), "->"][..])
        })
    }

    /// `ensureSeed` (§3.1): when the state file is absent and was never adopted away, create the
    /// pristine skeleton — exclusively, so a racing creator's file is never replaced.
    pub fn ensure_seed(&self) -> Result<(), String> {
        let path = self.state_file();
        if path.symlink_metadata().is_ok() || self.was_adopted_away() {
            return Ok(());
        }
        store::create_dirs(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let seed = state::to_bytes(&state::seed(&state::now_stamp()));
        match store::create_new_synced(&path, &seed) {
            Ok(_) => Ok(()),
            Err(store::CreateNewError::Create(e)) => {
                Err(format!("cannot create {}: {e}", path.display()))
            }
            Err(store::CreateNewError::Write(e)) => {
                Err(format!("cannot write {}: {e}", path.display()))
            }
        }
    }

    pub fn absent_message(&self) -> String {
        format!(
            "ultragoal-state: state file absent for session \"{}\". Possible causes: state adopted by \
another session, or seed missing. Re-invoke the ultragoal skill to re-seed.",
            self.sid
        )
    }

    /// Takes the lock (seeding first when allowed) and reads the state under it: `None` when the
    /// file is absent. A corrupt state file is an error: it is never overwritten.
    pub fn locked(&self, seed: bool) -> Result<(StateLock, Option<State>), String> {
        if seed {
            store::create_dirs(&self.dir)
                .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        }
        let lock = self.lock()?;
        // Seeded under the lock, so an adoption (which holds it) is never raced by a re-seed.
        if seed {
            self.ensure_seed()?;
        }
        match self.read() {
            Read::Parsed(state) => Ok((lock, Some(state))),
            Read::Absent => Ok((lock, None)),
            Read::Corrupt(message) => Err(message),
        }
    }

    /// The locked read-modify-write of every writer: seed if allowed, lock, read, let `change`
    /// decide (an `Err` refuses and leaves the file as it was), then commit.
    pub fn update<T>(
        &self,
        seed: bool,
        change: impl FnOnce(&mut State) -> Result<T, String>,
    ) -> Result<T, String> {
        let (lock, state) = self.locked(seed)?;
        let mut state = state.ok_or_else(|| self.absent_message())?;
        let result = change(&mut state)?;
        self.commit(&lock, state)?;
        Ok(result)
    }

    /// Writes a changed state: normalized, both heartbeats stamped (a genuine write).
    pub fn commit(&self, lock: &StateLock, state: State) -> Result<(), String> {
        self.write(lock, &state::normalized(state, &state::now_stamp()))
    }

    pub fn lock(&self) -> Result<StateLock, String> {
        lock::acquire(&self.state_file())
    }

    /// The no-create write (§3.5): the file must still exist; the new bytes go to
    /// `<state>.tmp.<pid>`, are synced and renamed over it — never truncated in place, never
    /// resurrecting a file adopted away meanwhile.
    pub fn write(&self, _lock: &StateLock, state: &State) -> Result<(), String> {
        store::replace_existing(&self.state_file(), &state::to_bytes(state))
            .map_err(|e| e.unwrap_or_else(|| self.absent_message()))
    }
}

/// Reads a file that may be absent; a directory or an unreadable file is an error naming it.
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, String> {
    crate::store::read_if_present(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
