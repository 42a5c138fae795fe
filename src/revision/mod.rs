//! Runtime revisions (OME v1.3): the ControllerRevisions that snapshot a runtime's merged
//! spec for pinned InferenceServices, their names, labels and checks, and how two snapshots
//! differ (SEMANTICS.md#pins).
//!
//! - [`gojson`] serialises a spec as OME's controller does, so revision hashes and names are
//!   OME's own (SEMANTICS.md#revision-hashes);
//! - [`lock`] reads `ome-render.lock`, the record of managed pins that `ome-render pin`
//!   writes;
//! - this module reads a ControllerRevision into a [`Revision`], names revisions and checks
//!   names with OME's rules and messages.

pub(crate) mod gojson;
mod gotypes;
pub(crate) mod lock;

use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::load::Object;
use crate::merge::strategic::merge_key;
use crate::model::fields::Reader;
use crate::model::{RuntimeSpec, Scope};
use crate::yaml::{Map, Node, Pos};
use gojson::Canonical;
use std::collections::{HashMap, HashSet};

/// `metadata.labels` OME writes on every runtime revision.
pub(crate) const RUNTIME_OF: &str = "ome.io/runtime-of";
pub(crate) const RUNTIME_OF_KIND: &str = "ome.io/runtime-of-kind";
pub(crate) const RUNTIME_OF_NAMESPACE: &str = "ome.io/runtime-of-namespace";
pub(crate) const REVISION_HASH: &str = "ome.io/revision-hash";
/// The annotation that marks a revision as OME's own.
pub(crate) const CREATED_BY: &str = "ome.io/created-by";
pub(crate) const OME_CONTROLLER: &str = "ome-controller";
/// The InferenceService annotation whose new value rolls a managed pin forward.
pub(crate) const RUNTIME_SYNC: &str = "ome.io/runtime-sync";

/// Metadata a cluster assigns, left out when a revision is written to the output so that an
/// exported revision applies cleanly.
const CLUSTER_ASSIGNED: &[&str] = &[
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "managedFields",
    "generation",
    "selfLink",
];

/// Whether `obj` is a runtime revision: an `apps/v1` ControllerRevision labelled
/// `ome.io/runtime-of`. Other ControllerRevisions (a StatefulSet's) pass through untouched.
pub(crate) fn is_runtime_revision(obj: &Object) -> bool {
    obj.kind == "ControllerRevision"
        && obj.api_version == "apps/v1"
        && obj.root.at(&["metadata", "labels", RUNTIME_OF]).is_some()
}

/// The kind word of a scope, as labels and messages spell it.
pub(crate) fn kind_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Cluster => "ClusterServingRuntime",
        Scope::Namespaced => "ServingRuntime",
    }
}

/// One runtime revision of the inputs.
#[derive(Clone, Debug)]
pub(crate) struct Revision {
    pub(crate) name: String,
    /// As written, else OME's namespace.
    pub(crate) namespace: String,
    pub(crate) object: ObjectId,
    pub(crate) pos: Pos,
    /// `ome.io/runtime-of`.
    pub(crate) runtime_of: String,
    pub(crate) kind_label: Option<String>,
    pub(crate) namespace_label: Option<String>,
    pub(crate) hash_label: Option<String>,
    pub(crate) created_by: Option<String>,
    /// `.revision` (OME writes 1).
    pub(crate) ordinal: Option<i64>,
    /// The view of `data`, which the pinned InferenceServices render from.
    pub(crate) spec: RuntimeSpec,
    /// `data` as OME serialises it.
    pub(crate) canonical: Canonical,
}

