//! Model overlays: the other models `spec.model.overlays` mounts beside the primary one,
//! looked up as OME v1.3's controller looks them up (SEMANTICS.md#overlays).
//!
//! OME skips an overlay it cannot mount (not found, disabled) and renders the pods without
//! it; only a reference it cannot read at all (an unknown kind or API group) stops the
//! render. A sharded overlay is refused here, as a sharded primary model is: its data comes
//! from a model cache ome-render does not render.

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic};
use crate::model::inference_service::{OverlayRef, overlay_env_name};
use crate::model::{BaseModel, InferenceService};

/// One overlay, in `spec.model.overlays` order.
#[derive(Clone, Debug)]
pub(crate) struct Overlay<'a> {
    pub(crate) reference: OverlayRef,
    /// The model mounted, or why OME skips the overlay.
    pub(crate) outcome: Outcome<'a>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Outcome<'a> {
    Mounted(&'a BaseModel),
    /// No model of that name and kind is visible from the InferenceService.
    NotFound,
    /// The model says `spec.disabled: true`.
    Disabled(&'a BaseModel),
}

impl Overlay<'_> {
    /// The model mounted, `None` when OME skips the overlay.
    pub(crate) fn model(&self) -> Option<&BaseModel> {
        match self.outcome {
            Outcome::Mounted(m) => Some(m),
            Outcome::NotFound | Outcome::Disabled(_) => None,
        }
    }

    /// OME's reason for skipping the overlay (its status text), `None` when it is mounted.
    pub(crate) fn skip_reason(&self) -> Option<String> {
        let name = crate::go::quote(&self.reference.name);
        match self.outcome {
            Outcome::Mounted(_) => None,
            Outcome::NotFound => Some(format!("overlay {name} not found")),
            Outcome::Disabled(_) => Some(format!("overlay {name} is disabled")),
        }
    }
}

/// The overlays of `isvc`, in order; `Err` after pushing an error for a reference OME
/// cannot resolve or one ome-render does not render.
pub(crate) fn resolve<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    diags: &mut Vec<Diagnostic>,
) -> Result<Vec<Overlay<'a>>, ()> {
    let Some(model_ref) = &isvc.model else {
        return Ok(Vec::new());
    };
    let ns = isvc.lookup_namespace.as_str();
    let mut out = Vec::with_capacity(model_ref.overlays.len());
    let mut failed = false;
    for (i, reference) in model_ref.overlays.iter().enumerate() {
        let name = reference.name.as_str();
        let quoted = crate::go::quote(name);
        let refuse = |message: String, field: &str, help: &str| {
            Diagnostic::error(Code::InvalidField, message)
                .at(reference.pos)
                .object(isvc.object.clone())
                .field(format!("spec.model.overlays[{i}]{field}"))
                .help(help.to_string())
        };
        if let Some(group) = reference.api_group.as_deref().filter(|g| !g.is_empty())
            && group != "ome.io"
        {
            diags.push(refuse(
                format!(
                    "resolve overlay {quoted}: unsupported model API group {}",
                    crate::go::quote(group)
                ),
                ".apiGroup",
                "leave apiGroup out, or write ome.io",
            ));
            failed = true;
            continue;
        }
        // The CRD defaults an absent kind to ClusterBaseModel; an empty one looks at the
        // namespace first, then the cluster, as OME's lookup of an unqualified name does.
        let found = match reference.kind.as_deref() {
            None | Some("ClusterBaseModel") => catalog.cluster_models.get(name),
            Some("BaseModel") => catalog.models.get(&(ns.to_string(), name.to_string())),
            Some("") => catalog.model(ns, name),
            Some(other) => {
                diags.push(refuse(
                    format!(
                        "resolve overlay {quoted}: unsupported model kind {}",
                        crate::go::quote(other)
                    ),
                    ".kind",
                    "write kind BaseModel or ClusterBaseModel (the default)",
                ));
                failed = true;
                continue;
            }
        };
        let outcome = match found {
            None => Outcome::NotFound,
            Some(m) if m.disabled => Outcome::Disabled(m),
            Some(m) if m.distribution.as_deref() == Some("Sharded") => {
                diags.push(
                    Diagnostic::error(
                        Code::UnsupportedMode,
                        format!("overlay {quoted} is a sharded model, which ome-render does not render (OME mounts it only once its status says it is loaded, and its pods read it through a model cache)"),
                    )
                    .at(reference.pos)
                    .object(isvc.object.clone())
                    .field(format!("spec.model.overlays[{i}]"))
                    .related(m.pos, "the model is defined here")
                    .help("render this InferenceService with OME's controller, or use an overlay model that is not sharded"),
                );
                failed = true;
                continue;
            }
            Some(m) => Outcome::Mounted(m),
        };
        let overlay = Overlay {
            reference: reference.clone(),
            outcome,
        };
        if let Some(reason) = overlay.skip_reason() {
            let d = Diagnostic::warning(
                Code::OverlaySkipped,
                format!("{reason}: OME v1.3 skips it, and the pods run without it (no volume, mount or {} variable)", overlay_env_name(name)),
            )
            .at(reference.pos)
            .object(isvc.object.clone())
            .field(format!("spec.model.overlays[{i}]"));
            diags.push(match outcome {
                Outcome::Disabled(m) => d
                    .related(m.pos, "the model is defined here")
                    .help("enable the model, or remove the overlay"),
                _ => d.help(
                    crate::diagnostics::suggest::did_you_mean(name, catalog.model_names(ns))
                        .unwrap_or_else(|| "add the model's file to the paths, or fix the name (or the overlay's kind: the default is ClusterBaseModel)".to_string()),
                ),
            });
        }
        out.push(overlay);
    }
    if failed { Err(()) } else { Ok(out) }
}
