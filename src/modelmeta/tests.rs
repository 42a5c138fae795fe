//! The derivation end to end, from in-memory snapshots whose safetensors headers the tests
//! write themselves and whose counts are worked out by hand.

use super::safetensors::testutil::header_bytes;
use super::*;
use crate::yaml::parse::parse_stream;
use crate::yaml::{Map, Node};

fn json(path: &str, text: &str) -> JsonFile {
    JsonFile {
        path: path.to_string(),
        file: 0,
        text: Arc::from(text),
    }
}

fn weights(files: &[(&str, Vec<u8>)]) -> Weights {
    Weights::Files(
        files
            .iter()
            .map(|(p, b)| WeightsFile {
                path: (*p).to_string(),
                header: Ok(b.clone().into()),
            })
            .collect(),
    )
}

fn snapshot(config: &str, w: Weights) -> SnapshotFiles {
    SnapshotFiles {
        root: "snap".to_string(),
        config: Some(json("snap/config.json", config)),
        weights: w,
        ..SnapshotFiles::default()
    }
}

fn metadata(files: &SnapshotFiles) -> (ModelMetadata, Vec<Diagnostic>) {
    let d = derive(files);
    (d.metadata.expect("metadata"), d.diags)
}

fn codes(diags: &[Diagnostic]) -> Vec<&'static str> {
    diags.iter().map(|d| d.code.as_str()).collect()
}

/// A Llama-shaped model: 2·(8·4) embedding and head, 2·4 norms, and one layer of four 4×4
/// projections: 64 + 8 + 64 = 136 parameters.
fn llama_tensors() -> Vec<u8> {
    header_bytes(&[
        ("lm_head.weight", "BF16", &[8, 4]),
        ("model.embed_tokens.weight", "BF16", &[8, 4]),
        ("model.norm.weight", "BF16", &[4]),
        ("model.layers.0.input_layernorm.weight", "BF16", &[4]),
        ("model.layers.0.self_attn.q_proj.weight", "BF16", &[4, 4]),
        ("model.layers.0.self_attn.k_proj.weight", "BF16", &[4, 4]),
        ("model.layers.0.self_attn.v_proj.weight", "BF16", &[4, 4]),
        ("model.layers.0.self_attn.o_proj.weight", "BF16", &[4, 4]),
    ])
}

const LLAMA: &str = r#"{
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "hidden_size": 4096,
  "num_hidden_layers": 32,
  "vocab_size": 128256,
  "max_position_embeddings": 131072,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.45.0.dev0"
}"#;

#[test]
fn a_plain_model_counts_its_headers() {
    let (m, diags) = metadata(&snapshot(
        LLAMA,
        weights(&[("snap/model.safetensors", llama_tensors())]),
    ));
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(m.model_type, "llama");
    assert_eq!(m.architecture, "LlamaForCausalLM");
    assert_eq!(m.parameter_count, 136);
    assert_eq!(m.parameter_size, "136");
    assert_eq!(m.max_tokens, Some(131072));
    assert_eq!(m.capabilities, vec!["TEXT_TO_TEXT"]);
    assert_eq!(m.quantization, None);
    assert_eq!(
        m.parameters_from,
        ParameterSource::Safetensors {
            files: vec!["snap/model.safetensors".to_string()],
            quant_aware: false
        }
    );
    assert_eq!(m.configuration.model_size_bytes, 272);
    assert_eq!(
        patch_yaml(&m),
        "\
spec:
  modelFormat:
    name: safetensors
    version: \"1.0.0\"
  modelType: llama
  modelFramework:
    name: transformers
    version: 4.45.0.dev0
  modelArchitecture: LlamaForCausalLM
  modelParameterSize: \"136\"
  modelCapabilities:
  - TEXT_TO_TEXT
  modelConfiguration:
    model_type: llama
    architecture: LlamaForCausalLM
    context_length: 131072
    parameter_count: \"136\"
    has_vision: false
    is_embedding: false
    transformers_version: 4.45.0.dev0
    torch_dtype: bfloat16
    model_size_bytes: 272
  maxTokens: 131072
"
    );
}

