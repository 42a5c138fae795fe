//! Quantization as OME's agent sees it: the two places it is declared, the algorithm name
//! OME resolves, the `spec.quantization` value it maps that name to, and how each tensor of
//! a quantized model counts towards the parameter size.
//!
//! Sources, highest priority first: a standalone `hf_quant_config.json` (NVIDIA ModelOpt),
//! then `quantization_config` inside `config.json`. One resolved configuration drives both
//! `spec.quantization` and the counting, as in OME.

use crate::go::decode::{Decoder, root_object};
use crate::yaml::Node;

/// The resolved quantization configuration (OME's `HFQuantConfig`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct QuantConfig {
    pub(crate) quant_method: String,
    /// The algorithm name (`quantization.quant_algo`), which maps to `spec.quantization`.
    pub(crate) quant_algo: String,
    /// Tensor-name patterns kept at full precision.
    pub(crate) exclude_modules: Vec<String>,
}

/// `hf_quant_config.json`. `Ok(None)` only for an empty file, which OME treats as absent;
/// the text `null` gives an empty configuration, which still stops the fallback to
/// `config.json`, as in OME.
pub(crate) fn read_hf_quant_config(root: Option<&Node>) -> Result<QuantConfig, String> {
    let obj = root_object(root).map_err(|found| format!("the file is {found}, not an object"))?;
    let mut d = Decoder::default();
    let mut out = QuantConfig::default();
    if let Some(obj) = obj {
        out.quant_method = d.string(obj, "quant_method", "");
        for q in d.objects(obj, "quantization", "") {
            match q {
                None => {}
                Some(q) => {
                    let algo = d.string(q, "quant_algo", "quantization");
                    if q.iter()
                        .any(|(k, _)| crate::go::decode::key_matches(k, "quant_algo"))
                    {
                        out.quant_algo = algo;
                    }
                    // Read for their types only: OME refuses the file when they are wrong.
                    let _ = d.int(q, "group_size", "quantization");
                    let _ = d.string(q, "kv_cache_quant_algo", "quantization");
                    let exclude = d.strings(q, "exclude_modules", "quantization");
                    if q.iter()
                        .any(|(k, _)| crate::go::decode::key_matches(k, "exclude_modules"))
                    {
                        out.exclude_modules = exclude.unwrap_or_default();
                    }
                }
            }
        }
    }
    match d.errors.first() {
        Some(e) => Err(e.message()),
        None => Ok(out),
    }
}

/// `quantization_config` inside `config.json` (OME's `QuantizationConfig`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct EmbeddedQuant {
    pub(crate) quant_method: String,
    pub(crate) quant_algo: String,
    pub(crate) bits: i64,
    pub(crate) modules_to_not_convert: Option<Vec<String>>,
    pub(crate) ignore: Option<Vec<String>>,
    pub(crate) ignored_layers: Option<Vec<String>>,
}

impl EmbeddedQuant {
    /// Decodes one `quantization_config` object into `self` (Go decodes a repeated key into
    /// the same struct, so later keys overwrite field by field).
    pub(crate) fn decode(&mut self, obj: &crate::yaml::Map, d: &mut Decoder) {
        let path = "quantization_config";
        let present = |f: &'static str| {
            obj.iter()
                .any(|(k, _)| crate::go::decode::key_matches(k, f))
        };
        let method = d.string(obj, "quant_method", path);
        if present("quant_method") {
            self.quant_method = method;
        }
        let algo = d.string(obj, "quant_algo", path);
        if present("quant_algo") {
            self.quant_algo = algo;
        }
        let bits = d.int(obj, "bits", path);
        if present("bits") {
            self.bits = bits;
        }
        for (field, slot) in [
            ("modules_to_not_convert", &mut self.modules_to_not_convert),
            ("ignore", &mut self.ignore),
            ("ignored_layers", &mut self.ignored_layers),
        ] {
            if present(field) {
                *slot = d.strings(obj, field, path);
            }
        }
        // Read for their types only.
        let _ = d.string(obj, "activation_scheme", path);
        let _ = d.string(obj, "fmt", path);
        let _ = d.ints(obj, "weight_block_size", path);
    }

    /// The first non-empty exclusion list: `modules_to_not_convert`, then `ignore`
    /// (compressed-tensors), then `ignored_layers`.
    fn exclude_patterns(&self) -> Vec<String> {
        [
            &self.modules_to_not_convert,
            &self.ignore,
            &self.ignored_layers,
        ]
        .into_iter()
        .flatten()
        .find(|l| !l.is_empty())
        .cloned()
        .unwrap_or_default()
    }

    /// The algorithm name: `quant_algo` when set, else `quant_method`, written
    /// `INT<bits>_<METHOD>` for GPTQ and AWQ with `bits` (so `gptq` with 4 bits is
    /// `INT4_GPTQ`). Both trimmed.
    pub(crate) fn resolve_algo(&self) -> String {
        let algo = self.quant_algo.trim();
        if !algo.is_empty() {
            return algo.to_string();
        }
        let method = self.quant_method.trim();
        if self.bits > 0 && (method == "gptq" || method == "awq") {
            return format!("INT{}_{}", self.bits, method.to_uppercase());
        }
        method.to_string()
    }

    /// The configuration the counting uses; `None` for an unquantized model.
    pub(crate) fn to_quant_config(&self) -> Option<QuantConfig> {
        let algo = self.resolve_algo();
        if algo.is_empty() {
            return None;
        }
        Some(QuantConfig {
            quant_method: self.quant_method.clone(),
            quant_algo: algo,
            exclude_modules: self.exclude_patterns(),
        })
    }
}

