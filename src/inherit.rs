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
use crate::merge::strategic;
use crate::model::{Runtime, RuntimeSpec, Scope};
use std::collections::BTreeMap;

/// The most runtimes a chain may hold, the runtime itself included.
pub(crate) const MAX_DEPTH: usize = 5;

/// Identifies a runtime: scope, namespace (empty for cluster scope) and name.
pub(crate) type RuntimeKey = (Scope, String, String);

pub(crate) fn key(runtime: &Runtime) -> RuntimeKey {
    (
        runtime.scope,
        runtime.namespace.clone().unwrap_or_default(),
        runtime.name.clone(),
    )
}

/// The merged specs of every runtime that inherits, and each chain (root first).
#[derive(Debug, Default)]
pub(crate) struct Inherited {
    specs: BTreeMap<RuntimeKey, RuntimeSpec>,
    /// The runtimes each inheriting runtime inherits from, root first, itself left out.
    parents: BTreeMap<RuntimeKey, Vec<RuntimeKey>>,
    /// Runtimes whose chain is broken; InferenceServices naming them fail.
    broken: BTreeMap<RuntimeKey, String>,
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
    pub(crate) fn parents(&self, runtime: &Runtime) -> &[RuntimeKey] {
        self.parents.get(&key(runtime)).map_or(&[], Vec::as_slice)
    }
}

/// A parent by name, as seen from the chain of `leaf`.
fn parent<'a>(catalog: &'a Catalog, leaf: &Runtime, name: &str) -> Option<&'a Runtime> {
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

/// Walks the chain of `leaf`: root first.
fn chain<'a>(catalog: &'a Catalog, leaf: &'a Runtime) -> Result<Vec<&'a Runtime>, String> {
    let mut chain = vec![leaf];
    let mut current = leaf;
    while let Some(parent_name) = &current.inherit_from {
        let names = |c: &[&Runtime]| {
            c.iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        if chain.iter().any(|r| &r.name == parent_name) {
            return Err(format!(
                "inheritance cycle detected: [{} {parent_name}]",
                names(&chain)
            ));
        }
        if chain.len() == MAX_DEPTH {
            return Err(format!(
                "inheritance chain exceeds max depth {MAX_DEPTH}: [{} {parent_name} ...]",
                names(&chain)
            ));
        }
        let Some(p) = parent(catalog, leaf, parent_name) else {
            return Err(format!(
                "inherit-from parent \"{parent_name}\" not found (chain so far: [{}])",
                names(&chain)
            ));
        };
        chain.push(p);
        current = p;
    }
    chain.reverse();
    Ok(chain)
}

/// Resolves every runtime that inherits. Broken chains and invalid merges are errors, as
/// OME's runtime webhook rejects such a runtime.
pub(crate) fn resolve_all(catalog: &Catalog) -> (Inherited, Vec<Diagnostic>) {
    let mut out = Inherited::default();
    let mut diags = Vec::new();
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
                .field("spec.disabled"),
            );
        }
        if runtime.inherit_from.is_none() {
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
        let spec = RuntimeSpec::read(&merged, &runtime.object, &mut diags);
        out.parents.insert(
            key(runtime),
            chain[..chain.len() - 1].iter().map(|r| key(r)).collect(),
        );
        out.specs.insert(key(runtime), spec);
    }
    (out, diags)
}
