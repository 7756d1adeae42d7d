//! Finding a repository and the small questions asked of it outside the diff machinery: its
//! directories, HEAD, a configuration integer, whether a commit made progress.

use crate::{Error, Result};
use gix::ObjectId;
use std::path::{Path, PathBuf};

pub use gix::Repository;

/// The repository around `dir`, by plain upward discovery (no environment overrides).
pub fn discover(dir: &Path) -> Result<Repository> {
    refuse_unreadable_head(dir).map_err(Error::NoRepository)?;
    gix::discover(dir).map_err(|e| Error::NoRepository(e.to_string()))
}

/// The largest HEAD file taken: a symbolic ref or an object id, with room to spare.
const MAX_HEAD_BYTES: u64 = 4096;

/// Checks the HEAD file discovery would read, before gitoxide reads it whole: one that is not a
/// regular file of a few bytes (a link to /dev/zero grows the reader without end, a FIFO
/// blocks it) is refused, as git refuses such a repository at once. The git directory is the
/// one `GIT_DIR` names, else the nearest `.git` (a directory, or a `gitdir:` file's target) or
/// bare repository up from `cwd`.
fn refuse_unreadable_head(cwd: &Path) -> std::result::Result<(), String> {
    let git_dir = match std::env::var_os("GIT_DIR") {
        Some(dir) => Some(cwd.join(dir)),
        None => cwd.ancestors().find_map(|dir| {
            let dot_git = dir.join(".git");
            let meta = std::fs::metadata(&dot_git).ok();
            match meta {
                Some(meta) if meta.is_dir() => Some(dot_git),
                Some(_) => {
                    let text = ucg_store::read_text(&dot_git).ok()?;
                    let target = text.strip_prefix("gitdir:")?.trim().to_string();
                    Some(dir.join(target))
                }
                None if dir.join("objects").is_dir() && dir.join("refs").is_dir() => {
                    Some(dir.to_path_buf())
                }
                None => None,
            }
        }),
    };
    let Some(head) = git_dir.map(|dir| dir.join("HEAD")) else {
        return Ok(());
    };
    match std::fs::metadata(&head) {
        Ok(meta) if !meta.is_file() || meta.len() > MAX_HEAD_BYTES => Err(format!(
            "{} is not a HEAD file (not a regular file of a few bytes): repair it (git symbolic-ref HEAD refs/heads/<branch> after removing it)",
            head.display()
        )),
        _ => Ok(()),
    }
}

/// The repository around `cwd`, honouring `GIT_DIR`, `GIT_WORK_TREE` and the rest of git's
/// environment, as a hook run by git must.
pub fn discover_from_environment(cwd: &Path) -> Result<Repository> {
    discover_with_command_line_config(cwd)
        .map_err(|e| Error::NoRepository(broken_git_file(cwd).unwrap_or_else(|| e.to_string())))
}

/// A `.git` file (a linked worktree's, a submodule's) whose `gitdir:` names a directory that is
/// gone: discovery fails on it, and saying so beats "could not find a repository".
fn broken_git_file(cwd: &Path) -> Option<String> {
    let dot_git = cwd
        .ancestors()
        .map(|dir| dir.join(".git"))
        .find(|p| p.exists() || p.is_symlink())?;
    if !dot_git.is_file() {
        return None;
    }
    let text = ucg_store::read_text(&dot_git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let resolved = dot_git.parent().unwrap_or(Path::new(".")).join(target);
    (!resolved.is_dir()).then(|| {
        format!(
            "{} points at {target}, which does not exist (the repository or worktree was moved or deleted; `git worktree prune` in the main repository forgets a deleted worktree)",
            dot_git.display()
        )
    })
}

fn discover_with_command_line_config(cwd: &Path) -> std::result::Result<Repository, String> {
    refuse_unreadable_head(cwd)?;
    let overrides = command_line_config();
    if overrides.is_empty() {
        return gix::discover_with_environment_overrides(cwd).map_err(|e| e.to_string());
    }
    // `git -c key=value ucg …` reaches us in the environment, as it reaches every git child.
    let mut trust = gix::sec::trust::Mapping::<gix::open::Options>::default();
    trust.full = trust.full.cli_overrides(overrides.clone());
    trust.reduced = trust.reduced.cli_overrides(overrides);
    gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
        cwd,
        Default::default(),
        trust,
    )
    .map(Into::into)
    .map_err(|e| e.to_string())
}

