use crate::common::*;

#[test]
fn the_demo_builds_a_stopped_run_and_prints_what_to_try() {
    let env = TestEnv::new();
    let dir = env.path().join("demo");
    let out = env
        .ucg(env.path())
        .args(["demo", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out).replace(&dir.display().to_string(), "[DEMO]");
    // The heartbeat's age depends on today's date.
    insta::with_settings!({filters => vec![(r"\(\d+ \w+ ago\)", "([AGE])")]}, {
        insta::assert_snapshot!(text);
    });
    // Issue 34 item 6: a screenful that fits 80 columns, the repository's path and what to try
    // last, so nothing that matters scrolls away; run from cargo's build, it says how to run
    // `git ucg` before installing it.
    assert!(text.lines().count() <= 30, "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let path_at = text.lines().position(|l| l == "  [DEMO]").unwrap();
    let try_at = text.lines().position(|l| l == "Try next:").unwrap();
    assert!(
        path_at < try_at && try_at > text.lines().count() - 15,
        "{text}"
    );
    assert!(text.contains("`cargo run --release -- -C <dir> …` stands for `git ucg`"));

    assert_eq!(
        env.git(&dir, &["branch", "--show-current"]),
        "ultracode/epic-7"
    );
    assert_eq!(
        env.git(&dir, &["rev-list", "--count", "main..ultracode/epic-7"]),
        "4"
    );
    let impl_dir = dir.join("_bmad-output/implementation-artifacts");
    for story in ["7-1", "7-2", "7-3"] {
        let baseline =
            std::fs::read_to_string(impl_dir.join(format!(".baseline-{story}"))).unwrap();
        assert_eq!(baseline.len(), 41, "a full sha and a newline");
        env.git(&dir, &["cat-file", "-e", baseline.trim()]);
    }
    // The registry the demo wrote is exactly what `reds apply` would write from it.
    let out = env
        .ucg(&dir)
        .args(["reds", "apply", "--from-sidecar", "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(
        out.stdout,
        std::fs::read(impl_dir.join(".preflight-reds.json")).unwrap()
    );

    // Deterministic: a second demo has the same commits.
    let again = env.path().join("again");
    env.ucg(env.path())
        .args(["demo", again.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        env.git(&dir, &["rev-parse", "HEAD"]),
        env.git(&again, &["rev-parse", "HEAD"])
    );
}

#[test]
fn the_demo_refuses_a_directory_that_is_not_empty() {
    let env = TestEnv::new();
    write(&env.path().join("busy/file"), "x");
    let out = env.ucg(env.path()).args(["demo", "busy"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not empty"));
}

#[test]
fn without_a_directory_the_demo_uses_a_fresh_temporary_one() {
    let env = TestEnv::new();
    let out = env
        .ucg(env.path())
        .env("TMPDIR", env.path())
        .arg("demo")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let created: Vec<_> = std::fs::read_dir(env.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("git-ucg-demo-"))
        .collect();
    assert_eq!(created.len(), 1);
    assert!(stdout(&out).contains(&created[0].path().display().to_string()));
}
