//! Resolving one InferenceService: its base model, then its runtime (named, with what it
//! inherits; or auto-selected, from its own spec), with OME v1.3's checks and messages as
//! diagnostics.

use super::accelerator_policy::{self, ClassChoice, ClassError, Source};
use super::auto::{Candidate, RuntimeIndex, SelectError, admission_error, auto_selected_warning};
use super::named::{
    NamedCheck, check_named, disabled_error, runtime_not_found, serving_runtime_not_found,
};
use super::overlays::Overlay;
use super::pins;
use super::request::Request;
use super::scorer::best_entry;
use crate::catalog::Catalog;
use crate::diagnostics::suggest::did_you_mean;
use crate::diagnostics::{Code, Diagnostic};
use crate::inherit::{Inherited, runtime_id};
use crate::k8s::id::ObjectId;
use crate::model::runtime::AcceleratorModelConfig;
use crate::model::{
    AcceleratorClass, BaseModel, InferenceService, Role, Runtime, RuntimeSpec, Scope,
    SupportedFormat,
};
use crate::revision::Revision;
use crate::yaml::Pos;

/// What an InferenceService resolved to: its model, its runtime and the accelerator of each
/// engine and decoder. Rendering only applies it.
pub(crate) struct Resolution<'a> {
    pub(crate) model: Option<&'a BaseModel>,
    /// `spec.model.overlays`, mounted or skipped, in order (SEMANTICS.md#overlays).
    pub(crate) overlays: Vec<Overlay<'a>>,
    pub(crate) runtime_name: &'a str,
    /// The spec the pods are built from (inherited when the runtime was named).
    pub(crate) runtime: &'a RuntimeSpec,
    /// Where the runtime is defined and how it was chosen.
    pub(crate) chosen: Chosen<'a>,
    /// The engine's and the decoder's accelerator. An error is reported by rendering when it
    /// reaches the component, as OME reports it when it reconciles that component.
    engine: Result<Accelerator<'a>, Diagnostic>,
    decoder: Result<Accelerator<'a>, Diagnostic>,
}

impl<'a> Resolution<'a> {
    /// The accelerator of a component; the router never has one.
    pub(crate) fn accelerator(&self, role: Role) -> Result<&Accelerator<'a>, &Diagnostic> {
        const NONE: &Accelerator<'static> = &Accelerator {
            class: None,
            config: None,
        };
        match role {
            Role::Engine => self.engine.as_ref(),
            Role::Decoder => self.decoder.as_ref(),
            Role::Router => Ok(NONE),
        }
    }
}

/// Which runtime a resolution chose: where it is defined, whether auto-selection chose it,
/// the runtimes its spec inherits from (root first; none when auto-selected, since
/// auto-selection uses a runtime's own spec), and the revision a pin renders from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Chosen<'a> {
    pub(crate) scope: Scope,
    /// The ServingRuntime's namespace (`None`: the InferenceService's, or cluster scope).
    pub(crate) namespace: Option<&'a str>,
    pub(crate) auto_selected: bool,
    pub(crate) parents: &'a [ObjectId],
    pub(crate) revision: Option<&'a Revision>,
}

/// What one InferenceService resolved to, owned, for `diff` to say which changed resource
/// changed its objects (SEMANTICS.md#diff-impact). Built only when asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ResolvedIsvc {
    pub(crate) isvc: ObjectId,
    pub(crate) runtime: ObjectId,
    pub(crate) auto_selected: bool,
    /// The runtimes the chosen one inherits from, root first.
    pub(crate) parents: Vec<ObjectId>,
    /// The runtime revision (a ControllerRevision) a pinned InferenceService renders from.
    pub(crate) revision: Option<ObjectId>,
    pub(crate) model: Option<ObjectId>,
    /// The AcceleratorClass of each component that has one.
    pub(crate) classes: Vec<(Role, ObjectId)>,
}

