//! Field names of OME's types (ome.io/v1beta1 as of v1.3), to catch typos: the API server
//! prunes unknown fields without a word, so a misspelt `nodeSelectr` would silently do
//! nothing. ome-render warns instead, and leaves the field out as OME would.

use super::component::Role;
use super::fields::join;
use crate::diagnostics::{Code, Diagnostic, suggest};
use crate::k8s::id::ObjectId;
use crate::yaml::Node;
use std::sync::LazyLock;

/// The pod-spec fields a component (and a leader or worker) inlines: core/v1 PodSpec.
pub(crate) const POD_FIELDS: &[&str] = &[
    "volumes",
    "initContainers",
    "containers",
    "ephemeralContainers",
    "restartPolicy",
    "terminationGracePeriodSeconds",
    "activeDeadlineSeconds",
    "dnsPolicy",
    "nodeSelector",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "nodeName",
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "securityContext",
    "imagePullSecrets",
    "hostname",
    "subdomain",
    "affinity",
    "schedulerName",
    "tolerations",
    "hostAliases",
    "priorityClassName",
    "priority",
    "dnsConfig",
    "readinessGates",
    "runtimeClassName",
    "enableServiceLinks",
    "preemptionPolicy",
    "overhead",
    "topologySpreadConstraints",
    "setHostnameAsFQDN",
    "os",
    "hostUsers",
    "schedulingGates",
    "resourceClaims",
];

/// OME's own component fields (ComponentExtensionSpec, the component's own keys, the
/// router's `config`).
pub(crate) const COMPONENT_FIELDS: &[&str] = &[
    "minReplicas",
    "maxReplicas",
    "timeoutSeconds",
    "labels",
    "annotations",
    "servicePortAppProtocols",
    "minAvailable",
    "maxUnavailable",
    "deploymentStrategy",
    "lifecycle",
    "autoscaler",
    "autoscalerPolicyRef",
    "runner",
    "leader",
    "worker",
    "topologyKey",
    "topologySpread",
    "topologySpreadKey",
    "acceleratorOverride",
    "config",
];

/// Fields OME v1.3 removed, with what replaced them (SEMANTICS.md#migration); its API server
/// drops them (or, under kubectl's strict field validation, refuses the object).
pub(crate) const REMOVED_FIELDS: &[(&str, &str)] = &[
    (
        "scaleMetric",
        "use `autoscaler: {class: HPA, hpa: {metrics: [{type: Resource, resource: {name: <cpu|memory>, target: {type: Utilization, averageUtilization: <n>}}}]}}`",
    ),
    (
        "scaleTarget",
        "use `autoscaler.hpa.metrics[0].resource.target.averageUtilization`",
    ),
    (
        "kedaConfig",
        "use `autoscaler: {class: KEDA, keda: {triggers: [...]}}` on the component: promServerAddress, customPromQuery and scalingThreshold become serverAddress, query and threshold in the `metadata` of a `prometheus` trigger; authenticationRef moves to the trigger and authModes into its metadata; drop scalingOperator; replace a `%s` in the query with the component's name (`<isvc>-<component>`)",
    ),
    ("containerConcurrency", "remove it"),
    ("canaryTrafficPercent", "remove it"),
    (
        "workers",
        "use `engineConfig.leader` and `engineConfig.worker` (with `worker.size`), or the same under decoderConfig",
    ),
];

/// Component fields OME's InferenceService webhook rejects outright, reported by admission
/// (`LegacyAutoscalerFieldsRejected`) rather than as removed fields.
const REJECTED_COMPONENT_FIELDS: &[&str] = &["scaleMetric", "scaleTarget"];

const ISVC_SPEC: &[&str] = &[
    "deploymentMode",
    "engine",
    "decoder",
    "model",
    "runtime",
    "router",
    "acceleratorSelector",
    "traffic",
    "rollout",
    "scalingPolicy",
    "placement",
    "routing",
    "replicaRefs",
    "ttlSecondsAfterCreation",
];
const MODEL_REF: &[&str] = &["name", "kind", "apiGroup", "fineTunedWeights", "overlays"];
const RUNTIME_REF: &[&str] = &["name", "kind", "apiGroup", "autoSync", "revision"];
const ACCELERATOR_SELECTOR: &[&str] = &["acceleratorClass", "constraints", "policy"];
const RUNTIME_SPEC: &[&str] = &[
    "supportedModelFormats",
    "modelSizeRange",
    "disabled",
    "routerConfig",
    "engineConfig",
    "decoderConfig",
    "protocolVersions",
    "scalingPolicy",
    "acceleratorRequirements",
    // ServingRuntimePodSpec, inlined.
    "containers",
    "volumes",
    "nodeSelector",
    "affinity",
    "tolerations",
    "labels",
    "annotations",
    "imagePullSecrets",
    "schedulerName",
    "hostIPC",
    "dnsPolicy",
    "hostNetwork",
];
const SUPPORTED_FORMAT: &[&str] = &[
    "name",
    "version",
    "modelType",
    "modelFormat",
    "modelFramework",
    "modelArchitecture",
    "quantization",
    "diffusionPipeline",
    "autoSelect",
    "priority",
    "acceleratorConfig",
    "modelCacheProviders",
];
/// core/v1 Container: the runner's fields.
const CONTAINER: &[&str] = &[
    "name",
    "image",
    "command",
    "args",
    "workingDir",
    "ports",
    "envFrom",
    "env",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "volumeMounts",
    "volumeDevices",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
];

