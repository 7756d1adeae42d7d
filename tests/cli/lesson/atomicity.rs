//! Acceptance: append-only and atomicity.

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The ledger only grows by whole lines: SIGKILL during `append --file` of 1,000 lessons (8 MB),
/// until 50 kills have landed mid-run — at random moments, and (every other round) the moment the
/// ledger starts to grow, to land inside the write. After each kill the old ledger is
/// intact, every complete new line is one of the batch's lessons, byte for byte and in order,
/// audit finds no malformed line and a valid index; a torn tail is reported by audit
/// (`torn_line`) and the next append reports it on stderr and cuts exactly the partial line.
#[test]
fn sigkill_during_1000_appends_leaves_whole_lines_or_a_repairable_torn_tail() {
    let env = TestEnv::new();
    let padding = "p".repeat(8_000);
    let batch: String = (0..1_000)
        .map(|i| {
            format!(
                "{}\n",
                json!({"anvil_ledger_entry_version": 1, "id": format!("L-batch-{i:04}"),
                    "created": "2026-03-01", "contract_gap": format!("gap {i}"),
                    "evidence": padding, "remediation": format!("remediation {i}"),
                    "pattern": [format!("p{}", i % 7), "batch"]})
            )
        })
        .collect();
    let big = env.path().join("big.jsonl");
    std::fs::write(&big, &batch).unwrap();
    append(
        &env,
        &[
            lesson("L-base-1", "2026-01-01", "g", &["base"]),
            lesson("L-base-2", "2026-01-02", "g", &["base"]),
        ],
    );
    let (base_ledger, base_index) = (read(&ledger_path(&env)), read(&index_path(&env)));
    let base_lines = 2;
    let restore = || {
        std::fs::write(ledger_path(&env), &base_ledger).unwrap();
        std::fs::write(index_path(&env), &base_index).unwrap();
    };
    let spawn = || {
        cmd(&env)
            .args(["append", "--file", big.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let timed = || {
        restore();
        let started = Instant::now();
        assert!(spawn().wait().unwrap().success());
        started.elapsed()
    };
    let full_run = timed().min(timed());
    let mut expected = base_ledger.clone();
    expected.extend_from_slice(batch.as_bytes());
    assert_eq!(read(&ledger_path(&env)), expected);
    assert_audit_ok(&env);

    let mut jitter = Jitter(0x1e55);
    let mut window = full_run.as_micros() as u64;
    let (mut killed_mid_run, mut round, mut torn_tails, mut partial_batches) = (0, 0, 0, 0);
    while killed_mid_run < 50 {
        round += 1;
        assert!(
            round <= 600,
            "only {killed_mid_run} kills landed mid-run in 600 tries"
        );
        restore();
        let mut child = spawn();
        if round % 2 == 1 {
            std::thread::sleep(Duration::from_micros(jitter.next_below(window)));
            if child.try_wait().unwrap().is_none() {
                killed_mid_run += 1;
            } else {
                window = window * 4 / 5;
            }
        } else {
            // Every other round, the moment the write has begun (busy polling its length).
            loop {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                let len = std::fs::metadata(ledger_path(&env)).map_or(0, |m| m.len());
                if len != base_ledger.len() as u64 {
                    killed_mid_run += 1;
                    break;
                }
            }
        }
        let _ = child.kill();
        let _ = child.wait();

        let now = read(&ledger_path(&env));
        let added = now
            .strip_prefix(base_ledger.as_slice())
            .unwrap_or_else(|| panic!("round {round}: the old ledger is not intact"));
        assert!(
            batch.as_bytes().starts_with(added),
            "round {round}: the ledger gained bytes that are not the batch's lines in order"
        );
        let whole = added.iter().filter(|b| **b == b'\n').count();
        let complete = added.len() - added.iter().rev().take_while(|b| **b != b'\n').count();
        let partial = added.len() - complete;
        if whole > 0 && whole < 1_000 {
            partial_batches += 1;
        }
        let (doc, _) = audit(&env);
        let kinds = issue_kinds(&doc);
        for kind in &kinds {
            assert!(
                kind == "torn_line" || kind == "index_desync_missing_from_index",
                "round {round}: {doc}"
            );
        }
        assert_eq!(
            doc["checked"]["lessons"],
            base_lines + whole,
            "round {round}"
        );
        if partial == 0 {
            assert!(!kinds.contains(&"torn_line".to_string()), "round {round}");
            continue;
        }
        torn_tails += 1;
        let torn: Vec<&Value> = doc["issues"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["issue"] == "torn_line")
            .collect();
        assert_eq!(torn.len(), 1, "round {round}: {doc}");
        assert_eq!(torn[0]["line"], base_lines + whole + 1, "round {round}");
        // The next append reports the torn tail and cuts exactly the partial line.
        let repair = lesson("L-repair", "2026-03-02", "g", &["repair"]);
        let out = output_with_stdin(
            cmd(&env).args(["append", "--file", "-"]),
            jsonl(std::slice::from_ref(&repair)).as_bytes(),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "round {round}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains(&format!("torn (no newline, {partial} bytes)")),
            "round {round}: {}",
            stderr(&out)
        );
        let mut repaired = now[..base_ledger.len() + complete].to_vec();
        repaired.extend_from_slice(format!("{repair}\n").as_bytes());
        assert_eq!(read(&ledger_path(&env)), repaired, "round {round}");
        let (doc, _) = audit(&env);
        assert!(
            !issue_kinds(&doc)
                .iter()
                .any(|k| k == "torn_line" || k == "invalid_json"),
            "round {round}: {doc}"
        );
    }
    eprintln!(
        "{round} rounds, {killed_mid_run} kills mid-run, {torn_tails} torn tails repaired, {partial_batches} partial batches"
    );
    // A last successful write leaves no temporary file of the index behind.
    restore();
    assert!(spawn().wait().unwrap().success());
    let leftovers: Vec<String> = std::fs::read_dir(env.path().join(".anvil"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());
    assert_audit_ok(&env);
}

/// A torn tail, made deterministically (a crash that left half a line): audit reports
/// `torn_line` at its physical line, query skips it with a warning, and the next append cuts
/// exactly those bytes — reported with their count — before appending. A ledger that is nothing
/// but a partial line is cut to empty.
#[test]
fn torn_tail_is_reported_and_only_the_partial_line_is_cut() {
    let env = TestEnv::new();
    append(
        &env,
        &[
            lesson("L-1", "2026-01-01", "g", &["a"]),
            lesson("L-2", "2026-01-02", "g", &["a"]),
        ],
    );
    let clean = read(&ledger_path(&env));
    let partial = br#"{"anvil_ledger_entry_version":1,"id":"L-half","created":"2026-01-03","contract_gap":"g","evid"#;
    let mut torn = clean.clone();
    torn.extend_from_slice(partial);
    std::fs::write(ledger_path(&env), &torn).unwrap();
    let (doc, code) = audit(&env);
    assert_eq!(code, 1);
    assert_eq!(doc["issues"], json!([{"line": 3, "issue": "torn_line"}]));
    let out = run(&env, &["query", "a", "--json"]);
    assert_eq!(ids(ok_json(&out).as_array().unwrap()), ["L-2", "L-1"]);
    assert!(stderr(&out).contains(":3: torn"), "{}", stderr(&out));
    assert_eq!(read(&ledger_path(&env)), torn, "query repairs nothing");

    let out = append_text(
        &env,
        jsonl(&[lesson("L-3", "2026-01-03", "g", &["a"])]).as_bytes(),
    );
    assert_eq!(ok_json(&out)["appended"], json!(["L-3"]));
    assert!(
        stderr(&out).contains(&format!(
            "{}: its last line was torn (no newline, {} bytes): cut off before appending",
            ledger_path(&env).display(),
            partial.len()
        )),
        "{}",
        stderr(&out)
    );
    let mut expected = clean.clone();
    expected
        .extend_from_slice(format!("{}\n", lesson("L-3", "2026-01-03", "g", &["a"])).as_bytes());
    assert_eq!(read(&ledger_path(&env)), expected);
    assert_audit_ok(&env);

    // Nothing but a partial line.
    let alone = env.path().join("alone.jsonl");
    std::fs::write(&alone, partial).unwrap();
    let out = output_with_stdin(
        cmd(&env).args(["--ledger", alone.to_str().unwrap(), "append", "--file", "-"]),
        jsonl(&[lesson("L-9", "2026-01-09", "g", &[])]).as_bytes(),
    );
    ok_json(&out);
    assert!(stderr(&out).contains("torn"), "{}", stderr(&out));
    assert_eq!(
        read_text(&alone),
        format!("{}\n", lesson("L-9", "2026-01-09", "g", &[]))
    );
}

/// BUG: a complete lesson missing only its final newline is deleted.
#[test]
fn a_complete_last_line_without_newline_is_kept() {
    let env = TestEnv::new();
    let l1 = lesson("L-1", "2026-01-01", "g", &["a"]);
    let l2 = lesson("L-2", "2026-01-02", "g", &["a"]);
    write(&ledger_path(&env), &format!("{l1}\n{l2}"));
    assert_eq!(ids(&query(&env, &["a"])), ["L-2", "L-1"]);
    let l3 = lesson("L-3", "2026-01-03", "g", &["a"]);
    append(&env, std::slice::from_ref(&l3));
    assert_eq!(read_text(&ledger_path(&env)), jsonl(&[l1, l2, l3]));
}

/// Eight processes appending at once (20 runs of 5 lessons each, per process) lose nothing: all
/// 800 lessons are there once, every batch's lines are contiguous (one write under the lock),
/// every line parses, and the index matches the ledger exactly.
#[test]
fn concurrent_appends_from_8_processes_lose_nothing() {
    let env = TestEnv::new();
    let (processes, runs, per_run) = (8, 20, 5);
    for p in 0..processes {
        for r in 0..runs {
            let lessons: Vec<Value> = (0..per_run)
                .map(|i| {
                    lesson(
                        &format!("L-p{p}-r{r:02}-{i}"),
                        "2026-02-02",
                        "g",
                        &[&format!("proc{p}"), "shared"],
                    )
                })
                .collect();
            write(
                &env.path().join(format!("in/p{p}-r{r}.jsonl")),
                &jsonl(&lessons),
            );
        }
    }
    std::thread::scope(|scope| {
        for p in 0..processes {
            let env = &env;
            scope.spawn(move || {
                for r in 0..runs {
                    let file = env.path().join(format!("in/p{p}-r{r}.jsonl"));
                    let out = cmd(env)
                        .env("GIT_UCG_LOCK_TIMEOUT", "120")
                        .args(["append", "--file", file.to_str().unwrap()])
                        .output()
                        .unwrap();
                    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                }
            });
        }
    });
    let lines = parsed_lines(&ledger_path(&env));
    assert_eq!(lines.len(), processes * runs * per_run);
    let got: Vec<String> = lines
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    for batch in got.chunks(per_run) {
        let prefix = &batch[0][..batch[0].len() - 1];
        for (i, id) in batch.iter().enumerate() {
            assert_eq!(
                id,
                &format!("{prefix}{i}"),
                "batches interleaved: {batch:?}"
            );
        }
    }
    let mut sorted = got.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), got.len(), "an id appears twice");
    let idx = index(&env);
    let mut indexed: Vec<String> = idx["by_id"].as_object().unwrap().keys().cloned().collect();
    indexed.sort();
    assert_eq!(indexed, sorted);
    let shared: Vec<&str> = idx["by_pattern"]["shared"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(shared.len(), got.len());
    for p in 0..processes {
        let key = format!("proc{p}");
        let mine = idx["by_pattern"][&key].as_array().unwrap();
        assert_eq!(mine.len(), runs * per_run, "{key}");
        assert!(mine
            .iter()
            .all(|id| id.as_str().unwrap().starts_with(&format!("L-p{p}-"))));
    }
    assert_audit_ok(&env);
}

/// B.9 (reference defect, fixed): the reference's `append --file` stops at the first bad line but
/// keeps the earlier lines appended. git-ucg validates every line first: a bad line anywhere
/// refuses the whole file, naming its line (`details.line`, 1-based, blank lines counted), and
/// nothing is written. Blank lines and CRLF endings are fine.
#[test]
fn append_is_all_or_nothing_and_names_the_failing_line() {
    let env = TestEnv::new();
    append(&env, &[lesson("L-0", "2026-01-01", "g", &["a"])]);
    let before = (read(&ledger_path(&env)), read(&index_path(&env)));
    let good = jsonl(&[
        lesson("L-1", "2026-01-01", "g", &["a"]),
        lesson("L-2", "2026-01-01", "g", &["a"]),
    ]);
    let text = format!(
        "{good}\n{}\n",
        r#"{"anvil_ledger_entry_version":1,"id":"L-3","created":"d","contract_gap":"g","evidence":"","remediation":"r"}"#
    );
    let doc = refusal(&append_text(&env, text.as_bytes()));
    assert_eq!(doc["code"], "E_NULL_LESSON");
    assert_eq!(doc["details"]["line"], 4);
    assert_eq!((read(&ledger_path(&env)), read(&index_path(&env))), before);
    let doc = refusal(&append_text(&env, format!("{good}{{oops\n").as_bytes()));
    assert_eq!(doc["code"], "E_IO");
    assert_eq!(doc["details"]["line"], 3);
    assert_eq!((read(&ledger_path(&env)), read(&index_path(&env))), before);
    let out = append_text(
        &env,
        format!("\n{}\r\n\r\n", good.replace('\n', "\r\n")).as_bytes(),
    );
    assert_eq!(ok_json(&out)["appended"], json!(["L-1", "L-2"]));
    assert_eq!(parsed_lines(&ledger_path(&env)).len(), 3);
    // A missing input file is refused as Node reports it: the errno's name, the path.
    let doc = refusal(&run(&env, &["append", "--file", "no/such.jsonl"]));
    assert_eq!(doc["code"], "ENOENT");
    assert_eq!(
        doc["error"],
        "ENOENT: no such file or directory, open 'no/such.jsonl'"
    );
    assert_eq!(doc["details"], Value::Null);
}

/// B.8 (reference defect, fixed): a ledger line that is literally `null` crashes the reference's
/// audit. git-ucg reports it as an invalid lesson (no `id`), and judges every other line as the
/// reference does: a whitespace-only line is `invalid_json` and counted, an array has the wrong
/// version, an invalid lesson is not "seen" (so its index entry is reported). Line numbers are
/// physical and 1-based (the reference counts non-empty lines only).
#[test]
fn audit_reports_a_null_line_and_counts_physical_lines() {
    let env = TestEnv::new();
    let good = lesson("L-1", "2026-01-01", "g", &["a"]);
    let blank_gap = json!({"anvil_ledger_entry_version": 1, "id": "L-2", "created": "d",
        "contract_gap": "", "evidence": "e", "remediation": "r"});
    write(
        &ledger_path(&env),
        &format!("{good}\n\nnull\n   \n{{broken\n{blank_gap}\n[1]\n"),
    );
    write(
        &index_path(&env),
        r#"{"by_pattern":{},"by_id":{"L-1":{"created":"2026-01-01"},"L-2":{"created":"d"}}}"#,
    );
    let (doc, code) = audit(&env);
    assert_eq!(code, 1);
    assert_eq!(
        doc,
        json!({"ok": false, "issues": [
            {"line": 3, "issue": "E_INVALID_LESSON", "details": {"received": "object"}},
            {"line": 4, "issue": "invalid_json"},
            {"line": 5, "issue": "invalid_json"},
            {"line": 6, "id": "L-2", "issue": "E_NULL_LESSON", "details": {"field": "contract_gap", "value": ""}},
            {"line": 7, "issue": "E_INVALID_LESSON", "details": {"rule": "wrong_version"}},
            {"id": "L-2", "issue": "index_desync_missing_entry"},
        ], "checked": {"lessons": 6}})
    );
    let out = run(&env, &["audit"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("6 issue(s)"), "{}", stdout(&out));
}
