//! The commit hooks' remembered pass (`<git dir>/ucg/gate-cache`), in the store's line-cache
//! layout: the work tree, the environment that moves the run or git's configuration, the
//! artifact directory (its stamp, when the stamp can stand for its escalation names) and those
//! names, then the stamps of every file the gate's decision read. What may be remembered, and
//! when, is the hook's (`commands/hooks/pass_cache.rs`); this is what is written and how it is
//! judged fresh.

use crate::gate::escalation_names;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use ucg_store::stamp::{
    all_stamps_match, decode_line_cache, encode_line_cache, parse_stamp_line, stamp_line,
};
use ucg_store::{Stamp, Stamper};

/// Its name under `<git dir>/ucg/`.
pub const FILE: &str = "gate-cache";

/// The cache's first line: its layout and the version that wrote it (another version may decide
/// otherwise).
pub const HEADER: &str = concat!("git-ucg gate cache 5 ", env!("CARGO_PKG_VERSION"));
/// The fields after the header: the work tree, the keyed environment, the artifact directory's
/// line, its names line and the contents line.
const FIELDS: usize = 1 + KEYED_ENV.len() + 3;

/// The largest file whose content the cache hashes besides stamping it: the registry, the
/// answers and the sidecars of a run are small, and a write through a shared mapping need not
/// move a file's change time at once, while it always changes the content.
const HASHED_BYTES: u64 = 256 << 10;

/// The environment that moves the run or git's configuration: its values are part of the cache.
const KEYED_ENV: [&str; 8] = [
    crate::IMPL_ARTIFACTS_ENV,
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CEILING_DIRECTORIES",
];

/// The environment's line for each of [`KEYED_ENV`]: `-` when unset, else `=` and the value.
fn env_lines() -> Vec<Vec<u8>> {
    KEYED_ENV
        .iter()
        .map(|name| match std::env::var_os(name) {
            Some(value) => [b"=".as_slice(), value.as_bytes()].concat(),
            None => b"-".to_vec(),
        })
        .collect()
}

/// Whether the cache at `bytes` is this version's, about the work tree `root` and this
/// environment, with every stamp still matching.
pub fn fresh(bytes: &[u8], root: &Path) -> bool {
    let Some((fields, stamps)) = decode_line_cache(bytes, HEADER, FIELDS) else {
        return false;
    };
    let mut lines = fields.into_iter();
    if lines.next() != Some(root.as_os_str().as_bytes()) {
        return false;
    }
    if !env_lines().iter().all(|line| lines.next() == Some(line)) {
        return false;
    }
    // The artifact directory: its escalation names, listed again unless the directory's stamp
    // says nothing in it changed (an active run's heartbeat and turn counters move the stamp, not
    // the names).
    let (Some((stamp, dir_bytes)), Some(names), Some(contents)) = (
        lines.next().and_then(parse_dir_line),
        lines.next(),
        lines.next(),
    ) else {
        return false;
    };
    let dir = root.join(std::ffi::OsStr::from_bytes(dir_bytes));
    if !stamps_what_a_decision_reads(&stamps, dir_bytes, names) {
        return false;
    }
    // A pass is remembered with no directory only when nothing was there (anything else in its
    // place blocks): it holds while nothing is.
    if names == b"-" && std::fs::symlink_metadata(&dir).is_ok() {
        return false;
    }
    let unchanged = stamp.is_some_and(|stamp| Stamper::default().stamp(&dir) == stamp);
    if !unchanged && names != names_line(escalation_names(&dir).as_deref()).as_slice() {
        return false;
    }
    // The contents last: reading them costs more than a stamp.
    !stamps.is_empty()
        && all_stamps_match(&stamps, root)
        && contents == contents_line(&dir, names).as_slice()
}

/// Whether `stamps` hold what every decision about the artifact directory `dir` reads: the
/// registry, the answers and each escalation sidecar its `names` line lists. A cache without them
/// (cut, forged, or written by a decision that read less) stands for no decision.
fn stamps_what_a_decision_reads(stamps: &[&[u8]], dir: &[u8], names: &[u8]) -> bool {
    let stamped: Vec<&[u8]> = stamps
        .iter()
        .filter_map(|line| parse_stamp_line(line).map(|(_, path)| path))
        .collect();
    read_in_the_directory(names).all(|name| {
        let path = [dir, b"/", name.as_bytes()].concat();
        stamped.contains(&path.as_slice())
    })
}

