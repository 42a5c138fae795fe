//! The command line (README.md, "Usage"): `ome-render [OPTIONS] [PATH]...` renders; `explain`
//! and `check` are subcommands. Usage errors exit 2 (clap's convention).

use crate::diagnostics::report::ErrorFormat;
use crate::emit::Format;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "ome-render",
    version,
    about = "Render OME resources offline into the Kubernetes objects OME would create",
    long_about = "Render OME (Open Model Engine) resources offline into the Kubernetes objects \
        OME's controller would create: Deployments, Services, HPAs, PDBs and the rest, for Argo CD \
        or Flux to apply. Reads ClusterBaseModels, BaseModels, ServingRuntimes, \
        ClusterServingRuntimes, AcceleratorClasses and InferenceServices beside ordinary objects, \
        which pass through unchanged.\n\nExit codes: 0 rendered (warnings allowed), 1 the input \
        has errors (nothing is written), 2 bad usage or a failure of the tool.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub render: RenderArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Explain why each runtime is or isn't chosen, like `kubectl ome runtime explain`.
    Explain(ExplainArgs),
    /// Run every check of a render and write nothing.
    Check(InputArgs),
    /// Record managed pins in ome-render.lock and write the revisions they name.
    Pin(PinArgs),
    /// Show a runtime's inheritance tree and the InferenceServices that use it, like
    /// `kubectl ome runtime tree`.
    Tree(TreeArgs),
}

/// Where the input comes from and how problems are reported.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Files or directories to read (`*.yaml`, `*.yml`, `*.json`, recursively); `-` reads
    /// standard input. Default: the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The namespace of namespaced objects written without one.
    #[arg(short = 'n', long, default_value = "default", value_name = "NAMESPACE")]
    pub namespace: String,
    /// Read only walked files matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip walked files matching this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,
    /// How diagnostics are written to standard error.
    #[arg(long, value_enum, default_value_t = ErrorFormatArg::Human, value_name = "FORMAT")]
    pub error_format: ErrorFormatArg,
    /// Colour in diagnostics.
    #[arg(long, value_enum, default_value_t = ColorArg::Auto, value_name = "WHEN")]
    pub color: ColorArg,
    /// Hide notes (skipped files and documents).
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Write one file per object into this directory instead of standard output. The
    /// directory is replaced atomically; an existing one must be empty or ome-render's.
    #[arg(short, long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Yaml, value_name = "FORMAT")]
    pub format: FormatArg,
    /// Write only objects of these kinds (comma-separated or repeated), e.g. `Deployment`.
    #[arg(long, value_delimiter = ',', value_name = "KIND")]
    pub kinds: Vec<String>,
    /// Also write the OME resources that were consumed (models, runtimes, classes,
    /// InferenceServices), for clusters that run OME's controller too.
    #[arg(long)]
    pub keep_ome: bool,
    /// Print how long each stage took to standard error.
    #[arg(long, hide = true)]
    pub timings: bool,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The InferenceService to explain, as NAMESPACE/NAME (or NAME in `--namespace`).
    #[arg(
        long,
        value_name = "NAMESPACE/NAME",
        conflicts_with = "model",
        required_unless_present_any = ["model", "runtime"]
    )]
    pub isvc: Option<String>,
    /// The model to explain, in `--namespace`.
    #[arg(long, value_name = "NAME", conflicts_with = "effective")]
    pub model: Option<String>,
    /// Print the runtime spec after inheritance, preset and per-accelerator settings, each
    /// field annotated with the runtime (file and line) it comes from.
    #[arg(long)]
    pub effective: bool,
    /// With `--effective`: the runtime to show, as an InferenceService naming it would find it.
    #[arg(long, value_name = "NAME", requires = "effective", conflicts_with_all = ["isvc", "model"])]
    pub runtime: Option<String>,
    /// With `--runtime`: ServingRuntime or ClusterServingRuntime.
    #[arg(long, value_name = "KIND", requires = "runtime")]
    pub kind: Option<String>,
    /// Output format of the table.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Table, value_name = "FORMAT")]
    pub format: ExplainFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    Yaml,
    Json,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Yaml => Format::Yaml,
            FormatArg::Json => Format::Json,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplainFormat {
    Table,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorFormatArg {
    Human,
    Github,
    Json,
}

impl From<ErrorFormatArg> for ErrorFormat {
    fn from(f: ErrorFormatArg) -> ErrorFormat {
        match f {
            ErrorFormatArg::Human => ErrorFormat::Human,
            ErrorFormatArg::Github => ErrorFormat::Github,
            ErrorFormatArg::Json => ErrorFormat::Json,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug)]
pub struct PinArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Move this managed pin to the current runtime, as `kubectl ome runtime sync` does.
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub advance: Option<String>,
}

#[derive(Args, Debug)]
pub struct TreeArgs {
    /// The runtime whose tree to show (omit it with `--isvc`).
    #[arg(value_name = "RUNTIME")]
    pub runtime: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Show the path from this InferenceService up to its root runtime instead.
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub isvc: Option<String>,
    /// ServingRuntime or ClusterServingRuntime, when both have the name.
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// List the InferenceServices in scope whose runtime can't be resolved.
    #[arg(long)]
    pub show_unattributed_users: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Table, value_name = "FORMAT")]
    pub format: ExplainFormat,
}
