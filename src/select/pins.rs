//! Pins (OME v1.3, SEMANTICS.md#pins): which snapshot of its runtime a pinned
//! InferenceService renders from, and what `ome-render pin` records.
//!
//! - An **explicit pin** (`spec.runtime.autoSync: false` with `revision`) renders from that
//!   ControllerRevision; runtime edits never move it.
//! - A **managed pin** (`autoSync: false`, no `revision`) renders from the revision
//!   `ome-render.lock` records for it, as OME renders from `status.pinnedRevisionName`.
//!   While the live runtime has the same content it renders the live spec; when the runtime
//!   changed it stays on the revision (drift) until `ome-render pin --advance`, or until its
//!   `ome.io/runtime-sync` annotation carries a token the lock has not acted on, which rolls
//!   it forward as OME does. Without a lock entry it renders the live runtime, which is what
//!   OME's first reconcile pins.
//!
//! [`status`] decides, purely; `resolve` turns the status into diagnostics and `pin` into a
//! new lock ([`plan`]).

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic};
use crate::model::inference_service::RuntimeRef;
use crate::model::{InferenceService, RuntimeSpec, Scope};
use crate::revision::gojson::{Canonical, canonical};
use crate::revision::lock::{Lock, LockEntry};
use crate::revision::{self, RUNTIME_SYNC, Revision, kind_name};
use crate::yaml::Node;
use std::collections::{BTreeMap, BTreeSet};

/// How `spec.runtime` asks to be pinned (kubectl ome's pin modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode<'a> {
    /// `autoSync` unset or `true`: the live runtime.
    AutoSync,
    /// `autoSync: false` with `revision`.
    Explicit(&'a str),
    /// `autoSync: false` without `revision`.
    Managed,
}

pub(crate) fn mode(runtime: &RuntimeRef) -> Mode<'_> {
    match (runtime.auto_sync, runtime.revision.as_deref()) {
        (Some(false), Some(rev)) => Mode::Explicit(rev),
        (Some(false), None) if !runtime.name.is_empty() => Mode::Managed,
        _ => Mode::AutoSync,
    }
}

/// The kind `spec.runtime` declares, which names the revision: `ServingRuntime`, else
/// `ClusterServingRuntime` (the CRD default).
pub(crate) fn declared_kind(runtime: &RuntimeRef) -> Scope {
    match runtime.kind.as_deref() {
        Some("ServingRuntime") => Scope::Namespaced,
        _ => Scope::Cluster,
    }
}

/// OME's admission check of `spec.runtime.revision`: it needs `autoSync: false` and a name of
/// the runtime's shape. Existence is checked later, as OME leaves it to the controller.
pub(crate) fn admission(isvc: &InferenceService) -> Result<(), Diagnostic> {
    let Some(runtime) = isvc.runtime.as_ref() else {
        return Ok(());
    };
    let Some(rev) = runtime.revision.as_deref() else {
        return Ok(());
    };
    let at = runtime.revision_pos.unwrap_or(runtime.pos);
    let error = |message: String| {
        Diagnostic::error(Code::PinInvalid, message)
            .at(at)
            .object(isvc.object.clone())
            .field("spec.runtime.revision")
    };
    if runtime.auto_sync != Some(false) {
        return Err(error(revision::AUTO_SYNC_REQUIRED.to_string()).help(
            "set `spec.runtime.autoSync: false` to pin, or remove `revision` to follow the runtime",
        ));
    }
    let kind = declared_kind(runtime);
    if !revision::matches_runtime(rev, kind, &isvc.lookup_namespace, &runtime.name) {
        return Err(error(revision::shape_error(
            rev,
            kind,
            &isvc.lookup_namespace,
            &runtime.name,
        ))
        .help(match kind {
            Scope::Cluster => "a ServingRuntime's revisions are named r-<namespace>-<runtime>-<hash>: set `spec.runtime.kind: ServingRuntime` if the runtime is one",
            Scope::Namespaced => "revisions of a ClusterServingRuntime are named cr-<runtime>-<hash>: set `spec.runtime.kind: ClusterServingRuntime` if the runtime is one",
        }));
    }
    Ok(())
}

