//! Determinism as a property (ARCHITECTURE.md, "Parallelism and determinism"): the same
//! files give the same bytes in any order and on any number of threads.

use crate::emit::Format;
use crate::pipeline::{Options, Rendering, render_texts};
use crate::rendered::Body;
use proptest::prelude::*;
use std::sync::OnceLock;

/// A repository of runtimes, models and InferenceServices, one object per file, half of the
/// InferenceServices auto-selected, over three namespaces, with a pass-through object, a
/// `kind: List` and warnings (auto-selection, an unknown field).
fn repository() -> &'static [(String, String)] {
    static FILES: OnceLock<Vec<(String, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut files = Vec::new();
        for r in 0..4 {
            files.push((
                format!("runtime-{r}.yaml"),
                format!(
                    r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt-{r}
spec:
  supportedModelFormats:
    - modelFormat: {{name: safetensors, version: "1.0.0"}}
      modelFramework: {{name: transformers}}
      modelArchitecture: Arch{a}
      autoSelect: true
      priority: {p}
  engineConfig:
    runner:
      name: ome-container
      image: img:{r}
      args: ["--served-model-name={{{{.Name}}}}", --tp-size=1]
      ports: [{{containerPort: 8080, name: http}}]
      resources: {{limits: {{nvidia.com/gpu: "{g}"}}}}
"#,
                    a = r % 2,
                    p = r + 1,
                    g = r + 1,
                ),
            ));
        }
        for m in 0..2 {
            files.push((
                format!("model-{m}.yaml"),
                format!(
                    r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: model-{m}
spec:
  vendor: v{m}
  modelFormat: {{name: safetensors, version: "1.0.0"}}
  modelArchitecture: Arch{m}
  modelParameterSize: {m}B
  modelFramework: {{name: transformers}}
  storage: {{storageUri: "hf://v{m}/m{m}", path: /models/m{m}}}
"#
                ),
            ));
        }
        for i in 0..12 {
            let runtime = if i % 2 == 0 {
                format!("  runtime:\n    name: rt-{}\n", i % 4)
            } else {
                String::new()
            };
            files.push((
                format!("isvc-{i:02}.yaml"),
                format!(
                    r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: svc-{i}
  namespace: ns-{}
spec:
  model:
    name: model-{}
{runtime}  engine:
    maxReplicas: {}
    minReplica: 1
",
                    i % 3,
                    i % 2,
                    i % 4 + 1
                ),
            ));
        }
        files.push((
            "passthrough-list.yaml".into(),
            r"apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ns-0}}
  - {apiVersion: v1, kind: Namespace, metadata: {name: ns-1}}
"
            .into(),
        ));
        files.push((
            "passthrough-deployment.yaml".into(),
            r"apiVersion: apps/v1
kind: Deployment
metadata: {name: other, namespace: ns-2}
spec: {}
"
            .into(),
        ));
        files.push((
            "passthrough-secret.yaml".into(),
            r"apiVersion: v1
kind: Secret
metadata: {name: s, namespace: ns-2}
stringData: {k: v}
"
            .into(),
        ));
        files
    })
}

/// The output bytes, and the diagnostics by file name (file indexes follow the order).
fn render(files: &[(String, String)], threads: usize) -> (Vec<u8>, Vec<String>) {
    let texts: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let options = Options {
        namespace: "default".into(),
        serialise: Some(Format::Yaml),
        ..Options::default()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let rendering: Rendering = pool.install(|| render_texts(&texts, &options));
    let mut out = Vec::new();
    for object in &rendering.objects {
        match &object.body {
            Body::Bytes(bytes) => out.extend_from_slice(bytes),
            Body::Tree(_) => panic!("{} is not serialised", object.name),
        }
    }
    let mut diags: Vec<String> = rendering
        .diags
        .iter()
        .map(|d| {
            let at = d.pos.map(|p| {
                format!(
                    "{}:{}:{}",
                    rendering.sources.path(p).unwrap_or("?"),
                    p.line,
                    p.col
                )
            });
            format!("{at:?} {} {}", d.code, d.message)
        })
        .collect();
    diags.sort();
    (out, diags)
}

fn reference() -> &'static (Vec<u8>, Vec<String>) {
    static REFERENCE: OnceLock<(Vec<u8>, Vec<String>)> = OnceLock::new();
    REFERENCE.get_or_init(|| render(repository(), 1))
}

#[test]
fn the_repository_renders_objects_and_warnings() {
    let (out, diags) = reference();
    let text = String::from_utf8_lossy(out);
    assert_eq!(
        text.lines().filter(|l| *l == "kind: Deployment").count(),
        13,
        "{text}"
    );
    assert!(
        diags.iter().any(|d| d.contains("will be auto-selected")),
        "{diags:?}"
    );
    assert!(
        diags
            .iter()
            .any(|d| d.contains("ome::input::unknown-field")),
        "{diags:?}"
    );
    assert!(!diags.iter().any(|d| d.contains("error")), "{diags:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn output_is_the_same_in_any_file_order_on_any_thread_count(
        files in Just(repository().to_vec()).prop_shuffle(),
        threads in 1usize..=4,
    ) {
        let (out, diags) = render(&files, threads);
        let (want_out, want_diags) = reference();
        prop_assert!(out == *want_out, "the output differs with {threads} threads");
        prop_assert_eq!(&diags, want_diags);
    }
}
