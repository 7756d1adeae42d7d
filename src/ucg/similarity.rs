//! Reworded questions (docs/product.md §4): how alike two decision texts are, and how one reads
//! against the other, word by word. Pure functions over strings; both texts are normalized as the
//! id recipe normalizes them (`ids::normalize_decision`) first.

use crate::ucg::ids::normalize_decision;
use similar::{ChangeTag, TextDiff};

/// The default of `ucg.similarity`: the least ratio at which an earlier answer is offered.
pub const DEFAULT_THRESHOLD: f64 = 0.8;

/// `similar`'s ratio of the diff of the words of `a` and `b` (1.0: the same words in the same
/// order; 0.0: none shared), after normalization. A word is a run of letters and digits:
/// punctuation and whitespace separate words and do not count, so moving a comma is no change.
pub fn ratio(a: &str, b: &str) -> f64 {
    let (a, b) = (normalize_decision(a), normalize_decision(b));
    let (a, b) = (words(&a), words(&b));
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    f64::from(TextDiff::configure().diff_slices(&a, &b).ratio())
}

fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A threshold as `git config ucg.similarity` gives it: a number from 0 to 1, else why not.
pub fn threshold(value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(t) if (0.0..=1.0).contains(&t) => Ok(t),
        _ => Err(format!(
            "ucg.similarity is {value:?}, not a number from 0 to 1"
        )),
    }
}

/// The scope an id answers in: its kind and source file (`kind:path:hash` without the hash).
/// `None` for an id that is not of that shape.
pub fn scope(id: &str) -> Option<&str> {
    let (scope, hash) = id.rsplit_once(':')?;
    (!hash.is_empty() && scope.contains(':')).then_some(scope)
}

/// Of `candidates` (id, decision text), the one most like `text`, as the pending item `id` may
/// reuse its answer: same scope as `id` (kind and source file), another id, a ratio of at least
/// `threshold`. Its index and ratio; on a tie, the later one (the newer answer).
pub fn best_match<'c>(
    id: &str,
    text: &str,
    candidates: impl IntoIterator<Item = (&'c str, &'c str)>,
    threshold: f64,
) -> Option<(usize, f64)> {
    let own = scope(id)?;
    let mut best: Option<(usize, f64)> = None;
    for (index, (other, other_text)) in candidates.into_iter().enumerate() {
        if other == id || scope(other) != Some(own) {
            continue;
        }
        let r = ratio(text, other_text);
        if r >= threshold && best.is_none_or(|(_, b)| r >= b) {
            best = Some((index, r));
        }
    }
    best
}

/// One piece of a word diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Same,
    /// Only in the earlier text.
    Gone,
    /// Only in the new text.
    New,
}

/// The word diff from `earlier` to `now` (both normalized), as runs of text: what both share, what
/// only the earlier had, what only the new one has.
pub fn word_diff(earlier: &str, now: &str) -> Vec<(Piece, String)> {
    let (a, b) = (normalize_decision(earlier), normalize_decision(now));
    let diff = TextDiff::from_words(a.as_ref(), b.as_ref());
    let mut out: Vec<(Piece, String)> = Vec::new();
    for change in diff.iter_all_changes() {
        let piece = match change.tag() {
            ChangeTag::Equal => Piece::Same,
            ChangeTag::Delete => Piece::Gone,
            ChangeTag::Insert => Piece::New,
        };
        match out.last_mut() {
            Some((last, text)) if *last == piece => text.push_str(change.value()),
            _ => out.push((piece, change.value().to_string())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewording_is_close_and_another_question_is_not() {
        let before = "Do sessions expire, and after how long?";
        let after = "Do sessions expire and, if so, after how long?";
        assert_eq!(ratio(before, before), 1.0);
        assert!(
            ratio(before, after) >= DEFAULT_THRESHOLD,
            "{}",
            ratio(before, after)
        );
        assert!(ratio(before, after) < 0.99);
        let other = "Which payment provider ships first: Stripe or Adyen?";
        assert!(ratio(before, other) < 0.5);
        // Normalized as ids are: whitespace runs do not count.
        assert_eq!(ratio("a  b\tc", " a b c "), 1.0);
    }

    #[test]
    fn thresholds_outside_zero_to_one_are_refused() {
        assert_eq!(threshold("0.8"), Ok(0.8));
        assert_eq!(threshold("1"), Ok(1.0));
        assert_eq!(threshold("0"), Ok(0.0));
        for bad in ["1.5", "-0.1", "high", "", "NaN"] {
            assert!(threshold(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_the_same_kind_and_file_match() {
        let text = "Do sessions expire?";
        let candidates = [
            ("other-kind:docs/prd.md:aaaaaaaaaaaa", text),
            ("undecided-product:docs/other.md:bbbbbbbbbbbb", text),
            ("undecided-product:docs/prd.md:cccccccccccc", text),
            (
                "undecided-product:docs/prd.md:dddddddddddd",
                "Something else entirely here",
            ),
        ];
        let id = "undecided-product:docs/prd.md:eeeeeeeeeeee";
        assert_eq!(best_match(id, text, candidates, 0.8), Some((2, 1.0)));
        assert_eq!(best_match(candidates[2].0, text, candidates, 0.8), None);
        assert_eq!(scope("nocolon"), None);
        assert_eq!(scope("k:p:"), None);
    }

    #[test]
    fn the_word_diff_rebuilds_both_texts() {
        let diff = word_diff(
            "Do sessions expire, and after how long?",
            "Do sessions expire and, if so, after how long?",
        );
        let side = |keep: Piece| -> String {
            diff.iter()
                .filter(|(p, _)| *p == Piece::Same || *p == keep)
                .map(|(_, t)| t.as_str())
                .collect()
        };
        assert_eq!(side(Piece::Gone), "Do sessions expire, and after how long?");
        assert_eq!(
            side(Piece::New),
            "Do sessions expire and, if so, after how long?"
        );
    }
}
