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
//!   applied (RT-08), once per runtime. A warning for the same reason as the priorities above;
//! - an `acceleratorConfig` key that names no class the runtime lists or the inputs define:
//!   OME ignores it silently; ome-render warns, with the closest class name.
//!
//! Disabled runtimes skip these checks, as in OME. The per-runtime rules of OME's webhook
//! that need no other object are in `admission::runtime`.

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic, suggest};
use crate::model::{FormatRef, Runtime, Scope, SupportedFormat};
use crate::yaml::Node;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

/// The fixed hasher of entry keys (a hash only sorts them together; equal keys decide).
type KeyHasher = BuildHasherDefault<DefaultHasher>;

pub(crate) fn check_runtimes(catalog: &Catalog) -> Vec<Diagnostic> {
    let enabled: Vec<&Runtime> = catalog
        .runtimes
        .values()
        .chain(catalog.cluster_runtimes.values())
        .filter(|r| !r.spec.disabled)
        .collect();
    // The rules of one runtime run in parallel; the acceleratorConfig keys then in runtime
    // order, since suggestions are counted across runtimes.
    let own: Vec<Vec<Diagnostic>> = enabled
        .par_iter()
        .map(|runtime| {
            let mut d = Vec::new();
            unknown_classes(runtime, catalog, &mut d);
            priorities(runtime, &mut d);
            d
        })
        .collect();
    let mut diags = Vec::new();
    let mut suggestions = SUGGESTIONS;
    for (runtime, d) in enabled.iter().zip(own) {
        diags.extend(d);
        config_keys(runtime, catalog, &mut suggestions, &mut diags);
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
    let mut first: HashMap<&Option<String>, &SupportedFormat> = HashMap::new();
    for entry in runtime
        .spec
        .formats
        .iter()
        .filter(|e| e.auto_select == Some(true))
    {
        let head = *first.entry(&entry.name).or_insert(entry);
        if std::ptr::eq(head, entry) {
            continue;
        }
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
/// the runtime's size range and the priority. Borrowed from the runtime: only a name with
/// capitals is copied, in lower case.
#[derive(PartialEq, Eq, Hash)]
struct EntryKey<'r> {
    scope: Scope,
    namespace: &'r str,
    name: Cow<'r, str>,
    version: Option<&'r str>,
    quantization: Option<&'r str>,
    format: Option<FormatKey<'r>>,
    framework: Option<FormatKey<'r>>,
    architecture: Option<&'r str>,
    size: Option<(Option<&'r str>, Option<&'r str>)>,
    priority: i64,
}

/// A format or framework after the CRD's defaults: name, version, operator, weight.
type FormatKey<'r> = (&'r str, Option<&'r str>, &'r str, i64);

fn format_key(f: &Option<FormatRef>) -> Option<FormatKey<'_>> {
    f.as_ref().map(|f| {
        (
            f.name.as_str(),
            f.version.as_deref(),
            f.operator.as_str(),
            f.weight,
        )
    })
}

/// `name` in lower case (Go's `strings.ToLower`, as `str::to_lowercase`), copied only when
/// that changes it.
fn lower(name: &str) -> Cow<'_, str> {
    if name.is_ascii() && !name.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(name.to_lowercase())
    }
}

/// Entries of one hash, as (hash, key, runtime index, entry index), split by key: each
/// key's (runtime index, entry index) pairs in their order. Keys of one hash are almost
/// always one key.
fn same_key<K: PartialEq>(same_hash: &[(u64, K, usize, usize)]) -> Vec<Vec<(usize, usize)>> {
    let mut buckets: Vec<(&K, Vec<(usize, usize)>)> = Vec::new();
    for (_, key, r, i) in same_hash {
        match buckets.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push((*r, *i)),
            None => buckets.push((key, vec![(*r, *i)])),
        }
    }
    buckets.into_iter().map(|(_, members)| members).collect()
}

