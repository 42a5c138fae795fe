//! Shell completion with the real shells (README.md, "Install"): after each
//! subcommand, bash, zsh and fish offer its flags and the global ones, each once, and never a
//! hidden flag; the manual page lists each global flag once. The shells are installed by
//! `scripts/install-test-tools.sh`; each runs with a fresh home and no startup files.

use crate::support::{repo_root, run, scratch};
use clap::CommandFactory;
use ome_render::cli::Cli;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The shell `name` on PATH; without it, a panic on CI (where `.ci/run` installs it) and a
/// skip, saying why, elsewhere.
fn shell(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{name} is not installed: run scripts/install-test-tools.sh (as root: apt-get install -y zsh fish)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "skipped: {name} is not installed (scripts/install-test-tools.sh installs it)"
        );
    }
    found
}

/// The subcommands a user may name, and `None` for the top level.
fn subcommands() -> Vec<Option<String>> {
    let cli = Cli::command();
    let mut all = vec![None];
    all.extend(
        cli.get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| Some(s.get_name().to_string())),
    );
    all
}

/// The long flags `ome-render [SUB] --<TAB>` must offer: the subcommand's own visible ones,
/// the global ones, `--help`, and `--version` at the top level.
fn expected(sub: Option<&str>) -> Vec<String> {
    let cli = Cli::command();
    let own = match sub {
        None => &cli,
        Some(name) => cli.find_subcommand(name).expect("a subcommand"),
    };
    let mut flags: Vec<String> = own
        .get_arguments()
        .chain(cli.get_arguments().filter(|a| a.is_global_set()))
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    flags.push("--help".to_string());
    if sub.is_none() {
        flags.push("--version".to_string());
    }
    flags.sort();
    flags.dedup();
    flags
}

