//! Entry points for the fuzz targets in `fuzz/` (FUZZING.md), compiled only with the
//! `fuzzing` feature. Each runs one part of ome-render on arbitrary input and panics only
//! where ome-render itself would, or where a property it promises fails: the reader never
//! panics, its fast path reads what its event parser reads, and what the emitter writes reads
//! back as the same values; the pipeline never
//! panics and its output parses; the placeholder expander leaves text without `{{` alone;
//! version comparison is an order; the renderers never panic, whatever the positions.
//!
//! Nothing here is part of the library's interface.

use crate::diagnostics::report::{ErrorFormat, Item, at_most, render};
use crate::diagnostics::{Code, Diagnostic};
use crate::emit::Format;
use crate::k8s::id::ObjectId;
use crate::load::Limits;
use crate::merge::args::{apply_parallelism, merge_args};
use crate::model::runtime::SizeRange;
use crate::model::version::{Version, accepts, compare};
use crate::pipeline::{Options, render_texts};
use crate::render::placeholders::{Metadata, expand};
use crate::rendered::Body;
use crate::select::size::{distance, in_range, out_of_range_reason, parse_size, range_label};
use crate::source::Sources;
use crate::yaml::emit::{write_json, write_yaml};
use crate::yaml::parse::{AliasBudget, parse_stream_limited};
use crate::yaml::{Map, Node, Pos, Value};
use std::cmp::Ordering;
use std::sync::Arc;

/// Whether two trees hold the same values (positions aside). Floats compare as numbers;
/// `json` allows what JSON can't hold (a float that is not finite) to come back as a string.
fn same(a: &Node, b: &Node, json: bool) -> bool {
    match (&a.value, &b.value) {
        (Value::Float(x), Value::Float(y)) => match (float(x), float(y)) {
            (Some(x), Some(y)) => x == y || (x.is_nan() && y.is_nan()),
            _ => x == y,
        },
        // JSON has one kind of number: a float with an integer's value reads back as one.
        (Value::Float(x), Value::Int(y)) if json => float(x).is_some_and(|f| f == *y as f64),
        // JSON has no infinities or NaN: the JSON writer keeps their text as a string.
        (Value::Float(x), Value::Str(y)) if json => {
            x == y && float(x).is_none_or(|f| !f.is_finite())
        }
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b, json))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb, json))
        }
        (x, y) => x == y,
    }
}

fn has_long_key(node: &Node) -> bool {
    match &node.value {
        Value::Map(m) => m.iter().any(|(k, v)| k.len() > 1000 || has_long_key(v)),
        Value::Seq(items) => items.iter().any(has_long_key),
        _ => false,
    }
}

/// A YAML float's value, `.inf` and `.nan` spellings included.
fn float(raw: &str) -> Option<f64> {
    let lower = raw.to_ascii_lowercase();
    match lower.as_str() {
        ".inf" | "+.inf" => Some(f64::INFINITY),
        "-.inf" => Some(f64::NEG_INFINITY),
        ".nan" => Some(f64::NAN),
        _ => raw.parse().ok(),
    }
}

fn reparse(bytes: &[u8]) -> Node {
    let text = std::str::from_utf8(bytes).expect("the emitter writes UTF-8");
    let limits = Limits {
        // A document as deep as the limit is written as deep; an alias copy already
        // counted once is plain nodes the second time.
        alias_nodes: u64::MAX,
        alias_bytes: u64::MAX,
        ..Limits::default()
    };
    let budget = AliasBudget::new(u64::MAX, u64::MAX);
    let mut docs = parse_stream_limited(text, 0, &limits.parse(), &budget)
        .unwrap_or_else(|e| panic!("emitted text does not parse: {e:?}\n{text}"));
    assert_eq!(docs.len(), 1, "one document in:\n{text}");
    docs.remove(0).root
}

