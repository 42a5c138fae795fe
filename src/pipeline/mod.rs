//! The render pipeline end to end, without I/O of its own besides the loader: load →
//! catalog → (per InferenceService, in parallel) resolve → render → serialise → output
//! checks → filter and order. Shared by `render`, `check` and `explain`.

use crate::catalog::{self, Catalog};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::diff::normalise::{Normalise, fingerprint};
use crate::emit::kinds::Unmatched;
use crate::emit::{self, Format};
use crate::inherit::Inherited;
use crate::k8s::id::ObjectId;
use crate::load::{self, LoadError, LoadOptions};
use crate::model::Settings;
use crate::render;
use crate::rendered::Rendered;
use crate::select::resolve::{ResolvedIsvc, Resolver, resolve};
use crate::source::Sources;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What to render.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    pub(crate) load: LoadOptions,
    /// The namespace of namespaced objects written without one.
    pub(crate) namespace: String,
    /// Keep the consumed OME resources in the output.
    pub(crate) keep_ome: bool,
    /// Only these kinds in the output (all when empty).
    pub(crate) kinds: Vec<String>,
    /// Serialise each object in this format as soon as it is rendered (and free its tree).
    pub(crate) serialise: Option<Format>,
    /// An empty output is no error (SEMANTICS.md#choice-fail-closed).
    pub(crate) allow_empty: bool,
    /// Each object goes to a file of its own: check that it can.
    pub(crate) file_per_object: bool,
    /// For `diff`: also return what each InferenceService resolved to and a fingerprint of
    /// each consumed input, to attribute changes, and leave the objects in render order
    /// (`diff` orders only what differs). Off for a render.
    pub(crate) trace: bool,
    /// Applied to each object's tree before it is serialised (`diff`: ignored fields, Secret
    /// values).
    pub(crate) normalise: Option<Normalise>,
    /// Passed-through objects of the first this many sources are written whatever `kinds`
    /// selects: a KRM function returns every item it does not own, while the objects its
    /// `paths` add are filtered like a render's (SEMANTICS.md#krm-function).
    pub(crate) keep_passthrough_of: u32,
    /// The process exits once this run's output is written (a render, the KRM function):
    /// what is left of the catalog after rendering is not freed then, as the rendering isn't.
    pub(crate) exit_after: bool,
    /// Leave out the `${` check: Argo CD never substitutes, so under its plugin the check
    /// belongs to no one (SEMANTICS.md#choice-flux-substitution).
    pub(crate) no_flux_check: bool,
    /// `--api-versions`: cluster APIs added to the settings file's (SEMANTICS.md#api-versions).
    pub(crate) api_versions: Vec<String>,
    /// Laid over the settings' `ingress` (the Argo CD plugin's parameters).
    pub(crate) ingress: crate::model::settings::IngressOverride,
    /// `diff`'s head side: the base's objects of each InferenceService, reused where nothing
    /// they were rendered from differs (SEMANTICS.md#diff-reuse). Needs `trace`.
    pub(crate) reuse: Option<std::sync::Arc<reuse::Reuse>>,
}

/// The result of a run: objects in output order (in render order with `Options::trace`), and
/// every diagnostic, sorted.
#[derive(Debug, Default)]
pub(crate) struct Rendering {
    pub(crate) sources: Sources,
    pub(crate) objects: Vec<Rendered>,
    pub(crate) diags: Vec<Diagnostic>,
    /// How long each stage took, for `--timings`.
    pub(crate) timings: Vec<(&'static str, Duration)>,
    /// Names `--kinds` gives that are no kind at all, with the closest kind: a usage error.
    pub(crate) unknown_kinds: Vec<(String, Option<String>)>,
    /// The controller settings the run used.
    pub(crate) settings: Settings,
    /// With `Options::trace`: what each InferenceService resolved to, in catalog order.
    pub(crate) resolved: Vec<ResolvedIsvc>,
    /// With `Options::trace`: each consumed OME input and the fingerprint of its tree.
    pub(crate) inputs: BTreeMap<ObjectId, u64>,
    /// With `Options::trace`: what each InferenceService's objects were rendered from, for
    /// the other side of a `diff` to reuse them.
    pub(crate) recorded: reuse::Recorded,
    /// With `Options::reuse`: how many InferenceServices took the base's objects.
    pub(crate) reused: usize,
}

impl Rendering {
    /// This render as one side of `diff`.
    pub(crate) fn side(&self) -> crate::diff::Side<'_> {
        crate::diff::Side {
            objects: &self.objects,
            resolved: &self.resolved,
            inputs: &self.inputs,
            settings: &self.settings,
        }
    }
}

