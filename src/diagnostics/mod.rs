//! Diagnostics: the one type every stage reports problems with, and the catalogue of codes.
//!
//! Stages never print. They return [`Diagnostic`]s, which carry a stable [`Code`], a
//! severity, a message, the input position ([`Pos`]) when there is one, the object
//! (`kind/namespace/name`), the field path and a help line. [`report`] renders the collected
//! diagnostics at the end, in the format the caller asked for.

pub(crate) mod escape;
pub(crate) mod report;
pub(crate) mod suggest;

use crate::k8s::id::ObjectId;
use crate::yaml::Pos;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Severity {
    Error,
    Warning,
    Note,
}

/// The stable code of each kind of diagnostic. Codes never change meaning; new problems get
/// new codes. `CONTRIBUTING.md` says how to add one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Code {
    /// A file is not valid UTF-8.
    NotUtf8,
    /// YAML or JSON syntax error.
    YamlSyntax,
    /// An input exceeds one of the run's limits (SEMANTICS.md#limits): its size, the
    /// documents, nesting depth, keys of a map, or what anchors and aliases copy.
    Limit,
    /// A document that is not a Kubernetes object was skipped.
    NotAnObject,
    /// A `kustomization.yaml` was skipped.
    Kustomization,
    /// Two input objects with the same kind, namespace and name (SEMANTICS.md#choice-duplicates).
    DuplicateObject,
    /// A field has the wrong type or a required field is missing.
    InvalidField,
    /// A field ome-render does not know; OME would drop it silently.
    UnknownField,
    /// The InferenceService's base model does not exist.
    ModelNotFound,
    /// The base model is disabled.
    ModelDisabled,
    /// The model lacks the metadata (`modelFormat`) compatibility checks need
    /// (SEMANTICS.md#choice-model-metadata).
    ModelMetadataMissing,
    /// The named runtime does not exist.
    RuntimeNotFound,
    /// The runtime is disabled.
    RuntimeDisabled,
    /// A named runtime does not declare support for the model (a warning, as in OME v1.3).
    RuntimeNotDeclared,
    /// OME would auto-select this runtime (a warning, as OME's webhook prints).
    RuntimeAutoSelected,
    /// No runtime supports the model.
    NoRuntime,
    /// Neither `spec.model` nor `spec.runtime` is set, or another InferenceService rule fails.
    InvalidInferenceService,
    /// The runtime and InferenceService merge into an object the API server would reject
    /// (SEMANTICS.md#choice-invalid-merges).
    InvalidMerge,
    /// A `{{ ... }}` that is not one of the supported placeholders (SEMANTICS.md#placeholders).
    Placeholder,
    /// A deployment mode or shape that cannot be rendered offline.
    UnsupportedMode,
    /// Two rendered objects have the same kind, namespace and name (SEMANTICS.md#choice-collisions).
    RenderedCollision,
    /// An accelerator class chosen for a component is not among the inputs.
    AcceleratorClassNotFound,
    /// A runtime names an accelerator class that is not among the inputs
    /// (SEMANTICS.md#choice-missing-classes).
    AcceleratorClassUnknown,
    /// An `acceleratorConfig` key that names no class the runtime lists.
    AcceleratorConfigKey,
    /// autoSelect entries of one name with different priorities (OME's webhook rejects the
    /// runtime).
    RuntimePriorities,
    /// A runner is passed as multi-node (leader/worker) and OME v1.3 would run it otherwise.
    MultiNode,
    /// The renderer settings file (`ome-render.yaml`) is invalid.
    Settings,
    /// No settings file was found: OME's shipped defaults apply.
    SettingsDefaults,
    /// OME's ConfigMap of `--deploy-config` is one OME's controller refuses
    /// (SEMANTICS.md#deploy-config).
    DeployConfig,
    /// A field of OME's ConfigMap that OME ignores: a typo does nothing in the cluster either.
    DeployConfigUnknown,
    /// The render produced no object at all (an empty stream makes Argo CD prune everything).
    EmptyOutput,
    /// A kind `--kinds` names selects no object of the output.
    KindUnmatched,
    /// An `--include` or `--exclude` pattern that matches no walked file.
    PatternUnmatched,
    /// An object can't be written to a file of its own in an output directory.
    OutputFileName,
    /// `diff --base-ref`: a path is not in the base revision, so the base has nothing there.
    DiffPathMissing,
    /// A `diff --ignore-field` path that matches no field of any object on either side.
    IgnoreFieldUnmatched,
    /// `spec.runtime.revision` that OME's webhook rejects: without `autoSync: false`, or not
    /// named for the runtime (SEMANTICS.md#pins).
    PinInvalid,
    /// A pinned revision that is not among the inputs (OME: `RuntimeDrifted`
    /// `RevisionMissing`).
    RevisionMissing,
    /// A pinned revision labelled for another runtime (OME: `RuntimeDrifted`
    /// `RuntimeMismatch`).
    RevisionRuntimeMismatch,
    /// A managed pin whose runtime changed since it was pinned (OME: `RuntimeDrifted`
    /// `RevisionMismatch`): a note; an error under `check --strict`.
    PinDrift,
    /// A managed pin `ome-render.lock` does not record, or records behind its
    /// `ome.io/runtime-sync` token: a note; an error under `check --strict`.
    PinUnrecorded,
    /// A lock entry for an InferenceService that is no longer a managed pin: a note; an error
    /// under `check --strict`.
    PinStale,
    /// A pinned InferenceService whose runtime is gone renders from its revision (OME:
    /// `RuntimeDrifted` `SourceRuntimeMissing`).
    PinSourceMissing,
    /// `ome-render.lock` is damaged, or a revision no longer matches it.
    Lock,
    /// A runtime revision whose labels, name or hash disagree with its data.
    RevisionInconsistent,
    /// A model snapshot has neither `model_index.json` nor `config.json`.
    ModelConfigMissing,
    /// OME's model agent cannot read a snapshot's `config.json` or `model_index.json`
    /// (syntax, a field of the wrong type, no `model_type`, an empty pipeline).
    ModelConfigInvalid,
    /// A snapshot's `hf_quant_config.json` cannot be read; OME ignores it (a warning).
    HfQuantConfigIgnored,
    /// A safetensors header or index that OME cannot count; it falls back (a warning).
    SafetensorsUnreadable,
    /// The parameter size is not a count of the weights: OME's estimate, or 0 (a warning).
    ParameterSizeInexact,
    /// A quantization OME does not map to `spec.quantization` (a warning).
    QuantizationUnrecognized,
    /// OME cannot classify the model's capabilities and writes an empty entry (a warning).
    CapabilityUnknown,
    /// A snapshot file the loader refuses: outside the snapshot, not a regular file, too
    /// large, or unreadable.
    SnapshotFile,
    /// An `ome-render.io/model-config` annotation that can't be followed: not a string,
    /// outside the directory being rendered, no such snapshot, or on an object that is no
    /// model (SEMANTICS.md#choice-model-config-paths).
    ModelConfigAnnotation,
    /// A model's spec fields filled from its snapshot (a note).
    ModelMetadataFilled,
    /// A model with OME's `ome.oracle.com/skip-config-parsing: "true"`: its snapshot is not
    /// read (a note when rendering; an error for `model-metadata --write`).
    ModelConfigSkipped,
    /// `model-metadata --write` cannot merge the fields into the file.
    ModelFileWrite,
    /// OME's InferenceService webhook admits the object with this warning
    /// (SEMANTICS.md#admission).
    AdmissionWarning,
    /// OME's ServingRuntime or ClusterServingRuntime webhook rejects the runtime
    /// (SEMANTICS.md#admission).
    RuntimeInvalid,
    /// OME's BaseModel or ClusterBaseModel webhook (or the API server's schema) rejects the
    /// model (SEMANTICS.md#admission).
    ModelInvalid,
    /// OME admits the InferenceService but its controller fails to reconcile the component,
    /// so the objects would never be created (SEMANTICS.md#autoscaling).
    Reconcile,
    /// A field or annotation OME v1.3 removed or changed in meaning; the help names the v1.3
    /// replacement (SEMANTICS.md#migration).
    Migration,
    /// A rendered object contains `${`, which Flux's post-build substitution would rewrite
    /// (SEMANTICS.md#choice-flux-substitution).
    FluxSubstitution,
    /// `render --check`: the committed render differs from a fresh one
    /// (SEMANTICS.md#check).
    StaleOutput,
    /// The KRM function's standard input is not a ResourceList it can read
    /// (SEMANTICS.md#krm-function).
    KrmResourceList,
    /// The KRM function's `functionConfig` is invalid (SEMANTICS.md#krm-function).
    KrmFunctionConfig,
    /// Diagnostics left out of the report past the `diagnostics` limit, counted
    /// (SEMANTICS.md#limits).
    Omitted,
    /// OME's pod webhook would refuse the pod (an unknown profile, a bad port), or an
    /// injector that needs the cluster is triggered (SEMANTICS.md#pod-webhook).
    PodWebhook,
    /// A rendered object needs an API the listed cluster APIs lack (SEMANTICS.md#api-versions).
    ApiUnserved,
    /// Without a list of the cluster's APIs: the non-built-in APIs the output needs.
    ApisNeeded,
    /// `components` refuses its input as OME's `runtime render` does: `-f` without
    /// `--deploy-config`, an InferenceService not in the files, none at all, failing
    /// services (SEMANTICS.md#components).
    ComponentsInput,
    /// `components` skips an object that is no InferenceService, runtime or model (a note).
    ComponentsIgnored,
    /// PodMonitors not rendered for want of a list of the cluster's APIs, or an entry of
    /// `prometheus.ome.io/extra-endpoints` OME skips (SEMANTICS.md#monitoring).
    Monitoring,
    /// Traffic intent with no backend policy rendered for it: no list of the cluster's APIs,
    /// or neither Envoy Gateway's nor Istio's API listed (SEMANTICS.md#traffic-intent).
    TrafficIntent,
    /// A LeaderWorkerSet pod references a variable only OMENative pods have
    /// (`$(OME_LEADER_ADDRESS)`, …): nothing sets it (SEMANTICS.md#objects).
    LwsVariable,
    /// `spec.ttlSecondsAfterCreation`: OME deletes the InferenceService, a GitOps tool
    /// recreates it (SEMANTICS.md#choice-ttl).
    TtlDelete,
    /// Objects of OME's API group that pass through unrendered (SEMANTICS.md#passthrough).
    OmePassthrough,
    /// A model whose pods wait for OME's model agent (a warning; a note when the settings
    /// say the cluster runs it) (SEMANTICS.md#model-agent).
    ModelAgent,
    /// A model on storage OME's model agent cannot download: its pods never schedule.
    ModelAgentUnsupported,
    /// A model overlay OME skips (not found, disabled): the pods run without it
    /// (SEMANTICS.md#overlays).
    OverlaySkipped,
}

