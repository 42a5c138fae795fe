//! Emitting: check the output as a whole, order the objects, serialise them (in parallel,
//! order kept) and write them to standard output or, atomically, to a directory. The only
//! module that writes files.

#![expect(
    clippy::disallowed_methods,
    reason = "the emitter is the one module that writes files and standard output"
)]

pub(crate) mod checks;
pub(crate) mod kinds;
pub(crate) mod krm;
pub(crate) mod lock;
pub(crate) mod model_file;
pub(crate) mod order;
pub(crate) mod stale;

use crate::rendered::{Body, Rendered};
use crate::yaml::Node;
use crate::yaml::emit::{write_json_line, write_yaml, write_yaml_item};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Format {
    /// A multi-document YAML stream, documents separated by `---`.
    #[default]
    Yaml,
    /// One JSON document: a `v1` List of the objects, as `kubectl get -o json` writes it.
    JsonList,
    /// One JSON object per line.
    JsonLines,
    /// Each object an item of a ResourceList's `items` (the KRM function's output).
    ResourceListItem,
}

impl Format {
    /// The extension of one object's file in an output directory.
    fn extension(self) -> &'static str {
        match self {
            Format::Yaml | Format::ResourceListItem => "yaml",
            Format::JsonList | Format::JsonLines => "json",
        }
    }
}

/// Where the output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    Stdout,
    /// One file holding the stream, replaced atomically.
    File(PathBuf),
    /// One file per object, the directory replaced atomically.
    Dir(PathBuf),
}

/// Why the output could not be written.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// Standard output failed (a closed pipe among others).
    Stdout(io::Error),
    /// A file or directory could not be written; the message names it.
    Path(String),
}

/// Sorts into the output order. Identities are unique (collisions are errors), so the
/// order is total and independent of the input order.
///
/// The kind's place (its rank, then group/version/kind) and the namespace are looked up once
/// per distinct value (there are few) and packed into one number in their sorted order, so
/// most comparisons compare that number and the name. The input index breaks ties, so the
/// order is that of a stable sort. The objects are then moved to their places in place.
pub(crate) fn sort(objects: &mut [Rendered]) {
    let mut kinds: HashMap<(&str, &str), u32> = HashMap::new();
    let mut namespaces: HashMap<&str, u32> = HashMap::new();
    let first_seen = |map_len: usize| u32::try_from(map_len).unwrap_or(u32::MAX);
    let ids: Vec<(u32, u32)> = objects
        .iter()
        .map(|o| {
            let n = kinds.len();
            let kind = *kinds
                .entry((o.api_version.as_str(), o.kind.as_str()))
                .or_insert_with(|| first_seen(n));
            let n = namespaces.len();
            let namespace = *namespaces
                .entry(o.namespace.as_deref().unwrap_or(""))
                .or_insert_with(|| first_seen(n));
            (kind, namespace)
        })
        .collect();
    // Each distinct kind's and namespace's place in the output order.
    let kind_place = places(
        kinds
            .into_iter()
            .map(|((api_version, kind), id)| (order::kind_key(api_version, kind), id)),
    );
    let namespace_place = places(namespaces.into_iter());
    let mut packed: Vec<(u64, &str, usize)> = objects
        .par_iter()
        .zip(&ids)
        .enumerate()
        .map(|(i, (o, &(kind, namespace)))| {
            let prefix = (u64::from(kind_place[kind as usize]) << 32)
                | u64::from(namespace_place[namespace as usize]);
            (prefix, o.name.as_str(), i)
        })
        .collect();
    packed.par_sort_unstable();
    // `to[i]`: where the object now at `i` goes. Each swap puts one object in its place.
    let mut to = vec![0; packed.len()];
    for (place, &(_, _, i)) in packed.iter().enumerate() {
        to[i] = place;
    }
    drop(packed);
    for i in 0..objects.len() {
        while to[i] != i {
            let j = to[i];
            objects.swap(i, j);
            to.swap(i, j);
        }
    }
}

