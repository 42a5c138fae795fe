//! The rendered objects pass the Kubernetes API schemas (`kubernetes-validate --strict`,
//! offline, Kubernetes 1.33): no unknown fields, no wrong types. The tool has no schema for
//! the KEDA ScaledObject and the LeaderWorkerSet: `crds.py` checks those against the schemas
//! in `schemas/` first, and hands the LeaderWorkerSet's pod templates to the tool as v1
//! PodTemplates. The tools are installed under `target/` on first use.

use crate::support::{needs, python_tools, repo_root, run};
use std::io::Write;
use std::process::{Command, Stdio};

/// A render (its paths), and the kinds its output must hold (each checked by a schema).
const RENDERED: &[(&[&str], &[&str])] = &[
    (&["examples/llama-demo"], &["deployment"]),
    (&["examples/llama-70b"], &["deployment"]),
    (
        &["examples/inheritance-pins"],
        &["deployment", "controllerrevision"],
    ),
    (
        &["testdata/pin-drift"],
        &["deployment", "controllerrevision"],
    ),
    (&["examples/llama-awq-snapshot"], &["deployment"]),
    (&["testdata/model-config/annotated"], &["deployment"]),
    (&["testdata/seed-named"], &["deployment"]),
    (&["testdata/command-flags"], &["deployment"]),
    (&["testdata/router"], &["deployment"]),
    (&["testdata/overlays"], &["deployment"]),
    (&["testdata/passthrough"], &[]),
    (&["testdata/no-model"], &["deployment"]),
    (
        &["testdata/autoscaling"],
        &[
            "deployment",
            "horizontalpodautoscaler",
            "poddisruptionbudget",
        ],
    ),
    (
        &["testdata/replica-defaults"],
        &["horizontalpodautoscaler", "poddisruptionbudget"],
    ),
    (
        &["testdata/deploy-config"],
        &["horizontalpodautoscaler", "poddisruptionbudget"],
    ),
    (&["testdata/deploy-config/cluster"], &[]),
    (
        &["testdata/settings-old-layout"],
        &["horizontalpodautoscaler"],
    ),
    (&["testdata/keda"], &["deployment", "scaledobject"]),
    (
        &["testdata/multinode"],
        &["leaderworkerset", "podtemplate", "service"],
    ),
    (&["testdata/admission-warnings"], &["deployment"]),
    (&["testdata/migration"], &["deployment", "scaledobject"]),
    (&["testdata/bookkeeping-annotations"], &["deployment"]),
    (&["testdata/class-checks"], &["deployment"]),
    (&["testdata/class-policy"], &["deployment"]),
    (&["testdata/decoder-override"], &["deployment"]),
    (&["testdata/named-undeclared"], &["deployment"]),
    (&["testdata/ingress"], &["ingress", "deployment"]),
    (
        &["examples/gateway-api"],
        &["httproute", "backendtrafficpolicy", "deployment"],
    ),
    (
        &["testdata/service-app-protocols"],
        &["deployment", "service"],
    ),
    (&["testdata/monitoring"], &["podmonitor", "leaderworkerset"]),
    (
        &[
            "--api-versions",
            "networking.istio.io/v1",
            "testdata/traffic-intent",
        ],
        &["destinationrule", "deployment"],
    ),
    (
        &[
            "examples/llama-70b/namespace.yaml",
            "examples/llama-70b/model.yaml",
            "examples/llama-70b/runtime.yaml",
            "examples/llama-70b/accelerator-classes.yaml",
            "testdata/seventy-h100",
        ],
        &["deployment"],
    ),
];

/// Runs `program` with `stdin` as its standard input; its exit status and both outputs.
fn pipe(program: &std::path::Path, args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{} runs: {e}", program.display()));
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .unwrap();
    let result = child.wait_with_output().unwrap();
    (
        result.status.success(),
        String::from_utf8_lossy(&result.stdout).into_owned(),
        String::from_utf8_lossy(&result.stderr).into_owned(),
    )
}

#[test]
fn rendered_objects_pass_the_api_schemas() {
    needs!(Python);
    let crds = repo_root().join("tests/integration/crds.py");
    for (paths, kinds) in RENDERED {
        let path = paths.last().expect("a path");
        let out = run(paths);
        assert_eq!(out.code, 0, "{path}: {}", out.stderr);
        let crds_arg = crds.to_str().expect("a UTF-8 path");
        let (ok, objects, crd_report) =
            pipe(&python_tools().join("python"), &[crds_arg], &out.stdout);
        assert!(ok, "{path}: {crd_report}");
        let (ok, stdout, stderr) = pipe(
            &python_tools().join("kubernetes-validate"),
            &["--strict", "-k", "1.33.0", "-"],
            &objects,
        );
        let report = crd_report + &stdout + &stderr;
        assert!(ok, "{path}: {report}");
        assert!(!report.contains("ERROR"), "{path}: {report}");
        // Nothing may be skipped for want of a schema.
        assert!(!report.contains("Couldn't find schema"), "{path}: {report}");
        for kind in *kinds {
            assert!(
                report.contains(&format!("passed for resource {kind}/")),
                "{path}: no {kind} checked\n{report}"
            );
        }
    }
}

