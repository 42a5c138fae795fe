//! `diff` end to end: two inputs rendered through the pipeline and compared — added,
//! removed, changed and moved InferenceServices, a runtime edit reaching several of them, a
//! changed auto-selection, inheritance, models, settings, the byte limit, Secrets and
//! ignored fields (SEMANTICS.md#diff).

use crate::diff::format::{Labels, markdown, text};
use crate::diff::normalise::{FieldPath, Normalise};
use crate::diff::{self, Cause, Change, Report};
use crate::emit::Format;
use crate::k8s::id::ObjectId;
use crate::pipeline::{Options, Rendering, render_texts};

fn render(files: &[(&str, &str)], ignore: &[&str]) -> Rendering {
    let options = Options {
        namespace: "default".into(),
        allow_empty: true,
        serialise: Some(Format::Yaml),
        trace: true,
        normalise: Some(Normalise::new(
            ignore
                .iter()
                .map(|p| FieldPath::parse(p).expect("test path"))
                .collect(),
        )),
        ..Options::default()
    };
    let r = render_texts(files, &options);
    let errors: Vec<&str> = r
        .diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.message.as_str())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    r
}

fn compare_with(base: &str, head: &str, ignore: &[&str]) -> Report {
    let (b, h) = (
        render(&[("in.yaml", base)], ignore),
        render(&[("in.yaml", head)], ignore),
    );
    diff::compare(
        &b.side(),
        &h.side(),
        &diff::Options {
            context: 3,
            namespace: "default".into(),
        },
    )
}

fn compare(base: &str, head: &str) -> Report {
    compare_with(base, head, &[])
}

fn labels() -> Labels {
    Labels {
        base: "main".into(),
        head: "pr".into(),
    }
}

fn isvc_id(ns: &str, name: &str) -> ObjectId {
    ObjectId::of_kind("InferenceService", ns, name).to_owned()
}

fn csr(name: &str) -> ObjectId {
    ObjectId::of_kind("ClusterServingRuntime", "", name).to_owned()
}

/// A ClusterServingRuntime for the `llama` format, auto-selectable with `priority`.
pub(super) fn runtime(name: &str, image: &str, priority: u32) -> String {
    format!(
        r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {name}
spec:
  supportedModelFormats:
    - {{modelFormat: {{name: llama, version: "1.0.0"}}, modelFramework: {{name: transformers, version: "4.0.0"}}, modelArchitecture: llama, autoSelect: true, priority: {priority}}}
  engineConfig:
    runner: {{name: ome-container, image: {image}, args: [--port=8080], ports: [{{containerPort: 8080, name: http}}]}}
---
"#
    )
}

/// A ClusterBaseModel of the `llama` format stored at `hf://acme/<name>` on the node's `path`.
pub(super) fn model(name: &str, path: &str) -> String {
    format!(
        r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: {name}
spec:
  modelFormat: {{name: llama, version: "1.0.0"}}
  modelFramework: {{name: transformers, version: "4.0.0"}}
  modelArchitecture: llama
  modelParameterSize: 7B
  storage: {{storageUri: "hf://acme/{name}", path: {path}}}
---
"#
    )
}

/// An InferenceService of `model`, naming `runtime` unless it is empty (then auto-selected).
fn isvc(ns: &str, name: &str, runtime: &str, replicas: u32) -> String {
    let runtime = if runtime.is_empty() {
        String::new()
    } else {
        format!("  runtime: {{name: {runtime}}}\n")
    };
    format!(
        r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: {name}, namespace: {ns}}}
spec:
  model: {{name: m}}
{runtime}  engine: {{minReplicas: 1, maxReplicas: {replicas}}}
---
"
    )
}

fn base_inputs() -> String {
    format!(
        "{}{}{}",
        model("m", "/models/m"),
        runtime("rt-a", "img:1", 1),
        runtime("rt-b", "img:2", 1)
    )
}

fn groups(r: &Report) -> Vec<(Option<String>, Change, Vec<Change>)> {
    r.groups
        .iter()
        .map(|g| {
            (
                g.isvc.as_ref().map(ObjectId::path),
                g.change,
                g.objects.iter().map(|o| o.change).collect(),
            )
        })
        .collect()
}

