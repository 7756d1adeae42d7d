//! Answering on a branch's committed artifacts without a checkout (`resolve --branch`): the
//! branch tip's artifact directory, ledger and decision logs are copied into a private scratch
//! directory, the same record-then-apply pass as on a checkout runs there, and what it changed
//! comes back as edits of the tip's tree. Committing them (and retrying when the branch moved)
//! is the caller's; nothing here touches a work tree, the index or HEAD.

use crate::answer::Answer;
use crate::decision_log::{decision_log_folder, DECISION_LOG_FILE};
use crate::error::{Error, Result};
use crate::pending::Pending;
use crate::resolve::{append_to_log, commit as record_and_apply, enumerate, Outcome, Pass};
use crate::runs;
use std::collections::BTreeMap;
use std::path::Path;
use ucg_git::commit::Edit;
use ucg_git::tree::{CommitTree, TreeFile};
use ucg_git::ObjectId;

/// Where the pass's files live in the branch's tree, '/'-separated from the repository's root.
pub struct BranchPaths {
    pub impl_dir: String,
    /// `None` when the ledger lies outside the repository (it cannot be on a branch).
    pub ledger: Option<String>,
    pub runs_root: Option<String>,
}

/// What to record on the branch.
pub struct BranchRequest<'a> {
    pub answers: &'a [Answer],
    /// Who answers (`user.email`).
    pub by: Option<&'a str>,
    /// The run folder whose decision log gets the section (`--run`).
    pub run: Option<&'a str>,
    pub dry_run: bool,
}

/// One pass over one tip: what it did, the edits that carry it into a commit, and what the
/// caller worked out of the pass while its scratch copy existed.
pub struct BranchPass<T> {
    pub outcome: Outcome,
    pub edits: Vec<Edit>,
    /// The files as the tip had them, by path.
    pub before: BTreeMap<String, TreeFile>,
    pub shown: T,
}

/// The pass on `tip` of `branch`: its files copied into scratch space, answered and applied there,
/// and the difference as edits of the tip's tree. `show` is given the pass, its outcome, what is
/// pending after it and the decision log appended to (relative to the tree), while they exist.
pub fn pass_on<T>(
    repo: &ucg_git::Repository,
    paths: &BranchPaths,
    request: &BranchRequest,
    tip: ObjectId,
    branch: &str,
    show: impl FnOnce(&Pass, &Outcome, &Pending, Option<&Path>) -> T,
) -> Result<BranchPass<T>> {
    let tree = CommitTree::of_commit(repo, tip)?;
    if !tree.is_dir(Path::new(&paths.impl_dir)) {
        return Err(Error::BranchLacksArtifacts {
            branch: branch.to_string(),
            impl_dir: paths.impl_dir.clone(),
        });
    }
    let before = files_of(&tree, paths)?;
    let scratch = ucg_store::scratch_dir("git-ucg-branch-")
        .map_err(|e| Error::io("make a scratch directory in", std::env::temp_dir(), e))?;
    let root = scratch.path().to_path_buf();
    for file in before.values() {
        ucg_store::write_creating_dirs(&root.join(&file.path), &file.bytes).map_err(|source| {
            Error::CopyOut {
                path: file.path.clone(),
                branch: branch.to_string(),
                source,
            }
        })?;
    }
    let impl_dir = root.join(&paths.impl_dir);
    let runs_root = root.join(paths.runs_root.as_deref().unwrap_or(runs::RUNS_ROOT));
    let log_dir = decision_log_folder::<Error>(&impl_dir, &runs_root, request.run, None)?;
    let pass = Pass {
        project_root: root.clone(),
        bounds_root: Some(root.clone()),
        ledger: root.join(paths.ledger.as_deref().unwrap_or(".git-ucg-no-ledger")),
        impl_dir,
        log_dir,
        dry_run: request.dry_run,
        once: false,
        by: request.by.map(str::to_string),
    };
    pass.check_log_target()?;
    let mut outcome = Outcome::default();
    record_and_apply(&pass, request.answers, &mut outcome)?;
    let logged = append_to_log(&pass, &mut outcome)?;
    let logged = logged.map(|p| p.strip_prefix(&root).map(Path::to_path_buf).unwrap_or(p));
    let after = outcome.after.take().unwrap_or_else(|| enumerate(&pass));
    let shown = show(&pass, &outcome, &after, logged.as_deref());
    outcome.after = Some(after);
    let edits = edits(&root, &before)?;
    // A file the pass created where the tree holds a symlink or a submodule would replace it.
    if let Some(edit) = edits
        .iter()
        .find(|e| !before.contains_key(e.path()) && tree.exists(Path::new(e.path())))
    {
        return Err(Error::NotRegularOnBranch {
            branch: branch.to_string(),
            path: edit.path().to_string(),
        });
    }
    Ok(BranchPass {
        outcome,
        edits,
        before,
        shown,
    })
}

