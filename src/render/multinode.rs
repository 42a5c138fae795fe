//! A MultiNode component (a leader and workers) as a `leaderworkerset.x-k8s.io/v1`
//! LeaderWorkerSet plus a Service in front of the leaders (SEMANTICS.md, "Pods", "Objects").
//!
//! The leader's and the worker's pods are built like any pod, each from its own fields and
//! runner with the component's pod fields folded in (OME v1.3: the leader's or worker's
//! value wins; `volumes` and `imagePullSecrets` merge by name). There is no HPA and no PDB,
//! and no default readiness probe.

use super::objects::{leader_worker_set, service};
use super::pod::build_pod;
use super::{Component, runner_of};
use crate::diagnostics::{Code, Diagnostic};
use crate::map;
use crate::merge::strategic;
use crate::model::Role;
use crate::model::schema::POD_FIELDS;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};

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

/// The label the LeaderWorkerSet controller puts on each pod: its index in the group, `0` for
/// the leader.
const LEADER_SELECTOR_KEY: &str = "leaderworkerset.sigs.k8s.io/worker-index";

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
    // A part counts when the merged component has one, or the InferenceService declares it
    // (`leader: {}` is a declaration).
    let empty = Node::map(Map::new());
    let part = |key: &str| {
        c.merged
            .get(key)
            .filter(|n| !n.is_zero())
            .or_else(|| c.raw.get(key).filter(|n| !n.is_null()).map(|_| &empty))
    };
    let (leader, worker) = (part("leader"), part("worker"));
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
    let before = diags.len();
    let leader_pod = build_pod(&leader_inputs, diags);
    // A problem the leader and the worker share (both inherit the component's runner) is
    // reported once.
    let mut worker_diags = Vec::new();
    let worker_pod = build_pod(&worker_inputs, &mut worker_diags);
    let leaders: std::collections::HashSet<_> = diags[before..]
        .iter()
        .map(|l| (l.code, l.message.clone(), l.pos, l.field.clone()))
        .collect();
    diags.extend(
        worker_diags
            .into_iter()
            .filter(|d| !leaders.contains(&(d.code, d.message.clone(), d.pos, d.field.clone()))),
    );
    let (leader_pod, worker_pod) = (leader_pod?, worker_pod?);

    let (mut service, port) = service::service(
        c.isvc,
        &c.names,
        &c.meta,
        &c.app_protocols(),
        &runner_of(&leader_pod),
    );
    // OME v1.3 selects `leaderworkerset.sigs.k8s.io/worker-index: "0"` alone, which matches
    // every LeaderWorkerSet's leaders in the namespace; the `app` label (on the leaders only)
    // keeps the Service to this component's (SEMANTICS.md#choice-multinode).
    if let Some(selector) = service
        .tree_mut()
        .and_then(Node::as_map_mut)
        .and_then(|m| m.get_mut("spec"))
        .and_then(Node::as_map_mut)
        .and_then(|m| m.get_mut("selector"))
        .and_then(Node::as_map_mut)
    {
        selector.insert(LEADER_SELECTOR_KEY, Node::str("0"));
    }
    // OME's PodMonitor for MultiNode scrapes the leader's pod (SEMANTICS.md#monitoring).
    let monitor = super::monitoring::pod_monitor(c, &leader_pod.spec, diags);
    // OME's LWS takes the merged, defaulted minReplicas as it is (1 when unset).
    let replicas = c.bounds.min.unwrap_or(1);
    let lws = leader_worker_set::leader_worker_set(
        c.isvc,
        &c.names,
        &c.meta,
        replicas,
        pods_per_replica,
        leader_pod.spec,
        worker_pod.spec,
    );
    debug_assert!(c.role != Role::Router);
    let mut out = vec![lws, service];
    out.extend(monitor);
    Some((out, port))
}
