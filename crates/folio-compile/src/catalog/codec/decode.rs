//! Opening a whole `catalog.msgpack` held in memory: the envelope check (format, version),
//! the hash of the metadata (which records every entry's blake3 and the search index's), the
//! metadata decode, and pointing every entry body and the search index at its range of the one
//! buffer the file is in, then the consistency check. The bodies and the index are not read
//! here: each is hashed against its recorded blake3 the first time it is served
//! ([`crate::catalog::Entry::body`], [`crate::catalog::search::SearchIndex::verify`]).
//!
//! Must not: hand out a catalog before its metadata hash and its tables are checked, copy a
//! body, or do IO (callers read the bytes).

use std::ops::Range;

use bytes::Bytes;

use super::Envelope;
use super::envelope::check_envelope;
use super::error::DecodeError;
use super::lazy::{META_DEPTH, from_slice_bounded};
use super::meta::{self, Meta, Parts, TAIL};
use crate::catalog::{Catalog, consistency};

/// Decodes and verifies `catalog.msgpack` bytes, copying them once into a shared buffer.
///
/// Fails when the bytes are not a folio catalog, are of another format version, do not match
/// their recorded hash, or do not decode.
pub fn decode(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    decode_owned(bytes.to_vec())
}

/// Decodes and verifies catalog bytes that live for the whole program (the embedded catalog)
/// without copying any body. Fails like [`decode`].
pub fn decode_static(bytes: &'static [u8]) -> Result<Catalog, DecodeError> {
    let layout = verify(bytes)?;
    attach(layout.meta?, &Bytes::from_static(bytes), &layout.parts)
}

/// Decodes and verifies an owned buffer without copying any body: every body of the result is a
/// range of it. Fails like [`decode`].
pub fn decode_owned(bytes: Vec<u8>) -> Result<Catalog, DecodeError> {
    let layout = verify(&bytes)?;
    let meta = layout.meta?;
    attach(meta, &cut_back(bytes, &layout.parts), &layout.parts)
}

/// Decodes and verifies catalog bytes held elsewhere (a read-only memory map of the file)
/// without copying any body: every body of the result is a range of `bytes`. Fails like
/// [`decode`].
pub fn decode_shared(bytes: Bytes) -> Result<Catalog, DecodeError> {
    let layout = verify(&bytes)?;
    let meta = layout.meta?;
    attach(meta, &bytes.slice(..layout.parts.search.end), &layout.parts)
}

/// The file's buffer, shared, without the metadata at its end: once decoded, an open catalog
/// holds the file's bodies and search index, not its msgpack twice.
pub(super) fn cut_back(mut file: Vec<u8>, parts: &Parts) -> Bytes {
    file.truncate(parts.search.end);
    file.shrink_to_fit();
    Bytes::from(file)
}

/// What [`verify`] found: the decoded metadata (or why it did not decode) and where, in the
/// file, the parts lie.
struct Layout {
    meta: Result<Meta, DecodeError>,
    parts: Parts,
}

/// Checks the envelope, verifies the metadata's hash and decodes the metadata.
fn verify(file: &[u8]) -> Result<Layout, DecodeError> {
    // The envelope's format, version and extent are `check_envelope`'s (what a reader of a file
    // checks before reading it): past it, the envelope decodes to this format and version, and
    // its body ends the file.
    check_envelope(file, file.len() as u64)?;
    let envelope = read_envelope(file)?;
    let body = envelope.body;
    // The body is borrowed from `file`, so its position in the file is a pointer difference.
    let body_start = body.as_ptr() as usize - file.as_ptr() as usize;
    let parts = body.len().checked_sub(TAIL).and_then(|at| meta::parts(body.len(), &body[at..]));
    // What the hash covers: the metadata and the lengths after it. With the tail unreadable the
    // whole body is hashed, which does not match either.
    let hashed = &body[parts.as_ref().map_or(0, |p| p.meta.start)..];
    // Hash and decode the metadata at the same time; a catalog whose hash does not match is
    // refused even when its metadata decodes, so nothing unverified is served.
    let (actual, meta) = std::thread::scope(|scope| {
        let hashing = scope.spawn(|| hash(hashed));
        let meta = match &parts {
            Some(parts) => meta::decode(&body[parts.meta.clone()]),
            None => {
                Err(DecodeError::Body("the body's tail is missing or its lengths overflow it".to_owned()))
            }
        };
        (crate::parallel::join(hashing), meta)
    });
    let actual = actual.to_hex().to_string();
    if actual != envelope.catalog_hash {
        return Err(DecodeError::HashMismatch { expected: envelope.catalog_hash.to_owned(), actual });
    }
    let parts = parts.unwrap_or(Parts { bodies: 0..0, search: 0..0, meta: 0..0 }).shifted(body_start);
    Ok(Layout { meta, parts })
}

