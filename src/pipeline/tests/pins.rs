//! Revisions and pins end to end (SEMANTICS.md#pins): each rule of that section rendered from
//! YAML through the pipeline.

use crate::diagnostics::Code;
use crate::pipeline::{Options, Rendering, render_texts};
use crate::revision::gojson::canonical;
use crate::yaml::Node;

/// The docs' ServingRuntime, its args' `--mem-frac` as given.
fn runtime(mem_frac: &str) -> String {
    format!(
        r#"apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: sglang-llama-3-2-3b
  namespace: llama-demo
spec:
{}"#,
        spec(mem_frac)
    )
}

fn spec(mem_frac: &str) -> String {
    format!(
        r#"  supportedModelFormats:
    - modelFormat: {{name: safetensors, version: "1.0.0"}}
      modelFramework: {{name: transformers, version: "4.45.0.dev0"}}
      modelArchitecture: LlamaForCausalLM
      autoSelect: true
      priority: 1
  modelSizeRange: {{min: 2B, max: 4B}}
  engineConfig:
    tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}]
    volumes: [{{name: dshm, emptyDir: {{medium: Memory}}}}]
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64
      command: [python3, -m, sglang.launch_server]
      args: [--host=0.0.0.0, --port=8080, "--model-path=$(MODEL_PATH)", "--served-model-name={{{{.Name}}}}", --tp-size=1, --mem-frac={mem_frac}]
      ports: [{{containerPort: 8080, name: http1, protocol: TCP}}]
      volumeMounts: [{{name: dshm, mountPath: /dev/shm}}]
      resources:
        requests: {{cpu: "10", memory: 30Gi, nvidia.com/gpu: "1"}}
        limits: {{cpu: "10", memory: 30Gi, nvidia.com/gpu: "1"}}
      readinessProbe: {{httpGet: {{path: /health_generate, port: 8080}}, periodSeconds: 60, timeoutSeconds: 200}}
      startupProbe: {{httpGet: {{path: /health_generate, port: 8080}}, initialDelaySeconds: 60, periodSeconds: 6, timeoutSeconds: 30, failureThreshold: 150}}
"#
    )
}

/// The spec's full SHA-256, as OME computes it.
fn sha(mem_frac: &str) -> String {
    let node = crate::yaml::parse::parse_stream(&spec(mem_frac), 0)
        .unwrap()
        .remove(0)
        .root;
    canonical(&node).sha256()
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

/// A ControllerRevision as OME writes it, of the runtime with `--mem-frac` `mem_frac`.
fn revision(name: &str, kind: &str, ns_label: &str, mem_frac: &str, runtime_of: &str) -> String {
    format!(
        r#"apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: {name}
  namespace: ome
  uid: 0d5e2a3c-1111-2222-3333-444455556666
  resourceVersion: "12345"
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels:
    ome.io/revision-hash: "{}"
    ome.io/runtime-of: {runtime_of}
    ome.io/runtime-of-kind: {kind}
    ome.io/runtime-of-namespace: "{ns_label}"
  annotations:
    ome.io/created-by: ome-controller
data:
{}revision: 1
"#,
        &sha(mem_frac)[..8],
        spec(mem_frac)
    )
}

const R590: &str = "r-llama-demo-sglang-llama-3-2-3b-590753e8";

fn isvc(runtime: &str, annotations: &str, with_model: bool) -> String {
    let model = if with_model {
        "  model: {name: llama-3-2-3b-instruct}\n"
    } else {
        ""
    };
    format!(
        r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: llama-3-2-3b-instruct
  namespace: llama-demo
  annotations: {{{annotations}}}
spec:
{model}  runtime: {{{runtime}}}
  engine: {{minReplicas: 1, maxReplicas: 1}}
"
    )
}

const MANAGED: &str = "name: sglang-llama-3-2-3b, kind: ServingRuntime, autoSync: false";

fn lock(revision: &str, sha: &str, token: Option<&str>) -> String {
    let token = token.map_or(String::new(), |t| format!("  syncToken: {t}\n"));
    format!(
        r"lockVersion: 1
pins:
- inferenceService: llama-demo/llama-3-2-3b-instruct
  runtime: sglang-llama-3-2-3b
  kind: ServingRuntime
  revision: {revision}
  sha256: {sha}
{token}"
    )
}

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
        // The model agent's warning about the hf:// model is the model tests' (pods.rs); the
        // note of PodMonitors not rendered (no cluster APIs listed) is not what these check.
        .filter(|d| {
            !matches!(
                d.code,
                Code::RuntimeAutoSelected | Code::ModelAgent | Code::Monitoring | Code::ApisNeeded
            )
        })
        .map(|d| format!("{:?} {}: {}", d.severity, d.code, d.message))
        .collect()
}

