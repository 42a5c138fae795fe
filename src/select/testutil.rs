//! Test inputs for the selection tables: models, runtimes and InferenceServices read from small
//! YAML snippets through the real readers, so the CRD defaults apply as they do in the tool.

use super::auto::{Candidate, RuntimeIndex};
use crate::k8s::id::ObjectId;
use crate::load::Object;
use crate::model::{BaseModel, InferenceService, RuntimeSpec, Scope};
use crate::yaml::parse::parse_stream;
use crate::yaml::{Node, Pos};

/// One YAML document as a tree.
pub(crate) fn yaml(text: &str) -> Node {
    let mut docs =
        parse_stream(text, 0).unwrap_or_else(|e| panic!("bad test YAML {text:?}: {e:?}"));
    assert_eq!(docs.len(), 1, "one document expected in {text:?}");
    docs.remove(0).root
}

fn object(kind: &str, mut root: Node) -> Object {
    let meta = root.get("metadata");
    let name = meta
        .and_then(|m| m.get("name"))
        .and_then(Node::as_str)
        .unwrap_or("test")
        .to_string();
    let namespace = meta
        .and_then(|m| m.get("namespace"))
        .and_then(Node::as_str)
        .map(str::to_string);
    if let Some(map) = root.as_map_mut() {
        map.insert("apiVersion", Node::str("ome.io/v1beta1"));
        map.insert("kind", Node::str(kind));
    }
    Object {
        api_version: "ome.io/v1beta1".to_string(),
        kind: kind.to_string(),
        name,
        namespace,
        root,
        doc_index: 0,
    }
}

/// A runtime `spec` from its YAML; the reader must accept it without diagnostics.
pub(crate) fn runtime_spec(text: &str) -> RuntimeSpec {
    let object = ObjectId {
        kind: "ClusterServingRuntime".to_string(),
        namespace: String::new(),
        name: "test".to_string(),
        group: String::new(),
    };
    let mut diags = Vec::new();
    let spec = RuntimeSpec::read(&yaml(text), &object, &mut diags);
    assert!(diags.is_empty(), "{text}: {diags:?}");
    spec
}

/// A ClusterBaseModel named `model` with the given `spec`.
pub(crate) fn model(spec: &str) -> BaseModel {
    named_model("model", spec)
}

pub(crate) fn named_model(name: &str, spec: &str) -> BaseModel {
    let root = yaml(&format!("{{metadata: {{name: {name}}}, spec: {spec}}}"));
    let mut diags = Vec::new();
    let model = BaseModel::read(&object("ClusterBaseModel", root), None, &mut diags);
    assert!(diags.is_empty(), "{spec}: {diags:?}");
    model
}

/// An InferenceService from an object without `apiVersion` and `kind` (`{metadata: …,
/// spec: …}`); the default namespace is `default`.
pub(crate) fn isvc(text: &str) -> InferenceService {
    let mut diags = Vec::new();
    let isvc = InferenceService::read(
        &object("InferenceService", yaml(text)),
        "default",
        &mut diags,
    );
    assert!(diags.is_empty(), "{text}: {diags:?}");
    isvc
}

/// Runtimes that own their specs, for building a [`RuntimeIndex`].
pub(crate) struct Runtimes {
    list: Vec<(String, Scope, String, RuntimeSpec)>,
}

/// Runtimes from `(label, spec)` pairs. Labels: `NS/name` is a ServingRuntime in `namespace`,
/// `NS:other/name` one in `other`, `CL/name` a ClusterServingRuntime. Each runtime's
/// position is line `i + 1` of file 0.
pub(crate) fn runtimes(namespace: &str, list: &[(&str, &str)]) -> Runtimes {
    let list = list
        .iter()
        .map(|(label, spec)| {
            let (prefix, name) = label
                .split_once('/')
                .unwrap_or_else(|| panic!("bad label {label}"));
            let (scope, ns) = match prefix {
                "CL" => (Scope::Cluster, ""),
                "NS" => (Scope::Namespaced, namespace),
                other => match other.strip_prefix("NS:") {
                    Some(ns) => (Scope::Namespaced, ns),
                    None => panic!("bad label {label}"),
                },
            };
            (name.to_string(), scope, ns.to_string(), runtime_spec(spec))
        })
        .collect();
    Runtimes { list }
}

impl Runtimes {
    pub(crate) fn index(&self) -> RuntimeIndex<'_> {
        RuntimeIndex::new(self.list.iter().enumerate().map(
            |(i, (name, scope, namespace, spec))| Candidate {
                name,
                scope: *scope,
                namespace,
                spec,
                pos: Pos {
                    file: 0,
                    line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    col: 0,
                },
            },
        ))
    }
}

/// The model of the docs' scoring page (R10).
pub(crate) fn r10_model() -> BaseModel {
    named_model(
        "llama-3-2-3b-instruct",
        "{modelFormat: {name: safetensors, version: '1.0.0'}, modelFramework: {name: transformers, version: 4.45.0.dev0},
          modelArchitecture: LlamaForCausalLM, modelParameterSize: 3.21B}",
    )
}

/// An entry matching [`r10_model`]: `format_weight` is `""` or `", weight: N"`.
pub(crate) fn r10_entry(format_weight: &str, auto_select: &str, priority: u32) -> String {
    format!(
        "{{modelFormat: {{name: safetensors, version: '1.0.0'{format_weight}}},
           modelFramework: {{name: transformers, version: 4.45.0.dev0}},
           modelArchitecture: LlamaForCausalLM, autoSelect: {auto_select}, priority: {priority}}}"
    )
}

/// R10's runtimes in `llama-demo`: `NS/team-llama` (optional), `CL/vllm-llama`,
/// `CL/srt-llama-small` (priority `small_priority`), `CL/srt-llama-large`.
pub(crate) fn r10_runtimes(small_priority: u32, with_team: bool) -> Runtimes {
    let mut list = vec![
        (
            "CL/vllm-llama".to_string(),
            format!(
                "{{supportedModelFormats: [{}]}}",
                r10_entry(", weight: 2", "true", 2)
            ),
        ),
        (
            "CL/srt-llama-small".to_string(),
            format!(
                "{{supportedModelFormats: [{}], modelSizeRange: {{min: 1B, max: 8B}}}}",
                r10_entry("", "true", small_priority)
            ),
        ),
        (
            "CL/srt-llama-large".to_string(),
            format!(
                "{{supportedModelFormats: [{}], modelSizeRange: {{min: 1B, max: 70B}}}}",
                r10_entry("", "true", 3)
            ),
        ),
    ];
    if with_team {
        list.push((
            "NS/team-llama".to_string(),
            format!("{{supportedModelFormats: [{}]}}", r10_entry("", "true", 1)),
        ));
    }
    let borrowed: Vec<(&str, &str)> = list.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    runtimes("llama-demo", &borrowed)
}
