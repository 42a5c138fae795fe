//! Envoy Gateway's BackendTrafficPolicy (`gateway.envoyproxy.io/v1alpha1`): the default one
//! OME v1.3 creates beside the HTTPRoutes of a service that declares no traffic intent
//! (SEMANTICS.md#traffic), and [`declares_traffic_intent`], the predicate that decides it.
//!
//! The default policy is `<isvc>`: consistent hashing on the request headers
//! `consistentHashHeaders` names (or the service's `ome.io/ingress-consistent-hash-headers`,
//! comma-separated), merged into the Gateway's own policy, targeting the top-level route
//! only. OME creates it whether Envoy Gateway's CRD exists or not; without it the creation
//! fails and the service never becomes Ready.

use super::{object_meta_map, rendered};
use crate::admission::traffic::{
    CIRCUIT_BREAKER, PASSTHROUGH_ENVOY, PASSTHROUGH_ISTIO, RETRY, TIMEOUT,
};
use crate::diagnostics::{Code, Diagnostic};
use crate::map;
use crate::model::settings::IngressConfig;
use crate::model::{InferenceService, Settings};
use crate::rendered::Rendered;
use crate::yaml::Node;

pub(crate) const API_VERSION: &str = "gateway.envoyproxy.io/v1alpha1";
pub(crate) const KIND: &str = "BackendTrafficPolicy";

/// The fields of `spec.traffic` that declare intent.
const INTENT_FIELDS: &[&str] = &["algorithm", "consistentHash", "endpointOverride"];

/// Whether the service declares traffic intent (OME's `ResolvedIntent.HasIntent`): one of
/// `spec.traffic.algorithm`, `.consistentHash`, `.endpointOverride`, a circuit-breaker,
/// retry or timeout annotation (present, whatever its value), or a pass-through
/// annotation. Then OME's traffic reconciler owns the service's policy and the default
/// BackendTrafficPolicy is not created.
pub(crate) fn declares_traffic_intent(isvc: &InferenceService) -> bool {
    let traffic = isvc.traffic.as_ref().is_some_and(|t| {
        INTENT_FIELDS
            .iter()
            .any(|f| t.get(f).is_some_and(|v| !v.is_null()))
    });
    traffic
        || isvc.annotations.keys().any(|k| {
            CIRCUIT_BREAKER
                .iter()
                .chain(&RETRY)
                .chain(&TIMEOUT)
                .any(|a| *a == k)
                || k.starts_with(PASSTHROUGH_ENVOY)
                || k.starts_with(PASSTHROUGH_ISTIO)
        })
}

