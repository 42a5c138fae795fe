//! A command line a newcomer cannot trip on (issue 33): names one or two edits from a known
//! one get a did-you-mean help, a mistyped subcommand is a usage error, `--max-bytes` is
//! honoured or refused, a size mismatch names the model's size and the runtime's range.

use crate::support::{copy_files, edit, repo_root, run, run_in, scratch};
use std::path::PathBuf;

const EXAMPLE: &str = "examples/llama-demo";

/// A copy of the example with `from` replaced by `to` in `file`.
fn changed(name: &str, file: &str, from: &str, to: &str) -> PathBuf {
    let dir = scratch(name);
    copy_files(&repo_root().join(EXAMPLE), &dir, str::to_string);
    edit(&dir.join(file), from, to);
    dir
}

fn text(p: &std::path::Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Runs `args` in the repository root: it must exit `code` and say `text` on standard error.
fn says(args: &[&str], code: i32, text: &str) -> crate::support::Output {
    let out = run(args);
    assert_eq!(out.code, code, "{}", out.stderr);
    assert!(out.stderr.contains(text), "{}", out.stderr);
    out
}

#[test]
fn a_misspelt_runtime_model_or_class_gets_did_you_mean() {
    let runtime = changed(
        "typo-runtime",
        "isvc.yaml",
        "  engine:\n",
        "  runtime:\n    name: sglang-llama-3-2-3c\n  engine:\n",
    );
    says(
        &["check", &text(&runtime)],
        1,
        "help: did you mean `sglang-llama-3-2-3b`?",
    );
    let model = changed(
        "typo-model",
        "isvc.yaml",
        "name: llama-3-2-3b-instruct\n  engine",
        "name: llama-3-2-3b-instrct\n  engine",
    );
    says(
        &["check", &text(&model)],
        1,
        "help: did you mean `llama-3-2-3b-instruct`?",
    );
    // Far from every name: the usual help.
    let far = changed(
        "typo-far",
        "isvc.yaml",
        "  engine:\n",
        "  runtime:\n    name: something-else\n  engine:\n",
    );
    let out = run(&["check", &text(&far)]);
    assert_eq!(out.code, 1);
    assert!(!out.stderr.contains("did you mean"), "{}", out.stderr);
    assert!(out.stderr.contains("add the runtime's file to the paths"));
    // An accelerator class, with a runtime that requires one.
    let class = scratch("typo-class");
    copy_files(
        &repo_root().join("testdata/bad/ref-accelerator-class-missing"),
        &class,
        str::to_string,
    );
    edit(
        &class.join("isvc.yaml"),
        "acceleratorClass: nvidia-h200",
        "acceleratorClass: nvidia-h10",
    );
    std::fs::write(
        class.join("class.yaml"),
        r#"apiVersion: ome.io/v1beta1
kind: AcceleratorClass
metadata:
  name: nvidia-h100
spec:
  capabilities:
    memoryGB: 80Gi
  discovery:
    nodeSelector: {nvidia.com/gpu.product: H100}
  resources:
    - name: nvidia.com/gpu
      quantity: "1"
"#,
    )
    .unwrap();
    let out = run(&["check", &text(&class)]);
    assert!(
        out.stderr.contains("help: did you mean `nvidia-h100`?"),
        "{}",
        out.stderr
    );
}

#[test]
fn explain_tree_and_pin_suggest_names() {
    says(
        &[
            "explain",
            "--isvc",
            "llama-demo/llama-3-2-3b-instrct",
            EXAMPLE,
        ],
        1,
        "help: did you mean `llama-3-2-3b-instruct`?",
    );
    // The name exists, in another namespace: which one.
    says(
        &["explain", "--isvc", "wrong/llama-3-2-3b-instruct", EXAMPLE],
        1,
        "help: InferenceService llama-3-2-3b-instruct is in namespace llama-demo: name it `llama-demo/llama-3-2-3b-instruct`",
    );
    says(
        &["tree", "sglang-llama-3-2-3", "-n", "llama-demo", EXAMPLE],
        1,
        "help: did you mean `sglang-llama-3-2-3b`?",
    );
    let dir = scratch("typo-pin");
    copy_files(&repo_root().join(EXAMPLE), &dir, str::to_string);
    let out = run_in(
        &dir,
        &["pin", "--advance", "llama-demo/llama-3-2-3b-instruc", "."],
        &[],
        None,
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("help: did you mean `llama-3-2-3b-instruct`?"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_mistyped_subcommand_is_a_usage_error_unless_the_path_exists() {
    let out = run(&["chek", EXAMPLE]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("unrecognized subcommand 'chek'; did you mean 'check'?"),
        "{}",
        out.stderr
    );
    // After a global flag too.
    says(
        &["--strict", "explian", EXAMPLE],
        2,
        "did you mean 'explain'?",
    );
    // A path named like that is read as a path.
    let dir = scratch("typo-subcommand-path");
    std::fs::create_dir(dir.join("chek")).unwrap();
    copy_files(
        &repo_root().join(EXAMPLE),
        &dir.join("chek"),
        str::to_string,
    );
    let out = run_in(&dir, &["-q", "chek"], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("kind: Deployment"));
    // A missing path far from every subcommand is an input error, as before.
    let out = run(&["no-such-directory"]);
    assert_eq!(out.code, 1);
}

#[test]
fn max_bytes_is_honoured_or_refused_with_the_minimum() {
    let head = changed(
        "typo-max-bytes",
        "runtime.yaml",
        "--mem-frac=0.9",
        "--mem-frac=0.8",
    );
    let args = |max: &str| {
        run(&[
            "-q",
            "diff",
            "--format",
            "markdown",
            "--max-bytes",
            max,
            EXAMPLE,
            &text(&head),
        ])
    };
    let out = args("100");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    let least: usize = out
        .stderr
        .split("pass --max-bytes ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(
        out.stderr
            .contains("--max-bytes 100: the smallest Markdown report")
    );
    // The minimum fits, exactly; one byte less is refused.
    let fits = args(&least.to_string());
    assert_eq!(fits.code, 0, "{}", fits.stderr);
    assert!(
        fits.stdout.len() <= least,
        "{} > {least}",
        fits.stdout.len()
    );
    assert_eq!(args(&(least - 1).to_string()).code, 2);
    // Every limit from there up is honoured.
    for max in [least + 1, least + 300, least + 1000, 65_000] {
        let out = args(&max.to_string());
        assert_eq!(out.code, 0);
        assert!(out.stdout.len() <= max, "{} > {max}", out.stdout.len());
    }
}

#[test]
fn a_size_mismatch_names_the_models_size_and_the_range() {
    let dir = changed(
        "typo-size",
        "model.yaml",
        "modelParameterSize: 3.21B",
        "modelParameterSize: 70B",
    );
    edit(
        &dir.join("isvc.yaml"),
        "  engine:\n",
        "  runtime:\n    name: sglang-llama-3-2-3b\n  engine:\n",
    );
    says(
        &["check", &text(&dir)],
        0,
        "help: model llama-3-2-3b-instruct has 70B parameters (spec.modelParameterSize), outside runtime sglang-llama-3-2-3b's range [2B, 4B] (spec.modelSizeRange)",
    );
}

#[test]
fn tree_dir_shows_every_root_runtimes_tree_found_there_only() {
    // The current directory holds a runtime of its own, which `tree DIR` must not read.
    let cwd = scratch("tree-dir");
    std::fs::write(
        cwd.join("other.yaml"),
        r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: not-read
spec:
  supportedModelFormats: []
",
    )
    .unwrap();
    let example = repo_root().join(EXAMPLE);
    let out = run_in(&cwd, &["tree", &text(&example)], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("RUNTIME TREE\nTarget: ServingRuntime/llama-demo/sglang-llama-3-2-3b\n"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("not-read"), "{}", out.stdout);
    // Two roots, one after the other; a child shows under its root only.
    let dir = scratch("tree-dir-roots");
    std::fs::write(
        dir.join("runtimes.yaml"),
        r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: base-a
spec:
  supportedModelFormats: []
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: base-b
spec:
  supportedModelFormats: []
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: child-a
  annotations: {ome.io/inherit-from: base-a}
spec:
  supportedModelFormats: []
",
    )
    .unwrap();
    let out = run_in(&cwd, &["tree", &text(&dir)], &[], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let targets: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("Target: "))
        .collect();
    assert_eq!(
        targets,
        [
            "Target: ClusterServingRuntime/base-a",
            "Target: ClusterServingRuntime/base-b"
        ],
        "{}",
        out.stdout
    );
    assert_eq!(
        out.stdout.matches("ClusterServingRuntime/child-a").count(),
        2
    );
    // A runtime name with paths is read as before.
    let out = run(&["tree", "sglang-llama-3-2-3b", "-n", "llama-demo", EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn an_ignore_field_matching_nothing_is_a_warning_and_an_error_under_strict() {
    let head = changed(
        "typo-ignore-field",
        "runtime.yaml",
        "--mem-frac=0.9",
        "--mem-frac=0.8",
    );
    let diff = |extra: &[&str]| {
        let mut args = vec![
            "diff",
            "--ignore-field",
            "specc.template",
            "--ignore-field",
            "metadata.labels",
        ];
        args.extend_from_slice(extra);
        let head = text(&head);
        args.extend_from_slice(&[EXAMPLE, &head]);
        run(&args)
    };
    let out = diff(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "warning[ome::diff::ignore-field-unmatched]: --ignore-field specc.template matches no field of any object on either side"
        ),
        "{}",
        out.stderr
    );
    // The path that matched is not named.
    assert!(
        !out.stderr.contains("--ignore-field metadata.labels"),
        "{}",
        out.stderr
    );
    let strict = diff(&["--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.stderr);
    assert_eq!(strict.stdout, "");
    assert!(
        strict
            .stderr
            .contains("error[ome::diff::ignore-field-unmatched]")
    );
}

#[test]
fn include_and_exclude_follow_gitignore_and_warn_when_matching_nothing() {
    let dir = scratch("typo-exclude");
    copy_files(&repo_root().join(EXAMPLE), &dir, str::to_string);
    // A draft at depth, which a bare name excludes.
    let drafts = dir.join("team").join("drafts");
    std::fs::create_dir_all(&drafts).unwrap();
    std::fs::write(
        drafts.join("broken.yaml"),
        r"apiVersion: v1
kind: [
",
    )
    .unwrap();
    let out = run(&["check", &text(&dir)]);
    assert_eq!(out.code, 1, "the draft is read without --exclude");
    let out = run(&["check", "--exclude", "drafts", &text(&dir)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("pattern-unmatched"), "{}", out.stderr);
    // `drafts/` is a directory only; the anchored `drafts` (from the root) is not there.
    assert_eq!(run(&["check", "--exclude", "drafts/", &text(&dir)]).code, 0);
    assert_eq!(run(&["check", "--exclude", "/drafts", &text(&dir)]).code, 1);
    assert_eq!(
        run(&["check", "--exclude", "team/drafts", &text(&dir)]).code,
        0
    );
    // A pattern that matches nothing is a warning naming it, an error under --strict.
    says(
        &[
            "check",
            "--exclude",
            "drafts",
            "--exclude",
            "draft",
            &text(&dir),
        ],
        0,
        "warning[ome::load::pattern-unmatched]: --exclude draft matches no file in any path",
    );
    assert!(
        !out.stderr.contains("--exclude drafts matches"),
        "{}",
        out.stderr
    );
    let strict = run(&[
        "check",
        "--strict",
        "--exclude",
        "drafts",
        "--exclude",
        "draft",
        &text(&dir),
    ]);
    assert_eq!(strict.code, 1, "{}", strict.stderr);
    let out = run(&["check", "--include", "*.yml", &text(&dir)]);
    assert!(
        out.stderr
            .contains("--include *.yml matches no file in any path"),
        "{}",
        out.stderr
    );
}
