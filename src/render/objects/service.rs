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
/// `ome.io/load-balancer-ip` applies to component Services only: v1.3's external Service
/// never sets `loadBalancerIP` (SEMANTICS.md#service-app-protocols).
fn service_type(annotations: &BTreeMap<String, String>, spec: &mut Map, load_balancer_ip: bool) {
    if let Some(t @ ("LoadBalancer" | "NodePort")) =
        annotations.get("ome.io/service-type").map(String::as_str)
    {
        spec.insert("type", Node::str(t));
        if load_balancer_ip
            && t == "LoadBalancer"
            && let Some(ip) = annotations.get("ome.io/load-balancer-ip")
        {
            spec.insert("loadBalancerIP", Node::str(ip));
        }
    }
}

/// A component's `servicePortAppProtocols`: the runtime's map with the InferenceService's
/// merged over it key by key. An InferenceService's `""` (or `null`) is a value of its own
/// that leaves the port unset, which the generic merge would skip as an omitted field
/// (SEMANTICS.md#service-app-protocols).
pub(crate) fn app_protocols(runtime_config: Option<&Node>, raw: &Node) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for source in [runtime_config, Some(raw)].into_iter().flatten() {
        for (port, value) in source
            .get("servicePortAppProtocols")
            .and_then(Node::as_map)
            .into_iter()
            .flat_map(Map::iter)
        {
            out.insert(port.to_string(), value.as_str().unwrap_or("").to_string());
        }
    }
    out.retain(|_, v| !v.is_empty());
    out
}

/// The component Service, with its ports from the runner container
/// (SEMANTICS.md#choice-service-ports) and their `appProtocol` from the merged component's
/// `servicePortAppProtocols` ([`app_protocols`]).
/// Returns the Service and its first port.
pub(crate) fn service(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    app_protocols: &BTreeMap<String, String>,
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
        let name = p
            .get("name")
            .and_then(Node::as_str)
            .filter(|n| !n.is_empty());
        if let Some(name) = name {
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
        if let Some(app) = name.and_then(|n| app_protocols.get(n)) {
            sp.insert("appProtocol", Node::str(app));
        }
        ports.push(Node::map(sp));
    }
    if ports.is_empty() {
        let name = runner
            .str_at(&["name"])
            .unwrap_or(crate::render::pod::DEFAULT_RUNNER_NAME);
        let mut sp = map! {
            "name" => Node::str(name),
            "port" => Node::int(8080),
            "targetPort" => Node::int(8080),
            "protocol" => Node::str("TCP"),
        };
        if let Some(app) = app_protocols.get(name) {
            sp.insert("appProtocol", Node::str(app));
        }
        ports.push(Node::map(sp));
    }
    let first_port = ports[0].get("port").and_then(Node::as_i64).unwrap_or(8080);
    let mut spec = map! {
        "selector" => app_selector(names.app),
        "ports" => Node::seq(ports),
    };
    service_type(&meta.annotations, &mut spec, true);
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
    service_type(&all, &mut spec, false);
    s.insert("spec", Node::map(spec));
    rendered(isvc, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn node(yaml: &str) -> Node {
        parse_stream(yaml, 0).unwrap().remove(0).root
    }

    /// set-service-app-protocols.md: the runtime's map is the base, the InferenceService's
    /// wins key by key, `""` unsets a port the runtime marks, other runtime keys still apply.
    #[test]
    fn runtime_map_is_the_base_and_empty_unsets() {
        let runtime = node(
            "servicePortAppProtocols: {grpc1: kubernetes.io/h2c, metrics: http, ws: kubernetes.io/ws}",
        );
        let isvc = node(
            "servicePortAppProtocols: {metrics: '', ws: null, grpc1: kubernetes.io/h2c, http: x}",
        );
        let got = app_protocols(Some(&runtime), &isvc);
        let want: BTreeMap<String, String> = [("grpc1", "kubernetes.io/h2c"), ("http", "x")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into();
        assert_eq!(got, want);
        assert_eq!(app_protocols(None, &node("{}")), BTreeMap::new());
    }
}
