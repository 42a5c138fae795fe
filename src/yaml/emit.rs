//! [`Node`] → bytes: block-style YAML that YAML 1.1 and 1.2 readers read alike, and
//! one-line JSON.
//!
//! The YAML follows kustomize's layout (two-space indent, list items at their key's indent)
//! and quotes every string that some reader could take for something else: `yes`, `on`,
//! `NO`, `~`, `null`, `0755`, `1e3`, `1.0.0`, `2024-01-01`. Floats are written in a form
//! both YAML versions read as a float. Multi-line strings become literal blocks when that
//! round-trips exactly, else double-quoted strings.

use super::node::{Map, Node, Value};
use std::io::Write as _;

/// Appends `node` as one YAML document (no `---`), ending with a newline.
pub(crate) fn write_yaml(node: &Node, out: &mut Vec<u8>) {
    match &node.value {
        Value::Map(m) if !m.is_empty() => write_map_body(m, 0, out),
        Value::Seq(s) if !s.is_empty() => write_seq_body(s, 0, out),
        // A scalar document: never a literal block, whose lines would start at column 0,
        // where `---` and `...` end the document.
        Value::Str(text) => {
            write_string(text, out);
            out.push(b'\n');
        }
        _ => {
            write_inline(node, 0, out);
            out.push(b'\n');
        }
    }
}

/// Appends `node` as an item of a block sequence at the first column (`- ` and the node),
/// ending with a newline: a ResourceList's item.
pub(crate) fn write_yaml_item(node: &Node, out: &mut Vec<u8>) {
    write_seq_body(std::slice::from_ref(node), 0, out);
}

/// The node as a YAML document in a string.
#[cfg(test)]
pub(crate) fn to_yaml_string(node: &Node) -> String {
    let mut out = Vec::new();
    write_yaml(node, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

const SPACES: &[u8] = &[b' '; 256];

fn indent(out: &mut Vec<u8>, n: usize) {
    let mut n = n;
    while n > 0 {
        let k = n.min(SPACES.len());
        out.extend_from_slice(&SPACES[..k]);
        n -= k;
    }
}

/// Map entries, each on its own line at `ind`. The first line's indent is assumed written
/// when `first_written` is set (a map inside a list item starts after `- `).
fn write_map_entries(m: &Map, ind: usize, out: &mut Vec<u8>, first_written: bool) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 || !first_written {
            indent(out, ind);
        }
        let key_start = out.len();
        write_string(k, out);
        if out.len() - key_start > IMPLICIT_KEY_MAX {
            out.truncate(key_start);
            out.extend_from_slice(b"? ");
            write_string(k, out);
            write_explicit_value(v, ind, out);
        } else {
            out.push(b':');
            write_value_after_key(v, ind, out);
        }
    }
}

/// YAML readers take a key written `key: value` only when it is at most 1,024 characters
/// long (counted in bytes here, to be safe); a longer key is written `? key` with its value
/// on the next line after `:`.
const IMPLICIT_KEY_MAX: usize = 1000;

/// The rest of an entry whose key was written after `? `: its value after `:` on the next
/// line at `ind`, nested collections indented below it.
fn write_explicit_value(v: &Node, ind: usize, out: &mut Vec<u8>) {
    out.push(b'\n');
    indent(out, ind);
    out.push(b':');
    match &v.value {
        Value::Map(m) if !m.is_empty() => {
            out.push(b'\n');
            write_map_body(m, ind + 2, out);
        }
        Value::Seq(s) if !s.is_empty() => {
            out.push(b'\n');
            write_seq_body(s, ind + 2, out);
        }
        _ => {
            out.push(b' ');
            write_inline(v, ind + 2, out);
            out.push(b'\n');
        }
    }
}

fn write_map_body(m: &Map, ind: usize, out: &mut Vec<u8>) {
    write_map_entries(m, ind, out, false);
}

fn write_seq_body(items: &[Node], ind: usize, out: &mut Vec<u8>) {
    for item in items {
        indent(out, ind);
        write_seq_item(item, ind, out);
    }
}

