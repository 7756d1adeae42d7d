//! A commit's tree read like a directory: the bytes of a file, whether a path exists or is a
//! directory, a directory's names — the `--rev` side of the artifact readers, with no checkout.
//!
//! In a hook git runs while it receives a push (pre-receive), the pushed objects are not in the
//! repository yet: git keeps them in a quarantine directory (`$GIT_QUARANTINE_PATH`) until every
//! hook has accepted them, and tells its own children through `GIT_OBJECT_DIRECTORY`, which
//! gitoxide does not read. The objects are looked up there first, then in the repository.

use crate::{Error, Result};
use gix::objs::{Find, FindHeader};
use gix::ObjectId;
use std::path::Path;

/// The environment variable git sets, in the hooks of a push it receives, to the directory the
/// pushed objects wait in.
const QUARANTINE: &str = "GIT_QUARANTINE_PATH";

/// The most deflate expands its input (zlib's own bound: 1032 to 1), so a loose object of n bytes
/// on disk holds at most this times n.
const MAX_DEFLATE_RATIO: u64 = 1032;

/// Where objects are found: a push's quarantine (when git runs us during one), then the
/// repository.
struct Objects<'r> {
    repo: &'r gix::Repository,
    /// Boxed: a store handle is large, and an artifact source without one stays small.
    incoming: Option<Box<gix::odb::Handle>>,
}

impl<'r> Objects<'r> {
    fn of(repo: &'r gix::Repository) -> Result<Self> {
        let incoming = match std::env::var_os(QUARANTINE).filter(|dir| !dir.is_empty()) {
            None => None,
            Some(dir) => Some(Box::new(gix::odb::at(&dir, repo.object_hash()).map_err(
                |e| {
                    let doing = format!("open the pushed objects in {}", Path::new(&dir).display());
                    Error::failed(doing, e)
                },
            )?)),
        };
        Ok(Objects { repo, incoming })
    }

    /// Whether `id` is a loose object of the repository too small on disk to inflate past `cap`:
    /// a stat, where reading its header costs a file opened, mapped and inflated (judging a push
    /// of a hundred fresh commits reads two new blobs a commit).
    fn loose_within(&self, id: &gix::oid, cap: u64) -> bool {
        if self.incoming.is_some() {
            return false;
        }
        let objects = self.repo.objects.store_ref().path();
        let path = gix::odb::loose::Store::at(objects, id.kind()).object_path(id);
        std::fs::metadata(path)
            .is_ok_and(|meta| meta.is_file() && meta.len().saturating_mul(MAX_DEFLATE_RATIO) <= cap)
    }

    fn incoming_has(&self, id: &gix::oid) -> bool {
        self.incoming
            .as_ref()
            .is_some_and(|incoming| gix::objs::Exists::exists(incoming, id))
    }

    /// The object `id`, or why not: unreadable, or missing (named as a `what`).
    fn require<'a>(
        &self,
        id: &gix::oid,
        what: &str,
        buffer: &'a mut Vec<u8>,
    ) -> Result<gix::objs::Data<'a>> {
        self.try_find(id, buffer)
            .map_err(Error::unreadable)?
            .ok_or_else(|| Error::unreadable(format!("the {what} {id} is missing")))
    }
}

impl Find for Objects<'_> {
    fn try_find<'a>(
        &self,
        id: &gix::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix::Result<Option<gix::objs::Data<'a>>> {
        match &self.incoming {
            Some(incoming) if self.incoming_has(id) => incoming.try_find(id, buffer),
            _ => self.repo.objects.try_find(id, buffer),
        }
    }
}

impl FindHeader for Objects<'_> {
    fn try_header(&self, id: &gix::oid) -> gix::Result<Option<gix::objs::Header>> {
        match &self.incoming {
            Some(incoming) if self.incoming_has(id) => incoming.try_header(id),
            _ => self.repo.objects.try_header(id),
        }
    }
}

/// The tree of one commit.
pub struct CommitTree<'r> {
    objects: Objects<'r>,
    tree: ObjectId,
}

impl<'r> CommitTree<'r> {
    /// The tree of `rev` (anything git rev-parse takes that names a commit; a full object id is
    /// taken as it is, so that a commit still in a push's quarantine can be named).
    pub fn at_rev(repo: &'r gix::Repository, rev: &str) -> Result<Self> {
        let objects = Objects::of(repo)?;
        let id = match ObjectId::from_hex(rev.as_bytes()) {
            Ok(id) => id,
            Err(_) => repo
                .rev_parse_single(rev)
                .map_err(|e| Error::failed(format!("resolve {rev:?}"), e))?
                .detach(),
        };
        let tree = commit_tree(&objects, id)
            .map_err(|e| Error::BadRevision(format!("{rev:?} does not name a commit: {e}")))?;
        Ok(CommitTree { objects, tree })
    }

