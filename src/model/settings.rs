//! The renderer settings: the OME controller settings a cluster would hold in its
//! `inferenceservice-config`, read from `ome-render.yaml` at the root of the rendered tree
//! (SEMANTICS.md#settings), or from that ConfigMap itself (`--deploy-config`,
//! SEMANTICS.md#deploy-config). Without either, OME's shipped (Helm chart) defaults apply.
//! The file's keys are named and nested as the ConfigMap's JSON, so one pastes into the other.
//!
//! ```yaml
//! # ome-render.yaml
//! deploy:                              # the ConfigMap's `deploy`
//!   terminationGracePeriodSeconds: 600 # pods' grace period when neither runtime nor isvc set one
//!   replicas:                          # bounds for components that set none (null removes one)
//!     defaultMinReplicas: 1
//!     defaultMaxReplicas: {engine: 3, decoder: 3, router: 2}
//! podDisruptionBudget:                 # the budget of components that set none (null: no PDB)
//!   rawDeployment: {maxUnavailable: 1}
//! ingress:
//!   disableIngressCreation: true       # false: no external Service `<isvc>` is rendered
//! acceleratorResources: [nvidia.com/gpu]  # resource names counted for PARALLELISM_SIZE
//! # ome-render's own:
//! autoscaling:
//!   targetUtilizationPercentage: 80    # the HPA's CPU target when nothing else sets one
//! omeNamespace: ome                    # where OME keeps runtime revisions
//! apiVersions: [leaderworkerset.x-k8s.io/v1]  # the non-built-in APIs the cluster serves
//! podMonitor:                          # OME's labels and relabelings for OMENative
//!   labels: {release: prometheus}      #   PodMonitors (none ome-render renders)
//! modelAgent: {enabled: true}          # the cluster runs OME's model agent (chart: false)
//! ```

mod config_map;
mod deploy;
pub(crate) mod ingress;
mod model_agent;
mod pod_monitor;
pub(crate) mod schema;

pub(crate) use deploy::{DeployConfig, ReplicaDefaults};
pub(crate) use ingress::{GatewaySpec, IngressConfig, IngressOverride};
pub(crate) use model_agent::ModelAgent;
pub(crate) use pod_monitor::PodMonitorConfig;

use super::fields::Reader;
use super::int_or_str::{IntOrStr, valid_budget};
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic};
use crate::go;
use crate::k8s::api_versions::ApiVersions;
use crate::k8s::id::ObjectId;
use crate::k8s::meta::{DNS1123_LABEL_HELP, dns1123_label_problems, is_label_chars};
use crate::yaml::{Node, Value};

/// A PodDisruptionBudget's one field: `minAvailable` or `maxUnavailable`, with its value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Budget {
    pub(crate) field: &'static str,
    pub(crate) value: Node,
}

/// Where settings are read from, which decides how strict the reading is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `ome-render.yaml`: an unknown key is an error, as a typo there would do nothing.
    File,
    /// OME's ConfigMap `inferenceservice-config`: OME ignores unknown keys; a warning.
    ConfigMap,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Settings {
    /// `deploy`: OME's DeployConfig (grace period, replica bounds, default mode).
    pub(crate) deploy: DeployConfig,
    /// `ingress`: OME's IngressConfig.
    pub(crate) ingress: IngressConfig,
    /// `podMonitor`: OME's PodMonitorConfig (SEMANTICS.md#monitoring).
    pub(crate) pod_monitor: PodMonitorConfig,
    /// The APIs the cluster serves (`apiVersions`, `--api-versions`); `None` where no list
    /// is given (SEMANTICS.md#api-versions).
    pub(crate) api_versions: Option<ApiVersions>,
    pub(crate) target_utilization_percentage: i64,
    /// Resource names whose count is the GPUs per pod, first present wins.
    pub(crate) accelerator_resources: Vec<String>,
    /// OME's own namespace, where runtime revisions live (the controller's `POD_NAMESPACE`).
    pub(crate) ome_namespace: String,
    /// `podDisruptionBudget.rawDeployment`: the budget of RawDeployment components that set
    /// none; `None` for no PDB.
    pub(crate) raw_deployment_budget: Option<Budget>,
    /// `modelAgent`: whether the cluster runs OME's model agent.
    pub(crate) model_agent: ModelAgent,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            deploy: DeployConfig::chart(),
            ingress: IngressConfig::default(),
            pod_monitor: PodMonitorConfig::default(),
            api_versions: None,
            target_utilization_percentage: 80,
            accelerator_resources: vec!["nvidia.com/gpu".to_string()],
            ome_namespace: "ome".to_string(),
            raw_deployment_budget: Some(Budget {
                field: "maxUnavailable",
                value: Node::int(1),
            }),
            model_agent: ModelAgent::default(),
        }
    }
}

