//! The capabilities OME's agent writes to `spec.modelCapabilities`: rules tried in order,
//! the first that applies wins; a generative-text architecture otherwise means
//! `TEXT_TO_TEXT`, and anything else the empty entry OME writes for an unrecognised model.

/// What the rules look at.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Subject<'a> {
    pub(crate) model_type: &'a str,
    pub(crate) architecture: &'a str,
    pub(crate) has_vision: bool,
    /// The diffusion pipeline's class name, for a `model_index.json` model.
    pub(crate) pipeline_class: Option<&'a str>,
}

/// The capability list, in OME's order. `[""]` is OME's "unknown".
pub(crate) fn classify(s: Subject<'_>) -> Vec<&'static str> {
    if let Some(class) = s.pipeline_class {
        return vec![diffusion(class)];
    }
    if s.model_type.to_lowercase().contains("nemotronh_nano") {
        return vec!["IMAGE_TEXT_TO_TEXT", "TEXT_TO_TEXT", "AUDIO_TO_TEXT"];
    }
    if has_token(s.architecture, "Omni") {
        return vec![
            "TEXT_TO_AUDIO",
            "IMAGE_TEXT_TO_AUDIO",
            "VIDEO_TEXT_TO_AUDIO",
            "AUDIO_TO_TEXT",
            "AUDIO_TO_AUDIO",
        ];
    }
    if s.has_vision {
        return vec!["IMAGE_TEXT_TO_TEXT"];
    }
    let arch = s.architecture;
    if arch.ends_with("ForCTC")
        || arch.ends_with("ForSpeechToText")
        || arch == "WhisperForConditionalGeneration"
    {
        return vec!["AUDIO_TO_TEXT"];
    }
    if has_token(arch, "Bert")
        || has_token(arch, "Embedding")
        || has_token(arch, "Sentence")
        || (s.model_type.to_lowercase() == "mistral" && arch == "MistralModel")
    {
        return vec!["EMBEDDING"];
    }
    if ["ForCausalLM", "ForConditionalGeneration", "LMHeadModel"]
        .iter()
        .any(|suffix| arch.ends_with(suffix))
    {
        return vec!["TEXT_TO_TEXT"];
    }
    vec![UNKNOWN]
}

/// OME's "unknown" capability: an empty string.
pub(crate) const UNKNOWN: &str = "";

/// A pipeline class name, by substring, in OME's order.
fn diffusion(class: &str) -> &'static str {
    let any = |subs: &[&str]| subs.iter().any(|s| class.contains(s));
    if any(&["ImageEdit", "Pix2Pix", "Img2Img", "Inpaint"]) {
        "IMAGE_TEXT_TO_IMAGE"
    } else if any(&["TextToVideo", "T2V"]) {
        "TEXT_TO_VIDEO"
    } else if class.contains("Video") {
        "IMAGE_TEXT_TO_VIDEO"
    } else if any(&["Image", "Pix", "StableDiffusion", "Flux"]) {
        "TEXT_TO_IMAGE"
    } else {
        UNKNOWN
    }
}

/// Whether `token` is a whole segment of `arch`, split at underscores and before an upper
/// case letter that follows a non-upper-case one (`Qwen3OmniMoe` → `Qwen3`, `Omni`, `Moe`;
/// `BERTModel` → `BERTModel`).
fn has_token(arch: &str, token: &str) -> bool {
    if arch.is_empty() || token.is_empty() {
        return false;
    }
    split_tokens(arch).any(|t| t == token)
}

