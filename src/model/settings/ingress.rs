//! `ingress`: OME's `IngressConfig`, the settings of what OME creates for traffic
//! (SEMANTICS.md#traffic-settings).
//!
//! Every key OME v1.3 reads is known here, with two sets of defaults: the chart's (the
//! `inferenceservice-config` the Helm chart writes, [`IngressConfig::default`]) and OME's code
//! (what OME fills in for keys a ConfigMap leaves out, [`IngressConfig::code`]). In
//! `ome-render.yaml` a key left out keeps the chart's value and an unknown key is an error;
//! in OME's own ConfigMap OME's reading applies: keys left out are Go's zero values before
//! the code defaults, unknown keys are ignored (a warning here). OME's load-time checks
//! apply to both.

use super::Origin;
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic};
use crate::model::fields::Reader;
use crate::yaml::{Map, Node, Value};
use std::collections::BTreeMap;

/// OME's code default of `domainTemplate`.
pub(crate) const DEFAULT_DOMAIN_TEMPLATE: &str =
    "{{ .Name }}.{{ .Namespace }}.{{ .IngressDomain }}";
/// OME's code default of `ingressDomain`.
const CODE_INGRESS_DOMAIN: &str = "example.com";
/// OME's code default of `urlScheme`.
const CODE_URL_SCHEME: &str = "http";
/// OME's code default of `consistentHashHeaders`.
const CODE_HASH_HEADER: &str = "x-routing-key";

/// The keys of `ingress`, in OME's order.
pub(crate) const KEYS: &[&str] = &[
    "ingressGateway",
    "ingressService",
    "omeIngressGateway",
    "omeIngressGatewayClass",
    "ingressDomain",
    "ingressClassName",
    "additionalIngressDomains",
    "domainTemplate",
    "urlScheme",
    "pathTemplate",
    "disableIstioVirtualHost",
    "disableIngressCreation",
    "enableGatewayAPI",
    "consistentHashHeaders",
    "perISVCSubdomain",
    "sharedHostPrefix",
    "additionalIngressGateways",
    "defaultRouteTimeoutSeconds",
    "namespaceIngressGateways",
];

pub(super) const GATEWAY_KEYS: &[&str] = &["omeIngressGateway", "ingressDomain", "class"];
pub(super) const NAMESPACE_GATEWAY_KEYS: &[&str] = &["primary", "additional"];

/// One gateway an HTTPRoute attaches to: `namespace/name` and the domain of its hostname.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GatewaySpec {
    pub(crate) gateway: String,
    pub(crate) domain: String,
    /// The endpoint class OME reports in status; checked, not rendered.
    pub(crate) class: String,
}

/// `namespaceIngressGateways.<namespace>`: the gateways of one namespace's services.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct NamespaceGateways {
    pub(crate) primary: GatewaySpec,
    /// `None` keeps the cluster's additional gateways; `Some(vec![])` removes them.
    pub(crate) additional: Option<Vec<GatewaySpec>>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IngressConfig {
    pub(crate) ingress_gateway: String,
    pub(crate) ingress_service: String,
    /// The primary Gateway of HTTPRoutes, `namespace/name`.
    pub(crate) ome_ingress_gateway: String,
    pub(crate) ome_ingress_gateway_class: String,
    pub(crate) ingress_domain: String,
    /// The Ingress's `ingressClassName`; `None` leaves it out.
    pub(crate) ingress_class_name: Option<String>,
    pub(crate) additional_ingress_domains: Option<Vec<String>>,
    pub(crate) domain_template: String,
    pub(crate) url_scheme: String,
    pub(crate) path_template: String,
    pub(crate) disable_istio_virtual_host: bool,
    /// OME creates the external Service `<isvc>` only while ingress creation is disabled,
    /// and an Ingress or HTTPRoutes only while it is enabled.
    pub(crate) disable_ingress_creation: bool,
    pub(crate) enable_gateway_api: bool,
    pub(crate) consistent_hash_headers: Vec<String>,
    pub(crate) per_isvc_subdomain: bool,
    pub(crate) shared_host_prefix: String,
    pub(crate) additional_ingress_gateways: Vec<GatewaySpec>,
    /// `None` leaves routes without a request timeout.
    pub(crate) default_route_timeout_seconds: Option<i64>,
    pub(crate) namespace_ingress_gateways: BTreeMap<String, NamespaceGateways>,
}

