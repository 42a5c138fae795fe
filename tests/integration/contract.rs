//! The command line as a platform engineer meets it (README.md, "Usage"; SEMANTICS.md,
//! "Output" and "Diagnostics"): no silent empty output, subcommands and flags in any order,
//! output flags as kubectl, helm and kustomize spell them, JSON that tools read, settings
//! wherever the input comes from, messages at the right level, complete machine formats,
//! a readable `explain`, colour, and the things every CLI has. Each test asserts the exit
//! code, that standard output is empty on error, and the text that names the problem.

use crate::support::{kustomize, needs, python_tools, repo_root, run, run_in, run_with, scratch};
use std::fs;
use std::path::Path;
use std::process::Command;

const EXAMPLE: &str = "examples/llama-demo";

fn copy_example(to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(repo_root().join(EXAMPLE)).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

#[test]
fn an_empty_render_is_an_error_unless_allowed() {
    let empty = scratch("contract-empty");
    let path = empty.to_str().unwrap();
    let out = run(&[path]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("error[ome::output::empty]: nothing to write: no input file was found"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--allow-empty"), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was written"), "{}", out.stderr);
    assert_eq!(
        run(&["check", path]).code,
        1,
        "check says what render would do"
    );

    let out = run(&["--allow-empty", path]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(run(&["check", "--allow-empty", path]).code, 0);

    // Every file excluded, and a file with no object at all, are empty renders too.
    let out = run(&["--exclude", "*.yaml", EXAMPLE]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    fs::write(empty.join("comments.yaml"), "# nothing here\n").unwrap();
    let out = run(&[path]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("comments.yaml holds no object"),
        "the file is named\n{}",
        out.stderr
    );
}

#[test]
fn kinds_must_be_kinds() {
    let out = run(&["--kinds", "Deploymnt", EXAMPLE]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("--kinds Deploymnt is no Kubernetes or OME kind")
            && out.stderr.contains("did you mean `Deployment`?"),
        "{}",
        out.stderr
    );
    // A real kind that selects nothing is a warning; the others still render.
    let out = run(&["--kinds", "Secret,Deployment", EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("kind: Deployment"));
    assert!(
        out.stderr
            .contains("warning[ome::output::kind-unmatched]: --kinds Secret selects nothing"),
        "{}",
        out.stderr
    );
    // …and an error when it leaves nothing at all.
    let out = run(&["--kinds", "Secret", EXAMPLE]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("--kinds selects none of the"),
        "{}",
        out.stderr
    );
}

#[test]
fn subcommands_and_global_flags_go_in_any_order() {
    let default = run(&["-q", EXAMPLE]);
    assert_eq!(default.code, 0);
    let explicit = run(&["render", "-q", EXAMPLE]);
    assert_eq!(
        explicit.stdout, default.stdout,
        "`render` is the default action"
    );
    assert_eq!(run(&["-q", "render", EXAMPLE]).stdout, default.stdout);

    let warns = "testdata/named-undeclared";
    for args in [
        &["--strict", "check", warns][..],
        &["check", "--strict", warns],
        &["check", warns, "--strict"],
    ] {
        let out = run(args);
        assert_eq!(out.code, 1, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("error[ome::runtime::not-declared]"),
            "{args:?}"
        );
    }
    for args in [
        &["-n", "other", "--error-format", "json", "check", EXAMPLE][..],
        &["check", "-n", "other", "--error-format", "json", EXAMPLE],
    ] {
        let out = run(args);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.starts_with('{'),
            "{args:?}: JSON diagnostics: {}",
            out.stderr
        );
    }
    // Render flags belong after the subcommand.
    let out = run(&["--format", "json", "check", EXAMPLE]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("go after the subcommand"),
        "{}",
        out.stderr
    );

    // A directory named like a subcommand is a path after `--`, or as `./check`.
    let dir = scratch("contract-order");
    copy_example(&dir.join("check"));
    for args in [&["-q", "--", "check"][..], &["-q", "./check"]] {
        let out = run_in(&dir, args, &[], None);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, default.stdout, "{args:?}");
    }
}

#[test]
fn output_flags_as_the_ecosystem_spells_them() {
    let dir = scratch("contract-output");
    let stream = run(&["-q", EXAMPLE]).stdout;

    // -o FILE: the stream, written atomically.
    let file = dir.join("out.yaml");
    let out = run(&["-q", "-o", file.to_str().unwrap(), EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(fs::read_to_string(&file).unwrap(), stream);
    assert_eq!(
        names_in(&dir),
        ["out.yaml"],
        "no staging file is left behind"
    );

    // -o - is standard output, no file named `-`.
    let out = run_in(
        &dir,
        &[
            "-q",
            "-o",
            "-",
            &repo_root().join(EXAMPLE).to_string_lossy(),
        ],
        &[],
        None,
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, stream.as_str()),
        "{}",
        out.stderr
    );
    assert!(!dir.join("-").exists());

    // -o DIR/ and --output-dir DIR: one file per object, the same files.
    let slash = format!("{}/", dir.join("by-slash").display());
    assert_eq!(run(&["-q", "-o", &slash, EXAMPLE]).code, 0);
    let named = dir.join("by-flag");
    assert_eq!(
        run(&["-q", "--output-dir", named.to_str().unwrap(), EXAMPLE]).code,
        0
    );
    assert_eq!(names_in(&dir.join("by-slash")), names_in(&named));
    assert_eq!(names_in(&named).len(), 7);
    // -o naming an existing directory writes into it too.
    assert_eq!(run(&["-q", "-o", named.to_str().unwrap(), EXAMPLE]).code, 0);
    assert_eq!(names_in(&named).len(), 7);

    // kubectl's -o json, -o yaml and -o wide point at --format.
    for format in ["json", "yaml", "wide"] {
        let out = run(&["-o", format, EXAMPLE]);
        assert_eq!(out.code, 2, "-o {format}");
        assert_eq!(out.stdout, "");
        assert!(
            out.stderr.contains("--format"),
            "-o {format}: {}",
            out.stderr
        );
    }
}

#[test]
fn file_names_depend_only_on_their_object() {
    needs!(Kustomize);
    let dir = scratch("contract-names");
    let repo = dir.join("repo");
    copy_example(&repo);
    let first = dir.join("first");
    assert_eq!(
        run(&[
            "-q",
            "--output-dir",
            first.to_str().unwrap(),
            repo.to_str().unwrap()
        ])
        .code,
        0
    );
    // A second namespace renames nothing.
    fs::write(
        repo.join("other.yaml"),
        r"apiVersion: v1
kind: ConfigMap
metadata: {name: extra, namespace: elsewhere}
data: {a: b}
",
    )
    .unwrap();
    let second = dir.join("second");
    assert_eq!(
        run(&[
            "-q",
            "--output-dir",
            second.to_str().unwrap(),
            repo.to_str().unwrap()
        ])
        .code,
        0
    );
    let mut expected = names_in(&first);
    expected.push("elsewhere_v1_configmap_extra.yaml".to_string());
    expected.sort();
    assert_eq!(names_in(&second), expected);

    // kustomize reads the directory back as the same objects as the stream.
    let files = names_in(&second);
    let resources: String = files.iter().map(|f| format!("- {f}\n")).collect();
    fs::write(
        second.join("kustomization.yaml"),
        format!("resources:\n{resources}"),
    )
    .unwrap();
    let built = Command::new(kustomize())
        .arg("build")
        .arg(&second)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let stream = run(&["-q", repo.to_str().unwrap()]).stdout;
    assert_eq!(
        String::from_utf8_lossy(&built.stdout)
            .split("\n---\n")
            .count(),
        files.len()
    );
    assert_eq!(files.len(), stream.split("\n---\n").count());
}

#[test]
fn json_is_one_list_that_tools_read() {
    needs!(Python, Kustomize);
    let dir = scratch("contract-json");
    let out = run(&["-q", "--format", "json", EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[")
    );
    assert!(out.stdout.ends_with("]}\n"));
    let yaml = run(&["-q", EXAMPLE]).stdout;
    let objects = yaml.split("\n---\n").count();
    fs::write(dir.join("out.json"), &out.stdout).unwrap();

    // Python's JSON reader: one document holding every object.
    let python = python_tools().join("python3");
    let count = Command::new(&python)
        .args([
            "-c",
            "import json,sys; d=json.load(open(sys.argv[1])); print(d['kind'], len(d['items']))",
        ])
        .arg(dir.join("out.json"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&count.stdout).trim(),
        format!("List {objects}")
    );

    // kustomize keeps every object (one per line would keep only the first).
    fs::write(dir.join("kustomization.yaml"), "resources:\n- out.json\n").unwrap();
    let built = Command::new(kustomize())
        .arg("build")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&built.stdout)
            .split("\n---\n")
            .count(),
        objects
    );

    // kubernetes-validate accepts every object of the List. It has no schema for `List`
    // itself (it would pass anything inside), so each item is validated as a file of its own.
    let items = dir.join("items");
    fs::create_dir_all(&items).unwrap();
    let split = "import json, sys\nfor i, o in enumerate(json.load(open(sys.argv[1]))['items']):\n    json.dump(o, open(f'{sys.argv[2]}/{i}.json', 'w'))\n";
    let status = Command::new(python_tools().join("python"))
        .args(["-c", split])
        .arg(dir.join("out.json"))
        .arg(&items)
        .status()
        .unwrap();
    assert!(status.success());
    let mut files: Vec<_> = fs::read_dir(&items)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), objects);
    let validated = Command::new(python_tools().join("kubernetes-validate"))
        .args(["--strict", "-k", "1.33.0"])
        .args(&files)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&validated.stdout);
    assert!(validated.status.success(), "{report}");
    assert_eq!(
        report.matches(" passed for resource ").count(),
        objects,
        "{report}"
    );

    // JSON lines stay available, and an allowed empty render is an empty List.
    let lines = run(&["-q", "--format", "jsonl", EXAMPLE]).stdout;
    assert_eq!(lines.lines().count(), objects);
    let empty = scratch("contract-json-empty");
    let out = run(&[
        "-q",
        "--format",
        "json",
        "--allow-empty",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(
        out.stdout,
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[]}\n"
    );
}

#[test]
fn settings_come_with_the_input_wherever_it_is() {
    let dir = scratch("contract-settings");
    copy_example(&dir);
    // The example's own settings file goes: this test writes its own.
    fs::remove_file(dir.join("ome-render.yaml")).unwrap();
    let external = |stdout: &str| stdout.contains("component: external-service");
    // No settings file: the defaults, said once.
    let out = run(&[dir.to_str().unwrap()]);
    assert!(external(&out.stdout));
    assert_eq!(
        out.stderr
            .matches("note[ome::settings::defaults]: no settings file at")
            .count(),
        1,
        "{}",
        out.stderr
    );

    let settings = "ingress:\n  disableIngressCreation: false\n";
    fs::write(dir.join("ome-render.yaml"), settings).unwrap();
    // A directory, a file in it, and standard input read from it all find it.
    assert!(!external(&run(&["-q", dir.to_str().unwrap()]).stdout));
    let isvc = dir.join("isvc.yaml");
    let files = ["model.yaml", "runtime.yaml", "namespace.yaml"].map(|f| dir.join(f));
    let mut args = vec!["-q", isvc.to_str().unwrap()];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    assert!(!external(&run(&args).stdout), "beside the first file");
    let stream: Vec<String> = std::iter::once(&isvc)
        .chain(&files)
        .map(|f| fs::read_to_string(f).unwrap())
        .collect();
    let out = run_in(&dir, &["-q", "-"], &[], Some(&stream.join("---\n")));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !external(&out.stdout),
        "`kustomize build | ome-render -` in the repository"
    );

    // --settings names it explicitly, wherever it is.
    let elsewhere = scratch("contract-settings-file").join("prod.yaml");
    fs::write(&elsewhere, settings).unwrap();
    fs::remove_file(dir.join("ome-render.yaml")).unwrap();
    let out = run(&[
        "-q",
        "--settings",
        elsewhere.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!external(&out.stdout));
    let out = run(&["--settings", "no/such/file.yaml", dir.to_str().unwrap()]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("cannot read the settings file no/such/file.yaml"),
        "{}",
        out.stderr
    );
}

/// A repository of `n` auto-selected InferenceServices.
fn auto_selected_repo(dir: &Path, n: usize) {
    copy_example(dir);
    let isvc = fs::read_to_string(dir.join("isvc.yaml")).unwrap();
    for i in 0..n {
        fs::write(
            dir.join(format!("isvc-{i}.yaml")),
            isvc.replace(
                "name: llama-3-2-3b-instruct\n  namespace",
                &format!("name: svc-{i}\n  namespace"),
            ),
        )
        .unwrap();
    }
}

#[test]
fn messages_come_at_the_right_level_and_repeats_are_counted() {
    // The auto-selection message is a note: hidden by -q, never an error under --strict.
    let out = run(&[EXAMPLE]);
    assert!(
        out.stderr.contains("note[ome::select::auto-selected]"),
        "{}",
        out.stderr
    );
    let out = run(&["-q", "--strict", EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "", "nothing to report under -q");

    let dir = scratch("contract-levels");
    auto_selected_repo(&dir, 12);
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr
            .matches("note[ome::select::auto-selected]")
            .count(),
        5
    );
    assert!(
        out.stderr.contains(
            "note: … and 8 more ome::select::auto-selected notes; run with --verbose to see all"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .ends_with("ome-render: 0 errors, 0 warnings in 17 files\n"),
        "{}",
        out.stderr
    );
    let verbose = run(&["--verbose", dir.to_str().unwrap()]);
    assert_eq!(
        verbose
            .stderr
            .matches("note[ome::select::auto-selected]")
            .count(),
        13
    );

    // check reports its summary even when it finds nothing.
    let out = run(&["-q", "check", EXAMPLE]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stderr, "ome-render: 0 errors, 0 warnings in 5 files\n");
}

#[test]
fn machine_formats_carry_related_places_ends_and_help() {
    let dir = scratch("contract-formats");
    copy_example(&dir);
    fs::copy(dir.join("runtime.yaml"), dir.join("runtime-copy.yaml")).unwrap();
    let out = run(&["-q", "--error-format", "json", dir.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    let duplicate = out
        .stderr
        .lines()
        .find(|l| l.contains("ome::load::duplicate"))
        .expect("the duplicate");
    for key in [
        "\"end_line\":",
        "\"end_column\":",
        "\"help\":",
        "\"related\":[{\"file\":",
    ] {
        assert!(duplicate.contains(key), "{key}: {duplicate}");
    }
    assert!(duplicate.contains("runtime.yaml") && duplicate.contains("runtime-copy.yaml"));

    let out = run(&["-q", "--error-format", "github", dir.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert!(
        lines[0].starts_with("::error file=")
            && lines[0].contains(",endColumn=")
            && lines[0].contains(",title=ome%3A%3Aload%3A%3Aduplicate::"),
        "{}",
        out.stderr
    );
    assert!(
        lines[0].contains("%0Ahelp: "),
        "the help rides along: {}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("::notice file=") && lines[1].ends_with("::first defined here"),
        "the other file: {}",
        out.stderr
    );
}

#[test]
fn explain_marks_the_pick_wraps_and_ends_its_lines() {
    let team_a = [
        "explain",
        "--model",
        "llama-3-2-3b-instruct",
        "-n",
        "team-a",
        "testdata/explain-team-a",
    ];
    let out = run(&team_a);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("   RUNTIME"));
    assert!(lines[1].starts_with("*  team-llama"), "{}", out.stdout);
    assert!(lines[2].starts_with("   vllm-llama"), "{}", out.stdout);
    // Off a terminal the REASON column wraps to fit 80 columns; SOURCE stays on the row.
    assert!(
        out.stdout.contains(&format!(
            "model size 3.21B is       testdata/explain-team-a/resources.yaml:47\n{}outside supported range\n",
            " ".repeat(59)
        )),
        "{}",
        out.stdout
    );
    let json = run(&[&team_a[..], &["--format", "json"]].concat());
    assert!(json.stdout.starts_with("{\"selected\":"));
    assert!(json.stdout.ends_with("}\n"));

    // Nothing to explain says so, and nothing about writing.
    let empty = scratch("contract-explain");
    fs::copy(
        repo_root().join(EXAMPLE).join("model.yaml"),
        empty.join("model.yaml"),
    )
    .unwrap();
    let out = run(&[
        "explain",
        "--model",
        "llama-3-2-3b-instruct",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("No serving runtimes found"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("nothing was written"),
        "{}",
        out.stderr
    );
}

#[test]
fn colour_follows_the_environment_and_never_reaches_a_pipe_unforced() {
    let plain = run(&[EXAMPLE]);
    assert!(!plain.stderr.contains('\u{1b}'), "a pipe gets no colour");
    for var in ["FORCE_COLOR", "CLICOLOR_FORCE"] {
        let forced = run_with(&[EXAMPLE], &[(var, "1")], None);
        assert!(forced.stderr.contains("\u{1b}["), "{var}=1 forces colour");
        let off = run_with(&[EXAMPLE], &[(var, "0")], None);
        assert!(!off.stderr.contains('\u{1b}'), "{var}=0 does not");
    }
    let no = run_with(&["--color", "auto", EXAMPLE], &[("NO_COLOR", "1")], None);
    assert!(!no.stderr.contains('\u{1b}'));
    let always = run_with(&["--color", "always", EXAMPLE], &[("NO_COLOR", "1")], None);
    assert!(
        always.stderr.contains("\u{1b}["),
        "the flag wins over the environment"
    );
    let never = run_with(
        &["--color", "never", EXAMPLE],
        &[("FORCE_COLOR", "1")],
        None,
    );
    assert!(!never.stderr.contains('\u{1b}'));
}

#[test]
fn version_completions_and_manual() {
    let out = run(&["--version"]);
    assert_eq!(out.code, 0);
    let version = env!("CARGO_PKG_VERSION");
    // Built from a Git checkout here: the commit and its date follow the version.
    let shape = regex_lite(&out.stdout, version);
    assert!(shape, "{}", out.stdout);

    for shell in ["bash", "zsh", "fish", "powershell"] {
        let out = run(&["completions", shell]);
        assert_eq!(out.code, 0, "{shell}");
        assert!(
            out.stdout.contains("ome-render") && out.stdout.contains("explain"),
            "{shell}"
        );
    }
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.code, 2);

    let man = run(&["man"]);
    assert_eq!(man.code, 0);
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH ome-render"),
        "{}",
        &man.stdout[..200.min(man.stdout.len())]
    );
    assert!(man.stdout.contains("allow\\-empty"));
}

/// `ome-render <version> (<7 hex> <YYYY-MM-DD>)`.
fn regex_lite(line: &str, version: &str) -> bool {
    let Some(rest) = line.strip_prefix(&format!("ome-render {version} (")) else {
        return false;
    };
    let Some(rest) = rest.strip_suffix(")\n") else {
        return false;
    };
    let Some((commit, date)) = rest.split_once(' ') else {
        return false;
    };
    commit.len() == 7
        && commit.bytes().all(|b| b.is_ascii_hexdigit())
        && date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
}
