//! The command line: one `enum Command`, one args struct per command. Help, man pages and
//! completions are all generated from these definitions.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;
pub use ucg_ultracode::answer::Action;

/// Every command's `--impl-artifacts` help, said once.
const IMPL_ARTIFACTS_HELP: &str =
    "The implementation-artifacts directory (default: $ULTRACODE_IMPL_ARTIFACTS, else the configuration)";

/// `--json`, on every read command.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct JsonFlag {
    /// Print one JSON document instead of text; its "schema" key names its format and version.
    #[arg(long = "json", id = "json")]
    pub on: bool,
}

/// `--impl-artifacts`, on every command that reads or writes the run's artifacts.
#[derive(Debug, Clone, Default, Args)]
pub struct ImplArtifacts {
    #[arg(long = "impl-artifacts", id = "impl_artifacts", value_name = "DIR", help = IMPL_ARTIFACTS_HELP)]
    pub dir: Option<PathBuf>,
}

/// `--rev`, on the read commands that can read a commit's artifacts instead of the work tree's.
#[derive(Debug, Clone, Default, Args)]
pub struct RevFlag {
    /// Read the artifacts from the tree of commit REV instead of the work tree (no checkout).
    #[arg(long = "rev", id = "rev", value_name = "REV")]
    pub commit: Option<String>,
}

impl RevFlag {
    /// A path as the command reads it: under `--rev`, made absolute to be found in the commit's
    /// tree; otherwise as given.
    pub fn place(&self, path: PathBuf) -> PathBuf {
        match &self.commit {
            Some(_) => std::path::absolute(&path).unwrap_or(path),
            None => path,
        }
    }
}

/// `--deferred-work`, on the commands that read the deferred-work ledger.
#[derive(Debug, Clone, Default, Args)]
pub struct DeferredWork {
    /// The deferred-work ledger (default: workflow.deferred_work_path, else deferred-work.md in the
    /// artifact directory).
    #[arg(long = "deferred-work", id = "deferred_work", value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// `--runs-root`, on the commands that read run folders.
#[derive(Debug, Clone, Default, Args)]
pub struct RunsRoot {
    /// Where run folders live (default: <project root>/_bmad-output/ultracode-goal).
    #[arg(long = "runs-root", id = "runs_root", value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

impl RunsRoot {
    /// `--runs-root`, else the run folders' place under the project `root`.
    pub fn or_under(&self, root: &std::path::Path) -> PathBuf {
        self.dir
            .clone()
            .unwrap_or_else(|| root.join(ucg_ultracode::runs::RUNS_ROOT))
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "git-ucg",
    bin_name = "git ucg",
    version,
    about = "Operate autonomous coding-agent runs from git: see what a stopped run waits on, answer it, gate commits on it",
    long_about = "git-ucg reads the artifacts of an UltraCode Goal run (and neighbouring agent systems) in a git \
repository, shows what the run is doing and waiting on, records and applies the operator's answers, and keeps \
git itself from moving on while decisions are open.\n\n\
Exit status: 0 on success, 1 for a negative answer the caller asked for, 2 for a usage error, a refusal that \
protects data, or any other failure.",
    propagate_version = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto, global = true,
          help_heading = GLOBAL_OPTIONS)]
    pub color: ColorWhen,

    /// Never send output through a pager.
    #[arg(long, global = true, help_heading = GLOBAL_OPTIONS)]
    pub no_pager: bool,

    /// Run as if started in PATH (like `git -C`); repeatable, each relative to the previous.
    #[arg(short = 'C', value_name = "PATH")]
    pub chdir: Vec<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

/// A command's own arguments (or subcommands), built only when the command is the one in use.
///
/// Building every command's arguments is most of what parsing costs, and a prompt, a hook or
/// `--version` needs one command at most: clap runs the deferred builder when it enters the
/// command. Whatever shows the whole tree (help, man pages, completions, usage lines) takes it
/// from [`command`], built eagerly, so it is the same tree, in the same order, as without
/// deferral.
#[derive(Debug, Clone, Default)]
pub struct Deferred<T>(pub T);

/// Set by [`command`]: build every command at once.
static BUILD_EAGERLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn eager() -> bool {
    BUILD_EAGERLY.load(std::sync::atomic::Ordering::Relaxed)
}

/// The command's about lines come from its variant's doc comment, which clap applies after the
/// arguments; a deferred build must not let the arguments' own doc comments replace them.
fn keeping_about(
    command: clap::Command,
    build: fn(clap::Command) -> clap::Command,
) -> clap::Command {
    let about = command.get_about().cloned();
    let long_about = command.get_long_about().cloned();
    let mut built = build(command);
    if let Some(about) = about {
        built = built.about(about);
    }
    if let Some(long_about) = long_about {
        built = built.long_about(long_about);
    }
    built
}

impl<T> std::ops::Deref for Deferred<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Deferred<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: clap::FromArgMatches> clap::FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }
    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }
}

impl<T: Args> Args for Deferred<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
    fn augment_args(command: clap::Command) -> clap::Command {
        if eager() {
            T::augment_args(command)
        } else {
            command.defer(|c| keeping_about(c, T::augment_args))
        }
    }
    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        T::augment_args_for_update(command)
    }
}

impl<T: Subcommand> Subcommand for Deferred<T> {
    fn augment_subcommands(command: clap::Command) -> clap::Command {
        if eager() {
            T::augment_subcommands(command)
        } else {
            command.defer(|c| keeping_about(c, T::augment_subcommands))
        }
    }
    fn augment_subcommands_for_update(command: clap::Command) -> clap::Command {
        T::augment_subcommands_for_update(command)
    }
    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}

