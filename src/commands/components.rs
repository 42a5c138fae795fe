//! `ome-render components`: every InferenceService's merged and defaulted component specs as
//! OME's `kubectl ome runtime render` prints them in file mode (SEMANTICS.md#components).
//! Inputs are decoded strictly, as OME's file mode decodes them; any failing
//! InferenceService fails the run, with every failure reported and nothing printed.

use super::{ExitStatus, Outcome, options, read_stdin, report, stdout_written};
use crate::cli::{ComponentsArgs, ComponentsFormat, GlobalArgs};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::go::encode::write_go_json_indented;
use crate::render::components::{Origin, Source, list, rendered_inference_service, sorted};
use crate::select::resolve::{Resolver, resolve};
use crate::source::Sources;
use crate::yaml::Node;
use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) fn components(global: &GlobalArgs, args: &ComponentsArgs) -> ExitStatus {
    let deploy_config = deploy_config_path(global);
    let mut diags = Vec::new();
    if !args.filenames.is_empty() && deploy_config.is_none() {
        // OME's text; its CLI exits 1 for every failure.
        diags.push(
            Diagnostic::error(Code::ComponentsInput, "-f requires --deploy-config")
                .help("name OME's ConfigMap inferenceservice-config with --deploy-config FILE"),
        );
        report(&mut diags, &Sources::new(), global, Outcome::Checks, false);
        return ExitStatus::InputErrors;
    }
    // With -f and no PATH only the -f files are read.
    let paths: Vec<PathBuf> = args.paths.iter().chain(&args.filenames).cloned().collect();
    let opts = options(global, &paths);
    let catalogued = match crate::pipeline::load_catalog(&opts, &mut read_stdin) {
        Ok(c) => c,
        Err(e) => return super::fatal(&e.to_string()),
    };
    let crate::pipeline::Catalogued {
        sources,
        catalog,
        settings,
        diags: loaded,
    } = catalogued;
    diags.extend(loaded);
    strict(&mut diags, &sources);
    for object in &catalog.passthrough {
        diags.push(
            Diagnostic::note(
                Code::ComponentsIgnored,
                format!(
                    "ignoring {} {}: components reads only InferenceServices, runtimes, and models",
                    object.api_version, object.kind
                ),
            )
            .at(object.pos())
            .object(object.written_id()),
        );
    }
    if diags.iter().any(Diagnostic::is_error) {
        report(&mut diags, &sources, global, Outcome::Checks, false);
        return ExitStatus::InputErrors;
    }
    let source = match deploy_config {
        Some(path) => Source {
            kind: "ConfigMap",
            name: path.display().to_string(),
            origin: Origin::File,
        },
        None => Source {
            kind: "ConfigMap",
            name: "inferenceservice-config".to_string(),
            origin: Origin::Settings,
        },
    };
    let from = if args.filenames.is_empty() {
        "among the inputs"
    } else {
        "in -f files"
    };
    let targets: Vec<_> = match &args.isvc {
        Some(target) => {
            let (ns, name) = match target.split_once('/') {
                Some((ns, name)) => (ns, name),
                None => (opts.namespace.as_str(), target.as_str()),
            };
            let found: Vec<_> = catalog
                .inference_services
                .iter()
                .filter(|i| i.lookup_namespace == ns && i.name == name)
                .collect();
            if found.is_empty() {
                diags.push(Diagnostic::error(
                    Code::ComponentsInput,
                    format!("InferenceService {ns}/{name} not found {from}"),
                ));
            }
            found
        }
        None => {
            if catalog.inference_services.is_empty() {
                diags.push(Diagnostic::error(
                    Code::ComponentsInput,
                    format!("no InferenceService {from}"),
                ));
            }
            catalog.inference_services.iter().collect()
        }
    };
    if diags.iter().any(Diagnostic::is_error) {
        report(&mut diags, &sources, global, Outcome::Checks, false);
        return ExitStatus::InputErrors;
    }
    // A broken chain elsewhere doesn't stop this view; a service's own chain does.
    let (inherited, _) = crate::inherit::resolve_all(&catalog);
    let resolver = Resolver::new(&catalog, &inherited);
    let mut items = Vec::with_capacity(targets.len());
    let mut failed = 0usize;
    for isvc in &targets {
        let errors_before = diags.iter().filter(|d| d.is_error()).count();
        let view = if isvc.engine.is_none() {
            // OME's MergeEffectiveComponents fails so (DetermineDeploymentModes).
            diags.push(
                Diagnostic::error(
                    Code::InvalidInferenceService,
                    "resolve component deployment modes: engine component is required",
                )
                .at(isvc.pos)
                .object(isvc.object.clone()),
            );
            None
        } else {
            resolve(isvc, &catalog, &resolver, &mut diags).and_then(|resolution| {
                rendered_inference_service(isvc, &resolution, &settings, &source, &mut diags)
            })
        };
        match view {
            Some(v) if diags.iter().filter(|d| d.is_error()).count() == errors_before => {
                items.push(v);
            }
            _ => failed += 1,
        }
    }
    if failed > 0 {
        if args.isvc.is_none() {
            diags.push(Diagnostic::error(
                Code::ComponentsInput,
                format!(
                    "{failed} of {} InferenceServices failed to render",
                    targets.len()
                ),
            ));
        }
        report(&mut diags, &sources, global, Outcome::Checks, false);
        return ExitStatus::InputErrors;
    }
    if report(&mut diags, &sources, global, Outcome::Checks, false) {
        return ExitStatus::InputErrors;
    }
    let view = match (&args.isvc, items.pop()) {
        (Some(_), Some(one)) => one,
        (_, last) => {
            items.extend(last);
            list(items)
        }
    };
    let bytes = write(&view, args.format);
    let written = {
        let mut out = std::io::stdout().lock();
        out.write_all(&bytes).and_then(|()| out.flush())
    };
    stdout_written(written)
}

