//! Models whose pods wait for OME's model agent (SEMANTICS.md#model-agent).
//!
//! A model not on a PVC (and not sharded) gives its pods a node selector
//! `models.ome.io/…: Ready` that only OME's model agent sets, once it has the model on the
//! node. The agent is off by default in OME v1.3's chart, and it has no handler for some
//! storage schemes, whose models never become Ready.

use super::names::model_ready_label_key;
use super::pod::ModelStorage;
use crate::diagnostics::{Code, Diagnostic};
use crate::model::{BaseModel, Settings};

/// What OME v1.3's model agent does with a model's storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AgentStorage {
    /// A PVC or a sharded model: no node label, no agent.
    NotNeeded,
    /// `hf://`, `oci://`, `vendor://` (Ready without a download), `local://`: the agent
    /// labels the nodes once the model is there.
    Handled,
    /// Any other scheme (`s3://`, `gs://`, `az://`, `github://`, `modelpack://`, …) or none:
    /// the agent fails the download and no node is ever Ready.
    Unhandled,
}

/// The storage URI schemes the agent's download switch handles (SEMANTICS.md#model-agent).
const HANDLED_SCHEMES: &[&str] = &["hf://", "oci://", "vendor://", "local://"];

impl AgentStorage {
    pub(crate) fn of(model: &BaseModel) -> AgentStorage {
        if matches!(
            ModelStorage::of(model),
            ModelStorage::Pvc { .. } | ModelStorage::Sharded(_)
        ) {
            return AgentStorage::NotNeeded;
        }
        let uri = model.storage.storage_uri.as_deref().unwrap_or("");
        if HANDLED_SCHEMES.iter().any(|s| uri.starts_with(s)) {
            AgentStorage::Handled
        } else {
            AgentStorage::Unhandled
        }
    }
}

/// The diagnostic about a model the rendered pods wait for, if any: the same text for every
/// InferenceService of the model, so that [`dedup`] keeps one.
pub(crate) fn model_diagnostic(model: &BaseModel, settings: &Settings) -> Option<Diagnostic> {
    let label = model_ready_label_key(model.namespace.as_deref(), &model.name);
    let uri = model.storage.storage_uri.as_deref().unwrap_or("");
    let d = match AgentStorage::of(model) {
        AgentStorage::NotNeeded => return None,
        AgentStorage::Handled if settings.model_agent.enabled => Diagnostic::note(
            Code::ModelAgent,
            format!(
                "{} ({uri}) needs OME's model agent, which ome-render.yaml says the cluster runs: its pods wait for nodes labelled `{label}: Ready`",
                model.object
            ),
        )
        .help("the agent sets the label once the model is on the node; pods stay Pending until then"),
        AgentStorage::Handled => Diagnostic::warning(
            Code::ModelAgent,
            format!(
                "{} ({uri}) needs OME's model agent: its pods wait for nodes labelled `{label}: Ready`, which only the agent sets, and the agent is off by default in OME v1.3's chart (modelAgent.enabled: false)",
                model.object
            ),
        )
        .help("run the model agent (the ome-resources chart's modelAgent.enabled: true) and say so with `modelAgent: {enabled: true}` in ome-render.yaml, or store the model on a PVC (pvc://)"),
        AgentStorage::Unhandled => Diagnostic::warning(
            Code::ModelAgentUnsupported,
            format!(
                "{} is stored at `{uri}`, which OME v1.3's model agent cannot download (it handles hf://, oci://, vendor:// and local://): no node is ever labelled `{label}: Ready`, so its pods stay Pending",
                model.object
            ),
        )
        .help("store the model on hf://, oci:// or a PVC (pvc://), or put it on the nodes and label them yourself"),
    };
    Some(at_storage_uri(d, model))
}

/// The diagnostic about a model mounted as an overlay that only the model agent puts on the
/// node, if any (SEMANTICS.md#model-agent). OME v1.3 gives the pods no node selector for an
/// overlay, so nothing holds them until it is there: a pod can start with the overlay's
/// directory empty. The same text for every InferenceService of the overlay ([`dedup`]).
pub(crate) fn overlay_diagnostic(model: &BaseModel, settings: &Settings) -> Option<Diagnostic> {
    let uri = model.storage.storage_uri.as_deref().unwrap_or("");
    // Without a path OME mounts nothing for it (SEMANTICS.md#overlays).
    let path = model.storage.path.as_deref()?;
    let d = match AgentStorage::of(model) {
        AgentStorage::NotNeeded => return None,
        AgentStorage::Handled => {
            // Once the settings say the agent runs, a note (as for a primary model): the
            // pods still have no selector to wait for the overlay.
            let (agent, diagnostic): (_, fn(Code, String) -> Diagnostic) =
                if settings.model_agent.enabled {
                    ("ome-render.yaml says the cluster runs it", Diagnostic::note)
                } else {
                    (
                        "off by default in OME v1.3's chart: modelAgent.enabled: false",
                        Diagnostic::warning,
                    )
                };
            diagnostic(
                Code::ModelAgent,
                format!(
                    "{} ({uri}) is mounted as an overlay from the node's `{path}`: only OME's model agent puts it there ({agent}), and OME v1.3 gives the pods no node selector for an overlay, so a pod can start on a node where the directory is still empty",
                    model.object
                ),
            )
            .help("store the overlay on a PVC (pvc://), or have the agent download it to every node the pods can run on before they start")
        }
        AgentStorage::Unhandled => Diagnostic::warning(
            Code::ModelAgentUnsupported,
            format!(
                "{} is mounted as an overlay from the node's `{path}`, but it is stored at `{uri}`, which OME v1.3's model agent cannot download (it handles hf://, oci://, vendor:// and local://): the directory stays empty unless it is put on the nodes by other means",
                model.object
            ),
        )
        .help("store the overlay on hf://, oci:// or a PVC (pvc://)"),
    };
    Some(at_storage_uri(d, model))
}

/// `d` pointed at the model's `spec.storage.storageUri` (the model, when it has none).
fn at_storage_uri(d: Diagnostic, model: &BaseModel) -> Diagnostic {
    let pos = if model.storage.storage_uri_pos.is_none() {
        model.pos
    } else {
        model.storage.storage_uri_pos
    };
    d.at(pos)
        .object(model.object.clone())
        .field("spec.storage.storageUri")
}

/// Keeps the first of the model agent's diagnostics that are the same (one per model).
pub(crate) fn dedup(diags: &mut Vec<Diagnostic>) {
    let mut seen = std::collections::HashSet::new();
    diags.retain(|d| {
        !matches!(d.code, Code::ModelAgent | Code::ModelAgentUnsupported)
            || seen.insert((d.code, d.pos, d.message.clone()))
    });
}
