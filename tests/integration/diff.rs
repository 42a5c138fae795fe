//! `ome-render diff` from the command line (README.md, "Pull requests"): exit codes, nothing
//! on standard output on error, both sides' diagnostics labelled, `--base-ref` from a Git
//! repository without touching its working tree, colour only when asked.

use crate::support::{
    commit_all, copy_files, edit, example_repo, git, repo_root, run, run_in, scratch,
};
use std::fs;
use std::path::{Path, PathBuf};

const EXAMPLE: &str = "examples/llama-demo";
/// The line of `spec.model.name` in the example's isvc.yaml.
const MODEL_LINE: usize = 9;

/// A copy of the example with `edit` applied to one of its files.
fn changed_copy(name: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let dir = scratch(name);
    copy_files(&repo_root().join(EXAMPLE), &dir, str::to_string);
    edit(&dir.join(file), from, to);
    dir
}

fn text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn differences_exit_zero_or_three_with_exit_code() {
    let head = changed_copy(
        "diff-exit",
        "runtime.yaml",
        "--mem-frac=0.9",
        "--mem-frac=0.8",
    );
    let out = run(&["-q", "diff", EXAMPLE, &text(&head)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first: Vec<&str> = out.stdout.lines().take(4).collect();
    assert!(
        first[0].starts_with(&format!("ome-render diff {EXAMPLE} → ")),
        "{first:?}"
    );
    assert_eq!(first[1], "impact:");
    assert_eq!(
        first[2],
        "  ServingRuntime/llama-demo/sglang-llama-3-2-3b changed: reaches 1 InferenceService"
    );
    assert!(
        out.stdout
            .contains("\n-        - --mem-frac=0.9\n+        - --mem-frac=0.8\n"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains('\x1b'), "no colour in a pipe");
    assert_eq!(
        run(&["-q", "diff", "--exit-code", EXAMPLE, &text(&head)]).code,
        3
    );
    let same = run(&["-q", "diff", "--exit-code", EXAMPLE, EXAMPLE]);
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert!(
        same.stdout.contains(": no differences (7 objects)"),
        "{}",
        same.stdout
    );
    let colour = run(&["-q", "diff", "--color", "always", EXAMPLE, &text(&head)]);
    assert!(
        colour
            .stdout
            .contains("\x1b[32m+        - --mem-frac=0.8\x1b[0m"),
        "{}",
        colour.stdout
    );
}

#[test]
fn the_formats_say_the_same() {
    let head = changed_copy(
        "diff-formats",
        "runtime.yaml",
        "--mem-frac=0.9",
        "--mem-frac=0.8",
    );
    let md = run(&["-q", "diff", "--format", "markdown", EXAMPLE, &text(&head)]);
    assert_eq!(md.code, 0);
    assert!(
        md.stdout
            .starts_with("### ome-render diff <code>examples/llama-demo</code> → <code>"),
        "{}",
        md.stdout
    );
    assert!(md.stdout.contains("| InferenceServices | 0 | 0 | 1 |"));
    assert!(md.stdout.contains(
        "<details><summary>InferenceService <code>llama-demo/llama-3-2-3b-instruct</code>"
    ));
    let json = run(&["-q", "diff", "--format", "json", EXAMPLE, &text(&head)]);
    assert_eq!(json.code, 0);
    assert!(
        json.stdout
            .starts_with("{\"base\":\"examples/llama-demo\","),
        "{}",
        json.stdout
    );
    assert!(json.stdout.contains("\"differences\":true"));
    assert!(
        json.stdout
            .contains("\"reached\":[\"llama-demo/llama-3-2-3b-instruct\"]")
    );
    assert_eq!(json.stdout.lines().count(), 1);
}

#[test]
fn input_errors_on_either_side_exit_one_with_both_sides_labelled() {
    let broken = changed_copy(
        "diff-broken",
        "isvc.yaml",
        "    name: llama-3-2-3b-instruct\n  engine",
        "    name: no-such-model\n  engine",
    );
    for (base, head, side) in [
        (EXAMPLE.to_string(), text(&broken), "head"),
        (text(&broken), EXAMPLE.to_string(), "base"),
    ] {
        let out = run(&["-q", "diff", &base, &head]);
        // A failing base is reported and compared as empty (a pull request that repairs it);
        // a failing head fails.
        let code = if side == "head" { 1 } else { 0 };
        assert_eq!(out.code, code, "{}", out.stderr);
        if side == "head" {
            assert_eq!(out.stdout, "", "nothing on standard output on error");
        } else {
            assert!(
                out.stdout.contains("the base does not render"),
                "{}",
                out.stdout
            );
        }
        assert!(out.stderr.contains(&format!("{side}: ")), "{}", out.stderr);
        assert!(
            out.stderr.contains("error[ome::model::not-found]"),
            "{}",
            out.stderr
        );
        let json = run(&["-q", "--error-format", "json", "diff", &base, &head]);
        assert_eq!(json.code, code);
        assert!(
            json.stderr.lines().any(|l| l.starts_with(&format!(
                "{{\"side\":\"{side}\",\"severity\":\"error\",\"code\":\"ome::model::not-found\""
            ))),
            "{}",
            json.stderr
        );
    }
}

#[test]
fn usage_errors_exit_two() {
    for args in [
        &["diff", EXAMPLE][..],
        &["diff", EXAMPLE, EXAMPLE, EXAMPLE],
        &["diff", "--ignore-field", "a..b", EXAMPLE, EXAMPLE],
        &["diff", "-", "-"],
    ] {
        let out = run(args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, "");
    }
}

#[test]
fn ignored_fields_and_secrets() {
    let dir = scratch("diff-secret");
    let (base, head) = (dir.join("base"), dir.join("head"));
    for (d, token, build) in [(&base, "c2VjcmV0LTE=", "1"), (&head, "c2VjcmV0LTI=", "2")] {
        fs::create_dir_all(d).unwrap();
        fs::write(
            d.join("objects.yaml"),
            format!(
                r#"apiVersion: v1
kind: Secret
metadata: {{name: s, namespace: team}}
data: {{token: {token}}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  namespace: team
  annotations: {{example.com/build: "{build}"}}
data: {{k: v}}
"#
            ),
        )
        .unwrap();
    }
    let out = run(&[
        "-q",
        "diff",
        "--ignore-field",
        "metadata.annotations.example.com/build",
        &text(&base),
        &text(&head),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("~ Secret team/s (+1 -1)"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("ConfigMap"),
        "the build annotation is ignored: {}",
        out.stdout
    );
    assert!(!out.stdout.contains("c2VjcmV0") && out.stdout.contains("token: (redacted sha256:"));
}

/// Runs ome-render in the repository `dir` with a temporary directory of its own, and
/// checks that neither the working tree nor the worktree list changed and that no checkout
/// is left behind.
fn run_in_repo(dir: &Path, tmp: &Path, args: &[&str]) -> crate::support::Output {
    let status = git(dir, &["status", "--porcelain"]);
    let worktrees = git(dir, &["worktree", "list"]);
    fs::create_dir_all(tmp).unwrap();
    let out = run_in(dir, args, &[("TMPDIR", &text(tmp))], None);
    assert_eq!(
        git(dir, &["status", "--porcelain"]),
        status,
        "the working tree is untouched"
    );
    assert_eq!(
        git(dir, &["worktree", "list"]),
        worktrees,
        "the temporary worktree is gone"
    );
    assert_eq!(
        fs::read_dir(tmp).unwrap().count(),
        0,
        "nothing is left in the temporary directory"
    );
    out
}

#[test]
fn base_ref_renders_the_revision_and_leaves_the_working_tree_alone() {
    let root = scratch("diff-base-ref");
    let repo = root.join("repo");
    fs::create_dir_all(&repo).unwrap();
    let base = example_repo(&repo);
    edit(
        &repo.join("llama-demo/runtime.yaml"),
        "--mem-frac=0.9",
        "--mem-frac=0.7",
    );
    let head = commit_all(&repo, "head");
    // An uncommitted change and a new directory: the head is the working tree.
    edit(
        &repo.join("llama-demo/isvc.yaml"),
        "maxReplicas: 1",
        "maxReplicas: 3",
    );
    fs::create_dir_all(repo.join("extra")).unwrap();
    fs::write(
        repo.join("extra/ns.yaml"),
        r"apiVersion: v1
kind: Namespace
metadata: {name: extra}
",
    )
    .unwrap();
    let out = run_in_repo(
        &repo,
        &root.join("tmp"),
        &["diff", "--base-ref", &base, "llama-demo", "extra"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with(&format!(
            "ome-render diff {} → working tree (on {}):",
            &base[..7],
            &head[..7]
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("+        - --mem-frac=0.7\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("  1 InferenceService edited: llama-demo/llama-3-2-3b-instruct\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("+ Namespace extra (+4 -0)\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("note[ome::diff::path-missing]: extra is not in"),
        "{}",
        out.stderr
    );
    // Files of the base are shown as written, not in the temporary checkout.
    assert!(
        out.stderr.contains("llama-demo/isvc.yaml:9:5"),
        "{}",
        out.stderr
    );
    // And quoted: a base read from a checkout keeps its texts, which go with the checkout
    // before the report (SEMANTICS.md#source-texts).
    let (base_report, head_report) = out.stderr.split_once("\nhead: ").unwrap();
    for report in [base_report, head_report] {
        assert!(
            report.contains(" 9 |     name: llama-3-2-3b-instruct\n"),
            "{}",
            out.stderr
        );
    }
    assert!(!out.stderr.contains("ome-render-base-"), "{}", out.stderr);
    // From a subdirectory, paths are relative to it.
    let sub = run_in_repo(
        &repo.join("llama-demo"),
        &root.join("tmp"),
        &["-q", "diff", "--base-ref", &base, "."],
    );
    assert_eq!(sub.code, 0, "{}", sub.stderr);
    assert!(
        sub.stdout.contains("+        - --mem-frac=0.7\n"),
        "{}",
        sub.stdout
    );
    // An unknown revision is a usage error.
    let bad = run_in_repo(
        &repo,
        &root.join("tmp"),
        &["diff", "--base-ref", "no-such-branch", "llama-demo"],
    );
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("--base-ref no-such-branch: no such commit"),
        "{}",
        bad.stderr
    );
}

#[test]
fn base_errors_are_annotated_without_the_heads_lines() {
    let root = scratch("diff-base-errors");
    let repo = root.join("repo");
    fs::create_dir_all(&repo).unwrap();
    example_repo(&repo);
    edit(
        &repo.join("llama-demo/isvc.yaml"),
        "    name: llama-3-2-3b-instruct\n  engine",
        "    name: no-such-model\n  engine",
    );
    let broken = commit_all(&repo, "broken base");
    edit(
        &repo.join("llama-demo/isvc.yaml"),
        "    name: no-such-model\n  engine",
        "    name: llama-3-2-3b-instruct\n  engine",
    );
    let out = run_in_repo(
        &repo,
        &root.join("tmp"),
        &[
            "-q",
            "--error-format",
            "github",
            "diff",
            "--base-ref",
            &broken,
            "llama-demo",
        ],
    );
    // The head repairs the base: compared with nothing, exit 0.
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("the base does not render"),
        "{}",
        out.stdout
    );
    let errors: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", out.stderr);
    assert!(
        errors[0].starts_with(&format!(
            "::error title=ome%3A%3Amodel%3A%3Anot-found::base llama-demo/isvc.yaml:{MODEL_LINE}: "
        )),
        "{}",
        errors[0]
    );
}

/// `--deploy-config` inside the repository is read from the base revision on the base side,
/// as the tree is; missing there, the base renders without it (a note).
#[test]
fn base_ref_reads_the_deploy_config_of_the_base_revision() {
    let root = scratch("diff-base-ref-deploy-config");
    let repo = root.join("repo");
    fs::create_dir_all(&repo).unwrap();
    example_repo(&repo);
    let config = |seconds: u32| {
        format!(
            r#"apiVersion: v1
kind: ConfigMap
metadata: {{name: inferenceservice-config, namespace: ome}}
data:
  deploy: '{{"defaultDeploymentMode": "RawDeployment", "terminationGracePeriodSeconds": {seconds}}}'
"#
        )
    };
    fs::create_dir_all(repo.join("cluster")).unwrap();
    fs::write(repo.join("cluster/cm.yaml"), config(45)).unwrap();
    let base = commit_all(&repo, "the cluster's ConfigMap");
    fs::write(repo.join("cluster/cm.yaml"), config(90)).unwrap();
    let args = [
        "-q",
        "diff",
        "--deploy-config",
        "cluster/cm.yaml",
        "--base-ref",
        &base,
        "llama-demo",
    ];
    let out = run_in_repo(&repo, &root.join("tmp"), &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "-      terminationGracePeriodSeconds: 45\n+      terminationGracePeriodSeconds: 90\n"
        ),
        "{}",
        out.stdout
    );
    // Not in the base revision: the base renders without it.
    let before = git(&repo, &["rev-parse", "HEAD~1"]);
    let args = [
        "diff",
        "--deploy-config",
        "cluster/cm.yaml",
        "--base-ref",
        &before,
        "llama-demo",
    ];
    let out = run_in_repo(&repo, &root.join("tmp"), &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the base is rendered without --deploy-config"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("+      terminationGracePeriodSeconds: 90\n"),
        "{}",
        out.stdout
    );
}
