//! The one identity of an object: what makes two objects the same object in a cluster — API
//! group, kind, namespace and name — with one rule for a missing namespace: an object of a
//! namespaced kind written without one is in the effective namespace (`-n`, the Argo CD
//! application's, else `default`); a cluster-scoped kind has none (SEMANTICS.md#choice-namespaces).

use super::kinds::{self, Scope};
use std::fmt;

/// An object's identity. Borrowed from the object (`ObjectId<&str>`: hashing it allocates
/// nothing) or owned (`ObjectId<String>`, kept past the object, as `diff` does). Ordered by
/// kind, namespace and name, then group: the order `diff` lists resources in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ObjectId<S = String> {
    pub(crate) kind: S,
    /// Empty for a cluster-scoped kind.
    pub(crate) namespace: S,
    pub(crate) name: S,
    /// The API group: empty for the core group.
    pub(crate) group: S,
}

impl<'a> ObjectId<&'a str> {
    /// The identity of an object of `api_version` and `kind` written with `namespace` (or
    /// none), when objects written without one are in `effective_namespace`.
    pub(crate) fn new(
        api_version: &'a str,
        kind: &'a str,
        namespace: Option<&'a str>,
        name: &'a str,
        effective_namespace: &'a str,
    ) -> ObjectId<&'a str> {
        ObjectId {
            group: api_version.rsplit_once('/').map_or("", |(group, _)| group),
            kind,
            namespace: match kinds::scope(kind) {
                Scope::Cluster => "",
                Scope::Namespaced => namespace.unwrap_or(effective_namespace),
            },
            name,
        }
    }

    /// The identity of an object of a kind in the kind table (its group from there) in
    /// `namespace` (dropped for a cluster-scoped kind).
    pub(crate) fn of_kind(kind: &'a str, namespace: &'a str, name: &'a str) -> ObjectId<&'a str> {
        ObjectId {
            group: kinds::of(kind).map_or("", |k| k.group),
            kind,
            namespace: match kinds::scope(kind) {
                Scope::Cluster => "",
                Scope::Namespaced => namespace,
            },
            name,
        }
    }

    /// The same identity, owned.
    pub(crate) fn to_owned(self) -> ObjectId {
        ObjectId {
            kind: self.kind.to_string(),
            namespace: self.namespace.to_string(),
            name: self.name.to_string(),
            group: self.group.to_string(),
        }
    }
}

impl ObjectId {
    /// An object named as it is written, to label a diagnostic: its namespace as written
    /// (empty when written without one, so it reads `Kind/name`), its group from `api_version`.
    pub(crate) fn written(
        api_version: &str,
        kind: impl Into<String>,
        namespace: Option<String>,
        name: impl Into<String>,
    ) -> ObjectId {
        ObjectId {
            kind: kind.into(),
            namespace: namespace.unwrap_or_default(),
            name: name.into(),
            group: api_version
                .rsplit_once('/')
                .map_or("", |(group, _)| group)
                .to_string(),
        }
    }
}

impl<S: AsRef<str>> ObjectId<S> {
    /// `NAMESPACE/NAME`, or `NAME` at cluster scope.
    pub(crate) fn path(&self) -> String {
        let (namespace, name) = (self.namespace.as_ref(), self.name.as_ref());
        if namespace.is_empty() {
            name.to_string()
        } else {
            format!("{namespace}/{name}")
        }
    }
}

impl<S: AsRef<str>> fmt::Display for ObjectId<S> {
    /// `ClusterServingRuntime/srt-a`, `ServingRuntime/team/srt-a`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.kind.as_ref(), self.path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_written_without_a_namespace_is_in_the_effective_one() {
        let written = ObjectId::new("v1", "Service", None, "chat", "default");
        let explicit = ObjectId::new("v1", "Service", Some("default"), "chat", "default");
        assert_eq!(written, explicit);
        let elsewhere = ObjectId::new("v1", "Service", None, "chat", "team-a");
        assert_ne!(written, elsewhere);
    }

    #[test]
    fn a_cluster_scoped_kind_has_no_namespace_and_groups_tell_kinds_apart() {
        let a = ObjectId::new(
            "ome.io/v1beta1",
            "ClusterServingRuntime",
            Some("x"),
            "rt",
            "d",
        );
        assert_eq!(a.namespace, "");
        let core = ObjectId::new("v1", "Service", None, "s", "d");
        let other = ObjectId::new("example.com/v1", "Service", None, "s", "d");
        assert_ne!(core, other);
        assert_eq!(other.group, "example.com");
    }

    #[test]
    fn a_kind_of_the_table_takes_its_group_and_scope_from_it() {
        let revision = ObjectId::of_kind("ControllerRevision", "ome", "rt-1");
        assert_eq!(revision.group, "apps");
        let runtime = ObjectId::of_kind("ClusterServingRuntime", "team", "rt");
        assert_eq!((runtime.group, runtime.namespace), ("ome.io", ""));
        assert_eq!(runtime.to_string(), "ClusterServingRuntime/rt");
        let owned = ObjectId::of_kind("ServingRuntime", "team", "rt").to_owned();
        assert_eq!(owned.to_string(), "ServingRuntime/team/rt");
        assert_eq!(
            owned,
            ObjectId::of_kind("ServingRuntime", "team", "rt").to_owned()
        );
    }
}
