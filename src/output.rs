//! Where command output goes: stdout, or a pager when the output is long and stdout is a terminal
//! (git's rules: `GIT_PAGER`, then `core.pager`, then `PAGER`, then `less`, with `LESS=FRX`).

use std::io::{self, IsTerminal, Write};
use std::process::{Child, Command, Stdio};

/// Buffered command output, flushed to stdout or through a pager by [`Output::finish`].
pub(crate) struct Output {
    buffer: Vec<u8>,
    pager: Option<String>,
    /// Text for a person, wrapped to these columns when it is sent on ([`Output::prose`]).
    columns: Option<usize>,
}

impl Output {
    /// Output that may be paged: `pager` is the resolved pager command, or `None` when paging is off.
    pub(crate) fn paged(pager: Option<String>) -> Self {
        Output {
            buffer: Vec::new(),
            pager,
            columns: None,
        }
    }

    /// Marks the output as text for a person: sent on wrapped to [`columns`] at its spaces (a
    /// patch, a document another program reads, is never marked).
    pub(crate) fn prose(mut self) -> Self {
        self.columns = Some(columns());
        self
    }

    /// Sends the output on. A pager is used only when the text is taller than the terminal.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        if let Some(columns) = self.columns {
            if let Ok(text) = std::str::from_utf8(&self.buffer) {
                self.buffer = crate::render::fit::reflow(text, columns).into_bytes();
            }
        }
        if let Some(pager) = self.pager.filter(|_| longer_than_screen(&self.buffer)) {
            if let Ok(mut child) = spawn_pager(&pager) {
                let written = child
                    .stdin
                    .take()
                    .map(|mut stdin| stdin.write_all(&self.buffer))
                    .unwrap_or(Ok(()));
                let _ = child.wait();
                return match written {
                    // The user quit the pager early: that is not an error.
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                    other => other,
                };
            }
        }
        print(&self.buffer)
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The columns text for a person is laid out in on stdout, as git counts them: `COLUMNS`, else
/// the terminal's width, else 80.
pub(crate) fn columns() -> usize {
    columns_on(io::stdout())
}

/// [`columns`] for what is said on stderr (a hook's refusal, the guided pass).
pub(crate) fn error_columns() -> usize {
    columns_on(io::stderr())
}

fn columns_on(stream: impl std::os::fd::AsFd) -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0)
        .or_else(|| {
            terminal_size::terminal_size_of(stream)
                .map(|(terminal_size::Width(w), _)| usize::from(w))
                .filter(|w| *w > 0)
        })
        .unwrap_or(80)
}

/// Prints text for a person on stdout (never paged), wrapped to [`columns`].
pub(crate) fn print_prose(text: &str) -> io::Result<()> {
    print(crate::render::fit::reflow(text, columns()))
}

/// Says text for a person on stderr, wrapped to [`error_columns`].
pub(crate) fn say(text: &str) {
    say_narrower(text, 0);
}

/// The columns git's `remote: ` takes before each line a server-side hook says.
pub(crate) const REMOTE_PREFIX: usize = "remote: ".len();

/// [`say`] for text shown after a prefix of `prefix` columns (git's `remote: `).
pub(crate) fn say_narrower(text: &str, prefix: usize) {
    let columns = error_columns().saturating_sub(prefix);
    let mut err = io::stderr().lock();
    let _ = err.write_all(crate::render::fit::reflow(text, columns).as_bytes());
    let _ = err.flush();
}

/// The pager git would use, or `None` when output must not be paged.
pub(crate) fn resolve_pager(no_pager: bool, core_pager: Option<String>) -> Option<String> {
    if no_pager || !io::stdout().is_terminal() {
        return None;
    }
    let pager = std::env::var("GIT_PAGER")
        .ok()
        .or(core_pager)
        .or_else(|| std::env::var("PAGER").ok())
        .unwrap_or_else(|| "less".to_string());
    let trimmed = pager.trim();
    (!trimmed.is_empty() && trimmed != "cat").then(|| trimmed.to_string())
}

fn longer_than_screen(text: &[u8]) -> bool {
    let rows = std::env::var("LINES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(24);
    text.iter().filter(|b| **b == b'\n').count() >= rows
}

fn spawn_pager(pager: &str) -> io::Result<Child> {
    let mut command = Command::new("sh");
    command.arg("-c").arg(pager).stdin(Stdio::piped());
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        command.env("LV", "-c");
    }
    command.spawn()
}

