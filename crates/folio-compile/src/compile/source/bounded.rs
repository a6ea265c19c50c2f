//! Reading one file below a content root, bounded: opened below the root's handle with no link
//! allowed on the way, refused unless it is a regular file within a size limit decided before a
//! byte is read. The compile's own reads (`source::read`), the reads that show source lines
//! ([`read_inside`]) and the config files the layout and `folio.toml` are read from
//! ([`read_config`]) all go through it, with the limits and the `invalid-config` error of a
//! config file too large to parse.
//!
//! Below `source` and `layout` alike (the walk follows the layout, the layout reads its config
//! files here), so it must not use either: it knows files and limits, not what they hold.

use std::io::Read as _;
use std::path::Path;

use super::beneath::{Root, Stamp, is_link_refused, open_file};
use crate::compile::diagnostic::{Code, Diagnostic};

/// Largest file the compiler reads, in bytes (8 MiB). A skill may hold at most 16 MiB in total
/// (SEP-2640), and a doc larger than this is almost certainly generated output committed by
/// mistake; refusing it keeps memory bounded on hostile trees.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// The most bytes a config file may hold to be parsed: `folio.toml` and the config file a
/// generator is detected by (`book.toml`, `hugo.toml`, `mkdocs.yml`, ...). Smaller than a
/// content file's limit, since parsing costs far more than the text does (8 MiB of TOML dotted
/// keys took 1.8 GB to parse), and a real one is a few kilobytes.
pub(crate) const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The `invalid-config` error of a config file larger than [`MAX_CONFIG_BYTES`], which is not
/// parsed.
pub(crate) fn config_too_large(path: &str, size: u64) -> Diagnostic {
    Diagnostic::error(
        Code::InvalidConfig,
        path,
        1,
        1,
        format!(
            "`{path}` is {size} bytes, more than the {MAX_CONFIG_BYTES}-byte (1 MiB) limit of a config file: \
             it is not read, and the defaults apply"
        ),
    )
    .with_help("a config file holds a few kilobytes of settings: remove what was generated into it")
}

/// The bytes of the file at `path` (content-relative) under a content root, for showing
/// source lines: `None` unless it resolves to a regular file inside `canonical_root` no larger
/// than [`MAX_FILE_BYTES`]. The same checks as the compile's own reads (the resolved path is
/// opened below the root with no link allowed on the way), so a report never shows a byte the
/// compile would not read (a link out of the root, a device, a huge file).
pub fn read_inside(canonical_root: &Path, path: &str) -> Option<Vec<u8>> {
    read_inside_bounded(canonical_root, path, MAX_FILE_BYTES).ok()
}

/// A config file read by [`read_config`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ConfigFile {
    /// Its bytes.
    Read(Vec<u8>),
    /// Larger than [`MAX_CONFIG_BYTES`] (its size, or how much of it was read): not read.
    TooLarge(u64),
    /// Not there, or not what the compile would read (outside the root, not a regular file,
    /// unreadable).
    Missing,
}

/// The config file at `path` (content-relative) under a content root, read as [`read_inside`]
/// reads a file but bounded by [`MAX_CONFIG_BYTES`]: decided on the opened file's size before a
/// byte is read, and read no further than one byte past the limit.
pub(crate) fn read_config(canonical_root: &Path, path: &str) -> ConfigFile {
    match read_inside_bounded(canonical_root, path, MAX_CONFIG_BYTES) {
        Ok(bytes) => ConfigFile::Read(bytes),
        Err(InsideError::TooLarge(size)) => ConfigFile::TooLarge(size),
        Err(_) => ConfigFile::Missing,
    }
}

/// Why [`read_inside_bounded`] read nothing.
#[derive(Debug)]
pub enum InsideError {
    /// Nothing is there.
    Missing,
    /// The path resolves outside the root, or a link on it was swapped in while it was opened.
    Outside,
    /// Not a regular file (a directory, a FIFO, a device): never read.
    NotRegular,
    /// Larger than the limit (its size, or how much of it was read): not read.
    TooLarge(u64),
    /// It could not be opened or read.
    Unreadable(std::io::Error),
}

/// The file at `path` (content-relative) under a content root, read with the compile's own
/// rules: it resolves inside `canonical_root`, is opened below the root with no link allowed on
/// the way, is a regular file, and is at most `limit` bytes (decided on the opened file's size
/// before a byte is read; the read stops one byte past it).
pub fn read_inside_bounded(canonical_root: &Path, path: &str, limit: u64) -> Result<Vec<u8>, InsideError> {
    let resolved = canonical_root.join(path).canonicalize().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => InsideError::Missing,
        _ => InsideError::Unreadable(e),
    })?;
    if !resolved.starts_with(canonical_root) {
        return Err(InsideError::Outside);
    }
    let root = Root::open(canonical_root.to_owned()).map_err(InsideError::Unreadable)?;
    match read_regular(&root, &resolved, limit) {
        Ok((bytes, _)) => Ok(bytes),
        Err(ReadError::TooLarge(size)) => Err(InsideError::TooLarge(size)),
        Err(ReadError::NotRegular(_)) => Err(InsideError::NotRegular),
        Err(ReadError::Io(e)) if is_link_refused(&e) => Err(InsideError::Outside),
        Err(ReadError::Io(e)) => Err(InsideError::Unreadable(e)),
    }
}

/// Why [`read_regular`] read nothing.
pub(super) enum ReadError {
    Io(std::io::Error),
    TooLarge(u64),
    NotRegular(std::fs::FileType),
}

/// Reads the regular file at the canonical, link-free path `canonical` below `root`: opened
/// below the root's handle with no link allowed on any component (one swapped in since the walk
/// is refused as a change), checked on the opened file's own metadata (a regular file, at most
/// `limit` bytes: [`MAX_FILE_BYTES`], or [`MAX_CONFIG_BYTES`] for a config file) before a byte
/// is read, and read only up to one byte past the limit whatever the file does meanwhile.
///
/// The walk found a regular file here, so the only check before the open is the open's own: a
/// second look at the path first (a `stat` by name) cost 2% of a large tree's build and closed
/// no gap, since the file can change between any look and the open. A FIFO swapped in since the
/// walk opens without blocking and is refused; a device swapped in is opened, then refused.
pub(super) fn read_regular(root: &Root, canonical: &Path, limit: u64) -> Result<(Vec<u8>, Stamp), ReadError> {
    let file = open_file(root, canonical).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(meta.file_type()));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let stamp = Stamp::from_metadata(&meta);
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0) + 1);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok((bytes, stamp))
}
