//! The kinds `--kinds` may name: the kind table's (Kubernetes' built-in kinds, OME's, the
//! kinds ome-render renders) and any kind among the inputs. A name outside them is a typo
//! (`Deploymnt`).

use crate::diagnostics::suggest;
use crate::k8s::kinds::KINDS;
use crate::rendered::Rendered;

/// A kind `--kinds` names that matches nothing.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unmatched {
    /// A kind that exists but has no object in the output.
    Known(String),
    /// A name that is no kind at all, with the closest kind when there is one.
    Unknown {
        name: String,
        closest: Option<String>,
    },
}

/// The kinds of `wanted` (compared ignoring case) that match no object of `output`; a kind
/// is known when it is built in or among `input_kinds`.
pub(crate) fn unmatched<'a>(
    wanted: &[String],
    output: &[Rendered],
    input_kinds: impl Iterator<Item = &'a str> + Clone,
) -> Vec<Unmatched> {
    let mut out = Vec::new();
    for name in wanted {
        if output.iter().any(|o| o.kind.eq_ignore_ascii_case(name)) {
            continue;
        }
        let known = KINDS
            .iter()
            .map(|k| k.name)
            .chain(input_kinds.clone())
            .any(|k| k.eq_ignore_ascii_case(name));
        if known {
            out.push(Unmatched::Known(name.clone()));
        } else {
            let mut all: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
            all.extend(input_kinds.clone());
            out.push(Unmatched::Unknown {
                name: name.clone(),
                closest: suggest::closest(name, &all).map(str::to_string),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_unknown_and_known_kinds_unmatched() {
        let wanted: Vec<String> = ["Deploymnt", "secret", "Widget", "Frobnicator", "TrafficMap"]
            .map(String::from)
            .to_vec();
        let found = unmatched(&wanted, &[], ["Widget"].into_iter());
        assert_eq!(
            found,
            [
                Unmatched::Unknown {
                    name: "Deploymnt".into(),
                    closest: Some("Deployment".into())
                },
                Unmatched::Known("secret".into()),
                Unmatched::Known("Widget".into()),
                Unmatched::Unknown {
                    name: "Frobnicator".into(),
                    closest: None
                },
                Unmatched::Known("TrafficMap".into()),
            ]
        );
    }
}
