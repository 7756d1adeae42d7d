//! UltraCode Goal's configuration: the three `customize.toml` layers, their merge, and the
//! `{project-root}` expansion of path scalars (docs/formats/ucg.md §4; docs/product.md §2).
//!
//! Layers, later wins: the module's `{ucg-root}/customize.toml` (built-in defaults when absent),
//! the team's `<root>/_bmad/custom/ultracode-goal.toml`, the user's `….user.toml`. Merge: tables
//! deep-merge, arrays append (or merge by `code`/`id` when every item is a table carrying one),
//! anything else is overridden.

use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use toml::Value;

/// The defaults UltraCode Goal ships, used when no `{ucg-root}/customize.toml` exists.
pub(crate) const BUILTIN_DEFAULTS: &str = include_str!("config_defaults.toml");

/// The module's own layer, in `{ucg-root}`.
const BASE_LAYER_FILE: &str = "customize.toml";

/// The scalars that name files or directories: `{project-root}` is expanded in them, a relative
/// result is joined under the root, and any other `{…}` token left in them is an error.
pub(crate) const PATH_KEYS: [&str; 6] = [
    "implementation_artifacts",
    "deferred_work_path",
    "trace_output_dir",
    "tea_config_path",
    "health_check_queue_path",
    "health_check_seen_cache",
];

const SKILL_NAME: &str = "ultracode-goal";

/// The configuration layers, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayerKind {
    /// `{ucg-root}/customize.toml`, or the built-in copy of it.
    Base,
    /// `<root>/_bmad/custom/ultracode-goal.toml`.
    Team,
    /// `<root>/_bmad/custom/ultracode-goal.user.toml`.
    User,
}

impl LayerKind {
    pub fn name(self) -> &'static str {
        match self {
            LayerKind::Base => "base",
            LayerKind::Team => "team",
            LayerKind::User => "user",
        }
    }
}

/// What became of one layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayerState {
    /// The base layer came from the built-in defaults.
    BuiltIn,
    Loaded,
    Absent,
    /// An optional layer that could not be parsed: warned about, then ignored.
    Ignored(String),
}

impl LayerState {
    pub fn name(&self) -> &'static str {
        match self {
            LayerState::BuiltIn => "built-in",
            LayerState::Loaded => "ok",
            LayerState::Absent => "absent",
            LayerState::Ignored(_) => "unreadable",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Layer {
    pub kind: LayerKind,
    pub path: PathBuf,
    pub state: LayerState,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: cannot be read or parsed: {reason}", path.display())]
    BaseUnparseable { path: PathBuf, reason: String },
    #[error(
        "workflow.{key} = {value:?} still holds the token {token} after expansion (from {origin})"
    )]
    UnresolvedToken {
        key: String,
        value: String,
        token: String,
        origin: String,
    },
    #[error("workflow.{key} must be {expected}")]
    WrongType { key: String, expected: &'static str },
}

impl ConfigError {
    pub fn hint(&self) -> Option<String> {
        match self {
            ConfigError::BaseUnparseable { .. } => {
                Some("fix the TOML syntax of the module's customize.toml (it is required once present)".into())
            }
            ConfigError::UnresolvedToken { key, .. } => Some(format!(
                "only {{project-root}} is expanded; set workflow.{key} to a literal path in _bmad/custom/ultracode-goal.toml"
            )),
            ConfigError::WrongType { .. } => None,
        }
    }
}

/// One resolved `[workflow]` value and the layers it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The merged value, tokens not yet expanded.
    pub value: Value,
    /// The layers that contributed (one for an overriding scalar; several for appended arrays).
    pub origin: Vec<LayerKind>,
}

/// The resolved configuration of one project.
#[derive(Debug, Clone)]
pub struct Config {
    pub project_root: PathBuf,
    pub ucg_root: Option<PathBuf>,
    pub layers: Vec<Layer>,
    pub workflow: IndexMap<String, Entry>,
    /// Warnings for the user (an ignored layer), to print on stderr.
    pub warnings: Vec<String>,
}

