//! InferenceService: which model and runtime it asks for, its components (kept as trees for
//! merging) and the accelerator and mode settings that selection filters on.

use super::fields::Reader;
use super::name_pos;
use crate::diagnostics::{Diagnostic, ObjectRef};
use crate::load::Object;
use crate::yaml::{Map, Node, Pos, Value};

#[derive(Clone, Debug)]
pub struct InferenceService {
    pub name: String,
    /// `metadata.namespace` as written; rendered objects carry it as is (DECISIONS #21).
    pub namespace: Option<String>,
    /// The namespace lookups use: as written, else the `--namespace` default.
    pub lookup_namespace: String,
    pub object: ObjectRef,
    pub pos: Pos,
    /// `metadata.labels` and `metadata.annotations`, string values only, in input order.
    pub labels: Map,
    pub annotations: Map,
    pub model: Option<ModelRef>,
    pub runtime: Option<RuntimeRef>,
    pub engine: Option<Node>,
    pub decoder: Option<Node>,
    pub router: Option<Node>,
    pub accelerator_selector: Option<AcceleratorSelector>,
    /// `spec.deploymentMode` (v1.3).
    pub deployment_mode: Option<String>,
    /// `spec.scalingPolicy`, checked but not rendered.
    pub scaling_policy: Option<Node>,
}

