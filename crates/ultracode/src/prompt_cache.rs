//! The prompt's cache (`<git dir>/ucg/prompt-cache`): the last segment `status --prompt` printed,
//! about one work tree and `ULTRACODE_IMPL_ARTIFACTS`, with the stamps of every file it was
//! computed from, in the store's line-cache layout. Served while every stamp still matches.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use ucg_store::stamp::{all_stamps_match, decode_line_cache, encode_line_cache};
use ucg_store::Stamp;

#[derive(Debug, PartialEq)]
pub struct PromptCache {
    /// The work tree the segment is about: a copied repository (`cp -a`) carries the cache along,
    /// and must not show the original's run.
    pub root: PathBuf,
    /// `ULTRACODE_IMPL_ARTIFACTS` when the segment was computed (it moves the artifacts).
    pub env: Option<String>,
    pub segment: String,
    pub stamps: Vec<(PathBuf, Stamp)>,
}

/// Its name under `<git dir>/ucg/`.
pub const FILE: &str = "prompt-cache";

/// The cache file's first line; its number is bumped when the layout or the segment's meaning
/// changes.
pub const HEADER: &str = "git-ucg prompt cache 5";

impl PromptCache {
    /// The store's line cache (`ucg_store::stamp::encode_line_cache`) with three fields: the
    /// work tree, `-` or `=<env>`, the segment. `None` when a value holds a newline (such a
    /// segment is recomputed each time).
    pub fn encode(&self) -> Option<Vec<u8>> {
        let env = match &self.env {
            Some(value) => format!("={value}"),
            None => "-".into(),
        };
        let fields: [&[u8]; 3] = [
            self.root.as_os_str().as_bytes(),
            env.as_bytes(),
            self.segment.as_bytes(),
        ];
        encode_line_cache(HEADER, &fields, &self.stamps)
    }
}

/// From how many stamps the freshness check splits them over two threads (a thread start costs
/// about what a few dozen lookups cost).
const PARALLEL_STAMPS: usize = 128;

/// The segment, if the cache at `bytes` is this cache's layout, about `root` and `env`, and
/// every stamp still matches (checked in order, stopping at the first that does not).
/// Stamps are stored relative to the work tree where they lie inside it (so they name a
/// copy's files in a copy) and checked against this work tree's files.
pub fn fresh_segment(bytes: &[u8], root: &Path, env: Option<&str>) -> Option<String> {
    let (fields, lines) = decode_line_cache(bytes, HEADER, 3)?;
    let [cached_root, cached_env, segment] = fields[..] else {
        return None;
    };
    if cached_root != root.as_os_str().as_bytes() {
        return None;
    }
    let cached_env = match cached_env {
        b"-" => None,
        value => Some(value.strip_prefix(b"=")?),
    };
    if cached_env != env.map(str::as_bytes) {
        return None;
    }
    // As stored: the caller strips what a shell must not draw (whoever can write under the git
    // directory can write this file).
    let segment = std::str::from_utf8(segment).ok()?.to_string();
    // Each lookup is a system call: a long list is checked on two cores.
    let fresh = if lines.len() < PARALLEL_STAMPS {
        all_stamps_match(&lines, root)
    } else {
        let (first, second) = lines.split_at(lines.len() / 2);
        std::thread::scope(|scope| {
            let other = scope.spawn(|| all_stamps_match(second, root));
            let here = all_stamps_match(first, root);
            here && other.join().unwrap_or(false)
        })
    };
    fresh.then_some(segment)
}

