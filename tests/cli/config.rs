use crate::common::*;

fn team(root: &std::path::Path, text: &str) {
    write(&root.join("_bmad/custom/ultracode-goal.toml"), text);
}

fn user(root: &std::path::Path, text: &str) {
    write(&root.join("_bmad/custom/ultracode-goal.user.toml"), text);
}

#[test]
fn a_team_array_appends_to_the_defaults() {
    let env = TestEnv::new();
    let root = env.repo("p");
    team(&root, "[workflow]\nprotected_branches = [\"release\"]\n");
    let out = env
        .ucg(&root)
        .args(["config", "protected_branches"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "main\nmaster\nrelease\n");
    let out = env
        .ucg(&root)
        .args(["config", "--json", "workflow.protected_branches"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["value"],
        serde_json::json!(["main", "master", "release"])
    );
    assert_eq!(doc["origin"], "built-in+team");
}

#[test]
fn scalars_override_and_the_user_layer_wins_over_the_team() {
    let env = TestEnv::new();
    let root = env.repo("p");
    team(
        &root,
        "[workflow]\nmax_turns_per_story = 40\nepic_branch_prefix = \"team/epic-\"\n",
    );
    let out = env
        .ucg(&root)
        .args(["config", "--json", "max_turns_per_story"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (doc["value"].clone(), doc["origin"].clone()),
        (40.into(), "team".into())
    );

    user(&root, "[workflow]\nmax_turns_per_story = 30\n");
    let out = env.ucg(&root).args(["config", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "git-ucg.config/1");
    assert_eq!(doc["workflow"]["max_turns_per_story"], 30);
    assert_eq!(doc["origins"]["max_turns_per_story"], "user");
    assert_eq!(doc["workflow"]["epic_branch_prefix"], "team/epic-");
    assert_eq!(doc["origins"]["epic_branch_prefix"], "team");
    assert_eq!(doc["layers"][2]["state"], "ok");
}

#[test]
fn project_root_is_expanded_and_relative_paths_join_the_root() {
    let env = TestEnv::new();
    let root = env.repo("p");
    team(
        &root,
        "[workflow]\ndeferred_work_path = \"notes/deferred.md\"\n",
    );
    let out = env.ucg(&root).args(["config", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let root = root.canonicalize().unwrap();
    assert_eq!(
        doc["workflow"]["implementation_artifacts"],
        format!("{}/_bmad-output/implementation-artifacts", root.display())
    );
    assert_eq!(
        doc["workflow"]["deferred_work_path"],
        format!("{}/notes/deferred.md", root.display())
    );
}

#[test]
fn an_unresolved_token_in_a_path_exits_2_naming_the_key() {
    let env = TestEnv::new();
    let root = env.repo("p");
    team(
        &root,
        "[workflow]\nimplementation_artifacts = \"{output_folder}/impl\"\n",
    );
    let out = env.ucg(&root).args(["config"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(err.contains("workflow.implementation_artifacts"), "{err}");
    assert!(err.contains("{output_folder}"), "{err}");
}

#[test]
fn a_broken_optional_layer_warns_and_is_ignored() {
    let env = TestEnv::new();
    let root = env.repo("p");
    team(&root, "[workflow]\nmax_turns_per_story = 40\n");
    user(&root, "[workflow\nmax_turns_per_story = ");
    let out = env
        .ucg(&root)
        .args(["config", "max_turns_per_story"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "40\n");
    let err = stderr(&out);
    assert!(err.starts_with("warning: ignoring "), "{err}");
    assert!(err.contains("ultracode-goal.user.toml"), "{err}");
}

#[test]
fn a_broken_base_layer_exits_2() {
    let env = TestEnv::new();
    let root = env.repo("p");
    write(
        &root.join("skills/ultracode-goal/customize.toml"),
        "[workflow\n",
    );
    let out = env.ucg(&root).args(["config"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("skills/ultracode-goal/customize.toml"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_module_customize_toml_is_the_base_layer() {
    let env = TestEnv::new();
    let root = env.repo("p");
    write(
        &root.join("_bmad/ucg/ultracode-goal/customize.toml"),
        "[workflow]\nmax_turns_per_story = 12\nprotected_branches = [\"trunk\"]\n",
    );
    team(&root, "[workflow]\nprotected_branches = [\"release\"]\n");
    let out = env.ucg(&root).args(["config", "--json"]).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["workflow"]["max_turns_per_story"], 12);
    assert_eq!(doc["origins"]["max_turns_per_story"], "base");
    assert_eq!(
        doc["workflow"]["protected_branches"],
        serde_json::json!(["trunk", "release"])
    );
    assert_eq!(doc["layers"][0]["state"], "ok");
}

#[test]
fn a_missing_key_is_a_negative_answer() {
    let env = TestEnv::new();
    let root = env.repo("p");
    let out = env
        .ucg(&root)
        .args(["config", "no_such_key"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
}

#[test]
fn the_listing_shows_each_origin() {
    let env = TestEnv::new();
    let root = env.repo("p");
    team(
        &root,
        "[workflow]\nprotected_branches = [\"release\"]\nmax_turns_per_story = 40\n",
    );
    let out = env.ucg(&root).args(["config"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out).replace(
        &root.canonicalize().unwrap().display().to_string(),
        "[ROOT]",
    );
    let text = text.replace(&env.path().display().to_string(), "[HOME]");
    insta::assert_snapshot!(text);
}
