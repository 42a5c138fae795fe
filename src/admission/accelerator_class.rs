//! The CRD schema of an AcceleratorClass (no OME webhook checks them): `capabilities` and
//! `discovery` are required, each of `resources` has a `name`, and its quantities — each
//! resource's `quantity`, `capabilities.memoryGB` and `memoryBandwidthGBps`, and the three
//! `cost` figures — are integers or strings of the quantity pattern (SEMANTICS.md#admission).

use super::pod::quantity_field;
use super::{Findings, present};
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::yaml::{Node, Pos};

pub(crate) fn check(root: &Node, object: &ObjectId, pos: Pos) -> Vec<Diagnostic> {
    let mut f = Findings::new(object, pos);
    let Some(spec) = root.get("spec").filter(|s| s.as_map().is_some()) else {
        return f.diags;
    };
    for key in ["capabilities", "discovery"] {
        if present(spec, key).is_none() {
            f.required(Code::InvalidField, spec.pos, &format!("spec.{key}"));
        }
    }
    for (i, r) in spec
        .get("resources")
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        if r.as_map().is_some() && present(r, "name").is_none() {
            f.required(
                Code::InvalidField,
                r.pos,
                &format!("spec.resources[{i}].name"),
            );
        }
        if let Some(q) = r.as_map().and_then(|_| present(r, "quantity")) {
            quantity_field(&mut f, q, &format!("spec.resources[{i}].quantity"));
        }
    }
    for (parent, key) in [
        ("capabilities", "memoryGB"),
        ("capabilities", "memoryBandwidthGBps"),
        ("cost", "perHour"),
        ("cost", "spotPerHour"),
        ("cost", "perMillionTokens"),
    ] {
        if let Some(q) = spec
            .get(parent)
            .filter(|p| p.as_map().is_some())
            .and_then(|p| present(p, key))
        {
            quantity_field(&mut f, q, &format!("spec.{parent}.{key}"));
        }
    }
    f.diags
}