#[test]
fn without_headers_the_estimate_is_used_with_a_warning() {
    let (m, diags) = metadata(&snapshot(LLAMA, Weights::Missing));
    // 128256·4096 + 32·12·4096²
    assert_eq!(m.parameter_count, 128256 * 4096 + 32 * 12 * 4096 * 4096);
    assert_eq!(m.parameter_size, "6.97B");
    assert_eq!(m.parameters_from, ParameterSource::Estimate);
    assert_eq!(codes(&diags), vec!["ome::model-metadata::parameter-size"]);
    assert!(
        diags[0].message.contains("6.97B is OME's estimate"),
        "{}",
        diags[0].message
    );
}

#[test]
fn an_unreadable_header_falls_back_to_the_estimate() {
    let mut bad = llama_tensors();
    bad.truncate(20);
    let (m, diags) = metadata(&snapshot(
        LLAMA,
        weights(&[
            ("snap/a.safetensors", llama_tensors()),
            ("snap/b.safetensors", bad),
        ]),
    ));
    assert_eq!(m.parameters_from, ParameterSource::Estimate);
    assert_eq!(
        codes(&diags),
        vec![
            "ome::model-metadata::safetensors",
            "ome::model-metadata::parameter-size"
        ]
    );
    assert!(
        diags[0]
            .message
            .starts_with("snap/b.safetensors: the header is"),
        "{}",
        diags[0].message
    );
}

#[test]
fn quantized_models_count_packed_weights_and_skip_scales() {
    // AWQ 4-bit: qweight I32 [4, 8] holds 8 parameters per element → 256; qzeros and scales
    // count 0; the F16 head 32 and norm 4 count as they are: 292 (naive: 32+4+32+8+16 = 92).
    let config = r#"{"model_type": "llama", "architectures": ["LlamaForCausalLM"],
        "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}}"#;
    let tensors = header_bytes(&[
        ("lm_head.weight", "F16", &[8, 4]),
        ("model.norm.weight", "F16", &[4]),
        ("model.layers.0.mlp.up_proj.qweight", "I32", &[4, 8]),
        ("model.layers.0.mlp.up_proj.qzeros", "I32", &[1, 8]),
        ("model.layers.0.mlp.up_proj.scales", "F16", &[1, 16]),
    ]);
    let (m, diags) = metadata(&snapshot(
        config,
        weights(&[("snap/model.safetensors", tensors)]),
    ));
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(m.parameter_count, 292);
    assert_eq!(m.quantization.as_deref(), Some("int4"));
    assert!(matches!(
        m.parameters_from,
        ParameterSource::Safetensors {
            quant_aware: true,
            ..
        }
    ));
}

#[test]
fn hf_quant_config_wins_over_the_embedded_block() {
    // config.json says fp8; hf_quant_config.json says NVFP4 excluding lm_head: the U8
    // weight [4, 4] counts 32, lm_head [8, 4] 32, the scales 0: 64.
    let config = r#"{"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"],
        "quantization_config": {"quant_method": "fp8"}}"#;
    let tensors = header_bytes(&[
        ("lm_head.weight", "BF16", &[8, 4]),
        ("model.layers.0.mlp.down_proj.weight", "U8", &[4, 4]),
        (
            "model.layers.0.mlp.down_proj.weight_scale",
            "F8_E4M3",
            &[4, 1],
        ),
        ("model.layers.0.mlp.down_proj.input_scale", "F32", &[]),
    ]);
    let mut files = snapshot(config, weights(&[("snap/model.safetensors", tensors)]));
    files.hf_quant_config = Some(json(
        "snap/hf_quant_config.json",
        r#"{"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["lm_head"]}}"#,
    ));
    let (m, _) = metadata(&files);
    assert_eq!(
        (m.parameter_count, m.quantization.as_deref()),
        (64, Some("nvfp4"))
    );
    // An unreadable hf_quant_config.json is ignored with a warning: fp8 counts the head 32
    // and the weight 16 as they are, the scales 0: 48.
    files.hf_quant_config = Some(json("snap/hf_quant_config.json", r#"{"quantization": []}"#));
    let (m, diags) = metadata(&files);
    assert_eq!(
        (m.parameter_count, m.quantization.as_deref()),
        (48, Some("fp8"))
    );
    assert_eq!(codes(&diags), vec!["ome::model-metadata::hf-quant-config"]);
}

#[test]
fn an_unrecognised_quantization_is_left_unset() {
    let config = r#"{"model_type": "llama", "architectures": ["LlamaForCausalLM"],
        "quantization_config": {"quant_method": "bitsandbytes"}}"#;
    let (m, diags) = metadata(&snapshot(
        config,
        weights(&[("snap/m.safetensors", llama_tensors())]),
    ));
    assert_eq!(m.quantization, None);
    assert_eq!(codes(&diags), vec!["ome::model-metadata::quantization"]);
    assert!(!patch_yaml(&m).contains("quantization:"));
}

