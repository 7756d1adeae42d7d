//! The Claude Code Stop hook entry in `<root>/.claude/settings.local.json`.

use crate::error::{cannot, Error, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use ucg_ultracode::resume::{AGENT_SETTINGS_FILE, BUDGET_HOOK_COMMAND};

fn settings(root: &Path) -> PathBuf {
    root.join(AGENT_SETTINGS_FILE)
}

fn read(path: &Path) -> Result<Value> {
    match ucg_store::read_if_present(path) {
        Ok(Some(bytes)) => serde_json::from_slice(&bytes).map_err(|e| {
            Error::new(format!(
                "{}: not JSON ({e}); not touching it",
                path.display()
            ))
            .hint("repair it by hand, then run the command again")
        }),
        Ok(None) => Ok(json!({})),
        Err(e) => Err(Error::new(format!("cannot read {}: {e}", path.display()))),
    }
}

fn ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str) == Some(BUDGET_HOOK_COMMAND)
}

pub(crate) fn installed(root: &Path) -> bool {
    read(&settings(root)).is_ok_and(|doc| {
        doc.pointer("/hooks/Stop")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|group| group.get("hooks")?.as_array())
            .flatten()
            .any(ours)
    })
}

fn write(path: &Path, doc: &Value) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    ucg_store::create_dirs(dir).map_err(cannot("create", dir))?;
    let mut text = serde_json::to_string_pretty(doc).map_err(cannot("encode", path))?;
    text.push('\n');
    let lock = ucg_store::lock_dir(dir)?;
    Ok(ucg_store::write_atomic(&lock, path, text.as_bytes())?)
}

pub(crate) fn install(root: &Path) -> Result<()> {
    let path = settings(root);
    if installed(root) {
        println!("agent: the Stop hook is already in {}", path.display());
        return Ok(());
    }
    let mut doc = read(&path)?;
    let refuse = |what: &str| Error::new(format!("{}: {what}; not touching it", path.display()));
    let Some(object) = doc.as_object_mut() else {
        return Err(refuse("not a JSON object"));
    };
    let hooks = object.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(refuse("`hooks` is not an object"));
    };
    let stop = hooks.entry("Stop").or_insert_with(|| json!([]));
    let Some(stop) = stop.as_array_mut() else {
        return Err(refuse("`hooks.Stop` is not a list"));
    };
    stop.push(json!({"hooks": [{"type": "command", "command": BUDGET_HOOK_COMMAND}]}));
    write(&path, &doc)?;
    println!(
        "agent: added the Stop hook ({BUDGET_HOOK_COMMAND}) to {}",
        path.display()
    );
    Ok(())
}

pub(crate) fn uninstall(root: &Path) -> Result<()> {
    let path = settings(root);
    if !installed(root) {
        return Ok(());
    }
    let mut doc = read(&path)?;
    if let Some(stop) = doc.pointer_mut("/hooks/Stop").and_then(Value::as_array_mut) {
        for group in stop.iter_mut() {
            if let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                hooks.retain(|h| !ours(h));
            }
        }
        // A group we emptied goes; groups that still hold another hook stay.
        stop.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|h| !h.is_empty())
        });
    }
    write(&path, &doc)?;
    println!("agent: removed the Stop hook from {}", path.display());
    Ok(())
}
