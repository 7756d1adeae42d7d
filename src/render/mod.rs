//! How results look: git-style diff summaries and patches' colours, the status dashboard and the
//! reference's status markdown, the gate's refusal and its decision for CI services. Presentation only: these take
//! values and return text; the domain computes, the commands read, run and print.

pub mod bypass;
pub mod ci;
pub mod diffstat;
pub mod fit;
pub mod items;
pub mod refusal;
pub mod restart;
pub mod status_human;
pub mod status_markdown;
pub mod visible;
