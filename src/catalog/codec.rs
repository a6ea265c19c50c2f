//! Catalog ⇄ bytes: `catalog.msgpack` (what the server loads) and `manifest.json` (what a PR
//! diff shows), and the integrity check that refuses a truncated, corrupted or tampered file.
//!
//! # Layout (format version 7)
//!
//! `catalog.msgpack` is a msgpack map with named fields:
//! `{format: "folio-catalog", version: u32, catalog_hash: hex, body: bin32}`, where
//! `catalog_hash` is blake3 of `body`. Keeping the envelope tiny means a reader checks the magic,
//! version and hash before it decodes anything large; its fixed size (the body's length is
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
//! them ([`Writer`]), hashing as it goes, and learns the lengths and the metadata only at the
//! end, so they come last. Bodies live outside the msgpack metadata so that opening a catalog
//! never copies them: each [`Body`] of a decoded catalog is a range of the one buffer the file
//! was read into (or of the `&'static` bytes embedded in the binary); the metadata comes after
//! the bodies and index so that an owned buffer is cut back to them once it is decoded. Inside
//! the metadata, each doc's and skill's heavy fields (outline, links, backlinks, extra
//! frontmatter) are msgpack `bin`s holding their own msgpack, kept undecoded until a detail,
//! section or snippet read needs them ([`Lazy`]), so an open decodes only what listing, search
//! and resolve use. Verification hashes `body` on two threads with blake3's subtree API
//! (bit-identical to `blake3::hash(body)`) while the metadata decodes.
//!
//! A reader of a large file need not have it all before decoding: [`plan`] finds the parts from
//! the first and last bytes, so the metadata can be decoded ([`decode_planned_meta`]) while the
//! bodies are still being read and hashed, and [`finish`] then applies the same checks as
//! [`decode_owned`].
//!
//! The hash proves only that the body is the one the envelope names; a decoded catalog is then
//! checked for consistency ([`super::consistency`]) before it is handed out, so a file whose
//! tables were edited and whose hash was recomputed is refused too. Nothing may follow the body.
//!
//! This module performs no IO: callers read and write the bytes.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Catalog, Entry, EntryKind, FORMAT_VERSION};
use crate::lookup::LookupMap;

/// The `format` field every catalog file starts with.
pub const FORMAT_NAME: &str = "folio-catalog";

/// Immutable bytes shared cheaply between clones: an entry's body or the search index's byte area.
///
/// A decoded catalog's bodies are ranges of one buffer (owned behind an `Arc`, or `'static`
/// when embedded), so cloning or slicing a `Body` never copies bytes.
#[derive(Clone, Default)]
pub struct Body {
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    Static(&'static [u8]),
    Shared(Arc<Vec<u8>>, Range<usize>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::Static(&[])
    }
}

impl Body {
    /// Bytes borrowed for the life of the program (e.g. embedded with `include_bytes!`).
    pub fn from_static(bytes: &'static [u8]) -> Self {
        Body { repr: Repr::Static(bytes) }
    }

    /// The bytes as a slice.
    pub fn as_slice(&self) -> &[u8] {
        match &self.repr {
            Repr::Static(bytes) => bytes,
            Repr::Shared(buf, range) => &buf[range.clone()],
        }
    }

    /// A sub-range of these bytes, sharing the same buffer. Returns `None` when out of bounds.
    pub fn slice(&self, range: Range<usize>) -> Option<Body> {
        if range.start > range.end || range.end > self.len() {
            return None;
        }
        Some(Body {
            repr: match &self.repr {
                Repr::Static(bytes) => Repr::Static(&bytes[range]),
                Repr::Shared(buf, own) => {
                    Repr::Shared(Arc::clone(buf), own.start + range.start..own.start + range.end)
                }
            },
        })
    }
}

impl Deref for Body {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for Body {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Self {
        let len = bytes.len();
        Body { repr: Repr::Shared(Arc::new(bytes), 0..len) }
    }
}

impl From<&'static [u8]> for Body {
    fn from(bytes: &'static [u8]) -> Self {
        Body::from_static(bytes)
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Body) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Body {}

// Comparisons with plain byte slices and vectors, so code written against `Vec<u8>` bodies (and
// its tests) keeps working.
impl PartialEq<[u8]> for Body {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<&[u8]> for Body {
    fn eq(&self, other: &&[u8]) -> bool {
        self.as_slice() == *other
    }
}

impl<const N: usize> PartialEq<&[u8; N]> for Body {
    fn eq(&self, other: &&[u8; N]) -> bool {
        self.as_slice() == &other[..]
    }
}

impl PartialEq<Vec<u8>> for Body {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.as_slice() == &other[..]
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Body({} bytes)", self.len())
    }
}

/// A record's heavy metadata (outline, links, backlinks, extra frontmatter): decoded only
/// when a detail, section or search-snippet read first asks for it, then kept.
///
/// Opening a catalog decodes only what listing, search and resolve need; these fields stay the
/// raw positional msgpack they were written as (one small copy per field, no per-string
/// allocation) until first dereferenced. A catalog built in memory holds the value directly.
/// In msgpack the field is a `bin` holding the value's own msgpack, so re-encoding a decoded
/// catalog gives the same bytes; human-readable formats (JSON) see the plain value.
///
/// The raw bytes were verified with the rest of the body at open; should they still not
/// decode (a forged `catalog_hash`, or a bug), the field reads as empty instead of panicking.
///
/// The value is boxed: an open catalog holds four of these per doc and skill, nearly all still
/// raw, so the cell costs one pointer rather than the size of the value. A field whose msgpack
/// is the default value's (an empty list or map, most backlinks and extra frontmatter) holds
/// neither bytes nor a value until it is first read.
pub struct Lazy<T> {
    value: std::sync::OnceLock<Box<T>>,
    raw: Option<Box<[u8]>>,
}

impl<T> Lazy<T> {
    /// A field holding `value` (already decoded).
    pub fn new(value: T) -> Self {
        Lazy { value: std::sync::OnceLock::from(Box::new(value)), raw: None }
    }

    /// A field still in its msgpack form, decoded on first use.
    fn from_raw(raw: Box<[u8]>) -> Self {
        Lazy { value: std::sync::OnceLock::new(), raw: Some(raw) }
    }

    /// A field holding the default value, materialised on first use.
    fn empty() -> Self {
        Lazy { value: std::sync::OnceLock::new(), raw: None }
    }
}

impl<T: serde::de::DeserializeOwned + Default> Lazy<T> {
    /// The decoded value, decoding it now if this is its first use. An associated function,
    /// not a method, so it never shadows a method of `T` (`extra.get(key)`).
    pub fn force(this: &Self) -> &T {
        this.value.get_or_init(|| {
            Box::new(match &this.raw {
                Some(raw) => from_slice_bounded(raw, LAZY_DEPTH).unwrap_or_default(),
                None => T::default(),
            })
        })
    }
}

impl<T: serde::de::DeserializeOwned + Default> Deref for Lazy<T> {
    type Target = T;

    fn deref(&self) -> &T {
        Lazy::force(self)
    }
}

impl<T: serde::de::DeserializeOwned + Default> std::ops::DerefMut for Lazy<T> {
    fn deref_mut(&mut self) -> &mut T {
        Lazy::force(self);
        // The value may change now: the raw form no longer describes it.
        self.raw = None;
        self.value.get_mut().expect("initialised just above")
    }
}

// `for section in &doc.outline` keeps working as it did on a plain `Vec`.
impl<'a, T: serde::de::DeserializeOwned + Default> IntoIterator for &'a Lazy<T>
where
    &'a T: IntoIterator,
{
    type Item = <&'a T as IntoIterator>::Item;
    type IntoIter = <&'a T as IntoIterator>::IntoIter;

    fn into_iter(self) -> Self::IntoIter {
        Lazy::force(self).into_iter()
    }
}

impl<T> From<T> for Lazy<T> {
    fn from(value: T) -> Self {
        Lazy::new(value)
    }
}

impl<T: Default> Default for Lazy<T> {
    fn default() -> Self {
        Lazy::empty()
    }
}

impl<T: Clone> Clone for Lazy<T> {
    fn clone(&self) -> Self {
        Lazy { value: self.value.clone(), raw: self.raw.clone() }
    }
}

impl<T: serde::de::DeserializeOwned + Default + PartialEq> PartialEq for Lazy<T> {
    fn eq(&self, other: &Self) -> bool {
        Lazy::force(self) == Lazy::force(other)
    }
}

impl<T: serde::de::DeserializeOwned + Default + Eq> Eq for Lazy<T> {}

impl<T: serde::de::DeserializeOwned + Default + fmt::Debug> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Lazy::force(self).fmt(f)
    }
}

