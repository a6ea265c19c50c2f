//! Reading a `catalog.msgpack` file into an open [`Query`]: the one place the query layer does IO.
//!
//! A large catalog is not read first and verified second. Its metadata sits at the end of the
//! file, so it is read first, then hashed on one thread and decoded on this one while another
//! thread reads the bodies: reading, hashing and decoding overlap. The bodies are not hashed at
//! open (each is checked against its recorded blake3 when first served). The checks are those
//! of [`codec::decode_owned`] (format, version, hash, metadata), in the same order; any file
//! not laid out exactly as this version writes it takes the plain path (read everything, then
//! [`Query::open`]), which names the problem.
//!
//! Only a regular file of at most [`codec::MAX_FILE_BYTES`] is read: its metadata is looked at
//! before it is opened (opening a FIFO waits for a writer) and again once open, so a device,
//! a FIFO or a directory named by `--catalog` is refused at once, naming the path.

#![cfg_attr(
    not(unix),
    allow(
        dead_code,
        unused_imports,
        unused_variables,
        reason = "the pipeline reads at offsets (`FileExt::read_exact_at`); elsewhere only the plain path runs"
    )
)]

use std::fs::File;
use std::path::Path;

use std::sync::OnceLock;

use super::Query;
use super::kind::Owner;
use crate::catalog::Catalog;
use crate::catalog::codec::{self, DecodeError};
use crate::error::Error;

/// Below this size a catalog is read in one call: threads would cost more than they overlap.
const PIPELINE_MIN: u64 = 8 << 20;

impl Query {
    /// Opens the catalog embedded in this binary at build time, without copying its bodies.
    ///
    /// Fails when the embedded bytes do not verify (which a build of this crate never produces).
    #[cfg(feature = "manual")]
    pub fn embedded() -> Result<Query, DecodeError> {
        Query::open_static(crate::embedded::CATALOG_MSGPACK)
    }

    /// Opens `'static` catalog bytes (e.g. another crate's `include_bytes!`) without copying.
    ///
    /// Fails when the bytes are not a folio catalog of this format version or do not verify.
    pub fn open_static(bytes: &'static [u8]) -> Result<Query, DecodeError> {
        let catalog_hash = codec::catalog_hash(bytes)?;
        Ok(Query::with_hash(codec::decode_static(bytes)?, catalog_hash))
    }

    /// Opens catalog bytes read into memory; bodies stay in this one buffer.
    ///
    /// Fails like [`Query::open_static`].
    pub fn open(bytes: Vec<u8>) -> Result<Query, DecodeError> {
        let catalog_hash = codec::catalog_hash(&bytes)?;
        Ok(Query::with_hash(codec::decode_owned(bytes)?, catalog_hash))
    }

    /// Reads and opens a `catalog.msgpack` file.
    ///
    /// Fails when the file cannot be read or is refused (the error names the file).
    /// A large file is read, hashed and decoded at the same time (see `query/open.rs`); the
    /// checks are those of [`Query::open`].
    pub fn open_file(path: &Path) -> Result<Query, crate::error::Error> {
        open_file(path)
    }

    /// Wraps a catalog compiled in memory (`--content DIR`). Its hash is the one `folio build`
    /// would record, so cursors behave exactly as for the written catalog.
    pub fn from_catalog(catalog: Catalog) -> Query {
        let catalog_hash = codec::hash_of(&catalog);
        Query::with_hash(catalog, catalog_hash)
    }

    pub(super) fn with_hash(catalog: Catalog, catalog_hash: String) -> Query {
        let mut owners: Vec<Option<Owner>> = vec![None; catalog.entries.len()];
        for (doc_idx, doc) in catalog.docs.iter().enumerate() {
            if let Some(owner) = owners.get_mut(doc.entry as usize) {
                *owner = Some(Owner::Doc(doc_idx as u32));
            }
        }
        for (skill_idx, skill) in catalog.skills.iter().enumerate() {
            let skill_idx = skill_idx as u32;
            if let Some(owner) = owners.get_mut(skill.document as usize) {
                *owner = Some(Owner::Skill(skill_idx, None));
            }
            for (file_idx, file) in skill.files.iter().enumerate() {
                if let Some(owner) = owners.get_mut(file.entry as usize) {
                    *owner = Some(Owner::Skill(skill_idx, Some(file_idx as u32)));
                }
            }
        }
        let mut skill_by_name: Vec<u32> = (0..catalog.skills.len() as u32).collect();
        let name = |i: &u32| catalog.skills[*i as usize].name.as_str();
        // Ids are unique in a valid catalog; should two skills share one, the later one wins.
        skill_by_name.sort_by(|a, b| name(a).cmp(name(b)).then(b.cmp(a)));
        skill_by_name.dedup_by(|later, first| name(later) == name(first));
        let listed = (0..owners.len() as u32).filter(|&i| owners[i as usize].is_some()).collect();
        Query {
            catalog,
            catalog_hash,
            owners,
            listed,
            skill_by_name,
            vocabulary: OnceLock::new(),
            translations: OnceLock::new(),
            search_blanks: OnceLock::new(),
            encoder: None,
            #[cfg(test)]
            lookups: Default::default(),
        }
    }
}