/// The configuration git passes its children from its command line: `GIT_CONFIG_PARAMETERS`
/// (`git -c`), then `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`
/// (`git --config-env`, or set by hand), as `key=value` (a bare key is a true boolean).
fn command_line_config() -> Vec<String> {
    let mut found = std::env::var("GIT_CONFIG_PARAMETERS")
        .map(|text| parse_config_parameters(&text))
        .unwrap_or_default();
    let count = std::env::var("GIT_CONFIG_COUNT")
        .ok()
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    for n in 0..count {
        let key = std::env::var(format!("GIT_CONFIG_KEY_{n}")).unwrap_or_default();
        let value = std::env::var(format!("GIT_CONFIG_VALUE_{n}")).unwrap_or_default();
        if !key.is_empty() {
            found.push(format!("{key}={value}"));
        }
    }
    found
}

/// `GIT_CONFIG_PARAMETERS` as git writes it: shell single-quoted items separated by spaces, each
/// `'key'='value'`, `'key'` or the older `'key=value'` (a quote inside is written `'\''`).
pub(crate) fn parse_config_parameters(text: &str) -> Vec<String> {
    /// One shell-quoted word from `at`: its text and where it ends.
    fn word(bytes: &[char], mut at: usize) -> Option<(String, usize)> {
        let mut out = String::new();
        let mut quoted = false;
        while at < bytes.len() {
            match (bytes[at], quoted) {
                ('\'', _) => quoted = !quoted,
                ('\\', false) if at + 1 < bytes.len() => {
                    at += 1;
                    out.push(bytes[at]);
                }
                (' ' | '=', false) => break,
                (c, _) => out.push(c),
            }
            at += 1;
        }
        (!quoted).then_some((out, at))
    }
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        if chars[at] == ' ' {
            at += 1;
            continue;
        }
        let Some((key, end)) = word(&chars, at) else {
            break;
        };
        at = end;
        if chars.get(at) == Some(&'=') {
            let Some((value, end)) = word(&chars, at + 1) else {
                break;
            };
            at = end;
            found.push(format!("{key}={value}"));
        } else {
            found.push(key);
        }
    }
    found
}

/// The work tree and git directory around `cwd`, found with a few `stat` calls: `.git` as a
/// directory or as a `gitdir:` file (linked worktrees, submodules), stopping at
/// `GIT_CEILING_DIRECTORIES`. `GIT_DIR` in the environment hands over to gix's full discovery.
/// Bare repositories have no run: `None`.
pub fn work_tree_around(cwd: &Path) -> Option<(PathBuf, PathBuf)> {
    if std::env::var_os("GIT_DIR").is_some() {
        let repo = discover_from_environment(cwd).ok()?;
        let work_tree = std::path::absolute(repo.workdir()?).ok()?;
        let git_dir = std::path::absolute(repo.git_dir()).ok()?;
        return Some((work_tree, git_dir));
    }
    let ceilings: Vec<PathBuf> = std::env::var_os("GIT_CEILING_DIRECTORIES")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| p.is_absolute())
                .collect()
        })
        .unwrap_or_default();
    for (depth, dir) in cwd.ancestors().enumerate() {
        // Like git: a ceiling is never entered from below (the start itself is searched).
        if depth > 0 && ceilings.iter().any(|c| c == dir) {
            return None;
        }
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dot_git
        } else {
            let text = ucg_store::read_text(&dot_git).ok()?;
            dir.join(text.strip_prefix("gitdir:")?.trim())
        };
        let head = git_dir.join("HEAD");
        return head.is_file().then(|| (dir.to_path_buf(), git_dir));
    }
    None
}