/// The keys of the settings file that are the ConfigMap's data keys (OME's settings).
pub(crate) const OME_KEYS: &[&str] = &[
    "deploy",
    "podDisruptionBudget",
    "ingress",
    "acceleratorResources",
    "podMonitor",
];

/// Keys of the settings file's old layout, read for one release with a warning: each with
/// its new place.
pub(crate) const MOVED_KEYS: &[(&str, &str)] = &[
    (
        "terminationGracePeriodSeconds",
        "deploy.terminationGracePeriodSeconds",
    ),
    ("replicas", "deploy.replicas"),
];

/// Keys a settings file may hold that mean nothing (a Kubernetes-style header).
const HEADER_KEYS: &[&str] = &["apiVersion", "kind", "metadata"];

impl Settings {
    /// The settings of a run: the settings file's (or the chart's values), and, with
    /// `--deploy-config`, OME's settings from OME's ConfigMap instead. An OME setting written
    /// in both is an error: which one a cluster has would be unclear.
    pub(crate) fn read_all(
        file: Option<&Node>,
        config_map: Option<&Node>,
        diags: &mut Vec<Diagnostic>,
    ) -> Settings {
        let mut settings = Settings::read(file, diags);
        let Some(config_map) = config_map else {
            return settings;
        };
        for (key, value) in file
            .and_then(Node::as_map)
            .into_iter()
            .flat_map(|m| m.iter())
        {
            let moved = MOVED_KEYS.iter().any(|(old, _)| *old == key);
            if OME_KEYS.contains(&key) || moved {
                diags.push(
                    Diagnostic::error(
                        Code::Settings,
                        format!("`{key}` is set in the settings file and --deploy-config gives OME's ConfigMap"),
                    )
                    .at(value.pos)
                    .object(file_object())
                    .field(key)
                    .help("OME's settings come from one place: remove the key from the settings file, or leave out --deploy-config"),
                );
            }
        }
        settings.read_config_map(config_map, diags);
        settings
    }

