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

/// Reads what is at `path`, each file at most `max_bytes` long (the `file-bytes` limit).
/// A symbolic link is not followed, at `path` or under it, and only regular files are read:
/// a committed render replaced by a link to a secret, or by `/dev/zero`, is an error that
/// quotes nothing of the target (exit 2), never the "stale" side of a diff.
pub(crate) fn read_committed(path: &Path, max_bytes: u64) -> Result<Committed, LoadError> {
    let fail = |p: &Path, e: std::io::Error| LoadError(format!("cannot read {}: {e}", p.display()));
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Committed::Missing),
        Err(e) => return Err(fail(path, e)),
    };
    if !meta.is_dir() {
        return read_file(path, &meta, max_bytes).map(Committed::File);
    }
    let mut files = BTreeMap::new();
    read_dir(path, "", &mut files, max_bytes)?;
    Ok(Committed::Dir(files))
}

/// One committed file: a regular file (by its metadata taken without following a link, and
/// again once open without following one), at most `max_bytes` long.
fn read_file(path: &Path, meta: &std::fs::Metadata, max_bytes: u64) -> Result<Vec<u8>, LoadError> {
    use std::io::Read as _;
    let refuse = |why: &str| {
        LoadError(format!(
            "cannot read {}: {why}; a committed render is regular files only",
            path.display()
        ))
    };
    if meta.file_type().is_symlink() {
        return Err(refuse("it is a symbolic link, and links are not followed"));
    }
    if !meta.is_file() {
        return Err(refuse("it is not a regular file"));
    }
    let (file, _) = super::fence::open_nofollow(path).map_err(|r| match r {
        super::fence::Refused::Link(_) => {
            refuse("it is a symbolic link, and links are not followed")
        }
        super::fence::Refused::NotRegular(_) => refuse("it is not a regular file"),
        r => LoadError(format!("cannot read {}: {r}", path.display())),
    })?;
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| LoadError(format!("cannot read {}: {e}", path.display())))?;
    if bytes.len() as u64 > max_bytes {
        return Err(LoadError(format!(
            "cannot read {}: it holds more than {max_bytes} bytes (limit `file-bytes`; raise it with `--limit file-bytes=<N>`, SEMANTICS.md#limits)",
            path.display()
        )));
    }
    Ok(bytes)
}

fn read_dir(
    dir: &Path,
    prefix: &str,
    out: &mut BTreeMap<String, Vec<u8>>,
    max_bytes: u64,
) -> Result<(), LoadError> {
    let fail = |p: &Path, e: std::io::Error| LoadError(format!("cannot read {}: {e}", p.display()));
    let entries = std::fs::read_dir(dir).map_err(|e| fail(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| fail(dir, e))?;
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| fail(&path, e))?;
        if kind.is_dir() {
            read_dir(&path, &format!("{name}/"), out, max_bytes)?;
        } else if kind.is_symlink() {
            // A link has no place in a render: it shows as an unexpected file.
            out.insert(name, Vec::new());
        } else {
            let meta = std::fs::symlink_metadata(&path).map_err(|e| fail(&path, e))?;
            out.insert(name, read_file(&path, &meta, max_bytes)?);
        }
    }
    Ok(())
}
