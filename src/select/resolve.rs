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

#[cfg(test)]
mod tests {
    use crate::pipeline::{Options, Rendering, render_texts};

    fn render(yaml: &str) -> Rendering {
        let options = Options {
            namespace: "default".into(),
            ..Options::default()
        };
        render_texts(&[("in.yaml", yaml)], &options)
    }

    fn messages(r: &Rendering) -> Vec<String> {
        r.diags
            .iter()
            .map(|d| format!("{:?}: {}", d.severity, d.message))
            .collect()
    }

    fn runtime_label(r: &Rendering) -> Option<String> {
        r.objects
            .iter()
            .find(|o| o.kind == "Deployment")
            .and_then(|d| d.node.str_at(&["metadata", "labels", "serving-runtime"]))
            .map(str::to_string)
    }

    const RUNTIME: &str = "spec:\n  supportedModelFormats:\n    - {modelFormat: {name: llama, version: \"1.0.0\"}, modelArchitecture: llama, autoSelect: true}\n  engineConfig:\n    runner: {name: ome-container, image: i}\n";

    fn runtime(kind: &str, name: &str, namespace: Option<&str>) -> String {
        let ns = namespace.map_or(String::new(), |n| format!("\n  namespace: {n}"));
        format!(
            "apiVersion: ome.io/v1beta1\nkind: {kind}\nmetadata:\n  name: {name}{ns}\n{RUNTIME}---\n"
        )
    }

    fn isvc(runtime: &str) -> String {
        format!(
            "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {{name: svc, namespace: test-namespace}}\nspec:\n  model: {{name: test-model}}\n{runtime}  engine: {{}}\n"
        )
    }

    const MODELS: &str = "apiVersion: ome.io/v1beta1\nkind: BaseModel\nmetadata: {name: test-model, namespace: test-namespace}\nspec: {modelFormat: {name: llama, version: \"1.0.0\"}, modelArchitecture: llama, modelParameterSize: 7B}\n---\napiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata: {name: test-model}\nspec: {modelFormat: {name: different}}\n---\n";

    /// W06: the BaseModel in the namespace wins over the ClusterBaseModel of the same name.
    #[test]
    fn base_model_in_the_namespace_first() {
        let r = render(&format!(
            "{MODELS}{}{}",
            runtime("ClusterServingRuntime", "runtime-1", None),
            isvc("")
        ));
        assert_eq!(
            messages(&r),
            ["Warning: Runtime runtime-1 will be auto-selected for model test-model"]
        );
    }

    /// W01: equal runtimes: the name decides.
    #[test]
    fn equal_runtimes_pick_the_first_name() {
        let r = render(&format!(
            "{MODELS}{}{}{}",
            runtime("ClusterServingRuntime", "runtime-2", None),
            runtime("ClusterServingRuntime", "runtime-1", None),
            isvc("")
        ));
        assert_eq!(runtime_label(&r).as_deref(), Some("runtime-1"));
    }

    /// N02/N03 and v13-features vector 34: the lookup order by `spec.runtime.kind` (v1.3).
    #[test]
    fn named_runtime_lookup_by_kind() {
        let both = format!(
            "{MODELS}{}{}",
            runtime("ClusterServingRuntime", "foo", None),
            runtime("ServingRuntime", "foo", Some("test-namespace"))
        );
        let label_of = |r: &Rendering| {
            r.objects
                .iter()
                .find(|o| o.kind == "Deployment")
                .and_then(|d| {
                    d.node
                        .str_at(&["metadata", "annotations", "ome.io/serving-runtime"])
                })
                .map(str::to_string)
        };
        // No kind: the ClusterServingRuntime (v1.3; v1.2.2 took the ServingRuntime).
        let r = render(&format!("{both}{}", isvc("  runtime: {name: foo}\n")));
        assert!(r.diags.iter().all(|d| !d.is_error()), "{:?}", messages(&r));
        assert_eq!(label_of(&r).as_deref(), Some("foo"));
        let r = render(&format!(
            "{MODELS}{}{}",
            runtime("ServingRuntime", "foo", Some("test-namespace")),
            isvc("  runtime: {name: foo}\n")
        ));
        assert!(
            r.diags.iter().all(|d| !d.is_error()),
            "no CSR: the SR is found"
        );
        // kind: ServingRuntime with only a ClusterServingRuntime: not found.
        let r = render(&format!(
            "{MODELS}{}{}",
            runtime("ClusterServingRuntime", "foo", None),
            isvc("  runtime: {name: foo, kind: ServingRuntime}\n")
        ));
        assert_eq!(
            messages(&r),
            [
                "Error: runtime foo does not support model test-model: ServingRuntime foo not found in namespace test-namespace"
            ]
        );
        // A ServingRuntime of another namespace is not visible.
        let r = render(&format!(
            "{MODELS}{}{}",
            runtime("ServingRuntime", "foo", Some("elsewhere")),
            isvc("  runtime: {name: foo}\n")
        ));
        assert_eq!(
            messages(&r),
            [
                "Error: runtime foo does not support model test-model: runtime foo not found in namespace test-namespace or at cluster scope"
            ]
        );
    }

