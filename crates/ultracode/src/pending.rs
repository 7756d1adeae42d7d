//! What a stopped run waits on: the pending decisions from exactly three sources (docs/product.md §4),
//! each with its stable id. This is the one enumeration: status shows it, `pending` lists it,
//! `resolve` answers it, the hooks gate on it.
//!
//! 1. `.preflight-reds.json` `reds[]`: the id as stored (never re-derived); pending unless closed
//!    in `.decisions.json`. A corrupt registry is a blocker of its own.
//! 2. `escalation-<story>.json`: id = mint(kind, source, decision_needed) of its fields; pending
//!    while the sidecar exists. A raw `.escalation-<story>.md` without a sidecar is unpromoted: shown,
//!    not answerable until promoted — unless a close on record names it (the residual a close
//!    leaves on purpose). A close bound to an occurrence (the SHA-256 of the sidecar it answered)
//!    does not answer a sidecar with other bytes under the same id: a recurrence is pending again.
//! 3. Deferred-work ledger rows with `source` `decision` and `status` `open`, in every table: id =
//!    mint("decision", the ledger's path relative to the project root, the row's reason).

use crate::decisions::{self, IdRefs, DECISIONS_FILE};
use crate::merge::CONTESTED;
use crate::reds::{shown, Registry, REGISTRY_FILE};
use crate::{escalations, ids, ledger, similarity};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;
use ucg_git::ArtifactSource;
use ucg_store::pyjson::{self, Value};

/// Which of the three sources an item comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Red,
    Escalation,
    Decision,
}

impl Source {
    /// Its name, as `--json` writes it.
    pub fn name(self) -> &'static str {
        match self {
            Source::Red => "red",
            Source::Escalation => "escalation",
            Source::Decision => "decision",
        }
    }

    /// Its name for a person: the ledger's rows are `ledger` (their kind says `decision`).
    pub fn label(self) -> &'static str {
        match self {
            Source::Red => "RED",
            Source::Escalation => "escalation",
            Source::Decision => "ledger",
        }
    }
}

/// One decision the run waits on.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PendingItem {
    pub id: String,
    pub source: Source,
    pub kind: String,
    /// The file it lives in, relative to the project root where possible.
    pub artifact: String,
    pub decision_needed: String,
    pub evidence: String,
    /// The answer on record in `.decisions.json`, if any (a `defer`, or a `close` not yet applied).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// A ledger decision's own row id (`d2`), which names it too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    /// Who decides it (`ucg.decider` rules; empty when none names its kind).
    pub deciders: Vec<String>,
    /// Whether the gate refuses a commit or push while it waits (`ucg.gate.sources` names its
    /// source; true until [`Pending::apply_policy`] says otherwise).
    pub blocks_gate: bool,
    /// An escalation's occurrence: the lowercase hex SHA-256 of its sidecar's bytes as read. A
    /// close recorded with another occurrence answered an earlier escalation with the same id.
    #[serde(skip)]
    pub occurrence: Option<String>,
    /// The item's source as its artifact names it: a RED's registry `source` (`docs/prd.md:7`),
    /// an escalation's `source`, the ledger's path for a ledger decision.
    #[serde(skip)]
    pub origin: String,
    /// An answer on record for an earlier wording of this question (same kind, same source
    /// file, a similar decision text), when this item has none of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similar_to: Option<SimilarTo>,
    /// For a `contested` decision: the answers the two sides of a merge gave.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contested: Vec<ContestedAnswer>,
}

/// An earlier question's answer a pending item may reuse (see [`offer_similar`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SimilarTo {
    pub id: String,
    pub action: String,
    pub answer: String,
    /// The word ratio of the two decision texts (`ucg::similarity::ratio`).
    pub ratio: f64,
    /// The earlier question, as recorded with its answer.
    #[serde(skip)]
    pub decision_needed: String,
}

/// An answer on record that kept the question it answered (its `decision_needed`), in the scope
/// (kind and source file) of some item: what a reworded question may reuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Earlier<'e> {
    pub id: Cow<'e, str>,
    pub answer: Cow<'e, str>,
    pub action: Cow<'e, str>,
    pub decision_needed: Cow<'e, str>,
}

