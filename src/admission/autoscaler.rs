//! The `autoscaler` block of a component and its `autoscalerPolicyRef`, as OME's
//! InferenceService webhook (ISVC-09, ISVC-11) and runtime webhook (RT-04, RT-05) check them,
//! with the CRD schema's own checks of the block (SEMANTICS.md#admission).

use super::{Findings, present};
use crate::diagnostics::Code;
use crate::yaml::Node;

/// The InferenceService annotations of autoscaling (v1.2.2's spelling; the migration lint
/// says what v1.3 reads instead).
pub(crate) const AUTOSCALER_CLASS_ANNOTATION: &str = "ome.io/autoscalerClass";
pub(crate) const TARGET_UTILIZATION_ANNOTATION: &str = "ome.io/targetUtilizationPercentage";
pub(crate) const METRICS_ANNOTATION: &str = "ome.io/metrics";

/// The classes of a typed `autoscaler` block (case-sensitive).
pub(crate) const CLASSES: &[&str] = &["HPA", "KEDA", "External", "None"];
/// The CRD schema's checks (the API server runs them before any webhook).
const SCHEMA: Code = Code::InvalidField;
const METRIC_TYPES: &[(&str, &str)] = &[
    ("Resource", "resource"),
    ("Pods", "pods"),
    ("Object", "object"),
    ("External", "external"),
    ("ContainerResource", "containerResource"),
];

/// The example a KEDA help line shows.
pub(crate) const KEDA_EXAMPLE: &str = "autoscaler:\n  class: KEDA\n  keda:\n    triggers:\n      - type: prometheus\n        metadata:\n          serverAddress: http://prometheus.monitoring.svc:9090\n          query: sum(vllm:num_requests_waiting{component=\"engine\"})\n          threshold: \"5\"";