/// One list item whose `- ` starts at `ind` (the indent is already written).
fn write_seq_item(item: &Node, ind: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(b"- ");
    match &item.value {
        Value::Map(m) if !m.is_empty() => write_map_entries(m, ind + 2, out, true),
        Value::Seq(s) if !s.is_empty() => {
            for (i, inner) in s.iter().enumerate() {
                if i > 0 {
                    indent(out, ind + 2);
                }
                write_seq_item(inner, ind + 2, out);
            }
        }
        _ => {
            write_inline(item, ind + 2, out);
            out.push(b'\n');
        }
    }
}

/// What follows `key:`: a nested block on the next lines, or ` value` on this line.
fn write_value_after_key(v: &Node, ind: usize, out: &mut Vec<u8>) {
    match &v.value {
        Value::Map(m) if !m.is_empty() => {
            out.push(b'\n');
            write_map_body(m, ind + 2, out);
        }
        Value::Seq(s) if !s.is_empty() => {
            out.push(b'\n');
            write_seq_body(s, ind, out);
        }
        _ => {
            out.push(b' ');
            write_inline(v, ind + 2, out);
            out.push(b'\n');
        }
    }
}

/// A scalar or an empty collection on the current line. `block_ind` is the indent of a
/// literal block's content lines.
fn write_inline(v: &Node, block_ind: usize, out: &mut Vec<u8>) {
    match &v.value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(raw) => out.extend_from_slice(yaml_float(raw).as_bytes()),
        Value::Str(s) => {
            if literal_block_ok(s) {
                write_literal(s, block_ind, out);
            } else {
                write_string(s, out);
            }
        }
        Value::Map(_) => out.extend_from_slice(b"{}"),
        Value::Seq(_) => out.extend_from_slice(b"[]"),
    }
}

/// A scalar (or an empty collection) as it follows `key: ` on one line: quoted when a reader
/// could take it for something else; a multi-line string double-quoted.
pub(crate) fn inline_scalar(node: &Node) -> String {
    let mut out = Vec::new();
    match &node.value {
        Value::Str(s) => write_string(s, &mut out),
        _ => write_inline(node, 0, &mut out),
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A string on one line: plain when every reader takes it for this string, else quoted.
fn write_string(s: &str, out: &mut Vec<u8>) {
    if plain_ok(s) {
        out.extend_from_slice(s.as_bytes());
    } else {
        write_double_quoted(s, out);
    }
}

fn write_double_quoted(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\t' => Some("\\t"),
            '\r' => Some("\\r"),
            _ => None,
        };
        let needs_code = escape.is_none() && needs_unicode_escape(c);
        if escape.is_some() || needs_code {
            out.extend_from_slice(&s.as_bytes()[start..i]);
            match escape {
                Some(e) => out.extend_from_slice(e.as_bytes()),
                None => {
                    let _ = write!(out, "\\u{:04X}", c as u32);
                }
            }
            start = i + c.len_utf8();
        }
    }
    out.extend_from_slice(&s.as_bytes()[start..]);
    out.push(b'"');
}

/// Characters a YAML stream must not carry raw: controls, DEL, the C1 range, line and
/// paragraph separators, the byte-order mark and non-characters.
fn needs_unicode_escape(c: char) -> bool {
    let u = c as u32;
    u < 0x20
        || (0x7f..=0x9f).contains(&u)
        || matches!(u, 0x2028 | 0x2029 | 0xfeff | 0xfffe | 0xffff)
}

/// `|`, `|-` or `|+` content at `ind`: used only when the block reads back as the same
/// string in every YAML reader.
fn literal_block_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.starts_with([' ', '\n'])
        && !s
            .chars()
            .any(|c| c != '\n' && c != '\t' && needs_unicode_escape(c))
        && s.split('\n').all(|line| !line.ends_with([' ', '\t']))
        && s.split('\n').all(|line| !line.starts_with('\t'))
}

