//! How a hand-back ends: the exact commands that restart the agent for where its resume
//! re-enters.

use std::path::Path;
use ucg_ultracode::resume::{self, Route};

/// "Restart the agent:" and the module's invocations for `route`: how `resume` and the
/// hand-back of a pass that closed something end.
pub fn said(route: &Route, impl_dir: &Path, root: &Path, columns: usize) -> String {
    let impl_rel = impl_dir
        .strip_prefix(root)
        .unwrap_or(impl_dir)
        .display()
        .to_string();
    let mut text = String::from("Restart the agent:\n");
    for (command, when) in resume::restart(route, &impl_rel) {
        text.push_str(&format!(
            "  {}\n      {when}\n",
            fold_command(&command, columns)
        ));
    }
    text
}

/// Where in its stage `route` re-enters, as the hand-backs add it to the stage: ` at story S`, or
/// nothing when it names no story.
pub(crate) fn at_story(route: &Route) -> String {
    route
        .story
        .as_ref()
        .map(|s| format!(" at story {s}"))
        .unwrap_or_default()
}

/// A shell command wider than `columns` folded at its options (` --`), each fold ending in ` \`
/// so that it is still one command when copied into a shell.
fn fold_command(command: &str, columns: usize) -> String {
    let mut folded = String::new();
    let mut line = 2;
    for (n, part) in command.split(" --").enumerate() {
        let part = if n == 0 {
            part.to_string()
        } else {
            format!("--{part}")
        };
        if n > 0 && line + 1 + part.len() + 2 > columns {
            folded.push_str(" \\\n      ");
            line = 6;
        } else if n > 0 {
            folded.push(' ');
            line += 1;
        }
        folded.push_str(&part);
        line += part.len();
    }
    folded
}
