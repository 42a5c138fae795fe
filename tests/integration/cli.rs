//! The command-line contract (README.md, "Usage"): exit codes, nothing on standard output on
//! error, diagnostics with file and line, `-o` atomicity, determinism.

use crate::support::{copy_files, repo_root, run, run_with, scratch};
use std::fs;
use std::path::Path;

const EXAMPLE: &str = "examples/llama-demo";

/// A repository of `n` InferenceServices over a few namespaces, half auto-selected, with
/// models and runtimes in separate files.
fn generated_repo(dir: &Path, n: usize) {
    let mut runtimes = String::new();
    for r in 0..5 {
        runtimes.push_str(&format!(
            r#"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt-{r}
spec:
  supportedModelFormats:
    - modelFormat: {{name: safetensors, version: "1.0.0"}}
      modelFramework: {{name: transformers, version: "4.4{r}.0"}}
      modelArchitecture: Arch{r}
      autoSelect: true
      priority: {p}
  engineConfig:
    runner:
      name: ome-container
      image: img:{r}
      args: ["--served-model-name={{{{.Name}}}}", --tp-size=1]
      ports: [{{containerPort: 8080, name: http}}]
      resources: {{limits: {{nvidia.com/gpu: "{g}"}}}}
---
"#,
            p = r % 2 + 1,
            g = r + 1,
        ));
    }
    fs::write(dir.join("runtimes.yaml"), runtimes).unwrap();
    for m in 0..5 {
        fs::write(
            dir.join(format!("model-{m}.yaml")),
            format!(
                r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: model-{m}
spec:
  vendor: v{m}
  modelFormat: {{name: safetensors, version: "1.0.0"}}
  modelFramework: {{name: transformers, version: "4.4{m}.0"}}
  modelArchitecture: Arch{m}
  modelParameterSize: {m}B
  storage: {{storageUri: "hf://v/m{m}", path: /models/m{m}}}
"#
            ),
        )
        .unwrap();
    }
    for i in 0..n {
        let m = i % 5;
        let runtime = if i % 2 == 0 {
            format!("  runtime:\n    name: rt-{m}\n")
        } else {
            String::new()
        };
        fs::write(
            dir.join(format!("isvc-{i:04}.yaml")),
            format!(
                r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: svc-{i}
  namespace: ns-{}
spec:
  model:
    name: model-{m}
{runtime}  engine:
    maxReplicas: {}
",
                i % 7,
                i % 4 + 1
            ),
        )
        .unwrap();
    }
}

