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

pub mod catalog;
pub mod checks;
pub mod cli;
pub mod commands;
pub mod diagnostics;
pub mod emit;
pub mod inherit;
pub mod load;
pub mod merge;
pub mod model;
pub mod modelmeta;
pub mod pipeline;
pub mod preset;
pub mod render;
pub mod select;
pub mod settings;
pub mod source;
pub mod yaml;