    /// The entry at `path` (`None` for the root, which has none, and for a path not there).
    fn entry(&self, path: &Path) -> Result<Option<gix::objs::tree::Entry>> {
        let mut buffer = Vec::new();
        let root = self.objects.require(&self.tree, "tree", &mut buffer)?;
        let data = root.data.to_vec();
        gix::objs::TreeRefIter::from_bytes(&data, self.objects.repo.object_hash())
            .lookup_entry_by_path(&self.objects, &mut buffer, path)
            .map_err(Error::unreadable)
    }

    /// The bytes of the blob at `path`, `Ok(None)` when nothing is there, or why it cannot be
    /// read: a directory, a symlink or a submodule in its place, a blob over the artifact cap.
    pub fn read_checked(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        let Some(entry) = self.entry(path)? else {
            return Ok(None);
        };
        let mode = entry.mode;
        if !mode.is_blob() {
            let what = if mode.is_tree() {
                "a directory"
            } else if mode.is_link() {
                "a symlink"
            } else {
                "a submodule"
            };
            return Err(Error::NotAFile(what));
        }
        let cap = ucg_store::max_artifact_bytes();
        if !self.objects.loose_within(&entry.oid, cap) && blob_size(&self.objects, entry.oid)? > cap
        {
            return Err(Error::TooLarge(cap));
        }
        let mut buffer = Vec::new();
        let blob = self.objects.require(&entry.oid, "blob", &mut buffer)?;
        Ok(Some(blob.data.to_vec()))
    }

    /// Whether anything is at `path`.
    pub fn exists(&self, path: &Path) -> bool {
        self.entry(path).ok().flatten().is_some()
    }

    /// Whether a directory is at `path` (the empty path is the root).
    pub fn is_dir(&self, path: &Path) -> bool {
        if path.as_os_str().is_empty() {
            return true;
        }
        self.entry(path)
            .ok()
            .flatten()
            .is_some_and(|e| e.mode.is_tree())
    }

    /// The names in the directory at `path` (empty when there is none).
    pub fn list(&self, path: &Path) -> Vec<String> {
        let id = if path.as_os_str().is_empty() {
            Some(self.tree)
        } else {
            self.entry(path)
                .ok()
                .flatten()
                .filter(|e| e.mode.is_tree())
                .map(|e| e.oid)
        };
        let mut buffer = Vec::new();
        let Some(Ok(Some(tree))) = id.map(|id| self.objects.try_find(&id, &mut buffer)) else {
            return Vec::new();
        };
        gix::objs::TreeRefIter::from_bytes(tree.data, tree.object_hash)
            .flatten()
            .map(|e| e.filename.to_string())
            .collect()
    }
}

/// How a path differs between two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Deleted,
    Modified,
}

/// A file (anything but a directory) that differs between two trees, by its path from the
/// root ('/'-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathChange {
    pub path: String,
    pub kind: ChangeKind,
}

impl<'r> CommitTree<'r> {
    /// The tree `tree` itself (the index's, as `git write-tree` wrote it).
    pub fn of_tree(repo: &'r gix::Repository, tree: ObjectId) -> Result<Self> {
        Ok(CommitTree {
            objects: Objects::of(repo)?,
            tree,
        })
    }

    /// The files that differ from `older` (`None`: the empty tree) to this tree, without rename
    /// detection: a rename is a deletion and an addition. Read through a push's quarantine too.
    pub fn changes_from(&self, older: Option<&CommitTree>) -> Result<Vec<PathChange>> {
        let mut new_buffer = Vec::new();
        let new = self.objects.require(&self.tree, "tree", &mut new_buffer)?;
        let hash = new.object_hash;
        let mut old_buffer = Vec::new();
        let old_data: &[u8] = match older {
            Some(older) => {
                older
                    .objects
                    .require(&older.tree, "tree", &mut old_buffer)?
                    .data
            }
            None => &[],
        };
        let mut recorder = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(old_data, hash),
            gix::objs::TreeRefIter::from_bytes(new.data, hash),
            gix::diff::tree::State::default(),
            &self.objects,
            &mut recorder,
        )
        .map_err(Error::unreadable)?;
        use gix::diff::tree::recorder::Change;
        let mut changes: Vec<PathChange> = recorder
            .records
            .into_iter()
            .filter_map(|change| {
                let (kind, mode, path) = match change {
                    Change::Addition {
                        entry_mode, path, ..
                    } => (ChangeKind::Added, entry_mode, path),
                    Change::Deletion {
                        entry_mode, path, ..
                    } => (ChangeKind::Deleted, entry_mode, path),
                    Change::Modification {
                        entry_mode,
                        previous_entry_mode,
                        path,
                        ..
                    } => {
                        // A directory replaced by a file (or the reverse) shows as a change of
                        // mode; the files inside are recorded on their own.
                        let mode = if entry_mode.is_tree() {
                            previous_entry_mode
                        } else {
                            entry_mode
                        };
                        (ChangeKind::Modified, mode, path)
                    }
                };
                (!mode.is_tree()).then(|| PathChange {
                    path: path.to_string(),
                    kind,
                })
            })
            .collect();
        changes.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(changes)
    }
}

