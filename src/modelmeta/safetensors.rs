//! Safetensors metadata: the header at the start of each weights file, the index of a
//! sharded model, and the parameter count OME derives from them.
//!
//! A safetensors file starts with an 8-byte little-endian length and that many bytes of
//! JSON: tensor name → `dtype`, `shape`, `data_offsets` (plus `__metadata__`). Only the
//! header is ever needed; the weights after it are never read. The length is checked
//! against OME's own limit before anything is allocated for it.

use super::quant::{Exclusions, QuantConfig, tensor_params_with};
use crate::go::decode::{Decoder, join, parse_json_text, root_object};
use crate::yaml::{Map, Node, Value};
use std::collections::BTreeSet;
use std::fmt;

/// The bytes before the JSON header: its length, little-endian.
pub(crate) const PREFIX_BYTES: usize = 8;

/// The largest header OME reads (10 MiB); a longer one makes it give up on the file.
pub(crate) const MAX_HEADER_BYTES: u64 = 10 * 1024 * 1024;

/// The name of a sharded model's index file.
pub(crate) const INDEX_FILE: &str = "model.safetensors.index.json";

/// The file-name ending OME counts as a weights file.
pub(crate) const EXTENSION: &str = ".safetensors";

/// Why a safetensors header cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HeaderError {
    /// Fewer than 8 bytes: no length.
    TooShort { len: u64 },
    /// The length is over [`MAX_HEADER_BYTES`].
    TooLong { declared: u64 },
    /// The file ends before the header does.
    Truncated { declared: u64, available: u64 },
    /// The header is not the JSON OME expects.
    Json(String),
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::TooShort { len } => write!(
                f,
                "the file has {len} bytes, fewer than the {PREFIX_BYTES} of a safetensors header length"
            ),
            HeaderError::TooLong { declared } => write!(
                f,
                "the header length {declared} exceeds the maximum of {MAX_HEADER_BYTES} bytes OME reads"
            ),
            HeaderError::Truncated {
                declared,
                available,
            } => write!(
                f,
                "the header is {declared} bytes long but the file has only {available} bytes after the length"
            ),
            HeaderError::Json(m) => write!(f, "the header is not valid: {m}"),
        }
    }
}

/// One tensor as a header describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tensor {
    pub(crate) name: String,
    pub(crate) dtype: String,
    pub(crate) shape: Vec<i64>,
}

/// A parsed header: its tensors by name (`__metadata__` left out).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) tensors: Vec<Tensor>,
}

/// The header length a file declares in its first 8 bytes, checked against OME's limit.
/// The loader reads exactly this many bytes after the prefix, and nothing else.
pub(crate) fn header_length(prefix: &[u8]) -> Result<u64, HeaderError> {
    let Some(bytes) = prefix.get(..PREFIX_BYTES) else {
        return Err(HeaderError::TooShort {
            len: prefix.len() as u64,
        });
    };
    let mut le = [0u8; PREFIX_BYTES];
    le.copy_from_slice(bytes);
    let declared = u64::from_le_bytes(le);
    if declared > MAX_HEADER_BYTES {
        return Err(HeaderError::TooLong { declared });
    }
    Ok(declared)
}

