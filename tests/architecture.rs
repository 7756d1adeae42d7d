//! The layering rules the compiler cannot hold, enforced by reading the source, and the crate
//! graph the compiler does hold, checked against docs/ARCHITECTURE.md.
//!
//! **The crate graph** (`Cargo.toml` of each crate): `ucg-store` depends on no crate of the
//! workspace; `ucg-git` on the store alone; each agent system (`ucg-ultracode`, `ucg-ultragoal`,
//! `ucg-sdlc`, `ucg-lesson`) on the store and git at most, never on another system; the binary
//! crate on top. gitoxide is a dependency of `ucg-git` alone, and the terminal's crates (clap, the
//! table, the pager's and the watch's) of the binary alone. Within a crate, the layers are the
//! rules below.
//!
//! 1. **commands-on-top**: in the binary crate, only `src/commands/` and `src/lib.rs` (which
//!    dispatches) name `crate::commands`.
//! 2. **commands-independent**: no command module imports another command module.
//! 3. **processes-in-git**: `std::process::Command` is used only in `crates/git/`, save for the
//!    exceptions named in [`PROCESS_EXCEPTIONS`].
//! 4. **domain-never-prints**: no library crate writes to the terminal itself.
//! 5. **writes-in-store**: only `crates/store/` writes to the file system (creates, replaces,
//!    appends to, renames or removes files and directories).
//! 6. **domain-names-no-command**: no library crate but `ucg-git` (which installs hooks that
//!    run git-ucg) writes a `git ucg …` command line, save for the places named in
//!    [`COMMAND_NAME_EXCEPTIONS`].
//! 7. **modules-acyclic**: within each crate, the top-level modules' references to one another
//!    (`crate::x`, and `super::x` from a top-level module's file) form no cycle, so each crate's
//!    modules are layers too.
//!
//! The check is textual, not a parse. Comments are stripped first, so prose may name anything;
//! paths are matched as whole identifiers, directly (`crate::cli::Args`) or as members of a `use`
//! group (`crate::{cli, store}`). Test code — the item after each `#[cfg(test)]`, to its closing
//! brace — may print and write scratch files; the code after it is checked again. Each rule has a
//! synthetic test below proving it can fail.

use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Where the command modules live.
const COMMANDS_DIR: &str = "src/commands/";

/// The one file outside `src/commands/` that may reach into it: the library root dispatches.
const DISPATCHER: &str = "src/lib.rs";

/// The only home of git subprocesses.
const GIT_DIR: &str = "crates/git/src/";

/// The library crates: none of them prints.
const LIBRARY_DIRS: &str = "crates/";

/// Files outside `crates/git/` that may start a process, each with the reason it is not git.
const PROCESS_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "src/output.rs",
        "the pager and the notification command: programs the user configured, not git",
    ),
    (
        "src/commands/status/prompt.rs",
        "the prompt's detached background refresh re-executes git-ucg itself",
    ),
];

/// The places in the library crates that name a `git ucg` command, each by its file and a piece
/// of its line, with the reason. The first two are not advice to a person; the rest are hints
/// still worded in the domain, each travelling as text inside what the domain returns (a field
/// of the pending documents, a warning or the JSON error of the lesson CLI), to be made typed
/// values the binary words, as the domain's errors are.
const COMMAND_NAME_EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "crates/ultragoal/src/hook.rs",
        "git ucg goal resume-pursuit",
        "the Stop hook's message to the agent: the command it must hand the user is its content",
    ),
    (
        "crates/ultracode/src/resume.rs",
        "pub const BUDGET_HOOK_COMMAND",
        "the command the agent's budget hook runs, installed and looked for, not suggested",
    ),
    (
        "crates/ultracode/src/pending.rs",
        "`git ucg resolve` refuses",
        "a corrupt answers file's way out, in every pending item document",
    ),
    (
        "crates/ultracode/src/pending.rs",
        "git ucg reds apply --scan",
        "a corrupt RED registry's way out, in every pending item document",
    ),
    (
        "crates/lesson/src/ledger.rs",
        "git ucg lesson audit --fix",
        "an append's warning that its index was not replaced",
    ),
    (
        "crates/lesson/src/record.rs",
        "git ucg lesson escalated",
        "a reset refused on an escalated task, in the lesson CLI's JSON error",
    ),
];

/// The only home of file-system writes.
const STORE_DIR: &str = "crates/store/src/";

/// What writes to the terminal directly.
const PRINTERS: &[&str] = &[
    "println!",
    "print!",
    "eprintln!",
    "eprint!",
    "dbg!",
    "stdout()",
    "stderr()",
];

/// What writes to the file system: std's writing calls and the temporary-file crate.
const WRITERS: &[&str] = &[
    "fs::write",
    "File::create",
    "OpenOptions",
    "fs::rename",
    "fs::remove_file",
    "fs::remove_dir",
    "fs::remove_dir_all",
    "fs::create_dir",
    "fs::create_dir_all",
    "fs::copy",
    "fs::hard_link",
    "set_permissions",
    "set_len",
    "tempfile::",
];

/// The attribute that opens test code: the item after it may print and write scratch files.
const CFG_TEST: &str = "#[cfg(test)]";

/// A layering rule: the name it is reported under, and the check that finds, in one file, the
/// offsets (into [`SourceFile::code`]) where the rule is broken.
struct Rule {
    name: &'static str,
    check: fn(&SourceFile, &Layout) -> Vec<usize>,
}

const RULES: &[Rule] = &[
    Rule {
        name: "commands-on-top",
        check: commands_on_top,
    },
    Rule {
        name: "commands-independent",
        check: commands_independent,
    },
    Rule {
        name: "processes-in-git",
        check: processes_in_git,
    },
    Rule {
        name: "domain-never-prints",
        check: domain_never_prints,
    },
    Rule {
        name: "writes-in-store",
        check: writes_in_store,
    },
    Rule {
        name: "domain-names-no-command",
        check: domain_names_no_command,
    },
];

