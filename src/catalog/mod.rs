//! The catalog: every loaded object indexed by identity, OME resources read into their typed
//! views, and everything else kept for pass-through.
//!
//! Building it finds duplicate objects (SEMANTICS.md#choice-duplicates) in one pass over a hash set. Lookups
//! (models, runtimes, classes) are `BTreeMap`s, so any iteration is in name order.

pub(crate) mod checks;
pub(crate) mod model_metadata;
pub(crate) mod preset;

use crate::admission;
use crate::diagnostics::suggest::SUGGESTED_FROM;
use crate::diagnostics::{Code, Diagnostic};
use crate::k8s::id::ObjectId;
use crate::k8s::kinds;
use crate::load::Object;
use crate::model::{AcceleratorClass, BaseModel, InferenceService, Runtime, Scope};
use crate::revision::Revision;
use crate::revision::lock::Lock;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// The API group of OME's resources.
pub(crate) const OME_GROUP: &str = "ome.io";
/// The only version of it this renderer reads.
pub(crate) const OME_VERSION: &str = "ome.io/v1beta1";

/// The OME kinds the renderer consumes.
pub(crate) const CONSUMED_KINDS: &[&str] = &[
    "InferenceService",
    "BaseModel",
    "ClusterBaseModel",
    "ServingRuntime",
    "ClusterServingRuntime",
    "AcceleratorClass",
];

/// Whether objects of `kind` have no namespace (the kind table's scope).
pub(crate) fn is_cluster_scoped(kind: &str) -> bool {
    kinds::scope(kind) == kinds::Scope::Cluster
}

#[derive(Debug, Default)]
pub(crate) struct Catalog {
    /// InferenceServices, sorted by lookup namespace and name.
    #[expect(
        clippy::vec_box,
        reason = "a view is over a kilobyte: sorting and moving them moves pointers (BENCHMARKS.md)"
    )]
    pub(crate) inference_services: Vec<Box<InferenceService>>,
    /// BaseModels by (namespace, name).
    pub(crate) models: BTreeMap<(String, String), BaseModel>,
    pub(crate) cluster_models: BTreeMap<String, BaseModel>,
    /// ServingRuntimes by (namespace, name).
    pub(crate) runtimes: BTreeMap<(String, String), Runtime>,
    pub(crate) cluster_runtimes: BTreeMap<String, Runtime>,
    pub(crate) accelerator_classes: BTreeMap<String, AcceleratorClass>,
    /// Runtime revisions (ControllerRevisions labelled `ome.io/runtime-of`) by (namespace,
    /// name). They are written to the output too, so the cluster has them.
    pub(crate) revisions: BTreeMap<(String, String), Revision>,
    /// OME's namespace, where pins look revisions up.
    pub(crate) ome_namespace: String,
    /// `ome-render.lock`: the managed pins.
    pub(crate) lock: Lock,
    /// The run's limits (inheritance counts the nodes it resolves).
    pub(crate) limits: crate::load::limits::Limits,
    /// Objects that are not consumed, in input order.
    pub(crate) passthrough: Vec<Object>,
    /// The consumed OME objects, kept for `--keep-ome`.
    pub(crate) consumed: Vec<Object>,
}

impl Catalog {
    /// A model visible from `namespace`: the BaseModel there, else the ClusterBaseModel.
    pub(crate) fn model(&self, namespace: &str, name: &str) -> Option<&BaseModel> {
        self.models
            .get(&(namespace.to_string(), name.to_string()))
            .or_else(|| self.cluster_models.get(name))
    }

    /// A runtime revision in OME's namespace.
    pub(crate) fn revision(&self, name: &str) -> Option<&Revision> {
        self.revisions
            .get(&(self.ome_namespace.clone(), name.to_string()))
    }

