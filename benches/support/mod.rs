//! The synthetic workload generator shared by the benchmarks: N reds, M decisions, K stories, and a
//! git repository of F files and C commits. Deterministic: the same sizes give the same bytes.

#![allow(dead_code)] // each benchmark uses the part it needs

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use ucg_git::hermetic;

/// The binary under measurement.
pub const BIN: &str = env!("CARGO_BIN_EXE_git-ucg");

/// `git-ucg ARGS` in `root`, away from the user's git configuration and artifact overrides.
pub fn ucg(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BIN);
    hermetic::isolate(&mut command)
        .current_dir(root)
        .args(args)
        .env_remove("ULTRACODE_IMPL_ARTIFACTS");
    command
}

/// `git ARGS` in `root`, away from the user's configuration: the comparison commands.
pub fn git_command(root: &Path, args: &[&str]) -> Command {
    let mut command = hermetic::git(root);
    command.args(args);
    command
}

/// A scratch directory; with `GIT_UCG_BENCH_KEEP=1` it stays (and is named) for profiling.
pub fn scratch() -> (PathBuf, Option<tempfile::TempDir>) {
    let dir = tempfile::tempdir().expect("tempdir");
    if std::env::var_os("GIT_UCG_BENCH_KEEP").is_some() {
        let path = dir.keep();
        eprintln!("workload kept in {}", path.display());
        return (path, None);
    }
    (dir.path().to_path_buf(), Some(dir))
}

/// The sizes of one synthetic artifact workload (the repository's are [`RepoShape`]).
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    pub reds: usize,
    pub decisions: usize,
}

/// The paths a generated workload lives at.
pub struct Generated {
    pub root: PathBuf,
    pub scan: PathBuf,
    pub impl_dir: PathBuf,
}

const KINDS: [&str; 4] = [
    "undecided-product",
    "undecided-architecture",
    "contradiction",
    "undefinable-done",
];

/// The i-th synthetic finding: (kind, source, decision_needed).
pub fn finding(i: usize) -> (String, String, String) {
    (
        KINDS[i % KINDS.len()].to_string(),
        format!("docs/spec-{:03}.md:{}", i % 211, 10 + i % 997),
        format!("Decide how subsystem {i} handles retries, timeouts and partial failure?"),
    )
}

/// Writes `scan.json` (N reds) and `impl/.decisions.json` (M answers: one in ten reds closed, the
/// rest answers to ids no scan produces, as an old run's file accumulates).
pub fn write_artifacts(root: &Path, workload: Workload) -> Generated {
    let impl_dir = root.join("impl");
    std::fs::create_dir_all(&impl_dir).expect("create impl dir");
    let reds: Vec<_> = (0..workload.reds)
        .map(|i| {
            let (kind, source, decision) = finding(i);
            serde_json::json!({"source": source, "kind": kind, "decision_needed": decision,
                               "evidence": format!("\"{source}: TBD\"")})
        })
        .collect();
    let scan = root.join("scan.json");
    std::fs::write(
        &scan,
        serde_json::json!({"reds": reds, "concerns": []}).to_string(),
    )
    .expect("write scan");

    // One answer per line, as an agent appending to the file writes it (~95 bytes an answer).
    let mut text = String::from("{\"decisions\": [\n");
    for j in 0..workload.decisions {
        let id = if j % 10 == 0 && j / 10 < workload.reds {
            let (kind, source, decision) = finding(j / 10);
            ucg_ultracode::ids::mint(&kind, &source, &decision)
        } else {
            let digest = (j as u64).wrapping_mul(2_654_435_761) & 0xffff_ffff_ffff;
            format!(
                "undecided-product:docs/old-{:04}.md:{digest:012x}",
                j % 5000
            )
        };
        let action = if j % 3 == 0 { "defer" } else { "close" };
        let comma = if j + 1 < workload.decisions { "," } else { "" };
        text.push_str(&format!(
            "  {{\"id\": \"{id}\", \"answer\": \"ok\", \"action\": \"{action}\"}}{comma}\n"
        ));
    }
    text.push_str("]}\n");
    std::fs::write(impl_dir.join(".decisions.json"), text).expect("write decisions");
    Generated {
        root: root.to_path_buf(),
        scan,
        impl_dir,
    }
}

