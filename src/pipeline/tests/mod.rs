//! End-to-end tests of the pure stages, run from YAML strings through the pipeline.

mod limits;
mod properties;
mod render;
mod resolve;
