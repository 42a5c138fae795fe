//! `spec.traffic` and the traffic annotations, as OME's InferenceService webhook checks them
//! (ISVC-24, ISVC-25, ISVC-26; SEMANTICS.md#admission).

use super::{Findings, present};
use crate::diagnostics::Code;
use crate::go;
use crate::yaml::{Map, Node, Value};
use std::collections::HashSet;

const CODE: Code = Code::InvalidInferenceService;
/// The CRD schema's checks (the API server runs them before the webhook).
const SCHEMA: Code = Code::InvalidField;

/// What an annotation's value must be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    PositiveInt,
    Duration,
    Bool,
    RetryOn,
    PromoteTarget,
    TrafficDrain,
}

/// The traffic annotations OME v1.3's webhook knows, and the only candidates of its
/// "did you mean" check.
const KNOWN: &[(&str, Kind)] = &[
    ("ome.io/circuit-breaker-max-connections", Kind::Int),
    ("ome.io/circuit-breaker-max-parallel-requests", Kind::Int),
    ("ome.io/circuit-breaker-max-pending-requests", Kind::Int),
    ("ome.io/circuit-breaker-max-parallel-retries", Kind::Int),
    (
        "ome.io/circuit-breaker-per-endpoint-max-connections",
        Kind::Int,
    ),
    ("ome.io/retry-attempts", Kind::Int),
    ("ome.io/retry-on", Kind::RetryOn),
    ("ome.io/retry-per-try-timeout", Kind::Duration),
    ("ome.io/timeout-idle", Kind::Duration),
    ("ome.io/timeout-max-connection-duration", Kind::Duration),
    ("ome.io/timeout-tcp-connect", Kind::Duration),
    ("ome.io/traffic-drain", Kind::TrafficDrain),
    ("ome.io/managed-by-conflict-acked", Kind::Bool),
    ("ome.io/rollout-ready-timeout", Kind::Duration),
    ("ome.io/revision-history-limit", Kind::PositiveInt),
    ("ome.io/rollout-promote", Kind::PromoteTarget),
    ("ome.io/rollout-rollback", Kind::Bool),
];
const RETRY_ON: &[&str] = &[
    "5xx",
    "reset",
    "gateway-error",
    "connect-failure",
    "retriable-status-codes",
];
/// The traffic-intent annotations, by group, as OME's traffic package reads them (each also
/// a row of [`KNOWN`], a test checks): any of them set declares intent (SEMANTICS.md#traffic-intent).
pub(crate) const CIRCUIT_BREAKER: [&str; 5] = [
    "ome.io/circuit-breaker-max-connections",
    "ome.io/circuit-breaker-max-parallel-requests",
    "ome.io/circuit-breaker-max-pending-requests",
    "ome.io/circuit-breaker-max-parallel-retries",
    "ome.io/circuit-breaker-per-endpoint-max-connections",
];
pub(crate) const RETRY: [&str; 3] = [
    "ome.io/retry-attempts",
    "ome.io/retry-on",
    "ome.io/retry-per-try-timeout",
];
pub(crate) const TIMEOUT: [&str; 3] = [
    "ome.io/timeout-idle",
    "ome.io/timeout-max-connection-duration",
    "ome.io/timeout-tcp-connect",
];
/// Pass-through annotations: `ome.io/btp.<path>` (Envoy) and `ome.io/dr.<path>` (Istio).
pub(crate) const PASSTHROUGH_ENVOY: &str = "ome.io/btp.";
pub(crate) const PASSTHROUGH_ISTIO: &str = "ome.io/dr.";
const PASSTHROUGH: &[&str] = &[PASSTHROUGH_ENVOY, PASSTHROUGH_ISTIO];

