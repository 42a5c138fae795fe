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
mod fence;
pub(crate) mod krm;
pub(crate) mod limits;
mod model_config;
mod objects;
mod patterns;
pub(crate) mod snapshot;

pub(crate) use committed::{Committed, read_committed};
pub(crate) use discover::{Input, LoadOptions, OUTPUT_MARKER, Texts};
pub(crate) use discover::{LOCK_FILE, SETTINGS_FILE};
pub(crate) use limits::{Limits, raise_help};
pub(crate) use model_config::{ModelConfigs, read_manifest};
pub(crate) use objects::Object;

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{ReadFrom, Sources, Stamp};
use crate::yaml::parse::{AliasBudget, limit_names};
use crate::yaml::{Node, Pos};
use rayon::prelude::*;
use std::io::Read as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// OME's ConfigMap `inferenceservice-config` of `--deploy-config`: the one object of
    /// that file, as written (`Settings::read_config_map` reads it).
    pub(crate) deploy_config: Option<Node>,
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

/// The start of a file, where diagnostics about the file as a whole point.
fn file_start(file: u32) -> Pos {
    Pos {
        file,
        line: 1,
        col: 0,
    }
}

/// An input over a limit of bytes: the file is named, not read.
fn bytes_limit(file: u32, message: String, limit: &str) -> Diagnostic {
    Diagnostic::error(Code::Limit, format!("{message} (limit `{limit}`)"))
        .at(file_start(file))
        .help(raise_help(limit))
}

/// The largest file whose text a render releases once parsed (SEMANTICS.md#source-texts).
/// The texts of many small files go back to the allocator's pages, where the render's own
/// allocations reuse them; one big file (a whole stream) is read again whole for any one
/// diagnostic it holds, at the end of the run, and costs more than it saves (BENCHMARKS.md).
const RELEASED_UP_TO: u64 = 1 << 20;

/// One input after the parallel read: its bytes, or why they were not read.
enum Read {
    /// Standard input, read before.
    Stdin,
    /// Read by a thread, which also checked it is UTF-8 and moved it into its shared text.
    Text(Decoded, Stamp),
    /// The file's size passes `file-bytes`.
    TooLarge,
    /// Not read yet: the files read so far (in whatever order the threads took them) may have
    /// spent the `total-bytes` budget. Read afterwards if the files before it leave room.
    Deferred(std::fs::File, Stamp),
    Failed(String),
}

/// A file's bytes, as the text the sources and the parser share, or `None` when they are
/// not UTF-8; `len` is how many bytes were read.
struct Decoded {
    len: u64,
    text: Option<Arc<str>>,
}

impl Decoded {
    fn of(bytes: Vec<u8>) -> Decoded {
        Decoded {
            len: bytes.len() as u64,
            text: String::from_utf8(bytes).ok().map(Arc::from),
        }
    }
}

/// Opens an input: through the fence when it was found in the directory being rendered
/// (`beneath`), its directories those the load has opened already (`dirs`), else as
/// [`open_regular`] does.
fn open_input(
    dirs: &fence::Dirs,
    path: &std::path::Path,
    beneath: Option<&std::path::Path>,
) -> Result<(std::fs::File, Stamp), String> {
    match beneath {
        Some(root) => {
            let rel = path.strip_prefix(root).unwrap_or(path);
            dirs.open_beneath(root, rel).map_err(|r| r.to_string())
        }
        None => open_regular(path),
    }
}

/// Opens a file named on the command line (a link to it is followed: the path is the
/// operator's), without waiting on a FIFO, refusing anything that is not a regular file by
/// the time it is opened, and returns it with its size and time.
fn open_regular(path: &std::path::Path) -> Result<(std::fs::File, Stamp), String> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits().cast_signed())
        .open(path)
        .map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".to_string());
    }
    let stamp = Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
    };
    Ok((file, stamp))
}

