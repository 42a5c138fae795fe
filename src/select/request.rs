//! What an InferenceService asks of its runtime beyond the model: the namespace whose
//! ServingRuntimes it sees, the accelerator classes it names and the deployment mode each
//! component requests (OME v1.3; SEMANTICS.md#auto-selection).

use crate::model::component::declared_mode;
use crate::model::{DeploymentMode, InferenceService};

/// The constraints selection applies to runtimes on behalf of one InferenceService.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Request {
    /// The namespace whose ServingRuntimes are visible (ClusterServingRuntimes always are).
    pub(crate) namespace: String,
    /// Every class the runtime must list, deduplicated, in the order the InferenceService
    /// names them. Empty means no accelerator constraint.
    pub(crate) accelerator_classes: Vec<String>,
    /// The engine's requested mode.
    pub(crate) engine_mode: Option<DeploymentMode>,
    /// The decoder's requested mode; `None` when the InferenceService has no decoder.
    pub(crate) decoder_mode: Option<DeploymentMode>,
}

impl Request {
    /// A request with no constraints but the namespace, as `explain --model` uses.
    pub(crate) fn for_namespace(namespace: &str) -> Request {
        Request {
            namespace: namespace.to_string(),
            ..Request::default()
        }
    }

    /// What `isvc` asks for, in its lookup namespace.
    ///
    /// Modes: a component's own `annotations["ome.io/deploymentMode"]` when it holds a valid
    /// mode, else `spec.deploymentMode` when that is `OMENative` or `RawDeployment`. The
    /// engine is constrained even without `spec.engine`; the decoder only when the
    /// InferenceService has `spec.decoder`. `metadata.annotations` play no part.
    pub(crate) fn from_inference_service(isvc: &InferenceService) -> Request {
        let spec_mode = isvc.deployment_mode.as_deref();
        Request {
            namespace: isvc.lookup_namespace.clone(),
            accelerator_classes: isvc.required_accelerator_classes(),
            engine_mode: declared_mode(isvc.engine.as_ref(), spec_mode),
            decoder_mode: isvc
                .decoder
                .as_ref()
                .and_then(|decoder| declared_mode(Some(decoder), spec_mode)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::isvc;

    fn text(mode: Option<DeploymentMode>) -> Option<&'static str> {
        mode.map(DeploymentMode::as_str)
    }

    #[test]
    fn reads_namespace_and_accelerator_classes() {
        let r = Request::from_inference_service(&isvc(
            "{metadata: {name: s, namespace: team-a, annotations: {ome.io/accelerator-class: ''}},
              spec: {acceleratorSelector: {acceleratorClass: nvidia-h100},
                     engine: {acceleratorOverride: {acceleratorClass: nvidia-h100}},
                     decoder: {acceleratorOverride: {acceleratorClass: nvidia-a100}}}}",
        ));
        assert_eq!(r.namespace, "team-a");
        assert_eq!(r.accelerator_classes, ["", "nvidia-h100", "nvidia-a100"]);
        assert_eq!(
            Request::for_namespace("x"),
            Request {
                namespace: "x".into(),
                ..Request::default()
            }
        );
    }

    #[test]
    fn engine_mode_prefers_a_valid_annotation_then_spec_deployment_mode() {
        let mode = |t: &str| text(Request::from_inference_service(&isvc(t)).engine_mode);
        // M01: metadata annotations are ignored.
        assert_eq!(
            mode("{metadata: {name: s, annotations: {ome.io/deploymentMode: MultiNode}}}"),
            None
        );
        // M02: empty or invalid values are no mode.
        assert_eq!(
            mode("{spec: {engine: {annotations: {ome.io/deploymentMode: ''}}}}"),
            None
        );
        assert_eq!(
            mode("{spec: {engine: {annotations: {ome.io/deploymentMode: InvalidMode}}}}"),
            None
        );
        assert_eq!(
            mode("{spec: {engine: {annotations: {ome.io/deploymentMode: MultiNode}}}}"),
            Some("MultiNode")
        );
        // M06: spec.deploymentMode applies, even without spec.engine; the annotation wins.
        assert_eq!(
            mode("{spec: {deploymentMode: RawDeployment}}"),
            Some("RawDeployment")
        );
        assert_eq!(
            mode(
                "{spec: {deploymentMode: RawDeployment, engine: {annotations: {ome.io/deploymentMode: MultiNode}}}}"
            ),
            Some("MultiNode")
        );
        // An invalid annotation falls back to spec.deploymentMode.
        assert_eq!(
            mode(
                "{spec: {deploymentMode: OMENative, engine: {annotations: {ome.io/deploymentMode: Nope}}}}"
            ),
            Some("OMENative")
        );
        // spec.deploymentMode only constrains with OMENative or RawDeployment.
        assert_eq!(mode("{spec: {deploymentMode: MultiNode}}"), None);
    }

    #[test]
    fn decoder_mode_needs_a_decoder() {
        let mode = |t: &str| text(Request::from_inference_service(&isvc(t)).decoder_mode);
        assert_eq!(mode("{spec: {deploymentMode: OMENative}}"), None);
        assert_eq!(
            mode("{spec: {deploymentMode: OMENative, decoder: {}}}"),
            Some("OMENative")
        );
        assert_eq!(
            mode("{spec: {decoder: {annotations: {ome.io/deploymentMode: MultiNode}}}}"),
            Some("MultiNode")
        );
    }
}
