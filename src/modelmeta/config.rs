//! `config.json` as OME's `GenericModelConfig` reads it: the fields it decodes, the nested
//! language-model configuration of multimodal models, the vision signals, the context
//! length and the parameter estimate used when no safetensors header is available.

use super::quant::EmbeddedQuant;
use crate::go::decode::{Decoder, TypeMismatch, root_object};
use crate::yaml::{Map, Node, Value};

/// The nested configuration keys probed for multimodal models; the first one present wins.
const NESTED_KEYS: [&str; 3] = ["text_config", "llm_config", "language_config"];

/// Top-level keys whose presence alone marks a model as vision-capable.
const VISION_KEYS: [&str; 5] = [
    "vision_config",
    "mm_vision_tower",
    "image_token_id",
    "image_token_index",
    "img_processor",
];

/// What OME knows about a transformer model from its `config.json`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TransformerConfig {
    pub(crate) model_type: String,
    pub(crate) architectures: Vec<String>,
    pub(crate) torch_dtype: String,
    pub(crate) transformers_version: String,
    pub(crate) hidden_size: i64,
    pub(crate) num_hidden_layers: i64,
    pub(crate) num_attention_heads: i64,
    pub(crate) intermediate_size: i64,
    pub(crate) max_position_embeddings: i64,
    pub(crate) max_sequence_length: i64,
    pub(crate) max_seq_len: i64,
    pub(crate) seq_length: i64,
    pub(crate) model_max_length: i64,
    pub(crate) vocab_size: i64,
    pub(crate) n_routed_experts: i64,
    pub(crate) n_shared_experts: i64,
    pub(crate) moe_intermediate_size: i64,
    pub(crate) quantization: Option<EmbeddedQuant>,
    pub(crate) has_vision: bool,
}

/// Why OME would not accept a `config.json`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ConfigProblem {
    /// The root is not an object.
    NotAnObject(&'static str),
    /// A field of the wrong type: Go's decoder fails the whole file.
    Type(TypeMismatch),
    /// `model_type` is absent or empty.
    NoModelType,
}

impl TransformerConfig {
    /// Decodes `config.json` (its root node; `None` for the text `null`).
    pub(crate) fn read(root: Option<&Node>) -> Result<TransformerConfig, ConfigProblem> {
        let obj = root_object(root).map_err(ConfigProblem::NotAnObject)?;
        let empty = Map::new();
        let obj = obj.unwrap_or(&empty);
        let mut d = Decoder::default();
        let mut c = TransformerConfig {
            model_type: d.string(obj, "model_type", ""),
            architectures: d.strings(obj, "architectures", "").unwrap_or_default(),
            torch_dtype: d.string(obj, "torch_dtype", ""),
            transformers_version: d.string(obj, "transformers_version", ""),
            hidden_size: d.int(obj, "hidden_size", ""),
            num_hidden_layers: d.int(obj, "num_hidden_layers", ""),
            num_attention_heads: d.int(obj, "num_attention_heads", ""),
            intermediate_size: d.int(obj, "intermediate_size", ""),
            max_position_embeddings: d.int(obj, "max_position_embeddings", ""),
            max_sequence_length: d.int(obj, "max_sequence_length", ""),
            max_seq_len: d.int(obj, "max_seq_len", ""),
            seq_length: d.int(obj, "seq_length", ""),
            model_max_length: d.int(obj, "model_max_length", ""),
            vocab_size: d.int(obj, "vocab_size", ""),
            n_routed_experts: d.int(obj, "n_routed_experts", ""),
            n_shared_experts: d.int(obj, "n_shared_experts", ""),
            moe_intermediate_size: d.int(obj, "moe_intermediate_size", ""),
            quantization: None,
            has_vision: false,
        };
        for q in d.objects(obj, "quantization_config", "") {
            match q {
                None => c.quantization = None,
                Some(q) => c
                    .quantization
                    .get_or_insert_with(Default::default)
                    .decode(q, &mut d),
            }
        }
        if let Some(e) = d.errors.into_iter().next() {
            return Err(ConfigProblem::Type(e));
        }
        if c.model_type.is_empty() {
            return Err(ConfigProblem::NoModelType);
        }
        c.probe(obj);
        Ok(c)
    }

