//! `ome-render components`: one InferenceService's merged and defaulted component specs as
//! OME's `kubectl ome runtime render` prints them in file mode, a `cli.ome.io/v1alpha1`
//! `RenderedInferenceService` (SEMANTICS.md#components). Pure: the command prints it.
//!
//! The tree is built in the Go struct order OME's JSON output follows; the YAML writer sorts
//! its keys, as `sigs.k8s.io/yaml` does.

use super::component::merge_component;
use crate::diagnostics::Diagnostic;
use crate::model::component::DEPLOYMENT_MODE_ANNOTATION;
use crate::model::{DeploymentMode, InferenceService, Role, Scope, Settings};
use crate::revision::gojson::go_value;
use crate::select::resolve::Resolution;
use crate::yaml::{Map, Node, Value};
use std::cmp::Ordering;

/// The API group and version of OME's CLI-owned output, which no API server serves.
pub(crate) const API_VERSION: &str = "cli.ome.io/v1alpha1";
pub(crate) const KIND: &str = "RenderedInferenceService";
pub(crate) const LIST_KIND: &str = "RenderedInferenceServiceList";

/// Where an input of the view came from (`sources[].origin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Read from a file, as OME's file mode reads every input.
    File,
    /// No `--deploy-config`: the deploy defaults of ome-render's settings (`ome-render.yaml`,
    /// else the chart's values); ome-render's own value, as OME's file mode always has a
    /// `--deploy-config`.
    Settings,
}

impl Origin {
    fn as_str(self) -> &'static str {
        match self {
            Origin::File => "File",
            Origin::Settings => "Settings",
        }
    }
}

/// One entry of `sources`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Source {
    pub(crate) kind: &'static str,
    pub(crate) name: String,
    pub(crate) origin: Origin,
}

impl Source {
    fn node(&self) -> Node {
        let mut m = Map::with_capacity(3);
        m.push_unique("kind", Node::str(self.kind));
        m.push_unique("name", Node::str(self.name.clone()));
        m.push_unique("origin", Node::str(self.origin.as_str()));
        Node::map(m)
    }
}

/// Which rung of OME's precedence chose a component's mode (`deploymentModeSource`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ModeSource {
    ComponentAnnotation,
    ServiceAnnotation,
    ServiceSpec,
    LeaderWorkerShape,
    Default,
}

impl ModeSource {
    fn as_str(self) -> &'static str {
        match self {
            ModeSource::ComponentAnnotation => "ComponentAnnotation",
            ModeSource::ServiceAnnotation => "ServiceAnnotation",
            ModeSource::ServiceSpec => "ServiceSpec",
            ModeSource::LeaderWorkerShape => "LeaderWorkerShape",
            ModeSource::Default => "Default",
        }
    }
}

