//! Where artifacts are read from: the work tree, or the tree of a commit (`--rev REV`, read from
//! git with no checkout). Readers ask for paths under the project root and get bytes back, the same
//! way from either side.

use super::tree::CommitTree;
use super::Repository;
use std::path::{Path, PathBuf};

/// A whole file, in as few system calls as a small file allows: artifacts are mostly small and
/// many (a run of 1,000 stories has 2,000 markers), and `std::fs::read`'s size probe would add a
/// `statx` to each. A file that fills the first buffer is read on at its full size.
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    const FIRST: usize = 16 << 10;
    let mut file = std::fs::File::open(path)?;
    let mut bytes = vec![0u8; FIRST];
    let mut filled = 0;
    while filled < FIRST {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => {
                bytes.truncate(filled);
                return Ok(bytes);
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let size = file.metadata().map_or(0, |m| m.len());
    bytes.reserve(usize::try_from(size).unwrap_or(0).saturating_sub(FIRST));
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

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
    pub fn at_rev(repo: &'r Repository, rev: &str, root: &Path) -> Result<Self, String> {
        Ok(ArtifactSource::Commit {
            tree: CommitTree::at_rev(repo, rev)?,
            root: root.to_path_buf(),
            rev: rev.to_string(),
        })
    }

    /// Where reads come from, for messages.
    pub fn describe(&self) -> String {
        match self {
            ArtifactSource::WorkTree => "the work tree".into(),
            ArtifactSource::Commit { rev, .. } => format!("commit {rev}"),
        }
    }

    fn relative<'p>(root: &Path, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(root).ok()
    }

    /// The bytes of a file, or `None` when it is absent (or not a file).
    pub fn read(&self, path: &Path) -> Option<Vec<u8>> {
        match self {
            ArtifactSource::WorkTree => read_file(path).ok(),
            ArtifactSource::Commit { tree, root, .. } => tree.read(Self::relative(root, path)?),
        }
    }

    /// Whether anything exists at `path` (a file, a directory, a link), as Python's `exists()`.
    pub fn exists(&self, path: &Path) -> bool {
        match self {
            ArtifactSource::WorkTree => path.exists() || std::fs::symlink_metadata(path).is_ok(),
            ArtifactSource::Commit { tree, root, .. } => {
                Self::relative(root, path).is_some_and(|rel| tree.exists(rel))
            }
        }
    }

    /// Whether a directory exists at `path` (following symlinks in the work tree).
    pub fn is_dir(&self, path: &Path) -> bool {
        match self {
            ArtifactSource::WorkTree => path.is_dir(),
            ArtifactSource::Commit { tree, root, .. } => {
                Self::relative(root, path).is_some_and(|rel| tree.is_dir(rel))
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
            ArtifactSource::Commit { tree, root, .. } => Self::relative(root, dir)
                .map(|rel| tree.list(rel))
                .unwrap_or_default(),
        }
    }
}
