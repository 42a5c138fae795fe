//! `tree`: a runtime's inheritance tree and the InferenceServices that use it, in the layout
//! of `kubectl ome runtime tree` (SEMANTICS.md#tree). Building the report is separate from
//! rendering it; both are pure.
//!
//! The heads are the target and every runtime whose inheritance walk passes through it. Each
//! head is a path from its root (or from the runtime where the walk stopped) down to it, in
//! the lookup context of its kind: `Cluster` for ClusterServingRuntimes, `Namespaced/<ns>`
//! for a namespace's ServingRuntimes. Under each head come the InferenceServices that use
//! it, named or (beyond `kubectl ome`, which can't see them) auto-selected, and pinned ones
//! with their revision.

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic};
use crate::drawing::{Graph, Line, Shape};
use crate::inherit::{self, Issue, Walk};
use crate::k8s::id::ObjectId;
use crate::model::{InferenceService, Runtime, Scope};
use crate::revision::kind_name;
use crate::select::auto::validate_model;
use crate::select::pins::{self, Live};
use crate::select::request::Request;
use crate::select::resolve::{Resolver, named_runtime, resolve};
use crate::yaml::emit::to_json_string;
use crate::yaml::{Node, Value};

/// A runtime's identity: the one `ObjectId`, with no namespace for a ClusterServingRuntime.
fn runtime_id(r: &Runtime) -> ObjectId {
    ObjectId::of_kind(
        kind_name(r.scope),
        r.namespace.as_deref().unwrap_or(""),
        &r.name,
    )
    .to_owned()
}

/// How the tree shows a runtime's identity.
trait Shown {
    /// `Kind/name`, or `Kind/namespace/name` unless the context is that namespace.
    fn show(&self, context: Option<&str>) -> String;
    fn json(&self) -> Node;
    /// kubectl ome's path order: ClusterServingRuntimes first, then namespace, name.
    fn rank(&self) -> (u8, &str, &str);
}

impl Shown for ObjectId {
    fn show(&self, context: Option<&str>) -> String {
        if self.namespace.is_empty() || Some(self.namespace.as_str()) == context {
            format!("{}/{}", self.kind, self.name)
        } else {
            self.to_string()
        }
    }

    fn json(&self) -> Node {
        let mut m = crate::map! { "kind" => Node::str(self.kind.clone()) };
        if !self.namespace.is_empty() {
            m.insert("namespace", Node::str(self.namespace.clone()));
        }
        m.insert("name", Node::str(self.name.clone()));
        Node::map(m)
    }

    fn rank(&self) -> (u8, &str, &str) {
        (
            u8::from(self.kind == kind_name(Scope::Namespaced)),
            &self.namespace,
            &self.name,
        )
    }
}

/// An InferenceService under a head.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dependent {
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) auto_selected: bool,
    /// How it is pinned, when it is.
    pub(crate) pin: Option<String>,
    /// The target of `tree --isvc`.
    pub(crate) selected: bool,
}

impl Dependent {
    fn show(&self, context: Option<&str>) -> String {
        let mut s = if Some(self.namespace.as_str()) == context {
            format!("InferenceService/{}", self.name)
        } else {
            format!("InferenceService/{}/{}", self.namespace, self.name)
        };
        if self.selected {
            s.push_str(" [selected]");
        }
        if self.auto_selected {
            s.push_str(" (auto-selected)");
        }
        if let Some(p) = &self.pin {
            s.push_str(&format!(" ({p})"));
        }
        s
    }
}

/// Where a head's walk stopped before a root.
#[derive(Clone, Debug)]
pub(crate) struct PathIssue {
    pub(crate) code: Issue,
    pub(crate) subject: ObjectId,
    pub(crate) parent: String,
    /// The subject first, toward its ancestors.
    pub(crate) path: Vec<ObjectId>,
}

/// One head: its runtimes from the root (or the error boundary) down, and its users.
#[derive(Clone, Debug)]
pub(crate) struct HeadPath {
    pub(crate) head: ObjectId,
    /// `(runtime, its declared parent, the parent found)`, root first.
    pub(crate) runtimes: Vec<(ObjectId, Option<String>, Option<ObjectId>)>,
    pub(crate) dependents: Vec<Dependent>,
    pub(crate) issue: Option<PathIssue>,
}

/// The heads of one lookup context: `None` is the cluster, `Some(ns)` a namespace.
#[derive(Clone, Debug)]
pub(crate) struct Context {
    pub(crate) namespace: Option<String>,
    pub(crate) paths: Vec<HeadPath>,
}

/// What the target is.
#[derive(Clone, Debug)]
pub(crate) enum Target {
    Runtime(ObjectId),
    InferenceService { namespace: String, name: String },
}

/// An InferenceService in scope whose runtime can't be resolved.
#[derive(Clone, Debug)]
pub(crate) struct Unattributed {
    pub(crate) namespace: String,
    pub(crate) name: String,
    /// kubectl ome's reason: `AutomaticSelection` or `RuntimeNotFound`.
    pub(crate) reason: &'static str,
    pub(crate) declared: Option<String>,
}

/// How many objects of a kind were read, per kubectl ome's collection lines.
#[derive(Clone, Debug)]
pub(crate) struct Collection {
    pub(crate) kind: &'static str,
    /// `Cluster`, `AllNamespaces` or `Namespace/<ns>`.
    pub(crate) scope: String,
    pub(crate) items: usize,
}