/// For values numbered by first appearance (`id`), each one's place in the order of the
/// values: `places[id]`.
fn places<T: Ord>(values: impl Iterator<Item = (T, u32)>) -> Vec<u32> {
    let mut values: Vec<(T, u32)> = values.collect();
    values.sort_unstable();
    let mut places = vec![0; values.len()];
    for (place, (_, id)) in values.into_iter().enumerate() {
        // At most one distinct value per object: far fewer than u32::MAX.
        places[id as usize] = u32::try_from(place).unwrap_or(u32::MAX);
    }
    places
}

/// Appends one object tree in `format`.
fn write_tree(node: &Node, format: Format, out: &mut Vec<u8>) {
    match format {
        Format::Yaml => write_yaml(node, out),
        Format::JsonList | Format::JsonLines => write_json_line(node, out),
        Format::ResourceListItem => write_yaml_item(node, out),
    }
}

/// Serialises the object in `format`, replacing its tree by the bytes, and gives the tree
/// back (for a check that needs the input positions, then dropped). The caller knows the
/// format before it renders, so each object is serialised once, right after it is built.
///
/// The bytes are written into a buffer each thread keeps and copied out at their exact size:
/// one allocation and one copy per object, where a growing buffer would reallocate and copy
/// as it doubles, then again to shrink.
pub(crate) fn serialise(object: &mut Rendered, format: Format) -> Option<Node> {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if let Body::Tree(node) = &object.body {
        let out = SCRATCH.with_borrow_mut(|buf| {
            buf.clear();
            write_tree(node, format, buf);
            Arc::<[u8]>::from(buf.as_slice())
        });
        return match std::mem::replace(&mut object.body, Body::Bytes(out)) {
            Body::Tree(node) => Some(node),
            Body::Bytes(_) => None,
        };
    }
    None
}

/// Serialises every object not yet serialised, in parallel.
pub(crate) fn serialise_all(objects: &mut [Rendered], format: Format) {
    objects.par_iter_mut().for_each(|o| {
        serialise(o, format);
    });
}

/// The object's bytes in `format`: its serialised body, or its tree serialised now.
fn bytes(object: &Rendered, format: Format) -> Cow<'_, [u8]> {
    match &object.body {
        Body::Bytes(bytes) => Cow::Borrowed(&bytes[..]),
        Body::Tree(node) => {
            let mut out = Vec::new();
            write_tree(node, format, &mut out);
            Cow::Owned(out)
        }
    }
}

/// Writes the objects as one stream: YAML documents separated by `---`, a JSON List with
/// one item per line, or JSON lines.
fn write_stream(objects: &[Rendered], format: Format, out: &mut impl Write) -> io::Result<()> {
    let mut w = io::BufWriter::with_capacity(1 << 20, out);
    if format == Format::JsonList {
        w.write_all(b"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[")?;
    }
    for (i, o) in objects.iter().enumerate() {
        let bytes = bytes(o, format);
        match format {
            Format::Yaml => {
                if i > 0 {
                    w.write_all(b"---\n")?;
                }
                w.write_all(&bytes)?;
            }
            Format::JsonList => {
                w.write_all(if i > 0 { b",\n" } else { b"\n" })?;
                w.write_all(bytes.strip_suffix(b"\n").unwrap_or(&bytes))?;
            }
            Format::JsonLines | Format::ResourceListItem => w.write_all(&bytes)?,
        }
    }
    if format == Format::JsonList {
        w.write_all(if objects.is_empty() {
            b"]}\n"
        } else {
            b"\n]}\n"
        })?;
    }
    w.flush()
}

/// Writes text that is no object (the diff of `render --check`) to standard output.
pub(crate) fn write_text(text: &str) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

