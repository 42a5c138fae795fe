//! The pod template of one component, built from the merged component (SEMANTICS.md#pods,
//! in OME v1.3's order):
//!
//! 1. on the runner container: `MODEL_PATH`, the overlays' `OVERLAY_<NAME>_MODEL_PATH`, the
//!    class's `environmentOverride`, the model mount, the overlays' mounts, the class's resources, `runtimeArgsOverride` and the TP/PP rewrite, then
//!    `PARALLELISM_SIZE`;
//! 2. the runner goes into the pod's container of the same name (appended when none);
//! 3. placeholders are expanded in that one container;
//! 4. the model volume, the overlays' volumes, node selector and class affinity are added to the pod;
//! 5. OME's own defaults that differ from Kubernetes' are filled in (SEMANTICS.md#choice-api-defaults).

use super::placeholders;
use crate::diagnostics::{Code, Diagnostic};
use crate::merge::{args, strategic};
use crate::model::inference_service::overlay_env_name;
use crate::model::runtime::AcceleratorModelConfig;
use crate::model::schema::POD_FIELDS;
use crate::model::{AcceleratorClass, BaseModel, InferenceService, Role, Settings};
use crate::select::overlays::Overlay;
use crate::yaml::{Map, Node, Pos, Value};
use std::collections::HashMap;

/// The name OME gives a runner nobody named.
pub(crate) const DEFAULT_RUNNER_NAME: &str = "ome-container";

/// How the model's weights reach the pod.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ModelStorage {
    /// A PersistentVolumeClaim (`pvc://claim/sub/path`), mounted at `/opt/ml/model`.
    Pvc { claim: String, sub_path: String },
    /// A path on the node (`storage.path`), mounted at the same path.
    HostPath(String),
    /// A sharded model: no volume; `MODEL_PATH` is the storage URI.
    Sharded(String),
    /// Nothing to mount.
    None,
}

pub(crate) const PVC_MODEL_PATH: &str = "/opt/ml/model";

impl ModelStorage {
    pub(crate) fn of(model: &BaseModel) -> ModelStorage {
        if model.distribution.as_deref() == Some("Sharded") {
            return model
                .storage
                .storage_uri
                .clone()
                .filter(|u| !u.is_empty())
                .map_or(ModelStorage::None, ModelStorage::Sharded);
        }
        if let Some((claim, sub_path)) =
            model.storage.storage_uri.as_deref().and_then(parse_pvc_uri)
        {
            return ModelStorage::Pvc { claim, sub_path };
        }
        match &model.storage.path {
            Some(p) if !p.is_empty() => ModelStorage::HostPath(p.clone()),
            _ => ModelStorage::None,
        }
    }

    /// Where the model writes the text this storage copies into the pod: `storage.path` for
    /// a host path, `storageUri` for a claim's sub path or a sharded model.
    fn origin(&self, model: &BaseModel) -> Pos {
        match self {
            ModelStorage::HostPath(_) => model.storage.path_pos,
            ModelStorage::Pvc { .. } | ModelStorage::Sharded(_) => model.storage.storage_uri_pos,
            ModelStorage::None => Pos::NONE,
        }
    }

    fn model_path(&self) -> Option<&str> {
        match self {
            ModelStorage::Pvc { .. } => Some(PVC_MODEL_PATH),
            ModelStorage::HostPath(p) | ModelStorage::Sharded(p) => Some(p),
            ModelStorage::None => None,
        }
    }
}

/// `pvc://[namespace:]claim/sub/path` → (claim, sub path). Anything else, including a
/// missing sub path or `..` segments, is not a PVC location.
pub(crate) fn parse_pvc_uri(uri: &str) -> Option<(String, String)> {
    let rest = uri.strip_prefix("pvc://")?;
    let (claim_part, sub_path) = rest.split_once('/')?;
    let claim = match claim_part.split(':').collect::<Vec<_>>().as_slice() {
        [claim] => *claim,
        [ns, claim] if !ns.is_empty() => *claim,
        _ => return None,
    };
    let sub_path = sub_path.trim_end_matches('/');
    if claim.is_empty()
        || sub_path.is_empty()
        || sub_path
            .split('/')
            .any(|s| s.is_empty() || s == ".." || s == ".")
    {
        return None;
    }
    Some((claim.to_string(), sub_path.to_string()))
}

