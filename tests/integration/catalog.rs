//! OME's own catalog (`../shared/ome-catalog`, or `CATALOG`): its RDMA runtimes render with
//! what OME's pod webhook injects (SEMANTICS.md#pod-webhook), checked by `rdma_catalog.py`
//! against v1.3's `oci-roce` table. Where the catalog is not there: fails under CI when
//! `CATALOG` names it (`.ci/run` does where it is there), else skipped with a note.

use crate::support::{needs, python_tools, repo_root, run, scratch, skip_or_fail};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The catalog's runtimes that ask for RDMA, each with a model it serves.
const RDMA_RUNTIMES: &[(&str, &str, &str)] = &[
    // (runtime file, runtime name, model file)
    (
        "srt/deepseek-rdma-rt.yaml",
        "srt-deepseek-rdma",
        "deepseek-ai/DeepSeek-R1.yaml",
    ),
    (
        "srt/mixtral-8x7b-instruct-pd-rt.yaml",
        "srt-mixtral-8x7b-instruct-pd",
        "mistralai/Mixtral-8x7B-Instruct-v0.1.yaml",
    ),
    (
        "srt/mistral-7b-instruct-pd-rt.yaml",
        "srt-mistral-7b-instruct-pd",
        "mistralai/Mistral-7B-Instruct-v0.3.yaml",
    ),
    (
        "srt/meta/llama-3-2-1b-instruct-pd-rt.yaml",
        "srt-llama-3-2-1b-instruct-pd",
        "meta/Llama-3.2-1B-Instruct.yaml",
    ),
    (
        "srt/meta/llama-3-2-3b-instruct-pd-rt.yaml",
        "srt-llama-3-2-3b-instruct-pd",
        "meta/Llama-3.2-3B-Instruct.yaml",
    ),
    (
        "srt/meta/llama-3-1-70b-instruct-pd-rt.yaml",
        "srt-llama-3-1-70b-instruct-pd",
        "meta/Llama-3.1-70B-Instruct.yaml",
    ),
    (
        "srt/meta/llama-3-3-70b-instruct-pd-rt.yaml",
        "srt-llama-3-3-70b-instruct-pd",
        "meta/Llama-3.3-70B-instruct.yaml",
    ),
    (
        "srt/meta/llama-4-maverick-17b-128e-instruct-fp8-pd-rt.yaml",
        "srt-llama-4-maverick-17b-128e-instruct-fp8-pd",
        "meta/Llama-4-Maverick-17B-128E-Instruct-FP8.yaml",
    ),
    (
        "srt/meta/llama-4-scout-17b-16e-instruct-pd-rt.yaml",
        "srt-llama-4-scout-17b-16e-instruct-pd",
        "meta/Llama-4-Scout-17B-16E-Instruct.yaml",
    ),
];

/// The catalog, or `None` (the test skipped, or failed under CI when `CATALOG` names it).
fn catalog(test: &str) -> Option<PathBuf> {
    let named = std::env::var_os("CATALOG").map(PathBuf::from);
    let dir = named
        .clone()
        .unwrap_or_else(|| repo_root().join("../shared/ome-catalog"));
    if dir.is_dir() {
        return Some(dir);
    }
    let why = format!(
        "{} is not there (set CATALOG to OME's catalog)",
        dir.display()
    );
    if named.is_some() {
        skip_or_fail(test, &why);
    } else {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("SKIPPED {test}: {why}");
        }
    }
    None
}

/// The `metadata.name` of a model file (its first `  name:` line).
fn model_name(file: &Path) -> String {
    let text = std::fs::read_to_string(file).expect("the model file");
    text.lines()
        .find_map(|l| l.strip_prefix("  name: "))
        .expect("a metadata.name")
        .trim()
        .to_string()
}

#[test]
fn omes_rdma_runtimes_render_with_the_webhooks_injection() {
    needs!(Python);
    let Some(catalog) = catalog("omes_rdma_runtimes_render_with_the_webhooks_injection") else {
        return;
    };
    // The list above is every runtime of the catalog that asks for RDMA.
    let mut asking: Vec<String> = Vec::new();
    let mut annotations = 0;
    let mut stack = vec![catalog.join("runtimes")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("the runtimes").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let n = text.matches("rdma.ome.io/auto-inject: \"true\"").count();
                if n > 0 {
                    annotations += n;
                    let rel = path.strip_prefix(catalog.join("runtimes")).unwrap();
                    asking.push(rel.to_string_lossy().into_owned());
                }
            }
        }
    }
    asking.sort();
    let mut listed: Vec<String> = RDMA_RUNTIMES.iter().map(|r| r.0.to_string()).collect();
    listed.sort();
    assert_eq!(asking, listed);
    // Nine runtimes, 17 components: 8 prefill-decode runtimes (engine and decoder) and one
    // multi-node engine.
    assert_eq!((asking.len(), annotations), (9, 17));

    let dir = scratch("catalog-rdma");
    let checker = repo_root().join("tests/integration/rdma_catalog.py");
    let mut templates = 0;
    for (runtime_file, runtime, model_file) in RDMA_RUNTIMES {
        let runtime_path = catalog.join("runtimes").join(runtime_file);
        let model_path = catalog.join("models").join(model_file);
        let text = std::fs::read_to_string(&runtime_path).unwrap();
        let decoder = if text.contains("\n  decoderConfig:") {
            "  decoder: {}\n"
        } else {
            ""
        };
        let isvc = dir.join(format!("{runtime}.yaml"));
        std::fs::write(
            &isvc,
            format!(
                "apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: rdma
  namespace: demo
spec:
  model:
    name: {}
  runtime:
    name: {runtime}
  engine: {{}}
{decoder}",
                model_name(&model_path)
            ),
        )
        .unwrap();
        let paths = [&model_path, &runtime_path, &isvc].map(|p| p.to_str().unwrap().to_string());
        let out = run(&["-q", "--format", "jsonl", &paths[0], &paths[1], &paths[2]]);
        assert_eq!(out.code, 0, "{runtime}: {}", out.stderr);
        let mut child = Command::new(python_tools().join("python"))
            .arg(&checker)
            .arg(&runtime_path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("python runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(out.stdout.as_bytes())
            .unwrap();
        let done = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(done.status.success(), "{runtime}:\n{stderr}");
        let checked: usize = String::from_utf8_lossy(&done.stdout)
            .trim()
            .parse()
            .unwrap();
        // Each prefill-decode runtime's engine and decoder; the multi-node engine's leader
        // and worker templates.
        assert_eq!(checked, 2, "{runtime}: pod templates checked");
        templates += checked;
        // The same input renders the same bytes (the injection does not depend on order).
        assert_eq!(
            run(&["-q", "--format", "jsonl", &paths[2], &paths[1], &paths[0]]).stdout,
            out.stdout,
            "{runtime}"
        );
    }
    assert_eq!(templates, 18);
}
