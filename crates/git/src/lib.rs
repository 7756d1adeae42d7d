//! The git side — the only code that touches gitoxide or runs the `git` binary: discovering the
//! repository, resolving marker ids, ancestry, the commits of a range, tree-to-tree changes with
//! renames and per-file line counts, a commit's tree read like a directory (`source`), the hooks
//! directory and hook programs (`hooks`), and a hermetic `git` runner for the demo, tests and
//! benches (`hermetic`).

pub mod commit;
mod error;
pub mod hermetic;
pub mod hook_managers;
pub mod hooks;
pub mod linecache;
pub mod merge;
pub mod notes;
pub mod patch;
pub mod repo;
pub mod similarity;
pub mod source;
pub mod tree;

pub use error::{Error, Result};
use gix::bstr::ByteSlice;
pub use gix::ObjectId;
pub use repo::Repository;
pub use source::ArtifactSource;

/// The work tree's attributes file (its lines choose merge drivers, diff drivers, …).
pub const ATTRIBUTES_FILE: &str = ".gitattributes";

/// A commit in a range, as `git log --oneline` would show it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CommitInfo {
    pub sha: String,
    pub short: String,
    pub subject: String,
}

/// Resolves a marker's commit id: a full id must name a commit in this repository; an abbreviated
/// one is looked up (the caller reports that it is abbreviated).
pub fn resolve_commit(repo: &gix::Repository, text: &str) -> Result<ObjectId> {
    let id = if text.len() == 40 {
        ObjectId::from_hex(text.as_bytes())
            .map_err(|e| Error::BadRevision(format!("`{text}` is not a commit id: {e}")))?
    } else {
        repo.rev_parse_single(text)
            .map_err(|_| {
                Error::BadRevision(format!("`{text}` names no object in this repository"))
            })?
            .detach()
    };
    // The object's header says its kind without inflating it.
    match repo.find_header(id).map(|h| h.kind()) {
        Ok(gix::object::Kind::Commit) => Ok(id),
        Ok(_) => Err(Error::BadRevision(format!("`{text}` names an object that is not a commit"))),
        Err(_) => Err(Error::BadRevision(format!(
            "`{text}` names an object that does not exist in this repository (another clone's id, or a shallow history?)"
        ))),
    }
}

/// Whether `ancestor` is `descendant` or one of its ancestors.
pub fn is_ancestor(
    repo: &gix::Repository,
    ancestor: ObjectId,
    descendant: ObjectId,
) -> Result<bool> {
    if ancestor == descendant {
        return Ok(true);
    }
    match repo.merge_base(ancestor, descendant) {
        Ok(Some(base)) => Ok(base.detach() == ancestor),
        Ok(None) => Ok(false),
        Err(e) => Err(Error::failed("compute the merge base", e)),
    }
}

/// The commits reachable from `end` and not from `base`, newest first (`git log base..end`).
pub fn commits_in_range(
    repo: &gix::Repository,
    base: ObjectId,
    end: ObjectId,
) -> Result<Vec<CommitInfo>> {
    use gix::revision::walk::Sorting;
    use gix::traverse::commit::simple::CommitTimeOrder;
    let walk = repo
        .rev_walk([end])
        .with_hidden([base])
        .sorting(Sorting::ByCommitTime(CommitTimeOrder::NewestFirst))
        .all()
        .map_err(|e| Error::failed(format!("walk {base}..{end}"), e))?;
    walk.map(|info| {
        let info = info.map_err(|e| Error::failed(format!("walk {base}..{end}"), e))?;
        let commit = repo
            .find_commit(info.id)
            .map_err(|e| Error::failed(format!("read commit {}", info.id), e))?;
        let subject = commit
            .message_raw_sloppy()
            .lines()
            .next()
            .map(|l| l.to_str_lossy().into_owned())
            .unwrap_or_default();
        Ok(CommitInfo {
            sha: info.id.to_string(),
            short: info.id.to_hex_with_len(7).to_string(),
            subject,
        })
    })
    .collect()
}

