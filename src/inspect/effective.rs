//! `explain --effective`: the runtime spec an InferenceService (or a runtime named directly)
//! is rendered from, after inheritance, the engine preset and the per-accelerator settings,
//! as YAML in which every value says which runtime, file and line it comes from
//! (SEMANTICS.md#effective).
//!
//! Merged nodes keep the position of the side they came from, so the origin of a value is the
//! runtime (or revision) whose file holds that position. Values the preset fills in have no
//! position in any input; values an `acceleratorConfig` entry writes point at that entry.

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic};
use crate::inherit::{self, Inherited};
use crate::merge::args::{apply_parallelism, merge_args};
use crate::model::{InferenceService, Role, Runtime, RuntimeSpec, Scope};
use crate::revision::gojson::canonical;
use crate::revision::{self, Revision, kind_name};
use crate::select::resolve::{Accelerator, Resolution, Resolver, named_runtime, resolve};
use crate::yaml::emit::inline_scalar;
use crate::yaml::{Map, Node, Pos, Value};
use std::collections::HashMap;

/// Where the values of the effective spec can come from.
#[derive(Clone, Debug)]
struct Origin {
    label: String,
    /// The spec whose nodes carry this origin's positions.
    spec: Node,
}

/// The effective spec of one runtime, with what is needed to annotate it.
#[derive(Clone, Debug)]
pub(crate) struct Effective {
    /// Header lines (without `# `).
    pub(crate) header: Vec<String>,
    pub(crate) spec: Node,
    origins: Vec<Origin>,
    /// The preset filled into the spec, whose values have no position.
    preset: Option<String>,
    /// Positions of `acceleratorConfig` entries, with their class.
    accelerator: HashMap<Pos, String>,
}

fn identity(r: &Runtime) -> String {
    match (&r.namespace, r.scope) {
        (Some(ns), Scope::Namespaced) => format!("{}/{ns}/{}", kind_name(r.scope), r.name),
        _ => format!("{}/{}", kind_name(r.scope), r.name),
    }
}

/// The chain of `runtime`, root first (just the runtime when its walk fails: the render
/// reports that).
fn chain<'a>(catalog: &'a Catalog, runtime: &'a Runtime) -> Vec<&'a Runtime> {
    let walk = inherit::walk(catalog, runtime);
    let mut chain = walk.chain;
    chain.reverse();
    chain
}

/// The hash line: OME's revision hash of `spec` and the name a pin would get.
fn hash_line(spec: &RuntimeSpec, kind: Scope, namespace: &str, runtime: &str) -> String {
    let c = canonical(&spec.spec);
    let short = c.sha256()[..8].to_string();
    match &c.opaque {
        None => format!(
            "revision hash: {short} (a pin would be {})",
            revision::name(kind, namespace, runtime, &short)
        ),
        Some(field) => format!(
            "revision hash: {short} (ome-render's own: {field} is outside its field table, so OME's may differ)"
        ),
    }
}

fn from_runtime(
    catalog: &Catalog,
    runtime: &Runtime,
    spec: &RuntimeSpec,
    inherits: bool,
) -> Effective {
    let chain = if inherits {
        chain(catalog, runtime)
    } else {
        vec![runtime]
    };
    let mut header = Vec::new();
    if chain.len() > 1 {
        header.push(format!(
            "inherits (root first): {}",
            chain
                .iter()
                .map(|r| identity(r))
                .collect::<Vec<_>>()
                .join(" -> ")
        ));
    }
    let preset = chain.iter().rev().find_map(|r| r.preset.clone());
    if let Some(p) = &preset {
        header.push(format!(
            "preset: {p} (ome.io/engine), filled in where the runtime leaves fields unset"
        ));
    }
    Effective {
        header,
        spec: spec.spec.clone(),
        origins: chain
            .iter()
            .map(|r| Origin {
                label: identity(r),
                spec: r.spec.spec.clone(),
            })
            .collect(),
        preset,
        accelerator: HashMap::new(),
    }
}

