//! The renderer settings: the OME controller settings a cluster would hold in its
//! `inferenceservice-config`, read from `ome-render.yaml` at the root of the rendered tree
//! (SEMANTICS.md#choice-settings). Without the file, OME's shipped (Helm chart) defaults apply.
//!
//! ```yaml
//! # ome-render.yaml
//! terminationGracePeriodSeconds: 600   # pods' grace period when neither runtime nor isvc set one
//! ingress:
//!   disableIngressCreation: true       # false: no external Service `<isvc>` is rendered
//! autoscaling:
//!   targetUtilizationPercentage: 80    # the HPA's CPU target when nothing else sets one
//! acceleratorResources: [nvidia.com/gpu]  # resource names counted for PARALLELISM_SIZE
//! omeNamespace: ome                    # where OME keeps runtime revisions
//! replicas:                            # bounds for components that set none (the chart's
//!   defaultMinReplicas: 1              #   `ome.controller.replicas`; null removes one)
//!   defaultMaxReplicas: {engine: 3, decoder: 3, router: 2}
//! podDisruptionBudget:                 # the budget of components that set none (the chart's
//!   rawDeployment: {maxUnavailable: 1} #   `ome.controller.podDisruptionBudget`; null: no PDB)
//! apiVersions: [leaderworkerset.x-k8s.io/v1]  # the non-built-in APIs the cluster serves
//! modelAgent: {enabled: true}          # the cluster runs OME's model agent (chart: false)
//! ```

mod ingress;
mod model_agent;

pub(crate) use ingress::IngressConfig;
pub(crate) use model_agent::ModelAgent;

use super::fields::Reader;
use super::validate::IntOrStr;
use super::validate::inference_service::valid_budget;
use crate::diagnostics::{Code, Diagnostic, ObjectRef};
use crate::k8s::api_versions::ApiVersions;
use crate::model::Role;
use crate::yaml::{Node, Value};

/// A PodDisruptionBudget's one field: `minAvailable` or `maxUnavailable`, with its value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Budget {
    pub(crate) field: &'static str,
    pub(crate) value: Node,
}

/// The replica defaults of components that set no bound (SEMANTICS.md#settings); `None`
/// where the chart's value was removed with `null`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ReplicaDefaults {
    pub(crate) min: Option<i64>,
    pub(crate) max_engine: Option<i64>,
    pub(crate) max_decoder: Option<i64>,
    pub(crate) max_router: Option<i64>,
}

impl ReplicaDefaults {
    pub(crate) fn max(&self, role: Role) -> Option<i64> {
        match role {
            Role::Engine => self.max_engine,
            Role::Decoder => self.max_decoder,
            Role::Router => self.max_router,
        }
    }
}

/// Where settings are read from, which decides how strict the reading is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// `ome-render.yaml`: an unknown key is an error, as a typo there would do nothing.
    File,
    /// OME's ConfigMap `inferenceservice-config`: OME ignores unknown keys; a warning.
    #[expect(dead_code, reason = "read by --deploy-config, being built (#31)")]
    ConfigMap,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Settings {
    /// Applied to pods that set none; the chart's value is 600.
    pub(crate) termination_grace_period_seconds: i64,
    /// `ingress`: OME's IngressConfig.
    pub(crate) ingress: IngressConfig,
    /// The APIs the cluster serves (`apiVersions`, `--api-versions`); `None` where no list
    /// is given (SEMANTICS.md#api-versions).
    pub(crate) api_versions: Option<ApiVersions>,
    pub(crate) target_utilization_percentage: i64,
    /// Resource names whose count is the GPUs per pod, first present wins.
    pub(crate) accelerator_resources: Vec<String>,
    /// OME's own namespace, where runtime revisions live (the controller's `POD_NAMESPACE`).
    pub(crate) ome_namespace: String,
    /// `replicas` (the chart's `ome.controller.replicas`).
    pub(crate) replicas: ReplicaDefaults,
    /// `podDisruptionBudget.rawDeployment`: the budget of RawDeployment components that set
    /// none; `None` for no PDB.
    pub(crate) raw_deployment_budget: Option<Budget>,
    /// `modelAgent`: whether the cluster runs OME's model agent.
    pub(crate) model_agent: ModelAgent,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            termination_grace_period_seconds: 600,
            ingress: IngressConfig::default(),
            api_versions: None,
            target_utilization_percentage: 80,
            accelerator_resources: vec!["nvidia.com/gpu".to_string()],
            ome_namespace: "ome".to_string(),
            replicas: ReplicaDefaults {
                min: Some(1),
                max_engine: Some(3),
                max_decoder: Some(3),
                max_router: Some(2),
            },
            raw_deployment_budget: Some(Budget {
                field: "maxUnavailable",
                value: Node::int(1),
            }),
            model_agent: ModelAgent::default(),
        }
    }
}

