//! Every parser of on-disk UCG data, fed the same arbitrary bytes: the RED registry, a scan, the
//! answers file, the heartbeat, sprint-status, markers, the ledger, the decision log, and the
//! Python-compatible JSON beneath them, the prompt's cache, the hooks' remembered pass and a
//! bypass record's note. None
//! may panic; whatever parses must survive `apply` and serialize to a document that parses back
//! to the same registry.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use ucg_store::pyjson;
use ucg_ultracode::pending::{self, Artifacts, PendingInputs};
use ucg_ultracode::{
    answer, budget, bypass, decision_log, decisions, escalations, gate_cache, heartbeat, ledger,
    markers, prompt_cache, reds, sprint,
};

fuzz_target!(|data: &[u8]| {
    // The prompt's cache, as found under the git directory (stamps looked up under a root that
    // does not exist).
    let _ = prompt_cache::fresh_segment(data, Path::new("/nonexistent"), None);
    let _ = prompt_cache::last_segment(data);
    // The commit hooks' remembered pass, likewise.
    let _ = gate_cache::fresh(data, Path::new("/nonexistent"));
    // A bypass note: every record read renders to text that reads back as the same record.
    for record in bypass::parse("c", data) {
        let again = bypass::parse("c", record.render().as_bytes());
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].pending, record.pending);
    }
    let closed = decisions::closed_ids(Some(data));
    // The registry writer's windowed reading of the answers file: the same ids, in order, for
    // windows that split every step.
    let whole = decisions::closing_ids_read(data, data.len(), data.len() as u64);
    assert!(whole.iter().all(|id| closed.contains(id)));
    for window in [1, 7, 64] {
        let read = decisions::closing_ids_read(data, window, data.len() as u64);
        assert!(read.iter().eq(whole.iter()));
    }
    let registry = reds::Registry::parse(Some(data), "fuzz");
    // `pending`'s reading of the stored reds: the whole reader's fields, its refusals.
    match (&registry, reds::Registry::parse_shown(Some(data), "fuzz")) {
        (Ok(whole), Ok((shown, resolved))) => {
            // Compared as text: a NaN read from the bytes is never equal to itself.
            assert_eq!(format!("{resolved:?}"), format!("{:?}", whole.resolved));
            let fields = |red: &pyjson::Value| {
                reds::SHOWN_FIELDS.map(|k| red.as_object().and_then(|o| o.get(k)).cloned())
            };
            let expected: Vec<_> = whole.reds.iter().map(fields).collect();
            assert_eq!(format!("{shown:?}"), format!("{expected:?}"));
        }
        (Err(a), Err(b)) => assert_eq!(a, &b),
        (a, b) => panic!("parse {:?}, parse_shown {:?}", a.is_ok(), b.is_ok()),
    }
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
            let _ = ucg_ultracode::status::to_json(&value);
        }
        let _ = budget::max_turns(Some(text));
        let _ = markers::tests_ran_fresh(text, text);
        let _ = sprint::development_status(text);
        let _ = markers::marker_sha(text);
        // The flip's reader: each row's wanted cells and status span, as the rows hold them.
        let wanted = ["id", "status", "source", "reason"];
        let rows = ledger::rows_with_status(text);
        let cells = ledger::cells_with_status(text, &wanted);
        assert_eq!(rows.len(), cells.len());
        for ((row, span), (cells, cell_span)) in rows.iter().zip(&cells) {
            assert_eq!(span, cell_span);
            for (name, cell) in wanted.iter().zip(cells) {
                assert_eq!(row.get(*name).map(String::as_str).unwrap_or(""), *cell);
            }
        }
        let verdicts = decision_log::recorded_verdicts(text);
        let stories: Vec<String> = verdicts.iter().map(|(id, _)| format!("{id}-x")).collect();
        let _ = decision_log::verdicts_for(&verdicts, &stories);
        if let Ok(value) = pyjson::loads(text) {
            let pretty = pyjson::dumps_pretty(&value);
            assert!(pyjson::loads(&pretty).is_ok());
            let _ = pyjson::dumps_compact_ascii(&value);
        }
    }
    // The answers scanners agree with the whole-document reader wherever it reads the file.
    let entries_scanned = decisions::answer_entries(data, &|_| true);
    let file = decisions::AnswersFile::read(Some(data.to_vec()));
    match decisions::decisions_for_write(Some(data)) {
        Ok((mut doc, mut entries)) => {
            assert_eq!(closed, answer::closed_in(&entries));
            let with_ids = entries
                .iter()
                .filter(|e| e.as_object().and_then(|o| o.get("id")?.as_str()).is_some())
                .count();
            assert_eq!(entries_scanned.map(|e| e.len()), Some(with_ids));
            let written = file.map(|file| {
                let merged = answer::merge_pieces(file.entries(), &[]);
                file.render(&merged.pieces)
            });
            assert_eq!(written, Ok(answer::render(&mut doc, &mut entries)));
        }
        Err(refused) => {
            assert!(entries_scanned.is_none());
            assert_eq!(file.map(|_| ()), Err(refused));
        }
    }
    if let Ok(scan) = reds::parse_scan(data) {
        let existing = registry.unwrap_or_default();
        let applied = reds::apply(scan.clone(), &existing.resolved, &closed);
        if let Ok(next) = &applied {
            let text = next.to_pretty_json();
            // Compared as text: a NaN read from the scan is never equal to itself.
            let reread =
                reds::Registry::parse(Some(text.as_bytes()), "fuzz").map(|r| r.to_pretty_json());
            assert_eq!(reread, Ok(text));
        }
        // The registry writer's own path: the four fields, the document written directly.
        let fields = scan;
        // Its tombstones as it reads them: the same as the whole reader's, borrowed where it can.
        let tombstones = reds::Registry::parse_for_apply(Some(data), "fuzz", reds::RedsAs::Checked)
            .map(|(_, tombstones)| tombstones)
            .unwrap_or_default();
        let as_values: Vec<_> = tombstones
            .iter()
            .cloned()
            .map(reds::Tombstone::into_value)
            .collect();
        assert_eq!(
            pyjson::dumps_pretty(&pyjson::Value::Array(as_values)),
            pyjson::dumps_pretty(&pyjson::Value::Array(existing.resolved.clone()))
        );
        let document = reds::validate_reds(&fields)
            .and_then(|()| reds::apply_document(fields, tombstones, &closed));
        assert_eq!(document, applied.map(|r| r.to_pretty_json()));
    }
});
