//! `ome-render explain --effective` (`--isvc NS/NAME` or `--runtime NAME`): the runtime spec
//! after inheritance, preset and per-accelerator settings, as YAML whose every value names
//! the runtime, file and line it comes from (SEMANTICS.md#effective).

use super::{ExitStatus, Outcome, fatal, options, read_stdin, report, stdout_written};
use crate::cli::{ExplainArgs, ExplainFormat, GlobalArgs};
use crate::diagnostics::{Code, Diagnostic};
use crate::inspect::effective::{for_isvc, for_runtime, pin_of, render};
use crate::model::Scope;
use crate::select::resolve::{Resolver, resolve};
use std::io::Write;

pub(crate) fn effective(global: &GlobalArgs, args: &ExplainArgs) -> ExitStatus {
    if args.format == ExplainFormat::Json {
        return fatal(
            "`explain --effective` prints annotated YAML; `--format json` is not supported with it",
        );
    }
    let opts = options(global, &args.paths);
    let catalogued = match crate::pipeline::load_catalog(&opts, &mut read_stdin) {
        Ok(c) => c,
        Err(e) => return fatal(&e.to_string()),
    };
    let failed = catalogued.has_errors();
    let crate::pipeline::Catalogued {
        sources,
        catalog,
        mut diags,
        ..
    } = catalogued;
    if failed {
        report(&mut diags, &sources, global, Outcome::Checks, false);
        return ExitStatus::InputErrors;
    }
    // A broken chain elsewhere doesn't stop this view; the target's own chain does, below.
    let (inherited, _) = crate::inherit::resolve_all(&catalog);
    let effective = if let Some(name) = &args.runtime {
        let ns = &opts.namespace;
        let found = match args.kind.as_deref() {
            None => catalog
                .runtime(Scope::Cluster, ns, name)
                .or_else(|| catalog.runtime(Scope::Namespaced, ns, name)),
            Some("ClusterServingRuntime") => catalog.runtime(Scope::Cluster, ns, name),
            Some("ServingRuntime") => catalog.runtime(Scope::Namespaced, ns, name),
            Some(other) => {
                return fatal(&format!(
                    "unsupported runtime kind \"{other}\" (supported: ServingRuntime, ClusterServingRuntime)"
                ));
            }
        };
        let Some(runtime) = found else {
            let scope = match args.kind.as_deref() {
                Some("ClusterServingRuntime") => Some(Scope::Cluster),
                Some("ServingRuntime") => Some(Scope::Namespaced),
                _ => None,
            };
            diags.push(
                Diagnostic::error(
                    Code::RuntimeNotFound,
                    format!("runtime {name} not found in namespace {ns} or at cluster scope"),
                )
                .help(
                    crate::diagnostics::suggest::did_you_mean(
                        name,
                        catalog.runtime_names(scope, ns),
                    )
                    .unwrap_or_else(|| {
                        "add the runtime's file to the paths, or give its namespace with -n"
                            .to_string()
                    }),
                ),
            );
            report(&mut diags, &sources, global, Outcome::Checks, false);
            return ExitStatus::InputErrors;
        };
        match for_runtime(&catalog, &inherited, runtime, ns) {
            Ok(e) => e,
            Err(message) => {
                diags.push(
                    Diagnostic::error(Code::InvalidField, message)
                        .at(runtime.pos)
                        .object(runtime.object.clone())
                        .field("metadata.annotations.ome.io/inherit-from"),
                );
                report(&mut diags, &sources, global, Outcome::Checks, false);
                return ExitStatus::InputErrors;
            }
        }
    } else {
        let target = args.isvc.as_deref().unwrap_or_default();
        let found = catalog.inference_service_named(target, &opts.namespace);
        let Ok(isvc) = found.map_err(|d| diags.push(d)) else {
            report(&mut diags, &sources, global, Outcome::Checks, false);
            return ExitStatus::InputErrors;
        };
        let resolver = Resolver::new(&catalog, &inherited);
        let Some(resolution) = resolve(isvc, &catalog, &resolver, &mut diags) else {
            report(&mut diags, &sources, global, Outcome::Checks, false);
            return ExitStatus::InputErrors;
        };
        let pin = pin_of(isvc, &catalog, &inherited);
        for_isvc(&catalog, isvc, &resolution, pin)
    };
    if report(&mut diags, &sources, global, Outcome::Checks, false) {
        return ExitStatus::InputErrors;
    }
    let text = render(&effective, |pos| {
        sources.path(pos).map(|p| format!("{p}:{}", pos.line))
    });
    let written = {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    stdout_written(written)
}
