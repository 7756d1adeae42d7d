//! `git ucg status`: what the run is doing and waiting on — the dashboard, `--json`, the
//! reference's markdown (`--format markdown`, byte-compatible with `status_render.py`), a prompt
//! segment (`--prompt`) and a live view (`--watch`). Every form reads and never writes under the
//! artifact directories.

pub mod prompt;

use crate::cli::{StatusArgs, StatusFormat};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::render::status_human::{self, Style};
use crate::render::status_markdown;
use crate::watch::{DirWatcher, Woken};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use ucg_git::ArtifactSource;
use ucg_ultracode::decision_log::DECISION_LOG_FILE;
use ucg_ultracode::epic::Detail;
use ucg_ultracode::reference_status::{self, ReferenceInputs};
use ucg_ultracode::status::{self, Report, StatusInputs};

/// Where one status is read from, located once.
struct Located {
    project_root: PathBuf,
    impl_dir: PathBuf,
    run_dir: Option<PathBuf>,
    runs_root: PathBuf,
    deferred_work: PathBuf,
}

/// `status --prompt`: the segment and its newline, or nothing; always exit 0.
pub(crate) fn print_prompt() -> u8 {
    let started = Instant::now();
    let segment = prompt::run(started);
    if !segment.is_empty() {
        // A prompt that cannot print has nowhere to say so.
        let _ = writeln!(std::io::stdout().lock(), "{segment}");
    }
    0
}

pub(crate) fn run(ctx: &Context, args: &StatusArgs) -> Result<u8> {
    if args.prompt {
        return Ok(print_prompt());
    }
    let format = if args.json.on {
        StatusFormat::Json
    } else {
        args.format
    };
    if args.watch {
        return watch(ctx, args, format);
    }
    let source = &ctx.artifact_source(args.rev.commit.as_deref())?;
    let located = locate(ctx, args, format, source)?;
    let document = render(ctx, args, format, source, &located)?;
    if format == StatusFormat::Human {
        return ctx.page_prose(&document);
    }
    crate::output::print(document)?;
    Ok(0)
}

fn locate(
    ctx: &Context,
    args: &StatusArgs,
    format: StatusFormat,
    source: &ArtifactSource,
) -> Result<Located> {
    let (impl_dir, deferred_work) = ctx.run_files(&args.impl_artifacts, &args.deferred_work)?;
    // The markdown view names nothing relative to the root: given every path, it looks for no
    // repository (the reference's invocation, and a millisecond saved).
    let project_root = match (format, &args.runs_root.dir) {
        (StatusFormat::Markdown, Some(_)) => PathBuf::from("."),
        _ => ctx.try_project_root().unwrap_or_else(|| PathBuf::from(".")),
    };
    let runs_root = args.runs_root.or_under(&project_root);
    // Without --rev the paths stay as given: the reference prints them so.
    let (impl_dir, runs_root) = (args.rev.place(impl_dir), args.rev.place(runs_root));
    // Given the reference's flags, behave as the reference: no --run-dir, no log tail. Located
    // from the configuration, the current run is the run folder of the heartbeat's epic.
    let run_dir = match (&args.run_dir, &args.impl_artifacts.dir) {
        (Some(dir), _) => Some(args.rev.place(dir.clone())),
        (None, Some(_)) => None,
        (None, None) => current_run(source, &impl_dir, &runs_root),
    };
    Ok(Located {
        project_root,
        deferred_work: args.rev.place(deferred_work),
        impl_dir,
        run_dir,
        runs_root,
    })
}

/// One rendering of the status in `format`.
fn render(
    ctx: &Context,
    args: &StatusArgs,
    format: StatusFormat,
    source: &ArtifactSource,
    located: &Located,
) -> Result<String> {
    if format == StatusFormat::Markdown {
        let read = reference_status::read(&ReferenceInputs {
            source,
            impl_dir: &located.impl_dir,
            run_dir: located.run_dir.as_deref(),
            runs_root: &located.runs_root,
            deferred_work: &located.deferred_work,
        });
        return Ok(status_markdown::render(&read, on_path("hunk")));
    }
    let mut report = status::gather(
        &StatusInputs {
            source,
            project_root: &located.project_root,
            impl_dir: &located.impl_dir,
            run_dir: located.run_dir.as_deref(),
            runs_root: &located.runs_root,
            deferred_work: &located.deferred_work,
            now: jiff::Timestamp::now(),
        },
        args.rev.commit.as_deref(),
    );
    if !args.fast {
        count_changes(ctx, args, source, &mut report);
    }
    ctx.annotate(&mut report.pending.pending);
    // The records are this repository's: shown for the work tree's run, since it stopped.
    if args.rev.commit.is_none() {
        let stopped = report.run.as_ref().and_then(|run| run.updated.as_str());
        report.bypasses = ctx.bypasses_since(stopped);
    }
    Ok(match format {
        StatusFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report)
                .map_err(|e| Error::new(format!("cannot encode the status: {e}")))?;
            text.push('\n');
            text
        }
        _ => status_human::render(
            &report,
            &Style {
                color: ctx.color,
                width: width(),
                full_ids: args.full,
            },
        ),
    })
}