/// The shape of a synthetic repository: `main` holds `files` files of `lines_per_file` lines after
/// `main_commits` commits; the epic branch `ultracode/epic-1` adds `stories` stories of
/// `commits_per_story` commits, each rewriting `files_per_commit` files (every `change_every`-th
/// line changes), with baseline and end markers and a sprint-status.yaml.
#[derive(Debug, Clone, Copy)]
pub struct RepoShape {
    pub files: usize,
    pub lines_per_file: usize,
    pub main_commits: usize,
    pub stories: usize,
    pub commits_per_story: usize,
    pub files_per_commit: usize,
    pub change_every: usize,
    /// Check the tip out into the work tree (false: the commits and refs only — HEAD resolves, the
    /// work tree holds nothing but what the bench writes; for repositories too large to check out).
    pub checkout: bool,
}

impl RepoShape {
    /// A repository with `files` files of five lines on `main` after `main_commits` commits, and
    /// no epic: the ground a synthetic run (see [`write_run`]) is laid on.
    pub fn plain(files: usize, main_commits: usize) -> RepoShape {
        RepoShape {
            files,
            lines_per_file: 5,
            main_commits,
            stories: 0,
            commits_per_story: 0,
            files_per_commit: 0,
            change_every: 1,
            checkout: true,
        }
    }
}

