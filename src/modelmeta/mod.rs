//! Model metadata offline: the spec fields OME's model agent writes for a model, derived
//! from a local Hugging Face snapshot as OME v1.3 derives them (`pkg/modelconfig`,
//! `pkg/modelparser`).
//!
//! This stage is pure: [`crate::load::snapshot`] finds and reads the files (the JSON files
//! whole, each safetensors file's header only) into [`SnapshotFiles`], and [`derive`] turns
//! them into [`ModelMetadata`] plus diagnostics. [`patch`] is the `spec:` patch OME would
//! apply; [`fill_spec`] fills the fields a manifest's spec doesn't set.
//!
//! The rules, in OME's order:
//!
//! 1. `model_index.json` (a diffusers pipeline) wins over `config.json`.
//! 2. Quantization comes from `hf_quant_config.json` if it reads, else from
//!    `config.json`'s `quantization_config` (see [`quant`]); it gives `spec.quantization`
//!    and makes the parameter count quantization-aware.
//! 3. The parameter count is the quantization-aware count of the safetensors headers next
//!    to the config file when there is a quantization and that count is positive; else the
//!    plain count of those headers when positive; else OME's estimate from `config.json`
//!    (a diffusers pipeline sums its components' headers instead).
//! 4. `maxTokens` is the first positive of OME's context-length keys, written only when
//!    positive; the capabilities come from OME's rules ([`capability`]).

mod capability;
mod config;
pub(crate) mod diffusion;
pub(crate) mod format;
mod patch;
pub(crate) mod quant;
pub(crate) mod safetensors;

pub(crate) use diffusion::{Component, Pipeline};
pub(crate) use format::parameter_size;
#[cfg(test)]
pub(crate) use patch::patch_yaml;
pub(crate) use patch::{fill_spec, patch, skips_config_parsing};
pub(crate) use quant::quantization_value;

use crate::diagnostics::{Code, Diagnostic};
use crate::yaml::Pos;
use config::{ConfigProblem, TransformerConfig};
use quant::QuantConfig;
use safetensors::Header;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The annotation that points a model manifest at a snapshot, relative to the manifest
/// (ome-render's own).
pub(crate) const MODEL_CONFIG_ANNOTATION: &str = "ome-render.io/model-config";

/// OME's annotation that turns the agent's parsing off (`"true"`, any case).
pub(crate) const SKIP_ANNOTATION: &str = "ome.oracle.com/skip-config-parsing";

/// A JSON file of the snapshot, as the loader read it.
#[derive(Clone, Debug)]
pub(crate) struct JsonFile {
    /// The path as shown in messages.
    pub(crate) path: String,
    /// Its index in the loaded [`crate::source::Sources`], for positions.
    pub(crate) file: u32,
    pub(crate) text: Arc<str>,
}

/// One safetensors file: its header bytes (the 8-byte length and the header, nothing
/// after) or why they could not be read.
#[derive(Clone, Debug)]
pub(crate) struct WeightsFile {
    /// The path as shown in messages.
    pub(crate) path: String,
    /// Shared by the index entries that name one file under different spellings, so the
    /// file is read once.
    pub(crate) header: Result<Arc<[u8]>, String>,
}

/// The safetensors of one directory, found as OME finds them.
#[derive(Clone, Debug, Default)]
pub(crate) enum Weights {
    /// No index file and no `*.safetensors` entry.
    #[default]
    Missing,
    /// `model.safetensors.index.json` is there: its text (or why it could not be read) and
    /// the shards it names, in byte order.
    Index {
        path: String,
        text: Result<Arc<str>, String>,
        shards: Vec<WeightsFile>,
    },
    /// Every `*.safetensors` entry of the directory, in byte order.
    Files(Vec<WeightsFile>),
}

/// One component directory of a diffusers pipeline.
#[derive(Clone, Debug, Default)]
pub(crate) struct ComponentFiles {
    /// Whether `<component>/config.json` exists (OME counts a component only then).
    pub(crate) has_config: bool,
    /// Its text, read for `text_encoder` only (the context length comes from it).
    pub(crate) config: Option<JsonFile>,
    pub(crate) weights: Weights,
}

/// What the loader found in a snapshot.
#[derive(Clone, Debug, Default)]
pub(crate) struct SnapshotFiles {
    /// The snapshot directory as shown in messages.
    pub(crate) root: String,
    pub(crate) model_index: Option<JsonFile>,
    pub(crate) config: Option<JsonFile>,
    pub(crate) hf_quant_config: Option<JsonFile>,
    /// The safetensors next to the model's config file (`model_index.json` when there is
    /// one, else `config.json`).
    pub(crate) weights: Weights,
    /// A pipeline's component directories, by name.
    pub(crate) components: BTreeMap<String, ComponentFiles>,
    /// The loader found `model_index.json` or `config.json` but could not read it, and has
    /// said why: there is nothing to derive, and nothing more to report.
    pub(crate) config_unreadable: bool,
}

