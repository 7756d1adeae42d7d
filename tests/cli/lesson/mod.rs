//! `git ucg lesson`: DG-Anvil's lesson ledger (docs/formats/lesson.md) driven through the
//! real binary with a temporary HOME. One test per behaviour A1–A30 of B.10 (named after it),
//! where B.11 — or B.3/B.8/B.9, which describe the reference's hazards — records a defect of the
//! reference the test checks git-ucg's fixed behaviour and says so; then the acceptance:
//! golden Jaccard cases, the reset loop end to end, append-only and atomicity (SIGKILL, eight
//! concurrent writers, torn tails) and bad input.

mod atomicity;
mod bad_input;
mod behaviours;
mod differences;
mod jaccard;
mod reset_loop;
mod support;
