//! The Kubernetes objects of a RawDeployment component and of the InferenceService as a
//! whole (`rendering.md` §7 with DECISIONS #6–#13): Deployment, Service, HPA, PDB, the
//! external Service, the `modelconfig-…` ConfigMap and the router's RBAC.

use super::metadata::{Meta, string_map_node};
use super::{Rendered, names};
use crate::diagnostics::{Code, Diagnostic};
use crate::map;
use crate::model::{BaseModel, InferenceService};
use crate::yaml::emit::write_json_string;
use crate::yaml::{Map, Node};
use std::collections::BTreeMap;

/// Names shared by the objects of one component.
pub struct ComponentNames<'a> {
    /// `<isvc>-<component>`: Deployment, HPA and PDB.
    pub full: &'a str,
    /// The same, truncated to 63: the Service name and the `app` label.
    pub app: &'a str,
}

pub(crate) fn object_meta_map(
    api_version: &str,
    kind: &str,
    name: &str,
    isvc: &InferenceService,
    meta: Option<(Node, Node)>,
) -> Map {
    let mut metadata = map! { "name" => Node::str(name) };
    if let Some(ns) = &isvc.namespace {
        metadata.insert("namespace", Node::str(ns));
    }
    if let Some((labels, annotations)) = meta {
        if labels.as_map().is_some_and(|m| !m.is_empty()) {
            metadata.insert("labels", labels);
        }
        if annotations.as_map().is_some_and(|m| !m.is_empty()) {
            metadata.insert("annotations", annotations);
        }
    }
    map! {
        "apiVersion" => Node::str(api_version),
        "kind" => Node::str(kind),
        "metadata" => Node::map(metadata),
    }
}

fn rendered(isvc: &InferenceService, node: Map) -> Rendered {
    Rendered::new(Node::map(node), Some(isvc.object.clone()))
}

fn app_selector(app: &str) -> Node {
    Node::map(map! { "app" => Node::str(app) })
}

pub fn deployment(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    merged: &Node,
    pod_spec: Node,
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
    d.insert(
        "spec",
        Node::map(map! {
            "selector" => Node::map(map! { "matchLabels" => app_selector(names.app) }),
            "strategy" => strategy,
            "template" => Node::map(template),
        }),
    );
    rendered(isvc, d)
}

/// Pod template metadata: labels and annotations only (DECISIONS #7).
fn template_metadata(meta: &Meta) -> Map {
    let mut m = Map::new();
    if !meta.labels.is_empty() {
        m.insert("labels", meta.labels_node());
    }
    if !meta.annotations.is_empty() {
        m.insert("annotations", meta.annotations_node());
    }
    m
}

fn rolling_update() -> Node {
    Node::map(map! { "maxUnavailable" => Node::int(0), "maxSurge" => Node::int(1) })
}

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

