//! The InferenceService fields that drive OME-only machinery: `spec.rollout` (canary and
//! coordinated rollouts of OMENative components), `spec.replicaRefs` (InferenceServices in
//! front of standalone InferenceReplicas), `spec.placement` and `spec.routing` (multi-cluster
//! serving). OME's rules for them (ISVC-06, ISVC-27..30) run where they tell an
//! InferenceService ome-render can render apart from one OME rejects; whatever OME would
//! accept here needs OME's controller, so ome-render says it does not render it
//! (SEMANTICS.md#admission).

use super::{Findings, admission_mode, present};
use crate::diagnostics::Code;
use crate::model::Role;
use crate::yaml::Node;
use std::collections::HashMap;

const CODE: Code = Code::InvalidInferenceService;

/// The name OME's webhook requires of InferenceServices (and of referenced replicas).
pub(crate) const NAME_FORMAT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";

/// Whether `name` fully matches [`NAME_FORMAT`].
pub(crate) fn valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[b.len() - 1] != b'-'
}

/// A rollout group's component names, with their nodes.
fn members(group: &Node) -> Vec<(String, &Node)> {
    group
        .get("components")
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .filter_map(|m| m.as_str().map(|s| (s.to_string(), m)))
        .collect()
}

/// ISVC-27..30: rollout groups. Every member of a group must be a declared OMENative
/// component, which ome-render does not render, so a group OME admits is an ome-render
/// error too (its component's OMENative mode).
pub(crate) fn check_rollout(f: &mut Findings<'_>, spec: &Node) {
    let Some(groups) = spec.at(&["rollout", "groups"]).and_then(Node::as_seq) else {
        return;
    };
    let spec_mode = spec.str_at(&["deploymentMode"]);
    let reject = |f: &mut Findings<'_>, pos, field: &str, message: String| {
        let d = f
            .error(CODE, pos, field, message)
            .help("rollout groups pace OMENative components only; remove the group (a RawDeployment component rolls with its Deployment's strategy)");
        f.push(d);
    };
    let declared = |name: &str| {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == name)
            .and_then(|r| present(spec, r.as_str()))
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, group) in groups.iter().enumerate() {
        let gp = format!("spec.rollout.groups[{i}]");
        if let Some(policy) = present(group, "policyRef") {
            let d = f
                .error(
                    CODE,
                    policy.pos,
                    &format!("{gp}.policyRef"),
                    format!(
                        "{gp}.policyRef: this cluster does not have the rollout policy feature enabled, so the ref would silently no-op — inline the progression instead (RolloutPolicyRefUnsupported)"
                    ),
                )
                .help("RolloutPolicy is alpha and off by default; write the progression inline");
            f.push(d);
        }
        let field = format!("{gp}.components");
        // A component in two groups (any kind).
        for (name, node) in members(group) {
            if let Some(prev) = seen.get(&name) {
                reject(
                    f,
                    node.pos,
                    &field,
                    format!(
                        "spec.rollout.groups: component {} appears in groups[{prev}] and groups[{i}] (DuplicateComponentInCoordinationGroups)",
                        crate::go::quote(&name)
                    ),
                );
            } else {
                seen.insert(name, i);
            }
        }
        if present(group, "canary").is_some() {
            for (name, node) in members(group) {
                let q = crate::go::quote(&name);
                let message = if !Role::ALL.iter().any(|r| r.as_str() == name) {
                    format!(
                        "{gp}: canary component {q} is not one of router/engine/decoder (CanaryInvalid)"
                    )
                } else if let Some(component) = declared(&name) {
                    let mode = admission_mode(component, spec_mode);
                    if mode == "OMENative" {
                        // OME accepts it; the component itself is an ome-render error.
                        continue;
                    }
                    format!(
                        "{gp}: component {q} has deploymentMode={}; canary requires OMENative (CanaryRequiresOMENative)",
                        crate::go::quote(mode)
                    )
                } else {
                    format!(
                        "{gp}: canary component {q} is not declared on the InferenceService (CanaryInvalid)"
                    )
                };
                reject(f, node.pos, &field, message);
            }
            continue;
        }
        // blueGreen, rollingUpdate, or no progression: the coordination rules.
        let mut undeclared = Vec::new();
        for (name, node) in members(group) {
            let q = crate::go::quote(&name);
            if !Role::ALL.iter().any(|r| r.as_str() == name) {
                reject(
                    f,
                    node.pos,
                    &field,
                    format!(
                        "{gp}: component {q} is not one of router/engine/decoder (InvalidComponentInCoordinationGroup)"
                    ),
                );
                continue;
            }
            let Some(component) = declared(&name) else {
                undeclared.push(q);
                continue;
            };
            let mode = admission_mode(component, spec_mode);
            if mode != "OMENative" {
                reject(
                    f,
                    node.pos,
                    &field,
                    format!(
                        "{gp}: component {q} has deploymentMode={}; coordination requires OMENative (CoordinationRequiresOMENative)",
                        crate::go::quote(mode)
                    ),
                );
            }
        }
        if !undeclared.is_empty() {
            reject(
                f,
                group.get("components").map_or(group.pos, |n| n.pos),
                &field,
                format!(
                    "{gp}: component(s) {} not declared on the InferenceService (OrphanCoordinationGroup)",
                    undeclared.join(", ")
                ),
            );
        }
    }
}

