//! Text → [`Node`] trees: one tree per YAML document, every node with its position.
//!
//! Built on `saphyr-parser`'s event stream. Plain scalars are resolved the way Kubernetes
//! tooling reads manifests: the YAML 1.2 core schema (`yes`, `on`, `NO` stay strings, as in
//! kustomize), except that a leading-zero integer such as `0644` is octal, as kubectl and
//! kustomize read `defaultMode: 0644` (YAML 1.1). Merge keys (`<<`) are applied and duplicate
//! keys are errors.
//!
//! The input may be hostile (SEMANTICS.md#limits): nesting is refused beyond a depth limit
//! here, before any recursive stage sees the tree, so no stack depth depends on the input;
//! maps have at most so many keys; and every node an anchor or an alias copies counts against
//! a budget, per document and for the whole run, so an "alias bomb" stops with an error
//! instead of exhausting memory.

pub(crate) use super::document::{Document, ParseLimits, limit_names};
use super::node::{Map, Node, Pos, Value};
use super::scalar::{is_float, key_text, parse_bool, parse_int, resolve_plain};
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// What anchors and aliases may copy across every file of a run, shared by the threads
/// that parse them. Once spent, every further copy fails, in whichever file it happens; the
/// loader then parses again one file after the other to blame the first one deterministically.
#[derive(Debug)]
pub(crate) struct AliasBudget {
    nodes: AtomicU64,
    bytes: AtomicU64,
    max_nodes: u64,
    max_bytes: u64,
}

impl AliasBudget {
    pub(crate) fn new(max_nodes: u64, max_bytes: u64) -> AliasBudget {
        AliasBudget {
            nodes: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            max_nodes,
            max_bytes,
        }
    }

    /// What has been spent: nodes and bytes.
    fn spent(&self) -> (u64, u64) {
        (
            self.nodes.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }

    /// Spends `nodes` and `bytes` at once, or, when that is more than is left, nothing.
    fn spend_or_refund(&self, nodes: u64, bytes: u64) -> bool {
        let n = self.nodes.fetch_add(nodes, Ordering::Relaxed);
        let b = self.bytes.fetch_add(bytes, Ordering::Relaxed);
        if n.saturating_add(nodes) <= self.max_nodes && b.saturating_add(bytes) <= self.max_bytes {
            return true;
        }
        self.nodes.fetch_sub(nodes, Ordering::Relaxed);
        self.bytes.fetch_sub(bytes, Ordering::Relaxed);
        false
    }

    /// Spends `nodes` and `bytes`; the name of the limit when that is more than is left.
    fn spend(&self, nodes: u64, bytes: u64) -> Result<(), (&'static str, u64)> {
        let n = self
            .nodes
            .fetch_add(nodes, Ordering::Relaxed)
            .saturating_add(nodes);
        if n > self.max_nodes {
            return Err((limit_names::ALIAS_NODES_TOTAL, self.max_nodes));
        }
        let b = self
            .bytes
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if b > self.max_bytes {
            return Err((limit_names::ALIAS_BYTES_TOTAL, self.max_bytes));
        }
        Ok(())
    }
}

/// A syntax error or an exceeded limit, at a 1-based line and 0-based column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyntaxError {
    pub(crate) message: String,
    pub(crate) line: u32,
    pub(crate) col: u32,
    /// The limit that was exceeded ([`limit_names`]), if that is the error.
    pub(crate) limit: Option<&'static str>,
}

/// Parses every document of `text` with the default limits and a budget of its own.
/// Documents that hold nothing (only comments, or an explicit null) are left out; the others
/// keep their index in the file.
pub(crate) fn parse_stream(text: &str, file: u32) -> Result<Vec<Document>, SyntaxError> {
    let limits = ParseLimits::default();
    let budget = AliasBudget::new(u64::MAX, u64::MAX);
    parse_stream_limited(text, file, &limits, &budget)
}

/// Parses every document of `text` within `limits`, spending aliases from `budget`.
///
/// A stream over [`SPLIT_FROM`] bytes (a rendered stream piped in, a ResourceList) is cut at
/// its `---` lines and the pieces parsed in parallel, each numbering its lines and documents
/// from where it starts: a `---` at the start of a line always begins a document, whatever
/// came before it, so the pieces hold the same documents. Whenever that is not plainly so —
/// a piece fails, the pieces hold too many documents together, they copy more than the
/// budget has left, the stream has directives — the whole stream is parsed again as one, so
/// every result and every error is the one a single pass gives.
pub(crate) fn parse_stream_limited(
    text: &str,
    file: u32,
    limits: &ParseLimits,
    budget: &AliasBudget,
) -> Result<Vec<Document>, SyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let cuts = split_points(text);
    if cuts.len() > 1
        && let Some(docs) = parse_pieces(text, &cuts, file, limits, budget)
    {
        return Ok(docs);
    }
    parse_piece(text, file, 0, limits, budget).map(|(docs, _)| docs)
}

