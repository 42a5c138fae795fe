//! The Gateway API HTTPRoutes (`gateway.networking.k8s.io/v1`) OME v1.3 creates with
//! `enableGatewayAPI` (SEMANTICS.md#traffic): `<isvc>-engine`, `<isvc>-router` and
//! `<isvc>-decoder` for the components the service declares, and `<isvc>`, the top-level
//! route, to the router or else the engine.
//!
//! Each route has one rule: a `PathPrefix` match, the `OMe-Isvc-Name` and
//! `OME-Isvc-Namespace` request headers, a rewrite of the prefix to `/`, the component
//! Service's first port as backend and a request timeout. By default every route shares
//! the host `<sharedHostPrefix>.<domain>` and has the prefix `/<namespace>/<route name>/`;
//! with `perISVCSubdomain` the host is the service's own (`domainTemplate`), the prefix `/`
//! and there is no rewrite. Each route attaches to the primary gateway and every additional
//! one, with one hostname per gateway.

use super::{object_meta_map, rendered};
use crate::diagnostics::{Code, Diagnostic};
use crate::map;
use crate::model::settings::{GatewaySpec, IngressConfig};
use crate::model::{InferenceService, Role};
use crate::render::metadata::{is_bookkeeping, is_skipped_annotation};
use crate::render::traffic::{backend, domain_name, namespace_of};
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};
use std::collections::HashMap;

pub(crate) const API_VERSION: &str = "gateway.networking.k8s.io/v1";
const NAME_HEADER: &str = "OMe-Isvc-Name";
const NAMESPACE_HEADER: &str = "OME-Isvc-Namespace";
/// The label OME keeps off its routes (its `RevisionTemplateLabelDisallowedList`).
const VISIBILITY_LABEL: &str = "networking.knative.dev/visibility";

/// OME's fallback ports, used only for a component whose Service is not rendered.
fn default_port(role: Role) -> i64 {
    match role {
        Role::Router => 30080,
        Role::Engine | Role::Decoder => 30000,
    }
}

/// The gateways a route attaches to: the primary one, then the additional ones; a
/// namespace's entry in `namespaceIngressGateways` replaces them unless the service's own
/// annotation names its gateway.
fn gateways(isvc: &InferenceService, config: &IngressConfig) -> Vec<GatewaySpec> {
    let mut primary = GatewaySpec {
        gateway: config.ome_ingress_gateway.clone(),
        domain: config.ingress_domain.clone(),
        class: config.ome_ingress_gateway_class.clone(),
    };
    let mut additional = config.additional_ingress_gateways.clone();
    if let Some(ns) = config.namespace_ingress_gateways.get(namespace_of(isvc)) {
        if !isvc.annotations.contains_key("ome.io/ingress-gateway")
            && !ns.primary.gateway.is_empty()
        {
            primary = ns.primary.clone();
        }
        if !isvc
            .annotations
            .contains_key("ome.io/ingress-additional-gateways")
            && let Some(a) = &ns.additional
        {
            additional = a.clone();
        }
    }
    let mut out = vec![primary];
    out.extend(additional);
    out
}

/// The `timeoutSeconds` of the service's own component.
fn component_timeout(isvc: &InferenceService, role: Role) -> Option<i64> {
    isvc.component(role)
        .and_then(|c| c.get("timeoutSeconds"))
        .and_then(Node::as_i64)
}

/// The request timeout of a route to `role`: the component's own, else the settings'
/// (a negative one is none).
fn timeout(isvc: &InferenceService, config: &IngressConfig, role: Role) -> Option<String> {
    component_timeout(isvc, role)
        .or(config.default_route_timeout_seconds.filter(|s| *s >= 0))
        .map(|s| format!("{s}s"))
}

