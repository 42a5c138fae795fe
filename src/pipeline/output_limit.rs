//! The `output-ratio` limit (SEMANTICS.md#limits): the bytes of the objects rendered so far,
//! counted as each InferenceService is rendered, so that a runtime copied into many
//! InferenceServices stops the run before the memory is spent.

use crate::catalog::Catalog;
use crate::diagnostics::{Code, Diagnostic};
use crate::inherit::{count_nodes, runtime_id};
use crate::k8s::id::ObjectId;
use crate::model::Scope;
use crate::yaml::Node;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The bytes a run may render, and those rendered so far, shared by the render tasks.
pub(crate) struct OutputBudget {
    allowed: u64,
    used: AtomicU64,
    passed: AtomicBool,
}

impl OutputBudget {
    pub(crate) fn new(allowed: u64) -> OutputBudget {
        OutputBudget {
            allowed,
            used: AtomicU64::new(0),
            passed: AtomicBool::new(false),
        }
    }

    /// Whether the output passed the limit: nothing more is rendered.
    pub(crate) fn passed(&self) -> bool {
        self.passed.load(Ordering::Relaxed)
    }

    /// Counts `bytes` more output; false once the total passes the limit. Whether a run
    /// passes it does not depend on the order the tasks count in: only the total does.
    pub(crate) fn spend(&self, bytes: u64) -> bool {
        let total = self
            .used
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if total > self.allowed {
            self.passed.store(true, Ordering::Relaxed);
        }
        total <= self.allowed
    }
}

/// The runtime an InferenceService renders from, by identity.
pub(crate) fn runtime_key(
    scope: Scope,
    namespace: Option<&str>,
    isvc_namespace: &str,
    name: &str,
) -> ObjectId {
    runtime_id(scope, namespace.unwrap_or(isvc_namespace), name)
}

/// How many InferenceServices chose each runtime, with the nodes of the spec they render
/// from: every InferenceService is resolved, rendered or not, so the error this names is
/// the same whichever tasks rendered before the limit was passed.
#[derive(Default)]
pub(crate) struct Choices(BTreeMap<ObjectId, (u64, u64)>);

impl Choices {
    pub(crate) fn add(&mut self, key: ObjectId, spec: &Node) {
        self.0
            .entry(key)
            .or_insert_with(|| (0, count_nodes(spec)))
            .0 += 1;
    }

    /// The error of a run whose output passed `allowed` bytes: it names the runtime whose
    /// spec the InferenceServices copy most (its nodes times the InferenceServices that
    /// select it), at the runtime.
    pub(crate) fn error(
        &self,
        catalog: &Catalog,
        allowed: u64,
        input_bytes: u64,
        services: usize,
    ) -> Diagnostic {
        let ratio = catalog.limits.output_ratio;
        let head = format!(
            "the objects rendered from {services} InferenceServices pass {allowed} bytes, {ratio} for each of the {} bytes of input (limit `output-ratio`)",
            input_bytes.max(crate::load::limits::OUTPUT_INPUT_FLOOR)
        );
        let most = self.0.iter().max_by_key(|(key, (count, nodes))| {
            (count.saturating_mul(*nodes), std::cmp::Reverse(*key))
        });
        let Some((id, (count, nodes))) = most else {
            return Diagnostic::error(Code::Limit, head)
                .help(crate::load::limits::raise_help("output-ratio"));
        };
        let (kind, name) = (&id.kind, &id.name);
        let runtime = if id.namespace.is_empty() {
            catalog.cluster_runtimes.get(name)
        } else {
            catalog.runtimes.get(&(id.namespace.clone(), name.clone()))
        };
        let mut error = Diagnostic::error(
            Code::Limit,
            format!(
                "{head}: {kind} `{name}` copies its spec of {nodes} nodes into each of the {count} InferenceServices that select it; nothing was written"
            ),
        )
        .help(format!(
            "select a smaller runtime from that many InferenceServices, or, {}",
            crate::load::limits::raise_help("output-ratio")
        ));
        if let Some(runtime) = runtime {
            error = error
                .at(runtime.pos)
                .object(runtime.object.clone())
                .field("spec");
        }
        error
    }
}
