//! OME v1.3's admission of an InferenceService as written (SEMANTICS.md#admission): the CRD
//! schema, then the validating webhook's rules, each run in the webhook's order by the table of
//! `rules`. Every failing rule is
//! reported with OME's message; the webhook reports only the first. The rules that look up
//! other objects (the model, the runtime) run in `select::resolve`.

use super::autoscaler::{
    self, AUTOSCALER_CLASS_ANNOTATION, KEDA_EXAMPLE, METRICS_ANNOTATION,
    TARGET_UTILIZATION_ANNOTATION,
};
use super::names::NameRule;
use super::rollout::{NAME_FORMAT, valid_name};
use super::{Findings, IntOrStr, admission_mode, pod, present};
use crate::diagnostics::Code;
use crate::go;
use crate::model::Role;
use crate::model::component::DEPLOYMENT_MODE_ANNOTATION;
use crate::model::inference_service::overlay_env_name;
use crate::model::int_or_str::valid_budget;
use crate::yaml::{Map, Node, Value};
use std::collections::{HashMap, HashSet};

/// Webhook rejections.
const CODE: Code = Code::InvalidInferenceService;
/// API-server (CRD schema) rejections.
const SCHEMA: Code = Code::InvalidField;

const MIGRATION_REQUEST_PREFIX: &str = "ome.io/migration-request-v1-";

/// The InferenceService's declared components (`{}` counts; null does not), in OME's order.
fn components(spec: &Node) -> impl Iterator<Item = (Role, &Node)> {
    Role::ALL.into_iter().filter_map(move |role| {
        present(spec, role.as_str())
            .filter(|c| c.as_map().is_some())
            .map(|c| (role, c))
    })
}

/// ISVC-09: each component's own `autoscaler` block.
pub(super) fn autoscaler_blocks(f: &mut Findings<'_>, spec: &Node) {
    for (role, c) in components(spec) {
        autoscaler::check_block(f, CODE, role.as_str(), c, &format!("spec.{role}"), false);
    }
}

/// The accelerator selection policies of the CRD (CRD-10).
const ACCELERATOR_POLICIES: &[&str] = &["BestFit", "Cheapest", "MostCapable", "FirstAvailable"];

