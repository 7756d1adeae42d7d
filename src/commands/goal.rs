//! `git ucg goal`: the ultragoal state machine, speaking its TypeScript state CLI's language —
//! the same argument rules, the same outputs, exit 0, or 1 with the reference's refusal line on
//! stderr. The session id is checked before any subcommand runs, as there. Unlike the reference,
//! every writer reads, validates and writes under the state lock in one step.

mod diff;
mod gc;
mod stop_hook;
mod view;

use crate::cli::{GoalArgs, GoalCommand};
use crate::context::Context;
use crate::error::Result;
use crate::goal::args::{self, Parsed};
use crate::goal::phase::{self, CodexSnapshot, CompletionInputs, SetRequest};
use crate::goal::session::{self, Read, Session};
use crate::goal::stories::{self, Steering, Story};
use crate::goal::{self, dir, liveness, review_lane, Refusal, Reply};
use serde_json::Value;
use std::io::{Read as _, Write};

type Outcome = std::result::Result<Reply, Refusal>;

pub fn run(ctx: &Context, args: &GoalArgs) -> Result<u8> {
    if let Some(GoalCommand::StopHook) = args.command {
        return stop_hook::run(args.omt_dir.as_deref());
    }
    let sid = match dir::session_id(args.session.as_deref()) {
        Ok(sid) => sid,
        Err(message) => return Ok(refuse(&Refusal::Thrown(message))),
    };
    let cwd = std::env::current_dir()?;
    let (omt_dir, warning) = dir::omt_dir(args.omt_dir.as_deref(), &cwd);
    if let Some(warning) = warning {
        eprintln!("{warning}");
    }
    let session = Session::new(omt_dir, sid);
    let Some(command) = &args.command else {
        return Ok(refuse(&Refusal::direct(USAGE)));
    };
    let outcome = match command {
        GoalCommand::Current(json) => return view::run_current(&session, json.json.on),
        GoalCommand::Show(json) => return view::run_show(ctx, &session, json.json.on),
        GoalCommand::Gc(args) => return gc::run(&session, args.dry_run, args.json.on),
        GoalCommand::Diff(args) => return diff::run(ctx, &session, args),
        GoalCommand::Unknown(_) => Err(Refusal::direct(USAGE)),
        raw => dispatch(&session, raw),
    };
    match outcome {
        Ok(reply) => {
            for notice in &reply.notices {
                eprintln!("{notice}");
            }
            let mut stdout = std::io::stdout().lock();
            stdout.write_all(reply.stdout.as_bytes())?;
            stdout.flush()?;
            Ok(u8::from(reply.failed))
        }
        Err(refusal) => Ok(refuse(&refusal)),
    }
}

/// The state CLI's usage line, for a missing or unknown subcommand.
const USAGE: &str = "Usage: git ucg goal <set|set-verdict|set-budget-limited|resume-pursuit|set-blocked|\
request-complete|claim-review-dispatch|approve-review-dispatch-renewal|dismiss-review-finding|get|status|\
list-others|adopt|set-stories|confirm-story|confirm-all-stories|reorder-stories|revise-story|add-story|\
retire-story|split-story|serialize-requirements|serialize-review-context|current|show|gc|stop-hook|diff> \
[options]";

/// A refusal as the TypeScript CLI prints it: exit 1.
fn refuse(refusal: &Refusal) -> u8 {
    eprintln!("{}", refusal.line());
    1
}

/// The raw arguments of a state CLI subcommand.
fn raw_args(command: &GoalCommand) -> &[String] {
    use GoalCommand as C;
    match command {
        C::Set(a)
        | C::SetVerdict(a)
        | C::RequestComplete(a)
        | C::SetBudgetLimited(a)
        | C::SetBlocked(a)
        | C::ResumePursuit(a)
        | C::SetStories(a)
        | C::ConfirmStory(a)
        | C::ConfirmAllStories(a)
        | C::ReorderStories(a)
        | C::AddStory(a)
        | C::ReviseStory(a)
        | C::RetireStory(a)
        | C::SplitStory(a)
        | C::Get(a)
        | C::Status(a)
        | C::SerializeRequirements(a)
        | C::SerializeReviewContext(a)
        | C::ListOthers(a)
        | C::Adopt(a)
        | C::ClaimReviewDispatch(a)
        | C::ApproveReviewDispatchRenewal(a)
        | C::DismissReviewFinding(a) => &a.args,
        C::Current(_) | C::Show(_) | C::Gc(_) | C::StopHook | C::Diff(_) | C::Unknown(_) => &[],
    }
}

