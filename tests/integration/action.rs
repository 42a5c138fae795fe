//! The GitHub Action (`action.yml`, `scripts/action.py`; README.md, "Pull requests"): its
//! metadata against the Actions schema, and its script run in a Git repository with a
//! simulated runner — event payload, summary and output files — against a local mock of the
//! GitHub REST API (`mock_github.py`): one sticky comment, created then updated, never
//! duplicated; a read-only token is a warning; render errors fail the step.

use crate::support::{
    Output, commit_all, edit, example_repo, git, needs, python_tools, repo_root, scratch,
};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn check_jsonschema(schema: &str, file: &Path) -> Output {
    let out = Command::new(python_tools().join("check-jsonschema"))
        .args(["--builtin-schema", schema])
        .arg(file)
        .output()
        .expect("check-jsonschema runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn the_action_and_the_example_workflow_pass_their_schemas() {
    needs!(Python);
    let action = check_jsonschema("vendor.github-actions", &repo_root().join("action.yml"));
    assert_eq!(action.code, 0, "{}{}", action.stdout, action.stderr);
    let workflow = check_jsonschema(
        "vendor.github-workflows",
        &repo_root().join("examples/github/ome-render-diff.yml"),
    );
    assert_eq!(workflow.code, 0, "{}{}", workflow.stdout, workflow.stderr);
    // The schema does reject a broken action: a composite step without `shell`.
    let dir = scratch("action-schema");
    let text = fs::read_to_string(repo_root().join("action.yml")).unwrap();
    let broken = dir.join("action.yml");
    fs::write(&broken, text.replacen("      shell: bash\n", "", 1)).unwrap();
    assert_ne!(check_jsonschema("vendor.github-actions", &broken).code, 0);
}

/// The mock GitHub API, stopped when dropped.
struct MockApi {
    child: Child,
    url: String,
    state: PathBuf,
}

impl MockApi {
    fn start(dir: &Path) -> MockApi {
        let state = dir.join("api-state.json");
        let mut child = Command::new("python3")
            .arg(repo_root().join("tests/integration/mock_github.py"))
            .arg(&state)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the mock API");
        let mut port = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut port)
            .expect("the mock API prints its port");
        MockApi {
            child,
            url: format!("http://127.0.0.1:{}", port.trim()),
            state,
        }
    }

    /// The comments on the pull request and the requests so far, as the mock saw them.
    fn state(&self) -> (Vec<String>, Vec<String>) {
        let text = fs::read_to_string(&self.state).unwrap_or_default();
        let mut comments = Vec::new();
        let mut requests = Vec::new();
        // A small reader for the mock's JSON: `"body": "..."` and `"method": "..."` strings.
        let strings = |key: &str| -> Vec<String> {
            let mut found = Vec::new();
            let needle = format!("\"{key}\": \"");
            let mut rest = text.as_str();
            while let Some(at) = rest.find(&needle) {
                rest = &rest[at + needle.len()..];
                let mut value = String::new();
                let mut chars = rest.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n') => value.push('\n'),
                            Some(other) => value.push(other),
                            None => {}
                        },
                        c => value.push(c),
                    }
                }
                found.push(value);
            }
            found
        };
        comments.extend(strings("body"));
        requests.extend(strings("method"));
        (comments, requests)
    }
}

impl Drop for MockApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One run of `scripts/action.py diff` in `repo` as the runner would start it.
struct Run {
    out: Output,
    summary: String,
    outputs: String,
}

fn run_action(repo: &Path, runner: &Path, api: &MockApi, base: &str, token: &str) -> Run {
    let summary = runner.join("summary.md");
    let outputs = runner.join("output.txt");
    let _ = fs::remove_file(&summary);
    let _ = fs::remove_file(&outputs);
    let event = runner.join("event.json");
    fs::write(
        &event,
        format!(
            "{{\"action\":\"synchronize\",\"number\":7,\"pull_request\":{{\"number\":7,\"base\":{{\"sha\":\"{base}\",\"ref\":\"main\"}},\"head\":{{\"ref\":\"feature\"}}}},\"repository\":{{\"full_name\":\"acme/gitops\"}}}}"
        ),
    )
    .unwrap();
    let out = Command::new("python3")
        .arg(repo_root().join("scripts/action.py"))
        .arg("diff")
        .current_dir(repo)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", runner)
        .env("TMPDIR", runner)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_REPOSITORY", "acme/gitops")
        .env("GITHUB_BASE_REF", "main")
        .env("GITHUB_API_URL", &api.url)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("RUNNER_TEMP", runner)
        .env("OME_RENDER", env!("CARGO_BIN_EXE_ome-render"))
        .env("INPUT_PATHS", "llama-demo")
        .env("INPUT_COMMENT", "true")
        .env("INPUT_STRICT", "false")
        .env("INPUT_TOKEN", token)
        .output()
        .expect("python3 runs the action");
    Run {
        out: Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        },
        summary: fs::read_to_string(&summary).unwrap_or_default(),
        outputs: fs::read_to_string(&outputs).unwrap_or_default(),
    }
}

