//! Runtime inheritance (OME v1.3, `ome.io/inherit-from`): each runtime's chain of parents,
//! resolved once for the whole catalog, and its spec merged from the root down.
//!
//! Parents are looked up by name: a ClusterServingRuntime's among ClusterServingRuntimes
//! only; a ServingRuntime's, at every hop, in its namespace first and then at cluster scope.
//! A chain holds at most five runtimes and no name twice. The child's spec is strategically
//! merged over the parent's with the same rules as a component merge, so the runtime nearest
//! the leaf wins. The merged spec serves InferenceServices that *name* the runtime;
//! auto-selection uses each runtime's own spec (SEMANTICS.md#runtimes).

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::merge::strategic;
use crate::model::{Runtime, RuntimeSpec, Scope};
use crate::yaml::{Node, Value};
use std::collections::BTreeMap;

/// The most runtimes a chain may hold, the runtime itself included.
pub(crate) const MAX_DEPTH: usize = 5;

/// The identity of the runtime of `scope` named `name` (in `namespace` unless at cluster
/// scope).
pub(crate) fn runtime_id(scope: Scope, namespace: &str, name: &str) -> ObjectId {
    match scope {
        Scope::Cluster => ObjectId::of_kind("ClusterServingRuntime", "", name),
        Scope::Namespaced => ObjectId::of_kind("ServingRuntime", namespace, name),
    }
    .to_owned()
}

fn key(runtime: &Runtime) -> ObjectId {
    runtime_id(
        runtime.scope,
        runtime.namespace.as_deref().unwrap_or_default(),
        &runtime.name,
    )
}

/// The merged specs of every runtime that inherits, and each chain (root first).
#[derive(Debug, Default)]
pub(crate) struct Inherited {
    specs: BTreeMap<ObjectId, RuntimeSpec>,
    /// The runtimes each inheriting runtime inherits from, root first, itself left out.
    parents: BTreeMap<ObjectId, Vec<ObjectId>>,
    /// Runtimes whose chain is broken; InferenceServices naming them fail.
    broken: BTreeMap<ObjectId, String>,
}

impl Inherited {
    /// The spec an InferenceService naming `runtime` is rendered from.
    pub(crate) fn spec<'a>(&'a self, runtime: &'a Runtime) -> Result<&'a RuntimeSpec, &'a str> {
        let k = key(runtime);
        if let Some(error) = self.broken.get(&k) {
            return Err(error);
        }
        Ok(self.specs.get(&k).unwrap_or(&runtime.spec))
    }

    /// The runtimes `runtime` inherits from, root first (none when it inherits nothing).
    pub(crate) fn parents(&self, runtime: &Runtime) -> &[ObjectId] {
        self.parents.get(&key(runtime)).map_or(&[], Vec::as_slice)
    }
}

/// A parent by name, as seen from the chain of `leaf`.
pub(crate) fn parent<'a>(catalog: &'a Catalog, leaf: &Runtime, name: &str) -> Option<&'a Runtime> {
    match leaf.scope {
        Scope::Cluster => catalog.cluster_runtimes.get(name),
        Scope::Namespaced => {
            let ns = leaf.namespace.clone().unwrap_or_default();
            catalog
                .runtimes
                .get(&(ns, name.to_string()))
                .or_else(|| catalog.cluster_runtimes.get(name))
        }
    }
}

/// Why a walk up the inheritance chain stopped before a root (kubectl ome's issue codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Issue {
    ParentMissing,
    CycleDetected,
    MaxDepthExceeded,
}

impl Issue {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Issue::ParentMissing => "ParentMissing",
            Issue::CycleDetected => "CycleDetected",
            Issue::MaxDepthExceeded => "MaxDepthExceeded",
        }
    }
}

/// A walk from a runtime up its `ome.io/inherit-from` chain.
#[derive(Clone, Debug)]
pub(crate) struct Walk<'a> {
    /// The runtimes walked, the leaf first.
    pub(crate) chain: Vec<&'a Runtime>,
    /// Where the walk stopped before a root: the issue and the parent name it stopped at.
    pub(crate) issue: Option<(Issue, String)>,
}

