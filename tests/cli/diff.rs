//! `git ucg diff` against `git diff` on real repositories: same files, same statuses, same counts.

use crate::common::*;
use std::path::Path;

fn lines(n: usize, tag: &str) -> String {
    (0..n)
        .map(|i| format!("{tag} line {i} with some words\n"))
        .collect()
}

/// A history with every kind of change between `base` and `tip`, including a merge.
fn varied_history(env: &TestEnv) -> (std::path::PathBuf, String, String) {
    let root = env.repo("p");
    let w = |path: &str, text: &str| write(&root.join(path), text);
    w("keep.txt", &lines(30, "keep"));
    w("edit me.txt", &lines(40, "edit"));
    w("gone.txt", &lines(10, "gone"));
    w("move/old name.txt", &lines(50, "move"));
    w("été/ünï.txt", &lines(5, "unicode"));
    w("script.sh", "#!/bin/sh\necho hi\n");
    std::fs::write(root.join("blob.bin"), [0u8, 1, 2, 3, 255, 0, 7]).unwrap();
    env.git(&root, &["add", "-A"]);
    env.git(&root, &["commit", "-qm", "base"]);
    let base = env.git(&root, &["rev-parse", "HEAD"]);

    env.git(&root, &["checkout", "-qb", "side"]);
    w("side.txt", "from the side branch\n");
    env.git(&root, &["add", "-A"]);
    env.git(&root, &["commit", "-qm", "side"]);
    env.git(&root, &["checkout", "-q", "main"]);

    let mut edited = lines(40, "edit");
    edited = edited.replacen("edit line 3 ", "EDITED line 3 ", 1);
    edited.push_str("no newline at the end");
    w("edit me.txt", &edited);
    std::fs::remove_file(root.join("gone.txt")).unwrap();
    let mut moved = lines(50, "move");
    moved.push_str("one more line\n");
    std::fs::remove_file(root.join("move/old name.txt")).unwrap();
    w("move/new name.txt", &moved);
    w("été/ünï.txt", &lines(6, "unicode"));
    w("new dir/added file.txt", &lines(3, "added"));
    std::fs::write(root.join("blob.bin"), [9u8, 0, 8, 7]).unwrap();
    env.git(&root, &["add", "-A"]);
    env.git(&root, &["update-index", "--chmod=+x", "script.sh"]);
    env.git(&root, &["commit", "-qm", "changes"]);
    env.git(&root, &["merge", "-q", "--no-edit", "side"]);
    let tip = env.git(&root, &["rev-parse", "HEAD"]);
    (root, base, tip)
}