/// The closest known traffic annotation within two edits, as OME's webhook suggests it.
pub(crate) fn closest_traffic_annotation(key: &str) -> Option<&'static str> {
    KNOWN
        .iter()
        .filter_map(|(k, _)| {
            crate::diagnostics::suggest::distance_within(key.as_bytes(), k.as_bytes(), 2)
                .map(|d| (d, *k))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// ISVC-26: the InferenceService's own annotations, in key order (Go walks them in random
/// order; every failing key is reported).
pub(crate) fn check_annotations(f: &mut Findings<'_>, annotations: &Map, spec: &Node) {
    let mut keys: Vec<(&str, &Node)> = annotations.iter().collect();
    keys.sort_by(|a, b| a.0.cmp(b.0));
    let field = |k: &str| format!("metadata.annotations.{k}");
    for (key, node) in &keys {
        let Some(value) = node.as_str() else { continue };
        if let Some((_, kind)) = KNOWN.iter().find(|(k, _)| k == key) {
            if let Some(message) = value_error(key, value, *kind) {
                let d = f
                    .error(CODE, node.pos, &field(key), message)
                    .help(kind_help(*kind));
                f.push(d);
            }
            continue;
        }
        if PASSTHROUGH.iter().any(|p| key.starts_with(p)) {
            continue;
        }
        if key.starts_with("ome.io/")
            && let Some(known) = closest_traffic_annotation(key)
        {
            let d = f
                .error(
                    CODE,
                    node.pos,
                    &field(key),
                    format!(
                        "unknown traffic annotation {}. Did you mean {}? (UnknownTrafficAnnotation)",
                        go::quote(key),
                        go::quote(known)
                    ),
                )
                .help(format!("rename the annotation to `{known}`"));
            f.push(d);
        }
    }
    let get = |k: &str| annotations.get(k);
    if let Some(attempts) = get("ome.io/retry-attempts")
        && let Some(n) = attempts.as_str().and_then(|v| go::atoi(v).ok())
        && n > 0
        && get("ome.io/retry-on").is_none()
    {
        let d = f
            .error(
                CODE,
                attempts.pos,
                &field("ome.io/retry-attempts"),
                format!(
                    "annotation \"ome.io/retry-attempts\" set to {n} requires \"ome.io/retry-on\" to specify retry conditions (MissingRetryOn)"
                ),
            )
            .help("add `ome.io/retry-on`, such as \"5xx,reset\"");
        f.push(d);
    }
    let consistent_hash = spec.str_at(&["traffic", "algorithm"]) == Some("ConsistentHash");
    if consistent_hash
        && let Some(cap) = get("ome.io/circuit-breaker-per-endpoint-max-connections")
        && let Some(n) = cap.as_str().and_then(|v| go::atoi(v).ok())
        && n > 1
    {
        let d = f.warning(
            Code::AdmissionWarning,
            cap.pos,
            &field("ome.io/circuit-breaker-per-endpoint-max-connections"),
            format!(
                "annotation \"ome.io/circuit-breaker-per-endpoint-max-connections\"={n} combined with traffic.algorithm=ConsistentHash usually defeats sticky routing; set to 1 to keep sessions on a single pod"
            ),
        )
        .help("OME admits this with a warning: write \"1\" to keep each session on one pod");
        f.push(d);
    }
    if let Some(timeout) = get("ome.io/rollout-ready-timeout")
        && let Some(v) = timeout.as_str()
        && let Ok(d) = go::parse_duration(v)
        && d > 0
        && d < 60_000_000_000
    {
        let d = f.warning(
            Code::AdmissionWarning,
            timeout.pos,
            &field("ome.io/rollout-ready-timeout"),
            format!(
                "annotation \"ome.io/rollout-ready-timeout\"={v} is less than 1 minute; most LLM runtimes need longer to reach Ready (RolloutTimeoutTooShort)"
            ),
        )
        .help("OME admits this with a warning: give the rollout a few minutes, such as 10m");
        f.push(d);
    }
}

fn kind_help(kind: Kind) -> &'static str {
    match kind {
        Kind::Int => "write a whole number, quoted: \"1024\"",
        Kind::PositiveInt => "write a whole number of 1 or more, quoted: \"10\"",
        Kind::Duration => "write a Go duration with a unit, such as \"30s\" or \"1m30s\"",
        Kind::Bool => "write \"true\" or \"false\"",
        Kind::RetryOn => {
            "list conditions separated by commas: 5xx, reset, gateway-error, connect-failure, retriable-status-codes"
        }
        Kind::PromoteTarget => "copy the hash from status.canary.canaryRevisionHash",
        Kind::TrafficDrain => {
            "write a JSON object keyed by drain ID: {\"maintenance-a\":{\"cluster\":\"worker-a\",\"reason\":\"planned maintenance\"}}"
        }
    }
}

fn value_error(key: &str, value: &str, kind: Kind) -> Option<String> {
    let (k, v) = (go::quote(key), go::quote(value));
    match kind {
        Kind::Int => go::atoi(value).err().map(|e| {
            format!("annotation {k} value {v} is not a valid integer (InvalidIntValue): {e}")
        }),
        Kind::PositiveInt => match go::atoi(value) {
            Err(e) => Some(format!(
                "annotation {k} value {v} is not a valid integer (InvalidIntValue): {e}"
            )),
            Ok(n) if n < 1 => Some(format!(
                "annotation {k} value {v} must be a positive integer (>= 1) (InvalidPositiveIntValue)"
            )),
            Ok(_) => None,
        },
        Kind::Duration => go::parse_duration(value).err().map(|e| {
            format!("annotation {k} value {v} is not a valid duration (InvalidDuration): {e}")
        }),
        Kind::Bool => (value != "true" && value != "false").then(|| {
            format!("annotation {k} value {v} must be \"true\" or \"false\" (InvalidBoolValue)")
        }),
        Kind::RetryOn => {
            if value.is_empty() {
                return Some(format!(
                    "annotation {k} must be a non-empty comma-separated list (InvalidRetryOn)"
                ));
            }
            for raw in value.split(',') {
                let token = raw.trim();
                if token.is_empty() {
                    return Some(format!(
                        "annotation {k} has an empty token (InvalidRetryOn)"
                    ));
                }
                if !RETRY_ON.contains(&token) {
                    return Some(format!(
                        "annotation {k} token {} is not a supported retry condition (InvalidRetryOn)",
                        go::quote(token)
                    ));
                }
            }
            None
        }
        Kind::PromoteTarget => {
            let hash = value.len() >= 6
                && value
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
            (!hash).then(|| {
                format!(
                    "annotation {k} value {v} must be the canary revision hash to promote, copied from status.canary.canaryRevisionHash (lowercase alphanumeric, at least 6 chars); \"full\" is not a supported promotion target (InvalidRolloutPromoteTarget)"
                )
            })
        }
        Kind::TrafficDrain => traffic_drain_error(value).map(|e| {
            format!("annotation {k} is not a valid traffic-drain value (InvalidTrafficDrain): {e}")
        }),
    }
}

/// OME's `trafficdrain.Parse`: `{"<id>": {"cluster": "...", "reason": "..."}}`.
fn traffic_drain_error(raw: &str) -> Option<String> {
    let root = match go::json::parse(raw, 0) {
        Ok(root) => root,
        Err(e) => return Some(format!("decode top-level object: {}", e.stream_message())),
    };
    let Value::Map(members) = &root.value else {
        return Some("top-level value must be a JSON object keyed by override ID".into());
    };
    let mut seen: HashSet<&str> = HashSet::new();
    for (id, value) in members.iter() {
        if let Some(e) = text_error("override ID", id) {
            return Some(e);
        }
        if !seen.insert(id) {
            return Some(format!("duplicate override ID {}", go::quote(id)));
        }
        let qid = go::quote(id);
        let Value::Map(fields) = &value.value else {
            return Some(format!("override {qid} must be a JSON object"));
        };
        let mut seen_fields: HashSet<&str> = HashSet::new();
        let (mut cluster, mut reason) = ("", "");
        for (name, v) in fields.iter() {
            if !seen_fields.insert(name) {
                return Some(format!(
                    "override {qid} has duplicate field {}",
                    go::quote(name)
                ));
            }
            let Value::Str(s) = &v.value else {
                return Some(format!(
                    "override {qid} field {} must be a string",
                    go::quote(name)
                ));
            };
            match name {
                "cluster" => cluster = s,
                "reason" => reason = s,
                _ => {
                    return Some(format!(
                        "override {qid} has unknown field {}",
                        go::quote(name)
                    ));
                }
            }
        }
        if let Some(e) = text_error(&format!("override {qid} cluster"), cluster) {
            return Some(e);
        }
        if let Some(e) = text_error(&format!("override {qid} reason"), reason) {
            return Some(e);
        }
    }
    None
}

fn text_error(field: &str, value: &str) -> Option<String> {
    if value.trim().is_empty() {
        Some(format!("{field} must be non-empty"))
    } else if value != value.trim() {
        Some(format!(
            "{field} must not have leading or trailing whitespace"
        ))
    } else {
        None
    }
}

/// ISVC-24 and ISVC-25: `spec.traffic`, with the CRD's enums first.
pub(crate) fn check_spec(f: &mut Findings<'_>, spec: &Node) {
    let Some(traffic) = present(spec, "traffic").filter(|t| t.as_map().is_some()) else {
        return;
    };
    let base = "spec.traffic";
    f.enum_field(
        SCHEMA,
        traffic,
        "algorithm",
        base,
        &["RoundRobin", "LeastRequest", "Random", "ConsistentHash"],
    );
    let algorithm = traffic.str_at(&["algorithm"]);
    let hash = present(traffic, "consistentHash");
    let reject = |f: &mut Findings<'_>, node: &Node, field: &str, message: String| {
        let help = spec_help(&message);
        let d = f.error(CODE, node.pos, field, message).help(help);
        f.push(d);
    };
    if algorithm == Some("ConsistentHash") && hash.is_none() {
        reject(
            f,
            traffic,
            "spec.traffic.consistentHash",
            "spec.traffic.consistentHash is required when spec.traffic.algorithm=ConsistentHash (MissingConsistentHashSpec)".into(),
        );
    }
    if let Some(hash) = hash {
        let hp = "spec.traffic.consistentHash";
        if algorithm != Some("ConsistentHash") {
            reject(
                f,
                hash,
                hp,
                "spec.traffic.consistentHash is only valid when spec.traffic.algorithm=ConsistentHash (UnexpectedConsistentHashSpec)".into(),
            );
        }
        f.enum_field(SCHEMA, hash, "type", hp, &["Header", "Cookie", "SourceIP"]);
        if hash.as_map().is_some() && hash.get("type").is_none() {
            f.required(SCHEMA, hash.pos, &format!("{hp}.type"));
        }
        header_names(f, hash, hp);
        if let Some(c) = present(hash, "cookie").filter(|c| c.as_map().is_some()) {
            let cp = format!("{hp}.cookie");
            named(f, c, &cp);
            if let Some(ttl) = c.get("ttlSeconds") {
                f.minimum(SCHEMA, ttl, &format!("{cp}.ttlSeconds"), 0);
            }
        }
        let headers = present(hash, "headers");
        let header_items = headers.and_then(Node::as_seq).unwrap_or(&[]);
        let cookie = present(hash, "cookie");
        match hash.str_at(&["type"]) {
            Some("Header") => {
                if header_items.is_empty() {
                    reject(
                        f,
                        hash,
                        &format!("{hp}.headers"),
                        format!("{hp}.headers must be non-empty when type=Header (MissingHashKey)"),
                    );
                }
                if let Some(c) = cookie {
                    reject(
                        f,
                        c,
                        &format!("{hp}.cookie"),
                        format!("{hp}.cookie must not be set when type=Header (MultipleHashKeys)"),
                    );
                }
            }
            Some("Cookie") => match cookie {
                None => reject(
                    f,
                    hash,
                    &format!("{hp}.cookie"),
                    format!("{hp}.cookie is required when type=Cookie (MissingHashKey)"),
                ),
                Some(_) => {
                    if let Some(h) = headers.filter(|_| !header_items.is_empty()) {
                        reject(
                            f,
                            h,
                            &format!("{hp}.headers"),
                            format!(
                                "{hp}.headers must not be set when type=Cookie (MultipleHashKeys)"
                            ),
                        );
                    }
                }
            },
            Some("SourceIP") => {
                if let Some(c) = cookie {
                    reject(
                        f,
                        c,
                        &format!("{hp}.cookie"),
                        format!(
                            "{hp}.cookie must not be set when type=SourceIP (MultipleHashKeys)"
                        ),
                    );
                }
                if let Some(h) = headers.filter(|_| !header_items.is_empty()) {
                    reject(
                        f,
                        h,
                        &format!("{hp}.headers"),
                        format!(
                            "{hp}.headers must not be set when type=SourceIP (MultipleHashKeys)"
                        ),
                    );
                }
            }
            _ => {}
        }
    }
    if let Some(over) = present(traffic, "endpointOverride") {
        let op = "spec.traffic.endpointOverride";
        f.enum_field(SCHEMA, over, "type", op, &["Header", "Metadata"]);
        if over.as_map().is_some() && over.get("type").is_none() {
            f.required(SCHEMA, over.pos, &format!("{op}.type"));
        }
        header_names(f, over, op);
        match over.str_at(&["type"]) {
            Some("Header") => {
                let items = over.get("headers").and_then(Node::as_seq).unwrap_or(&[]);
                if items.is_empty() {
                    reject(
                        f,
                        over,
                        &format!("{op}.headers"),
                        format!(
                            "{op}.headers must be non-empty when type=Header (MissingEndpointOverrideKey)"
                        ),
                    );
                }
            }
            Some("Metadata") => {
                let n = over.get("type").unwrap_or(over);
                reject(
                    f,
                    n,
                    &format!("{op}.type"),
                    "spec.traffic.endpointOverride.type=Metadata is reserved and not implemented by the active translator (ReservedEndpointOverrideType)".into(),
                );
            }
            _ => {}
        }
    }
}

