//! A runtime spec as OME's controller serialises it, byte for byte: `json.Marshal` of the Go
//! `ServingRuntimeSpec`, the bytes OME stores in a revision's `data` and hashes for its name
//! (SEMANTICS.md#revision-hashes).
//!
//! The rules are Go's: fields in declaration order (an embedded struct's in its place);
//! an `omitempty` field left out when it is a nil pointer, an empty slice or map, `""`, `0`
//! or `false` (a struct is never left out); other fields always written, `null` or their zero
//! value when unset; map keys sorted; quantities in canonical form; `<`, `>`, `&`, U+2028 and
//! U+2029 escaped. The stored object is what the API server keeps, so the CRD's schema
//! defaults are filled in first, and fields the Go types don't have are dropped. The field
//! table is `gotypes`.

use super::gotypes::{self, Default, I, O};
use crate::go::encode::write_go_json;
use crate::k8s::quantity::Quantity;
use crate::yaml::{Map, Node, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A runtime spec in OME's stored form.
#[derive(Clone, Debug)]
pub(crate) struct Canonical {
    /// The JSON bytes OME writes and hashes.
    pub(crate) json: Vec<u8>,
    /// The same spec as a tree in Go's field order, without the zero values Go always writes
    /// (`"containers":null`, `"name":""`, `"resources":{}`): what a revision's `data` holds
    /// when ome-render writes one. It reads back to the same bytes.
    pub(crate) data: Node,
    /// The first field the table cannot write as Go does (a type it doesn't describe, or a
    /// value of the wrong type); the hash is then ome-render's own, not OME's.
    pub(crate) opaque: Option<String>,
}

impl Canonical {
    /// The full SHA-256 of the JSON, in hex.
    pub(crate) fn sha256(&self) -> String {
        hex(&Sha256::digest(&self.json))
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        s.push(char::from(b"0123456789abcdef"[usize::from(b & 0x0f)]));
    }
    s
}

/// Serialises a runtime `spec` (a map; anything else is an empty spec).
pub(crate) fn canonical(spec: &Node) -> Canonical {
    let mut ctx = Ctx::default();
    let empty = Node::map(Map::new());
    let spec = if spec.as_map().is_some() {
        spec
    } else {
        &empty
    };
    let (full, data) = encode_struct("ServingRuntimeSpec", spec, &mut ctx);
    let mut json = Vec::with_capacity(2048);
    write_go_json(&full, &mut json);
    Canonical {
        json,
        data,
        opaque: ctx.opaque,
    }
}

/// A component spec (`type_name`: `EngineSpec`, `DecoderSpec` or `RouterSpec`) as Go's
/// `json.Marshal` writes the typed value decoded from a manifest: fields in declaration
/// order, `omitempty` fields left out when empty, other fields written (`resources: {}`),
/// quantities canonical, fields the Go types lack dropped, no CRD defaults
/// (SEMANTICS.md#components).
pub(crate) fn go_value(type_name: &str, node: &Node) -> Node {
    let mut ctx = Ctx {
        as_decoded: true,
        ..Ctx::default()
    };
    encode_struct(type_name, node, &mut ctx).0
}

/// `spec` (a runtime spec) with its keys in Go's order, values as written: each struct's
/// fields in declaration order (an embedded struct's in its place), then any field the table
/// does not know, by name; a map's keys by name, as Go writes them. Nothing is added,
/// dropped or rewritten. Two specs of equal content get the same order whatever order they
/// were written in, so a pinned InferenceService renders from its revision the bytes it
/// renders from the live runtime (SEMANTICS.md#pins).
pub(crate) fn go_order(spec: &Node) -> Node {
    into_go_order(spec.clone())
}

/// [`go_order`] of a spec the caller gives up: its nodes are moved into place, not copied.
pub(crate) fn into_go_order(mut spec: Node) -> Node {
    in_order(Ty::Struct("ServingRuntimeSpec"), &mut spec);
    spec
}

/// Puts `n`'s keys in Go's order for type `t`, in place.
fn in_order(mut t: Ty<'_>, n: &mut Node) {
    loop {
        t = match (t, &n.value) {
            (Ty::Ptr(inner), _) => ty(inner),
            // A value the table does not describe: keys by name, all the way down.
            (Ty::Unknown, Value::Map(_)) => Ty::Map("?"),
            (Ty::Unknown, Value::Seq(_)) => Ty::Slice("?"),
            _ => break,
        };
    }
    match (t, &mut n.value) {
        (Ty::Slice(inner), Value::Seq(items)) => {
            let it = ty(inner);
            for item in items {
                in_order(it, item);
            }
        }
        (Ty::Map(inner), Value::Map(m)) => {
            let it = ty(inner);
            let mut entries: Vec<_> = std::mem::take(m).into_iter().collect();
            for (_, v) in &mut entries {
                in_order(it, v);
            }
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            *m = Map::from_unique(entries);
        }
        (Ty::Struct(name), Value::Map(m)) => *m = struct_in_order(name, std::mem::take(m)),
        _ => {}
    }
}

/// A struct's entries: its fields in declaration order (an embedded struct's in its place,
/// the first of two fields of one name), then the keys the table does not know, by name. A
/// key written twice keeps its first value when the struct has the field.
fn struct_in_order(name: &str, m: Map) -> Map {
    let places = struct_places(name);
    let mut known = Vec::with_capacity(m.len());
    let mut rest = Vec::new();
    for (k, mut v) in m {
        match places.and_then(|p| p.get(k.as_str())) {
            Some(&(place, type_name)) => {
                if known.iter().all(|(p, _, _): &(usize, _, Node)| *p != place) {
                    in_order(ty(type_name), &mut v);
                    known.push((place, k, v));
                }
            }
            None => {
                in_order(Ty::Unknown, &mut v);
                rest.push((k, v));
            }
        }
    }
    known.sort_by_key(|(place, _, _)| *place);
    rest.sort_by(|a, b| a.0.cmp(&b.0));
    let mut entries = Vec::with_capacity(known.len() + rest.len());
    entries.extend(known.into_iter().map(|(_, k, v)| (k, v)));
    entries.extend(rest);
    Map::from_unique(entries)
}

/// A struct's fields by JSON name: each one's place in Go's order and its type.
type Places = HashMap<&'static str, (usize, &'static str)>;

