//! The bad-input catalogue: every directory under `testdata/bad/` is one input with one thing
//! wrong. Each must exit 1 (or 2 for usage), print nothing on standard output, name the file
//! and, where there is one, the line; its standard error is compared with a reviewed
//! snapshot (`integration__bad__<case>.snap`).
//!
//! A case is its input files plus an optional `case` file of `key: value` lines:
//!
//! - `args:` the arguments, `{}` standing for the case's directory (default: `{}`);
//! - `stdin:` a file of the case whose bytes go to standard input;
//! - `generate:` an input too large or too special to commit (a FIFO, a sparse file, a map
//!   of 100,001 keys), made by [`generate`] in a scratch copy of the case;
//! - `tail:` keep only the last N lines of standard error in the snapshot (for a case that
//!   prints a thousand diagnostics);
//! - `unlocated:` why the problem has no line (an input that holds nothing): the file or
//!   directory must still be named;
//! - `usage:` why a usage error (exit 2) names no file: a flag's value is wrong;
//! - `stdout: results` for the KRM function, which answers on standard output with a
//!   ResourceList of no items and the error in its `results` (kept in the snapshot);
//! - `#` lines say what is wrong.
//!
//! Each case runs with `-q` (before its arguments): notes are not what a case checks.
//!
//! Adding a case is adding a directory (and reviewing its new snapshot).

use crate::support::{repo_root, run_bytes, scratch};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The `case` file's keys and values.
fn case_file(dir: &Path) -> BTreeMap<String, String> {
    let Ok(text) = fs::read_to_string(dir.join("case")) else {
        return BTreeMap::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l
                .split_once(':')
                .unwrap_or_else(|| panic!("{}: `{l}` is not `key: value`", dir.display()));
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect()
}

/// Makes the input a `generate:` line names, in `dir`.
fn generate(what: &str, dir: &Path) {
    let write = |name: &str, text: String| fs::write(dir.join(name), text).expect("write");
    match what {
        // A named pipe: reading it would wait for a writer forever.
        "fifo" => {
            let status = std::process::Command::new("mkfifo")
                .arg(dir.join("pipe.yaml"))
                .status()
                .expect("mkfifo runs");
            assert!(status.success());
        }
        // 64 MiB and one byte, sparse: refused before a byte is read.
        "file-bytes" => {
            let f = fs::File::create(dir.join("big.yaml")).expect("create");
            f.set_len((64 << 20) + 1).expect("set_len");
        }
        "documents" => write("many.yaml", "---\n{}\n".repeat(200_001)),
        "keys" => {
            let mut text =
                String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: wide}\ndata:\n");
            for i in 0..100_001 {
                text.push_str(&format!("  k{i}: v\n"));
            }
            write("keys.yaml", text);
        }
        // 25,000 nested block sequences: `- - - … x` (overflowed a worker's stack once).
        "deep-sequences" => write("deep.yaml", format!("{}x\n", "- ".repeat(25_000))),
        // Minified JSON with the error past column 65,535 (panicked in the renderer once).
        "wide-json" => {
            let items: Vec<String> = (0..1000)
                .map(|i| format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}"}},"data":{{"k":"{}"}}}}"#, "x".repeat(50)))
                .collect();
            write(
                "list.json",
                format!(
                    r#"{{"apiVersion":"v1","kind":"List","items":[{},{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{}}}}]}}"#,
                    items.join(",")
                ),
            );
        }
        // 120 nested anchors around 9,000 scalars, and no alias.
        "nested-anchors" => {
            let mut text = String::from(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: anchors}\ndata:\n  a: ",
            );
            for i in 0..120 {
                text.push_str(&format!("&a{i} [x, "));
            }
            text.push_str(&vec!["x"; 9000].join(", "));
            text.push_str(&"]".repeat(120));
            text.push('\n');
            write("anchors.yaml", text);
        }
        // More errors than the `diagnostics` limit prints.
        "diagnostics" => write(
            "nameless.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n---\n".repeat(1005),
        ),
        other => panic!("no generator `{other}`"),
    }
}

struct Case {
    name: String,
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    tail: Option<usize>,
    /// The problem has no line to name.
    unlocated: bool,
    /// A usage error: about a flag, not a file.
    usage: bool,
    /// Standard output is a KRM ResourceList holding the results.
    krm_results: bool,
    /// The scratch directory, to write as `<scratch>` in the snapshot.
    scratch: Option<PathBuf>,
}