#[test]
fn renders_the_example_with_exit_zero() {
    let out = run(&[EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("kind: Deployment\n"));
    assert!(
        out.stderr.contains(
            "Runtime sglang-llama-3-2-3b will be auto-selected for model llama-3-2-3b-instruct"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn input_errors_exit_1_with_nothing_on_stdout_and_file_line_on_stderr() {
    let dir = scratch("input-error");
    copy_files(&repo_root().join(EXAMPLE), &dir, |n| n.to_string());
    let isvc = fs::read_to_string(dir.join("isvc.yaml")).unwrap();
    fs::write(
        dir.join("isvc.yaml"),
        isvc.replace(
            "name: llama-3-2-3b-instruct\n  engine",
            "name: no-such-model\n  engine",
        ),
    )
    .unwrap();
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .starts_with("error[ome::model::not-found]: referenced model \"no-such-model\""),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("isvc.yaml:9:5]"), "{}", out.stderr);
    // The line quoted, from the file read again after the render released its text
    // (SEMANTICS.md#source-texts).
    assert!(
        out.stderr.contains(" 9 |     name: no-such-model\n"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("InferenceService/llama-demo/llama-3-2-3b-instruct spec.model.name"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("help: add the model's file to the paths"),
        "{}",
        out.stderr
    );
}

#[test]
fn yaml_syntax_errors_name_file_line_and_column() {
    let dir = scratch("yaml-error");
    fs::write(
        dir.join("bad.yaml"),
        r"apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data: [a, b
",
    )
    .unwrap();
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.starts_with("error[ome::load::yaml]:"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("bad.yaml:6:1]") || out.stderr.contains("bad.yaml:5:"),
        "{}",
        out.stderr
    );
}

#[test]
fn usage_errors_exit_2_and_a_wrong_path_exits_1() {
    let out = run(&["--no-such-flag"]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    // A wrong path renders nothing: an input error, whatever else renders, with
    // --allow-empty in the help.
    for args in [
        &["does/not/exist"][..],
        &["--allow-empty", "does/not/exist", EXAMPLE],
    ] {
        let out = run(args);
        assert_eq!(out.code, 1, "{args:?}");
        assert_eq!(out.stdout, "");
        assert!(
            out.stderr.contains(
                "error[ome::output::empty]: does/not/exist does not exist: nothing can be rendered from it"
            ) && out.stderr.contains("--allow-empty"),
            "{}",
            out.stderr
        );
    }
    let out = run(&["explain", EXAMPLE]);
    assert_eq!(out.code, 2, "explain needs --isvc or --model");
}

#[test]
fn strict_turns_warnings_into_errors() {
    let out = run(&["--strict", "testdata/named-undeclared"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("error[ome::runtime::not-declared]"),
        "{}",
        out.stderr
    );
    // Notes are never errors: the bundled example passes --strict.
    assert_eq!(run(&["--strict", EXAMPLE]).code, 0);
}

#[test]
fn duplicate_objects_name_both_files() {
    let dir = scratch("duplicates");
    copy_files(&repo_root().join(EXAMPLE), &dir, |n| n.to_string());
    fs::copy(dir.join("runtime.yaml"), dir.join("runtime-copy.yaml")).unwrap();
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("ServingRuntime/llama-demo/sglang-llama-3-2-3b is defined twice"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("runtime.yaml:4:3]"), "{}", out.stderr);
    assert!(
        out.stderr.contains("runtime-copy.yaml:4:3]"),
        "{}",
        out.stderr
    );
}

#[test]
fn rendered_collisions_are_errors_naming_both_inference_services() {
    let dir = scratch("collision");
    copy_files(&repo_root().join(EXAMPLE), &dir, |n| n.to_string());
    // Both names end in the same 20 characters, so OME names both ConfigMaps alike.
    let isvc = fs::read_to_string(dir.join("isvc.yaml")).unwrap();
    fs::write(
        dir.join("isvc-2.yaml"),
        isvc.replace(
            "  name: llama-3-2-3b-instruct\n  namespace",
            "  name: x-llama-3-2-3b-instruct\n  namespace",
        ),
    )
    .unwrap();
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains(
            "ConfigMap/llama-demo/modelconfig-lama-3-2-3b-instruct is rendered twice: from InferenceService/llama-demo/llama-3-2-3b-instruct and from InferenceService/llama-demo/x-llama-3-2-3b-instruct"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn output_is_identical_whatever_the_thread_count_and_file_order() {
    let dir = scratch("determinism");
    generated_repo(&dir, 200);
    let path = dir.to_str().unwrap();
    let one = run_with(&[path], &[("RAYON_NUM_THREADS", "1")], None);
    let two = run_with(&[path], &[("RAYON_NUM_THREADS", "2")], None);
    let four = run_with(&[path], &[("RAYON_NUM_THREADS", "4")], None);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(
        one.stdout
            .matches(
                r"
kind: Deployment
"
            )
            .count(),
        200
    );
    assert!(one.stdout == two.stdout && two.stdout == four.stdout);
    assert!(one.stderr == two.stderr && two.stderr == four.stderr);

    // The same objects in files named in the opposite order.
    let renamed = scratch("determinism-renamed");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for (i, name) in names.iter().enumerate() {
        fs::copy(
            dir.join(name),
            renamed.join(format!("f{:05}.yaml", names.len() - i)),
        )
        .unwrap();
    }
    let again = run(&[renamed.to_str().unwrap()]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout == one.stdout, "output depends on file order");
}

#[test]
fn output_dir_is_written_atomically() {
    let dir = scratch("output-dir");
    let out_dir = dir.join("rendered");
    let out = run(&["--output-dir", out_dir.to_str().unwrap(), EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    let mut names: Vec<String> = fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ".ome-render-output",
            "llama-demo_apps_v1_deployment_llama-3-2-3b-instruct-engine.yaml",
            "llama-demo_autoscaling_v2_horizontalpodautoscaler_llama-3-2-3b-instruct-engine.yaml",
            "llama-demo_policy_v1_poddisruptionbudget_llama-3-2-3b-instruct-engine.yaml",
            "llama-demo_v1_configmap_modelconfig-lama-3-2-3b-instruct.yaml",
            "llama-demo_v1_service_llama-3-2-3b-instruct-engine.yaml",
            "llama-demo_v1_service_llama-3-2-3b-instruct.yaml",
            "v1_namespace_llama-demo.yaml",
        ]
    );
    let stream = run(&[EXAMPLE]).stdout;
    let deployment = fs::read_to_string(
        out_dir.join("llama-demo_apps_v1_deployment_llama-3-2-3b-instruct-engine.yaml"),
    )
    .unwrap();
    assert!(stream.contains(&deployment));

    // An input error leaves the directory exactly as it was.
    fs::write(out_dir.join("stale.yaml"), "left here").unwrap();
    let broken = scratch("output-dir-broken");
    fs::write(broken.join("bad.yaml"), "a: [").unwrap();
    let out = run(&[
        "--output-dir",
        out_dir.to_str().unwrap(),
        broken.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1);
    assert_eq!(
        fs::read_to_string(out_dir.join("stale.yaml")).unwrap(),
        "left here"
    );
    assert_eq!(fs::read_dir(&out_dir).unwrap().count(), 9);

    // A successful run replaces the whole directory: the stale file is gone.
    let out = run(&["--output-dir", out_dir.to_str().unwrap(), EXAMPLE]);
    assert_eq!(out.code, 0);
    assert!(!out_dir.join("stale.yaml").exists());
    assert_eq!(fs::read_dir(&out_dir).unwrap().count(), 8);

    // A directory ome-render did not write is never replaced.
    let foreign = dir.join("foreign");
    fs::create_dir_all(&foreign).unwrap();
    fs::write(foreign.join("keep.txt"), "mine").unwrap();
    let out = run(&["--output-dir", foreign.to_str().unwrap(), EXAMPLE]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("was not written by ome-render"),
        "{}",
        out.stderr
    );
    assert_eq!(
        fs::read_to_string(foreign.join("keep.txt")).unwrap(),
        "mine"
    );
    assert!(fs::read_dir(&dir).unwrap().all(|e| {
        !e.unwrap()
            .file_name()
            .to_string_lossy()
            .contains("ome-render-new")
    }));
}

/// Nothing a name or namespace says can make `-o DIR/` write outside `DIR`: each attempt is
/// an input error (exit 1) naming the object and its line, and nothing is written anywhere.
#[test]
fn an_output_directory_cannot_be_escaped() {
    let long = "a".repeat(250);
    let cases = [
        (
            "namespace",
            r"apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  namespace: ../../escaped
",
            "ConfigMap/../../escaped/x",
            ":5:",
        ),
        (
            "name",
            r"apiVersion: v1
kind: ConfigMap
metadata:
  name: ../../escaped
  namespace: team
",
            "ConfigMap/team/../../escaped",
            ":4:",
        ),
        (
            "rbac-name",
            r"apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ..
",
            "ClusterRole/..",
            ":4:",
        ),
        (
            "slash",
            r"apiVersion: v1
kind: Secret
metadata:
  name: a/b
",
            "Secret/a/b",
            ":4:",
        ),
        // A valid name in a namespace whose file name is longer than file systems take: once
        // exit 2 and a write error.
        (
            "long",
            &format!(
                r"apiVersion: v1
kind: ConfigMap
metadata:
  name: {long}
  namespace: team
"
            ),
            &format!("ConfigMap/team/{long}"),
            ":4:",
        ),
        (
            "case",
            // RBAC names may hold capitals: two files that differ only in case.
            r"apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: Reader}
",
            "ClusterRole/reader and ClusterRole/Reader",
            ":7:",
        ),
    ];
    for (case, yaml, object, line) in cases {
        let dir = scratch(&format!("escape-{case}"));
        let input = dir.join("in");
        fs::create_dir_all(&input).unwrap();
        fs::write(input.join("objects.yaml"), yaml).unwrap();
        let out_dir = dir.join("out").join("rendered");
        fs::create_dir_all(dir.join("out")).unwrap();
        let out = run(&[
            "-q",
            "-o",
            &format!("{}/", out_dir.display()),
            input.to_str().unwrap(),
        ]);
        assert_eq!(out.code, 1, "{case}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{case}");
        assert!(
            out.stderr.contains(object),
            "{case}: names {object}\n{}",
            out.stderr
        );
        assert!(
            out.stderr.contains(&format!("objects.yaml{line}")),
            "{case}: names the line\n{}",
            out.stderr
        );
        assert!(
            !out_dir.exists(),
            "{case}: the output directory was not written"
        );
        let mut left: Vec<String> = fs::read_dir(dir.join("out"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.extend(
            fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != "in" && n != "out"),
        );
        assert!(
            left.is_empty(),
            "{case}: nothing written beside it: {left:?}"
        );
        assert!(!dir.join("escaped").exists() && !repo_root().join("escaped").exists());
    }
}

#[test]
fn jsonl_format_writes_one_object_per_line() {
    let yaml = run(&[EXAMPLE]);
    let json = run(&["--format", "jsonl", EXAMPLE]);
    assert_eq!(json.code, 0);
    let lines: Vec<&str> = json.stdout.lines().collect();
    assert_eq!(lines.len(), yaml.stdout.matches("\nkind: ").count());
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("{\"apiVersion\":") && l.ends_with('}'))
    );
    assert!(lines[0].contains("\"kind\":\"Namespace\""));
}

#[test]
fn kinds_limits_the_output() {
    let out = run(&["--kinds", "Deployment,service", EXAMPLE]);
    assert_eq!(out.code, 0);
    let kinds: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("kind: "))
        .collect();
    assert_eq!(
        kinds,
        ["kind: Service", "kind: Service", "kind: Deployment"]
    );
}

#[test]
fn keep_ome_passes_the_consumed_resources_through() {
    let out = run(&["--keep-ome", EXAMPLE]);
    assert_eq!(out.code, 0);
    for kind in ["InferenceService", "ServingRuntime", "ClusterBaseModel"] {
        assert!(
            out.stdout.contains(&format!("kind: {kind}\n")),
            "{kind} missing"
        );
    }
    assert!(!run(&[EXAMPLE]).stdout.contains("kind: InferenceService"));
}

#[test]
fn standard_input_renders_like_the_files() {
    let dir = repo_root().join(EXAMPLE);
    let mut names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let stream: Vec<String> = names
        .iter()
        .map(|p| fs::read_to_string(p).unwrap())
        .collect();
    let out = run_with(&["-"], &[], Some(&stream.join("---\n")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, run(&[EXAMPLE]).stdout);
    assert!(out.stderr.contains("[<stdin>:"), "{}", out.stderr);
}

#[test]
fn github_error_format_writes_workflow_commands() {
    let out = run(&["-q", "--error-format", "github", EXAMPLE]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stderr, "", "notes are hidden by -q");
    let out = run(&["--error-format", "github", EXAMPLE]);
    assert!(
        out.stderr.starts_with(
            "::notice file=examples/llama-demo/isvc.yaml,line=9,endLine=9,col=5,endColumn=9,title=ome%3A%3Aselect%3A%3Aauto-selected::\
             InferenceService/llama-demo/llama-3-2-3b-instruct: spec.model.name: Runtime sglang-llama-3-2-3b will be auto-selected for model llama-3-2-3b-instruct\n"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn check_validates_without_writing() {
    let out = run(&["check", EXAMPLE]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "");
    let out = run(&["check", "--strict", "testdata/named-undeclared"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
}

#[test]
fn include_and_exclude_select_walked_files() {
    let out = run(&["--exclude", "isvc.yaml", EXAMPLE]);
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout,
        r"apiVersion: v1
kind: Namespace
metadata:
  name: llama-demo
",
        "only the Namespace is left"
    );
    let out = run(&["--include", "namespace.yaml", EXAMPLE]);
    assert_eq!(
        out.stdout,
        r"apiVersion: v1
kind: Namespace
metadata:
  name: llama-demo
"
    );
}

/// A reader that closed the pipe (`ome-render … | head -0`) ends the run with exit 0 and no
/// error, for `render` and `explain` alike: the reader has all it wanted.
#[test]
fn a_closed_pipe_is_not_a_failure() {
    for args in [
        vec![EXAMPLE],
        vec![
            "explain",
            "--isvc",
            "llama-demo/llama-3-2-3b-instruct",
            EXAMPLE,
        ],
    ] {
        // The reading end is closed before the binary starts, so its first write fails.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ome-render"))
            .args(&args)
            .current_dir(repo_root())
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("the binary runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(
            !stderr.lines().any(|l| l.starts_with("error")),
            "{args:?}: {stderr}"
        );
    }
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The output directory is swapped in one step: a run killed at any moment leaves either the
/// old render or the new one, complete; staging left by dead runs is swept.
#[test]
fn an_output_directory_is_swapped_in_one_step() {
    let dir = scratch("output-swap");
    let repo = dir.join("repo");
    fs::create_dir_all(&repo).unwrap();
    generated_repo(&repo, 60);
    let out = dir.join("rendered");
    let out_arg = out.to_str().unwrap();
    assert_eq!(
        run(&["-q", "--output-dir", out_arg, repo.to_str().unwrap()]).code,
        0
    );
    let old = entries(&out);
    // A second state of the repository with twice the InferenceServices.
    generated_repo(&repo, 120);
    let new_count = {
        let probe = dir.join("probe");
        assert_eq!(
            run(&[
                "-q",
                "--output-dir",
                probe.to_str().unwrap(),
                repo.to_str().unwrap()
            ])
            .code,
            0
        );
        entries(&probe).len()
    };
    assert!(new_count > old.len());
    for delay_ms in [0u64, 2, 5, 10, 20, 40, 80] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ome-render"))
            .args(["-q", "--output-dir", out_arg, repo.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let now = entries(&out);
        assert!(
            now.contains(&".ome-render-output".to_string()),
            "killed after {delay_ms} ms: {now:?}"
        );
        assert!(
            now == old || now.len() == new_count,
            "killed after {delay_ms} ms: {} entries, neither the old {} nor the new {new_count}",
            now.len(),
            old.len()
        );
    }
    // Staging of a dead run is swept by the next run; a live one's is left alone.
    let dead = dir.join(".rendered.ome-render-new-4000000000");
    let live = dir.join(format!(".rendered.ome-render-old-{}", std::process::id()));
    fs::create_dir_all(&dead).unwrap();
    fs::create_dir_all(&live).unwrap();
    assert_eq!(
        run(&["-q", "--output-dir", out_arg, repo.to_str().unwrap()]).code,
        0
    );
    assert_eq!(entries(&out).len(), new_count);
    assert!(!dead.exists(), "a dead run's staging is swept");
    assert!(live.exists(), "a live run's staging is kept");
}

/// A symbolic link as the output directory is followed: the directory it names is replaced
/// and the link stays. An output directory inside the input is never read back, and a file
/// output inside it is refused.
#[test]
fn output_links_and_outputs_inside_the_input() {
    let dir = scratch("output-link");
    let real = dir.join("real");
    let link = dir.join("link");
    fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = run(&["-q", "--output-dir", link.to_str().unwrap(), EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        entries(&real).len(),
        8,
        "the link's target holds the render"
    );

    let repo = dir.join("repo");
    copy_files(
        &repo_root().join(EXAMPLE),
        &{
            fs::create_dir_all(&repo).unwrap();
            repo.clone()
        },
        str::to_string,
    );
    let inside = repo.join("rendered");
    let first = run(&[
        "-q",
        "--output-dir",
        inside.to_str().unwrap(),
        repo.to_str().unwrap(),
    ]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let again = run(&[
        "--output-dir",
        inside.to_str().unwrap(),
        repo.to_str().unwrap(),
    ]);
    assert_eq!(
        again.code, 0,
        "the render is not read back as duplicates: {}",
        again.stderr
    );
    assert!(
        again.stderr.contains("is ome-render's output"),
        "{}",
        again.stderr
    );

    let file = repo.join("all.yaml");
    let refused = run(&["-q", "-o", file.to_str().unwrap(), repo.to_str().unwrap()]);
    assert_eq!(refused.code, 2);
    assert_eq!(refused.stdout, "");
    assert!(
        refused.stderr.contains("would read it back as input"),
        "{}",
        refused.stderr
    );
    assert!(!file.exists());
    let hidden = repo.join(".all.yaml");
    assert_eq!(
        run(&["-q", "-o", hidden.to_str().unwrap(), repo.to_str().unwrap()]).code,
        0
    );
}

/// A FIFO in a walked tree is skipped with a note, never opened (reading it would wait for a
/// writer forever); a FIFO named on the command line is refused (`testdata/bad/fifo-argument`).
#[test]
fn a_fifo_in_a_tree_is_skipped_with_a_note() {
    let dir = scratch("fifo-tree");
    copy_files(&repo_root().join(EXAMPLE), &dir, |n| n.to_string());
    let status = std::process::Command::new("mkfifo")
        .arg(dir.join("pipe.yaml"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("kind: Deployment\n"));
    assert!(
        out.stderr
            .contains("pipe.yaml is a FIFO; skipped (only regular files are read)"),
        "{}",
        out.stderr
    );
}

/// `--limit NAME=N` sets a limit for the run (SEMANTICS.md#limits), anywhere on the command
/// line; a wrong name or value is a usage error (exit 2) before anything is read.
#[test]
fn limits_are_set_with_limit_flags() {
    let low = run(&["--limit", "depth=2", EXAMPLE]);
    assert_eq!(low.code, 1, "{}", low.stderr);
    assert_eq!(low.stdout, "");
    assert!(low.stderr.contains("ome::load::limit"), "{}", low.stderr);
    assert!(low.stderr.contains("--limit depth=<N>"), "{}", low.stderr);

    let raised = run(&["render", EXAMPLE, "--limit", "depth=512", "--limit=keys=10"]);
    assert_eq!(raised.code, 0, "{}", raised.stderr);

    let few = run(&[
        "-q",
        "--limit",
        "diagnostics=1",
        "--limit",
        "file-bytes=10",
        EXAMPLE,
    ]);
    assert_eq!(few.code, 1);
    assert!(
        few.stderr.contains("more not shown") && few.stderr.contains("limit `diagnostics`"),
        "{}",
        few.stderr
    );
    assert_eq!(
        few.stderr.matches("[ome::load::limit]").count(),
        1,
        "{}",
        few.stderr
    );

    for (bad, says) in [
        ("depthh=3", "unknown limit `depthh`"),
        ("depth=513", "depth can be raised to 512 at most"),
        ("keys=0", "0 is not a positive whole number"),
        ("keys", "expected NAME=N"),
    ] {
        let out = run(&["--limit", bad, EXAMPLE]);
        assert_eq!(out.code, 2, "{bad}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{bad}: {}", out.stderr);
        assert_eq!(out.stdout, "");
    }
}

/// One runtime with many env entries, auto-selected by many InferenceServices: the output
/// multiplies the runtime (issue #28 measured 2.7 MB of input making 7.6 GB). Past the
/// `output-ratio` limit the run stops with an error naming the runtime and how many
/// InferenceServices select it, whatever the threads rendered first (SEMANTICS.md#limits);
/// under the default it renders.
#[test]
fn a_runtime_copied_into_many_services_is_stopped_by_the_output_ratio_limit() {
    // 2,000 env entries × 40 InferenceServices: about 3.5 MB of output from 70 KB of input.
    let (envs, services) = (2_000, 40);
    let mut text = String::from(
        r#"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: m
spec:
  vendor: v
  modelFormat: {name: safetensors, version: "1.0.0"}
  modelFramework: {name: transformers, version: "4.40.0"}
  modelArchitecture: Arch
  modelParameterSize: 1B
  storage: {storageUri: "hf://v/m", path: /models/m}
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: wide
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0.0"}
      modelFramework: {name: transformers, version: "4.40.0"}
      modelArchitecture: Arch
      autoSelect: true
  engineConfig:
    runner:
      name: ome-container
      image: img
      env:
"#,
    );
    for e in 0..envs {
        text.push_str(&format!("        - {{name: ENV_{e}, value: v}}\n"));
    }
    for i in 0..services {
        text.push_str(&format!(
            "---\napiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: svc-{i}\n  namespace: ns\nspec:\n  model:\n    name: m\n  engine:\n    maxReplicas: 1\n"
        ));
    }
    let dir = scratch("output-ratio");
    let input = dir.join("all.yaml");
    fs::write(&input, &text).unwrap();
    let input = input.to_str().unwrap();

    // Ratio 1: 1 MiB of output at most (the input counts as 1 MiB at least).
    for threads in ["1", "2"] {
        let out = run_with(
            &["--limit", "output-ratio=1", input],
            &[("RAYON_NUM_THREADS", threads)],
            None,
        );
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert_eq!(out.stdout, "");
        assert!(
            out.stderr.contains(&format!(
                "the objects rendered from {services} InferenceServices pass 1048576 bytes"
            )) && out.stderr.contains("(limit `output-ratio`)")
                && out
                    .stderr
                    .contains("ClusterServingRuntime `wide` copies its spec of")
                && out.stderr.contains(&format!(
                    "into each of the {services} InferenceServices that select it"
                ))
                && out.stderr.contains("--limit output-ratio=<N>"),
            "{}",
            out.stderr
        );
        assert_eq!(out.stderr.matches("error[").count(), 1, "{}", out.stderr);
    }
    let default = run(&["-q", input]);
    assert_eq!(default.code, 0, "{}", default.stderr);
    assert!(default.stdout.len() > 1 << 20, "{}", default.stdout.len());
}

/// JSON writes a character beyond the BMP as a surrogate pair of `\u` escapes: it reads as
/// the character (in YAML's double quotes too); a surrogate without its pair is an error at
/// the escape, with file, line and column (SEMANTICS.md#input).
#[test]
fn a_surrogate_pair_escape_reads_as_its_character_and_a_lone_one_is_refused() {
    let dir = scratch("surrogates");
    fs::write(
        dir.join("cm.json"),
        "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"c\", \"namespace\": \"n\"},\n \"data\": {\"smile\": \"\\ud83d\\ude00\"}}\n",
    )
    .unwrap();
    fs::write(
        dir.join("cm.yaml"),
        r#"apiVersion: v1
kind: ConfigMap
metadata: {name: d, namespace: n}
data:
  smile: "\uD83D\uDE00"
"#,
    )
    .unwrap();
    let out = run(&["-q", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.matches("smile: \"😀\"").count() + out.stdout.matches("smile: 😀").count(),
        2,
        "{}",
        out.stdout
    );

    let bad = dir.join("bad");
    fs::create_dir_all(&bad).unwrap();
    fs::write(
        bad.join("bad.json"),
        "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\",\n \"metadata\": {\"name\": \"c\"},\n \"data\": {\"smile\": \"x\\ud83d\"}}\n",
    )
    .unwrap();
    let out = run(&[bad.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("high surrogate escape without the low surrogate")
            && out.stderr.contains("bad.json:3:22"),
        "{}",
        out.stderr
    );
}

/// The walk takes entries in name order, depth first, whatever the threads do (the upper
/// levels are walked in parallel): of three definitions of one object, the first is the one
/// deepest in the first directory, and the other two are reported against it.
#[test]
fn the_walk_order_is_by_name_and_depth_first() {
    let dir = scratch("walk-order");
    let object = r"apiVersion: v1
kind: ConfigMap
metadata: {name: twice, namespace: demo}
data: {a: b}
";
    let deep = dir.join("a/1/2/3/4");
    fs::create_dir_all(&deep).unwrap();
    fs::write(deep.join("dup.yaml"), object).unwrap();
    fs::write(dir.join("a/1/2/3/dup2.yaml"), object).unwrap();
    fs::create_dir_all(dir.join("b/out")).unwrap();
    fs::write(dir.join("b/dup.yaml"), object).unwrap();
    fs::write(dir.join("b/out/.ome-render-output"), "").unwrap();
    fs::write(dir.join("b/out/skipped.yaml"), object).unwrap();
    std::os::unix::fs::symlink(dir.join("b"), dir.join("a/1/link")).unwrap();
    let out = run(&["--error-format", "json", dir.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let file = |rel: &str| format!("\"file\":\"{}\"", dir.join(rel).display());
    let duplicates: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("is defined twice"))
        .collect();
    assert_eq!(duplicates.len(), 2, "{}", out.stderr);
    for (line, at) in duplicates.iter().zip(["a/1/2/3/dup2.yaml", "b/dup.yaml"]) {
        let (own, related) = line.split_once("\"related\"").expect("a related place");
        assert!(own.contains(&file(at)), "{line}");
        assert!(related.contains(&file("a/1/2/3/4/dup.yaml")), "{line}");
    }
    assert!(out.stderr.contains("a/1/link is a symbolic link; skipped"));
    assert!(out.stderr.contains("b/out is ome-render's output"));
}
