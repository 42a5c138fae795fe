//! Renders collected diagnostics for the caller: miette's graphical report for a terminal,
//! GitHub workflow commands for annotations in pull requests, or JSON lines for machines.

use super::{Code, Diagnostic, Severity};
use crate::source::{SourceFile, Sources};
use crate::yaml::Pos;
use crate::yaml::emit::write_json_string;
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents, ThemeCharacters,
};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum ErrorFormat {
    /// miette's graphical report: a header, the source lines with a label, the help.
    #[default]
    Human,
    /// `::error file=…,line=…,col=…,title=…::message` lines for GitHub Actions.
    Github,
    /// One JSON object per diagnostic and line.
    Json,
}

/// Renders every diagnostic, in order, as one string for standard error.
pub(crate) fn render(
    diags: &[Diagnostic],
    sources: &Sources,
    format: ErrorFormat,
    color: bool,
) -> String {
    let mut out = String::new();
    for d in diags {
        match format {
            ErrorFormat::Human => out.push_str(&human(d, sources, color)),
            ErrorFormat::Github => out.push_str(&github(d, sources)),
            ErrorFormat::Json => out.push_str(&json(d, sources)),
        }
    }
    out
}

/// At most `max` diagnostics, in their order: errors first, then warnings, then notes, when
/// some must go; a closing note counts the ones left out. Sorting is `n log n`, so a run
/// with a million diagnostics reports in time.
pub(crate) fn at_most(diags: Vec<Diagnostic>, max: usize) -> Vec<Diagnostic> {
    if diags.len() <= max {
        return diags;
    }
    let mut order: Vec<usize> = (0..diags.len()).collect();
    order.sort_by_key(|&i| (diags[i].severity, i));
    let mut keep = vec![false; diags.len()];
    order.iter().take(max).for_each(|&i| keep[i] = true);
    let mut left_out = [0usize; 3];
    let mut shown = Vec::with_capacity(max + 1);
    for (d, keep) in diags.into_iter().zip(keep) {
        if keep {
            shown.push(d);
        } else {
            left_out[d.severity as usize] += 1;
        }
    }
    let [errors, warnings, notes] = left_out;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    shown.push(
        Diagnostic::note(
            Code::Omitted,
            format!(
                "{} more not shown ({}, {}, {}; limit `diagnostics`)",
                errors + warnings + notes,
                plural(errors, "error"),
                plural(warnings, "warning"),
                plural(notes, "note"),
            ),
        )
        .help(format!(
            "fix the ones above and run again, or raise the limit with `--limit diagnostics=<N>` (SEMANTICS.md#limits); at most {max} are shown"
        )),
    );
    shown
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// The message with the object and field folded in, for formats without a label.
fn full_message(d: &Diagnostic) -> String {
    let mut msg = String::new();
    if let Some(obj) = &d.object {
        msg.push_str(&obj.to_string());
        msg.push_str(": ");
    }
    if let Some(field) = &d.field {
        msg.push_str(field);
        msg.push_str(": ");
    }
    msg.push_str(&d.message);
    msg
}

/// A diagnostic in miette's terms, pointing into one source file.
struct MietteView {
    message: String,
    severity: miette::Severity,
    help: Option<String>,
    source: Option<Snippet>,
    labels: Vec<LabeledSpan>,
    related: Vec<MietteView>,
}

impl fmt::Debug for MietteView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for MietteView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MietteView {}

impl miette::Diagnostic for MietteView {
    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            None
        } else {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(
                self.related.iter().map(|r| r as &dyn miette::Diagnostic),
            ))
        }
    }
}

/// Lines are shown whole up to this many characters; a longer one is cut to this many around
/// the column (minified JSON puts whole objects on one line).
const WINDOW: usize = 120;

/// What marks a cut line.
const CUT: &str = "...";

/// The few lines of a file a diagnostic shows, as miette's source: miette reads only these,
/// so a diagnostic costs the same at line 1 or 1,000,000 and at column 5 or 5,000,000, and
/// long lines are cut to a window around the column (miette's underline panics past column
/// 65,535). Line numbers and the column stay those of the file.
struct Snippet {
    name: String,
    text: String,
    /// The file's 0-based line number of the snippet's first line.
    first_line: usize,
    /// Where the label starts in `text`, and its true column (characters).
    label_offset: usize,
    label_col: usize,
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner =
            self.text
                .as_str()
                .read_span(span, context_lines_before, context_lines_after)?;
        let column = if span.offset() == self.label_offset && context_lines_before == 0 {
            self.label_col
        } else {
            inner.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            column,
            inner.line_count(),
        )))
    }
}

