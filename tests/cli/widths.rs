//! Issue 34 item 3: every human output fits the terminal's columns — 80 when it is not a
//! terminal, or `COLUMNS` — wrapping at spaces, never inside a word, an id or a path. Each view
//! of the demo is shown at 80 and at 120 columns (insta snapshots), and every line checked.

use crate::common::*;
use std::path::Path;

/// The views a person reads, on the demo run (hooks installed): what each runs.
const VIEWS: &[(&str, &[&str])] = &[
    ("pending", &["pending"]),
    ("status", &["status"]),
    ("gate", &["gate"]),
    ("resume", &["resume"]),
    ("runs", &["runs"]),
    ("epic", &["epic"]),
    ("hooks_status", &["hooks", "status"]),
    (
        "goal_show",
        &["goal", "--session", "demo", "--omt-dir", ".omt", "show"],
    ),
    (
        "lesson_query",
        &["lesson", "query", "rate", "--ledger", "anvil/ledger.jsonl"],
    ),
    ("sdlc_list", &["sdlc", "list"]),
    (
        "sdlc_status",
        &["sdlc", "status", "20260604-1000-feat-rate-limit"],
    ),
    (
        "sdlc_show",
        &["sdlc", "show", "20260604-1000-feat-rate-limit"],
    ),
    (
        "lesson_escalated",
        &["lesson", "escalated", "--state", "anvil/state.json"],
    ),
];

/// A line fits when it is no wider than `columns`, or when what makes it wider cannot be
/// broken: one word (an id, a path) after its indent, a command to copy, or agentic-sdlc's
/// status line, which its format says is machine-parsed and so one line.
fn fits(line: &str, columns: usize) -> bool {
    let body = line.trim_start();
    line.chars().count() <= columns
        || !body.contains(' ')
        || body.starts_with("git ")
        || body.contains("  status=")
}

fn assert_fits(name: &str, text: &str, columns: usize) {
    for line in text.lines() {
        assert!(fits(line, columns), "{name} at {columns}: {line:?}\n{text}");
    }
}

fn view(env: &TestEnv, dir: &Path, args: &[&str], columns: usize) -> String {
    let out = env
        .ucg(dir)
        .args(args)
        .env("COLUMNS", columns.to_string())
        .output()
        .unwrap();
    format!("{}{}", stdout(&out), stderr(&out))
}

/// Paths and ages that differ from run to run (the binary's path: by checkout).
fn stable(text: &str, dir: &Path) -> String {
    text.replace(&dir.display().to_string(), "[DEMO]")
        .replace(BIN, "[BIN]")
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({filters => vec![
        (r"\(\d+ \w+ ago\)", "([AGE])"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z) \(\d+s idle", "[NOW] ([IDLE]"),
        (r"\d+ minutes? ago|just now", "[AGE]"),
        // When the answers were given (a timestamp is always 20 characters, and so is this).
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "[TIME--------------]"),
    ]}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn every_view_fits_80_and_120_columns() {
    let env = TestEnv::new();
    let dir = env.demo_with_hooks();
    for (name, args) in VIEWS {
        for columns in [80, 120] {
            let text = stable(&view(&env, &dir, args, columns), &dir);
            assert_fits(name, &text, columns);
            snapshot(&format!("{name}_{columns}"), &text);
        }
    }
}

/// What a hook says when it refuses, and the hand-back of a pass, at both widths.
#[test]
fn the_refusal_and_the_hand_back_fit() {
    for columns in [80, 120] {
        let env = TestEnv::new();
        let dir = env.demo_with_hooks();
        write(&dir.join("README.md"), "changed\n");
        let out = env
            .git_command(&dir)
            .args(["commit", "-q", "-a", "-m", "work"])
            .env("COLUMNS", columns.to_string())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let refusal = stable(&stderr(&out), &dir);
        assert_fits("refusal", &refusal, columns);
        // Never inside a word: the refusal of issue 34 broke `[undecided-archit` / `ecture]`.
        assert!(refusal.contains("undecided-architecture"), "{refusal}");
        snapshot(&format!("commit_refusal_{columns}"), &refusal);
        let args = [
            "resolve",
            "--close",
            "7662",
            "--answer",
            "24 hours",
            "--close",
            "4b4f",
            "--answer",
            "split the story in two",
        ];
        let hand_back = stable(&view(&env, &dir, &args, columns), &dir);
        assert_fits("hand-back", &hand_back, columns);
        snapshot(&format!("hand_back_{columns}"), &hand_back);
        let after = stable(&view(&env, &dir, &["status"], columns), &dir);
        assert_fits("status after", &after, columns);
        snapshot(&format!("status_after_a_close_{columns}"), &after);
    }
}

/// The demo at 80 and 120 columns.
#[test]
fn the_demo_fits() {
    for columns in [80, 120] {
        let env = TestEnv::new();
        let dir = env.path().join("demo");
        let out = env
            .ucg(env.path())
            .args(["demo", dir.to_str().unwrap()])
            .env("COLUMNS", columns.to_string())
            .output()
            .unwrap();
        let text = stable(&stdout(&out), &dir);
        assert_fits("demo", &text, columns);
        snapshot(&format!("demo_{columns}"), &text);
    }
}

/// The guided pass, as its questions and answers appear, at both widths.
#[test]
fn the_guided_pass_fits() {
    for columns in [80, 120] {
        let env = TestEnv::new();
        let dir = env.demo();
        let out = output_with_stdin(
            env.ucg(&dir)
                .args(["resolve", "--interactive"])
                .env("COLUMNS", columns.to_string()),
            b"c\n\nExpire after 24 hours of inactivity, and at once on a password change\ns\nd\n\nq\n",
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        // Each prompt's line ends where the person's Enter would end it on a terminal.
        let mut said = stable(&stderr(&out), &dir);
        for prompt in ["(Enter: skip)? ", "one line): ", "(optional): "] {
            said = said.replace(prompt, &format!("{}\n", prompt.trim_end()));
        }
        assert_fits("guided pass", &said, columns);
        snapshot(&format!("guided_pass_{columns}"), &said);
    }
}

/// The live dashboard on a terminal of 80 and of 120 columns: each frame's lines fit.
#[test]
fn the_live_dashboard_fits_its_terminal() {
    use crate::pty::Terminal;
    for columns in [80u16, 120] {
        let env = TestEnv::new();
        let dir = env.demo();
        let mut command = env.ucg(&dir);
        command.args(["status", "--watch", "--fast"]);
        let mut t = Terminal::spawn(command, 60, columns);
        let text = t.wait_for("(q or Ctrl-C quits)");
        let frame = text
            .rsplit("\x1b[H\x1b[2J")
            .next()
            .unwrap()
            .replace("\r\n", "\n");
        assert_fits("dashboard", &frame, usize::from(columns));
        // The decision log's tail wraps its bullets: no dash alone on a line.
        assert!(frame.lines().all(|l| l.trim() != "-"), "{frame}");
        t.send(&[3]);
        assert_eq!(t.wait().code(), Some(0), "{}", t.text());
    }
}
