//! [`DecodeError`]: why a catalog file is refused, named for whoever reads it.
//!
//! Owns the error and its wording only; a leaf of the codec (every reader of a file names its
//! problems with it). Must not: decide anything about bytes itself.

use std::fmt;

use crate::catalog::FORMAT_VERSION;

/// Why a catalog file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Not a folio catalog at all (wrong magic, not msgpack, truncated envelope).
    NotACatalog(String),
    /// A folio catalog of another layout version.
    Version {
        /// Version found in the file.
        found: u32,
    },
    /// The metadata (with the lengths after it) does not hash to the recorded `catalog_hash`.
    HashMismatch {
        /// Hash recorded in the envelope.
        expected: String,
        /// Hash of the metadata as read.
        actual: String,
    },
    /// The body hashed correctly but does not decode (a bug, or a forged hash), or a lazily
    /// decoded field of it does not.
    Body(String),
    /// The body decodes, but its tables contradict each other (a forged hash): an index out of
    /// range, a table out of order (the catalog's `consistency` checks).
    Corrupt(String),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotACatalog(why) => {
                write!(f, "not a folio catalog ({why}); rebuild it with `folio build`")
            }
            DecodeError::Version { found } => write!(
                f,
                "catalog format version {found} is not supported (this folio reads version \
                 {FORMAT_VERSION}); rebuild it with `folio build`"
            ),
            DecodeError::HashMismatch { expected, actual } => write!(
                f,
                "catalog is corrupted or was modified: its metadata hashes to {actual}, its header says \
                 {expected}; rebuild it with `folio build`"
            ),
            DecodeError::Body(why) => {
                write!(f, "catalog body does not decode ({why}); rebuild it with `folio build`")
            }
            DecodeError::Corrupt(why) => {
                write!(f, "catalog is corrupt: {why}; rebuild it with `folio build`")
            }
        }
    }
}

impl std::error::Error for DecodeError {}