/// Streams at least this long are parsed in pieces.
const SPLIT_FROM: usize = 512 * 1024;
/// About how long a piece is.
const PIECE: usize = 256 * 1024;

/// Where the pieces of `text` start: byte offsets of `---` lines about [`PIECE`] bytes apart
/// (the first piece at 0), with the lines before each. One piece for a short stream, or one
/// with directives (`%YAML`), which belong to the document after them.
fn split_points(text: &str) -> Vec<(usize, u32)> {
    let mut cuts = vec![(0, 0)];
    if text.len() < SPLIT_FROM || text.starts_with('%') || text.contains("\n%") {
        return cuts;
    }
    let bytes = text.as_bytes();
    let mut lines: u32 = 0;
    let mut counted = 0;
    let mut from = PIECE;
    while from < text.len() {
        // The next line start at or after `from` that opens with `---` and a break or space.
        let Some(rel) = text[from..].find("\n---") else {
            break;
        };
        let start = from + rel + 1;
        let after = bytes.get(start + 3).copied();
        if matches!(after, None | Some(b'\n' | b'\r' | b' ' | b'\t')) {
            lines = lines.saturating_add(to_u32(bytecount_newlines(&bytes[counted..start])));
            counted = start;
            cuts.push((start, lines));
            from = start + PIECE;
        } else {
            from = start;
        }
    }
    cuts
}

fn bytecount_newlines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| **b == b'\n').count()
}

/// A piece's documents and how many it saw, or its error.
pub(super) type PieceResult = Result<(Vec<Document>, usize), SyntaxError>;

/// The pieces of `text` parsed in parallel and put together; `None` when a single pass must
/// decide (see [`parse_stream_limited`]).
fn parse_pieces(
    text: &str,
    cuts: &[(usize, u32)],
    file: u32,
    limits: &ParseLimits,
    budget: &AliasBudget,
) -> Option<Vec<Document>> {
    use rayon::prelude::*;
    let pieces: Vec<(&str, u32)> = cuts
        .iter()
        .enumerate()
        .map(|(i, &(start, lines))| {
            let end = cuts.get(i + 1).map_or(text.len(), |c| c.0);
            (&text[start..end], lines)
        })
        .collect();
    let parsed: Vec<(PieceResult, (u64, u64))> = pieces
        .par_iter()
        .map(|&(piece, lines)| {
            // Each piece spends from a budget of its own; the shared one is charged with the
            // sum below.
            let own = AliasBudget::new(budget.max_nodes, budget.max_bytes);
            let result = parse_piece(piece, file, lines, limits, &own);
            (result, own.spent())
        })
        .collect();
    let mut docs = Vec::new();
    let mut seen = 0;
    let (mut nodes, mut bytes) = (0u64, 0u64);
    for (result, (n, b)) in parsed {
        let (piece_docs, count) = result.ok()?;
        docs.extend(piece_docs.into_iter().map(|d| Document {
            index: d.index + seen,
            root: d.root,
        }));
        seen += count;
        nodes = nodes.saturating_add(n);
        bytes = bytes.saturating_add(b);
    }
    (docs.len() <= limits.documents && budget.spend_or_refund(nodes, bytes)).then_some(docs)
}

/// Parses the documents of `text`, a stream or a piece of one that starts `lines_before`
/// lines into its file. Returns them with the number of documents seen (empty ones
/// included), which numbers the documents of the next piece.
fn parse_piece(
    text: &str,
    file: u32,
    lines_before: u32,
    limits: &ParseLimits,
    budget: &AliasBudget,
) -> PieceResult {
    if let Some(read) = super::fast::parse(text, file, lines_before, limits) {
        return Ok(read);
    }
    parse_events(text, file, lines_before, limits, budget)
}

/// Panics when the fast path takes `text` and reads it otherwise than the event parser does
/// (the `yaml` fuzz target's property).
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn check_fast_path(text: &str, limits: &ParseLimits) {
    let Some((docs, count)) = super::fast::parse(text, 0, 0, limits) else {
        return;
    };
    let budget = AliasBudget::new(u64::MAX, u64::MAX);
    let Ok((slow, slow_count)) = parse_events(text, 0, 0, limits, &budget) else {
        panic!("the fast path read text the event parser refuses:\n{text}");
    };
    let flat = |docs: Vec<Document>| {
        docs.into_iter()
            .map(|d| (d.index, d.root))
            .collect::<Vec<_>>()
    };
    assert!(
        (flat(docs), count) == (flat(slow), slow_count),
        "the fast path and the event parser read this text differently:\n{text}"
    );
}