const KNOWN_KEYS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "terminationGracePeriodSeconds",
    "ingress",
    "autoscaling",
    "acceleratorResources",
    "omeNamespace",
    "replicas",
    "podDisruptionBudget",
    "apiVersions",
    "modelAgent",
];

impl Settings {
    /// Reads the settings file; unknown keys are errors, so a typo never goes unnoticed.
    pub(crate) fn read(node: Option<&Node>, diags: &mut Vec<Diagnostic>) -> Settings {
        let mut settings = Settings::default();
        let Some(node) = node else {
            return settings;
        };
        let object = ObjectRef {
            kind: "RenderSettings".into(),
            namespace: None,
            name: crate::load::SETTINGS_FILE.into(),
        };
        if node.as_map().is_none() {
            diags.push(
                Diagnostic::error(Code::Settings, "the settings file must hold a map")
                    .at(node.pos)
                    .object(object),
            );
            return settings;
        }
        for (key, value) in node.as_map().into_iter().flat_map(|m| m.iter()) {
            if !KNOWN_KEYS.contains(&key) {
                diags.push(
                    Diagnostic::error(Code::Settings, format!("unknown setting `{key}`"))
                        .at(value.pos)
                        .object(object.clone())
                        .help(format!("known settings: {}", KNOWN_KEYS[3..].join(", "))),
                );
            }
        }
        let mut r = Reader {
            object: &object,
            diags,
        };
        if let Some(v) = r.int(node, "terminationGracePeriodSeconds", "") {
            // The pod's field: the API server refuses a negative one.
            if v < 0 {
                r.diags.push(
                    settings_error(
                        &object,
                        node.get("terminationGracePeriodSeconds").unwrap_or(node),
                        "terminationGracePeriodSeconds",
                        format!("terminationGracePeriodSeconds: Invalid value: {v}: must be greater than or equal to 0"),
                    )
                    .help("the grace period of the pods: 0 or more seconds (the chart's is 600)"),
                );
            } else {
                settings.termination_grace_period_seconds = v;
            }
        }
        if let Some(ingress) = r.map(node, "ingress", "") {
            settings.ingress.read(&mut r, ingress, Origin::File);
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
        if let Some(autoscaling) = r.map(node, "autoscaling", "")
            && let Some(v) = r.int(autoscaling, "targetUtilizationPercentage", "autoscaling")
        {
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
            let problems = crate::model::validate::names::namespace_problems(&v, at);
            if problems.is_empty() {
                settings.ome_namespace = v;
            }
            for p in problems {
                r.diags.push(
                    Diagnostic::error(
                        Code::Settings,
                        p.message.replacen("metadata.namespace", "omeNamespace", 1),
                    )
                    .at(p.pos)
                    .object(object.clone())
                    .field("omeNamespace")
                    .help(p.help),
                );
            }
        }
        read_replicas(node, &object, r.diags, &mut settings.replicas);
        read_budget(node, &object, r.diags, &mut settings.raw_deployment_budget);
        settings
    }
}

fn settings_error(object: &ObjectRef, node: &Node, field: &str, message: String) -> Diagnostic {
    Diagnostic::error(Code::Settings, message)
        .at(node.pos)
        .object(object.clone())
        .field(field)
}

/// Unknown keys of a settings map are errors.
fn known_keys(
    node: &Node,
    object: &ObjectRef,
    path: &str,
    known: &[&str],
    diags: &mut Vec<Diagnostic>,
) {
    for (key, value) in node.as_map().into_iter().flat_map(|m| m.iter()) {
        if !known.contains(&key) {
            diags.push(
                settings_error(
                    object,
                    value,
                    &format!("{path}.{key}"),
                    format!("unknown setting `{path}.{key}`"),
                )
                .help(format!("known keys of `{path}`: {}", known.join(", "))),
            );
        }
    }
}

/// `replicas`: as the chart's values merge, a key left out keeps the chart's value and a
/// `null` removes it; each value must be a whole number above 0 (OME's own rule).
fn read_replicas(
    node: &Node,
    object: &ObjectRef,
    diags: &mut Vec<Diagnostic>,
    out: &mut ReplicaDefaults,
) {
    let Some(replicas) = node.get("replicas") else {
        return;
    };
    if replicas.is_null() {
        *out = ReplicaDefaults {
            min: None,
            max_engine: None,
            max_decoder: None,
            max_router: None,
        };
        return;
    }
    if replicas.as_map().is_none() {
        diags.push(settings_error(
            object,
            replicas,
            "replicas",
            "`replicas` must be a map".into(),
        ));
        return;
    }
    known_keys(
        replicas,
        object,
        "replicas",
        &["defaultMinReplicas", "defaultMaxReplicas"],
        diags,
    );
    let value =
        |diags: &mut Vec<Diagnostic>, n: &Node, key: &str, slot: &mut Option<i64>| match &n.value {
            Value::Null => *slot = None,
            Value::Int(i) if *i > 0 => *slot = Some(*i),
            Value::Int(i) => diags.push(settings_error(
                object,
                n,
                &format!("replicas.{key}"),
                format!("invalid deploy config, replicas.{key} must be > 0, got {i}"),
            )),
            _ => diags.push(
                settings_error(
                    object,
                    n,
                    &format!("replicas.{key}"),
                    "unable to parse deploy config json".into(),
                )
                .help("write a whole number above 0, unquoted"),
            ),
        };
    if let Some(n) = replicas.get("defaultMinReplicas") {
        value(diags, n, "defaultMinReplicas", &mut out.min);
    }
    if let Some(max) = replicas.get("defaultMaxReplicas") {
        if max.is_null() {
            out.max_engine = None;
            out.max_decoder = None;
            out.max_router = None;
        } else if max.as_map().is_some() {
            known_keys(
                max,
                object,
                "replicas.defaultMaxReplicas",
                &["engine", "decoder", "router"],
                diags,
            );
            for (key, slot) in [
                ("engine", &mut out.max_engine),
                ("decoder", &mut out.max_decoder),
                ("router", &mut out.max_router),
            ] {
                if let Some(n) = max.get(key) {
                    value(diags, n, &format!("defaultMaxReplicas.{key}"), slot);
                }
            }
        } else {
            value(diags, max, "defaultMaxReplicas", &mut None);
        }
    }
}

/// `podDisruptionBudget.rawDeployment` (and `omeNative`, accepted and unused: OMENative is not
/// rendered). As in the chart, a mode left out keeps `maxUnavailable: 1`, `null` removes it,
/// and a mode must end up with exactly one of the two fields.
fn read_budget(
    node: &Node,
    object: &ObjectRef,
    diags: &mut Vec<Diagnostic>,
    out: &mut Option<Budget>,
) {
    let Some(pdb) = node.get("podDisruptionBudget") else {
        return;
    };
    if pdb.is_null() {
        *out = None;
        return;
    }
    if pdb.as_map().is_none() {
        diags.push(settings_error(
            object,
            pdb,
            "podDisruptionBudget",
            "`podDisruptionBudget` must be a map".into(),
        ));
        return;
    }
    known_keys(
        pdb,
        object,
        "podDisruptionBudget",
        &["rawDeployment", "omeNative"],
        diags,
    );
    for mode in ["rawDeployment", "omeNative"] {
        let Some(m) = pdb.get(mode) else { continue };
        let path = format!("podDisruptionBudget.{mode}");
        if m.is_null() {
            if mode == "rawDeployment" {
                *out = None;
            }
            continue;
        }
        if m.as_map().is_none() {
            diags.push(settings_error(
                object,
                m,
                &path,
                format!("`{path}` must be a map"),
            ));
            continue;
        }
        known_keys(m, object, &path, &["minAvailable", "maxUnavailable"], diags);
        // The chart's `maxUnavailable: 1` stays unless the file sets it (to null, to drop it).
        let mut fields: Vec<(&'static str, Node)> = vec![("maxUnavailable", Node::int(1))];
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
                settings_error(
                    object,
                    m,
                    &path,
                    format!("fails to create InferenceServicesConfig: exactly one of {path}.minAvailable or {path}.maxUnavailable must be set"),
                )
                .help("set `maxUnavailable: null` beside a minAvailable, as with the chart's values"),
            );
            continue;
        }
        let (field, value) = fields.remove(0);
        if !IntOrStr::of(&value).is_some_and(valid_budget) {
            diags.push(settings_error(
                object,
                &value,
                &format!("{path}.{field}"),
                format!("fails to create InferenceServicesConfig: {path}.{field} must be a non-negative integer or a percentage from 0% to 100%"),
            ));
            continue;
        }
        if mode == "rawDeployment" {
            *out = Some(Budget { field, value });
        }
    }
}