fn ucg(env: &TestEnv, root: &Path, args: &[&str]) -> String {
    let out = env.ucg(root).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn name_status_numstat_and_stat_match_git() {
    let env = TestEnv::new();
    let (root, base, tip) = varied_history(&env);
    let range = format!("{base}..{tip}");
    assert_eq!(
        ucg(&env, &root, &["diff", "--range", &range, "--name-status"]),
        env.git_raw(&root, &["diff", "--name-status", "-M", &base, &tip])
    );
    assert_eq!(
        ucg(&env, &root, &["diff", "--range", &range, "--numstat"]),
        env.git_raw(&root, &["diff", "--numstat", "-M", &base, &tip])
    );
    let ours = ucg(&env, &root, &["diff", "--range", &range]);
    let git = env.git_raw(&root, &["diff", "--stat", "-M", &base, &tip]);
    assert_eq!(
        ours.lines().last(),
        git.lines().last(),
        "totals\n{ours}\n{git}"
    );
    assert_eq!(ours, git);
}

#[test]
fn without_renames_a_move_is_a_delete_and_an_add() {
    let env = TestEnv::new();
    let (root, base, tip) = varied_history(&env);
    let range = format!("{base}..{tip}");
    assert_eq!(
        ucg(
            &env,
            &root,
            &["diff", "--range", &range, "--name-status", "--no-renames"]
        ),
        env.git(
            &root,
            &["diff", "--name-status", "--no-renames", &base, &tip]
        ) + "\n"
    );
}

#[test]
fn paths_limit_the_diff() {
    let env = TestEnv::new();
    let (root, base, tip) = varied_history(&env);
    let range = format!("{base}..{tip}");
    assert_eq!(
        ucg(
            &env,
            &root,
            &["diff", "--range", &range, "--name-status", "--", "new dir"]
        ),
        "A\tnew dir/added file.txt\n"
    );
    // A rename across the limit is what git makes of it: only the side inside, added or deleted.
    for limit in ["move/new name.txt", "move/old name.txt", "move"] {
        assert_eq!(
            ucg(
                &env,
                &root,
                &["diff", "--range", &range, "--name-status", "--", limit]
            ),
            env.git_raw(
                &root,
                &["diff", "--name-status", "-M", &base, &tip, "--", limit]
            ),
            "{limit}"
        );
    }
}

#[test]
fn on_the_demo_each_story_and_the_epic_equal_git() {
    let env = TestEnv::new();
    let dir = env.demo();
    let marker = |name: &str| {
        std::fs::read_to_string(dir.join("_bmad-output/implementation-artifacts").join(name))
            .unwrap()
            .trim()
            .to_string()
    };
    let tip = env.git(&dir, &["rev-parse", "HEAD"]);
    let ranges = [
        ("7-1", marker(".baseline-7-1"), marker(".commit-7-1")),
        ("7-2", marker(".baseline-7-2"), marker(".commit-7-2")),
        ("7-3", marker(".baseline-7-3"), tip.clone()),
    ];
    for (story, base, end) in &ranges {
        assert_eq!(
            ucg(&env, &dir, &["diff", "--story", story]),
            env.git_raw(&dir, &["diff", "--stat", base, end]),
            "story {story}"
        );
    }
    assert_eq!(
        ucg(&env, &dir, &["diff", "--epic", "--name-status"]),
        env.git_raw(&dir, &["diff", "--name-status", &ranges[0].1, &tip])
    );

    let doc: serde_json::Value =
        serde_json::from_str(&ucg(&env, &dir, &["epic", "--json"])).unwrap();
    assert_eq!(doc["schema"], "git-ucg.epic/1");
    assert_eq!(doc["branch"]["checked_out"], true);
    let stories = doc["stories"].as_array().unwrap();
    let summary: Vec<_> = stories
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap(),
                s["verdict"].as_str().unwrap(),
                s["commits"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("7-1", "advance", 2),
            ("7-2", "defer", 1),
            ("7-3", "escalate", 1)
        ]
    );
    assert!(stories
        .iter()
        .all(|s| s["problems"].as_array().unwrap().is_empty()));
}

