//! Checks of each runtime against the catalog, as OME's runtime admission webhook makes them
//! (v1.3), plus one it doesn't make:
//!
//! - `acceleratorRequirements.acceleratorClasses` naming classes that are not loaded: a
//!   warning, since classes are cluster infrastructure often kept in another repository
//!   (SEMANTICS.md#choice-missing-classes; `--strict` makes it an error);
//! - two `autoSelect: true` entries of one runtime with the same `name` (or both unnamed)
//!   and different priorities: OME's webhook rejects the runtime when it is applied. The
//!   rendered output does not contain the runtime, so this is a warning, as for unknown
//!   classes (`--strict` makes both errors);
//! - two enabled runtimes of one scope (ServingRuntimes of a namespace, or
//!   ClusterServingRuntimes) sharing a protocol version, the same size range and an equal
//!   `autoSelect: true` entry with the same priority: OME's webhook rejects the second one
//!   applied (RT-08). A warning for the same reason as the priorities above;
//! - an `acceleratorConfig` key that names no class the runtime lists or the inputs define:
//!   OME ignores it silently; ome-render warns, with the closest class name.
//!
//! Disabled runtimes skip these checks, as in OME. The per-runtime rules of OME's webhook
//! that need no other object are in `model::validate::runtime`.

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic, suggest};
use crate::model::{FormatRef, Runtime, Scope, SupportedFormat};
use crate::yaml::Node;
use std::collections::BTreeMap;

pub(crate) fn check_runtimes(catalog: &Catalog) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for runtime in catalog
        .runtimes
        .values()
        .chain(catalog.cluster_runtimes.values())
    {
        if runtime.spec.disabled {
            continue;
        }
        unknown_classes(runtime, catalog, &mut diags);
        priorities(runtime, &mut diags);
        config_keys(runtime, catalog, &mut diags);
    }
    same_priorities(catalog, &mut diags);
    diags
}

fn unknown_classes(runtime: &Runtime, catalog: &Catalog, diags: &mut Vec<Diagnostic>) {
    let listed = runtime.spec.accelerator_classes.as_deref().unwrap_or(&[]);
    let missing: Vec<&str> = listed
        .iter()
        .map(String::as_str)
        .filter(|c| !catalog.accelerator_classes.contains_key(*c))
        .collect();
    if missing.is_empty() {
        return;
    }
    let pos = runtime
        .spec
        .spec
        .at(&["acceleratorRequirements", "acceleratorClasses"])
        .map_or(runtime.pos, |n| n.pos);
    diags.push(
        Diagnostic::warning(
            Code::AcceleratorClassUnknown,
            format!(
                "unknown accelerator classes referenced in AcceleratorRequirements: [{}]",
                missing.join(" ")
            ),
        )
        .at(pos)
        .object(runtime.object.clone())
        .field("spec.acceleratorRequirements.acceleratorClasses")
        .help("OME's webhook rejects the runtime unless the cluster has these classes; add their files to the paths to check them, and to render components that choose them"),
    );
}

/// RT-07: OME remembers the priority of the first `autoSelect: true` entry of each name
/// and compares the later ones with it; a first entry without a priority compares nothing.
fn priorities(runtime: &Runtime, diags: &mut Vec<Diagnostic>) {
    let mut first: Vec<(&Option<String>, &SupportedFormat)> = Vec::new();
    for entry in runtime
        .spec
        .formats
        .iter()
        .filter(|e| e.auto_select == Some(true))
    {
        let Some((_, head)) = first.iter().find(|(n, _)| **n == entry.name) else {
            first.push((&entry.name, entry));
            continue;
        };
        if let (Some(pa), Some(pb)) = (head.priority, entry.priority)
            && pa != pb
        {
            let kind = match runtime.scope {
                Scope::Namespaced => "servingruntime",
                Scope::Cluster => "clusterservingruntime",
            };
            diags.push(
                Diagnostic::warning(
                    Code::RuntimePriorities,
                    format!(
                        "different priorities assigned for the model format {} under the {kind} {}",
                        entry.name.as_deref().unwrap_or(""),
                        runtime.name
                    ),
                )
                .at(entry.pos)
                .object(runtime.object.clone())
                .field("spec.supportedModelFormats")
                .related(head.pos, "the first entry of that name")
                .help("OME's webhook rejects this runtime; give autoSelect entries of the same name the same priority"),
            );
            return;
        }
    }
}

/// What makes two `autoSelect: true` entries of two runtimes "the same" to OME's webhook
/// (RT-08): the scope and namespace, the name (case-insensitive), the deprecated `version`,
/// the quantization, the format and framework after the CRD's defaults, the architecture,
/// the runtime's size range and the priority.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct EntryKey {
    scope: Scope,
    namespace: String,
    name: String,
    version: Option<String>,
    quantization: Option<String>,
    format: Option<FormatKey>,
    framework: Option<FormatKey>,
    architecture: Option<String>,
    size: Option<(Option<String>, Option<String>)>,
    priority: i64,
}

