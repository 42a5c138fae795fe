//! Auto-selection: the InferenceService names a model but no runtime, and OME picks one
//! (SEMANTICS.md#auto-selection), or fails with its `no runtime found …` error.
//!
//! A runtime is selectable when it is compatible ([`matcher::check`]: not disabled,
//! accelerator classes, deployment modes, a matching entry, size range), at least one of its
//! entries sets `autoSelect: true`, and its [`runtime_score`] is above 0. Selectable
//! ServingRuntimes all rank before selectable ClusterServingRuntimes, whatever the scores;
//! within each group: higher score, then smaller size distance (compared after Go's
//! float→integer truncation), then name.
//!
//! # Scale
//!
//! [`RuntimeIndex`] is built once from every runtime. A compatible runtime always has an entry
//! that matches the model, and an entry matches only when its format name, framework name,
//! architecture and quantization equal the model's (a value only one side sets doesn't
//! match). So the index keeps, per namespace and per [`MatchKey`] (those four values), the
//! runtimes with such an entry, leaving out those never auto-selected (disabled, or without an
//! `autoSelect: true` entry). [`RuntimeIndex::select`] evaluates only those: selecting for
//! 10,000 InferenceServices over 1,000 runtimes costs what their candidates cost (size ranges,
//! from bounds parsed when the index is built, then versions, classes and modes are checked
//! per candidate), not 10⁷ evaluations. Only
//! when that finds no winner does it evaluate every runtime the namespace can see, because
//! the error counts them all and lists why each incompatible one was excluded.
//!
//! The ClusterServingRuntimes an InferenceService can choose from do not depend on its
//! namespace, and a model serves many InferenceServices: for the catalog's own models
//! ([`RuntimeIndex::select_in_catalog`]) the best ClusterServingRuntime is computed once per
//! model and request and remembered, so 10,000 runtimes cost per model, not per
//! InferenceService.

use super::matcher::{self, Check, Incompatible, Match, has_auto_select_entry, model_format};
use super::request::Request;
use super::scorer::{best_entry, runtime_score};
use super::size;
use crate::model::{BaseModel, DeploymentMode, RuntimeSpec, Scope, SupportedFormat};
use crate::yaml::Pos;
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Range;
use std::sync::Mutex;

/// One runtime selection may consider.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate<'a> {
    pub(crate) name: &'a str,
    pub(crate) scope: Scope,
    /// For a ServingRuntime, the namespace it is visible in (as written, else the default
    /// namespace); ignored for a ClusterServingRuntime.
    pub(crate) namespace: &'a str,
    /// The runtime's own spec: auto-selection ignores what a runtime inherits.
    pub(crate) spec: &'a RuntimeSpec,
    /// Where the runtime is defined, for diagnostics and `explain`'s SOURCE column.
    pub(crate) pos: Pos,
}

/// The auto-selected runtime.
#[derive(Clone, Debug)]
pub(crate) struct Selection<'a> {
    pub(crate) runtime: Candidate<'a>,
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the table tests check the score")
    )]
    pub(crate) score: i64,
    /// The entry whose per-entry settings (`acceleratorConfig`) apply, with its index;
    /// `None` when no `autoSelect: true` entry scores above 0.
    pub(crate) best_entry: Option<(usize, &'a SupportedFormat)>,
}

/// Why auto-selection found no runtime.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum SelectError {
    /// The model has no `modelFormat.name`; in a cluster the model agent fills it in
    /// (SEMANTICS.md#choice-model-metadata).
    ModelFormatMissing,
    NoRuntime(NoRuntimeFound),
}

/// OME's `ModelValidationError` text for a model without a format name.
pub(crate) const MODEL_FORMAT_REQUIRED: &str =
    "invalid model specification: modelFormat.name: model format name is required";

impl SelectError {
    /// What the user can do about it, for the diagnostic's help line.
    pub(crate) fn help(&self) -> String {
        match self {
            SelectError::ModelFormatMissing => "add `spec.modelFormat.name` to the model, and the \
                other metadata the runtimes match on (`modelFormat.version`, `modelFramework`, \
                `modelArchitecture`, `modelParameterSize`, `quantization`); in a cluster OME's \
                model agent fills these in; offline, write them in the manifest \
                (`ome-render model-metadata SNAPSHOT` prints them) or point the model's \
                `ome-render.io/model-config` annotation at its Hugging Face snapshot"
                .to_string(),
            SelectError::NoRuntime(_) => "add a runtime whose `supportedModelFormats` matches the \
                model and sets `autoSelect: true`, or name a runtime in `spec.runtime.name`; \
                `ome-render explain` shows why each runtime was skipped"
                .to_string(),
        }
    }
}

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelectError::ModelFormatMissing => f.write_str(MODEL_FORMAT_REQUIRED),
            SelectError::NoRuntime(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl std::error::Error for SelectError {}

/// OME's `NoRuntimeFoundError`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NoRuntimeFound {
    /// The model's format name, which OME prints as both the model and the format.
    pub(crate) format: String,
    pub(crate) namespace: String,
    /// How many ServingRuntimes (in the namespace) and ClusterServingRuntimes were checked,
    /// disabled ones included.
    pub(crate) namespaced: usize,
    pub(crate) cluster: usize,
    /// The runtimes that failed compatibility: ServingRuntimes first, then
    /// ClusterServingRuntimes, each by name (SEMANTICS.md#choice-excluded-order). Runtimes that are compatible but
    /// never auto-selected are counted, not listed. At most [`MAX_EXCLUDED`].
    pub(crate) excluded: Vec<Excluded>,
    /// How many more failed it, past [`MAX_EXCLUDED`].
    pub(crate) more: usize,
}

/// How many excluded runtimes the "no runtime found" error lists (SEMANTICS.md#limits): OME
/// lists every one, so ten thousand InferenceServices that find none of ten thousand
/// runtimes would hold a hundred million reasons.
pub(crate) const MAX_EXCLUDED: usize = 100;

/// One runtime in the "Excluded runtimes" list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Excluded {
    pub(crate) name: String,
    pub(crate) scope: Scope,
    pub(crate) pos: Pos,
    pub(crate) check: Check,
    pub(crate) reason: String,
}

impl fmt::Display for NoRuntimeFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no runtime found to support model {0} with format {0} in namespace {1}",
            self.format, self.namespace
        )?;
        let total = self.namespaced + self.cluster;
        if total > 0 {
            write!(
                f,
                ". Checked {total} runtimes ({} namespace-scoped, {} cluster-scoped)",
                self.namespaced, self.cluster
            )?;
        }
        if !self.excluded.is_empty() {
            // OME keys the list by bare name and fills it namespace first: a
            // ClusterServingRuntime's reason replaces that of a ServingRuntime of its name.
            let cluster: std::collections::HashSet<&str> = self
                .excluded
                .iter()
                .filter(|e| e.scope == Scope::Cluster)
                .map(|e| e.name.as_str())
                .collect();
            let listed = self
                .excluded
                .iter()
                .filter(|e| e.scope == Scope::Cluster || !cluster.contains(e.name.as_str()));
            f.write_str(". Excluded runtimes: ")?;
            for (i, e) in listed.enumerate() {
                if i > 0 {
                    f.write_str("; ")?;
                }
                write!(f, "{} ({})", e.name, e.reason)?;
            }
            if self.more > 0 {
                write!(f, "; … and {} more", self.more)?;
            }
        }
        Ok(())
    }
}

/// The warning OME's webhook gives when it will auto-select: `Runtime <rt> will be
/// auto-selected for model <model>`.
pub(crate) fn auto_selected_warning(runtime: &str, model: &str) -> String {
    format!("Runtime {runtime} will be auto-selected for model {model}")
}

/// The webhook's rejection when auto-selection fails for an InferenceService with an engine
/// but no complete runner: `no supporting runtime found for model <model> and engine does not
/// have complete runner configuration: <error>`.
pub(crate) fn admission_error(model: &str, error: &SelectError) -> String {
    format!(
        "no supporting runtime found for model {model} and engine does not have complete runner configuration: {error}"
    )
}

