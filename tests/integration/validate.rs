//! The rendered objects pass the Kubernetes API schemas (`kubernetes-validate --strict`,
//! offline, Kubernetes 1.33): no unknown fields, no wrong types. Kinds without a bundled
//! schema (a LeaderWorkerSet) are reported and skipped by the tool, which is installed under
//! `target/` on first use.

use crate::support::{python_tools, run};
use std::io::Write;
use std::process::{Command, Stdio};

const RENDERED: &[&str] = &[
    "examples/llama-demo",
    "examples/llama-70b",
    "examples/inheritance-pins",
    "testdata/pin-drift",
    "examples/llama-awq-snapshot",
    "testdata/model-config/annotated",
    "testdata/seed-named",
    "testdata/command-flags",
    "testdata/router",
    "testdata/passthrough",
    "testdata/no-model",
];

#[test]
fn rendered_objects_pass_the_api_schemas() {
    for path in RENDERED {
        let out = run(&[path]);
        assert_eq!(out.code, 0, "{path}: {}", out.stderr);
        let mut child = Command::new(python_tools().join("kubernetes-validate"))
            .args(["--strict", "-k", "1.33.0", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("kubernetes-validate runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(out.stdout.as_bytes())
            .unwrap();
        let result = child.wait_with_output().unwrap();
        let report = String::from_utf8_lossy(&result.stdout).into_owned()
            + &String::from_utf8_lossy(&result.stderr);
        assert!(result.status.success(), "{path}: {report}");
        assert!(!report.contains("ERROR"), "{path}: {report}");
        assert!(
            report.contains("passed for resource deployment/") || *path == "testdata/passthrough",
            "{path}: {report}"
        );
    }
}
