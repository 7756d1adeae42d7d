use crate::common::*;
use std::path::Path;
use std::process::Output;

fn scan_json(reds: &[(&str, &str, &str)]) -> String {
    let items: Vec<_> = reds
        .iter()
        .map(|(kind, source, decision)| {
            serde_json::json!({"kind": kind, "source": source, "decision_needed": decision, "evidence": "e"})
        })
        .collect();
    serde_json::json!({ "reds": items }).to_string()
}

fn apply(env: &TestEnv, cwd: &Path, extra: &[&str]) -> Output {
    env.ucg(cwd)
        .args(["reds", "apply", "--impl-artifacts", "impl"])
        .args(extra)
        .output()
        .unwrap()
}

fn registry(cwd: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(cwd.join("impl/.preflight-reds.json")).unwrap()).unwrap()
}

fn assert_refused(out: &Output) {
    assert_eq!(out.status.code(), Some(2), "stdout: {}", stdout(out));
    assert!(out.stdout.is_empty());
    let err = stderr(out);
    let lines: Vec<_> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    let doc: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert!(doc["error"].is_string(), "{err}");
}

#[test]
fn a_close_survives_three_rescans_with_one_tombstone() {
    let env = TestEnv::new();
    let cwd = env.path();
    let decision = "Do sessions expire?";
    write(
        &cwd.join("scan.json"),
        &scan_json(&[("undecided-product", "prd.md:10", decision)]),
    );
    assert_eq!(
        apply(&env, cwd, &["--scan", "scan.json"]).status.code(),
        Some(0)
    );
    let id = registry(cwd)["reds"][0]["id"].as_str().unwrap().to_string();
    write(
        &cwd.join("impl/.decisions.json"),
        &serde_json::json!({"decisions": [{"id": id, "answer": "30 days", "action": "close"}]})
            .to_string(),
    );
    for line in [11, 250, 3] {
        let source = format!("prd.md:{line}");
        write(
            &cwd.join("scan.json"),
            &scan_json(&[("undecided-product", &source, decision)]),
        );
        let out = apply(&env, cwd, &["--scan", "scan.json"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc = registry(cwd);
        assert_eq!(doc["reds"], serde_json::json!([]));
        assert_eq!(
            doc["resolved"],
            serde_json::json!([{"id": id, "kind": "undecided-product", "path": "prd.md"}])
        );
        assert_eq!(
            stdout(&out).as_bytes(),
            std::fs::read(cwd.join("impl/.preflight-reds.json")).unwrap()
        );
    }
}

#[test]
fn closing_one_of_two_findings_at_one_key_clears_exactly_one() {
    let env = TestEnv::new();
    let cwd = env.path();
    write(
        &cwd.join("scan.json"),
        &scan_json(&[
            ("k", "p.md:1", "First question"),
            ("k", "p.md:9", "Second question"),
        ]),
    );
    apply(&env, cwd, &["--scan", "scan.json"]);
    let before = registry(cwd);
    let first = before["reds"][0]["id"].as_str().unwrap();
    let second = before["reds"][1]["id"].as_str().unwrap().to_string();
    write(
        &cwd.join("impl/.decisions.json"),
        &serde_json::json!({"decisions": [{"id": first, "answer": "a", "action": "close"}]})
            .to_string(),
    );
    let out = apply(&env, cwd, &["--from-sidecar"]);
    assert_eq!(out.status.code(), Some(0));
    let after = registry(cwd);
    assert_eq!(after["reds"].as_array().unwrap().len(), 1);
    assert_eq!(after["reds"][0]["id"], second.as_str());
    assert_eq!(after["resolved"].as_array().unwrap().len(), 1);
}

#[test]
fn the_scan_can_come_from_standard_input() {
    let env = TestEnv::new();
    let mut child = env
        .ucg(env.path())
        .args(["reds", "apply", "--impl-artifacts", "impl", "--scan", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(scan_json(&[("k", "p.md:1", "Q")]).as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(registry(env.path())["reds"][0]["id"], "k:p.md:4ae81572f06e");
}

#[test]
fn a_scan_that_is_not_utf8_is_refused_and_nothing_is_written() {
    let env = TestEnv::new();
    std::fs::write(env.path().join("scan.json"), b"{\"reds\": [\"\xff\xfe\"]}").unwrap();
    let out = apply(&env, env.path(), &["--scan", "scan.json"]);
    assert_refused(&out);
    assert!(stderr(&out).contains("scan input is not valid JSON"));
    assert!(
        !env.path().join("impl").exists(),
        "a refused run creates nothing"
    );
}

#[test]
fn a_missing_impl_directory_is_created_for_a_scan() {
    let env = TestEnv::new();
    write(
        &env.path().join("scan.json"),
        &scan_json(&[("k", "p.md:1", "Q")]),
    );
    let out = env
        .ucg(env.path())
        .args([
            "reds",
            "apply",
            "--impl-artifacts",
            "a/b/impl",
            "--scan",
            "scan.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(env.path().join("a/b/impl/.preflight-reds.json").is_file());
}

#[test]
fn a_missing_scan_file_is_a_clear_error() {
    let env = TestEnv::new();
    let out = apply(&env, env.path(), &["--scan", "nope.json"]);
    assert_refused(&out);
    assert!(stderr(&out).contains("nope.json"));
}

#[test]
fn a_registry_that_is_a_directory_is_refused() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path().join("impl/.preflight-reds.json")).unwrap();
    write(
        &env.path().join("scan.json"),
        &scan_json(&[("k", "p.md:1", "Q")]),
    );
    let before = snapshot(env.path());
    let out = apply(&env, env.path(), &["--scan", "scan.json"]);
    assert_refused(&out);
    assert!(stderr(&out).contains("is unreadable"), "{}", stderr(&out));
    assert_eq!(snapshot(env.path()), before);
}

#[test]
fn a_registry_symlink_pointing_outside_is_refused() {
    let env = TestEnv::new();
    let outside = env.path().join("outside.json");
    write(&outside, "{\"reds\": [], \"resolved\": []}\n");
    let project = env.path().join("project");
    std::fs::create_dir_all(project.join("impl")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("impl/.preflight-reds.json")).unwrap();
    write(
        &project.join("scan.json"),
        &scan_json(&[("k", "p.md:1", "Q")]),
    );
    let before = snapshot(env.path());
    let out = apply(&env, &project, &["--scan", "scan.json"]);
    assert_refused(&out);
    assert!(stderr(&out).contains("symlink"), "{}", stderr(&out));
    assert_eq!(snapshot(env.path()), before);
}

#[test]
fn a_registry_symlink_inside_the_artifact_directory_is_written_through() {
    let env = TestEnv::new();
    let cwd = env.path();
    write(&cwd.join("impl/real.json"), "{}");
    std::os::unix::fs::symlink("real.json", cwd.join("impl/.preflight-reds.json")).unwrap();
    write(&cwd.join("scan.json"), &scan_json(&[("k", "p.md:1", "Q")]));
    let out = apply(&env, cwd, &["--scan", "scan.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(cwd.join("impl/.preflight-reds.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read(cwd.join("impl/real.json")).unwrap(),
        out.stdout
    );
}

#[test]
fn a_held_lock_makes_a_writer_wait_then_give_up() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.path().join("impl")).unwrap();
    let handle = std::fs::File::open(env.path().join("impl")).unwrap();
    handle.lock().unwrap();
    let out = env
        .ucg(env.path())
        .env("GIT_UCG_LOCK_TIMEOUT", "1")
        .args([
            "reds",
            "apply",
            "--impl-artifacts",
            "impl",
            "--from-sidecar",
        ])
        .output()
        .unwrap();
    assert_refused(&out);
    assert!(
        stderr(&out).contains("another git-ucg is writing"),
        "{}",
        stderr(&out)
    );
    assert!(!env.path().join("impl/.preflight-reds.json").exists());
    handle.unlock().unwrap();
    let out = apply(&env, env.path(), &["--from-sidecar"]);
    assert_eq!(out.status.code(), Some(0));
    let leftovers: Vec<_> = std::fs::read_dir(env.path().join("impl"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        leftovers,
        [".preflight-reds.json"],
        "the lock leaves no file behind"
    );
}

#[test]
fn a_50_megabyte_scan_is_processed() {
    let env = TestEnv::new();
    let cwd = env.path();
    let padding = "x".repeat(4_000);
    let reds: Vec<_> = (0..12_500)
        .map(|i| {
            serde_json::json!({
                "kind": "undecided-product", "source": format!("docs/prd-{}.md:{i}", i % 97),
                "decision_needed": format!("Question number {i}?"), "evidence": padding,
            })
        })
        .collect();
    let text = serde_json::json!({ "reds": reds }).to_string();
    assert!(text.len() >= 50_000_000, "{}", text.len());
    std::fs::write(cwd.join("scan.json"), &text).unwrap();
    let out = apply(&env, cwd, &["--scan", "scan.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc = registry(cwd);
    assert_eq!(doc["reds"].as_array().unwrap().len(), 12_500);
    assert_eq!(
        doc["reds"][12_499]["decision_needed"],
        "Question number 12499?"
    );
}

#[test]
fn mint_prints_the_id_and_accepts_dashes_after_the_separator() {
    let env = TestEnv::new();
    let out = env
        .ucg(env.path())
        .args([
            "id",
            "mint",
            "--",
            "-odd-kind",
            "docs/prd.md:42",
            "Pick a session length",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "-odd-kind:docs/prd.md:63143e7ec840\n");
    assert!(snapshot(env.path()).is_empty(), "mint touches nothing");
}

#[test]
fn exactly_one_input_mode_is_required() {
    let env = TestEnv::new();
    for args in [&[][..], &["--scan", "s.json", "--from-sidecar"][..]] {
        let out = apply(&env, env.path(), args);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains("Usage"), "{}", stderr(&out));
    }
}

#[test]
fn a_closed_stdout_ends_quietly_with_exit_0() {
    let env = TestEnv::new();
    let many: Vec<_> = (0..20_000)
        .map(|i| ("k", "p.md", format!("Question {i}")))
        .collect();
    let many: Vec<_> = many.iter().map(|(k, s, d)| (*k, *s, d.as_str())).collect();
    write(&env.path().join("scan.json"), &scan_json(&many));
    let mut child = env
        .ucg(env.path())
        .args([
            "reds",
            "apply",
            "--impl-artifacts",
            "impl",
            "--dry-run",
            "--scan",
            "scan.json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn a_dangling_registry_symlink_is_refused() {
    let env = TestEnv::new();
    let project = env.path().join("project");
    std::fs::create_dir_all(project.join("impl")).unwrap();
    std::fs::create_dir_all(env.path().join("outside")).unwrap();
    std::os::unix::fs::symlink(
        "../../outside/new.json",
        project.join("impl/.preflight-reds.json"),
    )
    .unwrap();
    write(
        &project.join("scan.json"),
        &scan_json(&[("k", "p.md:1", "Q")]),
    );
    let out = apply(&env, &project, &["--scan", "scan.json"]);
    assert_refused(&out);
    assert!(!env.path().join("outside/new.json").exists());
    assert!(std::fs::read_dir(env.path().join("outside"))
        .unwrap()
        .next()
        .is_none());
}

#[test]
fn the_scan_is_checked_before_the_registry_as_the_reference_does() {
    let env = TestEnv::new();
    write(
        &env.path().join("impl/.preflight-reds.json"),
        "{\"reds\": [1]}",
    );
    write(
        &env.path().join("scan.json"),
        &scan_json(&[("k", "p.md:1", "   ")]),
    );
    let out = apply(&env, env.path(), &["--scan", "scan.json"]);
    assert_refused(&out);
    assert!(
        stderr(&out).contains("non-empty string `decision_needed`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn what_python_accepts_in_parts_that_are_dropped_is_accepted() {
    let env = TestEnv::new();
    let cwd = env.path();
    // 900 levels of nesting (Python's decoder allows about 990) and a lone surrogate, both under
    // keys the registry does not keep.
    let deep = format!("{}{}", "[".repeat(900), "]".repeat(900));
    let scan = format!(
        r#"{{"reds": [{{"kind": "k", "source": "p.md:1", "decision_needed": "Q", "extra": {deep}, "note": "\ud800"}}], "concerns": "\udc00"}}"#
    );
    write(&cwd.join("scan.json"), &scan);
    let out = apply(&env, cwd, &["--scan", "scan.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(registry(cwd)["reds"][0]["id"], "k:p.md:4ae81572f06e");

    // An answer whose text holds a lone surrogate still closes its RED.
    write(
        &cwd.join("impl/.decisions.json"),
        r#"{"decisions": [{"id": "k:p.md:4ae81572f06e", "answer": "yes \ud83d", "action": "close"}]}"#,
    );
    let out = apply(&env, cwd, &["--from-sidecar"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(registry(cwd)["reds"], serde_json::json!([]));
}

#[test]
fn numeric_tombstone_ids_are_carried_as_python_carries_them() {
    let env = TestEnv::new();
    let cwd = env.path();
    write(
        &cwd.join("impl/.preflight-reds.json"),
        r#"{"reds": [], "resolved": [{"id": 5, "kind": "k", "path": "p"}, {"id": 2.5}, {"id": 0}]}"#,
    );
    let out = apply(&env, cwd, &["--from-sidecar"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        registry(cwd)["resolved"],
        serde_json::json!([{"id": 2.5}, {"id": 5, "kind": "k", "path": "p"}])
    );
    // Mixed with text ids they cannot be ordered: Python fails, git-ucg refuses.
    write(&cwd.join("scan.json"), &scan_json(&[("k", "p.md:1", "Q")]));
    write(
        &cwd.join("impl/.decisions.json"),
        r#"{"decisions": [{"id": "k:p.md:4ae81572f06e", "action": "close"}]}"#,
    );
    let before = snapshot(cwd);
    let out = apply(&env, cwd, &["--scan", "scan.json"]);
    assert_refused(&out);
    assert_eq!(snapshot(cwd), before);
}

/// `red_ids.py` lets a truthy `kind` or `source` that is not a string through its check and then
/// dies on it (`AttributeError: 'int' object has no attribute 'strip'`, a traceback, exit 1,
/// nothing written); git-ucg refuses it as an error, exit 2, nothing written — on both entry paths.
#[test]
fn difference_a_kind_or_source_that_is_not_a_string_is_refused() {
    for red in [
        serde_json::json!({"kind": 7, "source": "p.md:1", "decision_needed": "Q?"}),
        serde_json::json!({"kind": "k", "source": ["p.md"], "decision_needed": "Q?"}),
    ] {
        let env = TestEnv::new();
        let cwd = env.path();
        let reds = serde_json::json!({"reds": [red]}).to_string();
        write(&cwd.join("scan.json"), &reds);
        let before = snapshot(cwd);
        let out = apply(&env, cwd, &["--scan", "scan.json"]);
        assert_refused(&out);
        assert!(stderr(&out).contains("`kind` and `source` as strings"));
        assert_eq!(snapshot(cwd), before);
        // The same red stored in the registry, re-applied.
        let stored = serde_json::json!({"reds": [red_with_id(&red)], "resolved": []});
        write(&cwd.join("impl/.preflight-reds.json"), &stored.to_string());
        let before = snapshot(cwd);
        let out = apply(&env, cwd, &["--from-sidecar"]);
        assert_refused(&out);
        assert_eq!(snapshot(cwd), before);
    }
}

fn red_with_id(red: &serde_json::Value) -> serde_json::Value {
    let mut red = red.clone();
    red["id"] = "stored".into();
    red
}
