//! A RawDeployment component: its pod, Deployment, Service, autoscaler (an HPA, a KEDA
//! ScaledObject, or none) and PodDisruptionBudget, and for the router its RBAC
//! (SEMANTICS.md, "Components and modes", #autoscaling).

use super::autoscaling::{self, Class};
use super::objects::{autoscaler, deployment, pdb, rbac, scaled_object, service};
use super::{Component, pod, runner_of};
use crate::diagnostics::{Code, Diagnostic};
use crate::model::Role;
use crate::rendered::Rendered;
use crate::yaml::Pos;

/// A RawDeployment component: Deployment, Service, autoscaler and PDB (and the router's
/// RBAC). Returns the objects and the Service's first port, or `None` after pushing errors.
pub(super) fn render(
    c: &Component<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Vec<Rendered>, i64)> {
    let role = c.role;
    let reconcile_error = |message: String, at: Pos, field: String, help: &str| {
        Diagnostic::error(Code::Reconcile, message)
            .at(if at.is_none() { c.raw.pos } else { at })
            .object(c.isvc.object.clone())
            .field(field)
            .help(help.to_string())
    };
    let errors_before = diags.iter().filter(|d| d.is_error()).count();

    // The PodDisruptionBudget is resolved first, as OME's component reconciler does.
    let budget = match pdb::budget(c.merged, c.settings.raw_deployment_budget.as_ref()) {
        Ok(b) => b,
        Err((message, at, key)) => {
            diags.push(reconcile_error(
                format!("failed to resolve {role} PodDisruptionBudget: {message}"),
                at,
                format!("{}.{key}", c.field),
                "OME's controller stops updating the component: set one of minAvailable or maxUnavailable, with a number of pods or a percentage from 0% to 100%, counting the runtime's fields too",
            ));
            None
        }
    };

    let annotation_pos = |key: &str| {
        c.merged
            .at(&["annotations", key])
            .or_else(|| c.isvc.annotations.get(key))
            .map_or(Pos::NONE, |n| n.pos)
    };
    let runtime_config = c.resolution.runtime.spec.get(role.config_key());
    let scaling = match autoscaling::resolve(
        c.raw,
        runtime_config,
        &c.meta.annotations,
        annotation_pos,
    ) {
        Ok(a) => Some(a),
        Err(message) => {
            diags.push(reconcile_error(
                format!("failed to resolve autoscaler for raw {role}: {message}"),
                annotation_pos(crate::admission::autoscaler::AUTOSCALER_CLASS_ANNOTATION),
                format!("{}.annotations", c.field),
                "use hpa, keda or external in ome.io/autoscalerClass, or better an autoscaler block on the component",
            ));
            None
        }
    };
    let dispatch =
        |message: String| format!("failed to dispatch autoscaler for raw {role}: {message}");
    let range = scaling.as_ref().and_then(|a| match autoscaling::raw_min_max(c.bounds, a) {
        Ok(r) => Some(r),
        Err(message) => {
            let at = c.merged.get("minReplicas").map_or(Pos::NONE, |n| n.pos);
            diags.push(reconcile_error(
                dispatch(format!("DispatchForRawComponent: invalid replica bounds: {message}")),
                at,
                format!("{}.minReplicas", c.field),
                if message.starts_with("minReplicas=0") {
                    "give the component an autoscaler block with class KEDA and at least one trigger (the ome.io/autoscalerClass: keda annotation has none), or a minReplicas of 1 or more"
                } else {
                    "the InferenceService, its runtime and the replica defaults (ome-render.yaml `replicas`) together give these bounds: set minReplicas and maxReplicas on the component"
                },
            ));
            None
        }
    });
    if let (Some(a), Some(_)) = (&scaling, range)
        && a.class == Class::Keda
    {
        let ns = &c.isvc.lookup_namespace;
        if !a.keda_with_triggers() {
            diags.push(reconcile_error(
                dispatch(format!(
                    "DispatchAutoscaler: KEDA autoscaler requires at least one trigger (ns={ns}, name={})",
                    c.names.full
                )),
                a.pos,
                format!("{}.autoscaler", c.field),
                "the ome.io/autoscalerClass: keda annotation stopped working in v1.3: give the component an autoscaler block with class KEDA and its triggers, and remove the annotation",
            ));
        } else if let Some(name) = a
            .keda()
            .and_then(|k| k.at(&["advanced", "horizontalPodAutoscalerConfig", "name"]))
            .and_then(|n| n.as_str().map(|s| (s, n.pos)))
            .filter(|(s, _)| *s == c.names.full)
        {
            diags.push(reconcile_error(
                dispatch(format!(
                    "DispatchAutoscaler: KEDA horizontalPodAutoscalerConfig.name \"{}\" conflicts with the reserved OME HPA name (ns={ns}, name={})",
                    name.0, c.names.full
                )),
                name.1,
                format!("{}.autoscaler.keda.advanced.horizontalPodAutoscalerConfig.name", c.field),
                "OME keeps the component's name for its own HPA: name KEDA's HPA differently, or leave the name out",
            ));
        }
    }
    if diags.iter().filter(|d| d.is_error()).count() > errors_before {
        return None;
    }
    let (scaling, range) = (scaling?, range?);

    let router_sa = format!("{}-router", c.isvc.name);
    let is_router = role == Role::Router;
    // The decoder counts as a leader only with a runner (SEMANTICS.md, "Pods").
    let pods = if role == Role::Decoder && c.merged.get("runner").is_none() {
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
    let (service, port) = service::service(
        c.isvc,
        &c.names,
        &c.meta,
        &c.app_protocols(),
        &runner_of(&pod),
    );
    // Only `class: None` leaves OME the sole writer of the replica count (at minReplicas).
    let replicas = c
        .bounds
        .min
        .filter(|m| scaling.class == Class::None && *m > 0);
    let monitor = super::monitoring::pod_monitor(c, &pod.spec, diags);
    let mut out = vec![
        deployment::deployment(c.isvc, &c.names, &c.meta, c.merged, pod.spec, replicas),
        service,
    ];
    out.extend(monitor);
    match scaling.class {
        Class::Hpa => out.push(autoscaler::hpa(
            c.isvc,
            &c.names,
            &c.meta,
            &scaling,
            range,
            c.settings.target_utilization_percentage,
        )),
        Class::Keda => out.push(scaled_object::scaled_object(
            c.isvc, &c.names, &c.meta, &scaling, range,
        )),
        Class::External | Class::None => {}
    }
    if let Some(b) = budget {
        out.push(pdb::pdb(c.isvc, &c.names, &c.meta, b));
    }
    if is_router {
        out.extend(rbac::router_rbac(c.isvc, &router_sa, &c.meta));
    }
    Some((out, port))
}