/// Checks what auto-selection needs from the model: a non-empty `modelFormat.name`.
pub(crate) fn validate_model(model: &BaseModel) -> Result<(), SelectError> {
    match &model.format {
        Some(format) if !format.name.is_empty() => Ok(()),
        _ => Err(SelectError::ModelFormatMissing),
    }
}

/// Every runtime, indexed for auto-selection. Built once; cheap to query per model.
#[derive(Debug)]
pub(crate) struct RuntimeIndex<'a> {
    /// ServingRuntimes sorted by (namespace, name), then ClusterServingRuntimes by name.
    runtimes: Vec<Candidate<'a>>,
    /// The ServingRuntimes of each namespace, as a range of `runtimes`.
    namespaces: BTreeMap<&'a str, Range<usize>>,
    cluster: Range<usize>,
    /// Namespace → match key → the ServingRuntimes with an entry of that key, by name; only
    /// those that can be auto-selected (enabled, with an `autoSelect: true` entry).
    namespaced_by_key: BTreeMap<&'a str, BTreeMap<MatchKey<'a>, Vec<Filed>>>,
    /// Match key → the ClusterServingRuntimes with an entry of that key, by name; only those
    /// that can be auto-selected.
    cluster_by_key: BTreeMap<MatchKey<'a>, Vec<Filed>>,
    /// The best selectable ClusterServingRuntime of each [`ClusterQuery`], once computed: a
    /// model serves many InferenceServices, and the ClusterServingRuntimes they choose from
    /// do not depend on their namespace.
    cluster_best: Mutex<HashMap<ClusterQuery, Option<Ranked<'a>>>>,
    /// The "no runtime found" error of each namespace and [`ClusterQuery`], once computed:
    /// it checks every visible runtime, and the InferenceServices of a model that nothing
    /// supports would each repeat that.
    no_runtime: Mutex<HashMap<(String, ClusterQuery), NoRuntimeFound>>,
}

/// A runtime filed under a match key: its place in [`RuntimeIndex::runtimes`], with the
/// bounds of its size range parsed (`None` where there is no bound).
#[derive(Clone, Copy, Debug)]
struct Filed {
    index: usize,
    min: Option<f64>,
    max: Option<f64>,
}

impl Filed {
    fn of(index: usize, spec: &RuntimeSpec) -> Filed {
        let bound = |b: Option<&String>| b.map(|b| size::parse_size(b));
        let range = spec.size_range.as_ref();
        Filed {
            index,
            min: range.and_then(|r| bound(r.min.as_ref())),
            max: range.and_then(|r| bound(r.max.as_ref())),
        }
    }

    /// [`size::in_range`] on the parsed bounds: whether a model of `size` parameters passes
    /// the runtime's size check.
    fn admits(&self, size: f64) -> bool {
        let below = self.min.is_some_and(|min| size < min);
        let above = self.max.is_some_and(|max| size > max);
        !below && !above
    }
}

/// What the choice among ClusterServingRuntimes depends on: the model (by its address in
/// the catalog, which the index borrows from, so no other model can take it while the index
/// lives) and the request without its namespace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ClusterQuery {
    model: usize,
    accelerator_classes: Vec<String>,
    engine_mode: Option<DeploymentMode>,
    decoder_mode: Option<DeploymentMode>,
}

/// What an entry must share with a model to match it: format name, framework name,
/// architecture and quantization, each compared exactly (absent only matches absent).
/// Borrowed from the entry or the model it is the key of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct MatchKey<'s> {
    format: &'s str,
    framework: Option<&'s str>,
    architecture: Option<&'s str>,
    quantization: Option<&'s str>,
}

impl<'s> MatchKey<'s> {
    /// The key of an entry; `None` for an entry without `modelFormat`, which never matches.
    fn of_entry(entry: &'s SupportedFormat) -> Option<MatchKey<'s>> {
        Some(MatchKey {
            format: &entry.model_format.as_ref()?.name,
            framework: entry.model_framework.as_ref().map(|f| f.name.as_str()),
            architecture: entry.architecture.as_deref(),
            quantization: entry.quantization.as_deref(),
        })
    }

    fn of_model(model: &'s BaseModel) -> MatchKey<'s> {
        MatchKey {
            format: &model_format(model).name,
            framework: model.framework.as_ref().map(|f| f.name.as_str()),
            architecture: model.architecture.as_deref(),
            quantization: model.quantization.as_deref(),
        }
    }
}

impl<'a> RuntimeIndex<'a> {
    pub(crate) fn new(candidates: impl IntoIterator<Item = Candidate<'a>>) -> RuntimeIndex<'a> {
        let mut runtimes: Vec<Candidate<'a>> = candidates.into_iter().collect();
        // Stable, so two runtimes with the same key (an input error reported elsewhere) keep
        // their input order.
        runtimes.sort_by(|a, b| sort_key(a).cmp(&sort_key(b)));

        let mut namespaces: BTreeMap<&'a str, Range<usize>> = BTreeMap::new();
        let mut cluster = runtimes.len()..runtimes.len();
        let mut namespaced_by_key: BTreeMap<&'a str, BTreeMap<MatchKey<'a>, Vec<Filed>>> =
            BTreeMap::new();
        let mut cluster_by_key: BTreeMap<MatchKey<'a>, Vec<Filed>> = BTreeMap::new();
        // Only a runtime that can be auto-selected is a candidate ([`evaluate`]). Its keys are
        // made in parallel, then filed in runtime order.
        let keys: Vec<Vec<MatchKey<'a>>> = runtimes
            .par_iter()
            .map(|runtime| {
                if runtime.spec.disabled || !has_auto_select_entry(runtime.spec) {
                    return Vec::new();
                }
                let mut keys: Vec<MatchKey<'a>> = runtime
                    .spec
                    .formats
                    .iter()
                    .filter_map(MatchKey::of_entry)
                    .collect();
                keys.sort_unstable();
                keys.dedup();
                keys
            })
            .collect();
        for (i, (runtime, keys)) in runtimes.iter().zip(keys).enumerate() {
            let by_key = match runtime.scope {
                Scope::Namespaced => {
                    namespaces
                        .entry(runtime.namespace)
                        .and_modify(|r| r.end = i + 1)
                        .or_insert(i..i + 1);
                    namespaced_by_key.entry(runtime.namespace).or_default()
                }
                Scope::Cluster => {
                    cluster.start = cluster.start.min(i);
                    &mut cluster_by_key
                }
            };
            let filed = Filed::of(i, runtime.spec);
            for key in keys {
                by_key.entry(key).or_default().push(filed);
            }
        }
        RuntimeIndex {
            runtimes,
            namespaces,
            cluster,
            namespaced_by_key,
            cluster_by_key,
            cluster_best: Mutex::new(HashMap::new()),
            no_runtime: Mutex::new(HashMap::new()),
        }
    }

    /// The runtimes an InferenceService in `namespace` can see: its namespace's
    /// ServingRuntimes, then all ClusterServingRuntimes, each group by name.
    pub(crate) fn visible(&self, namespace: &str) -> impl Iterator<Item = &Candidate<'a>> {
        let own = self.namespaces.get(namespace).cloned().unwrap_or(0..0);
        self.runtimes[own]
            .iter()
            .chain(&self.runtimes[self.cluster.clone()])
    }

    /// The ServingRuntimes of `namespace` and the ClusterServingRuntimes with an entry that
    /// can match `key`, each in the order of [`Self::visible`].
    fn candidates<'k>(&'k self, namespace: &str, key: &MatchKey<'k>) -> (&'k [Filed], &'k [Filed]) {
        let own = self
            .namespaced_by_key
            .get(namespace)
            .and_then(|by_key| by_key.get(key))
            .map_or(&[][..], Vec::as_slice);
        let cluster = self.cluster_by_key.get(key).map_or(&[][..], Vec::as_slice);
        (own, cluster)
    }

    /// The best of the selectable runtimes among `filed`, all of one scope. Those whose size
    /// range leaves the model out are passed over without reading the runtime: a key's
    /// runtimes differ mostly in size. The others are weighed without the two checks the
    /// index and that size test have made ([`matcher::compatible_filed`]).
    fn best(&self, filed: &[Filed], model: &BaseModel, request: &Request) -> Option<Ranked<'a>> {
        let size = model.parameter_size.as_deref().map(size::parse_size);
        let selectable = filed
            .iter()
            .filter(|f| size.is_none_or(|size| f.admits(size)))
            .filter_map(|f| {
                let candidate = &self.runtimes[f.index];
                let matched = matcher::compatible_filed(candidate.spec, model, request)?;
                scored(candidate, model, matched)
            })
            .collect();
        rank(selectable).into_iter().next()
    }

