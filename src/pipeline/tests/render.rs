//! Table tests of rendering (SEMANTICS.md, "Merging", "Pods", "Objects"), each rendering a
//! small input end to end and checking the objects.

use crate::diagnostics::Diagnostic;
use crate::pipeline::{Options, Rendering, render_texts};
use crate::yaml::Node;
use crate::yaml::emit::to_json_string;

pub(super) fn render(yaml: &str) -> Rendering {
    let options = Options {
        namespace: "default".into(),
        allow_empty: true,
        ..Options::default()
    };
    render_texts(&[("in.yaml", yaml)], &options)
}

pub(super) fn errors(r: &Rendering) -> Vec<&str> {
    r.diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.as_str())
        .collect()
}

pub(super) fn object<'a>(r: &'a Rendering, kind: &str, name: &str) -> &'a Node {
    let found = r.objects.iter().find(|o| o.kind == kind && o.name == name);
    found
        .unwrap_or_else(|| panic!("no {kind}/{name}; errors: {:?}", errors(r)))
        .tree()
        .expect("an unserialised object")
}

pub(super) fn json(node: Option<&Node>) -> String {
    node.map_or_else(|| "absent".to_string(), to_json_string)
}

pub(super) const MODEL: &str = r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: base-model
  annotations: {models.ome.io/category: LARGE}
spec:
  vendor: meta
  modelFormat: {name: safetensors, version: "1.0"}
  modelFramework: {name: transformers}
  storage: {storageUri: "hf://meta/base", path: /models/base}
---
"#;

pub(super) fn runtime(engine_config: &str) -> String {
    format!(
        r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: test-runtime
spec:
  supportedModelFormats:
    - modelFormat: {{name: safetensors, version: "1.0"}}
      modelFramework: {{name: transformers}}
  engineConfig:
{engine_config}---
"#
    )
}

pub(super) fn isvc(spec: &str) -> String {
    format!(
        r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: test-isvc
  namespace: ns
  labels: {{custom-label: x}}
  annotations: {{custom-annotation: y}}
spec:
  model: {{name: base-model}}
  runtime: {{name: test-runtime}}
{spec}"
    )
}

fn container(r: &Rendering) -> &Node {
    object(r, "Deployment", "test-isvc-engine")
        .at(&["spec", "template", "spec", "containers"])
        .and_then(Node::as_seq)
        .and_then(|c| c.first())
        .expect("a container")
}

