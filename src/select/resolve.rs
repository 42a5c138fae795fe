//! Resolving one InferenceService: its base model, then its runtime (named, with what it
//! inherits; or auto-selected, from its own spec), with OME v1.3's checks and messages as
//! diagnostics.

use super::auto::{Candidate, RuntimeIndex, admission_error, auto_selected_warning};
use super::named::{
    NamedCheck, check_named, disabled_error, runtime_not_found, serving_runtime_not_found,
};
use super::request::Request;
use super::scorer::best_entry;
use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic};
use crate::inherit::Inherited;
use crate::model::{BaseModel, InferenceService, Runtime, Scope};
use crate::render::Resolution;

/// What resolution needs besides one InferenceService: built once per run.
pub struct Resolver<'a> {
    pub index: RuntimeIndex<'a>,
    pub inherited: &'a Inherited,
}

impl<'a> Resolver<'a> {
    pub fn new(catalog: &'a Catalog, inherited: &'a Inherited) -> Resolver<'a> {
        let candidate = |r: &'a Runtime| Candidate {
            name: &r.name,
            scope: r.scope,
            namespace: r.namespace.as_deref().unwrap_or(""),
            spec: &r.spec,
            pos: r.pos,
        };
        let index = RuntimeIndex::new(
            catalog
                .runtimes
                .values()
                .chain(catalog.cluster_runtimes.values())
                .map(candidate),
        );
        Resolver { index, inherited }
    }
}

fn error(isvc: &InferenceService, code: Code, message: impl Into<String>) -> Diagnostic {
    Diagnostic::error(code, message).object(isvc.object.clone())
}

/// The base model of `isvc`: the BaseModel in its namespace, else the ClusterBaseModel
/// (`spec.model.kind` is not used for the lookup, as in OME).
fn resolve_model<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    diags: &mut Vec<Diagnostic>,
) -> Result<Option<&'a BaseModel>, ()> {
    let Some(model_ref) = &isvc.model else {
        return Ok(None);
    };
    let ns = &isvc.lookup_namespace;
    let Some(model) = catalog.model(ns, &model_ref.name) else {
        diags.push(
            error(
                isvc,
                Code::ModelNotFound,
                format!(
                    "referenced model \"{}\" not found in namespace \"{ns}\": ensure a BaseModel exists in this namespace or a ClusterBaseModel exists cluster-wide with this name",
                    model_ref.name
                ),
            )
            .at(model_ref.pos)
            .field("spec.model.name")
            .help("add the model's file to the paths, or fix the name"),
        );
        return Err(());
    };
    if model.disabled {
        diags.push(
            error(
                isvc,
                Code::ModelDisabled,
                format!("model {} is disabled", model.name),
            )
            .at(model_ref.pos)
            .field("spec.model.name")
            .related(model.pos, "the model is defined here"),
        );
        return Err(());
    }
    if model.distribution.as_deref() == Some("Sharded") {
        diags.push(
            error(
                isvc,
                Code::UnsupportedMode,
                "no model cache provider is configured for sharded model loading",
            )
            .at(model_ref.pos)
            .field("spec.model.name")
            .related(model.pos, "the model is defined here"),
        );
        return Err(());
    }
    Ok(Some(model))
}

/// A runtime named in `spec.runtime` (v1.3: `kind` `ClusterServingRuntime`, the default,
/// looks at cluster scope first, then the namespace; `ServingRuntime` only the namespace).
fn lookup_named<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Runtime> {
    let runtime_ref = isvc.runtime.as_ref()?;
    let ns = &isvc.lookup_namespace;
    let name = &runtime_ref.name;
    let found = match runtime_ref.kind.as_deref() {
        None | Some("" | "ClusterServingRuntime") => catalog
            .runtime(Scope::Cluster, ns, name)
            .or_else(|| catalog.runtime(Scope::Namespaced, ns, name))
            .ok_or_else(|| runtime_not_found(name, ns)),
        Some("ServingRuntime") => catalog
            .runtime(Scope::Namespaced, ns, name)
            .ok_or_else(|| serving_runtime_not_found(name, ns)),
        Some(other) => {
            diags.push(
                error(
                    isvc,
                    Code::InvalidField,
                    format!("unsupported runtime kind \"{other}\""),
                )
                .at(runtime_ref.pos)
                .field("spec.runtime.kind")
                .help("use ServingRuntime or ClusterServingRuntime"),
            );
            return None;
        }
    };
    match found {
        Ok(r) => Some(r),
        Err(message) => {
            let message = match &isvc.model {
                Some(m) => format!(
                    "runtime {name} does not support model {}: {message}",
                    m.name
                ),
                None => message,
            };
            diags.push(
                error(isvc, Code::RuntimeNotFound, message)
                    .at(runtime_ref.pos)
                    .field("spec.runtime.name")
                    .help("add the runtime's file to the paths, or fix the name (or `spec.runtime.kind`)"),
            );
            None
        }
    }
}

