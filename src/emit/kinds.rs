//! The kinds `--kinds` may name: Kubernetes' built-in kinds, OME's, the kinds ome-render
//! renders, and any kind among the inputs. A name outside them is a typo (`Deploymnt`).

use crate::diagnostics::suggest;
use crate::rendered::Rendered;

/// Kubernetes' built-in kinds (the API groups of a current cluster), OME's kinds, and the
/// kinds of the CRDs ome-render renders objects of.
const KNOWN: &[&str] = &[
    // core/v1
    "Binding",
    "ComponentStatus",
    "ConfigMap",
    "Endpoints",
    "Event",
    "LimitRange",
    "List",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Pod",
    "PodTemplate",
    "ReplicationController",
    "ResourceQuota",
    "Secret",
    "Service",
    "ServiceAccount",
    // apps, batch, autoscaling, policy
    "ControllerRevision",
    "DaemonSet",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "CronJob",
    "Job",
    "HorizontalPodAutoscaler",
    "PodDisruptionBudget",
    // rbac, networking, storage, scheduling, node, coordination, discovery
    "ClusterRole",
    "ClusterRoleBinding",
    "Role",
    "RoleBinding",
    "Ingress",
    "IngressClass",
    "NetworkPolicy",
    "CSIDriver",
    "CSINode",
    "CSIStorageCapacity",
    "StorageClass",
    "VolumeAttachment",
    "PriorityClass",
    "RuntimeClass",
    "Lease",
    "EndpointSlice",
    // admission, extensions, certificates, flow control, resource
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "CustomResourceDefinition",
    "APIService",
    "CertificateSigningRequest",
    "FlowSchema",
    "PriorityLevelConfiguration",
    "DeviceClass",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "ResourceSlice",
    // OME
    "InferenceService",
    "BaseModel",
    "ClusterBaseModel",
    "ServingRuntime",
    "ClusterServingRuntime",
    "AcceleratorClass",
    "FineTunedWeight",
    "BenchmarkJob",
    "InferenceReplica",
    "AutoscalerPolicy",
    // rendered by ome-render
    "LeaderWorkerSet",
    "ScaledObject",
];

/// A kind `--kinds` names that matches nothing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unmatched {
    /// A kind that exists but has no object in the output.
    Known(String),
    /// A name that is no kind at all, with the closest kind when there is one.
    Unknown {
        name: String,
        closest: Option<String>,
    },
}

/// The kinds of `wanted` (compared ignoring case) that match no object of `output`; a kind
/// is known when it is built in or among `input_kinds`.
pub(crate) fn unmatched<'a>(
    wanted: &[String],
    output: &[Rendered],
    input_kinds: impl Iterator<Item = &'a str> + Clone,
) -> Vec<Unmatched> {
    let mut out = Vec::new();
    for name in wanted {
        if output.iter().any(|o| o.kind.eq_ignore_ascii_case(name)) {
            continue;
        }
        let known = KNOWN
            .iter()
            .copied()
            .chain(input_kinds.clone())
            .any(|k| k.eq_ignore_ascii_case(name));
        if known {
            out.push(Unmatched::Known(name.clone()));
        } else {
            let mut all: Vec<&str> = KNOWN.to_vec();
            all.extend(input_kinds.clone());
            out.push(Unmatched::Unknown {
                name: name.clone(),
                closest: suggest::closest(name, &all).map(str::to_string),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_unknown_and_known_kinds_unmatched() {
        let wanted: Vec<String> = ["Deploymnt", "secret", "Widget", "Frobnicator"]
            .map(String::from)
            .to_vec();
        let found = unmatched(&wanted, &[], ["Widget"].into_iter());
        assert_eq!(
            found,
            [
                Unmatched::Unknown {
                    name: "Deploymnt".into(),
                    closest: Some("Deployment".into())
                },
                Unmatched::Known("secret".into()),
                Unmatched::Known("Widget".into()),
                Unmatched::Unknown {
                    name: "Frobnicator".into(),
                    closest: None
                },
            ]
        );
    }
}