fn dispatch(session: &Session, command: &GoalCommand) -> Outcome {
    use GoalCommand as C;
    let raw = raw_args(command);
    let flags = args::parse(raw);
    let story_id = flags.positionals.first().map(String::as_str);
    let silent = Ok(Reply::default());
    match command {
        C::Set(_) => set(session, &flags),
        C::SetVerdict(_) => set_verdict(session, &flags),
        C::RequestComplete(_) => request_complete(session, &flags),
        C::SetBudgetLimited(_) => {
            session.update(true, |state| {
                phase::set_budget_limited(state);
                Ok(())
            })?;
            silent
        }
        C::SetBlocked(_) => {
            let reason = flags.text("reason").unwrap_or("");
            session.update(true, |state| {
                phase::set_blocked(state, reason);
                Ok(())
            })?;
            silent
        }
        C::ResumePursuit(_) => resume_pursuit(session),
        C::SetStories(_) => set_stories(session, &flags),
        C::ConfirmStory(_) => {
            // The reference scans the raw arguments for the first one that is not a flag.
            let story_id = raw
                .iter()
                .find(|a| !a.starts_with("--"))
                .ok_or_else(|| Refusal::direct("confirm-story: <id> argument is required"))?;
            confirm_story(session, story_id)
        }
        C::ConfirmAllStories(_) => {
            session.update(true, |state| {
                stories::confirm_all(state);
                Ok(())
            })?;
            silent
        }
        C::ReorderStories(_) => {
            let order = match flags.get("order") {
                Some(args::Value::True) => {
                    return Err(Refusal::direct("reorder-stories: --order requires a value"))
                }
                Some(args::Value::Text(order)) if !order.is_empty() => args::comma_list(order),
                _ => {
                    return Err(Refusal::direct(
                        "reorder-stories: --order <id1,id2,...> is required",
                    ))
                }
            };
            session.update(true, |state| stories::reorder(state, &order))?;
            silent
        }
        C::AddStory(_) => {
            let story = json_object(&flags, "add-story", "--json <story> is required")?;
            session.update(true, |state| stories::add(state, story, &steering(&flags)))?;
            silent
        }
        C::ReviseStory(_) => {
            let story_id = story_id
                .ok_or_else(|| Refusal::direct("revise-story: <id> argument is required"))?;
            let patch = json_object(&flags, "revise-story", "--json <patch> is required")?;
            session.update(true, |state| {
                stories::revise(state, story_id, patch, &steering(&flags))
            })?;
            silent
        }
        C::RetireStory(_) => {
            let story_id = story_id
                .ok_or_else(|| Refusal::direct("retire-story: <id> argument is required"))?;
            session.update(true, |state| {
                stories::retire(state, story_id, &steering(&flags))
            })?;
            silent
        }
        C::SplitStory(_) => {
            let story_id = story_id
                .ok_or_else(|| Refusal::direct("split-story: <id> argument is required"))?;
            let children = json_array(
                &flags,
                "split-story",
                "--json <array of stories> is required",
            )?;
            session.update(true, |state| {
                stories::split(state, story_id, children, &steering(&flags))
            })?;
            silent
        }
        C::Get(_) => {
            let bytes = session.bytes().ok().flatten();
            let text = goal::get_view(bytes.as_deref()).map_or("null".into(), |v| v.to_string());
            Ok(Reply::out(text + "\n"))
        }
        C::Status(_) => {
            let bytes = session.bytes().ok().flatten();
            Ok(Reply::out(format!(
                "{}\n",
                goal::status_token(bytes.as_deref())
            )))
        }
        C::SerializeRequirements(_) => Ok(Reply::out(
            active_state(session)
                .as_ref()
                .map(goal::serialize::requirements)
                .unwrap_or_default(),
        )),
        C::SerializeReviewContext(_) => {
            let state = active_state(session).ok_or_else(|| {
                format!(
                    "serialize-review-context: no active ultragoal state for session \"{}\"",
                    session.sid
                )
            })?;
            Ok(Reply::out(goal::serialize::review_context(&state) + "\n"))
        }
        C::ListOthers(_) => Ok(liveness::list_others(session, flags.has("json"))?),
        C::Adopt(_) => {
            let source = flags
                .text("src")
                .filter(|s| !s.is_empty())
                .ok_or_else(|| Refusal::direct("adopt: --src <sid> is required"))?;
            liveness::adopt(session, source, &mut |warning| eprintln!("{warning}"))?;
            silent
        }
        C::ClaimReviewDispatch(_) => Ok(review_lane::claim(session)),
        C::ApproveReviewDispatchRenewal(_) => Ok(review_lane::renew(session)),
        C::DismissReviewFinding(_) => review_lane::dismiss(session, &flags),
        C::Current(_) | C::Show(_) | C::Gc(_) | C::StopHook | C::Diff(_) | C::Unknown(_) => silent,
    }
}