    /// Picks the runtime OME would auto-select for `model`, or says why there is none.
    pub(crate) fn select(
        &self,
        model: &BaseModel,
        request: &Request,
    ) -> Result<Selection<'a>, SelectError> {
        self.select_with(model, request, None)
    }

    /// [`Self::select`] for a model of the catalog the index was built from: the choice
    /// among ClusterServingRuntimes is computed once per model and request (namespace aside)
    /// and remembered. The result is the same; only the work is shared.
    pub(crate) fn select_in_catalog(
        &self,
        model: &'a BaseModel,
        request: &Request,
    ) -> Result<Selection<'a>, SelectError> {
        self.select_with(model, request, Some(std::ptr::from_ref(model) as usize))
    }

    fn select_with(
        &self,
        model: &BaseModel,
        request: &Request,
        model_address: Option<usize>,
    ) -> Result<Selection<'a>, SelectError> {
        validate_model(model)?;
        let key = MatchKey::of_model(model);
        let (own, cluster) = self.candidates(&request.namespace, &key);
        let query = model_address.map(|address| ClusterQuery {
            model: address,
            accelerator_classes: request.accelerator_classes.clone(),
            engine_mode: request.engine_mode,
            decoder_mode: request.decoder_mode,
        });
        // Every selectable ServingRuntime ranks before every ClusterServingRuntime ([`rank`]).
        let winner = self.best(own, model, request).or_else(|| match &query {
            None => self.best(cluster, model, request),
            Some(query) => {
                let known = self
                    .cluster_best
                    .lock()
                    .ok()
                    .and_then(|cache| cache.get(query).cloned());
                known.unwrap_or_else(|| {
                    let best = self.best(cluster, model, request);
                    if let Ok(mut cache) = self.cluster_best.lock() {
                        cache.insert(query.clone(), best.clone());
                    }
                    best
                })
            }
        });
        match winner {
            Some(winner) => Ok(Selection {
                best_entry: best_entry(winner.candidate.spec, model, true),
                runtime: winner.candidate,
                score: winner.score,
            }),
            None => {
                let compute =
                    || self.no_runtime_found(model_format(model).name.clone(), model, request);
                let Some(query) = query else {
                    return Err(SelectError::NoRuntime(compute()));
                };
                let key = (request.namespace.clone(), query);
                let known = self
                    .no_runtime
                    .lock()
                    .ok()
                    .and_then(|cache| cache.get(&key).cloned());
                let error = known.unwrap_or_else(|| {
                    let error = compute();
                    if let Ok(mut cache) = self.no_runtime.lock() {
                        cache.insert(key, error.clone());
                    }
                    error
                });
                Err(SelectError::NoRuntime(error))
            }
        }
    }

    /// The slow path: every visible runtime, counted, with the reasons of the incompatible ones.
    fn no_runtime_found(
        &self,
        format: String,
        model: &BaseModel,
        request: &Request,
    ) -> NoRuntimeFound {
        let mut error = NoRuntimeFound {
            format,
            namespace: request.namespace.clone(),
            namespaced: 0,
            cluster: 0,
            excluded: Vec::new(),
            more: 0,
        };
        for candidate in self.visible(&request.namespace) {
            match candidate.scope {
                Scope::Namespaced => error.namespaced += 1,
                Scope::Cluster => error.cluster += 1,
            }
            if error.excluded.len() == MAX_EXCLUDED {
                // Counted, without the reason no one reads.
                if matcher::compatible(candidate.spec, model, request).is_none() {
                    error.more += 1;
                }
                continue;
            }
            if let Err(Incompatible { check, reason }) =
                matcher::check(candidate.spec, model, request)
            {
                error.excluded.push(Excluded {
                    name: candidate.name.to_string(),
                    scope: candidate.scope,
                    pos: candidate.pos,
                    check,
                    reason,
                });
            }
        }
        error
    }
}

fn sort_key<'a>(c: &Candidate<'a>) -> (Scope, &'a str, &'a str) {
    let namespace = match c.scope {
        Scope::Namespaced => c.namespace,
        Scope::Cluster => "",
    };
    (c.scope, namespace, c.name)
}

/// The result of weighing one runtime for auto-selection.
#[derive(Clone, Debug)]
pub(crate) enum Evaluation<'a> {
    Selectable(Ranked<'a>),
    /// Compatible, but automatic selection skips it, with `explain`'s reason.
    Skipped(String),
    Incompatible(Incompatible),
}

/// A selectable runtime with what ranks it.
#[derive(Clone, Debug)]
pub(crate) struct Ranked<'a> {
    pub(crate) candidate: Candidate<'a>,
    pub(crate) score: i64,
    pub(crate) distance: f64,
    pub(crate) matched: Match<'a>,
}

pub(crate) const NO_AUTO_SELECT_ENTRY_REASON: &str = "supports the model but has no supportedModelFormats[].autoSelect=true entry, so automatic selection skips it (pin it explicitly via spec.runtime.name instead)";

/// Weighs `candidate` the way OME's selector does, keeping the reason a runtime is skipped in
/// `kubectl ome runtime explain`'s words.
pub(crate) fn evaluate<'a>(
    candidate: &Candidate<'a>,
    model: &BaseModel,
    request: &Request,
) -> Evaluation<'a> {
    let matched = match matcher::check(candidate.spec, model, request) {
        Ok(matched) => matched,
        Err(incompatible) => return Evaluation::Incompatible(incompatible),
    };
    if !has_auto_select_entry(candidate.spec) {
        return Evaluation::Skipped(NO_AUTO_SELECT_ENTRY_REASON.to_string());
    }
    let score = runtime_score(candidate.spec, model);
    if score > 0 {
        let distance = size::distance(
            model.parameter_size.as_deref(),
            candidate.spec.size_range.as_ref(),
        );
        return Evaluation::Selectable(Ranked {
            candidate: *candidate,
            score,
            distance,
            matched,
        });
    }
    // The score leaves out `autoSelect: false` entries, so a matching entry without
    // `autoSelect: true` is the likely cause; otherwise the weights or priority are.
    let reason = if matched.entry.auto_select != Some(true) {
        // OME names "the first entry whose format name is the model's, else the model's": the
        // same name either way.
        format!(
            "matching format {} is not autoSelect-enabled (a different supportedModelFormats entry on this runtime has autoSelect=true, but not the one that matches this model)",
            model_format(model).name
        )
    } else if matched.entry.priority == Some(0) {
        "auto-select score is 0 (format priority 0)".to_string()
    } else {
        "auto-select score is 0".to_string()
    };
    Evaluation::Skipped(reason)
}

/// The compatible `candidate` with its score, unless the score is 0: [`evaluate`]'s
/// `Selectable` without the reasons, for the index's hot path.
fn scored<'a>(
    candidate: &Candidate<'a>,
    model: &BaseModel,
    matched: Match<'a>,
) -> Option<Ranked<'a>> {
    let score = runtime_score(candidate.spec, model);
    (score > 0).then(|| Ranked {
        candidate: *candidate,
        score,
        distance: size::distance(
            model.parameter_size.as_deref(),
            candidate.spec.size_range.as_ref(),
        ),
        matched,
    })
}

