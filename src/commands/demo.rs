//! `git ucg demo [DIR]`: a deterministic sample repository with a stopped UltraCode Goal run, so a
//! newcomer can try every command on something real. Commits have fixed authors and dates, so the
//! same version of git-ucg always builds the same hashes.

use crate::cli::DemoArgs;
use crate::context::Context;
use crate::error::{cannot, Error, Result};
use std::path::{Path, PathBuf};
use ucg_ultracode::{markers, reds};

const EPIC: &str = "7";
const EPIC_BRANCH: &str = "ultracode/epic-7";
const RUN_FOLDER: &str = "epic-7-20260604T172512Z";
const IMPL: &str = ucg_ultracode::DEFAULT_IMPL_DIR;
const STORIES: [&str; 3] = ["7-1", "7-2", "7-3"];

/// The commands the demo suggests, in order. Only commands that exist are listed; later commands
/// join this list as they are built.
const NEXT_COMMANDS: &[(&str, &str)] = &[
    ("git ucg pending", "the decisions the run waits on"),
    ("git ucg resolve", "answer them, one at a time"),
    ("git ucg hooks install", "then a commit waits for them too:"),
    (
        "git commit --allow-empty -m try",
        "refused, with the list and the way",
    ),
    ("git ucg gate", "the same decision, for CI"),
    ("git ucg resume", "where the run re-enters once answered"),
];

/// The artifacts the pipelines left, byte for byte, as they lie in the sample repository
/// (`src/commands/demo/sample/`): UltraCode Goal's run (its escalation, budget, deferred work,
/// heartbeat, sprint status and decision log), three agentic-sdlc runs (one completed, one left
/// running long ago, one whose snapshot lags its event log, with a work item whose ledger is ahead
/// of its Markdown) and a small DG-Anvil ledger, task state and contract (kept in the demo, not in
/// ~/.anvil) to try `lesson query` and `lesson reset` on.
macro_rules! sample {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!("demo/sample/", $path)))),*]
    };
}
const ARTIFACTS: &[(&str, &str)] = sample![
    "_bmad-output/implementation-artifacts/.budget-7-3.json",
    "_bmad-output/implementation-artifacts/.escalation-7-3.md",
    "_bmad-output/implementation-artifacts/deferred-work.md",
    "_bmad-output/implementation-artifacts/escalation-7-3.json",
    "_bmad-output/implementation-artifacts/run-status.json",
    "_bmad-output/implementation-artifacts/sprint-status.yaml",
    "_bmad-output/ultracode-goal/epic-7-20260604T172512Z/.decision-log.md",
    "anvil/contract.yml",
    "anvil/ledger.index.json",
    "anvil/ledger.jsonl",
    "anvil/state.json",
    "docs/superpowers/runs/20260601-0900-feat-csv-export/complexity.json",
    "docs/superpowers/runs/20260601-0900-feat-csv-export/decisions.jsonl",
    "docs/superpowers/runs/20260601-0900-feat-csv-export/events.jsonl",
    "docs/superpowers/runs/20260601-0900-feat-csv-export/meta.json",
    "docs/superpowers/runs/20260601-0900-feat-csv-export/qa-report.md",
    "docs/superpowers/runs/20260601-0900-feat-csv-export/requirements.md",
    "docs/superpowers/runs/20260603-1400-fix-login-timeout/events.jsonl",
    "docs/superpowers/runs/20260603-1400-fix-login-timeout/meta.json",
    "docs/superpowers/runs/20260604-1000-feat-rate-limit/events.jsonl",
    "docs/superpowers/runs/20260604-1000-feat-rate-limit/meta.json",
    "docs/superpowers/runs/20260604-1000-feat-rate-limit/work-item-events.jsonl",
    "docs/superpowers/runs/20260604-1000-feat-rate-limit/work-item.md",
    "docs/superpowers/work-items/PROJ-1234.md",
    "docs/superpowers/work-items/work-item-events.jsonl",
];

pub(crate) fn run(_ctx: &Context, args: &DemoArgs) -> Result<u8> {
    let dir = prepare_dir(args.dir.as_deref())?;
    build(&dir)?;
    seed_pursuit(&dir)?;
    // The run as `git ucg status` shows it, its header and pending count: the whole dashboard is
    // one command away, and the path and what to try stay on the screen.
    let impl_dir = dir.join(IMPL);
    let runs_root = dir.join(ucg_ultracode::runs::RUNS_ROOT);
    let run_dir = runs_root.join(RUN_FOLDER);
    let report = ucg_ultracode::status::gather(
        &ucg_ultracode::status::StatusInputs {
            source: &ucg_git::ArtifactSource::WorkTree,
            project_root: &dir,
            impl_dir: &impl_dir,
            run_dir: Some(&run_dir),
            runs_root: &runs_root,
            deferred_work: &impl_dir.join(ucg_ultracode::ledger::LEDGER_FILE),
            now: jiff::Timestamp::now(),
        },
        None,
    );
    let style = crate::render::status_human::Style {
        color: false,
        width: u16::try_from(crate::output::columns()).unwrap_or(u16::MAX),
        full_ids: false,
    };
    let status = crate::render::status_human::render(&report, &style);
    crate::output::print_prose(&introduction(&dir, &status))?;
    crate::output::print_prose(&next_steps(&dir))?;
    Ok(0)
}

