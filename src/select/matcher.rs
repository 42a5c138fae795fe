//! Does a runtime support a model? Entry matching, the per-entry mismatch text and `mt:`
//! model label, and the runtime-level compatibility check in OME's order: disabled,
//! accelerator classes, deployment modes, entries,
//! size range.
//!
//! Compatibility says nothing about `autoSelect`: a runtime can be compatible and still never
//! be auto-selected (see [`scorer`](super::scorer) and [`auto`](super::auto)).

use super::request::Request;
use super::size;
use crate::model::version;
use crate::model::{
    BaseModel, DiffusionComponent, DiffusionPipeline, FormatRef, Role, RuntimeSpec, SupportedFormat,
};

/// What a compatible runtime matched with.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Match<'s> {
    /// The first entry that matches the model, and its index in `supportedModelFormats`.
    pub(crate) entry: &'s SupportedFormat,
    pub(crate) entry_index: usize,
    /// Priority and weight as `kubectl ome runtime explain` reports them: the entry's
    /// priority (1 when unset), and `(format weight + framework weight) × priority` counting
    /// only positive weights. Unlike the score, a weight of 0 stays 0.
    pub(crate) priority: i64,
    pub(crate) weight: i64,
    /// OME's compatibility warnings, which nothing else surfaces.
    pub(crate) warnings: Vec<&'static str>,
}

/// Why a runtime does not support a model: the first check that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Incompatible {
    pub(crate) check: Check,
    /// OME's reason text, as the "Excluded runtimes" list and `explain` print it.
    pub(crate) reason: String,
}

/// The compatibility checks, in the order OME runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    Disabled,
    AcceleratorClass,
    DeploymentMode,
    Format,
    Size,
}

impl Check {
    /// Accelerator and mode failures are about where the model would run, not about the model:
    /// OME reports them for a named runtime with an empty model name.
    pub(crate) fn is_placement(self) -> bool {
        matches!(self, Check::AcceleratorClass | Check::DeploymentMode)
    }
}

pub(crate) const DISABLED_REASON: &str = "runtime is disabled";
pub(crate) const ACCELERATOR_REASON: &str =
    "runtime does not support the required accelerator class";
/// [`Match::warnings`]: the runtime is compatible but no entry sets `autoSelect: true`.
pub(crate) const NO_AUTO_SELECT_WARNING: &str =
    "runtime does not have auto-select enabled for any supported format";
/// [`Match::warnings`]: the runtime has a size range the model cannot be checked against.
pub(crate) const NO_SIZE_WARNING: &str =
    "model does not specify size, but runtime has size constraints";

/// OME's `GetCompatibilityDetails`: the first matching entry, or the first failed check
/// with OME's reason.
pub(crate) fn check<'s>(
    spec: &'s RuntimeSpec,
    model: &BaseModel,
    request: &Request,
) -> Result<Match<'s>, Incompatible> {
    first_failure(spec, model, request, Known::Nothing).map_err(|check| Incompatible {
        check,
        reason: reason(check, spec, model, request),
    })
}

/// [`check`] without the reason: auto-selection's hot path, which only needs the matches.
pub(crate) fn compatible<'s>(
    spec: &'s RuntimeSpec,
    model: &BaseModel,
    request: &Request,
) -> Option<Match<'s>> {
    first_failure(spec, model, request, Known::Nothing).ok()
}

/// [`compatible`] for a runtime auto-selection's index filed: one with an `autoSelect: true`
/// entry whose size range admits the model. The same result, without checking those again.
pub(crate) fn compatible_filed<'s>(
    spec: &'s RuntimeSpec,
    model: &BaseModel,
    request: &Request,
) -> Option<Match<'s>> {
    first_failure(spec, model, request, Known::Filed).ok()
}

/// What the caller of [`first_failure`] already knows of the runtime.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Known {
    Nothing,
    /// Filed by auto-selection's index: it has an `autoSelect: true` entry, and its size
    /// range admits the model.
    Filed,
}

/// The checks in OME's order: the first matching entry, or which check failed first.
fn first_failure<'s>(
    spec: &'s RuntimeSpec,
    model: &BaseModel,
    request: &Request,
    known: Known,
) -> Result<Match<'s>, Check> {
    if spec.disabled {
        return Err(Check::Disabled);
    }
    if !accelerators_supported(spec, &request.accelerator_classes) {
        return Err(Check::AcceleratorClass);
    }
    if mode_mismatch(spec, request).is_some() {
        return Err(Check::DeploymentMode);
    }
    let Some((entry_index, entry)) = spec
        .formats
        .iter()
        .enumerate()
        .find(|(_, e)| entry_matches(e, model))
    else {
        return Err(Check::Format);
    };
    if known != Known::Filed
        && let (Some(model_size), Some(range)) = (model.parameter_size.as_deref(), &spec.size_range)
        && !size::in_range(model_size, range)
    {
        return Err(Check::Size);
    }

    let mut warnings = Vec::new();
    if known != Known::Filed && !has_auto_select_entry(spec) {
        warnings.push(NO_AUTO_SELECT_WARNING);
    }
    if model.parameter_size.is_none() && spec.size_range.is_some() {
        warnings.push(NO_SIZE_WARNING);
    }
    let priority = entry.priority.unwrap_or(1);
    Ok(Match {
        entry,
        entry_index,
        priority,
        weight: reported_weight(entry, model, priority),
        warnings,
    })
}

