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
        run.summary.contains("- <code>llama-demo/isvc.yaml&#58;9</code> **ome&#58;&#58;model&#58;&#58;not-found**: head&#58; InferenceService/llama-demo/llama-3-2-3b-instruct&#58; spec.model.name&#58; referenced model &quot;no-such-model&quot; not found"),
        "{}",
        run.summary
    );
    assert!(run.outputs.contains("exit-code=1\n"));
    // The comment says so too.
    let (comments, _) = api.state();
    assert_eq!(comments.len(), 2);
    assert!(comments[1].contains("the render fails"));
}

/// An error message quoting what a pull request wrote (backticks, an image, an HTML tag, an
/// @mention, a link) shows as text in the job summary and the comment: escaped as the Rust
/// Markdown renderer escapes (SEMANTICS.md#output-escaping), and the job ends without a
/// traceback.
#[test]
fn a_hostile_error_message_shows_as_text_in_the_failure_report() {
    let (repo, runner, base) = pull_request("action-hostile-error");
    edit(
        &repo.join("llama-demo/isvc.yaml"),
        "    name: llama-3-2-3b-instruct\n  engine",
        "    name: \"x` ![i](https://e.vil/a.png) <img src=x> @admin [ok](http://e.vil) ```\"\n  engine",
    );
    commit_all(&repo, "hostile");
    let api = MockApi::start(&runner);
    let run = run_action(&repo, &runner, &api, &base, "t0ken");
    assert_eq!(run.out.code, 1, "{}{}", run.out.stdout, run.out.stderr);
    assert!(!run.out.stderr.contains("Traceback"), "{}", run.out.stderr);
    let (comments, _) = api.state();
    for report in [&run.summary, comments.last().expect("a comment")] {
        // The value is quoted (escaped) …
        assert!(
            report.contains("&lt;img src&#61;x&gt; &#64;admin &#91;ok&#93;&#40;http"),
            "{report}"
        );
        // … and none of it is markup.
        for raw in ["<img", "@admin", "](http", "![i]", "x`", "```"] {
            assert!(!report.contains(raw), "{raw} in {report}");
        }
    }
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

/// The triple `scripts/action.py` downloads a release for on this machine.
fn host_triple() -> String {
    let script = "import sys; sys.path.insert(0, sys.argv[1]); import action; print(action.target_triple() or '')";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(repo_root().join("scripts"))
        .output()
        .expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A fake release site: `acme/ome-render`'s release `v<this version>` holding the archive
/// `scripts/dist.sh` packs from this build's binaries, for this machine's triple; and a
/// runner whose PATH holds only a `cargo` that records being run.
struct Release {
    root: PathBuf,
    site: PathBuf,
    archive: PathBuf,
    runner: PathBuf,
    path: PathBuf,
    cargo_ran: PathBuf,
}

fn fake_release(name: &str) -> Release {
    let root = scratch(name);
    let (site, runner, bin, path) = (
        root.join("site"),
        root.join("runner"),
        root.join("bin"),
        root.join("path"),
    );
    for d in [&runner, &bin, &path] {
        fs::create_dir_all(d).unwrap();
    }
    for exe in [
        env!("CARGO_BIN_EXE_ome-render"),
        env!("CARGO_BIN_EXE_ome-render-krm"),
    ] {
        let exe = Path::new(exe);
        fs::copy(exe, bin.join(exe.file_name().unwrap())).unwrap();
    }
    let triple = host_triple();
    assert!(
        !triple.is_empty(),
        "action.py releases nothing for this machine"
    );
    let release = site.join(format!(
        "acme/ome-render/releases/download/v{}",
        env!("CARGO_PKG_VERSION")
    ));
    let out = Command::new("bash")
        .arg(repo_root().join("scripts/dist.sh"))
        .arg(&triple)
        .arg(&release)
        .env("BINARIES", &bin)
        .output()
        .expect("bash runs dist.sh");
    assert!(out.status.success(), "{out:?}");
    let archive = release.join(format!("ome-render-{triple}.tar.gz"));
    assert!(
        release
            .join(format!("ome-render-{triple}.tar.gz.sha256"))
            .is_file()
    );
    // A `cargo` that leaves a mark: a fallback build from source would show.
    let cargo_ran = root.join("cargo-ran");
    let cargo = path.join("cargo");
    fs::write(
        &cargo,
        format!("#!/bin/sh\ntouch '{}'\nexit 1\n", cargo_ran.display()),
    )
    .unwrap();
    let mut perms = fs::metadata(&cargo).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&cargo, perms).unwrap();
    Release {
        root,
        site,
        archive,
        runner,
        path,
        cargo_ran,
    }
}

/// Runs `action.py install` as action.yml does, the action checked out at
/// `_actions/acme/ome-render/<action_ref>` (whose `ACTION_REF` the runner leaves empty
/// inside a composite action); its exit code, its log and the outputs it wrote.
fn install(
    release: &Release,
    server: &FileServer,
    action_ref: &str,
    version: &str,
) -> (i32, String, String) {
    let outputs = release.runner.join("output.txt");
    let _ = fs::remove_file(&outputs);
    let _ = fs::remove_dir_all(release.runner.join("ome-render-bin"));
    let action_path = release
        .root
        .join("_actions/acme/ome-render")
        .join(action_ref);
    fs::create_dir_all(&action_path).unwrap();
    let out = Command::new(python3())
        .arg(repo_root().join("scripts/action.py"))
        .arg("install")
        .env_clear()
        .env("PATH", &release.path)
        .env("GITHUB_SERVER_URL", &server.url)
        .env("ACTION_PATH", &action_path)
        .env("ACTION_REPOSITORY", "")
        .env("ACTION_REF", "")
        .env("INPUT_VERSION", version)
        .env("INPUT_BINARY", "")
        .env("RUNNER_TEMP", &release.runner)
        .env("GITHUB_OUTPUT", &outputs)
        .output()
        .expect("python3 runs the action");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
        fs::read_to_string(&outputs).unwrap_or_default(),
    )
}

