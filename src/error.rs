//! Operational failures (IO, decode, bind), each naming the path or address involved.
//! Content problems are never errors: they are diagnostics (see `compile::diagnostic`).

use std::fmt;
use std::path::{Path, PathBuf};

/// An operational failure with the file it concerns.
#[derive(Debug)]
pub enum Error {
    /// Reading or writing a file failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A catalog file was refused (truncated, corrupted, tampered, other version).
    Catalog {
        /// The catalog file (`<embedded>` for the built-in one).
        path: PathBuf,
        /// Why.
        source: crate::catalog::codec::DecodeError,
    },
}

impl Error {
    /// Wraps an IO error with its path.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Catalog { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    // The message already ends with the cause's own message, so the chain continues below it:
    // returning the cause itself made `{:#}` (how `main` prints errors) say it twice.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => source.source(),
            Error::Catalog { source, .. } => source.source(),
        }
    }
}

/// Reads a whole file, naming it on failure.
pub fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Writes a whole file, creating its parent directories, naming it on failure.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
}
