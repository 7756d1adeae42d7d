//! Parsing builds only the command in use (`cli::Deferred`); help, man pages and completions take
//! the tree built eagerly (`cli::command()`). This proves the two trees are the same to a user:
//! every command's `--help` and `-h`, and its error for an unknown option, read the same either way.
//! One test in its own process: the eager switch is process-wide.

use clap::CommandFactory;

/// Every command path under the root, nested ones included: `["hooks", "install"]`.
fn paths(command: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
    for sub in command.get_subcommands() {
        let mut path = prefix.to_vec();
        path.push(sub.get_name().to_string());
        out.push(path.clone());
        paths(sub, &path, out);
    }
}

/// What clap prints for `git ucg PATH… FLAG`, from a fresh command tree.
fn rendered(path: &[String], flag: &str) -> String {
    let mut argv = vec!["git-ucg".to_string()];
    argv.extend(path.iter().cloned());
    argv.push(flag.to_string());
    match git_ucg::cli::Cli::command().try_get_matches_from(argv) {
        Ok(_) => String::from("(parsed)"),
        Err(error) => error.render().to_string(),
    }
}

#[test]
fn deferred_commands_read_the_same_as_the_eager_tree() {
    let flags = ["--help", "-h", "--no-such-option"];
    // The lazy renderings first: `cli::command()` switches the process to eager building.
    let mut lazy_tree = git_ucg::cli::Cli::command();
    lazy_tree.build();
    let mut lazy_paths = Vec::new();
    paths(&lazy_tree, &[], &mut lazy_paths);
    let lazy: Vec<String> = lazy_paths
        .iter()
        .flat_map(|path| flags.map(|flag| rendered(path, flag)))
        .collect();

    let eager_tree = git_ucg::cli::command();
    let mut eager_paths = Vec::new();
    paths(&eager_tree, &[], &mut eager_paths);
    assert_eq!(eager_paths, lazy_paths);
    let mut checked = 0;
    for path in &lazy_paths {
        for flag in flags {
            let eager = rendered(path, flag);
            let at = lazy_paths.iter().position(|p| p == path).unwrap() * flags.len()
                + flags.iter().position(|f| *f == flag).unwrap();
            assert_eq!(lazy[at], eager, "`git ucg {} {flag}`", path.join(" "));
            checked += 1;
        }
    }
    assert!(checked >= 200, "{checked} renderings compared");
}

/// The command lines parsed without clap are what clap makes of them, and nothing near them is
/// taken for one.
#[test]
fn the_hot_paths_parse_as_clap_does() {
    let argv = |words: &[&str]| -> Vec<std::ffi::OsString> {
        std::iter::once("git-ucg")
            .chain(words.iter().copied())
            .map(Into::into)
            .collect()
    };
    for words in [&["status", "--prompt"][..], &["budget", "tick"], &["gate"]] {
        let hot = git_ucg::cli::hot_path(&argv(words)).expect("a hot path");
        let matches = git_ucg::cli::Cli::command()
            .try_get_matches_from(argv(words))
            .expect("clap parses it");
        let parsed = <git_ucg::cli::Cli as clap::FromArgMatches>::from_arg_matches(&matches)
            .expect("clap parses it");
        assert_eq!(format!("{hot:?}"), format!("{parsed:?}"), "{words:?}");
    }
    for words in [
        &["status", "--prompt", "--json"][..],
        &["status"],
        &["gate", "--json"],
        &["--no-pager", "gate"],
        &["budget", "tick", "x"],
        &["budget"],
        &[],
    ] {
        assert!(git_ucg::cli::hot_path(&argv(words)).is_none(), "{words:?}");
    }
    for flag in ["--version", "-V"] {
        let clap_text = match git_ucg::cli::Cli::command().try_get_matches_from(argv(&[flag])) {
            Err(e) => e.render().to_string(),
            Ok(_) => String::new(),
        };
        assert_eq!(
            git_ucg::cli::version_only(&argv(&[flag])).as_deref(),
            Some(clap_text.as_str())
        );
    }
    assert_eq!(git_ucg::cli::version_only(&argv(&["--version", "x"])), None);
    assert_eq!(
        git_ucg::cli::version_only(&argv(&["status", "--version"])),
        None
    );
}