/// The hidden long flags of every command.
fn hidden() -> Vec<String> {
    let cli = Cli::command();
    let mut flags: Vec<String> = std::iter::once(&cli)
        .chain(cli.get_subcommands())
        .flat_map(|c| c.get_arguments())
        .filter(|a| a.is_hide_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    flags.sort();
    flags.dedup();
    assert!(
        flags.contains(&"--timings".to_string()),
        "the test knows a hidden flag"
    );
    flags
}

/// A fresh directory with `ome-render completions SHELL` in `script`, and an empty home.
fn setup(name: &str, shell: &str, script: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(&format!("completions-{name}"));
    let out = run(&["completions", shell]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let file = dir.join(script);
    std::fs::write(&file, out.stdout).expect("the script is written");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("a home");
    (file, home)
}

/// Runs `program args` with only PATH and a fresh home in its environment; its lines.
fn offered(program: &Path, args: &[&str], home: &Path) -> Vec<String> {
    let out = Command::new(program)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ZDOTDIR", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("TERM", "dumb")
        .current_dir(home)
        .output()
        .expect("the shell runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} {args:?}: {}\n{stdout}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or(l).trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Checks what `complete(words)` offers for `ome-render [SUB] --` for every subcommand.
fn check_each_subcommand(shell: &str, complete: impl Fn(&[&str]) -> Vec<String>) {
    let hidden = hidden();
    for sub in subcommands() {
        let mut words = vec!["ome-render"];
        words.extend(sub.as_deref());
        words.push("--");
        let got = complete(&words);
        let line = words.join(" ");
        let want = expected(sub.as_deref());
        let lacking: Vec<&String> = want.iter().filter(|f| !got.contains(f)).collect();
        assert!(
            lacking.is_empty(),
            "{shell}: {line}<TAB> lacks {lacking:?}; offered {got:?}"
        );
        let shown: Vec<&String> = got.iter().filter(|f| hidden.contains(f)).collect();
        assert!(
            shown.is_empty(),
            "{shell}: {line}<TAB> offers hidden {shown:?}"
        );
        let mut once = got.clone();
        once.sort();
        once.dedup();
        assert_eq!(
            once.len(),
            got.len(),
            "{shell}: {line}<TAB> repeats: {got:?}"
        );
    }
}

#[test]
fn bash_completes_each_subcommands_flags() {
    let Some(bash) = shell("bash") else { return };
    let (script, home) = setup("bash", "bash", "ome-render.bash");
    let driver = repo_root().join("tests/integration/completions/bash.sh");
    check_each_subcommand("bash", |words| {
        let mut args = vec!["--norc", "--noprofile"];
        let (d, s) = (driver.to_str().unwrap(), script.to_str().unwrap());
        args.extend([d, s]);
        args.extend(words);
        offered(&bash, &args, &home)
    });
}

#[test]
fn zsh_completes_each_subcommands_flags() {
    let Some(zsh) = shell("zsh") else { return };
    let (script, home) = setup("zsh", "zsh", "_ome-render");
    let driver = repo_root().join("tests/integration/completions/zsh.zsh");
    check_each_subcommand("zsh", |words| {
        let mut args = vec!["-f"];
        let (d, s) = (driver.to_str().unwrap(), script.to_str().unwrap());
        args.extend([d, s]);
        args.extend(words);
        zsh_offered(&zsh, &args, &home)
    });
}

/// What zsh offers. On a busy machine zsh's line editor may drop the typed-ahead line on the
/// pseudo-terminal, an empty answer that is never the right one here: ask again, a bounded
/// number of times.
fn zsh_offered(zsh: &Path, args: &[&str], home: &Path) -> Vec<String> {
    let mut got = offered(zsh, args, home);
    for _ in 0..5 {
        if !got.is_empty() {
            break;
        }
        got = offered(zsh, args, home);
    }
    got
}

#[test]
fn fish_completes_each_subcommands_flags() {
    let Some(fish) = shell("fish") else { return };
    let (script, home) = setup("fish", "fish", "ome-render.fish");
    check_each_subcommand("fish", |words| {
        let line = words.join(" ");
        let source = script.to_str().unwrap();
        let command = "source $argv[1]; complete --do-complete=$argv[2]";
        let all = ["--no-config", "-c", command, source, &line];
        offered(&fish, &all, &home)
    });
}

/// The subcommand names complete at the top level, in each shell.
#[test]
fn subcommand_names_complete() {
    if let Some(bash) = shell("bash") {
        let (script, home) = setup("bash-names", "bash", "ome-render.bash");
        let driver = repo_root().join("tests/integration/completions/bash.sh");
        let (d, s) = (driver.to_str().unwrap(), script.to_str().unwrap());
        let got = offered(
            &bash,
            &["--norc", "--noprofile", d, s, "ome-render", "ch"],
            &home,
        );
        assert_eq!(got, ["check"], "bash");
    }
    if let Some(zsh) = shell("zsh") {
        let (script, home) = setup("zsh-names", "zsh", "_ome-render");
        let driver = repo_root().join("tests/integration/completions/zsh.zsh");
        let (d, s) = (driver.to_str().unwrap(), script.to_str().unwrap());
        let got = zsh_offered(&zsh, &["-f", d, s, "ome-render", "ch"], &home);
        assert_eq!(got, ["check"], "zsh");
    }
}

/// The manual page lists each global flag once, and no hidden flag.
#[test]
fn the_manual_lists_global_flags_once() {
    let man = run(&["man"]);
    assert_eq!(man.code, 0);
    let cli = Cli::command();
    for arg in cli.get_arguments().filter(|a| a.is_global_set()) {
        let long = arg.get_long().expect("global flags are long");
        let entry = format!("\\fB\\-\\-{}\\fR", long.replace('-', "\\-"));
        // Each option's entry is the line after a `.TP`.
        let lines: Vec<&str> = man.stdout.lines().collect();
        let entries = lines
            .windows(2)
            .filter(|w| w[0] == ".TP" && w[1].contains(&entry))
            .count();
        assert_eq!(entries, 1, "--{long} in the manual:\n{}", man.stdout);
    }
    for flag in hidden() {
        assert!(!man.stdout.contains(&flag.replace('-', "\\-")), "{flag}");
    }
}
