//! Bypass records ([`ucg_ultracode::bypass`]) as a person reads them, in `status`, `gate` and the
//! dashboard: one line a commit, fitted to 80 columns, controls shown escaped.

use super::visible;
use ucg_ultracode::bypass::{Bypass, NOTES_REF};

/// The lines that show `records` (none when there are none).
pub(crate) fn describe(records: &[Bypass]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let heading = format!(
        "Bypassed: {} commit(s) went past the gate since the run stopped; the notes ref {} holds them:",
        records.len(),
        NOTES_REF.trim_start_matches("refs/notes/")
    );
    listed(&heading, records)
}

/// `heading`, then one entry a record, for the caller's layout to fit to the terminal (an
/// entry's continuation hangs under its time).
pub(crate) fn listed(heading: &str, records: &[Bypass]) -> String {
    let mut out = format!("{heading}\n");
    for record in records {
        let line = format!(
            "  {}  {} by {}, {} waiting ({})\n",
            record.commit.get(..12).unwrap_or(&record.commit),
            record.at,
            record.by,
            record.pending,
            record.via
        );
        out.push_str(&visible::escape_controls(&line, &[]));
    }
    out
}