#[test]
fn sharded_models_read_the_shards_the_index_names() {
    let index = r#"{"weight_map": {"a": "m-2.safetensors", "b": "m-1.safetensors"}}"#;
    let shard = |p: &str| WeightsFile {
        path: p.to_string(),
        header: Ok(llama_tensors().into()),
    };
    let files = snapshot(
        LLAMA,
        Weights::Index {
            path: "snap/model.safetensors.index.json".to_string(),
            text: Ok(Arc::from(index)),
            shards: vec![shard("snap/m-1.safetensors"), shard("snap/m-2.safetensors")],
        },
    );
    assert_eq!(metadata(&files).0.parameter_count, 272);
    let broken = snapshot(
        LLAMA,
        Weights::Index {
            path: "snap/model.safetensors.index.json".to_string(),
            text: Ok(Arc::from(r#"{"weight_map": {}}"#)),
            shards: vec![],
        },
    );
    let (m, diags) = metadata(&broken);
    assert_eq!(m.parameters_from, ParameterSource::Estimate);
    assert!(
        diags[0].message.contains("no weight mappings"),
        "{}",
        diags[0].message
    );
}

#[test]
fn configs_ome_refuses_are_errors_at_the_field() {
    let files = snapshot(
        "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": \"4096\"\n}",
        Weights::Missing,
    );
    let d = derive(&files);
    assert!(d.metadata.is_none());
    assert_eq!(codes(&d.diags), vec!["ome::model-metadata::invalid-config"]);
    assert_eq!(d.diags[0].pos.map(|p| p.line), Some(3));
    assert!(
        d.diags[0].message.contains("`hidden_size` is a string"),
        "{}",
        d.diags[0].message
    );
    let d = derive(&snapshot(r#"{"architectures": ["A"]}"#, Weights::Missing));
    assert!(
        d.diags[0]
            .message
            .ends_with("model_type field is missing or empty")
    );
    let d = derive(&SnapshotFiles::default());
    assert_eq!(codes(&d.diags), vec!["ome::model-metadata::no-config"]);
}

#[test]
fn unknown_models_get_omes_empty_capability() {
    let (m, diags) = metadata(&snapshot(
        r#"{"model_type": "phi", "architectures": ["PhiModel"]}"#,
        Weights::Missing,
    ));
    assert_eq!(m.capabilities, vec![""]);
    assert_eq!(m.parameter_size, "0");
    assert_eq!(m.max_tokens, None);
    assert!(codes(&diags).contains(&"ome::model-metadata::capabilities"));
    let yaml = patch_yaml(&m);
    assert!(yaml.contains("  modelCapabilities:\n  - \"\"\n"), "{yaml}");
    assert!(yaml.contains("  modelParameterSize: \"0\"\n"), "{yaml}");
    assert!(!yaml.contains("maxTokens"), "{yaml}");
}

#[test]
fn max_tokens_wraps_as_a_32_bit_integer() {
    assert_eq!(max_tokens(4_294_967_296 + 8192), Some(8192));
    assert_eq!(max_tokens(2_147_483_648), None);
    assert_eq!(max_tokens(0), None);
}

fn pipeline_files() -> SnapshotFiles {
    let component = |tensors: Vec<u8>, config: Option<&str>| ComponentFiles {
        has_config: true,
        config: config.map(|t| json("sd/text_encoder/config.json", t)),
        weights: weights(&[("x.safetensors", tensors)]),
    };
    let mut components = BTreeMap::new();
    // 77·8 + 100·8 = 1416
    components.insert(
        "text_encoder".to_string(),
        component(
            header_bytes(&[("pos", "F32", &[77, 8]), ("tok", "F32", &[100, 8])]),
            Some(r#"{"max_position_embeddings": 77}"#),
        ),
    );
    // 16·4·3·3 = 576
    components.insert(
        "unet".to_string(),
        component(header_bytes(&[("conv", "F32", &[16, 4, 3, 3])]), None),
    );
    // 8·3·3·3 = 216
    components.insert(
        "vae".to_string(),
        component(header_bytes(&[("conv", "F32", &[8, 3, 3, 3])]), None),
    );
    // 8·16 = 128
    components.insert(
        "safety_checker".to_string(),
        component(header_bytes(&[("proj", "F32", &[8, 16])]), None),
    );
    SnapshotFiles {
        root: "sd".to_string(),
        model_index: Some(json(
            "sd/model_index.json",
            r#"{"_class_name": "StableDiffusionPipeline", "_diffusers_version": "0.24.0",
                "scheduler": ["diffusers", "EulerDiscreteScheduler"],
                "text_encoder": ["transformers", "CLIPTextModel"],
                "unet": ["diffusers", "UNet2DConditionModel"],
                "vae": ["diffusers", "AutoencoderKL"],
                "safety_checker": ["diffusers", "StableDiffusionSafetyChecker"],
                "feature_extractor": ["transformers", "CLIPImageProcessor"]}"#,
        )),
        config: Some(json("sd/config.json", LLAMA)),
        components,
        ..SnapshotFiles::default()
    }
}

#[test]
fn pipelines_sum_their_components() {
    let (m, diags) = metadata(&pipeline_files());
    assert!(diags.is_empty(), "{diags:?}");
    // 1416 + 576 + 216 + 128 (feature_extractor has no directory)
    assert_eq!(m.parameter_count, 2336);
    assert_eq!(m.parameter_size, "2.34K");
    assert_eq!(m.max_tokens, Some(77));
    assert_eq!(m.capabilities, vec!["TEXT_TO_IMAGE"]);
    assert_eq!(m.model_type, "diffusers");
    assert_eq!(m.format.version.as_deref(), Some("0.24.0"));
    assert_eq!(m.framework.name, "diffusers");
    assert_eq!(m.configuration.model_size_bytes, 2336 * 4);
    let yaml = patch_yaml(&m);
    assert!(
        yaml.ends_with(
            "  maxTokens: 77
  diffusionPipeline:
    className: StableDiffusionPipeline
    scheduler:
      library: diffusers
      type: EulerDiscreteScheduler
    textEncoder:
      library: transformers
      type: CLIPTextModel
    transformer:
      library: diffusers
      type: UNet2DConditionModel
    vae:
      library: diffusers
      type: AutoencoderKL
    additionalComponents:
      feature_extractor:
        library: transformers
        type: CLIPImageProcessor
      safety_checker:
        library: diffusers
        type: StableDiffusionSafetyChecker
"
        ),
        "{yaml}"
    );
}

#[test]
fn a_pipeline_missing_a_required_component_counts_zero() {
    let mut files = pipeline_files();
    files.components.remove("vae");
    let (m, diags) = metadata(&files);
    assert_eq!(m.parameter_size, "0");
    assert_eq!(codes(&diags), vec!["ome::model-metadata::parameter-size"]);
    assert!(
        diags[0]
            .message
            .contains("vae component has no config.json"),
        "{}",
        diags[0].message
    );
}

fn spec_of(text: &str) -> Map {
    let docs = parse_stream(text, 0).unwrap();
    docs.into_iter()
        .next()
        .unwrap()
        .root
        .as_map()
        .unwrap()
        .clone()
}

#[test]
fn fill_spec_fills_only_what_the_manifest_does_not_set() {
    let (m, _) = metadata(&snapshot(
        LLAMA,
        weights(&[("snap/model.safetensors", llama_tensors())]),
    ));
    // OME's agent would replace the nameless modelFormat, the empty capabilities and the
    // different modelConfiguration; ome-render keeps all three (SEMANTICS.md#choice-model-metadata-fill).
    let mut spec = spec_of(
        "modelArchitecture: Mine\nmodelFormat:\n  version: \"2\"\nmodelCapabilities: []\nmaxTokens: null\nmodelConfiguration:\n  model_type: other\nstorage:\n  storageUri: hf://x/y\n",
    );
    let filled = fill_spec(&mut spec, &m);
    assert_eq!(
        filled,
        vec![
            "modelType",
            "modelFramework",
            "modelParameterSize",
            "maxTokens"
        ]
    );
    let out = crate::yaml::emit::to_yaml_string(&Node::map(spec.clone()));
    assert!(
        out.starts_with(
            "modelArchitecture: Mine\nmodelFormat:\n  version: \"2\"\nmodelCapabilities: []\nmaxTokens: 131072\nmodelConfiguration:\n  model_type: other\n"
        ),
        "{out}"
    );
    assert!(out.ends_with("modelType: llama\nmodelFramework:\n  name: transformers\n  version: 4.45.0.dev0\nmodelParameterSize: \"136\"\n"), "{out}");
    // A second pass changes nothing.
    assert!(fill_spec(&mut spec, &m).is_empty());
    // An empty spec gets every field OME writes, in OME's order.
    let mut empty = Map::new();
    assert_eq!(
        fill_spec(&mut empty, &m),
        vec![
            "modelType",
            "modelArchitecture",
            "modelFramework",
            "modelFormat",
            "modelParameterSize",
            "maxTokens",
            "modelCapabilities",
            "modelConfiguration"
        ]
    );
}

#[test]
fn the_opt_out_annotation() {
    let obj = |v: &str| {
        parse_stream(
            &format!("metadata:\n  annotations:\n    ome.oracle.com/skip-config-parsing: {v}\n"),
            0,
        )
        .unwrap()
        .remove(0)
        .root
    };
    assert!(skips_config_parsing(&obj("\"true\"")));
    assert!(skips_config_parsing(&obj("\"TRUE\"")));
    assert!(!skips_config_parsing(&obj("\"false\"")));
    assert!(!skips_config_parsing(&obj("true")));
    assert!(!skips_config_parsing(&obj("\"yes\"")));
}

#[test]
fn a_config_without_architectures_gets_an_empty_one() {
    let (m, _) = metadata(&snapshot(r#"{"model_type": "llama"}"#, Weights::Missing));
    assert_eq!(m.architecture, "");
    assert!(patch_yaml(&m).contains("  modelArchitecture: \"\"\n"));
    assert_eq!(m.framework.version, None);
    assert!(
        patch_yaml(&m).contains("  modelFramework:\n    name: transformers\n  modelArchitecture")
    );
}

#[test]
fn python_floats_are_read_as_ome_reads_them() {
    // NaN becomes null (no value); Infinity becomes 1e308, which is no integer.
    let (m, _) = metadata(&snapshot(
        r#"{"model_type": "x", "max_position_embeddings": NaN, "seq_length": 2048, "rope_theta": Infinity}"#,
        Weights::Missing,
    ));
    assert_eq!(m.max_tokens, Some(2048));
    let d = derive(&snapshot(
        r#"{"model_type": "x", "hidden_size": Infinity}"#,
        Weights::Missing,
    ));
    assert!(d.metadata.is_none());
    assert!(
        d.diags[0]
            .message
            .contains("`hidden_size` is a number, where OME reads an integer")
    );
}

#[test]
fn an_hf_quant_config_of_null_still_stops_the_fallback() {
    let config = r#"{"model_type": "llama", "architectures": ["LlamaForCausalLM"],
        "quantization_config": {"quant_method": "fp8"}}"#;
    let tensors = header_bytes(&[
        ("a.weight", "F8_E4M3", &[4]),
        ("a.weight_scale", "F32", &[2]),
    ]);
    let mut files = snapshot(config, weights(&[("snap/m.safetensors", tensors)]));
    // `null`: an empty configuration. No quantization, but scales are still skipped: 4.
    files.hf_quant_config = Some(json("snap/hf_quant_config.json", "null"));
    let (m, diags) = metadata(&files);
    assert_eq!((m.parameter_count, m.quantization.as_deref()), (4, None));
    assert!(diags.is_empty(), "{diags:?}");
    // An empty file is no file: config.json's fp8 applies.
    files.hf_quant_config = Some(json("snap/hf_quant_config.json", ""));
    let (m, diags) = metadata(&files);
    assert_eq!(
        (m.parameter_count, m.quantization.as_deref()),
        (4, Some("fp8"))
    );
    assert!(diags.is_empty(), "{diags:?}");
}

#[test]
fn fill_spec_keeps_a_named_format_and_fills_a_pipeline() {
    let (m, _) = metadata(&pipeline_files());
    let mut spec =
        spec_of("modelFormat:\n  name: diffusers\nmodelFramework: {}\nquantization: fp8\n");
    let filled = fill_spec(&mut spec, &m);
    assert_eq!(
        filled,
        vec![
            "modelType",
            "modelArchitecture",
            "modelParameterSize",
            "maxTokens",
            "modelCapabilities",
            "modelConfiguration",
            "diffusionPipeline"
        ]
    );
    assert_eq!(spec.get("modelFormat").and_then(|f| f.get("version")), None);
    assert_eq!(spec.get("quantization").and_then(Node::as_str), Some("fp8"));
}
