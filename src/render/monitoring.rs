//! The component's PodMonitor, rendered where OME v1.3 creates one and the cluster's APIs
//! are known to have the Prometheus operator's (SEMANTICS.md#monitoring).

use super::Component;
use super::objects::pod_monitor::{self, API_VERSION, EXTRA_ENDPOINTS, KIND};
use crate::diagnostics::{Code, Diagnostic};
use crate::rendered::Rendered;
use crate::yaml::{Node, Pos};

/// The PodMonitor of a RawDeployment or MultiNode component built from `pod_spec`, when
/// the listed cluster APIs serve `monitoring.coreos.com/v1` PodMonitor; `None` otherwise
/// (without a list, the pipeline says once that none are rendered). Each entry of
/// `prometheus.ome.io/extra-endpoints` that OME skips is a warning.
pub(super) fn pod_monitor(
    c: &Component<'_>,
    pod_spec: &Node,
    diags: &mut Vec<Diagnostic>,
) -> Option<Rendered> {
    if !c
        .settings
        .api_versions
        .as_ref()
        .is_some_and(|apis| apis.serves(API_VERSION, KIND))
    {
        return None;
    }
    if let Some(value) = c.meta.annotations.get(EXTRA_ENDPOINTS) {
        let at = c
            .merged
            .at(&["annotations", EXTRA_ENDPOINTS])
            .or_else(|| c.isvc.annotations.get(EXTRA_ENDPOINTS))
            .map_or(Pos::NONE, |n| n.pos);
        for entry in pod_monitor::extra_endpoints(value).1 {
            diags.push(
                Diagnostic::warning(
                    Code::Monitoring,
                    format!(
                        "{EXTRA_ENDPOINTS} entry `{entry}` is not `portName:/path`: OME v1.3 skips it, and the {} PodMonitor scrapes without it",
                        c.role
                    ),
                )
                .at(if at.is_none() { c.raw.pos } else { at })
                .object(c.isvc.object.clone())
                .field(format!("metadata.annotations.{EXTRA_ENDPOINTS}"))
                .help("write each entry as a port name, a colon and a path starting with `/`, e.g. `http:/engine_metrics`"),
            );
        }
    }
    Some(pod_monitor::pod_monitor(
        c.isvc,
        &c.names,
        &c.meta.annotations,
        pod_spec,
    ))
}