impl Revision {
    /// Reads a runtime revision; `None` (with an error) when it has no spec in `data`.
    pub(crate) fn read(
        obj: &Object,
        namespace: String,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Revision> {
        let object = obj.written_id();
        let mut r = Reader {
            object: &object,
            diags,
        };
        let empty = Node::map(Map::new());
        let meta = obj.root.get("metadata").unwrap_or(&empty);
        let labels = r.map(meta, "labels", "metadata").unwrap_or(&empty);
        let annotations = r.map(meta, "annotations", "metadata").unwrap_or(&empty);
        let runtime_of = r
            .str(labels, RUNTIME_OF, "metadata.labels")
            .unwrap_or_default();
        let kind_label = r.str(labels, RUNTIME_OF_KIND, "metadata.labels");
        let namespace_label = r.str(labels, RUNTIME_OF_NAMESPACE, "metadata.labels");
        let hash_label = r.str(labels, REVISION_HASH, "metadata.labels");
        let created_by = r.str(annotations, CREATED_BY, "metadata.annotations");
        let ordinal = r.int(&obj.root, "revision", "");
        let Some(data) = obj.root.get("data").filter(|d| d.as_map().is_some()) else {
            r.diags.push(
                Diagnostic::error(
                    Code::InvalidField,
                    "a runtime revision's `data` must hold the runtime spec (a map)",
                )
                .at(obj.root.get("data").map_or(obj.pos(), |n| n.pos))
                .object(object.clone())
                .field("data")
                .help("export the revision with `kubectl get controllerrevision -n ome <name> -o yaml`, or let `ome-render pin` write it"),
            );
            return None;
        };
        // In Go's order, as the live runtime's spec is (SEMANTICS.md#pins).
        let spec = RuntimeSpec::read(&gojson::go_order(data), &object, r.diags);
        Some(Revision {
            name: obj.name.clone(),
            namespace,
            pos: crate::model::name_pos(&obj.root),
            runtime_of,
            kind_label,
            namespace_label,
            hash_label,
            created_by,
            ordinal,
            canonical: gojson::canonical(data),
            spec,
            object,
        })
    }

    /// The full SHA-256 of the spec, and its first eight characters.
    pub(crate) fn hash(&self) -> String {
        self.canonical.sha256()
    }

    /// OME's consistency checks on a stored revision (those `kubectl ome runtime history`
    /// applies), as warnings: labels, hash and name must agree with the data.
    pub(crate) fn check(&self, ome_namespace: &str) -> Vec<Diagnostic> {
        let mut problems: Vec<String> = Vec::new();
        if self.namespace != ome_namespace {
            problems.push(format!(
                "it is in namespace `{}`, but OME reads runtime revisions only from its own namespace `{ome_namespace}` (`omeNamespace` in ome-render.yaml)",
                self.namespace
            ));
        }
        if self.created_by.as_deref() != Some(OME_CONTROLLER) {
            problems.push(format!(
                "it is not annotated `{CREATED_BY}: {OME_CONTROLLER}` (RevisionNotOMEManaged)"
            ));
        }
        let scope = match self.kind_label.as_deref() {
            Some("ClusterServingRuntime") => Some(Scope::Cluster),
            Some("ServingRuntime") => Some(Scope::Namespaced),
            other => {
                problems.push(format!(
                    "label `{RUNTIME_OF_KIND}` is {}, not ServingRuntime or ClusterServingRuntime (RevisionSourceMismatch)",
                    other.map_or("missing".to_string(), |k| format!("`{k}`"))
                ));
                None
            }
        };
        let ns_label = self.namespace_label.clone().unwrap_or_default();
        match scope {
            Some(Scope::Cluster) if !ns_label.is_empty() => problems.push(format!(
                "label `{RUNTIME_OF_NAMESPACE}` must be empty for a ClusterServingRuntime (RevisionSourceMismatch)"
            )),
            Some(Scope::Namespaced) if ns_label.is_empty() => problems.push(format!(
                "label `{RUNTIME_OF_NAMESPACE}` must name the namespace for a ServingRuntime (RevisionSourceMismatch)"
            )),
            _ => {}
        }
        let hash = self.hash();
        let short = &hash[..8];
        match self.hash_label.as_deref() {
            Some(h) if is_hash8(h) => {
                if self.canonical.opaque.is_none() && h != short {
                    problems.push(format!(
                        "label `{REVISION_HASH}` is `{h}` but its data hashes to `{short}` (RevisionHashMismatch)"
                    ));
                }
            }
            other => problems.push(format!(
                "label `{REVISION_HASH}` is {}, not 8 lowercase hex characters (RevisionHashInvalid)",
                other.map_or("missing".to_string(), |h| format!("`{h}`"))
            )),
        }
        if let Some(scope) = scope
            && self.canonical.opaque.is_none()
        {
            let expected = name(scope, &ns_label, &self.runtime_of, short);
            if expected != self.name {
                problems.push(format!(
                    "its name should be `{expected}` for its labels and data (RevisionNameMismatch)"
                ));
            }
        }
        if self.ordinal != Some(1) {
            problems.push("`revision` is not 1 (RevisionOrdinalUnexpected)".to_string());
        }
        problems
            .into_iter()
            .map(|p| {
                Diagnostic::warning(
                    Code::RevisionInconsistent,
                    format!("runtime revision {}: {p}", self.name),
                )
                .at(self.pos)
                .object(self.object.clone())
                .help("a revision OME wrote is immutable; export it again, or let `ome-render pin` write a new one")
            })
            .collect()
    }
}

/// The object a runtime revision is written as in the output: in OME's namespace when it
/// was written without one, and without the metadata a cluster assigns.
pub(crate) fn for_output(mut obj: Object, ome_namespace: &str) -> Object {
    if let Some(meta) = obj
        .root
        .as_map_mut()
        .and_then(|m| m.get_mut("metadata"))
        .and_then(Node::as_map_mut)
    {
        for key in CLUSTER_ASSIGNED {
            meta.remove(key);
        }
        if obj.namespace.is_none() {
            meta.insert("namespace", Node::str(ome_namespace));
            meta.move_to_front("namespace");
            meta.move_to_front("name");
        }
    }
    if obj.namespace.is_none() {
        obj.namespace = Some(ome_namespace.to_string());
    }
    obj
}

fn is_hash8(s: &str) -> bool {
    s.len() == 8
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// OME's revision name for a runtime pinned by an InferenceService of `namespace` that
/// declares `kind`: `cr-<runtime>-<hash8>` (ClusterServingRuntime, the default) or
/// `r-<namespace>-<runtime>-<hash8>` (ServingRuntime). The kind is the declared one, not the
/// kind of the runtime found.
pub(crate) fn name(kind: Scope, namespace: &str, runtime: &str, hash8: &str) -> String {
    match kind {
        Scope::Cluster => format!("cr-{runtime}-{hash8}"),
        Scope::Namespaced => format!("r-{namespace}-{runtime}-{hash8}"),
    }
}

/// OME's webhook shape check of `spec.runtime.revision`: the kind's prefix, then exactly
/// eight lowercase hex characters.
pub(crate) fn matches_runtime(revision: &str, kind: Scope, namespace: &str, runtime: &str) -> bool {
    let prefix = match kind {
        Scope::Cluster => format!("cr-{runtime}-"),
        Scope::Namespaced => format!("r-{namespace}-{runtime}-"),
    };
    revision.strip_prefix(&prefix).is_some_and(is_hash8)
}

/// The webhook's rejection of a revision name of the wrong shape.
pub(crate) fn shape_error(revision: &str, kind: Scope, namespace: &str, runtime: &str) -> String {
    let form = match kind {
        Scope::Cluster => format!("cr-{runtime}"),
        Scope::Namespaced => format!("r-{namespace}-{runtime}"),
    };
    format!(
        "spec.runtime.revision \"{revision}\" does not match the expected naming convention for runtime \"{runtime}\" ({}); expected the form {form}-<8 lowercase hex chars>",
        kind_name(kind)
    )
}

/// The webhook's rejection of a revision without `autoSync: false`.
pub(crate) const AUTO_SYNC_REQUIRED: &str = "spec.runtime.revision requires spec.runtime.autoSync=false; AutoSync=true would silently ignore the pin";

/// `RevisionMissing` for `spec.runtime.revision`.
pub(crate) fn explicit_missing(revision: &str, ome_namespace: &str) -> String {
    format!("explicit pin {revision} not found in namespace {ome_namespace}")
}

/// `RevisionMissing` for a managed pin's recorded revision.
pub(crate) fn pinned_missing(revision: &str, ome_namespace: &str) -> String {
    format!("pinned revision {revision} missing from {ome_namespace}")
}

/// `RuntimeMismatch`: the revision is labelled for another runtime.
pub(crate) fn runtime_mismatch(revision: &str, label: &str, runtime: &str) -> String {
    format!("revision {revision} belongs to runtime \"{label}\" but ISVC references \"{runtime}\"")
}

/// `RevisionMismatch`: a managed pin whose runtime changed.
pub(crate) fn revision_mismatch(revision: &str) -> String {
    format!("pinned {revision}, live spec differs; bump ome.io/runtime-sync annotation to advance")
}

/// The most differing fields a drift message names.
const MAX_DIFFERENCES: usize = 8;

/// The fields in which two specs (their canonical `data`) differ, as paths such as
/// `engineConfig.runner.args` or `engineConfig.runner.env[NCCL_DEBUG].value`, at most
/// eight, then `… and N more`.
pub(crate) fn differences(pinned: &Node, live: &Node) -> Vec<String> {
    let mut out = Vec::new();
    diff(Some(pinned), Some(live), "", String::new(), &mut out);
    if out.len() > MAX_DIFFERENCES {
        let more = out.len() - MAX_DIFFERENCES;
        out.truncate(MAX_DIFFERENCES);
        out.push(format!("… and {more} more"));
    }
    out
}

fn same(a: &Node, b: &Node) -> bool {
    let (mut x, mut y) = (Vec::new(), Vec::new());
    crate::go::encode::write_go_json(a, &mut x);
    crate::go::encode::write_go_json(b, &mut y);
    x == y
}

fn diff(a: Option<&Node>, b: Option<&Node>, field: &str, path: String, out: &mut Vec<String>) {
    match (a, b) {
        (None, None) => {}
        (Some(a), Some(b)) if same(a, b) => {}
        (Some(a), Some(b)) => match (a.as_map(), b.as_map(), a.as_seq(), b.as_seq()) {
            (Some(ma), Some(mb), _, _) => {
                let mut keys: Vec<&str> = ma.keys().collect();
                keys.extend(mb.keys().filter(|k| !ma.contains_key(k)));
                for k in keys {
                    let p = if path.is_empty() {
                        k.to_string()
                    } else {
                        format!("{path}.{k}")
                    };
                    diff(ma.get(k), mb.get(k), k, p, out);
                }
            }
            (_, _, Some(sa), Some(sb)) => match merge_key(field) {
                Some(key) if keyed(sa, key) && keyed(sb, key) => {
                    let id = |n: &Node| n.get(key).and_then(Node::scalar_text).unwrap_or_default();
                    // The first item of each id on either side, indexed once: long lists
                    // cost their length.
                    let (mut fa, mut fb) = (HashMap::new(), HashMap::new());
                    for (side, first) in [(sa, &mut fa), (sb, &mut fb)] {
                        for n in side {
                            first.entry(id(n)).or_insert(n);
                        }
                    }
                    let mut ids: Vec<String> = sa.iter().map(id).collect();
                    let mut added: HashSet<String> = HashSet::new();
                    for n in sb {
                        let i = id(n);
                        if !fa.contains_key(&i) && added.insert(i.clone()) {
                            ids.push(i);
                        }
                    }
                    for i in ids {
                        let (x, y) = (fa.get(&i).copied(), fb.get(&i).copied());
                        diff(x, y, "", format!("{path}[{i}]"), out);
                    }
                }
                _ => out.push(path),
            },
            _ => out.push(path),
        },
        _ => out.push(path),
    }
}

fn keyed(items: &[Node], key: &str) -> bool {
    items
        .iter()
        .all(|n| n.get(key).and_then(Node::scalar_text).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which revision names belong to a runtime (SEMANTICS.md#revision-hashes).
    #[test]
    fn revision_name_shapes() {
        let csr = |r: &str| matches_runtime(r, Scope::Cluster, "default", "srt-llama-pd");
        assert!(csr("cr-srt-llama-pd-abc12345"));
        for bad in [
            "cr-srt-other-abc12345",
            "r-default-srt-llama-pd-abc12345",
            "cr-srt-llama-pd-",
            "cr-srt-llama-pd-abc",
            "cr-srt-llama-pd-abc1234567890",
            "cr-srt-llama-pd-ABC12345",
            "cr-srt-llama-pd-zzzzzzzz",
            "",
        ] {
            assert!(!csr(bad), "{bad}");
        }
        let sr = |r: &str| matches_runtime(r, Scope::Namespaced, "team-a", "srt-foo");
        assert!(sr("r-team-a-srt-foo-abc12345"));
        for bad in [
            "r-team-b-srt-foo-abc12345",
            "r-team-a-srt-other-abc12345",
            "cr-srt-foo-abc12345",
        ] {
            assert!(!sr(bad), "{bad}");
        }
        assert_eq!(
            shape_error(
                "cr-srt-other-abc12345",
                Scope::Cluster,
                "default",
                "srt-llama-pd"
            ),
            "spec.runtime.revision \"cr-srt-other-abc12345\" does not match the expected naming convention for runtime \"srt-llama-pd\" (ClusterServingRuntime); expected the form cr-srt-llama-pd-<8 lowercase hex chars>"
        );
        // A ClusterServingRuntime's prefix on a ServingRuntime's revision.
        assert_eq!(
            shape_error(
                "cr-sglang-llama-3-2-3b-590753e8",
                Scope::Namespaced,
                "llama-demo",
                "sglang-llama-3-2-3b"
            ),
            "spec.runtime.revision \"cr-sglang-llama-3-2-3b-590753e8\" does not match the expected naming convention for runtime \"sglang-llama-3-2-3b\" (ServingRuntime); expected the form r-llama-demo-sglang-llama-3-2-3b-<8 lowercase hex chars>"
        );
        assert_eq!(
            name(
                Scope::Namespaced,
                "llama-demo",
                "sglang-llama-3-2-3b",
                "590753e8"
            ),
            "r-llama-demo-sglang-llama-3-2-3b-590753e8"
        );
        assert_eq!(
            name(
                Scope::Cluster,
                "llama-demo",
                "sglang-llama-3-2-3b",
                "590753e8"
            ),
            "cr-sglang-llama-3-2-3b-590753e8"
        );
    }

    #[test]
    fn differences_name_fields() {
        let parse = |y: &str| {
            crate::yaml::parse::parse_stream(y, 0)
                .unwrap()
                .remove(0)
                .root
        };
        let a = parse(
            "engineConfig:\n  runner:\n    args: [--a=1]\n    env: [{name: X, value: \"1\"}, {name: Y, value: \"2\"}]\n    image: i\n",
        );
        let b = parse(
            "engineConfig:\n  runner:\n    args: [--a=2]\n    env: [{name: X, value: \"1\"}, {name: Y, value: \"3\"}, {name: Z}]\n    image: i\nmodelSizeRange: {max: 8B}\n",
        );
        assert_eq!(
            differences(&a, &b),
            [
                "engineConfig.runner.args",
                "engineConfig.runner.env[Y].value",
                "engineConfig.runner.env[Z]",
                "modelSizeRange"
            ]
        );
        assert!(differences(&a, &a).is_empty());
    }
}
