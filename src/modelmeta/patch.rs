//! The metadata as spec fields: the `spec:` patch OME's agent applies, and applying it to
//! a manifest's spec the way the agent updates a BaseModel, without replacing what the
//! manifest sets.

use super::{ModelMetadata, Pipeline, SKIP_ANNOTATION, Versioned};
use crate::map;
use crate::yaml::{Map, Node};

fn versioned(v: &Versioned) -> Node {
    let mut m = map! { "name" => Node::str(v.name.clone()) };
    if let Some(version) = &v.version {
        m.insert("version", Node::str(version.clone()));
    }
    Node::map(m)
}

fn component(c: &super::Component) -> Node {
    let mut m = Map::new();
    if !c.library.is_empty() {
        m.insert("library", Node::str(c.library.clone()));
    }
    if !c.class.is_empty() {
        m.insert("type", Node::str(c.class.clone()));
    }
    Node::map(m)
}

fn pipeline(p: &Pipeline) -> Node {
    let mut m = Map::new();
    if !p.class_name.is_empty() {
        m.insert("className", Node::str(p.class_name.clone()));
    }
    for (key, c) in [
        ("scheduler", &p.scheduler),
        ("textEncoder", &p.text_encoder),
        ("tokenizer", &p.tokenizer),
        ("transformer", &p.transformer),
        ("vae", &p.vae),
    ] {
        if let Some(c) = c {
            m.insert(key, component(c));
        }
    }
    if !p.additional.is_empty() {
        let extra: Map = p
            .additional
            .iter()
            .map(|(k, c)| (k.clone(), component(c)))
            .collect();
        m.insert("additionalComponents", Node::map(extra));
    }
    Node::map(m)
}

fn configuration(meta: &ModelMetadata) -> Node {
    let c = &meta.configuration;
    Node::map(map! {
        "model_type" => Node::str(c.model_type.clone()),
        "architecture" => Node::str(c.architecture.clone()),
        "context_length" => Node::int(c.context_length),
        "parameter_count" => Node::str(c.parameter_count.clone()),
        "has_vision" => Node::bool(c.has_vision),
        "is_embedding" => Node::bool(c.is_embedding),
        "transformers_version" => Node::str(c.transformers_version.clone()),
        "torch_dtype" => Node::str(c.torch_dtype.clone()),
        "model_size_bytes" => Node::int(c.model_size_bytes),
    })
}

fn capabilities(meta: &ModelMetadata) -> Node {
    Node::seq(meta.capabilities.iter().cloned().map(Node::str).collect())
}

/// The spec fields, in the order OME's API types serialise them.
fn spec(meta: &ModelMetadata) -> Map {
    let mut m = map! {
        "modelFormat" => versioned(&meta.format),
        "modelType" => Node::str(meta.model_type.clone()),
        "modelFramework" => versioned(&meta.framework),
        "modelArchitecture" => Node::str(meta.architecture.clone()),
    };
    if let Some(q) = &meta.quantization {
        m.insert("quantization", Node::str(q.clone()));
    }
    m.insert("modelParameterSize", Node::str(meta.parameter_size.clone()));
    m.insert("modelCapabilities", capabilities(meta));
    m.insert("modelConfiguration", configuration(meta));
    if let Some(t) = meta.max_tokens {
        m.insert("maxTokens", Node::int(i64::from(t)));
    }
    if let Some(p) = &meta.diffusion {
        m.insert("diffusionPipeline", pipeline(p));
    }
    m
}

/// The patch `{spec: {...}}` with every field OME's agent writes for this model.
pub(crate) fn patch(meta: &ModelMetadata) -> Node {
    Node::map(map! { "spec" => Node::map(spec(meta)) })
}

/// [`patch`] as a YAML document.
#[cfg(test)]
pub(crate) fn patch_yaml(meta: &ModelMetadata) -> String {
    crate::yaml::emit::to_yaml_string(&patch(meta))
}

fn unset(spec: &Map, key: &str) -> bool {
    spec.get(key).is_none_or(Node::is_null)
}

/// The spec fields OME's agent writes, in the order it updates a BaseModel
/// (`updateModelSpec`; `apiCapabilities`, which it also updates, the parser never sets).
const FILL_ORDER: [&str; 10] = [
    "modelType",
    "modelArchitecture",
    "modelFramework",
    "modelFormat",
    "modelParameterSize",
    "maxTokens",
    "modelCapabilities",
    "quantization",
    "modelConfiguration",
    "diffusionPipeline",
];

/// Applies the metadata to a BaseModel's or ClusterBaseModel's `spec`, returning the fields
/// it set, in OME's order. A field is filled only when the spec doesn't have it (absent or
/// `null`): whatever the manifest says is kept as written, also where OME's agent would
/// replace it (a `modelFormat` without a name, an empty `modelCapabilities`, a
/// `modelConfiguration` that differs; SEMANTICS.md#choice-model-metadata-fill).
pub(crate) fn fill_spec(spec: &mut Map, meta: &ModelMetadata) -> Vec<&'static str> {
    let ours = self::spec(meta);
    let mut filled = Vec::new();
    for key in FILL_ORDER {
        if unset(spec, key)
            && let Some(v) = ours.get(key)
        {
            spec.insert(key, v.clone());
            filled.push(key);
        }
    }
    filled
}

/// Whether a model manifest (its root node) carries OME's opt-out annotation with the value
/// `true` in any case. A non-string value (which the API server refuses) does not count.
pub(crate) fn skips_config_parsing(object: &Node) -> bool {
    object
        .at(&["metadata", "annotations", SKIP_ANNOTATION])
        .and_then(Node::as_str)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}
