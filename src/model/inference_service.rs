//! InferenceService: which model and runtime it asks for, its components (kept as trees for
//! merging) and the accelerator and mode settings that selection filters on.

use super::component::Role;
use super::fields::{Reader, join};
use super::name_pos;
use crate::diagnostics::Diagnostic;
use crate::k8s::id::ObjectId;
use crate::load::Object;
use crate::yaml::{Map, Node, Pos, Value};

#[derive(Clone, Debug)]
pub(crate) struct InferenceService {
    pub(crate) name: String,
    /// `metadata.namespace` as written; rendered objects carry it as is
    /// (SEMANTICS.md#choice-namespaces).
    pub(crate) namespace: Option<String>,
    /// The namespace lookups use: as written, else the `--namespace` default.
    pub(crate) lookup_namespace: String,
    pub(crate) object: ObjectId,
    pub(crate) pos: Pos,
    /// `metadata.labels` and `metadata.annotations`, string values only, in input order.
    pub(crate) labels: Map,
    pub(crate) annotations: Map,
    pub(crate) model: Option<ModelRef>,
    pub(crate) runtime: Option<RuntimeRef>,
    pub(crate) engine: Option<Node>,
    pub(crate) decoder: Option<Node>,
    pub(crate) router: Option<Node>,
    /// `spec.traffic`: the service's traffic intent, as written (admitted by the webhook's
    /// checks; SEMANTICS.md#traffic, SEMANTICS.md#traffic-intent).
    pub(crate) traffic: Option<Node>,
    pub(crate) accelerator_selector: Option<AcceleratorSelector>,
    /// `spec.engine.acceleratorOverride` and `spec.decoder.acceleratorOverride`.
    pub(crate) engine_override: Option<AcceleratorSelector>,
    pub(crate) decoder_override: Option<AcceleratorSelector>,
    /// `spec.deploymentMode` (v1.3).
    pub(crate) deployment_mode: Option<String>,
    /// What OME's admission finds wrong with the InferenceService as written
    /// (`admission::inference_service`); reported with the InferenceService's other
    /// problems.
    pub(crate) admission: Vec<Diagnostic>,
    /// The API server refuses its namespace: nothing can be looked up there, so it is not
    /// resolved (admission reports the namespace).
    pub(crate) namespace_refused: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct ModelRef {
    pub(crate) name: String,
    pub(crate) pos: Pos,
    /// `spec.model.overlays`, in order (SEMANTICS.md#overlays).
    pub(crate) overlays: Vec<OverlayRef>,
}

/// One entry of `spec.model.overlays`: another model mounted beside the primary one.
#[derive(Clone, Debug)]
pub(crate) struct OverlayRef {
    pub(crate) name: String,
    /// `kind`; `None` means the CRD default, `ClusterBaseModel`.
    pub(crate) kind: Option<String>,
    /// `apiGroup`; `None` means the CRD default, `ome.io`.
    pub(crate) api_group: Option<String>,
    /// Where the entry is written.
    pub(crate) pos: Pos,
}

/// The environment variable OME v1.3 gives an overlay: `OVERLAY_<NAME>_MODEL_PATH`, the
/// name upper-cased with `-` made `_` and every other character kept (SEMANTICS.md#overlays).
/// Upper-casing is Go's, one character for one: a character whose capital is several
/// (`ß`) stays as it is.
pub(crate) fn overlay_env_name(name: &str) -> String {
    let upper: String = name
        .chars()
        .map(|c| {
            if c == '-' {
                return '_';
            }
            let mut up = c.to_uppercase();
            match (up.next(), up.next()) {
                (Some(u), None) => u,
                _ => c,
            }
        })
        .collect();
    format!("OVERLAY_{upper}_MODEL_PATH")
}

#[derive(Clone, Debug)]
pub(crate) struct RuntimeRef {
    pub(crate) name: String,
    /// `spec.runtime.kind`; `None` means the CRD default, `ClusterServingRuntime`.
    pub(crate) kind: Option<String>,
    /// `spec.runtime.autoSync`; `None` means the CRD default, `true`.
    pub(crate) auto_sync: Option<bool>,
    /// `spec.runtime.revision`, a pin to a ControllerRevision (SEMANTICS.md#pins).
    pub(crate) revision: Option<String>,
    /// Where `revision` is written.
    pub(crate) revision_pos: Option<Pos>,
    pub(crate) pos: Pos,
}

/// `spec.acceleratorSelector`, or a component's `acceleratorOverride`.
#[derive(Clone, Debug, Default)]
pub(crate) struct AcceleratorSelector {
    pub(crate) accelerator_class: Option<String>,
    pub(crate) policy: Option<String>,
    /// `constraints`: read for `spec.acceleratorSelector` only, since a component
    /// override's constraints have no effect (SEMANTICS.md, "Accelerator classes").
    pub(crate) constraints: Option<Constraints>,
    /// Where `acceleratorClass` is written.
    pub(crate) class_pos: Option<Pos>,
}

/// `spec.acceleratorSelector.constraints`, with absent fields as `None` or empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Constraints {
    /// `minMemory`, in whole GB.
    pub(crate) min_memory_gb: Option<i64>,
    pub(crate) max_memory_gb: Option<i64>,
    pub(crate) min_tflops: Option<i64>,
    pub(crate) min_architecture_version: Option<String>,
    pub(crate) required_features: Vec<String>,
    pub(crate) excluded_classes: Vec<String>,
    pub(crate) architecture_families: Vec<String>,
    pub(crate) preferred_precisions: Vec<String>,
}

