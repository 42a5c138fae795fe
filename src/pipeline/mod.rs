//! The render pipeline end to end, without I/O of its own besides the loader: load →
//! catalog → (per InferenceService, in parallel) resolve → render → serialise → output
//! checks → filter and order. Shared by `render`, `check` and `explain`.

use crate::catalog::{self, Catalog, ResourceId};
use crate::diagnostics::{Code, Diagnostic};
use crate::diff::normalise::{Normalise, fingerprint};
use crate::emit::kinds::Unmatched;
use crate::emit::{self, Format};
use crate::load::{self, LoadError, LoadOptions};
use crate::model::Settings;
use crate::render;
use crate::rendered::Rendered;
use crate::select::resolve::{ResolvedIsvc, Resolver, resolve};
use crate::source::Sources;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
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
    pub(crate) inputs: BTreeMap<ResourceId, u64>,
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

/// Runs the pipeline on loaded objects; `clock` started when loading did.
fn run_loaded(loaded: load::Loaded, options: &Options, mut clock: Instant) -> Rendering {
    let mut timings = Vec::new();
    let mut lap = |name: &'static str| {
        timings.push((name, clock.elapsed()));
        clock = Instant::now();
    };
    let catalogued = catalog_of(loaded, options);
    let failed = catalogued.has_errors();
    let Catalogued {
        sources,
        mut catalog,
        settings,
        mut diags,
    } = catalogued;
    lap("load and catalog");
    if failed {
        // The runtimes' own admission rules (profile, inheritance chain) are reported too, so
        // that every failing rule shows at once.
        diags.extend(crate::inherit::resolve_all(&catalog).1);
        crate::diagnostics::sort(&mut diags);
        return Rendering {
            sources,
            diags,
            timings,
            settings,
            ..Rendering::default()
        };
    }
    let input_kinds: BTreeSet<String> = catalog
        .passthrough
        .iter()
        .chain(&catalog.consumed)
        .map(|o| o.kind.clone())
        .collect();
    // `diff` compares the consumed objects (and the runtime revisions pins render from) by
    // their fingerprints, taken before the trees go.
    let inputs = if options.trace {
        let revisions = catalog
            .passthrough
            .iter()
            .filter(|o| crate::revision::is_runtime_revision(o));
        catalog
            .consumed
            .iter()
            .chain(revisions)
            .collect::<Vec<_>>()
            .par_iter()
            .map(|o| (ResourceId::of(o, &options.namespace), fingerprint(&o.root)))
            .collect()
    } else {
        BTreeMap::new()
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
    // Each InferenceService's view goes as soon as it is rendered.
    let inference_services = std::mem::take(&mut catalog.inference_services);
    let (inherited, inherit_diags) = crate::inherit::resolve_all(&catalog);
    diags.extend(inherit_diags);
    let resolver = Resolver::new(&catalog, &inherited);
    lap("inherit and index");
    let render_one = |mut isvc: Box<crate::model::InferenceService>| {
        // OME's admission of the InferenceService as written; when it rejects it, the
        // model and runtime are still resolved (OME's webhook checks them too) but
        // nothing is rendered.
        let mut d = std::mem::take(&mut isvc.admission);
        let admitted = !d.iter().any(Diagnostic::is_error);
        let mut summary = None;
        let objects = match resolve(&isvc, &catalog, &resolver, &mut d) {
            Some(resolution) if admitted => {
                let mut objects =
                    render::render_inference_service(&isvc, &resolution, &settings, &mut d);
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
                if options.trace {
                    summary = Some(resolution.summary(&isvc));
                }
                objects
            }
            _ => Vec::new(),
        };
        (objects, d, summary)
    };
    // Rendered a slice at a time, each slice's objects moved into one list before the next
    // is rendered: the objects of every InferenceService, held apart until all are
    // rendered, would sit beside that list while it is filled (BENCHMARKS.md).
    let mut objects: Vec<Rendered> = Vec::new();
    let mut resolved = Vec::new();
    let total = inference_services.len();
    let passing_through = catalog.passthrough.len()
        + if options.keep_ome {
            catalog.consumed.len()
        } else {
            0
        };
    let mut pending = inference_services.into_iter();
    let mut done = 0;
    loop {
        let slice: Vec<_> = pending.by_ref().take(RENDER_SLICE).collect();
        if slice.is_empty() {
            break;
        }
        done += slice.len();
        let rendered: Vec<_> = slice.into_par_iter().map(render_one).collect();
        let needed = objects.len() + rendered.iter().map(|(o, _, _)| o.len()).sum::<usize>();
        if needed > objects.capacity() {
            // The list is sized once for the whole run, from the rate so far: grown by
            // doubling, each step would copy it into memory never touched before, which on the
            // benchmark machine costs more than the copy (BENCHMARKS.md).
            let expected = estimate(needed, done, total).saturating_add(passing_through);
            objects.reserve_exact(grown(objects.capacity(), expected) - objects.len());
        }
        for (o, d, summary) in rendered {
            objects.extend(o);
            diags.extend(d);
            resolved.extend(summary);
        }
    }
    objects.reserve_exact(passing_through);
    drop(resolver);
    let passed_through = |obj: crate::load::Object| {
        let pos = crate::model::name_pos(&obj.root);
        let mut object = Rendered::new(obj.root, None, pos);
        if let Some(normalise) = &options.normalise {
            normalise.apply(&mut object);
        }
        object
    };
    objects.extend(catalog.passthrough.into_iter().map(passed_through));
    if options.keep_ome {
        objects.extend(catalog.consumed.into_iter().map(passed_through));
    }
    if options.exit_after {
        // The runtimes' views and what they inherit are most of what is left of the catalog:
        // freeing 10,000 of them takes a tenth of a second (BENCHMARKS.md), for nothing.
        std::mem::forget((catalog.runtimes, catalog.cluster_runtimes, inherited));
    }
    lap("resolve and render");
    render::model_agent::dedup(&mut diags);
    emit::checks::collisions(&objects, &options.namespace, &mut diags);
    emit::checks::apis(&objects, settings.api_versions.as_ref(), &mut diags);
    emit::checks::pod_monitors(
        &objects,
        settings.api_versions.as_ref(),
        &settings.pod_monitor,
        &mut diags,
    );
    emit::checks::ome_passthrough(&objects, &mut diags);
    let rendered = objects.len();
    let mut unknown_kinds = Vec::new();
    if !options.kinds.is_empty() {
        for unmatched in emit::kinds::unmatched(
            &options.kinds,
            &objects,
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
    }
    // Only a run that would succeed can be empty: after an error nothing is written anyway.
    if objects.is_empty() && !options.allow_empty && !diags.iter().any(Diagnostic::is_error) {
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
        diags.push(
            Diagnostic::error(Code::EmptyOutput, format!("nothing to write: {why}"))
                .help("an empty output makes Argo CD (or kubectl apply --prune) delete every object it manages; pass --allow-empty if that is what you want"),
        );
    }
    if options.file_per_object
        && let Some(format) = options.serialise
    {
        emit::checks::file_names(&objects, format, &mut diags);
    }
    if let Some(format) = options.serialise {
        emit::serialise_all(&mut objects, format);
    }
    // `diff` orders only what differs; the output order is for writing.
    if !options.trace {
        emit::sort(&mut objects);
    }
    crate::diagnostics::sort(&mut diags);
    lap("check, filter and sort");
    Rendering {
        sources,
        objects,
        diags,
        timings,
        unknown_kinds,
        settings,
        resolved,
        inputs,
    }
}

#[cfg(test)]
mod tests;