fn write_literal(s: &str, ind: usize, out: &mut Vec<u8>) {
    let body = s.trim_end_matches('\n');
    let trailing = s.len() - body.len();
    out.extend_from_slice(match trailing {
        0 => b"|-",
        1 => b"|",
        _ => b"|+",
    });
    for line in s[..s.len() - trailing.min(1)].split('\n') {
        out.push(b'\n');
        if !line.is_empty() {
            indent(out, ind);
            out.extend_from_slice(line.as_bytes());
        }
    }
}

/// The words YAML 1.1 reads as booleans or null (in lower, Title or UPPER case), and `~`,
/// `=`, `<<`.
#[cfg(test)]
const YAML11_WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
    "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~", "=",
    "<<",
];

/// Whether `s` is one of the [`YAML11_WORDS`], without comparing it with each.
fn is_yaml11_word(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 5 {
        return false;
    }
    if matches!(b, b"~" | b"=" | b"<<") {
        return true;
    }
    let mut lower = [0u8; 5];
    for (l, c) in lower.iter_mut().zip(b) {
        *l = c.to_ascii_lowercase();
    }
    if !matches!(
        &lower[..b.len()],
        b"y" | b"yes" | b"n" | b"no" | b"true" | b"false" | b"on" | b"off" | b"null"
    ) {
        return false;
    }
    let rest = &b[1..];
    rest.iter().all(u8::is_ascii_lowercase)
        || (b[0].is_ascii_uppercase() && rest.iter().all(u8::is_ascii_uppercase))
}

/// Whether `s` can be written unquoted and still read back as this string by YAML 1.1
/// readers (kubectl, PyYAML) and YAML 1.2 readers alike. One pass over the bytes: this runs
/// for every key and string the renderer writes.
pub(crate) fn plain_ok(s: &str) -> bool {
    let bytes = s.as_bytes();
    let (Some(&first), Some(last)) = (bytes.first(), s.chars().next_back()) else {
        return false;
    };
    if is_yaml11_word(s) {
        return false;
    }
    match first {
        // `---` and `...` start and end documents when a line starts with them (a key at the
        // top level, a scalar document).
        b'-' | b'.' if bytes.len() >= 3 && bytes[1] == first && bytes[2] == first => return false,
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
        | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' => return false,
        b'-' if bytes.len() == 1 || bytes[1] == b' ' => return false,
        _ => {}
    }
    if first == b' ' || last == ':' || last.is_whitespace() {
        return false;
    }
    let mut ascii = true;
    let mut prev = 0u8;
    for &b in bytes {
        match b {
            // Controls (tab included) and DEL are escaped.
            0..=0x1f | 0x7f => return false,
            b' ' if prev == b':' => return false,
            b'#' if prev == b' ' => return false,
            0x80.. => ascii = false,
            _ => {}
        }
        prev = b;
    }
    if !ascii
        && (s.chars().next().is_some_and(char::is_whitespace)
            || s.chars().any(needs_unicode_escape))
    {
        return false;
    }
    !looks_like_number_or_date(s)
}

/// Numbers, timestamps and sexagesimals of YAML 1.1 or 1.2: a string made only of the
/// characters such forms use, starting with a digit (or a sign or dot before a digit).
fn looks_like_number_or_date(s: &str) -> bool {
    let b = s.as_bytes();
    if matches!(b.first(), Some(b'.' | b'-' | b'+'))
        && [".inf", "-.inf", "+.inf", ".nan"]
            .iter()
            .any(|w| s.eq_ignore_ascii_case(w))
    {
        return true;
    }
    let starts_numeric = b[0].is_ascii_digit()
        || (matches!(b[0], b'-' | b'+' | b'.')
            && b.get(1).is_some_and(|c| c.is_ascii_digit() || *c == b'.'));
    starts_numeric
        && b.iter().all(|c| {
            c.is_ascii_hexdigit()
                || matches!(
                    c,
                    b'x' | b'X'
                        | b'o'
                        | b'O'
                        | b'_'
                        | b'.'
                        | b':'
                        | b'+'
                        | b'-'
                        | b't'
                        | b'T'
                        | b'z'
                        | b'Z'
                        | b' '
                )
        })
}

