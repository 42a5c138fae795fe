//! Named runtimes: the InferenceService sets `spec.runtime.name`. Finding the runtime is the
//! caller's job (OME v1.3 looks up a ClusterServingRuntime first, then the namespace's
//! ServingRuntime, or only the ServingRuntime with `kind: ServingRuntime`); this module
//! decides what OME v1.3 says about the one found (SEMANTICS.md#runtimes), and holds the exact
//! texts of the lookup failures.
//!
//! OME v1.3 admits a named runtime that does not declare support for the model, with a
//! warning, and rejects a disabled one.

use super::auto::validate_model;
use super::matcher::{self, Incompatible, model_format};
use super::request::Request;
use crate::model::{BaseModel, RuntimeSpec, Scope};

/// What OME v1.3 says about a named runtime and the InferenceService's model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NamedCheck {
    /// The runtime declares support: nothing to say.
    Compatible,
    /// The runtime is disabled: OME's webhook rejects the InferenceService with `message`.
    Disabled { message: String },
    /// The runtime does not declare support: OME admits the InferenceService with `warning`
    /// and proceeds. `error` is OME's compatibility error inside it, which the controller's
    /// `RuntimeCompatibilityAdvisory` event also quotes.
    NotDeclared { error: String, warning: String },
    /// The model has no `modelFormat.name`, so compatibility cannot be checked (SEMANTICS.md#choice-model-metadata:
    /// render, with a warning). `error` is OME's model validation text.
    Unchecked { error: String },
}

/// Checks the named runtime `runtime` (of `scope`, with its resolved spec: v1.3 validates
/// what it inherits too) against `model`, for an InferenceService making `request`.
///
/// The order is OME's, except that a disabled runtime is reported before a model without
/// metadata: OME validates the model first, but a disabled runtime is an error whatever the
/// model says, and a model without metadata only earns a warning here.
pub(crate) fn check_named(
    runtime: &str,
    scope: Scope,
    spec: &RuntimeSpec,
    model: &BaseModel,
    request: &Request,
) -> NamedCheck {
    if spec.disabled {
        return NamedCheck::Disabled {
            message: admission_rejection(runtime, &model.name, &disabled_error(runtime, scope)),
        };
    }
    if let Err(e) = validate_model(model) {
        return NamedCheck::Unchecked {
            error: e.to_string(),
        };
    }
    match matcher::check(spec, model, request) {
        Ok(_) => NamedCheck::Compatible,
        Err(incompatible) => {
            let error = compatibility_error(runtime, model, &incompatible);
            NamedCheck::NotDeclared {
                warning: not_declared_warning(runtime, &model.name, &error),
                error,
            }
        }
    }
}

/// OME's `RuntimeCompatibilityError` for a named runtime: `runtime <rt> does not support model
/// <name>: <reason>`. `<name>` is the model's format name, or empty when the runtime failed on
/// accelerator class or deployment mode.
fn compatibility_error(runtime: &str, model: &BaseModel, incompatible: &Incompatible) -> String {
    let model_name = if incompatible.check.is_placement() {
        String::new()
    } else {
        model_format(model).name.clone()
    };
    format!(
        "runtime {runtime} does not support model {model_name}: {}",
        incompatible.reason
    )
}

/// OME v1.3's admission warning: `runtime "<rt>" does not declare support for model "<model>"
/// (<error>); proceeding because the runtime was named explicitly`.
pub(crate) fn not_declared_warning(runtime: &str, model: &str, error: &str) -> String {
    format!(
        "runtime \"{runtime}\" does not declare support for model \"{model}\" ({error}); proceeding because the runtime was named explicitly"
    )
}

/// OME's `RuntimeDisabledError`: `cluster-scoped runtime <rt> is disabled` or
/// `namespace-scoped runtime <rt> is disabled`.
pub(crate) fn disabled_error(runtime: &str, scope: Scope) -> String {
    let scope = match scope {
        Scope::Namespaced => "namespace-scoped",
        Scope::Cluster => "cluster-scoped",
    };
    format!("{scope} runtime {runtime} is disabled")
}