/// OME's `spec.quantization` value for an algorithm name, or `None` for one it does not
/// recognise. Case-insensitive, trimmed; `int4` and `w4a` anywhere mean `int4`, `fp8`
/// anywhere means `fp8` (after `fbgemm_fp8`).
pub(crate) fn quantization_value(algo: &str) -> Option<&'static str> {
    let v = algo.trim().to_lowercase();
    if v.is_empty() {
        return None;
    }
    Some(match v.as_str() {
        "fbgemm_fp8" => "fbgemm_fp8",
        "nvfp4" => "nvfp4",
        "mxfp4" => "mxfp4",
        _ if v.contains("int4") || v.contains("w4a") => "int4",
        _ if v.contains("fp8") => "fp8",
        // v1.3 as documented lists `compressed-tensors` among the values the agent writes.
        "compressed-tensors" | "compressed_tensors" => "compressed-tensors",
        _ => return None,
    })
}

/// Whether a tensor is a quantization scale, zero point or index (not a parameter). Only
/// the last dot-segment counts: an exact name, or one ending in an underscore suffix.
pub(crate) fn is_scale_tensor(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "weight_scale",
        "weight_scale_2",
        "weight_scale_inv",
        "input_scale",
        "k_scale",
        "v_scale",
        "kv_scale",
        "kv_cache_scaling_factor",
        "weight_zero_point",
        "scales",
        "zeros",
        "qzeros",
        "g_idx",
    ];
    const SUFFIXES: &[&str] = &[
        "_scale",
        "_scales",
        "_scale_2",
        "_scale_inv",
        "_input_scale",
        "_weight_scale",
        "_weight_scale_2",
        "_weight_scale_inv",
        "_weight_zero_point",
        "_kv_scale",
        "_kv_cache_scaling_factor",
    ];
    let base = name.rsplit('.').next().unwrap_or(name);
    EXACT.contains(&base) || SUFFIXES.iter().any(|s| base.ends_with(s))
}

/// Whether a tensor belongs to an excluded module. A pattern with `*` is a glob whose `*`
/// stands for one or more characters other than `.`, found anywhere in the name; any other
/// pattern is a substring. Empty patterns never match.
#[cfg(test)]
pub(crate) fn is_excluded(name: &str, patterns: &[String]) -> bool {
    Exclusions::new(patterns).matches(name)
}

/// The excluded-module patterns, compiled once for every tensor of a model: the substrings
/// in one automaton (a name is searched once, however many there are), each distinct glob
/// split into its parts and matched without backtracking.
pub(crate) struct Exclusions {
    substrings: Option<aho_corasick::AhoCorasick>,
    /// The substrings themselves, searched one by one should the automaton not build.
    plain: Vec<String>,
    globs: Vec<Vec<String>>,
    /// Each glob's longest part, in one automaton: only the globs whose longest part occurs
    /// in a name are matched against it, so many globs cost what the ones that could match
    /// cost. Globs of stars alone (no part) are always matched.
    anchors: Option<aho_corasick::AhoCorasick>,
    /// The glob of each anchor pattern, and the globs without one.
    anchored: Vec<usize>,
    unanchored: Vec<usize>,
}