/// Whether to colour output: `--color`, then `NO_COLOR`, then whether stdout is a terminal.
pub(crate) fn use_color(when: crate::cli::ColorWhen) -> bool {
    use crate::cli::ColorWhen;
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map_or(true, |t| t != "dumb")
                && io::stdout().is_terminal()
        }
    }
}

/// Prints `prompt` on stderr and reads one line from stdin (`None` at end of input), without its
/// line ending.
pub(crate) fn ask(prompt: &str) -> io::Result<Option<String>> {
    use io::BufRead;
    let mut err = io::stderr().lock();
    err.write_all(prompt.as_bytes())?;
    err.flush()?;
    let mut line = String::new();
    if io::stdin().lock().read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim_end_matches(['\n', '\r']).to_string()))
}

/// Everything on standard input, for a `-` given as a file.
pub(crate) fn stdin_bytes() -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::stdin().lock(), &mut bytes)?;
    Ok(bytes)
}

/// Writes `bytes` to stdout and flushes them: the text of a command that is never paged.
pub(crate) fn print(bytes: impl AsRef<[u8]>) -> io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes.as_ref())?;
    stdout.flush()
}

/// Prints one JSON document (pretty, with a final newline) on stdout: the `--json` of every read
/// command. Any serializable document, without building a JSON tree first: the same text as the
/// tree of the same fields in the same order.
pub(crate) fn print_json(doc: &impl serde::Serialize) -> crate::error::Result<u8> {
    // Written as it is serialized: a large run's document (megabytes) is never held whole, and
    // the memory a growing copy of it would touch is never faulted in.
    let mut out = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, doc).map_err(std::io::Error::from)?;
    writeln!(out)?;
    out.flush()?;
    Ok(0)
}

/// The terminal's settings as they were before [`RawMode::enter`] changed them, for whoever must
/// put them back on the way out: the guard's `Drop`, or a signal handler that ends the process.
static SAVED_TERMINAL: std::sync::Mutex<Option<(libc::c_int, libc::termios)>> =
    std::sync::Mutex::new(None);

/// Puts the terminal back as it was before the live [`RawMode`], if one is in force. Safe to call
/// from a signal handler's thread (the `ctrlc` crate runs handlers on a thread of their own).
pub(crate) fn restore_terminal() {
    let saved = match SAVED_TERMINAL.lock() {
        Ok(mut saved) => saved.take(),
        Err(poisoned) => poisoned.into_inner().take(),
    };
    if let Some((fd, termios)) = saved {
        // SAFETY: `termios` is a value the same call filled for `fd`.
        unsafe { libc::tcsetattr(fd, libc::TCSANOW, &termios) };
    }
}

/// The terminal's control characters as the user has them (`stty`): what ends a pass or a view.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ControlKeys {
    pub interrupt: u8,
    pub end_of_file: u8,
    pub suspend: u8,
}

/// A terminal in non-canonical mode without echo: keys arrive one at a time, without Enter. The
/// previous settings come back when the guard is dropped (every return, every `?`, a panic), and
/// [`restore_terminal`] puts them back from a signal handler.
pub(crate) struct RawMode {
    fd: libc::c_int,
    saved: libc::termios,
}

impl RawMode {
    /// Enters the mode on `fd` when it is a terminal and this process is in its foreground (a
    /// background job changing the terminal would be stopped); `None` otherwise. With
    /// `keep_signals` false, the interrupt and suspend keys arrive as bytes instead of signals.
    pub(crate) fn enter(fd: libc::c_int, keep_signals: bool) -> Option<RawMode> {
        // SAFETY: plain calls on a descriptor; `termios` is filled by tcgetattr before any use.
        unsafe {
            if libc::isatty(fd) != 1 || libc::tcgetpgrp(fd) != libc::getpgrp() {
                return None;
            }
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(fd, &mut saved) != 0 {
                return None;
            }
            let mut raw = saved;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO);
            if !keep_signals {
                raw.c_lflag &= !libc::ISIG;
            }
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            if let Ok(mut slot) = SAVED_TERMINAL.lock() {
                *slot = Some((fd, saved));
            }
            if libc::tcsetattr(fd, libc::TCSANOW, &raw) != 0 {
                restore_terminal();
                return None;
            }
            Some(RawMode { fd, saved })
        }
    }

    /// The terminal's descriptor.
    pub(crate) fn fd(&self) -> libc::c_int {
        self.fd
    }

    pub(crate) fn keys(&self) -> ControlKeys {
        ControlKeys {
            interrupt: self.saved.c_cc[libc::VINTR],
            end_of_file: self.saved.c_cc[libc::VEOF],
            suspend: self.saved.c_cc[libc::VSUSP],
        }
    }

    /// Waits for the next key (or burst of bytes, as an escape sequence arrives); empty at end of
    /// input.
    pub(crate) fn read(&self) -> io::Result<Vec<u8>> {
        let mut buf = [0u8; 32];
        let n = read_fd(self.fd, &mut buf)?;
        Ok(buf.get(..n).unwrap_or_default().to_vec())
    }
}