/// Records in `first_conflict` the first conflict of each member of one bucket, given as
/// (runtime index, entry index) in runtime order.
fn first_conflicts(
    members: impl Iterator<Item = (usize, usize)>,
    protocols: &[Vec<&str>],
    first_conflict: &mut [Option<(usize, usize, usize)>],
) {
    // Per protocol: the first two runtimes of the bucket that speak it (a runtime does not
    // conflict with itself), with the entry each was first seen with.
    let mut first_two: HashMap<&str, [Option<(usize, usize)>; 2]> = HashMap::new();
    for (b, entry) in members {
        let mut found: Option<(usize, usize)> = None;
        for &p in &protocols[b] {
            let Some(firsts) = first_two.get(p) else {
                continue;
            };
            let other = firsts.iter().flatten().find(|(a, _)| *a != b);
            if let Some(&a) = other
                && found.is_none_or(|f| a < f)
            {
                found = Some(a);
            }
        }
        if let Some((a, a_entry)) = found {
            let conflict = (a, a_entry, entry);
            let slot = &mut first_conflict[b];
            if slot.is_none_or(|c| conflict < c) {
                *slot = Some(conflict);
            }
        }
        for &p in &protocols[b] {
            let firsts = first_two.entry(p).or_default();
            let seen = |s: &Option<(usize, usize)>| s.is_some_and(|(r, _)| r == b);
            if firsts.iter().any(seen) {
                continue;
            }
            if let Some(free) = firsts.iter_mut().find(|s| s.is_none()) {
                *free = Some((b, entry));
            }
        }
    }
}

