//! JSON written as Go's `encoding/json` writes it (`json.Marshal`, `json.MarshalIndent`): the
//! bytes OME hashes and prints must be Go's, escapes included (SEMANTICS.md#go-behaviours).

use crate::yaml::emit::{JsonLeaves, write_json_as};
use crate::yaml::{Node, Value};
use std::io::Write as _;

/// Writes `node` as Go's `encoding/json` does: no spaces, keys in the tree's order, HTML
/// characters and the line and paragraph separators escaped.
pub(crate) fn write_go_json(node: &Node, out: &mut Vec<u8>) {
    write_json_as(
        node,
        out,
        &JsonLeaves {
            string: write_go_string,
            float: |raw, out| out.extend_from_slice(raw.as_bytes()),
        },
    );
}

/// Writes `node` as Go's `json.MarshalIndent(v, "", "  ")` does: one entry per line,
/// two spaces per level, `{}` and `[]` for empty maps and lists, strings escaped as
/// [`write_go_json`] escapes them.
pub(crate) fn write_go_json_indented(node: &Node, level: usize, out: &mut Vec<u8>) {
    let newline = |out: &mut Vec<u8>, level: usize| {
        out.push(b'\n');
        for _ in 0..level {
            out.extend_from_slice(b"  ");
        }
    };
    match &node.value {
        Value::Seq(items) if !items.is_empty() => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, level + 1);
                write_go_json_indented(item, level + 1, out);
            }
            newline(out, level);
            out.push(b']');
        }
        Value::Map(m) if !m.is_empty() => {
            out.push(b'{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, level + 1);
                write_go_string(k, out);
                out.extend_from_slice(b": ");
                write_go_json_indented(v, level + 1, out);
            }
            newline(out, level);
            out.push(b'}');
        }
        _ => write_go_json(node, out),
    }
}

/// A JSON string as Go writes it (Go 1.22 and later: `\b` and `\f` short forms too).
fn write_go_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_string_escapes() {
        let mut out = Vec::new();
        write_go_string("a<b>&c\u{2028}\n\u{1}é", &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#""a\u003cb\u003e\u0026c\u2028\n\u0001é""#
        );
    }
}
