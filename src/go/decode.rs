//! Reading JSON the way OME's Go code does: `encoding/json` into typed structs.
//!
//! OME reads `config.json` and its siblings into Go structs, so what it sees differs from the
//! raw tree in a few ways this module reproduces:
//!
//! - keys match struct fields without regard to ASCII case (`Model_Type` is `model_type`),
//!   and when several keys match, the last one in the file wins;
//! - `null` leaves a string or integer field as it was, and resets a list or object to unset;
//! - a value of the wrong type (a float or a string for an integer, a number for a string)
//!   makes the whole read fail, which this module reports as a [`TypeMismatch`];
//! - before parsing, the bare words `Infinity`, `-Infinity` and `NaN` that Python writes are
//!   replaced as OME's `SanitizeJSONBytes` does (`1e308`, `-1e308`, `null`).
//!
//! The text itself is parsed by the one JSON reader ([`super::json`]), which keeps every
//! node's position for diagnostics.

use crate::yaml::{Map, Node, Pos, Value};

/// A value OME's Go reader would refuse, with where it is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypeMismatch {
    /// The field's path, such as `quantization_config.bits`.
    pub(crate) field: String,
    pub(crate) expected: &'static str,
    pub(crate) found: &'static str,
    pub(crate) pos: Pos,
}

impl TypeMismatch {
    pub(crate) fn message(&self) -> String {
        format!(
            "`{}` is {}, where OME reads {}",
            self.field, self.found, self.expected
        )
    }
}

/// Why a JSON text cannot be read at all.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SyntaxProblem {
    pub(crate) message: String,
    pub(crate) pos: Pos,
}

/// Parses one JSON text as OME does after sanitising it (config files). `Ok(None)` is the
/// text `null` (which Go reads into a struct as "nothing set").
pub(crate) fn parse_json(text: &str, file: u32) -> Result<Option<Node>, SyntaxProblem> {
    parse_json_text(&sanitize(text), file)
}

/// Parses one JSON text as it is (safetensors headers and index files, which OME does not
/// sanitise) with the one JSON reader, [`super::json::parse`]. A leading byte-order mark is
/// skipped.
pub(crate) fn parse_json_text(sanitized: &str, file: u32) -> Result<Option<Node>, SyntaxProblem> {
    let text = sanitized.strip_prefix('\u{feff}').unwrap_or(sanitized);
    let start_pos = Pos {
        file,
        line: 1,
        col: 0,
    };
    match text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .as_bytes()
        .first()
    {
        None => {
            return Err(SyntaxProblem {
                message: "the file is empty (unexpected end of JSON input)".to_string(),
                pos: start_pos,
            });
        }
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {}
        Some(_) => {
            return Err(SyntaxProblem {
                message: "the file is not JSON".to_string(),
                pos: start_pos,
            });
        }
    }
    match super::json::parse(text, file) {
        // `null` is read into a struct as "nothing set".
        Ok(root) if root.value == Value::Null => Ok(None),
        Ok(root) => Ok(Some(root)),
        Err(e) => Err(SyntaxProblem {
            message: format!("invalid JSON: {}", e.message),
            pos: e.pos,
        }),
    }
}

/// OME's `SanitizeJSONBytes`: three regular-expression replacements, in this order, each
/// over the whole text: `Infinity` → `1e308`, `-Infinity` → `-1e308`, `NaN` → `null`, each
/// only after `:`, `,` or `[` (and blanks) and before `,`, `]` or `}` (after blanks). Like a
/// regular expression, a match consumes its closing character, so `[NaN,NaN]` becomes
/// `[null,NaN]`.
pub(crate) fn sanitize(text: &str) -> String {
    let once = replace_bare(text, "Infinity", "1e308");
    let twice = replace_bare(&once, "-Infinity", "-1e308");
    replace_bare(&twice, "NaN", "null")
}

fn is_re2_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

