//! What an InferenceService asks of its runtime beyond the model: the namespace whose
//! ServingRuntimes it sees, the accelerator classes it names (selection spec §10) and the
//! deployment mode each component requests (§11, OME v1.3).

use crate::model::InferenceService;
use crate::model::runtime::DEPLOYMENT_MODE_ANNOTATION;
use crate::yaml::Node;

/// The deployment modes OME v1.3 recognises. Any other value, or an empty one, is "no mode".
pub const DEPLOYMENT_MODES: [&str; 4] = [
    "RawDeployment",
    "OMENative",
    "MultiNode",
    "VirtualDeployment",
];

/// Whether `mode` is one of [`DEPLOYMENT_MODES`] (case-sensitive).
pub fn is_deployment_mode(mode: &str) -> bool {
    DEPLOYMENT_MODES.contains(&mode)
}

/// The constraints selection applies to runtimes on behalf of one InferenceService.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// The namespace whose ServingRuntimes are visible (ClusterServingRuntimes always are).
    pub namespace: String,
    /// Every class the runtime must list, deduplicated, in the order the InferenceService
    /// names them. Empty means no accelerator constraint.
    pub accelerator_classes: Vec<String>,
    /// The engine's requested mode, always a valid mode when set.
    pub engine_mode: Option<String>,
    /// The decoder's requested mode; `None` when the InferenceService has no decoder.
    pub decoder_mode: Option<String>,
}

impl Request {
    /// A request with no constraints but the namespace, as `explain --model` uses.
    pub fn for_namespace(namespace: &str) -> Request {
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
    pub fn from_inference_service(isvc: &InferenceService) -> Request {
        // `spec.deploymentMode` only takes these two values; anything else constrains nothing.
        let spec_mode = isvc
            .deployment_mode
            .as_deref()
            .filter(|m| matches!(*m, "OMENative" | "RawDeployment"));
        let component_mode = |component: Option<&Node>| {
            component
                .and_then(|c| c.str_at(&["annotations", DEPLOYMENT_MODE_ANNOTATION]))
                .filter(|m| is_deployment_mode(m))
                .or(spec_mode)
                .map(str::to_string)
        };
        Request {
            namespace: isvc.lookup_namespace.clone(),
            accelerator_classes: isvc.required_accelerator_classes(),
            engine_mode: component_mode(isvc.engine.as_ref()),
            decoder_mode: isvc
                .decoder
                .as_ref()
                .and_then(|decoder| component_mode(Some(decoder))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::isvc;

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
        let mode = |text: &str| Request::from_inference_service(&isvc(text)).engine_mode;
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
            mode("{spec: {engine: {annotations: {ome.io/deploymentMode: MultiNode}}}}").as_deref(),
            Some("MultiNode")
        );
        // M06: spec.deploymentMode applies, even without spec.engine; the annotation wins.
        assert_eq!(
            mode("{spec: {deploymentMode: RawDeployment}}").as_deref(),
            Some("RawDeployment")
        );
        assert_eq!(
            mode("{spec: {deploymentMode: RawDeployment, engine: {annotations: {ome.io/deploymentMode: MultiNode}}}}")
                .as_deref(),
            Some("MultiNode")
        );
        // An invalid annotation falls back to spec.deploymentMode.
        assert_eq!(
            mode("{spec: {deploymentMode: OMENative, engine: {annotations: {ome.io/deploymentMode: Nope}}}}")
                .as_deref(),
            Some("OMENative")
        );
        // spec.deploymentMode only constrains with OMENative or RawDeployment.
        assert_eq!(mode("{spec: {deploymentMode: MultiNode}}"), None);
    }

    #[test]
    fn decoder_mode_needs_a_decoder() {
        let mode = |text: &str| Request::from_inference_service(&isvc(text)).decoder_mode;
        assert_eq!(mode("{spec: {deploymentMode: OMENative}}"), None);
        assert_eq!(
            mode("{spec: {deploymentMode: OMENative, decoder: {}}}").as_deref(),
            Some("OMENative")
        );
        assert_eq!(
            mode("{spec: {decoder: {annotations: {ome.io/deploymentMode: MultiNode}}}}").as_deref(),
            Some("MultiNode")
        );
    }
}
