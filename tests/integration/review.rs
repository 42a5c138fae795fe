//! Review 2 (#32): the pull-request report answers exactly. Each test reproduces one defect a
//! reviewer met: a pinned InferenceService shown as changed, impact credited to a runtime a
//! service no longer uses, a pull request that repairs a broken base failing, the Flux check
//! under Argo CD and its position, and the drawn impact.

use crate::support::{copy_files, edit, repo_root, run, scratch};
use std::fs;
use std::path::{Path, PathBuf};

fn text(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Two copies of an example: `base` as it is, `head` for the test to edit.
fn two_copies(name: &str, example: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let (base, head) = (dir.join("base"), dir.join("head"));
    for side in [&base, &head] {
        fs::create_dir_all(side).expect("side directory");
        copy_files(&repo_root().join(example), side, str::to_string);
    }
    // The pins example keeps its revisions in a folder of their own.
    let revisions = repo_root().join(example).join("ome-revisions");
    if revisions.is_dir() {
        for side in [&base, &head] {
            fs::create_dir_all(side.join("ome-revisions")).expect("revisions directory");
            copy_files(&revisions, &side.join("ome-revisions"), str::to_string);
        }
    }
    (base, head)
}

#[test]
fn a_pinned_service_is_not_changed_by_the_runtime_it_is_pinned_away_from() {
    let (base, head) = two_copies("review-pinned", "examples/inheritance-pins");
    edit(&head.join("profile.yaml"), "periodSeconds: 60", "periodSeconds: 30");
    // team-a/chat is pinned by ome-render.lock: the base renders it from the live runtime
    // (which still hashes to the pin), the head from the revision. Same content, same bytes.
    let out = run(&["-q", "diff", "--exit-code", &text(&base), &text(&head)]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stdout.contains("differences in 1 InferenceService "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("team-a/batch"), "{}", out.stdout);
    assert!(!out.stdout.contains("team-a/chat"), "{}", out.stdout);
    // A committed render of the base is still current for the pinned service: `--check`
    // of the head against it shows one change, batch's probe.
    let committed = base.parent().expect("scratch").join("committed.yaml");
    let rendered = run(&["-q", &text(&base)]);
    assert_eq!(rendered.code, 0, "{}", rendered.stderr);
    fs::write(&committed, &rendered.stdout).expect("committed render");
    let check = run(&["-q", "--check", &text(&committed), &text(&head)]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert_eq!(check.stdout.matches("\n@@ ").count(), 1, "{}", check.stdout);
    assert!(
        check.stdout.contains("\n-          periodSeconds: 60\n+          periodSeconds: 30\n"),
        "{}",
        check.stdout
    );
}

#[test]
fn a_runtime_that_lost_its_service_does_not_reach_it() {
    let (base, head) = two_copies("review-takeover", "examples/llama-demo");
    // A runtime of higher priority takes the InferenceService over, and the old one is
    // edited in the same change: only the new one reaches it.
    let runtime = fs::read_to_string(head.join("runtime.yaml")).expect("runtime");
    let newer = runtime
        .replace("name: sglang-llama-3-2-3b\n", "name: sglang-llama-3-2-3b-next\n")
        .replace("priority: 1", "priority: 2");
    fs::write(head.join("runtime-next.yaml"), newer).expect("new runtime");
    edit(&head.join("runtime.yaml"), "--mem-frac=0.9", "--mem-frac=0.8");
    let out = run(&["-q", "diff", &text(&base), &text(&head)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "  ServingRuntime/llama-demo/sglang-llama-3-2-3b-next added: reaches 1 InferenceService\n"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(
            "  ServingRuntime/llama-demo/sglang-llama-3-2-3b changed: reaches no InferenceService\n"
        ),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("because: ServingRuntime/llama-demo/sglang-llama-3-2-3b changed"),
        "{}",
        out.stdout
    );
    // Removed, it is credited to what it used in the base.
    fs::remove_file(head.join("isvc.yaml")).expect("remove the service");
    let out = run(&["-q", "diff", &text(&base), &text(&head)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "  ServingRuntime/llama-demo/sglang-llama-3-2-3b changed: reaches 1 InferenceService\n"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_pull_request_that_repairs_the_base_is_compared_with_nothing() {
    let (base, head) = two_copies("review-repair", "examples/llama-demo");
    edit(&base.join("isvc.yaml"), "minReplicas: 1", "minReplicas: one");
    let out = run(&["-q", "diff", &text(&base), &text(&head)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.starts_with("base: "), "{}", out.stderr);
    assert!(
        out.stdout.contains(
            "\nthe base does not render, so every object of the head is shown as added; its first errors:\n  "
        ),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("isvc.yaml:11: "), "{}", out.stdout);
    assert!(
        out.stdout.contains("7 objects: 7 added, 0 removed, 0 changed"),
        "{}",
        out.stdout
    );
    let md = run(&["-q", "diff", "--format", "markdown", &text(&base), &text(&head)]);
    assert!(md.stdout.contains("> [!WARNING]\n> the base does not render"), "{}", md.stdout);
    let json = run(&["-q", "diff", "--format", "json", &text(&base), &text(&head)]);
    assert!(json.stdout.contains("\"baseErrors\":["), "{}", json.stdout);
    let exit = run(&["-q", "diff", "--exit-code", &text(&base), &text(&head)]);
    assert_eq!(exit.code, 3, "{}", exit.stderr);
    // A failing head still fails, and prints nothing.
    let broken_head = run(&["-q", "diff", &text(&head), &text(&base)]);
    assert_eq!(broken_head.code, 1, "{}", broken_head.stderr);
    assert!(broken_head.stdout.is_empty(), "{}", broken_head.stdout);
}
