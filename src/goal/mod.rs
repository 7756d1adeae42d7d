//! The ultragoal state machine (formats/ultragoal.md), interoperable with its TypeScript state CLI
//! on the same files. So far: where state lives (§1.1–1.3) and the `status` read (§2.9).

pub mod dir;

/// The phases of the state machine (§1.4), as their tokens.
pub const PHASES: [&str; 5] = [
    "planning",
    "pursuing",
    "budget_limited",
    "blocked",
    "complete",
];

/// `status` (§2.9): the phase token of a state file's bytes, or `absent` when the file is missing,
/// is not a JSON object, or holds no known phase.
pub fn status_token(bytes: Option<&[u8]>) -> &'static str {
    let phase = bytes
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        .and_then(|doc| doc.get("phase")?.as_str().map(str::to_string));
    phase
        .and_then(|p| PHASES.iter().find(|known| **known == p).copied())
        .unwrap_or("absent")
}

#[cfg(test)]
mod tests {
    #[test]
    fn status_tokens() {
        assert_eq!(
            super::status_token(Some(br#"{"phase": "pursuing"}"#)),
            "pursuing"
        );
        assert_eq!(
            super::status_token(Some(br#"{"phase": "complete", "active": false}"#)),
            "complete"
        );
        for bad in [&br#"{"phase": "done"}"#[..], b"{", b"[]", b"\xff"] {
            assert_eq!(super::status_token(Some(bad)), "absent");
        }
        assert_eq!(super::status_token(None), "absent");
    }
}
