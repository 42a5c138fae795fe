//! Kubernetes strategic merge, as OME applies it: the InferenceService component (the patch)
//! over the runtime's config (the base), and a child runtime over its parent.
//!
//! OME serialises the whole Go struct as the patch, so the rules are those of a full-object
//! patch (SEMANTICS.md#merging):
//!
//! - a field Go would omit (`null`, `""`, `0`, `false`, `[]`, `{}`) keeps the base value,
//!   except the pointer fields in [`ZERO_IS_SENT`], whose `0`/`false` win;
//! - maps merge key by key, recursively;
//! - lists with a patch merge key ([`merge_key`]) merge item by item, in the order of
//!   SEMANTICS.md#merging; every other list is replaced whole;
//! - scalars are replaced.
//!
//! Merges that produce an object the API server would reject (an env var with `value` and
//! `valueFrom`, a volume with two sources, a probe with two handlers) are reported as
//! [`Conflict`]s (SEMANTICS.md#choice-invalid-merges).

use crate::yaml::{Map, Node, Pos, Value};
use std::collections::HashMap;

/// The patch merge key of a list field, from the Kubernetes API types.
pub(crate) fn merge_key(field: &str) -> Option<&'static str> {
    match field {
        "env"
        | "volumes"
        | "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "imagePullSecrets"
        | "schedulingGates"
        | "resourceClaims" => Some("name"),
        "ports" => Some("containerPort"),
        "volumeMounts" => Some("mountPath"),
        "volumeDevices" => Some("devicePath"),
        "topologySpreadConstraints" => Some("topologyKey"),
        "hostAliases" => Some("ip"),
        _ => None,
    }
}

/// Fields that are pointers in the Go types: Go sends their zero value, so `0` or `false`
/// in the patch replaces the base value.
pub(crate) const ZERO_IS_SENT: &[&str] = &[
    "disabled",
    "autoSelect",
    "priority",
    "minReplicas",
    "minAvailable",
    "maxUnavailable",
    "idleReplicaCount",
    "pollingInterval",
    "cooldownPeriod",
    "scaleTarget",
    "containerConcurrency",
    "timeoutSeconds",
    "canaryTrafficPercent",
    "size",
    "terminationGracePeriodSeconds",
    "activeDeadlineSeconds",
    "automountServiceAccountToken",
    "shareProcessNamespace",
    "enableServiceLinks",
    "setHostnameAsFQDN",
    "hostUsers",
    "runAsUser",
    "runAsGroup",
    "runAsNonRoot",
    "readOnlyRootFilesystem",
    "allowPrivilegeEscalation",
    "privileged",
    "fsGroup",
    "defaultMode",
    "optional",
];

const PROBE_FIELDS: &[&str] = &[
    "readinessProbe",
    "livenessProbe",
    "startupProbe",
    "postStart",
    "preStop",
];
const PROBE_HANDLERS: &[&str] = &["exec", "httpGet", "tcpSocket", "grpc", "sleep"];

/// A merge whose result the API server would reject.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Conflict {
    /// The field path below the merged roots, such as `runner.env[MODEL_PATH]`.
    pub(crate) path: String,
    pub(crate) message: String,
    /// Where the base side (runtime or parent) set it.
    pub(crate) base: Pos,
    /// Where the patch side (InferenceService or child) set it.
    pub(crate) patch: Pos,
}

/// Merges `patch` over `base`. `root_field` names the field the two roots are (for the list
/// rules of a root that is itself a list); use `""` for objects.
pub(crate) fn merge(base: &Node, patch: &Node, conflicts: &mut Vec<Conflict>) -> Node {
    let mut path = Vec::new();
    merge_value(base, patch, "", &mut path, conflicts)
}

/// Whether a patch value is left out of Go's JSON for `field`.
fn omitted(field: &str, v: &Node) -> bool {
    match &v.value {
        Value::Null => true,
        Value::Seq(s) => s.is_empty(),
        Value::Map(m) => m.is_empty(),
        _ => v.is_zero() && !ZERO_IS_SENT.contains(&field),
    }
}

fn path_string(path: &[String]) -> String {
    let mut s = String::new();
    for seg in path {
        if seg.starts_with('[') || s.is_empty() {
            s.push_str(seg);
        } else {
            s.push('.');
            s.push_str(seg);
        }
    }
    s
}

