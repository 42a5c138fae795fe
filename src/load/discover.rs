//! Finding the input files: walk directories (sorted; hidden entries, symlinks and
//! non-regular files such as FIFOs skipped, the last two with a note), keep `*.yaml`, `*.yml`
//! and `*.json`, apply `--include`/`--exclude`, and take `-` as standard input. A FIFO or a
//! device named on the command line is refused: reading it could wait forever.

use super::LoadError;
use super::limits::Limits;
use super::patterns::Patterns;
use crate::diagnostics::{Code, Diagnostic};
use rayon::prelude::*;
use std::fs::FileType;
use std::path::{Path, PathBuf};

/// The renderer settings file, read at the root of a path (SEMANTICS.md#settings).
pub(crate) const SETTINGS_FILE: &str = "ome-render.yaml";

/// The record of managed pins, read at the root of a path (SEMANTICS.md#choice-lock).
pub(crate) const LOCK_FILE: &str = "ome-render.lock";

/// What to load.
#[derive(Clone, Debug, Default)]
pub(crate) struct LoadOptions {
    /// Files and directories; `-` is standard input. Empty means `.`.
    pub(crate) paths: Vec<PathBuf>,
    /// Glob patterns a walked file must match (any of them), when given.
    pub(crate) include: Vec<String>,
    /// Glob patterns that leave a walked file out.
    pub(crate) exclude: Vec<String>,
    /// The settings file (`--settings`); by default `ome-render.yaml` in the first path, or
    /// beside it when that path is a file or `-` (SEMANTICS.md#settings).
    pub(crate) settings: Option<PathBuf>,
    /// OME's ConfigMap `inferenceservice-config` (`--deploy-config`), read beside the inputs
    /// (SEMANTICS.md#deploy-config).
    pub(crate) deploy_config: Option<PathBuf>,
    /// How much input a run accepts (SEMANTICS.md#limits).
    pub(crate) limits: Limits,
    /// Paths (of `paths` or `settings`) read from somewhere else than where they are
    /// written, and shown and matched against the globs as written: `diff --base-ref`
    /// reads the paths inside the repository from a checkout of the base revision.
    pub(crate) relocated: Vec<(PathBuf, PathBuf)>,
    /// What becomes of the texts of the files once parsed.
    pub(crate) texts: Texts,
}

/// What the loader keeps of the text of a file read from disk once it is parsed
/// (SEMANTICS.md#source-texts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Texts {
    /// Every text stays in memory: for the commands that use them beyond diagnostics
    /// (`model-metadata --write` merges into one, `pin` compares the lock with one).
    #[default]
    Kept,
    /// Released (files of at most 1 MiB), and read again for the diagnostics that quote
    /// them: a render keeps in memory what it writes, not what it read.
    Released,
    /// Released as `Released` does, each file's digest taken first: `diff` compares its two
    /// sides' files by them (SEMANTICS.md#diff-reuse).
    Digested,
}

impl LoadOptions {
    /// Where `path`, as written, is read from.
    fn real(&self, path: &Path) -> PathBuf {
        self.relocated
            .iter()
            .find(|(written, _)| written == path)
            .map_or_else(|| path.to_path_buf(), |(_, real)| real.clone())
    }
}

/// What discovery found.
pub(super) struct Discovered {
    /// The files to read for objects, in walk order.
    pub(super) inputs: Vec<Input>,
    /// The settings file to read, if there is one.
    pub(super) settings: Option<Input>,
    /// Where the settings file was looked for, when none was found.
    pub(super) settings_looked_for: Option<String>,
    /// The ConfigMap of `--deploy-config`.
    pub(super) deploy_config: Option<Input>,
    pub(super) diags: Vec<Diagnostic>,
}

/// One input to read.
#[derive(Clone, Debug)]
pub(crate) struct Input {
    /// `None` for standard input.
    pub(crate) path: Option<PathBuf>,
    /// The path as shown in messages.
    pub(crate) display: String,
    /// Whether this is the settings file.
    pub(crate) is_settings: bool,
    /// Whether this is the lock file at the root of a path.
    pub(crate) is_lock: bool,
    /// Whether this is the ConfigMap of `--deploy-config`.
    pub(crate) is_deploy_config: bool,
    /// The directory being rendered that `path` lies in, when the file was found in it
    /// (walked, or the settings or lock file at its root): then it is opened through the
    /// fence (SEMANTICS.md#limits). `None` for a file named on the command line.
    pub(crate) beneath: Option<PathBuf>,
}

