//! git's similarity index for a rename (`R087`): an estimate, not a line diff. Both files are cut
//! into spans that end at a newline or after 64 bytes; each span is hashed; the bytes of spans the
//! destination shares with the source count as copied; the score is copied bytes over the larger
//! file's size. The numbers have to be git's, so the recipe is git's (diffcore's "spanhash"
//! estimate), written here from its description.

use std::collections::HashMap;

const HASH_BASE: u32 = 107_927;
const MAX_SCORE: u64 = 60_000;

/// Bytes per span hash.
fn span_bytes(buf: &[u8]) -> HashMap<u32, u64> {
    // git treats a file with a NUL in its first 8000 bytes as binary, and for text ignores the CR
    // of a CRLF pair.
    let is_text = !buf[..buf.len().min(8000)].contains(&0);
    let mut spans: HashMap<u32, u64> = HashMap::new();
    let (mut n, mut acc1, mut acc2) = (0u64, 0u32, 0u32);
    for (i, &c) in buf.iter().enumerate() {
        if is_text && c == b'\r' && buf.get(i + 1) == Some(&b'\n') {
            continue;
        }
        let previous = acc1;
        acc1 = (acc1 << 7) ^ (acc2 >> 25);
        acc2 = (acc2 << 7) ^ (previous >> 25);
        acc1 = acc1.wrapping_add(u32::from(c));
        n += 1;
        if n < 64 && c != b'\n' {
            continue;
        }
        let hash = acc1.wrapping_add(acc2.wrapping_mul(0x61)) % HASH_BASE;
        *spans.entry(hash).or_default() += n;
        (n, acc1, acc2) = (0, 0, 0);
    }
    spans
}

/// Bytes of `old` that survive in `new`.
fn copied_bytes(old: &[u8], new: &[u8]) -> u64 {
    let (old_spans, new_spans) = (span_bytes(old), span_bytes(new));
    old_spans
        .iter()
        .map(|(hash, count)| (*count).min(new_spans.get(hash).copied().unwrap_or(0)))
        .sum()
}

/// git's similarity index (0–100) of a rename from `old` to `new`.
pub(crate) fn similarity_index(old: &[u8], new: &[u8]) -> u32 {
    if old == new {
        return 100;
    }
    let max_size = old.len().max(new.len()) as u64;
    if new.is_empty() || max_size == 0 {
        return 0;
    }
    let score = copied_bytes(old, new) * MAX_SCORE / max_size;
    (score * 100 / MAX_SCORE) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_and_disjoint_contents() {
        assert_eq!(similarity_index(b"a\nb\n", b"a\nb\n"), 100);
        assert_eq!(similarity_index(b"a\nb\n", b"x\ny\n"), 0);
        assert_eq!(similarity_index(b"a\n", b""), 0);
    }

    #[test]
    fn half_the_lines_kept() {
        let old = b"line one\nline two\nline three\nline four\n";
        let new = b"line one\nline two\nchanged 3\nchanged 4\n";
        let score = similarity_index(old, new);
        assert!((40..=60).contains(&score), "{score}");
    }
}