/// The interpreter python3 runs (not a launcher such as pyenv's shim, which needs PATH),
/// for a child whose PATH does not hold it.
fn python3() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// A failed install says why on one `::error::` line, with no traceback, and obtains
/// nothing: no binary, no output, no build from source.
fn assert_fails_in_one_line(
    release: &Release,
    (code, log, outputs): (i32, String, String),
    why: &str,
) {
    assert_eq!(code, 1, "{log}");
    let errors: Vec<&str> = log.lines().filter(|l| l.starts_with("::error")).collect();
    assert_eq!(errors.len(), 1, "{log}");
    assert!(errors[0].contains(why), "{log}");
    assert!(!log.contains("Traceback"), "{log}");
    assert_eq!(outputs, "");
    assert!(!release.runner.join("ome-render-bin/ome-render").exists());
    assert!(!release.cargo_ran.exists(), "cargo ran: {log}");
}

#[test]
fn the_action_installs_the_release_of_its_own_ref_without_cargo() {
    let release = fake_release("action-install");
    let server = FileServer::start(&release.site);
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    // `uses: acme/ome-render@vX.Y.Z` with the default `version` (empty): that release.
    let (code, log, outputs) = install(&release, &server, &tag, "");
    assert_eq!(code, 0, "{log}");
    assert!(
        log.contains(&format!("ome-render {}", env!("CARGO_PKG_VERSION"))),
        "{log}"
    );
    let binary = release.runner.join("ome-render-bin/ome-render");
    assert_eq!(outputs, format!("binary={}\n", binary.display()));
    // The installed binary is this build's, byte for byte, and no cargo ran.
    assert_eq!(
        fs::read(&binary).unwrap(),
        fs::read(env!("CARGO_BIN_EXE_ome-render")).unwrap()
    );
    assert!(!release.cargo_ran.exists(), "{log}");
    // An explicit version is that release, whatever the ref.
    let (code, log, _) = install(&release, &server, "main", env!("CARGO_PKG_VERSION"));
    assert_eq!(code, 0, "{log}");
}

#[test]
fn a_tampered_release_fails_in_one_line_naming_the_sha256_mismatch() {
    let release = fake_release("action-tampered");
    let server = FileServer::start(&release.site);
    let mut bytes = fs::read(&release.archive).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&release.archive, bytes).unwrap();
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let result = install(&release, &server, &tag, "");
    assert_fails_in_one_line(&release, result, "SHA-256 mismatch");
}

#[test]
fn a_release_that_cannot_be_downloaded_fails_in_one_line_without_building() {
    let release = fake_release("action-missing");
    let server = FileServer::start(&release.site);
    let result = install(&release, &server, "v0.0.1", "");
    assert_fails_in_one_line(&release, result, "HTTP 404");
    // No server at all (nothing listens on port 1).
    let gone = FileServer {
        child: Command::new("true").spawn().unwrap(),
        url: "http://127.0.0.1:1".to_string(),
    };
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let result = install(&release, &gone, &tag, "");
    assert_fails_in_one_line(&release, result, "cannot download ome-render");
    // Not a version at all.
    let result = install(&release, &gone, &tag, "latest; rm -rf /");
    assert_fails_in_one_line(&release, result, "neither a release");
}