    /// v13-features vectors 1, 3, 6 and 13: inheritance for named runtimes, not for
    /// auto-selection.
    #[test]
    fn inheritance() {
        let profile = "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: profile\n  annotations: {ome.io/runtime-profile: \"true\"}\nspec:\n  disabled: true\n  engineConfig:\n    runner: {name: ome-container, image: profile-image, command: [serve, --port=8080]}\n    tolerations: [{key: gpu, operator: Exists}]\n---\n";
        let child = |disabled: &str, extra: &str| {
            format!(
                "apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata:\n  name: child\n  namespace: test-namespace\n  annotations: {{ome.io/inherit-from: profile}}\nspec:\n{disabled}  supportedModelFormats:\n    - {{modelFormat: {{name: llama, version: \"1.0.0\"}}, modelArchitecture: llama, autoSelect: true}}\n  engineConfig:\n    runner: {{name: ome-container, args: [--tp-size=1]{extra}}}\n---\n"
            )
        };
        let r = render(&format!(
            "{MODELS}{profile}{}{}",
            child("  disabled: false\n", ""),
            isvc("  runtime: {name: child}\n")
        ));
        assert!(r.diags.iter().all(|d| !d.is_error()), "{:?}", messages(&r));
        let d = &r
            .objects
            .iter()
            .find(|o| o.kind == "Deployment")
            .unwrap()
            .node;
        let c = &d
            .at(&["spec", "template", "spec", "containers"])
            .and_then(crate::yaml::Node::as_seq)
            .unwrap()[0];
        assert_eq!(c.str_at(&["image"]), Some("profile-image"));
        assert_eq!(
            crate::yaml::emit::to_json_string(c.get("args").unwrap()),
            r#"["--tp-size=1"]"#
        );
        assert!(d.at(&["spec", "template", "spec", "tolerations"]).is_some());

        // A child that leaves `disabled` unset inherits `disabled: true`.
        let r = render(&format!(
            "{MODELS}{profile}{}{}",
            child("", ""),
            isvc("  runtime: {name: child}\n")
        ));
        assert!(
            messages(&r)
                .iter()
                .any(|m| m.ends_with("namespace-scoped runtime child is disabled")),
            "{:?}",
            messages(&r)
        );

        // Auto-selection uses the child's own spec, which has no image.
        let r = render(&format!(
            "{MODELS}{profile}{}{}",
            child("  disabled: false\n", ""),
            isvc("")
        ));
        assert!(
            messages(&r).iter().any(|m| m.contains("has no image")),
            "{:?}",
            messages(&r)
        );

        // A cycle.
        let cyclic = "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: loop\n  annotations: {ome.io/inherit-from: loop}\nspec: {}\n";
        let r = render(cyclic);
        assert_eq!(
            messages(&r),
            ["Error: inheritance cycle detected: [loop loop]"]
        );
        // Vector 4: five runtimes in a chain are fine, six are too many.
        let chain = |n: usize| {
            (0..n)
                .map(|i| {
                    let parent = if i == 0 { String::new() } else { format!("\n  annotations: {{ome.io/inherit-from: r{}}}", i - 1) };
                    format!("apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: r{i}{parent}\nspec: {{}}\n---\n")
                })
                .collect::<String>()
        };
        assert!(render(&chain(5)).diags.is_empty());
        assert_eq!(
            messages(&render(&chain(6))),
            ["Error: inheritance chain exceeds max depth 5: [r5 r4 r3 r2 r1 r0 ...]"]
        );
        // A missing parent.
        let r = render(&format!(
            "{MODELS}{}{}",
            child("  disabled: false\n", ", image: i"),
            isvc("  runtime: {name: child}\n")
        ));
        assert!(
            messages(&r).contains(
                &"Error: inherit-from parent \"profile\" not found (chain so far: [child])"
                    .to_string()
            ),
            "{:?}",
            messages(&r)
        );
    }
}
