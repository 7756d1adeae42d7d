//! Bypass records ([`ucg_ultracode::bypass`]) as a person reads them, in `status`, `gate` and the
//! dashboard: one line a commit, fitted to 80 columns, controls shown escaped.

use super::{fit, visible};
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

/// `heading`, then one entry a record.
pub(crate) fn listed(heading: &str, records: &[Bypass]) -> String {
    let mut out = fit::wrap(heading, 80).join("\n");
    out.push('\n');
    for record in records {
        let line = format!(
            "{} {} by {}, {} waiting ({})",
            &record.commit[..record.commit.len().min(12)],
            record.at,
            record.by,
            record.pending,
            record.via
        );
        let line = visible::escape_controls(&line, &[]);
        for (i, part) in fit::wrap(&line, 76).iter().enumerate() {
            out.push_str(if i == 0 { "  " } else { "    " });
            out.push_str(part);
            out.push('\n');
        }
    }
    out
}
