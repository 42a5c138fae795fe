//! Review 2 (#32): the pull-request report answers exactly. Each test reproduces one defect a
//! reviewer met: a pinned InferenceService shown as changed, impact credited to a runtime a
//! service no longer uses, a pull request that repairs a broken base failing, the Flux check
//! under Argo CD and its position, and the drawn impact.

use crate::support::{commit_all, copy_files, edit, example_repo, repo_root, run, run_in, scratch};
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
    edit(
        &head.join("profile.yaml"),
        "periodSeconds: 60",
        "periodSeconds: 30",
    );
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
        check
            .stdout
            .contains("\n-          periodSeconds: 60\n+          periodSeconds: 30\n"),
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
        .replace(
            "name: sglang-llama-3-2-3b\n",
            "name: sglang-llama-3-2-3b-next\n",
        )
        .replace("priority: 1", "priority: 2");
    fs::write(head.join("runtime-next.yaml"), newer).expect("new runtime");
    edit(
        &head.join("runtime.yaml"),
        "--mem-frac=0.9",
        "--mem-frac=0.8",
    );
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
        !out.stdout
            .contains("because: ServingRuntime/llama-demo/sglang-llama-3-2-3b changed"),
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
    edit(
        &base.join("isvc.yaml"),
        "minReplicas: 1",
        "minReplicas: one",
    );
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
        out.stdout
            .contains("7 objects: 7 added, 0 removed, 0 changed"),
        "{}",
        out.stdout
    );
    let md = run(&[
        "-q",
        "diff",
        "--format",
        "markdown",
        &text(&base),
        &text(&head),
    ]);
    assert!(
        md.stdout
            .contains("> [!WARNING]\n> the base does not render"),
        "{}",
        md.stdout
    );
    let json = run(&["-q", "diff", "--format", "json", &text(&base), &text(&head)]);
    assert!(json.stdout.contains("\"baseErrors\":["), "{}", json.stdout);
    let exit = run(&["-q", "diff", "--exit-code", &text(&base), &text(&head)]);
    assert_eq!(exit.code, 3, "{}", exit.stderr);
    // A failing head still fails, and prints nothing.
    let broken_head = run(&["-q", "diff", &text(&head), &text(&base)]);
    assert_eq!(broken_head.code, 1, "{}", broken_head.stderr);
    assert!(broken_head.stdout.is_empty(), "{}", broken_head.stdout);
}

#[test]
fn the_report_names_both_commits_and_the_working_tree_only_when_dirty() {
    let root = scratch("review-labels");
    let repo = root.join("repo");
    fs::create_dir_all(&repo).expect("repository");
    let base = example_repo(&repo);
    edit(
        &repo.join("llama-demo/runtime.yaml"),
        "--mem-frac=0.9",
        "--mem-frac=0.8",
    );
    let head = commit_all(&repo, "head");
    let title = |out: &crate::support::Output| out.stdout.lines().next().unwrap_or("").to_string();
    // A clean checkout: HEAD~1 and HEAD, both by commit.
    let clean = run_in(
        &repo,
        &["-q", "diff", "--base-ref", "HEAD~1", "llama-demo"],
        &[],
        None,
    );
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(
        title(&clean).starts_with(&format!(
            "ome-render diff HEAD~1 ({}) → HEAD ({}):",
            &base[..7],
            &head[..7]
        )),
        "{}",
        clean.stdout
    );
    let md = run_in(
        &repo,
        &[
            "-q",
            "diff",
            "--format",
            "markdown",
            "--base-ref",
            "HEAD~1",
            "llama-demo",
        ],
        &[],
        None,
    );
    assert!(
        md.stdout.starts_with(&format!(
            "### ome-render diff <code>HEAD&#126;1 &#40;{}&#41;</code> → <code>HEAD &#40;{}&#41;</code>",
            &base[..7],
            &head[..7]
        )),
        "{}",
        md.stdout
    );
    // A change outside the rendered paths leaves the head clean.
    fs::write(repo.join("notes.txt"), "elsewhere\n").expect("untracked file elsewhere");
    let elsewhere = run_in(
        &repo,
        &["-q", "diff", "--base-ref", "HEAD~1", "llama-demo"],
        &[],
        None,
    );
    assert!(
        title(&elsewhere).contains(&format!("→ HEAD ({}):", &head[..7])),
        "{}",
        elsewhere.stdout
    );
    // An untracked file among them makes it the working tree.
    fs::write(
        repo.join("llama-demo/extra.yaml"),
        r"apiVersion: v1
kind: Namespace
metadata: {name: extra}
",
    )
    .expect("untracked file");
    let dirty = run_in(
        &repo,
        &["-q", "diff", "--base-ref", "HEAD~1", "llama-demo"],
        &[],
        None,
    );
    assert!(
        title(&dirty).contains(&format!("→ working tree (on {}):", &head[..7])),
        "{}",
        dirty.stdout
    );
}

