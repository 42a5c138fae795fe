//! The component's HorizontalPodAutoscaler (`autoscaling/v2`) as OME v1.3's HPA generator
//! writes it (SEMANTICS.md#autoscaling), and the metadata OME gives the scalers it creates.

use super::{ComponentNames, object_meta_map, rendered};
use crate::admission::autoscaler::AUTOSCALER_CLASS_ANNOTATION;
use crate::map;
use crate::model::InferenceService;
use crate::render::autoscaling::Autoscaling;
use crate::render::metadata::{Meta, string_map_node};
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};
use std::collections::BTreeMap;

/// The annotation in which OME records the label and annotation keys it copied onto a scaler.
pub(crate) const PROPAGATED_KEYS_ANNOTATION: &str = "ome.io/autoscaler-propagated-metadata-keys";

/// A single `Resource cpu Utilization` metric.
fn cpu_metric(target: i64) -> Node {
    Node::seq(vec![Node::map(map! {
        "type" => Node::str("Resource"),
        "resource" => Node::map(map! {
            "name" => Node::str("cpu"),
            "target" => Node::map(map! {
                "type" => Node::str("Utilization"),
                "averageUtilization" => Node::int(target),
            }),
        }),
    })])
}

/// The metadata of a scaler: the component's labels, and its annotations with a legacy
/// `ome.io/autoscalerClass` rewritten to the class in effect (`class`) and the keys OME
/// copied recorded in `ome.io/autoscaler-propagated-metadata-keys`
/// (`<label keys>|<annotation keys>`, each sorted and joined by commas).
pub(crate) fn scaler_metadata(
    meta: &Meta,
    class: &str,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let labels = meta.labels.clone();
    let mut annotations = meta.annotations.clone();
    if let Some(v) = annotations.get_mut(AUTOSCALER_CLASS_ANNOTATION) {
        *v = class.to_string();
    }
    let join = |keys: Vec<&String>| {
        keys.into_iter()
            .map(String::as_str)
            .filter(|k| *k != PROPAGATED_KEYS_ANNOTATION)
            .collect::<Vec<_>>()
            .join(",")
    };
    let tracked = format!(
        "{}|{}",
        join(labels.keys().collect()),
        join(annotations.keys().collect())
    );
    annotations.insert(PROPAGATED_KEYS_ANNOTATION.to_string(), tracked);
    (labels, annotations)
}

/// The scale target of a RawDeployment component: its Deployment.
pub(crate) fn deployment_target(name: &str) -> Node {
    Node::map(map! {
        "apiVersion" => Node::str("apps/v1"),
        "kind" => Node::str("Deployment"),
        "name" => Node::str(name),
    })
}

/// The HPA `<isvc>-<component>`: the block's `hpa.metrics` and `hpa.behavior` as they are,
/// else one CPU metric at the legacy target or `default_target`, and `behavior: {}`.
pub(crate) fn hpa(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    autoscaling: &Autoscaling<'_>,
    (min, max): (i64, i64),
    default_target: i64,
) -> Rendered {
    let hpa = autoscaling.block.and_then(|b| b.get("hpa"));
    let metrics = hpa
        .and_then(|h| h.get("metrics"))
        .filter(|m| !m.is_zero())
        .cloned()
        .unwrap_or_else(|| cpu_metric(autoscaling.legacy_target.unwrap_or(default_target)));
    let behavior = hpa
        .and_then(|h| h.get("behavior"))
        .filter(|b| !b.is_null())
        .cloned()
        .unwrap_or_else(|| Node::map(Map::new()));
    let (labels, annotations) = scaler_metadata(meta, "hpa");
    let mut h = object_meta_map(
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        names.full,
        isvc,
        Some((string_map_node(&labels), string_map_node(&annotations))),
    );
    h.insert(
        "spec",
        Node::map(map! {
            "scaleTargetRef" => deployment_target(names.full),
            "minReplicas" => Node::int(min),
            "maxReplicas" => Node::int(max),
            "metrics" => metrics,
            "behavior" => behavior,
        }),
    );
    rendered(isvc, h)
}