impl PendingItem {
    /// An item as its artifact shows it: its question empty until the caller sets it (struct
    /// update syntax), nothing on record, no decider, no similar answer. Every item is built
    /// through here, so a new field is added in one place.
    pub fn new(source: Source, id: String, kind: String, artifact: String) -> PendingItem {
        PendingItem {
            id,
            source,
            kind,
            artifact,
            decision_needed: String::new(),
            evidence: String::new(),
            answer: None,
            action: None,
            row: None,
            deciders: Vec::new(),
            blocks_gate: true,
            occurrence: None,
            origin: String::new(),
            similar_to: None,
            contested: Vec::new(),
        }
    }

    /// The short handle people type: the id's 12-hex hash (its last `:` field).
    pub fn handle(&self) -> &str {
        handle_of(&self.id)
    }

    /// How a person knows the item: its handle, and a ledger row's own id beside it
    /// (`86a2bcce9526 (d2)`); every handle and every row id is taken where an id is.
    pub fn label(&self) -> String {
        match &self.row {
            Some(row) => format!("{} ({row})", self.handle()),
            None => self.handle().to_string(),
        }
    }
}

/// The short handle of an item's `id`: its 12-hex hash (the last `:` field).
pub fn handle_of(id: &str) -> &str {
    id.rsplit(':').next().unwrap_or(id)
}

/// What stops the enumeration from being complete.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Blocker {
    pub artifact: String,
    pub reason: String,
    pub way_out: String,
}

/// Everything pending, in the pass's order: REDs, escalations, ledger rows (file order within).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Pending {
    pub items: Vec<PendingItem>,
    /// Raw escalation markers without a typed sidecar: shown, not answerable yet.
    pub unpromoted: Vec<String>,
    /// Typed sidecars that cannot be read as the four-field object they must be.
    pub unreadable: Vec<String>,
    pub blockers: Vec<Blocker>,
    /// The ids of every RED in the registry, closed or not (for `resolve`, which may be asked to
    /// answer one again).
    #[serde(skip)]
    pub registry_ids: Vec<String>,
    /// The registry is there but is not a registry (its blocker is among `blockers`).
    #[serde(skip)]
    pub registry_corrupt: bool,
}

impl Pending {
    /// Marks each item the gate blocks on under `policy`: the same items `gate` and the hooks
    /// refuse on, so that every view says which they are.
    pub(crate) fn apply_policy(&mut self, policy: &GatePolicy) {
        for item in &mut self.items {
            item.blocks_gate = policy.gates(item.source);
        }
    }

    /// What every view of an item shows beyond its artifact, from the configuration: whether
    /// the gate blocks on it (`policy`), and who decides it (`rules`).
    pub fn annotate(&mut self, policy: &GatePolicy, rules: &crate::deciders::Rules) {
        self.apply_policy(policy);
        assign_deciders(&mut self.items, rules);
    }
}

/// Gives every item the deciders `rules` name for its kind.
pub(crate) fn assign_deciders(items: &mut [PendingItem], rules: &crate::deciders::Rules) {
    if rules.is_empty() {
        return;
    }
    for item in items {
        item.deciders = rules.deciders(&item.kind);
    }
}

/// The sources `ucg.gate.sources` names (comma-separated, case-insensitive; default all three),
/// with a warning for each name it does not know. A value that names none of them gates all
/// three: a typo must not open the gate.
fn sources(config: Option<&str>) -> (Vec<Source>, Vec<String>) {
    let all = vec![Source::Red, Source::Escalation, Source::Decision];
    let Some(text) = config else {
        return (all, Vec::new());
    };
    let mut warnings = Vec::new();
    let named: Vec<Source> = text
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .filter_map(|name| match name.to_lowercase().as_str() {
            "reds" | "red" => Some(Source::Red),
            "escalations" | "escalation" => Some(Source::Escalation),
            "decisions" | "decision" => Some(Source::Decision),
            _ => {
                warnings.push(format!(
                    "ucg.gate.sources: unknown source {name:?} (known: reds, escalations, decisions)"
                ));
                None
            }
        })
        .collect();
    if named.is_empty() {
        warnings.push("ucg.gate.sources names no known source: gating all three".into());
        return (all, warnings);
    }
    (named, warnings)
}