/// The engine container's args.
fn args(r: &Rendering) -> Vec<String> {
    let d = r
        .objects
        .iter()
        .find(|o| o.kind == "Deployment")
        .and_then(|o| o.tree())
        .unwrap_or_else(|| panic!("a Deployment: {:?}", messages(r)));
    d.at(&["spec", "template", "spec", "containers"])
        .and_then(Node::as_seq)
        .and_then(|c| c[0].get("args"))
        .and_then(Node::as_seq)
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str().map(str::to_string))
        .collect()
}

fn mem_frac(r: &Rendering) -> String {
    args(r)
        .into_iter()
        .find(|a| a.starts_with("--mem-frac="))
        .unwrap_or_default()
}

/// A managed pin with no lock entry renders the live runtime, and says which
/// revision OME would create: `r-…` for kind ServingRuntime, `cr-…` without a kind.
#[test]
fn an_unrecorded_managed_pin_renders_live() {
    let rt = runtime("0.9");
    let svc = isvc(MANAGED, "", true);
    let r = render(&[("m.yaml", MODEL), ("rt.yaml", &rt), ("isvc.yaml", &svc)]);
    assert_eq!(
        messages(&r),
        [format!(
            "Note ome::pin::unrecorded: managed pin (spec.runtime.autoSync: false) not recorded in ome-render.lock: rendered from the live runtime, which OME would pin as {R590}"
        )]
    );
    assert_eq!(mem_frac(&r), "--mem-frac=0.9");
    let svc = isvc("name: sglang-llama-3-2-3b, autoSync: false", "", true);
    let r = render(&[("m.yaml", MODEL), ("rt.yaml", &rt), ("isvc.yaml", &svc)]);
    assert!(
        messages(&r)[0].ends_with("which OME would pin as cr-sglang-llama-3-2-3b-590753e8"),
        "{:?}",
        messages(&r)
    );
}

/// The runtime changed; the pin stays on its revision and the note names the
/// fields that differ.
#[test]
fn a_drifted_pin_renders_its_revision() {
    let rt = runtime("0.85");
    let svc = isvc(MANAGED, "", true);
    let rev = revision(
        R590,
        "ServingRuntime",
        "llama-demo",
        "0.9",
        "sglang-llama-3-2-3b",
    );
    let lock = lock(R590, &sha("0.9"), None);
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
        ("ome-render.lock", &lock),
    ]);
    assert_eq!(
        messages(&r),
        [format!(
            "Note ome::pin::drift: pinned {R590}, live spec differs; bump ome.io/runtime-sync annotation to advance; differing fields: engineConfig.runner.args"
        )]
    );
    assert_eq!(mem_frac(&r), "--mem-frac=0.9");
    // The same pin with an unchanged runtime is current: nothing to say.
    let rt = runtime("0.9");
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
        ("ome-render.lock", &lock),
    ]);
    assert!(messages(&r).is_empty(), "{:?}", messages(&r));
    assert_eq!(mem_frac(&r), "--mem-frac=0.9");
}

/// A new `ome.io/runtime-sync` token rolls the pin forward to the live
/// runtime; the token the lock already acted on does nothing.
#[test]
fn a_sync_token_rolls_forward() {
    let rt = runtime("0.85");
    let rev = revision(
        R590,
        "ServingRuntime",
        "llama-demo",
        "0.9",
        "sglang-llama-3-2-3b",
    );
    let svc = isvc(MANAGED, "ome.io/runtime-sync: mem-frac-0-85", true);
    let locked = lock(R590, &sha("0.9"), None);
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
        ("ome-render.lock", &locked),
    ]);
    assert_eq!(
        messages(&r),
        [format!(
            "Note ome::pin::unrecorded: the ome.io/runtime-sync token \"mem-frac-0-85\" rolls this pin forward from {R590} to r-llama-demo-sglang-llama-3-2-3b-af9539ac, as OME does: rendered from the live runtime; ome-render.lock still records {R590}"
        )]
    );
    assert_eq!(mem_frac(&r), "--mem-frac=0.85");
    // A token recorded at the first pin does not roll forward.
    let consumed = lock(R590, &sha("0.9"), Some("mem-frac-0-85"));
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
        ("ome-render.lock", &consumed),
    ]);
    assert!(
        r.diags.iter().any(|d| d.code == Code::PinDrift),
        "{:?}",
        messages(&r)
    );
    assert_eq!(mem_frac(&r), "--mem-frac=0.9");
    // A token set while the runtime is unchanged waits: nothing to say, nothing moves.
    let unchanged = runtime("0.9");
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &unchanged),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
        ("ome-render.lock", &locked),
    ]);
    assert!(messages(&r).is_empty(), "{:?}", messages(&r));
    assert_eq!(mem_frac(&r), "--mem-frac=0.9");
}

