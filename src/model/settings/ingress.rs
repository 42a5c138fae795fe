//! `ingress`: OME's `IngressConfig`, the settings of what OME creates for traffic
//! (SEMANTICS.md#settings).

use super::Origin;
use crate::model::fields::Reader;
use crate::yaml::Node;

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IngressConfig {
    /// OME creates the external Service `<isvc>` only while ingress creation is disabled;
    /// the chart's value is `true`.
    pub(crate) disable_ingress_creation: bool,
}

impl Default for IngressConfig {
    /// The chart's values.
    fn default() -> IngressConfig {
        IngressConfig {
            disable_ingress_creation: true,
        }
    }
}

impl IngressConfig {
    /// Reads the `ingress` map over `self` (keys left out keep their value). `origin` says
    /// how strict to be: in `ome-render.yaml` an unknown key is an error, in OME's ConfigMap a
    /// warning (OME ignores it).
    pub(crate) fn read(&mut self, r: &mut Reader, node: &Node, origin: Origin) {
        let _ = origin;
        if let Some(v) = r.bool(node, "disableIngressCreation", "ingress") {
            self.disable_ingress_creation = v;
        }
    }
}