/// The CRD schema's checks of the fields ome-render reads (the API server runs them before
/// any webhook).
pub(super) fn schema(f: &mut Findings<'_>, spec: &Node) {
    if let Some(mode) = spec.get("deploymentMode")
        && mode.as_str() == Some("MultiNode")
    {
        // v1.2.2's mode; v1.3's schema refuses it.
        let d = f
            .error(
                SCHEMA,
                mode.pos,
                "spec.deploymentMode",
                "spec.deploymentMode: Unsupported value: \"MultiNode\": supported values: \"OMENative\", \"RawDeployment\"",
            )
            .help("v1.3 removed MultiNode as a service-wide mode: put `ome.io/deploymentMode: MultiNode` in the component's annotations (deprecated), or use OMENative");
        f.push(d);
    } else {
        f.enum_field(
            SCHEMA,
            spec,
            "deploymentMode",
            "spec",
            &["OMENative", "RawDeployment"],
        );
    }
    for (role, c) in components(spec) {
        for key in ["minReplicas", "maxReplicas"] {
            f.replica_count(c, key, &format!("spec.{role}"));
        }
        int_or_string(f, c, &format!("spec.{role}"));
        if let Some(w) = present(c, "worker") {
            f.replica_count(w, "size", &format!("spec.{role}.worker"));
        }
        pod::check_component(f, c, &format!("spec.{role}"));
    }
    if let Some(selector) = present(spec, "acceleratorSelector") {
        f.enum_field(
            SCHEMA,
            selector,
            "policy",
            "spec.acceleratorSelector",
            ACCELERATOR_POLICIES,
        );
    }
    for key in ["model", "runtime"] {
        if let Some(r) = present(spec, key).filter(|r| r.as_map().is_some())
            && r.get("name").is_none()
        {
            f.required(SCHEMA, r.pos, &format!("spec.{key}.name"));
        }
    }
    if let Some(policy) = present(spec, "scalingPolicy") {
        scaling_policy_schema(f, policy, "spec.scalingPolicy");
    }
    if let Some(ttl) = present(spec, "ttlSecondsAfterCreation") {
        f.minimum(SCHEMA, ttl, "spec.ttlSecondsAfterCreation", 1);
        // OME's controller deletes the InferenceService once the TTL has passed; a GitOps
        // tool then creates it again, and the two go on (SEMANTICS.md#choice-ttl).
        let d = f
            .warning(
                Code::TtlDelete,
                ttl.pos,
                "spec.ttlSecondsAfterCreation",
                "spec.ttlSecondsAfterCreation: OME's controller deletes the InferenceService once this many seconds have passed since its creation, and a GitOps tool syncing it creates it again, so it is deleted and recreated for as long as it stays in Git",
            )
            .help("remove spec.ttlSecondsAfterCreation from an InferenceService kept in Git, or delete the InferenceService from Git when it should expire");
        f.push(d);
    }
    for (role, c) in components(spec) {
        let path = format!("spec.{role}");
        if let Some(r) = present(c, "autoscalerPolicyRef") {
            autoscaler::check_policy_ref_schema(
                f,
                SCHEMA,
                r,
                &format!("{path}.autoscalerPolicyRef"),
                false,
            );
        }
        if role != Role::Router {
            f.enum_field(
                SCHEMA,
                c,
                "topologySpread",
                &path,
                &["Preferred", "Required"],
            );
            if let Some(o) = present(c, "acceleratorOverride") {
                f.enum_field(
                    SCHEMA,
                    o,
                    "policy",
                    &format!("{path}.acceleratorOverride"),
                    ACCELERATOR_POLICIES,
                );
            }
        }
        if let Some(lc) = present(c, "lifecycle") {
            let lp = format!("{path}.lifecycle");
            f.enum_field(SCHEMA, lc, "readyPolicy", &lp, &["AllPodReady", "None"]);
            f.enum_field(
                SCHEMA,
                lc,
                "restartPolicy",
                &lp,
                &["None", "RecreateInstanceOnPodRestart"],
            );
            if let Some(us) = present(lc, "updateStrategy") {
                let up = format!("{lp}.updateStrategy");
                for (parent, key) in [
                    ("rollingUpdate", "partition"),
                    ("inPlaceUpdateStrategy", "gracePeriodSeconds"),
                ] {
                    if let Some(n) = us.at(&[parent, key]) {
                        f.minimum(SCHEMA, n, &format!("{up}.{parent}.{key}"), 0);
                    }
                }
                f.enum_field(
                    SCHEMA,
                    us,
                    "type",
                    &format!("{lp}.updateStrategy"),
                    &[
                        "SurgeThenDrain",
                        "RecreatePod",
                        "InPlaceIfPossible",
                        "InPlaceOnly",
                    ],
                );
            }
            if let Some(mp) = present(lc, "migrationPolicy") {
                f.enum_field(
                    SCHEMA,
                    mp,
                    "mode",
                    &format!("{lp}.migrationPolicy"),
                    &["Auto", "Surge", "Never"],
                );
            }
            if let Some(n) = present(lc, "minReadySeconds") {
                f.minimum(SCHEMA, n, &format!("{lp}.minReadySeconds"), 0);
            }
        }
    }
}

/// The CRD schema of the disruption budgets: `x-kubernetes-int-or-string` (CRD-08).
pub(crate) fn int_or_string(f: &mut Findings<'_>, component: &Node, path: &str) {
    for key in ["minAvailable", "maxUnavailable"] {
        if let Some(n) = present(component, key)
            && IntOrStr::of(n).is_none()
        {
            f.wrong_type(
                n,
                &format!("{path}.{key}"),
                "integer,string",
                "write a number of pods, such as 1, or a percentage, such as \"50%\"",
            );
        }
    }
}

/// The CRD schema of a `scalingPolicy` (InferenceService and runtime alike).
pub(crate) fn scaling_policy_schema(f: &mut Findings<'_>, policy: &Node, path: &str) {
    f.enum_field(
        SCHEMA,
        policy,
        "mode",
        path,
        &["Independent", "Proportional", "Pinned"],
    );
    if let Some(p) = present(policy, "proportional") {
        f.enum_field(
            SCHEMA,
            p,
            "anchor",
            &format!("{path}.proportional"),
            &["engine", "decoder", "router"],
        );
    }
}

/// ISVC-02 / RT-03: the modes OME accepts but does not implement.
pub(crate) fn scaling_policy(f: &mut Findings<'_>, code: Code, spec: &Node, path: &str) {
    let Some(mode) = present(spec, "scalingPolicy").and_then(|p| present(p, "mode")) else {
        return;
    };
    if let Some(m @ ("Proportional" | "Pinned")) = mode.as_str() {
        let d = f
            .error(
                code,
                mode.pos,
                &format!("{path}.mode"),
                format!(
                    "{path}.mode \"{m}\" is accepted by the API but not implemented: no controller applies it, so the policy would silently behave like \"Independent\"; use \"Independent\" or omit the policy (ScalingModeNotImplemented)"
                ),
            )
            .help("use `mode: Independent`, or remove scalingPolicy");
        f.push(d);
    }
}

