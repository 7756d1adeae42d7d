use crate::common::*;

#[test]
fn the_markdown_view_of_the_demo_run() {
    let env = TestEnv::new();
    let dir = env.demo();
    let before = snapshot(&dir.join("_bmad-output"));
    // Located from the configuration, the run folder is the heartbeat epic's.
    let out = env
        .ucg(&dir)
        .args(["status", "--format", "markdown"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
    assert_eq!(
        snapshot(&dir.join("_bmad-output")),
        before,
        "status writes nothing"
    );
}

#[test]
fn outside_a_repository_with_explicit_paths() {
    let env = TestEnv::new();
    let out = env
        .ucg(env.path())
        .args([
            "status",
            "--format",
            "markdown",
            "--impl-artifacts",
            "./nowhere//",
            "--runs-root",
            "none",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "no run: nowhere/run-status.json not found\n\n## Runs\n\n- n/a\n"
    );
}

/// status_render.py writes `n/a` only for a missing budget side: an empty string prints as itself.
#[test]
fn the_markdown_budget_line_prints_an_empty_side_as_itself() {
    let env = TestEnv::new();
    let budget_line = |budget: &str| {
        write(
            &env.path().join("impl/run-status.json"),
            &format!(r#"{{"epic": "7", "budget_used": {budget}}}"#),
        );
        let out = env
            .ucg(env.path())
            .args([
                "status",
                "--format",
                "markdown",
                "--impl-artifacts",
                "impl",
                "--runs-root",
                "none",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .find(|l| l.starts_with("- Budget used:"))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        budget_line(r#"{"turns": 9, "max_turns": ""}"#),
        "- Budget used: 9 of  turns [machine-derived]"
    );
    assert_eq!(
        budget_line(r#"{"turns": "", "max_turns": null}"#),
        "- Budget used:  of n/a turns [machine-derived]"
    );
}

#[test]
fn a_hunk_viewer_on_path_adds_its_line() {
    let env = TestEnv::new();
    let dir = env.demo();
    let bin = env.path().join("bin");
    write_executable(&bin.join("hunk"), b"#!/bin/sh\nexit 0\n");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = env
        .ucg(&dir)
        .env("PATH", path)
        .args(["status", "--format", "markdown"])
        .output()
        .unwrap();
    let text = stdout(&out);
    let end_7_1 =
        std::fs::read_to_string(dir.join("_bmad-output/implementation-artifacts/.commit-7-1"))
            .unwrap();
    assert!(
        text.contains(&format!("  - hunk show {}", end_7_1.trim())),
        "{text}"
    );
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("  - hunk show"))
        .map(|l| format!("{l}\n"))
        .collect();
    let plain = env
        .ucg(&dir)
        .args(["status", "--format", "markdown"])
        .output()
        .unwrap();
    assert_eq!(
        without,
        stdout(&plain),
        "removing the viewer lines gives the plain render"
    );
}

#[test]
fn runs_lists_the_run_folders_live_then_terminal() {
    let env = TestEnv::new();
    let dir = env.demo();
    let runs = |env: &TestEnv| -> serde_json::Value {
        let out = env.ucg(&dir).args(["runs", "--json"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let doc = runs(&env);
    assert_eq!(doc["schema"], "git-ucg.runs/1");
    assert_eq!(doc["runs"][0]["name"], "epic-7-20260604T172512Z");
    assert_eq!(doc["runs"][0]["epic"], "7");
    // Issue 34 item 5: the demo's heartbeat beat months ago, so its run has stopped, whatever
    // the decision log's time; a heartbeat updated now makes it live, as it makes `goal show`
    // call a pursuit touched now live (one rule: six hours).
    assert_eq!(doc["runs"][0]["state"], "stopped");
    assert_eq!(doc["runs"][0]["last_activity"], "2026-06-04T19:02:11Z");
    let heartbeat = dir.join("_bmad-output/implementation-artifacts/run-status.json");
    let beat = std::fs::read_to_string(&heartbeat).unwrap();
    let now = env
        .command("date", &dir)
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    let now = stdout(&now).trim().to_string();
    write(&heartbeat, &beat.replace("2026-06-04T19:02:11Z", &now));
    let doc = runs(&env);
    assert_eq!(doc["runs"][0]["state"], "live");
    assert_eq!(doc["runs"][0]["last_activity"], now.as_str());
    let status = stdout(
        &env.ucg(&dir)
            .args(["status", "--no-pager"])
            .output()
            .unwrap(),
    );
    assert!(status.contains("(current)  live"), "{status}");
    write(&heartbeat, &beat);
    let status = stdout(
        &env.ucg(&dir)
            .args(["status", "--no-pager"])
            .output()
            .unwrap(),
    );
    assert!(status.contains("(current)  stopped"), "{status}");
    write(
        &dir.join("_bmad-output/ultracode-goal/epic-7-20260604T172512Z/run-report.md"),
        "done\n",
    );
    write(
        &dir.join("_bmad-output/ultracode-goal/improvement-queue/hc.md"),
        "not a run\n",
    );
    let doc = runs(&env);
    assert_eq!(doc["runs"].as_array().unwrap().len(), 1);
    assert_eq!(doc["runs"][0]["state"], "terminal");
}

#[test]
fn rev_reads_the_committed_run_not_the_work_tree() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(&dir, &["add", "-A"]);
    env.git(&dir, &["commit", "-q", "-m", "run artifacts"]);
    let heartbeat = dir.join("_bmad-output/implementation-artifacts/run-status.json");
    let committed = std::fs::read_to_string(&heartbeat).unwrap();
    write(
        &heartbeat,
        &committed.replace("\"epic\": \"7\"", "\"epic\": \"changed-in-work-tree\""),
    );

    let status = |args: &[&str]| {
        let out = env.ucg(&dir).arg("status").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let json = |args: &[&str]| -> serde_json::Value {
        serde_json::from_str(&status(&[&["--json"], args].concat())).unwrap()
    };
    assert_eq!(json(&[])["run"]["epic"], "changed-in-work-tree");
    assert_eq!(json(&[])["rev"], serde_json::Value::Null);
    let at_head = json(&["--rev", "HEAD"]);
    assert_eq!(at_head["run"]["epic"], "7");
    assert_eq!(at_head["rev"], "HEAD");
    assert_eq!(at_head["runs"][0]["name"], "epic-7-20260604T172512Z");
    assert!(
        at_head["decision_log"]["lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == "```json"),
        "the decision log tail comes from the commit too"
    );
    assert_eq!(at_head["pending"]["counts"]["red"], 2);
    assert_eq!(at_head["stories"][0]["commits"], 2);

    let markdown = status(&["--format", "markdown"]);
    assert!(markdown.contains("- Epic: changed-in-work-tree"));
    let markdown_at_head = status(&["--format", "markdown", "--rev", "HEAD"]);
    assert!(
        markdown_at_head.contains("- Epic: 7\n"),
        "{markdown_at_head}"
    );
    assert!(status(&["--rev", "HEAD"]).starts_with("(artifacts as of HEAD)\nEpic 7 "));

    // A commit without artifacts: no run, exit 0, in every form.
    assert!(flat(&status(&["--rev", "main"])).contains("No run: "));
    assert!(status(&["--rev", "main", "--format", "markdown"]).starts_with("no run: "));
    let none = json(&["--rev", "main"]);
    assert_eq!(none["run"], serde_json::Value::Null);
    assert_eq!(none["sources"]["heartbeat"], "absent");
}
