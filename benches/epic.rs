//! `cargo bench --bench epic`: `git ucg diff --epic --stat` against `git diff --stat` over the same
//! range, a long range cold and repeated, and `git ucg epic`, on generated repositories.

#[path = "support/mod.rs"]
mod support;

use support::{git_command as git, scratch, time_pair, time_runs, ucg, RepoShape};

fn main() {
    println!("| benchmark | input | git-ucg median | git median | ratio |");
    println!("|---|---|---|---|---|");

    let (dir, _guard) = scratch();
    let shape = RepoShape {
        files: 10_000,
        lines_per_file: 20,
        main_commits: 20,
        stories: 30,
        commits_per_story: 2,
        files_per_commit: 3,
        change_every: 3,
        checkout: true,
    };
    let (base, tip) = support::write_repo(&dir, shape);
    let range = format!("{base}..{tip}");
    let (ours, theirs) = time_pair(
        101,
        || ucg(&dir, &["diff", "--epic", "--stat", "--no-cache"]),
        || git(&dir, &["diff", "--stat", &range]),
    );
    println!(
        "| `diff --epic --stat` | 10,000 files, epic of 60 commits touching ~150 files | {ours:.1} ms | {theirs:.1} ms | {:.2}× |",
        ours / theirs
    );
    let epic = time_runs(15, || ucg(&dir, &["epic"]));
    let epic_fast = time_runs(15, || ucg(&dir, &["epic", "--fast"]));
    println!("| `epic` | same repository, 30 stories | {epic:.1} ms | — | — |");
    println!("| `epic --fast` | same repository, 30 stories | {epic_fast:.1} ms | — | — |");

    let (long, _long_guard) = scratch();
    let shape = RepoShape {
        files: 2_000,
        lines_per_file: 250,
        main_commits: 5,
        stories: 250,
        commits_per_story: 2,
        files_per_commit: 1,
        change_every: 2,
        checkout: true,
    };
    let (base, tip) = support::write_repo(&long, shape);
    let range = format!("{base}..{tip}");
    let numstat = git(&long, &["diff", "--shortstat", &range])
        .output()
        .expect("git");
    let size = String::from_utf8_lossy(&numstat.stdout).trim().to_string();
    let (ours, theirs) = time_pair(
        15,
        || ucg(&long, &["diff", "--range", &range, "--stat", "--no-cache"]),
        || git(&long, &["diff", "--stat", &range]),
    );
    let repeat = time_runs(7, || ucg(&long, &["diff", "--range", &range, "--stat"]));
    println!(
        "| `diff --range --stat`, cold | 500 commits; {size} | {ours:.1} ms | {theirs:.1} ms | {:.2}× |",
        ours / theirs
    );
    println!(
        "| `diff --range --stat`, repeated (line-count cache) | same | {repeat:.1} ms | {theirs:.1} ms | {:.2}× |",
        repeat / theirs
    );
}