/// ISVC-01: v1.2's `scaleTarget` and `scaleMetric` on a component.
pub(super) fn legacy_fields(f: &mut Findings<'_>, spec: &Node) {
    for key in [
        "engine",
        "decoder",
        "router",
        "engineConfig",
        "decoderConfig",
        "routerConfig",
    ] {
        let Some(c) = present(spec, key) else {
            continue;
        };
        for (field, replacement) in [
            (
                "scaleTarget",
                "hpa.metrics[0].resource.target.averageUtilization",
            ),
            ("scaleMetric", "hpa.metrics[0].resource.name"),
        ] {
            if let Some(n) = present(c, field) {
                let d = f
                    .error(
                        CODE,
                        n.pos,
                        &format!("spec.{key}.{field}"),
                        format!(
                            "LegacyAutoscalerFieldsRejected: spec.{key}.{field} is no longer supported. Use spec.{key}.autoscaler.{replacement} instead."
                        ),
                    )
                    .help("v1.3 removed it; write an autoscaler block: `autoscaler: {class: HPA, hpa: {metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]}}`");
                f.push(d);
                // OME names the first of the two per component.
                break;
            }
        }
    }
}

/// ISVC-03: migration requests (`ome.io/migration-request-v1-<uuid>`) in the annotations.
pub(super) fn migration_requests(f: &mut Findings<'_>, annotations: &Map, spec: &Node) {
    for (key, node) in annotations.iter() {
        let Some(uuid) = key.strip_prefix(MIGRATION_REQUEST_PREFIX) else {
            continue;
        };
        // A key ending in `-` is refused by the API server itself, before OME's webhook could
        // say "annotation key carries no request UUID" (`names::check_object` reports it).
        if uuid.is_empty() {
            continue;
        }
        let field = format!("metadata.annotations.{key}");
        let message = {
            match go::json::parse(node.as_str().unwrap_or(""), 0).map(|root| root.value) {
                // OME reads the value with `json.Unmarshal`, whose syntax errors these are.
                Err(e) => Some(format!(
                    "migration request {uuid}: parse migration request: {}",
                    e.message
                )),
                Ok(Value::Map(members)) => {
                    let get =
                        |k: &str| members.iter().find(|(m, _)| *m == k).map(|(_, v)| &v.value);
                    let component = match get("component") {
                        Some(Value::Str(s)) => s.as_str(),
                        _ => "",
                    };
                    let declared = match component {
                        "engine" => true,
                        "decoder" | "router" => present(spec, component).is_some(),
                        _ => false,
                    };
                    let instance = match get("instance") {
                        Some(Value::Int(n)) => Some(*n),
                        _ => None,
                    };
                    let schema = match get("schemaVersion") {
                        Some(Value::Str(s)) => Some(s.as_str()),
                        _ => None,
                    };
                    if schema != Some("v1") {
                        // OME's parser refuses any other schema; its exact text is not
                        // known, only the reason (SEMANTICS.md#admission).
                        Some(format!(
                            "migration request {uuid}: unsupported schemaVersion {} (UnsupportedSchemaVersion)",
                            go::quote(schema.unwrap_or(""))
                        ))
                    } else if !declared {
                        Some(format!(
                            "migration request {uuid}: component {} does not exist on this InferenceService",
                            go::quote(component)
                        ))
                    } else {
                        instance.filter(|i| *i < 0).map(|i| {
                            format!("migration request {uuid}: instance must be >= 0, got {i}")
                        })
                    }
                }
                Ok(_) => Some(format!(
                    "migration request {uuid}: the value must be a JSON object"
                )),
            }
        };
        if let Some(message) = message {
            let d = f
                .error(CODE, node.pos, &field, message)
                .help("migration requests move OMENative Instances; `kubectl ome migration start` writes them");
            f.push(d);
        }
    }
}

/// The InferenceService's mode as OME's webhook infers it for ISVC-04: the metadata
/// annotation, else `spec.deploymentMode`, else the shape (an engine and a decoder are
/// PDDisaggregated; a declared leader and worker, OMENative).
fn isvc_mode<'n>(annotations: &'n Map, spec: &'n Node) -> &'n str {
    if let Some(m) = annotations
        .get(DEPLOYMENT_MODE_ANNOTATION)
        .and_then(Node::as_str)
        .filter(|m| !m.is_empty())
    {
        return m;
    }
    if let Some(m) = spec.str_at(&["deploymentMode"]) {
        return m;
    }
    if present(spec, "engine").is_some() && present(spec, "decoder").is_some() {
        return "PDDisaggregated";
    }
    let multi_pod = ["engine", "decoder"]
        .iter()
        .any(|k| present(spec, k).is_some_and(multi_pod));
    if multi_pod { "OMENative" } else { "" }
}