/// Each field of struct `name` by its JSON name: its place in the order Go writes the fields
/// (embedded structs' fields at theirs) and its type. Made once for every struct of the table.
fn struct_places(name: &str) -> Option<&'static Places> {
    static PLACES: OnceLock<HashMap<&'static str, Places>> = OnceLock::new();
    PLACES
        .get_or_init(|| {
            gotypes::TYPES
                .iter()
                .map(|&(name, fields)| {
                    let mut places = HashMap::new();
                    flatten(fields, &mut places);
                    (name, places)
                })
                .collect()
        })
        .get(name)
}

fn flatten(fields: &'static [gotypes::Field], places: &mut Places) {
    for &(json, type_name, flags) in fields {
        if flags & I != 0 {
            if let Some(inner) = gotypes::fields(type_name) {
                flatten(inner, places);
            }
        } else {
            let next = places.len();
            places.entry(json).or_insert((next, type_name));
        }
    }
}

#[derive(Default)]
struct Ctx {
    path: Vec<String>,
    opaque: Option<String>,
    /// Leave the CRD's schema defaults out: the value as Go decodes a manifest, not as the
    /// API server stores it.
    as_decoded: bool,
}

impl Ctx {
    fn opaque(&mut self) {
        if self.opaque.is_none() {
            self.opaque = Some(self.path.join("."));
        }
    }
}

