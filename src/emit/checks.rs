//! Checks of the output as a whole, before anything is written: no two objects may share
//! an identity.

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
                .object(o.object_ref())
                .help("in a cluster one would silently overwrite the other; rename one of the InferenceServices (OME names the ConfigMap after the last 20 characters of the name)"),
            );
        } else {
            seen.insert(key, o);
        }
    }
}
