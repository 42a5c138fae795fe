//! The component's PodDisruptionBudget (`policy/v1`) (SEMANTICS.md, "Objects").

use super::{ComponentNames, app_selector, object_meta_map, rendered};
use crate::diagnostics::{Code, Diagnostic};
use crate::map;
use crate::model::InferenceService;
use crate::render::metadata::Meta;
use crate::rendered::Rendered;
use crate::yaml::Node;

/// The PodDisruptionBudget: the component's `minAvailable` or `maxUnavailable`, else
/// `maxUnavailable: 1` (the chart's default). Both at once is an error, as in OME v1.3.
pub(crate) fn pdb(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    merged: &Node,
    diags: &mut Vec<Diagnostic>,
    field: &str,
) -> Option<Rendered> {
    let min_available = merged.get("minAvailable").filter(|n| !n.is_null());
    let max_unavailable = merged.get("maxUnavailable").filter(|n| !n.is_null());
    let budget = match (min_available, max_unavailable) {
        (Some(a), Some(_)) => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidField,
                    "set exactly one of minAvailable or maxUnavailable",
                )
                .at(a.pos)
                .object(isvc.object.clone())
                .field(format!("{field}.minAvailable")),
            );
            return None;
        }
        (Some(a), None) => ("minAvailable", a.clone()),
        (None, Some(b)) => ("maxUnavailable", b.clone()),
        (None, None) => ("maxUnavailable", Node::int(1)),
    };
    let mut p = object_meta_map(
        "policy/v1",
        "PodDisruptionBudget",
        names.full,
        isvc,
        Some((meta.labels_node(), meta.annotations_node())),
    );
    p.insert(
        "spec",
        Node::map(map! {
            budget.0 => budget.1,
            "selector" => Node::map(map! { "matchLabels" => app_selector(names.app) }),
        }),
    );
    Some(rendered(isvc, p))
}