/// Checks one component's `autoscaler` block. `label` prefixes OME's messages (`engine`,
/// `engineConfig`); `path` is the component's field path (`spec.engine`). `min_replicas` is
/// the same object's own `minReplicas`, which the KEDA idle rule compares with.
/// `class_required` is the runtime schema's rule (an InferenceService block may omit the
/// class and reach the webhook with `""`).
pub(crate) fn check_block(
    f: &mut Findings<'_>,
    code: Code,
    label: &str,
    component: &Node,
    path: &str,
    class_required: bool,
) {
    let Some(block) = present(component, "autoscaler") else {
        return;
    };
    if block.as_map().is_none() {
        return;
    }
    let apath = format!("{path}.autoscaler");
    let class_node = present(block, "class");
    let class = class_node.and_then(Node::as_str).unwrap_or("");
    // Schema: the class enum (and, in a runtime, the class is required).
    let schema_rejects_class = match class_node {
        Some(n) if n.as_str().is_some_and(|c| !CLASSES.contains(&c)) => {
            f.unsupported(SCHEMA, n, &format!("{apath}.class"), CLASSES);
            true
        }
        None if class_required => {
            f.required(SCHEMA, block.pos, &format!("{apath}.class"));
            true
        }
        _ => false,
    };
    // Schema: a `keda` block needs its triggers, each with a type and metadata.
    let keda = present(block, "keda");
    let mut schema_rejects_keda = false;
    if let Some(keda) = keda.filter(|k| k.as_map().is_some()) {
        let kpath = format!("{apath}.keda");
        match present(keda, "triggers") {
            None => {
                f.required(SCHEMA, keda.pos, &format!("{kpath}.triggers"));
                schema_rejects_keda = true;
            }
            Some(t) => {
                if let Some(items) = t.as_seq() {
                    if items.is_empty() {
                        let p = format!("{kpath}.triggers");
                        let d = f
                            .error(
                                SCHEMA,
                                t.pos,
                                &p,
                                format!("{p}: Invalid value: 0: {p} in body should have at least 1 items"),
                            )
                            .help("add at least one KEDA trigger");
                        f.push(d);
                        schema_rejects_keda = true;
                    }
                    for (i, trigger) in items.iter().enumerate() {
                        let tp = format!("{kpath}.triggers[{i}]");
                        match present(trigger, "type") {
                            None => f.required(SCHEMA, trigger.pos, &format!("{tp}.type")),
                            Some(n) => f.min_length(SCHEMA, n, &format!("{tp}.type"), 1),
                        }
                        if present(trigger, "metadata").is_none() {
                            f.required(SCHEMA, trigger.pos, &format!("{tp}.metadata"));
                        }
                    }
                }
            }
        }
        if let Some(fallback) = present(keda, "fallback") {
            for key in ["failureThreshold", "replicas"] {
                if present(fallback, key).is_none() {
                    f.required(SCHEMA, fallback.pos, &format!("{kpath}.fallback.{key}"));
                }
            }
        }
    }
    // Schema: each HPA metric has a type.
    let metrics = block.at(&["hpa", "metrics"]).and_then(Node::as_seq);
    for (i, m) in metrics.unwrap_or(&[]).iter().enumerate() {
        if present(m, "type").is_none() {
            f.required(SCHEMA, m.pos, &format!("{apath}.hpa.metrics[{i}].type"));
        }
    }
    if schema_rejects_class {
        return;
    }
    // The webhook (ISVC-09 / RT-05).
    if !CLASSES.contains(&class) {
        let d = f
            .error(
                code,
                block.pos,
                &format!("{apath}.class"),
                format!(
                    "{label}: AutoscalerClassUnknown: autoscaler.class {} is not one of HPA|KEDA|External|None",
                    crate::go::quote(class)
                ),
            )
            .help("set `class` to HPA, KEDA, External or None");
        f.push(d);
        return;
    }
    if class == "KEDA" && keda.is_none() {
        let d = f
            .error(
                code,
                class_node.map_or(block.pos, |n| n.pos),
                &format!("{apath}.keda"),
                format!("{label}: KedaTriggersRequired: class=keda requires at least 1 trigger"),
            )
            .help(format!(
                "a KEDA block declares its triggers inline, for example:\n{KEDA_EXAMPLE}"
            ));
        f.push(d);
    }
    if class == "HPA" {
        for (i, m) in metrics.unwrap_or(&[]).iter().enumerate() {
            let Some(t) = present(m, "type").and_then(Node::as_str) else {
                continue;
            };
            let mpath = format!("{apath}.hpa.metrics[{i}]");
            let message = if t.is_empty() {
                Some(format!(
                    "{label}: HPAMetricMalformed: hpa.metrics[{i}].type is empty; must be one of Resource|Pods|Object|External|ContainerResource"
                ))
            } else {
                match METRIC_TYPES.iter().find(|(ty, _)| *ty == t) {
                    Some((_, source)) if present(m, source).is_none() => Some(format!(
                        "{label}: HPAMetricMalformed: hpa.metrics[{i}].type={t} but hpa.metrics[{i}].{source} is nil"
                    )),
                    Some(_) => None,
                    None => Some(format!(
                        "{label}: HPAMetricMalformed: hpa.metrics[{i}].type {} is not one of Resource|Pods|Object|External|ContainerResource",
                        crate::go::quote(t)
                    )),
                }
            };
            if let Some(message) = message {
                let d = f
                    .error(code, m.pos, &mpath, message)
                    .help("give each metric a type and the field of that type, as in `{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}`");
                f.push(d);
                // OME stops at the first malformed entry.
                break;
            }
        }
    }
    if class == "KEDA"
        && !schema_rejects_keda
        && let Some(idle_node) = keda.and_then(|k| present(k, "idleReplicaCount"))
        && let Some(idle) = idle_node.as_i64()
        && let Some(min) = present(component, "minReplicas").and_then(Node::as_i64)
        && idle >= min
    {
        let d = f
            .error(
                code,
                idle_node.pos,
                &format!("{apath}.keda.idleReplicaCount"),
                format!(
                    "{label}: KedaIdleBelowMin: keda.idleReplicaCount must be < minReplicas (got idleReplicaCount={idle}, minReplicas={min})"
                ),
            )
            .help("use `minReplicas: 0` alone to scale to zero, or an idleReplicaCount below a minReplicas of at least 1");
        f.push(d);
    }
}

/// The CRD schema's checks of an `autoscalerPolicyRef` (`kind` enum, non-empty `name`).
pub(crate) fn check_policy_ref_schema(
    f: &mut Findings<'_>,
    code: Code,
    reference: &Node,
    path: &str,
    name_required: bool,
) {
    f.enum_field(
        code,
        reference,
        "kind",
        path,
        &["AutoscalerPolicy", "ClusterAutoscalerPolicy"],
    );
    match present(reference, "name") {
        None if name_required => f.required(code, reference.pos, &format!("{path}.name")),
        Some(n) => f.min_length(code, n, &format!("{path}.name"), 1),
        None => {}
    }
}