fn split_tokens(arch: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<char> = None;
    for (i, c) in arch.char_indices() {
        if c == '_' {
            if start < i {
                out.push(&arch[start..i]);
            }
            start = i + 1;
            prev = Some(c);
            continue;
        }
        if let Some(p) = prev
            && c.is_uppercase()
            && !p.is_uppercase()
            && start < i
        {
            out.push(&arch[start..i]);
            start = i;
        }
        prev = Some(c);
    }
    if start < arch.len() {
        out.push(&arch[start..]);
    }
    out.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(model_type: &str, architecture: &str, has_vision: bool) -> Vec<&'static str> {
        classify(Subject {
            model_type,
            architecture,
            has_vision,
            pipeline_class: None,
        })
    }

    /// OME's TestHasArchToken.
    #[test]
    fn tokens() {
        for (arch, token, want) in [
            ("Qwen3OmniMoeForConditionalGeneration", "Omni", true),
            ("Qwen3OmniMoeForConditionalGeneration", "Moe", true),
            ("Qwen3OmniMoeForConditionalGeneration", "ForCausalLM", false),
            ("Demonic", "Omni", false),
            ("Geometric", "metric", false),
            ("some_omni_model", "omni", true),
            ("", "Omni", false),
            ("Omni", "Omni", true),
            ("Qwen3", "Qwen3", true),
            ("Qwen3", "Qwen", false),
            ("Qwen3", "3", false),
            ("BERTModel", "BERTModel", true),
            ("Qwen3_5MoeForConditionalGeneration", "Moe", true),
        ] {
            assert_eq!(has_token(arch, token), want, "{arch} {token}");
        }
    }

    /// OME's TestClassifyCapabilities_Diffusion.
    #[test]
    fn diffusion_pipelines() {
        for (class, want) in [
            ("StableDiffusionImg2ImgPipeline", "IMAGE_TEXT_TO_IMAGE"),
            ("InstructPix2PixPipeline", "IMAGE_TEXT_TO_IMAGE"),
            ("QwenImageEditPipeline", "IMAGE_TEXT_TO_IMAGE"),
            ("QwenImageEditPlus", "IMAGE_TEXT_TO_IMAGE"),
            ("TextToVideoSDPipeline", "TEXT_TO_VIDEO"),
            ("T2VPipeline", "TEXT_TO_VIDEO"),
            ("ImageToVideoPipeline", "IMAGE_TEXT_TO_VIDEO"),
            ("StableDiffusionPipeline", "TEXT_TO_IMAGE"),
            ("FluxPipeline", "TEXT_TO_IMAGE"),
            ("QwenImagePipeline", "TEXT_TO_IMAGE"),
            ("FooBarPipeline", ""),
            ("", ""),
        ] {
            let got = classify(Subject {
                model_type: "diffusers",
                architecture: class,
                has_vision: true,
                pipeline_class: Some(class),
            });
            assert_eq!(got, vec![want], "{class}");
        }
    }

    /// OME's regression set, Omni, ASR, embedding, default and Mistral cases.
    #[test]
    fn transformer_models() {
        let omni = vec![
            "TEXT_TO_AUDIO",
            "IMAGE_TEXT_TO_AUDIO",
            "VIDEO_TEXT_TO_AUDIO",
            "AUDIO_TO_TEXT",
            "AUDIO_TO_AUDIO",
        ];
        let nano = vec!["IMAGE_TEXT_TO_TEXT", "TEXT_TO_TEXT", "AUDIO_TO_TEXT"];
        let cases: Vec<(&str, &str, bool, Vec<&str>)> = vec![
            ("llama", "LlamaForCausalLM", false, vec!["TEXT_TO_TEXT"]),
            ("clip", "CLIPModel", true, vec!["IMAGE_TEXT_TO_TEXT"]),
            (
                "sentence-transformer",
                "SentenceTransformerModel",
                false,
                vec!["EMBEDDING"],
            ),
            ("bert", "BertModel", false, vec!["EMBEDDING"]),
            ("mistral", "MistralModel", false, vec!["EMBEDDING"]),
            ("Mistral", "MistralModel", false, vec!["EMBEDDING"]),
            (
                "gemma",
                "GemmaForCausalLM",
                true,
                vec!["IMAGE_TEXT_TO_TEXT"],
            ),
            (
                "qwen",
                "Qwen3OmniMoeForConditionalGeneration",
                false,
                omni.clone(),
            ),
            (
                "qwen",
                "Qwen3OmniVisionForConditionalGeneration",
                true,
                omni,
            ),
            (
                "NemotronH_Nano_Omni_Reasoning_V3",
                "NemotronH_Nano_Omni_Reasoning_V3",
                true,
                nano,
            ),
            (
                "whisper",
                "WhisperForConditionalGeneration",
                false,
                vec!["AUDIO_TO_TEXT"],
            ),
            ("wav2vec2", "Wav2Vec2ForCTC", false, vec!["AUDIO_TO_TEXT"]),
            ("hubert", "HubertForCTC", false, vec!["AUDIO_TO_TEXT"]),
            (
                "seamless_m4t",
                "SeamlessM4TForSpeechToText",
                false,
                vec!["AUDIO_TO_TEXT"],
            ),
            ("falcon", "FalconForCausalLM", false, vec!["TEXT_TO_TEXT"]),
            ("gpt2", "GPT2LMHeadModel", false, vec!["TEXT_TO_TEXT"]),
            ("foo", "Foo", false, vec![""]),
            ("mistral", "MistralForCausalLM", false, vec!["TEXT_TO_TEXT"]),
            ("mistral", "", false, vec![""]),
            ("chatglm", "ChatGLMModel", false, vec![""]),
            ("phi", "PhiModel", false, vec![""]),
        ];
        for (model_type, arch, vision, want) in cases {
            assert_eq!(caps(model_type, arch, vision), want, "{model_type} {arch}");
        }
    }
}
