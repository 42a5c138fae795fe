//! The Ingress `<isvc>` (`networking.k8s.io/v1`) OME v1.3 creates when ingress creation is
//! enabled without the Gateway API (SEMANTICS.md#traffic).
//!
//! Its rules go to the router when the service has one (the service's host, then the
//! router's, the engine's and the decoder's own hosts), else with a decoder to the engine
//! (the service's host, the engine's, the decoder's), else the engine alone. Each rule is
//! one `Prefix` path `/` to the first port of the component's Service. The annotations are
//! the InferenceService's, all of them; the labels are not copied.

use super::{object_meta_map, rendered};
use crate::diagnostics::Diagnostic;
use crate::map;
use crate::model::settings::IngressConfig;
use crate::model::{InferenceService, Role};
use crate::render::metadata::is_bookkeeping;
use crate::render::traffic::{Backend, backend, domain_name, ingress_port_default};
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};
use std::collections::HashMap;

/// The rules in OME's order: `(name the host is made from, backend)`.
fn rules(isvc: &InferenceService, ports: &HashMap<Role, i64>) -> Vec<(String, Backend)> {
    let port = ingress_port_default();
    let engine = backend(isvc, Role::Engine, ports, port);
    let own = |b: &Backend| (b.service.clone(), b.clone());
    if isvc.router.is_some() {
        let router = backend(isvc, Role::Router, ports, port);
        let mut out = vec![
            (isvc.name.clone(), router.clone()),
            own(&router),
            own(&engine),
        ];
        if isvc.decoder.is_some() {
            out.push(own(&backend(isvc, Role::Decoder, ports, port)));
        }
        out
    } else if isvc.decoder.is_some() {
        let decoder = backend(isvc, Role::Decoder, ports, port);
        vec![
            (isvc.name.clone(), engine.clone()),
            own(&engine),
            own(&decoder),
        ]
    } else {
        vec![(isvc.name.clone(), engine)]
    }
}

/// The Ingress of `isvc`, or `None` with an error pushed when a host cannot be made.
pub(crate) fn ingress(
    isvc: &InferenceService,
    config: &IngressConfig,
    ports: &HashMap<Role, i64>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Rendered> {
    let mut out_rules = Vec::new();
    for (host_name, b) in rules(isvc, ports) {
        let host = match domain_name(&host_name, isvc, config) {
            Ok(host) => host,
            Err(d) => {
                diags.push(d);
                return None;
            }
        };
        out_rules.push(Node::map(map! {
            "host" => Node::str(host),
            "http" => Node::map(map! {
                "paths" => Node::seq(vec![Node::map(map! {
                    "path" => Node::str("/"),
                    "pathType" => Node::str("Prefix"),
                    "backend" => Node::map(map! {
                        "service" => Node::map(map! {
                            "name" => Node::str(&b.service),
                            "port" => Node::map(map! { "number" => Node::int(b.port) }),
                        }),
                    }),
                })]),
            }),
        }));
    }
    let mut annotations = Map::new();
    for (k, v) in isvc.annotations.iter() {
        if !is_bookkeeping(k)
            && let Some(s) = v.as_str()
        {
            annotations.insert(k, Node::str(s));
        }
    }
    let mut o = object_meta_map(
        "networking.k8s.io/v1",
        "Ingress",
        &isvc.name,
        isvc,
        Some((Node::map(Map::new()), Node::map(annotations))),
    );
    let mut spec = Map::new();
    if let Some(class) = &config.ingress_class_name {
        spec.insert("ingressClassName", Node::str(class));
    }
    spec.insert("rules", Node::seq(out_rules));
    o.insert("spec", Node::map(spec));
    Some(rendered(isvc, o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::isvc;
    use crate::yaml::emit::to_json_string;

    fn hosts_and_backends(text: &str, config: &IngressConfig) -> Vec<String> {
        let s = isvc(text);
        let ports = HashMap::from([(Role::Engine, 8000), (Role::Router, 8080)]);
        let mut diags = Vec::new();
        let o = ingress(&s, config, &ports, &mut diags).expect("an Ingress");
        assert!(diags.is_empty(), "{diags:?}");
        o.tree()
            .unwrap()
            .at(&["spec", "rules"])
            .and_then(Node::as_seq)
            .unwrap()
            .iter()
            .map(|r| {
                let b = r.at(&["http", "paths"]).and_then(Node::as_seq).unwrap()[0]
                    .at(&["backend", "service"])
                    .unwrap();
                format!(
                    "{} -> {}:{}",
                    r.str_at(&["host"]).unwrap(),
                    b.str_at(&["name"]).unwrap(),
                    to_json_string(b.at(&["port", "number"]).unwrap())
                )
            })
            .collect()
    }

    /// OME's builder tests: engine only, engine + decoder, router + engine + decoder.
    #[test]
    fn rules_follow_the_components_in_omes_order() {
        let c = IngressConfig::default();
        assert_eq!(
            hosts_and_backends("{metadata: {name: s}, spec: {engine: {}}}", &c),
            ["s.default.svc.cluster.local -> s-engine:8000"]
        );
        assert_eq!(
            hosts_and_backends("{metadata: {name: s}, spec: {engine: {}, decoder: {}}}", &c),
            [
                "s.default.svc.cluster.local -> s-engine:8000",
                "s-engine.default.svc.cluster.local -> s-engine:8000",
                "s-decoder.default.svc.cluster.local -> s-decoder:8080",
            ],
            "a decoder without a Service rendered falls back to OME's 8080"
        );
        assert_eq!(
            hosts_and_backends(
                "{metadata: {name: s}, spec: {engine: {}, decoder: {}, router: {}}}",
                &c
            ),
            [
                "s.default.svc.cluster.local -> s-router:8080",
                "s-router.default.svc.cluster.local -> s-router:8080",
                "s-engine.default.svc.cluster.local -> s-engine:8000",
                "s-decoder.default.svc.cluster.local -> s-decoder:8080",
            ]
        );
    }

    #[test]
    fn annotations_are_copied_labels_are_not_and_the_class_is_the_settings() {
        let s = isvc(
            "{metadata: {name: s, labels: {team: a}, annotations: {note: x, config.kubernetes.io/index: '0'}}, spec: {engine: {}}}",
        );
        let mut c = IngressConfig::default();
        let o = ingress(&s, &c, &HashMap::new(), &mut Vec::new()).unwrap();
        let t = o.tree().unwrap();
        assert_eq!(
            to_json_string(t.at(&["metadata"]).unwrap()),
            r#"{"name":"s","annotations":{"note":"x"}}"#
        );
        assert_eq!(t.str_at(&["spec", "ingressClassName"]), Some("istio"));
        c.ingress_class_name = None;
        let o = ingress(&s, &c, &HashMap::new(), &mut Vec::new()).unwrap();
        assert_eq!(o.tree().unwrap().at(&["spec", "ingressClassName"]), None);
    }

    #[test]
    fn a_bad_host_is_an_error_and_no_ingress() {
        let s = isvc("{metadata: {name: s}, spec: {engine: {}}}");
        let c = IngressConfig {
            domain_template: "{{ .Name }}".into(),
            ..IngressConfig::default()
        };
        let mut diags = Vec::new();
        assert!(ingress(&s, &c, &HashMap::new(), &mut diags).is_none());
        assert!(diags[0].is_error());
    }
}
