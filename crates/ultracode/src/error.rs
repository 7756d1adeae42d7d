//! What the run models refuse or fail on, as values: the command layer words each for a person
//! (the hints, the commands to run) and picks its exit.

use std::path::PathBuf;

use ucg_store::StoreError;

use crate::reds::RedError;

pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The RED registry or a scan refused, in the reference writer's words.
    #[error(transparent)]
    Red(#[from] RedError),
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start a thread: {0}")]
    Thread(#[source] std::io::Error),
    /// A worker thread panicked while doing what is named.
    #[error("internal error while {0}")]
    Internal(&'static str),
    /// An abbreviated id that more than one pending item starts with.
    #[error("{given:?} names several pending items: {}", matching.join(", "))]
    AmbiguousId {
        given: String,
        matching: Vec<String>,
    },
    #[error("the close of {id} has a blank answer; nothing was recorded")]
    BlankAnswer { id: String },
    /// Answered ids the run does not wait on (a few named, and how many more).
    #[error("not a pending decision: {named}")]
    NotPending { named: String },
    /// The answers file cannot be read or written over as it is.
    #[error("{}: {reason}; refusing to write the answers", path.display())]
    AnswersUnwritable { path: PathBuf, reason: String },
    /// A folder named as a run folder that holds no decision log (`log`, its file name).
    #[error("{} is not a run folder (no {log} in it)", dir.display())]
    NotARunFolder { dir: PathBuf, log: &'static str },
    /// A path `.gitattributes` cannot name (a control character in it).
    #[error("the artifact directory's path {path:?} holds a control character: .gitattributes cannot name it")]
    UnnamableInAttributes { path: String },
    #[error("several run folders belong to epic {epic}: {}", names.join(", "))]
    SeveralRunFolders { epic: String, names: Vec<String> },
    /// Git could not answer.
    #[error(transparent)]
    Git(#[from] ucg_git::Error),
    #[error("{branch} does not track the artifact directory {impl_dir}: there is nothing to answer on it")]
    BranchLacksArtifacts { branch: String, impl_dir: String },
    #[error("cannot copy {path} out of {branch}: {source}")]
    CopyOut {
        path: String,
        branch: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} on {branch} is not a regular file (a symlink or a submodule): answering would replace it")]
    NotRegularOnBranch { branch: String, path: String },
    #[error("{branch} is checked out in {} and its {path} has changes not committed: answering on the branch would bury them", work_tree.display())]
    DirtyCheckout {
        branch: String,
        work_tree: PathBuf,
        path: String,
    },
    #[error(
        "cannot tell which epic: no heartbeat, no .current-story, and HEAD is not on an epic branch"
    )]
    UnknownEpic,
    #[error("epic {id} does not exist: no branch {branch} and no stories of it in the artifacts")]
    NoSuchEpic {
        id: String,
        branch: String,
        /// The epics git and the artifacts know.
        known: Vec<String>,
    },
}

impl Error {
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
