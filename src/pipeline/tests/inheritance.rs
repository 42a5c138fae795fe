//! Runtime inheritance end to end: each rule of SEMANTICS.md#runtimes (chains, lookups,
//! cycles, depth, profiles, merges), with OME's exact texts.

use crate::pipeline::{Options, Rendering, render_texts};
use crate::yaml::Node;

fn render(files: &[(&str, &str)]) -> Rendering {
    let options = Options {
        namespace: "default".into(),
        allow_empty: true,
        ..Options::default()
    };
    render_texts(files, &options)
}

fn messages(r: &Rendering) -> Vec<String> {
    r.diags
        .iter()
        .map(|d| format!("{:?}: {}", d.severity, d.message))
        .collect()
}

fn errors(r: &Rendering) -> Vec<String> {
    r.diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.clone())
        .collect()
}

fn container(r: &Rendering) -> &Node {
    let d = r
        .objects
        .iter()
        .find(|o| o.kind == "Deployment")
        .and_then(|o| o.tree())
        .unwrap_or_else(|| panic!("a Deployment: {:?}", messages(r)));
    &d.at(&["spec", "template", "spec", "containers"])
        .and_then(Node::as_seq)
        .unwrap()[0]
}

fn json(n: Option<&Node>) -> String {
    n.map_or("-".to_string(), crate::yaml::emit::to_json_string)
}

const MODEL: &str = r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: llama-3-2-3b-instruct}
spec:
  modelFormat: {name: safetensors, version: "1.0.0"}
  modelFramework: {name: transformers, version: "4.45.0.dev0"}
  modelArchitecture: LlamaForCausalLM
  modelParameterSize: 3.21B
  storage: {storageUri: "hf://meta-llama/Llama-3.2-3B-Instruct", path: /raid/models/llama}
"#;

/// The docs' profile (`sglang-profile`, a ClusterServingRuntime).
const PROFILE: &str = r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: sglang-profile
  annotations: {ome.io/runtime-profile: "true"}
spec:
  disabled: true
  engineConfig:
    tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
    volumes: [{name: dshm, emptyDir: {medium: Memory}}]
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64
      command: [python3, -m, sglang.launch_server, --host=0.0.0.0, --port=8080, "--model-path=$(MODEL_PATH)", "--served-model-name={{.Name}}"]
      ports: [{containerPort: 8080, name: http1, protocol: TCP}]
      volumeMounts: [{name: dshm, mountPath: /dev/shm}]
      readinessProbe: {httpGet: {path: /health_generate, port: 8080}, periodSeconds: 60, timeoutSeconds: 200}
      startupProbe: {httpGet: {path: /health_generate, port: 8080}, initialDelaySeconds: 60, periodSeconds: 6, timeoutSeconds: 30, failureThreshold: 150}
"#;

/// The docs' child, with `extra` spliced into its spec.
fn child(extra: &str) -> String {
    format!(
        r#"apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: sglang-llama-3-2-3b
  namespace: llama-demo
  annotations: {{ome.io/inherit-from: sglang-profile}}
spec:
  supportedModelFormats:
    - modelFormat: {{name: safetensors, version: "1.0.0"}}
      modelFramework: {{name: transformers, version: "4.45.0.dev0"}}
      modelArchitecture: LlamaForCausalLM
      autoSelect: false
  modelSizeRange: {{min: 2B, max: 4B}}
  engineConfig:
    runner:
      name: ome-container
      args: [--tp-size=1, --mem-frac=0.9]
      resources:
        requests: {{cpu: "10", memory: 30Gi, nvidia.com/gpu: "1"}}
        limits: {{cpu: "10", memory: 30Gi, nvidia.com/gpu: "1"}}
{extra}"#
    )
}

const ENABLED: &str = "  disabled: false\n";

fn isvc(runtime: &str) -> String {
    format!(
        r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: llama-3-2-3b-instruct, namespace: llama-demo}}
spec:
  model: {{name: llama-3-2-3b-instruct}}
{runtime}  engine: {{minReplicas: 1, maxReplicas: 1}}
"
    )
}

const NAMED: &str = "  runtime: {name: sglang-llama-3-2-3b}\n";

