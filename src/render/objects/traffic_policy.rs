//! The backend policy OME v1.3's traffic translators write for an InferenceService's traffic
//! intent: an Envoy Gateway BackendTrafficPolicy over its HTTPRoutes, or an Istio
//! DestinationRule for its external Service (SEMANTICS.md#traffic-intent).

use super::{object_meta_map, rendered};
use crate::map;
use crate::model::InferenceService;
use crate::rendered::Rendered;
use crate::yaml::{Map, Node};

pub(crate) const BTP_API_VERSION: &str = "gateway.envoyproxy.io/v1alpha1";
pub(crate) const BTP_KIND: &str = "BackendTrafficPolicy";
pub(crate) const DR_API_VERSION: &str = "networking.istio.io/v1";
pub(crate) const DR_KIND: &str = "DestinationRule";

/// The intent, resolved as OME's `traffic.Resolve` does: values that do not parse are
/// left out (the webhook has refused them already).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Intent {
    /// `spec.traffic`.
    pub(crate) traffic: Option<Node>,
    pub(crate) circuit_breaker: Option<CircuitBreaker>,
    pub(crate) retry: Option<Retry>,
    pub(crate) timeout: Option<Timeout>,
    /// `ome.io/btp.<path>`, by path, in path order.
    pub(crate) passthrough_envoy: Vec<(String, String)>,
    /// `ome.io/dr.<path>`, by path, in path order.
    pub(crate) passthrough_istio: Vec<(String, String)>,
}

#[derive(Debug, Default, PartialEq)]
pub(crate) struct CircuitBreaker {
    pub(crate) max_connections: Option<i64>,
    pub(crate) max_parallel_requests: Option<i64>,
    pub(crate) max_pending_requests: Option<i64>,
    pub(crate) max_parallel_retries: Option<i64>,
    pub(crate) per_endpoint_max_connections: Option<i64>,
}

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Retry {
    pub(crate) attempts: Option<i64>,
    pub(crate) retry_on: Vec<String>,
    /// Go's normal form of the duration (`5m0s`).
    pub(crate) per_try_timeout: Option<String>,
}

#[derive(Debug, Default, PartialEq)]
pub(crate) struct Timeout {
    pub(crate) idle: Option<String>,
    pub(crate) max_connection_duration: Option<String>,
    pub(crate) tcp_connect: Option<String>,
}

/// Sets `value` at `path` below `root`, making maps on the way (a scalar on the way is
/// replaced, as the pass-throughs' `SetNestedField` does).
fn set(root: &mut Map, path: &[&str], value: Node) {
    let (last, parents) = path.split_last().expect("a path");
    let mut m = root;
    for key in parents {
        if m.get(key).and_then(Node::as_map).is_none() {
            m.insert(*key, Node::map(Map::new()));
        }
        m = m.get_mut(key).and_then(Node::as_map_mut).expect("a map");
    }
    m.insert(*last, value);
}

/// OME's `parseScalar`: a whole number, else a boolean (Go's `ParseBool` spellings), else a
/// decimal, else the string.
fn scalar(v: &str) -> Node {
    if let Ok(i) = v.strip_prefix('+').unwrap_or(v).parse::<i64>() {
        return Node::int(i);
    }
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => return Node::bool(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => return Node::bool(false),
        _ => {}
    }
    if let Ok(f) = v.parse::<f64>()
        && f.is_finite()
        && v.bytes().any(|b| b.is_ascii_digit())
    {
        return Node::made(crate::yaml::Value::Float(f.to_string()));
    }
    Node::str(v)
}

fn str_at<'a>(n: &'a Node, path: &[&str]) -> Option<&'a str> {
    n.at(path).and_then(Node::as_str)
}

fn header_names(n: Option<&Node>) -> Vec<&str> {
    n.and_then(|h| h.get("headers"))
        .and_then(Node::as_seq)
        .unwrap_or(&[])
        .iter()
        .filter_map(|h| h.get("name").and_then(Node::as_str))
        .collect()
}

fn passthroughs(spec: &mut Map, prefix: &[&str], paths: &[(String, String)]) {
    for (path, value) in paths {
        let segments: Vec<&str> = prefix.iter().copied().chain(path.split('.')).collect();
        set(spec, &segments, scalar(value));
    }
}

