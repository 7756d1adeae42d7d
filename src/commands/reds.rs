//! `git ucg reds apply`: the RED registry writer, byte-compatible with the reference `red_ids.py`
//! (docs/formats/ucg.md §2.3–2.4). Every failure is one JSON line `{"error": …}` on stderr, exit 2, and
//! nothing written.

use crate::cli::RedsApplyArgs;
use crate::context::Context;
use crate::error::{cannot, Error, Result};
use std::path::Path;
use ucg_ultracode::registry;

pub(crate) fn run_apply(ctx: &Context, args: &RedsApplyArgs) -> Result<u8> {
    let document = apply_scan(ctx, args).map_err(Error::into_json_line)?;
    crate::output::print(document.as_bytes())?;
    Ok(0)
}

/// Computes the new registry, writes it (unless `--dry-run`), and returns the document.
fn apply_scan(ctx: &Context, args: &RedsApplyArgs) -> Result<String> {
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.dir.as_deref())?;
    let root = || ctx.try_project_root();
    // Read once: standard input cannot be read a second time.
    let scan_bytes = args.scan.as_deref().map(read_scan).transpose()?;
    let scan = scan_bytes.as_deref();
    if args.dry_run {
        let (document, _) = registry::compute(&root, &impl_dir, scan, None)?;
        return Ok(document);
    }
    if !impl_dir.is_dir() {
        // Validate before creating anything: a refused run leaves no directory behind.
        registry::compute(&root, &impl_dir, scan, None)?;
        ucg_store::create_dirs(&impl_dir)
            .map_err(|e| ucg_store::StoreError::io(&impl_dir, "create directory", e))?;
    }
    let lock = ucg_store::lock_dir(&impl_dir)?;
    Ok(registry::write_locked(&root, &impl_dir, scan, None, &lock)?)
}

fn read_scan(path: &Path) -> Result<Vec<u8>> {
    if path == Path::new("-") {
        crate::output::stdin_bytes()
            .map_err(|e| Error::new(format!("cannot read the scan from standard input: {e}")))
    } else {
        std::fs::read(path).map_err(cannot("read the scan", path))
    }
}
