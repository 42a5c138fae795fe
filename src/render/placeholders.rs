//! Placeholders in the runner container: `{{.Name}}`, `{{.Namespace}}`, `{{.Labels.k}}`,
//! `{{.Annotations.k}}` and `{{index .Labels "k"}}`, filled from the InferenceService's
//! metadata (SEMANTICS.md#placeholders, SEMANTICS.md#choice-placeholders).
//!
//! OME runs the whole container through a Go template. ome-render follows the documented
//! (`text/template`) behaviour for the forms the docs name, and rejects everything else:
//!
//! - `{{.Labels.k}}` / `{{.Annotations.k}}` for a missing key give `<no value>`;
//!   `{{index .Labels "k"}}` (or with backquotes) gives the empty string.
//! - Values are inserted as they are: no HTML escaping.
//! - Spaces, tabs and newlines may surround the words inside the braces.
//! - Text outside `{{ }}` is never changed; a lone `}}` is plain text.
//! - Any other action is a [`PlaceholderError`]: unknown fields (`{{.Foo}}`, `{{.name}}`),
//!   metadata only a cluster knows (`{{.UID}}`), functions, pipelines, `if`/`range`,
//!   variables, comments, trim markers (`{{- x -}}`), an unterminated `{{`, and text written
//!   for another template language, such as a Jinja chat template in `args`. OME would fail
//!   the reconcile on most of these, and the rest render cluster-only data.
//! - `{{.Labels.app.kubernetes.io/name}}` is an error (Go cannot parse a key with `/`, `-` or
//!   `.` in the field form); its help gives the `index` form, the one that works.
//! - A missing namespace (an InferenceService written without one) gives the empty string,
//!   as Go's empty `Namespace` field would; pass the namespace it will be applied to in
//!   [`Metadata::namespace`] to get that instead.
//!
//! [`expand`] does the work for one string and allocates nothing when the string holds no
//! `{{`. [`expand_tree`] expands every string value of a container tree in place and
//! reports errors with the field path (`args[3]`, `env[2].value`). Map keys are not
//! expanded.

use crate::model::InferenceService;
use crate::yaml::{Map, Node, Pos, Value};
use std::fmt;
use std::fmt::Write as _;

/// What a placeholder can read: the InferenceService's metadata.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Metadata<'a> {
    pub(crate) name: &'a str,
    /// `None` expands to the empty string.
    pub(crate) namespace: Option<&'a str>,
    pub(crate) labels: &'a Map,
    pub(crate) annotations: &'a Map,
    /// `{{.IngressDomain}}`, known only to the domain template of hostnames
    /// (SEMANTICS.md#traffic); `None` makes it an unknown field.
    pub(crate) ingress_domain: Option<&'a str>,
}

