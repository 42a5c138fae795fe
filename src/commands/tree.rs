//! `ome-render tree RUNTIME` and `tree --isvc NS/NAME`: a runtime's inheritance tree and the
//! InferenceServices that use it, in the layout of `kubectl ome runtime tree`
//! (SEMANTICS.md#tree).

use super::{ExitStatus, Outcome, fatal, load_catalog, options, report, stdout_written};
use crate::cli::{GlobalArgs, TreeArgs, TreeFormat};
use crate::inspect::tree::{
    isvc_target_tree, named_tree, render_graph, render_json, render_table, root_trees, runtime_kind,
};
use crate::select::resolve::Resolver;
use std::io::Write;

pub(crate) fn tree(global: &GlobalArgs, args: &TreeArgs) -> ExitStatus {
    let kind = match runtime_kind(args.kind.as_deref()) {
        Ok(kind) => kind,
        Err(message) => return fatal(&message),
    };
    // With `--isvc` there is no RUNTIME: the first positional is a path. So it is when it
    // is the only argument and an existing path (`tree DIR`): every root runtime's tree.
    let mut paths = args.paths.clone();
    let every_root = args.isvc.is_none()
        && paths.is_empty()
        && args
            .runtime
            .as_deref()
            .is_some_and(|r| r == "-" || std::path::Path::new(r).symlink_metadata().is_ok());
    let runtime = match (&args.isvc, &args.runtime) {
        (Some(_), Some(path)) => {
            paths.insert(0, path.into());
            None
        }
        (None, Some(path)) if every_root => {
            paths.insert(0, path.into());
            None
        }
        (None, None) => return fatal("name a RUNTIME, or pass --isvc NAMESPACE/NAME"),
        (_, r) => r.clone(),
    };
    let opts = options(global, &paths);
    let (sources, catalog, mut diags) = match load_catalog(global, &opts, Outcome::Checks) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    // Broken chains are part of the picture: they show as issues, not errors.
    let (inherited, _) = crate::inherit::resolve_all(&catalog);
    let resolver = Resolver::new(&catalog, &inherited);
    if every_root {
        let reports = root_trees(&catalog, &resolver, kind, &paths[0])
            .map_err(|d| diags.push(d))
            .unwrap_or_default();
        if report(&mut diags, &sources, global, Outcome::Checks, false) {
            return ExitStatus::InputErrors;
        }
        let text = match args.format {
            TreeFormat::Table => reports
                .iter()
                .map(|r| render_table(r, args.show_unattributed_users))
                .collect::<Vec<_>>()
                .join("\n"),
            // One document: the reports in a JSON array.
            TreeFormat::Json => format!(
                "[{}]\n",
                reports
                    .iter()
                    .map(|r| render_json(r, args.show_unattributed_users)
                        .trim_end()
                        .to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            // A graph draws one tree.
            TreeFormat::Mermaid | TreeFormat::Dot => {
                return fatal(
                    "--format mermaid and dot draw one runtime's tree: name a RUNTIME (or --isvc) before the path",
                );
            }
        };
        let written = {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        };
        return stdout_written(written);
    }
    let built = match (&args.isvc, runtime) {
        (Some(target), _) => isvc_target_tree(&catalog, &resolver, target, &opts.namespace),
        (None, Some(name)) => {
            named_tree(&catalog, &resolver, &name, kind, &opts.namespace).map_err(|d| vec![d])
        }
        (None, None) => return fatal("name a RUNTIME, or pass --isvc NAMESPACE/NAME"),
    };
    let built = match built {
        Ok(built) => built,
        Err(why) => {
            diags.extend(why);
            report(&mut diags, &sources, global, Outcome::Checks, false);
            return ExitStatus::InputErrors;
        }
    };
    if report(&mut diags, &sources, global, Outcome::Checks, false) {
        return ExitStatus::InputErrors;
    }
    let text = match args.format {
        TreeFormat::Table => render_table(&built, args.show_unattributed_users),
        TreeFormat::Json => render_json(&built, args.show_unattributed_users),
        TreeFormat::Mermaid => render_graph(&built).mermaid(),
        TreeFormat::Dot => render_graph(&built).dot(),
    };
    let written = {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|()| out.flush())
    };
    stdout_written(written)
}