/// Runs `scripts/action.py STEP` with `env`; the runner's summary file is `summary`.
fn action(step: &str, env: &[(&str, &str)], summary: &Path) -> std::process::Output {
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(repo_root().join("scripts/action.py"))
        .arg(step)
        .current_dir(repo_root())
        .env("GITHUB_STEP_SUMMARY", summary)
        .env_remove("GITHUB_OUTPUT")
        .env_remove("INPUT_BINARY")
        .env_remove("INPUT_VERSION")
        .env_remove("OME_RENDER")
        .env_remove("INPUT_BASE_REF");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("python3 runs the action")
}

/// One way the action fails: its step, environment, and what its one error line says.
type Failure<'a> = (&'a str, Vec<(&'a str, String)>, &'a str);

#[test]
fn the_action_fails_in_one_line_never_a_traceback() {
    let dir = scratch("review-action-failures");
    let missing = dir.join("no-such-ome-render");
    let cases: [Failure<'_>; 3] = [
        // The binary given does not exist.
        (
            "install",
            vec![("INPUT_BINARY", text(&missing))],
            "obtaining ome-render failed",
        ),
        // ome-render cannot be started.
        (
            "diff",
            vec![
                ("OME_RENDER", text(&missing)),
                ("INPUT_BASE_REF", "HEAD".to_string()),
            ],
            "the diff failed",
        ),
        // The event file is no JSON.
        (
            "diff",
            vec![("GITHUB_EVENT_PATH", text(&repo_root().join("Cargo.toml")))],
            "the diff failed",
        ),
    ];
    for (i, (step, env, said)) in cases.iter().enumerate() {
        let summary = dir.join(format!("summary-{i}.md"));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let out = action(step, &env, &summary);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
        assert!(!stderr.contains("Traceback"), "{stderr}");
        let errors: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("::error"))
            .collect();
        assert_eq!(errors.len(), 1, "{stdout}");
        assert!(
            errors[0].starts_with(&format!("::error title=ome-render::{said}: ")),
            "{}",
            errors[0]
        );
        let written = fs::read_to_string(&summary).expect("the job summary");
        assert!(
            written.starts_with(&format!("### ome-render: {said}\n")),
            "{written}"
        );
    }
}

#[test]
fn the_flux_check_is_off_under_the_argo_cd_plugin() {
    let (_, dir) = two_copies("review-argocd-flux", "examples/llama-demo");
    edit(
        &dir.join("runtime.yaml"),
        "--mem-frac=0.9",
        "--mem-frac=${MEM_FRAC}",
    );
    let dir = text(&dir);
    // A plain render warns, and fails under --strict.
    let plain = run(&["--strict", &dir]);
    assert_eq!(plain.code, 1, "{}", plain.stderr);
    assert!(
        plain.stderr.contains("ome::output::flux-substitution"),
        "{}",
        plain.stderr
    );
    // Argo CD never substitutes: its plugin, strict as deploy/argocd/application.yaml sets it,
    // renders without the check.
    let plugin = crate::support::run_with(
        &[&dir],
        &[
            ("ARGOCD_APP_NAME", "llama-demo"),
            ("ARGOCD_APP_NAMESPACE", "llama-demo"),
            ("PARAM_STRICT", "true"),
        ],
        None,
    );
    assert_eq!(plugin.code, 0, "{}", plugin.stderr);
    assert!(
        !plugin.stderr.contains("flux-substitution"),
        "{}",
        plugin.stderr
    );
    assert!(
        plugin.stdout.contains("--mem-frac=${MEM_FRAC}"),
        "{}",
        plugin.stdout
    );
}

