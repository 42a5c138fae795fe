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
        ("device", "ome-render.yaml"),
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
            "device" => {
                // /dev/null's numbers; making a device node needs CAP_MKNOD, which a
                // container may not grant: then the case is said skipped.
                let made = std::process::Command::new("mknod")
                    .args([at.as_os_str(), "c".as_ref(), "1".as_ref(), "3".as_ref()])
                    .status()
                    .is_ok_and(|s| s.success());
                if !made {
                    #[allow(clippy::print_stderr)]
                    {
                        eprintln!("skipped the device case: mknod is not permitted here");
                    }
                    let _ = std::fs::remove_dir_all(&dir);
                    let _ = std::fs::remove_file(&secret);
                    continue;
                }
            }
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
        let why = match case {
            "fifo" => "it is a FIFO, not a regular file",
            "device" => "it is a character device, not a regular file",
            _ => "symbolic link",
        };
        assert!(out.stderr.contains(why), "{case}: {}", out.stderr);
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

/// A `model-config` annotation that leaves the directory being rendered, lexically or
/// through a link inside it, gets one message whether or not something is at its end: the
/// standard error of a run is byte for byte the same (no existence oracle).
#[test]
fn a_model_config_outside_the_tree_answers_the_same_whether_it_exists_or_not() {
    let root = scratch("model-config-oracle");
    let repo = root.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let model = |target: &str| {
        std::fs::write(
            repo.join("model.yaml"),
            format!(
                r"apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: m
  annotations:
    ome-render.io/model-config: {target}
spec:
  storage:
    storageUri: hf://a/b
"
            ),
        )
        .unwrap();
    };
    let snapshot = repo_root().join("testdata/model-config/annotated/snapshots/qwen2-0.5b");
    let elsewhere = root.join("elsewhere");
    let run_repo = || run(&["--keep-ome", &repo.to_string_lossy()]);
    for target in ["../elsewhere", "./link", "./link/config.json"] {
        model(target);
        let _ = std::fs::remove_file(repo.join("link"));
        std::os::unix::fs::symlink(&elsewhere, repo.join("link")).unwrap();
        let _ = std::fs::remove_dir_all(&elsewhere);
        let missing = run_repo();
        std::fs::create_dir_all(&elsewhere).unwrap();
        copy_files(&snapshot, &elsewhere, str::to_string);
        let existing = run_repo();
        assert_eq!((missing.code, existing.code), (1, 1), "{target}");
        assert_eq!(missing.stderr, existing.stderr, "{target}");
        assert!(existing.stdout.is_empty());
        assert!(
            existing
                .stderr
                .contains(&format!("the snapshot {target} is outside")),
            "{}",
            existing.stderr
        );
    }
    // Inside the tree, the snapshot's own file a link out of it: the same refusal, which
    // names no target, whether the target exists or not.
    model("./snap");
    std::fs::create_dir_all(repo.join("snap")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("config.json"), repo.join("snap/config.json"))
        .unwrap();
    let _ = std::fs::remove_dir_all(&elsewhere);
    let missing = run_repo();
    std::fs::create_dir_all(&elsewhere).unwrap();
    copy_files(&snapshot, &elsewhere, str::to_string);
    let existing = run_repo();
    assert_eq!((missing.code, existing.code), (1, 1));
    assert_eq!(missing.stderr, existing.stderr);
    assert!(
        existing.stderr.contains("it leads outside the snapshot"),
        "{}",
        existing.stderr
    );
    assert!(
        !existing.stderr.contains("elsewhere"),
        "{}",
        existing.stderr
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The settings or lock file reached through a linked directory inside the tree is not a
/// file of the tree: the walk skips the link and the fenced open refuses it (here the
/// `-o` staging and output are checked elsewhere; this is the read side of a linked
/// `ome-revisions/`).
#[test]
fn a_revision_behind_a_linked_directory_is_not_read() {
    let root = scratch("revisions-link-read");
    let repo = root.join("repo");
    let outside = root.join("outside");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let example = repo_root().join("examples/inheritance-pins");
    copy_files(&example, &repo, str::to_string);
    copy_files(&example.join("ome-revisions"), &outside, str::to_string);
    std::os::unix::fs::symlink(&outside, repo.join("ome-revisions")).unwrap();
    let out = run(&["-q", &repo.to_string_lossy()]);
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&root);
}

/// `pin` with `ome-revisions/` a link to a directory outside the tree writes nothing there:
/// the run stops naming the link.
#[test]
fn pin_writes_nothing_through_a_linked_revisions_directory() {
    let root = scratch("revisions-link-write");
    let repo = root.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    copy_files(
        &repo_root().join("examples/inheritance-pins"),
        &repo,
        str::to_string,
    );
    let _ = std::fs::remove_file(repo.join("ome-render.lock"));
    let outside = root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, repo.join("ome-revisions")).unwrap();
    let out = run(&["pin", &repo.to_string_lossy()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("ome-revisions"), "{}", out.stderr);
    assert!(out.stderr.contains("symbolic link"), "{}", out.stderr);
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert!(!repo.join("ome-render.lock").exists());
    let _ = std::fs::remove_dir_all(&root);
}

/// `-o FILE` stages its file under a name nobody can plant a link at: links at the old name
/// `.<name>.ome-render-new-<pid>` (for the next thousands of process ids) and at guessed
/// names are not followed, their target is unchanged, and the output is written.
#[test]
fn a_link_planted_at_a_staging_name_is_not_written_through() {
    let root = scratch("staging-link");
    let victim = root.join("victim.txt");
    std::fs::write(&victim, "untouched\n").unwrap();
    let out_dir = root.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let next = std::process::Command::new("true")
        .spawn()
        .map(|mut c| {
            let id = c.id();
            let _ = c.wait();
            id
        })
        .unwrap();
    for pid in next..next + 3000 {
        std::os::unix::fs::symlink(
            &victim,
            out_dir.join(format!(".all.yaml.ome-render-new-{pid}")),
        )
        .unwrap();
    }
    std::os::unix::fs::symlink(&victim, out_dir.join(".all.yaml.ome-render-new-0")).unwrap();
    let target = out_dir.join("all.yaml");
    let out = run(&["-q", "-o", &target.to_string_lossy(), EXAMPLE]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched\n");
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(written.contains("kind: "), "{written}");
    assert!(
        !std::fs::symlink_metadata(&target)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let _ = std::fs::remove_dir_all(&root);
}