/// Everything a pod template is made from.
pub(crate) struct PodInputs<'a> {
    pub(crate) isvc: &'a InferenceService,
    pub(crate) role: Role,
    /// The pod's fields and `runner`: the merged component, or a leader or worker.
    pub(crate) merged: &'a Node,
    /// The InferenceService's own component, before merging (its `nodeSelector` and
    /// `affinity` win over the class's).
    pub(crate) raw: Option<&'a Node>,
    /// The InferenceService's own runner for this pod: its resources keep the class's out.
    pub(crate) raw_runner: Option<&'a Node>,
    /// `PARALLELISM_SIZE` = GPUs × `pods_per_replica` (1 + workers; 0 skips it).
    pub(crate) pods_per_replica: i64,
    /// Whether a runner named `ome-container` without a probe gets OME's TCP probe (not in
    /// multi-node pods).
    pub(crate) default_probe: bool,
    /// The runtime's whole spec (its top-level `nodeSelector`).
    pub(crate) runtime_spec: &'a Node,
    pub(crate) model: Option<&'a BaseModel>,
    /// `spec.model.overlays`, mounted or skipped (SEMANTICS.md#overlays).
    pub(crate) overlays: &'a [Overlay<'a>],
    pub(crate) class: Option<&'a AcceleratorClass>,
    /// `acceleratorConfig[class]` of the best supported-format entry.
    pub(crate) accelerator_config: Option<&'a AcceleratorModelConfig>,
    pub(crate) settings: &'a Settings,
    /// `<isvc>-router`, the forced service account of a router pod.
    pub(crate) router_service_account: Option<&'a str>,
}

/// A built pod template spec and its runner container.
pub(crate) struct Pod {
    pub(crate) spec: Node,
    /// The index in `containers` of the container the runner went into.
    pub(crate) runner_index: usize,
}

/// Errors found while building, with the object and field already attached by the caller.
pub(crate) type Problems = Vec<Diagnostic>;

fn problem(
    code: Code,
    message: impl Into<String>,
    pos: Pos,
    field: &str,
    inputs: &PodInputs<'_>,
) -> Diagnostic {
    Diagnostic::error(code, message)
        .at(pos)
        .object(inputs.isvc.object.clone())
        .field(field.to_string())
}

