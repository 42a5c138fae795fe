//! The components of an InferenceService and the deployment modes they run in: one name for
//! each, used by every stage (SEMANTICS.md, "Components and modes").

use crate::yaml::Node;
use std::fmt;

/// A component of an InferenceService (and the matching `<role>Config` of a runtime).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Role {
    Engine,
    Decoder,
    Router,
}

impl Role {
    /// Every component, in the order OME reconciles them.
    pub(crate) const ALL: [Role; 3] = [Role::Engine, Role::Decoder, Role::Router];

    /// The key of the component under an InferenceService's `spec`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::Engine => "engine",
            Role::Decoder => "decoder",
            Role::Router => "router",
        }
    }

    /// The key of the component's configuration under a runtime's `spec`.
    pub(crate) fn config_key(self) -> &'static str {
        match self {
            Role::Engine => "engineConfig",
            Role::Decoder => "decoderConfig",
            Role::Router => "routerConfig",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The annotation that declares a component's (or an InferenceService's) deployment mode.
pub(crate) const DEPLOYMENT_MODE_ANNOTATION: &str = "ome.io/deploymentMode";

/// The deployment modes OME v1.3 recognises (case-sensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum DeploymentMode {
    /// A Deployment, Service, autoscaler and PodDisruptionBudget.
    RawDeployment,
    /// An InferenceReplica, run by OME's controller.
    OmeNative,
    /// A leader and workers: a LeaderWorkerSet.
    MultiNode,
    /// No workload at all.
    VirtualDeployment,
}

impl DeploymentMode {
    /// The mode spelt exactly `text`; any other text, the empty one included, is no mode.
    pub(crate) fn parse(text: &str) -> Option<DeploymentMode> {
        match text {
            "RawDeployment" => Some(DeploymentMode::RawDeployment),
            "OMENative" => Some(DeploymentMode::OmeNative),
            "MultiNode" => Some(DeploymentMode::MultiNode),
            "VirtualDeployment" => Some(DeploymentMode::VirtualDeployment),
            _ => None,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DeploymentMode::RawDeployment => "RawDeployment",
            DeploymentMode::OmeNative => "OMENative",
            DeploymentMode::MultiNode => "MultiNode",
            DeploymentMode::VirtualDeployment => "VirtualDeployment",
        }
    }

    /// `spec.deploymentMode` takes only these two values; any other constrains nothing.
    pub(crate) fn from_spec(text: &str) -> Option<DeploymentMode> {
        DeploymentMode::parse(text)
            .filter(|m| matches!(m, DeploymentMode::OmeNative | DeploymentMode::RawDeployment))
    }
}

impl fmt::Display for DeploymentMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The mode a component declares (v1.3): a valid `ome.io/deploymentMode` in its
/// annotations, else `spec.deploymentMode` when that is `OMENative` or `RawDeployment`.
/// Selection asks it of the InferenceService's own component; rendering of the component
/// merged with the runtime's config.
pub(crate) fn declared_mode(
    component: Option<&Node>,
    spec_mode: Option<&str>,
) -> Option<DeploymentMode> {
    component
        .and_then(|c| c.str_at(&["annotations", DEPLOYMENT_MODE_ANNOTATION]))
        .and_then(DeploymentMode::parse)
        .or_else(|| spec_mode.and_then(DeploymentMode::from_spec))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    fn node(yaml: &str) -> Node {
        parse_stream(yaml, 0).expect("yaml").remove(0).root
    }

    #[test]
    fn modes_are_case_sensitive_and_spec_mode_takes_two() {
        assert_eq!(
            DeploymentMode::parse("MultiNode"),
            Some(DeploymentMode::MultiNode)
        );
        assert_eq!(DeploymentMode::parse("multinode"), None);
        assert_eq!(DeploymentMode::parse(""), None);
        assert_eq!(DeploymentMode::from_spec("MultiNode"), None);
        assert_eq!(
            DeploymentMode::from_spec("OMENative"),
            Some(DeploymentMode::OmeNative)
        );
        for m in [
            DeploymentMode::RawDeployment,
            DeploymentMode::OmeNative,
            DeploymentMode::MultiNode,
            DeploymentMode::VirtualDeployment,
        ] {
            assert_eq!(DeploymentMode::parse(m.as_str()), Some(m));
        }
    }

    #[test]
    fn a_valid_annotation_wins_over_the_spec_mode() {
        let annotated = node("annotations: {ome.io/deploymentMode: MultiNode}");
        let invalid = node("annotations: {ome.io/deploymentMode: Bogus}");
        assert_eq!(
            declared_mode(Some(&annotated), Some("RawDeployment")),
            Some(DeploymentMode::MultiNode)
        );
        assert_eq!(
            declared_mode(Some(&invalid), Some("RawDeployment")),
            Some(DeploymentMode::RawDeployment)
        );
        assert_eq!(declared_mode(Some(&invalid), Some("MultiNode")), None);
        assert_eq!(
            declared_mode(None, Some("OMENative")),
            Some(DeploymentMode::OmeNative)
        );
    }
}
