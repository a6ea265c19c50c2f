//! What a shelf lists about a catalog file before it opens it ([`Peek`]: name, version, title,
//! description, catalog hash), read from a few small ranges of the file: the envelope at its
//! start, the tail that locates the metadata at its end, and the metadata's first part up to
//! the end of its settings. A shelf of a thousand catalogs starts from these alone.
//!
//! Must not: decode entries, docs or the index, or vouch for the file: the hash is read, not
//! checked (the full open that serves the catalog checks it and refuses a forged file then).

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;

use serde::Deserialize as _;

use super::Query;
use crate::catalog::Settings;
use crate::catalog::codec::{self, DecodeError};
use crate::error::Error;

/// A catalog's identity as a shelf lists it, read without opening the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peek {
    /// `[catalog] name`.
    pub name: String,
    /// `[catalog] version`, if the catalog has one.
    pub version: Option<String>,
    /// `[catalog] title`.
    pub title: String,
    /// `[catalog] description`.
    pub description: String,
    /// The `catalog_hash` the file records (checked when the catalog is opened, not here).
    pub catalog_hash: String,
}

/// The most bytes of settings read before giving up (a description or instructions of this
/// size is no catalog's).
const MAX_SETTINGS_BYTES: u64 = 4 << 20;

impl Query {
    /// Reads a catalog file's name, version, title, description and recorded hash from its
    /// first and last bytes and its settings, without decoding the rest (see the module doc).
    ///
    /// Fails when the file cannot be read, is not a catalog of this format version, or its
    /// settings do not decode. A file that peeks well may still be refused when it is opened.
    pub fn peek_file(path: &Path) -> Result<Peek, Error> {
        let io = |source| Error::io(path, source);
        let refused = |source| Error::Catalog { path: path.to_owned(), source };
        let mut file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let prefix = read_at(&mut file, 0, len.min(codec::PLAN_PREFIX as u64)).map_err(io)?;
        codec::check_envelope(&prefix, len).map_err(refused)?;
        let suffix_len = len.min(codec::PLAN_SUFFIX as u64);
        let suffix = read_at(&mut file, len - suffix_len, suffix_len).map_err(io)?;
        let unlike = || refused(DecodeError::Body("metadata is not where this version puts it".into()));
        let plan = codec::plan(&prefix, &suffix, len).ok_or_else(unlike)?;
        // The metadata: a u32 count of parts, a u64 length each, then the parts; the first part
        // is a positional array whose first field is the settings.
        let meta_start = plan.meta.start as u64;
        let count = read_at(&mut file, meta_start, 12).map_err(io)?;
        let parts = u32::from_le_bytes(count[..4].try_into().expect("4 bytes"));
        let head_len = u64::from_le_bytes(count[4..12].try_into().expect("8 bytes"));
        let head_start = meta_start + 4 + 8 * u64::from(parts);
        if parts == 0 || head_start.saturating_add(head_len) > plan.meta.end as u64 {
            return Err(unlike());
        }
        // Settings are small: read a little, and more only when they do not fit.
        let mut want = head_len.min(16 << 10);
        let settings = loop {
            let head = read_at(&mut file, head_start, want).map_err(io)?;
            match settings_of(&head) {
                Ok(settings) => break settings,
                Err(_) if want < head_len.min(MAX_SETTINGS_BYTES) => {
                    want = (want * 8).min(head_len.min(MAX_SETTINGS_BYTES));
                }
                Err(e) => return Err(refused(DecodeError::Body(format!("settings do not decode: {e}")))),
            }
        };
        Ok(Peek {
            name: settings.name,
            version: settings.version,
            title: settings.title,
            description: settings.description,
            catalog_hash: plan.catalog_hash,
        })
    }
}

/// The settings at the start of the metadata's first part.
fn settings_of(mut head: &[u8]) -> Result<Settings, String> {
    rmp::decode::read_array_len(&mut head).map_err(|e| e.to_string())?;
    let mut de = rmp_serde::Deserializer::new(head);
    Settings::deserialize(&mut de).map_err(|e| e.to_string())
}

fn read_at(file: &mut File, at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(at))?;
    let mut out = vec![0; usize::try_from(len).unwrap_or(usize::MAX)];
    file.read_exact(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(settings: Settings) -> (tempdir::Dir, std::path::PathBuf) {
        let catalog = crate::catalog::Catalog { settings, ..crate::query::tests::fixture() };
        let encoded = codec::encode(&catalog);
        let dir = tempdir::Dir::new();
        let path = dir.0.join("catalog.msgpack");
        std::fs::write(&path, &encoded.msgpack).unwrap();
        (dir, path)
    }

    mod tempdir {
        /// A directory removed when dropped.
        pub(super) struct Dir(pub(super) std::path::PathBuf);
        impl Dir {
            pub(super) fn new() -> Dir {
                static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
                let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let path = std::env::temp_dir().join(format!("folio-peek-{}-{n}", std::process::id()));
                std::fs::create_dir_all(&path).unwrap();
                Dir(path)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn peek_reads_what_opening_reads() {
        let settings = Settings {
            name: "mylib".into(),
            version: Some("2.1".into()),
            title: "My lib".into(),
            description: "Does things.".into(),
            ..Settings::default()
        };
        let (_dir, path) = written(settings);
        let peek = Query::peek_file(&path).unwrap();
        let opened = Query::open_file(&path).unwrap();
        assert_eq!(peek.name, "mylib");
        assert_eq!(peek.version.as_deref(), Some("2.1"));
        assert_eq!(peek.title, "My lib");
        assert_eq!(peek.description, "Does things.");
        assert_eq!(peek.catalog_hash, opened.catalog_hash());
    }

    #[test]
    fn long_settings_are_read_whole() {
        let settings = Settings { description: "x".repeat(100_000), ..Settings::default() };
        let (_dir, path) = written(settings);
        assert_eq!(Query::peek_file(&path).unwrap().description.len(), 100_000);
    }

    #[test]
    fn a_file_that_is_no_catalog_is_refused_naming_it() {
        let dir = tempdir::Dir::new();
        let path = dir.0.join("catalog.msgpack");
        std::fs::write(&path, b"not a catalog").unwrap();
        let err = Query::peek_file(&path).unwrap_err().to_string();
        assert!(err.contains("catalog.msgpack"), "{err}");
    }
}