/// Where the options every command takes are listed: after the command's own.
const GLOBAL_OPTIONS: &str = "Global options";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the resolved [workflow] configuration and where each value comes from.
    Config(Deferred<ConfigArgs>),
    /// What the run is doing and waiting on: dashboard, JSON, the reference's markdown, a prompt segment.
    Status(Deferred<StatusArgs>),
    /// The runs index: run folders, live or terminal, their epic, their last activity.
    Runs(Deferred<RunsArgs>),
    /// The decisions the run waits on: REDs, escalations, ledger decisions, each with its id.
    Pending(Deferred<PendingArgs>),
    /// Answer what the run waits on (the guided pass), record the answers and apply them.
    Resolve(Deferred<ResolveArgs>),
    /// Where a resume re-enters the run, and what it must re-assert (read-only).
    Resume(Deferred<ResumeArgs>),
    /// The hook decision as a command: exit 1 and the blockers while decisions are pending.
    Gate(Deferred<GateArgs>),
    /// Run a command when the pending decisions change (new items, items closed), once per change.
    Notify(Deferred<NotifyArgs>),
    /// Git hooks that refuse commits and pushes while decisions are pending.
    #[command(subcommand)]
    Hooks(Deferred<HooksCommand>),
    /// A story's anchors: its baseline and end markers, and the tests-ran marker's freshness.
    #[command(subcommand)]
    Baseline(Deferred<BaselineCommand>),
    /// The ultragoal state machine (its state CLI's commands, on the same files).
    Goal(Deferred<GoalArgs>),
    /// agentic-sdlc heavy-pipeline runs under docs/superpowers/runs: list, status, catalog, repair,
    /// reconcile, resume.
    #[command(subcommand)]
    Sdlc(Deferred<SdlcCommand>),
    /// DG-Anvil's lesson ledger: append, query, audit, invalidate, retroactive lessons, the reset
    /// loop.
    Lesson(Deferred<LessonArgs>),
    /// The per-story turn budget: the Claude Code Stop hook (`tick`), and its counters.
    #[command(subcommand)]
    Budget(Deferred<BudgetCommand>),
    /// The epic: its branch, its stories in sprint order, each story's commit range and changes.
    Epic(Deferred<EpicArgs>),
    /// The accumulated diff of the epic, of one story, or of any range (through gitoxide).
    Diff(Deferred<DiffArgs>),
    /// Stable decision ids.
    #[command(subcommand)]
    Id(Deferred<IdCommand>),
    /// The preflight RED registry (.preflight-reds.json).
    #[command(subcommand)]
    Reds(Deferred<RedsCommand>),
    /// The git merge driver for the answers file and the RED registry (git runs it; `hooks install
    /// --merge-driver` sets it up).
    MergeFile(Deferred<MergeFileArgs>),
    /// Create a sample repository with a stopped run, and show what to try on it.
    Demo(Deferred<DemoArgs>),
    /// The full help of a command (`git ucg help resolve`, `git ucg help hooks install`).
    Help(Deferred<HelpArgs>),
    /// Install the man pages (so `git ucg --help` and `git help ucg` open them) and the shell
    /// completions for this user, from this binary.
    InstallDocs(Deferred<InstallDocsArgs>),
    /// Regenerate the man pages or shell completions (for packagers and the project itself).
    #[command(hide = true)]
    Generate(Deferred<GenerateArgs>),
    /// The candidates the shell completions offer for a value (not for people).
    #[command(hide = true, name = "__complete")]
    Complete(Deferred<CompleteArgs>),
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Layers, later wins: {ucg-root}/customize.toml (built-in defaults when absent), \
_bmad/custom/ultracode-goal.toml (team), _bmad/custom/ultracode-goal.user.toml (user). Tables merge, arrays \
append, scalars override. {project-root} is expanded in path values; any other {token} left in a path is an error."
)]
pub struct ConfigArgs {
    /// One key of the [workflow] block (with or without the `workflow.` prefix); prints its value alone.
    pub key: Option<String>,

    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Exactly three sources: .preflight-reds.json reds[] not closed in .decisions.json \
(a corrupt registry is a blocker of its own), every escalation-<story>.json (a raw .escalation-<story>.md \
without one is listed as unpromoted: not answerable until promoted), and the deferred-work ledger's rows \
with source `decision` and status `open`, in every table. Reads, never writes."
)]
pub struct PendingArgs {
    #[command(flatten)]
    pub json: JsonFlag,
    /// Whole ids and artifact paths where a person reads an item (default: the short handle
    /// `resolve` takes, and the file name).
    #[arg(long)]
    pub full: bool,
    /// Exit 1 when anything is pending or blocked (like `git diff --exit-code`).
    #[arg(long)]
    pub exit_code: bool,
    /// Only the items you decide (your user.email, by the ucg.decider rules).
    #[arg(long)]
    pub mine: bool,
    /// Only the items EMAIL decides (by the ucg.decider rules).
    #[arg(long = "for", value_name = "EMAIL", conflicts_with = "mine")]
    pub for_email: Option<String>,
    #[command(flatten)]
    pub rev: RevFlag,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
    #[command(flatten)]
    pub deferred_work: DeferredWork,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Routing follows the last stage the run reached: no gate verdict on record means it \
stopped before any story (Stage 1 when the epic is unresolved, else Stage 2, a preflight RED) and re-runs \
from there; otherwise it re-enters Execute at the first story, in sprint order, whose last verdict \
(decision log, else heartbeat) is not `advance`. The checklist is what the resume re-asserts, never \
rebuilds, in two parts: what needs you (pending decisions first) and what is in place or put back by \
the resume itself. It ends with the commands that restart the agent."
)]
pub struct ResumeArgs {
    #[command(flatten)]
    pub json: JsonFlag,
    /// The epic id (default: the heartbeat's, else the current story's, else the checked-out epic branch's).
    #[arg(long, value_name = "ID")]
    pub epic: Option<String>,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "The guided pass starts when no --close, --defer or --answers is given and standard \
input is a terminal (or with --interactive): each pending item in turn, with its kind, artifact, decision \
and evidence; one key, no Enter needed on a terminal: `c` closes it (then its answer, which may not be \
blank), `d` defers it (answer optional), `s` or Enter skips it, `q` or Ctrl-D quits, keeping everything \
answered so far. The answer is edited on its line (arrows, Home/End, Ctrl-U, paste, Up for this pass's \
earlier answers; Esc or Ctrl-C goes back to the choice), then shown as it will be recorded: Enter \
records it, `e` edits it, `b` goes back. An item whose question is a rewording of one answered before (same kind and source file, \
words at least `git config ucg.similarity` alike, default 0.8) shows the earlier question and answer with \
a word diff, and `r` reuses that answer. An ID may be shortened to its 12-hex hash or \
a unique prefix.\n\n\
Each answer is recorded in .decisions.json (read-modify-write keyed by id, under the \
artifact directory's lock) and then applied: a closed RED leaves the registry through the `reds apply \
--from-sidecar` path, a closed escalation's escalation-<story>.json is deleted (and for budget-overrun its \
.budget-<story>.json; the .escalation-<story>.md residual stays), a closed ledger row's status cell turns \
`resolved`. A defer records only. Each pass appends a `## ucg-resolve <time>` section to the run's decision \
log. A close on record whose artifact is still there is applied again by the next resolve without asking."
)]
pub struct ResolveArgs {
    /// Close the item ID; the next --answer is its answer. Repeatable.
    #[arg(long, value_name = "ID", action = clap::ArgAction::Append)]
    pub close: Vec<String>,
    /// Defer the item ID; the next --answer is its answer. Repeatable.
    #[arg(long, value_name = "ID", action = clap::ArgAction::Append)]
    pub defer: Vec<String>,
    /// The one-line answer to the --close or --defer before it.
    #[arg(long, value_name = "TEXT", action = clap::ArgAction::Append)]
    pub answer: Vec<String>,
    /// Answers as JSON, {"answers": [{"id", "answer", "action"}]}, from FILE or - (standard input).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["close", "defer", "answer", "interactive"])]
    pub answers: Option<PathBuf>,
    /// Show what would be recorded and applied; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub json: JsonFlag,
    /// Whole ids and artifact paths where a person reads an item (default: the short handle
    /// `resolve` takes, and the file name).
    #[arg(long)]
    pub full: bool,
    /// Ask on standard input even when it is not a terminal.
    #[arg(long)]
    pub interactive: bool,
    /// The guided pass asks only the items you decide (your user.email, by the ucg.decider rules).
    #[arg(long, conflicts_with_all = ["close", "defer", "answers"])]
    pub mine: bool,
    /// Reuse, for every pending item without an answer, the answer on record for an earlier
    /// wording of its question (same kind and source file, words at least `ucg.similarity` alike,
    /// default 0.8), listing each; its entry notes `reused_from`.
    #[arg(long, conflicts_with_all = ["interactive", "answers"])]
    pub reuse_similar: bool,
    /// The run folder (under the runs root) whose decision log gets the pass's section.
    #[arg(long, value_name = "NAME")]
    pub run: Option<String>,
    /// Answer on BRANCH's committed artifacts and commit the answers there, without a checkout:
    /// the work tree, the index and HEAD are not touched. With nothing given on a terminal (or
    /// --interactive, --mine), the guided pass asks the branch's own items first; the answers
    /// make one commit.
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// With --branch: push BRANCH to REMOTE afterwards (a rejected push is retried once, the
    /// answers applied again on the fetched tip).
    #[arg(long, value_name = "REMOTE", requires = "branch")]
    pub push: Option<String>,
    /// With --branch: the first line of the commit's message.
    #[arg(long, value_name = "TEXT", requires = "branch")]
    pub message: Option<String>,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
    #[command(flatten)]
    pub deferred_work: DeferredWork,
    #[command(flatten)]
    pub runs_root: RunsRoot,
    /// --close/--defer and their answers in command-line order (filled after parsing).
    #[arg(skip)]
    pub given: Vec<(Action, String, Option<String>)>,
}