/// The BackendTrafficPolicy `<isvc>` over `routes`, as OME's Envoy Gateway translator
/// writes it; `Err` with the translator's text where it refuses the intent.
pub(crate) fn backend_traffic_policy(
    isvc: &InferenceService,
    routes: &[String],
    intent: &Intent,
) -> Result<Rendered, String> {
    let mut spec = Map::new();
    let refs = routes
        .iter()
        .map(|r| {
            Node::map(map! {
                "group" => Node::str("gateway.networking.k8s.io"),
                "kind" => Node::str("HTTPRoute"),
                "name" => Node::str(r),
            })
        })
        .collect();
    spec.insert("targetRefs", Node::seq(refs));
    if let Some(t) = &intent.traffic {
        let algorithm = str_at(t, &["algorithm"]);
        let hash = t.get("consistentHash").filter(|h| !h.is_null());
        if let Some(a) = algorithm {
            if a == "ConsistentHash" && hash.is_none() {
                return Err("spec.traffic.algorithm=ConsistentHash requires spec.traffic.consistentHash to be set".into());
            }
            if a != "ConsistentHash" && hash.is_some() {
                return Err(format!(
                    "spec.traffic.consistentHash must not be set when algorithm={}",
                    crate::go::quote(a)
                ));
            }
            set(&mut spec, &["loadBalancer", "type"], Node::str(a));
        }
        if let Some(h) = hash {
            let kind = str_at(h, &["type"]).unwrap_or("");
            let headers = header_names(Some(h));
            let eg_type = if kind == "Header" && headers.len() > 1 {
                "Headers"
            } else {
                kind
            };
            let ch = ["loadBalancer", "consistentHash"];
            set(&mut spec, &[ch[0], ch[1], "type"], Node::str(eg_type));
            match kind {
                "Header" => match headers.as_slice() {
                    [] => {
                        return Err(
                            "consistentHash.type=Header requires at least one header".into()
                        );
                    }
                    [one] => set(
                        &mut spec,
                        &[ch[0], ch[1], "header", "name"],
                        Node::str(*one),
                    ),
                    many => set(
                        &mut spec,
                        &[ch[0], ch[1], "headers"],
                        Node::seq(
                            many.iter()
                                .map(|n| Node::map(map! { "name" => Node::str(*n) }))
                                .collect(),
                        ),
                    ),
                },
                "Cookie" => {
                    let Some(cookie) = h.get("cookie").filter(|c| !c.is_null()) else {
                        return Err("consistentHash.type=Cookie requires cookie".into());
                    };
                    set(
                        &mut spec,
                        &[ch[0], ch[1], "cookie", "name"],
                        Node::str(str_at(cookie, &["name"]).unwrap_or("")),
                    );
                    if let Some(ttl) = cookie
                        .get("ttlSeconds")
                        .and_then(Node::as_i64)
                        .filter(|t| *t > 0)
                    {
                        set(
                            &mut spec,
                            &[ch[0], ch[1], "cookie", "ttl"],
                            Node::str(format!("{ttl}s")),
                        );
                    }
                }
                _ => {}
            }
        }
        if let Some(eo) = t.get("endpointOverride").filter(|e| !e.is_null())
            && str_at(eo, &["type"]) == Some("Header")
        {
            let headers = header_names(Some(eo));
            if headers.is_empty() {
                return Err("endpointOverride.type=Header requires at least one header".into());
            }
            set(
                &mut spec,
                &["loadBalancer", "endpointOverride", "extractFrom"],
                Node::seq(
                    headers
                        .iter()
                        .map(|n| Node::map(map! { "header" => Node::str(*n) }))
                        .collect(),
                ),
            );
        }
    }
    if let Some(cb) = &intent.circuit_breaker {
        for (v, path) in [
            (cb.max_connections, &["maxConnections"][..]),
            (cb.max_parallel_requests, &["maxParallelRequests"]),
            (cb.max_pending_requests, &["maxPendingRequests"]),
            (cb.max_parallel_retries, &["maxParallelRetries"]),
            (
                cb.per_endpoint_max_connections,
                &["perEndpoint", "maxConnections"],
            ),
        ] {
            if let Some(v) = v {
                let full: Vec<&str> = ["circuitBreaker"]
                    .into_iter()
                    .chain(path.iter().copied())
                    .collect();
                set(&mut spec, &full, Node::int(v));
            }
        }
    }
    if let Some(r) = &intent.retry {
        if let Some(a) = r.attempts {
            set(&mut spec, &["retry", "numRetries"], Node::int(a));
        }
        if let Some(t) = &r.per_try_timeout {
            set(&mut spec, &["retry", "perRetry", "timeout"], Node::str(t));
        }
        let (codes, triggers): (Vec<&String>, Vec<&String>) = r
            .retry_on
            .iter()
            .partition(|t| t.strip_prefix('+').unwrap_or(t).parse::<i32>().is_ok());
        if !triggers.is_empty() {
            set(
                &mut spec,
                &["retry", "retryOn", "triggers"],
                Node::seq(triggers.into_iter().map(Node::str).collect()),
            );
        }
        if !codes.is_empty() {
            set(
                &mut spec,
                &["retry", "retryOn", "httpStatusCodes"],
                Node::seq(
                    codes
                        .into_iter()
                        .map(|c| {
                            Node::int(c.strip_prefix('+').unwrap_or(c).parse::<i64>().unwrap_or(0))
                        })
                        .collect(),
                ),
            );
        }
    }
    if let Some(t) = &intent.timeout {
        for (v, path) in [
            (&t.idle, ["http", "connectionIdleTimeout"]),
            (
                &t.max_connection_duration,
                ["http", "maxConnectionDuration"],
            ),
            (&t.tcp_connect, ["tcp", "connectTimeout"]),
        ] {
            if let Some(v) = v {
                set(&mut spec, &["timeout", path[0], path[1]], Node::str(v));
            }
        }
    }
    passthroughs(&mut spec, &[], &intent.passthrough_envoy);
    let mut m = object_meta_map(BTP_API_VERSION, BTP_KIND, &isvc.name, isvc, None);
    m.insert("spec", Node::map(spec));
    Ok(rendered(isvc, m))
}

