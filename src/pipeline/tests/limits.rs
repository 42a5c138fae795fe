//! The limits end to end (SEMANTICS.md#limits): the deepest tree the depth limit can be
//! raised to goes through every recursive stage on a worker thread's stack, and work that
//! grows with the input stays linear.

use crate::emit::Format;
use crate::load::limits::MAX_DEPTH;
use crate::pipeline::{Options, Rendering, render_texts};
use crate::rendered::Body;

fn options(depth: usize) -> Options {
    let mut options = Options {
        namespace: "default".into(),
        serialise: Some(Format::Yaml),
        ..Options::default()
    };
    options.load.limits.depth = depth;
    options
}

/// A chain of `maps` block maps, `k:` each, the first at `indent`; the last holds a
/// placeholder, so the placeholder walk descends too.
fn chain(maps: usize, indent: usize) -> String {
    let mut s = String::with_capacity(maps * (maps + indent + 4));
    for i in 0..maps {
        s.push_str(&" ".repeat(indent + 2 * i));
        s.push_str(if i + 1 == maps {
            "k: \"{{.Name}}\"\n"
        } else {
            "k:\n"
        });
    }
    s
}

/// An InferenceService and its runtime that both set a field of the runner `depth` levels
/// deep, so the merge, the placeholder walk, the schema check and the emitter all descend
/// the whole depth; and a pass-through ConfigMap as deep.
fn deep_input(depth: usize) -> String {
    // The root, `spec`, `engineConfig`/`engine`, `runner`, `securityContext`: 5 levels.
    let runtime_value = chain(depth - 5, 10);
    let isvc_value = chain(depth - 5, 10);
    format!(
        r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {{name: rt}}
spec:
  engineConfig:
    runner:
      name: ome-container
      image: img
      securityContext:
        deep:
{runtime_value}---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: svc, namespace: ns}}
spec:
  runtime: {{name: rt}}
  engine:
    runner:
      securityContext:
        deep:
{isvc_value}---
apiVersion: v1
kind: ConfigMap
metadata: {{name: deep, namespace: ns}}
data:
{}",
        chain(depth - 1, 2)
    )
}

fn errors(rendering: &Rendering) -> Vec<String> {
    rendering
        .diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

#[test]
fn the_deepest_raisable_tree_goes_through_every_stage_on_a_worker_stack() {
    // Rayon's workers have the standard 2 MiB stack, as in a release run; this test runs
    // unoptimised, whose frames are larger still.
    let input = deep_input(MAX_DEPTH);
    let rendering = render_texts(&[("deep.yaml", &input)], &options(MAX_DEPTH));
    assert_eq!(errors(&rendering), Vec::<String>::new());
    let body = |kind: &str| {
        let object = rendering.objects.iter().find(|o| o.kind == kind);
        match object.map(|o| &o.body) {
            Some(Body::Bytes(bytes)) => String::from_utf8_lossy(bytes).into_owned(),
            other => panic!("no serialised {kind}: {other:?}"),
        }
    };
    // The merged runner kept the whole chain, with its placeholder expanded at the bottom.
    let deployment = body("Deployment");
    let chain_lines = deployment
        .lines()
        .filter(|l| l.trim_start().starts_with("k:"))
        .count();
    assert_eq!(chain_lines, MAX_DEPTH - 5);
    assert!(deployment.contains("k: svc\n"));
    assert!(
        body("ConfigMap").contains("k: '{{.Name}}'")
            || body("ConfigMap").contains("k: \"{{.Name}}\"")
    );
}

#[test]
fn one_level_past_the_depth_limit_is_refused_before_any_stage() {
    let input = deep_input(MAX_DEPTH + 1);
    let rendering = render_texts(&[("deep.yaml", &input)], &options(MAX_DEPTH));
    let errors = errors(&rendering);
    // One error per file: the parse stops at the first level too deep.
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors.iter().all(|e| e.starts_with(
            "ome::load::limit: the document nests collections deeper than 512 levels"
        )),
        "{errors:?}"
    );
    assert!(rendering.objects.is_empty());
}

#[test]
fn a_map_of_many_keys_renders_whole() {
    // Building maps was once quadratic (15 s for 80,000 keys). How long it takes is the
    // benchmarks' to measure (BENCHMARKS.md), not a test's: a busy machine would make a
    // timed test flaky. This checks that such a map renders, every key in order.
    let keys = 80_000;
    let mut text = String::from(
        r"apiVersion: v1
kind: ConfigMap
metadata: {name: big}
data:
",
    );
    for i in 0..keys {
        text.push_str(&format!("  key-{i}: v\n"));
    }
    let rendering = render_texts(&[("big.yaml", &text)], &options(128));
    assert!(rendering.diags.is_empty(), "{:?}", rendering.diags);
    let Body::Bytes(bytes) = &rendering.objects[0].body else {
        panic!("the object is serialised");
    };
    let text = String::from_utf8_lossy(bytes);
    let written: Vec<&str> = text.lines().filter(|l| l.starts_with("  key-")).collect();
    assert_eq!(written.len(), keys);
    assert_eq!(written.last(), Some(&"  key-79999: v"));
}

/// A profile and `children` runtimes inheriting from it, with an InferenceService naming the
/// last child.
fn profile_and_children(children: usize) -> String {
    let mut text = String::from(
        r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: profile
  annotations: {ome.io/runtime-profile: "true"}
spec:
  disabled: true
  supportedModelFormats: [{modelFormat: {name: safetensors}, modelFramework: {name: transformers}}]
  engineConfig:
    runner:
      name: ome-container
      image: img
      env: [{name: A, value: a}, {name: B, value: b}, {name: C, value: c}]
"#,
    );
    for i in 0..children {
        text.push_str(&format!(
            r"---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: child-{i:03}
  annotations: {{ome.io/inherit-from: profile}}
spec:
  disabled: false
"
        ));
    }
    text
}

#[test]
fn inherited_specs_past_their_node_limit_are_refused() {
    let text = profile_and_children(20);
    let mut options = options(128);
    options.allow_empty = true;
    // Each child's merged spec holds a few dozen nodes: 20 children pass 200.
    options.load.limits.inherited_nodes = 200;
    let refusals = errors(&render_texts(&[("rt.yaml", &text)], &options));
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert!(
        refusals[0].starts_with(
            "ome::load::limit: the specs inheriting runtimes resolve to hold more than 200 nodes together"
        ),
        "{refusals:?}"
    );
    options.load.limits.inherited_nodes = 100_000;
    let admitted = render_texts(&[("rt.yaml", &text)], &options);
    assert_eq!(errors(&admitted), Vec::<String>::new());
}
