//! Engine presets (OME v1.3): a runtime annotated `ome.io/engine: sglang-pd` gets an SGLang
//! prefill-decode engine, decoder and router filled in wherever its spec leaves fields unset.
//!
//! In a cluster a mutating webhook stores the filled-in spec when the runtime is applied; here
//! the preset is laid under the runtime's spec as it is loaded, with the strategic merge the
//! runtime wins (so a runtime's `command` replaces the preset's whole, and its env and ports
//! merge by name and port). The preset annotation is metadata, so children that inherit from
//! the runtime inherit the filled-in spec, not the annotation.

use crate::diagnostics::{Code, Diagnostic};
use crate::load::Object;
use crate::merge::strategic;
use crate::yaml::parse::parse_stream;
use crate::yaml::{Node, Pos, Value};
use std::sync::OnceLock;

pub(crate) const ENGINE_ANNOTATION: &str = "ome.io/engine";

/// The `sglang-pd` preset's spec. Images use `latest`, as OME's do; the docs tell users to set
/// their own.
const SGLANG_PD: &str = r#"
engineConfig:
  runner:
    name: ome-container
    image: lmsysorg/sglang:latest
    command: [python3, -m, sglang.launch_server, --host, 0.0.0.0, --port, "30000", --model-path, $(MODEL_PATH), --disaggregation-mode, prefill, --disaggregation-transfer-backend, nixl, --disaggregation-bootstrap-port, "8998"]
    ports:
      - {containerPort: 30000, name: http, protocol: TCP}
      - {containerPort: 8998, name: bootstrap, protocol: TCP}
    env:
      - {name: PYTHONUNBUFFERED, value: "1"}
      - name: SGLANG_HOST_IP
        valueFrom: {fieldRef: {fieldPath: status.podIP}}
    readinessProbe:
      httpGet: {path: /health, port: 30000}
      failureThreshold: 5
      periodSeconds: 30
      timeoutSeconds: 10
    livenessProbe:
      httpGet: {path: /health, port: 30000}
      failureThreshold: 5
      periodSeconds: 60
      timeoutSeconds: 10
decoderConfig:
  runner:
    name: ome-container
    image: lmsysorg/sglang:latest
    command: [python3, -m, sglang.launch_server, --host, 0.0.0.0, --port, "30000", --model-path, $(MODEL_PATH), --disaggregation-mode, decode, --disaggregation-transfer-backend, nixl]
    ports:
      - {containerPort: 30000, name: http, protocol: TCP}
    env:
      - {name: PYTHONUNBUFFERED, value: "1"}
      - name: SGLANG_HOST_IP
        valueFrom: {fieldRef: {fieldPath: status.podIP}}
    readinessProbe:
      httpGet: {path: /health, port: 30000}
      failureThreshold: 5
      periodSeconds: 30
      timeoutSeconds: 10
    livenessProbe:
      httpGet: {path: /health, port: 30000}
      failureThreshold: 5
      periodSeconds: 60
      timeoutSeconds: 10
routerConfig:
  runner:
    name: router
    image: lmsysorg/sglang-router:latest
    args: [--port, "30080", --k8s-namespace, $(NAMESPACE), --prefill-label-selector, "component=engine,ome.io/inferenceservice=$(INFERENCESERVICE_NAME)", --decode-label-selector, "component=decoder,ome.io/inferenceservice=$(INFERENCESERVICE_NAME)", --k8s-engine-port, "30000", --bootstrap-port, "8998"]
    env:
      - name: NAMESPACE
        valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
      - name: INFERENCESERVICE_NAME
        valueFrom: {fieldRef: {fieldPath: "metadata.labels['ome.io/inferenceservice']"}}
    ports:
      - {containerPort: 30080, name: http, protocol: TCP}
    readinessProbe:
      httpGet: {path: /readiness, port: 30080}
      failureThreshold: 5
      periodSeconds: 30
      timeoutSeconds: 10
    livenessProbe:
      httpGet: {path: /liveness, port: 30080}
      failureThreshold: 5
      periodSeconds: 30
      timeoutSeconds: 10
"#;

fn sglang_pd() -> &'static Node {
    static PRESET: OnceLock<Node> = OnceLock::new();
    PRESET.get_or_init(|| {
        let mut node = parse_stream(SGLANG_PD, u32::MAX)
            .ok()
            .and_then(|mut docs| docs.pop())
            .map(|d| d.root)
            .unwrap_or_else(|| Node::made(Value::Null));
        forget_positions(&mut node);
        node
    })
}

/// Preset nodes are ome-render's own, with no place in the inputs.
fn forget_positions(node: &mut Node) {
    node.pos = Pos::NONE;
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(forget_positions),
        Value::Map(m) => m.iter_mut().for_each(|(_, v)| forget_positions(v)),
        _ => {}
    }
}

