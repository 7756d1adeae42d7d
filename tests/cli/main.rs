//! Integration tests: the real `git-ucg` binary in real temporary directories and git repositories,
//! with a hermetic environment (no user or system git configuration, fixed dates).

mod branch;
mod bypass;
mod common;

mod config;
mod crash;
mod demo;
mod diff;
mod discovery;
mod docs;
mod first_hour;
mod gate;
mod goal;
mod hardening;
mod hooks;
mod lesson;
mod managers;
mod merge;
mod notify;
mod pty;
mod reds;
mod resolve;
mod routing;
mod sdlc;
mod server;
mod status;
mod status_views;
mod team_flow;
mod widths;