    /// OME's `probeNestedConfig`: fill zero fields from the first nested language-model
    /// configuration that decodes, count experts under their other names, and look for
    /// vision signals. The nested keys and vision keys match exactly (they are map keys,
    /// not struct fields).
    fn probe(&mut self, obj: &Map) {
        for key in NESTED_KEYS {
            let Some(sub) = last_exact(obj, key) else {
                continue;
            };
            let nested = match &sub.value {
                // `null` decodes as an empty configuration and ends the search.
                Value::Null => Some(Nested::default()),
                Value::Map(m) => Nested::read(m),
                _ => None,
            };
            if let Some(nested) = nested {
                self.merge(&nested);
                break;
            }
        }
        if self.n_routed_experts == 0 {
            self.n_routed_experts = top_level_experts(obj);
        }
        self.has_vision = VISION_KEYS.iter().any(|k| last_exact(obj, k).is_some());
    }

    fn merge(&mut self, n: &Nested) {
        if self.architectures.is_empty() && !n.architectures.is_empty() {
            self.architectures = n.architectures.clone();
        }
        let fill = |slot: &mut i64, v: i64| {
            if *slot == 0 {
                *slot = v;
            }
        };
        fill(&mut self.hidden_size, n.hidden_size);
        fill(&mut self.num_hidden_layers, n.num_hidden_layers);
        fill(&mut self.num_attention_heads, n.num_attention_heads);
        fill(&mut self.intermediate_size, n.intermediate_size);
        fill(&mut self.max_position_embeddings, n.max_position_embeddings);
        fill(&mut self.vocab_size, n.vocab_size);
        if self.transformers_version.is_empty() {
            self.transformers_version = n.transformers_version.clone();
        }
        if self.torch_dtype.is_empty() {
            self.torch_dtype = n.torch_dtype.clone();
        }
        if self.torch_dtype.is_empty() {
            self.torch_dtype = n.dtype.clone();
        }
        if self.n_routed_experts == 0 {
            self.n_routed_experts =
                first_positive(&[n.n_routed_experts, n.num_local_experts, n.num_experts]);
        }
        fill(&mut self.n_shared_experts, n.n_shared_experts);
        fill(&mut self.moe_intermediate_size, n.moe_intermediate_size);
    }

    /// The first architecture, or `""`.
    pub(crate) fn architecture(&self) -> &str {
        self.architectures.first().map_or("", String::as_str)
    }

    /// The first positive of `max_position_embeddings` (possibly from the nested
    /// configuration), `max_sequence_length`, `max_seq_len`, `seq_length` and
    /// `model_max_length`; 0 when none is.
    pub(crate) fn context_length(&self) -> i64 {
        first_positive(&[
            self.max_position_embeddings,
            self.max_sequence_length,
            self.max_seq_len,
            self.seq_length,
            self.model_max_length,
        ])
    }

    /// OME's estimate without safetensors headers: 0 unless `hidden_size` and
    /// `num_hidden_layers` are positive; the mixture-of-experts formula when the model has
    /// routed experts, else `vocab × hidden + layers × 12 × hidden²`. Go's integers wrap on
    /// overflow, and so do these.
    pub(crate) fn estimate(&self) -> i64 {
        let (h, l, v) = (self.hidden_size, self.num_hidden_layers, self.vocab_size);
        if h <= 0 || l <= 0 {
            return 0;
        }
        if self.n_routed_experts > 0 {
            let inter = self.intermediate_size;
            let moe = if self.moe_intermediate_size == 0 {
                inter
            } else {
                self.moe_intermediate_size
            };
            let (routed, shared) = (self.n_routed_experts, self.n_shared_experts);
            let per_layer = (4i64.wrapping_mul(h).wrapping_mul(h))
                .wrapping_add(shared.wrapping_mul(2).wrapping_mul(h).wrapping_mul(inter))
                .wrapping_add(routed.wrapping_mul(2).wrapping_mul(h).wrapping_mul(moe))
                .wrapping_add(h.wrapping_mul(routed))
                .wrapping_add(2i64.wrapping_mul(h));
            return h.wrapping_mul(v).wrapping_add(l.wrapping_mul(per_layer));
        }
        v.wrapping_mul(h)
            .wrapping_add(l.wrapping_mul(12i64.wrapping_mul(h).wrapping_mul(h)))
    }
}

/// The fields OME takes from a nested language-model configuration.
#[derive(Clone, Debug, Default)]
struct Nested {
    architectures: Vec<String>,
    hidden_size: i64,
    num_hidden_layers: i64,
    num_attention_heads: i64,
    intermediate_size: i64,
    max_position_embeddings: i64,
    vocab_size: i64,
    transformers_version: String,
    torch_dtype: String,
    dtype: String,
    n_routed_experts: i64,
    num_local_experts: i64,
    num_experts: i64,
    n_shared_experts: i64,
    moe_intermediate_size: i64,
}

