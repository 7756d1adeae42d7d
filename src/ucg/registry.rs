//! The RED registry writer (docs/formats/ucg.md §2.3): the new `.preflight-reds.json` from a
//! scan or from the stored reds, re-applied against the answers on record, written atomically
//! under the artifact directory's lock. Byte-compatible with the reference `red_ids.py`.
//!
//! `project_root` (asked only when the registry is a symlink) bounds where it may point.

use crate::error::{Error, Result};
use crate::pyjson::Value;
use crate::store::{self, pathlib_display};
use crate::ucg::decisions::{closing_ids, IdSet, DECISIONS_FILE};
use crate::ucg::reds::{
    apply_document, parse_scan_fields, red_fields, validate_red_fields, RedError, RedFields,
    RedsAs, Registry, REGISTRY_FILE,
};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// `--from-sidecar` under the artifact directory's lock, which the caller holds: the stored reds
/// re-applied against the answers on record. `resolve` closes REDs through exactly this.
///
/// `closed` is the set of closed ids when the caller has just written `.decisions.json` and holds
/// it (the file is then not read again).
pub fn from_sidecar_locked(
    project_root: &dyn Fn() -> Option<PathBuf>,
    impl_dir: &Path,
    lock: &store::DirLock,
    closed: IdSet,
) -> Result<String> {
    let (document, target) = compute(project_root, impl_dir, None, Some(closed))?;
    store::write_atomic(lock, &target, document.as_bytes())?;
    Ok(document)
}

/// Computed under the lock: no other writer can change the files between read and write.
pub fn write_locked(
    project_root: &dyn Fn() -> Option<PathBuf>,
    impl_dir: &Path,
    scan: Option<&[u8]>,
    lock: &store::DirLock,
) -> Result<String> {
    let (document, target) = compute(project_root, impl_dir, scan, None)?;
    store::write_atomic(lock, &target, document.as_bytes())?;
    Ok(document)
}

/// The new registry's document (from `scan`, else from the stored reds) and the path it replaces.
///
/// Callers end the process soon after: freeing hundreds of thousands of strings one by one would
/// cost more than everything else done with them, so the big values are forgotten, not dropped.
pub fn compute(
    project_root: &dyn Fn() -> Option<PathBuf>,
    impl_dir: &Path,
    scan: Option<&[u8]>,
    known_closed: Option<IdSet>,
) -> Result<(String, PathBuf)> {
    if let Some(closed) = known_closed {
        let (reds, resolved, target) = read_inputs(project_root, impl_dir, scan)?;
        let document = apply_document(reds, resolved, &closed)?;
        std::mem::forget(closed);
        return Ok((document, target));
    }
    // The answers file (often the largest input) is scanned on a second thread meanwhile; the
    // closed ids are borrowed from its bytes.
    let decisions_path = impl_dir.join(DECISIONS_FILE);
    let answers = std::sync::OnceLock::new();
    let document = std::thread::scope(|scope| {
        let closed = std::thread::Builder::new()
            .spawn_scoped(scope, || {
                // Read fail-open: an answers file that cannot be read closes nothing.
                let bytes =
                    answers.get_or_init(|| store::read_optional(&decisions_path).ok().flatten());
                closing_ids(bytes.as_deref())
                    .into_iter()
                    .collect::<HashSet<_, foldhash::fast::RandomState>>()
            })
            .map_err(|e| Error::new(format!("cannot start a thread: {e}")))?;
        let (reds, resolved, target) = read_inputs(project_root, impl_dir, scan)?;
        let closed = closed
            .join()
            .map_err(|_| Error::new("internal error while reading the answers file"))?;
        let document = apply_document(reds, resolved, &closed)?;
        std::mem::forget(closed);
        Ok::<_, Error>((document, target))
    });
    std::mem::forget(answers);
    document
}

/// The reds to apply — the scan's, else the stored ones — checked, the stored tombstones, and
/// the path a write must replace. The scan is checked before the registry is read, as the
/// reference does.
fn read_inputs(
    project_root: &dyn Fn() -> Option<PathBuf>,
    impl_dir: &Path,
    scan: Option<&[u8]>,
) -> Result<(Vec<RedFields>, Vec<Value>, PathBuf)> {
    let scan = match scan {
        Some(bytes) => {
            let reds = parse_scan_fields(bytes)?;
            validate_red_fields(&reds)?;
            Some(reds)
        }
        None => None,
    };
    let (existing, target) = read_registry(project_root, impl_dir, scan.is_some())?;
    let reds = match scan {
        Some(reds) => {
            std::mem::forget(existing.reds);
            reds
        }
        None => {
            let stored: Vec<RedFields> = existing.reds.into_iter().map(red_fields).collect();
            validate_red_fields(&stored)?;
            stored
        }
    };
    Ok((reds, existing.resolved, target))
}

/// Reads the registry (fail-closed) and returns it with the path a write must replace. With a new
/// scan the stored reds are only checked: the scan replaces them.
fn read_registry(
    project_root: &dyn Fn() -> Option<PathBuf>,
    impl_dir: &Path,
    rescan: bool,
) -> Result<(Registry, PathBuf)> {
    let display = pathlib_display(&impl_dir.join(REGISTRY_FILE));
    let bounds = || project_root().into_iter().collect();
    let target = store::write_target(impl_dir, REGISTRY_FILE, bounds)?;
    let bytes = store::read_optional(&target).map_err(|e| match e {
        store::StoreError::Io { source, .. } => Error::from(RedError::RegistryUnreadable {
            path: display.clone(),
            reason: source.to_string(),
        }),
        other => other.into(),
    })?;
    let reds_as = if rescan {
        RedsAs::Checked
    } else {
        RedsAs::ApplyInput
    };
    let registry = Registry::parse_as(bytes.as_deref(), &display, reds_as)?;
    Ok((registry, target))
}