impl<T: Serialize + serde::de::DeserializeOwned + Default> Serialize for Lazy<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            return Lazy::force(self).serialize(serializer);
        }
        match (&self.raw, self.value.get()) {
            // Still raw: written back unchanged (these bytes came from encoding the value).
            (Some(raw), _) => serializer.serialize_bytes(raw),
            (None, Some(value)) => with_scratch(|bytes| {
                rmp_serde::encode::write(bytes, &**value).map_err(serde::ser::Error::custom)?;
                serializer.serialize_bytes(bytes)
            }),
            (None, None) => with_scratch(|bytes| {
                rmp_serde::encode::write(bytes, &T::default()).map_err(serde::ser::Error::custom)?;
                serializer.serialize_bytes(bytes)
            }),
        }
    }
}

/// How deeply the catalog's own msgpack may nest: its types are a few levels deep, so this
/// bounds only what a forged file could add (an unknown field's value is skipped recursively).
const META_DEPTH: usize = 32;

/// How deeply a [`Lazy`] field's msgpack may nest: frontmatter rendered as JSON is the deepest
/// (the compiler refuses YAML nested more than 64 levels), with room to spare.
const LAZY_DEPTH: usize = 160;

/// `rmp_serde::from_slice`, refusing msgpack nested deeper than `depth`. Decoding recurses once
/// per level, so a forged catalog of deeply nested arrays would otherwise overflow the stack of
/// the thread decoding it (2 MiB for a spawned thread) and abort the process.
fn from_slice_bounded<'de, T: Deserialize<'de>>(
    bytes: &'de [u8],
    depth: usize,
) -> Result<T, rmp_serde::decode::Error> {
    let mut deserializer = rmp_serde::Deserializer::from_read_ref(bytes);
    deserializer.set_max_depth(depth);
    T::deserialize(&mut deserializer)
}

/// Calls `f` with an empty buffer that keeps its capacity between calls on this thread. A
/// [`Lazy`] value must be encoded before its length can be written; a fresh `Vec`, grown by
/// doubling, for each of a large catalog's hundred thousand lazy fields was most of the time
/// spent encoding them. A nested call (a lazy value inside one) gets a buffer of its own.
fn with_scratch<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    thread_local! {
        static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut bytes = SCRATCH.take();
    bytes.clear();
    let out = f(&mut bytes);
    // A rare huge value's buffer is not kept for the thread's lifetime.
    if bytes.capacity() <= 1 << 20 {
        SCRATCH.set(bytes);
    }
    out
}

impl<'de, T: serde::de::DeserializeOwned + Default + PartialEq> Deserialize<'de> for Lazy<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Raw;
        impl<'de> serde::de::Visitor<'de> for Raw {
            type Value = Box<[u8]>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("msgpack bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
                Ok(v.into())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
                Ok(v.into_boxed_slice())
            }
        }
        if deserializer.is_human_readable() {
            return T::deserialize(deserializer).map(Lazy::new);
        }
        let raw = deserializer.deserialize_bytes(Raw)?;
        // A one-byte value is an empty vector or map (most backlinks and extra frontmatter):
        // decoding it allocates nothing, keeping its bytes would cost an allocation. The
        // default value is not even stored: `force` makes it on first use, and it encodes to
        // these same bytes.
        if raw.len() == 1
            && let Ok(value) = rmp_serde::from_slice::<T>(&raw)
        {
            return Ok(if value == T::default() { Lazy::empty() } else { Lazy::new(value) });
        }
        Ok(Lazy::from_raw(raw))
    }
}

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
    /// The body does not hash to the recorded `catalog_hash`.
    HashMismatch {
        /// Hash recorded in the envelope.
        expected: String,
        /// Hash of the body as read.
        actual: String,
    },
    /// The body hashed correctly but does not decode (a bug, or a forged hash).
    Body(String),
    /// The body decodes, but its tables contradict each other (a forged hash): an index out of
    /// range, a table out of order (see [`super::consistency`]).
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
                "catalog is corrupted or was modified: body hashes to {actual}, manifest says \
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

#[derive(Serialize, Deserialize)]
struct Envelope<'a> {
    format: &'a str,
    version: u32,
    catalog_hash: &'a str,
    #[serde(borrow, with = "borrowed_bytes")]
    body: &'a [u8],
}

/// Encodes a catalog into its two files. Deterministic: the same catalog gives the same bytes.
///
/// Holds the whole file in memory; [`write()`] streams the same bytes to a file instead.
pub fn encode(catalog: &Catalog) -> Encoded {
    assert!(
        catalog.entries.iter().all(|e| e.bytes.len() as u64 == e.size),
        "encode needs every entry's bytes: a catalog compiled while its bodies were streamed is \
         finished by the Writer it streamed them to"
    );
    let bodies: u64 = catalog.entries.iter().map(|e| e.size).sum();
    let capacity = usize::try_from(bodies).unwrap_or(0).saturating_add(catalog.search.data.len() + (1 << 16));
    let mut out = std::io::Cursor::new(Vec::with_capacity(capacity));
    // Writing to a Vec fails only past msgpack's 4 GiB limit, which no tree under the
    // compiler's per-file limit of practical size reaches.
    let catalog_hash = write(catalog, &mut out).expect("catalog body under 4 GiB");
    let manifest = manifest_json(catalog, &catalog_hash);
    Encoded { msgpack: out.into_inner(), manifest, catalog_hash }
}

/// Writes `catalog.msgpack` to `out`: the bytes [`encode`] returns, without assembling them.
/// Returns the catalog hash, for [`manifest`]. `out` must seek back to where it started (see
/// [`Writer`]).
pub fn write<W: std::io::Write + std::io::Seek>(catalog: &Catalog, out: &mut W) -> std::io::Result<String> {
    let mut writer = Writer::new(out)?;
    for i in body_order(catalog) {
        let entry = &catalog.entries[i];
        writer.body(&entry.path, &entry.bytes)?;
    }
    Ok(writer.finish(catalog)?.1)
}

/// The catalog hash [`encode`] would record, computed without keeping the bytes.
pub fn hash_of(catalog: &Catalog) -> String {
    write(catalog, &mut Discard::default()).expect("discarding never fails")
}

/// How entry bodies are ordered in the body area: by path, compared component by component
/// (`docs/a/x.md` before `docs/a-b.md`). That is the order of a walk sorted by file name,
/// which is the order the compiler reads files in, so `folio build` writes each body as soon
/// as it is read.
pub fn source_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/').cmp(b.split('/'))
}

/// Entry indices in body order ([`source_order`] of their paths).
fn body_order(catalog: &Catalog) -> Vec<usize> {
    let mut order: Vec<usize> = (0..catalog.entries.len()).collect();
    order.sort_by(|&a, &b| source_order(&catalog.entries[a].path, &catalog.entries[b].path));
    order
}

