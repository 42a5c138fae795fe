//! The fast path of the YAML reader, for the YAML most manifests are written in: block maps
//! and lists, one-line plain and quoted scalars, comments, `---` between documents, and the
//! empty `[]` and `{}`. It reads such text straight into [`Node`]s, without the event
//! parser's tokens and events in between (ARCHITECTURE.md, "YAML").
//!
//! It gives up (`None`) at the first thing outside that subset: a byte that is not printable
//! ASCII or a line feed (tabs, carriage returns, UTF-8), an anchor, alias or tag, a block or
//! multi-line scalar, a flow collection with something in it, an explicit key or document
//! end, a directive, a merge key, an empty list item, an escape other than the common ones,
//! a duplicate key, a limit reached. The event parser then reads the whole text and decides,
//! errors included, so the fast path never makes an error of its own. Where it does not give
//! up it builds the tree the event parser builds, values and positions alike: the tests below
//! compare the two on generated text, and the `yaml` fuzz target on any text (FUZZING.md).

use super::document::{Document, ParseLimits};
use super::key::Key;
use super::node::{Map, Node, Pos, Value};
use super::scalar::{key_text, resolve_plain};
use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

/// Collections nest at most this deep on the fast path, which recurses once per level;
/// deeper text is left to the event parser, which does not recurse.
const MAX_DEPTH: usize = 64;

/// Maps of at least this many keys find duplicates by hashing, smaller ones by a scan.
const HASHED_FROM: usize = 32;

/// Implicit keys are at most this long (YAML 1.2, 7.4.2), from the key's first character to
/// its `:`; a key whose `:` is this far or further is left to the event parser.
const MAX_KEY: usize = 1024;

/// The documents of `text` (a stream, or a piece of one `lines_before` lines into its file)
/// and how many it holds, empty ones included; `None` when the text is not in the subset.
pub(super) fn parse(
    text: &str,
    file: u32,
    lines_before: u32,
    limits: &ParseLimits,
) -> Option<(Vec<Document>, usize)> {
    if !printable_ascii(text.as_bytes()) {
        return None;
    }
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        no: lines_before.saturating_add(1),
        current: None,
        file,
        limits,
        entries: Vec::new(),
        items: Vec::new(),
        hasher: RandomState::new(),
    };
    reader.stream()
}

/// Whether every byte is printable ASCII or a line feed. Written as a fold over blocks,
/// which the compiler turns into vector instructions (a byte at a time, this check was a
/// tenth of the fast path's time).
fn printable_ascii(bytes: &[u8]) -> bool {
    bytes.chunks(4096).all(|block| {
        let outside = block.iter().fold(false, |outside, &b| {
            outside | ((b != b'\n') & (b.wrapping_sub(b' ') > b'~' - b' '))
        });
        !outside
    })
}

/// One line that holds something: `start` and `end` (before its line feed) are byte
/// offsets, `indent` its leading spaces, `no` its 1-based line number in the file.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    indent: usize,
    no: u32,
}

impl Line {
    fn content(self) -> usize {
        self.start + self.indent
    }
}

/// What comes next in the text.
#[derive(Clone, Copy)]
enum Next {
    Line(Line),
    /// A `---` line, which ends at `.0`.
    DocumentStart(usize),
    End,
}

/// A scalar as written, and where the text after it starts.
struct Scalar<'t> {
    text: Cow<'t, str>,
    plain: bool,
    pos: Pos,
    end: usize,
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The start of the first line not yet looked at.
    at: usize,
    /// The line number of the line at `at`.
    no: u32,
    /// The line at `at`, once looked at.
    current: Option<Next>,
    file: u32,
    limits: &'a ParseLimits,
    /// The entries of the maps and the items of the lists being read, innermost last.
    entries: Vec<(Key, Node)>,
    items: Vec<Node>,
    hasher: RandomState,
}

