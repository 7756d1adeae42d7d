//! The dashboard, `--json`, `--prompt` and `--watch`: snapshots, read-only, fail-soft.

use crate::common::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const IMPL: &str = "_bmad-output/implementation-artifacts";

/// Snapshot settings filtering what depends on the day or the temporary directory.
fn settings(dir: &Path) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex::escape(&dir.display().to_string()), "[DIR]");
    settings.add_filter(r"\(\d+ \w+ ago\)", "([AGE])");
    settings.add_filter(r"\(in the future\)", "([AGE])");
    settings.add_filter(r#""age_seconds": -?\d+"#, r#""age_seconds": "[AGE]""#);
    settings
}

fn status(env: &TestEnv, dir: &Path, args: &[&str]) -> std::process::Output {
    unmeasured_deadline(env.ucg(dir).arg("status").args(args))
        .output()
        .unwrap()
}

/// Gives the prompt a deadline the test does not measure (a debug build on a loaded machine can
/// overrun the default 50 ms, and the prompt then prints its last value marked stale), through
/// git's environment configuration (`GIT_CONFIG_COUNT`), which ranks above the repository's.
fn unmeasured_deadline(command: &mut std::process::Command) -> &mut std::process::Command {
    command
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "ucg.prompt.timeoutMs")
        .env("GIT_CONFIG_VALUE_0", "600000")
}

fn ok(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    assert!(!stderr(out).contains("panicked"), "{}", stderr(out));
    stdout(out)
}

#[test]
fn the_dashboard_of_the_demo_run() {
    let env = TestEnv::new();
    let dir = env.demo();
    let text = ok(&status(&env, &dir, &[]));
    settings(&dir).bind(|| insta::assert_snapshot!(text));
    // --fast reads no history: no commit or line columns.
    let fast = ok(&status(&env, &dir, &["--fast"]));
    assert!(fast.contains("  story  phase      verdict   attempts  re-loops  baseline\n"));
    assert!(!fast.contains("+/-"));
}

#[test]
fn the_json_of_the_demo_run() {
    let env = TestEnv::new();
    let dir = env.demo();
    let text = ok(&status(&env, &dir, &["--json"]));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["schema"], "git-ucg.status/1");
    // Raw values: numbers stay numbers.
    assert_eq!(doc["run"]["index"], 3);
    assert_eq!(doc["run"]["budget"]["turns"], 26);
    // The two runs may straddle a second: the heartbeat's age is the one value that may differ.
    let ageless = |json: &str| {
        regex::Regex::new(r#""age_seconds": -?\d+"#)
            .unwrap()
            .replace_all(json, "")
            .into_owned()
    };
    assert_eq!(
        ageless(&ok(&status(&env, &dir, &["--format", "json"]))),
        ageless(&text),
        "--json is --format json"
    );
    settings(&dir).bind(|| insta::assert_snapshot!(text));
}

/// Copies a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The dashboard on each recorded compat status case (their inputs are vendored under
/// tests/fixtures/compat-status), in a directory that is not a repository, as the suite runs them.
#[test]
fn the_dashboard_of_the_compat_cases() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compat-status");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&cases)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    names.sort();
    assert!(names.len() >= 17, "the vendored cases are there");
    for case in names {
        let env = TestEnv::new();
        let work = env.path().join("case");
        std::fs::create_dir_all(&work).unwrap();
        if case.join("before").is_dir() {
            copy_tree(&case.join("before"), &work);
        }
        let args: Vec<String> =
            serde_json::from_slice(&std::fs::read(case.join("args.json")).unwrap()).unwrap();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let human = ok(&env.ucg(&work).arg("status").args(&args).output().unwrap());
        let json = ok(&env
            .ucg(&work)
            .args(["status", "--json"])
            .args(&args)
            .output()
            .unwrap());
        serde_json::from_str::<serde_json::Value>(&json).unwrap();
        let mut settings = settings(&work);
        settings.set_snapshot_suffix(name);
        settings.bind(|| insta::assert_snapshot!(human));
    }
}