/// The inputs, catalogued: what every command starts from.
pub(crate) struct Catalogued {
    pub(crate) sources: Sources,
    pub(crate) catalog: Catalog,
    pub(crate) settings: Settings,
    /// The diagnostics of loading and cataloguing. When they hold errors, later stages
    /// would only report their consequences, so commands stop here.
    pub(crate) diags: Vec<Diagnostic>,
}

impl Catalogued {
    pub(crate) fn has_errors(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }
}

/// Loads the inputs and builds the catalog.
pub(crate) fn load_catalog(
    options: &Options,
    stdin: &mut dyn FnMut(u64) -> std::io::Result<Vec<u8>>,
) -> Result<Catalogued, LoadError> {
    Ok(catalog_of(load::load(&options.load, stdin)?, options))
}

/// How many InferenceServices are rendered (in parallel) before their objects join the
/// output list: enough to keep every thread busy, few enough that the objects waiting to
/// join it stay small.
const RENDER_SLICE: usize = 1024;

/// How many objects `total` InferenceServices render, when the first `done` of them rendered
/// `rendered`: the same rate for the rest, and a 32nd more for the InferenceServices that
/// render more than those so far.
fn estimate(rendered: usize, done: usize, total: usize) -> usize {
    if done >= total {
        return rendered;
    }
    let expected = rendered.saturating_mul(total) / done.max(1);
    expected.saturating_add(expected / 32)
}

/// The capacity a list of `capacity` grows to when an estimate says it needs `expected`: an
/// eighth more at least, so that growing it again and again, as a drifting rate can make it,
/// costs copies linear in its length.
fn grown(capacity: usize, expected: usize) -> usize {
    expected.max(capacity.saturating_add(capacity / 8))
}

/// Builds the catalog of loaded objects.
fn catalog_of(loaded: load::Loaded, options: &Options) -> Catalogued {
    let mut diags = loaded.diags;
    let mut settings = Settings::read_all(
        loaded.settings.as_ref(),
        loaded.deploy_config.as_ref(),
        &mut diags,
    );
    if !options.api_versions.is_empty() {
        let apis = settings.api_versions.get_or_insert_default();
        for entry in &options.api_versions {
            // Each was checked when the command line was parsed.
            let _ = apis.insert(entry);
        }
    }
    options.ingress.apply(&mut settings.ingress);
    let mut objects = loaded.objects;
    diags.extend(catalog::model_metadata::fill(
        &mut objects,
        &loaded.model_configs,
    ));
    let (mut catalog, catalog_diags) = catalog::build(
        objects,
        &options.namespace,
        &settings.ome_namespace,
        options.keep_ome || options.trace,
    );
    diags.extend(catalog_diags);
    catalog.lock = crate::revision::lock::Lock::read(loaded.lock.as_ref(), &mut diags);
    catalog.limits = options.load.limits;
    diags.extend(crate::catalog::checks::check_runtimes(&catalog));
    Catalogued {
        sources: loaded.sources,
        catalog,
        settings,
        diags,
    }
}

/// Runs the whole pipeline.
pub(crate) fn run(
    options: &Options,
    stdin: &mut dyn FnMut(u64) -> std::io::Result<Vec<u8>>,
) -> Result<Rendering, LoadError> {
    let clock = Instant::now();
    let loaded = load::load(&options.load, stdin)?;
    Ok(run_loaded(loaded, options, clock))
}

/// Runs the pipeline on objects already loaded (the KRM function's items).
pub(crate) fn run_on(loaded: load::Loaded, options: &Options) -> Rendering {
    run_loaded(loaded, options, Instant::now())
}

/// Renders files given as text: the pipeline without the file system.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn render_texts(files: &[(&str, &str)], options: &Options) -> Rendering {
    run_loaded(
        load::from_texts(files, &options.load.limits),
        options,
        Instant::now(),
    )
}

