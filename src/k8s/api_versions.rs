//! The APIs a cluster serves, as the user lists them (`--api-versions`, `apiVersions:` in
//! `ome-render.yaml`): `GROUP/VERSION` or `GROUP/VERSION/KIND`, as `helm template
//! --api-versions` takes them (SEMANTICS.md#api-versions). Kubernetes' built-in APIs are
//! always served; the list speaks of the others (LeaderWorkerSet, KEDA, Gateway API, …).

use std::collections::BTreeSet;

/// The built-in API groups every cluster serves (the core group is `v1`).
const BUILT_IN_GROUPS: &[&str] = &[
    "",
    "apps",
    "autoscaling",
    "batch",
    "policy",
    "networking.k8s.io",
    "rbac.authorization.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "node.k8s.io",
];

/// The listed APIs: each entry a `group/version` (every kind of it) or `group/version/Kind`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ApiVersions {
    entries: BTreeSet<String>,
}

impl ApiVersions {
    /// Adds one entry, checked for shape: `v1`, `v1/Kind`, `group/version` or
    /// `group/version/Kind`; the error says what is wrong.
    pub(crate) fn insert(&mut self, entry: &str) -> Result<(), String> {
        let parts: Vec<&str> = entry.split('/').collect();
        let fine = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        };
        let kind = |s: &str| s.starts_with(|c: char| c.is_ascii_uppercase()) && fine(s);
        let ok = match parts.as_slice() {
            [version] => fine(version),
            [a, b] => fine(a) && fine(b),
            [group, version, k] => fine(group) && fine(version) && kind(k),
            _ => false,
        };
        if !ok {
            return Err(format!(
                "`{entry}` is no API version: write GROUP/VERSION or GROUP/VERSION/KIND, e.g. `leaderworkerset.x-k8s.io/v1` or `monitoring.coreos.com/v1/PodMonitor`"
            ));
        }
        self.entries.insert(entry.to_string());
        Ok(())
    }

    /// Whether the cluster serves `kind` of `api_version` (`apps/v1`, `v1`, …): a built-in
    /// API always, another when its group/version or its group/version/kind is listed.
    pub(crate) fn serves(&self, api_version: &str, kind: &str) -> bool {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        BUILT_IN_GROUPS.contains(&group)
            || self.entries.contains(api_version)
            || self.entries.contains(&format!("{api_version}/{kind}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_group_version_serves_its_kinds_and_a_listed_kind_only_itself() {
        let mut apis = ApiVersions::default();
        apis.insert("leaderworkerset.x-k8s.io/v1").unwrap();
        apis.insert("monitoring.coreos.com/v1/PodMonitor").unwrap();
        assert!(apis.serves("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"));
        assert!(apis.serves("monitoring.coreos.com/v1", "PodMonitor"));
        assert!(!apis.serves("monitoring.coreos.com/v1", "ServiceMonitor"));
        assert!(!apis.serves("keda.sh/v1alpha1", "ScaledObject"));
        assert!(!apis.serves("leaderworkerset.x-k8s.io/v2", "LeaderWorkerSet"));
    }

    #[test]
    fn built_in_apis_are_always_served() {
        let apis = ApiVersions::default();
        assert!(apis.serves("apps/v1", "Deployment"));
        assert!(apis.serves("v1", "Service"));
        assert!(apis.serves("networking.k8s.io/v1", "Ingress"));
        assert!(!apis.serves("gateway.networking.k8s.io/v1", "HTTPRoute"));
    }

    #[test]
    fn a_malformed_entry_is_refused_with_the_shapes_it_may_take() {
        let mut apis = ApiVersions::default();
        for bad in ["", "a/b/c/d", "x/v1/lowercase", "g/ v1", "/v1"] {
            let err = apis.insert(bad).unwrap_err();
            assert!(err.contains("GROUP/VERSION"), "{bad}: {err}");
        }
        assert_eq!(apis, ApiVersions::default());
    }
}
