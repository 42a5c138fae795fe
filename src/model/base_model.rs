//! BaseModel and ClusterBaseModel: the model metadata selection matches against, and the
//! storage rendering mounts.

use super::fields::Reader;
use super::{DiffusionPipeline, FormatRef, name_pos};
use crate::diagnostics::{Diagnostic, ObjectRef};
use crate::load::Object;
use crate::yaml::{Node, Pos};

#[derive(Clone, Debug)]
pub struct BaseModel {
    pub name: String,
    /// The namespace of a BaseModel; `None` for a ClusterBaseModel.
    pub namespace: Option<String>,
    pub object: ObjectRef,
    pub pos: Pos,
    pub disabled: bool,
    pub format: Option<FormatRef>,
    pub framework: Option<FormatRef>,
    pub architecture: Option<String>,
    pub quantization: Option<String>,
    pub parameter_size: Option<String>,
    pub diffusion: Option<DiffusionPipeline>,
    pub vendor: Option<String>,
    pub model_type: Option<String>,
    /// `Sharded` or `PerNode` (the default).
    pub distribution: Option<String>,
    pub storage: Storage,
    /// The `models.ome.io/category` annotation (`LARGE`, `SMALL`, …).
    pub category: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct Storage {
    pub storage_uri: Option<String>,
    pub path: Option<String>,
    pub key: Option<String>,
    pub schema_path: Option<String>,
    /// `storage.parameters`, a map of strings, kept as written.
    pub parameters: Option<Node>,
}

impl BaseModel {
    /// Reads a BaseModel (with `namespace`) or ClusterBaseModel (without).
    pub fn read(obj: &Object, namespace: Option<String>, diags: &mut Vec<Diagnostic>) -> BaseModel {
        let object = obj.object_ref();
        let mut r = Reader {
            object: &object,
            diags,
        };
        let empty = Node::map(Default::default());
        let spec = r.map(&obj.root, "spec", "").unwrap_or(&empty);
        let storage = r.map(spec, "storage", "spec");
        let storage = match storage {
            Some(s) => Storage {
                storage_uri: r.str(s, "storageUri", "spec.storage"),
                path: r.str(s, "path", "spec.storage"),
                key: r.str(s, "key", "spec.storage"),
                schema_path: r.str(s, "schemaPath", "spec.storage"),
                parameters: r.map(s, "parameters", "spec.storage").cloned(),
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
            model_type: r.str(spec, "modelType", "spec"),
            distribution: r.str(spec, "distribution", "spec"),
            storage,
            category,
            object,
        }
    }

    pub fn is_cluster(&self) -> bool {
        self.namespace.is_none()
    }

    pub fn kind(&self) -> &'static str {
        if self.is_cluster() {
            "ClusterBaseModel"
        } else {
            "BaseModel"
        }
    }
}
