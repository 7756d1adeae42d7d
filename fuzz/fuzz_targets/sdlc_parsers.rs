//! Every reader of agentic-sdlc run files, fed the same arbitrary bytes: the event log (its
//! phase-line reader must read what the filter keeps), the snapshot, the algorithms over both, the
//! work-item Markdown edits (which must change only the bytes they mean to), and `list`'s cache.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ucg_sdlc::{events, list_cache, markdown, run};

fuzz_target!(|data: &[u8]| {
    let log = events::parse(data);
    assert_eq!(
        events::parse_phase_lines(data),
        events::parse_filtered(data, events::may_be_phase_event)
    );
    let _ = list_cache::ListCache::parse(data, std::path::Path::new("/runs"));
    let meta = match serde_json::from_slice(data) {
        Ok(serde_json::Value::Object(meta)) => meta,
        _ => serde_json::Map::new(),
    };
    let recon = run::reconstruct(log.events());
    let changes = run::repairs(&meta, &recon);
    let _ = run::resume_candidate(&meta, &recon, true);
    let _ = run::is_stale(&meta, jiff::Timestamp::now());
    let _ = run::status_line("r", &meta, run::shown_phase(&meta, &recon), "running");
    if let Ok(text) = std::str::from_utf8(data) {
        // The in-place edit of meta.json: what it writes reads back with the changes made.
        if let Some(edited) = run::apply_repairs_in_place(text, &changes) {
            if let Ok(serde_json::Value::Object(after)) = serde_json::from_str(&edited) {
                assert!(run::repairs(&after, &recon).is_empty());
            }
        }
        let _ = markdown::fields(text);
        let _ = markdown::history(text);
        let edited = markdown::set_field(text, "Status", "Done");
        assert_eq!(markdown::field(&edited, "Status").as_deref(), Some("Done"));
        let added = markdown::append_history(text, "row");
        assert!(added.len() > text.len());
        let _ = run::parse_ts(text);
    }
});
