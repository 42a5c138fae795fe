//! Running the built binary from the repository root, and scratch directories.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run printed and how it ended.
#[derive(Debug)]
pub(crate) struct Output {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `ome-render` in the repository root with `args`, `env` and `stdin`.
pub(crate) fn run_with(args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Output {
    run_in_bytes(&repo_root(), args, env, stdin.map(str::as_bytes))
}

/// Runs `ome-render` as [`run_with`] does, with any bytes on standard input.
pub(crate) fn run_bytes(args: &[&str], env: &[(&str, &str)], stdin: Option<&[u8]>) -> Output {
    run_in_bytes(&repo_root(), args, env, stdin)
}

/// Runs `ome-render` in `dir` with `args`, `env` and `stdin`.
pub(crate) fn run_in(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    stdin: Option<&str>,
) -> Output {
    run_in_bytes(dir, args, env, stdin.map(str::as_bytes))
}

/// Runs `ome-render` in `dir`, in an environment without the colour variables.
pub(crate) fn run_in_bytes(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    stdin: Option<&[u8]>,
) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ome-render"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("the binary runs");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin is piped")
            .write_all(text)
            .expect("stdin accepts the input");
    }
    let out = child.wait_with_output().expect("the binary finishes");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

pub(crate) fn run(args: &[&str]) -> Output {
    run_with(args, &[], None)
}

/// A fresh, empty directory for one test, under `target/test-scratch/`, named after the test
/// and this run's process id (so two runs at once do not share it). The directories earlier
/// runs left under this name are removed first, once their process is gone: a run cleans up
/// after the ones before it, and the scratch space stays the size of one run.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let parent = repo_root().join("target").join("test-scratch");
    remove_dead_runs(&parent, name);
    let dir = parent.join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Removes `parent/NAME-PID` for every PID whose process no longer runs (where `/proc` tells).
fn remove_dead_runs(parent: &Path, name: &str) {
    let proc = Path::new("/proc");
    let (true, Ok(entries)) = (proc.join("self").exists(), std::fs::read_dir(parent)) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(name))
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Copies every file of `from` (one level) into `to`, renaming each with `rename`.
pub(crate) fn copy_files(from: &Path, to: &Path, rename: impl Fn(&str) -> String) {
    for entry in std::fs::read_dir(from).expect("fixture directory") {
        let entry = entry.expect("fixture entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().expect("file type").is_file() {
            std::fs::copy(entry.path(), to.join(rename(&name))).expect("copy");
        }
    }
}

/// The command that installs every tool the tests run, pinned (run by `.ci/run`).
pub(crate) const INSTALL: &str = "scripts/install-test-tools.sh";

/// A real tool the tests run. `cargo test` installs none: [`INSTALL`] puts them under
/// `target/test-tools/`, and the tests look them up there, then on `PATH`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tool {
    /// The Python environment: `python` with PyYAML, `kubernetes-validate`,
    /// `check-jsonschema` (see [`python_tools`]).
    Python,
    /// kustomize 4.5.4 (see [`kustomize`]).
    Kustomize,
    /// kpt 1.0.0-beta (see [`kpt`]).
    Kpt,
}

fn test_tools() -> PathBuf {
    repo_root().join("target").join("test-tools")
}

/// Where `tool` is, or why it is not there.
pub(crate) fn lookup(tool: Tool) -> Result<PathBuf, String> {
    match tool {
        Tool::Python => {
            let bin = test_tools().join("python").join("bin");
            let wanted = ["python", "kubernetes-validate", "check-jsonschema"];
            if wanted.iter().all(|t| bin.join(t).is_file()) {
                return Ok(bin);
            }
            Err(format!(
                "the Python tools (PyYAML, kubernetes-validate, check-jsonschema) are not in {}",
                bin.display()
            ))
        }
        Tool::Kustomize => {
            let local = test_tools()
                .join("node")
                .join("node_modules")
                .join("@install-binary")
                .join("kustomize-linux-x64")
                .join("kustomize-linux-x64");
            let candidates = [local, PathBuf::from("kustomize")];
            candidates
                .into_iter()
                .find(|bin| version(bin).contains("kustomize/v4.5.4"))
                .ok_or_else(|| {
                    "kustomize 4.5.4 is neither in target/test-tools/node nor on PATH".to_string()
                })
        }
        Tool::Kpt => {
            let bin = PathBuf::from("kpt");
            let found = version(&bin);
            if found.trim().starts_with("1.0.0-beta.") {
                Ok(bin)
            } else if found.is_empty() {
                Err(
                    "kpt is not on PATH (no registry ships it: the project's machines have it)"
                        .to_string(),
                )
            } else {
                Err(format!(
                    "kpt {}: the tests expect kpt 1.0.0-beta",
                    found.trim()
                ))
            }
        }
    }
}

