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

/// The variables OME v1.3 sets only in OMENative pods, each with what the LeaderWorkerSet
/// controller sets for the same purpose (SEMANTICS.md#objects).
const OMENATIVE_VARIABLES: &[(&str, &str)] = &[
    ("OME_LEADER_ADDRESS", "LWS_LEADER_ADDRESS"),
    ("OME_INSTANCE_POD_RANK", "LWS_WORKER_INDEX"),
    ("OME_INSTANCE_POD_COUNT", "LWS_GROUP_SIZE"),
];

/// The OMENative-only variables `text` references as `$(NAME)` (a `$$(` is an escape).
fn omenative_references(text: &str) -> Vec<(&'static str, &'static str)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'$' && bytes[i + 1] == b'$' {
            i += 2;
            continue;
        }
        if bytes[i] == b'$' && bytes[i + 1] == b'(' {
            let rest = &text[i + 2..];
            if let Some(end) = rest.find(')')
                && let Some(&pair) = OMENATIVE_VARIABLES.iter().find(|(n, _)| *n == &rest[..end])
                && !found.contains(&pair)
            {
                found.push(pair);
            }
        }
        i += 1;
    }
    found
}

/// `$(OME_LEADER_ADDRESS)` and the other OMENative-only variables in a LeaderWorkerSet's pod,
/// where nothing sets them: the literal text would reach the server's arguments. An error
/// for each reference a container's own env does not define, naming the LWS equivalent.
fn omenative_variables(
    c: &Component<'_>,
    template: &str,
    spec: &Node,
    diags: &mut Vec<Diagnostic>,
) {
    for list in ["initContainers", "containers"] {
        let containers = spec.get(list).and_then(Node::as_seq).unwrap_or(&[]);
        for (ci, container) in containers.iter().enumerate() {
            let env = container.get("env").and_then(Node::as_seq).unwrap_or(&[]);
            let defined = |name: &str| env.iter().any(|e| e.str_at(&["name"]) == Some(name));
            let mut texts: Vec<(String, &Node)> = Vec::new();
            for key in ["command", "args"] {
                for (i, n) in container
                    .get(key)
                    .and_then(Node::as_seq)
                    .unwrap_or(&[])
                    .iter()
                    .enumerate()
                {
                    texts.push((format!("{key}[{i}]"), n));
                }
            }
            for (i, e) in env.iter().enumerate() {
                if let Some(v) = e.get("value") {
                    texts.push((format!("env[{i}].value"), v));
                }
            }
            for (field, node) in texts {
                let Some(text) = node.as_str() else { continue };
                for (name, lws) in omenative_references(text) {
                    if defined(name) {
                        continue;
                    }
                    diags.push(
                        Diagnostic::error(
                            Code::LwsVariable,
                            format!(
                                "$({name}) is set only in OMENative pods; in this LeaderWorkerSet's pods nothing sets it, so the container would get the text `$({name})`"
                            ),
                        )
                        .at(node.pos)
                        .object(c.isvc.object.clone())
                        .field(format!(
                            "LeaderWorkerSet spec.leaderWorkerTemplate.{template}.spec.{list}[{ci}].{field}"
                        ))
                        .help(format!(
                            "in a LeaderWorkerSet use $({lws}), which the LeaderWorkerSet controller sets, or render the component as OMENative with OME's controller"
                        )),
                    );
                }
            }
        }
    }
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
    let errors = diags.len();
    for (template, pod) in [
        ("leaderTemplate", &leader_pod),
        ("workerTemplate", &worker_pod),
    ] {
        omenative_variables(c, template, &pod.spec, diags);
    }
    if diags[errors..].iter().any(Diagnostic::is_error) {
        return None;
    }

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