impl<'a> Metadata<'a> {
    /// The metadata of `isvc`. An InferenceService written without a namespace is in the
    /// namespace lookups use (`--namespace`), which is where it would be applied.
    pub(crate) fn of(isvc: &'a InferenceService) -> Metadata<'a> {
        Metadata {
            name: &isvc.name,
            namespace: Some(isvc.namespace.as_deref().unwrap_or(&isvc.lookup_namespace)),
            labels: &isvc.labels,
            annotations: &isvc.annotations,
            ingress_domain: None,
        }
    }
}

/// Text Go's `text/template` prints for a missing map key in the field form.
const NO_VALUE: &str = "<no value>";

/// The supported forms, for help texts.
const SUPPORTED: &str = "the supported placeholders are {{.Name}}, {{.Namespace}}, \
    {{.Labels.<key>}}, {{.Annotations.<key>}}, {{index .Labels \"<key>\"}} and \
    {{index .Annotations \"<key>\"}}";

/// ObjectMeta fields Go templates could read but that only a cluster fills in.
const CLUSTER_ONLY_FIELDS: &[&str] = &[
    "GenerateName",
    "UID",
    "ResourceVersion",
    "Generation",
    "CreationTimestamp",
    "DeletionTimestamp",
    "DeletionGracePeriodSeconds",
    "OwnerReferences",
    "Finalizers",
    "ManagedFields",
    "SelfLink",
];

/// A `{{ ... }}` that is not a supported placeholder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlaceholderError {
    /// The action as written, from `{{` to `}}` (to the end of the text, shortened, when it
    /// is not closed).
    pub(crate) action: String,
    /// Byte offset of the action's `{{` in the string.
    pub(crate) offset: usize,
    pub(crate) kind: PlaceholderErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PlaceholderErrorKind {
    /// `{{` without a closing `}}`.
    Unterminated,
    /// `{{- ` or ` -}}`.
    TrimMarker,
    /// `{{/* ... */}}`.
    Comment,
    /// `{{}}` or `{{ }}`.
    Empty,
    /// A field that ObjectMeta does not have, such as `.Foo` or `.name`.
    UnknownField(String),
    /// An ObjectMeta field only a cluster fills in, such as `.UID`.
    ClusterOnlyField(String),
    /// `.Labels` or `.Annotations` without a key.
    WholeMap(&'static str),
    /// `.Name.x`: a field of a string.
    FieldOfString(String),
    /// A key the field form cannot name (`.Labels.app.kubernetes.io/name`).
    KeyNeedsIndex { map: &'static str, key: String },
    /// `index` with other arguments than a map and one quoted key.
    BadIndex,
    /// A quoted key that is not closed or uses an escape other than `\\` and `\"`.
    BadString(String),
    /// Anything else: functions, pipelines, control structures, variables, literals, or text
    /// for another template language.
    Unsupported,
}

impl PlaceholderError {
    /// One line saying what is wrong.
    pub(crate) fn message(&self) -> String {
        let action = &self.action;
        match &self.kind {
            PlaceholderErrorKind::Unterminated => {
                format!("placeholder `{action}` is not closed with `}}}}`")
            }
            PlaceholderErrorKind::TrimMarker => {
                format!("placeholder `{action}` uses a trim marker (`-`)")
            }
            PlaceholderErrorKind::Comment => {
                format!("template comment `{action}` is not supported")
            }
            PlaceholderErrorKind::Empty => format!("empty placeholder `{action}`"),
            PlaceholderErrorKind::UnknownField(field) => {
                format!("unknown field `{field}` in placeholder `{action}`")
            }
            PlaceholderErrorKind::ClusterOnlyField(field) => {
                format!("`{field}` in placeholder `{action}` is only known in a cluster")
            }
            PlaceholderErrorKind::WholeMap(map) => {
                format!("placeholder `{action}` names all of `.{map}`, not one key")
            }
            PlaceholderErrorKind::FieldOfString(field) => {
                format!("`{field}` in placeholder `{action}` is a string and has no fields")
            }
            PlaceholderErrorKind::KeyNeedsIndex { key, .. } => {
                format!(
                    "placeholder `{action}`: the key `{key}` cannot be written in the field form"
                )
            }
            PlaceholderErrorKind::BadIndex => {
                format!(
                    "placeholder `{action}`: `index` needs `.Labels` or `.Annotations` and one quoted key"
                )
            }
            PlaceholderErrorKind::BadString(why) => format!("placeholder `{action}`: {why}"),
            PlaceholderErrorKind::Unsupported => {
                format!("`{action}` is not a supported placeholder")
            }
        }
    }

    /// One line saying how to fix it.
    pub(crate) fn help(&self) -> String {
        match &self.kind {
            PlaceholderErrorKind::Unterminated => format!(
                "OME reads `{{{{` in the runner container as the start of a Go template \
                 action, so it fails on this too; close it, or move the text into a file \
                 the container reads; {SUPPORTED}"
            ),
            PlaceholderErrorKind::TrimMarker => {
                "remove the `-` next to the braces, as in {{.Name}}".to_string()
            }
            PlaceholderErrorKind::Comment => "remove the comment".to_string(),
            PlaceholderErrorKind::UnknownField(field) => {
                let wanted = field.trim_start_matches('.');
                match ["Name", "Namespace", "Labels", "Annotations"]
                    .into_iter()
                    .find(|f| f.eq_ignore_ascii_case(wanted))
                {
                    Some(f) => format!("field names are case-sensitive: write `.{f}`"),
                    None => SUPPORTED.to_string(),
                }
            }
            PlaceholderErrorKind::ClusterOnlyField(_) => {
                format!("an offline render cannot know it; {SUPPORTED}")
            }
            PlaceholderErrorKind::WholeMap(map) => {
                format!("name one key: {{{{.{map}.team}}}} or {{{{index .{map} \"team\"}}}}")
            }
            PlaceholderErrorKind::KeyNeedsIndex { map, key } => {
                format!("use the index form: {{{{index .{map} \"{key}\"}}}}")
            }
            PlaceholderErrorKind::BadString(_) => {
                "write the key in plain double quotes or backquotes, without escapes".to_string()
            }
            PlaceholderErrorKind::Empty
            | PlaceholderErrorKind::FieldOfString(_)
            | PlaceholderErrorKind::BadIndex => SUPPORTED.to_string(),
            PlaceholderErrorKind::Unsupported => format!(
                "{SUPPORTED}; Go template functions, pipelines, variables and `if`/`range` are \
                 not. If this is text for the model server (a chat template, for example), \
                 OME would fail on it too: move it into a file the container reads"
            ),
        }
    }
}

impl fmt::Display for PlaceholderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for PlaceholderError {}

/// `text` with its placeholders expanded, or `None` when it holds no `{{` (and so stays as
/// it is).
pub(crate) fn expand(text: &str, meta: &Metadata<'_>) -> Result<Option<String>, PlaceholderError> {
    let Some(mut open) = text.find("{{") else {
        return Ok(None);
    };
    let mut out = String::with_capacity(text.len() + 32);
    let mut copied_up_to = 0;
    loop {
        out.push_str(&text[copied_up_to..open]);
        let action = lex_action(text, open)?;
        let value = evaluate(&action.tokens, meta).map_err(|kind| PlaceholderError {
            action: text[open..action.end].to_string(),
            offset: open,
            kind,
        })?;
        out.push_str(value);
        copied_up_to = action.end;
        match text[copied_up_to..].find("{{") {
            Some(i) => open = copied_up_to + i,
            None => break,
        }
    }
    out.push_str(&text[copied_up_to..]);
    Ok(Some(out))
}

/// A placeholder error in one string of a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldError {
    /// The field's path from the root of the tree: `image`, `args[3]`, `env[2].value`.
    pub(crate) path: String,
    /// Where the string is in the input; `Pos::NONE` for text ome-render made.
    pub(crate) pos: Pos,
    pub(crate) error: PlaceholderError,
}

/// Expands every string value under `node` in place (a container: image, command, args, env
/// values, probe paths, …). Returns every error; the strings that had none are expanded.
pub(crate) fn expand_tree(node: &mut Node, meta: &Metadata<'_>) -> Result<(), Vec<FieldError>> {
    let mut errors = Vec::new();
    let mut path = String::new();
    walk(node, meta, &mut path, &mut errors);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn walk(node: &mut Node, meta: &Metadata<'_>, path: &mut String, errors: &mut Vec<FieldError>) {
    let pos = node.pos;
    match &mut node.value {
        Value::Str(text) => match expand(text, meta) {
            Ok(Some(expanded)) => *text = expanded,
            Ok(None) => {}
            Err(error) => errors.push(FieldError {
                path: path.clone(),
                pos,
                error,
            }),
        },
        Value::Seq(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let len = path.len();
                let _ = write!(path, "[{i}]");
                walk(item, meta, path, errors);
                path.truncate(len);
            }
        }
        Value::Map(map) => {
            for (key, value) in map.iter_mut() {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                walk(value, meta, path, errors);
                path.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) => {}
    }
}

/// One word or quoted string inside `{{ }}`.
#[derive(Debug, PartialEq)]
enum Token<'t> {
    Word(&'t str),
    /// A quoted string, unquoted.
    Quoted(String),
}

struct Action<'t> {
    tokens: Vec<Token<'t>>,
    /// Byte offset just after the closing `}}`.
    end: usize,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Splits the action starting at `open` (the offset of its `{{`) into tokens, up to the
/// first `}}` that is not inside a quoted string.
fn lex_action(text: &str, open: usize) -> Result<Action<'_>, PlaceholderError> {
    let error = |end: usize, kind: PlaceholderErrorKind| PlaceholderError {
        action: shorten(&text[open..end]),
        offset: open,
        kind,
    };
    let mut tokens = Vec::new();
    let mut pos = open + 2;
    loop {
        let rest = &text[pos..];
        let trimmed = rest.trim_start_matches(is_space);
        pos += rest.len() - trimmed.len();
        if trimmed.starts_with("}}") {
            return Ok(Action {
                tokens,
                end: pos + 2,
            });
        }
        let Some(first) = trimmed.chars().next() else {
            return Err(error(text.len(), PlaceholderErrorKind::Unterminated));
        };
        match first {
            '"' | '`' => {
                let (value, len) = lex_quoted(trimmed).map_err(|why| {
                    let end = text[pos..].find("}}").map_or(text.len(), |i| pos + i + 2);
                    error(end, PlaceholderErrorKind::BadString(why))
                })?;
                tokens.push(Token::Quoted(value));
                pos += len;
            }
            _ => {
                let len = trimmed
                    .char_indices()
                    .find(|&(i, c)| {
                        is_space(c) || c == '"' || c == '`' || trimmed[i..].starts_with("}}")
                    })
                    .map_or(trimmed.len(), |(i, _)| i);
                tokens.push(Token::Word(&trimmed[..len]));
                pos += len;
            }
        }
    }
}

/// A quoted string at the start of `text`: its value and the bytes it takes. Double quotes
/// allow the escapes `\\` and `\"`; backquotes allow none, and lose `\r` as in Go.
fn lex_quoted(text: &str) -> Result<(String, usize), String> {
    let mut chars = text.char_indices();
    let Some((_, quote)) = chars.next() else {
        return Err("expected a quoted string".to_string());
    };
    let mut value = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c == quote => return Ok((value, i + c.len_utf8())),
            '\\' if quote == '"' => match chars.next() {
                Some((_, escaped @ ('\\' | '"'))) => value.push(escaped),
                Some((_, other)) => return Err(format!("the escape `\\{other}` is not supported")),
                None => break,
            },
            '\n' if quote == '"' => break,
            '\r' if quote == '`' => {}
            c => value.push(c),
        }
    }
    Err("the quoted key is not closed".to_string())
}

