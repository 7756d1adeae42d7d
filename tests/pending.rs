//! The pending-decision enumeration over a real run's artifacts (the demo's), as status, pending,
//! resolve and the hooks will read it.

use std::path::Path;
use std::process::Command;
use ucg_git::{hermetic, ArtifactSource};
use ucg_ultracode::pending::{enumerate, PendingInputs, Source};

fn demo(dir: &Path) {
    let status = hermetic::isolate(&mut Command::new(env!("CARGO_BIN_EXE_git-ucg")))
        .args(["demo", dir.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn the_three_sources_with_their_stable_ids() {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path().join("demo");
    demo(&root);
    let impl_dir = root.join("_bmad-output/implementation-artifacts");
    let ledger = impl_dir.join("deferred-work.md");
    let inputs = PendingInputs {
        project_root: &root,
        impl_dir: &impl_dir,
        ledger: &ledger,
    };
    let pending = enumerate(&inputs, &ArtifactSource::WorkTree);
    let summary: Vec<_> = pending
        .items
        .iter()
        .map(|i| (i.source, i.id.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (Source::Red, "undecided-product:docs/prd.md:7662cf80acff"),
            (
                Source::Red,
                "undecided-architecture:docs/prd.md:7285281403bc"
            ),
            (
                Source::Escalation,
                "budget-overrun:.escalation-7-3.md:4b4fc07b24b2"
            ),
            (
                Source::Decision,
                "decision:_bmad-output/implementation-artifacts/deferred-work.md:86a2bcce9526"
            ),
        ]
    );
    assert!(pending.blockers.is_empty() && pending.unpromoted.is_empty());

    // A close on record takes a RED off the list; a defer keeps it, with its answer.
    std::fs::write(
        impl_dir.join(".decisions.json"),
        r#"{"decisions": [
            {"id": "undecided-product:docs/prd.md:7662cf80acff", "answer": "30 days", "action": "close"},
            {"id": "undecided-architecture:docs/prd.md:7285281403bc", "answer": "after the pilot", "action": "defer"}]}"#,
    )
    .unwrap();
    // A promoted escalation leaves only its raw marker: unpromoted, not answerable.
    std::fs::remove_file(impl_dir.join("escalation-7-3.json")).unwrap();
    let pending = enumerate(&inputs, &ArtifactSource::WorkTree);
    assert_eq!(pending.items.len(), 2);
    assert_eq!(pending.items[0].answer.as_deref(), Some("after the pilot"));
    assert_eq!(pending.items[0].action.as_deref(), Some("defer"));
    assert_eq!(
        pending.unpromoted,
        ["_bmad-output/implementation-artifacts/.escalation-7-3.md"]
    );

    // A corrupt registry is a blocker of its own, naming the file and the way out.
    std::fs::write(impl_dir.join(".preflight-reds.json"), "{ corrupt").unwrap();
    let pending = enumerate(&inputs, &ArtifactSource::WorkTree);
    assert_eq!(pending.blockers.len(), 1);
    assert!(pending.blockers[0]
        .artifact
        .ends_with(".preflight-reds.json"));
    assert!(pending.blockers[0].way_out.contains("move it aside"));
}
