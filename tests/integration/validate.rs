//! The rendered objects pass the Kubernetes API schemas (`kubernetes-validate --strict`,
//! offline, Kubernetes 1.33): no unknown fields, no wrong types. The tool has no schema for
//! the KEDA ScaledObject and the LeaderWorkerSet: `crds.py` checks those against the schemas
//! in `schemas/` first, and hands the LeaderWorkerSet's pod templates to the tool as v1
//! PodTemplates. The tools are installed under `target/` on first use.

use crate::support::{python_tools, repo_root, run};
use std::io::Write;
use std::process::{Command, Stdio};

/// A rendered path, and the kinds its output must hold (each checked by a schema).
const RENDERED: &[(&str, &[&str])] = &[
    ("examples/llama-demo", &["deployment"]),
    ("examples/llama-70b", &["deployment"]),
    (
        "examples/inheritance-pins",
        &["deployment", "controllerrevision"],
    ),
    ("testdata/pin-drift", &["deployment", "controllerrevision"]),
    ("examples/llama-awq-snapshot", &["deployment"]),
    ("testdata/model-config/annotated", &["deployment"]),
    ("testdata/seed-named", &["deployment"]),
    ("testdata/command-flags", &["deployment"]),
    ("testdata/router", &["deployment"]),
    ("testdata/passthrough", &[]),
    ("testdata/no-model", &["deployment"]),
    (
        "testdata/autoscaling",
        &[
            "deployment",
            "horizontalpodautoscaler",
            "poddisruptionbudget",
        ],
    ),
    (
        "testdata/replica-defaults",
        &["horizontalpodautoscaler", "poddisruptionbudget"],
    ),
    ("testdata/keda", &["deployment", "scaledobject"]),
    (
        "testdata/multinode",
        &["leaderworkerset", "podtemplate", "service"],
    ),
    ("testdata/admission-warnings", &["deployment"]),
    ("testdata/migration", &["deployment", "scaledobject"]),
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
    let crds = repo_root().join("tests/integration/crds.py");
    for (path, kinds) in RENDERED {
        let out = run(&[path]);
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
    // A ScaledObject trigger's metadata holds strings only, and a LeaderWorkerSet's restart
    // policy is an enum: the check must fail on both, so a pass above means something.
    let crds = repo_root().join("tests/integration/crds.py");
    let crds_arg = crds.to_str().expect("a UTF-8 path");
    let bad = "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: so, namespace: demo}\nspec:\n  scaleTargetRef: {name: d}\n  triggers: [{type: cron, metadata: {desiredReplicas: 1}}]\n---\napiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: lws, namespace: demo}\nspec:\n  leaderWorkerTemplate:\n    restartPolicy: Always\n    workerTemplate: {spec: {containers: []}}\n";
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
}