/// An ultragoal pursuit mid-way, in `<dir>/.omt` (session `demo`): planned, two stories
/// confirmed, pursuing, a review asking for changes — made by the `goal` command itself.
fn seed_pursuit(dir: &Path) -> Result<()> {
    let omt = dir.join(ucg_ultragoal::dir::OMT_DIR_NAME);
    let stories = r#"[{"id":"S1","story":"A token bucket per client","acceptance_criteria":["bursts over 10 per second are refused"],"verification_surface":"probe: 200 requests in 2 s"},{"id":"S2","story":"429 with Retry-After","acceptance_criteria":["every 429 carries Retry-After"],"verification_surface":"curl -i"}]"#;
    let steps: [&[&str]; 5] = [
        &[
            "set",
            "--phase",
            "planning",
            "--outcome",
            "Rate limiting on the public API",
            "--verification-surface",
            "probe: 200 requests in 2 s are throttled",
        ],
        &["set-stories", "--json", stories],
        &["confirm-all-stories"],
        &["set", "--phase", "pursuing"],
        &["set-verdict", "--verdict", "REQUEST_CHANGES"],
    ];
    for step in steps {
        let mut args: Vec<std::ffi::OsString> = vec![
            "git-ucg".into(),
            "-C".into(),
            dir.as_os_str().into(),
            "goal".into(),
            "--session".into(),
            "demo".into(),
            "--omt-dir".into(),
            omt.as_os_str().into(),
        ];
        args.extend(step.iter().map(std::ffi::OsString::from));
        if crate::run(args) != 0 {
            return Err(crate::error::Error::new(format!(
                "the demo's ultragoal pursuit could not be made (goal {})",
                step.first().copied().unwrap_or_default()
            )));
        }
    }
    Ok(())
}

fn prepare_dir(requested: Option<&Path>) -> Result<PathBuf> {
    let dir = match requested {
        Some(dir) => {
            let occupied = std::fs::read_dir(dir)
                .map(|mut d| d.next().is_some())
                .unwrap_or(false);
            if occupied {
                return Err(
                    Error::new(format!("{} exists and is not empty", dir.display())).hint(
                        "give a new or empty directory, or none to use a fresh temporary one",
                    ),
                );
            }
            ucg_store::create_dirs(dir).map_err(cannot("create", dir))?;
            dir.to_path_buf()
        }
        None => ucg_store::new_kept_temp_dir("git-ucg-demo-")
            .map_err(|e| Error::new(format!("cannot create a temporary directory: {e}")))?,
    };
    Ok(std::path::absolute(&dir).unwrap_or(dir))
}

/// Builds the repository.
fn build(dir: &Path) -> Result<()> {
    let mut repo = DemoRepo { dir, commits: 0 };
    repo.git(&["init", "--quiet", "--initial-branch=main"])?;
    repo.write(
        "README.md",
        "# Tasklist\n\nA small task-list service, the subject of the git-ucg demo.\n",
    )?;
    repo.write("docs/prd.md", include_str!("demo/sample/docs/prd.md"))?;
    repo.write("src/app.py", "def main():\n    print(\"tasklist\")\n")?;
    repo.commit("Initial commit: task-list service skeleton")?;
    repo.git(&["checkout", "--quiet", "-b", EPIC_BRANCH])?;

    let mut marker_files = Vec::new();
    let mut baseline_7_3 = String::new();
    let story_commits: [&[(&str, &str, &str)]; 3] = [
        &[
            ("src/login.py", "def login(user, password):\n    return check(user, password)\n", "7-1: login form"),
            ("tests/test_login.py", "def test_login():\n    assert login(\"a\", \"b\") is not None\n", "7-1: login form tests"),
        ],
        &[(
            "src/session.py",
            "SESSION_TTL_DAYS = None  # undecided: see docs/prd.md\n\ndef open_session(user):\n    return {\"user\": user}\n",
            "7-2: sessions",
        )],
        &[(
            "src/payments.py",
            "def charge(amount):\n    raise NotImplementedError(\"provider undecided\")\n",
            "7-3: payment stub (stopped on its turn budget)",
        )],
    ];
    for (story, commits) in STORIES.iter().zip(story_commits) {
        let baseline = repo.head()?;
        for (path, text, message) in commits {
            repo.write(path, text)?;
            repo.commit(message)?;
        }
        marker_files.push((markers::baseline_file(story), format!("{baseline}\n")));
        if *story == "7-3" {
            baseline_7_3 = baseline;
        } else {
            marker_files.push((markers::commit_file(story), format!("{}\n", repo.head()?)));
        }
    }

    for (name, text) in &marker_files {
        repo.write(&format!("{IMPL}/{name}"), text)?;
    }
    repo.write(&format!("{IMPL}/{}", markers::CURRENT_STORY_FILE), "7-3\n")?;
    repo.write(
        &format!("{IMPL}/{}", markers::tests_ran_file("7-3")),
        &format!("suite green\nbaseline={baseline_7_3}\n"),
    )?;
    let registry = red_registry()?;
    repo.write(
        &format!("{IMPL}/{}", reds::REGISTRY_FILE),
        &registry.to_pretty_json(),
    )?;
    for (path, text) in ARTIFACTS {
        repo.write(path, text)?;
    }

    Ok(())
}