/// The segment a cache shows whether or not it is fresh (printed with a `?` past the deadline):
/// its field, when the bytes are a cache of this layout.
pub fn last_segment(bytes: &[u8]) -> Option<&str> {
    let (fields, _) = decode_line_cache(bytes, HEADER, 3)?;
    std::str::from_utf8(fields.get(2)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ucg_store::Stamper;

    fn cache(stamps: Vec<(PathBuf, Stamp)>) -> PromptCache {
        PromptCache {
            root: PathBuf::from("/w/t"),
            env: Some("impl dir".into()),
            segment: "ucg 7 2/3 ⚑2R".into(),
            stamps,
        }
    }

    #[test]
    fn a_cache_is_fresh_while_every_stamp_matches() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        std::fs::create_dir(root.join("impl")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(root.join("impl/a.json"), b"{}").unwrap_or_else(|e| panic!("{e}"));
        let mut stamper = Stamper::default();
        let paths = ["impl", "impl/a.json", "impl/absent.json", "outside file"];
        let stamps = paths
            .iter()
            .map(|p| (PathBuf::from(p), stamper.stamp(&root.join(p))))
            .collect();
        let cache = PromptCache {
            root: root.to_path_buf(),
            env: None,
            segment: "ucg ⚑1R".into(),
            stamps,
        };
        let bytes = cache.encode().unwrap_or_default();
        let fresh = |bytes: &[u8]| fresh_segment(bytes, root, None);
        assert_eq!(fresh(&bytes).as_deref(), Some("ucg ⚑1R"));
        assert_eq!(fresh_segment(&bytes, root, Some("x")), None, "another env");
        assert_eq!(fresh_segment(&bytes, Path::new("/elsewhere"), None), None);
        std::fs::write(root.join("impl/absent.json"), b"").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fresh(&bytes), None, "a file that appeared");
        let mut cut = bytes.clone();
        cut.truncate(bytes.len() - 3);
        assert_eq!(fresh(&cut), None, "a torn cache");
    }

    #[test]
    fn a_value_with_a_newline_is_never_cached() {
        assert!(cache(vec![]).encode().is_some());
        let mut broken = cache(vec![(PathBuf::from("a\nb"), None)]);
        assert_eq!(broken.encode(), None);
        broken.stamps.clear();
        broken.segment = "two\nlines".into();
        assert_eq!(broken.encode(), None);
    }

    fn freshness() -> impl proptest::strategy::Strategy<Value = ucg_store::Freshness> {
        use proptest::num::{i64, u64};
        use proptest::strategy::Strategy;
        (
            (u64::ANY, u64::ANY, u64::ANY),
            (i64::ANY, 0i64..1_000_000_000, i64::ANY, 0i64..1_000_000_000),
        )
            .prop_map(
                |((dev, ino, size), (mtime, mtime_nsec, ctime, ctime_nsec))| ucg_store::Freshness {
                    dev,
                    ino,
                    size,
                    mtime,
                    mtime_nsec,
                    ctime,
                    ctime_nsec,
                },
            )
    }

    proptest::proptest! {
        /// What `encode` writes, the reader takes back line for line; any bytes at all are read
        /// without a panic.
        #[test]
        fn stamp_lines_round_trip(
            stamps in proptest::collection::vec(
                ("[^\n]{1,30}", proptest::option::of(freshness())),
                0..8,
            ),
            noise in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
        ) {
            let stamps: Vec<(PathBuf, Stamp)> =
                stamps.into_iter().map(|(p, s)| (PathBuf::from(p), s)).collect();
            let bytes = cache(stamps.clone()).encode().unwrap_or_default();
            let decoded = decode_line_cache(&bytes, HEADER, 3);
            proptest::prop_assert!(decoded.is_some());
            let (_, lines) = decoded.unwrap_or_default();
            proptest::prop_assert_eq!(lines.len(), stamps.len());
            for (line, (path, stamp)) in lines.iter().zip(&stamps) {
                let parsed = ucg_store::stamp::parse_stamp_line(line);
                proptest::prop_assert_eq!(parsed, Some((*stamp, path.as_os_str().as_bytes())));
            }
            let _ = fresh_segment(&noise, Path::new("/nonexistent"), None);
            let mut spliced = bytes.clone();
            spliced.extend_from_slice(&noise);
            let _ = fresh_segment(&spliced, Path::new("/w/t"), Some("impl dir"));
        }
    }
}
