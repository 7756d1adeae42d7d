//! Every reader of ultragoal's files and inputs, fed the same arbitrary bytes: the state file (and
//! its merge-write, which must read back to itself), the verdict and code-review artifacts, the
//! Stop hook's event, the argument rules, and the gates that run over all of them.
//!
//! The views and the story and completion operations take a session and read its files, so they
//! run on a session directory of this process's own (under /dev/shm when there is one, where the
//! writes' syncs cost nothing): the bytes are the state file, the verdict artifact and the
//! code-review artifact at once, rewritten before each operation that may write.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use ucg_ultragoal::js::JsValue;
use ucg_ultragoal::session::{self, Session};
use ucg_ultragoal::{args, hook, js, liveness, ops, review, state, view};

/// This process's session directory (libFuzzer's workers and jobs are processes: one each).
fn session_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("git-ucg-fuzz-goal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("the fuzzer's session directory");
        dir
    })
}

fn put(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).expect("a session file written");
}

fuzz_target!(|data: &[u8]| {
    let _ = ucg_ultragoal::status_token(Some(data));
    let _ = review::verdicts(Some(data));
    let _ = review::code_review(Some(data));
    let _ = hook::parse_event(data);
    // The files' text as the state CLI's readers decode it (invalid UTF-8 replaced).
    let text = js::decode(data);
    // `get`'s read: the state passing the readers' guard, the review fields defaulted.
    let _ = ops::raw_of(Some(&text));
    if let Ok(text) = std::str::from_utf8(data) {
        let tokens: Vec<String> = text.split('\0').map(String::from).collect();
        let _ = args::parse(&tokens);
        let _ = ops::comma_list(text);
        // `set`'s non-goals gate: every line not blank must match.
        let _ = text
            .split('\n')
            .filter(|line| !js::is_blank(line))
            .all(ops::is_non_goal_line);
        let _ = liveness::parse_stamp(text);
    }
    // Every gate of `request-complete` over this prior, the bytes also its verdict and
    // code-review artifacts and its `--codex-goal-json` (inline; no file is read).
    if let Ok(prior) = session::prior_of(Some(&text)) {
        let no_files = |_: &str| None;
        let _ = ops::first_failed_gate(
            &prior,
            &ops::GateInputs {
                verdicts: Some(&text),
                code_review: Some(&text),
                codex_arg: Some(&text),
                read_file: &no_files,
            },
        );
    }
    if let Some(parsed) = state::parse(data) {
        // The merge-write over this prior with nothing new: its bytes read back to themselves,
        // and merging what it wrote writes the same bytes again.
        if let Ok(written) =
            state::merged(&JsValue::Object(parsed.clone()), &state::State::new(), "T")
        {
            let bytes = state::to_bytes(&written);
            let reread = state::parse(&bytes).expect("a written state parses");
            assert_eq!(
                state::to_bytes(&reread),
                bytes,
                "a written state reads back to itself"
            );
            let again = state::merged(&JsValue::Object(reread), &state::State::new(), "T")
                .expect("a written state merges again");
            assert_eq!(
                state::to_bytes(&again),
                bytes,
                "the merge-write is not idempotent"
            );
        }
        let _ = ucg_ultragoal::is_pristine(&parsed);
        let _ = hook::stories_digest(&parsed);
        let _ = liveness::touched(&parsed);
        let _ = liveness::progress_touched(&parsed);
        let verdicts = review::verdicts(Some(data));
        let _ = view::current(&parsed, verdicts.as_ref());

        // The views and operations, on the session's files.
        let session = Session::new(session_dir().to_path_buf(), "fuzz".into());
        let state_file = session.state_file();
        put(&session.verdict_file(), data);
        put(&session.codereview_file(), data);
        put(&state_file, data);
        let _ = ops::get(&session);
        let _ = ops::status(&session);
        let _ = ops::requirements(&session);
        let _ = ops::review_context(&session);
        if let Ok(Some(read)) = session.read() {
            let _ = view::show_doc(&session, Some(&read), jiff::Timestamp::UNIX_EPOCH);
        }
        // A refused completion (or one that fails) leaves the state file as it was.
        if !matches!(ops::request_complete(&session, None), Ok(true)) {
            assert_eq!(
                std::fs::read(&state_file).ok().as_deref(),
                Some(data),
                "a refused completion changed the state"
            );
        }
        put(&state_file, data);
        let _ = ops::confirm_all(&session);
        put(&state_file, data);
        let _ = ops::reorder(&session, &["S1".into()]);
    }
});
