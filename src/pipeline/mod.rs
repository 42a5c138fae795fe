//! The render pipeline end to end, without I/O of its own besides the loader: load →
//! catalog → (per InferenceService, in parallel) resolve → render → serialise → output
//! checks → filter and order. Shared by `render`, `check` and `explain`.

use crate::catalog::{self, Catalog};
use crate::diagnostics::Diagnostic;
use crate::emit::{self, Format};
use crate::load::{self, LoadError, LoadOptions};
use crate::model::Settings;
use crate::render;
use crate::rendered::Rendered;
use crate::select::resolve::{Resolver, resolve};
use crate::source::Sources;
use rayon::prelude::*;
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
}

/// The result of a run: objects in output order, and every diagnostic, sorted.
#[derive(Debug, Default)]
pub(crate) struct Rendering {
    pub(crate) sources: Sources,
    pub(crate) objects: Vec<Rendered>,
    pub(crate) diags: Vec<Diagnostic>,
    /// How long each stage took, for `--timings`.
    pub(crate) timings: Vec<(&'static str, Duration)>,
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

/// Builds the catalog of loaded objects.
fn catalog_of(loaded: load::Loaded, options: &Options) -> Catalogued {
    let mut diags = loaded.diags;
    let settings = Settings::read(loaded.settings.as_ref(), &mut diags);
    let (catalog, catalog_diags) = catalog::build(loaded.objects, &options.namespace);
    diags.extend(catalog_diags);
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
        catalog,
        settings,
        mut diags,
    } = catalogued;
    lap("load and catalog");
    if failed {
        crate::diagnostics::sort(&mut diags);
        return Rendering {
            sources,
            objects: Vec::new(),
            diags,
            timings,
        };
    }
    let (inherited, inherit_diags) = crate::inherit::resolve_all(&catalog);
    diags.extend(inherit_diags);
    let resolver = Resolver::new(&catalog, &inherited);
    lap("inherit and index");
    let per_isvc: Vec<(Vec<Rendered>, Vec<Diagnostic>)> = catalog
        .inference_services
        .par_iter()
        .map(|isvc| {
            let mut d = Vec::new();
            let objects = match resolve(isvc, &catalog, &resolver, &mut d) {
                Some(resolution) => {
                    let mut objects =
                        render::render_inference_service(isvc, &resolution, &settings, &mut d);
                    if let Some(format) = options.serialise {
                        objects.iter_mut().for_each(|o| emit::serialise(o, format));
                    }
                    objects
                }
                None => Vec::new(),
            };
            (objects, d)
        })
        .collect();

    let mut objects: Vec<Rendered> = Vec::with_capacity(
        per_isvc.iter().map(|(o, _)| o.len()).sum::<usize>() + catalog.passthrough.len(),
    );
    for (o, d) in per_isvc {
        objects.extend(o);
        diags.extend(d);
    }
    objects.extend(
        catalog
            .passthrough
            .into_iter()
            .map(|obj| Rendered::new(obj.root, None)),
    );
    if options.keep_ome {
        objects.extend(
            catalog
                .consumed
                .into_iter()
                .map(|obj| Rendered::new(obj.root, None)),
        );
    }
    lap("resolve and render");
    emit::checks::collisions(&objects, &mut diags);
    if !options.kinds.is_empty() {
        objects.retain(|o| {
            options
                .kinds
                .iter()
                .any(|k| k.eq_ignore_ascii_case(&o.kind))
        });
    }
    if let Some(format) = options.serialise {
        emit::serialise_all(&mut objects, format);
    }
    emit::sort(&mut objects);
    crate::diagnostics::sort(&mut diags);
    lap("check, filter and sort");
    Rendering {
        sources,
        objects,
        diags,
        timings,
    }
}

#[cfg(test)]
mod tests;