/// The gate's policy, one value from git's configuration: which sources block
/// (`ucg.gate.sources`), and whether a push is judged by everything pending in the work tree
/// (`ucg.gate.scope all`) rather than by each pushed ref's own run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatePolicy {
    pub sources: Vec<Source>,
    pub scope_all: bool,
}

impl GatePolicy {
    /// The policy the two keys' values give, with a warning for each source name not known.
    pub fn from_config(
        sources_key: Option<&str>,
        scope_key: Option<&str>,
    ) -> (GatePolicy, Vec<String>) {
        let (sources, warnings) = sources(sources_key);
        let scope_all = scope_key.is_some_and(|scope| scope.eq_ignore_ascii_case("all"));
        (GatePolicy { sources, scope_all }, warnings)
    }

    /// Whether an item of `source` blocks.
    pub fn gates(&self, source: Source) -> bool {
        self.sources.contains(&source)
    }
}

impl Default for GatePolicy {
    fn default() -> Self {
        GatePolicy::from_config(None, None).0
    }
}

/// Where the three sources are.
pub struct PendingInputs<'a> {
    pub project_root: &'a Path,
    pub impl_dir: &'a Path,
    pub ledger: &'a Path,
}

/// The three sources as read, each file once (status shows the same bytes it enumerates).
#[derive(Debug, Default)]
pub struct Artifacts {
    /// `.preflight-reds.json`.
    pub registry: Option<Vec<u8>>,
    /// `.decisions.json`.
    pub decisions: Option<Vec<u8>>,
    /// The artifact directory's entry names, sorted.
    pub names: Vec<String>,
    /// The readable escalation sidecars' bytes, by file name.
    pub sidecars: HashMap<String, Vec<u8>>,
    /// The ledger's rows (none when it is absent or not UTF-8).
    pub ledger_rows: Vec<ledger::Row>,
    /// Files that are there but cannot be read whole (a directory, a FIFO, a device, a file over
    /// the cap, no permission), with the reason: each one blocks, as an unknown can hide a decision.
    pub unreadable_files: Vec<(std::path::PathBuf, String)>,
}

impl Artifacts {
    /// Reads what the enumeration needs through `source`; also reports the ledger's bytes were
    /// there (`Some(false)`: present but not UTF-8).
    pub fn read(inputs: &PendingInputs, source: &ArtifactSource) -> (Artifacts, Option<bool>) {
        let (mut artifacts, ledger_ok) = Artifacts::read_without_answers(inputs, source, true);
        let path = inputs.impl_dir.join(DECISIONS_FILE);
        artifacts.decisions = checked(source, &path, &mut artifacts.unreadable_files);
        (artifacts, ledger_ok)
    }

    /// As [`Artifacts::read`], leaving `decisions` unread (for a caller that holds the answers).
    /// With `spare_core`, the ledger is parsed on a second thread (a caller already using both
    /// cores says no).
    pub(crate) fn read_without_answers(
        inputs: &PendingInputs,
        source: &ArtifactSource,
        spare_core: bool,
    ) -> (Artifacts, Option<bool>) {
        let mut unreadable_files = Vec::new();
        // Something else in the artifact directory's place hides whatever the run waits on.
        if let Some(reason) = source.not_a_directory(inputs.impl_dir) {
            unreadable_files.push((inputs.impl_dir.to_path_buf(), reason));
        }
        let ledger_text = checked(source, inputs.ledger, &mut unreadable_files)
            .map(|bytes| String::from_utf8(bytes).ok());
        let ledger_ok = ledger_text.as_ref().map(Option::is_some);
        // A large ledger (often the largest file) is parsed on a second core while the artifact
        // directory is read; a small one is parsed in less time than a thread takes to start
        // (the answer-only judgement of a push reads a hundred commits' ledgers in a row).
        let spare_core = spare_core
            && matches!(&ledger_text, Some(Some(text)) if text.len() >= PARALLEL_LEDGER_BYTES);
        let parse = || {
            ledger_text
                .flatten()
                .map(|text| ledger::rows(&text))
                .unwrap_or_default()
        };
        let artifacts = std::thread::scope(|scope| {
            let rows = if spare_core {
                Ok(scope.spawn(parse))
            } else {
                Err(parse())
            };
            let mut names = source.list(inputs.impl_dir);
            names.sort();
            let sidecars = names
                .iter()
                .filter(|name| escalations::sidecar_story(name).is_some())
                .filter_map(|name| {
                    let path = inputs.impl_dir.join(name);
                    Some((name.clone(), checked(source, &path, &mut unreadable_files)?))
                })
                .collect();
            let registry_path = inputs.impl_dir.join(REGISTRY_FILE);
            Artifacts {
                registry: checked(source, &registry_path, &mut unreadable_files),
                unreadable_files,
                decisions: None,
                names,
                sidecars,
                // A parser that panicked is a bug; fail soft, as for an unreadable ledger.
                ledger_rows: match rows {
                    Ok(thread) => thread.join().unwrap_or_default(),
                    Err(rows) => rows,
                },
            }
        });
        (artifacts, ledger_ok)
    }
}

