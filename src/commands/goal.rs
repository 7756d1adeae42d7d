//! `git ucg goal`: the ultragoal state machine, speaking its TypeScript state CLI's language —
//! the same argument rules (flags before the subcommand too), the same outputs, exit 0, or 1 with
//! the reference's refusal line on stderr. The session id is checked before any subcommand runs,
//! as there. Where the reference would read a valueless flag as the text `true`, or die on a
//! TypeError, git-ucg refuses with a message (README, "Differences from the reference").

mod diff;
mod gc;
mod stop_hook;
mod view;

use crate::cli::{GoalArgs, GoalCommand, GOAL_FLAGS_FIRST};
use crate::context::Context;
use crate::error::Result;
use std::io::IsTerminal;
use ucg_ultragoal::args::{self, Parsed};
use ucg_ultragoal::js::{self, JsObject, JsValue};
use ucg_ultragoal::ops::{self, Steering};
use ucg_ultragoal::session::{self, Session};
use ucg_ultragoal::{dir, liveness, Refusal, Reply};

type Outcome = std::result::Result<(), Refusal>;

pub(crate) fn run(ctx: &Context, args: &GoalArgs) -> Result<u8> {
    if let Some(GoalCommand::StopHook) = args.command {
        return stop_hook::run(args.omt_dir.as_deref());
    }
    let sid = match dir::session_id(args.session.as_deref()) {
        Ok(sid) => sid,
        Err(refusal) => {
            let code = refuse(&refusal);
            // The refusal is the reference's, byte for byte; a person at a terminal also learns
            // git-ucg's own way to name the session.
            if std::io::stderr().is_terminal() && args.session.is_none() {
                eprintln!("hint: name the session with --session ID (or set OMT_SESSION_ID)");
            }
            return Ok(code);
        }
    };
    let cwd = std::env::current_dir()?;
    let (omt_dir, warning) = dir::omt_dir(args.omt_dir.as_deref(), &cwd);
    let session = Session::with_warning(omt_dir, sid, warning);
    let tokens: Vec<String> = match &args.command {
        Some(GoalCommand::Current(json)) => {
            warn_now(&session);
            return view::run_current(&session, json.json.on);
        }
        Some(GoalCommand::Show(json)) => {
            warn_now(&session);
            let code = view::run_show(ctx, &session, json.json.on)?;
            // The directory was derived (no --omt-dir, no OMT_DIR) and holds no state, but the
            // project keeps one of its own (the demo does): said, with the command that reads it.
            let derived = args.omt_dir.is_none() && std::env::var_os(dir::OMT_DIR_ENV).is_none();
            if derived && !json.json.on && !session.state_file().exists() {
                let local = ctx
                    .try_project_root()
                    .map(|root| root.join(dir::OMT_DIR_NAME));
                if let Some(local) = local.filter(|d| {
                    Session::new(d.clone(), session.sid.clone())
                        .state_file()
                        .is_file()
                }) {
                    let shown = local.strip_prefix(&cwd).unwrap_or(&local).display();
                    crate::output::say(&format!(
                        "hint: {shown} holds this session's state; read it with\n  git ucg goal \
--session {} --omt-dir {shown} show\n",
                        session.sid
                    ));
                }
            }
            return Ok(code);
        }
        Some(GoalCommand::Gc(gc_args)) => {
            warn_now(&session);
            return gc::run(&session, gc_args.dry_run, gc_args.json.on);
        }
        Some(GoalCommand::Diff(diff_args)) => {
            warn_now(&session);
            return diff::run(ctx, &session, diff_args);
        }
        // Flags before the subcommand: the marker goes, the arguments stay whole.
        Some(GoalCommand::Unknown(tokens)) => {
            let from = usize::from(tokens.first().map(String::as_str) == Some(GOAL_FLAGS_FIRST));
            tokens[from..].to_vec()
        }
        _ => args.argv.clone(),
    };
    let mut reply = Reply::default();
    let outcome = dispatch(&session, &tokens, &mut reply);
    if let Some(warning) = session.warning() {
        eprintln!("{warning}");
    }
    for notice in &reply.notices {
        eprintln!("{notice}");
    }
    crate::output::print(reply.stdout.as_bytes())?;
    match outcome {
        Ok(()) => Ok(u8::from(reply.failed)),
        Err(refusal) => Ok(refuse(&refusal)),
    }
}

