//! The merge driver's set-up (`hooks install --merge-driver`, docs/product.md §5.4): `merge.ucg.*`
//! in the repository's own configuration, which names this binary, and one `merge=ucg` line per
//! merged file in the root's `.gitattributes`, which is committed and shared. Uninstalling takes
//! out exactly those: the two keys, and our lines, every other byte of `.gitattributes` kept (a
//! file left empty stays, empty: it may be tracked, and git-ucg does not delete what it cannot
//! tell it created).

use crate::context::Context;
use crate::error::{Error, Result};
use std::path::{Component, Path};
use ucg_ultracode::decisions::DECISIONS_FILE;
use ucg_ultracode::reds::REGISTRY_FILE;

const NAME_KEY: &str = "merge.ucg.name";
const DRIVER_KEY: &str = "merge.ucg.driver";
const NAME: &str = "git-ucg: the answers file and the RED registry, entry by entry";
/// The attribute our lines give.
const ATTRIBUTE: &str = "merge=ucg";
const ATTRIBUTES_FILE: &str = ".gitattributes";
/// The files the driver merges.
const FILES: [&str; 2] = [DECISIONS_FILE, REGISTRY_FILE];

/// What git runs: `binary`, quoted for sh, and the placeholders of a merge driver.
fn driver_command(binary: &Path) -> String {
    format!(
        "'{}' merge-file %O %A %B %P",
        super::sh_escape(&binary.to_string_lossy())
    )
}

/// The run folders' decision logs are appended to in every clone: git's built-in union merge
/// keeps both sides' sections instead of a conflict.
const LOG_ATTRIBUTE: &str = "merge=union";

/// The line that gives the run folders' decision logs the union merge.
fn log_line() -> String {
    format!(
        "{}/*/{} {LOG_ATTRIBUTE}",
        ucg_ultracode::runs::RUNS_ROOT,
        ucg_ultracode::decision_log::DECISION_LOG_FILE
    )
}

/// Our `.gitattributes` lines for the artifact directory `dir` (relative to the root, `/`
/// separators; empty for the root itself), then the decision logs' line.
fn attribute_lines(dir: &str) -> Result<Vec<String>> {
    let mut lines = FILES
        .iter()
        .map(|file| {
            let path = match dir {
                "" => format!("/{file}"),
                dir => format!("{dir}/{file}"),
            };
            Ok(format!("{} {ATTRIBUTE}", pattern(&path)?))
        })
        .collect::<Result<Vec<String>>>()?;
    lines.push(log_line());
    Ok(lines)
}

/// `path` as a `.gitattributes` pattern matching exactly it: glob characters escaped, and the
/// whole in git's double quotes when it holds a blank or a quote.
fn pattern(path: &str) -> Result<String> {
    if path.chars().any(char::is_control) {
        return Err(Error::new(format!(
            "the artifact directory's path {path:?} holds a control character: .gitattributes cannot name it"
        )));
    }
    let mut escaped = String::with_capacity(path.len() + 8);
    for (i, c) in path.chars().enumerate() {
        if matches!(c, '*' | '?' | '[' | '\\') || (i == 0 && matches!(c, '#' | '!')) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    if !escaped.contains(|c: char| c.is_whitespace() || c == '"') {
        return Ok(escaped);
    }
    Ok(format!(
        "\"{}\"",
        escaped.replace('\\', "\\\\").replace('"', "\\\"")
    ))
}

/// Whether a `.gitattributes` line is one of ours, for any artifact directory: a pattern naming
/// one of the merged files, then `merge=ucg`, nothing else.
fn is_ours(line: &[u8]) -> bool {
    let Ok(line) = std::str::from_utf8(line) else {
        return false;
    };
    if line.trim_end() == log_line() {
        return true;
    }
    let Some(pattern) = line
        .trim_end()
        .strip_suffix(ATTRIBUTE)
        .and_then(|p| p.strip_suffix(' '))
    else {
        return false;
    };
    // Quoted (a path with blanks), or bare: one pattern without blanks.
    let path = match pattern.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
        Some(quoted) => quoted,
        None if !pattern.contains(char::is_whitespace) => pattern,
        None => return false,
    };
    FILES.iter().any(|f| path.ends_with(&format!("/{f}")))
}

