//! A committed render, read back for `render --check` (SEMANTICS.md#check): the file `-o`
//! wrote, or the directory `--output-dir` (or `-o DIR/`) wrote, file by file.

use super::LoadError;
use std::collections::BTreeMap;
use std::path::Path;

/// What is at the path `--check` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Committed {
    /// Nothing: never rendered, or deleted.
    Missing,
    /// A file: one stream.
    File(Vec<u8>),
    /// A directory: every file under it by its path relative to it (`/`-separated), hidden
    /// ones included, in name order.
    Dir(BTreeMap<String, Vec<u8>>),
}

/// Reads what is at `path` (a symbolic link is not followed).
pub(crate) fn read_committed(path: &Path) -> Result<Committed, LoadError> {
    let fail = |p: &Path, e: std::io::Error| LoadError(format!("cannot read {}: {e}", p.display()));
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Committed::Missing),
        Err(e) => return Err(fail(path, e)),
    };
    if !meta.is_dir() {
        return std::fs::read(path)
            .map(Committed::File)
            .map_err(|e| fail(path, e));
    }
    let mut files = BTreeMap::new();
    read_dir(path, "", &mut files)?;
    Ok(Committed::Dir(files))
}

fn read_dir(
    dir: &Path,
    prefix: &str,
    out: &mut BTreeMap<String, Vec<u8>>,
) -> Result<(), LoadError> {
    let fail = |p: &Path, e: std::io::Error| LoadError(format!("cannot read {}: {e}", p.display()));
    let entries = std::fs::read_dir(dir).map_err(|e| fail(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| fail(dir, e))?;
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| fail(&path, e))?;
        if kind.is_dir() {
            read_dir(&path, &format!("{name}/"), out)?;
        } else if kind.is_symlink() {
            // A link has no place in a render: it shows as an unexpected file.
            out.insert(name, Vec::new());
        } else {
            out.insert(name, std::fs::read(&path).map_err(|e| fail(&path, e))?);
        }
    }
    Ok(())
}