fn merge_value(
    base: &Node,
    patch: &Node,
    field: &str,
    path: &mut Vec<String>,
    conflicts: &mut Vec<Conflict>,
) -> Node {
    if omitted(field, patch) {
        return base.clone();
    }
    match (&base.value, &patch.value) {
        (Value::Map(b), Value::Map(p)) => {
            let merged = merge_maps(b, p, path, conflicts);
            if PROBE_FIELDS.contains(&field) {
                check_handlers(b, p, &merged, path, base.pos, patch.pos, conflicts);
            }
            Node::new(Value::Map(merged), base.pos)
        }
        (Value::Seq(b), Value::Seq(p)) => match merge_key(field) {
            Some(key) => Node::new(
                Value::Seq(merge_keyed(b, p, key, field, path, conflicts)),
                base.pos,
            ),
            None => patch.clone(),
        },
        _ => patch.clone(),
    }
}

/// The base's keys in the base's order (merged where the patch sets them), then the patch's
/// new keys in the patch's order. Fields are merged in the patch's order, so conflicts are
/// found in that order; only the base's fields the patch leaves alone are copied.
fn merge_maps(b: &Map, p: &Map, path: &mut Vec<String>, conflicts: &mut Vec<Conflict>) -> Map {
    let mut merged: Vec<Option<Node>> = vec![None; b.len()];
    let mut added = Vec::new();
    for (k, pv) in p.entries() {
        if omitted(k, pv) {
            continue;
        }
        match b.get_indexed(k) {
            Some((i, bv)) => {
                path.push(k.to_string());
                merged[i] = Some(merge_value(bv, pv, k, path, conflicts));
                path.pop();
            }
            None => added.push((k, pv)),
        }
    }
    let mut out = Map::with_capacity(b.len() + added.len());
    for ((k, bv), m) in b.entries().zip(merged) {
        out.push_unique(k.clone(), m.unwrap_or_else(|| bv.clone()));
    }
    for (k, pv) in added {
        out.push_unique(k.clone(), pv.clone());
    }
    out
}

fn key_of(item: &Node, key: &str) -> Option<String> {
    item.get(key).and_then(Node::scalar_text)
}

/// Item-by-item merge of a keyed list (SEMANTICS.md#merging): patch items in patch order,
/// base-only items placed before the first patch item that comes after them in the base.
fn merge_keyed(
    b: &[Node],
    p: &[Node],
    key: &str,
    field: &str,
    path: &mut Vec<String>,
    conflicts: &mut Vec<Conflict>,
) -> Vec<Node> {
    // The first base item of each key (a hash lookup, so long lists merge in linear time).
    let mut base_index_of: HashMap<String, usize> = HashMap::with_capacity(b.len());
    for (i, item) in b.iter().enumerate() {
        if let Some(k) = key_of(item, key) {
            base_index_of.entry(k).or_insert(i);
        }
    }
    // Patch items, merged with their base item when the key matches: (base index, node).
    let mut patch_items: Vec<(Option<usize>, Node)> = Vec::with_capacity(p.len());
    let mut in_patch = vec![false; b.len()];
    for item in p {
        let k = key_of(item, key);
        let base_index = k.as_ref().and_then(|k| base_index_of.get(k).copied());
        if let Some(i) = base_index {
            in_patch[i] = true;
        }
        match base_index {
            Some(i) => {
                path.push(format!("[{}]", k.unwrap_or_default()));
                let merged = merge_value(&b[i], item, "", path, conflicts);
                check_item(field, &b[i], item, &merged, path, conflicts);
                path.pop();
                patch_items.push((Some(i), merged));
            }
            None => patch_items.push((None, item.clone())),
        }
    }
    let server_only: Vec<usize> = (0..b.len()).filter(|&i| !in_patch[i]).collect();

    let mut out = Vec::with_capacity(server_only.len() + patch_items.len());
    let mut s = server_only.into_iter().peekable();
    let mut q = patch_items.into_iter().peekable();
    loop {
        match (s.peek(), q.peek()) {
            (Some(&si), Some((Some(qi), _))) if si < *qi => {
                out.push(b[si].clone());
                s.next();
            }
            (_, Some(_)) => {
                if let Some((_, node)) = q.next() {
                    out.push(node);
                }
            }
            (Some(&si), None) => {
                out.push(b[si].clone());
                s.next();
            }
            (None, None) => break,
        }
    }
    out
}