/// An edge of a parsed graph: from label, to label, dashed.
type Edge = (String, String, bool);

/// A Mermaid flowchart of the subset ome-render writes, read strictly: `flowchart LR`, node
/// statements `ID["label"]` or `ID(["label"])`, edges `ID --> ID` or `ID -.-> ID` between
/// declared nodes; a label holds letters, digits, ` /._:-()` and `#N;` references only.
/// Returns the labels by id and the edges (from label, to label, dashed).
fn parse_mermaid(text: &str) -> (Vec<(String, String)>, Vec<Edge>) {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("flowchart LR"), "{text}");
    let id_ok = |id: &str| {
        id == "more"
            || (id.starts_with('n') && id.len() > 1 && id[1..].bytes().all(|b| b.is_ascii_digit()))
    };
    let label_ok = |label: &str| {
        let mut rest = label;
        while let Some(c) = rest.chars().next() {
            if c == '#' {
                let end = rest
                    .find(';')
                    .unwrap_or_else(|| panic!("unclosed reference: {label}"));
                assert!(
                    end > 1 && rest[1..end].bytes().all(|b| b.is_ascii_digit()),
                    "bad reference in {label}"
                );
                rest = &rest[end + 1..];
            } else {
                assert!(
                    c.is_ascii_alphanumeric() || " /._:-()".contains(c),
                    "character {c:?} in label {label}"
                );
                rest = &rest[c.len_utf8()..];
            }
        }
        true
    };
    let mut nodes: Vec<(String, String)> = Vec::new();
    let mut edges = Vec::new();
    for line in lines {
        let line = line
            .strip_prefix("  ")
            .unwrap_or_else(|| panic!("indented statement: {line:?}"));
        if !line.contains('[')
            && let Some((from, rest)) = line.split_once(' ')
        {
            let (arrow, to) = rest
                .split_once(' ')
                .unwrap_or_else(|| panic!("edge: {line}"));
            let dashed = match arrow {
                "-->" => false,
                "-.->" => true,
                _ => panic!("arrow {arrow:?} in {line}"),
            };
            let label = |id: &str| {
                nodes
                    .iter()
                    .find(|(i, _)| i == id)
                    .map(|(_, l)| l.clone())
                    .unwrap_or_else(|| panic!("edge to an undeclared node: {line}"))
            };
            edges.push((label(from), label(to), dashed));
            continue;
        }
        let at = line
            .find("([")
            .or_else(|| line.find('['))
            .unwrap_or_else(|| panic!("statement: {line}"));
        let (id, shape) = line.split_at(at);

        assert!(id_ok(id), "node id {id:?}");
        let label = shape
            .strip_prefix("([\"")
            .and_then(|l| l.strip_suffix("\"])"))
            .or_else(|| {
                shape
                    .strip_prefix("[\"")
                    .and_then(|l| l.strip_suffix("\"]"))
            })
            .unwrap_or_else(|| panic!("node shape: {line}"));
        assert!(label_ok(label));
        assert!(!nodes.iter().any(|(i, _)| i == id), "{id} declared twice");
        nodes.push((id.to_string(), label.to_string()));
    }
    (nodes, edges)
}

/// The ```mermaid block of a Markdown report.
fn mermaid_block(markdown: &str) -> Option<&str> {
    let start = markdown.find("```mermaid\n")? + "```mermaid\n".len();
    let end = start + markdown[start..].find("```\n")?;
    Some(&markdown[start..end])
}