    /// Reads the settings file; unknown keys are errors, so a typo never goes unnoticed.
    pub(crate) fn read(node: Option<&Node>, diags: &mut Vec<Diagnostic>) -> Settings {
        let mut settings = Settings::default();
        let Some(node) = node else {
            return settings;
        };
        let object = file_object();
        if node.as_map().is_none() {
            diags.push(
                Diagnostic::error(Code::Settings, "the settings file must hold a map")
                    .at(node.pos)
                    .object(object),
            );
            return settings;
        }
        let known = schema::names(schema::SETTINGS);
        for (key, value) in node.as_map().into_iter().flat_map(|m| m.iter()) {
            if let Some((_, new)) = MOVED_KEYS.iter().find(|(old, _)| *old == key) {
                let d = if node.at(&new.split('.').collect::<Vec<_>>()).is_some() {
                    Diagnostic::error(
                        Code::Settings,
                        format!("`{key}` is set twice: at the top (the old place) and as `{new}`"),
                    )
                } else {
                    Diagnostic::warning(
                        Code::Settings,
                        format!(
                            "`{key}` belongs under `deploy` now, as in OME's ConfigMap: write it as `{new}`"
                        ),
                    )
                };
                diags.push(
                    d.at(value.pos)
                        .object(object.clone())
                        .field(key)
                        .help(format!("move it: `deploy:` then `  {key}: …` (the top-level key is read for one more release)")),
                );
                continue;
            }
            if !known.contains(&key) && !HEADER_KEYS.contains(&key) {
                diags.push(unknown_setting(&object, value, key, &known));
            }
        }
        let mut deploy = Node::new(Value::Map(crate::yaml::Map::new()), node.pos);
        if let Some(map) = deploy.as_map_mut() {
            for (old, new) in MOVED_KEYS {
                if let Some(v) = node.get(old) {
                    map.insert(new.trim_start_matches("deploy."), v.clone());
                }
            }
        }
        if deploy.as_map().is_some_and(|m| !m.is_empty()) {
            settings
                .deploy
                .read(&deploy, "", &object, Origin::File, diags);
        }
        if let Some(d) = node.get("deploy").filter(|d| !d.is_null()) {
            settings
                .deploy
                .read(d, "deploy", &object, Origin::File, diags);
        }
        let mut r = Reader {
            object: &object,
            diags,
        };
        if let Some(ingress) = r.map(node, "ingress", "") {
            settings.ingress.read(&mut r, ingress, Origin::File);
        }
        if let Some(pod_monitor) = r.map(node, "podMonitor", "") {
            settings.pod_monitor.read(&mut r, pod_monitor, Origin::File);
        }
        if let Some(agent) = r.map(node, "modelAgent", "") {
            settings.model_agent.read(&mut r, agent, Origin::File);
        }
        if let Some(list) = r.strings(node, "apiVersions", "") {
            let mut apis = ApiVersions::default();
            for (i, entry) in list.iter().enumerate() {
                if let Err(message) = apis.insert(entry) {
                    let at = node
                        .get("apiVersions")
                        .and_then(|n| n.as_seq())
                        .and_then(|s| s.get(i))
                        .map_or(node.pos, |n| n.pos);
                    r.diags.push(
                        Diagnostic::error(Code::Settings, message)
                            .at(at)
                            .object(object.clone())
                            .field(format!("apiVersions[{i}]")),
                    );
                }
            }
            settings.api_versions = Some(apis);
        }
        if let Some(autoscaling) = r.map(node, "autoscaling", "") {
            unknown_keys(
                autoscaling,
                &object,
                "autoscaling",
                &schema::keys_of(schema::SETTINGS, "autoscaling"),
                Origin::File,
                r.diags,
            );
            if let Some(v) = r.int(autoscaling, "targetUtilizationPercentage", "autoscaling") {
                // The HPA's `averageUtilization`, an int32 the API server wants above 0.
                if v < 1 || v > i64::from(i32::MAX) {
                    r.diags.push(
                        settings_error(
                            &object,
                            autoscaling.get("targetUtilizationPercentage").unwrap_or(autoscaling),
                            "autoscaling.targetUtilizationPercentage",
                            format!("autoscaling.targetUtilizationPercentage: Invalid value: {v}: must be between 1 and 2147483647, inclusive"),
                        )
                        .help("the default HPA's CPU target, in percent (OME's is 80)"),
                    );
                } else {
                    settings.target_utilization_percentage = v;
                }
            }
        }
        if let Some(v) = r.strings(node, "acceleratorResources", "")
            && !v.is_empty()
        {
            settings.accelerator_resources = v;
        }
        if let Some(v) = r.str(node, "omeNamespace", "")
            && !v.is_empty()
        {
            // Written into the output (the runtime revisions' namespace): a namespace's rule.
            let at = node.get("omeNamespace").map_or(node.pos, |n| n.pos);
            let problems = if v.len() <= 63 && is_label_chars(&v) {
                Vec::new()
            } else {
                dns1123_label_problems(&v)
            };
            for m in &problems {
                r.diags.push(
                    Diagnostic::error(
                        Code::Settings,
                        format!("omeNamespace: Invalid value: {}: {m}", go::quote(&v)),
                    )
                    .at(at)
                    .object(object.clone())
                    .field("omeNamespace")
                    .help(DNS1123_LABEL_HELP),
                );
            }
            if problems.is_empty() {
                settings.ome_namespace = v;
            }
        }
        if let Some(pdb) = node.get("podDisruptionBudget") {
            read_budget(
                pdb,
                "podDisruptionBudget",
                &object,
                Origin::File,
                r.diags,
                &mut settings.raw_deployment_budget,
            );
        }
        settings
    }
}

