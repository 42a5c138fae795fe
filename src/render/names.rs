//! Object names and model-readiness label keys, with OME's truncation rules
//! (SEMANTICS.md#objects).
//!
//! Two hash rules exist in OME and both are kept:
//!
//! - [`truncate_name`] (Go `TruncateNameWithMaxLength`) makes a DNS name: the first 8 hex
//!   digits of the name's SHA-256, with a leading digit replaced by `a`, `-`, then the end of
//!   the name.
//! - The model-ready label keys ([`model_ready_label_key`]) use the same shape **without** the
//!   digit tweak, and a label-name budget of 49 characters.
//!
//! Lengths are in bytes, as in Go. Kubernetes names are ASCII; for other input a cut that
//! would split a character moves forward to the next character boundary, so the result can
//! be a little shorter than the limit but never longer.

use sha2::{Digest, Sha256};

/// The longest DNS label (Service names, the `app` label value).
pub(crate) const MAX_NAME_LENGTH: usize = 63;

/// Label names may have 63 characters after the `models.ome.io/` prefix's 13 and its `/`.
const MAX_MODEL_LABEL_NAME_LENGTH: usize = 49;
const MODEL_LABEL_DOMAIN: &str = "models.ome.io";
const CLUSTER_BASE_MODEL_TYPE: &str = "clusterbasemodel";
const BASE_MODEL_TYPE: &str = "basemodel";
const HASH_PREFIX_LENGTH: usize = 8;
/// Room a namespace keeps in a shortened BaseModel label key.
const MIN_NAMESPACE_LENGTH: usize = 8;

/// `name` when it fits in `max` bytes, else `<hash8>-<end of name>` of exactly `max` bytes,
/// where a hash starting with a digit has that digit replaced by `a` (so the name starts with
/// a letter). With `max` ≤ 9 there is no room for a suffix and the result is the first `max`
/// characters of the hash.
pub(crate) fn truncate_name(name: &str, max: usize) -> String {
    truncate_with_hash(name, max, true)
}

/// `<isvc>-<component>`: the name of the component's Deployment, HPA and PDB (not truncated;
/// the API server checks their length).
pub(crate) fn component_name(isvc: &str, component: &str) -> String {
    format!("{isvc}-{component}")
}

/// The component Service's name, and the `app` label value: the component name truncated to
/// 63.
pub(crate) fn component_service_name(isvc: &str, component: &str) -> String {
    truncate_name(&component_name(isvc, component), MAX_NAME_LENGTH)
}

/// `modelconfig-<last 20 characters of the InferenceService name>`. Two InferenceServices whose
/// names end alike share it (SEMANTICS.md#choice-collisions makes that an error).
pub(crate) fn model_config_name(isvc: &str) -> String {
    format!("modelconfig-{}", last_bytes(isvc, 20))
}

/// `scaledobject-<last 50 characters of the component name>`: a KEDA ScaledObject.
pub(crate) fn scaled_object_name(component_name: &str) -> String {
    format!("scaledobject-{}", last_bytes(component_name, 50))
}

/// The most a LeaderWorkerSet's name may have (OME v1.3 leaves room for what the LWS
/// controller appends in pod label values).
const MAX_LWS_NAME_LENGTH: usize = 35;

/// A MultiNode LeaderWorkerSet: `lws-<component name>` when that fits in 35 characters, else
/// `lws-` + the component name truncated as [`truncate_name`] does to 31
/// (`<hash8>-<last 22>`).
pub(crate) fn lws_name(component_name: &str) -> String {
    const PREFIX: &str = "lws-";
    format!(
        "{PREFIX}{}",
        truncate_name(component_name, MAX_LWS_NAME_LENGTH - PREFIX.len())
    )
}

/// The node-selector key that keeps a pod on nodes where the model is downloaded, whose value
/// is `Ready`: [`base_model_label_key`] for a BaseModel (`namespace` is `Some`),
/// [`cluster_base_model_label_key`] for a ClusterBaseModel (`None`).
pub(crate) fn model_ready_label_key(namespace: Option<&str>, model: &str) -> String {
    match namespace {
        Some(ns) => base_model_label_key(ns, model),
        None => cluster_base_model_label_key(model),
    }
}

