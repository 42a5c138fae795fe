//! AcceleratorClass (cluster-scoped): how to find the nodes of one kind of accelerator, what
//! it provides, and what it costs.

use super::fields::Reader;
use crate::diagnostics::Diagnostic;
use crate::load::Object;
use crate::yaml::{Map, Node};

#[derive(Clone, Debug)]
pub(crate) struct AcceleratorClass {
    pub(crate) name: String,
    pub(crate) vendor: Option<String>,
    pub(crate) family: Option<String>,
    /// `discovery.nodeSelector`.
    pub(crate) node_selector: Option<Node>,
    /// `discovery.affinity`.
    pub(crate) affinity: Option<Node>,
    /// `resources[]`: name and quantity (1 when absent), in order.
    pub(crate) resources: Vec<(String, Node)>,
    pub(crate) capabilities: Capabilities,
    pub(crate) cost: Option<Cost>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Capabilities {
    /// `memoryGB`, a quantity such as `80Gi`.
    pub(crate) memory_gb: Option<String>,
    pub(crate) compute_capability: Option<String>,
    pub(crate) features: Vec<String>,
    /// `memoryBandwidthGBps`.
    pub(crate) memory_bandwidth_gbps: Option<String>,
    /// `performance`: key (such as `fp16TFLOPS`) and value as text, in key order.
    pub(crate) performance: Vec<(String, String)>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Cost {
    pub(crate) per_hour: Option<String>,
    pub(crate) spot_per_hour: Option<String>,
    pub(crate) per_million_tokens: Option<String>,
    pub(crate) tier: Option<String>,
}

impl AcceleratorClass {
    pub(crate) fn read(obj: &Object, diags: &mut Vec<Diagnostic>) -> AcceleratorClass {
        let object = obj.written_id();
        let mut r = Reader {
            object: &object,
            diags,
        };
        let empty = Node::map(Map::new());
        let spec = r.map(&obj.root, "spec", "").unwrap_or(&empty);
        let discovery = r.map(spec, "discovery", "spec");
        let (node_selector, affinity) = match discovery {
            Some(d) => (
                r.map(d, "nodeSelector", "spec.discovery").cloned(),
                r.map(d, "affinity", "spec.discovery").cloned(),
            ),
            None => (None, None),
        };
        let mut resources = Vec::new();
        for (i, item) in r
            .seq(spec, "resources", "spec")
            .unwrap_or(&[])
            .iter()
            .enumerate()
        {
            let path = format!("spec.resources[{i}]");
            match r.str(item, "name", &path) {
                Some(name) => {
                    let quantity = item
                        .get("quantity")
                        .filter(|q| !q.is_null())
                        .cloned()
                        .unwrap_or_else(|| Node::str("1"));
                    resources.push((name, quantity));
                }
                // A map without a name is the CRD's `Required value`
                // (`admission::accelerator_class`).
                None if item.as_map().is_some() => {}
                None => r.invalid(item, &path, "a resource with a `name`"),
            }
        }
        let capabilities = match r.map(spec, "capabilities", "spec") {
            Some(c) => {
                let p = "spec.capabilities";
                let mut performance: Vec<(String, String)> = r
                    .map(c, "performance", p)
                    .and_then(Node::as_map)
                    .map(|m| {
                        m.iter()
                            .filter_map(|(k, v)| v.scalar_text().map(|t| (k.to_string(), t)))
                            .collect()
                    })
                    .unwrap_or_default();
                performance.sort();
                Capabilities {
                    memory_gb: r.quantity(c, "memoryGB", p),
                    compute_capability: r.quantity(c, "computeCapability", p),
                    features: r.strings(c, "features", p).unwrap_or_default(),
                    memory_bandwidth_gbps: r.quantity(c, "memoryBandwidthGBps", p),
                    performance,
                }
            }
            None => Capabilities::default(),
        };
        let cost = r.map(spec, "cost", "spec").map(|c| Cost {
            per_hour: r.quantity(c, "perHour", "spec.cost"),
            spot_per_hour: r.quantity(c, "spotPerHour", "spec.cost"),
            per_million_tokens: r.quantity(c, "perMillionTokens", "spec.cost"),
            tier: r.str(c, "tier", "spec.cost"),
        });
        // Checked for its type; nothing decides on it.
        r.str(spec, "model", "spec");
        AcceleratorClass {
            name: obj.name.clone(),
            vendor: r.str(spec, "vendor", "spec"),
            family: r.str(spec, "family", "spec"),
            node_selector,
            affinity,
            resources,
            capabilities,
            cost,
        }
    }
}
