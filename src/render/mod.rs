//! Rendering: from an InferenceService with its resolved model, runtime and accelerators to
//! the Kubernetes objects OME's controller creates (SEMANTICS.md, "Components and modes",
//! "Pods", "Objects").
//!
//! [`render_inference_service`] is pure and works on one InferenceService, so the pipeline
//! runs it in parallel. Per component it merges the runtime's config with the
//! InferenceService's ([`component`]), decides the mode ([`mode`]), builds the pods
//! ([`pod`]) and the objects of that mode ([`raw_deployment`], [`multinode`], each object
//! kind in [`objects`]).

pub(crate) mod api_server;
pub(crate) mod autoscaling;
pub(crate) mod component;
pub(crate) mod components;
pub(crate) mod metadata;
pub(crate) mod mode;
pub(crate) mod model_agent;
pub(crate) mod monitoring;
pub(crate) mod multinode;
pub(crate) mod names;
pub(crate) mod objects;
pub(crate) mod placeholders;
pub(crate) mod pod;
pub(crate) mod pod_validation;
pub(crate) mod raw_deployment;
pub(crate) mod traffic;
pub(crate) mod traffic_intent;
pub(crate) mod webhook;

use crate::diagnostics::{Code, Diagnostic};
use crate::model::component::DEPLOYMENT_MODE_ANNOTATION;
use crate::model::{DeploymentMode, InferenceService, Role, Settings};
use crate::rendered::Rendered;
use crate::select::overlays::Outcome;
use crate::select::resolve::{Accelerator, Resolution};
use crate::yaml::{Map, Node};
use component::merge_component;
use metadata::{MetaInputs, component_meta};
use mode::{ModeSource, component_mode};
use objects::{ComponentNames, backend_traffic_policy, config_map, http_route, ingress, service};
use pod::PodInputs;
use std::collections::HashMap;
use std::sync::Arc;

