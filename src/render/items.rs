//! One pending item as a person reads it — in `status`, the gate's refusal and the hooks': its
//! source, its short handle (what `resolve` takes), kind and file on one line, the decision
//! needed under it, and who decides. With `full`, the whole id and the artifact's path.

use ucg_ultracode::pending::PendingItem;

/// The item's lines, each indented two columns; the text under the first hangs at column 14.
pub fn describe(item: &PendingItem, full: bool) -> String {
    let (name, file) = name_and_file(item, full);
    let source = match item.contested.is_empty() {
        true => item.source.label(),
        false => "contested",
    };
    let mut out = format!("  {source:<10}  {name}  {}  {file}\n", item.kind);
    let mut needed = item.decision_needed.clone();
    if let Some(action) = &item.action {
        needed.push_str(&format!(" [{action} on record]"));
    }
    out.push_str(&format!("              {needed}\n"));
    if !item.deciders.is_empty() {
        out.push_str(&format!(
            "              decided by {}\n",
            item.deciders.join(", ")
        ));
    }
    out
}

/// The item's name and file: its short handle and the artifact's file name, or with `full` the
/// whole id and the artifact's path.
pub(crate) fn name_and_file(item: &PendingItem, full: bool) -> (String, &str) {
    match full {
        true => (item.id.clone(), item.artifact.as_str()),
        false => (item.label(), super::file_name(&item.artifact)),
    }
}