/// The ledger size from which parsing it on a second thread pays for starting one (a thread
/// costs 0.1–0.3 ms on the benchmark machine; a small ledger parses in less).
const PARALLEL_LEDGER_BYTES: usize = 64 * 1024;

/// The bytes of `path`, or `None` when absent; a file that cannot be read whole is noted in
/// `unreadable` and read as absent.
fn checked(
    source: &ArtifactSource,
    path: &Path,
    unreadable: &mut Vec<(std::path::PathBuf, String)>,
) -> Option<Vec<u8>> {
    // Below an artifact directory already named unreadable, nothing more is to be said.
    if unreadable.iter().any(|(bad, _)| path.starts_with(bad)) {
        return None;
    }
    source.read_checked(path).unwrap_or_else(|reason| {
        unreadable.push((path.to_path_buf(), reason.to_string()));
        None
    })
}

/// The answers on record by id, borrowed from the parsed entries; a later entry for the same id
/// wins, but never over a close.
pub type Answers<'e> = HashMap<Cow<'e, str>, OnRecord<'e>, foldhash::fast::RandomState>;

/// One answer on record: its `answer` and `action` as Python's `str()` prints them, and the
/// escalation occurrence it answered (its `occurrence`, when that is a string).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnRecord<'e> {
    pub answer: Cow<'e, str>,
    pub action: Cow<'e, str>,
    pub occurrence: Option<Cow<'e, str>>,
    /// For answers a merge found given differently on its two sides (`action: "contested"`):
    /// the question and each side's answer.
    pub contest: Option<Contest>,
}

/// The same question answered differently on two sides of a merge (docs/product.md §5.5).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Contest {
    pub question: Option<String>,
    pub answers: Vec<ContestedAnswer>,
}

/// One side's answer to a contested question: what, by whom, when.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ContestedAnswer {
    pub answer: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

impl std::fmt::Display for ContestedAnswer {
    /// `"24 hours" (bob@example.com, 2026-…)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let who = [self.by.as_deref(), self.at.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        match who.is_empty() {
            true => write!(f, "{:?}", self.answer),
            false => write!(f, "{:?} ({who})", self.answer),
        }
    }
}

impl Contest {
    /// The item it stands for: a decision, pending again until a later close settles it.
    fn item(&self, id: &str) -> PendingItem {
        let shown: Vec<String> = self.answers.iter().map(ToString::to_string).collect();
        PendingItem {
            decision_needed: self
                .question
                .clone()
                .unwrap_or_else(|| "Answered differently on two sides of a merge".into()),
            evidence: format!("contested answers: {}", shown.join("; ")),
            contested: self.answers.clone(),
            origin: DECISIONS_FILE.to_string(),
            ..PendingItem::new(
                Source::Decision,
                id.to_string(),
                CONTESTED.to_string(),
                DECISIONS_FILE.to_string(),
            )
        }
    }
}

impl OnRecord<'_> {
    pub fn closes(&self) -> bool {
        self.action == "close"
    }

    fn contested(&self) -> bool {
        self.action == CONTESTED
    }

    /// Whether this answer is about `item` as it stands: always, except an answer bound to an
    /// escalation's occurrence (docs/product.md §4) when the sidecar now holds another one. An
    /// answer without an occurrence (recorded before they were) matches every occurrence.
    pub(crate) fn answers(&self, item: &PendingItem) -> bool {
        match (&self.occurrence, item.source) {
            (Some(recorded), Source::Escalation) => {
                item.occurrence.as_deref() == Some(recorded.as_ref())
            }
            _ => true,
        }
    }
}

