//! The layers of ARCHITECTURE.md, enforced: a module may use only modules at or below its
//! own layer. The libraries (`k8s`, `yaml`, `source`, `diagnostics`, `merge`, `rendered`) sit
//! beneath the stages; the stages run load → model → catalog → inherit → select → render →
//! emit, and `diff` compares two renders; `pipeline`, `cli` and `commands` sit on top.

use crate::support::repo_root;
use std::path::Path;

/// Every top-level module of `src/`, lowest first. A new module gets a place here.
const LAYERS: &[&str] = &[
    "k8s",
    "yaml",
    "source",
    "diagnostics",
    "merge",
    "rendered",
    "textdiff",
    "modelmeta",
    "load",
    "model",
    "revision",
    "catalog",
    "inherit",
    "select",
    "render",
    "emit",
    "diff",
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
