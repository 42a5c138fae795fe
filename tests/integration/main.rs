//! The integration tests: one binary, driven by the fixtures under `testdata/`.
//!
//! - [`fixtures`]: each `testdata/<case>/` is rendered and its exit code, standard error and
//!   standard output are compared with a reviewed insta snapshot;
//! - [`bad`]: each `testdata/bad/<case>/` has one thing wrong and must fail with its file and
//!   line, compared with a reviewed snapshot;
//! - [`cli`]: flags, exit codes, fail-closed behaviour, `-o` atomicity, determinism;
//! - [`yaml11`]: the output read back by a YAML 1.1 reader (PyYAML) keeps its strings;
//! - [`validate`]: the output passes the Kubernetes API schemas (`kubernetes-validate`);
//! - [`layers`]: no module uses a module of a layer above it.

#![expect(
    clippy::disallowed_methods,
    reason = "the tests set up and inspect files around the binary"
)]

mod bad;
mod cli;
mod fixtures;
mod layers;
mod support;
mod validate;
mod yaml11;
