//! The GitHub format: workflow commands that annotate a pull request's files.

use super::*;

/// Escapes a GitHub workflow command's data or property value.
pub(super) fn gh_escape(s: &str, property: bool) -> String {
    let mut out = String::with_capacity(s.len());
    // A CI log is a terminal too: control characters other than the line breaks are shown
    // escaped before the command's own escapes.
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c if c != '\t' && acts_on_terminal(c) => out.push_str(&terminal_line(&c.to_string())),
            _ => out.push(c),
        }
    }
    out
}

/// A GitHub workflow command: `::<command> file=…,line=…,endLine=…,col=…,endColumn=…,title=…::<message>`.
fn github_command(command: &str, at: Option<Place<'_>>, title: &str, message: &str) -> String {
    let mut props = Vec::new();
    if let Some(p) = at {
        props.push(format!("file={}", gh_escape(p.path, true)));
        props.push(format!("line={}", p.line));
        props.push(format!("endLine={}", p.line));
        props.push(format!("col={}", p.col));
        props.push(format!("endColumn={}", p.end_col));
    }
    props.push(format!("title={}", gh_escape(title, true)));
    format!(
        "::{command} {}::{}\n",
        props.join(","),
        gh_escape(message, false)
    )
}

/// The diagnostic as an annotation, and each related position as a notice of its own, so
/// the pull request shows both files of a duplicate.
pub(super) fn github(d: &Diagnostic, sources: &Sources) -> String {
    let command = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut msg = full_message(d);
    if let Some(h) = &d.help {
        msg.push_str("\nhelp: ");
        msg.push_str(h);
    }
    let at = d.pos.and_then(|p| place(p, sources));
    let mut out = github_command(command, at, d.code.as_str(), &msg);
    for r in &d.related {
        out.push_str(&github_command(
            "notice",
            place(r.pos, sources),
            d.code.as_str(),
            &r.message,
        ));
    }
    out
}
