//! `cargo bench --bench reds`: id minting in-process, and `git ucg reds apply --scan` as a whole
//! process on a 10,000-red scan against a 100,000-answer `.decisions.json` and on a 50 MB scan,
//! against the reference `red_ids.py` doing the same job (`--impl-artifacts impl --scan scan.json`,
//! the answers read from `.decisions.json`), run alternately in the same run. The reference is
//! not part of this repository: `UCG_REFERENCE_SCRIPTS` names the directory holding it (the
//! reference's `skills/ultracode-goal/scripts`); without it the comparison is skipped, and said
//! so. Prints a markdown table for BENCHMARKS.md.

#[path = "support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use support::{median, time_pair, time_runs, Workload};

const BIN: &str = env!("CARGO_BIN_EXE_git-ucg");

fn main() {
    let rows = vec![bench_mint(), bench_apply(), bench_large_scan()];
    println!("| benchmark | input | median | comparison | ratio | peak RSS |");
    println!("|---|---|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
}

fn bench_mint() -> String {
    let inputs: Vec<_> = (0..100_000).map(support::finding).collect();
    let mut rates = Vec::new();
    for _ in 0..7 {
        let started = Instant::now();
        let mut total = 0usize;
        for _ in 0..10 {
            for (kind, source, decision) in &inputs {
                total +=
                    std::hint::black_box(ucg_ultracode::ids::mint(kind, source, decision)).len();
            }
        }
        std::hint::black_box(total);
        rates.push(1_000_000.0 / started.elapsed().as_secs_f64());
    }
    let rate = median(rates);
    format!(
        "| `id mint` in-process | 1,000,000 mints of ~70-byte decisions | {:.2} M ids/s | — | — | — |",
        rate / 1e6
    )
}

fn apply_command(root: &Path) -> Command {
    let mut command = Command::new(BIN);
    command.current_dir(root).args([
        "reds",
        "apply",
        "--impl-artifacts",
        "impl",
        "--scan",
        "scan.json",
    ]);
    command
}

/// The reference `red_ids.py`, when `UCG_REFERENCE_SCRIPTS` names its directory.
fn reference_script() -> Option<PathBuf> {
    let dir = std::env::var_os("UCG_REFERENCE_SCRIPTS")?;
    let script = Path::new(&dir).join("red_ids.py");
    if script.is_file() {
        Some(script)
    } else {
        eprintln!("{} not found: the comparison is skipped", script.display());
        None
    }
}

/// The reference doing the same job: mint, apply the answers in `.decisions.json`, write the
/// registry and print it.
fn reference_command(script: &Path, root: &Path) -> Command {
    let mut command = Command::new("python3");
    command
        .current_dir(root)
        .arg(script)
        .args(["--impl-artifacts", "impl", "--scan", "scan.json"]);
    command
}

/// Ours and the reference alternately (`pairs` each), or ours alone without the reference:
/// the table's median, comparison and ratio cells.
fn compare(pairs: usize, root: &Path, digits: usize) -> (String, String, String) {
    let Some(script) = reference_script() else {
        let ours = time_runs(pairs, || apply_command(root));
        return (
            format!("{ours:.digits$} ms"),
            "skipped (UCG_REFERENCE_SCRIPTS not set)".into(),
            "—".into(),
        );
    };
    let (ours, theirs) = time_pair(
        pairs,
        || apply_command(root),
        || reference_command(&script, root),
    );
    (
        format!("{ours:.digits$} ms"),
        format!("{theirs:.digits$} ms (`red_ids.py`)"),
        format!("{:.1}× faster", theirs / ours),
    )
}

fn rss(command: &Command) -> String {
    support::peak_rss_mib(command).map_or_else(|| "n/a".to_string(), |mib| format!("{mib:.1} MiB"))
}

/// A scratch directory for a workload; with `GIT_UCG_BENCH_KEEP=1` it is kept (and named on
/// stderr) so the same input can be profiled by hand.
struct Scratch {
    path: std::path::PathBuf,
    _guard: Option<tempfile::TempDir>,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().expect("tempdir");
        if std::env::var_os("GIT_UCG_BENCH_KEEP").is_some() {
            let path = dir.keep();
            eprintln!("workload kept in {}", path.display());
            return Scratch { path, _guard: None };
        }
        Scratch {
            path: dir.path().to_path_buf(),
            _guard: Some(dir),
        }
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

fn bench_apply() -> String {
    let dir = Scratch::new();
    let workload = Workload {
        reds: 10_000,
        decisions: 100_000,
    };
    let generated = support::write_artifacts(dir.path(), workload);
    let decisions_mb = std::fs::metadata(generated.impl_dir.join(".decisions.json"))
        .map(|m| m.len())
        .unwrap_or(0) as f64
        / 1e6;
    let (ours, theirs, ratio) = compare(21, dir.path(), 1);
    let peak = rss(&apply_command(dir.path()));
    format!(
        "| `reds apply --scan` | 10,000 reds, 100,000 answers ({decisions_mb:.1} MB `.decisions.json`) | {ours} | {theirs} | {ratio} | {peak} |"
    )
}

fn bench_large_scan() -> String {
    let dir = Scratch::new();
    let workload = Workload {
        reds: 250_000,
        decisions: 1_000,
    };
    let generated = support::write_artifacts(dir.path(), workload);
    let scan_mb = std::fs::metadata(&generated.scan)
        .map(|m| m.len())
        .unwrap_or(0) as f64
        / 1e6;
    let (ours, theirs, ratio) = compare(5, dir.path(), 0);
    let peak = rss(&apply_command(dir.path()));
    format!(
        "| `reds apply --scan` | 250,000 reds ({scan_mb:.1} MB scan) | {ours} | {theirs} | {ratio} | {peak} |"
    )
}
