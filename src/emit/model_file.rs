//! `model-metadata`'s output: the spec patch on standard output, or the fields merged into
//! a model manifest (`--write FILE`, SEMANTICS.md#choice-model-metadata-write).
//!
//! A manifest in a GitOps repository is reviewed as text, so `--write` does not
//! re-serialise it: the fields the model doesn't set are inserted as lines right under its
//! `spec:` key, at the indentation of the spec's first field, and every other byte of the
//! file (comments, quoting, order, line endings, other documents) stays as it was. The
//! result is parsed again and must hold the same documents with only those fields added;
//! anything else (a flow-style `spec: {…}`, an alias to the spec, …) is refused rather than
//! written.

use super::{Format, write_tree};
use crate::modelmeta::{ModelMetadata, fill_spec};
use crate::yaml::parse::parse_stream;
use crate::yaml::{Map, Node, Pos, Value};
use std::io::{self, Write};
use std::path::Path;

/// `node` as one YAML document.
fn yaml(node: &Node) -> String {
    let mut out = Vec::new();
    write_tree(node, Format::Yaml, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes the patch (`modelmeta::patch`) to standard output as YAML.
pub(crate) fn print_patch(patch: &Node) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(yaml(patch).as_bytes())?;
    out.flush()
}

/// The merged manifest.
#[derive(Debug, PartialEq)]
pub(crate) struct Merged {
    /// The new text of the file; the old one when nothing is added.
    pub(crate) text: String,
    /// The fields added, in OME's order.
    pub(crate) added: Vec<&'static str>,
    /// Fields the file has as `null`: OME's agent would fill them, but the text can't take
    /// the key twice, so they are left alone.
    pub(crate) null: Vec<&'static str>,
}

/// Merges the fields OME's agent would write for `meta` into the model `object` of the
/// manifest `text` (file index `file`), or says why it can't.
pub(crate) fn merge(
    text: &str,
    file: u32,
    object: &Node,
    meta: &ModelMetadata,
) -> Result<Merged, String> {
    let spec_node = object
        .get("spec")
        .ok_or("the model has no `spec:`; write its `spec:` (with `storage:`) first")?;
    let spec = spec_node.as_map().filter(|m| !m.is_empty()).ok_or(
        "the model's `spec:` is no mapping with fields; write its fields (with `storage:`) in block style first",
    )?;
    let mut want = spec.clone();
    let filled = fill_spec(&mut want, meta);
    let (null, added): (Vec<&'static str>, Vec<&'static str>) =
        filled.into_iter().partition(|k| spec.contains_key(k));
    for key in &null {
        if let Some(node) = spec.get(key) {
            want.insert(*key, node.clone());
        }
    }
    if added.is_empty() {
        return Ok(Merged {
            text: text.to_string(),
            added,
            null,
        });
    }
    let block: Map = added
        .iter()
        .filter_map(|k| want.get(k).map(|v| ((*k).to_string(), v.clone())))
        .collect();
    let block = yaml(&Node::map(block));

    let not_block = "the model's `spec:` is not in block style (one field per line under `spec:`)";
    let first = spec.iter().next().map(|(_, n)| n.pos).ok_or(not_block)?;
    let spec_line = spec_node.pos.line as usize;
    if first.line as usize <= spec_line {
        return Err(not_block.to_string());
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let child = lines.get(first.line as usize - 1).ok_or(not_block)?;
    let col = first.col as usize;
    if child.len() < col || !child.as_bytes()[..col].iter().all(|b| *b == b' ') {
        return Err(not_block.to_string());
    }
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut inserted = String::new();
    for line in block.lines() {
        if !line.is_empty() {
            inserted.push_str(&" ".repeat(col));
            inserted.push_str(line);
        }
        inserted.push_str(newline);
    }
    let mut out = String::with_capacity(text.len() + inserted.len());
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        if i + 1 == spec_line {
            out.push_str(&inserted);
        }
    }
    verify(text, &out, file, object.pos, &want)?;
    Ok(Merged {
        text: out,
        added,
        null,
    })
}

/// The merged text holds the same documents as the old one, except that the target
/// object's spec is `want`.
fn verify(old: &str, new: &str, file: u32, target: Pos, want: &Map) -> Result<(), String> {
    let refused = "the fields could not be inserted as lines without changing something else";
    let old_docs = parse_stream(old, file).map_err(|e| e.message)?;
    let new_docs = parse_stream(new, file).map_err(|_| refused)?;
    let same = old_docs.len() == new_docs.len()
        && old_docs
            .iter()
            .zip(&new_docs)
            .all(|(o, n)| o.index == n.index && matches(&o.root, &n.root, false, target, want));
    if same {
        Ok(())
    } else {
        Err(refused.to_string())
    }
}

/// Whether `new` equals `old` (positions and key order aside), with the spec of the object
/// at `target` replaced by `want`. An object is the root of a document or an item of a
/// list, never the value of a key (which shares its key's position).
fn matches(old: &Node, new: &Node, is_value: bool, target: Pos, want: &Map) -> bool {
    match (&old.value, &new.value) {
        (Value::Map(a), Value::Map(b)) if !is_value && old.pos == target => {
            a.len() == b.len()
                && a.iter().all(|(k, v)| match (k, b.get(k)) {
                    ("spec", Some(w)) => w.as_map().is_some_and(|w| same_map(want, w)),
                    (_, Some(w)) => matches(v, w, true, target, want),
                    (_, None) => false,
                })
        }
        (Value::Map(a), Value::Map(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| matches(v, w, true, target, want)))
        }
        (Value::Seq(a), Value::Seq(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(v, w)| matches(v, w, false, target, want))
        }
        (a, b) => a == b,
    }
}