/// The action text for a message, at most 60 characters.
fn shorten(action: &str) -> String {
    const MAX_CHARS: usize = 60;
    match action.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &action[..cut]),
        None => action.to_string(),
    }
}

fn evaluate<'m>(
    tokens: &[Token<'_>],
    meta: &Metadata<'m>,
) -> Result<&'m str, PlaceholderErrorKind> {
    let first_word = match tokens.first() {
        None => return Err(PlaceholderErrorKind::Empty),
        Some(Token::Word(w)) => Some(*w),
        Some(Token::Quoted(_)) => None,
    };
    let last_word = match tokens.last() {
        Some(Token::Word(w)) => Some(*w),
        _ => None,
    };
    if first_word == Some("-") || last_word == Some("-") {
        return Err(PlaceholderErrorKind::TrimMarker);
    }
    if first_word.is_some_and(|w| w.starts_with("/*")) {
        return Err(PlaceholderErrorKind::Comment);
    }
    match tokens {
        [Token::Word(field)] if field.starts_with('.') => evaluate_field(field, meta),
        [Token::Word("index"), rest @ ..] => match rest {
            [Token::Word(map), Token::Quoted(key)] => {
                let values = match *map {
                    ".Labels" => meta.labels,
                    ".Annotations" => meta.annotations,
                    _ => return Err(PlaceholderErrorKind::BadIndex),
                };
                // `index` on a missing key gives the map's zero value: the empty string.
                Ok(lookup(values, key).unwrap_or(""))
            }
            _ => Err(PlaceholderErrorKind::BadIndex),
        },
        _ => Err(PlaceholderErrorKind::Unsupported),
    }
}

