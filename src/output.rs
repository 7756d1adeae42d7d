//! Where command output goes: stdout, or a pager when the output is long and stdout is a terminal
//! (git's rules: `GIT_PAGER`, then `core.pager`, then `PAGER`, then `less`, with `LESS=FRX`).

use std::io::{self, IsTerminal, Write};
use std::process::{Child, Command, Stdio};

/// Buffered command output, flushed to stdout or through a pager by [`Output::finish`].
pub struct Output {
    buffer: Vec<u8>,
    pager: Option<String>,
}

impl Output {
    /// Output that goes straight to stdout.
    pub fn plain() -> Self {
        Output {
            buffer: Vec::new(),
            pager: None,
        }
    }

    /// Output that may be paged: `pager` is the resolved pager command, or `None` when paging is off.
    pub fn paged(pager: Option<String>) -> Self {
        Output {
            buffer: Vec::new(),
            pager,
        }
    }

    /// Sends the output on. A pager is used only when the text is taller than the terminal.
    pub fn finish(self) -> io::Result<()> {
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
        let mut stdout = io::stdout().lock();
        stdout.write_all(&self.buffer)?;
        stdout.flush()
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

/// The pager git would use, or `None` when output must not be paged.
pub fn resolve_pager(no_pager: bool, core_pager: Option<String>) -> Option<String> {
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
pub fn use_color(when: crate::cli::ColorWhen) -> bool {
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
pub fn ask(prompt: &str) -> io::Result<Option<String>> {
    use io::{BufRead, Write};
    let mut err = io::stderr().lock();
    err.write_all(prompt.as_bytes())?;
    err.flush()?;
    let mut line = String::new();
    if io::stdin().lock().read_line(&mut line)? == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim_end_matches(['\n', '\r']).to_string()))
}

/// Prints one JSON document (pretty, with a final newline) on stdout: the `--json` of every read
/// command.
pub fn print_json(doc: &serde_json::Value) -> crate::error::Result<u8> {
    use std::io::Write;
    let text =
        serde_json::to_string_pretty(doc).map_err(|e| crate::error::Error::new(e.to_string()))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{text}")?;
    stdout.flush()?;
    Ok(0)
}
