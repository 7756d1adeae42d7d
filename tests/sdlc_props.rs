//! Property tests of the agentic-sdlc format code: the lenient event log, the run algorithms over
//! any snapshot and log, and the Markdown edits that must change only the bytes they mean to.

use proptest::prelude::*;
use serde_json::{json, Value};
use ucg_sdlc::{events, markdown, run};

fn event_line() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        Just("phase.started"),
        Just("phase.completed"),
        Just("phase.failed"),
        Just("phase.interrupted"),
        Just("artifact.written"),
        Just("work_item.transitioned"),
    ];
    let phase = prop_oneof![
        (0i64..15).prop_map(Value::from),
        Just(Value::Null),
        Just(json!("4"))
    ];
    prop_oneof![
        4 => (name, phase).prop_map(|(e, p)| json!({"event": e, "phase": p, "ts": "2026-07-14T12:00:00Z"}).to_string()),
        1 => "\\PC{0,20}",
    ]
}

fn meta() -> impl Strategy<Value = Value> {
    let status = prop_oneof![
        Just("pending"),
        Just("running"),
        Just("completed"),
        Just("failed"),
        Just("skipped")
    ];
    (
        proptest::collection::vec(proptest::option::of(status), 13),
        proptest::option::of(0u64..15),
        prop_oneof![Just("running"), Just("completed"), Just("aborted")],
    )
        .prop_map(|(phases, current, status)| {
            let phases: serde_json::Map<String, Value> = phases
                .into_iter()
                .enumerate()
                .filter_map(|(n, s)| s.map(|s| (n.to_string(), json!({"status": s}))))
                .collect();
            json!({"run_id": "r", "status": status, "current_phase": current, "phases": phases,
                "started_at": "2026-07-14T12:00:00Z"})
        })
}

proptest! {
    /// Any bytes are a log: every non-blank line is an event or a reported malformed line.
    #[test]
    fn the_log_reader_is_total(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let log = events::parse(&bytes);
        let non_blank = bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.strip_suffix(b"\r").unwrap_or(l).iter().all(u8::is_ascii_whitespace))
            .count();
        prop_assert_eq!(log.lines.len(), non_blank);
    }

    /// Over any snapshot and log: the reconstruction, the repair (which, applied, leaves nothing
    /// more to repair), the status line and the resume candidate never panic and stay in range.
    #[test]
    fn the_run_algorithms_are_total(meta in meta(), lines in proptest::collection::vec(event_line(), 0..20)) {
        let meta = meta.as_object().cloned().unwrap_or_default();
        let log = events::parse(lines.join("\n").as_bytes());
        let recon = run::reconstruct(log.events());
        let changes = run::repairs(&meta, &recon);
        let text = Value::Object(meta.clone()).to_string();
        let repaired = run::apply_repairs_in_place(&text, &changes).and_then(|edited| {
            serde_json::from_str::<Value>(&edited).ok()?.as_object().cloned()
        });
        prop_assert!(repaired.is_some(), "{text} cannot take {changes:?}");
        let repaired = repaired.unwrap_or_default();
        prop_assert!(run::repairs(&repaired, &recon).is_empty());
        for allow_failed in [false, true] {
            if let Some(phase) = run::resume_candidate(&repaired, &recon, allow_failed) {
                prop_assert!(phase <= 12);
            }
        }
        let line = run::status_line("r", &meta, run::shown_phase(&meta, &recon), "running");
        prop_assert_eq!(line.matches("  ").count(), 4);
        let _ = run::is_stale(&meta, jiff::Timestamp::now());
    }

    /// Setting a field changes only that field; adding a history row only adds that row.
    #[test]
    fn markdown_edits_touch_only_their_bytes(
        value in "[^\\n\\r]{0,20}", row in "[^\\n\\r]{1,20}", tail in "[a-z \\n]{0,40}"
    ) {
        let doc = format!("# Item\n\n**Status**: Draft\n**Assignee**: Ada\n\n## History\n- a\n\n## Notes\n{tail}");
        let edited = markdown::set_field(&doc, "Status", value.trim());
        prop_assert_eq!(markdown::field(&edited, "Status"), Some(value.trim().to_string()));
        prop_assert_eq!(markdown::field(&edited, "Assignee"), Some("Ada".to_string()));
        prop_assert_eq!(edited.replacen(&format!("**Status**: {}", value.trim()), "**Status**: Draft", 1), doc.clone());
        let added = markdown::append_history(&doc, &row);
        prop_assert_eq!(markdown::history(&added).last().cloned(), Some(row.clone()));
        prop_assert_eq!(added.replacen(&format!("- {row}\n"), "", 1), doc);
    }
}

