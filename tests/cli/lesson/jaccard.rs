//! Acceptance: golden Jaccard cases (through `retro`'s supersession, the only place git-ucg
//! computes Jaccard).

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};

/// Golden Jaccard cases: 0.75 supersedes; the 8/10 pair is 0.8 (≥ 0.7; 8/11 still is, 8/12 is
/// not); non-ASCII letters separate tokens (café → caf); two empty token sets are identical (1).
#[test]
fn golden_jaccard_cases() {
    let env = TestEnv::new();
    let contract = retro_contract(&env);
    let case = |name: &str, old: &str, new: &str| -> Option<Value> {
        let ledger = env.path().join(format!("{name}.jsonl"));
        seed(&ledger, &[lesson("L-old", "2026-01-01", old, &[])]);
        let entry = retro_ok(&env, &ledger, &contract, new);
        entry.get("supersedes").cloned()
    };
    let old = Some(json!(["L-old"]));
    // 3/4.
    assert_eq!(
        case(
            "075",
            "astro tailwind shadcn",
            "astro tailwind shadcn colors"
        ),
        old
    );
    // 8/10; 8/11 ≈ 0.727 still supersedes, 8/12 does not.
    assert_eq!(case("080", OLD_GAP, NEW_GAP), old);
    assert_eq!(case("073", OLD_GAP, &format!("{NEW_GAP} now")), old);
    assert_eq!(case("067", OLD_GAP, &format!("{NEW_GAP} right now")), None);
    // café → caf; crème → cr, me; brûlée → br, l, e: identical token sets. Were é a letter,
    // these would share nothing.
    assert_eq!(case("cafe", "Café crème brûlée", "caf cr me br l e"), old);
    // …and "cafe" is a token "caf" never matches.
    assert_eq!(case("cafe2", "café", "cafe"), None);
    // Both empty: 1 (a gap of punctuation and non-ASCII only is still a non-blank gap).
    assert_eq!(case("empty", "— ¡¿ —", "«…»"), old);
    // Digits are tokens; case does not matter.
    assert_eq!(case("digits", "HTTP 429 retry", "http 429 RETRY"), old);
    assert_eq!(case("digits2", "http 429 retry", "http 503 retry"), None);
}
