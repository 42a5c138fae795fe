//! `ome-render model-metadata PATH [--write FILE]`: the spec fields OME's model agent would
//! write for a local Hugging Face snapshot (SEMANTICS.md#model-metadata), printed as a YAML
//! patch, or merged into the file of a BaseModel or ClusterBaseModel.

use super::{ExitStatus, Outcome, fatal, report, stdout_written};
use crate::cli::{GlobalArgs, ModelMetadataArgs};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::emit::model_file;
use crate::load::{self, Object, snapshot};
use crate::modelmeta::{self, ModelMetadata};
use crate::source::Sources;
use crate::yaml::Pos;
use std::path::Path;

pub(crate) fn model_metadata(global: &GlobalArgs, args: &ModelMetadataArgs) -> ExitStatus {
    let (mut sources, derivation) =
        match snapshot::model_metadata(&args.path, global.limits().file_bytes) {
            Ok(read) => read,
            Err(e) => return fatal(&e.to_string()),
        };
    let mut diags = derivation.diags;
    let Some(meta) = derivation.metadata else {
        // The derivation has said why (an error).
        report(&mut diags, &sources, global, Outcome::Writes, false);
        return ExitStatus::InputErrors;
    };
    match &args.write {
        None => {
            if report(&mut diags, &sources, global, Outcome::Writes, false) {
                return ExitStatus::InputErrors;
            }
            stdout_written(model_file::print_patch(&modelmeta::patch(&meta)))
        }
        Some(file) => write(global, file, &meta, &mut sources, diags),
    }
}

fn is_model(o: &Object) -> bool {
    o.group() == "ome.io" && matches!(o.kind.as_str(), "BaseModel" | "ClusterBaseModel")
}

/// `--write FILE`: merges the fields into the one model of `file`, then reports.
fn write(
    global: &GlobalArgs,
    file: &Path,
    meta: &ModelMetadata,
    sources: &mut Sources,
    mut diags: Vec<Diagnostic>,
) -> ExitStatus {
    let (id, objects, mut file_diags) = match load::read_manifest(file, sources, &global.limits()) {
        Ok(read) => read,
        Err(e) => return fatal(&e.to_string()),
    };
    diags.append(&mut file_diags);
    let display = file.display().to_string();
    let start = Pos {
        file: id,
        line: 1,
        col: 0,
    };
    let models: Vec<&Object> = objects.iter().filter(|o| is_model(o)).collect();
    let mut merged = None;
    if !diags.iter().any(Diagnostic::is_error) {
        match models.as_slice() {
            [] => diags.push(
                Diagnostic::error(
                    Code::ModelFileWrite,
                    format!("{display} holds no BaseModel or ClusterBaseModel"),
                )
                .at(start)
                .help("--write merges the fields into the file of a model manifest"),
            ),
            [model] if modelmeta::skips_config_parsing(&model.root) => diags.push(
                Diagnostic::error(
                    Code::ModelConfigSkipped,
                    format!(
                        "{} is \"true\" on {}: OME's model agent fills nothing, so nothing is written",
                        modelmeta::SKIP_ANNOTATION,
                        model.written_id()
                    ),
                )
                .at(model.root.at(&["metadata", "annotations", modelmeta::SKIP_ANNOTATION]).map_or(model.pos(), |n| n.pos))
                .object(model.written_id())
                .help("remove the annotation to have the spec filled, or set the fields yourself"),
            ),
            [model] => {
                let text = sources.get(id).and_then(|f| f.text()).unwrap_or_default();
                let at = model.root.get("spec").map_or(model.pos(), |n| n.pos);
                match model_file::merge(text, id, &model.root, meta) {
                    Ok(m) => {
                        for key in &m.null {
                            diags.push(
                                Diagnostic::warning(
                                    Code::ModelFileWrite,
                                    format!("spec.{key} is null in {display}: left as it is"),
                                )
                                .at(model.root.at(&["spec", key]).map_or(at, |n| n.pos))
                                .object(model.written_id())
                                .field(format!("spec.{key}"))
                                .help("delete the line to have --write fill the field"),
                            );
                        }
                        merged = Some((m, at, model.written_id()));
                    }
                    Err(why) => diags.push(
                        Diagnostic::error(
                            Code::ModelFileWrite,
                            format!("cannot merge the fields into {display}: {why}"),
                        )
                        .at(at)
                        .object(model.written_id())
                        .help("or add the fields `ome-render model-metadata PATH` prints by hand"),
                    ),
                }
            }
            several => {
                let names: Vec<String> = several.iter().map(|m| m.written_id().to_string()).collect();
                diags.push(
                    Diagnostic::error(
                        Code::ModelFileWrite,
                        format!(
                            "{display} holds {} models ({}); --write merges into a file of one",
                            several.len(),
                            names.join(", ")
                        ),
                    )
                    .at(start)
                    .help("put each model in a file of its own"),
                );
            }
        }
    }
    let blocked = diags
        .iter()
        .any(|d| d.is_error() || (global.strict && d.severity == Severity::Warning));
    if let (false, Some((m, at, object))) = (blocked, merged) {
        let message = if m.added.is_empty() {
            format!("{display} already sets every field OME's model agent writes; left unchanged")
        } else {
            if let Err(e) = model_file::replace(file, &m.text) {
                report(&mut diags, sources, global, Outcome::Writes, false);
                return fatal(&e);
            }
            let fields: Vec<String> = m.added.iter().map(|k| format!("spec.{k}")).collect();
            format!("added {} to {display}", fields.join(", "))
        };
        diags.push(
            Diagnostic::note(Code::ModelMetadataFilled, message)
                .at(at)
                .object(object),
        );
    }
    if report(&mut diags, sources, global, Outcome::Writes, false) {
        ExitStatus::InputErrors
    } else {
        ExitStatus::Success
    }
}
