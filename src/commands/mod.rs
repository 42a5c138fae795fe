//! The entry modes: `render` (the default), `check` and `explain`. Each turns parsed
//! arguments into a pipeline run and an exit status; only here are diagnostics printed.

#![expect(
    clippy::disallowed_methods,
    reason = "commands read standard input and the environment, and print diagnostics"
)]

pub(crate) mod explain;
pub(crate) mod render;

use crate::cli::{Cli, ColorArg, Command, InputArgs};
use crate::diagnostics::report::{ErrorFormat, render as render_report};
use crate::diagnostics::{Diagnostic, Severity};
use crate::load::LoadOptions;
use crate::pipeline::Options;
use crate::source::Sources;
use std::io::{IsTerminal, Read, Write};

/// How a run ended: 0 rendered, 1 the input has errors, 2 usage or tool failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    InputErrors,
    Failure,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::InputErrors => 1,
            ExitStatus::Failure => 2,
        }
    }
}

/// Runs the command of a parsed command line.
pub(crate) fn run(cli: &Cli) -> ExitStatus {
    match &cli.command {
        None => render::render(&cli.render),
        Some(Command::Check(input)) => render::check(input),
        Some(Command::Explain(args)) => explain::explain(args),
    }
}

pub(crate) fn options(input: &InputArgs) -> Options {
    Options {
        load: LoadOptions {
            paths: input.paths.clone(),
            include: input.include.clone(),
            exclude: input.exclude.clone(),
            // TODO(#13): `--limit NAME=N` sets these (`Limits::set`) once the command line
            // is reworked.
            limits: crate::load::Limits::default(),
        },
        namespace: input.namespace.clone(),
        keep_ome: false,
        kinds: Vec::new(),
        serialise: None,
    }
}

/// Reads at most `max` bytes of standard input; the loader checks them as it checks a file.
pub(crate) fn read_stdin(max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin().lock().take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn use_color(input: &InputArgs) -> bool {
    match input.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal(),
    }
}

/// Prints diagnostics to standard error (warnings as errors under `--strict`) and says
/// whether the run failed because of them.
pub(crate) fn report(diags: &mut [Diagnostic], sources: &Sources, input: &InputArgs) -> bool {
    if input.strict {
        for d in diags.iter_mut() {
            if d.severity == Severity::Warning {
                d.severity = Severity::Error;
            }
        }
    }
    let shown: Vec<Diagnostic> = diags
        .iter()
        .filter(|d| !(input.quiet && d.severity == Severity::Note))
        .cloned()
        .collect();
    // TODO(#13): `--limit diagnostics=N` replaces the default once the command line is
    // reworked.
    let shown =
        crate::diagnostics::report::at_most(shown, crate::load::Limits::default().diagnostics);
    let format: ErrorFormat = input.error_format.into();
    let text = render_report(&shown, sources, format, use_color(input));
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    if format == ErrorFormat::Human && errors > 0 {
        let _ = writeln!(
            stderr,
            "error: {errors} error{} and {warnings} warning{}; nothing was written",
            if errors == 1 { "" } else { "s" },
            if warnings == 1 { "" } else { "s" }
        );
    }
    errors > 0
}

/// The status of a run whose output went to standard output. A reader that closed the pipe
/// early (`ome-render … | head`) is not a failure: it has all it wanted, as the Unix
/// convention goes.
pub(crate) fn stdout_written(result: std::io::Result<()>) -> ExitStatus {
    match result {
        Ok(()) => ExitStatus::Success,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitStatus::Success,
        Err(e) => fatal(&format!("cannot write standard output: {e}")),
    }
}

pub(crate) fn fatal(message: &str) -> ExitStatus {
    let _ = writeln!(std::io::stderr(), "error: {message}");
    ExitStatus::Failure
}
