//! The ultragoal state machine (docs/formats/ultragoal.md), interoperable with its TypeScript state CLI
//! and Stop hook on the same files: where state lives, the phase machine and its gates, the story
//! layer, the review lane, liveness and adoption, the Stop hook's counter.

pub mod args;
pub mod base;
pub mod dir;
pub mod hook;
pub mod js;
pub mod liveness;
pub mod ops;
pub mod review;
pub mod session;
pub mod state;
pub mod stories;
pub mod view;

/// What a state CLI subcommand says: its stdout, its stderr notices, and whether it failed (exit 1
/// with the output still printed, as `claim-review-dispatch` does).
#[derive(Debug, Default)]
pub struct Reply {
    pub stdout: String,
    pub notices: Vec<String>,
    pub failed: bool,
}

/// Why a subcommand refused, printed as the reference prints it: a thrown error carries the
/// `ultragoal-state: Error: ` prefix, a direct refusal is its own line. Both exit 1. A crash is
/// where the reference dies on a JavaScript TypeError; git-ucg says what it met instead.
#[derive(Debug, PartialEq)]
pub enum Refusal {
    Thrown(String),
    Direct(String),
    Crash(String),
}

impl From<String> for Refusal {
    fn from(message: String) -> Self {
        Refusal::Thrown(message)
    }
}

impl From<&str> for Refusal {
    fn from(message: &str) -> Self {
        Refusal::Thrown(message.to_string())
    }
}

impl Refusal {
    pub fn direct(message: impl Into<String>) -> Self {
        Refusal::Direct(message.into())
    }

    /// What was refused, in the reference's words, without the line's prefix.
    pub fn message(&self) -> &str {
        match self {
            Refusal::Thrown(message) | Refusal::Direct(message) | Refusal::Crash(message) => {
                message
            }
        }
    }

    /// The line for stderr.
    pub fn line(&self) -> String {
        match self {
            Refusal::Thrown(message) => format!("ultragoal-state: Error: {message}"),
            Refusal::Direct(message) => message.clone(),
            Refusal::Crash(message) => format!(
                "ultragoal-state: refused — {message}; the state or its input holds a value the \
ultragoal state CLI dies on (a TypeError or RangeError)"
            ),
        }
    }
}

/// The phases of the state machine (§1.4), as their tokens.
pub(crate) const PHASES: [&str; 5] = [
    "planning",
    "pursuing",
    "budget_limited",
    "blocked",
    "complete",
];

/// `status` (§2.9): the phase token of a state file's bytes, or `absent`.
pub fn status_token(bytes: Option<&[u8]>) -> String {
    let text = bytes.map(js::decode);
    match ops::raw_of(text.as_deref()) {
        Some(state) => state::phase(&state).to_string(),
        None => "absent".into(),
    }
}

pub use ops::is_pristine;
