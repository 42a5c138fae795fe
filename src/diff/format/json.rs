//! The JSON report: one document with the summary, the impact and every group's objects and
//! hunks, nothing left out (SEMANTICS.md#diff-output).

use super::Labels;
use crate::diff::{Cause, Report};
use crate::k8s::id::ObjectId;
use crate::map;
use crate::yaml::Node;

fn num(n: usize) -> Node {
    Node::int(i64::try_from(n).unwrap_or(i64::MAX))
}

fn triple(n: [usize; 3]) -> Node {
    Node::map(map! {
        "added" => num(n[0]),
        "removed" => num(n[1]),
        "changed" => num(n[2]),
    })
}

/// `{"kind":…,"namespace":…,"name":…}`; no namespace at cluster scope.
fn resource(id: &ObjectId) -> Node {
    let mut m = map! { "kind" => Node::str(&id.kind) };
    if !id.namespace.is_empty() {
        m.insert("namespace", Node::str(&id.namespace));
    }
    m.insert("name", Node::str(&id.name));
    Node::map(m)
}

/// InferenceServices as `namespace/name`.
fn paths(ids: &[ObjectId]) -> Node {
    Node::seq(ids.iter().map(|id| Node::str(id.path())).collect())
}

fn cause(c: &Cause) -> Node {
    Node::map(match c {
        Cause::Edited => map! { "cause" => Node::str("edited") },
        Cause::Runtime { was, now } => map! {
            "cause" => Node::str("runtime"),
            "was" => resource(was),
            "now" => resource(now),
        },
        Cause::Resource(id, change) => map! {
            "cause" => Node::str("resource"),
            "resource" => resource(id),
            "change" => Node::str(change.word()),
        },
        Cause::Settings => map! { "cause" => Node::str("settings") },
    })
}

pub(crate) fn render(report: &Report, labels: &Labels) -> String {
    let c = report.counts();
    let i = &report.impact;
    let impact = map! {
        "resources" => Node::seq(i.resources.iter().map(|r| Node::map(map! {
            "resource" => resource(&r.id),
            "change" => Node::str(r.change.word()),
            "users" => num(r.users),
            "reached" => paths(&r.reached),
        })).collect()),
        "settings" => match &i.settings {
            Some(reached) => Node::map(map! { "reached" => paths(reached) }),
            None => Node::made(crate::yaml::Value::Null),
        },
        "runtimeChoices" => Node::seq(i.choices.iter().map(|ch| Node::map(map! {
            "inferenceService" => Node::str(ch.isvc.path()),
            "was" => resource(&ch.was),
            "wasAutoSelected" => Node::bool(ch.was_auto),
            "now" => resource(&ch.now),
            "nowAutoSelected" => Node::bool(ch.now_auto),
        })).collect()),
        "edited" => paths(&i.edited),
        "unattributed" => paths(&i.unattributed),
    };
    let groups = report
        .groups
        .iter()
        .map(|g| {
            let objects = g
                .objects
                .iter()
                .map(|o| {
                    let mut m = map! {
                        "apiVersion" => Node::str(&o.api_version),
                        "kind" => Node::str(&o.kind),
                    };
                    if let Some(ns) = &o.namespace {
                        m.insert("namespace", Node::str(ns));
                    }
                    m.insert("name", Node::str(&o.name));
                    m.insert("change", Node::str(o.change.word()));
                    m.insert("linesAdded", num(o.lines.added));
                    m.insert("linesRemoved", num(o.lines.removed));
                    m.insert("diff", Node::str(&o.lines.hunks));
                    Node::map(m)
                })
                .collect();
            Node::map(map! {
                "inferenceService" => match &g.isvc {
                    Some(id) => Node::str(id.path()),
                    None => Node::made(crate::yaml::Value::Null),
                },
                "change" => Node::str(g.change.word()),
                "causes" => Node::seq(g.causes.iter().map(cause).collect()),
                "objects" => Node::seq(objects),
            })
        })
        .collect();
    let mut doc = map! {
        "base" => Node::str(&labels.base),
        "head" => Node::str(&labels.head),
        "differences" => Node::bool(report.has_differences()),
        "summary" => Node::map(map! {
            "objects" => triple(c.objects),
            "passThrough" => triple(c.passthrough),
            "inferenceServices" => triple(c.isvcs),
            "baseObjects" => num(report.base_objects),
            "headObjects" => num(report.head_objects),
        }),
        "impact" => Node::map(impact),
        "groups" => Node::seq(groups),
    };
    if let Some(errors) = &report.base_errors {
        let lines = errors.iter().map(Node::str).collect();
        doc.insert("baseErrors", Node::seq(lines));
    }
    let doc = Node::map(doc);
    let mut out = Vec::new();
    crate::yaml::emit::write_json_line(&doc, &mut out);
    String::from_utf8(out).unwrap_or_default()
}