/// Fills in the preset a runtime names, if any. An unknown preset is an error, as OME's
/// webhook denies the runtime.
pub(crate) fn apply(obj: &mut Object, diags: &mut Vec<Diagnostic>) {
    let Some(engine) = obj
        .root
        .at(&["metadata", "annotations", ENGINE_ANNOTATION])
        .and_then(Node::as_str)
        .filter(|e| !e.is_empty())
        .map(str::to_string)
    else {
        return;
    };
    let preset = match engine.as_str() {
        "sglang-pd" => sglang_pd(),
        other => {
            let pos = obj
                .root
                .at(&["metadata", "annotations", ENGINE_ANNOTATION])
                .map_or(obj.pos(), |n| n.pos);
            diags.push(
                Diagnostic::error(
                    Code::InvalidField,
                    format!("unknown ome.io/engine value \"{other}\" (known: sglang-pd)"),
                )
                .at(pos)
                .object(obj.written_id())
                .field("metadata.annotations.ome.io/engine")
                .help("use `ome.io/engine: sglang-pd`, or remove the annotation and write the runtime's configs yourself"),
            );
            return;
        }
    };
    let object = obj.written_id();
    let Some(root) = obj.root.as_map_mut() else {
        return;
    };
    let spec = root
        .get("spec")
        .filter(|s| s.as_map().is_some())
        .cloned()
        .unwrap_or_else(|| Node::map(Default::default()));
    let mut conflicts = Vec::new();
    let merged = strategic::merge(preset, &spec, &mut conflicts);
    for c in conflicts {
        diags.push(
            Diagnostic::error(Code::InvalidMerge, c.message)
                .at(c.patch)
                .object(object.clone())
                .field(format!("spec.{}", c.path))
                .help(
                    "the sglang-pd preset sets this field differently; set the same kind of value",
                ),
        );
    }
    root.insert("spec", merged);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::emit::to_json_string;

    fn object(text: &str) -> Object {
        let root = parse_stream(text, 0).unwrap().remove(0).root;
        Object {
            api_version: "ome.io/v1beta1".into(),
            kind: "ClusterServingRuntime".into(),
            name: "pd".into(),
            namespace: None,
            root,
            doc_index: 0,
        }
    }

    /// Images set by the runtime, the rest from the preset.
    #[test]
    fn fills_unset_fields() {
        let mut obj = object(
            "metadata: {name: pd, annotations: {ome.io/engine: sglang-pd}}\nspec:\n  engineConfig: {runner: {image: X}}\n  decoderConfig: {runner: {image: X}}\n  routerConfig: {runner: {image: Y}}\n",
        );
        let mut diags = Vec::new();
        apply(&mut obj, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        let runner = |c: &str| obj.root.at(&["spec", c, "runner"]).unwrap().clone();
        let engine = runner("engineConfig");
        assert_eq!(engine.str_at(&["name"]), Some("ome-container"));
        assert_eq!(engine.str_at(&["image"]), Some("X"));
        assert!(
            to_json_string(engine.get("command").unwrap())
                .contains("\"--disaggregation-bootstrap-port\",\"8998\"")
        );
        assert_eq!(engine.get("ports").unwrap().as_seq().unwrap().len(), 2);
        let decoder = runner("decoderConfig");
        assert!(to_json_string(decoder.get("command").unwrap()).contains("\"decode\""));
        assert!(!to_json_string(&decoder).contains("8998"));
        let router = runner("routerConfig");
        assert_eq!(router.str_at(&["name"]), Some("router"));
        assert_eq!(router.str_at(&["image"]), Some("Y"));
        assert_eq!(
            router
                .at(&["readinessProbe", "httpGet", "path"])
                .and_then(Node::as_str),
            Some("/readiness")
        );
    }

    /// A runtime's own `command` replaces the preset's whole (SEMANTICS.md#runtimes).
    #[test]
    fn a_runtime_command_replaces_the_presets() {
        let mut obj = object(
            "metadata: {name: pd, annotations: {ome.io/engine: sglang-pd}}\nspec:\n  engineConfig: {runner: {image: X, command: [python3, -m, sglang.launch_server, --port, \"9000\"]}}\n",
        );
        apply(&mut obj, &mut Vec::new());
        let command = obj
            .root
            .at(&["spec", "engineConfig", "runner", "command"])
            .unwrap();
        assert_eq!(
            to_json_string(command),
            r#"["python3","-m","sglang.launch_server","--port","9000"]"#
        );
        assert!(
            obj.root
                .at(&["spec", "engineConfig", "runner", "env"])
                .is_some()
        );
    }

    /// An unknown `ome.io/engine` preset is an error; an empty one is no preset
    /// (SEMANTICS.md#runtimes).
    #[test]
    fn unknown_presets_are_errors_and_empty_is_nothing() {
        let mut obj =
            object("metadata: {name: pd, annotations: {ome.io/engine: vllm-pd}}\nspec: {}\n");
        let mut diags = Vec::new();
        apply(&mut obj, &mut diags);
        assert_eq!(
            diags[0].message,
            "unknown ome.io/engine value \"vllm-pd\" (known: sglang-pd)"
        );
        let mut obj =
            object("metadata: {name: pd, annotations: {ome.io/engine: \"\"}}\nspec: {}\n");
        let before = obj.root.clone();
        apply(&mut obj, &mut Vec::new());
        assert_eq!(obj.root, before);
    }
}
