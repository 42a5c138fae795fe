//! What Flux users rely on (docs/flux.md): `render --check PATH` finds a committed render
//! that is stale and prints the unified diff, and a rendered `${` is a warning, since Flux's
//! post-build substitution would rewrite it.

use crate::support::{needs, repo_root, run_in, scratch};
use std::fs;
use std::path::Path;

/// A repository with the example under `manifests/`.
fn repo(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    let manifests = dir.join("manifests");
    fs::create_dir_all(&manifests).unwrap();
    crate::support::copy_files(
        &repo_root().join("examples/llama-demo"),
        &manifests,
        str::to_string,
    );
    dir
}

fn bump_replicas(dir: &Path) {
    let isvc = dir.join("manifests/isvc.yaml");
    let text = fs::read_to_string(&isvc)
        .unwrap()
        .replace("maxReplicas: 1", "maxReplicas: 2");
    fs::write(&isvc, text).unwrap();
}

#[test]
fn check_compares_a_committed_directory_with_a_fresh_render() {
    let dir = repo("flux-check-dir");
    let written = run_in(
        &dir,
        &["-q", "--output-dir", "rendered", "manifests"],
        &[],
        None,
    );
    assert_eq!(written.code, 0, "{}", written.stderr);
    let fresh = run_in(&dir, &["-q", "--check", "rendered", "manifests"], &[], None);
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);
    assert_eq!(fresh.stdout, "");
    // The same spelled after the subcommand.
    let fresh = run_in(
        &dir,
        &["-q", "render", "--check", "rendered/", "manifests"],
        &[],
        None,
    );
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);

    bump_replicas(&dir);
    fs::write(dir.join("rendered/stray.yaml"), "kind: Leftover\n").unwrap();
    let stale = run_in(&dir, &["-q", "--check", "rendered", "manifests"], &[], None);
    assert_eq!(stale.code, 1, "{}", stale.stderr);
    let hpa = "rendered/llama-demo_autoscaling_v2_horizontalpodautoscaler_llama-3-2-3b-instruct-engine.yaml";
    for part in [
        format!("--- a/{hpa}\n+++ b/{hpa}\n"),
        "-  maxReplicas: 1\n+  maxReplicas: 2\n".to_string(),
        "--- a/rendered/stray.yaml\n+++ /dev/null\n@@ -1 +0,0 @@\n-kind: Leftover\n".to_string(),
    ] {
        assert!(
            stale.stdout.contains(&part),
            "{part:?} in\n{}",
            stale.stdout
        );
    }
    assert!(
        stale.stderr.contains("error[ome::output::stale]"),
        "{}",
        stale.stderr
    );
    assert!(
        stale
            .stderr
            .contains("2 files of rendered differ from a fresh render"),
        "{}",
        stale.stderr
    );
    // Nothing was written.
    assert!(
        fs::read_to_string(dir.join(hpa))
            .unwrap()
            .contains("maxReplicas: 1")
    );
    // The diff brings the committed render up to date.
    let patch = dir.join("stale.diff");
    fs::write(&patch, &stale.stdout).unwrap();
    let applied = std::process::Command::new("git")
        .args(["apply", "--unsafe-paths", "-p1"])
        .arg(&patch)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let fresh = run_in(&dir, &["-q", "--check", "rendered", "manifests"], &[], None);
    assert_eq!(fresh.code, 0, "{}", fresh.stdout);
}

