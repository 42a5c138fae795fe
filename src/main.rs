//! The `ome-render` binary: parses arguments and hands over to the library.

use clap::Parser;
use ome_render::cli::{Cli, Command};
use ome_render::commands::{explain, render};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let status = match &cli.command {
        None => render::render(&cli.render),
        Some(Command::Check(input)) => render::check(input),
        Some(Command::Explain(args)) => explain::explain(args),
    };
    ExitCode::from(status.code())
}

// The pipeline allocates many small trees on several threads; mimalloc handles that far
// better than glibc's allocator (see BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