/// git-ucg's own subcommands name the directory at once (and make it, as the reference would).
fn warn_now(session: &Session) {
    if session.use_dir().is_ok() {
        if let Some(warning) = session.warning() {
            eprintln!("{warning}");
        }
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

/// A valueless flag the reference would read as the text `true` — and accept — is refused.
/// (Where the reference refuses `"true"` itself — a phase, a verdict, a class, JSON — its own
/// refusal stands.)
fn require_values(sub: &str, flags: &Parsed, names: &[&str]) -> Outcome {
    for name in names {
        if flags.get(name) == Some(&args::Value::True) {
            return Err(Refusal::direct(format!(
                "{sub}: --{name} requires a value (the ultragoal state CLI would take it as the text \"true\")"
            )));
        }
    }
    Ok(())
}

/// A required positional id (`positionals[1]`); empty counts as missing.
fn story_id<'a>(sub: &str, flags: &'a Parsed) -> std::result::Result<&'a str, Refusal> {
    flags
        .positionals
        .get(1)
        .map(String::as_str)
        .filter(|id| !id.is_empty())
        .ok_or_else(|| Refusal::direct(format!("{sub}: <id> argument is required")))
}

/// `--json`'s text (required, non-empty) parsed as `JSON.parse` does, its errors in its words.
fn json_flag(sub: &str, flags: &Parsed, missing: &str) -> std::result::Result<JsValue, Refusal> {
    let text = flags
        .text("json")
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Refusal::direct(format!("{sub}: {missing}")))?;
    js::parse(text).map_err(|e| Refusal::direct(format!("{sub}: invalid JSON — SyntaxError: {e}")))
}

fn json_object(sub: &str, flags: &Parsed, missing: &str) -> Result<JsObject, Refusal> {
    match json_flag(sub, flags, missing)? {
        JsValue::Object(object) => Ok(object),
        _ => Err(expected(sub, "object")),
    }
}

fn json_array(sub: &str, flags: &Parsed, missing: &str) -> Result<Vec<JsValue>, Refusal> {
    match json_flag(sub, flags, missing)? {
        JsValue::Array(items) => Ok(items),
        _ => Err(expected(sub, "array")),
    }
}

fn expected(sub: &str, kind: &str) -> Refusal {
    Refusal::direct(format!("{sub}: invalid JSON — Error: expected JSON {kind}"))
}

/// `-` means standard input, one trailing newline stripped.
fn value_or_stdin(value: &str) -> std::result::Result<String, Refusal> {
    if value != "-" {
        return Ok(value.to_string());
    }
    let bytes = crate::output::stdin_bytes()
        .map_err(|e| Refusal::Thrown(format!("cannot read standard input: {e}")))?;
    let mut text = js::decode(&bytes).into_owned();
    if text.ends_with('\n') {
        text.pop();
    }
    Ok(text)
}

fn dispatch(session: &Session, tokens: &[String], reply: &mut Reply) -> Outcome {
    let flags = args::parse(tokens);
    let Some(sub) = flags.positionals.first().map(String::as_str) else {
        return Err(Refusal::direct(USAGE));
    };
    // `strFlagOrBlank`: a flag's text, `""` when absent or valueless.
    let steering = || Steering {
        evidence: flags.value("evidence").unwrap_or(""),
        rationale: flags.value("rationale").unwrap_or(""),
    };
    match sub {
        "set" => set(session, &flags, reply),
        "set-verdict" => {
            let verdict = flags.text("verdict").unwrap_or("absent");
            if !["APPROVE", "REQUEST_CHANGES", "COMMENT", "absent"].contains(&verdict) {
                return Err(Refusal::direct(format!(
                    "set-verdict: invalid --verdict \"{verdict}\" (one of APPROVE|REQUEST_CHANGES|COMMENT|absent)"
                )));
            }
            ops::set_verdict(session, verdict, reply)
        }
        "set-budget-limited" => ops::set_budget_limited(session),
        "resume-pursuit" => ops::resume_pursuit(session),
        "set-blocked" => {
            require_values(sub, &flags, &["reason"])?;
            ops::set_blocked(session, flags.text("reason").unwrap_or(""))
        }
        "request-complete" => request_complete(session, &flags),
        "claim-review-dispatch" => {
            ops::claim(session, reply);
            Ok(())
        }
        "approve-review-dispatch-renewal" => {
            ops::renew(session, reply);
            Ok(())
        }
        "dismiss-review-finding" => {
            require_values(sub, &flags, &["ref", "rationale"])?;
            let location = flags.text("ref").unwrap_or("");
            let class = flags.text("class").unwrap_or("");
            let rationale = flags.text("rationale").unwrap_or("");
            if !ucg_ultragoal::review::CLASSES.contains(&class) {
                return Err(Refusal::direct(
                    "dismiss-review-finding: --class must be one of correctness, regression, cleanup, \
requirement-gap",
                ));
            }
            if !ops::dismiss(session, location, class, rationale) {
                return Err(Refusal::direct(format!(
                    "dismiss-review-finding: refused — requires an active pursuing goal, a non-empty \
--ref and --rationale, and a blocking (BLOCK-outcome) {class} finding at \"{location}\" in the current \
code-review artifact"
                )));
            }
            reply.stdout = format!("dismissed {class} finding at {location}\n");
            Ok(())
        }
        "get" => ops::get(session).map(|text| reply.stdout = text),
        "status" => ops::status(session).map(|text| reply.stdout = text),
        "list-others" => {
            liveness::list_others(session, flags.has("json")).map(|text| reply.stdout = text)
        }
        "adopt" => {
            require_values(sub, &flags, &["src"])?;
            let source = flags
                .text("src")
                .filter(|s| !s.is_empty())
                .ok_or_else(|| Refusal::direct("adopt: --src <sid> is required"))?;
            liveness::adopt(session, source, &mut reply.notices)?;
            ops::clear_codex_objective(session)
        }
        "confirm-story" => {
            // The reference scans its raw arguments after the first for one that is not a flag.
            let story_id = tokens
                .iter()
                .skip(1)
                .find(|a| !a.starts_with("--"))
                .filter(|id| !id.is_empty())
                .ok_or_else(|| Refusal::direct("confirm-story: <id> argument is required"))?;
            ops::confirm(session, story_id)
        }
        "confirm-all-stories" => ops::confirm_all(session),
        "set-stories" => {
            if flags.get("single") == Some(&args::Value::True) {
                return ops::set_single(session);
            }
            let stories = json_array(sub, &flags, "--json <array> or --single is required")?;
            ops::set_stories(session, &stories)
        }
        "reorder-stories" => {
            if flags.get("order") == Some(&args::Value::True) {
                return Err(Refusal::direct("reorder-stories: --order requires a value"));
            }
            let order = flags
                .text("order")
                .filter(|o| !o.is_empty())
                .ok_or_else(|| {
                    Refusal::direct("reorder-stories: --order <id1,id2,...> is required")
                })?;
            ops::reorder(session, &ops::comma_list(order))
        }
        "revise-story" => {
            let id = story_id(sub, &flags)?;
            let patch = json_object(sub, &flags, "--json <patch> is required")?;
            ops::revise(session, id, &patch, &steering())
        }
        "add-story" => {
            let story = json_object(sub, &flags, "--json <story> is required")?;
            ops::add(session, &story, &steering())
        }
        "retire-story" => ops::retire(session, story_id(sub, &flags)?, &steering()),
        "split-story" => {
            let id = story_id(sub, &flags)?;
            let children = json_array(sub, &flags, "--json <array of stories> is required")?;
            ops::split(session, id, &children, &steering())
        }
        "serialize-requirements" => {
            ops::requirements(session).map(|json| reply.stdout = json.to_string())
        }
        "serialize-review-context" => ops::review_context(session).map(|text| reply.stdout = text),
        _ => Err(Refusal::direct(USAGE)),
    }
}