/// A Go type, as the table spells it.
#[derive(Clone, Copy)]
enum Ty<'a> {
    Ptr(&'a str),
    Slice(&'a str),
    Map(&'a str),
    Str,
    Int,
    Bool,
    Quantity,
    IntOrString,
    Unknown,
    Struct(&'a str),
}

fn ty(s: &str) -> Ty<'_> {
    if let Some(rest) = s.strip_prefix('*') {
        Ty::Ptr(rest)
    } else if let Some(rest) = s.strip_prefix("[]") {
        Ty::Slice(rest)
    } else if let Some(rest) = s.strip_prefix("{}") {
        Ty::Map(rest)
    } else {
        match s {
            "s" => Ty::Str,
            "i" => Ty::Int,
            "b" => Ty::Bool,
            "q" => Ty::Quantity,
            "ios" => Ty::IntOrString,
            "?" => Ty::Unknown,
            name => Ty::Struct(name),
        }
    }
}

/// Whether Go's `omitempty` leaves `node` (absent: `None`) out for type `t`.
fn is_empty(t: Ty<'_>, node: Option<&Node>) -> bool {
    let Some(n) = node else {
        // Structs, quantities and IntOrStrings are structs in Go: never empty.
        return !matches!(t, Ty::Struct(_) | Ty::Quantity | Ty::IntOrString);
    };
    match t {
        Ty::Slice(_) => n.as_seq().is_some_and(<[Node]>::is_empty),
        Ty::Map(_) => n.as_map().is_some_and(Map::is_empty),
        Ty::Str => n.as_str() == Some(""),
        Ty::Int => n.as_i64() == Some(0),
        Ty::Bool => matches!(n.value, Value::Bool(false)),
        _ => false,
    }
}

/// The zero value Go writes for an unset field of type `t` that is always written.
fn zero(t: Ty<'_>, ctx: &mut Ctx) -> Node {
    match t {
        Ty::Ptr(_) | Ty::Slice(_) | Ty::Map(_) | Ty::Unknown => Node::made(Value::Null),
        Ty::Str => Node::str(""),
        Ty::Int | Ty::IntOrString => Node::int(0),
        Ty::Bool => Node::bool(false),
        Ty::Quantity => Node::str("0"),
        Ty::Struct(name) => encode_struct(name, &Node::map(Map::new()), ctx).0,
    }
}

fn default_node(d: Default) -> Node {
    match d {
        Default::Str(s) => Node::str(s),
        Default::Int(i) => Node::int(i),
        Default::Bool(b) => Node::bool(b),
    }
}

/// A struct: (the full form, the compact form).
fn encode_struct(name: &str, node: &Node, ctx: &mut Ctx) -> (Node, Node) {
    let mut full = Map::new();
    let mut compact = Map::new();
    let Some(map) = node.as_map() else {
        ctx.opaque();
        return (node.clone(), node.clone());
    };
    encode_fields(name, map, &mut full, &mut compact, ctx);
    (
        Node::new(Value::Map(full), node.pos),
        Node::new(Value::Map(compact), node.pos),
    )
}

fn encode_fields(name: &str, map: &Map, full: &mut Map, compact: &mut Map, ctx: &mut Ctx) {
    let Some(fields) = gotypes::fields(name) else {
        ctx.opaque();
        return;
    };
    for &(json, type_name, flags) in fields {
        if flags & I != 0 {
            encode_fields(type_name, map, full, compact, ctx);
            continue;
        }
        let t = ty(type_name);
        let defaulted;
        let mut present = map.get(json).filter(|n| !n.is_null());
        if present.is_none()
            && !ctx.as_decoded
            && let Some(d) = gotypes::default_of(name, json)
        {
            defaulted = default_node(d);
            present = Some(&defaulted);
        }
        if flags & O != 0 && is_empty(t, present) {
            continue;
        }
        ctx.path.push(json.to_string());
        match present {
            Some(n) => {
                let (f, c) = encode(t, n, ctx);
                full.push_unique(json.to_string(), f);
                // A value field at its zero reads back the same when left out.
                let droppable = matches!(t, Ty::Str | Ty::Int | Ty::Bool) && n.is_zero()
                    || matches!(t, Ty::Struct(_)) && c.as_map().is_some_and(Map::is_empty);
                if !droppable {
                    compact.push_unique(json.to_string(), c);
                }
            }
            None => {
                let z = zero(t, ctx);
                full.push_unique(json.to_string(), z);
            }
        }
        ctx.path.pop();
    }
}

/// A present value of type `t`: (the full form, the compact form).
fn encode(t: Ty<'_>, n: &Node, ctx: &mut Ctx) -> (Node, Node) {
    match t {
        Ty::Ptr(inner) => encode(ty(inner), n, ctx),
        Ty::Slice(inner) => {
            let Some(items) = n.as_seq() else {
                ctx.opaque();
                return (n.clone(), n.clone());
            };
            let it = ty(inner);
            let (full, compact): (Vec<Node>, Vec<Node>) = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    ctx.path.push(format!("[{i}]"));
                    let out = if item.is_null() {
                        let z = zero(it, ctx);
                        (z.clone(), z)
                    } else {
                        encode(it, item, ctx)
                    };
                    ctx.path.pop();
                    out
                })
                .unzip();
            (
                Node::new(Value::Seq(full), n.pos),
                Node::new(Value::Seq(compact), n.pos),
            )
        }
        Ty::Map(inner) => {
            let Some(m) = n.as_map() else {
                ctx.opaque();
                return (n.clone(), n.clone());
            };
            let it = ty(inner);
            let mut keys: Vec<(&str, &Node)> = m.iter().collect();
            keys.sort_by(|a, b| a.0.cmp(b.0));
            let mut full = Map::with_capacity(keys.len());
            let mut compact = Map::with_capacity(keys.len());
            for (k, v) in keys {
                ctx.path.push(k.to_string());
                let (f, c) = if v.is_null() {
                    let z = match it {
                        Ty::Ptr(_) => Node::made(Value::Null),
                        other => zero(other, ctx),
                    };
                    (z.clone(), z)
                } else {
                    encode(it, v, ctx)
                };
                full.push_unique(k.to_string(), f);
                compact.push_unique(k.to_string(), c);
                ctx.path.pop();
            }
            (
                Node::new(Value::Map(full), n.pos),
                Node::new(Value::Map(compact), n.pos),
            )
        }
        Ty::Str => {
            if n.as_str().is_none() {
                ctx.opaque();
            }
            same(n)
        }
        Ty::Int => {
            if n.as_i64().is_none() {
                ctx.opaque();
            }
            same(n)
        }
        Ty::Bool => {
            if !matches!(n.value, Value::Bool(_)) {
                ctx.opaque();
            }
            same(n)
        }
        Ty::Quantity => match n.scalar_text().as_deref().and_then(canonical_quantity) {
            Some(q) => {
                let q = Node::new(Value::Str(q), n.pos);
                (q.clone(), q)
            }
            None => {
                ctx.opaque();
                same(n)
            }
        },
        Ty::IntOrString => {
            if !matches!(n.value, Value::Int(_) | Value::Str(_)) {
                ctx.opaque();
            }
            same(n)
        }
        Ty::Unknown => {
            ctx.opaque();
            same(n)
        }
        Ty::Struct(name) => encode_struct(name, n, ctx),
    }
}

