//! The one decision the git hooks and `git ucg gate` share (docs/product.md §5.2): blocked while
//! anything of the gated sources is pending, or while the RED registry is corrupt (the gate fails
//! closed where the registry writer does). Raw escalation markers do not block: nothing can
//! answer them until the run promotes them.

use crate::config::{Config, ConfigError};
pub use crate::pending::GatePolicy;
use crate::pending::{self, Blocker, Pending, PendingInputs, PendingItem, Source};
use std::path::{Path, PathBuf};
use ucg_git::ArtifactSource;

/// What blocks.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Decision {
    pub blocking: Vec<PendingItem>,
    pub blockers: Vec<Blocker>,
}

impl Decision {
    /// The decision with each blocking item's deciders (for the refusal, which names them).
    pub fn with_deciders(mut self, rules: &crate::deciders::Rules) -> Decision {
        pending::assign_deciders(&mut self.blocking, rules);
        self
    }

    pub fn blocked(&self) -> bool {
        !self.blocking.is_empty() || !self.blockers.is_empty()
    }
}

pub fn decide(mut pending: Pending, policy: &GatePolicy) -> Decision {
    pending.apply_policy(policy);
    let mut blockers = pending.blockers;
    // A typed escalation that cannot be read still escalates: it blocks until repaired.
    if policy.gates(Source::Escalation) {
        blockers.extend(pending.unreadable.into_iter().map(|artifact| Blocker {
            reason: "an escalation sidecar that is not the object of four string fields it must be".into(),
            way_out: format!(
                "repair {artifact} (kind, source, decision_needed, evidence), or delete it if the escalation is settled"
            ),
            artifact,
        }));
    }
    Decision {
        blocking: pending
            .items
            .into_iter()
            .filter(|item| item.blocks_gate)
            .collect(),
        blockers,
    }
}

/// The branches the shared remote's gate protects when `ucg.gate.protect` is not set.
pub const PROTECTED_BY_DEFAULT: [&str; 2] = ["main", "master"];

/// Whether `reference` (a full ref name, as a pre-receive hook reads it) is one of `protected`:
/// a branch name (`main`, for `refs/heads/main`) or a full ref name. An empty value names none.
pub fn protects(protected: &[String], reference: &str) -> bool {
    let branch = reference.strip_prefix("refs/heads/");
    protected
        .iter()
        .filter(|name| !name.is_empty())
        .any(|name| name == reference || Some(name.as_str()) == branch)
}

/// Where the decision reads from.
#[derive(Debug, Clone)]
pub struct GateInputs {
    pub project_root: PathBuf,
    pub impl_dir: PathBuf,
    pub ledger: PathBuf,
}

impl GateInputs {
    /// The same three paths, borrowed, as the pending enumeration takes them.
    pub fn pending(&self) -> PendingInputs<'_> {
        PendingInputs {
            project_root: &self.project_root,
            impl_dir: &self.impl_dir,
            ledger: &self.ledger,
        }
    }

    /// The decision on the artifacts `source` holds, under `policy`.
    pub fn decide(&self, source: &ArtifactSource, policy: &GatePolicy) -> Decision {
        decide(pending::enumerate(&self.pending(), source), policy)
    }

    /// Every file the decision on the work tree reads, the artifact directory holding `names`
    /// ([`escalation_names`]: of the directory itself, only they count): the registry, the
    /// answers, the ledger, and each escalation sidecar.
    pub fn read_paths(&self, names: &[String]) -> Vec<PathBuf> {
        let mut paths = vec![
            self.impl_dir.join(crate::reds::REGISTRY_FILE),
            self.impl_dir.join(crate::decisions::DECISIONS_FILE),
            self.ledger.clone(),
        ];
        for name in names {
            if crate::escalations::sidecar_story(name).is_some() {
                paths.push(self.impl_dir.join(name));
            }
        }
        paths
    }
}

