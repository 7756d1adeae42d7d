//! `--stat`, `--numstat` and `--name-status` output laid out as git lays it out.

use ucg_git::{quote_path, FileChange, LineCounts, Status};

/// How a changed path is shown in a diffstat: quoted as git quotes it, a rename as
/// `dir/{old => new}`.
fn stat_name(change: &FileChange, quote_non_ascii: bool) -> String {
    if !matches!(change.status, Status::Renamed(_)) {
        return quote_path(&change.path, quote_non_ascii);
    }
    let (old, new) = (change.old_path.as_bytes(), change.path.as_bytes());
    // Common leading directories and common trailing components, as git's pprint_rename keeps them.
    let mut prefix = 0;
    for i in 0..old.len().min(new.len()) {
        if old[i] != new[i] {
            break;
        }
        if old[i] == b'/' {
            prefix = i + 1;
        }
    }
    let mut suffix = 0;
    let max_suffix = old.len().min(new.len()) - prefix;
    for i in 1..=max_suffix {
        if old[old.len() - i] != new[new.len() - i] {
            break;
        }
        if old[old.len() - i] == b'/' {
            suffix = i;
        }
    }
    let mid_old = &change.old_path[prefix..old.len() - suffix];
    let mid_new = &change.path[prefix..new.len() - suffix];
    if prefix == 0 && suffix == 0 {
        return format!("{mid_old} => {mid_new}");
    }
    format!(
        "{}{{{mid_old} => {mid_new}}}{}",
        &change.path[..prefix],
        &change.path[new.len() - suffix..]
    )
}

/// `git diff --stat` for a terminal of `width` columns (git uses 80 when not on a terminal).
/// `binary_sizes` gives, for each binary file, its size before and after (`Bin 7 -> 4 bytes`).
pub(crate) fn stat(
    changes: &[FileChange],
    counts: &[LineCounts],
    binary_sizes: &[Option<(u64, u64)>],
    width: usize,
    quote_non_ascii: bool,
) -> String {
    let names: Vec<String> = changes
        .iter()
        .map(|c| stat_name(c, quote_non_ascii))
        .collect();
    let max_len = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let totals: Vec<u64> = counts
        .iter()
        .map(|c| c.map_or(0, |(a, d)| u64::from(a) + u64::from(d)))
        .collect();
    let max_change = totals.iter().copied().max().unwrap_or(0);
    let any_binary = counts.iter().any(Option::is_none);
    let number_width = max_change
        .to_string()
        .len()
        .max(if any_binary { 3 } else { 0 });
    let mut name_width = max_len;
    let mut graph_width = max_change as usize;
    if name_width + number_width + 6 + graph_width > width {
        let budget = (width * 3 / 8).saturating_sub(number_width + 6);
        if graph_width > budget {
            graph_width = budget.max(6);
        }
        let room = width.saturating_sub(number_width + 6 + graph_width);
        if name_width > room {
            name_width = room;
        } else {
            graph_width = width.saturating_sub(number_width + 6 + name_width);
        }
    }
    let scale = |n: u64| -> usize {
        if max_change as usize <= graph_width || n == 0 {
            n as usize
        } else {
            1 + (n as usize * (graph_width.saturating_sub(1))) / max_change as usize
        }
    };
    let mut out = String::new();
    let (mut insertions, mut deletions) = (0u64, 0u64);
    for (((name, count), total), sizes) in names.iter().zip(counts).zip(&totals).zip(binary_sizes) {
        let shown = truncate_name(name, name_width);
        let pad = name_width.saturating_sub(shown.chars().count());
        match count {
            Some((added, deleted)) => {
                insertions += u64::from(*added);
                deletions += u64::from(*deleted);
                let plus = scale(u64::from(*added));
                let minus = scale(u64::from(*deleted));
                let graph = format!("{}{}", "+".repeat(plus), "-".repeat(minus));
                let line = format!(" {shown}{:pad$} | {total:>number_width$} {graph}", "");
                out.push_str(line.trim_end());
                out.push('\n');
            }
            None => {
                let sizes = sizes
                    .map(|(old, new)| format!(" {old} -> {new} bytes"))
                    .unwrap_or_default();
                out.push_str(&format!(
                    " {shown}{:pad$} | {:>number_width$}{sizes}\n",
                    "", "Bin"
                ));
            }
        }
    }
    out.push_str(&summary(changes.len(), insertions, deletions));
    out
}

fn truncate_name(name: &str, width: usize) -> String {
    let len = name.chars().count();
    if len <= width {
        return name.to_string();
    }
    // git keeps the end of the path and marks the cut with "...".
    let keep = width.saturating_sub(3);
    let tail: String = name.chars().skip(len - keep).collect();
    format!("...{tail}")
}

/// git's closing line: ` 2 files changed, 3 insertions(+), 1 deletion(-)`.
pub(crate) fn summary(files: usize, insertions: u64, deletions: u64) -> String {
    let plural = |n: u64, one: &'static str, many| if n == 1 { one } else { many };
    let mut line = format!(" {files} {} changed", plural(files as u64, "file", "files"));
    if insertions > 0 || deletions == 0 {
        line.push_str(&format!(
            ", {insertions} {}(+)",
            plural(insertions, "insertion", "insertions")
        ));
    }
    if deletions > 0 || insertions == 0 {
        line.push_str(&format!(
            ", {deletions} {}(-)",
            plural(deletions, "deletion", "deletions")
        ));
    }
    line.push('\n');
    line
}

