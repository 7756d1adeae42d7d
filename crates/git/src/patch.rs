//! A git-compatible unified diff (`git diff` with renames), which `git apply` accepts: headers,
//! mode and rename lines, abbreviated index lines, hunks from gix's diff, and the
//! `\ No newline at end of file` marker. Lines are compared with their terminators, as git does,
//! so a lost final newline or a CRLF change is a change.

use super::{quote_path, FileChange, Status};
use crate::{Error, Result};
use gix::bstr::ByteSlice;
use gix::diff::blob::unified_diff::{ConsumeHunk, ContextSize, DiffLineKind, HunkHeader};
use gix::ObjectId;

/// Appends the patch of `changes` to `out`.
pub fn write_patch(
    repo: &gix::Repository,
    cache: &mut gix::diff::blob::Platform,
    changes: &[FileChange],
    quote_non_ascii: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    for change in changes {
        if change.status == Status::TypeChanged {
            // git shows a file that became a symlink (or back) as a deletion and an addition.
            // A type change keeps its path: both name the same file.
            let null = ObjectId::null(repo.object_hash());
            let deletion = change.clone().deletion(null);
            write_one(repo, cache, &deletion, quote_non_ascii, out)?;
            write_one(
                repo,
                cache,
                &change.clone().addition(null),
                quote_non_ascii,
                out,
            )?;
        } else {
            write_one(repo, cache, change, quote_non_ascii, out)?;
        }
    }
    Ok(())
}

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
    out.extend_from_slice(format!("diff --git {a} {b}\n").as_bytes());
    match &change.status {
        Status::Added => {
            out.extend_from_slice(format!("new file mode {:o}\n", change.new_mode).as_bytes())
        }
        Status::Deleted => {
            out.extend_from_slice(format!("deleted file mode {:o}\n", change.old_mode).as_bytes())
        }
        _ if change.old_mode != change.new_mode => out.extend_from_slice(
            format!(
                "old mode {:o}\nnew mode {:o}\n",
                change.old_mode, change.new_mode
            )
            .as_bytes(),
        ),
        _ => {}
    }
    if let Status::Renamed(score) = change.status {
        out.extend_from_slice(
            format!(
                "similarity index {score}%\nrename from {}\nrename to {}\n",
                q(&change.old_path),
                q(&change.path)
            )
            .as_bytes(),
        );
    }
    if change.old_id == change.new_id {
        return Ok(()); // a pure rename or mode change: nothing more to say
    }
    let abbrev = |id: &ObjectId| id.to_hex_with_len(7).to_string();
    let same_mode = change.old_mode == change.new_mode;
    let mode_suffix = if same_mode {
        format!(" {:o}", change.new_mode)
    } else {
        String::new()
    };
    out.extend_from_slice(
        format!(
            "index {}..{}{mode_suffix}\n",
            abbrev(&change.old_id),
            abbrev(&change.new_id)
        )
        .as_bytes(),
    );

    let prepared = super::prepare_diff(repo, cache, change)?;
    // git ends a `---`/`+++` name holding a space with a tab, so patch tools see where it ends.
    let tabbed = |name: &str| {
        if name.contains(' ') {
            format!("{name}\t")
        } else {
            name.to_string()
        }
    };
    let minus = if change.status == Status::Added {
        "/dev/null".to_string()
    } else {
        a.clone()
    };
    let plus = if change.status == Status::Deleted {
        "/dev/null".to_string()
    } else {
        b.clone()
    };
    match prepared.operation {
        Operation::InternalDiff { algorithm } => {
            out.extend_from_slice(
                format!("--- {}\n+++ {}\n", tabbed(&minus), tabbed(&plus)).as_bytes(),
            );
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
            out.extend_from_slice(format!("Binary files {minus} and {plus} differ\n").as_bytes());
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
        self.out.extend_from_slice(
            format!(
                "@@ -{} +{} @@{context}\n",
                side(header.before_hunk_start, header.before_hunk_len),
                side(header.after_hunk_start, header.after_hunk_len)
            )
            .as_bytes(),
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