/// Writes `catalog.msgpack` front to back while the entry bodies are still being produced:
/// `folio build` hands each file's bytes to [`Writer::body`] as the compiler reads it (in
/// [`source_order`]), so the bodies are neither kept in memory nor read twice, and
/// [`Writer::finish`] adds the search index and the metadata once the catalog is assembled.
///
/// The envelope comes first in the file but holds the hash and length of everything after it,
/// so it is written as a placeholder of the same length and rewritten at the end: `out` must
/// seek back to where it started. The body is hashed as it is written.
pub struct Writer<W: std::io::Write + std::io::Seek> {
    out: W,
    /// Where the envelope starts in `out`.
    start: u64,
    /// blake3 of the body so far (but for `staged`).
    hasher: blake3::Hasher,
    /// Bodies not yet written or hashed, gathered into blocks of exactly [`STAGE_BYTES`]:
    /// blake3 hashes a megabyte across all of its SIMD lanes, where a body of a few kilobytes
    /// fills a few and leaves a partial chunk at each seam; and a write of a whole block goes
    /// past a `BufWriter` of at most that capacity without being copied into it. (A block a
    /// little short of a megabyte was copied into `folio build`'s 1 MiB buffer first: every
    /// body copied once more.)
    staged: Vec<u8>,
    /// Path and length of each body written, in order.
    written: Vec<(String, u64)>,
    /// Bytes of bodies written.
    bodies_len: u64,
    /// The most bytes the body may hold: [`BIN_LIMIT`] (smaller in tests, which cannot write
    /// 4 GiB).
    limit: u64,
}

/// The most bytes a msgpack `bin` holds (its length is a `u32`).
const BIN_LIMIT: u64 = u32::MAX as u64;

/// Bytes of the envelope before the body ([`envelope_head`] always writes this many).
const ENVELOPE_HEAD_BYTES: u64 = 120;

/// The largest `catalog.msgpack` there can be: the envelope and a body as large as a msgpack
/// `bin` holds (4 GiB). A reader refuses a larger file before reading any of it.
pub const MAX_FILE_BYTES: u64 = ENVELOPE_HEAD_BYTES + BIN_LIMIT;

/// How many bytes of bodies [`Writer`] gathers before it writes and hashes them: its writes of
/// bodies are whole multiples of this, but for the last.
pub const STAGE_BYTES: usize = 1 << 20;

impl<W: std::io::Write + std::io::Seek> Writer<W> {
    /// Starts a catalog file at `out`'s position with a placeholder envelope. A buffered `out`
    /// should hold at most [`STAGE_BYTES`], so that blocks of bodies go past its buffer.
    pub fn new(mut out: W) -> std::io::Result<Writer<W>> {
        let start = out.stream_position()?;
        out.write_all(&envelope_head(&"0".repeat(64), 0)?)?;
        Ok(Writer {
            out,
            start,
            hasher: blake3::Hasher::new(),
            staged: Vec::new(),
            written: Vec::new(),
            bodies_len: 0,
            limit: BIN_LIMIT,
        })
    }

    /// Appends the bytes of the entry at `path`. Entries come in [`source_order`] of their
    /// paths; one out of order fails with [`std::io::ErrorKind::InvalidInput`] (a bug in the
    /// caller: the catalog's offsets are derived from that order). Fails with
    /// [`std::io::ErrorKind::InvalidData`] once the bodies would pass msgpack's 4 GiB limit.
    /// Bodies are written a megabyte at a time, so an error writing to `out` may come from a
    /// later call, or from [`Writer::finish`].
    pub fn body(&mut self, path: &str, bytes: &[u8]) -> std::io::Result<()> {
        if let Some((last, _)) = self.written.last()
            && source_order(last, path) != std::cmp::Ordering::Less
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("catalog bodies out of order: `{path}` after `{last}`"),
            ));
        }
        // Refused as soon as the bodies alone pass msgpack's limit, not after writing them all.
        let bodies_len = self.bodies_len + bytes.len() as u64;
        if bodies_len > self.limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the catalog's files come to {bodies_len} bytes, more than the {} bytes a catalog \
                     can hold (msgpack's 4 GiB limit); move large files out of the content tree",
                    self.limit
                ),
            ));
        }
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.staged.is_empty() && rest.len() >= STAGE_BYTES {
                // Whole blocks of a large body go out from where they are.
                let (blocks, tail) = rest.split_at(rest.len() - rest.len() % STAGE_BYTES);
                self.out.write_all(blocks)?;
                self.hasher.update(blocks);
                rest = tail;
                continue;
            }
            if self.staged.capacity() == 0 {
                self.staged.reserve_exact(STAGE_BYTES);
            }
            let (now, later) = rest.split_at(rest.len().min(STAGE_BYTES - self.staged.len()));
            self.staged.extend_from_slice(now);
            rest = later;
            if self.staged.len() == STAGE_BYTES {
                self.write_staged()?;
            }
        }
        self.written.push((path.to_owned(), bytes.len() as u64));
        self.bodies_len = bodies_len;
        Ok(())
    }

    /// Writes the search index, the metadata and the lengths, then the real envelope. Returns
    /// `out` (positioned at the end of the file) and the catalog hash.
    ///
    /// Fails with [`std::io::ErrorKind::InvalidData`] when the bodies written are not the
    /// catalog's entries (another count, another path, or a length that differs from the
    /// entry's `size`), and when the file would pass msgpack's 4 GiB limit for a `bin`.
    pub fn finish(mut self, catalog: &Catalog) -> std::io::Result<(W, String)> {
        self.write_staged()?;
        self.staged = Vec::new();
        let mismatch = |why: String| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the bodies written do not match the catalog: {why}"),
            )
        };
        let written = std::mem::take(&mut self.written);
        let search = catalog.search.data.as_slice();
        // The offsets are worked out and the metadata encoded (on other threads) while the
        // index is written and hashed here.
        let meta = std::thread::scope(|scope| {
            let meta = scope.spawn(|| {
                let offsets = body_offsets(&catalog.entries, &written).map_err(mismatch)?;
                Ok(encode_meta(catalog, &offsets))
            });
            let wrote = self.out.write_all(search);
            self.hasher.update(search);
            // Encoding does not panic; if it ever did, re-raise it here.
            let meta = meta.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            wrote.and(meta)
        })?;
        let mut tail = [0u8; TAIL];
        tail[..8].copy_from_slice(&self.bodies_len.to_le_bytes());
        tail[8..].copy_from_slice(&(search.len() as u64).to_le_bytes());
        let meta_len: usize = meta.iter().map(Vec::len).sum();
        // The last stretch of the build, on one core: the metadata is hashed on another thread
        // while it is written here.
        let pieces = || meta.iter().map(Vec::as_slice).chain([&tail[..]]);
        let mut hasher = std::mem::take(&mut self.hasher);
        let (hasher, wrote) = std::thread::scope(|scope| {
            let hashed = scope.spawn(move || {
                for piece in pieces() {
                    hasher.update(piece);
                }
                hasher
            });
            let wrote = pieces().try_for_each(|piece| self.out.write_all(piece));
            // Hashing does not panic; if it ever did, re-raise it here.
            (hashed.join().unwrap_or_else(|e| std::panic::resume_unwind(e)), wrote)
        });
        wrote?;
        self.hasher = hasher;
        let body_len = self.bodies_len + (search.len() + meta_len + TAIL) as u64;
        if body_len > self.limit {
            return Err(too_large(body_len, self.limit));
        }
        let body_len = usize::try_from(body_len).map_err(|_| too_large(body_len, self.limit))?;
        let catalog_hash = self.hasher.finalize().to_hex().to_string();
        let envelope = envelope_head(&catalog_hash, body_len)?;
        let end = self.out.stream_position()?;
        self.out.seek(std::io::SeekFrom::Start(self.start))?;
        self.out.write_all(&envelope)?;
        self.out.seek(std::io::SeekFrom::Start(end))?;
        Ok((self.out, catalog_hash))
    }

    /// Writes and hashes the bodies gathered so far.
    fn write_staged(&mut self) -> std::io::Result<()> {
        self.out.write_all(&self.staged)?;
        self.hasher.update(&self.staged);
        self.staged.clear();
        Ok(())
    }
}

