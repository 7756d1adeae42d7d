//! Differences from the reference (README, "Differences from the reference", lesson): one test per
//! row that no test above covers. Everywhere else git-ucg behaves as DG-Anvil does, which the
//! conformance cases (../shared/compat/lesson) check.

use super::support::*;
use crate::common::*;
use serde_json::{json, Value};
use std::process::{Command, Output};
use std::time::Duration;

/// An index of `null` is no index yet (the reference throws on it after appending, leaving the
/// index stale); an index whose `by_pattern`/`by_id` is not an object, or whose key holds
/// something other than a list, is refused before the ledger is touched (the reference throws
/// after appending, or writes an index that lost the id).
#[test]
fn difference_an_index_the_reference_cannot_update() {
    let env = TestEnv::new();
    write(&index_path(&env), "null");
    append(&env, &[lesson("L-1", "2026-01-01", "g", &["a"])]);
    assert_eq!(
        read_text(&index_path(&env)),
        r#"{"by_pattern":{"a":["L-1"]},"by_id":{"L-1":{"created":"2026-01-01"}}}"#
    );
    for bad in [
        r#"{"by_pattern":"text","by_id":{}}"#,
        r#"{"by_pattern":{},"by_id":[1]}"#,
        r#"{"by_pattern":{"a":5},"by_id":{}}"#,
        r#"{"by_pattern":{"a":"other ids"},"by_id":{}}"#,
        "7",
    ] {
        write(&index_path(&env), bad);
        let before = files(&env);
        let doc = refusal(&append_text(
            &env,
            jsonl(&[lesson("L-2", "2026-01-02", "g", &["a"])]).as_bytes(),
        ));
        assert_eq!(doc["code"], "E_INDEX_DESYNC", "{bad}");
        assert_eq!(files(&env), before, "{bad}");
    }
    // A key holding a string that already contains the id: the reference's `includes` is true,
    // nothing to do, and the append goes through.
    write(
        &index_path(&env),
        r#"{"by_pattern":{"a":"has L-3 in it"},"by_id":{}}"#,
    );
    append(&env, &[lesson("L-3", "2026-01-03", "g", &["a"])]);
    assert_eq!(
        read_text(&index_path(&env)),
        r#"{"by_pattern":{"a":"has L-3 in it"},"by_id":{"L-3":{"created":"2026-01-03"}}}"#
    );
}

/// Pattern keys the reference finds on `Object.prototype` (`constructor`, `__proto__`,
/// `valueOf`…) make it throw after appending; an id `__proto__` is lost from its `by_id`. For
/// git-ucg they are keys like any other.
#[test]
fn difference_object_prototype_names_are_ordinary_keys() {
    let env = TestEnv::new();
    append(
        &env,
        &[
            lesson(
                "__proto__",
                "2026-01-01",
                "g",
                &["constructor", "__proto__", "valueOf"],
            ),
            lesson("L-2", "2026-01-02", "g", &["toString"]),
        ],
    );
    assert_eq!(
        read_text(&index_path(&env)),
        r#"{"by_pattern":{"constructor":["__proto__"],"__proto__":["__proto__"],"valueof":["__proto__"],"tostring":["L-2"]},"by_id":{"__proto__":{"created":"2026-01-01"},"L-2":{"created":"2026-01-02"}}}"#
    );
    assert_eq!(ids(&query(&env, &["constructor"])), ["__proto__"]);
    assert_audit_ok(&env);
}

/// `tags` that cannot be iterated (a number, `true`, an object), with no `pattern` list, make the
/// reference throw after appending; git-ucg indexes such a lesson under no key. A string `tags`
/// is iterated by character, as there.
#[test]
fn difference_tags_that_cannot_be_iterated_give_no_keys() {
    let env = TestEnv::new();
    let mut lessons = Vec::new();
    for (i, tags) in [json!(5), json!(true), json!({"a": 1}), json!("Ab")]
        .into_iter()
        .enumerate()
    {
        let mut l = lesson(&format!("L-{i}"), "2026-01-01", "g", &[]);
        l.as_object_mut().unwrap().remove("pattern");
        l["tags"] = tags;
        lessons.push(l);
    }
    append(&env, &lessons);
    assert_eq!(
        index(&env)["by_pattern"],
        json!({"a": ["L-3"], "b": ["L-3"]})
    );
}

