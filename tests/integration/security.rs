//! A pull request is untrusted input (issue #28): what it writes reaches the bot's
//! pull-request comment and the CI log escaped, and an object's type is checked before any
//! report shows it (SEMANTICS.md#output-escaping).

use crate::support::{copy_files, repo_root, run, run_in, scratch};

const EXAMPLE: &str = "examples/llama-demo";

/// A pass-through object whose kind holds a backtick and an image link, and one whose kind
/// holds an escape sequence: each is an error at its `kind` line, nothing is written, and
/// the kind reaches the terminal with its control characters escaped.
#[test]
fn a_kind_that_is_no_kind_is_refused_and_shown_escaped() {
    let dir = scratch("hostile-kind");
    copy_files(&repo_root().join(EXAMPLE), &dir, str::to_string);
    std::fs::write(
        dir.join("zz-hostile.yaml"),
        r#"apiVersion: v1
kind: "Pod`![x](https://e.vil/x.png)`"
metadata:
  name: a
---
apiVersion: v1
kind: "Pod\e[2J\e]0;owned\a"
metadata:
  name: b
---
apiVersion: "Apps/v1"
kind: ConfigMap
metadata:
  name: c
"#,
    )
    .unwrap();
    let dir_text = dir.to_string_lossy().into_owned();
    for format in ["human", "github"] {
        let out = run(&["-q", "--error-format", format, "render", &dir_text]);
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(out.stdout.is_empty());
        assert!(!out.stderr.contains('\u{1b}'), "{}", out.stderr);
        assert!(!out.stderr.contains('\u{7}'), "{}", out.stderr);
        assert!(out.stderr.contains("\\u{1b}[2J"), "{}", out.stderr);
        assert!(out.stderr.contains("zz-hostile.yaml"), "{}", out.stderr);
        assert!(
            out.stderr.contains("is not a kind's name"),
            "{}",
            out.stderr
        );
        assert!(
            out.stderr
                .contains("apiVersion `Apps/v1` is not `[group/]version`"),
            "{}",
            out.stderr
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The labels of the Markdown report (paths or Git revisions, as the user gave them) hold
/// no markup once written: a backtick, `<` or `@` is a character reference.
#[test]
fn the_markdown_report_escapes_its_labels() {
    let root = scratch("hostile-label");
    let head = root.join("head`<img src=x>@admin");
    std::fs::create_dir_all(&head).unwrap();
    copy_files(&repo_root().join(EXAMPLE), &head, str::to_string);
    let head_text = head.to_string_lossy().into_owned();
    let out = run(&["-q", "diff", "--format", "markdown", EXAMPLE, &head_text]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("`<img"), "{}", out.stdout);
    assert!(!out.stdout.contains("<img"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("head&#96;&lt;img src&#61;x&gt;&#64;admin</code>"),
        "{}",
        out.stdout
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// An `ome-render.yaml` or `ome-render.lock` at the root that is a symbolic link (to a
/// secret, or dangling) or a FIFO is not read, and not silently "no settings file": the run
/// stops (exit 2) and quotes nothing of the target.
#[test]
fn a_settings_or_lock_file_that_is_no_regular_file_stops_the_run() {
    for (case, file) in [
        ("link", "ome-render.yaml"),
        ("dangling", "ome-render.yaml"),
        ("fifo", "ome-render.yaml"),
        ("link", "ome-render.lock"),
    ] {
        let dir = scratch(&format!("root-file-{case}-{}", file.replace('.', "-")));
        copy_files(&repo_root().join(EXAMPLE), &dir, str::to_string);
        let secret = dir.with_extension("secret");
        std::fs::write(&secret, "TOKEN=hunter2-secret-value\n").unwrap();
        let at = dir.join(file);
        // The example's own settings file makes way for the case's.
        let _ = std::fs::remove_file(&at);
        match case {
            "link" => std::os::unix::fs::symlink(&secret, &at).unwrap(),
            "dangling" => std::os::unix::fs::symlink(dir.join("nowhere"), &at).unwrap(),
            _ => {
                let status = std::process::Command::new("mkfifo")
                    .arg(&at)
                    .status()
                    .expect("mkfifo runs");
                assert!(status.success());
            }
        }
        let out = run(&["-q", "render", &dir.to_string_lossy()]);
        assert_eq!(out.code, 2, "{case} {file}: {}", out.stderr);
        assert!(out.stdout.is_empty());
        assert!(out.stderr.contains(file), "{}", out.stderr);
        assert!(!out.stderr.contains("hunter2"), "{}", out.stderr);
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::remove_file(&secret);
    }
}

/// The KRM generator's `paths` stay inside the current directory, as kustomize's load
/// restrictor keeps them: `../outside` or an absolute path (here a directory holding a
/// Secret) is refused and nothing of it is returned; `loadRestrictor: LoadRestrictionsNone`
/// allows it.
#[test]
fn the_krm_generator_reads_no_path_outside_the_current_directory() {
    let root = scratch("krm-outside");
    let outside = root.join("outside");
    let inside = root.join("inside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&inside).unwrap();
    copy_files(&repo_root().join(EXAMPLE), &inside, str::to_string);
    std::fs::write(
        outside.join("secret.yaml"),
        r"apiVersion: v1
kind: Secret
metadata: {name: stolen, namespace: x}
stringData: {token: hunter2}
",
    )
    .unwrap();
    let list = |path: &str, extra: &str| {
        format!(
            r#"apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
functionConfig:
  apiVersion: render.ome-render.io/v1alpha1
  kind: OmeRender
  metadata: {{name: render}}
  spec:
    paths: ["{path}"]
{extra}"#
        )
    };
    let absolute = outside.to_string_lossy().into_owned();
    for path in ["../outside", absolute.as_str()] {
        let out = run_in(&inside, &["-q", "krm"], &[], Some(&list(path, "")));
        assert_eq!(out.code, 1, "{path}: {}", out.stdout);
        assert!(!out.stdout.contains("hunter2"), "{}", out.stdout);
        assert!(
            out.stdout.contains("leads outside the current directory"),
            "{}",
            out.stdout
        );
    }
    let allowed = run_in(
        &inside,
        &["-q", "krm"],
        &[],
        Some(&list(
            "../outside",
            "    loadRestrictor: LoadRestrictionsNone\n",
        )),
    );
    assert_eq!(allowed.code, 0, "{}", allowed.stdout);
    assert!(allowed.stdout.contains("stolen"), "{}", allowed.stdout);
    let _ = std::fs::remove_dir_all(&root);
}

/// `--check PATH` reads the committed render without following a link and only from regular
/// files: a committed render replaced by a link to a secret is an error that quotes nothing
/// of it (not the "stale" side of a diff), and `/dev/zero` is refused, not read until memory
/// runs out.
#[test]
fn check_reads_no_link_and_no_device() {
    let dir = scratch("check-link");
    let secret = dir.join("secret.env");
    std::fs::write(&secret, "TOKEN=hunter2-secret-value\n").unwrap();
    let committed = dir.join("rendered.yaml");
    std::os::unix::fs::symlink(&secret, &committed).unwrap();
    let rendered_dir = dir.join("rendered");
    std::fs::create_dir_all(&rendered_dir).unwrap();
    std::os::unix::fs::symlink(&secret, rendered_dir.join("a.yaml")).unwrap();
    for check in [
        committed.to_string_lossy().into_owned(),
        "/dev/zero".to_string(),
    ] {
        let out = run(&["-q", "--check", &check, EXAMPLE]);
        assert_eq!(out.code, 2, "{check}: {}", out.stderr);
        assert!(!out.stdout.contains("hunter2"), "{}", out.stdout);
        assert!(!out.stderr.contains("hunter2"), "{}", out.stderr);
        assert!(out.stderr.contains("regular files only"), "{}", out.stderr);
    }
    // Inside a committed directory a link stays an unexpected file, never read.
    let out = run(&["-q", "--check", &rendered_dir.to_string_lossy(), EXAMPLE]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!out.stdout.contains("hunter2"), "{}", out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}