/// The effective spec of a runtime named directly (`--runtime`), as an InferenceService of
/// `namespace` naming it would use it.
fn for_runtime(
    catalog: &Catalog,
    inherited: &Inherited,
    runtime: &Runtime,
    namespace: &str,
) -> Result<Effective, String> {
    let spec = inherited.spec(runtime).map_err(str::to_string)?;
    let mut e = from_runtime(catalog, runtime, spec, true);
    e.header.insert(
        0,
        format!("Effective runtime spec of {}", identity(runtime)),
    );
    let ns = runtime.namespace.as_deref().unwrap_or(namespace);
    e.header
        .push(hash_line(spec, runtime.scope, ns, &runtime.name));
    Ok(e)
}

/// The effective spec of the runtime `--runtime NAME` names (of `kind` when given, else the
/// ClusterServingRuntime before the ServingRuntime of `namespace`), or the error saying there
/// is no such runtime (with a close name) or that its inheritance chain is broken.
pub(crate) fn named(
    catalog: &Catalog,
    inherited: &Inherited,
    name: &str,
    kind: Option<Scope>,
    namespace: &str,
) -> Result<Effective, Diagnostic> {
    let found = match kind {
        None => catalog
            .runtime(Scope::Cluster, namespace, name)
            .or_else(|| catalog.runtime(Scope::Namespaced, namespace, name)),
        Some(scope) => catalog.runtime(scope, namespace, name),
    };
    let Some(runtime) = found else {
        return Err(Diagnostic::error(
            Code::RuntimeNotFound,
            format!("runtime {name} not found in namespace {namespace} or at cluster scope"),
        )
        .help(
            crate::diagnostics::suggest::did_you_mean(name, catalog.runtime_names(kind, namespace))
                .unwrap_or_else(|| {
                    "add the runtime's file to the paths, or give its namespace with -n".to_string()
                }),
        ));
    };
    for_runtime(catalog, inherited, runtime, namespace).map_err(|message| {
        Diagnostic::error(Code::InvalidField, message)
            .at(runtime.pos)
            .object(runtime.object.clone())
            .field("metadata.annotations.ome.io/inherit-from")
    })
}

/// The effective spec the InferenceService `target` is rendered from (`--isvc`), or `None`
/// when there is no such InferenceService or it does not resolve; the reasons, and
/// rendering's warnings, go to `diags`.
pub(crate) fn of_isvc(
    catalog: &Catalog,
    inherited: &Inherited,
    target: &str,
    namespace: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Effective> {
    let isvc = catalog
        .inference_service_named(target, namespace)
        .map_err(|d| diags.push(d))
        .ok()?;
    let resolver = Resolver::new(catalog, inherited);
    let resolution = resolve(isvc, catalog, &resolver, diags)?;
    let pin = pin_of(isvc, catalog, inherited);
    Some(for_isvc(catalog, isvc, &resolution, pin))
}

/// The effective spec `isvc` is rendered from, given its resolution.
fn for_isvc(
    catalog: &Catalog,
    isvc: &InferenceService,
    resolution: &Resolution<'_>,
    (pinned, pin): (Option<&Revision>, Option<String>),
) -> Effective {
    let title = format!(
        "Effective runtime spec of InferenceService {}/{}",
        isvc.lookup_namespace, isvc.name
    );
    let mut e = if let Some(rev) = pinned {
        Effective {
            header: vec![
                format!(
                    "pinned: ControllerRevision/{}/{}, the merged spec of runtime {} when it was pinned",
                    rev.namespace, rev.name, rev.runtime_of
                ),
                format!("revision hash: {}", &rev.hash()[..8]),
            ],
            spec: rev.spec.spec.clone(),
            origins: vec![Origin {
                label: format!("ControllerRevision/{}/{}", rev.namespace, rev.name),
                spec: rev.spec.spec.clone(),
            }],
            preset: None,
            accelerator: HashMap::new(),
        }
    } else if let (Some(runtime_ref), Some(runtime)) =
        (isvc.runtime.as_ref(), named_runtime(isvc, catalog))
    {
        let mut e = from_runtime(catalog, runtime, resolution.runtime, true);
        e.header.insert(
            0,
            format!("runtime: {} (named in spec.runtime)", identity(runtime)),
        );
        let kind = crate::select::pins::declared_kind(runtime_ref);
        e.header.push(hash_line(
            resolution.runtime,
            kind,
            &isvc.lookup_namespace,
            &runtime.name,
        ));
        e
    } else {
        let runtime = catalog
            .runtimes
            .values()
            .chain(catalog.cluster_runtimes.values())
            .find(|r| std::ptr::eq(&r.spec, resolution.runtime));
        match runtime {
            Some(runtime) => {
                let mut e = from_runtime(catalog, runtime, resolution.runtime, false);
                e.header.insert(
                    0,
                    format!(
                        "runtime: {} (auto-selected: its own spec, without what it inherits)",
                        identity(runtime)
                    ),
                );
                e
            }
            None => Effective {
                header: Vec::new(),
                spec: resolution.runtime.spec.clone(),
                origins: Vec::new(),
                preset: None,
                accelerator: HashMap::new(),
            },
        }
    };
    e.header.insert(0, title);
    if let Some(pin) = pin {
        e.header
            .insert(2.min(e.header.len()), format!("pin: {pin}"));
    }
    for role in [Role::Engine, Role::Decoder] {
        if let Ok(Accelerator {
            class: Some(class),
            config,
        }) = resolution.accelerator(role)
        {
            e.header.push(format!(
                "accelerator: {role} runs on {}{}",
                class.name,
                if config.is_some() {
                    format!(" (acceleratorConfig[{}] applied)", class.name)
                } else {
                    String::new()
                }
            ));
            if let Some(config) = config {
                e.accelerator.insert(config.pos, class.name.clone());
                apply_accelerator(&mut e.spec, role, config);
            }
        }
    }
    e
}

/// How `isvc` is pinned: the revision it renders from (if it renders from one) and a
/// description of the pin (if it is pinned).
fn pin_of<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    inherited: &Inherited,
) -> (Option<&'a Revision>, Option<String>) {
    if isvc.runtime.is_none() {
        return (None, None);
    }
    let live = named_runtime(isvc, catalog)
        .and_then(|r| inherited.spec(r).ok())
        .map(crate::select::pins::Live::of);
    let status = crate::select::pins::status(isvc, catalog, live.as_ref());
    (status.revision(), status.label())
}

