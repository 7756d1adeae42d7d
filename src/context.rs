//! Locating a run (docs/product.md §2): the repository (with git's environment overrides), the project
//! root, `{ucg-root}`, the configuration, and the artifact directories, each resolved once here.

use crate::cli::{Cli, DeferredWork, ImplArtifacts};
use crate::config_keys as keys;
use crate::error::{Error, Result};
use crate::output::{self, Output};
use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use ucg_git::Repository;
use ucg_ultracode::bypass::{self, Bypass};
use ucg_ultracode::config::Config;
use ucg_ultracode::epic::EpicInputs;
use ucg_ultracode::gate::{GateInputs, GatePolicy, WorkTreeRun};

/// Environment variable naming the implementation-artifacts directory (the hooks' override).
pub(crate) use ucg_ultracode::IMPL_ARTIFACTS_ENV;

/// What every command gets: the global options and lazy access to the repository.
#[derive(Default)]
pub(crate) struct Context {
    pub color: bool,
    pub no_pager: bool,
    repo: OnceCell<std::result::Result<Repository, String>>,
    config: OnceCell<Config>,
    /// Whether a warning was printed (the hooks remember no pass that warned).
    warned: std::cell::Cell<bool>,
}

impl Context {
    /// Applies `-C` (like git: each relative to the previous) and reads the global options.
    pub(crate) fn new(cli: &Cli) -> Result<Context> {
        for dir in &cli.chdir {
            if dir.as_os_str().is_empty() {
                continue;
            }
            std::env::set_current_dir(dir)
                .map_err(|e| Error::new(format!("cannot change to '{}': {e}", dir.display())))?;
        }
        Ok(Context {
            color: output::use_color(cli.color),
            no_pager: cli.no_pager,
            ..Context::default()
        })
    }

    /// A context for the repository at `dir`, whatever the current directory (the demo shows the
    /// status of the repository it just built).
    pub(crate) fn at(dir: &Path, color: bool) -> Context {
        Context {
            color,
            no_pager: true,
            repo: OnceCell::from(ucg_git::repo::discover(dir).map_err(|e| e.to_string())),
            ..Context::default()
        }
    }

    /// The repository around the current directory, honouring `GIT_DIR`, `GIT_WORK_TREE` and the
    /// rest of git's environment, as a hook run by git must.
    pub(crate) fn repo(&self) -> Result<&Repository> {
        self.discovered().map_err(|reason| {
            Error::new(format!("not in a git repository ({reason})"))
                .hint("run this inside the project's work tree, use -C <path>, or pass the artifact paths explicitly")
        })
    }

    /// The repository search, done once; its failure is the reason, as text.
    fn discovered(&self) -> std::result::Result<&Repository, &String> {
        self.repo
            .get_or_init(|| {
                let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
                let repo =
                    ucg_git::repo::discover_from_environment(&cwd).map_err(|e| e.to_string())?;
                if let Some(cap) = ucg_git::config_u64(&repo, keys::MAX_ARTIFACT_BYTES.name) {
                    ucg_store::set_max_artifact_bytes(cap);
                }
                Ok(repo)
            })
            .as_ref()
    }

    /// The project root: the root of the work tree we are in (a linked worktree's own root).
    pub(crate) fn project_root(&self) -> Result<PathBuf> {
        self.repo()?.workdir().map(absolute).ok_or_else(|| {
            Error::new("this repository has no work tree (bare repository)")
                .hint("run this inside a checkout, or pass the artifact paths explicitly")
        })
    }

    /// The project root when there is one; `None` outside any repository.
    pub(crate) fn try_project_root(&self) -> Option<PathBuf> {
        self.project_root().ok()
    }

    /// The project's configuration, loaded once; its warnings are printed to stderr then.
    pub(crate) fn config(&self) -> Result<&Config> {
        if let Some(config) = self.config.get() {
            return Ok(config);
        }
        let config = Config::load(&self.project_root()?)?;
        for warning in &config.warnings {
            self.warn(warning);
        }
        Ok(self.config.get_or_init(|| config))
    }

