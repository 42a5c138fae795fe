//! The input of the KRM function (SEMANTICS.md#krm-function): a `config.kubernetes.io/v1`
//! ResourceList, as kustomize and kpt write it to the function's standard input.
//!
//! The items become [`Object`]s directly, with no round trip through text. When the
//! ResourceList is laid out as kustomize and kpt write it (a block sequence under a
//! top-level `items:`), each item's lines are parsed on their own, in parallel, and each item
//! is a source file of its own (`isvc.yaml (ResourceList items[3])`); [`place_in_files`]
//! finds a place in an item again in the user's file, for the report on standard error. Any other layout is parsed as one document, the
//! ResourceList being the one source. An item ome-render cannot read as an object (no name,
//! a `List`, not a map) is kept as it is, to be passed through untouched — unless it claims
//! to be an OME resource, which is then an error.

use super::limits::Limits;
use super::objects::{item_object, object_problems, syntax_error, type_problem};
use super::{Loaded, Object, bytes_limit};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::Sources;
use crate::yaml::parse::{AliasBudget, Document, ParseLimits, parse_stream_limited};
use crate::yaml::{Node, Pos, Value};
use rayon::prelude::*;
use std::sync::Arc;

/// The name the ResourceList has in diagnostics.
pub(crate) const RESOURCE_LIST_SOURCE: &str = "<stdin>";

/// The API versions of a ResourceList the function accepts (the KRM functions spec).
const RESOURCE_LIST_VERSIONS: &[&str] =
    &["config.kubernetes.io/v1", "config.kubernetes.io/v1beta1"];

/// Where the items' block sequence lies: the byte ranges of its items (each from the line of
/// its `-` to the line before the next), and of the whole sequence.
#[derive(Debug, PartialEq)]
struct Layout {
    items: Vec<(usize, usize)>,
    region: (usize, usize),
}

/// The number of leading spaces.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Finds the items of a ResourceList written in block style: a line `items:` at the first
/// column, then list items at one indent, until a line indented less (or, for items at the
/// first column, a line there that is no list item). Nothing inside an item can start a line
/// at the items' indent with `- `: nested blocks and scalar continuations are indented more.
/// Any other layout (flow style, tabs, a second document) gives `None`.
fn layout(text: &str) -> Option<Layout> {
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').map(|line| {
        let at = offset;
        offset += line.len();
        (at, line)
    });
    // `items:` at the first column, nothing after it but a comment.
    lines.by_ref().find(|(_, line)| {
        line.strip_prefix("items:").is_some_and(|rest| {
            let rest = rest.trim();
            rest.is_empty() || rest.starts_with('#')
        })
    })?;
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut seq_indent = None;
    let mut region_start = None;
    let mut end = text.len();
    for (at, line) in lines {
        let content = line.trim_end_matches(['\n', '\r']);
        let trimmed = content.trim_start_matches(' ');
        if trimmed.is_empty() || (trimmed.starts_with('#') && seq_indent.is_some()) {
            continue;
        }
        if trimmed.starts_with('\t') {
            return None;
        }
        let indent = indent_of(content);
        let is_item = trimmed == "-" || trimmed.starts_with("- ");
        match seq_indent {
            None => {
                if !is_item {
                    return None;
                }
                seq_indent = Some(indent);
                region_start = Some(at);
                items.push((at, 0));
            }
            Some(n) => {
                if indent == n && is_item {
                    if let Some(last) = items.last_mut() {
                        last.1 = at;
                    }
                    items.push((at, 0));
                } else if indent < n || (n == 0 && indent == 0) {
                    end = at;
                    break;
                }
            }
        }
    }
    if let Some(last) = items.last_mut() {
        last.1 = end;
    }
    Some(Layout {
        items,
        region: (region_start?, end),
    })
}

/// The items of `layout`, each parsed from its own lines as the source `first_file + i`;
/// `None` when one does not parse as exactly one list item (the caller then parses the whole
/// ResourceList, for the error's true position).
fn parse_items(
    text: &str,
    layout: &Layout,
    first_file: u32,
    limits: &ParseLimits,
    budget: &AliasBudget,
) -> Option<Vec<Node>> {
    layout
        .items
        .par_iter()
        .enumerate()
        .map(|(i, &(start, end))| {
            let file = first_file.checked_add(u32::try_from(i).ok()?)?;
            let mut docs = parse_stream_limited(&text[start..end], file, limits, budget).ok()?;
            if docs.len() != 1 {
                return None;
            }
            match docs.pop()?.root.value {
                Value::Seq(mut seq) if seq.len() == 1 => seq.pop(),
                _ => None,
            }
        })
        .collect()
}