/// Where the layers are read from: the file system ([`OnDisk`]), or a commit's tree (a bare
/// repository's gate has no work tree to read them from).
pub(crate) trait LayerFiles {
    /// Whether a directory is at `path`.
    fn is_dir(&self, path: &Path) -> bool;
    /// The file's bytes, `Ok(None)` when it is absent, or why it cannot be read.
    fn read(&self, path: &Path) -> Result<Option<Vec<u8>>, String>;
}

/// The layers on disk.
pub(crate) struct OnDisk;

impl LayerFiles for OnDisk {
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }

    fn read(&self, path: &Path) -> Result<Option<Vec<u8>>, String> {
        ucg_store::read_if_present(path).map_err(|e| e.to_string())
    }
}

fn ucg_root_candidates(project_root: &Path) -> [PathBuf; 2] {
    [
        project_root.join("_bmad/ucg/ultracode-goal"),
        project_root.join("skills/ultracode-goal"),
    ]
}

/// The team and user layers' files.
fn custom_layers(project_root: &Path) -> [(LayerKind, PathBuf); 2] {
    let custom = |suffix| project_root.join(format!("_bmad/custom/{SKILL_NAME}{suffix}.toml"));
    [
        (LayerKind::Team, custom("")),
        (LayerKind::User, custom(".user")),
    ]
}

/// Every path whose presence or content can change the configuration (for caches to stamp).
pub fn input_paths(project_root: &Path) -> Vec<PathBuf> {
    ucg_root_candidates(project_root)
        .into_iter()
        .flat_map(|root| [root.join(BASE_LAYER_FILE), root])
        .chain(custom_layers(project_root).map(|(_, path)| path))
        .collect()
}

impl Config {
    /// Loads and merges the layers of the project at `project_root`.
    pub fn load(project_root: &Path) -> Result<Config, ConfigError> {
        Config::load_from(project_root, &OnDisk)
    }

    /// Loads and merges the layers of the project at `project_root`, read through `files`.
    pub(crate) fn load_from(
        project_root: &Path,
        files: &dyn LayerFiles,
    ) -> Result<Config, ConfigError> {
        // `{ucg-root}`: the first existing of the installed and the source-checkout locations.
        let ucg_root = ucg_root_candidates(project_root)
            .into_iter()
            .find(|p| files.is_dir(p));
        let base_path = ucg_root
            .as_ref()
            .map(|r| r.join(BASE_LAYER_FILE))
            .unwrap_or_else(|| PathBuf::from("(built-in)"));
        let read_layer = |p: &Path| {
            files
                .read(p)
                .and_then(|b| b.map(|b| parse_layer(&b)).transpose())
        };
        let mut warnings = Vec::new();

        // No {ucg-root}, or one without a customize.toml (warned): the built-in defaults. A file
        // that is there but cannot be read or parsed stops everything: it is required once present.
        let base_table = match &ucg_root {
            None => None,
            Some(_) => read_layer(&base_path).map_err(|reason| ConfigError::BaseUnparseable {
                path: base_path.clone(),
                reason,
            })?,
        };
        if ucg_root.is_some() && base_table.is_none() {
            warnings.push(format!(
                "{} not found; using the built-in defaults",
                base_path.display()
            ));
        }
        let (base_table, base_state) = match base_table {
            Some(table) => (table, LayerState::Loaded),
            None => (
                parse_layer(BUILTIN_DEFAULTS.as_bytes()).unwrap_or_default(),
                LayerState::BuiltIn,
            ),
        };
        let mut layers = vec![Layer {
            kind: LayerKind::Base,
            path: base_path,
            state: base_state,
        }];
        let mut tables = vec![(LayerKind::Base, base_table)];

        for (kind, path) in custom_layers(project_root) {
            let state = match read_layer(&path) {
                Ok(None) => LayerState::Absent,
                Ok(Some(table)) => {
                    tables.push((kind, table));
                    LayerState::Loaded
                }
                Err(reason) => LayerState::Ignored(reason),
            };
            if let LayerState::Ignored(reason) = &state {
                warnings.push(format!("ignoring {}: {reason}", path.display()));
            }
            layers.push(Layer { kind, path, state });
        }

        let mut workflow: IndexMap<String, Entry> = IndexMap::new();
        for (kind, mut table) in tables {
            let Some(Value::Table(block)) = table.remove("workflow") else {
                continue;
            };
            for (key, value) in block {
                // A new key starts as `false`, which any value replaces (uncombined).
                let entry = workflow.entry(key).or_insert_with(|| Entry {
                    value: Value::Boolean(false),
                    origin: vec![],
                });
                let old = std::mem::replace(&mut entry.value, Value::Boolean(false));
                let (merged, combined) = merge(old, value);
                entry.value = merged;
                if !combined {
                    entry.origin.clear();
                }
                entry.origin.push(kind);
            }
        }
        Ok(Config {
            project_root: project_root.to_path_buf(),
            ucg_root,
            layers,
            workflow,
            warnings,
        })
    }

