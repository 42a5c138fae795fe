//! The command line (README.md, "Usage"): `ome-render [OPTIONS] [PATH]...` renders, and so does
//! `ome-render render`; `check`, `explain`, `model-metadata`, `diff`, `completions` and
//! `man` are subcommands. The global flags work before and after a subcommand. Usage errors
//! exit 2 (clap's convention).

use crate::diagnostics::report::ErrorFormat;
use crate::emit::Format;
use crate::load::Limits;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The version line: the package version, and the commit and date it was built from when
/// the build saw a Git checkout (`0.2.0 (abc1234 2026-12-01)`; see `build.rs`).
pub const VERSION: &str = env!("OME_RENDER_VERSION");

#[derive(Parser, Debug)]
#[command(
    name = "ome-render",
    version = VERSION,
    about = "Render OME resources offline into the Kubernetes objects OME would create",
    long_about = "Render OME (Open Model Engine) resources offline into the Kubernetes objects \
        OME's controller would create: Deployments, Services, HPAs, PDBs and the rest, for Argo CD \
        or Flux to apply. Reads ClusterBaseModels, BaseModels, ServingRuntimes, \
        ClusterServingRuntimes, AcceleratorClasses and InferenceServices beside ordinary objects, \
        which pass through unchanged.\n\nExit codes: 0 rendered (warnings allowed), 1 the input \
        has errors or renders nothing (nothing is written), 2 bad usage or a failure of the tool; \
        `diff --exit-code`: 3 when the renders differ.",
    after_help = "A path named like a subcommand is read as a path after `--` or as `./check`."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Without a subcommand: render.
    #[command(flatten)]
    pub render: RenderArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Render (the default when no subcommand is given).
    Render(RenderArgs),
    /// Run every check of a render and write nothing.
    Check(CheckArgs),
    /// Explain why each runtime is or isn't chosen, like `kubectl ome runtime explain`.
    Explain(ExplainArgs),
    /// Compare two renders: what a change rolls out, and to which InferenceServices.
    #[command(
        long_about = "Compare two renders: what a change rolls out, and to which InferenceServices. \
            `ome-render diff BASE HEAD` renders two paths; `ome-render diff --base-ref REV [PATH]...` \
            renders the paths as they are and as they were at the Git revision REV (read from a \
            temporary worktree; the working tree is not touched). Both sides are rendered with the \
            same flags; objects are matched by group, kind, namespace and name.\n\nThe report \
            gives the counts, the impact (each changed runtime, model, accelerator class or \
            settings file and the InferenceServices it reaches; changed runtime choices), then each \
            InferenceService's objects as unified diffs. Secret values are shown as short hashes.\n\n\
            Exit codes: 0 compared (differences or not, unless --exit-code), 1 either side has input \
            errors (nothing is written), 2 bad usage or a failure of the tool, 3 the renders differ \
            and --exit-code was given.",
        after_help = "Field paths: dotted (`spec.replicas`); a key with dots in brackets \
            (`metadata.annotations[example.com/build]`) or plainly, the longest key present winning \
            (`metadata.annotations.example.com/build`); `*` is any key or list item; a number is a \
            list index."
    )]
    Diff(DiffArgs),
    /// Print the spec fields OME's model agent would write for a local Hugging Face snapshot.
    ModelMetadata(ModelMetadataArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `ome-render man > ome-render.1`.
    Man,
    /// Record managed pins in ome-render.lock and write the revisions they name.
    Pin(PinArgs),
    /// Show a runtime's inheritance tree and the InferenceServices that use it, like
    /// `kubectl ome runtime tree`.
    Tree(TreeArgs),
    /// Print each InferenceService's merged and defaulted component specs as OME's
    /// `kubectl ome runtime render` does (a cli.ome.io/v1alpha1 RenderedInferenceServiceList).
    #[command(
        long_about = "Print each InferenceService's merged and defaulted component specs (the \
            runtime merged in, each component's deployment mode, the deploy defaults filled) as \
            OME's `kubectl ome runtime render` prints them from files: a cli.ome.io/v1alpha1 \
            RenderedInferenceServiceList, sorted by namespace and name, or with --isvc one \
            RenderedInferenceService. Inputs are decoded strictly, as OME's file mode decodes \
            them: an unknown field or a duplicate key is an error. If any InferenceService fails, \
            every failure is reported and nothing is printed (exit 1).\n\nWARNING: the output \
            is not redacted; it holds literal environment values and anything placed inline. \
            It cannot be applied."
    )]
    Components(ComponentsArgs),
    /// Run as a KRM function (kustomize, kpt): a ResourceList on standard input, a
    /// ResourceList on standard output. `ome-render-krm` with no arguments does the same.
    Krm,
    /// Print the Argo CD plugin's parameter announcement (its `parameters.dynamic` command).
    #[command(hide = true)]
    ArgocdParameters,
    /// Print the JSON Schema of ome-render.yaml (schema/ome-render.schema.json).
    #[command(hide = true)]
    SettingsSchema,
}