/// A line's text without its line ending.
fn line_text(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `text` with those of `lines` it lacks appended, one per line (after a newline ending its last
/// line, if it did not end in one); `None` when it has them all.
pub(crate) fn with_lines(text: &[u8], lines: &[String]) -> Option<Vec<u8>> {
    let present: Vec<&[u8]> = text.split(|b| *b == b'\n').map(line_text).collect();
    let missing: Vec<&String> = lines
        .iter()
        .filter(|l| !present.contains(&l.as_bytes()))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut out = text.to_vec();
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    for line in missing {
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    Some(out)
}

/// `text` without our lines (every other byte as it was), and the lines taken out.
pub(crate) fn without_ours(text: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut kept = Vec::with_capacity(text.len());
    let mut removed = Vec::new();
    for line in text.split_inclusive(|b| *b == b'\n') {
        if is_ours(line_text(line)) {
            removed.push(String::from_utf8_lossy(line_text(line)).into_owned());
        } else {
            kept.extend_from_slice(line);
        }
    }
    (kept, removed)
}

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
    ucg_store::read_if_present(&path)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))
}

fn write_attributes(root: &Path, bytes: &[u8]) -> Result<()> {
    let lock = ucg_store::lock_dir(root)?;
    // A symlinked .gitattributes is followed only within the repository.
    let target = ucg_store::write_target(root, ATTRIBUTES_FILE, Vec::new)?;
    ucg_store::write_atomic(&lock, &target, bytes)?;
    Ok(())
}

/// Sets the driver up: the configuration (rewritten every time: it names this binary), and the
/// lines `.gitattributes` lacks.
pub(crate) fn install(ctx: &Context, root: &Path) -> Result<()> {
    let lines = attribute_lines(&artifact_dir(ctx)?)?;
    let binary = std::env::current_exe()
        .map_err(|e| Error::new(format!("cannot tell where this git-ucg is: {e}")))?;
    let driver = driver_command(&binary);
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
    let driver = ctx
        .repo()
        .ok()
        .and_then(|repo| ucg_git::config_string(repo, DRIVER_KEY));
    let text = read_attributes(root).ok().flatten().unwrap_or_default();
    let present: Vec<&[u8]> = text.split(|b| *b == b'\n').map(line_text).collect();
    let attributes: Vec<Line> = artifact_dir(ctx)
        .and_then(|dir| attribute_lines(&dir))
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
    let files = FILES.join(", ");
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
            "merge driver ({files}): not set up (git ucg hooks install --merge-driver)"
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
        "merge driver ({files}): partly set up: {} (git ucg hooks install --merge-driver)",
        lacks.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours() -> Vec<String> {
        attribute_lines("_bmad-output/implementation-artifacts").unwrap()
    }

    #[test]
    fn the_lines_name_exactly_the_two_files_and_the_decision_logs() {
        assert_eq!(
            ours(),
            [
                "_bmad-output/implementation-artifacts/.decisions.json merge=ucg",
                "_bmad-output/implementation-artifacts/.preflight-reds.json merge=ucg",
                "_bmad-output/ultracode-goal/*/.decision-log.md merge=union"
            ]
        );
        assert_eq!(
            attribute_lines("").unwrap()[0],
            "/.decisions.json merge=ucg"
        );
        assert_eq!(
            attribute_lines("a b/[x]*").unwrap()[0],
            "\"a b/\\\\[x]\\\\*/.decisions.json\" merge=ucg"
        );
        assert_eq!(
            attribute_lines("#odd").unwrap()[1],
            "\\#odd/.preflight-reds.json merge=ucg"
        );
        assert!(attribute_lines("a\nb").is_err());
        for line in ours().iter().chain(&attribute_lines("a b/\"q\"").unwrap()) {
            assert!(is_ours(line.as_bytes()), "{line}");
        }
        assert!(!is_ours(b"x/.decisions.json merge=union"));
        assert!(!is_ours(b"*.json merge=ucg"));
        assert!(!is_ours(b"x/.decisions.json merge=ucg diff"));
    }

    #[test]
    fn lines_are_added_once_and_taken_out_byte_for_byte() {
        let lines = ours();
        let before = b"*.png binary\r\n# keep\n*.md text";
        let added = with_lines(before, &lines).unwrap();
        let expected = format!(
            "*.png binary\r\n# keep\n*.md text\n{}\n{}\n{}\n",
            lines[0], lines[1], lines[2]
        );
        assert_eq!(String::from_utf8_lossy(&added), expected);
        assert_eq!(with_lines(&added, &lines), None);
        let (back, removed) = without_ours(&added);
        assert_eq!(removed, lines);
        assert_eq!(back, b"*.png binary\r\n# keep\n*.md text\n");
        // One already there: only the others are added.
        let half = format!("{}\n", lines[1]);
        assert_eq!(
            with_lines(half.as_bytes(), &lines).unwrap(),
            format!("{}\n{}\n{}\n", lines[1], lines[0], lines[2]).into_bytes()
        );
        assert_eq!(
            with_lines(b"", &lines).unwrap(),
            format!("{}\n{}\n{}\n", lines[0], lines[1], lines[2]).into_bytes()
        );
        assert_eq!(without_ours(b"a\nb"), (b"a\nb".to_vec(), Vec::new()));
    }
}
