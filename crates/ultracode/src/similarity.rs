//! Reworded questions (docs/product.md §4): how alike two decision texts are, and how one reads
//! against the other, word by word. Pure functions over strings; both texts are normalized as the
//! id recipe normalizes them (`ids::normalize_decision`) first.

use crate::ids::normalize_decision;
use similar::{ChangeTag, TextDiff};
use std::borrow::Cow;
use std::collections::HashMap;

/// The default of `ucg.similarity`: the least ratio at which an earlier answer is offered.
pub const DEFAULT_THRESHOLD: f64 = 0.8;

/// `similar`'s ratio of the diff of the words of `a` and `b` (1.0: the same words in the same
/// order; 0.0: none shared), after normalization. A word is a run of letters and digits:
/// punctuation and whitespace separate words and do not count, so moving a comma is no change.
pub fn ratio(a: &str, b: &str) -> f64 {
    let (a, b) = (normalize_decision(a), normalize_decision(b));
    words_ratio(&words(&a), &words(&b))
}

fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// [`ratio`] of two texts' words: `similar`'s ratio of their diff, which counts the words of a
/// longest common subsequence (its Myers diff is minimal). Short texts — questions, nearly always
/// — count that subsequence directly, without building the diff (`props.rs` holds both equal).
pub fn words_ratio(a: &[&str], b: &[&str]) -> f64 {
    ratio_by_subsequence(a, b, || {
        f64::from(TextDiff::configure().diff_slices(a, b).ratio())
    })
}

/// [`words_ratio`] of two word lists in any form words compare in (text, or numbers standing for
/// words); `diff` gives `similar`'s ratio of the same texts when they are too long to count.
fn ratio_by_subsequence<T: PartialEq>(a: &[T], b: &[T], diff: impl FnOnce() -> f64) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.len().saturating_mul(b.len()) > DIRECT_LCS_CELLS {
        return diff();
    }
    ratio_of(common_subsequence(a, b), a.len() + b.len())
}

/// Up to this many word pairs, [`words_ratio`] counts the common subsequence itself.
const DIRECT_LCS_CELLS: usize = 64 * 64;

/// The length of a longest common subsequence of `a` and `b` (dynamic programming, one row).
fn common_subsequence<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut diagonal = 0;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The ratio [`words_ratio`] would give texts of `total` words with `matches` of them matched,
/// computed as `similar` computes it (`2·matches / total`, in `f32`): with an upper bound of the
/// matches, an upper bound of the ratio that is below a threshold only when the ratio is.
fn ratio_of(matches: usize, total: usize) -> f64 {
    if total == 0 {
        return 1.0;
    }
    f64::from(2.0 * matches as f32 / total as f32)
}

/// How many words two sorted word lists share, counted as a multiset: no diff can match more.
fn shared_words(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
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

/// Earlier questions, grouped by scope and normalized once, for [`Candidates::best_match`] of
/// many pending items: each item is compared only with the questions of its own scope (a run's
/// thousands of items against an answers file's thousands of questions would otherwise be
/// millions of comparisons).
pub(crate) struct Candidates<'c> {
    /// By scope: the candidates, in the order given.
    by_scope: HashMap<&'c str, Vec<Candidate<'c>>, foldhash::fast::RandomState>,
    /// Every candidate's words, numbered: words are compared as numbers.
    vocabulary: HashMap<String, u32, foldhash::fast::RandomState>,
}

struct Candidate<'c> {
    /// Its place among the candidates given.
    index: usize,
    id: &'c str,
    normalized: Cow<'c, str>,
    /// Its words' numbers, in order and sorted.
    words: Vec<u32>,
    sorted_words: Vec<u32>,
}

/// The number of a word no candidate has: it matches nothing.
const UNKNOWN_WORD: u32 = u32::MAX;

