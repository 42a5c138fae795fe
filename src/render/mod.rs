//! Rendering: from an InferenceService with its resolved model and runtime to the
//! Kubernetes objects OME's controller creates in RawDeployment mode.
//!
//! [`render_inference_service`] is pure and works on one InferenceService, so the pipeline
//! runs it in parallel; [`check_collisions`] then looks at all rendered objects together.

pub mod metadata;
mod multinode;
pub mod names;
pub mod objects;
pub mod placeholders;
pub mod pod;
#[cfg(test)]
mod tests;

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic, ObjectRef};
use crate::merge::strategic;
use crate::model::runtime::AcceleratorModelConfig;
use crate::model::{AcceleratorClass, BaseModel, InferenceService, RuntimeSpec, SupportedFormat};
use crate::select::accelerator_policy;
use crate::settings::Settings;
use crate::yaml::{Map, Node};
use metadata::{MetaInputs, component_meta};
use objects::ComponentNames;
use pod::{DEFAULT_RUNNER_NAME, PodInputs, Role};
use std::collections::HashMap;

/// One object of the output, with what identifies and orders it.
#[derive(Clone, Debug)]
pub struct Rendered {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    /// The object; replaced by `null` once [`Rendered::serialise`] has written it.
    pub node: Node,
    /// The object serialised for the output, once the format is known.
    pub bytes: Option<Vec<u8>>,
    /// The InferenceService it was rendered from; `None` for passed-through objects.
    pub source: Option<ObjectRef>,
}

impl Rendered {
    /// Wraps an object tree; its identity is read from the tree.
    pub fn new(node: Node, source: Option<ObjectRef>) -> Rendered {
        let s = |path: &[&str]| node.str_at(path).map(str::to_string);
        Rendered {
            api_version: s(&["apiVersion"]).unwrap_or_default(),
            kind: s(&["kind"]).unwrap_or_default(),
            namespace: s(&["metadata", "namespace"]),
            name: s(&["metadata", "name"]).unwrap_or_default(),
            node,
            bytes: None,
            source,
        }
    }

    /// Serialises the object in `format` and frees its tree: the bytes are all the output
    /// needs, and keeping them instead of the tree halves the memory of a large run.
    pub fn serialise(&mut self, format: crate::emit::Format) {
        if self.bytes.is_none() {
            let mut out = Vec::with_capacity(2048);
            crate::emit::serialise(&self.node, format, &mut out);
            self.bytes = Some(out);
            self.node = Node::made(crate::yaml::Value::Null);
        }
    }

    pub fn object_ref(&self) -> ObjectRef {
        ObjectRef {
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }
}

/// The model and runtime an InferenceService resolved to.
pub struct Resolution<'a> {
    pub model: Option<&'a BaseModel>,
    pub runtime_name: &'a str,
    /// The spec the pods are built from (inherited when the runtime was named).
    pub runtime: &'a RuntimeSpec,
    /// The supported-format entry whose `acceleratorConfig` applies (`selection.md` §9).
    pub best_entry: Option<&'a SupportedFormat>,
}

/// The valid values of `ome.io/deploymentMode`.
const MODES: &[&str] = &[
    "RawDeployment",
    "OMENative",
    "MultiNode",
    "VirtualDeployment",
];

