//! `ome-render [PATH]...`, `ome-render render` and `ome-render check`: run the pipeline,
//! report, and write the objects only when there is no error (fail closed: a partial or
//! empty render would make Argo CD prune live workloads; SEMANTICS.md#choice-fail-closed).

use super::{ExitStatus, Outcome, fatal, options, read_stdin, report, stdout_written};
use crate::cli::{CheckArgs, GlobalArgs, RenderArgs};
use crate::diagnostics::{Code, Diagnostic};
use crate::emit::{self, Target, WriteError};
use crate::load::{self, Texts};
use crate::pipeline::{self, Rendering};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Where `-o` and `--output-dir` send the output: `-o` names a file, or a directory when it
/// is one already or ends with `/` (as `kustomize build -o`).
fn target(args: &RenderArgs) -> Target {
    if let Some(dir) = &args.output_dir {
        return Target::Dir(dir.clone());
    }
    match &args.output {
        // `-o -` is standard output, as `-` is standard input.
        None => Target::Stdout,
        Some(path) if path.as_os_str() == "-" => Target::Stdout,
        Some(path) => {
            let text = path.to_string_lossy();
            if text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) || path.is_dir() {
                Target::Dir(path.clone())
            } else {
                Target::File(path.clone())
            }
        }
    }
}

impl RenderArgs {
    /// The pipeline options of a render with these arguments (`render`, `render --check`):
    /// the objects serialised as they are rendered, in the output format.
    pub(crate) fn options(&self, global: &GlobalArgs) -> pipeline::Options {
        let mut opts = options(global, &self.paths);
        opts.load.texts = Texts::Released;
        opts.keep_ome = self.keep_ome;
        opts.kinds = self.kinds.clone();
        opts.serialise = Some(self.format.into());
        opts.allow_empty = self.allow_empty;
        opts
    }
}

/// A name `--kinds` gives that is no kind at all: a usage error, with the closest kind.
fn unknown_kinds(rendering: &Rendering) -> Option<ExitStatus> {
    let (name, closest) = rendering.unknown_kinds.first()?;
    let hint = closest
        .as_ref()
        .map_or(String::new(), |k| format!("; did you mean `{k}`?"));
    Some(fatal(&format!(
        "--kinds {name} is no Kubernetes or OME kind, and no input has it{hint}"
    )))
}

pub(crate) fn render(global: &GlobalArgs, args: &RenderArgs) -> ExitStatus {
    if let Some(path) = &args.check {
        return check_committed(global, args, path);
    }
    let target = target(args);
    if let Err(message) = emit::check_target(&target, &args.paths) {
        return fatal(&message);
    }
    let format = args.format.into();
    let mut opts = args.options(global);
    opts.file_per_object = matches!(target, Target::Dir(_));
    opts.exit_after = true;
    opts.no_flux_check = super::argocd::under_plugin();
    let mut rendering = match pipeline::run(&opts, &mut read_stdin) {
        Ok(r) => r,
        Err(e) => return fatal(&e.to_string()),
    };
    if let Some(status) = unknown_kinds(&rendering) {
        return status;
    }
    let clock = Instant::now();
    let failed = report(
        &mut rendering.diags,
        &rendering.sources,
        global,
        Outcome::Writes,
        false,
    );
    rendering
        .timings
        .push(("report diagnostics", clock.elapsed()));
    if failed {
        return ExitStatus::InputErrors;
    }
    let clock = Instant::now();
    let status = match emit::write(&target, &rendering.objects, format) {
        Ok(()) => ExitStatus::Success,
        Err(WriteError::Stdout(e)) => stdout_written(Err(e)),
        Err(WriteError::Path(message)) => fatal(&message),
    };
    rendering.timings.push(("emit and write", clock.elapsed()));
    if args.timings {
        let mut stderr = std::io::stderr().lock();
        for (stage, took) in &rendering.timings {
            let _ = writeln!(
                stderr,
                "timing: {stage}: {:.1} ms",
                took.as_secs_f64() * 1e3
            );
        }
    }
    pipeline::leave_to_exit(rendering);
    status
}

pub(crate) fn check(global: &GlobalArgs, args: &CheckArgs) -> ExitStatus {
    let mut opts = options(global, &args.paths);
    opts.load.texts = Texts::Released;
    opts.allow_empty = args.allow_empty;
    // Serialised as a render would be, so the checks of the written output run too (`${`).
    opts.serialise = Some(crate::emit::Format::Yaml);
    let mut rendering = match pipeline::run(&opts, &mut read_stdin) {
        Ok(r) => r,
        Err(e) => return fatal(&e.to_string()),
    };
    super::pin::require_current(&mut rendering.diags, global);
    if report(
        &mut rendering.diags,
        &rendering.sources,
        global,
        Outcome::Checks,
        true,
    ) {
        ExitStatus::InputErrors
    } else {
        ExitStatus::Success
    }
}

/// `render --check PATH`: render as `-o PATH` or `--output-dir PATH` would, write nothing,
/// and compare with what PATH holds; stale is exit 1 with the unified diff on standard
/// output (SEMANTICS.md#check).
fn check_committed(global: &GlobalArgs, args: &RenderArgs, path: &Path) -> ExitStatus {
    let committed = match load::read_committed(path, global.limits().file_bytes) {
        Ok(c) => c,
        Err(e) => return fatal(&e.to_string()),
    };
    let shown = path.to_string_lossy().into_owned();
    let is_dir = emit::stale::is_dir(&shown, &committed);
    let format = args.format.into();
    let mut opts = args.options(global);
    opts.file_per_object = is_dir;
    let mut rendering = match pipeline::run(&opts, &mut read_stdin) {
        Ok(r) => r,
        Err(e) => return fatal(&e.to_string()),
    };
    if let Some(status) = unknown_kinds(&rendering) {
        return status;
    }
    let has_errors = rendering.diags.iter().any(Diagnostic::is_error);
    let stale = if has_errors {
        None
    } else {
        emit::stale::compare(&shown, &committed, &rendering.objects, format)
    };
    if let Some(stale) = &stale {
        let (what, again) = if is_dir {
            (
                format!("{} of {shown}", files(stale.files)),
                format!("ome-render --output-dir {shown}"),
            )
        } else {
            (shown.clone(), format!("ome-render -o {shown}"))
        };
        rendering.diags.push(
            Diagnostic::error(
                Code::StaleOutput,
                format!("{what} differ from a fresh render: the committed render is stale"),
            )
            .help(format!(
                "render again (`{again} …` with the same paths and flags) and commit the result; the diff is on standard output"
            )),
        );
    }
    let failed = report(
        &mut rendering.diags,
        &rendering.sources,
        global,
        Outcome::Checks,
        stale.is_some(),
    );
    if let Some(stale) = stale {
        let _ = stdout_written(emit::write_text(&stale.diff));
        return ExitStatus::InputErrors;
    }
    if failed {
        ExitStatus::InputErrors
    } else {
        ExitStatus::Success
    }
}

fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}
