//! The input of the KRM function (SEMANTICS.md#krm-function): a `config.kubernetes.io/v1`
//! ResourceList, as kustomize and kpt write it to the function's standard input.
//!
//! The ResourceList is parsed once, as one document, and its items become [`Object`]s
//! directly, with no round trip through text; their positions point into the ResourceList,
//! which is the one source file. An item ome-render cannot read as an object (no name, a
//! `List`, not a map) is kept as it is, to be passed through untouched — unless it claims to
//! be an OME resource, which is then an error.

use super::objects::{item_object, object_problems};
use super::{Loaded, Object};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::Sources;
use crate::yaml::parse::parse_stream;
use crate::yaml::{Node, Pos, Value};
use std::sync::Arc;

/// The name the ResourceList has in diagnostics.
pub(crate) const RESOURCE_LIST_SOURCE: &str = "<stdin>";

/// The API versions of a ResourceList the function accepts (the KRM functions spec).
const RESOURCE_LIST_VERSIONS: &[&str] =
    &["config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"];

/// What the ResourceList holds.
#[derive(Debug, Default)]
pub(crate) struct ResourceList {
    /// The ResourceList as the one source, its items that are objects, and the problems of
    /// reading it.
    pub(crate) loaded: Loaded,
    /// `functionConfig`, when present and not null.
    pub(crate) function_config: Option<Node>,
    /// Items that are no object ome-render reads, in input order: passed through untouched.
    pub(crate) opaque: Vec<Node>,
}

impl ResourceList {
    /// Whether the ResourceList itself could not be read.
    pub(crate) fn has_errors(&self) -> bool {
        self.loaded.diags.iter().any(Diagnostic::is_error)
    }
}

fn error_at(message: impl Into<String>, pos: Pos) -> Diagnostic {
    Diagnostic::error(Code::KrmResourceList, message)
        .at(pos)
        .help("a KRM function reads a `config.kubernetes.io/v1` ResourceList on standard input; kustomize (`kustomize build --enable-alpha-plugins --enable-exec`) and kpt (`kpt fn eval`, `kpt fn render`) write one")
}

/// Reads a ResourceList from its text.
pub(crate) fn resource_list(text: String) -> ResourceList {
    let text: Arc<str> = Arc::from(text);
    let mut sources = Sources::new();
    let file = sources.add(RESOURCE_LIST_SOURCE.to_string(), text.clone());
    let mut out = ResourceList {
        loaded: Loaded {
            sources,
            ..Loaded::default()
        },
        ..ResourceList::default()
    };
    let start = Pos {
        file,
        line: 1,
        col: 0,
    };
    let docs = match parse_stream(&text, file) {
        Ok(docs) => docs,
        Err(e) => {
            out.loaded.diags.push(
                Diagnostic::error(Code::YamlSyntax, e.message)
                    .at(Pos {
                        file,
                        line: e.line.max(1),
                        col: e.col,
                    })
                    .help("the ResourceList on standard input does not parse"),
            );
            return out;
        }
    };
    let mut docs = docs.into_iter();
    let Some(doc) = docs.next() else {
        out.loaded
            .diags
            .push(error_at("standard input holds no ResourceList", start));
        return out;
    };
    if let Some(extra) = docs.next() {
        out.loaded.diags.push(error_at(
            "standard input holds more than one document; a KRM function reads one ResourceList",
            extra.root.pos,
        ));
        return out;
    }
    let mut root = doc.root;
    let kind = root.str_at(&["kind"]).unwrap_or("").to_string();
    let api_version = root.str_at(&["apiVersion"]).unwrap_or("").to_string();
    if kind != "ResourceList" || !RESOURCE_LIST_VERSIONS.contains(&api_version.as_str()) {
        out.loaded.diags.push(error_at(
            format!(
                "standard input is not a ResourceList (apiVersion `{api_version}`, kind `{kind}`)"
            ),
            root.pos,
        ));
        return out;
    }
    let Some(map) = root.as_map_mut() else {
        return out;
    };
    out.function_config = map.remove("functionConfig").filter(|n| !n.is_null());
    let items = match map.remove("items") {
        None => Vec::new(),
        Some(Node {
            value: Value::Seq(items),
            ..
        }) => items,
        Some(Node {
            value: Value::Null, ..
        }) => Vec::new(),
        Some(other) => {
            out.loaded.diags.push(error_at(
                "`items` of the ResourceList must be a list",
                other.pos,
            ));
            return out;
        }
    };
    let mut objects: Vec<Object> = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        match item_object(item, index) {
            Ok(object) => objects.push(object),
            Err(item) => {
                if item
                    .str_at(&["apiVersion"])
                    .is_some_and(|v| v.starts_with("ome.io/"))
                {
                    out.loaded.diags.extend(object_problems(item, index));
                } else {
                    out.opaque.push(item);
                }
            }
        }
    }
    out.loaded.objects = objects;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_become_objects_with_positions_in_the_resource_list() {
        let text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: List\n  items: []\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: b, namespace: x}\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n";
        let list = resource_list(text.to_string());
        assert!(list.loaded.diags.is_empty(), "{:?}", list.loaded.diags);
        let names: Vec<(&str, usize, u32)> = list
            .loaded
            .objects
            .iter()
            .map(|o| (o.name.as_str(), o.doc_index, o.root.pos.line))
            .collect();
        assert_eq!(names, [("a", 0, 4), ("b", 2, 11)]);
        assert_eq!(list.loaded.objects[1].namespace.as_deref(), Some("x"));
        assert_eq!(list.opaque.len(), 1, "the List is passed through as it is");
        assert_eq!(
            list.function_config
                .as_ref()
                .and_then(|c| c.str_at(&["metadata", "name"])),
            Some("c")
        );
    }

    #[test]
    fn what_is_no_resource_list_is_an_error() {
        for text in [
            "",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {}\n",
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n---\na: 1\n",
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: ome.io/v1beta1\n  kind: InferenceService\n  metadata: {}\n",
            "items: [",
        ] {
            let list = resource_list(text.to_string());
            assert!(list.has_errors(), "{text:?}");
        }
    }
}
