//! Kubernetes' rules for an object's metadata, as the API server applies them to every
//! object before anything else (apimachinery's `ValidateObjectMeta` and the name rule of each
//! kind): the name, the namespace, label keys and values, annotation keys and their total
//! size (SEMANTICS.md#names). Messages are apimachinery's, word for word.
//!
//! The checks scan bytes and allocate only to describe a problem, since they run on every
//! object of a run (10,000 and more).

use crate::diagnostics::{Code, Diagnostic};
use crate::go;
use crate::k8s::id::ObjectId;
use crate::k8s::meta::{
    self, dns1123_label_problems as label_problems, is_dns1035_chars as is_dns1035,
    is_label_chars as is_label, is_label_value as label_value_allowed,
    is_qualified_name as label_key_allowed, is_subdomain_chars as is_subdomain, max_len,
    qualified_name_problems as label_key_problems,
};
use crate::yaml::{Node, Pos, Value};

/// The total size of an object's annotations, keys and values (256 KiB).
pub(crate) const ANNOTATIONS_MAX_BYTES: usize = 256 << 10;

/// How the API server checks the name of an object of some kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameRule {
    /// A DNS-1123 subdomain of at most 253 characters: most kinds, and every custom
    /// resource (OME's included).
    Subdomain,
    /// A DNS-1123 label of at most 63 characters: a Namespace.
    Label,
    /// A DNS-1035 label of at most 63 characters (starting with a letter): a Service.
    Dns1035,
    /// A DNS-1123 subdomain of at most 52 characters: a CronJob (its Jobs add 11).
    CronJob,
    /// Only what a path segment needs (not `.` or `..`, no `/` or `%`): RBAC kinds, core
    /// Events and CertificateSigningRequests, which the API server checks no further.
    PathSegment,
}

impl NameRule {
    /// The rule of `kind` in API group `group` (`""` for the core group).
    pub(crate) fn of(group: &str, kind: &str) -> NameRule {
        match (group, kind) {
            ("", "Namespace") => NameRule::Label,
            ("", "Service") => NameRule::Dns1035,
            ("", "Event") => NameRule::PathSegment,
            ("batch", "CronJob") => NameRule::CronJob,
            (
                "rbac.authorization.k8s.io",
                "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding",
            ) => NameRule::PathSegment,
            ("certificates.k8s.io", "CertificateSigningRequest") => NameRule::PathSegment,
            _ => NameRule::Subdomain,
        }
    }

    /// Whether `name` passes.
    pub(crate) fn allows(self, name: &str) -> bool {
        match self {
            NameRule::Subdomain => name.len() <= 253 && is_subdomain(name),
            NameRule::CronJob => name.len() <= 52 && is_subdomain(name),
            NameRule::Label => name.len() <= 63 && is_label(name),
            NameRule::Dns1035 => name.len() <= 63 && is_dns1035(name),
            NameRule::PathSegment => path_segment_problems(name).is_empty(),
        }
    }

    /// apimachinery's messages for `name`, one per problem (none when it passes).
    pub(crate) fn problems(self, name: &str) -> Vec<String> {
        if self.allows(name) {
            return Vec::new();
        }
        let mut out = Vec::new();
        match self {
            NameRule::Subdomain | NameRule::CronJob => {
                out.extend(meta::dns1123_subdomain_problems(name));
                if self == NameRule::CronJob && name.len() > 52 {
                    out.push(max_len(52));
                }
            }
            NameRule::Label => out.extend(label_problems(name)),
            NameRule::Dns1035 => out.extend(meta::dns1035_label_problems(name)),
            NameRule::PathSegment => out.extend(path_segment_problems(name)),
        }
        out
    }

    /// What to write instead, for a help line.
    pub(crate) fn help(self) -> &'static str {
        match self {
            NameRule::Subdomain => {
                "use at most 253 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"
            }
            NameRule::CronJob => {
                "use at most 52 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"
            }
            NameRule::Label => meta::DNS1123_LABEL_HELP,
            NameRule::Dns1035 => {
                "use at most 63 lowercase letters, digits and '-', starting with a letter and ending with a letter or digit"
            }
            NameRule::PathSegment => "leave out '/' and '%', and don't use '.' or '..'",
        }
    }
}