/// A commit's parents, in order (read through a push's quarantine too).
pub fn parents(repo: &gix::Repository, id: ObjectId) -> Result<Vec<ObjectId>> {
    let objects = Objects::of(repo)?;
    let mut buffer = Vec::new();
    let object = objects.require(&id, "commit", &mut buffer)?;
    if object.kind != gix::objs::Kind::Commit {
        return Err(Error::unreadable(format!("{id} is a {}", object.kind)));
    }
    Ok(
        gix::objs::CommitRefIter::from_bytes(object.data, object.object_hash)
            .parent_ids()
            .collect(),
    )
}

/// Blob sizes already read, by id (an object's size never changes): judging a run of commits reads
/// the same unchanged artifacts in each, and a loose object's header costs a file opened and
/// inflated every time. Bounded: past this many, sizes are read again.
const SIZES_KEPT: usize = 65_536;

thread_local! {
    static SIZES: std::cell::RefCell<std::collections::HashMap<ObjectId, u64>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The size of the blob `id`, from its header (read once per process).
fn blob_size(objects: &Objects, id: ObjectId) -> Result<u64> {
    if let Some(size) = SIZES.with(|sizes| sizes.borrow().get(&id).copied()) {
        return Ok(size);
    }
    let size = objects
        .try_header(&id)
        .map_err(Error::unreadable)?
        .ok_or_else(|| Error::unreadable(format!("the blob {id} is missing")))?
        .size;
    SIZES.with(|sizes| {
        let mut sizes = sizes.borrow_mut();
        if sizes.len() < SIZES_KEPT {
            sizes.insert(id, size);
        }
    });
    Ok(size)
}

/// The tree of the commit `id` names, through any annotated tags.
fn commit_tree(objects: &Objects, mut id: ObjectId) -> Result<ObjectId> {
    let mut buffer = Vec::new();
    // A chain of tags longer than this is not one git makes.
    for _ in 0..32 {
        let object = objects.require(&id, "object", &mut buffer)?;
        id = match object.kind {
            gix::objs::Kind::Commit => {
                return gix::objs::CommitRefIter::from_bytes(object.data, object.object_hash)
                    .tree_id()
                    .map_err(Error::unreadable)
            }
            gix::objs::Kind::Tag => {
                gix::objs::TagRefIter::from_bytes(object.data, object.object_hash)
                    .target_id()
                    .map_err(Error::unreadable)?
            }
            kind => return Err(Error::unreadable(format!("it is a {kind}"))),
        };
    }
    Err(Error::unreadable("a chain of tags too long to follow"))
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
    /// The tree of the commit `id`.
    pub fn of_commit(repo: &'r gix::Repository, id: ObjectId) -> Result<Self> {
        let objects = Objects::of(repo)?;
        let tree =
            commit_tree(&objects, id).map_err(|e| Error::failed(format!("read commit {id}"), e))?;
        Ok(CommitTree { objects, tree })
    }

    /// Every regular file at or below `path` (a file, or a directory walked whole), in tree order;
    /// nothing when nothing is there. Symlinks and submodules are not files and are left out; a
    /// blob over the artifact cap is an error.
    pub fn files_below(&self, path: &Path) -> Result<Vec<TreeFile>> {
        let prefix = path.to_string_lossy().replace('\\', "/");
        let mut files = Vec::new();
        let mut dirs = match prefix.is_empty() {
            true => vec![(String::new(), self.tree)],
            false => match self.entry(path)? {
                None => return Ok(files),
                Some(entry) if entry.mode.is_tree() => vec![(prefix, entry.oid)],
                Some(entry) if entry.mode.is_blob() => {
                    let bytes = self.read_checked(path)?.unwrap_or_default();
                    files.push(TreeFile {
                        path: prefix,
                        executable: entry.mode.is_executable(),
                        bytes,
                    });
                    return Ok(files);
                }
                Some(_) => return Ok(files),
            },
        };
        while let Some((dir, id)) = dirs.pop() {
            let mut buffer = Vec::new();
            let tree = self.objects.require(&id, "tree", &mut buffer)?;
            let entries: Vec<(String, gix::objs::tree::EntryMode, ObjectId)> =
                gix::objs::TreeRefIter::from_bytes(tree.data, tree.object_hash)
                    .map(|entry| {
                        entry
                            .map(|e| (e.filename.to_string(), e.mode, e.oid.to_owned()))
                            .map_err(Error::unreadable)
                    })
                    .collect::<Result<_>>()?;
            for (name, mode, oid) in entries {
                let full = match dir.is_empty() {
                    true => name,
                    false => format!("{dir}/{name}"),
                };
                if mode.is_tree() {
                    dirs.push((full, oid));
                } else if mode.is_blob() {
                    let bytes = self.read_checked(Path::new(&full))?.unwrap_or_default();
                    files.push(TreeFile {
                        path: full,
                        executable: mode.is_executable(),
                        bytes,
                    });
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }
}
