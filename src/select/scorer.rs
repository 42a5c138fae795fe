//! How well does a runtime serve a model? The entry score and runtime score that rank
//! auto-selection candidates (SEMANTICS.md#auto-selection), and the "best entry" whose
//! `acceleratorConfig` rendering applies after selection.
//!
//! Scoring is more lenient than matching: it ignores architecture, quantization and diffusion
//! pipelines, and tolerates a version set on one side only.

use super::matcher::model_format;
use super::matcher::version_accepts;
use crate::model::{BaseModel, FormatRef, RuntimeSpec, SupportedFormat};

/// The weight a format contributes when its `weight` is 0 (OME's `ModelFormatWeight`).
pub(crate) const DEFAULT_FORMAT_WEIGHT: i64 = 10;
/// The weight a framework contributes when its `weight` is 0 (OME's `ModelFrameworkWeight`).
pub(crate) const DEFAULT_FRAMEWORK_WEIGHT: i64 = 5;

/// OME's `CalculateFormatScore`: `(format weight + framework weight) × priority` when the
/// entry's format and framework agree with the model's, else 0. A weight of 0 counts as
/// 10 (format) or 5 (framework); negative weights count as written.
pub(crate) fn entry_score(entry: &SupportedFormat, model: &BaseModel, priority: i64) -> i64 {
    let model_format = model_format(model);
    let mut score: i64 = 0;
    if let Some(format) = &entry.model_format {
        if format.name != model_format.name || !versions_agree(model_format, format) {
            return 0;
        }
        score = score
            .wrapping_add(weight_or(format.weight, DEFAULT_FORMAT_WEIGHT).wrapping_mul(priority));
    }
    match (&entry.model_framework, &model.framework) {
        (Some(framework), Some(model_framework)) => {
            if framework.name != model_framework.name || !versions_agree(model_framework, framework)
            {
                return 0;
            }
            score = score.wrapping_add(
                weight_or(framework.weight, DEFAULT_FRAMEWORK_WEIGHT).wrapping_mul(priority),
            );
        }
        (None, None) => {}
        // A framework on one side only scores nothing, unlike a one-sided version.
        _ => return 0,
    }
    score
}

/// OME's `CalculateScore`: the best entry score over entries that do not set
/// `autoSelect: false` (unset counts), each with its own priority (1 when unset); never
/// below 0.
pub(crate) fn runtime_score(spec: &RuntimeSpec, model: &BaseModel) -> i64 {
    spec.formats
        .iter()
        .filter(|entry| entry.auto_select != Some(false))
        .map(|entry| entry_score(entry, model, entry.priority.unwrap_or(1)))
        .fold(0, i64::max)
}

/// OME's `GetSupportedModelFormat`: the entry whose per-entry settings apply after selection.
/// An auto-selected runtime considers only `autoSelect: true` entries (unset is excluded
/// here); a named runtime considers all. Every entry is scored with priority 1; the strictly
/// highest positive score wins, the earlier entry on ties.
pub(crate) fn best_entry<'s>(
    spec: &'s RuntimeSpec,
    model: &BaseModel,
    auto_selected: bool,
) -> Option<(usize, &'s SupportedFormat)> {
    let mut best = None;
    let mut best_score = 0;
    for (index, entry) in spec.formats.iter().enumerate() {
        if auto_selected && entry.auto_select != Some(true) {
            continue;
        }
        let score = entry_score(entry, model, 1);
        if score > best_score {
            best_score = score;
            best = Some((index, entry));
        }
    }
    best
}

/// Versions in scoring: only a failed comparison of two set versions disqualifies.
fn versions_agree(model: &FormatRef, entry: &FormatRef) -> bool {
    match (&model.version, &entry.version) {
        (Some(_), Some(_)) => version_accepts(entry, model),
        _ => true,
    }
}