/// The terminal's columns and rows (80×24 when it cannot be told).
fn screen_size() -> (usize, usize) {
    match terminal_size::terminal_size() {
        Some((terminal_size::Width(w), terminal_size::Height(h))) if w > 0 && h > 0 => {
            (usize::from(w), usize::from(h))
        }
        _ => (80, 24),
    }
}

/// The width human output is fitted to ([`crate::output::columns`]).
fn width() -> u16 {
    u16::try_from(crate::output::columns()).unwrap_or(u16::MAX)
}

/// Fills each story's commits and line counts from its range, as `git ucg epic` computes them.
/// Outside a repository, or where a range cannot be formed, the counts stay `null`.
fn count_changes(ctx: &Context, args: &StatusArgs, source: &ArtifactSource, report: &mut Report) {
    if report.stories.iter().all(|s| s.baseline.is_none()) {
        return;
    }
    let Ok(repo) = ctx.repo() else {
        return;
    };
    let epic = report.run.as_ref().and_then(|run| {
        run.epic
            .as_str()
            .map(str::to_string)
            .or_else(|| (!run.epic.is_null()).then(|| run.epic.to_string()))
    });
    let Ok(inputs) = ctx.epic_inputs(args.impl_artifacts.dir.as_deref(), epic) else {
        return;
    };
    let tip = (args.rev.commit.as_deref()).and_then(|rev| ucg_git::repo::commit_of(repo, rev).ok());
    let Ok(mut epic) = ucg_ultracode::epic::load(repo, &inputs, source, tip, Detail::Full) else {
        return;
    };
    report.resume = Some(ucg_ultracode::resume::route_of(Some(&epic)));
    let mut counted = ucg_git::line_count_cache(repo, !args.no_cache);
    for story in &mut report.stories {
        let Some(range) = story
            .id()
            .and_then(|id| epic.stories.iter_mut().find(|s| s.id == id))
        else {
            continue;
        };
        let changes = ucg_ultracode::epic::story_changes(repo, range, false, &mut counted);
        story.problems = range.problems.clone();
        if let Some(changes) = changes {
            story.commits = Some(changes.commits.len());
            if let Some((files, insertions, deletions)) = changes.counts {
                story.files_changed = Some(files);
                story.insertions = Some(insertions);
                story.deletions = Some(deletions);
            }
        }
    }
    counted.save();
}

/// The run folder of the heartbeat's epic (newest stamp first), if there is one.
fn current_run(source: &ArtifactSource, impl_dir: &Path, runs_root: &Path) -> Option<PathBuf> {
    let beat = ucg_ultracode::heartbeat::read(source, impl_dir);
    let names = source.list(runs_root);
    ucg_ultracode::runs::candidates_for_epic(&names, beat.epic.as_deref()?)
        .into_iter()
        .map(|name| runs_root.join(name))
        .find(|dir| source.is_file(&dir.join(DECISION_LOG_FILE)))
}

/// Whether an executable of that name is on PATH (the reference probes with `which`).
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| ucg_git::hooks::is_runnable(&dir.join(name)))
    })
}

/// `--watch`: renders, then renders again whenever something under the watched directories
/// changes (debounced by 200 ms) and the result differs from what is on screen. A watched
/// directory that disappears is watched again once it is back (checked every second).
fn watch(ctx: &Context, args: &StatusArgs, format: StatusFormat) -> Result<u8> {
    // Ctrl-C is how a watch ends: a success, as for `watch(1)` or `git log` in a pager.
    ctrlc::set_handler(|| {
        crate::output::restore_terminal();
        std::process::exit(0)
    })
    .map_err(|e| Error::new(format!("cannot handle Ctrl-C: {e}")))?;
    let terminal = std::io::stdout().is_terminal();
    // On a terminal the keys are read, not turned into signals: Ctrl-C sent as a signal would
    // reach `git` too (`git ucg` runs us as its child), which dies of it (exit 130) whatever we
    // return. Read here, Ctrl-C (or q) ends the watch with 0 through git as well.
    let _keys = if terminal && std::io::stdin().is_terminal() {
        crate::output::RawMode::enter(libc::STDIN_FILENO, false).map(listen_for_the_end)
    } else {
        None
    };
    let hint = match _keys.is_some() {
        true => "q or Ctrl-C quits",
        false => "Ctrl-C quits",
    };
    let result = watch_loop(ctx, args, format, terminal.then_some(hint));
    crate::output::restore_terminal();
    result
}