fn path_segment_problems(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(*c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// One metadata problem: the field it is in, the value, apimachinery's message, and where.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Problem {
    /// `metadata.name`, `metadata.namespace`, `metadata.labels`, `metadata.annotations`.
    pub(crate) field: &'static str,
    /// The API server's text: `metadata.name: Invalid value: "x": …`.
    pub(crate) message: String,
    pub(crate) help: String,
    pub(crate) pos: Pos,
    /// What the value is, when the message doesn't say: `label base-model-vendor`.
    pub(crate) subject: Option<String>,
}

fn invalid(field: &'static str, value: &str, message: &str, help: &str, pos: Pos) -> Problem {
    Problem {
        field,
        message: format!("{field}: Invalid value: {}: {message}", go::quote(value)),
        help: help.to_string(),
        pos,
        subject: None,
    }
}

/// The problems of `name` under `rule`.
pub(crate) fn name_problems(rule: NameRule, name: &str, pos: Pos) -> Vec<Problem> {
    rule.problems(name)
        .iter()
        .map(|m| invalid("metadata.name", name, m, rule.help(), pos))
        .collect()
}

/// The problems of a namespace (a DNS-1123 label).
pub(crate) fn namespace_problems(namespace: &str, pos: Pos) -> Vec<Problem> {
    if namespace.len() <= 63 && is_label(namespace) {
        return Vec::new();
    }
    label_problems(namespace)
        .iter()
        .map(|m| {
            invalid(
                "metadata.namespace",
                namespace,
                m,
                NameRule::Label.help(),
                pos,
            )
        })
        .collect()
}

/// The problems of a map of labels: each key a qualified name, each value a label value.
/// `at` gives the position of a key's entry.
pub(crate) fn label_problems_of<'a>(
    labels: impl Iterator<Item = (&'a str, &'a str, Pos)>,
    field: &'static str,
    out: &mut Vec<Problem>,
) {
    for (key, value, pos) in labels {
        if !label_key_allowed(key) {
            for m in label_key_problems(key) {
                out.push(invalid(
                    field,
                    key,
                    &m,
                    "a label key is an optional DNS subdomain and '/', then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
                    pos,
                ));
            }
        }
        if !label_value_allowed(value) {
            for m in meta::label_value_problems(value) {
                let mut p = invalid(
                    field,
                    value,
                    &m,
                    "a label value is empty or at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit; keep longer text in an annotation",
                    pos,
                );
                p.subject = Some(format!("label {key}"));
                out.push(p);
            }
        }
    }
}

/// The problems of annotation keys (qualified names, case ignored) and their total size.
pub(crate) fn annotation_problems<'a>(
    annotations: impl Iterator<Item = (&'a str, &'a str, Pos)>,
    whole: Pos,
    out: &mut Vec<Problem>,
) {
    let mut size = 0usize;
    for (key, value, pos) in annotations {
        size = size.saturating_add(key.len() + value.len());
        if label_key_allowed(key) {
            continue;
        }
        let lower = key.to_ascii_lowercase();
        if label_key_allowed(&lower) {
            continue;
        }
        for m in label_key_problems(&lower) {
            out.push(invalid(
                "metadata.annotations",
                key,
                &m,
                "an annotation key is an optional DNS subdomain and '/', then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
                pos,
            ));
        }
    }
    if size > ANNOTATIONS_MAX_BYTES {
        out.push(Problem {
            field: "metadata.annotations",
            message: format!(
                "metadata.annotations: Too long: may not be more than {ANNOTATIONS_MAX_BYTES} bytes"
            ),
            help: format!(
                "the annotations hold {size} bytes, keys and values together; move large data into a ConfigMap"
            ),
            pos: whole,
            subject: None,
        });
    }
}

/// The string entries of `metadata.<key>` with where each is written; other values are left
/// to the typed views.
fn string_entries<'a>(root: &'a Node, key: &str) -> impl Iterator<Item = (&'a str, &'a str, Pos)> {
    root.at(&["metadata", key])
        .and_then(Node::as_map)
        .into_iter()
        .flat_map(|m| m.iter())
        .filter_map(|(k, v)| match &v.value {
            Value::Str(s) => Some((k, s.as_str(), v.pos)),
            _ => None,
        })
}