/// Where a pinned InferenceService stands.
#[derive(Clone, Debug)]
pub(crate) enum Status<'a> {
    /// Not pinned.
    NotPinned,
    /// An explicit pin to a revision among the inputs.
    Explicit(&'a Revision),
    /// An explicit pin to a revision that is not among the inputs.
    ExplicitMissing(String),
    /// An explicit pin to a revision labelled for another runtime.
    ExplicitMismatch(&'a Revision),
    /// A managed pin without a lock entry: OME would pin the live spec as `name`.
    Unrecorded { name: String },
    /// The recorded revision has the live spec.
    Current(&'a LockEntry),
    /// The live spec changed and a new `ome.io/runtime-sync` token rolls the pin forward to
    /// `name`.
    Advancing {
        entry: &'a LockEntry,
        name: String,
        token: String,
    },
    /// The live spec changed: the pin stays on the revision.
    Drifted {
        entry: &'a LockEntry,
        revision: &'a Revision,
        fields: Vec<String>,
    },
    /// The runtime is gone; the pin renders from its revision.
    SourceMissing(&'a Revision),
    /// The lock records a revision that is not among the inputs.
    Missing(&'a LockEntry),
    /// The recorded revision's content no longer matches the lock.
    Tampered(&'a LockEntry, &'a Revision),
}

impl<'a> Status<'a> {
    /// The revision the InferenceService renders from, if not the live runtime.
    pub(crate) fn revision(&self) -> Option<&'a Revision> {
        match self {
            Status::Explicit(r)
            | Status::Drifted { revision: r, .. }
            | Status::SourceMissing(r) => Some(r),
            _ => None,
        }
    }

    /// A short description for reports (`tree`): what it renders and why.
    pub(crate) fn label(&self) -> Option<String> {
        Some(match self {
            Status::NotPinned => return None,
            Status::Explicit(r) => format!("pinned {}", r.name),
            Status::ExplicitMissing(rev) => format!("pinned {rev}, revision missing"),
            Status::ExplicitMismatch(r) => {
                format!("pinned {}, revision of runtime {}", r.name, r.runtime_of)
            }
            Status::Unrecorded { .. } => "managed pin, not in ome-render.lock".to_string(),
            Status::Current(e) => format!("pinned {}", e.revision),
            Status::Advancing { entry, name, .. } => {
                format!("pinned {}, advancing to {name}", entry.revision)
            }
            Status::Drifted { entry, .. } => format!("pinned {}, runtime changed", entry.revision),
            Status::SourceMissing(r) => format!("pinned {}, runtime missing", r.name),
            Status::Missing(e) => format!("pinned {}, revision missing", e.revision),
            Status::Tampered(e, _) => format!("pinned {}, revision edited", e.revision),
        })
    }
}

/// The live spec of a pinned InferenceService's runtime and its canonical form.
pub(crate) struct Live<'s> {
    pub(crate) spec: &'s RuntimeSpec,
    pub(crate) canonical: Canonical,
}

impl<'s> Live<'s> {
    pub(crate) fn of(spec: &'s RuntimeSpec) -> Live<'s> {
        Live {
            spec,
            canonical: canonical(&spec.spec),
        }
    }

    fn short(&self) -> String {
        self.canonical.sha256()[..8].to_string()
    }
}

/// The name a new pin of `runtime` with `hash8` gets: a revision among the inputs with that
/// runtime and hash (OME reuses the first it lists, by name), else OME's name for the
/// declared kind.
pub(crate) fn fresh_name(
    catalog: &Catalog,
    kind: Scope,
    namespace: &str,
    runtime: &str,
    hash8: &str,
) -> String {
    catalog
        .revisions
        .iter()
        .find(|((ns, _), r)| {
            *ns == catalog.ome_namespace
                && r.runtime_of == runtime
                && r.hash_label.as_deref() == Some(hash8)
        })
        .map_or_else(
            || revision::name(kind, namespace, runtime, hash8),
            |((_, name), _)| name.clone(),
        )
}

/// Where `isvc` stands. `live` is its runtime's live spec, `None` when the runtime is not
/// among the inputs.
pub(crate) fn status<'a>(
    isvc: &InferenceService,
    catalog: &'a Catalog,
    live: Option<&Live<'_>>,
) -> Status<'a> {
    let Some(runtime) = isvc.runtime.as_ref() else {
        return Status::NotPinned;
    };
    match mode(runtime) {
        Mode::AutoSync => Status::NotPinned,
        Mode::Explicit(rev) => match catalog.revision(rev) {
            None => Status::ExplicitMissing(rev.to_string()),
            Some(r) if r.runtime_of != runtime.name => Status::ExplicitMismatch(r),
            Some(r) if live.is_none() => Status::SourceMissing(r),
            Some(r) => Status::Explicit(r),
        },
        Mode::Managed => {
            let kind = declared_kind(runtime);
            let Some(entry) = catalog.lock.get(&isvc.lookup_namespace, &isvc.name) else {
                let hash8 = live.map_or_else(|| "????????".to_string(), Live::short);
                return Status::Unrecorded {
                    name: fresh_name(catalog, kind, &isvc.lookup_namespace, &runtime.name, &hash8),
                };
            };
            let Some(rev) = catalog.revision(&entry.revision) else {
                return Status::Missing(entry);
            };
            if rev.hash() != entry.sha256 {
                return Status::Tampered(entry, rev);
            }
            let Some(live) = live else {
                return Status::SourceMissing(rev);
            };
            if live.canonical.sha256() == entry.sha256 {
                return Status::Current(entry);
            }
            if let Some(token) = isvc.annotation(RUNTIME_SYNC).filter(|t| !t.is_empty())
                && entry.sync_token.as_deref() != Some(token)
            {
                return Status::Advancing {
                    entry,
                    name: fresh_name(
                        catalog,
                        kind,
                        &isvc.lookup_namespace,
                        &runtime.name,
                        &live.short(),
                    ),
                    token: token.to_string(),
                };
            }
            let mut fields = revision::differences(&rev.canonical.data, &live.canonical.data);
            if rev.runtime_of != runtime.name {
                fields.insert(0, format!("the revision is of runtime {}", rev.runtime_of));
            }
            Status::Drifted {
                entry,
                revision: rev,
                fields,
            }
        }
    }
}

/// The diagnostics of a status, for `isvc`. Errors stop the render of the InferenceService.
pub(crate) fn diagnostics(
    isvc: &InferenceService,
    catalog: &Catalog,
    status: &Status<'_>,
) -> Vec<Diagnostic> {
    let Some(runtime) = isvc.runtime.as_ref() else {
        return Vec::new();
    };
    let at = runtime.revision_pos.unwrap_or(runtime.pos);
    let ns = &catalog.ome_namespace;
    let target = format!("{}/{}", isvc.lookup_namespace, isvc.name);
    let on = |d: Diagnostic| d.at(at).object(isvc.object.clone());
    let advance = format!("`ome-render pin --advance {target}` pins the current runtime");
    let d = match status {
        Status::NotPinned | Status::Explicit(_) | Status::Current(..) => return Vec::new(),
        Status::ExplicitMissing(rev) => on(Diagnostic::error(
            Code::RevisionMissing,
            revision::explicit_missing(rev, ns),
        ))
        .field("spec.runtime.revision")
        .help(format!("add the revision's file to the paths (`kubectl get controllerrevision -n {ns} {rev} -o yaml`), or pin another one")),
        Status::ExplicitMismatch(r) => on(Diagnostic::error(
            Code::RevisionRuntimeMismatch,
            revision::runtime_mismatch(&r.name, &r.runtime_of, &runtime.name),
        ))
        .field("spec.runtime.revision")
        .related(r.pos, "the revision is defined here")
        .help("pin a revision of the runtime spec.runtime names"),
        Status::Unrecorded { name } => on(Diagnostic::note(
            Code::PinUnrecorded,
            format!(
                "managed pin (spec.runtime.autoSync: false) not recorded in ome-render.lock: rendered from the live runtime, which OME would pin as {name}"
            ),
        ))
        .field("spec.runtime.autoSync")
        .help("run `ome-render pin` to record the pin and write its revision"),
        Status::Advancing { entry, name, token } => on(Diagnostic::note(
            Code::PinUnrecorded,
            format!(
                "the {RUNTIME_SYNC} token \"{token}\" rolls this pin forward from {} to {name}, as OME does: rendered from the live runtime; ome-render.lock still records {}",
                entry.revision, entry.revision
            ),
        ))
        .related(entry.pos, "recorded in ome-render.lock here")
        .help("run `ome-render pin` to record the new revision"),
        Status::Drifted { entry, fields, .. } => on(Diagnostic::note(
            Code::PinDrift,
            format!(
                "{}; differing fields: {}",
                revision::revision_mismatch(&entry.revision),
                fields.join(", ")
            ),
        ))
        .related(entry.pos, "recorded in ome-render.lock here")
        .help(format!("rendered from the pinned revision; {advance}")),
        Status::SourceMissing(r) => on(Diagnostic::warning(
            Code::PinSourceMissing,
            format!(
                "runtime {} is not among the inputs: rendered from pinned revision {} (OME: RuntimeDrifted SourceRuntimeMissing)",
                runtime.name, r.name
            ),
        ))
        .field("spec.runtime.name")
        .related(r.pos, "the revision is defined here")
        .help("add the runtime's file to the paths, or pin the InferenceService explicitly"),
        Status::Missing(entry) => Diagnostic::error(
            Code::RevisionMissing,
            revision::pinned_missing(&entry.revision, ns),
        )
        .at(entry.pos)
        .object(isvc.object.clone())
        .related(runtime.pos, "the pinned InferenceService")
        .help(format!("restore the revision's file from Git, or {advance}")),
        Status::Tampered(entry, r) => Diagnostic::error(
            Code::Lock,
            format!(
                "ControllerRevision {} no longer has the content ome-render.lock recorded (sha256 {} recorded, {} now)",
                r.name,
                entry.sha256.chars().take(8).collect::<String>(),
                &r.hash()[..8]
            ),
        )
        .at(r.pos)
        .object(isvc.object.clone())
        .related(entry.pos, "recorded in ome-render.lock here")
        .help(format!("revisions are immutable: restore the file from Git, or {advance}")),
    };
    vec![d]
}

/// Lock entries for InferenceServices that are no longer managed pins: notes, as `pin`
/// removes them.
pub(crate) fn stale_entries(catalog: &Catalog) -> Vec<Diagnostic> {
    let managed: BTreeSet<(&str, &str)> = catalog
        .inference_services
        .iter()
        .filter(|i| i.runtime.as_ref().is_some_and(|r| mode(r) == Mode::Managed))
        .map(|i| (i.lookup_namespace.as_str(), i.name.as_str()))
        .collect();
    catalog
        .lock
        .entries
        .values()
        .filter(|e| !managed.contains(&(e.namespace.as_str(), e.name.as_str())))
        .map(|e| {
            Diagnostic::note(
                Code::PinStale,
                format!(
                    "ome-render.lock pins {}/{}, which is not a managed pin among the inputs",
                    e.namespace, e.name
                ),
            )
            .at(e.pos)
            .help("`ome-render pin` removes the entry")
        })
        .collect()
}

/// What `ome-render pin` does to one InferenceService.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// First pin: recorded as `revision`.
    Pinned { revision: String },
    /// Moved from one revision to another (by `--advance` or a sync token).
    Advanced { from: String, to: String },
    /// Left as it was; `why` says what holds it (drift, or a problem to fix by hand).
    Kept {
        revision: String,
        why: Option<String>,
    },
    /// A lock entry for an InferenceService that is no longer a managed pin.
    Removed { revision: String },
}

