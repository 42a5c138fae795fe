//! The injectors of OME's pod webhook that need the cluster when the pod starts: their
//! trigger annotation is refused with the reason (SEMANTICS.md#choice-pod-webhook).
//!
//! - model-init (`ome.io/inject-model-init: "true"`) adds an init container that downloads
//!   the model from object storage at pod start;
//! - the fine-tuned adapter (`ome.io/inject-fine-tuned-adapter: <weight>`) adds one that
//!   downloads a FineTunedWeight and reads it from the cluster;
//! - the serving sidecar (`ome.io/inject-serving-sidecar: "true"`) adds a container.
//!
//! Each takes its image and settings from the cluster's `inferenceservice-config`, which a
//! render does not have.

use super::{Context, Pod};

const MODEL_INIT: &str = "ome.io/inject-model-init";
const FINE_TUNED_ADAPTER: &str = "ome.io/inject-fine-tuned-adapter";
const SERVING_SIDECAR: &str = "ome.io/inject-serving-sidecar";

fn refuse(cx: &mut Context<'_>, key: &str, what: &str) -> Result<(), ()> {
    let d = crate::diagnostics::Diagnostic::error(
        crate::diagnostics::Code::PodWebhook,
        format!("{key}: OME's pod webhook would add {what}; ome-render cannot render it offline"),
    )
    .help(format!(
        "its image and settings come from the cluster's inferenceservice-config and it fetches data when the pod starts; remove {key}, or put the container in the runtime yourself"
    ));
    cx.annotation_diagnostic(d, key);
    Err(())
}

pub(super) fn model_init(pod: &mut Pod<'_>, cx: &mut Context<'_>) -> Result<(), ()> {
    if pod.annotation(MODEL_INIT) == Some("true") {
        return refuse(
            cx,
            MODEL_INIT,
            "the model-init container, which downloads the model from object storage",
        );
    }
    Ok(())
}

pub(super) fn fine_tuned_adapter(pod: &mut Pod<'_>, cx: &mut Context<'_>) -> Result<(), ()> {
    if pod.nonempty(FINE_TUNED_ADAPTER).is_some() {
        return refuse(
            cx,
            FINE_TUNED_ADAPTER,
            "the fine-tuned adapter container, which downloads the fine-tuned weight",
        );
    }
    Ok(())
}

pub(super) fn serving_sidecar(pod: &mut Pod<'_>, cx: &mut Context<'_>) -> Result<(), ()> {
    if pod.annotation(SERVING_SIDECAR) == Some("true") {
        return refuse(cx, SERVING_SIDECAR, "the serving sidecar container");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::run;

    #[test]
    fn triggers_are_refused_with_the_reason() {
        for (key, value) in [
            ("ome.io/inject-model-init", "true"),
            ("ome.io/inject-fine-tuned-adapter", "my-lora"),
            ("ome.io/inject-serving-sidecar", "true"),
        ] {
            let (_, diags) = run(&format!(
                "metadata: {{labels: {{ome.io/inferenceservice: x}}, annotations: {{{key}: '{value}'}}}}\nspec: {{containers: [{{name: ome-container, image: i}}]}}\n"
            ));
            assert_eq!(diags.len(), 1, "{key}");
            assert!(diags[0].is_error() && diags[0].message.contains("cannot render it offline"));
        }
        // `false` triggers nothing.
        let (_, diags) = run(
            "metadata: {labels: {ome.io/inferenceservice: x}, annotations: {ome.io/inject-model-init: 'false'}}\nspec: {containers: [{name: ome-container, image: i}]}\n",
        );
        assert!(diags.is_empty());
    }
}