/// `git diff --numstat`: added, deleted (`-` for binary), path (`old => new` for a rename).
pub(crate) fn numstat(
    changes: &[FileChange],
    counts: &[LineCounts],
    quote_non_ascii: bool,
) -> String {
    let mut out = String::new();
    for (change, count) in changes.iter().zip(counts) {
        let (a, d) = count.map_or(("-".to_string(), "-".to_string()), |(a, d)| {
            (a.to_string(), d.to_string())
        });
        let name = stat_name(change, quote_non_ascii);
        out.push_str(&format!("{a}\t{d}\t{name}\n"));
    }
    out
}

/// `git diff --name-status`.
pub(crate) fn name_status(changes: &[FileChange], quote_non_ascii: bool) -> String {
    let q = |p: &str| quote_path(p, quote_non_ascii);
    let mut out = String::new();
    for change in changes {
        match change.status {
            Status::Renamed(_) => out.push_str(&format!(
                "{}\t{}\t{}\n",
                change.status.code(),
                q(&change.old_path),
                q(&change.path)
            )),
            _ => out.push_str(&format!("{}\t{}\n", change.status.code(), q(&change.path))),
        }
    }
    out
}

/// git's default diff colours, sequence for sequence: bold meta lines (a `---`/`+++` name's
/// trailing tab after the reset), cyan hunk headers with the function context after a reset, red
/// removals in one run, green additions with the sign as its own run (git splits it off for its
/// whitespace checks), and a reset closing every context line and the no-newline marker.
pub(crate) fn colorize_patch(patch: &[u8]) -> Vec<u8> {
    const RESET: &[u8] = b"\x1b[m";
    let mut out = Vec::with_capacity(patch.len() + patch.len() / 4);
    let mut in_header = false;
    for line in patch.split_inclusive(|b| *b == b'\n') {
        let (body, newline) = match line.strip_suffix(b"\n") {
            Some(body) => (body, &b"\n"[..]),
            None => (line, &b""[..]),
        };
        let paint = |out: &mut Vec<u8>, color: &[u8], text: &[u8]| {
            out.extend_from_slice(color);
            out.extend_from_slice(text);
            out.extend_from_slice(RESET);
        };
        if body.starts_with(b"diff --git ") {
            in_header = true;
        }
        if in_header && body.starts_with(b"Binary files ") {
            in_header = false;
            out.extend_from_slice(body);
        } else if in_header && !body.starts_with(b"@@") {
            let (text, tab) = match body.strip_suffix(b"\t") {
                Some(text) if body.starts_with(b"--- ") || body.starts_with(b"+++ ") => {
                    (text, &b"\t"[..])
                }
                _ => (body, &b""[..]),
            };
            paint(&mut out, b"\x1b[1m", text);
            out.extend_from_slice(tab);
            if body.starts_with(b"+++ ") {
                in_header = false;
            }
        } else if body.starts_with(b"@@") {
            in_header = false;
            let end = body[2..]
                .windows(2)
                .position(|w| w == b"@@")
                .map_or(body.len(), |i| i + 4);
            paint(&mut out, b"\x1b[36m", &body[..end]);
            if let Some(context) = body.get(end + 1..).filter(|c| !c.is_empty()) {
                out.extend_from_slice(b" ");
                out.extend_from_slice(RESET);
                out.extend_from_slice(context);
                out.extend_from_slice(RESET);
            }
        } else if body.first() == Some(&b'+') {
            paint(&mut out, b"\x1b[32m", &body[..1]);
            if body.len() > 1 {
                paint(&mut out, b"\x1b[32m", &body[1..]);
            }
        } else if body.first() == Some(&b'-') {
            paint(&mut out, b"\x1b[31m", body);
        } else {
            out.extend_from_slice(body);
            out.extend_from_slice(RESET);
        }
        out.extend_from_slice(newline);
    }
    out
}

/// The `+` and `-` of a diffstat's graphs in green and red.
pub(crate) fn colorize_stat(stat: &str) -> String {
    stat.lines()
        .map(|line| match line.rfind(" | ") {
            Some(bar) if line.ends_with(" bytes") => {
                // `Bin 7 -> 4 bytes`: the old size red, the new one green.
                let (head, sizes) = line.split_at(bar + 3);
                let colored = sizes
                    .strip_prefix("Bin ")
                    .and_then(|rest| rest.strip_suffix(" bytes"))
                    .and_then(|rest| rest.split_once(" -> "))
                    .map(|(old, new)| {
                        format!("Bin \x1b[31m{old}\x1b[m -> \x1b[32m{new}\x1b[m bytes")
                    })
                    .unwrap_or_else(|| sizes.to_string());
                format!("{head}{colored}\n")
            }
            Some(bar) => {
                let (head, graph) = line.split_at(bar + 3);
                let graph = graph
                    .replacen('+', "\x1b[32m+", 1)
                    .replace("+-", "+\x1b[m\x1b[31m-")
                    .replacen(" -", " \x1b[31m-", 1);
                let graph = if graph.contains('\x1b') {
                    format!("{graph}\x1b[m")
                } else {
                    graph
                };
                format!("{head}{graph}\n")
            }
            _ => format!("{line}\n"),
        })
        .collect()
}
