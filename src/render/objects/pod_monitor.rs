//! The component's PodMonitor (`monitoring.coreos.com/v1`), as OME v1.3's PodMonitor
//! reconciler writes it for RawDeployment and MultiNode components (SEMANTICS.md#monitoring).

use super::{ComponentNames, object_meta_map, rendered};
use crate::map;
use crate::model::InferenceService;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};
use std::collections::BTreeMap;

pub(crate) const API_VERSION: &str = "monitoring.coreos.com/v1";
pub(crate) const KIND: &str = "PodMonitor";
/// The annotation that adds scrape endpoints: `portName:/path`, comma-separated.
pub(crate) const EXTRA_ENDPOINTS: &str = "prometheus.ome.io/extra-endpoints";
/// OME's scrape interval, on every endpoint.
const INTERVAL: &str = "10s";

/// The port OME scrapes: the pod's first container's port named `metrics`, else that
/// container's first port when it is named, else `http`.
pub(crate) fn metrics_port(pod_spec: &Node) -> &str {
    let ports: &[Node] = pod_spec
        .get("containers")
        .and_then(Node::as_seq)
        .and_then(|c| c.first())
        .and_then(|c| c.get("ports"))
        .and_then(Node::as_seq)
        .unwrap_or(&[]);
    fn name(p: &Node) -> &str {
        p.get("name").and_then(Node::as_str).unwrap_or("")
    }
    if ports.iter().any(|p| name(p) == "metrics") {
        return "metrics";
    }
    ports
        .first()
        .map(name)
        .filter(|n| !n.is_empty())
        .unwrap_or("http")
}

/// The endpoints of `prometheus.ome.io/extra-endpoints`, and the entries OME skips (no `:`,
/// no port name, a path not starting with `/`), as OME v1.3 reads them: split on commas,
/// each entry and each side of its first `:` trimmed, empty entries ignored.
pub(crate) fn extra_endpoints(value: &str) -> (Vec<(&str, &str)>, Vec<&str>) {
    let (mut good, mut bad) = (Vec::new(), Vec::new());
    for entry in value.trim().split(',').map(str::trim) {
        if entry.is_empty() {
            continue;
        }
        match entry.split_once(':').map(|(n, p)| (n.trim(), p.trim())) {
            Some((name, path)) if !name.is_empty() && path.starts_with('/') => {
                good.push((name, path));
            }
            _ => bad.push(entry),
        }
    }
    (good, bad)
}

fn endpoint(port: &str, path: &str) -> Node {
    Node::map(map! {
        "port" => Node::str(port),
        "path" => Node::str(path),
        "interval" => Node::str(INTERVAL),
    })
}

/// The PodMonitor `<isvc>-<component>`: labelled and selecting `app: <component Service
/// name>`, scraping `/metrics` on [`metrics_port`] of `pod_spec` (the pod as OME's
/// controller builds it, the leader's for MultiNode), then the annotation's endpoints.
/// Without a namespace, the namespace selector is left out: a PodMonitor selects pods of
/// its own namespace then, which is what OME's `matchNames: [<namespace>]` says
/// (SEMANTICS.md#monitoring).
pub(crate) fn pod_monitor(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    annotations: &BTreeMap<String, String>,
    pod_spec: &Node,
) -> Rendered {
    let app = || Node::map(map! { "app" => Node::str(names.app) });
    let mut m = object_meta_map(
        API_VERSION,
        KIND,
        names.full,
        isvc,
        Some((app(), Node::map(Map::new()))),
    );
    let mut endpoints = vec![endpoint(metrics_port(pod_spec), "/metrics")];
    if let Some(value) = annotations.get(EXTRA_ENDPOINTS) {
        endpoints.extend(
            extra_endpoints(value)
                .0
                .into_iter()
                .map(|(port, path)| endpoint(port, path)),
        );
    }
    let mut spec = Map::new();
    if let Some(ns) = &isvc.namespace {
        spec.insert(
            "namespaceSelector",
            Node::map(map! { "matchNames" => Node::seq(vec![Node::str(ns)]) }),
        );
    }
    spec.insert("selector", Node::map(map! { "matchLabels" => app() }));
    spec.insert("podMetricsEndpoints", Node::seq(endpoints));
    m.insert("spec", Node::map(spec));
    rendered(isvc, m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn node(yaml: &str) -> Node {
        parse_stream(yaml, 0).unwrap().remove(0).root
    }

    /// OME's `metricsPortName`: `metrics` anywhere among the first container's ports wins,
    /// else its first port's name, else `http` (an unnamed first port, no ports, no
    /// containers); only the first container counts.
    #[test]
    fn the_scraped_port() {
        let cases = [
            (
                "containers: [{ports: [{name: http1}, {name: metrics}]}]",
                "metrics",
            ),
            ("containers: [{ports: [{name: grpc1}, {name: x}]}]", "grpc1"),
            (
                "containers: [{ports: [{containerPort: 80}, {name: x}]}]",
                "http",
            ),
            ("containers: [{name: a}]", "http"),
            (
                "containers: [{name: a}, {ports: [{name: metrics}]}]",
                "http",
            ),
            ("{}", "http"),
        ];
        for (spec, want) in cases {
            assert_eq!(metrics_port(&node(spec)), want, "{spec}");
        }
    }

    /// extra_endpoints.go: `portName:/path` entries, split on the first `:`, trimmed;
    /// malformed ones skipped, empty ones ignored.
    #[test]
    fn extra_endpoints_as_ome_reads_them() {
        let (good, bad) =
            extra_endpoints(" http:/engine_metrics , ,bad, :/x,metrics:nopath,a : /b:c ");
        assert_eq!(good, [("http", "/engine_metrics"), ("a", "/b:c")]);
        assert_eq!(bad, ["bad", ":/x", "metrics:nopath"]);
        assert_eq!(extra_endpoints("  "), (vec![], vec![]));
    }

    /// Written without a namespace, the PodMonitor has no namespace selector (it then
    /// selects pods of its own namespace, as OME's `matchNames: [<namespace>]` does).
    #[test]
    fn without_a_namespace_no_namespace_selector() {
        let names = ComponentNames {
            full: "a-engine",
            app: "a-engine",
        };
        let spec = node("containers: [{ports: [{name: http1}]}]");
        for (text, selector) in [
            ("{metadata: {name: a}, spec: {}}", false),
            ("{metadata: {name: a, namespace: n}, spec: {}}", true),
        ] {
            let isvc = crate::select::testutil::isvc(text);
            let pm = pod_monitor(&isvc, &names, &BTreeMap::new(), &spec);
            let tree = pm.tree().expect("a tree");
            assert_eq!(
                tree.at(&["spec", "namespaceSelector"]).is_some(),
                selector,
                "{text}"
            );
            let first = &tree
                .at(&["spec", "podMetricsEndpoints"])
                .and_then(Node::as_seq)
                .expect("endpoints")[0];
            assert_eq!(first.str_at(&["port"]), Some("http1"));
        }
    }
}