/// OME's ranking: ServingRuntimes, then ClusterServingRuntimes, each sorted by
/// [`compare_ranked`]. `selectable` must be in [`RuntimeIndex::visible`] order so that ties
/// the comparator cannot break (see there) resolve the same way on every path.
pub(crate) fn rank(selectable: Vec<Ranked<'_>>) -> Vec<Ranked<'_>> {
    let (mut namespaced, mut cluster): (Vec<_>, Vec<_>) = selectable
        .into_iter()
        .partition(|r| r.candidate.scope == Scope::Namespaced);
    merge_sort_by(&mut namespaced, compare_ranked);
    merge_sort_by(&mut cluster, compare_ranked);
    namespaced.extend(cluster);
    namespaced
}

/// Higher score first, then the smaller size distance, then the name.
///
/// OME compares distances as `int(d2 − d1)`, truncating toward zero, so distances less than one
/// parameter apart tie and fall through to the name. That makes the comparator intransitive in
/// contrived cases (distances 0, 0.6, 1.2), which is why [`rank`] uses a merge sort that
/// tolerates it instead of `sort_by`, which may panic.
fn compare_ranked(a: &Ranked<'_>, b: &Ranked<'_>) -> Ordering {
    b.score
        .cmp(&a.score)
        .then_with(|| 0.cmp(&go_float_to_int(b.distance - a.distance)))
        .then_with(|| a.candidate.name.cmp(b.candidate.name))
}

/// Go's `int(x)` for the distances: truncation toward zero. Go leaves NaN and out-of-range
/// values to the platform; here NaN is 0 (a tie) and infinities saturate.
fn go_float_to_int(x: f64) -> i64 {
    if x.is_nan() { 0 } else { x as i64 }
}

/// A stable merge sort that never panics, whatever `compare` returns.
fn merge_sort_by<T>(items: &mut Vec<T>, mut compare: impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    let mut buffer = Vec::with_capacity(order.len());
    merge_sort_indices(&mut order, &mut buffer, &mut |a, b| {
        compare(&items[a], &items[b])
    });
    let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

fn merge_sort_indices(
    order: &mut [usize],
    buffer: &mut Vec<usize>,
    compare: &mut impl FnMut(usize, usize) -> Ordering,
) {
    if order.len() < 2 {
        return;
    }
    let middle = order.len() / 2;
    merge_sort_indices(&mut order[..middle], buffer, compare);
    merge_sort_indices(&mut order[middle..], buffer, compare);
    buffer.clear();
    let (mut left, mut right) = (0, middle);
    while left < middle && right < order.len() {
        // Take from the right only when strictly smaller: that keeps the sort stable.
        if compare(order[right], order[left]) == Ordering::Less {
            buffer.push(order[right]);
            right += 1;
        } else {
            buffer.push(order[left]);
            left += 1;
        }
    }
    buffer.extend_from_slice(&order[left..middle]);
    buffer.extend_from_slice(&order[right..]);
    order.copy_from_slice(buffer);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::{
        Runtimes, isvc, model, named_model, r10_model, r10_runtimes, runtimes,
    };

    /// The index files a runtime's size bounds parsed; its check must agree with
    /// `size::in_range` on every size and bound, the unparseable and the infinite included.
    #[test]
    fn filed_bounds_agree_with_the_size_check() {
        let texts = [
            "1B", "7B", "7.5B", "70B", "1.5T", "13M", "1e3", "0", "-1B", "inf", "-inf", "NaN",
            "junk", "", "4b", "+Inf",
        ];
        let bounds: Vec<Option<&str>> = std::iter::once(None).chain(texts.map(Some)).collect();
        for min in &bounds {
            for max in &bounds {
                let field = |b: &Option<&str>| b.map_or(String::new(), |b| format!("{b:?}"));
                let range = match (min, max) {
                    (None, None) => "{}".to_string(),
                    (Some(_), None) => format!("{{min: {}}}", field(min)),
                    (None, Some(_)) => format!("{{max: {}}}", field(max)),
                    (Some(_), Some(_)) => format!("{{min: {}, max: {}}}", field(min), field(max)),
                };
                let spec =
                    crate::select::testutil::runtime_spec(&format!("{{modelSizeRange: {range}}}"));
                let filed = Filed::of(0, &spec);
                let range = spec.size_range.as_ref().expect("a range");
                for size in texts {
                    assert_eq!(
                        filed.admits(size::parse_size(size)),
                        size::in_range(size, range),
                        "size {size:?} in {range:?}"
                    );
                }
            }
        }
    }

    /// Disabled runtimes and runtimes without an `autoSelect: true` entry are never
    /// auto-selected, so the index files only the others; the choice is the one a scan of
    /// every runtime makes.
    #[test]
    fn the_index_files_only_runtimes_that_can_be_auto_selected() {
        let entry = "{modelFormat: {name: safetensors}, modelFramework: {name: transformers}";
        let fixture = runtimes(
            "default",
            &[
                (
                    "CL/a-disabled",
                    &format!(
                        "{{disabled: true, supportedModelFormats: [{entry}, autoSelect: true, priority: 9}}]}}"
                    ),
                ),
                (
                    "CL/b-named-only",
                    &format!("{{supportedModelFormats: [{entry}, priority: 9}}]}}"),
                ),
                (
                    "CL/c-auto",
                    &format!("{{supportedModelFormats: [{entry}, autoSelect: true}}]}}"),
                ),
                (
                    "NS/d-disabled",
                    &format!(
                        "{{disabled: true, supportedModelFormats: [{entry}, autoSelect: true}}]}}"
                    ),
                ),
            ],
        );
        let index = fixture.index();
        let filed: Vec<&str> = index
            .cluster_by_key
            .values()
            .chain(index.namespaced_by_key.values().flat_map(BTreeMap::values))
            .flatten()
            .map(|f| index.runtimes[f.index].name)
            .collect();
        assert_eq!(filed, ["c-auto"]);
        let m = model("{modelFormat: {name: safetensors}, modelFramework: {name: transformers}}");
        let r = Request::for_namespace("default");
        assert_eq!(pick(&index, &m, &r), Ok("c-auto"));
        assert_eq!(ranking(&index, &m, &r), [("c-auto", 2)]);
    }

    fn pick<'a>(index: &RuntimeIndex<'a>, m: &BaseModel, r: &Request) -> Result<&'a str, String> {
        index
            .select(m, r)
            .map(|s| s.runtime.name)
            .map_err(|e| e.to_string())
    }

    fn selectable<'a>(c: &Candidate<'a>, m: &BaseModel, r: &Request) -> Option<Ranked<'a>> {
        match evaluate(c, m, r) {
            Evaluation::Selectable(ranked) => Some(ranked),
            Evaluation::Skipped(_) | Evaluation::Incompatible(_) => None,
        }
    }

    /// The names in rank order, through `explain`'s evaluation of every visible runtime.
    fn ranking<'a>(index: &RuntimeIndex<'a>, m: &BaseModel, r: &Request) -> Vec<(&'a str, i64)> {
        let selectable = index
            .visible(&r.namespace)
            .filter_map(|c| selectable(c, m, r))
            .collect();
        rank(selectable)
            .iter()
            .map(|x| (x.candidate.name, x.score))
            .collect()
    }

    fn r01_fixture() -> Runtimes {
        runtimes("default", &[
            ("NS/pytorch-rt", "{supportedModelFormats: [{modelFormat: {name: pytorch, weight: 10}, autoSelect: true, priority: 2}],
                               modelSizeRange: {min: 1B, max: 10B}}"),
            ("NS/onnx-rt", "{supportedModelFormats: [{modelFormat: {name: onnx, weight: 8}, autoSelect: true, priority: 1}],
                            modelSizeRange: {min: 10B, max: 20B}}"),
            ("NS/tensorflow-rt", "{supportedModelFormats: [{modelFormat: {name: tensorflow, weight: 12}, autoSelect: true}],
                                  modelSizeRange: {min: 50B, max: 100B}}"),
            ("NS/multi-format-rt", "{supportedModelFormats: [
                                      {modelFormat: {name: pytorch, weight: 5}, autoSelect: true, priority: 1},
                                      {modelFormat: {name: onnx, weight: 5}, autoSelect: true, priority: 1}],
                                    modelSizeRange: {min: 1B, max: 20B}}"),
            ("NS/disabled-rt", "{disabled: true, supportedModelFormats: [{modelFormat: {name: pytorch}, autoSelect: true}]}"),
            ("NS/no-autoselect-rt", "{supportedModelFormats: [{modelFormat: {name: pytorch, weight: 20}, autoSelect: false}]}"),
            ("CL/cluster-pytorch-rt", "{supportedModelFormats: [{modelFormat: {name: pytorch, weight: 7}, autoSelect: true}],
                                       modelSizeRange: {min: 5B, max: 15B}}"),
        ])
    }

    /// OME keys the excluded runtimes by bare name, the cluster's last: a ServingRuntime and a
    /// ClusterServingRuntime of one name are listed once, with the cluster runtime's reason.
    #[test]
    fn excluded_runtimes_of_one_name_are_listed_once() {
        let fixture = runtimes(
            "default",
            &[
                (
                    "NS/x",
                    "{supportedModelFormats: [{modelFormat: {name: onnx}, autoSelect: true}]}",
                ),
                (
                    "CL/x",
                    "{supportedModelFormats: [{modelFormat: {name: pytorch}, autoSelect: true}],
                      modelSizeRange: {min: 10B, max: 20B}}",
                ),
            ],
        );
        let index = fixture.index();
        let m = model("{modelFormat: {name: pytorch}, modelParameterSize: 7B}");
        let text = pick(&index, &m, &Request::for_namespace("default")).unwrap_err();
        assert!(
            text.ends_with(
                "Checked 2 runtimes (1 namespace-scoped, 1 cluster-scoped). Excluded runtimes: x (model size 7B is outside supported range [10B, 20B])"
            ),
            "{text}"
        );
    }

    /// The list of excluded runtimes stops at MAX_EXCLUDED and counts the rest.
    #[test]
    fn excluded_runtimes_past_the_limit_are_counted() {
        let specs: Vec<(String, String)> = (0..MAX_EXCLUDED + 50)
            .map(|i| {
                (
                    format!("CL/rt-{i:03}"),
                    "{supportedModelFormats: [{modelFormat: {name: onnx}, autoSelect: true}]}"
                        .to_string(),
                )
            })
            .collect();
        let specs: Vec<(&str, &str)> = specs
            .iter()
            .map(|(n, s)| (n.as_str(), s.as_str()))
            .collect();
        let fixture = runtimes("default", &specs);
        let index = fixture.index();
        let m = model("{modelFormat: {name: pytorch}}");
        let Err(SelectError::NoRuntime(error)) =
            index.select(&m, &Request::for_namespace("default"))
        else {
            panic!("nothing supports pytorch");
        };
        assert_eq!(
            (error.cluster, error.excluded.len(), error.more),
            (150, MAX_EXCLUDED, 50)
        );
        assert!(
            error.to_string().ends_with("runtime=onnx)); … and 50 more"),
            "{error}"
        );
    }

    /// R01–R05.
    #[test]
    fn ranking_and_selection_vectors() {
        let fixture = r01_fixture();
        let index = fixture.index();
        let r = Request::for_namespace("default");
        let m = model("{modelFormat: {name: pytorch}, modelParameterSize: 7B}");
        assert_eq!(
            ranking(&index, &m, &r),
            [
                ("pytorch-rt", 20),
                ("multi-format-rt", 5),
                ("cluster-pytorch-rt", 7)
            ]
        );
        assert_eq!(pick(&index, &m, &r), Ok("pytorch-rt"));
        let selection = index.select(&m, &r).expect("R01 selects");
        assert_eq!(
            (selection.score, selection.best_entry.map(|(i, _)| i)),
            (20, Some(0))
        );
        // R02
        let m = model("{modelFormat: {name: onnx}, modelParameterSize: 13B}");
        assert_eq!(
            ranking(&index, &m, &r),
            [("onnx-rt", 8), ("multi-format-rt", 5)]
        );
        assert_eq!(pick(&index, &m, &r), Ok("onnx-rt"));
        // R03
        let m = model("{modelFormat: {name: tensorflow}, modelParameterSize: 70B}");
        assert_eq!(pick(&index, &m, &r), Ok("tensorflow-rt"));
        // R04
        let m = model("{modelFormat: {name: unknown-format}}");
        let Err(SelectError::NoRuntime(error)) = index.select(&m, &r) else {
            panic!("R04 must fail");
        };
        assert_eq!(
            (error.namespaced, error.cluster, error.excluded.len()),
            (6, 1, 7)
        );
        let text = error.to_string();
        assert!(text.starts_with(
            "no runtime found to support model unknown-format with format unknown-format in namespace default. \
             Checked 7 runtimes (6 namespace-scoped, 1 cluster-scoped). Excluded runtimes: disabled-rt (runtime is disabled); \
             multi-format-rt (model format 'mt:unknown-format' not in supported formats: format name mismatch (model=unknown-format, runtime=pytorch); \
             format name mismatch (model=unknown-format, runtime=onnx)); no-autoselect-rt ("
        ), "{text}");
        assert!(text.ends_with("; cluster-pytorch-rt (model format 'mt:unknown-format' not in supported formats: format name mismatch (model=unknown-format, runtime=pytorch))"));
        // R05: too big for every pytorch runtime; no-autoselect-rt is compatible, so counted
        // but not listed.
        let m = model("{modelFormat: {name: pytorch}, modelParameterSize: 200B}");
        let Err(SelectError::NoRuntime(error)) = index.select(&m, &r) else {
            panic!("R05 must fail");
        };
        let names: Vec<&str> = error.excluded.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "disabled-rt",
                "multi-format-rt",
                "onnx-rt",
                "pytorch-rt",
                "tensorflow-rt",
                "cluster-pytorch-rt"
            ]
        );
        assert_eq!(
            error.excluded[3].reason,
            "model size 200B is outside supported range [1B, 10B]"
        );
    }

    /// R06.
    #[test]
    fn tie_breaks() {
        let m = model(
            "{modelFormat: {name: test-format}, modelFramework: {name: test-framework}, modelParameterSize: 7B}",
        );
        let r = Request::for_namespace("default");
        let rt = |format_weight: u32, framework_weight: u32, priority: u32, range: &str| {
            format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: test-format, weight: {format_weight}}},
                   modelFramework: {{name: test-framework, weight: {framework_weight}}}, autoSelect: true, priority: {priority}}}]
                  {range}}}"
            )
        };
        // Score first, whatever the distance.
        let fixture = runtimes(
            "default",
            &[
                (
                    "NS/a-low-score-runtime",
                    &rt(3, 2, 1, ", modelSizeRange: {min: 6B, max: 8B}"),
                ),
                (
                    "NS/high-score-runtime",
                    &rt(10, 8, 2, ", modelSizeRange: {min: 1B, max: 100B}"),
                ),
            ],
        );
        assert_eq!(
            ranking(&fixture.index(), &m, &r),
            [("high-score-runtime", 36), ("a-low-score-runtime", 5)]
        );
        // Equal scores: the closer range, whatever the name (39e9 against 5e9 here, since a
        // runtime must hold the model to be ranked at all).
        let fixture = runtimes(
            "default",
            &[
                (
                    "NS/a-wide-size-runtime",
                    &rt(5, 5, 1, ", modelSizeRange: {min: 1B, max: 40B}"),
                ),
                (
                    "NS/close-size-runtime",
                    &rt(5, 5, 1, ", modelSizeRange: {min: 5B, max: 10B}"),
                ),
            ],
        );
        assert_eq!(
            ranking(&fixture.index(), &m, &r),
            [("close-size-runtime", 10), ("a-wide-size-runtime", 10)]
        );
        // The comparator alone, with the Go test's distances (5e9 against 36e9 for 20B..30B).
        let index = fixture.index();
        let mut both: Vec<Ranked<'_>> = index
            .visible("default")
            .filter_map(|c| selectable(c, &m, &r))
            .collect();
        both[0].distance = size::distance(
            Some("7B"),
            Some(&crate::model::runtime::SizeRange {
                min: Some("20B".into()),
                max: Some("30B".into()),
            }),
        );
        assert_eq!(
            (both[0].candidate.name, both[0].distance, both[1].distance),
            ("a-wide-size-runtime", 36e9, 5e9)
        );
        assert_eq!(compare_ranked(&both[1], &both[0]), Ordering::Less);
        // Equal scores and distances: the namespace runtime, whatever the name...
        let fixture = runtimes(
            "default",
            &[
                ("CL/cluster-runtime", &rt(5, 5, 1, "")),
                ("NS/namespace-runtime", &rt(5, 5, 1, "")),
            ],
        );
        assert_eq!(
            ranking(&fixture.index(), &m, &r),
            [("namespace-runtime", 10), ("cluster-runtime", 10)]
        );
        // ...and whatever the score (R01's rule).
        let fixture = runtimes(
            "default",
            &[
                ("CL/cluster-runtime", &rt(50, 5, 1, "")),
                ("NS/namespace-runtime", &rt(5, 5, 1, "")),
            ],
        );
        assert_eq!(pick(&fixture.index(), &m, &r), Ok("namespace-runtime"));
    }

    /// R07.
    #[test]
    fn runtimes_without_auto_select_are_never_picked() {
        let fixture = runtimes(
            "default",
            &[
                (
                    "NS/rt-no-auto",
                    "{supportedModelFormats: [{modelFormat: {name: pytorch, weight: 5}, autoSelect: false}]}",
                ),
                (
                    "NS/rt-auto",
                    "{supportedModelFormats: [{modelFormat: {name: pytorch, weight: 10}, autoSelect: true}]}",
                ),
            ],
        );
        let m = model("{modelFormat: {name: pytorch}}");
        let r = Request::for_namespace("default");
        assert_eq!(ranking(&fixture.index(), &m, &r), [("rt-auto", 10)]);
    }

    /// R08 (excluded runtimes in the fixed order).
    #[test]
    fn no_runtime_found_text() {
        let fixture = runtimes("default", &[
            ("NS/rt-wrong-format", "{supportedModelFormats: [{modelFormat: {name: onnx, weight: 5}, autoSelect: true}]}"),
            ("NS/rt-size-too-small", "{supportedModelFormats: [{modelFormat: {name: pytorch, weight: 5}, autoSelect: true}],
                                       modelSizeRange: {min: 1B, max: 10B}}"),
        ]);
        let m = model("{modelFormat: {name: pytorch}, modelParameterSize: 70B}");
        assert_eq!(
            pick(&fixture.index(), &m, &Request::for_namespace("default")),
            Err("no runtime found to support model pytorch with format pytorch in namespace default. \
                 Checked 2 runtimes (2 namespace-scoped, 0 cluster-scoped). Excluded runtimes: \
                 rt-size-too-small (model size 70B is outside supported range [1B, 10B]); \
                 rt-wrong-format (model format 'mt:pytorch' not in supported formats: format name mismatch (model=pytorch, runtime=onnx))"
                .to_string())
        );
    }

    /// R09.
    #[test]
    fn accelerator_filtered_ranking() {
        let classes = "[nvidia-tesla-t4, nvidia-tesla-v100, nvidia-a100]";
        let rt = |weight: u32, priority: &str, range: &str, classes: &str| {
            format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: pytorch, weight: {weight}}}, autoSelect: true{priority}}}],
                  modelSizeRange: {range}, acceleratorRequirements: {{acceleratorClasses: {classes}}}}}"
            )
        };
        let fixture = runtimes(
            "default",
            &[
                (
                    "NS/pytorch-rt",
                    &rt(10, ", priority: 2", "{min: 1B, max: 10B}", classes),
                ),
                (
                    "NS/pytorch-rt-1",
                    &rt(8, ", priority: 1", "{min: 1B, max: 8B}", classes),
                ),
                (
                    "NS/pytorch-rt-2",
                    &rt(12, "", "{min: 50B, max: 100B}", classes),
                ),
                (
                    "NS/pytorch-rt-3",
                    &rt(12, "", "{min: 1B, max: 10B}", "[H100]"),
                ),
                (
                    "NS/pytorch-rt-4",
                    &rt(
                        12,
                        "",
                        "{min: 1B, max: 10B}",
                        "[H100, nvidia-tesla-t4, nvidia-tesla-v100, nvidia-a100]",
                    ),
                ),
            ],
        );
        let index = fixture.index();
        let m = model("{modelFormat: {name: pytorch}, modelParameterSize: 7B}");
        let order = |spec: &str| {
            let r = Request::from_inference_service(&isvc(&format!("{{spec: {spec}}}")));
            ranking(&index, &m, &r)
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>()
        };
        let all = ["pytorch-rt", "pytorch-rt-3", "pytorch-rt-4", "pytorch-rt-1"];
        assert_eq!(order("{}"), all);
        assert_eq!(order("{engine: {}}"), all);
        assert_eq!(order("{decoder: {}}"), all);
        let t4 = ["pytorch-rt", "pytorch-rt-4", "pytorch-rt-1"];
        assert_eq!(
            order("{acceleratorSelector: {acceleratorClass: nvidia-tesla-t4}}"),
            t4
        );
        assert_eq!(
            order("{engine: {acceleratorOverride: {acceleratorClass: nvidia-tesla-t4}}}"),
            t4
        );
        assert_eq!(
            order("{decoder: {acceleratorOverride: {acceleratorClass: nvidia-tesla-t4}}}"),
            t4
        );
        let r = Request::from_inference_service(&isvc(
            "{metadata: {name: s, annotations: {ome.io/accelerator-class: nvidia-tesla-t4}}}",
        ));
        assert_eq!(
            ranking(&index, &m, &r)
                .into_iter()
                .map(|(n, _)| n)
                .collect::<Vec<_>>(),
            t4
        );
        assert_eq!(
            order("{acceleratorSelector: {acceleratorClass: H100}}"),
            ["pytorch-rt-3", "pytorch-rt-4"]
        );
        assert_eq!(
            order(
                "{engine: {acceleratorOverride: {acceleratorClass: H100}},
                    decoder: {acceleratorOverride: {acceleratorClass: nvidia-tesla-t4}}}"
            ),
            ["pytorch-rt-4"]
        );
    }

    /// R10 and its variants.
    #[test]
    fn documented_scoring_example() {
        let m = r10_model();
        let r = Request::for_namespace("llama-demo");
        let fixture = r10_runtimes(3, true);
        assert_eq!(
            ranking(&fixture.index(), &m, &r),
            [
                ("team-llama", 2),
                ("vllm-llama", 6),
                ("srt-llama-small", 6),
                ("srt-llama-large", 6)
            ]
        );
        assert_eq!(pick(&fixture.index(), &m, &r), Ok("team-llama"));
        // Another namespace does not see team-llama.
        assert_eq!(
            pick(&fixture.index(), &m, &Request::for_namespace("other")),
            Ok("vllm-llama")
        );
        assert_eq!(
            pick(&r10_runtimes(3, false).index(), &m, &r),
            Ok("vllm-llama")
        );
        let fixture = r10_runtimes(4, true);
        assert_eq!(
            ranking(&fixture.index(), &m, &r)[..2],
            [("team-llama", 2), ("srt-llama-small", 8)]
        );
        assert_eq!(pick(&fixture.index(), &m, &r), Ok("team-llama"));
    }

    /// R11: the matching entry sets autoSelect false, another entry of the same format sets it.
    #[test]
    fn auto_select_may_come_from_another_entry() {
        let fixture = runtimes("default", &[(
            "CL/mixed",
            "{supportedModelFormats: [
               {modelFormat: {name: safetensors}, modelArchitecture: LlamaForCausalLM, autoSelect: false},
               {modelFormat: {name: safetensors}, modelArchitecture: MistralForCausalLM, autoSelect: true}]}",
        )]);
        let m = model("{modelFormat: {name: safetensors}, modelArchitecture: LlamaForCausalLM}");
        let selection = fixture
            .index()
            .select(&m, &Request::for_namespace("default"))
            .expect("R11 selects");
        assert_eq!((selection.runtime.name, selection.score), ("mixed", 1));
        // The best entry is the autoSelect one, architecture notwithstanding.
        assert_eq!(selection.best_entry.map(|(i, _)| i), Some(1));
    }

    /// R12: distances less than one parameter apart tie, and the name decides.
    #[test]
    fn size_distances_truncate_like_go() {
        let rt = |min: &str| {
            format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: p}}, autoSelect: true}}], modelSizeRange: {{min: '{min}'}}}}"
            )
        };
        let m = model("{modelFormat: {name: p}, modelParameterSize: 2B}");
        let r = Request::for_namespace("default");
        // 999999999.5 against 1000000000: a tie, so a-far wins on name.
        let fixture = runtimes(
            "default",
            &[
                ("CL/z-close", &rt("1000000000.5")),
                ("CL/a-far", &rt("1000000000")),
            ],
        );
        assert_eq!(pick(&fixture.index(), &m, &r), Ok("a-far"));
        // A whole parameter apart: the closer one wins.
        let fixture = runtimes(
            "default",
            &[
                ("CL/z-close", &rt("1000000001")),
                ("CL/a-far", &rt("1000000000")),
            ],
        );
        assert_eq!(pick(&fixture.index(), &m, &r), Ok("z-close"));
        // The documented example: 1.1B and 1100M are the same distance.
        let rt2 = |min: &str| {
            format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: p}}, autoSelect: true}}], modelSizeRange: {{min: {min}, max: 2B}}}}"
            )
        };
        let m = model("{modelFormat: {name: p}, modelParameterSize: 1.5B}");
        let fixture = runtimes(
            "default",
            &[("CL/b", &rt2("1.1B")), ("CL/a", &rt2("1100M"))],
        );
        assert_eq!(pick(&fixture.index(), &m, &r), Ok("a"));
    }

    #[test]
    fn the_merge_sort_survives_an_intransitive_comparator() {
        // Distances 10, 9.4 and 8.8 for a, b and c: a and b tie, so a first; b and c tie, so b
        // first; but c is a whole parameter closer than a. A cycle, and no panic.
        let fixture = runtimes(
            "default",
            &[
                (
                    "CL/c",
                    "{supportedModelFormats: [{modelFormat: {name: p}, autoSelect: true}], modelSizeRange: {min: '11.2'}}",
                ),
                (
                    "CL/b",
                    "{supportedModelFormats: [{modelFormat: {name: p}, autoSelect: true}], modelSizeRange: {min: '10.6'}}",
                ),
                (
                    "CL/a",
                    "{supportedModelFormats: [{modelFormat: {name: p}, autoSelect: true}], modelSizeRange: {min: '10'}}",
                ),
            ],
        );
        let m = model("{modelFormat: {name: p}, modelParameterSize: '20'}");
        let r = Request::for_namespace("default");
        assert_eq!(ranking(&fixture.index(), &m, &r).len(), 3);
        let mut numbers = vec![5, 3, 9, 1, 3, 7];
        merge_sort_by(&mut numbers, |a: &i32, b: &i32| a.cmp(b));
        assert_eq!(numbers, [1, 3, 3, 5, 7, 9]);
        let mut pairs = vec![(1, 'a'), (0, 'b'), (1, 'c'), (0, 'd')];
        merge_sort_by(&mut pairs, |a, b| a.0.cmp(&b.0));
        assert_eq!(pairs, [(0, 'b'), (0, 'd'), (1, 'a'), (1, 'c')], "stable");
        assert_eq!(go_float_to_int(f64::NAN), 0);
        assert_eq!(go_float_to_int(-0.9), 0);
        assert_eq!(go_float_to_int(1.9), 1);
    }

    /// M07.
    #[test]
    fn deployment_mode_exclusion_text() {
        let entry = "{modelFormat: {name: safetensors}, autoSelect: true}";
        let fixture = runtimes(
            "llama-demo",
            &[
                (
                    "CL/srt-llama-3-3-70b-instruct-multinode",
                    &format!(
                        "{{supportedModelFormats: [{entry}], engineConfig: {{annotations: {{ome.io/deploymentMode: MultiNode}}}}}}"
                    ),
                ),
                (
                    "CL/srt-no-auto",
                    "{supportedModelFormats: [{modelFormat: {name: safetensors}}]}",
                ),
            ],
        );
        let m = named_model(
            "llama-3-3-70b-instruct",
            "{modelFormat: {name: safetensors}}",
        );
        let r = Request::from_inference_service(&isvc(
            "{metadata: {name: s, namespace: llama-demo}, spec: {deploymentMode: OMENative}}",
        ));
        assert_eq!(
            pick(&fixture.index(), &m, &r),
            Err("no runtime found to support model safetensors with format safetensors in namespace llama-demo. \
                 Checked 2 runtimes (0 namespace-scoped, 2 cluster-scoped). Excluded runtimes: \
                 srt-llama-3-3-70b-instruct-multinode (runtime engine deployment mode MultiNode does not match requested engine deployment mode OMENative)"
                .to_string())
        );
    }

    /// OME's worked examples of the message, and C12's excluded line.
    #[test]
    fn documented_error_texts() {
        let fixture = runtimes(
            "llama-demo",
            &[(
                "CL/llama-3-3-70b-hopper",
                "{supportedModelFormats: [{modelFormat: {name: safetensors}, autoSelect: true}],
              acceleratorRequirements: {acceleratorClasses: [nvidia-h100]}}",
            )],
        );
        let m = model("{modelFormat: {name: safetensors}}");
        let r = Request::from_inference_service(&isvc(
            "{metadata: {name: s, namespace: llama-demo}, spec: {acceleratorSelector: {acceleratorClass: nvidia-a100}}}",
        ));
        assert_eq!(
            pick(&fixture.index(), &m, &r),
            Err("no runtime found to support model safetensors with format safetensors in namespace llama-demo. \
                 Checked 1 runtimes (0 namespace-scoped, 1 cluster-scoped). Excluded runtimes: \
                 llama-3-3-70b-hopper (runtime does not support the required accelerator class)"
                .to_string())
        );

        let fixture = runtimes("demo", &[
            (
                "CL/srt-mistral-7b-instruct",
                "{supportedModelFormats: [{modelFormat: {name: safetensors, version: '1.0.0'},
                   modelFramework: {name: transformers, version: 4.36.0}, modelArchitecture: MistralForCausalLM, autoSelect: true}]}",
            ),
            (
                "CL/srt-qwen2-5-7b",
                "{supportedModelFormats: [{modelFormat: {name: safetensors, version: '1.0.0'},
                   modelFramework: {name: transformers, version: 4.40.1}, modelArchitecture: Qwen2ForCausalLM, autoSelect: false}]}",
            ),
        ]);
        let m = named_model(
            "qwen2-5-7b",
            "{modelFormat: {name: safetensors, version: '1.0.0'}, modelFramework: {name: transformers, version: 4.40.1},
              modelArchitecture: Qwen2ForCausalLM}",
        );
        let error = fixture
            .index()
            .select(&m, &Request::for_namespace("demo"))
            .expect_err("no runtime supports the model");
        assert_eq!(
            admission_error(&m.name, &error),
            "no supporting runtime found for model qwen2-5-7b and engine does not have complete runner configuration: \
             no runtime found to support model safetensors with format safetensors in namespace demo. \
             Checked 2 runtimes (0 namespace-scoped, 2 cluster-scoped). Excluded runtimes: srt-mistral-7b-instruct \
             (model format 'mt:safetensors:1.0.0:Qwen2ForCausalLM:transformers:4.40.1' not in supported formats: \
             architecture mismatch (model=Qwen2ForCausalLM, runtime=MistralForCausalLM), framework version mismatch (model=4.40.1, runtime=4.36.0))"
        );

        let fixture = runtimes("default", &[(
            "CL/srt-qwen-image-pipeline",
            "{supportedModelFormats: [{modelFormat: {name: diffusers, version: 0.34.0.dev0},
               modelFramework: {name: diffusers, version: 0.34.0.dev0}, modelArchitecture: QwenImagePipeline, autoSelect: true,
               diffusionPipeline: {className: QwenImagePipeline, transformer: {library: diffusers}}}]}",
        )]);
        let m = named_model(
            "qwen-image-pvc",
            "{modelFormat: {name: diffusers, version: 0.34.0.dev0}, modelFramework: {name: diffusers, version: 0.34.0.dev0},
              modelArchitecture: QwenImagePipeline}",
        );
        let text = pick(&fixture.index(), &m, &Request::for_namespace("default")).expect_err("C12");
        assert!(text.ends_with(
            "Excluded runtimes: srt-qwen-image-pipeline (model format 'mt:diffusers:0.34.0.dev0:QwenImagePipeline:diffusers:0.34.0.dev0' \
             not in supported formats: diffusion pipeline required by runtime but not specified in model)"
        ), "{text}");
    }

    /// The remembered choice among ClusterServingRuntimes answers as the uncached path does:
    /// per namespace (a namespace's own runtime still wins there), per accelerator class, and
    /// the same again when asked twice.
    #[test]
    fn the_cached_cluster_choice_answers_as_the_uncached_one() {
        let entry = "{supportedModelFormats: [{modelFormat: {name: llama, version: '1.0.0'}, modelArchitecture: llama, autoSelect: true}]";
        let fixture = runtimes(
            "default",
            &[
                (
                    "CL/cluster-b",
                    &format!("{entry}, acceleratorRequirements: {{acceleratorClasses: [h100]}}}}"),
                ),
                ("CL/cluster-a", &format!("{entry}}}")),
                ("NS:team/own", &format!("{entry}}}")),
            ],
        );
        let m = named_model(
            "m",
            "{modelFormat: {name: llama, version: '1.0.0'}, modelArchitecture: llama}",
        );
        let index = fixture.index();
        let h100 = Request {
            accelerator_classes: vec!["h100".into()],
            ..Request::for_namespace("default")
        };
        for request in [
            Request::for_namespace("default"),
            Request::for_namespace("team"),
            h100.clone(),
            Request::for_namespace("default"),
            h100,
            Request::for_namespace("team"),
        ] {
            let cached = index
                .select_in_catalog(&m, &request)
                .map(|s| s.runtime.name);
            let fresh = index.select(&m, &request).map(|s| s.runtime.name);
            assert_eq!(cached.ok(), fresh.ok(), "{request:?}");
        }
        let pick = |r: &Request| index.select_in_catalog(&m, r).map(|s| s.runtime.name).ok();
        assert_eq!(pick(&Request::for_namespace("team")), Some("own"));
        assert_eq!(pick(&Request::for_namespace("default")), Some("cluster-a"));
        assert_eq!(index.cluster_best.lock().map(|c| c.len()).unwrap_or(0), 2);
    }

    /// W01–W03, W05.
    #[test]
    fn webhook_vectors() {
        let entry = |auto: bool| {
            format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: llama, version: '1.0.0'}}, modelArchitecture: llama, autoSelect: {auto}}}]}}"
            )
        };
        let m = named_model(
            "test-model",
            "{modelFormat: {name: llama, version: '1.0.0'}, modelArchitecture: llama, modelParameterSize: 7B}",
        );
        let r = Request::for_namespace("default");
        // W01: identical runtimes, the name decides.
        let fixture = runtimes(
            "default",
            &[
                ("CL/runtime-2", &entry(true)),
                ("CL/runtime-1", &entry(true)),
            ],
        );
        let winner = fixture.index().select(&m, &r).expect("W01 selects");
        assert_eq!(
            auto_selected_warning(winner.runtime.name, &m.name),
            "Runtime runtime-1 will be auto-selected for model test-model"
        );
        // W02
        let simple = named_model(
            "simple-model",
            "{modelFormat: {name: llama, version: '1.0.0'}, modelArchitecture: llama}",
        );
        let fixture = runtimes("default", &[("CL/non-autoselect-runtime", &entry(false))]);
        let error = fixture.index().select(&simple, &r).expect_err("W02");
        assert!(
            admission_error(&simple.name, &error)
                .starts_with("no supporting runtime found for model simple-model")
        );
        assert!(
            error
                .to_string()
                .ends_with("(0 namespace-scoped, 1 cluster-scoped)"),
            "{error}"
        );
        let empty = runtimes("default", &[]);
        let error = empty.index().select(&simple, &r).expect_err("W02 empty");
        assert_eq!(
            error.to_string(),
            "no runtime found to support model llama with format llama in namespace default"
        );
        // W03: entries with only the top-level name and version never match.
        let fixture = runtimes(
            "default",
            &[(
                "CL/legacy",
                "{supportedModelFormats: [{name: llama, version: '1', autoSelect: true}]}",
            )],
        );
        let error = fixture.index().select(&simple, &r).expect_err("W03");
        assert!(admission_error(&simple.name, &error).contains("no supporting runtime found"));
        // W05
        let blank = named_model("model-empty-format", "{modelFormat: {name: ''}}");
        let error = fixture.index().select(&blank, &r).expect_err("W05");
        assert_eq!(
            admission_error(&blank.name, &error),
            "no supporting runtime found for model model-empty-format and engine does not have complete runner configuration: \
             invalid model specification: modelFormat.name: model format name is required"
        );
        assert_eq!(error, SelectError::ModelFormatMissing);
        // A model without any modelFormat (SEMANTICS.md#choice-model-metadata).
        let bare = named_model("bare", "{storage: {storageUri: 'hf://x'}}");
        assert_eq!(
            fixture.index().select(&bare, &r).expect_err("no metadata"),
            SelectError::ModelFormatMissing
        );
        assert!(
            SelectError::ModelFormatMissing
                .help()
                .contains("modelFormat.name")
        );
    }

    #[test]
    fn a_cluster_runtime_shadowed_by_a_namespaced_one_is_its_own_candidate() {
        let fixture = runtimes(
            "default",
            &[
                (
                    "NS/same",
                    "{disabled: true, supportedModelFormats: [{modelFormat: {name: p}, autoSelect: true}]}",
                ),
                (
                    "CL/same",
                    "{supportedModelFormats: [{modelFormat: {name: p}, autoSelect: true}]}",
                ),
                (
                    "NS:other/only-there",
                    "{supportedModelFormats: [{modelFormat: {name: p}, autoSelect: true}]}",
                ),
            ],
        );
        let index = fixture.index();
        let m = model("{modelFormat: {name: p}}");
        let selection = index
            .select(&m, &Request::for_namespace("default"))
            .expect("selects");
        assert_eq!(
            (selection.runtime.name, selection.runtime.scope),
            ("same", Scope::Cluster)
        );
        let selection = index
            .select(&m, &Request::for_namespace("other"))
            .expect("selects");
        assert_eq!(
            (selection.runtime.name, selection.runtime.scope),
            ("only-there", Scope::Namespaced)
        );
        let visible: Vec<_> = index
            .visible("default")
            .map(|c| (c.name, c.scope))
            .collect();
        assert_eq!(
            visible,
            [("same", Scope::Namespaced), ("same", Scope::Cluster)]
        );
    }

    /// The fast path agrees with evaluating every visible runtime, over a generated catalog.
    #[test]
    fn the_format_index_agrees_with_the_exhaustive_ranking() {
        let formats = ["pytorch", "onnx", "safetensors", "gguf"];
        let mut list = Vec::new();
        for i in 0..120u32 {
            let label = match i % 3 {
                0 => format!("CL/rt-{i:03}"),
                1 => format!("NS:ns-{}/rt-{i:03}", i % 4),
                _ => format!("NS:ns-{}/rt-{i:03}", (i + 1) % 4),
            };
            let spec = format!(
                "{{supportedModelFormats: [
                    {{modelFormat: {{name: {}, weight: {}}}, autoSelect: {}, priority: {}}},
                    {{modelFormat: {{name: {}}}, modelArchitecture: A{}, autoSelect: true}}],
                  modelSizeRange: {{min: {}B, max: {}B}}, disabled: {}}}",
                formats[(i % 4) as usize],
                i % 7,
                i % 5 != 0,
                1 + i % 3,
                formats[((i / 4) % 4) as usize],
                i % 2,
                i % 10,
                10 + i % 50,
                i % 11 == 0,
            );
            list.push((label, spec));
        }
        let borrowed: Vec<(&str, &str)> =
            list.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let fixture = runtimes("default", &borrowed);
        let index = fixture.index();
        let mut selected = 0;
        for format in formats {
            for size in ["3B", "9B", "40B", "70B"] {
                for arch in ["A0", "A1"] {
                    for ns in ["ns-0", "ns-1", "ns-2", "ns-3", "none"] {
                        let m = model(&format!(
                            "{{modelFormat: {{name: {format}}}, modelArchitecture: {arch}, modelParameterSize: {size}}}"
                        ));
                        let r = Request::for_namespace(ns);
                        let exhaustive = ranking(&index, &m, &r).first().map(|(n, _)| *n);
                        let fast = index.select(&m, &r).ok().map(|s| s.runtime.name);
                        assert_eq!(fast, exhaustive, "{format} {size} {arch} {ns}");
                        selected += usize::from(fast.is_some());
                    }
                }
            }
        }
        assert!(
            selected > 20,
            "the generated catalog should select often, selected {selected}"
        );
    }
}
