//! The one identity of an object: what makes two objects the same object in a cluster — API
//! group, kind, namespace and name — with one rule for a missing namespace: an object of a
//! namespaced kind written without one is in the effective namespace (`-n`, the Argo CD
//! application's, else `default`); a cluster-scoped kind has none (SEMANTICS.md#choice-namespaces).

use super::kinds::{self, Scope};

/// An object's identity, borrowed from the object (hashing it allocates nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ObjectId<'a> {
    pub(crate) group: &'a str,
    pub(crate) kind: &'a str,
    /// Empty for a cluster-scoped kind.
    pub(crate) namespace: &'a str,
    pub(crate) name: &'a str,
}

impl<'a> ObjectId<'a> {
    /// The identity of an object of `api_version` and `kind` written with `namespace` (or
    /// none), when objects written without one are in `effective_namespace`.
    pub(crate) fn new(
        api_version: &'a str,
        kind: &'a str,
        namespace: Option<&'a str>,
        name: &'a str,
        effective_namespace: &'a str,
    ) -> ObjectId<'a> {
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
}
