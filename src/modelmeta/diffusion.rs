//! Diffusers pipelines: `model_index.json` read as OME's `ParseDiffusionPipelineSpec` reads
//! it, and the component directories whose safetensors OME counts.

use crate::go::decode::root_object;
use crate::yaml::{Map, Node, Value};
use std::collections::BTreeMap;

/// One pipeline component: the library and class a `model_index.json` entry names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Component {
    pub(crate) library: String,
    pub(crate) class: String,
}

/// The pipeline as OME records it in `spec.diffusionPipeline`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pipeline {
    pub(crate) class_name: String,
    pub(crate) diffusers_version: String,
    pub(crate) scheduler: Option<Component>,
    pub(crate) text_encoder: Option<Component>,
    pub(crate) tokenizer: Option<Component>,
    /// The `transformer` entry, or the `unet` one of older pipelines.
    pub(crate) transformer: Option<Component>,
    pub(crate) vae: Option<Component>,
    /// Every other component, by its key in `model_index.json`.
    pub(crate) additional: BTreeMap<String, Component>,
}

/// The component directories every pipeline's parameter count needs (OME gives 0 when one
/// is missing); `transformer` falls back to `unet`.
pub(crate) const REQUIRED_COMPONENTS: [&str; 3] = ["text_encoder", "transformer", "vae"];

impl Pipeline {
    /// Reads `model_index.json` (its root; `None` for `null`). Keys starting with `_` are
    /// metadata; a component is a list `[library, class]` (or `[class]`), or an object with
    /// `_class_name`/`class_name`/`className`/`type` and `_library`/`library`. A pipeline
    /// without a class name or any component is an error, as in OME.
    pub(crate) fn read(root: Option<&Node>) -> Result<Pipeline, String> {
        let obj =
            root_object(root).map_err(|found| format!("the file is {found}, not an object"))?;
        let empty = Map::new();
        let obj = obj.unwrap_or(&empty);
        let raw = exact_keys(obj);
        let mut p = Pipeline {
            class_name: string_field(&raw, &["_class_name", "class_name", "className"]),
            diffusers_version: string_field(&raw, &["_diffusers_version", "diffusers_version"]),
            ..Pipeline::default()
        };
        // OME walks a Go map here, so two keys for one slot (`unet` and `transformer`,
        // `VAE` and `vae`) land in an undefined order; we take them in byte order.
        for (key, value) in &raw {
            if key.starts_with('_') {
                continue;
            }
            let Some(component) = component(value) else {
                continue;
            };
            match key.to_lowercase().as_str() {
                "scheduler" => p.scheduler = Some(component),
                "text_encoder" => p.text_encoder = Some(component),
                "tokenizer" => p.tokenizer = Some(component),
                "transformer" | "unet" => p.transformer = Some(component),
                "vae" => p.vae = Some(component),
                _ => {
                    p.additional.insert((*key).to_string(), component);
                }
            }
        }
        let has_metadata = !p.class_name.is_empty()
            || p.scheduler.is_some()
            || p.text_encoder.is_some()
            || p.tokenizer.is_some()
            || p.transformer.is_some()
            || p.vae.is_some()
            || !p.additional.is_empty();
        if !has_metadata {
            return Err("model_index.json did not contain diffusion pipeline metadata".to_string());
        }
        Ok(p)
    }
}

