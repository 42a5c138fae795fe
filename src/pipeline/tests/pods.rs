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
    // The closing requirements note lists the agent (no API beyond Kubernetes' own here).
    let needs = with_code(&r, Code::ApisNeeded);
    assert_eq!(needs.len(), 1, "{:?}", r.diags);
    assert!(
        needs[0]
            .message
            .starts_with("the output needs OME's model agent"),
        "{}",
        needs[0].message
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
    // The settings say the agent runs: the requirements note has nothing left to list.
    assert!(with_code(&r, Code::ApisNeeded).is_empty(), "{:?}", r.diags);
}

/// With APIs beyond Kubernetes' own, the requirements note lists them, then the agent.
#[test]
fn the_requirements_note_lists_apis_then_the_model_agent() {
    let r = render(&format!(
        "{MODEL}{}{}",
        lws_runtime("[serve]"),
        isvc("", "  engine: {}\n")
    ));
    let needs = with_code(&r, Code::ApisNeeded);
    assert_eq!(needs.len(), 1, "{:?}", r.diags);
    assert!(
        needs[0].message.starts_with("the output needs these APIs beyond Kubernetes' own: leaderworkerset.x-k8s.io/v1/LeaderWorkerSet; and OME's model agent"),
        "{}",
        needs[0].message
    );
}

/// A single-pod runtime for the overlay tests.
const OVERLAY_RUNTIME: &str = r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0"}
      modelFramework: {name: transformers}
  engineConfig:
    runner: {name: ome-container, image: i, env: [{name: OVERLAY_MINE_MODEL_PATH, value: own}]}
  routerConfig:
    runner: {name: router, image: r}
---
"#;

/// The overlay models: on a claim, on the node, disabled, a BaseModel.
const OVERLAY_MODELS: &str = r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: lora-a
spec:
  storage: {storageUri: "pvc://ns:adapters/lora/a"}
---
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: draft
spec:
  storage: {storageUri: "hf://org/draft", path: /raid/draft}
---
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: mine
spec:
  storage: {storageUri: "hf://org/mine", path: /raid/mine}
---
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: off
spec:
  disabled: true
  storage: {storageUri: "hf://org/off", path: /raid/off}
---
apiVersion: ome.io/v1beta1
kind: BaseModel
metadata:
  name: local
  namespace: ns
spec:
  storage: {storageUri: "hf://org/local", path: /raid/local}
---
"#;

fn overlay_render(overlays: &str) -> Rendering {
    render(&format!(
        "{MODEL}{OVERLAY_RUNTIME}{OVERLAY_MODELS}{}",
        isvc("", "  engine: {}\n  router: {}\n---\n").replace(
            "model: {name: base-model}",
            &format!("model: {{name: base-model, overlays: {overlays}}}")
        )
    ))
}