/// The settings file, as diagnostics name it.
fn file_object() -> ObjectId {
    ObjectId {
        kind: "RenderSettings".into(),
        namespace: String::new(),
        name: crate::load::SETTINGS_FILE.into(),
        group: String::new(),
    }
}

/// An unknown key of the settings file: an error, with the closest known key.
fn unknown_setting(object: &ObjectId, value: &Node, key: &str, known: &[&str]) -> Diagnostic {
    let help = match closest(key, known) {
        Some(k) => format!("did you mean `{k}`? (known settings: {})", known.join(", ")),
        None => format!("known settings: {}", known.join(", ")),
    };
    Diagnostic::error(Code::Settings, format!("unknown setting `{key}`"))
        .at(value.pos)
        .object(object.clone())
        .field(key)
        .help(help)
}

/// A diagnostic of a setting read from `origin`: `ome::settings::invalid` for the settings
/// file, `ome::settings::deploy-config` for OME's ConfigMap.
pub(super) fn settings_diag(
    origin: Origin,
    object: &ObjectId,
    node: &Node,
    field: &str,
    message: String,
) -> Diagnostic {
    let code = match origin {
        Origin::File => Code::Settings,
        Origin::ConfigMap => Code::DeployConfig,
    };
    Diagnostic::error(code, message)
        .at(node.pos)
        .object(object.clone())
        .field(field.trim_start_matches('.'))
}

fn settings_error(object: &ObjectId, node: &Node, field: &str, message: String) -> Diagnostic {
    Diagnostic::error(Code::Settings, message)
        .at(node.pos)
        .object(object.clone())
        .field(field)
}

/// Unknown keys of a settings map at `path`: in the settings file an error, in OME's
/// ConfigMap a warning (OME ignores them, so a typo does nothing in the cluster either);
/// both with the closest known key.
pub(super) fn unknown_keys(
    node: &Node,
    object: &ObjectId,
    path: &str,
    known: &[&str],
    origin: Origin,
    diags: &mut Vec<Diagnostic>,
) {
    let path = path.trim_start_matches('.');
    for (key, value) in node.as_map().into_iter().flat_map(|m| m.iter()) {
        if known.contains(&key) {
            continue;
        }
        let field = if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        };
        let help = match closest(key, known) {
            Some(k) => format!("did you mean `{k}`? (known keys: {})", known.join(", ")),
            None => format!("known keys: {}", known.join(", ")),
        };
        let d = match origin {
            Origin::File => Diagnostic::error(Code::Settings, format!("unknown setting `{field}`")),
            Origin::ConfigMap => Diagnostic::warning(
                Code::DeployConfigUnknown,
                format!("unknown field `{field}`: OME ignores it"),
            ),
        };
        diags.push(
            d.at(value.pos)
                .object(object.clone())
                .field(field)
                .help(help),
        );
    }
}

