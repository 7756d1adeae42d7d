//! `cargo bench --bench sdlc`: `sdlc list` over 1,000 runs of 1,000 events each, and `sdlc status
//! latest`, against `grep` reading the same logs for their phase events.

#[path = "support/mod.rs"]
mod support;

use std::process::Command;
use support::{time_alternating, time_pair, ucg};

fn main() {
    println!("| benchmark | input | git-ucg median | comparison median | ratio |");
    println!("|---|---|---|---|---|");
    let (root, _keep) = support::scratch();
    let status = support::git_command(&root, &["init", "-q"])
        .status()
        .expect("git init");
    assert!(status.success());
    support::write_sdlc_runs(&root, 1_000, 1_000);
    let runs = root.join("docs/superpowers/runs");
    // grep with its output on /dev/null stops at each log's first match (GNU grep treats that
    // output as `-q`): it reads one block of each log. Writing the counts to a file makes it read
    // every line, as counting needs.
    let mut grep_first = || {
        let mut command = Command::new("sh");
        command
            .current_dir(&runs)
            .arg("-c")
            .arg("grep -h -c 'phase\\.' */events.jsonl >/dev/null");
        command
    };
    let mut grep_all = || {
        let mut command = Command::new("sh");
        command
            .current_dir(&runs)
            .arg("-c")
            .arg("grep -h -c 'phase\\.' */events.jsonl > ../grep.out");
        command
    };
    let cache = root.join(".git/ucg/sdlc-list");
    let list = || ucg(&root, &["sdlc", "list"]);
    let medians = time_alternating(
        21,
        &mut [
            &mut || {
                // Nothing kept: every run is read (and kept).
                let _ = std::fs::remove_file(&cache);
                list()
            },
            &mut { list },
            &mut grep_first,
            &mut grep_all,
        ],
    );
    let (cold, warm, first, all) = (medians[0], medians[1], medians[2], medians[3]);
    for (what, ours) in [
        ("every run read", cold),
        ("runs unchanged since the last listing", warm),
    ] {
        println!(
            "| `sdlc list`, {what} | 1,000 runs × 1,000 events (232 MB of logs) | {ours:.1} ms | {first:.1} ms (`grep -c 'phase\\.' */events.jsonl`, output on /dev/null: the first block of each log) / {all:.1} ms (every line) | {:.2}× / {:.2}× |",
            ours / first,
            ours / all
        );
    }
    let latest = std::fs::read_dir(&runs)
        .expect("runs")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .max()
        .expect("a run");
    let grep_one = || {
        let mut command = Command::new("grep");
        command
            .current_dir(&runs)
            .args(["-c", "phase\\.", &format!("{latest}/events.jsonl")]);
        command
    };
    let (ours, grep) = time_pair(101, || ucg(&root, &["sdlc", "status", "latest"]), grep_one);
    println!(
        "| `sdlc status latest` | the same 1,000 runs | {ours:.2} ms | {grep:.2} ms (`grep -c 'phase\\.'` on its log) | {:.2}× |",
        ours / grep
    );
}
