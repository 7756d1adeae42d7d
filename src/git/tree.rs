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
