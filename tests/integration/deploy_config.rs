//! `--deploy-config`: OME's ConfigMap `inferenceservice-config` read as OME's controller reads
//! it (SEMANTICS.md#deploy-config), against the same settings written in `ome-render.yaml`.

use crate::support::{run, scratch};

const RESOURCES: &str = "testdata/deploy-config/resources.yaml";
const CONFIG_MAP: &str = "testdata/deploy-config/cluster/config-map.yaml";
const SETTINGS: &str = "testdata/deploy-config/settings-form/ome-render.yaml";

/// The issue's "done when": OME's ConfigMap and the same settings in ome-render.yaml's form
/// render the same objects, with the ConfigMap's grace period and replica bounds.
#[test]
fn the_config_map_and_the_settings_file_render_the_same() {
    let from_map = run(&[RESOURCES, "--deploy-config", CONFIG_MAP]);
    let from_file = run(&[RESOURCES, "--settings", SETTINGS]);
    assert_eq!(from_map.code, 0, "{}", from_map.stderr);
    assert_eq!(from_file.code, 0, "{}", from_file.stderr);
    assert_eq!(from_map.stdout, from_file.stdout);
    for line in [
        "terminationGracePeriodSeconds: 45",
        "minReplicas: 2",
        "maxReplicas: 6",
    ] {
        assert!(
            from_map.stdout.contains(line),
            "{line}:\n{}",
            from_map.stdout
        );
    }
    // The chart's values are not what renders: 600 seconds, 1..3 replicas.
    assert!(
        !from_map
            .stdout
            .contains("terminationGracePeriodSeconds: 600")
    );
    assert!(
        !from_map.stderr.contains("omeAgent"),
        "omeAgent is passed over silently: {}",
        from_map.stderr
    );
}