/// Builds the repository (through `git fast-import`, so even large ones take seconds) and checks
/// out the epic branch. Returns the first story's baseline and the epic's tip.
pub fn write_repo(root: &Path, shape: RepoShape) -> (String, String) {
    git(root, &["init", "--quiet", "--initial-branch=main"]);
    let mut stream = Vec::new();
    let mut mark = 0usize;
    let mut commit = |stream: &mut Vec<u8>,
                      branch: &str,
                      message: &str,
                      files: &[(String, String)],
                      parent: Option<usize>| {
        mark += 1;
        let when = 1_780_000_000 + mark * 60;
        let _ = writeln!(stream, "commit refs/heads/{branch}\nmark :{mark}");
        let _ = writeln!(stream, "committer Bench <bench@example.com> {when} +0000");
        let _ = writeln!(stream, "data {}\n{message}", message.len());
        if let Some(parent) = parent {
            let _ = writeln!(stream, "from :{parent}");
        }
        for (path, text) in files {
            let _ = writeln!(
                stream,
                "M 100644 inline {path}\ndata {}\n{text}",
                text.len()
            );
        }
        mark
    };
    let path_of = |f: usize| format!("src/mod{:03}/file{f}.txt", f % 100);
    let file_text = |f: usize, version: usize| {
        (0..shape.lines_per_file)
            .map(|line| {
                let v = if version > 0 && line % shape.change_every.max(1) == 0 {
                    version
                } else {
                    0
                };
                format!("line {line} of file {f}, version {v}\n")
            })
            .collect::<String>()
    };
    let all: Vec<_> = (0..shape.files)
        .map(|f| (path_of(f), file_text(f, 0)))
        .collect();
    let mut tip = commit(&mut stream, "main", "initial import", &all, None);
    for c in 1..shape.main_commits {
        let touched: Vec<_> = (0..3)
            .map(|k| {
                let f = (c * 7 + k * 13) % shape.files.max(1);
                (path_of(f), file_text(f, c))
            })
            .collect();
        tip = commit(
            &mut stream,
            "main",
            &format!("change {c}"),
            &touched,
            Some(tip),
        );
    }
    let mut epic_tip = tip;
    let mut story_marks = Vec::new();
    let mut version = 10_000;
    for s in 0..shape.stories {
        let baseline = epic_tip;
        for n in 0..shape.commits_per_story {
            version += 1;
            let files: Vec<_> = (0..shape.files_per_commit)
                .map(|k| {
                    let f = (s * 7919 + n * 104_729 + k * 7) % shape.files.max(1);
                    (path_of(f), file_text(f, version))
                })
                .collect();
            epic_tip = commit(
                &mut stream,
                "ultracode/epic-1",
                &format!("1-{}: step {n}", s + 1),
                &files,
                Some(epic_tip),
            );
        }
        story_marks.push((format!("1-{}", s + 1), baseline, epic_tip));
    }
    let _ = writeln!(stream, "done");
    let mut child = git_command(
        root,
        &[
            "fast-import",
            "--quiet",
            "--done",
            "--export-marks=.git/bench-marks",
        ],
    )
    .stdin(Stdio::piped())
    .spawn()
    .expect("run git fast-import");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&stream)
        .expect("feed fast-import");
    assert!(
        child.wait().expect("wait").success(),
        "git fast-import failed"
    );
    let marks = std::fs::read_to_string(root.join(".git/bench-marks")).expect("marks");
    let sha_of = |m: usize| {
        marks
            .lines()
            .find_map(|l| l.strip_prefix(&format!(":{m} ")))
            .unwrap_or_default()
            .to_string()
    };
    let impl_dir = root.join("_bmad-output/implementation-artifacts");
    std::fs::create_dir_all(&impl_dir).expect("impl dir");
    let mut sprint = String::from("development_status:\n  epic-1: in-progress\n");
    for (story, baseline, end) in &story_marks {
        std::fs::write(
            impl_dir.join(format!(".baseline-{story}")),
            format!("{}\n", sha_of(*baseline)),
        )
        .expect("marker");
        std::fs::write(
            impl_dir.join(format!(".commit-{story}")),
            format!("{}\n", sha_of(*end)),
        )
        .expect("marker");
        sprint.push_str(&format!("  {story}: done\n"));
    }
    std::fs::write(impl_dir.join("sprint-status.yaml"), sprint).expect("sprint status");
    std::fs::write(impl_dir.join("run-status.json"), "{\"epic\": \"1\"}\n").expect("heartbeat");
    let branch = if shape.stories > 0 {
        "ultracode/epic-1"
    } else {
        "main"
    };
    if shape.checkout {
        git(root, &["checkout", "--quiet", branch]);
    } else {
        git(
            root,
            &["symbolic-ref", "HEAD", &format!("refs/heads/{branch}")],
        );
    }
    let first = story_marks
        .first()
        .map(|(_, b, _)| sha_of(*b))
        .unwrap_or_default();
    (first, sha_of(epic_tip))
}

fn git(root: &Path, args: &[&str]) {
    let status = git_command(root, args).status().expect("run git");
    assert!(status.success(), "git {args:?} failed");
}

/// The median wall time of `runs` runs of the command `make` builds, in milliseconds.
pub fn time_runs(runs: usize, mut make: impl FnMut() -> Command) -> f64 {
    time_runs_exiting(runs, 0, &mut make)
}

/// As [`time_runs`], for a command whose expected exit status is `code` (a gate that blocks).
pub fn time_runs_exiting(runs: usize, code: i32, mut make: impl FnMut() -> Command) -> f64 {
    let mut samples = Vec::new();
    for _ in 0..runs {
        let mut command = make();
        command.stdout(Stdio::null());
        let started = std::time::Instant::now();
        let status = command.status().expect("run benchmark command");
        samples.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(status.code(), Some(code), "benchmark command: {command:?}");
    }
    median(samples)
}