impl<'c> Candidates<'c> {
    pub fn new(candidates: impl IntoIterator<Item = (&'c str, &'c str)>) -> Candidates<'c> {
        let mut by_scope: HashMap<_, Vec<_>, _> = HashMap::default();
        let mut vocabulary: HashMap<String, u32, _> = HashMap::default();
        for (index, (id, text)) in candidates.into_iter().enumerate() {
            let Some(scope) = scope(id) else {
                continue;
            };
            let normalized = normalize_decision(text);
            let words: Vec<u32> = words(&normalized)
                .into_iter()
                .map(|word| {
                    let next = u32::try_from(vocabulary.len()).unwrap_or(UNKNOWN_WORD - 1);
                    *vocabulary.entry(word.to_string()).or_insert(next)
                })
                .collect();
            let mut sorted_words = words.clone();
            sorted_words.sort_unstable();
            by_scope.entry(scope).or_default().push(Candidate {
                index,
                id,
                normalized,
                words,
                sorted_words,
            });
        }
        Candidates {
            by_scope,
            vocabulary,
        }
    }

    /// Of these candidates (id, decision text), the one most like `text`, as the pending item
    /// `id` may reuse its answer: same scope as `id` (kind and source file), another id, a ratio
    /// of at least `threshold`. Its index and ratio; on a tie, the later one (the newer answer).
    pub(crate) fn best_match(&self, id: &str, text: &str, threshold: f64) -> Option<(usize, f64)> {
        let own = scope(id)?;
        let same_scope = self.by_scope.get(own)?;
        let normalized = normalize_decision(text);
        let mine_words = words(&normalized);
        let mine: Vec<u32> = mine_words
            .iter()
            .map(|w| self.vocabulary.get(*w).copied().unwrap_or(UNKNOWN_WORD))
            .collect();
        let mut mine_sorted = mine.clone();
        mine_sorted.sort_unstable();
        let mut best: Option<(usize, f64)> = None;
        // What cannot reach the threshold, or the best so far, is not compared further: the ratio
        // is at most what matching every word of the shorter text, or every word both share, gives.
        let hopeless = |bound: f64, best: Option<(usize, f64)>| {
            bound < threshold || best.is_some_and(|(_, b)| bound < b)
        };
        for candidate in same_scope {
            if candidate.id == id {
                continue;
            }
            let total = mine.len() + candidate.words.len();
            if hopeless(ratio_of(mine.len().min(candidate.words.len()), total), best)
                || hopeless(
                    ratio_of(shared_words(&mine_sorted, &candidate.sorted_words), total),
                    best,
                )
            {
                continue;
            }
            let r = ratio_by_subsequence(&mine, &candidate.words, || {
                words_ratio(&mine_words, &words(&candidate.normalized))
            });
            if r >= threshold && best.is_none_or(|(_, b)| r >= b) {
                best = Some((candidate.index, r));
            }
        }
        best
    }
}

/// One piece of a word diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffPiece {
    Same,
    /// Only in the earlier text.
    Gone,
    /// Only in the new text.
    New,
}

/// The word diff from `earlier` to `now` (both normalized), as runs of text: what both share, what
/// only the earlier had, what only the new one has.
pub fn word_diff(earlier: &str, now: &str) -> Vec<(DiffPiece, String)> {
    let (a, b) = (normalize_decision(earlier), normalize_decision(now));
    let diff = TextDiff::from_words(a.as_ref(), b.as_ref());
    let mut out: Vec<(DiffPiece, String)> = Vec::new();
    for change in diff.iter_all_changes() {
        let piece = match change.tag() {
            ChangeTag::Equal => DiffPiece::Same,
            ChangeTag::Delete => DiffPiece::Gone,
            ChangeTag::Insert => DiffPiece::New,
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

    /// A question and its rewording.
    const BEFORE: &str = "Do sessions expire, and after how long?";
    const AFTER: &str = "Do sessions expire and, if so, after how long?";

    #[test]
    fn a_rewording_is_close_and_another_question_is_not() {
        assert_eq!(ratio(BEFORE, BEFORE), 1.0);
        let close = ratio(BEFORE, AFTER);
        assert!((DEFAULT_THRESHOLD..0.99).contains(&close), "{close}");
        let other = "Which payment provider ships first: Stripe or Adyen?";
        assert!(ratio(BEFORE, other) < 0.5);
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
        let best = |id| Candidates::new(candidates).best_match(id, text, 0.8);
        let id = "undecided-product:docs/prd.md:eeeeeeeeeeee";
        assert_eq!(best(id), Some((2, 1.0)));
        assert_eq!(best(candidates[2].0), None);
        assert_eq!(scope("nocolon"), None);
        assert_eq!(scope("k:p:"), None);
    }

    #[test]
    fn the_word_diff_rebuilds_both_texts() {
        let diff = word_diff(BEFORE, AFTER);
        let side = |keep: DiffPiece| -> String {
            diff.iter()
                .filter(|(p, _)| *p == DiffPiece::Same || *p == keep)
                .map(|(_, t)| t.as_str())
                .collect()
        };
        assert_eq!(side(DiffPiece::Gone), BEFORE);
        assert_eq!(side(DiffPiece::New), AFTER);
    }
}