/// Renders every object of one InferenceService. Errors are pushed to `diags`; the objects
/// are meaningful only when no error was pushed.
pub fn render_inference_service(
    isvc: &InferenceService,
    resolution: &Resolution<'_>,
    catalog: &Catalog,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Rendered> {
    let mut out = Vec::new();
    let errors_before = diags.iter().filter(|d| d.is_error()).count();
    if isvc.annotation(crate::model::runtime::DEPLOYMENT_MODE_ANNOTATION)
        == Some("VirtualDeployment")
    {
        diags.push(
            Diagnostic::note(
                Code::UnsupportedMode,
                "VirtualDeployment: OME creates no workload for this InferenceService",
            )
            .at(isvc.pos)
            .object(isvc.object.clone()),
        );
        return out;
    }
    let spec = &resolution.runtime.spec;
    let mut service_ports: HashMap<Role, i64> = HashMap::new();
    for role in [Role::Engine, Role::Decoder, Role::Router] {
        let Some(raw) = isvc.component(role.as_str()) else {
            continue;
        };
        let config_key = match role {
            Role::Engine => "engineConfig",
            Role::Decoder => "decoderConfig",
            Role::Router => "routerConfig",
        };
        let merged = merge_component(isvc, role, spec.get(config_key), raw, diags);
        let field = format!("spec.{}", role.as_str());

        let mode = match component_mode(isvc, role, &merged) {
            Ok((mode, source)) => {
                if source == ModeSource::Shape {
                    diags.push(
                        Diagnostic::warning(
                            Code::MultiNode,
                            format!(
                                "the {} has a leader and workers: OME v1.3 runs it as OMENative; ome-render renders it as a MultiNode LeaderWorkerSet",
                                role.as_str()
                            ),
                        )
                        .at(raw.pos)
                        .object(isvc.object.clone())
                        .field(field.clone())
                        .help("set the annotation ome.io/deploymentMode: MultiNode on the component to say so, or run OME's controller for OMENative"),
                    );
                }
                mode
            }
            Err(d) => {
                diags.push(
                    d.at(raw.pos)
                        .object(isvc.object.clone())
                        .field(field.clone()),
                );
                continue;
            }
        };
        let (min, max) = objects::replicas(&merged, role == Role::Router);
        if min == 0 {
            diags.push(
                Diagnostic::error(
                    Code::UnsupportedMode,
                    format!(
                        "InvalidScaleToZero: {}.minReplicas=0 requires KEDA autoscaling (set spec.{}.autoscaler.class=KEDA or the ome.io/autoscalerClass=keda annotation); Serverless mode no longer auto-promotes scale-to-zero",
                        role.as_str(),
                        role.as_str()
                    ),
                )
                .at(merged.get("minReplicas").map_or(raw.pos, |n| n.pos))
                .object(isvc.object.clone())
                .field(format!("{field}.minReplicas")),
            );
            continue;
        }
        if min > max {
            diags.push(
                Diagnostic::error(
                    Code::InvalidInferenceService,
                    format!(
                        "spec.{}.minReplicas ({min}) must be <= maxReplicas ({max})",
                        role.as_str()
                    ),
                )
                .at(merged.get("minReplicas").map_or(raw.pos, |n| n.pos))
                .object(isvc.object.clone())
                .field(format!("{field}.minReplicas")),
            );
            continue;
        }

        let (class, accelerator_config) = if role == Role::Router {
            (None, None)
        } else {
            match choose_class(isvc, role, resolution, catalog, raw, diags) {
                Some((class, config)) => (Some(class), config),
                None => (None, None),
            }
        };
        let full_name = names::component_name(&isvc.name, role.as_str());
        let app = names::component_service_name(&isvc.name, role.as_str());
        let meta = component_meta(&MetaInputs {
            isvc,
            component: &merged,
            role: role.as_str(),
            runtime_name: resolution.runtime_name,
            model: resolution.model,
            mode,
            app: &app,
        });
        let component = Component {
            isvc,
            role,
            merged: &merged,
            raw,
            resolution,
            class,
            accelerator_config,
            settings,
            meta,
            names: ComponentNames {
                full: &full_name,
                app: &app,
            },
            field: &field,
            replicas: (min, max),
        };
        let rendered = match mode {
            "MultiNode" => multinode::render(&component, diags),
            _ => raw_deployment(&component, diags),
        };
        if let Some((objects, port)) = rendered {
            service_ports.insert(role, port);
            out.extend(objects);
        }
    }

    let external_wanted = settings.disable_ingress_creation
        && isvc
            .labels
            .get("networking.knative.dev/visibility")
            .and_then(Node::as_str)
            != Some("cluster-local");
    if external_wanted {
        let target = if isvc.router.is_some() {
            Role::Router
        } else {
            Role::Engine
        };
        if let Some(port) = service_ports.get(&target) {
            out.push(objects::external_service(isvc, target.as_str(), *port));
        }
    }
    if let (Some(model), Some(model_ref)) = (resolution.model, &isvc.model) {
        out.push(objects::model_config(isvc, &model_ref.name, model));
    }
    let errors_after = diags.iter().filter(|d| d.is_error()).count();
    if errors_after > errors_before {
        out.clear();
    }
    out
}

/// Everything known about one component once its mode, class and metadata are settled.
pub(crate) struct Component<'a> {
    pub(crate) isvc: &'a InferenceService,
    pub(crate) role: Role,
    /// The runtime's config merged with the InferenceService's component.
    pub(crate) merged: &'a Node,
    /// The InferenceService's own component.
    pub(crate) raw: &'a Node,
    pub(crate) resolution: &'a Resolution<'a>,
    pub(crate) class: Option<&'a AcceleratorClass>,
    pub(crate) accelerator_config: Option<&'a AcceleratorModelConfig>,
    pub(crate) settings: &'a Settings,
    pub(crate) meta: metadata::Meta,
    pub(crate) names: ComponentNames<'a>,
    /// `spec.<role>`, for diagnostics.
    pub(crate) field: &'a str,
    pub(crate) replicas: (i64, i64),
}