/// The median wall times of two commands run alternately `runs` times each, in milliseconds:
/// interleaving spreads the machine's drift over both, so their ratio is fair.
pub fn time_pair(
    runs: usize,
    mut a: impl FnMut() -> Command,
    mut b: impl FnMut() -> Command,
) -> (f64, f64) {
    let mut samples = (Vec::new(), Vec::new());
    for _ in 0..runs {
        samples.0.push(time_runs(1, &mut a));
        samples.1.push(time_runs(1, &mut b));
    }
    (median(samples.0), median(samples.1))
}

/// [`time_pair`] for any number of commands, run in turn `runs` times each: their medians.
pub fn time_alternating(runs: usize, commands: &mut [&mut dyn FnMut() -> Command]) -> Vec<f64> {
    let mut samples = vec![Vec::new(); commands.len()];
    for _ in 0..runs {
        for (make, sample) in commands.iter_mut().zip(&mut samples) {
            sample.push(time_runs(1, &mut **make));
        }
    }
    samples.into_iter().map(median).collect()
}

/// Median of a sample of durations in milliseconds.
pub fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    let n = samples.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2.0
    }
}

/// Runs `command` under GNU time and returns its peak resident set in MiB (None without GNU time).
pub fn peak_rss_mib(command: &Command) -> Option<f64> {
    let mut timed = Command::new("/usr/bin/time");
    timed
        .args(["-f", "%M", "--"])
        .arg(command.get_program())
        .args(command.get_args());
    if let Some(dir) = command.get_current_dir() {
        timed.current_dir(dir);
    }
    let output = timed.stdout(Stdio::null()).output().ok()?;
    let text = String::from_utf8_lossy(&output.stderr);
    let kib: f64 = text.lines().last()?.trim().parse().ok()?;
    Some(kib / 1024.0)
}

/// The sizes of a synthetic stopped run (heartbeat, markers, escalations, ledger, REDs).
#[derive(Debug, Clone, Copy)]
pub struct RunShape {
    pub stories: usize,
    /// Typed sidecars; every third also has its raw Stop-hook marker.
    pub escalations: usize,
    /// Ledger rows in one table; every tenth is an open decision.
    pub ledger_rows: usize,
    pub reds: usize,
}