/// A query reads no index: an unparseable one, which makes the reference's query fail with
/// `E_INVALID_JSON`, changes nothing.
#[test]
fn difference_query_ignores_the_index() {
    let env = TestEnv::new();
    append(&env, &[lesson("L-1", "2026-01-01", "g", &["rate"])]);
    write(&index_path(&env), "{not json");
    assert_eq!(ids(&query(&env, &["rate"])), ["L-1"]);
}

/// Equal scores are ordered by `created` with `localeCompare`; a `created` that is not a string
/// makes the reference's comparison throw. git-ucg compares `String(created)`.
#[test]
fn difference_a_created_that_is_not_a_string_is_compared_as_text() {
    let env = TestEnv::new();
    let mut numeric = lesson("L-num", "x", "g", &["tie"]);
    numeric["created"] = json!(2027);
    seed(
        &ledger_path(&env),
        &[
            numeric,
            lesson("L-a", "a", "g", &["tie"]),
            lesson("L-b", "B", "g", &["tie"]),
            lesson("L-e", "É", "g", &["tie"]),
        ],
    );
    // en-US collation: letters after digits, accents and case after the base letter.
    assert_eq!(ids(&query(&env, &["tie"])), ["L-e", "L-b", "L-a", "L-num"]);
}

/// A `null` line in the ledger makes the reference's `retroactive` throw (it reads the line's
/// `contract_gap`); git-ucg passes over it.
#[test]
fn difference_retro_passes_over_a_null_line() {
    let env = TestEnv::new();
    let old = lesson("L-old", "2026-01-01", OLD_GAP, &["astro"]);
    write(&ledger_path(&env), &format!("null\n{old}\n"));
    let contract = retro_contract(&env);
    let entry = retro_ok(&env, &ledger_path(&env), &contract, NEW_GAP);
    assert_eq!(entry["supersedes"], json!(["L-old"]));
}

/// The marker of a lesson whose `pattern` is not a list has no `pattern` (the reference writes
/// `[]`), so it is indexed under its tags: the index can find invalidations.
#[test]
fn difference_a_marker_carries_pattern_only_when_it_is_a_list() {
    let env = TestEnv::new();
    let mut bare = lesson("L-1", "2026-01-01", "g", &[]);
    bare["pattern"] = json!("rate limit");
    append(&env, &[bare, lesson("L-2", "2026-01-02", "g", &["cache"])]);
    for (id, want) in [("L-1", None), ("L-2", Some(json!(["cache"])))] {
        ok_json(&run(
            &env,
            &["invalidate", "--lesson", id, "--reason", "stale"],
        ));
        let marker = parsed_lines(&ledger_path(&env)).pop().unwrap();
        assert_eq!(marker.get("pattern").cloned(), want, "{id}");
    }
    let idx = index(&env);
    assert_eq!(
        idx["by_pattern"]["invalidation"].as_array().unwrap().len(),
        1
    );
    assert_eq!(idx["by_pattern"]["cache"].as_array().unwrap().len(), 2);
}

/// `--help` and `-h` print help (the reference refuses them as unknown flags); every other
/// unknown flag is refused as there.
#[test]
fn difference_help_flags_print_help() {
    let env = TestEnv::new();
    for args in [
        &["query", "rate", "--help"][..],
        &["retro", "-h"],
        &["append", "--help"],
    ] {
        let out = run(&env, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            stdout(&out).contains("Usage: git ucg lesson"),
            "{args:?}: {}",
            stdout(&out)
        );
    }
    let doc = refusal(&run(&env, &["query", "rate", "--verbose"]));
    assert_eq!(doc["code"], "E_UNKNOWN_FLAG");
    assert_eq!(
        doc["details"],
        json!({"flag": "--verbose", "argv_index": 1})
    );
    let doc = refusal(&run(&env, &["invalidate", "--lesson", "L-1"]));
    assert_eq!(doc["code"], "E_MISSING_ARG");
    assert_eq!(doc["details"], json!({"flag": "--reason"}));
    let doc = refusal(&run(&env, &["nope"]));
    assert_eq!(doc["code"], "E_UNKNOWN_SUBCOMMAND");
    assert_eq!(
        doc["details"],
        json!({"subcommand": "ledger", "received": "nope"})
    );
}

