//! What `diff` does to each object before comparing it: leave out the fields
//! `--ignore-field` names, and replace the values of a Secret by a short hash, so no secret
//! is ever written in a diff (SEMANTICS.md#diff-fields). Also the fingerprint of an input
//! tree, to tell which OME resources changed.

use crate::rendered::Rendered;
use crate::yaml::{Node, Value};
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// One segment of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// A key written plainly: it may join the next plain segments with `.` to name a key
    /// that contains dots (`example.com/build`).
    Plain(String),
    /// A key written in brackets (`[example.com/build]`): exactly that key.
    Exact(String),
    /// `*`: every key of a map, every item of a list.
    Any,
}

/// A dotted field path such as `metadata.annotations.example.com/build`
/// (SEMANTICS.md#diff-fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldPath {
    text: String,
    segments: Vec<Segment>,
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl FieldPath {
    /// Parses a path: segments separated by `.`; `[KEY]` (or `["KEY"]`) is one key, dots
    /// and all; `*` matches every key or item; a number is a list index.
    pub(crate) fn parse(text: &str) -> Result<FieldPath, String> {
        let mut segments = Vec::new();
        let mut rest = text;
        let bad = |why: &str| Err(format!("--ignore-field `{text}`: {why}"));
        if text.is_empty() {
            return bad("an empty path");
        }
        loop {
            if let Some(inner) = rest.strip_prefix('[') {
                let Some(end) = inner.find(']') else {
                    return bad("a `[` without its `]`");
                };
                let key = &inner[..end];
                let key = key
                    .strip_prefix('"')
                    .and_then(|k| k.strip_suffix('"'))
                    .unwrap_or(key);
                if key.is_empty() {
                    return bad("an empty key in brackets");
                }
                segments.push(Segment::Exact(key.to_string()));
                rest = &inner[end + 1..];
                if rest.is_empty() {
                    break;
                }
                // After `]` comes `.`, `[`, or the end.
                if let Some(r) = rest.strip_prefix('.') {
                    rest = r;
                    if rest.is_empty() {
                        return bad("a path ends with `.`");
                    }
                } else if !rest.starts_with('[') {
                    return bad("`]` must be followed by `.`, `[` or the end");
                }
                continue;
            }
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            let name = &rest[..end];
            if name.is_empty() {
                return bad("an empty segment (two dots, or a dot at either end)");
            }
            segments.push(if name == "*" {
                Segment::Any
            } else {
                Segment::Plain(name.to_string())
            });
            rest = &rest[end..];
            if rest.is_empty() {
                break;
            }
            if let Some(r) = rest.strip_prefix('.') {
                rest = r;
                if rest.is_empty() {
                    return bad("a path ends with `.`");
                }
            }
        }
        Ok(FieldPath {
            text: text.to_string(),
            segments,
        })
    }
}

/// How `diff` prepares each object before it is serialised and compared.
#[derive(Clone, Debug, Default)]
pub(crate) struct Normalise {
    pub(crate) ignore: Vec<FieldPath>,
    /// Per ignored path, whether it left out a field of any object: shared by the clones
    /// both sides render with, so a path that matched nothing on either side is known.
    pub(crate) matched: std::sync::Arc<Vec<std::sync::atomic::AtomicBool>>,
}

