//! The router's ServiceAccount, Role and RoleBinding, all `<isvc>-router`
//! (SEMANTICS.md, "Objects").

use super::{object_meta_map, rendered};
use crate::map;
use crate::model::InferenceService;
use crate::render::metadata::Meta;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};

/// The router's ServiceAccount, Role and RoleBinding, all `<isvc>-router`.
pub(crate) fn router_rbac(isvc: &InferenceService, name: &str, meta: &Meta) -> Vec<Rendered> {
    let labels = || Some((meta.labels_node(), Node::map(Map::new())));
    let sa = object_meta_map("v1", "ServiceAccount", name, isvc, labels());
    let mut role = object_meta_map("rbac.authorization.k8s.io/v1", "Role", name, isvc, labels());
    role.insert(
        "rules",
        Node::seq(vec![Node::map(map! {
            "apiGroups" => Node::seq(vec![Node::str("")]),
            "resources" => Node::seq(vec![Node::str("pods")]),
            "verbs" => Node::seq(vec![Node::str("get"), Node::str("list"), Node::str("watch")]),
        })]),
    );
    let mut binding = object_meta_map(
        "rbac.authorization.k8s.io/v1",
        "RoleBinding",
        name,
        isvc,
        labels(),
    );
    binding.insert(
        "roleRef",
        Node::map(map! {
            "apiGroup" => Node::str("rbac.authorization.k8s.io"),
            "kind" => Node::str("Role"),
            "name" => Node::str(name),
        }),
    );
    let mut subject = map! {
        "kind" => Node::str("ServiceAccount"),
        "name" => Node::str(name),
    };
    if let Some(ns) = &isvc.namespace {
        subject.insert("namespace", Node::str(ns));
    }
    binding.insert("subjects", Node::seq(vec![Node::map(subject)]));
    vec![
        rendered(isvc, sa),
        rendered(isvc, role),
        rendered(isvc, binding),
    ]
}