/// What `bin version` prints, or nothing when it does not run.
fn version(bin: &Path) -> String {
    Command::new(bin)
        .arg("version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// Whether the tests that need `tool` can run. A missing tool fails the test with the
/// install command when `CI` is set; elsewhere it prints why and the test is skipped.
pub(crate) fn available(tool: Tool, test: &str) -> bool {
    match lookup(tool) {
        Ok(_) => true,
        Err(why) => skip_or_fail(test, &format!("{why}; run `{INSTALL}`")),
    }
}

/// A precondition of `test` is missing: under CI (env `CI` set) the test fails; elsewhere
/// it says so on standard error and is skipped (returns `false`).
pub(crate) fn skip_or_fail(test: &str, why: &str) -> bool {
    if std::env::var_os("CI").is_some() {
        panic!("{test}: {why}");
    }
    #[allow(clippy::print_stderr)]
    {
        eprintln!("SKIPPED {test}: {why}");
    }
    false
}

/// Skips (outside CI) or fails (under CI) the enclosing test unless every tool named is
/// there: `needs!(Python, Kustomize);` as a test's first line.
macro_rules! needs {
    ($($tool:ident),+ $(,)?) => {
        $(
            if !$crate::support::available(
                $crate::support::Tool::$tool,
                concat!(module_path!(), " needs ", stringify!($tool)),
            ) {
                return;
            }
        )+
    };
}
pub(crate) use needs;

fn found(tool: Tool) -> PathBuf {
    lookup(tool).unwrap_or_else(|why| panic!("{why}; run `{INSTALL}`"))
}

/// The Python tools' `bin` directory (installed by [`INSTALL`]): `python` (with PyYAML),
/// `kubernetes-validate`, `check-jsonschema`. Panics with the install command when they
/// are missing; a test calls `needs!(Python)` first to be skipped outside CI instead.
pub(crate) fn python_tools() -> &'static Path {
    static TOOLS: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TOOLS.get_or_init(|| found(Tool::Python))
}

/// kustomize 4.5.4 (installed by [`INSTALL`]), as [`python_tools`].
pub(crate) fn kustomize() -> &'static Path {
    static TOOL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TOOL.get_or_init(|| found(Tool::Kustomize))
}

/// kpt 1.0.0-beta (preinstalled on the project's machines; no registry ships it), as
/// [`python_tools`].
pub(crate) fn kpt() -> &'static Path {
    static TOOL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TOOL.get_or_init(|| found(Tool::Kpt))
}

/// Runs git in `dir` with a fixed identity and no user configuration; its standard output.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=ome-render tests",
            "-c",
            "user.email=tests@example.com",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("git output is UTF-8")
        .trim_end()
        .to_string()
}

/// A Git repository in `dir` holding a copy of `examples/llama-demo` under `llama-demo/`,
/// committed. Returns the commit.
pub(crate) fn example_repo(dir: &Path) -> String {
    git(dir, &["init", "-q"]);
    let demo = dir.join("llama-demo");
    std::fs::create_dir_all(&demo).expect("a directory in the repository");
    copy_files(
        &repo_root().join("examples/llama-demo"),
        &demo,
        str::to_string,
    );
    commit_all(dir, "base")
}

/// Commits every change in `dir`; returns the commit.
pub(crate) fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// Replaces `from` by `to` in the file at `path`, which must hold it.
pub(crate) fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("the file to edit");
    assert!(text.contains(from), "{} holds no {from:?}", path.display());
    std::fs::write(path, text.replace(from, to)).expect("the edited file");
}

/// The line and 1-based column of the first `needle` in `file`.
pub(crate) fn line_col(file: &Path, needle: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(file).expect("the file");
    text.lines()
        .enumerate()
        .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
        .unwrap_or_else(|| panic!("{needle} in {}", file.display()))
}
