//! Following the `ome-render.io/model-config` annotation (SEMANTICS.md#model-metadata): once
//! the objects are parsed, each BaseModel or ClusterBaseModel that names a Hugging Face
//! snapshot has it read ([`super::snapshot`], headers only) and its metadata derived
//! ([`crate::modelmeta::derive`]), for the catalog to fill the spec with.
//!
//! The path is relative to the manifest's file (to the current directory for standard
//! input) and must lie inside the directory being rendered, lexically and with no link in
//! it (SEMANTICS.md#choice-model-config-paths): the
//! directory given on the command line, the directory of a file given, the current
//! directory for `-` (SEMANTICS.md#choice-model-config-paths). A pull request is hostile
//! input: an annotation pointing at `/etc` or `../../` reads nothing.
//!
//! Also the reader of the one file `model-metadata --write` merges into.

use super::discover::Input;
use super::limits::Limits;
use super::{LoadError, Loaded, Object, objects, snapshot};
use crate::diagnostics::{Code, Diagnostic};
use crate::modelmeta::{self, MODEL_CONFIG_ANNOTATION, ModelMetadata};
use crate::source::Sources;
use crate::yaml::{Node, Pos};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// The metadata derived for one model manifest.
#[derive(Debug)]
pub(crate) struct ModelConfig {
    pub(crate) metadata: ModelMetadata,
    /// The annotation's value, as written.
    pub(crate) path: String,
    /// Where the annotation is.
    pub(crate) pos: Pos,
}

/// The models whose snapshot was read, by the position of the object (one per object).
pub(crate) type ModelConfigs = BTreeMap<Pos, ModelConfig>;

/// The API group of the kinds the annotation applies to (the catalog's, which sits above).
const OME_GROUP: &str = "ome.io";
/// The kinds the annotation applies to.
const MODEL_KINDS: [&str; 2] = ["BaseModel", "ClusterBaseModel"];

/// The annotation path as a diagnostic names the field.
fn field() -> String {
    format!("metadata.annotations.{MODEL_CONFIG_ANNOTATION}")
}

fn annotation(obj: &Object) -> Option<&Node> {
    obj.root
        .at(&["metadata", "annotations", MODEL_CONFIG_ANNOTATION])
}

/// A path without `.` components, for messages (`dir/./snapshot` → `dir/snapshot`).
fn clean(path: &Path) -> PathBuf {
    let cleaned: PathBuf = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if cleaned.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        cleaned
    }
}

