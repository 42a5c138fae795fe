//! The one table of kinds ome-render knows: Kubernetes' built-in kinds, OME's, and the kinds
//! of the CRDs it renders objects of, each with its API group and scope. `--kinds`, the
//! catalog (OME's kinds, cluster scope), identities and the API checks read it; adding a kind
//! is one row (ARCHITECTURE.md).

/// Whether objects of a kind live in a namespace. Runtimes use it too: a ServingRuntime is
/// namespaced, a ClusterServingRuntime is not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Scope {
    /// In a namespace (a ServingRuntime is visible in its own namespace).
    Namespaced,
    /// Cluster-wide (a ClusterServingRuntime is visible everywhere).
    Cluster,
}

/// Who defines a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Kubernetes itself (the API groups of a current cluster).
    BuiltIn,
    /// OME's API group, `ome.io` (its v1.3 CRDs).
    Ome,
    /// A CRD that ome-render renders objects of (LeaderWorkerSet, KEDA, …).
    Rendered,
}

/// One kind: its name, API group (empty for the core group), scope and origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kind {
    pub(crate) name: &'static str,
    pub(crate) group: &'static str,
    pub(crate) scope: Scope,
    pub(crate) origin: Origin,
}

const fn row(name: &'static str, group: &'static str, scope: Scope, origin: Origin) -> Kind {
    Kind {
        name,
        group,
        scope,
        origin,
    }
}

use Origin::{BuiltIn, Ome, Rendered};
use Scope::{Cluster, Namespaced};

