//! `deploy`: OME's `DeployConfig`, the defaults OME's InferenceService defaulter stamps on
//! components that set none (SEMANTICS.md#settings). OME's code has no value of its own for
//! any of them: the chart supplies them, so `ome-render.yaml` starts from the chart's values
//! and OME's ConfigMap from none.

use super::{Origin, settings_diag};
use crate::diagnostics::Diagnostic;
use crate::k8s::id::ObjectId;
use crate::model::Role;
use crate::model::component::DeploymentMode;
use crate::yaml::{Node, Value};

/// The replica defaults of components that set no bound; `None` where none is configured.
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

    /// No default at all.
    pub(crate) const UNSET: ReplicaDefaults = ReplicaDefaults {
        min: None,
        max_engine: None,
        max_decoder: None,
        max_router: None,
    };
}

/// `deploy` of OME's ConfigMap.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DeployConfig {
    /// `defaultDeploymentMode`: OME accepts RawDeployment alone.
    pub(crate) default_deployment_mode: DeploymentMode,
    /// Stamped on components that set no grace period; `None`: none is stamped.
    pub(crate) termination_grace_period_seconds: Option<i64>,
    /// `replicas`: bounds stamped on components that set none.
    pub(crate) replicas: ReplicaDefaults,
    /// `minReadySeconds`, stamped on OMENative components only (read and checked; OMENative
    /// is not rendered).
    pub(crate) min_ready_seconds: Option<i64>,
    /// `updateStrategy` per component, stamped on OMENative components only (read and
    /// checked, as written).
    pub(crate) update_strategy: Option<Node>,
}

/// The update strategies OME's `updateStrategy.<component>.type` takes.
const UPDATE_STRATEGY_TYPES: &[&str] = &[
    "SurgeThenDrain",
    "RecreatePod",
    "InPlaceIfPossible",
    "InPlaceOnly",
];

impl DeployConfig {
    /// The chart's (`ome-resources`) values.
    pub(crate) fn chart() -> DeployConfig {
        DeployConfig {
            default_deployment_mode: DeploymentMode::RawDeployment,
            termination_grace_period_seconds: Some(600),
            replicas: ReplicaDefaults {
                min: Some(1),
                max_engine: Some(3),
                max_decoder: Some(3),
                max_router: Some(2),
            },
            min_ready_seconds: None,
            update_strategy: None,
        }
    }

    /// What OME's code holds without a ConfigMap key: nothing is stamped.
    pub(crate) fn unset() -> DeployConfig {
        DeployConfig {
            default_deployment_mode: DeploymentMode::RawDeployment,
            termination_grace_period_seconds: None,
            replicas: ReplicaDefaults::UNSET,
            min_ready_seconds: None,
            update_strategy: None,
        }
    }

