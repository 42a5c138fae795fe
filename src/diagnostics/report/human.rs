//! The human format: miette's graphical report, with a window of the source line.

use super::*;
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents, ThemeCharacters,
};

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
fn snippet(file: &SourceFile, text: &str, index: &LineIndex, pos: Pos) -> (Snippet, SourceSpan) {
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
        // The quoted text with its control characters shown escaped: a file's bytes never
        // reach the terminal raw (SEMANTICS.md#output-escaping).
        if n == line {
            let before = col_byte.clamp(from, to);
            label_offset = out.len() + terminal(&body[from..before]).len();
        }
        out.push_str(&terminal(&body[from..to]));
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
            name: terminal_line(&file.path).into_owned(),
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
    let mut message = d_message;
    let (source, labels) = match file {
        Some((p, f)) => match f.text().zip(f.lines()) {
            Some((text, index)) => {
                let (snippet, span) = snippet(f, text, index, p);
                (Some(snippet), vec![LabeledSpan::new_with_span(label, span)])
            }
            // A released text that changed since it was read: the place, without a quote
            // (SEMANTICS.md#source-texts).
            None => {
                message = format!(
                    "{}:{}:{}: {message}",
                    terminal_line(&f.path),
                    p.line,
                    p.col + 1
                );
                (None, Vec::new())
            }
        },
        None => (None, Vec::new()),
    };
    MietteView {
        message,
        severity,
        help,
        source,
        labels,
        related: Vec::new(),
    }
}

pub(super) fn human(d: &Diagnostic, sources: &Sources, color: bool) -> String {
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Note => miette::Severity::Advice,
    };
    let has_source = d
        .pos
        .is_some_and(|p| sources.get(p.file).is_some_and(|f| f.text().is_some()));
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
    // Messages, labels and help quote input (a kind, a name, a value): their control
    // characters are shown escaped.
    let escaped = |s: &str| terminal(s).into_owned();
    let mut top = view(
        escaped(&message),
        severity,
        d.help.as_deref().map(escaped),
        d.pos,
        label.as_deref().map(escaped),
        sources,
    );
    top.related = d
        .related
        .iter()
        .map(|r| {
            view(
                escaped(&r.message),
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
            escaped(&full_message(d))
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