/// `read(2)` on `fd` into `buf`, again when a signal interrupts it; 0 at end of input.
pub(crate) fn read_fd(fd: libc::c_int, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        // SAFETY: `buf` is valid for its length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if let Ok(n) = usize::try_from(n) {
            return Ok(n);
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore_terminal();
        // SAFETY: as in `restore_terminal`, in case the slot was taken by another guard.
        unsafe { libc::tcsetattr(self.fd, libc::TCSANOW, &self.saved) };
    }
}

/// Sends `signal` to this process's group, as the terminal does for its interrupt and suspend
/// keys (so a `git` that started us, and a pipeline we are part of, get it too).
pub(crate) fn signal_group(signal: libc::c_int) {
    // SAFETY: kill(2) with pid 0 names the caller's own process group.
    unsafe { libc::kill(0, signal) };
}

/// One answer to a one-key question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Keypress {
    /// A printable key, lower-cased.
    Char(char),
    /// Enter: take the default.
    Enter,
    /// End of input (Ctrl-D, or stdin closed).
    End,
    /// Esc alone (not the start of an arrow's sequence, which arrives with it).
    Escape,
    /// Anything else (an arrow, a function key, a control character).
    Other,
}

/// Prints `prompt` on stderr and takes one key from a terminal on stdin, without Enter. The key is
/// echoed and the line ended, so what was chosen stays on screen. The interrupt key restores the
/// terminal and then interrupts (as it would have); the suspend key suspends and asks again.
/// `None` when stdin is not a terminal this process may read keys from: ask with [`ask`] then.
pub(crate) fn ask_key(prompt: &str) -> io::Result<Option<Keypress>> {
    let mut err = io::stderr().lock();
    loop {
        let Some(raw) = RawMode::enter(libc::STDIN_FILENO, false) else {
            return Ok(None);
        };
        err.write_all(prompt.as_bytes())?;
        err.flush()?;
        let keys = raw.keys();
        let bytes = raw.read()?;
        drop(raw);
        let key = match bytes.as_slice() {
            [] => Keypress::End,
            [b] if *b == keys.interrupt => {
                err.write_all(b"^C\n")?;
                err.flush()?;
                signal_group(libc::SIGINT);
                // The group's copy may land on another thread later: raised on this one too, the
                // interrupt takes effect now (the default action ends the process; a handler may
                // let it go on), never after the pass has gone on to print and exit normally.
                // SAFETY: raise(3) on the calling thread.
                unsafe { libc::raise(libc::SIGINT) };
                return Ok(Some(Keypress::End));
            }
            [b] if *b == keys.suspend => {
                err.write_all(b"^Z\n")?;
                err.flush()?;
                signal_group(libc::SIGTSTP);
                // As for the interrupt: stopped now, asked again once continued.
                // SAFETY: raise(3) on the calling thread.
                unsafe { libc::raise(libc::SIGTSTP) };
                continue;
            }
            [b] if *b == keys.end_of_file => Keypress::End,
            [b'\r'] | [b'\n'] => Keypress::Enter,
            [0x1b] => Keypress::Escape,
            _ => match std::str::from_utf8(&bytes).ok().map(|s| {
                let mut chars = s.chars();
                (chars.next(), chars.next())
            }) {
                Some((Some(c), None)) if !c.is_control() => {
                    Keypress::Char(c.to_lowercase().next().unwrap_or(c))
                }
                _ => Keypress::Other,
            },
        };
        match &key {
            Keypress::Char(c) => writeln!(err, "{c}")?,
            Keypress::End | Keypress::Enter | Keypress::Escape | Keypress::Other => writeln!(err)?,
        }
        err.flush()?;
        return Ok(Some(key));
    }
}

