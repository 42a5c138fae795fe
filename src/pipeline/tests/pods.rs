//! Pods as they run (issue 30): LeaderWorkerSet details of v1.3, model overlays, the model
//! agent, the TTL and the OME kinds that pass through (SEMANTICS.md#objects, #models).

use super::render::{errors, json, object, render};
use crate::diagnostics::{Code, Diagnostic};
use crate::pipeline::{Options, Rendering, render_texts};

fn with_code(r: &Rendering, code: Code) -> Vec<&Diagnostic> {
    r.diags.iter().filter(|d| d.code == code).collect()
}

const MODEL: &str = r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: base-model
spec:
  modelFormat: {name: safetensors, version: "1.0"}
  modelFramework: {name: transformers}
  storage: {storageUri: "hf://meta/base", path: /models/base}
---
"#;

/// A MultiNode runtime whose leader and worker run `args`.
fn lws_runtime(args: &str) -> String {
    format!(
        r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt
spec:
  supportedModelFormats:
    - modelFormat: {{name: safetensors, version: "1.0"}}
      modelFramework: {{name: transformers}}
  engineConfig:
    annotations: {{ome.io/deploymentMode: MultiNode}}
    leader:
      runner: {{name: ome-container, image: i, args: {args}}}
    worker:
      size: 1
      runner: {{name: ome-container, image: i, args: {args}}}
---
"#
    )
}

fn isvc(metadata: &str, spec: &str) -> String {
    format!(
        r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: svc
  namespace: ns
{metadata}spec:
  model: {{name: base-model}}
  runtime: {{name: rt}}
{spec}"
    )
}

