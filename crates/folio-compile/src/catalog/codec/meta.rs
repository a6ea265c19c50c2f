//! The metadata parts of a catalog body, and where the body's areas lie: the catalog without
//! its bodies or index bytes, as independent positional msgpack parts (the head, then the docs
//! in slices) that encode and decode on parallel threads, and the 16-byte tail of lengths that
//! locates the bodies, the index and the metadata.
//!
//! Must not: check hashes or decide what is trusted (that is `decode.rs`), or do IO.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::error::DecodeError;
use super::lazy::{META_DEPTH, from_slice_bounded};
use crate::catalog::vectors::Vectors;
use crate::catalog::{Catalog, Doc, Entry, SearchIndex, Settings, Skill};

/// Number of parts the docs are split into, so their metadata decodes on several threads.
const DOC_PARTS: usize = 4;

/// About how many bytes of a metadata part [`encode_seq`] puts in one piece.
pub(super) const PIECE: usize = 1 << 20;

/// Bytes of the body's tail: the lengths of the bodies and of the search index, u64 LE each.
/// They come last because the bodies are written (and hashed) before either is known.
pub(super) const TAIL: usize = 16;

/// The catalog without its docs: the first metadata part.
#[derive(Serialize)]
struct Head<'a> {
    settings: &'a Settings,
    source_fingerprint: &'a str,
    entries: &'a [Entry],
    /// Per entry: where its bytes start in the body area (bodies are in `source_order`).
    offsets: &'a [u64],
    skills: &'a [Skill],
    search: &'a SearchIndex,
    vectors: &'a Option<Vectors>,
}

#[derive(Deserialize)]
struct HeadOwned {
    settings: Settings,
    source_fingerprint: String,
    entries: Vec<Entry>,
    offsets: Vec<u64>,
    skills: Vec<Skill>,
    search: SearchIndex,
    vectors: Option<Vectors>,
}

/// Encodes the metadata as independent parts (`u32` count, `u64` length of each, then the
/// parts): the head, then the docs in [`DOC_PARTS`] contiguous slices. Each part is positional
/// msgpack, encoded on its own thread and decoded on its own thread at open. Returned as pieces
/// to write in order: a part is built in pieces of about [`PIECE`] bytes rather than one `Vec`
/// grown by doubling, whose reallocations (each a copy into fresh pages) took most of the time.
pub(super) fn encode(catalog: &Catalog, search: &SearchIndex, offsets: &[u64]) -> Vec<Vec<u8>> {
    let head = Head {
        settings: &catalog.settings,
        source_fingerprint: &catalog.source_fingerprint,
        entries: &catalog.entries,
        offsets,
        skills: &catalog.skills,
        search,
        vectors: &catalog.vectors,
    };
    let per_part = catalog.docs.len().div_ceil(DOC_PARTS).max(1);
    let parts: Vec<Vec<Vec<u8>>> = std::thread::scope(|scope| {
        let docs: Vec<_> =
            catalog.docs.chunks(per_part).map(|chunk| scope.spawn(move || encode_seq(chunk))).collect();
        let head = vec![rmp_serde::to_vec(&head).expect("catalog types always serialize")];
        // Encoding does not panic; if it ever did, re-raise it here.
        std::iter::once(head).chain(docs.into_iter().map(crate::parallel::join)).collect()
    });
    let mut header = Vec::with_capacity(4 + 8 * parts.len());
    header.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    for part in &parts {
        header.extend_from_slice(&(part.iter().map(Vec::len).sum::<usize>() as u64).to_le_bytes());
    }
    std::iter::once(header).chain(parts.into_iter().flatten()).collect()
}

/// `items` as the msgpack array `rmp_serde::to_vec(items)` writes, in pieces of about [`PIECE`]
/// bytes (an item is never split).
pub(super) fn encode_seq<T: Serialize>(items: &[T]) -> Vec<Vec<u8>> {
    let fresh = || Vec::with_capacity(PIECE + PIECE / 4);
    let mut pieces = Vec::new();
    let mut piece = fresh();
    // The array header, in the shortest form (as `rmp_serde` writes it). Writing to a `Vec`
    // does not fail.
    let len = u32::try_from(items.len()).expect("fewer than 2^32 items");
    let _ = rmp::encode::write_array_len(&mut piece, len);
    for item in items {
        rmp_serde::encode::write(&mut piece, item).expect("catalog types always serialize");
        if piece.len() >= PIECE {
            pieces.push(std::mem::replace(&mut piece, fresh()));
        }
    }
    pieces.push(piece);
    pieces
}

