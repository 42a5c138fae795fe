//! Traffic end to end (SEMANTICS.md#traffic): what replaces the external Service when
//! ingress creation is enabled, from `ome-render.yaml` or the service's annotations.

use super::render::{MODEL, errors, isvc, object, runtime};
use crate::pipeline::{Options, Rendering, render_texts};
use crate::yaml::Node;

fn render(settings: &str, spec: &str) -> Rendering {
    let options = Options {
        namespace: "default".into(),
        ..Options::default()
    };
    let input = format!(
        "{MODEL}{}{}",
        runtime("    runner: {name: ome-container, image: i, ports: [{containerPort: 8000}]}\n"),
        isvc(spec)
    );
    let mut files = vec![("in.yaml", input.as_str())];
    if !settings.is_empty() {
        files.push(("ome-render.yaml", settings));
    }
    render_texts(&files, &options)
}

fn kinds(r: &Rendering) -> Vec<String> {
    r.objects
        .iter()
        .map(|o| format!("{}/{}", o.kind, o.name))
        .collect()
}

#[test]
fn the_charts_default_renders_the_external_service_and_no_ingress() {
    let r = render("", "  engine: {}\n");
    assert_eq!(errors(&r), Vec::<&str>::new());
    assert!(kinds(&r).contains(&"Service/test-isvc".to_string()));
    assert!(!kinds(&r).iter().any(|k| k.starts_with("Ingress/")));
}

#[test]
fn enabled_ingress_replaces_the_external_service() {
    let r = render(
        "ingress: {disableIngressCreation: false}\n",
        "  engine: {}\n",
    );
    assert_eq!(errors(&r), Vec::<&str>::new());
    assert!(!kinds(&r).contains(&"Service/test-isvc".to_string()));
    let ingress = object(&r, "Ingress", "test-isvc");
    assert_eq!(ingress.str_at(&["spec", "ingressClassName"]), Some("istio"));
    let rule = &ingress
        .at(&["spec", "rules"])
        .and_then(Node::as_seq)
        .unwrap()[0];
    assert_eq!(
        rule.str_at(&["host"]),
        Some("test-isvc.ns.svc.cluster.local")
    );
    assert_eq!(
        rule.at(&["http", "paths"]).and_then(Node::as_seq).unwrap()[0]
            .at(&["backend", "service", "port", "number"])
            .and_then(Node::as_i64),
        Some(8000),
        "the first port of the engine's Service"
    );
}

#[test]
fn the_annotation_enables_ingress_for_one_service() {
    let spec = "  engine: {}\n";
    let text = isvc(spec).replace(
        "annotations: {custom-annotation: y}",
        "annotations: {custom-annotation: y, ome.io/ingress-disable-creation: 'false'}",
    );
    let options = Options {
        namespace: "default".into(),
        ..Options::default()
    };
    let input = format!(
        "{MODEL}{}{text}",
        runtime("    runner: {name: ome-container, image: i}\n")
    );
    let r = render_texts(&[("in.yaml", input.as_str())], &options);
    assert_eq!(errors(&r), Vec::<&str>::new());
    assert!(kinds(&r).contains(&"Ingress/test-isvc".to_string()));
    assert!(!kinds(&r).contains(&"Service/test-isvc".to_string()));
}

#[test]
fn the_gateway_api_renders_routes_and_without_envoys_api_no_policy() {
    let settings = "ingress: {disableIngressCreation: false, enableGatewayAPI: true, omeIngressGateway: envoy-gateway-system/ome}\n";
    let r = render(settings, "  engine: {}\n");
    assert_eq!(errors(&r), Vec::<&str>::new());
    let k = kinds(&r);
    for name in [
        "HTTPRoute/test-isvc",
        "HTTPRoute/test-isvc-engine",
        "BackendTrafficPolicy/test-isvc",
    ] {
        assert!(k.contains(&name.to_string()), "{name} in {k:?}");
    }
    let r = render(
        &format!("{settings}apiVersions: [gateway.networking.k8s.io/v1]\n"),
        "  engine: {}\n",
    );
    assert_eq!(errors(&r), Vec::<&str>::new());
    assert!(
        !kinds(&r)
            .iter()
            .any(|k| k.starts_with("BackendTrafficPolicy/"))
    );
    assert!(
        r.diags
            .iter()
            .any(|d| d.message.contains("never becomes Ready"))
    );
    let r = render(
        &format!("{settings}apiVersions: [gateway.envoyproxy.io/v1alpha1]\n"),
        "  engine: {}\n",
    );
    assert!(
        errors(&r)
            .iter()
            .any(|e| e.contains("gateway.networking.k8s.io/v1/HTTPRoute")),
        "{:?}",
        errors(&r)
    );
}

#[test]
fn a_misspelt_ingress_key_fails_the_render() {
    let r = render(
        "ingress: {disableIngresCreation: false}\n",
        "  engine: {}\n",
    );
    assert!(r.objects.is_empty());
    let d = r.diags.iter().find(|d| d.is_error()).expect("an error");
    assert_eq!(
        d.help.as_deref(),
        Some("did you mean `disableIngressCreation`?")
    );
}
