//! What a parse yields and what it may spend: [`Document`] and [`ParseLimits`], shared by
//! the event parser (`parse.rs`) and its fast path (`fast.rs`).

use super::node::Node;

/// The limits a parse enforces (SEMANTICS.md#limits). Each error names its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ParseLimits {
    /// Nesting levels of collections, block and flow alike (the root collection is level 1).
    pub(crate) depth: usize,
    /// Keys in one map, merged keys included.
    pub(crate) keys: usize,
    /// Documents that hold something, in one stream.
    pub(crate) documents: usize,
    /// Nodes anchors and aliases copy in one document.
    pub(crate) alias_nodes: u64,
    /// Bytes of text (keys and scalars) anchors and aliases copy in one document.
    pub(crate) alias_bytes: u64,
}

/// The names of the limits, as errors and `--limit` name them.
pub(crate) mod limit_names {
    pub(crate) const DEPTH: &str = "depth";
    pub(crate) const KEYS: &str = "keys";
    pub(crate) const DOCUMENTS: &str = "documents";
    pub(crate) const ALIAS_NODES: &str = "alias-nodes";
    pub(crate) const ALIAS_BYTES: &str = "alias-bytes";
    pub(crate) const ALIAS_NODES_TOTAL: &str = "alias-nodes-total";
    pub(crate) const ALIAS_BYTES_TOTAL: &str = "alias-bytes-total";
}

impl Default for ParseLimits {
    fn default() -> ParseLimits {
        ParseLimits {
            depth: 128,
            keys: 100_000,
            documents: 200_000,
            alias_nodes: 1_000_000,
            alias_bytes: 64 << 20,
        }
    }
}

/// One document of a stream.
#[derive(Debug)]
pub(crate) struct Document {
    /// The document's index in its file, counting from 0 (empty documents count too, as
    /// kustomize's `config.kubernetes.io/index` does).
    pub(crate) index: usize,
    pub(crate) root: Node,
}