/// An `acceleratorConfig` entry's environment, arguments and parallelism, applied to the
/// runners of `role`'s config as rendering applies them (SEMANTICS.md#pods).
fn apply_accelerator(
    spec: &mut Node,
    role: Role,
    config: &crate::model::runtime::AcceleratorModelConfig,
) {
    let Some(component) = spec
        .as_map_mut()
        .and_then(|m| m.get_mut(role.config_key()))
        .and_then(Node::as_map_mut)
    else {
        return;
    };
    for key in ["runner", "leader", "worker"] {
        let runner = match key {
            "runner" => component.get_mut("runner"),
            other => component
                .get_mut(other)
                .and_then(Node::as_map_mut)
                .and_then(|m| m.get_mut("runner")),
        };
        let Some(runner) = runner.and_then(Node::as_map_mut) else {
            continue;
        };
        let made = |s: String| Node::new(Value::Str(s), config.pos);
        let env = (!config.environment_override.is_empty())
            .then(|| runner.entry_or("env", || Node::seq(Vec::new())));
        if let Some(items) = env.and_then(Node::as_seq_mut) {
            // The first variable of each name, indexed once: a long list costs its length.
            let mut first: HashMap<String, usize> = HashMap::new();
            for (i, e) in items.iter().enumerate() {
                if let Some(name) = e.str_at(&["name"]) {
                    first.entry(name.to_string()).or_insert(i);
                }
            }
            for (name, value) in &config.environment_override {
                match first.get(name) {
                    Some(&i) => {
                        if let Some(m) = items[i].as_map_mut() {
                            m.insert("value", made(value.clone()));
                        }
                    }
                    None => {
                        first.insert(name.clone(), items.len());
                        items.push(Node::new(
                            Value::Map(crate::map! {
                                "name" => made(name.clone()),
                                "value" => made(value.clone()),
                            }),
                            config.pos,
                        ));
                    }
                }
            }
        }
        let strings = |n: Option<&Node>| -> Vec<String> {
            n.and_then(Node::as_seq)
                .map(|s| s.iter().filter_map(Node::scalar_text).collect())
                .unwrap_or_default()
        };
        // Keep each original item (and its origin) where the text did not change.
        let rebuild = |old: Option<&Node>, new: Vec<String>| -> Node {
            let items = old.and_then(Node::as_seq).unwrap_or(&[]);
            Node::seq(
                new.into_iter()
                    .map(
                        |s| match items.iter().find(|n| n.as_str() == Some(s.as_str())) {
                            Some(n) => n.clone(),
                            None => made(s),
                        },
                    )
                    .collect(),
            )
        };
        if !config.runtime_args_override.is_empty() {
            let current = runner.get("args").map(|_| strings(runner.get("args")));
            if let Some(merged) = merge_args(current.as_deref(), &config.runtime_args_override) {
                let node = rebuild(runner.get("args"), merged);
                runner.insert("args", node);
            }
        }
        if let Some(tp) = config.tensor_parallelism {
            let mut a = strings(runner.get("args"));
            let mut c = strings(runner.get("command"));
            apply_parallelism(
                &mut a,
                &mut c,
                tp.tensor_parallel_size,
                tp.pipeline_parallel_size,
            );
            if a != strings(runner.get("args")) {
                let node = rebuild(runner.get("args"), a);
                runner.insert("args", node);
            }
            if c != strings(runner.get("command")) {
                let node = rebuild(runner.get("command"), c);
                runner.insert("command", node);
            }
        }
    }
}