impl Input {
    /// The file at `real`, shown as `shown` (the same path unless it is relocated).
    fn file(real: PathBuf, shown: &Path, is_settings: bool) -> Input {
        Input {
            is_lock: shown.file_name().is_some_and(|n| n == LOCK_FILE),
            display: display(shown),
            path: Some(real),
            is_settings,
            is_deploy_config: false,
            beneath: None,
        }
    }

    /// The file at `real`, found in the directory being rendered `root`.
    fn beneath(real: PathBuf, shown: &Path, is_settings: bool, root: &Path) -> Input {
        Input {
            beneath: Some(root.to_path_buf()),
            ..Input::file(real, shown, is_settings)
        }
    }
}

fn is_input_name(name: &str) -> bool {
    name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")
}

fn display(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// What a file that is neither a regular file nor a directory is, for messages.
fn special_kind(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    let _ = kind;
    "not a regular file"
}

/// The directory a file is in, `.` for a bare name.
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The settings file of a run: `--settings`, else `ome-render.yaml` in the first path (a
/// directory), or beside it (a file, or `-` for the current directory). Returns where it is
/// read from and how it is shown, and where it was looked for.
fn settings_file(
    options: &LoadOptions,
    first: &Path,
) -> Result<(Option<Input>, String), LoadError> {
    if let Some(path) = &options.settings {
        let real = options.real(path);
        let meta = std::fs::metadata(&real).map_err(|e| {
            LoadError(format!(
                "cannot read the settings file {}: {e}",
                display(path)
            ))
        })?;
        if !meta.is_file() {
            return Err(LoadError(format!(
                "cannot read the settings file {}: it is {}, not a regular file",
                display(path),
                special_kind(meta.file_type())
            )));
        }
        return Ok((Some(Input::file(real, path, true)), display(path)));
    }
    let real_first = options.real(first);
    let (dir, real_dir) = if first.as_os_str() == "-" {
        (PathBuf::from("."), PathBuf::from("."))
    } else if real_first.is_dir() {
        (first.to_path_buf(), real_first)
    } else if first.file_name().is_some_and(|n| n == SETTINGS_FILE) {
        return Ok((Some(Input::file(real_first, first, true)), display(first)));
    } else {
        (parent_dir(first), parent_dir(&real_first))
    };
    let candidate = dir.join(SETTINGS_FILE);
    let real_candidate = real_dir.join(SETTINGS_FILE);
    let found = root_file(&real_candidate, &candidate, "the settings file")?
        .then(|| Input::beneath(real_candidate, &candidate, true, &real_dir));
    Ok((found, display(&candidate)))
}

/// Whether the settings or lock file at the root of a path is there: a regular file is;
/// nothing is not; anything else — a symbolic link (dangling or not: links are not followed,
/// so a pull request can't point the file at a secret), a FIFO, a device — is an error that
/// stops the run (exit 2), as `--settings` naming one does (SEMANTICS.md#settings).
fn root_file(real: &Path, shown: &Path, what: &str) -> Result<bool, LoadError> {
    match std::fs::symlink_metadata(real) {
        Ok(meta) if meta.is_file() => Ok(true),
        Ok(meta) if meta.file_type().is_symlink() => Err(LoadError(format!(
            "cannot read {what} {}: it is a symbolic link, and links are not followed",
            display(shown)
        ))),
        Ok(meta) => Err(LoadError(format!(
            "cannot read {what} {}: it is {}, not a regular file",
            display(shown),
            special_kind(meta.file_type())
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(LoadError(format!(
            "cannot read {what} {}: {e}",
            display(shown)
        ))),
    }
}

/// No inputs, only the settings file: `settings` when given, else `ome-render.yaml` in the
/// current directory (as for `-`).
pub(super) fn settings_only(
    settings: Option<PathBuf>,
    deploy_config: Option<PathBuf>,
) -> Result<Discovered, LoadError> {
    let options = LoadOptions {
        settings,
        deploy_config,
        ..LoadOptions::default()
    };
    let (settings_path, looked_at) = settings_file(&options, Path::new("-"))?;
    Ok(Discovered {
        inputs: Vec::new(),
        settings_looked_for: settings_path.is_none().then_some(looked_at),
        settings: settings_path,
        deploy_config: deploy_config_file(&options)?,
        diags: Vec::new(),
    })
}

/// The ConfigMap of `--deploy-config`: a regular file (it may also lie among the walked
/// inputs, where it is an ordinary object that passes through).
fn deploy_config_file(options: &LoadOptions) -> Result<Option<Input>, LoadError> {
    let Some(path) = &options.deploy_config else {
        return Ok(None);
    };
    let real = options.real(path);
    let meta = std::fs::metadata(&real).map_err(|e| {
        LoadError(format!(
            "cannot read --deploy-config {}: {e}",
            display(path)
        ))
    })?;
    if !meta.is_file() {
        return Err(LoadError(format!(
            "cannot read --deploy-config {}: it is {}, not a regular file",
            display(path),
            if meta.is_dir() {
                "a directory"
            } else {
                special_kind(meta.file_type())
            }
        )));
    }
    let mut input = Input::file(real, path, false);
    input.is_lock = false;
    input.is_deploy_config = true;
    Ok(Some(input))
}

pub(super) fn discover(options: &LoadOptions) -> Result<Discovered, LoadError> {
    let include = Patterns::new(&options.include, "--include")?;
    let exclude = Patterns::new(&options.exclude, "--exclude")?;
    let default = [PathBuf::from(".")];
    let paths: &[PathBuf] = if options.paths.is_empty() {
        &default
    } else {
        &options.paths
    };
    let (settings_path, looked_at) = settings_file(options, &paths[0])?;
    let is_chosen = |p: &Path| {
        settings_path
            .as_ref()
            .and_then(|s| s.path.as_deref())
            .is_some_and(|s| same_file(s, p))
    };

    let mut inputs = Vec::new();
    let mut diags = Vec::new();
    let ignore = |shown: &str, diags: &mut Vec<Diagnostic>| {
        diags.push(Diagnostic::note(
            Code::SettingsDefaults,
            format!("{shown} ignored: the settings of the first path (or --settings) apply"),
        ));
    };
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input {
                path: None,
                display: "<stdin>".to_string(),
                is_settings: false,
                is_lock: false,
                is_deploy_config: false,
                beneath: None,
            });
            continue;
        }
        let real = options.real(path);
        let meta = match std::fs::metadata(&real) {
            Ok(meta) => meta,
            // A wrong path renders nothing from it: an input error (exit 1), not a failure
            // of the tool, so a typo in an Argo CD application fails like an empty render.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                diags.push(
                    Diagnostic::error(
                        Code::EmptyOutput,
                        format!("{} does not exist: nothing can be rendered from it", display(path)),
                    )
                    .help("check the path (relative to the current directory); an empty render is refused, and --allow-empty accepts one only when every path exists"),
                );
                continue;
            }
            Err(e) => return Err(LoadError(format!("cannot read {}: {e}", display(path)))),
        };
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(&real, 0, &mut found, &mut diags)?;
            for file in found {
                let rel = file.strip_prefix(&real).unwrap_or(&file).to_path_buf();
                // As written: the walked path itself, unless the path is relocated.
                let shown = if real == *path {
                    file.clone()
                } else {
                    path.join(&rel)
                };
                if rel.as_os_str() == SETTINGS_FILE {
                    if !is_chosen(&file) {
                        ignore(&display(&shown), &mut diags);
                    }
                    continue;
                }
                if selected(&rel, &shown, &include, &exclude) && !is_chosen(&file) {
                    inputs.push(Input::beneath(file, &shown, false, &real));
                }
            }
            let lock = real.join(LOCK_FILE);
            if root_file(&lock, &path.join(LOCK_FILE), "the lock file")? {
                inputs.push(Input::beneath(lock, &path.join(LOCK_FILE), false, &real));
            }
        } else if !meta.is_file() {
            // A FIFO or a device could be read forever (or block until a writer comes).
            return Err(LoadError(format!(
                "cannot read {}: it is {}, not a regular file or a directory; \
                 to read a pipe, give `-` and send it to standard input",
                display(path),
                special_kind(meta.file_type())
            )));
        } else if path.file_name().is_some_and(|n| n == SETTINGS_FILE) {
            if !is_chosen(&real) {
                ignore(&display(path), &mut diags);
            }
        } else if !is_chosen(&real) {
            // A file named on the command line is read whatever its extension.
            inputs.push(Input::file(real, path, false));
        }
    }
    // A pattern that matched no walked file is likely a typo (`--exclude draft`).
    for (flag, patterns) in [("--include", &include), ("--exclude", &exclude)] {
        for text in patterns.unmatched() {
            diags.push(
                Diagnostic::warning(
                    Code::PatternUnmatched,
                    format!("{flag} {text} matches no file in any path"),
                )
                .help("patterns follow .gitignore: a bare name matches a file or directory at any depth, `dir/` directories only, a pattern with a `/` is taken from the directory given"),
            );
        }
    }
    Ok(Discovered {
        inputs,
        deploy_config: deploy_config_file(options)?,
        settings_looked_for: settings_path.is_none().then_some(looked_at),
        settings: settings_path,
        diags,
    })
}

