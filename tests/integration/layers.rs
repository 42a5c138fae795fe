//! The layers of ARCHITECTURE.md, enforced: a module may use only modules at or below its
//! own layer. The libraries (`k8s`, `yaml`, `source`, `diagnostics`, `merge`, `rendered`) sit
//! beneath the stages; the stages run load → model → admission → catalog → inherit → select →
//! render → emit, and `diff` compares two renders; `inspect`, `pipeline`, `cli` and `commands`
//! sit on top. And
//! no file imports a file that imports it back (directly or through others).

use crate::support::repo_root;
use std::path::Path;

/// Every top-level module of `src/`, lowest first. A new module gets a place here.
const LAYERS: &[&str] = &[
    "k8s",
    "yaml",
    "go",
    "source",
    "diagnostics",
    "merge",
    "rendered",
    "textdiff",
    "drawing",
    "modelmeta",
    "load",
    "model",
    "revision",
    "admission",
    "catalog",
    "inherit",
    "select",
    "render",
    "emit",
    "diff",
    "inspect",
    "pipeline",
    "cli",
    "commands",
    "fuzzing",
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|m| *m == module)
}

/// The `.rs` files under `dir`, with the top-level module each belongs to.
fn sources(dir: &Path, top: Option<&str>, out: &mut Vec<(String, std::path::PathBuf)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("src is readable")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path
            .file_stem()
            .and_then(|n| n.to_str())
            .expect("UTF-8 names")
            .to_string();
        let module = top.map_or(name.clone(), str::to_string);
        if path.is_dir() {
            sources(&path, Some(&module), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((module, path));
        }
    }
}