/// The default BackendTrafficPolicy of `isvc`, when OME creates one and the cluster can take
/// it: `None` when the service declares traffic intent, and `None` with a warning when an
/// API list is given without Envoy Gateway's API.
pub(crate) fn default_policy(
    isvc: &InferenceService,
    config: &IngressConfig,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Option<Rendered> {
    if declares_traffic_intent(isvc) {
        return None;
    }
    if let Some(apis) = &settings.api_versions
        && !apis.serves(API_VERSION, KIND)
    {
        diags.push(
            Diagnostic::warning(
                Code::Settings,
                format!("the default BackendTrafficPolicy {} is not rendered: the cluster's APIs (apiVersions) do not include {API_VERSION}; OME creates it, fails, and the InferenceService never becomes Ready", isvc.name),
            )
            .at(isvc.pos)
            .object(isvc.object.clone())
            .help(format!("install Envoy Gateway and list {API_VERSION} in apiVersions, or disable the Gateway API (ingress.enableGatewayAPI: false)")),
        );
        return None;
    }
    let headers: Vec<String> = match isvc
        .annotations
        .get("ome.io/ingress-consistent-hash-headers")
        .and_then(Node::as_str)
    {
        Some(v) => v.split(',').map(|h| h.trim().to_string()).collect(),
        None => config.consistent_hash_headers.clone(),
    };
    // OME builds it as an unstructured object: its keys come out sorted.
    let labels = Node::map(map! {
        "app.kubernetes.io/managed-by" => Node::str("ome-controller"),
        "app.kubernetes.io/part-of" => Node::str(&isvc.name),
    });
    let mut o = object_meta_map(
        API_VERSION,
        KIND,
        &isvc.name,
        isvc,
        Some((labels, Node::map(map! {}))),
    );
    o.insert(
        "spec",
        Node::map(map! {
            "loadBalancer" => Node::map(map! {
                "consistentHash" => Node::map(map! {
                    "headers" => Node::seq(headers.into_iter().map(|h| Node::map(map! { "name" => Node::str(h) })).collect()),
                    "type" => Node::str("Headers"),
                }),
                "type" => Node::str("ConsistentHash"),
            }),
            "mergeType" => Node::str("StrategicMerge"),
            "targetRefs" => Node::seq(vec![Node::map(map! {
                "group" => Node::str("gateway.networking.k8s.io"),
                "kind" => Node::str("HTTPRoute"),
                "name" => Node::str(&isvc.name),
            })]),
        }),
    );
    Some(rendered(isvc, o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::api_versions::ApiVersions;
    use crate::select::testutil::isvc;
    use crate::yaml::emit::to_json_string;

    #[test]
    fn intent_is_spec_traffic_or_a_known_or_pass_through_annotation() {
        for (text, expected) in [
            ("{metadata: {name: a}, spec: {engine: {}}}", false),
            ("{metadata: {name: a}, spec: {traffic: {}}}", false),
            (
                "{metadata: {name: a}, spec: {traffic: {algorithm: RoundRobin}}}",
                true,
            ),
            (
                "{metadata: {name: a}, spec: {traffic: {endpointOverride: {type: Header}}}}",
                true,
            ),
            (
                "{metadata: {name: a, annotations: {ome.io/retry-attempts: '3'}}, spec: {}}",
                true,
            ),
            (
                "{metadata: {name: a, annotations: {ome.io/btp.loadBalancer.slowStart.window: 30s}}, spec: {}}",
                true,
            ),
            (
                "{metadata: {name: a, annotations: {ome.io/rollout-ready-timeout: 15m}}, spec: {}}",
                false,
            ),
        ] {
            assert_eq!(declares_traffic_intent(&isvc(text)), expected, "{text}");
        }
    }

    #[test]
    fn the_default_policy_hashes_on_the_configured_headers() {
        let s = isvc("{metadata: {name: chat, namespace: demo}, spec: {engine: {}}}");
        let config = IngressConfig::default();
        let settings = Settings::default();
        let o = default_policy(&s, &config, &settings, &mut Vec::new()).unwrap();
        assert_eq!(
            to_json_string(o.tree().unwrap()),
            r#"{"apiVersion":"gateway.envoyproxy.io/v1alpha1","kind":"BackendTrafficPolicy","metadata":{"name":"chat","namespace":"demo","labels":{"app.kubernetes.io/managed-by":"ome-controller","app.kubernetes.io/part-of":"chat"}},"spec":{"loadBalancer":{"consistentHash":{"headers":[{"name":"x-routing-key"},{"name":"X-SMG-Routing-Key"}],"type":"Headers"},"type":"ConsistentHash"},"mergeType":"StrategicMerge","targetRefs":[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute","name":"chat"}]}}"#
        );
        let s = isvc(
            "{metadata: {name: chat, annotations: {ome.io/ingress-consistent-hash-headers: 'x-a, x-b'}}, spec: {engine: {}}}",
        );
        let o = default_policy(&s, &config, &settings, &mut Vec::new()).unwrap();
        assert_eq!(
            to_json_string(
                o.tree()
                    .unwrap()
                    .at(&["spec", "loadBalancer", "consistentHash", "headers"])
                    .unwrap()
            ),
            r#"[{"name":"x-a"},{"name":"x-b"}]"#
        );
    }

    #[test]
    fn an_api_list_without_envoy_leaves_it_out_with_a_warning() {
        let s = isvc("{metadata: {name: chat}, spec: {engine: {}}}");
        let mut settings = Settings::default();
        let mut apis = ApiVersions::default();
        apis.insert("gateway.networking.k8s.io/v1").unwrap();
        settings.api_versions = Some(apis);
        let mut diags = Vec::new();
        assert!(default_policy(&s, &IngressConfig::default(), &settings, &mut diags).is_none());
        assert_eq!(diags.len(), 1);
        assert!(!diags[0].is_error());
        assert!(diags[0].message.contains("never becomes Ready"));
        settings
            .api_versions
            .as_mut()
            .unwrap()
            .insert("gateway.envoyproxy.io/v1alpha1")
            .unwrap();
        assert!(
            default_policy(&s, &IngressConfig::default(), &settings, &mut Vec::new()).is_some()
        );
    }
}