/// A format or framework with its version (OME's `ModelFormat`, `ModelFrameworkSpec`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Versioned {
    pub(crate) name: String,
    /// `None` when OME writes no version; `Some("")` when it writes an empty one.
    pub(crate) version: Option<String>,
}

/// Where the parameter count came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ParameterSource {
    /// The safetensors headers of these files, counted quantization-aware or not.
    Safetensors {
        files: Vec<String>,
        quant_aware: bool,
    },
    /// The safetensors of a pipeline's components.
    Components,
    /// OME's estimate from `config.json` (no usable headers).
    Estimate,
}

/// OME's `modelConfiguration` summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Configuration {
    pub(crate) model_type: String,
    pub(crate) architecture: String,
    pub(crate) context_length: i64,
    pub(crate) parameter_count: String,
    pub(crate) has_vision: bool,
    pub(crate) is_embedding: bool,
    pub(crate) transformers_version: String,
    pub(crate) torch_dtype: String,
    pub(crate) model_size_bytes: i64,
}

/// The spec fields OME's agent writes for a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ModelMetadata {
    pub(crate) model_type: String,
    /// `""` when the config names none (OME then writes an empty string).
    pub(crate) architecture: String,
    pub(crate) format: Versioned,
    pub(crate) framework: Versioned,
    pub(crate) parameter_count: i64,
    /// `modelParameterSize`, such as `3.21B`.
    pub(crate) parameter_size: String,
    pub(crate) parameters_from: ParameterSource,
    /// `maxTokens`; `None` when OME writes none (the context length is not positive).
    pub(crate) max_tokens: Option<i32>,
    /// `modelCapabilities`; `[""]` for a model OME cannot classify.
    pub(crate) capabilities: Vec<String>,
    /// `quantization`; `None` for an unquantized model or an unrecognised algorithm.
    pub(crate) quantization: Option<String>,
    pub(crate) configuration: Configuration,
    pub(crate) diffusion: Option<Pipeline>,
}

/// The result of [`derive`]: the metadata (none when OME could not read the model) and
/// what was noticed on the way.
#[derive(Debug, Default)]
pub(crate) struct Derivation {
    pub(crate) metadata: Option<ModelMetadata>,
    pub(crate) diags: Vec<Diagnostic>,
}

/// Derives what OME's agent would write for the snapshot.
pub(crate) fn derive(files: &SnapshotFiles) -> Derivation {
    let mut diags = Vec::new();
    let quant_file = files
        .hf_quant_config
        .as_ref()
        .and_then(|f| read_hf_quant(f, &mut diags));
    let metadata = if let Some(index) = &files.model_index {
        derive_pipeline(files, index, quant_file, &mut diags)
    } else if let Some(config) = &files.config {
        derive_transformer(files, config, quant_file, &mut diags)
    } else if files.config_unreadable {
        None
    } else {
        diags.push(
            Diagnostic::error(
                Code::ModelConfigMissing,
                format!("no model_index.json or config.json found in {}", files.root),
            )
            .help("point at a Hugging Face snapshot directory, or at its config.json"),
        );
        None
    };
    Derivation { metadata, diags }
}

fn start_of(file: &JsonFile) -> Pos {
    Pos {
        file: file.file,
        line: 1,
        col: 0,
    }
}

fn read_hf_quant(file: &JsonFile, diags: &mut Vec<Diagnostic>) -> Option<QuantConfig> {
    // OME treats an empty file as absent.
    if file.text.is_empty() {
        return None;
    }
    let parsed = crate::go::decode::parse_json(&file.text, file.file)
        .map_err(|e| (e.message, e.pos))
        .and_then(|root| {
            quant::read_hf_quant_config(root.as_ref()).map_err(|m| (m, start_of(file)))
        });
    match parsed {
        Ok(q) => Some(q),
        Err((message, pos)) => {
            diags.push(
                Diagnostic::warning(
                    Code::HfQuantConfigIgnored,
                    format!("{}: {message}; OME ignores the file", file.path),
                )
                .at(pos)
                .help("fix hf_quant_config.json, or remove it to use config.json's quantization_config"),
            );
            None
        }
    }
}

