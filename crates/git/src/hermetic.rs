//! `git` run away from the machine's and the user's configuration, the one way the demo, the tests
//! and the benchmarks build repositories: no system or global configuration, none of the
//! repository-selecting variables of an enclosing git (a hook, a `git -C`), and, for commits, a
//! fixed identity and date so the same steps give the same hashes.

use std::path::Path;
use std::process::Command;

/// The variables with which an enclosing git process points its children at its repository.
const REPOSITORY_VARIABLES: [&str; 4] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
];

/// Keeps `command` (git, or a program that runs git) away from the system's and the user's
/// configuration and from any enclosing repository.
pub fn isolate(command: &mut Command) -> &mut Command {
    for variable in REPOSITORY_VARIABLES {
        command.env_remove(variable);
    }
    command
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
}

/// Who makes the commits and when: both dates are `date`.
pub struct Identity<'a> {
    pub author: (&'a str, &'a str),
    pub committer: (&'a str, &'a str),
    pub date: &'a str,
}

impl Identity<'_> {
    /// Sets the author, the committer and their dates on `command`.
    pub fn apply<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        command
            .env("GIT_AUTHOR_NAME", self.author.0)
            .env("GIT_AUTHOR_EMAIL", self.author.1)
            .env("GIT_COMMITTER_NAME", self.committer.0)
            .env("GIT_COMMITTER_EMAIL", self.committer.1)
            .env("GIT_AUTHOR_DATE", self.date)
            .env("GIT_COMMITTER_DATE", self.date)
    }
}

/// `git` in `dir`, isolated.
pub fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command.current_dir(dir);
    isolate(&mut command);
    command
}
