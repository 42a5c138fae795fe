//! `ome-render [PATH]...`, `ome-render render` and `ome-render check`: run the pipeline,
//! report, and write the objects only when there is no error (fail closed: a partial or
//! empty render would make Argo CD prune live workloads; SEMANTICS.md#choice-fail-closed).

use super::{ExitStatus, Outcome, fatal, options, read_stdin, report, stdout_written};
use crate::cli::{CheckArgs, GlobalArgs, RenderArgs};
use crate::emit::{self, Target, WriteError};
use crate::pipeline::{self, Rendering};
use std::io::Write;
use std::time::Instant;

/// Where `-o` and `--output-dir` send the output: `-o` names a file, or a directory when it
/// is one already or ends with `/` (as `kustomize build -o`).
fn target(args: &RenderArgs) -> Target {
    if let Some(dir) = &args.output_dir {
        return Target::Dir(dir.clone());
    }
    match &args.output {
        None => Target::Stdout,
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
    let target = target(args);
    let format = args.format.into();
    let mut opts = options(global, &args.paths);
    opts.keep_ome = args.keep_ome;
    opts.kinds = args.kinds.clone();
    opts.serialise = Some(format);
    opts.allow_empty = args.allow_empty;
    opts.file_per_object = matches!(target, Target::Dir(_));
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
    // Freeing every tree costs time for nothing: the process is about to exit and the
    // memory goes back to the system anyway.
    std::mem::forget(rendering);
    status
}

pub(crate) fn check(global: &GlobalArgs, args: &CheckArgs) -> ExitStatus {
    let mut opts = options(global, &args.paths);
    opts.allow_empty = args.allow_empty;
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
