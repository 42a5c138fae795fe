//! An object of the output: its identity (API version, kind, namespace, name), the
//! InferenceService it was rendered from, and its body — a tree while it is being built,
//! bytes once the emitter has serialised it.
//!
//! Both `render` (which makes objects) and `emit` (which orders, checks and writes them) use
//! this type, so it lives beneath both.

use crate::k8s::id::ObjectId;
use crate::yaml::{Node, Pos};
use std::sync::Arc;

/// One object of the output, with what identifies and orders it.
#[derive(Clone, Debug)]
pub(crate) struct Rendered {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) namespace: Option<String>,
    pub(crate) name: String,
    pub(crate) body: Body,
    /// The InferenceService it was rendered from; `None` for passed-through objects. Shared:
    /// an InferenceService renders several objects.
    pub(crate) source: Option<Arc<ObjectId>>,
    /// Where the object (or its InferenceService) is written in the input, for diagnostics.
    pub(crate) pos: Pos,
}

/// What an output object holds.
#[derive(Clone, Debug)]
pub(crate) enum Body {
    /// The object tree, as rendered or read.
    Tree(Node),
    /// The object serialised in the output format. Keeping the bytes instead of the tree
    /// halves the memory of a large run. Shared: `diff`'s head takes the base's objects
    /// without copying them (SEMANTICS.md#diff-reuse).
    Bytes(Arc<[u8]>),
}

impl Rendered {
    /// Its identity, in `effective_namespace` when written without a namespace.
    pub(crate) fn id<'o>(&'o self, effective_namespace: &'o str) -> ObjectId<&'o str> {
        ObjectId::new(
            &self.api_version,
            &self.kind,
            self.namespace.as_deref(),
            &self.name,
            effective_namespace,
        )
    }

    /// Wraps an object tree; its identity is read from the tree. `pos` is where the input
    /// writes it, or the InferenceService it comes from.
    pub(crate) fn new(node: Node, source: Option<Arc<ObjectId>>, pos: Pos) -> Rendered {
        let s = |path: &[&str]| node.str_at(path).map(str::to_string);
        Rendered {
            api_version: s(&["apiVersion"]).unwrap_or_default(),
            kind: s(&["kind"]).unwrap_or_default(),
            namespace: s(&["metadata", "namespace"]),
            name: s(&["metadata", "name"]).unwrap_or_default(),
            body: Body::Tree(node),
            source,
            pos,
        }
    }

    /// The API group: `apps` for `apps/v1`, empty for `v1`.
    pub(crate) fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }

    /// The tree, while the object has not been serialised.
    #[cfg(test)]
    pub(crate) fn tree(&self) -> Option<&Node> {
        match &self.body {
            Body::Tree(node) => Some(node),
            Body::Bytes(_) => None,
        }
    }

    pub(crate) fn tree_mut(&mut self) -> Option<&mut Node> {
        match &mut self.body {
            Body::Tree(node) => Some(node),
            Body::Bytes(_) => None,
        }
    }

    /// The object as written, to name it in a diagnostic (`ObjectId::written`).
    pub(crate) fn written_id(&self) -> ObjectId {
        ObjectId::written(
            &self.api_version,
            self.kind.as_str(),
            self.namespace.clone(),
            self.name.as_str(),
        )
    }
}