/// The files the pass reads and may change, as the tip has them: the artifact directory whole,
/// the ledger, and every run folder's decision log.
fn files_of(tree: &CommitTree, paths: &BranchPaths) -> Result<BTreeMap<String, TreeFile>> {
    let mut wanted = vec![paths.impl_dir.clone()];
    wanted.extend(paths.ledger.clone());
    if let Some(runs_root) = &paths.runs_root {
        for name in tree.list(Path::new(runs_root)) {
            wanted.push(format!("{runs_root}/{name}/{DECISION_LOG_FILE}"));
        }
    }
    let mut files = BTreeMap::new();
    for path in wanted {
        for file in tree.files_below(Path::new(&path))? {
            files.insert(file.path.clone(), file);
        }
    }
    Ok(files)
}

/// What the pass changed in the scratch copy: files rewritten or deleted, and files it created.
fn edits(root: &Path, before: &BTreeMap<String, TreeFile>) -> Result<Vec<Edit>> {
    let mut edits = Vec::new();
    for (path, file) in before {
        let copy = root.join(path);
        match ucg_store::read_if_present(&copy).map_err(|e| Error::io("read", &copy, e))? {
            None => edits.push(Edit::Remove { path: path.clone() }),
            Some(bytes) if bytes != file.bytes => edits.push(Edit::Write {
                path: path.clone(),
                bytes,
                executable: file.executable,
            }),
            Some(_) => {}
        }
    }
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::io("read", &dir, e))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| Error::io("read", &path, e))?;
            if kind.is_dir() {
                stack.push(path);
                continue;
            }
            let Some(relative) = path
                .strip_prefix(root)
                .ok()
                .and_then(Path::to_str)
                .map(|p| p.replace('\\', "/"))
            else {
                continue;
            };
            if kind.is_file() && !before.contains_key(&relative) {
                let bytes = ucg_store::read_file(&path).map_err(|e| Error::io("read", &path, e))?;
                edits.push(Edit::Write {
                    path: relative,
                    bytes,
                    executable: false,
                });
            }
        }
    }
    edits.sort_by(|a, b| a.path().cmp(b.path()));
    Ok(edits)
}

/// A work tree with `branch` (its full name) checked out keeps its files: refused when its copy
/// of a file the edits change differs from the branch's (its own edits would then look reverted,
/// or be lost when it catches up).
pub fn refuse_dirty_checkouts<T>(
    repo: &ucg_git::Repository,
    branch: &str,
    local_tip: ObjectId,
    done: &BranchPass<T>,
) -> Result<()> {
    let work_trees = ucg_git::repo::work_trees_on_branch(repo, branch);
    if work_trees.is_empty() {
        return Ok(());
    }
    // A checkout holds the branch's local tip, which may be behind the tip the pass answered on
    // (the remote's): its files are compared with what it has committed.
    let committed = CommitTree::of_commit(repo, local_tip)?;
    for dir in work_trees {
        for edit in &done.edits {
            let on_branch = committed.read_checked(Path::new(edit.path()))?;
            let on_branch = on_branch.as_deref();
            let checked_out = dir.join(edit.path());
            let in_work_tree = ucg_store::read_if_present(&checked_out)
                .map_err(|e| Error::io("read", &checked_out, e))?;
            if in_work_tree.as_deref() != on_branch {
                return Err(Error::DirtyCheckout {
                    branch: ucg_git::commit::short_branch_name(branch).to_string(),
                    work_tree: dir,
                    path: edit.path().to_string(),
                });
            }
        }
    }
    Ok(())
}
