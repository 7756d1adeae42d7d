//! `git ucg status`: what the run is doing and waiting on. For now the reference's markdown view
//! (`--format markdown`), byte-compatible with `status_render.py`; it writes nothing.

use crate::cli::{StatusArgs, StatusFormat};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::render::status_markdown::{self, StatusPaths};
use crate::store::ArtifactSource;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn run(ctx: &Context, args: &StatusArgs) -> Result<u8> {
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.as_deref())?;
    let runs_root = match &args.runs_root {
        Some(dir) => dir.clone(),
        None => ctx
            .try_project_root()
            .unwrap_or_else(|| PathBuf::from("."))
            .join(crate::ucg::runs::RUNS_ROOT),
    };
    let work_tree = ArtifactSource::WorkTree;
    let at_rev;
    let source = match &args.rev {
        None => &work_tree,
        Some(rev) => {
            let root = ctx.project_root()?;
            at_rev = ArtifactSource::at_rev(ctx.repo()?, rev, &root).map_err(Error::new)?;
            &at_rev
        }
    };
    // Under --rev, paths are looked up in the commit's tree, so they are made absolute to be
    // placed there; otherwise they stay as given (the reference prints them so).
    let place = |p: PathBuf| match &args.rev {
        Some(_) => std::path::absolute(&p).unwrap_or(p),
        None => p,
    };
    let (impl_dir, runs_root) = (place(impl_dir), place(runs_root));
    // Given the reference's flags, behave as the reference: no --run-dir, no log tail. Located
    // from the configuration, the current run is the run folder of the heartbeat's epic.
    let run_dir = match (&args.run_dir, &args.impl_artifacts) {
        (Some(dir), _) => Some(place(dir.clone())),
        (None, Some(_)) => None,
        (None, None) => current_run(source, &impl_dir, &runs_root),
    };
    let paths = StatusPaths {
        source,
        deferred_work: args
            .deferred_work
            .clone()
            .map(place)
            .unwrap_or_else(|| impl_dir.join("deferred-work.md")),
        impl_dir,
        run_dir,
        runs_root,
        hunk_viewer: on_path("hunk"),
    };
    let document = match args.format {
        StatusFormat::Markdown => status_markdown::render(&paths),
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(document.as_bytes())?;
    stdout.flush()?;
    Ok(0)
}

/// The run folder of the heartbeat's epic (newest stamp first), if there is one.
fn current_run(source: &ArtifactSource, impl_dir: &Path, runs_root: &Path) -> Option<PathBuf> {
    let beat = crate::ucg::heartbeat::parse(&source.read(&impl_dir.join("run-status.json"))?);
    let names = source.list(runs_root);
    crate::ucg::runs::candidates_for_epic(&names, beat.epic.as_deref()?)
        .into_iter()
        .map(|name| runs_root.join(name))
        .find(|dir| {
            dir.join(crate::ucg::decision_log::DECISION_LOG_FILE)
                .is_file()
        })
}

/// Whether an executable of that name is on PATH (the reference probes with `which`).
fn on_path(name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            let candidate: &Path = &dir.join(name);
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}
