//! The metadata as spec fields: the `spec:` patch OME's agent applies, and applying it to
//! a manifest's spec the way the agent updates a BaseModel (only fields it may fill).

use super::{ModelMetadata, Pipeline, SKIP_ANNOTATION, Versioned};
use crate::map;
use crate::yaml::emit::to_yaml_string;
use crate::yaml::{Map, Node, Value};

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
pub(crate) fn patch_yaml(meta: &ModelMetadata) -> String {
    to_yaml_string(&patch(meta))
}

fn unset(spec: &Map, key: &str) -> bool {
    spec.get(key).is_none_or(Node::is_null)
}

/// Applies the metadata to a BaseModel's or ClusterBaseModel's `spec` as OME's agent does
/// (`updateModelSpec`), returning the fields it set, in OME's order:
///
/// - `modelType`, `modelArchitecture`, `modelFramework`, `modelParameterSize`,
///   `quantization`, `diffusionPipeline` and `maxTokens` only when absent (or `null`);
/// - `modelFormat` when it has no `name`;
/// - `modelCapabilities` when absent or empty;
/// - `modelConfiguration` whenever it differs from OME's summary: the agent rewrites it.
pub(crate) fn fill_spec(spec: &mut Map, meta: &ModelMetadata) -> Vec<&'static str> {
    let ours = self::spec(meta);
    let mut filled = Vec::new();
    let mut set = |spec: &mut Map, key: &'static str, when: bool| {
        if when && let Some(v) = ours.get(key) {
            spec.insert(key, v.clone());
            filled.push(key);
        }
    };
    for key in ["modelType", "modelArchitecture", "modelFramework"] {
        let when = unset(spec, key);
        set(spec, key, when);
    }
    let format_named = spec
        .get("modelFormat")
        .and_then(|f| f.get("name"))
        .and_then(Node::as_str)
        .is_some_and(|n| !n.is_empty());
    set(spec, "modelFormat", !format_named);
    let when = unset(spec, "modelParameterSize");
    set(spec, "modelParameterSize", when);
    let when = unset(spec, "maxTokens");
    set(spec, "maxTokens", when);
    let caps_empty = match spec.get("modelCapabilities").map(|n| &n.value) {
        None | Some(Value::Null) => true,
        Some(Value::Seq(items)) => items.is_empty(),
        Some(_) => false,
    };
    set(spec, "modelCapabilities", caps_empty);
    let when = unset(spec, "quantization");
    set(spec, "quantization", when);
    let differs = !spec
        .get("modelConfiguration")
        .zip(ours.get("modelConfiguration"))
        .is_some_and(|(a, b)| same_value(a, b));
    set(spec, "modelConfiguration", differs);
    let when = unset(spec, "diffusionPipeline");
    set(spec, "diffusionPipeline", when);
    filled
}

/// Equality of values, ignoring positions (maps in order, as OME compares bytes).
fn same_value(a: &Node, b: &Node) -> bool {
    match (&a.value, &b.value) {
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, a), (kb, b))| ka == kb && same_value(a, b))
        }
        (x, y) => x == y,
    }
}

/// Whether a model manifest (its root node) carries OME's opt-out annotation with the value
/// `true` in any case. A non-string value (which the API server refuses) does not count.
pub(crate) fn skips_config_parsing(object: &Node) -> bool {
    object
        .at(&["metadata", "annotations", SKIP_ANNOTATION])
        .and_then(Node::as_str)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}