/// An item's name as a source file: the user's file when the orchestrator says it.
fn item_source_name(index: usize, item: &Node) -> String {
    let path = item
        .at(&["metadata", "annotations"])
        .and_then(|a| {
            a.get("internal.config.kubernetes.io/path")
                .or_else(|| a.get("config.kubernetes.io/path"))
        })
        .and_then(Node::as_str);
    match path {
        Some(path) => format!("{path} (ResourceList items[{index}])"),
        None => format!("ResourceList items[{index}]"),
    }
}

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
    /// How many sources the ResourceList is: itself, and each item when they were parsed
    /// one by one. An object in a source below this number is an item.
    pub(crate) sources: u32,
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

/// Reads a ResourceList from the bytes of standard input, at most `limits.file_bytes` of
/// them (SEMANTICS.md#limits), which must be UTF-8.
pub(crate) fn resource_list_bytes(bytes: Vec<u8>, limits: &Limits) -> ResourceList {
    let too_large = bytes.len() as u64 > limits.file_bytes;
    match String::from_utf8(bytes) {
        Ok(text) if !too_large => resource_list(text, limits),
        Ok(_) | Err(_) => {
            let mut out = ResourceList::default();
            let file = out
                .loaded
                .sources
                .add(RESOURCE_LIST_SOURCE.to_string(), Arc::from(""));
            out.loaded.diags.push(if too_large {
                bytes_limit(
                    file,
                    format!("standard input holds more than {} bytes", limits.file_bytes),
                    "file-bytes",
                )
            } else {
                Diagnostic::error(Code::NotUtf8, "standard input is not UTF-8 text")
                    .at(Pos {
                        file,
                        line: 1,
                        col: 0,
                    })
                    .help("a ResourceList is UTF-8 YAML or JSON")
            });
            out
        }
    }
}

/// Reads a ResourceList from its text.
pub(crate) fn resource_list(text: String, limits: &Limits) -> ResourceList {
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
    let parse_limits = limits.parse();
    let budget = limits.alias_budget();
    // Items one by one, in parallel, when the layout allows; the rest of the ResourceList is
    // parsed with the items' lines left empty, so its lines keep their numbers.
    let split = layout(&text).and_then(|layout| {
        let items = parse_items(&text, &layout, file + 1, &parse_limits, &budget)?;
        let (start, end) = layout.region;
        let mut rest = String::with_capacity(text.len() - (end - start) + 1024);
        rest.push_str(&text[..start]);
        rest.extend(text[start..end].chars().filter(|&c| c == '\n'));
        rest.push_str(&text[end..]);
        Some((items, layout, rest))
    });
    let (root_text, split_items) = match split {
        Some((items, layout, rest)) => {
            for (i, (item, &(start, end))) in items.iter().zip(&layout.items).enumerate() {
                out.loaded
                    .sources
                    .add(item_source_name(i, item), Arc::from(&text[start..end]));
            }
            (Arc::from(rest), Some(items))
        }
        None => (text.clone(), None),
    };
    let start = Pos {
        file,
        line: 1,
        col: 0,
    };
    let docs = match parse_stream_limited(&root_text, file, &parse_limits, &budget) {
        Ok(docs) => docs,
        Err(e) => {
            out.loaded.diags.push(syntax_error(
                e,
                file,
                "the ResourceList on standard input does not parse",
            ));
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
    let items = match (map.remove("items"), split_items) {
        (_, Some(items)) => items,
        (None, None) => Vec::new(),
        (
            Some(Node {
                value: Value::Seq(items),
                ..
            }),
            None,
        ) => items,
        (
            Some(Node {
                value: Value::Null, ..
            }),
            None,
        ) => Vec::new(),
        (Some(other), None) => {
            out.loaded.diags.push(error_at(
                "`items` of the ResourceList must be a list",
                other.pos,
            ));
            return out;
        }
    };
    let mut objects: Vec<Object> = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        if let Some(problem) = type_problem(&item) {
            out.loaded.diags.push(problem);
            continue;
        }
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
    out.sources = u32::try_from(out.loaded.sources.len()).unwrap_or(u32::MAX);
    out
}

/// Where a place in an item of the ResourceList is for a reader (SEMANTICS.md#krm-function).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ItemPlace {
    /// The same field in the file the orchestrator names (`config.kubernetes.io/path`),
    /// which exists relative to the current directory and holds the object: its line and
    /// column (the file is added to the sources).
    File(Pos),
    /// The file (or, without one, the item) and the field path, without a line: the file is
    /// not there, does not hold the object, or not the field (kustomize added it, say).
    Unplaced { path: String, field: Option<String> },
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The steps from `node` to the deepest node at `pos`.
fn steps_to(node: &Node, pos: Pos) -> Option<Vec<Step>> {
    let inner = match &node.value {
        Value::Map(map) => map.entries().find_map(|(k, v)| {
            let mut steps = steps_to(v, pos)?;
            steps.insert(0, Step::Key(k.as_str().to_string()));
            Some(steps)
        }),
        Value::Seq(items) => items.iter().enumerate().find_map(|(i, v)| {
            let mut steps = steps_to(v, pos)?;
            steps.insert(0, Step::Index(i));
            Some(steps)
        }),
        _ => None,
    };
    inner.or_else(|| (node.pos == pos).then(Vec::new))
}

fn follow<'n>(node: &'n Node, steps: &[Step]) -> Option<&'n Node> {
    steps
        .iter()
        .try_fold(node, |n, step| match (step, &n.value) {
            (Step::Key(k), Value::Map(map)) => map.get(k),
            (Step::Index(i), Value::Seq(items)) => items.get(*i),
            _ => None,
        })
}