/// The time each step took, for `--timings`; the clock started when loading did.
struct Laps {
    clock: Instant,
    timings: Vec<(&'static str, Duration)>,
}

impl Laps {
    fn lap(&mut self, name: &'static str) {
        self.timings.push((name, self.clock.elapsed()));
        self.clock = Instant::now();
    }
}

/// Runs the pipeline on loaded objects in its named steps (ARCHITECTURE.md): catalog →
/// admit → select and render (per InferenceService, in parallel) → check → emit. `clock`
/// started when loading did.
fn run_loaded(loaded: load::Loaded, options: &Options, clock: Instant) -> Rendering {
    let mut laps = Laps {
        clock,
        timings: Vec::new(),
    };
    let catalogued = catalog_of(loaded, options);
    if catalogued.has_errors() {
        return refused(catalogued, laps);
    }
    let mut admitted = admit(catalogued, options);
    laps.lap("load and catalog");
    let (inherited, inherit_diags) = crate::inherit::resolve_all(&admitted.catalog);
    admitted.diags.extend(inherit_diags);
    laps.lap("inherit and index");
    let mut rendered = render_all(&mut admitted, &inherited, options);
    if rendered.stopped {
        // The output limit was passed: its error is all the rendering says.
        laps.lap("resolve and render");
        let Admitted {
            sources,
            settings,
            mut diags,
            ..
        } = admitted;
        diags.extend(rendered.diags);
        return stopped(sources, settings, diags, laps);
    }
    pass_through(&mut rendered.objects, &mut admitted.catalog, options);
    release(&mut admitted.catalog, inherited, options.exit_after);
    laps.lap("resolve and render");
    let Admitted {
        sources,
        settings,
        mut diags,
        input_kinds,
        inputs,
        reuse_inputs,
        ..
    } = admitted;
    let Output {
        mut objects,
        diags: render_diags,
        resolved,
        mut records,
        reused,
        ..
    } = rendered;
    diags.extend(render_diags);
    let unknown_kinds = check(
        &mut objects,
        &input_kinds,
        &sources,
        &settings,
        options,
        &mut diags,
    );
    emit_step(&mut objects, options);
    crate::diagnostics::sort(&mut diags);
    if !options.kinds.is_empty() {
        // The records' ranges are of the list before `--kinds` filtered it.
        records.clear();
    }
    laps.lap("check, filter and sort");
    Rendering {
        sources,
        objects,
        diags,
        timings: laps.timings,
        unknown_kinds,
        settings,
        resolved,
        inputs,
        recorded: reuse::Recorded {
            records,
            inputs: reuse_inputs,
        },
        reused,
    }
}

/// The runtimes' views and what they inherit, most of what is left of the catalog once
/// rendered: left to the process's end when it exits after this run, else freed.
fn release(catalog: &mut Catalog, inherited: Inherited, exit_after: bool) {
    if exit_after {
        let runtimes = (
            std::mem::take(&mut catalog.runtimes),
            std::mem::take(&mut catalog.cluster_runtimes),
        );
        leave_to_exit((runtimes, inherited));
    }
}

/// Leaves `value` to the end of the process instead of freeing it: the one place where
/// ome-render does so. A render and the KRM function exit once their output is written, and
/// freeing every tree of the run first costs time for nothing, the memory goes back to the
/// system anyway (BENCHMARKS.md, "Freeing at exit"). Only for what a command holds until it
/// returns its exit status, or what the pipeline no longer needs with `Options::exit_after`.
pub(crate) fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// The catalog step failed: the runtimes' own admission rules (profile, inheritance chain)
/// are reported too, so that every failing rule shows at once, and nothing renders.
fn refused(catalogued: Catalogued, mut laps: Laps) -> Rendering {
    let Catalogued {
        sources,
        catalog,
        settings,
        mut diags,
    } = catalogued;
    laps.lap("load and catalog");
    diags.extend(crate::inherit::resolve_all(&catalog).1);
    stopped(sources, settings, diags, laps)
}

/// A run that stopped before its output: its diagnostics, sorted, and nothing to write.
fn stopped(
    sources: Sources,
    settings: Settings,
    mut diags: Vec<Diagnostic>,
    laps: Laps,
) -> Rendering {
    crate::diagnostics::sort(&mut diags);
    Rendering {
        sources,
        diags,
        timings: laps.timings,
        settings,
        ..Rendering::default()
    }
}

/// The catalogued inputs, ready to render: the InferenceServices taken out of the catalog
/// (each goes once rendered), the consumed objects' trees gone unless they are written.
struct Admitted {
    sources: Sources,
    catalog: Catalog,
    settings: Settings,
    diags: Vec<Diagnostic>,
    /// Every kind of the input, for `--kinds`.
    input_kinds: BTreeSet<String>,
    /// With `Options::trace`: each consumed OME input and the fingerprint of its tree.
    inputs: BTreeMap<ObjectId, u64>,
    /// With `Options::trace`: each consumed input's file and every file's digest.
    reuse_inputs: reuse::Inputs,
    #[expect(clippy::vec_box, reason = "as the catalog holds them, moved out whole")]
    inference_services: Vec<Box<crate::model::InferenceService>>,
}

/// The admit step: what the catalog holds, checked beyond each object (stale pins), and
/// what the later steps need of the inputs (their kinds, `diff`'s fingerprints) taken before
/// the consumed objects' trees go.
fn admit(catalogued: Catalogued, options: &Options) -> Admitted {
    let Catalogued {
        sources,
        mut catalog,
        settings,
        mut diags,
    } = catalogued;
    let input_kinds: BTreeSet<String> = catalog
        .passthrough
        .iter()
        .chain(&catalog.consumed)
        .map(|o| o.kind.clone())
        .collect();
    // `diff` compares the consumed objects (and the runtime revisions pins render from) by
    // their fingerprints, taken before the trees go.
    let (inputs, reuse_inputs) = if options.trace {
        let revisions = catalog
            .passthrough
            .iter()
            .filter(|o| crate::revision::is_runtime_revision(o));
        let traced: Vec<(ObjectId, u64, u32)> = catalog
            .consumed
            .iter()
            .chain(revisions)
            .collect::<Vec<_>>()
            .par_iter()
            .map(|o| {
                let id = o.id(&options.namespace).to_owned();
                (id, fingerprint(&o.root), o.root.pos.file)
            })
            .collect();
        let object_files: BTreeSet<u32> = catalog
            .consumed
            .iter()
            .chain(&catalog.passthrough)
            .map(|o| o.root.pos.file)
            .chain(catalog.inference_services.iter().map(|i| i.pos.file))
            .collect();
        let consumed = traced
            .iter()
            .map(|(id, fp, f)| (id.clone(), (*fp, *f)))
            .collect();
        let fingerprints = traced.into_iter().map(|(id, fp, _)| (id, fp)).collect();
        (
            fingerprints,
            reuse::Inputs::new(&sources, consumed, &object_files),
        )
    } else {
        (BTreeMap::new(), reuse::Inputs::default())
    };
    // The consumed objects' trees are needed only to be written again: without --keep-ome
    // they go now, before the output takes their place in memory (freed on every thread:
    // 10,000 trees are a tenth of a second on one).
    if !options.keep_ome {
        std::mem::take(&mut catalog.consumed)
            .into_par_iter()
            .for_each(drop);
    }
    diags.extend(crate::select::pins::stale_entries(&catalog));
    let inference_services = std::mem::take(&mut catalog.inference_services);
    Admitted {
        sources,
        catalog,
        settings,
        diags,
        input_kinds,
        inputs,
        reuse_inputs,
        inference_services,
    }
}

/// What the select and render steps give: the objects in render order, their diagnostics,
/// and with `Options::trace` what each InferenceService resolved to.
#[derive(Default)]
struct Output {
    objects: Vec<Rendered>,
    diags: Vec<Diagnostic>,
    resolved: Vec<ResolvedIsvc>,
    /// With `Options::trace`: what each InferenceService's objects were rendered from.
    records: Vec<(ObjectId, reuse::Record)>,
    /// How many InferenceServices took the base's objects.
    reused: usize,
    /// The output limit was passed: nothing is rendered, `diags` holds its error alone.
    stopped: bool,
}

impl Output {
    /// A slice's renders, in order: their objects, diagnostics and resolutions, what the
    /// head of a `diff` may reuse, and each runtime's choice for the output limit's error.
    fn add(&mut self, rendered: Vec<RenderedIsvc<'_>>, choices: &mut output_limit::Choices) {
        for (o, d, summary, chose, record) in rendered {
            let start = self.objects.len();
            self.objects.extend(o);
            if let (Some((key, diags)), Some(s)) = (record, &summary) {
                let record = reuse::Record {
                    key,
                    objects: start..self.objects.len(),
                    diags,
                };
                self.records.push((s.isvc.clone(), record));
            }
            self.diags.extend(d);
            self.resolved.extend(summary);
            if let Some((key, spec)) = chose {
                choices.add(key, spec);
            }
        }
    }
}

/// The select and render steps over every InferenceService, in parallel, a slice at a time:
/// each slice's objects are moved into one list before the next is rendered, since the
/// objects of every InferenceService, held apart until all are rendered, would sit beside
/// that list while it is filled (BENCHMARKS.md).
fn render_all(admitted: &mut Admitted, inherited: &Inherited, options: &Options) -> Output {
    let catalog = &admitted.catalog;
    let resolver = Resolver::new(catalog, inherited);
    let settings = &admitted.settings;
    let reuse = options.trace.then_some(Reusing {
        base: options
            .reuse
            .as_deref()
            .filter(|r| r.applies(settings, &admitted.reuse_inputs)),
        inputs: &admitted.reuse_inputs,
        reused: AtomicUsize::new(0),
    });
    let mut out = Output::default();
    let total = admitted.inference_services.len();
    let input_bytes = admitted.sources.input_bytes();
    let allowed = catalog.limits.output_bytes(input_bytes);
    let budget = output_limit::OutputBudget::new(allowed);
    let mut choices = output_limit::Choices::default();
    let passing_through = catalog.passthrough.len()
        + if options.keep_ome {
            catalog.consumed.len()
        } else {
            0
        };
    let mut pending = std::mem::take(&mut admitted.inference_services).into_iter();
    let mut done = 0;
    loop {
        let slice: Vec<_> = pending.by_ref().take(RENDER_SLICE).collect();
        if slice.is_empty() {
            break;
        }
        done += slice.len();
        let rendered: Vec<_> = slice
            .into_par_iter()
            .map(|isvc| {
                render_one(
                    isvc,
                    catalog,
                    &resolver,
                    settings,
                    options,
                    &budget,
                    reuse.as_ref(),
                )
            })
            .collect();
        let objects = &mut out.objects;
        let needed = objects.len() + rendered.iter().map(|(o, ..)| o.len()).sum::<usize>();
        if needed > objects.capacity() {
            // The list is sized once for the whole run, from the rate so far: grown by
            // doubling, each step would copy it into memory never touched before, which on the
            // benchmark machine costs more than the copy (BENCHMARKS.md).
            let expected = estimate(needed, done, total).saturating_add(passing_through);
            objects.reserve_exact(grown(objects.capacity(), expected) - objects.len());
        }
        out.add(rendered, &mut choices);
        if budget.passed() {
            // Freed now: what follows only resolves.
            out.objects = Vec::new();
        }
    }
    if budget.passed() {
        // Which InferenceServices were rendered before the limit was passed depends on the
        // threads: their diagnostics are left out, the error names only what every
        // InferenceService's resolution says.
        return Output {
            diags: vec![choices.error(catalog, allowed, input_bytes, total)],
            stopped: true,
            ..Output::default()
        };
    }
    out.objects.reserve_exact(passing_through);
    out.reused = reuse.map_or(0, |r| r.reused.into_inner());
    out
}

/// What one InferenceService gives: its objects, diagnostics, with `Options::trace` what it
/// resolved to, and the runtime it chose with the spec it renders from (for the output
/// limit's error).
type RenderedIsvc<'a> = (
    Vec<Rendered>,
    Vec<Diagnostic>,
    Option<ResolvedIsvc>,
    Option<(crate::k8s::id::ObjectId, &'a crate::yaml::Node)>,
    Option<(reuse::Key, Vec<Diagnostic>)>,
);

/// With `Options::trace`: this side's inputs as reuse compares them, and the base's objects
/// when the head may reuse them.
struct Reusing<'r> {
    base: Option<&'r reuse::Reuse>,
    inputs: &'r reuse::Inputs,
    /// How many InferenceServices took the base's objects.
    reused: AtomicUsize,
}

