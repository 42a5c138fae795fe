//! The Kubernetes objects rendered for an InferenceService, one module per kind: the
//! Deployment, Services, autoscaler, PodDisruptionBudget, LeaderWorkerSet, the
//! `modelconfig-…` ConfigMap, the router's RBAC (SEMANTICS.md, "Objects"), and for traffic
//! the Ingress, HTTPRoutes and BackendTrafficPolicy (SEMANTICS.md#traffic). Each builder is
//! pure: metadata and merged component in, one object out.

pub(crate) mod autoscaler;
pub(crate) mod backend_traffic_policy;
pub(crate) mod config_map;
pub(crate) mod deployment;
pub(crate) mod http_route;
pub(crate) mod ingress;
pub(crate) mod leader_worker_set;
pub(crate) mod pdb;
pub(crate) mod pod_monitor;
pub(crate) mod rbac;
pub(crate) mod scaled_object;
pub(crate) mod service;
pub(crate) mod traffic_policy;

use crate::map;
use crate::model::InferenceService;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};

/// Names shared by the objects of one component.
pub(crate) struct ComponentNames<'a> {
    /// `<isvc>-<component>`: Deployment, HPA and PDB.
    pub(crate) full: &'a str,
    /// The same, truncated to 63: the Service name and the `app` label.
    pub(crate) app: &'a str,
}

pub(crate) fn object_meta_map(
    api_version: &str,
    kind: &str,
    name: &str,
    isvc: &InferenceService,
    meta: Option<(Node, Node)>,
) -> Map {
    let mut metadata = map! { "name" => Node::str(name) };
    if let Some(ns) = &isvc.namespace {
        metadata.insert("namespace", Node::str(ns));
    }
    if let Some((labels, annotations)) = meta {
        if labels.as_map().is_some_and(|m| !m.is_empty()) {
            metadata.insert("labels", labels);
        }
        if annotations.as_map().is_some_and(|m| !m.is_empty()) {
            metadata.insert("annotations", annotations);
        }
    }
    map! {
        "apiVersion" => Node::str(api_version),
        "kind" => Node::str(kind),
        "metadata" => Node::map(metadata),
    }
}

/// An object of `isvc`'s; `render_inference_service` sets its `source` once all are made.
fn rendered(isvc: &InferenceService, node: Map) -> Rendered {
    Rendered::new(Node::map(node), None, isvc.pos)
}

fn app_selector(app: &str) -> Node {
    Node::map(map! { "app" => Node::str(app) })
}