impl Nested {
    /// `None` when a field has the wrong type: OME then skips this key and tries the next.
    fn read(m: &Map) -> Option<Nested> {
        let mut d = Decoder::default();
        let n = Nested {
            architectures: d.strings(m, "architectures", "").unwrap_or_default(),
            hidden_size: d.int(m, "hidden_size", ""),
            num_hidden_layers: d.int(m, "num_hidden_layers", ""),
            num_attention_heads: d.int(m, "num_attention_heads", ""),
            intermediate_size: d.int(m, "intermediate_size", ""),
            max_position_embeddings: d.int(m, "max_position_embeddings", ""),
            vocab_size: d.int(m, "vocab_size", ""),
            transformers_version: d.string(m, "transformers_version", ""),
            torch_dtype: d.string(m, "torch_dtype", ""),
            dtype: d.string(m, "dtype", ""),
            n_routed_experts: d.int(m, "n_routed_experts", ""),
            num_local_experts: d.int(m, "num_local_experts", ""),
            num_experts: d.int(m, "num_experts", ""),
            n_shared_experts: d.int(m, "n_shared_experts", ""),
            moe_intermediate_size: d.int(m, "moe_intermediate_size", ""),
        };
        d.errors.is_empty().then_some(n)
    }
}

/// `num_local_experts` or `num_experts` at the top level; 0 when either has the wrong type.
fn top_level_experts(obj: &Map) -> i64 {
    let mut d = Decoder::default();
    let local = d.int(obj, "num_local_experts", "");
    let experts = d.int(obj, "num_experts", "");
    if d.errors.is_empty() {
        first_positive(&[local, experts])
    } else {
        0
    }
}

pub(crate) fn first_positive(values: &[i64]) -> i64 {
    values.iter().copied().find(|v| *v > 0).unwrap_or(0)
}

/// The value of the last key spelled exactly `key` (a Go map lookup after decoding).
fn last_exact<'m>(obj: &'m Map, key: &str) -> Option<&'m Node> {
    obj.iter().filter(|(k, _)| *k == key).map(|(_, v)| v).last()
}

