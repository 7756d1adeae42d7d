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

pub const MAX_ARTIFACT_BYTES: Key = Key {
    name: "ucg.maxArtifactBytes",
    kind: "size",
    default: "256m",
    about: "the largest artifact read; a larger one cannot be read (and gates)",
};

pub const GATE_SOURCES: Key = Key {
    name: "ucg.gate.sources",
    kind: "text",
    default: "reds,escalations,decisions",
    about: "the sources that block commits and pushes (a name not known warns)",
};

pub const GATE_SCOPE: Key = Key {
    name: "ucg.gate.scope",
    kind: "text",
    default: "(each ref's run)",
    about: "`all`: anything pending in the work tree blocks every push",
};

pub const GATE_STRICT: Key = Key {
    name: "ucg.gate.strict",
    kind: "bool",
    default: "false",
    about: "strict mode: a story's invariants checked on every commit and push",
};

pub const GATE_PROTECT: Key = Key {
    name: "ucg.gate.protect",
    kind: "list",
    default: "main, master",
    about: "the branches the server's pre-receive gate protects",
};

pub const DECIDER: Key = Key {
    name: "ucg.decider",
    kind: "list",
    default: "(none)",
    about: "`<kind-or-glob>=<email>`: who decides which pending items",
};

pub const SIMILARITY: Key = Key {
    name: "ucg.similarity",
    kind: "text",
    default: "0.8",
    about: "how alike (0 to 1) a reworded question must be to be offered an answer",
};

pub const PROMPT_TIMEOUT_MS: Key = Key {
    name: "ucg.prompt.timeoutMs",
    kind: "integer",
    default: "50",
    about: "the prompt's deadline in milliseconds; past it, the last segment",
};

/// Every key, in the README's order.
pub const KEYS: [&Key; 8] = [
    &GATE_SOURCES,
    &GATE_SCOPE,
    &GATE_STRICT,
    &GATE_PROTECT,
    &DECIDER,
    &SIMILARITY,
    &MAX_ARTIFACT_BYTES,
    &PROMPT_TIMEOUT_MS,
];

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
