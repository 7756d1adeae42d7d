//! A session's state directory and the commands run against it.

use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// One temporary git repository, one state directory, the session `S` by default.
pub struct Goal {
    pub env: TestEnv,
    pub repo: PathBuf,
    pub omt: PathBuf,
    pub sid: String,
}

impl Goal {
    pub fn new() -> Self {
        let env = TestEnv::new();
        let repo = env.repo("proj");
        let omt = env.path().join("omt");
        std::fs::create_dir_all(&omt).unwrap();
        Goal {
            env,
            repo,
            omt,
            sid: "S".into(),
        }
    }

    /// `git ucg goal ARGS` as session `sid`.
    pub fn command_as(&self, sid: &str, args: &[&str]) -> Command {
        let mut command = self.env.ucg(&self.repo);
        command
            .arg("goal")
            .args(args)
            .env("OMT_DIR", &self.omt)
            .env("OMT_SESSION_ID", sid)
            .env("TZ", "UTC")
            .env("GIT_UCG_GOAL_LOCK_MS", "300");
        command
    }

    pub fn run_as(&self, sid: &str, args: &[&str]) -> Output {
        self.command_as(sid, args).output().unwrap()
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_as(&self.sid, args)
    }

    /// Runs and insists on exit 0.
    pub fn ok(&self, args: &[&str]) -> Output {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "goal {args:?} failed: {}",
            stderr(&out)
        );
        out
    }

    /// Runs and insists on exit 1 (a refusal); returns stderr.
    pub fn refused(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "goal {args:?} should have been refused; stdout {} stderr {}",
            stdout(&out),
            stderr(&out)
        );
        stderr(&out)
    }

    /// Runs and insists on exit 1 with the state file unchanged to the byte; returns stderr.
    pub fn refused_unchanged(&self, args: &[&str]) -> String {
        let before = self.state_bytes();
        let message = self.refused(args);
        assert_eq!(
            self.state_bytes(),
            before,
            "goal {args:?} changed the state file"
        );
        message
    }

    pub fn state_path_of(&self, sid: &str) -> PathBuf {
        self.omt.join(format!("ultragoal-state-{sid}.json"))
    }

    pub fn state_path(&self) -> PathBuf {
        self.state_path_of(&self.sid)
    }

    pub fn state_bytes(&self) -> Option<Vec<u8>> {
        std::fs::read(self.state_path()).ok()
    }

    pub fn state_of(&self, sid: &str) -> Value {
        let bytes = std::fs::read(self.state_path_of(sid)).expect("a state file");
        serde_json::from_slice(&bytes).expect("the state file parses")
    }

    pub fn state(&self) -> Value {
        self.state_of(&self.sid)
    }

    pub fn write_state_of(&self, sid: &str, state: &Value) {
        let text = serde_json::to_string_pretty(state).unwrap();
        std::fs::write(self.state_path_of(sid), text).unwrap();
    }

    pub fn write_state(&self, state: &Value) {
        self.write_state_of(&self.sid, state)
    }

    /// The pristine skeleton the PreToolUse hook writes.
    pub fn seed(&self) {
        self.write_state(&seed_state());
    }

    pub fn write_verdicts(&self, doc: &Value) {
        std::fs::write(
            self.omt
                .join(format!("ultragoal-verdict-{}.json", self.sid)),
            doc.to_string(),
        )
        .unwrap();
    }

    pub fn codereview_path(&self) -> PathBuf {
        self.omt
            .join(format!("ultragoal-codereview-{}.json", self.sid))
    }

    pub fn write_code_review(&self, doc: &Value) {
        std::fs::write(self.codereview_path(), doc.to_string()).unwrap();
    }

    /// Planning with an outcome and these stories, all unconfirmed.
    pub fn plan_with(&self, stories: &[Value]) {
        self.ok(&[
            "set",
            "--phase",
            "planning",
            "--outcome",
            "o",
            "--verification-surface",
            "v",
        ]);
        self.ok(&[
            "set-stories",
            "--json",
            &Value::from(stories.to_vec()).to_string(),
        ]);
    }

    /// Planned with one confirmed story (the single-WHAT path).
    pub fn planned(&self) {
        self.ok(&[
            "set",
            "--phase",
            "planning",
            "--outcome",
            "CLI prints version",
            "--verification-surface",
            "cargo test version_flag",
        ]);
        self.ok(&["set-stories", "--single"]);
    }

    /// In pursuit with completion evidence recorded.
    pub fn pursuing(&self) {
        self.planned();
        self.ok(&[
            "set",
            "--phase",
            "pursuing",
            "--completion-evidence",
            "e/1.log,e/2.log",
        ]);
    }

    /// Every gate holding but the last step: APPROVE recorded, S1 approved, a clean review.
    pub fn completable(&self) {
        self.pursuing();
        self.ok(&["set-verdict", "--verdict", "APPROVE"]);
        self.write_verdicts(&approving(&["S1"]));
        self.write_code_review(&review(&[]));
    }

    pub fn stdout(&self, args: &[&str]) -> String {
        stdout(&self.ok(args))
    }
}

/// A story with what every story needs (as `set-stories` takes it, status left to the command).
pub fn story(id: &str) -> Value {
    json!({"id": id, "story": format!("story {id}"), "acceptance_criteria": [format!("{id} works")],
        "verification_surface": format!("test {id}")})
}

pub fn seed_state() -> Value {
    json!({
        "active": true, "phase": "planning", "iteration": 0, "outcome": "",
        "verification_surface": "", "constraints": "", "boundaries": "", "max_iterations": 10,
        "blocked_stop": "", "objective_verdict": "absent", "plan_path": "", "resume_summary": "",
        "budget_limit_notified": false, "blocked_reason": "", "completion_evidence_paths": [],
        "schema_version": 1, "started_at": "2026-08-20T10:00:00+09:00",
        "last_touched_at": "2026-08-20T10:00:00+09:00"
    })
}

/// A verdict artifact approving the objective and the given stories.
pub fn approving(ids: &[&str]) -> Value {
    let stories: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "verdict": "APPROVE", "evidence_refs": []}))
        .collect();
    json!({"objective_verdict": "APPROVE", "stories": stories,
        "verifier": "orchestrator objective self-check", "at": "2026-08-20T11:00:00+09:00"})
}

/// A completed code review with these findings.
pub fn review(findings: &[Value]) -> Value {
    json!({"status": "COMPLETE", "findings": findings, "reviewer": "code-reviewer",
        "at": "2026-08-20T12:00:00Z"})
}

pub fn finding(class: &str, verdict: &str, impact: &str, location: &str) -> Value {
    json!({"class": class, "verdict": verdict, "impact": impact, "ref": location})
}

/// A timestamp `secs` seconds ago, as the state files carry them.
pub fn ago(secs: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let t = jiff::Timestamp::from_second(now - secs).unwrap();
    t.strftime("%Y-%m-%dT%H:%M:%S+00:00").to_string()
}

/// Creates `<state>.lock` held by a live process (this test's), as the reference's owner file.
pub fn hold_lock(state: &Path) -> PathBuf {
    let mut name = state.as_os_str().to_owned();
    name.push(".lock");
    let lock = PathBuf::from(name);
    std::fs::create_dir(&lock).unwrap();
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let owner = json!({"ownerPid": std::process::id(), "token": "c0ffee00-0000-4000-8000-000000000000",
        "startedAt": started});
    std::fs::write(lock.join("owner.json"), owner.to_string()).unwrap();
    lock
}