    /// Where an entry came from, for people: `built-in`, `team`, `base+team`, ….
    pub fn origin_label(&self, entry: &Entry) -> String {
        entry
            .origin
            .iter()
            .map(|kind| match (kind, &self.layers[0].state) {
                (LayerKind::Base, LayerState::BuiltIn) => "built-in",
                _ => kind.name(),
            })
            .collect::<Vec<_>>()
            .join("+")
    }

    /// The value of `key` with `{project-root}` expanded (and, for path scalars, made absolute and
    /// checked for leftover tokens).
    pub fn expanded(&self, key: &str) -> Result<Option<Value>, ConfigError> {
        let Some(entry) = self.workflow.get(key) else {
            return Ok(None);
        };
        let root = self.project_root.to_string_lossy();
        let value = expand_tokens(&entry.value, &root);
        if !PATH_KEYS.contains(&key) {
            return Ok(Some(value));
        }
        let Value::String(text) = &value else {
            return Err(ConfigError::WrongType {
                key: key.to_string(),
                expected: "a string (a path)",
            });
        };
        if let Some(token) = leftover_token(text) {
            return Err(ConfigError::UnresolvedToken {
                key: key.to_string(),
                value: text.clone(),
                token,
                origin: self.origin_label(entry),
            });
        }
        Ok(Some(Value::String(
            self.absolute(text, key == "health_check_seen_cache")
                .to_string_lossy()
                .into_owned(),
        )))
    }

    /// `workflow.epic_branch_prefix` (default `ultracode/epic-`): an epic's branch is it and the
    /// epic's id.
    pub fn epic_branch_prefix(&self) -> String {
        self.expanded("epic_branch_prefix")
            .ok()
            .flatten()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "ultracode/epic-".into())
    }

    /// `workflow.protected_branches` as names (default `main`, `master`): the branches an epic's
    /// work never lands on directly.
    pub fn protected_branches(&self) -> Vec<String> {
        self.expanded("protected_branches")
            .ok()
            .flatten()
            .and_then(|v| v.as_array().cloned())
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_else(|| vec!["main".into(), "master".into()])
    }

    /// A path scalar, resolved (`None` when the key is absent from every layer).
    pub fn path(&self, key: &str) -> Result<Option<PathBuf>, ConfigError> {
        Ok(match self.expanded(key)? {
            Some(Value::String(s)) => Some(PathBuf::from(s)),
            _ => None,
        })
    }

    /// Checks every path scalar; the first bad one is the error.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for key in PATH_KEYS {
            self.expanded(key)?;
        }
        Ok(())
    }

    fn absolute(&self, text: &str, expand_home: bool) -> PathBuf {
        let path = match (
            expand_home,
            text.strip_prefix("~/"),
            std::env::var_os("HOME"),
        ) {
            (true, Some(rest), Some(home)) => PathBuf::from(home).join(rest),
            _ => PathBuf::from(text),
        };
        // An absolute path replaces the root it is joined to.
        self.project_root.join(path)
    }
}

fn parse_layer(bytes: &[u8]) -> Result<toml::Table, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 ({e})"))?;
    toml::from_str::<toml::Table>(text).map_err(|e| e.message().to_string())
}

/// Merges `over` into `base`; the flag says whether both contributed (rather than `over` replacing).
fn merge(base: Value, over: Value) -> (Value, bool) {
    match (base, over) {
        (Value::Table(mut base), Value::Table(over)) => {
            for (key, value) in over {
                let merged = match base.remove(&key) {
                    Some(old) => merge(old, value).0,
                    None => value,
                };
                base.insert(key, merged);
            }
            (Value::Table(base), true)
        }
        (Value::Array(base), Value::Array(over)) => (Value::Array(merge_arrays(base, over)), true),
        (_, over) => (over, false),
    }
}

