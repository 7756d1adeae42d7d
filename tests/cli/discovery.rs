use crate::common::*;

fn impl_dir_seen_from(
    env: &TestEnv,
    cwd: &std::path::Path,
    vars: &[(&str, &std::path::Path)],
) -> String {
    let mut command = env.ucg(cwd);
    command.args(["config", "implementation_artifacts"]);
    for (key, value) in vars {
        command.env(key, value);
    }
    let out = command.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out).trim_end().to_string()
}

fn expected(root: &std::path::Path) -> String {
    format!(
        "{}/_bmad-output/implementation-artifacts",
        root.canonicalize().unwrap().display()
    )
}

#[test]
fn from_a_subdirectory_the_root_is_the_work_tree_root() {
    let env = TestEnv::new();
    let root = env.repo("p");
    let sub = root.join("a/b/c");
    std::fs::create_dir_all(&sub).unwrap();
    assert_eq!(impl_dir_seen_from(&env, &sub, &[]), expected(&root));
}

#[test]
fn from_a_linked_worktree_the_root_is_that_worktree() {
    let env = TestEnv::new();
    let root = env.repo("p");
    let linked = env.path().join("linked");
    env.git(
        &root,
        &["worktree", "add", "--quiet", linked.to_str().unwrap()],
    );
    let sub = linked.join("deep");
    std::fs::create_dir_all(&sub).unwrap();
    assert_eq!(impl_dir_seen_from(&env, &sub, &[]), expected(&linked));
}

#[test]
fn git_dir_and_git_work_tree_are_honoured() {
    let env = TestEnv::new();
    let root = env.repo("p");
    let elsewhere = env.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let git_dir = root.join(".git");
    let seen = impl_dir_seen_from(
        &env,
        &elsewhere,
        &[("GIT_DIR", &git_dir), ("GIT_WORK_TREE", &root)],
    );
    assert_eq!(seen, expected(&root));
}

#[test]
fn dash_c_changes_directory_first() {
    let env = TestEnv::new();
    let root = env.repo("p");
    let out = env
        .ucg(env.path())
        .args(["-C", "p", "config", "implementation_artifacts"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), expected(&root));
}

#[test]
fn outside_a_repository_a_command_that_needs_one_exits_2() {
    let env = TestEnv::new();
    let out = env.ucg(env.path()).args(["config"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not in a git repository"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn explicit_paths_work_outside_a_repository() {
    let env = TestEnv::new();
    write(
        &env.path().join("scan.json"),
        r#"{"reds": [{"kind": "k", "source": "p.md:1", "decision_needed": "d"}]}"#,
    );
    let out = env
        .ucg(env.path())
        .args([
            "reds",
            "apply",
            "--impl-artifacts",
            "impl",
            "--scan",
            "scan.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(env.path().join("impl/.preflight-reds.json").is_file());
}

#[test]
fn the_impl_artifacts_directory_comes_from_the_environment_then_the_configuration() {
    let env = TestEnv::new();
    let root = env.repo("p");
    let out = env
        .ucg(&root)
        .args(["reds", "apply", "--from-sidecar"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(root
        .join("_bmad-output/implementation-artifacts/.preflight-reds.json")
        .is_file());

    let other = env.path().join("other-impl");
    let out = env
        .ucg(&root)
        .env("ULTRACODE_IMPL_ARTIFACTS", &other)
        .args(["reds", "apply", "--from-sidecar"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(other.join(".preflight-reds.json").is_file());
}
