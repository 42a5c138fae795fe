//! `ome-render model-metadata` (the patch on standard output, `--write` into a model file)
//! and the `ome-render.io/model-config` annotation at render time, through the binary.

use crate::support::{repo_root, run, run_in, scratch};
use std::fs;

const EXAMPLE_SNAPSHOT: &str = "examples/llama-awq-snapshot/snapshot";

#[test]
fn prints_the_patch_for_a_snapshot_directory() {
    let out = run(&["model-metadata", EXAMPLE_SNAPSHOT]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The header-only safetensors gives the exact count, so no warning.
    assert_eq!(out.stderr, "");
    // 32 layers of 7 int4 projections (qweight I32 × 8; qzeros and scales count 0) and two
    // norms, plus embedding, head and final norm in F16: 6,738,415,616.
    for line in [
        "spec:\n  modelFormat:\n    name: safetensors\n    version: \"1.0.0\"\n  modelType: llama\n",
        "  modelArchitecture: LlamaForCausalLM\n  quantization: int4\n  modelParameterSize: \"6.74B\"\n",
        "  modelCapabilities:\n  - TEXT_TO_TEXT\n",
        "    model_size_bytes: 13476831232\n  maxTokens: 4096\n",
    ] {
        assert!(out.stdout.contains(line), "{line:?} in\n{}", out.stdout);
    }
}

#[test]
fn prints_the_patch_for_a_config_json_with_the_estimate_warning() {
    let out = run(&[
        "model-metadata",
        "testdata/model-config/annotated/snapshots/qwen2-0.5b/config.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // 151936·896 + 24·12·896² = 367,345,664.
    assert!(
        out.stdout.contains("  modelParameterSize: 367.35M\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("  maxTokens: 32768\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("warning[ome::model-metadata::parameter-size]: modelParameterSize 367.35M is OME's estimate"),
        "{}",
        out.stderr
    );
    // --strict makes the warning an error: nothing on standard output.
    let strict = run(&[
        "--strict",
        "model-metadata",
        "testdata/model-config/annotated/snapshots/qwen2-0.5b/config.json",
    ]);
    assert_eq!((strict.code, strict.stdout.as_str()), (1, ""));
}

/// The snapshot's JSON files are bounded by the `file-bytes` limit, raisable with `--limit`.
#[test]
fn a_snapshot_json_file_over_the_file_bytes_limit_is_an_error_naming_the_limit() {
    let out = run(&[
        "model-metadata",
        EXAMPLE_SNAPSHOT,
        "--limit",
        "file-bytes=64",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("error[ome::load::limit]")
            && out
                .stderr
                .contains("config.json: it holds more than 64 bytes (limit `file-bytes`)")
            && out.stderr.contains("--limit file-bytes="),
        "{}",
        out.stderr
    );
    let raised = run(&[
        "model-metadata",
        EXAMPLE_SNAPSHOT,
        "--limit",
        "file-bytes=1000000",
    ]);
    assert_eq!(raised.code, 0, "{}", raised.stderr);
}

#[test]
fn input_problems_exit_1_and_usage_problems_exit_2_with_nothing_on_stdout() {
    let dir = scratch("model-metadata-errors");
    fs::write(
        dir.join("config.json"),
        "{\"model_type\": \"llama\", \"hidden_size\": \"big\"}",
    )
    .unwrap();
    let path = dir.display().to_string();
    let bad = run(&["model-metadata", &path]);
    assert_eq!((bad.code, bad.stdout.as_str()), (1, ""), "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("error[ome::model-metadata::invalid-config]"),
        "{}",
        bad.stderr
    );
    assert!(bad.stderr.contains("config.json:1:"), "{}", bad.stderr);

    let empty = run(&["model-metadata", "testdata/errors"]);
    assert_eq!((empty.code, empty.stdout.as_str()), (1, ""));
    assert!(
        empty
            .stderr
            .contains("no model_index.json or config.json found in testdata/errors")
    );

    let missing = run(&["model-metadata", "no/such/snapshot"]);
    assert_eq!((missing.code, missing.stdout.as_str()), (2, ""));
    assert!(
        missing
            .stderr
            .starts_with("error: cannot read no/such/snapshot"),
        "{}",
        missing.stderr
    );

    let usage = run(&["model-metadata"]);
    assert_eq!((usage.code, usage.stdout.as_str()), (2, ""));
}

const MODEL_FILE: &str = "\
# Reviewed in Git: this comment, the quoting and the order stay.
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: llama-2-7b-awq
spec:   # set by hand
  # The architecture is the user's: --write keeps it.
  modelArchitecture: MyLlama
  quantization: 'int4'
  storage:
    storageUri: hf://TheBloke/Llama-2-7B-AWQ   # public
";

#[test]
fn write_adds_only_the_missing_fields_and_keeps_the_file_as_written() {
    let dir = scratch("model-metadata-write");
    let file = dir.join("model.yaml");
    fs::write(&file, MODEL_FILE).unwrap();
    let path = file.display().to_string();
    let out = run(&["model-metadata", EXAMPLE_SNAPSHOT, "--write", &path]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains(
            "note[ome::model-metadata::filled]: added spec.modelType, spec.modelFramework, spec.modelFormat, spec.modelParameterSize, spec.maxTokens, spec.modelCapabilities, spec.modelConfiguration to "
        ),
        "{}",
        out.stderr
    );
    let written = fs::read_to_string(&file).unwrap();
    let (head, tail) = MODEL_FILE.split_at(MODEL_FILE.find("  # The architecture").unwrap());
    assert_eq!(
        written,
        format!(
            "{head}  modelType: llama
  modelFramework:
    name: transformers
    version: 4.31.0.dev0
  modelFormat:
    name: safetensors
    version: \"1.0.0\"
  modelParameterSize: \"6.74B\"
  maxTokens: 4096
  modelCapabilities:
  - TEXT_TO_TEXT
  modelConfiguration:
    model_type: llama
    architecture: LlamaForCausalLM
    context_length: 4096
    parameter_count: \"6.74B\"
    has_vision: false
    is_embedding: false
    transformers_version: 4.31.0.dev0
    torch_dtype: float16
    model_size_bytes: 13476831232
{tail}"
        )
    );
    // Nothing is left beside it, and a second run changes nothing.
    let entries: Vec<_> = fs::read_dir(&dir).unwrap().collect();
    assert_eq!(entries.len(), 1);
    let again = run(&["model-metadata", EXAMPLE_SNAPSHOT, "--write", &path]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again
            .stderr
            .contains("already sets every field OME's model agent writes; left unchanged")
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), written);
    // The written model renders: its own fields, and the ones added.
    let check = run(&["--keep-ome", "--kinds", "ClusterBaseModel", &path]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert!(
        check.stdout.contains("modelArchitecture: MyLlama\n"),
        "{}",
        check.stdout
    );
}

#[test]
fn write_refuses_files_it_cannot_merge_into_and_leaves_them_alone() {
    let dir = scratch("model-metadata-write-refused");
    let cases = [
        (
            "two.yaml",
            format!("{MODEL_FILE}---\n{}", MODEL_FILE.replace("llama-2-7b-awq", "other")),
            "holds 2 models (ClusterBaseModel/llama-2-7b-awq, ClusterBaseModel/other); --write merges into a file of one",
        ),
        (
            "none.yaml",
            r"apiVersion: v1
kind: Namespace
metadata:
  name: x
".to_string(),
            "holds no BaseModel or ClusterBaseModel",
        ),
        (
            "skip.yaml",
            MODEL_FILE.replace(
                "  name: llama-2-7b-awq\n",
                "  name: llama-2-7b-awq\n  annotations:\n    ome.oracle.com/skip-config-parsing: \"true\"\n",
            ),
            "error[ome::model-metadata::skipped]",
        ),
        (
            "flow.yaml",
            r"apiVersion: ome.io/v1beta1
kind: BaseModel
metadata: {name: x, namespace: y}
spec: {storage: {storageUri: hf://a/b}}
".to_string(),
            "is not in block style",
        ),
        (
            "broken.yaml",
            format!("{MODEL_FILE}  bad: [\n"),
            "error[ome::load::yaml]",
        ),
    ];
    for (name, text, expected) in cases {
        let file = dir.join(name);
        fs::write(&file, &text).unwrap();
        let out = run(&[
            "model-metadata",
            EXAMPLE_SNAPSHOT,
            "--write",
            &file.display().to_string(),
        ]);
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (1, ""),
            "{name}: {}",
            out.stderr
        );
        assert!(out.stderr.contains(expected), "{name}: {}", out.stderr);
        assert!(
            out.stderr.contains("nothing was written"),
            "{name}: {}",
            out.stderr
        );
        assert_eq!(fs::read_to_string(&file).unwrap(), text, "{name}");
    }
    let missing = run(&[
        "model-metadata",
        EXAMPLE_SNAPSHOT,
        "--write",
        "no/such/model.yaml",
    ]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
}

/// A scratch repository with a model whose annotation names `target`, and a small snapshot
/// in `snap/`.
fn repo_with_model(name: &str, target: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    fs::create_dir_all(dir.join("snap")).unwrap();
    fs::copy(
        repo_root().join("testdata/model-config/annotated/snapshots/qwen2-0.5b/config.json"),
        dir.join("snap/config.json"),
    )
    .unwrap();
    fs::write(
        dir.join("model.yaml"),
        format!(
            r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: m
  annotations:
    ome-render.io/model-config: {target}
spec:
  storage:
    storageUri: hf://a/b
"
        ),
    )
    .unwrap();
    dir
}

#[cfg(unix)]
#[test]
fn links_out_of_the_rendered_directory_are_refused() {
    // The snapshot directory is a link to a directory outside.
    let dir = repo_with_model("model-config-link-dir", "./outside");
    std::os::unix::fs::symlink(
        repo_root().join("testdata/hf/awq-llama-2-7b-int4"),
        dir.join("outside"),
    )
    .unwrap();
    let out = run(&["--keep-ome", &dir.display().to_string()]);
    assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error[ome::model-metadata::annotation]: the snapshot ./outside is outside"),
        "{}",
        out.stderr
    );

    // A file of the snapshot is a link to a file outside.
    let dir = repo_with_model("model-config-link-file", "./snap");
    fs::remove_file(dir.join("snap/config.json")).unwrap();
    std::os::unix::fs::symlink(
        repo_root().join("testdata/hf/awq-llama-2-7b-int4/config.json"),
        dir.join("snap/config.json"),
    )
    .unwrap();
    let out = run(&["--keep-ome", &dir.display().to_string()]);
    assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error[ome::model-metadata::snapshot-file]"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("outside the snapshot"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_file_given_is_fenced_to_its_directory_and_stdin_to_the_current_one() {
    let dir = repo_with_model("model-config-stdin", "./snap");
    let text = fs::read_to_string(dir.join("model.yaml")).unwrap();
    // A file named on the command line: its snapshot is found beside it.
    let file = dir.join("model.yaml").display().to_string();
    let out = run(&["--keep-ome", &file]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("  modelType: qwen2\n"),
        "{}",
        out.stdout
    );
    // Standard input: the path is relative to the current directory.
    let out = run_in(&dir, &["--keep-ome", "-"], &[], Some(&text));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("  modelArchitecture: Qwen2ForCausalLM\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("filled spec.modelType"),
        "{}",
        out.stderr
    );
    // …and must stay inside it.
    let out = run_in(
        &dir.join("snap"),
        &["--keep-ome", "-"],
        &[],
        Some(&text.replace("./snap", "..")),
    );
    assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the snapshot .. is outside . (the directory being rendered)"),
        "{}",
        out.stderr
    );
}