/// Where each entry's bytes start among the bodies, given the bodies written (path and
/// length, in the order written). `Err` says why they are not the entries' bodies: another
/// count, another path, or a length that differs from the entry's `size`.
fn body_offsets(entries: &[Entry], written: &[(String, u64)]) -> Result<Vec<u64>, String> {
    if written.len() != entries.len() {
        return Err(format!("{} bodies for {} entries", written.len(), entries.len()));
    }
    // `body` took the bodies in strictly increasing source order, so they are distinct: they
    // are the entries' exactly when each is an entry's path and size. Looked up by path, by
    // hash: sorting the entries by path and binary-searching each body's path took tens of
    // milliseconds of `folio build`'s last, serial stretch on a large tree.
    let by_path: LookupMap<&str, usize> = entries.iter().map(|e| e.path.as_str()).zip(0..).collect();
    let mut offsets = vec![0u64; entries.len()];
    let mut at = 0;
    for (path, size) in written {
        let Some(&i) = by_path.get(path.as_str()) else {
            return Err(format!("`{path}` ({size} bytes) was written, but no entry has that path"));
        };
        if *size != entries[i].size {
            return Err(format!(
                "`{path}` ({size} bytes) was written where `{}` ({} bytes) belongs",
                entries[i].path, entries[i].size
            ));
        }
        offsets[i] = at;
        at += size;
    }
    Ok(offsets)
}

/// A sink that only counts, for [`hash_of`].
#[derive(Default)]
struct Discard {
    at: u64,
    len: u64,
}

impl std::io::Write for Discard {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.at += buf.len() as u64;
        self.len = self.len.max(self.at);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::io::Seek for Discard {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.at = match pos {
            std::io::SeekFrom::Start(at) => at,
            std::io::SeekFrom::End(d) => self.len.saturating_add_signed(d),
            std::io::SeekFrom::Current(d) => self.at.saturating_add_signed(d),
        };
        Ok(self.at)
    }
}

fn too_large(len: u64, limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!(
            "the catalog would be {len} bytes, more than the {limit} bytes a catalog can hold \
             (msgpack's 4 GiB limit); move large files out of the content tree"
        ),
    )
}

/// `manifest.json` for a catalog whose `catalog.msgpack` has `catalog_hash`.
pub fn manifest(catalog: &Catalog, catalog_hash: &str) -> String {
    manifest_json(catalog, catalog_hash)
}

/// `manifest.json` rendered before the catalog's hash is known (while [`Writer::finish`]
/// computes it): every byte but the hash's, which [`ManifestDraft::with_hash`] fills in.
#[derive(Debug)]
pub struct ManifestDraft {
    text: String,
    /// Where the hash's 64 hex digits go in `text`.
    hash_at: usize,
}

/// Stands in for the hash in a [`ManifestDraft`]: as long as a real one.
const HASH_PLACEHOLDER: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Renders `catalog`'s manifest but for its hash.
pub fn manifest_draft(catalog: &Catalog) -> ManifestDraft {
    let text = manifest_json(catalog, HASH_PLACEHOLDER);
    // The first match is the field: only `name` comes before it that is not fixed, and a JSON
    // string escapes every quote in it, so it cannot hold `"catalog_hash": "` unescaped.
    let key = "\"catalog_hash\": \"";
    let hash_at = text.find(key).expect("the manifest has a catalog_hash field") + key.len();
    debug_assert_eq!(&text[hash_at..hash_at + HASH_PLACEHOLDER.len()], HASH_PLACEHOLDER);
    ManifestDraft { text, hash_at }
}

impl ManifestDraft {
    /// The manifest but for its hash (a placeholder as long as it).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where the hash's 64 hex digits go in [`ManifestDraft::text`], in bytes: a manifest
    /// written from the draft is finished by writing the hash there.
    pub fn hash_at(&self) -> usize {
        self.hash_at
    }

    /// The manifest, with `catalog_hash` (64 hex digits, as [`Writer::finish`] returns it):
    /// what [`manifest`] renders.
    pub fn with_hash(mut self, catalog_hash: &str) -> String {
        assert_eq!(catalog_hash.len(), HASH_PLACEHOLDER.len(), "a blake3 hash in hex");
        self.text.replace_range(self.hash_at..self.hash_at + catalog_hash.len(), catalog_hash);
        self.text
    }
}

/// The envelope's bytes up to the body's: what `rmp_serde` writes for an [`Envelope`] holding
/// a body of `body_len` bytes, except that the body's length is always a `bin32` header (5
/// bytes), which msgpack readers accept for any length. A fixed-size envelope is what lets
/// [`Writer`] write a placeholder first and the real one last, for catalogs of any size.
fn envelope_head(catalog_hash: &str, body_len: usize) -> std::io::Result<Vec<u8>> {
    let envelope = Envelope { format: FORMAT_NAME, version: FORMAT_VERSION, catalog_hash, body: &[] };
    let mut head = rmp_serde::to_vec_named(&envelope).expect("envelope always serializes");
    assert_eq!(head.split_off(head.len() - 2), [0xc4, 0x00], "an empty body is a bin8 of length 0");
    let n = u32::try_from(body_len).map_err(|_| too_large(body_len as u64, BIN_LIMIT))?;
    head.push(0xc6);
    head.extend_from_slice(&n.to_be_bytes());
    Ok(head)
}

/// Number of parts the docs are split into, so their metadata decodes on several threads.
const DOC_PARTS: usize = 4;

/// The catalog without its docs: the first metadata part.
#[derive(Serialize)]
struct Head<'a> {
    settings: &'a super::Settings,
    source_fingerprint: &'a str,
    entries: &'a [super::Entry],
    /// Per entry: where its bytes start in the body area (bodies are in [`source_order`]).
    offsets: &'a [u64],
    skills: &'a [super::Skill],
    search: &'a super::SearchIndex,
}

#[derive(Deserialize)]
struct HeadOwned {
    settings: super::Settings,
    source_fingerprint: String,
    entries: Vec<super::Entry>,
    offsets: Vec<u64>,
    skills: Vec<super::Skill>,
    search: super::SearchIndex,
}

/// Encodes the metadata as independent parts (`u32` count, `u64` length of each, then the
/// parts): the head, then the docs in [`DOC_PARTS`] contiguous slices. Each part is positional
/// msgpack, encoded on its own thread and decoded on its own thread at open. Returned as pieces
/// to write in order: a part is built in pieces of about [`PIECE`] bytes rather than one `Vec`
/// grown by doubling, whose reallocations (each a copy into fresh pages) took most of the time.
fn encode_meta(catalog: &Catalog, offsets: &[u64]) -> Vec<Vec<u8>> {
    let head = Head {
        settings: &catalog.settings,
        source_fingerprint: &catalog.source_fingerprint,
        entries: &catalog.entries,
        offsets,
        skills: &catalog.skills,
        search: &catalog.search,
    };
    let per_part = catalog.docs.len().div_ceil(DOC_PARTS).max(1);
    let parts: Vec<Vec<Vec<u8>>> = std::thread::scope(|scope| {
        let docs: Vec<_> =
            catalog.docs.chunks(per_part).map(|chunk| scope.spawn(move || encode_seq(chunk))).collect();
        let head = vec![rmp_serde::to_vec(&head).expect("catalog types always serialize")];
        // Encoding does not panic; if it ever did, re-raise it here.
        std::iter::once(head)
            .chain(docs.into_iter().map(|d| d.join().unwrap_or_else(|e| std::panic::resume_unwind(e))))
            .collect()
    });
    let mut header = Vec::with_capacity(4 + 8 * parts.len());
    header.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    for part in &parts {
        header.extend_from_slice(&(part.iter().map(Vec::len).sum::<usize>() as u64).to_le_bytes());
    }
    std::iter::once(header).chain(parts.into_iter().flatten()).collect()
}

/// About how many bytes of a metadata part [`encode_seq`] puts in one piece.
const PIECE: usize = 1 << 20;