/// Every layering violation in `files` (`(path relative to the repository root, contents)`), one
/// per offending line and rule, as `path:line: rule: the offending line`, in file order, then
/// line order, then rule order.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let layout = Layout::of(files);
    let mut found = Vec::new();
    for (path, contents) in files {
        let file = SourceFile::new(path, contents);
        let mut broken: Vec<(usize, &str)> = RULES
            .iter()
            .flat_map(|rule| {
                (rule.check)(&file, &layout)
                    .into_iter()
                    .map(|offset| (file.line_number(offset), rule.name))
            })
            .collect();
        // Stable, so rules on the same line keep their order; one report per line and rule.
        broken.sort_by_key(|&(line, _)| line);
        broken.dedup();
        for (line, rule) in broken {
            let text = file.original_line(line);
            found.push(format!("{path}:{line}: {rule}: {text}"));
        }
    }
    found
}

/// **commands-on-top**: `crate::commands` (or `super::commands` from a module one level down)
/// may be named only by files under `src/commands/` and by `src/lib.rs`.
///
/// Why: commands are the top layer. The binary crate's helpers (cli, context, output, render)
/// serve them and never reach up into them, or the layers stop being layers.
fn commands_on_top(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if file.path.starts_with(COMMANDS_DIR) || file.path == DISPATCHER {
        return Vec::new();
    }
    let mut hits = mentions(&file.code, "crate", "commands", Start::OfPath);
    hits.extend(mentions(&file.code, "super", "commands", Start::OfPath));
    hits
}

/// **commands-independent**: no command module imports another command module, whether as
/// `crate::commands::Y` or relatively (`super::Y` from `src/commands/X.rs` or
/// `src/commands/X/mod.rs`, `super::super::Y` one level down). Items of `src/commands/mod.rs`
/// itself are shared ground, not a command.
///
/// Why: what two commands share belongs in a library crate (or in `commands/mod.rs`), where every
/// command can use it; a command borrowing from another ties the two together.
fn commands_independent(file: &SourceFile, layout: &Layout) -> Vec<usize> {
    let Some(own) = command_module_of(file.path) else {
        return Vec::new();
    };
    let up_to_commands = vec!["super"; depth_below_commands(file.path)].join("::");
    layout
        .command_modules
        .iter()
        .filter(|other| other.as_str() != own)
        .flat_map(|other| {
            let mut hits = mentions(&file.code, "crate::commands", other, Start::OfPath);
            hits.extend(mentions(&file.code, &up_to_commands, other, Start::OfPath));
            hits
        })
        .collect()
}

/// **processes-in-git**: `std::process::Command` (as `process::Command`, or as `Command` in a
/// `process::{…}` group) appears only under `crates/git/`, save for [`PROCESS_EXCEPTIONS`].
///
/// Why: running git is the git crate's job; a subprocess elsewhere is git called behind its back,
/// with its own environment, errors and cost.
fn processes_in_git(file: &SourceFile, _: &Layout) -> Vec<usize> {
    let excepted = PROCESS_EXCEPTIONS
        .iter()
        .any(|&(path, _)| path == file.path);
    if file.path.starts_with(GIT_DIR) || excepted {
        return Vec::new();
    }
    mentions(&file.code, "process", "Command", Start::Anywhere)
}

/// **domain-never-prints**: no file of a library crate (`crates/`) uses `println!`, `print!`,
/// `eprintln!`, `eprint!`, `dbg!`, `stdout()` or `stderr()` outside test code.
///
/// Why: the libraries return values and errors; deciding what reaches the terminal, and in which
/// format, is the binary's job.
fn domain_never_prints(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if !file.path.starts_with(LIBRARY_DIRS) {
        return Vec::new();
    }
    PRINTERS
        .iter()
        .flat_map(|printer| find_path(&file.code, printer, Start::Anywhere))
        .filter(|&at| !file.in_tests(at))
        .collect()
}

/// **domain-names-no-command**: no file of a library crate other than `crates/git/` writes
/// `git ucg ` (a command line) outside test code, save for [`COMMAND_NAME_EXCEPTIONS`].
///
/// Why: which command undoes a state is the command line's knowledge; the domain returns what
/// happened, and the binary words the hint (as for the domain's errors).
fn domain_names_no_command(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if !file.path.starts_with(LIBRARY_DIRS) || file.path.starts_with(GIT_DIR) {
        return Vec::new();
    }
    file.code
        .match_indices("git ucg ")
        .map(|(at, _)| at)
        .filter(|&at| !file.in_tests(at))
        .filter(|&at| {
            let line = file.original_line(file.line_number(at));
            !COMMAND_NAME_EXCEPTIONS
                .iter()
                .any(|&(path, piece, _)| path == file.path && line.contains(piece))
        })
        .collect()
}

/// **writes-in-store**: outside `crates/store/`, no file uses any of [`WRITERS`] outside test
/// code.
///
/// Why: every write must be atomic, locked where writers race, append-only where it is a log, and
/// must never follow a symlink out of the project. Those rules live in one place, and a write
/// elsewhere would escape them.
fn writes_in_store(file: &SourceFile, _: &Layout) -> Vec<usize> {
    if file.path.starts_with(STORE_DIR) {
        return Vec::new();
    }
    WRITERS
        .iter()
        .flat_map(|writer| find_path(&file.code, writer, Start::Anywhere))
        .filter(|&at| !file.in_tests(at))
        .collect()
}

/// What the rules need to know about the file set as a whole.
struct Layout {
    /// The command modules: the entries of `src/commands/` (files and directories alike).
    command_modules: Vec<String>,
}

impl Layout {
    fn of(files: &[(String, String)]) -> Self {
        let mut command_modules: Vec<String> = files
            .iter()
            .filter_map(|(path, _)| command_module_of(path))
            .map(str::to_owned)
            .collect();
        command_modules.sort_unstable();
        command_modules.dedup();
        Layout { command_modules }
    }
}

/// The command module a file belongs to: `X` for `src/commands/X.rs` and for every file under
/// `src/commands/X/`; `None` for `src/commands/mod.rs` and for files outside `src/commands/`.
fn command_module_of(path: &str) -> Option<&str> {
    let entry = path.strip_prefix(COMMANDS_DIR)?;
    match entry.split_once('/') {
        Some((dir, _)) => Some(dir),
        None => entry.strip_suffix(".rs").filter(|&stem| stem != "mod"),
    }
}

