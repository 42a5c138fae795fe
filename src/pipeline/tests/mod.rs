//! End-to-end tests of the pure stages, run from YAML strings through the pipeline.

mod inheritance;
mod pins;
mod render;
mod resolve;