/// The YAML reader on arbitrary text, and every document it reads back through the YAML and
/// JSON emitters and the reader again. Where the reader's fast path takes the text, it must
/// read what the event parser reads.
pub fn yaml(text: &str) {
    let limits = Limits::default().parse();
    crate::yaml::parse::check_fast_path(text, &limits);
    let budget = AliasBudget::new(u64::MAX, u64::MAX);
    let Ok(docs) = parse_stream_limited(text, 0, &limits, &budget) else {
        return;
    };
    for doc in docs {
        let mut out = Vec::new();
        write_yaml(&doc.root, &mut out);
        let back = reparse(&out);
        assert!(
            same(&doc.root, &back, false),
            "YAML round trip changed the values:\n{}",
            String::from_utf8_lossy(&out)
        );
        if has_long_key(&doc.root) {
            // YAML readers, ours too, take no implicit key past 1,024 characters, and every
            // JSON key is one: such JSON is valid, but not for this reader.
            continue;
        }
        let mut out = Vec::new();
        write_json(&doc.root, &mut out);
        let back = reparse(&out);
        assert!(
            same(&doc.root, &back, true),
            "JSON round trip changed the values:\n{}",
            String::from_utf8_lossy(&out)
        );
    }
}

/// The whole pipeline on up to eight files (split at NUL bytes), then every diagnostic in
/// every format. Without errors, every object it writes must read back.
pub fn pipeline(data: &[u8]) {
    let parts: Vec<String> = data
        .split(|b| *b == 0)
        .take(8)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let names: Vec<String> = (0..parts.len()).map(|i| format!("f{i}.yaml")).collect();
    let files: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(parts.iter().map(String::as_str))
        .collect();
    for format in [Format::Yaml, Format::JsonList, Format::JsonLines] {
        let options = Options {
            namespace: "default".into(),
            serialise: Some(format),
            ..Options::default()
        };
        let rendering = render_texts(&files, &options);
        let (mut shown, omitted) =
            at_most(rendering.diags.iter().map(Item::Diagnostic).collect(), 50);
        shown.extend(omitted.as_ref().map(Item::Diagnostic));
        for f in [ErrorFormat::Human, ErrorFormat::Github, ErrorFormat::Json] {
            let _ = render(&shown, &rendering.sources, f, false);
        }
        if rendering.diags.iter().any(Diagnostic::is_error) {
            continue;
        }
        for object in &rendering.objects {
            if let Body::Bytes(bytes) = &object.body {
                let root = reparse(bytes);
                assert!(root.as_map().is_some(), "an object is a map");
            }
        }
    }
}

/// The placeholder expander on `text`, with the labels and annotations `pairs` gives.
pub fn placeholders(text: &str, pairs: &[(String, String)]) {
    let mut labels = Map::new();
    for (k, v) in pairs {
        labels.insert(k.clone(), Node::str(v.clone()));
    }
    let meta = Metadata {
        name: "svc",
        namespace: Some("ns"),
        labels: &labels,
        annotations: &labels,
        ingress_domain: None,
    };
    match expand(text, &meta) {
        Ok(None) => assert!(!text.contains("{{"), "a `{{` left unexpanded: {text:?}"),
        Ok(Some(_)) => assert!(text.contains("{{")),
        Err(e) => {
            assert!(text.contains("{{"), "an error without `{{`: {text:?}");
            let _ = (e.message(), e.help());
        }
    }
}

/// OME's version parser and comparison on three versions: comparing is an order.
pub fn versions(a: &str, b: &str, c: &str, operator: &str) {
    let _ = accepts(a, operator, b);
    let (Some(x), Some(y), Some(z)) = (Version::parse(a), Version::parse(b), Version::parse(c))
    else {
        return;
    };
    assert_eq!(compare(&x, &x), Ordering::Equal, "{a:?} against itself");
    assert_eq!(
        compare(&x, &y),
        compare(&y, &x).reverse(),
        "{a:?} and {b:?}"
    );
    if compare(&x, &y) != Ordering::Greater && compare(&y, &z) != Ordering::Greater {
        assert_ne!(compare(&x, &z), Ordering::Greater, "{a:?} ≤ {b:?} ≤ {c:?}");
    }
}

/// OME's parameter-size parser, range check, label and distance.
pub fn sizes(size: &str, min: Option<&str>, max: Option<&str>) {
    let _ = parse_size(size);
    let range = SizeRange {
        min: min.map(str::to_string),
        max: max.map(str::to_string),
    };
    let _ = (range_label(&range), out_of_range_reason(size, &range));
    let _ = distance(Some(size), Some(&range));
    let open = SizeRange {
        min: None,
        max: None,
    };
    assert!(in_range(size, &open), "an open range takes {size:?}");
    let _ = in_range(size, &range);
}