/// #1: the profile's image, command, tolerations, volume, mount and probes; the child's args
/// and resources. The InferenceService names the child without a kind and finds the
/// ServingRuntime, since no ClusterServingRuntime has that name.
#[test]
fn vector_1_profile_and_child() {
    let c = child(ENABLED);
    let s = isvc(NAMED);
    let r = render(&[("m", MODEL), ("p", PROFILE), ("c", &c), ("s", &s)]);
    assert!(errors(&r).is_empty(), "{:?}", messages(&r));
    let c = container(&r);
    assert_eq!(c.str_at(&["name"]), Some("ome-container"));
    assert_eq!(
        c.str_at(&["image"]),
        Some("docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64")
    );
    assert_eq!(
        json(c.get("command")),
        r#"["python3","-m","sglang.launch_server","--host=0.0.0.0","--port=8080","--model-path=$(MODEL_PATH)","--served-model-name=llama-3-2-3b-instruct"]"#
    );
    assert_eq!(json(c.get("args")), r#"["--tp-size=1","--mem-frac=0.9"]"#);
    assert_eq!(
        json(c.at(&["resources", "requests"])),
        r#"{"cpu":"10","memory":"30Gi","nvidia.com/gpu":"1"}"#
    );
    assert!(c.get("readinessProbe").is_some() && c.get("startupProbe").is_some());
    assert!(json(c.get("volumeMounts")).contains("/dev/shm"));
    let d = r
        .objects
        .iter()
        .find(|o| o.kind == "Deployment")
        .and_then(|o| o.tree())
        .unwrap();
    assert!(json(d.at(&["spec", "template", "spec", "tolerations"])).contains("nvidia.com/gpu"));
    assert!(json(d.at(&["spec", "template", "spec", "volumes"])).contains("dshm"));
}

/// #2 and #7: the parent is missing, for the runtime and for an InferenceService naming it;
/// a deeper miss lists the chain walked, child first.
#[test]
fn vector_2_and_7_missing_parent() {
    let c = child(ENABLED);
    let s = isvc(NAMED);
    let r = render(&[("m", MODEL), ("c", &c), ("s", &s)]);
    let chain =
        "inherit-from parent \"sglang-profile\" not found (chain so far: [sglang-llama-3-2-3b])";
    assert_eq!(
        errors(&r),
        [
            chain.to_string(),
            format!(
                "runtime sglang-llama-3-2-3b does not support model llama-3-2-3b-instruct: {chain}"
            )
        ]
    );
    let csr = |name: &str, parent: &str| {
        format!(
            r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {name}
  annotations: {{ome.io/inherit-from: {parent}}}
spec: {{}}
"
        )
    };
    let (c, b) = (csr("c", "b"), csr("b", "a"));
    let r = render(&[("c", &c), ("b", &b)]);
    assert_eq!(
        errors(&r),
        [
            "inherit-from parent \"a\" not found (chain so far: [c b])",
            "inherit-from parent \"a\" not found (chain so far: [b])"
        ]
    );
}

/// #3: a runtime naming itself is a cycle, even when a ClusterServingRuntime of that name
/// exists (identity is the name); a → b → a lists `[a b a]`.
#[test]
fn vector_3_cycles() {
    let selfish = r"apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: sglang-llama-3-2-3b
  namespace: llama-demo
  annotations: {ome.io/inherit-from: sglang-llama-3-2-3b}
spec: {}
";
    let same_name = r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: sglang-llama-3-2-3b}
spec: {}
";
    let r = render(&[("a", selfish), ("b", same_name)]);
    assert_eq!(
        errors(&r),
        ["inheritance cycle detected: [sglang-llama-3-2-3b sglang-llama-3-2-3b]"]
    );
    let csr = |name: &str, parent: &str| {
        format!(
            r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {name}
  annotations: {{ome.io/inherit-from: {parent}}}
spec: {{}}
"
        )
    };
    let (a, b) = (csr("a", "b"), csr("b", "a"));
    let r = render(&[("a", &a), ("b", &b)]);
    assert_eq!(
        errors(&r),
        [
            "inheritance cycle detected: [a b a]",
            "inheritance cycle detected: [b a b]"
        ]
    );
}

