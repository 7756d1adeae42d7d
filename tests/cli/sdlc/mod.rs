//! `git ucg sdlc`: agentic-sdlc heavy-pipeline runs under `docs/superpowers/runs/`
//! (docs/formats/sdlc.md). One test per checkable behaviour S1–S27 of A.9, then the
//! issue's acceptance items: append-only ledgers, bad input, `--by-mtime`, the `--json` schemas
//! and the demo. Runs are built here by the `Run` builder; timestamps that the stale-running rule
//! reads are relative to now.

mod acceptance;
mod behaviours;
mod support;
