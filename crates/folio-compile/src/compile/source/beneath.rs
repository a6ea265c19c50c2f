//! Handles on a content root: directories listed and files opened through descriptors, so that
//! no path component the walk has not looked at can be a link followed by accident.
//!
//! The walk opens the content root once and lists every directory through a handle opened
//! relative to its parent's handle with `O_DIRECTORY | O_NOFOLLOW`: a directory exchanged for a
//! symlink after it was listed (`renameat2(RENAME_EXCHANGE)` in a loop) fails to open instead of
//! leading outside. Files are opened relative to the root's handle by their link-free path: with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` where the kernel has it (Linux 5.6), else one
//! `openat(O_NOFOLLOW)` per component, which refuses a link anywhere on the way just the same.
//! A file is described by the handle that was opened ([`Stamp`]), never by what its path
//! resolves to later.
//!
//! Must not: decide what a file is for (the walk does) or read a byte of a file (`source::read`
//! does, through [`open_file`]).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Component, Path, PathBuf};

/// A content root: its canonical path and, on Unix, a handle on the directory itself.
#[derive(Debug)]
pub(crate) struct Root {
    /// The canonical path the root was opened at.
    pub path: PathBuf,
    dir: DirHandle,
}

impl Root {
    /// Opens the directory at `canonical` (a canonical path: the root a user names may itself be
    /// a link, followed once here).
    pub(crate) fn open(canonical: PathBuf) -> std::io::Result<Root> {
        let dir = DirHandle::open(&canonical)?;
        Ok(Root { path: canonical, dir })
    }

    /// The link-free directory at `canonical` (a canonical path inside the root), opened without
    /// following a link anywhere below the root.
    pub(crate) fn open_dir(&self, canonical: &Path) -> std::io::Result<DirHandle> {
        let rel = self.relative(canonical)?;
        if rel.as_os_str().is_empty() {
            return DirHandle::open(&self.path);
        }
        open_beneath(self, rel, true).map(DirHandle::from_opened)
    }

    /// `canonical` relative to the root, or an error when it is not below it.
    fn relative<'p>(&self, canonical: &'p Path) -> std::io::Result<&'p Path> {
        canonical.strip_prefix(&self.path).map_err(|_| escaped())
    }
}

/// What a directory entry is, from the entry itself (a link is a link, not what it points at).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Link,
    /// Anything else, by what it is called in a message ("a FIFO (named pipe)").
    Other(&'static str),
}

/// One entry of a listed directory.
#[derive(Debug)]
pub(crate) struct Entry {
    /// Its file name.
    pub name: OsString,
    /// What it is.
    pub kind: EntryKind,
}

/// A directory that was opened: listed and descended into through the handle, never by path.
#[derive(Debug)]
pub(crate) struct DirHandle {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    #[cfg(not(unix))]
    path: PathBuf,
}

#[cfg(unix)]
impl DirHandle {
    fn open(path: &Path) -> std::io::Result<DirHandle> {
        use rustix::fs::{CWD, Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Ok(DirHandle { fd: rustix::fs::openat(CWD, path, flags, Mode::empty())? })
    }

    fn from_opened(file: File) -> DirHandle {
        DirHandle { fd: file.into() }
    }

    /// The directory `name` in this one, refusing a link (`O_NOFOLLOW`): an entry listed as a
    /// directory and exchanged for a link since fails here rather than being followed.
    pub(crate) fn child(&self, name: &OsStr) -> std::io::Result<DirHandle> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        Ok(DirHandle { fd: rustix::fs::openat(&self.fd, name, flags, Mode::empty())? })
    }

    /// Every entry but `.` and `..`, sorted by name (bytes), so that the walk's order never
    /// depends on the directory's. An entry whose type the file system does not report is looked
    /// at without following it.
    pub(crate) fn entries(&self) -> std::io::Result<Vec<Entry>> {
        use rustix::fs::{AtFlags, FileType};
        use std::os::unix::ffi::OsStrExt as _;
        let mut out = Vec::new();
        for entry in rustix::fs::Dir::read_from(&self.fd)? {
            let entry = entry?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let file_type = match entry.file_type() {
                FileType::Unknown => {
                    let stat = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)?;
                    FileType::from_raw_mode(stat.st_mode)
                }
                known => known,
            };
            let kind = match file_type {
                FileType::RegularFile => EntryKind::File,
                FileType::Directory => EntryKind::Dir,
                FileType::Symlink => EntryKind::Link,
                FileType::Fifo => EntryKind::Other("a FIFO (named pipe)"),
                FileType::Socket => EntryKind::Other("a socket"),
                FileType::CharacterDevice => EntryKind::Other("a character device"),
                FileType::BlockDevice => EntryKind::Other("a block device"),
                FileType::Unknown => EntryKind::Other("not a regular file"),
            };
            out.push(Entry { name: name.to_owned(), kind });
        }
        out.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }
}