/// A float as written when both YAML versions read it as a float, else rewritten.
fn yaml_float(raw: &str) -> String {
    if is_yaml11_float(raw) && super::scalar::is_float(raw) {
        return raw.to_string();
    }
    let lower = raw.to_ascii_lowercase();
    match lower.trim_start_matches('+') {
        ".inf" => return ".inf".into(),
        "-.inf" => return "-.inf".into(),
        ".nan" => return ".nan".into(),
        _ => {}
    }
    match raw.parse::<f64>() {
        Ok(x) => format_float(x),
        Err(_) => format!("\"{raw}\""),
    }
}

/// PyYAML's YAML 1.1 float forms: `[-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?` and
/// `[-+]?\.[0-9_]+([eE][-+][0-9]+)?` (without underscores here).
fn is_yaml11_float(raw: &str) -> bool {
    let body = raw.strip_prefix(['-', '+']).unwrap_or(raw);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let Some((int, frac)) = mantissa.split_once('.') else {
        return false;
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && (!int.is_empty() || !frac.is_empty());
    let exponent_ok =
        exponent.is_none_or(|e| e.len() > 1 && e.starts_with(['-', '+']) && digits(&e[1..]));
    mantissa_ok && exponent_ok
}

fn format_float(x: f64) -> String {
    if x.is_nan() {
        return ".nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    let a = x.abs();
    if a == 0.0 || (1e-5..1e16).contains(&a) {
        let s = format!("{x}");
        if s.contains('.') { s } else { format!("{s}.0") }
    } else {
        let s = format!("{x:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') {
            m.to_string()
        } else {
            format!("{m}.0")
        };
        let e = if e.starts_with('-') {
            e.to_string()
        } else {
            format!("+{e}")
        };
        format!("{m}e{e}")
    }
}

/// Appends `node` as one line of JSON, with a newline.
pub(crate) fn write_json_line(node: &Node, out: &mut Vec<u8>) {
    write_json(node, out);
    out.push(b'\n');
}

/// Writes `node` as compact JSON: keys in the tree's order, strings with JSON's escapes, a
/// float as written when JSON can read it so, else as Rust prints it (a non-finite one as a
/// string).
pub(crate) fn write_json(node: &Node, out: &mut Vec<u8>) {
    write_json_as(
        node,
        out,
        &JsonLeaves {
            string: write_json_string,
            float: write_json_float,
        },
    );
}

/// How a JSON dialect writes the leaves dialects differ in: strings (their escapes) and
/// floats. Go's `encoding/json` is one (`go::encode`), plain JSON the other.
pub(crate) struct JsonLeaves {
    pub(crate) string: fn(&str, &mut Vec<u8>),
    pub(crate) float: fn(&str, &mut Vec<u8>),
}

/// Writes `node` as compact JSON, its strings and floats as `leaves` writes them.
pub(crate) fn write_json_as(node: &Node, out: &mut Vec<u8>, leaves: &JsonLeaves) {
    match &node.value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(raw) => (leaves.float)(raw, out),
        Value::Str(s) => (leaves.string)(s, out),
        Value::Seq(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json_as(item, out, leaves);
            }
            out.push(b']');
        }
        Value::Map(m) => {
            out.push(b'{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                (leaves.string)(k, out);
                out.push(b':');
                write_json_as(v, out, leaves);
            }
            out.push(b'}');
        }
    }
}

fn write_json_float(raw: &str, out: &mut Vec<u8>) {
    match raw.parse::<f64>() {
        Ok(x) if x.is_finite() => {
            if is_json_number(raw) {
                out.extend_from_slice(raw.as_bytes());
            } else {
                let _ = write!(out, "{x:?}");
            }
        }
        _ => write_json_string(raw, out),
    }
}

/// The node as compact JSON text.
pub(crate) fn to_json_string(node: &Node) -> String {
    let mut out = Vec::new();
    write_json(node, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn is_json_number(raw: &str) -> bool {
    let body = raw.strip_prefix('-').unwrap_or(raw);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    digits(int)
        && (int == "0" || !int.starts_with('0'))
        && frac.is_none_or(digits)
        && exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)))
}

