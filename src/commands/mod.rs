//! The subcommands, one file each: `render` (the default, and `check`), `explain`,
//! `model_metadata`, `diff`, and the shell helpers (`completions`, `man`). Each turns
//! parsed arguments into a pipeline run and an exit status; only here are diagnostics printed.

#![expect(
    clippy::disallowed_methods,
    reason = "commands read standard input and the environment, and print diagnostics"
)]

pub(crate) mod argocd;
pub(crate) mod components;
pub(crate) mod diff;
pub(crate) mod effective;
pub(crate) mod explain;
pub(crate) mod krm;
pub(crate) mod model_metadata;
pub(crate) mod pin;
pub(crate) mod render;
pub(crate) mod shell;
pub(crate) mod tree;

use crate::catalog::Catalog;
use crate::cli::{Cli, ColorArg, Command, GlobalArgs, RenderArgs};
use crate::diagnostics::report::{
    ErrorFormat, Item, Summary, at_most, quoted_files, render as render_report, summarise,
};
use crate::diagnostics::{Diagnostic, Severity};
use crate::load::{self, LoadOptions, Texts};
use crate::pipeline::Options;
use crate::source::Sources;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

/// How a run ended: 0 rendered, 1 the input has errors, 2 usage or tool failure; 3 the
/// renders differ (`diff --exit-code`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    InputErrors,
    Failure,
    Differences,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::InputErrors => 1,
            ExitStatus::Failure => 2,
            ExitStatus::Differences => 3,
        }
    }
}

/// Runs the command of a parsed command line.
pub(crate) fn run(cli: &Cli) -> ExitStatus {
    let global = &cli.global;
    if cli.command.is_some() && cli.render != RenderArgs::default() {
        return fatal(
            "paths and render flags (-o, --format, --kinds, …) go after the subcommand, e.g. `ome-render render -o out.yaml DIR`; the global flags (--strict, -n, …) go anywhere",
        );
    }
    if cli.command.is_none()
        && let Some(message) = cli
            .render
            .paths
            .first()
            .and_then(|p| mistyped_subcommand(p))
    {
        return fatal(&message);
    }
    // Under Argo CD's config management plugin, its environment supplies defaults.
    let plugin = argocd::PluginEnv::read();
    let global = &match plugin.global(global) {
        Ok(g) => g,
        Err(message) => return fatal(&message),
    };
    match &cli.command {
        None => render::render(global, &plugin.render(&cli.render)),
        Some(Command::Render(args)) => render::render(global, &plugin.render(args)),
        Some(Command::Check(args)) => render::check(global, args),
        Some(Command::Explain(args)) if args.effective => effective::effective(global, args),
        Some(Command::Explain(args)) => explain::explain(global, args),
        Some(Command::Diff(args)) => diff::diff(global, args),
        Some(Command::Pin(args)) => pin::pin(global, args),
        Some(Command::Tree(args)) => tree::tree(global, args),
        Some(Command::ModelMetadata(args)) => model_metadata::model_metadata(global, args),
        Some(Command::Completions { shell }) => shell::completions(*shell),
        Some(Command::Man) => shell::man(),
        Some(Command::Components(args)) => components::components(global, args),
        Some(Command::Krm) => krm::krm(global),
        Some(Command::ArgocdParameters) => argocd::parameters(),
        Some(Command::SettingsSchema) => {
            use std::io::Write as _;
            let schema = crate::model::settings::schema::json_schema();
            stdout_written(std::io::stdout().lock().write_all(schema.as_bytes()))
        }
    }
}

/// `ome-render chek DIR`: a first path that does not exist, is one plain name and is close to
/// a subcommand's name is a mistyped subcommand, not a path (an existing path of that name is
/// read as a path, as before).
fn mistyped_subcommand(first: &std::path::Path) -> Option<String> {
    let name = first.to_str()?;
    if name == "-" || first.components().count() != 1 || first.symlink_metadata().is_ok() {
        return None;
    }
    let command = <Cli as clap::CommandFactory>::command();
    let names: Vec<&str> = command
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(clap::Command::get_name)
        .collect();
    let close = crate::diagnostics::suggest::closest(name, &names)?;
    Some(format!(
        "unrecognized subcommand '{name}'; did you mean '{close}'? (a path of that name is read as `./{name}`)"
    ))
}