/// `runtimeArgsOverride` merged into `args`, then the TP/PP rewrite.
pub fn args(args: &[String], overrides: &[String], tensor: Option<i64>, pipeline: Option<i64>) {
    assert_eq!(
        merge_args(Some(args), &[]).as_deref(),
        Some(args),
        "no overrides, no change"
    );
    let mut merged = merge_args(Some(args), overrides).unwrap_or_default();
    let mut command = args.to_vec();
    let _ = apply_parallelism(&mut merged, &mut command, tensor, pipeline);
}

/// The three diagnostic renderers on `text`, with diagnostics at `positions` (line, column)
/// carrying `message`, some with a related position and some without a file.
pub fn diagnostics(text: &str, positions: &[(u32, u32)], message: &str) {
    let mut sources = Sources::new();
    let file = sources.add("input.yaml".to_string(), Arc::from(text));
    let diags: Vec<Diagnostic> = positions
        .iter()
        .enumerate()
        .map(|(i, &(line, col))| {
            let pos = Pos { file, line, col };
            let d = match i % 3 {
                0 => Diagnostic::error(Code::YamlSyntax, message),
                1 => Diagnostic::warning(Code::UnknownField, message),
                _ => Diagnostic::note(Code::NotAnObject, message),
            };
            let d = d.at(pos).help(message).field(message);
            match i % 4 {
                0 => d.related(
                    Pos {
                        file,
                        line: col,
                        col: line,
                    },
                    message,
                ),
                1 => d.object(ObjectId {
                    kind: message.into(),
                    namespace: message.into(),
                    name: message.into(),
                    group: message.into(),
                }),
                2 => Diagnostic::error(Code::Limit, message),
                _ => d,
            }
        })
        .collect();
    let (mut shown, omitted) = at_most(diags.iter().map(Item::Diagnostic).collect(), 20);
    shown.extend(omitted.as_ref().map(Item::Diagnostic));
    let diags = shown;
    for format in [ErrorFormat::Human, ErrorFormat::Github, ErrorFormat::Json] {
        for color in [false, true] {
            let out = render(&diags, &sources, format, color);
            // JSON lines escape by JSON's rules, for a machine to decode.
            if format != ErrorFormat::Json {
                // What the input holds reaches the terminal (or the CI log) escaped; in
                // colour, only the renderer's own colour sequences (`ESC [ … m`) are left.
                assert_terminal_safe(&without_colours(&out), &[]);
            }
        }
    }
}

/// `out` without its SGR sequences (`ESC [`, digits and `;`, `m`): the colours a renderer
/// writes itself. Any other escape sequence, and any other control character, stays.
fn without_colours(out: &str) -> String {
    let mut rest = String::with_capacity(out.len());
    let mut chars = out.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\x1b' {
            let tail = &out[i + 1..];
            if let Some(params) = tail.strip_prefix('[') {
                let len = params
                    .find(|c: char| !(c.is_ascii_digit() || c == ';'))
                    .unwrap_or(params.len());
                if params[len..].starts_with('m') {
                    // Skip `[`, the parameters and `m`.
                    for _ in 0..len + 2 {
                        chars.next();
                    }
                    continue;
                }
            }
        }
        rest.push(c);
    }
    rest
}

/// The colour sequences the text report writes itself.
const TEXT_STYLES: &[&str] = &[
    "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m", "\x1b[0m",
];

/// No control character reaches a terminal but the line break and the tab (and the colour
/// sequences `styles` the renderer writes itself).
fn assert_terminal_safe(out: &str, styles: &[&str]) {
    let mut rest = out.to_string();
    for style in styles {
        rest = rest.replace(style, "");
    }
    if let Some(c) = rest
        .chars()
        .find(|&c| c != '\n' && c != '\t' && crate::diagnostics::escape::acts_on_terminal(c))
    {
        panic!("{c:?} reaches the terminal:\n{out}");
    }
}

/// The HTML tags the Markdown report writes itself.
const MARKDOWN_TAGS: &[&str] = &[
    "<code>",
    "</code>",
    "<details>",
    "</details>",
    "<summary>",
    "</summary>",
];