pub(crate) fn write_json_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\t' => Some(b"\\t"),
            b'\r' => Some(b"\\r"),
            _ => None,
        };
        if escape.is_some() || b < 0x20 {
            out.extend_from_slice(&s.as_bytes()[start..i]);
            match escape {
                Some(e) => out.extend_from_slice(e),
                None => {
                    let _ = write!(out, "\\u{b:04x}");
                }
            }
            start = i + 1;
        }
    }
    out.extend_from_slice(&s.as_bytes()[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map;
    use crate::yaml::parse::parse_stream;

    fn yaml(node: &Node) -> String {
        to_yaml_string(node)
    }

    #[test]
    fn layout_follows_kustomize() {
        let node = Node::map(map! {
            "apiVersion" => Node::str("v1"),
            "metadata" => Node::map(map! { "name" => Node::str("x"), "labels" => Node::map(Map::new()) }),
            "list" => Node::seq(vec![
                Node::map(map! { "name" => Node::str("a"), "value" => Node::str("1") }),
                Node::str("--port=8080"),
                Node::seq(vec![Node::int(1), Node::int(2)]),
            ]),
            "empty" => Node::seq(vec![]),
        });
        assert_eq!(
            yaml(&node),
            r#"apiVersion: v1
metadata:
  name: x
  labels: {}
list:
- name: a
  value: "1"
- --port=8080
- - 1
  - 2
empty: []
"#
        );
    }

    #[test]
    fn ambiguous_strings_are_quoted() {
        for s in [
            "yes",
            "on",
            "NO",
            "y",
            "off",
            "~",
            "null",
            "",
            "0755",
            "1e3",
            "1.0.0",
            "10",
            "-1",
            ".5",
            "2024-01-01",
            "1:20",
            "0x1F",
            ".inf",
            "=",
            "<<",
            " a",
            "a ",
            "- a",
            "-",
            "---",
            "--- a",
            "---3",
            "...",
            "... .null",
            "a: b",
            "a #b",
            "a:",
            "#x",
            "*x",
            "&x",
            "!x",
            "@x",
            "%x",
            "[x",
            "{x",
            "'x",
            "\"x",
            "|x",
            ">x",
            "tab\there",
            "?x",
        ] {
            assert!(!plain_ok(s), "{s:?} must be quoted");
        }
        for s in [
            "30Gi",
            "100m",
            "nvidia.com/gpu",
            "--host=0.0.0.0",
            "$(MODEL_PATH)",
            "v1",
            "python3",
            "a:b",
            "a#b",
            "http://x:8080/p",
            "ome-container",
            "Yes please",
        ] {
            assert!(plain_ok(s), "{s:?} can be plain");
        }
    }

    /// `plain_ok` as first written, several passes and an allocation: the one-pass version
    /// must agree with it on every string.
    fn plain_ok_reference(s: &str) -> bool {
        let bytes = s.as_bytes();
        let Some(&first) = bytes.first() else {
            return false;
        };
        if s.trim() != s || YAML11_WORDS.contains(&s) {
            return false;
        }
        if s.starts_with("---") || s.starts_with("...") {
            return false;
        }
        match first {
            b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
            | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' => return false,
            b'-' if bytes.len() == 1 || bytes[1] == b' ' => return false,
            _ => {}
        }
        if s.contains(": ") || s.contains(" #") || s.ends_with(':') {
            return false;
        }
        if s.chars().any(|c| c == '\t' || needs_unicode_escape(c)) {
            return false;
        }
        let lower = s.to_ascii_lowercase();
        if matches!(lower.as_str(), ".inf" | "-.inf" | "+.inf" | ".nan") {
            return false;
        }
        !looks_like_number_or_date(s)
    }

    #[test]
    fn yaml11_words_are_exactly_the_list() {
        let mut all = Vec::new();
        for a in [
            "", "y", "Y", "n", "o", "O", "t", "T", "~", "<", "=", "e", "E", "s", "S", "u", "U",
            "l", "L", "f", "F", "r", "R", "a", "A", "N",
        ] {
            all.push(a.to_string());
        }
        for w in YAML11_WORDS {
            let lower = w.to_ascii_lowercase();
            all.push(lower.clone());
            for i in 0..lower.len() {
                let mut v: Vec<char> = lower.chars().collect();
                v[i] = v[i].to_ascii_uppercase();
                all.push(v.iter().collect());
            }
            all.push(lower.to_ascii_uppercase());
            all.push(format!("{w}x"));
        }
        for s in all {
            assert_eq!(
                is_yaml11_word(&s),
                YAML11_WORDS.contains(&s.as_str()),
                "{s:?}"
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn plain_ok_agrees_with_its_reference(
            s in "[ -~\t\u{80}-\u{a0}\u{2028}\u{feff}\u{3000}é]{0,8}|[0-9a-zA-Z.:+# -]{0,8}"
        ) {
            proptest::prop_assert_eq!(plain_ok(&s), plain_ok_reference(&s), "{:?}", s);
        }
    }

    #[test]
    fn strings_round_trip_through_our_reader() {
        let cases = [
            "yes",
            "0755",
            "line1\nline2\n",
            "line1\nline2",
            "trailing\n\n",
            "a\"b\\c",
            "tab\tin",
            "\u{7}bell",
            " lead\nx",
            "x \ny",
            "é ü 中文",
            "\u{2028}",
        ];
        for s in cases {
            let node = Node::map(map! { "k" => Node::str(s) });
            let text = yaml(&node);
            let back = parse_stream(&text, 0).unwrap().remove(0).root;
            assert_eq!(back.str_at(&["k"]), Some(s), "{text}");
        }
    }

    #[test]
    fn literal_blocks_for_multiline_text() {
        let node = Node::map(map! { "script" => Node::str("set -e\necho hi\n") });
        assert_eq!(yaml(&node), "script: |\n  set -e\n  echo hi\n");
        let item = Node::seq(vec![Node::str("a\nb")]);
        assert_eq!(
            yaml(&Node::map(map! { "l" => item })),
            "l:\n- |-\n  a\n  b\n"
        );
    }

    #[test]
    fn floats_are_written_for_yaml_11_readers() {
        assert_eq!(yaml_float("0.5"), "0.5");
        assert_eq!(yaml_float("1.10"), "1.10");
        assert_eq!(yaml_float("1e3"), "1000.0");
        assert_eq!(yaml_float("1.5E3"), "1500.0");
        assert_eq!(yaml_float("1.0e+3"), "1.0e+3");
        assert_eq!(yaml_float("1e300"), "1.0e+300");
        assert_eq!(yaml_float(".Inf"), ".inf");
    }

    #[test]
    fn json_lines() {
        let node = Node::map(map! {
            "a" => Node::str("x\"y\n"),
            "b" => Node::seq(vec![Node::int(1), Node::bool(true), Node::made(Value::Null)]),
            "f" => Node::made(Value::Float(".5".into())),
        });
        let mut out = Vec::new();
        write_json_line(&node, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"a\":\"x\\\"y\\n\",\"b\":[1,true,null],\"f\":0.5}\n"
        );
    }

    /// Found by fuzzing: a key or a scalar document starting with `---` or `...` ended the
    /// document, and a multi-line scalar document was a literal block at column 0.
    #[test]
    fn document_markers_never_start_a_line() {
        for text in ["--- a", "... b", "---", "line\n... x\n--- y"] {
            let as_key = Node::map(map! { text => Node::int(1) });
            let as_document = Node::str(text);
            for node in [as_key, as_document] {
                let yaml = to_yaml_string(&node);
                let docs = parse_stream(&yaml, 0).unwrap_or_else(|e| panic!("{e:?}\n{yaml}"));
                assert_eq!(docs.len(), 1, "{yaml}");
                assert_eq!(
                    to_json_string(&docs[0].root),
                    to_json_string(&node),
                    "{yaml}"
                );
            }
        }
    }
}
