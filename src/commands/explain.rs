//! `ome-render explain`: why each runtime is or isn't auto-selected for a model, as
//! `kubectl ome runtime explain` shows it, with the file and line of every runtime.

use super::{ExitStatus, Outcome, load_catalog, options, report, stdout_written};
use crate::cli::{ExplainArgs, ExplainFormat, GlobalArgs};
use crate::diagnostics::Diagnostic;
use crate::inherit::Inherited;
use crate::inspect::explain::{NO_RUNTIMES_NOTE, render_json, render_table, rows, subject};
use crate::select::resolve::Resolver;
use crate::source::Sources;
use std::io::{IsTerminal, Write};

pub(crate) fn explain(global: &GlobalArgs, args: &ExplainArgs) -> ExitStatus {
    let opts = options(global, &args.paths);
    let report = |diags: &mut Vec<Diagnostic>, sources: &Sources| {
        report(diags, sources, global, Outcome::Checks, false)
    };
    let (sources, catalog, mut diags) = match load_catalog(global, &opts, Outcome::Checks) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    let found = subject(
        &catalog,
        args.isvc.as_deref(),
        args.model.as_deref(),
        &opts.namespace,
    );
    let Ok(subject) = found.map_err(|d| diags.push(d)) else {
        report(&mut diags, &sources);
        return ExitStatus::InputErrors;
    };
    if report(&mut diags, &sources) {
        return ExitStatus::InputErrors;
    }
    let inherited = Inherited::default();
    let resolver = Resolver::new(&catalog, &inherited);
    let mut stderr = std::io::stderr().lock();
    for note in &subject.notes {
        let _ = writeln!(stderr, "{note}");
    }
    let Some(rows) = rows(&resolver.index, &subject) else {
        let _ = writeln!(stderr, "{NO_RUNTIMES_NOTE}");
        return ExitStatus::Success;
    };
    let source = |pos: crate::yaml::Pos| match sources.path(pos) {
        Some(path) => format!("{path}:{}", pos.line),
        None => "-".to_string(),
    };
    let text = match args.format {
        ExplainFormat::Table => render_table(&rows, source, table_width()),
        ExplainFormat::Json => render_json(&rows, source) + "\n",
    };
    let written = {
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    stdout_written(written)
}

/// The width the table wraps its REASON column to: the terminal's, else 80.
fn table_width() -> usize {
    if std::io::stdout().is_terminal()
        && let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size()
    {
        return usize::from(w);
    }
    80
}