/// One InferenceService through admit, select and render. OME's admission of the
/// InferenceService as written: when it rejects it, the model and runtime are still
/// resolved (OME's webhook checks them too) but nothing is rendered. Every resolved
/// InferenceService counts toward the `output-ratio` error; past the limit, nothing more is
/// rendered.
fn render_one<'a>(
    mut isvc: Box<crate::model::InferenceService>,
    catalog: &'a Catalog,
    resolver: &Resolver<'a>,
    settings: &Settings,
    options: &Options,
    budget: &output_limit::OutputBudget,
    reusing: Option<&Reusing<'_>>,
) -> RenderedIsvc<'a> {
    let mut d = std::mem::take(&mut isvc.admission);
    let admitted = !d.iter().any(Diagnostic::is_error);
    let Some(resolution) = resolve(&isvc, catalog, resolver, &mut d) else {
        return (Vec::new(), d, None, None, None);
    };
    let chose = Some(chosen(&resolution, &isvc));
    if !admitted || budget.passed() {
        return (Vec::new(), d, None, chose, None);
    }
    let summary = options.trace.then(|| resolution.summary(&isvc));
    let key = reusing
        .zip(summary.as_ref())
        .and_then(|(r, s)| r.inputs.key(&resolution, s, isvc.pos).map(|k| (r, s, k)));
    let reused = key
        .as_ref()
        .and_then(|(r, s, k)| r.base.and_then(|base| base.lookup(&s.isvc, k, r.inputs)));
    let rendered_from = d.len();
    let mut objects = if let Some((objects, diags)) = reused {
        if let Some(r) = reusing {
            r.reused.fetch_add(1, Ordering::Relaxed);
        }
        d.extend(diags);
        objects
    } else {
        let mut objects = render::render_inference_service(&isvc, &resolution, settings, &mut d);
        if let Some(normalise) = &options.normalise {
            objects.iter_mut().for_each(|o| normalise.apply(o));
        }
        if let Some(format) = options.serialise {
            for o in &mut objects {
                // The tree is at hand only now: the check points into the input.
                let tree = emit::serialise(o, format);
                if !options.no_flux_check {
                    d.extend(emit::checks::flux_substitution(o, tree.as_ref()));
                }
            }
        }
        objects
    };
    let record = key.map(|(_, _, k)| (k, d[rendered_from..].to_vec()));
    // The serialised bytes (a run that keeps the trees, only tests, counts none).
    let bytes = objects
        .iter()
        .map(|o| match &o.body {
            crate::rendered::Body::Bytes(b) => b.len() as u64,
            crate::rendered::Body::Tree(_) => 0,
        })
        .sum();
    if !budget.spend(bytes) {
        objects = Vec::new();
    }
    (objects, d, summary, chose, record)
}