/// What the decision on the work tree takes from the artifact directory itself: whether it is a
/// directory (`None`: nothing is decided), and the names of its escalation sidecars and raw
/// markers, sorted — the heartbeat, the turn counters and any other file in it change nothing.
pub fn escalation_names(impl_dir: &Path) -> Option<Vec<String>> {
    use crate::escalations::{marker_story, sidecar_story};
    if !impl_dir.is_dir() {
        return None;
    }
    let mut names: Vec<String> = ArtifactSource::WorkTree
        .list(impl_dir)
        .into_iter()
        .filter(|name| sidecar_story(name).is_some() || marker_story(name).is_some())
        .collect();
    names.sort();
    Some(names)
}

/// A run in one of the repository's work trees: where it reads, and the branch it lands on.
pub struct WorkTreeRun {
    pub inputs: GateInputs,
    /// The run's epic branch: `epic_branch_prefix` and the heartbeat's epic.
    pub epic_branch: Option<String>,
}

/// The run of the work tree at `root`, located by its own configuration (`None` when it has no
/// artifact directory).
pub fn work_tree_run(root: &Path) -> Option<WorkTreeRun> {
    let config = Config::load(root).ok()?;
    let inputs = located_by(&config, root).ok()?;
    if !inputs.impl_dir.is_dir() {
        return None;
    }
    Some(WorkTreeRun {
        epic_branch: epic_branch(&config, &inputs.impl_dir),
        inputs,
    })
}

/// Where the run of the project at `root` is, by its configuration: `implementation_artifacts`
/// (else [`crate::DEFAULT_IMPL_DIR`]), `deferred_work_path` (else `deferred-work.md` in it). An
/// artifact directory that cannot be resolved is the error.
fn located_by(config: &Config, root: &Path) -> Result<GateInputs, ConfigError> {
    let impl_dir = root.join(
        config
            .path("implementation_artifacts")?
            .unwrap_or_else(|| crate::DEFAULT_IMPL_DIR.into()),
    );
    // As the context does: a ledger path that cannot be resolved is the default one.
    let ledger = match config.path("deferred_work_path").ok().flatten() {
        Some(path) => root.join(path),
        None => impl_dir.join(crate::ledger::LEDGER_FILE),
    };
    Ok(GateInputs {
        project_root: root.to_path_buf(),
        impl_dir,
        ledger,
    })
}

/// Where the commit whose tree `source` reads keeps its run, by the configuration that tree
/// carries (its `customize.toml` layers, else the built-in defaults), `root` standing for the
/// tree's root: how a repository without a work tree — the shared remote's pre-receive hook,
/// `gate --rev` in a bare repository — judges a commit from its tree alone. Also the warnings of
/// the layers it ignored. A configuration that cannot be resolved is the error (the gate fails
/// closed on it).
pub fn located_in_tree(
    source: &ArtifactSource,
    root: &Path,
) -> Result<(GateInputs, Vec<String>), ConfigError> {
    let config = Config::load_from(root, source)?;
    Ok((located_by(&config, root)?, config.warnings))
}

/// The branch the run in `impl_dir` lands on: `epic_branch_prefix` and the heartbeat's epic.
pub fn epic_branch(config: &Config, impl_dir: &Path) -> Option<String> {
    crate::heartbeat::read(&ArtifactSource::WorkTree, impl_dir)
        .epic
        .map(|epic| format!("{}{epic}", config.epic_branch_prefix()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_refs_by_branch_or_full_name() {
        let protected = vec!["main".to_string(), "refs/heads/release".into(), "".into()];
        assert!(protects(&protected, "refs/heads/main"));
        assert!(protects(&protected, "refs/heads/release"));
        assert!(!protects(&protected, "refs/heads/feature/main"));
        assert!(!protects(&protected, "refs/tags/main"));
        assert!(!protects(&protected, "refs/heads/"));
        assert!(!protects(&[String::new()], "refs/heads/main"));
    }
}