/// The help line of a `spec.traffic` rule, by OME's reason.
fn spec_help(message: &str) -> &'static str {
    let reason = message
        .rsplit_once('(')
        .map_or("", |(_, r)| r.trim_end_matches(')'));
    match reason {
        "MissingConsistentHashSpec" => {
            "add `consistentHash: {type: Header, headers: [{name: x-session-id}]}` (or a Cookie or SourceIP hash)"
        }
        "UnexpectedConsistentHashSpec" => {
            "set `algorithm: ConsistentHash`, or remove consistentHash"
        }
        "MissingHashKey" => "name the headers or the cookie the hash is taken from",
        "MultipleHashKeys" => {
            "keep only the key of the hash type: headers for Header, cookie for Cookie, neither for SourceIP"
        }
        "MissingEndpointOverrideKey" => "list the headers that carry the endpoint",
        "ReservedEndpointOverrideType" => "use `type: Header`",
        _ => "see OME's traffic documentation for spec.traffic",
    }
}

/// The CRD's `name` of a header or cookie: required, at least one character. (The webhook's
/// own `… name is empty` messages are unreachable behind it.)
fn named(f: &mut Findings<'_>, node: &Node, path: &str) {
    match node.get("name") {
        None => f.required(SCHEMA, node.pos, &format!("{path}.name")),
        Some(n) => f.min_length(SCHEMA, n, &format!("{path}.name"), 1),
    }
}