/// Builds the pod template spec. Problems are pushed to `diags`. A problem that leaves no pod
/// to build on (a runner list that is no list, no runner and no containers, a container
/// without an image) returns `None`; after any other problem the pod is still returned, and
/// the caller must not emit it.
pub(crate) fn build_pod(inputs: &PodInputs<'_>, diags: &mut Problems) -> Option<Pod> {
    let role = inputs.role.as_str();
    let merged = inputs.merged.as_map()?;
    let mut pod: Map = merged
        .iter()
        .filter(|(k, _)| POD_FIELDS.contains(k) && *k != "ephemeralContainers")
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let storage = inputs.model.map_or(ModelStorage::None, ModelStorage::of);
    let serves_model = inputs.role != Role::Router && inputs.model.is_some();

    let mut runner = merged
        .get("runner")
        .filter(|r| r.as_map().is_some())
        .cloned();
    // The lists the steps below extend must be lists (or absent): anything else would be
    // replaced, silently losing what was written.
    for key in ["env", "volumeMounts", "ports", "args", "command"] {
        if let Some(n) = runner
            .as_ref()
            .and_then(|r| r.get(key))
            .filter(|n| !n.is_null() && n.as_seq().is_none())
        {
            diags.push(
                problem(
                    Code::InvalidField,
                    format!("`{key}` must be a list"),
                    n.pos,
                    &format!("spec.{role}.runner.{key}"),
                    inputs,
                )
                .help(format!("write `{key}` as a YAML list")),
            );
            return None;
        }
    }
    if let Some(runner) = runner.as_mut().and_then(Node::as_map_mut) {
        if serves_model && let Some(path) = storage.model_path() {
            // `MODEL_PATH` holds the model's own text unless it is a claim's mount point.
            let at = match (&storage, inputs.model) {
                (ModelStorage::Pvc { .. }, _) | (_, None) => Pos::NONE,
                (_, Some(model)) => storage.origin(model),
            };
            append_env_if_absent(runner, "MODEL_PATH", path, at);
        }
        if inputs.role != Role::Router {
            for (name, value) in inputs.overlays.iter().filter_map(overlay_env) {
                append_env_if_absent(runner, &name, &value, Pos::NONE);
            }
        }
        if let Some(config) = inputs.accelerator_config {
            for (message, pos) in set_envs(runner, &config.environment_override) {
                diags.push(
                    problem(Code::InvalidMerge, message, pos, &format!("spec.{role}.runner.env"), inputs)
                        .related(config.pos, "the class's environmentOverride sets it here")
                        .help("the class's environmentOverride sets `value` on a variable that uses `valueFrom`"),
                );
            }
        }
        if serves_model {
            add_model_mount(runner, inputs.model, &storage);
        }
        if inputs.role != Role::Router {
            add_overlay_mounts(runner, inputs.overlays);
        }
        if inputs.role != Role::Router {
            apply_class_resources(runner, inputs);
            if let Some(config) = inputs.accelerator_config {
                apply_accelerator_args(runner, config);
            }
            let tp_override = inputs
                .accelerator_config
                .is_some_and(|c| c.tensor_parallelism.is_some());
            if !tp_override {
                let gpus = gpu_count(runner, &inputs.settings.accelerator_resources);
                if gpus > 0 && inputs.pods_per_replica > 0 {
                    let value = (gpus * inputs.pods_per_replica).to_string();
                    if let Err((message, pos)) = set_env(runner, "PARALLELISM_SIZE", &value) {
                        diags.push(
                            problem(
                                Code::InvalidMerge,
                                message,
                                pos,
                                &format!("spec.{role}.runner.env"),
                                inputs,
                            )
                            .help(
                                "OME sets PARALLELISM_SIZE itself; remove it from the runner's env",
                            ),
                        );
                    }
                }
            }
        }
        if inputs.role == Role::Router {
            append_router_config_env(runner, inputs.merged);
        }
    }

    // Place the runner into the pod.
    let containers = pod
        .entry_or("containers", || Node::seq(Vec::new()))
        .as_seq_mut()?;
    let runner_index = match runner {
        Some(runner) => {
            let name = runner
                .str_at(&["name"])
                .unwrap_or(DEFAULT_RUNNER_NAME)
                .to_string();
            match containers
                .iter()
                .position(|c| c.str_at(&["name"]) == Some(name.as_str()))
            {
                Some(i) => {
                    let placed = place_runner(&containers[i], &runner, diags, inputs);
                    containers[i] = placed;
                    i
                }
                None => {
                    containers.push(runner);
                    containers.len() - 1
                }
            }
        }
        None if containers.is_empty() => {
            diags.push(
                problem(
                    Code::InvalidField,
                    format!("the {role} has no runner and no containers"),
                    inputs.raw.map_or(Pos::NONE, |r| r.pos),
                    &format!("spec.{role}"),
                    inputs,
                )
                .help("give the runtime's config or the InferenceService component a `runner`"),
            );
            return None;
        }
        None => 0,
    };

    // Every container needs an image: an auto-selected runtime that relies on its parent for
    // it would otherwise render a pod the API server rejects.
    for (i, c) in containers.iter().enumerate() {
        if c.str_at(&["image"]).is_none_or(str::is_empty) {
            let name = c.str_at(&["name"]).unwrap_or("");
            let inherits = if i == runner_index {
                "; an auto-selected runtime is used without what it inherits, so name an inheriting runtime in spec.runtime.name"
            } else {
                ""
            };
            diags.push(
                problem(
                    Code::InvalidField,
                    format!("container `{name}` of the {role} has no image"),
                    if c.pos.is_none() {
                        inputs.raw.map_or(Pos::NONE, |r| r.pos)
                    } else {
                        c.pos
                    },
                    &format!("spec.{role}"),
                    inputs,
                )
                .help(format!(
                    "set `image` on the runner (in the runtime or the InferenceService){inherits}"
                )),
            );
            return None;
        }
    }

    // Placeholders, in the runner container only.
    let data = placeholders::Metadata::of(inputs.isvc);
    if let Err(errors) = placeholders::expand_tree(&mut containers[runner_index], &data) {
        // Text the model's storage put into the runner (its mount, `MODEL_PATH`) is reported
        // once, at the model's field.
        let model_field = inputs.model.and_then(|m| {
            let at = storage.origin(m);
            let field = match storage {
                ModelStorage::HostPath(_) => "spec.storage.path",
                _ => "spec.storage.storageUri",
            };
            (!at.is_none()).then_some((at, field, m))
        });
        let mut model_reported = false;
        for e in errors {
            let d = match model_field {
                Some((at, field, model)) if e.pos == at => {
                    if std::mem::replace(&mut model_reported, true) {
                        continue;
                    }
                    Diagnostic::error(
                        Code::Placeholder,
                        format!(
                            "{} (OME copies {field} into the runner of the {role} of {}, as its model mount and MODEL_PATH)",
                            e.error.message(),
                            inputs.isvc.object,
                        ),
                    )
                    .object(model.object.clone())
                    .field(field)
                }
                _ => Diagnostic::error(Code::Placeholder, e.error.message())
                    .object(inputs.isvc.object.clone())
                    .field(format!("spec.{role}.runner.{}", e.path)),
            };
            diags.push(d.at(e.pos).help(e.error.help()));
        }
    }

    if serves_model || (inputs.role == Role::Router && inputs.model.is_some()) {
        add_model_volume(&mut pod, inputs.model, &storage);
    }
    add_overlay_volumes(&mut pod, inputs.overlays);
    if inputs.role != Role::Router {
        apply_node_selector(&mut pod, inputs, &storage);
        apply_class_affinity(&mut pod, inputs);
    }
    if let Some(sa) = inputs.router_service_account {
        pod.insert("serviceAccountName", Node::str(sa));
    }
    apply_defaults(&mut pod, inputs.settings, inputs.default_probe);
    pod.move_to_front("containers");
    Some(Pod {
        spec: Node::map(pod),
        runner_index,
    })
}

