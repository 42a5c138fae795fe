//! Checks of the output as a whole, before anything is written: no two objects may share
//! an identity, and in an output directory every object needs a file name of its own.

use super::{Format, file_name};
use crate::diagnostics::{Code, Diagnostic};
use crate::rendered::Rendered;
use std::collections::HashMap;

/// Two rendered objects with the same identity (SEMANTICS.md, "Objects"): an error naming
/// both InferenceServices. One pass with a hash map.
pub(crate) fn collisions(objects: &[Rendered], diags: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<(&str, &str, Option<&str>, &str), &Rendered> =
        HashMap::with_capacity(objects.len());
    for o in objects {
        let key = (
            o.group(),
            o.kind.as_str(),
            o.namespace.as_deref(),
            o.name.as_str(),
        );
        if let Some(first) = seen.get(&key) {
            let who = |r: &Rendered| {
                r.source
                    .as_ref()
                    .map_or("the input".to_string(), ToString::to_string)
            };
            diags.push(
                Diagnostic::error(
                    Code::RenderedCollision,
                    format!("{} is rendered twice: from {} and from {}", o.object_ref(), who(first), who(o)),
                )
                .at(o.pos)
                .related(first.pos, "rendered here too")
                .object(o.object_ref())
                .help("in a cluster one would silently overwrite the other; rename one of the InferenceServices (OME names the ConfigMap after the last 20 characters of the name)"),
            );
        } else {
            seen.insert(key, o);
        }
    }
}

/// Whether `part` can be a piece of a file name: letters, digits, `.`, `-` and `_`, and not
/// `.` or `..`. Kubernetes' own name rules are narrower; this is what keeps a file inside
/// the output directory.
fn safe_in_file_name(part: &str) -> bool {
    !part.is_empty()
        && part != "."
        && part != ".."
        && part
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// Every object can be written to a file of its own in an output directory: each part of
/// its name is safe in a file name (so no name reaches outside the directory), and no two
/// objects get the same name, even on a file system that ignores case.
pub(crate) fn file_names(objects: &[Rendered], format: Format, diags: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<String, &Rendered> = HashMap::with_capacity(objects.len());
    for o in objects {
        let parts = [
            o.namespace.as_deref(),
            Some(o.group()).filter(|g| !g.is_empty()),
            Some(o.api_version.rsplit('/').next().unwrap_or("")),
            Some(o.kind.as_str()),
            Some(o.name.as_str()),
        ];
        if let Some(bad) = parts.into_iter().flatten().find(|p| !safe_in_file_name(p)) {
            diags.push(
                Diagnostic::error(
                    Code::OutputFileName,
                    format!("{} can't be written to a file of its own: `{bad}` is not safe in a file name", o.object_ref()),
                )
                .at(o.pos)
                .object(o.object_ref())
                .help("Kubernetes names hold lower-case letters, digits, `-` and `.`; fix the name, or write a stream instead of a directory"),
            );
            continue;
        }
        let name = file_name(o, format);
        if let Some(first) = seen.get(&name) {
            diags.push(
                Diagnostic::error(
                    Code::OutputFileName,
                    format!("{} and {} would both be written to {name}", first.object_ref(), o.object_ref()),
                )
                .at(o.pos)
                .related(first.pos, "the other object")
                .object(o.object_ref())
                .help("file names are lower-cased and joined with `_`; rename one of the objects, or write a stream instead of a directory"),
            );
        } else {
            seen.insert(name, o);
        }
    }
}
