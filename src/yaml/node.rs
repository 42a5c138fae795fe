//! The document tree every stage works on: a YAML/JSON value where each node remembers the
//! file, line and column it came from.
//!
//! Maps keep their keys in insertion order (input order for parsed documents, construction
//! order for rendered ones), so output never depends on hashing. Lookups in small maps are
//! linear: the maps of Kubernetes objects are small, and a linear scan over a few keys beats
//! hashing them. A map that grows past [`INDEXED_FROM`] keys gets a hash index beside its
//! entries, so building or reading a map of any size stays linear (SEMANTICS.md#limits).

use super::key::Key;
use std::collections::HashMap;
use std::fmt;

/// Where a node came from: an index into the loaded source files, a 1-based line and a
/// 0-based column. `Pos::NONE` marks nodes the renderer made itself.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) struct Pos {
    pub(crate) file: u32,
    pub(crate) line: u32,
    pub(crate) col: u32,
}

impl Pos {
    /// A node made by the renderer, with no place in any input.
    pub(crate) const NONE: Pos = Pos {
        file: u32::MAX,
        line: 0,
        col: 0,
    };

    pub(crate) fn is_none(self) -> bool {
        self.line == 0
    }
}

/// One value with its position. For a map entry the position is that of its key, which is
/// where a reader looks for `field: value`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub(crate) pos: Pos,
    pub(crate) value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// A float as written (`0.5`, `1e3`); the emitter normalises it for YAML 1.1 readers.
    Float(String),
    Str(String),
    Seq(Vec<Node>),
    Map(Map),
}

/// Maps with at least this many keys get a hash index (below it a scan is as fast).
const INDEXED_FROM: usize = 32;

/// An ordered map with string keys.
#[derive(Clone, Default)]
pub(crate) struct Map {
    entries: Vec<(Key, Node)>,
    /// Key → position in `entries`, kept only for maps of [`INDEXED_FROM`] keys or more.
    /// It never decides an order: iteration is always over `entries`.
    #[expect(
        clippy::box_collection,
        reason = "boxed, the index costs a map one pointer, so a node stays 48 bytes"
    )]
    index: Option<Box<HashMap<Key, usize>>>,
}

impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.entries == other.entries
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Map")
            .field("entries", &self.entries)
            .finish()
    }
}

impl Map {
    pub(crate) fn new() -> Map {
        Map::default()
    }

    pub(crate) fn with_capacity(n: usize) -> Map {
        Map {
            entries: Vec::with_capacity(n),
            index: None,
        }
    }

