//! Services: the component Service `<isvc>-<component>` (ports from the runner) and the
//! external Service `<isvc>` in front of the router or engine (SEMANTICS.md, "Objects").

use super::{ComponentNames, app_selector, object_meta_map, rendered};
use crate::map;
use crate::model::{InferenceService, Role};
use crate::render::metadata::{Meta, is_bookkeeping, string_map_node};
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};
use std::collections::BTreeMap;

/// The Service type from `ome.io/service-type`; `ClusterIP` (the default) is left out.
fn service_type(annotations: &BTreeMap<String, String>, spec: &mut Map) {
    if let Some(t @ ("LoadBalancer" | "NodePort")) =
        annotations.get("ome.io/service-type").map(String::as_str)
    {
        spec.insert("type", Node::str(t));
        if t == "LoadBalancer"
            && let Some(ip) = annotations.get("ome.io/load-balancer-ip")
        {
            spec.insert("loadBalancerIP", Node::str(ip));
        }
    }
}

/// The component Service, with its ports from the runner container
/// (SEMANTICS.md#choice-service-ports).
/// Returns the Service and its first port.
pub(crate) fn service(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    runner: &Node,
) -> (Rendered, i64) {
    let annotations = meta.service_annotations();
    let mut s = object_meta_map(
        "v1",
        "Service",
        names.app,
        isvc,
        Some((meta.labels_node(), string_map_node(&annotations))),
    );
    let mut ports = Vec::new();
    for p in runner.get("ports").and_then(Node::as_seq).unwrap_or(&[]) {
        let Some(port) = p.get("containerPort").and_then(Node::as_i64) else {
            continue;
        };
        let mut sp = Map::new();
        if let Some(name) = p
            .get("name")
            .and_then(Node::as_str)
            .filter(|n| !n.is_empty())
        {
            sp.insert("name", Node::str(name));
        }
        sp.insert("port", Node::int(port));
        sp.insert("targetPort", Node::int(port));
        let protocol = p
            .get("protocol")
            .and_then(Node::as_str)
            .filter(|p| !p.is_empty())
            .unwrap_or("TCP");
        sp.insert("protocol", Node::str(protocol));
        ports.push(Node::map(sp));
    }
    if ports.is_empty() {
        let name = runner
            .str_at(&["name"])
            .unwrap_or(crate::render::pod::DEFAULT_RUNNER_NAME);
        ports.push(Node::map(map! {
            "name" => Node::str(name),
            "port" => Node::int(8080),
            "targetPort" => Node::int(8080),
            "protocol" => Node::str("TCP"),
        }));
    }
    let first_port = ports[0].get("port").and_then(Node::as_i64).unwrap_or(8080);
    let mut spec = map! {
        "selector" => app_selector(names.app),
        "ports" => Node::seq(ports),
    };
    service_type(&meta.annotations, &mut spec);
    s.insert("spec", Node::map(spec));
    (rendered(isvc, s), first_port)
}

/// The Service `<isvc>` in front of the router, else the engine. It carries only the
/// InferenceService's load-balancer annotations, never an orchestrator's bookkeeping
/// (SEMANTICS.md#choice-bookkeeping-annotations).
pub(crate) fn external_service(isvc: &InferenceService, target: Role, port: i64) -> Rendered {
    let labels = map! {
        "component" => Node::str("external-service"),
        "ome.io/inferenceservice" => Node::str(&isvc.name),
    };
    let annotations: BTreeMap<String, String> = isvc
        .annotations
        .iter()
        .filter(|(k, _)| {
            [
                "service.beta.kubernetes.io/",
                "cloud.google.com/",
                "service.kubernetes.io/",
            ]
            .iter()
            .any(|p| k.starts_with(p))
                && !is_bookkeeping(k)
        })
        .filter_map(|(k, v)| v.as_str().map(|s| (k.to_string(), s.to_string())))
        .collect();
    let mut s = object_meta_map(
        "v1",
        "Service",
        &isvc.name,
        isvc,
        Some((Node::map(labels), string_map_node(&annotations))),
    );
    let mut spec = map! {
        "selector" => Node::map(map! {
            "component" => Node::str(target.as_str()),
            "ome.io/inferenceservice" => Node::str(&isvc.name),
        }),
        "ports" => Node::seq(vec![Node::map(map! {
            "name" => Node::str("http"),
            "port" => Node::int(port),
            "targetPort" => Node::int(port),
            "protocol" => Node::str("TCP"),
        })]),
    };
    let all: BTreeMap<String, String> = isvc
        .annotations
        .iter()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.to_string(), s.to_string())))
        .collect();
    service_type(&all, &mut spec);
    s.insert("spec", Node::map(spec));
    rendered(isvc, s)
}
