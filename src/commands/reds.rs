//! `git ucg reds apply`: the RED registry writer, byte-compatible with the reference `red_ids.py`
//! (formats/ucg.md §2.3–2.4). Every failure is one JSON line `{"error": …}` on stderr, exit 2, and
//! nothing written.

use crate::cli::RedsApplyArgs;
use crate::context::{pathlib_display, Context};
use crate::error::{Error, Result};
use crate::store;
use crate::ucg::decisions::{closed_ids, DECISIONS_FILE};
use crate::ucg::reds::{apply, parse_scan, RedError, Registry, REGISTRY_FILE};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

pub fn run_apply(ctx: &Context, args: &RedsApplyArgs) -> Result<u8> {
    let document = apply_scan(ctx, args).map_err(Error::into_json_line)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(document.as_bytes())?;
    stdout.flush()?;
    Ok(0)
}

/// Computes the new registry, writes it (unless `--dry-run`), and returns the document.
fn apply_scan(ctx: &Context, args: &RedsApplyArgs) -> Result<String> {
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.as_deref())?;
    let scan = match &args.scan {
        Some(path) => Some(parse_scan(&read_scan(path)?)?),
        None => None,
    };
    let compute = |scan: Option<Vec<crate::pyjson::Value>>| -> Result<(Registry, PathBuf)> {
        let display = pathlib_display(&impl_dir.join(REGISTRY_FILE));
        let bounds = || ctx.try_project_root().into_iter().collect();
        let target = store::write_target(&impl_dir, REGISTRY_FILE, bounds)?;
        let bytes = store::read_optional(&target).map_err(|e| match e {
            store::StoreError::Io { source, .. } => Error::from(RedError::RegistryUnreadable {
                path: display.clone(),
                reason: source.to_string(),
            }),
            other => other.into(),
        })?;
        // A new scan replaces the stored reds: they are checked, not kept.
        let keep_reds = scan.is_none();
        let Registry { reds, resolved } =
            Registry::parse_keeping(bytes.as_deref(), &display, keep_reds)?;
        // The answers file is read fail-open: if it cannot be read, it closes nothing.
        let decisions = store::read_optional(&impl_dir.join(DECISIONS_FILE))
            .ok()
            .flatten();
        let closed = closed_ids(decisions.as_deref());
        Ok((apply(scan.unwrap_or(reds), &resolved, &closed)?, target))
    };

    if args.dry_run {
        return Ok(compute(scan)?.0.to_pretty_json());
    }
    if !impl_dir.is_dir() {
        // Validate before creating anything: a refused run leaves no directory behind.
        compute(scan.clone())?;
        std::fs::create_dir_all(&impl_dir)
            .map_err(|e| store::StoreError::io(&impl_dir, "create directory", e))?;
    }
    let lock = store::lock_dir(&impl_dir)?;
    // Computed under the lock: no other writer can change the files between read and write.
    let (registry, target) = compute(scan)?;
    let document = registry.to_pretty_json();
    store::write_atomic(&lock, &target, document.as_bytes())?;
    Ok(document)
}

fn read_scan(path: &Path) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::new(format!("cannot read the scan from standard input: {e}")))?;
    } else {
        bytes = std::fs::read(path)
            .map_err(|e| Error::new(format!("cannot read the scan {}: {e}", path.display())))?;
    }
    Ok(bytes)
}
