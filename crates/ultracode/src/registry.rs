//! The RED registry writer (docs/formats/ucg.md §2.3): the new `.preflight-reds.json` from a
//! scan or from the stored reds, re-applied against the answers on record, written atomically
//! under the artifact directory's lock. Byte-compatible with the reference `red_ids.py`.
//!
//! `project_root` (asked only when the registry is a symlink) bounds where it may point.

use crate::decisions::{closing_ids_read, ClosingIds, IdRefs, DECISIONS_FILE};
use crate::error::{Error, Result};
use crate::reds::{
    apply_document, parse_scan, validate_reds, Document, RedError, RedFields, RedsAs, Registry,
    Tombstone, REGISTRY_FILE,
};
use std::path::{Path, PathBuf};
use ucg_store::pathlib_display;

/// [`compute`] and the write, under the artifact directory's lock, which the caller holds: no
/// other writer can change the files between read and write. `resolve` closes REDs through
/// exactly this, without a scan (`--from-sidecar`: the stored reds re-applied against the answers
/// on record).
///
/// `closed` is the set of closed ids when the caller has just written `.decisions.json` and holds
/// it (the file is then not read again).
pub fn write_locked(
    project_root: &dyn Fn() -> Option<PathBuf>,
    impl_dir: &Path,
    scan: Option<&[u8]>,
    closed: Option<&IdRefs>,
    lock: &ucg_store::DirLock,
) -> Result<String> {
    let (document, target) = compute(project_root, impl_dir, scan, closed)?;
    ucg_store::write_atomic(lock, &target, document.as_bytes())?;
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
    known_closed: Option<&IdRefs>,
) -> Result<(String, PathBuf)> {
    if let Some(closed) = known_closed {
        let scan = scan.map(checked_scan).transpose()?;
        let stored = StoredRegistry::read(project_root, impl_dir)?;
        let (reds, resolved) = stored.inputs(scan)?;
        let document = apply_document(reds, resolved, closed)?;
        return Ok((document, stored.target));
    }
    // The answers file (often the largest input) is scanned on a second thread meanwhile, a
    // window at a time, for the ids it closes.
    let decisions_path = impl_dir.join(DECISIONS_FILE);
    std::thread::scope(|scope| {
        let closing = std::thread::Builder::new()
            // Read fail-open: an answers file that cannot be read closes nothing.
            .spawn_scoped(scope, || match ucg_store::open_capped(&decisions_path) {
                Ok(Some(file)) => {
                    let size = file.size();
                    closing_ids_read(file, ANSWERS_WINDOW, size)
                }
                Ok(None) | Err(_) => ClosingIds::default(),
            })
            .map_err(Error::Thread)?;
        // The scan is checked before the registry is read, as the reference does.
        let scan = scan.map(checked_scan).transpose()?;
        let stored = StoredRegistry::read(project_root, impl_dir)?;
        let (reds, resolved) = stored.inputs(scan)?;
        // All that does not need the answers, while they are read.
        let prepared = Document::prepare(reds, resolved)?;
        let closing = closing
            .join()
            .map_err(|_| Error::Internal("reading the answers file"))?;
        let document = prepared.finish_closing(closing.iter())?;
        std::mem::forget(closing);
        std::mem::forget(stored.bytes);
        Ok((document, stored.target))
    })
}

/// How much of the answers file is read at a time: a window the caches keep, refilled a few
/// dozen times for a large file.
const ANSWERS_WINDOW: usize = 256 << 10;

/// The scan's reds, checked.
fn checked_scan(bytes: &[u8]) -> Result<Vec<RedFields>> {
    let reds = parse_scan(bytes)?;
    validate_reds(&reds)?;
    Ok(reds)
}

/// The registry as stored (fail-closed), with the path a write must replace.
struct StoredRegistry {
    bytes: Option<Vec<u8>>,
    display: String,
    target: PathBuf,
}

impl StoredRegistry {
    fn read(project_root: &dyn Fn() -> Option<PathBuf>, impl_dir: &Path) -> Result<Self> {
        let display = pathlib_display(&impl_dir.join(REGISTRY_FILE));
        let bounds = || project_root().into_iter().collect();
        let target = ucg_store::write_target(impl_dir, REGISTRY_FILE, bounds)?;
        let bytes = ucg_store::read_optional(&target).map_err(|e| match e {
            ucg_store::StoreError::Io { source, .. } => Error::from(RedError::RegistryUnreadable {
                path: display.clone(),
                reason: source.to_string(),
            }),
            other => other.into(),
        })?;
        Ok(StoredRegistry {
            bytes,
            display,
            target,
        })
    }

    /// The reds to apply — the scan's, else the stored ones, checked — and the stored
    /// tombstones. With a scan the stored reds are only checked: the scan replaces them.
    fn inputs(&self, scan: Option<Vec<RedFields>>) -> Result<(Vec<RedFields>, Vec<Tombstone<'_>>)> {
        let reds_as = match scan {
            Some(_) => RedsAs::Checked,
            None => RedsAs::Stored,
        };
        let (stored, resolved) =
            Registry::parse_for_apply(self.bytes.as_deref(), &self.display, reds_as)?;
        if scan.is_none() {
            validate_reds(&stored)?;
        }
        Ok((scan.unwrap_or(stored), resolved))
    }
}
