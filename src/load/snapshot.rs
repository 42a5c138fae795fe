//! Reading a Hugging Face snapshot for [`crate::modelmeta`]: the files OME's model agent
//! reads, found where it looks for them, read as little as possible and never outside the
//! snapshot.
//!
//! - `model_index.json` at the root, else anywhere below it; otherwise `config.json` at the
//!   root, in `safetensors/`, `pytorch_model/` or `model/`, else anywhere below. The search
//!   below the root is OME's `filepath.Walk`: entries in byte order, links not followed,
//!   and the last directory (in walk order) that holds the file wins.
//! - `hf_quant_config.json` at the root or in those three directories.
//! - The safetensors next to the chosen file: the shards `model.safetensors.index.json`
//!   names when it is there, else every `*.safetensors` entry. Of each, only the 8-byte
//!   length and the header it announces are read, after checking the length against OME's
//!   limit and the file's size; the weights are never read.
//! - For a pipeline, the same for each component directory that has a `config.json`.
//!
//! Links may point anywhere inside the snapshot; for a Hugging Face cache snapshot
//! (`…/snapshots/<revision>/`) also into the cache's `blobs/`, where its links point.
//! Anything else outside, and anything that is not a regular file, is refused.

use super::LoadError;
use crate::diagnostics::{Code, Diagnostic};
use crate::modelmeta::safetensors::{self, EXTENSION, INDEX_FILE, PREFIX_BYTES};
use crate::modelmeta::{
    self, ComponentFiles, Derivation, JsonFile, SnapshotFiles, Weights, WeightsFile,
};
use crate::source::Sources;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Directory entries the search below the root looks at, at most.
const WALK_BUDGET: usize = 100_000;

/// The directories OME looks in, after the root, for `config.json` and
/// `hf_quant_config.json`.
const CONFIG_SUBDIRS: [&str; 3] = ["safetensors", "pytorch_model", "model"];

/// A snapshot as read: the JSON files are in `sources`, for diagnostics to quote.
#[derive(Debug)]
pub(crate) struct Snapshot {
    pub(crate) sources: Sources,
    pub(crate) files: SnapshotFiles,
    pub(crate) diags: Vec<Diagnostic>,
}

/// Reads the snapshot at `path`: a snapshot directory, or a `config.json` (or
/// `model_index.json`) in one. Fails only when `path` cannot be read at all.
pub(crate) fn read(path: &Path, max_bytes: u64) -> Result<Snapshot, LoadError> {
    let mut sources = Sources::new();
    let (files, diags) = read_into(path, None, max_bytes, &mut sources)?;
    Ok(Snapshot {
        sources,
        files,
        diags,
    })
}

/// [`read`], adding the JSON files to existing `sources` (for the render stage, which
/// reads snapshots that model manifests point at). With a `fence` (a canonical directory
/// the caller has checked `path` is inside), no file outside it is read either, not even in
/// a Hugging Face cache's `blobs/`. No JSON file of more than `max_bytes` (the
/// `file-bytes` limit) is read.
pub(crate) fn read_into(
    path: &Path,
    fence: Option<&Path>,
    max_bytes: u64,
    sources: &mut Sources,
) -> Result<(SnapshotFiles, Vec<Diagnostic>), LoadError> {
    let meta = std::fs::metadata(path)
        .map_err(|e| LoadError(format!("cannot read {}: {e}", path.display())))?;
    let (root_given, named) = if meta.is_dir() {
        (path.to_path_buf(), None)
    } else {
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        (parent.to_path_buf(), Some(path.to_path_buf()))
    };
    let root = std::fs::canonicalize(&root_given)
        .map_err(|e| LoadError(format!("cannot read {}: {e}", root_given.display())))?;
    let mut allowed = vec![root.clone()];
    if let Some(repo) = root
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "snapshots"))
        && let Some(blobs) = repo.parent().map(|r| r.join("blobs"))
        && let Ok(blobs) = std::fs::canonicalize(blobs)
    {
        allowed.push(blobs);
    }
    if let Some(fence) = fence {
        allowed.retain(|a| a.starts_with(fence));
    }
    let mut reader = Reader {
        root,
        given: root_given,
        allowed,
        max_bytes,
        sources,
        diags: Vec::new(),
    };
    let files = reader.snapshot(named.as_deref());
    Ok((files, reader.diags))
}

