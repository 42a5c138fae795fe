//! `ome-render.lock`: which ControllerRevision each managed pin (an InferenceService with
//! `spec.runtime.autoSync: false` and no `revision`) renders from. It plays the role of OME's
//! `status.pinnedRevisionName` and `status.lastRuntimeSyncToken`, which a Git repository
//! doesn't have. `ome-render pin` writes it; every other command only reads it
//! (SEMANTICS.md#choice-lock).
//!
//! ```yaml
//! lockVersion: 1
//! pins:
//!   - inferenceService: llama-demo/llama-3-2-3b-instruct
//!     runtime: sglang-llama-3-2-3b
//!     kind: ServingRuntime
//!     revision: r-llama-demo-sglang-llama-3-2-3b-590753e8
//!     sha256: 590753e8…            # the revision's full hash, checked on every run
//!     syncToken: mem-frac-0-85     # the ome.io/runtime-sync value last acted on, if any
//! ```

use super::kind_name;
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::model::Scope;
use crate::model::fields::Reader;
use crate::yaml::{Map, Node, Pos};
use std::collections::BTreeMap;

/// The version of the lock format this renderer reads and writes.
pub(crate) const LOCK_VERSION: i64 = 1;

/// One managed pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LockEntry {
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) runtime: String,
    pub(crate) kind: Scope,
    pub(crate) revision: String,
    pub(crate) sha256: String,
    pub(crate) sync_token: Option<String>,
    pub(crate) pos: Pos,
}

/// The lock: entries by InferenceService (namespace, name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Lock {
    pub(crate) entries: BTreeMap<(String, String), LockEntry>,
    /// Whether a lock file was read.
    pub(crate) present: bool,
}

const ENTRY_KEYS: &[&str] = &[
    "inferenceService",
    "runtime",
    "kind",
    "revision",
    "sha256",
    "syncToken",
];

fn lock_ref() -> ObjectId {
    ObjectId {
        kind: "Lock".to_string(),
        namespace: String::new(),
        name: crate::load::LOCK_FILE.to_string(),
        group: String::new(),
    }
}

impl Lock {
    /// Reads the lock file; every problem is an error, since a damaged lock would render
    /// pinned services from the wrong snapshot.
    pub(crate) fn read(node: Option<&Node>, diags: &mut Vec<Diagnostic>) -> Lock {
        let mut lock = Lock::default();
        let Some(node) = node else {
            return lock;
        };
        lock.present = true;
        let object = lock_ref();
        let error = |pos: Pos, message: String| {
            Diagnostic::error(Code::Lock, message)
                .at(pos)
                .object(lock_ref())
                .help("`ome-render pin` rewrites the lock from the InferenceServices and revisions among the inputs")
        };
        if node.is_null() {
            return lock;
        }
        let Some(map) = node.as_map() else {
            diags.push(error(node.pos, "the lock file must hold a map".to_string()));
            return lock;
        };
        for (key, value) in map.iter() {
            if !matches!(key, "lockVersion" | "pins") {
                diags.push(error(
                    value.pos,
                    format!("unknown key `{key}` in the lock file"),
                ));
            }
        }
        let mut r = Reader {
            object: &object,
            diags,
        };
        match r.int(node, "lockVersion", "") {
            Some(LOCK_VERSION) => {}
            other => {
                let pos = node.get("lockVersion").map_or(node.pos, |n| n.pos);
                r.diags.push(error(
                    pos,
                    format!(
                        "lockVersion is {}; this ome-render reads version {LOCK_VERSION}",
                        other.map_or("missing".to_string(), |v| v.to_string())
                    ),
                ));
                return lock;
            }
        }
        for (i, entry) in r.seq(node, "pins", "").unwrap_or(&[]).iter().enumerate() {
            let path = format!("pins[{i}]");
            if entry.as_map().is_none() {
                r.invalid(entry, &path, "a map");
                continue;
            }
            for key in entry.as_map().into_iter().flat_map(Map::keys) {
                if !ENTRY_KEYS.contains(&key) {
                    let pos = entry.get(key).map_or(entry.pos, |n| n.pos);
                    r.diags
                        .push(error(pos, format!("unknown key `{key}` in {path}")));
                }
            }
            let mut field = |key: &str| {
                let value = r.str(entry, key, &path);
                if value.as_deref().is_none_or(str::is_empty) && key != "syncToken" {
                    r.diags
                        .push(error(entry.pos, format!("{path} has no `{key}`")));
                }
                value
            };
            let (Some(isvc), Some(runtime), Some(kind), Some(revision), Some(sha256)) = (
                field("inferenceService"),
                field("runtime"),
                field("kind"),
                field("revision"),
                field("sha256"),
            ) else {
                continue;
            };
            let sync_token = field("syncToken");
            let Some((namespace, name)) = isvc.split_once('/') else {
                r.diags.push(error(
                    entry.pos,
                    format!("{path}.inferenceService must be NAMESPACE/NAME, not `{isvc}`"),
                ));
                continue;
            };
            let kind = match kind.as_str() {
                "ClusterServingRuntime" => Scope::Cluster,
                "ServingRuntime" => Scope::Namespaced,
                other => {
                    r.diags.push(error(
                        entry.pos,
                        format!("{path}.kind must be ServingRuntime or ClusterServingRuntime, not `{other}`"),
                    ));
                    continue;
                }
            };
            let key = (namespace.to_string(), name.to_string());
            if lock.entries.contains_key(&key) {
                r.diags.push(error(
                    entry.pos,
                    format!("{isvc} is pinned twice in the lock file"),
                ));
                continue;
            }
            lock.entries.insert(
                key,
                LockEntry {
                    namespace: namespace.to_string(),
                    name: name.to_string(),
                    runtime,
                    kind,
                    revision,
                    sha256,
                    sync_token: sync_token.filter(|t| !t.is_empty()),
                    pos: entry.pos,
                },
            );
        }
        lock
    }

