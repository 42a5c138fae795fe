//! OME v1.3's admission of a ServingRuntime or ClusterServingRuntime as written
//! (SEMANTICS.md#admission): the CRD schema of the supported formats, then the runtime
//! webhook's rules that need no other object: `scalingPolicy` (RT-03),
//! `autoscalerPolicyRef` (RT-04) and, for enabled runtimes, each config's `autoscaler` block
//! (RT-05). Profiles, inheritance and the rules across runtimes are in `inherit` and
//! `catalog::checks`.

use super::inference_service::{int_or_string, scaling_policy, scaling_policy_schema};
use super::{Findings, autoscaler, pod, present};
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::model::Role;
use crate::yaml::{Node, Pos};

const CODE: Code = Code::RuntimeInvalid;
const SCHEMA: Code = Code::InvalidField;

/// Every admission problem of the runtime `root` (with the preset applied).
pub(crate) fn check(root: &Node, object: &ObjectId, pos: Pos) -> Vec<Diagnostic> {
    let mut f = Findings::new(object, pos);
    let Some(spec) = root.get("spec").filter(|s| s.as_map().is_some()) else {
        return f.diags;
    };
    formats_schema(&mut f, spec);
    // Each role's config, looked up once: (its key, its node), in role order.
    let configs: Vec<(&str, &Node)> = Role::ALL
        .iter()
        .filter_map(|role| present(spec, role.config_key()).map(|c| (role.config_key(), c)))
        .collect();
    let config_maps = || configs.iter().filter(|(_, c)| c.as_map().is_some());
    // The pod fields and replica counts of every config, and the runtime's own pod spec.
    pod::check_component(&mut f, spec, "spec");
    for &(key, config) in config_maps() {
        let path = format!("spec.{key}");
        for bound in ["minReplicas", "maxReplicas"] {
            f.replica_count(config, bound, &path);
        }
        int_or_string(&mut f, config, &path);
        if let Some(w) = present(config, "worker") {
            f.replica_count(w, "size", &format!("{path}.worker"));
        }
        pod::check_component(&mut f, config, &path);
    }
    if let Some(req) = present(spec, "acceleratorRequirements") {
        for key in ["minMemory", "minComputePerformanceTFLOPS"] {
            if let Some(n) = present(req, key) {
                f.minimum(SCHEMA, n, &format!("spec.acceleratorRequirements.{key}"), 0);
            }
        }
    }
    if let Some(policy) = present(spec, "scalingPolicy") {
        scaling_policy_schema(&mut f, policy, "spec.scalingPolicy");
    }
    for &(key, config) in &configs {
        if let Some(r) = present(config, "autoscalerPolicyRef") {
            autoscaler::check_policy_ref_schema(
                &mut f,
                SCHEMA,
                r,
                &format!("spec.{key}.autoscalerPolicyRef"),
                true,
            );
        }
    }
    scaling_policy(&mut f, CODE, spec, "spec.scalingPolicy");
    for &(key, config) in &configs {
        if let Some(r) = present(config, "autoscalerPolicyRef") {
            let d = f
                .error(
                    CODE,
                    r.pos,
                    &format!("spec.{key}.autoscalerPolicyRef"),
                    format!(
                        "{key}: autoscalerPolicyRef is not supported on serving runtimes; policy refs attach on the InferenceService only"
                    ),
                )
                .help("move the ref to the InferenceService's component, or write the autoscaler block in the runtime");
            f.push(d);
        }
    }
    let disabled = spec.get("disabled").and_then(|d| match d.value {
        crate::yaml::Value::Bool(b) => Some(b),
        _ => None,
    }) == Some(true);
    if !disabled {
        for &(key, config) in config_maps() {
            autoscaler::check_block(&mut f, CODE, key, config, &format!("spec.{key}"), true);
        }
    }
    for &(key, config) in config_maps() {
        super::migration::check_runtime_config(&mut f, key, config);
    }
    f.diags
}

/// The CRD schema of `supportedModelFormats` entries: `modelFormat` and `modelFramework`
/// with their names are required, `priority` is at least 1.
fn formats_schema(f: &mut Findings<'_>, spec: &Node) {
    let Some(entries) = spec.get("supportedModelFormats").and_then(Node::as_seq) else {
        return;
    };
    for (i, entry) in entries.iter().enumerate() {
        if entry.as_map().is_none() {
            continue;
        }
        let path = format!("spec.supportedModelFormats[{i}]");
        for key in ["modelFormat", "modelFramework"] {
            match present(entry, key) {
                None => f.required(SCHEMA, entry.pos, &format!("{path}.{key}")),
                Some(r) if r.as_map().is_some() && r.get("name").is_none() => {
                    f.required(SCHEMA, r.pos, &format!("{path}.{key}.name"));
                }
                _ => {}
            }
        }
        if let Some(p) = present(entry, "priority") {
            f.minimum(SCHEMA, p, &format!("{path}.priority"), 1);
        }
        let configs = entry.get("acceleratorConfig").and_then(Node::as_map);
        for (class, config) in configs.into_iter().flat_map(|m| m.iter()) {
            let cp = format!("{path}.acceleratorConfig.{class}");
            if let Some(n) = present(config, "minMemoryPerBillionParams") {
                f.minimum(SCHEMA, n, &format!("{cp}.minMemoryPerBillionParams"), 0);
            }
            for key in [
                "tensorParallelSize",
                "pipelineParallelSize",
                "dataParallelSize",
            ] {
                if let Some(n) = config.at(&["tensorParallelismOverride", key]) {
                    f.minimum(
                        SCHEMA,
                        n,
                        &format!("{cp}.tensorParallelismOverride.{key}"),
                        0,
                    );
                }
            }
        }
    }
}