/// A ConfigMap with `deploy` alone: OME's code has no budget and creates ingress, so the
/// ConfigMap's cluster gets no PDB and no external Service, where the chart's values give both.
#[test]
fn keys_left_out_of_the_config_map_are_what_omes_code_holds() {
    let dir = scratch("deploy-config-deploy-only");
    let path = dir.join("cm.yaml");
    std::fs::write(
        &path,
        config_map(
            r#"{"defaultDeploymentMode": "RawDeployment", "terminationGracePeriodSeconds": 45}"#,
        ),
    )
    .unwrap();
    let out = run(&[RESOURCES, "--deploy-config", path.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("terminationGracePeriodSeconds: 45"));
    assert!(
        !out.stdout.contains("kind: PodDisruptionBudget"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("component: external-service"),
        "{}",
        out.stdout
    );
    // No replica defaults: the engine's HPA gets OME's own 1..1.
    assert!(
        out.stdout.contains("minReplicas: 1\n  maxReplicas: 1\n"),
        "{}",
        out.stdout
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn config_map(deploy: &str) -> String {
    format!(
        r"apiVersion: v1
kind: ConfigMap
metadata:
  name: inferenceservice-config
  namespace: ome
data:
  deploy: |
    {deploy}
"
    )
}

/// Each ConfigMap OME's controller refuses: exit 1, nothing on stdout, OME's message with the
/// file and line.
#[test]
fn config_maps_ome_refuses_fail_with_omes_messages() {
    let dir = scratch("deploy-config-refused");
    let cases: &[(&str, String, &str)] = &[
        (
            "min-zero",
            config_map(
                r#"{"defaultDeploymentMode": "RawDeployment", "replicas": {"defaultMinReplicas": 0}}"#,
            ),
            "invalid deploy config, replicas.defaultMinReplicas must be > 0, got 0",
        ),
        (
            "max-negative",
            config_map(
                r#"{"defaultDeploymentMode": "RawDeployment", "replicas": {"defaultMaxReplicas": {"router": -1}}}"#,
            ),
            "invalid deploy config, replicas.defaultMaxReplicas.router must be > 0, got -1",
        ),
        (
            "no-mode",
            config_map(r#"{"terminationGracePeriodSeconds": 45}"#),
            "invalid deploy config, defaultDeploymentMode is required",
        ),
        (
            "other-mode",
            config_map(r#"{"defaultDeploymentMode": "OMENative"}"#),
            "invalid deployment mode. Supported default mode is RawDeployment",
        ),
        (
            "grace-zero",
            config_map(
                r#"{"defaultDeploymentMode": "RawDeployment", "terminationGracePeriodSeconds": 0}"#,
            ),
            "invalid deploy config, terminationGracePeriodSeconds must be > 0, got 0",
        ),
        (
            "min-ready-negative",
            config_map(r#"{"defaultDeploymentMode": "RawDeployment", "minReadySeconds": -5}"#),
            "invalid deploy config, minReadySeconds must be >= 0, got -5",
        ),
        (
            "strategy-type",
            config_map(
                r#"{"defaultDeploymentMode": "RawDeployment", "updateStrategy": {"engine": {"type": "Rolling"}}}"#,
            ),
            r#"invalid deploy config, updateStrategy.engine.type "Rolling" is not a supported update strategy"#,
        ),
        (
            "strategy-zero",
            config_map(
                r#"{"defaultDeploymentMode": "RawDeployment", "updateStrategy": {"router": {"maxSurge": "0%"}}}"#,
            ),
            "invalid deploy config, updateStrategy.router.maxSurge must be > 0",
        ),
        (
            "quoted-number",
            config_map(
                r#"{"defaultDeploymentMode": "RawDeployment", "replicas": {"defaultMinReplicas": "2"}}"#,
            ),
            "unable to parse deploy config json",
        ),
        (
            "not-json",
            config_map(r#"{"defaultDeploymentMode": "RawDeployment""#),
            "unable to parse deploy config json",
        ),
        (
            "budget-both",
            r#"apiVersion: v1
kind: ConfigMap
metadata: {name: inferenceservice-config}
data:
  podDisruptionBudget: '{"rawDeployment": {"minAvailable": 1, "maxUnavailable": 1}}'
"#
            .to_string(),
            "exactly one of podDisruptionBudget.rawDeployment.minAvailable or podDisruptionBudget.rawDeployment.maxUnavailable must be set",
        ),
        (
            "budget-unknown",
            r#"apiVersion: v1
kind: ConfigMap
metadata: {name: inferenceservice-config}
data:
  podDisruptionBudget: '{"rawDeployment": {"maxUnavailabel": 1}}'
"#
            .to_string(),
            "unable to parse \"podDisruptionBudget\" config json: json: unknown field \"maxUnavailabel\"",
        ),
        (
            "provider-address",
            r#"apiVersion: v1
kind: ConfigMap
metadata: {name: inferenceservice-config}
data:
  metricProviders: '{"prom": {}}'
"#
            .to_string(),
            "metric provider \"prom\" has no serverAddress",
        ),
        (
            "wrong-name",
            r"apiVersion: v1
kind: ConfigMap
metadata: {name: ome-config}
data: {}
"
            .to_string(),
            "deploy defaults: ConfigMap is named \"ome-config\", want \"inferenceservice-config\"",
        ),
        (
            "wrong-kind",
            r"apiVersion: v1
kind: Secret
metadata: {name: inferenceservice-config}
"
            .to_string(),
            "deploy defaults: manifest is v1 Secret, want v1 ConfigMap",
        ),
        (
            "two-objects",
            format!(
                "{}---\n{}",
                config_map(r#"{"defaultDeploymentMode": "RawDeployment"}"#),
                config_map(r#"{"defaultDeploymentMode": "RawDeployment"}"#)
            ),
            "deploy defaults: manifest must hold exactly one object",
        ),
        (
            "empty",
            "# nothing\n".to_string(),
            "deploy defaults: manifest is empty",
        ),
    ];
    for (name, text, message) in cases {
        let path = dir.join(format!("{name}.yaml"));
        std::fs::write(&path, text).unwrap();
        let out = run(&[RESOURCES, "--deploy-config", path.to_str().unwrap()]);
        assert_eq!(out.code, 1, "{name}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{name}: nothing on stdout");
        assert!(out.stderr.contains(message), "{name}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!("{name}.yaml:")),
            "{name}: the file and line: {}",
            out.stderr
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// OME ignores a field it does not know inside a key it reads: a warning naming it (with the
/// field meant), an error under --strict; data keys OME reads for what is not rendered pass.
#[test]
fn an_unknown_field_in_a_read_key_is_a_warning() {
    let dir = scratch("deploy-config-unknown");
    let path = dir.join("cm.yaml");
    std::fs::write(
        &path,
        config_map(
            r#"{"defaultDeploymentMode": "RawDeployment", "terminationGracePeriodSecond": 45}"#,
        ),
    )
    .unwrap();
    let cm = path.to_str().unwrap();
    let out = run(&[RESOURCES, "--deploy-config", cm]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("unknown field `data.deploy.terminationGracePeriodSecond`: OME ignores it"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("did you mean `terminationGracePeriodSeconds`?"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("cm.yaml:8"),
        "the line of the field: {}",
        out.stderr
    );
    let strict = run(&[RESOURCES, "--deploy-config", cm, "--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.stderr);
    assert_eq!(strict.stdout, "");
    let _ = std::fs::remove_dir_all(&dir);
}

/// OME's settings come from one place: a settings file that sets one beside --deploy-config is
/// an error; ome-render's own settings (autoscaling, omeNamespace) stay in the file.
#[test]
fn ome_settings_in_both_places_are_an_error() {
    let dir = scratch("deploy-config-both");
    std::fs::write(
        dir.join("ome-render.yaml"),
        "deploy:\n  terminationGracePeriodSeconds: 30\n",
    )
    .unwrap();
    let out = run(&[
        RESOURCES,
        "--settings",
        dir.join("ome-render.yaml").to_str().unwrap(),
        "--deploy-config",
        CONFIG_MAP,
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "`deploy` is set in the settings file and --deploy-config gives OME's ConfigMap"
        ),
        "{}",
        out.stderr
    );
    std::fs::write(
        dir.join("ome-render.yaml"),
        "autoscaling:\n  targetUtilizationPercentage: 55\n",
    )
    .unwrap();
    let out = run(&[
        RESOURCES,
        "--settings",
        dir.join("ome-render.yaml").to_str().unwrap(),
        "--deploy-config",
        CONFIG_MAP,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("averageUtilization: 55"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("terminationGracePeriodSeconds: 45"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every settings file in the repository against `schema/ome-render.schema.json`, with the
/// real check-jsonschema: the good ones pass, the bad ones and a misspelt key are refused.
#[test]
fn the_settings_schema_validates_every_settings_file_and_refuses_a_misspelt_key() {
    crate::support::needs!(Python);
    let root = crate::support::repo_root();
    let schema = root.join("schema/ome-render.schema.json");
    let check = |file: &std::path::Path| {
        // The module, run by the environment's python (its scripts name the interpreter of
        // the directory they were installed in).
        std::process::Command::new(crate::support::python_tools().join("python"))
            .args(["-m", "check_jsonschema", "--schemafile"])
            .arg(&schema)
            .arg(file)
            .output()
            .expect("check-jsonschema runs")
    };
    let mut files = Vec::new();
    for top in ["examples", "testdata", "deploy"] {
        collect(&root.join(top), &mut files);
    }
    assert!(files.len() >= 5, "{files:?}");
    for file in &files {
        let out = check(file);
        let bad = file.to_string_lossy().contains("/testdata/bad/settings-");
        assert_eq!(
            out.status.success(),
            !bad,
            "{}: {}{}",
            file.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let dir = scratch("settings-schema");
    let misspelt = dir.join("ome-render.yaml");
    for (text, key) in [
        (
            "deploy:\n  terminationGracePeriodSecond: 45\n",
            "terminationGracePeriodSecond",
        ),
        ("ingress:\n  ingresDomain: example.org\n", "ingresDomain"),
        (
            "ingress:\n  additionalIngressGateways:\n  - omeIngresGateway: gw/public\n",
            "omeIngresGateway",
        ),
        (
            "ingress:\n  namespaceIngressGateways:\n    team-a:\n      primary: {clas: public}\n",
            "clas",
        ),
    ] {
        std::fs::write(&misspelt, text).unwrap();
        let out = check(&misspelt);
        assert!(!out.status.success(), "{text}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(key),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // Every ingress key, spelt right, passes.
    std::fs::write(
        &misspelt,
        "ingress:\n  ingressGateway: istio-system/gw\n  ingressService: gw.istio-system.svc\n  omeIngressGateway: gw/public\n  omeIngressGatewayClass: public\n  ingressDomain: example.org\n  ingressClassName: null\n  additionalIngressDomains: [example.net]\n  domainTemplate: '{{ .Name }}.{{ .IngressDomain }}'\n  urlScheme: https\n  pathTemplate: ''\n  disableIstioVirtualHost: true\n  disableIngressCreation: false\n  enableGatewayAPI: true\n  consistentHashHeaders: [x-key]\n  perISVCSubdomain: false\n  sharedHostPrefix: llm\n  additionalIngressGateways:\n  - {omeIngressGateway: gw/internal, ingressDomain: internal.example.org, class: internal}\n  defaultRouteTimeoutSeconds: 30\n  namespaceIngressGateways:\n    team-a:\n      primary: {omeIngressGateway: gw/a}\n      additional: []\n",
    )
    .unwrap();
    let out = check(&misspelt);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.file_name().is_some_and(|n| n == "ome-render.yaml") {
            out.push(path);
        }
    }
}