/// Labels and annotations of every object of a component, with v1.3's annotations and the
/// resolved mode (SEMANTICS.md#choice-mode-annotation).
#[test]
fn metadata_of_component_objects() {
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime("    runner: {name: ome-container, image: i}\n"),
        isvc("  engine:\n    labels: {engine-label: l}\n    annotations: {engine-annotation: a}\n")
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let d = object(&r, "Deployment", "test-isvc-engine");
    let labels = r#"{"base-model-name":"base-model","base-model-size":"LARGE","base-model-type":"Serving","base-model-vendor":"meta","component":"engine","custom-label":"x","engine-label":"l","fine-tuned-serving":"false","ome.io/inferenceservice":"test-isvc","serving-runtime":"test-runtime"}"#;
    assert_eq!(json(d.at(&["metadata", "labels"])), labels);
    assert_eq!(
        json(d.at(&["metadata", "annotations"])),
        r#"{"custom-annotation":"y","engine-annotation":"a","ome.io/base-model-format":"safetensors","ome.io/base-model-format-version":"1.0","ome.io/base-model-name":"base-model","ome.io/base-model-vendor":"meta","ome.io/deploymentMode":"RawDeployment","ome.io/serving-runtime":"test-runtime"}"#
    );
    // v1.3: the same labels on the HPA, PDB and Service; only the pods get `app`.
    for kind in ["HorizontalPodAutoscaler", "PodDisruptionBudget", "Service"] {
        assert_eq!(
            json(object(&r, kind, "test-isvc-engine").at(&["metadata", "labels"])),
            labels,
            "{kind}"
        );
    }
    assert_eq!(
        json(d.at(&["spec", "template", "metadata", "labels"])),
        labels.replacen('{', r#"{"app":"test-isvc-engine","#, 1)
    );
    // The HPA records the keys it copied.
    assert_eq!(
        object(&r, "HorizontalPodAutoscaler", "test-isvc-engine").str_at(&[
            "metadata",
            "annotations",
            "ome.io/autoscaler-propagated-metadata-keys"
        ]),
        Some(
            "base-model-name,base-model-size,base-model-type,base-model-vendor,component,custom-label,engine-label,fine-tuned-serving,ome.io/inferenceservice,serving-runtime|custom-annotation,engine-annotation,ome.io/base-model-format,ome.io/base-model-format-version,ome.io/base-model-name,ome.io/base-model-vendor,ome.io/deploymentMode,ome.io/serving-runtime"
        )
    );
}

/// A component with containers and no runner (SEMANTICS.md#pods): no MODEL_PATH, the model-ready
/// node selector, and a Service of the same name.
#[test]
fn containers_without_a_runner() {
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime("    containers: [{name: server, image: i}]\n"),
        isvc("  engine: {}\n")
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let c = container(&r);
    assert_eq!(c.get("env"), None);
    assert_eq!(
        c.get("readinessProbe"),
        None,
        "only ome-container gets OME's probe"
    );
    let d = object(&r, "Deployment", "test-isvc-engine");
    assert_eq!(
        json(d.at(&["spec", "template", "spec", "nodeSelector"])),
        r#"{"models.ome.io/clusterbasemodel.base-model":"Ready"}"#
    );
    assert!(
        r.objects
            .iter()
            .any(|o| o.kind == "Service" && o.name == "test-isvc-engine")
    );
}

/// The runner merged into the same-named container (SEMANTICS.md#pods).
#[test]
fn runner_placed_into_its_container() {
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime(
            "    containers:\n      - {name: ome-container, image: test-image, args: [--a], env: [{name: RUNTIME_ENV, value: r}], resources: {requests: {cpu: 500m}}}\n    runner:\n      name: ome-container\n      command: [/bin/bash]\n      args: [-c, echo hello]\n      env: [{name: CUSTOM_ENV, value: c}]\n      resources: {requests: {memory: 2Gi}, limits: {memory: 4Gi}}\n"
        ),
        isvc("  engine: {}\n")
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let d = object(&r, "Deployment", "test-isvc-engine");
    let containers = d
        .at(&["spec", "template", "spec", "containers"])
        .and_then(Node::as_seq)
        .unwrap();
    assert_eq!(containers.len(), 1);
    let c = &containers[0];
    assert_eq!(c.str_at(&["image"]), Some("test-image"));
    assert_eq!(json(c.get("args")), r#"["--a","-c","echo hello"]"#);
    let env: Vec<&str> = c
        .get("env")
        .and_then(Node::as_seq)
        .unwrap()
        .iter()
        .filter_map(|e| e.str_at(&["name"]))
        .collect();
    // MODEL_PATH is added to the runner before it is placed, so it comes with the runner's
    // own variables, before the container's (SEMANTICS.md#pods, with MODEL_PATH).
    assert_eq!(env, ["CUSTOM_ENV", "MODEL_PATH", "RUNTIME_ENV"]);
    assert_eq!(
        json(c.at(&["resources", "requests"])),
        r#"{"cpu":"500m","memory":"2Gi"}"#
    );
    assert_eq!(json(c.at(&["resources", "limits"])), r#"{"memory":"4Gi"}"#);
}

/// An InferenceService runner without a name keeps the runtime's (SEMANTICS.md#merging);
/// the rest merges field by field.
#[test]
fn unnamed_runner_keeps_the_runtimes_name() {
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime(
            "    runner:\n      name: decoder-runner\n      image: i\n      command: [/bin/decode]\n      args: [--mode, streaming]\n      volumeMounts: [{name: models, mountPath: /models}]\n    volumes: [{name: models, emptyDir: {}}, {name: cache, emptyDir: {}}]\n"
        ),
        isvc(
            "  engine:\n    runner:\n      args: [--mode, batch, --batch-size, \"64\"]\n      volumeMounts: [{name: cache, mountPath: /cache}, {name: models, mountPath: /models}]\n      resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}\n"
        )
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let c = container(&r);
    assert_eq!(c.str_at(&["name"]), Some("decoder-runner"));
    assert_eq!(json(c.get("command")), r#"["/bin/decode"]"#);
    assert_eq!(
        json(c.get("args")),
        r#"["--mode","batch","--batch-size","64"]"#
    );
    let mounts: Vec<&str> = c
        .get("volumeMounts")
        .and_then(Node::as_seq)
        .unwrap()
        .iter()
        .filter_map(|m| m.str_at(&["name"]))
        .collect();
    assert_eq!(mounts, ["cache", "models", "base-model"]);
    assert_eq!(
        json(c.at(&["resources", "requests"])),
        r#"{"nvidia.com/gpu":1}"#
    );
    // Neither side names it: ome-container, with OME's readiness probe.
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime("    runner: {image: i}\n"),
        isvc("  engine: {}\n")
    ));
    assert_eq!(container(&r).str_at(&["name"]), Some("ome-container"));
    assert_eq!(
        json(container(&r).get("readinessProbe")),
        r#"{"tcpSocket":{"port":8080}}"#
    );
}

/// Replica bounds and autoscaling from the merged component (SEMANTICS.md#autoscaling).
#[test]
fn replicas_and_autoscaling() {
    let hpa = |runtime_part: &str, isvc_part: &str| {
        let r = render(&format!(
            "{MODEL}{}{}",
            runtime(runtime_part),
            isvc(isvc_part)
        ));
        assert_eq!(errors(&r), Vec::<&str>::new());
        json(object(&r, "HorizontalPodAutoscaler", "test-isvc-engine").get("spec"))
    };
    let runner = "    runner: {name: ome-container, image: i}\n";
    assert!(
        hpa(
            &format!("{runner}    minReplicas: 1\n    maxReplicas: 3\n"),
            "  engine: {minReplicas: 2, maxReplicas: 10}\n"
        )
        .contains(r#""minReplicas":2,"maxReplicas":10"#)
    );
    assert!(
        hpa(
            &format!("{runner}    minReplicas: 1\n"),
            "  engine: {maxReplicas: 5}\n"
        )
        .contains(r#""minReplicas":1,"maxReplicas":5"#)
    );
    // Nothing set: 1..3 (SEMANTICS.md#choice-replica-bounds); min == max still gets an HPA.
    assert!(hpa(runner, "  engine: {}\n").contains(r#""minReplicas":1,"maxReplicas":3"#));
    assert!(
        hpa(runner, "  engine: {minReplicas: 2, maxReplicas: 2}\n")
            .contains(r#""minReplicas":2,"maxReplicas":2"#)
    );
    // v1.3 autoscaler block.
    assert!(hpa(runner, "  engine:\n    autoscaler:\n      class: HPA\n      hpa:\n        metrics: [{type: Resource, resource: {name: memory, target: {type: Utilization, averageUtilization: 60}}}]\n").contains(r#""name":"memory""#));
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime(runner),
        isvc("  engine: {autoscaler: {class: External}}\n")
    ));
    assert!(
        !r.objects
            .iter()
            .any(|o| o.kind == "HorizontalPodAutoscaler")
    );
    // A component's bad target annotation passes admission; the controller keeps the
    // default target.
    assert!(
        hpa(
            runner,
            "  engine:\n    annotations:\n      ome.io/targetUtilizationPercentage: \"high\"\n"
        )
        .contains(r#""averageUtilization":80"#)
    );
    // The InferenceService's own bad annotation is an admission error at its line, and
    // nothing is rendered.
    let text = format!("{MODEL}{}{}", runtime(runner), isvc("  engine: {}\n")).replace(
        "annotations: {custom-annotation: y}",
        "annotations: {custom-annotation: y, ome.io/targetUtilizationPercentage: \"high\"}",
    );
    let r = render(&text);
    let d = r.diags.iter().find(|d| d.is_error()).expect("an error");
    assert_eq!(
        d.message,
        "the target utilization percentage should be a [1-100] integer"
    );
    let line = text
        .lines()
        .position(|l| l.contains("targetUtilizationPercentage"))
        .unwrap()
        + 1;
    assert_eq!(d.pos.map(|p| p.line as usize), Some(line));
    assert!(r.objects.is_empty());
}

/// OME's readiness probe and strategy defaults (SEMANTICS.md#objects).
#[test]
fn deployment_defaults() {
    let probe = |ports: &str| {
        let r = render(&format!(
            "{MODEL}{}{}",
            runtime(&format!(
                "    runner: {{name: ome-container, image: i{ports}}}\n"
            )),
            isvc("  engine: {}\n")
        ));
        json(container(&r).get("readinessProbe"))
    };
    assert_eq!(probe(""), r#"{"tcpSocket":{"port":8080}}"#);
    assert_eq!(
        probe(", ports: [{containerPort: 9000}]"),
        r#"{"tcpSocket":{"port":9000}}"#
    );
    assert_eq!(
        probe(", readinessProbe: {exec: {command: [ok]}}"),
        r#"{"exec":{"command":["ok"]}}"#
    );
    let strategy = |spec: &str| {
        let r = render(&format!(
            "{MODEL}{}{}",
            runtime("    runner: {name: ome-container, image: i}\n"),
            isvc(spec)
        ));
        json(object(&r, "Deployment", "test-isvc-engine").at(&["spec", "strategy"]))
    };
    assert_eq!(
        strategy("  engine: {}\n"),
        r#"{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0,"maxSurge":1}}"#
    );
    assert_eq!(
        strategy("  engine: {deploymentStrategy: {type: Recreate}}\n"),
        r#"{"type":"Recreate"}"#
    );
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime("    runner: {name: ome-container, image: i}\n"),
        isvc("  engine: {}\n")
    ));
    assert_eq!(
        object(&r, "Deployment", "test-isvc-engine").at(&["spec", "replicas"]),
        None
    );
}

/// Class resources over the runtime's, unless the InferenceService's runner sets resources
/// (SEMANTICS.md#accelerator-classes); leader and worker merge (SEMANTICS.md#merging).
#[test]
fn class_resources_and_multinode_merge() {
    let classes = r#"apiVersion: ome.io/v1beta1
kind: AcceleratorClass
metadata: {name: gpu-class}
spec:
  capabilities: {}
  discovery: {}
  resources: [{name: nvidia.com/gpu, quantity: "2"}]
---
"#;
    let runtime_with_classes = |engine: &str| {
        runtime(engine).replace(
            "  engineConfig:\n",
            "  acceleratorRequirements: {acceleratorClasses: [gpu-class]}\n  engineConfig:\n",
        )
    };
    let base = "    runner: {name: ome-container, image: i, resources: {requests: {cpu: \"4\", memory: 8Gi}}}\n";
    let r = render(&format!(
        "{MODEL}{classes}{}{}",
        runtime_with_classes(base),
        isvc("  acceleratorSelector: {acceleratorClass: gpu-class}\n  engine: {}\n")
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    assert_eq!(
        json(container(&r).get("resources")),
        r#"{"requests":{"cpu":"4","memory":"8Gi","nvidia.com/gpu":"2"},"limits":{"nvidia.com/gpu":"2"}}"#
    );
    let r = render(&format!(
        "{MODEL}{classes}{}{}",
        runtime_with_classes(base),
        isvc(
            "  acceleratorSelector: {acceleratorClass: gpu-class}\n  engine:\n    runner: {resources: {requests: {cpu: \"2\", memory: 4Gi}}}\n"
        )
    ));
    assert_eq!(
        json(container(&r).get("resources")),
        r#"{"requests":{"cpu":"2","memory":"4Gi"}}"#
    );

    let r = render(&format!(
        "{MODEL}{}{}",
        runtime(
            "    leader: {nodeSelector: {node-role: leader}, runner: {name: leader, image: l}}\n    worker: {size: 2, runner: {name: worker, image: runtime-worker:v1}}\n"
        ),
        isvc(
            "  engine:\n    annotations: {ome.io/deploymentMode: MultiNode}\n    leader: {}\n    worker: {size: 4, runner: {image: isvc-worker:v2, resources: {requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}}}\n"
        )
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let lws = object(&r, "LeaderWorkerSet", "lws-test-isvc-engine");
    assert_eq!(
        lws.at(&["spec", "leaderWorkerTemplate", "size"])
            .and_then(Node::as_i64),
        Some(5)
    );
    let worker = lws
        .at(&[
            "spec",
            "leaderWorkerTemplate",
            "workerTemplate",
            "spec",
            "containers",
        ])
        .and_then(Node::as_seq)
        .unwrap();
    assert_eq!(worker[0].str_at(&["image"]), Some("isvc-worker:v2"));
    assert_eq!(worker[0].str_at(&["name"]), Some("worker"));
    let leader = lws
        .at(&["spec", "leaderWorkerTemplate", "leaderTemplate", "spec"])
        .unwrap();
    assert_eq!(
        leader.str_at(&["nodeSelector", "node-role"]),
        Some("leader")
    );
    assert_eq!(
        leader.at(&["containers"]).and_then(Node::as_seq).unwrap()[0].get("readinessProbe"),
        None
    );
    assert!(
        r.diags
            .iter()
            .all(|d: &Diagnostic| d.code != crate::diagnostics::Code::MultiNode),
        "declared MultiNode: no warning"
    );
    // PARALLELISM_SIZE: GPUs per pod × (1 + workers).
    assert!(to_json_string(&worker[0]).contains(r#"{"name":"PARALLELISM_SIZE","value":"5"}"#));
}

/// Long names are hashed, through the renderer (SEMANTICS.md#derived-names).
#[test]
fn long_names_are_truncated() {
    let name = "a-very-long-inferenceservice-name-for-testing-truncation-rules";
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime("    runner: {name: ome-container, image: i}\n"),
        isvc("  engine: {}\n").replace("name: test-isvc", &format!("name: {name}"))
    ));
    assert_eq!(errors(&r), Vec::<&str>::new());
    let service = r
        .objects
        .iter()
        .find(|o| o.kind == "Service" && o.name != name)
        .unwrap();
    assert_eq!(
        service.name,
        "a1159f34-erenceservice-name-for-testing-truncation-rules-engine"
    );
    assert!(
        r.objects
            .iter()
            .any(|o| o.kind == "Deployment" && o.name == format!("{name}-engine"))
    );
    assert!(
        r.objects
            .iter()
            .any(|o| o.kind == "ConfigMap" && o.name == "modelconfig-ing-truncation-rules")
    );
}

/// Accelerator selectors and overrides are typed views: a wrong type is an error at the
/// field's line and column, whatever the policy needs.
#[test]
fn accelerator_selector_type_errors_keep_their_position() {
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime("    runner: {name: ome-container, image: i}\n"),
        isvc(
            "  acceleratorSelector:\n    policy: BestFit\n    constraints: {minMemory: 80Gi}\n  engine:\n    acceleratorOverride: [h100]\n"
        )
    ));
    let found: Vec<(String, u32, u32)> = r
        .diags
        .iter()
        .filter(|d: &&Diagnostic| d.is_error())
        .map(|d| {
            let p = d.pos.expect("a position");
            (d.field.clone().unwrap_or_default(), p.line, p.col)
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "spec.acceleratorSelector.constraints.minMemory".into(),
                35,
                18
            ),
            ("spec.engine.acceleratorOverride".into(), 37, 4),
        ]
    );
    assert!(r.objects.is_empty());
}

/// A problem of the component's runner that the leader and the worker both inherit is one
/// error, not one per pod.
#[test]
fn a_problem_the_leader_and_worker_share_is_reported_once() {
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime("    leader: {}\n    worker: {size: 1}\n"),
        isvc(
            "  engine:\n    annotations: {ome.io/deploymentMode: MultiNode}\n    leader: {}\n    worker: {size: 1}\n"
        )
    ));
    assert_eq!(
        errors(&r),
        ["the engine has no runner and no containers"],
        "{:?}",
        r.diags
    );
}

/// InferenceServices are rendered a slice at a time (`RENDER_SLICE`): every one of more than
/// two slices is rendered, each object names the InferenceService it comes from, and the
/// diagnostics of the last slice are kept.
#[test]
fn every_slice_of_inference_services_is_rendered() {
    let count = 2 * super::super::RENDER_SLICE + 3;
    let mut yaml = format!(
        "{MODEL}{}",
        runtime("    runner: {name: ome-container, image: i}\n")
    );
    let service = |name: &str, runtime: &str| {
        format!(
            r"---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: {name}
  namespace: ns
spec:
  model: {{name: base-model}}
  runtime: {{name: {runtime}}}
  engine: {{}}
"
        )
    };
    for i in 0..count - 1 {
        yaml.push_str(&service(&format!("svc-{i}"), "test-runtime"));
    }
    // Last in the catalog's order (by name), it names a runtime that does not exist.
    yaml.push_str(&service("svc-zz", "missing"));
    let r = render(&yaml);
    let deployments: Vec<_> = r
        .objects
        .iter()
        .filter(|o| o.kind == "Deployment")
        .collect();
    assert_eq!(deployments.len(), count - 1, "{:?}", errors(&r));
    for d in deployments {
        let source = d
            .source
            .as_ref()
            .expect("a rendered object's InferenceService");
        assert_eq!(format!("{}-engine", source.name), d.name);
    }
    let failed: Vec<_> = r
        .diags
        .iter()
        .filter(|d| d.is_error())
        .filter_map(|d| d.object.as_ref())
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(failed, ["svc-zz"]);
    // Sized once, from the first slice's rate: no room left over from doubling.
    let (len, capacity) = (r.objects.len(), r.objects.capacity());
    assert!(capacity <= len + len / 16, "{capacity} for {len} objects");
}

#[test]
fn the_output_list_is_sized_from_the_rate_so_far() {
    use super::super::estimate;
    // All rendered: what they rendered, exactly.
    assert_eq!(estimate(12, 4, 4), 12);
    assert_eq!(estimate(0, 1024, 1024), 0);
    // 6 objects each so far: 6 for each of the rest, and a 32nd more.
    assert_eq!(estimate(6 * 1024, 1024, 10_000), 60_000 + 60_000 / 32);
    assert_eq!(estimate(0, 1024, 2048), 0);
    // Never an overflow, whatever the counts.
    assert_eq!(estimate(usize::MAX, 1, 2), usize::MAX);
}

#[test]
fn the_output_list_grows_by_an_eighth_at_least() {
    use super::super::grown;
    // An estimate a little over the capacity: an eighth more instead.
    assert_eq!(grown(8_000, 8_001), 9_000);
    // A larger estimate, or an empty list: the estimate.
    assert_eq!(grown(8_000, 20_000), 20_000);
    assert_eq!(grown(0, 10), 10);
    assert_eq!(grown(usize::MAX, 1), usize::MAX);
}

/// A probe whose merge makes a second handler is the merge's error, reported once; a probe
/// written with two handlers is the API server's (SEMANTICS.md#pod-validation).
#[test]
fn two_probe_handlers_are_reported_once() {
    let base = "    runner:\n      name: ome-container\n      image: i\n      readinessProbe: {httpGet: {path: /health, port: 8080}}\n";
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime(base),
        isvc("  engine:\n    runner: {readinessProbe: {tcpSocket: {port: 8080}}}\n")
    ));
    assert_eq!(errors(&r).len(), 1, "{:?}", errors(&r));
    assert!(errors(&r)[0].starts_with("the merged probe has 2 handlers"));
    let r = render(&format!(
        "{MODEL}{}{}",
        runtime(&base.replace("port: 8080}}", "port: 8080}, exec: {command: [x]}}")),
        isvc("  engine: {}\n")
    ));
    assert_eq!(
        errors(&r),
        [
            "the API server refuses the Deployment test-isvc-engine OME's controller creates: spec.template.spec.containers[0].readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type"
        ]
    );
}
