//! Crash safety: `reds apply` killed with SIGKILL at random moments leaves the registry complete
//! (the old document or the new one, never a mixture), and the next successful run sweeps up any
//! temporary file the killed writer left.

use crate::common::*;
use std::path::Path;
use std::time::{Duration, Instant};

fn big_scan(variant: &str) -> String {
    let padding = "p".repeat(200);
    let reds: Vec<_> = (0..20_000)
        .map(|i| {
            serde_json::json!({
                "kind": "undecided-product", "source": format!("docs/{variant}.md:{i}"),
                "decision_needed": format!("{variant} question {i}?"), "evidence": padding,
            })
        })
        .collect();
    serde_json::json!({ "reds": reds }).to_string()
}

/// A small deterministic pseudo-random sequence (no dependency needed for test jitter).
struct Jitter(u64);

impl Jitter {
    fn next_below(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound.max(1)
    }
}

fn registry_bytes(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("impl/.preflight-reds.json")).unwrap()
}

#[test]
fn sigkill_at_random_moments_never_leaves_a_partial_registry() {
    let env = TestEnv::new();
    let cwd = env.path();
    for variant in ["a", "b"] {
        let text = big_scan(variant);
        assert!(text.len() >= 5_000_000, "{}", text.len());
        std::fs::write(cwd.join(format!("{variant}.json")), text).unwrap();
    }
    let run = |variant: &str| {
        env.ucg(cwd)
            .args([
                "reds",
                "apply",
                "--impl-artifacts",
                "impl",
                "--scan",
                &format!("{variant}.json"),
            ])
            .output()
            .unwrap()
    };
    let timed = |variant: &str| {
        let started = Instant::now();
        assert_eq!(run(variant).status.code(), Some(0));
        started.elapsed()
    };
    let full_run = timed("b").min(timed("b"));
    let document_b = registry_bytes(cwd);
    let full_run = full_run.min(timed("a"));
    let document_a = registry_bytes(cwd);

    // Kill at a random moment within the run's length until 100 kills have landed mid-run; a kill
    // that comes after the run finished does not count, and shortens the window (the machine may
    // be faster now than when the run was timed).
    let mut jitter = Jitter(0x5eed);
    let mut window = full_run.as_micros() as u64;
    let mut killed_mid_run = 0;
    let mut round = 0;
    while killed_mid_run < 100 {
        round += 1;
        assert!(
            round <= 500,
            "only {killed_mid_run} kills landed mid-run in 500 tries"
        );
        let variant = if round % 2 == 0 { "b" } else { "a" };
        let mut child = env
            .ucg(cwd)
            .args([
                "reds",
                "apply",
                "--impl-artifacts",
                "impl",
                "--scan",
                &format!("{variant}.json"),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(jitter.next_below(window)));
        if child.try_wait().unwrap().is_none() {
            killed_mid_run += 1;
        } else {
            window = window * 4 / 5;
        }
        let _ = child.kill();
        let _ = child.wait();
        let now = registry_bytes(cwd);
        assert!(
            now == document_a || now == document_b,
            "round {round}: the registry is neither the old nor the new document ({} bytes)",
            now.len()
        );
    }

    assert_eq!(run("a").status.code(), Some(0));
    let names: Vec<_> = std::fs::read_dir(cwd.join("impl"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [".preflight-reds.json"],
        "temporary files left behind"
    );
    assert_eq!(registry_bytes(cwd), document_a);
}

/// `sdlc repair` killed with SIGKILL at random moments, 50 times mid-run: meta.json always parses
/// and is the old snapshot or the repaired one; events.jsonl is the old log, or the old log and
/// one whole `status.repaired` line — never a partial line.
#[test]
fn sigkill_during_sdlc_repair_leaves_whole_files() {
    let env = TestEnv::new();
    let root = env.repo("proj");
    let run_dir = root.join("docs/superpowers/runs/20260714-1200-big");
    let mut phases = serde_json::Map::new();
    for n in 0..=12 {
        let status = if n < 4 {
            "completed"
        } else if n == 4 {
            "running"
        } else {
            "pending"
        };
        phases.insert(n.to_string(), serde_json::json!({"status": status}));
    }
    // A large snapshot and log, so that the repair takes long enough to be interrupted.
    let meta = serde_json::json!({"run_id": "20260714-1200-big", "mode": "hitl", "status": "running",
        "started_at": "2026-07-14T12:00:00Z", "task_input": "x".repeat(4_000_000), "current_phase": 4,
        "phases": phases});
    let old_meta = serde_json::to_vec_pretty(&meta).unwrap();
    let mut old_log = String::new();
    for i in 0..20_000 {
        old_log += &format!("{{\"schema\":1,\"ts\":\"2026-07-14T12:00:00Z\",\"event\":\"artifact.written\",\"run_id\":\"r\",\"phase\":4,\"actor\":\"a\",\"summary\":\"{i}\",\"artifacts\":[],\"data\":{{}}}}\n");
    }
    for n in 0..=4 {
        old_log += &format!("{{\"event\":\"phase.started\",\"phase\":{n}}}\n{{\"event\":\"phase.completed\",\"phase\":{n}}}\n");
    }
    let reset = || {
        std::fs::create_dir_all(&run_dir).unwrap();
        std::fs::write(run_dir.join("meta.json"), &old_meta).unwrap();
        std::fs::write(run_dir.join("events.jsonl"), &old_log).unwrap();
    };
    let repair = || {
        env.ucg(&root)
            .args(["sdlc", "repair", "20260714-1200-big", "--yes"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    reset();
    let started = Instant::now();
    assert!(repair().wait().unwrap().success());
    let full_run = started.elapsed();
    let new_meta = std::fs::read(run_dir.join("meta.json")).unwrap();
    assert_ne!(new_meta, old_meta);

    let mut jitter = Jitter(0x5d1c);
    let mut window = full_run.as_micros() as u64;
    let (mut killed_mid_run, mut round) = (0, 0);
    while killed_mid_run < 50 {
        round += 1;
        assert!(
            round <= 400,
            "only {killed_mid_run} kills landed mid-run in 400 tries"
        );
        reset();
        let mut child = repair();
        std::thread::sleep(Duration::from_micros(jitter.next_below(window)));
        if child.try_wait().unwrap().is_none() {
            killed_mid_run += 1;
        } else {
            window = window * 4 / 5;
        }
        let _ = child.kill();
        let _ = child.wait();
        let meta_now = std::fs::read(run_dir.join("meta.json")).unwrap();
        assert!(
            meta_now == old_meta || meta_now == new_meta,
            "round {round}: meta.json is neither snapshot ({} bytes)",
            meta_now.len()
        );
        let log_now = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
        let added = log_now
            .strip_prefix(old_log.as_str())
            .expect("the old log is intact");
        assert!(
            added.is_empty()
                || (added.ends_with('\n')
                    && added.lines().count() == 1
                    && added.contains("\"event\":\"status.repaired\"")),
            "round {round}: events.jsonl gained {added:?}"
        );
        if !added.is_empty() {
            assert_eq!(
                meta_now, new_meta,
                "round {round}: the event is appended after meta.json is written"
            );
        }
    }
}