/// A declared leader and worker whose size is unset or positive.
fn multi_pod(component: &Node) -> bool {
    present(component, "leader").is_some()
        && present(component, "worker")
            .is_some_and(|w| present(w, "size").is_none_or(|s| s.as_i64().is_some_and(|s| s > 0)))
}

/// ISVC-04: `readyPolicy: None` on a multi-pod OMENative component.
pub(super) fn ready_policy_none(f: &mut Findings<'_>, annotations: &Map, spec: &Node) {
    let mode = isvc_mode(annotations, spec);
    for role in [Role::Engine, Role::Decoder] {
        let Some(c) = present(spec, role.as_str()) else {
            continue;
        };
        let Some(policy) = c.at(&["lifecycle", "readyPolicy"]) else {
            continue;
        };
        if policy.as_str() != Some("None") || !multi_pod(c) {
            continue;
        }
        let own = c
            .str_at(&["annotations", DEPLOYMENT_MODE_ANNOTATION])
            .filter(|m| !m.is_empty());
        if own.unwrap_or(mode) != "OMENative" {
            continue;
        }
        let d = f
            .error(
                CODE,
                policy.pos,
                &format!("spec.{role}.lifecycle.readyPolicy"),
                format!(
                    "{role}.lifecycle.readyPolicy \"None\" is not allowed on a multi-pod OMENative component: per-pod readiness reporting is not yet supported; set readyPolicy to \"AllPodReady\" or remove the field"
                ),
            )
            .help("remove readyPolicy, or set it to AllPodReady");
        f.push(d);
    }
}

/// ISVC-07: OME's own name format (stricter than the API server's).
pub(super) fn name(f: &mut Findings<'_>, root: &Node, name: &str) {
    // The API server's own rule comes first (CRD-19, `names::check_object`, which reports
    // it and stops the run); OME's is stricter.
    if !NameRule::Subdomain.allows(name) || valid_name(name) {
        return;
    }
    let pos = root.at(&["metadata", "name"]).map_or(f.fallback, |n| n.pos);
    let d = f
        .error(
            CODE,
            pos,
            "metadata.name",
            format!(
                "invalid InferenceService name {}, must match {}",
                go::quote(name),
                go::quote(NAME_FORMAT)
            ),
        )
        .help(
            "use lowercase letters, digits and '-', starting with a letter and not ending with '-'",
        );
    f.push(d);
}

/// ISVC-08: the legacy `ome.io/autoscalerClass` annotation, and `ome.io/metrics` with `hpa`.
pub(super) fn legacy_annotations(f: &mut Findings<'_>, annotations: &Map) {
    let Some(class) = annotations.get(AUTOSCALER_CLASS_ANNOTATION) else {
        return;
    };
    let value = class.as_str().unwrap_or("");
    match value {
        "hpa" => {
            if let Some(metric) = annotations.get(METRICS_ANNOTATION)
                && let Some(m) = metric.as_str()
                && m != "cpu"
                && m != "memory"
            {
                let d = f
                    .error(
                        CODE,
                        metric.pos,
                        &format!("metadata.annotations.{METRICS_ANNOTATION}"),
                        format!("[{m}] is not a supported metric"),
                    )
                    .help("OME never applies ome.io/metrics; remove it, or set hpa.metrics in an autoscaler block");
                f.push(d);
            }
        }
        "keda" | "external" => {}
        other => {
            let d = f
                .error(
                    CODE,
                    class.pos,
                    &format!("metadata.annotations.{AUTOSCALER_CLASS_ANNOTATION}"),
                    format!("[{other}] is not a supported autoscaler class type"),
                )
                .help("use hpa, keda or external, or better an autoscaler block on the component");
            f.push(d);
        }
    }
}

/// ISVC-10: the legacy class annotation together with an `autoscaler` block.
pub(super) fn annotation_conflict(f: &mut Findings<'_>, annotations: &Map, spec: &Node) {
    let Some(class) = annotations.get(AUTOSCALER_CLASS_ANNOTATION) else {
        return;
    };
    let Some((role, block)) =
        components(spec).find_map(|(role, c)| present(c, "autoscaler").map(|b| (role, b)))
    else {
        return;
    };
    let d = f
        .error(
            CODE,
            class.pos,
            &format!("metadata.annotations.{AUTOSCALER_CLASS_ANNOTATION}"),
            format!(
                "AutoscalerAnnotationConflict: {AUTOSCALER_CLASS_ANNOTATION} annotation is present together with spec.{role}.autoscaler; remove the annotation — per-Component autoscaler block wins"
            ),
        )
        .related(block.pos, "the autoscaler block")
        .help("remove the ome.io/autoscalerClass annotation");
    f.push(d);
}

