//! Rendering: from a merged component to the Kubernetes objects OME creates.

pub mod names;
pub mod placeholders;