/// `.Name`, `.Namespace`, `.Labels.<key>` or `.Annotations.<key>`.
fn evaluate_field<'m>(field: &str, meta: &Metadata<'m>) -> Result<&'m str, PlaceholderErrorKind> {
    if field.contains(['|', '(', ')', '$', ',']) {
        return Err(PlaceholderErrorKind::Unsupported);
    }
    let path = &field[1..];
    let (head, key) = match path.split_once('.') {
        Some((head, key)) => (head, Some(key)),
        None => (path, None),
    };
    let (map_name, values) = match head {
        "Name" | "Namespace" => {
            if key.is_some() {
                return Err(PlaceholderErrorKind::FieldOfString(format!(".{head}")));
            }
            return Ok(if head == "Name" {
                meta.name
            } else {
                meta.namespace.unwrap_or("")
            });
        }
        "IngressDomain" if meta.ingress_domain.is_some() => {
            if key.is_some() {
                return Err(PlaceholderErrorKind::FieldOfString(format!(".{head}")));
            }
            return Ok(meta.ingress_domain.unwrap_or(""));
        }
        "Labels" => ("Labels", meta.labels),
        "Annotations" => ("Annotations", meta.annotations),
        "" => return Err(PlaceholderErrorKind::Unsupported),
        _ if CLUSTER_ONLY_FIELDS.contains(&head) => {
            return Err(PlaceholderErrorKind::ClusterOnlyField(format!(".{head}")));
        }
        _ => return Err(PlaceholderErrorKind::UnknownField(format!(".{head}"))),
    };
    let Some(key) = key else {
        return Err(PlaceholderErrorKind::WholeMap(map_name));
    };
    if !is_identifier(key) {
        return Err(PlaceholderErrorKind::KeyNeedsIndex {
            map: map_name,
            key: key.to_string(),
        });
    }
    Ok(lookup(values, key).unwrap_or(NO_VALUE))
}