/// `items` as the msgpack array `rmp_serde::to_vec(items)` writes, in pieces of about [`PIECE`]
/// bytes (an item is never split).
fn encode_seq<T: Serialize>(items: &[T]) -> Vec<Vec<u8>> {
    let fresh = || Vec::with_capacity(PIECE + PIECE / 4);
    let mut pieces = Vec::new();
    let mut piece = fresh();
    // The array header, in the shortest form (as `rmp_serde` writes it).
    match items.len() {
        n @ 0..16 => piece.push(0x90 | n as u8),
        n @ 16..=0xffff => {
            piece.push(0xdc);
            piece.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            piece.push(0xdd);
            let n = u32::try_from(n).expect("fewer than 2^32 items");
            piece.extend_from_slice(&n.to_be_bytes());
        }
    }
    for item in items {
        rmp_serde::encode::write(&mut piece, item).expect("catalog types always serialize");
        if piece.len() >= PIECE {
            pieces.push(std::mem::replace(&mut piece, fresh()));
        }
    }
    pieces.push(piece);
    pieces
}

/// The decoded metadata of a catalog file, before its bodies are attached ([`finish`]).
#[derive(Debug)]
pub struct Meta {
    catalog: Catalog,
    /// Per entry: where its bytes start in the body area.
    offsets: Vec<u64>,
}

/// Decodes the parts written by [`encode_meta`], each on its own thread.
fn decode_meta(meta: &[u8]) -> Result<Meta, DecodeError> {
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
        |e: rmp_serde::decode::Error| DecodeError::Body(super::consistency::shown(&e.to_string()));
    std::thread::scope(|scope| {
        let docs: Vec<_> = ranges[1..]
            .iter()
            .map(|r| {
                let part = &meta[r.clone()];
                scope.spawn(move || from_slice_bounded::<Vec<super::Doc>>(part, META_DEPTH))
            })
            .collect();
        let head: HeadOwned = from_slice_bounded(&meta[ranges[0].clone()], META_DEPTH).map_err(body_error)?;
        let mut all_docs = Vec::new();
        for part in docs {
            all_docs.extend(part.join().expect("decoding does not panic").map_err(body_error)?);
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
        };
        Ok(Meta { catalog, offsets: head.offsets })
    })
}

/// Bytes of the body's tail: the lengths of the bodies and of the search index, u64 LE each.
/// They come last because the bodies are written (and hashed) before either is known.
const TAIL: usize = 16;

/// Where the parts of a body lie, from its length and its tail: the entry bodies, the search
/// index and the metadata, as ranges of the body. `None` when the tail is missing or its
/// lengths do not fit the body.
fn parts(body_len: usize, tail: &[u8]) -> Option<Parts> {
    let tail: &[u8; TAIL] = tail.try_into().ok()?;
    let length =
        |at: usize| usize::try_from(u64::from_le_bytes(tail[at..at + 8].try_into().expect("8 bytes")));
    let (bodies, search) = (length(0).ok()?, length(8).ok()?);
    let meta_end = body_len.checked_sub(TAIL)?;
    let search_end = bodies.checked_add(search).filter(|&end| end <= meta_end)?;
    Some(Parts { bodies: 0..bodies, search: bodies..search_end, meta: search_end..meta_end })
}

/// The parts of a body (see [`parts`]), as ranges of the body or, once shifted, of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts {
    bodies: Range<usize>,
    search: Range<usize>,
    meta: Range<usize>,
}

impl Parts {
    fn shifted(self, by: usize) -> Parts {
        let shift = |r: Range<usize>| r.start + by..r.end + by;
        Parts { bodies: shift(self.bodies), search: shift(self.search), meta: shift(self.meta) }
    }
}

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
    let file = Body::from_static(bytes);
    attach(layout.meta?, &file, &layout.parts)
}

/// Decodes and verifies an owned buffer without copying any body: every body of the result is a
/// range of it. The metadata at the end of the buffer is cut off once decoded, so an open catalog
/// holds the file's bodies and search index, not its msgpack twice. Fails like [`decode`].
pub fn decode_owned(mut bytes: Vec<u8>) -> Result<Catalog, DecodeError> {
    let layout = verify(&bytes)?;
    let meta = layout.meta?;
    bytes.truncate(layout.parts.search.end);
    bytes.shrink_to_fit();
    let len = bytes.len();
    let file = Body { repr: Repr::Shared(Arc::new(bytes), 0..len) };
    attach(meta, &file, &layout.parts)
}

/// Where the parts of a catalog file lie, read from its first and last bytes alone, so that a
/// reader can fetch the metadata first and decode it while the bodies are still being read and
/// hashed.
///
/// Only a file shaped exactly as [`encode`] writes it (the envelope fields in order, the body a
/// `bin32` ending the file) has a plan; for anything else [`plan`] gives `None` and the caller
/// decodes the whole file with [`decode_owned`], which names the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The body: the bytes `catalog_hash` covers.
    pub body: Range<usize>,
    /// The metadata parts, near the end of the body (only the lengths follow them).
    pub meta: Range<usize>,
    /// Where the parts lie in the file.
    parts: Parts,
    /// `catalog_hash` as recorded in the envelope.
    pub catalog_hash: String,
}

/// Bytes a reader needs from the start of a file before calling [`plan`]: the envelope.
pub const PLAN_PREFIX: usize = 256;

/// Bytes a reader needs from the end of a file before calling [`plan`]: the body's tail.
pub const PLAN_SUFFIX: usize = TAIL;