impl Resolution<'_> {
    /// The owned summary of this resolution of `isvc`.
    pub(crate) fn summary(&self, isvc: &InferenceService) -> ResolvedIsvc {
        let classes = [Role::Engine, Role::Decoder]
            .into_iter()
            .filter_map(|role| {
                let class = self.accelerator(role).ok()?.class?;
                Some((
                    role,
                    ObjectId::of_kind("AcceleratorClass", "", &class.name).to_owned(),
                ))
            })
            .collect();
        ResolvedIsvc {
            isvc: ObjectId::of_kind("InferenceService", &isvc.lookup_namespace, &isvc.name)
                .to_owned(),
            runtime: runtime_id(
                self.chosen.scope,
                self.chosen.namespace.unwrap_or(&isvc.lookup_namespace),
                self.runtime_name,
            ),
            revision: self
                .chosen
                .revision
                .map(|r| ObjectId::of_kind("ControllerRevision", &r.namespace, &r.name).to_owned()),
            auto_selected: self.chosen.auto_selected,
            parents: self.chosen.parents.to_vec(),
            model: self.model.map(|m| {
                ObjectId::of_kind(
                    &m.object.kind,
                    m.namespace.as_deref().unwrap_or(""),
                    &m.name,
                )
                .to_owned()
            }),
            classes,
        }
    }
}

/// The accelerator class a component runs on and the `acceleratorConfig` entry of the
/// runtime's best supported format for it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Accelerator<'a> {
    pub(crate) class: Option<&'a AcceleratorClass>,
    pub(crate) config: Option<&'a AcceleratorModelConfig>,
}

/// What resolution needs besides one InferenceService: built once per run.
pub(crate) struct Resolver<'a> {
    pub(crate) index: RuntimeIndex<'a>,
    pub(crate) inherited: &'a Inherited,
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(catalog: &'a Catalog, inherited: &'a Inherited) -> Resolver<'a> {
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

/// The accelerator of the engine or decoder `role` (SEMANTICS.md, "Accelerator classes"),
/// with the `acceleratorConfig` that `best_entry` has for the chosen class.
fn accelerator<'a>(
    isvc: &InferenceService,
    role: Role,
    runtime: &RuntimeSpec,
    best_entry: Option<&'a SupportedFormat>,
    catalog: &'a Catalog,
) -> Result<Accelerator<'a>, Diagnostic> {
    let Some(raw) = isvc.component(role) else {
        return Ok(Accelerator::default());
    };
    let choice = accelerator_policy::choose_for_component(
        isvc,
        role,
        runtime.accelerator_classes.as_deref(),
        |name| catalog.accelerator_classes.get(name),
    );
    match choice {
        Ok(ClassChoice::Chosen { class, .. }) => Ok(Accelerator {
            class: Some(class),
            config: best_entry.and_then(|e| e.accelerator_config(&class.name)),
        }),
        Ok(ClassChoice::NoClass(_)) => Ok(Accelerator::default()),
        // The CRD's enum, reported by admission (which stops the render).
        Err(ClassError::UnknownPolicy { .. }) => Ok(Accelerator::default()),
        Err(e) => {
            let (code, at, field) = match &e {
                ClassError::NotLoaded {
                    source: Source::Selector,
                    ..
                } => (
                    Code::AcceleratorClassNotFound,
                    isvc.accelerator_selector.as_ref().and_then(|s| s.class_pos),
                    "spec.acceleratorSelector.acceleratorClass".to_string(),
                ),
                ClassError::NotLoaded {
                    source: Source::ComponentOverride,
                    ..
                } => (
                    Code::AcceleratorClassNotFound,
                    isvc.accelerator_override(role).and_then(|o| o.class_pos),
                    format!("spec.{role}.acceleratorOverride.acceleratorClass"),
                ),
                _ => (Code::InvalidField, None, format!("spec.{role}")),
            };
            let close = match &e {
                ClassError::NotLoaded { name, .. } => {
                    did_you_mean(name, catalog.accelerator_classes.keys().map(String::as_str))
                }
                _ => None,
            };
            Err(Diagnostic::error(code, e.to_string())
                .at(at.unwrap_or(raw.pos))
                .object(isvc.object.clone())
                .field(field)
                .help(match close {
                    // Classes often live in another repository: the file may just be missing.
                    Some(close) => format!("{close} Or: {}", e.help()),
                    None => e.help(),
                }))
        }
    }
}