fn replace_bare(text: &str, word: &str, with: &str) -> String {
    if !text.contains(word) {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if matches!(bytes[i], b':' | b',' | b'[') {
            let mut j = i + 1;
            while j < bytes.len() && is_re2_space(bytes[j]) {
                j += 1;
            }
            if bytes[j..].starts_with(word.as_bytes()) {
                let mut k = j + word.len();
                while k < bytes.len() && is_re2_space(bytes[k]) {
                    k += 1;
                }
                if k < bytes.len() && matches!(bytes[k], b',' | b']' | b'}') {
                    out.push_str(&text[copied..j]);
                    out.push_str(with);
                    out.push_str(&text[j + word.len()..=k]);
                    copied = k + 1;
                    i = k + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    out.push_str(&text[copied..]);
    out
}

/// Whether a JSON key fills the Go struct field `field` (all field names here are ASCII
/// lower case): ASCII letters match either case, and Go's Unicode folding also lets the
/// Kelvin sign stand for `k` and the long s for `s`.
pub(crate) fn key_matches(key: &str, field: &str) -> bool {
    let mut k = key.chars();
    for f in field.chars() {
        let Some(c) = k.next() else { return false };
        let same = c == f
            || (c.is_ascii_alphabetic() && c.eq_ignore_ascii_case(&f))
            || (f == 'k' && c == '\u{212a}')
            || (f == 's' && c == '\u{17f}');
        if !same {
            return false;
        }
    }
    k.next().is_none()
}

/// Whether a JSON key fills a struct field of any spelling, as Go's decoder folds names
/// (`foldName`): ASCII letters in either case, the Kelvin sign for `k`, the long s for `s`.
pub(crate) fn folds_to(key: &str, field: &str) -> bool {
    let mut k = key.chars();
    for f in field.chars() {
        let Some(c) = k.next() else { return false };
        let lower = f.to_ascii_lowercase();
        let same = c == f
            || (c.is_ascii_alphabetic() && c.eq_ignore_ascii_case(&f))
            || (lower == 'k' && c == '\u{212a}')
            || (lower == 's' && c == '\u{17f}');
        if !same {
            return false;
        }
    }
    k.next().is_none()
}

/// A JSON tree as Go's `json.Unmarshal` sees it through typed structs, with each key at its
/// field's name. `fields(path)` gives the field names of the struct at `path` (the field
/// names from the root, list indices left out), or `None` where the value is a Go map or a
/// type read elsewhere. For each member of a struct, in order: the field of exactly that
/// name, else the first field whose name folds to it ([`folds_to`]); a key matching no field
/// stays as written (the reader warns of it). Several members filling one field: the last
/// wins, except that objects filling a struct field are merged (Go decodes the later one
/// into the value the earlier one made). A Go map keeps the last of equal keys. A `null`
/// replaces what came before (every field read this way is a pointer, a slice or a map, or
/// reads a `null` as unset).
pub(crate) fn fold(node: &Node, fields: &dyn Fn(&[&str]) -> Option<Vec<&'static str>>) -> Node {
    fold_at(node, &mut Vec::new(), fields)
}

fn fold_at(
    node: &Node,
    path: &mut Vec<String>,
    fields: &dyn Fn(&[&str]) -> Option<Vec<&'static str>>,
) -> Node {
    let value = match &node.value {
        Value::Seq(items) => Value::Seq(items.iter().map(|n| fold_at(n, path, fields)).collect()),
        Value::Map(map) => {
            let names = fields(&path.iter().map(String::as_str).collect::<Vec<_>>());
            let mut out = Map::with_capacity(map.len());
            for (key, value) in map.iter() {
                let name = names.as_ref().and_then(|names| {
                    names
                        .iter()
                        .find(|f| **f == key)
                        .or_else(|| names.iter().find(|f| folds_to(key, f)))
                        .copied()
                });
                let name = name.unwrap_or(key);
                match out.get_mut(name) {
                    Some(prev) if names.is_some() => match (&mut prev.value, &value.value) {
                        (Value::Map(a), Value::Map(b)) => {
                            for (k, v) in b.entries() {
                                a.push_unique(k.clone(), v.clone());
                            }
                        }
                        _ => *prev = value.clone(),
                    },
                    Some(prev) => *prev = value.clone(),
                    None => out.push_unique(name.to_string(), value.clone()),
                }
            }
            // The members of a merged struct are folded below, with the field's own names.
            let mut folded = Map::with_capacity(out.len());
            for (key, value) in out.iter() {
                let known = names.as_ref().is_some_and(|n| n.contains(&key));
                let value = if known || names.is_none() {
                    path.push(key.to_string());
                    let v = fold_at(value, path, fields);
                    path.pop();
                    v
                } else {
                    value.clone()
                };
                folded.push_unique(key.to_string(), value);
            }
            Value::Map(folded)
        }
        other => other.clone(),
    };
    Node::new(value, node.pos)
}

/// The values of the keys that fill `field`, in file order.
pub(crate) fn matching<'m>(map: &'m Map, field: &'static str) -> impl Iterator<Item = &'m Node> {
    map.iter()
        .filter(move |(k, _)| key_matches(k, field))
        .map(|(_, v)| v)
}

fn kind(node: &Node) -> &'static str {
    match &node.value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::Float(_) => "a number",
        Value::Str(_) => "a string",
        Value::Seq(_) => "an array",
        Value::Map(_) => "an object",
    }
}

/// Decodes Go struct fields from a JSON object, collecting type mismatches.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    pub(crate) errors: Vec<TypeMismatch>,
}

pub(crate) fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

impl Decoder {
    fn mismatch(&mut self, node: &Node, field: String, expected: &'static str) {
        self.errors.push(TypeMismatch {
            field,
            expected,
            found: kind(node),
            pos: node.pos,
        });
    }

    /// A Go `string` field: `""` when absent.
    pub(crate) fn string(&mut self, obj: &Map, field: &'static str, path: &str) -> String {
        let mut out = String::new();
        for node in matching(obj, field) {
            match &node.value {
                Value::Null => {}
                Value::Str(s) => out = s.clone(),
                _ => self.mismatch(node, join(path, field), "a string"),
            }
        }
        out
    }

    /// A Go `int` (64-bit) field: `0` when absent. A JSON number with a fraction or an
    /// exponent, or one beyond 64 bits, is a mismatch, as in Go.
    pub(crate) fn int(&mut self, obj: &Map, field: &'static str, path: &str) -> i64 {
        let mut out = 0;
        for node in matching(obj, field) {
            match &node.value {
                Value::Null => {}
                Value::Int(i) => out = *i,
                _ => self.mismatch(node, join(path, field), "an integer"),
            }
        }
        out
    }

    /// A Go `[]string` field: `None` when absent or `null`. A `null` element is `""`.
    pub(crate) fn strings(
        &mut self,
        obj: &Map,
        field: &'static str,
        path: &str,
    ) -> Option<Vec<String>> {
        let element = |v: &Value| match v {
            Value::Null => Some(String::new()),
            Value::Str(s) => Some(s.clone()),
            _ => None,
        };
        self.list(
            obj,
            field,
            path,
            element,
            ("a string", "an array of strings"),
        )
    }

    /// A Go `[]int64` field: `None` when absent or `null`. A `null` element is `0`.
    pub(crate) fn ints(&mut self, obj: &Map, field: &'static str, path: &str) -> Option<Vec<i64>> {
        let element = |v: &Value| match v {
            Value::Null => Some(0),
            Value::Int(n) => Some(*n),
            _ => None,
        };
        self.list(
            obj,
            field,
            path,
            element,
            ("an integer", "an array of integers"),
        )
    }

    /// A Go slice field whose elements `element` decodes (`None`: a mismatch, named by
    /// `what`, the element's and the list's type): `None` when absent or `null`.
    fn list<T>(
        &mut self,
        obj: &Map,
        field: &'static str,
        path: &str,
        element: impl Fn(&Value) -> Option<T>,
        what: (&'static str, &'static str),
    ) -> Option<Vec<T>> {
        let mut out = None;
        for node in matching(obj, field) {
            match &node.value {
                Value::Null => out = None,
                Value::Seq(items) => {
                    let mut list = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        match element(&item.value) {
                            Some(v) => list.push(v),
                            None => {
                                self.mismatch(item, format!("{}[{i}]", join(path, field)), what.0)
                            }
                        }
                    }
                    out = Some(list);
                }
                _ => self.mismatch(node, join(path, field), what.1),
            }
        }
        out
    }

    /// The objects that fill a Go struct or pointer-to-struct field, in file order. `None`
    /// in the result stands for a `null`, which resets a pointer.
    pub(crate) fn objects<'m>(
        &mut self,
        obj: &'m Map,
        field: &'static str,
        path: &str,
    ) -> Vec<Option<&'m Map>> {
        let mut out = Vec::new();
        for node in matching(obj, field) {
            match &node.value {
                Value::Null => out.push(None),
                Value::Map(m) => out.push(Some(m)),
                _ => self.mismatch(node, join(path, field), "an object"),
            }
        }
        out
    }
}