/// ISVC-11: `autoscalerPolicyRef`, rejected while the AutoscalerPolicy feature is off (the
/// chart's default; ome-render renders for such a cluster).
pub(super) fn policy_refs(f: &mut Findings<'_>, spec: &Node) {
    for (role, c) in components(spec) {
        let Some(r) = present(c, "autoscalerPolicyRef") else {
            continue;
        };
        let name = r.str_at(&["name"]).unwrap_or("");
        let d = f
            .error(
                CODE,
                r.pos,
                &format!("spec.{role}.autoscalerPolicyRef"),
                format!(
                    "AutoscalerPolicyFeatureDisabled: spec.{role}.autoscalerPolicyRef references {} but the AutoscalerPolicy feature is not enabled on this cluster; remove the ref or enable the feature",
                    go::quote(name)
                ),
            )
            .help("write the autoscaler inline in `autoscaler` (AutoscalerPolicy is alpha, off by default, and not rendered offline)");
        f.push(d);
    }
}

/// ISVC-13: `ome.io/targetUtilizationPercentage` on the InferenceService.
pub(super) fn target_utilization(f: &mut Findings<'_>, annotations: &Map) {
    let Some(n) = annotations.get(TARGET_UTILIZATION_ANNOTATION) else {
        return;
    };
    let ok = n
        .as_str()
        .and_then(|v| go::atoi(v).ok())
        .is_some_and(|t| (1..=100).contains(&t));
    if !ok {
        let d = f
            .error(
                CODE,
                n.pos,
                &format!("metadata.annotations.{TARGET_UTILIZATION_ANNOTATION}"),
                "the target utilization percentage should be a [1-100] integer",
            )
            .help("write a whole number from \"1\" to \"100\"");
        f.push(d);
    }
}

/// ISVC-14.
pub(super) fn decoder_without_engine(f: &mut Findings<'_>, spec: &Node) {
    if let Some(d) = present(spec, "decoder")
        && present(spec, "engine").is_none()
    {
        let d = f
            .error(
                CODE,
                d.pos,
                "spec.decoder",
                "decoder cannot be specified without engine",
            )
            .help("add spec.engine");
        f.push(d);
    }
}

/// ISVC-15: leader and worker as the InferenceService writes them (`{}` counts).
pub(super) fn leader_worker_pairing(f: &mut Findings<'_>, spec: &Node) {
    for role in [Role::Engine, Role::Decoder] {
        let Some(c) = present(spec, role.as_str()) else {
            continue;
        };
        let (leader, worker) = (present(c, "leader"), present(c, "worker"));
        let message = match (leader, worker) {
            (Some(l), None) => Some((l, format!("InvalidLeaderWorkerPairing: {role}.leader is set but {role}.worker is not; multi-pod configurations require both (LeaderRequiresWorker)"), "leader")),
            (None, Some(w)) => Some((w, format!("InvalidLeaderWorkerPairing: {role}.worker is set but {role}.leader is not; multi-pod configurations require both (WorkerRequiresLeader)"), "worker")),
            (Some(_), Some(w)) => present(w, "size")
                .filter(|s| s.as_i64().is_some_and(|s| s <= 0))
                .map(|s| (s, format!("InvalidLeaderWorkerPairing: {role}.worker.size must be a positive integer when set; leave it unset to use the runtime's size or one worker (WorkerSizeMustBePositive)"), "worker.size")),
            (None, None) => None,
        };
        if let Some((node, message, part)) = message {
            let d = f
                .error(CODE, node.pos, &format!("spec.{role}.{part}"), message)
                .help("declare both `leader` and `worker` in the InferenceService (a runtime's leader or worker does not count), with a worker.size of 1 or more when set");
            f.push(d);
        }
    }
}

/// Whether `spec.<key>` names something (`name` present and not empty).
fn named(spec: &Node, key: &str) -> bool {
    spec.str_at(&[key, "name"]).is_some_and(|n| !n.is_empty())
}

