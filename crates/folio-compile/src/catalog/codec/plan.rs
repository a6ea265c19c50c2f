//! The overlapped open of a large file: [`plan`] finds the areas of a catalog file from its
//! first and last bytes, so a reader can decode the metadata ([`decode_planned_meta`]) while
//! it still reads and hashes the bodies, and [`finish`] then applies the checks of
//! [`super::decode_owned`], in the same order. It exists for the open-time target of a large
//! catalog (`query/open.rs` is its one caller). [`super::check_envelope`] comes before any of it,
//! on every path: what a file's first bytes and its size decide, so that no forged file is read
//! whole before it is refused.
//!
//! Must not: accept a file laid out in any way but the one this version writes (anything else
//! has no plan and takes the plain path, which names the problem), or hand out a catalog
//! before its hash is checked.

use std::ops::Range;

use super::Catalog;
use super::decode::{attach, cut_back};
use super::error::DecodeError;
use super::meta::{self, Meta, Parts, TAIL};
use super::writer::envelope_prefix;

/// Where the parts of a catalog file lie, read from its first and last bytes alone, so that a
/// reader can fetch the metadata first and decode it while the bodies are still being read and
/// hashed.
///
/// Only a file shaped exactly as [`super::encode`] writes it (the envelope fields in order, the
/// body a `bin32` ending the file) has a plan; for anything else [`plan`] gives `None` and the
/// caller decodes the whole file with [`super::decode_owned`], which names the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The body: bodies, search index, metadata and lengths.
    pub body: Range<usize>,
    /// What `catalog_hash` covers: the metadata and the lengths after it, which end the file.
    pub hashed: Range<usize>,
    /// The metadata parts, near the end of the body (only the lengths follow them).
    pub meta: Range<usize>,
    /// Where the parts lie in the file.
    parts: Parts,
    /// `catalog_hash` as recorded in the envelope.
    pub catalog_hash: String,
}

/// Bytes a reader needs from the end of a file before calling [`plan`]: the body's tail.
pub const PLAN_SUFFIX: usize = TAIL;

/// Reads the [`Plan`] of a file of `file_len` bytes from its first bytes (at least
/// [`super::PLAN_PREFIX`] of them, or the whole file) and its last [`PLAN_SUFFIX`] bytes. `None` when
/// the file is not laid out exactly as this version writes it.
pub fn plan(prefix: &[u8], suffix: &[u8], file_len: u64) -> Option<Plan> {
    let mut rest = prefix.strip_prefix(&envelope_prefix()[..])?;
    // The hash: 64 hex digits.
    let hash_len = rmp::decode::read_str_len(&mut rest).ok()?;
    let (hash, mut rest) = rest.split_at_checked(usize::try_from(hash_len).ok().filter(|&n| n == 64)?)?;
    let catalog_hash = std::str::from_utf8(hash).ok().filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
    let key_len = rmp::decode::read_str_len(&mut rest).ok()?;
    let (key, mut rest) = rest.split_at_checked(usize::try_from(key_len).ok()?)?;
    if key != b"body" || rmp::decode::read_marker(&mut rest).ok()? != rmp::Marker::Bin32 {
        return None;
    }
    let (len, rest) = rest.split_first_chunk::<4>()?;
    let body_len = u32::from_be_bytes(*len) as usize;
    let body_start = prefix.len() - rest.len();
    let body_end = body_start.checked_add(body_len)?;
    if u64::try_from(body_end).ok()? != file_len {
        return None;
    }
    let parts = meta::parts(body_len, suffix)?.shifted(body_start);
    Some(Plan {
        hashed: parts.meta.start..body_end,
        body: body_start..body_end,
        meta: parts.meta.clone(),
        parts,
        catalog_hash: catalog_hash.to_owned(),
    })
}

/// Decodes the metadata parts of a planned file (`&file[plan.meta]`), on several threads.
///
/// Fails with [`DecodeError::Body`] when they do not decode. The result must not be served
/// before [`finish`] has checked the hash.
pub fn decode_planned_meta(meta: &[u8]) -> Result<Meta, DecodeError> {
    meta::decode(meta)
}

/// Completes the open of a planned file: checks `body_hash` (blake3 of `&file[plan.hashed]`,
/// computed by the caller while reading) against the recorded hash, then points the decoded
/// metadata's bodies at `file`, which is cut back to bodies and index. The same checks, in the
/// same order, as [`super::decode_owned`]: a tampered file is refused even when its metadata
/// decodes.
pub fn finish(
    file: Vec<u8>,
    plan: &Plan,
    body_hash: &blake3::Hash,
    meta: Result<Meta, DecodeError>,
) -> Result<Catalog, DecodeError> {
    let actual = body_hash.to_hex().to_string();
    if actual != plan.catalog_hash {
        return Err(DecodeError::HashMismatch { expected: plan.catalog_hash.clone(), actual });
    }
    let meta = meta?;
    attach(meta, &cut_back(file, &plan.parts), &plan.parts)
}
