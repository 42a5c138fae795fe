//! Argo CD's config management plugin environment (SEMANTICS.md#argo-cd-plugin). Argo CD
//! runs the plugin's `generate` command without a shell, so ome-render reads the plugin's
//! parameters itself:
//!
//! - `PARAM_<NAME>` (a string parameter) and `PARAM_<NAME>_<i>` (an array parameter), as
//!   Argo CD flattens the Application's `spec.source.plugin.parameters`;
//! - `ARGOCD_ENV_<NAME>` (its `spec.source.plugin.env`; lists comma-separated);
//! - `ARGOCD_APP_NAMESPACE`, the destination namespace, as the default namespace.
//!
//! for the names `namespace`, `strict`, `kinds`, `include`, `exclude`, `deployConfig`,
//! `ingressDomain` and `ingressClassName` (the last two replace the settings' `ingress` keys
//! of the same names).
//! `ome-render argocd-parameters` prints the announcement of these parameters that the
//! plugin's `parameters.dynamic` command gives Argo CD (CMP v2). Flags on the
//! command line win, then parameters, then `ARGOCD_ENV_*`. All of it only when
//! `ARGOCD_APP_NAME` is set, as Argo CD sets it for every plugin command: outside Argo CD the
//! environment changes nothing.

use crate::cli::{GlobalArgs, RenderArgs};
use std::collections::BTreeMap;

/// The parameters the plugin announces (`deploy/argocd/plugin.yaml`).
const PARAMETERS: &[&str] = &[
    "namespace",
    "strict",
    "kinds",
    "include",
    "exclude",
    "deployConfig",
    "ingressDomain",
    "ingressClassName",
];

/// Whether a parameter is a list (an array parameter, or comma-separated).
fn is_list(name: &str) -> bool {
    matches!(name, "kinds" | "include" | "exclude")
}

/// The variable Argo CD sets for every plugin command.
const APP_NAME: &str = "ARGOCD_APP_NAME";
const APP_NAMESPACE: &str = "ARGOCD_APP_NAMESPACE";

/// Whether ome-render runs as Argo CD's plugin (`ARGOCD_APP_NAME` is set).
pub(crate) fn under_plugin() -> bool {
    std::env::var_os(APP_NAME).is_some()
}

/// One parameter's value and the variable it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Value {
    items: Vec<String>,
    from: String,
}

/// What the plugin environment says, by parameter name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PluginEnv {
    values: BTreeMap<&'static str, Value>,
    app_namespace: Option<String>,
}

