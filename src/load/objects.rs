//! Documents → objects: which documents are Kubernetes objects, flattening `kind: List`,
//! and skipping (with a note) kustomizations and documents that are no objects.

use super::discover::Input;
use super::limits::raise_help;
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::yaml::parse::{AliasBudget, ParseLimits, SyntaxError, parse_stream_limited};
use crate::yaml::{Node, Pos, Value};

/// One Kubernetes object of the input.
#[derive(Clone, Debug)]
pub(crate) struct Object {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) name: String,
    /// `metadata.namespace` as written.
    pub(crate) namespace: Option<String>,
    pub(crate) root: Node,
    /// The document's index in its file (kustomize's `config.kubernetes.io/index`); for an
    /// item of a KRM ResourceList, its index among the items.
    pub(crate) doc_index: usize,
}

impl Object {
    /// Its identity, in `effective_namespace` when written without a namespace.
    pub(crate) fn id<'o>(&'o self, effective_namespace: &'o str) -> ObjectId<&'o str> {
        ObjectId::new(
            &self.api_version,
            &self.kind,
            self.namespace.as_deref(),
            &self.name,
            effective_namespace,
        )
    }

    /// The API group: `apps` for `apps/v1`, empty for `v1`.
    pub(crate) fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }

    /// The object as written, to name it in a diagnostic (`ObjectId::written`).
    pub(crate) fn written_id(&self) -> ObjectId {
        ObjectId::written(
            &self.api_version,
            self.kind.as_str(),
            self.namespace.clone(),
            self.name.as_str(),
        )
    }

    /// Where the object starts.
    pub(crate) fn pos(&self) -> Pos {
        self.root.pos
    }
}

pub(super) struct FileObjects {
    pub(crate) objects: Vec<Object>,
    pub(crate) diags: Vec<Diagnostic>,
    pub(crate) settings: Option<Node>,
    pub(crate) lock: Option<Node>,
    /// The one object of the `--deploy-config` file.
    pub(crate) deploy_config: Option<Node>,
    /// Where each document that holds something starts, for the run's `documents` limit.
    pub(crate) documents: Vec<Pos>,
    /// The limit the parse stopped at, if it did.
    pub(crate) limit: Option<&'static str>,
}

fn is_kustomization_file(display: &str) -> bool {
    let name = display.rsplit(['/', '\\']).next().unwrap_or(display);
    matches!(
        name,
        "kustomization.yaml" | "kustomization.yml" | "Kustomization"
    )
}

/// The diagnostic of a parse that failed: past a limit (`ome::load::limit`, with how to
/// raise it), or a syntax error with `help`.
pub(super) fn syntax_error(e: SyntaxError, file: u32, help: &str) -> Diagnostic {
    let at = Pos {
        file,
        line: e.line.max(1),
        col: e.col,
    };
    match e.limit {
        Some(limit) => Diagnostic::error(Code::Limit, format!("{} (limit `{limit}`)", e.message))
            .at(at)
            .help(raise_help(limit)),
        None => Diagnostic::error(Code::YamlSyntax, e.message)
            .at(at)
            .help(help),
    }
}

pub(super) fn read_file(
    file: u32,
    input: &Input,
    text: &str,
    limits: &ParseLimits,
    budget: &AliasBudget,
) -> FileObjects {
    let mut out = FileObjects {
        objects: Vec::new(),
        diags: Vec::new(),
        settings: None,
        lock: None,
        deploy_config: None,
        documents: Vec::new(),
        limit: None,
    };
    let docs = match parse_stream_limited(text, file, limits, budget) {
        Ok(docs) => docs,
        Err(e) => {
            out.limit = e.limit;
            out.diags.push(syntax_error(
                e,
                file,
                "fix the YAML syntax; nothing is rendered while an input does not parse",
            ));
            return out;
        }
    };
    out.documents = docs.iter().map(|d| d.root.pos).collect();
    if input.is_settings {
        out.settings = docs.into_iter().next().map(|d| d.root);
        return out;
    }
    if input.is_deploy_config {
        deploy_config(file, docs, &mut out);
        return out;
    }
    if input.is_lock {
        // An empty lock file holds no pins.
        out.lock = Some(docs.into_iter().next().map_or_else(
            || {
                Node::new(
                    Value::Null,
                    Pos {
                        file,
                        line: 1,
                        col: 0,
                    },
                )
            },
            |d| d.root,
        ));
        return out;
    }
    if is_kustomization_file(&input.display) {
        out.diags.push(
            Diagnostic::note(Code::Kustomization, "kustomization file skipped").at(Pos {
                file,
                line: 1,
                col: 0,
            }),
        );
        return out;
    }
    for doc in docs {
        read_object(doc.root, doc.index, &mut out);
    }
    out
}