fn load_case(dir: &Path) -> Case {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let keys = case_file(dir);
    for k in keys.keys() {
        assert!(
            [
                "args",
                "stdin",
                "generate",
                "tail",
                "unlocated",
                "usage",
                "stdout"
            ]
            .contains(&k.as_str()),
            "{name}: unknown key `{k}` in its case file"
        );
    }
    let rel = Path::new("testdata/bad").join(&name);
    let (input, scratch_dir) = match keys.get("generate") {
        Some(what) => {
            let s = scratch(&format!("bad-{name}"));
            for entry in fs::read_dir(dir).unwrap() {
                let entry = entry.unwrap();
                if entry.file_name() != "case" {
                    fs::copy(entry.path(), s.join(entry.file_name())).unwrap();
                }
            }
            generate(what, &s);
            let rel = s.strip_prefix(repo_root()).unwrap().to_path_buf();
            (rel.clone(), Some(rel))
        }
        None => (rel, None),
    };
    let input_str = input.to_string_lossy().into_owned();
    let args = keys
        .get("args")
        .map_or("{}", String::as_str)
        .split_whitespace()
        .map(|a| a.replace("{}", &input_str))
        .collect();
    Case {
        stdin: keys
            .get("stdin")
            .map(|f| fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{name}: {f}: {e}"))),
        tail: keys.get("tail").map(|n| n.parse().expect("tail: a number")),
        unlocated: keys.contains_key("unlocated"),
        usage: keys.contains_key("usage"),
        krm_results: match keys.get("stdout").map(String::as_str) {
            None => false,
            Some("results") => true,
            Some(other) => panic!("{name}: `stdout: {other}` (only `results`)"),
        },
        name,
        args,
        scratch: scratch_dir,
    }
}

/// Runs one case, checks the contract, and returns the text its snapshot holds.
fn run_case(case: &Case) -> String {
    // `-q`: notes (which settings apply) are not what a case checks.
    let args: Vec<&str> = std::iter::once("-q")
        .chain(case.args.iter().map(String::as_str))
        .collect();
    let out = run_bytes(&args, &[], case.stdin.as_deref());
    let name = &case.name;
    assert!(
        out.code == 1 || out.code == 2,
        "{name}: exit {} (a bad input exits 1, bad usage 2)\n{}",
        out.code,
        out.stderr
    );
    if case.krm_results {
        // The KRM function's answer: no item, the error among the results.
        assert!(
            out.stdout.contains("\nitems: []\n")
                && out.stdout.contains("\nresults:\n")
                && out.stdout.contains("severity: error"),
            "{name}: a ResourceList of results only\n{}",
            out.stdout
        );
    } else {
        assert_eq!(out.stdout, "", "{name}: nothing on standard output");
    }
    // The file is named: the last argument (the case's directory, or a path given), or
    // standard input.
    let last = case.args.last().map_or("", String::as_str);
    // The KRM function reads standard input without a `-`.
    let named = if last == "-" || last == "krm" {
        "<stdin>"
    } else {
        last
    };
    if case.usage {
        assert_eq!(out.code, 2, "{name}: a usage error exits 2");
    } else {
        assert!(
            out.stderr.contains(named),
            "{name}: standard error names {named}\n{}",
            out.stderr
        );
    }
    if out.code == 1 && !case.unlocated {
        // An input error points at a file, line and column: `[path:line:col]`.
        let located = out.stderr.lines().any(|l| {
            l.split_once(&format!("[{named}"))
                .and_then(|(_, rest)| rest.split_once(']'))
                .is_some_and(|(loc, _)| {
                    let parts: Vec<&str> = loc.rsplitn(3, ':').collect();
                    parts.len() == 3 && parts[..2].iter().all(|p| p.parse::<u32>().is_ok())
                })
        });
        assert!(located, "{name}: no [file:line:col]\n{}", out.stderr);
    }
    if out.code == 1 {
        assert!(
            out.stderr.contains("nothing was written"),
            "{name}\n{}",
            out.stderr
        );
    }
    let mut stderr = out.stderr.clone();
    if let Some(s) = &case.scratch {
        stderr = stderr.replace(&*s.to_string_lossy(), "<scratch>");
    }
    if let Some(n) = case.tail {
        let lines: Vec<&str> = stderr.lines().collect();
        let cut = lines.len().saturating_sub(n);
        stderr = format!("[{cut} lines]\n{}\n", lines[cut..].join("\n"));
    }
    let mut args = case.args.join(" ");
    if let Some(s) = &case.scratch {
        args = args.replace(&*s.to_string_lossy(), "<scratch>");
    }
    let stdout = if case.krm_results {
        format!("--- stdout\n{}", out.stdout)
    } else {
        String::new()
    };
    format!(
        "args: {args}{}\nexit: {}\n{stdout}--- stderr\n{stderr}",
        if case.stdin.is_some() { " < stdin" } else { "" },
        out.code
    )
}

#[test]
fn every_bad_input_exits_non_zero_naming_file_and_line() {
    let root = repo_root().join("testdata/bad");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .expect("testdata/bad")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 80, "the catalogue has {} cases", dirs.len());
    let mut failed = Vec::new();
    for dir in &dirs {
        let case = load_case(dir);
        let result = std::panic::catch_unwind(|| {
            let text = run_case(&case);
            insta::assert_snapshot!(case.name.replace('-', "_"), text);
        });
        if result.is_err() {
            failed.push(case.name.clone());
        }
        if let Some(s) = &case.scratch {
            let _ = fs::remove_dir_all(repo_root().join(s));
        }
    }
    assert!(failed.is_empty(), "failing cases: {failed:?}");
}