#[test]
fn check_compares_a_committed_file_and_reports_a_missing_one() {
    let dir = repo("flux-check-file");
    let missing = run_in(&dir, &["-q", "--check", "all.yaml", "manifests"], &[], None);
    assert_eq!(missing.code, 1);
    assert!(
        missing
            .stdout
            .starts_with("--- /dev/null\n+++ b/all.yaml\n"),
        "{}",
        missing.stdout
    );
    let written = run_in(&dir, &["-q", "-o", "all.yaml", "manifests"], &[], None);
    assert_eq!(written.code, 0, "{}", written.stderr);
    let fresh = run_in(&dir, &["-q", "--check", "all.yaml", "manifests"], &[], None);
    assert_eq!(
        (fresh.code, fresh.stdout.as_str()),
        (0, ""),
        "{}",
        fresh.stderr
    );
    bump_replicas(&dir);
    let stale = run_in(&dir, &["-q", "--check", "all.yaml", "manifests"], &[], None);
    assert_eq!(stale.code, 1);
    assert!(
        stale
            .stdout
            .contains("-  maxReplicas: 1\n+  maxReplicas: 2\n"),
        "{}",
        stale.stdout
    );
    // --check writes nothing, so it takes no output flag.
    let usage = run_in(
        &dir,
        &["--check", "all.yaml", "-o", "x.yaml", "manifests"],
        &[],
        None,
    );
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    // An input error is reported as such, with no diff.
    fs::write(dir.join("manifests/broken.yaml"), "kind: [\n").unwrap();
    let broken = run_in(&dir, &["-q", "--check", "all.yaml", "manifests"], &[], None);
    assert_eq!((broken.code, broken.stdout.as_str()), (1, ""));
    assert!(
        broken.stderr.contains("ome::load::yaml"),
        "{}",
        broken.stderr
    );
}

#[test]
fn a_rendered_dollar_brace_warns_about_flux_substitution() {
    let dir = repo("flux-substitution");
    let runtime = dir.join("manifests/runtime.yaml");
    let text = fs::read_to_string(&runtime)
        .unwrap()
        .replace("- --tp-size=1", "- --tp-size=${TP}");
    fs::write(&runtime, text).unwrap();
    let out = run_in(&dir, &["-q", "manifests"], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("--tp-size=${TP}"));
    assert!(
        out.stderr
            .contains("warning[ome::output::flux-substitution]"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "Deployment/llama-demo/llama-3-2-3b-instruct-engine contains `${` (`- --tp-size=${TP}`)"
        ),
        "{}",
        out.stderr
    );
    // It points at the runtime's line that holds `${` (#32), the InferenceService second.
    let (line, col) = crate::support::line_col(&runtime, "--tp-size=${TP}");
    assert!(
        out.stderr
            .contains(&format!("manifests/runtime.yaml:{line}:{col}]")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains(&format!("{line} |         - --tp-size=${{TP}}")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "InferenceService/llama-demo/llama-3-2-3b-instruct, which renders Deployment/llama-demo/llama-3-2-3b-instruct-engine"
        ) && out.stderr.contains("manifests/isvc.yaml:"),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.stderr
            .matches("warning[ome::output::flux-substitution]")
            .count(),
        1,
        "only the Deployment holds it"
    );
    let strict = run_in(&dir, &["-q", "--strict", "manifests"], &[], None);
    assert_eq!((strict.code, strict.stdout.as_str()), (1, ""));
    let checked = run_in(&dir, &["-q", "check", "manifests"], &[], None);
    assert_eq!(checked.code, 0);
    assert!(
        checked.stderr.contains("ome::output::flux-substitution"),
        "check runs it too"
    );
    // The object opts out of Flux's substitution: no warning.
    let isvc = dir.join("manifests/isvc.yaml");
    let text = fs::read_to_string(&isvc).unwrap().replace(
        "  namespace: llama-demo\n",
        "  namespace: llama-demo\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n",
    );
    fs::write(&isvc, text).unwrap();
    let opted_out = run_in(&dir, &["-q", "--strict", "manifests"], &[], None);
    assert_eq!(opted_out.code, 0, "{}", opted_out.stderr);
}

#[test]
fn the_flux_and_argo_cd_examples_are_objects() {
    needs!(Python);
    // kubernetes-validate has no schemas for Flux's and Argo CD's kinds: check what a reader
    // of the examples relies on, that every document is an object of the expected kind.
    let script = r"import sys, yaml
for path in sys.argv[1:]:
    for d in yaml.safe_load_all(open(path)):
        assert d['apiVersion'] and d['metadata']['name'], (path, d)
        print(d['kind'])
";
    let out = std::process::Command::new(crate::support::python_tools().join("python"))
        .args(["-c", script])
        .args([
            "deploy/flux/rendered-manifests.yaml",
            "deploy/flux/oci-artifact.yaml",
            "deploy/argocd/application.yaml",
        ])
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "GitRepository\nKustomization\nOCIRepository\nKustomization\nApplication\n"
    );
}