fn read_object(root: Node, doc_index: usize, out: &mut FileObjects) {
    let str_field = |key: &str| {
        root.get(key)
            .and_then(Node::as_str)
            .unwrap_or("")
            .to_string()
    };
    let api_version = str_field("apiVersion");
    let kind = str_field("kind");
    if root.as_map().is_none() || api_version.is_empty() || kind.is_empty() {
        out.diags.push(
            Diagnostic::note(
                Code::NotAnObject,
                "document skipped: it is not a Kubernetes object (no `apiVersion` and `kind`)",
            )
            .at(root.pos),
        );
        return;
    }
    if let Some(problem) = type_problem(&root) {
        out.diags.push(problem);
        return;
    }
    if kind == "Kustomization" && api_version.starts_with("kustomize.config.k8s.io/")
        || kind == "Component" && api_version.starts_with("kustomize.config.k8s.io/")
    {
        out.diags
            .push(Diagnostic::note(Code::Kustomization, "kustomization skipped").at(root.pos));
        return;
    }
    if kind == "List" && api_version == "v1" {
        let mut root = root;
        if let Some(Value::Seq(items)) = root
            .as_map_mut()
            .and_then(|m| m.remove("items"))
            .map(|n| n.value)
        {
            for item in items {
                read_object(item, doc_index, out);
            }
        }
        return;
    }
    let name_node = root.at(&["metadata", "name"]);
    if let Some(n) = name_node.filter(|n| !matches!(n.value, Value::Null | Value::Str(_))) {
        out.diags.push(
            Diagnostic::error(
                Code::InvalidField,
                format!("`metadata.name` must be a string, not {}", n.type_name()),
            )
            .at(n.pos)
            .field("metadata.name")
            .help("quote the name: the API server takes only a string here"),
        );
        return;
    }
    let name = name_node.and_then(Node::as_str).unwrap_or("");
    if name.is_empty() {
        out.diags.push(
            Diagnostic::error(Code::InvalidField, format!("{kind} has no `metadata.name`"))
                .at(name_node
                    .or_else(|| root.get("metadata"))
                    .map_or(root.pos, |n| n.pos))
                .field("metadata.name")
                .help("every object needs a name; `generateName` cannot be applied declaratively"),
        );
        return;
    }
    let namespace_node = root.at(&["metadata", "namespace"]);
    let namespace = match namespace_node.map(|n| &n.value) {
        None | Some(Value::Null) => None,
        Some(Value::Str(s)) if s.is_empty() => None,
        Some(Value::Str(s)) => Some(s.clone()),
        Some(_) => {
            out.diags.push(
                Diagnostic::error(Code::InvalidField, "`metadata.namespace` must be a string")
                    .at(namespace_node.map_or(root.pos, |n| n.pos))
                    .field("metadata.namespace")
                    .help("quote the namespace: the API server takes only a string here"),
            );
            return;
        }
    };
    out.objects.push(Object {
        api_version,
        kind,
        name: name.to_string(),
        namespace,
        root,
        doc_index,
    });
}

/// One DNS-1123 label's characters: lowercase letters, digits and `-`, starting and ending
/// with a letter or digit, at most 63 of them.
fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// Whether `api_version` is `[group/]version` as the API server takes it: the group a
/// DNS-1123 subdomain, the version a DNS-1035 label (SEMANTICS.md#input).
pub(crate) fn is_api_version(api_version: &str) -> bool {
    let (group, version) = match api_version.split_once('/') {
        Some((group, version)) => (Some(group), version),
        None => (None, api_version),
    };
    let group_ok = group.is_none_or(|g| g.len() <= 253 && g.split('.').all(is_dns_label));
    group_ok && is_dns_label(version) && version.as_bytes()[0].is_ascii_lowercase()
}