/// Merges the runner into the same-named pod container: the runner wins, and the
/// container's args come first, followed by the runner's (SEMANTICS.md#pods).
fn place_runner(
    container: &Node,
    runner: &Node,
    diags: &mut Problems,
    inputs: &PodInputs<'_>,
) -> Node {
    let mut conflicts = Vec::new();
    let mut merged = strategic::merge(container, runner, &mut conflicts);
    for c in conflicts {
        diags.push(
            Diagnostic::error(Code::InvalidMerge, c.message)
                .at(c.patch)
                .object(inputs.isvc.object.clone())
                .field(format!("spec.{}.runner.{}", inputs.role.as_str(), c.path))
                .related(c.base, "the pod container sets it here"),
        );
    }
    let container_args = container.get("args").and_then(Node::as_seq).unwrap_or(&[]);
    let runner_args = runner.get("args").and_then(Node::as_seq).unwrap_or(&[]);
    if !container_args.is_empty()
        && !runner_args.is_empty()
        && let Some(m) = merged.as_map_mut()
    {
        let mut all = container_args.to_vec();
        all.extend_from_slice(runner_args);
        m.insert("args", Node::seq(all));
    }
    merged
}

fn env_list(container: &mut Map) -> &mut Vec<Node> {
    let env = container.entry_or("env", || Node::seq(Vec::new()));
    if env.as_seq().is_none() {
        *env = Node::seq(Vec::new());
    }
    env.as_seq_mut().expect("env was just made a list")
}

fn env_item(name: &str, value: &str) -> Node {
    Node::map(crate::map! { "name" => Node::str(name), "value" => Node::str(value) })
}

/// Appends `name=value` unless the container sets `name`; the value node is placed at `at`
/// (the input text it copies, or `Pos::NONE`).
fn append_env_if_absent(container: &mut Map, name: &str, value: &str, at: Pos) {
    let env = env_list(container);
    if !env.iter().any(|e| e.str_at(&["name"]) == Some(name)) {
        env.push(Node::map(crate::map! {
            "name" => Node::str(name),
            "value" => Node::new(Value::Str(value.to_string()), at),
        }));
    }
}