#[derive(Clone, Debug)]
pub(crate) struct Report {
    pub(crate) target: Target,
    pub(crate) contexts: Vec<Context>,
    pub(crate) unattributed: Vec<Unattributed>,
    pub(crate) collections: Vec<Collection>,
}

/// Why there is no tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TreeError {
    NotFound(String),
    Ambiguous(String),
    /// A name no runtime can have, with apimachinery's messages.
    Invalid(String, Vec<String>),
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeError::NotFound(n) => write!(
                f,
                "project runtime inheritance tree: runtime target was not found: \"{n}\""
            ),
            TreeError::Ambiguous(n) => write!(
                f,
                "runtime \"{n}\" is ambiguous; pass --kind ServingRuntime or --kind ClusterServingRuntime: runtime target is ambiguous: \"{n}\" matched 2 runtimes"
            ),
            TreeError::Invalid(n, problems) => {
                write!(
                    f,
                    "runtime name \"{n}\" is invalid: {}",
                    problems.join("; ")
                )
            }
        }
    }
}

/// The runtime `tree NAME` shows: `kind` `None` finds the ClusterServingRuntime or the
/// ServingRuntime in `namespace`, and fails when both exist.
fn target<'a>(
    catalog: &'a Catalog,
    name: &str,
    kind: Option<Scope>,
    namespace: &str,
) -> Result<&'a Runtime, TreeError> {
    // As `kubectl ome runtime tree`: a name the API server would refuse is named as such,
    // not looked up.
    let problems = crate::admission::names::NameRule::Subdomain.problems(name);
    if !problems.is_empty() {
        return Err(TreeError::Invalid(name.to_string(), problems));
    }
    let cluster = catalog.runtime(Scope::Cluster, namespace, name);
    let namespaced = catalog.runtime(Scope::Namespaced, namespace, name);
    match (kind, cluster, namespaced) {
        (Some(Scope::Cluster), Some(r), _) | (Some(Scope::Namespaced), _, Some(r)) => Ok(r),
        (None, Some(_), Some(_)) => Err(TreeError::Ambiguous(name.to_string())),
        (None, Some(r), None) | (None, None, Some(r)) => Ok(r),
        _ => Err(TreeError::NotFound(name.to_string())),
    }
}

/// The runtime scope `--kind` names (`None`: either), or the message refusing the kind.
pub(crate) fn runtime_kind(kind: Option<&str>) -> Result<Option<Scope>, String> {
    match kind {
        None => Ok(None),
        Some("ClusterServingRuntime") => Ok(Some(Scope::Cluster)),
        Some("ServingRuntime") => Ok(Some(Scope::Namespaced)),
        Some(other) => Err(format!(
            "unsupported runtime kind \"{other}\" (supported: ServingRuntime, ClusterServingRuntime)"
        )),
    }
}

/// The root runtimes among the inputs (no `ome.io/inherit-from`), of `kind` when given:
/// ClusterServingRuntimes by name, then ServingRuntimes by namespace and name.
pub(crate) fn roots(catalog: &Catalog, kind: Option<Scope>) -> Vec<&Runtime> {
    let cluster = catalog.cluster_runtimes.values();
    let namespaced = catalog.runtimes.values();
    cluster
        .filter(|_| kind != Some(Scope::Namespaced))
        .chain(namespaced.filter(|_| kind != Some(Scope::Cluster)))
        .filter(|r| r.inherit_from.is_none())
        .collect()
}

/// Every root runtime's tree (`tree DIR`), or the error saying the inputs of `inputs` (the
/// path as given) hold no runtime.
pub(crate) fn root_trees<'a>(
    catalog: &'a Catalog,
    resolver: &Resolver<'a>,
    kind: Option<Scope>,
    inputs: &std::path::Path,
) -> Result<Vec<Report>, Diagnostic> {
    let reports: Vec<Report> = roots(catalog, kind)
        .into_iter()
        .map(|root| runtime_tree(catalog, resolver, root))
        .collect();
    if reports.is_empty() {
        return Err(Diagnostic::error(
            Code::RuntimeNotFound,
            format!("no runtime among the inputs of {}", inputs.display()),
        )
        .help("name the directory that holds ServingRuntimes or ClusterServingRuntimes"));
    }
    Ok(reports)
}

/// The tree of the runtime `tree NAME` names, or the error saying why there is none (with a
/// close name when no runtime has that name).
pub(crate) fn named_tree<'a>(
    catalog: &'a Catalog,
    resolver: &Resolver<'a>,
    name: &str,
    kind: Option<Scope>,
    namespace: &str,
) -> Result<Report, Diagnostic> {
    let e = match target(catalog, name, kind, namespace) {
        Ok(t) => return Ok(runtime_tree(catalog, resolver, t)),
        Err(e) => e,
    };
    let help = match e {
        TreeError::NotFound(_) => {
            "name a runtime among the inputs (and its namespace with -n for a ServingRuntime)"
        }
        TreeError::Ambiguous(_) => {
            "a ServingRuntime of the namespace and a ClusterServingRuntime share the name: say which with --kind"
        }
        TreeError::Invalid(..) => {
            "runtime names are lowercase letters, digits, '-' and '.', starting and ending with a letter or digit"
        }
    };
    let close = match e {
        TreeError::NotFound(_) => {
            crate::diagnostics::suggest::did_you_mean(name, catalog.runtime_names(kind, namespace))
        }
        _ => None,
    };
    Err(Diagnostic::error(Code::RuntimeNotFound, e.to_string())
        .help(close.unwrap_or_else(|| help.to_string())))
}

