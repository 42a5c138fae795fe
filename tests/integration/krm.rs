//! ome-render as a KRM function, driven by the real tools: kustomize 4.5.4 as a generator
//! and as a transformer, and kpt (`kpt fn eval --exec`, `kpt fn render` with a Kptfile
//! pipeline), preinstalled on the project's machines (`scripts/install-test-tools.sh`
//! installs or checks both; see `support::Tool`). The examples are
//! those of `deploy/`, as the README tells users to run them.

use crate::support::{
    kpt, kustomize, line_col, needs, python_tools, repo_root, run, run_with, scratch,
};
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a tool printed and how it ended.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// `PATH` with the built binaries first, so `exec: ome-render-krm` finds this build.
fn path_with_binaries() -> OsString {
    let bins = Path::new(env!("CARGO_BIN_EXE_ome-render-krm"))
        .parent()
        .expect("the binaries' directory")
        .to_path_buf();
    let mut paths = vec![bins];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH")
}

fn tool(program: &Path, args: &[&str], dir: &Path) -> Ran {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path_with_binaries())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{} runs: {e}", program.display()));
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn kustomize_build(dir: &Path, flags: &[&str]) -> Ran {
    let mut args = vec!["build"];
    args.extend(flags);
    let dir = dir.to_str().expect("UTF-8 path");
    args.push(dir);
    tool(kustomize(), &args, &repo_root())
}

const EXEC: &[&str] = &["--enable-alpha-plugins", "--enable-exec"];

/// The documents of a YAML stream as canonical JSON lines (PyYAML), sorted, so two streams
/// compare by meaning, whatever their order and layout.
fn canonical(stream: &str) -> Vec<String> {
    let script = "import json, sys, yaml\nfor d in yaml.safe_load_all(sys.stdin):\n    if d is not None:\n        print(json.dumps(d, sort_keys=True))\n";
    let mut child = Command::new(python_tools().join("python"))
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python runs");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), stream.as_bytes())
        .expect("python reads");
    let out = child.wait_with_output().expect("python ends");
    assert!(out.status.success(), "the stream parses:\n{stream}");
    let mut docs: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    docs.sort();
    docs
}

fn kinds(stream: &str) -> Vec<&str> {
    stream
        .lines()
        .filter_map(|l| l.strip_prefix("kind: "))
        .collect()
}

/// Copies a directory (one level) into a fresh scratch directory.
fn copy_dir(from: &str, name: &str) -> PathBuf {
    let dir = scratch(name);
    crate::support::copy_files(&repo_root().join(from), &dir, str::to_string);
    dir
}

#[test]
fn kustomize_runs_the_generator_and_gets_what_the_command_line_renders() {
    needs!(Kustomize, Python);
    let out = kustomize_build(Path::new("deploy/kustomize/generator"), EXEC);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let cli = run(&["-q", "examples/llama-demo"]);
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    assert_eq!(canonical(&out.stdout), canonical(&cli.stdout));
    assert!(
        !out.stdout.contains("OmeRender"),
        "the generator's own file is dropped"
    );
    assert!(
        out.stderr.contains("auto-selected"),
        "diagnostics reach kustomize's stderr"
    );
}

#[test]
fn kustomize_runs_the_transformer_after_its_own_patches_and_labels() {
    needs!(Kustomize);
    let out = kustomize_build(Path::new("deploy/kustomize/transformer"), EXEC);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        kinds(&out.stdout),
        [
            "Namespace",
            "ConfigMap",
            "Service",
            "Service",
            "Deployment",
            "PodDisruptionBudget",
            "HorizontalPodAutoscaler"
        ]
    );
    // kustomize's patch (maxReplicas 3) and labels reached the rendered objects.
    assert!(out.stdout.contains("  maxReplicas: 3\n"), "{}", out.stdout);
    let labelled = out
        .stdout
        .matches("app.kubernetes.io/part-of: llama-demo")
        .count();
    assert!(labelled >= 6, "{labelled}: {}", out.stdout);
    // No bookkeeping annotation of kustomize's reached an object.
    for key in [
        "config.kubernetes.io/",
        "config.k8s.io/id",
        "kustomize.config.k8s.io/",
    ] {
        assert!(!out.stdout.contains(key), "{key} in\n{}", out.stdout);
    }
}

