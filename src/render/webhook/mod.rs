//! OME v1.3's pod-mutating webhook, applied to every rendered pod template
//! (SEMANTICS.md#pod-webhook, [choice](SEMANTICS.md#choice-pod-webhook)).
//!
//! In a cluster the webhook mutates each pod labelled `ome.io/inferenceservice` when it is
//! created. ome-render applies the same injectors, in OME's order, to the pod templates of
//! the objects it renders (a Deployment's template, a LeaderWorkerSet's leader and worker
//! templates), so the rendered template is the pod that will run:
//!
//! 1. model-init, 2. metrics aggregator, 3. fine-tuned adapter, 4. serving sidecar
//!    ([`metrics_aggregator`], [`unrendered`]);
//! 5. RDMA ([`rdma`]); 6. shm ([`shm`]); 7. probes ([`probe`]); 8. observability
//!    ([`observability`]).
//!
//! Every injector adds only what is not already there (env names, volumes, mounts,
//! capabilities, probes, annotations) and keeps its trigger annotations, so applying the
//! mutation twice gives the once-mutated template, and a live webhook finds nothing to add.
//! An input a cluster's webhook would refuse (an unknown profile) is an error; an injector
//! that needs the cluster at pod start (model-init, the fine-tuned adapter, the serving
//! sidecar) refuses its trigger with the reason.

mod metrics_aggregator;
mod observability;
mod probe;
mod rdma;
mod shm;
mod unrendered;

use crate::diagnostics::{Code, Diagnostic, suggest};
use crate::model::InferenceService;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node, Pos};
use std::collections::HashMap;

/// The label that makes OME's webhook mutate a pod.
pub(crate) const INFERENCE_SERVICE_LABEL: &str = "ome.io/inferenceservice";

/// The container the injectors target when no container-name annotation names another.
const DEFAULT_CONTAINER: &str = "ome-container";

/// The shared `/dev/shm` volume of the RDMA and shm injectors.
const DSHM_VOLUME: &str = "dshm";

/// Where the annotations a pod template carries come from, for diagnostics: the
/// InferenceService's own annotations, then each component's (runtime or InferenceService).
pub(crate) type AnnotationOrigins = HashMap<String, Pos>;

/// Applies OME's pod webhook to every pod template of `objects` that OME's webhook would
/// mutate. Problems are pushed to `diags`.
pub(crate) fn mutate_pod_templates(
    objects: &mut [Rendered],
    isvc: &InferenceService,
    origins: &AnnotationOrigins,
    diags: &mut Vec<Diagnostic>,
) {
    for object in objects {
        let kind = object.kind.clone();
        let paths: &[&[&str]] = match kind.as_str() {
            "Deployment" => &[&["spec", "template"]],
            "LeaderWorkerSet" => &[
                &["spec", "leaderWorkerTemplate", "leaderTemplate"],
                &["spec", "leaderWorkerTemplate", "workerTemplate"],
            ],
            _ => continue,
        };
        let Some(tree) = object.tree_mut() else {
            continue;
        };
        for path in paths {
            let Some(template) = at_mut(tree, path).and_then(Node::as_map_mut) else {
                continue;
            };
            let field = path.join(".");
            let mut cx = Context {
                isvc,
                origins,
                object: &kind,
                field: &field,
                diags,
            };
            mutate_template(template, &mut cx);
        }
    }
}

fn at_mut<'n>(node: &'n mut Node, path: &[&str]) -> Option<&'n mut Node> {
    let mut cur = node;
    for key in path {
        cur = cur.as_map_mut()?.get_mut(key)?;
    }
    Some(cur)
}

/// What an injector reports against.
pub(super) struct Context<'a> {
    isvc: &'a InferenceService,
    origins: &'a AnnotationOrigins,
    /// The kind of the rendered object and the path of its pod template.
    object: &'a str,
    field: &'a str,
    diags: &'a mut Vec<Diagnostic>,
}

