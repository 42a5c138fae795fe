//! `ome-render completions SHELL` and `ome-render man`: a completion script and the manual
//! page, both generated from the command-line definition, so they never drift from it.
//!
//! Two things are corrected on the way (README.md, "Install"): clap_complete offers
//! hidden flags (`--timings`), so the scripts are generated from a copy of the definition
//! without them; and its Bash script spells the state of a subcommand of a hyphenated
//! program two ways (`ome__render__subcmd__diff` where it walks the words,
//! `ome__subcmd__render__subcmd__diff` in the arms it matches them against), so nothing
//! completed after a subcommand: the arms are renamed to the spelling the walk uses. Zsh's
//! script reads the words in order, so the render's optional PATH before the subcommand took
//! the subcommand's name (`ome-render diff --<TAB>` offered the render's flags): for zsh the
//! top level has no positional, and its first word completes to a subcommand.

use super::{ExitStatus, stdout_written};
use crate::cli::Cli;
use clap::{Command, CommandFactory};
use std::io::Write;

/// The program's name, as completion scripts register it.
const PROGRAM: &str = "ome-render";

pub(crate) fn completions(shell: clap_complete::Shell) -> ExitStatus {
    stdout_written(std::io::stdout().lock().write_all(&script(shell)))
}

/// The completion script for `shell`.
pub(crate) fn script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    // Zsh's script reads the words in order: the top level's PATH would take the subcommand.
    let positionals = shell != clap_complete::Shell::Zsh;
    let mut command = offered(&Cli::command(), positionals);
    clap_complete::generate(shell, &mut command, PROGRAM, &mut out);
    if shell == clap_complete::Shell::Bash {
        // The arms' spelling of the program's name, and the walk's.
        let arms = PROGRAM.replace('-', "__subcmd__");
        let walk = PROGRAM.replace('-', "__");
        let text = String::from_utf8_lossy(&out).replace(&arms, &walk);
        return text.into_bytes();
    }
    out
}

/// `command` without its hidden flags and subcommands, recursively, and without its own
/// positionals unless `positionals`: what a user may be offered. Argument groups are left
/// out (completion does not use them, and the derived ones name the hidden flags too).
fn offered(command: &Command, positionals: bool) -> Command {
    let mut copy = Command::new(command.get_name().to_string());
    if let Some(version) = command.get_version() {
        copy = copy.version(version.to_string());
    }
    if let Some(about) = command.get_about() {
        copy = copy.about(about.clone());
    }
    if let Some(about) = command.get_long_about() {
        copy = copy.long_about(about.clone());
    }
    for arg in command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && (positionals || !a.is_positional()))
    {
        copy = copy.arg(arg.clone());
    }
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        copy = copy.subcommand(offered(sub, true));
    }
    copy
}

pub(crate) fn man() -> ExitStatus {
    let mut out = Vec::new();
    match clap_mangen::Man::new(Cli::command()).render(&mut out) {
        Ok(()) => stdout_written(std::io::stdout().lock().write_all(&out)),
        Err(e) => super::fatal(&format!("cannot write the manual page: {e}")),
    }
}
