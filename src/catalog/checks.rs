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
//! - an `acceleratorConfig` key that names no class the runtime lists or the inputs define:
//!   OME ignores it silently; ome-render warns, with the closest class name.
//!
//! Disabled runtimes skip these checks, as in OME.

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic, suggest};
use crate::model::{Runtime, Scope};

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

fn priorities(runtime: &Runtime, diags: &mut Vec<Diagnostic>) {
    let entries: Vec<_> = runtime
        .spec
        .formats
        .iter()
        .filter(|e| e.auto_select == Some(true))
        .collect();
    for (i, a) in entries.iter().enumerate() {
        for b in &entries[..i] {
            if a.name == b.name
                && let (Some(pa), Some(pb)) = (a.priority, b.priority)
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
                            a.name.as_deref().unwrap_or(""),
                            runtime.name
                        ),
                    )
                    .at(a.pos)
                    .object(runtime.object.clone())
                    .field("spec.supportedModelFormats")
                    .related(b.pos, "the other entry")
                    .help("OME's webhook rejects this runtime; give autoSelect entries of the same name the same priority"),
                );
                return;
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