impl ResolveArgs {
    /// Pairs each --close/--defer with the --answer that follows it, by position on the command line.
    pub(crate) fn pair(&mut self, matches: &clap::ArgMatches) {
        let mut placed: Vec<(usize, Option<Action>, &String)> = Vec::new();
        for (name, action, values) in [
            ("close", Some(Action::Close), &self.close),
            ("defer", Some(Action::Defer), &self.defer),
            ("answer", None, &self.answer),
        ] {
            let positions = matches.indices_of(name).into_iter().flatten();
            placed.extend(positions.zip(values).map(|(at, value)| (at, action, value)));
        }
        placed.sort_by_key(|(at, _, _)| *at);
        let mut given: Vec<(Action, String, Option<String>)> = Vec::new();
        for (_, action, text) in placed {
            match (action, given.last_mut()) {
                (Some(action), _) => given.push((action, text.clone(), None)),
                // An item's answer is the first --answer after it, before the next item.
                (None, Some((_, _, answer @ None))) => *answer = Some(text.clone()),
                (None, _) => {}
            }
        }
        self.given = given;
    }

    /// How many --answer values belong to no --close/--defer (before the first, or a second one).
    pub(crate) fn stray_answers(&self) -> usize {
        let paired = self.given.iter().filter(|g| g.2.is_some()).count();
        self.answer.len().saturating_sub(paired)
    }
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "A run folder is a directory under the runs root holding a .decision-log.md; it is \
terminal when it also holds run-report.md. Otherwise it is live only while the agent works on it: the \
run the heartbeat (run-status.json) names, its `updated` within six hours — the rule `goal show` uses \
for an active pursuit — and stopped else. Its last activity is that `updated`, or, for the other \
runs, the decision log's modification time."
)]
pub struct RunsArgs {
    #[command(flatten)]
    pub json: JsonFlag,
    #[command(flatten)]
    pub runs_root: RunsRoot,
}

#[derive(Debug, Default, Args)]
#[command(
    after_long_help = "Views: the dashboard (default), --json (schema git-ucg.status/1), --format markdown \
(byte for byte what UltraCode Goal's status_render.py prints for the same files), --prompt (one short segment \
for a shell prompt, e.g. `ucg 7 2/3 ⚑2R1E`: epic, position, pending REDs/escalations/decisions; `!` when the RED \
registry is corrupt, `?` when the ucg.prompt.timeoutMs deadline (default 50) cut it short). --watch re-renders \
on every change. status reads and never writes under the artifact directories; every source is optional."
)]
pub struct StatusArgs {
    /// The view: `human` (the dashboard), `json` (the same as --json), or `markdown` (the
    /// reference renderer's document).
    #[arg(long, value_enum, default_value_t = StatusFormat::Human, conflicts_with = "json")]
    pub format: StatusFormat,
    #[command(flatten)]
    pub json: JsonFlag,
    /// One short segment for a shell prompt, from a cache under the git directory; always exits 0.
    #[arg(long, conflicts_with_all = ["format", "json", "watch", "rev", "fast", "no_cache", "impl_artifacts", "run_dir", "runs_root", "deferred_work"])]
    pub prompt: bool,
    /// Re-render on every change to the artifacts, run folder or ledger (Ctrl-C ends); with --json,
    /// one document per line per change.
    #[arg(long, conflicts_with = "rev")]
    pub watch: bool,
    /// With --watch: announce each change of the pending decisions to CMD, as `git ucg notify
    /// --exec CMD` does.
    #[arg(long, value_name = "CMD", requires = "watch")]
    pub exec: Option<String>,
    /// Skip the per-story commit and line counts (no git history is read).
    #[arg(long)]
    pub fast: bool,
    /// Count lines afresh, without the line-count cache under the git directory.
    #[arg(long)]
    pub no_cache: bool,
    /// Whole ids and artifact paths where a person reads an item (default: the short handle
    /// `resolve` takes, and the file name).
    #[arg(long)]
    pub full: bool,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
    /// The run folder whose decision log's tail is shown (default: the heartbeat epic's run).
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,
    #[command(flatten)]
    pub runs_root: RunsRoot,
    #[command(flatten)]
    pub deferred_work: DeferredWork,
    #[command(flatten)]
    pub rev: RevFlag,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum StatusFormat {
    #[default]
    Human,
    Json,
    Markdown,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "A story's range is .baseline-<story> .. .commit-<story>, else .. the next later story's \
baseline, else .. the epic branch's tip (HEAD when the branch does not exist). Stories come from \
sprint-status.yaml in file order, else from the heartbeat, else from the markers present. A baseline that \
does not resolve, or is not an ancestor of its end, is reported as a problem of its story (exit 0). With \
--rev, the artifacts are the commit's and the ranges end at REV: a teammate's run on \
`origin/ultracode/epic-7`, say."
)]
pub struct EpicArgs {
    #[command(flatten)]
    pub json: JsonFlag,
    /// The epic id (default: the heartbeat's, else the current story's, else the checked-out epic branch's).
    #[arg(long, value_name = "ID")]
    pub epic: Option<String>,
    /// Skip per-story file and line counts (commits only).
    #[arg(long)]
    pub fast: bool,
    /// Count lines afresh, without the line-count cache under the git directory.
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub rev: RevFlag,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
}

#[derive(Debug, Args)]
#[command(
    group(clap::ArgGroup::new("format").args(["stat", "name_status", "numstat", "patch", "json"])),
    after_long_help = "Without --story or --range, the epic's accumulated diff: the first story's baseline .. the tip. \
Exit 2 when the range is not usable (a missing or foreign baseline, a baseline that is not an ancestor of its end)."
)]
pub struct DiffArgs {
    /// One story's range (see `git ucg epic`).
    #[arg(long, value_name = "STORY", conflicts_with = "range")]
    pub story: Option<String>,
    /// The epic's accumulated range (the default); with an ID, which epic, for --story too
    /// (default as for `git ucg epic`).
    #[arg(long, value_name = "ID", num_args = 0..=1, conflicts_with = "range")]
    pub epic: Option<Option<String>>,
    /// Any range of commits, `A..B` (anything git rev-parse understands on each side).
    #[arg(long, value_name = "A..B")]
    pub range: Option<String>,
    /// The former spelling of `--epic ID`, kept working.
    #[arg(long, value_name = "ID", hide = true, conflicts_with = "range")]
    pub epic_id: Option<String>,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
    #[command(flatten)]
    pub output: DiffOutputArgs,
}

impl DiffArgs {
    /// The epic named by `--epic ID` (or the hidden `--epic-id ID`).
    pub(crate) fn epic_id(&self) -> Option<String> {
        self.epic.clone().flatten().or_else(|| self.epic_id.clone())
    }
}

