//! Traffic into an InferenceService (SEMANTICS.md#traffic): the ingress settings that apply
//! to one service (the cluster's with its `ome.io/ingress-*` annotations laid over them,
//! [`config_of`]), the component Services routes go to ([`backend`]), and hostnames from
//! `domainTemplate`, a Go template over the service's name, namespace, labels, annotations
//! and the ingress domain ([`domain_name`]). The objects are in `objects/ingress`,
//! `objects/http_route` and `objects/backend_traffic_policy`; `render_inference_service`
//! picks them.

use super::names::{MAX_NAME_LENGTH, component_service_name, truncate_name};
use super::placeholders::{self, Metadata};
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::meta::is_dns1123_label;
use crate::model::settings::IngressConfig;
use crate::model::{InferenceService, Role, Settings};
use std::collections::HashMap;

/// The port OME routes to when a component's Service cannot be read (OME's
/// `CommonISVCPort`); ome-render renders the Service, so only a component it could not
/// render falls back to it.
const COMMON_ISVC_PORT: i64 = 8080;

/// The settings that apply to `isvc`.
pub(crate) fn config_of(isvc: &InferenceService, settings: &Settings) -> IngressConfig {
    settings.ingress.resolve(&isvc.annotations)
}

/// The namespace the service is applied to.
pub(crate) fn namespace_of(isvc: &InferenceService) -> &str {
    isvc.namespace.as_deref().unwrap_or(&isvc.lookup_namespace)
}

/// One component's Service as the routes see it: name and first port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Backend {
    pub(crate) role: Role,
    pub(crate) service: String,
    pub(crate) port: i64,
}

/// The component Services of `isvc` that traffic reaches, from the first ports of the
/// Services rendered (`ports`), `default_port` for one not rendered.
pub(crate) fn backend(
    isvc: &InferenceService,
    role: Role,
    ports: &HashMap<Role, i64>,
    default_port: i64,
) -> Backend {
    Backend {
        role,
        service: component_service_name(&isvc.name, role.as_str()),
        port: ports.get(&role).copied().unwrap_or(default_port),
    }
}

/// The port of an Ingress rule to a component whose Service is not rendered.
pub(crate) fn ingress_port_default() -> i64 {
    COMMON_ISVC_PORT
}

/// OME's `GenerateDomainName`: `domainTemplate` over the service's metadata, with `name`
/// (shortened to 63 as OME shortens it) as `.Name`. The template and the domain come from
/// `config` with the service's annotations laid over again, as OME lays them. An error
/// for a template the offline evaluator does not support or a result that is no
/// fully-qualified domain name.
pub(crate) fn domain_name(
    name: &str,
    isvc: &InferenceService,
    config: &IngressConfig,
) -> Result<String, Diagnostic> {
    let effective = config.resolve(&isvc.annotations);
    let name = truncate_name(name, MAX_NAME_LENGTH);
    let meta = Metadata {
        name: &name,
        namespace: Some(namespace_of(isvc)),
        labels: &isvc.labels,
        annotations: &isvc.annotations,
        ingress_domain: Some(&effective.ingress_domain),
    };
    let host = match placeholders::expand(&effective.domain_template, &meta) {
        Ok(Some(host)) => host,
        Ok(None) => effective.domain_template.clone(),
        Err(e) => {
            return Err(Diagnostic::error(
                Code::Settings,
                format!("error rendering the domain template: {}", e.message()),
            )
            .at(isvc.pos)
            .object(isvc.object.clone())
            .field("ingress.domainTemplate")
            .help(format!(
                "{}; the domain template also knows {{{{.IngressDomain}}}}",
                e.help()
            )));
        }
    };
    if !is_fully_qualified(&host) {
        return Err(Diagnostic::error(
            Code::Settings,
            format!("invalid domain name {host:?}: a fully qualified domain name of at least two lower-case labels is required"),
        )
        .at(isvc.pos)
        .object(isvc.object.clone())
        .field("ingress.domainTemplate")
        .help("OME fails to reconcile the ingress with it; change domainTemplate, ingressDomain or the ome.io/ingress-domain* annotations"));
    }
    Ok(host)
}

/// Kubernetes' `IsFullyQualifiedDomainName`: two labels at least, each a DNS-1123 label,
/// 253 characters at most, no trailing dot.
fn is_fully_qualified(host: &str) -> bool {
    host.len() <= 253 && host.split('.').count() >= 2 && host.split('.').all(is_dns1123_label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::isvc;

    #[test]
    fn the_domain_template_sees_the_name_namespace_labels_and_domain() {
        let s = isvc(
            "{metadata: {name: chat, namespace: team, labels: {tier: gold}}, spec: {engine: {}}}",
        );
        let mut config = IngressConfig::default();
        assert_eq!(
            domain_name("chat", &s, &config).unwrap(),
            "chat.team.svc.cluster.local"
        );
        config.domain_template = "{{ .Name }}-{{ .Labels.tier }}.{{ .IngressDomain }}".into();
        config.ingress_domain = "example.com".into();
        assert_eq!(
            domain_name("chat-engine", &s, &config).unwrap(),
            "chat-engine-gold.example.com"
        );
        config.domain_template = "{{ .Name }}".into();
        let e = domain_name("chat", &s, &config).unwrap_err();
        assert!(
            e.message.starts_with("invalid domain name \"chat\""),
            "{e:?}"
        );
        config.domain_template = "{{ .Name | upper }}.x.io".into();
        assert!(domain_name("chat", &s, &config).is_err());
    }

    #[test]
    fn annotations_change_the_domain() {
        let s = isvc(
            "{metadata: {name: chat, namespace: team, annotations: {ome.io/ingress-domain: int.example.com, ome.io/ingress-domain-template: '{{.Namespace}}-{{.Name}}.{{.IngressDomain}}'}}, spec: {engine: {}}}",
        );
        assert_eq!(
            domain_name("chat", &s, &IngressConfig::default()).unwrap(),
            "team-chat.int.example.com"
        );
    }
}