impl<'a> Reader<'a> {
    fn stream(&mut self) -> Option<(Vec<Document>, usize)> {
        let mut docs = Vec::new();
        let mut count = 0;
        // Whether a `---` opened a document that holds nothing yet: it counts all the same.
        let mut open = false;
        loop {
            match self.peek()? {
                Next::End => {
                    count += usize::from(open);
                    return Some((docs, count));
                }
                Next::DocumentStart(_) => {
                    count += usize::from(open);
                    open = true;
                    self.advance();
                }
                Next::Line(line) => {
                    let root = self.block(line, 1)?;
                    if matches!(self.peek()?, Next::Line(_)) || docs.len() >= self.limits.documents
                    {
                        return None;
                    }
                    docs.push(Document { index: count, root });
                    count += 1;
                    open = false;
                }
            }
        }
    }

    /// The next line that holds something, skipping blank and comment lines.
    fn peek(&mut self) -> Option<Next> {
        if let Some(next) = self.current {
            return Some(next);
        }
        let next = loop {
            if self.at >= self.bytes.len() {
                break Next::End;
            }
            let start = self.at;
            let end =
                memchr::memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |i| start + i);
            let line = &self.bytes[start..end];
            let indent = line.iter().take_while(|&&b| b == b' ').count();
            match line.get(indent) {
                None | Some(b'#') => {
                    self.at = end + 1;
                    self.no = self.no.saturating_add(1);
                    continue;
                }
                Some(_) => {}
            }
            if indent == 0 {
                match line {
                    [b'-', b'-', b'-', rest @ ..] if rest.first().is_none_or(|&b| b == b' ') => {
                        // Only a comment may follow the marker here.
                        let rest = rest.trim_ascii_start();
                        if !rest.is_empty() && rest[0] != b'#' {
                            return None;
                        }
                        break Next::DocumentStart(end);
                    }
                    [b'.', b'.', b'.', ..] | [b'%', ..] | [b'-', b'-', b'-', ..] => return None,
                    _ => {}
                }
            }
            break Next::Line(Line {
                start,
                end,
                indent,
                no: self.no,
            });
        };
        self.current = Some(next);
        Some(next)
    }

    /// Moves past the line `peek` returned.
    fn advance(&mut self) {
        let end = match self.current.take() {
            Some(Next::Line(line)) => line.end,
            Some(Next::DocumentStart(end)) => end,
            Some(Next::End) | None => return,
        };
        self.at = end + 1;
        self.no = self.no.saturating_add(1);
    }

    fn pos(&self, line: Line, at: usize) -> Pos {
        Pos {
            file: self.file,
            line: line.no,
            col: u32::try_from(at - line.start).unwrap_or(u32::MAX),
        }
    }

    /// A collection at `depth` (the root's is 1) that starts on `line`.
    fn block(&mut self, line: Line, depth: usize) -> Option<Node> {
        if is_item(self.bytes, line.content(), line.end) {
            self.seq(line.indent, depth, false)
        } else {
            self.map(line, line.content(), depth)
        }
    }

    fn check_depth(&self, depth: usize) -> Option<()> {
        (depth <= MAX_DEPTH && depth <= self.limits.depth).then_some(())
    }

    /// A block map whose first key is at `first` on `line`; its keys are all in that column.
    fn map(&mut self, line: Line, first: usize, depth: usize) -> Option<Node> {
        self.check_depth(depth)?;
        let indent = first - line.start;
        // The entries gather on the shared stack and move into a list of their exact size
        // at the end; a big map's keys are told apart by their hashes.
        let base = self.entries.len();
        let mut hashes: Option<HashSet<u64>> = None;
        let mut key_at = Some((line, first));
        let mut pos = None;
        loop {
            let (line, at) = match key_at.take() {
                Some(first) => first,
                None => match self.peek()? {
                    Next::Line(l) if l.indent == indent => {
                        if is_item(self.bytes, l.content(), l.end) {
                            return None;
                        }
                        (l, l.content())
                    }
                    Next::Line(l) if l.indent > indent => return None,
                    _ => break,
                },
            };
            let key = self.scalar(line, at)?;
            let colon = skip_spaces(self.bytes, key.end, line.end);
            if !is_key_indicator(self.bytes, colon, line.end) || colon - at >= MAX_KEY {
                return None;
            }
            if key.plain && key.text == "<<" {
                return None;
            }
            let key_pos = key.pos;
            pos.get_or_insert(key_pos);
            // A key of the vocabulary reads as a string (key.rs), so its text is the key.
            let name = match Key::known(&key.text) {
                Some(known) => known,
                None => match scalar_value(key) {
                    Value::Str(s) => Key::from(s),
                    other => Key::from(key_text(&other)?),
                },
            };
            let count = self.entries.len() - base;
            let duplicate = match &mut hashes {
                // Two keys of one hash: the event parser decides whether they are the same.
                Some(hashes) => !hashes.insert(self.hasher.hash_one(&name)),
                None => self.entries[base..].iter().any(|(k, _)| *k == name),
            };
            if count >= self.limits.keys || duplicate {
                return None;
            }
            // The entry takes its place before its value is read (a nested collection's
            // entries go above it, and leave before it is filled in).
            self.entries.push((name, Node::new(Value::Null, key_pos)));
            if hashes.is_none() && count + 1 >= HASHED_FROM {
                let keys = self.entries[base..].iter();
                hashes = Some(keys.map(|(k, _)| self.hasher.hash_one(k)).collect());
            }
            let slot = self.entries.len() - 1;
            self.entries[slot].1.value = self.value(line, colon + 1, indent, depth)?;
        }
        let map = Map::from_unique(self.entries.drain(base..).collect());
        Some(Node::new(Value::Map(map), pos?))
    }

    /// The value of a key of a map at `indent`, written from `at` on `line` on.
    fn value(&mut self, line: Line, at: usize, indent: usize, depth: usize) -> Option<Value> {
        let at = skip_spaces(self.bytes, at, line.end);
        if at == line.end || self.bytes[at] == b'#' {
            self.advance();
            return Some(match self.peek()? {
                Next::Line(next) if next.indent > indent => self.block(next, depth + 1)?.value,
                Next::Line(next)
                    if next.indent == indent && is_item(self.bytes, next.content(), next.end) =>
                {
                    self.seq(indent, depth + 1, true)?.value
                }
                _ => Value::Null,
            });
        }
        let value = match self.empty_collection(line, at, depth + 1)? {
            Some(node) => node.value,
            None => {
                let scalar = self.scalar(line, at)?;
                if !at_line_end(self.bytes, scalar.end, line.end) {
                    return None;
                }
                scalar_value(scalar)
            }
        };
        self.end_of_value(indent)?;
        Some(value)
    }

    /// After a value on one line: the next line must not be indented further (it would
    /// continue the scalar, or be an error).
    fn end_of_value(&mut self, indent: usize) -> Option<()> {
        self.advance();
        match self.peek()? {
            Next::Line(next) if next.indent > indent => None,
            _ => Some(()),
        }
    }

    /// A block list whose items start at `indent`; `indentless` when it is the value of a
    /// key in the same column, which ends it at that map's next key.
    fn seq(&mut self, indent: usize, depth: usize, indentless: bool) -> Option<Node> {
        self.check_depth(depth)?;
        let base = self.items.len();
        let mut pos = None;
        loop {
            let line = match self.peek()? {
                Next::Line(l) if l.indent == indent => {
                    if !is_item(self.bytes, l.content(), l.end) {
                        if indentless {
                            break;
                        }
                        return None;
                    }
                    l
                }
                Next::Line(l) if l.indent > indent => return None,
                _ => break,
            };
            let dash = line.content();
            pos.get_or_insert(self.pos(line, dash));
            let at = skip_spaces(self.bytes, dash + 1, line.end);
            let item = if at == line.end || self.bytes[at] == b'#' {
                self.advance();
                match self.peek()? {
                    Next::Line(next) if next.indent > indent => self.block(next, depth + 1)?,
                    // An empty item: the event parser places its null.
                    _ => return None,
                }
            } else if is_item(self.bytes, at, line.end) {
                return None;
            } else if let Some(node) = self.empty_collection(line, at, depth + 1)? {
                self.end_of_value(indent)?;
                node
            } else {
                let scalar = self.scalar(line, at)?;
                if is_key_indicator(self.bytes, scalar.end, line.end) {
                    self.map(line, at, depth + 1)?
                } else {
                    if !at_line_end(self.bytes, scalar.end, line.end) {
                        return None;
                    }
                    let pos = scalar.pos;
                    let node = Node::new(scalar_value(scalar), pos);
                    self.end_of_value(indent)?;
                    node
                }
            };
            self.items.push(item);
        }
        let items = self.items.drain(base..).collect();
        Some(Node::new(Value::Seq(items), pos?))
    }

    /// `[]` or `{}` at `at`, alone on the rest of its line (comments aside): `Some(None)`
    /// when the text there is something else.
    fn empty_collection(&self, line: Line, at: usize, depth: usize) -> Option<Option<Node>> {
        let value = match &self.bytes[at..(at + 2).min(line.end)] {
            b"[]" => Value::Seq(Vec::new()),
            b"{}" => Value::Map(Map::new()),
            _ => return Some(None),
        };
        if !at_line_end(self.bytes, at + 2, line.end) {
            return None;
        }
        self.check_depth(depth)?;
        Some(Some(Node::new(value, self.pos(line, at))))
    }

    /// The scalar that starts at `at` on `line`: plain, single- or double-quoted, on that
    /// line. For a plain scalar, `end` is where its text ends, before spaces.
    fn scalar(&self, line: Line, at: usize) -> Option<Scalar<'a>> {
        let pos = self.pos(line, at);
        let bytes = self.bytes;
        match bytes[at] {
            b'"' => {
                let (text, end) = double_quoted(self.text, at + 1, line.end)?;
                Some(Scalar {
                    text,
                    plain: false,
                    pos,
                    end,
                })
            }
            b'\'' => {
                let (text, end) = single_quoted(self.text, at + 1, line.end)?;
                Some(Scalar {
                    text,
                    plain: false,
                    pos,
                    end,
                })
            }
            b'-' if bytes.get(at + 1).is_some_and(|&b| b != b' ') && at + 1 < line.end => {
                self.plain(line, at, pos)
            }
            b'-' | b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!'
            | b'|' | b'>' | b'%' | b'@' | b'`' => None,
            _ => self.plain(line, at, pos),
        }
    }

    /// A plain scalar: up to `: `, ` #` or the end of the line, without trailing spaces.
    fn plain(&self, line: Line, at: usize, pos: Pos) -> Option<Scalar<'a>> {
        let bytes = self.bytes;
        let mut i = at;
        let mut end = at;
        while i < line.end {
            match bytes[i] {
                b':' if i + 1 == line.end || bytes[i + 1] == b' ' => break,
                b'#' if bytes[i - 1] == b' ' => break,
                b' ' => {}
                _ => end = i + 1,
            }
            i += 1;
        }
        Some(Scalar {
            text: Cow::Borrowed(&self.text[at..end]),
            plain: true,
            pos,
            end: if i < line.end && bytes[i] == b':' {
                i
            } else {
                end
            },
        })
    }
}

