//! The integration tests: one binary, driven by the fixtures under `testdata/`.
//!
//! - [`fixtures`]: each `testdata/<case>/` is rendered and its exit code, standard error and
//!   standard output are compared with a reviewed insta snapshot;
//! - [`cli`]: flags, exit codes, fail-closed behaviour, `-o` atomicity, determinism;
//! - [`yaml11`]: the output read back by a YAML 1.1 reader (PyYAML) keeps its strings;
//! - [`validate`]: the output passes the Kubernetes API schemas (`kubernetes-validate`).

mod cli;
mod fixtures;
mod support;
mod validate;
mod yaml11;