/// A pattern value that is an object with its own `toString` key makes the reference's
/// `String(x)` throw; git-ucg writes `[object Object]` for every object.
#[test]
fn difference_an_object_with_its_own_tostring_is_an_object() {
    let env = TestEnv::new();
    let mut l = lesson("L-1", "2026-01-01", "g", &[]);
    l["pattern"] = json!([{"toString": 1}, "Rate"]);
    append(&env, &[l]);
    assert_eq!(
        index(&env)["by_pattern"],
        json!({"[object object]": ["L-1"], "rate": ["L-1"]})
    );
    assert_eq!(ids(&query(&env, &["object"])), ["L-1"]);
}

/// A `__proto__:` key in a contract's front matter would set the prototype of the reference's
/// parsed object (its keys then seem present); git-ucg leaves the key out.
#[test]
fn difference_a_proto_key_in_a_contract_is_left_out() {
    let env = TestEnv::new();
    let contract = env.path().join("contract.yml");
    write(
        &contract,
        &RETRO_CONTRACT.replace("goal: ", "__proto__:\n  x: 1\ngoal: "),
    );
    let entry = retro_ok(&env, &ledger_path(&env), &contract, "a gap");
    assert_eq!(entry["source_criterion_id"], "C1");
}

/// `retro` of criterion C1 on `contract`, which must finish within `seconds` (it is killed and the
/// test fails if it reads, or waits, for longer).
fn retro_within(env: &TestEnv, contract: &std::path::Path, seconds: u64) -> Output {
    let mut command = cmd(env);
    command
        .args(["retro", "--contract", contract.to_str().unwrap()])
        .args(["--criterion", "C1", "--gap-note", "x"]);
    within(&mut command, Duration::from_secs(seconds))
        .unwrap_or_else(|| panic!("retro of {} took over {seconds} s", contract.display()))
}

/// A list item that looks like `key: value` but has no key to read (its `:` after a `#`, or
/// inside quotes) sends the reference's YAML reader round the same line until node's heap is
/// exhausted; git-ucg refuses the contract (`E_INVALID_YAML`, feature `sequence-item`), at once.
#[test]
fn difference_a_list_item_with_no_readable_key_is_an_error() {
    let env = TestEnv::new();
    for item in ["u#x: y", "\"a: b"] {
        let contract = env.path().join("contract.yml");
        write(
            &contract,
            &format!("{RETRO_CONTRACT_HEAD}notes:\n  - {item}\n{RETRO_CONTRACT_END}"),
        );
        let doc = refusal(&retro_within(&env, &contract, 10));
        assert_eq!(doc["code"], "E_INVALID_YAML", "{item}");
        assert_eq!(doc["details"]["feature"], "sequence-item", "{item}");
        assert_eq!(doc["details"]["line"], 29, "{item}");
    }
}

/// JSON nested deeper than 20,000 levels is malformed for git-ucg (the reference parses it, and
/// its `JSON.stringify` then overflows the stack): a query skips the line, an append refuses it.
#[test]
fn difference_json_nested_too_deep_is_malformed() {
    let env = TestEnv::new();
    let deep = format!("{}{}", "[".repeat(30_000), "]".repeat(30_000));
    let good = lesson("L-1", "2026-01-01", "g", &["rate"]);
    write(
        &ledger_path(&env),
        &format!("{{\"id\":\"L-0\",\"pattern\":[\"rate\"],\"x\":{deep}}}\n{good}\n"),
    );
    assert_eq!(ids(&query(&env, &["rate"])), ["L-1"]);
    let mut too_deep = lesson("L-2", "2026-01-02", "g", &["rate"]).to_string();
    too_deep.insert_str(1, &format!("\"x\":{deep},"));
    let doc = refusal(&append_text(&env, format!("{too_deep}\n").as_bytes()));
    assert_eq!(doc["code"], "E_IO");
    assert_eq!(doc["details"]["line"], 1);
}