fn scalar_value(scalar: Scalar<'_>) -> Value {
    if scalar.plain {
        resolve_plain(scalar.text)
    } else {
        Value::Str(scalar.text.into_owned())
    }
}

/// Whether a list item (`-` then a space or the end of the line) starts at `at`.
fn is_item(bytes: &[u8], at: usize, end: usize) -> bool {
    bytes[at] == b'-' && (at + 1 == end || bytes[at + 1] == b' ')
}

/// Whether the key indicator (`:` then a space or the end of the line) is at `at`, after
/// spaces.
fn is_key_indicator(bytes: &[u8], at: usize, end: usize) -> bool {
    let at = skip_spaces(bytes, at, end);
    at < end && bytes[at] == b':' && (at + 1 == end || bytes[at + 1] == b' ')
}

/// Whether only spaces and a comment follow `at` on the line.
fn at_line_end(bytes: &[u8], at: usize, end: usize) -> bool {
    let next = skip_spaces(bytes, at, end);
    next == end || (bytes[next] == b'#' && next > at)
}

fn skip_spaces(bytes: &[u8], mut at: usize, end: usize) -> usize {
    while at < end && bytes[at] == b' ' {
        at += 1;
    }
    at
}

/// A quoted scalar's text: what escapes made of it so far (`owned`, if any), then
/// `text[from..to]`.
fn unquoted(owned: Option<String>, text: &str, from: usize, to: usize) -> Cow<'_, str> {
    match owned {
        Some(mut s) => {
            s.push_str(&text[from..to]);
            Cow::Owned(s)
        }
        None => Cow::Borrowed(&text[from..to]),
    }
}