fn names(list: Option<&crate::yaml::Node>, key: &str) -> Vec<String> {
    list.and_then(crate::yaml::Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .filter_map(|n| n.str_at(&[key]).map(str::to_string))
        .collect()
}

/// v1.3 mounts each overlay read-only under /opt/ml/model-overlays/<name> (a claim with its
/// sub path, a node path as a hostPath), and sets OVERLAY_<NAME>_MODEL_PATH after MODEL_PATH,
/// in the overlays' order, keeping a variable the runner sets itself.
/// The router gets the volumes only; the BaseModel kind looks in the namespace.
#[test]
fn overlays_are_mounted_as_v13_mounts_them() {
    let r = overlay_render(
        "[{name: lora-a}, {name: draft}, {name: mine}, {name: local, kind: BaseModel}]",
    );
    assert_eq!(errors(&r), Vec::<&str>::new());
    let pod = object(&r, "Deployment", "svc-engine")
        .at(&["spec", "template", "spec"])
        .unwrap();
    let c = &pod.get("containers").unwrap().as_seq().unwrap()[0];
    let env: Vec<(String, String)> = c
        .get("env")
        .unwrap()
        .as_seq()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e.str_at(&["name"]).unwrap().to_string(),
                e.str_at(&["value"]).unwrap_or("").to_string(),
            )
        })
        .collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(
        env,
        [
            ("OVERLAY_MINE_MODEL_PATH", "own"),
            ("MODEL_PATH", "/models/base"),
            ("OVERLAY_LORA_A_MODEL_PATH", "/opt/ml/model-overlays/lora-a"),
            ("OVERLAY_DRAFT_MODEL_PATH", "/opt/ml/model-overlays/draft"),
            ("OVERLAY_LOCAL_MODEL_PATH", "/opt/ml/model-overlays/local"),
        ]
    );
    assert_eq!(
        json(c.get("volumeMounts")),
        r#"[{"name":"base-model","mountPath":"/models/base","readOnly":true},{"name":"model-overlay-lora-a","mountPath":"/opt/ml/model-overlays/lora-a","readOnly":true,"subPath":"lora/a"},{"name":"model-overlay-draft","mountPath":"/opt/ml/model-overlays/draft","readOnly":true},{"name":"model-overlay-mine","mountPath":"/opt/ml/model-overlays/mine","readOnly":true},{"name":"model-overlay-local","mountPath":"/opt/ml/model-overlays/local","readOnly":true}]"#
    );
    let volumes = r#"[{"name":"base-model","hostPath":{"path":"/models/base"}},{"name":"model-overlay-lora-a","persistentVolumeClaim":{"claimName":"adapters","readOnly":true}},{"name":"model-overlay-draft","hostPath":{"path":"/raid/draft"}},{"name":"model-overlay-mine","hostPath":{"path":"/raid/mine"}},{"name":"model-overlay-local","hostPath":{"path":"/raid/local"}}]"#;
    assert_eq!(json(pod.get("volumes")), volumes);
    // The router: the same volumes, no mounts, no variables.
    let router = object(&r, "Deployment", "svc-router")
        .at(&["spec", "template", "spec"])
        .unwrap();
    assert_eq!(json(router.get("volumes")), volumes);
    let rc = &router.get("containers").unwrap().as_seq().unwrap()[0];
    assert!(names(rc.get("volumeMounts"), "name").is_empty());
    assert!(
        names(rc.get("env"), "name")
            .iter()
            .all(|n| !n.starts_with("OVERLAY_"))
    );
    assert!(with_code(&r, Code::OverlaySkipped).is_empty());
}

/// v1.3 skips a missing or disabled overlay (its status lists the reason) and renders the
/// pods without it: a warning names the overlay and the reason. The kind defaults to
/// ClusterBaseModel, so a BaseModel named without `kind` is not found.
#[test]
fn missing_and_disabled_overlays_are_skipped_with_a_warning() {
    let r = overlay_render("[{name: lora-b}, {name: off}, {name: local}, {name: lora-a}]");
    assert_eq!(errors(&r), Vec::<&str>::new());
    let skipped: Vec<&str> = with_code(&r, Code::OverlaySkipped)
        .iter()
        .map(|d| {
            assert!(!d.is_error());
            d.message.as_str()
        })
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(skipped[0].starts_with("overlay \"lora-b\" not found: OME v1.3 skips it"));
    assert!(skipped[1].starts_with("overlay \"off\" is disabled: OME v1.3 skips it"));
    assert!(skipped[2].starts_with("overlay \"local\" not found"));
    let d = with_code(&r, Code::OverlaySkipped)[0];
    assert_eq!(d.help.as_deref(), Some("did you mean `lora-a`?"));
    let pod = object(&r, "Deployment", "svc-engine")
        .at(&["spec", "template", "spec"])
        .unwrap();
    assert_eq!(
        names(pod.get("volumes"), "name"),
        ["base-model", "model-overlay-lora-a"]
    );
}