#[test]
fn the_same_input_has_no_differences() {
    let input = format!("{}{}", base_inputs(), isvc("team", "svc", "rt-a", 2));
    let r = compare(&input, &input);
    assert!(!r.has_differences());
    assert_eq!(r.impact, diff::impact::Impact::default());
    assert!(
        text::render(&r, &labels(), false)
            .starts_with("ome-render diff main → pr: no differences (")
    );
}

#[test]
fn added_and_removed_inference_services() {
    let base = base_inputs();
    let head = format!("{base}{}", isvc("team", "svc", "rt-a", 2));
    let added = compare(&base, &head);
    let g = groups(&added);
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].0.as_deref(), Some("team/svc"));
    assert_eq!(g[0].1, Change::Added);
    assert!(
        g[0].2.len() >= 2 && g[0].2.iter().all(|c| *c == Change::Added),
        "{g:?}"
    );
    assert_eq!(added.counts().isvcs, [1, 0, 0]);
    assert!(added.groups[0].causes.is_empty());
    // The reverse is a removal, object for object.
    let removed = compare(&head, &base);
    let g = groups(&removed);
    assert_eq!(g[0].1, Change::Removed);
    assert!(g[0].2.iter().all(|c| *c == Change::Removed));
    assert_eq!(removed.counts().isvcs, [0, 1, 0]);
    assert_eq!(
        removed.counts().objects[1],
        added.counts().objects[0],
        "as many objects removed as were added"
    );
}

#[test]
fn an_edited_inference_service_is_its_own_cause() {
    let base = format!("{}{}", base_inputs(), isvc("team", "svc", "rt-a", 2));
    let head = format!("{}{}", base_inputs(), isvc("team", "svc", "rt-a", 5));
    let r = compare(&base, &head);
    assert_eq!(groups(&r).len(), 1);
    let g = &r.groups[0];
    assert_eq!(g.change, Change::Changed);
    assert_eq!(g.causes, [Cause::Edited]);
    assert_eq!(r.impact.edited, [isvc_id("team", "svc")]);
    assert!(r.impact.resources.is_empty());
    let hpa = g
        .objects
        .iter()
        .find(|o| o.kind == "HorizontalPodAutoscaler")
        .expect("the HPA changed");
    assert_eq!((hpa.lines.added, hpa.lines.removed), (1, 1));
    assert!(
        hpa.lines
            .hunks
            .contains("-  maxReplicas: 2\n+  maxReplicas: 5\n"),
        "{}",
        hpa.lines.hunks
    );
}

#[test]
fn a_move_to_another_namespace_is_a_removal_and_an_addition() {
    let base = format!("{}{}", base_inputs(), isvc("team-a", "svc", "rt-a", 2));
    let head = format!("{}{}", base_inputs(), isvc("team-b", "svc", "rt-a", 2));
    let r = compare(&base, &head);
    let g = groups(&r);
    assert_eq!(
        g.iter()
            .map(|(n, c, _)| (n.clone(), *c))
            .collect::<Vec<_>>(),
        [
            (Some("team-a/svc".to_string()), Change::Removed),
            (Some("team-b/svc".to_string()), Change::Added)
        ]
    );
    assert_eq!(g[0].2.len(), g[1].2.len());
    assert_eq!(r.counts().isvcs, [1, 1, 0]);
}