    /// A map of `entries`, whose keys the caller knows to be distinct.
    pub(crate) fn from_unique(entries: Vec<(Key, Node)>) -> Map {
        let mut map = Map {
            entries,
            index: None,
        };
        if map.entries.len() >= INDEXED_FROM {
            map.reindex();
        }
        map
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            // Keys of one length mostly differ in their first byte: comparing it first
            // spares most of the byte comparisons.
            None => {
                let first = key.as_bytes().first();
                self.entries
                    .iter()
                    .position(|(k, _)| k.as_bytes().first() == first && k.as_str() == key)
            }
        }
    }

    /// Rebuilds the index after entries moved (or drops it when the map became small).
    fn reindex(&mut self) {
        self.index = (self.entries.len() >= INDEXED_FROM).then(|| {
            Box::new(
                self.entries
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (k.clone(), i))
                    .collect(),
            )
        });
    }

    /// Appends an entry whose key is not in the map, keeping the index.
    fn append(&mut self, key: Key, value: Node) {
        match &mut self.index {
            Some(index) => {
                index.insert(key.clone(), self.entries.len());
                self.entries.push((key, value));
            }
            None => {
                self.entries.push((key, value));
                if self.entries.len() >= INDEXED_FROM {
                    self.reindex();
                }
            }
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    /// The value at `key` and its place among the entries (the order [`Map::iter`] gives).
    pub(crate) fn get_indexed(&self, key: &str) -> Option<(usize, &Node)> {
        self.position(key).map(|i| (i, &self.entries[i].1))
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }

    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key`, replacing its value in place if present, else appending it.
    pub(crate) fn insert(&mut self, key: impl Into<Key>, value: Node) {
        let key = key.into();
        match self.position(&key) {
            Some(i) => self.entries[i].1 = value,
            None => self.append(key, value),
        }
    }

    /// The value at `key`, inserted at the end from `default` when absent.
    pub(crate) fn entry_or(&mut self, key: &str, default: impl FnOnce() -> Node) -> &mut Node {
        let i = match self.position(key) {
            Some(i) => i,
            None => {
                self.append(Key::from(key), default());
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }

    /// Moves `key` to the front, if present.
    pub(crate) fn move_to_front(&mut self, key: &str) {
        if let Some(i) = self.position(key) {
            let entry = self.entries.remove(i);
            self.entries.insert(0, entry);
            if self.index.is_some() {
                self.reindex();
            }
        }
    }

    /// Appends without checking for an existing key; the caller guarantees uniqueness.
    pub(crate) fn push_unique(&mut self, key: impl Into<Key>, value: Node) {
        self.append(key.into(), value);
    }

    pub(crate) fn remove(&mut self, key: &str) -> Option<Node> {
        let i = self.position(key)?;
        let (_, node) = self.entries.remove(i);
        if self.index.is_some() {
            self.reindex();
        }
        Some(node)
    }

    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Node)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// [`Map::iter`] with the keys themselves, for copying them into another map.
    pub(crate) fn entries(&self) -> impl ExactSizeIterator<Item = (&Key, &Node)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&str, &mut Node)> {
        self.entries.iter_mut().map(|(k, v)| (k.as_str(), v))
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&str, &Node) -> bool) {
        let before = self.entries.len();
        self.entries.retain(|(k, v)| keep(k, v));
        if self.index.is_some() && self.entries.len() != before {
            self.reindex();
        }
    }

    /// Sorts entries by key (byte order), for maps whose order carries no meaning.
    pub(crate) fn sort_keys(&mut self) {
        self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        if self.index.is_some() {
            self.reindex();
        }
    }
}

impl IntoIterator for Map {
    type Item = (Key, Node);
    type IntoIter = std::vec::IntoIter<(Key, Node)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<K: Into<Key>> FromIterator<(K, Node)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Node)>>(iter: I) -> Map {
        let mut m = Map::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl Node {
    pub(crate) fn new(value: Value, pos: Pos) -> Node {
        Node { pos, value }
    }

    /// A node made by the renderer.
    pub(crate) fn made(value: Value) -> Node {
        Node {
            pos: Pos::NONE,
            value,
        }
    }

    pub(crate) fn str(s: impl Into<String>) -> Node {
        Node::made(Value::Str(s.into()))
    }

    pub(crate) fn int(i: i64) -> Node {
        Node::made(Value::Int(i))
    }

    pub(crate) fn bool(b: bool) -> Node {
        Node::made(Value::Bool(b))
    }

    pub(crate) fn map(m: Map) -> Node {
        Node::made(Value::Map(m))
    }

    pub(crate) fn seq(items: Vec<Node>) -> Node {
        Node::made(Value::Seq(items))
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_map(&self) -> Option<&Map> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub(crate) fn as_map_mut(&mut self) -> Option<&mut Map> {
        match &mut self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    pub(crate) fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_seq_mut(&mut self) -> Option<&mut Vec<Node>> {
        match &mut self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn as_i64(&self) -> Option<i64> {
        match &self.value {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// `map.key`, when this node is a map holding `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?.get(key)
    }

    /// Follows a path of map keys.
    pub(crate) fn at(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |n, k| n.get(k))
    }

    /// The string at a path of map keys, if it is a string.
    pub(crate) fn str_at(&self, path: &[&str]) -> Option<&str> {
        self.at(path)?.as_str()
    }

    /// Scalars as text, the way a string field of a Kubernetes object reads them
    /// (`version: 1.0` is the text `1.0`).
    pub(crate) fn scalar_text(&self) -> Option<String> {
        match &self.value {
            Value::Str(s) => Some(s.clone()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.clone()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Null | Value::Seq(_) | Value::Map(_) => None,
        }
    }

    /// What Go's `omitempty` would leave out: null, `""`, `0`, `false`, `[]` and `{}`.
    pub(crate) fn is_zero(&self) -> bool {
        match &self.value {
            Value::Null => true,
            Value::Bool(b) => !b,
            Value::Int(i) => *i == 0,
            Value::Float(f) => f.parse::<f64>().is_ok_and(|x| x == 0.0),
            Value::Str(s) => s.is_empty(),
            Value::Seq(s) => s.is_empty(),
            Value::Map(m) => m.is_empty(),
        }
    }

    /// A short name of the node's type, for messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match &self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a map",
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col + 1)
    }
}

/// Builds a rendered map from `key => node` pairs, in the order written.
#[macro_export]
macro_rules! map {
    () => { $crate::yaml::Map::new() };
    ($($k:expr => $v:expr),+ $(,)?) => {{
        let mut m = $crate::yaml::Map::new();
        $( m.insert($k, $v); )+
        m
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_stays_48_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 48);
    }

    /// Every operation on an indexed map agrees with a plain list of pairs.
    #[test]
    fn an_indexed_map_behaves_as_a_list_of_pairs() {
        let mut map = Map::new();
        let mut model: Vec<(String, i64)> = Vec::new();
        let check = |map: &Map, model: &[(String, i64)]| {
            let got: Vec<(String, i64)> = map
                .iter()
                .map(|(k, v)| (k.to_string(), v.as_i64().unwrap()))
                .collect();
            assert_eq!(got, model);
            for (k, v) in model {
                assert_eq!(map.get(k).and_then(Node::as_i64), Some(*v), "{k}");
            }
            assert!(!map.contains_key("absent"));
        };
        for i in 0..100 {
            map.insert(format!("k{}", i % 70), Node::int(i));
            match model.iter_mut().find(|(k, _)| *k == format!("k{}", i % 70)) {
                Some(slot) => slot.1 = i,
                None => model.push((format!("k{}", i % 70), i)),
            }
        }
        check(&map, &model);
        assert!(map.index.is_some());
        map.remove("k5");
        model.retain(|(k, _)| k != "k5");
        check(&map, &model);
        map.move_to_front("k60");
        let i = model.iter().position(|(k, _)| k == "k60").unwrap();
        let e = model.remove(i);
        model.insert(0, e);
        check(&map, &model);
        map.retain(|k, _| !k.ends_with('3'));
        model.retain(|(k, _)| !k.ends_with('3'));
        check(&map, &model);
        map.sort_keys();
        model.sort();
        check(&map, &model);
        *map.entry_or("new", || Node::int(-1)) = Node::int(7);
        model.push(("new".into(), 7));
        check(&map, &model);
        map.retain(|k, _| k.len() < 3);
        model.retain(|(k, _)| k.len() < 3);
        check(&map, &model);
        assert!(
            map.index.is_none(),
            "a map that became small drops its index"
        );
    }
}