/// Sets `name=value` on the first variable of that name, or appends it. A variable that
/// takes its value from `valueFrom` can't also have a `value`: that is an error.
fn set_env(container: &mut Map, name: &str, value: &str) -> Result<(), (String, Pos)> {
    let overrides = [(name.to_string(), value.to_string())];
    match set_envs(container, &overrides).pop() {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

/// Sets each `name=value` of `overrides` on the first variable of that name, or appends it;
/// returns the problems (a variable that is no map, or that uses `valueFrom`). The variables
/// are indexed by name once, so a long list costs its length.
fn set_envs(container: &mut Map, overrides: &[(String, String)]) -> Vec<(String, Pos)> {
    let env = env_list(container);
    let mut first: HashMap<String, usize> = HashMap::with_capacity(env.len() + overrides.len());
    for (i, e) in env.iter().enumerate() {
        if let Some(name) = e.str_at(&["name"]) {
            first.entry(name.to_string()).or_insert(i);
        }
    }
    let mut problems = Vec::new();
    for (name, value) in overrides {
        let Some(&i) = first.get(name) else {
            first.insert(name.clone(), env.len());
            env.push(env_item(name, value));
            continue;
        };
        let item = &mut env[i];
        let pos = item.pos;
        let Some(m) = item.as_map_mut() else {
            problems.push((format!("env var {name} is not a map"), pos));
            continue;
        };
        if m.get("valueFrom").is_some_and(|v| !v.is_null()) {
            problems.push((
                format!("env var {name} would have both `value` and `valueFrom`"),
                pos,
            ));
            continue;
        }
        m.insert("value", Node::str(value));
    }
    problems
}

fn add_model_mount(container: &mut Map, model: Option<&BaseModel>, storage: &ModelStorage) {
    let Some(model) = model else { return };
    // The copied text keeps the model's position, so a problem in it points at the model.
    let at = storage.origin(model);
    let mount = match storage {
        ModelStorage::HostPath(path) => crate::map! {
            "name" => Node::str(&model.name),
            "mountPath" => Node::new(Value::Str(path.clone()), at),
            "readOnly" => Node::bool(true),
        },
        ModelStorage::Pvc { sub_path, .. } => crate::map! {
            "name" => Node::str(&model.name),
            "mountPath" => Node::str(PVC_MODEL_PATH),
            "subPath" => Node::new(Value::Str(sub_path.clone()), at),
            "readOnly" => Node::bool(true),
        },
        ModelStorage::Sharded(_) | ModelStorage::None => return,
    };
    let mounts = container.entry_or("volumeMounts", || Node::seq(Vec::new()));
    if let Some(list) = mounts.as_seq_mut() {
        list.push(Node::map(mount));
    }
}

fn add_model_volume(pod: &mut Map, model: Option<&BaseModel>, storage: &ModelStorage) {
    let Some(model) = model else { return };
    let volume = match storage {
        ModelStorage::HostPath(path) => crate::map! {
            "name" => Node::str(&model.name),
            "hostPath" => Node::map(crate::map! { "path" => Node::str(path) }),
        },
        ModelStorage::Pvc { claim, .. } => crate::map! {
            "name" => Node::str(&model.name),
            "persistentVolumeClaim" => Node::map(crate::map! {
                "claimName" => Node::str(claim),
                "readOnly" => Node::bool(true),
            }),
        },
        ModelStorage::Sharded(_) | ModelStorage::None => return,
    };
    let volumes = pod.entry_or("volumes", || Node::seq(Vec::new()));
    if let Some(list) = volumes.as_seq_mut() {
        list.push(Node::map(volume));
    }
}

/// Where an overlay's model reaches the pod (SEMANTICS.md#overlays): a claim, or a path on
/// the node (`storage.path`, even empty, as OME reads it).
enum OverlaySource<'m> {
    Pvc { claim: String, sub_path: String },
    HostPath(&'m str),
}

fn overlay_source(model: &BaseModel) -> Option<OverlaySource<'_>> {
    if let Some((claim, sub_path)) = model.storage.storage_uri.as_deref().and_then(parse_pvc_uri) {
        return Some(OverlaySource::Pvc { claim, sub_path });
    }
    model.storage.path.as_deref().map(OverlaySource::HostPath)
}

/// `/opt/ml/model-overlays/<name>`, where OME mounts an overlay.
fn overlay_mount_path(name: &str) -> String {
    format!("/opt/ml/model-overlays/{name}")
}

fn overlay_volume_name(name: &str) -> String {
    format!("model-overlay-{name}")
}

/// `OVERLAY_<NAME>_MODEL_PATH` and the mount path, for a mounted overlay whose model has a
/// `spec.storage` (OME sets it even when nothing is mounted there).
fn overlay_env(overlay: &Overlay<'_>) -> Option<(String, String)> {
    let model = overlay.model()?;
    let name = &overlay.reference.name;
    model
        .storage
        .present
        .then(|| (overlay_env_name(name), overlay_mount_path(name)))
}

/// Each mounted overlay's read-only mount, appended in order (OME appends without looking).
fn add_overlay_mounts(container: &mut Map, overlays: &[Overlay<'_>]) {
    for overlay in overlays {
        let Some(source) = overlay.model().and_then(overlay_source) else {
            continue;
        };
        let name = &overlay.reference.name;
        let mut mount = crate::map! {
            "name" => Node::str(overlay_volume_name(name)),
            "mountPath" => Node::str(overlay_mount_path(name)),
            "readOnly" => Node::bool(true),
        };
        if let OverlaySource::Pvc { sub_path, .. } = source {
            mount.insert("subPath", Node::str(sub_path));
        }
        let mounts = container.entry_or("volumeMounts", || Node::seq(Vec::new()));
        if let Some(list) = mounts.as_seq_mut() {
            list.push(Node::map(mount));
        }
    }
}

/// Each mounted overlay's volume, unless the pod has a volume of that name.
fn add_overlay_volumes(pod: &mut Map, overlays: &[Overlay<'_>]) {
    for overlay in overlays {
        let Some(source) = overlay.model().and_then(overlay_source) else {
            continue;
        };
        let name = overlay_volume_name(&overlay.reference.name);
        let volume = match source {
            OverlaySource::Pvc { claim, .. } => crate::map! {
                "name" => Node::str(&name),
                "persistentVolumeClaim" => Node::map(crate::map! {
                    "claimName" => Node::str(claim),
                    "readOnly" => Node::bool(true),
                }),
            },
            OverlaySource::HostPath(path) => crate::map! {
                "name" => Node::str(&name),
                "hostPath" => Node::map(crate::map! { "path" => Node::str(path) }),
            },
        };
        let volumes = pod.entry_or("volumes", || Node::seq(Vec::new()));
        if let Some(list) = volumes.as_seq_mut()
            && !list
                .iter()
                .any(|v| v.str_at(&["name"]) == Some(name.as_str()))
        {
            list.push(Node::map(volume));
        }
    }
}

/// The class's resources over requests and limits, unless the InferenceService's own runner
/// sets resources (v1.3 docs: the component runner blocks them).
fn apply_class_resources(runner: &mut Map, inputs: &PodInputs<'_>) {
    let Some(class) = inputs.class else { return };
    let user_set = inputs
        .raw_runner
        .and_then(|r| r.get("resources"))
        .and_then(Node::as_map)
        .is_some_and(|res| {
            ["limits", "requests", "claims"]
                .iter()
                .any(|k| res.get(k).is_some_and(|v| !v.is_zero()))
        });
    if user_set || class.resources.is_empty() {
        return;
    }
    let resources = runner.entry_or("resources", || Node::map(Map::new()));
    let Some(resources) = resources.as_map_mut() else {
        return;
    };
    for section in ["requests", "limits"] {
        let m = resources.entry_or(section, || Node::map(Map::new()));
        if m.as_map().is_none() {
            *m = Node::map(Map::new());
        }
        if let Some(m) = m.as_map_mut() {
            for (name, quantity) in &class.resources {
                m.insert(name.clone(), quantity.clone());
            }
        }
    }
}

fn string_list(node: Option<&Node>) -> Option<Vec<String>> {
    node?
        .as_seq()
        .map(|items| items.iter().filter_map(Node::scalar_text).collect())
}

/// `runtimeArgsOverride` into `args`, then the tensor/pipeline-parallel rewrite.
fn apply_accelerator_args(runner: &mut Map, config: &AcceleratorModelConfig) {
    if !config.runtime_args_override.is_empty() {
        let current = string_list(runner.get("args"));
        if let Some(merged) = args::merge_args(current.as_deref(), &config.runtime_args_override) {
            runner.insert(
                "args",
                Node::seq(merged.into_iter().map(Node::str).collect()),
            );
        }
    }
    if let Some(tp) = config.tensor_parallelism {
        let mut a = string_list(runner.get("args")).unwrap_or_default();
        let mut c = string_list(runner.get("command")).unwrap_or_default();
        let outcome = args::apply_parallelism(
            &mut a,
            &mut c,
            tp.tensor_parallel_size,
            tp.pipeline_parallel_size,
        );
        let rewrote = |in_command: bool| {
            [outcome.tensor, outcome.pipeline].iter().any(|r| {
                matches!(r, args::ParallelismRewrite::Rewritten { in_command: ic, .. } if *ic == in_command)
            })
        };
        if rewrote(false) {
            runner.insert("args", Node::seq(a.into_iter().map(Node::str).collect()));
        }
        if rewrote(true) {
            runner.insert("command", Node::seq(c.into_iter().map(Node::str).collect()));
        }
    }
}

/// GPUs per pod: the first accelerator resource present, limits before requests, rounded up.
fn gpu_count(container: &Map, names: &[String]) -> i64 {
    let resources = container.get("resources");
    for name in names {
        for section in ["limits", "requests"] {
            if let Some(q) = resources.and_then(|r| r.at(&[section, name])) {
                return q
                    .scalar_text()
                    .and_then(|t| t.parse::<f64>().ok())
                    .map_or(0, |f| f.ceil() as i64);
            }
        }
    }
    0
}

/// The router's `config`, appended to its runner's env sorted by key (SEMANTICS.md#choice-sorted-maps).
fn append_router_config_env(runner: &mut Map, merged: &Node) {
    let Some(config) = merged.get("config").and_then(Node::as_map) else {
        return;
    };
    let mut entries: Vec<(String, String)> = config
        .iter()
        .filter_map(|(k, v)| v.scalar_text().map(|t| (k.to_string(), t)))
        .collect();
    entries.sort();
    let env = env_list(runner);
    for (k, v) in entries {
        env.push(env_item(&k, &v));
    }
}

/// Model-ready key, then runtime top-level < class < InferenceService component selectors.
fn apply_node_selector(pod: &mut Map, inputs: &PodInputs<'_>, storage: &ModelStorage) {
    // A later selector's key replaces an earlier one's (the keys are sorted at the end).
    let mut merged = Map::new();
    let mut overlay = |node: Option<&Node>| {
        for (k, v) in node.and_then(Node::as_map).into_iter().flat_map(Map::iter) {
            merged.insert(k, v.clone());
        }
    };
    overlay(inputs.runtime_spec.get("nodeSelector"));
    overlay(inputs.class.and_then(|c| c.node_selector.as_ref()));
    overlay(inputs.raw.and_then(|r| r.get("nodeSelector")));

    let model_key = match (inputs.model, storage) {
        (Some(_), ModelStorage::Pvc { .. } | ModelStorage::Sharded(_)) | (None, _) => None,
        (Some(m), _) => Some(super::names::model_ready_label_key(
            m.namespace.as_deref(),
            &m.name,
        )),
    };
    if model_key.is_none() && merged.is_empty() {
        return;
    }
    let selector = pod.entry_or("nodeSelector", || Node::map(Map::new()));
    if selector.as_map().is_none() {
        *selector = Node::map(Map::new());
    }
    let Some(selector) = selector.as_map_mut() else {
        return;
    };
    if let Some(key) = model_key
        && !selector.contains_key(&key)
    {
        selector.insert(key, Node::str("Ready"));
    }
    for (k, v) in merged {
        selector.insert(k, v);
    }
    selector.sort_keys();
}

/// The class's node affinity, when neither the InferenceService component nor the pod has
/// one (v1.3: only `nodeAffinity` is added; the rest of the affinity stays).
fn apply_class_affinity(pod: &mut Map, inputs: &PodInputs<'_>) {
    let Some(class_affinity) = inputs
        .class
        .and_then(|c| c.affinity.as_ref())
        .and_then(|a| a.get("nodeAffinity"))
    else {
        return;
    };
    if inputs
        .raw
        .is_some_and(|r| r.get("affinity").is_some_and(|a| !a.is_zero()))
    {
        return;
    }
    let affinity = pod.entry_or("affinity", || Node::map(Map::new()));
    if affinity.as_map().is_none() {
        *affinity = Node::map(Map::new());
    }
    if let Some(a) = affinity.as_map_mut()
        && a.get("nodeAffinity").is_none_or(Node::is_zero)
    {
        a.insert("nodeAffinity", class_affinity.clone());
    }
}

/// OME's defaults that differ from the API server's (SEMANTICS.md#choice-api-defaults).
fn apply_defaults(pod: &mut Map, settings: &Settings, default_probe: bool) {
    if let Some(containers) = pod.get_mut("containers").and_then(Node::as_seq_mut) {
        for c in containers.iter_mut() {
            let Some(c) = c.as_map_mut() else { continue };
            if default_probe
                && c.get("name").and_then(Node::as_str) == Some(DEFAULT_RUNNER_NAME)
                && c.get("readinessProbe").is_none_or(Node::is_null)
            {
                let port = c
                    .get("ports")
                    .and_then(Node::as_seq)
                    .and_then(|p| p.first())
                    .and_then(|p| p.get("containerPort"))
                    .and_then(Node::as_i64)
                    .unwrap_or(8080);
                c.insert(
                    "readinessProbe",
                    Node::map(crate::map! {
                        "tcpSocket" => Node::map(crate::map! { "port" => Node::int(port) }),
                    }),
                );
            }
            // OME sets IfNotPresent; it differs from the API server's default only for
            // images without a tag or with `latest`, which default to Always.
            if c.get("imagePullPolicy").is_none_or(Node::is_null)
                && c.get("image")
                    .and_then(Node::as_str)
                    .is_some_and(pulls_always_by_default)
            {
                c.insert("imagePullPolicy", Node::str("IfNotPresent"));
            }
        }
    }
    if pod
        .get("terminationGracePeriodSeconds")
        .is_none_or(Node::is_null)
        && let Some(grace) = settings.deploy.termination_grace_period_seconds
        && grace != 30
    {
        pod.insert("terminationGracePeriodSeconds", Node::int(grace));
    }
}

/// Whether the API server would default `imagePullPolicy` to `Always` for this image.
fn pulls_always_by_default(image: &str) -> bool {
    if image.contains('@') {
        return false;
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.rsplit_once(':') {
        Some((_, tag)) => tag == "latest",
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pvc_uris() {
        assert_eq!(
            parse_pvc_uri("pvc://models/model-a"),
            Some(("models".into(), "model-a".into()))
        );
        assert_eq!(
            parse_pvc_uri("pvc://ns:models/a/b/"),
            Some(("models".into(), "a/b".into()))
        );
        assert_eq!(parse_pvc_uri("pvc://models"), None);
        assert_eq!(parse_pvc_uri("pvc://models/../x"), None);
        assert_eq!(parse_pvc_uri("pvc://a:b:c/x"), None);
        assert_eq!(parse_pvc_uri("hf://meta/llama"), None);
    }

    #[test]
    fn image_pull_defaults() {
        assert!(pulls_always_by_default("nginx"));
        assert!(pulls_always_by_default("lmsysorg/sglang:latest"));
        assert!(pulls_always_by_default("localhost:5000/img"));
        assert!(!pulls_always_by_default("localhost:5000/img:v1"));
        assert!(!pulls_always_by_default("docker.io/lmsysorg/sglang:v0.5.5"));
        assert!(!pulls_always_by_default("img@sha256:abc"));
    }
}
