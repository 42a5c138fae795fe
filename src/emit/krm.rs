//! The KRM function's output (SEMANTICS.md#krm-function): one `config.kubernetes.io/v1`
//! ResourceList on standard output, its `items` the objects in output order, then the items
//! passed through as they came, and its `results`.
//!
//! The pipeline serialises each object as a ResourceList item already
//! ([`Format::ResourceListItem`], in its render task), so the list is written by
//! concatenation, streamed to standard output.

use super::{Format, bytes};
use crate::rendered::Rendered;
use crate::yaml::Node;
use crate::yaml::emit::write_yaml_item;
use std::io::{self, Write};

/// Writes the ResourceList: `objects`, then `opaque` items, then `results` (none: no
/// `results` key).
fn write_list(
    objects: &[Rendered],
    opaque: &[Node],
    results: &[Node],
    out: &mut impl Write,
) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 20, out);
    w.write_all(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n")?;
    if objects.is_empty() && opaque.is_empty() {
        w.write_all(b"items: []\n")?;
    } else {
        w.write_all(b"items:\n")?;
        for o in objects {
            w.write_all(&bytes(o, Format::ResourceListItem))?;
        }
        let mut item = Vec::new();
        for node in opaque {
            item.clear();
            write_yaml_item(node, &mut item);
            w.write_all(&item)?;
        }
    }
    if !results.is_empty() {
        w.write_all(b"results:\n")?;
        let mut item = Vec::new();
        for r in results {
            item.clear();
            write_yaml_item(r, &mut item);
            w.write_all(&item)?;
        }
    }
    w.flush()
}

/// Writes the ResourceList to standard output.
pub(crate) fn write_stdout(
    objects: &[Rendered],
    opaque: &[Node],
    results: &[Node],
) -> io::Result<()> {
    write_list(objects, opaque, results, &mut io::stdout().lock())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;
    use crate::yaml::{Map, Pos, Value};

    #[test]
    fn items_keep_their_values_literal_blocks_included() {
        let text = r"apiVersion: v1
kind: ConfigMap
metadata:
  name: a
data:
  script: |
    one

      two
  keep: |+
    x


  list:
  - 1
  - nested:
    - b
";
        let doc = parse_stream(text, 0).unwrap().remove(0).root;
        let mut o = Rendered::new(doc.clone(), None, Pos::NONE);
        crate::emit::serialise(&mut o, Format::ResourceListItem);
        let mut result = Map::new();
        result.insert("message", Node::str("a\nmulti-line: message"));
        result.insert("severity", Node::str("warning"));
        let mut out = Vec::new();
        write_list(&[o], &[Node::str("opaque")], &[Node::map(result)], &mut out).unwrap();
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
        let mut out = Vec::new();
        write_list(&[], &[], &[], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
"
        );
    }
}