/// `max_position_embeddings` of a diffusion pipeline's `text_encoder/config.json`; 0 when
/// the file is unreadable or the field has the wrong type.
pub(crate) fn text_encoder_context(root: Option<&Node>) -> i64 {
    let Ok(Some(obj)) = root_object(root) else {
        return 0;
    };
    let mut d = Decoder::default();
    let v = d.int(obj, "max_position_embeddings", "");
    if d.errors.is_empty() { v } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::decode::parse_json;

    fn read(text: &str) -> Result<TransformerConfig, ConfigProblem> {
        TransformerConfig::read(parse_json(text, 0).unwrap().as_ref())
    }

    fn ok(text: &str) -> TransformerConfig {
        read(text).unwrap()
    }

    /// OME's TestGenericContextLengthCascade.
    #[test]
    fn context_length_cascade() {
        for (json, want) in [
            (
                r#"{"model_type":"unknown","max_position_embeddings":4096,"max_sequence_length":2048,"seq_length":1024,"model_max_length":512}"#,
                4096,
            ),
            (
                r#"{"model_type":"unknown","max_sequence_length":2048,"seq_length":1024}"#,
                2048,
            ),
            (
                r#"{"model_type":"unknown","max_seq_len":3000,"seq_length":1024}"#,
                3000,
            ),
            (r#"{"model_type":"unknown","seq_length":8192}"#, 8192),
            (r#"{"model_type":"unknown","model_max_length":4096}"#, 4096),
            (
                r#"{"model_type":"unknown","max_position_embeddings":-1,"seq_length":5}"#,
                5,
            ),
            (r#"{"model_type":"unknown","hidden_size":4096}"#, 0),
        ] {
            assert_eq!(ok(json).context_length(), want, "{json}");
        }
    }

    /// OME's TestGenericNestedDtypeRescue.
    #[test]
    fn nested_dtype_rescue() {
        for (json, want) in [
            (
                r#"{"model_type":"unknown","torch_dtype":"bfloat16","text_config":{"dtype":"float16"}}"#,
                "bfloat16",
            ),
            (
                r#"{"model_type":"unknown","text_config":{"dtype":"float16"}}"#,
                "float16",
            ),
            (
                r#"{"model_type":"unknown","text_config":{"torch_dtype":"float16"}}"#,
                "float16",
            ),
            (r#"{"model_type":"unknown","hidden_size":4096}"#, ""),
            // The top-level `dtype` is not read.
            (r#"{"model_type":"unknown","dtype":"float16"}"#, ""),
        ] {
            assert_eq!(ok(json).torch_dtype, want, "{json}");
        }
    }

    /// OME's TestGenericVisionShapeDetection.
    #[test]
    fn vision_signals() {
        for (json, want) in [
            (
                r#"{"model_type":"unknown_vl","vision_config":{"hidden_size":1024}}"#,
                true,
            ),
            (
                r#"{"model_type":"unknown_mm","mm_vision_tower":"openai/clip-vit"}"#,
                true,
            ),
            (
                r#"{"model_type":"unknown_qwen","image_token_id":151655}"#,
                true,
            ),
            (
                r#"{"model_type":"unknown_gemma","image_token_index":262144}"#,
                true,
            ),
            (
                r#"{"model_type":"unknown_phi","img_processor":{"name":"clip_vision_model"}}"#,
                true,
            ),
            (r#"{"model_type":"unknown_text","hidden_size":4096}"#, false),
            (
                r#"{"model_type":"unknown_text","mm_use_im_start_end":false}"#,
                false,
            ),
            // Presence is enough, even `null`; the key must be spelled exactly.
            (r#"{"model_type":"x","vision_config":null}"#, true),
            (r#"{"model_type":"x","Vision_Config":{}}"#, false),
        ] {
            assert_eq!(ok(json).has_vision, want, "{json}");
        }
    }

    /// OME's TestGenericMultimodalFallback (llm_config): the nested values fill the gaps,
    /// the nested context beats the top-level `max_sequence_length`, and the estimate is
    /// the mixture-of-experts one.
    #[test]
    fn nested_llm_config_fills_the_gaps() {
        let c = ok(r#"{
            "architectures": ["Reasoning_V3"], "model_type": "Reasoning_V3",
            "torch_dtype": "bfloat16", "max_sequence_length": 131072,
            "llm_config": {"architectures": ["CausalLM"], "transformers_version": "4.55.4",
                "hidden_size": 2688, "num_hidden_layers": 52, "num_attention_heads": 32,
                "intermediate_size": 1856, "max_position_embeddings": 262144,
                "vocab_size": 131072, "n_routed_experts": 128, "n_shared_experts": 1,
                "moe_intermediate_size": 1856},
            "vision_config": {"architectures": ["RADIOModel"]}
        }"#);
        assert_eq!(c.transformers_version, "4.55.4");
        assert_eq!(c.architecture(), "Reasoning_V3");
        assert_eq!(c.context_length(), 262144);
        assert!(c.has_vision);
        // 2688·131072 + 52·(4·2688² + 1·2·2688·1856 + 128·2·2688·1856 + 2688·128 + 2·2688)
        let per_layer =
            4 * 2688 * 2688 + 2 * 2688 * 1856 + 128 * 2 * 2688 * 1856 + 2688 * 128 + 2 * 2688;
        assert_eq!(c.estimate(), 2688 * 131072 + 52 * per_layer);
        assert_eq!(c.estimate(), 68_804_822_016);
    }

    #[test]
    fn nested_keys_in_order_and_a_bad_one_is_skipped() {
        // text_config wins over language_config.
        let c = ok(
            r#"{"model_type":"x","text_config":{"hidden_size":1},"language_config":{"hidden_size":2}}"#,
        );
        assert_eq!(c.hidden_size, 1);
        // A nested config with a wrong type is skipped; the next key is tried.
        let c = ok(
            r#"{"model_type":"x","text_config":{"hidden_size":"1"},"language_config":{"hidden_size":2}}"#,
        );
        assert_eq!(c.hidden_size, 2);
        // `null` decodes as nothing and ends the search.
        let c = ok(r#"{"model_type":"x","text_config":null,"language_config":{"hidden_size":2}}"#);
        assert_eq!(c.hidden_size, 0);
        // The top level wins over the nested value.
        let c = ok(
            r#"{"model_type":"x","hidden_size":7,"text_config":{"hidden_size":2,"architectures":["A"]}}"#,
        );
        assert_eq!((c.hidden_size, c.architecture()), (7, "A"));
    }

    #[test]
    fn experts_under_their_other_names() {
        assert_eq!(
            ok(r#"{"model_type":"x","num_local_experts":8}"#).n_routed_experts,
            8
        );
        assert_eq!(
            ok(r#"{"model_type":"x","num_experts":16}"#).n_routed_experts,
            16
        );
        assert_eq!(
            ok(r#"{"model_type":"x","num_local_experts":8,"num_experts":1.0}"#).n_routed_experts,
            0
        );
        assert_eq!(
            ok(r#"{"model_type":"x","text_config":{"num_experts":4,"num_local_experts":2}}"#)
                .n_routed_experts,
            2
        );
    }

    /// OME's TestGenericConfigFallback (Falcon) and TestGenericMoEFallback, with the numbers
    /// worked out.
    #[test]
    fn estimates() {
        let falcon = ok(
            r#"{"model_type":"falcon","hidden_size":4544,"num_hidden_layers":32,"vocab_size":65024}"#,
        );
        // 65024·4544 + 32·12·4544²
        assert_eq!(falcon.estimate(), 65024 * 4544 + 32 * 12 * 4544 * 4544);
        let moe = ok(
            r#"{"model_type":"some_moe","hidden_size":4096,"num_hidden_layers":32,
            "intermediate_size":14336,"vocab_size":32000,"num_local_experts":8,"moe_intermediate_size":14336}"#,
        );
        let per_layer = 4 * 4096 * 4096 + 8 * 2 * 4096 * 14336 + 4096 * 8 + 2 * 4096;
        assert_eq!(moe.estimate(), 4096 * 32000 + 32 * per_layer);
        assert!(moe.estimate() > 30_000_000_000);
        assert_eq!(ok(r#"{"model_type":"x","hidden_size":4096}"#).estimate(), 0);
        // A missing moe_intermediate_size falls back to intermediate_size.
        let c = ok(
            r#"{"model_type":"x","hidden_size":2,"num_hidden_layers":1,"intermediate_size":3,"n_routed_experts":1}"#,
        );
        assert_eq!(c.estimate(), 4 * 4 + 2 * 2 * 3 + 2 + 2 * 2);
        // Overflow wraps as Go's integers do.
        let huge = ok(
            r#"{"model_type":"x","hidden_size":4611686018427387904,"num_hidden_layers":1,"vocab_size":4}"#,
        );
        assert_eq!(huge.estimate(), 0);
    }

    #[test]
    fn what_ome_refuses() {
        assert_eq!(
            read(r#"{"architectures":["A"]}"#),
            Err(ConfigProblem::NoModelType)
        );
        assert_eq!(
            read(r#"{"model_type":""}"#),
            Err(ConfigProblem::NoModelType)
        );
        assert_eq!(read("[1]"), Err(ConfigProblem::NotAnObject("an array")));
        assert_eq!(read("null"), Err(ConfigProblem::NoModelType));
        let Err(ConfigProblem::Type(e)) =
            read("{\"model_type\":\"x\",\n\"quantization_config\":{\"bits\":\"4\"}}")
        else {
            panic!("a type error");
        };
        assert_eq!(
            (e.field.as_str(), e.pos.line),
            ("quantization_config.bits", 2)
        );
        assert!(matches!(
            read(r#"{"model_type":"x","hidden_size":4096.0}"#),
            Err(ConfigProblem::Type(_))
        ));
        assert!(matches!(
            read(r#"{"model_type":"x","architectures":"A"}"#),
            Err(ConfigProblem::Type(_))
        ));
        assert!(matches!(
            read(r#"{"model_type":"x","quantization_config":"fp8"}"#),
            Err(ConfigProblem::Type(_))
        ));
        // Fields OME does not read may hold anything.
        assert!(read(r#"{"model_type":"x","rope_scaling":"yarn","eos_token_id":[1,2]}"#).is_ok());
    }

    #[test]
    fn case_insensitive_fields_and_null() {
        let c = ok(
            r#"{"Model_Type":"llama","ARCHITECTURES":["A"],"hidden_size":null,"quantization_config":null}"#,
        );
        assert_eq!(
            (c.model_type.as_str(), c.architecture(), c.hidden_size),
            ("llama", "A", 0)
        );
        assert!(c.quantization.is_none());
    }

    #[test]
    fn text_encoder_context_reads_one_field() {
        let ctx = |t: &str| text_encoder_context(parse_json(t, 0).unwrap().as_ref());
        assert_eq!(ctx(r#"{"max_position_embeddings": 77}"#), 77);
        assert_eq!(ctx(r#"{"max_position_embeddings": "77"}"#), 0);
        assert_eq!(ctx("[]"), 0);
    }
}
