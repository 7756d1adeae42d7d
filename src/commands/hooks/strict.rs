//! Strict mode (`hooks install --strict`, `git config ucg.gate.strict true`): while a story is
//! current, the story invariants UltraCode Goal's guard enforces on its agent's tool calls
//! (docs/formats/ucg.md §5.3, items 1–5) enforced on every commit and push git makes. Each refusal names
//! the invariant and the fix. Postures as the guard's: the branch probe fails open, the staged
//! index probe fails closed.

use crate::context::Context;
use std::path::Path;
use ucg_ultracode::ids::py_strip;
use ucg_ultracode::markers;

/// The story strict mode is about: `ULTRACODE_STORY_ID`, else `.current-story`; none ⇒ inert.
pub(crate) fn current_story(impl_dir: &Path) -> Option<String> {
    let story = std::env::var(ucg_ultracode::STORY_ENV)
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| ucg_store::read_text(impl_dir.join(markers::CURRENT_STORY_FILE)).ok())?;
    let story = py_strip(&story).to_string();
    (!story.is_empty()).then_some(story)
}

/// `ULTRACODE_PROTECTED_BRANCHES` (comma-separated), else `workflow.protected_branches`.
fn protected(ctx: &Context) -> Vec<String> {
    if let Ok(list) = std::env::var("ULTRACODE_PROTECTED_BRANCHES") {
        let names: Vec<String> = list
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if !names.is_empty() {
            return names;
        }
    }
    ctx.config()
        .map(|c| c.protected_branches())
        .unwrap_or_else(|_| vec!["main".into(), "master".into()])
}