impl Constraints {
    pub(crate) fn read(r: &mut Reader<'_>, parent: &Node, path: &str) -> Option<Constraints> {
        let node = r.map(parent, "constraints", path)?;
        let path = join(path, "constraints");
        let strings =
            |r: &mut Reader<'_>, key: &str| r.strings(node, key, &path).unwrap_or_default();
        Some(Constraints {
            min_memory_gb: r.int(node, "minMemory", &path),
            max_memory_gb: r.int(node, "maxMemory", &path),
            min_tflops: r.int(node, "minComputePerformanceTFLOPS", &path),
            min_architecture_version: r.str(node, "minArchitectureVersion", &path),
            required_features: strings(r, "requiredFeatures"),
            excluded_classes: strings(r, "excludedClasses"),
            architecture_families: strings(r, "architectureFamilies"),
            preferred_precisions: strings(r, "preferredPrecisions"),
        })
    }
}

impl AcceleratorSelector {
    /// `parent.key` as a selector; `constraints` only when `with_constraints`.
    pub(crate) fn read(
        r: &mut Reader<'_>,
        parent: &Node,
        key: &str,
        path: &str,
        with_constraints: bool,
    ) -> Option<AcceleratorSelector> {
        let node = r.map(parent, key, path)?;
        let path = join(path, key);
        Some(AcceleratorSelector {
            accelerator_class: r.str(node, "acceleratorClass", &path),
            policy: r.str(node, "policy", &path),
            constraints: if with_constraints {
                Constraints::read(r, node, &path)
            } else {
                None
            },
            class_pos: node.get("acceleratorClass").map(|n| n.pos),
        })
    }
}

/// The annotation that names an accelerator class for the whole InferenceService.
pub(crate) const ACCELERATOR_CLASS_ANNOTATION: &str = "ome.io/accelerator-class";

