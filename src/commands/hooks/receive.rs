//! The shared remote's gate (`hooks install --server`): the pre-receive hook of the repository
//! everyone pushes to. A push that updates a protected branch (`ucg.gate.protect`, default `main`
//! and `master`) is refused while the pushed commit's tree tracks pending decisions, judged from
//! that tree alone — the run located by the configuration the tree carries — exactly as
//! `git ucg gate --rev <commit>` judges it there. Other refs, and deletions, pass. git shows what
//! this prints on stderr to the pusher (`remote: …`); a refusal refuses the whole push.

use super::answers;
use crate::context::Context;
use crate::error::Result;
use crate::render::visible;
use ucg_ultracode::gate;

/// Judges the `<old> <new> <ref>` lines git gives a pre-receive hook: the exit code (1 refuses).
pub(crate) fn pre_receive(ctx: &Context, stdin: &[u8]) -> Result<u8> {
    let way_forward =
        "Then commit the answers and push again: this server's gate has no bypass for a push.";
    let Ok(text) = std::str::from_utf8(stdin) else {
        eprintln!("git-ucg: the pushed refs on stdin are not text; refusing the push.");
        return Ok(1);
    };
    let protected = ctx.gate_protected();
    let policy = ctx.gate_policy();
    let mut blocked = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [old, new, reference] = fields[..] else {
            eprintln!("git-ucg: cannot read the pushed ref line {line:?}; refusing the push.");
            return Ok(1);
        };
        // A deletion pushes no commit; a ref that is not protected is not the gate's. A symbolic
        // ref updates the ref it aliases: an alias of a protected branch is that branch.
        let target = ctx
            .repo()
            .map(|repo| ucg_git::repo::alias_target(repo, reference))
            .unwrap_or_else(|_| reference.to_string());
        let protects = |name: &str| gate::protects(&protected, name);
        if new.bytes().all(|b| b == b'0') || !(protects(reference) || protects(&target)) {
            continue;
        }
        let name = reference.strip_prefix("refs/heads/").unwrap_or(reference);
        let action = format!("push to {name}");
        let short: String = new.chars().take(7).collect();
        match ctx.commit_gate_inputs(new, None) {
            Ok((inputs, commit)) => {
                let decision = inputs.decide(&commit, &policy);
                // A push that only adds answers goes ahead while decisions wait.
                if decision.blocked() && answers::of_received(ctx, old, new, &inputs).is_ok() {
                    eprintln!("git-ucg: {action}: answers only, so it goes ahead.");
                    continue;
                }
                if decision.blocked() {
                    let where_read = format!("{reference} at {short}");
                    // Git shows it after `remote: `, eight columns.
                    let prefix = crate::output::REMOTE_PREFIX;
                    super::say_refusal(ctx, decision, &action, &where_read, prefix);
                    blocked = true;
                }
            }
            // A commit whose run cannot be located (its configuration cannot be resolved) may
            // hide a decision: refused, as the hooks refuse a commit then.
            Err(error) => {
                eprint!("{}", visible::escape_controls(&error.render(), &[]));
                eprintln!(
                    "git-ucg: {action} refused: the run of {reference} at {short} cannot be located (above)."
                );
                blocked = true;
            }
        }
    }
    if blocked {
        crate::output::say_narrower(&format!("{way_forward}\n"), crate::output::REMOTE_PREFIX);
    }
    let lines: Vec<(&str, &str, &str)> = text
        .lines()
        .filter_map(
            |line| match line.split_whitespace().collect::<Vec<_>>()[..] {
                [old, new, reference] => Some((old, new, reference)),
                _ => None,
            },
        )
        .collect();
    // Bypasses on record are reported (or refused) whatever the gate decided of the tips.
    let refused_bypass = super::bypass::on_receive(ctx, &lines);
    Ok(u8::from(blocked || refused_bypass))
}
