//! `ome-render diff`: render two sides with the same flags, report both sides' diagnostics
//! (labelled base and head), compare, and print the report (SEMANTICS.md#diff).
//!
//! With `--base-ref REV`, the base is REV checked out by `git worktree add --detach` into a
//! temporary directory, which is removed (`git worktree remove`) as soon as the base is
//! loaded. The user's working tree, index and branches are never touched. Paths inside the
//! repository are read from that checkout and shown as written; paths outside it are the
//! same on both sides.

use super::{ExitStatus, Outcome, color_on, fatal, options, read_stdin, report_to, stdout_written};
use crate::cli::{DiffArgs, DiffFormat, ErrorFormatArg, GlobalArgs};
use crate::diagnostics::report::thousands;
use crate::diagnostics::{Code, Diagnostic};
use crate::diff;
use crate::diff::format::{Labels, json, markdown, text};
use crate::diff::normalise::{FieldPath, Normalise};
use crate::emit::Format;
use crate::load::{LoadError, Texts};
use crate::pipeline::{self, Rendering};
use std::io::{IsTerminal, Write};
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What to render on each side.
struct Plan {
    base: SidePlan,
    head: SidePlan,
    labels: Labels,
    /// The base revision's checkout, removed when dropped.
    checkout: Option<Worktree>,
}

struct SidePlan {
    paths: Vec<PathBuf>,
    /// Paths read from the checkout of the base revision.
    relocated: Vec<(PathBuf, PathBuf)>,
    /// `--settings` for this side (the global flag, or none when the base revision lacks
    /// the file).
    settings: Option<PathBuf>,
    /// `--deploy-config` for this side (the global flag, or none when the base revision
    /// lacks the file).
    deploy_config: Option<PathBuf>,
    /// Nothing to render: every path is missing at the base revision.
    empty: bool,
    /// Notes about the plan, reported with the side's diagnostics.
    notes: Vec<Diagnostic>,
}

impl SidePlan {
    fn of(paths: Vec<PathBuf>, global: &GlobalArgs) -> SidePlan {
        SidePlan {
            paths,
            relocated: Vec::new(),
            settings: global.settings.clone(),
            deploy_config: global.deploy_config.clone(),
            empty: false,
            notes: Vec::new(),
        }
    }
}

