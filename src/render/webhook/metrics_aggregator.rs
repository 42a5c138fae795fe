//! The metrics aggregator. With `ome.io/enable-prometheus-scraping: "true"` on the pod it sets
//! `prometheus.io/port` (`9088` with `ome.io/enable-metric-aggregation: "true"`, else `9091`)
//! and `prometheus.io/path: /metrics`, replacing what was there. Its environment goes only
//! into a `queue-proxy` container, which no rendered pod has.
//!
//! When either annotation is absent OME's webhook writes it with the cluster's configured
//! default (`inferenceservice-config`'s `metricsAggregator`); that is cluster configuration,
//! so ome-render leaves it to the webhook (SEMANTICS.md#choice-pod-webhook).

use super::{Context, Pod};

const SCRAPING: &str = "ome.io/enable-prometheus-scraping";
const AGGREGATION: &str = "ome.io/enable-metric-aggregation";

pub(super) fn inject(pod: &mut Pod<'_>, _cx: &mut Context<'_>) -> Result<(), ()> {
    if pod.annotation(SCRAPING) != Some("true") {
        return Ok(());
    }
    let port = if pod.annotation(AGGREGATION) == Some("true") {
        "9088"
    } else {
        "9091"
    };
    pod.set_annotation("prometheus.io/port", port);
    pod.set_annotation("prometheus.io/path", "/metrics");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_idempotent;

    #[test]
    fn scraping_sets_the_port_and_path() {
        let t = assert_idempotent(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {ome.io/enable-prometheus-scraping: 'true', prometheus.io/port: '1'}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        assert_eq!(
            t.str_at(&["metadata", "annotations", "prometheus.io/port"]),
            Some("9091")
        );
        let t = assert_idempotent(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {ome.io/enable-prometheus-scraping: 'true', ome.io/enable-metric-aggregation: 'true', runtime.ome.io/observability-profile: prometheus}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        // The aggregator runs first; the observability profile keeps its port.
        assert_eq!(
            t.str_at(&["metadata", "annotations", "prometheus.io/port"]),
            Some("9088")
        );
        assert_eq!(
            t.str_at(&["metadata", "annotations", "prometheus.io/scrape"]),
            Some("true")
        );
        // Without the annotation nothing is written (the cluster's default applies).
        let t = assert_idempotent(
            "metadata: {labels: {ome.io/inferenceservice: x}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        assert!(t.at(&["metadata", "annotations"]).is_none());
    }
}
