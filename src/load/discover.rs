//! Finding the input files: walk directories (sorted; hidden entries, symlinks and
//! non-regular files such as FIFOs skipped, the last two with a note), keep `*.yaml`, `*.yml`
//! and `*.json`, apply `--include`/`--exclude`, and take `-` as standard input. A FIFO or a
//! device named on the command line is refused: reading it could wait forever.

use super::LoadError;
use super::limits::Limits;
use super::objects::SETTINGS_FILE;
use crate::diagnostics::{Code, Diagnostic};
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::fs::FileType;
use std::path::{Path, PathBuf};

/// What to load.
#[derive(Clone, Debug, Default)]
pub(crate) struct LoadOptions {
    /// Files and directories; `-` is standard input. Empty means `.`.
    pub(crate) paths: Vec<PathBuf>,
    /// Glob patterns a walked file must match (any of them), when given.
    pub(crate) include: Vec<String>,
    /// Glob patterns that leave a walked file out.
    pub(crate) exclude: Vec<String>,
    /// How much input a run accepts (SEMANTICS.md#limits).
    pub(crate) limits: Limits,
}

/// One input to read.
#[derive(Clone, Debug)]
pub(crate) struct Input {
    /// `None` for standard input.
    pub(crate) path: Option<PathBuf>,
    /// The path as shown in messages.
    pub(crate) display: String,
    /// Whether this is the settings file at the root of a path.
    pub(crate) is_settings: bool,
}

fn glob_set(patterns: &[String], flag: &str) -> Result<Option<GlobSet>, LoadError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        let glob =
            Glob::new(p).map_err(|e| LoadError(format!("invalid {flag} pattern `{p}`: {e}")))?;
        builder.add(glob);
    }
    builder
        .build()
        .map(Some)
        .map_err(|e| LoadError(format!("invalid {flag} patterns: {e}")))
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

pub(super) fn discover(options: &LoadOptions) -> Result<(Vec<Input>, Vec<Diagnostic>), LoadError> {
    let include = glob_set(&options.include, "--include")?;
    let exclude = glob_set(&options.exclude, "--exclude")?;
    let default = [PathBuf::from(".")];
    let paths: &[PathBuf] = if options.paths.is_empty() {
        &default
    } else {
        &options.paths
    };

    let mut inputs = Vec::new();
    let mut diags = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            inputs.push(Input {
                path: None,
                display: "<stdin>".to_string(),
                is_settings: false,
            });
            continue;
        }
        let meta = std::fs::metadata(path)
            .map_err(|e| LoadError(format!("cannot read {}: {e}", display(path))))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found, &mut diags)?;
            for file in found {
                let rel = file.strip_prefix(path).unwrap_or(&file).to_path_buf();
                let is_settings = rel.as_os_str() == SETTINGS_FILE;
                if !is_settings && !selected(&rel, &file, include.as_ref(), exclude.as_ref()) {
                    continue;
                }
                inputs.push(Input {
                    display: display(&file),
                    path: Some(file),
                    is_settings,
                });
            }
        } else if !meta.is_file() {
            // A FIFO or a device could be read forever (or block until a writer comes).
            return Err(LoadError(format!(
                "cannot read {}: it is {}, not a regular file or a directory; \
                 to read a pipe, give `-` and send it to standard input",
                display(path),
                special_kind(meta.file_type())
            )));
        } else {
            // A file named on the command line is read whatever its extension.
            let is_settings = path.file_name().is_some_and(|n| n == SETTINGS_FILE);
            inputs.push(Input {
                path: Some(path.clone()),
                display: display(path),
                is_settings,
            });
        }
    }
    Ok((inputs, diags))
}

fn selected(rel: &Path, full: &Path, include: Option<&GlobSet>, exclude: Option<&GlobSet>) -> bool {
    let matches = |set: &GlobSet| set.is_match(rel) || set.is_match(full);
    include.is_none_or(matches) && !exclude.is_some_and(matches)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, diags: &mut Vec<Diagnostic>) -> Result<(), LoadError> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| LoadError(format!("cannot read {}: {e}", display(dir))))?;
    let mut entries = read
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| LoadError(format!("cannot read {}: {e}", display(dir))))?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| LoadError(format!("cannot read {}: {e}", display(&path))))?;
        if kind.is_symlink() {
            if is_input_name(&name) || path.is_dir() {
                diags.push(Diagnostic::note(
                    Code::NotAnObject,
                    format!(
                        "{} is a symbolic link; skipped (links are not followed)",
                        display(&path)
                    ),
                ));
            }
        } else if kind.is_dir() {
            walk(&path, out, diags)?;
        } else if kind.is_file() && is_input_name(&name) {
            out.push(path);
        } else if !kind.is_file() && is_input_name(&name) {
            diags.push(Diagnostic::note(
                Code::NotAnObject,
                format!(
                    "{} is {}; skipped (only regular files are read)",
                    display(&path),
                    special_kind(kind)
                ),
            ));
        }
    }
    Ok(())
}
