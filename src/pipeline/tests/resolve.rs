//! Resolution end to end: model precedence, runtime lookup by kind, inheritance.

use crate::pipeline::{Options, Rendering, render_texts};

fn render(yaml: &str) -> Rendering {
    let options = Options {
        namespace: "default".into(),
        allow_empty: true,
        ..Options::default()
    };
    render_texts(&[("in.yaml", yaml)], &options)
}

fn messages(r: &Rendering) -> Vec<String> {
    r.diags
        .iter()
        // The model agent's warning about the hf:// model is the model tests' (pods.rs); the
        // note of PodMonitors not rendered (no cluster APIs listed) is not what these check.
        .filter(|d| {
            !matches!(
                d.code,
                crate::diagnostics::Code::ModelAgent
                    | crate::diagnostics::Code::Monitoring
                    | crate::diagnostics::Code::ApisNeeded
            )
        })
        .map(|d| format!("{:?}: {}", d.severity, d.message))
        .collect()
}

fn runtime_label(r: &Rendering) -> Option<String> {
    r.objects
        .iter()
        .find(|o| o.kind == "Deployment")
        .and_then(|d| d.tree()?.str_at(&["metadata", "labels", "serving-runtime"]))
        .map(str::to_string)
}

const RUNTIME: &str = "spec:\n  supportedModelFormats:\n    - {modelFormat: {name: llama, version: \"1.0.0\"}, modelFramework: {name: transformers}, modelArchitecture: llama, autoSelect: true}\n  engineConfig:\n    runner: {name: ome-container, image: i}\n";

fn runtime(kind: &str, name: &str, namespace: Option<&str>) -> String {
    let ns = namespace.map_or(String::new(), |n| format!("\n  namespace: {n}"));
    format!(
        r"apiVersion: ome.io/v1beta1
kind: {kind}
metadata:
  name: {name}{ns}
{RUNTIME}---
"
    )
}

fn isvc(runtime: &str) -> String {
    format!(
        r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: svc, namespace: test-namespace}}
spec:
  model: {{name: test-model}}
{runtime}  engine: {{}}
"
    )
}

const MODELS: &str = r#"apiVersion: ome.io/v1beta1
kind: BaseModel
metadata: {name: test-model, namespace: test-namespace}
spec: {modelFormat: {name: llama, version: "1.0.0"}, modelFramework: {name: transformers}, modelArchitecture: llama, modelParameterSize: 7B, storage: {storageUri: "hf://t/m"}}
---
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: test-model}
spec: {modelFormat: {name: different}, storage: {storageUri: "hf://t/d"}}
---
"#;

/// W06: the BaseModel in the namespace wins over the ClusterBaseModel of the same name.
#[test]
fn base_model_in_the_namespace_first() {
    let r = render(&format!(
        "{MODELS}{}{}",
        runtime("ClusterServingRuntime", "runtime-1", None),
        isvc("")
    ));
    assert_eq!(
        messages(&r),
        ["Note: Runtime runtime-1 will be auto-selected for model test-model"]
    );
}

/// W01: equal runtimes: the name decides.
#[test]
fn equal_runtimes_pick_the_first_name() {
    let r = render(&format!(
        "{MODELS}{}{}{}",
        runtime("ClusterServingRuntime", "runtime-2", None),
        runtime("ClusterServingRuntime", "runtime-1", None),
        isvc("")
    ));
    assert_eq!(runtime_label(&r).as_deref(), Some("runtime-1"));
}

/// The lookup order by `spec.runtime.kind` (v1.3).
#[test]
fn named_runtime_lookup_by_kind() {
    let both = format!(
        "{MODELS}{}{}",
        runtime("ClusterServingRuntime", "foo", None),
        runtime("ServingRuntime", "foo", Some("test-namespace"))
    );
    let label_of = |r: &Rendering| {
        r.objects
            .iter()
            .find(|o| o.kind == "Deployment")
            .and_then(|d| {
                d.tree()?
                    .str_at(&["metadata", "annotations", "ome.io/serving-runtime"])
            })
            .map(str::to_string)
    };
    // No kind: the ClusterServingRuntime (v1.3; v1.2.2 took the ServingRuntime).
    let r = render(&format!("{both}{}", isvc("  runtime: {name: foo}\n")));
    assert!(r.diags.iter().all(|d| !d.is_error()), "{:?}", messages(&r));
    assert_eq!(label_of(&r).as_deref(), Some("foo"));
    let r = render(&format!(
        "{MODELS}{}{}",
        runtime("ServingRuntime", "foo", Some("test-namespace")),
        isvc("  runtime: {name: foo}\n")
    ));
    assert!(
        r.diags.iter().all(|d| !d.is_error()),
        "no CSR: the SR is found"
    );
    // kind: ServingRuntime with only a ClusterServingRuntime: not found.
    let r = render(&format!(
        "{MODELS}{}{}",
        runtime("ClusterServingRuntime", "foo", None),
        isvc("  runtime: {name: foo, kind: ServingRuntime}\n")
    ));
    assert_eq!(
        messages(&r),
        [
            "Error: runtime foo does not support model test-model: ServingRuntime foo not found in namespace test-namespace"
        ]
    );
    // A ServingRuntime of another namespace is not visible.
    let r = render(&format!(
        "{MODELS}{}{}",
        runtime("ServingRuntime", "foo", Some("elsewhere")),
        isvc("  runtime: {name: foo}\n")
    ));
    assert_eq!(
        messages(&r),
        [
            "Error: runtime foo does not support model test-model: runtime foo not found in namespace test-namespace or at cluster scope"
        ]
    );
}

