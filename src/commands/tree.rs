//! `ome-render tree RUNTIME` and `tree --isvc NS/NAME`: a runtime's inheritance tree and the
//! InferenceServices that use it, in the layout of `kubectl ome runtime tree`
//! (SEMANTICS.md#tree).

use super::{ExitStatus, Outcome, fatal, options, read_stdin, report, stdout_written};
use crate::cli::{GlobalArgs, TreeArgs, TreeFormat};
use crate::diagnostics::{Code, Diagnostic};
use crate::inspect::tree::{
    TreeError, isvc_tree, render_graph, render_json, render_table, runtime_tree, target,
};
use crate::model::Scope;
use crate::select::resolve::{Resolver, resolve};
use std::io::Write;

pub(crate) fn tree(global: &GlobalArgs, args: &TreeArgs) -> ExitStatus {
    let kind = match args.kind.as_deref() {
        None => None,
        Some("ClusterServingRuntime") => Some(Scope::Cluster),
        Some("ServingRuntime") => Some(Scope::Namespaced),
        Some(other) => {
            return fatal(&format!(
                "unsupported runtime kind \"{other}\" (supported: ServingRuntime, ClusterServingRuntime)"
            ));
        }
    };
    // With `--isvc` there is no RUNTIME: the first positional is a path. So it is when it
    // is the only argument and an existing path (`tree DIR`): every root runtime's tree.
    let mut paths = args.paths.clone();
    let every_root = args.isvc.is_none()
        && paths.is_empty()
        && args
            .runtime
            .as_deref()
            .is_some_and(|r| r == "-" || std::path::Path::new(r).symlink_metadata().is_ok());
    let runtime = match (&args.isvc, &args.runtime) {
        (Some(_), Some(path)) => {
            paths.insert(0, path.into());
            None
        }
        (None, Some(path)) if every_root => {
            paths.insert(0, path.into());
            None
        }
        (None, None) => return fatal("name a RUNTIME, or pass --isvc NAMESPACE/NAME"),
        (_, r) => r.clone(),
    };
    let opts = options(global, &paths);
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
    // Broken chains are part of the picture: they show as issues, not errors.
    let (inherited, _) = crate::inherit::resolve_all(&catalog);
    let resolver = Resolver::new(&catalog, &inherited);
    if every_root {
        let reports: Vec<_> = roots(&catalog, kind)
            .into_iter()
            .map(|root| runtime_tree(&catalog, &resolver, root))
            .collect();
        if reports.is_empty() {
            diags.push(
                Diagnostic::error(
                    Code::RuntimeNotFound,
                    format!("no runtime among the inputs of {}", paths[0].display()),
                )
                .help("name the directory that holds ServingRuntimes or ClusterServingRuntimes"),
            );
        }
        if report(&mut diags, &sources, global, Outcome::Checks, false) {
            return ExitStatus::InputErrors;
        }
        let text = match args.format {
            TreeFormat::Table => reports
                .iter()
                .map(|r| render_table(r, args.show_unattributed_users))
                .collect::<Vec<_>>()
                .join("\n"),
            // One document: the reports in a JSON array.
            TreeFormat::Json => format!(
                "[{}]\n",
                reports
                    .iter()
                    .map(|r| render_json(r, args.show_unattributed_users)
                        .trim_end()
                        .to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            // A graph draws one tree.
            TreeFormat::Mermaid | TreeFormat::Dot => {
                return fatal(
                    "--format mermaid and dot draw one runtime's tree: name a RUNTIME (or --isvc) before the path",
                );
            }
        };
        let written = {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        };
        return stdout_written(written);
    }
    let built = match (&args.isvc, runtime) {
        (Some(target_isvc), _) => {
            let found = catalog.inference_service_named(target_isvc, &opts.namespace);
            let Ok(isvc) = found.map_err(|d| diags.push(d)) else {
                report(&mut diags, &sources, global, Outcome::Checks, false);
                return ExitStatus::InputErrors;
            };
            let (ns, name) = (&isvc.lookup_namespace, &isvc.name);
            match isvc_tree(&catalog, &resolver, isvc) {
                Some(r) => r,
                None => {
                    // Say why, with the render's own diagnostics.
                    let mut why = Vec::new();
                    resolve(isvc, &catalog, &resolver, &mut why);
                    diags.extend(why.into_iter().filter(Diagnostic::is_error));
                    if !diags.iter().any(Diagnostic::is_error) {
                        diags.push(
                            Diagnostic::error(
                                Code::RuntimeNotFound,
                                format!(
                                    "the runtime of InferenceService {ns}/{name} can't be resolved"
                                ),
                            )
                            .at(isvc.pos)
                            .object(isvc.object.clone()),
                        );
                    }
                    report(&mut diags, &sources, global, Outcome::Checks, false);
                    return ExitStatus::InputErrors;
                }
            }
        }
        (None, Some(name)) => match target(&catalog, &name, kind, &opts.namespace) {
            Ok(t) => runtime_tree(&catalog, &resolver, t),
            Err(e) => {
                let help = match e {
                    TreeError::NotFound(_) => {
                        "name a runtime among the inputs (and its namespace with -n for a ServingRuntime)"
                    }
                    TreeError::Ambiguous(_) => {
                        "a ServingRuntime of the namespace and a ClusterServingRuntime share the name: say which with --kind"
                    }
                    TreeError::Invalid(..) => {
                        "runtime names are lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"
                    }
                };
                let close = match e {
                    TreeError::NotFound(_) => crate::diagnostics::suggest::did_you_mean(
                        &name,
                        catalog.runtime_names(kind, &opts.namespace),
                    ),
                    _ => None,
                };
                diags.push(
                    Diagnostic::error(Code::RuntimeNotFound, e.to_string())
                        .help(close.unwrap_or_else(|| help.to_string())),
                );
                report(&mut diags, &sources, global, Outcome::Checks, false);
                return ExitStatus::InputErrors;
            }
        },
        (None, None) => return fatal("name a RUNTIME, or pass --isvc NAMESPACE/NAME"),
    };
    if report(&mut diags, &sources, global, Outcome::Checks, false) {
        return ExitStatus::InputErrors;
    }
    let text = match args.format {
        TreeFormat::Table => render_table(&built, args.show_unattributed_users),
        TreeFormat::Json => render_json(&built, args.show_unattributed_users),
        TreeFormat::Mermaid => render_graph(&built).mermaid(),
        TreeFormat::Dot => render_graph(&built).dot(),
    };
    let written = {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    stdout_written(written)
}

/// The root runtimes among the inputs (no `ome.io/inherit-from`), of `kind` when given:
/// ClusterServingRuntimes by name, then ServingRuntimes by namespace and name.
fn roots(catalog: &crate::catalog::Catalog, kind: Option<Scope>) -> Vec<&crate::model::Runtime> {
    let cluster = catalog.cluster_runtimes.values();
    let namespaced = catalog.runtimes.values();
    cluster
        .filter(|_| kind != Some(Scope::Namespaced))
        .chain(namespaced.filter(|_| kind != Some(Scope::Cluster)))
        .filter(|r| r.inherit_from.is_none())
        .collect()
}