/// Whether `key` is a core/v1 Container field.
pub(crate) fn is_container_field(key: &str) -> bool {
    CONTAINER.contains(&key)
}

struct Checker<'a> {
    object: &'a ObjectId,
    diags: Vec<Diagnostic>,
    /// Keys left to admission (the InferenceService's components).
    skipped: &'a [&'a str],
}

/// Whether `key` is one of `known`. Most keys differ from most names in length or first
/// byte, so those are compared before the bytes.
fn listed(known: &[&str], key: &str) -> bool {
    let first = key.as_bytes().first();
    known
        .iter()
        .any(|k| k.len() == key.len() && k.as_bytes().first() == first && *k == key)
}

/// The fields a component of each role may hold, built once: the pod's and OME's own, less
/// the multi-node and accelerator fields for the router, less `config` for the others.
static COMPONENT_KNOWN: LazyLock<[Vec<&'static str>; 2]> = LazyLock::new(|| {
    let fields = |router: bool| {
        POD_FIELDS
            .iter()
            .chain(COMPONENT_FIELDS)
            .copied()
            .filter(|k| {
                if router {
                    !matches!(
                        *k,
                        "leader"
                            | "worker"
                            | "topologyKey"
                            | "topologySpread"
                            | "topologySpreadKey"
                            | "acceleratorOverride"
                    )
                } else {
                    *k != "config"
                }
            })
            .collect()
    };
    [fields(false), fields(true)]
});

/// The fields of a leader and of a worker: the pod's, the runner, and the worker's `size`.
static PART_KNOWN: LazyLock<[Vec<&'static str>; 2]> = LazyLock::new(|| {
    let fields = |extra: &[&'static str]| {
        POD_FIELDS
            .iter()
            .chain(extra)
            .copied()
            .collect::<Vec<&str>>()
    };
    [fields(&["runner"]), fields(&["runner", "size"])]
});

impl Checker<'_> {
    /// Warns of each key of `node` that is not `known`; `path` makes the map's field path,
    /// only when there is something to report.
    fn keys(&mut self, node: Option<&Node>, path: impl Fn() -> String, known: &[&str]) {
        let Some(map) = node.and_then(Node::as_map) else {
            return;
        };
        for (key, value) in map.iter() {
            if listed(known, key) || listed(self.skipped, key) {
                continue;
            }
            let field = join(&path(), key);
            let diag = match REMOVED_FIELDS.iter().find(|(k, _)| *k == key) {
                Some((_, help)) => Diagnostic::warning(
                    Code::Migration,
                    format!("`{key}` was removed in OME v1.3; the API server drops it"),
                )
                .help(*help),
                None => {
                    let mut d = Diagnostic::warning(
                        Code::UnknownField,
                        format!(
                            "unknown field `{key}`; the API server drops it, so it has no effect"
                        ),
                    );
                    if let Some(close) = suggest::closest(key, known) {
                        d = d.help(format!("did you mean `{close}`?"));
                    }
                    d
                }
            };
            self.diags
                .push(diag.at(value.pos).object(self.object.clone()).field(field));
        }
    }

    fn component(&mut self, node: &Node, path: &str, role: Role, isvc: bool) {
        let router = role == Role::Router;
        if isvc {
            self.skipped = REJECTED_COMPONENT_FIELDS;
        }
        self.keys(
            Some(node),
            || path.to_string(),
            &COMPONENT_KNOWN[usize::from(router)],
        );
        self.skipped = &[];
        self.keys(node.get("runner"), || join(path, "runner"), CONTAINER);
        if !router {
            for (part, known) in ["leader", "worker"].into_iter().zip(&*PART_KNOWN) {
                let part_node = node.get(part);
                self.keys(part_node, || join(path, part), known);
                self.keys(
                    part_node.and_then(|n| n.get("runner")),
                    || join(&join(path, part), "runner"),
                    CONTAINER,
                );
            }
            self.keys(
                node.get("acceleratorOverride"),
                || join(path, "acceleratorOverride"),
                ACCELERATOR_SELECTOR,
            );
        }
    }
}