/// The directories whose `config.json` and safetensors OME looks at for a pipeline: the
/// required components, `unet`, and every additional component (by its key). For the
/// loader; an unreadable `model_index.json` needs none.
pub(crate) fn component_dirs(model_index_text: &str) -> Vec<String> {
    let root = crate::go::decode::parse_json(model_index_text, u32::MAX)
        .ok()
        .flatten();
    let mut dirs: Vec<String> = ["text_encoder", "transformer", "unet", "vae"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if let Ok(p) = Pipeline::read(root.as_ref()) {
        dirs.extend(p.additional.into_keys());
    }
    dirs
}

/// The object's entries by exact key, the last of equal keys winning (a Go map).
fn exact_keys(obj: &Map) -> BTreeMap<&str, &Node> {
    obj.iter().collect()
}

/// The first of `keys` whose value is a non-empty string.
fn string_field(raw: &BTreeMap<&str, &Node>, keys: &[&str]) -> String {
    keys.iter()
        .filter_map(|k| raw.get(k))
        .find_map(|v| v.as_str().filter(|s| !s.is_empty()))
        .unwrap_or_default()
        .to_string()
}

fn component(value: &Node) -> Option<Component> {
    match &value.value {
        Value::Seq(items) => {
            let mut parts = Vec::with_capacity(items.len());
            for item in items {
                match &item.value {
                    Value::Str(s) => parts.push(s.clone()),
                    Value::Null => parts.push(String::new()),
                    _ => return None,
                }
            }
            match parts.len() {
                0 => None,
                1 => Some(Component {
                    library: String::new(),
                    class: parts.remove(0),
                }),
                _ => Some(Component {
                    library: parts.remove(0),
                    class: parts.remove(0),
                }),
            }
        }
        // `null` decodes as an empty list: no component.
        Value::Map(m) => {
            let raw = exact_keys(m);
            let class = string_field(&raw, &["_class_name", "class_name", "className", "type"]);
            let library = string_field(&raw, &["_library", "library"]);
            (!class.is_empty() || !library.is_empty()).then_some(Component { library, class })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::decode::parse_json;

    fn read(text: &str) -> Result<Pipeline, String> {
        Pipeline::read(parse_json(text, 0).unwrap().as_ref())
    }

    fn c(library: &str, class: &str) -> Option<Component> {
        Some(Component {
            library: library.into(),
            class: class.into(),
        })
    }

    /// OME's TestParseDiffusionPipelineSpec.
    #[test]
    fn stable_diffusion() {
        let p = read(
            r#"{
  "_class_name": "StableDiffusionPipeline",
  "_diffusers_version": "0.24.0",
  "scheduler": ["diffusers", "EulerDiscreteScheduler"],
  "text_encoder": ["transformers", "CLIPTextModel"],
  "tokenizer": ["transformers", "CLIPTokenizer"],
  "unet": ["diffusers", "UNet2DConditionModel"],
  "vae": ["diffusers", "AutoencoderKL"],
  "safety_checker": ["diffusers", "StableDiffusionSafetyChecker"],
  "requires_safety_checker": true
}"#,
        )
        .unwrap();
        assert_eq!(p.class_name, "StableDiffusionPipeline");
        assert_eq!(p.diffusers_version, "0.24.0");
        assert_eq!(p.scheduler, c("diffusers", "EulerDiscreteScheduler"));
        assert_eq!(p.text_encoder, c("transformers", "CLIPTextModel"));
        assert_eq!(p.tokenizer, c("transformers", "CLIPTokenizer"));
        assert_eq!(p.transformer, c("diffusers", "UNet2DConditionModel"));
        assert_eq!(p.vae, c("diffusers", "AutoencoderKL"));
        assert_eq!(p.additional.len(), 1);
        assert_eq!(
            p.additional.get("safety_checker").cloned(),
            c("diffusers", "StableDiffusionSafetyChecker")
        );
    }

    #[test]
    fn component_forms() {
        let p = read(
            r#"{"a": ["OnlyClass"], "b": {"_class_name": "X", "_library": "lib"}, "c": {"type": "T"},
                "d": [], "e": [1, 2], "f": {"other": 1}, "g": null, "h": "str", "i": ["lib", null],
                "VAE": ["diffusers", "AutoencoderKL"]}"#,
        )
        .unwrap();
        assert_eq!(p.additional.get("a").cloned(), c("", "OnlyClass"));
        assert_eq!(p.additional.get("b").cloned(), c("lib", "X"));
        assert_eq!(p.additional.get("c").cloned(), c("", "T"));
        assert_eq!(p.additional.get("i").cloned(), c("lib", ""));
        for absent in ["d", "e", "f", "g", "h"] {
            assert!(!p.additional.contains_key(absent), "{absent}");
        }
        assert_eq!(p.vae, c("diffusers", "AutoencoderKL"));
        assert_eq!(p.class_name, "");
    }

    #[test]
    fn class_name_spellings_and_empty_pipelines() {
        assert_eq!(read(r#"{"className": "P"}"#).unwrap().class_name, "P");
        assert_eq!(
            read(r#"{"_class_name": "", "class_name": "Q"}"#)
                .unwrap()
                .class_name,
            "Q"
        );
        assert!(read(r#"{"_diffusers_version": "0.1"}"#).is_err());
        assert!(read("null").is_err());
        assert!(read("[]").is_err());
    }

    #[test]
    fn component_directories() {
        assert_eq!(
            component_dirs(
                r#"{"_class_name": "P", "safety_checker": ["a", "b"], "vae": ["a", "b"]}"#
            ),
            vec![
                "text_encoder",
                "transformer",
                "unet",
                "vae",
                "safety_checker"
            ]
        );
        assert_eq!(component_dirs("not json").len(), 4);
    }
}