/// Values that replace the settings' `ingress.ingressDomain` and `ingress.ingressClassName`
/// for one run, whatever the settings file or OME's ConfigMap say: the Argo CD plugin's
/// `ingressDomain` and `ingressClassName` parameters (SEMANTICS.md#argo-cd-plugin).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct IngressOverride {
    pub(crate) ingress_domain: Option<String>,
    pub(crate) ingress_class_name: Option<String>,
}

impl IngressOverride {
    /// Lays the values given over `config`.
    pub(crate) fn apply(&self, config: &mut IngressConfig) {
        if let Some(domain) = &self.ingress_domain {
            config.ingress_domain.clone_from(domain);
        }
        if let Some(class) = &self.ingress_class_name {
            config.ingress_class_name = Some(class.clone());
        }
    }
}

impl Default for IngressConfig {
    /// The chart's values (the `ingress` entry of the ConfigMap the chart writes).
    fn default() -> IngressConfig {
        IngressConfig {
            ingress_gateway: "istio-system/ingress-gateway".into(),
            ingress_service: "istio-ingressgateway.istio-system.svc.cluster.local".into(),
            ome_ingress_gateway: String::new(),
            ome_ingress_gateway_class: String::new(),
            ingress_domain: "svc.cluster.local".into(),
            ingress_class_name: Some("istio".into()),
            additional_ingress_domains: None,
            domain_template: DEFAULT_DOMAIN_TEMPLATE.into(),
            url_scheme: "http".into(),
            path_template: String::new(),
            disable_istio_virtual_host: false,
            disable_ingress_creation: true,
            enable_gateway_api: false,
            consistent_hash_headers: vec!["x-routing-key".into(), "X-SMG-Routing-Key".into()],
            per_isvc_subdomain: false,
            shared_host_prefix: "llm".into(),
            additional_ingress_gateways: Vec::new(),
            default_route_timeout_seconds: Some(0),
            namespace_ingress_gateways: BTreeMap::new(),
        }
    }
}

impl IngressConfig {
    /// Go's zero value: what OME starts from when it reads a ConfigMap's `ingress`.
    fn zero() -> IngressConfig {
        IngressConfig {
            ingress_gateway: String::new(),
            ingress_service: String::new(),
            ome_ingress_gateway: String::new(),
            ome_ingress_gateway_class: String::new(),
            ingress_domain: String::new(),
            ingress_class_name: None,
            additional_ingress_domains: None,
            domain_template: String::new(),
            url_scheme: String::new(),
            path_template: String::new(),
            disable_istio_virtual_host: false,
            disable_ingress_creation: false,
            enable_gateway_api: false,
            consistent_hash_headers: Vec::new(),
            per_isvc_subdomain: false,
            shared_host_prefix: String::new(),
            additional_ingress_gateways: Vec::new(),
            default_route_timeout_seconds: None,
            namespace_ingress_gateways: BTreeMap::new(),
        }
    }

