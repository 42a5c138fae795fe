//! OME's ConfigMap `inferenceservice-config` (`--deploy-config`), read as OME's controller
//! reads it (SEMANTICS.md#deploy-config): each data key OME reads holds a JSON document; a
//! key left out is what OME's code holds without it (nothing for `deploy` and
//! `podDisruptionBudget`, the code's values for `ingress`); data keys OME reads for what is
//! not rendered (`omeAgent`, `servingSidecar`, …) are passed over, and a field OME ignores
//! inside a key it reads is a warning.

use super::{Origin, Settings, settings_diag};
use crate::diagnostics::{Code, Diagnostic};
use crate::go;
use crate::k8s::id::ObjectId;
use crate::model::fields::Reader;
use crate::yaml::{Node, Pos, Value};

/// The ConfigMap's name, as OME looks it up.
pub(crate) const CONFIG_MAP_NAME: &str = "inferenceservice-config";

/// The data keys ome-render reads (SEMANTICS.md#deploy-config lists what each changes).
pub(crate) const READ_KEYS: &[&str] = &[
    "deploy",
    "ingress",
    "podDisruptionBudget",
    "acceleratorResources",
    "autoscalerPolicy",
    "metricProviders",
    "podMonitor",
];

impl Settings {
    /// The settings of OME's ConfigMap alone: ome-render's own settings at their defaults,
    /// OME's as the ConfigMap says.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "the `components` command reads it (#31)")
    )]
    pub(crate) fn from_config_map(node: &Node, diags: &mut Vec<Diagnostic>) -> Settings {
        let mut settings = Settings::default();
        settings.read_config_map(node, diags);
        settings
    }

    /// Replaces OME's settings (`deploy`, `ingress`, `podDisruptionBudget`,
    /// `acceleratorResources`) with those of OME's ConfigMap `node`, checked as OME checks
    /// them; ome-render's own settings (`autoscaling`, `omeNamespace`, `apiVersions`) stay.
    pub(crate) fn read_config_map(&mut self, node: &Node, diags: &mut Vec<Diagnostic>) {
        let object = ObjectId::written(
            "v1",
            "ConfigMap",
            node.str_at(&["metadata", "namespace"]).map(str::to_string),
            node.str_at(&["metadata", "name"])
                .unwrap_or(CONFIG_MAP_NAME),
        );
        let error = |n: &Node, message: String| {
            Diagnostic::error(Code::DeployConfig, message)
                .at(n.pos)
                .object(object.clone())
        };
        let api_version = node.str_at(&["apiVersion"]).unwrap_or("");
        let kind = node.str_at(&["kind"]).unwrap_or("");
        if node.as_map().is_none() || api_version != "v1" || kind != "ConfigMap" {
            diags.push(
                error(node, format!("deploy defaults: manifest is {api_version} {kind}, want v1 ConfigMap"))
                    .help(format!("--deploy-config names a file holding OME's ConfigMap {CONFIG_MAP_NAME} (kubectl get configmap -n ome {CONFIG_MAP_NAME} -o yaml)")),
            );
            return;
        }
        let name = node.str_at(&["metadata", "name"]).unwrap_or("");
        if name != CONFIG_MAP_NAME {
            diags.push(error(
                node.at(&["metadata", "name"]).unwrap_or(node),
                format!("deploy defaults: ConfigMap is named {name:?}, want {CONFIG_MAP_NAME:?}"),
            ));
            return;
        }
        // OME's code without any key: nothing stamped, no budget, the code's ingress.
        self.deploy = super::DeployConfig::unset();
        self.raw_deployment_budget = None;
        // OME's code creates ingress unless told not to (the chart's values disable it).
        self.ingress = super::IngressConfig::default();
        self.ingress.disable_ingress_creation = false;
        self.accelerator_resources = vec!["nvidia.com/gpu".to_string()];
        let Some(data) = node.get("data") else {
            return;
        };
        let Some(entries) = data.as_map() else {
            if !data.is_null() {
                diags.push(error(
                    data,
                    format!("deploy defaults: decode manifest: `data` must be a map of strings, found {}", data.type_name()),
                ));
            }
            return;
        };
        for (key, value) in entries.iter() {
            if !READ_KEYS.contains(&key) {
                continue;
            }
            let Some(text) = value.as_str() else {
                diags.push(
                    error(value, format!("deploy defaults: decode manifest: data.{key} must be a string, found {}", value.type_name()))
                        .field(format!("data.{key}"))
                        .help("each data key of the ConfigMap holds a JSON document as a string (`key: |` and the JSON below)"),
                );
                continue;
            };
            // OME skips these keys when blank; `deploy` and `ingress` it decodes whatever they hold.
            let blank = text.trim().is_empty();
            if blank && !matches!(key, "deploy" | "ingress") {
                continue;
            }
            let Some(json) = parse_json(text, value.pos, key, &object, diags) else {
                continue;
            };
            let path = format!("data.{key}");
            match key {
                "deploy" => {
                    self.deploy
                        .read(&json, &path, &object, Origin::ConfigMap, diags);
                }
                "ingress" => {
                    let mut r = Reader {
                        object: &object,
                        diags,
                    };
                    if json.as_map().is_some() {
                        self.ingress.read(&mut r, &json, Origin::ConfigMap);
                    } else {
                        r.diags.push(error(&json, format!("unable to parse ingress config json: `{path}` must be a JSON object, found {}", json.type_name())));
                    }
                }
                "podDisruptionBudget" => {
                    super::read_budget(
                        &json,
                        &path,
                        &object,
                        Origin::ConfigMap,
                        diags,
                        &mut self.raw_deployment_budget,
                    );
                }
                "acceleratorResources" => {
                    read_accelerators(
                        &json,
                        &path,
                        &object,
                        diags,
                        &mut self.accelerator_resources,
                    );
                }
                "autoscalerPolicy" => {
                    read_providers(
                        json.get("metricProviders"),
                        &path,
                        &object,
                        "autoscalerPolicy config: ",
                        diags,
                    );
                    if !json.is_null() && json.as_map().is_none() {
                        diags.push(error(&json, format!("unable to parse autoscalerPolicy config json: `{path}` must be a JSON object")));
                    }
                }
                "metricProviders" => read_providers(Some(&json), &path, &object, "", diags),
                "podMonitor" => {
                    let mut r = Reader {
                        object: &object,
                        diags,
                    };
                    if json.as_map().is_some() {
                        self.pod_monitor.read(&mut r, &json, Origin::ConfigMap);
                    } else {
                        r.diags.push(error(&json, format!("unable to parse podMonitor config json: `{path}` must be a JSON object, found {}", json.type_name())));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The JSON document of a data key, read as OME's `json.Unmarshal` reads it (strict JSON,
/// Go's messages), with its keys at the names of the Go fields they fill (matched without
/// regard to case, the last of several winning: `go::decode::fold`), its positions moved
/// into the ConfigMap's file: the line of a field of a block scalar (`key: |`) is found from
/// the key's; a one-line value points at the key. `None`, with OME's message, when it does
/// not parse.
fn parse_json(
    text: &str,
    at: Pos,
    key: &str,
    object: &ObjectId,
    diags: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let what = match key {
        "deploy" => "deploy config json".to_string(),
        "ingress" => "ingress config json".to_string(),
        "podDisruptionBudget" | "acceleratorResources" => format!("{key:?} config json"),
        _ => format!("{key} config json"),
    };
    let block = text.contains('\n');
    match go::json::parse(text, at.file) {
        Err(e) => {
            let mut place = Node::new(Value::Null, e.pos);
            relocate(&mut place, at, block);
            diags.push(
                Diagnostic::error(
                    Code::DeployConfig,
                    format!("unable to parse {what}: {}", e.message),
                )
                .at(place.pos)
                .object(object.clone())
                .field(format!("data.{key}"))
                .help("the data key holds one JSON document, as encoding/json reads it (no comments, keys and strings in double quotes)"),
            );
            None
        }
        Ok(root) => {
            let mut root = go::decode::fold(&root, &|path| go_fields(key, path));
            relocate(&mut root, at, block);
            Some(root)
        }
    }
}

/// The field names of the Go struct at `path` in data key `key`'s document (OME's config
/// types), or `None` for a Go map or a value read as a whole.
fn go_fields(key: &str, path: &[&str]) -> Option<Vec<&'static str>> {
    match key {
        "deploy" => super::schema::names_at(super::schema::DEPLOY, path),
        "podDisruptionBudget" => super::schema::names_at(super::schema::BUDGETS, path),
        "ingress" => match path {
            [] => Some(super::ingress::KEYS.to_vec()),
            ["additionalIngressGateways"]
            | ["namespaceIngressGateways", _, "primary" | "additional"] => {
                Some(super::ingress::GATEWAY_KEYS.to_vec())
            }
            ["namespaceIngressGateways", _] => {
                Some(super::ingress::NAMESPACE_GATEWAY_KEYS.to_vec())
            }
            _ => None,
        },
        "podMonitor" => match path {
            [] => Some(super::pod_monitor::KEYS.to_vec()),
            ["relabelings" | "metricRelabelings"] => {
                Some(super::pod_monitor::RELABEL_KEYS.to_vec())
            }
            _ => None,
        },
        "autoscalerPolicy" => path.is_empty().then(|| vec!["metricProviders"]),
        _ => None,
    }
}

/// Moves the positions of a data key's document into the ConfigMap's file.
fn relocate(node: &mut Node, at: Pos, block: bool) {
    node.pos = if block {
        Pos {
            file: at.file,
            line: at.line.saturating_add(node.pos.line),
            col: at.col.saturating_add(2).saturating_add(node.pos.col),
        }
    } else {
        at
    };
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|n| relocate(n, at, block)),
        Value::Map(map) => map.iter_mut().for_each(|(_, n)| relocate(n, at, block)),
        _ => {}
    }
}

/// `acceleratorResources`: a JSON list of resource names; an empty one keeps OME's fallback,
/// `nvidia.com/gpu`.
fn read_accelerators(
    json: &Node,
    path: &str,
    object: &ObjectId,
    diags: &mut Vec<Diagnostic>,
    out: &mut Vec<String>,
) {
    let names = match &json.value {
        Value::Null => return,
        Value::Seq(items) => items
            .iter()
            .map(|n| n.as_str().map(str::to_string).ok_or(n))
            .collect::<Result<Vec<String>, &Node>>(),
        _ => Err(json),
    };
    match names {
        Ok(names) if names.is_empty() => {}
        Ok(names) => *out = names,
        Err(n) => diags.push(settings_diag(
            Origin::ConfigMap,
            object,
            n,
            path,
            "unable to parse \"acceleratorResources\" config json: a JSON list of resource names is wanted".into(),
        )),
    }
}

/// `metricProviders` (or `autoscalerPolicy.metricProviders`): every binding needs a
/// `serverAddress`.
fn read_providers(
    json: Option<&Node>,
    path: &str,
    object: &ObjectId,
    prefix: &str,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(json) = json.filter(|n| !n.is_null()) else {
        return;
    };
    let Some(map) = json.as_map() else {
        diags.push(settings_diag(
            Origin::ConfigMap,
            object,
            json,
            path,
            "unable to parse metricProviders config json: a JSON object of bindings is wanted"
                .into(),
        ));
        return;
    };
    for (name, binding) in map.iter() {
        if binding
            .get("serverAddress")
            .and_then(Node::as_str)
            .is_none_or(str::is_empty)
        {
            diags.push(
                settings_diag(
                    Origin::ConfigMap,
                    object,
                    binding,
                    &format!("{path}.{name}"),
                    format!("{prefix}metric provider {name:?} has no serverAddress"),
                )
                .help("OME's controller refuses a binding without its address"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::component::DeploymentMode;
    use crate::yaml::parse::parse_stream;

    fn read(text: &str) -> (Settings, Vec<Diagnostic>) {
        let node = parse_stream(text, 0).expect("yaml").remove(0).root;
        let mut diags = Vec::new();
        let settings = Settings::from_config_map(&node, &mut diags);
        (settings, diags)
    }

    #[test]
    fn the_deploy_key_is_read_and_what_is_left_out_is_unset() {
        let (s, diags) = read(
            r#"apiVersion: v1
kind: ConfigMap
metadata: {name: inferenceservice-config}
data:
  deploy: |
    {"defaultDeploymentMode": "RawDeployment",
     "replicas": {"defaultMaxReplicas": {"engine": 6}}, "minReadySeconds": 5}
"#,
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            s.deploy.default_deployment_mode,
            DeploymentMode::RawDeployment
        );
        assert_eq!(s.deploy.termination_grace_period_seconds, None);
        assert_eq!(s.deploy.replicas.min, None);
        assert_eq!(s.deploy.replicas.max_engine, Some(6));
        assert_eq!(s.deploy.replicas.max_router, None);
        assert_eq!(s.deploy.min_ready_seconds, Some(5));
        assert_eq!(s.raw_deployment_budget, None);
        assert!(!s.ingress.disable_ingress_creation);
        // ome-render's own settings keep their defaults.
        assert_eq!(s.target_utilization_percentage, 80);
    }

    #[test]
    fn a_field_of_a_block_value_is_shown_at_its_line() {
        let (_, diags) = read(
            r#"apiVersion: v1
kind: ConfigMap
metadata: {name: inferenceservice-config}
data:
  deploy: |
    {"defaultDeploymentMode": "RawDeployment",
     "replicas": {"defaultMinReplicas": 0}}
"#,
        );
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(
            diags[0].message,
            "invalid deploy config, replicas.defaultMinReplicas must be > 0, got 0"
        );
        assert_eq!(diags[0].pos.map(|p| p.line), Some(7));
        assert_eq!(diags[0].code, Code::DeployConfig);
    }

    #[test]
    fn blank_keys_are_skipped_but_a_blank_deploy_is_refused() {
        let (_, diags) = read(
            r"apiVersion: v1
kind: ConfigMap
metadata: {name: inferenceservice-config}
data:
  podDisruptionBudget: ' '
  deploy: ''
",
        );
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(
            diags[0]
                .message
                .starts_with("unable to parse deploy config json")
        );
    }
}

#[cfg(test)]
mod json_tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    const HEAD: &str = r"apiVersion: v1
kind: ConfigMap
metadata: {name: inferenceservice-config}
data:
";

    fn read(data: &str) -> (Settings, Vec<Diagnostic>) {
        let node = parse_stream(&format!("{HEAD}{data}"), 0)
            .expect("yaml")
            .remove(0)
            .root;
        let mut diags = Vec::new();
        let settings = Settings::from_config_map(&node, &mut diags);
        (settings, diags)
    }

    #[test]
    fn yaml_that_is_not_json_is_refused_with_go_s_message() {
        let (_, diags) = read("  deploy: |\n    defaultDeploymentMode: RawDeployment\n");
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(
            diags[0].message,
            "unable to parse deploy config json: invalid character 'd' looking for beginning of value"
        );
        let (_, diags) = read("  deploy: \"{'defaultDeploymentMode': 'RawDeployment'}\"\n");
        assert_eq!(
            diags[0].message,
            "unable to parse deploy config json: invalid character '\\'' looking for beginning of object key string"
        );
        let (_, diags) = read("  deploy: '{invalid-json}'\n");
        assert_eq!(
            diags[0].message,
            "unable to parse deploy config json: invalid character 'i' looking for beginning of object key string"
        );
        let (_, diags) = read("  deploy: ''\n");
        assert_eq!(
            diags[0].message,
            "unable to parse deploy config json: unexpected end of JSON input"
        );
    }

    #[test]
    fn a_syntax_error_in_a_block_value_is_shown_at_its_line() {
        let (_, diags) = read(
            "  deploy: |\n    {\"defaultDeploymentMode\": \"RawDeployment\",\n     \"replicas\": {\"defaultMinReplicas\": 1,}}\n",
        );
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(
            diags[0].message,
            "unable to parse deploy config json: invalid character '}' looking for beginning of object key string"
        );
        let pos = diags[0].pos.expect("a position");
        assert_eq!((pos.line, pos.col), (7, 42));
    }

    #[test]
    fn field_names_match_without_regard_to_case_as_encoding_json_does() {
        let (s, diags) = read(
            "  deploy: '{\"DefaultDeploymentMode\": \"RawDeployment\", \"TERMINATIONGRACEPERIODSECONDS\": 45, \"replicas\": {\"defaultminreplicas\": 2}}'\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            s.deploy.default_deployment_mode,
            crate::model::component::DeploymentMode::RawDeployment
        );
        assert_eq!(s.deploy.termination_grace_period_seconds, Some(45));
        assert_eq!(s.deploy.replicas.min, Some(2));
        let (s, diags) = read(
            "  ingress: '{\"IngressGateway\": \"istio-system/gw\", \"ingressservice\": \"gw.istio-system\", \"IngressDomain\": \"a.example\", \"additionalIngressGateways\": [{\"OmeIngressGateway\": \"gw/x\", \"ingressdomain\": \"b.example\"}]}'\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(s.ingress.ingress_domain, "a.example");
    }

    #[test]
    fn of_several_keys_for_one_field_the_last_wins() {
        let (s, diags) = read(
            "  deploy: '{\"defaultDeploymentMode\": \"RawDeployment\", \"terminationGracePeriodSeconds\": 30, \"TerminationGracePeriodSeconds\": 45, \"minReadySeconds\": 1, \"minReadySeconds\": 7}'\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(s.deploy.termination_grace_period_seconds, Some(45));
        assert_eq!(s.deploy.min_ready_seconds, Some(7));
        // Two objects for one struct field are merged, as Go decodes into the same struct.
        let (s, diags) = read(
            "  deploy: '{\"defaultDeploymentMode\": \"RawDeployment\", \"replicas\": {\"defaultMinReplicas\": 2}, \"Replicas\": {\"defaultMaxReplicas\": {\"engine\": 4}}}'\n",
        );
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(s.deploy.replicas.min, Some(2));
        assert_eq!(s.deploy.replicas.max_engine, Some(4));
    }

    #[test]
    fn unknown_fields_are_still_warned() {
        let (_, diags) = read(
            "  deploy: '{\"defaultDeploymentMode\": \"RawDeployment\", \"terminationGracePeriod\": 45}'\n",
        );
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(
            diags[0].message.contains("terminationGracePeriod"),
            "{diags:?}"
        );
    }
}
