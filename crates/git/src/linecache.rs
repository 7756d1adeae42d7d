//! A cache of line counts by blob pair, under the git directory (`<common dir>/ucg/`): counting is
//! the expensive part of a diffstat, and a blob pair always counts the same, so a repeated `diff`
//! or `epic` is nearly free. It is only a cache: unreadable lines are ignored, failures to write
//! are ignored, and it starts over when it grows large.
//!
//! The file name carries what else decides a count: the diff algorithm and a fingerprint of the
//! repository-wide attribute files (`.gitattributes` at the root, `info/attributes`), which can
//! make a file binary. (A `.gitattributes` deeper in the tree is not fingerprinted.)

use super::LineCounts;
use gix::ObjectId;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::PathBuf;

/// Past this size the cache starts over rather than grow without end.
const MAX_BYTES: u64 = 16 << 20;

/// The default remembers nothing (for `--no-cache`, or where no git directory can hold one).
#[derive(Default)]
pub struct LineCountCache {
    path: Option<PathBuf>,
    known: HashMap<(ObjectId, ObjectId), LineCounts>,
    fresh: Vec<(ObjectId, ObjectId, LineCounts)>,
}

impl LineCountCache {
    pub fn open(repo: &gix::Repository, algorithm: &str) -> Self {
        let mut fingerprint = Sha256::new();
        fingerprint.update(algorithm.as_bytes());
        for file in [
            repo.workdir().map(|w| w.join(crate::ATTRIBUTES_FILE)),
            Some(repo.common_dir().join("info/attributes")),
        ]
        .into_iter()
        .flatten()
        {
            fingerprint.update(ucg_store::read_file(file).unwrap_or_default());
            fingerprint.update([0]);
        }
        let tag = ucg_store::hex(&fingerprint.finalize()[..6]);
        let path = ucg_store::ucg_dir(repo.common_dir()).join(format!("line-counts-{tag}"));
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_BYTES) {
            let _ = ucg_store::remove_if_present(&path);
        }
        let known = ucg_store::read_text(&path)
            .map(|text| text.lines().filter_map(parse_line).collect())
            .unwrap_or_default();
        LineCountCache {
            path: Some(path),
            known,
            fresh: Vec::new(),
        }
    }

    pub fn get(&self, old: ObjectId, new: ObjectId) -> Option<LineCounts> {
        self.known.get(&(old, new)).copied()
    }

    pub fn insert(&mut self, old: ObjectId, new: ObjectId, counts: LineCounts) {
        if self.path.is_some() && self.known.insert((old, new), counts).is_none() {
            self.fresh.push((old, new, counts));
        }
    }

    /// Appends what was counted this time, in one write.
    pub fn save(self) {
        let Some(path) = self.path.filter(|_| !self.fresh.is_empty()) else {
            return;
        };
        let text: String = (self.fresh.iter())
            .map(|(old, new, counts)| match counts {
                Some((added, removed)) => format!("{old} {new} {added} {removed}\n"),
                None => format!("{old} {new} binary\n"),
            })
            .collect();
        if let Some(dir) = path.parent() {
            let _ = ucg_store::create_dirs(dir);
        }
        let _ = ucg_store::append(&path, text.as_bytes());
    }
}

fn parse_line(line: &str) -> Option<((ObjectId, ObjectId), LineCounts)> {
    let mut fields = line.split(' ');
    let old = ObjectId::from_hex(fields.next()?.as_bytes()).ok()?;
    let new = ObjectId::from_hex(fields.next()?.as_bytes()).ok()?;
    let counts = match (fields.next()?, fields.next()) {
        ("binary", None) => None,
        (added, Some(removed)) => Some((added.parse().ok()?, removed.parse().ok()?)),
        _ => return None,
    };
    fields.next().is_none().then_some(((old, new), counts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_read_back_and_garbage_is_ignored() {
        let a = "1111111111111111111111111111111111111111";
        let b = "2222222222222222222222222222222222222222";
        assert_eq!(
            parse_line(&format!("{a} {b} 3 4")).map(|(_, c)| c),
            Some(Some((3, 4)))
        );
        assert_eq!(
            parse_line(&format!("{a} {b} binary")).map(|(_, c)| c),
            Some(None)
        );
        for bad in [
            "",
            "x y 1 2",
            &format!("{a} {b} 3"),
            &format!("{a} {b} 3 4 5"),
            &format!("{a} {b} -1 2"),
        ] {
            assert!(parse_line(bad).is_none(), "{bad}");
        }
    }
}