/// A new lock and the revisions to write for it.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) lock: Lock,
    /// `(namespace/name, change)`, in InferenceService order.
    pub(crate) changes: Vec<(String, Change)>,
    /// New revisions to write: (name, the ControllerRevision object).
    pub(crate) new_revisions: Vec<(String, Node)>,
    /// Every revision name some pin (locked or explicit) still uses.
    pub(crate) referenced: BTreeSet<String>,
    /// New revisions whose hash is ome-render's own, with the field that made it so
    /// (SEMANTICS.md#revision-hashes).
    pub(crate) opaque: BTreeMap<String, String>,
}

/// The live spec each managed pin resolves to, or why it can't be pinned. Supplied by the
/// caller, which resolves runtimes with their inheritance.
pub(crate) type LiveSpecs<'s> = BTreeMap<(String, String), Result<&'s RuntimeSpec, String>>;

/// Plans `ome-render pin`: every managed pin gets a lock entry (new pins take the live spec;
/// existing ones stay unless `advance` names them or a new sync token rolls them forward);
/// entries of InferenceServices that are no longer managed pins go. `Err` holds the problems
/// that stop it (a runtime that can't be resolved for a new pin, an `--advance` target that
/// is not a managed pin).
pub(crate) fn plan(
    catalog: &Catalog,
    live_specs: &LiveSpecs<'_>,
    advance: Option<(&str, &str)>,
) -> Result<Plan, Vec<Diagnostic>> {
    let mut plan = Plan::default();
    let mut errors = Vec::new();
    let mut new_names: BTreeMap<String, Node> = BTreeMap::new();
    if let Some((ns, name)) = advance {
        match catalog.inference_service(ns, name) {
            Err(d) => errors.push(d),
            Ok(i) if !i.runtime.as_ref().is_some_and(|r| mode(r) == Mode::Managed) => {
                // The InferenceService is where the refusal points.
                errors.push(
                    Diagnostic::error(
                        Code::InvalidInferenceService,
                        format!("action refused: InferenceService {ns}/{name} is not a managed pin (spec.runtime.autoSync: false without spec.runtime.revision)"),
                    )
                    .help("`--advance` moves a managed pin; an explicit pin moves by editing spec.runtime.revision")
                    .at(i.runtime.as_ref().map_or(i.pos, |r| r.pos))
                    .object(i.object.clone()),
                );
            }
            Ok(_) => {}
        }
    }
    for isvc in &catalog.inference_services {
        let Some(runtime) = isvc.runtime.as_ref() else {
            continue;
        };
        let key = format!("{}/{}", isvc.lookup_namespace, isvc.name);
        match mode(runtime) {
            Mode::AutoSync => continue,
            Mode::Explicit(rev) => {
                plan.referenced.insert(rev.to_string());
                continue;
            }
            Mode::Managed => {}
        }
        let entry = catalog.lock.get(&isvc.lookup_namespace, &isvc.name);
        let live = live_specs
            .get(&(isvc.lookup_namespace.clone(), isvc.name.clone()))
            .cloned()
            .unwrap_or_else(|| Err(format!("runtime {} not found", runtime.name)));
        let advancing = advance == Some((isvc.lookup_namespace.as_str(), isvc.name.as_str()));
        let live = match live {
            Ok(spec) => Live::of(spec),
            Err(why) => {
                match entry {
                    Some(e) if !advancing => {
                        plan.lock
                            .entries
                            .insert((e.namespace.clone(), e.name.clone()), e.clone());
                        plan.referenced.insert(e.revision.clone());
                        plan.changes.push((
                            key,
                            Change::Kept {
                                revision: e.revision.clone(),
                                why: Some(why),
                            },
                        ));
                    }
                    _ => errors.push(
                        Diagnostic::error(
                            Code::RuntimeNotFound,
                            format!("cannot pin {key}: {why}"),
                        )
                        .at(runtime.pos)
                        .object(isvc.object.clone())
                        .field("spec.runtime.name"),
                    ),
                }
                continue;
            }
        };
        if advancing && live.spec.disabled {
            errors.push(
                Diagnostic::error(
                    Code::RuntimeDisabled,
                    format!("action refused: runtime {} is disabled", runtime.name),
                )
                .at(runtime.pos)
                .object(isvc.object.clone()),
            );
            continue;
        }
        let kind = declared_kind(runtime);
        let token = isvc
            .annotation(RUNTIME_SYNC)
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        let fresh =
            |plan: &mut Plan, new_names: &mut BTreeMap<String, Node>, token: Option<String>| {
                let sha = live.canonical.sha256();
                let name = fresh_name(
                    catalog,
                    kind,
                    &isvc.lookup_namespace,
                    &runtime.name,
                    &sha[..8],
                );
                if catalog.revision(&name).is_none() {
                    if let Some(field) = &live.canonical.opaque {
                        plan.opaque.insert(name.clone(), field.clone());
                    }
                    new_names.entry(name.clone()).or_insert_with(|| {
                        revision_object(
                            &name,
                            &catalog.ome_namespace,
                            kind,
                            &isvc.lookup_namespace,
                            &runtime.name,
                            &sha[..8],
                            &live.canonical,
                        )
                    });
                }
                let e = LockEntry {
                    namespace: isvc.lookup_namespace.clone(),
                    name: isvc.name.clone(),
                    runtime: runtime.name.clone(),
                    kind,
                    revision: name.clone(),
                    sha256: sha,
                    sync_token: token,
                    pos: crate::yaml::Pos::NONE,
                };
                plan.lock
                    .entries
                    .insert((e.namespace.clone(), e.name.clone()), e);
                plan.referenced.insert(name.clone());
                name
            };
        let status = status(isvc, catalog, Some(&live));
        let change = match (&status, entry) {
            (_, None) => Change::Pinned {
                revision: fresh(&mut plan, &mut new_names, token),
            },
            (_, Some(e)) if advancing => {
                let to = fresh(
                    &mut plan,
                    &mut new_names,
                    token.or_else(|| e.sync_token.clone()),
                );
                if to == e.revision {
                    Change::Kept {
                        revision: to,
                        why: Some("already on the current runtime".to_string()),
                    }
                } else {
                    Change::Advanced {
                        from: e.revision.clone(),
                        to,
                    }
                }
            }
            (Status::Advancing { token, .. }, Some(e)) => Change::Advanced {
                from: e.revision.clone(),
                to: fresh(&mut plan, &mut new_names, Some(token.clone())),
            },
            (other, Some(e)) => {
                plan.lock
                    .entries
                    .insert((e.namespace.clone(), e.name.clone()), e.clone());
                plan.referenced.insert(e.revision.clone());
                let why = match other {
                    Status::Drifted { fields, .. } => Some(format!(
                        "the runtime changed ({}); `ome-render pin --advance {key}` moves it",
                        fields.join(", ")
                    )),
                    Status::Missing(_) => Some(format!(
                        "{}; `ome-render pin --advance {key}` pins the current runtime",
                        revision::pinned_missing(&e.revision, &catalog.ome_namespace)
                    )),
                    Status::Tampered(..) => Some(format!(
                        "the revision no longer has the content the lock recorded; `ome-render pin --advance {key}` pins the current runtime"
                    )),
                    _ => None,
                };
                Change::Kept {
                    revision: e.revision.clone(),
                    why,
                }
            }
        };
        plan.changes.push((key, change));
    }
    for e in catalog.lock.entries.values() {
        let key = (e.namespace.clone(), e.name.clone());
        if !plan.lock.entries.contains_key(&key)
            && !plan
                .changes
                .iter()
                .any(|(k, _)| *k == format!("{}/{}", e.namespace, e.name))
        {
            plan.changes.push((
                format!("{}/{}", e.namespace, e.name),
                Change::Removed {
                    revision: e.revision.clone(),
                },
            ));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    plan.lock.present = true;
    plan.new_revisions = new_names.into_iter().collect();
    Ok(plan)
}

/// A ControllerRevision as OME's controller creates it (SEMANTICS.md#pins): in OME's
/// namespace, its four labels and `ome.io/created-by`, `revision: 1`, and the spec in `data`.
pub(crate) fn revision_object(
    name: &str,
    ome_namespace: &str,
    kind: Scope,
    namespace: &str,
    runtime: &str,
    hash8: &str,
    spec: &Canonical,
) -> Node {
    let labels = crate::map! {
        revision::REVISION_HASH => Node::str(hash8),
        revision::RUNTIME_OF => Node::str(runtime),
        revision::RUNTIME_OF_KIND => Node::str(kind_name(kind)),
        revision::RUNTIME_OF_NAMESPACE => Node::str(match kind {
            Scope::Cluster => "",
            Scope::Namespaced => namespace,
        }),
    };
    Node::map(crate::map! {
        "apiVersion" => Node::str("apps/v1"),
        "kind" => Node::str("ControllerRevision"),
        "metadata" => Node::map(crate::map! {
            "name" => Node::str(name),
            "namespace" => Node::str(ome_namespace),
            "labels" => Node::map(labels),
            "annotations" => Node::map(crate::map! {
                revision::CREATED_BY => Node::str(revision::OME_CONTROLLER),
            }),
        }),
        "data" => spec.data.clone(),
        "revision" => Node::int(1),
    })
}
