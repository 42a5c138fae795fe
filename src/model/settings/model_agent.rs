//! `modelAgent`: whether the cluster runs OME's model agent, the chart's
//! `modelAgent.enabled` (SEMANTICS.md#model-agent).

use super::Origin;
use crate::diagnostics::{Code, Diagnostic};
use crate::model::fields::Reader;
use crate::yaml::Node;

/// The keys of `modelAgent`.
const KEYS: &[&str] = &["enabled"];

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ModelAgent {
    /// The agent runs on the nodes: it downloads models and labels the nodes
    /// `models.ome.io/…: Ready`. The chart's value is `false`.
    pub(crate) enabled: bool,
}

impl ModelAgent {
    /// Reads the `modelAgent` map over `self` (keys left out keep their value). In
    /// `ome-render.yaml` an unknown key is an error; elsewhere a warning.
    pub(crate) fn read(&mut self, r: &mut Reader, node: &Node, origin: Origin) {
        for (key, value) in node.as_map().into_iter().flat_map(|m| m.iter()) {
            if KEYS.contains(&key) {
                continue;
            }
            let message = format!("unknown setting `modelAgent.{key}`");
            let d = match origin {
                Origin::File => Diagnostic::error(Code::Settings, message),
                Origin::ConfigMap => Diagnostic::warning(Code::Settings, message),
            };
            r.diags.push(
                d.at(value.pos)
                    .object(r.object.clone())
                    .field(format!("modelAgent.{key}"))
                    .help("modelAgent has one setting: enabled (true when the cluster runs OME's model agent)"),
            );
        }
        if let Some(v) = r.bool(node, "enabled", "modelAgent") {
            self.enabled = v;
        }
    }
}
