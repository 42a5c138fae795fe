//! Filling a model's spec from its snapshot (SEMANTICS.md#model-metadata): the fields the
//! manifest doesn't set, as OME's model agent would write them, filled in memory before the
//! model's view is read, so selection sees them. The loader has read the snapshot
//! ([`crate::load::ModelConfigs`]); nothing here touches a file.

use crate::diagnostics::{Code, Diagnostic};
use crate::load::{ModelConfigs, Object};
use crate::modelmeta::fill_spec;
use crate::yaml::{Map, Node, Pos, Value};

/// Gives a filled node, and everything in it, the annotation's position, so a later
/// diagnostic about the field points at where its value came from.
fn place(node: &mut Node, pos: Pos) {
    node.pos = pos;
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|n| place(n, pos)),
        Value::Map(m) => m.iter_mut().for_each(|(_, n)| place(n, pos)),
        _ => {}
    }
}

/// Fills the spec of every model `configs` has metadata for, with a note naming the fields.
pub(crate) fn fill(objects: &mut [Object], configs: &ModelConfigs) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    if configs.is_empty() {
        return diags;
    }
    for obj in objects.iter_mut() {
        let Some(config) = configs.get(&obj.root.pos) else {
            continue;
        };
        let object = obj.written_id();
        let Some(root) = obj.root.as_map_mut() else {
            continue;
        };
        let spec = root.entry_or("spec", || Node::new(Value::Null, config.pos));
        if spec.is_null() {
            *spec = Node::new(Value::Map(Map::new()), config.pos);
        }
        // A spec of another type is left for the model's view to report.
        let Some(spec) = spec.as_map_mut() else {
            continue;
        };
        let filled = fill_spec(spec, &config.metadata);
        for key in &filled {
            if let Some(node) = spec.get_mut(key) {
                place(node, config.pos);
            }
        }
        if filled.is_empty() {
            continue;
        }
        let fields: Vec<String> = filled.iter().map(|k| format!("spec.{k}")).collect();
        diags.push(
            Diagnostic::note(
                Code::ModelMetadataFilled,
                format!(
                    "filled {} from the snapshot {}, as OME's model agent would",
                    fields.join(", "),
                    config.path
                ),
            )
            .at(config.pos)
            .object(object)
            .help("the manifest is not changed; `ome-render model-metadata SNAPSHOT --write FILE` writes the fields into it"),
        );
    }
    diags
}