/// The component Service, with its ports from the runner container (DECISIONS #8).
/// Returns the Service and its first port.
pub fn service(
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
            .unwrap_or(super::pod::DEFAULT_RUNNER_NAME);
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

/// Replica bounds (DECISIONS #10): the merged value, else the chart default.
pub fn replicas(merged: &Node, router: bool) -> (i64, i64) {
    let min = merged
        .get("minReplicas")
        .and_then(Node::as_i64)
        .unwrap_or(1);
    let max = merged
        .get("maxReplicas")
        .and_then(Node::as_i64)
        .filter(|m| *m != 0)
        .unwrap_or(if router { 2 } else { 3 });
    (min, max)
}

/// What drives a component's replica count.
enum Autoscaling {
    /// An HPA with these metrics (and behavior, when the component's `autoscaler` sets it).
    Hpa {
        metrics: Node,
        behavior: Option<Node>,
    },
    /// Nothing ome-render creates (`External`/`None`, or the `external` annotation).
    NoHpa,
}

fn cpu_metric(name: &str, target: i64) -> Node {
    Node::seq(vec![Node::map(map! {
        "type" => Node::str("Resource"),
        "resource" => Node::map(map! {
            "name" => Node::str(name),
            "target" => Node::map(map! {
                "type" => Node::str("Utilization"),
                "averageUtilization" => Node::int(target),
            }),
        }),
    })])
}

/// v1.3: the component's `autoscaler` block first, else the `ome.io/autoscalerClass`
/// annotation (`hpa` by default) with `ome.io/metrics` and
/// `ome.io/targetUtilizationPercentage`.
fn autoscaling(
    isvc: &InferenceService,
    meta: &Meta,
    merged: &Node,
    default_target: i64,
    field: &str,
) -> Result<Autoscaling, Diagnostic> {
    // Where an annotation was written: the component's wins over the InferenceService's.
    let annotation_pos = |key: &str| {
        merged
            .at(&["annotations", key])
            .or_else(|| isvc.annotations.get(key))
            .map_or(isvc.pos, |n| n.pos)
    };
    let error = |message: String, at: Option<&Node>, f: String| {
        let mut d = Diagnostic::error(Code::UnsupportedMode, message)
            .object(isvc.object.clone())
            .field(f);
        if let Some(n) = at {
            d = d.at(n.pos);
        }
        d
    };
    if let Some(policy) = merged.get("autoscalerPolicyRef").filter(|n| !n.is_zero()) {
        return Err(error(
            "autoscalerPolicyRef (alpha) is not rendered offline yet".to_string(),
            Some(policy),
            format!("{field}.autoscalerPolicyRef"),
        )
        .help("write the autoscaler inline in `autoscaler`"));
    }
    if let Some(block) = merged.get("autoscaler").filter(|n| !n.is_zero()) {
        return match block.get("class").and_then(Node::as_str) {
            Some("HPA") => {
                let metrics = block
                    .at(&["hpa", "metrics"])
                    .filter(|m| !m.is_zero())
                    .cloned()
                    .unwrap_or_else(|| cpu_metric("cpu", 80));
                let behavior = block.at(&["hpa", "behavior"]).filter(|b| !b.is_zero()).cloned();
                Ok(Autoscaling::Hpa { metrics, behavior })
            }
            Some("External" | "None") => Ok(Autoscaling::NoHpa),
            Some("KEDA") => Err(error(
                "KEDA autoscaling renders a KEDA ScaledObject, which ome-render does not render yet".into(),
                Some(block),
                format!("{field}.autoscaler.class"),
            )),
            other => Err(Diagnostic::error(
                Code::InvalidField,
                format!(
                    "autoscaler class {} is not one of HPA|KEDA|External|None",
                    other.map_or("(missing)".to_string(), |c| format!("\"{c}\""))
                ),
            )
            .at(block.pos)
            .object(isvc.object.clone())
            .field(format!("{field}.autoscaler.class"))),
        };
    }
    match meta
        .annotations
        .get("ome.io/autoscalerClass")
        .map(String::as_str)
    {
        None | Some("" | "hpa") => {}
        Some("external") => return Ok(Autoscaling::NoHpa),
        Some("keda") => {
            return Err(error(
                "KEDA autoscaling renders a KEDA ScaledObject, which ome-render does not render yet".into(),
                None,
                "metadata.annotations.ome.io/autoscalerClass".into(),
            )
            .at(annotation_pos("ome.io/autoscalerClass")));
        }
        Some(other) => {
            return Err(Diagnostic::error(
                Code::InvalidField,
                format!("ome.io/autoscalerClass must be hpa, keda or external, not `{other}`"),
            )
            .at(annotation_pos("ome.io/autoscalerClass"))
            .object(isvc.object.clone())
            .field("metadata.annotations.ome.io/autoscalerClass"));
        }
    }
    let metric = match meta.annotations.get("ome.io/metrics").map(String::as_str) {
        None | Some("") => "cpu",
        Some(m @ ("cpu" | "memory")) => m,
        Some(other) => {
            return Err(Diagnostic::error(
                Code::InvalidField,
                format!("ome.io/metrics must be cpu or memory, not `{other}`"),
            )
            .at(annotation_pos("ome.io/metrics"))
            .object(isvc.object.clone())
            .field("metadata.annotations.ome.io/metrics"));
        }
    };
    let target = match meta.annotations.get("ome.io/targetUtilizationPercentage") {
        Some(v) => match v.parse::<i64>() {
            Ok(n) if (1..=100).contains(&n) => n,
            _ => {
                return Err(Diagnostic::error(
                    Code::InvalidField,
                    format!("ome.io/targetUtilizationPercentage must be a number from 1 to 100, not `{v}`"),
                )
                .at(annotation_pos("ome.io/targetUtilizationPercentage"))
                .object(isvc.object.clone())
                .field("metadata.annotations.ome.io/targetUtilizationPercentage"));
            }
        },
        None => default_target,
    };
    Ok(Autoscaling::Hpa {
        metrics: cpu_metric(metric, target),
        behavior: None,
    })
}

/// The component's HPA (`autoscaling/v2`), unless its autoscaling is external. Problems are
/// pushed to `diags`.
#[allow(clippy::too_many_arguments)]
pub fn hpa(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    merged: &Node,
    (min, max): (i64, i64),
    default_target: i64,
    diags: &mut Vec<Diagnostic>,
    field: &str,
) -> Option<Rendered> {
    let (metrics, behavior) = match autoscaling(isvc, meta, merged, default_target, field) {
        Ok(Autoscaling::Hpa { metrics, behavior }) => (metrics, behavior),
        Ok(Autoscaling::NoHpa) => return None,
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    let min = min.max(1);
    let max = max.max(min);
    let mut h = object_meta_map(
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        names.full,
        isvc,
        Some((meta.labels_node(), meta.annotations_node())),
    );
    let mut spec = map! {
        "scaleTargetRef" => Node::map(map! {
            "apiVersion" => Node::str("apps/v1"),
            "kind" => Node::str("Deployment"),
            "name" => Node::str(names.full),
        }),
        "minReplicas" => Node::int(min),
        "maxReplicas" => Node::int(max),
        "metrics" => metrics,
    };
    if let Some(b) = behavior {
        spec.insert("behavior", b);
    }
    h.insert("spec", Node::map(spec));
    Some(rendered(isvc, h))
}

/// The PodDisruptionBudget: the component's `minAvailable` or `maxUnavailable`, else
/// `maxUnavailable: 1` (the chart's default). Both at once is an error, as in OME v1.3.
pub fn pdb(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    merged: &Node,
    diags: &mut Vec<Diagnostic>,
    field: &str,
) -> Option<Rendered> {
    let min_available = merged.get("minAvailable").filter(|n| !n.is_null());
    let max_unavailable = merged.get("maxUnavailable").filter(|n| !n.is_null());
    let budget = match (min_available, max_unavailable) {
        (Some(a), Some(_)) => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidField,
                    "set exactly one of minAvailable or maxUnavailable",
                )
                .at(a.pos)
                .object(isvc.object.clone())
                .field(format!("{field}.minAvailable")),
            );
            return None;
        }
        (Some(a), None) => ("minAvailable", a.clone()),
        (None, Some(b)) => ("maxUnavailable", b.clone()),
        (None, None) => ("maxUnavailable", Node::int(1)),
    };
    let mut p = object_meta_map(
        "policy/v1",
        "PodDisruptionBudget",
        names.full,
        isvc,
        Some((meta.labels_node(), meta.annotations_node())),
    );
    p.insert(
        "spec",
        Node::map(map! {
            budget.0 => budget.1,
            "selector" => Node::map(map! { "matchLabels" => app_selector(names.app) }),
        }),
    );
    Some(rendered(isvc, p))
}