/// The Markdown report holds no markup from its input: outside its code blocks, no backtick
/// but those of its own phrases, no `<` but its own tags, no control character; a code
/// block's fence is longer than any run of backticks inside it, and the block holds no
/// control character either.
fn assert_markdown_safe(out: &str) {
    let mut lines = out.split('\n');
    while let Some(line) = lines.next() {
        let ticks = line.len() - line.trim_start_matches('`').len();
        if ticks >= 3 {
            let fence = &line[..ticks];
            loop {
                let inner = lines
                    .next()
                    .unwrap_or_else(|| panic!("unclosed block:\n{out}"));
                if inner == fence {
                    break;
                }
                let run = inner.len() - inner.trim_start_matches('`').len();
                assert!(run < ticks, "a line closes the block early:\n{out}");
                assert_terminal_safe(inner, &[]);
            }
            continue;
        }
        let mut text = line.replace("`ome-render diff`", "");
        for tag in MARKDOWN_TAGS {
            text = text.replace(tag, "");
        }
        assert!(!text.contains('`'), "a backtick from the input:\n{line}");
        assert!(!text.contains('<'), "a `<` from the input:\n{line}");
        assert_terminal_safe(&text, &[]);
    }
}

/// One changed object of [`reports`]: kind, namespace, name, the text of its diff.
pub type ReportObject = (String, Option<String>, String, String);

/// The diff reports (Markdown for the pull-request comment, text for a terminal, with and
/// without colour) of a report whose names, kinds, labels and diffs are any text: nothing of
/// the input acts as markup or as a control sequence.
pub fn reports(
    labels: (&str, &str),
    isvc: Option<(&str, &str)>,
    objects: &[ReportObject],
    max_bytes: usize,
) {
    use crate::diff::format::{Labels, markdown, text};
    use crate::diff::impact::{Choice, Impact, ResourceImpact};
    use crate::diff::{Cause, Change, Group, ObjectDiff, Report};
    use crate::k8s::id::ObjectId;
    use crate::textdiff::LineDiff;
    let id = |(ns, name): (&str, &str)| ObjectId {
        kind: "InferenceService".to_string(),
        namespace: ns.to_string(),
        name: name.to_string(),
        group: String::new(),
    };
    let changes = [Change::Added, Change::Removed, Change::Changed];
    let diffs: Vec<ObjectDiff> = objects
        .iter()
        .enumerate()
        .map(|(i, (kind, namespace, name, hunks))| ObjectDiff {
            api_version: "v1".to_string(),
            kind: kind.clone(),
            namespace: namespace.clone(),
            name: name.clone(),
            change: changes[i % 3],
            lines: LineDiff {
                hunks: if hunks.is_empty() || hunks.ends_with('\n') {
                    hunks.clone()
                } else {
                    format!("{hunks}\n")
                },
                added: i,
                removed: hunks.len(),
            },
        })
        .collect();
    let other = |i: usize| {
        objects.get(i).map_or_else(
            || id(("ns", "name")),
            |(kind, ns, name, _)| ObjectId {
                kind: kind.clone(),
                namespace: ns.clone().unwrap_or_default(),
                name: name.clone(),
                group: String::new(),
            },
        )
    };
    let isvc_id = isvc.map(id);
    let mut causes = vec![Cause::Edited, Cause::Settings];
    causes.push(Cause::Runtime {
        was: other(0),
        now: other(1),
    });
    causes.push(Cause::Resource(other(2), Change::Changed));
    let reached: Vec<ObjectId> = (0..objects.len()).map(other).collect();
    let report = Report {
        groups: vec![
            Group {
                isvc: isvc_id.clone(),
                change: Change::Changed,
                causes,
                objects: diffs.clone(),
            },
            Group {
                isvc: None,
                change: Change::Changed,
                causes: Vec::new(),
                objects: diffs,
            },
        ],
        impact: Impact {
            resources: vec![ResourceImpact {
                id: other(3),
                change: Change::Removed,
                reached: reached.clone(),
                users: objects.len() + 1,
            }],
            settings: Some(reached.clone()),
            choices: vec![Choice {
                isvc: isvc_id.clone().unwrap_or_else(|| other(4)),
                was: other(5),
                now: other(6),
                was_auto: true,
                now_auto: false,
            }],
            edited: reached.clone(),
            unattributed: reached,
        },
        base_objects: 1,
        head_objects: objects.len(),
        // A base that does not render: its errors quote the input.
        base_errors: Some(vec![labels.0.to_string(), labels.1.to_string()]),
    };
    let labels = Labels {
        base: labels.0.to_string(),
        head: labels.1.to_string(),
    };
    assert_markdown_safe(&markdown::render(&report, &labels, max_bytes));
    assert_markdown_safe(&markdown::render(&report, &labels, usize::MAX));
    assert_terminal_safe(&text::render(&report, &labels, false), &[]);
    assert_terminal_safe(&text::render(&report, &labels, true), TEXT_STYLES);
}

