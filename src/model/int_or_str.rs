//! Kubernetes' `IntOrString` as OME's fields hold it, and the one value rule the settings and
//! the admission of an InferenceService share (a PodDisruptionBudget's budget).

use crate::yaml::{Node, Value};

/// A Kubernetes `IntOrString` value as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum IntOrStr<'a> {
    Int(i64),
    Str(&'a str),
}

impl<'a> IntOrStr<'a> {
    /// The node as an int-or-string; `None` for null and other types.
    pub(crate) fn of(node: &'a Node) -> Option<IntOrStr<'a>> {
        match &node.value {
            Value::Int(i) => Some(IntOrStr::Int(*i)),
            Value::Str(s) => Some(IntOrStr::Str(s)),
            _ => None,
        }
    }
}

/// Whether a PodDisruptionBudget value is a non-negative integer or `<0..100>%`.
pub(crate) fn valid_budget(value: IntOrStr<'_>) -> bool {
    match value {
        IntOrStr::Int(i) => i >= 0,
        IntOrStr::Str(s) => s
            .strip_suffix('%')
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|n| n <= 100),
    }
}