/// A field path as diagnostics write it: `spec.runtime.name`, `args[2]`.
fn field_path(steps: &[Step]) -> Option<String> {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The file an item comes from, as the orchestrator annotates it: kpt's
/// `internal.config.kubernetes.io/path` or `config.kubernetes.io/path`, or kustomize's
/// `config.kubernetes.io/origin` (`buildMetadata: [originAnnotations]`) when the file is
/// local; and its document index.
fn item_file(item: &Node) -> (Option<String>, Option<usize>) {
    let annotations = item.at(&["metadata", "annotations"]);
    let get = |key: &str| annotations.and_then(|a| a.get(key)).and_then(Node::as_str);
    // kustomize writes the origin as a small block of `key: value` lines; one with a `repo`
    // came from a remote base, not from a file here.
    let origin = || {
        let text = get("config.kubernetes.io/origin")?;
        let value = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
                .map(|v| v.trim().trim_matches(['\'', '"']))
        };
        match value("repo") {
            Some(_) => None,
            None => value("path").filter(|p| !p.is_empty()).map(str::to_string),
        }
    };
    let path = get("internal.config.kubernetes.io/path")
        .or_else(|| get("config.kubernetes.io/path"))
        .map(str::to_string)
        .or_else(origin);
    let index = get("internal.config.kubernetes.io/index")
        .or_else(|| get("config.kubernetes.io/index"))
        .and_then(|i| i.parse().ok());
    (path, index)
}

/// The document of `docs` that is the item: the one at `index` when it has the item's kind
/// and name, else the first that has them.
fn the_document<'d>(docs: &'d [Document], item: &Node, index: Option<usize>) -> Option<&'d Node> {
    let same = |n: &Node| {
        n.str_at(&["kind"]) == item.str_at(&["kind"])
            && n.str_at(&["metadata", "name"]) == item.str_at(&["metadata", "name"])
    };
    index
        .and_then(|i| docs.iter().find(|d| d.index == i && same(&d.root)))
        .or_else(|| docs.iter().find(|d| same(&d.root)))
        .map(|d| &d.root)
}