/// Flags every subcommand takes, before or after it: where the input comes from and how
/// problems are reported.
#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// The namespace of namespaced objects written without one (default: the Argo CD
    /// application's namespace under the plugin, else `default`).
    #[arg(short = 'n', long, global = true, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// The renderer settings file (default: `ome-render.yaml` in the first path, or beside
    /// it when the path is a file or `-`).
    #[arg(long, global = true, value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// OME's ConfigMap `inferenceservice-config` (a YAML or JSON file holding it alone), read
    /// as OME's controller reads it: its `deploy`, `ingress`, `podDisruptionBudget` and other
    /// keys replace those of the settings file (SEMANTICS.md#deploy-config).
    #[arg(long, global = true, value_name = "FILE")]
    pub deploy_config: Option<PathBuf>,
    /// Read only walked files matching this pattern (repeatable; .gitignore rules: a bare
    /// name matches at any depth, `dir/` directories only).
    #[arg(long, global = true, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Skip walked files matching this pattern (repeatable; .gitignore rules, as --include).
    #[arg(long, global = true, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// An API the cluster serves beyond Kubernetes' own, GROUP/VERSION or GROUP/VERSION/KIND
    /// (repeatable; adds to `apiVersions` of the settings file): a rendered object of an API
    /// not listed is an error (SEMANTICS.md#api-versions).
    #[arg(long, global = true, value_name = "GROUP/VERSION[/KIND]", value_parser = api_version_entry)]
    pub api_versions: Vec<String>,
    /// Treat warnings as errors.
    #[arg(long, global = true)]
    pub strict: bool,
    /// Hide notes.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Show every diagnostic, instead of the first few of each kind.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// How diagnostics are written to standard error.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = ErrorFormatArg::Human,
        value_name = "FORMAT"
    )]
    pub error_format: ErrorFormatArg,
    /// Colour in diagnostics (`auto` honours NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE).
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = ColorArg::Auto,
        value_name = "WHEN"
    )]
    pub color: ColorArg,
    /// Raise (or lower) one of the limits on the input: NAME=N, repeatable
    /// (`--limit depth=256`); SEMANTICS.md#limits lists the names and their defaults.
    #[arg(long, global = true, value_name = "NAME=N", value_parser = limit_assignment)]
    pub limit: Vec<String>,
    /// The Argo CD plugin's `ingressDomain` and `ingressClassName` parameters, laid over the
    /// settings' `ingress` (no flag: SEMANTICS.md#argo-cd-plugin).
    #[arg(skip)]
    pub(crate) ingress: crate::model::settings::IngressOverride,
}

impl GlobalArgs {
    /// The run's limits: the defaults, with each `--limit` applied in order.
    pub(crate) fn limits(&self) -> Limits {
        let mut limits = Limits::default();
        for assignment in &self.limit {
            // Each was checked when the command line was parsed.
            let _ = limits.set(assignment);
        }
        limits
    }
}

/// `--api-versions`: an entry of the right shape, checked as the command line is parsed.
fn api_version_entry(value: &str) -> Result<String, String> {
    crate::k8s::api_versions::ApiVersions::default().insert(value)?;
    Ok(value.to_string())
}

/// `--limit NAME=N`: a known limit and a positive whole number, checked as the command line
/// is parsed, so a wrong one is a usage error (exit 2).
fn limit_assignment(value: &str) -> Result<String, String> {
    Limits::default().set(value)?;
    Ok(value.to_string())
}

#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderArgs {
    /// Files or directories to read (`*.yaml`, `*.yml`, `*.json`, recursively); `-` reads
    /// standard input. Default: the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Write to this file, or, when it is an existing directory or ends with `/`, one file
    /// per object into it (as `kustomize build -o`). Both are replaced atomically. `-` is
    /// standard output.
    #[arg(short, long, value_name = "PATH", value_parser = output_path, conflicts_with = "output_dir")]
    pub output: Option<PathBuf>,
    /// Write one file per object into this directory (as `helm template --output-dir`),
    /// replaced atomically; an existing one must be empty or ome-render's.
    #[arg(long, value_name = "DIR")]
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
    /// Succeed with no output when nothing renders (an empty stream makes Argo CD prune
    /// everything, so this is an error by default).
    #[arg(long)]
    pub allow_empty: bool,
    /// Write nothing: compare PATH (the file `-o` or the directory `--output-dir` wrote
    /// before) with a fresh render, and exit 1 with a unified diff when it is stale.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["output", "output_dir"])]
    pub check: Option<PathBuf>,
    /// Print how long each stage took to standard error.
    #[arg(long, hide = true)]
    pub timings: bool,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// Files or directories to read; `-` reads standard input. Default: the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Succeed when nothing would render.
    #[arg(long)]
    pub allow_empty: bool,
}