/// Every file git's configuration for `repo` was read from, or would be read from were it there:
/// the files its sections came from (includes among them), the standard locations (system,
/// global, user, the repository's `config` and `config.worktree`) and each `include.path` and
/// `includeIf.*.path` target, as absolute paths — what a cache of a decision that reads the
/// configuration stamps. The second list: the files sections were actually read from. `None`
/// when an include names a file this cannot place for certain (`~user/…`, `%(prefix)/…`): a
/// cache must then not stand for the configuration at all.
pub fn config_files(repo: &Repository) -> Option<(Vec<PathBuf>, Vec<PathBuf>)> {
    use gix::config::Source;
    use std::os::unix::ffi::OsStrExt;
    let config = repo.config_snapshot();
    let file = config.plumbing();
    let mut read = Vec::new();
    let mut files = Vec::new();
    for section in file.sections() {
        let Some(source_path) = section.meta().path.as_deref() else {
            continue;
        };
        let source_path = std::path::absolute(source_path).unwrap_or_else(|_| source_path.into());
        let name = section.header().name();
        if name.eq_ignore_ascii_case(b"include") || name.eq_ignore_ascii_case(b"includeIf") {
            for value in section.values("path") {
                let text = value.as_slice();
                let target = if text == b"~" || text.starts_with(b"~/") {
                    let home = std::env::var_os("HOME")?;
                    let rest = text[1..].strip_prefix(b"/").unwrap_or(&text[1..]);
                    PathBuf::from(home).join(std::ffi::OsStr::from_bytes(rest))
                } else if text.starts_with(b"~") || text.starts_with(b"%(prefix)") {
                    // Another user's home, git's install prefix: not placed here for certain.
                    return None;
                } else {
                    let value = Path::new(std::ffi::OsStr::from_bytes(text));
                    source_path.parent().unwrap_or(Path::new("/")).join(value)
                };
                files.push(target);
            }
        }
        if !read.contains(&source_path) {
            read.push(source_path);
        }
    }
    let mut env = |name: &str| std::env::var_os(name);
    for source in [Source::System, Source::Git, Source::User] {
        files.extend(source.storage_location(&mut env));
    }
    files.push(repo.common_dir().join("config"));
    files.push(repo.git_dir().join("config.worktree"));
    files.extend(read.iter().cloned());
    let mut files: Vec<PathBuf> = files
        .into_iter()
        .filter_map(|path| std::path::absolute(path).ok())
        .collect();
    files.sort();
    files.dedup();
    Some((files, read))
}

/// The repository whose git directory is `git_dir`.
pub fn open(git_dir: &Path) -> Option<Repository> {
    let head = std::fs::metadata(git_dir.join("HEAD")).ok()?;
    (head.is_file() && head.len() <= MAX_HEAD_BYTES).then_some(())?;
    gix::open(git_dir).ok()
}

/// The absolute git common directory of the repository around `cwd` (shared by every worktree).
pub fn common_dir_around(cwd: &Path) -> Option<PathBuf> {
    let repo = discover(cwd).ok()?;
    std::path::absolute(repo.common_dir()).ok()
}

/// The commit HEAD points at, when there is one.
pub fn head(repo: &Repository) -> Option<ObjectId> {
    repo.head_id().ok().map(|id| id.detach())
}

/// The commit HEAD points at in the repository around `cwd`.
pub fn head_around(cwd: &Path) -> Option<ObjectId> {
    head(&discover(cwd).ok()?)
}

/// The ref `name` finally stands for: a symbolic ref followed to the ref it aliases (`refs/heads/
/// trunk` → `refs/heads/main`), else `name` itself.
pub fn alias_target(repo: &Repository, name: &str) -> String {
    let mut current = name.to_string();
    // A chain longer than this is a loop, or not one git makes.
    for _ in 0..8 {
        let Ok(Some(reference)) = repo.try_find_reference(current.as_str()) else {
            break;
        };
        match &reference.inner.target {
            gix::refs::Target::Symbolic(next) => current = next.as_bstr().to_string(),
            gix::refs::Target::Object(_) => break,
        }
    }
    current
}

/// The object the ref `name` points at, peeled (`None` when there is no such ref).
pub(crate) fn ref_tip(repo: &Repository, name: &str) -> Result<Option<ObjectId>> {
    let doing = || format!("read {name}");
    let found = repo.try_find_reference(name);
    let Some(mut reference) = found.map_err(|e| Error::failed(doing(), e))? else {
        return Ok(None);
    };
    let tip = reference
        .peel_to_id()
        .map_err(|e| Error::failed(doing(), e))?;
    Ok(Some(tip.detach()))
}

/// A full hexadecimal object id.
pub fn parse_id(text: &str) -> Option<ObjectId> {
    ObjectId::from_hex(text.as_bytes()).ok()
}

/// `rev` peeled to the commit it names.
pub fn commit_of(repo: &Repository, rev: &str) -> Result<ObjectId> {
    repo.rev_parse_single(rev)
        .map_err(|e| Error::BadRevision(format!("{rev:?}: {e}")))?
        .object()
        .map_err(Error::unreadable)?
        .peel_to_commit()
        .map(|commit| commit.id)
        .map_err(|e| Error::BadRevision(format!("{rev:?} is not a commit: {e}")))
}

/// An integer from the repository's configuration (`section.key`).
pub fn config_integer(repo: &Repository, key: &str) -> Option<i64> {
    repo.config_snapshot().integer(key)
}

