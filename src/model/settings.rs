//! The renderer settings: the OME controller settings a cluster would hold in its
//! `inferenceservice-config`, read from `ome-render.yaml` at the root of the rendered tree
//! (SEMANTICS.md#choice-settings). Without the file, OME's shipped (Helm chart) defaults apply.
//!
//! ```yaml
//! # ome-render.yaml
//! terminationGracePeriodSeconds: 600   # pods' grace period when neither runtime nor isvc set one
//! ingress:
//!   disableIngressCreation: true       # false: no external Service `<isvc>` is rendered
//! autoscaling:
//!   targetUtilizationPercentage: 80    # the HPA's CPU target when nothing else sets one
//! acceleratorResources: [nvidia.com/gpu]  # resource names counted for PARALLELISM_SIZE
//! omeNamespace: ome                    # where OME keeps runtime revisions
//! ```

use super::fields::Reader;
use crate::diagnostics::{Code, Diagnostic, ObjectRef};
use crate::yaml::Node;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Settings {
    /// Applied to pods that set none; the chart's value is 600.
    pub(crate) termination_grace_period_seconds: i64,
    /// OME creates the external Service `<isvc>` only while ingress creation is disabled.
    pub(crate) disable_ingress_creation: bool,
    pub(crate) target_utilization_percentage: i64,
    /// Resource names whose count is the GPUs per pod, first present wins.
    pub(crate) accelerator_resources: Vec<String>,
    /// OME's own namespace, where runtime revisions live (the controller's `POD_NAMESPACE`).
    pub(crate) ome_namespace: String,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            termination_grace_period_seconds: 600,
            disable_ingress_creation: true,
            target_utilization_percentage: 80,
            accelerator_resources: vec!["nvidia.com/gpu".to_string()],
            ome_namespace: "ome".to_string(),
        }
    }
}

const KNOWN_KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "terminationGracePeriodSeconds",
    "ingress",
    "autoscaling",
    "acceleratorResources",
    "omeNamespace",
];

impl Settings {
    /// Reads the settings file; unknown keys are errors, so a typo never goes unnoticed.
    pub(crate) fn read(node: Option<&Node>, diags: &mut Vec<Diagnostic>) -> Settings {
        let mut settings = Settings::default();
        let Some(node) = node else {
            return settings;
        };
        let object = ObjectRef {
            kind: "RenderSettings".into(),
            namespace: None,
            name: crate::load::SETTINGS_FILE.into(),
        };
        if node.as_map().is_none() {
            diags.push(
                Diagnostic::error(Code::Settings, "the settings file must hold a map")
                    .at(node.pos)
                    .object(object),
            );
            return settings;
        }
        for (key, value) in node.as_map().into_iter().flat_map(|m| m.iter()) {
            if !KNOWN_KEYS.contains(&key) {
                diags.push(
                    Diagnostic::error(Code::Settings, format!("unknown setting `{key}`"))
                        .at(value.pos)
                        .object(object.clone())
                        .help(format!("known settings: {}", KNOWN_KEYS[3..].join(", "))),
                );
            }
        }
        let mut r = Reader {
            object: &object,
            diags,
        };
        if let Some(v) = r.int(node, "terminationGracePeriodSeconds", "") {
            settings.termination_grace_period_seconds = v;
        }
        if let Some(ingress) = r.map(node, "ingress", "")
            && let Some(v) = r.bool(ingress, "disableIngressCreation", "ingress")
        {
            settings.disable_ingress_creation = v;
        }
        if let Some(autoscaling) = r.map(node, "autoscaling", "")
            && let Some(v) = r.int(autoscaling, "targetUtilizationPercentage", "autoscaling")
        {
            settings.target_utilization_percentage = v;
        }
        if let Some(v) = r.strings(node, "acceleratorResources", "")
            && !v.is_empty()
        {
            settings.accelerator_resources = v;
        }
        if let Some(v) = r.str(node, "omeNamespace", "")
            && !v.is_empty()
        {
            settings.ome_namespace = v;
        }
        settings
    }
}