/// Reads the [`Plan`] of a file of `file_len` bytes from its first bytes (at least
/// [`PLAN_PREFIX`] of them, or the whole file) and its last [`PLAN_SUFFIX`] bytes. `None` when
/// the file is not laid out exactly as this version writes it.
pub fn plan(prefix: &[u8], suffix: &[u8], file_len: u64) -> Option<Plan> {
    let str_of = |s: &str| rmp_serde::to_vec(s).ok();
    let mut expected = vec![0x84];
    expected.extend(str_of("format")?);
    expected.extend(str_of(FORMAT_NAME)?);
    expected.extend(str_of("version")?);
    expected.extend(rmp_serde::to_vec(&FORMAT_VERSION).ok()?);
    expected.extend(str_of("catalog_hash")?);
    let rest = prefix.strip_prefix(&expected[..])?;
    // The hash: a `str8` of 64 hex digits.
    let (&[0xd9, 64], rest) = rest.split_first_chunk::<2>()? else { return None };
    let (hash, rest) = rest.split_first_chunk::<64>()?;
    let catalog_hash = std::str::from_utf8(hash).ok().filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
    let rest = rest.strip_prefix(&str_of("body")?[..])?;
    let (&[0xc6, a, b, c, d], rest) = rest.split_first_chunk::<5>()? else { return None };
    let body_len = u32::from_be_bytes([a, b, c, d]) as usize;
    let body_start = prefix.len() - rest.len();
    let body_end = body_start.checked_add(body_len)?;
    if u64::try_from(body_end).ok()? != file_len {
        return None;
    }
    let parts = parts(body_len, suffix)?.shifted(body_start);
    Some(Plan {
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
    decode_meta(meta)
}

/// Completes the open of a planned file: checks `body_hash` (blake3 of `&file[plan.body]`,
/// computed by the caller while reading) against the recorded hash, then points the decoded
/// metadata's bodies at `file`, which is cut back to bodies and index. The same checks, in the
/// same order, as [`decode_owned`]: a tampered file is refused even when its metadata decodes.
pub fn finish(
    mut file: Vec<u8>,
    plan: &Plan,
    body_hash: &blake3::Hash,
    meta: Result<Meta, DecodeError>,
) -> Result<Catalog, DecodeError> {
    let actual = body_hash.to_hex().to_string();
    if actual != plan.catalog_hash {
        return Err(DecodeError::HashMismatch { expected: plan.catalog_hash.clone(), actual });
    }
    let meta = meta?;
    file.truncate(plan.parts.search.end);
    file.shrink_to_fit();
    let len = file.len();
    let file = Body { repr: Repr::Shared(Arc::new(file), 0..len) };
    attach(meta, &file, &plan.parts)
}

/// What [`verify`] found: the decoded metadata (or why it did not decode) and where, in the
/// file, the parts lie.
struct Layout {
    meta: Result<Meta, DecodeError>,
    parts: Parts,
}

/// Checks the envelope, verifies the body's hash and decodes the metadata.
fn verify(file: &[u8]) -> Result<Layout, DecodeError> {
    let envelope: Envelope<'_> = from_slice_bounded(file, META_DEPTH)
        .map_err(|e| DecodeError::NotACatalog(super::consistency::shown(&e.to_string())))?;
    if envelope.format != FORMAT_NAME {
        return Err(DecodeError::NotACatalog(format!("format is `{}`", envelope.format)));
    }
    if envelope.version != FORMAT_VERSION {
        return Err(DecodeError::Version { found: envelope.version });
    }
    let body = envelope.body;
    // The body is borrowed from `file`, so its position in the file is a pointer difference.
    let body_start = body.as_ptr() as usize - file.as_ptr() as usize;
    // The body ends the file: bytes after it were appended by someone else, not written here.
    let trailing = file.len() - (body_start + body.len());
    if trailing > 0 {
        let bytes = if trailing == 1 { "byte follows" } else { "bytes follow" };
        return Err(DecodeError::Corrupt(format!("{trailing} {bytes} the end of its body")));
    }
    let parts = body.len().checked_sub(TAIL).and_then(|at| parts(body.len(), &body[at..]));
    // Hash (on two threads) and decode the metadata at the same time; a catalog whose hash does
    // not match is refused even when its metadata decodes, so nothing unverified is served.
    let (actual, meta) = std::thread::scope(|scope| {
        let hashing = scope.spawn(|| hash(body));
        let meta = match &parts {
            Some(parts) => decode_meta(&body[parts.meta.clone()]),
            None => {
                Err(DecodeError::Body("the body's tail is missing or its lengths overflow it".to_owned()))
            }
        };
        (hashing.join().expect("hashing does not panic"), meta)
    });
    let actual = actual.to_hex().to_string();
    if actual != envelope.catalog_hash {
        return Err(DecodeError::HashMismatch { expected: envelope.catalog_hash.to_owned(), actual });
    }
    let parts = parts.unwrap_or(Parts { bodies: 0..0, search: 0..0, meta: 0..0 }).shifted(body_start);
    Ok(Layout { meta, parts })
}

/// Points every entry body and the search index at their ranges of `file`.
fn attach(meta: Meta, file: &Body, parts: &Parts) -> Result<Catalog, DecodeError> {
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
        entry.bytes = range.and_then(|r| file.slice(r)).ok_or_else(|| {
            DecodeError::Body(format!("body of `{}` extends beyond the catalog's bodies", entry.uri))
        })?;
    }
    catalog.search.data = file
        .slice(parts.search.clone())
        .ok_or_else(|| DecodeError::Body("the search index extends beyond the catalog's body".to_owned()))?;
    // The hash proves nothing about a file from elsewhere (anyone can recompute it): what the
    // readers index with is checked before the catalog is handed out.
    super::consistency::check(&catalog).map_err(DecodeError::Corrupt)?;
    Ok(catalog)
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
        (left.join().expect("hashing does not panic"), right_cv)
    });
    merge_subtrees_root(&left_cv, &right_cv, Mode::Hash)
}

/// The recorded hash of a catalog file, without decoding the body.
pub fn catalog_hash(bytes: &[u8]) -> Result<String, DecodeError> {
    let envelope: Envelope<'_> = from_slice_bounded(bytes, META_DEPTH)
        .map_err(|e| DecodeError::NotACatalog(super::consistency::shown(&e.to_string())))?;
    Ok(envelope.catalog_hash.to_owned())
}

#[derive(Serialize)]
struct Manifest<'a> {
    format: &'static str,
    format_version: u32,
    name: &'a str,
    source_fingerprint: &'a str,
    catalog_hash: &'a str,
    counts: Counts,
    entries: Vec<ManifestEntry<'a>>,
}

#[derive(Serialize)]
struct Counts {
    docs: usize,
    skills: usize,
    skill_files: usize,
    entries: usize,
    bytes: u64,
}

#[derive(Serialize)]
struct ManifestEntry<'a> {
    uri: &'a str,
    kind: &'static str,
    path: &'a str,
    size: u64,
    blake3: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sha256: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tags: &'a [String],
}