#[test]
fn without_enable_exec_kustomize_silently_drops_the_function() {
    needs!(Kustomize);
    // The trap the docs warn about: exit 0, no message, and no rendered object.
    let generated = kustomize_build(
        Path::new("deploy/kustomize/generator"),
        &["--enable-alpha-plugins"],
    );
    assert_eq!(generated.code, 0, "{}", generated.stderr);
    assert!(
        !generated.stdout.contains("kind: Deployment"),
        "{}",
        generated.stdout
    );
    let transformed = kustomize_build(
        Path::new("deploy/kustomize/transformer"),
        &["--enable-alpha-plugins"],
    );
    assert_eq!(transformed.code, 0, "{}", transformed.stderr);
    assert!(transformed.stdout.contains("kind: InferenceService"));
    assert!(!transformed.stdout.contains("kind: Deployment"));
    // Without any flag, kustomize refuses the function outright.
    let refused = kustomize_build(Path::new("deploy/kustomize/generator"), &[]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains("external plugins disabled"),
        "{}",
        refused.stderr
    );
}

/// A copy of the transformer example whose InferenceService names a runtime that does not
/// exist.
fn broken_transformer() -> PathBuf {
    let dir = copy_dir("deploy/kustomize/transformer", "krm-broken");
    let isvc = dir.join("isvc.yaml");
    let text = fs::read_to_string(&isvc).unwrap().replace(
        "  engine:\n",
        "  runtime:\n    name: no-such-runtime\n  engine:\n",
    );
    fs::write(&isvc, text).unwrap();
    dir
}

#[test]
fn an_error_fails_kustomize_with_the_message_and_no_output() {
    needs!(Kustomize);
    let dir = broken_transformer();
    let out = kustomize_build(&dir, EXEC);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("runtime no-such-runtime does not support model"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("InferenceService/llama-demo/llama-3-2-3b-instruct"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("couldn't execute function"),
        "{}",
        out.stderr
    );
    // kustomize names no file without its origin annotations: the report cites the item and
    // the field, no line of the ResourceList (#32).
    assert!(
        out.stderr.contains(
            "error[ome::runtime::not-found]: ResourceList items[3]: InferenceService/llama-demo/llama-3-2-3b-instruct: spec.runtime.name: runtime no-such-runtime"
        ),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains(",-[ResourceList"), "{}", out.stderr);
}

#[test]
fn the_function_answers_an_error_with_results_only_and_exit_1() {
    let dir = broken_transformer();
    // What kpt would send: the files as items, with their path and index.
    let mut items = String::from(
        r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
",
    );
    for file in ["namespace.yaml", "model.yaml", "runtime.yaml", "isvc.yaml"] {
        let text = fs::read_to_string(dir.join(file)).unwrap();
        let body: String = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .enumerate()
            .map(|(i, l)| {
                let l = l.replace(
                    "metadata:",
                    &format!("metadata:\n    annotations:\n      config.kubernetes.io/path: {file}\n      config.kubernetes.io/index: '0'"),
                );
                if i == 0 { format!("- {l}\n") } else { format!("  {l}\n") }
            })
            .collect();
        items.push_str(&body);
    }
    let out = run_with(&["krm"], &[], Some(&items));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stdout.starts_with(
            r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
results:
"
        ),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("  severity: error\n"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("  file:\n    path: isvc.yaml\n    index: 0\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            r"    kind: InferenceService
    name: llama-3-2-3b-instruct
"
        ),
        "{}",
        out.stdout
    );
    // ome-render-krm with no arguments is the same function.
    let mut child = Command::new(env!("CARGO_BIN_EXE_ome-render-krm"))
        .current_dir(repo_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), items.as_bytes()).unwrap();
    let same = child.wait_with_output().unwrap();
    assert_eq!(same.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&same.stdout), out.stdout);
}

#[test]
fn ome_render_krm_with_arguments_is_ome_render() {
    let krm = Command::new(env!("CARGO_BIN_EXE_ome-render-krm"))
        .args(["-q", "render", "examples/llama-demo"])
        .current_dir(repo_root())
        .output()
        .unwrap();
    let cli = run(&["-q", "render", "examples/llama-demo"]);
    assert_eq!(krm.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&krm.stdout), cli.stdout);
}

#[test]
fn kpt_fn_eval_exec_renders_and_reports_results_with_files() {
    needs!(Kpt);
    let kpt = kpt();
    let pkg = copy_dir("deploy/kpt", "kpt-eval");
    let results = pkg.with_file_name(format!(
        "{}-results",
        pkg.file_name().unwrap().to_string_lossy()
    ));
    let _ = fs::remove_dir_all(&results);
    let exec = format!("{} krm", env!("CARGO_BIN_EXE_ome-render"));
    let out = tool(
        kpt,
        &[
            "fn",
            "eval",
            pkg.to_str().unwrap(),
            "--exec",
            &exec,
            "-o",
            "unwrap",
            "--results-dir",
            results.to_str().unwrap(),
        ],
        &repo_root(),
    );
    // kpt refuses new items that copy an input's path and index ("already exists"): the
    // rendered objects carry none.
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("[PASS]"), "{}", out.stderr);
    let rendered = kinds(&out.stdout);
    for kind in [
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Kptfile",
        "Namespace",
    ] {
        assert!(rendered.contains(&kind), "{kind}: {rendered:?}");
    }
    assert!(!rendered.contains(&"InferenceService"), "{rendered:?}");
    let report = fs::read_to_string(results.join("results.yaml")).expect("kpt's results");
    assert!(
        report.contains("Runtime sglang-llama-3-2-3b will be auto-selected"),
        "{report}"
    );
    assert!(report.contains("path: isvc.yaml"), "{report}");
    // The package is untouched (-o unwrap).
    assert!(
        fs::read_to_string(pkg.join("isvc.yaml"))
            .unwrap()
            .contains("kind: InferenceService")
    );
}