/// How a path changed between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Added,
    Deleted,
    Modified,
    /// The object kind changed (file ↔ symlink).
    TypeChanged,
    /// Renamed, with git's similarity index (0–100).
    Renamed(u32),
}

impl Status {
    /// The letter (and score) `git diff --name-status` prints.
    pub fn code(&self) -> String {
        match self {
            Status::Added => "A".into(),
            Status::Deleted => "D".into(),
            Status::Modified => "M".into(),
            Status::TypeChanged => "T".into(),
            Status::Renamed(score) => format!("R{score:03}"),
        }
    }
}

/// One changed file.
#[derive(Debug, Clone)]
pub struct FileChange {
    pub status: Status,
    /// The path before (equal to `path` unless renamed).
    pub old_path: String,
    pub path: String,
    pub old_id: ObjectId,
    pub new_id: ObjectId,
    pub old_mode: u32,
    pub new_mode: u32,
}

impl FileChange {
    /// The change as the deletion of its old side (`null`, the absent new side).
    pub(crate) fn deletion(self, null: ObjectId) -> FileChange {
        FileChange {
            status: Status::Deleted,
            path: self.old_path.clone(),
            new_id: null,
            new_mode: 0,
            ..self
        }
    }

    /// The change as the addition of its new side (`null`, the absent old side).
    pub(crate) fn addition(self, null: ObjectId) -> FileChange {
        FileChange {
            status: Status::Added,
            old_path: self.path.clone(),
            old_id: null,
            old_mode: 0,
            ..self
        }
    }
}

/// Caches for reading many blobs: a delta-base cache like git's default (`core.deltaBaseCacheLimit`,
/// 96 MiB), so each version along a delta chain is not rebuilt from its base again, and an object
/// cache for blobs read twice (rename scoring, then line counts).
pub fn tune_for_diffs(repo: &mut gix::Repository) {
    repo.object_cache_size_if_unset(16 << 20);
    repo.objects.set_pack_cache(|| {
        Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(
            96 << 20,
        ))
    });
}

/// The line-count cache of this repository (see [`linecache`]), or none when `enabled` is false.
pub fn line_count_cache(repo: &gix::Repository, enabled: bool) -> linecache::LineCountCache {
    if !enabled {
        return linecache::LineCountCache::default();
    }
    let algorithm = config_string(repo, "diff.algorithm")
        .map_or_else(|| "myers".to_string(), |a| a.to_lowercase());
    linecache::LineCountCache::open(repo, &algorithm)
}

/// The blob pipeline (attributes, binary detection, conversion) shared by every step of one diff:
/// creating it reads the index and the attributes, so it is made once.
///
/// `.gitattributes` come from the work tree, as `git diff` takes them; gix's default would map
/// them through the index, whose loading (and checksum) costs more than a small diff.
pub fn blob_cache(repo: &gix::Repository) -> Result<gix::diff::blob::Platform> {
    use gix::worktree::stack::state::attributes::Source;
    let failed = |e: gix::Error| Error::failed("prepare the blob diff", e);
    let no_index = gix::index::State::new(repo.object_hash());
    let source = if repo.workdir().is_some() {
        Source::WorktreeThenIdMapping
    } else {
        Source::IdMapping
    };
    let attributes = repo
        .attributes_only(&no_index, source)
        .map_err(failed)?
        .detach();
    gix::diff::resource_cache(
        repo,
        gix::diff::blob::pipeline::Mode::ToGit,
        attributes,
        gix::diff::blob::pipeline::WorktreeRoots::default(),
    )
    .map_err(failed)
}

