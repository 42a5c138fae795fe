//! The v1.2.2 → v1.3 migration lint (SEMANTICS.md#migration): annotations and values that
//! v1.3 no longer reads, or reads differently, each a warning naming what replaced it
//! (`--strict` makes them errors). Removed fields are found with the unknown ones
//! (`model::schema`); the ones OME's webhook rejects are admission errors.

use super::autoscaler::{
    AUTOSCALER_CLASS_ANNOTATION, METRICS_ANNOTATION, TARGET_UTILIZATION_ANNOTATION,
};
use super::{Findings, present};
use crate::diagnostics::Code;
use crate::model::Role;
use crate::model::component::DEPLOYMENT_MODE_ANNOTATION;
use crate::yaml::{Map, Node};

const CODE: Code = Code::Migration;

/// The legacy autoscaling annotations of an InferenceService or a component (`path` is
/// where they sit, such as `metadata.annotations`).
fn autoscaling_annotations(f: &mut Findings<'_>, annotations: &Map, path: &str) {
    for (key, node) in annotations.iter() {
        let field = format!("{path}.{key}");
        let (message, help) = match key {
            AUTOSCALER_CLASS_ANNOTATION => match node.as_str() {
                Some("keda") => (
                    "`ome.io/autoscalerClass: keda` stopped working in v1.3: where no autoscaler block applies, it gives a KEDA autoscaler without triggers, which OME's controller refuses".to_string(),
                    "give the component `autoscaler: {class: KEDA, keda: {triggers: [...]}}` and remove the annotation in the same change".to_string(),
                ),
                Some(v @ ("hpa" | "external")) => (
                    format!("`ome.io/autoscalerClass: {v}` is a legacy annotation: v1.3 reads it only for a RawDeployment component with no autoscaler block of its own or from its runtime"),
                    format!(
                        "write `autoscaler: {{class: {}}}` on the component instead",
                        if v == "hpa" { "HPA" } else { "External" }
                    ),
                ),
                _ => continue,
            },
            TARGET_UTILIZATION_ANNOTATION => (
                "`ome.io/targetUtilizationPercentage` is a legacy annotation: v1.3 reads it only for a RawDeployment component with no autoscaler block".into(),
                "write `autoscaler: {class: HPA, hpa: {metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: <n>}}}]}}` on the component".into(),
            ),
            METRICS_ANNOTATION => (
                "`ome.io/metrics` is never applied in v1.3: the HPA of the legacy annotations scales on CPU".into(),
                "write the metric in `autoscaler.hpa.metrics` on the component (a `memory` Resource metric, for example)".into(),
            ),
            k @ ("autoscaling.knative.dev/min-scale" | "autoscaling.knative.dev/max-scale") => (
                format!("`{k}` is Knative's scale bound: v1.3 has no Knative and does not read it"),
                format!(
                    "set `{}` on the component and remove the annotation",
                    if k.ends_with("min-scale") { "minReplicas" } else { "maxReplicas" }
                ),
            ),
            k if k.starts_with("autoscaling.keda.sh/") => (
                format!("`{k}` is not read by v1.3 (v1.2.2 built a Prometheus trigger from it)"),
                "write the trigger in `autoscaler: {class: KEDA, keda: {triggers: [{type: prometheus, metadata: {serverAddress, query, threshold}}]}}`".into(),
            ),
            _ => continue,
        };
        let d = f.warning(CODE, node.pos, &field, message).help(help);
        f.push(d);
    }
}

/// A KEDA trigger query with `%s`: v1.2.2 replaced it with the component's name, v1.3 copies
/// the query as it is. `name` is the component's name when it is known.
fn keda_queries(f: &mut Findings<'_>, component: &Node, path: &str, name: Option<&str>) {
    let Some(triggers) = component
        .at(&["autoscaler", "keda", "triggers"])
        .and_then(Node::as_seq)
    else {
        return;
    };
    for (i, t) in triggers.iter().enumerate() {
        let Some(query) = t.at(&["metadata", "query"]) else {
            continue;
        };
        if !query.as_str().is_some_and(|q| q.contains("%s")) {
            continue;
        }
        let what = name.map_or(
            "the component's name (`<isvc>-<component>`)".to_string(),
            |n| format!("`{n}`"),
        );
        let d = f
            .warning(
                CODE,
                query.pos,
                &format!("{path}.autoscaler.keda.triggers[{i}].metadata.query"),
                "the query has a `%s`: v1.2.2 replaced it with the component's name, v1.3 sends the query as it is",
            )
            .help(format!("write {what} in place of `%s`"));
        f.push(d);
    }
}

/// The migration lint of an InferenceService.
pub(crate) fn check_inference_service(
    f: &mut Findings<'_>,
    annotations: &Map,
    spec: &Node,
    name: &str,
) {
    autoscaling_annotations(f, annotations, "metadata.annotations");
    if let Some(mode) = annotations.get(DEPLOYMENT_MODE_ANNOTATION)
        && mode.as_str() == Some("MultiNode")
    {
        let d = f
            .warning(
                CODE,
                mode.pos,
                &format!("metadata.annotations.{DEPLOYMENT_MODE_ANNOTATION}"),
                "`ome.io/deploymentMode: MultiNode` on the InferenceService sets no component's mode in v1.3 (v1.2.2's webhook wrote it)",
            )
            .help("put `ome.io/deploymentMode: MultiNode` in the component's annotations (spec.engine.annotations) to keep a LeaderWorkerSet, or move to OMENative");
        f.push(d);
    }
    for role in Role::ALL {
        let Some(c) = present(spec, role.as_str()).filter(|c| c.as_map().is_some()) else {
            continue;
        };
        let path = format!("spec.{role}");
        if let Some(a) = c.get("annotations").and_then(Node::as_map) {
            autoscaling_annotations(f, a, &format!("{path}.annotations"));
        }
        keda_queries(f, c, &path, Some(&format!("{name}-{role}")));
    }
}

/// The migration lint of one of a runtime's component configs, `spec.<key>`.
pub(crate) fn check_runtime_config(f: &mut Findings<'_>, key: &str, config: &Node) {
    let path = format!("spec.{key}");
    if let Some(a) = config.get("annotations").and_then(Node::as_map) {
        autoscaling_annotations(f, a, &format!("{path}.annotations"));
    }
    keda_queries(f, config, &path, None);
}
