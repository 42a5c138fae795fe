//! The one fenced open of a file of the rendered tree (SEMANTICS.md#limits): a path
//! relative to a root directory, of plain names only (no `..`, not absolute), every
//! directory on the way opened without following a link, the file itself opened without
//! following one (`O_NOFOLLOW`) and without waiting (`O_NONBLOCK`: a FIFO opens at once, and
//! is then refused), and accepted only when it is a regular file. The refusal says why in
//! words of its own: it quotes nothing from the target, and a path that leaves the root
//! gets one answer whether or not something is there.

use crate::source::Stamp;
use rustix::fs::{Mode, OFlags};
use std::collections::HashMap;
use std::fs::File;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Why a file of the tree is not read.
#[derive(Debug)]
pub(crate) enum Refused {
    /// The path leaves the root (`..`, absolute), whether or not something is there.
    Outside,
    /// A component of the path (as written, relative to the root) is a symbolic link.
    Link(PathBuf),
    /// Nothing is there.
    Missing,
    /// It is there, and is no regular file (a directory, a FIFO, a device, a socket).
    NotRegular(&'static str),
    /// Another failure of the file system (permissions, I/O).
    Io(std::io::Error),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Outside => f.write_str("it is outside the directory being rendered"),
            Refused::Link(at) if at.as_os_str().is_empty() => {
                f.write_str("it is a symbolic link, and links are not followed")
            }
            Refused::Link(at) => write!(
                f,
                "{} is a symbolic link, and links are not followed",
                at.display()
            ),
            Refused::Missing => f.write_str("no such file"),
            Refused::NotRegular(kind) => write!(f, "it is {kind}, not a regular file"),
            Refused::Io(e) => write!(f, "{}", e.kind()),
        }
    }
}

/// The plain names of `rel` (`.` dropped), or `None` when it leaves its root: a `..`, a
/// root or a prefix among its components, or no name at all.
pub(crate) fn plain_names(rel: &Path) -> Option<Vec<&std::ffi::OsStr>> {
    let mut names = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(n) => names.push(n),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!names.is_empty()).then_some(names)
}

/// What a file type is, for messages.
pub(crate) fn kind_of(mode: rustix::fs::FileType) -> &'static str {
    use rustix::fs::FileType as T;
    match mode {
        T::Directory => "a directory",
        T::Fifo => "a FIFO",
        T::CharacterDevice => "a character device",
        T::BlockDevice => "a block device",
        T::Socket => "a socket",
        T::Symlink => "a symbolic link",
        _ => "not a regular file",
    }
}

pub(crate) fn refused(e: rustix::io::Errno, at: &Path) -> Refused {
    match e {
        rustix::io::Errno::NOENT => Refused::Missing,
        // O_NOFOLLOW on a link: ELOOP (Linux, macOS), EMLINK (FreeBSD); a link where a
        // directory is expected under O_DIRECTORY: ENOTDIR after the check below.
        rustix::io::Errno::LOOP | rustix::io::Errno::MLINK => Refused::Link(at.to_path_buf()),
        e => Refused::Io(e.into()),
    }
}

/// The regular file at `name` in the directory `dir`, opened without following a link or
/// waiting, checked before and after opening; `at` is its path as written, for messages.
fn open_in(dir: impl AsFd, name: &std::ffi::OsStr, at: &Path) -> Result<(File, Stamp), Refused> {
    let stat = rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .map_err(|e| refused(e, at))?;
    match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
        rustix::fs::FileType::RegularFile => {}
        rustix::fs::FileType::Symlink => return Err(Refused::Link(at.to_path_buf())),
        other => return Err(Refused::NotRegular(kind_of(other))),
    }
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(&dir, name, flags, Mode::empty()).map_err(|e| refused(e, at))?;
    let file = File::from(fd);
    let meta = file.metadata().map_err(Refused::Io)?;
    if !meta.is_file() {
        return Err(Refused::NotRegular("not a regular file"));
    }
    let stamp = Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
    };
    Ok((file, stamp))
}

/// The directory `root`, given by the operator: a link there is followed.
fn open_root(root: &Path) -> Result<OwnedFd, Refused> {
    let root = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    rustix::fs::open(root, DIR_FLAGS, Mode::empty()).map_err(|e| match e {
        rustix::io::Errno::NOENT => Refused::Missing,
        e => Refused::Io(e.into()),
    })
}