fn manifest_json(catalog: &Catalog, catalog_hash: &str) -> String {
    let mut titles: Vec<(Option<&str>, &[String])> = vec![(None, &[]); catalog.entries.len()];
    for doc in &catalog.docs {
        titles[doc.entry as usize] = (Some(&doc.title), &doc.tags);
    }
    for skill in &catalog.skills {
        titles[skill.document as usize] = (Some(&skill.title), &skill.tags);
        for file in &skill.files {
            titles[file.entry as usize].0 = file.title.as_deref();
        }
    }
    let entries = catalog
        .entries
        .iter()
        .zip(titles)
        .map(|(e, (title, tags))| ManifestEntry {
            uri: &e.uri,
            kind: e.kind.as_str(),
            path: &e.path,
            size: e.size,
            blake3: &e.blake3,
            sha256: e.sha256.as_deref(),
            title,
            tags,
        })
        .collect();
    let manifest = Manifest {
        format: FORMAT_NAME,
        format_version: FORMAT_VERSION,
        name: &catalog.settings.name,
        source_fingerprint: &catalog.source_fingerprint,
        catalog_hash,
        counts: Counts {
            docs: catalog.docs.len(),
            skills: catalog.skills.len(),
            skill_files: catalog.entries.iter().filter(|e| e.kind == EntryKind::SkillFile).count(),
            entries: catalog.entries.len(),
            bytes: catalog.entries.iter().map(|e| e.size).sum(),
        },
        entries,
    };
    let mut out = serde_json::to_string_pretty(&manifest).expect("manifest always serializes");
    out.push('\n');
    out
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
mod tests {
    use super::*;
    use crate::catalog::{Entry, SearchIndex, Settings};

    #[test]
    fn envelope_head_decodes_as_what_rmp_serde_writes_for_every_body_size() {
        for len in [0usize, 1, 255, 256, 65_535, 65_536, 70_000] {
            let body = vec![7u8; len];
            let envelope =
                Envelope { format: FORMAT_NAME, version: FORMAT_VERSION, catalog_hash: "ab", body: &body };
            let mut ours = envelope_head("ab", len).unwrap();
            assert_eq!(ours.len(), envelope_head("ab", 0).unwrap().len(), "one size for every body");
            ours.extend_from_slice(&body);
            let read: Envelope<'_> = rmp_serde::from_slice(&ours).unwrap();
            assert_eq!(
                (read.format, read.version, read.catalog_hash, read.body),
                (envelope.format, envelope.version, envelope.catalog_hash, envelope.body),
                "envelope of a {len}-byte body"
            );
        }
    }

    #[test]
    fn the_envelope_head_has_the_size_the_file_limit_counts() {
        let head = envelope_head(&"0".repeat(64), u32::MAX as usize).unwrap();
        assert_eq!(head.len() as u64, ENVELOPE_HEAD_BYTES);
    }

    #[test]
    fn hash_of_is_the_recorded_hash() {
        let mut large = sample();
        let bytes: Vec<u8> = (0..5u32 << 20).map(|i| (i % 251) as u8).collect();
        large.entries[0].size = bytes.len() as u64;
        large.entries[0].bytes = bytes.into();
        for catalog in [sample(), large] {
            let encoded = encode(&catalog);
            assert_eq!(hash_of(&catalog), encoded.catalog_hash);
            // decode checks the recorded hash against a hash of the body as one slice.
            decode(&encoded.msgpack).expect("the recorded hash verifies");
        }
    }

    fn sample() -> Catalog {
        let bytes = b"# Hello\n".to_vec();
        Catalog {
            settings: Settings::default(),
            source_fingerprint: "00".repeat(32),
            entries: vec![Entry {
                uri: "resource://docs/hello.md".to_owned(),
                kind: EntryKind::Doc,
                path: "docs/hello.md".to_owned(),
                mime: "text/markdown".to_owned(),
                size: bytes.len() as u64,
                blake3: blake3::hash(&bytes).to_hex().to_string(),
                sha256: None,
                is_text: true,
                total_lines: 1,
                bytes: bytes.into(),
            }],
            docs: Vec::new(),
            skills: Vec::new(),
            search: SearchIndex::default(),
        }
    }

    #[test]
    fn a_manifest_draft_takes_the_hash_where_manifest_puts_it() {
        // A name that spells the field itself, quotes and all, comes before the field.
        let mut catalog = sample();
        catalog.settings.name = "x\", \"catalog_hash\": \"".to_owned() + &"1".repeat(64);
        let hash = encode(&catalog).catalog_hash;
        assert_eq!(manifest_draft(&catalog).with_hash(&hash), manifest(&catalog, &hash));
        assert_eq!(manifest_draft(&sample()).with_hash(&hash), manifest(&sample(), &hash));
    }

    /// A catalog of `n` entries of about 1 KiB each, with distinct bytes.
    fn many_entries(n: usize) -> Catalog {
        let mut catalog = sample();
        let template = catalog.entries.remove(0);
        for i in 0..n {
            let bytes: Vec<u8> =
                format!("# Entry {i}\n").bytes().chain((0..1000).map(|j| (i + j) as u8)).collect();
            catalog.entries.push(Entry {
                uri: format!("resource://docs/e{i:04}.md"),
                path: format!("docs/e{i:04}.md"),
                size: bytes.len() as u64,
                blake3: blake3::hash(&bytes).to_hex().to_string(),
                bytes: bytes.into(),
                ..template.clone()
            });
        }
        catalog
    }

    #[test]
    fn the_writer_refuses_bodies_that_are_not_the_catalogs() {
        let catalog = many_entries(3);
        let body = |i: usize| (catalog.entries[i].path.as_str(), catalog.entries[i].bytes.as_slice());
        let io = |e: std::io::Error| (e.kind(), e.to_string());
        // Out of order: refused when written.
        let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
        writer.body(body(1).0, body(1).1).unwrap();
        let err = writer.body(body(0).0, body(0).1).unwrap_err();
        assert_eq!(
            io(err),
            (
                std::io::ErrorKind::InvalidInput,
                "catalog bodies out of order: `docs/e0000.md` after `docs/e0001.md`".to_owned()
            )
        );
        // One missing, or another file's bytes in an entry's place: refused at the end.
        let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
        writer.body(body(0).0, body(0).1).unwrap();
        writer.body(body(2).0, body(2).1).unwrap();
        assert_eq!(
            io(writer.finish(&catalog).err().unwrap()),
            (
                std::io::ErrorKind::InvalidData,
                "the bodies written do not match the catalog: 2 bodies for 3 entries".to_owned()
            )
        );
        let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
        writer.body(body(0).0, body(0).1).unwrap();
        writer.body(body(1).0, b"short").unwrap();
        writer.body(body(2).0, body(2).1).unwrap();
        assert_eq!(
            io(writer.finish(&catalog).err().unwrap()).1,
            "the bodies written do not match the catalog: `docs/e0001.md` (5 bytes) was written \
             where `docs/e0001.md` (1010 bytes) belongs"
        );
        let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
        writer.body(body(0).0, body(0).1).unwrap();
        writer.body("docs/e0000a.md", b"stray").unwrap();
        writer.body(body(2).0, body(2).1).unwrap();
        assert_eq!(
            io(writer.finish(&catalog).err().unwrap()).1,
            "the bodies written do not match the catalog: `docs/e0000a.md` (5 bytes) was written, \
             but no entry has that path"
        );
    }

    #[test]
    fn the_writer_refuses_a_catalog_past_what_a_msgpack_bin_holds() {
        // The limit is 4 GiB; a test writer has a smaller one, with the same checks.
        let catalog = many_entries(3);
        let writer = |limit: u64| {
            let mut writer = Writer::new(std::io::Cursor::new(Vec::new())).unwrap();
            writer.limit = limit;
            writer
        };
        let io = |e: std::io::Error| (e.kind(), e.to_string());
        // The bodies alone: refused at the body that passes the limit, before it is written.
        let mut w = writer(2500);
        w.body(&catalog.entries[0].path, &catalog.entries[0].bytes).unwrap();
        w.body(&catalog.entries[1].path, &catalog.entries[1].bytes).unwrap();
        let err = w.body(&catalog.entries[2].path, &catalog.entries[2].bytes).unwrap_err();
        assert_eq!(
            io(err),
            (
                std::io::ErrorKind::InvalidData,
                "the catalog's files come to 3030 bytes, more than the 2500 bytes a catalog can hold \
                 (msgpack's 4 GiB limit); move large files out of the content tree"
                    .to_owned()
            )
        );
        assert_eq!(w.written.len(), 2);
        // Bodies that fit, with the metadata after them: refused when finished.
        let mut w = writer(3100);
        for entry in &catalog.entries {
            w.body(&entry.path, &entry.bytes).unwrap();
        }
        let (kind, message) = io(w.finish(&catalog).err().unwrap());
        assert_eq!(kind, std::io::ErrorKind::InvalidData);
        assert!(
            message.starts_with("the catalog would be ")
                && message.ends_with(
                    " bytes, more than the 3100 bytes a catalog can hold (msgpack's 4 GiB limit); \
                     move large files out of the content tree"
                ),
            "{message}"
        );
    }

    /// A file in memory that notes the length of every write.
    #[derive(Default)]
    struct Recorder {
        file: std::io::Cursor<Vec<u8>>,
        writes: Vec<usize>,
    }

    impl std::io::Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.writes.push(buf.len());
            self.file.write(buf)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl std::io::Seek for Recorder {
        fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
            self.file.seek(pos)
        }
    }

    #[test]
    fn bodies_go_out_in_whole_blocks_whatever_their_sizes() {
        // Bodies small and large, ending short of a block, on one and just past one.
        let sizes = [10, STAGE_BYTES - 5, 7, 3 * STAGE_BYTES + 1, 1, STAGE_BYTES, 2 * STAGE_BYTES - 3, 40];
        let mut catalog = many_entries(sizes.len());
        for (i, (entry, size)) in catalog.entries.iter_mut().zip(sizes).enumerate() {
            let bytes: Vec<u8> = (0..size).map(|j| (i * 31 + j * 7) as u8).collect();
            entry.size = size as u64;
            entry.blake3 = blake3::hash(&bytes).to_hex().to_string();
            entry.bytes = bytes.into();
        }
        let mut writer = Writer::new(Recorder::default()).unwrap();
        for entry in &catalog.entries {
            writer.body(&entry.path, &entry.bytes).unwrap();
        }
        // The first write is the placeholder envelope; the rest so far are bodies.
        let bodies = &writer.out.writes[1..];
        assert!(bodies.iter().all(|n| n % STAGE_BYTES == 0), "{bodies:?}");
        let staged = sizes.iter().sum::<usize>() - bodies.iter().sum::<usize>();
        assert!(staged < STAGE_BYTES, "{staged} bytes left for the last write");
        let (out, hash) = writer.finish(&catalog).unwrap();
        let file = out.file.into_inner();
        assert_eq!(catalog_hash(&file).unwrap(), hash);
        assert_eq!(decode(&file).unwrap(), catalog, "each entry gets its own bytes back");
    }

    #[test]
    fn bodies_are_stored_in_source_order_and_found_by_offset() {
        let mut catalog = many_entries(3);
        // Source order is neither entry (URI) order nor byte order of the paths: the walk reads
        // `docs/a/x.md` (in directory `a`) before `docs/a-b.md`, and that before `docs/a.md`.
        for (entry, path) in catalog.entries.iter_mut().zip(["docs/a-b.md", "docs/a.md", "docs/a/x.md"]) {
            entry.path = path.to_owned();
        }
        let encoded = encode(&catalog);
        let at = |needle: &[u8]| encoded.msgpack.windows(needle.len()).position(|w| w == needle).unwrap();
        let (a_b, a, a_x) = (at(b"# Entry 0\n"), at(b"# Entry 1\n"), at(b"# Entry 2\n"));
        assert!(a_x < a_b && a_b < a, "bodies in source order");
        assert_eq!(decode(&encoded.msgpack).unwrap(), catalog, "each entry gets its own bytes back");
    }

    #[test]
    fn pieces_of_a_sequence_are_what_rmp_serde_writes_for_it() {
        for n in [0usize, 1, 15, 16, 3000, 70_000] {
            let items: Vec<String> = (0..n).map(|i| format!("item {i} {}", "x".repeat(i % 50))).collect();
            let pieces = encode_seq(&items);
            assert!(pieces.iter().all(|p| p.len() < 2 * PIECE), "{n}: bounded pieces");
            assert_eq!(pieces.concat(), rmp_serde::to_vec(&items).unwrap(), "{n} items");
        }
    }

    #[test]
    fn round_trips() {
        let catalog = sample();
        let encoded = encode(&catalog);
        assert_eq!(decode(&encoded.msgpack).unwrap(), catalog);
        assert_eq!(encode(&catalog), encoded, "encoding is deterministic");
    }

    #[test]
    fn refuses_truncated_and_tampered_bytes() {
        let encoded = encode(&sample());
        let truncated = &encoded.msgpack[..encoded.msgpack.len() - 3];
        assert!(matches!(decode(truncated), Err(DecodeError::NotACatalog(_))));

        let mut tampered = encoded.msgpack.clone();
        let at = tampered.windows(7).position(|w| w == b"# Hello").unwrap();
        tampered[at + 2] = b'J';
        assert!(matches!(decode(&tampered), Err(DecodeError::HashMismatch { .. })));

        assert!(matches!(decode(b"hello"), Err(DecodeError::NotACatalog(_))));
    }

    /// Re-wraps a modified body with a matching hash, as a forger would.
    fn forge(body: &[u8]) -> Vec<u8> {
        let hash = blake3::hash(body).to_hex().to_string();
        let envelope = Envelope { format: FORMAT_NAME, version: FORMAT_VERSION, catalog_hash: &hash, body };
        rmp_serde::to_vec_named(&envelope).unwrap()
    }

    #[test]
    fn refuses_forged_bodies_without_panicking() {
        let encoded = encode(&sample());
        let envelope: Envelope<'_> = rmp_serde::from_slice(&encoded.msgpack).unwrap();
        let body = envelope.body.to_vec();
        let tail = body.len() - TAIL;
        let with_lengths = |bodies: u64, search: u64| {
            let mut forged = body.clone();
            forged[tail..tail + 8].copy_from_slice(&bodies.to_le_bytes());
            forged[tail + 8..].copy_from_slice(&search.to_le_bytes());
            forged
        };
        let bodies = u64::from_le_bytes(body[tail..tail + 8].try_into().unwrap());
        let forgeries = [
            with_lengths(u64::MAX, 0),
            with_lengths(0, u64::MAX),
            with_lengths(u64::MAX / 2 + 1, u64::MAX / 2 + 1),
            // The bodies area one byte short: the entry extends beyond it.
            with_lengths(bodies - 1, 1),
            body[..10].to_vec(),
            Vec::new(),
            body[..body.len() - 1].to_vec(),
        ];
        for forged in forgeries {
            let res = decode(&forge(&forged));
            assert!(matches!(res, Err(DecodeError::Body(_))), "{res:?}");
        }
        assert_eq!(decode(&forge(&body)).unwrap(), sample(), "an honest re-wrap still decodes");
    }

    #[test]
    fn lazy_fields_decode_on_demand_and_re_encode_identically() {
        let outline = vec![crate::catalog::Section {
            id: "intro".to_owned(),
            title: "Intro".to_owned(),
            level: 2,
            line_start: 3,
            line_end: 9,
        }];
        let written = rmp_serde::to_vec(&Lazy::new(outline.clone())).unwrap();
        let read: Lazy<Vec<crate::catalog::Section>> = rmp_serde::from_slice(&written).unwrap();
        assert!(read.value.get().is_none(), "nothing is decoded before first use");
        assert_eq!(rmp_serde::to_vec(&read).unwrap(), written, "raw bytes are written back as read");
        assert_eq!(*read, outline);
        assert_eq!(rmp_serde::to_vec(&read).unwrap(), written);
        let json = serde_json::to_string(&read).unwrap();
        assert_eq!(json, serde_json::to_string(&outline).unwrap(), "JSON sees the plain value");
        let garbage: Lazy<Vec<crate::catalog::Section>> =
            rmp_serde::from_slice(&rmp_serde::to_vec(&Lazy::new(7u32)).unwrap()).unwrap();
        assert!(garbage.is_empty(), "undecodable bytes read as empty, not a panic");
    }

    #[test]
    fn deeply_nested_msgpack_is_refused_not_a_stack_overflow() {
        // 10,000 nested one-element arrays: as a lazy field's value, and as the value of an
        // unknown key of a doc (skipped, recursively), each decoded on a 2 MiB thread.
        let deep = |prefix: &[u8]| [prefix, &[0x91u8; 10_000][..], &[0xc0][..]].concat();
        let lazy = Lazy::<serde_json::Value>::from_raw(deep(&[]).into_boxed_slice());
        let docs = deep(&[0x91, 0x81, 0xa1, b'x']);
        let (value, docs) = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                (Lazy::force(&lazy).clone(), from_slice_bounded::<Vec<super::super::Doc>>(&docs, 32))
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(value, serde_json::Value::Null, "an undecodable lazy field reads as its default");
        assert_eq!(docs.unwrap_err().to_string(), "depth limit exceeded");
    }

    #[test]
    fn default_lazy_fields_hold_nothing_and_re_encode_identically() {
        // Empty list, empty map, null: the default values, kept as nothing at all.
        let empty_list = rmp_serde::to_vec(&Lazy::new(Vec::<String>::new())).unwrap();
        let read: Lazy<Vec<String>> = rmp_serde::from_slice(&empty_list).unwrap();
        assert!(read.value.get().is_none() && read.raw.is_none());
        assert_eq!(rmp_serde::to_vec(&read).unwrap(), empty_list);
        assert!(read.is_empty());
        assert_eq!(rmp_serde::to_vec(&read).unwrap(), empty_list, "after first use too");
        let null = rmp_serde::to_vec(&Lazy::new(serde_json::Value::Null)).unwrap();
        let read: Lazy<serde_json::Value> = rmp_serde::from_slice(&null).unwrap();
        assert!(read.value.get().is_none() && read.raw.is_none());
        assert_eq!(rmp_serde::to_vec(&read).unwrap(), null);
        // A one-byte value that is not the default (`true`) is kept decoded.
        let yes = rmp_serde::to_vec(&Lazy::new(serde_json::Value::Bool(true))).unwrap();
        let read: Lazy<serde_json::Value> = rmp_serde::from_slice(&yes).unwrap();
        assert_eq!(*read, serde_json::Value::Bool(true));
        assert_eq!(rmp_serde::to_vec(&read).unwrap(), yes);
    }

    #[test]
    fn parallel_hash_equals_blake3() {
        for len in [0, 1, 1024, 4 << 20, (4 << 20) + 1, 9_999_999] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            assert_eq!(hash(&bytes), blake3::hash(&bytes), "len {len}");
        }
    }

    #[test]
    fn decoded_bodies_share_the_file_buffer() {
        let encoded = encode(&sample());
        let file: &'static [u8] = Box::leak(encoded.msgpack.into_boxed_slice());
        let catalog = decode_static(file).unwrap();
        let body = &catalog.entries[0].bytes;
        assert_eq!(&body[..], b"# Hello\n");
        let inside = file.as_ptr_range().contains(&body.as_ptr());
        assert!(inside, "the body points into the file, it was not copied");
    }
}
