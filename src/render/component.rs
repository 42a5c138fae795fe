//! A component as its pods are built from: the runtime's `<role>Config` strategically merged
//! with the InferenceService's component, the runner named as in OME v1.3
//! (SEMANTICS.md, "Merging").

use crate::diagnostics::{Code, Diagnostic};
use crate::merge::strategic;
use crate::model::schema::is_container_field;
use crate::model::{InferenceService, Role};
use crate::render::pod::DEFAULT_RUNNER_NAME;
use crate::yaml::Node;

/// The runtime's config merged with the InferenceService's component; the runner is named
/// as in v1.3 (the InferenceService's name, else the runtime's, else `ome-container`) and
/// keeps only Container fields.
pub(super) fn merge_component(
    isvc: &InferenceService,
    role: Role,
    config: Option<&Node>,
    raw: &Node,
    diags: &mut Vec<Diagnostic>,
) -> Node {
    let mut merged = match config.filter(|c| c.as_map().is_some()) {
        Some(config) => {
            // acceleratorOverride has no effect in a runtime; a config without one (all but
            // a mistaken few) is merged as it is, without a copy.
            let stripped;
            let base = if config.get("acceleratorOverride").is_some() {
                let mut copy = config.clone();
                if let Some(m) = copy.as_map_mut() {
                    m.remove("acceleratorOverride");
                }
                stripped = copy;
                &stripped
            } else {
                config
            };
            let mut conflicts = Vec::new();
            let merged = strategic::merge(base, raw, &mut conflicts);
            for c in conflicts {
                diags.push(
                    Diagnostic::error(Code::InvalidMerge, c.message)
                        .at(c.patch)
                        .object(isvc.object.clone())
                        .field(format!("spec.{role}.{}", c.path))
                        .related(c.base, "the runtime sets it here")
                        .help("OME merges these field by field, so the result is an object the API server rejects; set the same kind of value as the runtime"),
                );
            }
            merged
        }
        None => raw.clone(),
    };
    for path in [
        &["runner"][..],
        &["leader", "runner"],
        &["worker", "runner"],
    ] {
        restore_runner_name(&mut merged, config, raw, path);
    }
    merged
}

fn restore_runner_name(merged: &mut Node, config: Option<&Node>, raw: &Node, path: &[&str]) {
    let named = |n: Option<&Node>| {
        n.and_then(|n| n.at(path))
            .and_then(|r| r.get("name"))
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let name = named(Some(raw))
        .or_else(|| named(config))
        .unwrap_or_else(|| DEFAULT_RUNNER_NAME.to_string());
    let mut node = Some(merged);
    for key in path {
        node = node.and_then(Node::as_map_mut).and_then(|m| m.get_mut(key));
    }
    if let Some(runner) = node.and_then(Node::as_map_mut) {
        runner.insert("name", Node::str(name));
        runner.move_to_front("name");
        // Fields a Container doesn't have are dropped, as decoding into OME's types does
        // (the schema check has warned about them).
        runner.retain(|k, _| is_container_field(k));
    }
}