/// `ns/name`, or `name` for a cluster-scoped object.
fn object_name(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

/// The service-level VirtualDeployment: the InferenceService's `ome.io/deploymentMode`
/// annotation, else its `spec.deploymentMode`.
fn service_virtual(isvc: &InferenceService) -> Option<ModeSource> {
    if let Some(mode) = isvc.annotation(DEPLOYMENT_MODE_ANNOTATION) {
        return (DeploymentMode::parse(mode) == Some(DeploymentMode::VirtualDeployment))
            .then_some(ModeSource::ServiceAnnotation);
    }
    (isvc.deployment_mode.as_deref() == Some(DeploymentMode::VirtualDeployment.as_str()))
        .then_some(ModeSource::ServiceSpec)
}

/// A component's mode, first that applies: a valid `ome.io/deploymentMode` in the merged
/// component's annotations; `spec.deploymentMode`; a leader or worker (OMENative in v1.3);
/// else RawDeployment.
fn component_mode(
    isvc: &InferenceService,
    role: Role,
    merged: &Node,
) -> (DeploymentMode, ModeSource) {
    if let Some(mode) = merged
        .str_at(&["annotations", DEPLOYMENT_MODE_ANNOTATION])
        .and_then(DeploymentMode::parse)
    {
        return (mode, ModeSource::ComponentAnnotation);
    }
    if let Some(mode) = isvc
        .deployment_mode
        .as_deref()
        .and_then(DeploymentMode::from_spec)
    {
        return (mode, ModeSource::ServiceSpec);
    }
    let part = |key: &str| merged.get(key).is_some_and(|n| !n.is_null());
    if role != Role::Router && (part("leader") || part("worker")) {
        return (DeploymentMode::OmeNative, ModeSource::LeaderWorkerShape);
    }
    (DeploymentMode::RawDeployment, ModeSource::Default)
}

/// Whether `map[key]` is unset as Go sees a pointer (absent or `null`).
fn unset(map: &Map, key: &str) -> bool {
    map.get(key).is_none_or(Node::is_null)
}

/// Fills what OME's `specdefaults` fills from the deploy block on a merged component:
/// replica bounds (a filled max is raised to an authored min), the termination grace period
/// of the component's pod, leader and worker, one worker for a leader and worker without a
/// size, and for an OMENative component `lifecycle` (`minReadySeconds`, the update strategy
/// and the one budget it reads).
fn apply_deploy_defaults(merged: &mut Node, role: Role, mode: DeploymentMode, settings: &Settings) {
    let deploy = &settings.deploy;
    let Some(m) = merged.as_map_mut() else {
        return;
    };
    if unset(m, "minReplicas")
        && let Some(min) = deploy.replicas.min
    {
        m.insert("minReplicas", Node::int(min));
    }
    let max_unset = m
        .get("maxReplicas")
        .is_none_or(|n| n.is_null() || n.as_i64() == Some(0));
    if max_unset && let Some(max) = deploy.replicas.max(role) {
        let min = m.get("minReplicas").and_then(Node::as_i64);
        m.insert(
            "maxReplicas",
            Node::int(min.filter(|&n| n > max).unwrap_or(max)),
        );
    }
    if let Some(grace) = deploy.termination_grace_period_seconds {
        if unset(m, "terminationGracePeriodSeconds") {
            m.insert("terminationGracePeriodSeconds", Node::int(grace));
        }
        for part in ["leader", "worker"] {
            if let Some(p) = m.get_mut(part).and_then(Node::as_map_mut)
                && unset(p, "terminationGracePeriodSeconds")
            {
                p.insert("terminationGracePeriodSeconds", Node::int(grace));
            }
        }
    }
    let shaped = |k: &str| m.get(k).is_some_and(|n| !n.is_null());
    if shaped("leader")
        && shaped("worker")
        && let Some(w) = m.get_mut("worker").and_then(Node::as_map_mut)
        && unset(w, "size")
    {
        w.insert("size", Node::int(1));
    }
    if mode == DeploymentMode::OmeNative {
        let strategy = deploy
            .update_strategy
            .as_ref()
            .and_then(|s| s.get(role.as_str()))
            .filter(|s| !s.is_null());
        lifecycle(m, deploy.min_ready_seconds, strategy);
    }
}

/// OME's `specdefaults` lifecycle of an OMENative component: `minReadySeconds`, the update
/// strategy's `type`, and the budget that strategy reads (`maxSurge` for SurgeThenDrain or
/// no type, else `maxUnavailable`), each only where unset; blocks are added only when a
/// value is written.
fn lifecycle(component: &mut Map, min_ready: Option<i64>, strategy: Option<&Node>) {
    let mut lc = component
        .get("lifecycle")
        .filter(|n| n.as_map().is_some())
        .cloned()
        .unwrap_or_else(|| Node::map(Map::new()));
    let mut wrote = false;
    let Some(l) = lc.as_map_mut() else {
        return;
    };
    if let Some(seconds) = min_ready
        && unset(l, "minReadySeconds")
    {
        l.insert("minReadySeconds", Node::int(seconds));
        wrote = true;
    }
    if let Some(strategy) = strategy {
        let mut us = l
            .get("updateStrategy")
            .filter(|n| n.as_map().is_some())
            .cloned()
            .unwrap_or_else(|| Node::map(Map::new()));
        let mut us_wrote = false;
        if let Some(u) = us.as_map_mut() {
            let typed = u
                .get("type")
                .and_then(Node::as_str)
                .filter(|t| !t.is_empty());
            let mut kind = typed.map(str::to_string);
            if typed.is_none()
                && let Some(t) = strategy
                    .get("type")
                    .and_then(Node::as_str)
                    .filter(|t| !t.is_empty())
            {
                u.insert("type", Node::str(t));
                kind = Some(t.to_string());
                us_wrote = true;
            }
            let surges = kind.as_deref().is_none_or(|t| t == "SurgeThenDrain");
            let field = if surges { "maxSurge" } else { "maxUnavailable" };
            if let Some(budget) = strategy.get(field).filter(|b| !b.is_null()) {
                let mut ru = u
                    .get("rollingUpdate")
                    .filter(|n| n.as_map().is_some())
                    .cloned()
                    .unwrap_or_else(|| Node::map(Map::new()));
                if let Some(r) = ru.as_map_mut()
                    && unset(r, field)
                {
                    r.insert(field, budget.clone());
                    u.insert("rollingUpdate", ru);
                    us_wrote = true;
                }
            }
        }
        if us_wrote {
            l.insert("updateStrategy", us);
            wrote = true;
        }
    }
    if wrote {
        component.insert("lifecycle", lc);
    }
}

/// The sources of one InferenceService's view, in OME's order: the InferenceService, its
/// model (when it names one), its runtime, the deploy configuration.
fn sources(
    isvc: &InferenceService,
    resolution: &Resolution<'_>,
    deploy_config: &Source,
) -> Vec<Source> {
    let ns = isvc.lookup_namespace.as_str();
    let mut out = vec![Source {
        kind: "InferenceService",
        name: object_name(Some(ns), &isvc.name),
        origin: Origin::File,
    }];
    if let Some(model) = resolution.model {
        out.push(Source {
            kind: if model.namespace.is_some() {
                "BaseModel"
            } else {
                "ClusterBaseModel"
            },
            name: object_name(model.namespace.as_deref(), &model.name),
            origin: Origin::File,
        });
    }
    let (kind, namespace) = match resolution.chosen.scope {
        Scope::Cluster => ("ClusterServingRuntime", None),
        Scope::Namespaced => (
            "ServingRuntime",
            Some(resolution.chosen.namespace.unwrap_or(ns)),
        ),
    };
    out.push(Source {
        kind,
        name: object_name(namespace, resolution.runtime_name),
        origin: Origin::File,
    });
    out.push(deploy_config.clone());
    out
}

/// The `RenderedInferenceService` of one resolved InferenceService. A merge the API server
/// would reject is pushed to `diags` (as a render reports it) and the view is `None`.
pub(crate) fn rendered_inference_service(
    isvc: &InferenceService,
    resolution: &Resolution<'_>,
    settings: &Settings,
    deploy_config: &Source,
    diags: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let errors_before = diags.iter().filter(|d| d.is_error()).count();
    let virtual_source = service_virtual(isvc);
    let mut components = Map::with_capacity(3);
    for role in Role::ALL {
        let Some(raw) = isvc.component(role) else {
            continue;
        };
        let config = resolution.runtime.spec.get(role.config_key());
        let mut merged = merge_component(isvc, role, config, raw, diags);
        let (mode, source) = match virtual_source {
            Some(source) => (DeploymentMode::VirtualDeployment, source),
            None => component_mode(isvc, role, &merged),
        };
        if virtual_source.is_none() {
            apply_deploy_defaults(&mut merged, role, mode, settings);
        }
        let type_name = match role {
            Role::Engine => "EngineSpec",
            Role::Decoder => "DecoderSpec",
            Role::Router => "RouterSpec",
        };
        let mut entry = Map::with_capacity(3);
        entry.push_unique("deploymentMode", Node::str(mode.as_str()));
        entry.push_unique("deploymentModeSource", Node::str(source.as_str()));
        entry.push_unique("spec", go_value(type_name, &merged));
        components.push_unique(role.as_str(), Node::map(entry));
    }
    if diags.iter().filter(|d| d.is_error()).count() > errors_before {
        return None;
    }
    let mut metadata = Map::with_capacity(2);
    metadata.push_unique("name", Node::str(isvc.name.clone()));
    metadata.push_unique("namespace", Node::str(isvc.lookup_namespace.clone()));
    let mut out = Map::with_capacity(7);
    out.push_unique("apiVersion", Node::str(API_VERSION));
    out.push_unique("kind", Node::str(KIND));
    out.push_unique("metadata", Node::map(metadata));
    out.push_unique("view", Node::str("Live"));
    out.push_unique(
        "sources",
        Node::seq(
            sources(isvc, resolution, deploy_config)
                .iter()
                .map(Source::node)
                .collect(),
        ),
    );
    out.push_unique(
        "deployDefaults",
        Node::str(if virtual_source.is_some() {
            "NotApplicable"
        } else {
            "Applied"
        }),
    );
    out.push_unique("components", Node::map(components));
    Some(Node::map(out))
}

/// The `RenderedInferenceServiceList` of every InferenceService's view, in the order given
/// (the catalog's: namespace, then name).
pub(crate) fn list(items: Vec<Node>) -> Node {
    let mut out = Map::with_capacity(3);
    out.push_unique("apiVersion", Node::str(API_VERSION));
    out.push_unique("kind", Node::str(LIST_KIND));
    out.push_unique("items", Node::seq(items));
    Node::map(out)
}

/// Every map's keys sorted, all the way down, in the order `sigs.k8s.io/yaml` writes them
/// (go-yaml's key order, [`yaml_key_order`]).
pub(crate) fn sorted(node: &Node) -> Node {
    match &node.value {
        Value::Map(m) => {
            let mut entries: Vec<_> = m.entries().map(|(k, v)| (k.clone(), sorted(v))).collect();
            entries.sort_by(|a, b| yaml_key_order(a.0.as_str(), b.0.as_str()));
            Node::new(Value::Map(Map::from_unique(entries)), node.pos)
        }
        Value::Seq(items) => Node::new(Value::Seq(items.iter().map(sorted).collect()), node.pos),
        _ => node.clone(),
    }
}

/// go-yaml's order of two string keys: at the first difference, two letters compare as
/// characters, a non-letter comes before a letter, and runs of digits compare as numbers
/// (`a9` before `a10`); a key that is a prefix of another comes first.
pub(crate) fn yaml_key_order(a: &str, b: &str) -> Ordering {
    let (ar, br): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (mut an, mut bn) = (0i64, 0i64);
        if ar[i] == '0' || br[i] == '0' {
            // A zero inside a number that began earlier with another digit counts.
            if ar[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .any(|&c| c != '0')
            {
                an = 1;
                bn = 1;
            }
        }
        let digits = |s: &[char], n: &mut i64| {
            let mut j = i;
            while j < s.len() && s[j].is_ascii_digit() {
                *n = n
                    .saturating_mul(10)
                    .saturating_add(i64::from(s[j] as u8 - b'0'));
                j += 1;
            }
            j
        };
        let ai = digits(&ar, &mut an);
        let bi = digits(&br, &mut bn);
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_as_go_yaml_sorts_them() {
        let mut keys = vec!["b", "a10", "a9", "_x", "A", "a-b", "ab", "a", "x2y", "x10y"];
        keys.sort_by(|a, b| yaml_key_order(a, b));
        // A non-letter before a letter (`_x` before `A`, unlike byte order); digit runs as
        // numbers; a prefix first.
        assert_eq!(
            keys,
            ["_x", "A", "a", "a-b", "a9", "a10", "ab", "b", "x2y", "x10y"]
        );
    }
}