/// v1.3's LWS reconciler deletes `kueue.x-k8s.io/queue-name` from both pod templates (Kueue's
/// LeaderWorkerSet integration reads it from the LeaderWorkerSet); the priority class stays.
#[test]
fn kueue_queue_label_is_kept_off_lws_pod_templates() {
    let r = render(&format!(
        "{MODEL}{}{}",
        lws_runtime("[serve]"),
        isvc(
            "  labels: {kueue.x-k8s.io/queue-name: user-queue}\n  annotations: {ome.io/dedicated-ai-cluster: dac, kueue-enabled: \"true\"}\n",
            "  engine: {}\n"
        )
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let lws = object(&r, "LeaderWorkerSet", "lws-svc-engine");
    // The user's label on the object itself stays.
    assert_eq!(
        lws.str_at(&["metadata", "labels", "kueue.x-k8s.io/queue-name"]),
        Some("user-queue")
    );
    for t in ["leaderTemplate", "workerTemplate"] {
        let labels = lws
            .at(&["spec", "leaderWorkerTemplate", t, "metadata", "labels"])
            .unwrap();
        assert_eq!(labels.get("kueue.x-k8s.io/queue-name"), None, "{t}");
        assert_eq!(
            labels.str_at(&["kueue.x-k8s.io/priority-class"]),
            Some("kueue-scheduling-high-priority"),
            "{t}"
        );
    }
}

/// `$(OME_LEADER_ADDRESS)` and the other OMENative-only variables in a LeaderWorkerSet pod are
/// errors naming the LWS variable; `$$(` escapes and a container's own definition are fine.
#[test]
fn omenative_variables_in_lws_pods_are_errors() {
    let r = render(&format!(
        "{MODEL}{}{}",
        lws_runtime(
            "[\"--dist-init-addr=$(OME_LEADER_ADDRESS):5000\", --node-rank, \"$(OME_INSTANCE_POD_RANK)\", --nnodes, \"$(OME_INSTANCE_POD_COUNT)\", \"$$(OME_LEADER_ADDRESS)\"]"
        ),
        isvc("", "  engine: {}\n")
    ));
    let found = with_code(&r, Code::LwsVariable);
    // Three variables, in the leader's and the worker's template.
    assert_eq!(found.len(), 6, "{found:?}");
    assert!(found.iter().all(|d| d.is_error()));
    let first = found[0];
    assert!(
        first.message.contains("$(OME_LEADER_ADDRESS)"),
        "{}",
        first.message
    );
    assert!(
        first
            .help
            .as_deref()
            .unwrap()
            .contains("$(LWS_LEADER_ADDRESS)"),
        "{:?}",
        first.help
    );
    assert!(
        found
            .iter()
            .any(|d| d.help.as_deref().unwrap().contains("$(LWS_WORKER_INDEX)"))
    );
    assert!(
        found
            .iter()
            .any(|d| d.help.as_deref().unwrap().contains("$(LWS_GROUP_SIZE)"))
    );
    assert!(first.pos.is_some(), "points at the runtime's line");
    assert!(
        r.objects.iter().all(|o| o.source.is_none()),
        "nothing rendered"
    );

    // Defined by the container, or escaped: no error.
    let r = render(&format!(
        "{MODEL}{}{}",
        r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0"}
      modelFramework: {name: transformers}
  engineConfig:
    annotations: {ome.io/deploymentMode: MultiNode}
    leader:
      runner: {name: ome-container, image: i, args: ["$(OME_LEADER_ADDRESS)", "$$(OME_INSTANCE_POD_RANK)"], env: [{name: OME_LEADER_ADDRESS, value: $(LWS_LEADER_ADDRESS)}]}
    worker:
      size: 1
      runner: {name: ome-container, image: i, args: [serve]}
---
"#,
        isvc("", "  engine: {}\n")
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let _ = json(None);
}

const RAW_RUNTIME: &str = r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0"}
      modelFramework: {name: transformers}
  engineConfig:
    runner: {name: ome-container, image: i}
---
"#;

/// OME deletes the InferenceService after `ttlSecondsAfterCreation`; a GitOps tool recreates
/// it: a warning naming the field, at its line; the render goes on.
#[test]
fn ttl_seconds_after_creation_is_a_warning() {
    let r = render(&format!(
        "{MODEL}{RAW_RUNTIME}{}",
        isvc("", "  ttlSecondsAfterCreation: 3600\n  engine: {}\n")
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let found = with_code(&r, Code::TtlDelete);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, crate::diagnostics::Severity::Warning);
    assert_eq!(
        found[0].field.as_deref(),
        Some("spec.ttlSecondsAfterCreation")
    );
    assert!(found[0].pos.is_some());
    object(&r, "Deployment", "svc-engine");
    let r = render(&format!(
        "{MODEL}{RAW_RUNTIME}{}",
        isvc("", "  engine: {}\n")
    ));
    assert!(with_code(&r, Code::TtlDelete).is_empty());
}

/// OME kinds other than the consumed ones pass through, with one note listing them.
#[test]
fn ome_kinds_passing_through_are_listed_once() {
    let extra = r"apiVersion: ome.io/v1beta1
kind: TrafficMap
metadata: {name: a, namespace: ns}
spec: {}
---
apiVersion: ome.io/v1beta1
kind: TrafficMap
metadata: {name: b, namespace: ns}
spec: {}
---
apiVersion: ome.io/v1beta1
kind: FineTunedWeight
metadata: {name: w}
spec: {}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: ns}
---
";
    let r = render(&format!(
        "{MODEL}{RAW_RUNTIME}{extra}{}",
        isvc("", "  engine: {}\n")
    ));
    let found = with_code(&r, Code::OmePassthrough);
    assert_eq!(found.len(), 1, "{:?}", r.diags);
    assert_eq!(
        found[0].message,
        "objects of OME's API group pass through unrendered: FineTunedWeight (1), TrafficMap (2)"
    );
    assert!(r.objects.iter().any(|o| o.kind == "TrafficMap"));
    let r = render(&format!(
        "{MODEL}{RAW_RUNTIME}{}",
        isvc("", "  engine: {}\n")
    ));
    assert!(with_code(&r, Code::OmePassthrough).is_empty());
}

fn model(name: &str, storage: &str) -> String {
    format!(
        r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: {name}
spec:
  modelFormat: {{name: safetensors, version: "1.0"}}
  modelFramework: {{name: transformers}}
  storage: {storage}
---
"#
    )
}

fn isvc_of(name: &str, model: &str) -> String {
    format!(
        r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: {name}
  namespace: ns
spec:
  model: {{name: {model}}}
  runtime: {{name: rt}}
  engine: {{}}
---
"
    )
}

/// A model the agent downloads: one warning per model (two InferenceServices of it give
/// one), naming the model and the node label; a note once the settings say the agent runs.
/// Storage the agent has no handler for: a stronger warning either way. PVC models: nothing.
#[test]
fn models_that_need_the_model_agent() {
    let input = format!(
        "{}{}{}{}{RAW_RUNTIME}{}{}{}{}{}",
        model("hf-model", "{storageUri: \"hf://org/m\", path: /models/m}"),
        model(
            "s3-model",
            "{storageUri: \"s3://bucket/m\", path: /models/s3}"
        ),
        model(
            "pack-model",
            "{storageUri: \"modelpack://ghcr.io/org/m:1\", path: /models/p}"
        ),
        model("pvc-model", "{storageUri: \"pvc://ns:claim/m\"}"),
        isvc_of("a", "hf-model"),
        isvc_of("b", "hf-model"),
        isvc_of("c", "s3-model"),
        isvc_of("d", "pack-model"),
        isvc_of("e", "pvc-model"),
    );
    let r = render(&input);
    assert_eq!(errors(&r), Vec::<&str>::new());
    let agent = with_code(&r, Code::ModelAgent);
    assert_eq!(agent.len(), 1, "{agent:?}");
    assert_eq!(agent[0].severity, crate::diagnostics::Severity::Warning);
    assert!(
        agent[0].message.contains("ClusterBaseModel/hf-model"),
        "{}",
        agent[0].message
    );
    assert!(
        agent[0]
            .message
            .contains("`models.ome.io/clusterbasemodel.hf-model: Ready`"),
        "{}",
        agent[0].message
    );
    assert!(agent[0].message.contains("modelAgent.enabled: false"));
    let unsupported = with_code(&r, Code::ModelAgentUnsupported);
    let mut names: Vec<&str> = unsupported
        .iter()
        .map(|d| d.object.as_ref().unwrap().name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["pack-model", "s3-model"]);
    assert!(
        unsupported
            .iter()
            .all(|d| d.severity == crate::diagnostics::Severity::Warning)
    );

    let options = Options {
        namespace: "default".into(),
        allow_empty: true,
        ..Options::default()
    };
    let r = render_texts(
        &[
            ("ome-render.yaml", "modelAgent: {enabled: true}\n"),
            ("in.yaml", &input),
        ],
        &options,
    );
    let agent = with_code(&r, Code::ModelAgent);
    assert_eq!(agent.len(), 1, "{:?}", r.diags);
    assert_eq!(agent[0].severity, crate::diagnostics::Severity::Note);
    assert_eq!(with_code(&r, Code::ModelAgentUnsupported).len(), 2);
}
