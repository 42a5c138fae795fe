//! The component's PodDisruptionBudget (`policy/v1`) as OME v1.3 resolves it
//! (SEMANTICS.md#autoscaling): the merged component's `minAvailable` or `maxUnavailable`
//! (the InferenceService's field over the runtime's; `0` is a value), else the RawDeployment
//! default of the settings (the chart's `maxUnavailable: 1`), else none.

use super::{ComponentNames, app_selector, object_meta_map, rendered};
use crate::map;
use crate::model::InferenceService;
use crate::model::int_or_str::{IntOrStr, valid_budget};
use crate::model::settings::Budget;
use crate::render::metadata::Meta;
use crate::rendered::Rendered;
use crate::yaml::{Node, Pos};

/// A budget's field and value.
pub(crate) type Chosen = (&'static str, Node);

/// Why the budget can't be resolved: the message, where, and the field.
pub(crate) type BudgetError = (String, Pos, &'static str);

/// The budget OME's controller would write, `Ok(None)` for no PDB, or its error (the text
/// after `failed to resolve <component> PodDisruptionBudget: `) with where it was written and
/// the field.
pub(crate) fn budget(
    merged: &Node,
    default: Option<&Budget>,
) -> Result<Option<Chosen>, BudgetError> {
    let field = |key: &str| merged.get(key).filter(|n| !n.is_null());
    let (min, max) = (field("minAvailable"), field("maxUnavailable"));
    let chosen = match (min, max) {
        (Some(a), Some(_)) => {
            return Err((
                "exactly one of minAvailable or maxUnavailable must be set".into(),
                a.pos,
                "minAvailable",
            ));
        }
        (Some(a), None) => ("minAvailable", a.clone()),
        (None, Some(b)) => ("maxUnavailable", b.clone()),
        (None, None) => match default {
            Some(d) => (d.field, d.value.clone()),
            None => return Ok(None),
        },
    };
    if !IntOrStr::of(&chosen.1).is_some_and(valid_budget) {
        return Err((
            format!(
                "PodDisruptionBudget budget.{} must be a non-negative integer or a percentage from 0% to 100%",
                chosen.0
            ),
            chosen.1.pos,
            chosen.0,
        ));
    }
    Ok(Some(chosen))
}

pub(crate) fn pdb(
    isvc: &InferenceService,
    names: &ComponentNames<'_>,
    meta: &Meta,
    (field, value): (&'static str, Node),
) -> Rendered {
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
            field => value,
            "selector" => Node::map(map! { "matchLabels" => app_selector(names.app) }),
        }),
    );
    rendered(isvc, p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn node(yaml: &str) -> Node {
        parse_stream(yaml, 0).expect("yaml").remove(0).root
    }

    #[test]
    fn a_field_set_anywhere_wins_over_the_default_and_zero_is_a_value() {
        let chart = Budget {
            field: "maxUnavailable",
            value: Node::int(1),
        };
        let got = |yaml: &str, d: Option<&Budget>| {
            budget(&node(yaml), d)
                .map(|b| b.map(|(f, v)| format!("{f}={}", v.scalar_text().unwrap_or_default())))
                .map_err(|(e, _, _)| e)
        };
        assert_eq!(got("{}", Some(&chart)), Ok(Some("maxUnavailable=1".into())));
        assert_eq!(got("{}", None), Ok(None));
        assert_eq!(
            got("minAvailable: 0", Some(&chart)),
            Ok(Some("minAvailable=0".into()))
        );
        assert_eq!(
            got("minAvailable: 50%", Some(&chart)),
            Ok(Some("minAvailable=50%".into()))
        );
        assert_eq!(
            got("minAvailable: 1\nmaxUnavailable: 1", None),
            Err("exactly one of minAvailable or maxUnavailable must be set".into())
        );
        assert_eq!(
            got("maxUnavailable: \"5\"", None),
            Err("PodDisruptionBudget budget.maxUnavailable must be a non-negative integer or a percentage from 0% to 100%".into())
        );
    }
}