/// Arrays append, unless every item of both is a table carrying `code` (or every one `id`): then
/// an override item replaces the base item with the same key, and new keys are appended.
fn merge_arrays(mut base: Vec<Value>, over: Vec<Value>) -> Vec<Value> {
    let all_have = |field: &str| {
        base.iter()
            .chain(over.iter())
            .all(|v| v.as_table().is_some_and(|t| t.contains_key(field)))
    };
    let key_field = ["code", "id"].into_iter().find(|f| all_have(f));
    let Some(field) = key_field else {
        base.extend(over);
        return base;
    };
    for item in over {
        let key = item.as_table().and_then(|t| t.get(field)).cloned();
        match base
            .iter_mut()
            .find(|b| b.as_table().and_then(|t| t.get(field)).cloned() == key)
        {
            Some(slot) => *slot = item,
            None => base.push(item),
        }
    }
    base
}

fn expand_tokens(value: &Value, root: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("{project-root}", root)),
        Value::Array(items) => Value::Array(items.iter().map(|v| expand_tokens(v, root)).collect()),
        Value::Table(table) => Value::Table(
            table
                .iter()
                .map(|(k, v)| (k.clone(), expand_tokens(v, root)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn leftover_token(text: &str) -> Option<String> {
    let start = text.find('{')?;
    let end = text[start..].find('}')? + start;
    Some(text[start..=end].to_string())
}

/// A TOML value as JSON.
pub fn to_json(value: &Value) -> serde_json::Value {
    match value {
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Integer(i) => serde_json::Value::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null),
        Value::Boolean(b) => serde_json::Value::Bool(*b),
        Value::Datetime(d) => serde_json::Value::String(d.to_string()),
        Value::Array(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Table(t) => {
            serde_json::Value::Object(t.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
        }
    }
}

/// The configuration's layers read where the artifacts are: a commit's tree carries its own.
impl LayerFiles for ucg_git::ArtifactSource<'_> {
    fn is_dir(&self, path: &Path) -> bool {
        ucg_git::ArtifactSource::is_dir(self, path)
    }

    fn read(&self, path: &Path) -> Result<Option<Vec<u8>>, String> {
        self.read_checked(path).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Value {
        Value::Table(toml::from_str(text).unwrap())
    }

    #[test]
    fn arrays_append_scalars_override_tables_merge() {
        let (merged, _) = merge(
            table("a = [1]\nb = 1\n[t]\nx = 1"),
            table("a = [2]\nb = 2\n[t]\ny = 2"),
        );
        assert_eq!(merged, table("a = [1, 2]\nb = 2\n[t]\nx = 1\ny = 2"));
    }

    #[test]
    fn tables_sharing_a_code_merge_by_key() {
        let (merged, _) = merge(
            table("m = [{code = 'a', v = 1}, {code = 'b', v = 1}]"),
            table("m = [{code = 'b', v = 2}, {code = 'c', v = 2}]"),
        );
        assert_eq!(
            merged,
            table("m = [{code = 'a', v = 1}, {code = 'b', v = 2}, {code = 'c', v = 2}]")
        );
    }

    #[test]
    fn the_built_in_defaults_carry_every_documented_key() {
        let table = parse_layer(BUILTIN_DEFAULTS.as_bytes()).unwrap();
        let workflow = table["workflow"].as_table().unwrap();
        for key in PATH_KEYS.iter().chain(&[
            "epic_branch_prefix",
            "protected_branches",
            "max_turns_per_story",
        ]) {
            assert!(workflow.contains_key(*key), "{key}");
        }
        assert_eq!(workflow["max_turns_per_story"].as_integer(), Some(25));
        // The gate and the budget hook fall back to the same directory without reading these.
        let impl_dir = format!("{{project-root}}/{}", crate::DEFAULT_IMPL_DIR);
        assert_eq!(
            workflow["implementation_artifacts"].as_str(),
            Some(&*impl_dir)
        );
    }

    #[test]
    fn leftover_tokens_are_found() {
        assert_eq!(leftover_token("{output}/x"), Some("{output}".into()));
        assert_eq!(leftover_token("/plain/path"), None);
    }
}