/// ISVC-06: the static shape of `spec.replicaRefs`, then ome-render's own error: the
/// referenced replicas are OMENative InferenceReplicas, which need OME's controller.
pub(crate) fn check_replica_refs(f: &mut Findings<'_>, spec: &Node) {
    let Some(refs) = present(spec, "replicaRefs") else {
        return;
    };
    let list = |role: Role| -> &[Node] {
        refs.get(role.as_str())
            .and_then(Node::as_seq)
            .unwrap_or(&[])
    };
    let reject = |f: &mut Findings<'_>, pos, field: &str, message: String| {
        let d = f
            .error(CODE, pos, field, message)
            .help("an InferenceService over replicas names one InferenceReplica per role in spec.replicaRefs, an engine at least, and nothing else but its name and traffic");
        f.push(d);
    };
    if list(Role::Engine).is_empty() {
        reject(
            f,
            refs.pos,
            "spec.replicaRefs.engine",
            "spec.replicaRefs.engine is required when spec.replicaRefs is set; a service has an engine".into(),
        );
    }
    let mut named: HashMap<String, String> = HashMap::new();
    for role in Role::ALL {
        let field = format!("spec.replicaRefs.{role}");
        let names = list(role);
        if names.len() > 1 {
            reject(
                f,
                names[1].pos,
                &field,
                format!(
                    "{field} names {} replicas; one entry per role is accepted",
                    names.len()
                ),
            );
        }
        for n in names {
            let Some(name) = n.as_str() else { continue };
            if !valid_name(name) {
                reject(
                    f,
                    n.pos,
                    &format!("{field}[0]"),
                    format!(
                        "{field}[0] {} must match {}",
                        crate::go::quote(name),
                        crate::go::quote(NAME_FORMAT)
                    ),
                );
            }
            if let Some(prev) = named.get(name) {
                reject(
                    f,
                    n.pos,
                    &field,
                    format!(
                        "InferenceReplica {name} is named by both {prev} and {field}; a replica serves one role"
                    ),
                );
            }
            named.insert(name.to_string(), field.clone());
        }
    }
    for role in Role::ALL {
        if let Some(c) = present(spec, role.as_str()) {
            reject(
                f,
                c.pos,
                &format!("spec.{role}"),
                format!(
                    "spec.{role} and spec.replicaRefs cannot both be set; a service references all of its roles or none"
                ),
            );
        }
    }
    if let Some(r) = present(spec, "rollout") {
        reject(
            f,
            r.pos,
            "spec.rollout",
            "spec.rollout is not accepted with spec.replicaRefs; a referenced replica rolls on its own".into(),
        );
    }
    for (key, reason) in [
        (
            "model",
            "the referenced replicas carry their own model and runtime",
        ),
        (
            "runtime",
            "the referenced replicas carry their own model and runtime",
        ),
        (
            "scalingPolicy",
            "the service writes nothing on, and renders nothing for, a referenced replica",
        ),
        (
            "acceleratorSelector",
            "the service writes nothing on, and renders nothing for, a referenced replica",
        ),
        (
            "placement",
            "the referenced replicas exist in this cluster only",
        ),
        (
            "routing",
            "the referenced replicas exist in this cluster only",
        ),
    ] {
        if let Some(n) = present(spec, key) {
            reject(
                f,
                n.pos,
                &format!("spec.{key}"),
                format!("spec.{key} is not accepted with spec.replicaRefs; {reason}"),
            );
        }
    }
    if let Some(mode) = present(spec, "deploymentMode")
        && let Some(m) = mode.as_str()
        && m != "OMENative"
    {
        reject(
            f,
            mode.pos,
            "spec.deploymentMode",
            format!(
                "spec.deploymentMode {m} is not accepted with spec.replicaRefs; a referenced replica is OMENative"
            ),
        );
    }
    let d = f
        .error(
            Code::UnsupportedMode,
            refs.pos,
            "spec.replicaRefs",
            "an InferenceService over referenced InferenceReplicas (spec.replicaRefs) is not rendered by ome-render",
        )
        .help("the referenced replicas are OMENative InferenceReplicas, which need OME's controller");
    f.push(d);
}

/// `spec.placement` and `spec.routing` (multi-cluster serving, alpha): not rendered.
pub(crate) fn check_multi_cluster(f: &mut Findings<'_>, spec: &Node) {
    for key in ["placement", "routing"] {
        if let Some(n) = present(spec, key) {
            let d = f
                .error(
                    Code::UnsupportedMode,
                    n.pos,
                    &format!("spec.{key}"),
                    format!("multi-cluster serving (spec.{key}) is not rendered by ome-render"),
                )
                .help("OME's control plane places the InferenceService on workload clusters; render the InferenceService each workload cluster receives instead");
            f.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_omes_format() {
        for ok in ["a", "valid-name", "a1-b2"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in [
            "",
            "Invalid-Name",
            "1abc",
            "abc-",
            "a.b",
            "invalid@name",
            "a_b",
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