/// How a diff is printed (`git ucg diff` and `git ucg goal diff`).
#[derive(Debug, Args, Default)]
pub struct DiffOutputArgs {
    /// A diffstat, as `git diff --stat` prints it (the default).
    #[arg(long)]
    pub stat: bool,
    /// Status letter and path(s) per file, as `git diff --name-status` prints them.
    #[arg(long)]
    pub name_status: bool,
    /// Added and deleted lines per file, as `git diff --numstat` prints them.
    #[arg(long)]
    pub numstat: bool,
    /// A unified diff that `git apply` accepts (`-p` like git).
    #[arg(short = 'p', long)]
    pub patch: bool,
    #[command(flatten)]
    pub json: JsonFlag,
    /// Detect renames (the default).
    #[arg(short = 'M', long = "find-renames", overrides_with = "no_renames")]
    pub find_renames: bool,
    /// Do not detect renames.
    #[arg(long, overrides_with = "find_renames")]
    pub no_renames: bool,
    /// Count lines afresh, without the line-count cache under the git directory.
    #[arg(long)]
    pub no_cache: bool,
    /// Limit the diff to these paths (prefixes).
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum IdCommand {
    /// Print the stable id of a decision, exactly as UltraCode Goal's red_ids.py mints it. Touches nothing.
    Mint(IdMintArgs),
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "id = strip(KIND) \":\" SOURCE-without-its-:LINE \":\" first 12 hex digits of \
SHA-256(NFC(DECISION_NEEDED) with whitespace runs collapsed). Put `--` before the arguments when one may \
start with `-`."
)]
pub struct IdMintArgs {
    /// The decision's kind, e.g. undecided-product, budget-overrun, decision.
    pub kind: String,
    /// Where it comes from: a path, optionally with a `:LINE` suffix (ignored).
    pub source: String,
    /// The decision needed, as text (whitespace and Unicode normalization do not change the id).
    pub decision_needed: String,
}

#[derive(Debug, Default, Args)]
#[command(
    after_long_help = "Blocked while anything of `ucg.gate.sources` (git config; default \
reds,escalations,decisions) is pending, or while the RED registry is corrupt. Exit 1 when blocked, 0 \
otherwise (also when no run exists), whatever the format. `github` prints one workflow command per \
blocker (`::error file=…,title=…::…`, nothing when the gate is open); `junit` prints a JUnit XML report, \
one failing test case per blocker, one passing case when nothing is pending. In a bare repository (no \
work tree) --rev is required, and the commit is judged from its tree alone: the run located by the \
configuration layers the tree carries, as the shared remote's pre-receive hook judges a push."
)]
pub struct GateArgs {
    #[command(flatten)]
    pub rev: RevFlag,
    /// Whole ids and artifact paths where a person reads an item (default: the short handle
    /// `resolve` takes, and the file name).
    #[arg(long)]
    pub full: bool,
    /// How the decision is printed: `text` (the blockers on stderr), `json` (the same as --json),
    /// `github` (GitHub Actions annotations on stdout), `junit` (a JUnit XML report on stdout).
    #[arg(long, value_enum, default_value_t = GateFormat::Text, conflicts_with = "json")]
    pub format: GateFormat,
    #[command(flatten)]
    pub json: JsonFlag,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "CMD runs through sh -c, once per change, with {\"schema\": \"git-ucg.notify/1\", \"new\": [items], \"closed\": [ids], \"pending\": N} on its standard input and GIT_UCG_DECIDERS (the new items' deciders), GIT_UCG_NEW, GIT_UCG_CLOSED and GIT_UCG_PENDING in its environment. What was announced is recorded under the git directory (ucg/notify.json) after CMD succeeds: a change is never announced twice, and a failed CMD is reported and the change announced again with the next one."
)]
pub struct NotifyArgs {
    /// The command to run on each change (through sh -c).
    #[arg(long, value_name = "CMD", required = true)]
    pub exec: String,
    /// Keep watching the run's artifacts and announce every change (Ctrl-C ends); without it, one
    /// check (for cron, a hook, a CI step).
    #[arg(long)]
    pub watch: bool,
    // `--rev REV`: a commit's tree (`origin/B` in CI, a branch on the shared remote); with
    // --watch, REV is read again every 5 seconds.
    #[command(flatten)]
    pub rev: RevFlag,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum GateFormat {
    #[default]
    Text,
    Json,
    Github,
    Junit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookName {
    PreCommit,
    PrePush,
    PreMergeCommit,
    PreApplypatch,
    PreRebase,
    /// Records a commit made while the gate would have refused it (`--no-verify` or
    /// `GIT_UCG_SKIP`, which git still runs it under) as a note under `refs/notes/ucg-bypass`.
    PostCommit,
    /// The same for a merge commit made past pre-merge-commit (`git merge --no-verify`).
    PostMerge,
    /// Opt-in (`hooks install --all-commits`): git runs it for every commit it makes, and it
    /// judges those no gate hook saw (cherry-pick, revert).
    PrepareCommitMsg,
    /// Opt-in (`hooks install --only reference-transaction`): every new commit on a branch, also
    /// those plumbing makes (`commit-tree` + `update-ref`); git runs it for every ref update.
    ReferenceTransaction,
    /// The shared remote's gate (`hooks install --server`, in the repository pushes go to): a push
    /// that updates a protected branch to a commit whose tree tracks pending decisions.
    PreReceive,
}

impl HookName {
    /// Every hook git-ucg knows, in the order `hooks status` lists them (as declared).
    pub(crate) fn all() -> &'static [HookName] {
        HookName::value_variants()
    }

    /// What `hooks install` writes without `--only`: every commit git makes through a commit hook
    /// (commit, merge, am, rebase), every push, and the two that record bypasses — the first
    /// seven declared.
    pub(crate) fn defaults() -> &'static [HookName] {
        &HookName::all()[..7]
    }

    /// Whether the hook records a bypass after the fact rather than gating (git ignores its exit
    /// code, and `GIT_UCG_SKIP` does not skip it: recording the skip is its work).
    pub(crate) fn records_bypass(self) -> bool {
        matches!(self, HookName::PostCommit | HookName::PostMerge)
    }