/// Resolves `isvc`'s model and runtime. Returns `None` after pushing an error.
pub fn resolve<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    resolver: &Resolver<'a>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Resolution<'a>> {
    if isvc.model.is_none() && isvc.runtime.is_none() {
        diags.push(
            error(
                isvc,
                Code::InvalidInferenceService,
                "at least one of spec.model or spec.runtime must be set",
            )
            .at(isvc.pos)
            .field("spec"),
        );
        return None;
    }
    if isvc.engine.is_none() {
        let message = if isvc.decoder.is_some() {
            "decoder cannot be specified without engine"
        } else {
            "engine component is required"
        };
        diags.push(
            error(isvc, Code::InvalidInferenceService, message)
                .at(isvc.pos)
                .field("spec.engine"),
        );
        return None;
    }
    if let Some(revision) = isvc.runtime.as_ref().and_then(|r| r.revision.as_ref()) {
        diags.push(
            error(
                isvc,
                Code::UnsupportedMode,
                format!("spec.runtime.revision \"{revision}\" pins a runtime revision, which ome-render does not read yet"),
            )
            .at(isvc.runtime.as_ref().map_or(isvc.pos, |r| r.pos))
            .field("spec.runtime.revision"),
        );
        return None;
    }
    let model = resolve_model(isvc, catalog, diags).ok()?;
    let request = Request::from_inference_service(isvc);

    if isvc.runtime.is_some() {
        let runtime = lookup_named(isvc, catalog, diags)?;
        let runtime_ref = isvc.runtime.as_ref()?;
        let spec = match resolver.inherited.spec(runtime) {
            Ok(spec) => spec,
            Err(chain_error) => {
                let message = match model {
                    Some(m) => format!(
                        "runtime {} does not support model {}: {chain_error}",
                        runtime.name, m.name
                    ),
                    None => chain_error.to_string(),
                };
                diags.push(
                    error(isvc, Code::RuntimeNotFound, message)
                        .at(runtime_ref.pos)
                        .field("spec.runtime.name")
                        .related(runtime.pos, "the runtime is defined here"),
                );
                return None;
            }
        };
        let entry = match model {
            Some(model) => {
                match check_named(&runtime.name, runtime.scope, spec, model, &request) {
                    NamedCheck::Compatible => {}
                    NamedCheck::Disabled { message } => {
                        diags.push(
                            error(isvc, Code::RuntimeDisabled, message)
                                .at(runtime_ref.pos)
                                .field("spec.runtime.name")
                                .related(runtime.pos, "the runtime is defined here"),
                        );
                        return None;
                    }
                    NamedCheck::NotDeclared { warning, .. } => diags.push(
                        Diagnostic::warning(Code::RuntimeNotDeclared, warning)
                            .at(runtime_ref.pos)
                            .object(isvc.object.clone())
                            .field("spec.runtime.name"),
                    ),
                    NamedCheck::Unchecked { error: e } => diags.push(
                        Diagnostic::warning(
                            Code::ModelMetadataMissing,
                            format!("compatibility of runtime {} with model {} could not be checked: {e}", runtime.name, model.name),
                        )
                        .at(isvc.model.as_ref().map_or(isvc.pos, |m| m.pos))
                        .object(isvc.object.clone())
                        .field("spec.model.name")
                        .related(model.pos, "the model, without spec.modelFormat")
                        .help("add `spec.modelFormat` (and the other metadata OME's model agent records) to the model to have it checked"),
                    ),
                }
                best_entry(spec, model, false).map(|(_, e)| e)
            }
            None => {
                if spec.disabled {
                    diags.push(
                        error(
                            isvc,
                            Code::RuntimeDisabled,
                            disabled_error(&runtime.name, runtime.scope),
                        )
                        .at(runtime_ref.pos)
                        .field("spec.runtime.name")
                        .related(runtime.pos, "the runtime is defined here"),
                    );
                    return None;
                }
                None
            }
        };
        return Some(Resolution {
            model,
            runtime_name: &runtime.name,
            runtime: spec,
            best_entry: entry,
        });
    }

    // Auto-selection: a model is required (checked above: no runtime means a model).
    let model = model?;
    match resolver.index.select(model, &request) {
        Ok(selection) => {
            diags.push(
                Diagnostic::warning(
                    Code::RuntimeAutoSelected,
                    auto_selected_warning(selection.runtime.name, &model.name),
                )
                .at(isvc.model.as_ref().map_or(isvc.pos, |m| m.pos))
                .object(isvc.object.clone())
                .field("spec.model.name"),
            );
            Some(Resolution {
                model: Some(model),
                runtime_name: selection.runtime.name,
                runtime: selection.runtime.spec,
                best_entry: selection.best_entry.map(|(_, e)| e),
            })
        }
        Err(e) => {
            diags.push(
                error(isvc, Code::NoRuntime, admission_error(&model.name, &e))
                    .at(isvc.model.as_ref().map_or(isvc.pos, |m| m.pos))
                    .field("spec.model.name")
                    .help(e.help()),
            );
            None
        }
    }
}
