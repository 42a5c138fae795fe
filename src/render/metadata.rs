//! Labels and annotations of the objects rendered for one component (SEMANTICS.md#objects),
//! with OME v1.3's annotation deny-list.

use crate::model::component::DEPLOYMENT_MODE_ANNOTATION;
use crate::model::{BaseModel, DeploymentMode, InferenceService, Role};
use crate::yaml::{Map, Node};
use std::collections::BTreeMap;

/// InferenceService annotations never copied to rendered objects (v1.3).
const SKIPPED_ANNOTATIONS: &[&str] = &[
    // Knative's scale bounds: v1.3 has no Knative, and strips them from an InferenceService
    // migrated from v1.2 Serverless.
    "autoscaling.knative.dev/max-scale",
    "autoscaling.knative.dev/min-scale",
    "internal.ome.io/storage-initializer-sourceuri",
    "kubectl.kubernetes.io/last-applied-configuration",
    "ome.io/rollout-promote",
    "ome.io/rollout-rollback",
];

/// Whether OME keeps an InferenceService annotation off the objects it creates.
pub(crate) fn is_skipped_annotation(key: &str) -> bool {
    SKIPPED_ANNOTATIONS.contains(&key)
}

/// The bookkeeping annotations of kustomize and kpt (KRM orchestrators): where an item came
/// from (`config.kubernetes.io/path`, `…/index`), its identity in the run
/// (`config.k8s.io/id`, `internal.config.kubernetes.io/id`, `kustomize.config.k8s.io/id`),
/// `config.kubernetes.io/local-config` and `…/function`. They describe the InferenceService's
/// item, not the objects rendered from it: copied onto those, kpt refuses them ("resource at
/// path … and index … already exists") and kustomize would take them for the
/// InferenceService (SEMANTICS.md#choice-bookkeeping-annotations). Prefixes, then exact keys.
const BOOKKEEPING_PREFIXES: &[&str] = &[
    "config.kubernetes.io/",
    "internal.config.kubernetes.io/",
    "kustomize.config.k8s.io/",
];
const BOOKKEEPING_KEYS: &[&str] = &["config.k8s.io/id"];

/// Whether an annotation is an orchestrator's bookkeeping, never copied to rendered objects.
pub(crate) fn is_bookkeeping(key: &str) -> bool {
    BOOKKEEPING_PREFIXES.iter().any(|p| key.starts_with(p)) || BOOKKEEPING_KEYS.contains(&key)
}

/// Dropped after the component's annotations are laid over the InferenceService's.
const DROPPED_ANNOTATION: &str = "internal.ome.io/in-place-image-transition";

/// Annotations that belong on pods only, never on Services: prefixes, then exact keys.
const POD_ONLY_PREFIXES: &[&str] = &[
    "k8s.grafana.com/",
    "loki.grafana.com/",
    "prometheus.io/",
    "networking.gke.io/",
    "rdma.ome.io/",
    "runtime.ome.io/",
];
const POD_ONLY_KEYS: &[&str] = &[
    "ome.io/inject-model-init",
    "ome.io/inject-fine-tuned-adapter",
    "ome.io/inject-serving-sidecar",
];

/// Labels and annotations as sorted string maps.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Meta {
    /// The component's labels, on every object of the component (v1.3: no `app`, no queue
    /// labels).
    pub(crate) labels: BTreeMap<String, String>,
    pub(crate) annotations: BTreeMap<String, String>,
    /// The labels of its pods (a Deployment's template, a LeaderWorkerSet's leader): the
    /// component's, `app`, and the scheduler queue labels.
    pub(crate) pod_labels: BTreeMap<String, String>,
}

impl Meta {
    pub(crate) fn labels_node(&self) -> Node {
        string_map_node(&self.labels)
    }

    pub(crate) fn pod_labels_node(&self) -> Node {
        string_map_node(&self.pod_labels)
    }

    pub(crate) fn annotations_node(&self) -> Node {
        string_map_node(&self.annotations)
    }

