//! Which deployment mode a component is rendered in (SEMANTICS.md, "Components and modes").

use crate::diagnostics::{Code, Diagnostic};
use crate::model::component::declared_mode;
use crate::model::{DeploymentMode, InferenceService, Role};
use crate::yaml::Node;

/// How a component's mode was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ModeSource {
    /// The `ome.io/deploymentMode` annotation or `spec.deploymentMode`.
    Declared,
    /// A leader/worker shape, which OME v1.3 runs as OMENative (SEMANTICS.md, "Divergences").
    Shape,
    Default,
}

/// The component's deployment mode (v1.3 order): the mode the merged component declares, a
/// leader/worker shape, else RawDeployment. Only RawDeployment and MultiNode (a
/// LeaderWorkerSet, not for the router) can be rendered as plain objects; any other mode is
/// an error to be placed by the caller.
pub(super) fn component_mode(
    isvc: &InferenceService,
    role: Role,
    merged: &Node,
) -> Result<(DeploymentMode, ModeSource), Diagnostic> {
    // A leader or worker in the merged component, or declared (`{}` included) by the
    // InferenceService.
    let raw = isvc.component(role);
    let part = |key: &str| {
        merged.get(key).is_some_and(|n| !n.is_zero())
            || raw.and_then(|r| r.get(key)).is_some_and(|n| !n.is_null())
    };
    let shaped = role != Role::Router && (part("leader") || part("worker"));
    let (mode, source) = match (
        declared_mode(Some(merged), isvc.deployment_mode.as_deref()),
        shaped,
    ) {
        (Some(m), _) => (m, ModeSource::Declared),
        (None, true) => (DeploymentMode::MultiNode, ModeSource::Shape),
        (None, false) => (DeploymentMode::RawDeployment, ModeSource::Default),
    };
    match mode {
        DeploymentMode::RawDeployment => Ok((mode, source)),
        DeploymentMode::MultiNode if role != Role::Router => Ok((mode, source)),
        DeploymentMode::OmeNative => Err(Diagnostic::error(
            Code::UnsupportedMode,
            format!("the {role} runs in OMENative mode, which needs OME's controller"),
        )
        .help("OMENative workloads (InferenceReplicas) can't be expressed as plain Kubernetes objects; use RawDeployment, or a leader and worker for MultiNode")),
        other => Err(Diagnostic::error(
            Code::UnsupportedMode,
            format!("the {role} can't run in {other} mode"),
        )
        .help("ome-render renders RawDeployment components, and MultiNode (leader and worker) engines and decoders")),
    }
}