/// The annotated YAML. `source` gives a position's `file:line`.
pub(crate) fn render(e: &Effective, source: impl Fn(Pos) -> Option<String>) -> String {
    let mut owner: HashMap<Pos, usize> = HashMap::new();
    for (i, o) in e.origins.iter().enumerate() {
        index(&o.spec, i, &mut owner);
    }
    let origin = |pos: Pos| -> String {
        if pos.is_none() {
            return match &e.preset {
                Some(p) => format!("preset {p}"),
                None => "ome-render".to_string(),
            };
        }
        let place = source(pos).unwrap_or_else(|| "-".to_string());
        let label = owner
            .get(&pos)
            .map_or("?", |i| e.origins[*i].label.as_str());
        match e.accelerator.get(&pos) {
            Some(class) => format!("acceleratorConfig[{class}] of {label}  {place}"),
            None => format!("{label}  {place}"),
        }
    };
    let mut lines: Vec<(String, Option<Pos>)> = Vec::new();
    match &e.spec.value {
        Value::Map(m) if !m.is_empty() => map_lines(m, 0, &mut lines),
        _ => lines.push(("{}".to_string(), None)),
    }
    let width = lines
        .iter()
        .filter(|(_, p)| p.is_some())
        .map(|(l, _)| l.chars().count())
        .filter(|w| *w <= 60)
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for h in &e.header {
        out.push_str("# ");
        out.push_str(h);
        out.push('\n');
    }
    for (line, pos) in lines {
        out.push_str(&line);
        if let Some(pos) = pos {
            let pad = width.saturating_sub(line.chars().count()) + 2;
            out.push_str(&" ".repeat(pad));
            out.push_str("# ");
            out.push_str(&origin(pos));
        }
        out.push('\n');
    }
    out
}

fn index(node: &Node, owner: usize, out: &mut HashMap<Pos, usize>) {
    if !node.pos.is_none() {
        out.entry(node.pos).or_insert(owner);
    }
    match &node.value {
        Value::Map(m) => m.iter().for_each(|(_, v)| index(v, owner, out)),
        Value::Seq(s) => s.iter().for_each(|v| index(v, owner, out)),
        _ => {}
    }
}

fn is_block(v: &Node) -> bool {
    match &v.value {
        Value::Map(m) => !m.is_empty(),
        Value::Seq(s) => !s.is_empty(),
        _ => false,
    }
}

/// Map entries at `ind`, kustomize's layout (list items at their key's indent).
fn map_lines(m: &Map, ind: usize, lines: &mut Vec<(String, Option<Pos>)>) {
    for (k, v) in m.iter() {
        let key = format!("{}{}:", " ".repeat(ind), inline_scalar(&Node::str(k)));
        value_lines(key, v, ind, lines);
    }
}

