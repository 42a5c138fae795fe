//! The observability profile (`runtime.ome.io/observability-profile: prometheus`): the pod's
//! `prometheus.io/scrape: "true"`, `prometheus.io/port` (`runtime.ome.io/observability-port`,
//! default 30000) and `prometheus.io/path: /metrics`, each unless the pod sets it.

use super::probe::port;
use super::{Context, Pod};

const PROFILE: &str = "runtime.ome.io/observability-profile";
const PORT: &str = "runtime.ome.io/observability-port";
const PROFILES: &[(&str, &str)] = &[("prometheus", "/metrics")];

pub(super) fn inject(pod: &mut Pod<'_>, cx: &mut Context<'_>) -> Result<(), ()> {
    let Some(path) = cx.profile_path(pod, PROFILE, "observability", PROFILES)? else {
        return Ok(());
    };
    let port = port(pod, PORT, cx)?;
    pod.set_annotation_if_absent("prometheus.io/scrape", "true");
    pod.set_annotation_if_absent("prometheus.io/port", &port.to_string());
    pod.set_annotation_if_absent("prometheus.io/path", path);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_idempotent, run};

    #[test]
    fn prometheus_annotations_without_overriding() {
        let t = assert_idempotent(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {runtime.ome.io/observability-profile: prometheus, prometheus.io/port: '9999'}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        let a = |k: &str| {
            t.str_at(&["metadata", "annotations", k])
                .map(str::to_string)
        };
        assert_eq!(a("prometheus.io/scrape").as_deref(), Some("true"));
        assert_eq!(a("prometheus.io/port").as_deref(), Some("9999"));
        assert_eq!(a("prometheus.io/path").as_deref(), Some("/metrics"));
        let t = assert_idempotent(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {runtime.ome.io/observability-profile: prometheus}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        assert_eq!(
            t.str_at(&["metadata", "annotations", "prometheus.io/port"]),
            Some("30000")
        );
        let (_, diags) = run(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {runtime.ome.io/observability-profile: otel}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        assert!(
            diags[0].is_error()
                && diags[0]
                    .message
                    .ends_with("unknown observability profile: otel")
        );
    }
}