/// Refuses a file target inside a directory the render reads: the next render would read the
/// output back as input (a directory target is safe: its marker makes every walk skip it).
pub(crate) fn check_target(target: &Target, inputs: &[PathBuf]) -> Result<(), String> {
    let Target::File(file) = target else {
        return Ok(());
    };
    let walked = file
        .extension()
        .is_some_and(|e| e == "yaml" || e == "yml" || e == "json");
    let (parent, _) = parent_and_base(file);
    let Ok(parent) = std::fs::canonicalize(&parent) else {
        return Ok(());
    };
    let default = [PathBuf::from(".")];
    let inputs = if inputs.is_empty() {
        &default[..]
    } else {
        inputs
    };
    for input in inputs.iter().filter(|p| p.as_os_str() != "-" && p.is_dir()) {
        let Ok(root) = std::fs::canonicalize(input) else {
            continue;
        };
        let Ok(inside) = parent.strip_prefix(&root) else {
            continue;
        };
        let hidden = inside
            .components()
            .chain(file.file_name().map(std::path::Component::Normal))
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
        if walked && !hidden {
            return Err(format!(
                "-o {} is inside the input directory {}: the next render would read it back as input; write it elsewhere, to a hidden name, or to a directory (`-o DIR/`)",
                file.display(),
                input.display()
            ));
        }
    }
    Ok(())
}

/// Writes the objects to `target`.
pub(crate) fn write(
    target: &Target,
    objects: &[Rendered],
    format: Format,
) -> Result<(), WriteError> {
    match target {
        Target::Stdout => {
            write_stream(objects, format, &mut io::stdout().lock()).map_err(WriteError::Stdout)
        }
        Target::File(path) => write_file(path, objects, format).map_err(WriteError::Path),
        Target::Dir(dir) => write_dir(dir, objects, format).map_err(WriteError::Path),
    }
}

/// Replaces the file `path` with the stream, atomically. A relative path is written below
/// the current directory, none of its directories a link; an absolute one in its directory.
fn write_file(path: &Path, objects: &[Rendered], format: Format) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!(
            "{} is a directory; name it with a trailing `/` (or --output-dir) to write one file per object",
            path.display()
        ));
    }
    let (root, rel) = if path.is_absolute() {
        let (parent, base) = parent_and_base(path);
        (parent, PathBuf::from(base))
    } else {
        (PathBuf::from("."), path.to_path_buf())
    };
    replace_file(&root, &rel, |file| write_stream(objects, format, file))
}

/// A name no earlier run, and no one guessing, has taken: the process id (for the sweep of
/// what a killed run left) and 64 random bits from std's randomly seeded hasher.
fn staging_suffix() -> String {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(now.as_nanos());
    }
    format!("{}.{:016x}", std::process::id(), hasher.finish())
}

/// The directory `rel` below `root`, created when missing, each directory on the way opened
/// (or made) without following a link: a link in the tree (`ome-revisions` pointing
/// elsewhere) is refused, not written through (SEMANTICS.md#limits). `root` is the
/// operator's (the directory given, or the current one): a link there is followed.
fn dir_beneath(root: &Path, rel: &Path) -> Result<std::os::fd::OwnedFd, String> {
    use rustix::fs::{Mode, OFlags};
    let refuse = |at: &Path, why: &dyn std::fmt::Display| {
        format!("cannot write in {}: {why}", root.join(at).display())
    };
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut dir = rustix::fs::open(root, flags, Mode::empty())
        .map_err(|e| refuse(Path::new(""), &io::Error::from(e)))?;
    let mut at = PathBuf::new();
    for c in rel.components() {
        let name = match c {
            std::path::Component::Normal(n) => n,
            std::path::Component::CurDir => continue,
            _ => return Err(refuse(rel, &"the path leaves the directory written in")),
        };
        at.push(name);
        match rustix::fs::mkdirat(&dir, name, Mode::from_raw_mode(0o777)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(refuse(&at, &io::Error::from(e))),
        }
        dir = match rustix::fs::openat(&dir, name, flags | OFlags::NOFOLLOW, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP) => {
                return Err(refuse(
                    &at,
                    &"it is a symbolic link or no directory, and links are not followed",
                ));
            }
            Err(e) => return Err(refuse(&at, &io::Error::from(e))),
        };
    }
    Ok(dir)
}

