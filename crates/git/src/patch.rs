//! A git-compatible unified diff (`git diff` with renames), which `git apply` accepts: headers,
//! mode and rename lines, abbreviated index lines, hunks from gix's diff, and the
//! `\ No newline at end of file` marker. Lines are compared with their terminators, as git does,
//! so a lost final newline or a CRLF change is a change.

use super::{quote_path, FileChange, Status};
use crate::{Error, Result};
use gix::bstr::ByteSlice;
use gix::diff::blob::unified_diff::{ConsumeHunk, ContextSize, DiffLineKind, HunkHeader};
use gix::ObjectId;
use std::io::Write;

/// Appends the patch of `changes` to `out`.
pub fn write_patch(
    repo: &gix::Repository,
    cache: &mut gix::diff::blob::Platform,
    changes: &[FileChange],
    quote_non_ascii: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    let null = ObjectId::null(repo.object_hash());
    for change in changes {
        if change.status == Status::TypeChanged {
            // git shows a file that became a symlink (or back) as a deletion and an addition.
            // A type change keeps its path: both name the same file.
            for side in [change.clone().deletion(null), change.clone().addition(null)] {
                write_one(repo, cache, &side, quote_non_ascii, out)?;
            }
        } else {
            write_one(repo, cache, change, quote_non_ascii, out)?;
        }
    }
    Ok(())
}

// Writing to a Vec<u8> cannot fail: the `let _ =` below drop an always-Ok result.
fn write_one(
    repo: &gix::Repository,
    cache: &mut gix::diff::blob::Platform,
    change: &FileChange,
    quote_non_ascii: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    use gix::diff::blob::platform::prepare_diff::Operation;
    let q = |p: &str| quote_path(p, quote_non_ascii);
    let a = q(&format!("a/{}", change.old_path));
    let b = q(&format!("b/{}", change.path));
    let _ = writeln!(out, "diff --git {a} {b}");
    let (old_mode, new_mode) = (change.old_mode, change.new_mode);
    let _ = match &change.status {
        Status::Added => writeln!(out, "new file mode {new_mode:o}"),
        Status::Deleted => writeln!(out, "deleted file mode {old_mode:o}"),
        _ if old_mode != new_mode => writeln!(out, "old mode {old_mode:o}\nnew mode {new_mode:o}"),
        _ => Ok(()),
    };
    if let Status::Renamed(score) = change.status {
        let (from, to) = (q(&change.old_path), q(&change.path));
        let _ = writeln!(
            out,
            "similarity index {score}%\nrename from {from}\nrename to {to}"
        );
    }
    if change.old_id == change.new_id {
        return Ok(()); // a pure rename or mode change: nothing more to say
    }
    let (old_id, new_id) = (
        change.old_id.to_hex_with_len(7),
        change.new_id.to_hex_with_len(7),
    );
    let _ = write!(out, "index {old_id}..{new_id}");
    let _ = match old_mode == new_mode {
        true => writeln!(out, " {new_mode:o}"),
        false => writeln!(out),
    };

    let prepared = super::prepare_diff(repo, cache, change)?;
    let (minus, plus) = match change.status {
        Status::Added => ("/dev/null", b.as_str()),
        Status::Deleted => (a.as_str(), "/dev/null"),
        _ => (a.as_str(), b.as_str()),
    };
    match prepared.operation {
        Operation::InternalDiff { algorithm } => {
            // git ends a `---`/`+++` name holding a space with a tab, so patch tools see where
            // it ends.
            let tab = |name: &str| if name.contains(' ') { "\t" } else { "" };
            let _ = writeln!(out, "--- {minus}{}\n+++ {plus}{}", tab(minus), tab(plus));
            let input = gix::diff::blob::InternedInput::new(
                prepared.old.intern_source(),
                prepared.new.intern_source(),
            );
            let diff = gix::diff::blob::diff_with_slider_heuristics(algorithm, &input);
            let old_lines: Vec<&[u8]> = prepared
                .old
                .data
                .as_slice()
                .map(|data| data.lines_with_terminator().collect())
                .unwrap_or_default();
            let hunks = Hunks { out, old_lines };
            gix::diff::blob::UnifiedDiff::new(&diff, &input, hunks, ContextSize::symmetrical(3))
                .consume()
                .map_err(|e| Error::failed(format!("write the diff of {}", change.path), e))?;
        }
        Operation::ExternalCommand { .. } | Operation::SourceOrDestinationIsBinary => {
            let _ = writeln!(out, "Binary files {minus} and {plus} differ");
        }
    }
    Ok(())
}

/// Writes hunks as git does: `@@ -a,b +c,d @@` (`,1` left out; an empty side starts at the line
/// before), lines with their own terminators, and the no-newline marker after a last line that
/// has none.
struct Hunks<'a> {
    out: &'a mut Vec<u8>,
    /// The old file's lines, for the function context git prints after the hunk header.
    old_lines: Vec<&'a [u8]>,
}

impl Hunks<'_> {
    /// git's default function context: the nearest line before the hunk that starts with a letter,
    /// `_` or `$`, trailing whitespace removed, at most 80 bytes.
    fn function_context(&self, hunk_start: u32) -> Option<String> {
        let before = (hunk_start as usize)
            .saturating_sub(1)
            .min(self.old_lines.len());
        let line = self.old_lines[..before].iter().rev().find(|line| {
            line.first()
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_' || *c == b'$')
        })?;
        let line = &line[..line.len().min(80)];
        let end = line
            .iter()
            .rposition(|c| !c.is_ascii_whitespace())
            .map_or(0, |i| i + 1);
        Some(String::from_utf8_lossy(&line[..end]).into_owned())
    }
}

impl ConsumeHunk for Hunks<'_> {
    type Out = ();

    fn consume_hunk(
        &mut self,
        header: HunkHeader,
        lines: &[(DiffLineKind, &[u8])],
    ) -> std::io::Result<()> {
        let side = |start: u32, len: u32| match len {
            0 => format!("{},0", start.saturating_sub(1)),
            1 => start.to_string(),
            n => format!("{start},{n}"),
        };
        let context = self
            .function_context(header.before_hunk_start)
            .map(|f| format!(" {f}"))
            .unwrap_or_default();
        let _ = writeln!(
            self.out,
            "@@ -{} +{} @@{context}",
            side(header.before_hunk_start, header.before_hunk_len),
            side(header.after_hunk_start, header.after_hunk_len)
        );
        for (kind, line) in lines {
            self.out.push(kind.to_prefix() as u8);
            self.out.extend_from_slice(line);
            if !line.ends_with(b"\n") {
                self.out
                    .extend_from_slice(b"\n\\ No newline at end of file\n");
            }
        }
        Ok(())
    }

    fn finish(self) -> Self::Out {}
}