fn set(session: &Session, flags: &Parsed, reply: &mut Reply) -> Outcome {
    for flag in ["max-iterations", "completion-evidence"] {
        if flags.get(flag) == Some(&args::Value::True) {
            return Err(Refusal::direct(format!("set: --{flag} requires a value")));
        }
    }
    let mut valued: Vec<&str> = ops::SET_TEXT_FLAGS.iter().map(|(flag, _)| *flag).collect();
    valued.push("codex-goal-objective");
    require_values("set", flags, &valued)?;
    let codex_goal_objective = match flags.text("codex-goal-objective") {
        None => None,
        Some(given) => {
            let objective = value_or_stdin(given)?;
            if js::is_blank(&objective) {
                return Err(Refusal::direct(
                    "set: --codex-goal-objective was supplied but resolved to an empty value — \
refusing rather than disarming the completion cross-check (a quoted heredoc whose payload contains a \
line equal to its delimiter produces exactly this)",
                ));
            }
            Some(objective)
        }
    };
    let max_iterations = match flags.text("max-iterations") {
        None => None,
        Some(text) => {
            let n = js::number_of_text(text);
            if !(n.is_finite() && n.fract() == 0.0 && n >= 1.0) {
                return Err(Refusal::direct(format!(
                    "set: invalid --max-iterations \"{text}\" (positive integer required)"
                )));
            }
            Some(n)
        }
    };
    let phase = flags.text("phase").unwrap_or("");
    let given = ops::set_fields(flags, codex_goal_objective, max_iterations);
    reply.notices.extend(ops::set(session, phase, given)?);
    Ok(())
}

fn request_complete(session: &Session, flags: &Parsed) -> Outcome {
    require_values("request-complete", flags, &["codex-goal-json"])?;
    let arg = flags
        .text("codex-goal-json")
        .map(value_or_stdin)
        .transpose()?;
    if ops::request_complete(session, arg.as_deref())? {
        return Ok(());
    }
    let read_file = |path: &str| session::read_text(std::path::Path::new(path));
    match &arg {
        Some(given) if ops::codex_snapshot(given, &read_file).is_none() => {
            Err(Refusal::direct(format!(
                "request-complete: refused — --codex-goal-json could not be parsed as JSON or read as \
a file path: \"{given}\""
            )))
        }
        _ => Err(Refusal::direct(ops::COMPLETE_REFUSED)),
    }
}