/// The resolution of `isvc` to `runtime_name` with `runtime`, its accelerators chosen.
#[allow(clippy::too_many_arguments)]
fn resolution<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    model: Option<&'a BaseModel>,
    overlays: Vec<Overlay<'a>>,
    runtime_name: &'a str,
    runtime: &'a RuntimeSpec,
    chosen: Chosen<'a>,
    best_entry: Option<&'a SupportedFormat>,
) -> Resolution<'a> {
    Resolution {
        model,
        overlays,
        runtime_name,
        runtime,
        chosen,
        engine: accelerator(isvc, Role::Engine, runtime, best_entry, catalog),
        decoder: accelerator(isvc, Role::Decoder, runtime, best_entry, catalog),
    }
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
    if model_ref.name.is_empty() {
        // The CRD schema's `spec.model.name: Required value`, reported by admission.
        return Err(());
    }
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
            .help(
                did_you_mean(&model_ref.name, catalog.model_names(ns))
                    .unwrap_or_else(|| "add the model's file to the paths, or fix the name".to_string()),
            ),
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
    if model.namespace.is_none()
        && let Some(uri) = model.storage.storage_uri.as_deref()
        && let Some(Ok(pvc)) = crate::admission::base_model::parse_pvc(uri)
        && let Some(pvc_ns) = pvc.namespace
        && pvc_ns != ns
    {
        diags.push(
            error(
                isvc,
                Code::InvalidInferenceService,
                format!(
                    "ClusterBaseModel \"{}\" references PVC in namespace \"{pvc_ns}\", but InferenceService is in namespace \"{ns}\"; Kubernetes does not allow pods to mount PVCs from another namespace. Either move the InferenceService to namespace \"{pvc_ns}\" or replicate the PVC into namespace \"{ns}\".",
                    model.name
                ),
            )
            .at(model_ref.pos)
            .field("spec.model.name")
            .related(model.pos, "the model is defined here")
            .help(format!("run the InferenceService in namespace {pvc_ns}, or use a BaseModel over a PVC in namespace {ns}")),
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

/// What looking up the runtime named in `spec.runtime` found.
enum Lookup<'a> {
    Found(&'a Runtime),
    /// Not among the inputs: the diagnostic OME's webhook would reject it with.
    NotFound(Diagnostic),
    /// `spec.runtime.kind` is neither kind.
    Invalid(Diagnostic),
}

/// A runtime named in `spec.runtime` (v1.3: `kind` `ClusterServingRuntime`, the default,
/// looks at cluster scope first, then the namespace; `ServingRuntime` only the namespace).
fn lookup_named<'a>(isvc: &InferenceService, catalog: &'a Catalog) -> Option<Lookup<'a>> {
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
            return Some(Lookup::Invalid(
                error(
                    isvc,
                    Code::InvalidField,
                    format!("unsupported runtime kind \"{other}\""),
                )
                .at(runtime_ref.pos)
                .field("spec.runtime.kind")
                .help("use ServingRuntime or ClusterServingRuntime"),
            ));
        }
    };
    Some(match found {
        Ok(r) => Lookup::Found(r),
        Err(message) => {
            let scope = match runtime_ref.kind.as_deref() {
                Some("ServingRuntime") => Some(Scope::Namespaced),
                _ => None,
            };
            let help = did_you_mean(name, catalog.runtime_names(scope, ns)).unwrap_or_else(|| {
                "add the runtime's file to the paths, or fix the name (or `spec.runtime.kind`)"
                    .to_string()
            });
            let message = match &isvc.model {
                Some(m) => format!(
                    "runtime {name} does not support model {}: {message}",
                    m.name
                ),
                None => message,
            };
            Lookup::NotFound(
                error(isvc, Code::RuntimeNotFound, message)
                    .at(runtime_ref.pos)
                    .field("spec.runtime.name")
                    .help(help),
            )
        }
    })
}

