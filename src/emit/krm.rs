//! The KRM function's output (SEMANTICS.md#krm-function): one `config.kubernetes.io/v1`
//! ResourceList on standard output, its `items` the objects in output order, then the items
//! passed through as they came, and its `results`.
//!
//! Each object is already serialised as a YAML document; it becomes an item of the block
//! sequence by prefixing its first line with `- ` and every other non-empty line with two
//! spaces. That keeps every value, literal blocks included (their content moves with their
//! key, and an empty line stays empty).

use super::{Format, bytes};
use crate::rendered::Rendered;
use crate::yaml::Node;
use crate::yaml::emit::write_yaml;
use std::io::{self, Write};

/// Appends one YAML document as an item of a top-level block sequence.
fn push_item(document: &[u8], out: &mut Vec<u8>) {
    let mut first = true;
    for line in document.split_inclusive(|&b| b == b'\n') {
        if first {
            out.extend_from_slice(b"- ");
            first = false;
        } else if line != b"\n" {
            out.extend_from_slice(b"  ");
        }
        out.extend_from_slice(line);
    }
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
}

/// The ResourceList: `objects` (serialised as YAML or not yet), then `opaque` items, then
/// `results` (none: no `results` key).
pub(crate) fn resource_list(objects: &[Rendered], opaque: &[Node], results: &[Node]) -> Vec<u8> {
    let size: usize = objects
        .iter()
        .map(|o| match &o.body {
            crate::rendered::Body::Bytes(b) => b.len() + b.len() / 16,
            crate::rendered::Body::Tree(_) => 2048,
        })
        .sum();
    let mut out = Vec::with_capacity(size + 256);
    out.extend_from_slice(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n");
    if objects.is_empty() && opaque.is_empty() {
        out.extend_from_slice(b"items: []\n");
    } else {
        out.extend_from_slice(b"items:\n");
        for o in objects {
            push_item(&bytes(o, Format::Yaml), &mut out);
        }
        let mut doc = Vec::new();
        for item in opaque {
            doc.clear();
            write_yaml(item, &mut doc);
            push_item(&doc, &mut out);
        }
    }
    if !results.is_empty() {
        out.extend_from_slice(b"results:\n");
        let mut doc = Vec::new();
        for r in results {
            doc.clear();
            write_yaml(r, &mut doc);
            push_item(&doc, &mut out);
        }
    }
    out
}

/// Writes the ResourceList to standard output.
pub(crate) fn write_stdout(list: &[u8]) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(list)?;
    stdout.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;
    use crate::yaml::{Map, Pos, Value};

    #[test]
    fn items_keep_their_values_literal_blocks_included() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  script: |\n    one\n\n      two\n  keep: |+\n    x\n\n\n  list:\n  - 1\n  - nested:\n    - b\n";
        let doc = parse_stream(text, 0).unwrap().remove(0).root;
        let mut serialised = Vec::new();
        write_yaml(&doc, &mut serialised);
        let mut o = Rendered::new(doc.clone(), None, Pos::NONE);
        o.body = crate::rendered::Body::Bytes(serialised);
        let mut result = Map::new();
        result.insert("message", Node::str("a\nmulti-line: message"));
        result.insert("severity", Node::str("warning"));
        let out = resource_list(&[o], &[Node::str("opaque")], &[Node::map(result)]);
        let text = String::from_utf8(out).unwrap();
        let list = parse_stream(&text, 0).unwrap().remove(0).root;
        let items = list.get("items").and_then(Node::as_seq).unwrap();
        assert_eq!(items.len(), 2);
        fn strip(n: &Node) -> Node {
            let value = match &n.value {
                Value::Map(m) => {
                    Value::Map(m.iter().map(|(k, v)| (k.to_string(), strip(v))).collect())
                }
                Value::Seq(s) => Value::Seq(s.iter().map(strip).collect()),
                v => v.clone(),
            };
            Node::made(value)
        }
        assert_eq!(strip(&items[0]), strip(&doc), "{text}");
        assert_eq!(items[1].as_str(), Some("opaque"));
        assert_eq!(
            list.at(&["results"]).and_then(Node::as_seq).unwrap()[0].str_at(&["message"]),
            Some("a\nmulti-line: message")
        );
    }

    #[test]
    fn no_items_is_an_empty_list() {
        let text = String::from_utf8(resource_list(&[], &[], &[])).unwrap();
        assert_eq!(
            text,
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"
        );
    }
}