    /// The names of the runtimes an InferenceService of `namespace` can name: the
    /// ClusterServingRuntimes and the namespace's ServingRuntimes, or those of `scope` only.
    pub(crate) fn runtime_names(&self, scope: Option<Scope>, namespace: &str) -> Vec<&str> {
        let cluster = self.cluster_runtimes.keys().map(String::as_str);
        let namespaced = self
            .runtimes
            .range((namespace.to_string(), String::new())..)
            .take_while(|((ns, _), _)| ns == namespace)
            .map(|((_, name), _)| name.as_str());
        // Past SUGGESTED_FROM names there is no suggestion: no need to collect them all
        // for every misspelt name of a large input.
        let most = SUGGESTED_FROM + 1;
        let mut names: Vec<&str> = match scope {
            Some(Scope::Cluster) => cluster.take(most).collect(),
            Some(Scope::Namespaced) => namespaced.take(most).collect(),
            None => cluster.chain(namespaced).take(most).collect(),
        };
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The names of the models visible from `namespace`: its BaseModels and the
    /// ClusterBaseModels.
    pub(crate) fn model_names(&self, namespace: &str) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .models
            .range((namespace.to_string(), String::new())..)
            .take_while(|((ns, _), _)| ns == namespace)
            .map(|((_, name), _)| name.as_str())
            .chain(self.cluster_models.keys().map(String::as_str))
            .take(SUGGESTED_FROM + 1)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The InferenceService `target` names, `NAMESPACE/NAME` or `NAME` in `namespace`, as
    /// [`Catalog::inference_service`] finds it.
    pub(crate) fn inference_service_named(
        &self,
        target: &str,
        namespace: &str,
    ) -> Result<&InferenceService, Diagnostic> {
        match target.split_once('/') {
            Some((ns, name)) => self.inference_service(ns, name),
            None => self.inference_service(namespace, target),
        }
    }

    /// The InferenceService `namespace/name` among the inputs (`explain --isvc`, `tree
    /// --isvc`, `pin --advance`), or the error saying it is not there, with the namespaces
    /// that have one of that name, or a close name of the namespace.
    pub(crate) fn inference_service(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<&InferenceService, Diagnostic> {
        if let Some(found) = self
            .inference_services
            .iter()
            .find(|i| i.lookup_namespace == namespace && i.name == name)
        {
            return Ok(found);
        }
        let error = Diagnostic::error(
            Code::InvalidInferenceService,
            format!(
                "InferenceService \"{name}\" not found in namespace \"{namespace}\" among the inputs"
            ),
        );
        let elsewhere: Vec<&str> = self
            .inference_services
            .iter()
            .filter(|i| i.name == name)
            .map(|i| i.lookup_namespace.as_str())
            .collect();
        if let Some(first) = elsewhere.first() {
            let more = match elsewhere.len() - 1 {
                0 => String::new(),
                1 => " (and one other namespace)".to_string(),
                n => format!(" (and {n} other namespaces)"),
            };
            return Err(error.help(format!(
                "InferenceService {name} is in namespace {first}{more}: name it `{first}/{name}`"
            )));
        }
        let close = crate::diagnostics::suggest::did_you_mean(
            name,
            self.inference_services
                .iter()
                .filter(|i| i.lookup_namespace == namespace)
                .map(|i| i.name.as_str()),
        );
        Err(match close {
            Some(help) => error.help(help),
            None => error,
        })
    }

    pub(crate) fn runtime(&self, scope: Scope, namespace: &str, name: &str) -> Option<&Runtime> {
        match scope {
            Scope::Namespaced => self
                .runtimes
                .get(&(namespace.to_string(), name.to_string())),
            Scope::Cluster => self.cluster_runtimes.get(name),
        }
    }
}

/// One input object, read: where it goes in the catalog.
enum Entry {
    Passthrough(Object),
    /// A runtime revision: its view (when it reads), and the object as it is written out.
    Revision(Option<Box<((String, String), Revision)>>, Object),
    Model(Option<String>, Box<BaseModel>),
    Runtime(Option<String>, Box<Runtime>),
    Class(Box<AcceleratorClass>),
    InferenceService(Box<InferenceService>),
    /// An OME kind of another version: an error, nothing kept.
    Refused,
}

/// Indexes `objects`. `default_namespace` is where objects written without a namespace live;
/// `ome_namespace` is OME's, where runtime revisions live. The consumed OME objects are kept
/// in [`Catalog::consumed`] only when `keep_consumed` (for `--keep-ome` and `diff`);
/// otherwise each goes as soon as its view is read, so the views never sit beside a second
/// copy of every tree. Objects are read in parallel and gathered in input order.
pub(crate) fn build(
    objects: Vec<Object>,
    default_namespace: &str,
    ome_namespace: &str,
    keep_consumed: bool,
) -> (Catalog, Vec<Diagnostic>) {
    // The API server's checks of every object's metadata (SEMANTICS.md#names), and the kinds
    // of OME's group.
    // An InferenceService's are part of its admission, reported with every other rule.
    let mut diags: Vec<Diagnostic> = objects
        .par_iter()
        .flat_map_iter(|obj| {
            let mut d = if is_inference_service(obj) {
                Vec::new()
            } else {
                metadata_problems(obj)
            };
            d.extend(unknown_ome_kind(obj));
            d
        })
        .collect();
    // For each object defined before (by identity), where that first definition is.
    let mut seen: HashMap<ObjectId<&str>, usize> = HashMap::with_capacity(objects.len());
    let first_pos: Vec<Option<crate::yaml::Pos>> = (0..objects.len())
        .map(|i| {
            let first = *seen.entry(objects[i].id(default_namespace)).or_insert(i);
            (first != i).then(|| crate::model::name_pos(&objects[first].root))
        })
        .collect();
    drop(seen);
    let mut kept = Vec::with_capacity(objects.len());
    for (obj, first) in objects.into_iter().zip(first_pos) {
        let Some(first) = first else {
            kept.push(obj);
            continue;
        };
        diags.push(
            Diagnostic::error(
                Code::DuplicateObject,
                format!("{} is defined twice", obj.written_id()),
            )
            .at(crate::model::name_pos(&obj.root))
            .object(obj.written_id())
            .related(first, "first defined here")
            .help("keep one definition; in a cluster the one applied last would silently win"),
        );
    }

    let read: Vec<(Entry, Vec<Diagnostic>, Option<Object>)> = kept
        .into_par_iter()
        .map(|obj| {
            let mut d = Vec::new();
            let (entry, consumed) =
                read_entry(obj, default_namespace, ome_namespace, keep_consumed, &mut d);
            (entry, d, consumed.filter(|_| keep_consumed))
        })
        .collect();

    let mut catalog = Catalog {
        ome_namespace: ome_namespace.to_string(),
        ..Catalog::default()
    };
    for (entry, d, consumed) in read {
        diags.extend(d);
        match entry {
            Entry::Passthrough(obj) => catalog.passthrough.push(obj),
            Entry::Revision(rev, obj) => {
                if let Some(rev) = rev {
                    let (key, rev) = *rev;
                    catalog.revisions.insert(key, rev);
                }
                catalog.passthrough.push(obj);
            }
            Entry::Model(Some(ns), m) => {
                catalog.models.insert((ns, m.name.clone()), *m);
            }
            Entry::Model(None, m) => {
                catalog.cluster_models.insert(m.name.clone(), *m);
            }
            Entry::Runtime(Some(ns), r) => {
                catalog.runtimes.insert((ns, r.name.clone()), *r);
            }
            Entry::Runtime(None, r) => {
                catalog.cluster_runtimes.insert(r.name.clone(), *r);
            }
            Entry::Class(c) => {
                catalog.accelerator_classes.insert(c.name.clone(), *c);
            }
            Entry::InferenceService(isvc) => catalog.inference_services.push(isvc),
            Entry::Refused => {}
        }
        catalog.consumed.extend(consumed);
    }
    catalog
        .inference_services
        .par_sort_by(|a, b| (&a.lookup_namespace, &a.name).cmp(&(&b.lookup_namespace, &b.name)));
    (catalog, diags)
}

/// Reads one object into its catalog entry, with its diagnostics; returns the object too
/// when it is a consumed OME resource, which the caller keeps only when `keep_consumed`.
/// Otherwise a runtime's view takes its spec's tree out of the object instead of a copy.
fn read_entry(
    mut obj: Object,
    default_namespace: &str,
    ome_namespace: &str,
    keep_consumed: bool,
    diags: &mut Vec<Diagnostic>,
) -> (Entry, Option<Object>) {
    if crate::revision::is_runtime_revision(&obj) {
        // A revision without a namespace is OME's: that is the only place OME reads them.
        let namespace = obj
            .namespace
            .clone()
            .unwrap_or_else(|| ome_namespace.to_string());
        let rev = Revision::read(&obj, namespace.clone(), diags).map(|rev| {
            diags.extend(rev.check(ome_namespace));
            Box::new(((namespace, obj.name.clone()), rev))
        });
        let out = crate::revision::for_output(obj, ome_namespace);
        return (Entry::Revision(rev, out), None);
    }
    if obj.group() != OME_GROUP || !CONSUMED_KINDS.contains(&obj.kind.as_str()) {
        return (Entry::Passthrough(obj), None);
    }
    if obj.api_version != OME_VERSION {
        diags.push(
            Diagnostic::error(
                Code::InvalidField,
                format!(
                    "unsupported apiVersion `{}` for {}",
                    obj.api_version, obj.kind
                ),
            )
            .at(obj.root.get("apiVersion").map_or(obj.pos(), |n| n.pos))
            .object(obj.written_id())
            .field("apiVersion")
            .help(format!("OME serves `{OME_VERSION}`")),
        );
        return (Entry::Refused, None);
    }
    let namespace = obj
        .namespace
        .clone()
        .unwrap_or_else(|| default_namespace.to_string());
    let entry = match obj.kind.as_str() {
        "InferenceService" => {
            let mut isvc = InferenceService::read(&obj, default_namespace, diags);
            isvc.admission = metadata_problems(&obj);
            isvc.namespace_refused = isvc
                .admission
                .iter()
                .any(|d| d.field.as_deref() == Some("metadata.namespace"));
            isvc.admission.extend(admission::rules::admit(
                &obj.root,
                &obj.kind,
                &isvc.object,
                isvc.pos,
                Some(&isvc),
            ));
            diags.extend(crate::model::schema::check_inference_service(
                &obj.root,
                &obj.written_id(),
            ));
            Entry::InferenceService(Box::new(isvc))
        }
        "BaseModel" | "ClusterBaseModel" => {
            let cluster = obj.kind == "ClusterBaseModel";
            let namespace = (!cluster).then_some(namespace);
            let m = BaseModel::read(&obj, namespace.clone(), diags);
            diags.extend(admission::rules::admit(
                &obj.root, &obj.kind, &m.object, m.pos, None,
            ));
            Entry::Model(namespace, Box::new(m))
        }
        "ServingRuntime" | "ClusterServingRuntime" => {
            preset::apply(&mut obj, diags);
            diags.extend(crate::model::schema::check_runtime(
                &obj.root,
                &obj.written_id(),
            ));
            let scope = if obj.kind == "ServingRuntime" {
                Scope::Namespaced
            } else {
                Scope::Cluster
            };
            let namespace = (scope == Scope::Namespaced).then_some(namespace);
            let checked = admission::rules::admit(
                &obj.root,
                &obj.kind,
                &obj.written_id(),
                crate::model::name_pos(&obj.root),
                None,
            );
            // The view takes the spec's tree when the object goes once read (a copy costs
            // the time and leaves the memory as it is, BENCHMARKS.md), a copy when it stays.
            let mut r = if keep_consumed {
                Runtime::read(&obj, scope, namespace.clone(), diags)
            } else {
                Runtime::take(&mut obj, scope, namespace.clone(), diags)
            };
            // Keys in Go's order, whatever order they were written in: a revision of equal
            // content renders the same bytes (SEMANTICS.md#pins).
            let pos = r.spec.spec.pos;
            let written = std::mem::replace(
                &mut r.spec.spec,
                crate::yaml::Node::new(crate::yaml::Value::Null, pos),
            );
            r.spec.spec = crate::revision::gojson::into_go_order(written);
            diags.extend(checked);
            Entry::Runtime(namespace, Box::new(r))
        }
        _ => {
            // "AcceleratorClass", the last of CONSUMED_KINDS.
            let c = AcceleratorClass::read(&obj, diags);
            diags.extend(admission::rules::admit(
                &obj.root,
                &obj.kind,
                &obj.written_id(),
                crate::model::name_pos(&obj.root),
                None,
            ));
            Entry::Class(Box::new(c))
        }
    };
    (entry, Some(obj))
}

fn is_inference_service(obj: &Object) -> bool {
    obj.kind == "InferenceService" && obj.api_version == OME_VERSION
}

/// What the API server checks of every object's metadata (SEMANTICS.md#names).
fn metadata_problems(obj: &Object) -> Vec<Diagnostic> {
    admission::rules::metadata(
        &obj.root,
        obj.group(),
        &obj.kind,
        &obj.written_id(),
        !is_cluster_scoped(&obj.kind),
    )
}

/// An object of OME's API group whose kind OME doesn't have (`InferenceServicez`): the API
/// server has no such resource, and passing it through would silently leave its workloads
/// out of the render.
fn unknown_ome_kind(obj: &Object) -> Option<Diagnostic> {
    let ome_kinds: Vec<&str> = kinds::ome_kinds().collect();
    if obj.group() != OME_GROUP || ome_kinds.contains(&obj.kind.as_str()) {
        return None;
    }
    let help = match crate::diagnostics::suggest::closest(&obj.kind, &ome_kinds) {
        Some(kind) => format!(
            "did you mean `kind: {kind}`? OME's API group has no kind {}",
            obj.kind
        ),
        None => format!("OME's API group has the kinds {}", ome_kinds.join(", ")),
    };
    Some(
        Diagnostic::error(
            Code::InvalidField,
            format!(
                "no matches for kind {} in version {}",
                crate::go::quote(&obj.kind),
                crate::go::quote(&obj.api_version)
            ),
        )
        .at(obj.root.get("kind").map_or(obj.pos(), |n| n.pos))
        .object(obj.written_id())
        .field("kind")
        .help(help),
    )
}