/// For each of `positions` in an item of the ResourceList (sources `1..list_sources`, as
/// [`resource_list`] numbers them), where it is in the user's file, or the path and field
/// path when that can't be said (SEMANTICS.md#krm-function). Reads only files inside the
/// current directory, each at most `limits.file_bytes`, and only for the items named.
pub(crate) fn place_in_files(
    sources: &mut Sources,
    list_sources: u32,
    positions: impl IntoIterator<Item = Pos>,
    limits: &Limits,
) -> std::collections::HashMap<Pos, ItemPlace> {
    let mut by_item: std::collections::BTreeMap<u32, Vec<Pos>> = std::collections::BTreeMap::new();
    for pos in positions {
        if pos.file >= 1 && pos.file < list_sources && !pos.is_none() {
            by_item.entry(pos.file).or_default().push(pos);
        }
    }
    let parse_limits = limits.parse();
    let budget = limits.alias_budget();
    let mut places = std::collections::HashMap::new();
    for (file, wanted) in by_item {
        let Some(text) = sources.get(file).and_then(|f| f.text()).map(str::to_string) else {
            continue;
        };
        let item = parse_stream_limited(&text, file, &parse_limits, &budget)
            .ok()
            .and_then(|mut docs| docs.pop())
            .and_then(|doc| match doc.root.value {
                Value::Seq(mut seq) if seq.len() == 1 => seq.pop(),
                _ => None,
            });
        let Some(item) = item else {
            continue;
        };
        let (path, index) = item_file(&item);
        let docs = path.as_deref().and_then(|path| {
            let text = super::read_inside_current_dir(path, limits.file_bytes)?;
            let text: Arc<str> = Arc::from(text);
            let id = sources.add(path.to_string(), text.clone());
            parse_stream_limited(&text, id, &parse_limits, &budget).ok()
        });
        let doc = docs
            .as_deref()
            .and_then(|docs| the_document(docs, &item, index));
        let name = path.unwrap_or_else(|| format!("ResourceList items[{}]", file - 1));
        for pos in wanted {
            let steps = steps_to(&item, pos);
            let found = doc
                .zip(steps.as_deref())
                .and_then(|(doc, steps)| follow(doc, steps))
                .map(|n| n.pos)
                .filter(|p| !p.is_none());
            let place = match found {
                Some(at) => ItemPlace::File(at),
                None => ItemPlace::Unplaced {
                    path: name.clone(),
                    field: steps.as_deref().and_then(field_path),
                },
            };
            places.insert(pos, place);
        }
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
    annotations:
      config.kubernetes.io/path: cm.yaml
  data:
    script: |
      - not an item
# a comment
- apiVersion: v1
  kind: List
  items: []
-   apiVersion: apps/v1
    kind: Deployment
    metadata: {name: b, namespace: x}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: c}
";

    #[test]
    fn block_items_are_parsed_one_by_one_each_its_own_source() {
        let list = resource_list(LIST.to_string(), &Limits::default());
        assert!(list.loaded.diags.is_empty(), "{:?}", list.loaded.diags);
        assert_eq!(list.sources, 4, "the ResourceList and its three items");
        let names: Vec<(&str, usize, u32, u32)> = list
            .loaded
            .objects
            .iter()
            .map(|o| {
                (
                    o.name.as_str(),
                    o.doc_index,
                    o.root.pos.file,
                    o.root.pos.line,
                )
            })
            .collect();
        assert_eq!(names, [("a", 0, 1, 1), ("b", 2, 3, 1)]);
        assert_eq!(
            list.loaded.objects[0].root.str_at(&["data", "script"]),
            Some("- not an item\n")
        );
        assert_eq!(list.loaded.objects[1].namespace.as_deref(), Some("x"));
        assert_eq!(
            list.loaded.sources.path(list.loaded.objects[0].pos()),
            Some("cm.yaml (ResourceList items[0])")
        );
        assert_eq!(
            list.loaded.sources.path(list.loaded.objects[1].pos()),
            Some("ResourceList items[2]")
        );
        assert_eq!(list.opaque.len(), 1, "the List is passed through as it is");
        let config = list.function_config.expect("functionConfig");
        assert_eq!(config.str_at(&["metadata", "name"]), Some("c"));
        assert_eq!(
            (config.pos.file, config.pos.line),
            (0, 20),
            "its line in the ResourceList"
        );
    }

    #[test]
    fn other_layouts_are_parsed_whole_with_the_same_result() {
        let flow = "{apiVersion: config.kubernetes.io/v1, kind: ResourceList, items: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}, {apiVersion: apps/v1, kind: Deployment, metadata: {name: b}}]}\n";
        let list = resource_list(flow.to_string(), &Limits::default());
        assert!(list.loaded.diags.is_empty(), "{:?}", list.loaded.diags);
        assert_eq!(list.sources, 1);
        let names: Vec<(&str, u32)> = list
            .loaded
            .objects
            .iter()
            .map(|o| (o.name.as_str(), o.root.pos.file))
            .collect();
        assert_eq!(names, [("a", 0), ("b", 0)]);
        // An alias across items cannot be parsed item by item: the whole is.
        let alias = r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- &cm
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: a}
- *cm
";
        let list = resource_list(alias.to_string(), &Limits::default());
        assert_eq!(list.sources, 1);
        assert_eq!(list.loaded.diags.len(), 0, "{:?}", list.loaded.diags);
    }

    #[test]
    fn the_layout_is_found_where_kustomize_and_kpt_write_it() {
        assert_eq!(layout("items: []\n"), None);
        assert_eq!(
            layout(
                r"kind: ResourceList
items:
  a: 1
"
            ),
            None
        );
        let text = r"kind: ResourceList
items:
  - a: 1
    b:
    - 2
  - c: 3
results: []
";
        let l = layout(text).unwrap();
        let parts: Vec<&str> = l.items.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(parts, ["  - a: 1\n    b:\n    - 2\n", "  - c: 3\n"]);
        assert_eq!(&text[l.region.1..], "results: []\n");
    }

    #[test]
    fn what_is_no_resource_list_is_an_error() {
        for text in [
            "",
            r"apiVersion: v1
kind: ConfigMap
metadata: {name: a}
",
            r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: {}
",
            r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
---
a: 1
",
            r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: ome.io/v1beta1
  kind: InferenceService
  metadata: {}
",
            "items: [",
        ] {
            let list = resource_list(text.to_string(), &Limits::default());
            assert!(list.has_errors(), "{text:?}");
        }
    }
}
