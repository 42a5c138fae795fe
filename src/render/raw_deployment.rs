//! A RawDeployment component: its pod, Deployment, Service, autoscaler and
//! PodDisruptionBudget, and for the router its RBAC (SEMANTICS.md, "Components and modes").

use super::objects::{autoscaler, deployment, pdb, rbac, service};
use super::{Component, pod, runner_of};
use crate::diagnostics::Diagnostic;
use crate::model::Role;
use crate::rendered::Rendered;

/// A RawDeployment component: Deployment, Service, HPA and PDB (and the router's RBAC).
/// Returns the objects and the Service's first port.
pub(super) fn render(
    c: &Component<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Vec<Rendered>, i64)> {
    let router_sa = format!("{}-router", c.isvc.name);
    let is_router = c.role == Role::Router;
    // The decoder counts as a leader only with a runner (SEMANTICS.md, "Pods").
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
    let (service, port) = service::service(c.isvc, &c.names, &c.meta, &runner_of(&pod));
    let mut out = vec![
        deployment::deployment(c.isvc, &c.names, &c.meta, c.merged, pod.spec),
        service,
    ];
    if let Some(hpa) = autoscaler::hpa(
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
    out.extend(pdb::pdb(
        c.isvc, &c.names, &c.meta, c.merged, diags, c.field,
    ));
    if is_router {
        out.extend(rbac::router_rbac(c.isvc, &router_sa, &c.meta));
    }
    Some((out, port))
}