#[test]
fn the_impact_is_drawn_as_a_mermaid_graph_left_out_first_when_room_is_short() {
    let (base, head) = two_copies("review-graph", "examples/llama-demo");
    edit(
        &head.join("runtime.yaml"),
        "--mem-frac=0.9",
        "--mem-frac=0.8",
    );
    let args = ["-q", "diff", "--format", "markdown"];
    let out = run(&[&args[..], &[&text(&base), &text(&head)]].concat());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let graph = mermaid_block(&out.stdout).unwrap_or_else(|| panic!("{}", out.stdout));
    let (nodes, edges) = parse_mermaid(graph);
    assert_eq!(nodes.len(), 2, "{graph}");
    assert_eq!(
        edges,
        vec![(
            "ServingRuntime/llama-demo/sglang-llama-3-2-3b (changed)".to_string(),
            "InferenceService llama-demo/llama-3-2-3b-instruct".to_string(),
            false
        )]
    );
    // Exactly the room of the whole report: all of it.
    let max = format!("--max-bytes={}", out.stdout.len());
    let whole = run(&[&args[..], &[&max, &text(&base), &text(&head)]].concat());
    assert_eq!(whole.stdout, out.stdout);
    // One byte short: the graph is the first thing left out, and the note says so.
    let size = out.stdout.len() - 1;
    let max = format!("--max-bytes={size}");
    let short = run(&[&args[..], &[&max, &text(&base), &text(&head)]].concat());
    assert_eq!(short.code, 0, "{}", short.stderr);
    assert!(mermaid_block(&short.stdout).is_none(), "{}", short.stdout);
    assert!(
        short.stdout.contains("left out the impact graph"),
        "{}",
        short.stdout
    );
    assert!(short.stdout.len() <= size, "{}", short.stdout.len());
}

#[test]
fn tree_draws_the_inheritance_tree_as_mermaid_and_dot() {
    let example = repo_root().join("examples/inheritance-pins");
    let tree = |format: &str| {
        let out = run(&[
            "-q",
            "tree",
            "--format",
            format,
            "--isvc",
            "team-a/batch",
            &text(&example),
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let (nodes, edges) = parse_mermaid(&tree("mermaid"));
    assert!(
        nodes
            .iter()
            .any(|(_, l)| l == "InferenceService/team-a/batch"),
        "{nodes:?}"
    );
    assert!(!edges.is_empty(), "{nodes:?}");
    // Graphviz reads the DOT (installed by scripts/install-test-tools.sh).
    let dot = tree("dot");
    let found = std::process::Command::new("dot").arg("-V").output();
    if found.is_err() {
        crate::support::skip_or_fail(
            "tree_draws_the_inheritance_tree_as_mermaid_and_dot",
            "Graphviz's dot is not on PATH; run scripts/install-test-tools.sh",
        );
        return;
    }
    let mut child = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dot runs");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), dot.as_bytes())
        .expect("dot reads");
    let out = child.wait_with_output().expect("dot ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{stderr}\n{dot}");
    let svg = String::from_utf8_lossy(&out.stdout);
    assert!(
        svg.contains("InferenceService/team&#45;a/batch")
            || svg.contains("InferenceService/team-a/batch"),
        "{svg}"
    );
    assert_eq!(
        svg.matches("class=\"edge\"").count(),
        edges.len(),
        "the same edges: {dot}"
    );
}

#[test]
fn the_readme_shows_the_markdown_report_as_it_is() {
    const START: &str = "<!-- report example: written by tests/integration/review.rs, which fails when it drifts (OME_RENDER_BLESS=1 rewrites it) -->\n";
    const END: &str = "<!-- report example end -->\n";
    let (base, head) = two_copies("readme-report", "examples/llama-demo");
    edit(
        &head.join("runtime.yaml"),
        "--mem-frac=0.9",
        "--mem-frac=0.85",
    );
    let dir = base.parent().expect("scratch");
    let out = run_in(
        dir,
        &["-q", "diff", "--format", "markdown", "base", "head"],
        &[],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("```mermaid\n"), "{}", out.stdout);
    let readme_path = repo_root().join("README.md");
    let readme = fs::read_to_string(&readme_path).expect("README.md");
    let start = readme.find(START).expect("the example's start marker") + START.len();
    let end = start + readme[start..].find(END).expect("the example's end marker");
    let wanted = format!("\n{}", out.stdout);
    if readme[start..end] != wanted {
        if std::env::var_os("OME_RENDER_BLESS").is_some() {
            let updated = format!("{}{wanted}{}", &readme[..start], &readme[end..]);
            fs::write(&readme_path, updated).expect("README.md written");
        } else {
            panic!(
                "README.md's report example differs from what ome-render writes; run `OME_RENDER_BLESS=1 cargo test --test integration the_readme_shows` and review:\n{wanted}"
            );
        }
    }
}
