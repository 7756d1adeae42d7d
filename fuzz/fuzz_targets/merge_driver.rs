//! The merge driver's three-way merges fed arbitrary bytes, cut into the three sides at the first
//! two NUL bytes (a side without one is empty: no ancestor, as git gives it). None may panic;
//! whatever merges can be merged again, and a side merged with itself over itself (or over no
//! ancestor) is that side as its writer writes it.

#![no_main]

use libfuzzer_sys::fuzz_target;
use ucg_ultracode::answer::render;
use ucg_ultracode::decisions::decisions_for_write;
use ucg_ultracode::merge::{merge, Kind};
use ucg_ultracode::reds::{carried_tombstones, Registry};

fuzz_target!(|data: &[u8]| {
    let mut sides = data.splitn(3, |b| *b == 0);
    let base = sides.next().unwrap_or_default();
    let ours = sides.next().unwrap_or_default();
    let theirs = sides.next().unwrap_or_default();
    for kind in [Kind::Answers, Kind::Registry] {
        if let Ok(merged) = merge(kind, base, ours, theirs) {
            assert!(merge(kind, base, merged.bytes.as_bytes(), theirs).is_ok());
        }
    }
    // Merged with itself: the answers file as its writer writes it.
    if let Ok((mut doc, mut entries)) = decisions_for_write(Some(data)) {
        let canonical = render(&mut doc, &mut entries);
        for base in [data, b""] {
            let merged = merge(Kind::Answers, base, data, data).expect("mergeable");
            assert_eq!(merged.bytes, canonical);
            assert!(merged.overridden.is_empty());
        }
    }
    // And the registry, when none of its reds is also tombstoned (the merge drops those).
    if let Ok(registry) = Registry::parse(Some(data), "fuzz") {
        let tombstoned = |id: &str| {
            registry
                .resolved
                .iter()
                .any(|t| t.as_object().and_then(|t| t.get("id")?.as_str()) == Some(id))
        };
        if let (Ok(resolved), false) = (
            carried_tombstones(registry.resolved.iter().cloned()),
            registry.red_ids().any(tombstoned),
        ) {
            let canonical = Registry {
                reds: registry.reds.clone(),
                resolved,
            }
            .to_pretty_json();
            for base in [data, b""] {
                let merged = merge(Kind::Registry, base, data, data).expect("mergeable");
                assert_eq!(merged.bytes, canonical);
            }
        }
    }
});
