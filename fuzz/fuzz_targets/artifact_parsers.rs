//! Every parser of on-disk UCG data, fed the same arbitrary bytes: the RED registry, a scan, the
//! answers file, the heartbeat, sprint-status, markers, the ledger, the decision log, and the
//! Python-compatible JSON beneath them, and the prompt's cache. None may panic; whatever parses must
//! survive `apply` and serialize to a document that parses back to the same registry.

#![no_main]

use git_ucg::pyjson;
use git_ucg::ucg::pending::{self, Artifacts, PendingInputs};
use git_ucg::ucg::{
    budget, decision_log, decisions, escalations, heartbeat, ledger, markers, reds, sprint,
};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    // The prompt's cache, as found under the git directory (stamps looked up under a root that
    // does not exist).
    let _ =
        git_ucg::commands::status::prompt::cached_segment(data, Path::new("/nonexistent"), None);
    let closed = decisions::closed_ids(Some(data));
    let registry = reds::Registry::parse(Some(data), "fuzz");
    let _ = heartbeat::parse(data);
    // The pending enumeration with these bytes as every one of its sources at once.
    let names: Vec<String> = [".escalation-x.md", "escalation-x.json", "escalation-y.json"]
        .map(String::from)
        .to_vec();
    let artifacts = Artifacts {
        registry: Some(data.to_vec()),
        decisions: Some(data.to_vec()),
        sidecars: [("escalation-x.json".to_string(), data.to_vec())].into(),
        ledger_rows: std::str::from_utf8(data)
            .map(ledger::rows)
            .unwrap_or_default(),
        names: names.clone(),
        unreadable_files: Vec::new(),
    };
    let inputs = PendingInputs {
        project_root: Path::new("/p"),
        impl_dir: Path::new("/p/impl"),
        ledger: Path::new("/p/impl/deferred-work.md"),
    };
    let _ = pending::enumerate_read(&inputs, &artifacts);
    let _ = escalations::collect(&names, |_| Some(data.to_vec()));
    let _ = budget::turns(Some(data));
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(value) = pyjson::loads(text) {
            let _ = git_ucg::ucg::status::to_json(&value);
        }
        let _ = budget::max_turns(Some(text));
        let _ = markers::tests_ran_fresh(text, text);
        let _ = sprint::development_status(text);
        let _ = markers::marker_sha(text);
        let _ = ledger::rows(text);
        let verdicts = decision_log::recorded_verdicts(text);
        let stories: Vec<String> = verdicts.iter().map(|(id, _)| format!("{id}-x")).collect();
        let _ = decision_log::verdicts_for(&verdicts, &stories);
        if let Ok(value) = pyjson::loads(text) {
            let pretty = pyjson::dumps_pretty(&value);
            assert!(pyjson::loads(&pretty).is_ok());
            let _ = pyjson::dumps_compact_ascii(&value);
        }
    }
    if let Ok(scan) = reds::parse_scan(data) {
        let existing = registry.unwrap_or_default();
        if let Ok(next) = reds::apply(scan, &existing.resolved, &closed) {
            let text = next.to_pretty_json();
            // Compared as text: a NaN read from the scan is never equal to itself.
            let reread =
                reds::Registry::parse(Some(text.as_bytes()), "fuzz").map(|r| r.to_pretty_json());
            assert_eq!(reread, Ok(text));
        }
    }
});