/// Issue 16: a lesson append killed (SIGKILL) at any moment leaves the ledger as its old bytes
/// plus whole lines, and no reader hangs on a FIFO in the ledger's or the index's place.
#[test]
fn a_killed_append_leaves_whole_lines_and_fifos_do_not_hang() {
    let env = TestEnv::new();
    append(
        &env,
        &[lesson("L-0", "2026-01-01", "first gap", &["alpha"])],
    );
    let input = env.path().join("input.jsonl");
    for round in 0..20u64 {
        let before = read(&ledger_path(&env));
        let lines: Vec<Value> = (0..50)
            .map(|n| lesson(&format!("L-{round}-{n}"), "2026-01-02", "a gap", &["beta"]))
            .collect();
        std::fs::write(&input, jsonl(&lines)).unwrap();
        let mut child = cmd(&env)
            .args(["append", "--file", input.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(round * 600));
        let _ = child.kill();
        let _ = child.wait();
        let after = read(&ledger_path(&env));
        assert!(after.starts_with(&before), "round {round}: old bytes kept");
        let intended = jsonl(&lines);
        let added = &after[before.len()..];
        // Linux may stop a killed write() at a page boundary, so the batch can end in a torn
        // line: only ever a prefix of what was being appended, never anything else.
        assert!(
            intended.as_bytes().starts_with(added),
            "round {round}: only a prefix of the appended lines"
        );
        // The torn line is no lesson for a reader, and the next append cuts it off.
        assert!(
            run(&env, &["query", "beta"]).status.success(),
            "round {round}: query"
        );
        append(
            &env,
            &[lesson(
                &format!("L-{round}-next"),
                "2026-01-03",
                "next",
                &["beta"],
            )],
        );
        let healed = read(&ledger_path(&env));
        assert!(healed.starts_with(&before), "round {round}: old bytes kept");
        assert!(
            healed.ends_with(b"\n"),
            "round {round}: the torn tail is cut"
        );
        for line in String::from_utf8_lossy(&healed[before.len()..]).lines() {
            serde_json::from_str::<Value>(line).expect("a whole line");
        }
    }
    for which in [ledger_path, index_path] {
        let env = TestEnv::new();
        append(&env, &[lesson("L-0", "2026-01-01", "first gap", &["beta"])]);
        let path = which(&env);
        std::fs::remove_file(&path).unwrap();
        let status = Command::new("mkfifo").arg(&path).status().unwrap();
        assert!(status.success());
        for args in [&["query", "beta"][..], &["audit"]] {
            within(cmd(&env).args(args), Duration::from_secs(5))
                .unwrap_or_else(|| panic!("{args:?} hangs on a FIFO at {}", path.display()));
        }
    }
}

/// Difference: a FIFO in place of the contract is refused at once (the reference waits on it).
#[test]
fn difference_a_fifo_contract_is_refused() {
    let env = TestEnv::new();
    let contract = env.path().join("contract.yml");
    let status = Command::new("mkfifo").arg(&contract).status().unwrap();
    assert!(status.success());
    let out = retro_within(&env, &contract, 5);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a FIFO, not a regular file"),
        "{}",
        stderr(&out)
    );
}