/// `podDisruptionBudget`: `rawDeployment` (and `omeNative`, checked and unused: OMENative is
/// not rendered), each with exactly one of `minAvailable` and `maxUnavailable`. In the
/// settings file, as the chart's values merge, a mode left out keeps `maxUnavailable: 1` and
/// `null` removes it; in OME's ConfigMap a mode is as written, and OME refuses an unknown
/// field there (SEMANTICS.md#deploy-config).
pub(super) fn read_budget(
    pdb: &Node,
    path: &str,
    object: &ObjectId,
    origin: Origin,
    diags: &mut Vec<Diagnostic>,
    out: &mut Option<Budget>,
) {
    let diag =
        |n: &Node, field: &str, message: String| settings_diag(origin, object, n, field, message);
    // OME's ConfigMap names the key `podDisruptionBudget` in its messages.
    let ome = "podDisruptionBudget";
    if pdb.is_null() {
        *out = None;
        return;
    }
    if pdb.as_map().is_none() {
        diags.push(diag(
            pdb,
            path,
            format!("unable to parse \"{ome}\" config json: expected JSON object"),
        ));
        return;
    }
    let strict_unknown = |node: &Node, at: &str, known: &[&str], diags: &mut Vec<Diagnostic>| {
        match origin {
            Origin::File => unknown_keys(node, object, at, known, origin, diags),
            Origin::ConfigMap => {
                for (key, value) in node.as_map().into_iter().flat_map(|m| m.iter()) {
                    if !known.contains(&key) {
                        diags.push(
                            diag(
                                value,
                                &format!("{at}.{key}"),
                                format!("unable to parse \"{ome}\" config json: json: unknown field {key:?}"),
                            )
                            .help(match closest(key, known) {
                                Some(k) => format!("did you mean `{k}`? OME refuses an unknown field in this key"),
                                None => format!("known fields: {}", known.join(", ")),
                            }),
                        );
                    }
                }
            }
        }
    };
    strict_unknown(pdb, path, &["rawDeployment", "omeNative"], diags);
    if origin == Origin::ConfigMap {
        // OME's code: no budget unless the ConfigMap gives one.
        *out = None;
    }
    for mode in ["rawDeployment", "omeNative"] {
        let Some(m) = pdb.get(mode) else { continue };
        let at = format!("{path}.{mode}");
        let named = format!("{ome}.{mode}");
        if m.is_null() {
            if mode == "rawDeployment" {
                *out = None;
            }
            continue;
        }
        if m.as_map().is_none() {
            diags.push(diag(
                m,
                &at,
                format!("unable to parse \"{ome}\" config json: expected JSON object or null"),
            ));
            continue;
        }
        strict_unknown(m, &at, &["minAvailable", "maxUnavailable"], diags);
        // The settings file: the chart's `maxUnavailable: 1` stays unless the file sets it
        // (to null, to drop it). OME's ConfigMap: as written.
        let mut fields: Vec<(&'static str, Node)> = match origin {
            Origin::File => vec![("maxUnavailable", Node::int(1))],
            Origin::ConfigMap => Vec::new(),
        };
        for key in ["minAvailable", "maxUnavailable"] {
            if let Some(v) = m.get(key) {
                fields.retain(|(k, _)| *k != key);
                if !v.is_null() {
                    fields.push((key, v.clone()));
                }
            }
        }
        if fields.len() != 1 {
            diags.push(
                diag(
                    m,
                    &at,
                    format!("fails to create InferenceServicesConfig: exactly one of {named}.minAvailable or {named}.maxUnavailable must be set"),
                )
                .help(match origin {
                    Origin::File => "set `maxUnavailable: null` beside a minAvailable, as with the chart's values",
                    Origin::ConfigMap => "write one of the two fields",
                }),
            );
            continue;
        }
        let (field, value) = fields.remove(0);
        if !IntOrStr::of(&value).is_some_and(valid_budget) {
            diags.push(diag(
                &value,
                &format!("{at}.{field}"),
                format!("fails to create InferenceServicesConfig: {named}.{field} must be a non-negative integer or a percentage from 0% to 100%"),
            ));
            continue;
        }
        if mode == "rawDeployment" {
            *out = Some(Budget { field, value });
        }
    }
}