    pub(crate) fn file_name(self) -> &'static str {
        match self {
            HookName::PreCommit => "pre-commit",
            HookName::PrePush => "pre-push",
            HookName::PreMergeCommit => "pre-merge-commit",
            HookName::PreApplypatch => "pre-applypatch",
            HookName::PreRebase => "pre-rebase",
            HookName::PostCommit => "post-commit",
            HookName::PostMerge => "post-merge",
            HookName::PrepareCommitMsg => "prepare-commit-msg",
            HookName::ReferenceTransaction => "reference-transaction",
            HookName::PreReceive => "pre-receive",
        }
    }

    /// Whether git runs this hook in the repository a push goes to, rather than where commits are
    /// made.
    pub(crate) fn is_server_side(self) -> bool {
        self == HookName::PreReceive
    }

    /// The git command whose work this hook gates, for the refusal's bypass line.
    pub(crate) fn verb(self) -> &'static str {
        match self {
            HookName::PreCommit
            | HookName::PostCommit
            | HookName::PrepareCommitMsg
            | HookName::ReferenceTransaction => "commit",
            HookName::PrePush | HookName::PreReceive => "push",
            HookName::PreMergeCommit | HookName::PostMerge => "merge",
            HookName::PreApplypatch => "am",
            HookName::PreRebase => "rebase",
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Install the gate hooks where git runs them: pre-commit, pre-push, pre-merge-commit,
    /// pre-applypatch, pre-rebase (a foreign hook is chained); with --server, the shared remote's
    /// pre-receive hook.
    Install(HooksInstallArgs),
    /// Remove the hooks git-ucg installed and restore the hooks they chained; unset the merge
    /// driver and take its lines out of .gitattributes.
    Uninstall(HooksUninstallArgs),
    /// What is installed where, and whether git will run it.
    Status(HooksStatusArgs),
    /// What the installed hook scripts call (not for people).
    #[command(hide = true)]
    Run(HooksRunArgs),
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "The hooks go where git looks for them: core.hooksPath (relative to the work tree; \
to the git directory in a bare repository), else the common git directory's hooks/ (shared by every \
worktree). A hook already there that is not ours is kept as <hook>.pre-ucg and run first, its failure \
blocking. Reinstalling changes nothing. Where pre-commit (.pre-commit-config.yaml), lefthook (lefthook.yml) or \
husky (.husky/) runs the hooks, nothing is written: the snippet to add to its configuration is printed \
(exit 2), or, once it runs the gate, \"gated through <manager>\". --server, in the repository everyone pushes to (a bare one), \
installs the pre-receive hook instead: a push that updates a protected branch (git config \
ucg.gate.protect, repeatable, default main and master) is refused while the pushed commit's tree \
tracks pending decisions; a pusher cannot bypass it."
)]
pub struct HooksInstallArgs {
    /// Install only this hook (repeatable).
    #[arg(long, value_enum, value_name = "HOOK")]
    pub only: Vec<HookName>,
    /// Install the shared remote's gate, the pre-receive hook, instead of the commit and push
    /// hooks (run it in the repository pushes go to).
    #[arg(long, conflicts_with_all = ["only", "strict", "agent", "all_commits"])]
    pub server: bool,
    /// Also enforce the story invariants (git config ucg.gate.strict true).
    #[arg(long)]
    pub strict: bool,
    /// Also merge the Claude Code Stop hook (`git ucg budget tick`) into .claude/settings.local.json.
    #[arg(long)]
    pub agent: bool,
    /// Also gate the commits no gate hook sees (cherry-pick, revert) through the
    /// prepare-commit-msg hook, which git runs for every commit it makes.
    #[arg(long)]
    pub all_commits: bool,
    /// Also set up the merge driver for the answers file and the RED registry: merge.ucg in this
    /// repository's config, and a `merge=ucg` line for each in .gitattributes (commit it; every
    /// clone runs this once).
    #[arg(long)]
    pub merge_driver: bool,
    /// Rewrite our hooks even when they are up to date (a chained hook is never overwritten).
    #[arg(long)]
    pub force: bool,
    /// Install into a core.hooksPath outside the repository, or where a hook manager
    /// (pre-commit, lefthook, husky) runs the hooks — which otherwise prints the snippet that gives
    /// that manager the gate, and writes nothing.
    #[arg(long)]
    pub hooks_path_ok: bool,
    /// Install shell scripts that look for git-ucg at every run ($GIT_UCG_BIN, PATH, then this
    /// binary's path) instead of links to this binary: a shell start slower per hook, but they
    /// follow the binary when it moves and refuse when it is gone.
    #[arg(long)]
    pub script: bool,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "git runs it as `merge-file %O %A %B %P` for the paths .gitattributes gives `merge=ucg` \
(`git ucg hooks install --merge-driver` sets up the driver and those lines). By file name: .decisions.json is merged answer by answer \
(an id answered on one side is kept; a side that did not change an answer gives way; a close beats a defer; of \
two different closes the later `at` wins, with a warning naming both, and the one let go goes to the run's \
decision log); .preflight-reds.json keeps every tombstone and the reds neither side closed or removed. Each is \
written as its own writer writes it, over OURS. Any other file, or a side that cannot be read as its kind: git's \
text merge (git merge-file), conflict markers and all. Exit 0 when merged cleanly, non-zero on a conflict."
)]
pub struct MergeFileArgs {
    /// The common ancestor's version (git's %O; empty when there is none).
    pub base: PathBuf,
    /// Our version (git's %A): the merge is written over it.
    pub ours: PathBuf,
    /// Their version (git's %B).
    pub theirs: PathBuf,
    /// The file's path in the repository (git's %P): its name picks the merge.
    pub path: PathBuf,
}

#[derive(Debug, Args)]
pub struct HooksUninstallArgs {
    /// Remove only this hook (repeatable; the merge driver then stays).
    #[arg(long, value_enum, value_name = "HOOK")]
    pub only: Vec<HookName>,
    /// Also remove our Stop hook from .claude/settings.local.json.
    #[arg(long)]
    pub agent: bool,
}

#[derive(Debug, Args)]
pub struct HooksStatusArgs {
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct HooksRunArgs {
    /// The hook git runs (absent with --from-env).
    #[arg(value_enum, required_unless_present = "from_env")]
    pub hook: Option<HookName>,
    /// Run as the pre-commit framework's hook (`.pre-commit-hooks.yaml`): the stage and, for a
    /// push, the pushed ref come from pre-commit's environment (PRE_COMMIT_*), not from git.
    #[arg(long, conflicts_with = "hook")]
    pub from_env: bool,
    /// The arguments git gave the hook.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<std::ffi::OsString>,
    /// The hook's path, when git started this binary as the hook itself (a link to it).
    #[arg(skip)]
    pub invoked_as: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "State lives in $OMT_DIR (default $HOME/.omt/<project>, the project named after the \
directory holding the git common directory), one ultragoal-state-<session>.json per session; the session is \
$OMT_SESSION_ID, else $CODEX_THREAD_ID. Exit status 0, or 1 with `ultragoal-state: Error: …` on stderr, as \
the TypeScript CLI."
)]
pub struct GoalArgs {
    /// Inspect another session's state (default: $OMT_SESSION_ID, else $CODEX_THREAD_ID).
    #[arg(long, value_name = "SID", global = true)]
    pub session: Option<String>,
    /// The state directory (default: $OMT_DIR, else $HOME/.omt/<project>).
    #[arg(long, value_name = "DIR", global = true)]
    pub omt_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<GoalCommand>,
    /// The matched subcommand as the reference's argv, its name and then its arguments, as clap
    /// matched them ([`GoalArgs::keep_argv`]); only the state CLI's subcommands read it.
    #[arg(skip)]
    pub argv: Vec<String>,
}

impl GoalArgs {
    /// Keeps the matched subcommand's name and its `args` (the state CLI's own), whatever the
    /// build: an id a subcommand does not define reads as no arguments, under debug assertions
    /// (where clap calls it an error) as without.
    pub(crate) fn keep_argv(&mut self, matches: &clap::ArgMatches) {
        if let Some((name, sub)) = matches.subcommand() {
            let args = sub.try_get_many::<String>("args").ok().flatten();
            let args = args.into_iter().flatten().cloned();
            self.argv = std::iter::once(name.to_string()).chain(args).collect();
        }
    }
}

/// Put after `goal` when its arguments begin with flags the state CLI accepts before the
/// subcommand (`goal --phase planning set`): the arguments then reach `goal` whole, as
/// [`GoalCommand::Unknown`] led by this marker (no subcommand name can be it).
pub(crate) const GOAL_FLAGS_FIRST: &str = "\u{1}flags-first";

#[derive(Debug, Args)]
#[command(
    after_long_help = "The ledger is ~/.anvil/ledger.jsonl (--ledger PATH or $ANVIL_LEDGER), its index the \
<name>.index.json beside it. The subcommands read their flags as DG-Anvil's CLI does (`--flag value`, \
`--flag=value`, `-l5`, a value may start with `-`). Refusals are one JSON line {\"error\", \"code\", \
\"details\"} on stderr with exit 1, as DG-Anvil's CLI prints them."
)]
pub struct LessonArgs {
    /// The ledger file (default: $ANVIL_LEDGER, else ~/.anvil/ledger.jsonl).
    #[arg(long, value_name = "PATH")]
    pub ledger: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<LessonCommand>,
}

/// A subcommand's arguments, read by DG-Anvil's rules rather than clap's.
#[derive(Debug, Args)]
pub struct LessonRawArgs {
    /// The subcommand's flags and operands (see above).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<std::ffi::OsString>,
}

