//! `cargo bench --bench resolve`: `pending` and `resolve --answers` on a large stopped run —
//! 10,000 REDs, 1,000 escalations, 10,000 ledger rows (1,000 open decisions) and 100,000 answers
//! already on record.

#[path = "support/mod.rs"]
mod support;

use std::path::Path;

use support::{scratch, time_runs, ucg, RepoShape, RunShape};

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).expect("create");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

fn main() {
    println!("| benchmark | input | git-ucg median |");
    println!("|---|---|---|");
    let (dir, _guard) = scratch();
    let root = dir.as_path();
    let shape = RepoShape::plain(100, 2);
    support::write_repo(root, shape);
    let run = RunShape {
        stories: 10,
        escalations: 1_000,
        ledger_rows: 10_000,
        reds: 10_000,
    };
    support::write_run(root, run, "0000000000000000000000000000000000000000");
    let impl_dir = root.join("_bmad-output/implementation-artifacts");
    // 100,000 answers on record: defers of ids no scan produces any more, as a long project's
    // file accumulates them (closes of live REDs would have been applied already).
    support::write_decisions(&impl_dir, 100_000);

    let out = ucg(root, &["pending", "--json"]).output().expect("pending");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let items = doc["items"].as_array().expect("items");
    eprintln!("{} items pending", items.len());
    let pending = time_runs(21, || ucg(root, &["pending", "--json"]));
    println!(
        "| `pending --json` | 10,000 REDs, 1,000 escalations, 10,000 ledger rows (1,000 open decisions), 100,000 answers on record | {pending:.1} ms |"
    );

    // Answers closing 500 REDs, 250 escalations and 250 ledger rows.
    let pick = |source: &str, n: usize| {
        items
            .iter()
            .filter(|i| i["source"] == source)
            .take(n)
            .map(|i| serde_json::json!({"id": i["id"], "answer": "decided", "action": "close"}))
            .collect::<Vec<_>>()
    };
    let mut answers = pick("red", 500);
    answers.extend(pick("escalation", 250));
    answers.extend(pick("decision", 250));
    let file = root.join("answers.json");
    std::fs::write(&file, serde_json::json!({"answers": answers}).to_string()).expect("answers");
    let template = root.join("template");
    copy_dir(&impl_dir, &template);
    // Each pass appends its section to the run's decision log: the log is put back too, so every
    // run reads the same input.
    let log = root.join(support::RUN_FOLDER).join(".decision-log.md");
    let log_before = std::fs::read(&log).expect("decision log");
    let mut samples = Vec::new();
    for _ in 0..21 {
        copy_dir(&template, &impl_dir);
        std::fs::write(&log, &log_before).expect("decision log");
        samples.push(time_runs(1, || {
            ucg(
                root,
                &["resolve", "--answers", file.to_str().expect("utf-8")],
            )
        }));
    }
    let resolve = support::median(samples);
    println!("| `resolve --answers` (1,000 closes: 500 REDs, 250 escalations, 250 ledger rows) | same | {resolve:.1} ms |");

    // After the resolve the answers file holds 1,000 answers with their questions: every item
    // left is offered the most alike earlier question of its scope (750 ledger rows share one).
    let after = time_runs(21, || ucg(root, &["pending", "--json"]));
    println!(
        "| `pending --json` after that resolve | 11,000 pending, 1,000 earlier questions to offer | {after:.1} ms |"
    );
}