/// OME's webhook checks on `spec.runtime.revision`.
#[test]
fn revision_admission() {
    let rt = runtime("0.9");
    for (runtime, want) in [
        (
            "name: sglang-llama-3-2-3b, kind: ServingRuntime, autoSync: false, revision: cr-sglang-llama-3-2-3b-590753e8",
            "Error ome::pin::invalid: spec.runtime.revision \"cr-sglang-llama-3-2-3b-590753e8\" does not match the expected naming convention for runtime \"sglang-llama-3-2-3b\" (ServingRuntime); expected the form r-llama-demo-sglang-llama-3-2-3b-<8 lowercase hex chars>",
        ),
        (
            "name: sglang-llama-3-2-3b, kind: ServingRuntime, revision: r-llama-demo-sglang-llama-3-2-3b-590753e8",
            "Error ome::pin::invalid: spec.runtime.revision requires spec.runtime.autoSync=false; AutoSync=true would silently ignore the pin",
        ),
        (
            "name: sglang-llama-3-2-3b, kind: ServingRuntime, autoSync: true, revision: r-llama-demo-sglang-llama-3-2-3b-590753e8",
            "Error ome::pin::invalid: spec.runtime.revision requires spec.runtime.autoSync=false; AutoSync=true would silently ignore the pin",
        ),
        (
            // Well formed, not among the inputs.
            "name: sglang-llama-3-2-3b, kind: ServingRuntime, autoSync: false, revision: r-llama-demo-sglang-llama-3-2-3b-0000abcd",
            "Error ome::pin::revision-missing: explicit pin r-llama-demo-sglang-llama-3-2-3b-0000abcd not found in namespace ome",
        ),
    ] {
        let svc = isvc(runtime, "", true);
        let r = render(&[("m.yaml", MODEL), ("rt.yaml", &rt), ("isvc.yaml", &svc)]);
        assert_eq!(messages(&r), [want]);
        assert!(r.objects.iter().all(|o| o.kind != "Deployment"));
    }
}

/// An explicit pin renders its revision whatever the runtime says now (no drift, as in OME),
/// and the revision passes through to the output without its cluster-assigned metadata.
#[test]
fn an_explicit_pin_renders_its_revision() {
    let rt = runtime("0.85");
    let rev = revision(
        R590,
        "ServingRuntime",
        "llama-demo",
        "0.9",
        "sglang-llama-3-2-3b",
    );
    let svc = isvc(&format!("{MANAGED}, revision: {R590}"), "", true);
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
    ]);
    assert!(messages(&r).is_empty(), "{:?}", messages(&r));
    assert_eq!(mem_frac(&r), "--mem-frac=0.9");
    let out = r
        .objects
        .iter()
        .find(|o| o.kind == "ControllerRevision")
        .and_then(|o| o.tree())
        .unwrap();
    assert_eq!(out.str_at(&["metadata", "namespace"]), Some("ome"));
    assert!(out.at(&["metadata", "uid"]).is_none());
    assert!(out.at(&["metadata", "resourceVersion"]).is_none());
    assert!(out.at(&["metadata", "creationTimestamp"]).is_none());
    assert!(out.at(&["data", "engineConfig"]).is_some());
}

/// A revision labelled for another runtime.
#[test]
fn a_revision_of_another_runtime() {
    let rt = runtime("0.9");
    let name = "r-llama-demo-sglang-llama-3-2-3b-590753e8";
    let rev = revision(name, "ServingRuntime", "llama-demo", "0.9", "other");
    let svc = isvc(&format!("{MANAGED}, revision: {name}"), "", true);
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
    ]);
    let m = messages(&r);
    assert!(
        m.contains(&format!("Error ome::pin::runtime-mismatch: revision {name} belongs to runtime \"other\" but ISVC references \"sglang-llama-3-2-3b\"")),
        "{m:?}"
    );
}