#[derive(Debug, Subcommand)]
pub enum LessonCommand {
    /// Append the lessons of a JSONL file (`-`: standard input): all are validated before any is
    /// written.
    #[command(
        override_usage = "git ucg lesson append --file <FILE|-> [--ledger <PATH>]",
        after_long_help = "--file FILE|-   The lessons, one JSON object per line (required)."
    )]
    Append(LessonRawArgs),
    /// The lessons whose patterns share the most tokens with PATTERN (invalidated ones left out).
    #[command(
        override_usage = "git ucg lesson query [PATTERN] [--limit N|-l N] [--json] [--hide-superseded] [--ledger <PATH>]",
        after_long_help = "PATTERN                 The words to match (the first operand; others are ignored).\n\
--limit N, -l N         How many lessons at most (default 5; 0 is 5; a negative N drops that many).\n\
--json                  Print the lessons as DG-Anvil's CLI does: one JSON array.\n\
--hide-superseded       Leave out lessons a later lesson supersedes (they are flagged otherwise)."
    )]
    Query(LessonRawArgs),
    /// Check the ledger and its index: null lessons, duplicate ids, malformed lines, index desync
    /// both ways. Exit 1 when anything is found.
    #[command(
        override_usage = "git ucg lesson audit [--json] [--fix] [--ledger <PATH>]",
        after_long_help = "--json   Print one JSON document ({ok, issues, checked}).\n\
--fix    Rebuild the index from the ledger (the ledger is never changed), then audit.\n\
Other arguments are ignored, as DG-Anvil ignores them."
    )]
    Audit(LessonRawArgs),
    /// Mark a lesson invalid (a marker line; nothing is rewritten).
    #[command(
        override_usage = "git ucg lesson invalidate --lesson <ID> --reason <revert|stale|wrong> [--ledger <PATH>]"
    )]
    Invalidate(LessonRawArgs),
    /// A retroactive lesson from a post-ship fix: the criterion that shipped with a gap.
    #[command(
        alias = "retroactive",
        override_usage = "git ucg lesson retro --contract <FILE> --criterion <ID> --gap-note <TEXT> [--patterns <A,B>] [--ledger <PATH>]",
        after_long_help = "--contract FILE    The contract: YAML front matter, read and checked as DG-Anvil's loader does.\n\
--criterion ID     The criterion's id.\n\
--gap-note TEXT    What the contract failed to constrain.\n\
--patterns A,B     The lesson's patterns (default: the tokens of the contract's source_intent)."
    )]
    Retro(LessonRawArgs),
    /// The reset loop after a failed verify or review: append the lesson, add it to the contract's
    /// counter_examples, count the loop — or escalate the task.
    Reset(Box<LessonResetArgs>),
    /// The escalated tasks of Anvil's state file, each with its loop count, its last lesson and
    /// the options the human has.
    Escalated(LessonEscalatedArgs),
    /// Any other name: refused as DG-Anvil refuses it (E_UNKNOWN_SUBCOMMAND).
    #[command(external_subcommand)]
    Other(Vec<OsString>),
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "The reset runs only on a failure: a --verify-result that is green, a --court-result that \
is not request-changes with a gap, or a task already escalated is refused (exit 1, E_RESET_REFUSED), \
nothing written; with neither result, it says it acts on --evidence alone. \
A null or blank lesson appends nothing and escalates the task (exit 1, E_NULL_LESSON); \
at the loop cap (loop_cap, default 3) the task is escalated and nothing is appended. Otherwise the lesson \
is appended, the contract's counter_examples gains `<id>: <remediation>` (the rest of the file unchanged), \
loop_count goes up by one and last_lesson_id is set. Says what it did (--json: {appended, id, loop_count, status})."
)]
pub struct LessonResetArgs {
    /// The ledger file (default: $ANVIL_LEDGER, else ~/.anvil/ledger.jsonl).
    #[arg(long, value_name = "PATH")]
    pub ledger: Option<PathBuf>,
    /// The task's id in the state file.
    #[arg(long, value_name = "ID")]
    pub task: String,
    /// Anvil's state file (anvil/state.json).
    #[arg(long, value_name = "FILE")]
    pub state: PathBuf,
    /// The task's contract (YAML, or YAML front matter).
    #[arg(long, value_name = "FILE")]
    pub contract: PathBuf,
    /// What the contract failed to constrain.
    #[arg(long, value_name = "TEXT")]
    pub gap: String,
    /// What the failed check showed (default: the failing criteria of --verify-result).
    #[arg(long, value_name = "TEXT")]
    pub evidence: Option<String>,
    /// The counter-example the next attempt must honour.
    #[arg(long, value_name = "TEXT")]
    pub remediation: String,
    /// Anvil's verify-result.json: the reset runs only when it failed (not allGreen), and takes
    /// its evidence and criterion from the failing criteria.
    #[arg(long, value_name = "FILE")]
    pub verify_result: Option<PathBuf>,
    /// The Court's verdict (JSON): the reset runs only on a request-changes with a gap.
    #[arg(long, value_name = "FILE")]
    pub court_result: Option<PathBuf>,
    /// The criterion the lesson closes (default: the first failing one of the results).
    #[arg(long, value_name = "ID")]
    pub criterion: Option<String>,
    /// The lesson's pattern words, which `lesson query` matches (repeatable, or comma-separated).
    #[arg(long, value_name = "WORD", value_delimiter = ',')]
    pub pattern: Vec<String>,
    /// Print `{appended, id, loop_count, status}` as one JSON line, for scripts (a sentence
    /// otherwise).
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct LessonEscalatedArgs {
    /// Anvil's state file (anvil/state.json).
    #[arg(long, value_name = "FILE")]
    pub state: PathBuf,
    /// The ledger the last lessons are read from (default: $ANVIL_LEDGER, else
    /// ~/.anvil/ledger.jsonl).
    #[arg(long, value_name = "PATH")]
    pub ledger: Option<PathBuf>,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Subcommand)]
pub enum SdlcCommand {
    /// Every run, newest first by name, as its status line.
    List(SdlcListArgs),
    /// One run's status line (audit warnings on stderr).
    Status(SdlcRunArgs),
    /// One run's catalog: requirements, complexity, phases, events, decisions, QA report.
    Show(SdlcRunArgs),
    /// Correct meta.json's phase fields toward the event log (asks first), and append
    /// `status.repaired`.
    Repair(SdlcWriteArgs),
    /// Bring the work item's Markdown snapshots and meta.json in line with its most trusted ledger
    /// (asks first; forward sync of a successful adapter receipt does not ask).
    Reconcile(SdlcWriteArgs),
    /// Pick the phase to re-run, ask, and print the handoff for the pipeline (never runs a phase).
    Resume(SdlcResumeArgs),
}

#[derive(Debug, Args)]
pub struct SdlcLayoutArgs {
    /// Where run directories live (default: <project root>/docs/superpowers/runs).
    #[arg(long, value_name = "DIR")]
    pub runs_dir: Option<PathBuf>,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct SdlcListArgs {
    /// Newest first by meta.json's modification time (as the pipeline's hooks pick the newest run).
    #[arg(long)]
    pub by_mtime: bool,
    #[command(flatten)]
    pub layout: SdlcLayoutArgs,
}

#[derive(Debug, Args)]
pub struct SdlcRunArgs {
    /// A run id (its directory name), or `latest` (the default).
    #[arg(default_value = "latest")]
    pub run: String,
    #[command(flatten)]
    pub layout: SdlcLayoutArgs,
}

#[derive(Debug, Args)]
pub struct SdlcWriteArgs {
    /// A run id (its directory name), or `latest`.
    pub run: String,
    /// Answer yes to the confirmation.
    #[arg(long, short = 'y')]
    pub yes: bool,
    #[command(flatten)]
    pub layout: SdlcLayoutArgs,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "The prompt is the pipeline's own: `Resume by re-running Phase <N> (<name>)? It will \
overwrite that phase's outputs and continue. (yes/no)`; anything but yes stops (exit 1). An aborted run \
needs the answer typed: --yes does not cover it. Exit 2 when there is nothing to resume (a completed or \
running run, no candidate)."
)]
pub struct SdlcResumeArgs {
    /// A run id (its directory name), or `latest`.
    pub run: String,
    /// Answer yes to the confirmation (not for an aborted run).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Offer a failed phase for re-running too.
    #[arg(long)]
    pub allow_failed: bool,
    #[command(flatten)]
    pub layout: SdlcLayoutArgs,
}