/// The files every decision reads in the artifact directory whose `names` line this is: the
/// registry, the answers, each escalation sidecar listed.
fn read_in_the_directory(names: &[u8]) -> impl Iterator<Item = &str> {
    let sidecars = names
        .strip_prefix(b"=")
        .unwrap_or_default()
        .split(|b| *b == b'/')
        .filter_map(|name| std::str::from_utf8(name).ok())
        .filter(|name| crate::escalations::sidecar_story(name).is_some());
    [crate::reds::REGISTRY_FILE, crate::decisions::DECISIONS_FILE]
        .into_iter()
        .chain(sidecars)
}

/// The contents line: for each file [`read_in_the_directory`] names, in order, the first 16 bytes
/// of its SHA-256 in hex, `0` when it is absent or cannot be read, `-` when it is larger than
/// [`HASHED_BYTES`] (its stamp alone stands for it).
fn contents_line(dir: &Path, names: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    let hashes: Vec<String> = read_in_the_directory(names)
        .map(|name| {
            let path = dir.join(name);
            match std::fs::metadata(&path) {
                Ok(meta) if meta.len() > HASHED_BYTES => "-".to_string(),
                _ => match ucg_store::read_file(&path) {
                    Ok(bytes) => ucg_store::hex(&sha2::Sha256::digest(&bytes)[..16]),
                    Err(_) => "0".to_string(),
                },
            }
        })
        .collect();
    hashes.join(" ").into_bytes()
}

/// The artifact directory's line: its stamp line when the stamp can stand for its names, else
/// `? ` and its path.
fn parse_dir_line(line: &[u8]) -> Option<(Option<Stamp>, &[u8])> {
    match line.strip_prefix(b"? ") {
        Some(path) => Some((None, path)),
        None => parse_stamp_line(line).map(|(stamp, path)| (Some(stamp), path)),
    }
}

/// The line for the artifact directory's escalation names: `-` when it is not a directory, else
/// `=` and the names joined by `/` (which no name holds).
fn names_line(names: Option<&[String]>) -> Vec<u8> {
    match names {
        Some(names) => format!("={}", names.join("/")).into_bytes(),
        None => b"-".to_vec(),
    }
}

