//! Selection: which runtime serves an InferenceService (named or auto-selected), and which
//! accelerator class each component runs on.
//!
//! The runtime half follows OME v1.3 as documented (SEMANTICS.md#auto-selection):
//!
//! - [`size`]: the parameter-size primitives (versions are parsed with the views, in
//!   [`crate::model::version`]);
//! - [`request`]: what an InferenceService asks for besides the model (namespace,
//!   accelerator classes, deployment modes);
//! - [`matcher`]: whether a runtime supports a model, and why not;
//! - [`scorer`]: how well, and which entry applies after selection;
//! - [`auto`]: auto-selection over a [`RuntimeIndex`] built once from every runtime;
//! - [`named`]: what OME says about a runtime named in `spec.runtime.name`;
//! - [`pins`]: which revision a pinned InferenceService renders from, and `pin`'s plan;
//! - [`resolve`]: one InferenceService's model and runtime, as diagnostics;
//! - [`overlays`]: the models `spec.model.overlays` mounts beside it;
//! - [`accelerator_policy`]: the accelerator class of each engine and decoder.
//!
//! The reports of `explain` and `tree` built on these are in [`crate::inspect`].
//!
//! Everything here is pure: inputs are the typed model views, outputs are values and OME's
//! exact message texts, which the caller turns into diagnostics.

pub(crate) mod accelerator_policy;
pub(crate) mod auto;
pub(crate) mod matcher;
pub(crate) mod named;
pub(crate) mod overlays;
pub(crate) mod pins;
pub(crate) mod request;
pub(crate) mod resolve;
pub(crate) mod scorer;
pub(crate) mod size;
#[cfg(test)]
pub(crate) mod testutil;