/// [`parse_piece`] by `saphyr-parser`'s events: any YAML, and every error.
pub(super) fn parse_events(
    text: &str,
    file: u32,
    lines_before: u32,
    limits: &ParseLimits,
    budget: &AliasBudget,
) -> PieceResult {
    let mut builder = Builder {
        file,
        lines_before,
        limits,
        budget,
        stack: Vec::new(),
        anchors: HashMap::new(),
        doc_copied_nodes: 0,
        doc_copied_bytes: 0,
        docs: Vec::new(),
        doc_index: 0,
        root: None,
        merge_key: false,
    };
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| {
            let mut error = SyntaxError {
                message: e.info().to_string(),
                line: to_u32(e.marker().line()).saturating_add(lines_before),
                col: to_u32(e.marker().col()),
                limit: None,
            };
            // The scanner reads flow collections ahead of the events, and refuses to nest
            // them deeper than 255 levels itself.
            if error.message == "recursion limit exceeded" {
                if limits.depth < FLOW_DEPTH {
                    error.limit = Some(limit_names::DEPTH);
                    error.message = depth_message(limits.depth);
                } else {
                    error.message = format!(
                        "flow collections (`[…]`, `{{…}}`) nest deeper than {} levels, more than the YAML reader takes",
                        FLOW_DEPTH - 1
                    );
                }
            }
            error
        })?;
        builder.event(event, span)?;
    }
    Ok((builder.docs, builder.doc_index))
}

/// Flow collections nest at most one level less than this (`saphyr-parser` counts them in a
/// byte).
const FLOW_DEPTH: usize = 256;

fn depth_message(max: usize) -> String {
    format!("the document nests collections deeper than {max} levels")
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

enum Frame {
    Seq {
        pos: Pos,
        anchor: usize,
        items: Vec<Node>,
    },
    Map {
        pos: Pos,
        anchor: usize,
        map: Map,
        /// The pending key, and whether it is a merge key (a plain, untagged `<<`).
        key: Option<(String, Pos, bool)>,
        /// Values of `<<` keys, applied when the mapping ends.
        merges: Vec<Node>,
    },
}

/// An anchored node, kept to copy for its aliases, with what one copy costs.
struct Anchor {
    node: Node,
    size: Size,
}

/// What copying a subtree costs: its nodes, the bytes of its keys and scalars, and its
/// height (levels of collections: 0 for a scalar).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Size {
    nodes: u64,
    bytes: u64,
    height: usize,
}

struct Builder<'a> {
    file: u32,
    /// Lines of the file before the text being parsed.
    lines_before: u32,
    limits: &'a ParseLimits,
    budget: &'a AliasBudget,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchor>,
    /// What anchors and aliases copied in the current document.
    doc_copied_nodes: u64,
    doc_copied_bytes: u64,
    docs: Vec<Document>,
    doc_index: usize,
    root: Option<Node>,
    /// Whether the scalar being added is a plain, untagged `<<` (a merge key when it is a key).
    merge_key: bool,
}