impl Normalise {
    /// Leaves out the ignored fields and hides Secret values, in the object's tree (an
    /// object already serialised is left as it is).
    pub(crate) fn apply(&self, object: &mut Rendered) {
        let is_secret = object.kind == "Secret" && object.api_version == "v1";
        let Some(tree) = object.tree_mut() else {
            return;
        };
        if is_secret {
            redact_secret(tree);
        }
        for (i, path) in self.ignore.iter().enumerate() {
            if remove(tree, &path.segments)
                && let Some(flag) = self.matched.get(i)
            {
                flag.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    /// Leaves out the fields of `ignore`, keeping track of which paths match anything.
    pub(crate) fn new(ignore: Vec<FieldPath>) -> Normalise {
        let matched = ignore
            .iter()
            .map(|_| std::sync::atomic::AtomicBool::new(false))
            .collect();
        Normalise {
            ignore,
            matched: std::sync::Arc::new(matched),
        }
    }

    /// The ignored paths that left out no field of any object so far.
    pub(crate) fn unmatched(&self) -> Vec<&FieldPath> {
        self.ignore
            .iter()
            .zip(self.matched.iter())
            .filter(|(_, hit)| !hit.load(std::sync::atomic::Ordering::Relaxed))
            .map(|(path, _)| path)
            .collect()
    }
}

/// What a secret value is shown as: `(redacted sha256:0123456789ab)`, the first 12 hex
/// digits of the SHA-256 of the value (of the decoded bytes for `data`), so a reviewer sees
/// whether it changed, and never the value.
fn redacted(bytes: &[u8]) -> Node {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    Node::str(format!("(redacted sha256:{hex})"))
}

/// The annotation `kubectl apply` keeps the whole last-applied object in, Secret values
/// included.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

fn redact_secret(tree: &mut Node) {
    if let Some(data) = tree.as_map_mut().and_then(|m| m.get_mut("data")) {
        redact_values(data, |text| {
            decode_base64(text).unwrap_or_else(|| text.into())
        });
    }
    if let Some(data) = tree.as_map_mut().and_then(|m| m.get_mut("stringData")) {
        redact_values(data, |text| text.as_bytes().to_vec());
    }
    let annotations = tree
        .as_map_mut()
        .and_then(|m| m.get_mut("metadata"))
        .and_then(Node::as_map_mut)
        .and_then(|m| m.get_mut("annotations"))
        .and_then(Node::as_map_mut);
    if let Some(last) = annotations.and_then(|a| a.get_mut(LAST_APPLIED))
        && let Some(text) = last.scalar_text()
    {
        *last = redacted(text.as_bytes());
    }
}

fn redact_values(data: &mut Node, bytes: impl Fn(&str) -> Vec<u8>) {
    let Some(map) = data.as_map_mut() else {
        return;
    };
    for (_, value) in map.iter_mut() {
        if value.is_null() {
            continue;
        }
        let text = value
            .scalar_text()
            .unwrap_or_else(|| crate::yaml::emit::to_json_string(value));
        *value = redacted(&bytes(&text));
    }
}

/// Standard base64 (padding optional, whitespace ignored); `None` when it is not base64.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for b in text.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xff).unwrap_or(0));
        }
    }
    Some(out)
}

/// Removes what `segments` names under `node`; maps and lists left empty by the removal go
/// too, so an ignored field that is the only annotation on one side leaves no `{}` behind.
/// Removes the fields `segments` names under `node`; says whether there was one.
fn remove(node: &mut Node, segments: &[Segment]) -> bool {
    let Some(first) = segments.first() else {
        return false;
    };
    let mut hit = false;
    match &mut node.value {
        Value::Map(map) => {
            let (keys, used): (Vec<String>, usize) = match first {
                Segment::Any => (map.keys().map(str::to_string).collect(), 1),
                Segment::Exact(key) => (vec![key.clone()], 1),
                Segment::Plain(_) => match longest_key(map, segments) {
                    Some((key, used)) => (vec![key], used),
                    None => return false,
                },
            };
            let rest = &segments[used..];
            // The keys to drop, dropped in one pass: `*` over a map of many keys costs its
            // length.
            let mut gone: HashSet<String> = HashSet::new();
            for key in keys {
                if rest.is_empty() {
                    hit |= map.contains_key(&key);
                    gone.insert(key);
                } else if let Some(child) = map.get_mut(&key) {
                    let was_empty = is_empty_collection(child);
                    hit |= remove(child, rest);
                    if !was_empty && is_empty_collection(child) {
                        gone.insert(key);
                    }
                }
            }
            if !gone.is_empty() {
                map.retain(|k, _| !gone.contains(k));
            }
        }
        Value::Seq(items) => {
            let indexes: Vec<usize> = match first {
                Segment::Any => (0..items.len()).collect(),
                Segment::Plain(n) | Segment::Exact(n) => match n.parse::<usize>() {
                    Ok(i) if i < items.len() => vec![i],
                    _ => return false,
                },
            };
            let rest = &segments[1..];
            // Likewise the items, in one pass.
            let mut gone = vec![false; items.len()];
            for &i in &indexes {
                if rest.is_empty() {
                    hit = true;
                    gone[i] = true;
                } else {
                    let was_empty = is_empty_collection(&items[i]);
                    hit |= remove(&mut items[i], rest);
                    gone[i] = !was_empty && is_empty_collection(&items[i]);
                }
            }
            let mut at = 0;
            items.retain(|_| {
                at += 1;
                !gone[at - 1]
            });
        }
        _ => {}
    }
    hit
}

