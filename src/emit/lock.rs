//! Writing what `ome-render pin` decided: the ControllerRevisions of new pins, then
//! `ome-render.lock`, then the removal of revision files no pin uses any more
//! (SEMANTICS.md#choice-lock). Each file is written beside its target and renamed into
//! place, so a reader never sees half a file, and the lock is written after the revisions it
//! names.

#![expect(
    clippy::disallowed_methods,
    reason = "the emitter is the one module that writes files"
)]

use super::replace_file;
use crate::yaml::Node;
use crate::yaml::emit::write_yaml;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The directory, under the lock's directory, where `pin` writes revisions.
pub(crate) const REVISIONS_DIR: &str = "ome-revisions";

const LOCK_HEADER: &str = "\
# ome-render.lock: the ControllerRevision each managed pin (spec.runtime.autoSync: false
# without spec.runtime.revision) renders from. Written by `ome-render pin`; review it in pull
# requests like code. `ome-render pin --advance NAMESPACE/NAME` moves one pin to the current
# runtime.
";

/// The lock file's bytes: a header, then the lock.
pub(crate) fn lock_bytes(lock: &Node) -> Vec<u8> {
    let mut out = LOCK_HEADER.as_bytes().to_vec();
    write_yaml(lock, &mut out);
    out
}

/// A revision file's bytes: a header naming the runtime, then the object.
pub(crate) fn revision_bytes(revision: &Node, runtime: &str) -> Vec<u8> {
    let mut out = format!(
        "# Written by `ome-render pin`: a snapshot of runtime {runtime} for pinned InferenceServices.\n\
         # Do not edit: OME refuses changes to a revision's data and labels, and ome-render.lock\n\
         # records its hash.\n"
    )
    .into_bytes();
    write_yaml(revision, &mut out);
    out
}

/// The files of one `pin` run.
#[derive(Debug, Default)]
pub(crate) struct PinFiles {
    /// `ome-render.lock`'s path and new bytes, when they differ from the file's.
    pub(crate) lock: Option<(PathBuf, Vec<u8>)>,
    /// New revision files.
    pub(crate) revisions: Vec<(PathBuf, Vec<u8>)>,
    /// Revision files no pin uses.
    pub(crate) remove: Vec<PathBuf>,
}

/// Writes the files, each below `root` (the directory `pin` was given), where no directory
/// on the way may be a link (SEMANTICS.md#limits).
pub(crate) fn write_pins(root: &Path, files: &PinFiles) -> Result<(), String> {
    let below = |path: &PathBuf| path.strip_prefix(root).unwrap_or(path).to_path_buf();
    for (path, bytes) in &files.revisions {
        replace_file(root, &below(path), |f| f.write_all(bytes))?;
    }
    if let Some((path, bytes)) = &files.lock {
        replace_file(root, &below(path), |f| f.write_all(bytes))?;
    }
    for path in &files.remove {
        std::fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
    }
    Ok(())
}