impl InferenceService {
    pub(crate) fn read(
        obj: &Object,
        default_namespace: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> InferenceService {
        let object = obj.written_id();
        let mut r = Reader {
            object: &object,
            diags,
        };
        let empty = Node::map(Map::new());
        let spec = r.map(&obj.root, "spec", "").unwrap_or(&empty);
        let labels = string_map(&mut r, &obj.root, "labels");
        let annotations = string_map(&mut r, &obj.root, "annotations");
        let model = r.map(spec, "model", "spec").map(|m| {
            // `kind` is checked for its type; the lookup doesn't use it (SEMANTICS.md, "Models").
            r.str(m, "kind", "spec.model");
            let overlays = r
                .seq(m, "overlays", "spec.model")
                .unwrap_or(&[])
                .iter()
                .enumerate()
                .filter_map(|(i, o)| {
                    let path = format!("spec.model.overlays[{i}]");
                    if o.as_map().is_none() {
                        r.invalid(o, &path, "a map");
                        return None;
                    }
                    Some(OverlayRef {
                        name: r.str(o, "name", &path).unwrap_or_default(),
                        kind: r.str(o, "kind", &path),
                        api_group: r.str(o, "apiGroup", &path),
                        pos: o.pos,
                    })
                })
                .collect();
            ModelRef {
                name: r.str(m, "name", "spec.model").unwrap_or_default(),
                pos: m.get("name").map_or(m.pos, |n| n.pos),
                overlays,
            }
        });
        let runtime = r.map(spec, "runtime", "spec").map(|m| RuntimeRef {
            name: r.str(m, "name", "spec.runtime").unwrap_or_default(),
            kind: r.str(m, "kind", "spec.runtime"),
            auto_sync: r.bool(m, "autoSync", "spec.runtime"),
            revision: r
                .str(m, "revision", "spec.runtime")
                .filter(|v| !v.is_empty()),
            revision_pos: m.get("revision").map(|n| n.pos),
            pos: m.get("name").map_or(m.pos, |n| n.pos),
        });
        // Checked for its type; no controller acts on it.
        r.map(spec, "scalingPolicy", "spec");
        let mut component = |role: Role| r.map(spec, role.as_str(), "spec").cloned();
        let (engine, decoder, router) = (
            component(Role::Engine),
            component(Role::Decoder),
            component(Role::Router),
        );
        let traffic = r.map(spec, "traffic", "spec").cloned();
        let mut accelerator_override = |c: Option<&Node>, path: &str| {
            c.and_then(|c| AcceleratorSelector::read(&mut r, c, "acceleratorOverride", path, false))
        };
        let engine_override = accelerator_override(engine.as_ref(), "spec.engine");
        let decoder_override = accelerator_override(decoder.as_ref(), "spec.decoder");
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
                true,
            ),
            engine_override,
            decoder_override,
            deployment_mode: r.str(spec, "deploymentMode", "spec"),
            model,
            runtime,
            engine,
            decoder,
            router,
            traffic,
            object,
            admission: Vec::new(),
            namespace_refused: false,
        }
    }

    /// The InferenceService's own component tree.
    pub(crate) fn component(&self, role: Role) -> Option<&Node> {
        match role {
            Role::Engine => self.engine.as_ref(),
            Role::Decoder => self.decoder.as_ref(),
            Role::Router => self.router.as_ref(),
        }
    }

    /// The component's `acceleratorOverride`; the router has none.
    pub(crate) fn accelerator_override(&self, role: Role) -> Option<&AcceleratorSelector> {
        match role {
            Role::Engine => self.engine_override.as_ref(),
            Role::Decoder => self.decoder_override.as_ref(),
            Role::Router => None,
        }
    }

    pub(crate) fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations.get(key).and_then(Node::as_str)
    }

    /// The accelerator classes the InferenceService names, in the order selection checks them:
    /// the `ome.io/accelerator-class` annotation (when the key is present, even if empty),
    /// `spec.acceleratorSelector.acceleratorClass`, then the engine's and the decoder's
    /// `acceleratorOverride.acceleratorClass`; without duplicates.
    pub(crate) fn required_accelerator_classes(&self) -> Vec<String> {
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
        for role in [Role::Engine, Role::Decoder] {
            add(self
                .accelerator_override(role)
                .and_then(|o| o.accelerator_class.as_deref()));
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
