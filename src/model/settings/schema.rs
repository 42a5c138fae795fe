//! The keys of `ome-render.yaml`, their types and defaults: one table that the reader takes
//! its known keys from and that `schema/ome-render.schema.json` is generated from
//! (`ome-render settings-schema`; a test fails when the committed file drifts).

/// A setting's type.
pub(crate) enum Ty {
    /// A whole number of at least `min`.
    Int {
        min: i64,
    },
    Bool,
    /// A DNS-1123 label (a namespace's name).
    Label,
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// A list of strings.
    Strings,
    /// A whole number of at least 0, or a percentage (`"50%"`).
    IntOrPercent,
    /// A map of these keys, no other.
    Map(&'static [Field]),
    /// A map whose keys are read elsewhere (the traffic settings).
    Open(&'static [Field]),
    /// A string.
    Str,
    /// A list of maps of these keys, no other.
    List(&'static [Field]),
    /// A map of any keys, each value a map of these keys, no other.
    MapOf(&'static [Field]),
}

/// One key of a settings map.
pub(crate) struct Field {
    pub(crate) name: &'static str,
    pub(crate) ty: Ty,
    /// `null` is allowed (it removes the chart's value).
    pub(crate) nullable: bool,
    /// The default, as JSON, where the chart or ome-render has one.
    pub(crate) default: Option<&'static str>,
    pub(crate) doc: &'static str,
    /// Read for one release, with a warning (the old layout).
    pub(crate) deprecated: bool,
}

const fn field(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field {
        name,
        ty,
        nullable: false,
        default: None,
        doc,
        deprecated: false,
    }
}

const fn nullable(mut f: Field) -> Field {
    f.nullable = true;
    f
}

const fn default(mut f: Field, json: &'static str) -> Field {
    f.default = Some(json);
    f
}

const fn deprecated(mut f: Field) -> Field {
    f.deprecated = true;
    f
}

const MAX_REPLICAS: &[Field] = &[
    default(
        nullable(field(
            "engine",
            Ty::Int { min: 1 },
            "The engine's maxReplicas when it sets none.",
        )),
        "3",
    ),
    default(
        nullable(field(
            "decoder",
            Ty::Int { min: 1 },
            "The decoder's maxReplicas when it sets none.",
        )),
        "3",
    ),
    default(
        nullable(field(
            "router",
            Ty::Int { min: 1 },
            "The router's maxReplicas when it sets none.",
        )),
        "2",
    ),
];

/// `deploy.replicas`.
pub(crate) const REPLICAS: &[Field] = &[
    default(
        nullable(field(
            "defaultMinReplicas",
            Ty::Int { min: 1 },
            "The minReplicas of components that set none.",
        )),
        "1",
    ),
    nullable(field(
        "defaultMaxReplicas",
        Ty::Map(MAX_REPLICAS),
        "The maxReplicas of components that set none, per component.",
    )),
];

const STRATEGY: &[Field] = &[
    nullable(field(
        "type",
        Ty::Enum(&[
            "SurgeThenDrain",
            "RecreatePod",
            "InPlaceIfPossible",
            "InPlaceOnly",
        ]),
        "The update strategy.",
    )),
    nullable(field(
        "maxSurge",
        Ty::IntOrPercent,
        "Extra Instances during a roll (above 0).",
    )),
    nullable(field(
        "maxUnavailable",
        Ty::IntOrPercent,
        "Instances not Ready at once during a roll (above 0).",
    )),
];

const STRATEGIES: &[Field] = &[
    nullable(field("router", Ty::Map(STRATEGY), "The router's.")),
    nullable(field("engine", Ty::Map(STRATEGY), "The engine's.")),
    nullable(field("decoder", Ty::Map(STRATEGY), "The decoder's.")),
];

/// `deploy`: OME's DeployConfig.
pub(crate) const DEPLOY: &[Field] = &[
    default(
        field(
            "defaultDeploymentMode",
            Ty::Enum(&["RawDeployment"]),
            "OME's default deployment mode: RawDeployment alone.",
        ),
        "\"RawDeployment\"",
    ),
    default(
        nullable(field(
            "terminationGracePeriodSeconds",
            Ty::Int { min: 1 },
            "The grace period of pods that set none, in seconds.",
        )),
        "600",
    ),
    nullable(field(
        "replicas",
        Ty::Map(REPLICAS),
        "The replica bounds of components that set none.",
    )),
    nullable(field(
        "minReadySeconds",
        Ty::Int { min: 0 },
        "OMENative components' minReadySeconds (read and checked; not rendered).",
    )),
    nullable(field(
        "updateStrategy",
        Ty::Map(STRATEGIES),
        "OMENative components' update strategy (read and checked; not rendered).",
    )),
];

const BUDGET: &[Field] = &[
    nullable(field(
        "minAvailable",
        Ty::IntOrPercent,
        "Pods that must stay available.",
    )),
    default(
        nullable(field(
            "maxUnavailable",
            Ty::IntOrPercent,
            "Pods that may be unavailable.",
        )),
        "1",
    ),
];

pub(crate) const BUDGETS: &[Field] = &[
    nullable(field(
        "rawDeployment",
        Ty::Map(BUDGET),
        "The PodDisruptionBudget of RawDeployment components that set none; null: no PDB.",
    )),
    nullable(field(
        "omeNative",
        Ty::Map(BUDGET),
        "OMENative's (checked; not rendered).",
    )),
];

/// One gateway of `additionalIngressGateways` and `namespaceIngressGateways`.
const GATEWAY: &[Field] = &[
    nullable(field(
        "omeIngressGateway",
        Ty::Str,
        "The Gateway, namespace/name.",
    )),
    nullable(field(
        "ingressDomain",
        Ty::Str,
        "The domain of the hosts on this Gateway.",
    )),
    nullable(field(
        "class",
        Ty::Str,
        "The endpoint class OME reports (an RFC-1123 label; checked, not rendered).",
    )),
];

const NAMESPACE_GATEWAYS: &[Field] = &[
    field(
        "primary",
        Ty::Map(GATEWAY),
        "The namespace's primary Gateway.",
    ),
    nullable(field(
        "additional",
        Ty::List(GATEWAY),
        "The namespace's additional Gateways; [] removes the cluster's.",
    )),
];

/// OME's `IngressConfig`, in OME's order (`ingress::KEYS`); defaults are the chart's.
const INGRESS: &[Field] = &[
    default(
        field(
            "ingressGateway",
            Ty::Str,
            "The Istio ingress gateway, namespace/name.",
        ),
        "\"istio-system/ingress-gateway\"",
    ),
    default(
        field(
            "ingressService",
            Ty::Str,
            "The ingress gateway's Service host.",
        ),
        "\"istio-ingressgateway.istio-system.svc.cluster.local\"",
    ),
    field(
        "omeIngressGateway",
        Ty::Str,
        "The primary Gateway of HTTPRoutes, namespace/name.",
    ),
    field(
        "omeIngressGatewayClass",
        Ty::Str,
        "The endpoint class OME reports for the primary Gateway (an RFC-1123 label).",
    ),
    default(
        field(
            "ingressDomain",
            Ty::Str,
            "The domain of the services' hosts.",
        ),
        "\"svc.cluster.local\"",
    ),
    default(
        nullable(field(
            "ingressClassName",
            Ty::Str,
            "The Ingress's ingressClassName; null leaves it out.",
        )),
        "\"istio\"",
    ),
    nullable(field(
        "additionalIngressDomains",
        Ty::Strings,
        "More domains the hosts are written for.",
    )),
    default(
        field("domainTemplate", Ty::Str, "The Go template of a host name."),
        "\"{{ .Name }}.{{ .Namespace }}.{{ .IngressDomain }}\"",
    ),
    default(
        field("urlScheme", Ty::Str, "The scheme of the service's URL."),
        "\"http\"",
    ),
    field(
        "pathTemplate",
        Ty::Str,
        "The Go template of a path-based route (needs ingressDomain).",
    ),
    default(
        field(
            "disableIstioVirtualHost",
            Ty::Bool,
            "true: no Istio virtual host.",
        ),
        "false",
    ),
    default(
        field(
            "disableIngressCreation",
            Ty::Bool,
            "false: OME creates ingress and no external Service <isvc>.",
        ),
        "true",
    ),
    default(
        field(
            "enableGatewayAPI",
            Ty::Bool,
            "true: HTTPRoutes instead of an Ingress.",
        ),
        "false",
    ),
    default(
        field(
            "consistentHashHeaders",
            Ty::Strings,
            "The headers consistent hashing routes by.",
        ),
        "[\"x-routing-key\", \"X-SMG-Routing-Key\"]",
    ),
    default(
        field(
            "perISVCSubdomain",
            Ty::Bool,
            "true: one subdomain per InferenceService.",
        ),
        "false",
    ),
    default(
        field(
            "sharedHostPrefix",
            Ty::Str,
            "The prefix of the shared host.",
        ),
        "\"llm\"",
    ),
    field(
        "additionalIngressGateways",
        Ty::List(GATEWAY),
        "More Gateways HTTPRoutes attach to.",
    ),
    default(
        nullable(field(
            "defaultRouteTimeoutSeconds",
            Ty::Int { min: 0 },
            "The routes' request timeout, in seconds; null: none.",
        )),
        "0",
    ),
    field(
        "namespaceIngressGateways",
        Ty::MapOf(NAMESPACE_GATEWAYS),
        "Per namespace, the Gateways of its services.",
    ),
];

const MODEL_AGENT: &[Field] = &[default(
    field(
        "enabled",
        Ty::Bool,
        "true when the cluster runs OME's model agent (the chart's modelAgent.enabled).",
    ),
    "false",
)];

const AUTOSCALING: &[Field] = &[default(
    field(
        "targetUtilizationPercentage",
        Ty::Int { min: 1 },
        "The default HPA's CPU target, in percent.",
    ),
    "80",
)];

/// The keys of `ome-render.yaml`.
pub(crate) const SETTINGS: &[Field] = &[
    field(
        "deploy",
        Ty::Map(DEPLOY),
        "OME's `deploy` (the ConfigMap's data key of that name).",
    ),
    nullable(field(
        "podDisruptionBudget",
        Ty::Map(BUDGETS),
        "OME's `podDisruptionBudget`.",
    )),
    field(
        "ingress",
        Ty::Map(INGRESS),
        "OME's `ingress` (IngressConfig).",
    ),
    default(
        field(
            "acceleratorResources",
            Ty::Strings,
            "OME's `acceleratorResources`: the resource names counted as GPUs.",
        ),
        "[\"nvidia.com/gpu\"]",
    ),
    field(
        "podMonitor",
        Ty::Open(&[]),
        "OME's `podMonitor` (PodMonitorConfig): labels, relabelings and metricRelabelings of OMENative PodMonitors; read and checked, on no rendered PodMonitor.",
    ),
    field(
        "autoscaling",
        Ty::Map(AUTOSCALING),
        "ome-render's own: the default HPA.",
    ),
    field(
        "modelAgent",
        Ty::Map(MODEL_AGENT),
        "The chart's `modelAgent` (no ConfigMap key): whether the cluster runs OME's model agent, which pods of hf://, oci://, vendor:// and local models wait for.",
    ),
    default(
        field(
            "omeNamespace",
            Ty::Label,
            "ome-render's own: OME's namespace, where runtime revisions live.",
        ),
        "\"ome\"",
    ),
    field(
        "apiVersions",
        Ty::Strings,
        "ome-render's own: the non-built-in APIs the cluster serves, GROUP/VERSION or GROUP/VERSION/KIND.",
    ),
    deprecated(nullable(field(
        "terminationGracePeriodSeconds",
        Ty::Int { min: 1 },
        "Deprecated: write deploy.terminationGracePeriodSeconds.",
    ))),
    deprecated(nullable(field(
        "replicas",
        Ty::Map(REPLICAS),
        "Deprecated: write deploy.replicas.",
    ))),
];

/// The names of `fields` a file may write now (the old layout's left out).
pub(crate) fn names(fields: &[Field]) -> Vec<&'static str> {
    fields
        .iter()
        .filter(|f| !f.deprecated)
        .map(|f| f.name)
        .collect()
}

/// The names of the map at `path` beneath `fields` (the fields of a Go struct), or `None`
/// where `path` leads to no map of the table.
pub(crate) fn names_at(fields: &[Field], path: &[&str]) -> Option<Vec<&'static str>> {
    let Some((first, rest)) = path.split_first() else {
        return Some(names(fields));
    };
    match fields.iter().find(|f| f.name == *first).map(|f| &f.ty) {
        Some(Ty::Map(inner)) => names_at(inner, rest),
        _ => None,
    }
}

/// The map of `field`, when it is one.
pub(crate) fn keys_of(fields: &[Field], name: &str) -> Vec<&'static str> {
    match fields.iter().find(|f| f.name == name).map(|f| &f.ty) {
        Some(Ty::Map(inner) | Ty::Open(inner)) => names(inner),
        _ => Vec::new(),
    }
}

/// `schema/ome-render.schema.json`: the JSON Schema (draft 2020-12) of the table.
pub(crate) fn json_schema() -> String {
    let mut out = String::new();
    out.push_str("{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n");
    out.push_str("  \"$id\": \"https://github.com/ome-render/ome-render/blob/main/schema/ome-render.schema.json\",\n");
    out.push_str("  \"title\": \"ome-render.yaml\",\n");
    out.push_str("  \"description\": \"ome-render's settings: OME's keys as in its ConfigMap inferenceservice-config, and ome-render's own (SEMANTICS.md#settings). Generated by `ome-render settings-schema`.\",\n");
    out.push_str("  \"type\": [\"object\", \"null\"],\n");
    map_body(
        &mut out,
        SETTINGS,
        false,
        1,
        &["apiVersion", "kind", "metadata"],
    );
    out.push_str("}\n");
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn quoted(text: &str) -> String {
    let mut bytes = Vec::new();
    crate::yaml::emit::write_json_string(text, &mut bytes);
    String::from_utf8(bytes).unwrap_or_default()
}

/// `properties` and `additionalProperties` of a map, at `level`; `header` keys are allowed
/// with any value.
fn map_body(out: &mut String, fields: &[Field], open: bool, level: usize, header: &[&str]) {
    indent(out, level);
    out.push_str("\"properties\": {\n");
    let count = fields.len() + header.len();
    let mut i = 0;
    for name in header {
        i += 1;
        indent(out, level + 1);
        out.push_str(&format!(
            "{}: {{}}{}\n",
            quoted(name),
            if i < count { "," } else { "" }
        ));
    }
    for f in fields {
        i += 1;
        indent(out, level + 1);
        out.push_str(&format!("{}: {{\n", quoted(f.name)));
        field_body(out, f, level + 2);
        indent(out, level + 1);
        out.push_str(if i < count { "},\n" } else { "}\n" });
    }
    indent(out, level);
    out.push_str("},\n");
    indent(out, level);
    out.push_str(&format!("\"additionalProperties\": {open}\n"));
}

fn field_body(out: &mut String, f: &Field, level: usize) {
    let types = |t: &str| {
        if f.nullable {
            format!("[{}, \"null\"]", quoted(t))
        } else {
            quoted(t)
        }
    };
    let mut lines: Vec<String> = vec![format!("\"description\": {}", quoted(f.doc))];
    if f.deprecated {
        lines.push("\"deprecated\": true".to_string());
    }
    if let Some(d) = f.default {
        lines.push(format!("\"default\": {d}"));
    }
    match &f.ty {
        Ty::Int { min } => {
            lines.push(format!("\"type\": {}", types("integer")));
            lines.push(format!("\"minimum\": {min}"));
        }
        Ty::Bool => lines.push(format!("\"type\": {}", types("boolean"))),
        Ty::Label => {
            lines.push(format!("\"type\": {}", types("string")));
            lines.push("\"pattern\": \"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\"".to_string());
            lines.push("\"maxLength\": 63".to_string());
        }
        Ty::Enum(values) => {
            let mut all: Vec<String> = values.iter().map(|v| quoted(v)).collect();
            if f.nullable {
                all.push("null".to_string());
            }
            lines.push(format!("\"enum\": [{}]", all.join(", ")));
        }
        Ty::Strings => {
            lines.push(format!("\"type\": {}", types("array")));
            lines.push("\"items\": {\"type\": \"string\"}".to_string());
        }
        Ty::IntOrPercent => {
            let mut any = vec![
                "{\"type\": \"integer\", \"minimum\": 0}".to_string(),
                "{\"type\": \"string\", \"pattern\": \"^[0-9]+%$\"}".to_string(),
            ];
            if f.nullable {
                any.push("{\"type\": \"null\"}".to_string());
            }
            lines.push(format!("\"anyOf\": [{}]", any.join(", ")));
        }
        Ty::Str => lines.push(format!("\"type\": {}", types("string"))),
        Ty::Map(inner) | Ty::Open(inner) => {
            lines.push(format!("\"type\": {}", types("object")));
            for line in &lines {
                indent(out, level);
                out.push_str(line);
                out.push_str(",\n");
            }
            map_body(out, inner, matches!(f.ty, Ty::Open(_)), level, &[]);
            return;
        }
        Ty::List(inner) | Ty::MapOf(inner) => {
            let (ty, slot) = match f.ty {
                Ty::List(_) => ("array", "items"),
                _ => ("object", "additionalProperties"),
            };
            lines.push(format!("\"type\": {}", types(ty)));
            for line in &lines {
                indent(out, level);
                out.push_str(line);
                out.push_str(",\n");
            }
            indent(out, level);
            out.push_str(&format!("\"{slot}\": {{\n"));
            indent(out, level + 1);
            out.push_str("\"type\": \"object\",\n");
            map_body(out, inner, false, level + 1, &[]);
            indent(out, level);
            out.push_str("}\n");
            return;
        }
    }
    let n = lines.len();
    for (i, line) in lines.iter().enumerate() {
        indent(out, level);
        out.push_str(line);
        out.push_str(if i + 1 < n { ",\n" } else { "\n" });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed schema is the table's: regenerate it with
    /// `ome-render settings-schema > schema/ome-render.schema.json`.
    #[test]
    fn the_committed_schema_is_generated_from_the_table() {
        let committed = include_str!("../../../schema/ome-render.schema.json");
        assert!(
            committed == json_schema(),
            "schema/ome-render.schema.json drifted from src/model/settings/schema.rs: run `ome-render settings-schema > schema/ome-render.schema.json`"
        );
    }

    #[test]
    fn the_ingress_table_is_the_readers_keys_in_omes_order() {
        assert_eq!(
            keys_of(SETTINGS, "ingress"),
            super::super::ingress::KEYS.to_vec()
        );
    }

    #[test]
    fn the_reader_knows_the_tables_keys() {
        let ome = super::super::OME_KEYS;
        assert_eq!(names(SETTINGS)[..ome.len()], *ome);
        assert_eq!(
            keys_of(SETTINGS, "deploy"),
            [
                "defaultDeploymentMode",
                "terminationGracePeriodSeconds",
                "replicas",
                "minReadySeconds",
                "updateStrategy"
            ]
        );
    }
}
