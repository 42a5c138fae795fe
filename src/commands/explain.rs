//! `ome-render explain`: why each runtime is or isn't auto-selected for a model, as
//! `kubectl ome runtime explain` shows it, with the file and line of every runtime.

use super::{ExitStatus, Outcome, fatal, options, read_stdin, report, stdout_written};
use crate::cli::{ExplainArgs, ExplainFormat, GlobalArgs};
use crate::diagnostics::{Code, Diagnostic};
use crate::inherit::Inherited;
use crate::inspect::explain::{EXPLICIT_RUNTIME_NOTE, NO_RUNTIMES_NOTE, render_json, render_table};
use crate::select::auto::validate_model;
use crate::select::request::Request;
use crate::select::resolve::Resolver;
use crate::source::Sources;
use std::io::{IsTerminal, Write};

pub(crate) fn explain(global: &GlobalArgs, args: &ExplainArgs) -> ExitStatus {
    let opts = options(global, &args.paths);
    let report = |diags: &mut Vec<Diagnostic>, sources: &Sources| {
        report(diags, sources, global, Outcome::Checks, false)
    };
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
        report(&mut diags, &sources);
        return ExitStatus::InputErrors;
    }
    let mut stderr_notes = Vec::new();
    let (model, request) = if let Some(target) = &args.isvc {
        let found = catalog.inference_service_named(target, &opts.namespace);
        let Ok(isvc) = found.map_err(|d| diags.push(d)) else {
            report(&mut diags, &sources);
            return ExitStatus::InputErrors;
        };
        let (ns, name) = (isvc.lookup_namespace.clone(), isvc.name.clone());
        let Some(model_ref) = &isvc.model else {
            diags.push(
                Diagnostic::error(
                    Code::InvalidInferenceService,
                    format!("InferenceService \"{name}\" has no spec.model; pass --model instead"),
                )
                .at(isvc.pos)
                .object(isvc.object.clone()),
            );
            report(&mut diags, &sources);
            return ExitStatus::InputErrors;
        };
        if isvc.runtime.is_some() {
            stderr_notes.push(EXPLICIT_RUNTIME_NOTE);
        }
        (
            catalog
                .model(&isvc.lookup_namespace, &model_ref.name)
                .ok_or((model_ref.name.clone(), ns)),
            Request::from_inference_service(isvc),
        )
    } else {
        let name = args.model.clone().unwrap_or_default();
        let ns = opts.namespace.clone();
        (
            catalog.model(&ns, &name).ok_or((name, ns.clone())),
            Request::for_namespace(&ns),
        )
    };
    let model = match model {
        Ok(m) => m,
        Err((name, ns)) => {
            diags.push(
                Diagnostic::error(
                    Code::ModelNotFound,
                    format!("no BaseModel \"{name}\" in namespace \"{ns}\" and no ClusterBaseModel \"{name}\" among the inputs"),
                )
                .help(
                    crate::diagnostics::suggest::did_you_mean(&name, catalog.model_names(&ns))
                        .unwrap_or_else(|| "add the model's file to the paths, or fix the name".to_string()),
                ),
            );
            report(&mut diags, &sources);
            return ExitStatus::InputErrors;
        }
    };
    if let Err(e) = validate_model(model) {
        diags.push(
            Diagnostic::error(Code::ModelMetadataMissing, e.to_string())
                .at(model.pos)
                .object(model.object.clone())
                .help(e.help()),
        );
        report(&mut diags, &sources);
        return ExitStatus::InputErrors;
    }
    if report(&mut diags, &sources) {
        return ExitStatus::InputErrors;
    }
    let inherited = Inherited::default();
    let resolver = Resolver::new(&catalog, &inherited);
    let mut stderr = std::io::stderr().lock();
    for note in stderr_notes {
        let _ = writeln!(stderr, "{note}");
    }
    if resolver.index.visible(&request.namespace).next().is_none() {
        let _ = writeln!(stderr, "{NO_RUNTIMES_NOTE}");
        return ExitStatus::Success;
    }
    let rows = resolver.index.explain(model, &request);
    let source = |pos: crate::yaml::Pos| match sources.path(pos) {
        Some(path) => format!("{path}:{}", pos.line),
        None => "-".to_string(),
    };
    let text = match args.format {
        ExplainFormat::Table => render_table(&rows, source, table_width()),
        ExplainFormat::Json => render_json(&rows, source) + "\n",
    };
    let written = {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    stdout_written(written)
}

/// The width the table wraps its REASON column to: the terminal's, else 80.
fn table_width() -> usize {
    if std::io::stdout().is_terminal()
        && let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size()
    {
        return usize::from(w);
    }
    80
}
