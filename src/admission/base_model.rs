//! OME v1.3's admission of a BaseModel or ClusterBaseModel (SEMANTICS.md#admission): the
//! CRD schema (`storage.storageUri` required, the `distribution` and `downloadPolicy`
//! enums) and the webhook's `pvc://` rules (BM-01..04).

use super::{Findings, present};
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::yaml::{Node, Pos};

const CODE: Code = Code::ModelInvalid;
const SCHEMA: Code = Code::InvalidField;

/// `pvc://[<namespace>:]<claim>/<sub-path>`, as OME's storage parser splits it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct PvcUri<'a> {
    pub(crate) namespace: Option<&'a str>,
    pub(crate) claim: &'a str,
    pub(crate) sub_path: &'a str,
}

/// Parses a `pvc://` URI; `None` when it is not one, an error text when it is malformed.
pub(crate) fn parse_pvc(uri: &str) -> Option<Result<PvcUri<'_>, &'static str>> {
    let rest = uri.strip_prefix("pvc://")?;
    let Some((head, sub_path)) = rest.split_once('/') else {
        return Some(Err("invalid PVC storage URI format: missing subpath"));
    };
    if sub_path.trim_matches('/').is_empty() {
        return Some(Err("invalid PVC storage URI format: missing subpath"));
    }
    let (namespace, claim) = match head.split_once(':') {
        Some((ns, claim)) => (Some(ns), claim),
        None => (None, head),
    };
    if claim.is_empty() {
        return Some(Err("invalid PVC storage URI format: missing PVC name"));
    }
    Some(Ok(PvcUri {
        namespace: namespace.filter(|n| !n.is_empty()),
        claim,
        sub_path,
    }))
}

/// Every admission problem of the model `root`; `cluster` for a ClusterBaseModel.
pub(crate) fn check(root: &Node, object: &ObjectId, pos: Pos, cluster: bool) -> Vec<Diagnostic> {
    let mut f = Findings::new(object, pos);
    let Some(spec) = root.get("spec").filter(|s| s.as_map().is_some()) else {
        return f.diags;
    };
    f.enum_field(
        SCHEMA,
        spec,
        "distribution",
        "spec",
        &["PerNode", "Sharded"],
    );
    match present(spec, "storage") {
        None => f.required(SCHEMA, spec.pos, "spec.storage"),
        Some(storage) => {
            if storage.as_map().is_some() && storage.get("storageUri").is_none() {
                f.required(SCHEMA, storage.pos, "spec.storage.storageUri");
            }
            f.enum_field(
                SCHEMA,
                storage,
                "downloadPolicy",
                "spec.storage",
                &["AlwaysDownload", "ReuseIfExists"],
            );
        }
    }
    for key in ["modelFormat", "modelFramework"] {
        if let Some(r) = present(spec, key).filter(|r| r.as_map().is_some())
            && r.get("name").is_none()
        {
            f.required(SCHEMA, r.pos, &format!("spec.{key}.name"));
        }
    }
    let Some(uri_node) = spec.at(&["storage", "storageUri"]) else {
        return f.diags;
    };
    let Some(uri) = uri_node.as_str() else {
        return f.diags;
    };
    let Some(parsed) = parse_pvc(uri) else {
        return f.diags;
    };
    let field = "spec.storage.storageUri";
    let sharded = spec.str_at(&["distribution"]) == Some("Sharded");
    if sharded {
        let d = f
            .error(
                CODE,
                spec.get("distribution").map_or(uri_node.pos, |n| n.pos),
                "spec.distribution",
                "PVC storage URIs are not compatible with distribution=Sharded; use distribution=PerNode (or omit) for pvc:// models",
            )
            .related(uri_node.pos, "the pvc:// URI")
            .help("remove `distribution: Sharded`: a PVC is mounted whole on each node");
        f.push(d);
    }
    match parsed {
        Err(e) => {
            let d = f
                .error(
                    CODE,
                    uri_node.pos,
                    field,
                    format!("invalid PVC storage URI {}: {e}", crate::go::quote(uri)),
                )
                .help("write pvc://[<namespace>:]<claim>/<path inside the claim>");
            f.push(d);
        }
        Ok(pvc) => {
            if cluster && pvc.namespace.is_none() {
                let d = f
                    .error(
                        CODE,
                        uri_node.pos,
                        field,
                        format!(
                            "ClusterBaseModel PVC URI must specify a namespace (format: pvc://{{namespace}}:{{pvc-name}}/{{sub-path}}), got {}",
                            crate::go::quote(uri)
                        ),
                    )
                    .help("name the claim's namespace: pvc://<namespace>:<claim>/<path>");
                f.push(d);
            }
            if !cluster && pvc.namespace.is_some() {
                let d = f
                    .error(
                        CODE,
                        uri_node.pos,
                        field,
                        format!(
                            "namespaced BaseModel PVC URI must not specify a namespace; the BaseModel's own namespace is used, got {}",
                            crate::go::quote(uri)
                        ),
                    )
                    .help("drop the namespace: pvc://<claim>/<path>");
                f.push(d);
            }
        }
    }
    f.diags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pvc_uris_split_as_ome_splits_them() {
        assert_eq!(
            parse_pvc("pvc://team:claim/models/llama"),
            Some(Ok(PvcUri {
                namespace: Some("team"),
                claim: "claim",
                sub_path: "models/llama"
            }))
        );
        assert_eq!(
            parse_pvc("pvc://claim/m"),
            Some(Ok(PvcUri {
                namespace: None,
                claim: "claim",
                sub_path: "m"
            }))
        );
        assert_eq!(
            parse_pvc("pvc://model-storage"),
            Some(Err("invalid PVC storage URI format: missing subpath"))
        );
        assert_eq!(
            parse_pvc("pvc://team:/m"),
            Some(Err("invalid PVC storage URI format: missing PVC name"))
        );
        assert_eq!(parse_pvc("oci://n/b/o"), None);
    }
}