    /// Reads the `deploy` map at `path` over `self`: a key left out keeps its value, `null`
    /// removes it (as with the chart's values, and as OME's JSON decoding leaves a field of
    /// `null` unset). OME's checks and messages; `defaultDeploymentMode` is required in
    /// OME's ConfigMap only (the chart's is RawDeployment).
    pub(crate) fn read(
        &mut self,
        node: &Node,
        path: &str,
        object: &ObjectId,
        origin: Origin,
        diags: &mut Vec<Diagnostic>,
    ) {
        let d = |n: &Node, field: &str, message: String| {
            settings_diag(origin, object, n, &format!("{path}.{field}"), message)
        };
        if node.as_map().is_none() {
            diags.push(settings_diag(
                origin,
                object,
                node,
                path,
                format!(
                    "unable to parse deploy config json: `{path}` must be a map, found {}",
                    node.type_name()
                ),
            ));
            return;
        }
        super::unknown_keys(
            node,
            object,
            path,
            &super::schema::names(super::schema::DEPLOY),
            origin,
            diags,
        );
        match node.get("defaultDeploymentMode").map(|n| (n, &n.value)) {
            None | Some((_, Value::Null)) if origin == Origin::ConfigMap => diags.push(
                settings_diag(origin, object, node, path, "invalid deploy config, defaultDeploymentMode is required".into())
                    .help("write \"defaultDeploymentMode\": \"RawDeployment\", as the chart does"),
            ),
            None | Some((_, Value::Null)) => {}
            Some((_, Value::Str(s))) if s == "RawDeployment" => {}
            Some((n, Value::Str(s))) if s.is_empty() && origin == Origin::ConfigMap => diags.push(
                d(n, "defaultDeploymentMode", "invalid deploy config, defaultDeploymentMode is required".into())
                    .help("write \"defaultDeploymentMode\": \"RawDeployment\", as the chart does"),
            ),
            Some((n, Value::Str(_))) => diags.push(
                d(n, "defaultDeploymentMode", "invalid deployment mode. Supported default mode is RawDeployment".into())
                    .help("OME v1.3 refuses any other default mode; a component's own mode is set by its annotation"),
            ),
            Some((n, _)) => diags.push(not_json(d, n, "defaultDeploymentMode", "a string")),
        }
        if let Some(n) = node.get("terminationGracePeriodSeconds") {
            match &n.value {
                Value::Null => self.termination_grace_period_seconds = None,
                Value::Int(v) if *v > 0 => self.termination_grace_period_seconds = Some(*v),
                Value::Int(v) => diags.push(
                    d(n, "terminationGracePeriodSeconds", format!("invalid deploy config, terminationGracePeriodSeconds must be > 0, got {v}"))
                        .help("the grace period of the pods, in seconds above 0 (the chart's is 600)"),
                ),
                _ => diags.push(not_json(d, n, "terminationGracePeriodSeconds", "a whole number")),
            }
        }
        if let Some(n) = node.get("replicas") {
            read_replicas(
                n,
                &format!("{path}.replicas"),
                object,
                origin,
                diags,
                &mut self.replicas,
            );
        }
        if let Some(n) = node.get("minReadySeconds") {
            match &n.value {
                Value::Null => self.min_ready_seconds = None,
                Value::Int(v) if (0..=i64::from(i32::MAX)).contains(v) => {
                    self.min_ready_seconds = Some(*v);
                }
                Value::Int(v) if *v < 0 => diags.push(d(
                    n,
                    "minReadySeconds",
                    format!("invalid deploy config, minReadySeconds must be >= 0, got {v}"),
                )),
                _ => diags.push(not_json(d, n, "minReadySeconds", "a whole number (int32)")),
            }
        }
        if let Some(n) = node.get("updateStrategy") {
            if n.is_null() {
                self.update_strategy = None;
            } else if read_update_strategy(
                n,
                &format!("{path}.updateStrategy"),
                object,
                origin,
                diags,
            ) {
                self.update_strategy = Some(n.clone());
            }
        }
    }
}

/// OME's message for a value its JSON decoding refuses.
fn not_json(
    d: impl Fn(&Node, &str, String) -> Diagnostic,
    n: &Node,
    field: &str,
    expected: &str,
) -> Diagnostic {
    d(
        n,
        field,
        format!(
            "unable to parse deploy config json: `{field}` must be {expected}, found {}",
            n.type_name()
        ),
    )
    .help(format!("write {expected}, unquoted"))
}

