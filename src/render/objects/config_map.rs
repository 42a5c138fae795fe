//! The `modelconfig-<last 20 characters>` ConfigMap and its `models.json`, byte for byte as
//! Go's `encoding/json` writes it (SEMANTICS.md, "Objects").

use super::{object_meta_map, rendered};
use crate::map;
use crate::model::{BaseModel, InferenceService};
use crate::render::names;
use crate::rendered::Rendered;
use crate::yaml::emit::write_json_string;
use crate::yaml::{Map, Node};

/// The `modelconfig-<last 20 characters>` ConfigMap with `models.json`.
pub(crate) fn model_config(
    isvc: &InferenceService,
    model_name: &str,
    model: &BaseModel,
) -> Rendered {
    let mut c = object_meta_map(
        "v1",
        "ConfigMap",
        &names::model_config_name(&isvc.name),
        isvc,
        Some((
            Node::map(map! { "ome.io/inferenceservice" => Node::str(&isvc.name) }),
            Node::map(Map::new()),
        )),
    );
    c.insert(
        "data",
        Node::map(map! { "models.json" => Node::str(models_json(model_name, model)) }),
    );
    rendered(isvc, c)
}

/// Go's `encoding/json` escapes `<`, `>` and `&`; so does this, for identical bytes.
fn go_json_string(s: &str, out: &mut Vec<u8>) {
    let mut tmp = Vec::new();
    write_json_string(s, &mut tmp);
    for b in tmp {
        match b {
            b'<' => out.extend_from_slice(b"\\u003c"),
            b'>' => out.extend_from_slice(b"\\u003e"),
            b'&' => out.extend_from_slice(b"\\u0026"),
            _ => out.push(b),
        }
    }
}

fn models_json(model_name: &str, model: &BaseModel) -> String {
    let mut fields: Vec<(&str, Option<String>)> = vec![
        ("storageUri", model.storage.storage_uri.clone()),
        ("path", model.storage.path.clone()),
        ("schemaPath", model.storage.schema_path.clone()),
    ];
    let parameters = model
        .storage
        .parameters
        .as_ref()
        .and_then(Node::as_map)
        .filter(|m| !m.is_empty())
        .map(|m| {
            let mut sorted: Vec<(&str, String)> = m
                .iter()
                .filter_map(|(k, v)| v.scalar_text().map(|t| (k, t)))
                .collect();
            sorted.sort();
            let mut out = Vec::from(&b"{"[..]);
            for (i, (k, v)) in sorted.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                go_json_string(k, &mut out);
                out.push(b':');
                go_json_string(v, &mut out);
            }
            out.push(b'}');
            String::from_utf8(out).unwrap_or_default()
        });
    let mut out = Vec::new();
    out.extend_from_slice(b"[{\"modelName\":");
    go_json_string(model_name, &mut out);
    out.extend_from_slice(b",\"modelSpec\":{");
    let mut first = true;
    let mut field = |out: &mut Vec<u8>, key: &str, raw_json: Option<&str>, value: Option<&str>| {
        if raw_json.is_none() && value.is_none_or(str::is_empty) {
            return;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        go_json_string(key, out);
        out.push(b':');
        match raw_json {
            Some(raw) => out.extend_from_slice(raw.as_bytes()),
            None => go_json_string(value.unwrap_or_default(), out),
        }
    };
    for (k, v) in fields.drain(..) {
        field(&mut out, k, None, v.as_deref());
    }
    field(&mut out, "parameters", parameters.as_deref(), None);
    field(&mut out, "storageKey", None, model.storage.key.as_deref());
    field(
        &mut out,
        "modelFormatName",
        None,
        model.format.as_ref().map(|f| f.name.as_str()),
    );
    field(
        &mut out,
        "modelFormatVersion",
        None,
        model.format.as_ref().and_then(|f| f.version.as_deref()),
    );
    field(&mut out, "modelType", None, model.model_type.as_deref());
    field(
        &mut out,
        "modelFrameworkName",
        None,
        model.framework.as_ref().map(|f| f.name.as_str()),
    );
    field(
        &mut out,
        "modelFrameworkVersion",
        None,
        model.framework.as_ref().and_then(|f| f.version.as_deref()),
    );
    out.extend_from_slice(b"}}]");
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_json_follows_go() {
        let model = BaseModel {
            name: "m".into(),
            namespace: None,
            object: crate::k8s::id::ObjectId {
                kind: "ClusterBaseModel".into(),
                namespace: String::new(),
                name: "m".into(),
                group: String::new(),
            },
            pos: Default::default(),
            disabled: false,
            format: Some(crate::model::FormatRef {
                parsed_version: None,
                name: "safetensors".into(),
                version: Some("1.0.0".into()),
                operator: "Equal".into(),
                weight: 1,
            }),
            framework: None,
            architecture: None,
            quantization: None,
            parameter_size: None,
            diffusion: None,
            vendor: None,
            vendor_pos: crate::yaml::Pos::NONE,
            model_type: None,
            distribution: None,
            storage: crate::model::base_model::Storage {
                storage_uri: Some("hf://a/b<c>&d".into()),
                path: Some("/raid/m".into()),
                key: Some("hf-token".into()),
                schema_path: None,
                parameters: None,
                ..Default::default()
            },
            category: None,
        };
        assert_eq!(
            models_json("m", &model),
            r#"[{"modelName":"m","modelSpec":{"storageUri":"hf://a/b\u003cc\u003e\u0026d","path":"/raid/m","storageKey":"hf-token","modelFormatName":"safetensors","modelFormatVersion":"1.0.0"}}]"#
        );
    }
}