/// The text of the file a KRM item names (`config.kubernetes.io/path`), read only when it
/// lies inside the current directory: a relative path of plain names, no link among them
/// (the fence, SEMANTICS.md#limits), to a regular file of at most `max` bytes of UTF-8.
/// `None` otherwise: the diagnostic then names the path without a line.
pub(crate) fn read_inside_current_dir(path: &str, max: u64) -> Option<String> {
    let (file, stamp) =
        fence::open_beneath(std::path::Path::new("."), std::path::Path::new(path)).ok()?;
    let bytes = read_all(file, stamp.len, max).ok()?;
    if bytes.len() as u64 > max {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// Reads at most `max + 1` bytes of `file`, `size` long when it was measured.
fn read_all(file: std::fs::File, size: u64, max: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::with_capacity(usize::try_from(size.min(max)).unwrap_or(0));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Reads and parses everything `options` names. `stdin(max)` supplies at most `max` bytes of
/// `-`.
///
/// The byte limits are checked in input order (SEMANTICS.md#limits): a file past
/// `file-bytes` is named and not read; the file that takes the inputs past `total-bytes` is
/// named, and neither it nor the files after it are read. Files are read in parallel; a
/// shared count of the bytes taken keeps the threads from reading past the budget, and a file
/// they set aside is read afterwards when the files before it leave room, so what is read
/// and reported never depends on the threads.
pub(crate) fn load(
    options: &LoadOptions,
    stdin: &mut dyn FnMut(u64) -> std::io::Result<Vec<u8>>,
) -> Result<Loaded, LoadError> {
    load_more(Loaded::default(), options, stdin)
}

/// Reads and parses everything `options` names after what `base` holds: its sources keep
/// their numbers, its objects come first. The KRM function loads a generator's paths after
/// the ResourceList this way.
pub(crate) fn load_more(
    base: Loaded,
    options: &LoadOptions,
    stdin: &mut dyn FnMut(u64) -> std::io::Result<Vec<u8>>,
) -> Result<Loaded, LoadError> {
    let discovered = discover::discover(options)?;
    load_discovered(
        base,
        discovered,
        &options.paths,
        &options.limits,
        options.texts,
        stdin,
    )
}

/// Reads only the settings file after what `base` holds: `settings` when given, else
/// `ome-render.yaml` in the current directory, as for `-` (SEMANTICS.md#settings).
pub(crate) fn load_settings(
    base: Loaded,
    settings: Option<PathBuf>,
    deploy_config: Option<PathBuf>,
    limits: &Limits,
) -> Result<Loaded, LoadError> {
    let discovered = discover::settings_only(settings, deploy_config)?;
    load_discovered(base, discovered, &[], limits, Texts::Kept, &mut |_| {
        Ok(Vec::new())
    })
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
    limits: &Limits,
    texts: Texts,
    stdin: &mut dyn FnMut(u64) -> std::io::Result<Vec<u8>>,
) -> Result<Loaded, LoadError> {
    let Loaded {
        mut sources,
        objects: base_objects,
        settings: _,
        deploy_config: _,
        lock: base_lock,
        diags: mut base_diags,
        model_configs: base_model_configs,
    } = base;
    base_diags.extend(discovered.diags);
    let mut diags = base_diags;
    if let Some(looked_at) = &discovered.settings_looked_for
        && discovered.deploy_config.is_none()
    {
        diags.push(defaults_note(looked_at));
    }
    // The settings file and the deploy config first, then the inputs in walk order.
    let inputs: Vec<Input> = discovered
        .settings
        .into_iter()
        .chain(discovered.deploy_config)
        .chain(discovered.inputs)
        .collect();
    let mut stdin_bytes = if inputs.iter().any(|i| i.path.is_none()) {
        Some(
            stdin(limits.file_bytes.saturating_add(1))
                .map_err(|e| LoadError(format!("cannot read standard input: {e}")))?,
        )
    } else {
        None
    };

    let inputs: Vec<(u32, Input)> = inputs
        .into_iter()
        .map(|input| (sources.add(input.display.clone(), Arc::from("")), input))
        .collect();
    let taken = AtomicU64::new(stdin_bytes.as_ref().map_or(0, |b| b.len() as u64));
    // Each directory of the tree opened once for all the files in it.
    let dirs = fence::Dirs::default();
    let read: Vec<(u32, Input, Read)> = inputs
        .into_par_iter()
        .map(|(id, input)| {
            let read = match &input.path {
                None => Read::Stdin,
                Some(p) => match open_input(&dirs, p, input.beneath.as_deref()) {
                    Err(e) => Read::Failed(e),
                    Ok((_, stamp)) if stamp.len > limits.file_bytes => Read::TooLarge,
                    Ok((file, stamp)) => {
                        let size = stamp.len;
                        let before = taken.fetch_add(size, Ordering::Relaxed);
                        if before.saturating_add(size) > limits.total_bytes {
                            Read::Deferred(file, stamp)
                        } else {
                            match read_all(file, size, limits.file_bytes) {
                                Ok(bytes) => Read::Text(Decoded::of(bytes), stamp),
                                Err(e) => Read::Failed(e),
                            }
                        }
                    }
                },
            };
            (id, input, read)
        })
        .collect();
    drop(dirs);

    // In input order: the byte limits, as if the files were read one after the other.
    let too_large = |id| {
        bytes_limit(
            id,
            format!("the file holds more than {} bytes", limits.file_bytes),
            "file-bytes",
        )
    };
    let mut files = Vec::with_capacity(read.len());
    // The files whose texts can be released once parsed: read from disk, whole.
    let mut releasable: Vec<(u32, ReadFrom, Stamp)> = Vec::new();
    let mut total: u64 = 0;
    for (id, input, read) in read {
        // The size the input counts for, its text if a thread read it, and what the file
        // was when opened.
        let (size, decoded, stamp) = match read {
            Read::Stdin => {
                let decoded = Decoded::of(stdin_bytes.take().unwrap_or_default());
                (decoded.len, Ok(decoded), None)
            }
            Read::Text(decoded, stamp) => (decoded.len, Ok(decoded), Some(stamp)),
            Read::Deferred(file, stamp) => (stamp.len, Err(file), Some(stamp)),
            Read::TooLarge => {
                diags.push(too_large(id));
                continue;
            }
            Read::Failed(e) => {
                return Err(LoadError(format!("cannot read {}: {e}", input.display)));
            }
        };
        if size > limits.file_bytes {
            // Standard input, or a file that grew since it was measured.
            diags.push(too_large(id));
            continue;
        }
        if total.saturating_add(size) > limits.total_bytes {
            diags.push(bytes_limit(
                id,
                format!(
                    "the inputs hold more than {} bytes together; this file and the ones after it were not read",
                    limits.total_bytes
                ),
                "total-bytes",
            ));
            break;
        }
        total += size;
        let decoded = match decoded {
            Ok(decoded) => decoded,
            Err(file) => read_all(file, size, limits.file_bytes)
                .map(Decoded::of)
                .map_err(|e| LoadError(format!("cannot read {}: {e}", input.display)))?,
        };
        if decoded.len > limits.file_bytes {
            diags.push(too_large(id));
            continue;
        }
        match decoded.text {
            Some(text) => {
                if let (Some(stamp), Some(path)) = (stamp, &input.path)
                    && stamp.len == decoded.len
                    && stamp.len <= RELEASED_UP_TO
                {
                    let from = ReadFrom {
                        path: path.clone(),
                        beneath: input.beneath.clone(),
                    };
                    releasable.push((id, from, stamp));
                }
                sources.set_text(id, text.clone());
                files.push((id, input, text));
            }
            None => {
                diags.push(
                    Diagnostic::error(
                        Code::NotUtf8,
                        format!("{} is not UTF-8 text", input.display),
                    )
                    .at(file_start(id))
                    .help("save the file as UTF-8"),
                );
            }
        }
    }

    let origins: Vec<(u32, Option<std::path::PathBuf>)> = files
        .iter()
        .map(|(id, input, _)| (*id, input.path.clone()))
        .collect();
    let mut loaded = parse_files(sources, files, diags, limits);
    if texts == Texts::Digested {
        loaded.sources.take_digests();
    }
    if texts != Texts::Kept {
        for (id, from, stamp) in releasable {
            loaded.sources.release(id, from, stamp);
        }
    }
    model_config::follow(&mut loaded, &origins, roots, limits.file_bytes);
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

/// Reads again the released texts of `files` (those diagnostics quote), in parallel; a file
/// that changed since it was loaded, or can no longer be read, keeps no text
/// (SEMANTICS.md#source-texts).
pub(crate) fn read_again(sources: &Sources, files: impl IntoIterator<Item = u32>) {
    let texts: Vec<(u32, Option<String>)> = sources
        .to_read_again(files)
        .into_par_iter()
        .map(|(id, from, stamp)| (id, text_again(from, stamp)))
        .collect();
    for (id, text) in texts {
        sources.restore(id, text);
    }
}

/// The text of the file at `from`, if it is still what `stamp` says, opened as it was first
/// opened (through the fence when it was found in the directory being rendered).
fn text_again(from: &ReadFrom, stamp: Stamp) -> Option<String> {
    let (file, now) =
        open_input(&fence::Dirs::default(), &from.path, from.beneath.as_deref()).ok()?;
    if now != stamp {
        return None;
    }
    let bytes = read_all(file, stamp.len, stamp.len).ok()?;
    if bytes.len() as u64 != stamp.len {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The name [`from_texts`] reads as the file of `--deploy-config`.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) const DEPLOY_CONFIG_TEXT: &str = "deploy-config.yaml";

/// Loads files given as text (path, text): the same parsing, without touching the file
/// system.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn from_texts(files: &[(&str, &str)], limits: &Limits) -> Loaded {
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
                is_deploy_config: *path == DEPLOY_CONFIG_TEXT,
                beneath: None,
            };
            (id, input, text)
        })
        .collect();
    parse_files(sources, inputs, Vec::new(), limits)
}

fn parse_files(
    sources: Sources,
    files: Vec<(u32, Input, Arc<str>)>,
    diags: Vec<Diagnostic>,
    limits: &Limits,
) -> Loaded {
    let parse_limits = limits.parse();
    let budget = limits.alias_budget();
    let read = |(id, input, text): &(u32, Input, Arc<str>), budget: &AliasBudget| {
        objects::read_file(*id, input, text, &parse_limits, budget)
    };
    let mut parsed: Vec<objects::FileObjects> =
        files.par_iter().map(|f| read(f, &budget)).collect();
    let total_limits = [
        limit_names::ALIAS_NODES_TOTAL,
        limit_names::ALIAS_BYTES_TOTAL,
    ];
    if parsed
        .iter()
        .any(|f| f.limit.is_some_and(|l| total_limits.contains(&l)))
    {
        // Which file ran out of the run's alias budget depends on thread timing: parse
        // again, one file after the other, so the same file is blamed every time.
        let budget = limits.alias_budget();
        parsed = files.iter().map(|f| read(f, &budget)).collect();
    }
    let mut loaded = Loaded {
        sources,
        diags,
        ..Loaded::default()
    };
    loaded
        .objects
        .reserve(parsed.iter().map(|f| f.objects.len()).sum());
    let mut documents: usize = 0;
    let mut documents_exceeded = false;
    for file in parsed {
        documents_exceeded |= file.limit == Some(limit_names::DOCUMENTS);
        if !documents_exceeded && documents.saturating_add(file.documents.len()) > limits.documents
        {
            documents_exceeded = true;
            let over = file.documents[limits.documents - documents];
            loaded.diags.push(
                Diagnostic::error(
                    Code::Limit,
                    format!(
                        "the inputs hold more than {} documents together (limit `{}`)",
                        limits.documents,
                        limit_names::DOCUMENTS
                    ),
                )
                .at(over)
                .help(raise_help(limit_names::DOCUMENTS)),
            );
        }
        documents = documents.saturating_add(file.documents.len());
        loaded.objects.extend(file.objects);
        loaded.diags.extend(file.diags);
        if let Some(settings) = file.settings {
            loaded.settings = Some(settings);
        }
        if let Some(config_map) = file.deploy_config {
            loaded.deploy_config = Some(config_map);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse::limit_names;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("ome-render-load-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A released text is read again through the fence, as it was first read: a file of the
    /// tree swapped for a link to another file of the same size and time is not read.
    #[test]
    fn a_released_text_swapped_for_a_link_is_not_read_again() {
        let dir = scratch("again-link");
        let tree = dir.join("tree");
        std::fs::create_dir_all(&tree).unwrap();
        let path = tree.join("isvc.yaml");
        std::fs::write(&path, "kind: InferenceService\n").unwrap();
        let secret = dir.join("secret");
        std::fs::write(&secret, "SECRET=0123456789abcde\n").unwrap();
        let (_, stamp) = open_regular(&path).unwrap();
        let modified = stamp.modified.unwrap();
        let set_time = |p: &std::path::Path| {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(modified)
                .unwrap();
        };
        set_time(&secret);
        let from = ReadFrom {
            path: path.clone(),
            beneath: Some(tree.clone()),
        };
        assert_eq!(
            text_again(&from, stamp).as_deref(),
            Some("kind: InferenceService\n")
        );
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&secret, &path).unwrap();
        // Followed, the link would give a text of the same size and time.
        assert_eq!(open_regular(&path).unwrap().1, stamp);
        assert_eq!(text_again(&from, stamp), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn limit_diags(loaded: &Loaded) -> Vec<(String, u32, String)> {
        loaded
            .diags
            .iter()
            .filter(|d| d.code == Code::Limit)
            .map(|d| {
                let pos = d.pos.unwrap();
                (
                    loaded
                        .sources
                        .path(pos)
                        .unwrap()
                        .rsplit('/')
                        .next()
                        .unwrap()
                        .to_string(),
                    pos.line,
                    d.message.clone(),
                )
            })
            .collect()
    }

    fn no_stdin(_: u64) -> std::io::Result<Vec<u8>> {
        Ok(Vec::new())
    }

    #[test]
    fn files_over_the_byte_limits_are_named_and_not_read() {
        let dir = scratch("bytes");
        std::fs::write(dir.join("a.yaml"), "a: 1\n".repeat(20)).unwrap();
        std::fs::write(dir.join("b.yaml"), "b: 1\n".repeat(50)).unwrap();
        std::fs::write(dir.join("c.yaml"), "c: 1\n".repeat(20)).unwrap();
        std::fs::write(dir.join("d.yaml"), "d: 1\n".repeat(8)).unwrap();
        let mut options = LoadOptions {
            paths: vec![dir.clone()],
            ..LoadOptions::default()
        };
        options.limits.file_bytes = 200;
        options.limits.total_bytes = 230;
        // Threads take the files in any order; the outcome is that of reading them in order.
        for _ in 0..20 {
            let loaded = load(&options, &mut no_stdin).unwrap();
            assert_eq!(
                limit_diags(&loaded),
                limit_diags(&load(&options, &mut no_stdin).unwrap())
            );
            let read: Vec<&str> = loaded.objects.iter().map(|o| o.name.as_str()).collect();
            assert!(read.is_empty(), "no objects in these files: {read:?}");
            let texts: Vec<bool> = (0..4)
                .map(|f| {
                    loaded
                        .sources
                        .get(f)
                        .unwrap()
                        .text()
                        .is_some_and(|t| !t.is_empty())
                })
                .collect();
            assert_eq!(
                texts,
                [true, false, true, false],
                "a and c are read, b and d not"
            );
        }
        let loaded = load(&options, &mut no_stdin).unwrap();
        let found = limit_diags(&loaded);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, "b.yaml");
        assert!(
            found[0]
                .2
                .contains("more than 200 bytes (limit `file-bytes`)"),
            "{found:?}"
        );
        // a (100 bytes) and c (100) fit; d would pass 230 only with b, which was not read.
        assert_eq!(found[1].0, "d.yaml");
        assert!(found[1].2.contains("limit `total-bytes`"), "{found:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_render_releases_the_texts_of_files_and_reads_again_those_unchanged() {
        let dir = scratch("released");
        std::fs::write(dir.join("a.yaml"), "a: 1\n").unwrap();
        std::fs::write(dir.join("b.yaml"), "b: 2\n").unwrap();
        std::fs::write(dir.join("c.yaml"), "c: 3\n").unwrap();
        let big = format!("e: {}\n", "x".repeat(RELEASED_UP_TO as usize));
        std::fs::write(dir.join("e.yaml"), &big).unwrap();
        let text =
            |loaded: &Loaded, f: u32| loaded.sources.get(f).unwrap().text().map(str::to_string);
        let kept = load(
            &LoadOptions {
                paths: vec![dir.clone()],
                ..LoadOptions::default()
            },
            &mut no_stdin,
        )
        .unwrap();
        assert_eq!(text(&kept, 0).as_deref(), Some("a: 1\n"));
        let options = LoadOptions {
            paths: vec![dir.clone(), "-".into()],
            texts: Texts::Released,
            ..LoadOptions::default()
        };
        let loaded = load(&options, &mut |_| Ok(b"d: 4\n".to_vec())).unwrap();
        assert_eq!(loaded.sources.len(), 5);
        assert_eq!(
            (0..3).map(|f| text(&loaded, f)).collect::<Vec<_>>(),
            [None, None, None],
            "released once parsed"
        );
        assert_eq!(
            text(&loaded, 3).as_deref(),
            Some(big.as_str()),
            "too big to release"
        );
        assert_eq!(text(&loaded, 4).as_deref(), Some("d: 4\n"), "stdin is kept");
        // b changes its length, c its time; a stays as it was read.
        let b_time = std::fs::metadata(dir.join("b.yaml"))
            .unwrap()
            .modified()
            .unwrap();
        std::fs::write(dir.join("b.yaml"), "b: 22\n").unwrap();
        let c = std::fs::File::options()
            .write(true)
            .open(dir.join("c.yaml"))
            .unwrap();
        c.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
        read_again(&loaded.sources, [2, 0, 1, 0, 3, 4]);
        assert_eq!(text(&loaded, 0).as_deref(), Some("a: 1\n"));
        assert_eq!(text(&loaded, 1), None, "b changed");
        assert_eq!(text(&loaded, 2), None, "c changed");
        // Read again once: a file put back as it was, time and all, stays as it was found.
        std::fs::write(dir.join("b.yaml"), "b: 2\n").unwrap();
        std::fs::File::options()
            .write(true)
            .open(dir.join("b.yaml"))
            .unwrap()
            .set_modified(b_time)
            .unwrap();
        read_again(&loaded.sources, [1]);
        assert_eq!(text(&loaded, 1), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn standard_input_counts_like_a_file() {
        let options = LoadOptions {
            paths: vec!["-".into()],
            limits: Limits {
                file_bytes: 10,
                ..Limits::default()
            },
            ..LoadOptions::default()
        };
        let mut asked = 0;
        let mut stdin = |max: u64| {
            asked = max;
            Ok(b"a: 1\nb: 2\nc: 3\n".to_vec())
        };
        let loaded = load(&options, &mut stdin).unwrap();
        assert_eq!(
            asked, 11,
            "reads one byte past the limit to know it is passed"
        );
        assert_eq!(limit_diags(&loaded)[0].0, "<stdin>");
        let mut bad = |_: u64| Ok(b"a: \xff\n".to_vec());
        let options = LoadOptions {
            paths: vec!["-".into()],
            ..LoadOptions::default()
        };
        let loaded = load(&options, &mut bad).unwrap();
        assert!(
            loaded.diags.iter().any(|d| d.code == Code::NotUtf8),
            "{:?}",
            loaded.diags
        );
    }

    /// Files of small alias bombs: each document copies 1 + 10 + 100 nodes.
    fn bombs(files: usize, docs: usize) -> Vec<(String, String)> {
        let doc = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n---\n";
        (0..files)
            .map(|i| (format!("f{i:02}.yaml"), doc.repeat(docs)))
            .collect()
    }

    #[test]
    fn the_run_alias_budget_blames_the_same_file_every_time() {
        let files = bombs(16, 10);
        let texts: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let limits = Limits {
            alias_nodes_total: 7 * 10 * 121 + 50,
            ..Limits::default()
        };
        for _ in 0..20 {
            let loaded = from_texts(&texts, &limits);
            let found = limit_diags(&loaded);
            // Files 0 to 6 fit; file 7 passes the budget in its first document; every file
            // after it fails too (the budget is spent).
            assert_eq!(found[0].0, "f07.yaml", "{found:?}");
            assert_eq!(found[0].1, 2);
            assert!(
                found[0].2.contains(limit_names::ALIAS_NODES_TOTAL),
                "{found:?}"
            );
            assert_eq!(found.len(), 9, "{found:?}");
        }
    }

    #[test]
    fn documents_are_counted_across_files() {
        let files = [
            ("a.yaml", "a: 1\n---\nb: 2\n"),
            ("b.yaml", "c: 3\n---\n---\nd: 4\n"),
        ];
        let limits = Limits {
            documents: 3,
            ..Limits::default()
        };
        let loaded = from_texts(&files, &limits);
        let found = limit_diags(&loaded);
        assert_eq!(
            found,
            vec![(
                "b.yaml".to_string(),
                4,
                "the inputs hold more than 3 documents together (limit `documents`)".to_string()
            )]
        );
    }
}