/// OME's text for a failed check.
fn reason(check: Check, spec: &RuntimeSpec, model: &BaseModel, request: &Request) -> String {
    match check {
        Check::Disabled => DISABLED_REASON.to_string(),
        Check::AcceleratorClass => ACCELERATOR_REASON.to_string(),
        Check::DeploymentMode => mode_mismatch(spec, request).unwrap_or_default(),
        Check::Format => {
            let reasons = if spec.formats.is_empty() {
                "no supported formats defined".to_string()
            } else {
                let parts: Vec<String> = spec
                    .formats
                    .iter()
                    .map(|e| mismatch_reason(e, model))
                    .collect();
                parts.join("; ")
            };
            format!(
                "model format '{}' not in supported formats: {reasons}",
                model_label(model)
            )
        }
        Check::Size => match (model.parameter_size.as_deref(), &spec.size_range) {
            (Some(model_size), Some(range)) => size::out_of_range_reason(model_size, range),
            _ => String::new(),
        },
    }
}

/// Whether any entry sets `autoSelect: true`: the gate auto-selection needs, whichever entry
/// matches.
pub(crate) fn has_auto_select_entry(spec: &RuntimeSpec) -> bool {
    spec.formats.iter().any(|e| e.auto_select == Some(true))
}

/// Does entry `entry` support `model`? Diffusion pipeline, architecture, quantization,
/// format (name and version with the entry's operator), framework.
pub(crate) fn entry_matches(entry: &SupportedFormat, model: &BaseModel) -> bool {
    if diffusion_mismatch(model.diffusion.as_ref(), entry.diffusion.as_deref()).is_some()
        || model.architecture != entry.architecture
        || model.quantization != entry.quantization
    {
        return false;
    }
    let model_format = model_format(model);
    let format_ok = entry
        .model_format
        .as_ref()
        .is_some_and(|f| f.name == model_format.name && versions_match(model_format, f));
    let framework_ok = match (&entry.model_framework, &model.framework) {
        (Some(e), Some(m)) => e.name == m.name && versions_match(m, e),
        (None, None) => true,
        _ => false,
    };
    format_ok && framework_ok
}

/// Both versions absent match; one absent does not; both set compare with the entry's
/// operator.
fn versions_match(model: &FormatRef, entry: &FormatRef) -> bool {
    match (&model.version, &entry.version) {
        (Some(_), Some(_)) => version_accepts(entry, model),
        (None, None) => true,
        _ => false,
    }
}

/// Whether the entry's version accepts the model's, both written: OME's rule
/// ([`version::accepts_parsed`]) on the versions parsed when the views were read; an
/// unparseable one never matches.
pub(crate) fn version_accepts(entry: &FormatRef, model: &FormatRef) -> bool {
    match (&entry.parsed_version, &model.parsed_version) {
        (Some(e), Some(m)) => version::accepts_parsed(e, &entry.operator, m),
        _ => false,
    }
}

/// The model's `modelFormat`, or an empty one (a model without it fails validation before
/// selection; this keeps every function total). Only the name and version of a model's
/// format are read.
pub(crate) fn model_format(model: &BaseModel) -> &FormatRef {
    static NO_FORMAT: FormatRef = FormatRef {
        name: String::new(),
        version: None,
        parsed_version: None,
        operator: String::new(),
        weight: 0,
    };
    model.format.as_ref().unwrap_or(&NO_FORMAT)
}

/// Why one entry does not match (OME's `getFormatMismatchReason`): every difference, joined
/// with `, `, or `unknown mismatch`.
pub(crate) fn mismatch_reason(entry: &SupportedFormat, model: &BaseModel) -> String {
    let mut reasons = Vec::new();
    if let Some(reason) = diffusion_mismatch(model.diffusion.as_ref(), entry.diffusion.as_deref()) {
        reasons.push(reason);
    }
    reasons.extend(one_sided_reason(
        "architecture",
        model.architecture.as_deref(),
        entry.architecture.as_deref(),
    ));
    reasons.extend(one_sided_reason(
        "quantization",
        model.quantization.as_deref(),
        entry.quantization.as_deref(),
    ));
    let model_format = model_format(model);
    if let Some(format) = &entry.model_format {
        reasons.extend(named_version_reason("format", model_format, format));
    }
    match (&entry.model_framework, &model.framework) {
        (Some(e), Some(m)) => reasons.extend(named_version_reason("framework", m, e)),
        (Some(e), None) => {
            reasons.push(format!(
                "model has no framework but runtime requires {}",
                e.name
            ));
        }
        (None, Some(m)) => reasons.push(format!(
            "model has framework {} but runtime has no framework requirement",
            m.name
        )),
        (None, None) => {}
    }
    if reasons.is_empty() {
        "unknown mismatch".to_string()
    } else {
        reasons.join(", ")
    }
}

