//! Map keys. The keys of Kubernetes and OME objects come mostly from a small vocabulary
//! (`name`, `image`, `resources`, ...): a key in [`VOCABULARY`] points into it, so reading,
//! copying and dropping it allocates nothing; any other key owns its text. Which of the two a
//! key is never shows: keys compare, hash and print as their text (BENCHMARKS.md).

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::LazyLock;

/// A map key: its text, shared with [`VOCABULARY`] when it is there.
#[derive(Clone)]
pub(crate) struct Key(Text);

#[derive(Clone)]
enum Text {
    Known(&'static str),
    Owned(Box<str>),
}

impl Key {
    /// The vocabulary's copy of `text`, if it has one.
    pub(crate) fn known(text: &str) -> Option<Key> {
        known(text).map(|k| Key(Text::Known(k)))
    }

    pub(crate) fn as_str(&self) -> &str {
        match &self.0 {
            Text::Known(s) => s,
            Text::Owned(s) => s,
        }
    }
}

impl Deref for Key {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Key {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

/// As the text hashes, so that a map indexed by keys can be searched by `&str`.
impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl From<&str> for Key {
    fn from(text: &str) -> Key {
        Key::known(text).unwrap_or_else(|| Key(Text::Owned(text.into())))
    }
}

impl From<String> for Key {
    fn from(text: String) -> Key {
        Key::known(&text).unwrap_or_else(|| Key(Text::Owned(text.into_boxed_str())))
    }
}

/// The keys objects use most: the fields of Kubernetes objects, pod specs and containers,
/// of OME's resources, and common label and annotation names. Only a cost: a key missing
/// here is read the same, into text of its own. No entry may read as anything but a string
/// in YAML (a test checks it), so a key found here is the key the parser would have made.
const VOCABULARY: &[&str] = &[
    // Every object.
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "labels",
    "annotations",
    "spec",
    "status",
    "data",
    "stringData",
    "type",
    "items",
    "ownerReferences",
    "finalizers",
    "generateName",
    "uid",
    "controller",
    "blockOwnerDeletion",
    // Pods and containers.
    "template",
    "selector",
    "matchLabels",
    "matchExpressions",
    "replicas",
    "strategy",
    "rollingUpdate",
    "maxSurge",
    "maxUnavailable",
    "minAvailable",
    "progressDeadlineSeconds",
    "revisionHistoryLimit",
    "containers",
    "initContainers",
    "image",
    "imagePullPolicy",
    "imagePullSecrets",
    "command",
    "args",
    "env",
    "envFrom",
    "value",
    "valueFrom",
    "fieldRef",
    "fieldPath",
    "secretKeyRef",
    "configMapKeyRef",
    "configMapRef",
    "secretRef",
    "key",
    "optional",
    "ports",
    "port",
    "containerPort",
    "targetPort",
    "protocol",
    "appProtocol",
    "resources",
    "requests",
    "limits",
    "cpu",
    "memory",
    "nvidia.com/gpu",
    "ephemeral-storage",
    "volumeMounts",
    "mountPath",
    "subPath",
    "readOnly",
    "volumes",
    "emptyDir",
    "medium",
    "sizeLimit",
    "hostPath",
    "persistentVolumeClaim",
    "claimName",
    "configMap",
    "secret",
    "secretName",
    "defaultMode",
    "path",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "httpGet",
    "tcpSocket",
    "exec",
    "grpc",
    "initialDelaySeconds",
    "periodSeconds",
    "timeoutSeconds",
    "successThreshold",
    "failureThreshold",
    "terminationGracePeriodSeconds",
    "securityContext",
    "capabilities",
    "add",
    "drop",
    "privileged",
    "runAsUser",
    "runAsGroup",
    "runAsNonRoot",
    "fsGroup",
    "allowPrivilegeEscalation",
    "readOnlyRootFilesystem",
    "seccompProfile",
    "workingDir",
    "lifecycle",
    "preStop",
    "postStart",
    "stdin",
    "tty",
    "nodeSelector",
    "nodeName",
    "tolerations",
    "operator",
    "effect",
    "tolerationSeconds",
    "affinity",
    "nodeAffinity",
    "podAffinity",
    "podAntiAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "preferredDuringSchedulingIgnoredDuringExecution",
    "nodeSelectorTerms",
    "values",
    "weight",
    "preference",
    "podAffinityTerm",
    "labelSelector",
    "topologyKey",
    "topologySpreadConstraints",
    "maxSkew",
    "whenUnsatisfiable",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "schedulerName",
    "priorityClassName",
    "hostNetwork",
    "hostIPC",
    "hostPID",
    "dnsPolicy",
    "enableServiceLinks",
    "restartPolicy",
    "runtimeClassName",
    "subdomain",
    "hostname",
    "shmSize",
    // Services, autoscalers, RBAC, workloads OME makes.
    "clusterIP",
    "sessionAffinity",
    "scaleTargetRef",
    "minReplicas",
    "maxReplicas",
    "metrics",
    "resource",
    "target",
    "averageUtilization",
    "averageValue",
    "behavior",
    "scaleUp",
    "scaleDown",
    "stabilizationWindowSeconds",
    "policies",
    "triggers",
    "pollingInterval",
    "cooldownPeriod",
    "rules",
    "apiGroups",
    "verbs",
    "roleRef",
    "apiGroup",
    "subjects",
    "leaderWorkerTemplate",
    "leaderTemplate",
    "workerTemplate",
    "size",
    "startupPolicy",
    "ingressClassName",
    "host",
    "http",
    "paths",
    "pathType",
    "backend",
    "service",
    "number",
    "parentRefs",
    "backendRefs",
    "matches",
    // OME: InferenceServices, runtimes, models, accelerator classes.
    "model",
    "runtime",
    "engine",
    "decoder",
    "router",
    "predictor",
    "engineConfig",
    "decoderConfig",
    "routerConfig",
    "runner",
    "leader",
    "worker",
    "workers",
    "supportedModelFormats",
    "modelFormat",
    "modelFramework",
    "modelArchitecture",
    "modelSizeRange",
    "modelParameterSize",
    "modelCapabilities",
    "modelType",
    "modelConfiguration",
    "modelExtension",
    "quantization",
    "autoSelect",
    "priority",
    "version",
    "disabled",
    "protocolVersions",
    "min",
    "max",
    "acceleratorRequirements",
    "acceleratorClasses",
    "acceleratorClass",
    "acceleratorConfig",
    "acceleratorSelector",
    "acceleratorOverride",
    "environmentOverride",
    "runtimeArgsOverride",
    "tensorParallelismOverride",
    "tensorParallelSize",
    "pipelineParallelSize",
    "dataParallelSize",
    "minMemoryPerBillionParams",
    "storage",
    "storageUri",
    "storageKey",
    "nodeAffinityRules",
    "vendor",
    "displayName",
    "fineTunedWeights",
    "fineTunedWeightTypes",
    "baseModelRef",
    "autoscaler",
    "autoscalerPolicyRef",
    "scalingPolicy",
    "kedaConfig",
    "deploymentMode",
    "deploymentStrategy",
    "minMemory",
    "minComputePerformanceTFLOPS",
    "discovery",
    "family",
    "memoryGB",
    "memoryBandwidthGBps",
    "computeCapability",
    "interconnect",
    "features",
    "performance",
    "cost",
    "perHour",
    "tier",
    "constraints",
    "policy",
    "rollout",
    "traffic",
    "revision",
    "autoSync",
    "diffusionPipeline",
    // Labels and annotations.
    "app",
    "component",
    "team",
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/component",
    "app.kubernetes.io/part-of",
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/version",
    "kubernetes.io/metadata.name",
    "prometheus.io/scrape",
    "prometheus.io/port",
    "prometheus.io/path",
    "ome.io/inferenceservice",
    "ome.io/deploymentMode",
    "ome.io/autoscalerClass",
    "ome.io/inherit-from",
    "ome.io/runtime-profile",
    "ome.io/engine",
    "base-model-name",
    "base-model-size",
    "base-model-type",
    "base-model-vendor",
    "fine-tuned-serving",
    "serving-runtime",
];

/// Keys longer than this are never in the vocabulary.
const LONGEST: usize = 48;

/// The vocabulary by length and first byte: `(start, end)` into [`BY_SHAPE`]'s sorted words.
struct Shapes {
    words: Vec<&'static str>,
    ranges: Vec<(u16, u16)>,
}

fn shape(len: usize, first: u8) -> usize {
    len * 128 + usize::from(first)
}

static BY_SHAPE: LazyLock<Shapes> = LazyLock::new(|| {
    let mut words: Vec<&'static str> = VOCABULARY.to_vec();
    words.sort_unstable_by_key(|w| (w.len(), w.as_bytes()[0], *w));
    words.dedup();
    let mut ranges = vec![(0u16, 0u16); shape(LONGEST + 1, 0)];
    for (i, w) in words.iter().enumerate() {
        let i = u16::try_from(i).unwrap_or(u16::MAX);
        let range = &mut ranges[shape(w.len(), w.as_bytes()[0])];
        if range.0 == range.1 {
            *range = (i, i + 1);
        } else {
            range.1 = i + 1;
        }
    }
    Shapes { words, ranges }
});

fn known(text: &str) -> Option<&'static str> {
    let first = *text.as_bytes().first()?;
    if text.len() > LONGEST || first >= 128 {
        return None;
    }
    let shapes = &*BY_SHAPE;
    let (start, end) = shapes.ranges[shape(text.len(), first)];
    shapes.words[usize::from(start)..usize::from(end)]
        .iter()
        .find(|w| **w == text)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Value;
    use crate::yaml::scalar::resolve_plain;
    use std::borrow::Cow;

    #[test]
    fn every_word_of_the_vocabulary_is_found_and_reads_as_a_string() {
        for word in VOCABULARY {
            assert!(word.len() <= LONGEST && word.is_ascii(), "{word}");
            assert_eq!(known(word), Some(*word));
            assert_eq!(
                resolve_plain(Cow::Borrowed(word)),
                Value::Str(word.to_string()),
                "{word} must read as itself"
            );
        }
    }

    #[test]
    fn other_text_is_owned_and_reads_the_same() {
        for text in [
            "",
            "nam",
            "names",
            "Name",
            "x",
            "nvidia.com/gpu2",
            "名前",
            "image ",
        ] {
            assert_eq!(known(text), None, "{text:?}");
            let key = Key::from(text);
            assert_eq!(key.as_str(), text);
            assert!(matches!(key.0, Text::Owned(_)));
        }
        let known = Key::from("name".to_string());
        assert!(matches!(known.0, Text::Known(_)));
        assert_eq!(known, Key::from("name"));
    }
}