impl Context<'_> {
    /// A diagnostic about an annotation, at the line that sets it.
    fn annotation_diagnostic(&mut self, d: Diagnostic, key: &str) {
        let pos = self.origins.get(key).copied().unwrap_or(self.isvc.pos);
        self.diags
            .push(d.at(pos).object(self.isvc.object.clone()).field(format!(
                "{} {}.metadata.annotations[{key}]",
                self.object, self.field
            )));
    }

    /// OME's webhook refuses the pod with `message`: an error.
    fn refuse(&mut self, key: &str, message: String, help: String) {
        let d = Diagnostic::error(
            Code::PodWebhook,
            format!("OME's pod webhook refuses the pod: {message}"),
        )
        .help(help);
        self.annotation_diagnostic(d, key);
    }

    /// The path of the profile a pod's `key` annotation names in `profiles` (name, path), or
    /// none when it names none; an unknown name is OME's error.
    fn profile_path(
        &mut self,
        pod: &Pod<'_>,
        key: &str,
        what: &str,
        profiles: &[(&str, &'static str)],
    ) -> Result<Option<&'static str>, ()> {
        let Some(name) = pod.nonempty(key) else {
            return Ok(None);
        };
        match profiles.iter().find(|(n, _)| *n == name) {
            Some((_, path)) => Ok(Some(path)),
            None => {
                let known: Vec<&str> = profiles.iter().map(|(n, _)| *n).collect();
                let name = name.to_string();
                self.unknown_profile(key, what, &name, &known);
                Err(())
            }
        }
    }

    /// An unknown profile name, with OME's message and the known names.
    fn unknown_profile(&mut self, key: &str, what: &str, name: &str, known: &[&str]) {
        let mut help = format!("known {what} profiles: {}", known.join(", "));
        if let Some(close) = suggest::closest(name, known) {
            help = format!("did you mean `{close}`? {help}");
        }
        self.refuse(key, format!("unknown {what} profile: {name}"), help);
    }

    /// The annotation names a container the pod does not have: OME's webhook skips it.
    fn missing_container(&mut self, key: &str, injector: &str, container: &str) {
        let d = Diagnostic::warning(
            Code::PodWebhook,
            format!(
                "the {injector} profile targets container `{container}`, which the pod does not have: OME's pod webhook injects nothing"
            ),
        )
        .help(format!(
            "name the runner container in {key}, or remove the profile annotation"
        ));
        self.annotation_diagnostic(d, key);
    }
}

/// A pod as the injectors see it: its annotations and its spec.
pub(super) struct Pod<'a> {
    pub(super) annotations: Map,
    pub(super) spec: &'a mut Map,
}

impl Pod<'_> {
    pub(super) fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations.get(key).and_then(Node::as_str)
    }

    /// An annotation's value when it is set and not empty.
    pub(super) fn nonempty(&self, key: &str) -> Option<&str> {
        self.annotation(key).filter(|v| !v.is_empty())
    }

    pub(super) fn set_annotation(&mut self, key: &str, value: &str) {
        self.annotations.insert(key, Node::str(value));
    }

    pub(super) fn set_annotation_if_absent(&mut self, key: &str, value: &str) {
        if !self.annotations.contains_key(key) {
            self.set_annotation(key, value);
        }
    }

    /// The container named `name`.
    pub(super) fn container(&mut self, name: &str) -> Option<&mut Map> {
        self.spec
            .get_mut("containers")?
            .as_seq_mut()?
            .iter_mut()
            .filter_map(Node::as_map_mut)
            .find(|c| c.get("name").and_then(Node::as_str) == Some(name))
    }

    pub(super) fn has_volume(&self, name: &str) -> bool {
        has_named(self.spec.get("volumes"), name)
    }

    /// Appends `volume` unless a volume of its name exists.
    pub(super) fn add_volume(&mut self, volume: Node) {
        let Some(name) = volume.str_at(&["name"]).map(str::to_string) else {
            return;
        };
        if self.has_volume(&name) {
            return;
        }
        let list = self.spec.entry_or("volumes", || Node::seq(Vec::new()));
        if let Some(list) = list.as_seq_mut() {
            list.push(volume);
        }
    }
}

/// Whether a list holds an entry whose `name` is `name`.
pub(super) fn has_named(list: Option<&Node>, name: &str) -> bool {
    list.and_then(Node::as_seq)
        .is_some_and(|l| l.iter().any(|e| e.str_at(&["name"]) == Some(name)))
}

/// Appends `mount` to the container's mounts unless one of its name exists.
pub(super) fn add_mount(container: &mut Map, mount: Node) {
    let Some(name) = mount.str_at(&["name"]).map(str::to_string) else {
        return;
    };
    if has_named(container.get("volumeMounts"), &name) {
        return;
    }
    let list = container.entry_or("volumeMounts", || Node::seq(Vec::new()));
    if let Some(list) = list.as_seq_mut() {
        list.push(mount);
    }
}

/// Appends `name=value` to the container's env unless a variable of that name exists.
pub(super) fn add_env(container: &mut Map, name: &str, value: &str) {
    if has_named(container.get("env"), name) {
        return;
    }
    let list = container.entry_or("env", || Node::seq(Vec::new()));
    if let Some(list) = list.as_seq_mut() {
        list.push(Node::map(crate::map! {
            "name" => Node::str(name),
            "value" => Node::str(value),
        }));
    }
}