/// Checks one merged item of an `env` or `volumes` list.
fn check_item(
    field: &str,
    base: &Node,
    patch: &Node,
    merged: &Node,
    path: &[String],
    conflicts: &mut Vec<Conflict>,
) {
    let has = |n: &Node, k: &str| n.get(k).is_some_and(|v| !v.is_zero());
    match field {
        "env" if has(merged, "value") && has(merged, "valueFrom") => {
            let (from_base, from_patch) = if has(base, "valueFrom") {
                ("valueFrom", "value")
            } else {
                ("value", "valueFrom")
            };
            conflicts.push(Conflict {
                path: path_string(path),
                message: format!(
                    "the merged env var has both `value` and `valueFrom` (`{from_base}` from the base, `{from_patch}` from the patch)"
                ),
                base: base.pos,
                patch: patch.pos,
            });
        }
        "volumes" => {
            let sources = |n: &Node| -> Vec<String> {
                n.as_map()
                    .map(|m| {
                        m.keys()
                            .filter(|k| *k != "name")
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let merged_sources = sources(merged);
            if merged_sources.len() > 1 {
                conflicts.push(Conflict {
                    path: path_string(path),
                    message: format!(
                        "the merged volume has {} sources ({}); a volume takes exactly one",
                        merged_sources.len(),
                        merged_sources.join(", ")
                    ),
                    base: base.pos,
                    patch: patch.pos,
                });
            }
        }
        _ => {}
    }
}

fn check_handlers(
    b: &Map,
    p: &Map,
    merged: &Map,
    path: &[String],
    base_pos: Pos,
    patch_pos: Pos,
    conflicts: &mut Vec<Conflict>,
) {
    let handlers: Vec<&str> = PROBE_HANDLERS
        .iter()
        .copied()
        .filter(|h| merged.contains_key(h))
        .collect();
    if handlers.len() > 1 {
        let from = |m: &Map| {
            PROBE_HANDLERS
                .iter()
                .copied()
                .filter(|h| m.contains_key(h))
                .collect::<Vec<_>>()
                .join(", ")
        };
        conflicts.push(Conflict {
            path: path_string(path),
            message: format!(
                "the merged probe has {} handlers ({} from the base, {} from the patch); a probe takes exactly one",
                handlers.len(),
                from(b),
                from(p)
            ),
            base: base_pos,
            patch: patch_pos,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::emit::to_json_string;
    use crate::yaml::parse::parse_stream;

    fn node(text: &str) -> Node {
        parse_stream(text, 0).unwrap().remove(0).root
    }

    fn merged(base: &str, patch: &str) -> String {
        let mut conflicts = Vec::new();
        let out = merge(&node(base), &node(patch), &mut conflicts);
        assert!(conflicts.is_empty(), "{conflicts:?}");
        to_json_string(&out)
    }

    fn names(base: &str, patch: &str, field: &str) -> Vec<String> {
        let json = merged(&format!("{field}: {base}"), &format!("{field}: {patch}"));
        let out = node(&json);
        out.get(field)
            .unwrap()
            .as_seq()
            .unwrap()
            .iter()
            .map(|n| {
                let key = merge_key(field).unwrap();
                let mut s = n.get(key).unwrap().scalar_text().unwrap();
                if let Some(v) = n.get("value").and_then(Node::as_str) {
                    s = format!("{s}={v}");
                }
                s
            })
            .collect()
    }

    /// The order of merged keyed lists.
    #[test]
    fn keyed_list_order() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "[{name: ENV1, value: a}, {name: ENV2, value: b}]",
                "[{name: ENV1, value: x}, {name: ENV3, value: c}]",
                &["ENV1=x", "ENV3=c", "ENV2=b"],
            ),
            (
                "[{name: A}, {name: B}, {name: C}]",
                "[{name: B, value: x}, {name: D}]",
                &["A", "B=x", "D", "C"],
            ),
            ("[{name: A}, {name: B}]", "[{name: Z}]", &["Z", "A", "B"]),
            (
                "[{name: A}, {name: B}, {name: C}]",
                "[{name: C, value: c}, {name: A, value: a}]",
                &["B", "C=c", "A=a"],
            ),
        ];
        for (base, patch, want) in cases {
            assert_eq!(names(base, patch, "env"), *want, "{base} + {patch}");
        }
        assert_eq!(
            names(
                "[{name: model-volume}]",
                "[{name: cache-volume}]",
                "volumes"
            ),
            ["cache-volume", "model-volume"]
        );
    }

    /// Env variables merge by name, in place (SEMANTICS.md#merging).
    #[test]
    fn env_values_merge_in_place() {
        assert_eq!(
            names(
                "[{name: KV_CACHE_SIZE, value: 16GB}, {name: DECODE_BATCH_SIZE, value: \"32\"}]",
                "[{name: DECODE_BATCH_SIZE, value: \"64\"}, {name: MAX_TOKENS, value: \"2048\"}]",
                "env"
            ),
            [
                "KV_CACHE_SIZE=16GB",
                "DECODE_BATCH_SIZE=64",
                "MAX_TOKENS=2048"
            ]
        );
    }

    /// Ports merge by containerPort, mounts by mountPath (SEMANTICS.md#merging).
    #[test]
    fn ports_and_mounts_use_their_keys() {
        assert_eq!(
            merged(
                "ports: [{containerPort: 8080, name: http1, protocol: TCP}]",
                "ports: [{containerPort: 9000, name: metrics}, {containerPort: 8080, name: http}]"
            ),
            r#"{"ports":[{"containerPort":9000,"name":"metrics"},{"containerPort":8080,"name":"http","protocol":"TCP"}]}"#
        );
        assert_eq!(
            merged(
                "volumeMounts: [{name: dshm, mountPath: /dev/shm}]",
                "volumeMounts: [{name: cache, mountPath: /dev/shm}, {name: extra, mountPath: /x, readOnly: true}]"
            ),
            r#"{"volumeMounts":[{"name":"cache","mountPath":"/dev/shm"},{"name":"extra","mountPath":"/x","readOnly":true}]}"#
        );
    }

    /// Maps, scalars and the zero-value rules.
    #[test]
    fn maps_scalars_and_replaced_lists() {
        assert_eq!(
            merged(
                "{minReplicas: 1, maxReplicas: 3}",
                "{minReplicas: 2, maxReplicas: 10}"
            ),
            r#"{"minReplicas":2,"maxReplicas":10}"#
        );
        assert_eq!(
            merged("{minReplicas: 1, maxReplicas: 3}", "{maxReplicas: 5}"),
            r#"{"minReplicas":1,"maxReplicas":5}"#
        );
        assert_eq!(
            merged(
                "nodeSelector: {gpu: \"true\", zone: us-west-1a}\ntolerations: [{key: a}]",
                "nodeSelector: {zone: us-west-1b, type: inference}\ntolerations: [{key: b}]"
            ),
            r#"{"nodeSelector":{"gpu":"true","zone":"us-west-1b","type":"inference"},"tolerations":[{"key":"b"}]}"#
        );
        assert_eq!(
            merged(
                "resources: {requests: {cpu: \"10\", memory: 30Gi, nvidia.com/gpu: \"1\"}, limits: {cpu: \"10\", memory: 30Gi, nvidia.com/gpu: \"1\"}}",
                "resources: {limits: {nvidia.com/gpu: \"2\"}}"
            ),
            r#"{"resources":{"requests":{"cpu":"10","memory":"30Gi","nvidia.com/gpu":"1"},"limits":{"cpu":"10","memory":"30Gi","nvidia.com/gpu":"2"}}}"#
        );
        // Zero values Go omits keep the base; pointer fields send their zero.
        assert_eq!(
            merged(
                "{maxReplicas: 3, hostNetwork: true, image: a, minReplicas: 1}",
                "{maxReplicas: 0, hostNetwork: false, image: \"\", minReplicas: 0}"
            ),
            r#"{"maxReplicas":3,"hostNetwork":true,"image":"a","minReplicas":0}"#
        );
        // Empty lists and maps can't clear the base (SEMANTICS.md#merging).
        assert_eq!(
            merged(
                "{args: [--a], containers: [{name: c}], labels: {a: b}}",
                "{args: [], containers: [], labels: {}}"
            ),
            r#"{"args":["--a"],"containers":[{"name":"c"}],"labels":{"a":"b"}}"#
        );
        // args and command are replaced whole (SEMANTICS.md#merging).
        assert_eq!(
            merged(
                "{args: [--arg1, runtime]}",
                "{args: [--arg1, isvc, --arg2, new]}"
            ),
            r#"{"args":["--arg1","isvc","--arg2","new"]}"#
        );
    }

    /// Containers merge by name, recursively (SEMANTICS.md#merging).
    #[test]
    fn containers_merge_recursively() {
        assert_eq!(
            merged(
                "containers: [{name: ome-container, image: runtime:v1, env: [{name: ENV1, value: runtime-value}, {name: ENV2, value: runtime-value2}]}, {name: sidecar, image: s}]",
                "containers: [{name: ome-container, image: isvc:v2, env: [{name: ENV1, value: isvc-value}, {name: ENV3, value: isvc-value3}]}]"
            ),
            r#"{"containers":[{"name":"ome-container","image":"isvc:v2","env":[{"name":"ENV1","value":"isvc-value"},{"name":"ENV3","value":"isvc-value3"},{"name":"ENV2","value":"runtime-value2"}]},{"name":"sidecar","image":"s"}]}"#
        );
    }

    /// Merges the API server would reject (SEMANTICS.md#choice-invalid-merges).
    #[test]
    fn invalid_merges_are_conflicts() {
        let cases = [
            (
                "env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]",
                "env: [{name: A, value: x}]",
                "env[A]",
                "both `value` and `valueFrom`",
            ),
            (
                "readinessProbe: {httpGet: {path: /h, port: 8080}, timeoutSeconds: 200}",
                "readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 10}",
                "readinessProbe",
                "2 handlers (httpGet from the base, tcpSocket from the patch)",
            ),
            (
                "volumes: [{name: models, hostPath: {path: /m}}]",
                "volumes: [{name: models, persistentVolumeClaim: {claimName: c}}]",
                "volumes[models]",
                "2 sources (hostPath, persistentVolumeClaim)",
            ),
        ];
        for (base, patch, path, message) in cases {
            let mut conflicts = Vec::new();
            merge(&node(base), &node(patch), &mut conflicts);
            assert_eq!(conflicts.len(), 1, "{base} + {patch}");
            assert_eq!(conflicts[0].path, path);
            assert!(
                conflicts[0].message.contains(message),
                "{}",
                conflicts[0].message
            );
            assert_eq!(conflicts[0].base.line, 1);
        }
        // The same source on both sides merges cleanly (T9).
        assert_eq!(
            merged(
                "volumes: [{name: dshm, emptyDir: {medium: Memory}}]",
                "volumes: [{name: dshm, emptyDir: {sizeLimit: 1Gi}}]"
            ),
            r#"{"volumes":[{"name":"dshm","emptyDir":{"medium":"Memory","sizeLimit":"1Gi"}}]}"#
        );
    }

    /// Properties of the merge over generated runtime and InferenceService components
    /// (SEMANTICS.md#merging): what the InferenceService sets wins, and what only the runtime
    /// sets survives.
    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        fn scalar() -> impl Strategy<Value = Node> {
            prop_oneof![
                Just(Node::made(Value::Null)),
                any::<bool>().prop_map(Node::bool),
                (-2i64..3).prop_map(Node::int),
                prop::sample::select(vec!["", "x", "y", "0"]).prop_map(Node::str),
            ]
        }

        /// An `env` list: items keyed by distinct names.
        fn env() -> impl Strategy<Value = Node> {
            prop::collection::btree_map(
                prop::sample::select(vec!["A", "B", "C", "D"]),
                prop::sample::select(vec!["", "1", "2"]),
                0..4,
            )
            .prop_map(|items| {
                Node::seq(
                    items
                        .into_iter()
                        .map(|(name, value)| {
                            Node::map(crate::map! {"name" => Node::str(name), "value" => Node::str(value)})
                        })
                        .collect(),
                )
            })
        }

        /// A component-like tree: scalars, nested maps, a keyed `env` and a plain `args`.
        fn tree() -> impl Strategy<Value = Node> {
            let leaf = scalar();
            leaf.prop_recursive(3, 24, 4, |inner| {
                prop::collection::btree_map(
                    prop::sample::select(vec!["a", "b", "c", "size", "disabled", "env", "args"]),
                    inner,
                    0..5,
                )
                .prop_flat_map(|entries| {
                    let n = entries.len();
                    (
                        Just(entries),
                        env(),
                        prop::collection::vec(scalar(), 0..3),
                        0..=n,
                    )
                })
                .prop_map(|(entries, env, args, _)| {
                    let mut m = Map::new();
                    for (k, v) in entries {
                        let v = match k {
                            "env" => env.clone(),
                            "args" => Node::seq(args.clone()),
                            _ => v,
                        };
                        m.insert(k, v);
                    }
                    Node::map(m)
                })
            })
        }

        /// The same values, positions aside.
        fn same(a: &Node, b: &Node) -> bool {
            match (&a.value, &b.value) {
                (Value::Seq(x), Value::Seq(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
                }
                (Value::Map(x), Value::Map(y)) => {
                    x.len() == y.len()
                        && x.iter()
                            .zip(y.iter())
                            .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
                }
                (x, y) => x == y,
            }
        }

        fn item<'a>(list: &'a Node, name: &str) -> Option<&'a Node> {
            list.as_seq()?
                .iter()
                .find(|i| i.get("name").and_then(Node::as_str) == Some(name))
        }

        /// Every value `patch` sets (one Go would send) is in `merged`.
        fn patch_wins(
            base: Option<&Node>,
            patch: &Node,
            merged: &Node,
            field: &str,
        ) -> Result<(), String> {
            if omitted(field, patch) {
                return Ok(());
            }
            match (&patch.value, base.map(|b| &b.value)) {
                (Value::Map(p), Some(Value::Map(_))) => {
                    for (k, pv) in p.iter() {
                        if omitted(k, pv) {
                            continue;
                        }
                        let mv = merged.get(k).ok_or(format!("{k} is missing"))?;
                        patch_wins(base.and_then(|b| b.get(k)), pv, mv, k)?;
                    }
                    Ok(())
                }
                (Value::Seq(p), Some(Value::Seq(_))) if merge_key(field).is_some() => {
                    for pi in p {
                        let name = pi.get("name").and_then(Node::as_str).unwrap_or_default();
                        let mi = item(merged, name).ok_or(format!("{field}[{name}] is missing"))?;
                        patch_wins(base.and_then(|b| item(b, name)), pi, mi, "")?;
                    }
                    Ok(())
                }
                _ if same(patch, merged) => Ok(()),
                _ => Err(format!("{field}: {patch:?} became {merged:?}")),
            }
        }

        /// Every value only `base` sets is in `merged`, unchanged.
        fn base_survives(
            base: &Node,
            patch: Option<&Node>,
            merged: &Node,
            field: &str,
        ) -> Result<(), String> {
            let Some(patch) = patch.filter(|p| !omitted(field, p)) else {
                return if same(base, merged) {
                    Ok(())
                } else {
                    Err(format!("{field}: {base:?} became {merged:?}"))
                };
            };
            match (&base.value, &patch.value) {
                (Value::Map(b), Value::Map(_)) => {
                    for (k, bv) in b.iter() {
                        let mv = merged.get(k).ok_or(format!("{k} is missing"))?;
                        base_survives(bv, patch.get(k), mv, k)?;
                    }
                    Ok(())
                }
                (Value::Seq(b), Value::Seq(_)) if merge_key(field).is_some() => {
                    for bi in b {
                        let name = bi.get("name").and_then(Node::as_str).unwrap_or_default();
                        let mi = item(merged, name).ok_or(format!("{field}[{name}] is missing"))?;
                        base_survives(bi, item(patch, name), mi, "")?;
                    }
                    Ok(())
                }
                // A scalar or a plain list the patch sets replaces the base's.
                _ => Ok(()),
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            #[test]
            fn the_inference_service_wins_on_every_field_it_sets(base in tree(), patch in tree()) {
                let merged = merge(&base, &patch, &mut Vec::new());
                prop_assert_eq!(patch_wins(Some(&base), &patch, &merged, ""), Ok(()));
            }

            #[test]
            fn runtime_only_fields_survive(base in tree(), patch in tree()) {
                let merged = merge(&base, &patch, &mut Vec::new());
                prop_assert_eq!(base_survives(&base, Some(&patch), &merged, ""), Ok(()));
            }
        }
    }
}
