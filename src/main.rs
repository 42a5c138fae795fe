//! The `ome-render` binary: parses arguments and hands over to the library.

use clap::Parser;
use ome_render::cli::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    ExitCode::from(ome_render::run(&cli).code())
}

// The pipeline allocates many small trees on several threads; mimalloc handles that far
// better than glibc's allocator (BENCHMARKS.md, "What made it fast").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