/// A repository with a base commit and a head commit that changes the runtime.
fn pull_request(name: &str) -> (PathBuf, PathBuf, String) {
    let root = scratch(name);
    let (repo, runner) = (root.join("repo"), root.join("runner"));
    fs::create_dir_all(&repo).unwrap();
    fs::create_dir_all(&runner).unwrap();
    let base = example_repo(&repo);
    edit(
        &repo.join("llama-demo/runtime.yaml"),
        "--mem-frac=0.9",
        "--mem-frac=0.8",
    );
    commit_all(&repo, "head");
    (repo, runner, base)
}

const MARKER: &str = "<!-- ome-render-diff -->";

#[test]
fn the_action_keeps_one_sticky_comment() {
    let (repo, runner, base) = pull_request("action-sticky");
    let api = MockApi::start(&runner);
    let first = run_action(&repo, &runner, &api, &base, "t0ken");
    assert_eq!(
        first.out.code, 0,
        "{}{}",
        first.out.stdout, first.out.stderr
    );
    assert!(
        first.summary.starts_with("### ome-render diff "),
        "{}",
        first.summary
    );
    assert!(
        first.summary.contains("**reaches 1 InferenceService**"),
        "{}",
        first.summary
    );
    assert!(first.summary.contains("+        - --mem-frac=0.8"));
    assert!(
        first.outputs.contains("differences=true\n"),
        "{}",
        first.outputs
    );
    assert!(
        first.outputs.contains("comment=created\n"),
        "{}",
        first.outputs
    );
    let (comments, requests) = api.state();
    assert_eq!(
        comments.len(),
        2,
        "the reviewer's comment and ours: {comments:?}"
    );
    assert_eq!(comments[0], "Looks good to me");
    assert!(comments[1].starts_with(&format!("{MARKER}\n### ome-render diff ")));
    assert!(comments[1].contains("--mem-frac=0.8"));
    assert_eq!(requests, ["GET", "POST"]);

    // A new push: the same comment is updated, not a second one posted.
    edit(
        &repo.join("llama-demo/runtime.yaml"),
        "--mem-frac=0.8",
        "--mem-frac=0.7",
    );
    commit_all(&repo, "second push");
    let second = run_action(&repo, &runner, &api, &base, "t0ken");
    assert_eq!(
        second.out.code, 0,
        "{}{}",
        second.out.stdout, second.out.stderr
    );
    assert!(
        second.outputs.contains("comment=updated\n"),
        "{}",
        second.outputs
    );
    let (comments, requests) = api.state();
    assert_eq!(comments.len(), 2, "{comments:?}");
    assert!(comments[1].contains("--mem-frac=0.7") && !comments[1].contains("--mem-frac=0.8"));
    assert_eq!(requests, ["GET", "POST", "GET", "PATCH"]);

    // The change reverted: the comment says there is nothing left to roll out.
    edit(
        &repo.join("llama-demo/runtime.yaml"),
        "--mem-frac=0.7",
        "--mem-frac=0.9",
    );
    commit_all(&repo, "revert");
    let third = run_action(&repo, &runner, &api, &base, "t0ken");
    assert_eq!(third.out.code, 0);
    assert!(
        third.outputs.contains("differences=false\n"),
        "{}",
        third.outputs
    );
    let (comments, _) = api.state();
    assert_eq!(comments.len(), 2);
    assert!(comments[1].contains("no differences"), "{}", comments[1]);
    assert_eq!(git(&repo, &["worktree", "list"]).lines().count(), 1);
}

#[test]
fn a_read_only_token_is_a_warning_and_the_summary_still_reports() {
    let (repo, runner, base) = pull_request("action-forbidden");
    let api = MockApi::start(&runner);
    let run = run_action(&repo, &runner, &api, &base, "forbidden");
    assert_eq!(run.out.code, 0, "{}{}", run.out.stdout, run.out.stderr);
    assert!(
        run.out
            .stdout
            .lines()
            .any(|l| l.starts_with("::warning title=ome-render::cannot comment on pull request #7: HTTP 403 Resource not accessible by integration")),
        "{}",
        run.out.stdout
    );
    assert!(
        run.outputs.contains("comment=forbidden\n"),
        "{}",
        run.outputs
    );
    assert!(
        run.summary.contains("**reaches 1 InferenceService**"),
        "{}",
        run.summary
    );
    let (comments, _) = api.state();
    assert_eq!(comments, ["Looks good to me"]);
}