/// The file-level changes from `old` to `new` (commits), renames detected when asked, sorted as
/// git sorts them (by path).
pub fn tree_changes(
    repo: &gix::Repository,
    cache: &mut gix::diff::blob::Platform,
    old: ObjectId,
    new: ObjectId,
    renames: bool,
) -> Result<Vec<FileChange>> {
    let tree_of = |id: ObjectId| {
        repo.find_commit(id)
            .and_then(|c| c.tree())
            .map_err(|e| Error::failed(format!("read the tree of {id}"), e))
    };
    let (old_tree, new_tree) = (tree_of(old)?, tree_of(new)?);
    let mut options =
        gix::diff::Options::default().with_rewrites(renames.then(gix::diff::Rewrites::default));
    options.track_path();
    let mut changes = Vec::new();
    gix::diff::tree_with_rewrites(
        gix::objs::TreeRefIter::from_bytes(&old_tree.data, old_tree.id.kind()),
        gix::objs::TreeRefIter::from_bytes(&new_tree.data, new_tree.id.kind()),
        cache,
        &mut Default::default(),
        &repo.objects,
        |change: gix::diff::tree_with_rewrites::ChangeRef<'_>| {
            changes.push(change.into_owned());
            Ok(std::ops::ControlFlow::Continue(()))
        },
        options.into(),
    )
    .map_err(|e| Error::failed(format!("diff {old}..{new}"), format!("{e:?}")))?;
    let mut out = Vec::new();
    let null = ObjectId::null(repo.object_hash());
    for change in changes {
        use gix::object::tree::diff::ChangeDetached as C;
        let (mode, id) = change.entry_mode_and_id();
        let (old_mode, old_id) = change.source_entry_mode_and_id();
        let status = match change {
            _ if mode.is_tree() => continue,
            C::Addition { .. } => Status::Added,
            C::Deletion { .. } => Status::Deleted,
            C::Modification { .. }
                if old_mode.kind() != mode.kind() && (old_mode.is_link() || mode.is_link()) =>
            {
                Status::TypeChanged
            }
            C::Modification { .. } => Status::Modified,
            C::Rewrite { copy: false, .. } if old_id == id => Status::Renamed(100),
            C::Rewrite { copy: false, .. } => Status::Renamed(similarity::similarity_index(
                &blob_bytes(repo, old_id.to_owned())?,
                &blob_bytes(repo, id.to_owned())?,
            )),
            C::Rewrite { .. } => continue,
        };
        let file = FileChange {
            status,
            old_path: change.source_location().to_string(),
            path: change.location().to_string(),
            old_id: old_id.to_owned(),
            new_id: id.to_owned(),
            old_mode: u32::from(old_mode.value()),
            new_mode: u32::from(mode.value()),
        };
        // An added file has no old side, a deleted one no new side: git's zero mode and id.
        out.push(match file.status {
            Status::Added => file.addition(null),
            Status::Deleted => file.deletion(null),
            _ => file,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The object kind of a tree entry mode, for the blob pipeline.
pub(crate) fn entry_kind(mode: u32) -> gix::object::tree::EntryKind {
    if mode & 0o170000 == 0o120000 {
        gix::object::tree::EntryKind::Link
    } else if mode & 0o111 != 0 {
        gix::object::tree::EntryKind::BlobExecutable
    } else {
        gix::object::tree::EntryKind::Blob
    }
}

/// The size of a blob (0 for the null id of an absent side).
pub fn blob_size(repo: &gix::Repository, id: ObjectId) -> Result<u64> {
    if id.is_null() {
        return Ok(0);
    }
    repo.find_header(id)
        .map(|h| h.size())
        .map_err(|e| Error::failed(format!("read blob {id}"), e))
}

fn blob_bytes(repo: &gix::Repository, id: ObjectId) -> Result<Vec<u8>> {
    repo.find_object(id)
        .map(|o| o.data.clone())
        .map_err(|e| Error::failed(format!("read blob {id}"), e))
}

/// Both sides of `change` set in the blob pipeline `cache` (attributes, binary detection), and
/// what diffing them takes: the one preparation of [`line_counts`] and the patch writer.
pub(crate) fn prepare_diff<'c>(
    repo: &gix::Repository,
    cache: &'c mut gix::diff::blob::Platform,
    change: &FileChange,
) -> Result<gix::diff::blob::platform::prepare_diff::Outcome<'c>> {
    use gix::diff::blob::ResourceKind;
    for (id, mode, path, side) in [
        (
            change.old_id,
            change.old_mode,
            &change.old_path,
            ResourceKind::OldOrSource,
        ),
        (
            change.new_id,
            change.new_mode,
            &change.path,
            ResourceKind::NewOrDestination,
        ),
    ] {
        cache
            .set_resource(
                id,
                entry_kind(mode),
                path.as_bytes().as_bstr(),
                side,
                &repo.objects,
            )
            .map_err(|e| Error::failed(format!("read {path}"), format!("{e:?}")))?;
    }
    cache
        .prepare_diff()
        .map_err(|e| Error::failed(format!("diff {}", change.path), format!("{e:?}")))
}

/// Lines added and removed in one file, or `None` when either side is binary.
pub type LineCounts = Option<(u32, u32)>;

/// Counts lines for each change with gix's blob pipeline (attributes, binary detection) and its
/// built-in diff, the way `git diff --numstat` counts them.
pub fn line_counts(
    repo: &gix::Repository,
    cache: &mut gix::diff::blob::Platform,
    counted: &mut linecache::LineCountCache,
    changes: &[FileChange],
) -> Result<Vec<LineCounts>> {
    use gix::diff::blob::platform::prepare_diff::Operation;
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        if let Some(counts) = counted.get(change.old_id, change.new_id) {
            out.push(counts);
            continue;
        }
        let prepared = prepare_diff(repo, cache, change)?;
        let counts = match prepared.operation {
            Operation::InternalDiff { algorithm } => {
                // Lines keep their terminators, as git compares them: a lost final newline or a
                // CRLF turned LF is a changed line.
                let input = gix::diff::blob::InternedInput::new(
                    prepared.old.intern_source(),
                    prepared.new.intern_source(),
                );
                let diff = gix::diff::blob::diff_with_slider_heuristics(algorithm, &input);
                Some((diff.count_additions(), diff.count_removals()))
            }
            Operation::ExternalCommand { .. } | Operation::SourceOrDestinationIsBinary => None,
        };
        counted.insert(change.old_id, change.new_id, counts);
        out.push(counts);
    }
    Ok(out)
}

