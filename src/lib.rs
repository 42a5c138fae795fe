//! ome-render renders OME (Open Model Engine) resources offline into the Kubernetes objects
//! OME's controller would create, for Argo CD or Flux to apply.
//!
//! The pipeline, one module per stage (see `ARCHITECTURE.md`):
//!
//! 1. [`load`] finds and reads the input files (the only module that reads files) and parses
//!    them into objects with their positions;
//! 2. [`catalog`] indexes the objects, finds duplicates and sorts OME resources from
//!    pass-through objects;
//! 3. [`inherit`] resolves runtime inheritance chains;
//! 4. [`select`] resolves each InferenceService's model and runtime (named or auto-selected);
//! 5. [`merge`] merges the runtime with the InferenceService;
//! 6. [`render`] builds the Deployments, Services and the rest;
//! 7. [`emit`] orders and writes the objects (the only module that writes files).
//!
//! Every stage between loading and emitting is pure and reports problems as
//! [`diagnostics::Diagnostic`]s.

pub(crate) mod catalog;
pub mod cli;
pub(crate) mod commands;
pub(crate) mod diagnostics;
pub(crate) mod emit;
pub(crate) mod inherit;
pub(crate) mod load;
pub(crate) mod merge;
pub(crate) mod model;
pub(crate) mod pipeline;
pub(crate) mod render;
pub(crate) mod rendered;
pub(crate) mod select;
pub(crate) mod source;
pub(crate) mod yaml;

pub use commands::ExitStatus;

/// Runs the command the command line asks for.
pub fn run(cli: &cli::Cli) -> ExitStatus {
    commands::run(cli)
}
