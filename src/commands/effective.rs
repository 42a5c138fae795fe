//! `ome-render explain --effective` (`--isvc NS/NAME` or `--runtime NAME`): the runtime spec
//! after inheritance, preset and per-accelerator settings, as YAML whose every value names
//! the runtime, file and line it comes from (SEMANTICS.md#effective).

use super::{ExitStatus, Outcome, fatal, load_catalog, options, report, stdout_written};
use crate::cli::{ExplainArgs, ExplainFormat, GlobalArgs};
use crate::inspect::effective::{named, of_isvc, render};
use crate::inspect::tree::runtime_kind;
use std::io::Write;

pub(crate) fn effective(global: &GlobalArgs, args: &ExplainArgs) -> ExitStatus {
    if args.format == ExplainFormat::Json {
        return fatal(
            "`explain --effective` prints annotated YAML; `--format json` is not supported with it",
        );
    }
    let opts = options(global, &args.paths);
    let (sources, catalog, mut diags) = match load_catalog(global, &opts, Outcome::Checks) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    // A broken chain elsewhere doesn't stop this view; the target's own chain does, below.
    let (inherited, _) = crate::inherit::resolve_all(&catalog);
    let effective = if let Some(name) = &args.runtime {
        let kind = match runtime_kind(args.kind.as_deref()) {
            Ok(kind) => kind,
            Err(message) => return fatal(&message),
        };
        named(&catalog, &inherited, name, kind, &opts.namespace).map_err(|d| diags.push(d))
    } else {
        let target = args.isvc.as_deref().unwrap_or_default();
        of_isvc(&catalog, &inherited, target, &opts.namespace, &mut diags).ok_or(())
    };
    let Ok(effective) = effective else {
        report(&mut diags, &sources, global, Outcome::Checks, false);
        return ExitStatus::InputErrors;
    };
    if report(&mut diags, &sources, global, Outcome::Checks, false) {
        return ExitStatus::InputErrors;
    }
    let text = render(&effective, |pos| {
        sources.path(pos).map(|p| format!("{p}:{}", pos.line))
    });
    let written = {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    stdout_written(written)
}
