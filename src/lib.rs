//! ome-render renders OME (Open Model Engine) resources offline into the Kubernetes objects
//! OME's controller would create, for Argo CD or Flux to apply.
//!
//! The modules are layers (`ARCHITECTURE.md`); each uses only the ones listed before it:
//!
//! - libraries: [`k8s`] (the Kubernetes vocabulary: quantities, name rules), [`yaml`] (the position-carrying document tree, its reader and emitter),
//!   [`go`] (Go's quoting, parsers and JSON decoding that OME's messages and values come from),
//!   [`source`] (the loaded files), [`diagnostics`] (the one diagnostic type and its
//!   renderers), [`merge`] (strategic merge, argument rewrites), [`rendered`] (an output
//!   object), [`modelmeta`] (the model metadata OME's model agent derives from a Hugging Face
//!   snapshot);
//! - stages, in pipeline order: [`load`] finds, reads and parses the inputs (the only module
//!   that reads files); [`model`] holds the typed views of OME's resources; [`admission`]
//!   is OME's admission of one object as written (one table of rules); [`catalog`]
//!   indexes the objects, finds duplicates, applies presets and checks runtimes; [`inherit`]
//!   resolves runtime inheritance; [`select`] resolves each InferenceService's model, runtime
//!   and accelerator classes; [`render`] builds the Deployments, Services and the rest;
//!   [`emit`] checks, orders and writes the output (the only module that writes files);
//!   [`diff`] compares two renders, says what changed them, and writes the report;
//! - on top: [`inspect`] builds the reports of `explain` and `tree`, [`pipeline`] runs the stages, [`cli`] is the command line and [`commands`] runs
//!   it (the only module that prints).
//!
//! Every stage between loading and emitting is pure and reports problems as
//! [`diagnostics::Diagnostic`]s.
//!
//! With the `fuzzing` feature, `fuzzing` holds the entry points of the fuzz targets in
//! `fuzz/` (FUZZING.md); nothing else of the library is public.

pub(crate) mod admission;
pub(crate) mod catalog;
pub mod cli;
pub(crate) mod commands;
pub(crate) mod diagnostics;
pub(crate) mod diff;
pub(crate) mod drawing;
pub(crate) mod emit;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod go;
pub(crate) mod inherit;
pub(crate) mod inspect;
pub(crate) mod k8s;
pub(crate) mod load;
pub(crate) mod merge;
pub(crate) mod model;
pub(crate) mod modelmeta;
pub(crate) mod pipeline;
pub(crate) mod render;
pub(crate) mod rendered;
pub(crate) mod revision;
pub(crate) mod select;
pub(crate) mod source;
pub(crate) mod textdiff;
pub(crate) mod yaml;

pub use commands::ExitStatus;

/// Runs the command the command line asks for.
pub fn run(cli: &cli::Cli) -> ExitStatus {
    commands::run(cli)
}