/// The root of a JSON text as a Go struct sees it: an object, `null` (nothing set), or a
/// mismatch.
pub(crate) fn root_object(root: Option<&Node>) -> Result<Option<&Map>, &'static str> {
    match root {
        None => Ok(None),
        Some(node) => match &node.value {
            Value::Map(m) => Ok(Some(m)),
            _ => Err(kind(node)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(text: &str) -> Map {
        match parse_json(text, 0).unwrap().unwrap().value {
            Value::Map(m) => m,
            other => panic!("not an object: {other:?}"),
        }
    }

    #[test]
    fn sanitize_replaces_python_floats_as_ome_does() {
        assert_eq!(sanitize(r#"{"a": Infinity}"#), r#"{"a": 1e308}"#);
        assert_eq!(
            sanitize(r#"{"a": -Infinity, "b": NaN}"#),
            r#"{"a": -1e308, "b": null}"#
        );
        // A match consumes its closing character, so the second NaN stays.
        assert_eq!(sanitize("[NaN,NaN]"), "[null,NaN]");
        assert_eq!(sanitize("[ NaN , NaN ]"), "[ null , NaN ]");
        // Only bare words between separators.
        assert_eq!(sanitize(r#"{"a": "NaN"}"#), r#"{"a": "NaN"}"#);
        assert_eq!(sanitize(r#"{"a": NaNx}"#), r#"{"a": NaNx}"#);
        assert_eq!(sanitize("{\"a\":\n  NaN\n}"), "{\"a\":\n  null\n}");
    }

    #[test]
    fn keys_match_fields_without_regard_to_case_and_the_last_wins() {
        assert!(key_matches("Model_Type", "model_type"));
        assert!(key_matches("MODEL_TYPE", "model_type"));
        assert!(!key_matches("model-type", "model_type"));
        assert!(!key_matches("model_types", "model_type"));
        assert!(key_matches("\u{212a}v", "kv"));
        let m = obj(r#"{"model_type": "a", "Model_Type": "b"}"#);
        let mut d = Decoder::default();
        assert_eq!(d.string(&m, "model_type", ""), "b");
        assert!(d.errors.is_empty());
    }

    #[test]
    fn null_keeps_scalars_and_resets_lists() {
        let m = obj(r#"{"n": 3, "N": null, "l": ["x"], "L": null}"#);
        let mut d = Decoder::default();
        assert_eq!(d.int(&m, "n", ""), 3);
        assert_eq!(d.strings(&m, "l", ""), None);
    }

    #[test]
    fn wrong_types_are_mismatches_with_positions() {
        let m = obj("{\n  \"hidden_size\": 4096.0,\n  \"bits\": \"4\",\n  \"l\": [1]\n}");
        let mut d = Decoder::default();
        assert_eq!(d.int(&m, "hidden_size", ""), 0);
        assert_eq!(d.int(&m, "bits", "quantization_config"), 0);
        assert_eq!(d.strings(&m, "l", ""), Some(vec![]));
        let found: Vec<(String, u32)> = d
            .errors
            .iter()
            .map(|e| (e.field.clone(), e.pos.line))
            .collect();
        assert_eq!(
            found,
            vec![
                ("hidden_size".to_string(), 2),
                ("quantization_config.bits".to_string(), 3),
                ("l[0]".to_string(), 4)
            ]
        );
        assert_eq!(
            d.errors[1].message(),
            "`quantization_config.bits` is a string, where OME reads an integer"
        );
    }

    #[test]
    fn texts_that_are_not_json_objects() {
        assert_eq!(parse_json("null", 0), Ok(None));
        assert!(parse_json("", 0).is_err());
        assert!(parse_json("   ", 0).is_err());
        assert!(parse_json("model_type: llama", 0).is_err());
        let err = parse_json("{\n  \"a\": [1,\n}", 0).unwrap_err();
        assert_eq!(
            err.message,
            "invalid JSON: invalid character '}' looking for beginning of value"
        );
        assert_eq!((err.pos.line, err.pos.col), (3, 0));
        let err = parse_json("{} {}", 0).unwrap_err();
        assert_eq!(
            err.message,
            "invalid JSON: invalid character '{' after top-level value"
        );
        assert_eq!(
            parse_json("\u{feff}{\"a\": \"b\"}", 0)
                .unwrap()
                .unwrap()
                .str_at(&["a"]),
            Some("b")
        );
        assert_eq!(
            parse_json("x", 0).unwrap_err().message,
            "the file is not JSON"
        );
        assert!(parse_json("{\"a\": NaN}", 0).unwrap().is_some());
    }

    #[test]
    fn json_as_hugging_face_files_write_it() {
        let tabs = parse_json("{\n\t\"a\": 1,\n\t\"b\": {\n\t\t\"c\": [1,\t2]\n\t}\n}", 0);
        assert!(tabs.is_ok(), "{tabs:?}");
        let root = parse_json(
            r#"{"a": "\u00e9\n", "b": 1e-05, "c": -0.5, "d": 12345678901234567890, "e": 7}"#,
            0,
        )
        .unwrap()
        .unwrap();
        assert_eq!(root.str_at(&["a"]), Some("é\n"));
        assert_eq!(root.get("b").unwrap().value, Value::Float("1e-05".into()));
        // Beyond 64 bits: not an integer for Go either.
        let mut d = Decoder::default();
        assert_eq!(d.int(root.as_map().unwrap(), "d", ""), 0);
        assert_eq!(d.int(root.as_map().unwrap(), "e", ""), 7);
        assert_eq!(d.errors.len(), 1);
    }
}