impl Code {
    /// Whether the code says a pin is not current: notes that `check --strict` turns into
    /// errors (SEMANTICS.md#choice-strict-pins).
    pub(crate) fn is_pin_currency(self) -> bool {
        matches!(self, Code::PinDrift | Code::PinUnrecorded | Code::PinStale)
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Code::NotUtf8 => "ome::load::utf8",
            Code::YamlSyntax => "ome::load::yaml",
            Code::Limit => "ome::load::limit",
            Code::NotAnObject => "ome::load::not-an-object",
            Code::Kustomization => "ome::load::kustomization",
            Code::DuplicateObject => "ome::load::duplicate",
            Code::InvalidField => "ome::input::invalid-field",
            Code::UnknownField => "ome::input::unknown-field",
            Code::ModelNotFound => "ome::model::not-found",
            Code::ModelDisabled => "ome::model::disabled",
            Code::ModelMetadataMissing => "ome::model::metadata-missing",
            Code::RuntimeNotFound => "ome::runtime::not-found",
            Code::RuntimeDisabled => "ome::runtime::disabled",
            Code::RuntimeNotDeclared => "ome::runtime::not-declared",
            Code::RuntimeAutoSelected => "ome::select::auto-selected",
            Code::NoRuntime => "ome::select::no-runtime",
            Code::InvalidInferenceService => "ome::isvc::invalid",
            Code::InvalidMerge => "ome::merge::invalid",
            Code::Placeholder => "ome::render::placeholder",
            Code::UnsupportedMode => "ome::render::unsupported-mode",
            Code::RenderedCollision => "ome::render::collision",
            Code::AcceleratorClassNotFound => "ome::accelerator::not-found",
            Code::AcceleratorClassUnknown => "ome::accelerator::unknown-class",
            Code::AcceleratorConfigKey => "ome::accelerator::config-key",
            Code::RuntimePriorities => "ome::runtime::priorities",
            Code::MultiNode => "ome::render::multi-node",
            Code::Settings => "ome::settings::invalid",
            Code::SettingsDefaults => "ome::settings::defaults",
            Code::DeployConfig => "ome::settings::deploy-config",
            Code::DeployConfigUnknown => "ome::settings::deploy-config-unknown",
            Code::EmptyOutput => "ome::output::empty",
            Code::KindUnmatched => "ome::output::kind-unmatched",
            Code::PatternUnmatched => "ome::load::pattern-unmatched",
            Code::OutputFileName => "ome::output::file-name",
            Code::DiffPathMissing => "ome::diff::path-missing",
            Code::IgnoreFieldUnmatched => "ome::diff::ignore-field-unmatched",
            Code::PinInvalid => "ome::pin::invalid",
            Code::RevisionMissing => "ome::pin::revision-missing",
            Code::RevisionRuntimeMismatch => "ome::pin::runtime-mismatch",
            Code::PinDrift => "ome::pin::drift",
            Code::PinUnrecorded => "ome::pin::unrecorded",
            Code::PinStale => "ome::pin::stale",
            Code::PinSourceMissing => "ome::pin::source-missing",
            Code::Lock => "ome::pin::lock",
            Code::RevisionInconsistent => "ome::pin::revision-inconsistent",
            Code::ModelConfigMissing => "ome::model-metadata::no-config",
            Code::ModelConfigInvalid => "ome::model-metadata::invalid-config",
            Code::HfQuantConfigIgnored => "ome::model-metadata::hf-quant-config",
            Code::SafetensorsUnreadable => "ome::model-metadata::safetensors",
            Code::ParameterSizeInexact => "ome::model-metadata::parameter-size",
            Code::QuantizationUnrecognized => "ome::model-metadata::quantization",
            Code::CapabilityUnknown => "ome::model-metadata::capabilities",
            Code::SnapshotFile => "ome::model-metadata::snapshot-file",
            Code::ModelConfigAnnotation => "ome::model-metadata::annotation",
            Code::ModelMetadataFilled => "ome::model-metadata::filled",
            Code::ModelConfigSkipped => "ome::model-metadata::skipped",
            Code::ModelFileWrite => "ome::model-metadata::write",
            Code::AdmissionWarning => "ome::isvc::warning",
            Code::RuntimeInvalid => "ome::runtime::invalid",
            Code::ModelInvalid => "ome::model::invalid",
            Code::Reconcile => "ome::render::reconcile",
            Code::Migration => "ome::input::migration",
            Code::FluxSubstitution => "ome::output::flux-substitution",
            Code::StaleOutput => "ome::output::stale",
            Code::KrmResourceList => "ome::krm::resource-list",
            Code::KrmFunctionConfig => "ome::krm::function-config",
            Code::Omitted => "ome::report::omitted",
            Code::PodWebhook => "ome::render::pod-webhook",
            Code::ApiUnserved => "ome::render::api-unserved",
            Code::ApisNeeded => "ome::render::apis-needed",
            Code::ComponentsInput => "ome::components::input",
            Code::ComponentsIgnored => "ome::components::ignored",
            Code::Monitoring => "ome::render::monitoring",
            Code::TrafficIntent => "ome::render::traffic-intent",
            Code::LwsVariable => "ome::render::lws-variable",
            Code::TtlDelete => "ome::isvc::ttl",
            Code::OmePassthrough => "ome::render::ome-passthrough",
            Code::ModelAgent => "ome::model::agent",
            Code::ModelAgentUnsupported => "ome::model::agent-unsupported",
            Code::OverlaySkipped => "ome::model::overlay-skipped",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A second place a diagnostic points at, such as the first definition of a duplicate.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Related {
    pub(crate) pos: Pos,
    pub(crate) message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Diagnostic {
    pub(crate) severity: Severity,
    pub(crate) code: Code,
    pub(crate) message: String,
    pub(crate) pos: Option<Pos>,
    pub(crate) object: Option<ObjectId>,
    pub(crate) field: Option<String>,
    pub(crate) help: Option<String>,
    pub(crate) related: Vec<Related>,
}

impl Diagnostic {
    pub(crate) fn new(severity: Severity, code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            pos: None,
            object: None,
            field: None,
            help: None,
            related: Vec::new(),
        }
    }

    pub(crate) fn error(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, message)
    }

    pub(crate) fn warning(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, message)
    }