/// The tree of the runtime the InferenceService `target` uses (`tree --isvc`), or the errors
/// saying why there is none: no such InferenceService, else rendering's own errors for it,
/// else that its runtime can't be resolved.
pub(crate) fn isvc_target_tree<'a>(
    catalog: &'a Catalog,
    resolver: &Resolver<'a>,
    target: &str,
    namespace: &str,
) -> Result<Report, Vec<Diagnostic>> {
    let isvc = catalog
        .inference_service_named(target, namespace)
        .map_err(|d| vec![d])?;
    if let Some(report) = isvc_tree(catalog, resolver, isvc) {
        return Ok(report);
    }
    // Say why, with the render's own diagnostics.
    let mut why = Vec::new();
    resolve(isvc, catalog, resolver, &mut why);
    why.retain(Diagnostic::is_error);
    if why.is_empty() {
        let (ns, name) = (&isvc.lookup_namespace, &isvc.name);
        why.push(
            Diagnostic::error(
                Code::RuntimeNotFound,
                format!("the runtime of InferenceService {ns}/{name} can't be resolved"),
            )
            .at(isvc.pos)
            .object(isvc.object.clone()),
        );
    }
    Err(why)
}

/// What an InferenceService resolves to, for attribution.
struct Use<'a> {
    runtime: Option<&'a Runtime>,
    auto_selected: bool,
    pin: Option<String>,
}

fn use_of<'a>(isvc: &InferenceService, catalog: &'a Catalog, resolver: &Resolver<'a>) -> Use<'a> {
    if isvc.runtime.is_some() {
        let runtime = named_runtime(isvc, catalog);
        let live = runtime
            .and_then(|r| resolver.inherited.spec(r).ok())
            .map(Live::of);
        let pin = pins::status(isvc, catalog, live.as_ref()).label();
        return Use {
            runtime,
            auto_selected: false,
            pin,
        };
    }
    let selected = isvc
        .model
        .as_ref()
        .and_then(|m| catalog.model(&isvc.lookup_namespace, &m.name))
        .filter(|m| validate_model(m).is_ok())
        .and_then(|m| {
            resolver
                .index
                .select(m, &Request::from_inference_service(isvc))
                .ok()
        })
        .and_then(|s| catalog.runtime(s.runtime.scope, s.runtime.namespace, s.runtime.name));
    Use {
        runtime: selected,
        auto_selected: true,
        pin: None,
    }
}

/// The head path of `walk` (whose leaf is the head).
fn head_path(catalog: &Catalog, walk: &Walk<'_>) -> HeadPath {
    let leaf = walk.chain[0];
    let mut runtimes = Vec::new();
    for (i, r) in walk.chain.iter().enumerate().rev() {
        let resolved = i
            .checked_add(1)
            .and_then(|p| walk.chain.get(p))
            .map(|p| runtime_id(p));
        runtimes.push((runtime_id(r), r.inherit_from.clone(), resolved));
    }
    // The issue path starts at the head and walks toward its ancestors; a cycle ends on the
    // runtime it closes on.
    let issue = walk.issue.as_ref().map(|(code, parent)| {
        let mut path: Vec<ObjectId> = walk.chain.iter().map(|r| runtime_id(r)).collect();
        if *code == Issue::CycleDetected
            && let Some(p) = inherit::parent(catalog, leaf, parent)
        {
            path.push(runtime_id(p));
        }
        PathIssue {
            code: *code,
            subject: runtime_id(leaf),
            parent: parent.clone(),
            path,
        }
    });
    HeadPath {
        head: runtime_id(leaf),
        runtimes,
        dependents: Vec::new(),
        issue,
    }
}