/// Writes a stopped run's artifacts under `<root>/_bmad-output/implementation-artifacts` and one
/// run folder with a decision log; story markers point at `sha`. Returns the file count written.
pub fn write_run(root: &Path, shape: RunShape, sha: &str) -> usize {
    let impl_dir = root.join("_bmad-output/implementation-artifacts");
    std::fs::create_dir_all(&impl_dir).expect("impl dir");
    let mut files = 0;
    let mut put = |name: String, text: String| {
        std::fs::write(impl_dir.join(name), text).expect("write artifact");
        files += 1;
    };
    let stories: Vec<_> = (1..=shape.stories)
        .map(|n| {
            serde_json::json!({"story": format!("1-{n}"), "phase": "gated",
                "verdict": if n % 5 == 0 { "defer" } else { "advance" },
                "dev_attempts": 1 + n % 3, "reloop_count": n % 2})
        })
        .collect();
    let heartbeat = serde_json::json!({
        "epic": "1", "story": format!("1-{}", shape.stories), "index": shape.stories,
        "total": shape.stories, "last_verdict": "escalate",
        "last_reasons": ["turn budget exceeded (turns 26/25)"], "reloop_count": 3,
        "stories": stories, "budget_used": {"turns": 26, "max_turns": 25},
        "profile": "production", "updated": "2026-06-04T19:02:11Z"});
    put(
        "run-status.json".into(),
        serde_json::to_string_pretty(&heartbeat).expect("json"),
    );
    for n in 1..=shape.stories {
        put(format!(".baseline-1-{n}"), format!("{sha}\n"));
        put(format!(".commit-1-{n}"), format!("{sha}\n"));
    }
    for n in 1..=shape.escalations {
        let sidecar = serde_json::json!({"kind": "budget-overrun",
            "source": format!(".escalation-e-{n}.md"),
            "decision_needed": "re-scope, split, or hand off the story",
            "evidence": format!("turns 26/25 on story e-{n}")});
        put(format!("escalation-e-{n}.json"), sidecar.to_string());
        if n % 3 == 0 {
            put(
                format!(".escalation-e-{n}.md"),
                "Turn budget exceeded.\n".into(),
            );
        }
    }
    let mut ledger = String::from(
        "# Deferred work\n\n| id | status | severity | story | source | reason |\n|---|---|---|---|---|---|\n",
    );
    for n in 1..=shape.ledger_rows {
        let (status, source) = if n % 10 == 0 {
            ("open", "decision")
        } else {
            ("resolved", "review")
        };
        ledger.push_str(&format!(
            "| d{n} | {status} | low | 1-{} | {source} | Follow-up number {n} on retries and timeouts. |\n",
            1 + n % shape.stories.max(1)
        ));
    }
    put("deferred-work.md".into(), ledger);
    let scan: Vec<_> = (0..shape.reds)
        .map(|i| {
            let (kind, source, decision) = finding(i);
            serde_json::json!({"source": source, "kind": kind, "decision_needed": decision,
                               "evidence": "TBD"})
        })
        .collect();
    let scan =
        ucg_ultracode::reds::parse_scan(serde_json::json!({"reds": scan}).to_string().as_bytes())
            .expect("scan");
    let registry =
        ucg_ultracode::reds::apply(scan, &[], &ucg_ultracode::decisions::IdSet::default())
            .expect("registry");
    put(".preflight-reds.json".into(), registry.to_pretty_json());
    let run = root.join(RUN_FOLDER);
    std::fs::create_dir_all(&run).expect("run folder");
    let log: String = (1..=shape.stories)
        .map(|n| format!("### Story 1-{n}\n\n```json\n{{\"verdict\": \"advance\"}}\n```\n\n"))
        .collect();
    std::fs::write(run.join(".decision-log.md"), log).expect("decision log");
    files
}

/// The run folder [`write_run`] makes, under the project root (its decision log included).
pub const RUN_FOLDER: &str = "_bmad-output/ultracode-goal/epic-1-20260604T172512Z";

/// Writes `IMPL/.decisions.json` with `n` answers to ids no scan produces (two in three defers),
/// one per line as an agent appending to the file writes it.
pub fn write_decisions(impl_dir: &Path, n: usize) {
    let mut text = String::from("{\"decisions\": [\n");
    for j in 0..n {
        let digest = (j as u64).wrapping_mul(2_654_435_761) & 0xffff_ffff_ffff;
        let action = if j % 3 == 0 { "close" } else { "defer" };
        let comma = if j + 1 < n { "," } else { "" };
        text.push_str(&format!(
            "  {{\"id\": \"undecided-product:docs/old-{:04}.md:{digest:012x}\", \"answer\": \"ok\", \"action\": \"{action}\"}}{comma}\n",
            j % 5000
        ));
    }
    text.push_str("]}\n");
    std::fs::write(impl_dir.join(".decisions.json"), text).expect("write decisions");
}

