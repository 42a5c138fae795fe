//! Renders collected diagnostics for the caller: miette's graphical report for a terminal,
//! GitHub workflow commands for annotations in pull requests, or JSON lines for machines.

use super::escape::{acts_on_terminal, terminal, terminal_line};
use super::{Code, Diagnostic, Severity};
use crate::source::{LineIndex, SourceFile, Sources};
use crate::yaml::Pos;
use crate::yaml::emit::write_json_string;
use std::collections::BTreeMap;
use std::fmt;

mod github;
mod human;
mod json;

use github::{gh_escape, github};
use human::human;
use json::json;

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

/// One entry of a report: a diagnostic, or the count of those of one code left out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Item<'a> {
    Diagnostic(&'a Diagnostic),
    More {
        code: Code,
        severity: Severity,
        count: usize,
    },
}

/// The files the entries quote: where each diagnostic, and each position related to it, is.
pub(crate) fn quoted_files<'a>(items: &'a [Item<'a>]) -> impl Iterator<Item = u32> + 'a {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Diagnostic(d) => Some(*d),
            Item::More { .. } => None,
        })
        .flat_map(|d| d.pos.into_iter().chain(d.related.iter().map(|r| r.pos)))
        .map(|p| p.file)
}

/// How many warnings (or notes) of one code a report shows before it counts the rest.
const FIRST_FEW: usize = 5;

/// The report's entries: every error, and the first few warnings and notes of each code,
/// the rest counted at the end — unless `verbose`, or for JSON, which machines read whole.
pub(crate) fn summarise<'a>(
    diags: &[&'a Diagnostic],
    format: ErrorFormat,
    verbose: bool,
) -> Vec<Item<'a>> {
    if verbose || format == ErrorFormat::Json {
        return diags.iter().map(|d| Item::Diagnostic(d)).collect();
    }
    let mut seen: BTreeMap<(Code, Severity), usize> = BTreeMap::new();
    let mut items = Vec::with_capacity(diags.len().min(1024));
    for d in diags {
        let n = seen.entry((d.code, d.severity)).or_insert(0);
        *n += 1;
        if d.severity == Severity::Error || *n <= FIRST_FEW {
            items.push(Item::Diagnostic(d));
        }
    }
    for ((code, severity), n) in seen {
        if severity != Severity::Error && n > FIRST_FEW {
            items.push(Item::More {
                code,
                severity,
                count: n - FIRST_FEW,
            });
        }
    }
    items
}

/// The counts a run's last line gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) errors: usize,
    pub(crate) warnings: usize,
    pub(crate) files: usize,
}

impl Summary {
    pub(crate) fn of(diags: &[Diagnostic], files: usize) -> Summary {
        let count = |s: Severity| diags.iter().filter(|d| d.severity == s).count();
        Summary {
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            files,
        }
    }

    /// `ome-render: 2 errors, 1 warning in 12 files`, and `; nothing was written` when the
    /// errors stopped a render.
    pub(crate) fn line(&self, nothing_written: bool) -> String {
        let mut line = format!(
            "ome-render: {}, {} in {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
            plural(self.files, "file"),
        );
        if nothing_written {
            line.push_str("; nothing was written");
        }
        line
    }
}

