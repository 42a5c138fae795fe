//! Traffic intent (`spec.traffic` and the circuit-breaker, retry, timeout and pass-through
//! annotations) rendered as OME v1.3's active traffic translator writes it: an Envoy Gateway
//! BackendTrafficPolicy when the cluster serves its API, else an Istio DestinationRule, else
//! nothing (`NoTranslatorAvailable`) — never silently (SEMANTICS.md#traffic-intent).

use super::objects::backend_traffic_policy::declares_traffic_intent;
use super::objects::traffic_policy::{
    self, BTP_API_VERSION, BTP_KIND, CircuitBreaker, DR_API_VERSION, DR_KIND, Intent, Retry,
    Timeout,
};
use crate::admission::traffic::{
    CIRCUIT_BREAKER, PASSTHROUGH_ENVOY, PASSTHROUGH_ISTIO, RETRY, TIMEOUT,
};
use crate::diagnostics::{Code, Diagnostic};
use crate::go;
use crate::model::{InferenceService, Settings};
use crate::rendered::Rendered;

fn annotation<'a>(isvc: &'a InferenceService, key: &str) -> Option<&'a str> {
    isvc.annotations.get(key).map(|v| v.as_str().unwrap_or(""))
}

/// Go's `strconv.Atoi` then a cast to int32, as OME's `parseInt32` (an empty or bad value is
/// left out).
fn int32(isvc: &InferenceService, key: &str) -> Option<i64> {
    let v = annotation(isvc, key)?;
    go::atoi(v).ok().map(|n| i64::from(n as i32))
}

/// Go's `time.ParseDuration`, written back as Go's `Duration.String()` (`5m` → `5m0s`).
fn duration(isvc: &InferenceService, key: &str) -> Option<String> {
    let ns = go::parse_duration(annotation(isvc, key)?).ok()?;
    i64::try_from(ns).ok().map(go_duration)
}

/// Go's `time.Duration.String()`.
pub(crate) fn go_duration(d: i64) -> String {
    if d == 0 {
        return "0s".into();
    }
    let sign = if d < 0 { "-" } else { "" };
    let u = u128::from(d.unsigned_abs());
    let frac = |v: u128, unit: u128| -> String {
        let (int, rest) = (v / unit, v % unit);
        if rest == 0 {
            return int.to_string();
        }
        let width = unit.to_string().len() - 1;
        let digits = format!("{rest:0width$}");
        format!("{int}.{}", digits.trim_end_matches('0'))
    };
    const SECOND: u128 = 1_000_000_000;
    if u < SECOND {
        let (unit, name) = match u {
            0..1_000 => (1, "ns"),
            1_000..1_000_000 => (1_000, "µs"),
            _ => (1_000_000, "ms"),
        };
        return format!("{sign}{}{name}", frac(u, unit));
    }
    let secs = format!("{}s", frac(u % (60 * SECOND), SECOND));
    let minutes = u / (60 * SECOND);
    let head = match (minutes / 60, minutes % 60) {
        (0, 0) => String::new(),
        (0, m) => format!("{m}m"),
        (h, m) => format!("{h}h{m}m"),
    };
    format!("{sign}{head}{secs}")
}

/// OME's `traffic.Resolve`.
fn resolve(isvc: &InferenceService) -> Intent {
    let any = |keys: &[&str]| keys.iter().any(|k| isvc.annotations.get(k).is_some());
    let passthrough = |prefix: &str| {
        let mut out: Vec<(String, String)> = isvc
            .annotations
            .iter()
            .filter_map(|(k, v)| {
                k.strip_prefix(prefix)
                    .map(|p| (p.to_string(), v.as_str().unwrap_or("").to_string()))
            })
            .collect();
        out.sort();
        out
    };
    Intent {
        traffic: isvc.traffic.clone(),
        circuit_breaker: any(&CIRCUIT_BREAKER).then(|| CircuitBreaker {
            max_connections: int32(isvc, CIRCUIT_BREAKER[0]),
            max_parallel_requests: int32(isvc, CIRCUIT_BREAKER[1]),
            max_pending_requests: int32(isvc, CIRCUIT_BREAKER[2]),
            max_parallel_retries: int32(isvc, CIRCUIT_BREAKER[3]),
            per_endpoint_max_connections: int32(isvc, CIRCUIT_BREAKER[4]),
        }),
        retry: any(&RETRY).then(|| Retry {
            attempts: int32(isvc, RETRY[0]),
            retry_on: annotation(isvc, RETRY[1])
                .unwrap_or("")
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect(),
            per_try_timeout: duration(isvc, RETRY[2]),
        }),
        timeout: any(&TIMEOUT).then(|| Timeout {
            idle: duration(isvc, TIMEOUT[0]),
            max_connection_duration: duration(isvc, TIMEOUT[1]),
            tcp_connect: duration(isvc, TIMEOUT[2]),
        }),
        passthrough_envoy: passthrough(PASSTHROUGH_ENVOY),
        passthrough_istio: passthrough(PASSTHROUGH_ISTIO),
    }
}

