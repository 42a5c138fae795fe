//! `ome-render components`: OME's `kubectl ome runtime render` file mode, checked against the
//! shapes of OME's own goldens and failure cases (`pkg/cli/cmd/runtime/render_files_test.go`,
//! `testdata/render_files*.golden.yaml`), with this repository's own data
//! (SEMANTICS.md#components).

use crate::support::{run_in, scratch};
use std::fs;
use std::path::Path;

const SETTINGS: &str = "\
deploy:
  terminationGracePeriodSeconds: 30
  replicas:
    defaultMinReplicas: 2
    defaultMaxReplicas: {engine: 5}
";

/// The same defaults as OME's ConfigMap, whose `deploy` key holds JSON.
const CONFIG_MAP: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: inferenceservice-config
  namespace: ome
data:
  deploy: |
    {"defaultDeploymentMode": "RawDeployment", "terminationGracePeriodSeconds": 30,
     "replicas": {"defaultMinReplicas": 2, "defaultMaxReplicas": {"engine": 5}}}
"#;

const SERVICE: &str = "\
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: summarise
  namespace: lab
spec:
  model:
    name: mistral-small
  runtime:
    name: sgl-base
    kind: ServingRuntime
  engine:
    minReplicas: 4
";

const RUNTIMES: &str = "\
apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: sgl-base
  namespace: lab