/// A path as git prints it with `core.quotePath` (the default): in double quotes with C escapes
/// (octal for bytes outside printable ASCII) when it holds a control character, a quote, a
/// backslash, or, with `quote_non_ascii`, any non-ASCII byte; as is otherwise.
pub fn quote_path(path: &str, quote_non_ascii: bool) -> String {
    let needs =
        |b: u8| b < 0x20 || b == 0x7f || b == b'"' || b == b'\\' || (quote_non_ascii && b >= 0x80);
    if !path.bytes().any(needs) {
        return path.to_string();
    }
    // Bytes, not chars: a non-ASCII character left unquoted goes out as its own bytes.
    let mut out = vec![b'"'];
    for b in path.bytes() {
        let escape = match b {
            0x07 => "\\a",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0b => "\\v",
            0x0c => "\\f",
            b'\r' => "\\r",
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b if needs(b) => &format!("\\{b:03o}"),
            b => {
                out.push(b);
                continue;
            }
        };
        out.extend_from_slice(escape.as_bytes());
    }
    out.push(b'"');
    String::from_utf8_lossy(&out).into_owned()
}

/// Keeps the changes under `paths`. As in git, whose rename detection sees only the paths it was
/// given, a rename with one side outside them is a deletion or an addition of the side inside.
pub fn limit_to_paths(
    changes: Vec<FileChange>,
    paths: &[String],
    hash: gix::hash::Kind,
) -> Vec<FileChange> {
    let inside = |path: &str| paths.iter().any(|p| under(path, p));
    let null = ObjectId::null(hash);
    let mut kept = Vec::new();
    for change in changes {
        let (old_in, new_in) = (inside(&change.old_path), inside(&change.path));
        match change.status {
            Status::Renamed(_) if old_in && !new_in => kept.push(change.deletion(null)),
            Status::Renamed(_) if new_in && !old_in => kept.push(change.addition(null)),
            _ if old_in || new_in => kept.push(change),
            _ => {}
        }
    }
    kept.sort_by(|a, b| a.path.cmp(&b.path));
    kept
}