/// A format or framework after the CRD's defaults: name, version, operator, weight.
type FormatKey = (String, Option<String>, String, i64);

fn format_key(f: &Option<FormatRef>) -> Option<FormatKey> {
    f.as_ref().map(|f| {
        (
            f.name.clone(),
            f.version.clone(),
            f.operator.clone(),
            f.weight,
        )
    })
}

/// RT-08: equal entries with equal priorities in two runtimes of one scope that share a
/// protocol version. Entries are bucketed by [`EntryKey`], so the check is linear in the
/// entries; each conflicting pair is reported once, on the second runtime by name.
fn same_priorities(catalog: &Catalog, diags: &mut Vec<Diagnostic>) {
    let mut buckets: BTreeMap<EntryKey, Vec<(&Runtime, &SupportedFormat)>> = BTreeMap::new();
    for runtime in catalog
        .runtimes
        .values()
        .chain(catalog.cluster_runtimes.values())
        .filter(|r| !r.spec.disabled)
    {
        let entries = runtime
            .spec
            .spec
            .get("supportedModelFormats")
            .and_then(Node::as_seq)
            .unwrap_or(&[]);
        let size = runtime
            .spec
            .size_range
            .as_ref()
            .map(|s| (s.min.clone(), s.max.clone()));
        for (i, entry) in runtime.spec.formats.iter().enumerate() {
            let (Some(true), Some(priority)) = (entry.auto_select, entry.priority) else {
                continue;
            };
            let key = EntryKey {
                scope: runtime.scope,
                namespace: runtime.namespace.clone().unwrap_or_default(),
                name: entry.name.as_deref().unwrap_or("").to_lowercase(),
                version: entries
                    .get(i)
                    .and_then(|r| r.str_at(&["version"]))
                    .map(str::to_string),
                quantization: entry.quantization.clone(),
                format: format_key(&entry.model_format),
                framework: format_key(&entry.model_framework),
                architecture: entry.architecture.clone(),
                size: size.clone(),
                priority,
            };
            buckets.entry(key).or_default().push((runtime, entry));
        }
    }
    let protocols = |r: &Runtime| -> Vec<String> {
        r.spec
            .spec
            .get("protocolVersions")
            .and_then(Node::as_seq)
            .unwrap_or(&[])
            .iter()
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect()
    };
    let mut reported: Vec<(&str, &str)> = Vec::new();
    for (key, members) in &buckets {
        for (j, (b, entry)) in members.iter().enumerate() {
            for (a, _) in &members[..j] {
                if a.name == b.name || reported.contains(&(a.name.as_str(), b.name.as_str())) {
                    continue;
                }
                let pa = protocols(a);
                if !protocols(b).iter().any(|p| pa.contains(p)) {
                    continue;
                }
                reported.push((&a.name, &b.name));
                let name = entry.name.as_deref().unwrap_or("");
                let namespace = &key.namespace;
                let message = match key.scope {
                    Scope::Namespaced => format!(
                        "same priority assigned for the model format {name} in the servingruntimes {} and {} in namespace {namespace}",
                        a.name, b.name
                    ),
                    Scope::Cluster => format!(
                        "same priority assigned for the model format {name} in the clusterservingruntimes {} and {}",
                        a.name, b.name
                    ),
                };
                diags.push(
                    Diagnostic::warning(Code::RuntimePriorities, message)
                        .at(entry.pos)
                        .object(b.object.clone())
                        .field("spec.supportedModelFormats")
                        .related(a.pos, "the other runtime")
                        .help("OME's webhook rejects whichever of the two is applied second; give one of the entries another priority"),
                );
            }
        }
    }
}

fn config_keys(runtime: &Runtime, catalog: &Catalog, diags: &mut Vec<Diagnostic>) {
    let listed = runtime.spec.accelerator_classes.as_deref().unwrap_or(&[]);
    for (i, entry) in runtime.spec.formats.iter().enumerate() {
        for (class, config) in &entry.accelerator_config {
            if listed.contains(class) || catalog.accelerator_classes.contains_key(class) {
                continue;
            }
            let known: Vec<&str> = listed
                .iter()
                .map(String::as_str)
                .chain(catalog.accelerator_classes.keys().map(String::as_str))
                .collect();
            let mut d = Diagnostic::warning(
                Code::AcceleratorConfigKey,
                format!(
                    "acceleratorConfig key `{class}` names no accelerator class; OME ignores it"
                ),
            )
            .at(config.pos)
            .object(runtime.object.clone())
            .field(format!(
                "spec.supportedModelFormats[{i}].acceleratorConfig.{class}"
            ));
            d = match suggest::closest(class, &known) {
                Some(c) => d.help(format!("did you mean `{c}`?")),
                None => d.help("spell each key exactly as the class's name"),
            };
            diags.push(d);
        }
    }
}
