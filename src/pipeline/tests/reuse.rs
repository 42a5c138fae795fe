//! `diff`'s head side reusing the base's objects (SEMANTICS.md#diff-reuse): for each change a
//! pull request makes, the comparison with reuse is the one of two full renders — the same
//! report, the same diagnostics on each side, the same objects byte for byte — and the
//! InferenceServices nothing reaches are reused.

use super::diff::{model, runtime};
use crate::diagnostics::{Code, Diagnostic};
use crate::diff::normalise::Normalise;
use crate::diff::{self, Report};
use crate::emit::Format;
use crate::pipeline::reuse::Reuse;
use crate::pipeline::{Options, Rendering, render_texts};
use crate::rendered::Body;
use std::sync::Arc;

fn render(files: &[(&str, &str)], reuse: Option<Arc<Reuse>>) -> Rendering {
    let options = Options {
        namespace: "default".into(),
        allow_empty: true,
        serialise: Some(Format::Yaml),
        trace: true,
        normalise: Some(Normalise::new(Vec::new())),
        reuse,
        ..Options::default()
    };
    render_texts(files, &options)
}

fn compare(base: &Rendering, head: &Rendering) -> Report {
    diff::compare(
        &base.side(),
        &head.side(),
        &diff::Options {
            context: 3,
            namespace: "default".into(),
        },
    )
}

/// Everything of a rendering the report and the exit code are made from.
type Seen = (Vec<Diagnostic>, Vec<(String, Option<String>, Vec<u8>)>);

fn seen(r: &Rendering) -> Seen {
    let objects = r
        .objects
        .iter()
        .map(|o| {
            let bytes = match &o.body {
                Body::Bytes(b) => b.to_vec(),
                Body::Tree(_) => panic!("serialised while rendered"),
            };
            (
                format!("{}/{}", o.kind, o.name),
                o.source.as_ref().map(|s| s.name.clone()),
                bytes,
            )
        })
        .collect();
    (r.diags.clone(), objects)
}

/// Compares `base` with `head` twice, by two full renders and with the head reusing the
/// base's objects; asserts the two agree and returns the report and how many
/// InferenceServices the head reused.
fn both_ways(base: &[(&str, &str)], head: &[(&str, &str)]) -> (Report, usize) {
    let (full_base, full_head) = (render(base, None), render(head, None));
    let full = compare(&full_base, &full_head);
    assert_eq!(full_head.reused, 0);

    let mut reusing_base = render(base, None);
    let reuse = Arc::new(Reuse::new(
        std::mem::take(&mut reusing_base.objects),
        reusing_base.settings.clone(),
        std::mem::take(&mut reusing_base.recorded),
    ));
    let reusing_head = render(head, Some(Arc::clone(&reuse)));
    reusing_base.objects = Reuse::into_objects(reuse);
    let reused = compare(&reusing_base, &reusing_head);

    assert_eq!(full, reused, "the report");
    assert_eq!(seen(&full_base), seen(&reusing_base), "the base");
    assert_eq!(seen(&full_head), seen(&reusing_head), "the head");
    assert_eq!(full_head.resolved, reusing_head.resolved);
    assert_eq!(full_head.inputs, reusing_head.inputs);
    (reused, reusing_head.reused)
}

const SETTINGS: &str = "terminationGracePeriodSeconds: 30\n";

/// An InferenceService of `model`, naming `runtime` unless it is empty (then auto-selected).
fn isvc(name: &str, model: &str, runtime: &str) -> String {
    let runtime = if runtime.is_empty() {
        String::new()
    } else {
        format!("  runtime: {{name: {runtime}}}\n")
    };
    format!(
        r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: {name}, namespace: team}}
spec:
  model: {{name: {model}}}
{runtime}  engine: {{minReplicas: 1, maxReplicas: 2}}
---
"
    )
}

/// The base: settings, two models, two runtimes and five InferenceServices in two files.
struct Tree {
    settings: String,
    models: String,
    runtimes: String,
    a: String,
    b: String,
}

impl Tree {
    fn base() -> Tree {
        Tree {
            settings: SETTINGS.into(),
            models: model("m1", "/models/m1") + &model("m2", "/models/m2"),
            runtimes: runtime("rt-a", "img:1", 1) + &runtime("rt-b", "img:2", 1),
            a: isvc("one", "m1", "rt-a") + &isvc("two", "m2", "rt-b") + &isvc("three", "m1", ""),
            b: isvc("four", "m2", "rt-a") + &isvc("five", "m2", "rt-b"),
        }
    }

