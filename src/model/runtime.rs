//! ServingRuntime and ClusterServingRuntime: what selection matches (supported formats, size
//! range, accelerator classes, declared modes) and the spec rendering merges.

use super::component::{DEPLOYMENT_MODE_ANNOTATION, DeploymentMode, Role};
use super::fields::{Reader, join};
use super::{DiffusionPipeline, FormatRef, name_pos};
use crate::diagnostics::Diagnostic;
use crate::k8s::id::ObjectId;
use crate::load::Object;
use crate::yaml::{Map, Node, Pos};

/// Where a runtime lives: a ServingRuntime is namespaced, a ClusterServingRuntime is not.
pub(crate) use crate::k8s::kinds::Scope;

/// One `acceleratorConfig` value of a supported-format entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct AcceleratorModelConfig {
    /// `environmentOverride`, sorted by name (SEMANTICS.md#choice-sorted-maps).
    pub(crate) environment_override: Vec<(String, String)>,
    pub(crate) runtime_args_override: Vec<String>,
    /// Set when `tensorParallelismOverride` is present, even if it is empty.
    pub(crate) tensor_parallelism: Option<TensorParallelism>,
    pub(crate) pos: Pos,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TensorParallelism {
    pub(crate) tensor_parallel_size: Option<i64>,
    pub(crate) pipeline_parallel_size: Option<i64>,
}

/// One entry of `supportedModelFormats`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SupportedFormat {
    pub(crate) name: Option<String>,
    pub(crate) model_format: Option<FormatRef>,
    pub(crate) model_framework: Option<FormatRef>,
    pub(crate) architecture: Option<String>,
    pub(crate) quantization: Option<String>,
    /// Boxed: most entries have none, and inline it would double the entry's size.
    pub(crate) diffusion: Option<Box<DiffusionPipeline>>,
    pub(crate) auto_select: Option<bool>,
    pub(crate) priority: Option<i64>,
    /// `acceleratorConfig`, by class name, in key order.
    pub(crate) accelerator_config: Vec<(String, AcceleratorModelConfig)>,
    pub(crate) pos: Pos,
}