fn invalid_config(file: &JsonFile, message: String, pos: Pos) -> Diagnostic {
    Diagnostic::error(
        Code::ModelConfigInvalid,
        format!("OME's model agent cannot read {}: {message}", file.path),
    )
    .at(pos)
    .help("fix the file, or set the model's metadata in its spec and add the annotation ome.oracle.com/skip-config-parsing: \"true\"")
}

fn derive_transformer(
    files: &SnapshotFiles,
    file: &JsonFile,
    quant_file: Option<QuantConfig>,
    diags: &mut Vec<Diagnostic>,
) -> Option<ModelMetadata> {
    let root = match crate::go::decode::parse_json(&file.text, file.file) {
        Ok(root) => root,
        Err(e) => {
            diags.push(invalid_config(file, e.message, e.pos));
            return None;
        }
    };
    let config = match TransformerConfig::read(root.as_ref()) {
        Ok(c) => c,
        Err(problem) => {
            let (message, pos) = match problem {
                ConfigProblem::NotAnObject(found) => (
                    format!("the file is {found}, not an object"),
                    start_of(file),
                ),
                ConfigProblem::Type(e) => (e.message(), e.pos),
                ConfigProblem::NoModelType => (
                    "model_type field is missing or empty".to_string(),
                    root.as_ref().map_or(start_of(file), |r| r.pos),
                ),
            };
            diags.push(invalid_config(file, message, pos));
            return None;
        }
    };
    let quant = quant_file.or_else(|| {
        config
            .quantization
            .as_ref()
            .and_then(quant::EmbeddedQuant::to_quant_config)
    });

    let (count, source) = count_weights(&files.weights, quant.as_ref(), &file.path, diags)
        .unwrap_or_else(|| {
            let estimate = config.estimate();
            diags.push(
                Diagnostic::warning(
                    Code::ParameterSizeInexact,
                    format!(
                        "modelParameterSize {} is OME's estimate from {}, not a count of the weights",
                        parameter_size(estimate),
                        file.path
                    ),
                )
                .help("in a cluster the agent counts the downloaded safetensors headers instead; add the snapshot's *.safetensors files (their headers are enough) for the exact count, or set spec.modelParameterSize"),
            );
            (estimate, ParameterSource::Estimate)
        });

    let quantization = quantization_of(quant.as_ref(), &file.path, diags);
    let architecture = config.architecture().to_string();
    let capabilities = capabilities(
        capability::Subject {
            model_type: &config.model_type,
            architecture: &architecture,
            has_vision: config.has_vision,
            pipeline_class: None,
        },
        &file.path,
        diags,
    );
    let context = config.context_length();
    let framework_version =
        (!config.transformers_version.is_empty()).then(|| config.transformers_version.clone());
    Some(ModelMetadata {
        model_type: config.model_type.clone(),
        architecture: architecture.clone(),
        format: Versioned {
            name: "safetensors".to_string(),
            version: Some("1.0.0".to_string()),
        },
        framework: Versioned {
            name: "transformers".to_string(),
            version: framework_version,
        },
        parameter_count: count,
        parameter_size: parameter_size(count),
        parameters_from: source,
        max_tokens: max_tokens(context),
        capabilities,
        quantization,
        configuration: Configuration {
            model_type: config.model_type.clone(),
            architecture,
            context_length: context,
            parameter_count: parameter_size(count),
            has_vision: config.has_vision,
            is_embedding: false,
            transformers_version: config.transformers_version.clone(),
            torch_dtype: config.torch_dtype.clone(),
            model_size_bytes: format::size_bytes(count, &config.torch_dtype),
        },
        diffusion: None,
    })
}

/// OME's `MaxTokens`: the context length converted to a 32-bit integer (wrapping, as Go's
/// conversion does), written only when positive.
fn max_tokens(context: i64) -> Option<i32> {
    let v = context as i32;
    (v > 0).then_some(v)
}