/// `runs` agentic-sdlc runs under `root/docs/superpowers/runs`, each with `events` event lines:
/// the phase events of phases 0–6 (phase 7 left open) and the rest ordinary events of the size the
/// pipeline writes. Names sort by date, newest last; every run reads as interrupted.
pub fn write_sdlc_runs(root: &Path, runs: usize, events: usize) {
    let base = root.join("docs/superpowers/runs");
    for r in 0..runs {
        let run_id = format!(
            "2026{:02}{:02}-{:02}{:02}-feat-{r}",
            1 + r / 400 % 12,
            1 + r / 16 % 28,
            r / 4 % 24,
            r % 4 * 15
        );
        let dir = base.join(&run_id);
        std::fs::create_dir_all(&dir).expect("run dir");
        let mut phases = serde_json::Map::new();
        for n in 0..=12 {
            let status = match n {
                0..=6 => "completed",
                7 => "running",
                _ => "pending",
            };
            phases.insert(
                n.to_string(),
                serde_json::json!({"status": status, "started_at": "2026-01-01T00:00:00Z"}),
            );
        }
        let meta = serde_json::json!({"run_id": run_id, "mode": "autonomous", "started_at": "2026-01-01T00:00:00Z",
            "task_input": "Add the thing", "branch": format!("feat-{r}"), "current_phase": 7, "status": "running",
            "phases": phases});
        std::fs::write(
            dir.join("meta.json"),
            serde_json::to_vec_pretty(&meta).expect("json"),
        )
        .expect("meta");
        let mut log = Vec::with_capacity(events * 240);
        let mut written = 0;
        for n in 0..=7 {
            for event in ["phase.started", "phase.completed"] {
                if n == 7 && event == "phase.completed" {
                    continue;
                }
                writeln!(log, "{{\"schema\":1,\"ts\":\"2026-01-01T00:{n:02}:00Z\",\"event\":\"{event}\",\"run_id\":\"{run_id}\",\"phase\":{n},\"actor\":\"sdlc-engine\",\"summary\":\"Phase {n}\",\"artifacts\":[],\"data\":{{}}}}").expect("write");
                written += 1;
            }
        }
        for i in written..events {
            writeln!(log, "{{\"schema\":1,\"ts\":\"2026-01-01T01:00:00Z\",\"event\":\"artifact.written\",\"run_id\":\"{run_id}\",\"phase\":7,\"actor\":\"sdlc-engine\",\"summary\":\"wrote src/module_{i}.rs for task {i}\",\"artifacts\":[\"evidence/task-{i}.json\"],\"data\":{{}}}}").expect("write");
        }
        std::fs::write(dir.join("events.jsonl"), log).expect("events");
    }
}

/// A DG-Anvil ledger of `n` lessons (four pattern words each, from a vocabulary of 500) and the
/// index the reference keeps beside it, as `git ucg lesson append` writes them.
pub fn write_lesson_ledger(ledger: &Path, n: usize) {
    use serde_json::{json, Map, Value};
    let dir = ledger.parent().expect("a directory");
    std::fs::create_dir_all(dir).expect("dir");
    let mut lines = Vec::with_capacity(n * 420);
    let mut by_pattern: Map<String, Value> = Map::new();
    let mut by_id: Map<String, Value> = Map::new();
    for i in 0..n {
        let id = format!("L-2026-{:02}-{:02}-{:08x}", 1 + i % 12, 1 + i % 28, i);
        let created = format!("2026-{:02}-{:02}", 1 + i % 12, 1 + i % 28);
        let pattern: Vec<String> = (0..4)
            .map(|k| format!("word{}", (i * 7 + k * 131) % 500))
            .collect();
        let lesson = json!({"anvil_ledger_entry_version": 1, "id": id, "created": created,
            "run_id": format!("r-{i:08x}"), "task_id": "T1", "criterion_id": "C2",
            "contract_gap": format!("the contract did not constrain case {i} of the rolling window"),
            "evidence": format!("verify probe {i}: expected 429 after 100 requests, saw 200"),
            "remediation": "count requests in a rolling sixty-second window per key",
            "pattern": pattern, "tags": ["rate-limit"]});
        serde_json::to_writer(&mut lines, &lesson).expect("json");
        lines.push(b'\n');
        for key in &pattern {
            by_pattern
                .entry(key.clone())
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
                .expect("array")
                .push(Value::from(id.clone()));
        }
        by_id.insert(id, json!({"created": created}));
    }
    std::fs::write(ledger, lines).expect("ledger");
    let index = json!({"by_pattern": by_pattern, "by_id": by_id});
    std::fs::write(
        ledger.with_file_name("ledger.index.json"),
        serde_json::to_vec(&index).expect("json"),
    )
    .expect("index");
}
