//! End-to-end tests of the pure stages, run from YAML strings through the pipeline.

mod diff;
mod inheritance;
mod limits;
mod pins;
mod pods;
mod properties;
mod render;
mod resolve;
mod reuse;
mod traffic;