pub(crate) fn diff(global: &GlobalArgs, args: &DiffArgs) -> ExitStatus {
    let mut ignore = Vec::new();
    for text in &args.ignore_field {
        match FieldPath::parse(text) {
            Ok(path) => ignore.push(path),
            Err(e) => return fatal(&e),
        }
    }
    let normalise = Normalise::new(ignore);
    let planned = match &args.base_ref {
        Some(rev) => from_git(global, rev, &args.paths),
        None => two_paths(global, &args.paths),
    };
    let mut plan = match planned {
        Ok(plan) => plan,
        Err(message) => return fatal(&message),
    };

    let clock = Instant::now();
    let render = |side: &SidePlan,
                  reuse: Option<Arc<pipeline::reuse::Reuse>>|
     -> Result<Rendering, LoadError> {
        if side.empty {
            return Ok(Rendering::default());
        }
        let mut opts = options(global, &side.paths);
        opts.load.relocated = side.relocated.clone();
        // A base read from a checkout keeps its texts: the checkout goes before the report.
        // Otherwise each file's digest outlives its text, for the head to reuse the base's
        // objects where the files are the same bytes (SEMANTICS.md#diff-reuse).
        if side.relocated.is_empty() {
            opts.load.texts = Texts::Digested;
        }
        opts.load.settings = side.settings.clone();
        opts.load.deploy_config = side.deploy_config.clone();
        opts.serialise = Some(Format::Yaml);
        opts.allow_empty = true;
        opts.trace = true;
        opts.normalise = Some(normalise.clone());
        opts.reuse = reuse;
        pipeline::run(&opts, &mut read_stdin)
    };
    // One side after the other: each render already uses every core, and rendering both at
    // once (`rayon::join`) measured slower, 2.65 s against 2.19 s on 10,000
    // InferenceServices, with 20% more memory (BENCHMARKS.md, "diff"). The head takes the
    // base's objects of every InferenceService whose inputs are the same bytes.
    let base = render(&plan.base, None);
    let (base, head) = match base {
        Ok(mut base) => {
            let reuse = Arc::new(pipeline::reuse::Reuse::new(
                std::mem::take(&mut base.objects),
                base.settings.clone(),
                std::mem::take(&mut base.recorded),
            ));
            let head = render(&plan.head, Some(Arc::clone(&reuse)));
            base.objects = pipeline::reuse::Reuse::into_objects(reuse);
            (Ok(base), head)
        }
        Err(e) => (Err(e), render(&plan.head, None)),
    };
    // Everything the base needs is in memory now.
    drop(plan.checkout.take());
    let rendered = clock.elapsed();
    let (mut base, mut head) = match (base, head) {
        (Ok(b), Ok(h)) => (b, h),
        (Err(e), _) => return fatal(&format!("base ({}): {e}", plan.labels.base)),
        (_, Err(e)) => return fatal(&format!("head ({}): {e}", plan.labels.head)),
    };
    base.diags.append(&mut plan.base.notes);
    head.diags.append(&mut plan.head.notes);

    let clock = Instant::now();
    let fold = args.base_ref.is_some();
    // Said in the report when only the base fails: a pull request that repairs it compares
    // with nothing, and its objects are added (SEMANTICS.md#diff).
    let base_errors = first_errors(&base, &plan.base.relocated);
    let base_failed = report_side(
        "base",
        &plan.labels.base,
        &mut base,
        &plan.base,
        global,
        fold,
    );
    let head_failed = report_side(
        "head",
        &plan.labels.head,
        &mut head,
        &plan.head,
        global,
        false,
    );
    let reported = clock.elapsed();
    if head_failed {
        return ExitStatus::InputErrors;
    }
    // A field path that matched no field on either side is likely a typo.
    let mut unmatched: Vec<Diagnostic> = normalise
        .unmatched()
        .into_iter()
        .map(|path| {
            Diagnostic::warning(
                Code::IgnoreFieldUnmatched,
                format!("--ignore-field {path} matches no field of any object on either side"),
            )
            .help("field paths start at the object's top (`spec.template`, `metadata.annotations[example.com/build]`); `*` is any key or item")
        })
        .collect();
    if !unmatched.is_empty()
        && report_to(
            &mut std::io::stderr().lock(),
            &mut unmatched,
            &crate::source::Sources::default(),
            global,
            Outcome::Checks,
            false,
        )
    {
        return ExitStatus::InputErrors;
    }
    let base_errors = if base_failed {
        let settings = base.settings.clone();
        base = Rendering {
            settings,
            ..Rendering::default()
        };
        Some(base_errors)
    } else {
        None
    };

    let clock = Instant::now();
    let report = diff::compare(
        &base.side(),
        &head.side(),
        &diff::Options {
            context: args.unified,
            namespace: opts_namespace(global),
        },
    );
    let mut report = report;
    report.base_errors = base_errors;
    let compared = clock.elapsed();
    let clock = Instant::now();
    let out = match args.format {
        DiffFormat::Text => text::render(
            &report,
            &plan.labels,
            color_on(global, std::io::stdout().is_terminal()),
        ),
        DiffFormat::Markdown => match markdown::fitted(&report, &plan.labels, args.max_bytes) {
            Ok(text) => text,
            Err(least) => {
                return fatal(&format!(
                    "--max-bytes {}: the smallest Markdown report of these renders takes {} bytes \
                     (the summary and the impact are always whole); pass --max-bytes {least} or more",
                    args.max_bytes,
                    thousands(least)
                ));
            }
        },
        DiffFormat::Json => json::render(&report, &plan.labels),
    };
    let mut status = stdout_written(std::io::stdout().lock().write_all(out.as_bytes()));
    if status == ExitStatus::Success && args.exit_code && report.has_differences() {
        status = ExitStatus::Differences;
    }
    if args.timings {
        let stages: [(&str, Duration); 4] = [
            ("render base, then head", rendered),
            ("report diagnostics", reported),
            ("compare", compared),
            ("format and write", clock.elapsed()),
        ];
        let mut stderr = std::io::stderr().lock();
        for (side, rendering) in [("base", &base), ("head", &head)] {
            for (stage, took) in &rendering.timings {
                let _ = writeln!(
                    stderr,
                    "timing: {side}: {stage}: {:.1} ms",
                    took.as_secs_f64() * 1e3
                );
            }
        }
        for (stage, took) in stages {
            let _ = writeln!(
                stderr,
                "timing: {stage}: {:.1} ms",
                took.as_secs_f64() * 1e3
            );
        }
        let _ = writeln!(
            stderr,
            "reuse: the head took the base's objects of {} InferenceServices",
            thousands(head.reused)
        );
    }
    pipeline::leave_to_exit((base, head, report));
    status
}

