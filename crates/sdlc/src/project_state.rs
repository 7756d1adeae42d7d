//! The project's own pipeline state (seed 003, "Reading a project's own pipeline state"): when
//! `.agentic/agentic-sdlc/config.json` names a neutral state file
//! (`project_orchestration.state_file`, a path inside the project), that file is the authority on
//! what the project's pipeline is running — its active pipeline, current role, the roles that may
//! come next, its serialized gate results, changed files and blockers — and is shown as it says,
//! never inferred. The reference names the file but gives it no schema: these six keys of a JSON
//! object are read, each as written; anything else in it is left alone.

use serde_json::Value;
use std::path::Path;

/// The package's configuration, relative to the project root.
pub const CONFIG: &str = ".agentic/agentic-sdlc/config.json";

/// The fields shown, in order, with their labels.
pub const FIELDS: [(&str, &str); 6] = [
    ("active_pipeline", "active pipeline"),
    ("current_role", "current role"),
    ("next_roles", "next roles"),
    ("gate_results", "gate results"),
    ("changed_files", "changed files"),
    ("blockers", "blockers"),
];

/// What the project's configuration leads to.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectState {
    /// No configuration, or one that names no state file.
    NotConfigured,
    /// The state file (its path as configured) and the fields it holds (absent ones `null`).
    Read {
        path: String,
        fields: Vec<(String, Value)>,
    },
    /// Named, but not readable as a JSON object inside the project: why.
    Unreadable { path: String, why: String },
}

impl ProjectState {
    /// The `--json` form: `null` when not configured; else the path and each field (or `error`).
    pub fn to_json(&self) -> Value {
        match self {
            ProjectState::NotConfigured => Value::Null,
            ProjectState::Read { path, fields } => {
                let mut doc = serde_json::Map::new();
                doc.insert("path".into(), path.clone().into());
                for (key, value) in fields {
                    doc.insert(key.clone(), value.clone());
                }
                Value::Object(doc)
            }
            ProjectState::Unreadable { path, why } => {
                serde_json::json!({"path": path, "error": why})
            }
        }
    }
}

/// The project's pipeline state under the project root `root`.
pub fn read(root: &Path) -> ProjectState {
    let config = match ucg_store::read_file(root.join(CONFIG)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return ProjectState::NotConfigured,
        Err(e) => {
            return ProjectState::Unreadable {
                path: CONFIG.into(),
                why: e.to_string(),
            }
        }
    };
    let named = serde_json::from_slice::<Value>(&config)
        .ok()
        .and_then(|doc| {
            doc.get("project_orchestration")?
                .get("state_file")?
                .as_str()
                .map(str::to_string)
        });
    let Some(path) = named else {
        return ProjectState::NotConfigured;
    };
    let unreadable = |why: String| ProjectState::Unreadable {
        path: path.clone(),
        why,
    };
    let target = root.join(&path);
    let inside = |p: &Path| {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        p.canonicalize().is_ok_and(|p| p.starts_with(&root))
    };
    if Path::new(&path).is_absolute() || (target.exists() && !inside(&target)) {
        return unreadable("outside the project: not read".into());
    }
    let bytes = match ucg_store::read_file(&target) {
        Ok(bytes) => bytes,
        Err(e) => return unreadable(e.to_string()),
    };
    let Ok(Value::Object(state)) = serde_json::from_slice::<Value>(&bytes) else {
        return unreadable("not a JSON object".into());
    };
    let fields = FIELDS
        .iter()
        .map(|(key, _)| {
            (
                key.to_string(),
                state.get(*key).cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    ProjectState::Read { path, fields }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(config: &str, state: Option<&str>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let config_path = dir.path().join(CONFIG);
        std::fs::create_dir_all(config_path.parent().unwrap_or(dir.path()))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&config_path, config).unwrap_or_else(|e| panic!("{e}"));
        if let Some(state) = state {
            std::fs::write(dir.path().join("state.json"), state).unwrap_or_else(|e| panic!("{e}"));
        }
        dir
    }

    #[test]
    fn the_named_state_is_read_as_written_and_nothing_else_is_guessed() {
        let named = r#"{"project_orchestration": {"state_file": "state.json"}}"#;
        let dir = project(
            named,
            Some(r#"{"active_pipeline": "delivery", "next_roles": ["qa"], "other": 1}"#),
        );
        let ProjectState::Read { path, fields } = read(dir.path()) else {
            panic!("read");
        };
        assert_eq!(path, "state.json");
        assert_eq!(fields[0], ("active_pipeline".into(), "delivery".into()));
        assert_eq!(fields[1], ("current_role".into(), Value::Null));
        assert_eq!(fields[2].1, serde_json::json!(["qa"]));
        assert_eq!(
            read(project("{}", None).path()),
            ProjectState::NotConfigured
        );
        use ProjectState::Unreadable;
        let outside = r#"{"project_orchestration": {"state_file": "/etc/passwd"}}"#;
        for (config, state) in [(named, Some("[1]")), (named, None), (outside, None)] {
            let state_read = read(project(config, state).path());
            assert!(
                matches!(state_read, Unreadable { .. }),
                "{config} {state:?}"
            );
        }
    }
}