/// Every kind ome-render knows: name, API group, scope, origin; one row each.
#[rustfmt::skip]
pub(crate) const KINDS: &[Kind] = &[
    // core/v1
    row("Binding",                          "",                             Namespaced, BuiltIn),
    row("ComponentStatus",                  "",                             Cluster,    BuiltIn),
    row("ConfigMap",                        "",                             Namespaced, BuiltIn),
    row("Endpoints",                        "",                             Namespaced, BuiltIn),
    row("Event",                            "",                             Namespaced, BuiltIn),
    row("LimitRange",                       "",                             Namespaced, BuiltIn),
    row("List",                             "",                             Namespaced, BuiltIn),
    row("Namespace",                        "",                             Cluster,    BuiltIn),
    row("Node",                             "",                             Cluster,    BuiltIn),
    row("PersistentVolume",                 "",                             Cluster,    BuiltIn),
    row("PersistentVolumeClaim",            "",                             Namespaced, BuiltIn),
    row("Pod",                              "",                             Namespaced, BuiltIn),
    row("PodTemplate",                      "",                             Namespaced, BuiltIn),
    row("ReplicationController",            "",                             Namespaced, BuiltIn),
    row("ResourceQuota",                    "",                             Namespaced, BuiltIn),
    row("Secret",                           "",                             Namespaced, BuiltIn),
    row("Service",                          "",                             Namespaced, BuiltIn),
    row("ServiceAccount",                   "",                             Namespaced, BuiltIn),
    // apps, batch, autoscaling, policy
    row("ControllerRevision",               "apps",                         Namespaced, BuiltIn),
    row("DaemonSet",                        "apps",                         Namespaced, BuiltIn),
    row("Deployment",                       "apps",                         Namespaced, BuiltIn),
    row("ReplicaSet",                       "apps",                         Namespaced, BuiltIn),
    row("StatefulSet",                      "apps",                         Namespaced, BuiltIn),
    row("CronJob",                          "batch",                        Namespaced, BuiltIn),
    row("Job",                              "batch",                        Namespaced, BuiltIn),
    row("HorizontalPodAutoscaler",          "autoscaling",                  Namespaced, BuiltIn),
    row("PodDisruptionBudget",              "policy",                       Namespaced, BuiltIn),
    // rbac, networking, storage, scheduling, node, coordination, discovery
    row("ClusterRole",                      "rbac.authorization.k8s.io",    Cluster,    BuiltIn),
    row("ClusterRoleBinding",               "rbac.authorization.k8s.io",    Cluster,    BuiltIn),
    row("Role",                             "rbac.authorization.k8s.io",    Namespaced, BuiltIn),
    row("RoleBinding",                      "rbac.authorization.k8s.io",    Namespaced, BuiltIn),
    row("Ingress",                          "networking.k8s.io",            Namespaced, BuiltIn),
    row("IngressClass",                     "networking.k8s.io",            Cluster,    BuiltIn),
    row("NetworkPolicy",                    "networking.k8s.io",            Namespaced, BuiltIn),
    row("CSIDriver",                        "storage.k8s.io",               Cluster,    BuiltIn),
    row("CSINode",                          "storage.k8s.io",               Cluster,    BuiltIn),
    row("CSIStorageCapacity",               "storage.k8s.io",               Namespaced, BuiltIn),
    row("StorageClass",                     "storage.k8s.io",               Cluster,    BuiltIn),
    row("VolumeAttachment",                 "storage.k8s.io",               Cluster,    BuiltIn),
    row("PriorityClass",                    "scheduling.k8s.io",            Cluster,    BuiltIn),
    row("RuntimeClass",                     "node.k8s.io",                  Cluster,    BuiltIn),
    row("Lease",                            "coordination.k8s.io",          Namespaced, BuiltIn),
    row("EndpointSlice",                    "discovery.k8s.io",             Namespaced, BuiltIn),
    // admission, extensions, certificates, flow control, resource
    row("MutatingWebhookConfiguration",     "admissionregistration.k8s.io", Cluster,    BuiltIn),
    row("ValidatingWebhookConfiguration",   "admissionregistration.k8s.io", Cluster,    BuiltIn),
    row("ValidatingAdmissionPolicy",        "admissionregistration.k8s.io", Cluster,    BuiltIn),
    row("ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io", Cluster,    BuiltIn),
    row("CustomResourceDefinition",         "apiextensions.k8s.io",         Cluster,    BuiltIn),
    row("APIService",                       "apiregistration.k8s.io",       Cluster,    BuiltIn),
    row("CertificateSigningRequest",        "certificates.k8s.io",          Cluster,    BuiltIn),
    row("FlowSchema",                       "flowcontrol.apiserver.k8s.io", Cluster,    BuiltIn),
    row("PriorityLevelConfiguration",       "flowcontrol.apiserver.k8s.io", Cluster,    BuiltIn),
    row("DeviceClass",                      "resource.k8s.io",              Cluster,    BuiltIn),
    row("ResourceClaim",                    "resource.k8s.io",              Namespaced, BuiltIn),
    row("ResourceClaimTemplate",            "resource.k8s.io",              Namespaced, BuiltIn),
    row("ResourceSlice",                    "resource.k8s.io",              Cluster,    BuiltIn),
    // OME v1.3's CRDs
    row("AcceleratorClass",                 "ome.io",                       Cluster,    Ome),
    row("AcceleratorQuota",                 "ome.io",                       Namespaced, Ome),
    row("AutoscalerPolicy",                 "ome.io",                       Namespaced, Ome),
    row("BaseModel",                        "ome.io",                       Namespaced, Ome),
    row("BenchmarkJob",                     "ome.io",                       Namespaced, Ome),
    row("ClusterBaseModel",                 "ome.io",                       Cluster,    Ome),
    row("ClusterServingRuntime",            "ome.io",                       Cluster,    Ome),
    row("FineTunedWeight",                  "ome.io",                       Namespaced, Ome),
    row("InferenceReplica",                 "ome.io",                       Namespaced, Ome),
    row("InferenceService",                 "ome.io",                       Namespaced, Ome),
    row("RolloutPolicy",                    "ome.io",                       Namespaced, Ome),
    row("ServingRuntime",                   "ome.io",                       Namespaced, Ome),
    row("TrafficMap",                       "ome.io",                       Namespaced, Ome),
    row("WorkloadCluster",                  "ome.io",                       Cluster,    Ome),
    // CRDs ome-render renders objects of
    row("LeaderWorkerSet",                  "leaderworkerset.x-k8s.io",     Namespaced, Rendered),
    row("ScaledObject",                     "keda.sh",                      Namespaced, Rendered),
    row("HTTPRoute",                        "gateway.networking.k8s.io",    Namespaced, Rendered),
    row("PodMonitor",                       "monitoring.coreos.com",        Namespaced, Rendered),
    row("BackendTrafficPolicy",             "gateway.envoyproxy.io",        Namespaced, Rendered),
    row("DestinationRule",                  "networking.istio.io",          Namespaced, Rendered),
];

/// The row of a kind, by name.
pub(crate) fn of(name: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.name == name)
}

/// The scope of objects of `kind`: a kind outside the table (another CRD) is namespaced, as
/// most are; its objects written without a namespace are in the default one
/// (SEMANTICS.md#choice-namespaces).
pub(crate) fn scope(kind: &str) -> Scope {
    of(kind).map_or(Scope::Namespaced, |k| k.scope)
}

/// The names of OME's kinds (its API group's CRDs), in the table's order.
pub(crate) fn ome_kinds() -> impl Iterator<Item = &'static str> + Clone {
    KINDS
        .iter()
        .filter(|k| k.origin == Origin::Ome)
        .map(|k| k.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_one_row() {
        let mut names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }

    #[test]
    fn scopes_follow_the_api_server() {
        assert_eq!(scope("Namespace"), Scope::Cluster);
        assert_eq!(scope("ClusterServingRuntime"), Scope::Cluster);
        assert_eq!(scope("Service"), Scope::Namespaced);
        assert_eq!(scope("SomeOtherCrd"), Scope::Namespaced);
        assert!(ome_kinds().any(|k| k == "TrafficMap"));
        assert!(ome_kinds().all(|k| of(k).unwrap().group == "ome.io"));
    }
}