/// Renders every object of one InferenceService. Errors are pushed to `diags`; when one is,
/// no object of the InferenceService is returned.
pub(crate) fn render_inference_service(
    isvc: &InferenceService,
    resolution: &Resolution<'_>,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Rendered> {
    let mut out = Vec::new();
    let errors_before = diags.iter().filter(|d| d.is_error()).count();
    let diags_before = diags.len();
    if isvc
        .annotation(DEPLOYMENT_MODE_ANNOTATION)
        .and_then(DeploymentMode::parse)
        == Some(DeploymentMode::VirtualDeployment)
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
    let mut annotation_origins: webhook::AnnotationOrigins = isvc
        .annotations
        .iter()
        .map(|(k, v)| (k.to_string(), v.pos))
        .collect();
    for role in Role::ALL {
        let Some(raw) = isvc.component(role) else {
            continue;
        };
        let merged = merge_component(isvc, role, spec.get(role.config_key()), raw, diags);
        for (k, v) in merged
            .get("annotations")
            .and_then(Node::as_map)
            .into_iter()
            .flat_map(Map::iter)
        {
            if !v.pos.is_none() {
                annotation_origins.insert(k.to_string(), v.pos);
            }
        }
        let field = format!("spec.{role}");

        let mode = match component_mode(isvc, role, &merged) {
            Ok((mode, source)) => {
                if source == ModeSource::Shape {
                    diags.push(
                        Diagnostic::warning(
                            Code::MultiNode,
                            format!(
                                "the {role} has a leader and workers: OME v1.3 runs it as OMENative; ome-render renders it as a MultiNode LeaderWorkerSet"
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
        let bounds = autoscaling::bounds(&merged, role, &settings.deploy.replicas);

        let accelerator = match resolution.accelerator(role) {
            Ok(accelerator) => accelerator,
            Err(d) => {
                diags.push(d.clone());
                continue;
            }
        };
        let full_name = names::component_name(&isvc.name, role.as_str());
        let app = names::component_service_name(&isvc.name, role.as_str());
        let meta = component_meta(&MetaInputs {
            isvc,
            component: &merged,
            role,
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
            accelerator,
            settings,
            meta,
            names: ComponentNames {
                full: &full_name,
                app: &app,
            },
            field: &field,
            bounds,
        };
        let rendered = match mode {
            DeploymentMode::MultiNode => multinode::render(&component, diags),
            _ => raw_deployment::render(&component, diags),
        };
        if let Some((objects, port)) = rendered {
            service_ports.insert(role, port);
            out.extend(objects);
        }
    }

    // With ingress creation enabled OME creates an Ingress or HTTPRoutes instead of the
    // external Service (SEMANTICS.md#traffic).
    let ingress_config = traffic::config_of(isvc, settings);
    out.extend(traffic_objects(isvc, settings, &service_ports, diags));
    let external_wanted = ingress_config.disable_ingress_creation
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
            out.push(service::external_service(isvc, target, *port));
        }
    }
    out.extend(traffic_intent::render(
        isvc,
        isvc.decoder.is_some(),
        isvc.router.is_some(),
        settings,
        diags,
    ));
    if let (Some(model), Some(model_ref)) = (resolution.model, &isvc.model) {
        out.push(config_map::model_config(isvc, &model_ref.name, model));
    }
    // The pods as they run: OME's pod webhook mutates them when they are created. The API
    // server's checks come after, so that what the webhook injects is checked too.
    webhook::mutate_pod_templates(&mut out, isvc, &annotation_origins, diags);
    api_server::check(&out, isvc, resolution, diags);
    // Last, on the objects as they will be applied: after the merge, the overrides and
    // every mutation of the pods (SEMANTICS.md#pod-validation).
    pod_validation::check(&out, isvc, diags_before, diags);
    let errors_after = diags.iter().filter(|d| d.is_error()).count();
    if errors_after > errors_before {
        out.clear();
    }
    // The rendered pods wait for the model agent: one diagnostic per model (the pipeline
    // keeps one of the same).
    if let Some(model) = resolution.model.filter(|_| !out.is_empty()) {
        diags.extend(model_agent::model_diagnostic(model, settings));
        for overlay in &resolution.overlays {
            if let Outcome::Mounted(model) = overlay.outcome {
                diags.extend(model_agent::overlay_diagnostic(model, settings));
            }
        }
    }
    // One copy of the InferenceService's identity, shared by its objects.
    let source = Arc::new(isvc.object.clone());
    for o in &mut out {
        o.source = Some(Arc::clone(&source));
    }
    out
}

/// The Ingress, or the HTTPRoutes and the default BackendTrafficPolicy, of `isvc` when
/// ingress creation is enabled for it; nothing otherwise (SEMANTICS.md#traffic).
fn traffic_objects(
    isvc: &InferenceService,
    settings: &Settings,
    ports: &HashMap<Role, i64>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Rendered> {
    let config = traffic::config_of(isvc, settings);
    if config.disable_ingress_creation {
        return Vec::new();
    }
    if config.enable_gateway_api {
        let mut out = http_route::routes(isvc, &config, ports, diags);
        if !out.is_empty()
            && let Some(btp) =
                backend_traffic_policy::default_policy(isvc, &config, settings, diags)
        {
            out.push(btp);
        }
        out
    } else {
        ingress::ingress(isvc, &config, ports, diags)
            .into_iter()
            .collect()
    }
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
    pub(crate) accelerator: &'a Accelerator<'a>,
    pub(crate) settings: &'a Settings,
    pub(crate) meta: metadata::Meta,
    pub(crate) names: ComponentNames<'a>,
    /// `spec.<role>`, for diagnostics.
    pub(crate) field: &'a str,
    /// The replica bounds after the controller's defaults (SEMANTICS.md#autoscaling).
    pub(crate) bounds: autoscaling::Bounds,
}

impl<'a> Component<'a> {
    /// The component Service's port protocols (SEMANTICS.md#service-app-protocols).
    pub(crate) fn app_protocols(&self) -> std::collections::BTreeMap<String, String> {
        service::app_protocols(
            self.resolution.runtime.spec.get(self.role.config_key()),
            self.raw,
        )
    }

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
            overlays: &self.resolution.overlays,
            class: self.accelerator.class,
            accelerator_config: self.accelerator.config,
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