/// Unknown fields of an InferenceService.
pub(crate) fn check_inference_service(root: &Node, object: &ObjectId) -> Vec<Diagnostic> {
    let mut c = Checker {
        object,
        diags: Vec::new(),
        skipped: &[],
    };
    let spec = root.get("spec");
    c.keys(spec, || "spec".to_string(), ISVC_SPEC);
    if let Some(spec) = spec {
        c.keys(spec.get("model"), || "spec.model".to_string(), MODEL_REF);
        c.keys(
            spec.get("runtime"),
            || "spec.runtime".to_string(),
            RUNTIME_REF,
        );
        c.keys(
            spec.get("acceleratorSelector"),
            || "spec.acceleratorSelector".to_string(),
            ACCELERATOR_SELECTOR,
        );
        for role in Role::ALL {
            let key = role.as_str();
            if let Some(component) = spec.get(key) {
                c.component(component, &join("spec", key), role, true);
            }
        }
    }
    c.diags
}

/// Unknown fields of a ServingRuntime or ClusterServingRuntime.
pub(crate) fn check_runtime(root: &Node, object: &ObjectId) -> Vec<Diagnostic> {
    let mut c = Checker {
        object,
        diags: Vec::new(),
        skipped: &[],
    };
    let spec = root.get("spec");
    c.keys(spec, || "spec".to_string(), RUNTIME_SPEC);
    if let Some(spec) = spec {
        for (i, entry) in spec
            .get("supportedModelFormats")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            c.keys(
                Some(entry),
                || format!("spec.supportedModelFormats[{i}]"),
                SUPPORTED_FORMAT,
            );
        }
        for role in Role::ALL {
            let key = role.config_key();
            if let Some(config) = spec.get(key) {
                c.component(config, &join("spec", key), role, false);
            }
        }
    }
    c.diags
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn messages(text: &str, runtime: bool) -> Vec<String> {
        let root = parse_stream(text, 0).unwrap().remove(0).root;
        let object = ObjectId {
            kind: "X".into(),
            namespace: String::new(),
            name: "x".into(),
            group: String::new(),
        };
        let diags = if runtime {
            check_runtime(&root, &object)
        } else {
            check_inference_service(&root, &object)
        };
        diags
            .iter()
            .map(|d| {
                format!(
                    "{}: {} ({})",
                    d.field.clone().unwrap_or_default(),
                    d.message,
                    d.help.clone().unwrap_or_default()
                )
            })
            .collect()
    }

    #[test]
    fn typos_get_a_suggestion_and_removed_fields_a_pointer() {
        let found = messages(
            "spec:\n  model: {name: m, modelName: m}\n  engine:\n    nodeSelectr: {a: b}\n    scaleTarget: 50\n    runner: {name: r, imag: x}\n  deployment: {}\n",
            false,
        );
        assert_eq!(
            found,
            [
                "spec.deployment: unknown field `deployment`; the API server drops it, so it has no effect (did you mean `deploymentMode`?)",
                "spec.model.modelName: unknown field `modelName`; the API server drops it, so it has no effect ()",
                "spec.engine.nodeSelectr: unknown field `nodeSelectr`; the API server drops it, so it has no effect (did you mean `nodeSelector`?)",
                "spec.engine.runner.imag: unknown field `imag`; the API server drops it, so it has no effect (did you mean `image`?)",
            ]
        );
    }

    #[test]
    fn runtimes_and_their_configs_are_checked() {
        let found = messages(
            "spec:\n  supportedModelFormats:\n    - {modelFormat: {name: a}, autoselect: true}\n  workers: {size: 2}\n  routerConfig:\n    leader: {}\n",
            true,
        );
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(
            found[0].starts_with("spec.workers: `workers` was removed in OME v1.3"),
            "{found:?}"
        );
        assert!(found[1].contains("did you mean `autoSelect`?"), "{found:?}");
        assert!(
            found[2].starts_with("spec.routerConfig.leader: unknown field"),
            "{found:?}"
        );
    }

    #[test]
    fn known_fields_are_quiet() {
        assert!(messages("spec:\n  model: {name: m}\n  runtime: {name: r, kind: ServingRuntime}\n  engine:\n    minReplicas: 1\n    tolerations: []\n    runner: {name: r, image: x, env: []}\n    leader: {runner: {name: l}}\n    worker: {size: 1}\n  router: {config: {a: b}}\n", false).is_empty());
    }
}