/// The query index kept beside a large ledger (`.ledger.jsonl.git-ucg-query`): the first query
/// scans and keeps it, the next answers from it with the same output, warnings included. Any
/// write to the ledger makes it stale — an append as DG-Anvil makes it, a same-size edit in
/// place even with the modification time put back. Whatever stands in its place (a FIFO, a
/// symlink, garbage) is not believed, never waited on, and replaced, not written through. A small
/// ledger gets no index.
#[test]
fn query_keeps_an_index_of_a_large_ledger_while_the_ledger_is_unchanged() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::new();
    let kept = env.path().join(".anvil/.ledger.jsonl.git-ucg-query");
    append(&env, &[lesson("L-small", "2026-01-01", "g", &["rate"])]);
    assert_eq!(ids(&query(&env, &["rate"])), ["L-small"]);
    assert!(!kept.exists(), "no index for a small ledger");

    let mut text = String::new();
    for i in 0..4000 {
        let word = format!("w{}", i % 50);
        let date = format!("2026-01-{:02}", 1 + i % 28);
        let line = lesson(
            &format!("L-{i:05}"),
            &date,
            &"gap ".repeat(40),
            &[&word, "rate"],
        );
        text.push_str(&format!("{line}\n"));
        if i == 1000 {
            text.push_str("{oops\nnull\n");
        }
    }
    write(&ledger_path(&env), &text);
    let ask = || run(&env, &["query", "w7 rate", "--json"]);
    let shown = |out: &Output| (stdout(out), stderr(out));
    let first = ask();
    assert!(
        stderr(&first).contains(":1002: malformed line skipped"),
        "{}",
        stderr(&first)
    );
    assert!(
        stderr(&first).contains(":1003: a null line, skipped"),
        "{}",
        stderr(&first)
    );
    let ino = std::fs::metadata(&kept).expect("an index is kept").ino();
    let second = ask();
    assert_eq!(shown(&second), shown(&first));
    assert_eq!(
        std::fs::metadata(&kept).unwrap().ino(),
        ino,
        "answered from the index"
    );

    // An append as DG-Anvil makes it (no git-ucg involved).
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(ledger_path(&env))
        .unwrap();
    std::io::Write::write_all(
        &mut file,
        format!("{}\n", lesson("L-new", "2026-02-01", "g", &["w7", "rate"])).as_bytes(),
    )
    .unwrap();
    drop(file);
    let appended = ask();
    assert_eq!(ids(ok_json(&appended).as_array().unwrap())[0], "L-new");
    assert_ne!(std::fs::metadata(&kept).unwrap().ino(), ino, "rebuilt");

    // The same size, edited in place, its modification time put back.
    let before = std::fs::metadata(ledger_path(&env)).unwrap();
    let edited = read_text(&ledger_path(&env)).replace("\"id\":\"L-new\"", "\"id\":\"L-neW\"");
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(ledger_path(&env))
        .unwrap();
    std::io::Write::write_all(&mut &file, edited.as_bytes()).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    drop(file);
    let after = std::fs::metadata(ledger_path(&env)).unwrap();
    assert_eq!(
        (after.len(), after.ino(), after.mtime_nsec()),
        (before.len(), before.ino(), before.mtime_nsec())
    );
    assert_eq!(ids(ok_json(&ask()).as_array().unwrap())[0], "L-neW");
    let settled = shown(&ask());

    // Not an index: a FIFO, a symlink to something else, garbage.
    let decoy = env.path().join("decoy");
    write(&decoy, "not an index");
    for plant in ["fifo", "symlink", "garbage"] {
        std::fs::remove_file(&kept).unwrap();
        match plant {
            "fifo" => assert!(Command::new("mkfifo")
                .arg(&kept)
                .status()
                .unwrap()
                .success()),
            "symlink" => std::os::unix::fs::symlink(&decoy, &kept).unwrap(),
            _ => write(&kept, "git-ucg lessonq\nrest"),
        }
        let mut query = cmd(&env);
        query.args(["query", "w7 rate", "--json"]);
        let out = within(&mut query, Duration::from_secs(10))
            .unwrap_or_else(|| panic!("query waits on a {plant} in the index's place"));
        assert_eq!(shown(&out), settled, "{plant}");
        assert!(
            std::fs::symlink_metadata(&kept).unwrap().is_file(),
            "{plant} replaced"
        );
        assert_eq!(read_text(&decoy), "not an index");
    }
}