/// Reads and opens a catalog file. Fails with [`Error::Io`] when the file cannot be read, is not
/// a regular file or is larger than [`codec::MAX_FILE_BYTES`], and [`Error::Catalog`] when it is
/// refused, each naming `path`.
pub(super) fn open_file(path: &Path) -> Result<Query, Error> {
    open_file_pipelined_from(path, PIPELINE_MIN)
}

/// [`open_file`], taking the pipelined path for files of at least `pipeline_min` bytes (tests
/// lower it to run the pipeline on small catalogs).
fn open_file_pipelined_from(path: &Path, pipeline_min: u64) -> Result<Query, Error> {
    let refused = |source| Error::Catalog { path: path.to_owned(), source };
    let (file, len, prefix) = open_checked(path)?;
    #[cfg(unix)]
    {
        let io = |e| Error::io(path, e);
        if len >= pipeline_min.max(codec::PLAN_PREFIX as u64)
            && let Ok(len) = usize::try_from(len)
        {
            // Zeroed memory from the allocator is fresh pages the kernel maps on first write:
            // the reads below are the first to touch them.
            let mut buf = vec![0u8; len];
            let suffix = len - codec::PLAN_SUFFIX;
            buf[..codec::PLAN_PREFIX].copy_from_slice(&prefix);
            read_at(&file, &mut buf[suffix..], suffix as u64).map_err(io)?;
            if let Some(plan) = codec::plan(&buf[..codec::PLAN_PREFIX], &buf[suffix..], len as u64)
                && plan.meta.start >= codec::PLAN_PREFIX
            {
                let (hash, catalog) = pipeline(&file, &mut buf, &plan).map_err(io)?;
                let catalog = codec::finish(buf, &plan, &hash, catalog).map_err(refused)?;
                return Ok(Query::with_hash(catalog, plan.catalog_hash));
            }
        }
    }
    Query::open(read_all(path, &file, len)?).map_err(refused)
}

/// Reads and verifies a `catalog.msgpack` file (format version, `catalog_hash`, consistency)
/// into a [`Catalog`], for library users who want the records rather
/// than a [`Query`].
///
/// Fails with [`Error::Io`] when the file cannot be read, is not a regular file or is larger
/// than a catalog can be, and [`Error::Catalog`] when it is truncated, corrupted, tampered with
/// or of another format version; both print as one line naming the file.
pub fn load_catalog(path: &Path) -> Result<crate::catalog::Catalog, Error> {
    // Owned: the bodies stay in the buffer that was read instead of being copied out of it.
    codec::decode_owned(read_catalog_bytes(path)?)
        .map_err(|source| Error::Catalog { path: path.to_owned(), source })
}

/// Reads a whole catalog file's bytes, refusing what [`Query::open_file`] refuses before
/// reading: anything but a regular file of at most [`codec::MAX_FILE_BYTES`] ([`Error::Io`];
/// a device or a FIFO is never opened), and a file whose first 256 bytes and size decide it is
/// no catalog ([`Error::Catalog`]), each naming `path`. The bytes are not verified: decode them
/// (`folio bundle --catalog` appends a catalog file's exact bytes, once verified).
pub fn read_catalog_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    let (file, len, _) = open_checked(path)?;
    read_all(path, &file, len)
}