    /// OME's code defaults: the settings of a ConfigMap without an `ingress` entry.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "read by --deploy-config, being built (#31)")
    )]
    pub(crate) fn code() -> IngressConfig {
        let mut config = IngressConfig::zero();
        config.fill_code_defaults();
        config
    }

    /// OME fills these in when they are empty, whatever the origin.
    fn fill_code_defaults(&mut self) {
        if self.domain_template.is_empty() {
            self.domain_template = DEFAULT_DOMAIN_TEMPLATE.into();
        }
        if self.ingress_domain.is_empty() {
            self.ingress_domain = CODE_INGRESS_DOMAIN.into();
        }
        if self.url_scheme.is_empty() {
            self.url_scheme = CODE_URL_SCHEME.into();
        }
        if self.consistent_hash_headers.is_empty() {
            self.consistent_hash_headers = vec![CODE_HASH_HEADER.into()];
        }
    }

    /// Reads the `ingress` map over `self` (keys left out keep their value). `origin` says
    /// how strict to be: in `ome-render.yaml` an unknown key is an error, in OME's ConfigMap a
    /// warning (OME ignores it), and reading starts from Go's zero values as OME's does.
    pub(crate) fn read(&mut self, r: &mut Reader, node: &Node, origin: Origin) {
        if origin == Origin::ConfigMap {
            *self = IngressConfig::zero();
        }
        unknown_keys(r, node, "ingress", KEYS, origin);
        let string = |r: &mut Reader, key: &str, slot: &mut String| {
            if let Some(v) = r.str(node, key, "ingress") {
                *slot = v;
            }
        };
        string(r, "ingressGateway", &mut self.ingress_gateway);
        string(r, "ingressService", &mut self.ingress_service);
        string(r, "omeIngressGateway", &mut self.ome_ingress_gateway);
        string(
            r,
            "omeIngressGatewayClass",
            &mut self.ome_ingress_gateway_class,
        );
        string(r, "ingressDomain", &mut self.ingress_domain);
        string(r, "domainTemplate", &mut self.domain_template);
        string(r, "urlScheme", &mut self.url_scheme);
        string(r, "pathTemplate", &mut self.path_template);
        string(r, "sharedHostPrefix", &mut self.shared_host_prefix);
        // A pointer in OME: `null` unsets it.
        if let Some(n) = node.get("ingressClassName") {
            self.ingress_class_name = if n.is_null() {
                None
            } else {
                r.str(node, "ingressClassName", "ingress")
                    .or(self.ingress_class_name.take())
            };
        }
        if let Some(n) = node.get("additionalIngressDomains") {
            self.additional_ingress_domains = if n.is_null() {
                None
            } else {
                r.strings(node, "additionalIngressDomains", "ingress")
            };
        }
        let flag = |r: &mut Reader, key: &str, slot: &mut bool| {
            if let Some(v) = r.bool(node, key, "ingress") {
                *slot = v;
            }
        };
        flag(
            r,
            "disableIstioVirtualHost",
            &mut self.disable_istio_virtual_host,
        );
        flag(
            r,
            "disableIngressCreation",
            &mut self.disable_ingress_creation,
        );
        flag(r, "enableGatewayAPI", &mut self.enable_gateway_api);
        flag(r, "perISVCSubdomain", &mut self.per_isvc_subdomain);
        if let Some(v) = r.strings(node, "consistentHashHeaders", "ingress") {
            self.consistent_hash_headers = v;
        }
        if let Some(n) = node.get("defaultRouteTimeoutSeconds") {
            self.default_route_timeout_seconds = if n.is_null() {
                None
            } else {
                r.int(node, "defaultRouteTimeoutSeconds", "ingress")
                    .or(self.default_route_timeout_seconds)
            };
        }
        if let Some(items) = r.seq(node, "additionalIngressGateways", "ingress") {
            self.additional_ingress_gateways =
                gateways(r, items, "ingress.additionalIngressGateways", origin);
        }
        if let Some(map) = r.map(node, "namespaceIngressGateways", "ingress") {
            self.namespace_ingress_gateways.clear();
            for (ns, value) in map.as_map().into_iter().flat_map(Map::iter) {
                let path = format!("ingress.namespaceIngressGateways.{ns}");
                if value.as_map().is_none() {
                    r.invalid(value, &path, "a map");
                    continue;
                }
                unknown_keys(r, value, &path, NAMESPACE_GATEWAY_KEYS, origin);
                let primary = r
                    .map(value, "primary", &path)
                    .map(|p| gateway(r, p, &format!("{path}.primary"), origin))
                    .unwrap_or_default();
                let additional = r
                    .seq(value, "additional", &path)
                    .map(|items| gateways(r, items, &format!("{path}.additional"), origin));
                self.namespace_ingress_gateways.insert(
                    ns.to_string(),
                    NamespaceGateways {
                        primary,
                        additional,
                    },
                );
            }
        }
        self.check(r, node);
        self.fill_code_defaults();
    }

    /// OME's load-time checks of the `ingress` entry, with OME's messages: the controller
    /// refuses to reconcile with a config that fails them.
    fn check(&self, r: &mut Reader, node: &Node) {
        let fail = |r: &mut Reader, key: &str, message: String, help: &str| {
            r.diags.push(
                Diagnostic::error(Code::Settings, message)
                    .at(node.get(key).map_or(node.pos, |n| n.pos))
                    .object(r.object.clone())
                    .field(format!("ingress.{key}"))
                    .help(help),
            );
        };
        if self.ingress_gateway.is_empty() || self.ingress_service.is_empty() {
            let key = if self.ingress_gateway.is_empty() {
                "ingressGateway"
            } else {
                "ingressService"
            };
            fail(
                r,
                key,
                "invalid ingress config - ingressGateway and ingressService are required".into(),
                "OME refuses an `ingress` entry without both (the chart's are istio-system/ingress-gateway and istio-ingressgateway.istio-system.svc.cluster.local)",
            );
        }
        if !self.path_template.is_empty() {
            if let Err(e) = template_parses(&self.path_template) {
                fail(
                    r,
                    "pathTemplate",
                    format!("invalid ingress config, unable to parse pathTemplate: {e}"),
                    "write a Go template whose `{{` are all closed by `}}`",
                );
            }
            if self.ingress_domain.is_empty() {
                fail(
                    r,
                    "pathTemplate",
                    "invalid ingress config - ingressDomain is required if pathTemplate is given"
                        .into(),
                    "set ingressDomain too",
                );
            }
        }
        let mut classes = vec![(
            "omeIngressGatewayClass".to_string(),
            self.ome_ingress_gateway_class.as_str(),
        )];
        for (i, g) in self.additional_ingress_gateways.iter().enumerate() {
            classes.push((
                format!("additionalIngressGateways[{i}].class"),
                g.class.as_str(),
            ));
        }
        for (ns, g) in &self.namespace_ingress_gateways {
            classes.push((
                format!("namespaceIngressGateways[{ns:?}].primary.class"),
                g.primary.class.as_str(),
            ));
            for (i, a) in g.additional.iter().flatten().enumerate() {
                classes.push((
                    format!("namespaceIngressGateways[{ns:?}].additional[{i}].class"),
                    a.class.as_str(),
                ));
            }
        }
        for (field, class) in classes {
            if !class.is_empty() && !crate::k8s::meta::is_dns1123_label(class) {
                r.diags.push(
                    Diagnostic::error(
                        Code::Settings,
                        format!(
                            "invalid ingress config - {field} {class:?} must be an RFC-1123 label"
                        ),
                    )
                    .at(node.pos)
                    .object(r.object.clone())
                    .field(format!("ingress.{field}"))
                    .help("lower-case letters, digits and `-`, starting and ending with a letter or digit, at most 63"),
                );
            }
        }
    }

    /// The settings of one InferenceService: the cluster's with its `ome.io/ingress-*`
    /// annotations laid over them (OME's `ResolveIngressConfig`).
    pub(crate) fn resolve(&self, annotations: &Map) -> IngressConfig {
        let mut out = self.clone();
        let get = |key: &str| annotations.get(key).and_then(Node::as_str);
        if let Some(v) = get("ome.io/ingress-domain-template").filter(|v| !v.is_empty()) {
            out.domain_template = v.into();
        }
        if let Some(v) = get("ome.io/ingress-domain").filter(|v| !v.is_empty()) {
            out.ingress_domain = v.into();
        }
        if let Some(v) = get("ome.io/ingress-url-scheme").filter(|v| !v.is_empty()) {
            out.url_scheme = v.into();
        }
        if let Some(v) = get("ome.io/ingress-path-template") {
            out.path_template = v.into();
        }
        if let Some(v) = get("ome.io/ingress-additional-domains").filter(|v| !v.is_empty()) {
            out.additional_ingress_domains =
                Some(v.split(',').map(|d| d.trim().to_string()).collect());
        }
        if let Some(v) = get("ome.io/ingress-disable-creation") {
            out.disable_ingress_creation = v == "true";
        }
        if let Some(v) = get("ome.io/ingress-gateway").filter(|v| !v.is_empty()) {
            out.ome_ingress_gateway = v.into();
        }
        if let Some(v) = get("ome.io/ingress-per-isvc-subdomain") {
            out.per_isvc_subdomain = v == "true";
        }
        if let Some(v) = get("ome.io/ingress-shared-host-prefix") {
            out.shared_host_prefix = v.into();
        }
        if let Some(v) = get("ome.io/ingress-additional-gateways").filter(|v| !v.is_empty())
            && let Some(list) = additional_gateways_json(v)
        {
            out.additional_ingress_gateways = list;
        }
        out
    }
}

