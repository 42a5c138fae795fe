//! `render --check PATH` (SEMANTICS.md#check): what a fresh render would write to PATH,
//! compared with what is committed there, as a unified diff.
//!
//! PATH is the file `-o PATH` writes (one stream) or the directory `--output-dir PATH`
//! writes (one file per object and the marker file), in the `--format` asked for. The diff
//! names files `a/PATH…` (committed) and `b/PATH…` (fresh), so `git apply` could bring the
//! committed render up to date.

use super::{Format, OUTPUT_MARKER, OUTPUT_MARKER_TEXT, bytes, file_name, write_stream};
use crate::diagnostics::escape::terminal;
use crate::load::Committed;
use crate::rendered::Rendered;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// How a committed render differs from a fresh one.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Stale {
    /// The unified diff, file by file.
    pub(crate) diff: String,
    /// Files that differ, are missing or should not be there.
    pub(crate) files: usize,
}

/// Whether `--check PATH` means a directory: it is one, or, when nothing is there yet, its
/// name ends with `/` or has no extension of a stream.
pub(crate) fn is_dir(path: &str, committed: &Committed) -> bool {
    match committed {
        Committed::Dir(_) => true,
        Committed::File(_) => false,
        Committed::Missing => {
            path.ends_with('/')
                || !(path.ends_with(".yaml") || path.ends_with(".yml") || path.ends_with(".json"))
        }
    }
}

/// One file's diff; empty when the two are the same.
fn file_diff(path: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> String {
    if old == new {
        return String::new();
    }
    fn text(b: Option<&[u8]>) -> Cow<'_, str> {
        b.map_or(Cow::Borrowed(""), String::from_utf8_lossy)
    }
    let (old_text, new_text) = (text(old), text(new));
    let a = old.map_or("/dev/null".to_string(), |_| format!("a/{path}"));
    let b = new.map_or("/dev/null".to_string(), |_| format!("b/{path}"));
    // Myers within a budget, one block past it (`textdiff`): a committed render rewritten
    // whole costs its length.
    let hunks = crate::textdiff::unified(old_text.as_ref(), new_text.as_ref(), 3).hunks;
    let mut out = if hunks.is_empty() {
        String::new()
    } else {
        format!("--- {a}\n+++ {b}\n{hunks}")
    };
    if out.is_empty() {
        // The same text, different bytes (not UTF-8): say so rather than print nothing.
        out = format!("Binary files {a} and {b} differ\n");
    }
    out
}

/// Compares what `target` (the path as given) holds with what a fresh render writes there;
/// `None` when they are the same.
pub(crate) fn compare(
    target: &str,
    committed: &Committed,
    objects: &[Rendered],
    format: Format,
) -> Option<Stale> {
    let mut stale = Stale::default();
    if is_dir(target, committed) {
        let base = target.trim_end_matches('/');
        let mut fresh: BTreeMap<String, Cow<'_, [u8]>> = objects
            .iter()
            .map(|o| (file_name(o, format), bytes(o, format)))
            .collect();
        fresh.insert(
            OUTPUT_MARKER.to_string(),
            Cow::Borrowed(OUTPUT_MARKER_TEXT.as_bytes()),
        );
        let empty = BTreeMap::new();
        let old = match committed {
            Committed::Dir(files) => files,
            _ => &empty,
        };
        let mut names: Vec<&String> = fresh.keys().chain(old.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let diff = file_diff(
                &format!("{base}/{name}"),
                old.get(name).map(Vec::as_slice),
                fresh.get(name).map(AsRef::as_ref),
            );
            if !diff.is_empty() {
                stale.files += 1;
                stale.diff.push_str(&diff);
            }
        }
    } else {
        let mut fresh = Vec::new();
        // Writing to memory cannot fail.
        let _ = write_stream(objects, format, &mut fresh);
        let old = match committed {
            Committed::File(bytes) => Some(bytes.as_slice()),
            _ => None,
        };
        let diff = file_diff(target, old, Some(&fresh));
        if !diff.is_empty() {
            stale.files = 1;
            stale.diff = diff;
        }
    }
    // The committed side is whatever the tree holds: shown on a terminal or in a CI log,
    // its control characters are escaped (SEMANTICS.md#output-escaping).
    if let Cow::Owned(escaped) = terminal(&stale.diff) {
        stale.diff = escaped;
    }
    (stale.files > 0).then_some(stale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Map, Node, Pos};

    fn config_map(name: &str, value: &str) -> Rendered {
        let mut data = Map::new();
        data.insert("k", Node::str(value));
        let mut meta = Map::new();
        meta.insert("name", Node::str(name));
        let mut m = Map::new();
        m.insert("apiVersion", Node::str("v1"));
        m.insert("kind", Node::str("ConfigMap"));
        m.insert("metadata", Node::map(meta));
        m.insert("data", Node::map(data));
        Rendered::new(Node::map(m), None, Pos::NONE)
    }

    #[test]
    fn a_directory_is_compared_file_by_file() {
        let objects = [config_map("a", "1"), config_map("b", "2")];
        let mut files = BTreeMap::new();
        for o in &objects {
            files.insert(
                file_name(o, Format::Yaml),
                bytes(o, Format::Yaml).into_owned(),
            );
        }
        files.insert(
            OUTPUT_MARKER.to_string(),
            OUTPUT_MARKER_TEXT.as_bytes().to_vec(),
        );
        let same = Committed::Dir(files.clone());
        assert_eq!(compare("out", &same, &objects, Format::Yaml), None);

        files.insert("v1_configmap_a.yaml".into(), b"stale\n".to_vec());
        files.insert("v1_configmap_old.yaml".into(), b"gone\n".to_vec());
        files.remove("v1_configmap_b.yaml");
        let stale = compare("out/", &Committed::Dir(files), &objects, Format::Yaml).expect("stale");
        assert_eq!(stale.files, 3, "{}", stale.diff);
        for line in [
            "--- a/out/v1_configmap_a.yaml\n+++ b/out/v1_configmap_a.yaml\n",
            r"-stale
+apiVersion: v1
",
            "--- /dev/null\n+++ b/out/v1_configmap_b.yaml\n",
            "--- a/out/v1_configmap_old.yaml\n+++ /dev/null\n",
        ] {
            assert!(stale.diff.contains(line), "{line:?} in\n{}", stale.diff);
        }
    }

    #[test]
    fn a_file_is_compared_as_one_stream_and_nothing_is_all_new() {
        let objects = [config_map("a", "1")];
        let mut stream = Vec::new();
        write_stream(&objects, Format::Yaml, &mut stream).unwrap();
        assert_eq!(
            compare("out.yaml", &Committed::File(stream), &objects, Format::Yaml),
            None
        );
        let stale =
            compare("out.yaml", &Committed::Missing, &objects, Format::Yaml).expect("stale");
        assert!(
            stale.diff.starts_with("--- /dev/null\n+++ b/out.yaml\n"),
            "{}",
            stale.diff
        );
        let stale =
            compare("rendered", &Committed::Missing, &objects, Format::Yaml).expect("stale");
        assert_eq!(stale.files, 2, "a directory: the object and the marker");
    }
}