fn under(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    prefix.is_empty() || path == prefix || path.starts_with(&format!("{prefix}/"))
}

/// git's `core.quotePath` (default true): whether non-ASCII paths are quoted in its output.
pub fn quotes_non_ascii(repo: &gix::Repository) -> bool {
    config_bool(repo, "core.quotePath").unwrap_or(true)
}

/// `spec` resolved and peeled to a commit, with git's wording for each failure.
pub fn resolve_to_commit(repo: &gix::Repository, spec: &str) -> Result<ObjectId> {
    let id = repo
        .rev_parse_single(spec)
        .map_err(|e| Error::failed(format!("resolve {spec:?}"), e))?;
    let commit = id
        .object()
        .and_then(|o| o.peel_to_commit())
        .map_err(|e| Error::BadRevision(format!("{spec:?} is not a commit: {e}")))?;
    Ok(commit.id)
}

/// Who answers here: `user.email`, else the email git would give a commit's author
/// (`GIT_AUTHOR_EMAIL`, `author.email`); `None` when neither is configured.
pub fn user_email(repo: &gix::Repository) -> Option<String> {
    config_string(repo, "user.email")
        .or_else(|| Some(repo.author()?.ok()?.email.to_string()))
        .filter(|email| !email.is_empty())
}

/// A string from the repository's configuration (`section.key`).
pub fn config_string(repo: &gix::Repository, key: &str) -> Option<String> {
    repo.config_snapshot().string(key).map(|s| s.to_string())
}

/// Every value of a multi-valued key of the repository's configuration, in order (`None` when
/// the key is not set at all).
pub fn config_strings(repo: &gix::Repository, key: &str) -> Option<Vec<String>> {
    repo.config_snapshot()
        .strings(key)
        .map(|values| values.iter().map(|v| v.to_string()).collect())
}