/// #4: six runtimes are too many, five are fine; the depth is checked before cycles.
#[test]
fn vector_4_max_depth() {
    let chain = |names: &[&str], closing: Option<&str>| {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let parent = names.get(i + 1).copied().or(closing);
                let ann = parent.map_or(String::new(), |p| {
                    format!("\n  annotations: {{ome.io/inherit-from: {p}}}")
                });
                format!(
                    r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {n}{ann}
spec: {{}}
---
"
                )
            })
            .collect::<String>()
    };
    let six = chain(&["f", "e", "d", "c", "b", "a"], None);
    let r = render(&[("x", &six)]);
    assert_eq!(
        errors(&r)[0],
        "inheritance chain exceeds max depth 5 (chain: [f e d c b])"
    );
    assert_eq!(errors(&r).len(), 1, "only f is too deep: {:?}", errors(&r));
    let five = chain(&["e", "d", "c", "b", "a"], None);
    assert!(render(&[("x", &five)]).diags.is_empty());
    // Five runtimes whose last parent closes a cycle: too deep, not a cycle.
    let ring = chain(&["e", "d", "c", "b", "a"], Some("e"));
    let r = render(&[("x", &ring)]);
    assert!(
        errors(&r)
            .contains(&"inheritance chain exceeds max depth 5 (chain: [e d c b a])".to_string()),
        "{:?}",
        errors(&r)
    );
}

/// #5: a profile must be disabled; #6: a child that leaves `disabled` unset inherits it.
#[test]
fn vector_5_and_6_profiles_are_disabled() {
    let enabled_profile = PROFILE.replace("  disabled: true\n", "  disabled: false\n");
    let r = render(&[("p", &enabled_profile)]);
    assert_eq!(
        errors(&r),
        ["runtimes carrying ome.io/runtime-profile=\"true\" must also set spec.disabled: true"]
    );
    assert!(render(&[("p", PROFILE)]).diags.is_empty());
    let c = child("");
    let s = isvc(NAMED);
    let r = render(&[("m", MODEL), ("p", PROFILE), ("c", &c), ("s", &s)]);
    assert_eq!(
        errors(&r),
        [
            "runtime sglang-llama-3-2-3b does not support model llama-3-2-3b-instruct: namespace-scoped runtime sglang-llama-3-2-3b is disabled"
        ]
    );
}

/// #8: maps merge field by field (`modelSizeRange.max` over the parent's `min`), so a 7B
/// model fits the merged range; #9: requests merge by key, limits stay.
#[test]
fn vector_8_and_9_fields_merge() {
    let big = MODEL.replace("3.21B", "7B");
    let narrow = child(ENABLED);
    let s = isvc(NAMED);
    let r = render(&[("m", &big), ("p", PROFILE), ("c", &narrow), ("s", &s)]);
    assert!(
        messages(&r)
            .iter()
            .any(|m| m.contains("model size 7B is outside supported range [2B, 4B]")),
        "{:?}",
        messages(&r)
    );
    let parent_range = PROFILE.replace("spec:\n", "spec:\n  modelSizeRange: {min: 2B, max: 4B}\n");
    let wider = child(ENABLED)
        .replace("  modelSizeRange: {min: 2B, max: 4B}\n", "  modelSizeRange: {max: 8B}\n")
        .replace(
            "        requests: {cpu: \"10\", memory: 30Gi, nvidia.com/gpu: \"1\"}\n        limits: {cpu: \"10\", memory: 30Gi, nvidia.com/gpu: \"1\"}\n",
            "        requests: {memory: 20Gi}\n",
        );
    let parent_resources = parent_range.replace(
        "      ports:",
        "      resources:\n        requests: {cpu: \"10\", memory: 30Gi}\n        limits: {cpu: \"10\", memory: 30Gi}\n      ports:",
    );
    let r = render(&[
        ("m", &big),
        ("p", &parent_resources),
        ("c", &wider),
        ("s", &s),
    ]);
    assert!(
        messages(&r)
            .iter()
            .all(|m| !m.contains("outside supported range")),
        "{:?}",
        messages(&r)
    );
    let c = container(&r);
    assert_eq!(
        json(c.at(&["resources", "requests"])),
        r#"{"cpu":"10","memory":"20Gi"}"#
    );
    assert_eq!(
        json(c.at(&["resources", "limits"])),
        r#"{"cpu":"10","memory":"30Gi"}"#
    );
}