/// Adds the passed-through objects (and with `--keep-ome` the consumed ones) after the
/// rendered ones.
fn pass_through(objects: &mut Vec<Rendered>, catalog: &mut Catalog, options: &Options) {
    let passed_through = |obj: crate::load::Object| {
        let pos = crate::model::name_pos(&obj.root);
        let mut object = Rendered::new(obj.root, None, pos);
        if let Some(normalise) = &options.normalise {
            normalise.apply(&mut object);
        }
        object
    };
    objects.extend(
        std::mem::take(&mut catalog.passthrough)
            .into_iter()
            .map(passed_through),
    );
    if options.keep_ome {
        objects.extend(
            std::mem::take(&mut catalog.consumed)
                .into_iter()
                .map(passed_through),
        );
    }
}

/// The check step over the whole output: collisions, the cluster's APIs, PodMonitors, OME
/// objects passed through, `--kinds` (which filters the objects), an empty output and file
/// names. Returns the names `--kinds` gives that are no kind at all.
fn check(
    objects: &mut Vec<Rendered>,
    input_kinds: &BTreeSet<String>,
    sources: &Sources,
    settings: &Settings,
    options: &Options,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(String, Option<String>)> {
    render::model_agent::dedup(diags);
    emit::checks::collisions(objects, &options.namespace, diags);
    // Pods need the model agent (a node label, an overlay), which the settings don't say runs.
    let model_agent = diags
        .iter()
        .any(|d| d.code == Code::ModelAgent && d.severity == Severity::Warning);
    emit::checks::apis(objects, settings.api_versions.as_ref(), model_agent, diags);
    emit::checks::pod_monitors(
        objects,
        settings.api_versions.as_ref(),
        &settings.pod_monitor,
        diags,
    );
    emit::checks::ome_passthrough(objects, diags);
    let rendered = objects.len();
    let unknown_kinds = select_kinds(objects, input_kinds, options, diags);
    // Only a run that would succeed can be empty: after an error nothing is written anyway.
    if objects.is_empty() && !options.allow_empty && !diags.iter().any(Diagnostic::is_error) {
        diags.push(empty_output(sources, options, rendered));
    }
    if options.file_per_object
        && let Some(format) = options.serialise
    {
        emit::checks::file_names(objects, format, diags);
    }
    unknown_kinds
}

/// `--kinds`: keeps the objects of the kinds it names, warns of a kind that selects nothing,
/// and returns the names that are no kind at all, with the closest kind.
fn select_kinds(
    objects: &mut Vec<Rendered>,
    input_kinds: &BTreeSet<String>,
    options: &Options,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(String, Option<String>)> {
    let mut unknown_kinds = Vec::new();
    if options.kinds.is_empty() {
        return unknown_kinds;
    }
    for unmatched in emit::kinds::unmatched(
        &options.kinds,
        objects,
        input_kinds.iter().map(String::as_str),
    ) {
        match unmatched {
            Unmatched::Known(kind) => diags.push(
                Diagnostic::warning(
                    Code::KindUnmatched,
                    format!("--kinds {kind} selects nothing: the output has no {kind}"),
                )
                .help("check the kind, or leave it out of --kinds"),
            ),
            Unmatched::Unknown { name, closest } => unknown_kinds.push((name, closest)),
        }
    }
    objects.retain(|o| {
        (o.source.is_none() && o.pos.file < options.keep_passthrough_of)
            || options
                .kinds
                .iter()
                .any(|k| k.eq_ignore_ascii_case(&o.kind))
    });
    unknown_kinds
}

/// The error of an empty output, saying why it is empty: no input file, no object in them,
/// or `--kinds` selecting none of the `rendered` objects.
fn empty_output(sources: &Sources, options: &Options, rendered: usize) -> Diagnostic {
    let why = if sources.is_empty() {
        let paths: Vec<String> = if options.load.paths.is_empty() {
            vec![".".to_string()]
        } else {
            options
                .load
                .paths
                .iter()
                .map(|p| p.display().to_string())
                .collect()
        };
        format!(
            "no input file was found (`*.yaml`, `*.yml` or `*.json` under {}, after --include and --exclude; links are not followed)",
            paths.join(", ")
        )
    } else if rendered == 0 {
        match sources.len() {
            1 => format!(
                "{} holds no object to render or pass through",
                sources.get(0).map_or("the input file", |f| f.path.as_str())
            ),
            n => format!(
                "the {n} input files ({}, …) hold no object to render or pass through",
                sources.get(0).map_or("", |f| f.path.as_str())
            ),
        }
    } else {
        format!("--kinds selects none of the {rendered} objects")
    };
    Diagnostic::error(Code::EmptyOutput, format!("nothing to write: {why}"))
        .help("an empty output makes Argo CD (or kubectl apply --prune) delete every object it manages; pass --allow-empty if that is what you want")
}

/// The emit step's share of the pipeline: each object serialised (when it was not as it
/// was rendered) and, for a render, the objects in output order. `diff` orders only what
/// differs; writing is the command's.
fn emit_step(objects: &mut [Rendered], options: &Options) {
    if let Some(format) = options.serialise {
        emit::serialise_all(objects, format);
    }
    if !options.trace {
        emit::sort(objects);
    }
}

/// The runtime a resolution chose, and the spec its InferenceService renders from.
fn chosen<'a>(
    resolution: &crate::select::resolve::Resolution<'a>,
    isvc: &crate::model::InferenceService,
) -> (crate::k8s::id::ObjectId, &'a crate::yaml::Node) {
    let key = output_limit::runtime_key(
        resolution.chosen.scope,
        resolution.chosen.namespace,
        &isvc.lookup_namespace,
        resolution.runtime_name,
    );
    (key, &resolution.runtime.spec)
}

mod output_limit;
pub(crate) mod reuse;
#[cfg(test)]
mod tests;
