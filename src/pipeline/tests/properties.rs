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
                    "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: rt-{r}\nspec:\n  \
                     supportedModelFormats:\n    - modelFormat: {{name: safetensors, version: \"1.0.0\"}}\n      \
                     modelFramework: {{name: transformers}}\n      modelArchitecture: Arch{a}\n      autoSelect: true\n      priority: {p}\n  engineConfig:\n    \
                     runner:\n      name: ome-container\n      image: img:{r}\n      args: [\"--served-model-name={{{{.Name}}}}\", --tp-size=1]\n      \
                     ports: [{{containerPort: 8080, name: http}}]\n      resources: {{limits: {{nvidia.com/gpu: \"{g}\"}}}}\n",
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
                    "apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: model-{m}\nspec:\n  vendor: v{m}\n  \
                     modelFormat: {{name: safetensors, version: \"1.0.0\"}}\n  modelArchitecture: Arch{m}\n  \
                     modelParameterSize: {m}B\n  modelFramework: {{name: transformers}}\n  storage: {{storageUri: \"hf://v{m}/m{m}\", path: /models/m{m}}}\n"
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
                    "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: svc-{i}\n  namespace: ns-{}\n\
                     spec:\n  model:\n    name: model-{}\n{runtime}  engine:\n    maxReplicas: {}\n    minReplica: 1\n",
                    i % 3,
                    i % 2,
                    i % 4 + 1
                ),
            ));
        }
        files.push((
            "passthrough-list.yaml".into(),
            "apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ns-0}}\n  \
             - {apiVersion: v1, kind: Namespace, metadata: {name: ns-1}}\n"
                .into(),
        ));
        files.push((
            "passthrough-deployment.yaml".into(),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: other, namespace: ns-2}\nspec: {}\n".into(),
        ));
        files.push((
            "passthrough-secret.yaml".into(),
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns-2}\nstringData: {k: v}\n".into(),
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