#[derive(Args, Debug, Clone)]
pub struct ExplainArgs {
    /// Files or directories to read; `-` reads standard input. Default: the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
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

#[derive(Args, Debug, Clone)]
pub struct ComponentsArgs {
    /// Files or directories to read; `-` reads standard input. Default: the current
    /// directory, unless -f names files.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Print one RenderedInferenceService, NAMESPACE/NAME (or NAME in `--namespace`).
    #[arg(long, value_name = "[NAMESPACE/]NAME")]
    pub isvc: Option<String>,
    /// A manifest file to read, as OME's `-f` (repeatable); without PATH only these are read.
    /// Needs --deploy-config (OME's ConfigMap inferenceservice-config, whose `deploy`
    /// defaults are applied).
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub filenames: Vec<PathBuf>,
    /// Output encoding: YAML (keys sorted) or indented JSON (OME's field order).
    #[arg(long, value_enum, default_value_t = ComponentsFormat::Yaml, value_name = "FORMAT")]
    pub format: ComponentsFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentsFormat {
    Yaml,
    Json,
}

#[derive(Args, Debug, Clone)]
pub struct ModelMetadataArgs {
    /// A Hugging Face snapshot directory, or its `config.json` (or `model_index.json`).
    /// Only the JSON files and each safetensors file's header are read.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Merge the fields into this BaseModel or ClusterBaseModel file instead of printing
    /// them: only the fields it doesn't set are added (under `spec:`), the rest of the file
    /// is kept byte for byte; the file is replaced atomically.
    #[arg(long, value_name = "FILE")]
    pub write: Option<PathBuf>,
}

/// `-o` takes a path; `kubectl`'s `-o json`, `-o yaml`, `-o wide` and the like are output
/// formats, which ome-render spells `--format`.
fn output_path(value: &str) -> Result<PathBuf, String> {
    let format = value.split_once('=').map_or(value, |(f, _)| f);
    if matches!(
        format,
        "json" | "yaml" | "wide" | "name" | "jsonpath" | "go-template" | "custom-columns"
    ) {
        return Err(format!(
            "`-o {value}` is kubectl's output format; here -o names the file or directory to write. \
             Use `--format json` (or `--format yaml`, `--format jsonl`), or `-o ./{value}` for a file named {value}"
        ));
    }
    if value.is_empty() {
        return Err("an empty path".to_string());
    }
    Ok(PathBuf::from(value))
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FormatArg {
    /// A multi-document YAML stream.
    #[default]
    Yaml,
    /// One JSON document: a `v1` List of the objects.
    Json,
    /// One JSON object per line.
    Jsonl,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Yaml => Format::Yaml,
            FormatArg::Json => Format::JsonList,
            FormatArg::Jsonl => Format::JsonLines,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplainFormat {
    Table,
    Json,
}

/// `tree --format`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeFormat {
    Table,
    Json,
    Mermaid,
    Dot,
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

#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// BASE and HEAD, the two paths to compare; with --base-ref, the paths to render at both
    /// revisions (default: the current directory).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Render the base from this Git revision of the current repository (branch, tag,
    /// commit), checked out into a temporary worktree.
    #[arg(long, value_name = "REV")]
    pub base_ref: Option<String>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text, value_name = "FORMAT")]
    pub format: DiffFormat,
    /// The most bytes the Markdown report takes (GitHub's comment limit is 65,536
    /// characters): object diffs are cut first, the summary and impact always stay; a limit
    /// below the smallest report is refused (exit 2, naming the minimum).
    #[arg(long, value_name = "BYTES", default_value_t = 65_000)]
    pub max_bytes: usize,
    /// Leave this field out of every object before comparing (repeatable), e.g.
    /// `metadata.annotations.example.com/build`.
    #[arg(long, value_name = "PATH")]
    pub ignore_field: Vec<String>,
    /// Lines of context around each change.
    #[arg(short = 'U', long, value_name = "LINES", default_value_t = 3)]
    pub unified: usize,
    /// Exit with 3 when the renders differ (`git diff --exit-code` uses 1, which means input
    /// errors here).
    #[arg(long)]
    pub exit_code: bool,
    /// Print how long each stage took to standard error.
    #[arg(long, hide = true)]
    pub timings: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    /// For a terminal: coloured there, plain in a pipe.
    Text,
    /// For a pull-request comment or job summary, within --max-bytes.
    Markdown,
    /// One JSON document with everything.
    Json,
}

#[derive(Args, Debug)]
pub struct PinArgs {
    /// Files or directories to read (not `-`: the lock is written next to them).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Move this managed pin to the current runtime, as `kubectl ome runtime sync` does.
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub advance: Option<String>,
}

#[derive(Args, Debug)]
pub struct TreeArgs {
    /// The runtime whose tree to show (omit it with `--isvc`). Alone and naming an existing
    /// path (`tree DIR`): every root runtime's tree found there.
    #[arg(value_name = "RUNTIME")]
    pub runtime: Option<String>,
    /// Files or directories to read; `-` reads standard input. Default: the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Show the path from this InferenceService up to its root runtime instead.
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub isvc: Option<String>,
    /// ServingRuntime or ClusterServingRuntime, when both have the name.
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// List the InferenceServices in scope whose runtime can't be resolved.
    #[arg(long)]
    pub show_unattributed_users: bool,
    /// Output format: the table, JSON, or the tree drawn as a Mermaid or Graphviz DOT graph.
    #[arg(long, value_enum, default_value_t = TreeFormat::Table, value_name = "FORMAT")]
    pub format: TreeFormat,
}