impl Walk<'_> {
    fn names(&self) -> String {
        self.chain
            .iter()
            .map(|r| r.name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// OME's error for the issue, if any.
    pub(crate) fn error(&self) -> Option<String> {
        let (issue, parent) = self.issue.as_ref()?;
        Some(match issue {
            Issue::MaxDepthExceeded => format!(
                "inheritance chain exceeds max depth {MAX_DEPTH} (chain: [{}])",
                self.names()
            ),
            Issue::CycleDetected => {
                format!("inheritance cycle detected: [{} {parent}]", self.names())
            }
            Issue::ParentMissing => format!(
                "inherit-from parent \"{parent}\" not found (chain so far: [{}])",
                self.names()
            ),
        })
    }
}

/// Walks up from `leaf` as OME's resolver does: after five runtimes another parent is too
/// deep (checked before cycles), a name seen before is a cycle, a parent not found stops it.
pub(crate) fn walk<'a>(catalog: &'a Catalog, leaf: &'a Runtime) -> Walk<'a> {
    let mut walk = Walk {
        chain: vec![leaf],
        issue: None,
    };
    let mut current = leaf;
    while let Some(parent_name) = &current.inherit_from {
        let stop = if walk.chain.len() == MAX_DEPTH {
            Some(Issue::MaxDepthExceeded)
        } else if walk.chain.iter().any(|r| &r.name == parent_name) {
            Some(Issue::CycleDetected)
        } else {
            None
        };
        if let Some(issue) = stop {
            walk.issue = Some((issue, parent_name.clone()));
            break;
        }
        let Some(p) = parent(catalog, leaf, parent_name) else {
            walk.issue = Some((Issue::ParentMissing, parent_name.clone()));
            break;
        };
        walk.chain.push(p);
        current = p;
    }
    walk
}

/// The chain of `leaf`, root first, or OME's error.
fn chain<'a>(catalog: &'a Catalog, leaf: &'a Runtime) -> Result<Vec<&'a Runtime>, String> {
    let walk = walk(catalog, leaf);
    if let Some(e) = walk.error() {
        return Err(e);
    }
    let mut chain = walk.chain;
    chain.reverse();
    Ok(chain)
}

/// Resolves every runtime that inherits. Broken chains and invalid merges are errors, as
/// OME's runtime webhook rejects such a runtime.
pub(crate) fn resolve_all(catalog: &Catalog) -> (Inherited, Vec<Diagnostic>) {
    let mut out = Inherited::default();
    let mut diags = Vec::new();
    // The nodes of the merged specs so far, against the `inherited-nodes` limit; past it,
    // the inheriting runtimes left are not resolved (SEMANTICS.md#limits).
    let limit = catalog.limits.inherited_nodes;
    let mut nodes: u64 = 0;
    let past_limit = format!(
        "the specs inheriting runtimes resolve to hold more than {limit} nodes together (limit `inherited-nodes`)"
    );
    let runtimes = catalog
        .runtimes
        .values()
        .chain(catalog.cluster_runtimes.values());
    for runtime in runtimes {
        if runtime.profile.as_deref() == Some("true") && !runtime.spec.disabled {
            diags.push(
                Diagnostic::error(
                    Code::InvalidField,
                    "runtimes carrying ome.io/runtime-profile=\"true\" must also set spec.disabled: true",
                )
                .at(runtime.pos)
                .object(runtime.object.clone())
                .field("spec.disabled")
                .help("add `disabled: true` to the profile's spec: runtimes inherit from it with ome.io/inherit-from"),
            );
        }
        if runtime.inherit_from.is_none() {
            continue;
        }
        if nodes > limit {
            out.broken.insert(key(runtime), past_limit.clone());
            continue;
        }
        let chain = match chain(catalog, runtime) {
            Ok(c) => c,
            Err(message) => {
                diags.push(
                    Diagnostic::error(Code::InvalidField, message.clone())
                        .at(runtime.pos)
                        .object(runtime.object.clone())
                        .field("metadata.annotations.ome.io/inherit-from")
                        .help("every runtime in the chain must be among the inputs, at most five deep, and without cycles"),
                );
                out.broken.insert(key(runtime), message);
                continue;
            }
        };
        let mut merged = chain[0].spec.spec.clone();
        let mut conflicts = Vec::new();
        for child in &chain[1..] {
            let before = conflicts.len();
            merged = strategic::merge(&merged, &child.spec.spec, &mut conflicts);
            for c in &conflicts[before..] {
                diags.push(
                    Diagnostic::error(Code::InvalidMerge, c.message.clone())
                        .at(c.patch)
                        .object(child.object.clone())
                        .field(format!("spec.{}", c.path))
                        .related(c.base, "the parent sets it here")
                        .help("a child runtime merges field by field over its parent; set the same kind of value as the parent"),
                );
            }
        }
        nodes = nodes.saturating_add(count_nodes(&merged));
        if nodes > limit {
            diags.push(
                Diagnostic::error(Code::Limit, past_limit.clone())
                    .at(runtime.pos)
                    .object(runtime.object.clone())
                    .field("metadata.annotations.ome.io/inherit-from")
                    .help(crate::load::limits::raise_help("inherited-nodes")),
            );
            out.broken.insert(key(runtime), past_limit.clone());
            continue;
        }
        // A child's fields come after its parent's: in Go's order again, as a revision is.
        let spec = RuntimeSpec::read(
            &crate::revision::gojson::into_go_order(merged),
            &runtime.object,
            &mut diags,
        );
        out.parents.insert(
            key(runtime),
            chain[..chain.len() - 1].iter().map(|r| key(r)).collect(),
        );
        out.specs.insert(key(runtime), spec);
    }
    (out, diags)
}

/// The nodes of a tree, itself included.
pub(crate) fn count_nodes(node: &Node) -> u64 {
    1 + match &node.value {
        Value::Seq(items) => items.iter().map(count_nodes).sum(),
        Value::Map(m) => m.iter().map(|(_, n)| count_nodes(n)).sum(),
        _ => 0,
    }
}