/// Whether `kind` is a kind's name: a letter, then letters and digits.
pub(crate) fn is_kind(kind: &str) -> bool {
    let b = kind.as_bytes();
    !b.is_empty() && b[0].is_ascii_alphabetic() && b.iter().all(u8::is_ascii_alphanumeric)
}

/// The error of an object whose `apiVersion` or `kind` (strings, not empty) is no API
/// version or kind: every object's type is checked as the API server would, so no input can
/// carry markup or control characters into a report's titles (SEMANTICS.md#input).
pub(super) fn type_problem(root: &Node) -> Option<Diagnostic> {
    let field = |key: &str| {
        root.get(key)
            .filter(|n| n.as_str().is_some_and(|s| !s.is_empty()))
    };
    if let Some(node) = field("apiVersion")
        && let Some(v) = node.as_str()
        && !is_api_version(v)
    {
        return Some(
            Diagnostic::error(
                Code::InvalidField,
                format!("apiVersion `{v}` is not `[group/]version`"),
            )
            .at(node.pos)
            .field("apiVersion")
            .help("the group is a DNS-1123 subdomain (`apps`, `ome.io`), the version a DNS-1035 label (`v1`, `v1beta1`), as the API server takes them"),
        );
    }
    if let Some(node) = field("kind")
        && let Some(k) = node.as_str()
        && !is_kind(k)
    {
        return Some(
            Diagnostic::error(Code::InvalidField, format!("kind `{k}` is not a kind's name"))
                .at(node.pos)
                .field("kind")
                .help("a kind starts with a letter and holds only letters and digits (`InferenceService`, `ConfigMap`)"),
        );
    }
    None
}

/// A KRM item as an object, when it is one ome-render can read: a map with `apiVersion`,
/// `kind`, a non-empty `metadata.name` and a string namespace, if any. Otherwise the item
/// comes back unchanged (the KRM function passes it through untouched).
pub(super) fn item_object(root: Node, index: usize) -> Result<Object, Node> {
    let text = |path: &[&str]| {
        root.str_at(path)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let (Some(api_version), Some(kind), Some(name)) = (
        text(&["apiVersion"]),
        text(&["kind"]),
        text(&["metadata", "name"]),
    ) else {
        return Err(root);
    };
    let namespace = match root.at(&["metadata", "namespace"]).map(|n| &n.value) {
        None | Some(Value::Null) => None,
        Some(Value::Str(s)) if s.is_empty() => None,
        Some(Value::Str(s)) => Some(s.clone()),
        Some(_) => return Err(root),
    };
    if kind == "List" && api_version == "v1" {
        return Err(root);
    }
    Ok(Object {
        api_version,
        kind,
        name,
        namespace,
        root,
        doc_index: index,
    })
}

/// The diagnostics `read_object` gives a document it cannot read as an object.
pub(super) fn object_problems(root: Node, index: usize) -> Vec<Diagnostic> {
    let mut out = FileObjects {
        objects: Vec::new(),
        diags: Vec::new(),
        settings: None,
        lock: None,
        deploy_config: None,
        documents: Vec::new(),
        limit: None,
    };
    read_object(root, index, &mut out);
    out.diags
}

/// The file of `--deploy-config` holds exactly one object, OME's ConfigMap, as `kubectl ome
/// runtime render --deploy-config` wants it (empty documents aside); SEMANTICS.md#deploy-config.
fn deploy_config(file: u32, docs: Vec<crate::yaml::parse::Document>, out: &mut FileObjects) {
    let mut found = docs.into_iter().map(|d| d.root).filter(|n| !n.is_null());
    let Some(first) = found.next() else {
        out.diags.push(
            Diagnostic::error(Code::DeployConfig, "deploy defaults: manifest is empty")
                .at(Pos {
                    file,
                    line: 1,
                    col: 0,
                })
                .help(
                    "--deploy-config names a file holding OME's ConfigMap inferenceservice-config",
                ),
        );
        return;
    };
    if let Some(second) = found.next() {
        out.diags.push(
            Diagnostic::error(
                Code::DeployConfig,
                "deploy defaults: manifest must hold exactly one object",
            )
            .at(second.pos)
            .help("keep only the ConfigMap inferenceservice-config in the --deploy-config file"),
        );
        return;
    }
    out.deploy_config = Some(first);
}