spec:
  engineConfig:
    runner:
      name: engine
      image: registry.example/sglang:0.5
      args: [\"--tp=1\"]
---
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: mistral-small
spec:
  modelFormat:
    name: safetensors
  storage:
    storageUri: hf://mistralai/Mistral-Small
---
apiVersion: v1
kind: Service
metadata:
  name: bystander
  namespace: lab
";

/// A second service in another namespace, whose runtime sets nothing the defaults fill.
const OTHER: &str = "\
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: chat
  namespace: edge
spec:
  model:
    name: mistral-small
  runtime:
    name: sgl-base
    kind: ServingRuntime
  engine:
    minReplicas: 1
---
apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: sgl-base
  namespace: edge
spec:
  engineConfig:
    runner:
      name: engine
      image: registry.example/sglang:0.6
";

fn setup(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = scratch(name);
    for (file, text) in files {
        fs::write(dir.join(file), text).expect("fixture");
    }
    dir
}

fn item(name: &str, ns: &str, min: i64, args: bool, image: &str, indent: &str) -> String {
    let args = if args {
        format!("{indent}        args:\n{indent}        - --tp=1\n")
    } else {
        String::new()
    };
    format!(
        "{indent}apiVersion: cli.ome.io/v1alpha1
{indent}components:
{indent}  engine:
{indent}    deploymentMode: RawDeployment
{indent}    deploymentModeSource: Default
{indent}    spec:
{indent}      maxReplicas: 5
{indent}      minReplicas: {min}
{indent}      runner:
{args}{indent}        image: {image}
{indent}        name: engine
{indent}        resources: {{}}
{indent}      terminationGracePeriodSeconds: 30
{indent}deployDefaults: Applied
{indent}kind: RenderedInferenceService
{indent}metadata:
{indent}  name: {name}
{indent}  namespace: {ns}
{indent}sources:
{indent}- kind: InferenceService
{indent}  name: {ns}/{name}
{indent}  origin: File
{indent}- kind: ClusterBaseModel
{indent}  name: mistral-small
{indent}  origin: File
{indent}- kind: ServingRuntime
{indent}  name: {ns}/sgl-base
{indent}  origin: File
{indent}- kind: ConfigMap
{indent}  name: inferenceservice-config
{indent}  origin: Settings
{indent}view: Live
"
    )
}

/// One item of the list, as its own document, re-indented under `- `.
fn listed(doc: &str) -> String {
    let mut out = String::new();
    for (i, line) in doc.lines().enumerate() {
        out.push_str(if i == 0 { "- " } else { "  " });
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[test]
fn one_service_is_a_list_with_keys_sorted_and_defaults_filled() {
    let dir = setup(
        "components-one",
        &[
            ("ome-render.yaml", SETTINGS),
            ("service.yaml", SERVICE),
            ("runtimes.yaml", RUNTIMES),
        ],
    );
    let out = run_in(&dir, &["components", "."], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let want = format!(
        r"apiVersion: cli.ome.io/v1alpha1
items:
{}kind: RenderedInferenceServiceList
",
        listed(&item(
            "summarise",
            "lab",
            4,
            true,
            "registry.example/sglang:0.5",
            ""
        ))
    );
    assert_eq!(out.stdout, want);
    // Objects of other kinds are skipped with a note, as OME's file mode does.
    assert!(
        out.stderr.contains(
            "ignoring v1 Service: components reads only InferenceServices, runtimes, and models"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn every_service_sorted_by_namespace_then_name_each_as_rendered_by_name() {
    let dir = setup(
        "components-all",
        &[
            ("ome-render.yaml", SETTINGS),
            ("service.yaml", SERVICE),
            ("runtimes.yaml", RUNTIMES),
            ("edge.yaml", OTHER),
        ],
    );
    let out = run_in(&dir, &["components", "."], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let edge = item("chat", "edge", 1, false, "registry.example/sglang:0.6", "");
    let lab = item(
        "summarise",
        "lab",
        4,
        true,
        "registry.example/sglang:0.5",
        "",
    );
    let want = format!(
        r"apiVersion: cli.ome.io/v1alpha1
items:
{}{}kind: RenderedInferenceServiceList
",
        listed(&edge),
        listed(&lab)
    );
    assert_eq!(out.stdout, want);
    // Each item equals rendering that service alone.
    for (target, doc) in [("edge/chat", &edge), ("lab/summarise", &lab)] {
        let one = run_in(&dir, &["components", "--isvc", target, "."], &[], None);
        assert_eq!(one.code, 0, "{}", one.stderr);
        assert_eq!(&one.stdout, doc);
    }
    // Without a namespace, --isvc looks in -n.
    let one = run_in(
        &dir,
        &["components", "-n", "edge", "--isvc", "chat", "."],
        &[],
        None,
    );
    assert_eq!(one.stdout, edge);
}

#[test]
fn json_follows_omes_field_order_indented_by_two() {
    let dir = setup(
        "components-json",
        &[
            ("ome-render.yaml", SETTINGS),
            ("service.yaml", SERVICE),
            ("runtimes.yaml", RUNTIMES),
        ],
    );
    let out = run_in(
        &dir,
        &[
            "components",
            "--isvc",
            "lab/summarise",
            "--format",
            "json",
            ".",
        ],
        &[],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let want = r#"{
  "apiVersion": "cli.ome.io/v1alpha1",
  "kind": "RenderedInferenceService",
  "metadata": {
    "name": "summarise",
    "namespace": "lab"
  },
  "view": "Live",
  "sources": [
    {
      "kind": "InferenceService",
      "name": "lab/summarise",
      "origin": "File"
    },
    {
      "kind": "ClusterBaseModel",
      "name": "mistral-small",
      "origin": "File"
    },
    {
      "kind": "ServingRuntime",
      "name": "lab/sgl-base",
      "origin": "File"
    },
    {
      "kind": "ConfigMap",
      "name": "inferenceservice-config",
      "origin": "Settings"
    }
  ],
  "deployDefaults": "Applied",
  "components": {
    "engine": {
      "deploymentMode": "RawDeployment",
      "deploymentModeSource": "Default",
      "spec": {
        "terminationGracePeriodSeconds": 30,
        "minReplicas": 4,
        "maxReplicas": 5,
        "runner": {
          "name": "engine",
          "image": "registry.example/sglang:0.5",
          "args": [
            "--tp=1"
          ],
          "resources": {}
        }
      }
    }
  }
}
"#;
    assert_eq!(out.stdout, want);
}

fn fails(dir: &Path, args: &[&str], message: &str) {
    let out = run_in(dir, args, &[], None);
    assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
    assert_eq!(out.stdout, "", "{args:?}: nothing on stdout");
    assert!(
        out.stderr.contains(message),
        "{args:?}: wanted {message:?} in\n{}",
        out.stderr
    );
}

#[test]
fn failures_print_nothing_and_exit_1_with_omes_texts() {
    let dir = setup(
        "components-fail",
        &[
            ("ome-render.yaml", SETTINGS),
            ("service.yaml", SERVICE),
            ("runtimes.yaml", RUNTIMES),
            (
                "copy.yaml",
                r"apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: sgl-base
  namespace: lab
",
            ),
            (
                "typo.yaml",
                &SERVICE.replace("minReplicas: 4", "minReplica: 4"),
            ),
            (
                "twice.yaml",
                &SERVICE.replace("minReplicas: 4", "minReplicas: 4\n    minReplicas: 5"),
            ),
        ],
    );
    fails(
        &dir,
        &["components", "-f", "service.yaml"],
        "-f requires --deploy-config",
    );
    fails(
        &dir,
        &["components", "runtimes.yaml", "copy.yaml", "service.yaml"],
        "ambiguous file input: ServingRuntime lab/sgl-base is defined in runtimes.yaml and copy.yaml",
    );
    fails(
        &dir,
        &[
            "components",
            "--isvc",
            "lab/absent",
            "service.yaml",
            "runtimes.yaml",
        ],
        "InferenceService lab/absent not found among the inputs",
    );
    fails(
        &dir,
        &["components", "runtimes.yaml"],
        "no InferenceService among the inputs",
    );
    fails(
        &dir,
        &["components", "typo.yaml", "runtimes.yaml"],
        "strict decoding error: unknown field \"spec.engine.minReplica\"",
    );
    fails(
        &dir,
        &["components", "twice.yaml", "runtimes.yaml"],
        "duplicate key `minReplicas`",
    );
}

#[test]
fn every_failing_service_is_reported_together() {
    // Both services lose their runtime: both fail, nothing is printed.
    let lone = OTHER.split("---\n").next().expect("the service");
    let dir = setup(
        "components-together",
        &[
            ("ome-render.yaml", SETTINGS),
            ("service.yaml", SERVICE),
            ("edge.yaml", lone),
            (
                "model.yaml",
                RUNTIMES.split("---\n").nth(1).expect("the model"),
            ),
        ],
    );
    let out = run_in(&dir, &["components", "."], &[], None);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("2 of 2 InferenceServices failed to render"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("InferenceService/edge/chat"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("InferenceService/lab/summarise"),
        "{}",
        out.stderr
    );
}

/// `components --isvc lab/summarise` of `service` with the runtimes and `settings`.
fn one(name: &str, settings: &str, service: &str) -> crate::support::Output {
    let dir = setup(
        name,
        &[
            ("ome-render.yaml", settings),
            ("service.yaml", service),
            ("runtimes.yaml", RUNTIMES),
        ],
    );
    let out = run_in(
        &dir,
        &["components", "--isvc", "lab/summarise", "."],
        &[],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    out
}

#[test]
fn leader_and_worker_are_omenative_with_one_worker_and_the_grace_period_everywhere() {
    let service = SERVICE.replace(
        "  engine:\n    minReplicas: 4\n",
        "  engine:\n    leader:\n      runner:\n        name: engine\n    worker:\n      runner:\n        name: engine\n",
    );
    let out = one("components-shape", SETTINGS, &service);
    for line in [
        "    deploymentMode: OMENative\n",
        "    deploymentModeSource: LeaderWorkerShape\n",
        "      maxReplicas: 5\n      minReplicas: 2\n",
        "      leader:\n        runner:\n          name: engine\n          resources: {}\n        terminationGracePeriodSeconds: 30\n",
        "        size: 1\n        terminationGracePeriodSeconds: 30\n",
    ] {
        assert!(out.stdout.contains(line), "{line:?} in\n{}", out.stdout);
    }
}

#[test]
fn a_service_level_virtual_deployment_gets_no_defaults() {
    let service = SERVICE.replace(
        "  namespace: lab\n",
        "  namespace: lab\n  annotations:\n    ome.io/deploymentMode: VirtualDeployment\n",
    );
    let out = one("components-virtual", SETTINGS, &service);
    assert!(
        out.stdout.contains(
            "    deploymentMode: VirtualDeployment\n    deploymentModeSource: ServiceAnnotation\n"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("deployDefaults: NotApplicable\n"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("maxReplicas"), "{}", out.stdout);
    assert!(
        !out.stdout.contains("terminationGracePeriodSeconds"),
        "{}",
        out.stdout
    );
}

#[test]
fn deploy_config_with_f_files_reads_only_them_and_names_the_config_map_file() {
    let dir = setup(
        "components-deploy-config",
        &[
            ("deploy.yaml", CONFIG_MAP),
            ("service.yaml", SERVICE),
            ("runtimes.yaml", RUNTIMES),
            // Not named by -f, so not read: it would make the service ambiguous.
            ("stray.yaml", SERVICE),
        ],
    );
    let out = run_in(
        &dir,
        &[
            "components",
            "-f",
            "service.yaml",
            "-f",
            "runtimes.yaml",
            "--deploy-config",
            "deploy.yaml",
        ],
        &[],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = item(
        "summarise",
        "lab",
        4,
        true,
        "registry.example/sglang:0.5",
        "",
    )
    .replace(
        "  name: inferenceservice-config\n  origin: Settings\n",
        "  name: deploy.yaml\n  origin: File\n",
    );
    assert_eq!(
        out.stdout,
        format!(
            r"apiVersion: cli.ome.io/v1alpha1
items:
{}kind: RenderedInferenceServiceList
",
            listed(&doc)
        )
    );
    // The same defaults through ome-render.yaml give the same specs.
    let dir2 = setup(
        "components-deploy-config-same",
        &[
            ("ome-render.yaml", SETTINGS),
            ("service.yaml", SERVICE),
            ("runtimes.yaml", RUNTIMES),
        ],
    );
    let settings = run_in(&dir2, &["components", "."], &[], None);
    let spec = |s: &str| {
        s.split("  deployDefaults")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(spec(&settings.stdout), spec(&out.stdout));

    let bad = CONFIG_MAP.replace("\"defaultMinReplicas\": 2", "\"defaultMinReplicas\": 0");
    fs::write(dir.join("bad.yaml"), bad).expect("fixture");
    fails(
        &dir,
        &[
            "components",
            "-f",
            "service.yaml",
            "-f",
            "runtimes.yaml",
            "--deploy-config",
            "bad.yaml",
        ],
        "invalid deploy config, replicas.defaultMinReplicas must be > 0, got 0",
    );
    fails(
        &dir,
        &[
            "components",
            "-f",
            "runtimes.yaml",
            "--deploy-config",
            "deploy.yaml",
        ],
        "no InferenceService in -f files",
    );
    fails(
        &dir,
        &[
            "components",
            "--isvc",
            "gone",
            "-n",
            "lab",
            "-f",
            "service.yaml",
            "-f",
            "runtimes.yaml",
            "--deploy-config",
            "deploy.yaml",
        ],
        "InferenceService lab/gone not found in -f files",
    );
}

#[test]
fn an_omenative_component_gets_the_lifecycle_defaults_and_a_raw_one_does_not() {
    let settings = format!(
        "{SETTINGS}  minReadySeconds: 15\n  updateStrategy:\n    engine: {{maxSurge: 2, maxUnavailable: 1}}\n"
    );
    let native = SERVICE.replace("spec:\n", "spec:\n  deploymentMode: OMENative\n");
    let out = one("components-lifecycle", &settings, &native);
    assert!(
        out.stdout.contains(
            "    deploymentMode: OMENative\n    deploymentModeSource: ServiceSpec\n    spec:\n      lifecycle:\n        minReadySeconds: 15\n        updateStrategy:\n          rollingUpdate:\n            maxSurge: 2\n      maxReplicas: 5\n"
        ),
        "{}",
        out.stdout
    );
    // The strategy's own type decides which budget it reads.
    let typed = native.replace(
        "    minReplicas: 4\n",
        "    minReplicas: 4\n    lifecycle:\n      updateStrategy:\n        type: DrainThenSurge\n",
    );
    let out = one("components-lifecycle-typed", &settings, &typed);
    assert!(
        out.stdout.contains("          rollingUpdate:\n            maxUnavailable: 1\n          type: DrainThenSurge\n"),
        "{}",
        out.stdout
    );
    let raw = one("components-lifecycle-raw", &settings, SERVICE);
    assert!(!raw.stdout.contains("lifecycle"), "{}", raw.stdout);
}