/// ISVC-17: a multi-pod component with neither model nor runtime needs both runner images.
pub(super) fn lean_multi_pod(f: &mut Findings<'_>, spec: &Node) {
    if named(spec, "model") || named(spec, "runtime") {
        return;
    }
    for role in [Role::Engine, Role::Decoder] {
        let Some(c) = present(spec, role.as_str()) else {
            continue;
        };
        if present(c, "leader").is_none() || present(c, "worker").is_none() {
            continue;
        }
        let image = |part: &str| c.str_at(&[part, "runner", "image"]).unwrap_or("");
        let (l, w) = (image("leader"), image("worker"));
        if l.is_empty() || w.is_empty() {
            let d = f
                .error(
                    CODE,
                    c.pos,
                    &format!("spec.{role}"),
                    format!(
                        "MultiPodLeanModelNeedsRunner: {role} is multi-pod with no spec.model and no spec.runtime, but {role}.leader.runner.image ({}) or {role}.worker.runner.image ({}) is empty; multi-pod lean specs must declare both runner images",
                        go::quote(l),
                        go::quote(w)
                    ),
                )
                .help("set leader.runner.image and worker.runner.image, or name a runtime");
            f.push(d);
        }
    }
}

/// ISVC-18: engine and decoder modes must agree when either is OMENative.
pub(super) fn mode_combination(f: &mut Findings<'_>, spec: &Node) {
    let (Some(engine), Some(decoder)) = (present(spec, "engine"), present(spec, "decoder")) else {
        return;
    };
    let spec_mode = spec.str_at(&["deploymentMode"]);
    let (e, d) = (
        admission_mode(engine, spec_mode),
        admission_mode(decoder, spec_mode),
    );
    if (e == "OMENative" || d == "OMENative") && e != d {
        let diag = f
            .error(
                CODE,
                decoder.pos,
                "spec.decoder",
                format!(
                    "InvalidDeploymentModeCombination: engine deploymentMode={} does not match decoder deploymentMode={}; when either is OMENative, both must use the same value",
                    go::quote(e),
                    go::quote(d)
                ),
            )
            .related(engine.pos, "the engine")
            .help("give the engine and the decoder the same ome.io/deploymentMode");
        f.push(diag);
    }
}

/// ISVC-19: `minReplicas: 0` needs KEDA, opted into by the InferenceService itself.
pub(super) fn scale_to_zero(f: &mut Findings<'_>, annotations: &Map, spec: &Node) {
    let legacy_keda = annotations
        .get(AUTOSCALER_CLASS_ANNOTATION)
        .and_then(Node::as_str)
        == Some("keda");
    for (role, c) in components(spec) {
        let Some(min) = present(c, "minReplicas").filter(|m| m.as_i64() == Some(0)) else {
            continue;
        };
        if legacy_keda || c.str_at(&["autoscaler", "class"]) == Some("KEDA") {
            continue;
        }
        let block = KEDA_EXAMPLE.replace(
            "component=\\\"engine\\\"",
            &format!("component=\\\"{role}\\\""),
        );
        let indented: String = block
            .lines()
            .map(|l| format!("    {l}"))
            .collect::<Vec<_>>()
            .join("\n");
        let d = f
            .error(
                CODE,
                min.pos,
                &format!("spec.{role}.minReplicas"),
                format!(
                    "InvalidScaleToZero: {role}.minReplicas=0 requires KEDA autoscaling (set spec.{role}.autoscaler.class=KEDA or the ome.io/autoscalerClass=keda annotation); Serverless mode no longer auto-promotes scale-to-zero"
                ),
            )
            .help(format!(
                "to scale the {role} to zero, give it a KEDA autoscaler with a trigger (KEDA must run in the cluster):\n  {role}:\n    minReplicas: 0\n{indented}\nor set minReplicas to 1 or more"
            ));
        f.push(d);
    }
}

/// ISVC-20: the bounds the InferenceService itself sets (`maxReplicas: 0` is unset).
pub(super) fn replica_bounds(f: &mut Findings<'_>, spec: &Node) {
    for (role, c) in components(spec) {
        let min_node = present(c, "minReplicas");
        let max_node = present(c, "maxReplicas").filter(|m| m.as_i64() != Some(0));
        let min = min_node.and_then(Node::as_i64);
        let max = max_node.and_then(Node::as_i64);
        let reject = |f: &mut Findings<'_>, node: &Node, field: &str, message: String| {
            let d = f
                .error(CODE, node.pos, &format!("spec.{role}.{field}"), message)
                .help("set minReplicas to 0 or more, maxReplicas to 1 or more, and minReplicas no higher than maxReplicas");
            f.push(d);
        };
        if let (Some(n), Some(v)) = (min_node, min)
            && v < 0
        {
            reject(
                f,
                n,
                "minReplicas",
                format!("spec.{role}.minReplicas must be >= 0"),
            );
        }
        if let (Some(n), Some(v)) = (max_node, max)
            && v < 1
        {
            reject(
                f,
                n,
                "maxReplicas",
                format!("spec.{role}.maxReplicas must be >= 1"),
            );
        }
        if let (Some(n), Some(lo), Some(hi)) = (min_node, min, max)
            && lo > hi
        {
            reject(
                f,
                n,
                "minReplicas",
                format!("spec.{role}.minReplicas ({lo}) must be <= maxReplicas ({hi})"),
            );
        }
    }
}

