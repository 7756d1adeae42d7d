//! Where a project's agentic-sdlc runs live (docs/formats/sdlc.md A.2): the runs directory, the
//! canonical work items beside it, and the run directories in it.

use crate::Error;
use std::path::{Path, PathBuf};

/// Where the runs and the canonical work items live.
pub struct Layout {
    pub runs: PathBuf,
    pub work_items: PathBuf,
    pub project_root: PathBuf,
}

/// The layout from `--runs-dir` (else `docs/superpowers/runs` under the project root). With the
/// flag, a missing project root is not an error: the runs directory's great-grandparent stands in.
pub fn locate<E: From<std::io::Error>>(
    runs_dir: Option<&Path>,
    project_root: Result<PathBuf, E>,
) -> Result<Layout, E> {
    let (runs, project_root) = match runs_dir {
        Some(dir) => {
            let runs = std::path::absolute(dir)?;
            let root = project_root
                .ok()
                .or_else(|| runs.ancestors().nth(3).map(Path::to_path_buf))
                .unwrap_or_else(|| runs.clone());
            (runs, root)
        }
        None => {
            let root = project_root?;
            (root.join("docs/superpowers/runs"), root)
        }
    };
    let work_items = runs.parent().unwrap_or(&runs).join("work-items");
    Ok(Layout {
        runs,
        work_items,
        project_root,
    })
}

/// The run directories, newest first: by name (run ids start with `YYYYMMDD-HHMM`), or by
/// `meta.json`'s modification time.
pub fn run_dirs(runs: &Path, by_mtime: bool) -> Result<Vec<(String, PathBuf)>, Error> {
    let entries = match std::fs::read_dir(runs) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(Error::Read {
                path: runs.to_path_buf(),
                source,
            })
        }
    };
    let mut dirs: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    dirs.sort_by(|a, b| b.0.cmp(&a.0));
    if by_mtime {
        let mtime = |dir: &Path| {
            std::fs::metadata(dir.join(crate::run::META_FILE))
                .and_then(|m| m.modified())
                .ok()
        };
        dirs.sort_by_cached_key(|(_, dir)| std::cmp::Reverse(mtime(dir)));
    }
    Ok(dirs)
}

/// `latest` (the newest by name) or a run directory by its name.
pub fn select(layout: &Layout, run: &str) -> Result<(String, PathBuf), Error> {
    if run == "latest" {
        return run_dirs(&layout.runs, false)?
            .into_iter()
            .next()
            .ok_or_else(|| Error::NoRuns(layout.runs.clone()));
    }
    let dir = layout.runs.join(run);
    if run.is_empty() || run.contains('/') || run == "." || run == ".." || !dir.is_dir() {
        return Err(Error::NoSuchRun {
            run: run.to_string(),
            runs: layout.runs.clone(),
        });
    }
    Ok((run.to_string(), dir))
}