/// The longest run of plain segments, joined with `.`, that is a key of `map`, and how many
/// segments it took.
fn longest_key(map: &crate::yaml::Map, segments: &[Segment]) -> Option<(String, usize)> {
    let plain = segments
        .iter()
        .take_while(|s| matches!(s, Segment::Plain(_)))
        .count();
    (1..=plain).rev().find_map(|n| {
        let key = segments[..n]
            .iter()
            .filter_map(|s| match s {
                Segment::Plain(p) => Some(p.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(".");
        map.contains_key(&key).then_some((key, n))
    })
}

fn is_empty_collection(node: &Node) -> bool {
    match &node.value {
        Value::Map(m) => m.is_empty(),
        Value::Seq(s) => s.is_empty(),
        _ => false,
    }
}

/// A fast, fixed (unkeyed) hash of the rustc/Firefox "Fx" kind: a rotate, a xor and a
/// multiply per word. `diff` uses it for its own maps and for fingerprints — it hashes twelve
/// thousand trees and sixty thousand identities per side, where SipHash measured 10% of a
/// render. Nothing secret depends on it: a collision could at worst misattribute an impact,
/// never hide an object's difference (objects are compared byte for byte).
#[derive(Clone, Copy, Default)]
pub(crate) struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Maps and sets keyed with [`FxHasher`].
pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;

/// A fingerprint of a tree's content (positions ignored): equal trees have equal
/// fingerprints, and different ones, for all practical purposes, different.
pub(crate) fn fingerprint(node: &Node) -> u64 {
    let mut hasher = FxHasher::default();
    hash_node(node, &mut hasher);
    hasher.finish()
}

fn hash_node(node: &Node, h: &mut FxHasher) {
    match &node.value {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Int(i) => (2u8, i).hash(h),
        Value::Float(f) => (3u8, f).hash(h),
        Value::Str(s) => (4u8, s).hash(h),
        Value::Seq(items) => {
            (5u8, items.len()).hash(h);
            items.iter().for_each(|i| hash_node(i, h));
        }
        Value::Map(m) => {
            (6u8, m.iter().len()).hash(h);
            for (k, v) in m.iter() {
                k.hash(h);
                hash_node(v, h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::emit::to_yaml_string;
    use crate::yaml::parse::parse_stream;

    fn tree(yaml: &str) -> Node {
        parse_stream(yaml, 0)
            .expect("test YAML parses")
            .remove(0)
            .root
    }

    fn ignoring(paths: &[&str], yaml: &str) -> String {
        let mut node = tree(yaml);
        for p in paths {
            let path = FieldPath::parse(p).expect("path parses");
            remove(&mut node, &path.segments);
        }
        to_yaml_string(&node)
    }

    #[test]
    fn paths_parse_into_segments() {
        let cases: &[(&str, &[Segment])] = &[
            (
                "metadata.labels",
                &[
                    Segment::Plain("metadata".into()),
                    Segment::Plain("labels".into()),
                ],
            ),
            (
                "metadata.annotations[example.com/build]",
                &[
                    Segment::Plain("metadata".into()),
                    Segment::Plain("annotations".into()),
                    Segment::Exact("example.com/build".into()),
                ],
            ),
            (
                "a[\"b.c\"].d",
                &[
                    Segment::Plain("a".into()),
                    Segment::Exact("b.c".into()),
                    Segment::Plain("d".into()),
                ],
            ),
            (
                "spec.*.image",
                &[
                    Segment::Plain("spec".into()),
                    Segment::Any,
                    Segment::Plain("image".into()),
                ],
            ),
        ];
        for (text, want) in cases {
            assert_eq!(
                FieldPath::parse(text).expect(text).segments,
                *want,
                "{text}"
            );
        }
        for bad in ["", "a..b", ".a", "a.", "a[b", "a[]", "a[b]c"] {
            assert!(FieldPath::parse(bad).is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn a_dotted_key_is_found_with_or_without_brackets() {
        let yaml =
            "metadata:\n  name: x\n  annotations:\n    example.com/build: \"42\"\n    keep: k\n";
        let want = "metadata:\n  name: x\n  annotations:\n    keep: k\n";
        assert_eq!(
            ignoring(&["metadata.annotations.example.com/build"], yaml),
            want
        );
        assert_eq!(
            ignoring(&["metadata.annotations[example.com/build]"], yaml),
            want
        );
        // The longest key wins: `a.b` as a key beats `a` with a child `b`.
        let both = "m:\n  a.b: 1\n  a:\n    b: 2\n";
        assert_eq!(ignoring(&["m.a.b"], both), "m:\n  a:\n    b: 2\n");
    }

    #[test]
    fn removal_takes_emptied_parents_and_lists() {
        let yaml = "metadata:\n  name: x\n  annotations:\n    example.com/build: \"42\"\n";
        assert_eq!(
            ignoring(&["metadata.annotations.example.com/build"], yaml),
            "metadata:\n  name: x\n"
        );
        let pods =
            "spec:\n  containers:\n  - name: a\n    image: i:1\n  - name: b\n    image: i:2\n";
        assert_eq!(
            ignoring(&["spec.containers.*.image"], pods),
            "spec:\n  containers:\n  - name: a\n  - name: b\n"
        );
        assert_eq!(
            ignoring(&["spec.containers.0"], pods),
            "spec:\n  containers:\n  - name: b\n    image: i:2\n"
        );
        // Emptied, `containers` goes, and then `spec`.
        assert_eq!(ignoring(&["spec.containers.*"], pods), "{}\n");
        // A path that names nothing changes nothing.
        assert_eq!(
            ignoring(&["spec.nothing.here", "spec.containers.9"], pods),
            pods
        );
    }

    #[test]
    fn secret_values_become_hashes_of_the_decoded_bytes() {
        let mut secret = Rendered::new(
            tree(
                r"apiVersion: v1
kind: Secret
metadata:
  name: s
data:
  token: aHVudGVyMg==
stringData:
  token: hunter2
  empty: null
",
            ),
            None,
            crate::yaml::Pos::NONE,
        );
        Normalise::default().apply(&mut secret);
        let text = to_yaml_string(secret.tree().expect("a tree"));
        assert!(
            !text.contains("aHVudGVyMg") && !text.contains("hunter2"),
            "{text}"
        );
        // `data` is hashed decoded, so the same value in `data` and `stringData` matches.
        let hash = format!(
            "(redacted sha256:{})",
            Sha256::digest(b"hunter2")
                .iter()
                .take(6)
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        );
        assert_eq!(text.matches(&hash).count(), 2, "{text}");
        assert!(text.contains("empty: null"), "{text}");
        // Not a Secret: nothing is hidden.
        let mut map = Rendered::new(
            tree(
                r"apiVersion: v1
kind: ConfigMap
metadata:
  name: c
data:
  token: hunter2
",
            ),
            None,
            crate::yaml::Pos::NONE,
        );
        Normalise::default().apply(&mut map);
        assert!(to_yaml_string(map.tree().expect("a tree")).contains("hunter2"));
    }

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(
            decode_base64("aHVudGVyMg==").as_deref(),
            Some(&b"hunter2"[..])
        );
        assert_eq!(
            decode_base64("aHVudGVyMg").as_deref(),
            Some(&b"hunter2"[..])
        );
        assert_eq!(decode_base64("not base64!"), None);
    }

    #[test]
    fn fingerprints_ignore_positions_and_see_content() {
        let a = tree("a: 1\nb: [x, y]\n");
        let moved = tree("\n\na: 1\nb:\n  - x\n  - y\n");
        let other = tree("a: 1\nb: [x, z]\n");
        assert_eq!(fingerprint(&a), fingerprint(&moved));
        assert_ne!(fingerprint(&a), fingerprint(&other));
        assert_ne!(
            fingerprint(&tree("a: \"1\"\n")),
            fingerprint(&tree("a: 1\n"))
        );
    }
}
