//! Typed views of the OME resources, read from the loaded objects.
//!
//! Each view keeps only what selection and rendering decide on, with the CRD defaults
//! applied (an absent `weight` is 1, an absent `operator` is `Equal`). The parts that are
//! merged and copied into the output (`engineConfig`, the InferenceService's `engine`, …)
//! stay [`Node`](crate::yaml::Node) trees. Reading a view reports wrong types as
//! diagnostics and never fails as a whole.

pub(crate) mod accelerator_class;
pub(crate) mod base_model;
pub(crate) mod component;
pub(crate) mod fields;
pub(crate) mod inference_service;
pub(crate) mod int_or_str;
pub(crate) mod runtime;
pub(crate) mod schema;
pub(crate) mod settings;
pub(crate) mod version;

pub(crate) use accelerator_class::AcceleratorClass;
pub(crate) use base_model::BaseModel;
pub(crate) use component::{DeploymentMode, Role};
pub(crate) use inference_service::InferenceService;
pub(crate) use runtime::{Runtime, RuntimeSpec, Scope, SupportedFormat};
pub(crate) use settings::Settings;

use crate::yaml::{Node, Pos};
use fields::{Reader, join};
use std::collections::BTreeMap;

/// `modelFormat` or `modelFramework`, on a runtime entry or a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FormatRef {
    pub(crate) name: String,
    pub(crate) version: Option<String>,
    /// `version` parsed once; `None` when absent or when OME's parser refuses it.
    pub(crate) parsed_version: Option<version::Version>,
    /// `Equal` (the CRD default), `GreaterThan`, `GreaterThanOrEqual`, or whatever was written.
    pub(crate) operator: String,
    /// The CRD default is 1 when absent; an explicit 0 stays 0.
    pub(crate) weight: i64,
}

impl FormatRef {
    pub(crate) fn read(
        r: &mut Reader<'_>,
        parent: &Node,
        key: &str,
        path: &str,
    ) -> Option<FormatRef> {
        let node = r.map(parent, key, path)?;
        let path = join(path, key);
        let version = r.str(node, "version", &path);
        Some(FormatRef {
            name: r.str(node, "name", &path).unwrap_or_default(),
            parsed_version: version.as_deref().and_then(version::Version::parse),
            version,
            operator: r
                .str(node, "operator", &path)
                .unwrap_or_else(|| "Equal".to_string()),
            weight: r.int(node, "weight", &path).unwrap_or(1),
        })
    }
}

/// One component of a diffusion pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct DiffusionComponent {
    pub(crate) library: Option<String>,
    pub(crate) type_: Option<String>,
}

/// `diffusionPipeline`, on a runtime entry or a model.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct DiffusionPipeline {
    pub(crate) class_name: Option<String>,
    /// `scheduler`, `textEncoder`, `tokenizer`, `transformer`, `vae`, in that order; `None`
    /// when the component is not set.
    pub(crate) components: [(&'static str, Option<DiffusionComponent>); 5],
    /// `additionalComponents`, by key; `None` when absent.
    pub(crate) additional: Option<BTreeMap<String, DiffusionComponent>>,
}

pub(crate) const DIFFUSION_COMPONENTS: [&str; 5] = [
    "scheduler",
    "textEncoder",
    "tokenizer",
    "transformer",
    "vae",
];

impl DiffusionPipeline {
    pub(crate) fn read(r: &mut Reader<'_>, parent: &Node, path: &str) -> Option<DiffusionPipeline> {
        let node = r.map(parent, "diffusionPipeline", path)?;
        let path = join(path, "diffusionPipeline");
        let read_component = |r: &mut Reader<'_>, n: &Node, p: &str| DiffusionComponent {
            library: r.str(n, "library", p),
            type_: r.str(n, "type", p),
        };
        let components = DIFFUSION_COMPONENTS.map(|name| {
            let c = r
                .map(node, name, &path)
                .map(|n| read_component(r, n, &join(&path, name)));
            (name, c)
        });
        let additional = r.map(node, "additionalComponents", &path).map(|n| {
            let p = join(&path, "additionalComponents");
            n.as_map()
                .into_iter()
                .flat_map(|m| m.iter())
                .filter_map(|(k, v)| {
                    if v.as_map().is_some() {
                        Some((k.to_string(), read_component(r, v, &join(&p, k))))
                    } else if v.is_null() {
                        Some((k.to_string(), DiffusionComponent::default()))
                    } else {
                        r.invalid(v, &join(&p, k), "a map");
                        None
                    }
                })
                .collect()
        });
        Some(DiffusionPipeline {
            class_name: r.str(node, "className", &path),
            components,
            additional,
        })
    }
}

/// Position of an object's `metadata.name`, or of the object.
pub(crate) fn name_pos(root: &Node) -> Pos {
    root.at(&["metadata", "name"]).map_or(root.pos, |n| n.pos)
}