/// An unknown kind or API group stops OME's reconcile (`resolve overlay …`); a sharded
/// overlay is not rendered, as a sharded model is not.
#[test]
fn unresolvable_and_sharded_overlays_are_errors() {
    let r = overlay_render("[{name: lora-a, kind: Model}]");
    assert_eq!(
        errors(&r),
        ["resolve overlay \"lora-a\": unsupported model kind \"Model\""]
    );
    assert!(r.objects.is_empty());
    let r = overlay_render("[{name: lora-a, apiGroup: example.com}]");
    assert_eq!(
        errors(&r),
        ["resolve overlay \"lora-a\": unsupported model API group \"example.com\""]
    );
    let r = render(&format!(
        "{MODEL}{OVERLAY_RUNTIME}apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: big\nspec:\n  distribution: Sharded\n  storage: {{storageUri: \"s3://b/big\"}}\n---\n{}",
        isvc("", "  engine: {}\n").replace(
            "model: {name: base-model}",
            "model: {name: base-model, overlays: [{name: big}]}"
        )
    ));
    let e = with_code(&r, Code::UnsupportedMode);
    assert_eq!(e.len(), 1, "{:?}", errors(&r));
    assert!(
        e[0].message
            .starts_with("overlay \"big\" is a sharded model")
    );
}

/// v1.3 names the volume `model-overlay-<name>`: a model name with a dot gives a volume name
/// the API server refuses, and the render says so (the variable would keep the dot:
/// `OVERLAY_DRAFT.V2_MODEL_PATH`).
#[test]
fn a_dotted_overlay_name_is_a_volume_name_the_api_server_refuses() {
    let r = render(&format!(
        "{MODEL}{OVERLAY_RUNTIME}apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: draft.v2\nspec:\n  storage: {{storageUri: \"hf://org/draft\", path: /raid/draft}}\n---\n{}",
        isvc("", "  engine: {}\n").replace(
            "model: {name: base-model}",
            "model: {name: base-model, overlays: [{name: draft.v2}]}"
        )
    ));
    let e = errors(&r);
    assert!(
        e.iter()
            .any(|m| m.contains("\"model-overlay-draft.v2\": must not contain dots")),
        "{e:?}"
    );
    assert_eq!(
        crate::model::inference_service::overlay_env_name("draft.v2-ß"),
        "OVERLAY_DRAFT.V2_ß_MODEL_PATH"
    );
}

/// An overlay the model agent puts on the node (a hostPath of `storage.path`): a warning,
/// since OME gives the pods no node selector for it (a note once the settings say the agent
/// runs); storage the agent cannot download: the stronger warning; a PVC overlay: nothing.
#[test]
fn overlays_that_need_the_model_agent() {
    let input = format!(
        "{}{}{}{}{RAW_RUNTIME}{}",
        model("primary", "{storageUri: \"pvc://ns:claim/m\"}"),
        model(
            "hf-lora",
            "{storageUri: \"hf://org/lora\", path: /raid/lora}"
        ),
        model(
            "s3-lora",
            "{storageUri: \"s3://bucket/lora\", path: /raid/s3}"
        ),
        model("pvc-lora", "{storageUri: \"pvc://ns:adapters/lora\"}"),
        isvc_of("a", "primary").replace(
            "model: {name: primary}",
            "model: {name: primary, overlays: [{name: hf-lora}, {name: s3-lora}, {name: pvc-lora}]}"
        ),
    );
    let r = render(&input);
    assert_eq!(errors(&r), Vec::<&str>::new());
    let agent = with_code(&r, Code::ModelAgent);
    assert_eq!(agent.len(), 1, "{:?}", r.diags);
    assert_eq!(agent[0].severity, crate::diagnostics::Severity::Warning);
    assert_eq!(agent[0].object.as_ref().unwrap().name, "hf-lora");
    assert!(
        agent[0]
            .message
            .contains("mounted as an overlay from the node's `/raid/lora`")
            && agent[0].message.contains("no node selector for an overlay"),
        "{}",
        agent[0].message
    );
    let unsupported = with_code(&r, Code::ModelAgentUnsupported);
    assert_eq!(unsupported.len(), 1, "{:?}", r.diags);
    assert_eq!(unsupported[0].object.as_ref().unwrap().name, "s3-lora");
    // The requirements note lists the agent.
    assert!(
        with_code(&r, Code::ApisNeeded)
            .iter()
            .any(|d| d.message.starts_with("the output needs OME's model agent")),
        "{:?}",
        r.diags
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
    assert_eq!(with_code(&r, Code::ModelAgentUnsupported).len(), 1);
    assert!(with_code(&r, Code::ApisNeeded).is_empty(), "{:?}", r.diags);
}