/// Whether two paths name the same file (both canonicalised; a path that doesn't resolve is
/// compared as written).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Whether a walked file is read: it matches an `--include` pattern (when there are any) and
/// no `--exclude` pattern. Both are tried, so each pattern learns whether it matched.
fn selected(rel: &Path, full: &Path, include: &Patterns, exclude: &Patterns) -> bool {
    let included = include.is_empty() | include.matches(rel, full);
    let excluded = exclude.matches(rel, full);
    included && !excluded
}

/// The file that marks a directory as ome-render's output (`--output-dir`, `-o DIR/`), so a
/// render replaces it safely and a walk never reads it back as input.
pub(crate) const OUTPUT_MARKER: &str = ".ome-render-output";

/// What one directory entry adds to a walk, in the entry's place.
enum Found {
    File(PathBuf),
    Note(Diagnostic),
    Dir(PathBuf),
    Failed(LoadError),
}

/// Subdirectories this many levels below a root are walked in parallel; deeper ones one
/// after the other, on the thread that found them, so a hostile tree thousands of levels
/// deep costs stack as it did before.
const PARALLEL_LEVELS: usize = 3;

/// The input files under `dir` in walk order (entries sorted by name, depth first), with
/// notes on what was skipped. The first [`PARALLEL_LEVELS`] levels of subdirectories are
/// walked in parallel and their findings put back in their place, so the result, and the
/// first error in walk order, never depend on the threads.
fn walk(
    dir: &Path,
    level: usize,
    out: &mut Vec<PathBuf>,
    diags: &mut Vec<Diagnostic>,
) -> Result<(), LoadError> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| LoadError(format!("cannot read {}: {e}", display(dir))))?;
    let mut entries = read
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| LoadError(format!("cannot read {}: {e}", display(dir))))?;
    entries.sort_by_cached_key(std::fs::DirEntry::file_name);
    let mut found = Vec::with_capacity(entries.len());
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = match entry.file_type() {
            Ok(kind) => kind,
            Err(e) => {
                found.push(Found::Failed(LoadError(format!(
                    "cannot read {}: {e}",
                    display(&path)
                ))));
                break;
            }
        };
        if kind.is_symlink() {
            // Noted by its name alone (an input's, or one without an extension, as a
            // directory's usually is): what the link points at is never looked at, so the
            // notes tell nothing of what exists outside the tree.
            if is_input_name(&name) || !name.contains('.') {
                found.push(Found::Note(Diagnostic::note(
                    Code::NotAnObject,
                    format!(
                        "{} is a symbolic link; skipped (links are not followed)",
                        display(&path)
                    ),
                )));
            }
        } else if kind.is_dir() && path.join(OUTPUT_MARKER).is_file() {
            found.push(Found::Note(Diagnostic::note(
                Code::NotAnObject,
                format!(
                    "{} is ome-render's output (it holds {OUTPUT_MARKER}); skipped",
                    display(&path)
                ),
            )));
        } else if kind.is_dir() {
            found.push(Found::Dir(path));
        } else if kind.is_file() && is_input_name(&name) {
            found.push(Found::File(path));
        } else if !kind.is_file() && is_input_name(&name) {
            found.push(Found::Note(Diagnostic::note(
                Code::NotAnObject,
                format!(
                    "{} is {}; skipped (only regular files are read)",
                    display(&path),
                    special_kind(kind)
                ),
            )));
        }
    }
    if level >= PARALLEL_LEVELS {
        for f in found {
            match f {
                Found::File(path) => out.push(path),
                Found::Note(note) => diags.push(note),
                Found::Dir(path) => walk(&path, level + 1, out, diags)?,
                Found::Failed(e) => return Err(e),
            }
        }
        return Ok(());
    }
    let subdirs: Vec<&PathBuf> = found
        .iter()
        .filter_map(|f| match f {
            Found::Dir(path) => Some(path),
            _ => None,
        })
        .collect();
    let mut walked = subdirs
        .into_par_iter()
        .map(|path| {
            let (mut files, mut notes) = (Vec::new(), Vec::new());
            walk(path, level + 1, &mut files, &mut notes).map(|()| (files, notes))
        })
        .collect::<Vec<_>>()
        .into_iter();
    for f in found {
        match f {
            Found::File(path) => out.push(path),
            Found::Note(note) => diags.push(note),
            Found::Dir(_) => {
                if let Some(sub) = walked.next() {
                    let (files, notes) = sub?;
                    out.extend(files);
                    diags.extend(notes);
                }
            }
            Found::Failed(e) => return Err(e),
        }
    }
    Ok(())
}