impl Builder<'_> {
    fn pos(&self, span: Span) -> Pos {
        Pos {
            file: self.file,
            line: to_u32(span.start.line()).saturating_add(self.lines_before),
            col: to_u32(span.start.col()),
        }
    }

    fn error(&self, pos: Pos, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            line: pos.line,
            col: pos.col,
            limit: None,
        }
    }

    fn limit_error(&self, pos: Pos, limit: &'static str, message: String) -> SyntaxError {
        SyntaxError {
            limit: Some(limit),
            ..self.error(pos, message)
        }
    }

    /// Counts one copy of a subtree (an anchor's, or an alias's) against the budgets.
    fn spend(&mut self, size: Size, pos: Pos) -> Result<(), SyntaxError> {
        self.doc_copied_nodes = self.doc_copied_nodes.saturating_add(size.nodes);
        self.doc_copied_bytes = self.doc_copied_bytes.saturating_add(size.bytes);
        if self.doc_copied_nodes > self.limits.alias_nodes {
            let max = self.limits.alias_nodes;
            return Err(self.limit_error(
                pos,
                limit_names::ALIAS_NODES,
                format!("anchors and aliases in this document copy more than {max} nodes"),
            ));
        }
        if self.doc_copied_bytes > self.limits.alias_bytes {
            let max = self.limits.alias_bytes;
            return Err(self.limit_error(
                pos,
                limit_names::ALIAS_BYTES,
                format!("anchors and aliases in this document copy more than {max} bytes of text"),
            ));
        }
        self.budget
            .spend(size.nodes, size.bytes)
            .map_err(|(limit, max)| {
                let what = if limit == limit_names::ALIAS_NODES_TOTAL {
                    "nodes"
                } else {
                    "bytes of text"
                };
                self.limit_error(
                    pos,
                    limit,
                    format!("anchors and aliases in the input copy more than {max} {what} in all"),
                )
            })
    }

    /// Refuses a collection that would sit `levels` below the current one past the limit.
    fn check_depth(&self, levels: usize, pos: Pos) -> Result<(), SyntaxError> {
        let max = self.limits.depth;
        if self.stack.len().saturating_add(levels) > max {
            return Err(self.limit_error(pos, limit_names::DEPTH, depth_message(max)));
        }
        Ok(())
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), SyntaxError> {
        let pos = self.pos(span);
        match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
            Event::DocumentStart(_) => self.root = None,
            Event::DocumentEnd => {
                if let Some(root) = self.root.take()
                    && !root.is_null()
                {
                    if self.docs.len() >= self.limits.documents {
                        let max = self.limits.documents;
                        return Err(self.limit_error(
                            root.pos,
                            limit_names::DOCUMENTS,
                            format!("the input holds more than {max} documents"),
                        ));
                    }
                    self.docs.push(Document {
                        index: self.doc_index,
                        root,
                    });
                }
                self.doc_index += 1;
                self.anchors.clear();
                self.doc_copied_nodes = 0;
                self.doc_copied_bytes = 0;
            }
            Event::Alias(id) => {
                self.merge_key = false;
                let Some(size) = self.anchors.get(&id).map(|a| a.size) else {
                    return Err(self.error(pos, "alias refers to an unknown anchor"));
                };
                self.check_depth(size.height, pos)?;
                self.spend(size, pos)?;
                let mut node = match self.anchors.get(&id) {
                    Some(anchor) => anchor.node.clone(),
                    None => return Err(self.error(pos, "alias refers to an unknown anchor")),
                };
                node.pos = pos;
                self.add(node, 0)?;
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.merge_key = style == ScalarStyle::Plain && tag.is_none() && text == "<<";
                let value =
                    resolve_scalar(text, style, tag.as_deref()).map_err(|m| self.error(pos, m))?;
                self.add(Node::new(value, pos), anchor)?;
            }
            Event::SequenceStart(anchor, tag) => {
                self.check_depth(1, pos)?;
                self.check_collection_tag(tag.as_deref(), "seq", pos)?;
                self.stack.push(Frame::Seq {
                    pos,
                    anchor,
                    items: Vec::new(),
                });
            }
            Event::MappingStart(anchor, tag) => {
                self.check_depth(1, pos)?;
                self.check_collection_tag(tag.as_deref(), "map", pos)?;
                self.stack.push(Frame::Map {
                    pos,
                    anchor,
                    map: Map::new(),
                    key: None,
                    merges: Vec::new(),
                });
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq { pos, anchor, items }) = self.stack.pop() {
                    self.add(Node::new(Value::Seq(items), pos), anchor)?;
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map {
                    pos,
                    anchor,
                    mut map,
                    merges,
                    ..
                }) = self.stack.pop()
                {
                    for merged in merges {
                        apply_merge(&mut map, merged).map_err(|m| self.error(pos, m))?;
                    }
                    if map.len() > self.limits.keys {
                        return Err(self.keys_error(pos));
                    }
                    self.add(Node::new(Value::Map(map), pos), anchor)?;
                }
            }
        }
        Ok(())
    }

    fn keys_error(&self, pos: Pos) -> SyntaxError {
        let max = self.limits.keys;
        self.limit_error(
            pos,
            limit_names::KEYS,
            format!("a map holds more than {max} keys"),
        )
    }

    fn check_collection_tag(
        &self,
        tag: Option<&Tag>,
        expected: &str,
        pos: Pos,
    ) -> Result<(), SyntaxError> {
        match tag {
            None => Ok(()),
            Some(t) if t.is_yaml_core_schema() && t.suffix == expected => Ok(()),
            Some(t) => Err(self.error(pos, format!("unsupported tag `{t}`"))),
        }
    }

    /// Adds a finished node to the enclosing collection, or makes it the document root.
    fn add(&mut self, mut node: Node, anchor: usize) -> Result<(), SyntaxError> {
        if anchor != 0 {
            // The anchor keeps a copy of the node: that copy counts as much as an alias's,
            // or a file of nested anchors without a single alias would copy unbounded.
            let size = measure(&node);
            self.spend(size, node.pos)?;
            self.anchors.insert(
                anchor,
                Anchor {
                    node: node.clone(),
                    size,
                },
            );
        }
        let max_keys = self.limits.keys;
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                map, key, merges, ..
            }) => match key.take() {
                None => {
                    // A copy, not the parsed string moved: the copy is allocated at its exact
                    // length, where the parsed one keeps the room it grew into (moving it
                    // cost 170 MB on 10,000 runtimes, BENCHMARKS.md).
                    let Some(name) = key_text(&node.value) else {
                        return Err(self.error(node.pos, "a map key must be a scalar"));
                    };
                    *key = Some((name, node.pos, std::mem::take(&mut self.merge_key)));
                }
                Some((name, key_pos, is_merge)) => {
                    if is_merge {
                        merges.push(node);
                    } else if map.contains_key(&name) {
                        return Err(self.error(key_pos, format!("duplicate key `{name}`")));
                    } else if map.len() >= max_keys {
                        return Err(self.keys_error(key_pos));
                    } else {
                        node.pos = key_pos;
                        map.push_unique(name, node);
                    }
                }
            },
        }
        Ok(())
    }
}

