//! Emitting: check the output as a whole, order the objects, serialise them (in parallel,
//! order kept) and write them to standard output or, atomically, to a directory. The only
//! module that writes files.

#![expect(
    clippy::disallowed_methods,
    reason = "the emitter is the one module that writes files and standard output"
)]

pub(crate) mod checks;
pub(crate) mod lock;
pub(crate) mod order;

use crate::rendered::{Body, Rendered};
use crate::yaml::Node;
use crate::yaml::emit::{write_json_line, write_yaml};
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Format {
    /// A multi-document YAML stream, documents separated by `---`.
    #[default]
    Yaml,
    /// One JSON document per line.
    Json,
}

/// Sorts into the output order. Identities are unique (collisions are errors), so the
/// order is total and independent of the input order.
pub(crate) fn sort(objects: &mut [Rendered]) {
    objects.par_sort_by(order::compare);
}

/// Appends one object tree in `format`.
fn write_tree(node: &Node, format: Format, out: &mut Vec<u8>) {
    match format {
        Format::Yaml => write_yaml(node, out),
        Format::Json => write_json_line(node, out),
    }
}

/// Serialises the object in `format`, replacing its tree by the bytes. The caller knows the
/// format before it renders, so each object is serialised once, right after it is built.
pub(crate) fn serialise(object: &mut Rendered, format: Format) {
    if let Body::Tree(node) = &object.body {
        let mut out = Vec::with_capacity(2048);
        write_tree(node, format, &mut out);
        object.body = Body::Bytes(out);
    }
}

/// Serialises every object not yet serialised, in parallel.
pub(crate) fn serialise_all(objects: &mut [Rendered], format: Format) {
    objects.par_iter_mut().for_each(|o| serialise(o, format));
}

/// The object's bytes in `format`: its serialised body, or its tree serialised now.
fn bytes(object: &Rendered, format: Format) -> Cow<'_, [u8]> {
    match &object.body {
        Body::Bytes(bytes) => Cow::Borrowed(bytes),
        Body::Tree(node) => {
            let mut out = Vec::new();
            write_tree(node, format, &mut out);
            Cow::Owned(out)
        }
    }
}

/// Writes the objects as one stream (YAML documents separated by `---`, or JSON lines).
fn write_stream(objects: &[Rendered], format: Format, out: &mut impl Write) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 20, out);
    for (i, o) in objects.iter().enumerate() {
        if format == Format::Yaml && i > 0 {
            w.write_all(b"---\n")?;
        }
        w.write_all(&bytes(o, format))?;
    }
    w.flush()
}

/// Writes the stream to standard output.
pub(crate) fn write_stdout(objects: &[Rendered], format: Format) -> io::Result<()> {
    write_stream(objects, format, &mut io::stdout().lock())
}

/// The file that marks a directory as ome-render's output, so it can be replaced safely.
pub(crate) const OUTPUT_MARKER: &str = ".ome-render-output";

/// kustomize's `-o DIR` file name: `[<namespace>_]<group>_<version>_<kind>_<name>.yaml`,
/// lower-cased, with the namespace when the namespaced objects span more than one
/// namespace (objects without a namespace never get one, as in kustomize).
pub(crate) fn file_name(o: &Rendered, with_namespace: bool, format: Format) -> String {
    let mut name = String::new();
    if with_namespace && let Some(ns) = &o.namespace {
        name.push_str(ns);
        name.push('_');
    }
    name.push_str(&o.api_version.replace('/', "_"));
    name.push('_');
    name.push_str(&o.kind);
    name.push('_');
    name.push_str(&o.name);
    name = name.to_lowercase();
    name.push_str(match format {
        Format::Yaml => ".yaml",
        Format::Json => ".json",
    });
    name
}

/// Why an output directory could not be written.
#[derive(Debug)]
pub(crate) struct DirError(pub(crate) String);

/// Replaces `dir` with one file per object, atomically: everything is written to a new
/// directory beside it, which then takes its place. An existing `dir` is replaced only if
/// it is empty or was written by ome-render (it holds [`OUTPUT_MARKER`]).
pub(crate) fn write_dir(dir: &Path, objects: &[Rendered], format: Format) -> Result<(), DirError> {
    let fail =
        |what: &str, p: &Path, e: io::Error| DirError(format!("{what} {}: {e}", p.display()));
    if dir.exists() {
        if !dir.is_dir() {
            return Err(DirError(format!(
                "{} exists and is not a directory",
                dir.display()
            )));
        }
        let mut entries = std::fs::read_dir(dir).map_err(|e| fail("cannot read", dir, e))?;
        let empty = entries.next().is_none();
        if !empty && !dir.join(OUTPUT_MARKER).exists() {
            return Err(DirError(format!(
                "{} is not empty and was not written by ome-render (no {OUTPUT_MARKER}); refusing to replace it",
                dir.display()
            )));
        }
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = dir.file_name().map_or_else(
        || "output".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let pid = std::process::id();
    let staging = parent.join(format!(".{base}.ome-render-new-{pid}"));
    let old = parent.join(format!(".{base}.ome-render-old-{pid}"));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| fail("cannot create", &staging, e))?;

    let namespaces: std::collections::BTreeSet<&str> = objects
        .iter()
        .filter_map(|o| o.namespace.as_deref())
        .collect();
    let with_namespace = namespaces.len() > 1;
    let written: Result<(), DirError> = objects.par_iter().try_for_each(|o| {
        let path = staging.join(file_name(o, with_namespace, format));
        std::fs::write(&path, bytes(o, format)).map_err(|e| fail("cannot write", &path, e))
    });
    let marker = staging.join(OUTPUT_MARKER);
    let result = written.and_then(|()| {
        std::fs::write(
            &marker,
            "written by ome-render; the whole directory is replaced on each run\n",
        )
        .map_err(|e| fail("cannot write", &marker, e))
    });
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if dir.exists() {
        std::fs::rename(dir, &old).map_err(|e| {
            let _ = std::fs::remove_dir_all(&staging);
            fail("cannot move aside", dir, e)
        })?;
    }
    if let Err(e) = std::fs::rename(&staging, dir) {
        if old.exists() {
            let _ = std::fs::rename(&old, dir);
        }
        let _ = std::fs::remove_dir_all(&staging);
        return Err(fail("cannot move into place", dir, e));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}
