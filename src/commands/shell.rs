//! `ome-render completions SHELL` and `ome-render man`: a completion script and the manual
//! page, both generated from the command-line definition, so they never drift from it.

use super::{ExitStatus, stdout_written};
use crate::cli::Cli;
use clap::CommandFactory;
use std::io::Write;

pub(crate) fn completions(shell: clap_complete::Shell) -> ExitStatus {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ome-render", &mut out);
    stdout_written(std::io::stdout().lock().write_all(&out))
}

pub(crate) fn man() -> ExitStatus {
    let mut out = Vec::new();
    match clap_mangen::Man::new(Cli::command()).render(&mut out) {
        Ok(()) => stdout_written(std::io::stdout().lock().write_all(&out)),
        Err(e) => super::fatal(&format!("cannot write the manual page: {e}")),
    }
}
