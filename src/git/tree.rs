//! A commit's tree read like a directory: the bytes of a file, whether a path exists or is a
//! directory, a directory's names — the `--rev` side of the artifact readers, with no checkout.

use std::path::Path;

/// The tree of one commit.
pub struct CommitTree<'r> {
    tree: gix::Tree<'r>,
}

impl<'r> CommitTree<'r> {
    /// The tree of `rev` (anything git rev-parse takes that names a commit).
    pub fn at_rev(repo: &'r gix::Repository, rev: &str) -> Result<Self, String> {
        let tree = repo
            .rev_parse_single(rev)
            .map_err(|e| format!("cannot resolve {rev:?}: {e}"))?
            .object()
            .and_then(|o| o.peel_to_commit())
            .and_then(|c| c.tree())
            .map_err(|e| format!("{rev:?} does not name a commit: {e}"))?;
        Ok(CommitTree { tree })
    }

    /// The bytes of the blob at `path`, or `None` when there is none (or it is not a file).
    pub fn read(&self, path: &Path) -> Option<Vec<u8>> {
        self.read_checked(path).ok().flatten()
    }

    /// The bytes of the blob at `path`, `Ok(None)` when nothing is there, or why it cannot be
    /// read: a directory, a symlink or a submodule in its place, a blob over the artifact cap.
    pub fn read_checked(&self, path: &Path) -> Result<Option<Vec<u8>>, String> {
        let entry = match self.tree.lookup_entry_by_path(path) {
            Ok(Some(entry)) => entry,
            Ok(None) => return Ok(None),
            Err(e) => return Err(e.to_string()),
        };
        let mode = entry.mode();
        if !mode.is_blob() {
            let what = if mode.is_tree() {
                "a directory"
            } else if mode.is_link() {
                "a symlink"
            } else {
                "a submodule"
            };
            return Err(format!("{what} in the commit, not a regular file"));
        }
        let cap = crate::store::max_artifact_bytes();
        let size = self
            .tree
            .repo
            .find_header(entry.id())
            .map_err(|e| e.to_string())?
            .size();
        if size > cap {
            return Err(format!(
                "larger than {cap} bytes, the limit on one artifact (git config ucg.maxArtifactBytes)"
            ));
        }
        entry
            .object()
            .map(|o| Some(o.data.clone()))
            .map_err(|e| e.to_string())
    }

    /// Whether anything is at `path`.
    pub fn exists(&self, path: &Path) -> bool {
        self.tree
            .lookup_entry_by_path(path)
            .ok()
            .flatten()
            .is_some()
    }

    /// Whether a directory is at `path` (the empty path is the root).
    pub fn is_dir(&self, path: &Path) -> bool {
        if path.as_os_str().is_empty() {
            return true;
        }
        self.tree
            .lookup_entry_by_path(path)
            .ok()
            .flatten()
            .is_some_and(|e| e.mode().is_tree())
    }

    /// The names in the directory at `path` (empty when there is none).
    pub fn list(&self, path: &Path) -> Vec<String> {
        let subtree = if path.as_os_str().is_empty() {
            Some(self.tree.clone())
        } else {
            self.tree
                .lookup_entry_by_path(path)
                .ok()
                .flatten()
                .filter(|e| e.mode().is_tree())
                .and_then(|e| e.object().ok())
                .map(|o| o.into_tree())
        };
        subtree
            .map(|t| {
                t.iter()
                    .flatten()
                    .map(|e| e.filename().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A file of a commit's tree: its path from the tree's root ('/'-separated), whether git records
/// it executable, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    pub path: String,
    pub executable: bool,
    pub bytes: Vec<u8>,
}

impl<'r> CommitTree<'r> {
    /// Every regular file at or below `path` (a file, or a directory walked whole), in tree order;
    /// nothing when nothing is there. Symlinks and submodules are not files and are left out; a
    /// blob over the artifact cap is an error.
    pub fn files_below(&self, path: &Path) -> Result<Vec<TreeFile>, String> {
        let prefix = path.to_string_lossy().replace('\\', "/");
        let entry = match prefix.is_empty() {
            true => None,
            false => match self.tree.lookup_entry_by_path(path) {
                Ok(Some(entry)) => Some(entry),
                Ok(None) => return Ok(Vec::new()),
                Err(e) => return Err(e.to_string()),
            },
        };
        let subtree = match entry {
            Some(entry) if entry.mode().is_blob() => {
                let bytes = self.read_checked(path)?.unwrap_or_default();
                return Ok(vec![TreeFile {
                    path: prefix,
                    executable: entry.mode().is_executable(),
                    bytes,
                }]);
            }
            Some(entry) if entry.mode().is_tree() => {
                entry.object().map_err(|e| e.to_string())?.into_tree()
            }
            Some(_) => return Ok(Vec::new()),
            None => self.tree.clone(),
        };
        let mut recorder = gix::traverse::tree::Recorder::default();
        subtree
            .traverse()
            .breadthfirst(&mut recorder)
            .map_err(|e| e.to_string())?;
        let mut files = Vec::new();
        for found in recorder.records {
            if !found.mode.is_blob() {
                continue;
            }
            let relative = found.filepath.to_string();
            let full = match prefix.is_empty() {
                true => relative,
                false => format!("{prefix}/{relative}"),
            };
            let bytes = self.read_checked(Path::new(&full))?.unwrap_or_default();
            files.push(TreeFile {
                path: full,
                executable: found.mode.is_executable(),
                bytes,
            });
        }
        Ok(files)
    }

    /// The tree of the commit `id`.
    pub fn of_commit(repo: &'r gix::Repository, id: gix::ObjectId) -> Result<Self, String> {
        let tree = repo
            .find_commit(id)
            .and_then(|c| c.tree())
            .map_err(|e| format!("cannot read commit {id}: {e}"))?;
        Ok(CommitTree { tree })
    }
}
