//! `cargo bench --bench lesson`: `lesson query` over a 100,000-lesson ledger, and `lesson append`
//! of one lesson next to a 100,000-entry index, against `grep` reading the same ledger.

#[path = "support/mod.rs"]
mod support;

use std::process::{Command, Stdio};
use support::{time_alternating, time_pair, BIN};

fn main() {
    println!("| benchmark | input | git-ucg median | comparison median | ratio |");
    println!("|---|---|---|---|---|");
    let (root, _keep) = support::scratch();
    let ledger = root.join("anvil/ledger.jsonl");
    support::write_lesson_ledger(&ledger, 100_000);
    let size = std::fs::metadata(&ledger).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    let lesson = |args: &[&str]| {
        let mut command = Command::new(BIN);
        command
            .arg("lesson")
            .args(args)
            .env("ANVIL_LEDGER", &ledger);
        command
    };
    // grep with its output on /dev/null stops at the first match (GNU grep treats that output as
    // `-q`), so it reads only the ledger's first block; writing the count to a file makes it read
    // every line, as a count needs.
    let mut grep_first = || {
        let mut command = Command::new("grep");
        command.args(["-c", "word42\"", ledger.to_str().expect("utf-8")]);
        command
    };
    let count = root.join("grep.out");
    let mut grep_all = || {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg("grep -c 'word42\"' \"$0\" > \"$1\"")
            .args([&ledger, &count]);
        command
    };
    let query = || lesson(&["query", "word42 word43 window", "--json"]);
    let kept = ucg_lesson::query::index_path(&ledger);
    let medians = time_alternating(
        21,
        &mut [
            &mut || {
                // No index kept: the query scans the ledger (and keeps one).
                let _ = std::fs::remove_file(&kept);
                query()
            },
            &mut { query },
            &mut grep_first,
            &mut grep_all,
        ],
    );
    let (scan, indexed, first, all) = (medians[0], medians[1], medians[2], medians[3]);
    for (what, ours) in [
        ("first after a write (a scan)", scan),
        ("again (its index)", indexed),
    ] {
        println!(
            "| `lesson query`, {what} | 100,000 lessons ({size:.0} MB) | {ours:.1} ms | {all:.1} ms (`grep -c` of one pattern word, every line) / {first:.1} ms (stopping at the first match) | {:.2}× / {:.2}× |",
            ours / all,
            ours / first
        );
    }
    let one = root.join("one.jsonl");
    let index = ledger.with_file_name("ledger.index.json");
    let index_size = std::fs::metadata(&index).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    let mut n = 0;
    let mut append = || {
        // A new id each time (a repeated id would take the index's full path).
        n += 1;
        std::fs::write(
            &one,
            format!("{{\"anvil_ledger_entry_version\":1,\"id\":\"L-2026-11-30-{n:08x}\",\"created\":\"2026-11-30\",\"contract_gap\":\"g\",\"evidence\":\"e\",\"remediation\":\"r\",\"pattern\":[\"word1\",\"fresh{n}\"]}}\n"),
        )
        .expect("lesson");
        let mut command = lesson(&["append", "--file", one.to_str().expect("utf-8")]);
        command.stdout(Stdio::null());
        command
    };
    let cat_index = || {
        let mut command = Command::new("cat");
        command.arg(&index);
        command
    };
    let (ours, theirs) = time_pair(51, &mut append, cat_index);
    println!(
        "| `lesson append` | one lesson, a 100,000-entry index ({index_size:.1} MB) | {ours:.2} ms | {theirs:.2} ms (`cat` of the index) | {:.2}× |",
        ours / theirs
    );
}