/// Log bytes rich in what the phase-line reader looks for: `phase.`, line ends, `\r`, JSON.
fn log_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => event_line().prop_map(String::into_bytes),
        2 => prop::sample::select(vec![
            &b"phase."[..], b"\n", b"\r\n", b"\r", b"  \n", b"phase.phase.", b"{\"event\":\"phase.completed\",\"phase\":2}",
            b"phas", b"e.", b"\xff", b"{\"event\":\"phase.started\",\"phase\":1,\"phase\":\"x\"}",
        ])
        .prop_map(<[u8]>::to_vec),
        1 => proptest::collection::vec(any::<u8>(), 0..12),
    ];
    proptest::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// A snapshot whose status may depend on the clock: running or not, a start time or none, phases
/// completed at times around it.
fn timed_meta() -> impl Strategy<Value = (Value, i64)> {
    let base = 1_780_000_000i64;
    let time = move |offset: i64| {
        jiff::Timestamp::from_second(base + offset)
            .map(|t| t.to_string())
            .unwrap_or_default()
    };
    (
        prop_oneof![Just("running"), Just("completed"), Just("aborted")],
        proptest::option::of(-8000i64..8000),
        proptest::collection::vec(proptest::option::of(-8000i64..8000), 0..4),
        prop_oneof![
            Just(None),
            Just(Some("not a time")),
            Just(Some("2026-07-14T12:00:00"))
        ],
        -9000i64..9000,
    )
        .prop_map(move |(status, started, done, odd, now)| {
            let phases: serde_json::Map<String, Value> = done
                .into_iter()
                .enumerate()
                .map(|(n, d)| {
                    let at = d.map_or(Value::Null, |d| Value::from(time(d)));
                    (
                        n.to_string(),
                        json!({"status": "completed", "completed_at": at}),
                    )
                })
                .collect();
            let started = match (started, odd) {
                (Some(s), _) => Value::from(time(s)),
                (None, Some(text)) => Value::from(text),
                (None, None) => Value::Null,
            };
            (
                json!({"status": status, "started_at": started, "phases": phases}),
                base + now,
            )
        })
}

proptest! {
    /// The phase-line reader of `sdlc list` reads exactly the lines the filter keeps, numbered
    /// alike.
    #[test]
    fn phase_lines_are_the_filtered_lines(bytes in log_bytes()) {
        prop_assert_eq!(events::parse_phase_lines(&bytes), events::parse_filtered(&bytes, events::may_be_phase_event));
    }

    /// `status_holds` is exact: within the seconds it gives, the status shown (and its warnings)
    /// is the one at `now`; at its bounds it is not.
    #[test]
    fn a_status_holds_while_the_clock_says_so((meta, now) in timed_meta(), probe in -20_000i64..20_000) {
        let meta = meta.as_object().cloned().unwrap_or_default();
        let at = |s: i64| jiff::Timestamp::from_second(s).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let shown = |s: i64| {
            let mut warnings = Vec::new();
            let status = run::display_status(&meta, at(s), &mut warnings);
            (status, warnings)
        };
        let (from, until) = run::status_holds(&meta, at(now));
        let t = now + probe;
        let inside = from.is_none_or(|f| f <= t) && until.is_none_or(|u| t < u);
        if inside {
            prop_assert_eq!(shown(t), shown(now));
        }
        if let Some(until) = until {
            prop_assert_ne!(shown(until), shown(now));
            prop_assert_eq!(shown(until - 1), shown(now));
        }
        if let Some(from) = from {
            prop_assert_ne!(shown(from - 1), shown(now));
            prop_assert_eq!(shown(from), shown(now));
        }
    }

    /// Any bytes read as the list cache are refused or read, never a panic; what is written reads
    /// back, for its own runs directory only.
    #[test]
    fn the_list_cache_reads_back(bytes in proptest::collection::vec(any::<u8>(), 0..200), line in "\\PC{0,20}") {
        use ucg_sdlc::list_cache::{Entry, ListCache};
        use ucg_sdlc::loaded::Summary;
        let runs = std::path::Path::new("/r/docs/superpowers/runs");
        let _ = ListCache::parse(&bytes, runs);
        let mut cache = ListCache::new(runs);
        let summary = Summary { line: line.clone(), doc: json!({"line": line, "phase": 7}), warnings: Vec::new() };
        let freshness = |ctime_nsec| ucg_store::Freshness { dev: 1, ino: 2, size: 3, mtime: 4, mtime_nsec: 5, ctime: 6, ctime_nsec };
        let stamps = (Some(freshness(7)), None);
        cache.insert("run".into(), Entry::new(&summary, stamps, (None, Some(100))));
        let bytes = cache.to_bytes();
        let read = ListCache::parse(&bytes, runs);
        prop_assert_eq!(read.as_ref(), Some(&cache));
        prop_assert!(ListCache::parse(&bytes, std::path::Path::new("/elsewhere")).is_none());
        let read = read.unwrap_or_else(|| ListCache::new(runs));
        prop_assert!(read.get("run", &stamps, 99).is_some_and(|e| e.line == line));
        prop_assert!(read.get("run", &stamps, 100).is_none());
        prop_assert!(read.get("run", &(Some(freshness(8)), None), 0).is_none());
        prop_assert!(read.get("other", &stamps, 0).is_none());
    }
}