/// The `/dev/shm` volume and mount the RDMA and shm profiles share: a memory-backed
/// emptyDir with no size limit.
pub(super) fn dshm_volume() -> Node {
    Node::map(crate::map! {
        "name" => Node::str(DSHM_VOLUME),
        "emptyDir" => Node::map(crate::map! { "medium" => Node::str("Memory") }),
    })
}

pub(super) fn dshm_mount() -> Node {
    Node::map(crate::map! {
        "name" => Node::str(DSHM_VOLUME),
        "mountPath" => Node::str("/dev/shm"),
    })
}

/// One injector: `Err` when it refused the pod (its diagnostic is pushed).
type Injector = fn(&mut Pod<'_>, &mut Context<'_>) -> Result<(), ()>;

/// The injectors in OME's order. One that refuses stops the chain, as OME's webhook does.
fn mutate_template(template: &mut Map, cx: &mut Context<'_>) {
    let labelled = template
        .get("metadata")
        .and_then(|m| m.get("labels"))
        .is_some_and(|l| l.get(INFERENCE_SERVICE_LABEL).is_some());
    if !labelled {
        return;
    }
    let metadata = template.entry_or("metadata", || Node::map(Map::new()));
    let annotations = metadata
        .as_map_mut()
        .and_then(|m| m.remove("annotations"))
        .and_then(|a| match a.value {
            crate::yaml::Value::Map(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default();
    let Some(spec) = template.get_mut("spec").and_then(Node::as_map_mut) else {
        return;
    };
    let mut pod = Pod { annotations, spec };
    let injectors: [Injector; 8] = [
        unrendered::model_init,
        metrics_aggregator::inject,
        unrendered::fine_tuned_adapter,
        unrendered::serving_sidecar,
        rdma::inject,
        shm::inject,
        probe::inject,
        observability::inject,
    ];
    for inject in injectors {
        if inject(&mut pod, cx).is_err() {
            break;
        }
    }
    let mut annotations = pod.annotations;
    if !annotations.is_empty() {
        annotations.sort_keys();
        if let Some(metadata) = template.get_mut("metadata").and_then(Node::as_map_mut) {
            metadata.insert("annotations", Node::map(annotations));
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    pub(crate) fn node(text: &str) -> Node {
        parse_stream(text, 0).unwrap().remove(0).root
    }

    /// Runs the whole chain on one template given as YAML; returns it and the diagnostics.
    pub(crate) fn run(template: &str) -> (Node, Vec<Diagnostic>) {
        let mut t = node(template);
        let isvc = crate::select::testutil::isvc("{metadata: {name: x}, spec: {}}");
        let origins = AnnotationOrigins::new();
        let mut diags = Vec::new();
        let mut cx = Context {
            isvc: &isvc,
            origins: &origins,
            object: "Deployment",
            field: "spec.template",
            diags: &mut diags,
        };
        mutate_template(t.as_map_mut().unwrap(), &mut cx);
        (t, diags)
    }

    /// Applying the chain to its own output changes nothing.
    pub(crate) fn assert_idempotent(template: &str) -> Node {
        let (once, diags) = run(template);
        assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
        let text = crate::yaml::emit::to_yaml_string(&once);
        let (twice, _) = run(&text);
        assert_eq!(
            crate::yaml::emit::to_yaml_string(&twice),
            text,
            "a second pass must add nothing"
        );
        once
    }

    #[test]
    fn unlabelled_pods_are_not_mutated() {
        let (t, diags) = run(
            "metadata: {labels: {app: x}, annotations: {rdma.ome.io/auto-inject: 'true'}}\nspec: {containers: [{name: ome-container}]}\n",
        );
        assert!(diags.is_empty());
        assert!(t.at(&["spec", "volumes"]).is_none());
    }

    #[test]
    fn the_whole_chain_is_idempotent() {
        let t = assert_idempotent(
            "metadata:\n  labels: {ome.io/inferenceservice: x}\n  annotations:\n    rdma.ome.io/auto-inject: 'true'\n    runtime.ome.io/shm-profile: default\n    runtime.ome.io/probe-profile: sglang-http\n    runtime.ome.io/observability-profile: prometheus\nspec:\n  containers: [{name: ome-container, image: i}]\n",
        );
        // The trigger annotations stay; the observability profile's are added.
        assert_eq!(
            t.str_at(&["metadata", "annotations", "rdma.ome.io/auto-inject"]),
            Some("true")
        );
        assert_eq!(
            t.str_at(&["metadata", "annotations", "prometheus.io/scrape"]),
            Some("true")
        );
        // One dshm volume, shared by the RDMA and shm profiles.
        let volumes = t.at(&["spec", "volumes"]).and_then(Node::as_seq).unwrap();
        assert_eq!(volumes.len(), 2);
    }
}