fn same(n: &Node) -> (Node, Node) {
    (n.clone(), n.clone())
}

/// A quantity's JSON text as OME's controller writes it (Go's `String()`), or `None` when
/// ome-render does not reproduce it: not a quantity, more than nine fraction digits or
/// eighteen digits in all (Go's arbitrary-precision path, whose rounding changes the hash).
fn canonical_quantity(text: &str) -> Option<String> {
    let unsigned = text.trim_start_matches(['+', '-']);
    let number = &unsigned[..unsigned
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(unsigned.len())];
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if fraction.len() > 9 || whole.len() + fraction.len() > 18 {
        return None;
    }
    Quantity::parse(text).ok()?.canonical()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::parse_stream;

    #[test]
    fn quantities_as_the_controller_writes_them() {
        for (input, want) in [
            ("10", "10"),
            ("30Gi", "30Gi"),
            ("1000m", "1"),
            ("0.5", "500m"),
            ("1024Mi", "1Gi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Ki", "512"),
            ("1000", "1k"),
            ("1000e3", "1e6"),
            ("0Gi", "0"),
            ("-1000m", "-1"),
            ("2500M", "2500M"),
            ("20000M", "20G"),
        ] {
            assert_eq!(canonical_quantity(input).as_deref(), Some(want), "{input}");
        }
        for opaque in ["", "1.2.3", "abc", "1Zi", "1.0000000001", "1e"] {
            assert_eq!(canonical_quantity(opaque), None, "{opaque}");
        }
    }

    fn spec(yaml: &str) -> Node {
        parse_stream(yaml, 0).expect("valid YAML").remove(0).root
    }

    /// The docs' ServingRuntime `sglang-llama-3-2-3b` (also `examples/llama-demo`).
    pub(crate) const SEED_SPEC: &str = r#"
supportedModelFormats:
  - modelFormat:
      name: safetensors
      version: "1.0.0"
    modelFramework:
      name: transformers
      version: "4.45.0.dev0"
    modelArchitecture: LlamaForCausalLM
    autoSelect: true
    priority: 1
modelSizeRange:
  min: 2B
  max: 4B
engineConfig:
  tolerations:
    - key: nvidia.com/gpu
      operator: Exists
      effect: NoSchedule
  volumes:
    - name: dshm
      emptyDir:
        medium: Memory
  runner:
    name: ome-container
    image: docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64
    command:
      - python3
      - -m
      - sglang.launch_server
    args:
      - --host=0.0.0.0
      - --port=8080
      - --model-path=$(MODEL_PATH)
      - "--served-model-name={{.Name}}"
      - --tp-size=1
      - --mem-frac=0.9
    ports:
      - containerPort: 8080
        name: http1
        protocol: TCP
    volumeMounts:
      - name: dshm
        mountPath: /dev/shm
    resources:
      requests:
        cpu: "10"
        memory: 30Gi
        nvidia.com/gpu: "1"
      limits:
        cpu: "10"
        memory: 30Gi
        nvidia.com/gpu: "1"
    readinessProbe:
      httpGet:
        path: /health_generate
        port: 8080
      periodSeconds: 60
      timeoutSeconds: 200
    startupProbe:
      httpGet:
        path: /health_generate
        port: 8080
      initialDelaySeconds: 60
      periodSeconds: 6
      timeoutSeconds: 30
      failureThreshold: 150
"#;

    /// The bytes OME stores for it (research notes, verified against the docs' hashes).
    const SEED_JSON: &str = r#"{"supportedModelFormats":[{"name":"","modelFormat":{"name":"safetensors","version":"1.0.0","operator":"Equal","weight":1},"modelFramework":{"name":"transformers","version":"4.45.0.dev0","operator":"Equal","weight":1},"modelArchitecture":"LlamaForCausalLM","autoSelect":true,"priority":1}],"modelSizeRange":{"min":"2B","max":"4B"},"engineConfig":{"volumes":[{"name":"dshm","emptyDir":{"medium":"Memory"}}],"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],"runner":{"name":"ome-container","image":"docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64","command":["python3","-m","sglang.launch_server"],"args":["--host=0.0.0.0","--port=8080","--model-path=$(MODEL_PATH)","--served-model-name={{.Name}}","--tp-size=1","--mem-frac=0.9"],"ports":[{"name":"http1","containerPort":8080,"protocol":"TCP"}],"resources":{"limits":{"cpu":"10","memory":"30Gi","nvidia.com/gpu":"1"},"requests":{"cpu":"10","memory":"30Gi","nvidia.com/gpu":"1"}},"volumeMounts":[{"name":"dshm","mountPath":"/dev/shm"}],"readinessProbe":{"httpGet":{"path":"/health_generate","port":8080},"timeoutSeconds":200,"periodSeconds":60},"startupProbe":{"httpGet":{"path":"/health_generate","port":8080},"initialDelaySeconds":60,"timeoutSeconds":30,"periodSeconds":6,"failureThreshold":150}}},"containers":null}"#;

    fn short(c: &Canonical) -> String {
        c.sha256()[..8].to_string()
    }

    /// OME's docs print the revision hashes 590753e8 (`--mem-frac=0.9`) and af9539ac
    /// (`--mem-frac=0.85`) for this runtime.
    #[test]
    fn the_docs_hashes() {
        let c = canonical(&spec(SEED_SPEC));
        assert_eq!(String::from_utf8(c.json.clone()).unwrap(), SEED_JSON);
        assert_eq!(c.opaque, None);
        assert_eq!(short(&c), "590753e8");
        let edited = SEED_SPEC.replace("--mem-frac=0.9", "--mem-frac=0.85");
        assert_eq!(short(&canonical(&spec(&edited))), "af9539ac");
    }

    #[test]
    fn defaults_and_zero_values_matter() {
        // Without the CRD defaults on modelFormat/modelFramework the hash is another.
        let no_defaults = SEED_JSON.replace(r#","operator":"Equal","weight":1"#, "");
        assert_eq!(
            &hex(&Sha256::digest(no_defaults.as_bytes()))[..8],
            "c21f4f6f"
        );
        // Writing the defaults explicitly changes nothing.
        let explicit = SEED_SPEC.replace(
            "      version: \"1.0.0\"\n",
            "      version: \"1.0.0\"\n      operator: Equal\n      weight: 1\n",
        );
        assert_eq!(short(&canonical(&spec(&explicit))), "590753e8");
        // Key order and quantity spelling in the input don't matter (R17).
        let reordered = SEED_SPEC.replace(
            "        cpu: \"10\"\n        memory: 30Gi\n",
            "        memory: 30720Mi\n        cpu: 10\n",
        );
        assert_eq!(short(&canonical(&spec(&reordered))), "590753e8");
        // disabled: true is written only when set (R17); an image change is a new hash.
        let disabled = format!("disabled: true\n{SEED_SPEC}");
        assert_ne!(short(&canonical(&spec(&disabled))), "590753e8");
        let disabled_false = format!("disabled: false\n{SEED_SPEC}");
        assert_ne!(
            short(&canonical(&spec(&disabled_false))),
            "590753e8",
            "a pointer set to false is written"
        );
        let image = SEED_SPEC.replace("v0.5.5.post3", "v0.5.6");
        assert_ne!(short(&canonical(&spec(&image))), "590753e8");
        // Fields Go's types don't have are dropped, as the API server prunes them.
        let unknown = SEED_SPEC.replace("modelSizeRange:", "notAField: 1\nmodelSizeRange:");
        assert_eq!(short(&canonical(&spec(&unknown))), "590753e8");
    }

    #[test]
    fn the_compact_form_reads_back_to_the_same_bytes() {
        let c = canonical(&spec(SEED_SPEC));
        let again = canonical(&c.data);
        assert_eq!(again.json, c.json);
        assert!(c.data.get("containers").is_none());
        let entry = &c
            .data
            .get("supportedModelFormats")
            .unwrap()
            .as_seq()
            .unwrap()[0];
        assert!(entry.get("name").is_none());
        assert_eq!(
            entry
                .at(&["modelFormat", "operator"])
                .and_then(Node::as_str),
            Some("Equal")
        );
    }

    #[test]
    fn types_outside_the_table_make_the_hash_opaque() {
        let c = canonical(&spec("engineConfig:\n  lifecycle: {updateStrategy: {}}\n"));
        assert_eq!(c.opaque.as_deref(), Some("engineConfig.lifecycle"));
        let c = canonical(&spec("engineConfig:\n  minReplicas: one\n"));
        assert_eq!(c.opaque.as_deref(), Some("engineConfig.minReplicas"));
    }

    /// The keys of `node`'s map, in order.
    fn keys(node: &Node) -> Vec<&str> {
        node.as_map()
            .expect("a map")
            .iter()
            .map(|(k, _)| k)
            .collect()
    }

    #[test]
    fn go_order_puts_fields_in_declaration_order_and_the_rest_by_name() {
        let ordered = go_order(&spec(
            r#"
zzUnknown: 1
engineConfig:
  runner: {image: x}
  extra: true
  labels: {b: "1", a: "2"}
  minReplicas: 1
  containers: [{image: i, name: c}]
supportedModelFormats:
  - priority: 1
    name: f
disabled: false
aUnknown: {y: 1, x: {d: 1, c: 2}}
"#,
        ));
        assert_eq!(
            keys(&ordered),
            [
                "supportedModelFormats",
                "disabled",
                "engineConfig",
                "aUnknown",
                "zzUnknown"
            ]
        );
        let engine = ordered.get("engineConfig").unwrap();
        // The embedded OmePodSpec's fields, then ComponentExtensionSpec's, then the rest.
        assert_eq!(
            keys(engine),
            ["containers", "minReplicas", "labels", "runner", "extra"]
        );
        assert_eq!(keys(engine.get("labels").unwrap()), ["a", "b"]);
        let Value::Seq(containers) = &engine.get("containers").unwrap().value else {
            panic!("containers is a list");
        };
        assert_eq!(keys(&containers[0]), ["name", "image"]);
        let unknown = ordered.get("aUnknown").unwrap();
        assert_eq!(keys(unknown), ["x", "y"]);
        assert_eq!(keys(unknown.get("x").unwrap()), ["c", "d"]);
        let Value::Seq(formats) = &ordered.get("supportedModelFormats").unwrap().value else {
            panic!("supportedModelFormats is a list");
        };
        assert_eq!(keys(&formats[0]), ["name", "priority"]);
        // Nothing is added, dropped or rewritten, and moving the nodes gives the same.
        assert_eq!(
            ordered.get("disabled").map(|n| &n.value),
            Some(&Value::Bool(false))
        );
        assert!(into_go_order(spec("x: 1\nb: 2")) == go_order(&spec("x: 1\nb: 2")));
    }
}