/// Every HTTPRoute of `isvc`, or none with an error pushed.
pub(crate) fn routes(
    isvc: &InferenceService,
    config: &IngressConfig,
    ports: &HashMap<Role, i64>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Rendered> {
    let gateways = gateways(isvc, config);
    if let Some(g) = gateways.iter().find(|g| g.gateway.is_empty()) {
        let what = if g == &gateways[0] {
            "omeIngressGateway"
        } else {
            "an additional gateway's omeIngressGateway"
        };
        diags.push(
            Diagnostic::error(
                Code::Settings,
                format!("enableGatewayAPI needs a Gateway: {what} is empty, so OME's HTTPRoutes would have a parentRef without a name and the API server refuses them"),
            )
            .at(isvc.pos)
            .object(isvc.object.clone())
            .field("ingress.omeIngressGateway")
            .help("set ingress.omeIngressGateway to the Gateway's namespace/name, or the annotation ome.io/ingress-gateway on the InferenceService"),
        );
        return Vec::new();
    }
    let mut hosts = Vec::with_capacity(gateways.len());
    for g in &gateways {
        let host = if config.per_isvc_subdomain {
            let mut c = config.clone();
            c.ingress_domain = g.domain.clone();
            match domain_name(&isvc.name, isvc, &c) {
                Ok(h) => h,
                Err(d) => {
                    diags.push(d);
                    return Vec::new();
                }
            }
        } else if config.shared_host_prefix.is_empty() {
            g.domain.clone()
        } else {
            format!("{}.{}", config.shared_host_prefix, g.domain)
        };
        hosts.push(Node::str(host));
    }
    let parent_refs: Vec<Node> = gateways
        .iter()
        .map(|g| {
            let parts: Vec<&str> = g.gateway.split('/').collect();
            Node::map(map! {
                "group" => Node::str("gateway.networking.k8s.io"),
                "kind" => Node::str("Gateway"),
                "namespace" => Node::str(parts[0]),
                "name" => Node::str(parts[parts.len() - 1]),
            })
        })
        .collect();
    let route = |name: &str, role: Role| {
        let b = backend(isvc, role, ports, default_port(role));
        let prefix = if config.per_isvc_subdomain {
            "/".to_string()
        } else {
            format!("/{}/{name}/", namespace_of(isvc))
        };
        let mut filters = vec![Node::map(map! {
            "type" => Node::str("RequestHeaderModifier"),
            "requestHeaderModifier" => Node::map(map! {
                "set" => Node::seq(vec![
                    Node::map(map! { "name" => Node::str(NAME_HEADER), "value" => Node::str(&isvc.name) }),
                    Node::map(map! { "name" => Node::str(NAMESPACE_HEADER), "value" => Node::str(namespace_of(isvc)) }),
                ]),
            }),
        })];
        if !config.per_isvc_subdomain {
            filters.push(Node::map(map! {
                "type" => Node::str("URLRewrite"),
                "urlRewrite" => Node::map(map! {
                    "path" => Node::map(map! {
                        "type" => Node::str("ReplacePrefixMatch"),
                        "replacePrefixMatch" => Node::str("/"),
                    }),
                }),
            }));
        }
        let mut rule = map! {
            "matches" => Node::seq(vec![Node::map(map! {
                "path" => Node::map(map! {
                    "type" => Node::str("PathPrefix"),
                    "value" => Node::str(prefix),
                }),
            })]),
            "filters" => Node::seq(filters),
            "backendRefs" => Node::seq(vec![Node::map(map! {
                "kind" => Node::str("Service"),
                "name" => Node::str(&b.service),
                "namespace" => Node::str(namespace_of(isvc)),
                "port" => Node::int(b.port),
            })]),
        };
        if let Some(t) = timeout(isvc, config, role) {
            rule.insert("timeouts", Node::map(map! { "request" => Node::str(t) }));
        }
        let mut o = object_meta_map(API_VERSION, "HTTPRoute", name, isvc, Some(meta(isvc)));
        o.insert(
            "spec",
            Node::map(map! {
                "parentRefs" => Node::seq(parent_refs.clone()),
                "hostnames" => Node::seq(hosts.clone()),
                "rules" => Node::seq(vec![Node::map(rule)]),
            }),
        );
        rendered(isvc, o)
    };
    let own = |role: Role| component_service_name_of(isvc, role);
    let mut out = vec![route(&own(Role::Engine), Role::Engine)];
    if isvc.router.is_some() {
        out.push(route(&own(Role::Router), Role::Router));
    }
    if isvc.decoder.is_some() {
        out.push(route(&own(Role::Decoder), Role::Decoder));
    }
    let top = if isvc.router.is_some() {
        Role::Router
    } else {
        Role::Engine
    };
    out.push(route(&isvc.name, top));
    out
}

fn component_service_name_of(isvc: &InferenceService, role: Role) -> String {
    crate::render::names::component_service_name(&isvc.name, role.as_str())
}

/// The routes' labels and annotations: the InferenceService's, without the ones OME keeps
/// off the objects it creates.
fn meta(isvc: &InferenceService) -> (Node, Node) {
    let strings = |m: &Map, keep: &dyn Fn(&str) -> bool| {
        let mut out = Map::new();
        for (k, v) in m.iter() {
            if keep(k)
                && let Some(s) = v.as_str()
            {
                out.insert(k, Node::str(s));
            }
        }
        Node::map(out)
    };
    (
        strings(&isvc.labels, &|k| k != VISIBILITY_LABEL),
        strings(&isvc.annotations, &|k| {
            !is_skipped_annotation(k) && !is_bookkeeping(k)
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::isvc;
    use crate::yaml::emit::to_json_string;

    fn config() -> IngressConfig {
        let mut c = IngressConfig {
            disable_ingress_creation: false,
            enable_gateway_api: true,
            ome_ingress_gateway: "envoy-gateway-system/ome-gateway".into(),
            ingress_domain: "example.com".into(),
            ..IngressConfig::default()
        };
        c.default_route_timeout_seconds = Some(0);
        c
    }

    fn render(text: &str, c: &IngressConfig) -> Vec<Rendered> {
        let s = isvc(text);
        let ports = HashMap::from([
            (Role::Engine, 8000),
            (Role::Router, 8080),
            (Role::Decoder, 8000),
        ]);
        let mut diags = Vec::new();
        let out = routes(&s, c, &ports, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        out
    }

    #[test]
    fn a_prefill_decode_service_with_a_router_gets_four_routes() {
        let out = render(
            "{metadata: {name: chat, namespace: demo}, spec: {engine: {}, decoder: {timeoutSeconds: 600}, router: {}}}",
            &config(),
        );
        let names: Vec<&str> = out.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            ["chat-engine", "chat-router", "chat-decoder", "chat"]
        );
        let top = out[3].tree().unwrap();
        assert_eq!(
            to_json_string(top.at(&["spec"]).unwrap()),
            r#"{"parentRefs":[{"group":"gateway.networking.k8s.io","kind":"Gateway","namespace":"envoy-gateway-system","name":"ome-gateway"}],"hostnames":["llm.example.com"],"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/demo/chat/"}}],"filters":[{"type":"RequestHeaderModifier","requestHeaderModifier":{"set":[{"name":"OMe-Isvc-Name","value":"chat"},{"name":"OME-Isvc-Namespace","value":"demo"}]}},{"type":"URLRewrite","urlRewrite":{"path":{"type":"ReplacePrefixMatch","replacePrefixMatch":"/"}}}],"backendRefs":[{"kind":"Service","name":"chat-router","namespace":"demo","port":8080}],"timeouts":{"request":"0s"}}]}"#
        );
        let decoder = out[2].tree().unwrap();
        let rule = &decoder
            .at(&["spec", "rules"])
            .and_then(Node::as_seq)
            .unwrap()[0];
        assert_eq!(rule.str_at(&["timeouts", "request"]), Some("600s"));
        assert_eq!(
            rule.at(&["matches"]).and_then(Node::as_seq).unwrap()[0].str_at(&["path", "value"]),
            Some("/demo/chat-decoder/")
        );
    }

    #[test]
    fn without_a_router_the_top_route_goes_to_the_engine_and_null_drops_the_timeout() {
        let mut c = config();
        c.default_route_timeout_seconds = None;
        let out = render(
            "{metadata: {name: chat}, spec: {engine: {timeoutSeconds: 30}}}",
            &c,
        );
        assert_eq!(out.len(), 2);
        let top = out[1].tree().unwrap();
        let rule = &top.at(&["spec", "rules"]).and_then(Node::as_seq).unwrap()[0];
        assert_eq!(
            rule.at(&["backendRefs"]).and_then(Node::as_seq).unwrap()[0].str_at(&["name"]),
            Some("chat-engine")
        );
        assert_eq!(rule.str_at(&["timeouts", "request"]), Some("30s"));
        let engine = out[0].tree().unwrap();
        let rule = &engine
            .at(&["spec", "rules"])
            .and_then(Node::as_seq)
            .unwrap()[0];
        assert_eq!(rule.str_at(&["timeouts", "request"]), Some("30s"));
        let s = isvc("{metadata: {name: chat}, spec: {engine: {}}}");
        assert_eq!(timeout(&s, &c, Role::Engine), None);
    }

    #[test]
    fn per_service_subdomains_use_the_domain_template_and_the_root_path() {
        let out = render(
            "{metadata: {name: chat, namespace: demo, annotations: {ome.io/ingress-per-isvc-subdomain: 'true'}}, spec: {engine: {}}}",
            &config().resolve(&isvc("{metadata: {name: x, annotations: {ome.io/ingress-per-isvc-subdomain: 'true'}}}").annotations),
        );
        let top = out[1].tree().unwrap();
        assert_eq!(
            to_json_string(top.at(&["spec", "hostnames"]).unwrap()),
            r#"["chat.demo.example.com"]"#
        );
        let rule = &top.at(&["spec", "rules"]).and_then(Node::as_seq).unwrap()[0];
        assert_eq!(
            rule.at(&["matches"]).and_then(Node::as_seq).unwrap()[0].str_at(&["path", "value"]),
            Some("/")
        );
        assert_eq!(
            rule.at(&["filters"]).and_then(Node::as_seq).unwrap().len(),
            1
        );
    }

    #[test]
    fn additional_and_namespace_gateways_add_parents_and_hosts() {
        let mut c = config();
        c.additional_ingress_gateways = vec![GatewaySpec {
            gateway: "envoy/external".into(),
            domain: "ext.example.com".into(),
            class: String::new(),
        }];
        c.shared_host_prefix = String::new();
        let out = render(
            "{metadata: {name: chat, namespace: demo}, spec: {engine: {}}}",
            &c,
        );
        let spec = out[0].tree().unwrap().at(&["spec"]).unwrap();
        assert_eq!(
            to_json_string(spec.at(&["hostnames"]).unwrap()),
            r#"["example.com","ext.example.com"]"#
        );
        assert_eq!(
            spec.at(&["parentRefs"])
                .and_then(Node::as_seq)
                .unwrap()
                .len(),
            2
        );
        c.namespace_ingress_gateways.insert(
            "demo".into(),
            crate::model::settings::ingress::NamespaceGateways {
                primary: GatewaySpec {
                    gateway: "envoy/prod".into(),
                    domain: "prod.example.com".into(),
                    class: String::new(),
                },
                additional: Some(vec![]),
            },
        );
        let out = render(
            "{metadata: {name: chat, namespace: demo}, spec: {engine: {}}}",
            &c,
        );
        let spec = out[0].tree().unwrap().at(&["spec"]).unwrap();
        assert_eq!(
            to_json_string(spec.at(&["hostnames"]).unwrap()),
            r#"["prod.example.com"]"#
        );
    }

    #[test]
    fn no_gateway_is_an_error_and_labels_keep_off_visibility() {
        let s = isvc("{metadata: {name: chat}, spec: {engine: {}}}");
        let mut diags = Vec::new();
        assert!(routes(&s, &IngressConfig::default(), &HashMap::new(), &mut diags).is_empty());
        assert!(diags[0].is_error());
        let out = render(
            "{metadata: {name: chat, labels: {networking.knative.dev/visibility: cluster-local, team: a}, annotations: {ome.io/rollout-promote: abc, note: n}}, spec: {engine: {}}}",
            &config(),
        );
        assert_eq!(
            to_json_string(out[0].tree().unwrap().at(&["metadata"]).unwrap()),
            r#"{"name":"chat-engine","labels":{"team":"a"},"annotations":{"note":"n"}}"#
        );
    }
}