#[test]
fn render_errors_fail_the_step_with_annotations() {
    let (repo, runner, base) = pull_request("action-errors");
    edit(
        &repo.join("llama-demo/isvc.yaml"),
        "    name: llama-3-2-3b-instruct\n  engine",
        "    name: no-such-model\n  engine",
    );
    commit_all(&repo, "broken");
    let api = MockApi::start(&runner);
    let run = run_action(&repo, &runner, &api, &base, "t0ken");
    assert_eq!(run.out.code, 1, "{}{}", run.out.stdout, run.out.stderr);
    assert!(
        run.out.stdout.lines().any(|l| l.starts_with(
            "::error file=llama-demo/isvc.yaml,line=9,endLine=9,col=5,endColumn=9,title=ome%3A%3Amodel%3A%3Anot-found::head: "
        )),
        "{}",
        run.out.stdout
    );
    assert!(
        run.summary
            .starts_with("### ome-render diff: the render fails"),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains("- `llama-demo/isvc.yaml:9` **ome::model::not-found**: head: InferenceService/llama-demo/llama-3-2-3b-instruct: spec.model.name: referenced model \"no-such-model\" not found"),
        "{}",
        run.summary
    );
    assert!(run.outputs.contains("exit-code=1\n"));
    // The comment says so too.
    let (comments, _) = api.state();
    assert_eq!(comments.len(), 2);
    assert!(comments[1].contains("the render fails"));
}

/// A static file server on 127.0.0.1 (`python3 -m http.server`), stopped when dropped.
struct FileServer {
    child: Child,
    url: String,
}

impl FileServer {
    fn start(root: &Path) -> FileServer {
        let mut child = Command::new("python3")
            .args(["-u", "-m", "http.server", "--bind", "127.0.0.1", "0"])
            .current_dir(root)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 serves files");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("http.server says where it listens");
        // "Serving HTTP on 127.0.0.1 port 43567 (http://127.0.0.1:43567/) ..."
        let port = line
            .split(" port ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .expect("a port")
            .to_string();
        FileServer {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_action_downloads_a_released_binary_and_checks_its_hash() {
    let root = scratch("action-install");
    let (site, runner) = (root.join("site"), root.join("runner"));
    fs::create_dir_all(&runner).unwrap();
    // A release of `acme/ome-render` v9.9.9: a stand-in binary in a tarball, and its SHA-256.
    let made = Command::new("python3")
        .arg("-c")
        .arg(
            r##"
import hashlib, io, os, sys, tarfile
sys.path.insert(0, sys.argv[2])
import action
site = sys.argv[1]
d = os.path.join(site, "acme/ome-render/releases/download/v9.9.9")
os.makedirs(d, exist_ok=True)
name = f"ome-render-{action.target_triple()}.tar.gz"
script = b"#!/bin/sh\necho 'ome-render 9.9.9 (released)'\n"
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    info = tarfile.TarInfo("ome-render-9.9.9/ome-render")
    info.size, info.mode = len(script), 0o755
    t.addfile(info, io.BytesIO(script))
data = buf.getvalue()
open(os.path.join(d, name), "wb").write(data)
digest = hashlib.sha256(data).hexdigest()
open(os.path.join(d, name + ".sha256"), "w").write(f"{digest}  {name}\n")
"##,
        )
        .arg(&site)
        .arg(repo_root().join("scripts"))
        .status()
        .expect("python3 builds the release");
    assert!(made.success());
    let server = FileServer::start(&site);
    let install = || {
        let outputs = runner.join("output.txt");
        let _ = fs::remove_file(&outputs);
        let out = Command::new("python3")
            .arg(repo_root().join("scripts/action.py"))
            .arg("install")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("GITHUB_SERVER_URL", &server.url)
            .env("ACTION_REPOSITORY", "acme/ome-render")
            .env("INPUT_VERSION", "9.9.9")
            .env("RUNNER_TEMP", &runner)
            .env("GITHUB_OUTPUT", &outputs)
            .output()
            .expect("python3 runs the action");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
            fs::read_to_string(&outputs).unwrap_or_default(),
        )
    };
    let (code, log, outputs) = install();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("ome-render 9.9.9 (released)"), "{log}");
    assert_eq!(
        outputs,
        format!(
            "binary={}\n",
            runner.join("ome-render-bin/ome-render").display()
        )
    );
    // A download that doesn't match its hash is refused.
    let spoiled = Command::new("python3")
        .arg("-c")
        .arg("import glob, sys; [open(p, 'w').write('0' * 64 + '\\n') for p in glob.glob(sys.argv[1] + '/**/*.sha256', recursive=True)]")
        .arg(&site)
        .status()
        .expect("python3 runs");
    assert!(spoiled.success());
    let (code, log, outputs) = install();
    assert_ne!(code, Some(0));
    assert!(
        log.contains("ome-render 9.9.9: the download does not match its SHA-256"),
        "{log}"
    );
    assert_eq!(outputs, "");
}

/// Inside a composite action `github.action_repository` is empty: the repository whose
/// releases to download is read from the runner's checkout path of the action.
#[test]
fn the_release_repository_comes_from_the_action_path_when_the_context_is_empty() {
    let script = "import sys; sys.path.insert(0, 'scripts'); import action; print(action.action_repository())";
    let out = Command::new("python3")
        .args(["-c", script])
        .current_dir(repo_root())
        .env_remove("ACTION_REPOSITORY")
        .env_remove("GITHUB_ACTION_REPOSITORY")
        .env(
            "ACTION_PATH",
            "/home/runner/work/_actions/acme/ome-render/v1.2.0",
        )
        .output()
        .expect("python3 runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "acme/ome-render",
        "{out:?}"
    );
}
