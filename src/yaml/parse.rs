//! Text → [`Node`] trees: one tree per YAML document, every node with its position.
//!
//! Built on `saphyr-parser`'s event stream. Plain scalars are resolved the way Kubernetes
//! tooling reads manifests: the YAML 1.2 core schema (`yes`, `on`, `NO` stay strings, as in
//! kustomize), except that a leading-zero integer such as `0644` is octal, as kubectl and
//! kustomize read `defaultMode: 0644` (YAML 1.1). Merge keys (`<<`) are applied, duplicate
//! keys are errors, and aliases count against a node budget so an "alias bomb" stops with an
//! error instead of exhausting memory.

use super::node::{Map, Node, Pos, Value};
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use std::borrow::Cow;
use std::collections::HashMap;

/// At most this many nodes may be created by expanding aliases in one file. Real manifests
/// use few or no aliases; a nested alias bomb needs hundreds of millions.
pub(crate) const ALIAS_NODE_BUDGET: usize = 1_000_000;

/// One document of a stream.
#[derive(Debug)]
pub(crate) struct Document {
    /// The document's index in its file, counting from 0 (empty documents count too, as
    /// kustomize's `config.kubernetes.io/index` does).
    pub(crate) index: usize,
    pub(crate) root: Node,
}

/// A syntax error, at a 1-based line and 0-based column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyntaxError {
    pub(crate) message: String,
    pub(crate) line: u32,
    pub(crate) col: u32,
}

/// Parses every document of `text`. Documents that hold nothing (only comments, or an
/// explicit null) are left out; the others keep their index in the file.
pub(crate) fn parse_stream(text: &str, file: u32) -> Result<Vec<Document>, SyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut builder = Builder {
        file,
        stack: Vec::new(),
        anchors: HashMap::new(),
        alias_nodes: 0,
        docs: Vec::new(),
        doc_index: 0,
        root: None,
        merge_key: false,
    };
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| SyntaxError {
            message: e.info().to_string(),
            line: to_u32(e.marker().line()),
            col: to_u32(e.marker().col()),
        })?;
        builder.event(event, span)?;
    }
    Ok(builder.docs)
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

struct Builder {
    file: u32,
    stack: Vec<Frame>,
    anchors: HashMap<usize, (Node, usize)>,
    alias_nodes: usize,
    docs: Vec<Document>,
    doc_index: usize,
    root: Option<Node>,
    /// Whether the scalar being added is a plain, untagged `<<` (a merge key when it is a key).
    merge_key: bool,
}

impl Builder {
    fn pos(&self, span: Span) -> Pos {
        Pos {
            file: self.file,
            line: to_u32(span.start.line()),
            col: to_u32(span.start.col()),
        }
    }

    fn error(&self, pos: Pos, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            message: message.into(),
            line: pos.line,
            col: pos.col,
        }
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
                    self.docs.push(Document {
                        index: self.doc_index,
                        root,
                    });
                }
                self.doc_index += 1;
                self.anchors.clear();
            }
            Event::Alias(id) => {
                self.merge_key = false;
                let Some((node, size)) = self.anchors.get(&id) else {
                    return Err(self.error(pos, "alias refers to an unknown anchor"));
                };
                self.alias_nodes += size;
                if self.alias_nodes > ALIAS_NODE_BUDGET {
                    return Err(self.error(
                        pos,
                        format!(
                            "aliases expand to more than {ALIAS_NODE_BUDGET} nodes (an alias bomb?)"
                        ),
                    ));
                }
                let mut node = node.clone();
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
                self.check_collection_tag(tag.as_deref(), "seq", pos)?;
                self.stack.push(Frame::Seq {
                    pos,
                    anchor,
                    items: Vec::new(),
                });
            }
            Event::MappingStart(anchor, tag) => {
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
                    self.add(Node::new(Value::Map(map), pos), anchor)?;
                }
            }
        }
        Ok(())
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
            let size = count_nodes(&node);
            self.anchors.insert(anchor, (node.clone(), size));
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                map, key, merges, ..
            }) => match key.take() {
                None => {
                    let name = match &node.value {
                        Value::Str(s) => s.clone(),
                        Value::Int(_) | Value::Float(_) | Value::Bool(_) => {
                            node.scalar_text().unwrap_or_default()
                        }
                        Value::Null => String::new(),
                        Value::Seq(_) | Value::Map(_) => {
                            return Err(self.error(node.pos, "a map key must be a scalar"));
                        }
                    };
                    *key = Some((name, node.pos, std::mem::take(&mut self.merge_key)));
                }
                Some((name, key_pos, is_merge)) => {
                    if is_merge {
                        merges.push(node);
                    } else if map.contains_key(&name) {
                        return Err(self.error(key_pos, format!("duplicate key `{name}`")));
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

fn count_nodes(node: &Node) -> usize {
    1 + match &node.value {
        Value::Seq(items) => items.iter().map(count_nodes).sum(),
        Value::Map(m) => m.iter().map(|(_, v)| count_nodes(v)).sum(),
        _ => 0,
    }
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

/// The type of an untagged plain scalar.
pub(crate) fn resolve_plain(text: Cow<'_, str>) -> Value {
    let s: &str = &text;
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        _ => {}
    }
    if let Some(b) = parse_bool(s) {
        return Value::Bool(b);
    }
    let first = s.as_bytes()[0];
    if first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.') {
        if let Some(i) = parse_int(s) {
            return Value::Int(i);
        }
        let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
        if digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
        {
            // `08`, `09`: no number in YAML 1.1, so a string, as kubectl reads it.
            return Value::Str(text.into_owned());
        }
        if is_float(s) {
            // Includes integers too large for 64 bits.
            return Value::Float(text.into_owned());
        }
    }
    Value::Str(text.into_owned())
}

fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Decimal, `0x` hex, `0o` octal, and legacy leading-zero octal (`0644`).
fn parse_int(s: &str) -> Option<i64> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let magnitude = if let Some(hex) = digits.strip_prefix("0x") {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        i64::from_str_radix(hex, 16).ok()?
    } else if let Some(oct) = digits.strip_prefix("0o") {
        if oct.is_empty() || !oct.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return None;
        }
        i64::from_str_radix(oct, 8).ok()?
    } else if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    } else if digits.len() > 1 && digits.starts_with('0') {
        // YAML 1.1 octal, as kubectl reads it; `08` is no number at all there.
        if !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            return None;
        }
        i64::from_str_radix(digits, 8).ok()?
    } else {
        digits.parse::<i64>().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// The YAML 1.2 core schema float: `[-+]? ( . [0-9]+ | [0-9]+ ( . [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`,
/// plus `.inf` and `.nan` spellings.
pub(crate) fn is_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(body, ".inf" | ".Inf" | ".INF") || matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            (!int.is_empty() || !frac.is_empty())
                && int.bytes().all(|b| b.is_ascii_digit())
                && frac.bytes().all(|b| b.is_ascii_digit())
                && !(int.is_empty() && frac.is_empty())
        }
        None => !mantissa.is_empty() && mantissa.bytes().all(|b| b.is_ascii_digit()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
    });
    mantissa_ok && exponent_ok
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
        assert!(err.message.contains("alias bomb"), "{}", err.message);
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

    #[test]
    fn unknown_tags_are_errors() {
        let err = parse_stream("a: !custom x\n", 0).unwrap_err();
        assert!(err.message.contains("unsupported tag"), "{}", err.message);
    }
}