#[test]
fn kpt_fn_render_runs_the_kptfile_pipeline() {
    needs!(Kpt, Python);
    let kpt = kpt();
    let pkg = copy_dir("deploy/kpt", "kpt-render");
    let refused = tool(
        kpt,
        &["fn", "render", pkg.to_str().unwrap(), "-o", "unwrap"],
        &repo_root(),
    );
    assert_eq!(
        refused.code, 1,
        "kpt runs exec functions only with --allow-exec"
    );
    let out = tool(
        kpt,
        &[
            "fn",
            "render",
            pkg.to_str().unwrap(),
            "--allow-exec",
            "-o",
            "unwrap",
        ],
        &repo_root(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let cli = run(&["-q", "deploy/kpt"]);
    assert_eq!(cli.code, 0, "{}", cli.stderr);
    // The same objects as the command line renders, plus the Kptfile kpt keeps.
    let kpt_docs: Vec<String> = canonical(&out.stdout)
        .into_iter()
        .filter(|d| !d.contains("\"kind\": \"Kptfile\""))
        .map(|d| {
            d.replace(
                ", \"internal.config.kubernetes.io/seqindent\": \"compact\"",
                "",
            )
        })
        .collect();
    let cli_docs: Vec<String> = canonical(&cli.stdout)
        .into_iter()
        .filter(|d| !d.contains("\"kind\": \"Kptfile\""))
        .collect();
    let strip = |docs: Vec<String>| -> Vec<String> {
        docs.into_iter()
            .filter(|d| !d.contains("\"kind\": \"Namespace\""))
            .collect()
    };
    assert_eq!(strip(kpt_docs), strip(cli_docs));
}

/// A copy of the kpt package whose InferenceService names a runtime that does not exist.
fn broken_kpt_package(name: &str) -> PathBuf {
    let pkg = copy_dir("deploy/kpt", name);
    let isvc = pkg.join("isvc.yaml");
    let text = fs::read_to_string(&isvc).unwrap().replace(
        "  engine:\n",
        "  runtime:\n    name: no-such-runtime\n  engine:\n",
    );
    fs::write(&isvc, text).unwrap();
    pkg
}

#[test]
fn kpt_shows_an_error_as_a_result_naming_the_object() {
    needs!(Kpt);
    let kpt = kpt();
    let pkg = broken_kpt_package("kpt-error");
    let exec = format!("{} krm", env!("CARGO_BIN_EXE_ome-render"));
    let out = tool(
        kpt,
        &[
            "fn",
            "eval",
            pkg.to_str().unwrap(),
            "--exec",
            &exec,
            "-o",
            "unwrap",
        ],
        &repo_root(),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("[FAIL]"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("[error] ome.io/v1beta1/InferenceService/llama-demo/llama-3-2-3b-instruct"),
        "{}",
        out.stderr
    );
}

#[test]
fn items_not_consumed_come_back_with_every_field_and_annotation() {
    needs!(Python);
    let list = r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: kept
    annotations:
      config.kubernetes.io/path: cm.yaml
      config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/id: '7'
      config.k8s.io/id: '7'
  data:
    flag: 'yes'
    mode: '0644'
    script: |
      #!/bin/sh
      echo ${HOME}
- apiVersion: v1
  kind: List
  items: []
- apiVersion: example.com/v1
  kind: Widget
  metadata: {name: w, namespace: team}
  spec: {sizes: [1, 2.5, null, true]}
";
    let out = run_with(&["-q", "krm"], &[], Some(list));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = |text: &str| -> Vec<String> {
        let script = "import json, sys, yaml\nfor d in yaml.safe_load(sys.stdin)['items']:\n    print(json.dumps(d, sort_keys=True))\n";
        let mut child = Command::new(python_tools().join("python"))
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), text.as_bytes()).unwrap();
        let mut lines: Vec<String> =
            String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout)
                .lines()
                .map(str::to_string)
                .collect();
        lines.sort();
        lines
    };
    assert_eq!(items(&out.stdout), items(list));
    assert_eq!(items(list).len(), 3);
}

