use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use ucg_git::hermetic;

pub const BIN: &str = env!("CARGO_BIN_EXE_git-ucg");

/// Who makes the tests' commits, and when: the same steps give the same hashes.
const TEST_IDENTITY: hermetic::Identity = hermetic::Identity {
    author: ("Test Author", "author@example.com"),
    committer: ("Test Committer", "committer@example.com"),
    date: "2026-01-02T03:04:05Z",
};

/// A scratch directory with a hermetic environment for git and git-ucg.
pub struct TestEnv {
    pub dir: tempfile::TempDir,
}

impl TestEnv {
    pub fn new() -> Self {
        TestEnv {
            dir: tempfile::tempdir().expect("create a temporary directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The environment every child process gets: nothing from the developer's machine.
    fn hermetic(&self, command: &mut Command) {
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("LC_ALL", "C.UTF-8")
            .env("NO_COLOR", "1")
            .env("GIT_UCG_LOCK_TIMEOUT", "2");
        hermetic::isolate(command);
        TEST_IDENTITY.apply(command);
    }

    /// `git` in `cwd` with the hermetic environment, for a test that inspects the whole output.
    pub fn git_command(&self, cwd: &Path) -> Command {
        let mut command = Command::new("git");
        self.hermetic(&mut command);
        command.current_dir(cwd);
        command
    }

    /// Any `program` in `cwd` with the hermetic environment (a hook manager, say).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>, cwd: &Path) -> Command {
        let mut command = Command::new(program);
        self.hermetic(&mut command);
        command.current_dir(cwd);
        command
    }

    /// `git-ucg ARGS` run in `cwd`.
    pub fn ucg(&self, cwd: &Path) -> Command {
        let mut command = Command::new(BIN);
        self.hermetic(&mut command);
        command.current_dir(cwd);
        command
    }

    /// Runs git, insists it succeeds, and returns its stdout trimmed.
    pub fn git(&self, cwd: &Path, args: &[&str]) -> String {
        self.git_raw(cwd, args).trim().to_string()
    }

    /// Runs git and returns its stdout exactly (for byte comparisons).
    pub fn git_raw(&self, cwd: &Path, args: &[&str]) -> String {
        let output = self.git_command(cwd).args(args).output().expect("run git");
        assert!(
            output.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// The demo repository (`git ucg demo`), built at `<scratch>/demo`.
    pub fn demo(&self) -> PathBuf {
        let dir = self.path().join("demo");
        let out = self
            .ucg(self.path())
            .args(["demo", dir.to_str().expect("utf-8 temp path")])
            .output()
            .expect("run the demo");
        assert!(
            out.status.success(),
            "demo failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    }

    /// The demo with git-ucg's hooks installed (`hooks install`, insisting it succeeds).
    pub fn demo_with_hooks(&self) -> PathBuf {
        let dir = self.demo();
        let out = self.ucg(&dir).args(["hooks", "install"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        dir
    }

    /// The demo with its run committed on the epic branch and a bare remote `origin`
    /// (`<scratch>/remote.git`), no hooks.
    pub fn demo_with_remote(&self) -> (PathBuf, PathBuf) {
        let dir = self.demo();
        self.git(&dir, &["add", "-A"]);
        self.git(&dir, &["commit", "-q", "-m", "run artifacts"]);
        let remote = self.path().join("remote.git");
        let remote_text = remote.to_str().expect("utf-8 temp path");
        self.git(self.path(), &["init", "-q", "--bare", remote_text]);
        self.git(&dir, &["remote", "add", "origin", remote_text]);
        (dir, remote)
    }

    /// Closes everything pending in the run at `dir` (`git ucg resolve --close … --answer
    /// decided`), insisting it succeeds.
    pub fn close_everything(&self, dir: &Path) {
        let out = self.ucg(dir).args(["pending", "--json"]).output().unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut args = vec!["resolve".to_string()];
        for item in doc["items"].as_array().unwrap() {
            args.extend([
                "--close".into(),
                item["id"].as_str().unwrap().into(),
                "--answer".into(),
                "decided".into(),
            ]);
        }
        let out = self
            .ucg(dir)
            .args(&args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }

    /// A new repository at `name` with one commit on `main`.
    pub fn repo(&self, name: &str) -> PathBuf {
        let root = self.path().join(name);
        std::fs::create_dir_all(&root).expect("create repo dir");
        self.git(&root, &["init", "--quiet", "--initial-branch=main"]);
        write(&root.join("README.md"), "hello\n");
        self.git(&root, &["add", "README.md"]);
        self.git(&root, &["commit", "--quiet", "-m", "initial"]);
        root
    }
}

pub fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent");
    }
    std::fs::write(path, text).expect("write file");
}

/// Puts an executable file at `path` with `contents`, written by a child process.
///
/// A file this (multi-threaded) test process opens for writing is inherited, still open, by any
/// child another test thread forks at that moment, until that child execs; executing the file in
/// that window fails with ETXTBSY ("Text file busy"). `install` writes it in its own process,
/// which forks nothing, so no other process ever holds the executable open for writing.
pub fn write_executable(path: &Path, contents: &[u8]) {
    let source = tempfile::NamedTempFile::new().expect("temporary source");
    std::fs::write(source.path(), contents).expect("write source");
    copy_executable(source.path(), path);
}

/// Copies `source` to `path` as an executable, from a child process (see [`write_executable`]).
pub fn copy_executable(source: &Path, path: &Path) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create parent");
    }
    let status = Command::new("install")
        .arg("-m")
        .arg("755")
        .arg(source)
        .arg(path)
        .status()
        .expect("run install");
    assert!(status.success(), "install {} failed", path.display());
}

/// A JSON object's keys in their stored order (the documents' layout is part of what is checked).
pub fn object_keys(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_object()
        .expect("a JSON object")
        .keys()
        .map(String::as_str)
        .collect()
}

/// `hooks status --json`'s hooks as (hook, state) pairs, in its order.
pub fn hook_states(doc: &serde_json::Value) -> Vec<(&str, &str)> {
    doc["hooks"]
        .as_array()
        .expect("a hooks list")
        .iter()
        .map(|h| (h["hook"].as_str().unwrap(), h["state"].as_str().unwrap()))
        .collect()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Every file under `dir` with its bytes, for "nothing changed" checks.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).expect("stat");
            if meta.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                files.push((path, bytes));
            }
        }
    }
    files.sort();
    files
}

/// Runs `command`, killing it after `limit`: `None` when it did not finish in time.
pub fn within(command: &mut Command, limit: Duration) -> Option<Output> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while start.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Runs `command` with `input` on its standard input, capturing both outputs.
pub fn output_with_stdin(command: &mut Command, input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // A command that does not read its input closes the pipe early: not a failure here.
    let _ = child.stdin.take().expect("piped stdin").write_all(input);
    child.wait_with_output().expect("wait")
}

/// A cache file in the store's line layout, edited by a test, sealed again: its end line's
/// checksum (SHA-256 of every byte before it, the first 16 bytes in hex) recomputed, so the
/// edit is read as the tool's own writing would be.
pub fn reseal_cache(text: &str) -> String {
    use sha2::Digest;
    let body = text.strip_suffix('\n').unwrap_or(text);
    let at = body.rfind('\n').map_or(0, |i| i + 1);
    let (before, end) = body.split_at(at);
    let counts: Vec<&str> = end.split(' ').take(3).collect();
    let sum: String = sha2::Sha256::digest(before.as_bytes())[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{before}{} {sum}\n", counts.join(" "))
}

/// `text` with every run of whitespace one space: what a person reads, however it was wrapped to
/// the terminal's columns (for phrases a test looks for).
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