impl Exclusions {
    pub(crate) fn new(patterns: &[String]) -> Exclusions {
        let mut plain: Vec<&str> = Vec::new();
        let mut globs: Vec<Vec<String>> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for p in patterns.iter().filter(|p| !p.is_empty()) {
            if !seen.insert(p.as_str()) {
                continue;
            }
            if p.contains('*') {
                globs.push(p.split('*').map(str::to_string).collect());
            } else {
                plain.push(p);
            }
        }
        let substrings = (!plain.is_empty())
            .then(|| aho_corasick::AhoCorasick::new(&plain).ok())
            .flatten();
        let (mut anchor_parts, mut anchored, mut unanchored) = (Vec::new(), Vec::new(), Vec::new());
        for (i, parts) in globs.iter().enumerate() {
            match parts
                .iter()
                .max_by_key(|p| p.len())
                .filter(|p| !p.is_empty())
            {
                Some(longest) => {
                    anchor_parts.push(longest.as_str());
                    anchored.push(i);
                }
                None => unanchored.push(i),
            }
        }
        let anchors = aho_corasick::AhoCorasick::new(&anchor_parts).ok();
        if anchors.is_none() {
            // Every glob is matched, as without the automaton.
            unanchored.append(&mut anchored);
        }
        Exclusions {
            plain: if substrings.is_some() {
                Vec::new()
            } else {
                plain.iter().map(|p| p.to_string()).collect()
            },
            substrings,
            globs,
            anchors,
            anchored,
            unanchored,
        }
    }

    pub(crate) fn matches(&self, name: &str) -> bool {
        if self.substrings.as_ref().is_some_and(|a| a.is_match(name))
            || self.plain.iter().any(|p| name.contains(p.as_str()))
        {
            return true;
        }
        let glob = |i: &usize| glob_matches(name.as_bytes(), &self.globs[*i]);
        if self.unanchored.iter().any(glob) {
            return true;
        }
        let Some(anchors) = &self.anchors else {
            return false;
        };
        let mut tried = std::collections::HashSet::new();
        anchors
            .find_overlapping_iter(name)
            .map(|m| self.anchored[m.pattern().as_usize()])
            .filter(|i| tried.insert(*i))
            .any(|i| glob(&i))
    }
}

/// Whether `parts[0]`, then for each later part one or more non-dot bytes and that part,
/// occur in `name` (anywhere, not necessarily to its end). The positions each prefix of the
/// glob can reach are carried part by part, so a name costs its length times the glob's.
fn glob_matches(name: &[u8], parts: &[String]) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return false;
    };
    let n = name.len();
    // reach[e]: the glob so far matches some text ending just before byte e.
    let mut reach: Vec<bool> = (0..=n)
        .map(|e| e >= first.len() && name[e - first.len()..e] == *first.as_bytes())
        .collect();
    for part in rest {
        let part = part.as_bytes();
        let mut next = vec![false; n + 1];
        // Whether a star can have started at a reached position before `e` and run through
        // non-dot bytes up to `e` (at least one byte).
        let mut open = false;
        let mut any = false;
        for e in 0..=n {
            if open && name[e..].starts_with(part) {
                next[e + part.len()] = true;
                any = true;
            }
            if e < n {
                open = (open || reach[e]) && name[e] != b'.';
            }
        }
        if !any {
            return false;
        }
        reach = next;
    }
    reach.iter().any(|r| *r)
}

/// How many parameters one stored element holds: 2 for NVFP4, MXFP4 and FP4 in bytes; for
/// INT4 and W4A* schemes 8 in 32-bit, 4 in 16-bit and 2 in 8-bit integers; otherwise 1.
pub(crate) fn packing_factor(algo: &str, dtype: &str) -> i64 {
    let algo = algo.trim().to_lowercase();
    let dt = dtype.trim().to_uppercase();
    if algo.is_empty() {
        return 1;
    }
    if matches!(algo.as_str(), "nvfp4" | "mxfp4" | "fp4") {
        if matches!(dt.as_str(), "U8" | "I8" | "UINT8" | "INT8") {
            return 2;
        }
    } else if algo.contains("int4") || algo.contains("w4a") {
        match dt.as_str() {
            "I32" | "U32" | "INT32" | "UINT32" => return 8,
            "I16" | "U16" | "INT16" | "UINT16" => return 4,
            "U8" | "I8" | "UINT8" | "INT8" => return 2,
            _ => {}
        }
    }
    1
}