/// A parameter name as Argo CD escapes it into a variable name: upper case, every character
/// outside `[A-Z0-9_]` an underscore.
fn escaped(name: &str) -> String {
    name.to_uppercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

impl PluginEnv {
    /// Reads the process environment.
    pub(crate) fn read() -> PluginEnv {
        PluginEnv::from_vars(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
        )
    }

    /// Reads the plugin's variables from `vars`.
    fn from_vars(vars: impl Iterator<Item = (String, String)>) -> PluginEnv {
        let vars: BTreeMap<String, String> = vars.collect();
        let mut env = PluginEnv::default();
        if !vars.contains_key(APP_NAME) {
            return env;
        }
        env.app_namespace = vars.get(APP_NAMESPACE).filter(|v| !v.is_empty()).cloned();
        for &name in PARAMETERS {
            let param = format!("PARAM_{}", escaped(name));
            let list = is_list(name);
            // An array parameter: PARAM_<NAME>_0, _1, … in index order.
            let mut indexed: Vec<(usize, &String, &String)> = vars
                .iter()
                .filter_map(|(k, v)| {
                    let i = k.strip_prefix(&param)?.strip_prefix('_')?.parse().ok()?;
                    Some((i, k, v))
                })
                .collect();
            indexed.sort();
            let value = if list && !indexed.is_empty() {
                Some(Value {
                    items: indexed.iter().map(|(_, _, v)| (*v).clone()).collect(),
                    from: format!("{param}_*"),
                })
            } else if let Some(v) = vars.get(&param).filter(|v| !v.is_empty()) {
                Some(Value {
                    items: if list { split_list(v) } else { vec![v.clone()] },
                    from: param.clone(),
                })
            } else {
                // ARGOCD_ENV_<name> keeps the name as the Application writes it.
                vars.iter()
                    .find(|(k, v)| {
                        !v.is_empty()
                            && k.strip_prefix("ARGOCD_ENV_")
                                .is_some_and(|n| escaped(n) == escaped(name))
                    })
                    .map(|(k, v)| Value {
                        items: if list { split_list(v) } else { vec![v.clone()] },
                        from: k.clone(),
                    })
            };
            if let Some(value) = value {
                env.values.insert(name, value);
            }
        }
        env
    }

    /// The global flags with the plugin's values where the command line gives none.
    pub(crate) fn global(&self, global: &GlobalArgs) -> Result<GlobalArgs, String> {
        let mut g = global.clone();
        if g.namespace.is_none() {
            g.namespace = self
                .values
                .get("namespace")
                .and_then(|v| v.items.first().cloned())
                .or_else(|| self.app_namespace.clone());
        }
        if !g.strict
            && let Some(v) = self.values.get("strict")
        {
            let text = v.items.first().map_or("", String::as_str);
            g.strict = match text.to_ascii_lowercase().as_str() {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => {
                    return Err(format!(
                        "{}={text}: the strict parameter is `true` or `false`",
                        v.from
                    ));
                }
            };
        }
        if g.deploy_config.is_none()
            && let Some(v) = self.values.get("deployConfig")
        {
            let text = v.items.first().map_or("", String::as_str);
            let path = std::path::Path::new(text);
            // The Application's repository is untrusted input: a path inside it only.
            if path.components().any(|c| {
                !matches!(
                    c,
                    std::path::Component::Normal(_) | std::path::Component::CurDir
                )
            }) {
                return Err(format!(
                    "{}={text}: the deployConfig parameter is a path inside the Application's source directory (relative, without `..`)",
                    v.from
                ));
            }
            g.deploy_config = Some(path.to_path_buf());
        }
        for (name, slot) in [
            ("ingressDomain", &mut g.ingress.ingress_domain),
            ("ingressClassName", &mut g.ingress.ingress_class_name),
        ] {
            if slot.is_none()
                && let Some(v) = self.values.get(name)
            {
                *slot = v.items.first().cloned();
            }
        }
        for (name, slot) in [("include", &mut g.include), ("exclude", &mut g.exclude)] {
            if slot.is_empty()
                && let Some(v) = self.values.get(name)
            {
                slot.clone_from(&v.items);
            }
        }
        Ok(g)
    }

    /// The render flags with the plugin's `kinds` where the command line gives none.
    pub(crate) fn render(&self, args: &RenderArgs) -> RenderArgs {
        let mut a = args.clone();
        if a.kinds.is_empty()
            && let Some(v) = self.values.get("kinds")
        {
            a.kinds.clone_from(&v.items);
        }
        a
    }
}

/// One parameter as the plugin announces it: name, title, tooltip, and a list or a string
/// with its default.
struct Announced {
    name: &'static str,
    title: &'static str,
    tooltip: &'static str,
    default: Option<String>,
}

/// The announcement of the plugin's parameters (CMP v2 `parameters.dynamic`), a JSON list
/// as Argo CD reads it: each parameter ome-render reads from the plugin environment, its
/// string default (the namespace defaults to the Application's destination namespace).
pub(crate) fn announcement(app_namespace: Option<&str>) -> String {
    let parameters = [
        Announced {
            name: "namespace",
            title: "Namespace of objects written without one",
            tooltip: "Default: the Application's destination namespace",
            default: Some(app_namespace.unwrap_or("").to_string()),
        },
        Announced {
            name: "strict",
            title: "Treat warnings as errors (true or false)",
            tooltip: "A render with warnings fails, and Argo CD keeps what is applied",
            default: Some("false".to_string()),
        },
        Announced {
            name: "kinds",
            title: "Write only these kinds (e.g. Deployment)",
            tooltip: "Empty: every kind",
            default: None,
        },
        Announced {
            name: "include",
            title: "Read only files matching these globs",
            tooltip: "Globs relative to the source directory",
            default: None,
        },
        Announced {
            name: "exclude",
            title: "Skip files matching these globs",
            tooltip: "Globs relative to the source directory",
            default: None,
        },
        Announced {
            name: "deployConfig",
            title: "OME's ConfigMap inferenceservice-config (a file of the source)",
            tooltip: "Its deploy, ingress and podDisruptionBudget settings replace those of ome-render.yaml",
            default: Some(String::new()),
        },
        Announced {
            name: "ingressDomain",
            title: "Domain of the services' hosts (ingress.ingressDomain)",
            tooltip: "Empty: the settings' ingressDomain",
            default: Some(String::new()),
        },
        Announced {
            name: "ingressClassName",
            title: "Ingress class of the Ingresses (ingress.ingressClassName)",
            tooltip: "Empty: the settings' ingressClassName",
            default: Some(String::new()),
        },
    ];
    let mut out = Vec::new();
    out.push(b'[');
    for (i, p) in parameters.iter().enumerate() {
        debug_assert!(PARAMETERS.contains(&p.name) && is_list(p.name) == p.default.is_none());
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"name\":");
        crate::yaml::emit::write_json_string(p.name, &mut out);
        out.extend_from_slice(b",\"title\":");
        crate::yaml::emit::write_json_string(p.title, &mut out);
        out.extend_from_slice(b",\"tooltip\":");
        crate::yaml::emit::write_json_string(p.tooltip, &mut out);
        match &p.default {
            Some(text) => {
                out.extend_from_slice(b",\"string\":");
                crate::yaml::emit::write_json_string(text, &mut out);
            }
            None => out.extend_from_slice(b",\"collectionType\":\"array\",\"array\":[]"),
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"]\n");
    String::from_utf8(out).unwrap_or_default()
}

/// `ome-render argocd-parameters`: prints the announcement for the plugin's
/// `parameters.dynamic` command.
pub(crate) fn parameters() -> super::ExitStatus {
    use std::io::Write as _;
    let namespace = std::env::var(APP_NAMESPACE).ok().filter(|n| !n.is_empty());
    let text = announcement(namespace.as_deref());
    super::stdout_written(std::io::stdout().lock().write_all(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn env(vars: &[(&str, &str)]) -> PluginEnv {
        PluginEnv::from_vars(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    fn cli(args: &[&str]) -> crate::cli::Cli {
        crate::cli::Cli::parse_from(std::iter::once("ome-render").chain(args.iter().copied()))
    }

    #[test]
    fn parameters_then_env_then_the_destination_namespace() {
        let e = env(&[
            ("ARGOCD_APP_NAME", "llama"),
            ("ARGOCD_APP_NAMESPACE", "dest"),
            ("PARAM_INCLUDE_1", "b/*.yaml"),
            ("PARAM_INCLUDE_0", "a/*.yaml"),
            ("PARAM_KINDS", "Deployment, Service"),
            ("ARGOCD_ENV_strict", "true"),
            ("ARGOCD_ENV_EXCLUDE", "old/*,tmp/*"),
        ]);
        let g = e.global(&cli(&[]).global).unwrap();
        assert_eq!(g.namespace.as_deref(), Some("dest"));
        assert!(g.strict);
        assert_eq!(g.include, ["a/*.yaml", "b/*.yaml"]);
        assert_eq!(g.exclude, ["old/*", "tmp/*"]);
        assert_eq!(e.render(&cli(&[]).render).kinds, ["Deployment", "Service"]);

        let e = env(&[
            ("ARGOCD_APP_NAME", "llama"),
            ("ARGOCD_APP_NAMESPACE", "dest"),
            ("PARAM_NAMESPACE", "param"),
            ("ARGOCD_ENV_NAMESPACE", "env"),
        ]);
        assert_eq!(
            e.global(&cli(&[]).global).unwrap().namespace.as_deref(),
            Some("param")
        );
    }

    #[test]
    fn the_command_line_wins_and_outside_argo_cd_nothing_changes() {
        let e = env(&[
            ("ARGOCD_APP_NAME", "llama"),
            ("PARAM_NAMESPACE", "param"),
            ("PARAM_KINDS_0", "Service"),
        ]);
        let c = cli(&["-n", "flag", "--kinds", "Deployment"]);
        assert_eq!(
            e.global(&c.global).unwrap().namespace.as_deref(),
            Some("flag")
        );
        assert_eq!(e.render(&c.render).kinds, ["Deployment"]);

        let outside = env(&[
            ("PARAM_NAMESPACE", "param"),
            ("ARGOCD_APP_NAMESPACE", "dest"),
        ]);
        assert_eq!(outside, PluginEnv::default());
        assert_eq!(outside.global(&cli(&[]).global).unwrap().namespace, None);
    }

    #[test]
    fn the_announcement_lists_every_parameter_read() {
        let text = announcement(Some("team-a"));
        let names: Vec<&str> = text
            .split("\"name\":\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .collect();
        assert_eq!(names, PARAMETERS);
        assert!(text.contains("{\"name\":\"namespace\",\"title\":\"Namespace of objects written without one\",\"tooltip\":\"Default: the Application's destination namespace\",\"string\":\"team-a\"}"), "{text}");
        assert!(text.contains("\"name\":\"kinds\",\"title\":\"Write only these kinds (e.g. Deployment)\",\"tooltip\":\"Empty: every kind\",\"collectionType\":\"array\",\"array\":[]"), "{text}");
    }

    #[test]
    fn a_deploy_config_parameter_stays_inside_the_source() {
        let e = env(&[
            ("ARGOCD_APP_NAME", "x"),
            ("PARAM_DEPLOYCONFIG", "cluster/cm.yaml"),
        ]);
        assert_eq!(
            e.global(&cli(&[]).global).unwrap().deploy_config,
            Some(std::path::PathBuf::from("cluster/cm.yaml"))
        );
        for outside in ["/etc/passwd", "../other/cm.yaml"] {
            let e = env(&[("ARGOCD_APP_NAME", "x"), ("PARAM_DEPLOYCONFIG", outside)]);
            let err = e.global(&cli(&[]).global).unwrap_err();
            assert!(
                err.contains("inside the Application's source directory"),
                "{err}"
            );
        }
    }

    #[test]
    fn the_ingress_parameters_override_the_settings() {
        let e = env(&[
            ("ARGOCD_APP_NAME", "x"),
            ("PARAM_INGRESSDOMAIN", "models.example.org"),
            ("ARGOCD_ENV_ingressClassName", "nginx"),
        ]);
        let g = e.global(&cli(&[]).global).unwrap();
        assert_eq!(
            g.ingress.ingress_domain.as_deref(),
            Some("models.example.org")
        );
        assert_eq!(g.ingress.ingress_class_name.as_deref(), Some("nginx"));
        let mut config = crate::model::settings::IngressConfig::default();
        g.ingress.apply(&mut config);
        assert_eq!(config.ingress_domain, "models.example.org");
        assert_eq!(config.ingress_class_name.as_deref(), Some("nginx"));
        // Empty (the announced default): the settings stay.
        let e = env(&[("ARGOCD_APP_NAME", "x"), ("PARAM_INGRESSDOMAIN", "")]);
        let g = e.global(&cli(&[]).global).unwrap();
        assert_eq!(g.ingress, Default::default());
    }

    #[test]
    fn a_strict_that_is_no_boolean_is_a_usage_error() {
        let e = env(&[("ARGOCD_APP_NAME", "x"), ("PARAM_STRICT", "maybe")]);
        let err = e.global(&cli(&[]).global).unwrap_err();
        assert!(err.contains("PARAM_STRICT=maybe"), "{err}");
        let e = env(&[("ARGOCD_APP_NAME", "x"), ("PARAM_STRICT", "False")]);
        assert!(!e.global(&cli(&[]).global).unwrap().strict);
    }
}