/// The state when it is active and passes the readers' guard (what `get` prints).
fn active_state(session: &Session) -> Option<goal::state::State> {
    match session.read() {
        Read::Parsed(state)
            if goal::state::passes_guard(&state) && goal::state::is_active(&state) =>
        {
            Some(state)
        }
        _ => None,
    }
}

fn steering(flags: &Parsed) -> Steering<'_> {
    Steering {
        evidence: flags.value("evidence").unwrap_or(""),
        rationale: flags.value("rationale").unwrap_or(""),
    }
}

/// `--json`'s value parsed; the refusals are the reference's direct lines.
fn json_flag(flags: &Parsed, what: &str, missing: &str) -> std::result::Result<Value, Refusal> {
    let text = flags
        .text("json")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Refusal::direct(format!("{what}: {missing}")))?;
    serde_json::from_str(text).map_err(|e| {
        Refusal::direct(format!(
            "{what}: invalid JSON — SyntaxError: JSON Parse error: {e}"
        ))
    })
}

fn json_object(flags: &Parsed, what: &str, missing: &str) -> std::result::Result<Story, Refusal> {
    match json_flag(flags, what, missing)? {
        Value::Object(story) => Ok(story),
        _ => Err(Refusal::direct(format!(
            "{what}: invalid JSON — Error: expected JSON object"
        ))),
    }
}

fn json_array(
    flags: &Parsed,
    what: &str,
    missing: &str,
) -> std::result::Result<Vec<Story>, Refusal> {
    let expected = || Refusal::direct(format!("{what}: invalid JSON — Error: expected JSON array"));
    match json_flag(flags, what, missing)? {
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Object(story) => Ok(story),
                _ => Err(Refusal::direct(format!(
                    "{what}: invalid JSON — Error: every story must be a JSON object"
                ))),
            })
            .collect(),
        _ => Err(expected()),
    }
}