/// Parses the header at the start of `bytes` (the length prefix, then at least that many
/// bytes; anything after the header is ignored). The JSON is read as OME's Go code reads it:
/// every entry must be an object (or `null`) whose `shape` and `data_offsets` are arrays of
/// integers and whose `dtype` is a string.
pub(crate) fn parse_header(bytes: &[u8]) -> Result<Header, HeaderError> {
    let declared = header_length(bytes)?;
    let available = (bytes.len() - PREFIX_BYTES) as u64;
    if declared > available {
        return Err(HeaderError::Truncated {
            declared,
            available,
        });
    }
    // `declared` is at most MAX_HEADER_BYTES, so it fits in usize.
    let end = PREFIX_BYTES + usize::try_from(declared).unwrap_or(usize::MAX);
    let text = String::from_utf8_lossy(&bytes[PREFIX_BYTES..end]);
    let root = parse_json_text(&text, u32::MAX).map_err(|e| {
        HeaderError::Json(format!("{} (line {} of the header)", e.message, e.pos.line))
    })?;
    let obj = root_object(root.as_ref())
        .map_err(|found| HeaderError::Json(format!("the header is {found}, not an object")))?;
    let mut d = Decoder::default();
    let mut tensors = Vec::new();
    for (name, entry) in obj.map(Map::iter).into_iter().flatten() {
        let (dtype, shape) = match &entry.value {
            Value::Null => (String::new(), Vec::new()),
            Value::Map(m) => {
                let dtype = d.string(m, "dtype", name);
                let shape = d.ints(m, "shape", name).unwrap_or_default();
                let _ = d.ints(m, "data_offsets", name);
                (dtype, shape)
            }
            _ => {
                return Err(HeaderError::Json(format!(
                    "`{name}` is {}, not an object",
                    entry.type_name()
                )));
            }
        };
        if name != "__metadata__" {
            tensors.push(Tensor {
                name: name.to_string(),
                dtype,
                shape,
            });
        }
    }
    if let Some(e) = d.errors.first() {
        return Err(HeaderError::Json(e.message()));
    }
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Header { tensors })
}

/// The shard files `model.safetensors.index.json` names in its `weight_map`, without
/// duplicates, in byte order (the order OME reads them in).
pub(crate) fn index_shards(text: &str) -> Result<Vec<String>, String> {
    let root = parse_json_text(text, u32::MAX).map_err(|e| e.message)?;
    index_shards_of(root.as_ref())
}

pub(crate) fn index_shards_of(root: Option<&Node>) -> Result<Vec<String>, String> {
    let obj = root_object(root).map_err(|found| format!("the index is {found}, not an object"))?;
    let mut d = Decoder::default();
    let mut shards = BTreeSet::new();
    let mut entries = 0usize;
    for map in obj
        .map(|o| d.objects(o, "weight_map", ""))
        .unwrap_or_default()
    {
        // A later `weight_map` replaces the map; `null` empties it.
        shards.clear();
        entries = 0;
        for (tensor, shard) in map.map(Map::iter).into_iter().flatten() {
            entries += 1;
            match &shard.value {
                Value::Null => {
                    shards.insert(String::new());
                }
                Value::Str(s) => {
                    shards.insert(s.clone());
                }
                _ => {
                    return Err(format!(
                        "`{}` is {}, where OME reads a file name",
                        join("weight_map", tensor),
                        shard.type_name()
                    ));
                }
            }
        }
    }
    if let Some(e) = d.errors.first() {
        return Err(e.message());
    }
    if entries == 0 {
        return Err("no weight mappings found in the index".to_string());
    }
    if shards.contains("") {
        return Err("the index names an empty shard file name".to_string());
    }
    Ok(shards.into_iter().collect())
}

/// The parameters of one file's tensors (OME's `ParseSafetensorsHeaderQuantAware`): a
/// non-positive dimension or an overflowing product is an error for the whole file.
pub(crate) fn file_params(header: &Header, quant: Option<&QuantConfig>) -> Result<i64, String> {
    let mut total: i64 = 0;
    let exclusions = Exclusions::new(quant.map_or(&[][..], |q| &q.exclude_modules));
    for t in &header.tensors {
        if t.shape.is_empty() {
            continue;
        }
        let mut product: i64 = 1;
        for (i, &dim) in t.shape.iter().enumerate() {
            if dim <= 0 {
                return Err(format!(
                    "tensor `{}` has invalid dimension {dim} at index {i}",
                    t.name
                ));
            }
            product = product.checked_mul(dim).ok_or_else(|| {
                format!(
                    "the dimensions of tensor `{}` overflow a 64-bit count",
                    t.name
                )
            })?;
        }
        let count = tensor_params_with(&t.name, &t.shape, &t.dtype, quant, &exclusions);
        total = total
            .checked_add(count)
            .ok_or_else(|| "the parameter count overflows 64 bits".to_string())?;
    }
    Ok(total)
}

#[cfg(test)]
pub(crate) mod testutil {
    //! Safetensors files written in memory, with counts the tests compute by hand.