/// `models.ome.io/clusterbasemodel.<name>`; a name longer than 32 becomes
/// `<hash8>-<last 23>`.
pub(crate) fn cluster_base_model_label_key(model: &str) -> String {
    let budget = MAX_MODEL_LABEL_NAME_LENGTH - CLUSTER_BASE_MODEL_TYPE.len() - 1;
    let model = truncate_with_hash(model, budget, false);
    format!("{MODEL_LABEL_DOMAIN}/{CLUSTER_BASE_MODEL_TYPE}.{model}")
}

/// `models.ome.io/<ns>.basemodel.<name>`. When namespace and name together exceed 38, a
/// namespace of at most 8 characters is kept and the name gets the rest; a longer namespace
/// becomes its bare 8-digit hash and the name gets 30. Each shortened part is
/// `<hash8>-<suffix>`.
pub(crate) fn base_model_label_key(namespace: &str, model: &str) -> String {
    let budget = MAX_MODEL_LABEL_NAME_LENGTH - BASE_MODEL_TYPE.len() - 2;
    if namespace.len() + model.len() <= budget {
        return format!("{MODEL_LABEL_DOMAIN}/{namespace}.{BASE_MODEL_TYPE}.{model}");
    }
    let namespace_budget = namespace.len().min(MIN_NAMESPACE_LENGTH);
    let namespace = truncate_with_hash(namespace, namespace_budget, false);
    let model = truncate_with_hash(model, budget - namespace_budget, false);
    format!("{MODEL_LABEL_DOMAIN}/{namespace}.{BASE_MODEL_TYPE}.{model}")
}

fn truncate_with_hash(name: &str, max: usize, letter_first: bool) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let mut hash = hash_prefix(name);
    if letter_first && hash.starts_with(|c: char| c.is_ascii_digit()) {
        hash.replace_range(..1, "a");
    }
    let suffix_length = max.saturating_sub(HASH_PREFIX_LENGTH + 1);
    if suffix_length == 0 {
        hash.truncate(max.min(HASH_PREFIX_LENGTH));
        return hash;
    }
    format!("{hash}-{}", last_bytes(name, suffix_length))
}