/// The Service `<isvc>` in front of the router, else the engine (`rendering.md` §7.5).
pub fn external_service(isvc: &InferenceService, target_role: &str, port: i64) -> Rendered {
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
            "component" => Node::str(target_role),
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

/// The `modelconfig-<last 20 characters>` ConfigMap with `models.json` (`rendering.md` §7.6).
pub fn model_config(isvc: &InferenceService, model_name: &str, model: &BaseModel) -> Rendered {
    let mut c = object_meta_map(
        "v1",
        "ConfigMap",
        &names::model_config_name(&isvc.name),
        isvc,
        Some((
            Node::map(map! { "ome.io/inferenceservice" => Node::str(&isvc.name) }),
            Node::map(Map::new()),
        )),
    );
    c.insert(
        "data",
        Node::map(map! { "models.json" => Node::str(models_json(model_name, model)) }),
    );
    rendered(isvc, c)
}

/// Go's `encoding/json` escapes `<`, `>` and `&`; so does this, for identical bytes.
fn go_json_string(s: &str, out: &mut Vec<u8>) {
    let mut tmp = Vec::new();
    write_json_string(s, &mut tmp);
    for b in tmp {
        match b {
            b'<' => out.extend_from_slice(b"\\u003c"),
            b'>' => out.extend_from_slice(b"\\u003e"),
            b'&' => out.extend_from_slice(b"\\u0026"),
            _ => out.push(b),
        }
    }
}

fn models_json(model_name: &str, model: &BaseModel) -> String {
    let mut fields: Vec<(&str, Option<String>)> = vec![
        ("storageUri", model.storage.storage_uri.clone()),
        ("path", model.storage.path.clone()),
        ("schemaPath", model.storage.schema_path.clone()),
    ];
    let parameters = model
        .storage
        .parameters
        .as_ref()
        .and_then(Node::as_map)
        .filter(|m| !m.is_empty())
        .map(|m| {
            let mut sorted: Vec<(&str, String)> = m
                .iter()
                .filter_map(|(k, v)| v.scalar_text().map(|t| (k, t)))
                .collect();
            sorted.sort();
            let mut out = Vec::from(&b"{"[..]);
            for (i, (k, v)) in sorted.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                go_json_string(k, &mut out);
                out.push(b':');
                go_json_string(v, &mut out);
            }
            out.push(b'}');
            String::from_utf8(out).unwrap_or_default()
        });
    let mut out = Vec::new();
    out.extend_from_slice(b"[{\"modelName\":");
    go_json_string(model_name, &mut out);
    out.extend_from_slice(b",\"modelSpec\":{");
    let mut first = true;
    let mut field = |out: &mut Vec<u8>, key: &str, raw_json: Option<&str>, value: Option<&str>| {
        if raw_json.is_none() && value.is_none_or(str::is_empty) {
            return;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        go_json_string(key, out);
        out.push(b':');
        match raw_json {
            Some(raw) => out.extend_from_slice(raw.as_bytes()),
            None => go_json_string(value.unwrap_or_default(), out),
        }
    };
    for (k, v) in fields.drain(..) {
        field(&mut out, k, None, v.as_deref());
    }
    field(&mut out, "parameters", parameters.as_deref(), None);
    field(&mut out, "storageKey", None, model.storage.key.as_deref());
    field(
        &mut out,
        "modelFormatName",
        None,
        model.format.as_ref().map(|f| f.name.as_str()),
    );
    field(
        &mut out,
        "modelFormatVersion",
        None,
        model.format.as_ref().and_then(|f| f.version.as_deref()),
    );
    field(&mut out, "modelType", None, model.model_type.as_deref());
    field(
        &mut out,
        "modelFrameworkName",
        None,
        model.framework.as_ref().map(|f| f.name.as_str()),
    );
    field(
        &mut out,
        "modelFrameworkVersion",
        None,
        model.framework.as_ref().and_then(|f| f.version.as_deref()),
    );
    out.extend_from_slice(b"}}]");
    String::from_utf8(out).unwrap_or_default()
}

/// The router's ServiceAccount, Role and RoleBinding, all `<isvc>-router` (§7.7).
pub fn router_rbac(isvc: &InferenceService, name: &str, meta: &Meta) -> Vec<Rendered> {
    let labels = || Some((meta.labels_node(), Node::map(Map::new())));
    let sa = object_meta_map("v1", "ServiceAccount", name, isvc, labels());
    let mut role = object_meta_map("rbac.authorization.k8s.io/v1", "Role", name, isvc, labels());
    role.insert(
        "rules",
        Node::seq(vec![Node::map(map! {
            "apiGroups" => Node::seq(vec![Node::str("")]),
            "resources" => Node::seq(vec![Node::str("pods")]),
            "verbs" => Node::seq(vec![Node::str("get"), Node::str("list"), Node::str("watch")]),
        })]),
    );
    let mut binding = object_meta_map(
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        name,
        isvc,
        labels(),
    );
    binding.insert(
        "roleRef",
        Node::map(map! {
            "apiGroup" => Node::str("rbac.authorization.k8s.io"),
            "kind" => Node::str("Role"),
            "name" => Node::str(name),
        }),
    );
    let mut subject = map! {
        "kind" => Node::str("ServiceAccount"),
        "name" => Node::str(name),
    };
    if let Some(ns) = &isvc.namespace {
        subject.insert("namespace", Node::str(ns));
    }
    binding.insert("subjects", Node::seq(vec![Node::map(subject)]));
    vec![
        rendered(isvc, sa),
        rendered(isvc, role),
        rendered(isvc, binding),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_json_follows_go() {
        let model = BaseModel {
            name: "m".into(),
            namespace: None,
            object: crate::diagnostics::ObjectRef {
                kind: "ClusterBaseModel".into(),
                namespace: None,
                name: "m".into(),
            },
            pos: Default::default(),
            disabled: false,
            format: Some(crate::model::FormatRef {
                name: "safetensors".into(),
                version: Some("1.0.0".into()),
                operator: "Equal".into(),
                weight: 1,
            }),
            framework: None,
            architecture: None,
            quantization: None,
            parameter_size: None,
            diffusion: None,
            vendor: None,
            model_type: None,
            distribution: None,
            storage: crate::model::base_model::Storage {
                storage_uri: Some("hf://a/b<c>&d".into()),
                path: Some("/raid/m".into()),
                key: Some("hf-token".into()),
                schema_path: None,
                parameters: None,
            },
            category: None,
        };
        assert_eq!(
            models_json("m", &model),
            r#"[{"modelName":"m","modelSpec":{"storageUri":"hf://a/b\u003cc\u003e\u0026d","path":"/raid/m","storageKey":"hf-token","modelFormatName":"safetensors","modelFormatVersion":"1.0.0"}}]"#
        );
    }
}
