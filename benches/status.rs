//! `cargo bench --bench status`: the prompt segment (warm cache, and after one artifact changed)
//! against `git rev-parse --abbrev-ref HEAD`, the full dashboard of a large run with `--fast`, and
//! the reference markdown on the compat `full-run` case.

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::process::Command;
use support::{git_command as git, scratch, time_pair, time_runs, ucg, RepoShape, RunShape, BIN};

fn head(root: &Path) -> String {
    let out = git(root, &["rev-parse", "HEAD"]).output().expect("git");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn main() {
    println!("| benchmark | input | git-ucg median | comparison median | ratio |");
    println!("|---|---|---|---|---|");

    // The prompt: 10,000 files in the repository, 1,000 artifact files.
    let (dir, _guard) = scratch();
    let shape = RepoShape::plain(10_000, 5);
    support::write_repo(&dir, shape);
    let run = RunShape {
        stories: 300,
        escalations: 300,
        ledger_rows: 200,
        reds: 50,
    };
    let artifacts = support::write_run(&dir, run, &head(&dir));
    let warm = ucg(&dir, &["status", "--prompt"]).output().expect("prompt");
    assert!(warm.status.success());
    eprintln!("prompt: {}", String::from_utf8_lossy(&warm.stdout).trim());
    let (ours, theirs) = time_pair(
        201,
        || ucg(&dir, &["status", "--prompt"]),
        || git(&dir, &["rev-parse", "--abbrev-ref", "HEAD"]),
    );
    println!(
        "| `status --prompt`, warm cache | 10,000 files, {artifacts} artifact files | {ours:.2} ms | {theirs:.2} ms (`git rev-parse --abbrev-ref HEAD`) | {:.2}× |",
        ours / theirs
    );

    // After one artifact changed: each run first rewrites the heartbeat (outside the timing).
    let heartbeat = dir.join("_bmad-output/implementation-artifacts/run-status.json");
    let text = std::fs::read_to_string(&heartbeat).expect("heartbeat");
    let mut flip = false;
    let mut samples = Vec::new();
    for _ in 0..41 {
        flip = !flip;
        let changed = if flip {
            text.replace("\"reloop_count\": 3", "\"reloop_count\": 4")
        } else {
            text.clone()
        };
        std::fs::write(&heartbeat, changed).expect("rewrite heartbeat");
        samples.push(time_runs(1, || ucg(&dir, &["status", "--prompt"])));
    }
    let changed = support::median(samples);
    let out = ucg(&dir, &["status", "--prompt"]).output().expect("prompt");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains('?'),
        "the recomputation met its deadline"
    );
    println!("| `status --prompt`, one artifact changed | same | {changed:.2} ms | — | — |");

    // The dashboard of a large run.
    let (big, _big_guard) = scratch();
    let shape = RepoShape::plain(100, 2);
    support::write_repo(&big, shape);
    let run = RunShape {
        stories: 1_000,
        escalations: 2_000,
        ledger_rows: 10_000,
        reds: 100,
    };
    support::write_run(&big, run, &head(&big));
    let fast = time_runs(21, || ucg(&big, &["--no-pager", "status", "--fast"]));
    println!(
        "| `status --fast` (dashboard) | 1,000 stories, 2,000 escalations, 10,000 ledger rows | {fast:.1} ms | — | — |"
    );
    let json = time_runs(21, || ucg(&big, &["status", "--fast", "--json"]));
    println!("| `status --fast --json` | same | {json:.1} ms | — | — |");

    // The reference markdown on the compat full-run case (vendored in tests/fixtures).
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compat-status/full-run/before");
    let paths = [
        "--impl-artifacts",
        "impl",
        "--run-dir",
        "run",
        "--runs-root",
        "runs",
    ];
    let ours = || {
        let mut command = Command::new(BIN);
        command
            .current_dir(&case)
            .args(["status", "--format", "markdown"])
            .args(paths);
        command
    };
    // The reference renderer itself, when its scripts' directory is given (kept outside the
    // repository: `fetch` armelhbobdad/bmad-module-ultracode-goal, skills/ultracode-goal/scripts).
    match std::env::var_os("UCG_REFERENCE_SCRIPTS") {
        Some(scripts) => {
            let script = Path::new(&scripts).join("status_render.py");
            let (markdown, reference) = support::time_pair(51, ours, || {
                let mut command = Command::new("python3");
                command.current_dir(&case).arg(&script).args(paths);
                command
            });
            println!(
                "| `status --format markdown` (51 pairs) | compat `full-run` case | {markdown:.2} ms | {reference:.2} ms (`status_render.py`) | {:.1}× faster |",
                reference / markdown
            );
        }
        None => {
            let markdown = time_runs(51, ours);
            println!("| `status --format markdown` | compat `full-run` case | {markdown:.2} ms | — (set UCG_REFERENCE_SCRIPTS to compare with `status_render.py`) | — |");
        }
    }
}