fn red_registry() -> Result<reds::Registry> {
    let scan = reds::parse_scan(include_bytes!("demo/preflight-scan.json"))
        .map_err(|e| Error::new(e.to_string()))?;
    reds::apply(scan, &[], &ucg_ultracode::decisions::IdSet::default())
        .map_err(|e| Error::new(e.to_string()))
}

/// What the demo made: the run in a sentence, the head of its status (the header block and the
/// pending count), and where the repository is.
fn introduction(dir: &Path, status: &str) -> String {
    let header: Vec<&str> = status.lines().take_while(|l| !l.is_empty()).collect();
    let pending = status
        .lines()
        .find(|l| l.starts_with("Pending decisions:"))
        .unwrap_or("Pending decisions: none");
    let said = format!(
        "Created a sample repository with a stopped UltraCode Goal run: epic {EPIC} on branch \
         {EPIC_BRANCH} (checked out): 7-1 and 7-2 done, 7-3 stopped over its budget."
    );
    format!(
        "{}\n\n$ git ucg status   (its head)\n{}\n{pending}\n\nThe repository:\n  {}\n",
        said,
        header.join("\n"),
        dir.display()
    )
}

/// What to try next, after the status: the main loop, then where everything else is. How to run
/// `git ucg` before it is installed is said only when this binary is cargo's build.
fn next_steps(dir: &Path) -> String {
    let width = NEXT_COMMANDS
        .iter()
        .map(|(c, _)| c.len())
        .max()
        .unwrap_or(0);
    let mut out = format!("\nTry next:\n  cd {}\n", dir.display());
    for (command, what) in NEXT_COMMANDS {
        out.push_str(&format!("  {command:<width$}  # {what}\n"));
    }
    out.push_str(
        "More here: status (--watch), epic, diff --story 7-2, sdlc list, config, and the\n\
         neighbouring systems' state (`git ucg help` lists every command):\n\
         \x20 git ucg goal --session demo --omt-dir .omt show\n\
         \x20 git ucg lesson --ledger anvil/ledger.jsonl query rate limit\n",
    );
    let built_by_cargo = std::env::current_exe().ok().is_some_and(|exe| {
        let mut up = exe.ancestors().skip(2);
        up.next()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "target")
    });
    out.push_str(match built_by_cargo {
        true => {
            "Not installed yet: `cargo run --release -- -C <dir> …` stands for `git ucg`;\n\
                 `cargo install --locked --path .` then `git ucg install-docs` install it.\n"
        }
        false => "`git ucg install-docs` installs the man pages and shell completions.\n",
    });
    out
}

/// Runs `git` in the demo repository, isolated from the user's configuration and from any
/// repository the demo was started in.
struct DemoRepo<'a> {
    dir: &'a Path,
    commits: u32,
}

impl DemoRepo<'_> {
    fn git(&self, args: &[&str]) -> Result<String> {
        let date = format!("2026-06-04T17:{:02}:12Z", 25 + self.commits * 7);
        let identity = ucg_git::hermetic::Identity {
            author: ("Ada Operator", "ada@example.com"),
            committer: ("UltraCode Goal", "ucg@example.com"),
            date: &date,
        };
        let mut command = ucg_git::hermetic::git(self.dir);
        let output = identity
            .apply(command.args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.hooksPath=/dev/null",
            ]))
            .args(args)
            .output()
            .map_err(|e| {
                Error::new(format!("cannot run git: {e}")).hint(
                    "the demo builds its repository with the git command; install git and retry",
                )
            })?;
        if !output.status.success() {
            return Err(Error::new(format!(
                "git {} failed in {}: {}",
                args.join(" "),
                self.dir.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    fn write(&self, path: &str, text: &str) -> Result<()> {
        let full = self.dir.join(path);
        ucg_store::write_creating_dirs(&full, text.as_bytes()).map_err(cannot("write", &full))
    }

    fn commit(&mut self, message: &str) -> Result<()> {
        self.git(&["add", "--all"])?;
        self.git(&["commit", "--quiet", "-m", message])?;
        self.commits += 1;
        Ok(())
    }

    fn head(&self) -> Result<String> {
        self.git(&["rev-parse", "HEAD"])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sample_scan_is_valid() {
        let registry = super::red_registry().unwrap();
        assert_eq!(registry.reds.len(), 2);
    }
}
