//! The `ome-render-krm` binary: ome-render as a KRM function for kustomize and kpt. With no
//! arguments it runs `ome-render krm` (a ResourceList on standard input and output), since
//! neither kustomize's `exec:` nor its `container:` function spec can pass arguments; with
//! arguments it is `ome-render` itself, so a container image whose entrypoint it is can
//! also `render` (SEMANTICS.md#krm-function).

use clap::Parser;
use ome_render::cli::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = if std::env::args_os().len() <= 1 {
        Cli::parse_from(["ome-render", "krm"])
    } else {
        Cli::parse()
    };
    ExitCode::from(ome_render::run(&cli).code())
}

// As in `ome-render` (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