/// The occurrence of an escalation sidecar: the lowercase hex SHA-256 of its bytes.
pub fn occurrence(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    ucg_store::hex(&Sha256::digest(bytes))
}

/// The answers on record in the answers file's `bytes` that bear on `pending` (see
/// [`relevance`]), or the blocker the file is when `resolve` would refuse to write it (then no
/// answer is read from it: every item it would close stands); with `earlier`, also
/// the answers that kept their question in the scope of some item (see [`Earlier`]), from the
/// same scan. The file is scanned for the entries that bear on an item, nothing built for the
/// rest.
pub fn recorded<'b>(
    inputs: &PendingInputs,
    bytes: Option<&'b [u8]>,
    pending: &Pending,
    earlier: bool,
) -> (Answers<'b>, Vec<Earlier<'b>>, Option<Blocker>) {
    let relevant = relevance(pending);
    let scopes: std::collections::HashSet<&str, foldhash::fast::RandomState> = match earlier {
        true => pending
            .items
            .iter()
            .filter_map(|i| similarity::scope(&i.id))
            .collect(),
        false => Default::default(),
    };
    let in_scope =
        |id: &str| !scopes.is_empty() && similarity::scope(id).is_some_and(|s| scopes.contains(s));
    // An entry that kept no question is only wanted for its own item (older files: one id test).
    // A contested answer is kept whatever it bears on: its item is gone from the artifacts.
    let keep = |entry: &decisions::AnswerEntry| {
        relevant(&entry.id)
            || is_contested(entry)
            || (entry.decision_needed.is_some() && in_scope(&entry.id))
    };
    if let Some(entries) = bytes.and_then(|b| decisions::answer_entries(b, &keep)) {
        let mut answers = Answers::default();
        let mut found = Vec::new();
        for entry in entries {
            // A contested answer's question is read before the earlier-wordings list takes it.
            let owned = |text: &Option<Cow<str>>| text.as_deref().map(str::to_string);
            let contest = is_contested(&entry).then(|| Contest {
                question: owned(&entry.decision_needed),
                answers: vec![ContestedAnswer {
                    answer: decisions::field_text(entry.answer).into_owned(),
                    by: owned(&entry.by),
                    at: owned(&entry.at),
                }],
            });
            if let Some(question) = entry.decision_needed.filter(|_| in_scope(&entry.id)) {
                found.push(Earlier {
                    id: entry.id.clone(),
                    answer: decisions::field_text(entry.answer),
                    action: decisions::field_text(entry.action),
                    decision_needed: question,
                });
            }
            if contest.is_none() && !relevant(&entry.id) {
                continue;
            }
            let answer = OnRecord {
                answer: decisions::field_text(entry.answer),
                action: decisions::field_text(entry.action),
                occurrence: entry.occurrence,
                contest,
            };
            record(&mut answers, entry.id, answer);
        }
        return (answers, found, None);
    }
    // The scan refuses exactly the files the whole reader refuses (tests/props.rs holds the two
    // to it): such a file is the blocker, and no answer is read from it.
    let blocker = decisions::decisions_for_write(bytes).err().map(|corrupt| {
        let artifact = relative(inputs.project_root, &inputs.impl_dir.join(DECISIONS_FILE));
        Blocker {
            reason: format!("the answers file cannot be read: {}", corrupt.reason),
            way_out: format!(
                "repair {artifact} by hand, or move it aside (mv {artifact} {artifact}.corrupt) and answer again: `git ucg resolve` refuses to write over it"
            ),
            artifact,
        }
    });
    (Answers::default(), Vec::new(), blocker)
}