/// Where a platform has no descriptor-relative opens, a directory is its path, and each look is
/// made without following the last component (the best std offers there).
#[cfg(not(unix))]
impl DirHandle {
    fn open(path: &Path) -> std::io::Result<DirHandle> {
        if !std::fs::metadata(path)?.is_dir() {
            return Err(std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"));
        }
        Ok(DirHandle { path: path.to_owned() })
    }

    fn from_opened(_file: File) -> DirHandle {
        unreachable!("open_beneath opens no directory where it is not Unix")
    }

    /// The directory `name` in this one, refusing a link.
    pub fn child(&self, name: &OsStr) -> std::io::Result<DirHandle> {
        let path = self.path.join(name);
        let meta = std::fs::symlink_metadata(&path)?;
        if !meta.is_dir() {
            return Err(link_refused());
        }
        Ok(DirHandle { path })
    }

    /// Every entry, sorted by name.
    pub fn entries(&self) -> std::io::Result<Vec<Entry>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&self.path)? {
            let entry = entry?;
            let file_type = entry.file_type()?;
            let kind = if file_type.is_symlink() {
                EntryKind::Link
            } else if file_type.is_dir() {
                EntryKind::Dir
            } else if file_type.is_file() {
                EntryKind::File
            } else {
                EntryKind::Other("not a regular file")
            };
            out.push(Entry { name: entry.file_name(), kind });
        }
        out.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }
}

/// Opens the link-free file at `canonical` (a canonical path inside the root) for reading,
/// refusing a link on any component (reported as [`is_link_refused`]), without blocking on a
/// FIFO and without making a terminal the process's own.
pub(super) fn open_file(root: &Root, canonical: &Path) -> std::io::Result<File> {
    let rel = root.relative(canonical)?;
    if rel.as_os_str().is_empty() {
        return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "the content root is a directory"));
    }
    open_beneath(root, rel, false)
}

/// True when `err` is a refused link: a component of the path is a link (`ELOOP`; `EMLINK` on
/// FreeBSD) or led out of the root (`EXDEV` from `RESOLVE_BENEATH`). The walk found no link
/// there, so the tree changed since.
pub(super) fn is_link_refused(err: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        use rustix::io::Errno;
        let Some(raw) = err.raw_os_error() else { return false };
        let errno = Errno::from_raw_os_error(raw);
        errno == Errno::LOOP || errno == Errno::MLINK || errno == Errno::XDEV
    }
    #[cfg(not(unix))]
    {
        err.kind() == std::io::ErrorKind::Other && err.to_string() == LINK_REFUSED
    }
}

#[cfg(not(unix))]
const LINK_REFUSED: &str = "a link where the walk found none";

#[cfg(not(unix))]
fn link_refused() -> std::io::Error {
    std::io::Error::other(LINK_REFUSED)
}

fn escaped() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, "a path outside the content root")
}

/// The plain components of `rel`; anything else (`..`, a root, a prefix) is refused: the walk
/// hands out link-free paths below the root only.
fn components(rel: &Path) -> std::io::Result<Vec<&OsStr>> {
    rel.components()
        .map(|c| match c {
            Component::Normal(part) => Ok(part),
            _ => Err(escaped()),
        })
        .collect()
}

#[cfg(unix)]
fn open_beneath(root: &Root, rel: &Path, dir: bool) -> std::io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let parts = components(rel)?;
    let mut last = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
    if dir {
        last |= OFlags::DIRECTORY;
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::fs::ResolveFlags;
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(&root.dir.fd, rel, last, Mode::empty(), resolve) {
            Ok(fd) => return Ok(fd.into()),
            // Kernels before 5.6 (or a sandbox that filters the call): one component at a time.
            Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let Some((name, dirs)) = parts.split_last() else { return Err(escaped()) };
    let mut held: Option<DirHandle> = None;
    for part in dirs {
        let parent = held.as_ref().unwrap_or(&root.dir);
        held = Some(parent.child(part)?);
    }
    let parent = held.as_ref().unwrap_or(&root.dir);
    Ok(rustix::fs::openat(&parent.fd, *name, last, Mode::empty())?.into())
}

#[cfg(not(unix))]
fn open_beneath(root: &Root, rel: &Path, _dir: bool) -> std::io::Result<File> {
    let parts = components(rel)?;
    let mut path = root.path.clone();
    for part in parts {
        path.push(part);
        if std::fs::symlink_metadata(&path)?.file_type().is_symlink() {
            return Err(link_refused());
        }
    }
    File::open(&path)
}

/// What a file was when it was opened: enough to tell, later, that the file at its path is no
/// longer the one read (saved again, replaced, or a link swapped in on the way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// The file's length in bytes.
    pub size: u64,
    modified: Option<std::time::SystemTime>,
    #[cfg(unix)]
    identity: (u64, u64, i64, i64),
}

impl Stamp {
    /// The stamp of an opened file, from the handle itself (`fstat`).
    pub(crate) fn of(file: &File) -> std::io::Result<Stamp> {
        let meta = file.metadata()?;
        Ok(Stamp::from_metadata(&meta))
    }

    /// The stamp in `meta`, the metadata of an opened file.
    pub(crate) fn from_metadata(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let identity = {
            use std::os::unix::fs::MetadataExt as _;
            (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
        };
        Stamp {
            size: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            identity,
        }
    }

    /// When the file was last modified.
    pub(crate) fn modified(&self) -> Option<std::time::SystemTime> {
        self.modified
    }
}
