//! `ome-render diff`: two renders compared object by object (SEMANTICS.md#diff).
//!
//! Objects are matched by identity (API group, kind, namespace, name) and compared by their
//! serialised YAML, after [`normalise`] has left out the ignored fields and hidden Secret
//! values. The differences are grouped by the InferenceService each object was rendered from
//! (pass-through objects in a group of their own), and [`impact`] says which changed OME
//! resource (runtime, model, accelerator class, settings) changed which InferenceServices.
//! [`format`] writes the result as text, Markdown or JSON. Pure: the caller renders both
//! sides and prints.

pub(crate) mod format;
pub(crate) mod impact;
pub(crate) mod normalise;

use crate::k8s::id::ObjectId;
use crate::model::Settings;
use crate::rendered::{Body, Rendered};
use crate::select::resolve::ResolvedIsvc;
use crate::textdiff::{self as lines, LineDiff};
use impact::Impact;
use normalise::FxBuild;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// One side of a diff: a render with what each InferenceService resolved to and a
/// fingerprint of every consumed OME input.
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    /// The objects, serialised as YAML (or still trees).
    pub(crate) objects: &'a [Rendered],
    pub(crate) resolved: &'a [ResolvedIsvc],
    /// Each consumed OME resource (InferenceServices too) and the fingerprint of its tree.
    pub(crate) inputs: &'a BTreeMap<ObjectId, u64>,
    pub(crate) settings: &'a Settings,
}

/// How to compare.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    /// Lines of context around each change.
    pub(crate) context: usize,
    /// The namespace of objects written without one (`--namespace`).
    pub(crate) namespace: String,
}

/// How an object, an InferenceService or a resource differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Change {
    Added,
    Removed,
    Changed,
}

impl Change {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }

    /// The mark before an object's name: `+`, `-`, `~`.
    pub(crate) fn sign(self) -> char {
        match self {
            Change::Added => '+',
            Change::Removed => '-',
            Change::Changed => '~',
        }
    }
}

/// One object that differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ObjectDiff {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) namespace: Option<String>,
    pub(crate) name: String,
    pub(crate) change: Change,
    pub(crate) lines: LineDiff,
}

impl ObjectDiff {
    /// `Deployment team/llama-engine`, `ClusterRole reader`.
    pub(crate) fn title(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }
}

/// Why an InferenceService's objects changed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Cause {
    /// The InferenceService itself was edited.
    Edited,
    /// Its runtime choice changed.
    Runtime { was: ObjectId, now: ObjectId },
    /// An OME resource it resolves to, on either side, changed.
    Resource(ObjectId, Change),
    /// The controller settings changed.
    Settings,
}

/// The objects of one InferenceService (or the pass-through objects) that differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    /// `None` for the pass-through objects.
    pub(crate) isvc: Option<ObjectId>,
    /// Whether the InferenceService was added, removed or is on both sides.
    pub(crate) change: Change,
    pub(crate) causes: Vec<Cause>,
    pub(crate) objects: Vec<ObjectDiff>,
}

impl Group {
    /// How many of its objects were added, removed, changed.
    pub(crate) fn counts(&self) -> [usize; 3] {
        let mut counts = [0; 3];
        for o in &self.objects {
            counts[o.change as usize] += 1;
        }
        counts
    }
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Report {
    /// InferenceServices by namespace and name, then the pass-through group.
    pub(crate) groups: Vec<Group>,
    pub(crate) impact: Impact,
    /// How many objects each side has.
    pub(crate) base_objects: usize,
    pub(crate) head_objects: usize,
    /// When the base does not render (and the head does): its first errors, one line each.
    /// The base then counts as empty, so the head's objects are all added.
    pub(crate) base_errors: Option<Vec<String>>,
}

/// The numbers the summary gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Objects added, removed, changed.
    pub(crate) objects: [usize; 3],
    /// Of which pass-through objects.
    pub(crate) passthrough: [usize; 3],
    /// InferenceServices added, removed, changed (with objects that differ).
    pub(crate) isvcs: [usize; 3],
}

impl Report {
    pub(crate) fn has_differences(&self) -> bool {
        !self.groups.is_empty()
    }

    pub(crate) fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for g in &self.groups {
            let n = g.counts();
            for (total, n) in c.objects.iter_mut().zip(n) {
                *total += n;
            }
            match g.isvc {
                Some(_) => c.isvcs[g.change as usize] += 1,
                None => c.passthrough = n,
            }
        }
        c
    }
}