/// Whether `head` is progress since `prior` in the repository around `cwd`: a descendant of it
/// whose tree differs (an empty commit, an amend or a revert to the same tree, or another line of
/// history is not).
pub fn changed_descendant(cwd: &Path, prior: ObjectId, head: ObjectId) -> bool {
    if prior == head {
        return false;
    }
    let Ok(repo) = discover(cwd) else {
        return false;
    };
    let tree_of = |id: ObjectId| {
        repo.find_commit(id)
            .ok()
            .and_then(|c| c.tree_id().ok())
            .map(|t| t.detach())
    };
    let (Some(prior_tree), Some(head_tree)) = (tree_of(prior), tree_of(head)) else {
        return false;
    };
    prior_tree != head_tree && super::is_ancestor(&repo, prior, head).unwrap_or(false)
}

/// Every work tree of the repository, absolute: the main one (unless bare) and each linked
/// worktree whose directory is still there. The hooks are shared by all of them.
pub fn work_trees(repo: &Repository) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = repo
        .main_repo()
        .ok()
        .and_then(|main| main.workdir().map(Path::to_path_buf))
        .into_iter()
        .collect();
    let linked = repo.worktrees().unwrap_or_default();
    roots.extend(
        linked
            .iter()
            .filter_map(|l| l.base().ok())
            .filter(|b| b.is_dir()),
    );
    roots
        .into_iter()
        .filter_map(|root| std::path::absolute(root).ok())
        .collect()
}

/// The work trees (main and linked) whose HEAD is on the branch `full_name` (`refs/heads/…`).
pub fn work_trees_on_branch(repo: &Repository, full_name: &str) -> Vec<PathBuf> {
    let on_branch = |repo: &Repository| {
        repo.head_name()
            .ok()
            .flatten()
            .is_some_and(|name| name.as_bstr() == full_name)
    };
    let mut found = Vec::new();
    if let Ok(main) = repo.main_repo() {
        if let Some(dir) = main.workdir().filter(|_| on_branch(&main)) {
            found.push(dir.to_path_buf());
        }
    }
    for linked in repo.worktrees().unwrap_or_default() {
        let Ok(base) = linked.base() else { continue };
        if linked
            .into_repo_with_possibly_inaccessible_worktree()
            .is_ok_and(|linked| on_branch(&linked))
        {
            found.push(base);
        }
    }
    found
        .into_iter()
        .filter_map(|root| std::path::absolute(root).ok())
        .collect()
}

/// The short name of the branch HEAD is on (`None` when detached or unreadable).
pub fn current_branch(repo: &Repository) -> Option<String> {
    repo.head_name()
        .ok()
        .flatten()
        .map(|name| name.shorten().to_string())
}

/// Of `paths` (absolute, or relative to the current directory), those inside the work tree that
/// git does not track: neither in the index nor a directory holding an indexed file. A file the
/// index lists shows in `git status` when it changes; the others do not (at most as `??` for a
/// whole directory). Paths outside the work tree, and everything when the index cannot be read,
/// are left out.
pub fn untracked(repo: &Repository, paths: &[PathBuf]) -> Vec<PathBuf> {
    let Some(workdir) = repo.workdir().and_then(|w| std::path::absolute(w).ok()) else {
        return Vec::new();
    };
    let Ok(index) = repo.index_or_empty() else {
        return Vec::new();
    };
    let tracked: Vec<&gix::bstr::BStr> = index.entries().iter().map(|e| e.path(&index)).collect();
    paths
        .iter()
        .filter(|path| {
            let Some(relative) = std::path::absolute(path)
                .ok()
                .and_then(|p| p.strip_prefix(&workdir).ok().map(Path::to_path_buf))
            else {
                return false;
            };
            let Some(relative) = relative.to_str().map(|r| r.replace('\\', "/")) else {
                return false;
            };
            let under = format!("{relative}/");
            !tracked
                .iter()
                .any(|t| *t == relative.as_str() || t.starts_with(under.as_bytes()))
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn command_line_configuration_as_git_passes_it() {
        assert_eq!(
            super::parse_config_parameters(
                "'ucg.gate.sources'='red' 'core.bare' 'a.b=old style' 'x.y'='it'\\''s'"
            ),
            [
                "ucg.gate.sources=red",
                "core.bare",
                "a.b=old style",
                "x.y=it's"
            ]
        );
        assert!(super::parse_config_parameters("").is_empty());
        assert!(super::parse_config_parameters("'unterminated").is_empty());
    }
}
