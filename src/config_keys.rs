//! The `ucg.*` keys of git's configuration that git-ucg reads, declared once: each with its kind,
//! its default and what it does. The readers name a key through its constant here, and the
//! README's table of keys is checked against [`KEYS`] (tests/cli/docs.rs), so a new key is one
//! entry here, its reader and its row. Names match as git matches them (section and key case
//! insensitive); values are read through git's own configuration, command line included.

/// A key git-ucg reads.
pub struct Key {
    pub name: &'static str,
    /// How its value reads: `bool`, `integer`, `size` (`k`, `m`, `g` suffixes), `text`, or
    /// `list` (the key repeated, every value counting).
    pub kind: &'static str,
    pub default: &'static str,
    pub about: &'static str,
}

/// Declares each key as a constant and [`KEYS`], all of them in the README's order.
macro_rules! keys {
    ($($constant:ident = $name:literal, $kind:ident, $default:literal: $about:literal;)*) => {
        $(pub const $constant: Key = Key {
            name: $name,
            kind: stringify!($kind),
            default: $default,
            about: $about,
        };)*

        /// Every key, in the README's order.
        pub const KEYS: [&Key; [$(stringify!($constant)),*].len()] = [$(&$constant),*];
    };
}

keys! {
    GATE_SOURCES = "ucg.gate.sources", text, "reds,escalations,decisions":
        "the sources that block commits and pushes (a name not known warns)";
    GATE_SCOPE = "ucg.gate.scope", text, "(each ref's run)":
        "`all`: anything pending in the work tree blocks every push";
    GATE_STRICT = "ucg.gate.strict", bool, "false":
        "strict mode: a story's invariants checked on every commit and push";
    GATE_PROTECT = "ucg.gate.protect", list, "main, master":
        "the branches the server's pre-receive gate protects";
    GATE_BYPASS = "ucg.gate.bypass", text, "report":
        "the server gate on pushed commits with a bypass on record: `allow`, `report`, `refuse`";
    DECIDER = "ucg.decider", list, "(none)":
        "`<kind-or-glob>=<email>`: who decides which pending items";
    SIMILARITY = "ucg.similarity", text, "0.8":
        "how alike (0 to 1) a reworded question must be to be offered an answer";
    MAX_ARTIFACT_BYTES = "ucg.maxArtifactBytes", size, "256m":
        "the largest artifact read; a larger one cannot be read (and gates)";
    PROMPT_TIMEOUT_MS = "ucg.prompt.timeoutMs", integer, "50":
        "the prompt's deadline in milliseconds; past it, the last segment";
}

/// The README's table of the keys, as [`KEYS`] gives it.
pub fn markdown_table() -> String {
    let mut table = String::from("| key | kind | default | what it does |\n|---|---|---|---|\n");
    for key in KEYS {
        table.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            key.name, key.kind, key.default, key.about
        ));
    }
    table
}