/// The refusals for `verb` (`commit` or `push`) on the current story; empty when allowed.
/// `pushed_to` holds the branches a push updates on the remote (`refs/heads/` stripped): a push
/// from an epic branch to a protected one (`git push origin HEAD:main`) is refused like a commit
/// on it.
pub(crate) fn refusals(
    ctx: &Context,
    impl_dir: &Path,
    story: &str,
    verb: &str,
    pushed_to: &[&str],
) -> Vec<String> {
    let mut out = Vec::new();
    // 1. Protected branch. A branch that cannot be read is not checked (fail-open); a detached
    //    HEAD is not a protected branch.
    let branch = ctx.repo().ok().and_then(|repo| {
        repo.head_name()
            .ok()
            .flatten()
            .map(|name| name.shorten().to_string())
    });
    let protected = protected(ctx);
    if let Some(branch) = branch.filter(|b| protected.contains(b)) {
        let prefix = std::env::var("ULTRACODE_EPIC_BRANCH_PREFIX")
            .unwrap_or_else(|_| "ultracode/epic-".into());
        out.push(format!(
            "protected branch: refusing `git {verb}` on '{branch}' while story {story} is current; \
UltraCode Goal commits one green story per commit on an epic branch ('{prefix}<id>'), never on {}. \
Switch to the epic branch first.",
            protected.join(", ")
        ));
    }
    for target in pushed_to
        .iter()
        .filter(|b| protected.iter().any(|p| p == *b))
    {
        out.push(format!(
            "protected branch: refusing `git push` to '{target}' while story {story} is current; \
UltraCode Goal lands stories on an epic branch, never on {}. Push to the epic branch instead.",
            protected.join(", ")
        ));
    }
    if verb != "commit" {
        return out;
    }
    // 2–3. The tests-ran marker, present and fresh against the baseline.
    let marker_name = markers::tests_ran_file(story);
    let baseline_name = markers::baseline_file(story);
    let read = |name: &str| {
        ucg_store::read_file(impl_dir.join(name))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    match (read(&marker_name), read(&baseline_name)) {
        (None, _) => out.push(format!(
            "tests ran: {marker_name} is missing; run the story's tests green and write it (a `baseline=` line with the story's baseline) before committing"
        )),
        (Some(_), None) => out.push(format!(
            "tests ran: {baseline_name} is missing or unreadable; `git ucg baseline start {story}` writes it"
        )),
        (Some(marker), Some(baseline)) => {
            if let Err(reason) = markers::tests_ran_fresh(&marker, &baseline) {
                out.push(format!("tests ran: {marker_name} is stale: {reason}"));
            }
        }
    }
    // 4. Something staged. Any doubt refuses (fail-closed).
    match ucg_git::hooks::something_staged() {
        Some(true) => {}
        Some(false) => out.push("staged changes: nothing is staged; `git add` the story's changes".into()),
        _ => out.push("staged changes: the index could not be read (`git diff --cached --quiet` failed); refusing".into()),
    }
    // 5. No staged acceptance test still skipped.
    if let Some(problem) = skipped_tests(ctx, story) {
        out.push(problem);
    }
    out
}

/// The un-skip proof: every test file the story's ATDD checklist names, as staged, must not hold
/// `test.skip(`. Inert without `ULTRACODE_TEST_ARTIFACTS`, a checklist, or test paths in it.
fn skipped_tests(ctx: &Context, story: &str) -> Option<String> {
    let dir = std::env::var_os("ULTRACODE_TEST_ARTIFACTS")?;
    let checklist = Path::new(&dir).join(format!("atdd-checklist-{story}.md"));
    if !checklist.exists() {
        return None;
    }
    let Ok(text) = ucg_store::read_text(&checklist) else {
        return Some(format!(
            "un-skip proof: {} cannot be read; refusing",
            checklist.display()
        ));
    };
    let root = ctx.try_project_root()?;
    let paths = test_paths(&text, &root);
    if paths.is_empty() {
        return None;
    }
    let repo = ctx.repo().ok()?;
    let Ok(index) = repo.index_or_empty() else {
        return Some("un-skip proof: the index cannot be read; refusing".into());
    };
    let mut skipped = Vec::new();
    for path in &paths {
        let blob = index
            .entry_by_path(path.as_str().into())
            .and_then(|entry| repo.find_object(entry.id).ok())
            .map(|object| object.data.clone());
        match blob {
            None => return Some(format!("un-skip proof: {path} is not staged; refusing")),
            Some(data) if memchr::memmem::find(&data, b"test.skip(").is_some() => {
                skipped.push(path.clone())
            }
            Some(_) => {}
        }
    }
    (!skipped.is_empty()).then(|| {
        format!(
            "un-skip proof: staged acceptance tests still call test.skip(: {}; un-skip them before committing",
            skipped.join(", ")
        )
    })
}

/// Test file paths in a checklist (`*.spec.ts`, `*.test.jsx`, …), de-duplicated in order, made
/// relative to the project root.
fn test_paths(text: &str, root: &Path) -> Vec<String> {
    let Ok(pattern) = regex::Regex::new(r#"[^\s`'"()\[\],]+\.(spec|test)\.[cm]?[jt]sx?\b"#) else {
        return Vec::new();
    };
    let root_text = root.to_string_lossy().into_owned();
    let mut seen = Vec::new();
    for found in pattern.find_iter(text) {
        let mut path = found.as_str();
        if let Some(at) = path.find("{project-root}") {
            path = &path[at + "{project-root}".len()..];
        }
        let path = path
            .strip_prefix(root_text.as_str())
            .unwrap_or(path)
            .trim_start_matches('/')
            .trim_start_matches("./")
            .to_string();
        if !seen.contains(&path) {
            seen.push(path);
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    #[test]
    fn test_paths_from_a_checklist() {
        let text = "- [ ] `tests/a.spec.ts` covers it\n- {project-root}/e2e/b.test.jsx and ./tests/a.spec.ts\n- /repo/c.test.mjs (see x.spec.md)";
        assert_eq!(
            super::test_paths(text, std::path::Path::new("/repo")),
            ["tests/a.spec.ts", "e2e/b.test.jsx", "c.test.mjs"]
        );
    }
}