#[test]
fn the_crd_schemas_refuse_what_the_api_server_would() {
    needs!(Python);
    // A ScaledObject trigger's metadata holds strings only, and a LeaderWorkerSet's restart
    // policy is an enum: the check must fail on both, so a pass above means something.
    let crds = repo_root().join("tests/integration/crds.py");
    let crds_arg = crds.to_str().expect("a UTF-8 path");
    let bad = r"apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: so, namespace: demo}
spec:
  scaleTargetRef: {name: d}
  triggers: [{type: cron, metadata: {desiredReplicas: 1}}]
---
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: lws, namespace: demo}
spec:
  leaderWorkerTemplate:
    restartPolicy: Always
    workerTemplate: {spec: {containers: []}}
";
    let (ok, _, report) = pipe(&python_tools().join("python"), &[crds_arg], bad);
    assert!(!ok, "{report}");
    assert!(
        report.contains("ScaledObject/so spec.triggers.0.metadata.desiredReplicas"),
        "{report}"
    );
    assert!(
        report.contains("LeaderWorkerSet/lws spec.leaderWorkerTemplate.restartPolicy"),
        "{report}"
    );
    // The published HTTPRoute and BackendTrafficPolicy schemas: an unknown field and a
    // value outside an enum.
    let bad = r"apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: demo}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: s, port: 80}], timeout: {request: 0s}}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: p, namespace: demo}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  loadBalancer: {type: Hashing}
";
    let (ok, _, report) = pipe(&python_tools().join("python"), &[crds_arg], bad);
    assert!(!ok, "{report}");
    assert!(report.contains("HTTPRoute/r spec.rules.0"), "{report}");
    assert!(
        report.contains("BackendTrafficPolicy/p spec.loadBalancer.type"),
        "{report}"
    );
    // A PodMonitor endpoint's field misspelt, and an Istio load balancer that is no enum
    // value: the vendored CRD schemas refuse both.
    let bad = r"apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: pm, namespace: demo}
spec:
  selector: {matchLabels: {app: a}}
  podMetricsEndpoints: [{port: http, intervall: 10s}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: dr, namespace: demo}
spec:
  host: a
  trafficPolicy: {loadBalancer: {simple: LEAST}}
";
    let (ok, _, report) = pipe(&python_tools().join("python"), &[crds_arg], bad);
    assert!(!ok, "{report}");
    assert!(
        report.contains("PodMonitor/pm spec.podMetricsEndpoints.0"),
        "{report}"
    );
    assert!(
        report.contains("DestinationRule/dr spec.trafficPolicy.loadBalancer"),
        "{report}"
    );
}

/// Every fixture directory whose render succeeds is among [`RENDERED`], so the schemas see
/// every object a fixture shows.
#[test]
fn every_fixture_that_renders_is_checked() {
    let listed: Vec<&str> = RENDERED
        .iter()
        .map(|(paths, _)| *paths.last().expect("a path"))
        .collect();
    let mut missing = Vec::new();
    for top in ["testdata", "examples"] {
        let mut dirs = Vec::new();
        for entry in std::fs::read_dir(repo_root().join(top)).unwrap() {
            let path = entry.unwrap().path();
            if !path.is_dir() || path.ends_with("bad") || path.ends_with("hf") {
                continue;
            }
            dirs.push(path.clone());
            // One level more (`model-config/annotated`), but not the parts of a fixture.
            for sub in std::fs::read_dir(&path).unwrap() {
                let sub = sub.unwrap().path();
                let part = ["ome-revisions", "snapshot"]
                    .iter()
                    .any(|p| sub.ends_with(p));
                if sub.is_dir() && !part {
                    dirs.push(sub);
                }
            }
        }
        dirs.sort();
        for dir in dirs {
            let has_input = std::fs::read_dir(&dir).unwrap().any(|e| {
                let p = e.unwrap().path();
                matches!(
                    p.extension().and_then(|x| x.to_str()),
                    Some("yaml" | "json")
                )
            });
            let rel = dir.strip_prefix(repo_root()).unwrap();
            let rel = rel.to_str().unwrap();
            if !has_input || listed.contains(&rel) {
                continue;
            }
            if run(&["-q", rel]).code == 0 {
                missing.push(rel.to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "fixtures that render but are not checked against the schemas: {missing:?}"
    );
}
