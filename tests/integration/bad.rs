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
//! Adding a case is adding a directory, its row in the `cases!` table (one `#[test]` per
//! case, so `cargo test` names each failure), and reviewing its new snapshot.

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
            let mut text = String::from(
                r"apiVersion: v1
kind: ConfigMap
metadata: {name: wide}
data:
",
            );
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
                r"apiVersion: v1
kind: ConfigMap
metadata: {name: anchors}
data:
  a: ",
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
            r"apiVersion: v1
kind: ConfigMap
metadata: {}
---
"
            .repeat(1005),
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

/// Runs the case in `testdata/bad/<name>` and compares it with its snapshot.
fn check(name: &str) {
    let case = load_case(&repo_root().join("testdata/bad").join(name));
    let result = std::panic::catch_unwind(|| {
        let text = run_case(&case);
        insta::assert_snapshot!(case.name.replace('-', "_"), text);
    });
    if let Some(s) = &case.scratch {
        let _ = fs::remove_dir_all(repo_root().join(s));
    }
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// One `#[test]` per case, named as its directory (`-` written `_`), so `cargo test` names
/// every case that fails; [`every_case_directory_has_its_test`] keeps the table and
/// `testdata/bad/` the same.
macro_rules! cases {
    ($($test:ident: $dir:literal,)+) => {
        /// The case directories the table holds.
        const CASES: &[&str] = &[$($dir),+];
        /// One test per case directory.
        mod case {
            $(
                #[test]
                fn $test() {
                    super::check($dir);
                }
            )+
        }
    };
}

cases! {
    alias_anchors_only: "alias-anchors-only",
    alias_bomb_bytes: "alias-bomb-bytes",
    alias_bomb_nodes: "alias-bomb-nodes",
    annotation_key_invalid: "annotation-key-invalid",
    budget_wrong_type: "budget-wrong-type",
    class_quantity_invalid: "class-quantity-invalid",
    class_without_capabilities: "class-without-capabilities",
    component_label_invalid: "component-label-invalid",
    device_argument: "device-argument",
    dup_key_block: "dup-key-block",
    dup_key_flow: "dup-key-flow",
    dup_key_number_and_string: "dup-key-number-and-string",
    duplicate_in_list: "duplicate-in-list",
    duplicate_model: "duplicate-model",
    duplicate_objects: "duplicate-objects",
    empty_documents: "empty-documents",
    empty_input_dir: "empty-input-dir",
    fifo_argument: "fifo-argument",
    file_not_utf8: "file-not-utf8",
    isvc_min_above_max: "isvc-min-above-max",
    isvc_name_too_long: "isvc-name-too-long",
    isvc_omenative: "isvc-omenative",
    isvc_scale_to_zero_without_keda: "isvc-scale-to-zero-without-keda",
    isvc_wrong_version: "isvc-wrong-version",
    kind_unknown_ome: "kind-unknown-ome",
    kind_unknown_ome_plural: "kind-unknown-ome-plural",
    kinds_unknown: "kinds-unknown",
    krm_items_not_a_list: "krm-items-not-a-list",
    krm_not_a_resource_list: "krm-not-a-resource-list",
    krm_without_items: "krm-without-items",
    label_key_two_slashes: "label-key-two-slashes",
    label_value_invalid: "label-value-invalid",
    limit_bad_value: "limit-bad-value",
    limit_depth_alias: "limit-depth-alias",
    limit_depth_block: "limit-depth-block",
    limit_depth_flow: "limit-depth-flow",
    limit_depth_maps: "limit-depth-maps",
    limit_diagnostics: "limit-diagnostics",
    limit_documents: "limit-documents",
    limit_file_bytes: "limit-file-bytes",
    limit_keys: "limit-keys",
    merge_env_value_and_value_from: "merge-env-value-and-value-from",
    model_pvc_without_subpath: "model-pvc-without-subpath",
    model_vendor_not_a_label: "model-vendor-not-a-label",
    model_without_storage: "model-without-storage",
    name_configmap_slash: "name-configmap-slash",
    name_configmap_too_long: "name-configmap-too-long",
    name_cronjob_too_long: "name-cronjob-too-long",
    name_missing: "name-missing",
    name_namespace_not_a_label: "name-namespace-not-a-label",
    name_not_a_string: "name-not-a-string",
    name_role_dot_dot: "name-role-dot-dot",
    name_service_starts_with_digit: "name-service-starts-with-digit",
    namespace_collision: "namespace-collision",
    namespace_escape_isvc: "namespace-escape-isvc",
    namespace_not_a_string: "namespace-not-a-string",
    namespace_too_long: "namespace-too-long",
    output_escape_name: "output-escape-name",
    output_escape_namespace: "output-escape-namespace",
    output_file_inside_input: "output-file-inside-input",
    output_file_name_too_long: "output-file-name-too-long",
    output_file_names_collide: "output-file-names-collide",
    placeholder_dotted_label: "placeholder-dotted-label",
    placeholder_jinja: "placeholder-jinja",
    placeholder_storage_path: "placeholder-storage-path",
    placeholder_unknown_field: "placeholder-unknown-field",
    placeholder_unterminated: "placeholder-unterminated",
    pod_duplicate_container_names: "pod-duplicate-container-names",
    pod_duplicate_mount_path: "pod-duplicate-mount-path",
    pod_duplicate_port_names: "pod-duplicate-port-names",
    pod_duplicate_volume_names: "pod-duplicate-volume-names",
    pod_env_names: "pod-env-names",
    pod_fractional_gpu: "pod-fractional-gpu",
    pod_gpu_request_not_limit: "pod-gpu-request-not-limit",
    pod_gpu_without_limit: "pod-gpu-without-limit",
    pod_multinode_worker: "pod-multinode-worker",
    pod_negative_quantity: "pod-negative-quantity",
    pod_node_selector_long: "pod-node-selector-long",
    pod_probe_negative: "pod-probe-negative",
    pod_probe_port: "pod-probe-port",
    pod_probe_two_handlers: "pod-probe-two-handlers",
    pod_request_over_limit: "pod-request-over-limit",
    pod_router: "pod-router",
    pod_toleration_enums: "pod-toleration-enums",
    pod_undeclared_volume: "pod-undeclared-volume",
    pod_unqualified_resource: "pod-unqualified-resource",
    pod_uppercase_names: "pod-uppercase-names",
    port_int32: "port-int32",
    port_name_invalid: "port-name-invalid",
    port_not_an_integer: "port-not-an-integer",
    port_out_of_range: "port-out-of-range",
    port_protocol: "port-protocol",
    port_without_number: "port-without-number",
    quantity_decimal_unquoted: "quantity-decimal-unquoted",
    quantity_list: "quantity-list",
    quantity_suffix: "quantity-suffix",
    quantity_text: "quantity-text",
    ref_accelerator_class_missing: "ref-accelerator-class-missing",
    ref_disabled_model: "ref-disabled-model",
    ref_disabled_runtime: "ref-disabled-runtime",
    ref_model_missing: "ref-model-missing",
    ref_no_runtime: "ref-no-runtime",
    ref_revision_missing: "ref-revision-missing",
    ref_runtime_missing: "ref-runtime-missing",
    replicas_decimal: "replicas-decimal",
    replicas_int32: "replicas-int32",
    replicas_quoted_in_runtime: "replicas-quoted-in-runtime",
    runtime_inherits_missing_parent: "runtime-inherits-missing-parent",
    runtime_profile_enabled: "runtime-profile-enabled",
    settings_ome_namespace: "settings-ome-namespace",
    settings_unknown_key: "settings-unknown-key",
    settings_wrong_type: "settings-wrong-type",
    stdin_not_utf8: "stdin-not-utf8",
    symlink_only_tree: "symlink-only-tree",
    wide_json_column: "wide-json-column",
    worker_size_string: "worker-size-string",
    yaml_bad_escape: "yaml-bad-escape",
    yaml_bad_indentation: "yaml-bad-indentation",
    yaml_bad_merge: "yaml-bad-merge",
    yaml_complex_key: "yaml-complex-key",
    yaml_json_trailing_comma: "yaml-json-trailing-comma",
    yaml_mapping_in_plain: "yaml-mapping-in-plain",
    yaml_stray_bracket: "yaml-stray-bracket",
    yaml_tab_indentation: "yaml-tab-indentation",
    yaml_tagged_int: "yaml-tagged-int",
    yaml_unclosed_flow: "yaml-unclosed-flow",
    yaml_unknown_anchor: "yaml-unknown-anchor",
    yaml_unknown_tag: "yaml-unknown-tag",
    yaml_unterminated_string: "yaml-unterminated-string",
}

#[test]
fn every_case_directory_has_its_test() {
    let root = repo_root().join("testdata/bad");
    let mut dirs: Vec<String> = fs::read_dir(&root)
        .expect("testdata/bad")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 80, "the catalogue has {} cases", dirs.len());
    let listed: Vec<String> = CASES.iter().map(|c| c.to_string()).collect();
    assert_eq!(
        listed, dirs,
        "the `cases!` table of tests/integration/bad.rs lists every directory of \
         testdata/bad/, in order (a new case is a directory and its row)"
    );
}