/// A whole number from the repository's configuration, with git's `k`, `m` and `g` suffixes
/// (`None` when unset or not a number).
pub fn config_u64(repo: &gix::Repository, key: &str) -> Option<u64> {
    let text = config_string(repo, key)?;
    let text = text.trim();
    let (digits, scale) = match text.char_indices().last()? {
        (at, 'k' | 'K') => (&text[..at], 1u64 << 10),
        (at, 'm' | 'M') => (&text[..at], 1 << 20),
        (at, 'g' | 'G') => (&text[..at], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

/// A boolean from the repository's configuration (`section.key`).
pub fn config_bool(repo: &gix::Repository, key: &str) -> Option<bool> {
    repo.config_snapshot().boolean(key)
}

/// `git <args>` in `dir`, its output captured: whether it succeeded, its stdout and its stderr
/// (for a push or a fetch, whose transport gitoxide does not drive here).
pub fn run_git_captured(
    dir: &std::path::Path,
    args: &[&str],
) -> std::io::Result<(bool, String, String)> {
    let output = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()?;
    Ok((
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    ))
}

/// What git prints running `args` in `dir`; when it fails, the error says what it was `doing`.
fn git_stdout(dir: &std::path::Path, args: &[&str], doing: impl Into<String>) -> Result<String> {
    let command = args.first().copied().unwrap_or_default();
    let (ok, out, err) =
        run_git_captured(dir, args).map_err(|e| Error::failed(format!("run git {command}"), e))?;
    match ok {
        true => Ok(out),
        false => Err(Error::failed(doing, err.trim())),
    }
}

/// The commit `remote` (a remote's name or URL) has at `reference` (a full ref name), asked of
/// the remote (`git ls-remote`); `None` when it has no such ref.
pub fn remote_tip(
    dir: &std::path::Path,
    remote: &str,
    reference: &str,
) -> Result<Option<ObjectId>> {
    let doing = format!("ask {remote} for {reference}");
    let out = git_stdout(dir, &["ls-remote", "--", remote, reference], doing)?;
    // ls-remote matches a pattern's tail: only the exact name counts.
    Ok(out
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .find(|(_, name)| *name == reference)
        .and_then(|(id, _)| repo::parse_id(id)))
}

/// The commit the last `git fetch` brought (the first line of `FETCH_HEAD`).
pub fn fetched_tip(repo: &gix::Repository) -> Option<ObjectId> {
    let bytes = ucg_store::read_file(repo.git_dir().join("FETCH_HEAD")).ok()?;
    let hex = bytes.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    ObjectId::from_hex(&bytes[..hex]).ok()
}

/// The tree the index would commit, as `git write-tree` writes it in the work tree `dir` (an
/// index with unmerged paths has none).
pub fn index_tree(dir: &std::path::Path) -> Result<ObjectId> {
    let out = git_stdout(dir, &["write-tree"], "write the index's tree")?;
    repo::parse_id(out.trim())
        .ok_or_else(|| Error::unreadable(format!("git write-tree printed {out:?}")))
}

/// Whether `tip` brings a commit beyond `known` (commit ids: what the receiving side has) that is
/// one of `branch`'s own — reachable from `branch`, and from none of `bases` (the branches it
/// grew from). A push carrying an epic's work is judged as the epic's, whatever it is named.
pub fn carries_commits_of(
    repo: &gix::Repository,
    dir: &std::path::Path,
    tip: &str,
    known: &[String],
    branch: ObjectId,
    bases: &[String],
) -> Result<bool> {
    let own: std::collections::HashSet<ObjectId> =
        new_commits(repo, dir, &branch.to_string(), bases)?
            .into_iter()
            .collect();
    if own.is_empty() {
        return Ok(false);
    }
    let hidden: Vec<String> = known.iter().chain(bases).cloned().collect();
    Ok(new_commits(repo, dir, tip, &hidden)?
        .iter()
        .any(|id| own.contains(id)))
}

/// The commits `tip` reaches that none of `known` does (commit ids, or `--remotes=<remote>`),
/// newest first — the commits a push or a rebase carries. Walked here when `known` names
/// commits this repository has; else (a pattern, or a push being received, whose commits wait
/// where gitoxide does not look) as `git rev-list` lists them in `dir`.
pub fn new_commits(
    repo: &gix::Repository,
    dir: &std::path::Path,
    tip: &str,
    known: &[String],
) -> Result<Vec<ObjectId>> {
    let ids: Option<Vec<ObjectId>> = known.iter().map(|k| repo::parse_id(k)).collect();
    if let (Some(hidden), Some(tip)) = (ids, repo::parse_id(tip)) {
        let walked = repo
            .rev_walk([tip])
            .with_hidden(hidden)
            .all()
            .ok()
            .and_then(|walk| {
                walk.map(|info| info.ok().map(|i| i.id))
                    .collect::<Option<Vec<_>>>()
            });
        if let Some(walked) = walked {
            return Ok(walked);
        }
    }
    let mut args = vec!["rev-list", tip, "--not"];
    args.extend(known.iter().map(String::as_str));
    let out = git_stdout(dir, &args, format!("list the commits of {tip}"))?;
    out.lines()
        .map(|line| {
            repo::parse_id(line.trim())
                .ok_or_else(|| Error::unreadable(format!("git rev-list printed {line:?}")))
        })
        .collect()
}

/// Whether `ancestor` is `descendant` or one of its ancestors: here, else as git sees it in `dir`
/// (in a hook of a push it receives, the pushed commits are visible to git and not to gitoxide).
pub fn is_ancestor_by_git(
    repo: &gix::Repository,
    dir: &std::path::Path,
    ancestor: &str,
    descendant: &str,
) -> Result<bool> {
    if let (Some(a), Some(d)) = (repo::parse_id(ancestor), repo::parse_id(descendant)) {
        if let Ok(known) = is_ancestor(repo, a, d) {
            return Ok(known);
        }
    }
    let (ok, _, err) =
        run_git_captured(dir, &["merge-base", "--is-ancestor", ancestor, descendant])
            .map_err(|e| Error::failed("run git merge-base", e))?;
    match (ok, err.trim()) {
        (true, _) => Ok(true),
        (false, "") => Ok(false),
        (false, err) => Err(Error::failed("compare two commits", err)),
    }
}