/// How OME v1.3's webhook rejects an InferenceService whose named runtime is disabled or
/// missing: `runtime <rt> does not support model <model>: <error>`.
pub(crate) fn admission_rejection(runtime: &str, model: &str, error: &str) -> String {
    format!("runtime {runtime} does not support model {model}: {error}")
}

/// The lookup failure when `spec.runtime.kind` is `ClusterServingRuntime` (or unset):
/// `runtime <rt> not found in namespace <ns> or at cluster scope`.
pub(crate) fn runtime_not_found(runtime: &str, namespace: &str) -> String {
    format!("runtime {runtime} not found in namespace {namespace} or at cluster scope")
}

/// The lookup failure when `spec.runtime.kind` is `ServingRuntime`: `ServingRuntime <rt> not
/// found in namespace <ns>`.
pub(crate) fn serving_runtime_not_found(runtime: &str, namespace: &str) -> String {
    format!("ServingRuntime {runtime} not found in namespace {namespace}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::{isvc, model, named_model, runtime_spec};

    fn no_request() -> Request {
        Request::for_namespace("default")
    }

    /// N01.
    #[test]
    fn disabled_and_no_auto_select() {
        let m = named_model("m", "{modelFormat: {name: pytorch}}");
        let disabled = runtime_spec(
            "{disabled: true, supportedModelFormats: [{modelFormat: {name: pytorch}}]}",
        );
        assert_eq!(
            disabled_error("rt-disabled", Scope::Namespaced),
            "namespace-scoped runtime rt-disabled is disabled"
        );
        assert_eq!(
            check_named("rt-disabled", Scope::Namespaced, &disabled, &m, &no_request()),
            NamedCheck::Disabled {
                message: "runtime rt-disabled does not support model m: namespace-scoped runtime rt-disabled is disabled"
                    .to_string()
            }
        );
        assert_eq!(
            check_named("rt", Scope::Cluster, &disabled, &m, &no_request()),
            NamedCheck::Disabled {
                message:
                    "runtime rt does not support model m: cluster-scoped runtime rt is disabled"
                        .to_string()
            }
        );
        // Disabled wins even when the model has no metadata.
        let bare = named_model("m", "{}");
        assert!(matches!(
            check_named("rt", Scope::Cluster, &disabled, &bare, &no_request()),
            NamedCheck::Disabled { .. }
        ));
        let no_auto = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: pytorch}, autoSelect: false}]}",
        );
        assert_eq!(
            check_named("rt-no-auto", Scope::Namespaced, &no_auto, &m, &no_request()),
            NamedCheck::Compatible
        );
    }

    /// A named runtime that does not declare the model's framework version: a warning
    /// (SEMANTICS.md#runtimes).
    #[test]
    fn format_failures_name_the_format() {
        let m = named_model(
            "llama-3-2-1b-instruct",
            "{modelFormat: {name: safetensors, version: '1.0.0'}, modelArchitecture: LlamaForCausalLM,
              modelFramework: {name: transformers, version: 4.46.0}}",
        );
        let spec = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: safetensors, version: '1.0.0'}, modelArchitecture: LlamaForCausalLM,
               modelFramework: {name: transformers, version: 4.45.0.dev0}, autoSelect: true}]}",
        );
        let NamedCheck::NotDeclared { error, warning } = check_named(
            "srt-llama-3-2-1b-instruct",
            Scope::Cluster,
            &spec,
            &m,
            &no_request(),
        ) else {
            panic!("N04 is not declared");
        };
        assert_eq!(
            error,
            "runtime srt-llama-3-2-1b-instruct does not support model safetensors: model format \
             'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.46.0' not in supported formats: \
             framework version mismatch (model=4.46.0, runtime=4.45.0.dev0)"
        );
        assert_eq!(
            warning,
            "runtime \"srt-llama-3-2-1b-instruct\" does not declare support for model \"llama-3-2-1b-instruct\" \
             (runtime srt-llama-3-2-1b-instruct does not support model safetensors: model format \
             'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.46.0' not in supported formats: \
             framework version mismatch (model=4.46.0, runtime=4.45.0.dev0)); proceeding because the runtime was named explicitly"
        );
        // A size failure names the format too.
        let m = named_model("big", "{modelFormat: {name: p}, modelParameterSize: 70B}");
        let spec = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: p}}], modelSizeRange: {max: 13B}}",
        );
        let NamedCheck::NotDeclared { error, .. } =
            check_named("small", Scope::Cluster, &spec, &m, &no_request())
        else {
            panic!("too big");
        };
        assert_eq!(
            error,
            "runtime small does not support model p: model size 70B is outside supported range (-inf, 13B]"
        );
    }

    /// Placement failures have an empty model name (SEMANTICS.md#runtimes).
    #[test]
    fn placement_failures_have_an_empty_model_name() {
        let m = named_model(
            "llama-3-3-70b-instruct",
            "{modelFormat: {name: safetensors}}",
        );
        let spec = runtime_spec("{supportedModelFormats: [{modelFormat: {name: safetensors}}]}");
        let r = Request::from_inference_service(&isvc(
            "{spec: {acceleratorSelector: {acceleratorClass: nvidia-h100}}}",
        ));
        assert_eq!(
            check_named("srt-llama-3-3-70b-instruct", Scope::Cluster, &spec, &m, &r),
            NamedCheck::NotDeclared {
                error: "runtime srt-llama-3-3-70b-instruct does not support model : runtime does not support the required accelerator class"
                    .to_string(),
                warning: "runtime \"srt-llama-3-3-70b-instruct\" does not declare support for model \"llama-3-3-70b-instruct\" \
                          (runtime srt-llama-3-3-70b-instruct does not support model : runtime does not support the required accelerator class); \
                          proceeding because the runtime was named explicitly"
                    .to_string(),
            }
        );
        let multinode = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: safetensors}, autoSelect: true}],
              engineConfig: {annotations: {ome.io/deploymentMode: MultiNode}}}",
        );
        let r = Request::from_inference_service(&isvc("{spec: {deploymentMode: OMENative}}"));
        let NamedCheck::NotDeclared { warning, .. } = check_named(
            "srt-llama-3-3-70b-instruct-multinode",
            Scope::Cluster,
            &multinode,
            &m,
            &r,
        ) else {
            panic!("the runtime does not declare the model");
        };
        assert!(warning.ends_with(
            "(runtime srt-llama-3-3-70b-instruct-multinode does not support model : runtime engine deployment mode MultiNode \
             does not match requested engine deployment mode OMENative); proceeding because the runtime was named explicitly"
        ));
    }

    /// A named runtime with a model without metadata is not checked
    /// (SEMANTICS.md#choice-model-metadata).
    #[test]
    fn models_without_metadata_are_unchecked() {
        let spec = runtime_spec("{supportedModelFormats: [{modelFormat: {name: safetensors}}]}");
        for m in [model("{}"), model("{modelFormat: {name: ''}}")] {
            assert_eq!(
                check_named("rt", Scope::Cluster, &spec, &m, &no_request()),
                NamedCheck::Unchecked {
                    error: "invalid model specification: modelFormat.name: model format name is required".to_string()
                }
            );
        }
    }

    /// The named-runtime lookup texts (SEMANTICS.md#runtimes).
    #[test]
    fn lookup_texts() {
        assert_eq!(
            runtime_not_found("srt-qwen2-5-7b", "demo"),
            "runtime srt-qwen2-5-7b not found in namespace demo or at cluster scope"
        );
        assert_eq!(
            serving_runtime_not_found("srt-qwen2-5-7b", "demo"),
            "ServingRuntime srt-qwen2-5-7b not found in namespace demo"
        );
        assert_eq!(
            admission_rejection(
                "sglang-llama-3-2-3b",
                "llama-3-2-3b-instruct",
                &serving_runtime_not_found("sglang-llama-3-2-3b", "llama-demo")
            ),
            "runtime sglang-llama-3-2-3b does not support model llama-3-2-3b-instruct: ServingRuntime sglang-llama-3-2-3b not found in namespace llama-demo"
        );
    }
}