fn quantization_of(
    quant: Option<&QuantConfig>,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<String> {
    let q = quant?;
    let value = quantization_value(&q.quant_algo);
    if value.is_none() && !q.quant_algo.is_empty() {
        diags.push(
            Diagnostic::warning(
                Code::QuantizationUnrecognized,
                format!(
                    "{path}: OME does not recognise the quantization `{}` and leaves spec.quantization unset",
                    q.quant_algo
                ),
            )
            .help("set spec.quantization yourself if a runtime selects on it (fp8, fbgemm_fp8, int4, nvfp4, mxfp4, compressed-tensors)"),
        );
    }
    value.map(str::to_string)
}

fn capabilities(
    subject: capability::Subject<'_>,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let caps = capability::classify(subject);
    if caps == [capability::UNKNOWN] {
        diags.push(
            Diagnostic::warning(
                Code::CapabilityUnknown,
                format!(
                    "{path}: OME cannot classify model type `{}` with architecture `{}` and writes an empty modelCapabilities entry",
                    subject.model_type, subject.architecture
                ),
            )
            .help("set spec.modelCapabilities yourself (TEXT_TO_TEXT, IMAGE_TEXT_TO_TEXT, EMBEDDING, …)"),
        );
    }
    caps.into_iter().map(str::to_string).collect()
}

/// A file OME cannot read, and why.
type Unreadable = (String, String);

/// The parsed headers of a directory's safetensors, in OME's reading order, or why OME
/// would fail to count them (`Err(None)`: there are none).
fn headers(weights: &Weights) -> Result<Vec<(&str, Arc<Header>)>, Option<Unreadable>> {
    let files: &[WeightsFile] = match weights {
        Weights::Missing => return Err(None),
        Weights::Files(files) if files.is_empty() => return Err(None),
        Weights::Files(files) => files,
        Weights::Index { path, text, shards } => {
            let listed = text
                .as_ref()
                .map_err(|e| Some((path.clone(), e.clone())))
                .and_then(|t| safetensors::index_shards(t).map_err(|e| Some((path.clone(), e))))?;
            if listed.len() != shards.len() {
                // The loader reads every listed shard; a mismatch means it stopped early.
                return Err(Some((
                    path.clone(),
                    "the index names shards that were not read".to_string(),
                )));
            }
            shards
        }
    };
    // One parse per file read, however many entries name it.
    let mut parsed: std::collections::HashMap<*const u8, Arc<Header>> =
        std::collections::HashMap::new();
    files
        .iter()
        .map(|f| {
            let bytes = f
                .header
                .as_ref()
                .map_err(|e| Some((f.path.clone(), e.clone())))?;
            let header = match parsed.get(&bytes.as_ptr()) {
                Some(h) => h.clone(),
                None => {
                    let h = Arc::new(
                        safetensors::parse_header(bytes)
                            .map_err(|e| Some((f.path.clone(), e.to_string())))?,
                    );
                    parsed.insert(bytes.as_ptr(), h.clone());
                    h
                }
            };
            Ok((f.path.as_str(), header))
        })
        .collect()
}

fn sum(headers: &[(&str, Arc<Header>)], quant: Option<&QuantConfig>) -> Result<i64, Unreadable> {
    let mut total: i64 = 0;
    for (path, header) in headers {
        let count =
            safetensors::file_params(header, quant).map_err(|e| ((*path).to_string(), e))?;
        total = total.checked_add(count).ok_or_else(|| {
            (
                (*path).to_string(),
                "the parameter count overflows 64 bits".to_string(),
            )
        })?;
    }
    Ok(total)
}

/// The count OME takes from a config file's safetensors, or `None` when it falls back to
/// its estimate (with the reason reported, except when there are no safetensors at all,
/// which the caller reports).
fn count_weights(
    weights: &Weights,
    quant: Option<&QuantConfig>,
    config_path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<(i64, ParameterSource)> {
    let parsed = match headers(weights) {
        Ok(h) => h,
        Err(None) => return None,
        Err(Some((path, message))) => {
            diags.push(unreadable(&path, &message));
            return None;
        }
    };
    let files: Vec<String> = parsed.iter().map(|(p, _)| (*p).to_string()).collect();
    if let Some(q) = quant
        && let Ok(count) = sum(&parsed, Some(q))
        && count > 0
    {
        return Some((
            count,
            ParameterSource::Safetensors {
                files,
                quant_aware: true,
            },
        ));
    }
    match sum(&parsed, None) {
        Ok(count) if count > 0 => Some((
            count,
            ParameterSource::Safetensors {
                files,
                quant_aware: false,
            },
        )),
        Ok(_) => {
            diags.push(
                Diagnostic::warning(
                    Code::SafetensorsUnreadable,
                    format!(
                        "the safetensors headers next to {config_path} hold no parameters; OME falls back to its estimate"
                    ),
                )
                .help("check that the snapshot's safetensors files are the model's"),
            );
            None
        }
        Err((path, message)) => {
            diags.push(unreadable(&path, &message));
            None
        }
    }
}

fn unreadable(path: &str, message: &str) -> Diagnostic {
    Diagnostic::warning(
        Code::SafetensorsUnreadable,
        format!("{path}: {message}; OME cannot count it and falls back to its estimate"),
    )
    .help("replace the file with the model's own (a header-only copy is enough)")
}

fn derive_pipeline(
    files: &SnapshotFiles,
    index: &JsonFile,
    quant: Option<QuantConfig>,
    diags: &mut Vec<Diagnostic>,
) -> Option<ModelMetadata> {
    let pipeline = match crate::go::decode::parse_json(&index.text, index.file)
        .map_err(|e| (e.message, e.pos))
        .and_then(|root| Pipeline::read(root.as_ref()).map_err(|m| (m, start_of(index))))
    {
        Ok(p) => p,
        Err((message, pos)) => {
            diags.push(invalid_config(index, message, pos));
            return None;
        }
    };

    // A quantization (from hf_quant_config.json only) counts the safetensors beside
    // model_index.json, as OME does; otherwise the components are summed.
    let quantized = quant.as_ref().and_then(|q| {
        let parsed = headers(&files.weights).ok()?;
        let count = sum(&parsed, Some(q)).ok().filter(|c| *c > 0)?;
        let files = parsed.iter().map(|(p, _)| (*p).to_string()).collect();
        Some((
            count,
            ParameterSource::Safetensors {
                files,
                quant_aware: true,
            },
        ))
    });
    let (count, source) = quantized.unwrap_or_else(|| {
        (
            pipeline_params(files, &pipeline, diags),
            ParameterSource::Components,
        )
    });

    let context = files
        .components
        .get("text_encoder")
        .and_then(|c| c.config.as_ref())
        .map_or(0, |f| {
            let root = crate::go::decode::parse_json(&f.text, f.file)
                .ok()
                .flatten();
            config::text_encoder_context(root.as_ref())
        });
    let quantization = quantization_of(quant.as_ref(), &index.path, diags);
    let capabilities = capabilities(
        capability::Subject {
            model_type: "diffusers",
            architecture: &pipeline.class_name,
            has_vision: true,
            pipeline_class: Some(&pipeline.class_name),
        },
        &index.path,
        diags,
    );
    let version = Some(pipeline.diffusers_version.clone());
    Some(ModelMetadata {
        model_type: "diffusers".to_string(),
        architecture: pipeline.class_name.clone(),
        format: Versioned {
            name: "diffusers".to_string(),
            version: version.clone(),
        },
        framework: Versioned {
            name: "diffusers".to_string(),
            version,
        },
        parameter_count: count,
        parameter_size: parameter_size(count),
        parameters_from: source,
        max_tokens: max_tokens(context),
        capabilities,
        quantization,
        configuration: Configuration {
            model_type: "diffusers".to_string(),
            architecture: pipeline.class_name.clone(),
            context_length: context,
            parameter_count: parameter_size(count),
            has_vision: true,
            is_embedding: false,
            transformers_version: String::new(),
            torch_dtype: String::new(),
            model_size_bytes: format::size_bytes(count, ""),
        },
        diffusion: Some(pipeline),
    })
}

/// OME's pipeline count: the plain safetensors counts of `text_encoder`, `transformer`
/// (or `unet`) and `vae`, 0 in all if one of them has no `config.json` or no readable
/// safetensors; plus each additional component that has both.
fn pipeline_params(files: &SnapshotFiles, pipeline: &Pipeline, diags: &mut Vec<Diagnostic>) -> i64 {
    let none = ComponentFiles::default();
    let get = |name: &str| files.components.get(name).unwrap_or(&none);
    let component_count = |c: &ComponentFiles| -> Result<i64, String> {
        if !c.has_config {
            return Err("has no config.json".to_string());
        }
        let parsed = headers(&c.weights).map_err(|e| match e {
            None => "has no safetensors".to_string(),
            Some((path, message)) => format!("has an unreadable {path}: {message}"),
        })?;
        sum(&parsed, None).map_err(|(path, message)| format!("has an unreadable {path}: {message}"))
    };
    let mut total: i64 = 0;
    for name in diffusion::REQUIRED_COMPONENTS {
        let dir =
            if name == "transformer" && !get("transformer").has_config && get("unet").has_config {
                "unet"
            } else {
                name
            };
        match component_count(get(dir)) {
            Ok(count) => match total.checked_add(count) {
                Some(t) => total = t,
                None => return 0,
            },
            Err(why) => {
                diags.push(
                    Diagnostic::warning(
                        Code::ParameterSizeInexact,
                        format!(
                            "the pipeline's {dir} component {why}, so OME records modelParameterSize 0 for {}",
                            files.root
                        ),
                    )
                    .help("add the component's config.json and safetensors (headers are enough), or set spec.modelParameterSize"),
                );
                return 0;
            }
        }
    }
    for name in pipeline.additional.keys() {
        if let Ok(count) = component_count(get(name)) {
            match total.checked_add(count) {
                Some(t) => total = t,
                None => return 0,
            }
        }
    }
    total
}

#[cfg(test)]
mod tests;