fn weight_or(weight: i64, default: i64) -> i64 {
    if weight == 0 { default } else { weight }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::testutil::{model, runtime_spec};

    fn score(formats: &str, m: &BaseModel) -> i64 {
        runtime_score(
            &runtime_spec(&format!("{{supportedModelFormats: {formats}}}")),
            m,
        )
    }

    /// S01–S08. In OME's Go tests an unset weight is 0; here that is `weight: 0`.
    #[test]
    fn scoring_vectors() {
        let versioned = model(
            "{modelFormat: {name: PyTorch, version: '2.0.0'}, modelFramework: {name: transformers, version: '4.0.0'}}",
        );
        let with_framework =
            model("{modelFormat: {name: PyTorch}, modelFramework: {name: transformers}}");
        let plain = model("{modelFormat: {name: PyTorch}}");
        let cases = [
            (
                "S01",
                "[{modelFormat: {name: PyTorch, version: '2.0.0', weight: 10},
                   modelFramework: {name: transformers, version: '4.0.0', weight: 5}, priority: 3, autoSelect: true}]",
                &versioned,
                45,
            ),
            (
                "S02",
                "[{modelFormat: {name: PyTorch, weight: 8}, modelFramework: {name: different-framework, weight: 4},
                   priority: 2, autoSelect: true}]",
                &with_framework,
                0,
            ),
            ("S03", "[{modelFormat: {name: TensorFlow, weight: 10}, priority: 5, autoSelect: true}]", &plain, 0),
            (
                "S04",
                "[{modelFormat: {name: PyTorch, weight: 5}, modelFramework: {name: transformers, weight: 8}, priority: 1, autoSelect: true},
                  {modelFormat: {name: PyTorch, weight: 10}, modelFramework: {name: transformers, weight: 8}, priority: 2, autoSelect: true}]",
                &with_framework,
                36,
            ),
            ("S05", "[{modelFormat: {name: PyTorch, weight: 12}, autoSelect: true}]", &plain, 12),
            (
                "S06",
                "[{modelFormat: {name: PyTorch, weight: 10}, modelFramework: {name: transformers, weight: 5},
                   priority: 2, autoSelect: true}]",
                &plain,
                0,
            ),
            ("S07", "[{modelFormat: {name: PyTorch, weight: 10}, priority: 2, autoSelect: false}]", &plain, 0),
            (
                "S08",
                "[{modelFormat: {name: PyTorch, weight: 2}, modelFramework: {name: transformers}, priority: 2}]",
                &with_framework,
                6,
            ),
            (
                "S08 zero",
                "[{modelFormat: {name: PyTorch, weight: 0}, modelFramework: {name: transformers, weight: 0}, priority: 1}]",
                &with_framework,
                15,
            ),
            (
                "S08 negative",
                "[{modelFormat: {name: PyTorch, weight: -3}, modelFramework: {name: transformers}, priority: 1}]",
                &with_framework,
                0,
            ),
            (
                "negative lowers",
                "[{modelFormat: {name: PyTorch, weight: 4}, modelFramework: {name: transformers, weight: -1}, priority: 2}]",
                &with_framework,
                6,
            ),
        ];
        for (id, formats, m, expected) in cases {
            assert_eq!(score(formats, m), expected, "{id}");
        }
    }

    #[test]
    fn scoring_tolerates_one_sided_versions_but_not_failed_ones() {
        let m = model("{modelFormat: {name: p, version: '1.0.0'}, modelFramework: {name: t}}");
        let one_sided = "[{modelFormat: {name: p, weight: 0}, modelFramework: {name: t, version: '2', weight: 0}}]";
        assert_eq!(score(one_sided, &m), 15);
        let failed = "[{modelFormat: {name: p, version: '2.0.0'}, modelFramework: {name: t}}]";
        assert_eq!(score(failed, &m), 0);
        // Architecture does not enter the score.
        let other_arch =
            "[{modelFormat: {name: p}, modelFramework: {name: t}, modelArchitecture: X}]";
        assert_eq!(score(other_arch, &m), 2);
        // An entry without modelFormat scores by its framework alone.
        assert_eq!(score("[{modelFramework: {name: t, weight: 3}}]", &m), 3);
    }

    /// B01–B07.
    #[test]
    fn best_entry_vectors() {
        let pytorch = model("{modelFormat: {name: pytorch}}");
        let onnx = model("{modelFormat: {name: onnx}}");
        let best = |formats: &str, m: &BaseModel, auto: bool| {
            let spec = runtime_spec(&format!("{{supportedModelFormats: {formats}}}"));
            best_entry(&spec, m, auto).map(|(i, _)| i)
        };
        let cases = [
            (
                "B01",
                "[{modelFormat: {name: pytorch, weight: 10}, autoSelect: false}]",
                &pytorch,
                true,
                None,
            ),
            (
                "B02",
                "[{modelFormat: {name: pytorch, weight: 10}, autoSelect: true}]",
                &pytorch,
                true,
                Some(0),
            ),
            (
                "B03",
                "[{modelFormat: {name: pytorch, weight: 10}, autoSelect: false}]",
                &pytorch,
                false,
                Some(0),
            ),
            (
                "B04",
                "[{modelFormat: {name: onnx, weight: 8}}]",
                &onnx,
                false,
                Some(0),
            ),
            (
                "B05",
                "[{modelFormat: {name: onnx, weight: 8}}]",
                &onnx,
                true,
                None,
            ),
            (
                "B06",
                "[{modelFormat: {name: pytorch, weight: 5}, autoSelect: false},
                  {modelFormat: {name: pytorch, weight: 15}, autoSelect: false}]",
                &pytorch,
                false,
                Some(1),
            ),
            (
                "B07",
                "[{modelFormat: {name: pytorch, weight: 5}, autoSelect: true, priority: 10},
                  {modelFormat: {name: pytorch, weight: 10}, autoSelect: true, priority: 1}]",
                &pytorch,
                true,
                Some(1),
            ),
            (
                "tie keeps the first",
                "[{modelFormat: {name: pytorch, weight: 7}}, {modelFormat: {name: pytorch, weight: 7}}]",
                &pytorch,
                false,
                Some(0),
            ),
        ];
        for (id, formats, m, auto, expected) in cases {
            assert_eq!(best(formats, m, auto), expected, "{id}");
        }
        // B07: the runtime score comes from the first entry's priority.
        let spec = runtime_spec(
            "{supportedModelFormats: [{modelFormat: {name: pytorch, weight: 5}, autoSelect: true, priority: 10},
                                      {modelFormat: {name: pytorch, weight: 10}, autoSelect: true, priority: 1}]}",
        );
        assert_eq!(runtime_score(&spec, &pytorch), 50);
    }
}