/// The entry points on the repository's own inputs and on every input fuzzing found a
/// crash with (`fuzz/regressions/`), so `.ci/run` checks them without a fuzzer.
#[cfg(test)]
mod tests {
    #![expect(
        clippy::disallowed_methods,
        reason = "the test reads the repository's inputs"
    )]

    use super::*;
    use std::path::{Path, PathBuf};

    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else {
                out.push(path);
            }
        }
    }

    fn under(dir: &str) -> Vec<PathBuf> {
        let mut out = Vec::new();
        files(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir), &mut out);
        out.sort();
        out
    }

    #[test]
    fn the_reader_and_the_pipeline_take_every_input_of_the_repository() {
        let mut seen = 0;
        for path in under("testdata").into_iter().chain(under("examples")) {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            yaml(&text);
            pipeline(text.as_bytes());
            seen += 1;
        }
        assert!(seen > 40, "{seen} inputs");
    }

    #[test]
    fn the_crashes_fuzzing_found_stay_fixed() {
        let yaml_inputs = under("fuzz/regressions/yaml");
        let pipeline_inputs = under("fuzz/regressions/pipeline");
        assert!(!yaml_inputs.is_empty() && !pipeline_inputs.is_empty());
        for path in yaml_inputs {
            let bytes = std::fs::read(&path).unwrap();
            yaml(std::str::from_utf8(&bytes).unwrap());
        }
        for path in pipeline_inputs {
            pipeline(&std::fs::read(&path).unwrap());
        }
    }

    #[test]
    fn the_reports_escape_markup_and_control_characters() {
        let hostile = "Pod`![img](https://e.vil/x.png) @admin **approved** <img src=x>\u{1b}[2J\r\n```\n</details>";
        let objects: Vec<ReportObject> = vec![
            (
                hostile.into(),
                Some(hostile.into()),
                hostile.into(),
                format!("+{hostile}\n-````\n"),
            ),
            (
                "Deployment".into(),
                None,
                "a".into(),
                "@@ -1 +1 @@\n-a\n+b\n".into(),
            ),
            (
                String::new(),
                Some(String::new()),
                String::new(),
                String::new(),
            ),
        ];
        reports((hostile, "HEAD`"), Some((hostile, "x")), &objects, 300);
        reports(("a", "b"), None, &objects[1..], 10);
        reports(("", ""), None, &[], 0);
    }

    #[test]
    fn the_other_entry_points_take_their_edge_cases() {
        placeholders(
            "{{.Name}} {{index .Labels \"a\"}} {{",
            &[("a".into(), "b".into())],
        );
        placeholders("no braces", &[]);
        versions("1.2.3", "v1.2", "1.2.3-rc.1", "GreaterThanOrEqual");
        sizes("7B", Some("1B"), None);
        sizes("", None, Some("NaN"));
        args(
            &["--tp-size=2".into(), "--x".into()],
            &["--x=1".into()],
            Some(4),
            Some(0),
        );
        diagnostics(
            "kind: \"Pod\\e[2J\"\na: \u{1b}]0;title\u{7}\u{202e}\n",
            &[(1, 6), (2, 3), (2, 0)],
            "kind \u{1b}[31mPod`![x](y)`\r\n<img>",
        );
        diagnostics(
            "a: 1\nb: é\n",
            &[(0, 0), (2, 3), (u32::MAX, u32::MAX), (1, 70_000)],
            "m",
        );
    }
}