/// The `--deploy-config` file (the ConfigMap the settings are read from).
fn deploy_config_path(global: &GlobalArgs) -> Option<&Path> {
    global.deploy_config.as_deref()
}

/// The view's bytes: YAML with every map's keys sorted (as `sigs.k8s.io/yaml` writes), or
/// JSON indented by two spaces in OME's field order, ending with a newline.
fn write(view: &Node, format: ComponentsFormat) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    match format {
        ComponentsFormat::Yaml => crate::yaml::emit::write_yaml(&sorted(view), &mut out),
        ComponentsFormat::Json => {
            write_go_json_indented(view, 0, &mut out);
            out.push(b'\n');
        }
    }
    out
}

/// OME's file mode decodes strictly: an unknown field of an InferenceService, runtime or
/// model is an error (`strict decoding error: unknown field "spec.engine.minReplica"`), and
/// an object defined twice is `ambiguous file input`.
fn strict(diags: &mut [Diagnostic], sources: &Sources) {
    for d in diags.iter_mut() {
        match d.code {
            Code::UnknownField => {
                d.severity = Severity::Error;
                if let Some(field) = &d.field {
                    d.message = format!("strict decoding error: unknown field \"{field}\"");
                }
            }
            Code::DuplicateObject => {
                let here = d.pos.and_then(|p| sources.path(p)).unwrap_or("?");
                let first = d
                    .related
                    .first()
                    .and_then(|r| sources.path(r.pos))
                    .unwrap_or("?");
                if let Some(object) = &d.object {
                    let name = object.path();
                    d.message = format!(
                        "ambiguous file input: {} {name} is defined in {first} and {here}",
                        object.kind
                    );
                }
            }
            // What OME's webhooks and the CRD schema refuse is `check`'s business: OME's
            // file mode does not run them, so here they are warnings.
            Code::ModelInvalid | Code::RuntimeInvalid | Code::RuntimePriorities => {
                d.severity = Severity::Warning;
            }
            Code::InvalidField if d.message.ends_with(": Required value") => {
                d.severity = Severity::Warning;
            }
            _ => {}
        }
    }
}
