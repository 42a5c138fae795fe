//! Loading: find the input files, read them, and parse every document into an [`Object`]
//! that remembers where it came from. The only module that reads files.
//!
//! Files are read and parsed in parallel; the result keeps the walk order (paths in the
//! order given, directory entries sorted by name), so everything after it is deterministic.

#![expect(
    clippy::disallowed_methods,
    reason = "the loader is the one module that reads files"
)]

mod committed;
mod discover;
pub(crate) mod krm;
mod model_config;
mod objects;
pub(crate) mod snapshot;

pub(crate) use committed::{Committed, read_committed};
pub(crate) use discover::{Input, LoadOptions, OUTPUT_MARKER};
pub(crate) use model_config::{ModelConfigs, read_manifest};
pub(crate) use objects::{LOCK_FILE, Object, SETTINGS_FILE};

use crate::diagnostics::{Code, Diagnostic};
use crate::source::Sources;
use crate::yaml::Node;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything read from the inputs.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    pub(crate) sources: Sources,
    /// Every Kubernetes object, in input order.
    pub(crate) objects: Vec<Object>,
    /// The renderer settings file (`ome-render.yaml` at the root of a path), if any.
    pub(crate) settings: Option<Node>,
    /// The lock file (`ome-render.lock` at the root of a path), if any.
    pub(crate) lock: Option<Node>,
    pub(crate) diags: Vec<Diagnostic>,
    /// The metadata of the models whose `ome-render.io/model-config` annotation names a
    /// snapshot, for the catalog to fill their specs with.
    pub(crate) model_configs: ModelConfigs,
}

/// A failure to read the inputs at all: a missing path, an unreadable file, a bad glob.
/// The run stops with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LoadError(pub(crate) String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Reads and parses everything `options` names. `stdin` supplies the text of `-`.
pub(crate) fn load(
    options: &LoadOptions,
    stdin: &mut dyn FnMut() -> std::io::Result<String>,
) -> Result<Loaded, LoadError> {
    load_more(Loaded::default(), options, stdin)
}

/// Reads and parses everything `options` names after what `base` holds: its sources keep
/// their numbers, its objects come first. The KRM function loads a generator's paths after
/// the ResourceList this way.
pub(crate) fn load_more(
    base: Loaded,
    options: &LoadOptions,
    stdin: &mut dyn FnMut() -> std::io::Result<String>,
) -> Result<Loaded, LoadError> {
    let discovered = discover::discover(options)?;
    load_discovered(base, discovered, &options.paths, stdin)
}

/// Reads only the settings file after what `base` holds: `settings` when given, else
/// `ome-render.yaml` in the current directory, as for `-` (SEMANTICS.md#settings).
pub(crate) fn load_settings(base: Loaded, settings: Option<PathBuf>) -> Result<Loaded, LoadError> {
    let discovered = discover::settings_only(settings)?;
    load_discovered(base, discovered, &[], &mut || Ok(String::new()))
}

/// The note that no settings file was found where it was looked for.
fn defaults_note(looked_at: &str) -> Diagnostic {
    Diagnostic::note(
        Code::SettingsDefaults,
        format!(
            "no settings file at {looked_at}: OME's shipped controller settings apply \
             (terminationGracePeriodSeconds 600, ingress.disableIngressCreation true, \
             autoscaling.targetUtilizationPercentage 80, acceleratorResources [nvidia.com/gpu])"
        ),
    )
    .help("to render for a cluster whose OME settings differ, write them in that file or pass --settings FILE")
}

