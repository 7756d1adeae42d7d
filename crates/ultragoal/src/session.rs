//! One session's files in the state directory (docs/formats/ultragoal.md §1.3, §3.1, §3.5): the
//! directory made on first use (as the reference's `getOmtDir` makes it, warning once outside a
//! repository), reading, the self-healing seed, the lock and the no-create write.

use super::js;
use super::js::{JsObject, JsValue};
use super::state::{self, State};
use super::Refusal;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use ucg_store::{
    self,
    mkdir_lock::{self as lock, StateLock},
};

#[derive(Debug, Clone)]
pub struct Session {
    pub dir: PathBuf,
    pub sid: String,
    /// The warning the reference prints when it derives the directory outside a repository.
    warning: Option<String>,
    used: Cell<bool>,
}

/// A state file that does not read as the reference reads it, in the reference's words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CorruptState(pub String);

impl Session {
    pub fn new(dir: PathBuf, sid: String) -> Self {
        Session {
            dir,
            sid,
            warning: None,
            used: Cell::new(false),
        }
    }

    /// A session whose directory, when first used, warns (the derived directory outside git).
    pub fn with_warning(dir: PathBuf, sid: String, warning: Option<String>) -> Self {
        Session {
            warning,
            ..Session::new(dir, sid)
        }
    }

    /// The directory, made if missing — what the reference does each time it names a file.
    pub fn use_dir(&self) -> Result<&Path, Refusal> {
        self.used.set(true);
        ucg_store::create_dirs(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        Ok(&self.dir)
    }

    /// The warning to print, once, if the directory was used.
    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref().filter(|_| self.used.get())
    }

    pub fn state_file(&self) -> PathBuf {
        super::dir::session_file(&self.dir, super::dir::STATE_PREFIX, &self.sid)
    }

    pub fn verdict_file(&self) -> PathBuf {
        super::dir::session_file(&self.dir, super::dir::VERDICT_PREFIX, &self.sid)
    }

    pub fn codereview_file(&self) -> PathBuf {
        super::dir::session_file(&self.dir, super::dir::CODEREVIEW_PREFIX, &self.sid)
    }

    pub(crate) fn adoption_log(&self) -> PathBuf {
        self.dir.join("adoption.log")
    }

    /// The state file's text as `readFileOrNull` gives it: `None` when it cannot be read.
    pub fn text(&self) -> Option<String> {
        read_text(&self.state_file())
    }

    /// The parsed state, `None` when absent. A state file that is not a JSON object (or not
    /// readable: a directory, say) is the error, naming the file.
    pub fn read(&self) -> Result<Option<State>, CorruptState> {
        let path = self.state_file();
        match ucg_store::read_if_present(&path) {
            Ok(None) => Ok(None),
            Ok(Some(bytes)) => state::parse(&bytes).map(Some).ok_or_else(|| {
                CorruptState(format!(
                    "{} is not a JSON object; repair it, or remove it to start over",
                    path.display()
                ))
            }),
            Err(e) => Err(CorruptState(format!("cannot read {}: {e}", path.display()))),
        }
    }

    /// `readPrior`: the parsed state, `{}` when absent, empty or unparseable — any JSON value else
    /// (an array, a number, `null`), as the reference holds it. A value too deep to be written
    /// back (where the reference's `JSON.stringify` overflows) is the error.
    pub(crate) fn prior(&self) -> Result<JsValue, Refusal> {
        prior_of(self.text().as_deref())
    }

    /// Whether `adoption.log` records this session's state as adopted away.
    fn was_adopted_away(&self) -> bool {
        let Some(log) = read_text(&self.adoption_log()) else {
            return false;
        };
        log.split('\n').any(|line| {
            let parts = js::words(line);
            parts.len() >= 5 && parts[1..4] == ["ultragoal", self.sid.as_str(), "->"]
        })
    }

    /// `ensureSeed` (§3.1): when the state file is absent and was never adopted away, create the
    /// pristine skeleton — exclusively, so a racing creator's file is never replaced.
    pub(crate) fn ensure_seed(&self) -> Result<(), Refusal> {
        self.use_dir()?;
        let path = self.state_file();
        if path.exists() || self.was_adopted_away() {
            return Ok(());
        }
        let seed = state::to_bytes(&state::seed(&state::now_stamp()));
        let (step, e) = match ucg_store::create_new_synced(&path, &seed) {
            Ok(_) => return Ok(()),
            Err(ucg_store::CreateNewError::Create(e)) => ("create", e),
            Err(ucg_store::CreateNewError::Write(e)) => ("write", e),
        };
        Err(format!("cannot {step} {}: {e}", path.display()).into())
    }

    pub(crate) fn absent_message(&self) -> String {
        format!(
            "ultragoal-state: state file absent for session \"{}\". Possible causes: state adopted by \
another session, or seed missing. Re-invoke the ultragoal skill to re-seed.",
            self.sid
        )
    }

    pub(crate) fn lock(&self) -> Result<StateLock, Refusal> {
        self.use_dir()?;
        lock::acquire(&self.state_file()).map_err(Refusal::Thrown)
    }

    /// The no-create write (§3.5): the file must still exist; the new bytes go to
    /// `<state>.tmp.<pid>`, are synced and renamed over it — never truncated in place, never
    /// resurrecting a file adopted away meanwhile.
    pub(crate) fn write(&self, _lock: &StateLock, state: &State) -> Result<(), Refusal> {
        self.write_unlocked(&state::to_bytes(state))
    }

    /// The same write without the lock (the reference's post-adoption restamp takes none).
    pub(crate) fn write_unlocked(&self, bytes: &[u8]) -> Result<(), Refusal> {
        ucg_store::replace_existing(&self.state_file(), bytes)
            .map_err(|e| Refusal::Thrown(e.unwrap_or_else(|| self.absent_message())))
    }
}

/// [`Session::prior`] of a file's text: `readPrior` (`{}` when absent, empty or unparseable).
pub fn prior_of(text: Option<&str>) -> Result<JsValue, Refusal> {
    // The empty text does not parse either.
    match text.map(js::parse) {
        Some(Ok(value)) => Ok(value),
        Some(Err(js::ParseError::TooDeep { engine, .. })) => Err(Refusal::Crash(format!(
            "the state file holds a value nested deeper than {} levels (JSON.stringify \
overflows: RangeError)",
            engine.max_depth()
        ))),
        _ => Ok(JsValue::Object(JsObject::new())),
    }
}

/// `readFileOrNull(path)`: the text (invalid UTF-8 as U+FFFD), `None` when it cannot be read.
pub fn read_text(path: &Path) -> Option<String> {
    ucg_store::read_file(path)
        .ok()
        .map(|bytes| js::decode(&bytes).into_owned())
}
