//! `cargo bench --bench scale` — a scale check, not a target: how the warm prompt, `gate` and
//! `pending --json` grow with the repository (10,000 → 1,000,000 files in HEAD's tree) and with the
//! run (1,000 → 100,000 artifact-side items). Each row is one size; the growth column divides its
//! median by the smallest size's. Linear growth in the run is expected for `gate` and `pending`
//! (they read every item); the prompt reads a cache and should stay flat; nothing should grow with
//! the repository's file count. Set UCG_SCALE_MAX_FILES to stop earlier (the 1,000,000-file
//! repository takes a few minutes to import).

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use support::{time_runs, time_runs_exiting, RepoShape, RunShape};

fn head(root: &Path) -> String {
    let out = support::git_command(root, &["rev-parse", "HEAD"])
        .output()
        .expect("rev-parse");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A run of about `items` pending items: REDs, escalations and open ledger decisions.
fn run_of(items: usize) -> RunShape {
    RunShape {
        stories: 30,
        escalations: items / 10,
        ledger_rows: items * 3,
        reds: items * 6 / 10,
    }
}

struct Row {
    what: String,
    prompt: f64,
    gate: f64,
    pending: f64,
}

fn measure(root: &Path, what: String) -> Row {
    let warm = support::ucg(root, &["status", "--prompt"])
        .output()
        .expect("prompt");
    assert!(warm.status.success());
    let prompt = time_runs(51, || support::ucg(root, &["status", "--prompt"]));
    let gate = time_runs_exiting(11, 1, || support::ucg(root, &["gate", "--json"]));
    let pending = time_runs(11, || support::ucg(root, &["pending", "--json"]));
    Row {
        what,
        prompt,
        gate,
        pending,
    }
}

fn print(title: &str, rows: &[Row]) {
    println!("\n{title}\n");
    println!(
        "| input | warm prompt | growth | `gate --json` | growth | `pending --json` | growth |"
    );
    println!("|---|---|---|---|---|---|---|");
    let first = &rows[0];
    for row in rows {
        println!(
            "| {} | {:.2} ms | {:.2}× | {:.1} ms | {:.2}× | {:.1} ms | {:.2}× |",
            row.what,
            row.prompt,
            row.prompt / first.prompt,
            row.gate,
            row.gate / first.gate,
            row.pending,
            row.pending / first.pending
        );
    }
}

fn main() {
    let max_files: usize = std::env::var("UCG_SCALE_MAX_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    // The repository grows; the run stays at 1,000 items.
    let mut rows = Vec::new();
    for files in [10_000, 100_000, 1_000_000] {
        if files > max_files {
            break;
        }
        let (dir, _guard) = support::scratch();
        // Not checked out: a million files on disk would measure the file system, and none of the
        // three commands reads the work tree beyond the artifacts.
        let shape = RepoShape {
            checkout: false,
            ..RepoShape::plain(files, 2)
        };
        support::write_repo(&dir, shape);
        support::write_run(&dir, run_of(1_000), &head(&dir));
        rows.push(measure(&dir, format!("{files} files, 1,000 items")));
    }
    print(
        "Files in the repository (the run fixed at ~1,000 pending items):",
        &rows,
    );

    // The run grows; the repository stays at 10,000 files.
    let mut rows = Vec::new();
    for items in [1_000, 10_000, 100_000] {
        let (dir, _guard) = support::scratch();
        support::write_repo(&dir, RepoShape::plain(10_000, 2));
        support::write_run(&dir, run_of(items), &head(&dir));
        rows.push(measure(&dir, format!("10,000 files, {items} items")));
    }
    print(
        "Items in the run (the repository fixed at 10,000 files):",
        &rows,
    );
}