/// `-` means standard input, one trailing newline stripped.
fn value_or_stdin(value: &str) -> std::result::Result<String, Refusal> {
    if value != "-" {
        return Ok(value.to_string());
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read standard input: {e}"))?;
    if text.ends_with('\n') {
        text.pop();
    }
    Ok(text)
}

/// `--max-iterations` as JavaScript's `Number()` reads it: an integer of at least 1 (`" 5 "`,
/// `5.0`, `1e1` and `0x10` included).
fn parse_max_iterations(text: &str) -> Option<i64> {
    let trimmed = text.trim();
    let number = match trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
    {
        Some(hex) => i64::from_str_radix(hex, 16).ok()? as f64,
        None => trimmed.parse::<f64>().ok()?,
    };
    (number.fract() == 0.0 && number >= 1.0 && number <= i64::MAX as f64).then_some(number as i64)
}

fn set_request(flags: &Parsed) -> std::result::Result<SetRequest, Refusal> {
    if flags.get("max-iterations") == Some(&args::Value::True) {
        return Err(Refusal::direct("set: --max-iterations requires a value"));
    }
    if flags.get("completion-evidence") == Some(&args::Value::True) {
        return Err(Refusal::direct(
            "set: --completion-evidence requires a value",
        ));
    }
    let codex_goal_objective = match flags.text("codex-goal-objective") {
        None => None,
        Some(given) => {
            let objective = value_or_stdin(given)?;
            if goal::state::is_blank(&objective) {
                return Err(Refusal::direct(
                    "set: --codex-goal-objective was supplied but resolved to an empty value — \
refusing rather than disarming the completion cross-check (a quoted heredoc whose payload contains a \
line equal to its delimiter produces exactly this)",
                ));
            }
            Some(objective)
        }
    };
    let max_iterations = match flags.value("max-iterations") {
        None => None,
        Some(text) => Some(parse_max_iterations(text).ok_or_else(|| {
            Refusal::direct(format!(
                "set: invalid --max-iterations \"{text}\" (positive integer required)"
            ))
        })?),
    };
    let mut fields = Vec::new();
    for (flag, key) in phase::SLOTS.iter().chain(&phase::TEXT_FIELDS) {
        if let Some(value) = flags.text(flag) {
            fields.push((*key, value.to_string()));
        }
    }
    Ok(SetRequest {
        phase: flags.text("phase").unwrap_or("").to_string(),
        fields,
        max_iterations,
        completion_evidence: flags.value("completion-evidence").map(args::comma_list),
        codex_goal_objective,
    })
}

fn set(session: &Session, flags: &Parsed) -> Outcome {
    let request = set_request(flags)?;
    let effects = session.update(true, |state| {
        let effects = phase::set(state, &request)?;
        if effects.delete_artifacts {
            let _ = crate::store::remove_if_present(&session.verdict_file());
            let _ = crate::store::remove_if_present(&session.codereview_file());
        }
        Ok(effects)
    })?;
    let mut reply = Reply::default();
    reply.notices.extend(goal::base::after_transition(
        session,
        &request.phase,
        effects.fresh,
    ));
    Ok(reply)
}

fn set_verdict(session: &Session, flags: &Parsed) -> Outcome {
    let verdict = flags.text("verdict").unwrap_or("absent");
    if !phase::VERDICTS.contains(&verdict) {
        return Err(Refusal::direct(format!(
            "set-verdict: invalid --verdict \"{verdict}\" (one of APPROVE|REQUEST_CHANGES|COMMENT|absent)"
        )));
    }
    // The reference reads an absent file as `{}`, which is not planning: the seed it then writes
    // stays an inert planning seed instead of being advanced into pursuit.
    let existed = session.state_file().symlink_metadata().is_ok();
    let advanced = session.update(true, |state| {
        if existed {
            phase::set_verdict(state, verdict)
        } else {
            state.insert("objective_verdict".into(), verdict.into());
            Ok(false)
        }
    })?;
    let mut reply = Reply::default();
    if advanced {
        reply
            .notices
            .extend(goal::base::after_transition(session, "pursuing", false));
        reply
            .notices
            .push("set-verdict: phase auto-advanced planning -> pursuing".into());
    }
    Ok(reply)
}

fn request_complete(session: &Session, flags: &Parsed) -> Outcome {
    let codex_snapshot = match flags.text("codex-goal-json") {
        None => None,
        Some(given) => Some(codex_snapshot(given)?),
    };
    let unparseable = match &codex_snapshot {
        Some(CodexSnapshot::Unparseable(text)) => Some(text.clone()),
        _ => None,
    };
    let refused = |why: String| {
        let first = match &unparseable {
            Some(given) => format!(
                "request-complete: refused — --codex-goal-json could not be parsed as JSON or read as \
a file path: \"{given}\""
            ),
            _ => phase::COMPLETE_REFUSED.to_string(),
        };
        Refusal::direct(format!(
            "{first}\nrequest-complete: first failed gate: {why}"
        ))
    };
    let (lock, state) = session.locked(true)?;
    let mut state = state.ok_or_else(|| session.absent_message())?;
    let verdicts = session::read_optional(&session.verdict_file()).map_err(refused)?;
    let code_review = session::read_optional(&session.codereview_file()).map_err(refused)?;
    phase::request_complete(
        &mut state,
        &CompletionInputs {
            verdicts: verdicts.as_deref(),
            code_review: code_review.as_deref(),
            codex_snapshot,
        },
    )
    .map_err(refused)?;
    session.commit(&lock, state)?;
    Ok(Reply::default())
}

/// `--codex-goal-json`: inline JSON, else a file holding JSON, else standard input for `-`.
fn codex_snapshot(given: &str) -> std::result::Result<CodexSnapshot, Refusal> {
    let text = value_or_stdin(given)?;
    let object = |text: &str| match serde_json::from_str::<Value>(text) {
        Ok(value @ Value::Object(_)) => Some(value),
        _ => None,
    };
    let parsed = object(&text).or_else(|| {
        let bytes = std::fs::read(&text).ok()?;
        object(std::str::from_utf8(&bytes).ok()?)
    });
    Ok(match parsed {
        Some(root) => CodexSnapshot::Parsed(root),
        None => CodexSnapshot::Unparseable(text),
    })
}

fn resume_pursuit(session: &Session) -> Outcome {
    let lock = session.lock()?;
    let mut state = match session.read() {
        Read::Parsed(state) => state,
        Read::Absent => return Err("resume-pursuit: refused — state file is absent".into()),
        Read::Corrupt(why) => {
            return Err(
                format!("resume-pursuit: refused — state is corrupt or invalid\n{why}").into(),
            )
        }
    };
    phase::resume_pursuit(&mut state)?;
    session.commit(&lock, state)?;
    Ok(Reply::default())
}

fn set_stories(session: &Session, flags: &Parsed) -> Outcome {
    if flags.get("single") == Some(&args::Value::True) {
        session.update(true, stories::set_single)?;
        return Ok(Reply::default());
    }
    let list = json_array(
        flags,
        "set-stories",
        "--json <array> or --single is required",
    )?;
    session.update(true, |state| stories::set_stories(state, list))?;
    Ok(Reply::default())
}

fn confirm_story(session: &Session, story_id: &str) -> Outcome {
    let (lock, state) = session.locked(true)?;
    let mut state = state.ok_or_else(|| session.absent_message())?;
    // An already confirmed story is a no-op that writes nothing.
    if stories::confirm(&mut state, story_id)? {
        session.commit(&lock, state)?;
    }
    Ok(Reply::default())
}