#[test]
fn a_runtime_edit_reaches_every_inference_service_that_names_it() {
    let services = |n: usize| -> String {
        (0..n)
            .map(|i| isvc("team", &format!("svc-{i:02}"), "rt-a", 2))
            .collect::<String>()
            + &isvc("team", "other", "rt-b", 2)
    };
    let base = format!(
        "{}{}{}{}",
        model("m", "/models/m"),
        runtime("rt-a", "img:1", 1),
        runtime("rt-b", "img:2", 1),
        services(40)
    );
    let head = format!(
        "{}{}{}{}",
        model("m", "/models/m"),
        runtime("rt-a", "img:9", 1),
        runtime("rt-b", "img:2", 1),
        services(40)
    );
    let r = compare(&base, &head);
    assert_eq!(r.counts().isvcs, [0, 0, 40], "team/other is untouched");
    assert_eq!(r.impact.resources.len(), 1);
    let rt = &r.impact.resources[0];
    assert_eq!((rt.id.clone(), rt.change), (csr("rt-a"), Change::Changed));
    assert_eq!((rt.reached.len(), rt.users), (40, 40));
    assert!(
        r.groups
            .iter()
            .all(|g| g.causes == [Cause::Resource(csr("rt-a"), Change::Changed)])
    );
    // The first lines say so.
    let out = text::render(&r, &labels(), false);
    let first: Vec<&str> = out.lines().take(3).collect();
    assert_eq!(
        first[2], "  ClusterServingRuntime/rt-a changed: reaches 40 InferenceServices",
        "{out}"
    );
    assert!(
        out.lines()
            .nth(3)
            .is_some_and(|l| l.ends_with("… and 30 more")),
        "{out}"
    );
    let md = markdown::render(&r, &labels(), 65_000);
    assert!(
        md.contains(
            "- <code>ClusterServingRuntime/rt-a</code> changed: **reaches 40 InferenceServices**"
        ),
        "{md}"
    );
}

#[test]
fn a_changed_auto_selection_names_both_runtimes() {
    // rt-a wins on priority in the base; rt-b is raised above it in the head.
    let base = format!(
        "{}{}{}{}",
        model("m", "/models/m"),
        runtime("rt-a", "img:1", 2),
        runtime("rt-b", "img:2", 1),
        isvc("team", "svc", "", 2)
    );
    let head = format!(
        "{}{}{}{}",
        model("m", "/models/m"),
        runtime("rt-a", "img:1", 2),
        runtime("rt-b", "img:2", 3),
        isvc("team", "svc", "", 2)
    );
    let r = compare(&base, &head);
    assert_eq!(r.impact.choices.len(), 1);
    let c = &r.impact.choices[0];
    assert_eq!(
        (c.was.clone(), c.now.clone(), c.was_auto, c.now_auto),
        (csr("rt-a"), csr("rt-b"), true, true)
    );
    assert_eq!(
        r.groups[0].causes,
        [
            Cause::Runtime {
                was: csr("rt-a"),
                now: csr("rt-b")
            },
            Cause::Resource(csr("rt-b"), Change::Changed),
        ]
    );
    // rt-a did not change; rt-b reaches the InferenceService it now serves.
    assert_eq!(r.impact.resources.len(), 1);
    assert_eq!(r.impact.resources[0].reached, [isvc_id("team", "svc")]);
    let out = text::render(&r, &labels(), false);
    assert!(
        out.contains("    team/svc: was ClusterServingRuntime/rt-a (auto-selected), now ClusterServingRuntime/rt-b (auto-selected)\n"),
        "{out}"
    );
    let deployment = r.groups[0]
        .objects
        .iter()
        .find(|o| o.kind == "Deployment")
        .expect("the Deployment changed");
    assert!(
        deployment.lines.hunks.contains("+        image: img:2\n"),
        "{}",
        deployment.lines.hunks
    );
}

#[test]
fn a_parent_runtime_edit_reaches_through_inheritance() {
    let parent = |image: &str| {
        format!(
            r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: profile
  annotations: {{ome.io/runtime-profile: "true"}}
spec:
  disabled: true
  engineConfig:
    runner: {{name: ome-container, image: {image}}}
---
"#
        )
    };
    let child = r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: child
  annotations: {ome.io/inherit-from: profile}
spec:
  disabled: false
  supportedModelFormats:
    - {modelFormat: {name: llama, version: "1.0.0"}, modelFramework: {name: transformers, version: "4.0.0"}, modelArchitecture: llama}
  engineConfig:
    runner: {name: ome-container, args: [--port=8080]}
---
"#;
    let inputs = |image: &str| {
        format!(
            "{}{}{child}{}",
            model("m", "/models/m"),
            parent(image),
            isvc("team", "svc", "child", 2)
        )
    };
    let r = compare(&inputs("img:1"), &inputs("img:2"));
    assert_eq!(r.impact.resources.len(), 1);
    assert_eq!(r.impact.resources[0].id, csr("profile"));
    assert_eq!(r.impact.resources[0].reached, [isvc_id("team", "svc")]);
}