/// ISVC-21: the InferenceService's own `minAvailable` and `maxUnavailable`.
pub(super) fn disruption_budgets(f: &mut Findings<'_>, spec: &Node) {
    for (role, c) in components(spec) {
        let path = format!("spec.{role}");
        let (min, max) = (present(c, "minAvailable"), present(c, "maxUnavailable"));
        if let (Some(a), Some(b)) = (min, max) {
            let d = f
                .error(
                    CODE,
                    a.pos,
                    &format!("{path}.minAvailable"),
                    format!("{path}.minAvailable and {path}.maxUnavailable cannot both be set"),
                )
                .related(b.pos, "maxUnavailable is set here")
                .help("keep one of the two");
            f.push(d);
        }
        for (key, node) in [("minAvailable", min), ("maxUnavailable", max)] {
            // A value of the wrong type is the schema's error (reported by `schema`).
            let Some(value) = node.and_then(IntOrStr::of) else {
                continue;
            };
            if valid_budget(value) {
                continue;
            }
            let node = node.unwrap_or(c);
            let d = f
                .error(
                    CODE,
                    node.pos,
                    &format!("{path}.{key}"),
                    format!("{path}.{key} must be a non-negative integer or a percentage from 0% to 100%"),
                )
                .help("write a number of pods, such as 1, or a percentage, such as \"50%\"");
            f.push(d);
        }
    }
}

/// ISVC-31: the component's `lifecycle` rolling-update budgets.
pub(super) fn lifecycle(f: &mut Findings<'_>, spec: &Node) {
    for (role, c) in components(spec) {
        let Some(ru) = c.at(&["lifecycle", "updateStrategy", "rollingUpdate"]) else {
            continue;
        };
        let base = format!("spec.{role}.lifecycle.updateStrategy.rollingUpdate");
        for key in ["maxUnavailable", "maxSurge"] {
            let Some(node) = present(ru, key) else {
                continue;
            };
            let path = format!("{base}.{key}");
            let message = match IntOrStr::of(node) {
                Some(IntOrStr::Int(i)) if i < 0 => Some(format!(
                    "{path}={i} must be >= 0 (InvalidRollingUpdateInteger)"
                )),
                Some(IntOrStr::Str(s)) => match s.strip_suffix('%') {
                    None => Some(format!(
                        "{path}={} must be an integer count or a percent string like \"25%\" (InvalidRollingUpdatePercent)",
                        go::quote(s)
                    )),
                    Some(n) => match go::atoi(n) {
                        Err(_) => Some(format!(
                            "{path}={} has a malformed percent value (InvalidRollingUpdatePercent)",
                            go::quote(s)
                        )),
                        Ok(p) if !(0..=100).contains(&p) => Some(format!(
                            "{path}={} percent must be between 0% and 100% (InvalidRollingUpdatePercent)",
                            go::quote(s)
                        )),
                        Ok(_) => None,
                    },
                },
                _ => None,
            };
            if let Some(message) = message {
                let d = f.error(CODE, node.pos, &path, message).help(
                    "write a number of instances, such as 1, or a percentage, such as \"25%\"",
                );
                f.push(d);
            }
        }
        let zero = |key: &str| {
            present(ru, key)
                .and_then(IntOrStr::of)
                .is_some_and(|v| match v {
                    IntOrStr::Int(i) => i == 0,
                    IntOrStr::Str(s) => {
                        s.strip_suffix('%').and_then(|n| go::atoi(n).ok()) == Some(0)
                    }
                })
        };
        if zero("maxSurge") && zero("maxUnavailable") {
            let d = f
                .error(
                    CODE,
                    ru.pos,
                    &base,
                    format!(
                        "{base}: maxSurge=0 and maxUnavailable=0 together yield an unstartable rollout (RollingUpdateZeroBudget)"
                    ),
                )
                .help("let one of maxSurge and maxUnavailable be above zero");
            f.push(d);
        }
    }
}

/// The `ome.io/deploymentMode` OME's defaulter writes on an InferenceService that has none
/// (DEF-03), before its validator runs: PDDisaggregated for an engine and a decoder,
/// OMENative for an engine with a leader and a sized worker, else the chart's default,
/// RawDeployment.
fn stamped_mode(spec: &Node) -> &'static str {
    let Some(engine) = present(spec, "engine") else {
        return "RawDeployment";
    };
    let sized = present(engine, "worker")
        .and_then(|w| w.get("size"))
        .and_then(Node::as_i64)
        .is_some_and(|n| n > 0);
    if present(spec, "decoder").is_some() {
        "PDDisaggregated"
    } else if present(engine, "leader").is_some() && sized {
        "OMENative"
    } else {
        "RawDeployment"
    }
}