    /// The annotations a component Service carries: without the pod-only ones.
    pub(crate) fn service_annotations(&self) -> BTreeMap<String, String> {
        self.annotations
            .iter()
            .filter(|(k, _)| {
                !POD_ONLY_PREFIXES.iter().any(|p| k.starts_with(p))
                    && !POD_ONLY_KEYS.contains(&k.as_str())
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

pub(crate) fn string_map_node(m: &BTreeMap<String, String>) -> Node {
    let mut out = Map::with_capacity(m.len());
    for (k, v) in m {
        // The keys of a BTreeMap are unique.
        out.push_unique(k.as_str(), Node::str(v.clone()));
    }
    Node::map(out)
}

/// String entries of a merged component's `labels` or `annotations`.
fn component_strings(component: &Node, key: &str) -> impl Iterator<Item = (String, String)> {
    component
        .get(key)
        .and_then(Node::as_map)
        .into_iter()
        .flat_map(Map::iter)
        .filter_map(|(k, v)| v.scalar_text().map(|t| (k.to_string(), t)))
}

/// What the metadata of a component's objects is made from.
pub(crate) struct MetaInputs<'a> {
    pub(crate) isvc: &'a InferenceService,
    /// The merged component (its `labels` and `annotations`).
    pub(crate) component: &'a Node,
    pub(crate) role: Role,
    pub(crate) runtime_name: &'a str,
    pub(crate) model: Option<&'a BaseModel>,
    /// The component's resolved deployment mode (SEMANTICS.md, "Objects").
    pub(crate) mode: DeploymentMode,
    /// The `app` label value (the component name truncated to 63).
    pub(crate) app: &'a str,
}

pub(crate) fn component_meta(inputs: &MetaInputs<'_>) -> Meta {
    let isvc = inputs.isvc;
    let mut annotations: BTreeMap<String, String> = isvc
        .annotations
        .iter()
        .filter(|(k, _)| !is_skipped_annotation(k))
        .filter_map(|(k, v)| v.as_str().map(|s| (k.to_string(), s.to_string())))
        .collect();
    annotations.extend(component_strings(inputs.component, "annotations"));
    annotations.remove(DROPPED_ANNOTATION);
    annotations.retain(|k, _| !is_bookkeeping(k));
    if let Some(model) = inputs.model {
        annotations.insert("ome.io/base-model-name".into(), model.name.clone());
        if let Some(vendor) = &model.vendor {
            annotations.insert("ome.io/base-model-vendor".into(), vendor.clone());
        }
        if let Some(format) = &model.format {
            annotations.insert("ome.io/base-model-format".into(), format.name.clone());
            if let Some(version) = &format.version {
                annotations.insert("ome.io/base-model-format-version".into(), version.clone());
            }
        }
    }
    if !inputs.runtime_name.is_empty() {
        annotations.insert(
            "ome.io/serving-runtime".into(),
            inputs.runtime_name.to_string(),
        );
    }
    annotations.insert(
        DEPLOYMENT_MODE_ANNOTATION.into(),
        inputs.mode.as_str().to_string(),
    );

    let mut labels: BTreeMap<String, String> = isvc
        .labels
        .iter()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.to_string(), s.to_string())))
        .collect();
    labels.extend(component_strings(inputs.component, "labels"));
    labels.insert("ome.io/inferenceservice".into(), isvc.name.clone());
    labels.insert("component".into(), inputs.role.as_str().to_string());
    labels.insert("serving-runtime".into(), inputs.runtime_name.to_string());
    labels.insert("fine-tuned-serving".into(), "false".into());
    if let Some(model) = inputs.model {
        labels.insert("base-model-name".into(), model.name.clone());
        labels.insert(
            "base-model-size".into(),
            model.category.clone().unwrap_or_else(|| "SMALL".into()),
        );
        labels.insert("base-model-type".into(), "Serving".into());
        if let Some(vendor) = &model.vendor {
            labels.insert("base-model-vendor".into(), vendor.clone());
        }
    }
    let mut pod_labels = labels.clone();
    pod_labels.insert("app".into(), inputs.app.to_string());
    add_queue_labels(&annotations, &mut pod_labels);
    Meta {
        labels,
        annotations,
        pod_labels,
    }
}

/// Scheduler queue labels OME v1.3 derives from a pod's annotations (`SEMANTICS.md#objects`):
/// `ome.io/volcano-queue`, else `ome.io/dedicated-ai-cluster` (Kueue's labels with
/// `kueue-enabled`).
pub(crate) fn add_queue_labels(
    annotations: &BTreeMap<String, String>,
    labels: &mut BTreeMap<String, String>,
) {
    if let Some(queue) = annotations.get("ome.io/volcano-queue") {
        labels.insert("volcano.sh/queue-name".into(), queue.clone());
    } else if let Some(cluster) = annotations.get("ome.io/dedicated-ai-cluster") {
        if annotations.contains_key("kueue-enabled") {
            labels.insert("kueue.x-k8s.io/queue-name".into(), cluster.clone());
            labels.insert(
                "kueue.x-k8s.io/priority-class".into(),
                "kueue-scheduling-high-priority".into(),
            );
        } else {
            labels.insert("volcano.sh/queue-name".into(), cluster.clone());
        }
    }
}