    pub(crate) fn note(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Note, code, message)
    }

    /// Points at an input position; a renderer-made position is ignored.
    pub(crate) fn at(mut self, pos: Pos) -> Diagnostic {
        if !pos.is_none() {
            self.pos = Some(pos);
        }
        self
    }

    pub(crate) fn object(mut self, object: ObjectId) -> Diagnostic {
        self.object = Some(object);
        self
    }

    pub(crate) fn field(mut self, field: impl Into<String>) -> Diagnostic {
        self.field = Some(field.into());
        self
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn related(mut self, pos: Pos, message: impl Into<String>) -> Diagnostic {
        if !pos.is_none() {
            self.related.push(Related {
                pos,
                message: message.into(),
            });
        }
        self
    }

    pub(crate) fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Diagnostics in a stable order: by file, line, column, then code and message, so the
/// report never depends on thread scheduling.
pub(crate) fn sort(diags: &mut [Diagnostic]) {
    diags.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            d.pos
                .map(|p| (p.file, p.line, p.col))
                .unwrap_or((u32::MAX, 0, 0))
        };
        key(a)
            .cmp(&key(b))
            .then(a.code.cmp(&b.code))
            .then_with(|| a.object.cmp(&b.object))
            .then_with(|| a.message.cmp(&b.message))
    });
}
