//! The text report: the summary and the impact first, then each InferenceService's objects
//! with their hunks, as `git diff` shows them (coloured when `color`).

use super::{
    BASE_FAILED, Changed, FIRST_LINES, Labels, auto, changes, count, group_line, names, reach,
    summary,
};
use crate::diagnostics::escape::{terminal, terminal_line as line_of};
use crate::diff::Report;
use std::fmt::Write;

const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

struct Paint {
    on: bool,
}

impl Paint {
    fn with(&self, style: &str, text: &str) -> String {
        if self.on {
            format!("{style}{text}{RESET}")
        } else {
            text.to_string()
        }
    }
}

pub(crate) fn render(report: &Report, labels: &Labels, color: bool) -> String {
    let paint = Paint { on: color };
    let mut out = String::new();
    // Every input-derived string is shown with its control characters escaped
    // (SEMANTICS.md#output-escaping): a kind or a name can't colour or clear the terminal.
    let title = format!(
        "ome-render diff {} → {}:",
        line_of(&labels.base),
        line_of(&labels.head)
    );
    let _ = writeln!(out, "{} {}", paint.with(BOLD, &title), summary(report));
    if let Some(errors) = &report.base_errors {
        let _ = writeln!(out, "{}", paint.with(RED, BASE_FAILED));
        for e in errors {
            let _ = writeln!(out, "  {}", line_of(e));
        }
    }
    if !report.has_differences() && report.impact.resources.is_empty() {
        return out;
    }
    impact(report, &paint, &mut out);
    for g in &report.groups {
        let name = match &g.isvc {
            Some(id) => format!("InferenceService {}", line_of(&id.path())),
            None => "pass-through objects".to_string(),
        };
        let _ = writeln!(
            out,
            "\n{} {}",
            paint.with(BOLD, &format!("━━ {name}:")),
            line_of(&group_line(g))
        );
        for o in &g.objects {
            let _ = writeln!(
                out,
                "{} (+{} -{})",
                paint.with(
                    YELLOW,
                    &format!("{} {}", o.change.sign(), line_of(&o.title()))
                ),
                o.lines.added,
                o.lines.removed
            );
            let hunks = terminal(&o.lines.hunks);
            for line in hunks.lines() {
                let styled = if line.starts_with("@@") {
                    paint.with(CYAN, line)
                } else if line.starts_with('+') {
                    paint.with(GREEN, line)
                } else if line.starts_with('-') {
                    paint.with(RED, line)
                } else {
                    line.to_string()
                };
                out.push_str(&styled);
                out.push('\n');
            }
        }
    }
    out
}

fn impact(report: &Report, paint: &Paint, out: &mut String) {
    let i = &report.impact;
    let _ = writeln!(out, "{}", paint.with(BOLD, "impact:"));
    let plain = |s: &str| line_of(s).into_owned();
    let (changed, more) = changes(i);
    for c in changed {
        let (line, reached) = match c {
            Changed::Resource(r) => (
                format!(
                    "{} {}: {}",
                    line_of(&r.id.to_string()),
                    r.change.word(),
                    reach(r)
                ),
                &r.reached[..],
            ),
            Changed::Settings(reached) => (
                format!(
                    "settings changed: reaches {}",
                    count(reached.len(), "InferenceService")
                ),
                reached,
            ),
        };
        let _ = writeln!(out, "  {line}");
        if !reached.is_empty() {
            let _ = writeln!(out, "    {}", names(reached, plain));
        }
    }
    if more > 0 {
        let _ = writeln!(out, "  … and {more} more changed resources");
    }
    if !i.choices.is_empty() {
        let _ = writeln!(
            out,
            "  runtime choice changed for {}:",
            count(i.choices.len(), "InferenceService")
        );
        for c in i.choices.iter().take(FIRST_LINES) {
            let _ = writeln!(
                out,
                "    {}: was {}{}, now {}{}",
                line_of(&c.isvc.path()),
                line_of(&c.was.to_string()),
                auto(c.was_auto),
                line_of(&c.now.to_string()),
                auto(c.now_auto)
            );
        }
        if i.choices.len() > FIRST_LINES {
            let _ = writeln!(out, "    … and {} more", i.choices.len() - FIRST_LINES);
        }
    }
    if !i.edited.is_empty() {
        let _ = writeln!(
            out,
            "  {} edited: {}",
            count(i.edited.len(), "InferenceService"),
            names(&i.edited, plain)
        );
    }
    if !i.unattributed.is_empty() {
        let _ = writeln!(
            out,
            "  {} changed for no reason found in the inputs: {}",
            count(i.unattributed.len(), "InferenceService"),
            names(&i.unattributed, plain)
        );
    }
    if i.resources.is_empty()
        && i.settings.is_none()
        && i.choices.is_empty()
        && i.edited.is_empty()
        && i.unattributed.is_empty()
    {
        let _ = writeln!(out, "  no OME resource changed");
    }
}
