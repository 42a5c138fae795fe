//! `ome-render pin` on a copy of `examples/inheritance-pins`: the lock round trip (pin →
//! render → the same workloads), `--advance` moving exactly one entry, and the lock written
//! by `pin` only.

use crate::support::{copy_files, repo_root, run, scratch};
use std::fs;
use std::path::Path;

const EXAMPLE: &str = "examples/inheritance-pins";

/// A copy of the example without its lock and revisions.
fn unpinned(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    copy_files(&repo_root().join(EXAMPLE), &dir, str::to_string);
    let _ = fs::remove_file(dir.join("ome-render.lock"));
    dir
}

fn render(dir: &Path) -> String {
    let out = run(&["-q", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

/// The rendered documents other than ControllerRevisions.
fn workloads(stream: &str) -> Vec<&str> {
    stream
        .split("---\n")
        .filter(|d| !d.starts_with("apiVersion: apps/v1\nkind: ControllerRevision"))
        .collect()
}

fn lock_entries(dir: &Path) -> Vec<String> {
    let text = fs::read_to_string(dir.join("ome-render.lock")).unwrap();
    text.split("\n- ").skip(1).map(str::to_string).collect()
}

#[test]
fn pin_then_render_gives_the_same_workloads() {
    let dir = unpinned("pin-round-trip");
    let before = render(&dir);
    let out = run(&["pin", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("pinned team-a/chat to cr-sglang-llama-3b-7a12180a"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
    // The lock and the revision are the example's, byte for byte.
    assert_eq!(
        fs::read(dir.join("ome-render.lock")).unwrap(),
        fs::read(repo_root().join(EXAMPLE).join("ome-render.lock")).unwrap()
    );
    let rev = "ome-revisions/cr-sglang-llama-3b-7a12180a.yaml";
    assert_eq!(
        fs::read(dir.join(rev)).unwrap(),
        fs::read(repo_root().join(EXAMPLE).join(rev)).unwrap()
    );
    let after = render(&dir);
    assert_eq!(workloads(&before), workloads(&after));
    assert!(after.contains(
        r"kind: ControllerRevision
metadata:
  name: cr-sglang-llama-3b-7a12180a
  namespace: ome
"
    ));
    // A second run changes nothing.
    let out = run(&["pin", dir.to_str().unwrap()]);
    assert!(
        out.stderr.contains("ome-render.lock is up to date (1 pin)"),
        "{}",
        out.stderr
    );
    assert_eq!(render(&dir), after);
}

#[test]
fn advance_moves_exactly_one_pin() {
    let dir = unpinned("pin-advance");
    // Two pins on the same runtime.
    let isvcs = fs::read_to_string(dir.join("isvcs.yaml")).unwrap();
    let second = isvcs[..isvcs.find("---").unwrap()].replace("name: chat\n", "name: chat-2\n");
    fs::write(dir.join("isvcs.yaml"), format!("{isvcs}---\n{second}")).unwrap();
    assert_eq!(run(&["pin", dir.to_str().unwrap()]).code, 0);
    let before = lock_entries(&dir);
    assert_eq!(before.len(), 2);
    assert!(
        before
            .iter()
            .all(|e| e.contains("cr-sglang-llama-3b-7a12180a"))
    );
    // The profile changes: both pins drift, the render stays on the snapshot.
    let profile = fs::read_to_string(dir.join("profile.yaml")).unwrap();
    fs::write(
        dir.join("profile.yaml"),
        profile.replace("v0.5.5.post3", "v0.5.6"),
    )
    .unwrap();
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr.matches("live spec differs").count(),
        2,
        "{}",
        out.stderr
    );
    assert_eq!(
        out.stdout.matches("sglang:v0.5.6-").count(),
        1,
        "only batch follows the profile"
    );
    // `pin` alone keeps drifted pins.
    let out = run(&["pin", dir.to_str().unwrap()]);
    assert!(out.stderr.contains("kept team-a/chat on cr-sglang-llama-3b-7a12180a: the runtime changed (engineConfig.runner.image)"), "{}", out.stderr);
    assert_eq!(lock_entries(&dir), before);
    // `--advance` moves one.
    let out = run(&["pin", "--advance", "team-a/chat", dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let after = lock_entries(&dir);
    let changed: Vec<usize> = (0..2).filter(|i| before[*i] != after[*i]).collect();
    assert_eq!(changed.len(), 1, "{after:?}");
    assert!(after[changed[0]].starts_with("inferenceService: team-a/chat\n"));
    assert!(!after[changed[0]].contains("7a12180a"));
    // The old revision is still used by chat-2: kept; the new one is written.
    let revisions: Vec<String> = fs::read_dir(dir.join("ome-revisions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(revisions.len(), 2, "{revisions:?}");
    // Advancing the other one too leaves the old revision unused: it is removed.
    let out = run(&["pin", "--advance", "team-a/chat-2", dir.to_str().unwrap()]);
    assert!(
        out.stderr
            .contains("cr-sglang-llama-3b-7a12180a.yaml (no pin uses it)"),
        "{}",
        out.stderr
    );
    assert!(
        !dir.join("ome-revisions/cr-sglang-llama-3b-7a12180a.yaml")
            .exists()
    );
    let out = run(&[dir.to_str().unwrap()]);
    assert!(!out.stderr.contains("ome::pin::drift"), "{}", out.stderr);
}

#[test]
fn only_pin_writes_the_lock_and_it_fails_closed() {
    let dir = unpinned("pin-fail-closed");
    for args in [
        vec!["-q", dir.to_str().unwrap()],
        vec!["check", dir.to_str().unwrap()],
        vec!["tree", "sglang-profile", dir.to_str().unwrap()],
        vec![
            "explain",
            "--effective",
            "--isvc",
            "team-a/chat",
            dir.to_str().unwrap(),
        ],
    ] {
        assert_eq!(run(&args).code, 0);
        assert!(
            !dir.join("ome-render.lock").exists(),
            "{args:?} wrote the lock"
        );
    }
    // An unrecorded managed pin: check --strict requires pins to be recorded.
    let out = run(&["check", "--strict", dir.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("error[ome::pin::unrecorded]"),
        "{}",
        out.stderr
    );
    // --advance of something that is not a managed pin writes nothing.
    let out = run(&["pin", "--advance", "team-a/batch", dir.to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("action refused: InferenceService team-a/batch is not a managed pin"),
        "{}",
        out.stderr
    );
    assert!(!dir.join("ome-render.lock").exists());
    // A runtime that can't be resolved for a new pin writes nothing either.
    let runtimes = fs::read_to_string(dir.join("runtimes.yaml")).unwrap();
    fs::write(
        dir.join("runtimes.yaml"),
        runtimes.replace("name: sglang-llama-3b\n", "name: renamed\n"),
    )
    .unwrap();
    let out = run(&["pin", dir.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(!dir.join("ome-render.lock").exists());
    assert!(
        !dir.join("ome-revisions")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some())
    );
    // Standard input has no place to write a lock.
    let out = run(&["pin", "-"]);
    assert_eq!(out.code, 2);
}
