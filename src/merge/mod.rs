//! Merging: the runtime's component configs with the InferenceService's components
//! (strategic merge with OME's patch keys), and the argument rules of per-accelerator
//! overrides.

pub(crate) mod args;
pub(crate) mod strategic;