/// `--watch --exec CMD`: announces a change of the pending decisions, as `git ucg notify` does;
/// a failed announcement is tried again once the pending set has changed again.
fn announce(
    ctx: &Context,
    located: &Located,
    command: &str,
    announcer: &mut ucg_ultracode::notify::Announcer,
) -> Result<()> {
    let mut found = ucg_ultracode::pending::enumerate(
        &ucg_ultracode::pending::PendingInputs {
            project_root: &located.project_root,
            impl_dir: &located.impl_dir,
            ledger: &located.deferred_work,
        },
        &ArtifactSource::WorkTree,
    );
    ctx.annotate(&mut found);
    let run = crate::output::notify_runner(command);
    Ok(announcer.announce(ctx.repo()?.git_dir(), &found.items, &run)?)
}

/// Reads keys while the watch runs: the interrupt key or `q` ends it with exit 0 (the terminal
/// restored first); the suspend key suspends it as a signal would, and resumes the key reading.
fn listen_for_the_end(raw: crate::output::RawMode) -> crate::output::RawMode {
    let keys = raw.keys();
    let fd = raw.fd();
    std::thread::spawn(move || loop {
        let mut byte = [0u8; 1];
        if !matches!(crate::output::read_fd(fd, &mut byte), Ok(1)) {
            return;
        }
        match byte[0] {
            b if b == keys.interrupt || b == b'q' || b == b'Q' => {
                crate::output::restore_terminal();
                std::process::exit(0);
            }
            b if b == keys.suspend => {
                crate::output::restore_terminal();
                crate::output::signal_group(libc::SIGTSTP);
                // Continued: the keys are read again (the guard the watch holds restores them).
                std::mem::forget(crate::output::RawMode::enter(fd, false));
            }
            _ => {}
        }
    });
    raw
}

/// The watch's loop; `terminal` is the quit hint when the screen is a terminal (drawn in place,
/// the hint on its last line).
fn watch_loop(
    ctx: &Context,
    args: &StatusArgs,
    format: StatusFormat,
    terminal: Option<&str>,
) -> Result<u8> {
    let quit_hint = terminal;
    let terminal = terminal.is_some();
    let source = ArtifactSource::WorkTree;
    let mut size = screen_size();
    let mut watcher = DirWatcher::new()?;
    let mut shown: Option<String> = None;
    let mut announcer = ucg_ultracode::notify::Announcer::default();
    let mut changed = true;
    loop {
        // Where to look is located afresh each time: the heartbeat may now name another run.
        let located = locate(ctx, args, format, &source)?;
        let mut targets = vec![located.impl_dir.clone(), located.runs_root.clone()];
        targets.extend(located.run_dir.clone());
        targets.extend(located.deferred_work.parent().map(Path::to_path_buf));
        // A new bypass record moves the notes ref (a loose ref in `refs/notes`, which the first
        // one creates in `refs`; a packed one is seen at the next redraw).
        if let Ok(repo) = ctx.repo() {
            let refs = repo.common_dir().join("refs");
            targets.extend([refs.join("notes"), refs]);
        }
        changed |= watcher.watch_only(targets);

        if changed {
            if let Some(command) = &args.exec {
                announce(ctx, &located, command, &mut announcer)?;
            }
            let mut document = render(ctx, args, format, &source, &located)?;
            if terminal && format == StatusFormat::Human {
                // A screenful, the header on top: redrawn in place, nothing scrolls away; the
                // last line says how to leave.
                let (columns, rows) = size;
                let flowed = crate::render::fit::reflow(&document, columns);
                document =
                    crate::render::fit::fit_to_height(&flowed, rows.saturating_sub(1), columns);
                if let Some(hint) = quit_hint {
                    document.push_str(&format!("({hint})\n"));
                }
            }
            // What must differ for a new rendering to be shown: the document without the clock.
            let mut essence = document.clone();
            if format == StatusFormat::Json {
                // One document per line: the pretty form re-encoded compactly.
                let mut value: serde_json::Value = serde_json::from_str(&document)
                    .map_err(|e| Error::new(format!("cannot encode the status: {e}")))?;
                document = format!("{value}\n");
                if let Some(age) = value.pointer_mut("/run/age_seconds") {
                    *age = serde_json::Value::Null;
                }
                essence = value.to_string();
            }
            if shown.as_deref() != Some(essence.as_str()) {
                let mut stdout = std::io::stdout().lock();
                if terminal && format != StatusFormat::Json {
                    // Home and clear: redraw in place.
                    stdout.write_all(b"\x1b[H\x1b[2J")?;
                } else if shown.is_some() && format != StatusFormat::Json {
                    stdout.write_all(b"\n")?;
                }
                stdout.write_all(document.as_bytes())?;
                stdout.flush()?;
                shown = Some(essence);
            }
        }

        // Wait for a change, or a second (to notice a watched directory that came back).
        changed = match watcher.wait(Duration::from_secs(1)) {
            Woken::Changed => true,
            Woken::TimedOut => {
                // A resized terminal gets a screen fitted anew.
                let now = screen_size();
                let resized = terminal && now != size;
                size = now;
                if resized {
                    shown = None;
                }
                resized
            }
            Woken::Closed => return Ok(0),
        };
    }
}