/// Pinned by commit hash (`uses: acme/ome-render@<sha>`), the action installs the version
/// its own Cargo.toml names at that commit.
#[test]
fn an_action_pinned_by_hash_installs_the_version_of_its_cargo_toml() {
    let dir = scratch("action-pinned");
    let action = dir
        .join("_actions/acme/ome-render")
        .join("0123456789abcdef0123456789abcdef01234567");
    fs::create_dir_all(&action).unwrap();
    fs::write(
        action.join("Cargo.toml"),
        "[package]\nname = \"ome-render\"\nversion = \"4.5.6\"\n",
    )
    .unwrap();
    let script = "import sys; sys.path.insert(0, sys.argv[1]); import action; print(action.release_version(), action.action_repository())";
    let run = |action_ref: &str| {
        let out = Command::new("python3")
            .args(["-c", script])
            .arg(repo_root().join("scripts"))
            .env("ACTION_PATH", &action)
            .env("ACTION_REF", action_ref)
            .env_remove("GITHUB_ACTION_REF")
            .env_remove("ACTION_REPOSITORY")
            .env_remove("GITHUB_ACTION_REPOSITORY")
            .output()
            .expect("python3 runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(run(""), "4.5.6 acme/ome-render");
    assert_eq!(run("v1.2.3"), "1.2.3 acme/ome-render");
    assert_eq!(run("1.2.3-rc.1"), "1.2.3-rc.1 acme/ome-render");
}

/// The release workflow builds exactly the triples the action downloads, and the action
/// asks for one of them on every runner it supports.
#[test]
fn the_release_matrix_is_what_the_action_downloads() {
    needs!(Python);
    let script = r#"
import sys, yaml
sys.path.insert(0, sys.argv[1])
import action
workflow = yaml.safe_load(open(sys.argv[2]))
matrix = sorted(e["target"] for e in workflow["jobs"]["build"]["strategy"]["matrix"]["include"])
print(" ".join(matrix))
print(" ".join(sorted(action.RELEASED_TRIPLES)))
detected = {action.target_triple(s, m) for s in ("Linux", "Darwin") for m in ("x86_64", "AMD64", "arm64", "aarch64")}
print(" ".join(sorted(detected)))
"#;
    let out = Command::new(python_tools().join("python"))
        .args(["-c", script])
        .arg(repo_root().join("scripts"))
        .arg(repo_root().join(".github/workflows/release.yml"))
        .output()
        .expect("python runs");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        ["aarch64-apple-darwin aarch64-unknown-linux-musl x86_64-apple-darwin x86_64-unknown-linux-musl";
            3],
        "the workflow's matrix, action.py's list, action.py's detection"
    );
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

/// A base ref is data, never an option: `--upload-pack=CMD` would make `git fetch` run CMD
/// (issue 28). It is refused in one line before Git runs, the event's base SHA and the
/// input alike, and a ref name `git check-ref-format` refuses is refused too.
#[test]
fn a_base_ref_that_git_would_read_as_an_option_is_refused() {
    let (repo, runner, _) = pull_request("action-ref-injection");
    // A shallow clone whose origin is a local repository: fetching from it runs upload-pack.
    let clone = runner.join("clone");
    let out = Command::new("git")
        .args(["clone", "-q", "--depth=1", "--no-local"])
        .arg(format!("file://{}", repo.display()))
        .arg(&clone)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git clones");
    assert!(out.status.success(), "{out:?}");
    let api = MockApi::start(&runner);
    let pwned = runner.join("pwned");
    let hostile = format!("--upload-pack=touch {}", pwned.display());
    let run = run_action(&clone, &runner, &api, &hostile, "t0ken");
    assert_eq!(run.out.code, 1, "{}{}", run.out.stdout, run.out.stderr);
    assert!(!pwned.exists(), "the base ref ran a command");
    let errors: Vec<&str> = run
        .out
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", run.out.stdout);
    assert!(
        errors[0].contains("not a commit hash or a valid Git ref name"),
        "{}",
        run.out.stdout
    );
    assert!(!run.out.stderr.contains("Traceback"), "{}", run.out.stderr);
    for bad in [
        "-b",
        "main..feature",
        "feature:main",
        "a b",
        "x.lock",
        "@",
        "+main",
        "main^{tree}",
    ] {
        let run = run_action(&clone, &runner, &api, bad, "t0ken");
        assert_eq!(run.out.code, 1, "{bad}: {}", run.out.stdout);
        assert!(
            run.out
                .stdout
                .contains("not a commit hash or a valid Git ref name"),
            "{bad}: {}",
            run.out.stdout
        );
    }
    let (_, requests) = api.state();
    assert!(requests.is_empty(), "{requests:?}");
}
