//! `git ucg gate --format github|junit`: the decision as CI services read it, byte for byte on the
//! demo (its content is fixed), escaped whatever an artifact holds, and the JUnit report parsed as
//! XML.

use crate::common::*;
use std::path::Path;
use std::process::Output;

const IMPL: &str = "_bmad-output/implementation-artifacts";

fn gate(env: &TestEnv, dir: &Path, args: &[&str]) -> Output {
    env.ucg(dir).arg("gate").args(args).output().unwrap()
}

/// A typed escalation sidecar whose fields hold what a reader must escape.
fn hostile_escalation(dir: &Path) {
    let sidecar = serde_json::json!({
        "source": ".escalation-7-9.md",
        "kind": "odd,kind:x",
        "decision_needed": "100% sure?\r\nline two ]]> <b>&amp;\u{1}\u{1b}[2J\u{7f}\u{fffe} \"q\" 'a'",
        "evidence": "ends the CDATA ]]> and <!-- a comment",
    });
    write(
        &dir.join(IMPL).join("escalation-7-9.json"),
        &serde_json::to_string(&sidecar).unwrap(),
    );
}

/// The demo's four decisions as the demo writes them.
const DEMO_GITHUB: &str = "\
::error file=_bmad-output/implementation-artifacts/.preflight-reds.json,title=undecided-product 7662cf80acff::Do sessions expire, and after how long?
::error file=_bmad-output/implementation-artifacts/.preflight-reds.json,title=undecided-architecture 7285281403bc::Which payment provider ships first: Stripe or Adyen?
::error file=_bmad-output/implementation-artifacts/escalation-7-3.json,title=budget-overrun 4b4fc07b24b2::re-scope, split, or hand off the story
::error file=_bmad-output/implementation-artifacts/deferred-work.md,title=decision 86a2bcce9526::Operator sign-off on the session retry policy, batched to the end of the run.
";

const DEMO_JUNIT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="git-ucg gate" tests="4" failures="4">
    <properties>
      <property name="read_from" value="the work tree"/>
    </properties>
    <testcase classname="git-ucg.gate.red" name="undecided-product:docs/prd.md:7662cf80acff">
      <failure message="Do sessions expire, and after how long?" type="undecided-product">artifact: _bmad-output/implementation-artifacts/.preflight-reds.json
evidence: &quot;Sessions: TBD&quot;
answer: git ucg resolve --close 7662cf80acff --answer TEXT
</failure>
    </testcase>
    <testcase classname="git-ucg.gate.red" name="undecided-architecture:docs/prd.md:7285281403bc">
      <failure message="Which payment provider ships first: Stripe or Adyen?" type="undecided-architecture">artifact: _bmad-output/implementation-artifacts/.preflight-reds.json
evidence: &quot;Payment provider: TBD (Stripe or Adyen)&quot;
answer: git ucg resolve --close 7285281403bc --answer TEXT
</failure>
    </testcase>
    <testcase classname="git-ucg.gate.escalation" name="budget-overrun:.escalation-7-3.md:4b4fc07b24b2">
      <failure message="re-scope, split, or hand off the story" type="budget-overrun">artifact: _bmad-output/implementation-artifacts/escalation-7-3.json
evidence: Story turn budget exceeded (turns 26/25).
answer: git ucg resolve --close 4b4fc07b24b2 --answer TEXT
</failure>
    </testcase>
    <testcase classname="git-ucg.gate.decision" name="decision:_bmad-output/implementation-artifacts/deferred-work.md:86a2bcce9526">
      <failure message="Operator sign-off on the session retry policy, batched to the end of the run." type="decision">artifact: _bmad-output/implementation-artifacts/deferred-work.md
evidence: d2 (med, story 7-2)
answer: git ucg resolve --close 86a2bcce9526 --answer TEXT
</failure>
    </testcase>
  </testsuite>
</testsuites>
"#;

/// The report's test cases: (classname, name, failure message, failure type).
fn cases(xml: &str) -> Vec<(String, String, Option<String>, Option<String>)> {
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), 1);
    let suite = suites[0];
    assert_eq!(suite.attribute("name"), Some("git-ucg gate"));
    let found: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|case| {
            let failure = case.children().find(|n| n.has_tag_name("failure"));
            (
                case.attribute("classname").unwrap().to_string(),
                case.attribute("name").unwrap().to_string(),
                failure.and_then(|f| f.attribute("message").map(str::to_string)),
                failure.and_then(|f| f.attribute("type").map(str::to_string)),
            )
        })
        .collect();
    let failures = found.iter().filter(|c| c.2.is_some()).count();
    assert_eq!(
        suite.attribute("tests"),
        Some(found.len().to_string().as_str())
    );
    assert_eq!(
        suite.attribute("failures"),
        Some(failures.to_string().as_str())
    );
    found
}

