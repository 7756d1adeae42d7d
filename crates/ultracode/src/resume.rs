//! The hand-back plan of a stopped run (docs/formats/ucg.md §6): where a resume re-enters, and the
//! checks of what it re-asserts (never rebuilds), each ok or missing with the command that fixes
//! it. Reads only.

use crate::epic::{self, Epic, EpicInputs};
use crate::markers;
use serde::Serialize;
use std::path::Path;
use ucg_git::ArtifactSource;
use ucg_git::Repository;

/// Where the resume re-enters.
#[derive(Debug, Serialize)]
pub struct Route {
    /// `epic` (Stage 1), `preflight` (Stage 2), `execute` or `finalize`.
    pub stage: &'static str,
    /// The epic the resume is invoked for, when one is located.
    pub epic: Option<String>,
    pub story: Option<String>,
    pub why: String,
}

#[derive(Debug, Serialize)]
pub struct Check {
    pub item: &'static str,
    /// `ok` or `missing`.
    pub state: &'static str,
    pub detail: String,
    /// What fixes a missing item.
    pub fix: Option<String>,
    /// The resume puts it back itself (it re-asserts the item): nothing for the operator to do.
    pub by_resume: bool,
}

/// The route of a located epic: the first story in sprint order whose last verdict is not
/// `advance`; no verdict at all means the run stopped before any story (Stage 2). Without an
/// epic (`None`: none can be named), `epic`.
pub fn route_of(epic: Option<&Epic>) -> Route {
    let Some(epic) = epic else {
        return Route {
            stage: "epic",
            epic: None,
            story: None,
            why: "the epic is not resolved (no heartbeat, no .current-story, HEAD not on an epic \
branch): re-run from Stage 1"
                .into(),
        };
    };
    let first = (epic.stories.iter()).find(|s| s.verdict.as_deref() != Some("advance"));
    let (stage, story, why) = match first {
        _ if epic.stories.iter().all(|s| s.verdict.is_none()) => (
            "preflight",
            None,
            "no gate verdict is on record: the run stopped before any story (Stage 2, a preflight \
RED). Re-run from Stage 2: the hard gate is never skipped, and its scan consumes the answered REDs"
                .into(),
        ),
        Some(story) => (
            "execute",
            Some(story.id.clone()),
            format!(
                "story {} is the first in sprint order whose last verdict is {}; the stories before it \
advanced and are not re-run",
                story.id,
                story.verdict.as_deref().unwrap_or("not recorded")
            ),
        ),
        None => ("finalize", None, "every story's last verdict is advance".into()),
    };
    let epic = Some(epic.id.clone());
    Route {
        stage,
        epic,
        story,
        why,
    }
}

impl Check {
    /// An item made of parts: `ok` with `present` when nothing is `missing`, else `missing` with
    /// the missing parts named before `absent`.
    pub fn of_parts(
        item: &'static str,
        missing: &[&str],
        present: String,
        absent: String,
        fix: &str,
        by_resume: bool,
    ) -> Check {
        Check {
            item,
            state: if missing.is_empty() { "ok" } else { "missing" },
            detail: if missing.is_empty() {
                present
            } else {
                format!("{} {absent}", missing.join(" and "))
            },
            fix: Some(fix.into()),
            by_resume,
        }
    }

    /// Whether the operator has something to do about it before the resume.
    pub fn needs_you(&self) -> bool {
        self.state == "missing" && !self.by_resume
    }
}