fn parent_or_dot(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The directory being rendered that holds `file`: the first path given that is `file`
/// itself (its directory then) or a directory above it.
fn fence_of<'a>(file: &'a Path, paths: &'a [PathBuf]) -> &'a Path {
    for p in paths {
        if p.as_os_str() == "-" {
            continue;
        }
        if p == file {
            return parent_or_dot(p);
        }
        if file.starts_with(p) {
            return p;
        }
    }
    parent_or_dot(file)
}

/// `path` with `.` dropped and each `..` taking off the name before it (a leading `..` kept).
fn normalise(path: &Path) -> Vec<Component<'_>> {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether `path`, read lexically, stays inside `fence` (or is it).
fn lexically_inside(path: &Path, fence: &Path) -> bool {
    let (path, fence) = (normalise(path), normalise(fence));
    path.starts_with(&fence)
        && path[fence.len()..]
            .iter()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// Whether a component of `target` below `fence` is a symbolic link (the snapshot's own
/// files are the snapshot reader's: a Hugging Face snapshot's files link into its cache).
fn has_link_below(fence: &Path, target: &Path) -> bool {
    let (fence, target) = (normalise(fence), normalise(target));
    let mut at: PathBuf = fence.iter().collect();
    target[fence.len().min(target.len())..].iter().any(|c| {
        at.push(c);
        std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink())
    })
}

/// One snapshot, read and derived once however many models name it.
struct Derived {
    diags: Vec<Diagnostic>,
    metadata: Option<ModelMetadata>,
}

/// Reads the snapshot of every annotated model of `loaded` into `loaded.model_configs`,
/// reporting problems at the annotation. `origins` maps a source file to its path (`None`
/// for standard input); `paths` are the paths given.
pub(super) fn follow(
    loaded: &mut Loaded,
    origins: &[(u32, Option<PathBuf>)],
    paths: &[PathBuf],
    max_bytes: u64,
) {
    let Loaded {
        objects,
        sources,
        diags,
        model_configs,
        ..
    } = loaded;
    if !objects.par_iter().any(|o| annotation(o).is_some()) {
        return;
    }
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let origin: HashMap<u32, Option<&Path>> =
        origins.iter().map(|(id, p)| (*id, p.as_deref())).collect();
    let mut cache: HashMap<PathBuf, Derived> = HashMap::new();
    // The snapshot directories read, canonical.
    let mut roots: Vec<PathBuf> = Vec::new();
    for obj in objects.iter() {
        let Some(node) = annotation(obj) else {
            continue;
        };
        let object = obj.written_id();
        let at = |d: Diagnostic| d.at(node.pos).object(object.clone()).field(field());
        if obj.group() != OME_GROUP || !MODEL_KINDS.contains(&obj.kind.as_str()) {
            diags.push(at(Diagnostic::warning(
                Code::ModelConfigAnnotation,
                format!(
                    "{MODEL_CONFIG_ANNOTATION} applies to BaseModels and ClusterBaseModels only; ignored on this {}",
                    obj.kind
                ),
            )
            .help("move the annotation to the model the snapshot belongs to")));
            continue;
        }
        if modelmeta::skips_config_parsing(&obj.root) {
            diags.push(at(Diagnostic::note(
                Code::ModelConfigSkipped,
                format!(
                    "{} is \"true\": the snapshot is not read and the spec is used as written, as OME's model agent parses nothing",
                    modelmeta::SKIP_ANNOTATION
                ),
            )));
            continue;
        }
        let Some(value) = node.as_str().filter(|v| !v.trim().is_empty()) else {
            diags.push(at(Diagnostic::error(
                Code::ModelConfigAnnotation,
                format!("{MODEL_CONFIG_ANNOTATION} must be a path (a string)"),
            )
            .help("the path of the model's Hugging Face snapshot directory, or of its config.json, relative to this file")));
            continue;
        };
        let manifest = origin.get(&node.pos.file).copied().flatten();
        let (base, fence) = match manifest {
            Some(file) => (parent_or_dot(file), fence_of(file, paths)),
            None => (Path::new("."), Path::new(".")),
        };
        let target = clean(&base.join(value));
        let outside = || {
            at(Diagnostic::error(
                Code::ModelConfigAnnotation,
                format!(
                    "the snapshot {value} is outside {} (the directory being rendered); it is not read",
                    clean(fence).display()
                ),
            )
            .help("keep the model's snapshot (its config.json, and safetensors headers for an exact parameter count) inside the directory being rendered"))
        };
        // The fence, before anything is looked at: a path that leaves the directory being
        // rendered, lexically or through a link inside it, gets the one message whether or
        // not something is at its end (no existence oracle, SEMANTICS.md#limits).
        if !lexically_inside(&base.join(value), fence) || has_link_below(fence, &target) {
            diags.push(outside());
            continue;
        }
        let resolved = match std::fs::canonicalize(&target) {
            Ok(r) => r,
            Err(e) => {
                diags.push(at(Diagnostic::error(
                    Code::ModelConfigAnnotation,
                    format!("cannot read the snapshot {}: {e}", target.display()),
                )
                .help(match manifest {
                    Some(_) => "the path is relative to the file of the manifest",
                    None => "from standard input the path is relative to the current directory",
                })));
                continue;
            }
        };
        let Ok(fence) = std::fs::canonicalize(fence) else {
            diags.push(outside());
            continue;
        };
        if !resolved.starts_with(&fence) {
            diags.push(outside());
            continue;
        }
        let derived = cache.entry(resolved.clone()).or_insert_with(|| {
            roots.push(if resolved.is_dir() {
                resolved.clone()
            } else {
                parent_or_dot(&resolved).to_path_buf()
            });
            match snapshot::read_into(&target, Some(&fence), max_bytes, sources) {
                Ok((files, mut read_diags)) => {
                    let mut derivation = modelmeta::derive(&files);
                    read_diags.append(&mut derivation.diags);
                    Derived {
                        diags: read_diags,
                        metadata: derivation.metadata,
                    }
                }
                Err(LoadError(message)) => Derived {
                    diags: vec![Diagnostic::error(Code::ModelConfigAnnotation, message)],
                    metadata: None,
                },
            }
        });
        for d in &derived.diags {
            let mut d = d.clone();
            if d.object.is_none() {
                d.object = Some(object.clone());
            }
            d = if d.pos.is_none() {
                d.at(node.pos).field(field())
            } else {
                d.related(node.pos, "the snapshot the model's annotation names")
            };
            diags.push(d);
        }
        if let Some(metadata) = &derived.metadata {
            model_configs.insert(
                obj.root.pos,
                ModelConfig {
                    metadata: metadata.clone(),
                    path: value.to_string(),
                    pos: node.pos,
                },
            );
        }
    }
    drop_snapshot_notes(diags, &origin, &roots);
}

/// A snapshot inside the directory being rendered has its JSON files walked as inputs too;
/// they hold no objects, and the note saying so for each is dropped.
fn drop_snapshot_notes(
    diags: &mut Vec<Diagnostic>,
    origin: &HashMap<u32, Option<&Path>>,
    roots: &[PathBuf],
) {
    if roots.is_empty() {
        return;
    }
    let in_snapshot = |file: u32| {
        origin
            .get(&file)
            .copied()
            .flatten()
            .and_then(|p| std::fs::canonicalize(p).ok())
            .is_some_and(|p| roots.iter().any(|r| p.starts_with(r)))
    };
    diags.retain(|d| !(d.code == Code::NotAnObject && d.pos.is_some_and(|p| in_snapshot(p.file))));
}

/// One manifest file, read and parsed into `sources`: the file `model-metadata --write`
/// merges into. Returns its index in `sources` with its objects and diagnostics.
pub(crate) fn read_manifest(
    path: &Path,
    sources: &mut Sources,
    limits: &Limits,
) -> Result<(u32, Vec<Object>, Vec<Diagnostic>), LoadError> {
    let display = path.display().to_string();
    let cannot = |e: String| LoadError(format!("cannot read {display}: {e}"));
    let (file, stamp) = super::open_regular(path).map_err(cannot)?;
    let bytes = super::read_all(file, stamp.len, limits.file_bytes).map_err(cannot)?;
    if bytes.len() as u64 > limits.file_bytes {
        let id = sources.add(display.clone(), Arc::from(""));
        let d = super::bytes_limit(
            id,
            format!("the file holds more than {} bytes", limits.file_bytes),
            "file-bytes",
        );
        return Ok((id, Vec::new(), vec![d]));
    }
    let Ok(text) = String::from_utf8(bytes) else {
        let id = sources.add(display.clone(), Arc::from(""));
        let d = Diagnostic::error(Code::NotUtf8, format!("{display} is not UTF-8 text"))
            .at(Pos {
                file: id,
                line: 1,
                col: 0,
            })
            .help("save the file as UTF-8");
        return Ok((id, Vec::new(), vec![d]));
    };
    let text: Arc<str> = Arc::from(text);
    let id = sources.add(display.clone(), text.clone());
    let input = Input {
        path: Some(path.to_path_buf()),
        display,
        is_settings: false,
        is_lock: false,
        is_deploy_config: false,
        beneath: None,
    };
    let read = objects::read_file(id, &input, &text, &limits.parse(), &limits.alias_budget());
    Ok((id, read.objects, read.diags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fence_is_the_path_given_that_holds_the_file() {
        let paths = [PathBuf::from("a/b"), PathBuf::from("c/model.yaml")];
        assert_eq!(
            fence_of(Path::new("a/b/x/m.yaml"), &paths),
            Path::new("a/b")
        );
        assert_eq!(fence_of(Path::new("c/model.yaml"), &paths), Path::new("c"));
        // Not under a path given (cannot happen from discovery): its own directory.
        assert_eq!(fence_of(Path::new("d/m.yaml"), &paths), Path::new("d"));
        assert_eq!(
            fence_of(Path::new("model.yaml"), &[PathBuf::from("model.yaml")]),
            Path::new(".")
        );
        // `a/bc` is not inside `a/b`: components, not characters.
        assert_eq!(
            fence_of(Path::new("a/bc/m.yaml"), &paths),
            Path::new("a/bc")
        );
    }

    #[test]
    fn paths_in_messages_drop_dot_components() {
        assert_eq!(clean(Path::new("a/./b/./c")), Path::new("a/b/c"));
        assert_eq!(clean(Path::new("./snapshot")), Path::new("snapshot"));
        assert_eq!(clean(Path::new("a/../b")), Path::new("a/../b"));
        assert_eq!(clean(Path::new(".")), Path::new("."));
    }

    #[test]
    fn the_fence_is_lexical_first() {
        let inside = |p: &str, f: &str| lexically_inside(Path::new(p), Path::new(f));
        assert!(inside("a/b/./snap", "a"));
        assert!(inside("a/b/../snap", "a"));
        assert!(inside("a", "a"));
        assert!(!inside("a/../x", "a"));
        assert!(!inside("a/b/../../x", "a"));
        assert!(!inside("a/b/../../a/x", "a/b"));
        assert!(!inside("/etc", "."));
        assert!(inside("../repo/snap", "../repo"));
        assert!(!inside("../repo/../other", "../repo"));
        assert!(!inside("ab/x", "a"));
    }
}
