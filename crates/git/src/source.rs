//! Where artifacts are read from: the work tree, or the tree of a commit (`--rev REV`, read from
//! git with no checkout). Readers ask for paths under the project root and get bytes back, the same
//! way from either side.

use super::tree::{CommitTree, PathChange};
use super::Repository;
use crate::{Error, Result};
use std::path::{Path, PathBuf};

pub enum ArtifactSource<'r> {
    /// Files on disk.
    WorkTree,
    /// The tree of a commit; paths are taken relative to `root`, the project root.
    Commit {
        tree: CommitTree<'r>,
        root: PathBuf,
        rev: String,
    },
}

impl<'r> ArtifactSource<'r> {
    /// The tree of `rev` (anything git rev-parse takes that names a commit).
    pub fn at_rev(repo: &'r Repository, rev: &str, root: &Path) -> Result<Self> {
        Ok(Self::commit(CommitTree::at_rev(repo, rev)?, root, rev))
    }

    /// The tree of the commit `id` (read through a push's quarantine too).
    pub fn of_commit(repo: &'r Repository, id: gix::ObjectId, root: &Path) -> Result<Self> {
        Ok(Self::commit(CommitTree::of_commit(repo, id)?, root, id))
    }

    /// The tree `tree`, named `label` in messages (the index's: "the index").
    pub fn of_tree(
        repo: &'r Repository,
        tree: gix::ObjectId,
        root: &Path,
        label: &str,
    ) -> Result<Self> {
        Ok(Self::commit(CommitTree::of_tree(repo, tree)?, root, label))
    }

    fn commit(tree: CommitTree<'r>, root: &Path, rev: impl ToString) -> Self {
        let (root, rev) = (root.to_path_buf(), rev.to_string());
        ArtifactSource::Commit { tree, root, rev }
    }

    /// The files that differ from `older` (`None`: nothing) to this tree; the work tree is not
    /// a tree, and differs from nothing here (the error).
    pub fn changes_from(&self, older: Option<&ArtifactSource>) -> Result<Vec<PathChange>> {
        let older = older.map(ArtifactSource::tree).transpose()?;
        self.tree()?.changes_from(older)
    }

    fn tree(&self) -> Result<&CommitTree<'r>> {
        match self {
            ArtifactSource::Commit { tree, .. } => Ok(tree),
            ArtifactSource::WorkTree => Err(Error::Unreadable(
                "the work tree is not a tree to compare".into(),
            )),
        }
    }

    /// Where reads come from, for messages.
    pub fn describe(&self) -> String {
        match self {
            ArtifactSource::WorkTree => "the work tree".into(),
            ArtifactSource::Commit { rev, .. } => format!("commit {rev}"),
        }
    }

    /// The bytes of a file, or `None` when it is absent or cannot be read (the posture of a
    /// report: `n/a`). What gates uses [`ArtifactSource::read_checked`].
    pub fn read(&self, path: &Path) -> Option<Vec<u8>> {
        self.read_checked(path).ok().flatten()
    }

    /// The bytes of a file, `Ok(None)` when it is absent, or why it cannot be read whole: a
    /// directory, a FIFO, a device, a file over the cap, a permission refused.
    pub fn read_checked(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        match self {
            // A link to nothing is not an absent file: what it stood for cannot be read.
            ArtifactSource::WorkTree => match ucg_store::read_if_present(path) {
                Ok(None) if path.is_symlink() => {
                    Err(Error::unreadable("it is a symbolic link to nothing"))
                }
                read => read.map_err(Error::unreadable),
            },
            ArtifactSource::Commit { tree, root, .. } => match path.strip_prefix(root).ok() {
                Some(rel) => tree.read_checked(rel),
                None => Ok(None),
            },
        }
    }

    /// Whether anything exists at `path` (a file, a directory, a link), as Python's `exists()`.
    pub fn exists(&self, path: &Path) -> bool {
        match self {
            ArtifactSource::WorkTree => path.exists() || std::fs::symlink_metadata(path).is_ok(),
            ArtifactSource::Commit { tree, root, .. } => {
                path.strip_prefix(root).is_ok_and(|rel| tree.exists(rel))
            }
        }
    }

    /// Whether a directory exists at `path` (following symlinks in the work tree).
    pub fn is_dir(&self, path: &Path) -> bool {
        match self {
            ArtifactSource::WorkTree => path.is_dir(),
            ArtifactSource::Commit { tree, root, .. } => {
                path.strip_prefix(root).is_ok_and(|rel| tree.is_dir(rel))
            }
        }
    }

    /// Whether a file exists there.
    pub fn is_file(&self, path: &Path) -> bool {
        match self {
            ArtifactSource::WorkTree => path.is_file(),
            ArtifactSource::Commit { .. } => self.read(path).is_some(),
        }
    }

    /// Why what is at `dir` is not a directory to read (a file, a FIFO, a device, a link to
    /// nothing or to one of those); `None` when a directory is there, or nothing.
    pub fn not_a_directory(&self, dir: &Path) -> Option<String> {
        match self {
            ArtifactSource::WorkTree => {
                let there = std::fs::symlink_metadata(dir).ok()?;
                match std::fs::metadata(dir) {
                    Ok(meta) if meta.is_dir() => None,
                    Ok(meta) => Some(match ucg_store::file_kind(meta.file_type()) {
                        Some(kind) => format!("{kind}, not a directory"),
                        None => "not a directory".into(),
                    }),
                    Err(_) if there.is_symlink() => Some("a symbolic link to nothing".into()),
                    Err(e) => Some(e.to_string()),
                }
            }
            ArtifactSource::Commit { tree, root, .. } => {
                let rel = dir.strip_prefix(root).ok()?;
                match tree.exists(rel) && !tree.is_dir(rel) {
                    true => Some("a file, not a directory".into()),
                    false => None,
                }
            }
        }
    }

    /// The names in a directory (empty when it is absent).
    pub fn list(&self, dir: &Path) -> Vec<String> {
        match self {
            ArtifactSource::WorkTree => std::fs::read_dir(dir)
                .map(|entries| {
                    entries
                        .flatten()
                        .filter_map(|e| e.file_name().into_string().ok())
                        .collect()
                })
                .unwrap_or_default(),
            ArtifactSource::Commit { tree, root, .. } => dir
                .strip_prefix(root)
                .ok()
                .map(|rel| tree.list(rel))
                .unwrap_or_default(),
        }
    }
}