/// How to restart the agent for `route` (the module's own invocations, docs/getting-started.md
/// of UltraCode Goal): in Claude Code, the skill named with the epic, which offers to resume; or,
/// headless, its driver, one story per process. `impl_dir` is the artifact directory from the
/// project root. Each is the command and when to use it.
pub fn restart(route: &Route, impl_dir: &str) -> [(String, &'static str); 2] {
    let epic = route.epic.as_deref().unwrap_or("<epic>");
    [
        (
            format!("/ultracode-goal {epic}"),
            "in Claude Code; accept its offer to resume",
        ),
        (
            format!(
                "uv run .claude/skills/ultracode-goal/scripts/drive_epic.py --epic {epic} \
--impl-artifacts {impl_dir}"
            ),
            "or headless, one story per process",
        ),
    ]
}

/// The route for the run `inputs` locate in `repo`'s work tree: `epic` when no epic can be
/// named.
pub fn route(repo: &Repository, inputs: &EpicInputs) -> Route {
    let loaded = epic::load(
        repo,
        inputs,
        &ArtifactSource::WorkTree,
        None,
        epic::Detail::Full,
    );
    route_of(loaded.as_ref().ok())
}

pub fn branch_check(epic: &Epic) -> Check {
    let (state, detail, fix) = match (epic.branch_exists, epic.checked_out) {
        (true, true) => ("ok", format!("{} is checked out", epic.branch), None),
        (true, false) => (
            "missing",
            format!("{} exists but is not checked out", epic.branch),
            Some(format!("git switch {}", epic.branch)),
        ),
        (false, _) => (
            "missing",
            format!("{} does not exist", epic.branch),
            Some(format!("git switch -c {}", epic.branch)),
        ),
    };
    Check {
        item: "epic branch",
        state,
        // The resume checks out a branch that exists; one that does not, it cannot rebuild.
        by_resume: epic.branch_exists,
        detail,
        fix,
    }
}

/// Where the agent's hooks are installed, relative to the project root (Claude Code's local
/// settings).
pub const AGENT_SETTINGS_FILE: &str = ".claude/settings.local.json";

/// The command line of the budget Stop hook `hooks install --agent` installs (the check also
/// takes the reference's own `budget_stop` script).
pub const BUDGET_HOOK_COMMAND: &str = "git ucg budget tick";

/// The guard (PreToolUse, all tools) and the budget Stop hook in `.claude/settings.local.json`;
/// `fix` is what the caller's command line says installs them.
pub fn agent_hooks_check(root: &Path, fix: &str) -> Check {
    let path = root.join(AGENT_SETTINGS_FILE);
    let settings: Option<serde_json::Value> = ucg_store::read_file(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let has = |event: &str, needles: &[&str], any_matcher: bool| {
        settings
            .as_ref()
            .and_then(|s| s.pointer(&format!("/hooks/{event}"))?.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter(|group| {
                !any_matcher
                    || group
                        .get("matcher")
                        .and_then(|m| m.as_str())
                        .is_none_or(|m| m == "*" || m.is_empty())
            })
            .flat_map(|group| {
                group
                    .get("hooks")
                    .and_then(|h| h.as_array().cloned())
                    .unwrap_or_default()
            })
            .any(|hook| {
                hook.get("command")
                    .and_then(|c| c.as_str())
                    .is_some_and(|c| needles.iter().any(|n| c.contains(n)))
            })
    };
    let guard = has("PreToolUse", &["guard_pretooluse"], true);
    let budget = has("Stop", &["budget_stop", BUDGET_HOOK_COMMAND], false);
    let missing: Vec<&str> = [
        (guard, "the PreToolUse guard"),
        (budget, "the budget Stop hook"),
    ]
    .into_iter()
    .filter(|(ok, _)| !ok)
    .map(|(_, what)| what)
    .collect();
    Check::of_parts(
        "agent hooks",
        &missing,
        format!("guard and budget hook in {}", path.display()),
        format!("not in {}", path.display()),
        fix,
        true,
    )
}

/// `.mem-state.json`: present, green or not, and whose run it is.
pub fn latch_check(impl_dir: &Path) -> Check {
    let path = impl_dir.join(".mem-state.json");
    let Some(latch) = ucg_store::read_file(&path)
        .ok()
        .map(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
    else {
        return Check {
            item: "recall latch",
            state: "missing",
            detail: format!(
                "{} is absent (Finalize of a blocked run deletes it)",
                path.display()
            ),
            fix: Some("the resume re-latches it at Stage 1 from this run's own measurement".into()),
            by_resume: true,
        };
    };
    let field = |k: &str| latch.as_ref().and_then(|l| l.get(k).cloned());
    let green = field("latch_version") == Some(1.into())
        && field("claude_mem") == Some("present".into())
        && field("schema_ok") == Some(true.into())
        && field("recall") == Some("on".into());
    let run_id = field("run_id")
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "n/a".into());
    Check {
        item: "recall latch",
        state: "ok",
        detail: format!(
            "present, {} (run_id {run_id}; a latch of another run is re-written)",
            if green { "green" } else { "not green" }
        ),
        fix: None,
        by_resume: true,
    }
}

/// The baseline of the story the resume re-enters (`routed`, the route's story), else of the
/// in-flight one (`.current-story`, the heartbeat's): present means mid-story (re-read, never
/// regenerate). One story for the route and its baseline, so the two never disagree.
pub fn baseline_check(impl_dir: &Path, routed: Option<&str>) -> Check {
    let story = routed
        .map(str::to_string)
        .or_else(|| ucg_store::read_text(impl_dir.join(crate::markers::CURRENT_STORY_FILE)).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| crate::heartbeat::read(&ucg_git::ArtifactSource::WorkTree, impl_dir).story);
    let Some(story) = story.filter(|s| ucg_store::validate_story_id(s).is_ok()) else {
        return Check {
            item: "baseline",
            state: "missing",
            detail: "no in-flight story (.current-story, heartbeat)".into(),
            fix: None,
            by_resume: true,
        };
    };
    let file = markers::baseline_file(&story);
    match ucg_store::read_text(impl_dir.join(&file)) {
        Ok(text) => Check {
            item: "baseline",
            state: "ok",
            detail: format!(
                "{file} {}: mid-story, re-read and never regenerated",
                markers::marker_sha(&text).unwrap_or("(no sha)")
            ),
            fix: None,
            by_resume: true,
        },
        Err(_) => Check {
            item: "baseline",
            state: "missing",
            detail: format!("{file} is absent: a story boundary"),
            fix: Some(format!(
                "the resume writes it fresh at HEAD as step 0 (`git rev-parse HEAD > {}`)",
                impl_dir.join(&file).display()
            )),
            by_resume: true,
        },
    }
}
