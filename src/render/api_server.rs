//! What the API server checks of the objects OME's controller creates for an
//! InferenceService, before any is written (SEMANTICS.md#names): each object's name by the
//! rule of its kind, and the keys and values of the labels and the keys of the annotations
//! on it and on its pod templates.
//!
//! OME builds those from the InferenceService's name (`<isvc>-engine`, the external Service
//! `<isvc>`, the `ome.io/inferenceservice` label), the model's and runtime's names and
//! vendor (labels), and the components' own labels and annotations, without shortening
//! them (only the component Service and `app` are cut to 63). When one breaks a rule the API
//! server refuses the object and OME's controller fails to reconcile the component, so
//! ome-render refuses the InferenceService with the API server's text
//! (`ome::render::reconcile`), once per problem however many objects share it.

use crate::admission::names::{self, NameRule, Problem};
use crate::diagnostics::{Code, Diagnostic};
use crate::model::{InferenceService, Role};
use crate::rendered::{Body, Rendered};
use crate::select::resolve::Resolution;
use crate::yaml::{Node, Pos, Value};
use std::collections::HashMap;

/// Where pod templates keep their metadata, in the kinds ome-render renders.
const TEMPLATES: &[&[&str]] = &[
    &["spec", "template", "metadata"],
    &["spec", "leaderWorkerTemplate", "leaderTemplate", "metadata"],
    &["spec", "leaderWorkerTemplate", "workerTemplate", "metadata"],
];

/// The string entries of `meta.<key>`.
fn entries<'a>(meta: Option<&'a Node>, key: &str) -> impl Iterator<Item = (&'a str, &'a str)> {
    meta.and_then(|m| m.get(key))
        .and_then(Node::as_map)
        .into_iter()
        .flat_map(|m| m.iter())
        .filter_map(|(k, v)| match &v.value {
            Value::Str(s) => Some((k, s.as_str())),
            _ => None,
        })
}

/// Where the label or annotation `key` (`field` is `labels` or `annotations`) comes from:
/// the InferenceService's metadata, a component of it or of the runtime, the model (OME's
/// `base-model-*` labels) or the runtime's name; `Pos::NONE` when OME makes it up.
fn written_at(isvc: &InferenceService, resolution: &Resolution<'_>, field: &str, key: &str) -> Pos {
    let own = match field {
        "labels" => isvc.labels.get(key),
        _ => isvc.annotations.get(key),
    };
    if let Some(n) = own {
        return n.pos;
    }
    for role in Role::ALL {
        let found = isvc
            .component(role)
            .and_then(|c| c.at(&[field, key]))
            .or_else(|| resolution.runtime.spec.at(&[role.config_key(), field, key]));
        if let Some(n) = found {
            return n.pos;
        }
    }
    match key {
        "base-model-vendor" => resolution.model.map_or(Pos::NONE, |m| m.vendor_pos),
        "base-model-name" | "base-model-size" => resolution.model.map_or(Pos::NONE, |m| m.pos),
        "serving-runtime" => isvc.runtime.as_ref().map_or(Pos::NONE, |r| r.pos),
        _ => Pos::NONE,
    }
}

/// An entry of labels or annotations without the position of where it was written.
fn unplaced<'a>((key, value): (&'a str, &'a str)) -> (&'a str, &'a str, Pos) {
    (key, value, Pos::NONE)
}

/// Checks `objects`, rendered from `isvc` as `resolution` resolved it; each
/// problem is reported once, naming the first object that has it.
pub(crate) fn check(
    objects: &[Rendered],
    isvc: &InferenceService,
    resolution: &Resolution<'_>,
    diags: &mut Vec<Diagnostic>,
) {
    // (field, message) → (first object, how many objects, where).
    let mut found: Vec<(Problem, String, usize)> = Vec::new();
    let mut seen: HashMap<(&'static str, String), usize> = HashMap::new();
    let mut add = |p: Problem, object: &Rendered| {
        let key = (p.field, p.message.clone());
        if let Some(&i) = seen.get(&key) {
            found[i].2 += 1;
        } else {
            seen.insert(key, found.len());
            found.push((p, format!("{} {}", object.kind, object.name), 1));
        }
    };
    for o in objects {
        let Body::Tree(root) = &o.body else {
            continue;
        };
        let rule = NameRule::of(o.group(), &o.kind);
        if !rule.allows(&o.name) {
            for p in names::name_problems(rule, &o.name, Pos::NONE) {
                add(p, o);
            }
        }
        let metas =
            std::iter::once(root.get("metadata")).chain(TEMPLATES.iter().map(|path| root.at(path)));
        for meta in metas {
            if meta.is_none() {
                continue;
            }
            // Checked without positions first: finding where a label was written costs
            // lookups, spent only on the rare object that has a problem.
            let mut problems = Vec::new();
            names::label_problems_of(
                entries(meta, "labels").map(unplaced),
                "metadata.labels",
                &mut problems,
            );
            if !problems.is_empty() {
                problems.clear();
                names::label_problems_of(
                    entries(meta, "labels")
                        .map(|(k, v)| (k, v, written_at(isvc, resolution, "labels", k))),
                    "metadata.labels",
                    &mut problems,
                );
            }
            let labelled = problems.len();
            names::annotation_problems(
                entries(meta, "annotations").map(unplaced),
                Pos::NONE,
                &mut problems,
            );
            if problems.len() > labelled {
                problems.truncate(labelled);
                names::annotation_problems(
                    entries(meta, "annotations")
                        .map(|(k, v)| (k, v, written_at(isvc, resolution, "annotations", k))),
                    Pos::NONE,
                    &mut problems,
                );
            }
            for p in problems {
                add(p, o);
            }
        }
    }
    for (p, object, count) in found {
        let also = match count {
            1 => String::new(),
            2 => " (and 1 more object)".to_string(),
            n => format!(" (and {} more objects)", n - 1),
        };
        let help = if p.field == "metadata.name" {
            format!(
                "OME names the object after the InferenceService and creates it as is; {}: shorten the InferenceService's name",
                p.help
            )
        } else {
            match p.subject.as_deref() {
                Some("label ome.io/inferenceservice") => "OME puts the InferenceService's name in the `ome.io/inferenceservice` label of every object it creates: shorten the name to at most 63 characters".to_string(),
                Some("label base-model-name") => "OME puts the model's name in the `base-model-name` label of every object it creates: use a model whose name has at most 63 characters".to_string(),
                Some("label serving-runtime") => "OME puts the runtime's name in the `serving-runtime` label of every object it creates: use a runtime whose name has at most 63 characters".to_string(),
                Some("label base-model-vendor") => format!("OME copies the model's `vendor` into the `base-model-vendor` label of every object it creates; {}", p.help),
                _ => format!(
                    "OME copies the labels and annotations of the InferenceService and of the component onto every object it creates; {}",
                    p.help
                ),
            }
        };
        diags.push(
            Diagnostic::error(
                Code::Reconcile,
                format!(
                    "the API server refuses the {object}{also} OME's controller creates{}: {}",
                    p.subject
                        .as_deref()
                        .map_or(String::new(), |s| format!(", for its {s}")),
                    p.message
                ),
            )
            .at(if p.pos.is_none() { isvc.pos } else { p.pos })
            .object(isvc.object.clone())
            .field(p.field)
            .help(help),
        );
    }
}