/// Replaces the file `rel` below `root` with what `write` writes, atomically: written beside
/// it (its directories are created when missing, none may be a link) to a new file of a
/// random name, created exclusively without following a link, then renamed over it, so a
/// reader sees the old file or the new one, never a part, and a link planted at the staging
/// name is never written through.
pub(crate) fn replace_file(
    root: &Path,
    rel: &Path,
    write: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> Result<(), String> {
    use rustix::fs::{Mode, OFlags};
    let path = root.join(rel);
    let fail = |what: &str, p: &Path, e: io::Error| format!("{what} {}: {e}", p.display());
    let (parent, base) = parent_and_base(rel);
    let dir = dir_beneath(root, &parent)?;
    let staging = format!(".{base}.ome-render-new-{}", staging_suffix());
    let shown = root.join(&parent).join(&staging);
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(&dir, staging.as_str(), flags, Mode::from_raw_mode(0o666))
        .map_err(|e| fail("cannot create", &shown, e.into()))?;
    let written = (|| {
        let mut file = std::fs::File::from(fd);
        write(&mut file)?;
        file.sync_all()
    })()
    .map_err(|e| fail("cannot write", &shown, e));
    let moved = written.and_then(|()| {
        rustix::fs::renameat(&dir, staging.as_str(), &dir, base.as_str())
            .map_err(|e| fail("cannot move into place", &path, e.into()))
    });
    if moved.is_err() {
        let _ = rustix::fs::unlinkat(&dir, staging.as_str(), rustix::fs::AtFlags::empty());
    }
    moved
}

/// The directory a path is in (`.` for a bare name) and its last component.
fn parent_and_base(path: &Path) -> (PathBuf, String) {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let base = path.file_name().map_or_else(
        || "output".to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    (parent, base)
}

pub(crate) use crate::load::OUTPUT_MARKER;

/// What [`OUTPUT_MARKER`] holds.
const OUTPUT_MARKER_TEXT: &str =
    "written by ome-render; the whole directory is replaced on each run\n";

/// An object's file name in an output directory, kustomize's `-o DIR` name with the
/// namespace always written: `[<namespace>_]<group>_<version>_<kind>_<name>.<yaml|json>`,
/// lower-cased. It depends on the object alone, so adding an object never renames another's
/// file. `checks::file_names` has made sure every part is safe in a file name.
pub(crate) fn file_name(o: &Rendered, format: Format) -> String {
    let mut name = String::new();
    if let Some(ns) = &o.namespace {
        name.push_str(ns);
        name.push('_');
    }
    name.push_str(&o.api_version.replace('/', "_"));
    name.push('_');
    name.push_str(&o.kind);
    name.push('_');
    name.push_str(&o.name);
    name = name.to_lowercase();
    name.push('.');
    name.push_str(format.extension());
    name
}

/// Replaces `dir` with one file per object, atomically: everything is written to a new
/// directory beside it, which then takes its place. An existing `dir` is replaced only if
/// it is empty or was written by ome-render (it holds [`OUTPUT_MARKER`]).
fn write_dir(dir: &Path, objects: &[Rendered], format: Format) -> Result<(), String> {
    let fail = |what: &str, p: &Path, e: io::Error| format!("{what} {}: {e}", p.display());
    // A symbolic link is followed: the directory it names is replaced, the link stays.
    let dir = match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(dir).map_err(|e| fail("cannot follow the link", dir, e))?
        }
        _ => dir.to_path_buf(),
    };
    let dir = dir.as_path();
    let exists = dir.exists();
    if exists {
        if !dir.is_dir() {
            return Err(format!("{} exists and is not a directory", dir.display()));
        }
        let mut entries = std::fs::read_dir(dir).map_err(|e| fail("cannot read", dir, e))?;
        let empty = entries.next().is_none();
        if !empty && !dir.join(OUTPUT_MARKER).exists() {
            return Err(format!(
                "{} is not empty and was not written by ome-render (no {OUTPUT_MARKER}); refusing to replace it",
                dir.display()
            ));
        }
    }
    let (parent, base) = parent_and_base(dir);
    sweep_stale(&parent, &base);
    let staging = parent.join(format!(".{base}.ome-render-new-{}", staging_suffix()));
    // A new directory of a random name (`create_dir` refuses anything already there, a
    // link included): the files written in it go nowhere else.
    std::fs::create_dir_all(&parent).map_err(|e| fail("cannot create", &parent, e))?;
    std::fs::create_dir(&staging).map_err(|e| fail("cannot create", &staging, e))?;

    let written: Result<(), String> = objects.par_iter().try_for_each(|o| {
        let path = staging.join(file_name(o, format));
        std::fs::write(&path, bytes(o, format)).map_err(|e| fail("cannot write", &path, e))
    });
    let marker = staging.join(OUTPUT_MARKER);
    let result = written.and_then(|()| {
        std::fs::write(&marker, OUTPUT_MARKER_TEXT).map_err(|e| fail("cannot write", &marker, e))
    });
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if !exists {
        // Nothing to replace: one rename, which fails if the directory appeared meanwhile.
        return std::fs::rename(&staging, dir).map_err(|e| {
            let _ = std::fs::remove_dir_all(&staging);
            fail("cannot move into place", dir, e)
        });
    }
    // The new directory and the old one swap places in one step: whenever the process is
    // stopped, `dir` holds the old content or the new, complete.
    match rustix::fs::renameat_with(
        rustix::fs::CWD,
        &staging,
        rustix::fs::CWD,
        dir,
        rustix::fs::RenameFlags::EXCHANGE,
    ) {
        Ok(()) => {
            let _ = std::fs::remove_dir_all(&staging);
            Ok(())
        }
        Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS | rustix::io::Errno::NOTSUP) => {
            replace_in_two_steps(&staging, dir, &parent, &base)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            Err(fail("cannot swap in", dir, e.into()))
        }
    }
}