#[test]
fn model_and_settings_changes_are_attributed() {
    let with = |path: &str| {
        format!(
            "{}{}{}",
            model("m", path),
            runtime("rt-a", "img:1", 1),
            isvc("team", "svc", "rt-a", 2)
        )
    };
    let r = compare(&with("/models/m"), &with("/models/m2"));
    assert_eq!(r.impact.resources.len(), 1);
    assert_eq!(
        r.impact.resources[0].id,
        ObjectId::of_kind("ClusterBaseModel", "", "m").to_owned()
    );
    assert_eq!(r.impact.resources[0].reached, [isvc_id("team", "svc")]);

    let input = with("/models/m");
    let base = render(&[("in.yaml", &input)], &[]);
    let head = render(
        &[
            ("ome-render.yaml", "terminationGracePeriodSeconds: 30\n"),
            ("in.yaml", &input),
        ],
        &[],
    );
    let r = diff::compare(
        &base.side(),
        &head.side(),
        &diff::Options {
            context: 3,
            namespace: "default".into(),
        },
    );
    assert_eq!(r.impact.settings, Some(vec![isvc_id("team", "svc")]));
    assert_eq!(r.groups[0].causes, [Cause::Settings]);
    assert!(
        text::render(&r, &labels(), false)
            .contains("  settings changed: reaches 1 InferenceService\n")
    );
}

#[test]
fn secret_values_are_shown_as_hashes() {
    let secret = |token: &str, other: &str| {
        format!(
            r"apiVersion: v1
kind: Secret
metadata: {{name: hf-token, namespace: team}}
data:
  token: {token}
  other: {other}
stringData:
  plain: hunter2
"
        )
    };
    let r = compare(
        &secret("c2VjcmV0LTE=", "c2FtZQ=="),
        &secret("c2VjcmV0LTI=", "c2FtZQ=="),
    );
    assert_eq!(groups(&r), [(None, Change::Changed, vec![Change::Changed])]);
    let hunks = &r.groups[0].objects[0].lines.hunks;
    for clear in ["c2VjcmV0", "c2FtZQ", "secret-1", "secret-2", "hunter2"] {
        assert!(!hunks.contains(clear), "{clear} in {hunks}");
    }
    assert_eq!(
        (
            r.groups[0].objects[0].lines.added,
            r.groups[0].objects[0].lines.removed
        ),
        (1, 1)
    );
    assert!(hunks.contains("-  token: (redacted sha256:"), "{hunks}");
    assert!(
        hunks.contains("   other: (redacted sha256:"),
        "the unchanged value is context: {hunks}"
    );
    // An unchanged Secret is no difference.
    let same = secret("c2VjcmV0LTE=", "c2FtZQ==");
    assert!(!compare(&same, &same).has_differences());
}

#[test]
fn ignored_fields_are_left_out_on_both_sides() {
    let config = |build: &str, data: &str| {
        format!(
            r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  namespace: team
  annotations:
    example.com/build: "{build}"
data:
  k: {data}
"#
        )
    };
    let ignore = ["metadata.annotations.example.com/build"];
    assert!(!compare_with(&config("1", "a"), &config("2", "a"), &ignore).has_differences());
    let r = compare_with(&config("1", "a"), &config("2", "b"), &ignore);
    let hunks = &r.groups[0].objects[0].lines.hunks;
    assert!(!hunks.contains("example.com/build"), "{hunks}");
    assert!(hunks.contains("+  k: b\n"), "{hunks}");
    assert!(compare(&config("1", "a"), &config("2", "a")).has_differences());
}