    pub(crate) fn get(&self, namespace: &str, name: &str) -> Option<&LockEntry> {
        self.entries.get(&(namespace.to_string(), name.to_string()))
    }

    /// The lock as a document, entries by namespace and name: the same pins give the same
    /// bytes.
    pub(crate) fn to_node(&self) -> Node {
        let pins = self
            .entries
            .values()
            .map(|e| {
                let mut m = crate::map! {
                    "inferenceService" => Node::str(format!("{}/{}", e.namespace, e.name)),
                    "runtime" => Node::str(e.runtime.clone()),
                    "kind" => Node::str(kind_name(e.kind)),
                    "revision" => Node::str(e.revision.clone()),
                    "sha256" => Node::str(e.sha256.clone()),
                };
                if let Some(t) = &e.sync_token {
                    m.insert("syncToken", Node::str(t.clone()));
                }
                Node::map(m)
            })
            .collect();
        Node::map(crate::map! {
            "lockVersion" => Node::int(LOCK_VERSION),
            "pins" => Node::seq(pins),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn read(yaml: &str) -> (Lock, Vec<String>) {
        let node = parse_stream(yaml, 0).unwrap().remove(0).root;
        let mut diags = Vec::new();
        let lock = Lock::read(Some(&node), &mut diags);
        (lock, diags.into_iter().map(|d| d.message).collect())
    }

    const ONE: &str = r"lockVersion: 1
pins:
- inferenceService: ns/a
  runtime: rt
  kind: ServingRuntime
  revision: r-ns-rt-01234567
  sha256: abc123
  syncToken: t1
";

    #[test]
    fn reads_and_writes_the_same_lock() {
        let (lock, problems) = read(ONE);
        assert!(problems.is_empty(), "{problems:?}");
        let entry = lock.get("ns", "a").unwrap();
        assert_eq!(entry.kind, Scope::Namespaced);
        assert_eq!(entry.sync_token.as_deref(), Some("t1"));
        let text = crate::yaml::emit::to_yaml_string(&lock.to_node());
        assert_eq!(text, ONE);
    }

    #[test]
    fn damage_is_an_error() {
        assert_eq!(
            read("lockVersion: 2\n").1,
            ["lockVersion is 2; this ome-render reads version 1"]
        );
        assert_eq!(
            read(&ONE.replace("kind: ServingRuntime", "kind: Runtime")).1,
            ["pins[0].kind must be ServingRuntime or ClusterServingRuntime, not `Runtime`"]
        );
        assert_eq!(
            read(&ONE.replace("  sha256: abc123\n", "")).1,
            ["pins[0] has no `sha256`"]
        );
        assert_eq!(
            read(&format!("{ONE}{}", &ONE[ONE.find("- ").unwrap()..])).1,
            ["ns/a is pinned twice in the lock file"]
        );
        assert_eq!(
            read("lockVersion: 1\nextra: 1\n").1,
            ["unknown key `extra` in the lock file"]
        );
    }
}