/// Reads the snapshot and derives its metadata: what `ome-render model-metadata PATH`
/// prints. The diagnostics of both steps are in the derivation.
pub(crate) fn model_metadata(
    path: &Path,
    max_bytes: u64,
) -> Result<(Sources, Derivation), LoadError> {
    let snapshot = read(path, max_bytes)?;
    let mut derivation = modelmeta::derive(&snapshot.files);
    let mut diags = snapshot.diags;
    diags.append(&mut derivation.diags);
    derivation.diags = diags;
    Ok((snapshot.sources, derivation))
}

struct Reader<'a> {
    /// The snapshot directory, canonical.
    root: PathBuf,
    /// The snapshot directory as given, for messages.
    given: PathBuf,
    /// Where files may be (canonical): the root, and a cache's `blobs/`.
    allowed: Vec<PathBuf>,
    /// The most bytes a JSON file may hold (the `file-bytes` limit).
    max_bytes: u64,
    sources: &'a mut Sources,
    diags: Vec<Diagnostic>,
}

/// `dir` joined with a relative name as Go's `filepath.Join` does it: lexically, `..`
/// removing a component, a leading `/` ignored.
fn join_lexically(dir: &Path, name: &str) -> PathBuf {
    let mut out = dir.to_path_buf();
    for part in name.split(['/', std::path::MAIN_SEPARATOR]) {
        match part {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out
}

impl Reader<'_> {
    /// The path as the user would write it: the given root joined with the part below it.
    fn display(&self, path: &Path) -> String {
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        if rel.as_os_str().is_empty() {
            self.given.display().to_string()
        } else {
            self.given.join(rel).display().to_string()
        }
    }

    /// Reports a file the loader will not read, and returns why (without the path).
    fn refuse(&mut self, path: &Path, why: impl std::fmt::Display) -> String {
        let why = why.to_string();
        self.diags.push(
            Diagnostic::error(
                Code::SnapshotFile,
                format!("cannot read {}: {why}", self.display(path)),
            )
            .help("the snapshot's files must be regular files inside the snapshot directory"),
        );
        why
    }

    /// Whether OME's `os.Stat` finds something at `path` (links followed). A path that
    /// leads outside the allowed directories counts as there whether or not its target
    /// exists, and is then refused when opened: the answer tells nothing of what is outside.
    fn exists(&self, path: &Path) -> bool {
        self.leads_outside(path) || std::fs::metadata(path).is_ok()
    }

    /// Whether following the links of `path`, read from the link texts alone (nothing at a
    /// link's end is looked at), leaves the allowed directories.
    fn leads_outside(&self, path: &Path) -> bool {
        let inside = |p: &Path| self.allowed.iter().any(|a| p.starts_with(a));
        let mut pending: Vec<std::ffi::OsString> = path
            .components()
            .rev()
            .map(|c| c.as_os_str().to_os_string())
            .collect();
        let mut at = PathBuf::new();
        let mut hops = 0;
        while let Some(name) = pending.pop() {
            if name == ".." {
                at.pop();
                continue;
            }
            at.push(&name);
            if !inside(&at) {
                // Above the snapshot: the path given and the directories that hold it.
                continue;
            }
            let Ok(target) = std::fs::read_link(&at) else {
                continue;
            };
            hops += 1;
            if hops > 40 {
                return true;
            }
            at.pop();
            if target.is_absolute() {
                at = PathBuf::new();
            }
            pending.extend(
                target
                    .components()
                    .rev()
                    .map(|c| c.as_os_str().to_os_string()),
            );
        }
        !inside(&at)
    }

    /// Opens a regular file inside the allowed directories, or says why not (and reports
    /// it as an error). The check is made on the resolved path before opening, so a FIFO
    /// or device is never opened, and again on the open file.
    fn open(&mut self, path: &Path) -> Result<(File, u64), String> {
        if self.leads_outside(path) {
            return Err(self.refuse(path, "it leads outside the snapshot"));
        }
        let resolved = match std::fs::canonicalize(path) {
            Ok(p) => p,
            // A missing file (a shard the index names, a dangling link) is what OME fails
            // on too; the caller reports it as OME's fallback, not as a refusal.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err("no such file".to_string());
            }
            Err(e) => return Err(self.refuse(path, e)),
        };
        if !self.allowed.iter().any(|a| resolved.starts_with(a)) {
            // The target is not named: a message quotes nothing of what a link points at.
            return Err(self.refuse(path, "it leads outside the snapshot"));
        }
        // The resolved path has no link left; the fenced open refuses one put there since,
        // and anything that is not a regular file.
        match super::fence::open_nofollow(&resolved) {
            Ok((file, stamp)) => Ok((file, stamp.len)),
            Err(r) => Err(self.refuse(path, r)),
        }
    }

    /// A whole JSON file, added to the sources.
    fn json(&mut self, path: &Path) -> Result<JsonFile, String> {
        let (file, len) = self.open(path)?;
        if len > self.max_bytes {
            let why = format!(
                "it holds more than {} bytes (limit `file-bytes`)",
                self.max_bytes
            );
            self.diags.push(
                Diagnostic::error(
                    Code::Limit,
                    format!("cannot read {}: {why}", self.display(path)),
                )
                .help(super::limits::raise_help("file-bytes")),
            );
            return Err(why);
        }
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        if let Err(e) = file.take(self.max_bytes).read_to_end(&mut bytes) {
            return Err(self.refuse(path, e));
        }
        // Go's JSON reader takes invalid UTF-8 in strings as U+FFFD.
        let text: Arc<str> = Arc::from(String::from_utf8_lossy(&bytes).into_owned());
        let display = self.display(path);
        let id = self.sources.add(display.clone(), text.clone());
        Ok(JsonFile {
            path: display,
            file: id,
            text,
        })
    }

    /// The length prefix and header of a safetensors file, nothing more.
    fn header(&mut self, path: &Path) -> WeightsFile {
        let display = self.display(path);
        let header = self.open(path).and_then(|(mut file, len)| {
            let mut prefix = [0u8; PREFIX_BYTES];
            if len < PREFIX_BYTES as u64 {
                return Err(safetensors::HeaderError::TooShort { len }.to_string());
            }
            file.read_exact(&mut prefix).map_err(|e| e.to_string())?;
            let declared = safetensors::header_length(&prefix).map_err(|e| e.to_string())?;
            let available = len - PREFIX_BYTES as u64;
            if declared > available {
                return Err(safetensors::HeaderError::Truncated {
                    declared,
                    available,
                }
                .to_string());
            }
            // At most MAX_HEADER_BYTES, checked above.
            let mut bytes =
                Vec::with_capacity(PREFIX_BYTES + usize::try_from(declared).unwrap_or(0));
            bytes.extend_from_slice(&prefix);
            file.take(declared)
                .read_to_end(&mut bytes)
                .map_err(|e| e.to_string())?;
            if bytes.len() as u64 != PREFIX_BYTES as u64 + declared {
                return Err("the file changed while it was read".to_string());
            }
            Ok(bytes)
        });
        WeightsFile {
            path: display,
            header: header.map(Arc::from),
        }
    }

    /// The safetensors of one directory, as OME finds them.
    fn weights(&mut self, dir: &Path) -> Weights {
        let index = dir.join(INDEX_FILE);
        if self.exists(&index) {
            let path = self.display(&index);
            let text = self.json(&index).map(|f| f.text);
            let mut shards: Vec<WeightsFile> = Vec::new();
            if let Ok(t) = &text
                && let Ok(names) = safetensors::index_shards(t)
            {
                // Names that spell one file differently (`m.safetensors`, `./m.safetensors`)
                // share its one reading; OME reads and counts each name.
                let mut read: BTreeMap<PathBuf, usize> = BTreeMap::new();
                for name in names {
                    let shard = join_lexically(dir, &name);
                    match read.get(&shard) {
                        Some(&i) => {
                            let again = shards[i].clone();
                            shards.push(again);
                        }
                        None => {
                            read.insert(shard.clone(), shards.len());
                            shards.push(self.header(&shard));
                        }
                    }
                }
            }
            return Weights::Index { path, text, shards };
        }
        let mut names: Vec<std::ffi::OsString> = match std::fs::read_dir(dir) {
            Ok(entries) => entries
                .filter_map(|e| e.ok().map(|e| e.file_name()))
                .collect(),
            Err(e) => {
                self.refuse(dir, e);
                return Weights::Missing;
            }
        };
        names.sort();
        let files: Vec<WeightsFile> = names
            .iter()
            .filter(|n| n.to_string_lossy().ends_with(EXTENSION))
            .map(|n| dir.join(n))
            .collect::<Vec<_>>()
            .iter()
            .map(|p| self.header(p))
            .collect();
        if files.is_empty() {
            Weights::Missing
        } else {
            Weights::Files(files)
        }
    }

    /// OME's search below the root for `name`: the last match in walk order.
    fn walk_find(&mut self, name: &str) -> Option<PathBuf> {
        let mut found = None;
        let mut budget = WALK_BUDGET;
        let root = self.root.clone();
        walk(&root, name, &mut found, &mut budget);
        if budget == 0 {
            self.diags.push(
                Diagnostic::warning(
                    Code::SnapshotFile,
                    format!(
                        "stopped looking for {name} below {} after {WALK_BUDGET} entries",
                        self.given.display()
                    ),
                )
                .help("point at the directory that holds the model's config.json"),
            );
        }
        found
    }

    fn first_existing(&self, name: &str) -> Option<PathBuf> {
        std::iter::once(self.root.join(name))
            .chain(CONFIG_SUBDIRS.iter().map(|d| self.root.join(d).join(name)))
            .find(|p| self.exists(p))
    }

    fn snapshot(&mut self, named: Option<&Path>) -> SnapshotFiles {
        let mut files = SnapshotFiles {
            root: self.given.display().to_string(),
            ..SnapshotFiles::default()
        };
        let (model_index, config) = match named {
            Some(p) if p.file_name().is_some_and(|n| n == "model_index.json") => {
                (Some(self.root.join("model_index.json")), None)
            }
            Some(p) => {
                let name = p.file_name().map(PathBuf::from).unwrap_or_default();
                (None, Some(self.root.join(name)))
            }
            None => {
                let index = Some(self.root.join("model_index.json"))
                    .filter(|p| self.exists(p))
                    .or_else(|| self.walk_find("model_index.json"));
                let config = if index.is_some() {
                    None
                } else {
                    self.first_existing("config.json")
                        .or_else(|| self.walk_find("config.json"))
                };
                (index, config)
            }
        };
        if let Some(q) = self.first_existing("hf_quant_config.json") {
            match self.json(&q) {
                Ok(f) => files.hf_quant_config = Some(f),
                Err(_) => {
                    // Reported; OME ignores an unreadable file.
                }
            }
        }
        let chosen = model_index.as_ref().or(config.as_ref());
        if let Some(path) = chosen {
            match self.json(path) {
                Ok(f) => {
                    if model_index.is_some() {
                        files.model_index = Some(f);
                    } else {
                        files.config = Some(f);
                    }
                }
                Err(_) => files.config_unreadable = true,
            }
            let dir = path.parent().unwrap_or(&self.root).to_path_buf();
            files.weights = self.weights(&dir);
            if let Some(index) = &files.model_index {
                let text = index.text.clone();
                files.components = self.components(&dir, &text);
            }
        }
        files
    }

    fn components(&mut self, dir: &Path, model_index: &str) -> BTreeMap<String, ComponentFiles> {
        let mut out = BTreeMap::new();
        for name in crate::modelmeta::diffusion::component_dirs(model_index) {
            let comp = join_lexically(dir, &name);
            let config = comp.join("config.json");
            let has_config = self.exists(&config);
            let mut files = ComponentFiles {
                has_config,
                ..ComponentFiles::default()
            };
            if has_config {
                if name == "text_encoder" {
                    files.config = self.json(&config).ok();
                }
                files.weights = self.weights(&comp);
            }
            out.insert(name, files);
        }
        out
    }
}

/// One directory of Go's `filepath.Walk` as OME's callback drives it: entries in byte
/// order, subdirectories (not links to them) descended into, and the first entry named
/// `name` recorded and the rest of its directory skipped.
fn walk(dir: &Path, name: &str, found: &mut Option<PathBuf>, budget: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&entry.path(), name, found, budget);
        } else if entry.file_name() == name {
            *found = Some(entry.path());
            return;
        }
    }
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
mod tests;
