//! The component's Deployment (`apps/v1`): selector `{app}`, no `replicas` unless autoscaling
//! is `class: None` (an autoscaler or the cluster owns them otherwise), OME's rolling-update
//! default (SEMANTICS.md, "Objects").

use super::{ComponentNames, app_selector, object_meta_map, rendered};
use crate::map;
use crate::model::InferenceService;
use crate::render::metadata::Meta;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};

pub(crate) fn deployment(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    merged: &Node,
    pod_spec: Node,
    replicas: Option<i64>,
) -> Rendered {
    let mut d = object_meta_map(
        "apps/v1",
        "Deployment",
        names.full,
        isvc,
        Some((meta.labels_node(), meta.annotations_node())),
    );
    let strategy = match merged.get("deploymentStrategy").filter(|s| !s.is_zero()) {
        Some(s) => {
            let mut s = s.clone();
            if let Some(m) = s.as_map_mut()
                && m.get("type")
                    .and_then(Node::as_str)
                    .is_none_or(|t| t == "RollingUpdate")
                && m.get("rollingUpdate").is_none_or(Node::is_zero)
            {
                m.insert("rollingUpdate", rolling_update());
            }
            s
        }
        None => Node::map(map! {
            "type" => Node::str("RollingUpdate"),
            "rollingUpdate" => rolling_update(),
        }),
    };
    let template = map! {
        "metadata" => Node::map(template_metadata(meta)),
        "spec" => pod_spec,
    };
    let mut spec = Map::new();
    if let Some(n) = replicas {
        spec.insert("replicas", Node::int(n));
    }
    spec.insert(
        "selector",
        Node::map(map! { "matchLabels" => app_selector(names.app) }),
    );
    spec.insert("strategy", strategy);
    spec.insert("template", Node::map(template));
    d.insert("spec", Node::map(spec));
    rendered(isvc, d)
}

/// Pod template metadata: labels (with `app` and the queue labels) and annotations only
/// (SEMANTICS.md#choice-template-metadata).
fn template_metadata(meta: &Meta) -> Map {
    let mut m = Map::new();
    if !meta.pod_labels.is_empty() {
        m.insert("labels", meta.pod_labels_node());
    }
    if !meta.annotations.is_empty() {
        m.insert("annotations", meta.annotations_node());
    }
    m
}

fn rolling_update() -> Node {
    Node::map(map! { "maxUnavailable" => Node::int(0), "maxSurge" => Node::int(1) })
}