/// ISVC-32 (a warning): `deploymentStrategy` outside RawDeployment. The validator reads the
/// metadata annotation, which the defaulter has written when it was missing (so
/// `spec.deploymentMode` counts only beside an empty annotation).
pub(super) fn deployment_strategy(f: &mut Findings<'_>, annotations: &Map, spec: &Node) {
    let mode = match annotations.get(DEPLOYMENT_MODE_ANNOTATION) {
        Some(written) => written
            .as_str()
            .filter(|m| !m.is_empty())
            .or_else(|| spec.str_at(&["deploymentMode"]))
            .unwrap_or(""),
        None => stamped_mode(spec),
    };
    if mode.is_empty() || mode == "RawDeployment" {
        return;
    }
    for (role, c) in components(spec) {
        if let Some(s) = present(c, "deploymentStrategy") {
            let d = f.warning(
                Code::AdmissionWarning,
                s.pos,
                &format!("spec.{role}.deploymentStrategy"),
                format!(
                    "{role}.deploymentStrategy is set but deploymentMode is {}; deploymentStrategy applies only to RawDeployment and is ignored here — use {role}.lifecycle.updateStrategy.rollingUpdate for rollout pacing",
                    go::quote(mode)
                ),
            )
            .help("OME admits this with a warning: move the pacing to lifecycle.updateStrategy.rollingUpdate, or remove deploymentStrategy");
            f.push(d);
        }
    }
}

/// ISVC-33: a model or a runtime (a name, not empty), unless replicas are referenced.
pub(super) fn model_or_runtime(f: &mut Findings<'_>, spec: &Node) {
    let referenced = spec
        .at(&["replicaRefs", "engine"])
        .and_then(Node::as_seq)
        .is_some_and(|s| !s.is_empty());
    if named(spec, "model") || named(spec, "runtime") || referenced {
        return;
    }
    let d = f
        .error(
            CODE,
            f.fallback,
            "spec",
            "at least one of spec.model or spec.runtime must be set",
        )
        .help("name the base model in spec.model.name, or the runtime in spec.runtime.name");
    f.push(d);
}

/// Fine-tuned weights: admitted by OME, not rendered by ome-render yet
/// (SEMANTICS.md#choice-not-rendered).
pub(super) fn model_not_rendered(f: &mut Findings<'_>, spec: &Node) {
    for (key, what) in [("fineTunedWeights", "fine-tuned weights")] {
        if let Some(n) = spec.at(&["model", key]).filter(|n| !n.is_zero()) {
            let d = f
                .error(
                    Code::UnsupportedMode,
                    n.pos,
                    &format!("spec.model.{key}"),
                    format!("{what} (spec.model.{key}) are not rendered by ome-render yet"),
                )
                .help("render this InferenceService with OME's controller, or leave it out of the paths");
            f.push(d);
        }
    }
}

/// ISVC-36: the structure of `spec.model.overlays`.
pub(super) fn overlays(f: &mut Findings<'_>, spec: &Node) {
    let Some(items) = spec.at(&["model", "overlays"]).and_then(Node::as_seq) else {
        return;
    };
    let primary = spec.str_at(&["model", "name"]).unwrap_or("");
    let mut seen: HashSet<&str> = HashSet::new();
    let mut envs: HashMap<String, &str> = HashMap::new();
    for (i, o) in items.iter().enumerate() {
        let name = o.str_at(&["name"]).unwrap_or("");
        let message = if name.is_empty() {
            Some("overlay name cannot be empty".to_string())
        } else if name == primary {
            Some(format!(
                "overlay {} must not reference the primary model of the same kind/apiGroup",
                go::quote(name)
            ))
        } else if seen.contains(&name) {
            Some(format!(
                "overlay {} is declared more than once",
                go::quote(name)
            ))
        } else {
            let env = overlay_env_name(name);
            let clash = envs.get(&env).copied();
            seen.insert(name);
            envs.entry(env.clone()).or_insert(name);
            clash.map(|prev| {
                format!(
                    "overlays {} and {} both sanitize to env var {env}; rename one (hyphens and underscores collapse to the same form)",
                    go::quote(prev),
                    go::quote(name)
                )
            })
        };
        if let Some(message) = message {
            let d = f
                .error(CODE, o.pos, &format!("spec.model.overlays[{i}]"), message)
                .help("give each overlay the name of a model other than spec.model, once, with names that stay distinct when '-' and '_' are the same");
            f.push(d);
        }
    }
}