fn same_map(a: &Map, b: &Map) -> bool {
    let none = Pos::NONE;
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| matches(v, w, true, none, a)))
}

/// Replaces the file at `path` (a link is followed to the file it names) with `text`,
/// atomically: written beside it with the same permissions, then renamed over it.
pub(crate) fn replace(path: &Path, text: &str) -> Result<(), String> {
    let fail = |what: &str, p: &Path, e: io::Error| format!("{what} {}: {e}", p.display());
    let target = std::fs::canonicalize(path).map_err(|e| fail("cannot write", path, e))?;
    let permissions = std::fs::metadata(&target)
        .map_err(|e| fail("cannot write", path, e))?
        .permissions();
    let (parent, base) = super::parent_and_base(&target);
    let staging = parent.join(format!(
        ".{base}.ome-render-new-{}",
        super::staging_suffix()
    ));
    use std::os::unix::fs::OpenOptionsExt as _;
    // Created new, never through a link planted at its name.
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits().cast_signed())
        .open(&staging)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| std::fs::set_permissions(&staging, permissions))
        .map_err(|e| fail("cannot write", &staging, e));
    let moved = written.and_then(|()| {
        std::fs::rename(&staging, &target).map_err(|e| fail("cannot move into place", path, e))
    });
    if moved.is_err() {
        let _ = std::fs::remove_file(&staging);
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modelmeta::{JsonFile, SnapshotFiles, derive};

    fn llama_metadata() -> ModelMetadata {
        let config = r#"{"architectures": ["LlamaForCausalLM"], "model_type": "llama",
            "hidden_size": 2048, "num_hidden_layers": 16, "vocab_size": 128256,
            "max_position_embeddings": 131072, "transformers_version": "4.45.0.dev0"}"#;
        let files = SnapshotFiles {
            root: "snap".to_string(),
            config: Some(JsonFile {
                path: "snap/config.json".to_string(),
                file: 0,
                text: std::sync::Arc::from(config),
            }),
            ..SnapshotFiles::default()
        };
        derive(&files).metadata.expect("metadata")
    }

    fn model(text: &str) -> Node {
        parse_stream(text, 0)
            .unwrap()
            .into_iter()
            .find(|d| d.root.get("kind").and_then(Node::as_str) == Some("ClusterBaseModel"))
            .unwrap()
            .root
    }

    const FILE: &str = "\
# The model, reviewed in Git.
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: llama   # short name
spec:  # what OME serves
  # Set by hand: the agent must not change it.
  modelArchitecture: Mine
  storage:
    storageUri: hf://meta-llama/Llama-3.2-1B   # public
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
";

    #[test]
    fn inserts_the_missing_fields_under_spec_and_keeps_every_other_byte() {
        let m = llama_metadata();
        let merged = merge(FILE, 0, &model(FILE), &m).unwrap();
        assert!(!merged.added.contains(&"modelArchitecture"));
        assert_eq!(merged.added[0], "modelType");
        assert!(merged.null.is_empty());
        let (head, tail) = FILE.split_at(FILE.find("  # Set by hand").unwrap());
        assert!(merged.text.starts_with(head), "{}", merged.text);
        assert!(merged.text.ends_with(tail), "{}", merged.text);
        let inserted = &merged.text[head.len()..merged.text.len() - tail.len()];
        assert!(
            inserted.starts_with("  modelType: llama\n  modelFramework:\n    name: transformers\n"),
            "{inserted}"
        );
        assert!(
            inserted.contains("\n  modelCapabilities:\n  - TEXT_TO_TEXT\n"),
            "{inserted}"
        );
        assert!(inserted.lines().all(|l| l.starts_with("  ")), "{inserted}");
        // Merging again adds nothing.
        let again = merge(&merged.text, 0, &model(&merged.text), &m).unwrap();
        assert!(again.added.is_empty());
        assert_eq!(again.text, merged.text);
    }

    #[test]
    fn keeps_crlf_and_deeper_indentation() {
        let text = "apiVersion: ome.io/v1beta1\r\nkind: ClusterBaseModel\r\nmetadata:\r\n    name: x\r\nspec:\r\n    storage:\r\n        storageUri: hf://a/b\r\n";
        let merged = merge(text, 0, &model(text), &llama_metadata()).unwrap();
        assert!(
            merged.text.contains(
                "spec:\r\n    modelType: llama\r\n    modelArchitecture: LlamaForCausalLM\r\n"
            ),
            "{}",
            merged.text
        );
        assert!(
            merged
                .text
                .ends_with("    storage:\r\n        storageUri: hf://a/b\r\n")
        );
        assert!(!merged.text.replace("\r\n", "").contains('\n'));
    }

    #[test]
    fn a_null_field_is_left_alone() {
        let text = r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: x
spec:
  maxTokens:
  storage: {storageUri: hf://a/b}
";
        let merged = merge(text, 0, &model(text), &llama_metadata()).unwrap();
        assert_eq!(merged.null, vec!["maxTokens"]);
        assert!(!merged.added.contains(&"maxTokens"));
        assert!(
            merged
                .text
                .contains("\n  maxTokens:\n  storage: {storageUri: hf://a/b}\n")
        );
    }

    #[test]
    fn refuses_what_lines_cannot_express() {
        let m = llama_metadata();
        for (text, why) in [
            (
                r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: x}
",
                "has no `spec:`",
            ),
            (
                r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: x}
spec: {storage: {storageUri: hf://a/b}}
",
                "not in block style",
            ),
            (
                r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: x}
spec: {
  storage: {storageUri: hf://a/b}}
",
                "could not be inserted",
            ),
            (
                r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: x}
spec:
",
                "no mapping with fields",
            ),
            (
                r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: x
  labels: &s
    a: b
spec: &t
  storage: {storageUri: hf://a/b}
x: *t
",
                "could not be inserted",
            ),
        ] {
            let e = merge(text, 0, &model(text), &m).unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
        }
    }
}