/// The reason for an architecture or quantization difference.
fn one_sided_reason(what: &str, model: Option<&str>, entry: Option<&str>) -> Option<String> {
    match (model, entry) {
        (Some(m), Some(e)) if m != e => Some(format!("{what} mismatch (model={m}, runtime={e})")),
        (None, Some(e)) => Some(format!("model has no {what} but runtime requires {e}")),
        (Some(m), None) => Some(format!(
            "model has {what} {m} but runtime has no {what} requirement"
        )),
        _ => None,
    }
}

/// The reason for a format or framework difference: name first, then version.
fn named_version_reason(what: &str, model: &FormatRef, entry: &FormatRef) -> Option<String> {
    if model.name != entry.name {
        return Some(format!(
            "{what} name mismatch (model={}, runtime={})",
            model.name, entry.name
        ));
    }
    match (model.version.as_deref(), entry.version.as_deref()) {
        (Some(m), Some(e)) if !version_accepts(entry, model) => {
            Some(format!("{what} version mismatch (model={m}, runtime={e})"))
        }
        (None, Some(e)) => Some(format!(
            "model has no {what} version but runtime requires {e}"
        )),
        (Some(_), None) => Some(format!(
            "model has {what} version but runtime has no version requirement"
        )),
        _ => None,
    }
}

/// OME's model label: `mt:<format>[:<version>][:<arch>][:<quantization>][:<framework>[:<version>]]`.
pub(crate) fn model_label(model: &BaseModel) -> String {
    let format = model_format(model);
    let mut parts = vec![format!("mt:{}", format.name)];
    parts.extend(format.version.iter().cloned());
    parts.extend(model.architecture.iter().cloned());
    parts.extend(model.quantization.iter().cloned());
    if let Some(framework) = &model.framework {
        parts.push(framework.name.clone());
        parts.extend(framework.version.iter().cloned());
    }
    parts.join(":")
}

/// Why the model's pipeline does not satisfy the entry's, or `None`. One-directional:
/// an entry without a pipeline accepts any model.
fn diffusion_mismatch(
    model: Option<&DiffusionPipeline>,
    entry: Option<&DiffusionPipeline>,
) -> Option<String> {
    let entry = entry?;
    let Some(model) = model else {
        return Some(
            "diffusion pipeline required by runtime but not specified in model".to_string(),
        );
    };
    if let Some(class) = &entry.class_name
        && model.class_name.as_ref() != Some(class)
    {
        let model_class = model.class_name.as_deref().unwrap_or("<nil>");
        return Some(format!(
            "pipeline class mismatch (model={model_class}, runtime={class})"
        ));
    }
    for ((name, entry_component), (_, model_component)) in
        entry.components.iter().zip(&model.components)
    {
        if let Some(reason) =
            component_mismatch(name, model_component.as_ref(), entry_component.as_ref())
        {
            return Some(reason);
        }
    }
    // OME treats an empty `additionalComponents` map like an absent one.
    let required = entry.additional.as_ref().filter(|m| !m.is_empty())?;
    let Some(offered) = model.additional.as_ref().filter(|m| !m.is_empty()) else {
        return Some("diffusion pipeline missing required additional components".to_string());
    };
    // Go walks this map in random order; key order makes the first reason deterministic.
    required
        .iter()
        .find_map(|(key, entry_component)| match offered.get(key) {
            None => Some(format!("diffusion component {key} missing in model")),
            Some(model_component) => {
                component_mismatch(key, Some(model_component), Some(entry_component))
            }
        })
}

fn component_mismatch(
    name: &str,
    model: Option<&DiffusionComponent>,
    entry: Option<&DiffusionComponent>,
) -> Option<String> {
    let entry = entry?;
    let Some(model) = model else {
        return Some(format!(
            "component {name} required by runtime but not specified in model"
        ));
    };
    // Go's fields are plain strings: absent and empty are the same, and an empty runtime value
    // asks for nothing.
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let (model_library, entry_library) = (text(&model.library), text(&entry.library));
    if !entry_library.is_empty() && entry_library != model_library {
        return Some(format!(
            "{name} library mismatch (model={model_library}, runtime={entry_library})"
        ));
    }
    let (model_type, entry_type) = (text(&model.type_), text(&entry.type_));
    if !entry_type.is_empty() && entry_type != model_type {
        return Some(format!(
            "{name} type mismatch (model={model_type}, runtime={entry_type})"
        ));
    }
    None
}

/// Every class the InferenceService names must be in the runtime's non-empty list.
fn accelerators_supported(spec: &RuntimeSpec, required: &[String]) -> bool {
    if required.is_empty() {
        return true;
    }
    match &spec.accelerator_classes {
        Some(listed) if !listed.is_empty() => required.iter().all(|class| listed.contains(class)),
        _ => false,
    }
}