/// Offers each item without an answer of its own the answer of the earlier question most like it
/// (same kind and source file, a word ratio of at least `threshold`: `ucg::similarity`).
pub fn offer_similar(pending: &mut Pending, earlier: &[Earlier], threshold: f64) {
    if earlier.is_empty() {
        return;
    }
    let candidates = similarity::Candidates::new(
        earlier
            .iter()
            .map(|e| (e.id.as_ref(), e.decision_needed.as_ref())),
    );
    for item in pending.items.iter_mut().filter(|i| i.action.is_none()) {
        let found = candidates.best_match(&item.id, &item.decision_needed, threshold);
        item.similar_to = found.and_then(|(index, ratio)| {
            let e = earlier.get(index)?;
            Some(SimilarTo {
                id: e.id.to_string(),
                action: e.action.to_string(),
                answer: e.answer.to_string(),
                ratio,
                decision_needed: e.decision_needed.to_string(),
            })
        });
    }
}

/// [`enumerate`], each item without an answer offered an earlier question's (see
/// [`offer_similar`]).
pub fn enumerate_offering(
    inputs: &PendingInputs,
    source: &ArtifactSource,
    threshold: f64,
) -> Pending {
    enumerate_with(inputs, &Artifacts::read(inputs, source).0, Some(threshold))
}

/// Whether an answer's id bears on `pending`: it is one of its items', or a close of it would
/// name one of its raw markers.
pub(crate) fn relevance(pending: &Pending) -> impl Fn(&str) -> bool + '_ {
    let items: IdRefs = pending.items.iter().map(|i| i.id.as_str()).collect();
    let markers: IdRefs = pending
        .unpromoted
        .iter()
        .map(|p| p.rsplit('/').next().unwrap_or(p))
        .collect();
    move |id: &str| {
        items.contains(id)
            || (!markers.is_empty() && marker_named(id).is_some_and(|m| markers.contains(m)))
    }
}

/// Records an answer: a later entry wins, except over a close (the registry writer counts an id
/// closed when any entry closes it, and every reader must agree with it).
fn record<'e>(answers: &mut Answers<'e>, id: Cow<'e, str>, answer: OnRecord<'e>) {
    match answers.get_mut(id.as_ref()) {
        Some(held) if held.closes() && !answer.closes() => {}
        // Each side's contested answer joins the others.
        Some(held) if held.contested() && answer.contested() => {
            if let (Some(contest), Some(more)) = (held.contest.as_mut(), answer.contest) {
                contest.answers.extend(more.answers);
            }
        }
        _ => {
            answers.insert(id, answer);
        }
    }
}

/// The file name in an id's path (between the kind and the digest): the raw marker a promoted
/// escalation's id names.
fn marker_named(id: &str) -> Option<&str> {
    let (_, rest) = id.split_once(':')?;
    let (path, _) = rest.rsplit_once(':')?;
    path.rsplit('/').next()
}