/// `1 error`, `2 errors`, `7,040 notes`.
fn plural(n: usize, word: &str) -> String {
    format!("{} {word}{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// `7040` as `7,040`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Renders every entry, in order, as one string for standard error.
pub(crate) fn render(
    items: &[Item<'_>],
    sources: &Sources,
    format: ErrorFormat,
    color: bool,
) -> String {
    let mut out = String::new();
    for item in items {
        match (item, format) {
            (Item::Diagnostic(d), ErrorFormat::Human) => out.push_str(&human(d, sources, color)),
            (Item::Diagnostic(d), ErrorFormat::Github) => out.push_str(&github(d, sources)),
            (Item::Diagnostic(d), ErrorFormat::Json) => out.push_str(&json(d, sources)),
            (
                Item::More {
                    code,
                    severity,
                    count,
                },
                _,
            ) => {
                let text = format!(
                    "… and {} more {code} {}{}; run with --verbose to see all",
                    thousands(*count),
                    severity_word(*severity),
                    if *count == 1 { "" } else { "s" }
                );
                match format {
                    ErrorFormat::Github => out.push_str(&format!(
                        "::notice title={}::{}\n",
                        gh_escape(code.as_str(), true),
                        gh_escape(&text, false)
                    )),
                    _ => out.push_str(&format!("{}: {text}\n", severity_word(*severity))),
                }
            }
        }
    }
    out
}

/// At most `max` diagnostics of `items`, in their order: errors first, then warnings, then
/// notes, when some must go; the counts of repeats (`Item::More`) always stay. Returns the
/// items kept and a closing note counting the diagnostics left out. Sorting is `n log n`, so
/// a run with a million diagnostics reports in time.
pub(crate) fn at_most<'a>(items: Vec<Item<'a>>, max: usize) -> (Vec<Item<'a>>, Option<Diagnostic>) {
    let severity = |item: &Item<'_>| match item {
        Item::Diagnostic(d) => Some(d.severity),
        Item::More { .. } => None,
    };
    let mut order: Vec<(Severity, usize)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| severity(item).map(|s| (s, i)))
        .collect();
    if order.len() <= max {
        return (items, None);
    }
    order.sort_unstable();
    let mut keep = vec![true; items.len()];
    let mut left_out = [0usize; 3];
    for &(s, i) in &order[max..] {
        keep[i] = false;
        left_out[s as usize] += 1;
    }
    let kept = items
        .into_iter()
        .zip(keep)
        .filter_map(|(item, keep)| keep.then_some(item))
        .collect();
    let [errors, warnings, notes] = left_out;
    let note = Diagnostic::note(
        Code::Omitted,
        format!(
            "{} more not shown ({}, {}, {}; limit `diagnostics`)",
            thousands(errors + warnings + notes),
            plural(errors, "error"),
            plural(warnings, "warning"),
            plural(notes, "note"),
        ),
    )
    .help(format!(
        "fix the ones above and run again, or raise the limit with `--limit diagnostics=<N>` (SEMANTICS.md#limits); at most {max} are shown"
    ));
    (kept, Some(note))
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

/// Where a position is, as the machine formats give it: the file, the 1-based line and
/// column, and the column just past the token there.
struct Place<'s> {
    path: &'s str,
    line: u32,
    col: u64,
    end_col: u64,
}