impl<'a> Component<'a> {
    /// The inputs of one pod of this component: `template` holds its pod fields and runner.
    pub(crate) fn pod_inputs(
        &'a self,
        template: &'a Node,
        raw_runner: Option<&'a Node>,
        pods_per_replica: i64,
        router_service_account: Option<&'a str>,
    ) -> PodInputs<'a> {
        PodInputs {
            isvc: self.isvc,
            role: self.role,
            merged: template,
            raw: Some(self.raw),
            raw_runner,
            pods_per_replica,
            default_probe: true,
            runtime_spec: &self.resolution.runtime.spec,
            model: self.resolution.model,
            class: self.class,
            accelerator_config: self.accelerator_config,
            settings: self.settings,
            router_service_account,
        }
    }
}

/// The runner container of a built pod.
pub(crate) fn runner_of(pod: &pod::Pod) -> Node {
    pod.spec
        .get("containers")
        .and_then(Node::as_seq)
        .and_then(|c| c.get(pod.runner_index))
        .cloned()
        .unwrap_or_else(|| Node::map(Map::new()))
}

/// A RawDeployment component: Deployment, Service, HPA and PDB (and the router's RBAC).
/// Returns the objects and the Service's first port.
fn raw_deployment(c: &Component<'_>, diags: &mut Vec<Diagnostic>) -> Option<(Vec<Rendered>, i64)> {
    let router_sa = format!("{}-router", c.isvc.name);
    let is_router = c.role == Role::Router;
    // The decoder counts as a leader only with a runner (`rendering.md` §3.4).
    let pods = if c.role == Role::Decoder && c.merged.get("runner").is_none() {
        0
    } else {
        1
    };
    let inputs = c.pod_inputs(
        c.merged,
        c.raw.get("runner"),
        pods,
        is_router.then_some(router_sa.as_str()),
    );
    let pod = pod::build_pod(&inputs, diags)?;
    let (service, port) = objects::service(c.isvc, &c.names, &c.meta, &runner_of(&pod));
    let mut out = vec![
        objects::deployment(c.isvc, &c.names, &c.meta, c.merged, pod.spec),
        service,
    ];
    if let Some(hpa) = objects::hpa(
        c.isvc,
        &c.names,
        &c.meta,
        c.merged,
        c.replicas,
        c.settings.target_utilization_percentage,
        diags,
        c.field,
    ) {
        out.push(hpa);
    }
    out.extend(objects::pdb(
        c.isvc, &c.names, &c.meta, c.merged, diags, c.field,
    ));
    if is_router {
        out.extend(objects::router_rbac(c.isvc, &router_sa, &c.meta));
    }
    Some((out, port))
}