/// Inheritance for named runtimes, not for
/// auto-selection.
#[test]
fn inheritance() {
    let profile = r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: profile
  annotations: {ome.io/runtime-profile: "true"}
spec:
  disabled: true
  engineConfig:
    runner: {name: ome-container, image: profile-image, command: [serve, --port=8080]}
    tolerations: [{key: gpu, operator: Exists}]
---
"#;
    let child = |disabled: &str, extra: &str| {
        format!(
            r#"apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: child
  namespace: test-namespace
  annotations: {{ome.io/inherit-from: profile}}
spec:
{disabled}  supportedModelFormats:
    - {{modelFormat: {{name: llama, version: "1.0.0"}}, modelFramework: {{name: transformers}}, modelArchitecture: llama, autoSelect: true}}
  engineConfig:
    runner: {{name: ome-container, args: [--tp-size=1]{extra}}}
---
"#
        )
    };
    let r = render(&format!(
        "{MODELS}{profile}{}{}",
        child("  disabled: false\n", ""),
        isvc("  runtime: {name: child}\n")
    ));
    assert!(r.diags.iter().all(|d| !d.is_error()), "{:?}", messages(&r));
    let d = r
        .objects
        .iter()
        .find(|o| o.kind == "Deployment")
        .and_then(|o| o.tree())
        .unwrap();
    let c = &d
        .at(&["spec", "template", "spec", "containers"])
        .and_then(crate::yaml::Node::as_seq)
        .unwrap()[0];
    assert_eq!(c.str_at(&["image"]), Some("profile-image"));
    assert_eq!(
        crate::yaml::emit::to_json_string(c.get("args").unwrap()),
        r#"["--tp-size=1"]"#
    );
    assert!(d.at(&["spec", "template", "spec", "tolerations"]).is_some());

    // A child that leaves `disabled` unset inherits `disabled: true`.
    let r = render(&format!(
        "{MODELS}{profile}{}{}",
        child("", ""),
        isvc("  runtime: {name: child}\n")
    ));
    assert!(
        messages(&r)
            .iter()
            .any(|m| m.ends_with("namespace-scoped runtime child is disabled")),
        "{:?}",
        messages(&r)
    );

    // Auto-selection uses the child's own spec, which has no image.
    let r = render(&format!(
        "{MODELS}{profile}{}{}",
        child("  disabled: false\n", ""),
        isvc("")
    ));
    assert!(
        messages(&r).iter().any(|m| m.contains("has no image")),
        "{:?}",
        messages(&r)
    );

    // A cycle.
    let cyclic = r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: loop
  annotations: {ome.io/inherit-from: loop}
spec: {}
";
    let r = render(cyclic);
    assert_eq!(
        messages(&r),
        ["Error: inheritance cycle detected: [loop loop]"]
    );
    // Five runtimes in a chain are fine, six are too many (SEMANTICS.md#runtimes).
    let chain = |n: usize| {
        (0..n)
            .map(|i| {
                let parent = if i == 0 {
                    String::new()
                } else {
                    format!("\n  annotations: {{ome.io/inherit-from: r{}}}", i - 1)
                };
                format!(
                    r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: r{i}{parent}
spec: {{}}
---
"
                )
            })
            .collect::<String>()
    };
    assert!(render(&chain(5)).diags.is_empty());
    assert_eq!(
        messages(&render(&chain(6))),
        ["Error: inheritance chain exceeds max depth 5 (chain: [r5 r4 r3 r2 r1])"]
    );
    // A missing parent.
    let r = render(&format!(
        "{MODELS}{}{}",
        child("  disabled: false\n", ", image: i"),
        isvc("  runtime: {name: child}\n")
    ));
    assert!(
        messages(&r).contains(
            &"Error: inherit-from parent \"profile\" not found (chain so far: [child])".to_string()
        ),
        "{:?}",
        messages(&r)
    );
}
