//! BaseModel and ClusterBaseModel: the model metadata selection matches against, and the
//! storage rendering mounts.

use super::fields::Reader;
use super::{DiffusionPipeline, FormatRef, name_pos};
use crate::diagnostics::Diagnostic;
use crate::k8s::id::ObjectId;
use crate::load::Object;
use crate::yaml::{Node, Pos};

#[derive(Clone, Debug)]
pub(crate) struct BaseModel {
    pub(crate) name: String,
    /// The namespace of a BaseModel; `None` for a ClusterBaseModel.
    pub(crate) namespace: Option<String>,
    pub(crate) object: ObjectId,
    pub(crate) pos: Pos,
    pub(crate) disabled: bool,
    pub(crate) format: Option<FormatRef>,
    pub(crate) framework: Option<FormatRef>,
    pub(crate) architecture: Option<String>,
    pub(crate) quantization: Option<String>,
    pub(crate) parameter_size: Option<String>,
    pub(crate) diffusion: Option<DiffusionPipeline>,
    pub(crate) vendor: Option<String>,
    /// Where `vendor` is written (OME copies it into a label of every rendered object).
    pub(crate) vendor_pos: Pos,
    pub(crate) model_type: Option<String>,
    /// `Sharded` or `PerNode` (the default).
    pub(crate) distribution: Option<String>,
    pub(crate) storage: Storage,
    /// The `models.ome.io/category` annotation (`LARGE`, `SMALL`, …).
    pub(crate) category: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Storage {
    /// Whether `spec.storage` is written at all (OME gives an overlay without it no path).
    pub(crate) present: bool,
    pub(crate) storage_uri: Option<String>,
    pub(crate) path: Option<String>,
    pub(crate) key: Option<String>,
    pub(crate) schema_path: Option<String>,
    /// `storage.parameters`, a map of strings, kept as written.
    pub(crate) parameters: Option<Node>,
    /// Where `storageUri` and `path` are written, for problems with the text OME copies
    /// from them into the pod (a mount, `MODEL_PATH`).
    pub(crate) storage_uri_pos: Pos,
    pub(crate) path_pos: Pos,
}

impl BaseModel {
    /// Reads a BaseModel (with `namespace`) or ClusterBaseModel (without).
    pub(crate) fn read(
        obj: &Object,
        namespace: Option<String>,
        diags: &mut Vec<Diagnostic>,
    ) -> BaseModel {
        let object = obj.written_id();
        let mut r = Reader {
            object: &object,
            diags,
        };
        let empty = Node::map(Default::default());
        let spec = r.map(&obj.root, "spec", "").unwrap_or(&empty);
        let storage = r.map(spec, "storage", "spec");
        let storage = match storage {
            Some(s) => Storage {
                present: true,
                storage_uri: r.str(s, "storageUri", "spec.storage"),
                path: r.str(s, "path", "spec.storage"),
                key: r.str(s, "key", "spec.storage"),
                schema_path: r.str(s, "schemaPath", "spec.storage"),
                parameters: r.map(s, "parameters", "spec.storage").cloned(),
                storage_uri_pos: s.get("storageUri").map_or(Pos::NONE, |n| n.pos),
                path_pos: s.get("path").map_or(Pos::NONE, |n| n.pos),
            },
            None => Storage::default(),
        };
        let category = obj
            .root
            .at(&["metadata", "annotations", "models.ome.io/category"])
            .and_then(Node::as_str)
            .map(str::to_string);
        BaseModel {
            name: obj.name.clone(),
            namespace,
            pos: name_pos(&obj.root),
            disabled: r.bool(spec, "disabled", "spec").unwrap_or(false),
            format: FormatRef::read(&mut r, spec, "modelFormat", "spec"),
            framework: FormatRef::read(&mut r, spec, "modelFramework", "spec"),
            architecture: r.str(spec, "modelArchitecture", "spec"),
            quantization: r.str(spec, "quantization", "spec"),
            parameter_size: r.str(spec, "modelParameterSize", "spec"),
            diffusion: DiffusionPipeline::read(&mut r, spec, "spec"),
            vendor: r.str(spec, "vendor", "spec"),
            vendor_pos: spec.get("vendor").map_or(Pos::NONE, |n| n.pos),
            model_type: r.str(spec, "modelType", "spec"),
            distribution: r.str(spec, "distribution", "spec"),
            storage,
            category,
            object,
        }
    }
}