/// The byte range of a window of at most [`WINDOW`] characters of `line` (a line's text)
/// starting at byte `from`.
fn window_end(line: &str, from: usize) -> usize {
    line[from..]
        .char_indices()
        .nth(WINDOW)
        .map_or(line.len(), |(b, _)| from + b)
}

/// The lines around `pos` (one before and after), cut to a window when long, and the span
/// of the token at the position within them.
fn snippet(file: &SourceFile, pos: Pos) -> (Snippet, SourceSpan) {
    let text: &str = &file.text;
    let index = file.lines();
    let line = pos.line.max(1);
    // A position past the last line (an error at the end of the text) shows an empty line.
    let label_range = index.range(text, line).unwrap_or((text.len(), text.len()));
    let label_line = &text[label_range.0..label_range.1];
    let col_byte = index
        .offset(text, line, pos.col)
        .clamp(label_range.0, label_range.1)
        - label_range.0;
    // The window starts up to half of it before the column, on a character boundary.
    let cut = label_line.len() > WINDOW && label_line.chars().nth(WINDOW).is_some();
    let (window_start_col, window_start) = if cut {
        let back = label_line[..col_byte]
            .char_indices()
            .rev()
            .nth(WINDOW / 2 - 1)
            .map_or(0, |(b, _)| b);
        (
            (pos.col as usize).saturating_sub(label_line[back..col_byte].chars().count()),
            back,
        )
    } else {
        (0, 0)
    };

    let first = line.saturating_sub(1).max(1);
    let last = line
        .saturating_add(1)
        .min(u32::try_from(index.count()).unwrap_or(u32::MAX));
    let mut out = String::new();
    let mut label_offset = 0;
    for n in first..=last.max(line) {
        if n > first {
            out.push('\n');
        }
        let (start, end) = index.range(text, n).unwrap_or((text.len(), text.len()));
        let body = &text[start..end];
        let (from, to) = if !cut {
            (0, body.len())
        } else if n == line {
            (window_start, window_end(body, window_start))
        } else {
            let from =
                index.offset(text, n, u32::try_from(window_start_col).unwrap_or(u32::MAX)) - start;
            (from, window_end(body, from))
        };
        if from > 0 {
            out.push_str(CUT);
        }
        if n == line {
            label_offset = out.len() + col_byte - from;
        }
        out.push_str(&body[from..to]);
        if to < body.len() {
            out.push_str(CUT);
        }
    }
    // The line break after the last line, as the file has it.
    if index
        .range(text, last.max(line).saturating_add(1))
        .is_some()
    {
        out.push('\n');
    }
    let rest = &out[label_offset..];
    let len = rest.find(['\n', '\r', ':', ' ']).unwrap_or(rest.len());
    let span = SourceSpan::new(label_offset.into(), len.max(1).min(rest.len()));
    (
        Snippet {
            name: file.path.clone(),
            text: out,
            first_line: first as usize - 1,
            label_offset,
            label_col: pos.col as usize,
        },
        span,
    )
}

fn view(
    d_message: String,
    severity: miette::Severity,
    help: Option<String>,
    pos: Option<Pos>,
    label: Option<String>,
    sources: &Sources,
) -> MietteView {
    let file = pos.and_then(|p| sources.get(p.file).map(|f| (p, f)));
    let (source, labels) = match file {
        Some((p, f)) => {
            let (snippet, span) = snippet(f, p);
            (Some(snippet), vec![LabeledSpan::new_with_span(label, span)])
        }
        None => (None, Vec::new()),
    };
    MietteView {
        message: d_message,
        severity,
        help,
        source,
        labels,
        related: Vec::new(),
    }
}