/// `replicas`: each value a whole number above 0 (OME's own rule).
fn read_replicas(
    replicas: &Node,
    path: &str,
    object: &ObjectId,
    origin: Origin,
    diags: &mut Vec<Diagnostic>,
    out: &mut ReplicaDefaults,
) {
    if replicas.is_null() {
        *out = ReplicaDefaults::UNSET;
        return;
    }
    if replicas.as_map().is_none() {
        diags.push(settings_diag(
            origin,
            object,
            replicas,
            path,
            format!(
                "unable to parse deploy config json: `replicas` must be a map, found {}",
                replicas.type_name()
            ),
        ));
        return;
    }
    super::unknown_keys(
        replicas,
        object,
        path,
        &super::schema::names(super::schema::REPLICAS),
        origin,
        diags,
    );
    let value =
        |diags: &mut Vec<Diagnostic>, n: &Node, key: &str, slot: &mut Option<i64>| match &n.value {
            Value::Null => *slot = None,
            Value::Int(i) if *i > 0 => *slot = Some(*i),
            Value::Int(i) => diags.push(settings_diag(
                origin,
                object,
                n,
                &format!("{path}.{key}"),
                format!("invalid deploy config, replicas.{key} must be > 0, got {i}"),
            )),
            _ => diags.push(
                settings_diag(
                    origin,
                    object,
                    n,
                    &format!("{path}.{key}"),
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
            super::unknown_keys(
                max,
                object,
                &format!("{path}.defaultMaxReplicas"),
                &["engine", "decoder", "router"],
                origin,
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

/// `updateStrategy`: per component a known `type` and budgets above 0; whether it holds.
fn read_update_strategy(
    node: &Node,
    path: &str,
    object: &ObjectId,
    origin: Origin,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let before = diags.iter().filter(|d| d.is_error()).count();
    let fail = |diags: &mut Vec<Diagnostic>, n: &Node, field: String, message: String| {
        diags.push(settings_diag(origin, object, n, &field, message));
    };
    let Some(map) = node.as_map() else {
        fail(
            diags,
            node,
            path.to_string(),
            format!(
                "unable to parse deploy config json: `updateStrategy` must be a map, found {}",
                node.type_name()
            ),
        );
        return false;
    };
    let mut unknown = Vec::new();
    for (component, entry) in map.iter() {
        if !["router", "engine", "decoder"].contains(&component) {
            unknown.push(component);
            continue;
        }
        if entry.is_null() {
            continue;
        }
        let field = format!("{path}.{component}");
        let Some(e) = entry.as_map() else {
            fail(
                diags,
                entry,
                field,
                format!(
                    "unable to parse deploy config json: `{component}` must be a map, found {}",
                    entry.type_name()
                ),
            );
            continue;
        };
        match e.get("type").map(|t| &t.value) {
            None | Some(Value::Null) => {}
            Some(Value::Str(t)) if t.is_empty() || UPDATE_STRATEGY_TYPES.contains(&t.as_str()) => {}
            Some(Value::Str(t)) => fail(
                diags,
                e.get("type").unwrap_or(entry),
                format!("{field}.type"),
                format!(
                    "invalid deploy config, updateStrategy.{component}.type {t:?} is not a supported update strategy"
                ),
            ),
            Some(_) => fail(
                diags,
                e.get("type").unwrap_or(entry),
                format!("{field}.type"),
                "unable to parse deploy config json: `type` must be a string".into(),
            ),
        }
        for budget in ["maxSurge", "maxUnavailable"] {
            let Some(b) = e.get(budget) else { continue };
            let scaled = match &b.value {
                Value::Null => continue,
                Value::Int(i) => Ok(*i),
                Value::Str(s) => s
                    .strip_suffix('%')
                    .and_then(|n| n.parse::<i64>().ok())
                    .ok_or("is not an integer or percentage"),
                _ => Err("is not an integer or percentage"),
            };
            match scaled {
                Ok(v) if v > 0 => {}
                Ok(_) => fail(
                    diags,
                    b,
                    format!("{field}.{budget}"),
                    format!(
                        "invalid deploy config, updateStrategy.{component}.{budget} must be > 0, got {:?}: a zero budget denies every Instance and the rollout never starts",
                        crate::yaml::emit::inline_scalar(b)
                    ),
                ),
                Err(why) => fail(
                    diags,
                    b,
                    format!("{field}.{budget}"),
                    format!("invalid deploy config, updateStrategy.{component}.{budget} {why}"),
                ),
            }
        }
        super::unknown_keys(
            entry,
            object,
            &field,
            &["type", "maxSurge", "maxUnavailable"],
            origin,
            diags,
        );
    }
    if !unknown.is_empty() {
        super::unknown_keys(
            node,
            object,
            path,
            &["router", "engine", "decoder"],
            origin,
            diags,
        );
    }
    diags.iter().filter(|d| d.is_error()).count() == before
}