/// The backend policy of an InferenceService that declares traffic intent, for the
/// translator the listed cluster APIs select; a warning where none is rendered (no list, or
/// neither API listed) or where the translator refuses the intent. `routes` are the
/// HTTPRoutes the BackendTrafficPolicy targets: `<isvc>`, `<isvc>-engine`, then the decoder's
/// and router's when the InferenceService has them.
pub(super) fn render(
    isvc: &InferenceService,
    has_decoder: bool,
    has_router: bool,
    settings: &Settings,
    diags: &mut Vec<Diagnostic>,
) -> Option<Rendered> {
    if !declares_traffic_intent(isvc) {
        return None;
    }
    let at = isvc
        .traffic
        .as_ref()
        .map_or(isvc.pos, |t| if t.pos.is_none() { isvc.pos } else { t.pos });
    let warn = |message: String, help: &str| {
        Diagnostic::warning(Code::TrafficIntent, message)
            .at(at)
            .object(isvc.object.clone())
            .help(help.to_string())
    };
    let Some(apis) = &settings.api_versions else {
        diags.push(warn(
            format!(
                "traffic intent not rendered: OME v1.3 writes it as a {BTP_API_VERSION} {BTP_KIND} when the cluster serves that API, else as a {DR_API_VERSION} {DR_KIND}, else nothing (NoTranslatorAvailable), and no list of the cluster's APIs says which"
            ),
            "list the cluster's APIs (`--api-versions gateway.envoyproxy.io/v1alpha1` or `--api-versions networking.istio.io/v1`, or `apiVersions:` in ome-render.yaml) to have the policy rendered",
        ));
        return None;
    };
    let intent = resolve(isvc);
    let (built, kind) = if apis.serves(BTP_API_VERSION, BTP_KIND) {
        let mut routes = vec![isvc.name.clone(), format!("{}-engine", isvc.name)];
        if has_decoder {
            routes.push(format!("{}-decoder", isvc.name));
        }
        if has_router {
            routes.push(format!("{}-router", isvc.name));
        }
        (
            traffic_policy::backend_traffic_policy(isvc, &routes, &intent),
            BTP_KIND,
        )
    } else if apis.serves(DR_API_VERSION, DR_KIND) {
        (traffic_policy::destination_rule(isvc, &intent), DR_KIND)
    } else {
        diags.push(warn(
            format!(
                "traffic intent not rendered: the listed cluster APIs have neither {BTP_API_VERSION} {BTP_KIND} nor {DR_API_VERSION} {DR_KIND}, so OME v1.3 writes no policy and reports NoTranslatorAvailable"
            ),
            "install Envoy Gateway or Istio and list its API, or remove spec.traffic and the traffic annotations",
        ));
        return None;
    };
    match built {
        Ok(policy) => Some(policy),
        Err(message) => {
            diags.push(warn(
                format!("traffic intent not rendered: OME's translator refuses it ({message}); the {kind} is not written (TranslationFailed)"),
                "fix spec.traffic as the message says",
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `Duration.String()`, as OME writes the annotations' durations.
    #[test]
    fn durations_in_go_normal_form() {
        let cases = [
            (0, "0s"),
            (1, "1ns"),
            (1_500, "1.5µs"),
            (2_000_000, "2ms"),
            (10_000_000_000, "10s"),
            (300_000_000_000, "5m0s"),
            (90_500_000_000, "1m30.5s"),
            (3_600_000_000_000, "1h0m0s"),
            (-1_500_000_000, "-1.5s"),
        ];
        for (ns, want) in cases {
            assert_eq!(go_duration(ns), want, "{ns}");
        }
    }
}