/// The DestinationRule `<isvc>` for the Service `<isvc>.<namespace>.svc.cluster.local`, as
/// OME's Istio translator writes it (no retries, no per-endpoint limit, no maximum
/// connection duration, no endpoint override); `Err` with the translator's text where it
/// refuses the intent.
pub(crate) fn destination_rule(
    isvc: &InferenceService,
    intent: &Intent,
) -> Result<Rendered, String> {
    let mut spec = Map::new();
    spec.insert(
        "host",
        Node::str(format!(
            "{}.{}.svc.cluster.local",
            isvc.name, isvc.lookup_namespace
        )),
    );
    let tp = "trafficPolicy";
    if let Some(t) = &intent.traffic {
        if let Some(a) = str_at(t, &["algorithm"]).filter(|a| *a != "ConsistentHash") {
            let simple = match a {
                "RoundRobin" => "ROUND_ROBIN",
                "LeastRequest" => "LEAST_REQUEST",
                "Random" => "RANDOM",
                other => {
                    return Err(format!(
                        "unsupported algorithm {} for Istio DR",
                        crate::go::quote(other)
                    ));
                }
            };
            set(
                &mut spec,
                &[tp, "loadBalancer", "simple"],
                Node::str(simple),
            );
        }
        if let Some(h) = t.get("consistentHash").filter(|h| !h.is_null()) {
            let ch = [tp, "loadBalancer", "consistentHash"];
            match str_at(h, &["type"]).unwrap_or("") {
                "Header" => match header_names(Some(h)).first() {
                    None => {
                        return Err(
                            "consistentHash.type=Header requires at least one header".into()
                        );
                    }
                    Some(first) => set(
                        &mut spec,
                        &[ch[0], ch[1], ch[2], "httpHeaderName"],
                        Node::str(*first),
                    ),
                },
                "Cookie" => {
                    let Some(cookie) = h.get("cookie").filter(|c| !c.is_null()) else {
                        return Err("consistentHash.type=Cookie requires cookie".into());
                    };
                    set(
                        &mut spec,
                        &[ch[0], ch[1], ch[2], "httpCookie", "name"],
                        Node::str(str_at(cookie, &["name"]).unwrap_or("")),
                    );
                    if let Some(ttl) = cookie
                        .get("ttlSeconds")
                        .and_then(Node::as_i64)
                        .filter(|t| *t > 0)
                    {
                        set(
                            &mut spec,
                            &[ch[0], ch[1], ch[2], "httpCookie", "ttl"],
                            Node::str(format!("{ttl}s")),
                        );
                    }
                }
                "SourceIP" => set(
                    &mut spec,
                    &[ch[0], ch[1], ch[2], "useSourceIp"],
                    Node::bool(true),
                ),
                _ => {}
            }
        }
    }
    if let Some(cb) = &intent.circuit_breaker {
        for (v, path) in [
            (cb.max_connections, ["tcp", "maxConnections"]),
            (cb.max_parallel_requests, ["http", "http2MaxRequests"]),
            (cb.max_pending_requests, ["http", "http1MaxPendingRequests"]),
        ] {
            if let Some(v) = v {
                set(
                    &mut spec,
                    &[tp, "connectionPool", path[0], path[1]],
                    Node::int(v),
                );
            }
        }
    }
    if let Some(t) = &intent.timeout {
        for (v, path) in [
            (&t.idle, ["http", "idleTimeout"]),
            (&t.tcp_connect, ["tcp", "connectTimeout"]),
        ] {
            if let Some(v) = v {
                set(
                    &mut spec,
                    &[tp, "connectionPool", path[0], path[1]],
                    Node::str(v),
                );
            }
        }
    }
    passthroughs(&mut spec, &[tp], &intent.passthrough_istio);
    let mut m = object_meta_map(DR_API_VERSION, DR_KIND, &isvc.name, isvc, None);
    m.insert("spec", Node::map(spec));
    Ok(rendered(isvc, m))
}
