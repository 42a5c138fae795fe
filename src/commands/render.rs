//! `ome-render [PATH]...` and `ome-render check`: run the pipeline, report, and write the
//! objects only when there is no error (fail closed: a partial render would make Argo CD
//! prune live workloads).

use super::{ExitStatus, fatal, options, read_stdin, report, stdout_written};
use crate::cli::{InputArgs, RenderArgs};
use crate::emit;
use crate::pipeline;
use std::io::Write;
use std::time::Instant;

pub(crate) fn render(args: &RenderArgs) -> ExitStatus {
    let mut opts = options(&args.input);
    opts.keep_ome = args.keep_ome;
    opts.kinds = args.kinds.clone();
    opts.serialise = Some(args.format.into());
    let mut rendering = match pipeline::run(&opts, &mut read_stdin) {
        Ok(r) => r,
        Err(e) => return fatal(&e.to_string()),
    };
    let clock = Instant::now();
    let failed = report(&mut rendering.diags, &rendering.sources, &args.input);
    rendering
        .timings
        .push(("report diagnostics", clock.elapsed()));
    if failed {
        return ExitStatus::InputErrors;
    }
    let format = args.format.into();
    let clock = Instant::now();
    let status = match &args.output_dir {
        Some(dir) => match emit::write_dir(dir, &rendering.objects, format) {
            Ok(()) => ExitStatus::Success,
            Err(e) => fatal(&e.0),
        },
        None => stdout_written(emit::write_stdout(&rendering.objects, format)),
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

pub(crate) fn check(input: &InputArgs) -> ExitStatus {
    let opts = options(input);
    let mut rendering = match pipeline::run(&opts, &mut read_stdin) {
        Ok(r) => r,
        Err(e) => return fatal(&e.to_string()),
    };
    super::pin::require_current(&mut rendering.diags, input);
    if report(&mut rendering.diags, &rendering.sources, input) {
        ExitStatus::InputErrors
    } else {
        ExitStatus::Success
    }
}