/// The first 8 hex digits of SHA-256(text).
fn hash_prefix(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest[..HASH_PREFIX_LENGTH / 2]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The last `n` bytes of `text`, or fewer if that cut would split a character.
fn last_bytes(text: &str, n: usize) -> &str {
    let mut start = text.len().saturating_sub(n);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_unchanged() {
        assert_eq!(truncate_name("llama-engine", 63), "llama-engine");
        let exactly_63 = "a".repeat(63);
        assert_eq!(truncate_name(&exactly_63, 63), exactly_63);
    }

    #[test]
    fn vector_39_long_names_get_a_letter_first_hash_and_their_end() {
        let name = "a-very-long-inferenceservice-name-for-testing-truncation-rules-engine";
        let truncated = truncate_name(name, 63);
        assert_eq!(
            truncated,
            "a1159f34-erenceservice-name-for-testing-truncation-rules-engine"
        );
        assert_eq!(truncated.len(), 63);
        // The hash itself starts with a digit; only the name's copy is tweaked.
        assert_eq!(hash_prefix(name), "11159f34");
    }

    #[test]
    fn truncation_generalises_to_other_limits() {
        let name = "a-very-long-inferenceservice-name-for-testing-truncation-rules-engine";
        assert_eq!(truncate_name(name, 20), "a1159f34-ules-engine");
        assert_eq!(truncate_name(name, 9), "a1159f34");
        assert_eq!(truncate_name(name, 5), "a1159");
        assert_eq!(truncate_name(name, 0), "");
    }

    #[test]
    fn non_ascii_names_never_split_a_character() {
        let name = "ééééééééééééééééééééé";
        let truncated = truncate_name(name, 20);
        assert!(truncated.len() <= 20, "{truncated}");
        assert!(truncated.ends_with("ééé"));
        assert_eq!(model_config_name("éé"), "modelconfig-éé");
        assert_eq!(
            model_config_name(&"é".repeat(11)),
            format!("modelconfig-{}", "é".repeat(10))
        );
    }

    #[test]
    fn component_names() {
        assert_eq!(component_name("llama", "engine"), "llama-engine");
        let long = "a-very-long-inferenceservice-name-for-testing-truncation-rules";
        assert_eq!(
            component_service_name(long, "engine"),
            "a1159f34-erenceservice-name-for-testing-truncation-rules-engine"
        );
        assert_eq!(component_service_name("llama", "router"), "llama-router");
    }

    #[test]
    fn vector_39_model_config_and_lws_names() {
        assert_eq!(
            model_config_name("llama-3-2-3b-instruct"),
            "modelconfig-lama-3-2-3b-instruct"
        );
        assert_eq!(model_config_name("short"), "modelconfig-short");
        assert_eq!(
            model_config_name("my-very-long-inference-service-name"),
            "modelconfig-ference-service-name"
        );
        assert_eq!(
            lws_name("llama-3-2-3b-instruct-engine"),
            "lws-llama-3-2-3b-instruct-engine"
        );
        // v1.3: `lws-<name>` up to 31 characters of name; past that, `lws-<hash8>-<last 22>`.
        let fits = format!("{}-engine", "x".repeat(24));
        assert_eq!(lws_name(&fits), format!("lws-{fits}"));
        let long = format!("{}-engine", "x".repeat(25));
        let name = lws_name(&long);
        assert_eq!(name.len(), 35);
        assert_eq!(name, format!("lws-{}", truncate_name(&long, 31)));
        assert!(name.ends_with(&format!("-{}-engine", "x".repeat(15))));
        assert!(name[4..12].bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn vector_37_model_ready_keys_for_short_names() {
        assert_eq!(
            model_ready_label_key(Some("default"), "llama-3-8b"),
            "models.ome.io/default.basemodel.llama-3-8b"
        );
        assert_eq!(
            model_ready_label_key(None, "mixtral-8x7b"),
            "models.ome.io/clusterbasemodel.mixtral-8x7b"
        );
    }

    #[test]
    fn vector_38_long_model_ready_keys_are_hashed_without_the_digit_tweak() {
        assert_eq!(
            base_model_label_key(
                "long-namespace-name",
                "very-long-model-name-that-exceeds-normal-length-limits-and-should-be-truncated"
            ),
            "models.ome.io/116791bb.basemodel.be83a233-d-should-be-truncated"
        );
        assert_eq!(
            cluster_base_model_label_key("deepseek-r1-distill-qwen-32b-instruct-fp8"),
            "models.ome.io/clusterbasemodel.918b9325-l-qwen-32b-instruct-fp8"
        );
    }

    #[test]
    fn notes_examples_for_model_ready_keys() {
        assert_eq!(
            cluster_base_model_label_key("llama-3-2-3b-instruct"),
            "models.ome.io/clusterbasemodel.llama-3-2-3b-instruct"
        );
        assert_eq!(
            cluster_base_model_label_key("meta-llama-3-1-70b-instruct-fp8-dynamic"),
            "models.ome.io/clusterbasemodel.92af99f9-0b-instruct-fp8-dynamic"
        );
        assert_eq!(
            base_model_label_key("production-inference", "meta-llama-3-1-70b-instruct"),
            "models.ome.io/ea4a9b32.basemodel.meta-llama-3-1-70b-instruct"
        );
    }

    #[test]
    fn model_ready_key_budgets() {
        // 32 characters fit a ClusterBaseModel key; 33 do not.
        let fits = "m".repeat(32);
        assert_eq!(
            cluster_base_model_label_key(&fits),
            format!("models.ome.io/clusterbasemodel.{fits}")
        );
        let cut = cluster_base_model_label_key(&"m".repeat(33));
        assert_eq!(cut.len(), "models.ome.io/clusterbasemodel.".len() + 32);

        // A short namespace is kept whole and the name gets the rest of the 38.
        let key = base_model_label_key("team-a", &"n".repeat(40));
        let name = key
            .strip_prefix("models.ome.io/team-a.basemodel.")
            .expect("namespace kept");
        assert_eq!(name.len(), 32);
        assert_eq!(&name[8..], format!("-{}", "n".repeat(23)));

        // Namespace and name of exactly 38 together fit.
        let key = base_model_label_key("ns", &"n".repeat(36));
        assert_eq!(
            key,
            format!("models.ome.io/ns.basemodel.{}", "n".repeat(36))
        );
    }
}