/// Everything the API server checks of an input object's metadata: its name by the rule of
/// its kind, its namespace when written on a kind that has one, its labels and annotations.
/// `namespaced` is false for cluster-scoped kinds (whose namespace the API server drops).
pub(crate) fn check_object(
    root: &Node,
    group: &str,
    kind: &str,
    object: &ObjectId,
    namespaced: bool,
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    let name_node = root.at(&["metadata", "name"]);
    if let Some((name, pos)) = name_node.and_then(|n| n.as_str().map(|s| (s, n.pos))) {
        let rule = NameRule::of(group, kind);
        if !rule.allows(name) {
            problems.extend(name_problems(rule, name, pos));
        }
    }
    if namespaced
        && let Some(n) = root.at(&["metadata", "namespace"])
        && let Some(ns) = n.as_str().filter(|s| !s.is_empty())
    {
        problems.extend(namespace_problems(ns, n.pos));
    }
    label_problems_of(
        string_entries(root, "labels"),
        "metadata.labels",
        &mut problems,
    );
    let whole = root
        .at(&["metadata", "annotations"])
        .map_or(root.pos, |n| n.pos);
    annotation_problems(string_entries(root, "annotations"), whole, &mut problems);
    problems
        .into_iter()
        .map(|p| {
            Diagnostic::error(Code::InvalidField, p.message)
                .at(p.pos)
                .object(object.clone())
                .field(p.field)
                .help(p.help)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_gets_its_rule() {
        assert_eq!(NameRule::of("", "Namespace"), NameRule::Label);
        assert_eq!(NameRule::of("", "Service"), NameRule::Dns1035);
        assert_eq!(
            NameRule::of("serving.knative.dev", "Service"),
            NameRule::Subdomain
        );
        assert_eq!(
            NameRule::of("rbac.authorization.k8s.io", "ClusterRole"),
            NameRule::PathSegment
        );
        assert_eq!(NameRule::of("batch", "CronJob"), NameRule::CronJob);
        assert_eq!(
            NameRule::of("ome.io", "InferenceService"),
            NameRule::Subdomain
        );
        assert_eq!(NameRule::of("apps", "Deployment"), NameRule::Subdomain);
    }

    #[test]
    fn names_pass_or_fail_with_apimachinery_messages() {
        let long = "a".repeat(254);
        for (rule, name, ok) in [
            (NameRule::Subdomain, "llama-3.2", true),
            (NameRule::Subdomain, "a", true),
            (NameRule::Subdomain, "Team/llama", false),
            (NameRule::Subdomain, "-a", false),
            (NameRule::Subdomain, "a..b", false),
            (NameRule::Subdomain, &long[..253], true),
            (NameRule::Subdomain, &long, false),
            (NameRule::Label, "llama-demo", true),
            (NameRule::Label, "Llama_Demo", false),
            (NameRule::Label, "a.b", false),
            (NameRule::Label, &long[..63], true),
            (NameRule::Label, &long[..64], false),
            (NameRule::Dns1035, "x1", true),
            (NameRule::Dns1035, "1x", false),
            (NameRule::CronJob, &long[..52], true),
            (NameRule::CronJob, &long[..53], false),
            (NameRule::PathSegment, "system:controller:x", true),
            (NameRule::PathSegment, "..", false),
            (NameRule::PathSegment, "a/b%", false),
        ] {
            assert_eq!(rule.allows(name), ok, "{rule:?} {name}");
            assert_eq!(rule.problems(name).is_empty(), ok, "{rule:?} {name}");
        }
        assert_eq!(
            NameRule::Label.problems("a.b"),
            vec!["must not contain dots".to_string()]
        );
        assert_eq!(
            NameRule::Label.problems("Llama_Demo"),
            vec!["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_string()]
        );
        assert_eq!(
            NameRule::PathSegment.problems("a/b%"),
            vec![
                "may not contain '/'".to_string(),
                "may not contain '%'".to_string()
            ]
        );
        // Too long and the wrong characters: both, as the API server lists them.
        let bad_long = format!("{}_", "a".repeat(300));
        assert_eq!(NameRule::Subdomain.problems(&bad_long).len(), 2);
        assert_eq!(NameRule::Subdomain.problems(&long), vec![max_len(253)]);
    }

    #[test]
    fn an_object_is_checked_whole() {
        let root = crate::yaml::parse::parse_stream(
            "metadata:\n  name: Team/llama\n  namespace: ../escaped\n  labels: {ok: yes, bad: 'a b'}\n  annotations: {'x y': z, Fine.Example/KEY: v}\n",
            0,
        )
        .unwrap()
        .remove(0)
        .root;
        let object = ObjectId {
            kind: "ConfigMap".into(),
            namespace: String::new(),
            name: "Team/llama".into(),
            group: String::new(),
        };
        let d = check_object(&root, "", "ConfigMap", &object, true);
        let fields: Vec<&str> = d.iter().map(|d| d.field.as_deref().unwrap()).collect();
        assert_eq!(
            fields,
            [
                "metadata.name",
                "metadata.namespace",
                "metadata.labels",
                "metadata.annotations"
            ],
            "{d:#?}"
        );
        assert_eq!(d[1].pos.map(|p| p.line), Some(3));
        // A cluster-scoped kind's namespace is dropped by the API server, not checked.
        let d = check_object(&root, "", "Namespace", &object, false);
        assert!(
            d.iter()
                .all(|d| d.field.as_deref() != Some("metadata.namespace"))
        );
    }

    #[test]
    fn large_annotations_are_too_long() {
        let mut out = Vec::new();
        let big = "x".repeat(ANNOTATIONS_MAX_BYTES);
        annotation_problems(
            [("a", big.as_str(), Pos::NONE)].into_iter(),
            Pos::NONE,
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert!(out[0].message.contains("Too long"));
    }
}