    /// The bytes of a safetensors file with these tensors (name, dtype, shape) and no data
    /// after the header, as a header-only snapshot has them.
    pub(crate) fn header_bytes(tensors: &[(&str, &str, &[i64])]) -> Vec<u8> {
        let mut json = String::from("{\"__metadata__\":{\"format\":\"pt\"}");
        let mut offset = 0i64;
        for (name, dtype, shape) in tensors {
            let dims: Vec<String> = shape.iter().map(i64::to_string).collect();
            let size: i64 = shape.iter().product::<i64>() * 2;
            json.push_str(&format!(
                ",\"{name}\":{{\"dtype\":\"{dtype}\",\"shape\":[{}],\"data_offsets\":[{offset},{}]}}",
                dims.join(","),
                offset + size
            ));
            offset += size;
        }
        json.push('}');
        // Headers are padded with spaces to a multiple of 8, as the reference writer does.
        while json.len() % 8 != 0 {
            json.push(' ');
        }
        let mut out = (json.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(json.as_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::header_bytes;
    use super::*;

    fn count(bytes: &[u8], quant: Option<&QuantConfig>) -> Result<i64, String> {
        file_params(&parse_header(bytes).map_err(|e| e.to_string())?, quant)
    }

    #[test]
    fn headers_parse_and_count_naively_without_a_quantization() {
        // OME's NoQuantConfigEqualsNaiveCount: 4096² + 1024².
        let bytes = header_bytes(&[
            ("model.layers.0.weight", "F16", &[4096, 4096]),
            ("model.layers.1.weight", "F16", &[1024, 1024]),
        ]);
        assert_eq!(count(&bytes, None), Ok(4096 * 4096 + 1024 * 1024));
        let header = parse_header(&bytes).unwrap();
        assert_eq!(header.tensors.len(), 2);
        assert_eq!(header.tensors[0].dtype, "F16");
    }

    #[test]
    fn quant_aware_counts_follow_omes_tests() {
        let nvfp4 = |exclude: &[&str]| QuantConfig {
            quant_method: "modelopt".into(),
            quant_algo: "NVFP4".into(),
            exclude_modules: exclude.iter().map(|s| s.to_string()).collect(),
        };
        // NVFP4PackedTensorsGet2xMultiplier.
        let packed = header_bytes(&[("model.layers.5.mlp.gate_proj.weight", "U8", &[1024, 512])]);
        assert_eq!(count(&packed, Some(&nvfp4(&[]))), Ok(1024 * 1024));
        // MixedPackedAndExcludedAndScales: 10 + 200 + 0, naive 120.
        let mixed = header_bytes(&[
            ("model.layers.0.self_attn.k_proj.weight", "F16", &[2, 5]),
            ("model.layers.30.mlp.gate_proj.weight", "U8", &[10, 10]),
            ("model.layers.30.mlp.gate_proj.weight_scale", "F32", &[10]),
        ]);
        let q = nvfp4(&["layers.0.", "self_attn", "lm_head"]);
        assert_eq!(count(&mixed, Some(&q)), Ok(210));
        assert_eq!(count(&mixed, None), Ok(120));
        // NVFP4WithRealNamesAndExcludeModule: 1000 + 200 + 0 + 0.
        let real = header_bytes(&[
            ("lm_head.weight", "F16", &[1000]),
            ("model.layers.5.mlp.gate_proj.weight", "U8", &[10, 10]),
            ("model.layers.5.mlp.gate_proj.weight_scale", "F32", &[10]),
            ("model.layers.5.self_attn.k_proj.k_scale", "F32", &[1]),
        ]);
        assert_eq!(count(&real, Some(&nvfp4(&["lm_head"]))), Ok(1200));
        // StandaloneAndEmbeddedConflict and UnknownAlgoFallsBackToNaive.
        let one = header_bytes(&[("model.layers.5.mlp.gate_proj.weight", "U8", &[10, 10])]);
        let fp8 = QuantConfig {
            quant_algo: "FP8".into(),
            ..QuantConfig::default()
        };
        let future = QuantConfig {
            quant_algo: "MXFP6_FUTURE".into(),
            ..QuantConfig::default()
        };
        assert_eq!(count(&one, Some(&nvfp4(&[]))), Ok(200));
        assert_eq!(count(&one, Some(&fp8)), Ok(100));
        assert_eq!(count(&one, Some(&future)), Ok(100));
    }

    #[test]
    fn lengths_are_checked_before_anything_is_read() {
        assert_eq!(
            header_length(&[1, 2, 3]),
            Err(HeaderError::TooShort { len: 3 })
        );
        let mut huge = (MAX_HEADER_BYTES + 1).to_le_bytes().to_vec();
        assert_eq!(
            header_length(&huge),
            Err(HeaderError::TooLong {
                declared: MAX_HEADER_BYTES + 1
            })
        );
        huge = u64::MAX.to_le_bytes().to_vec();
        assert!(matches!(
            parse_header(&huge),
            Err(HeaderError::TooLong { .. })
        ));
        assert_eq!(
            header_length(&MAX_HEADER_BYTES.to_le_bytes()),
            Ok(MAX_HEADER_BYTES)
        );
        let mut short = 100u64.to_le_bytes().to_vec();
        short.extend_from_slice(b"{}");
        assert_eq!(
            parse_header(&short),
            Err(HeaderError::Truncated {
                declared: 100,
                available: 2
            })
        );
        assert!(
            HeaderError::TooLong { declared: 1 << 40 }
                .to_string()
                .contains("exceeds the maximum of 10485760 bytes")
        );
    }

    #[test]
    fn data_after_the_header_is_ignored() {
        let mut bytes = header_bytes(&[("w", "F32", &[3, 4])]);
        bytes.extend_from_slice(&[0xff; 48]);
        assert_eq!(count(&bytes, None), Ok(12));
    }

    #[test]
    fn malformed_headers_are_errors() {
        let with = |json: &str| {
            let mut b = (json.len() as u64).to_le_bytes().to_vec();
            b.extend_from_slice(json.as_bytes());
            b
        };
        for json in [
            "[1, 2]",
            r#"{"w": "x"}"#,
            r#"{"w": {"shape": [1.5]}}"#,
            r#"{"w": {"shape": "3"}}"#,
            r#"{"w": {"dtype": 3}}"#,
            r#"{"w": {"data_offsets": ["a", 1]}}"#,
            r#"{"w": {"shape": [NaN]}}"#,
            "{\"w\": ",
        ] {
            assert!(
                matches!(parse_header(&with(json)), Err(HeaderError::Json(_))),
                "{json}"
            );
        }
        // Accepted as OME accepts them: null entries, unknown keys, scalars, `null` itself.
        assert_eq!(
            count(&with(r#"{"w": null, "s": {"shape": [], "x": 1}}"#), None),
            Ok(0)
        );
        assert_eq!(count(&with("null"), None), Ok(0));
        assert_eq!(count(&with(r#"{"W": {"SHAPE": [2, 3]}}"#), None), Ok(6));
        // Invalid dimensions fail the whole file.
        assert_eq!(
            count(
                &with(r#"{"a": {"shape": [2]}, "b": {"shape": [3, 0]}}"#),
                None
            ),
            Err("tensor `b` has invalid dimension 0 at index 1".to_string())
        );
        assert!(count(&with(r#"{"a": {"shape": [4294967296, 4294967296]}}"#), None).is_err());
        assert!(
            count(
                &with(r#"{"a": {"shape": [4611686018427387904]}, "b": {"shape": [4611686018427387904]}}"#),
                None
            )
            .is_err()
        );
    }

    #[test]
    fn index_files_name_their_shards_once_in_order() {
        let shards = index_shards(
            r#"{"metadata": {"total_size": 1}, "weight_map": {"a": "m-2.safetensors", "b": "m-1.safetensors", "c": "m-2.safetensors"}}"#,
        );
        assert_eq!(
            shards,
            Ok(vec![
                "m-1.safetensors".to_string(),
                "m-2.safetensors".to_string()
            ])
        );
        assert!(index_shards(r#"{"weight_map": {}}"#).is_err());
        assert!(index_shards(r#"{"metadata": {}}"#).is_err());
        assert!(index_shards(r#"{"weight_map": {"a": ""}}"#).is_err());
        assert!(index_shards(r#"{"weight_map": {"a": null}}"#).is_err());
        assert!(index_shards(r#"{"weight_map": {"a": 1}}"#).is_err());
        assert!(index_shards(r#"{"weight_map": []}"#).is_err());
        assert!(index_shards("not json").is_err());
    }
}