/// The cache for a pass about `root` in this environment: `impl_dir` (relative to `root` where
/// it lies inside) with `dir_stamp` when that stamp can stand for its escalation `names`, then
/// `stamps`. `None` when a value holds a newline (nothing is remembered).
pub fn encode(
    root: &Path,
    impl_dir: &Path,
    dir_stamp: Option<Stamp>,
    names: Option<&[String]>,
    stamps: &[(PathBuf, Stamp)],
) -> Option<Vec<u8>> {
    let mut lines = vec![root.as_os_str().as_bytes().to_vec()];
    lines.extend(env_lines());
    let impl_dir = impl_dir.strip_prefix(root).unwrap_or(impl_dir);
    let impl_dir = impl_dir.as_os_str().as_bytes();
    lines.push(match dir_stamp {
        Some(stamp) => stamp_line(impl_dir, stamp),
        None => [b"? ".as_slice(), impl_dir].concat(),
    });
    let names = names_line(names);
    let dir = root.join(std::ffi::OsStr::from_bytes(impl_dir));
    let contents = contents_line(&dir, &names);
    lines.extend([names, contents]);
    let fields: Vec<&[u8]> = lines.iter().map(Vec::as_slice).collect();
    encode_line_cache(HEADER, &fields, stamps)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache about `root` (its artifact directory line `dir` and `names` line) with these
    /// stamp lines, for this process's environment, as [`encode`] lays it out; its contents line
    /// `contents`, or when None the one the files give now.
    fn encoded(
        root: &Path,
        dir: &[u8],
        names: &[u8],
        stamp_lines: &[Vec<u8>],
        contents: Option<Vec<u8>>,
    ) -> Vec<u8> {
        let mut fields = vec![root.as_os_str().as_bytes().to_vec()];
        fields.extend(env_lines());
        let dir_path = parse_dir_line(dir).map_or(PathBuf::new(), |(_, d)| {
            root.join(std::ffi::OsStr::from_bytes(d))
        });
        let contents = contents.unwrap_or_else(|| contents_line(&dir_path, names));
        fields.extend([dir.to_vec(), names.to_vec(), contents]);
        let fields: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
        let stamps: Vec<(PathBuf, Stamp)> = stamp_lines
            .iter()
            .filter_map(|line| parse_stamp_line(line))
            .map(|(stamp, path)| (PathBuf::from(std::ffi::OsStr::from_bytes(path)), stamp))
            .collect();
        encode_line_cache(HEADER, &fields, &stamps).unwrap_or_else(|| panic!("a newline"))
    }

    /// A cache about `root` with these stamp lines and an artifact directory that is not there
    /// (its registry and answers stamped absent, as a decision reads them).
    fn cache(root: &Path, stamp_lines: &[Vec<u8>]) -> Vec<u8> {
        let mut lines = stamp_lines.to_vec();
        lines.push(stamp_line(b"absent-dir/.preflight-reds.json", None));
        lines.push(stamp_line(b"absent-dir/.decisions.json", None));
        encoded(root, b"? absent-dir", b"-", &lines, None)
    }

    #[test]
    fn a_pass_holds_while_the_version_the_work_tree_the_environment_and_every_stamp_do() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("registry"), b"{}").unwrap();
        let mut stamper = Stamper::default();
        let lines = vec![
            stamp_line(b"registry", stamper.stamp(&root.join("registry"))),
            stamp_line(b"absent", None),
        ];
        let good = cache(root, &lines);
        assert!(fresh(&good, root));
        assert!(!fresh(&good, Path::new("/elsewhere")), "another work tree");
        let mut other_version = b"git-ucg gate cache 2 0.0.0".to_vec();
        other_version.extend_from_slice(&good[HEADER.len()..]);
        assert!(!fresh(&other_version, root), "another version");
        assert!(!fresh(&good[..good.len() - 1], root), "a torn cache");
        // Cut after any line, the end line put back by hand: the checksum says no.
        let body: Vec<&[u8]> = good.split(|b| *b == b'\n').collect();
        for keep in 1..body.len() - 2 {
            // The first `keep` lines, the end line, and the empty piece after the last newline.
            let cut = [&body[..keep], &body[body.len() - 2..]]
                .concat()
                .join(&b'\n');
            assert!(!fresh(&cut, root), "cut after line {keep}");
        }
        // Forged, well formed, stamping one file the decision does not read: not a decision's.
        let nonexistent = [stamp_line(b"nonexistent", None)];
        let forged = encoded(root, b"? absent-dir", b"-", &nonexistent, None);
        assert!(!fresh(&forged, root), "a forged cache");
        let one_env_line_less = [&body[..2], &body[3..]].concat().join(&b'\n');
        assert!(!fresh(&one_env_line_less, root), "another environment");
        std::fs::write(root.join("absent"), b"").unwrap();
        assert!(!fresh(&good, root), "a file that appeared");
        std::fs::remove_file(root.join("absent")).unwrap();
        std::fs::write(root.join("registry"), b"{\"reds\": []}").unwrap();
        assert!(!fresh(&good, root), "a file that changed");
    }

    #[test]
    fn of_the_artifact_directory_only_the_escalation_names_count() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let impl_dir = root.join("impl");
        std::fs::create_dir(&impl_dir).unwrap();
        let touch = |name: &str| std::fs::write(impl_dir.join(name), b"{}").unwrap();
        touch("escalation-7-3.json");
        touch("run-status.json");
        let names = b"=escalation-7-3.json";
        let mut stamper = Stamper::default();
        let sidecar = stamper.stamp(&impl_dir.join("escalation-7-3.json"));
        let read = [
            stamp_line(b"impl/.preflight-reds.json", None),
            stamp_line(b"impl/.decisions.json", None),
            stamp_line(b"impl/escalation-7-3.json", sidecar),
        ];
        let dir_stamp = stamper.stamp(&impl_dir);
        let cached = encoded(root, b"? impl", names, &read, None);
        let stamped = encoded(root, &stamp_line(b"impl", dir_stamp), names, &read, None);
        // Without the sidecar's stamp, the names line lists what the cache did not stamp.
        let unstamped = encoded(root, b"? impl", names, &read[..2], None);
        assert!(!fresh(&unstamped, root), "a listed sidecar not stamped");
        assert!(fresh(&cached, root) && fresh(&stamped, root));
        // The heartbeat rewritten by a rename, a turn counter: the same names.
        std::fs::rename(impl_dir.join("run-status.json"), impl_dir.join("x.tmp")).unwrap();
        touch("run-status.json");
        touch(".budget-7-3.json");
        assert!(fresh(&cached, root), "files the decision does not read");
        assert!(
            fresh(&stamped, root),
            "the directory's stamp moved, the names did not"
        );
        touch(".escalation-8-1.md");
        assert!(!fresh(&cached, root), "a raw marker");
        assert!(!fresh(&stamped, root), "a raw marker, the stamp moved");
        std::fs::remove_file(impl_dir.join(".escalation-8-1.md")).unwrap();
        std::fs::remove_file(impl_dir.join("escalation-7-3.json")).unwrap();
        assert!(!fresh(&cached, root), "a sidecar gone");
        std::fs::remove_dir_all(&impl_dir).unwrap();
        assert!(!fresh(&cached, root), "the directory gone");
    }

    /// Issue 32 item 5: a write through a shared mapping need not move the change time. A cache
    /// whose stamps all match files whose content is not what it hashed (the stamps taken after
    /// the write, the contents before: what such a write leaves) stands for nothing.
    #[test]
    fn content_the_stamps_do_not_show_ends_the_pass() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let impl_dir = root.join("impl");
        std::fs::create_dir(&impl_dir).unwrap();
        let registry = impl_dir.join(".preflight-reds.json");
        std::fs::write(&registry, b"{\"reds\": []}").unwrap();
        let before = contents_line(&impl_dir, b"-");
        std::fs::write(&registry, b"{\"reds\": [1]}").unwrap();
        let mut stamper = Stamper::default();
        let lines = [
            stamp_line(b"impl/.preflight-reds.json", stamper.stamp(&registry)),
            stamp_line(b"impl/.decisions.json", None),
        ];
        let honest = encoded(root, b"? impl", b"=", &lines, None);
        assert!(fresh(&honest, root));
        let stale = encoded(root, b"? impl", b"=", &lines, Some(before));
        assert!(
            !fresh(&stale, root),
            "the content changed under matching stamps"
        );
    }

    proptest::proptest! {
        /// Any bytes at all are read without a panic, and only a cache of this layout passes.
        #[test]
        fn any_bytes_are_read_without_a_panic(noise in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            proptest::prop_assert!(!fresh(&noise, Path::new("/nonexistent")));
            let mut spliced = cache(Path::new("/nonexistent"), &[]);
            proptest::prop_assert!(!spliced.is_empty());
            spliced.extend_from_slice(&noise);
            let _ = fresh(&spliced, Path::new("/nonexistent"));
        }

        /// A pass that holds stops holding under any change: of the cache's bytes (a byte
        /// changed, dropped or added anywhere) or of a file it stamps (rewritten, grown, removed,
        /// replaced). A remembered pass never outlives what it was decided on.
        #[test]
        fn any_mutation_of_the_cache_or_a_stamped_file_ends_the_pass(
            at in 0usize..4096,
            byte in proptest::num::u8::ANY,
            how in 0u8..3,
            file in 0usize..3,
            content in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
            replace in proptest::bool::ANY,
        ) {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            std::fs::create_dir(root.join("impl")).unwrap();
            let names = ["impl/.preflight-reds.json", "impl/.decisions.json", "impl/escalation-7-3.json"];
            for name in names {
                std::fs::write(root.join(name), b"{}").unwrap();
            }
            let mut stamper = Stamper::default();
            let lines: Vec<Vec<u8>> = names
                .iter()
                .map(|name| stamp_line(name.as_bytes(), stamper.stamp(&root.join(name))))
                .collect();
            let good = encoded(root, b"? impl", b"=escalation-7-3.json", &lines, None);
            proptest::prop_assert!(fresh(&good, root));
            // The cache's bytes changed.
            let mut bad = good.clone();
            let at = at % bad.len();
            match how {
                0 if bad[at] != byte => bad[at] = byte,
                0 | 1 => { bad.remove(at); }
                _ => bad.insert(at, byte),
            }
            proptest::prop_assert!(!fresh(&bad, root), "cache mutated at {at}");
            // A stamped file changed (a new inode or a new change time at least).
            let path = root.join(names[file]);
            if replace {
                let temp = root.join("x.tmp");
                std::fs::write(&temp, &content).unwrap();
                std::fs::rename(&temp, &path).unwrap();
            } else if content.is_empty() {
                std::fs::remove_file(&path).unwrap();
            } else {
                std::thread::sleep(std::time::Duration::from_millis(10));
                std::fs::write(&path, &content).unwrap();
            }
            proptest::prop_assert!(!fresh(&good, root), "{} changed", names[file]);
        }
    }
}