/// Every file and directory under `dir`: bytes (files) and modification time.
fn stamps(dir: &Path) -> Vec<(PathBuf, Vec<u8>, std::time::SystemTime)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let meta = std::fs::symlink_metadata(&d).unwrap();
        found.push((d.clone(), Vec::new(), meta.modified().unwrap()));
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                found.push((path, bytes, meta.modified().unwrap()));
            }
        }
    }
    found.sort();
    found
}

/// Issue 32 item 9: the dashboard shows a bypass as it is recorded (the notes ref is watched).
#[test]
fn the_dashboard_shows_a_bypass_when_it_is_recorded() {
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();
    let watch = Watch::start(&env, &dir);
    let first = watch.next(Duration::from_secs(5));
    assert_eq!(first["bypasses"], serde_json::json!([]));
    let out = env
        .git_command(&dir)
        .args(["commit", "-q", "--allow-empty", "--no-verify", "-m", "past"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = watch.until(|doc| doc["bypasses"].as_array().is_some_and(|b| b.len() == 1));
    assert_eq!(doc["bypasses"][0]["via"], "commit");
    assert!(watch.interrupt().success());
}

/// Starts `status --watch --json` and reads its documents line by line.
struct Watch {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Watch {
    fn start(env: &TestEnv, dir: &Path) -> Watch {
        let mut child = env
            .ucg(dir)
            .args(["status", "--watch", "--json", "--fast"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Watch { child, lines }
    }

    fn next(&self, within: Duration) -> serde_json::Value {
        let line = self
            .lines
            .recv_timeout(within)
            .expect("a document within the time");
        serde_json::from_str(&line).unwrap()
    }

    /// The first document (within 5 s) that `holds`: a change may come in several steps (a
    /// file truncated, then written), each a document of its own.
    fn until(&self, holds: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let doc = self.next(left);
            if holds(&doc) {
                return doc;
            }
        }
    }

    /// Ctrl-C, and its exit status.
    fn interrupt(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the watch did not stop on Ctrl-C"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn the_watch_streams_a_document_per_change_and_ends_on_ctrl_c() {
    let env = TestEnv::new();
    let dir = env.demo();
    let watch = Watch::start(&env, &dir);
    let first = watch.next(Duration::from_secs(5));
    assert_eq!(first["run"]["story"], "7-3");
    let heartbeat = dir.join(IMPL).join("run-status.json");
    let text = std::fs::read_to_string(&heartbeat).unwrap();
    write(
        &heartbeat,
        &text.replace("\"story\": \"7-3\",", "\"story\": \"7-2\","),
    );
    watch.until(|doc| doc["run"]["story"] == "7-2");

    // The artifact directory deleted and re-created: the watch follows it.
    let impl_dir = dir.join(IMPL);
    let saved = env.path().join("saved-impl");
    std::fs::rename(&impl_dir, &saved).unwrap();
    watch.until(|doc| doc["sources"]["heartbeat"] == "absent");
    std::fs::rename(&saved, &impl_dir).unwrap();
    watch.until(|doc| doc["run"]["story"] == "7-2");
    write(&heartbeat, &text);
    watch.until(|doc| doc["run"]["story"] == "7-3");

    assert_eq!(watch.interrupt().code(), Some(0), "Ctrl-C ends with 0");
}

#[test]
fn no_form_writes_under_the_artifacts() {
    let env = TestEnv::new();
    let dir = env.demo();
    let output = dir.join("_bmad-output");
    // The watch first: it is the one form that needs a change to show anything, and that change
    // (made by the test) is part of the state compared afterwards.
    let watch = Watch::start(&env, &dir);
    watch.next(Duration::from_secs(5));
    let heartbeat = dir.join(IMPL).join("run-status.json");
    let text = std::fs::read_to_string(&heartbeat).unwrap();
    write(&heartbeat, &text.replace("\"index\": 3", "\"index\": 2"));
    let before = stamps(&output);
    watch.until(|doc| doc["run"]["index"] == 2);
    assert_eq!(watch.interrupt().code(), Some(0));
    assert_eq!(stamps(&output), before, "--watch wrote nothing");

    for args in [
        &[][..],
        &["--fast"],
        &["--json"],
        &["--format", "markdown"],
        &["--prompt"],
        &["--prompt"],
        &["--rev", "HEAD", "--json"],
    ] {
        ok(&status(&env, &dir, args));
        assert_eq!(stamps(&output), before, "status {args:?} wrote nothing");
    }
}

/// Every way an artifact can be broken, in every view: exit 0, never a panic.
#[test]
fn broken_artifacts_are_shown_as_what_they_are() {
    let artifacts = [
        format!("{IMPL}/run-status.json"),
        format!("{IMPL}/.preflight-reds.json"),
        format!("{IMPL}/.decisions.json"),
        format!("{IMPL}/deferred-work.md"),
        format!("{IMPL}/escalation-7-3.json"),
        format!("{IMPL}/.baseline-7-2"),
        format!("{IMPL}/.commit-7-1"),
        "_bmad-output/ultracode-goal/epic-7-20260604T172512Z/.decision-log.md".to_string(),
    ];
    let env = TestEnv::new();
    let pristine = env.demo();
    for (n, artifact) in artifacts.iter().enumerate() {
        for (m, breakage) in ["absent", "empty", "garbage", "not utf-8", "a directory"]
            .iter()
            .enumerate()
        {
            let dir = env.path().join(format!("case-{n}-{m}"));
            copy_tree(&pristine, &dir);
            let path = dir.join(artifact);
            let _ = std::fs::remove_file(&path);
            match *breakage {
                "absent" => {}
                "empty" => write(&path, ""),
                "garbage" => write(&path, "{\"reds\": [tru"),
                "not utf-8" => std::fs::write(&path, b"\xff\xfe{}\x80").unwrap(),
                _ => std::fs::create_dir_all(path.join("inside")).unwrap(),
            }
            for args in [
                &[][..],
                &["--json"],
                &["--format", "markdown"],
                &["--prompt"],
            ] {
                let out = status(&env, &dir, args);
                let text = ok(&out);
                if args == ["--json"] {
                    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
                    let name = artifact.rsplit('/').next().unwrap();
                    let (source, expected) = match (name, *breakage) {
                        ("deferred-work.md", "absent") => ("deferred_work", "absent"),
                        // Markdown is free text: empty or odd is still a ledger, a log.
                        ("deferred-work.md", "empty" | "garbage") => ("deferred_work", "ok"),
                        ("deferred-work.md", _) => ("deferred_work", "unreadable"),
                        // Without its log, a folder is no run: there is no log to read.
                        (".decision-log.md", "absent" | "a directory") => {
                            ("decision_log", "absent")
                        }
                        (".decision-log.md", "empty" | "garbage") => ("decision_log", "ok"),
                        (".decision-log.md", _) => ("decision_log", "unreadable"),
                        (_, breakage) => {
                            let source = match name {
                                "run-status.json" => "heartbeat",
                                ".preflight-reds.json" => "registry",
                                ".decisions.json" => "decisions",
                                _ => continue,
                            };
                            (
                                source,
                                if breakage == "absent" {
                                    "absent"
                                } else {
                                    "unreadable"
                                },
                            )
                        }
                    };
                    assert_eq!(
                        doc["sources"][source], expected,
                        "{artifact} {breakage}: {text}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_hundred_megabyte_ledger_is_read_without_trouble() {
    let env = TestEnv::new();
    let dir = env.demo();
    let ledger = dir.join(IMPL).join("deferred-work.md");
    let mut text = String::from(
        "| id | status | severity | story | reason | source |\n|---|---|---|---|---|---|\n",
    );
    let row = "| d | resolved | low | 7-1 | a reason long enough to make the row about a hundred bytes wide, padded | review |\n";
    while text.len() < 100 << 20 {
        text.push_str(row);
    }
    text.push_str("| dz | open | high | 7-3 | the last row | decision |\n");
    write(&ledger, &text);
    let doc: serde_json::Value =
        serde_json::from_str(&ok(&status(&env, &dir, &["--json", "--fast"]))).unwrap();
    assert_eq!(doc["sources"]["deferred_work"], "ok");
    assert_eq!(doc["deferred_work"][0]["id"], "dz", "open rows first");
    assert_eq!(doc["pending"]["counts"]["decision"], 1);
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R1E1D\n"
    );
}

#[test]
fn without_an_artifact_directory_it_stops_with_2() {
    let env = TestEnv::new();
    for args in [&[][..], &["--json"], &["--format", "markdown"]] {
        let out = status(&env, env.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        // As the reference's argument parser: the flag that would locate the run, and the usage.
        let message = stderr(&out);
        assert!(
            flat(&message).contains("not in a git repository"),
            "{message}"
        );
        assert!(
            flat(&message).contains("pass --impl-artifacts DIR"),
            "{message}"
        );
        assert!(
            message.ends_with("usage: git ucg status [OPTIONS]\n"),
            "{message}"
        );
        assert!(stdout(&out).is_empty());
    }
    // The same for a nested subcommand, and as one JSON line where the writer speaks JSON.
    let out = env
        .ucg(env.path())
        .args(["budget", "show"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).ends_with("usage: git ucg budget show [OPTIONS] [STORY]\n"),
        "{}",
        stderr(&out)
    );
    let out = env
        .ucg(env.path())
        .args(["reds", "apply", "--from-sidecar"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(
        line["error"].as_str().unwrap().contains("--impl-artifacts"),
        "{line}"
    );
    // The prompt is the exception: outside a repository it prints nothing, successfully.
    let out = status(&env, env.path(), &["--prompt"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

/// The demo's cached segment (`ucg 7 3/3 …`) rewritten with `position` in place of `3/3`, its
/// stamps kept: what the next prompt prints tells whether it served the cache. Returns the cache
/// as it was.
fn rewrite_cached(cache: &Path, position: &str) -> String {
    let cached = std::fs::read_to_string(cache).unwrap();
    std::fs::write(
        cache,
        reseal_cache(&cached.replace("ucg 7 3/3", &format!("ucg 7 {position}"))),
    )
    .unwrap();
    cached
}

#[test]
fn the_prompt_shows_position_and_pending_and_serves_from_its_cache() {
    let env = TestEnv::new();
    let dir = env.demo();
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R1E1D\n"
    );
    // From a subdirectory: the same.
    assert_eq!(
        ok(&status(&env, &dir.join("_bmad-output"), &["--prompt"])),
        "ucg 7 3/3 ⚑2R1E1D\n"
    );
    let cache = dir.join(".git/ucg/prompt-cache");
    assert!(cache.is_file(), "the cache lives under the git directory");

    // Stamps unchanged: the cached segment is what is printed, without reading the artifacts.
    let cached = rewrite_cached(&cache, "CACHED");
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 CACHED ⚑2R1E1D\n"
    );
    // A cache written by something else prints no control character either.
    std::fs::write(&cache, &cached).unwrap();
    rewrite_cached(&cache, "\u{1b}]0;x\u{7}EVIL");
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 ]0;xEVIL ⚑2R1E1D\n"
    );
    std::fs::write(&cache, &cached).unwrap();

    // One artifact changed: computed again.
    let decisions = dir.join(IMPL).join(".decisions.json");
    let registry: serde_json::Value = serde_json::from_slice(
        &std::fs::read(dir.join(IMPL).join(".preflight-reds.json")).unwrap(),
    )
    .unwrap();
    let first_red = registry["reds"][0]["id"].as_str().unwrap();
    write(
        &decisions,
        &format!("{{\"decisions\": [{{\"id\": \"{first_red}\", \"answer\": \"24h\", \"action\": \"close\"}}]}}\n"),
    );
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑1R1E1D\n"
    );

    // A corrupt registry: the RED count is unknown, flagged `!`.
    write(&dir.join(IMPL).join(".preflight-reds.json"), "{");
    assert_eq!(ok(&status(&env, &dir, &["--prompt"])), "ucg 7 3/3 ⚑!1E1D\n");

    // No run and nothing pending: nothing at all.
    std::fs::remove_dir_all(dir.join(IMPL)).unwrap();
    assert_eq!(ok(&status(&env, &dir, &["--prompt"])), "");
    // A repository without any run.
    let plain = env.repo("plain");
    assert_eq!(ok(&status(&env, &plain, &["--prompt"])), "");
}

#[test]
fn the_prompt_counts_escalation_files_by_name_through_their_directory() {
    let env = TestEnv::new();
    let dir = env.demo();
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R1E1D\n"
    );
    let cache = dir.join(".git/ucg/prompt-cache");
    let cached = rewrite_cached(&cache, "CACHED");
    assert!(
        !cached.contains("escalation-7-3"),
        "no stamp per escalation file: {cached}"
    );
    // What a sidecar or a marker says does not change the count: edited in place, unreadable or
    // not, the segment is served from the cache, and is what a computation would give.
    let sidecar = dir.join(IMPL).join("escalation-7-3.json");
    std::fs::write(&sidecar, "{ not json").unwrap();
    std::fs::write(dir.join(IMPL).join(".escalation-7-3.md"), "rewritten\n").unwrap();
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 CACHED ⚑2R1E1D\n"
    );
    std::fs::remove_file(&cache).unwrap();
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R1E1D\n"
    );
    // A file added to the directory or taken from it changes the directory's stamp.
    rewrite_cached(&cache, "CACHED");
    write(
        &dir.join(IMPL).join("escalation-7-4.json"),
        r#"{"kind": "budget-overrun", "source": ".escalation-7-4.md", "decision_needed": "split the story", "evidence": "turns 30/25"}"#,
    );
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R2E1D\n"
    );
    std::fs::remove_file(&sidecar).unwrap();
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R2E1D\n",
        "the marker stands in for it"
    );
    std::fs::remove_file(dir.join(IMPL).join(".escalation-7-3.md")).unwrap();
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R1E1D\n"
    );
}

#[test]
fn past_its_deadline_the_prompt_prints_the_last_value_marked_stale() {
    let env = TestEnv::new();
    let dir = env.demo();
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R1E1D\n"
    );
    // The deadline from the repository's configuration, already passed when it is read.
    env.git(&dir, &["config", "ucg.prompt.timeoutMs", "0"]);
    let prompt = || env.ucg(&dir).args(["status", "--prompt"]).output().unwrap();
    let heartbeat = dir.join(IMPL).join("run-status.json");
    let text = std::fs::read_to_string(&heartbeat).unwrap();
    write(&heartbeat, &text.replace("\"index\": 3", "\"index\": 2"));
    assert_eq!(
        ok(&prompt()),
        "ucg 7 3/3 ⚑2R1E1D?\n",
        "the last value, marked stale"
    );
    // The work finishes in the background; a later prompt serves the new value from the cache.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let now = ok(&prompt());
        if now == "ucg 7 2/3 ⚑2R1E1D\n" {
            break;
        }
        assert!(Instant::now() < deadline, "still {now:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One background refresh at a time: while one holds `.git/ucg/prompt-refresh.lock`, another
/// started by a later prompt ends at once without computing or writing the cache.
#[test]
fn a_second_background_refresh_leaves_the_work_to_the_first() {
    let env = TestEnv::new();
    let dir = env.demo();
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 3/3 ⚑2R1E1D\n"
    );
    let heartbeat = dir.join(IMPL).join("run-status.json");
    let text = std::fs::read_to_string(&heartbeat).unwrap();
    write(&heartbeat, &text.replace("\"index\": 3", "\"index\": 2"));
    let cache = dir.join(".git/ucg/prompt-cache");
    let before = std::fs::read(&cache).unwrap();
    let background = || {
        env.ucg(&dir)
            .args(["status", "--prompt"])
            .env("GIT_UCG_PROMPT_BACKGROUND", "1")
            .output()
            .unwrap()
    };
    let running = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".git/ucg/prompt-refresh.lock"))
        .unwrap();
    running.lock().unwrap();
    let out = background();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        std::fs::read(&cache).unwrap(),
        before,
        "left to the running one"
    );
    drop(running);
    assert_eq!(ok(&background()), "ucg 7 2/3 ⚑2R1E1D\n");
    assert_eq!(
        ok(&status(&env, &dir, &["--prompt"])),
        "ucg 7 2/3 ⚑2R1E1D\n",
        "served from the refreshed cache"
    );
}

#[test]
fn the_prompt_in_a_linked_worktree_and_under_a_ceiling() {
    let env = TestEnv::new();
    let dir = env.demo();
    let linked = env.path().join("linked");
    env.git(
        &dir,
        &["worktree", "add", "-q", linked.to_str().unwrap(), "main"],
    );
    // The linked worktree (main) has no run of its own: its own artifacts, none.
    assert_eq!(ok(&status(&env, &linked, &["--prompt"])), "");
    write(
        &linked.join(IMPL).join("run-status.json"),
        r#"{"epic": "8", "index": 1, "total": 2}"#,
    );
    assert_eq!(ok(&status(&env, &linked, &["--prompt"])), "ucg 8 1/2\n");
    assert!(
        dir.join(".git/worktrees/linked/ucg/prompt-cache").is_file(),
        "each worktree caches its own segment"
    );
    // A ceiling above the work tree hides the repository from a subdirectory, as it does for git.
    let sub = dir.join("_bmad-output");
    let out = env
        .ucg(&sub)
        .env("GIT_CEILING_DIRECTORIES", &dir)
        .args(["status", "--prompt"])
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "");
    // GIT_DIR hands over to gitoxide's discovery.
    let out = unmeasured_deadline(
        env.ucg(env.path())
            .env("GIT_DIR", dir.join(".git"))
            .env("GIT_WORK_TREE", &dir)
            .args(["status", "--prompt"]),
    )
    .output()
    .unwrap();
    assert_eq!(stdout(&out), "ucg 7 3/3 ⚑2R1E1D\n");
}