#[derive(Clone, Debug)]
pub struct ModelRef {
    pub name: String,
    pub kind: Option<String>,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct RuntimeRef {
    pub name: String,
    /// `spec.runtime.kind`; `None` means the CRD default, `ClusterServingRuntime`.
    pub kind: Option<String>,
    pub auto_sync: Option<bool>,
    pub revision: Option<String>,
    pub pos: Pos,
}

/// `spec.acceleratorSelector`, or a component's `acceleratorOverride`.
#[derive(Clone, Debug, Default)]
pub struct AcceleratorSelector {
    pub accelerator_class: Option<String>,
    pub policy: Option<String>,
    /// `constraints`, read by the accelerator-class policies.
    pub constraints: Option<Node>,
    pub pos: Pos,
    /// Where `acceleratorClass` is written.
    pub class_pos: Option<Pos>,
}

impl AcceleratorSelector {
    pub(crate) fn read(
        r: &mut Reader<'_>,
        parent: &Node,
        key: &str,
        path: &str,
    ) -> Option<AcceleratorSelector> {
        let node = r.map(parent, key, path)?;
        let path = super::fields::join(path, key);
        Some(AcceleratorSelector {
            accelerator_class: r.str(node, "acceleratorClass", &path),
            policy: r.str(node, "policy", &path),
            constraints: r.map(node, "constraints", &path).cloned(),
            pos: node.pos,
            class_pos: node.get("acceleratorClass").map(|n| n.pos),
        })
    }
}

/// The annotation that names an accelerator class for the whole InferenceService.
pub const ACCELERATOR_CLASS_ANNOTATION: &str = "ome.io/accelerator-class";

impl InferenceService {
    pub fn read(
        obj: &Object,
        default_namespace: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> InferenceService {
        let object = obj.object_ref();
        let mut r = Reader {
            object: &object,
            diags,
        };
        let empty = Node::map(Map::new());
        let spec = r.map(&obj.root, "spec", "").unwrap_or(&empty);
        let labels = string_map(&mut r, &obj.root, "labels");
        let annotations = string_map(&mut r, &obj.root, "annotations");
        let model = r.map(spec, "model", "spec").map(|m| ModelRef {
            name: r.str(m, "name", "spec.model").unwrap_or_default(),
            kind: r.str(m, "kind", "spec.model"),
            pos: m.get("name").map_or(m.pos, |n| n.pos),
        });
        for (key, what) in [
            ("fineTunedWeights", "fine-tuned weights"),
            ("overlays", "model overlays"),
        ] {
            if let Some(n) = spec.at(&["model", key]).filter(|n| !n.is_zero()) {
                r.diags.push(
                    Diagnostic::error(
                        crate::diagnostics::Code::UnsupportedMode,
                        format!("{what} (spec.model.{key}) are not rendered by ome-render yet"),
                    )
                    .at(n.pos)
                    .object(object.clone())
                    .field(format!("spec.model.{key}"))
                    .help("render this InferenceService with OME's controller, or leave it out of the paths"),
                );
            }
        }
        if let Some(m) = model.as_ref().filter(|m| m.name.is_empty()) {
            r.diags.push(
                Diagnostic::error(
                    crate::diagnostics::Code::InvalidField,
                    "spec.model.name is required",
                )
                .at(m.pos)
                .object(object.clone())
                .field("spec.model.name")
                .help("name the BaseModel or ClusterBaseModel to serve"),
            );
        }
        let runtime = r.map(spec, "runtime", "spec").map(|m| RuntimeRef {
            name: r.str(m, "name", "spec.runtime").unwrap_or_default(),
            kind: r.str(m, "kind", "spec.runtime"),
            auto_sync: r.bool(m, "autoSync", "spec.runtime"),
            revision: r.str(m, "revision", "spec.runtime"),
            pos: m.get("name").map_or(m.pos, |n| n.pos),
        });
        let mut component = |key: &str| r.map(spec, key, "spec").cloned();
        let (engine, decoder, router) = (
            component("engine"),
            component("decoder"),
            component("router"),
        );
        InferenceService {
            name: obj.name.clone(),
            lookup_namespace: obj
                .namespace
                .clone()
                .unwrap_or_else(|| default_namespace.to_string()),
            namespace: obj.namespace.clone(),
            pos: name_pos(&obj.root),
            labels,
            annotations,
            accelerator_selector: AcceleratorSelector::read(
                &mut r,
                spec,
                "acceleratorSelector",
                "spec",
            ),
            deployment_mode: r.str(spec, "deploymentMode", "spec"),
            scaling_policy: r.map(spec, "scalingPolicy", "spec").cloned(),
            model,
            runtime,
            engine,
            decoder,
            router,
            object,
        }
    }

    /// The component tree by name (`engine`, `decoder`, `router`).
    pub fn component(&self, name: &str) -> Option<&Node> {
        match name {
            "engine" => self.engine.as_ref(),
            "decoder" => self.decoder.as_ref(),
            "router" => self.router.as_ref(),
            _ => None,
        }
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations.get(key).and_then(Node::as_str)
    }

    /// The accelerator classes the InferenceService names, in the order selection checks them:
    /// the `ome.io/accelerator-class` annotation (when the key is present, even if empty),
    /// `spec.acceleratorSelector.acceleratorClass`, then the engine's and the decoder's
    /// `acceleratorOverride.acceleratorClass`; without duplicates.
    pub fn required_accelerator_classes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |c: Option<&str>| {
            if let Some(c) = c
                && !out.iter().any(|x| x == c)
            {
                out.push(c.to_string());
            }
        };
        add(self.annotation(ACCELERATOR_CLASS_ANNOTATION));
        add(self
            .accelerator_selector
            .as_ref()
            .and_then(|s| s.accelerator_class.as_deref()));
        for c in ["engine", "decoder"] {
            add(self
                .component(c)
                .and_then(|n| n.at(&["acceleratorOverride", "acceleratorClass"]))
                .and_then(Node::as_str));
        }
        out
    }
}

/// `metadata.<key>` as a map of strings; a non-string value is an error and left out.
fn string_map(r: &mut Reader<'_>, root: &Node, key: &str) -> Map {
    let Some(meta) = root.get("metadata") else {
        return Map::new();
    };
    let Some(node) = r.map(meta, key, "metadata") else {
        return Map::new();
    };
    let mut out = Map::new();
    for (k, v) in node.as_map().map(Map::iter).into_iter().flatten() {
        match &v.value {
            Value::Str(_) => out.insert(k, v.clone()),
            _ => r.invalid(v, &format!("metadata.{key}.{k}"), "a string"),
        }
    }
    out
}