/// The runtime is gone. With a model OME's webhook rejects the
/// InferenceService; without one it serves from the revision; with no pin to serve from,
/// it can't.
#[test]
fn a_pinned_runtime_that_is_gone() {
    let rev = revision(
        R590,
        "ServingRuntime",
        "llama-demo",
        "0.9",
        "sglang-llama-3-2-3b",
    );
    let explicit = format!("{MANAGED}, revision: {R590}");
    let with_model = isvc(&explicit, "", true);
    let r = render(&[
        ("m.yaml", MODEL),
        ("isvc.yaml", &with_model),
        ("rev.yaml", &rev),
    ]);
    assert_eq!(
        messages(&r),
        [
            "Error ome::runtime::not-found: runtime sglang-llama-3-2-3b does not support model llama-3-2-3b-instruct: ServingRuntime sglang-llama-3-2-3b not found in namespace llama-demo"
        ]
    );
    let without_model = isvc(&explicit, "", false);
    let r = render(&[("isvc.yaml", &without_model), ("rev.yaml", &rev)]);
    assert_eq!(
        messages(&r),
        [format!(
            "Warning ome::pin::source-missing: runtime sglang-llama-3-2-3b is not among the inputs: rendered from pinned revision {R590} (OME: RuntimeDrifted SourceRuntimeMissing)"
        )]
    );
    assert_eq!(mem_frac(&r), "--mem-frac=0.9");
    // A managed pin that was never recorded has nothing to serve from.
    let unpinned = isvc("name: sglang-llama-3-2-3b, autoSync: false", "", false);
    let r = render(&[("isvc.yaml", &unpinned)]);
    assert_eq!(
        messages(&r),
        [
            "Error ome::runtime::not-found: resolve live runtime sglang-llama-3-2-3b: runtime sglang-llama-3-2-3b not found in namespace llama-demo or at cluster scope"
        ]
    );
}

/// The lock names a revision that is not among the inputs; a lock entry whose revision
/// was edited; a lock entry for an InferenceService that is no longer a managed pin.
#[test]
fn lock_problems() {
    let rt = runtime("0.9");
    let svc = isvc(MANAGED, "", true);
    let locked = lock(R590, &sha("0.9"), None);
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("ome-render.lock", &locked),
    ]);
    assert_eq!(
        messages(&r),
        [format!(
            "Error ome::pin::revision-missing: pinned revision {R590} missing from ome"
        )]
    );
    // The revision's data was edited after `pin` recorded it (its labels still say 590753e8).
    let edited = revision(
        R590,
        "ServingRuntime",
        "llama-demo",
        "0.9",
        "sglang-llama-3-2-3b",
    )
    .replace("--mem-frac=0.9", "--mem-frac=0.7");
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &edited),
        ("ome-render.lock", &locked),
    ]);
    let m = messages(&r);
    assert!(
        m.iter().any(|m| m.starts_with(&format!("Error ome::pin::lock: ControllerRevision {R590} no longer has the content ome-render.lock recorded (sha256 590753e8 recorded, "))),
        "{m:?}"
    );
    assert!(
        m.iter().any(|m| m.starts_with(&format!("Warning ome::pin::revision-inconsistent: runtime revision {R590}: label `ome.io/revision-hash` is `590753e8` but its data hashes to "))),
        "{m:?}"
    );
    // Not a managed pin any more.
    let live = isvc("name: sglang-llama-3-2-3b, kind: ServingRuntime", "", true);
    let rev = revision(
        R590,
        "ServingRuntime",
        "llama-demo",
        "0.9",
        "sglang-llama-3-2-3b",
    );
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &live),
        ("rev.yaml", &rev),
        ("ome-render.lock", &locked),
    ]);
    assert_eq!(
        messages(&r),
        [
            "Note ome::pin::stale: ome-render.lock pins llama-demo/llama-3-2-3b-instruct, which is not a managed pin among the inputs"
        ]
    );
}

/// A pinned revision whose spec is disabled; the scope word follows the declared kind.
#[test]
fn a_disabled_revision() {
    let rt = runtime("0.9");
    let rev = revision(
        R590,
        "ServingRuntime",
        "llama-demo",
        "0.9",
        "sglang-llama-3-2-3b",
    )
    .replace("data:\n", "data:\n  disabled: true\n");
    let svc = isvc(&format!("{MANAGED}, revision: {R590}"), "", true);
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
    ]);
    let m = messages(&r);
    assert!(
        m.contains(&"Error ome::runtime::disabled: Runtime sglang-llama-3-2-3b failed validation: namespace-scoped runtime sglang-llama-3-2-3b is disabled".to_string()),
        "{m:?}"
    );
}