#[derive(Debug, Subcommand)]
pub enum GoalCommand {
    /// Move between planning and pursuing: `--phase planning|pursuing` with the slot flags
    /// --outcome, --verification-surface, --constraints, --boundaries, --non-goals,
    /// --max-iterations N, --blocked-stop, --plan-path, --resume-summary, --completion-evidence a,b,
    /// --codex-goal-objective TEXT|-.
    Set(GoalRawArgs),
    /// Write the objective verdict (`--verdict APPROVE|REQUEST_CHANGES|COMMENT|absent`); from
    /// planning it first advances to pursuing.
    SetVerdict(GoalRawArgs),
    /// The only way to `complete`: every gate must hold (`--codex-goal-json JSON|FILE|-` when a
    /// Codex goal is armed).
    RequestComplete(GoalRawArgs),
    /// System-only: stop at the no-progress budget.
    SetBudgetLimited(GoalRawArgs),
    /// System-only: stop as blocked (`--reason TEXT`).
    SetBlocked(GoalRawArgs),
    /// User-only: leave budget_limited and pursue again with a fresh no-progress count.
    ResumePursuit(GoalRawArgs),
    /// Replace the story list (`--json '[…]'`, all unconfirmed) or derive one confirmed story from
    /// the outcome (`--single`). Planning only.
    SetStories(GoalRawArgs),
    /// Confirm one story: `confirm-story ID`.
    ConfirmStory(GoalRawArgs),
    /// Confirm every unconfirmed story.
    ConfirmAllStories(GoalRawArgs),
    /// Reorder the stories: `--order ID,ID,…` (every id once). Planning only.
    ReorderStories(GoalRawArgs),
    /// Add a story: `--json '{…}' --evidence TEXT --rationale TEXT`.
    AddStory(GoalRawArgs),
    /// Revise a story (back to unconfirmed): `revise-story ID --json '{…}' --evidence --rationale`.
    ReviseStory(GoalRawArgs),
    /// Retire a story: `retire-story ID --evidence TEXT --rationale TEXT`.
    RetireStory(GoalRawArgs),
    /// Split a story into two or more: `split-story ID --json '[…]' --evidence --rationale`.
    SplitStory(GoalRawArgs),
    /// The session's state as JSON with its computed `pristine`, or `null` when it is not an
    /// active, valid state (terminal states read as inactive).
    Get(GoalRawArgs),
    /// The phase token of the session's state, or `absent`.
    Status(GoalRawArgs),
    /// One line per confirmed story, for the reviewer.
    SerializeRequirements(GoalRawArgs),
    /// The five-slot review context as one line of JSON.
    SerializeReviewContext(GoalRawArgs),
    /// Other sessions' live, non-pristine pursuits, one tab-separated line each.
    ListOthers(GoalRawArgs),
    /// Take over another session's pursuit (after the user chose it): `--src SID`.
    Adopt(GoalRawArgs),
    /// Hook-only: consume one final code-review dispatch, or say why not.
    ClaimReviewDispatch(GoalRawArgs),
    /// User-only: five more review dispatches, pinned to the current review artifact.
    ApproveReviewDispatchRenewal(GoalRawArgs),
    /// User-only: dismiss one blocking review finding: `--ref FILE:LINE --class CLASS --rationale TEXT`.
    DismissReviewFinding(GoalRawArgs),
    /// The current story: the first confirmed story without an APPROVE verdict (derived, never stored).
    Current(GoalJsonArgs),
    /// The whole pursuit at a glance: phase, budget, stories with their verdicts, review lane,
    /// liveness.
    Show(GoalJsonArgs),
    /// Remove other sessions' state that is no longer live (the TTL rule), and their stale artifacts.
    Gc(GoalGcArgs),
    /// The ultragoal part of the Stop hook: Claude Code's hook event on stdin, its decision on stdout.
    StopHook,
    /// The accumulated diff of the pursuit, from the HEAD recorded when it first entered pursuing.
    Diff(GoalDiffArgs),
    /// Anything else: the state CLI's usage line, exit 1 (after the session check, as there).
    #[command(external_subcommand)]
    Unknown(Vec<String>),
}

/// The state CLI's own argument rules: a `--flag` takes the next token unless that begins with
/// `--`; --evidence, --rationale and --codex-goal-objective always take it.
#[derive(Debug, Args)]
pub struct GoalRawArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct GoalJsonArgs {
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct GoalGcArgs {
    /// Say what would be removed, remove nothing.
    #[arg(long, short = 'n')]
    pub dry_run: bool,
    #[command(flatten)]
    pub json: JsonFlag,
}

#[derive(Debug, Args)]
pub struct GoalDiffArgs {
    /// Start from this revision instead of the recorded base.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    #[command(flatten)]
    pub output: DiffOutputArgs,
}

#[derive(Debug, Subcommand)]
pub enum BaselineCommand {
    /// Write .baseline-<story> at HEAD, only when absent (mid-story it is kept, never regenerated).
    Start(BaselineStoryArgs),
    /// Write .commit-<story> at HEAD (refreshed every time: the story's end moves with follow-ups).
    End(BaselineStoryArgs),
    /// Whether .tests-ran-<story> is fresh: its baseline= line equals .baseline-<story>. Exit 1 if not.
    Check(BaselineStoryArgs),
    /// A story's markers and the range between them.
    Show(BaselineShowArgs),
}

#[derive(Debug, Args)]
pub struct BaselineStoryArgs {
    /// The story id.
    pub story: String,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
}

#[derive(Debug, Args)]
pub struct BaselineShowArgs {
    /// The story id (default: $ULTRACODE_STORY_ID, else .current-story).
    pub story: Option<String>,
    #[command(flatten)]
    pub json: JsonFlag,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
}

#[derive(Debug, Subcommand)]
pub enum BudgetCommand {
    /// The Stop hook: count one turn for the current story; at the ceiling write the escalation
    /// marker and tell the agent to stop. Reads the hook event on stdin; never blocks, never fails.
    #[command(
        after_long_help = "Byte-compatible with UltraCode Goal's budget_stop.py. The artifact directory is \
$ULTRACODE_IMPL_ARTIFACTS, else <event cwd>/_bmad-output/implementation-artifacts; the story is \
$ULTRACODE_STORY_ID, else .current-story, else `unknown`; the ceiling is $ULTRACODE_MAX_TURNS (default 25). \
Exit status is always 0."
    )]
    Tick,
    /// The turn counters: every story's, or one story's.
    Show(BudgetShowArgs),
    /// Start a story's count afresh (deletes its counter, under the directory's lock).
    Reset(BudgetResetArgs),
}

#[derive(Debug, Args)]
pub struct BudgetShowArgs {
    /// The story (default: every story with a counter).
    pub story: Option<String>,
    #[command(flatten)]
    pub json: JsonFlag,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
}