#[test]
fn broken_markers_are_problems_of_their_story() {
    let env = TestEnv::new();
    let dir = env.demo();
    let impl_dir = dir.join("_bmad-output/implementation-artifacts");
    std::fs::remove_file(impl_dir.join(".baseline-7-1")).unwrap();
    let abbreviated =
        std::fs::read_to_string(impl_dir.join(".baseline-7-2")).unwrap()[..10].to_string();
    write(&impl_dir.join(".baseline-7-2"), &format!("{abbreviated}\n"));
    write(
        &impl_dir.join(".baseline-7-3"),
        "0123456789012345678901234567890123456789\n",
    );

    let out = env.ucg(&dir).args(["epic", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems = |i: usize| doc["stories"][i]["problems"].to_string();
    assert!(problems(0).contains("missing"), "{}", problems(0));
    assert!(problems(1).contains("abbreviated"), "{}", problems(1));
    assert!(problems(2).contains("does not exist"), "{}", problems(2));

    for story in ["7-1", "7-3"] {
        let out = env
            .ucg(&dir)
            .args(["diff", "--story", story])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{story}");
        assert!(stderr(&out).contains("no usable range"), "{}", stderr(&out));
    }
    // Deleting the epic branch: ranges end at HEAD, and epic says so.
    env.git(&dir, &["checkout", "-q", "--detach"]);
    env.git(&dir, &["branch", "-D", "ultracode/epic-7"]);
    let out = env.ucg(&dir).args(["epic"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("does not exist"), "{}", stdout(&out));
}

mod random_histories {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Add(u8, Vec<u8>),
        Delete(u8),
        Modify(u8, u8),
        Rename(u8, u8, bool),
        Chmod(u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0u8..12, proptest::collection::vec(0u8..6, 1..12)).prop_map(|(f, l)| Op::Add(f, l)),
            (0u8..12).prop_map(Op::Delete),
            (0u8..12, 0u8..20).prop_map(|(f, l)| Op::Modify(f, l)),
            (0u8..12, 0u8..12, any::<bool>()).prop_map(|(f, t, e)| Op::Rename(f, t, e)),
            (0u8..12).prop_map(Op::Chmod),
        ]
    }

    fn name(f: u8) -> String {
        format!("{}/file {f}.txt", ["a", "b", "c d"][usize::from(f % 3)])
    }

    fn text(lines: &[u8]) -> String {
        lines
            .iter()
            .map(|l| format!("shared line {l} of some length to make spans\n"))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        #[test]
        fn every_format_equals_git(commits in proptest::collection::vec(proptest::collection::vec(op(), 1..6), 1..4)) {
            let env = TestEnv::new();
            let root = env.repo("p");
            let base = env.git(&root, &["rev-parse", "HEAD"]);
            for ops in &commits {
                for op in ops {
                    let path = |f: u8| root.join(name(f));
                    match op {
                        Op::Add(f, lines) => write(&path(*f), &text(lines)),
                        Op::Delete(f) => { let _ = std::fs::remove_file(path(*f)); }
                        Op::Modify(f, l) => {
                            if let Ok(old) = std::fs::read_to_string(path(*f)) {
                                write(&path(*f), &format!("{old}changed {l}\n"));
                            }
                        }
                        Op::Rename(f, t, edit) => {
                            if f != t && path(*f).exists() && !path(*t).exists() {
                                let old = std::fs::read_to_string(path(*f)).unwrap();
                                std::fs::remove_file(path(*f)).unwrap();
                                write(&path(*t), &if *edit { format!("{old}edited\n") } else { old });
                            }
                        }
                        Op::Chmod(f) => {
                            if path(*f).exists() {
                                use std::os::unix::fs::PermissionsExt;
                                let _ = std::fs::set_permissions(path(*f), std::fs::Permissions::from_mode(0o755));
                            }
                        }
                    }
                }
                env.git(&root, &["add", "-A"]);
                env.git(&root, &["commit", "-q", "--allow-empty", "-m", "step"]);
            }
            let tip = env.git(&root, &["rev-parse", "HEAD"]);
            let range = format!("{base}..{tip}");
            for (ours, theirs) in [("--name-status", "--name-status"), ("--numstat", "--numstat"), ("--patch", "--patch"), ("--stat", "--stat")] {
                let ours = ucg(&env, &root, &["diff", "--range", &range, ours]);
                let git = env.git_raw(&root, &["diff", theirs, "-M", &base, &tip]);
                prop_assert_eq!(ours, git, "{}", theirs);
            }
        }
    }
}

#[test]
fn the_patch_is_gits_and_git_apply_takes_it() {
    let env = TestEnv::new();
    let (root, base, tip) = varied_history(&env);
    let range = format!("{base}..{tip}");
    let ours = ucg(&env, &root, &["diff", "--range", &range, "--patch"]);
    assert_eq!(ours, env.git_raw(&root, &["diff", "-M", &base, &tip]));

    // Applied to the base, the patch (binary files aside: git needs --binary patches for them)
    // gives the tip's tree.
    let text_only = ucg(
        &env,
        &root,
        &[
            "diff",
            "--range",
            &range,
            "--patch",
            "--",
            "edit me.txt",
            "gone.txt",
            "move",
            "new dir",
            "script.sh",
            "side.txt",
            "été",
        ],
    );
    let patch_file = env.path().join("p.patch");
    std::fs::write(&patch_file, text_only).unwrap();
    env.git(&root, &["checkout", "-q", "-f", &base]);
    env.git(&root, &["apply", "--index", patch_file.to_str().unwrap()]);
    env.git(&root, &["checkout", "-q", &tip, "--", "blob.bin"]);
    let applied = env.git(&root, &["write-tree"]);
    assert_eq!(
        applied,
        env.git(&root, &["rev-parse", &format!("{tip}^{{tree}}")])
    );
}

#[test]
fn the_line_count_cache_repeats_the_same_answer_and_survives_garbage() {
    let env = TestEnv::new();
    let (root, base, tip) = varied_history(&env);
    let range = format!("{base}..{tip}");
    let git = env.git_raw(&root, &["diff", "--numstat", "-M", &base, &tip]);
    assert_eq!(
        ucg(&env, &root, &["diff", "--range", &range, "--numstat"]),
        git
    );
    let cache_dir = root.join(".git/ucg");
    let files: Vec<_> = std::fs::read_dir(&cache_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1, "one cache file");
    assert_eq!(
        ucg(&env, &root, &["diff", "--range", &range, "--numstat"]),
        git,
        "from the cache"
    );

    // A damaged cache is ignored line by line, never trusted.
    let mut text = std::fs::read_to_string(&files[0]).unwrap();
    text.push_str("not a line\n\u{0}\u{1}garbage 1 2\n");
    text = text.replacen(" 1 ", " x ", 1);
    std::fs::write(&files[0], text).unwrap();
    assert_eq!(
        ucg(&env, &root, &["diff", "--range", &range, "--numstat"]),
        git
    );
    assert_eq!(
        ucg(
            &env,
            &root,
            &["diff", "--range", &range, "--numstat", "--no-cache"]
        ),
        git
    );
}

#[test]
fn epic_reads_a_teammates_run_from_a_commit_with_rev() {
    let env = TestEnv::new();
    let dir = env.demo();
    // The teammate's run, committed on a branch; this work tree then loses every artifact.
    env.git(&dir, &["checkout", "-q", "-b", "teammate"]);
    env.git(&dir, &["add", "-A"]);
    env.git(&dir, &["commit", "-q", "-m", "run artifacts"]);
    let pinned = env.git(&dir, &["rev-parse", "HEAD"]);
    env.git(&dir, &["checkout", "-q", "main"]);
    std::fs::remove_dir_all(dir.join("_bmad-output")).unwrap_or(());
    assert!(!dir.join("_bmad-output").exists());

    let out = env
        .ucg(&dir)
        .args(["epic", "--json", "--rev", "teammate"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["epic"], "7");
    assert_eq!(doc["tip"], pinned.as_str());
    let verdicts: Vec<_> = doc["stories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["verdict"].clone())
        .collect();
    assert_eq!(
        verdicts,
        [
            serde_json::json!("advance"),
            "defer".into(),
            "escalate".into()
        ]
    );
    assert_eq!(
        doc["stories"][2]["commits"].as_array().unwrap().len(),
        2,
        "7-3 now ends at the pinned commit"
    );
}

#[test]
fn in_a_shallow_clone_missing_history_is_a_problem_not_a_crash() {
    let env = TestEnv::new();
    let dir = env.demo();
    let shallow = env.path().join("shallow");
    let url = format!("file://{}", dir.display());
    env.git(
        env.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--branch",
            "ultracode/epic-7",
            &url,
            shallow.to_str().unwrap(),
        ],
    );
    let artifacts = "_bmad-output/implementation-artifacts";
    std::fs::create_dir_all(shallow.join(artifacts)).unwrap();
    for entry in std::fs::read_dir(dir.join(artifacts)).unwrap().flatten() {
        std::fs::copy(
            entry.path(),
            shallow.join(artifacts).join(entry.file_name()),
        )
        .unwrap();
    }
    let out = env.ucg(&shallow).args(["epic", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let problems = doc["stories"][0]["problems"].to_string();
    assert!(problems.contains("does not exist"), "{problems}");
    let out = env
        .ucg(&shallow)
        .args(["diff", "--story", "7-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn colours_are_gits() {
    let env = TestEnv::new();
    let (root, base, tip) = varied_history(&env);
    let range = format!("{base}..{tip}");
    assert_eq!(
        ucg(
            &env,
            &root,
            &["--color=always", "diff", "--range", &range, "--patch"]
        ),
        env.git_raw(&root, &["-c", "color.ui=always", "diff", "-M", &base, &tip])
    );
    assert_eq!(
        ucg(
            &env,
            &root,
            &["--color=always", "diff", "--range", &range, "--stat"]
        ),
        env.git_raw(
            &root,
            &["-c", "color.ui=always", "diff", "--stat", "-M", &base, &tip]
        )
    );
    // NO_COLOR (set for every test) and a pipe mean no colour by default.
    assert!(!ucg(&env, &root, &["diff", "--range", &range, "--patch"]).contains('\u{1b}'));
}

#[test]
fn a_baseline_that_is_not_an_ancestor_of_its_end_is_refused() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(&dir, &["checkout", "-q", "-b", "elsewhere", "main"]);
    write(&dir.join("other.txt"), "not on the epic\n");
    env.git(&dir, &["add", "other.txt"]);
    env.git(&dir, &["commit", "-q", "-m", "elsewhere"]);
    let foreign = env.git(&dir, &["rev-parse", "HEAD"]);
    env.git(&dir, &["checkout", "-q", "ultracode/epic-7"]);
    write(
        &dir.join("_bmad-output/implementation-artifacts/.baseline-7-2"),
        &format!("{foreign}\n"),
    );

    let out = env
        .ucg(&dir)
        .args(["diff", "--story", "7-2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).is_empty(),
        "nothing printed before the check said no"
    );
    assert!(stderr(&out).contains("not an ancestor"), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(
        &env.ucg(&dir)
            .args(["epic", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(doc["stories"][1]["problems"]
        .to_string()
        .contains("not an ancestor"));
}

/// A protected branch named by its full ref name in `workflow.protected_branches` (as the server
/// gate takes `refs/heads/…`) is found by `epic` as by its short name.
#[test]
fn epic_finds_a_protected_branch_by_its_full_name() {
    let env = TestEnv::new();
    let dir = env.demo();
    env.git(&dir, &["branch", "-m", "main", "trunk"]);
    let team = dir.join("_bmad/custom/ultracode-goal.toml");
    let base = |protected: &str| {
        write(
            &team,
            &format!("[workflow]\nprotected_branches = [\"{protected}\"]\n"),
        );
        let out = env.ucg(&dir).args(["epic", "--json"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            doc["branch"]["base"].clone(),
            doc["branch"]["ahead"].clone(),
        )
    };
    let (short, ahead) = base("trunk");
    assert_eq!(short, "trunk");
    assert!(ahead.as_u64().is_some_and(|n| n > 0), "{ahead}");
    assert_eq!(base("refs/heads/trunk"), ("refs/heads/trunk".into(), ahead));
}

#[test]
fn a_path_to_quote_is_quoted_as_git_quotes_it_either_way_of_core_quotepath() {
    let env = TestEnv::new();
    let root = env.repo("p");
    env.git(&root, &["commit", "-q", "--allow-empty", "-m", "base"]);
    let base = env.git(&root, &["rev-parse", "HEAD"]);
    // A tab makes git quote the path; the é is then octal or itself as core.quotePath says.
    write(&root.join("été\tplan.txt"), "one\n");
    env.git(&root, &["add", "-A"]);
    env.git(&root, &["commit", "-qm", "quoted"]);
    let range = format!("{base}..HEAD");
    for quote in ["true", "false"] {
        env.git(&root, &["config", "core.quotePath", quote]);
        for format in ["--name-status", "--numstat", "--stat", "--patch"] {
            let theirs = if format == "--patch" { "-M" } else { format };
            assert_eq!(
                ucg(&env, &root, &["diff", "--range", &range, format]),
                env.git_raw(&root, &["diff", theirs, "-M", &base, "HEAD"]),
                "core.quotePath={quote} {format}"
            );
        }
    }
}