/// A profile edit changes the merged spec of every child, so managed pins of the child
/// drift; explicit pins don't.
#[test]
fn a_profile_edit_drifts_managed_pins_of_children() {
    let profile = |image: &str| {
        format!(
            r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: profile
  annotations: {{ome.io/runtime-profile: "true"}}
spec:
  disabled: true
  engineConfig:
    runner: {{name: ome-container, image: {image}}}
"#
        )
    };
    let child = r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: child
  annotations: {ome.io/inherit-from: profile}
spec:
  disabled: false
  engineConfig:
    runner: {name: ome-container, args: [--tp-size=1]}
";
    let merged = |image: &str| {
        format!(
            "disabled: false\nengineConfig:\n  runner: {{name: ome-container, image: {image}, args: [--tp-size=1]}}\n"
        )
    };
    let hash = |image: &str| {
        canonical(
            &crate::yaml::parse::parse_stream(&merged(image), 0)
                .unwrap()
                .remove(0)
                .root,
        )
        .sha256()
    };
    let h = hash("a:1");
    let name = format!("cr-child-{}", &h[..8]);
    let rev = format!(
        r#"apiVersion: apps/v1
kind: ControllerRevision
metadata:
  name: {name}
  namespace: ome
  labels: {{ome.io/revision-hash: "{}", ome.io/runtime-of: child, ome.io/runtime-of-kind: ClusterServingRuntime, ome.io/runtime-of-namespace: ""}}
  annotations: {{ome.io/created-by: ome-controller}}
data:
{}revision: 1
"#,
        &h[..8],
        merged("a:1")
            .lines()
            .map(|l| format!("  {l}\n"))
            .collect::<String>()
    );
    let svc = |name_: &str, runtime: &str| {
        format!(
            r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: {name_}, namespace: team}}
spec:
  runtime: {{{runtime}}}
  engine: {{}}
---
"
        )
    };
    let services = format!(
        "{}{}",
        svc("managed", "name: child, autoSync: false"),
        svc(
            "explicit",
            &format!("name: child, autoSync: false, revision: {name}")
        )
    );
    let lock = format!(
        r"lockVersion: 1
pins:
- inferenceService: team/managed
  runtime: child
  kind: ClusterServingRuntime
  revision: {name}
  sha256: {h}
"
    );
    let p = profile("a:2");
    let r = render(&[
        ("p.yaml", &p),
        ("c.yaml", child),
        ("s.yaml", &services),
        ("rev.yaml", &rev),
        ("ome-render.lock", &lock),
    ]);
    assert_eq!(
        messages(&r),
        [format!(
            "Note ome::pin::drift: pinned {name}, live spec differs; bump ome.io/runtime-sync annotation to advance; differing fields: engineConfig.runner.image"
        )]
    );
    let images: Vec<&str> = r
        .objects
        .iter()
        .filter(|o| o.kind == "Deployment")
        .filter_map(|o| {
            o.tree()?
                .at(&["spec", "template", "spec", "containers"])?
                .as_seq()?[0]
                .str_at(&["image"])
        })
        .collect();
    assert_eq!(images, ["a:1", "a:1"], "both stay on the snapshot");
}

/// A fresh pin reuses a revision of the same runtime name and hash among the inputs,
/// whatever its kind (OME finds revisions by `runtime-of` and hash only).
#[test]
fn a_fresh_pin_reuses_a_revision_with_the_same_content() {
    let rt = runtime("0.9");
    let cr = "cr-sglang-llama-3-2-3b-590753e8";
    let rev = revision(
        cr,
        "ClusterServingRuntime",
        "",
        "0.9",
        "sglang-llama-3-2-3b",
    );
    let svc = isvc(MANAGED, "", true);
    let r = render(&[
        ("m.yaml", MODEL),
        ("rt.yaml", &rt),
        ("isvc.yaml", &svc),
        ("rev.yaml", &rev),
    ]);
    assert!(
        messages(&r)[0].ends_with(&format!("which OME would pin as {cr}")),
        "{:?}",
        messages(&r)
    );
}