/// The keys of `runtime`'s `autoSelect: true` entries that have a priority, with their
/// indices.
fn entry_keys(runtime: &Runtime) -> impl Iterator<Item = (EntryKey<'_>, usize)> + '_ {
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
        .map(|s| (s.min.as_deref(), s.max.as_deref()));
    runtime
        .spec
        .formats
        .iter()
        .enumerate()
        .filter_map(move |(i, entry)| {
            let (Some(true), Some(priority)) = (entry.auto_select, entry.priority) else {
                return None;
            };
            let key = EntryKey {
                scope: runtime.scope,
                namespace: runtime.namespace.as_deref().unwrap_or_default(),
                name: lower(entry.name.as_deref().unwrap_or("")),
                version: entries.get(i).and_then(|r| r.str_at(&["version"])),
                quantization: entry.quantization.as_deref(),
                format: format_key(&entry.model_format),
                framework: format_key(&entry.model_framework),
                architecture: entry.architecture.as_deref(),
                size,
                priority,
            };
            Some((key, i))
        })
}

/// RT-08: equal entries with equal priorities in two runtimes of one scope that share a
/// protocol version. OME's webhook compares a runtime being written with every existing one
/// and refuses it at the first conflict; here the runtimes earlier by name exist, so each
/// runtime gets at most one warning, naming the first runtime by name it conflicts with
/// (SEMANTICS.md#choice-runtime-priorities). Entries are bucketed by [`EntryKey`], and each
/// bucket remembers the first runtimes of each protocol, so the check is linear in the
/// entries times their runtimes' protocols: a thousand runtimes of one shape cost no more
/// than a thousand runtimes.
fn same_priorities(catalog: &Catalog, diags: &mut Vec<Diagnostic>) {
    let runtimes: Vec<&Runtime> = catalog
        .runtimes
        .values()
        .chain(catalog.cluster_runtimes.values())
        .filter(|r| !r.spec.disabled)
        .collect();
    // Each runtime's protocol versions, by its index in `runtimes`.
    let protocols: Vec<Vec<&str>> = runtimes
        .par_iter()
        .map(|r| {
            r.spec
                .spec
                .get("protocolVersions")
                .and_then(Node::as_seq)
                .unwrap_or(&[])
                .iter()
                .filter_map(Node::as_str)
                .collect()
        })
        .collect();
    // Every entry with its key (and the key's hash), runtime index and entry index, sorted
    // by hash, then runtime and entry: a bucket's members are then together, in runtime
    // order (name order within a scope and namespace), and sorting compares no strings.
    let mut keyed: Vec<(u64, EntryKey, usize, usize)> = runtimes
        .par_iter()
        .enumerate()
        .flat_map_iter(|(r, runtime)| {
            entry_keys(runtime)
                .map(move |(key, i)| (KeyHasher::default().hash_one(&key), key, r, i))
        })
        .collect();
    keyed.par_sort_unstable_by_key(|&(hash, _, r, i)| (hash, r, i));
    // Per runtime: its first conflict, as (existing runtime, existing entry, own entry),
    // the least in OME's loop order (existing runtime, its entry, the new entry).
    let mut first_conflict: Vec<Option<(usize, usize, usize)>> = vec![None; runtimes.len()];
    for same_hash in keyed.chunk_by(|a, b| a.0 == b.0) {
        for bucket in same_key(same_hash) {
            // A runtime does not conflict with itself.
            if bucket.iter().any(|m| m.0 != bucket[0].0) {
                first_conflicts(bucket.into_iter(), &protocols, &mut first_conflict);
            }
        }
    }
    for (b, conflict) in first_conflict.into_iter().enumerate() {
        let Some((a, _, entry)) = conflict else {
            continue;
        };
        let (a, b) = (runtimes[a], runtimes[b]);
        let entry = &b.spec.formats[entry];
        let name = entry.name.as_deref().unwrap_or("");
        let message = match b.scope {
            Scope::Namespaced => format!(
                "same priority assigned for the model format {name} in the servingruntimes {} and {} in namespace {}",
                a.name,
                b.name,
                b.namespace.as_deref().unwrap_or("")
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

/// How many "did you mean" searches the `acceleratorConfig` check makes in a run, and over
/// how many class names at most: each search compares the key with every name, so without a
/// bound a runtime of thousands of unknown keys and classes would cost their product.
/// Beyond either bound the help names no class.
const SUGGESTIONS: usize = 1000;
use crate::diagnostics::suggest::SUGGESTED_FROM;

fn config_keys(
    runtime: &Runtime,
    catalog: &Catalog,
    suggestions: &mut usize,
    diags: &mut Vec<Diagnostic>,
) {
    if runtime
        .spec
        .formats
        .iter()
        .all(|e| e.accelerator_config.is_empty())
    {
        return;
    }
    let listed: HashSet<&str> = runtime
        .spec
        .accelerator_classes
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    let mut known: Option<Vec<&str>> = None;
    for (i, entry) in runtime.spec.formats.iter().enumerate() {
        for (class, config) in &entry.accelerator_config {
            if listed.contains(class.as_str()) || catalog.accelerator_classes.contains_key(class) {
                continue;
            }
            let known = known.get_or_insert_with(|| {
                let mut names: Vec<&str> = runtime
                    .spec
                    .accelerator_classes
                    .iter()
                    .flatten()
                    .map(String::as_str)
                    .chain(catalog.accelerator_classes.keys().map(String::as_str))
                    .collect();
                names.truncate(SUGGESTED_FROM + 1);
                names
            });
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
            let close = if *suggestions > 0 && known.len() <= SUGGESTED_FROM {
                *suggestions -= 1;
                suggest::closest(class, known)
            } else {
                None
            };
            d = match close {
                Some(c) => d.help(format!("did you mean `{c}`?")),
                None => d.help("spell each key exactly as the class's name"),
            };
            diags.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{from_texts, limits::Limits};

    /// A ClusterServingRuntime with one `autoSelect` entry of priority 1, speaking
    /// `protocols`.
    fn runtime(name: &str, protocols: &str) -> String {
        format!(
            r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {{name: {name}}}
spec:
  protocolVersions: [{protocols}]
  supportedModelFormats:
    - {{name: llama, modelFormat: {{name: safetensors}}, modelFramework: {{name: transformers}}, autoSelect: true, priority: 1}}
  containers: [{{name: ome-container, image: img}}]
---
"
        )
    }

    #[test]
    fn entries_of_one_hash_split_by_key_in_order() {
        // As if "a" and "b" hashed alike: each key keeps its members in their order.
        let same_hash = [
            (7, "a", 0, 0),
            (7, "b", 1, 0),
            (7, "a", 2, 1),
            (7, "b", 3, 0),
        ];
        assert_eq!(
            same_key(&same_hash),
            vec![vec![(0, 0), (2, 1)], vec![(1, 0), (3, 0)]]
        );
        assert_eq!(same_key(&same_hash[..1]), vec![vec![(0, 0)]]);
    }

    fn same_priority_messages(text: &str) -> Vec<String> {
        let loaded = from_texts(&[("rt.yaml", text)], &Limits::default());
        let (catalog, _) = crate::catalog::build(loaded.objects, "default", "ome", false);
        let mut diags = Vec::new();
        same_priorities(&catalog, &mut diags);
        diags.into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn each_runtime_is_refused_once_for_the_first_runtime_it_conflicts_with() {
        let text = [
            runtime("rt-a", "openAI"),
            runtime("rt-b", "cohere"),
            runtime("rt-c", "cohere, openAI"),
            runtime("rt-d", "cohere"),
        ]
        .concat();
        assert_eq!(
            same_priority_messages(&text),
            [
                // rt-b speaks no protocol of rt-a's; rt-c meets rt-a first; rt-d meets rt-b.
                "same priority assigned for the model format llama in the clusterservingruntimes rt-a and rt-c",
                "same priority assigned for the model format llama in the clusterservingruntimes rt-b and rt-d",
            ]
        );
    }

    #[test]
    fn entry_names_are_compared_in_lower_case() {
        for (a, b) in [
            ("Llama", "llama"),
            ("LLAMA", "lLaMa"),
            ("ÉTÉ", "été"),
            ("ǅ", "ǆ"),
        ] {
            assert_eq!(lower(a), b.to_lowercase(), "{a}");
            let one = |rt: &str, name: &str| {
                runtime(rt, "openAI").replace("name: llama", &format!("name: \"{name}\""))
            };
            let text = [one("rt-a", a), one("rt-b", b)].concat();
            assert_eq!(
                same_priority_messages(&text),
                [format!(
                    "same priority assigned for the model format {b} in the clusterservingruntimes rt-a and rt-b"
                )],
                "{a} and {b}"
            );
        }
        assert!(matches!(lower("llama-3"), Cow::Borrowed(_)));
        assert_eq!(
            same_priority_messages(
                &[
                    runtime("rt-a", "openAI"),
                    runtime("rt-b", "openAI").replace("name: llama", "name: llamb")
                ]
                .concat()
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn many_runtimes_of_one_shape_get_one_warning_each() {
        let text: String = (0..3000)
            .map(|i| runtime(&format!("rt-{i:04}"), "openAI"))
            .collect();
        let messages = same_priority_messages(&text);
        assert_eq!(messages.len(), 2999);
        assert!(
            messages
                .iter()
                .all(|m| m.contains("clusterservingruntimes rt-0000 and"))
        );
    }

    #[test]
    fn did_you_mean_searches_are_bounded() {
        let keys: String = (0..1500)
            .map(|i| format!("        nvidia-h100-80gb-hbm3-s{i:04}: {{}}\n"))
            .collect();
        let text = format!(
            r"apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {{name: rt}}
spec:
  acceleratorRequirements: {{acceleratorClasses: [nvidia-h100-80gb-hbm3-sxm5]}}
  supportedModelFormats:
    - name: llama
      acceleratorConfig:
{keys}"
        );
        let loaded = from_texts(&[("rt.yaml", &text)], &Limits::default());
        let (catalog, _) = crate::catalog::build(loaded.objects, "default", "ome", false);
        let helps: Vec<String> = check_runtimes(&catalog)
            .into_iter()
            .filter(|d| d.code == Code::AcceleratorConfigKey)
            .filter_map(|d| d.help)
            .collect();
        assert_eq!(helps.len(), 1500);
        let suggested = helps
            .iter()
            .filter(|h| h.contains("`nvidia-h100-80gb-hbm3-sxm5`"))
            .count();
        assert_eq!(suggested, SUGGESTIONS);
    }
}
