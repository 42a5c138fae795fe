//! Merging: the runtime's component configs with the InferenceService's components
//! (strategic merge with OME's patch keys), and the argument rules of per-accelerator
//! overrides.

pub mod args;
pub mod strategic;
