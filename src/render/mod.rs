//! How results look: git-style diffs and diff summaries, the status dashboard and the reference's
//! status markdown, the gate's decision for CI services. Presentation only; the domain computes, these lay it out.

pub mod ci;
pub mod diff;
pub mod diffstat;
pub mod fit;
pub mod status_human;
pub mod status_markdown;
pub mod visible;
