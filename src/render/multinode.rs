//! A MultiNode component (a leader and workers) as a `leaderworkerset.x-k8s.io/v1`
//! LeaderWorkerSet plus a Service in front of the leaders (`rendering.md` §9, DECISIONS #9).
//!
//! The leader's and the worker's pods are built like any pod, each from its own fields and
//! runner with the component's pod fields folded in (OME v1.3: the leader's or worker's
//! value wins; `volumes` and `imagePullSecrets` merge by name). There is no HPA and no PDB,
//! and no default readiness probe.

use super::objects::object_meta_map;
use super::pod::{POD_FIELDS, Role, build_pod};
use super::{Component, Rendered, names, runner_of};
use crate::diagnostics::{Code, Diagnostic};
use crate::map;
use crate::merge::strategic;
use crate::yaml::{Map, Node};

/// Annotations the worker template leaves out.
const WORKER_DROPPED_ANNOTATIONS: &[&str] = &[
    "prometheus.io/scrape",
    "prometheus.io/port",
    "prometheus.io/path",
];

/// The leader's or worker's pod: the component's pod fields, then its own on top.
fn fold(component: &Node, part: &Node) -> Node {
    let mut out: Map = component
        .as_map()
        .into_iter()
        .flat_map(Map::iter)
        .filter(|(k, _)| POD_FIELDS.contains(k))
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    for (k, v) in part.as_map().into_iter().flat_map(Map::iter) {
        if k == "size" || v.is_null() {
            continue;
        }
        match (k, out.get(k)) {
            ("volumes" | "imagePullSecrets", Some(base)) => {
                let mut ignored = Vec::new();
                let wrap = |n: &Node| Node::map(map! { k => n.clone() });
                let merged = strategic::merge(&wrap(base), &wrap(v), &mut ignored);
                if let Some(list) = merged.get(k) {
                    out.insert(k, list.clone());
                }
            }
            _ => out.insert(k, v.clone()),
        }
    }
    Node::map(out)
}

fn pairing_error(c: &Component<'_>, message: String, at: &Node) -> Diagnostic {
    Diagnostic::error(Code::InvalidInferenceService, message)
        .at(at.pos)
        .object(c.isvc.object.clone())
        .field(c.field.to_string())
}

/// Renders the component; `None` after pushing an error.
pub(super) fn render(
    c: &Component<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Vec<Rendered>, i64)> {
    let role = c.role.as_str();
    let leader = c.merged.get("leader").filter(|n| !n.is_zero());
    let worker = c.merged.get("worker").filter(|n| !n.is_zero());
    let (leader, worker) = match (leader, worker) {
        (Some(l), Some(w)) => (l, w),
        (Some(_), None) => {
            diags.push(pairing_error(c, format!("InvalidLeaderWorkerPairing: {role}.leader is set but {role}.worker is not; multi-pod configurations require both (LeaderRequiresWorker)"), c.raw));
            return None;
        }
        (None, Some(_)) => {
            diags.push(pairing_error(c, format!("InvalidLeaderWorkerPairing: {role}.worker is set but {role}.leader is not; multi-pod configurations require both (WorkerRequiresLeader)"), c.raw));
            return None;
        }
        (None, None) => {
            diags.push(pairing_error(
                c,
                format!("the {role} is MultiNode but has no leader and worker"),
                c.raw,
            ));
            return None;
        }
    };
    let size = match worker.get("size") {
        None => 1,
        Some(n) if n.is_null() => 1,
        Some(n) => match n.as_i64() {
            Some(s) if s > 0 => s,
            _ => {
                diags.push(pairing_error(c, format!("InvalidLeaderWorkerPairing: {role}.worker.size must be a positive integer when set; leave it unset to use the runtime's size or one worker (WorkerSizeMustBePositive)"), n));
                return None;
            }
        },
    };
    let pods_per_replica = 1 + size;
    let leader_template = fold(c.merged, leader);
    let worker_template = fold(c.merged, worker);
    let raw_runner = |part: &str| c.raw.at(&[part, "runner"]).or_else(|| c.raw.get("runner"));

    let mut leader_inputs = c.pod_inputs(
        &leader_template,
        raw_runner("leader"),
        pods_per_replica,
        None,
    );
    leader_inputs.default_probe = false;
    let mut worker_inputs = c.pod_inputs(
        &worker_template,
        raw_runner("worker"),
        pods_per_replica,
        None,
    );
    worker_inputs.default_probe = false;
    let leader_pod = build_pod(&leader_inputs, diags);
    let worker_pod = build_pod(&worker_inputs, diags);
    let (leader_pod, worker_pod) = (leader_pod?, worker_pod?);

    let mut leader_labels = c.meta.labels.clone();
    leader_labels.insert("ray.io/node-type".into(), "head".into());
    let mut worker_annotations = c.meta.annotations.clone();
    worker_annotations.retain(|k, _| !WORKER_DROPPED_ANNOTATIONS.contains(&k.as_str()));
    let template = |labels: &std::collections::BTreeMap<String, String>,
                    annotations: &std::collections::BTreeMap<String, String>,
                    spec: Node| {
        let mut metadata = Map::new();
        metadata.insert("labels", super::metadata::string_map_node(labels));
        if !annotations.is_empty() {
            metadata.insert("annotations", super::metadata::string_map_node(annotations));
        }
        Node::map(map! { "metadata" => Node::map(metadata), "spec" => spec })
    };
    let (min, _) = c.replicas;
    let mut lws = object_meta_map(
        "leaderworkerset.x-k8s.io/v1",
        "LeaderWorkerSet",
        &names::lws_name(c.names.full),
        c.isvc,
        Some((c.meta.labels_node(), c.meta.annotations_node())),
    );
    lws.insert(
        "spec",
        Node::map(map! {
            "replicas" => Node::int(min.max(1)),
            "leaderWorkerTemplate" => Node::map(map! {
                "size" => Node::int(pods_per_replica),
                "restartPolicy" => Node::str("RecreateGroupOnPodRestart"),
                "leaderTemplate" => template(&leader_labels, &c.meta.annotations, leader_pod.spec.clone()),
                "workerTemplate" => template(&c.meta.labels, &worker_annotations, worker_pod.spec),
            }),
            "rolloutStrategy" => Node::map(map! {
                "type" => Node::str("RollingUpdate"),
                "rollingUpdateConfiguration" => Node::map(map! {
                    "maxUnavailable" => Node::int(1),
                    "maxSurge" => Node::int(1),
                }),
            }),
            "startupPolicy" => Node::str("LeaderCreated"),
            "networkConfig" => Node::map(map! { "subdomainPolicy" => Node::str("Shared") }),
        }),
    );
    let (mut service, port) =
        super::objects::service(c.isvc, &c.names, &c.meta, &runner_of(&leader_pod));
    // OME selects `ray.io/node-type: head` alone, which matches every LeaderWorkerSet's
    // leaders in the namespace; the `app` label keeps the Service to this component's.
    if let Some(selector) = service
        .node
        .as_map_mut()
        .and_then(|m| m.get_mut("spec"))
        .and_then(Node::as_map_mut)
        .and_then(|m| m.get_mut("selector"))
        .and_then(Node::as_map_mut)
    {
        selector.insert("ray.io/node-type", Node::str("head"));
    }
    debug_assert!(c.role != Role::Router);
    Some((
        vec![
            Rendered::new(Node::map(lws), Some(c.isvc.object.clone())),
            service,
        ],
        port,
    ))
}