/// How many `super::` lead from a file under `src/commands/` back to `crate::commands`: 1 for
/// `src/commands/X.rs` and `src/commands/X/mod.rs`, 2 for `src/commands/X/y.rs`, and so on.
fn depth_below_commands(path: &str) -> usize {
    let module = path.strip_prefix(COMMANDS_DIR).unwrap_or(path);
    let module = module.strip_suffix(".rs").unwrap_or(module);
    let module = module.strip_suffix("/mod").unwrap_or(module);
    module.split('/').count()
}

/// One source file, as the rules see it.
struct SourceFile<'a> {
    path: &'a str,
    /// The file as written, for quoting the offending line.
    lines: Vec<&'a str>,
    /// The file with its comments stripped, line for line: what the rules search.
    code: String,
    /// The offset in `code` at which each line starts.
    line_starts: Vec<usize>,
    /// The spans of `code` that are test code: each `#[cfg(test)]` and the item it opens.
    tests: Vec<Range<usize>>,
}

impl<'a> SourceFile<'a> {
    fn new(path: &'a str, contents: &'a str) -> Self {
        let code = strip_comments(contents);
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(code.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        let tests = test_spans(&code);
        SourceFile {
            path,
            lines: contents.lines().collect(),
            code,
            line_starts,
            tests,
        }
    }

    fn in_tests(&self, offset: usize) -> bool {
        self.tests.iter().any(|span| span.contains(&offset))
    }

    /// The 1-based number of the line holding `offset` (in `code`).
    fn line_number(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// Line `number` (1-based) as written, trimmed.
    fn original_line(&self, number: usize) -> &str {
        self.lines.get(number - 1).map_or("", |line| line.trim())
    }
}

/// The spans of `code` (comments stripped) that are test code: from each `#[cfg(test)]` to the
/// end of the item it qualifies — its `;`, or the brace that closes its body. Literals are
/// skipped, so a `'}'` or a `"{"` inside the item does not end or deepen it.
fn test_spans(code: &str) -> Vec<Range<usize>> {
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let plain: Vec<char> = chars.iter().map(|&(_, c)| c).collect();
    let byte_at = |index: usize| chars.get(index).map_or(code.len(), |&(at, _)| at);
    let mut spans = Vec::new();
    for (start, _) in code.match_indices(CFG_TEST) {
        let mut index = chars.partition_point(|&(at, _)| at < start + CFG_TEST.len());
        let mut depth = 0usize;
        let end = loop {
            let Some(&c) = plain.get(index) else {
                break code.len();
            };
            if let Some(length) = literal_length(&plain, index) {
                index += length;
                continue;
            }
            match c {
                '{' => depth += 1,
                '}' if depth <= 1 => break byte_at(index + 1),
                '}' => depth -= 1,
                ';' if depth == 0 => break byte_at(index + 1),
                _ => {}
            }
            index += 1;
        };
        spans.push(start..end);
    }
    spans
}

/// Whether a match may continue a longer path (`std::process::Command` matches
/// `process::Command`) or must begin one (`crate`, `super`: which is what keeps `super::x` from
/// matching inside `super::super::x`).
#[derive(Clone, Copy, PartialEq)]
enum Start {
    Anywhere,
    OfPath,
}

/// Where `code` names `base::name`, directly (`crate::cli::Args`) or as the head of a member of a
/// `base::{…}` group (`crate::{cli::Args, store}`), with `name` a whole identifier.
fn mentions(code: &str, base: &str, name: &str, start: Start) -> Vec<usize> {
    let mut hits = find_path(code, &format!("{base}::{name}"), start);
    let group = format!("{base}::{{");
    for at in find_path(code, &group, start) {
        let open = at + group.len() - 1;
        hits.extend(
            group_heads(code, open)
                .into_iter()
                .filter(|&(_, head)| head == name)
                .map(|(offset, _)| offset),
        );
    }
    hits
}

/// The offsets of `needle` in `code` that stand as whole identifiers: not preceded by an
/// identifier character (nor, for [`Start::OfPath`], by `::`), and not followed by one when
/// `needle` ends in an identifier character.
fn find_path(code: &str, needle: &str, start: Start) -> Vec<usize> {
    let bytes = code.as_bytes();
    let ends_in_identifier = needle.bytes().last().is_some_and(is_identifier_byte);
    code.match_indices(needle)
        .map(|(at, _)| at)
        .filter(|&at| {
            let clean_start = match at.checked_sub(1).map(|before| bytes[before]) {
                None => true,
                Some(b':') => start == Start::Anywhere,
                Some(byte) => !is_identifier_byte(byte),
            };
            let after = bytes.get(at + needle.len()).copied();
            let clean_end = !ends_in_identifier || !after.is_some_and(is_identifier_byte);
            clean_start && clean_end
        })
        .collect()
}

/// The first identifier of each top-level member of the `{…}` group whose `{` is at `open`, with
/// its offset: `{Child, Command as Cmd, io::{self, Write}}` gives `Child`, `Command` and `io`.
fn group_heads(code: &str, open: usize) -> Vec<(usize, &str)> {
    let bytes = code.as_bytes();
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expecting_member = false;
    let mut at = open;
    while at < bytes.len() {
        let byte = bytes[at];
        match byte {
            b'{' => {
                depth += 1;
                expecting_member = depth == 1;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b',' if depth == 1 => expecting_member = true,
            _ if byte.is_ascii_whitespace() => {}
            _ if expecting_member && is_identifier_byte(byte) => {
                let length = bytes[at..]
                    .iter()
                    .take_while(|&&byte| is_identifier_byte(byte))
                    .count();
                heads.push((at, &code[at..at + length]));
                expecting_member = false;
                at += length;
                continue;
            }
            _ => expecting_member = false,
        }
        at += 1;
    }
    heads
}

fn is_identifier_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// `source` without its comments: `//…` to the end of the line (`///` and `//!` included) and
/// `/* … */` (nested, as Rust nests them). Every newline is kept, so offsets into the result
/// still fall on the right line. String and character literals are copied whole, so the `//` in
/// `"https://…"` does not start a comment.
fn strip_comments(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut code = String::with_capacity(source.len());
    let mut at = 0;
    while at < chars.len() {
        let rest = &chars[at..];
        if rest.starts_with(&['/', '/']) {
            at += rest.iter().position(|&c| c == '\n').unwrap_or(rest.len());
        } else if rest.starts_with(&['/', '*']) {
            let length = block_comment_length(rest);
            code.extend(rest[..length].iter().filter(|&&c| c == '\n'));
            at += length;
        } else {
            let length = literal_length(&chars, at).unwrap_or(1);
            code.extend(&rest[..length]);
            at += length;
        }
    }
    code
}

/// The length of the (possibly nested) block comment that `rest` starts with.
fn block_comment_length(rest: &[char]) -> usize {
    let mut depth = 0;
    let mut at = 0;
    while at < rest.len() {
        if rest[at..].starts_with(&['/', '*']) {
            depth += 1;
            at += 2;
        } else if rest[at..].starts_with(&['*', '/']) {
            depth -= 1;
            at += 2;
            if depth == 0 {
                return at;
            }
        } else {
            at += 1;
        }
    }
    rest.len()
}

/// The length of the string or character literal starting at `chars[at]`, if one does: `"…"`
/// (escapes honoured), `r"…"` / `r#"…"#` (with optional `b` or `c` prefix) and `'x'` / `'\n'`.
/// A lone `'` is a lifetime or a label, not a literal.
fn literal_length(chars: &[char], at: usize) -> Option<usize> {
    let rest = &chars[at..];
    match rest[0] {
        '"' => Some(quoted_length(rest)),
        '\'' if rest.get(1) == Some(&'\\') => {
            let close = rest.iter().skip(3).position(|&c| c == '\'');
            Some(close.map_or(rest.len(), |close| close + 4))
        }
        '\'' if rest.get(2) == Some(&'\'') => Some(3),
        _ if at == 0 || !is_identifier_char(chars[at - 1]) => raw_string_length(rest),
        _ => None,
    }
}

/// The length of the `"…"` literal that `rest` starts with, backslash escapes included.
fn quoted_length(rest: &[char]) -> usize {
    let mut at = 1;
    while at < rest.len() {
        match rest[at] {
            '\\' => at += 2,
            '"' => return at + 1,
            _ => at += 1,
        }
    }
    rest.len()
}

/// The length of the raw string literal (`r"…"`, `br#"…"#`, `cr"…"`) that `rest` starts with.
fn raw_string_length(rest: &[char]) -> Option<usize> {
    let prefix = usize::from(matches!(rest.first(), Some('b' | 'c')));
    if rest.get(prefix) != Some(&'r') {
        return None;
    }
    let hashes = rest[prefix + 1..].iter().take_while(|&&c| c == '#').count();
    let open = prefix + 1 + hashes;
    if rest.get(open) != Some(&'"') {
        return None;
    }
    let terminator: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    let body = &rest[open + 1..];
    let end = body
        .windows(terminator.len())
        .position(|window| window == terminator.as_slice());
    Some(end.map_or(rest.len(), |end| open + 1 + end + terminator.len()))
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every `.rs` file under the binary crate's `src/` and each library crate's `crates/*/src/`, as
/// `(path relative to the workspace root, contents)`.
fn source_tree() -> Vec<(String, String)> {
    let root = workspace_root();
    let mut files = Vec::new();
    collect_rust_files(&root, Path::new("src"), &mut files);
    for krate in library_crates(&root) {
        collect_rust_files(
            &root,
            &Path::new("crates").join(krate).join("src"),
            &mut files,
        );
    }
    files.sort();
    files
}

fn workspace_root() -> PathBuf {
    std::env::var("CARGO_MANIFEST_DIR").map_or_else(|_| PathBuf::from("."), PathBuf::from)
}

/// The directory names under `crates/`.
fn library_crates(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.join("crates"))
        .unwrap_or_else(|error| panic!("reading crates/: {error}"))
        .map(|entry| entry.expect("a directory entry"))
        .filter(|entry| entry.path().join("Cargo.toml").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn collect_rust_files(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    let entries = fs::read_dir(root.join(dir))
        .unwrap_or_else(|error| panic!("reading {}: {error}", root.join(dir).display()));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let relative = dir.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            collect_rust_files(root, &relative, files);
        } else if relative
            .extension()
            .is_some_and(|extension| extension == "rs")
        {
            let path: Vec<String> = relative
                .components()
                .map(|component| component.as_os_str().to_string_lossy().into_owned())
                .collect();
            let contents = fs::read_to_string(root.join(&relative))
                .unwrap_or_else(|error| panic!("reading {}: {error}", relative.display()));
            files.push((path.join("/"), contents));
        }
    }
}

/// The crate graph: each crate of the workspace with the workspace crates it may depend on.
const CRATE_GRAPH: &[(&str, &[&str])] = &[
    ("ucg-store", &[]),
    ("ucg-git", &["ucg-store"]),
    ("ucg-ultracode", &["ucg-store", "ucg-git"]),
    ("ucg-ultragoal", &["ucg-store", "ucg-git"]),
    ("ucg-sdlc", &["ucg-store", "ucg-git"]),
    ("ucg-lesson", &["ucg-store", "ucg-git"]),
    (
        "git-ucg",
        &[
            "ucg-store",
            "ucg-git",
            "ucg-ultracode",
            "ucg-ultragoal",
            "ucg-sdlc",
            "ucg-lesson",
        ],
    ),
];

/// External crates that only one workspace crate may depend on (outside its tests): gitoxide
/// stays behind the git crate, the command line and the terminal in the binary.
const CONFINED: &[(&str, &str)] = &[
    ("gix", "ucg-git"),
    ("clap", "git-ucg"),
    ("clap_complete", "git-ucg"),
    ("clap_mangen", "git-ucg"),
    ("comfy-table", "git-ucg"),
    ("terminal_size", "git-ucg"),
    ("ctrlc", "git-ucg"),
    ("notify-debouncer-mini", "git-ucg"),
    ("mimalloc", "git-ucg"),
];

/// Every way the manifests (`(package name, the manifest's text)`) break the crate graph, one
/// line per edge: an unknown workspace crate, a dependency the graph does not allow, a confined
/// crate outside its home.
fn graph_violations(manifests: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (name, text) in manifests {
        let manifest: toml::Table =
            toml::from_str(text).unwrap_or_else(|error| panic!("{name}'s Cargo.toml: {error}"));
        let dependencies = manifest
            .get("dependencies")
            .and_then(toml::Value::as_table)
            .map(|table| table.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        let Some(&(_, allowed)) = CRATE_GRAPH
            .iter()
            .find(|(crate_name, _)| crate_name == name)
        else {
            found.push(format!("{name}: not in the crate graph"));
            continue;
        };
        for dependency in &dependencies {
            let is_workspace_crate = CRATE_GRAPH.iter().any(|(other, _)| other == dependency);
            if is_workspace_crate && !allowed.contains(&dependency.as_str()) {
                found.push(format!(
                    "{name} -> {dependency}: not an edge of the crate graph"
                ));
            }
            if let Some((_, home)) = CONFINED.iter().find(|(confined, _)| confined == dependency) {
                if home != name {
                    found.push(format!(
                        "{name} -> {dependency}: only {home} may depend on it"
                    ));
                }
            }
        }
    }
    found
}

/// The workspace's manifests, by package name.
fn manifests() -> Vec<(String, String)> {
    let root = workspace_root();
    let mut paths = vec![root.join("Cargo.toml")];
    paths.extend(
        library_crates(&root)
            .into_iter()
            .map(|krate| root.join("crates").join(krate).join("Cargo.toml")),
    );
    paths
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
            let manifest: toml::Table =
                toml::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            let name = manifest
                .get("package")
                .and_then(|package| package.get("name"))
                .and_then(toml::Value::as_str)
                .unwrap_or_else(|| panic!("{}: no package name", path.display()))
                .to_string();
            (name, text)
        })
        .collect()
}

#[test]
fn the_crates_keep_their_graph() {
    let manifests = manifests();
    let names: Vec<&str> = manifests.iter().map(|(name, _)| name.as_str()).collect();
    for (expected, _) in CRATE_GRAPH {
        assert!(
            names.contains(expected),
            "no crate {expected} in the workspace"
        );
    }
    let found = graph_violations(&manifests);
    assert!(
        found.is_empty(),
        "the crate graph is broken (docs/ARCHITECTURE.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_crate_graph_is_broken_by_a_system_depending_on_another_or_a_confined_crate() {
    let manifest =
        |dependencies: &str| format!("[package]\nname = \"x\"\n\n[dependencies]\n{dependencies}\n");
    let manifests = vec![
        (
            "ucg-sdlc".to_string(),
            manifest("ucg-store.workspace = true\nucg-lesson.workspace = true"),
        ),
        (
            "ucg-store".to_string(),
            manifest("ucg-git = { path = \"../git\" }"),
        ),
        (
            "ucg-lesson".to_string(),
            manifest("gix = \"0.90\"\nclap = \"4\""),
        ),
        (
            "ucg-git".to_string(),
            manifest("gix = \"0.90\"\nucg-store.workspace = true"),
        ),
        ("ucg-extra".to_string(), manifest("")),
    ];
    assert_eq!(
        graph_violations(&manifests),
        [
            "ucg-sdlc -> ucg-lesson: not an edge of the crate graph",
            "ucg-store -> ucg-git: not an edge of the crate graph",
            "ucg-lesson -> gix: only ucg-git may depend on it",
            "ucg-lesson -> clap: only git-ucg may depend on it",
            "ucg-extra: not in the crate graph",
        ]
    );
}

/// **modules-acyclic**: the cycles among each crate's top-level modules, each as
/// `crate: a -> b -> a`. A crate is the directory holding a `src/` (`src/` itself for the binary
/// crate); a module is the first component of a file's path under it. Test code is left out.
fn module_cycles(files: &[(String, String)]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut graphs: BTreeMap<&str, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (path, contents) in files {
        let Some(at) = path.find("src/") else {
            continue;
        };
        let (krate, inside) = (&path[..at], &path[at + "src/".len()..]);
        let module = inside
            .split('/')
            .next()
            .unwrap_or(inside)
            .trim_end_matches(".rs");
        if module == "lib" || module == "main" {
            continue;
        }
        let file = SourceFile::new(path, contents);
        let code: String = file
            .code
            .char_indices()
            .map(|(at, c)| if file.in_tests(at) { ' ' } else { c })
            .collect();
        let mut uses: Vec<String> = identifiers_after(&code, "crate::");
        if !inside.contains('/') {
            uses.extend(identifiers_after(&code, "super::"));
        }
        let graph = graphs.entry(krate).or_default();
        graph
            .entry(module.to_string())
            .or_default()
            .extend(uses.into_iter().filter(|used| used != module));
    }
    let mut found = Vec::new();
    for (krate, graph) in &graphs {
        let krate = if krate.is_empty() {
            "src"
        } else {
            krate.trim_end_matches('/')
        };
        let mut reported = BTreeSet::new();
        for start in graph.keys() {
            if let Some(cycle) = cycle_through(graph, start) {
                let mut members: Vec<&String> = cycle[1..].iter().collect();
                members.sort();
                if reported.insert(members.into_iter().cloned().collect::<Vec<_>>()) {
                    found.push(format!("{krate}: {}", cycle.join(" -> ")));
                }
            }
        }
    }
    found
}

/// The identifiers that follow `prefix` as the start of a path (not after another `::`).
fn identifiers_after(code: &str, prefix: &str) -> Vec<String> {
    find_path(code, prefix, Start::OfPath)
        .into_iter()
        .map(|at| {
            code[at + prefix.len()..]
                .chars()
                .take_while(|&c| is_identifier_char(c))
                .collect()
        })
        .filter(|name: &String| !name.is_empty())
        .collect()
}

/// A path of modules from `start` back to it, if there is one (the first found, depth first).
fn cycle_through(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    start: &str,
) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = std::collections::BTreeSet::new();
    while let Some((module, path)) = stack.pop() {
        for next in graph.get(&module).into_iter().flatten() {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_string());
                return Some(cycle);
            }
            if graph.contains_key(next) && seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn the_modules_of_each_crate_form_no_cycle() {
    let found = module_cycles(&source_tree());
    assert!(
        found.is_empty(),
        "module cycles (a module below another must not name it):\n{}",
        found.join("\n")
    );
}

#[test]
fn modules_acyclic_is_broken_by_two_modules_naming_each_other() {
    let files = tree(&[
        (
            "crates/ultracode/src/merge.rs",
            &[
                "use crate::resolve::render;",
                "fn f() { super::ids::mint(); }",
            ],
        ),
        (
            "crates/ultracode/src/resolve.rs",
            &[
                "use crate::merge::Seen;",
                "#[cfg(test)]",
                "mod tests { use crate::ids::x; }",
            ],
        ),
        ("crates/ultracode/src/ids.rs", &["pub fn mint() {}"]),
        (
            "crates/ultracode/src/pending/view.rs",
            &["use super::super::merge::x;", "use super::ids;"],
        ),
        ("crates/sdlc/src/run.rs", &["use crate::events::Log;"]),
        (
            "crates/sdlc/src/events.rs",
            &["#[cfg(test)]", "mod tests { use crate::run::x; }"],
        ),
        ("src/render/mod.rs", &["use crate::output::Output;"]),
        ("src/output.rs", &["use crate::render::Table;"]),
    ]);
    assert_eq!(
        module_cycles(&files),
        [
            "src: output -> render -> output",
            "crates/ultracode: merge -> resolve -> merge",
        ]
    );
}

/// The suffixes of the constants that name an artifact file, a directory or a path of one.
const NAMING_CONSTANTS: [&str; 6] = ["FILE", "_DIR", "_DIR_NAME", "_ROOT", "_PATH", "CONFIG"];

/// Each artifact file's name is written once (docs/ARCHITECTURE.md, "Which module owns which
/// file"): where a naming constant (`const …_FILE: &str = "…";`, see [`NAMING_CONSTANTS`]) is
/// declared, no other file's code (tests aside) has a string literal that is its value or ends in
/// `/` and its value. The demo's `sample![…]` list is passed over: it embeds the sample
/// repository's files by their paths in `src/commands/demo/sample/`, which are data, not names
/// the code reads by. Each place found, as `path:line: value (named in path): line`.
fn named_twice(files: &[(String, String)]) -> Vec<String> {
    let sources: Vec<SourceFile> = files
        .iter()
        .map(|(path, contents)| SourceFile::new(path, contents))
        .collect();
    let mut names: Vec<(&str, &str)> = Vec::new();
    for file in &sources {
        for line in file.code.lines() {
            let Some((head, rest)) = line.split_once(": &str = \"") else {
                continue;
            };
            let name = head.rsplit(' ').next().unwrap_or_default();
            let naming = NAMING_CONSTANTS.iter().any(|end| name.ends_with(end));
            if let Some(value) = rest.strip_suffix("\";").filter(|_| naming) {
                names.push((file.path, value));
            }
        }
    }
    let mut found = Vec::new();
    for file in &sources {
        let samples: Vec<Range<usize>> = file
            .code
            .match_indices("sample![")
            .map(|(start, _)| {
                start
                    ..file.code[start..]
                        .find("];")
                        .map_or(start, |end| start + end)
            })
            .collect();
        let passed_over = |at: usize| file.in_tests(at) || samples.iter().any(|s| s.contains(&at));
        for &(declared_in, value) in names.iter().filter(|(path, _)| *path != file.path) {
            for needle in [format!("\"{value}\""), format!("/{value}\"")] {
                for (at, _) in file.code.match_indices(&needle) {
                    if !passed_over(at) {
                        let line = file.line_number(at);
                        found.push(format!(
                            "{}:{line}: {value} (named in {declared_in}): {}",
                            file.path,
                            file.original_line(line)
                        ));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn each_artifact_file_is_named_in_one_place() {
    let found = named_twice(&source_tree());
    assert!(
        found.is_empty(),
        "artifact file names written again (use the constant of the module that owns the \
         file):\n{}",
        found.join("\n")
    );
}

#[test]
fn named_once_is_broken_by_the_name_written_again_outside_tests() {
    let files = tree(&[
        (
            "crates/ultracode/src/ledger.rs",
            &[
                "pub const LEDGER_FILE: &str = \"deferred-work.md\";",
                "const HEADER: &str = \"id\";",
            ],
        ),
        (
            "src/context.rs",
            &[
                "fn ledger(dir: &Path) -> PathBuf { dir.join(\"deferred-work.md\") }",
                "// dir.join(\"deferred-work.md\") in a comment",
                "fn header() -> &'static str { \"id\" }",
                "fn default() -> &'static str { \"_bmad-output/deferred-work.md\" }",
                "const ARTIFACTS: &[(&str, &str)] = sample![\"impl/deferred-work.md\"];",
                "#[cfg(test)]",
                "mod tests { const X: &str = \"deferred-work.md\"; }",
            ],
        ),
    ]);
    assert_eq!(
        named_twice(&files),
        [
            "src/context.rs:1: deferred-work.md (named in crates/ultracode/src/ledger.rs): \
             fn ledger(dir: &Path) -> PathBuf { dir.join(\"deferred-work.md\") }",
            "src/context.rs:4: deferred-work.md (named in crates/ultracode/src/ledger.rs): \
             fn default() -> &'static str { \"_bmad-output/deferred-work.md\" }",
        ]
    );
}

#[test]
fn the_source_tree_keeps_its_layers() {
    let files = source_tree();
    for expected in [
        "src/lib.rs",
        "crates/store/src/lib.rs",
        "crates/git/src/lib.rs",
    ] {
        assert!(
            files.iter().any(|(path, _)| path == expected),
            "found no {expected}: is CARGO_MANIFEST_DIR the workspace root?"
        );
    }
    let found = violations(&files);
    assert!(
        found.is_empty(),
        "{} layering violation(s); see docs/ARCHITECTURE.md and the rules in \
         tests/architecture.rs:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// A synthetic file set: each file as its lines, so that line numbers read off the array.
fn tree(files: &[(&str, &[&str])]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(path, lines)| (path.to_string(), lines.join("\n") + "\n"))
        .collect()
}

/// Asserts that `files` break `rule`, and no other rule, at exactly `expected` (`path:line`, in
/// file order, then line order).
fn assert_breaks(rule: &str, files: &[(&str, &[&str])], expected: &[&str]) {
    let found = violations(&tree(files));
    let mut places = Vec::new();
    for violation in &found {
        let mut fields = violation.splitn(3, ": ");
        let place = fields.next().unwrap_or_default();
        assert_eq!(fields.next(), Some(rule), "another rule broke: {violation}");
        places.push(place);
    }
    assert_eq!(places, expected, "found:\n{}", found.join("\n"));
}

#[test]
fn a_compliant_tree_has_no_violations() {
    let files = tree(&[
        ("src/lib.rs", &["fn run() { crate::commands::run(); }"]),
        (
            "src/cli.rs",
            &[
                "use crate::{context::Context, output, render};",
                "fn f() { println!(); }",
            ],
        ),
        (
            "src/commands/mod.rs",
            &[
                "pub mod hooks;",
                "pub mod status;",
                "pub fn run() { println!(\"x\"); }",
            ],
        ),
        (
            "src/commands/hooks.rs",
            &[
                "use super::{run, status_helper};",
                "use super::super::status;",
                "/* gix::discover and std::process::Command,",
                "   /* nested */ still a comment: crate::commands::status */",
                "fn f() { super::run(); super::status_helper::x(); }",
            ],
        ),
        (
            "src/commands/status.rs",
            &[
                "use crate::commands::{run, status::prompt};",
                "use crate::commands::hooks_x;",
            ],
        ),
        (
            "src/commands/status/prompt.rs",
            &[
                "use std::process::{Command, Stdio};",
                "use super::super::status::render;",
                "use super::hooks;",
                "use super::super::super::hooks;",
                "// super::super::hooks and crate::commands::hooks, in a comment",
            ],
        ),
        (
            "src/output.rs",
            &[
                "use std::process::{Child, Command, Stdio};",
                "use crate::context::Context;",
            ],
        ),
        (
            "crates/git/src/lib.rs",
            &[
                "extern crate gix;",
                "use gix::Repository;",
                "fn git() -> std::process::Command { std::process::Command::new(\"git\") }",
            ],
        ),
        (
            "crates/ultragoal/src/lock.rs",
            &[
                "use std::os::unix::process::CommandExt;",
                "use crate::git::gix_free;",
                "use crate::{clip, outputs, store::tree};",
                "fn pid() -> u32 { std::process::id() }",
                "/// Never `println!`: see crate::commands::goal.",
                "//! eprintln!(\"crate::cli\")",
                "const URL: &str = \"https://example.invalid\"; // println!",
                "fn quote() -> char { '\"' } // eprintln!",
                "fn escaped() -> [char; 2] { ['\\'', '\\\\'] } // dbg!(1)",
                "fn longest<'a>(a: &'a str) -> &'a str { a } // print!(\"x\")",
                "const RAW: &str = r#\"a \" // b\"#; // stdout()",
            ],
        ),
        (
            "crates/ultracode/src/lib.rs",
            &[
                "pub fn one() -> u8 { 1 }",
                "fn my_stdout() {}",
                "fn eprint_nothing() { my_stdout() }",
                "",
                "#[cfg(test)]",
                "mod tests {",
                "    fn show() { println!(\"{}\", super::one()); dbg!(1); }",
                "}",
            ],
        ),
        ("src/error.rs", &["fn report() { eprintln!(\"error\"); }"]),
        (
            "crates/store/src/atomic.rs",
            &["fn f(out: &mut impl std::io::Write) { writeln!(out).ok(); }"],
        ),
    ]);
    let found = violations(&files);
    assert!(found.is_empty(), "found:\n{}", found.join("\n"));
}

#[test]
fn commands_on_top_is_broken_by_a_lower_module_reaching_into_commands() {
    assert_breaks(
        "commands-on-top",
        &[
            ("src/lib.rs", &["fn run() { crate::commands::run(); }"]),
            (
                "src/commands/mod.rs",
                &["pub fn run() { crate::commands::go(); }"],
            ),
            (
                "src/status.rs",
                &["use crate::commands::status::dashboard;"],
            ),
            (
                "src/cli.rs",
                &[
                    "use crate::{context, commands::Cmd};",
                    "// crate::commands, in a comment",
                    "use crate::commands_like;",
                ],
            ),
            (
                "src/render/mod.rs",
                &["pub fn f() { crate::commands::print_json(); }"],
            ),
        ],
        &["src/status.rs:1", "src/cli.rs:1", "src/render/mod.rs:1"],
    );
}

#[test]
fn commands_independent_is_broken_by_a_command_importing_another() {
    assert_breaks(
        "commands-independent",
        &[
            ("src/commands/mod.rs", &["pub mod diff;", "pub fn run() {}"]),
            ("src/commands/diff.rs", &["pub fn print_range() {}"]),
            ("src/commands/gate.rs", &["pub struct Located;"]),
            (
                "src/commands/hooks.rs",
                &[
                    "use super::run;",
                    "fn f(located: &super::gate::Located) {}",
                    "use super::super::diff;",
                ],
            ),
            (
                "src/commands/status.rs",
                &[
                    "use super::status_helper;",
                    "fn f() { crate::commands::diff::print_range(); }",
                    "use crate::commands::{run, gate};",
                    "use crate::commands::status::prompt;",
                ],
            ),
            (
                "src/commands/status/prompt.rs",
                &[
                    "use super::super::hooks;",
                    "use super::diff;",
                    "use super::super::status::render;",
                    "use super::super::super::gate;",
                ],
            ),
            ("src/commands/resume/mod.rs", &["use super::{hooks, run};"]),
            (
                "src/commands/resume/route.rs",
                &["use super::super::{run, diff as d};"],
            ),
        ],
        &[
            "src/commands/hooks.rs:2",
            "src/commands/status.rs:2",
            "src/commands/status.rs:3",
            "src/commands/status/prompt.rs:1",
            "src/commands/resume/mod.rs:1",
            "src/commands/resume/route.rs:1",
        ],
    );
}

#[test]
fn command_modules_are_the_entries_of_src_commands() {
    let files = tree(&[
        ("src/commands/mod.rs", &[]),
        ("src/commands/diff.rs", &[]),
        ("src/commands/status.rs", &[]),
        ("src/commands/status/prompt.rs", &[]),
        ("src/commands/resume/mod.rs", &[]),
        ("src/status.rs", &[]),
    ]);
    assert_eq!(
        Layout::of(&files).command_modules,
        ["diff", "resume", "status"]
    );
    assert_eq!(depth_below_commands("src/commands/diff.rs"), 1);
    assert_eq!(depth_below_commands("src/commands/resume/mod.rs"), 1);
    assert_eq!(depth_below_commands("src/commands/status/prompt.rs"), 2);
}

#[test]
fn processes_in_git_is_broken_by_a_subprocess_outside_src_git() {
    assert_breaks(
        "processes-in-git",
        &[
            ("crates/git/src/lib.rs", &["use std::process::Command;"]),
            (
                "src/output.rs",
                &["use std::process::{Child, Command, Stdio};"],
            ),
            (
                "src/commands/status/prompt.rs",
                &["use std::process::{Command, Stdio};"],
            ),
            (
                "src/commands/hooks.rs",
                &[
                    "use std::process::Command;",
                    "use std::process::{Child, Command as Cmd, Stdio};",
                    "use std::process::{",
                    "    Stdio,",
                    "    Command,",
                    "};",
                    "fn f() { std::process::Command::new(\"git\"); }",
                    "use std::os::unix::process::CommandExt;",
                    "fn id() -> u32 { std::process::id() }",
                    "use std::{io, process::Command};",
                ],
            ),
            (
                "src/status.rs",
                &[
                    "use std::process;",
                    "fn f() { process::Command::new(\"x\"); }",
                ],
            ),
        ],
        &[
            "src/commands/hooks.rs:1",
            "src/commands/hooks.rs:2",
            "src/commands/hooks.rs:5",
            "src/commands/hooks.rs:7",
            "src/commands/hooks.rs:10",
            "src/status.rs:2",
        ],
    );
}

#[test]
fn domain_never_prints_is_broken_by_the_domain_printing() {
    assert_breaks(
        "domain-never-prints",
        &[
            (
                "crates/sdlc/src/run.rs",
                &[
                    "fn a() { println!(\"x\"); }",
                    "fn b() { print!(\"x\"); }",
                    "fn c() { eprintln!(\"x\"); }",
                    "fn d() { eprint!(\"x\"); }",
                    "fn e() { dbg!(1); }",
                    "fn f() { let _ = std::io::stdout(); }",
                    "fn g() { let _ = io::stderr().lock(); }",
                    "const URL: &str = \"https://x.invalid\"; fn h() { println!(\"{URL}\"); }",
                    "#[cfg(test)]",
                    "mod tests { fn t() { println!(\"tests may print\"); } }",
                ],
            ),
            ("crates/store/src/pyjson.rs", &["fn p() { print!(\"x\") }"]),
            (
                "crates/ultracode/src/config.rs",
                &["// println!, in a comment", "fn q() { dbg!(2); }"],
            ),
            ("src/error.rs", &["fn report() { eprintln!(\"error\"); }"]),
            (
                "src/commands/status.rs",
                &["fn show() { println!(\"x\"); }"],
            ),
        ],
        &[
            "crates/sdlc/src/run.rs:1",
            "crates/sdlc/src/run.rs:2",
            "crates/sdlc/src/run.rs:3",
            "crates/sdlc/src/run.rs:4",
            "crates/sdlc/src/run.rs:5",
            "crates/sdlc/src/run.rs:6",
            "crates/sdlc/src/run.rs:7",
            "crates/sdlc/src/run.rs:8",
            "crates/store/src/pyjson.rs:1",
            "crates/ultracode/src/config.rs:2",
        ],
    );
}

#[test]
fn writes_in_store_is_broken_by_a_write_outside_src_store() {
    assert_breaks(
        "writes-in-store",
        &[
            (
                "crates/ultragoal/src/session.rs",
                &[
                    "fn a() { std::fs::write(p, b); }",
                    "fn b() { let f = File::create(p); }",
                    "fn c() { std::fs::OpenOptions::new().append(true).open(p); }",
                    "fn d() { fs::rename(a, b); }",
                    "fn e() { std::fs::remove_file(p); }",
                    "fn f() { std::fs::create_dir_all(p); }",
                    "fn g() { tempfile::Builder::new(); }",
                    "fn h() { file.set_len(0); }",
                    "// std::fs::write, in a comment",
                    "fn i() { std::fs::read(p); }",
                    "#[cfg(test)]",
                    "mod tests { fn t() { std::fs::write(p, b); } const C: char = '}'; }",
                    "fn after_the_tests() { std::fs::write(p, b); }",
                    "#[cfg(test)]",
                    "mod scratch;",
                    "fn after_a_test_module_file() { std::fs::remove_file(p); }",
                ],
            ),
            (
                "src/commands/hooks.rs",
                &["fn j() { std::fs::remove_dir_all(p); }"],
            ),
            (
                "crates/store/src/plain.rs",
                &["fn k() { std::fs::write(p, b); }"],
            ),
        ],
        &[
            "crates/ultragoal/src/session.rs:1",
            "crates/ultragoal/src/session.rs:2",
            "crates/ultragoal/src/session.rs:3",
            "crates/ultragoal/src/session.rs:4",
            "crates/ultragoal/src/session.rs:5",
            "crates/ultragoal/src/session.rs:6",
            "crates/ultragoal/src/session.rs:7",
            "crates/ultragoal/src/session.rs:8",
            "crates/ultragoal/src/session.rs:13",
            "crates/ultragoal/src/session.rs:16",
            "src/commands/hooks.rs:1",
        ],
    );
}

#[test]
fn domain_names_no_command_is_broken_by_a_hint_naming_a_command() {
    assert_breaks(
        "domain-names-no-command",
        &[
            (
                "crates/sdlc/src/run.rs",
                &[
                    "fn hint() -> &'static str { \"run `git ucg sdlc list` to see them\" }",
                    "// run `git ucg sdlc list`, in a comment",
                    "fn tool() -> &'static str { \"a file git-ucg can read\" }",
                    "#[cfg(test)]",
                    "mod tests { const C: &str = \"git ucg sdlc list\"; }",
                ],
            ),
            (
                "crates/lesson/src/ledger.rs",
                &[
                    "fn way() -> &'static str { \"run `git ucg lesson audit --fix`\" }",
                    "fn other() -> &'static str { \"git ucg lesson query\" }",
                ],
            ),
            (
                "crates/git/src/hook_managers.rs",
                &["const RUN: &str = \"git ucg hooks run pre-commit\";"],
            ),
            (
                "src/commands/sdlc.rs",
                &["fn hint() -> &'static str { \"git ucg sdlc repair\" }"],
            ),
        ],
        &["crates/sdlc/src/run.rs:1", "crates/lesson/src/ledger.rs:2"],
    );
}