/// A single-quoted scalar's text from `at` (after the quote), and where the text after the
/// closing quote starts; `None` when it does not close on the line.
fn single_quoted(text: &str, at: usize, end: usize) -> Option<(Cow<'_, str>, usize)> {
    let bytes = text.as_bytes();
    let mut owned: Option<String> = None;
    let mut from = at;
    let mut i = at;
    while i < end {
        if bytes[i] == b'\'' {
            if i + 1 < end && bytes[i + 1] == b'\'' {
                owned
                    .get_or_insert_with(String::new)
                    .push_str(&text[from..=i]);
                i += 2;
                from = i;
                continue;
            }
            return Some((unquoted(owned, text, from, i), i + 1));
        }
        i += 1;
    }
    None
}

/// A double-quoted scalar's text from `at` (after the quote), with the escapes `\\`, `\"`,
/// `\/`, `\n`, `\t` and `\r`; `None` for any other escape, or when it does not close on the
/// line.
fn double_quoted(text: &str, at: usize, end: usize) -> Option<(Cow<'_, str>, usize)> {
    let bytes = text.as_bytes();
    let mut owned: Option<String> = None;
    let mut from = at;
    let mut i = at;
    while i < end {
        match bytes[i] {
            b'"' => return Some((unquoted(owned, text, from, i), i + 1)),
            b'\\' => {
                let c = match bytes.get(i + 1)? {
                    b'\\' => '\\',
                    b'"' => '"',
                    b'/' => '/',
                    b'n' => '\n',
                    b't' => '\t',
                    b'r' => '\r',
                    _ => return None,
                };
                if i + 1 >= end {
                    return None;
                }
                let s = owned.get_or_insert_with(String::new);
                s.push_str(&text[from..i]);
                s.push(c);
                i += 2;
                from = i;
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::parse::{AliasBudget, check_fast_path, parse_events};
    use super::*;

    /// Whether the fast path takes `text`; when it does, it must read what the event parser
    /// reads (checked as a piece 7 lines into file 2, then as a whole stream).
    fn agrees(text: &str) -> bool {
        let limits = ParseLimits::default();
        let Some((docs, count)) = parse(text, 2, 7, &limits) else {
            return false;
        };
        let budget = AliasBudget::new(u64::MAX, u64::MAX);
        let slow = parse_events(text, 2, 7, &limits, &budget).map(|(d, n)| (flat(d), n));
        assert_eq!(
            Ok((flat(docs), count)),
            slow,
            "fast path and event parser differ on:\n{text}"
        );
        check_fast_path(text, &limits);
        true
    }

    fn flat(docs: Vec<Document>) -> Vec<(usize, Node)> {
        docs.into_iter().map(|d| (d.index, d.root)).collect()
    }

    #[test]
    fn the_subset_reads_as_the_event_parser_reads_it() {
        let cases = [
            "a: 1\n",
            "a: 1",
            r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  labels: {}
data:
  k: "v"
"#,
            "- a\n- b\n",
            "a:\n- x\n- y\nb: 2\n",
            "a:\n  - x\n  -   y # c\n",
            "- name: a\n  image: b:c\n  args:\n  - --x=1\n  - \"2\"\n- name: c\n",
            "-\n  a: 1\n",
            "a: []\nb: {}\nc: [] # x\n",
            "k: 'it''s'\nq: \"a\\\\b\\\"c\\n\\t\\/\"\n",
            "a : b\n\"q k\" : 1\n'p': 2\n",
            "# head\n---\na: 1\n---\n# only a comment\n---\nb: 2\n---\n",
            "---\n---\n",
            "--- # c\na: 1\n",
            "a: 1\n---\n",
            "",
            "# nothing\n\n",
            "n: ~\nt: true\nf: False\ni: 0644\nh: 0x1F\nx: 1e3\ny: .5\nz: 08\ns: 12345678901234567890\nb: yes\n",
            "1: one\ntrue: t\n~: null key\n1.5: f\n",
            "a: b#c\nd: e # f\ng: 'h' #i\nj: x:y\nk: -1\nl: --flag\nm: a,b\nn: a[0]\n",
            "  a: 1\n  b:\n    c: 2\n",
            "a:\n\n  b: 1\n\n\nc: 2\n",
            "a:\n  # between\n  b: 1\n",
            "a:\n  b:\n    c:\n      d: []\n",
            "-a: 1\n-b: -c\n",
            "a: \"\"\nb: ''\n",
            "- # c\n  a: 1\n",
            "a: # c\n  b: 1\n",
            "a:   # c\n- x\n",
            "a:\n    b: 1\n    c:\n    - d\ne: []\n",
            "-   a: 1\n    b: 2\n-  c\n",
            "a:\n  -   x: 1\n      y:\n      - z\n  - w\n",
            "- a:\n    b: 1\n  c: 2\n",
            "k: v   # trailing\n\n\n# end\n",
        ];
        let left: Vec<&str> = cases.into_iter().filter(|case| !agrees(case)).collect();
        assert!(left.is_empty(), "left to the event parser: {left:?}");
    }

    #[test]
    fn text_outside_the_subset_is_left_to_the_event_parser() {
        let limits = ParseLimits::default();
        for text in [
            "a:\tb\n",
            "a: b\r\n",
            "a: é\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: |\n  x\n",
            "a: >\n  x\n",
            "a: [1]\n",
            "a: {b: 1}\n",
            "a: b\n  c\n",
            "a: \"b\n  c\"\n",
            "? a\n: b\n",
            "a: 1\n...\n",
            "%YAML 1.2\n---\na: 1\n",
            "<<: {a: 1}\n",
            "a: 1\na: 2\n",
            "-\n- a\n",
            "- \n",
            "a: \"\\u00e9\"\n",
            "a: b: c\n",
            "a:\n  b: 1\n c: 2\n",
            "just a scalar\n",
            "--- a: 1\n",
            "a: 1\nb\n",
            "a: - b\n",
            "a: 'b'c\n",
            "o: {x\n",
            "- - a\n",
        ] {
            assert!(parse(text, 0, 0, &limits).is_none(), "taken: {text:?}");
        }
    }

    #[test]
    fn limits_are_left_to_the_event_parser() {
        let deep = (0..20).fold(String::new(), |s, i| s + &" ".repeat(i) + "a:\n")
            + &" ".repeat(20)
            + "b: 1\n";
        let limits = ParseLimits {
            depth: 10,
            ..ParseLimits::default()
        };
        assert!(parse(&deep, 0, 0, &limits).is_none());
        assert!(parse(&deep, 0, 0, &ParseLimits::default()).is_some());
        let keys = ParseLimits {
            keys: 2,
            ..ParseLimits::default()
        };
        assert!(parse("a: 1\nb: 2\nc: 3\n", 0, 0, &keys).is_none());
        let documents = ParseLimits {
            documents: 1,
            ..ParseLimits::default()
        };
        assert!(parse("a: 1\n---\nb: 2\n", 0, 0, &documents).is_none());
        let nested =
            (0..=MAX_DEPTH).fold(String::new(), |s, i| s + &" ".repeat(i) + "a:\n") + "x: 1\n";
        assert!(parse(&nested, 0, 0, &ParseLimits::default()).is_none());
    }

    #[test]
    fn only_printable_ascii_and_line_feeds_are_taken() {
        let mut text = vec![b'a'; 10_000];
        text[9_999] = b'\n';
        assert!(printable_ascii(&text));
        for bad in [0u8, b'\t', b'\r', 0x1f, 0x7f, 0x80, 0xff] {
            for at in [0, 4095, 4096, 9_998] {
                let mut t = text.clone();
                t[at] = bad;
                assert!(!printable_ascii(&t), "{bad:#x} at {at}");
            }
        }
        assert!(printable_ascii(b" ~\n"));
    }

    #[test]
    fn keys_near_the_implicit_key_limit_read_as_the_event_parser_reads_them() {
        for n in 1018..1030 {
            let plain = "k".repeat(n);
            let quoted = format!("\"{}\"", "q".repeat(n));
            for key in [plain, quoted] {
                for text in [
                    format!("{key}: v\n"),
                    format!("{key} : v\n"),
                    format!("- {key}: v\n"),
                ] {
                    // Taken or not, never read otherwise than the event parser reads it.
                    agrees(&text);
                }
            }
        }
    }

    #[test]
    fn big_maps_read_as_the_event_parser_reads_them() {
        let keys: String = (0..100).map(|i| format!("k{i}: {i}\n")).collect();
        assert!(agrees(&keys));
        let nested = format!(
            "outer:\n{}",
            keys.lines().map(|l| format!("  {l}\n")).collect::<String>()
        );
        assert!(agrees(&nested));
        // A duplicate past the hashed size is the event parser's to refuse.
        let duplicate = format!("{keys}k77: again\n");
        assert!(parse(&duplicate, 0, 0, &ParseLimits::default()).is_none());
    }

    /// A small deterministic generator (xorshift), so the test needs no seed file.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick<'s>(&mut self, from: &[&'s str]) -> &'s str {
            from[self.below(from.len())]
        }
    }

    /// Text made of the pieces manifests are made of, in random indentation and order, with
    /// the characters that decide where a scalar ends.
    fn generated(rng: &mut Rng) -> String {
        const KEYS: &[&str] = &[
            "a",
            "name",
            "b c",
            "\"q\"",
            "'s'",
            "1",
            "-k",
            "k:x",
            "k#x",
            "true",
            "~",
            "x ",
            "nvidia.com/gpu",
            "a[0]",
            "{k}",
        ];
        const VALUES: &[&str] = &[
            "",
            " 1",
            " x",
            " -1",
            " --flag",
            " a:b",
            " a: b",
            " a #c",
            " a#b",
            " 'q'",
            " 'it''s'",
            " \"d\"",
            " \"e\\\"f\"",
            " \"\\n\"",
            " []",
            " {}",
            " [] #c",
            " [x]",
            " ~",
            " null",
            " 0644",
            " 1.5",
            " 1e3",
            " .inf",
            " a,b",
            " a]",
            " x:",
            " \"\"",
            " ''",
            " - a",
            " |",
            " &a x",
            " 'a'b",
            " \"a\" #c",
            "  spaced  ",
            " 08",
            " -",
            " :x",
            " ?x",
            " @x",
        ];
        let mut text = String::new();
        for _ in 0..rng.below(12) + 1 {
            let indent = " ".repeat(rng.below(5));
            match rng.below(10) {
                0 => text.push_str(&format!(
                    "{indent}- {}{}\n",
                    rng.pick(KEYS),
                    rng.pick(&[":", ""])
                )),
                1 => text.push_str(&format!("{indent}-{}\n", rng.pick(VALUES))),
                2 => text.push_str(rng.pick(&[
                    "---\n",
                    "# c\n",
                    "\n",
                    "  # c\n",
                    "--- # c\n",
                    "-\n",
                ])),
                3 => text.push_str(&format!(
                    "{indent}- {}:{}\n",
                    rng.pick(KEYS),
                    rng.pick(VALUES)
                )),
                _ => text.push_str(&format!(
                    "{indent}{}:{}\n",
                    rng.pick(KEYS),
                    rng.pick(VALUES)
                )),
            }
        }
        if rng.below(4) == 0 {
            text.pop();
        }
        text
    }

    /// A random tree written as block YAML the way people write it: maps and lists nested
    /// with 1 to 4 spaces, lists under a key indented or not, maps opened on an item's line,
    /// the empty collections, comments and blank lines between, scalars of every kind.
    fn written_tree(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
        const SCALARS: &[&str] = &[
            "1",
            "x",
            "-1",
            "--flag=a,b",
            "a:b",
            "a#b",
            "'q'",
            "'it''s'",
            "\"d\"",
            "\"e\\\"f\"",
            "\"\\n\\t\"",
            "[]",
            "{}",
            "~",
            "null",
            "0644",
            "0x1f",
            "1.5",
            "1e3",
            ".inf",
            "true",
            "yes",
            "08",
            "\"\"",
            "''",
            "docker.io/x:v1",
            "$(MODEL_PATH)",
            "a]",
            "a}",
            "x y z",
            "0.0.0.0",
            "+1",
            "1_000",
            "12345678901234567890",
        ];
        const KEYS: &[&str] = &[
            "a",
            "name",
            "b c",
            "\"q k\"",
            "'s'",
            "1",
            "-k",
            "k:x",
            "true",
            "nvidia.com/gpu",
            "x.y/z",
        ];
        let pad = |n: usize| " ".repeat(n);
        let step = rng.below(4) + 1;
        let lead = |rng: &mut Rng, out: &mut String| match rng.below(12) {
            0 => out.push_str(&format!("{}# note\n", pad(rng.below(6)))),
            1 => out.push('\n'),
            _ => {}
        };
        if depth > 5 || rng.below(3) == 0 {
            // A list.
            for _ in 0..rng.below(4) + 1 {
                lead(rng, out);
                out.push_str(&format!("{}-", pad(indent)));
                match rng.below(4) {
                    0 if depth < 6 => {
                        // A map opened on the item's line.
                        let col = indent + 2;
                        out.push(' ');
                        let mut first = String::new();
                        written_map(rng, &mut first, col, depth + 1);
                        out.push_str(first.trim_start_matches(' '));
                    }
                    1 if depth < 6 => {
                        out.push('\n');
                        written_tree(rng, out, indent + step, depth + 1);
                    }
                    _ => out.push_str(&format!(
                        " {}{}\n",
                        rng.pick(SCALARS),
                        rng.pick(&["", "", " # c"])
                    )),
                }
            }
        } else {
            written_map(rng, out, indent, depth);
        }
        fn written_map(rng: &mut Rng, out: &mut String, indent: usize, depth: usize) {
            let pad = |n: usize| " ".repeat(n);
            let mut used = Vec::new();
            for i in 0..rng.below(4) + 1 {
                let key = rng.pick(KEYS);
                if used.contains(&key) {
                    continue;
                }
                used.push(key);
                if i > 0 && rng.below(10) == 0 {
                    out.push_str(&format!("{}# note\n", pad(rng.below(6))));
                }
                out.push_str(&format!("{}{key}:", pad(indent)));
                match rng.below(5) {
                    0 if depth < 6 => {
                        out.push('\n');
                        let step = rng.below(4) + 1;
                        written_tree(rng, out, indent + step, depth + 1);
                    }
                    1 if depth < 6 => {
                        // A list in the key's column.
                        out.push('\n');
                        for _ in 0..rng.below(3) + 1 {
                            out.push_str(&format!("{}- {}\n", pad(indent), rng.pick(SCALARS)));
                        }
                    }
                    2 => out.push_str(rng.pick(&["\n", " # c\n", "   \n"])),
                    _ => out.push_str(&format!(
                        " {}{}\n",
                        rng.pick(SCALARS),
                        rng.pick(&["", "", " # c", "  "])
                    )),
                }
            }
        }
    }

    #[test]
    fn generated_trees_read_as_the_event_parser_reads_them() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let runs = 20_000;
        let mut taken = 0;
        for _ in 0..runs {
            let mut text = String::new();
            for doc in 0..rng.below(3) + 1 {
                if doc > 0 || rng.below(4) == 0 {
                    text.push_str(rng.pick(&["---\n", "--- # c\n", "---\n---\n"]));
                }
                let indent = rng.below(3);
                written_tree(&mut rng, &mut text, indent, 1);
            }
            taken += usize::from(agrees(&text));
        }
        // Every tree the generator writes is in the subset.
        assert_eq!(taken, runs);
    }

    #[test]
    fn generated_text_reads_as_the_event_parser_reads_it() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let runs = 40_000;
        let taken = (0..runs).filter(|_| agrees(&generated(&mut rng))).count();
        // The generator makes text in and out of the subset; enough of it must be in.
        assert!(taken > runs / 20, "the fast path took {taken} of {runs}");
    }
}