fn human(d: &Diagnostic, sources: &Sources, color: bool) -> String {
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Note => miette::Severity::Advice,
    };
    let has_source = d.pos.is_some_and(|p| sources.get(p.file).is_some());
    // With a snippet, the object and field label the highlighted line; without one, they
    // lead the message.
    let (message, label) = if has_source {
        let label = match (&d.object, &d.field) {
            (Some(o), Some(f)) => Some(format!("{o} {f}")),
            (Some(o), None) => Some(o.to_string()),
            (None, Some(f)) => Some(f.clone()),
            (None, None) => None,
        };
        (d.message.clone(), label)
    } else {
        (full_message(d), None)
    };
    let mut top = view(message, severity, d.help.clone(), d.pos, label, sources);
    top.related = d
        .related
        .iter()
        .map(|r| {
            view(
                r.message.clone(),
                miette::Severity::Advice,
                None,
                Some(r.pos),
                None,
                sources,
            )
        })
        .collect();

    let mut characters = if color {
        ThemeCharacters::unicode()
    } else {
        ThemeCharacters::ascii()
    };
    characters.error = format!("error[{}]:", d.code);
    characters.warning = format!("warning[{}]:", d.code);
    characters.advice = format!("note[{}]:", d.code);
    let mut theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::none()
    };
    theme.characters = characters;
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(120)
        .with_wrap_lines(false)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    if handler.render_report(&mut out, &top).is_err() {
        out = format!(
            "{}[{}]: {}\n",
            severity_word(d.severity),
            d.code,
            full_message(d)
        );
    }
    // miette indents the header by two spaces; the contract wants lines to start with
    // `error:`/`warning:`, so the first line loses its indent.
    let trimmed = out.trim_start_matches(' ').to_string();
    if trimmed.ends_with('\n') {
        trimmed
    } else {
        trimmed + "\n"
    }
}

/// Escapes a GitHub workflow command's data or property value.
fn gh_escape(s: &str, property: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            _ => out.push(c),
        }
    }
    out
}

fn github(d: &Diagnostic, sources: &Sources) -> String {
    let command = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut props = Vec::new();
    if let Some(p) = d.pos
        && let Some(path) = sources.path(p)
    {
        props.push(format!("file={}", gh_escape(path, true)));
        props.push(format!("line={}", p.line));
        props.push(format!("col={}", u64::from(p.col) + 1));
    }
    props.push(format!("title={}", gh_escape(d.code.as_str(), true)));
    let mut msg = full_message(d);
    if let Some(h) = &d.help {
        msg.push_str("\nhelp: ");
        msg.push_str(h);
    }
    format!(
        "::{command} {}::{}\n",
        props.join(","),
        gh_escape(&msg, false)
    )
}