/// An object's YAML: its serialised bytes, or its tree serialised now.
fn yaml_of(o: &Rendered) -> Cow<'_, [u8]> {
    match &o.body {
        Body::Bytes(b) => Cow::Borrowed(&b[..]),
        Body::Tree(node) => {
            let mut out = Vec::new();
            crate::yaml::emit::write_yaml(node, &mut out);
            Cow::Owned(out)
        }
    }
}

/// Whether two objects' YAML is the same: at once when they share their bytes (the head
/// reused the base's object, SEMANTICS.md#diff-reuse), else byte for byte.
fn same_yaml(a: &Rendered, b: &Rendered) -> bool {
    match (&a.body, &b.body) {
        (Body::Bytes(a), Body::Bytes(b)) if std::sync::Arc::ptr_eq(a, b) => true,
        _ => yaml_of(a) == yaml_of(b),
    }
}

/// The group an object belongs to: its InferenceService, or `None` when it passed through.
fn group_of(o: &Rendered, namespace: &str) -> Option<ObjectId> {
    o.source.as_ref().map(|s| {
        ObjectId::of_kind(
            "InferenceService",
            if s.namespace.is_empty() {
                namespace
            } else {
                &s.namespace
            },
            &s.name,
        )
        .to_owned()
    })
}

/// Compares two renders.
pub(crate) fn compare(base: &Side<'_>, head: &Side<'_>, options: &Options) -> Report {
    // Objects match by their identity in the cluster (SEMANTICS.md#choice-namespaces).
    let namespace = options.namespace.as_str();
    let index: HashMap<ObjectId<&str>, usize, FxBuild> = base
        .objects
        .iter()
        .enumerate()
        .map(|(i, o)| (o.id(namespace), i))
        .collect();
    // Each head object's match, and whether their bytes differ — in parallel: most objects
    // are equal and say so quickly.
    let matches: Vec<(Option<usize>, bool)> = head
        .objects
        .par_iter()
        .map(|o| match index.get(&o.id(namespace)) {
            Some(&i) => (Some(i), !same_yaml(&base.objects[i], o)),
            None => (None, true),
        })
        .collect();
    let mut matched = vec![false; base.objects.len()];
    let mut pairs: Vec<(Option<&Rendered>, Option<&Rendered>)> = Vec::new();
    for (o, (found, differs)) in head.objects.iter().zip(matches) {
        if let Some(i) = found {
            matched[i] = true;
        }
        if differs {
            pairs.push((found.map(|i| &base.objects[i]), Some(o)));
        }
    }
    pairs.extend(
        base.objects
            .iter()
            .zip(&matched)
            .filter(|(_, m)| !**m)
            .map(|(o, _)| (Some(o), None)),
    );
    fn present<'a>(p: &(Option<&'a Rendered>, Option<&'a Rendered>)) -> Option<&'a Rendered> {
        p.1.or(p.0)
    }
    pairs.sort_by(|a, b| {
        let (a, b) = (present(a), present(b));
        match (a, b) {
            (Some(a), Some(b)) => crate::emit::order::compare(a, b),
            _ => std::cmp::Ordering::Equal,
        }
    });
    let diffs: Vec<(Option<ObjectId>, ObjectDiff)> = pairs
        .par_iter()
        .filter_map(|pair| {
            let o = present(pair)?;
            let text = |side: Option<&Rendered>| {
                side.map(|s| String::from_utf8_lossy(&yaml_of(s)).into_owned())
                    .unwrap_or_default()
            };
            let change = match pair {
                (None, _) => Change::Added,
                (_, None) => Change::Removed,
                _ => Change::Changed,
            };
            let diff = ObjectDiff {
                api_version: o.api_version.clone(),
                kind: o.kind.clone(),
                namespace: o.namespace.clone(),
                name: o.name.clone(),
                change,
                lines: lines::unified(&text(pair.0), &text(pair.1), options.context),
            };
            Some((group_of(o, &options.namespace), diff))
        })
        .collect();

    // InferenceServices first, by namespace and name; the pass-through group last.
    let mut by_group: BTreeMap<(bool, Option<ObjectId>), Vec<ObjectDiff>> = BTreeMap::new();
    for (group, diff) in diffs {
        by_group
            .entry((group.is_none(), group))
            .or_default()
            .push(diff);
    }
    let mut groups: Vec<Group> = by_group
        .into_iter()
        .map(|((_, isvc), objects)| {
            let change = match &isvc {
                Some(id) => match (base.inputs.contains_key(id), head.inputs.contains_key(id)) {
                    (false, true) => Change::Added,
                    (true, false) => Change::Removed,
                    _ => Change::Changed,
                },
                None => Change::Changed,
            };
            Group {
                isvc,
                change,
                causes: Vec::new(),
                objects,
            }
        })
        .collect();
    let impact = impact::attribute(&mut groups, base, head);
    Report {
        groups,
        impact,
        base_objects: base.objects.len(),
        head_objects: head.objects.len(),
        base_errors: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::id::ObjectId;
    use crate::yaml::Pos;
    use crate::yaml::parse::parse_stream;

    fn object(yaml: &str, isvc: Option<&str>) -> Rendered {
        let root = parse_stream(yaml, 0).expect("test YAML").remove(0).root;
        let source = isvc.map(|name| {
            std::sync::Arc::new(ObjectId {
                kind: "InferenceService".into(),
                namespace: "team".into(),
                name: name.into(),
                group: String::new(),
            })
        });
        Rendered::new(root, source, Pos::NONE)
    }

    fn side<'a>(
        objects: &'a [Rendered],
        inputs: &'a BTreeMap<ObjectId, u64>,
        settings: &'a Settings,
    ) -> Side<'a> {
        Side {
            objects,
            resolved: &[],
            inputs,
            settings,
        }
    }

    fn options() -> Options {
        Options {
            context: 3,
            namespace: "default".into(),
        }
    }

    #[test]
    fn objects_match_by_group_kind_namespace_and_name() {
        let cm = |ns: &str, value: &str| {
            object(
                &format!(
                    r"apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  namespace: {ns}
data:
  k: {value}
"
                ),
                None,
            )
        };
        let base = [cm("a", "1"), cm("b", "1"), cm("c", "1")];
        // `a` changed, `b` kept, `c` moved to `d`: one removed and one added.
        let head = [cm("a", "2"), cm("b", "1"), cm("d", "1")];
        let (inputs, settings) = (BTreeMap::new(), Settings::default());
        let r = compare(
            &side(&base, &inputs, &settings),
            &side(&head, &inputs, &settings),
            &options(),
        );
        assert_eq!(r.groups.len(), 1);
        let got: Vec<(String, Change)> = r.groups[0]
            .objects
            .iter()
            .map(|o| (o.title(), o.change))
            .collect();
        assert_eq!(
            got,
            [
                ("ConfigMap a/c".to_string(), Change::Changed),
                ("ConfigMap c/c".to_string(), Change::Removed),
                ("ConfigMap d/c".to_string(), Change::Added),
            ]
        );
        assert_eq!(r.counts().passthrough, [1, 1, 1]);
        // The last line changed: its header, three lines of context, the old and the new line.
        assert_eq!(r.groups[0].objects[0].lines.hunks.matches('\n').count(), 6);
    }

    #[test]
    fn a_new_api_version_of_one_group_is_the_same_object() {
        let hpa = |v: &str| {
            object(
                &format!(
                    r"apiVersion: autoscaling/{v}
kind: HorizontalPodAutoscaler
metadata:
  name: h
"
                ),
                Some("svc"),
            )
        };
        let (inputs, settings) = (BTreeMap::new(), Settings::default());
        let (base, head) = ([hpa("v1")], [hpa("v2")]);
        let r = compare(
            &side(&base, &inputs, &settings),
            &side(&head, &inputs, &settings),
            &options(),
        );
        assert_eq!(r.groups.len(), 1);
        assert_eq!(r.groups[0].objects[0].change, Change::Changed);
        assert_eq!(
            r.groups[0]
                .isvc
                .as_ref()
                .map(ToString::to_string)
                .as_deref(),
            Some("InferenceService/team/svc")
        );
        assert!(
            r.groups[0].objects[0]
                .lines
                .hunks
                .contains("+apiVersion: autoscaling/v2\n")
        );
    }

    #[test]
    fn an_object_written_without_a_namespace_is_the_same_as_one_in_the_effective_namespace() {
        let cm = |metadata: &str| {
            object(
                &format!(
                    r"apiVersion: v1
kind: ConfigMap
metadata:
  name: c{metadata}
data:
  k: v
"
                ),
                None,
            )
        };
        let (inputs, settings) = (BTreeMap::new(), Settings::default());
        let (base, head) = ([cm("")], [cm("\n  namespace: default")]);
        let r = compare(
            &side(&base, &inputs, &settings),
            &side(&head, &inputs, &settings),
            &options(),
        );
        assert_eq!(r.groups.len(), 1);
        let changes: Vec<Change> = r.groups[0].objects.iter().map(|o| o.change).collect();
        assert_eq!(changes, [Change::Changed]);
        let elsewhere = [cm("\n  namespace: team")];
        let r = compare(
            &side(&base, &inputs, &settings),
            &side(&elsewhere, &inputs, &settings),
            &options(),
        );
        let changes: Vec<Change> = r.groups[0].objects.iter().map(|o| o.change).collect();
        assert_eq!(changes.len(), 2, "{changes:?}");
    }
}
