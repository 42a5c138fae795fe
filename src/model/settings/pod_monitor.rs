//! `podMonitor`: OME's `PodMonitorConfig`, the cluster-wide labels and relabelings OME adds to
//! the PodMonitors it creates for OMENative components (SEMANTICS.md#monitoring). OME v1.3
//! applies them to no RawDeployment or MultiNode PodMonitor, so they change nothing
//! ome-render renders; they are read, and checked, so that a typo is caught.

use super::Origin;
use crate::diagnostics::{Code, Diagnostic, suggest};
use crate::model::fields::{Reader, join};
use crate::yaml::Node;

/// One Prometheus relabeling, the fields OME's `RelabelConfig` has.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RelabelConfig {
    pub(crate) source_labels: Vec<String>,
    pub(crate) separator: String,
    pub(crate) target_label: String,
    pub(crate) regex: String,
    pub(crate) replacement: String,
    pub(crate) action: String,
}

pub(super) const RELABEL_KEYS: &[&str] = &[
    "sourceLabels",
    "separator",
    "targetLabel",
    "regex",
    "replacement",
    "action",
];
pub(super) const KEYS: &[&str] = &["labels", "relabelings", "metricRelabelings"];

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PodMonitorConfig {
    /// Merged into each OMENative PodMonitor's labels.
    pub(crate) labels: Vec<(String, String)>,
    /// Appended to each endpoint's `relabelings`.
    pub(crate) relabelings: Vec<RelabelConfig>,
    /// Appended to each endpoint's `metricRelabelings`.
    pub(crate) metric_relabelings: Vec<RelabelConfig>,
}

impl PodMonitorConfig {
    /// Whether it adds nothing to a PodMonitor.
    pub(crate) fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.relabelings.is_empty() && self.metric_relabelings.is_empty()
    }

    /// Reads the `podMonitor` map over `self` (keys left out keep their value). An unknown
    /// key is an error in `ome-render.yaml` and a warning in OME's ConfigMap (OME ignores it).
    pub(crate) fn read(&mut self, r: &mut Reader, node: &Node, origin: Origin) {
        unknown_keys(r, node, "podMonitor", KEYS, origin);
        if let Some(labels) = r.string_map(node, "labels", "podMonitor") {
            self.labels = labels;
        }
        for (key, slot) in [
            ("relabelings", &mut self.relabelings),
            ("metricRelabelings", &mut self.metric_relabelings),
        ] {
            let Some(items) = r.seq(node, key, "podMonitor") else {
                continue;
            };
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let path = format!("podMonitor.{key}[{i}]");
                if item.as_map().is_none() {
                    r.invalid(item, &path, "a map");
                    continue;
                }
                unknown_keys(r, item, &path, RELABEL_KEYS, origin);
                let source_labels = r.strings(item, "sourceLabels", &path).unwrap_or_default();
                let mut s = |k: &str| r.str(item, k, &path).unwrap_or_default();
                out.push(RelabelConfig {
                    source_labels,
                    separator: s("separator"),
                    target_label: s("targetLabel"),
                    regex: s("regex"),
                    replacement: s("replacement"),
                    action: s("action"),
                });
            }
            *slot = out;
        }
    }
}

fn unknown_keys(r: &mut Reader, node: &Node, path: &str, known: &[&str], origin: Origin) {
    for (key, value) in node.as_map().into_iter().flat_map(|m| m.iter()) {
        if known.contains(&key) {
            continue;
        }
        let message = format!("unknown setting `{}`", join(path, key));
        let d = match origin {
            Origin::File => Diagnostic::error(Code::Settings, message),
            Origin::ConfigMap => {
                Diagnostic::warning(Code::Settings, format!("{message}: OME ignores it"))
            }
        };
        let help = match suggest::closest(key, known) {
            Some(k) => format!(
                "did you mean `{k}`? known keys of `{path}`: {}",
                known.join(", ")
            ),
            None => format!("known keys of `{path}`: {}", known.join(", ")),
        };
        r.diags.push(
            d.at(value.pos)
                .object(r.object.clone())
                .field(join(path, key))
                .help(help),
        );
    }
}