/// The pipeline options of the global flags and `paths`.
pub(crate) fn options(global: &GlobalArgs, paths: &[PathBuf]) -> Options {
    Options {
        load: LoadOptions {
            paths: paths.to_vec(),
            include: global.include.clone(),
            exclude: global.exclude.clone(),
            settings: global.settings.clone(),
            deploy_config: global.deploy_config.clone(),
            limits: global.limits(),
            relocated: Vec::new(),
            texts: Texts::Kept,
        },
        namespace: global
            .namespace
            .clone()
            .unwrap_or_else(|| "default".to_string()),
        api_versions: global.api_versions.clone(),
        ingress: global.ingress.clone(),
        ..Options::default()
    }
}

/// Reads at most `max` bytes of standard input; the loader checks them as it checks a file.
pub(crate) fn read_stdin(max: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin().lock().take(max).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether an environment variable is set to something other than empty or `0`.
fn env_flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Colour in diagnostics: `--color always|never`; with `auto`, `FORCE_COLOR` or
/// `CLICOLOR_FORCE` (set, and not `0`) turn it on, `NO_COLOR` (set, not empty) off, and
/// otherwise only a terminal gets it (SEMANTICS.md#diagnostics).
fn use_color(global: &GlobalArgs) -> bool {
    color_on(global, std::io::stderr().is_terminal())
}

/// The colour rule of [`use_color`] for a stream that is or isn't a `terminal`.
pub(crate) fn color_on(global: &GlobalArgs, terminal: bool) -> bool {
    match global.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            if env_flag("FORCE_COLOR") || env_flag("CLICOLOR_FORCE") {
                true
            } else if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                false
            } else {
                terminal
            }
        }
    }
}

/// What a run's summary line ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The run writes objects: an error means nothing was written.
    Writes,
    /// The run only checks or explains.
    Checks,
}

/// Prints diagnostics to standard error (warnings as errors under `--strict`; notes hidden
/// by `-q`; the first few of each code unless `--verbose`), then one summary line when
/// anything was printed or `always_summary`. Says whether the run failed because of them.
pub(crate) fn report(
    diags: &mut [Diagnostic],
    sources: &Sources,
    global: &GlobalArgs,
    outcome: Outcome,
    always_summary: bool,
) -> bool {
    report_to(
        &mut std::io::stderr().lock(),
        diags,
        sources,
        global,
        outcome,
        always_summary,
    )
}

/// [`report`], written to `out`.
pub(crate) fn report_to(
    out: &mut dyn Write,
    diags: &mut [Diagnostic],
    sources: &Sources,
    global: &GlobalArgs,
    outcome: Outcome,
    always_summary: bool,
) -> bool {
    if global.strict {
        for d in diags.iter_mut() {
            if d.severity == Severity::Warning {
                d.severity = Severity::Error;
            }
        }
    }
    let shown: Vec<&Diagnostic> = diags
        .iter()
        .filter(|d| !(global.quiet && d.severity == Severity::Note))
        .collect();
    let format: ErrorFormat = global.error_format.into();
    let (mut summarised, omitted) = at_most(
        summarise(&shown, format, global.verbose),
        global.limits().diagnostics,
    );
    summarised.extend(omitted.as_ref().map(Item::Diagnostic));
    // The texts a render released once parsed, read again for the entries that quote them.
    load::read_again(sources, quoted_files(&summarised));
    let text = render_report(&summarised, sources, format, use_color(global));
    let summary = Summary::of(diags, sources.len());
    let _ = out.write_all(text.as_bytes());
    if format == ErrorFormat::Human && (!shown.is_empty() || always_summary) {
        let _ = writeln!(
            out,
            "{}",
            summary.line(outcome == Outcome::Writes && summary.errors > 0)
        );
    }
    summary.errors > 0
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

/// Loads and catalogues the inputs of a command that reads the catalog (`explain`, `tree`,
/// `explain --effective`, `pin`): the sources, the catalog and the diagnostics so far. A
/// failure to load ends the command (exit 2); errors in the inputs are reported and end it
/// (exit 1), since later stages would only report their consequences.
pub(crate) fn load_catalog(
    global: &GlobalArgs,
    opts: &Options,
    outcome: Outcome,
) -> Result<(Sources, Catalog, Vec<Diagnostic>), ExitStatus> {
    let crate::pipeline::Catalogued {
        sources,
        catalog,
        mut diags,
        ..
    } = crate::pipeline::load_catalog(opts, &mut read_stdin).map_err(|e| fatal(&e.to_string()))?;
    if diags.iter().any(Diagnostic::is_error) {
        report(&mut diags, &sources, global, outcome, false);
        return Err(ExitStatus::InputErrors);
    }
    Ok((sources, catalog, diags))
}

/// A failure of the tool or of its use: the message, exit 2.
pub(crate) fn fatal(message: &str) -> ExitStatus {
    let _ = writeln!(std::io::stderr(), "error: {message}");
    ExitStatus::Failure
}