/// Where the file system can't swap two directories: the old one is renamed aside, then the
/// new one in. A stop between the two leaves the old content beside `dir` (swept, and never
/// read, as a hidden directory) and no `dir`.
fn replace_in_two_steps(
    staging: &Path,
    dir: &Path,
    parent: &Path,
    base: &str,
) -> Result<(), String> {
    let fail = |what: &str, p: &Path, e: io::Error| format!("{what} {}: {e}", p.display());
    let old = parent.join(format!(".{base}.ome-render-old-{}", staging_suffix()));
    std::fs::rename(dir, &old).map_err(|e| {
        let _ = std::fs::remove_dir_all(staging);
        fail("cannot move aside", dir, e)
    })?;
    if let Err(e) = std::fs::rename(staging, dir) {
        let _ = std::fs::rename(&old, dir);
        let _ = std::fs::remove_dir_all(staging);
        return Err(fail("cannot move into place", dir, e));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// Removes the staging directories earlier runs left beside the output directory
/// (`.<name>.ome-render-new-<pid>.<random>`, `.<name>.ome-render-old-<pid>.<random>`) when the run that made
/// them is gone (no `/proc/<pid>`), so a run killed halfway leaves nothing behind for long.
fn sweep_stale(parent: &Path, base: &str) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let prefixes = [
        format!(".{base}.ome-render-new-"),
        format!(".{base}.ome-render-old-"),
    ];
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(pid) = prefixes
            .iter()
            .find_map(|p| name.strip_prefix(p.as_str()))
            .and_then(|rest| rest.split('.').next())
        else {
            continue;
        };
        let alive =
            pid.bytes().all(|b| b.is_ascii_digit()) && Path::new("/proc").join(pid).exists();
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