/// The tree of `target`: its heads and their users.
fn runtime_tree<'a>(catalog: &'a Catalog, resolver: &Resolver<'a>, target: &'a Runtime) -> Report {
    let target_id = runtime_id(target);
    let in_scope = |ns: &str| match target.scope {
        Scope::Cluster => true,
        Scope::Namespaced => target.namespace.as_deref() == Some(ns),
    };
    let candidates = catalog
        .cluster_runtimes
        .values()
        .filter(|_| target.scope == Scope::Cluster)
        .chain(
            catalog
                .runtimes
                .values()
                .filter(|r| in_scope(r.namespace.as_deref().unwrap_or(""))),
        );
    let mut heads: Vec<HeadPath> = candidates
        .filter_map(|r| {
            let walk = inherit::walk(catalog, r);
            walk.chain
                .iter()
                .any(|c| runtime_id(c) == target_id)
                .then(|| head_path(catalog, &walk))
        })
        .collect();
    let mut unattributed = Vec::new();
    let isvcs: Vec<&InferenceService> = catalog
        .inference_services
        .iter()
        .map(|i| &**i)
        .filter(|i| in_scope(&i.lookup_namespace))
        .collect();
    for isvc in &isvcs {
        let u = use_of(isvc, catalog, resolver);
        let Some(runtime) = u.runtime else {
            unattributed.push(Unattributed {
                namespace: isvc.lookup_namespace.clone(),
                name: isvc.name.clone(),
                reason: if u.auto_selected {
                    "AutomaticSelection"
                } else {
                    "RuntimeNotFound"
                },
                declared: isvc.runtime.as_ref().map(|r| r.name.clone()),
            });
            continue;
        };
        let id = runtime_id(runtime);
        if let Some(head) = heads.iter_mut().find(|h| h.head == id) {
            head.dependents.push(Dependent {
                namespace: isvc.lookup_namespace.clone(),
                name: isvc.name.clone(),
                auto_selected: u.auto_selected,
                pin: u.pin,
                selected: false,
            });
        }
    }
    heads.sort_by(|a, b| {
        (a.head != target_id)
            .cmp(&(b.head != target_id))
            .then_with(|| a.head.rank().cmp(&b.head.rank()))
    });
    Report {
        target: Target::Runtime(target_id),
        contexts: contexts(heads),
        unattributed,
        collections: collections(
            catalog,
            target.scope,
            target.namespace.as_deref(),
            isvcs.len(),
        ),
    }
}

/// The path from `isvc` up to its root runtime. `None` when its runtime can't be resolved.
fn isvc_tree<'a>(
    catalog: &'a Catalog,
    resolver: &Resolver<'a>,
    isvc: &InferenceService,
) -> Option<Report> {
    let u = use_of(isvc, catalog, resolver);
    let runtime = u.runtime?;
    let mut path = head_path(catalog, &inherit::walk(catalog, runtime));
    path.dependents.push(Dependent {
        namespace: isvc.lookup_namespace.clone(),
        name: isvc.name.clone(),
        auto_selected: u.auto_selected,
        pin: u.pin,
        selected: true,
    });
    let isvcs = catalog
        .inference_services
        .iter()
        .filter(|i| i.lookup_namespace == isvc.lookup_namespace)
        .count();
    Some(Report {
        target: Target::InferenceService {
            namespace: isvc.lookup_namespace.clone(),
            name: isvc.name.clone(),
        },
        contexts: contexts(vec![path]),
        unattributed: Vec::new(),
        collections: collections(
            catalog,
            Scope::Namespaced,
            Some(&isvc.lookup_namespace),
            isvcs,
        ),
    })
}

/// Heads grouped by context: the cluster first, then namespaces by name.
fn contexts(heads: Vec<HeadPath>) -> Vec<Context> {
    let mut out: Vec<Context> = Vec::new();
    for mut h in heads {
        h.dependents
            .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let ns = Some(h.head.namespace.clone()).filter(|ns| !ns.is_empty());
        match out.iter_mut().find(|c| c.namespace == ns) {
            Some(c) => c.paths.push(h),
            None => out.push(Context {
                namespace: ns,
                paths: vec![h],
            }),
        }
    }
    out.sort_by(|a, b| {
        (a.namespace.is_some(), &a.namespace).cmp(&(b.namespace.is_some(), &b.namespace))
    });
    out
}

fn collections(
    catalog: &Catalog,
    scope: Scope,
    namespace: Option<&str>,
    isvcs: usize,
) -> Vec<Collection> {
    let (ns_scope, srs) = match (scope, namespace) {
        (Scope::Namespaced, Some(ns)) => (
            format!("Namespace/{ns}"),
            catalog.runtimes.keys().filter(|(n, _)| n == ns).count(),
        ),
        _ => ("AllNamespaces".to_string(), catalog.runtimes.len()),
    };
    vec![
        Collection {
            kind: "ClusterServingRuntime",
            scope: "Cluster".to_string(),
            items: catalog.cluster_runtimes.len(),
        },
        Collection {
            kind: "ServingRuntime",
            scope: ns_scope.clone(),
            items: srs,
        },
        Collection {
            kind: "InferenceService",
            scope: ns_scope,
            items: isvcs,
        },
    ]
}

/// kubectl ome's line width, past which a collection or issue line continues below.
const WIDTH: usize = 80;

/// The table, as `kubectl ome runtime tree` prints it (identities are never clipped:
/// SEMANTICS.md#choice-tree-width).
/// The most nodes `tree --format mermaid|dot` draws; the rest are one "… and N more" node.
const GRAPH_NODES: usize = 30;

/// The tree as a graph (SEMANTICS.md#tree): each runtime points at the runtimes that inherit
/// from it, each head at the InferenceServices that use it (dashed when auto-selection chose
/// it), as the diff report's impact graph draws them.
pub(crate) fn render_graph(report: &Report) -> Graph {
    let mut g = Graph::new(GRAPH_NODES);
    for context in &report.contexts {
        for path in &context.paths {
            let mut above = None;
            for (id, _, _) in &path.runtimes {
                let label = id.show(None);
                let this = g.node(&label, &label, Shape::Box);
                g.edge(above, this, Line::Solid);
                above = this;
            }
            for d in &path.dependents {
                let label = format!("InferenceService/{}/{}", d.namespace, d.name);
                let to = g.node(&label, &label, Shape::Round);
                let line = if d.auto_selected {
                    Line::Dashed
                } else {
                    Line::Solid
                };
                g.edge(above, to, line);
            }
        }
    }
    g
}

