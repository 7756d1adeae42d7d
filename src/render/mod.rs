//! How results look: git-style diff summaries and patches' colours, the status dashboard and the
//! reference's status markdown, the gate's refusal and its decision for CI services. Presentation only: these take
//! values and return text; the domain computes, the commands read, run and print.

pub mod bypass;
pub mod ci;
pub mod diffstat;
pub mod fit;
pub mod items;
pub mod refusal;
pub mod restart;
pub mod status_human;
pub mod status_markdown;
pub mod visible;

/// A JSON value as a table cell or a line shows it: a string bare, null as `-`.
pub(crate) fn cell(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "-".into(),
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// A path's file name (what follows its last `/`), as a person is shown a file of the run.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A borderless table with `header`, as the commands lay their tables out.
pub(crate) fn table<T: Into<comfy_table::Cell> + Clone>(header: &[T]) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::NOTHING);
    table.set_header(header.to_vec());
    table
}

/// The lines of `table`, each without the padding of its last cell.
pub(crate) fn table_lines(table: &comfy_table::Table) -> String {
    let text = table.to_string();
    text.lines()
        .map(|line| format!("{}\n", line.trim_end()))
        .collect()
}