/// The runtime's config merged with the InferenceService's component; the runner is named
/// as in v1.3 (the InferenceService's name, else the runtime's, else `ome-container`) and
/// keeps only Container fields.
fn merge_component(
    isvc: &InferenceService,
    role: Role,
    config: Option<&Node>,
    raw: &Node,
    diags: &mut Vec<Diagnostic>,
) -> Node {
    let mut merged = match config.filter(|c| c.as_map().is_some()) {
        Some(config) => {
            let mut base = config.clone();
            if let Some(m) = base.as_map_mut() {
                // acceleratorOverride has no effect in a runtime.
                m.remove("acceleratorOverride");
            }
            let mut conflicts = Vec::new();
            let merged = strategic::merge(&base, raw, &mut conflicts);
            for c in conflicts {
                diags.push(
                    Diagnostic::error(Code::InvalidMerge, c.message)
                        .at(c.patch)
                        .object(isvc.object.clone())
                        .field(format!("spec.{}.{}", role.as_str(), c.path))
                        .related(c.base, "the runtime sets it here")
                        .help("OME merges these field by field, so the result is an object the API server rejects; set the same kind of value as the runtime"),
                );
            }
            merged
        }
        None => raw.clone(),
    };
    for path in [
        &["runner"][..],
        &["leader", "runner"],
        &["worker", "runner"],
    ] {
        restore_runner_name(&mut merged, config, raw, path);
    }
    merged
}