pub(crate) fn render_table(report: &Report, show_unattributed: bool) -> String {
    let mut lines = vec!["RUNTIME TREE".to_string()];
    lines.push(match &report.target {
        Target::Runtime(id) => format!("Target: {}", id.show(None)),
        Target::InferenceService { namespace, name } => {
            format!("Target: InferenceService/{namespace}/{name}")
        }
    });
    for context in &report.contexts {
        let ctx = context.namespace.as_deref();
        lines.push(match ctx {
            None => "Context: Cluster (resolution: Complete)".to_string(),
            Some(ns) => format!("Context: Namespaced/{ns} (resolution: Complete)"),
        });
        for path in &context.paths {
            lines.push(format!("Head: {}", path.head.show(ctx)));
            for (i, (id, _, _)) in path.runtimes.iter().enumerate() {
                let prefix = if i == 0 {
                    String::new()
                } else {
                    format!("{}`-- ", "    ".repeat(i - 1))
                };
                let selected = match &report.target {
                    Target::Runtime(t) if t == id => " [selected]",
                    _ => "",
                };
                lines.push(format!("{prefix}{}{selected}", id.show(ctx)));
            }
            let indent = "    ".repeat(path.runtimes.len().saturating_sub(1));
            for (i, d) in path.dependents.iter().enumerate() {
                let branch = if i + 1 == path.dependents.len() {
                    "`-- "
                } else {
                    "|-- "
                };
                lines.push(format!("{indent}{branch}{}", d.show(ctx)));
            }
            if let Some(issue) = &path.issue {
                let line = format!(
                    "Issue: {} subject={} parent={}",
                    issue.code.as_str(),
                    issue.subject.show(ctx),
                    issue.parent
                );
                if line.len() > WIDTH {
                    lines.push(format!("Issue: {}", issue.code.as_str()));
                    lines.push(format!("  subject: {}", issue.subject.show(ctx)));
                    lines.push(format!("  parent: {}", issue.parent));
                } else {
                    lines.push(line);
                }
                let ids: Vec<String> = issue.path.iter().map(|i| i.show(ctx)).collect();
                let line = format!("Issue path: {}", ids.join(" -> "));
                if line.len() > WIDTH {
                    lines.push(format!("Issue path: {}", ids[0]));
                    lines.extend(ids[1..].iter().map(|i| format!("  -> {i}")));
                } else {
                    lines.push(line);
                }
            }
        }
    }
    if show_unattributed {
        lines.push("Unattributed users (not attributed to runtime tree):".to_string());
        if report.unattributed.is_empty() {
            lines.push("  none observed".to_string());
        }
        for u in &report.unattributed {
            lines.push(format!(
                "  [not attributed] InferenceService/{}/{}",
                u.namespace, u.name
            ));
            lines.push(format!("  state=Unresolved reason={}", u.reason));
            if let Some(d) = &u.declared {
                lines.push(format!("  declared runtime={d}"));
            }
        }
    }
    lines.push("Snapshot: Complete".to_string());
    for c in &report.collections {
        let head = format!("Collection: {} scope={}", c.kind, c.scope);
        let tail = format!("status=Complete pages=1 items={}", c.items);
        if head.len() + 1 + tail.len() > WIDTH {
            lines.push(head);
            lines.push(format!("  {tail}"));
        } else {
            lines.push(format!("{head} {tail}"));
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The report as JSON: kubectl ome's `RuntimeTreeReport` envelope and content, with
/// ome-render's additions on each dependent (`selection`, `pin`).
pub(crate) fn render_json(report: &Report, show_unattributed: bool) -> String {
    let null = || Node::made(Value::Null);
    let (target, name) = match &report.target {
        Target::Runtime(id) => (id.json(), id.name.clone()),
        Target::InferenceService { namespace, name } => (
            Node::map(crate::map! {
                "kind" => Node::str("InferenceService"),
                "namespace" => Node::str(namespace.clone()),
                "name" => Node::str(name.clone()),
            }),
            name.clone(),
        ),
    };
    let contexts = report
        .contexts
        .iter()
        .map(|c| {
            let mut ctx = crate::map! {
                "mode" => Node::str(if c.namespace.is_some() { "Namespaced" } else { "Cluster" }),
            };
            if let Some(ns) = &c.namespace {
                ctx.insert("namespace", Node::str(ns.clone()));
            }
            let paths = c
                .paths
                .iter()
                .map(|p| {
                    let runtimes = p
                        .runtimes
                        .iter()
                        .map(|(id, parent, resolved)| {
                            let mut m = crate::map! { "identity" => id.json() };
                            if let Some(parent) = parent {
                                m.insert("parentName", Node::str(parent.clone()));
                            }
                            if let Some(r) = resolved {
                                m.insert("resolvedParent", r.json());
                            }
                            Node::map(m)
                        })
                        .collect();
                    let dependents = p
                        .dependents
                        .iter()
                        .map(|d| {
                            Node::map(crate::map! {
                                "kind" => Node::str("InferenceService"),
                                "namespace" => Node::str(d.namespace.clone()),
                                "name" => Node::str(d.name.clone()),
                                "selection" => Node::str(if d.auto_selected { "AutoSelected" } else { "Named" }),
                                "pin" => d.pin.clone().map_or_else(null, Node::str),
                            })
                        })
                        .collect();
                    let mut m = crate::map! {
                        "head" => p.head.json(),
                        "runtimes" => Node::seq(runtimes),
                        "dependents" => Node::seq(dependents),
                    };
                    if let Some(i) = &p.issue {
                        m.insert(
                            "issue",
                            Node::map(crate::map! {
                                "code" => Node::str(i.code.as_str()),
                                "subject" => i.subject.json(),
                                "parentName" => Node::str(i.parent.clone()),
                                "path" => Node::seq(i.path.iter().map(Shown::json).collect()),
                            }),
                        );
                    }
                    Node::map(m)
                })
                .collect();
            Node::map(crate::map! {
                "context" => Node::map(ctx),
                "resolutionCompleteness" => Node::str("Complete"),
                "paths" => Node::seq(paths),
            })
        })
        .collect();
    let collections = report
        .collections
        .iter()
        .map(|c| {
            let (scope, ns) = match c.scope.split_once('/') {
                Some((s, ns)) => (s.to_string(), Some(ns.to_string())),
                None => (c.scope.clone(), None),
            };
            let mut m = crate::map! {
                "kind" => Node::str(c.kind),
                "scope" => Node::str(scope),
            };
            if let Some(ns) = ns {
                m.insert("namespace", Node::str(ns));
            }
            m.insert("status", Node::str("Complete"));
            m.insert("observedPages", Node::int(1));
            m.insert(
                "observedItems",
                Node::int(i64::try_from(c.items).unwrap_or(i64::MAX)),
            );
            Node::map(m)
        })
        .collect();
    let mut content = crate::map! {
        "target" => target,
        "snapshot" => Node::map(crate::map! {
            "completeness" => Node::str("Complete"),
            "collections" => Node::seq(collections),
        }),
        "contexts" => Node::seq(contexts),
    };
    if show_unattributed {
        let users = report
            .unattributed
            .iter()
            .map(|u| {
                Node::map(crate::map! {
                    "kind" => Node::str("InferenceService"),
                    "namespace" => Node::str(u.namespace.clone()),
                    "name" => Node::str(u.name.clone()),
                    "state" => Node::str("Unresolved"),
                    "reason" => Node::str(u.reason),
                    "declaredRuntime" => u.declared.clone().map_or_else(null, Node::str),
                })
            })
            .collect();
        content.insert("unattributedUsers", Node::seq(users));
    }
    let mut out = to_json_string(&Node::map(crate::map! {
        "apiVersion" => Node::str("cli.ome.io/v1alpha1"),
        "kind" => Node::str("RuntimeTreeReport"),
        "metadata" => Node::map(crate::map! { "name" => Node::str(name) }),
        "content" => Node::map(content),
    }));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inherit::resolve_all;

    fn catalog(yaml: &str) -> Catalog {
        let loaded = crate::load::from_texts(&[("in.yaml", yaml)], &crate::load::Limits::default());
        crate::catalog::build(loaded.objects, "default", "ome", false).0
    }

    fn table(yaml: &str, name: &str, kind: Option<Scope>, namespace: &str) -> String {
        let c = catalog(yaml);
        let (inherited, _) = resolve_all(&c);
        let resolver = Resolver::new(&c, &inherited);
        let t = target(&c, name, kind, namespace).expect("a target");
        render_table(&runtime_tree(&c, &resolver, t), true)
    }

    /// `tree NAME` with a misspelt name suggests the close one; `tree DIR` over inputs
    /// without runtimes is an error naming the path.
    #[test]
    fn named_and_root_trees_say_why_there_is_none() {
        let c = catalog(&csr("vllm-base", None));
        let (inherited, _) = resolve_all(&c);
        let resolver = Resolver::new(&c, &inherited);
        let d = named_tree(&c, &resolver, "vllm-bsae", None, "default").expect_err("misspelt");
        assert_eq!(d.code, Code::RuntimeNotFound);
        assert!(
            d.help.as_deref().is_some_and(|h| h.contains("vllm-base")),
            "{d:?}"
        );
        assert!(named_tree(&c, &resolver, "vllm-base", None, "default").is_ok());
        let none = root_trees(&c, &resolver, Some(Scope::Namespaced), "dir".as_ref())
            .expect_err("no ServingRuntime");
        assert_eq!(none.message, "no runtime among the inputs of dir");
        assert_eq!(
            runtime_kind(Some("Runtime")).unwrap_err(),
            "unsupported runtime kind \"Runtime\" (supported: ServingRuntime, ClusterServingRuntime)"
        );
    }

    fn csr(name: &str, parent: Option<&str>) -> String {
        let ann = parent.map_or(String::new(), |p| {
            format!("\n  annotations: {{ome.io/inherit-from: {p}}}")
        });
        format!(
            r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {name}{ann}
spec: {{}}
---
"
        )
    }

    fn sr(ns: &str, name: &str, parent: Option<&str>) -> String {
        let ann = parent.map_or(String::new(), |p| {
            format!("\n  annotations: {{ome.io/inherit-from: {p}}}")
        });
        format!(
            r"apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: {name}
  namespace: {ns}{ann}
spec: {{}}
---
"
        )
    }

    fn isvc(ns: &str, name: &str, runtime: &str) -> String {
        format!(
            r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: {name}, namespace: {ns}}}
spec:
  runtime: {{{runtime}}}
  engine: {{}}
---
"
        )
    }

    /// T1, the docs' example (their cluster has two more ClusterServingRuntimes, hence
    /// `items=4` there).
    #[test]
    fn t1_the_docs_tree() {
        let yaml = [
            csr("vllm-base", None),
            csr("vllm-llama", Some("vllm-base")),
            sr("team-a", "team-llama", Some("vllm-llama")),
            isvc("team-a", "llama-chat", "name: vllm-llama"),
            isvc("team-b", "llama-batch", "name: vllm-llama"),
            isvc("team-a", "llama-dev", "name: team-llama"),
            r"apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: llama-auto, namespace: team-b}
spec: {model: {name: absent}, engine: {}}
"
            .to_string(),
        ]
        .concat();
        assert_eq!(
            table(&yaml, "vllm-llama", None, "team-a"),
            "RUNTIME TREE
Target: ClusterServingRuntime/vllm-llama
Context: Cluster (resolution: Complete)
Head: ClusterServingRuntime/vllm-llama
ClusterServingRuntime/vllm-base
`-- ClusterServingRuntime/vllm-llama [selected]
    |-- InferenceService/team-a/llama-chat
    `-- InferenceService/team-b/llama-batch
Context: Namespaced/team-a (resolution: Complete)
Head: ServingRuntime/team-llama
ClusterServingRuntime/vllm-base
`-- ClusterServingRuntime/vllm-llama [selected]
    `-- ServingRuntime/team-llama
        `-- InferenceService/llama-dev
Unattributed users (not attributed to runtime tree):
  [not attributed] InferenceService/team-b/llama-auto
  state=Unresolved reason=AutomaticSelection
Snapshot: Complete
Collection: ClusterServingRuntime scope=Cluster status=Complete pages=1 items=2
Collection: ServingRuntime scope=AllNamespaces status=Complete pages=1 items=1
Collection: InferenceService scope=AllNamespaces status=Complete pages=1 items=4
"
        );
        let sr_tree = table(&yaml, "team-llama", None, "team-a");
        assert!(sr_tree.contains("Target: ServingRuntime/team-a/team-llama\n"));
        assert!(sr_tree.contains(
            "    `-- ServingRuntime/team-llama [selected]\n        `-- InferenceService/llama-dev\n"
        ));
        assert!(sr_tree.ends_with("Collection: ServingRuntime scope=Namespace/team-a\n  status=Complete pages=1 items=1\nCollection: InferenceService scope=Namespace/team-a\n  status=Complete pages=1 items=2\n"));
    }

    /// T2: a ServingRuntime shadows a same-named ClusterServingRuntime on every hop; heads
    /// come target first, then by kind, namespace, name.
    #[test]
    fn t2_shadowing_and_head_order() {
        let yaml = [
            csr("root", None),
            csr("cluster-base", Some("root")),
            csr("collision", Some("cluster-base")),
            sr("n", "bridge", Some("cluster-base")),
            sr("n", "branch-a", Some("bridge")),
            sr("n", "collision", Some("bridge")),
            sr("n", "leaf-a", Some("branch-a")),
            sr("n", "leaf-b", Some("collision")),
            isvc("n", "isvc-root", "name: root"),
            isvc(
                "n",
                "isvc-cluster-collision",
                "name: collision, kind: ClusterServingRuntime",
            ),
            isvc(
                "n",
                "isvc-local-collision",
                "name: collision, kind: ServingRuntime",
            ),
            isvc("n", "isvc-leaf-a", "name: leaf-a, kind: ServingRuntime"),
            isvc("n", "isvc-leaf-b", "name: leaf-b, kind: ServingRuntime"),
        ]
        .concat();
        let t = table(&yaml, "bridge", Some(Scope::Namespaced), "n");
        let heads: Vec<&str> = t.lines().filter(|l| l.starts_with("Head: ")).collect();
        assert_eq!(
            heads,
            [
                "Head: ServingRuntime/bridge",
                "Head: ServingRuntime/branch-a",
                "Head: ServingRuntime/collision",
                "Head: ServingRuntime/leaf-a",
                "Head: ServingRuntime/leaf-b"
            ]
        );
        assert!(t.contains("Head: ServingRuntime/leaf-b\nClusterServingRuntime/root\n`-- ClusterServingRuntime/cluster-base\n    `-- ServingRuntime/bridge [selected]\n        `-- ServingRuntime/collision\n            `-- ServingRuntime/leaf-b\n                `-- InferenceService/isvc-leaf-b\n"), "{t}");
        assert!(t.contains("`-- ServingRuntime/collision\n            `-- InferenceService/isvc-local-collision\n"), "{t}");
        assert!(
            !t.contains("isvc-root") && !t.contains("isvc-cluster-collision"),
            "{t}"
        );
        // Without a kind, `collision` is ambiguous.
        let c = catalog(&yaml);
        assert_eq!(
            target(&c, "collision", None, "n").unwrap_err().to_string(),
            "runtime \"collision\" is ambiguous; pass --kind ServingRuntime or --kind ClusterServingRuntime: runtime target is ambiguous: \"collision\" matched 2 runtimes"
        );
        let cluster = table(&yaml, "collision", Some(Scope::Cluster), "n");
        assert!(
            cluster.contains("InferenceService/n/isvc-cluster-collision"),
            "{cluster}"
        );
        assert!(!cluster.contains("isvc-local-collision"), "{cluster}");
        assert_eq!(
            target(&c, "absent", None, "n").unwrap_err().to_string(),
            "project runtime inheritance tree: runtime target was not found: \"absent\""
        );
        // A name no runtime can have is refused as such, with apimachinery's message.
        let invalid = target(&c, "Bad_Name", None, "n").unwrap_err().to_string();
        assert!(
            invalid.starts_with(
                "runtime name \"Bad_Name\" is invalid: a lowercase RFC 1123 subdomain"
            ),
            "{invalid}"
        );
    }

    /// T3: where a walk stops: a missing parent, a cycle, a chain too deep.
    #[test]
    fn t3_issues() {
        let t = table(&csr("orphan", Some("missing")), "orphan", None, "default");
        assert!(t.contains("Head: ClusterServingRuntime/orphan\nClusterServingRuntime/orphan [selected]\nIssue: ParentMissing subject=ClusterServingRuntime/orphan parent=missing\nIssue path: ClusterServingRuntime/orphan\n"), "{t}");
        let cycle = [
            csr("cycle-a", Some("cycle-b")),
            csr("cycle-b", Some("cycle-a")),
        ]
        .concat();
        let t = table(&cycle, "cycle-a", None, "default");
        assert!(t.contains("Head: ClusterServingRuntime/cycle-a\nClusterServingRuntime/cycle-b\n`-- ClusterServingRuntime/cycle-a [selected]\nIssue: CycleDetected subject=ClusterServingRuntime/cycle-a parent=cycle-a\nIssue path: ClusterServingRuntime/cycle-a\n  -> ClusterServingRuntime/cycle-b\n  -> ClusterServingRuntime/cycle-a\n"), "{t}");
        let deep: String = (0..6)
            .map(|i| {
                csr(
                    &format!("depth-{i}"),
                    (i < 5).then(|| format!("depth-{}", i + 1)).as_deref(),
                )
            })
            .collect();
        let t = table(&deep, "depth-0", None, "default");
        assert!(
            t.contains(
                "Issue: MaxDepthExceeded subject=ClusterServingRuntime/depth-0 parent=depth-5\n"
            ),
            "{t}"
        );
        // The path is longer than 80 columns: it continues below, one runtime per line.
        assert!(t.contains("Issue path: ClusterServingRuntime/depth-0\n  -> ClusterServingRuntime/depth-1\n  -> ClusterServingRuntime/depth-2\n  -> ClusterServingRuntime/depth-3\n  -> ClusterServingRuntime/depth-4\n"), "{t}");
    }

    /// T4, as a render resolves `spec.runtime` (SEMANTICS.md#choice-tree-attribution): no kind
    /// is the CRD default, ClusterServingRuntime, which falls back to the namespace's
    /// ServingRuntime; `kind: ServingRuntime` looks in the namespace only.
    #[test]
    fn t4_attribution_by_kind() {
        let yaml = [
            csr("shared", None),
            sr("team-a", "shared", None),
            isvc("team-a", "no-kind", "name: shared"),
            isvc(
                "team-a",
                "cluster-kind",
                "name: shared, kind: ClusterServingRuntime",
            ),
            isvc(
                "team-a",
                "namespaced-kind",
                "name: shared, kind: ServingRuntime",
            ),
            isvc("team-a", "other-kind", "name: shared, kind: OtherRuntime"),
        ]
        .concat();
        let t = table(&yaml, "shared", Some(Scope::Namespaced), "team-a");
        assert!(t.contains("ServingRuntime/shared [selected]\n`-- InferenceService/namespaced-kind\nUnattributed"), "{t}");
        assert!(!t.contains("no-kind") && !t.contains("cluster-kind"), "{t}");
        let t = table(&yaml, "shared", Some(Scope::Cluster), "team-a");
        assert!(t.contains("ClusterServingRuntime/shared [selected]\n|-- InferenceService/team-a/cluster-kind\n`-- InferenceService/team-a/no-kind\n"), "{t}");
        assert!(t.contains("  [not attributed] InferenceService/team-a/other-kind\n  state=Unresolved reason=RuntimeNotFound\n  declared runtime=shared\n"), "{t}");
    }

    /// T5: long names are printed whole (SEMANTICS.md#choice-tree-width), with each branch
    /// marker on the line of its identity.
    #[test]
    fn t5_long_names_are_not_clipped() {
        let name = |c: char| c.to_string().repeat(253);
        let yaml = [
            csr(&name('a'), None),
            csr(&name('b'), Some(&name('a'))),
            isvc("ns", "svc", &format!("name: {}", name('b'))),
        ]
        .concat();
        let t = table(&yaml, &name('b'), None, "ns");
        assert!(
            t.contains(&format!(
                "`-- ClusterServingRuntime/{} [selected]\n",
                name('b')
            )),
            "{t}"
        );
        assert!(t.contains("    `-- InferenceService/ns/svc\n"), "{t}");
    }
}
