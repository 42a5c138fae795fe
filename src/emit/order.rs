//! The output order: kustomize's legacy kind order (what Flux applies and reviewers see),
//! then API group/version/kind for kinds outside the list, then namespace and name.

use crate::rendered::Rendered;
use std::cmp::Ordering;

/// kustomize's `SortOrderTransformer` legacy order: these kinds first, in this order…
const FIRST: &[&str] = &[
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];
/// …then every other kind, then these last.
const LAST: &[&str] = &[
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

fn rank(kind: &str) -> usize {
    if let Some(i) = FIRST.iter().position(|k| *k == kind) {
        i
    } else if let Some(i) = LAST.iter().position(|k| *k == kind) {
        FIRST.len() + 1 + i
    } else {
        FIRST.len()
    }
}

/// Compares two objects for the output order.
pub(crate) fn compare(a: &Rendered, b: &Rendered) -> Ordering {
    key(a).cmp(&key(b))
}

/// What the output order compares: the kind's rank, group/version/kind, namespace, name.
pub(crate) type Key<'a> = (usize, (&'a str, &'a str, &'a str), &'a str, &'a str);

/// The object's place in the output order ([`compare`] compares these).
pub(crate) fn key(r: &Rendered) -> Key<'_> {
    let (rank, gvk) = kind_key(&r.api_version, &r.kind);
    (rank, gvk, r.namespace.as_deref().unwrap_or(""), &r.name)
}

/// The kind's place: its rank, then `group/version/kind`, kustomize's tie-break between
/// kinds of the same rank.
pub(crate) fn kind_key<'a>(
    api_version: &'a str,
    kind: &'a str,
) -> (usize, (&'a str, &'a str, &'a str)) {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    (rank(kind), (group, version, kind))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map;
    use crate::yaml::{Node, Pos};

    fn obj(api: &str, kind: &str, ns: Option<&str>, name: &str) -> Rendered {
        let mut meta = map! { "name" => Node::str(name) };
        if let Some(ns) = ns {
            meta.insert("namespace", Node::str(ns));
        }
        Rendered::new(
            Node::map(
                map! { "apiVersion" => Node::str(api), "kind" => Node::str(kind), "metadata" => Node::map(meta) },
            ),
            None,
            Pos::NONE,
        )
    }

    #[test]
    fn traffic_kinds_come_after_the_legacy_list_by_group() {
        let mut v = [
            obj("gateway.networking.k8s.io/v1", "HTTPRoute", Some("a"), "r"),
            obj("networking.k8s.io/v1", "Ingress", Some("a"), "i"),
            obj(
                "gateway.envoyproxy.io/v1alpha1",
                "BackendTrafficPolicy",
                Some("a"),
                "p",
            ),
            obj("apps/v1", "Deployment", Some("a"), "d"),
        ];
        v.sort_by(compare);
        let kinds: Vec<&str> = v.iter().map(|o| o.kind.as_str()).collect();
        assert_eq!(
            kinds,
            ["Deployment", "BackendTrafficPolicy", "HTTPRoute", "Ingress"]
        );
    }

    #[test]
    fn legacy_kind_order_then_namespace_and_name() {
        let mut objects = vec![
            obj(
                "admissionregistration.k8s.io/v1",
                "ValidatingWebhookConfiguration",
                None,
                "w",
            ),
            obj("autoscaling/v2", "HorizontalPodAutoscaler", Some("a"), "x"),
            obj("policy/v1", "PodDisruptionBudget", Some("a"), "x"),
            obj("apps/v1", "Deployment", Some("b"), "a"),
            obj("apps/v1", "Deployment", Some("a"), "z"),
            obj("v1", "Service", Some("a"), "x"),
            obj("v1", "ConfigMap", Some("a"), "x"),
            obj(
                "leaderworkerset.x-k8s.io/v1",
                "LeaderWorkerSet",
                Some("a"),
                "x",
            ),
            obj("v1", "Namespace", None, "a"),
            obj("monitoring.coreos.com/v1", "PodMonitor", Some("a"), "x"),
            obj("networking.istio.io/v1", "DestinationRule", Some("a"), "x"),
            obj(
                "gateway.envoyproxy.io/v1alpha1",
                "BackendTrafficPolicy",
                Some("a"),
                "x",
            ),
        ];
        objects.sort_by(compare);
        let order: Vec<String> = objects
            .iter()
            .map(|o| {
                format!(
                    "{}/{}/{}",
                    o.kind,
                    o.namespace.as_deref().unwrap_or("-"),
                    o.name
                )
            })
            .collect();
        assert_eq!(
            order,
            [
                "Namespace/-/a",
                "ConfigMap/a/x",
                "Service/a/x",
                "Deployment/a/z",
                "Deployment/b/a",
                "PodDisruptionBudget/a/x",
                "HorizontalPodAutoscaler/a/x",
                "BackendTrafficPolicy/a/x",
                "LeaderWorkerSet/a/x",
                "PodMonitor/a/x",
                "DestinationRule/a/x",
                "ValidatingWebhookConfiguration/-/w",
            ]
        );
    }

    proptest::proptest! {
        /// The packed keys of `emit::sort` give the order [`compare`] defines, ties kept in
        /// input order (objects of few kinds, namespaces and names, so ties are common).
        #[test]
        fn sort_orders_as_compare_does(
            picks in proptest::collection::vec((0usize..6, 0usize..4, 0usize..5), 0..60)
        ) {
            const KINDS: [(&str, &str); 6] = [
                ("apps/v1", "Deployment"),
                ("v1", "Service"),
                ("v1", "Namespace"),
                ("keda.sh/v1alpha1", "ScaledObject"),
                ("autoscaling/v2", "HorizontalPodAutoscaler"),
                ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"),
            ];
            const NAMESPACES: [Option<&str>; 4] = [None, Some("a"), Some("b"), Some("team-1")];
            let make = || -> Vec<Rendered> {
                picks
                    .iter()
                    .enumerate()
                    .map(|(i, &(k, ns, name))| {
                        let (api, kind) = KINDS[k];
                        let mut o = obj(api, kind, NAMESPACES[ns], &format!("n{name}"));
                        o.pos.line = u32::try_from(i).unwrap() + 1;
                        o
                    })
                    .collect()
            };
            let mut expected = make();
            expected.sort_by(compare);
            let mut sorted = make();
            crate::emit::sort(&mut sorted);
            let lines = |v: &[Rendered]| v.iter().map(|o| o.pos.line).collect::<Vec<_>>();
            proptest::prop_assert_eq!(lines(&sorted), lines(&expected));
        }
    }
}