/// `prefix` (a key, or a list dash) followed by `v`.
fn value_lines(prefix: String, v: &Node, ind: usize, lines: &mut Vec<(String, Option<Pos>)>) {
    match &v.value {
        Value::Map(m) if !m.is_empty() => {
            lines.push((prefix, None));
            map_lines(m, ind + 2, lines);
        }
        Value::Seq(s) if !s.is_empty() => {
            lines.push((prefix, None));
            seq_lines(s, ind, lines);
        }
        _ => lines.push((format!("{prefix} {}", inline_scalar(v)), Some(v.pos))),
    }
}

fn seq_lines(items: &[Node], ind: usize, lines: &mut Vec<(String, Option<Pos>)>) {
    for item in items {
        let dash = format!("{}-", " ".repeat(ind));
        match &item.value {
            Value::Map(m) if !m.is_empty() => {
                // The first entry shares the dash's line.
                let mut first = true;
                for (k, v) in m.iter() {
                    let key = if first {
                        format!("{dash} {}:", inline_scalar(&Node::str(k)))
                    } else {
                        format!("{}{}:", " ".repeat(ind + 2), inline_scalar(&Node::str(k)))
                    };
                    first = false;
                    if is_block(v) {
                        value_lines(key, v, ind + 2, lines);
                    } else {
                        lines.push((format!("{key} {}", inline_scalar(v)), Some(v.pos)));
                    }
                }
            }
            Value::Seq(s) if !s.is_empty() => {
                lines.push((dash, None));
                seq_lines(s, ind + 2, lines);
            }
            _ => lines.push((format!("{dash} {}", inline_scalar(item)), Some(item.pos))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values the `sglang-pd` preset fills in say so; the runtime's own values name it.
    #[test]
    fn preset_values_are_annotated_as_the_preset() {
        let yaml = r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: pd
  annotations: {ome.io/engine: sglang-pd}
spec:
  engineConfig:
    runner: {image: mine:1}
";
        let loaded = crate::load::from_texts(&[("pd.yaml", yaml)], &crate::load::Limits::default());
        let sources = loaded.sources;
        let (catalog, _) = crate::catalog::build(loaded.objects, "default", "ome", false);
        let (inherited, _) = crate::inherit::resolve_all(&catalog);
        let runtime = catalog.runtime(Scope::Cluster, "default", "pd").unwrap();
        let e = for_runtime(&catalog, &inherited, runtime, "default").unwrap();
        let text = render(&e, |pos| {
            sources.path(pos).map(|p| format!("{p}:{}", pos.line))
        });
        assert!(
            text.contains("# preset: sglang-pd (ome.io/engine)"),
            "{text}"
        );
        let line = |needle: &str| {
            text.lines()
                .find(|l| l.contains(needle))
                .unwrap_or_default()
                .to_string()
        };
        assert!(
            line("image: mine:1").ends_with("# ClusterServingRuntime/pd  pd.yaml:8"),
            "{text}"
        );
        assert!(
            line("name: ome-container").ends_with("# preset sglang-pd"),
            "{text}"
        );
        assert!(
            line("--disaggregation-mode").ends_with("# preset sglang-pd"),
            "{text}"
        );
    }

    /// `--runtime` with a misspelt name, or with `--kind` of the other scope: not found, with
    /// the close name of that scope when there is one.
    #[test]
    fn a_named_runtime_that_is_not_there() {
        let yaml = r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: vllm-base}
spec: {}
";
        let loaded = crate::load::from_texts(&[("in.yaml", yaml)], &crate::load::Limits::default());
        let (catalog, _) = crate::catalog::build(loaded.objects, "default", "ome", false);
        let (inherited, _) = crate::inherit::resolve_all(&catalog);
        let d = named(&catalog, &inherited, "vllm-bsae", None, "team-a").expect_err("misspelt");
        assert_eq!(d.code, Code::RuntimeNotFound);
        assert_eq!(
            d.message,
            "runtime vllm-bsae not found in namespace team-a or at cluster scope"
        );
        assert!(
            d.help.as_deref().is_some_and(|h| h.contains("vllm-base")),
            "{d:?}"
        );
        let other = named(
            &catalog,
            &inherited,
            "vllm-base",
            Some(Scope::Namespaced),
            "team-a",
        );
        assert_eq!(
            other.expect_err("a ServingRuntime").code,
            Code::RuntimeNotFound
        );
        assert!(named(&catalog, &inherited, "vllm-base", None, "team-a").is_ok());
    }
}