/// `kinds` filters what the function's `paths` render, as `--kinds` does; the items it
/// was given come back whatever `kinds` says.
#[test]
fn kinds_filter_the_paths_objects_and_keep_the_items() {
    let list = r"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: kept, namespace: x}
  data: {a: b}
functionConfig:
  apiVersion: render.ome-render.io/v1alpha1
  kind: OmeRender
  metadata: {name: render}
  spec:
    paths: [examples/llama-demo]
    kinds: [Deployment]
";
    let out = run_with(&["-q", "krm"], &[], Some(list));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let kinds: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  kind: "))
        .collect();
    assert_eq!(kinds, ["ConfigMap", "Deployment"], "{}", out.stdout);
}

#[test]
fn the_function_file_named_like_the_settings_file_is_an_error() {
    needs!(Kustomize);
    // kustomize runs the transformer in the kustomization's directory, where
    // `ome-render.yaml` is the settings file: a function file of that name would be read as
    // settings, so it is refused with a message that says so.
    let dir = copy_dir("deploy/kustomize/transformer", "krm-settings-name");
    fs::rename(dir.join("render.yaml"), dir.join("ome-render.yaml")).unwrap();
    let k = dir.join("kustomization.yaml");
    let text = fs::read_to_string(&k)
        .unwrap()
        .replace("- render.yaml", "- ome-render.yaml");
    fs::write(&k, text).unwrap();
    let out = kustomize_build(&dir, EXEC);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stderr.contains("the settings file is an OmeRender"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_deploy_examples_hold_the_example_unchanged() {
    // deploy/kustomize/transformer and deploy/kpt are copies of examples/llama-demo, so each
    // can be copied on its own; they must not drift from it.
    for copy in ["deploy/kustomize/transformer", "deploy/kpt"] {
        for file in ["namespace.yaml", "model.yaml", "runtime.yaml", "isvc.yaml"] {
            let read = |dir: &str| fs::read_to_string(repo_root().join(dir).join(file)).unwrap();
            assert_eq!(read(copy), read("examples/llama-demo"), "{copy}/{file}");
        }
    }
}

#[test]
fn under_kustomize_with_origins_a_diagnostic_cites_the_users_file() {
    needs!(Kustomize);
    let dir = broken_transformer();
    // With its origin annotations (`buildMetadata: [originAnnotations]`), the file's own
    // line and column.
    let kustomization = dir.join("kustomization.yaml");
    let text = fs::read_to_string(&kustomization).unwrap();
    fs::write(
        &kustomization,
        text + "buildMetadata: [originAnnotations]\n",
    )
    .unwrap();
    let out = kustomize_build(&dir, EXEC);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let (line, col) = line_col(&dir.join("isvc.yaml"), "name: no-such-runtime");
    assert!(
        out.stderr.contains(&format!(",-[isvc.yaml:{line}:{col}]")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains(&format!("{line} |     name: no-such-runtime")),
        "{}",
        out.stderr
    );
}

#[test]
fn under_kpt_a_diagnostic_cites_the_file_when_it_is_relative_to_the_working_directory() {
    needs!(Kpt);
    let pkg = broken_kpt_package("kpt-located");
    let isvc = pkg.join("isvc.yaml");
    let exec = format!("{} krm", env!("CARGO_BIN_EXE_ome-render"));
    let eval = |target: &str, cwd: &Path| {
        tool(
            kpt(),
            &[
                "fn",
                "eval",
                target,
                "--exec",
                &exec,
                "--truncate-output=false",
            ],
            cwd,
        )
    };
    // In the package, `config.kubernetes.io/path: isvc.yaml` is a file here.
    let inside = eval(".", &pkg);
    assert_eq!(inside.code, 1, "{}", inside.stderr);
    let (line, col) = line_col(&isvc, "name: no-such-runtime");
    assert!(
        inside
            .stderr
            .contains(&format!(",-[isvc.yaml:{line}:{col}]")),
        "{}",
        inside.stderr
    );
    assert!(
        !inside.stderr.contains("ResourceList items"),
        "{}",
        inside.stderr
    );
    // From its parent the path names no file here: the path and the field path, no line.
    let parent = pkg.parent().unwrap();
    let name = pkg.file_name().unwrap().to_str().unwrap();
    let outside = eval(name, parent);
    assert_eq!(outside.code, 1, "{}", outside.stderr);
    assert!(
        outside.stderr.contains(
            "error[ome::runtime::not-found]: isvc.yaml: InferenceService/llama-demo/llama-3-2-3b-instruct: spec.runtime.name: runtime no-such-runtime"
        ),
        "{}",
        outside.stderr
    );
    assert!(
        !outside.stderr.contains("ResourceList items"),
        "{}",
        outside.stderr
    );
}