    /// Prints a warning on stderr.
    fn warn(&self, warning: &str) {
        self.warned.set(true);
        eprintln!("warning: {warning}");
    }

    /// Whether a warning was printed.
    pub(crate) fn warned(&self) -> bool {
        self.warned.get()
    }

    /// The implementation-artifacts directory: the flag, else `ULTRACODE_IMPL_ARTIFACTS`, else the
    /// configuration.
    pub(crate) fn impl_artifacts(&self, flag: Option<&Path>) -> Result<PathBuf> {
        if let Some(dir) = flag {
            return Ok(dir.to_path_buf());
        }
        if let Some(dir) = std::env::var_os(IMPL_ARTIFACTS_ENV).filter(|v| !v.is_empty()) {
            return Ok(PathBuf::from(dir));
        }
        // Nothing says where the run is and no repository surrounds us: name what would say it,
        // as the reference's argument parser does (`--impl-artifacts` is required there).
        if let Err(reason) = self.discovered() {
            return Err(Error::new(format!(
                "cannot locate the run: pass --impl-artifacts DIR (not in a git repository: {reason})"
            ))
            .hint("--impl-artifacts names the implementation-artifacts directory; ULTRACODE_IMPL_ARTIFACTS or running inside the project (-C <path>) locates it too")
            .with_usage());
        }
        let config = self.config()?;
        config.path("implementation_artifacts")?.ok_or_else(|| {
            Error::new("workflow.implementation_artifacts is not set in any configuration layer")
        })
    }

    /// The deferred-work ledger: the flag, else `workflow.deferred_work_path` when the artifact
    /// directory came from the configuration too, else `deferred-work.md` in the artifact directory
    /// (the reference's default, and the only sensible one once the directory was moved by a flag
    /// or `ULTRACODE_IMPL_ARTIFACTS`).
    pub(crate) fn deferred_work(
        &self,
        flag: Option<&Path>,
        impl_flag: Option<&Path>,
        impl_dir: &Path,
    ) -> PathBuf {
        if let Some(path) = flag {
            return path.to_path_buf();
        }
        let configured = impl_flag.is_none()
            && std::env::var_os(IMPL_ARTIFACTS_ENV).is_none_or(|v| v.is_empty());
        configured
            .then(|| {
                self.config()
                    .ok()?
                    .path("deferred_work_path")
                    .ok()
                    .flatten()
            })
            .flatten()
            .unwrap_or_else(|| impl_dir.join(ucg_ultracode::ledger::LEDGER_FILE))
    }

    /// The run's artifact directory and its deferred-work ledger, as the flags, the environment
    /// and the configuration name them.
    pub(crate) fn run_files(
        &self,
        impl_flag: &ImplArtifacts,
        ledger_flag: &DeferredWork,
    ) -> Result<(PathBuf, PathBuf)> {
        let impl_dir = self.impl_artifacts(impl_flag.dir.as_deref())?;
        let ledger = self.deferred_work(
            ledger_flag.file.as_deref(),
            impl_flag.dir.as_deref(),
            &impl_dir,
        );
        Ok((impl_dir, ledger))
    }