/// The modules `line` names as `crate::<module>`.
fn uses(line: &str) -> Vec<&str> {
    line.match_indices("crate::")
        .filter(|(i, _)| !line[..*i].ends_with('$'))
        .map(|(i, m)| {
            let rest = &line[i + m.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

#[test]
fn no_module_uses_one_above_it() {
    let mut files = Vec::new();
    sources(&repo_root().join("src"), None, &mut files);
    let mut problems = Vec::new();
    for (module, path) in &files {
        if matches!(module.as_str(), "lib" | "main" | "bin") {
            continue;
        }
        let Some(own) = rank(module) else {
            problems.push(format!(
                "{}: module `{module}` has no place in LAYERS",
                path.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(path).expect("source is readable");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for used in uses(code) {
                match rank(used) {
                    Some(r) if r > own => problems.push(format!(
                        "{}:{}: `{module}` uses `{used}`, a layer above it",
                        path.display(),
                        n + 1
                    )),
                    _ => {}
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_upward_uses() {
    assert_eq!(
        uses("use crate::render::Rendered; crate::emit::sort(x)"),
        ["render", "emit"]
    );
    assert!(uses("$crate::yaml::Map::new()").is_empty());
    assert!(rank("select") < rank("render"));
}

/// A file's module path: `a/b.rs` is `a::b`, `a/mod.rs` is `a`, `lib.rs` the crate.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|l| matches!(l.as_str(), "mod" | "lib" | "main"))
    {
        parts.pop();
    }
    parts
}

/// The paths `code` names from `crate::`, `super::` or `self::`, as absolute module paths,
/// groups (`a::{b, c::d}`) expanded.
fn paths(code: &str, me: &[String]) -> Vec<Vec<String>> {
    fn ident(s: &str) -> usize {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    }
    /// The path at `s` after `prefix`: segments, then maybe a group; pushes each into `out`.
    fn walk(s: &str, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        let mut rest = s;
        while let Some(after) = rest.strip_prefix("::") {
            let after = after.trim_start();
            if let Some(group) = after.strip_prefix('{') {
                // Split the group's items at its own commas.
                let (mut depth, mut start) = (0usize, 0usize);
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => {
                            walk_item(&group[start..i], &path, out);
                            return;
                        }
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            walk_item(&group[start..i], &path, out);
                            start = i + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            let n = ident(after);
            if n == 0 {
                break;
            }
            path.push(after[..n].to_string());
            rest = &after[n..];
        }
        out.push(path);
    }
    fn walk_item(item: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let item = item.trim();
        let n = ident(item);
        if n == 0 || &item[..n] == "self" {
            return;
        }
        let mut path = prefix.to_vec();
        path.push(item[..n].to_string());
        walk(&item[n..], path, out);
    }
    let mut out = Vec::new();
    for (kind, base) in [
        ("crate", Vec::new()),
        ("super", me[..me.len().saturating_sub(1)].to_vec()),
        ("self", me.to_vec()),
    ] {
        for (i, _) in code.match_indices(kind) {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let rest = &code[i + kind.len()..];
            if rest.starts_with("::") {
                walk(rest, base.clone(), &mut out);
            }
        }
    }
    out
}

/// The file-level import graph of `src/` (binaries aside): for each file, the files whose
/// modules it names. A file's trailing `#[cfg(test)] mod tests` block and comment lines are
/// left out.
fn file_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let src = repo_root().join("src");
    let mut files = Vec::new();
    sources(&src, None, &mut files);
    let files: Vec<String> = files
        .into_iter()
        .map(|(_, p)| {
            p.strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .into_owned()
        })
        .filter(|f| !f.starts_with("bin/"))
        .collect();
    let by_module: std::collections::BTreeMap<Vec<String>, String> = files
        .iter()
        .map(|f| (module_of(Path::new(f)), f.clone()))
        .collect();
    let mut graph = std::collections::BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(src.join(f)).expect("source is readable");
        let text = match text.find("\n#[cfg(test)]\nmod tests {") {
            Some(cut) => &text[..cut],
            None => &text[..],
        };
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let me = module_of(Path::new(f));
        let mut targets = std::collections::BTreeSet::new();
        for path in paths(&code, &me) {
            let target = (1..=path.len())
                .rev()
                .find_map(|n| by_module.get(&path[..n]));
            if let Some(t) = target.filter(|t| *t != f) {
                targets.insert(t.clone());
            }
        }
        graph.insert(f.clone(), targets);
    }
    graph
}

/// The circles of `graph`: each set of two or more files that reach one another, except a
/// folder's `mod.rs` and one child of it (a tie Rust's modules make by design).
fn circles(
    graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Vec<Vec<String>> {
    let reach = |from: &String| {
        let mut seen = std::collections::BTreeSet::new();
        let mut todo = vec![from];
        while let Some(f) = todo.pop() {
            for t in &graph[f] {
                if seen.insert(t.clone()) {
                    todo.push(t);
                }
            }
        }
        seen
    };
    let reached: std::collections::BTreeMap<&String, _> =
        graph.keys().map(|f| (f, reach(f))).collect();
    let mut done = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for f in graph.keys() {
        if done.contains(f) || !reached[f].contains(f) {
            continue;
        }
        let circle: Vec<String> = graph
            .keys()
            .filter(|g| reached[f].contains(*g) && reached[*g].contains(f))
            .cloned()
            .collect();
        done.extend(circle.iter().cloned());
        let folder = |x: &String| Path::new(x).parent().map(Path::to_path_buf);
        let mods: Vec<&String> = circle.iter().filter(|x| x.ends_with("mod.rs")).collect();
        let parent_and_child = circle.len() == 2
            && mods.len() == 1
            && circle
                .iter()
                .all(|x| folder(x).unwrap().starts_with(folder(mods[0]).unwrap()));
        if !parent_and_child {
            out.push(circle);
        }
    }
    out
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let found = circles(&file_graph());
    assert!(
        found.is_empty(),
        "file-level import circles (split a file or move what both need beneath them):\n{}",
        found
            .iter()
            .map(|c| c.join(" <-> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_file_graph_sees_paths_groups_and_circles() {
    let me = module_of(Path::new("load/objects.rs"));
    assert_eq!(me, ["load", "objects"]);
    assert_eq!(module_of(Path::new("load/mod.rs")), ["load"]);
    let seen = paths(
        "use super::discover::Input; use crate::yaml::{Node, parse::{a, b}}; $crate::x::y",
        &me,
    );
    let seen: Vec<String> = seen.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        seen,
        [
            "yaml::Node",
            "yaml::parse::a",
            "yaml::parse::b",
            "load::discover::Input"
        ]
    );
    let graph = |edges: &[(&str, &str)]| {
        let mut g = std::collections::BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string())
                .or_insert_with(std::collections::BTreeSet::new)
                .insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(
        circles(&graph(&[("a/x.rs", "a/y.rs"), ("a/y.rs", "a/x.rs")])),
        [["a/x.rs", "a/y.rs"]]
    );
    assert!(circles(&graph(&[("a/mod.rs", "a/y.rs"), ("a/y.rs", "a/mod.rs")])).is_empty());
    assert!(circles(&graph(&[("a/x.rs", "a/y.rs")])).is_empty());
}
