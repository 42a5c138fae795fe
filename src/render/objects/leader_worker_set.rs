//! The LeaderWorkerSet (`leaderworkerset.x-k8s.io/v1`) of a MultiNode component: one group
//! of a leader and workers per replica (SEMANTICS.md, "Objects").

use super::{ComponentNames, object_meta_map, rendered};
use crate::map;
use crate::model::InferenceService;
use crate::render::metadata::{Meta, add_queue_labels, string_map_node};
use crate::render::names;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};
use std::collections::BTreeMap;

/// The Kueue queue label OME v1.3 keeps off both pod templates: Kueue's LeaderWorkerSet
/// integration reads it from the LeaderWorkerSet itself (SEMANTICS.md#objects).
const KUEUE_QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";

/// Annotations the worker template leaves out.
const WORKER_DROPPED_ANNOTATIONS: &[&str] = &[
    "prometheus.io/scrape",
    "prometheus.io/port",
    "prometheus.io/path",
];

/// A pod template: labels, annotations when there are any, and the pod spec.
fn pod_template(
    labels: &BTreeMap<String, String>,
    annotations: &BTreeMap<String, String>,
    spec: Node,
) -> Node {
    let mut metadata = Map::new();
    metadata.insert("labels", string_map_node(labels));
    if !annotations.is_empty() {
        metadata.insert("annotations", string_map_node(annotations));
    }
    Node::map(map! { "metadata" => Node::map(metadata), "spec" => spec })
}

/// The LeaderWorkerSet of the component: `replicas` groups of
/// `pods_per_replica` pods, the leader's and the workers' pod specs. As OME's LWS reconciler
/// writes it (SEMANTICS.md#objects): the object carries the component's labels; the leader
/// template adds `app`, `ray.io/node-type: head` and the queue labels; the worker template
/// adds only the queue labels and drops the Prometheus annotations; neither template keeps
/// `kueue.x-k8s.io/queue-name`.
pub(crate) fn leader_worker_set(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    replicas: i64,
    pods_per_replica: i64,
    leader_spec: Node,
    worker_spec: Node,
) -> Rendered {
    let mut leader_labels = meta.labels.clone();
    leader_labels.insert("app".into(), names.app.to_string());
    leader_labels.insert("ray.io/node-type".into(), "head".into());
    add_queue_labels(&meta.annotations, &mut leader_labels);
    let mut worker_labels = meta.labels.clone();
    add_queue_labels(&meta.annotations, &mut worker_labels);
    leader_labels.remove(KUEUE_QUEUE_LABEL);
    worker_labels.remove(KUEUE_QUEUE_LABEL);
    let mut worker_annotations = meta.annotations.clone();
    worker_annotations.retain(|k, _| !WORKER_DROPPED_ANNOTATIONS.contains(&k.as_str()));
    let mut lws = object_meta_map(
        "leaderworkerset.x-k8s.io/v1",
        "LeaderWorkerSet",
        &names::lws_name(names.full),
        isvc,
        Some((meta.labels_node(), meta.annotations_node())),
    );
    lws.insert(
        "spec",
        Node::map(map! {
            "replicas" => Node::int(replicas),
            "leaderWorkerTemplate" => Node::map(map! {
                "size" => Node::int(pods_per_replica),
                "restartPolicy" => Node::str("RecreateGroupOnPodRestart"),
                "leaderTemplate" => pod_template(&leader_labels, &meta.annotations, leader_spec),
                "workerTemplate" => pod_template(&worker_labels, &worker_annotations, worker_spec),
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
    rendered(isvc, lws)
}