/// How many of a failing base's errors the report quotes.
const FIRST_ERRORS: usize = 3;

/// The first errors of a side (its warnings when `--strict` made them fail it), one line
/// each, `FILE:LINE: message`, with the checkout's paths shown as written.
fn first_errors(rendering: &Rendering, relocated: &[(PathBuf, PathBuf)]) -> Vec<String> {
    let errors: Vec<&Diagnostic> = rendering.diags.iter().filter(|d| d.is_error()).collect();
    let chosen = if errors.is_empty() {
        rendering.diags.iter().collect()
    } else {
        errors
    };
    let mut lines: Vec<String> = chosen
        .iter()
        .take(FIRST_ERRORS)
        .map(|d| {
            let at = d
                .pos
                .and_then(|p| {
                    rendering
                        .sources
                        .path(p)
                        .map(|f| format!("{f}:{}: ", p.line))
                })
                .unwrap_or_default();
            let mut line = format!("{at}{}", d.message);
            for (written, real) in relocated {
                line = line.replace(
                    real.to_string_lossy().as_ref(),
                    written.to_string_lossy().as_ref(),
                );
            }
            line
        })
        .collect();
    if chosen.len() > FIRST_ERRORS {
        lines.push(format!("… and {} more", chosen.len() - FIRST_ERRORS));
    }
    lines
}

/// The namespace of objects written without one, as the pipeline applies it.
fn opts_namespace(global: &GlobalArgs) -> String {
    options(global, &[]).namespace
}

/// `ome-render diff BASE HEAD`.
fn two_paths(global: &GlobalArgs, paths: &[PathBuf]) -> Result<Plan, String> {
    let [base, head] = paths else {
        return Err(format!(
            "diff compares two paths, BASE and HEAD (got {}), or, with --base-ref REV, the paths at REV and as they are",
            paths.len()
        ));
    };
    if base.as_os_str() == "-" && head.as_os_str() == "-" {
        return Err("standard input (`-`) can be only one side of a diff".to_string());
    }
    Ok(Plan {
        labels: Labels {
            base: base.display().to_string(),
            head: head.display().to_string(),
        },
        base: SidePlan::of(vec![base.clone()], global),
        head: SidePlan::of(vec![head.clone()], global),
        checkout: None,
    })
}

/// Runs git with `args` in the current directory; its standard output, or why it failed.
fn git(args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`git {}` failed: {}", args.join(" "), err.trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .trim_end_matches(['\n', '\r'])
        .to_string())
}

/// A checkout of the base revision in a temporary directory, removed when dropped.
struct Worktree {
    dir: PathBuf,
}

impl Drop for Worktree {
    fn drop(&mut self) {
        let dir = self.dir.to_string_lossy().into_owned();
        if let Err(e) = git(&["worktree", "remove", "--force", &dir]) {
            let _ = writeln!(
                std::io::stderr(),
                "warning: could not remove the temporary worktree {dir} ({e}); `git worktree prune` cleans it up"
            );
        }
    }
}