#[test]
fn gate_for_github_annotates_each_blocker() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = gate(&env, &dir, &["--format", "github"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), DEMO_GITHUB);
    assert_eq!(stderr(&out), "");
    // `--json` is `--format json`, and the two do not mix.
    let json = gate(&env, &dir, &["--json"]);
    assert_eq!(json.status.code(), Some(1));
    assert_eq!(json.stdout, gate(&env, &dir, &["--format", "json"]).stdout);
    assert_eq!(
        gate(&env, &dir, &["--json", "--format", "github"])
            .status
            .code(),
        Some(2)
    );

    // What GitHub reads as the command's syntax is escaped in the artifact's text.
    hostile_escalation(&dir);
    let out = gate(&env, &dir, &["--format", "github"]);
    let text = stdout(&out);
    let last = text.lines().find(|l| l.contains("escalation-7-9")).unwrap();
    let handle = last
        .split("title=")
        .nth(1)
        .and_then(|rest| rest.split("::").next())
        .and_then(|title| title.rsplit(' ').next())
        .unwrap();
    assert_eq!(
        last,
        format!(
            "::error file=_bmad-output/implementation-artifacts/escalation-7-9.json,title=odd%2Ckind%3Ax {handle}::100%25 sure?%0D%0Aline two ]]> <b>&amp;\\x01\\x1b[2J\\x7f\u{fffe} \"q\" 'a'"
        )
    );
    assert_eq!(text.lines().count(), 5, "one line per blocker: {text}");

    // An artifact that cannot be read is annotated too.
    write(&dir.join(IMPL).join(".preflight-reds.json"), "{");
    let out = gate(&env, &dir, &["--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let unreadable = text.lines().last().unwrap();
    assert!(
        unreadable.starts_with(
            "::error file=_bmad-output/implementation-artifacts/.preflight-reds.json,title=unreadable .preflight-reds.json::the RED registry cannot be read: "
        ) && unreadable.ends_with("; repair it by hand, or move it aside and rerun the preflight scan (git ucg reds apply --scan FILE) to rebuild it"),
        "{text}"
    );

    // Nothing pending: no annotation at all, exit 0.
    let clear = env.repo("clear");
    let out = gate(&env, &clear, &["--format", "github"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}

#[test]
fn gate_for_junit_reports_each_blocker() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = gate(&env, &dir, &["--format", "junit"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), DEMO_JUNIT);
    let found = cases(&stdout(&out));
    assert_eq!(found.len(), 4);
    assert_eq!(
        found[2],
        (
            "git-ucg.gate.escalation".to_string(),
            "budget-overrun:.escalation-7-3.md:4b4fc07b24b2".to_string(),
            Some("re-scope, split, or hand off the story".to_string()),
            Some("budget-overrun".to_string()),
        )
    );

    // An unreadable artifact is a failing case of its own.
    write(&dir.join(IMPL).join(".preflight-reds.json"), "{");
    let out = gate(&env, &dir, &["--format", "junit"]);
    assert_eq!(out.status.code(), Some(1));
    let found = cases(&stdout(&out));
    let unreadable = found
        .iter()
        .find(|c| c.0 == "git-ucg.gate.unreadable")
        .unwrap();
    assert_eq!(unreadable.1, format!("{IMPL}/.preflight-reds.json"));
    assert_eq!(unreadable.3.as_deref(), Some("unreadable"));

    // Nothing pending: one passing case, so that CI shows the gate ran; `--rev` says what it read.
    let clear = env.repo("clear");
    let out = gate(&env, &clear, &["--format", "junit", "--rev", "HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="git-ucg gate" tests="1" failures="0">
    <properties>
      <property name="read_from" value="commit HEAD"/>
    </properties>
    <testcase classname="git-ucg.gate" name="nothing pending"/>
  </testsuite>
</testsuites>
"#
    );
    assert_eq!(
        cases(&stdout(&out)),
        [(
            "git-ucg.gate".to_string(),
            "nothing pending".to_string(),
            None,
            None
        )]
    );
}

#[test]
fn junit_stays_xml_whatever_the_artifacts_hold() {
    let env = TestEnv::new();
    let dir = env.demo();
    hostile_escalation(&dir);
    let out = gate(&env, &dir, &["--format", "junit"]);
    assert_eq!(out.status.code(), Some(1));
    let xml = stdout(&out);
    let found = cases(&xml);
    let odd = found
        .iter()
        .find(|c| c.3.as_deref() == Some("odd,kind:x"))
        .unwrap();
    assert_eq!(odd.0, "git-ucg.gate.escalation");
    // The message keeps every character XML can carry, CR and LF included; the control
    // characters it cannot carry are written visibly.
    assert_eq!(
        odd.2.as_deref(),
        Some("100% sure?\r\nline two ]]> <b>&amp;\\x01\\x1b[2J\\x7f\\u{fffe} \"q\" 'a'")
    );
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure") && n.attribute("type") == Some("odd,kind:x"))
        .unwrap();
    assert!(
        failure
            .text()
            .unwrap()
            .contains("evidence: ends the CDATA ]]> and <!-- a comment\n"),
        "{xml}"
    );
}

/// A gate that cannot judge (a revision that names nothing) still gives a CI report step its
/// document: a JUnit test case in error, a GitHub `::error::` line — exit 2 as before.
#[test]
fn a_gate_that_cannot_judge_says_so_in_the_ci_formats() {
    let env = TestEnv::new();
    let dir = env.demo();
    let out = env
        .ucg(&dir)
        .args(["gate", "--rev", "nosuchrev", "--format", "junit"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let xml = stdout(&out);
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}:\n{xml}"));
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("errors"), Some("1"));
    let error = doc.descendants().find(|n| n.has_tag_name("error")).unwrap();
    assert!(
        error.attribute("message").unwrap().contains("nosuchrev"),
        "{xml}"
    );
    let out = env
        .ucg(&dir)
        .args(["gate", "--rev", "nosuchrev", "--format", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).starts_with("::error title=git-ucg gate cannot judge::cannot resolve"),
        "{}",
        stdout(&out)
    );
}