/// Opens `path` as [`open_regular`] does and reads its first bytes ([`codec::PLAN_PREFIX`] of
/// them, or all), leaving the file at its start: a file those bytes and its size decide is no
/// catalog (a forged envelope, bytes appended, cut short) is refused before the rest is read.
pub(super) fn open_checked(path: &Path) -> Result<(File, u64, Vec<u8>), Error> {
    use std::io::{Read as _, Seek as _};
    let io = |e| Error::io(path, e);
    let (file, len) = open_regular(path)?;
    let mut prefix = vec![0u8; usize::try_from(len.min(codec::PLAN_PREFIX as u64)).unwrap_or(0)];
    (&file).read_exact(&mut prefix).map_err(io)?;
    (&file).seek(std::io::SeekFrom::Start(0)).map_err(io)?;
    codec::check_envelope(&prefix, len).map_err(|source| Error::Catalog { path: path.to_owned(), source })?;
    Ok((file, len, prefix))
}

/// The rest of `file` (measured at `len` bytes), bounded even if it grew since it was measured.
fn read_all(path: &Path, file: &File, len: u64) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    std::io::Read::read_to_end(&mut std::io::Read::take(file, codec::MAX_FILE_BYTES + 1), &mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > codec::MAX_FILE_BYTES {
        return Err(too_large(path, bytes.len() as u64));
    }
    Ok(bytes)
}

/// Opens `path` if it is a regular file of at most [`codec::MAX_FILE_BYTES`]; returns it with its
/// length. Anything else (a directory, a FIFO, a device such as `/dev/zero`) is refused before a
/// byte is read: a device never ends and a FIFO never answers, so reading either would hang or
/// exhaust memory.
fn open_regular(path: &Path) -> Result<(File, u64), Error> {
    let io = |e| Error::io(path, e);
    let check = |meta: &std::fs::Metadata| {
        if !meta.is_file() {
            return Err(Error::io(
                path,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!(
                        "not a regular file ({}); give the path of a `catalog.msgpack` written by \
                         `folio build`",
                        kind_of(meta)
                    ),
                ),
            ));
        }
        if meta.len() > codec::MAX_FILE_BYTES {
            return Err(too_large(path, meta.len()));
        }
        Ok(())
    };
    // Looked at before it is opened: opening a FIFO blocks until something writes to it.
    check(&std::fs::metadata(path).map_err(io)?)?;
    let file = File::open(path).map_err(io)?;
    // And again once open, in case the path was replaced in between.
    let meta = file.metadata().map_err(io)?;
    check(&meta)?;
    Ok((file, meta.len()))
}

fn too_large(path: &Path, len: u64) -> Error {
    Error::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "is {len} bytes, more than the {} bytes a catalog can be; give the path of a \
                 `catalog.msgpack` written by `folio build`",
                codec::MAX_FILE_BYTES
            ),
        ),
    )
}

/// What a file that is not a regular file is, for messages.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "neither a file nor a directory"
}

/// Fills `buf` (the whole file; its first [`codec::PLAN_PREFIX`] bytes are already read) and
/// returns the hash of what the catalog hash covers (the metadata and the lengths after it)
/// with the decoded metadata.
#[cfg(unix)]
fn pipeline(
    file: &File,
    buf: &mut [u8],
    plan: &codec::Plan,
) -> std::io::Result<(blake3::Hash, Result<codec::Meta, codec::DecodeError>)> {
    // `end` is the metadata and the lengths after it: read first, then hashed and decoded
    // while the bodies are read.
    let (head, end) = buf.split_at_mut(plan.hashed.start);
    let bodies = &mut head[codec::PLAN_PREFIX..];
    read_at(file, end, plan.hashed.start as u64)?;
    let end: &[u8] = end;
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || read_at(file, bodies, codec::PLAN_PREFIX as u64));
        let hasher = scope.spawn(move || codec::hash(end));
        let catalog = codec::decode_planned_meta(&end[..plan.meta.len()]);
        crate::parallel::join(reader)?;
        let hash = crate::parallel::join(hasher);
        Ok((hash, catalog))
    })
}

