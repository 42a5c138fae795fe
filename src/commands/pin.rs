//! `ome-render pin`: record every managed pin in `ome-render.lock` and write the
//! ControllerRevisions it names, to commit (SEMANTICS.md#choice-lock). `--advance NS/NAME`
//! moves one pin to the current runtime, the Git form of `kubectl ome runtime sync`.
//!
//! It is the only command that writes the lock. Like a render it fails closed: any input
//! error, or a managed pin whose runtime can't be resolved, writes nothing.

use super::{ExitStatus, Outcome, fatal, load_catalog, options, report};
use crate::cli::{GlobalArgs, PinArgs};
use crate::diagnostics::{Diagnostic, Severity};
use crate::emit::lock::{PinFiles, REVISIONS_DIR, lock_bytes, revision_bytes, write_pins};
use crate::load::LOCK_FILE;
use crate::select::pins::{self, Change, LiveSpecs, Mode};
use crate::select::resolve::live_spec;
use std::io::Write;
use std::path::PathBuf;

pub(crate) fn pin(global: &GlobalArgs, args: &PinArgs) -> ExitStatus {
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        return fatal(
            "`ome-render pin` writes next to its inputs: give it a directory, not standard input",
        );
    }
    let root = args
        .paths
        .first()
        .cloned()
        .unwrap_or_else(|| PathBuf::from("."));
    let opts = options(global, &args.paths);
    let (sources, catalog, mut diags) = match load_catalog(global, &opts, Outcome::Writes) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    let (inherited, inherit_diags) = crate::inherit::resolve_all(&catalog);
    diags.extend(inherit_diags);
    if diags.iter().any(Diagnostic::is_error) {
        report(&mut diags, &sources, global, Outcome::Writes, false);
        return ExitStatus::InputErrors;
    }
    let advance = args
        .advance
        .as_deref()
        .map(|target| match target.split_once('/') {
            Some((ns, name)) => (ns.to_string(), name.to_string()),
            None => (opts.namespace.clone(), target.to_string()),
        });
    let live: LiveSpecs<'_> = catalog
        .inference_services
        .iter()
        .filter(|i| {
            i.runtime
                .as_ref()
                .is_some_and(|r| pins::mode(r) == Mode::Managed)
        })
        .map(|i| {
            (
                (i.lookup_namespace.clone(), i.name.clone()),
                live_spec(i, &catalog, &inherited),
            )
        })
        .collect();
    let plan = match pins::plan(
        &catalog,
        &live,
        advance.as_ref().map(|(ns, n)| (ns.as_str(), n.as_str())),
    ) {
        Ok(p) => p,
        Err(errors) => {
            diags.extend(errors);
            report(&mut diags, &sources, global, Outcome::Writes, false);
            return ExitStatus::InputErrors;
        }
    };
    if report(&mut diags, &sources, global, Outcome::Writes, false) {
        return ExitStatus::InputErrors;
    }

    let lock_path = root.join(LOCK_FILE);
    let revision_path = |name: &str| root.join(REVISIONS_DIR).join(format!("{name}.yaml"));
    let display = |p: &PathBuf| p.to_string_lossy().into_owned();
    let bytes = lock_bytes(&plan.lock.to_node());
    let unchanged = sources
        .by_path(&display(&lock_path))
        .and_then(|f| f.text())
        .is_some_and(|t| t.as_bytes() == bytes.as_slice());
    let mut files = PinFiles {
        lock: (!unchanged).then(|| (lock_path.clone(), bytes)),
        ..PinFiles::default()
    };
    for (name, object) in &plan.new_revisions {
        let runtime = object
            .str_at(&["metadata", "labels", crate::revision::RUNTIME_OF])
            .unwrap_or_default();
        files
            .revisions
            .push((revision_path(name), revision_bytes(object, runtime)));
    }
    for ((_, name), revision) in &catalog.revisions {
        let path = revision_path(name);
        if !plan.referenced.contains(name) && sources.path(revision.pos) == Some(&display(&path)) {
            files.remove.push(path);
        }
    }
    if let Err(e) = write_pins(&root, &files) {
        return fatal(&e);
    }

    let mut stderr = std::io::stderr().lock();
    let written: Vec<String> = files.revisions.iter().map(|(p, _)| display(p)).collect();
    for (target, change) in &plan.changes {
        let line = match change {
            Change::Pinned { revision } => format!("pinned {target} to {revision}"),
            Change::Advanced { from, to } => format!("advanced {target} from {from} to {to}"),
            Change::Kept {
                revision,
                why: Some(why),
            } => {
                format!("kept {target} on {revision}: {why}")
            }
            Change::Kept { why: None, .. } => continue,
            Change::Removed { revision } => {
                format!("removed {target} (pinned {revision}): it is no longer a managed pin")
            }
        };
        let _ = writeln!(stderr, "{line}");
    }
    for path in &written {
        let _ = writeln!(stderr, "wrote {path}");
    }
    for (name, field) in &plan.opaque {
        let _ = writeln!(
            stderr,
            "warning: {name} is named with ome-render's own hash: `{field}` is outside the fields it hashes as OME does, so OME would create its own revision for this spec"
        );
    }
    for path in &files.remove {
        let _ = writeln!(stderr, "removed {} (no pin uses it)", display(path));
    }
    let count = plan.lock.entries.len();
    let pins_word = if count == 1 { "pin" } else { "pins" };
    let _ = if unchanged {
        writeln!(
            stderr,
            "{} is up to date ({count} {pins_word})",
            display(&lock_path)
        )
    } else {
        writeln!(
            stderr,
            "wrote {} ({count} {pins_word})",
            display(&lock_path)
        )
    };
    ExitStatus::Success
}

/// `check --strict` requires every pin to be current: the notes that say a pin is drifted,
/// unrecorded or stale become errors (SEMANTICS.md#choice-strict-pins).
pub(crate) fn require_current(diags: &mut [Diagnostic], global: &GlobalArgs) {
    if global.strict {
        for d in diags.iter_mut().filter(|d| d.code.is_pin_currency()) {
            d.severity = Severity::Error;
        }
    }
}
