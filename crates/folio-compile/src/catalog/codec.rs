//! Catalog ⇄ bytes: `catalog.msgpack` (what the server loads) and `manifest.json` (what a PR
//! diff shows), and the integrity check that refuses a truncated, corrupted or tampered file.
//!
//! This file holds the layout, the envelope and the two entry points that write a whole
//! catalog ([`encode`], [`hash_of`]); each other part lives in a module of its own:
//!
//! | module | owns |
//! | --- | --- |
//! | `lazy.rs` | [`Lazy`](crate::catalog::Lazy), the fields decoded on first read, and bounded msgpack decoding |
//! | `writer.rs` | [`Writer`], the one way a catalog is written, and the envelope's bytes |
//! | `meta.rs` | the metadata parts and the tail that locates the body's areas |
//! | `decode.rs` | opening a file held in memory, [`DecodeError`], the parallel hash |
//! | `plan.rs` | the overlapped open of a large file ([`plan`], [`finish`]) |
//! | `manifest.rs` | `manifest.json` |
//!
//! Entry bodies and the search index's bytes are [`bytes::Bytes`]: ranges of the one buffer
//! the file was read into (or of the `&'static` bytes embedded in the binary), so opening a
//! catalog copies no body and cloning one copies nothing.
//!
//! # Layout (format version 11; the written spec is `content/docs/reference/catalog-format.md`)
//!
//! `catalog.msgpack` is a msgpack map with named fields:
//! `{format: "folio-catalog", version: u32, catalog_hash: hex, body: bin32}`, where
//! `catalog_hash` is blake3 of `meta`, `bodies_len` and `search_len` (the end of the file).
//! `meta` records every entry's blake3 and the search index's, so the one hash commits to every
//! byte while open hashes only the metadata: each entry's bytes and the index are checked
//! against their own hash when first served ([`Entry::body`](crate::catalog::Entry::body),
//! [`SearchIndex::verify`](crate::catalog::search::SearchIndex::verify)). Keeping the envelope
//! tiny means a reader checks the magic and version before it reads anything large; its fixed size (the body's length is
//! always a `bin32` header) lets a writer put a placeholder first and the real envelope last.
//! `body` is:
//!
//! ```text
//! bodies:     every entry's exact bytes, concatenated in `source_order` of their paths (the
//!             order the compiler reads files in); the metadata holds each entry's offset
//! search:     the search index's byte area
//! meta:       `Catalog` without bodies or postings, as independent positional msgpack parts
//!             (the head, then the docs in slices) that decode on parallel threads
//! bodies_len: u64 little-endian
//! search_len: u64 little-endian
//! ```
//!
//! The order serves the writer: `folio build` appends each file's bytes as the compiler reads
//! them ([`Writer`]), and learns the lengths and the metadata only at the end, so they come
//! last. Bodies live outside the msgpack metadata so that opening a catalog
//! never copies them; the metadata comes after the bodies and index so that an owned buffer is
//! cut back to them once it is decoded. Inside the metadata, each doc's and skill's heavy
//! fields (outline, links, backlinks, extra frontmatter) are msgpack `bin`s holding their own
//! msgpack, kept undecoded until a detail, section or snippet read needs them ([`Lazy`](crate::catalog::Lazy)), so an
//! open decodes only what listing, search and resolve use. Verification hashes the metadata
//! (on two threads with blake3's subtree API when it is large, bit-identical to
//! `blake3::hash`) while it decodes.
//!
//! A reader of a large file need not have it all before decoding: [`plan`] finds the parts from
//! the first and last bytes, so the metadata can be decoded ([`decode_planned_meta`]) while the
//! bodies are still being read, and [`finish`] then applies the same checks as
//! [`decode_owned`].
//!
//! The hash proves only that the metadata is the one the envelope names; a decoded catalog is then
//! checked for consistency (the catalog's `consistency` module) before it is handed out, so a file whose
//! tables were edited and whose hash was recomputed is refused too, and a lazily decoded field
//! that does not decode is an error when it is read ([`Lazy::get`](crate::catalog::Lazy::get)). Nothing may follow the
//! body.
//!
//! This module performs no IO: callers read and write the bytes.

mod decode;
mod envelope;
mod error;
pub(crate) mod lazy;
mod manifest;
mod meta;
mod plan;
mod writer;

use serde::{Deserialize, Serialize};

pub use decode::{catalog_hash, decode, decode_owned, decode_shared, decode_static, hash};
pub use envelope::{PLAN_PREFIX, check_envelope};
pub use error::DecodeError;
pub use manifest::manifest;
pub use meta::Meta;
pub use plan::{PLAN_SUFFIX, Plan, decode_planned_meta, finish, plan};
pub use writer::{MAX_FILE_BYTES, STAGE_BYTES, Writer, source_order};

use super::Catalog;

/// The `format` field every catalog file starts with.
pub(crate) const FORMAT_NAME: &str = "folio-catalog";

/// The two files of a written catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// Contents of `catalog.msgpack`.
    pub msgpack: Vec<u8>,
    /// Contents of `manifest.json` (pretty, trailing newline).
    pub manifest: String,
    /// blake3 of the catalog body, hex.
    pub catalog_hash: String,
}

/// The envelope as `rmp_serde` reads it (and, in tests, writes it): [`writer`] writes the same
/// bytes field by field, with the body's length always a `bin32`.
#[derive(Serialize, Deserialize)]
struct Envelope<'a> {
    format: &'a str,
    version: u32,
    catalog_hash: &'a str,
    #[serde(borrow, with = "borrowed_bytes")]
    body: &'a [u8],
}

/// Encodes a catalog into its two files, with the [`Writer`] `folio build` streams to.
/// Deterministic: the same catalog gives the same bytes.
pub fn encode(catalog: &Catalog) -> Encoded {
    assert!(
        catalog.entries.iter().all(|e| e.bytes.len() as u64 == e.size),
        "encode needs every entry's bytes: a catalog compiled while its bodies were streamed is \
         finished by the Writer it streamed them to"
    );
    let bodies: u64 = catalog.entries.iter().map(|e| e.size).sum();
    let capacity = usize::try_from(bodies).unwrap_or(0).saturating_add(catalog.search.data.len() + (1 << 16));
    // Writing to a Vec fails only past msgpack's 4 GiB limit, which no tree under the
    // compiler's per-file limit of practical size reaches.
    let (out, catalog_hash) =
        write(catalog, std::io::Cursor::new(Vec::with_capacity(capacity))).expect("catalog body under 4 GiB");
    let manifest = manifest(catalog, &catalog_hash);
    Encoded { msgpack: out.into_inner(), manifest, catalog_hash }
}

/// The catalog hash [`encode`] would record, computed without keeping the bytes.
pub fn hash_of(catalog: &Catalog) -> String {
    write(catalog, writer::Discard::default()).expect("discarding never fails").1
}

/// Writes every entry's bytes and the rest of `catalog` to `out` through a [`Writer`].
fn write<W: std::io::Write + std::io::Seek>(catalog: &Catalog, out: W) -> std::io::Result<(W, String)> {
    let mut writer = Writer::new(out)?;
    for i in writer::body_order(catalog) {
        let entry = &catalog.entries[i];
        writer.body(&entry.path, &entry.bytes)?;
    }
    writer.finish(catalog)
}

/// Serializes a borrowed `&[u8]` as a msgpack `bin` and reads it back without copying.
mod borrowed_bytes {
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(bytes: &&[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<&'de [u8], D::Error> {
        <&'de [u8] as serde::Deserialize<'de>>::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests;