    fn files(&self) -> Vec<(&str, &str)> {
        vec![
            ("ome-render.yaml", &self.settings),
            ("a.yaml", &self.a),
            ("b.yaml", &self.b),
            ("models.yaml", &self.models),
            ("runtimes.yaml", &self.runtimes),
        ]
    }
}

fn changed(r: &Report) -> Vec<String> {
    r.groups
        .iter()
        .map(|g| g.isvc.as_ref().map_or("-".into(), |i| i.path()))
        .collect()
}

#[test]
fn the_same_tree_reuses_every_inference_service() {
    let base = Tree::base();
    let (r, reused) = both_ways(&base.files(), &base.files());
    assert!(!r.has_differences());
    assert_eq!(reused, 5);
}

#[test]
fn a_runtime_edit_renders_again_what_uses_it() {
    let base = Tree::base();
    let head = Tree {
        runtimes: runtime("rt-a", "img:9", 1) + &runtime("rt-b", "img:2", 1),
        ..Tree::base()
    };
    let (r, reused) = both_ways(&base.files(), &head.files());
    assert_eq!(changed(&r), ["team/four", "team/one", "team/three"]);
    // `two` and `five` use rt-b only; the runtimes' file differs, so nothing else is reused.
    assert_eq!(reused, 0, "every runtime sits in the edited file");
    // Runtimes in files of their own: rt-b's users are reused, whichever file they are in;
    // `three`, auto-selected, chose rt-a (both weigh the same, and rt-a comes first).
    let split = |a: &str, three: &str| -> Vec<(String, String)> {
        vec![
            ("ome-render.yaml".into(), base.settings.clone()),
            (
                "a.yaml".into(),
                isvc("one", "m1", "rt-a")
                    + &isvc("two", "m2", "rt-b")
                    + &isvc("three", "m1", three),
            ),
            ("b.yaml".into(), base.b.clone()),
            ("models.yaml".into(), base.models.clone()),
            ("rt-a.yaml".into(), runtime("rt-a", a, 1)),
            ("rt-b.yaml".into(), runtime("rt-b", "img:2", 1)),
        ]
    };
    let (b, h) = (split("img:1", ""), split("img:9", ""));
    let (r, reused) = both_ways(&strs(&b), &strs(&h));
    assert_eq!(changed(&r), ["team/four", "team/one", "team/three"]);
    assert_eq!(reused, 2, "`two` and `five`");
    let (b, h) = (split("img:1", "rt-b"), split("img:9", "rt-b"));
    let (r, reused) = both_ways(&strs(&b), &strs(&h));
    assert_eq!(changed(&r), ["team/four", "team/one"]);
    assert_eq!(reused, 3, "`two`, `three` and `five`");
}

fn strs(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect()
}

#[test]
fn a_model_edit_renders_again_what_uses_it() {
    let split = |m2: &str| -> Vec<(String, String)> {
        let t = Tree::base();
        vec![
            ("ome-render.yaml".into(), t.settings),
            (
                "a.yaml".into(),
                isvc("one", "m1", "rt-a") + &isvc("two", "m2", "rt-b"),
            ),
            ("b.yaml".into(), t.b),
            ("m1.yaml".into(), model("m1", "/models/m1")),
            ("m2.yaml".into(), model("m2", m2)),
            ("runtimes.yaml".into(), t.runtimes),
        ]
    };
    let (b, h) = (split("/models/m2"), split("/models/m2-v2"));
    let (r, reused) = both_ways(&strs(&b), &strs(&h));
    assert_eq!(changed(&r), ["team/five", "team/four", "team/two"]);
    assert_eq!(reused, 1, "`one` alone uses m1");
}

#[test]
fn a_settings_edit_reuses_nothing() {
    let base = Tree::base();
    let head = Tree {
        settings: "terminationGracePeriodSeconds: 45\n".into(),
        ..Tree::base()
    };
    let (r, reused) = both_ways(&base.files(), &head.files());
    assert_eq!(r.counts().isvcs, [0, 0, 5]);
    assert_eq!(reused, 0);
}