/// Revisions among the inputs are checked as `kubectl ome runtime history` checks them.
#[test]
fn revision_consistency() {
    let rev = revision(
        "cr-wrong-name-590753e8",
        "ClusterServingRuntime",
        "llama-demo",
        "0.9",
        "sglang-llama-3-2-3b",
    )
    .replace("ome.io/created-by: ome-controller", "team: x")
    .replace("revision: 1\n", "revision: 2\n");
    let r = render(&[("rev.yaml", &rev)]);
    let mut m = messages(&r);
    m.sort();
    assert_eq!(
        m,
        [
            "Warning ome::pin::revision-inconsistent: runtime revision cr-wrong-name-590753e8: `revision` is not 1 (RevisionOrdinalUnexpected)",
            "Warning ome::pin::revision-inconsistent: runtime revision cr-wrong-name-590753e8: it is not annotated `ome.io/created-by: ome-controller` (RevisionNotOMEManaged)",
            "Warning ome::pin::revision-inconsistent: runtime revision cr-wrong-name-590753e8: its name should be `cr-sglang-llama-3-2-3b-590753e8` for its labels and data (RevisionNameMismatch)",
            "Warning ome::pin::revision-inconsistent: runtime revision cr-wrong-name-590753e8: label `ome.io/runtime-of-namespace` must be empty for a ClusterServingRuntime (RevisionSourceMismatch)",
        ]
    );
    // A wrong name alone.
    let rev = revision(
        "cr-wrong-name-590753e8",
        "ClusterServingRuntime",
        "",
        "0.9",
        "sglang-llama-3-2-3b",
    );
    let r = render(&[("rev.yaml", &rev)]);
    assert_eq!(
        messages(&r),
        [
            "Warning ome::pin::revision-inconsistent: runtime revision cr-wrong-name-590753e8: its name should be `cr-sglang-llama-3-2-3b-590753e8` for its labels and data (RevisionNameMismatch)"
        ]
    );
}

/// R4 through `pin`'s plan: the first pin records the token already set; a later runtime
/// change then drifts instead of rolling forward. `--advance` moves the pin and keeps the
/// revision shape of the declared kind.
#[test]
fn pin_plans() {
    use crate::select::pins::{Change, plan};
    let plan_of = |files: &[(&str, &str)], advance: Option<(&str, &str)>| {
        let loaded = crate::load::from_texts(files, &crate::load::Limits::default());
        let catalogued = super::super::catalog_of(loaded, &Options::default());
        let catalog = catalogued.catalog;
        let (inherited, _) = crate::inherit::resolve_all(&catalog);
        let specs: crate::select::pins::LiveSpecs<'_> = catalog
            .inference_services
            .iter()
            .map(|i| {
                (
                    (i.lookup_namespace.clone(), i.name.clone()),
                    crate::select::resolve::live_spec(i, &catalog, &inherited),
                )
            })
            .collect();
        let p = plan(&catalog, &specs, advance).map_err(|d| d[0].message.clone());
        p.map(|p| (p.changes, p.lock.entries.into_values().collect::<Vec<_>>()))
    };
    let rt = runtime("0.9");
    let svc = isvc(MANAGED, "ome.io/runtime-sync: t1", true);
    let (changes, entries) = plan_of(
        &[("m.yaml", MODEL), ("rt.yaml", &rt), ("isvc.yaml", &svc)],
        None,
    )
    .unwrap();
    assert_eq!(
        changes,
        [(
            "llama-demo/llama-3-2-3b-instruct".to_string(),
            Change::Pinned {
                revision: R590.to_string()
            }
        )]
    );
    assert_eq!(entries[0].sync_token.as_deref(), Some("t1"));
    assert_eq!(entries[0].sha256, sha("0.9"));
    // Not a managed pin: refused.
    let live = isvc("name: sglang-llama-3-2-3b", "", true);
    assert_eq!(
        plan_of(
            &[("m.yaml", MODEL), ("rt.yaml", &rt), ("isvc.yaml", &live)],
            Some(("llama-demo", "llama-3-2-3b-instruct"))
        )
        .unwrap_err(),
        "action refused: InferenceService llama-demo/llama-3-2-3b-instruct is not a managed pin (spec.runtime.autoSync: false without spec.runtime.revision)"
    );
}

/// The drifted pin's inputs (`reuse.rs`): the runtime at 0.85, its revision at 0.9, the
/// InferenceService and the model.
pub(super) fn pinned_inputs() -> [String; 4] {
    [
        runtime("0.85"),
        revision(
            R590,
            "ServingRuntime",
            "llama-demo",
            "0.9",
            "sglang-llama-3-2-3b",
        ),
        isvc(MANAGED, "", true),
        MODEL.to_string(),
    ]
}

/// The lock that pins it to the revision at 0.9.
pub(super) fn pinned_lock() -> String {
    lock(R590, &sha("0.9"), None)
}
