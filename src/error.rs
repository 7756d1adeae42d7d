//! The command-line error: what the user sees and the exit code it maps to (docs/product.md §3).
//!
//! Exit codes: 0 success (and a closed stdout: BrokenPipe ends quietly), 1 a negative answer the
//! caller asked for (returned as `Ok(1)` by the command, never as an error), 2 everything that
//! failed or was refused.

use ucg_store::{pyjson, StoreError};
use ucg_ultracode::config::ConfigError;
use ucg_ultracode::reds::RedError;

pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug)]
pub(crate) enum Error {
    /// `error: <message>` and `hint: …` lines on stderr, then, with `usage`, the command's usage
    /// line (as an argument parser reports a missing argument); exit 2.
    Failure {
        message: String,
        hints: Vec<String>,
        usage: bool,
    },
    /// One compact JSON line `{"error": "<message>"}` on stderr, as the reference writers print; exit 2.
    JsonLine(String),
    /// The reader of our output went away: exit 0 without a word.
    BrokenPipe,
}

/// For `map_err` on an operation on a file: `cannot {verb} {path}: {e}`.
pub(crate) fn cannot<'a, E: std::fmt::Display>(
    verb: &'a str,
    path: &'a std::path::Path,
) -> impl FnOnce(E) -> Error + 'a {
    move |e| Error::new(format!("cannot {verb} {}: {e}", path.display()))
}

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Error::Failure {
            message: message.into(),
            hints: Vec::new(),
            usage: false,
        }
    }

    /// Asks for the command's usage line after the hints: the invocation lacked what it needs.
    pub(crate) fn with_usage(mut self) -> Self {
        if let Error::Failure { usage, .. } = &mut self {
            *usage = true;
        }
        self
    }

    /// Whether the command's usage line belongs after the message.
    pub(crate) fn wants_usage(&self) -> bool {
        matches!(self, Error::Failure { usage: true, .. })
    }

    /// Adds a line telling the user the way out.
    pub(crate) fn hint(mut self, hint: impl Into<String>) -> Self {
        if let Error::Failure { hints, .. } = &mut self {
            hints.push(hint.into());
        }
        self
    }

    /// The same failure, reported as a reference-style JSON line.
    pub(crate) fn into_json_line(self) -> Self {
        match self {
            Error::Failure { message, .. } => Error::JsonLine(message),
            other => other,
        }
    }

    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            Error::BrokenPipe => 0,
            Error::Failure { .. } | Error::JsonLine(_) => 2,
        }
    }

    /// The text for stderr (empty for a broken pipe).
    pub(crate) fn render(&self) -> String {
        match self {
            Error::BrokenPipe => String::new(),
            Error::JsonLine(message) => {
                let mut doc = pyjson::Object::default();
                doc.insert("error".into(), pyjson::Value::Str(message.clone()));
                let doc = pyjson::Value::Object(Box::new(doc));
                format!("{}\n", pyjson::dumps_compact_ascii(&doc))
            }
            Error::Failure { message, hints, .. } => {
                let mut out = format!("error: {message}\n");
                for hint in hints {
                    out.push_str(&format!("hint: {hint}\n"));
                }
                out
            }
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Error::BrokenPipe
        } else {
            Error::new(e.to_string())
        }
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match &e {
            StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe => {
                Error::BrokenPipe
            }
            StoreError::Locked { .. } => Error::new(e.to_string())
                .hint("wait for the other git-ucg to finish, then run this again"),
            StoreError::SymlinkOutside { .. } | StoreError::DanglingSymlink { .. } => Error::new(e.to_string())
                .hint("replace the symlink with a regular file, or point it inside the artifact directory"),
            StoreError::DirectoryOutside { .. } => Error::new(e.to_string()).hint(
                "move the directory into the project in the link's place (git-ucg writes only inside the project); nothing was written",
            ),
            StoreError::BadLockTimeout { .. } => Error::new(e.to_string())
                .hint("unset it (10 seconds), or set it to a number of seconds such as 30"),
            _ => Error::new(e.to_string()),
        }
    }
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        let error = Error::new(e.to_string());
        match e.hint() {
            Some(h) => error.hint(h),
            None => error,
        }
    }
}

impl From<ucg_git::Error> for Error {
    fn from(e: ucg_git::Error) -> Self {
        Error::new(e.to_string())
    }
}

impl From<RedError> for Error {
    fn from(e: RedError) -> Self {
        Error::JsonLine(e.to_string())
    }
}

/// The run models' refusals, each with the way out a person needs.
impl From<ucg_ultracode::error::Error> for Error {
    fn from(e: ucg_ultracode::error::Error) -> Self {
        use ucg_ultracode::error::Error as Run;
        let error = Error::new(e.to_string());
        match e {
            Run::Store(e) => e.into(),
            Run::Red(e) => e.into(),
            Run::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe => {
                Error::BrokenPipe
            }
            Run::AmbiguousId { .. } => {
                error.hint("give more of the id (`git ucg pending` lists them)")
            }
            Run::BlankAnswer { .. } => error.hint(
                "a close records the decision made: --close ID --answer TEXT (or defer it: --defer ID)",
            ),
            Run::NotPending { .. } => {
                error.hint("`git ucg pending` lists the ids the run waits on; nothing was written")
            }
            Run::AnswersUnwritable { path, .. } => {
                let stamp = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ");
                error.hint(format!(
                    "repair it by hand, or move it aside (mv {0} {0}.corrupt-{stamp}): moving it aside brings \
back every RED its closes suppressed, to be answered again",
                    path.display()
                ))
            }
            Run::NotARunFolder { .. } => error.hint("`git ucg runs` lists the run folders"),
            Run::SeveralRunFolders { .. } => {
                error.hint("pick the one whose decision log gets this pass with --run NAME")
            }
            Run::UnknownEpic => error.hint("name it: git ucg epic --epic <id>"),
            Run::BranchLacksArtifacts { branch, impl_dir } => error.hint(format!(
                "track it on {branch} (in a checkout of it): git add -f {impl_dir} && git commit -m \"Track the run's artifacts\""
            )),
            Run::NotRegularOnBranch { .. } => {
                error.hint("answer in a checkout of the branch: git ucg resolve")
            }
            Run::DirtyCheckout { work_tree, .. } => error
                .hint(format!(
                    "commit or stash them there first (git -C {} status)",
                    work_tree.display()
                ))
                .hint("or answer in that work tree: git ucg resolve"),
            Run::NoSuchEpic { known, .. } => {
                let known = match known.is_empty() {
                    true => "none".to_string(),
                    false => known.join(", "),
                };
                error.hint(format!("the epics git and the artifacts know: {known}"))
            }
            Run::Io { .. }
            | Run::Thread(_)
            | Run::Internal(_)
            | Run::UnnamableInAttributes { .. }
            | Run::Git(_)
            | Run::CopyOut { .. } => {
                error
            }
        }
    }
}

impl From<ucg_sdlc::Error> for Error {
    fn from(e: ucg_sdlc::Error) -> Self {
        let error = Error::new(e.to_string());
        match e {
            ucg_sdlc::Error::NoSuchRun { .. } => error.hint("`git ucg sdlc list` shows the runs"),
            _ => error,
        }
    }
}

impl From<ucg_ultragoal::session::CorruptState> for Error {
    fn from(e: ucg_ultragoal::session::CorruptState) -> Self {
        Error::new(e.0)
    }
}