/// Points every entry body and the search index at their ranges of `file`, then checks that
/// the tables agree with each other.
pub(super) fn attach(meta: Meta, file: &Bytes, parts: &Parts) -> Result<Catalog, DecodeError> {
    let Meta { mut catalog, offsets } = meta;
    for (entry, offset) in catalog.entries.iter_mut().zip(offsets) {
        let range = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(entry.size).ok())
            .and_then(|(offset, size)| {
                let start = parts.bodies.start.checked_add(offset)?;
                Some(start..start.checked_add(size)?)
            })
            .filter(|r| r.end <= parts.bodies.end);
        entry.bytes = range.and_then(|r| slice(file, r)).ok_or_else(|| {
            DecodeError::Body(format!("body of `{}` extends beyond the catalog's bodies", entry.uri))
        })?;
    }
    catalog.search.data = slice(file, parts.search.clone())
        .ok_or_else(|| DecodeError::Body("the search index extends beyond the catalog's body".to_owned()))?;
    // The hash proves nothing about a file from elsewhere (anyone can recompute it): what the
    // readers index with is checked before the catalog is handed out.
    consistency::check(&catalog).map_err(DecodeError::Corrupt)?;
    Ok(catalog)
}

/// `range` of `file`, sharing its buffer; `None` when out of bounds (`Bytes::slice` panics).
fn slice(file: &Bytes, range: Range<usize>) -> Option<Bytes> {
    (range.start <= range.end && range.end <= file.len()).then(|| file.slice(range))
}

/// blake3 of `bytes`, computed on two threads for large inputs.
///
/// The input is split where blake3's own tree splits it (`left_subtree_len`), each half is hashed
/// as a non-root subtree, and the two chaining values are merged as the root: the result is
/// bit-identical to `blake3::hash(bytes)`, only faster.
pub fn hash(bytes: &[u8]) -> blake3::Hash {
    use blake3::hazmat::{HasherExt, Mode, left_subtree_len, merge_subtrees_root};
    // Below a few MiB a thread costs more than it saves.
    const PARALLEL_MIN: usize = 4 << 20;
    if bytes.len() < PARALLEL_MIN {
        return blake3::hash(bytes);
    }
    let left_len = left_subtree_len(bytes.len() as u64) as usize;
    let (left, right) = bytes.split_at(left_len);
    let (left_cv, right_cv) = std::thread::scope(|scope| {
        let left = scope.spawn(|| blake3::Hasher::new().update(left).finalize_non_root());
        let right_cv =
            blake3::Hasher::new().set_input_offset(left_len as u64).update(right).finalize_non_root();
        (crate::parallel::join(left), right_cv)
    });
    merge_subtrees_root(&left_cv, &right_cv, Mode::Hash)
}

/// The recorded hash of a catalog file (blake3 of its metadata and lengths, which name every
/// entry's and the index's blake3), without decoding the body.
pub fn catalog_hash(bytes: &[u8]) -> Result<String, DecodeError> {
    Ok(read_envelope(bytes)?.catalog_hash.to_owned())
}

/// The envelope, borrowing its body from `file`.
fn read_envelope(file: &[u8]) -> Result<Envelope<'_>, DecodeError> {
    from_slice_bounded(file, META_DEPTH)
        .map_err(|e| DecodeError::NotACatalog(consistency::shown(&e.to_string())))
}