fn json(d: &Diagnostic, sources: &Sources) -> String {
    let mut out = Vec::new();
    out.extend_from_slice(b"{\"severity\":");
    write_json_string(severity_word(d.severity), &mut out);
    out.extend_from_slice(b",\"code\":");
    write_json_string(d.code.as_str(), &mut out);
    out.extend_from_slice(b",\"message\":");
    write_json_string(&d.message, &mut out);
    if let Some(p) = d.pos
        && let Some(path) = sources.path(p)
    {
        out.extend_from_slice(b",\"file\":");
        write_json_string(path, &mut out);
        out.extend_from_slice(
            format!(",\"line\":{},\"column\":{}", p.line, u64::from(p.col) + 1).as_bytes(),
        );
    }
    if let Some(o) = &d.object {
        out.extend_from_slice(b",\"object\":");
        write_json_string(&o.to_string(), &mut out);
    }
    if let Some(f) = &d.field {
        out.extend_from_slice(b",\"field\":");
        write_json_string(f, &mut out);
    }
    if let Some(h) = &d.help {
        out.extend_from_slice(b",\"help\":");
        write_json_string(h, &mut out);
    }
    out.extend_from_slice(b"}\n");
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::ObjectRef;
    use std::sync::Arc;

    fn sources() -> Sources {
        let mut s = Sources::new();
        s.add(
            "manifests/isvc.yaml".into(),
            Arc::from("kind: InferenceService\nspec:\n  runtime:\n    name: srt-x\n"),
        );
        s
    }

    fn diag() -> Diagnostic {
        Diagnostic::error(Code::RuntimeNotFound, "runtime srt-x not found")
            .at(Pos {
                file: 0,
                line: 4,
                col: 4,
            })
            .object(ObjectRef {
                kind: "InferenceService".into(),
                namespace: Some("demo".into()),
                name: "x".into(),
            })
            .field("spec.runtime.name")
            .help("add the runtime's file to the paths")
    }

    #[test]
    fn human_report_names_file_line_object_and_field() {
        let text = render(&[diag()], &sources(), ErrorFormat::Human, false);
        assert!(
            text.starts_with("error[ome::runtime::not-found]: runtime srt-x not found\n"),
            "{text}"
        );
        assert!(text.contains("[manifests/isvc.yaml:4:5]"), "{text}");
        assert!(
            text.contains("InferenceService/demo/x spec.runtime.name"),
            "{text}"
        );
        assert!(
            text.contains("help: add the runtime's file to the paths"),
            "{text}"
        );
    }

    #[test]
    fn github_annotations_escape_properties() {
        let text = render(&[diag()], &sources(), ErrorFormat::Github, false);
        assert_eq!(
            text,
            "::error file=manifests/isvc.yaml,line=4,col=5,title=ome%3A%3Aruntime%3A%3Anot-found::\
             InferenceService/demo/x: spec.runtime.name: runtime srt-x not found%0Ahelp: add the runtime's file to the paths\n"
        );
    }

    #[test]
    fn json_lines_carry_every_field() {
        let text = render(&[diag()], &sources(), ErrorFormat::Json, false);
        assert_eq!(
            text,
            "{\"severity\":\"error\",\"code\":\"ome::runtime::not-found\",\"message\":\"runtime srt-x not found\",\
             \"file\":\"manifests/isvc.yaml\",\"line\":4,\"column\":5,\"object\":\"InferenceService/demo/x\",\
             \"field\":\"spec.runtime.name\",\"help\":\"add the runtime's file to the paths\"}\n"
        );
    }

    fn one_file(text: &str) -> Sources {
        let mut s = Sources::new();
        s.add("wide.json".into(), Arc::from(text));
        s
    }

    fn at(line: u32, col: u32) -> Diagnostic {
        Diagnostic::error(Code::InvalidField, "ConfigMap has no `metadata.name`")
            .at(Pos { file: 0, line, col })
            .field("metadata.name")
    }

    #[test]
    fn a_position_past_column_65535_renders_a_window_with_the_true_column() {
        // Minified JSON: everything on one line, the error near its end. miette's underline
        // used to panic ("Formatting argument out of range") past column 65,535.
        let text = format!(
            "[{}{{\"kind\": \"ConfigMap\", \"metadata\": {{}}}}]\n",
            "{\"a\": 1}, ".repeat(10_000)
        );
        let col = u32::try_from(text.find("\"metadata\"").unwrap()).unwrap();
        assert!(col > 65_535);
        let out = render(&[at(1, col)], &one_file(&text), ErrorFormat::Human, false);
        assert!(out.contains(&format!("[wide.json:1:{}]", col + 1)), "{out}");
        assert!(out.contains(" 1 | ..."), "{out}");
        assert!(out.contains("\"metadata\": {}}]"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() < 200), "{out}");
    }

    #[test]
    fn columns_count_characters_and_short_lines_are_whole() {
        let text = "k: v\nnäme: é\nnext: 1\n";
        let out = render(&[at(2, 6)], &one_file(text), ErrorFormat::Human, false);
        assert!(out.contains("[wide.json:2:7]"), "{out}");
        assert!(out.contains(" 1 | k: v\n 2 | näme: é\n"), "{out}");
        assert!(out.contains(" 3 | next: 1\n"), "{out}");
    }

    #[test]
    fn positions_past_the_text_or_at_the_extremes_render() {
        let text = "a: 1\nb: 2";
        for (line, col) in [
            (0, 0),
            (2, 99),
            (3, 0),
            (1000, 5),
            (u32::MAX, u32::MAX),
            (1, u32::MAX),
        ] {
            for format in [ErrorFormat::Human, ErrorFormat::Github, ErrorFormat::Json] {
                let out = render(&[at(line, col)], &one_file(text), format, true);
                assert!(out.contains("metadata.name"), "{line}:{col} {out}");
            }
        }
        let out = render(
            &[at(1, u32::MAX)],
            &one_file(text),
            ErrorFormat::Json,
            false,
        );
        assert!(out.contains("\"column\":4294967296"), "{out}");
    }

    #[test]
    fn past_the_limit_diagnostics_are_counted_errors_first() {
        let mut diags = Vec::new();
        for i in 0..5 {
            diags.push(Diagnostic::note(Code::NotAnObject, format!("note {i}")));
            diags.push(Diagnostic::error(Code::YamlSyntax, format!("error {i}")));
            diags.push(Diagnostic::warning(
                Code::UnknownField,
                format!("warning {i}"),
            ));
        }
        let shown = at_most(diags.clone(), 7);
        let messages: Vec<&str> = shown.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages[..7],
            [
                "error 0",
                "warning 0",
                "error 1",
                "warning 1",
                "error 2",
                "error 3",
                "error 4"
            ]
        );
        assert_eq!(shown[7].code, Code::Omitted);
        assert_eq!(
            shown[7].message,
            "8 more not shown (0 errors, 3 warnings, 5 notes; limit `diagnostics`)"
        );
        assert_eq!(at_most(diags.clone(), 15), diags);
    }
}