fn restore_runner_name(merged: &mut Node, config: Option<&Node>, raw: &Node, path: &[&str]) {
    let named = |n: Option<&Node>| {
        n.and_then(|n| n.at(path))
            .and_then(|r| r.get("name"))
            .and_then(Node::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let name = named(Some(raw))
        .or_else(|| named(config))
        .unwrap_or_else(|| DEFAULT_RUNNER_NAME.to_string());
    let mut node = Some(merged);
    for key in path {
        node = node.and_then(Node::as_map_mut).and_then(|m| m.get_mut(key));
    }
    if let Some(runner) = node.and_then(Node::as_map_mut) {
        runner.insert("name", Node::str(name));
        runner.move_to_front("name");
        // Fields a Container doesn't have are dropped, as decoding into OME's types does
        // (the schema check has warned about them).
        runner.retain(|k, _| crate::model::schema::is_container_field(k));
    }
}

/// How a component's mode was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ModeSource {
    /// The `ome.io/deploymentMode` annotation or `spec.deploymentMode`.
    Declared,
    /// A leader/worker shape, which OME v1.3 runs as OMENative (DECISIONS #9).
    Shape,
    Default,
}

/// The component's deployment mode (v1.3 order): its `ome.io/deploymentMode` annotation,
/// `spec.deploymentMode`, a leader/worker shape, else RawDeployment. RawDeployment and
/// MultiNode (a LeaderWorkerSet) can be rendered as plain objects.
fn component_mode(
    isvc: &InferenceService,
    role: Role,
    merged: &Node,
) -> Result<(&'static str, ModeSource), Diagnostic> {
    let annotated = merged
        .at(&[
            "annotations",
            crate::model::runtime::DEPLOYMENT_MODE_ANNOTATION,
        ])
        .and_then(Node::as_str)
        .and_then(|m| MODES.iter().copied().find(|v| *v == m));
    let from_spec = isvc
        .deployment_mode
        .as_deref()
        .and_then(|m| ["OMENative", "RawDeployment"].into_iter().find(|v| *v == m));
    let shaped = role != Role::Router
        && (merged.get("leader").is_some_and(|l| !l.is_zero())
            || merged.get("worker").is_some_and(|w| !w.is_zero()));
    let (mode, source) = match (annotated.or(from_spec), shaped) {
        (Some(m), _) => (m, ModeSource::Declared),
        (None, true) => ("MultiNode", ModeSource::Shape),
        (None, false) => ("RawDeployment", ModeSource::Default),
    };
    match mode {
        "RawDeployment" | "MultiNode" if role != Role::Router || mode == "RawDeployment" => {
            Ok((if mode == "MultiNode" { "MultiNode" } else { "RawDeployment" }, source))
        }
        "OMENative" => Err(Diagnostic::error(
            Code::UnsupportedMode,
            format!("the {} runs in OMENative mode, which needs OME's controller", role.as_str()),
        )
        .help("OMENative workloads (InferenceReplicas) can't be expressed as plain Kubernetes objects; use RawDeployment, or a leader and worker for MultiNode")),
        other => Err(Diagnostic::error(
            Code::UnsupportedMode,
            format!("the {} can't run in {other} mode", role.as_str()),
        )
        .help("ome-render renders RawDeployment components, and MultiNode (leader and worker) engines and decoders")),
    }
}

/// The accelerator class of an engine or decoder, and the `acceleratorConfig` for it.
fn choose_class<'a>(
    isvc: &InferenceService,
    role: Role,
    resolution: &Resolution<'a>,
    catalog: &'a Catalog,
    raw: &Node,
    diags: &mut Vec<Diagnostic>,
) -> Option<(&'a AcceleratorClass, Option<&'a AcceleratorModelConfig>)> {
    let component = match role {
        Role::Engine => accelerator_policy::Component::Engine,
        Role::Decoder => accelerator_policy::Component::Decoder,
        Role::Router => return None,
    };
    let choice = accelerator_policy::choose_for_component(
        isvc,
        component,
        resolution.runtime.accelerator_classes.as_deref(),
        |name| catalog.accelerator_classes.get(name),
    );
    match choice {
        Ok(accelerator_policy::ClassChoice::Chosen { class, .. }) => {
            let config = resolution
                .best_entry
                .and_then(|e| e.accelerator_config(&class.name));
            Some((class, config))
        }
        Ok(accelerator_policy::ClassChoice::NoClass(_)) => None,
        Err(e) => {
            use accelerator_policy::{ClassError, Source};
            let role = role.as_str();
            let (code, at, field) = match &e {
                ClassError::NotLoaded {
                    source: Source::Selector,
                    ..
                } => (
                    Code::AcceleratorClassNotFound,
                    isvc.accelerator_selector.as_ref().and_then(|s| s.class_pos),
                    "spec.acceleratorSelector.acceleratorClass".to_string(),
                ),
                ClassError::NotLoaded {
                    source: Source::ComponentOverride,
                    ..
                } => (
                    Code::AcceleratorClassNotFound,
                    raw.at(&["acceleratorOverride", "acceleratorClass"])
                        .map(|n| n.pos),
                    format!("spec.{role}.acceleratorOverride.acceleratorClass"),
                ),
                _ => (Code::InvalidField, None, format!("spec.{role}")),
            };
            diags.push(
                Diagnostic::error(code, e.to_string())
                    .at(at.unwrap_or(raw.pos))
                    .object(isvc.object.clone())
                    .field(field)
                    .help(e.help()),
            );
            None
        }
    }
}

/// Two rendered objects with the same identity (DECISIONS #23): an error naming both
/// InferenceServices. One pass with a hash map.
pub fn check_collisions(objects: &[Rendered], diags: &mut Vec<Diagnostic>) {
    let mut seen: HashMap<(&str, &str, Option<&str>, &str), &Rendered> =
        HashMap::with_capacity(objects.len());
    for o in objects {
        let group = o.api_version.rsplit_once('/').map_or("", |(g, _)| g);
        let key = (
            group,
            o.kind.as_str(),
            o.namespace.as_deref(),
            o.name.as_str(),
        );
        if let Some(first) = seen.get(&key) {
            let who = |r: &Rendered| {
                r.source
                    .as_ref()
                    .map_or("the input".to_string(), ToString::to_string)
            };
            diags.push(
                Diagnostic::error(
                    Code::RenderedCollision,
                    format!("{} is rendered twice: from {} and from {}", o.object_ref(), who(first), who(o)),
                )
                .object(o.object_ref())
                .help("in a cluster one would silently overwrite the other; rename one of the InferenceServices (OME names the ConfigMap after the last 20 characters of the name)"),
            );
        } else {
            seen.insert(key, o);
        }
    }
}