/// Fills `buf` from `file` at `offset`. Fails on a short file like `read_exact`.
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query layer's own fixture catalog as a file's bytes (not the manual: these tests must
    /// not change when the docs do).
    fn catalog_bytes() -> Vec<u8> {
        codec::encode(&super::super::tests::fixture()).msgpack
    }

    /// Opens `bytes` from a file both ways: pipelined (whatever the size) and in one read.
    fn open_both(name: &str, bytes: &[u8]) -> (Result<Query, String>, Result<Query, String>) {
        let dir = std::env::temp_dir().join(format!("folio-open-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("catalog.msgpack");
        std::fs::write(&path, bytes).unwrap();
        let piped = open_file_pipelined_from(&path, 0).map_err(|e| e.to_string());
        let plain = open_file_pipelined_from(&path, u64::MAX).map_err(|e| e.to_string());
        std::fs::remove_dir_all(&dir).unwrap();
        (piped, plain)
    }

    #[test]
    fn the_pipeline_opens_the_same_catalog_as_one_read() {
        let bytes = catalog_bytes();
        assert!(
            codec::plan(
                &bytes[..codec::PLAN_PREFIX],
                &bytes[bytes.len() - codec::PLAN_SUFFIX..],
                bytes.len() as u64
            )
            .is_some()
        );
        let (piped, plain) = open_both("same", &bytes);
        let (piped, plain) = (piped.unwrap(), plain.unwrap());
        assert_eq!(piped.catalog(), plain.catalog());
        assert_eq!(piped.catalog_hash(), plain.catalog_hash());
        let first = &piped.catalog().entries[0];
        assert_eq!(first.bytes, plain.catalog().entries[0].bytes);
    }

    #[test]
    fn the_pipeline_refuses_what_one_read_refuses_with_the_same_message() {
        let bytes = catalog_bytes();
        let plan = codec::plan(
            &bytes[..codec::PLAN_PREFIX],
            &bytes[bytes.len() - codec::PLAN_SUFFIX..],
            bytes.len() as u64,
        )
        .unwrap();
        let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
        // A flipped byte in the metadata, in the lengths at the end, and in the recorded hash
        // (a body's bytes are checked when first served, not at open).
        let tail = bytes.len() - 3;
        for (name, at) in [("meta", plan.meta.start + 10), ("tail", tail), ("hash", 60)] {
            let mut tampered = bytes.clone();
            tampered[at] ^= 0x01;
            cases.push((name, tampered));
        }
        cases.push(("truncated", bytes[..bytes.len() - 1].to_vec()));
        cases.push(("trailing", [&bytes[..], b"x"].concat()));
        cases.push(("empty", Vec::new()));
        for (name, case) in cases {
            let (piped, plain) = open_both(name, &case);
            let hash = |q: Query| q.catalog_hash().to_owned();
            let (piped, plain) = (piped.map(hash), plain.map(hash));
            assert_eq!(piped, plain, "{name}");
            assert!(piped.is_err(), "{name}: {piped:?}");
        }
        // The metadata flip is caught by the hash, even though the metadata may still decode.
        let mut tampered = bytes.clone();
        tampered[plan.meta.start + 10] ^= 0x01;
        let (piped, _) = open_both("mismatch", &tampered);
        assert!(piped.unwrap_err().contains("catalog is corrupted or was modified"));
        // Bytes after the envelope's body: refused by both paths, naming how many.
        let (piped, _) = open_both("trailing-message", &[&bytes[..], b"xy"].concat());
        assert!(piped.unwrap_err().ends_with(
            "catalog.msgpack: catalog is corrupt: 2 bytes follow the end of its body; rebuild it \
                 with `folio build`"
        ));
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_opened_and_a_fifo_is_not_waited_on() {
        let dir = std::env::temp_dir().join(format!("folio-open-{}-special", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        // Opening the FIFO would block until a writer appears; it is refused without opening.
        let cases = [
            (Path::new("/dev/zero"), "a character device"),
            (fifo.as_path(), "a FIFO"),
            (dir.as_path(), "a directory"),
        ];
        for (path, kind) in cases {
            let err = open_file(path).unwrap_err().to_string();
            let loaded = load_catalog(path).unwrap_err().to_string();
            assert_eq!(loaded, err, "the library's loader refuses it the same way");
            assert_eq!(
                err,
                format!(
                    "{}: not a regular file ({kind}); give the path of a `catalog.msgpack` written by \
                     `folio build`",
                    path.display()
                )
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_past_the_largest_catalog_is_refused_before_it_is_read() {
        let dir = std::env::temp_dir().join(format!("folio-open-{}-large", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("catalog.msgpack");
        // A sparse file: its length is on the metadata, its blocks are never written or read.
        let file = File::create(&path).unwrap();
        file.set_len(codec::MAX_FILE_BYTES + 1).unwrap();
        let err = open_file(&path).unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            err,
            format!(
                "{}: is 4294967416 bytes, more than the 4294967415 bytes a catalog can be; give the \
                 path of a `catalog.msgpack` written by `folio build`",
                path.display()
            )
        );
    }
}