#[derive(Debug, Args)]
pub struct BudgetResetArgs {
    /// The story whose counter is deleted.
    pub story: String,
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,
}

#[derive(Debug, Subcommand)]
pub enum RedsCommand {
    /// Write the RED registry from a preflight scan, or re-apply the recorded answers to it.
    Apply(RedsApplyArgs),
}

#[derive(Debug, Args)]
#[command(
    group(clap::ArgGroup::new("input").required(true).args(["scan", "from_sidecar"])),
    after_long_help = "Byte-compatible with UltraCode Goal's red_ids.py: ids are minted from each red, reds whose \
ids are closed in .decisions.json become tombstones, and the registry is rewritten atomically and printed. \
Exit 0, or 2 with one JSON line {\"error\": …} on stderr and nothing written. A corrupt registry is never \
overwritten."
)]
pub struct RedsApplyArgs {
    #[command(flatten)]
    pub impl_artifacts: ImplArtifacts,

    /// The preflight scan: a JSON object with a "reds" list; `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub scan: Option<PathBuf>,

    /// Re-apply the recorded answers to the reds already in the registry.
    #[arg(long)]
    pub from_sidecar: bool,

    /// Print the document without writing anything.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to create the sample repository (must not exist or be empty; default: a new temporary directory).
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    after_long_help = "Without --prefix: the man pages go to <dir>/../share/man/man1 of the directory holding this \
binary when it is a `bin` directory (man-db finds pages there for every directory on PATH), else \
~/.local/share/man/man1; the completions to ~/.local/share/bash-completion/completions/git-ucg \
(bash, loaded on demand; `git ucg <TAB>` through git's completion), \
~/.local/share/zsh/site-functions/_git-ucg (zsh: put that directory on $fpath) and \
~/.config/fish/completions/git-ucg.fish (XDG_DATA_HOME and XDG_CONFIG_HOME are honoured). With \
--prefix P: P/share/man/man1, P/share/bash-completion/completions, P/share/zsh/site-functions and \
P/share/fish/vendor_completions.d, as a package installs them."
)]
pub struct InstallDocsArgs {
    /// Install under this prefix instead (a packager's layout).
    #[arg(long, value_name = "DIR")]
    pub prefix: Option<PathBuf>,
    /// Say where each file would go; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    pub what: GenerateWhat,

    /// The directory to write into (created if needed).
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenerateWhat {
    Man,
    Completions,
}

/// Whether the command line is `status --prompt` exactly (the one [`hot_path`] that runs on the
/// process's first thread).
pub fn is_prompt(args: &[OsString]) -> bool {
    matches!(args.get(1..), Some([status, prompt]) if status == "status" && prompt == "--prompt")
}

/// The command lines a prompt, a hook or an agent's Stop hook runs on every turn, parsed without
/// clap (building even one command's arguments costs more than the work of `budget tick`): exactly
/// these words and nothing else. `tests/deferred_cli.rs` proves each is what clap makes of them.
pub fn hot_path(args: &[OsString]) -> Option<Cli> {
    let words: Vec<&str> = args
        .get(1..)?
        .iter()
        .map(|arg| arg.to_str())
        .collect::<Option<_>>()?;
    let command = match words.as_slice() {
        ["status", "--prompt"] => Command::Status(Deferred(StatusArgs {
            prompt: true,
            ..StatusArgs::default()
        })),
        ["budget", "tick"] => Command::Budget(Deferred(BudgetCommand::Tick)),
        ["gate"] => Command::Gate(Deferred(GateArgs::default())),
        _ => return None,
    };
    Some(Cli {
        color: ColorWhen::Auto,
        no_pager: false,
        chdir: Vec::new(),
        command,
    })
}

/// Whether the command line is one of the short processes a prompt, a hook or an agent's turn
/// starts — `--version`, `status --prompt`, a hook, `budget tick`, `hooks …`, `gate`, completion
/// candidates, `help`, `id`, `config` — as opposed to the commands that read a whole run into
/// memory. `main` picks the allocator by it, before anything is allocated: so this looks at raw
/// bytes and allocates nothing. The subcommand is the first word that is not an option or the
/// value of `-C` / `--color`.
pub fn is_short_lived<'a>(words: impl IntoIterator<Item = &'a [u8]>) -> bool {
    let mut words = words.into_iter();
    let mut subcommand = None;
    while let Some(word) = words.next() {
        match word {
            b"--version" | b"-V" | b"__hook" => return true,
            b"-C" | b"--color" => {
                words.next();
            }
            _ if word.starts_with(b"-") => {}
            _ => {
                subcommand = Some(word);
                break;
            }
        }
    }
    match subcommand {
        Some(b"status") => words.any(|word| word == b"--prompt"),
        Some(b"budget") => words.next() == Some(b"tick".as_slice()),
        Some(b"hooks" | b"gate" | b"__complete" | b"help" | b"id" | b"config") => true,
        _ => false,
    }
}

/// What `--version` prints (clap's words, proven equal in `tests/deferred_cli.rs`), when it is the
/// only argument.
pub fn version_only(args: &[OsString]) -> Option<String> {
    match args.get(1..)? {
        [flag] if flag == "--version" || flag == "-V" => {
            Some(format!("git-ucg {}\n", env!("CARGO_PKG_VERSION")))
        }
        _ => None,
    }
}

/// The whole clap command, every deferred command built: for generators and tests (parsing builds
/// only the command in use); `COLUMNS` plays no part in what is generated from it.
pub fn command() -> clap::Command {
    built(|command| command)
}

/// [`command`], its help wrapped to `columns` — for help shown to a person. The width is set
/// before the build, which hands it down to every subcommand.
pub fn command_for_columns(columns: usize) -> clap::Command {
    built(|command| command.term_width(columns))
}

fn built(set: impl FnOnce(clap::Command) -> clap::Command) -> clap::Command {
    // Before the command is made: the deferred commands are built as it is.
    BUILD_EAGERLY.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut command = set(<Cli as clap::CommandFactory>::command());
    command.build();
    command
}

#[cfg(test)]
mod tests {
    #[test]
    fn definitions_are_consistent() {
        super::command().debug_assert();
    }

    #[test]
    fn short_lived_command_lines() {
        let short = |line: &str| super::is_short_lived(line.split_whitespace().map(str::as_bytes));
        for (line, want) in [
            ("--version", true),
            ("-V", true),
            ("__hook .git/hooks/pre-commit", true),
            ("status --prompt", true),
            ("--no-pager status --prompt", true),
            ("-C dir --color never status --prompt", true),
            ("budget tick", true),
            ("hooks run pre-push origin url", true),
            ("gate", true),
            ("gate --json", true),
            ("__complete pending", true),
            ("help resolve", true),
            ("id mint", true),
            ("config", true),
            ("", false),
            ("status", false),
            ("status --json", false),
            ("pending --json", false),
            ("resolve", false),
            ("reds apply --scan s.json", false),
            ("budget show", false),
            ("-C status pending", false),
            ("--color gate pending", false),
            ("lesson query x", false),
            ("sdlc list", false),
        ] {
            assert_eq!(short(line), want, "{line:?}");
        }
    }
}

#[derive(Debug, Args)]
pub struct HelpArgs {
    /// The command (and subcommand) to explain; none: git-ucg itself.
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CompleteArgs {
    pub what: CompleteWhat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompleteWhat {
    /// The handles of the pending items (what `resolve --close/--defer` take).
    Pending,
    /// The story ids of the run.
    Stories,
    /// The run folders' names.
    Runs,
    /// The agentic-sdlc runs' ids (and `latest`).
    SdlcRuns,
}