#[test]
fn markdown_fits_the_byte_limit_and_says_what_it_left_out() {
    let services = (0..60)
        .map(|i| isvc("team", &format!("svc-{i:02}"), "rt-a", 2))
        .collect::<String>();
    let base = format!(
        "{}{}{services}",
        model("m", "/models/m"),
        runtime("rt-a", "img:1", 1)
    );
    let head = format!(
        "{}{}{services}",
        model("m", "/models/m"),
        runtime("rt-a", "img:2", 1)
    );
    let r = compare(&base, &head);
    let whole = markdown::render(&r, &labels(), usize::MAX);
    assert!(!whole.contains("Shortened"));
    assert_eq!(whole.matches("<details>").count(), 60);
    assert_eq!(whole.matches("```diff").count(), 60);
    // The graph draws 30 of the 61 nodes (the runtime and 60 InferenceServices).
    assert_eq!(whole.matches("```mermaid\n").count(), 1);
    assert!(
        whole.contains("  more[\"#8230; and 31 more\"]\n"),
        "{whole}"
    );
    assert_eq!(whole.matches(" --> n").count(), 29, "{whole}");
    // One byte short, the graph is the first thing left out.
    let short = markdown::render(&r, &labels(), whole.len() - 1);
    assert!(!short.contains("```mermaid"), "{short}");
    assert!(short.contains("left out the impact graph"), "{short}");
    for limit in [whole.len() - 1, 18_000] {
        let md = markdown::render(&r, &labels(), limit);
        assert!(md.len() <= limit, "{} > {limit}", md.len());
        // The summary and impact are whole; object diffs go first, one line stays per object.
        assert!(md.contains("| InferenceServices | 0 | 0 | 60 |"), "{md}");
        assert!(md.contains("**reaches 60 InferenceServices**"));
        assert!(md.contains("> **Shortened to fit"), "{md}");
        assert!(
            limit == whole.len() - 1 || md.contains("the diffs of"),
            "{md}"
        );
        assert_eq!(
            md.matches("<details>").count(),
            60,
            "every InferenceService is listed at {limit}"
        );
        assert!(limit == whole.len() - 1 || md.matches("```diff").count() < 60);
    }
    // Too small for every InferenceService: whole ones go, and the note counts them.
    for limit in [8_000, 4_000] {
        let md = markdown::render(&r, &labels(), limit);
        assert!(md.len() <= limit, "{} > {limit}", md.len());
        assert!(md.contains("**reaches 60 InferenceServices**"));
        let shown = md.matches("<details>").count();
        assert!(shown > 0 && shown < 60, "{shown}");
        assert!(
            md.contains(&format!(" and {} groups with ", 60 - shown)),
            "{md}"
        );
    }
}

#[test]
fn markdown_fences_outlast_backticks_in_the_diff() {
    let config = |v: &str| {
        format!(
            r#"apiVersion: v1
kind: ConfigMap
metadata: {{name: c, namespace: team}}
data:
  readme: "````{v}"
"#
        )
    };
    let md = markdown::render(&compare(&config("a"), &config("b")), &labels(), 65_000);
    assert!(md.contains("\n`````diff\n"), "{md}");
}

#[test]
fn the_widest_reaching_change_leads_the_impact() {
    let services = |n: usize| -> String {
        (0..n)
            .map(|i| {
                isvc(
                    "team",
                    &format!("svc-{i}"),
                    if i == 0 { "rt-b" } else { "rt-a" },
                    2,
                )
            })
            .collect()
    };
    let inputs = |image: &str| {
        format!(
            "{}{}{}{}",
            model("m", "/models/m"),
            runtime("rt-a", "img:1", 1),
            runtime("rt-b", image, 1),
            services(3)
        )
    };
    let base = render(&[("in.yaml", &inputs("img:2"))], &[]);
    let head = render(
        &[
            ("ome-render.yaml", "terminationGracePeriodSeconds: 30\n"),
            ("in.yaml", &inputs("img:3")),
        ],
        &[],
    );
    let r = diff::compare(
        &base.side(),
        &head.side(),
        &diff::Options {
            context: 3,
            namespace: "default".into(),
        },
    );
    let out = text::render(&r, &labels(), false);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[2], "  settings changed: reaches 3 InferenceServices",
        "{out}"
    );
    assert_eq!(
        lines[4], "  ClusterServingRuntime/rt-b changed: reaches 1 InferenceService",
        "{out}"
    );
}