/// Resolves `isvc`'s model and runtime. Returns `None` after pushing an error.
pub(crate) fn resolve<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    resolver: &Resolver<'a>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Resolution<'a>> {
    // Admission reports an InferenceService with neither a model nor a runtime, and a decoder
    // without an engine (`admission::inference_service`).
    if isvc.namespace_refused {
        return None;
    }
    let named = |name: Option<&String>| name.is_some_and(|n| !n.is_empty());
    if !named(isvc.model.as_ref().map(|m| &m.name))
        && !named(isvc.runtime.as_ref().map(|r| &r.name))
    {
        return None;
    }
    if isvc.engine.is_none() {
        if isvc.decoder.is_none() {
            diags.push(
                error(isvc, Code::InvalidInferenceService, "engine component is required")
                    .at(isvc.pos)
                    .field("spec.engine")
                    .help("add spec.engine (OME admits an InferenceService without one and creates no workload for it)"),
            );
        }
        return None;
    }
    if let Err(d) = pins::admission(isvc) {
        diags.push(d);
        return None;
    }
    let model = resolve_model(isvc, catalog, diags).ok()?;
    let overlays = super::overlays::resolve(isvc, catalog, diags).ok()?;
    let request = Request::from_inference_service(isvc);

    // An empty runtime name is no runtime, as OME's webhook reads it (a missing one is the
    // schema's `Required value`, reported by admission).
    if let Some(runtime_ref) = isvc.runtime.as_ref().filter(|r| !r.name.is_empty()) {
        let mode = pins::mode(runtime_ref);
        let pinned = mode != pins::Mode::AutoSync;
        // The live runtime, with what it inherits. A pinned InferenceService without a model
        // is admitted without one (OME's webhook skips the check when autoSync is false) and
        // renders from its revision if it has one.
        let live = match lookup_named(isvc, catalog)? {
            Lookup::Invalid(d) => {
                diags.push(d);
                return None;
            }
            Lookup::NotFound(d) if pinned && model.is_none() => {
                let status = pins::status(isvc, catalog, None);
                if status.revision().is_none() {
                    let d = Diagnostic {
                        message: format!(
                            "resolve live runtime {}: {}",
                            runtime_ref.name, d.message
                        ),
                        ..d
                    };
                    diags.push(d);
                    diags.extend(
                        pins::diagnostics(isvc, catalog, &status)
                            .into_iter()
                            .filter(Diagnostic::is_error),
                    );
                    return None;
                }
                None
            }
            Lookup::NotFound(d) => {
                diags.push(d);
                return None;
            }
            Lookup::Found(runtime) => match resolver.inherited.spec(runtime) {
                Ok(spec) => Some((runtime, spec)),
                Err(chain_error) => {
                    let message = match model {
                        Some(m) => format!(
                            "runtime {} does not support model {}: {chain_error}",
                            runtime.name, m.name
                        ),
                        None if pinned => {
                            format!("resolve live runtime {}: {chain_error}", runtime.name)
                        }
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
            },
        };
        if let (Some((runtime, spec)), Some(model)) = (live, model) {
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
                NamedCheck::NotDeclared { warning, error } => {
                    let d = Diagnostic::warning(Code::RuntimeNotDeclared, warning)
                        .at(runtime_ref.pos)
                        .object(isvc.object.clone())
                        .field("spec.runtime.name");
                    diags.push(match super::size::mismatch_help(&error, model, &runtime.name, spec) {
                        Some(help) => d.help(help),
                        None => d,
                    });
                }
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
        }
        // The spec the pods are built from: the live one, or the pinned revision's
        // (SEMANTICS.md#pins).
        let (name, spec, revision): (&'a str, &'a RuntimeSpec, Option<&'a Revision>) = if pinned {
            let live_view = live.map(|(_, spec)| pins::Live::of(spec));
            let status = pins::status(isvc, catalog, live_view.as_ref());
            let pin_diags = pins::diagnostics(isvc, catalog, &status);
            let failed = pin_diags.iter().any(Diagnostic::is_error);
            diags.extend(pin_diags);
            if failed {
                return None;
            }
            match (status.revision(), live) {
                (Some(rev), _) => (rev.runtime_of.as_str(), &rev.spec, Some(rev)),
                (None, Some((runtime, spec))) => (runtime.name.as_str(), spec, None),
                (None, None) => return None,
            }
        } else {
            let (runtime, spec) = live?;
            (runtime.name.as_str(), spec, None)
        };
        // A disabled spec is refused: the live one by the webhook above when there is a
        // model, otherwise (and a disabled revision) by the controller.
        if spec.disabled && (model.is_none() || pinned) {
            let scope = match live {
                Some((runtime, _)) if !pinned => runtime.scope,
                _ => pins::declared_kind(runtime_ref),
            };
            let message = disabled_error(name, scope);
            let message = if pinned {
                format!("Runtime {name} failed validation: {message}")
            } else {
                message
            };
            let defined = live.map_or(Pos::NONE, |(runtime, _)| runtime.pos);
            diags.push(
                error(isvc, Code::RuntimeDisabled, message)
                    .at(runtime_ref.pos)
                    .field("spec.runtime.name")
                    .related(defined, "the runtime is defined here"),
            );
            return None;
        }
        let entry = model.and_then(|m| best_entry(spec, m, false).map(|(_, e)| e));
        let chosen = Chosen {
            scope: live.map_or_else(|| pins::declared_kind(runtime_ref), |(r, _)| r.scope),
            namespace: live.and_then(|(r, _)| r.namespace.as_deref()),
            auto_selected: false,
            // A revision is a frozen spec: what the live chain inherits is not in it.
            parents: match (live, revision) {
                (Some((runtime, _)), None) => resolver.inherited.parents(runtime),
                _ => &[],
            },
            revision,
        };
        return Some(resolution(
            isvc, catalog, model, overlays, name, spec, chosen, entry,
        ));
    }

    // Auto-selection: a model is required (checked above: no runtime means a model).
    let model = model?;
    match resolver.index.select_in_catalog(model, &request) {
        Ok(selection) => {
            diags.push(
                Diagnostic::note(
                    Code::RuntimeAutoSelected,
                    auto_selected_warning(selection.runtime.name, &model.name),
                )
                .at(isvc.model.as_ref().map_or(isvc.pos, |m| m.pos))
                .object(isvc.object.clone())
                .field("spec.model.name"),
            );
            Some(resolution(
                isvc,
                catalog,
                Some(model),
                overlays,
                selection.runtime.name,
                selection.runtime.spec,
                Chosen {
                    scope: selection.runtime.scope,
                    namespace: Some(selection.runtime.namespace),
                    auto_selected: true,
                    parents: &[],
                    revision: None,
                },
                selection.best_entry.map(|(_, e)| e),
            ))
        }
        Err(e) => {
            let code = match e {
                SelectError::ModelFormatMissing => Code::ModelMetadataMissing,
                SelectError::NoRuntime(_) => Code::NoRuntime,
            };
            diags.push(
                error(isvc, code, admission_error(&model.name, &e))
                    .at(isvc.model.as_ref().map_or(isvc.pos, |m| m.pos))
                    .field("spec.model.name")
                    .help(e.help()),
            );
            None
        }
    }
}

/// The live spec of the runtime `isvc` names (with what it inherits), or why there is none:
/// what a managed pin snapshots.
pub(crate) fn live_spec<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    inherited: &'a Inherited,
) -> Result<&'a RuntimeSpec, String> {
    match lookup_named(isvc, catalog) {
        None => Err("it names no runtime".to_string()),
        Some(Lookup::Invalid(d) | Lookup::NotFound(d)) => Err(d.message),
        Some(Lookup::Found(runtime)) => inherited.spec(runtime).map_err(str::to_string),
    }
}

/// The runtime `isvc` names, found as a render finds it.
pub(crate) fn named_runtime<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
) -> Option<&'a Runtime> {
    match lookup_named(isvc, catalog)? {
        Lookup::Found(r) => Some(r),
        Lookup::NotFound(_) | Lookup::Invalid(_) => None,
    }
}
