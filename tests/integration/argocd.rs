//! The Argo CD config management plugin's contract (`deploy/argocd/`), played without Argo
//! CD: the application directory copied read-only, the environment argocd-cmp-server sets,
//! the `generate` command of `plugin.yaml` run without a shell, in the application's
//! directory, as user 999 (when the tests run as root); standard output must be a pure YAML
//! stream of objects that `kubernetes-validate` accepts, and an error must exit non-zero
//! with the message on standard error and nothing on standard output. The sidecar patch is
//! applied with kustomize to a minimal argocd-repo-server.

use crate::support::{kustomize, needs, python_tools, repo_root, scratch};
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `plugin.yaml`'s fields the contract needs, read with PyYAML: the generate command and
/// arguments, the discovery file name, the command that announces the parameters.
struct Plugin {
    argv: Vec<String>,
    discover: String,
    parameters: Vec<String>,
}

fn python(script: &str, stdin: &str) -> String {
    let mut child = Command::new(python_tools().join("python"))
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("python reads");
    let out = child.wait_with_output().expect("python ends");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn plugin() -> Plugin {
    let text = fs::read_to_string(repo_root().join("deploy/argocd/plugin.yaml")).unwrap();
    let script = r"import sys, yaml
p = yaml.safe_load(sys.stdin)
assert p['apiVersion'] == 'argoproj.io/v1alpha1' and p['kind'] == 'ConfigManagementPlugin'
g = p['spec']['generate']
print('\t'.join(g['command'] + g.get('args', [])))
print(p['spec']['discover']['fileName'])
print('\t'.join(p['spec']['parameters']['dynamic']['command']))
assert 'static' not in p['spec']['parameters']
";
    let out = python(script, &text);
    let mut lines = out.lines();
    let mut next = || lines.next().expect("a line").to_string();
    let argv = next().split('\t').map(str::to_string).collect();
    let discover = next();
    let parameters = next().split('\t').map(str::to_string).collect();
    Plugin {
        argv,
        discover,
        parameters,
    }
}

/// An application directory, staged where Argo CD's user (999) can reach it, whoever runs
/// the tests and wherever the checkout lives (under `/root` or a `mktemp -d` directory,
/// which user 999 cannot enter): a directory of its own under the system's temporary
/// directory, open to all, holding a copy of this build's binary and the application.
/// Removed when dropped.
struct App {
    root: PathBuf,
    /// The application directory: the example, its InferenceService written without a
    /// namespace (the destination namespace applies), the plugin's marker file, all
    /// read-only.
    dir: PathBuf,
    /// This build's `ome-render`, readable and executable by all.
    bin: PathBuf,
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = fs::set_permissions(&self.dir, fs::Permissions::from_mode(0o755));
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn app(name: &str, broken: bool) -> App {
    app_with(name, broken, "terminationGracePeriodSeconds: 300\n")
}

/// [`app`] with this settings file.
fn app_with(name: &str, broken: bool, settings: &str) -> App {
    let root = std::env::temp_dir().join(format!("ome-render-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let dir = root.join("apps").join("llama-demo");
    fs::create_dir_all(&dir).unwrap();
    for open in [&root, &root.join("apps")] {
        fs::set_permissions(open, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let bin = root.join("ome-render");
    fs::copy(env!("CARGO_BIN_EXE_ome-render"), &bin).unwrap();
    fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
    crate::support::copy_files(
        &repo_root().join("examples/llama-demo"),
        &dir,
        str::to_string,
    );
    let isvc = dir.join("isvc.yaml");
    let text = fs::read_to_string(&isvc)
        .unwrap()
        .replace("  namespace: llama-demo\n", "");
    fs::write(&isvc, text).unwrap();
    fs::write(dir.join("ome-render.yaml"), settings).unwrap();
    if broken {
        fs::write(
            dir.join("broken.yaml"),
            r"apiVersion: v1
kind: [
",
        )
        .unwrap();
    }
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    }
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o555)).unwrap();
    App { root, dir, bin }
}

/// Whether this process runs as root (the CI does), read from /proc.
fn is_root() -> bool {
    fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            == Some("0")
    })
}

struct Generated {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the plugin's generate command as argocd-cmp-server does: no shell, in the
/// application's directory, with Argo CD's environment only, as user 999 (when the tests
/// run as root).
fn generate(plugin: &Plugin, app: &App) -> Generated {
    generate_with(plugin, app, &[])
}

/// [`generate`] with `extra` variables added to (or replacing) Argo CD's; an empty value
/// removes the variable.
fn generate_with(plugin: &Plugin, app: &App, extra: &[(&str, &str)]) -> Generated {
    // The image's binary is this build's.
    let program = match plugin.argv[0].as_str() {
        "/usr/local/bin/ome-render" => app.bin.clone(),
        other => panic!("plugin.yaml runs {other}, which the image does not hold"),
    };
    let dir = &app.dir;
    let revision = "f913b6cbf58aa5ae5ca1f8a2b149477aebcbd9d8";
    let mut cmd = Command::new(program);
    cmd.args(&plugin.argv[1..])
        .current_dir(dir)
        .env_clear()
        .envs([
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("HOME", "/home/argocd"),
            ("ARGOCD_APP_NAME", "llama-demo"),
            ("ARGOCD_APP_NAMESPACE", "llama-demo"),
            ("ARGOCD_APP_PROJECT_NAME", "default"),
            ("ARGOCD_APP_REVISION", revision),
            ("ARGOCD_APP_REVISION_SHORT", &revision[..7]),
            ("ARGOCD_APP_REVISION_SHORT_8", &revision[..8]),
            ("ARGOCD_APP_SOURCE_PATH", "apps/llama-demo"),
            (
                "ARGOCD_APP_SOURCE_REPO_URL",
                "https://git.example.com/platform/models.git",
            ),
            ("ARGOCD_APP_SOURCE_TARGET_REVISION", "main"),
            ("KUBE_VERSION", "1.33.0"),
            ("KUBE_API_VERSIONS", "v1,apps/v1,autoscaling/v2,policy/v1"),
            (
                "ARGOCD_APP_PARAMETERS",
                r#"[{"name":"kinds","array":["Deployment","Service","HorizontalPodAutoscaler","PodDisruptionBudget"]}]"#,
            ),
            ("PARAM_KINDS_0", "Deployment"),
            ("PARAM_KINDS_1", "Service"),
            ("PARAM_KINDS_2", "HorizontalPodAutoscaler"),
            ("PARAM_KINDS_3", "PodDisruptionBudget"),
            ("ARGOCD_ENV_STRICT", "false"),
        ]);
    for (name, value) in extra {
        if value.is_empty() {
            cmd.env_remove(name);
        } else {
            cmd.env(name, value);
        }
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if is_root() {
        cmd.uid(999).gid(999);
    }
    let out = cmd.output().expect("the generate command runs");
    Generated {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn the_plugin_announces_what_ome_render_reads_and_discovers_by_its_marker() {
    needs!(Python);
    let p = plugin();
    assert_eq!(p.argv, ["/usr/local/bin/ome-render", "render", "."]);
    assert_eq!(p.discover, "./ome-render.yaml");
    // The dynamic command, run as Argo CD runs it, announces every parameter ome-render
    // reads, each as Argo CD's parameter announcement has it (read with Python's json).
    assert_eq!(
        p.parameters,
        ["/usr/local/bin/ome-render", "argocd-parameters"]
    );
    let out = crate::support::run_with(
        &p.parameters[1..]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        &[
            ("ARGOCD_APP_NAME", "llama"),
            ("ARGOCD_APP_NAMESPACE", "team-a"),
        ],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let names = python(
        "import sys, json\nfor a in json.load(sys.stdin):\n    assert set(a) <= {'name', 'title', 'tooltip', 'string', 'collectionType', 'array'}, a\n    print(a['name'], a.get('string', a.get('collectionType')))\n",
        &out.stdout,
    );
    assert_eq!(
        names,
        "namespace team-a\nstrict false\nkinds array\ninclude array\nexclude array\ndeployConfig \ningressDomain \ningressClassName \n"
    );
    assert!(
        app("argocd-discover", false)
            .dir
            .join(&p.discover)
            .is_file()
    );
}

#[test]
fn generate_writes_a_pure_yaml_stream_of_valid_objects() {
    needs!(Python);
    let p = plugin();
    let app = app("argocd-generate", false);
    let out = generate(&p, &app);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Every document is an object: what Argo CD's manifest splitting requires.
    let kinds = python(
        r"import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    assert isinstance(d, dict) and d.get('apiVersion') and d.get('kind'), d
    print(d['kind'], d['metadata'].get('namespace', '-'))
",
        &out.stdout,
    );
    // PARAM_KINDS_* selected the kinds; the destination namespace found the namespaced
    // runtime of an InferenceService written without a namespace, which its objects keep.
    assert_eq!(
        kinds,
        "Service -\nService -\nDeployment -\nPodDisruptionBudget -\nHorizontalPodAutoscaler -\n"
    );
    // The settings file (the marker) was read.
    assert!(out.stdout.contains("terminationGracePeriodSeconds: 300"));
    let mut child = Command::new(python_tools().join("kubernetes-validate"))
        .args(["--strict", "-k", "1.33.0", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kubernetes-validate runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(out.stdout.as_bytes())
        .unwrap();
    let result = child.wait_with_output().unwrap();
    let report = String::from_utf8_lossy(&result.stdout).into_owned()
        + &String::from_utf8_lossy(&result.stderr);
    assert!(result.status.success(), "{report}");
    assert!(!report.contains("ERROR"), "{report}");
    assert_eq!(report.matches("passed for resource").count(), 5, "{report}");
}

#[test]
fn the_ingress_parameters_replace_the_settings_ingress_domain_and_class() {
    needs!(Python);
    let p = plugin();
    let app = app_with(
        "argocd-ingress",
        false,
        "ingress:\n  disableIngressCreation: false\n  ingressDomain: settings.example.com\n  ingressClassName: istio\n",
    );
    let summary = |out: &Generated| {
        assert_eq!(out.code, 0, "{}", out.stderr);
        python(
            "import sys, yaml\nfor d in yaml.safe_load_all(sys.stdin):\n    s = d['spec']\n    print(s.get('ingressClassName'), ' '.join(r['host'] for r in s['rules']))\n",
            &out.stdout,
        )
    };
    let only_ingress = [
        ("PARAM_KINDS_0", "Ingress"),
        ("PARAM_KINDS_1", ""),
        ("PARAM_KINDS_2", ""),
        ("PARAM_KINDS_3", ""),
    ];
    let settings = summary(&generate_with(&p, &app, &only_ingress));
    assert!(settings.starts_with("istio "), "{settings}");
    assert!(settings.contains(".settings.example.com"), "{settings}");
    let mut params = only_ingress.to_vec();
    params.push(("PARAM_INGRESSDOMAIN", "models.example.org"));
    params.push(("PARAM_INGRESSCLASSNAME", "nginx"));
    let overridden = summary(&generate_with(&p, &app, &params));
    assert_eq!(
        overridden,
        settings
            .replace("istio ", "nginx ")
            .replace(".settings.example.com", ".models.example.org")
    );
}

#[test]
fn without_the_destination_namespace_the_runtime_is_not_found() {
    // The test above holds because of ARGOCD_APP_NAMESPACE: outside Argo CD, the same
    // directory renders in `default`, where no runtime is.
    let app = app("argocd-no-namespace", false);
    let out = Command::new(&app.bin)
        .args(["render", "."])
        .current_dir(&app.dir)
        .env("ARGOCD_APP_NAMESPACE", "llama-demo")
        .env_remove("ARGOCD_APP_NAME")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("in namespace default"));
}

#[test]
fn an_error_exits_non_zero_with_the_message_on_stderr_and_nothing_on_stdout() {
    needs!(Python);
    let p = plugin();
    let app = app("argocd-error", true);
    let out = generate(&p, &app);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr.contains("error[ome::load::yaml]"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("broken.yaml"), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was written"), "{}", out.stderr);
}

/// The image deploy/ names: the release's, `ghcr.io/ome-render/ome-render:<version>`.
const IMAGE: &str = "ghcr.io/ome-render/ome-render";

/// `kustomize build` of a kustomization that installs a minimal argocd-repo-server with the
/// sidecar component, and `images` appended to it; the output summarised with PyYAML.
fn build_with_component(name: &str, images: &str) -> String {
    let dir = scratch(name);
    // A minimal argocd-repo-server with the two volumes the sidecar shares.
    fs::write(
        dir.join("repo-server.yaml"),
        r"apiVersion: apps/v1
kind: Deployment
metadata:
  name: argocd-repo-server
  namespace: argocd
spec:
  selector:
    matchLabels: {app.kubernetes.io/name: argocd-repo-server}
  template:
    metadata:
      labels: {app.kubernetes.io/name: argocd-repo-server}
    spec:
      containers:
      - name: argocd-repo-server
        image: quay.io/argoproj/argocd:v3.1.0
      volumes:
      - name: var-files
        emptyDir: {}
      - name: plugins
        emptyDir: {}
",
    )
    .unwrap();
    // kustomize takes a component by a relative path: scratch is target/test-scratch/NAME.
    let component = Path::new("../../../deploy/argocd");
    assert!(dir.join(component).join("kustomization.yaml").is_file());
    fs::write(
        dir.join("kustomization.yaml"),
        format!(
            "namespace: argocd\nresources: [repo-server.yaml]\ncomponents: [{}]\n{images}",
            component.display()
        ),
    )
    .unwrap();
    let out = Command::new(kustomize())
        .arg("build")
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    python(
        "import sys, yaml\nfor d in yaml.safe_load_all(sys.stdin):\n    if d['kind'] == 'ConfigMap':\n        p = yaml.safe_load(d['data']['plugin.yaml'])\n        print('configmap', d['metadata']['name'].startswith('ome-render-plugin-'), p['kind'])\n        continue\n    spec = d['spec']['template']['spec']\n    c = [c for c in spec['containers'] if c['name'] == 'ome-render'][0]\n    print('image', c['image'])\n    print('command', c['command'][0])\n    print('user', c['securityContext']['runAsUser'], c['securityContext']['runAsNonRoot'])\n    print('mounts', ' '.join(m['mountPath'] for m in c['volumeMounts']))\n    v = {x['name']: x for x in spec['volumes']}\n    print('volumes', ' '.join(sorted(v)))\n    print('plugin volume', v['ome-render-plugin']['configMap']['name'].startswith('ome-render-plugin-'))\n    print('tmp', 'emptyDir' in v['ome-render-tmp'])\n    print('images', ' '.join(c['image'] for c in spec['containers']))\n",
        &stdout,
    )
}

#[test]
fn the_sidecar_component_patches_argocd_repo_server() {
    needs!(Kustomize, Python);
    let summary = build_with_component(
        "argocd-component",
        &format!(
            "images:\n- name: {IMAGE}\n  newName: registry.example.com/mirror/ome-render\n  newTag: v9.9.9\n"
        ),
    );
    assert_eq!(
        summary,
        "configmap True ConfigManagementPlugin\n\
         image registry.example.com/mirror/ome-render:v9.9.9\n\
         command /var/run/argocd/argocd-cmp-server\n\
         user 999 True\n\
         mounts /var/run/argocd /home/argocd/cmp-server/plugins /home/argocd/cmp-server/config/plugin.yaml /tmp\n\
         volumes ome-render-plugin ome-render-tmp plugins var-files\n\
         plugin volume True\n\
         tmp True\n\
         images registry.example.com/mirror/ome-render:v9.9.9 quay.io/argoproj/argocd:v3.1.0\n"
    );
}

#[test]
fn without_images_the_sidecar_runs_the_released_image_of_this_version() {
    needs!(Kustomize, Python);
    let summary = build_with_component("argocd-component-default", "");
    let want = format!("image {IMAGE}:{}\n", env!("CARGO_PKG_VERSION"));
    assert!(summary.contains(&want), "{summary}");
    // Only the tag: the override keeps the name.
    let summary = build_with_component(
        "argocd-component-tag",
        &format!("images:\n- name: {IMAGE}\n  newTag: 0.0.1\n"),
    );
    assert!(
        summary.contains(&format!("image {IMAGE}:0.0.1\n")),
        "{summary}"
    );
}

/// The image is named in one place of deploy/ (the sidecar patch), and wherever the
/// documents name it (the README, docs/flux.md's CI job), at this version.
#[test]
fn deploy_names_the_image_once_at_this_version() {
    let version = env!("CARGO_PKG_VERSION");
    let mut in_deploy = Vec::new();
    let mut stack = vec![repo_root().join("deploy")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = fs::read_to_string(&path).unwrap_or_default();
            for line in text.lines() {
                let line = line.trim_start();
                if line.starts_with('#') {
                    continue;
                }
                if line.contains("ome-render:") && line.contains("image") || line.contains(IMAGE) {
                    in_deploy.push((path.clone(), line.to_string()));
                }
            }
        }
    }
    assert_eq!(in_deploy.len(), 1, "{in_deploy:?}");
    assert!(
        in_deploy[0]
            .0
            .ends_with("deploy/argocd/repo-server-patch.yaml")
    );
    assert_eq!(in_deploy[0].1, format!("image: {IMAGE}:{version}"));
    for doc in ["README.md", "docs/flux.md"] {
        let text = fs::read_to_string(repo_root().join(doc)).unwrap();
        let tags: Vec<&str> = text
            .match_indices(&format!("{IMAGE}:"))
            .map(|(at, m)| {
                let rest = &text[at + m.len()..];
                &rest[..rest
                    .find(|c: char| c.is_whitespace() || c == '`')
                    .unwrap_or(rest.len())]
            })
            .collect();
        assert!(!tags.is_empty(), "{doc} names the image");
        assert!(
            tags.iter().all(|t| *t == version || *t == "<version>"),
            "{doc}: {tags:?}"
        );
    }
    assert!(
        !fs::read_to_string(repo_root().join("README.md"))
            .unwrap()
            .contains("OWNER/ome-render:VERSION")
    );
}

#[test]
fn commands_run_as_argo_cds_user_on_a_read_only_copy() {
    // What `generate` relies on: as root (CI), the command runs as 999, which can read the
    // application's files but not write beside them.
    if !is_root()
        && !crate::support::skip_or_fail(
            "argocd::commands_run_as_argo_cds_user_on_a_read_only_copy",
            "runs only as root (it switches to user 999); CI runs as root",
        )
    {
        return;
    }
    let app = app("argocd-user", false);
    let dir = &app.dir;
    let run_as = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .current_dir(dir)
            .uid(999)
            .gid(999)
            .output()
            .unwrap()
    };
    let id = run_as("id", &["-u"]);
    assert_eq!(String::from_utf8_lossy(&id.stdout).trim(), "999");
    assert!(run_as("cat", &["isvc.yaml"]).status.success());
    assert!(!run_as("touch", &["new.yaml"]).status.success());
}