/// `ome.io/ingress-additional-gateways`: a JSON list of gateways; `None` when it does not
/// parse (OME then keeps the cluster's list).
fn additional_gateways_json(text: &str) -> Option<Vec<GatewaySpec>> {
    let docs = crate::yaml::parse::parse_stream(text, 0).ok()?;
    let root = docs.into_iter().next()?.root;
    let items = root.as_seq()?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let m = item.as_map()?;
        let field = |k: &str| match m.get(k).map(|n| &n.value) {
            None | Some(Value::Null) => Some(String::new()),
            Some(Value::Str(s)) => Some(s.clone()),
            Some(_) => None,
        };
        out.push(GatewaySpec {
            gateway: field("omeIngressGateway")?,
            domain: field("ingressDomain")?,
            class: field("class")?,
        });
    }
    Some(out)
}

fn gateway(r: &mut Reader, node: &Node, path: &str, origin: Origin) -> GatewaySpec {
    unknown_keys(r, node, path, GATEWAY_KEYS, origin);
    GatewaySpec {
        gateway: r.str(node, "omeIngressGateway", path).unwrap_or_default(),
        domain: r.str(node, "ingressDomain", path).unwrap_or_default(),
        class: r.str(node, "class", path).unwrap_or_default(),
    }
}

fn gateways(r: &mut Reader, items: &[Node], path: &str, origin: Origin) -> Vec<GatewaySpec> {
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if item.as_map().is_none() {
            r.invalid(item, &at, "a map");
            continue;
        }
        out.push(gateway(r, item, &at, origin));
    }
    out
}