#[test]
fn an_edited_or_moved_inference_service_is_rendered_again() {
    let base = Tree::base();
    // `five` edited: `four`, in the same file, is rendered again too; file a is reused.
    let edited = Tree {
        b: isvc("four", "m2", "rt-a") + &isvc("five", "m1", "rt-b"),
        ..Tree::base()
    };
    let (r, reused) = both_ways(&base.files(), &edited.files());
    assert_eq!(changed(&r), ["team/five"]);
    assert_eq!(reused, 3);
    // `five` moved from b to a, unchanged: nothing differs, and neither file is reused.
    let moved = Tree {
        a: base.a.clone() + &isvc("five", "m2", "rt-b"),
        b: isvc("four", "m2", "rt-a"),
        ..Tree::base()
    };
    let (r, reused) = both_ways(&base.files(), &moved.files());
    assert!(!r.has_differences(), "{:?}", changed(&r));
    assert_eq!(reused, 0);
    // A file added before the others moves every file's place: nothing is reused.
    let mut added = base.files();
    let extra = isvc("six", "m1", "rt-a");
    added.insert(1, ("0.yaml", &extra));
    let (r, reused) = both_ways(&base.files(), &added);
    assert_eq!(changed(&r), ["team/six"]);
    assert_eq!(reused, 0);
}

#[test]
fn a_broken_base_fixed_by_the_head() {
    let base = Tree {
        b: isvc("four", "m2", "rt-missing") + &isvc("five", "m2", "rt-b"),
        ..Tree::base()
    };
    let broken = render(&base.files(), None);
    assert!(broken.diags.iter().any(Diagnostic::is_error));
    let head = Tree::base();
    let (r, reused) = both_ways(&base.files(), &head.files());
    assert_eq!(changed(&r), ["team/four"]);
    assert_eq!(reused, 3, "file a is the same bytes");
    // And the other way: the head breaks what the base rendered.
    let (r, _) = both_ways(&head.files(), &base.files());
    assert_eq!(changed(&r), ["team/four"]);
}

#[test]
fn a_pin_change_renders_again() {
    let [rt, rev, svc, m] = super::pins::pinned_inputs();
    let files = |lock: String| -> Vec<(String, String)> {
        vec![
            ("m.yaml".into(), m.clone()),
            ("rt.yaml".into(), rt.clone()),
            ("isvc.yaml".into(), svc.clone()),
            ("rev.yaml".into(), rev.clone()),
            ("ome-render.lock".into(), lock),
        ]
    };
    let pinned = files(super::pins::pinned_lock());
    let (same, reused) = both_ways(&strs(&pinned), &strs(&pinned));
    assert!(!same.has_differences());
    assert_eq!(reused, 1);
    // The pin dropped: the live runtime renders, and the lock file differs.
    let unpinned = files("lockVersion: 1\npins: []\n".into());
    let (r, reused) = both_ways(&strs(&pinned), &strs(&unpinned));
    assert_eq!(changed(&r), ["llama-demo/llama-3-2-3b-instruct"]);
    assert_eq!(reused, 0);
}

#[test]
fn a_renamed_or_removed_file() {
    let base = Tree::base();
    // The models renamed in their place: the same bytes at the same place, so every
    // InferenceService is reused, and so are the model agent's warnings its render gave,
    // which point into the models' file: the head's, by its new name (`both_ways` compares
    // the diagnostics with a full render's).
    let mut renamed = base.files();
    renamed[3].0 = "models-renamed.yaml";
    let head = render(&renamed, None);
    assert_eq!(
        head.sources.get(3).map(|f| f.path.as_str()),
        Some("models-renamed.yaml")
    );
    assert!(
        head.diags
            .iter()
            .any(|d| d.code == Code::ModelAgent && d.pos.is_some_and(|p| p.file == 3)),
        "a render's warning in the renamed file"
    );
    let (r, reused) = both_ways(&base.files(), &renamed);
    assert!(!r.has_differences(), "{:?}", changed(&r));
    assert_eq!(reused, 5);
    // b removed: its InferenceServices are removed, and the files after it move up a place,
    // so what resolves to them is rendered again.
    let mut removed = base.files();
    removed.remove(2);
    let (r, reused) = both_ways(&base.files(), &removed);
    let mut groups = changed(&r);
    groups.sort();
    assert_eq!(groups, ["team/five", "team/four"]);
    assert_eq!(
        reused, 0,
        "a resolves to the models and runtimes, which moved"
    );
}
