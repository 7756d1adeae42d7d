//! Why git could not answer, typed, so that a caller can tell a revision that names nothing from
//! a repository that cannot be read; each worded as a person reads it.

/// An error of the git layer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// No repository could be opened where one was looked for (the wording says why).
    #[error("{0}")]
    NoRepository(String),
    /// A revision or commit id names no commit (the wording says why).
    #[error("{0}")]
    BadRevision(String),
    /// There is no such branch.
    #[error("there is no branch {0}")]
    NoBranch(String),
    /// An object or a file cannot be read, or is not what it should be (the wording says which).
    #[error("{0}")]
    Unreadable(String),
    /// A path of a commit's tree is not a regular file (it is the named kind of entry).
    #[error("{0} in the commit, not a regular file")]
    NotAFile(&'static str),
    /// Nobody is configured to write a commit as (`author` or `committer`).
    #[error("no {0} identity is configured (git config user.name / user.email)")]
    NoIdentity(&'static str),
    /// A blob is larger than the cap on one artifact.
    #[error("larger than {0} bytes, the limit on one artifact (git config ucg.maxArtifactBytes)")]
    TooLarge(u64),
    /// Reading or writing the repository failed: what was being done, and why.
    #[error("cannot {doing}: {reason}")]
    Failed { doing: String, reason: String },
}

impl Error {
    /// An object that cannot be read, for `reason`.
    pub(crate) fn unreadable(reason: impl std::fmt::Display) -> Error {
        Error::Unreadable(reason.to_string())
    }

    /// `doing` failed for `reason`.
    pub(crate) fn failed(doing: impl Into<String>, reason: impl std::fmt::Display) -> Error {
        Error::Failed {
            doing: doing.into(),
            reason: reason.to_string(),
        }
    }
}

/// The git layer's results.
pub type Result<T> = std::result::Result<T, Error>;