/// Item 9 of issue 17: on a terminal the live view fits the screen with the header (epic, story,
/// phase) and the pending count on top, the rest elided with a count and the quit hint last
/// (issue 34 item 7); Ctrl-C ends it with
/// exit 0 even through `git ucg`, whose `git` would die of the signal (exit 130).
#[test]
fn the_live_view_keeps_its_header_and_ctrl_c_ends_it_with_0_through_git() {
    use crate::pty::Terminal;
    let env = TestEnv::new();
    let dir = env.demo();
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = env.git_command(&dir);
    command
        .args(["ucg", "status", "--watch", "--fast"])
        .env("PATH", path);
    let mut t = Terminal::spawn(command, 20, 100);
    let text = t.wait_for("more lines");
    let frame = text
        .rsplit("\x1b[H\x1b[2J")
        .next()
        .unwrap()
        .replace("\r\n", "\n");
    let lines: Vec<&str> = frame.lines().collect();
    assert!(
        lines.len() <= 19,
        "fits 20 rows, the cursor on the last:\n{frame}"
    );
    assert_eq!(
        lines[0], "Epic 7  story 7-3 (3 of 3)  phase escalated",
        "{frame}"
    );
    assert!(
        lines.contains(&"Pending decisions: 4 (2 REDs, 1 escalation, 1 decision)"),
        "{frame}"
    );
    // The last line says how to leave (issue 34 item 7); the elision count just above it.
    assert_eq!(
        lines.last().copied(),
        Some("(q or Ctrl-C quits)"),
        "{frame}"
    );
    let elided = lines[lines.len() - 2];
    assert!(
        elided.starts_with("… ") && elided.contains("git ucg status") && elided.contains("Stories"),
        "{frame}"
    );
    assert!(!t.is_restored(), "the keys are read, not signalled");
    t.send(&[3]);
    assert_eq!(
        t.wait().code(),
        Some(0),
        "Ctrl-C ends with 0:\n{}",
        t.text()
    );
    assert!(t.is_restored(), "the terminal is as it was");
}