    /// Where artifacts are read from: the tree of `rev` (read commands' `--rev`), else the work
    /// tree.
    pub(crate) fn artifact_source(&self, rev: Option<&str>) -> Result<ucg_git::ArtifactSource<'_>> {
        match rev {
            None => Ok(ucg_git::ArtifactSource::WorkTree),
            Some(rev) => {
                let root = self.project_root()?;
                ucg_git::ArtifactSource::at_rev(self.repo()?, rev, &root).map_err(Error::from)
            }
        }
    }

    /// What `epic`, `diff`, `status` and `resume` need located (`impl_flag` overrides the
    /// artifact directory; `epic` is `--epic`).
    pub(crate) fn epic_inputs(
        &self,
        impl_flag: Option<&Path>,
        epic: Option<String>,
    ) -> Result<EpicInputs> {
        let impl_dir = self.impl_artifacts(impl_flag)?;
        let config = self.config()?;
        Ok(EpicInputs {
            impl_dir,
            project_root: self.project_root()?,
            branch_prefix: config.epic_branch_prefix(),
            protected_branches: config.protected_branches(),
            epic,
        })
    }

    /// Where the gate's decision reads from, as absolute paths.
    pub(crate) fn gate_inputs(&self, impl_flag: Option<&Path>) -> Result<GateInputs> {
        let project_root = self.project_root()?;
        let impl_dir = std::path::absolute(self.impl_artifacts(impl_flag)?)?;
        let ledger = std::path::absolute(self.deferred_work(None, impl_flag, &impl_dir))?;
        Ok(GateInputs {
            project_root,
            impl_dir,
            ledger,
        })
    }

    /// Whether the repository has no work tree (a bare one, as a shared remote is).
    pub(crate) fn is_bare(&self) -> bool {
        self.repo().is_ok_and(|repo| repo.workdir().is_none())
    }

    /// Where the gate's decision (and `notify`'s) reads: the work tree, or the tree of `rev`. A
    /// bare repository (the shared remote) has no work tree, nor a configuration outside the
    /// commits: a commit is judged from its tree alone, as its pre-receive hook judges a push.
    /// `command` names the command in the hint a bare repository without `--rev` gets.
    pub(crate) fn gate_source(
        &self,
        rev: Option<&str>,
        impl_flag: Option<&Path>,
        command: &str,
    ) -> Result<(GateInputs, ucg_git::ArtifactSource<'_>)> {
        match (rev, self.is_bare()) {
            (Some(rev), true) => self.commit_gate_inputs(rev, impl_flag),
            (None, true) => Err(Error::new(
                "this repository has no work tree (bare repository): nothing to read there",
            )
            .hint(format!("read a commit's tree: git ucg {command} --rev REV"))),
            (rev, false) => Ok((self.gate_inputs(impl_flag)?, self.artifact_source(rev)?)),
        }
    }

    /// A commit judged from its tree alone, as a repository without a work tree must (the shared
    /// remote's pre-receive hook, `gate --rev` in a bare repository): its tree, and where its run
    /// is by the configuration that tree carries (`impl_flag`, relative to the tree's root,
    /// overrides the directory). The tree's paths stand under the project root, or the git
    /// directory of a bare repository.
    pub(crate) fn commit_gate_inputs(
        &self,
        rev: &str,
        impl_flag: Option<&Path>,
    ) -> Result<(GateInputs, ucg_git::ArtifactSource<'_>)> {
        let repo = self.repo()?;
        let root = self
            .try_project_root()
            .unwrap_or_else(|| absolute(repo.git_dir()));
        let source = ucg_git::ArtifactSource::at_rev(repo, rev, &root).map_err(Error::from)?;
        let (mut inputs, warnings) = ucg_ultracode::gate::located_in_tree(&source, &root)?;
        for warning in warnings {
            eprintln!("warning: {rev}: {warning}");
        }
        if let Some(dir) = impl_flag {
            inputs.impl_dir = root.join(dir);
            inputs.ledger = inputs.impl_dir.join(ucg_ultracode::ledger::LEDGER_FILE);
        }
        Ok((inputs, source))
    }

    /// The runs of every work tree of the repository (the hooks are shared by all of them): this
    /// one's, located as `own` says, then each linked or main work tree's by its configuration.
    pub(crate) fn work_tree_runs(&self, own: &GateInputs) -> Vec<WorkTreeRun> {
        let mut runs = vec![WorkTreeRun {
            inputs: own.clone(),
            epic_branch: self
                .config()
                .ok()
                .and_then(|config| ucg_ultracode::gate::epic_branch(config, &own.impl_dir)),
        }];
        runs.extend(self.other_work_tree_runs(&own.project_root));
        runs
    }

    /// The runs of the repository's other work trees (none, and no file read, in a repository
    /// without linked worktrees).
    pub(crate) fn other_work_tree_runs(&self, own_root: &Path) -> Vec<WorkTreeRun> {
        let Ok(repo) = self.repo() else {
            return Vec::new();
        };
        ucg_git::repo::work_trees(repo)
            .into_iter()
            .filter(|root| root != own_root)
            .filter_map(|root| ucg_ultracode::gate::work_tree_run(&root))
            .collect()
    }

    /// A key of git's configuration (`None` outside a repository).
    pub(crate) fn config_string(&self, key: &str) -> Option<String> {
        ucg_git::config_string(self.repo().ok()?, key)
    }

    /// Every value of a multi-valued key of git's configuration.
    pub(crate) fn config_strings(&self, key: &str) -> Option<Vec<String>> {
        ucg_git::config_strings(self.repo().ok()?, key)
    }

    /// The gate's policy from git's configuration (`ucg.gate.sources`, `ucg.gate.scope`); a
    /// source name it does not know is a warning on stderr.
    pub(crate) fn gate_policy(&self) -> GatePolicy {
        let (policy, warnings) = GatePolicy::from_config(
            self.config_string(keys::GATE_SOURCES.name).as_deref(),
            self.config_string(keys::GATE_SCOPE.name).as_deref(),
        );
        for warning in warnings {
            self.warn(&warning);
        }
        policy
    }

    /// The user's email for `--mine` (git's `user.email`), or the error saying how to set it;
    /// `alternative` is the command's other way to name someone.
    pub(crate) fn my_email(&self, alternative: &str) -> Result<String> {
        self.repo()
            .ok()
            .and_then(ucg_git::user_email)
            .ok_or_else(|| {
                Error::new("--mine needs your email: git config user.email is not set")
                    .hint(format!("set it{alternative}"))
            })
    }

    /// Gives `pending`'s items what every view shows beyond their artifacts: whether the gate
    /// blocks on each, and who decides it.
    pub(crate) fn annotate(&self, pending: &mut ucg_ultracode::pending::Pending) {
        pending.annotate(&self.gate_policy(), &self.decider_rules());
    }

    /// Who decides what (`git config ucg.decider`, over the layers' `workflow.deciders` table);
    /// a rule that cannot be read is a warning on stderr.
    pub(crate) fn decider_rules(&self) -> ucg_ultracode::deciders::Rules {
        let git = self.config_strings(keys::DECIDER.name).unwrap_or_default();
        let mut workflow = Vec::new();
        let table = self
            .config()
            .ok()
            .and_then(|config| config.expanded("deciders").ok().flatten());
        if let Some(toml::Value::Table(table)) = table {
            for (pattern, who) in table {
                match who {
                    toml::Value::String(email) => workflow.push((pattern, email)),
                    toml::Value::Array(emails) => workflow.extend(
                        emails
                            .iter()
                            .filter_map(|e| e.as_str())
                            .map(|email| (pattern.clone(), email.to_string())),
                    ),
                    _ => eprintln!(
                        "warning: workflow.deciders.{pattern} is not an email or a list of them; ignored"
                    ),
                }
            }
        }
        let (rules, warnings) = ucg_ultracode::deciders::Rules::new(&git, &workflow);
        for warning in warnings {
            eprintln!("warning: {warning}");
        }
        rules
    }

    /// `ucg.similarity` in git's configuration: how alike (0 to 1) a reworded question's words
    /// must be to an answered one's to be offered its answer. Unset: the default; a value outside
    /// 0..1 (or not a number) is the error.
    pub(crate) fn similarity_threshold(&self) -> std::result::Result<f64, String> {
        match self.config_string(keys::SIMILARITY.name) {
            None => Ok(ucg_ultracode::similarity::DEFAULT_THRESHOLD),
            Some(value) => ucg_ultracode::similarity::threshold(&value),
        }
    }

    /// Whether strict mode is on (`ucg.gate.strict` in git's configuration).
    pub(crate) fn strict_mode(&self) -> bool {
        self.repo()
            .ok()
            .and_then(|repo| ucg_git::config_bool(repo, keys::GATE_STRICT.name))
            .unwrap_or(false)
    }

    /// Where git runs hooks, `..` resolved, and the raw `core.hooksPath`.
    pub(crate) fn hooks_dir(&self) -> Result<(PathBuf, Option<String>)> {
        let (dir, configured) = ucg_git::hooks::hooks_dir(self.repo()?, || self.hooks_home())?;
        Ok((ucg_store::lexical_normal(&dir), configured))
    }

    /// The directory git runs hooks in, which a relative `core.hooksPath` is relative to: the
    /// work tree's root, or the git directory of a bare repository.
    pub(crate) fn hooks_home(&self) -> Result<PathBuf> {
        match self.try_project_root() {
            Some(root) => Ok(root),
            None => Ok(absolute(self.repo()?.git_dir())),
        }
    }

    /// The refs the shared remote's gate protects: every `ucg.gate.protect` value (a branch name
    /// or a full ref name), else `main` and `master`.
    pub(crate) fn gate_protected(&self) -> Vec<String> {
        self.config_strings(keys::GATE_PROTECT.name)
            .unwrap_or_else(|| {
                ucg_ultracode::gate::PROTECTED_BY_DEFAULT
                    .map(String::from)
                    .to_vec()
            })
    }

    /// The bypass records on this repository's commits made at or after `stopped` (the run's
    /// heartbeat time; `None`: all), oldest first. Nothing when there is no notes ref; a notes
    /// ref that cannot be read is a warning and shows nothing.
    pub(crate) fn bypasses_since(&self, stopped: Option<&str>) -> Vec<Bypass> {
        let Ok(repo) = self.repo() else {
            return Vec::new();
        };
        match ucg_git::notes::notes(repo, bypass::NOTES_REF) {
            Ok(notes) => bypass::since(
                notes
                    .iter()
                    .flat_map(|(commit, note)| bypass::parse(commit, note))
                    .collect(),
                stopped,
            ),
            Err(e) => {
                self.warn(&format!(
                    "cannot read the bypass records ({}): {e}",
                    bypass::NOTES_REF
                ));
                Vec::new()
            }
        }
    }

    /// What the server gate does with a pushed commit that has a bypass on record
    /// (`ucg.gate.bypass`): a value it does not know warns and reports.
    pub(crate) fn gate_bypass(&self) -> BypassPolicy {
        match self.config_string(keys::GATE_BYPASS.name).as_deref() {
            None | Some("report") => BypassPolicy::Report,
            Some("allow") => BypassPolicy::Allow,
            Some("refuse") => BypassPolicy::Refuse,
            Some(other) => {
                self.warn(&format!(
                    "{} = {other:?} is not allow, report or refuse: reporting",
                    keys::GATE_BYPASS.name
                ));
                BypassPolicy::Report
            }
        }
    }

    /// Shows `bytes` through the pager ([`Context::paged_output`]); the command's exit 0.
    pub(crate) fn page(&self, bytes: impl AsRef<[u8]>) -> Result<u8> {
        let mut out = self.paged_output();
        std::io::Write::write_all(&mut out, bytes.as_ref())?;
        out.finish()?;
        Ok(0)
    }

    /// [`Context::page`] for text a person reads: wrapped to the terminal's columns.
    pub(crate) fn page_prose(&self, text: &str) -> Result<u8> {
        self.page(crate::render::fit::reflow(text, output::columns()))
    }

    /// Where long human output goes: through the pager on a terminal unless `--no-pager`.
    pub(crate) fn paged_output(&self) -> Output {
        let core_pager = self.config_string("core.pager");
        Output::paged(output::resolve_pager(self.no_pager, core_pager))
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `ucg.gate.bypass`: the server gate's way with a pushed commit whose bypass is on record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BypassPolicy {
    Allow,
    Report,
    Refuse,
}