/// `path` relative to `root`, with `/` separators: both made absolute first, so that `./x`, `x`
/// and `../repo/x` from a subdirectory all name the same artifact (ids are minted from this).
fn relative(root: &Path, path: &Path) -> String {
    let normal = |p: &Path| {
        ucg_store::lexical_normal(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
    };
    let (root, path) = (normal(root), normal(path));
    path.strip_prefix(&root)
        .unwrap_or(&path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Enumerates what is pending, reading through `source` (work tree or a commit's tree).
pub fn enumerate(inputs: &PendingInputs, source: &ArtifactSource) -> Pending {
    enumerate_read(inputs, &Artifacts::read(inputs, source).0)
}

/// Enumerates what is pending in artifacts already read.
pub fn enumerate_read(inputs: &PendingInputs, artifacts: &Artifacts) -> Pending {
    enumerate_with(inputs, artifacts, None)
}

/// [`enumerate_read`], and with a `threshold` the offers of [`offer_similar`].
fn enumerate_with(
    inputs: &PendingInputs,
    artifacts: &Artifacts,
    threshold: Option<f64>,
) -> Pending {
    let mut found = enumerate_unanswered(inputs, artifacts);
    let offering = threshold.is_some();
    let (answers, earlier, corrupt) =
        recorded(inputs, artifacts.decisions.as_deref(), &found, offering);
    found.blockers.extend(corrupt);
    let mut found = with_answers(found, &answers);
    if let Some(threshold) = threshold {
        offer_similar(&mut found, &earlier, threshold);
    }
    found
}

/// The answers on record laid over an enumeration: REDs closed on record are not pending (their
/// close is applied by the registry writer), every item shows its recorded answer — but an
/// escalation only one bound to its present occurrence, or to none —, and a raw
/// marker whose promoted escalation was closed is the residual the close leaves on purpose (the
/// closed id's path, between its kind and its digest, names the marker), not an unpromoted one.
pub fn with_answers(mut pending: Pending, answers: &Answers) -> Pending {
    let closed = |id: &str| answers.get(id).is_some_and(OnRecord::closes);
    pending
        .items
        .retain(|item| !(item.source == Source::Red && closed(&item.id)));
    for item in &mut pending.items {
        let on_record = answers.get(item.id.as_str());
        if let Some(on_record) = on_record.filter(|a| a.answers(item)) {
            item.answer = Some(on_record.answer.to_string());
            item.action = Some(on_record.action.to_string());
        }
    }
    let closed_markers = markers_closed(answers);
    pending
        .unpromoted
        .retain(|path| !closed_markers.contains(path.rsplit('/').next().unwrap_or(path)));
    // Answers a merge found given differently on its two sides, none settled since: the item
    // is pending again (its artifacts cleared it on both sides); one settled by a later close
    // (in this pass) is answered.
    pending
        .items
        .retain(|item| !(item.kind == CONTESTED && closed(&item.id)));
    let mut contested: Vec<PendingItem> = answers
        .iter()
        .filter(|(id, answer)| {
            answer.contested() && !pending.items.iter().any(|item| item.id == id.as_ref())
        })
        .filter_map(|(id, answer)| Some(answer.contest.as_ref()?.item(id)))
        .collect();
    contested.sort_by(|a, b| a.id.cmp(&b.id));
    pending.items.extend(contested);
    pending
}

/// Whether an answers file's entry is a contested answer (`"action": "contested"`).
fn is_contested(entry: &decisions::AnswerEntry) -> bool {
    // The raw JSON is compared first (this runs for every entry of a long answers file); only an
    // escaped string is decoded.
    entry.action.is_some_and(|raw| {
        raw == "\"contested\""
            || (raw.contains('\\') && decisions::field_text(Some(raw)) == CONTESTED)
    })
}

/// The raw escalation markers (file names) whose promoted escalation a close on record names.
pub(crate) fn markers_closed<'a>(answers: &'a Answers) -> std::collections::HashSet<&'a str> {
    answers
        .iter()
        .filter(|(_, answer)| answer.closes())
        .filter_map(|(id, _)| marker_named(id.as_ref()))
        .collect()
}

/// Every item the artifacts hold, before any answer is considered: all REDs of the registry,
/// every readable sidecar, every raw marker without one, every open decision row.
pub(crate) fn enumerate_unanswered(inputs: &PendingInputs, artifacts: &Artifacts) -> Pending {
    let mut pending = Pending::default();
    // 1. REDs, ids as stored.
    let registry_path = inputs.impl_dir.join(REGISTRY_FILE);
    let registry_name = relative(inputs.project_root, &registry_path);
    for (path, reason) in &artifacts.unreadable_files {
        let artifact = relative(inputs.project_root, path);
        let what = match path.file_name().and_then(|n| n.to_str()) {
            _ if path == inputs.impl_dir => "the artifact directory",
            Some(REGISTRY_FILE) => "the RED registry",
            Some(DECISIONS_FILE) => "the answers file",
            Some(name) if escalations::sidecar_story(name).is_some() => "an escalation sidecar",
            _ => "the deferred-work ledger",
        };
        pending.blockers.push(Blocker {
            reason: format!("{what} cannot be read: {reason}"),
            way_out:
                "make it a regular file git-ucg can read (or move it aside), then run this again"
                    .into(),
            artifact,
        });
    }
    match Registry::parse_shown(artifacts.registry.as_deref(), &registry_name) {
        Err(error) => {
            pending.registry_corrupt = true;
            pending.blockers.push(Blocker {
            artifact: registry_name.clone(),
            reason: format!("the RED registry cannot be read: {}", error.reason()),
            way_out: "repair it by hand, or move it aside and rerun the preflight scan (git ucg reds apply --scan FILE) to rebuild it"
                .into(),
            });
        }
        Ok((reds, _)) => {
            // Room for every item at once: a list of items this size growing by doubling would
            // copy itself into fresh memory a dozen times (room not filled is never touched).
            let at_most = reds.len() + artifacts.sidecars.len() + artifacts.ledger_rows.len();
            pending.items.reserve(at_most);
            pending.registry_ids = reds
                .iter()
                .filter_map(|red| shown(red, "id")?.as_str().map(str::to_string))
                .collect();
            for red in &reds {
                let text = |k: &str| shown(red, k).map(pyjson::py_str).unwrap_or_default();
                // An entry without an id is pending under the id the registry writer gives it
                // (it mints every red's id from these three fields), so `resolve` can answer it.
                let mut id = text("id");
                if id.is_empty() {
                    let field = |k: &str| shown(red, k).and_then(Value::as_str).unwrap_or("");
                    id = ids::mint(field("kind"), field("source"), field("decision_needed"));
                    pending.registry_ids.push(id.clone());
                }
                let origin = match text("source") {
                    source if source.is_empty() => similarity::scope(&id)
                        .and_then(|s| s.split_once(':'))
                        .map(|(_, path)| path.to_string())
                        .unwrap_or_default(),
                    source => source,
                };
                pending.items.push(PendingItem {
                    decision_needed: text("decision_needed"),
                    evidence: text("evidence"),
                    origin,
                    ..PendingItem::new(Source::Red, id, text("kind"), registry_name.clone())
                });
            }
        }
    }

    // 2. Escalations: typed sidecars, then raw markers without one.
    let names = &artifacts.names;
    let mut typed = Vec::new();
    for name in names {
        let Some(story) = escalations::sidecar_story(name) else {
            continue;
        };
        typed.push(story.to_string());
        let path = inputs.impl_dir.join(name);
        let artifact = relative(inputs.project_root, &path);
        let bytes = artifacts.sidecars.get(name);
        let fields = bytes
            .and_then(|bytes| pyjson::object_in(bytes))
            .and_then(|o| {
                let field = |k: &str| o.get(k)?.as_str().map(str::to_string);
                Some((
                    field("kind")?,
                    field("source")?,
                    field("decision_needed")?,
                    field("evidence"),
                ))
            });
        let Some((kind, origin, decision_needed, evidence)) = fields else {
            pending.unreadable.push(artifact);
            continue;
        };
        let id = ids::mint(&kind, &origin, &decision_needed);
        pending.items.push(PendingItem {
            origin,
            decision_needed,
            evidence: evidence.unwrap_or_default(),
            occurrence: bytes.map(|b| occurrence(b)),
            ..PendingItem::new(Source::Escalation, id, kind, artifact)
        });
    }
    for name in names {
        if let Some(story) = escalations::marker_story(name) {
            if !typed.iter().any(|t| t == story) {
                pending
                    .unpromoted
                    .push(relative(inputs.project_root, &inputs.impl_dir.join(name)));
            }
        }
    }

    // 3. Open decision rows of the deferred-work ledger, every table.
    let ledger_name = relative(inputs.project_root, inputs.ledger);
    for row in &artifacts.ledger_rows {
        let cell = |k: &str| row.get(k).cloned().unwrap_or_default();
        if cell("source") != "decision" || cell("status") != "open" {
            continue;
        }
        let id = ids::mint("decision", &ledger_name, &cell("reason"));
        pending.items.push(PendingItem {
            decision_needed: cell("reason"),
            evidence: format!(
                "{} ({}, story {})",
                cell("id"),
                cell("severity"),
                cell("story")
            ),
            row: Some(cell("id")).filter(|id| !id.is_empty()),
            origin: ledger_name.clone(),
            ..PendingItem::new(Source::Decision, id, "decision".into(), ledger_name.clone())
        });
    }
    pending
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_sources_from_the_configuration() {
        assert_eq!(sources(None).0.len(), 3);
        let (named, warnings) = sources(Some("REDs, decisions,bogus"));
        assert_eq!(named, [Source::Red, Source::Decision]);
        assert_eq!(warnings.len(), 1);
        assert_eq!(sources(Some("")).0.len(), 3, "a typo never opens the gate");
    }
}