impl SupportedFormat {
    pub(crate) fn accelerator_config(&self, class: &str) -> Option<&AcceleratorModelConfig> {
        self.accelerator_config
            .iter()
            .find(|(k, _)| k == class)
            .map(|(_, v)| v)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SizeRange {
    pub(crate) min: Option<String>,
    pub(crate) max: Option<String>,
}

/// What selection and rendering read from a runtime's spec. Built from a runtime's own spec,
/// or from the spec it inherits.
#[derive(Clone, Debug)]
pub(crate) struct RuntimeSpec {
    pub(crate) disabled: bool,
    pub(crate) formats: Vec<SupportedFormat>,
    pub(crate) size_range: Option<SizeRange>,
    /// `acceleratorRequirements.acceleratorClasses`; `None` when absent.
    pub(crate) accelerator_classes: Option<Vec<String>>,
    /// `engineConfig.annotations["ome.io/deploymentMode"]`, when it is a valid mode.
    pub(crate) engine_mode: Option<DeploymentMode>,
    /// `decoderConfig.annotations["ome.io/deploymentMode"]`, when it is a valid mode.
    pub(crate) decoder_mode: Option<DeploymentMode>,
    /// The whole `spec`, for merging and rendering.
    pub(crate) spec: Node,
}

#[derive(Clone, Debug)]
pub(crate) struct Runtime {
    pub(crate) name: String,
    /// The namespace of a ServingRuntime; `None` for a ClusterServingRuntime.
    pub(crate) namespace: Option<String>,
    pub(crate) scope: Scope,
    pub(crate) object: ObjectId,
    pub(crate) pos: Pos,
    /// `metadata.annotations["ome.io/inherit-from"]`: the parent's name.
    pub(crate) inherit_from: Option<String>,
    /// `metadata.annotations["ome.io/runtime-profile"]`.
    pub(crate) profile: Option<String>,
    /// `metadata.annotations["ome.io/engine"]`: the preset filled into the spec, if any.
    pub(crate) preset: Option<String>,
    /// The runtime's own spec, without what it inherits.
    pub(crate) spec: RuntimeSpec,
}

impl Runtime {
    /// Reads the view of a runtime object, with a copy of its spec's tree.
    pub(crate) fn read(
        obj: &Object,
        scope: Scope,
        namespace: Option<String>,
        diags: &mut Vec<Diagnostic>,
    ) -> Runtime {
        let mut runtime = Runtime::read_fields(obj, scope, namespace, diags);
        if let Some(spec) = spec_of(obj) {
            runtime.spec.spec = spec.clone();
        }
        runtime
    }

    /// [`Runtime::read`], moving the spec's tree out of `obj` instead of copying it, for an
    /// object that goes once read: `obj` is left with an empty spec (BENCHMARKS.md).
    pub(crate) fn take(
        obj: &mut Object,
        scope: Scope,
        namespace: Option<String>,
        diags: &mut Vec<Diagnostic>,
    ) -> Runtime {
        let mut runtime = Runtime::read_fields(obj, scope, namespace, diags);
        if spec_of(obj).is_some()
            && let Some(spec) = obj.root.as_map_mut().and_then(|m| m.get_mut("spec"))
        {
            runtime.spec.spec = std::mem::replace(spec, Node::map(Map::new()));
        }
        runtime
    }

    /// Every field but the spec's tree, which is left an empty map.
    fn read_fields(
        obj: &Object,
        scope: Scope,
        namespace: Option<String>,
        diags: &mut Vec<Diagnostic>,
    ) -> Runtime {
        let object = obj.written_id();
        let empty = Node::map(Map::new());
        let spec = spec_of(obj).unwrap_or(&empty);
        let spec_view = RuntimeSpec::read_fields(spec, &object, diags);
        let annotation = |key: &str| {
            obj.root
                .at(&["metadata", "annotations", key])
                .and_then(Node::as_str)
                .map(str::to_string)
        };
        let inherit_from = annotation("ome.io/inherit-from").filter(|p| !p.is_empty());
        let profile = annotation("ome.io/runtime-profile");
        let preset = annotation("ome.io/engine").filter(|p| !p.is_empty());
        Runtime {
            name: obj.name.clone(),
            namespace,
            scope,
            pos: name_pos(&obj.root),
            inherit_from,
            profile,
            preset,
            spec: spec_view,
            object,
        }
    }
}

/// An object's `spec`, when it is a map.
fn spec_of(obj: &Object) -> Option<&Node> {
    obj.root.get("spec").filter(|s| s.as_map().is_some())
}

impl RuntimeSpec {
    /// Reads the view of a runtime `spec` node.
    pub(crate) fn read(spec: &Node, object: &ObjectId, diags: &mut Vec<Diagnostic>) -> RuntimeSpec {
        RuntimeSpec {
            spec: spec.clone(),
            ..RuntimeSpec::read_fields(spec, object, diags)
        }
    }

    /// Every field of the view but the tree (`spec`), which is left an empty map.
    fn read_fields(spec: &Node, object: &ObjectId, diags: &mut Vec<Diagnostic>) -> RuntimeSpec {
        let mut r = Reader { object, diags };
        let entries = r.seq(spec, "supportedModelFormats", "spec").unwrap_or(&[]);
        // Sized for the entries: a format is 504 bytes, and a list collected through a
        // filter holds room for at least four (BENCHMARKS.md).
        let mut formats = Vec::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let path = format!("spec.supportedModelFormats[{i}]");
            if entry.as_map().is_none() {
                r.invalid(entry, &path, "a map");
                continue;
            }
            formats.push(read_format(&mut r, entry, &path));
        }
        let size_range = r.map(spec, "modelSizeRange", "spec").map(|n| SizeRange {
            min: r.quantity(n, "min", "spec.modelSizeRange"),
            max: r.quantity(n, "max", "spec.modelSizeRange"),
        });
        let accelerator_classes = r
            .map(spec, "acceleratorRequirements", "spec")
            .and_then(|n| r.strings(n, "acceleratorClasses", "spec.acceleratorRequirements"));
        let mode = |role: Role| {
            spec.at(&[role.config_key(), "annotations", DEPLOYMENT_MODE_ANNOTATION])
                .and_then(Node::as_str)
                .and_then(DeploymentMode::parse)
        };
        RuntimeSpec {
            disabled: r.bool(spec, "disabled", "spec").unwrap_or(false),
            formats,
            size_range,
            accelerator_classes,
            engine_mode: mode(Role::Engine),
            decoder_mode: mode(Role::Decoder),
            spec: Node::map(Map::new()),
        }
    }
}

fn read_format(r: &mut Reader<'_>, entry: &Node, path: &str) -> SupportedFormat {
    let accelerator_config = r
        .map(entry, "acceleratorConfig", path)
        .map(|n| {
            let base = join(path, "acceleratorConfig");
            let mut configs: Vec<(String, AcceleratorModelConfig)> = n
                .as_map()
                .into_iter()
                .flat_map(|m| m.iter())
                .filter_map(|(class, v)| {
                    let p = join(&base, class);
                    if v.is_null() {
                        return Some((class.to_string(), AcceleratorModelConfig::default()));
                    }
                    if v.as_map().is_none() {
                        r.invalid(v, &p, "a map");
                        return None;
                    }
                    let tensor_parallelism = r.map(v, "tensorParallelismOverride", &p).map(|t| {
                        let tp = join(&p, "tensorParallelismOverride");
                        TensorParallelism {
                            tensor_parallel_size: r.int(t, "tensorParallelSize", &tp),
                            pipeline_parallel_size: r.int(t, "pipelineParallelSize", &tp),
                        }
                    });
                    Some((
                        class.to_string(),
                        AcceleratorModelConfig {
                            environment_override: r
                                .string_map(v, "environmentOverride", &p)
                                .unwrap_or_default(),
                            runtime_args_override: r
                                .strings(v, "runtimeArgsOverride", &p)
                                .unwrap_or_default(),
                            tensor_parallelism,
                            pos: v.pos,
                        },
                    ))
                })
                .collect();
            configs.sort_by(|a, b| a.0.cmp(&b.0));
            configs
        })
        .unwrap_or_default();
    SupportedFormat {
        name: r.str(entry, "name", path),
        model_format: FormatRef::read(r, entry, "modelFormat", path),
        model_framework: FormatRef::read(r, entry, "modelFramework", path),
        architecture: r.str(entry, "modelArchitecture", path),
        quantization: r.str(entry, "quantization", path),
        diffusion: DiffusionPipeline::read(r, entry, path).map(Box::new),
        auto_select: r.bool(entry, "autoSelect", path),
        priority: r.int(entry, "priority", path),
        accelerator_config,
        pos: entry.pos,
    }
}
