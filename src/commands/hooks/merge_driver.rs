//! The merge driver's set-up (`hooks install --merge-driver`, docs/product.md §5.4): `merge.ucg.*`
//! in the repository's own configuration, which names this binary, and one `merge=ucg` line per
//! merged file in the root's `.gitattributes`, which is committed and shared. Uninstalling takes
//! out exactly those: the two keys, and our lines, every other byte of `.gitattributes` kept (a
//! file left empty stays, empty: it may be tracked, and git-ucg does not delete what it cannot
//! tell it created).

use crate::context::Context;
use crate::error::{cannot, Error, Result};
use std::path::{Component, Path};
use ucg_ultracode::attributes::{
    lines_for, present_lines, with_lines, without_ours, ATTRIBUTES_FILE, MERGED_FILES,
};

const NAME_KEY: &str = "merge.ucg.name";
const DRIVER_KEY: &str = "merge.ucg.driver";
const NAME: &str = "git-ucg: the answers file and the RED registry, entry by entry";

/// The artifact directory relative to the root, as `.gitattributes` names paths.
fn artifact_dir(ctx: &Context) -> Result<String> {
    let inputs = ctx.gate_inputs(None)?;
    let root = ucg_store::lexical_normal(&inputs.project_root);
    let dir = ucg_store::lexical_normal(&inputs.impl_dir);
    let relative = dir.strip_prefix(&root).map_err(|_| {
        Error::new(format!(
            "the artifact directory {} is outside the repository {}: .gitattributes cannot name it",
            dir.display(),
            root.display()
        ))
    })?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| match c {
            Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect();
    parts.map(|p| p.join("/")).ok_or_else(|| {
        Error::new(format!(
            "the artifact directory {} is not a path .gitattributes can name (not UTF-8)",
            dir.display()
        ))
    })
}

fn read_attributes(root: &Path) -> Result<Option<Vec<u8>>> {
    let path = root.join(ATTRIBUTES_FILE);
    ucg_store::read_if_present(&path).map_err(cannot("read", &path))
}

fn write_attributes(root: &Path, bytes: &[u8]) -> Result<()> {
    let lock = ucg_store::lock_dir(root)?;
    // A symlinked .gitattributes is followed only within the repository.
    let target = ucg_store::write_target(root, ATTRIBUTES_FILE, Vec::new)?;
    Ok(ucg_store::write_atomic(&lock, &target, bytes)?)
}

/// Sets the driver up: the configuration (rewritten every time: it names this binary), and the
/// lines `.gitattributes` lacks.
pub(crate) fn install(ctx: &Context, root: &Path) -> Result<()> {
    let lines = lines_for(&artifact_dir(ctx)?)?;
    let binary = std::env::current_exe()
        .map_err(|e| Error::new(format!("cannot tell where this git-ucg is: {e}")))?;
    // What git runs: this binary, quoted for sh, and the placeholders of a merge driver.
    let binary = super::sh_escape(&binary.to_string_lossy());
    let driver = format!("'{binary}' merge-file %O %A %B %P");
    super::git_config(root, &["config", "--local", NAME_KEY, NAME])?;
    super::git_config(root, &["config", "--local", DRIVER_KEY, &driver])?;
    println!("merge driver: {DRIVER_KEY} = {driver}");
    let text = read_attributes(root)?.unwrap_or_default();
    match with_lines(&text, &lines) {
        Some(new) => {
            write_attributes(root, &new)?;
            for line in &lines {
                println!("merge driver: {ATTRIBUTES_FILE} has `{line}`");
            }
            println!("merge driver: commit {ATTRIBUTES_FILE}, and run `git ucg hooks install --merge-driver` once in every clone");
        }
        None => println!("up to date: {}", root.join(ATTRIBUTES_FILE).display()),
    }
    Ok(())
}

/// Takes the driver out: the two keys, and our lines of `.gitattributes`.
pub(crate) fn uninstall(root: &Path) -> Result<()> {
    let mut unset = Vec::new();
    for key in [NAME_KEY, DRIVER_KEY] {
        let removed = ucg_git::hooks::unset_local_config(root, key)
            .map_err(|e| Error::new(format!("cannot unset {key}: {e}")))?;
        if removed {
            unset.push(key);
        }
    }
    if !unset.is_empty() {
        println!("merge driver: unset {}", unset.join(", "));
    }
    let Some(text) = read_attributes(root)? else {
        return Ok(());
    };
    let (kept, removed) = without_ours(&text);
    if removed.is_empty() {
        return Ok(());
    }
    write_attributes(root, &kept)?;
    for line in removed {
        println!("merge driver: removed `{line}` from {ATTRIBUTES_FILE}");
    }
    Ok(())
}

/// Whether the driver is set up, for `hooks status`.
#[derive(Debug, serde::Serialize)]
pub(crate) struct State {
    /// The driver and our lines all there.
    pub configured: bool,
    /// `merge.ucg.driver`, as git reads it.
    pub driver: Option<String>,
    /// Our lines for the artifact directory, each with whether `.gitattributes` has it.
    pub attributes: Vec<Line>,
}

#[derive(Debug, serde::Serialize)]
pub(crate) struct Line {
    pub line: String,
    pub present: bool,
}

pub(crate) fn state(ctx: &Context, root: &Path) -> State {
    let driver = ctx.config_string(DRIVER_KEY);
    let text = read_attributes(root).ok().flatten().unwrap_or_default();
    let present = present_lines(&text);
    let attributes: Vec<Line> = artifact_dir(ctx)
        .and_then(|dir| Ok(lines_for(&dir)?))
        .unwrap_or_default()
        .into_iter()
        .map(|line| Line {
            present: present.contains(&line.as_bytes()),
            line,
        })
        .collect();
    State {
        configured: driver.is_some()
            && !attributes.is_empty()
            && attributes.iter().all(|l| l.present),
        driver,
        attributes,
    }
}

/// The state in one line for people.
pub(crate) fn describe(state: &State) -> String {
    let files = MERGED_FILES.join(", ");
    if state.configured {
        return format!("merge driver ({files}): set up");
    }
    let missing: Vec<String> = state
        .attributes
        .iter()
        .filter(|l| !l.present)
        .map(|l| format!("`{}`", l.line))
        .collect();
    if state.driver.is_none() && missing.len() == state.attributes.len() {
        return format!(
            "merge driver ({files}): not set up; `git ucg hooks install --merge-driver` sets it up"
        );
    }
    let mut lacks = Vec::new();
    if state.driver.is_none() {
        lacks.push(format!("{DRIVER_KEY} is unset"));
    }
    if !missing.is_empty() {
        lacks.push(format!("{ATTRIBUTES_FILE} lacks {}", missing.join(" and ")));
    }
    format!(
        "merge driver ({files}): partly set up: {}; `git ucg hooks install --merge-driver` completes it",
        lacks.join("; ")
    )
}