/// #10: env merges by name, in the parent's order; `protocolVersions` is inherited.
/// #11: tolerations are replaced whole; a child's `args: []` is unset.
#[test]
fn vector_10_and_11_lists() {
    let parent = PROFILE
        .replace(
            "      ports:",
            "      env: [{name: NCCL_DEBUG, value: INFO}, {name: SGLANG_LOG_LEVEL, value: info}]\n      args: [--parent]\n      ports:",
        )
        .replace("spec:\n", "spec:\n  protocolVersions: [openAI]\n");
    let c = child(ENABLED)
        .replace(
            "      args: [--tp-size=1, --mem-frac=0.9]\n",
            "      args: []\n      env: [{name: NCCL_DEBUG, value: WARN}]\n",
        )
        .replace(
            "  engineConfig:\n",
            "  engineConfig:\n    tolerations: [{key: b, operator: Exists}]\n",
        );
    let s = isvc(NAMED);
    let files = [
        ("m", MODEL),
        ("p", parent.as_str()),
        ("c", c.as_str()),
        ("s", s.as_str()),
    ];
    let r = render(&files);
    assert!(errors(&r).is_empty(), "{:?}", messages(&r));
    let env = json(container(&r).get("env"));
    assert!(
        env.starts_with(
            r#"[{"name":"NCCL_DEBUG","value":"WARN"},{"name":"SGLANG_LOG_LEVEL","value":"info"}"#
        ),
        "{env}"
    );
    assert_eq!(json(container(&r).get("args")), r#"["--parent"]"#);
    let d = r
        .objects
        .iter()
        .find(|o| o.kind == "Deployment")
        .and_then(|o| o.tree())
        .unwrap();
    assert_eq!(
        json(d.at(&["spec", "template", "spec", "tolerations"])),
        r#"[{"key":"b","operator":"Exists"}]"#
    );
    let loaded = crate::load::from_texts(&files, &crate::load::Limits::default());
    let catalogued = super::super::catalog_of(loaded, &Options::default());
    let (inherited, _) = crate::inherit::resolve_all(&catalogued.catalog);
    let rt = catalogued
        .catalog
        .runtime(
            crate::model::Scope::Namespaced,
            "llama-demo",
            "sglang-llama-3-2-3b",
        )
        .unwrap();
    let spec = inherited.spec(rt).unwrap();
    assert_eq!(json(spec.spec.get("protocolVersions")), r#"["openAI"]"#);
}

/// #12: `value` over `valueFrom` on one env name would give both: an error naming both files.
#[test]
fn vector_12_value_and_value_from() {
    let parent = PROFILE.replace(
        "      ports:",
        "      env: [{name: X, value: \"1\"}]\n      ports:",
    );
    let c = child(ENABLED).replace(
        "      args:",
        "      env: [{name: X, valueFrom: {fieldRef: {fieldPath: status.podIP}}}]\n      args:",
    );
    let r = render(&[("p", &parent), ("c", &c)]);
    let d = r.diags.iter().find(|d| d.is_error()).expect("an error");
    assert_eq!(d.code, crate::diagnostics::Code::InvalidMerge);
    assert_eq!(d.related.len(), 1, "points at the parent too");
}

/// #13: auto-selection ignores inheritance: a child that inherits its accelerator classes is
/// excluded for lacking them; named, it uses the merged spec.
#[test]
fn vector_13_auto_selection_ignores_inheritance() {
    let class = r"apiVersion: ome.io/v1beta1
kind: AcceleratorClass
metadata: {name: nvidia-h100}
spec:
  discovery: {nodeSelector: {gpu: h100}}
  capabilities: {memoryGB: 80Gi}
";
    let parent = PROFILE.replace(
        "spec:\n",
        "spec:\n  acceleratorRequirements: {acceleratorClasses: [nvidia-h100]}\n",
    );
    let c = child(ENABLED).replace("      autoSelect: false\n", "      autoSelect: true\n");
    let auto = r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: llama-3-2-3b-instruct, namespace: llama-demo}
spec:
  model: {name: llama-3-2-3b-instruct}
  acceleratorSelector: {acceleratorClass: nvidia-h100}
  engine: {}
";
    let r = render(&[
        ("m", MODEL),
        ("k", class),
        ("p", &parent),
        ("c", &c),
        ("s", auto),
    ]);
    assert!(
        errors(&r).iter().any(|e| e.contains(
            "sglang-llama-3-2-3b (runtime does not support the required accelerator class)"
        )),
        "{:?}",
        messages(&r)
    );
    let named = auto.replace(
        "  engine: {}\n",
        "  runtime: {name: sglang-llama-3-2-3b}\n  engine: {}\n",
    );
    let r = render(&[
        ("m", MODEL),
        ("k", class),
        ("p", &parent),
        ("c", &c),
        ("s", &named),
    ]);
    assert!(errors(&r).is_empty(), "{:?}", messages(&r));
    assert!(
        messages(&r)
            .iter()
            .all(|m| !m.contains("accelerator class")),
        "{:?}",
        messages(&r)
    );
}