/// An unknown key: an error in `ome-render.yaml`, where a typo would silently do nothing, a
/// warning in OME's ConfigMap, where OME ignores it.
fn unknown_keys(r: &mut Reader, node: &Node, path: &str, known: &[&str], origin: Origin) {
    for (key, value) in node.as_map().into_iter().flat_map(Map::iter) {
        if known.contains(&key) {
            continue;
        }
        let message = format!("unknown setting `{path}.{key}`");
        let d = match origin {
            Origin::File => Diagnostic::error(Code::Settings, message),
            Origin::ConfigMap => {
                Diagnostic::warning(Code::Settings, format!("{message}: OME ignores it"))
            }
        };
        let help = match closest(key, known) {
            Some(k) => format!("did you mean `{k}`?"),
            None => format!("known keys of `{path}`: {}", known.join(", ")),
        };
        r.diags.push(
            d.at(value.pos)
                .object(r.object.clone())
                .field(format!("{path}.{key}"))
                .help(help),
        );
    }
}

/// Whether Go's template parser would accept `text`, as far as an offline check can tell:
/// every `{{` is closed.
fn template_parses(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        match after.find("}}") {
            Some(close) => rest = &after[close + 2..],
            None => return Err("unclosed action".into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;
    use crate::k8s::id::ObjectId;

    fn yaml(text: &str) -> Node {
        crate::yaml::parse::parse_stream(text, 0)
            .expect("test YAML")
            .remove(0)
            .root
    }

    fn read(text: &str, origin: Origin) -> (IngressConfig, Vec<Diagnostic>) {
        let node = yaml(text);
        let object = ObjectId {
            kind: "RenderSettings".into(),
            namespace: String::new(),
            name: "ome-render.yaml".into(),
            group: String::new(),
        };
        let mut diags = Vec::new();
        let mut config = IngressConfig::default();
        let mut r = Reader {
            object: &object,
            diags: &mut diags,
        };
        config.read(&mut r, &node, origin);
        (config, diags)
    }

    #[test]
    fn the_file_keeps_the_charts_values_for_keys_left_out() {
        let (config, diags) = read(r#"{"enableGatewayAPI": true}"#, Origin::File);
        assert!(diags.is_empty(), "{diags:?}");
        assert!(config.enable_gateway_api);
        assert_eq!(config.ingress_domain, "svc.cluster.local");
        assert_eq!(config.ingress_class_name.as_deref(), Some("istio"));
        assert_eq!(config.shared_host_prefix, "llm");
        assert_eq!(config.default_route_timeout_seconds, Some(0));
        assert_eq!(
            config.consistent_hash_headers,
            ["x-routing-key", "X-SMG-Routing-Key"]
        );
        assert!(config.disable_ingress_creation);
    }

    #[test]
    fn a_configmap_starts_from_zero_then_omes_code_defaults() {
        let (config, diags) = read(
            r#"{"ingressGateway": "istio-system/gw", "ingressService": "gw.istio-system.svc"}"#,
            Origin::ConfigMap,
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(config.ingress_domain, "example.com");
        assert_eq!(config.url_scheme, "http");
        assert_eq!(config.domain_template, DEFAULT_DOMAIN_TEMPLATE);
        assert_eq!(config.consistent_hash_headers, ["x-routing-key"]);
        assert_eq!(config.ingress_class_name, None);
        assert_eq!(config.default_route_timeout_seconds, None);
        assert_eq!(config.shared_host_prefix, "");
        assert!(!config.disable_ingress_creation);
        assert_eq!(IngressConfig::code().ingress_domain, "example.com");
    }

    #[test]
    fn an_unknown_key_is_an_error_in_the_file_and_a_warning_in_a_configmap() {
        let (_, diags) = read(r#"{"disableIngresCreation": false}"#, Origin::File);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(diags[0].is_error());
        assert_eq!(
            diags[0].help.as_deref(),
            Some("did you mean `disableIngressCreation`?")
        );
        assert_eq!(
            diags[0].field.as_deref(),
            Some("ingress.disableIngresCreation")
        );
        let (_, diags) = read(
            r#"{"ingressGateway": "a/b", "ingressService": "s", "enableGatewayApi": true}"#,
            Origin::ConfigMap,
        );
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].severity, Severity::Warning);
        assert_eq!(
            diags[0].help.as_deref(),
            Some("did you mean `enableGatewayAPI`?")
        );
    }

    #[test]
    fn omes_checks_apply_with_omes_messages() {
        let (_, diags) = read(r#"{"ingressService": "s"}"#, Origin::ConfigMap);
        assert_eq!(
            diags[0].message,
            "invalid ingress config - ingressGateway and ingressService are required"
        );
        let (_, diags) = read(r#"{"ingressGateway": ""}"#, Origin::File);
        assert_eq!(diags.len(), 1, "{diags:?}");
        let (_, diags) = read(
            r#"{"ingressGateway": "a/b", "ingressService": "s", "pathTemplate": "/{{ .Name }}"}"#,
            Origin::ConfigMap,
        );
        // OME checks before it fills in its code defaults: `example.com` comes too late.
        assert_eq!(
            diags[0].message,
            "invalid ingress config - ingressDomain is required if pathTemplate is given"
        );
        let (_, diags) = read(r#"{"pathTemplate": "/{{ .Name"}"#, Origin::File);
        assert!(diags[0].message.contains("unable to parse pathTemplate"));
        let (_, diags) = read(
            r#"{"ingressDomain": "", "pathTemplate": "/{{ .Name }}"}"#,
            Origin::File,
        );
        assert_eq!(
            diags[0].message,
            "invalid ingress config - ingressDomain is required if pathTemplate is given"
        );
        let (_, diags) = read(
            r#"{"additionalIngressGateways": [{"omeIngressGateway": "a/b", "ingressDomain": "x.io", "class": "Ext"}]}"#,
            Origin::File,
        );
        assert_eq!(
            diags[0].message,
            "invalid ingress config - additionalIngressGateways[0].class \"Ext\" must be an RFC-1123 label"
        );
    }

    #[test]
    fn every_key_is_read() {
        let (config, diags) = read(
            r#"{
              "ingressGateway": "g/w", "ingressService": "svc", "omeIngressGateway": "envoy/gw",
              "omeIngressGatewayClass": "internal", "ingressDomain": "example.org",
              "ingressClassName": null, "additionalIngressDomains": ["a.org"],
              "domainTemplate": "{{ .Name }}.{{ .IngressDomain }}", "urlScheme": "https",
              "pathTemplate": "", "disableIstioVirtualHost": true, "disableIngressCreation": false,
              "enableGatewayAPI": true, "consistentHashHeaders": ["x-a"], "perISVCSubdomain": true,
              "sharedHostPrefix": "", "additionalIngressGateways": [],
              "defaultRouteTimeoutSeconds": null,
              "namespaceIngressGateways": {"prod": {"primary": {"omeIngressGateway": "e/p", "ingressDomain": "p.org"}, "additional": []}}
            }"#,
            Origin::File,
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(config.ingress_class_name, None);
        assert_eq!(config.default_route_timeout_seconds, None);
        assert_eq!(
            config.additional_ingress_domains,
            Some(vec!["a.org".into()])
        );
        assert!(config.per_isvc_subdomain && config.disable_istio_virtual_host);
        let prod = &config.namespace_ingress_gateways["prod"];
        assert_eq!(prod.primary.gateway, "e/p");
        assert_eq!(prod.additional, Some(vec![]));
    }

    #[test]
    fn annotations_override_the_cluster_settings() {
        let annotations = yaml(
            r#"{"ome.io/ingress-gateway": "envoy/ext", "ome.io/ingress-per-isvc-subdomain": "true",
                "ome.io/ingress-shared-host-prefix": "", "ome.io/ingress-domain": "",
                "ome.io/ingress-disable-creation": "false",
                "ome.io/ingress-additional-gateways": "[{\"omeIngressGateway\":\"e/x\",\"ingressDomain\":\"x.io\"}]"}"#,
        );
        let base = IngressConfig::default();
        let got = base.resolve(annotations.as_map().unwrap());
        assert_eq!(got.ome_ingress_gateway, "envoy/ext");
        assert!(got.per_isvc_subdomain);
        assert_eq!(got.shared_host_prefix, "", "an empty prefix counts");
        assert_eq!(
            got.ingress_domain, "svc.cluster.local",
            "an empty domain does not"
        );
        assert!(!got.disable_ingress_creation);
        assert_eq!(got.additional_ingress_gateways[0].domain, "x.io");
        let bad = yaml(r#"{"ome.io/ingress-additional-gateways": "[oops"}"#);
        assert!(
            base.resolve(bad.as_map().unwrap())
                .additional_ingress_gateways
                .is_empty()
        );
    }
}