/// The parameters one tensor counts for (OME's `CountTensorParams`): the product of its
/// dimensions (0 for a scalar, a non-positive dimension or an overflow); with a
/// quantization configuration, scales count 0, excluded modules their product, and other
/// tensors their product times the packing factor (0 on overflow).
#[cfg(test)]
pub(crate) fn tensor_params(
    name: &str,
    shape: &[i64],
    dtype: &str,
    quant: Option<&QuantConfig>,
) -> i64 {
    let exclusions = Exclusions::new(quant.map_or(&[][..], |q| &q.exclude_modules));
    tensor_params_with(name, shape, dtype, quant, &exclusions)
}

/// [`tensor_params`] with the exclusions of `quant` already compiled.
pub(crate) fn tensor_params_with(
    name: &str,
    shape: &[i64],
    dtype: &str,
    quant: Option<&QuantConfig>,
    exclusions: &Exclusions,
) -> i64 {
    if shape.is_empty() {
        return 0;
    }
    let mut count: i64 = 1;
    for &dim in shape {
        if dim <= 0 {
            return 0;
        }
        match count.checked_mul(dim) {
            Some(c) => count = c,
            None => return 0,
        }
    }
    let Some(quant) = quant else { return count };
    if is_scale_tensor(name) {
        return 0;
    }
    if exclusions.matches(name) {
        return count;
    }
    count
        .checked_mul(packing_factor(&quant.quant_algo, dtype))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::decode::parse_json;

    /// OME's TestQuantAlgoToOMEEnum, with `compressed-tensors` as v1.3 documents it.
    #[test]
    fn quantization_values() {
        let cases = [
            ("fp8", Some("fp8")),
            ("fp8_per_tensor", Some("fp8")),
            ("FP8", Some("fp8")),
            ("fbgemm_fp8", Some("fbgemm_fp8")),
            ("int4", Some("int4")),
            ("INT4_AWQ", Some("int4")),
            ("int4_gptq", Some("int4")),
            ("W4A8_AWQ", Some("int4")),
            ("w4a16_awq", Some("int4")),
            ("NVFP4", Some("nvfp4")),
            ("nvfp4", Some("nvfp4")),
            ("MXFP4", Some("mxfp4")),
            ("mxfp4", Some("mxfp4")),
            ("compressed-tensors", Some("compressed-tensors")),
            ("compressed_tensors", Some("compressed-tensors")),
            ("Compressed-Tensors", Some("compressed-tensors")),
            (" nvfp4 ", Some("nvfp4")),
            ("", None),
            ("   ", None),
            ("some-future-quant-format", None),
            ("gptq", None),
            ("awq", None),
            ("modelopt", None),
        ];
        for (algo, want) in cases {
            assert_eq!(quantization_value(algo), want, "{algo:?}");
        }
    }

    /// OME's TestIsScaleTensor.
    #[test]
    fn scale_tensors() {
        let cases = [
            ("model.layers.5.mlp.gate_proj.weight_scale", true),
            ("model.layers.5.mlp.gate_proj.weight_scale_2", true),
            ("model.layers.5.mlp.gate_proj.input_scale", true),
            (
                "model.layers.5.self_attn.k_proj.kv_cache_scaling_factor",
                true,
            ),
            ("model.layers.5.mlp.gate_proj.scales", true),
            ("model.layers.5.mlp.gate_proj.qzeros", true),
            ("model.layers.5.mlp.gate_proj.g_idx", true),
            ("model.layers.5.mlp.gate_proj.weight_zero_point", true),
            ("model.layers.0.mlp.down_proj.weight_scale_inv", true),
            ("model.layers.0.mlp.experts.gate_up_proj_scales", true),
            ("model.layers.5.mlp.gate_proj.weight", false),
            ("model.layers.5.mlp.gate_proj.bias", false),
            ("model.layers.5.mlp.gate_proj.qweight", false),
            ("model.embed_tokens.weight", false),
            ("lm_head.weight", false),
            ("", false),
            ("model.layers.5.scaled_weight", false),
            ("model.layers.0.mlp.experts.gate_up_proj_blocks", false),
            ("logit_scale", true),
        ];
        for (name, want) in cases {
            assert_eq!(is_scale_tensor(name), want, "{name:?}");
        }
    }

    /// The glob as first written: backtracking from every start, the reference.
    fn glob_reference(name: &[u8], at: usize, parts: &[&str]) -> bool {
        let Some((first, rest)) = parts.split_first() else {
            return true;
        };
        if !name[at..].starts_with(first.as_bytes()) {
            return false;
        }
        let after = at + first.len();
        if rest.is_empty() {
            return true;
        }
        let mut end = after;
        while end < name.len() && name[end] != b'.' {
            end += 1;
            if glob_reference(name, end, rest) {
                return true;
            }
        }
        false
    }

    proptest::proptest! {
        /// The compiled exclusions agree with the backtracking glob and with substrings.
        #[test]
        fn exclusions_agree_with_the_backtracking_glob(
            name in "[ab.]{0,12}",
            patterns in proptest::collection::vec("[ab.*]{0,5}", 0..4),
        ) {
            let want = patterns.iter().any(|p| {
                if p.is_empty() {
                    false
                } else if p.contains('*') {
                    let parts: Vec<&str> = p.split('*').collect();
                    (0..=name.len()).any(|start| glob_reference(name.as_bytes(), start, &parts))
                } else {
                    name.contains(p.as_str())
                }
            });
            proptest::prop_assert_eq!(is_excluded(&name, &patterns), want);
        }
    }

    /// OME's TestIsExcludedTensor and its glob and full-path variants.
    #[test]
    fn excluded_tensors() {
        let s = |v: &[&str]| v.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        let plain = s(&["layers.0.", "layers.61.", "self_attn", "lm_head"]);
        for (name, want) in [
            ("model.layers.0.mlp.gate_proj.weight", true),
            ("model.layers.61.mlp.gate_proj.weight", true),
            ("model.layers.5.self_attn.k_proj.weight", true),
            ("lm_head.weight", true),
            ("model.layers.30.mlp.gate_proj.weight", false),
            ("model.layers.30.block_sparse_moe.gate.weight", false),
            ("model.embed_tokens.weight", false),
            ("", false),
        ] {
            assert_eq!(is_excluded(name, &plain), want, "{name:?}");
        }
        assert!(!is_excluded("model.layers.5.mlp.gate_proj.weight", &[]));
        let globs = s(&[
            "model.layers.*.self_attn",
            "model.layers.*.mlp.router",
            "model.embed_tokens",
            "lm_head",
        ]);
        for (name, want) in [
            ("model.layers.0.self_attn.k_proj.weight", true),
            ("model.layers.17.self_attn.q_proj.weight", true),
            ("model.layers.5.mlp.router.weight", true),
            ("model.embed_tokens.weight", true),
            ("lm_head.weight", true),
            ("model.layers.5.mlp.experts.gate_up_proj_blocks", false),
            ("model.layers.5.input_layernorm.weight", false),
            // `*` never crosses a dot, and needs at least one character.
            ("model.layers.1.2.self_attn.weight", false),
            ("model.layers..self_attn.weight", false),
        ] {
            assert_eq!(is_excluded(name, &globs), want, "{name:?}");
        }
        assert!(is_excluded("x.a", &s(&["*"])));
        assert!(!is_excluded("...", &s(&["*"])));
        assert!(is_excluded(
            "pre.model.layers.3.self_attn",
            &s(&["layers.*.self"])
        ));
        let full = s(&[
            "model.layers.0.mlp.down_proj",
            "model.layers.0.mlp.gate_proj",
            "model.layers.0.mlp.up_proj",
            "model.layers.125.mlp.down_proj",
            "model.layers.0.self_attn.k_proj",
        ]);
        for (name, want) in [
            ("model.layers.0.mlp.down_proj.weight", true),
            ("model.layers.0.mlp.down_proj.weight_scale", true),
            ("model.layers.125.mlp.down_proj.weight", true),
            ("model.layers.0.self_attn.k_proj.weight", true),
            ("model.layers.50.mlp.down_proj.weight", false),
            ("model.layers.0.self_attn.v_proj.weight", false),
        ] {
            assert_eq!(is_excluded(name, &full), want, "{name:?}");
        }
    }

    /// OME's TestQuantPackingFactor.
    #[test]
    fn packing_factors() {
        for (algo, dt, want) in [
            ("NVFP4", "U8", 2),
            ("MXFP4", "U8", 2),
            ("FP4", "I8", 2),
            ("nvfp4", "uint8", 2),
            ("INT4_AWQ", "I32", 8),
            ("INT4_GPTQ", "I32", 8),
            ("W4A8_AWQ", "U8", 2),
            ("INT4", "I16", 4),
            ("FP8", "F8_E4M3", 1),
            ("FP8", "U8", 1),
            ("NVFP4", "F16", 1),
            ("INT4_AWQ", "BF16", 1),
            ("", "U8", 1),
            ("some-future-format", "U8", 1),
            ("compressed-tensors", "F8_E4M3", 1),
        ] {
            assert_eq!(packing_factor(algo, dt), want, "{algo} {dt}");
        }
    }

    #[test]
    fn tensor_counts() {
        // OME's TestCountTensorParams_OverflowProtection.
        assert_eq!(tensor_params("model.weight", &[0, 100], "F16", None), 0);
        assert_eq!(tensor_params("model.weight", &[-1, 100], "F16", None), 0);
        assert_eq!(tensor_params("model.weight", &[], "F16", None), 0);
        assert_eq!(tensor_params("w", &[i64::MAX, 2], "F16", None), 0);
        let nvfp4 = QuantConfig {
            quant_algo: "NVFP4".into(),
            exclude_modules: vec!["lm_head".into()],
            ..QuantConfig::default()
        };
        assert_eq!(
            tensor_params("lm_head.weight", &[1000], "F16", Some(&nvfp4)),
            1000
        );
        assert_eq!(
            tensor_params("a.weight", &[10, 10], "U8", Some(&nvfp4)),
            200
        );
        assert_eq!(
            tensor_params("a.weight_scale", &[10], "F32", Some(&nvfp4)),
            0
        );
        assert_eq!(tensor_params("a.weight", &[10], "F16", None), 10);
        assert_eq!(
            tensor_params("a.weight", &[i64::MAX / 2 + 1], "U8", Some(&nvfp4)),
            0
        );
    }

    fn embedded(text: &str) -> EmbeddedQuant {
        let root = parse_json(text, 0).unwrap().unwrap();
        let mut d = Decoder::default();
        let mut q = EmbeddedQuant::default();
        q.decode(root.as_map().unwrap(), &mut d);
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        q
    }

    #[test]
    fn embedded_configs_resolve_their_algorithm() {
        let gptq = embedded(r#"{"bits": 4, "quant_method": "gptq"}"#);
        assert_eq!(gptq.resolve_algo(), "INT4_GPTQ");
        let awq = embedded(r#"{"bits": 4, "quant_method": "awq"}"#);
        assert_eq!(awq.resolve_algo(), "INT4_AWQ");
        let awq8 = embedded(r#"{"bits": 8, "quant_method": " awq "}"#);
        assert_eq!(awq8.resolve_algo(), "INT8_AWQ");
        assert_eq!(quantization_value(&awq8.resolve_algo()), None);
        let modelopt = embedded(r#"{"quant_method": "modelopt", "quant_algo": "NVFP4"}"#);
        assert_eq!(modelopt.resolve_algo(), "NVFP4");
        let ct = embedded(r#"{"quant_method": "compressed-tensors", "ignore": ["lm_head"]}"#);
        let qc = ct.to_quant_config().unwrap();
        assert_eq!(qc.exclude_modules, vec!["lm_head".to_string()]);
        let first_non_empty = embedded(
            r#"{"quant_method": "fp8", "modules_to_not_convert": [], "ignore": ["a"], "ignored_layers": ["b"]}"#,
        );
        assert_eq!(
            first_non_empty.to_quant_config().unwrap().exclude_modules,
            vec!["a".to_string()]
        );
        assert_eq!(embedded(r#"{"bits": 4}"#).to_quant_config(), None);
    }

    #[test]
    fn hf_quant_config_files() {
        let parse = |t: &str| read_hf_quant_config(parse_json(t, 0).unwrap().as_ref());
        let q =
            parse(r#"{"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["lm_head"]}}"#)
                .unwrap();
        assert_eq!(
            (q.quant_algo.as_str(), q.exclude_modules.len()),
            ("NVFP4", 1)
        );
        assert_eq!(parse("null").unwrap(), QuantConfig::default());
        assert!(parse(r#"{"quantization": {"group_size": "16"}}"#).is_err());
        assert!(parse("[]").is_err());
    }
}
