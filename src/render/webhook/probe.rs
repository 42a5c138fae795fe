//! The probe profile (`runtime.ome.io/probe-profile`: `sglang-http`, `vllm-http`): HTTP GET
//! probes on `/health` at `runtime.ome.io/probe-port` (default 30000) for each of the
//! readiness, liveness and startup probes the target container does not declare.

use super::shm::target;
use super::{Context, Pod};
use crate::map;
use crate::yaml::{Map, Node};

const PROFILE: &str = "runtime.ome.io/probe-profile";
const PORT: &str = "runtime.ome.io/probe-port";
/// The port of the probe and observability profiles when no annotation sets one.
pub(super) const DEFAULT_PORT: i64 = 30000;
const PROFILES: &[(&str, &str)] = &[("sglang-http", "/health"), ("vllm-http", "/health")];

pub(super) fn inject(pod: &mut Pod<'_>, cx: &mut Context<'_>) -> Result<(), ()> {
    let Some(path) = cx.profile_path(pod, PROFILE, "probe", PROFILES)? else {
        return Ok(());
    };
    let port = port(pod, PORT, cx)?;
    let target = target(pod);
    let Some(container) = pod.container(&target) else {
        cx.missing_container(PROFILE, "probe", &target);
        return Ok(());
    };
    // (probe, initialDelaySeconds, periodSeconds, failureThreshold, successThreshold); 0 is
    // left to the API server's default.
    let probes = [
        ("readinessProbe", 60, 30, 5, 1),
        ("livenessProbe", 0, 60, 5, 0),
        // failure × period ≈ 30 minutes, for slow model loads.
        ("startupProbe", 60, 30, 60, 0),
    ];
    for (key, delay, period, failure, success) in probes {
        if container.get(key).is_some_and(|p| !p.is_null()) {
            continue;
        }
        let mut probe = Map::new();
        probe.insert(
            "httpGet",
            Node::map(map! { "path" => Node::str(path), "port" => Node::int(port) }),
        );
        if delay > 0 {
            probe.insert("initialDelaySeconds", Node::int(delay));
        }
        probe.insert("timeoutSeconds", Node::int(30));
        probe.insert("periodSeconds", Node::int(period));
        if success > 0 {
            probe.insert("successThreshold", Node::int(success));
        }
        probe.insert("failureThreshold", Node::int(failure));
        container.insert(key, Node::map(probe));
    }
    Ok(())
}

/// The port an annotation sets, or [`DEFAULT_PORT`]; OME refuses anything but 1..=65535.
pub(super) fn port(pod: &Pod<'_>, key: &str, cx: &mut Context<'_>) -> Result<i64, ()> {
    let Some(value) = pod.nonempty(key).map(str::to_string) else {
        return Ok(DEFAULT_PORT);
    };
    match go_atoi(&value) {
        Some(n) if (1..=65535).contains(&n) => Ok(n),
        _ => {
            cx.refuse(
                key,
                format!("invalid port {value:?} (annotation {key})"),
                "a port number from 1 to 65535".to_string(),
            );
            Err(())
        }
    }
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits.
fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_idempotent, run};
    use crate::yaml::Node;

    fn template(annotations: &str, container: &str) -> String {
        format!(
            "metadata: {{labels: {{ome.io/inferenceservice: x}}, annotations: {annotations}}}\nspec: {{containers: [{container}]}}\n"
        )
    }

    #[test]
    fn three_probes_on_the_default_port() {
        let t = assert_idempotent(&template(
            "{runtime.ome.io/probe-profile: sglang-http}",
            "{name: ome-container, image: i}",
        ));
        let c = &t
            .at(&["spec", "containers"])
            .and_then(Node::as_seq)
            .unwrap()[0];
        for p in ["readinessProbe", "livenessProbe", "startupProbe"] {
            assert_eq!(c.str_at(&[p, "httpGet", "path"]), Some("/health"));
            assert_eq!(
                c.at(&[p, "httpGet", "port"]).and_then(Node::as_i64),
                Some(30000)
            );
        }
        assert_eq!(
            c.at(&["startupProbe", "failureThreshold"])
                .and_then(Node::as_i64),
            Some(60)
        );
        assert!(c.at(&["livenessProbe", "initialDelaySeconds"]).is_none());
        assert_eq!(
            c.at(&["readinessProbe", "successThreshold"])
                .and_then(Node::as_i64),
            Some(1)
        );
    }

    #[test]
    fn a_declared_probe_wins_and_the_others_are_added() {
        let t = assert_idempotent(&template(
            "{runtime.ome.io/probe-profile: vllm-http, runtime.ome.io/probe-port: '8080'}",
            "{name: ome-container, image: i, readinessProbe: {httpGet: {path: /custom, port: 9999}}}",
        ));
        let c = &t
            .at(&["spec", "containers"])
            .and_then(Node::as_seq)
            .unwrap()[0];
        assert_eq!(
            c.str_at(&["readinessProbe", "httpGet", "path"]),
            Some("/custom")
        );
        assert_eq!(
            c.at(&["livenessProbe", "httpGet", "port"])
                .and_then(Node::as_i64),
            Some(8080)
        );
    }

    #[test]
    fn bad_ports_and_profiles_are_omes_errors() {
        for bad in ["abc", "0", "70000", "-1"] {
            let (_, diags) = run(&template(
                &format!(
                    "{{runtime.ome.io/probe-profile: sglang-http, runtime.ome.io/probe-port: '{bad}'}}"
                ),
                "{name: ome-container, image: i}",
            ));
            assert!(diags.len() == 1 && diags[0].is_error(), "{bad}: {diags:?}");
            assert!(
                diags[0]
                    .message
                    .contains(&format!("invalid port \"{bad}\""))
            );
        }
        let (_, diags) = run(&template(
            "{runtime.ome.io/probe-profile: bogus}",
            "{name: ome-container, image: i}",
        ));
        assert!(diags[0].message.ends_with("unknown probe profile: bogus"));
    }
}