/// `path`, as written relative to the current directory (which is `prefix` inside the
/// repository whose top is `top`), relative to the repository's top; `None` when it lies
/// outside the repository. Lexical: `..` and `.` are resolved, links are not followed.
fn repo_relative(path: &Path, top: &Path, prefix: &str) -> Option<PathBuf> {
    let joined = if path.is_absolute() {
        path.strip_prefix(top).ok()?.to_path_buf()
    } else {
        Path::new(prefix).join(path)
    };
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(p) => parts.push(p),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// What the head is called: `HEAD (1a2b3c4)` when the rendered paths are as committed,
/// `working tree (on 1a2b3c4)` when they hold changes or untracked files
/// (SEMANTICS.md#diff). `working tree` alone when there is no commit yet.
fn head_label(paths: &[PathBuf], settings: Option<&Path>) -> String {
    let Ok(commit) = git(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]) else {
        return "working tree".to_string();
    };
    let short = commit.get(..7).unwrap_or(&commit);
    let mut args: Vec<String> = ["status", "--porcelain", "--untracked-files=all", "--"]
        .map(String::from)
        .to_vec();
    args.extend(
        paths
            .iter()
            .map(PathBuf::as_path)
            .chain(settings)
            .map(|p| p.to_string_lossy().into_owned()),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match git(&args) {
        Ok(status) if status.trim().is_empty() => format!("HEAD ({short})"),
        _ => format!("working tree (on {short})"),
    }
}

/// Whether `rel` (relative to the top) exists at `commit`.
fn exists_at(commit: &str, rel: &Path) -> bool {
    let spec = if rel.as_os_str().is_empty() {
        format!("{commit}^{{tree}}")
    } else {
        format!("{commit}:{}", rel.to_string_lossy())
    };
    git(&["cat-file", "-e", &spec]).is_ok()
}

fn missing_note(written: &Path, rev: &str, what: &str) -> Diagnostic {
    Diagnostic::note(
        Code::DiffPathMissing,
        format!("{} is not in {rev}: {what}", written.display()),
    )
}

/// `ome-render diff --base-ref REV [PATH]...`.
fn from_git(global: &GlobalArgs, rev: &str, paths: &[PathBuf]) -> Result<Plan, String> {
    let paths: Vec<PathBuf> = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    if paths.iter().any(|p| p.as_os_str() == "-") {
        return Err(
            "--base-ref renders paths of the repository; standard input (`-`) has no base revision"
                .to_string(),
        );
    }
    let top = PathBuf::from(
        git(&["rev-parse", "--show-toplevel"])
            .map_err(|e| format!("--base-ref needs a Git repository: {e}"))?,
    );
    let prefix = git(&["rev-parse", "--show-prefix"])?;
    let commit = git(&["rev-parse", "--verify", "--quiet", &format!("{rev}^{{commit}}")])
        .map_err(|_| {
            format!("--base-ref {rev}: no such commit in this repository (fetch it first, e.g. `git fetch origin {rev}`)")
        })?;

    let dir = std::env::temp_dir().join(format!(
        "ome-render-base-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let dir_text = dir.to_string_lossy().into_owned();
    let mut base = SidePlan::of(Vec::new(), global);
    let mut kept = Vec::new();
    for path in &paths {
        match repo_relative(path, &top, &prefix) {
            Some(rel) if exists_at(&commit, &rel) => {
                base.relocated.push((path.clone(), dir.join(&rel)));
                kept.push(path.clone());
            }
            Some(_) => base.notes.push(missing_note(
                path,
                rev,
                "the base has nothing there, so everything under it is added",
            )),
            // Outside the repository: the same files on both sides.
            None => kept.push(path.clone()),
        }
    }
    if let Some(settings) = &global.settings
        && let Some(rel) = repo_relative(settings, &top, &prefix)
    {
        if exists_at(&commit, &rel) {
            base.relocated.push((settings.clone(), dir.join(&rel)));
        } else {
            base.settings = None;
            base.notes.push(missing_note(
                settings,
                rev,
                "the base is rendered without --settings",
            ));
        }
    }
    // OME's ConfigMap, when it is a file of the repository, is the base revision's too.
    if let Some(config) = &global.deploy_config
        && let Some(rel) = repo_relative(config, &top, &prefix)
    {
        if exists_at(&commit, &rel) {
            base.relocated.push((config.clone(), dir.join(&rel)));
        } else {
            base.deploy_config = None;
            base.notes.push(missing_note(
                config,
                rev,
                "the base is rendered without --deploy-config",
            ));
        }
    }
    base.empty = kept.is_empty();
    base.paths = kept;
    let checkout = if base.empty {
        None
    } else {
        git(&[
            "-c",
            "core.hooksPath=/dev/null",
            "worktree",
            "add",
            "--detach",
            "--quiet",
            &dir_text,
            &commit,
        ])
        .map_err(|e| format!("--base-ref {rev}: cannot check it out: {e}"))?;
        Some(Worktree { dir })
    };
    let short = commit.get(..7).unwrap_or(&commit);
    let head = head_label(&paths, global.settings.as_deref());
    Ok(Plan {
        labels: Labels {
            base: if rev.starts_with(short) {
                short.to_string()
            } else {
                format!("{rev} ({short})")
            },
            head,
        },
        base,
        head: SidePlan::of(paths, global),
        checkout,
    })
}

/// Reports one side's diagnostics to standard error, labelled (SEMANTICS.md#diff): under a
/// `base: REV` line in the human format, prefixed in GitHub annotations, with
/// `"side":"base"` in JSON. With `fold`, positions go into the message instead of the
/// annotation's file and line, since the base's lines are not the pull request's. Says
/// whether the side has errors.
fn report_side(
    side: &str,
    label: &str,
    rendering: &mut Rendering,
    plan: &SidePlan,
    global: &GlobalArgs,
    fold: bool,
) -> bool {
    crate::diagnostics::sort(&mut rendering.diags);
    for d in &mut rendering.diags {
        // A walked path of the checkout shown as written, should a message name one.
        for (written, real) in &plan.relocated {
            let (w, r) = (written.to_string_lossy(), real.to_string_lossy());
            if d.message.contains(r.as_ref()) {
                d.message = d.message.replace(r.as_ref(), w.as_ref());
            }
        }
    }
    if global.error_format == ErrorFormatArg::Github {
        for d in &mut rendering.diags {
            let at = match d
                .pos
                .and_then(|p| rendering.sources.path(p).map(|f| (f, p)))
            {
                Some((file, pos)) if fold => format!(" {file}:{}", pos.line),
                _ => String::new(),
            };
            // The label leads: the object and field, which the annotation would put first,
            // follow it.
            let mut message = format!("{side}{at}: ");
            if let Some(object) = d.object.take() {
                message.push_str(&format!("{object}: "));
            }
            if let Some(field) = d.field.take() {
                message.push_str(&format!("{field}: "));
            }
            message.push_str(&d.message);
            d.message = message;
            if fold {
                d.pos = None;
                d.related.clear();
            }
        }
    }
    let mut buffer = Vec::new();
    let failed = report_to(
        &mut buffer,
        &mut rendering.diags,
        &rendering.sources,
        global,
        Outcome::Checks,
        false,
    );
    let text = String::from_utf8_lossy(&buffer);
    let labelled = match global.error_format {
        ErrorFormatArg::Human if !text.is_empty() => format!("{side}: {label}\n{text}"),
        ErrorFormatArg::Json => text
            .lines()
            .map(|line| match line.strip_prefix('{') {
                Some(rest) => format!("{{\"side\":\"{side}\",{rest}\n"),
                None => format!("{line}\n"),
            })
            .collect(),
        _ => text.into_owned(),
    };
    let _ = std::io::stderr().lock().write_all(labelled.as_bytes());
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_made_relative_to_the_repository_top() {
        let top = Path::new("/repo");
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("examples/demo", "", Some("examples/demo")),
            ("demo", "examples/", Some("examples/demo")),
            ("../other", "examples/", Some("other")),
            ("./a/../b", "", Some("b")),
            (".", "", Some("")),
            ("../shared/catalog", "", None),
            ("/repo/x/y", "sub/", Some("x/y")),
            ("/elsewhere/x", "", None),
        ];
        for (path, prefix, want) in cases {
            assert_eq!(
                repo_relative(Path::new(path), top, prefix),
                want.map(PathBuf::from),
                "{path} from {prefix:?}"
            );
        }
    }
}