fn header_names(f: &mut Findings<'_>, parent: &Node, path: &str) {
    let items = parent.get("headers").and_then(Node::as_seq).unwrap_or(&[]);
    for (i, h) in items.iter().enumerate() {
        if h.as_map().is_some() {
            named(f, h, &format!("{path}.headers[{i}]"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_intent_groups_are_known_annotations() {
        for key in CIRCUIT_BREAKER.iter().chain(&RETRY).chain(&TIMEOUT) {
            assert!(KNOWN.iter().any(|(k, _)| k == key), "{key}");
        }
    }

    #[test]
    fn did_you_mean_looks_only_at_traffic_keys_within_two_edits() {
        assert_eq!(
            closest_traffic_annotation("ome.io/retry-attempt"),
            Some("ome.io/retry-attempts")
        );
        assert_eq!(
            closest_traffic_annotation("ome.io/timeout-idel"),
            Some("ome.io/timeout-idle")
        );
        assert_eq!(closest_traffic_annotation("ome.io/autoscalerClas"), None);
        assert_eq!(closest_traffic_annotation("ome.io/rollout-paused"), None);
    }

    #[test]
    fn values_are_checked_by_kind_with_go_texts() {
        assert_eq!(
            value_error("ome.io/retry-attempts", "three", Kind::Int).as_deref(),
            Some(
                r#"annotation "ome.io/retry-attempts" value "three" is not a valid integer (InvalidIntValue): strconv.Atoi: parsing "three": invalid syntax"#
            )
        );
        assert_eq!(
            value_error("ome.io/timeout-idle", "30", Kind::Duration).as_deref(),
            Some(
                r#"annotation "ome.io/timeout-idle" value "30" is not a valid duration (InvalidDuration): time: missing unit in duration "30""#
            )
        );
        assert_eq!(
            value_error("ome.io/retry-on", "5xx,,reset", Kind::RetryOn).as_deref(),
            Some(r#"annotation "ome.io/retry-on" has an empty token (InvalidRetryOn)"#)
        );
        assert!(value_error("ome.io/retry-on", "5xx, reset", Kind::RetryOn).is_none());
        assert_eq!(
            value_error("ome.io/revision-history-limit", "0", Kind::PositiveInt).as_deref(),
            Some(
                r#"annotation "ome.io/revision-history-limit" value "0" must be a positive integer (>= 1) (InvalidPositiveIntValue)"#
            )
        );
        assert!(value_error("ome.io/rollout-promote", "abc123", Kind::PromoteTarget).is_none());
        assert!(value_error("ome.io/rollout-promote", "full", Kind::PromoteTarget).is_some());
    }

    #[test]
    fn traffic_drain_follows_omes_parser() {
        assert_eq!(traffic_drain_error("{}"), None);
        assert_eq!(
            traffic_drain_error(r#"{"d":{"cluster":"a","reason":"r"}}"#),
            None
        );
        assert_eq!(
            traffic_drain_error("[]").as_deref(),
            Some("top-level value must be a JSON object keyed by override ID")
        );
        assert_eq!(
            traffic_drain_error(r#"{"drain":{"reason":"one"}}"#).as_deref(),
            Some(r#"override "drain" cluster must be non-empty"#)
        );
        assert_eq!(
            traffic_drain_error(r#"{"drain":{"cluster":"a","reason":"one","weight":"0"}}"#)
                .as_deref(),
            Some(r#"override "drain" has unknown field "weight""#)
        );
        assert_eq!(
            traffic_drain_error(
                r#"{"drain":{"cluster":"a","reason":"one"},"drain":{"cluster":"b","reason":"two"}}"#
            )
            .as_deref(),
            Some(r#"duplicate override ID "drain""#)
        );
        assert_eq!(
            traffic_drain_error("").as_deref(),
            Some("decode top-level object: EOF")
        );
        // Go's stream reader: the end between tokens is `EOF`, inside one `unexpected EOF`.
        assert_eq!(
            traffic_drain_error(r#"{"drain":{"cluster":"a""#).as_deref(),
            Some("decode top-level object: EOF")
        );
        assert_eq!(
            traffic_drain_error(r#"{"drain":{"cluster":"a"#).as_deref(),
            Some("decode top-level object: unexpected EOF")
        );
        assert_eq!(
            traffic_drain_error(r#"{"d":{"cluster":"a","reason":"b"}} {}"#).as_deref(),
            Some("decode top-level object: unexpected trailing data")
        );
        assert_eq!(
            traffic_drain_error("[]").as_deref(),
            Some("top-level value must be a JSON object keyed by override ID")
        );
    }
}