/// The directory `name` in `dir`, not a link; `at` is its path below the root, for messages.
fn open_dir_in(dir: impl AsFd, name: &std::ffi::OsStr, at: &Path) -> Result<OwnedFd, Refused> {
    match rustix::fs::openat(&dir, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty()) {
        Ok(fd) => Ok(fd),
        Err(rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP) => {
            let stat = rustix::fs::statat(&dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                .map_err(|e| refused(e, at))?;
            Err(match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
                rustix::fs::FileType::Symlink => Refused::Link(at.to_path_buf()),
                other => Refused::NotRegular(kind_of(other)),
            })
        }
        Err(e) => Err(refused(e, at)),
    }
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

/// How many directories [`Dirs`] keeps open at most; past that it closes them all and
/// starts again (files come in walk order, so the ones of a directory come together).
const DIRS_KEPT: usize = 128;

/// The directories one load has opened through the fence, each opened once rather than once
/// for every file below it: a root given by the operator (a link there followed), and below
/// it each directory by plain name without following a link, exactly as [`open_beneath`]
/// would open it. Only directories that opened are kept: a refusal is met again, in the same
/// words, by every file that asks.
#[derive(Default)]
pub(crate) struct Dirs {
    open: Mutex<HashMap<(PathBuf, PathBuf), Arc<OwnedFd>>>,
}

impl Dirs {
    fn kept(&self, root: &Path, at: &Path) -> Option<Arc<OwnedFd>> {
        let open = self.open.lock().ok()?;
        open.get(&(root.to_path_buf(), at.to_path_buf())).cloned()
    }

    fn keep(&self, root: &Path, at: &Path, dir: &Arc<OwnedFd>) {
        if let Ok(mut open) = self.open.lock() {
            if open.len() >= DIRS_KEPT {
                open.clear();
            }
            open.insert((root.to_path_buf(), at.to_path_buf()), Arc::clone(dir));
        }
    }

    /// The directory `root`, then each directory of `names` below it, none of them a link;
    /// with the path of the last below the root.
    fn open(
        &self,
        root: &Path,
        names: &[&std::ffi::OsStr],
    ) -> Result<(Arc<OwnedFd>, PathBuf), Refused> {
        let mut at: PathBuf = names.iter().collect();
        // The deepest directory on the way already open, and how many names it took.
        let mut taken = names.len();
        let mut dir = loop {
            if let Some(dir) = self.kept(root, &at) {
                break dir;
            }
            if taken == 0 {
                let dir = Arc::new(open_root(root)?);
                self.keep(root, &at, &dir);
                break dir;
            }
            taken -= 1;
            at.pop();
        };
        for name in &names[taken..] {
            at.push(name);
            dir = Arc::new(open_dir_in(&dir, name, &at)?);
            self.keep(root, &at, &dir);
        }
        Ok((dir, at))
    }

    /// Opens the regular file `rel` below `root`: see the module's documentation.
    pub(crate) fn open_beneath(&self, root: &Path, rel: &Path) -> Result<(File, Stamp), Refused> {
        let names = plain_names(rel).ok_or(Refused::Outside)?;
        let Some((last, dirs)) = names.split_last() else {
            return Err(Refused::Outside);
        };
        let (dir, mut at) = self.open(root, dirs)?;
        at.push(last);
        // The file itself: a link there is named as "it".
        open_in(&*dir, last, &at).map_err(|r| match r {
            Refused::Link(p) if p == at => Refused::Link(PathBuf::new()),
            r => r,
        })
    }
}

/// Opens the regular file `rel` below `root`, every directory on the way opened for this
/// file alone: see the module's documentation.
pub(crate) fn open_beneath(root: &Path, rel: &Path) -> Result<(File, Stamp), Refused> {
    Dirs::default().open_beneath(root, rel)
}

/// Opens the regular file at `path` as it is written (a link in a directory above it is
/// followed: the path is the operator's), the file itself not followed when it is a link.
pub(crate) fn open_nofollow(path: &Path) -> Result<(File, Stamp), Refused> {
    let name = path.file_name().ok_or(Refused::NotRegular("a directory"))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = rustix::fs::open(
        parent,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| refused(e, parent))?;
    open_in(&dir, name, Path::new("")).map_err(|r| match r {
        Refused::Link(_) => Refused::Link(PathBuf::new()),
        r => r,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_leaving_its_root_is_outside_whether_or_not_it_exists() {
        for rel in ["../x", "/etc/passwd", "a/../../x", "", "."] {
            assert!(
                matches!(
                    open_beneath(Path::new("."), Path::new(rel)),
                    Err(Refused::Outside)
                ),
                "{rel}"
            );
        }
        assert_eq!(
            plain_names(Path::new("./a/./b")).unwrap(),
            [std::ffi::OsStr::new("a"), std::ffi::OsStr::new("b")]
        );
    }

    /// One load's directories, shared by its files, refuse as a fresh open does: a link on
    /// the way is refused for every file below it, in the same words, and what is kept past
    /// [`DIRS_KEPT`] directories opens as before.
    #[test]
    fn directories_opened_once_refuse_as_a_fresh_open_does() {
        let root =
            std::env::temp_dir().join(format!("ome-render-fence-dirs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/x.yaml"), "x").unwrap();
        std::fs::write(root.join("a/b/y.yaml"), "y").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("l")).unwrap();
        for n in 0..DIRS_KEPT + 3 {
            std::fs::create_dir_all(root.join(format!("many/{n}"))).unwrap();
            std::fs::write(root.join(format!("many/{n}/f.yaml")), "f").unwrap();
        }
        let dirs = Dirs::default();
        let said = |r: Result<(File, Stamp), Refused>| match r {
            Ok((_, stamp)) => format!("read {}", stamp.len),
            Err(r) => r.to_string(),
        };
        for rel in [
            "a/b/x.yaml",
            "a/b/y.yaml",
            "l/b/x.yaml",
            "a/b/x.yaml",
            "l/b/y.yaml",
            "a/b",
            "a/b/none.yaml",
            "a/b/x.yaml/z",
            "../a/b/x.yaml",
        ] {
            assert_eq!(
                said(dirs.open_beneath(&root, Path::new(rel))),
                said(open_beneath(&root, Path::new(rel))),
                "{rel}"
            );
        }
        assert_eq!(
            said(dirs.open_beneath(&root, Path::new("l/b/x.yaml"))),
            "l is a symbolic link, and links are not followed"
        );
        for n in 0..DIRS_KEPT + 3 {
            let rel = format!("many/{n}/f.yaml");
            assert_eq!(said(dirs.open_beneath(&root, Path::new(&rel))), "read 1");
        }
        assert!(dirs.open.lock().unwrap().len() <= DIRS_KEPT);
        assert_eq!(
            said(dirs.open_beneath(&root, Path::new("a/b/y.yaml"))),
            "read 1"
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