/// The decoded metadata of a catalog file, before its bodies are attached
/// ([`super::finish`]).
#[derive(Debug)]
pub struct Meta {
    pub(super) catalog: Catalog,
    /// Per entry: where its bytes start in the body area.
    pub(super) offsets: Vec<u64>,
}

/// Decodes the parts written by [`encode`], each on its own thread.
pub(super) fn decode(meta: &[u8]) -> Result<Meta, DecodeError> {
    let bad = |why: &str| DecodeError::Body(format!("metadata {why}"));
    let count = meta.get(..4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize);
    let count =
        count.filter(|&n| (1..=1 + DOC_PARTS).contains(&n)).ok_or_else(|| bad("part count is invalid"))?;
    let mut at = 4 + 8 * count;
    let mut ranges = Vec::with_capacity(count);
    for i in 0..count {
        let len = meta.get(4 + 8 * i..12 + 8 * i).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        let end = len.and_then(|n| usize::try_from(n).ok()).and_then(|n| at.checked_add(n));
        let end = end.filter(|&e| e <= meta.len()).ok_or_else(|| bad("part extends beyond the body"))?;
        ranges.push(at..end);
        at = end;
    }
    if at != meta.len() {
        return Err(bad("has trailing bytes"));
    }
    // Decode errors can quote what they found (a string of the file): shown escaped and cut.
    let body_error =
        |e: rmp_serde::decode::Error| DecodeError::Body(crate::catalog::consistency::shown(&e.to_string()));
    std::thread::scope(|scope| {
        let docs: Vec<_> = ranges[1..]
            .iter()
            .map(|r| {
                let part = &meta[r.clone()];
                scope.spawn(move || from_slice_bounded::<Vec<Doc>>(part, META_DEPTH))
            })
            .collect();
        let head: HeadOwned = from_slice_bounded(&meta[ranges[0].clone()], META_DEPTH).map_err(body_error)?;
        let mut all_docs = Vec::new();
        for part in docs {
            all_docs.extend(crate::parallel::join(part).map_err(body_error)?);
        }
        if head.offsets.len() != head.entries.len() {
            return Err(bad("has an offset count that differs from the entry count"));
        }
        let catalog = Catalog {
            settings: head.settings,
            source_fingerprint: head.source_fingerprint,
            entries: head.entries,
            docs: all_docs,
            skills: head.skills,
            search: head.search,
            vectors: head.vectors,
        };
        Ok(Meta { catalog, offsets: head.offsets })
    })
}

/// The areas of a body (see [`parts`]), as ranges of the body or, once shifted, of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Parts {
    pub(super) bodies: Range<usize>,
    pub(super) search: Range<usize>,
    pub(super) meta: Range<usize>,
}

impl Parts {
    pub(super) fn shifted(self, by: usize) -> Parts {
        let shift = |r: Range<usize>| r.start + by..r.end + by;
        Parts { bodies: shift(self.bodies), search: shift(self.search), meta: shift(self.meta) }
    }
}

/// Where the areas of a body lie, from its length and its tail: the entry bodies, the search
/// index and the metadata, as ranges of the body. `None` when the tail is missing or its
/// lengths do not fit the body.
pub(super) fn parts(body_len: usize, tail: &[u8]) -> Option<Parts> {
    let tail: &[u8; TAIL] = tail.try_into().ok()?;
    let length =
        |at: usize| usize::try_from(u64::from_le_bytes(tail[at..at + 8].try_into().expect("8 bytes")));
    let (bodies, search) = (length(0).ok()?, length(8).ok()?);
    let meta_end = body_len.checked_sub(TAIL)?;
    let search_end = bodies.checked_add(search).filter(|&end| end <= meta_end)?;
    Some(Parts { bodies: 0..bodies, search: bodies..search_end, meta: search_end..meta_end })
}
