//! The component's autoscaler: replica bounds and the HorizontalPodAutoscaler
//! (`autoscaling/v2`), as OME v1.3 resolves them (SEMANTICS.md, "Objects").

use super::{ComponentNames, object_meta_map, rendered};
use crate::diagnostics::{Code, Diagnostic};
use crate::map;
use crate::model::InferenceService;
use crate::render::metadata::Meta;
use crate::rendered::Rendered;
use crate::yaml::Node;

/// Replica bounds (SEMANTICS.md#choice-replica-bounds): the merged value, else the chart
/// default.
pub(crate) fn replicas(merged: &Node, router: bool) -> (i64, i64) {
    let min = merged
        .get("minReplicas")
        .and_then(Node::as_i64)
        .unwrap_or(1);
    let max = merged
        .get("maxReplicas")
        .and_then(Node::as_i64)
        .filter(|m| *m != 0)
        .unwrap_or(if router { 2 } else { 3 });
    (min, max)
}

/// What drives a component's replica count.
enum Autoscaling {
    /// An HPA with these metrics (and behavior, when the component's `autoscaler` sets it).
    Hpa {
        metrics: Node,
        behavior: Option<Node>,
    },
    /// Nothing ome-render creates (`External`/`None`, or the `external` annotation).
    NoHpa,
}

fn cpu_metric(name: &str, target: i64) -> Node {
    Node::seq(vec![Node::map(map! {
        "type" => Node::str("Resource"),
        "resource" => Node::map(map! {
            "name" => Node::str(name),
            "target" => Node::map(map! {
                "type" => Node::str("Utilization"),
                "averageUtilization" => Node::int(target),
            }),
        }),
    })])
}

/// v1.3: the component's `autoscaler` block first, else the `ome.io/autoscalerClass`
/// annotation (`hpa` by default) with `ome.io/metrics` and
/// `ome.io/targetUtilizationPercentage`.
fn autoscaling(
    isvc: &InferenceService,
    meta: &Meta,
    merged: &Node,
    default_target: i64,
    field: &str,
) -> Result<Autoscaling, Diagnostic> {
    // Where an annotation was written: the component's wins over the InferenceService's.
    let annotation_pos = |key: &str| {
        merged
            .at(&["annotations", key])
            .or_else(|| isvc.annotations.get(key))
            .map_or(isvc.pos, |n| n.pos)
    };
    let error = |message: String, at: Option<&Node>, f: String| {
        let mut d = Diagnostic::error(Code::UnsupportedMode, message)
            .object(isvc.object.clone())
            .field(f);
        if let Some(n) = at {
            d = d.at(n.pos);
        }
        d
    };
    if let Some(policy) = merged.get("autoscalerPolicyRef").filter(|n| !n.is_zero()) {
        return Err(error(
            "autoscalerPolicyRef (alpha) is not rendered offline yet".to_string(),
            Some(policy),
            format!("{field}.autoscalerPolicyRef"),
        )
        .help("write the autoscaler inline in `autoscaler`"));
    }
    if let Some(block) = merged.get("autoscaler").filter(|n| !n.is_zero()) {
        return match block.get("class").and_then(Node::as_str) {
            Some("HPA") => {
                let metrics = block
                    .at(&["hpa", "metrics"])
                    .filter(|m| !m.is_zero())
                    .cloned()
                    .unwrap_or_else(|| cpu_metric("cpu", 80));
                let behavior = block.at(&["hpa", "behavior"]).filter(|b| !b.is_zero()).cloned();
                Ok(Autoscaling::Hpa { metrics, behavior })
            }
            Some("External" | "None") => Ok(Autoscaling::NoHpa),
            Some("KEDA") => Err(error(
                "KEDA autoscaling renders a KEDA ScaledObject, which ome-render does not render yet".into(),
                Some(block),
                format!("{field}.autoscaler.class"),
            )),
            other => Err(Diagnostic::error(
                Code::InvalidField,
                format!(
                    "autoscaler class {} is not one of HPA|KEDA|External|None",
                    other.map_or("(missing)".to_string(), |c| format!("\"{c}\""))
                ),
            )
            .at(block.pos)
            .object(isvc.object.clone())
            .field(format!("{field}.autoscaler.class"))),
        };
    }
    match meta
        .annotations
        .get("ome.io/autoscalerClass")
        .map(String::as_str)
    {
        None | Some("" | "hpa") => {}
        Some("external") => return Ok(Autoscaling::NoHpa),
        Some("keda") => {
            return Err(error(
                "KEDA autoscaling renders a KEDA ScaledObject, which ome-render does not render yet".into(),
                None,
                "metadata.annotations.ome.io/autoscalerClass".into(),
            )
            .at(annotation_pos("ome.io/autoscalerClass")));
        }
        Some(other) => {
            return Err(Diagnostic::error(
                Code::InvalidField,
                format!("ome.io/autoscalerClass must be hpa, keda or external, not `{other}`"),
            )
            .at(annotation_pos("ome.io/autoscalerClass"))
            .object(isvc.object.clone())
            .field("metadata.annotations.ome.io/autoscalerClass"));
        }
    }
    let metric = match meta.annotations.get("ome.io/metrics").map(String::as_str) {
        None | Some("") => "cpu",
        Some(m @ ("cpu" | "memory")) => m,
        Some(other) => {
            return Err(Diagnostic::error(
                Code::InvalidField,
                format!("ome.io/metrics must be cpu or memory, not `{other}`"),
            )
            .at(annotation_pos("ome.io/metrics"))
            .object(isvc.object.clone())
            .field("metadata.annotations.ome.io/metrics"));
        }
    };
    let target = match meta.annotations.get("ome.io/targetUtilizationPercentage") {
        Some(v) => match v.parse::<i64>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => {
                return Err(Diagnostic::error(
                    Code::InvalidField,
                    format!("ome.io/targetUtilizationPercentage must be a number from 1 to 100, not `{v}`"),
                )
                .at(annotation_pos("ome.io/targetUtilizationPercentage"))
                .object(isvc.object.clone())
                .field("metadata.annotations.ome.io/targetUtilizationPercentage"));
            }
        },
        None => default_target,
    };
    Ok(Autoscaling::Hpa {
        metrics: cpu_metric(metric, target),
        behavior: None,
    })
}

/// The component's HPA (`autoscaling/v2`), unless its autoscaling is external. Problems are
/// pushed to `diags`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn hpa(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    merged: &Node,
    (min, max): (i64, i64),
    default_target: i64,
    diags: &mut Vec<Diagnostic>,
    field: &str,
) -> Option<Rendered> {
    let (metrics, behavior) = match autoscaling(isvc, meta, merged, default_target, field) {
        Ok(Autoscaling::Hpa { metrics, behavior }) => (metrics, behavior),
        Ok(Autoscaling::NoHpa) => return None,
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    let min = min.max(1);
    let max = max.max(min);
    let mut h = object_meta_map(
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        names.full,
        isvc,
        Some((meta.labels_node(), meta.annotations_node())),
    );
    let mut spec = map! {
        "scaleTargetRef" => Node::map(map! {
            "apiVersion" => Node::str("apps/v1"),
            "kind" => Node::str("Deployment"),
            "name" => Node::str(names.full),
        }),
        "minReplicas" => Node::int(min),
        "maxReplicas" => Node::int(max),
        "metrics" => metrics,
    };
    if let Some(b) = behavior {
        spec.insert("behavior", b);
    }
    h.insert("spec", Node::map(spec));
    Some(rendered(isvc, h))
}
