//! `cargo bench --bench startup`: the floor every prompt, hook and agent call pays — `git-ucg
//! --version` against `git --version` and `/bin/true`, alternating in one run — and the page
//! faults of each start (`perf stat`, when it is installed).

#[path = "support/mod.rs"]
mod support;

use std::process::Command;
use support::{time_pair, BIN};

fn command(program: &str, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command.args(args);
    command
}

/// Page faults of one start, from `perf stat` (None without it).
fn page_faults(program: &str, args: &[&str]) -> Option<u64> {
    let output = Command::new("perf")
        .args(["stat", "-x", ",", "-e", "page-faults", "-r", "20", program])
        .args(args)
        .stdout(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stderr);
    let line = text.lines().find(|line| line.contains("page-faults"))?;
    line.split(',')
        .next()?
        .trim()
        .parse::<f64>()
        .ok()
        .map(|n| n.round() as u64)
}

fn main() {
    let runs = 401;
    let (ucg, git) = time_pair(
        runs,
        || command(BIN, &["--version"]),
        || command("git", &["--version"]),
    );
    let (ucg_again, true_) = time_pair(
        runs,
        || command(BIN, &["--version"]),
        || command("/bin/true", &[]),
    );
    let faults = |program: &str, args: &[&str]| {
        page_faults(program, args).map_or("—".to_string(), |n| n.to_string())
    };
    println!("| benchmark | git-ucg median | comparison median | ratio | page faults (git-ucg / comparison) |");
    println!("|---|---|---|---|---|");
    println!(
        "| `git-ucg --version` ({runs} pairs) | {ucg:.3} ms | {git:.3} ms (`git --version`) | {:.2}× | {} / {} |",
        ucg / git,
        faults(BIN, &["--version"]),
        faults("git", &["--version"]),
    );
    println!(
        "| `git-ucg --version` ({runs} pairs) | {ucg_again:.3} ms | {true_:.3} ms (`/bin/true`) | {:.2}× | {} / {} |",
        ucg_again / true_,
        faults(BIN, &["--version"]),
        faults("/bin/true", &[]),
    );
}