/// Reads what `discovered` found after what `base` holds. `roots` are the paths given: an
/// `ome-render.io/model-config` annotation may name snapshots inside them only.
fn load_discovered(
    base: Loaded,
    discovered: discover::Discovered,
    roots: &[PathBuf],
    stdin: &mut dyn FnMut() -> std::io::Result<String>,
) -> Result<Loaded, LoadError> {
    let Loaded {
        mut sources,
        objects: base_objects,
        settings: _,
        lock: base_lock,
        diags: mut base_diags,
        model_configs: base_model_configs,
    } = base;
    base_diags.extend(discovered.diags);
    let mut diags = base_diags;
    if let Some(looked_at) = &discovered.settings_looked_for {
        diags.push(defaults_note(looked_at));
    }
    // The settings file first, then the inputs in walk order.
    let inputs: Vec<Input> = discovered
        .settings
        .into_iter()
        .chain(discovered.inputs)
        .collect();
    let stdin_text = if inputs.iter().any(|i| i.path.is_none()) {
        Some(stdin().map_err(|e| LoadError(format!("cannot read standard input: {e}")))?)
    } else {
        None
    };
    let texts: Vec<(Input, Result<Vec<u8>, String>)> = inputs
        .into_par_iter()
        .map(|input| {
            let bytes = match &input.path {
                None => Ok(stdin_text.clone().unwrap_or_default().into_bytes()),
                Some(p) => std::fs::read(p).map_err(|e| e.to_string()),
            };
            (input, bytes)
        })
        .collect();

    let mut files = Vec::with_capacity(texts.len());
    for (input, bytes) in texts {
        let bytes = bytes.map_err(|e| LoadError(format!("cannot read {}: {e}", input.display)))?;
        match String::from_utf8(bytes) {
            Ok(text) => {
                let text: Arc<str> = Arc::from(text);
                let id = sources.add(input.display.clone(), text.clone());
                files.push((id, input, text));
            }
            Err(_) => {
                let id = sources.add(input.display.clone(), Arc::from(""));
                diags.push(
                    Diagnostic::error(
                        Code::NotUtf8,
                        format!("{} is not UTF-8 text", input.display),
                    )
                    .at(crate::yaml::Pos {
                        file: id,
                        line: 1,
                        col: 0,
                    })
                    .help("save the file as UTF-8"),
                );
            }
        }
    }

    let origins: Vec<(u32, Option<std::path::PathBuf>)> = files
        .iter()
        .map(|(id, input, _)| (*id, input.path.clone()))
        .collect();
    let mut loaded = parse_files(sources, files, diags);
    model_config::follow(&mut loaded, &origins, roots);
    loaded.model_configs.extend(base_model_configs);
    if loaded.lock.is_none() {
        loaded.lock = base_lock;
    }
    if !base_objects.is_empty() {
        let mut objects = base_objects;
        objects.append(&mut loaded.objects);
        loaded.objects = objects;
    }
    Ok(loaded)
}

/// Loads files given as text (path, text): the same parsing, without touching the file
/// system.
#[cfg(test)]
pub(crate) fn from_texts(files: &[(&str, &str)]) -> Loaded {
    let mut sources = Sources::new();
    let inputs = files
        .iter()
        .map(|(path, text)| {
            let text: Arc<str> = Arc::from(*text);
            let id = sources.add((*path).to_string(), text.clone());
            let input = Input {
                path: None,
                display: (*path).to_string(),
                is_settings: *path == SETTINGS_FILE,
                is_lock: *path == LOCK_FILE,
            };
            (id, input, text)
        })
        .collect();
    parse_files(sources, inputs, Vec::new())
}

fn parse_files(
    sources: Sources,
    files: Vec<(u32, Input, Arc<str>)>,
    diags: Vec<Diagnostic>,
) -> Loaded {
    let parsed: Vec<objects::FileObjects> = files
        .par_iter()
        .map(|(id, input, text)| objects::read_file(*id, input, text))
        .collect();
    let mut loaded = Loaded {
        sources,
        diags,
        ..Loaded::default()
    };
    for file in parsed {
        loaded.objects.extend(file.objects);
        loaded.diags.extend(file.diags);
        if let Some(settings) = file.settings {
            loaded.settings = Some(settings);
        }
        if let Some(lock) = file.lock {
            if loaded.lock.is_some() {
                loaded.diags.push(
                    Diagnostic::error(
                        Code::Lock,
                        format!("more than one {LOCK_FILE} among the paths"),
                    )
                    .at(lock.pos)
                    .help("keep one lock file, at the root of the repository"),
                );
            }
            loaded.lock = Some(lock);
        }
    }
    loaded
}
