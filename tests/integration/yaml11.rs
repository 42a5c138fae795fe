//! Output read back by a YAML 1.1 reader keeps its strings (SEMANTICS.md#choice-yaml).
//!
//! kubectl reads manifests with YAML 1.1 rules, where unquoted `yes`, `on`, `NO` are
//! booleans, `0755` is octal and `~` is null. PyYAML implements the same rules, so the test
//! feeds it the rendered stream (PyYAML: `scripts/install-test-tools.sh` installs it).

use crate::support::{needs, python_tools, run, scratch};
use std::process::Command;

const TRICKY: &[&str] = &[
    "yes",
    "Yes",
    "YES",
    "no",
    "NO",
    "on",
    "On",
    "off",
    "y",
    "n",
    "true",
    "False",
    "~",
    "null",
    "Null",
    "",
    "0755",
    "0o17",
    "0x1F",
    "1e3",
    "1.0e+3",
    "1.10",
    "10",
    "-1",
    ".5",
    ".inf",
    "-.Inf",
    ".nan",
    "1:20",
    "2024-01-01",
    "1_000",
    "=",
    "<<",
    "30Gi",
    "--host=0.0.0.0",
    "a: b",
    "#x",
    "- x",
    "multi\nline\n",
];

#[test]
fn strings_survive_a_yaml_1_1_reader() {
    needs!(Python);
    let dir = scratch("yaml11");
    let mut data = String::new();
    for (i, s) in TRICKY.iter().enumerate() {
        // JSON is YAML: the input spells each value as an unambiguous string.
        let quoted = s
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n");
        data.push_str(&format!(
            "\"k{i}\": \"{quoted}\", \"{quoted}\": \"key{i}\", "
        ));
    }
    let input = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"tricky\", \"namespace\": \"a\"}}, \"data\": {{{}}}}}",
        data.trim_end_matches([',', ' '])
    );
    std::fs::write(dir.join("cm.json"), input).unwrap();
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);

    let script = r#"
import sys, json, yaml
doc = yaml.safe_load(sys.stdin.read())
print(json.dumps(doc["data"], sort_keys=True))
"#;
    let py = Command::new(python_tools().join("python3"))
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    use std::io::Write;
    py.stdin
        .as_ref()
        .expect("stdin")
        .write_all(out.stdout.as_bytes())
        .unwrap();
    let result = py.wait_with_output().unwrap();
    assert!(
        result.status.success(),
        "PyYAML could not read the output:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let parsed = String::from_utf8(result.stdout).unwrap();
    for (i, s) in TRICKY.iter().enumerate() {
        let value = serde_like_json_string(s);
        assert!(
            parsed.contains(&format!("\"k{i}\": {value}")),
            "value {s:?} did not stay a string: {parsed}"
        );
        assert!(
            parsed.contains(&format!("{value}: \"key{i}\"")),
            "key {s:?} did not stay a string: {parsed}"
        );
    }
}

/// How Python's `json.dumps` writes a string.
fn serde_like_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Keys longer than the 1,024 characters a YAML reader takes in `key: value` are written as
/// explicit `? key` entries, which PyYAML reads back (found by fuzzing: the output did not
/// parse).
#[test]
fn keys_past_1024_characters_survive_a_yaml_1_1_reader() {
    needs!(Python);
    let dir = scratch("yaml11-long-keys");
    let plain = "k".repeat(1500);
    let quoted = format!("yes {}", "#".repeat(1500));
    let input = format!(
        r#"apiVersion: v1
kind: ConfigMap
metadata: {{name: long, namespace: a}}
data:
  ? {plain}
  : v1
  ? "{quoted}"
  : v2
spec:
  list:
    - ? {plain}
      : [a, b]
    - ? {plain}
      : {{x: y}}
"#
    );
    std::fs::write(dir.join("cm.yaml"), input).unwrap();
    let out = run(&[dir.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains(&format!("  ? {plain}\n  : v1\n")),
        "{}",
        out.stdout
    );
    let script = r#"
import sys, json, yaml
doc = yaml.safe_load(sys.stdin.read())
print(json.dumps([doc["data"], doc["spec"]], sort_keys=True))
"#;
    let py = Command::new(python_tools().join("python3"))
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    use std::io::Write;
    py.stdin
        .as_ref()
        .expect("stdin")
        .write_all(out.stdout.as_bytes())
        .unwrap();
    let result = py.wait_with_output().unwrap();
    assert!(
        result.status.success(),
        "PyYAML could not read the output:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let parsed = String::from_utf8(result.stdout).unwrap();
    let want = format!(
        "[{{\"{plain}\": \"v1\", \"{quoted}\": \"v2\"}}, {{\"list\": [{{\"{plain}\": [\"a\", \"b\"]}}, {{\"{plain}\": {{\"x\": \"y\"}}}}]}}]\n"
    );
    assert_eq!(parsed, want);
}
