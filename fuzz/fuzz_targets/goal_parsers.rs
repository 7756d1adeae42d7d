//! Every reader of ultragoal's files and inputs, fed the same arbitrary bytes: the state file (and
//! its merge-write, which must read back to itself), the verdict and code-review artifacts, the
//! Stop hook's event, the argument rules, and the gates that run over all of them.

#![no_main]

use git_ucg::goal::{self, args, hook, liveness, phase, review, serialize, state, stories};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = goal::status_token(Some(data));
    let _ = goal::get_view(Some(data));
    let _ = review::verdicts(Some(data));
    let _ = review::code_review(Some(data));
    let _ = hook::parse_event(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let tokens: Vec<String> = text.split('\0').map(String::from).collect();
        let _ = args::parse(&tokens);
        let _ = phase::check_non_goals(text);
        let _ = liveness::parse_stamp(text);
    }
    if let Some(parsed) = state::parse(data) {
        let written = state::normalized(parsed.clone(), "T");
        let reread = state::parse(&state::to_bytes(&written));
        assert_eq!(reread.as_ref(), Some(&written));
        let _ = goal::is_pristine(&parsed);
        let _ = serialize::requirements(&parsed);
        let _ = serialize::review_context(&parsed);
        let _ = hook::stories_digest(&parsed);
        let mut changed = parsed.clone();
        let _ = stories::confirm_all(&mut changed);
        let _ = stories::reorder(&mut changed, &["S1".into()]);
        let mut completing = parsed;
        let before = completing.clone();
        let inputs = phase::CompletionInputs {
            verdicts: Some(data),
            code_review: Some(data),
            codex_snapshot: None,
        };
        if phase::request_complete(&mut completing, &inputs).is_err() {
            assert_eq!(completing, before, "a refused completion changed the state");
        }
    }
});