/// A Go template field name: a letter or `_`, then letters, digits or `_`.
fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

fn lookup<'m>(values: &'m Map, key: &str) -> Option<&'m str> {
    // Labels and annotations are strings; the InferenceService reader drops other values.
    values.get(key).map(|v| v.as_str().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn string_map(pairs: &[(&str, &str)]) -> Map {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Node::str(*v)))
            .collect()
    }

    struct Fixture {
        labels: Map,
        annotations: Map,
    }

    impl Fixture {
        /// The bundled example's InferenceService: `llama-3-2-3b-instruct` in `llama-demo`
        /// (SEMANTICS.md#placeholders).
        fn new() -> Fixture {
            Fixture {
                labels: string_map(&[("team", "ml"), ("app.kubernetes.io/name", "llama")]),
                annotations: string_map(&[("note", "a&b\"c'd<e>f+g")]),
            }
        }

        fn meta(&self) -> Metadata<'_> {
            Metadata {
                name: "llama-3-2-3b-instruct",
                namespace: Some("llama-demo"),
                labels: &self.labels,
                annotations: &self.annotations,
                ingress_domain: None,
            }
        }

        fn expand(&self, text: &str) -> String {
            match expand(text, &self.meta()) {
                Ok(Some(out)) => out,
                Ok(None) => text.to_string(),
                Err(e) => panic!("{text}: {e}"),
            }
        }

        fn error(&self, text: &str) -> PlaceholderError {
            expand(text, &self.meta()).expect_err(text)
        }
    }

    #[test]
    fn text_without_braces_is_not_copied() {
        let f = Fixture::new();
        assert_eq!(expand("--port=8080", &f.meta()), Ok(None));
        assert_eq!(expand("a}}b {x}", &f.meta()), Ok(None));
    }

    #[test]
    fn vector_42_name_namespace_and_labels() {
        let f = Fixture::new();
        assert_eq!(
            f.expand("--served-model-name={{.Name}}"),
            "--served-model-name=llama-3-2-3b-instruct"
        );
        assert_eq!(
            f.expand("{{.Name}}.{{.Namespace}}"),
            "llama-3-2-3b-instruct.llama-demo"
        );
        assert_eq!(f.expand("img:{{.Labels.team}}"), "img:ml");
        assert_eq!(
            f.expand("{{ .Name }}|{{\t.Labels.team\n}}"),
            "llama-3-2-3b-instruct|ml"
        );
    }

    #[test]
    fn vector_42_missing_keys_follow_the_docs() {
        let f = Fixture::new();
        assert_eq!(f.expand("[{{.Labels.missing}}]"), "[<no value>]");
        assert_eq!(f.expand("[{{.Annotations.missing}}]"), "[<no value>]");
        assert_eq!(f.expand("[{{index .Labels `missing`}}]"), "[]");
        assert_eq!(f.expand("[{{index .Annotations \"missing\"}}]"), "[]");
    }

    #[test]
    fn vector_42_index_form_with_both_quotes() {
        let f = Fixture::new();
        assert_eq!(
            f.expand("{{index .Labels `app.kubernetes.io/name`}}"),
            "llama"
        );
        assert_eq!(
            f.expand("{{index .Labels \"app.kubernetes.io/name\"}}"),
            "llama"
        );
        assert_eq!(f.expand("{{ index  .Labels  \"team\" }}"), "ml");
        assert_eq!(f.expand("{{index .Labels \"a}}b\"}}"), "");
    }

    #[test]
    fn vector_42_values_are_not_escaped() {
        let f = Fixture::new();
        assert_eq!(f.expand("{{.Annotations.note}}"), "a&b\"c'd<e>f+g");
        assert_eq!(f.expand("a && b > c {{.Labels.team}}"), "a && b > c ml");
    }

    #[test]
    fn vector_42_unknown_field_is_an_error() {
        let f = Fixture::new();
        let e = f.error("x={{.Foo}}");
        assert_eq!(
            e.kind,
            PlaceholderErrorKind::UnknownField(".Foo".to_string())
        );
        assert_eq!(e.action, "{{.Foo}}");
        assert_eq!(e.offset, 2);
        assert!(e.help().contains("{{.Name}}"), "{}", e.help());
    }

    #[test]
    fn v13_vector_40_missing_team_label() {
        let labels = Map::new();
        let annotations = Map::new();
        let meta = Metadata {
            name: "llama",
            namespace: None,
            labels: &labels,
            annotations: &annotations,
            ingress_domain: None,
        };
        assert_eq!(
            expand("--served-model-name={{.Labels.team}}", &meta),
            Ok(Some("--served-model-name=<no value>".to_string()))
        );
        assert_eq!(
            expand("--served-model-name={{index .Labels `team`}}", &meta),
            Ok(Some("--served-model-name=".to_string()))
        );
        assert_eq!(
            expand("ns={{.Namespace}}", &meta),
            Ok(Some("ns=".to_string()))
        );
    }

    #[test]
    fn dotted_keys_need_the_index_form() {
        let f = Fixture::new();
        let e = f.error("{{.Labels.app.kubernetes.io/name}}");
        assert_eq!(
            e.kind,
            PlaceholderErrorKind::KeyNeedsIndex {
                map: "Labels",
                key: "app.kubernetes.io/name".to_string()
            }
        );
        assert_eq!(
            e.help(),
            "use the index form: {{index .Labels \"app.kubernetes.io/name\"}}"
        );
        assert!(matches!(
            f.error("{{.Annotations.my-key}}").kind,
            PlaceholderErrorKind::KeyNeedsIndex {
                map: "Annotations",
                ..
            }
        ));
    }

    #[test]
    fn other_actions_are_errors() {
        let f = Fixture::new();
        let cases = [
            ("{{printf \"%s\" .Name}}", PlaceholderErrorKind::Unsupported),
            (
                "{{.Name | printf \"%s\"}}",
                PlaceholderErrorKind::Unsupported,
            ),
            ("{{.Name|upper}}", PlaceholderErrorKind::Unsupported),
            ("{{if .Name}}x{{end}}", PlaceholderErrorKind::Unsupported),
            ("{{$x := .Name}}", PlaceholderErrorKind::Unsupported),
            ("{{\"literal\"}}", PlaceholderErrorKind::Unsupported),
            ("{{.}}", PlaceholderErrorKind::Unsupported),
            ("{{- .Name -}}", PlaceholderErrorKind::TrimMarker),
            ("{{.Name -}}", PlaceholderErrorKind::TrimMarker),
            ("{{/* note */}}", PlaceholderErrorKind::Comment),
            ("{{}}", PlaceholderErrorKind::Empty),
            ("{{  }}", PlaceholderErrorKind::Empty),
            (
                "{{.name}}",
                PlaceholderErrorKind::UnknownField(".name".to_string()),
            ),
            (
                "{{.UID}}",
                PlaceholderErrorKind::ClusterOnlyField(".UID".to_string()),
            ),
            ("{{.Labels}}", PlaceholderErrorKind::WholeMap("Labels")),
            (
                "{{.Name.first}}",
                PlaceholderErrorKind::FieldOfString(".Name".to_string()),
            ),
            ("{{index .Labels}}", PlaceholderErrorKind::BadIndex),
            ("{{index .Spec \"x\"}}", PlaceholderErrorKind::BadIndex),
            (
                "{{index .Labels \"a\" \"b\"}}",
                PlaceholderErrorKind::BadIndex,
            ),
            ("{{index .Labels .Name}}", PlaceholderErrorKind::BadIndex),
            ("--x={{.Name", PlaceholderErrorKind::Unterminated),
            ("{{", PlaceholderErrorKind::Unterminated),
        ];
        for (text, kind) in cases {
            assert_eq!(f.error(text).kind, kind, "{text}");
        }
        assert_eq!(
            f.error("{{.name}}").help(),
            "field names are case-sensitive: write `.Name`"
        );
    }

    #[test]
    fn jinja_chat_templates_are_errors_with_a_hint() {
        let f = Fixture::new();
        let e = f.error("--chat-template={% for m in messages %}{{ m.content }}{% endfor %}");
        assert_eq!(e.kind, PlaceholderErrorKind::Unsupported);
        assert_eq!(e.action, "{{ m.content }}");
        assert!(e.help().contains("chat template"), "{}", e.help());
    }

    #[test]
    fn bad_quoted_keys_are_errors() {
        let f = Fixture::new();
        assert!(matches!(
            f.error("{{index .Labels \"team}}").kind,
            PlaceholderErrorKind::BadString(_)
        ));
        assert!(matches!(
            f.error("{{index .Labels \"te\\nam\"}}").kind,
            PlaceholderErrorKind::BadString(_)
        ));
        assert_eq!(f.expand("{{index .Labels \"te\\\\am\"}}"), "");
        assert_eq!(f.expand("{{index .Labels `te\ram`}}"), "ml");
    }

    #[test]
    fn the_first_error_of_a_string_is_reported_with_its_offset() {
        let f = Fixture::new();
        let e = f.error("{{.Name}} {{.Foo}} {{.Bar}}");
        assert_eq!(e.offset, 10);
        assert_eq!(e.action, "{{.Foo}}");
    }

    #[test]
    fn long_unterminated_actions_are_shortened() {
        let f = Fixture::new();
        let text = format!("{{{{ {}", "x".repeat(200));
        let e = f.error(&text);
        assert_eq!(e.kind, PlaceholderErrorKind::Unterminated);
        assert!(e.action.chars().count() <= 61, "{}", e.action);
    }

    #[test]
    fn non_ascii_text_around_and_inside_actions() {
        let f = Fixture::new();
        assert_eq!(f.expand("é{{.Labels.team}}ü"), "émlü");
        assert_eq!(f.expand("é{{.Labels.équipe}}ü"), "é<no value>ü");
        assert_eq!(f.error("{{ é }}").kind, PlaceholderErrorKind::Unsupported);
    }

    fn container(yaml: &str) -> Node {
        parse_stream(yaml, 0).expect("yaml").remove(0).root
    }

    #[test]
    fn tree_strings_are_expanded_in_place() {
        let f = Fixture::new();
        let mut node = container(
            "name: ome-container\n\
             image: img:{{.Labels.team}}\n\
             args: [--port=8080, '--served-model-name={{.Name}}']\n\
             env:\n\
             - {name: HOST, value: '{{.Name}}.{{.Namespace}}'}\n\
             - {name: N, value: 3}\n\
             readinessProbe: {httpGet: {path: '/{{.Name}}/health', port: 8080}}\n",
        );
        assert_eq!(expand_tree(&mut node, &f.meta()), Ok(()));
        assert_eq!(node.str_at(&["image"]), Some("img:ml"));
        let args = node.get("args").and_then(Node::as_seq).expect("args");
        assert_eq!(
            args[1].as_str(),
            Some("--served-model-name=llama-3-2-3b-instruct")
        );
        let env = node.get("env").and_then(Node::as_seq).expect("env");
        assert_eq!(
            env[0].str_at(&["value"]),
            Some("llama-3-2-3b-instruct.llama-demo")
        );
        assert_eq!(env[1].get("value").and_then(Node::as_i64), Some(3));
        assert_eq!(
            node.str_at(&["readinessProbe", "httpGet", "path"]),
            Some("/llama-3-2-3b-instruct/health")
        );
    }

    #[test]
    fn tree_errors_carry_the_field_path_and_position() {
        let f = Fixture::new();
        let mut node = container(
            "args: [a, b, c, '{{.Foo}}']\n\
             env:\n\
             - {name: A, value: x}\n\
             - {name: B, value: y}\n\
             - {name: C, value: '{{ m.content }}'}\n\
             image: '{{.Name}}'\n",
        );
        let errors = expand_tree(&mut node, &f.meta()).expect_err("two errors");
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["args[3]", "env[2].value"]);
        assert_eq!(errors[0].pos.line, 1);
        assert_eq!(errors[1].pos.line, 5);
        // Strings without errors are still expanded.
        assert_eq!(node.str_at(&["image"]), Some("llama-3-2-3b-instruct"));
    }

    #[test]
    fn tree_map_keys_are_left_alone() {
        let f = Fixture::new();
        let mut node = container("resources:\n  limits:\n    '{{.Name}}': '1'\n");
        assert_eq!(expand_tree(&mut node, &f.meta()), Ok(()));
        let limits = node
            .at(&["resources", "limits"])
            .and_then(Node::as_map)
            .expect("limits");
        assert_eq!(limits.keys().collect::<Vec<_>>(), ["{{.Name}}"]);
    }
}
