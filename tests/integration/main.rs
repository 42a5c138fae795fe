//! The integration tests: one binary, driven by the fixtures under `testdata/`.
//!
//! - [`fixtures`]: each `testdata/<case>/` is rendered and its exit code, standard error and
//!   standard output are compared with a reviewed insta snapshot;
//! - [`argocd`]: the Argo CD plugin's contract, played as argocd-cmp-server would;
//! - [`bad`]: each `testdata/bad/<case>/` has one thing wrong and must fail with its file and
//!   line, compared with a reviewed snapshot;
//! - [`catalog`]: OME's own catalog: its RDMA runtimes with the pod webhook's injection;
//! - [`cli`]: flags, exit codes, fail-closed behaviour, `-o` atomicity, determinism;
//! - [`components`]: `ome-render components`, against the shapes of OME's `runtime render` goldens;
//! - [`completions`]: shell completion with the real bash, zsh and fish, and the manual page;
//! - [`contract`]: the command line as a platform engineer meets it, item by item;
//! - [`deploy_config`]: `--deploy-config`, OME's ConfigMap, against `ome-render.yaml`;
//! - [`diff`]: `ome-render diff`, its exit codes, labelled diagnostics and `--base-ref`;
//! - [`action`]: the GitHub Action's metadata (check-jsonschema) and its script against a
//!   mock GitHub API;
//! - [`yaml11`]: the output read back by a YAML 1.1 reader (PyYAML) keeps its strings;
//! - [`validate`]: the output passes the Kubernetes API schemas (`kubernetes-validate`);
//! - [`flux`]: `render --check` of a committed render, and the `${` warning;
//! - [`krm`]: the KRM function under kustomize and kpt;
//! - [`layers`]: no module uses a module of a layer above it;
//! - [`pins`]: `ome-render pin` and the lock round trip;
//! - [`typos`]: did-you-mean helps, mistyped subcommands, `--max-bytes`, size mismatches;
//! - [`model_metadata`]: `model-metadata` and the `ome-render.io/model-config` annotation.

#![expect(
    clippy::disallowed_methods,
    reason = "the tests set up and inspect files around the binary"
)]

mod action;
mod argocd;
mod bad;
mod catalog;
mod cli;
mod completions;
mod components;
mod contract;
mod deploy_config;
mod diff;
mod fixtures;
mod flux;
mod krm;
mod layers;
mod model_metadata;
mod pins;
mod review;
mod security;
mod support;
mod typos;
mod validate;
mod yaml11;