/// A component is rejected only when both sides declare a valid mode and they differ.
/// The engine is compared before the decoder.
fn mode_mismatch(spec: &RuntimeSpec, request: &Request) -> Option<String> {
    let components = [
        (Role::Engine, spec.engine_mode, request.engine_mode),
        (Role::Decoder, spec.decoder_mode, request.decoder_mode),
    ];
    components.into_iter().find_map(|(component, runtime, requested)| {
        let (runtime, requested) = (runtime?, requested?);
        (runtime != requested).then(|| {
            format!(
                "runtime {component} deployment mode {runtime} does not match requested {component} deployment mode {requested}"
            )
        })
    })
}

/// The weight `explain` reports for the matching entry. Weights ≤ 0 are left out (no
/// 10/5 substitution here).
fn reported_weight(entry: &SupportedFormat, model: &BaseModel, priority: i64) -> i64 {
    let model_format = model_format(model);
    let mut weight: i64 = 0;
    if let Some(f) = &entry.model_format
        && f.name == model_format.name
        && versions_match(model_format, f)
        && f.weight > 0
    {
        weight = weight.wrapping_add(f.weight.wrapping_mul(priority));
    }
    if let (Some(e), Some(m)) = (&entry.model_framework, &model.framework)
        && e.name == m.name
        && versions_match(m, e)
        && e.weight > 0
    {
        weight = weight.wrapping_add(e.weight.wrapping_mul(priority));
    }
    weight
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::{isvc, model, runtime_spec};

    fn reason(spec: &RuntimeSpec, m: &BaseModel, r: &Request) -> String {
        match check(spec, m, r) {
            Ok(_) => "compatible".to_string(),
            Err(e) => e.reason,
        }
    }

    fn no_request() -> Request {
        Request::for_namespace("default")
    }

    /// C01–C07, C09–C11.
    #[test]
    fn compatibility_vectors() {
        let r = no_request();
        // C01
        let m = model("{modelFormat: {name: pytorch, version: '1.0.0'}, modelParameterSize: 7B}");
        let rt = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: pytorch, version: '1.0.0'}}]}",
        );
        assert_eq!(reason(&rt, &m, &r), "compatible");
        // C02
        let m = model("{modelFormat: {name: tensorflow, version: '2.0.0'}}");
        assert_eq!(
            reason(&rt, &m, &r),
            "model format 'mt:tensorflow:2.0.0' not in supported formats: format name mismatch (model=tensorflow, runtime=pytorch)"
        );
        // C03
        let m = model(
            "{modelFormat: {name: safetensors, version: '1.0.0'}, modelArchitecture: LlamaForCausalLM, quantization: fp8}",
        );
        let entry = "{modelFormat: {name: safetensors, version: '1.0.0'}, modelArchitecture: LlamaForCausalLM, quantization: fp8}";
        let rt = runtime_spec(&format!("{{supportedModelFormats: [{entry}]}}"));
        assert_eq!(reason(&rt, &m, &r), "compatible");
        let rt = runtime_spec(&format!(
            "{{supportedModelFormats: [{entry}], modelSizeRange: {{min: 1B, max: 13B}}}}"
        ));
        let matched = check(&rt, &m, &r).expect("C03 with a range is compatible");
        assert!(matched.warnings.contains(&NO_SIZE_WARNING));
        // C04
        let m = model("{modelFormat: {name: pytorch}, modelArchitecture: LlamaForCausalLM}");
        let rt = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: pytorch}, modelArchitecture: MistralForCausalLM}]}",
        );
        assert!(reason(&rt, &m, &r).contains(
            "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM)"
        ));
        // C05
        let rt = runtime_spec("{supportedModelFormats: [{modelFormat: {name: pytorch}}]}");
        assert!(reason(&rt, &m, &r).contains(
            "model has architecture LlamaForCausalLM but runtime has no architecture requirement"
        ));
        // C06
        let m = model(
            "{modelFormat: {name: pytorch}, modelFramework: {name: transformers, version: '4.0.0'}}",
        );
        assert!(
            reason(&rt, &m, &r).contains(
                "model has framework transformers but runtime has no framework requirement"
            )
        );
        // C07
        let m = model("{modelFormat: {name: pytorch}}");
        let rt = runtime_spec("{supportedModelFormats: []}");
        assert_eq!(
            reason(&rt, &m, &r),
            "model format 'mt:pytorch' not in supported formats: no supported formats defined"
        );
        // C09
        let rt = runtime_spec(
            "{disabled: true, supportedModelFormats: [{modelFormat: {name: pytorch}}]}",
        );
        assert_eq!(reason(&rt, &m, &r), "runtime is disabled");
        let disabled = check(&rt, &m, &r).expect_err("disabled");
        assert_eq!(disabled.check, Check::Disabled);
        // C10
        let rt = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: pytorch, weight: 10}, autoSelect: false}]}",
        );
        let matched = check(&rt, &m, &r).expect("C10 is compatible");
        assert_eq!(matched.warnings, vec![NO_AUTO_SELECT_WARNING]);
        // C11
        let m = model("{modelFormat: {name: diffusers}, modelParameterSize: 7B}");
        let small = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: diffusers}}], modelSizeRange: {min: 1B, max: 5B}}",
        );
        let mid = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: diffusers}}], modelSizeRange: {min: 6B, max: 13B}}",
        );
        assert_eq!(check(&small, &m, &r).expect_err("small").check, Check::Size);
        assert_eq!(reason(&mid, &m, &r), "compatible");
    }

    /// C08 and C12: diffusion pipelines.
    #[test]
    fn diffusion_vectors() {
        let r = no_request();
        let m = model(
            "{modelFormat: {name: diffusers},
              diffusionPipeline: {className: QwenImagePipeline,
                                  scheduler: {library: diffusers, type: FlowMatchEulerDiscreteScheduler}}}",
        );
        let with_pipeline = |pipeline: &str| {
            runtime_spec(&format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: diffusers}}, diffusionPipeline: {pipeline}}}]}}"
            ))
        };
        let identical = "{className: QwenImagePipeline, scheduler: {library: diffusers, type: FlowMatchEulerDiscreteScheduler}}";
        assert_eq!(reason(&with_pipeline(identical), &m, &r), "compatible");
        assert_eq!(
            reason(&with_pipeline("{scheduler: {library: diffusers}}"), &m, &r),
            "compatible"
        );
        assert_eq!(reason(&with_pipeline("{}"), &m, &r), "compatible");
        assert!(
            reason(
                &with_pipeline("{className: StableDiffusionPipeline}"),
                &m,
                &r
            )
            .contains(
                "pipeline class mismatch (model=QwenImagePipeline, runtime=StableDiffusionPipeline)"
            )
        );
        // The component checks, in order, and the additional components.
        let cases = [
            (
                "{vae: {}}",
                "component vae required by runtime but not specified in model",
            ),
            (
                "{scheduler: {library: torch}}",
                "scheduler library mismatch (model=diffusers, runtime=torch)",
            ),
            (
                "{scheduler: {type: Euler}}",
                "scheduler type mismatch (model=FlowMatchEulerDiscreteScheduler, runtime=Euler)",
            ),
            (
                "{additionalComponents: {x: {}}}",
                "diffusion pipeline missing required additional components",
            ),
        ];
        for (pipeline, expected) in cases {
            assert!(
                reason(&with_pipeline(pipeline), &m, &r).ends_with(expected),
                "{pipeline}"
            );
        }
        let m2 = model(
            "{modelFormat: {name: diffusers}, diffusionPipeline: {additionalComponents: {a: {library: l}, c: {}}}}",
        );
        assert!(
            reason(
                &with_pipeline("{additionalComponents: {b: {}, a: {}}}"),
                &m2,
                &r
            )
            .ends_with("diffusion component b missing in model")
        );
        assert!(
            reason(
                &with_pipeline("{additionalComponents: {a: {library: k}}}"),
                &m2,
                &r
            )
            .ends_with("a library mismatch (model=l, runtime=k)")
        );
        assert_eq!(
            reason(
                &with_pipeline("{additionalComponents: {a: {library: l}, c: {}}}"),
                &m2,
                &r
            ),
            "compatible"
        );
        // An empty model class name is `<nil>` only when absent.
        let m3 = model("{modelFormat: {name: diffusers}, diffusionPipeline: {}}");
        assert!(
            reason(&with_pipeline("{className: P}"), &m3, &r)
                .ends_with("pipeline class mismatch (model=<nil>, runtime=P)")
        );

        // C12
        let m = model(
            "{modelFormat: {name: diffusers, version: 0.34.0.dev0}, modelArchitecture: QwenImagePipeline,
              modelFramework: {name: diffusers, version: 0.34.0.dev0}}",
        );
        let rt = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: diffusers, version: 0.34.0.dev0},
                modelFramework: {name: diffusers, version: 0.34.0.dev0}, modelArchitecture: QwenImagePipeline,
                diffusionPipeline: {className: QwenImagePipeline, transformer: {library: diffusers}}}]}",
        );
        assert_eq!(
            reason(&rt, &m, &r),
            "model format 'mt:diffusers:0.34.0.dev0:QwenImagePipeline:diffusers:0.34.0.dev0' not in supported formats: diffusion pipeline required by runtime but not specified in model"
        );
    }

    #[test]
    fn mismatch_reasons_collect_every_difference() {
        let m = model(
            "{modelFormat: {name: safetensors, version: '1.0.0'}, modelArchitecture: Qwen2ForCausalLM,
              modelFramework: {name: transformers, version: 4.40.1}}",
        );
        let entry = |text: &str| {
            runtime_spec(&format!("{{supportedModelFormats: [{text}]}}"))
                .formats
                .remove(0)
        };
        let cases = [
            // OME's worked example of the message.
            (
                "{modelFormat: {name: safetensors, version: '1.0.0'}, modelArchitecture: MistralForCausalLM,
                  modelFramework: {name: transformers, version: 4.36.0}}",
                "architecture mismatch (model=Qwen2ForCausalLM, runtime=MistralForCausalLM), framework version mismatch (model=4.40.1, runtime=4.36.0)",
            ),
            (
                "{modelFormat: {name: safetensors}, modelArchitecture: Qwen2ForCausalLM, quantization: fp8,
                  modelFramework: {name: vllm}}",
                "model has no quantization but runtime requires fp8, model has format version but runtime has no version requirement, framework name mismatch (model=transformers, runtime=vllm)",
            ),
            (
                "{modelFormat: {name: safetensors, version: '2.0.0'}, modelArchitecture: Qwen2ForCausalLM,
                  modelFramework: {name: transformers}}",
                "format version mismatch (model=1.0.0, runtime=2.0.0), model has framework version but runtime has no version requirement",
            ),
            // No modelFormat on the entry: no format reason at all (W03's entries).
            ("{name: llama, version: '1', modelArchitecture: Qwen2ForCausalLM, modelFramework: {name: transformers, version: 4.40.1}}", "unknown mismatch"),
        ];
        for (text, expected) in cases {
            assert_eq!(mismatch_reason(&entry(text), &m), expected);
        }
        let bare = model("{modelFormat: {name: pytorch}, quantization: int4}");
        let e = entry(
            "{modelFormat: {name: pytorch, version: '1.0.0'}, modelFramework: {name: t, version: '1'}}",
        );
        assert_eq!(
            mismatch_reason(&e, &bare),
            "model has quantization int4 but runtime has no quantization requirement, model has no format version but runtime requires 1.0.0, model has no framework but runtime requires t"
        );
        let m = model("{modelFormat: {name: p}, modelArchitecture: A, modelFramework: {name: t}}");
        let e = entry("{modelFormat: {name: p}, modelFramework: {name: t, version: '1'}}");
        assert_eq!(
            mismatch_reason(&e, &m),
            "model has architecture A but runtime has no architecture requirement, model has no framework version but runtime requires 1"
        );
        let e = entry("{modelFormat: {name: p}, modelArchitecture: B, modelFramework: {name: t}}");
        let m = model("{modelFormat: {name: p}, modelFramework: {name: t}}");
        assert_eq!(
            mismatch_reason(&e, &m),
            "model has no architecture but runtime requires B"
        );
    }

    #[test]
    fn labels_follow_ome() {
        assert_eq!(
            model_label(&model("{modelFormat: {name: pytorch}}")),
            "mt:pytorch"
        );
        let m = model(
            "{modelFormat: {name: safetensors, version: '1.0.0'}, modelArchitecture: LlamaForCausalLM,
              quantization: fp8, modelFramework: {name: transformers, version: 4.45.0.dev0}}",
        );
        assert_eq!(
            model_label(&m),
            "mt:safetensors:1.0.0:LlamaForCausalLM:fp8:transformers:4.45.0.dev0"
        );
        let m = model("{modelFormat: {name: onnx}, modelFramework: {name: ort}}");
        assert_eq!(model_label(&m), "mt:onnx:ort");
    }

    #[test]
    fn an_entry_without_model_format_never_matches() {
        let m = model("{modelFormat: {name: llama, version: '1'}}");
        let rt = runtime_spec(
            "{supportedModelFormats: [{name: llama, version: '1', autoSelect: true}]}",
        );
        assert!(!entry_matches(&rt.formats[0], &m));
    }

    /// A01–A06.
    #[test]
    fn accelerator_vectors() {
        let m = model("{modelFormat: {name: pytorch}}");
        let rt = |classes: &str| {
            runtime_spec(&format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: pytorch, weight: 10}}, autoSelect: true}}],
                  acceleratorRequirements: {{acceleratorClasses: {classes}}}}}"
            ))
        };
        let req = |spec: &str| Request::from_inference_service(&isvc(spec));
        let pair = rt("[nvidia-a100, nvidia-tesla-t4]");
        let cases = [
            (
                "A01",
                &pair,
                "{spec: {acceleratorSelector: {acceleratorClass: nvidia-a100}}}",
                true,
            ),
            (
                "A02",
                &pair,
                "{spec: {acceleratorSelector: {acceleratorClass: H100}}}",
                false,
            ),
            (
                "A03",
                &rt("[H100]"),
                "{spec: {engine: {acceleratorOverride: {acceleratorClass: H100}}}}",
                true,
            ),
            (
                "A04",
                &rt("[nvidia-a100]"),
                "{spec: {decoder: {acceleratorOverride: {acceleratorClass: H100}}}}",
                false,
            ),
            ("A05", &rt("[]"), "{spec: {}}", true),
            (
                "no list",
                &runtime_spec("{supportedModelFormats: [{modelFormat: {name: pytorch}}]}"),
                "{spec: {acceleratorSelector: {acceleratorClass: H100}}}",
                false,
            ),
            (
                "both",
                &rt("[nvidia-h100, nvidia-h200]"),
                "{spec: {engine: {acceleratorOverride: {acceleratorClass: nvidia-h100}},
                         decoder: {acceleratorOverride: {acceleratorClass: nvidia-h200}}}}",
                true,
            ),
            (
                "one of two",
                &rt("[nvidia-h100, nvidia-h200]"),
                "{spec: {engine: {acceleratorOverride: {acceleratorClass: nvidia-h100}},
                         decoder: {acceleratorOverride: {acceleratorClass: nvidia-a100}}}}",
                false,
            ),
            (
                "empty value",
                &rt("[nvidia-h100]"),
                "{metadata: {name: s, annotations: {ome.io/accelerator-class: ''}}}",
                false,
            ),
        ];
        for (id, spec, isvc_text, expected) in cases {
            let result = check(spec, &m, &req(isvc_text));
            assert_eq!(result.is_ok(), expected, "{id}");
            if let Err(e) = result {
                assert_eq!(e.reason, ACCELERATOR_REASON, "{id}");
                assert!(e.check.is_placement());
            }
        }
        // A06: the accelerator check comes before the size check; a size failure is not a
        // placement failure.
        let m70 = model("{modelFormat: {name: pytorch}, modelParameterSize: 70B}");
        let ranged = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: pytorch}}], modelSizeRange: {min: 1B, max: 2B},
              acceleratorRequirements: {acceleratorClasses: [A100]}}",
        );
        let h100 = req("{spec: {acceleratorSelector: {acceleratorClass: H100}}}");
        assert_eq!(
            check(&ranged, &m70, &h100).expect_err("A06").check,
            Check::AcceleratorClass
        );
        let size_failure = check(&ranged, &m70, &no_request()).expect_err("A06 size");
        assert_eq!(size_failure.check, Check::Size);
        assert!(!size_failure.check.is_placement());
    }

    /// M01–M06.
    #[test]
    fn deployment_mode_vectors() {
        let m = model("{modelFormat: {name: pytorch}}");
        let rt = |config: &str| {
            runtime_spec(&format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: pytorch, weight: 10}}, autoSelect: true}}], {config}}}"
            ))
        };
        let engine = |mode: &str| {
            format!("engineConfig: {{annotations: {{ome.io/deploymentMode: {mode}}}}}")
        };
        let decoder = |mode: &str| {
            format!("decoderConfig: {{annotations: {{ome.io/deploymentMode: {mode}}}}}")
        };
        let isvc_engine =
            |mode: &str| format!("engine: {{annotations: {{ome.io/deploymentMode: {mode}}}}}");
        let isvc_decoder =
            |mode: &str| format!("decoder: {{annotations: {{ome.io/deploymentMode: {mode}}}}}");
        let req =
            |spec: &str| Request::from_inference_service(&isvc(&format!("{{spec: {{{spec}}}}}")));
        let outcome =
            |rt_config: &str, isvc_spec: &str| reason(&rt(rt_config), &m, &req(isvc_spec));

        // M01 (metadata annotations are ignored)
        let r = Request::from_inference_service(&isvc(
            "{metadata: {name: s, annotations: {ome.io/deploymentMode: MultiNode}}}",
        ));
        assert_eq!(reason(&rt(&engine("RawDeployment")), &m, &r), "compatible");
        // M02
        assert_eq!(
            outcome(&engine("MultiNode"), &isvc_engine("''")),
            "compatible"
        );
        assert_eq!(
            outcome(&engine("MultiNode"), &isvc_engine("InvalidMode")),
            "compatible"
        );
        // M03
        assert_eq!(
            outcome(&engine("MultiNode"), &isvc_engine("MultiNode")),
            "compatible"
        );
        assert_eq!(
            outcome(&engine("MultiNode"), &isvc_engine("RawDeployment")),
            "runtime engine deployment mode MultiNode does not match requested engine deployment mode RawDeployment"
        );
        // M04: a leader/worker shape without the annotation declares no mode.
        assert_eq!(
            outcome(
                "engineConfig: {leader: {}, worker: {size: 1}}",
                &isvc_engine("MultiNode")
            ),
            "compatible"
        );
        // M05
        assert_eq!(
            outcome(&decoder("MultiNode"), &isvc_decoder("MultiNode")),
            "compatible"
        );
        assert_eq!(
            outcome(&decoder("RawDeployment"), &isvc_decoder("MultiNode")),
            "runtime decoder deployment mode RawDeployment does not match requested decoder deployment mode MultiNode"
        );
        let both = format!("{}, {}", engine("MultiNode"), decoder("RawDeployment"));
        let isvc_both = format!(
            "{}, {}",
            isvc_engine("MultiNode"),
            isvc_decoder("MultiNode")
        );
        assert!(
            outcome(&both, &isvc_both).starts_with("runtime decoder deployment mode RawDeployment")
        );
        // Engine is checked before the decoder.
        let both_wrong = format!("{}, {}", engine("OMENative"), decoder("RawDeployment"));
        assert!(
            outcome(&both_wrong, &isvc_both)
                .starts_with("runtime engine deployment mode OMENative")
        );
        // M06
        assert!(
            outcome(&engine("MultiNode"), "deploymentMode: RawDeployment")
                .contains("engine deployment mode")
        );
        assert_eq!(
            outcome(
                &engine("MultiNode"),
                &format!(
                    "deploymentMode: RawDeployment, {}",
                    isvc_engine("MultiNode")
                )
            ),
            "compatible"
        );
        assert_eq!(
            outcome(&decoder("MultiNode"), "deploymentMode: RawDeployment"),
            "compatible"
        );
        // An invalid runtime-side mode declares nothing.
        assert_eq!(
            outcome(&engine("Bogus"), &isvc_engine("MultiNode")),
            "compatible"
        );
        // The mode failure is a placement failure.
        let failure = check(
            &rt(&engine("MultiNode")),
            &m,
            &req(&isvc_engine("OMENative")),
        )
        .expect_err("mode");
        assert_eq!(failure.check, Check::DeploymentMode);
        assert!(failure.check.is_placement());
    }

    /// The checks run in OME's order: disabled before accelerator before mode before format.
    #[test]
    fn first_failing_check_wins() {
        let m = model("{modelFormat: {name: pytorch}, modelParameterSize: 70B}");
        let r = Request::from_inference_service(&isvc(
            "{spec: {acceleratorSelector: {acceleratorClass: H100}, deploymentMode: OMENative}}",
        ));
        let spec = |extra: &str| {
            runtime_spec(&format!(
                "{{supportedModelFormats: [{{modelFormat: {{name: onnx}}}}], modelSizeRange: {{max: 1B}},
                  engineConfig: {{annotations: {{ome.io/deploymentMode: MultiNode}}}}{extra}}}"
            ))
        };
        assert_eq!(
            check(&spec(", disabled: true"), &m, &r)
                .expect_err("x")
                .check,
            Check::Disabled
        );
        assert_eq!(
            check(&spec(""), &m, &r).expect_err("x").check,
            Check::AcceleratorClass
        );
        let with_class = ", acceleratorRequirements: {acceleratorClasses: [H100]}";
        assert_eq!(
            check(&spec(with_class), &m, &r).expect_err("x").check,
            Check::DeploymentMode
        );
        assert_eq!(
            check(&spec(with_class), &m, &no_request())
                .expect_err("x")
                .check,
            Check::Format
        );
    }

    /// R10's explain columns: priority and weight of the first matching entry.
    #[test]
    fn reported_priority_and_weight() {
        let m = model(
            "{modelFormat: {name: safetensors, version: '1.0.0'}, modelFramework: {name: transformers, version: 4.45.0.dev0},
              modelArchitecture: LlamaForCausalLM, modelParameterSize: 3.21B}",
        );
        let entry = |extra: &str| {
            format!(
                "{{modelFormat: {{name: safetensors, version: '1.0.0'{extra}}},
                   modelFramework: {{name: transformers, version: 4.45.0.dev0}},
                   modelArchitecture: LlamaForCausalLM"
            )
        };
        let cases = [
            (format!("{}, autoSelect: true}}", entry("")), 1, 2),
            (
                format!("{}, autoSelect: true, priority: 2}}", entry(", weight: 2")),
                2,
                6,
            ),
            (
                format!("{}, autoSelect: true, priority: 3}}", entry("")),
                3,
                6,
            ),
            // Weights ≤ 0 count for nothing here (no 10/5 substitution).
            (format!("{}, priority: 2}}", entry(", weight: 0")), 2, 2),
            (format!("{}, priority: 2}}", entry(", weight: -4")), 2, 2),
        ];
        for (text, priority, weight) in cases {
            let spec = runtime_spec(&format!("{{supportedModelFormats: [{text}]}}"));
            let matched = check(&spec, &m, &no_request()).expect("compatible");
            assert_eq!(
                (matched.priority, matched.weight),
                (priority, weight),
                "{text}"
            );
        }
        // The first matching entry is reported, whatever its autoSelect (R11).
        let spec = runtime_spec(
            "{supportedModelFormats: [
                {modelFormat: {name: safetensors, version: '1.0.0', weight: 5}, modelArchitecture: MistralForCausalLM, autoSelect: true},
                {modelFormat: {name: safetensors, version: '1.0.0', weight: 3}, modelArchitecture: LlamaForCausalLM,
                 modelFramework: {name: transformers, version: 4.45.0.dev0}, autoSelect: false, priority: 4}]}",
        );
        let matched = check(&spec, &m, &no_request()).expect("compatible");
        assert_eq!(
            (matched.entry_index, matched.priority, matched.weight),
            (1, 4, 16)
        );
    }
}