/// `<<: *base` or `<<: [*a, *b]`: keys the mapping doesn't set itself are taken from the
/// merged maps, earlier maps first.
fn apply_merge(map: &mut Map, merged: Node) -> Result<(), String> {
    let sources = match merged.value {
        Value::Map(m) => vec![m],
        Value::Seq(items) => items
            .into_iter()
            .map(|n| match n.value {
                Value::Map(m) => Ok(m),
                _ => Err("a merge key (`<<`) takes a map or a list of maps".to_string()),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err("a merge key (`<<`) takes a map or a list of maps".to_string()),
    };
    for source in sources {
        for (k, v) in source {
            if !map.contains_key(&k) {
                map.push_unique(k, v);
            }
        }
    }
    Ok(())
}

/// What one copy of `node` costs. The tree is at most the depth limit deep, as the parse
/// refused anything deeper.
fn measure(node: &Node) -> Size {
    let mut size = Size {
        nodes: 1,
        bytes: 0,
        height: 0,
    };
    let mut add = |child: Size, key_bytes: usize| {
        size.nodes = size.nodes.saturating_add(child.nodes);
        size.bytes = size
            .bytes
            .saturating_add(child.bytes)
            .saturating_add(key_bytes as u64);
        size.height = size.height.max(child.height + 1);
    };
    match &node.value {
        Value::Seq(items) => {
            items.iter().for_each(|n| add(measure(n), 0));
            size.height = size.height.max(1);
        }
        Value::Map(m) => {
            m.iter().for_each(|(k, v)| add(measure(v), k.len()));
            size.height = size.height.max(1);
        }
        Value::Str(s) | Value::Float(s) => size.bytes = s.len() as u64,
        Value::Null | Value::Bool(_) | Value::Int(_) => {}
    }
    size
}

fn resolve_scalar(
    text: Cow<'_, str>,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Value, String> {
    if let Some(tag) = tag {
        if !tag.is_yaml_core_schema() {
            if tag.handle == "!" && tag.suffix.is_empty() {
                // The non-specific tag `!` forces a string.
                return Ok(Value::Str(text.into_owned()));
            }
            return Err(format!("unsupported tag `{tag}`"));
        }
        return match tag.suffix.as_str() {
            "str" => Ok(Value::Str(text.into_owned())),
            "null" => Ok(Value::Null),
            "bool" => parse_bool(&text)
                .map(Value::Bool)
                .ok_or_else(|| format!("`{text}` is not a boolean (tagged `!!bool`)")),
            "int" => parse_int(&text)
                .map(Value::Int)
                .ok_or_else(|| format!("`{text}` is not an integer (tagged `!!int`)")),
            "float" => {
                if is_float(&text) || parse_int(&text).is_some() {
                    Ok(Value::Float(text.into_owned()))
                } else {
                    Err(format!("`{text}` is not a number (tagged `!!float`)"))
                }
            }
            other => Err(format!("unsupported tag `!!{other}`")),
        };
    }
    if style != ScalarStyle::Plain {
        return Ok(Value::Str(text.into_owned()));
    }
    Ok(resolve_plain(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Node {
        let mut docs = parse_stream(text, 0).unwrap();
        assert_eq!(docs.len(), 1);
        docs.remove(0).root
    }

    fn scalar(text: &str) -> Value {
        one(&format!("v: {text}\n")).get("v").unwrap().value.clone()
    }

    /// A stream parsed in pieces and in one pass: the same documents, indices and positions,
    /// or the same error.
    fn both_ways(text: &str) -> Result<Vec<(usize, Node)>, SyntaxError> {
        let limits = ParseLimits::default();
        let budget = AliasBudget::new(u64::MAX, u64::MAX);
        assert!(split_points(text).len() > 1 || text.len() < SPLIT_FROM);
        let pieces = parse_stream_limited(text, 3, &limits, &budget);
        let whole = parse_piece(text, 3, 0, &limits, &budget).map(|(docs, _)| docs);
        let flat = |r: Result<Vec<Document>, SyntaxError>| {
            r.map(|docs| {
                docs.into_iter()
                    .map(|d| (d.index, d.root))
                    .collect::<Vec<_>>()
            })
        };
        let (pieces, whole) = (flat(pieces), flat(whole));
        assert_eq!(pieces, whole);
        pieces
    }

    /// Documents that test the cut: block scalars holding `---`-like lines, quoted strings,
    /// anchors, empty documents, an explicit end.
    fn long_stream(docs: usize) -> String {
        let mut text = String::from("first: doc\n");
        for i in 0..docs {
            text.push_str(&format!(
                r#"---
apiVersion: v1
kind: ConfigMap
metadata: {{name: c{i}}}
data:
  script: |
    ---x
    --- indented
  q: "a\n--- b"
  anchor: &a {{k: v}}
  copy: *a
---
# an empty document
"#
            ));
            if i % 97 == 0 {
                text.push_str("--- {flow: doc}\n...\n");
            }
        }
        text
    }

    #[test]
    fn a_long_stream_parses_in_pieces_as_in_one_pass() {
        let text = long_stream(6000);
        assert!(split_points(&text).len() >= 3, "{}", text.len());
        let docs = both_ways(&text).expect("parses");
        assert_eq!(docs.len(), 1 + 6000 + 62);
        let last = &docs[docs.len() - 1];
        assert!(last.1.pos.line > 60_000, "{:?}", last.1.pos);
        // CRLF line breaks cut the same way.
        let crlf = text.replace('\n', "\r\n");
        both_ways(&crlf).expect("parses");
    }

    #[test]
    fn an_error_in_a_late_piece_is_the_one_pass_error() {
        let mut text = long_stream(6000);
        text.push_str("---\nbad: [unclosed\n");
        let err = both_ways(&text).expect_err("fails");
        assert!(err.line > 60_000, "{err:?}");
        // A quoted string across a `---` line: the pieces can't parse it; one pass decides.
        let mut text = long_stream(3000);
        text.push_str("---\nq: \"open\n---\nclose\"\n");
        text.push_str(&long_stream(3000));
        let _ = both_ways(&text);
    }

    #[test]
    fn pieces_respect_the_stream_limits() {
        let text = long_stream(6000);
        let limits = ParseLimits {
            documents: 5000,
            ..ParseLimits::default()
        };
        let budget = AliasBudget::new(u64::MAX, u64::MAX);
        let err = parse_stream_limited(&text, 0, &limits, &budget).expect_err("too many");
        assert_eq!(err.limit, Some(limit_names::DOCUMENTS));
        let whole = parse_piece(&text, 0, 0, &limits, &budget).expect_err("too many");
        assert_eq!((err.line, err.col), (whole.line, whole.col));
        // The run's alias budget: each document copies 2 nodes ({k: v} once more).
        let budget = AliasBudget::new(5000, u64::MAX);
        let err =
            parse_stream_limited(&text, 0, &ParseLimits::default(), &budget).expect_err("budget");
        assert_eq!(err.limit, Some(limit_names::ALIAS_NODES_TOTAL));
        let fresh = AliasBudget::new(5000, u64::MAX);
        let whole = parse_piece(&text, 0, 0, &ParseLimits::default(), &fresh).expect_err("budget");
        assert_eq!((err.line, err.col), (whole.line, whole.col));
        // Directives keep a stream in one piece.
        assert_eq!(split_points(&format!("%YAML 1.2\n{text}")).len(), 1);
    }

    #[test]
    fn plain_scalars_follow_the_core_schema_with_legacy_octal() {
        assert_eq!(scalar("yes"), Value::Str("yes".into()));
        assert_eq!(scalar("on"), Value::Str("on".into()));
        assert_eq!(scalar("NO"), Value::Str("NO".into()));
        assert_eq!(scalar("True"), Value::Bool(true));
        assert_eq!(scalar("~"), Value::Null);
        assert_eq!(scalar(""), Value::Null);
        assert_eq!(scalar("10"), Value::Int(10));
        assert_eq!(scalar("-3"), Value::Int(-3));
        assert_eq!(scalar("0644"), Value::Int(420));
        assert_eq!(scalar("0o17"), Value::Int(15));
        assert_eq!(scalar("0x1F"), Value::Int(31));
        assert_eq!(scalar("08"), Value::Str("08".into()));
        assert_eq!(scalar("1.10"), Value::Float("1.10".into()));
        assert_eq!(scalar("1e3"), Value::Float("1e3".into()));
        assert_eq!(scalar("1.0.0"), Value::Str("1.0.0".into()));
        assert_eq!(scalar("30Gi"), Value::Str("30Gi".into()));
        assert_eq!(scalar("\"10\""), Value::Str("10".into()));
        assert_eq!(scalar("'yes'"), Value::Str("yes".into()));
        assert_eq!(scalar("!!str 10"), Value::Str("10".into()));
        assert_eq!(
            scalar("99999999999999999999"),
            Value::Float("99999999999999999999".into())
        );
    }

    #[test]
    fn positions_are_those_of_keys_and_items() {
        let root = one("a: 1\nb:\n  c: x\nl:\n  - one\n  - two\n");
        assert_eq!((root.pos.line, root.pos.col), (1, 0));
        let b = root.get("b").unwrap();
        assert_eq!((b.pos.line, b.pos.col), (2, 0));
        let c = b.get("c").unwrap();
        assert_eq!((c.pos.line, c.pos.col), (3, 2));
        let two = &root.get("l").unwrap().as_seq().unwrap()[1];
        assert_eq!((two.pos.line, two.pos.col), (6, 4));
    }

    #[test]
    fn documents_keep_their_index_and_empty_ones_are_skipped() {
        let docs = parse_stream("# only a comment\n---\na: 1\n---\n---\nb: 2\n...\n", 0).unwrap();
        let found: Vec<(usize, u32)> = docs.iter().map(|d| (d.index, d.root.pos.line)).collect();
        assert_eq!(found, vec![(0, 3), (2, 6)]);
    }

    #[test]
    fn duplicate_keys_are_errors_with_the_line() {
        let err = parse_stream("a: 1\nb: 2\na: 3\n", 0).unwrap_err();
        assert_eq!(err.message, "duplicate key `a`");
        assert_eq!((err.line, err.col), (3, 0));
    }

    #[test]
    fn merge_keys_and_aliases_expand() {
        let root = one("base: &b\n  x: 1\n  y: 2\nderived:\n  <<: *b\n  y: 3\n");
        let d = root.get("derived").unwrap();
        assert_eq!(d.get("x").unwrap().as_i64(), Some(1));
        assert_eq!(d.get("y").unwrap().as_i64(), Some(3));
    }

    #[test]
    fn only_a_plain_merge_key_merges() {
        let root = one("a: &a {x: 1}\nb: {\"<<\": kept, y: 2}\nc: {<<: *a}\n");
        assert_eq!(root.str_at(&["b", "<<"]), Some("kept"));
        assert_eq!(root.at(&["c", "x"]).and_then(Node::as_i64), Some(1));
    }

    #[test]
    fn alias_bombs_stop_with_an_error() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let prev = format!("*a{}", i - 1);
            let items = [prev.as_str(); 9].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{items}]\n"));
        }
        let err = parse_stream(&text, 0).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::ALIAS_NODES), "{err:?}");
        assert_eq!(
            err.message,
            "anchors and aliases in this document copy more than 1000000 nodes"
        );
    }

    fn limited(text: &str, limits: ParseLimits) -> Result<Vec<Document>, SyntaxError> {
        parse_stream_limited(text, 0, &limits, &AliasBudget::new(u64::MAX, u64::MAX))
    }

    fn nested_block(levels: usize) -> String {
        // `- - - … x`: one sequence per level on a single line.
        format!("{}x\n", "- ".repeat(levels))
    }

    #[test]
    fn nesting_past_the_depth_limit_is_refused_block_and_flow() {
        let limits = ParseLimits::default();
        assert!(limited(&nested_block(128), limits).is_ok());
        let err = limited(&nested_block(129), limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::DEPTH));
        assert_eq!((err.line, err.col), (1, 256));
        let flow = format!("a: {}{}\n", "[".repeat(128), "]".repeat(128));
        let err = limited(&flow, limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::DEPTH), "{err:?}");
        // Past 255 flow levels the scanner stops first; it is still the depth limit.
        let flow = format!("a: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let err = limited(&flow, limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::DEPTH), "{err:?}");
        assert!(err.message.contains("deeper than 128 levels"), "{err:?}");
        let maps: String = (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert_eq!(
            limited(&maps, limits).unwrap_err().limit,
            Some(limit_names::DEPTH)
        );
        // 25,000 levels: refused at level 129, long before any stack could overflow.
        let err = limited(&nested_block(25_000), limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::DEPTH));
    }

    #[test]
    fn an_alias_counts_the_depth_of_what_it_copies() {
        let limits = ParseLimits {
            depth: 10,
            ..ParseLimits::default()
        };
        // The anchor is 6 levels deep; an alias of it at level 5 would reach level 11.
        let anchor = format!("a: &a {}1{}\n", "[".repeat(6), "]".repeat(6));
        let ok = format!("{anchor}b: [[[*a]]]\n");
        assert!(limited(&ok, limits).is_ok());
        let deep = format!("{anchor}b: [[[[*a]]]]\n");
        let err = limited(&deep, limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::DEPTH));
        assert_eq!(err.line, 2);
    }

    #[test]
    fn maps_past_the_keys_limit_are_refused_merged_keys_included() {
        let limits = ParseLimits {
            keys: 3,
            ..ParseLimits::default()
        };
        assert!(limited("a: 1\nb: 2\nc: 3\n", limits).is_ok());
        let err = limited("a: 1\nb: 2\nc: 3\nd: 4\n", limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::KEYS));
        assert_eq!(err.line, 4);
        let merged = "base: &b {x: 1, y: 2}\nm: {<<: *b, z: 3, w: 4}\n";
        assert_eq!(
            limited(merged, limits).unwrap_err().limit,
            Some(limit_names::KEYS)
        );
    }

    #[test]
    fn documents_past_the_limit_are_refused_and_empty_ones_are_free() {
        let limits = ParseLimits {
            documents: 2,
            ..ParseLimits::default()
        };
        assert!(limited("a: 1\n---\n---\n# only a comment\n---\nb: 2\n", limits).is_ok());
        let err = limited("a: 1\n---\nb: 2\n---\nc: 3\n", limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::DOCUMENTS));
        assert_eq!(err.line, 5);
    }

    #[test]
    fn anchors_without_aliases_count_their_copies() {
        // Each level anchors a list holding the level below: no alias at all, but every
        // anchor keeps a copy of everything beneath it.
        let limits = ParseLimits {
            alias_nodes: 1000,
            ..ParseLimits::default()
        };
        let mut text = String::from("a: ");
        for i in 0..100 {
            text.push_str(&format!("&a{i} [x, "));
        }
        text.push('x');
        text.push_str(&"]".repeat(100));
        text.push('\n');
        let err = limited(&text, limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::ALIAS_NODES), "{err:?}");
    }

    #[test]
    fn alias_copies_count_bytes_too() {
        let limits = ParseLimits {
            alias_bytes: 10_000,
            ..ParseLimits::default()
        };
        let big = "y".repeat(1000);
        let five = format!("s: &s {big}\nl: [*s, *s, *s, *s, *s]\n");
        assert!(limited(&five, limits).is_ok());
        let twenty = format!("s: &s {big}\nl: [{}]\n", ["*s"; 20].join(", "));
        let err = limited(&twenty, limits).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::ALIAS_BYTES));
        assert_eq!(err.line, 2);
    }

    #[test]
    fn the_alias_budget_is_per_document_so_a_long_stream_passes() {
        let limits = ParseLimits {
            alias_nodes: 1000,
            ..ParseLimits::default()
        };
        // 5,000 documents each copying 300 nodes: 1.5 million in the file, 300 per document.
        let items = vec!["x"; 99].join(", ");
        let doc = format!("base: &b [{items}]\nuse: [*b, *b]\n---\n");
        let stream = doc.repeat(5000);
        assert_eq!(limited(&stream, limits).unwrap().len(), 5000);
        // The run's budget still stops it, whichever file spends it.
        let budget = AliasBudget::new(100_000, u64::MAX);
        let err = parse_stream_limited(&stream, 0, &limits, &budget).unwrap_err();
        assert_eq!(err.limit, Some(limit_names::ALIAS_NODES_TOTAL));
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err = parse_stream("a: 1\nb: [1, 2\n", 0).unwrap_err();
        assert!(err.line >= 2, "{err:?}");
    }

    #[test]
    fn json_is_read_too() {
        let root = one("{\"kind\": \"ConfigMap\", \"data\": {\"a\": \"yes\"}, \"n\": 1.5}");
        assert_eq!(root.str_at(&["data", "a"]), Some("yes"));
        assert_eq!(root.get("n").unwrap().value, Value::Float("1.5".into()));
    }

    /// JSON writes a character beyond the BMP as a UTF-16 surrogate pair of `\u` escapes, and
    /// YAML's double-quoted scalars take the same escapes: the pair is the one character, and
    /// the positions after it stay right; a surrogate without its pair is an error at the
    /// escape (vendor/saphyr-parser/README.md).
    #[test]
    fn a_surrogate_pair_escape_is_its_character_and_a_lone_surrogate_an_error() {
        let root = one(r#"{"a": "\ud83d\ude00", "b": 1, "c": "x\uD83D\uDE00y\U0001F600"}"#);
        assert_eq!(root.str_at(&["a"]), Some("😀"));
        assert_eq!(root.str_at(&["c"]), Some("x😀y😀"));
        assert_eq!(root.get("b").unwrap().pos.col, 22);
        let root = one("a: \"\\ud83d\\ude00\"\nb: \"\\u00e9\"\n");
        assert_eq!(root.str_at(&["a"]), Some("😀"));
        assert_eq!(root.str_at(&["b"]), Some("é"));
        for (text, says, col) in [
            ("a: [1, \"ok \\ud83d x\"]\n", "high surrogate", 11),
            ("a: \"\\ud83d\\u0041\"\n", "high surrogate", 4),
            ("a: \"\\ud83d\"\n", "high surrogate", 4),
            ("a: \"xy\\ude00\"\n", "low surrogate", 6),
            ("a: \"\\ude00\\ud83d\"\n", "low surrogate", 4),
        ] {
            let err = parse_stream(text, 0).unwrap_err();
            assert!(err.message.contains(says), "{text}: {}", err.message);
            assert_eq!((err.line, err.col), (1, col), "{text}");
        }
    }

    #[test]
    fn unknown_tags_are_errors() {
        let err = parse_stream("a: !custom x\n", 0).unwrap_err();
        assert!(err.message.contains("unsupported tag"), "{}", err.message);
    }
}