/// Runs the user's `command` through `sh -c` with `input` on its standard input and `env` added
/// to its environment (a notification command, a program the user configured, not git):
/// `Err(why)` when it cannot start or does not succeed.
pub(crate) fn run_user_command(
    command: &str,
    input: &[u8],
    env: &[(&str, String)],
) -> std::result::Result<(), String> {
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{command}`: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // A command that does not read its input closes it early: not a failure.
        let _ = std::io::Write::write_all(&mut stdin, input);
    }
    match child.wait() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("`{command}` failed ({status})")),
        Err(e) => Err(format!("`{command}`: {e}")),
    }
}

/// Runs a notification command for [`ucg_ultracode::notify::announce`], saying on stderr when it
/// failed: the change is then announced again with the next one.
pub(crate) fn notify_runner(
    command: &str,
) -> impl Fn(&[u8], &[(&str, String)]) -> std::result::Result<(), String> + '_ {
    move |input, env| {
        run_user_command(command, input, env).inspect_err(|why| {
            eprintln!("git-ucg notify: {why}; the change is announced again with the next one");
        })
    }
}

/// What the operator did at an answer prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Typed {
    /// A line, its line breaks (a pasted paragraph) joined with spaces: an answer is one line.
    Line(String),
    /// Esc or the interrupt key: back to the item's choice, nothing recorded.
    Back,
    /// End of input (Ctrl-D on an empty line, or stdin closed).
    End,
}

/// The answer prompt of the guided pass. On a terminal it is a line editor (rustyline: arrows,
/// Home/End, word motions, Ctrl-U, bracketed paste, Up for this pass's earlier answers), reading
/// and drawing on the terminal itself, so a redirected stdout never receives a prompt. Anywhere
/// else it reads plain lines, as [`ask`] does.
pub(crate) struct AnswerPrompt {
    terminal: bool,
    /// This pass's answers, oldest first: what Up brings back.
    history: Vec<String>,
}

impl AnswerPrompt {
    /// The line editor when stdin is a terminal this process may read from (in its foreground);
    /// plain lines otherwise.
    pub(crate) fn new() -> AnswerPrompt {
        // SAFETY: plain queries on the standard input's descriptor.
        let terminal = unsafe {
            libc::isatty(libc::STDIN_FILENO) == 1
                && libc::tcgetpgrp(libc::STDIN_FILENO) == libc::getpgrp()
        };
        AnswerPrompt {
            terminal,
            history: Vec::new(),
        }
    }

    /// An editor for one line. It lives only while the line is read: rustyline catches SIGINT
    /// for as long as an editor exists, and the one-key choices between answers must let the
    /// interrupt key end the pass as it does everywhere else.
    fn editor(&self) -> Option<rustyline::DefaultEditor> {
        use rustyline::history::History;
        use rustyline::{Behavior, Cmd, Config, EventHandler, KeyEvent};
        let config = Config::builder()
            .behavior(Behavior::PreferTerm)
            .auto_add_history(false)
            // A lone Esc is told from the start of an arrow key's sequence by the pause after
            // it: a key's sequence arrives at once.
            .keyseq_timeout(Some(50))
            .build();
        let mut editor = rustyline::DefaultEditor::with_config(config).ok()?;
        editor.bind_sequence(KeyEvent::from('\x1b'), EventHandler::Simple(Cmd::Interrupt));
        for answer in &self.history {
            editor.history_mut().add(answer).ok()?;
        }
        Some(editor)
    }

    /// Whether answers are typed on a terminal, where they can be looked at before recording.
    pub(crate) fn on_terminal(&self) -> bool {
        self.terminal
    }

    /// Asks for one line, `initial` already typed (the cursor after it).
    pub(crate) fn read(&mut self, prompt: &str, initial: &str) -> io::Result<Typed> {
        use rustyline::error::ReadlineError;
        let Some(mut editor) = self.terminal.then(|| self.editor()).flatten() else {
            return Ok(ask(prompt)?.map_or(Typed::End, Typed::Line));
        };
        match editor.readline_with_initial(prompt, (initial, "")) {
            Ok(line) => Ok(Typed::Line(one_line(&line))),
            Err(ReadlineError::Interrupted) => Ok(Typed::Back),
            Err(ReadlineError::Eof) => Ok(Typed::End),
            Err(ReadlineError::Io(error)) => Err(error),
            Err(other) => Err(io::Error::other(other.to_string())),
        }
    }

    /// Keeps `answer` for Up at the next prompt of this pass (never written to a file).
    pub(crate) fn remember(&mut self, answer: &str) {
        if self.history.last().map(String::as_str) != Some(answer) {
            self.history.push(answer.to_string());
        }
    }
}

/// `text` on one line: each line break, with the blanks around it, becomes one space.
fn one_line(text: &str) -> String {
    if !text.contains(['\n', '\r']) {
        return text.to_string();
    }
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