fn place(pos: Pos, sources: &Sources) -> Option<Place<'_>> {
    let file = sources.get(pos.file)?;
    let col = u64::from(pos.col) + 1;
    let Some((text, index)) = file.text().zip(file.lines()) else {
        // A released text that changed since it was read: the position alone marks one
        // character (SEMANTICS.md#source-texts).
        return Some(Place {
            path: &file.path,
            line: pos.line,
            col,
            end_col: col + 1,
        });
    };
    let line_end = index
        .range(text, pos.line)
        .map_or(text.len(), |(_, end)| end);
    let start = index.offset(text, pos.line, pos.col).min(line_end);
    let rest = &text[start..line_end];
    let token = &rest[..rest.find([':', ' ']).unwrap_or(rest.len())];
    // An empty token (a position on a `:` or a line's end) still marks one character,
    // unless the text ends there.
    let width = match token.chars().count() {
        0 if start < text.len() => 1,
        n => n as u64,
    };
    Some(Place {
        path: &file.path,
        line: pos.line,
        col,
        end_col: col + width,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::id::ObjectId;
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
            .object(ObjectId {
                kind: "InferenceService".into(),
                namespace: "demo".into(),
                name: "x".into(),
                group: String::new(),
            })
            .field("spec.runtime.name")
            .help("add the runtime's file to the paths")
            .related(
                Pos {
                    file: 0,
                    line: 3,
                    col: 2,
                },
                "named here",
            )
    }

    fn one(d: &Diagnostic, format: ErrorFormat) -> String {
        render(&[Item::Diagnostic(d)], &sources(), format, false)
    }

    #[test]
    fn human_report_names_file_line_object_and_field() {
        let text = one(&diag(), ErrorFormat::Human);
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
        assert!(text.contains("named here"), "{text}");
    }

    #[test]
    fn a_released_text_found_changed_leaves_the_place_without_a_quote() {
        let mut s = sources();
        let stamp = crate::source::Stamp {
            len: 53,
            modified: None,
        };
        s.release(
            0,
            std::path::PathBuf::from("manifests/isvc.yaml").into(),
            stamp,
        );
        let d = diag();
        let items = [Item::Diagnostic(&d)];
        assert_eq!(quoted_files(&items).collect::<Vec<_>>(), [0, 0]);
        s.restore(0, None);
        let human = render(&items, &s, ErrorFormat::Human, false);
        assert!(
            human.starts_with(
                "error[ome::runtime::not-found]: manifests/isvc.yaml:4:5: \
                 InferenceService/demo/x: spec.runtime.name: runtime srt-x not found\n"
            ),
            "{human}"
        );
        assert!(
            human.contains("manifests/isvc.yaml:3:3: named here"),
            "{human}"
        );
        assert!(!human.contains("srt-x\n"), "no quoted line: {human}");
        assert_eq!(
            render(&items, &s, ErrorFormat::Github, false)
                .lines()
                .next(),
            Some(
                "::error file=manifests/isvc.yaml,line=4,endLine=4,col=5,endColumn=6,title=ome%3A%3Aruntime%3A%3Anot-found::\
                 InferenceService/demo/x: spec.runtime.name: runtime srt-x not found%0Ahelp: add the runtime's file to the paths"
            )
        );
        let json = render(&items, &s, ErrorFormat::Json, false);
        assert!(
            json.contains("\"line\":4,\"column\":5,\"end_line\":4,\"end_column\":6,"),
            "{json}"
        );
        // Read again as it was, the text is quoted as if it had never gone.
        let mut again = sources();
        again.release(
            0,
            std::path::PathBuf::from("manifests/isvc.yaml").into(),
            stamp,
        );
        again.restore(
            0,
            Some("kind: InferenceService\nspec:\n  runtime:\n    name: srt-x\n".to_string()),
        );
        for format in [ErrorFormat::Human, ErrorFormat::Github, ErrorFormat::Json] {
            assert_eq!(
                render(&items, &again, format, false),
                one(&d, format),
                "{format:?}"
            );
        }
    }

    #[test]
    fn github_annotations_carry_the_end_the_help_and_related_places() {
        assert_eq!(
            one(&diag(), ErrorFormat::Github),
            "::error file=manifests/isvc.yaml,line=4,endLine=4,col=5,endColumn=9,title=ome%3A%3Aruntime%3A%3Anot-found::\
             InferenceService/demo/x: spec.runtime.name: runtime srt-x not found%0Ahelp: add the runtime's file to the paths\n\
             ::notice file=manifests/isvc.yaml,line=3,endLine=3,col=3,endColumn=10,title=ome%3A%3Aruntime%3A%3Anot-found::named here\n"
        );
    }

    #[test]
    fn github_escapes_what_the_workflow_command_syntax_reserves() {
        let d = Diagnostic::warning(Code::UnknownField, "100% of a:b,c\r\nnext");
        assert_eq!(
            one(&d, ErrorFormat::Github),
            "::warning title=ome%3A%3Ainput%3A%3Aunknown-field::100%25 of a:b,c%0D%0Anext\n"
        );
        let mut s = Sources::new();
        s.add("dir,a:b%.yaml".into(), Arc::from("x: 1\n"));
        let at = Diagnostic::warning(Code::UnknownField, "m").at(Pos {
            file: 0,
            line: 1,
            col: 0,
        });
        let text = render(&[Item::Diagnostic(&at)], &s, ErrorFormat::Github, false);
        assert!(
            text.starts_with("::warning file=dir%2Ca%3Ab%25.yaml,line=1,"),
            "{text}"
        );
    }

    #[test]
    fn json_lines_carry_every_field() {
        assert_eq!(
            one(&diag(), ErrorFormat::Json),
            "{\"severity\":\"error\",\"code\":\"ome::runtime::not-found\",\"message\":\"runtime srt-x not found\",\
             \"file\":\"manifests/isvc.yaml\",\"line\":4,\"column\":5,\"end_line\":4,\"end_column\":9,\
             \"object\":\"InferenceService/demo/x\",\"field\":\"spec.runtime.name\",\"help\":\"add the runtime's file to the paths\",\
             \"related\":[{\"file\":\"manifests/isvc.yaml\",\"line\":3,\"column\":3,\"end_line\":3,\"end_column\":10,\"message\":\"named here\"}]}\n"
        );
    }

    #[test]
    fn repeated_warnings_and_notes_are_counted_after_the_first_few() {
        let notes: Vec<Diagnostic> = (0..8)
            .map(|i| Diagnostic::note(Code::RuntimeAutoSelected, format!("n{i}")))
            .collect();
        let errors: Vec<Diagnostic> = (0..7)
            .map(|i| Diagnostic::error(Code::NoRuntime, format!("e{i}")))
            .collect();
        let all: Vec<&Diagnostic> = notes.iter().chain(&errors).collect();
        let items = summarise(&all, ErrorFormat::Human, false);
        assert_eq!(items.len(), 5 + 7 + 1);
        assert_eq!(
            items.last(),
            Some(&Item::More {
                code: Code::RuntimeAutoSelected,
                severity: Severity::Note,
                count: 3
            })
        );
        assert_eq!(
            render(&items[12..], &Sources::new(), ErrorFormat::Human, false),
            "note: … and 3 more ome::select::auto-selected notes; run with --verbose to see all\n"
        );
        assert_eq!(summarise(&all, ErrorFormat::Human, true).len(), 15);
        assert_eq!(summarise(&all, ErrorFormat::Json, false).len(), 15);
    }

    #[test]
    fn the_summary_line_counts_with_separators() {
        let s = Summary {
            errors: 1,
            warnings: 7040,
            files: 12,
        };
        assert_eq!(
            s.line(true),
            "ome-render: 1 error, 7,040 warnings in 12 files; nothing was written"
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
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
        let out = render(
            &[Item::Diagnostic(&at(1, col))],
            &one_file(&text),
            ErrorFormat::Human,
            false,
        );
        assert!(out.contains(&format!("[wide.json:1:{}]", col + 1)), "{out}");
        assert!(out.contains(" 1 | ..."), "{out}");
        assert!(out.contains("\"metadata\": {}}]"), "{out}");
        assert!(out.lines().all(|l| l.chars().count() < 200), "{out}");
    }

    #[test]
    fn columns_count_characters_and_short_lines_are_whole() {
        let text = "k: v\nnäme: é\nnext: 1\n";
        let out = render(
            &[Item::Diagnostic(&at(2, 6))],
            &one_file(text),
            ErrorFormat::Human,
            false,
        );
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
                let out = render(
                    &[Item::Diagnostic(&at(line, col))],
                    &one_file(text),
                    format,
                    true,
                );
                assert!(out.contains("metadata.name"), "{line}:{col} {out}");
            }
        }
        let out = render(
            &[Item::Diagnostic(&at(1, u32::MAX))],
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
        let items: Vec<Item<'_>> = diags.iter().map(Item::Diagnostic).collect();
        let (shown, omitted) = at_most(items.clone(), 7);
        let messages: Vec<&str> = shown
            .iter()
            .map(|item| match item {
                Item::Diagnostic(d) => d.message.as_str(),
                Item::More { .. } => "more",
            })
            .collect();
        assert_eq!(
            messages,
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
        let omitted = omitted.expect("a closing note");
        assert_eq!(omitted.code, Code::Omitted);
        assert_eq!(
            omitted.message,
            "8 more not shown (0 errors, 3 warnings, 5 notes; limit `diagnostics`)"
        );
        assert_eq!(at_most(items.clone(), 15), (items, None));
    }
}
