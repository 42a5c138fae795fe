//! AcceleratorClass (cluster-scoped): how to find the nodes of one kind of accelerator, what
//! it provides, and what it costs.

use super::fields::Reader;
use super::name_pos;
use crate::diagnostics::{Diagnostic, ObjectRef};
use crate::load::Object;
use crate::yaml::{Map, Node, Pos};

#[derive(Clone, Debug)]
pub struct AcceleratorClass {
    pub name: String,
    pub object: ObjectRef,
    pub pos: Pos,
    pub vendor: Option<String>,
    pub family: Option<String>,
    pub model: Option<String>,
    /// `discovery.nodeSelector`.
    pub node_selector: Option<Node>,
    /// `discovery.affinity`.
    pub affinity: Option<Node>,
    /// `resources[]`: name and quantity (1 when absent), in order.
    pub resources: Vec<(String, Node)>,
    pub capabilities: Capabilities,
    pub cost: Option<Cost>,
}

#[derive(Clone, Debug, Default)]
pub struct Capabilities {
    /// `memoryGB`, a quantity such as `80Gi`.
    pub memory_gb: Option<String>,
    pub compute_capability: Option<String>,
    pub features: Vec<String>,
    /// `memoryBandwidthGBps`.
    pub memory_bandwidth_gbps: Option<String>,
    /// `performance`: key (such as `fp16TFLOPS`) and value as text, in key order.
    pub performance: Vec<(String, String)>,
}

#[derive(Clone, Debug, Default)]
pub struct Cost {
    pub per_hour: Option<String>,
    pub spot_per_hour: Option<String>,
    pub per_million_tokens: Option<String>,
    pub tier: Option<String>,
}

impl AcceleratorClass {
    pub fn read(obj: &Object, diags: &mut Vec<Diagnostic>) -> AcceleratorClass {
        let object = obj.object_ref();
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
        AcceleratorClass {
            name: obj.name.clone(),
            pos: name_pos(&obj.root),
            vendor: r.str(spec, "vendor", "spec"),
            family: r.str(spec, "family", "spec"),
            model: r.str(spec, "model", "spec"),
            node_selector,
            affinity,
            resources,
            capabilities,
            cost,
            object,
        }
    }
}
