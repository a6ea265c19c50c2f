//! Catalog ⇄ bytes: `catalog.msgpack` (what the server loads) and `manifest.json` (what a PR
//! diff shows), and the integrity check that refuses a truncated, corrupted or tampered file.
//!
//! # Layout (format version 6)
//!
//! `catalog.msgpack` is a msgpack map with named fields:
//! `{format: "folio-catalog", version: u32, catalog_hash: hex, body: bin}`, where `catalog_hash`
//! is blake3 of `body`. Keeping the envelope tiny means a reader checks the magic, version and hash
//! before it decodes anything large. `body` is:
//!
//! ```text
//! bodies_len: u64 little-endian
//! search_len: u64 little-endian
//! bodies:     every entry's exact bytes, concatenated in entry order (offsets = prefix sums
//!             of `Entry::size`)
//! search:     the search index's byte area
//! meta:       `Catalog` without bodies or postings, as independent positional msgpack parts
//!             (the head, then the docs in slices) that decode on parallel threads
//! ```
//!
//! Bodies live outside the msgpack metadata so that opening a catalog never copies them: each
//! [`Body`] of a decoded catalog is a range of the one buffer the file was read into (or of the
//! `&'static` bytes embedded in the binary); the metadata comes last so that an owned buffer is
//! cut back to bodies + index once it is decoded. Inside the metadata, each doc's and skill's
//! heavy fields (outline, links, backlinks, extra frontmatter) are msgpack `bin`s holding their
//! own msgpack, kept undecoded until a detail, section or snippet read needs them ([`Lazy`]), so
//! an open decodes only what listing, search and resolve use. Verification hashes `body` on two threads with
//! blake3's subtree API (bit-identical to `blake3::hash(body)`) while the metadata decodes.
//!
//! A reader of a large file need not have it all before decoding: [`plan`] finds the parts from
//! the first bytes, so the metadata can be decoded ([`decode_planned_meta`]) while the bodies
//! are still being read and hashed, and [`finish`] then applies the same checks as
//! [`decode_owned`].
//!
//! This module performs no IO: callers read and write the bytes.

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Catalog, EntryKind, FORMAT_VERSION};

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
                Some(raw) => rmp_serde::from_slice(raw).unwrap_or_default(),
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
            (None, Some(value)) => {
                let bytes = rmp_serde::to_vec(&**value).map_err(serde::ser::Error::custom)?;
                serializer.serialize_bytes(&bytes)
            }
            (None, None) => {
                let bytes = rmp_serde::to_vec(&T::default()).map_err(serde::ser::Error::custom)?;
                serializer.serialize_bytes(&bytes)
            }
        }
    }
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
/// Holds the whole file in memory; [`write()`] streams the same bytes instead.
pub fn encode(catalog: &Catalog) -> Encoded {
    assert!(
        catalog.entries.iter().all(|e| e.bytes.len() as u64 == e.size),
        "encode needs every entry's bytes: a catalog compiled without bodies is written with write_with"
    );
    let pieces = Pieces::new(catalog);
    let mut msgpack = Vec::with_capacity(ENVELOPE_MAX + pieces.len());
    // Writing to a Vec fails only past msgpack's 4 GiB limit, which no tree under the
    // compiler's per-file limit of practical size reaches.
    let catalog_hash = pieces.write(&mut msgpack).expect("catalog body under 4 GiB");
    let manifest = manifest_json(catalog, &catalog_hash);
    Encoded { msgpack, manifest, catalog_hash }
}

/// Writes `catalog.msgpack` to `out`, the bytes [`encode`] returns, without assembling them:
/// the entry bodies and the index go from the catalog to `out` as they are. Returns the
/// catalog hash, for [`manifest`]. `out` must seek back to where it started (see
/// [`write_with`]).
pub fn write<W: std::io::Write + std::io::Seek>(catalog: &Catalog, out: &mut W) -> std::io::Result<String> {
    write_with(catalog, out, |i| Ok(std::borrow::Cow::Borrowed(catalog.entries[i].bytes.as_slice())))
}

/// [`write()`], with each entry's bytes from `body(entry index)` instead of the catalog (which
/// may then hold none: see `compile::compile_without_bodies`). `body` is called once per entry,
/// in order, and must return exactly `Entry::size` bytes; checking they are the bytes the
/// catalog describes is its job (its errors are returned as they are).
///
/// The envelope comes first in the file but holds the hash of everything after it, so a large
/// catalog is written with a placeholder envelope of the same length: the bodies are written
/// while one thread hashes them and another encodes the metadata, and the envelope is
/// rewritten at the end (`out` must seek back to where it started).
pub fn write_with<'c, W, F>(catalog: &'c Catalog, out: &mut W, body: F) -> std::io::Result<String>
where
    W: std::io::Write + std::io::Seek,
    F: Fn(usize) -> std::io::Result<std::borrow::Cow<'c, [u8]>> + Sync,
{
    use std::io::SeekFrom;
    let search = catalog.search.data.as_slice();
    let head = body_head(catalog);
    let bodies_len = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
    let bodies_len = usize::try_from(bodies_len).map_err(|_| too_large(bodies_len))?;
    let known = HEAD + bodies_len + search.len();
    let sized = |i: usize| -> std::io::Result<std::borrow::Cow<'c, [u8]>> {
        let bytes = body(i)?;
        let entry = &catalog.entries[i];
        if bytes.len() as u64 != entry.size {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("`{}` is {} bytes, the catalog says {}", entry.path, bytes.len(), entry.size),
            ));
        }
        Ok(bytes)
    };
    // Below 64 KiB the body's `bin` header might be shorter than the placeholder's; such a
    // catalog is small enough to assemble.
    if known < 1 << 16 {
        let mut whole = Vec::with_capacity(known);
        for i in 0..catalog.entries.len() {
            whole.extend_from_slice(&sized(i)?);
        }
        let mut pieces = Pieces::new(catalog);
        pieces.bodies = vec![&whole[..]];
        return pieces.write(out);
    }
    let start = out.stream_position()?;
    let placeholder = envelope_head(&"0".repeat(64), known)?;
    std::thread::scope(|scope| {
        let meta = scope.spawn(|| encode_meta(catalog));
        // Bodies flow reader -> this thread (the writer) -> hasher in batches of about 1 MiB
        // (one message per body made the threads wake each other 50,000 times), through
        // bounded queues that keep only a few batches in memory when one stage is ahead.
        type Batch<'c> = Vec<std::borrow::Cow<'c, [u8]>>;
        let (to_writer, bodies) = std::sync::mpsc::sync_channel::<std::io::Result<Batch<'c>>>(4);
        let sized = &sized;
        scope.spawn(move || {
            let mut batch: Batch<'c> = Vec::new();
            let mut batch_bytes = 0;
            for i in 0..catalog.entries.len() {
                match sized(i) {
                    Ok(bytes) => {
                        batch_bytes += bytes.len();
                        batch.push(bytes);
                    }
                    Err(e) => {
                        let _ = to_writer.send(Err(e));
                        return;
                    }
                }
                if batch_bytes >= 1 << 20 || batch.len() >= 256 || i + 1 == catalog.entries.len() {
                    // A closed queue means the writer stopped on an error of its own.
                    if to_writer.send(Ok(std::mem::take(&mut batch))).is_err() {
                        return;
                    }
                    batch_bytes = 0;
                }
            }
        });
        let (to_hasher, written_bodies) = std::sync::mpsc::sync_channel::<Batch<'c>>(4);
        let hasher = scope.spawn(move || {
            let mut hasher = blake3::Hasher::new();
            hasher.update(&head);
            for batch in written_bodies {
                for bytes in &batch {
                    hasher.update(bytes);
                }
            }
            hasher.update(search);
            hasher
        });
        out.write_all(&placeholder)?;
        out.write_all(&head)?;
        let written: std::io::Result<()> = (|| {
            let mut done = 0;
            while done < catalog.entries.len() {
                let batch = bodies.recv().map_err(|_| std::io::Error::other("the body reader stopped"))??;
                for bytes in &batch {
                    out.write_all(bytes)?;
                }
                done += batch.len();
                // The hasher only stops early by panicking, which `join` re-raises below.
                let _ = to_hasher.send(batch);
            }
            Ok(())
        })();
        drop(bodies);
        drop(to_hasher);
        let hasher = hasher.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        written?;
        out.write_all(search)?;
        let meta = meta.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        out.write_all(&meta)?;
        let mut hasher = hasher;
        let catalog_hash = hasher.update(&meta).finalize().to_hex().to_string();
        let envelope = envelope_head(&catalog_hash, known + meta.len())?;
        assert_eq!(envelope.len(), placeholder.len(), "a 64-hex hash and a bin32 header either way");
        let end = out.stream_position()?;
        out.seek(SeekFrom::Start(start))?;
        out.write_all(&envelope)?;
        out.seek(SeekFrom::Start(end))?;
        Ok(catalog_hash)
    })
}

fn too_large(len: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("the catalog would be {len} bytes, more than msgpack's 4 GiB limit"),
    )
}

/// The catalog hash [`encode`] would record, computed over the body's pieces in place (no
/// copy of the bodies, no manifest).
pub fn hash_of(catalog: &Catalog) -> String {
    Pieces::new(catalog).hash().to_hex().to_string()
}

/// The body's first bytes: the lengths of the bodies (from the entries' sizes, so that
/// [`write_with`] can take bodies from elsewhere) and of the search index.
fn body_head(catalog: &Catalog) -> [u8; HEAD] {
    let bodies_len: u64 = catalog.entries.iter().map(|e| e.size).sum();
    let mut head = [0u8; HEAD];
    head[..8].copy_from_slice(&bodies_len.to_le_bytes());
    head[8..].copy_from_slice(&(catalog.search.data.len() as u64).to_le_bytes());
    head
}

/// `manifest.json` for a catalog whose `catalog.msgpack` has `catalog_hash`.
pub fn manifest(catalog: &Catalog, catalog_hash: &str) -> String {
    manifest_json(catalog, catalog_hash)
}

/// Upper bound of the envelope's size before the body's bytes (the map, the three small
/// fields, the `body` key and its `bin` header).
const ENVELOPE_MAX: usize = 160;

/// The catalog's `body`, as the slices it is the concatenation of (layout in the module docs):
/// only the lengths head and the metadata are new bytes.
struct Pieces<'a> {
    head: [u8; HEAD],
    bodies: Vec<&'a [u8]>,
    search: &'a [u8],
    meta: Vec<u8>,
}

impl<'a> Pieces<'a> {
    fn new(catalog: &'a Catalog) -> Pieces<'a> {
        // Positional (array) encoding: the metadata is read at every open, and matching field
        // names of ~20,000 records costs more than the rest of the decode. The format version
        // guards the field order; the catalog hash guards the bytes.
        let meta = encode_meta(catalog);
        let bodies: Vec<&[u8]> = catalog.entries.iter().map(|e| e.bytes.as_slice()).collect();
        Pieces { head: body_head(catalog), bodies, search: catalog.search.data.as_slice(), meta }
    }

    fn slices(&self) -> impl Iterator<Item = &[u8]> {
        std::iter::once(&self.head[..])
            .chain(self.bodies.iter().copied())
            .chain([self.search, &self.meta[..]])
    }

    fn len(&self) -> usize {
        self.slices().map(<[u8]>::len).sum()
    }

    /// blake3 of the concatenation, bit-identical to [`hash`] of it: large bodies are hashed
    /// as two subtrees on two threads, each fed the slices that fall in its half.
    fn hash(&self) -> blake3::Hash {
        use blake3::hazmat::{HasherExt, Mode, left_subtree_len, merge_subtrees_root};
        const PARALLEL_MIN: usize = 4 << 20;
        let total = self.len();
        let feed = |hasher: &mut blake3::Hasher, range: Range<usize>| {
            let mut at = 0;
            for slice in self.slices() {
                let (start, end) = (at, at + slice.len());
                at = end;
                let (from, to) = (start.max(range.start), end.min(range.end));
                if from < to {
                    hasher.update(&slice[from - start..to - start]);
                }
            }
        };
        if total < PARALLEL_MIN {
            let mut hasher = blake3::Hasher::new();
            feed(&mut hasher, 0..total);
            return hasher.finalize();
        }
        let left_len = left_subtree_len(total as u64) as usize;
        let (left_cv, right_cv) = std::thread::scope(|scope| {
            let left = scope.spawn(|| {
                let mut hasher = blake3::Hasher::new();
                feed(&mut hasher, 0..left_len);
                hasher.finalize_non_root()
            });
            let mut hasher = blake3::Hasher::new();
            hasher.set_input_offset(left_len as u64);
            feed(&mut hasher, left_len..total);
            (left.join().expect("hashing does not panic"), hasher.finalize_non_root())
        });
        merge_subtrees_root(&left_cv, &right_cv, Mode::Hash)
    }

    /// Writes the envelope and the body; returns the catalog hash.
    fn write(&self, out: &mut impl std::io::Write) -> std::io::Result<String> {
        let catalog_hash = self.hash().to_hex().to_string();
        out.write_all(&envelope_head(&catalog_hash, self.len())?)?;
        for slice in self.slices() {
            out.write_all(slice)?;
        }
        Ok(catalog_hash)
    }
}

/// The envelope's bytes up to the body's: exactly what `rmp_serde` writes for an [`Envelope`]
/// holding a body of `body_len` bytes (it is encoded with an empty body, whose `bin` header is
/// then replaced by the real one, the shortest msgpack allows).
fn envelope_head(catalog_hash: &str, body_len: usize) -> std::io::Result<Vec<u8>> {
    let envelope = Envelope { format: FORMAT_NAME, version: FORMAT_VERSION, catalog_hash, body: &[] };
    let mut head = rmp_serde::to_vec_named(&envelope).expect("envelope always serializes");
    assert_eq!(head.split_off(head.len() - 2), [0xc4, 0x00], "an empty body is a bin8 of length 0");
    match (u8::try_from(body_len), u16::try_from(body_len)) {
        (Ok(n), _) => head.extend_from_slice(&[0xc4, n]),
        (_, Ok(n)) => {
            head.push(0xc5);
            head.extend_from_slice(&n.to_be_bytes());
        }
        _ => {
            let n = u32::try_from(body_len).map_err(|_| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("the catalog would be {body_len} bytes, more than msgpack's 4 GiB limit"),
                )
            })?;
            head.push(0xc6);
            head.extend_from_slice(&n.to_be_bytes());
        }
    }
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
    skills: &'a [super::Skill],
    search: &'a super::SearchIndex,
}

#[derive(Deserialize)]
struct HeadOwned {
    settings: super::Settings,
    source_fingerprint: String,
    entries: Vec<super::Entry>,
    skills: Vec<super::Skill>,
    search: super::SearchIndex,
}

/// Encodes the metadata as independent parts (`u32` count, `u64` length of each, then the
/// parts): the head, then the docs in [`DOC_PARTS`] contiguous slices. Each part is positional
/// msgpack, so the parts decode in parallel at open.
fn encode_meta(catalog: &Catalog) -> Vec<u8> {
    let head = Head {
        settings: &catalog.settings,
        source_fingerprint: &catalog.source_fingerprint,
        entries: &catalog.entries,
        skills: &catalog.skills,
        search: &catalog.search,
    };
    let mut parts = vec![rmp_serde::to_vec(&head).expect("catalog types always serialize")];
    let per_part = catalog.docs.len().div_ceil(DOC_PARTS).max(1);
    for chunk in catalog.docs.chunks(per_part) {
        parts.push(rmp_serde::to_vec(chunk).expect("catalog types always serialize"));
    }
    let mut out = Vec::with_capacity(4 + 8 * parts.len() + parts.iter().map(Vec::len).sum::<usize>());
    out.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    for part in &parts {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
    }
    for part in &parts {
        out.extend_from_slice(part);
    }
    out
}

/// Decodes the parts written by [`encode_meta`], each on its own thread.
fn decode_meta(meta: &[u8]) -> Result<Catalog, DecodeError> {
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
    let body_error = |e: rmp_serde::decode::Error| DecodeError::Body(e.to_string());
    std::thread::scope(|scope| {
        let docs: Vec<_> = ranges[1..]
            .iter()
            .map(|r| {
                let part = &meta[r.clone()];
                scope.spawn(move || rmp_serde::from_slice::<Vec<super::Doc>>(part))
            })
            .collect();
        let head: HeadOwned = rmp_serde::from_slice(&meta[ranges[0].clone()]).map_err(body_error)?;
        let mut all_docs = Vec::new();
        for part in docs {
            all_docs.extend(part.join().expect("decoding does not panic").map_err(body_error)?);
        }
        Ok(Catalog {
            settings: head.settings,
            source_fingerprint: head.source_fingerprint,
            entries: head.entries,
            docs: all_docs,
            skills: head.skills,
            search: head.search,
        })
    })
}

/// Bytes of the body header: the lengths of the bodies and of the search index, u64 LE each.
const HEAD: usize = 16;

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
    attach(layout.catalog?, &file, layout.blobs)
}

/// Decodes and verifies an owned buffer without copying any body: every body of the result is a
/// range of it. The metadata at the end of the buffer is cut off once decoded, so an open catalog
/// holds the file's bodies and search index, not its msgpack twice. Fails like [`decode`].
pub fn decode_owned(mut bytes: Vec<u8>) -> Result<Catalog, DecodeError> {
    let layout = verify(&bytes)?;
    let catalog = layout.catalog?;
    bytes.truncate(layout.blobs.end);
    bytes.shrink_to_fit();
    let len = bytes.len();
    let file = Body { repr: Repr::Shared(Arc::new(bytes), 0..len) };
    attach(catalog, &file, layout.blobs)
}

/// Where the parts of a catalog file lie, read from its first bytes alone, so that a reader can
/// fetch the metadata first and decode it while the bodies are still being read and hashed.
///
/// Only a file shaped exactly as [`encode`] writes it (the envelope fields in order, the body a
/// `bin32` ending the file) has a plan; for anything else [`plan`] gives `None` and the caller
/// decodes the whole file with [`decode_owned`], which names the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The body: the bytes `catalog_hash` covers.
    pub body: Range<usize>,
    /// The metadata parts, at the end of the body.
    pub meta: Range<usize>,
    /// The entry bodies, then the search index.
    blobs: Range<usize>,
    /// `catalog_hash` as recorded in the envelope.
    pub catalog_hash: String,
}

/// Bytes a reader needs before calling [`plan`]: the envelope header and the body header.
pub const PLAN_PREFIX: usize = 256;

/// Reads the [`Plan`] of a file of `file_len` bytes from its first bytes (at least
/// [`PLAN_PREFIX`] of them, or the whole file). `None` when the file is not laid out exactly as
/// this version writes it.
pub fn plan(prefix: &[u8], file_len: u64) -> Option<Plan> {
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
    let (bodies, rest) = rest.split_first_chunk::<8>()?;
    let (search, _) = rest.split_first_chunk::<8>()?;
    let blobs_end = usize::try_from(u64::from_le_bytes(*bodies))
        .ok()
        .zip(usize::try_from(u64::from_le_bytes(*search)).ok())
        .and_then(|(b, s)| (body_start + HEAD).checked_add(b)?.checked_add(s))
        .filter(|&end| end <= body_end)?;
    Some(Plan {
        body: body_start..body_end,
        meta: blobs_end..body_end,
        blobs: body_start + HEAD..blobs_end,
        catalog_hash: catalog_hash.to_owned(),
    })
}

/// Decodes the metadata parts of a planned file (`&file[plan.meta]`), on several threads.
///
/// Fails with [`DecodeError::Body`] when they do not decode. The result must not be served
/// before [`finish`] has checked the hash.
pub fn decode_planned_meta(meta: &[u8]) -> Result<Catalog, DecodeError> {
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
    catalog: Result<Catalog, DecodeError>,
) -> Result<Catalog, DecodeError> {
    let actual = body_hash.to_hex().to_string();
    if actual != plan.catalog_hash {
        return Err(DecodeError::HashMismatch { expected: plan.catalog_hash.clone(), actual });
    }
    let catalog = catalog?;
    file.truncate(plan.blobs.end);
    file.shrink_to_fit();
    let len = file.len();
    let file = Body { repr: Repr::Shared(Arc::new(file), 0..len) };
    attach(catalog, &file, plan.blobs.clone())
}

/// What [`verify`] found: the decoded metadata (or why it did not decode) and where, in the
/// file, the bodies and then the search index lie.
struct Layout {
    catalog: Result<Catalog, DecodeError>,
    blobs: Range<usize>,
}

/// Checks the envelope, verifies the body's hash and decodes the metadata.
fn verify(file: &[u8]) -> Result<Layout, DecodeError> {
    let envelope: Envelope<'_> =
        rmp_serde::from_slice(file).map_err(|e| DecodeError::NotACatalog(e.to_string()))?;
    if envelope.format != FORMAT_NAME {
        return Err(DecodeError::NotACatalog(format!("format is `{}`", envelope.format)));
    }
    if envelope.version != FORMAT_VERSION {
        return Err(DecodeError::Version { found: envelope.version });
    }
    let body = envelope.body;
    // The body is borrowed from `file`, so its position in the file is a pointer difference.
    let body_start = body.as_ptr() as usize - file.as_ptr() as usize;
    let length = |at: usize| body.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
    let blobs = match (length(0), length(8)) {
        (Some(bodies), Some(search)) => usize::try_from(bodies)
            .ok()
            .zip(usize::try_from(search).ok())
            .and_then(|(b, s)| HEAD.checked_add(b)?.checked_add(s))
            .filter(|&end| end <= body.len()),
        _ => None,
    };
    // Hash (on two threads) and decode the metadata at the same time; a catalog whose hash does
    // not match is refused even when its metadata decodes, so nothing unverified is served.
    let (actual, catalog) = std::thread::scope(|scope| {
        let hashing = scope.spawn(|| hash(body));
        let catalog = match blobs {
            Some(end) => decode_meta(&body[end..]),
            None => {
                Err(DecodeError::Body("the body header is truncated or its lengths overflow it".to_owned()))
            }
        };
        (hashing.join().expect("hashing does not panic"), catalog)
    });
    let actual = actual.to_hex().to_string();
    if actual != envelope.catalog_hash {
        return Err(DecodeError::HashMismatch { expected: envelope.catalog_hash.to_owned(), actual });
    }
    let end = blobs.unwrap_or(HEAD);
    Ok(Layout { catalog, blobs: body_start + HEAD..body_start + end })
}

/// Points every entry body and the search index at their ranges of `file`.
fn attach(mut catalog: Catalog, file: &Body, blobs: Range<usize>) -> Result<Catalog, DecodeError> {
    let mut at = blobs.start;
    for entry in &mut catalog.entries {
        let end =
            usize::try_from(entry.size).ok().and_then(|n| at.checked_add(n)).filter(|&e| e <= blobs.end);
        entry.bytes = end.and_then(|end| file.slice(at..end)).ok_or_else(|| {
            DecodeError::Body(format!("body of `{}` extends beyond the catalog", entry.uri))
        })?;
        at += entry.bytes.len();
    }
    catalog.search.data = file.slice(at..blobs.end).expect("at <= blobs.end");
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
    let envelope: Envelope<'_> =
        rmp_serde::from_slice(bytes).map_err(|e| DecodeError::NotACatalog(e.to_string()))?;
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
    fn envelope_head_is_what_rmp_serde_writes_for_every_bin_size() {
        for len in [0usize, 1, 255, 256, 65_535, 65_536, 70_000] {
            let body = vec![7u8; len];
            let envelope =
                Envelope { format: FORMAT_NAME, version: FORMAT_VERSION, catalog_hash: "ab", body: &body };
            let whole = rmp_serde::to_vec_named(&envelope).unwrap();
            let mut ours = envelope_head("ab", len).unwrap();
            ours.extend_from_slice(&body);
            assert!(ours == whole, "envelope of a {len}-byte body");
        }
    }

    #[test]
    fn hash_of_is_the_recorded_hash_on_one_thread_and_on_two() {
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
    fn bodies_streamed_in_many_batches_are_written_in_entry_order() {
        // 2,000 entries of about 1 KiB: eight batches between the reader, writer and hasher.
        let catalog = many_entries(2000);
        let encoded = encode(&catalog);
        let mut streamed = std::io::Cursor::new(Vec::new());
        let hash = write(&catalog, &mut streamed).unwrap();
        assert!(streamed.into_inner() == encoded.msgpack, "written out of order");
        assert_eq!(hash, encoded.catalog_hash);

        // A body that cannot be fetched, in the first, a middle or the last batch, fails the
        // write with its own error (and no thread is left blocked).
        for failing in [3, 900, 1999] {
            let body = |i: usize| -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
                if i == failing {
                    return Err(std::io::Error::other(format!("entry {i} is gone")));
                }
                Ok(std::borrow::Cow::Borrowed(catalog.entries[i].bytes.as_slice()))
            };
            let err = write_with(&catalog, &mut std::io::Cursor::new(Vec::new()), body).unwrap_err();
            assert_eq!(err.to_string(), format!("entry {failing} is gone"));
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
        let mut huge = body.clone();
        huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut short = body.clone();
        short[..8].copy_from_slice(&1u64.to_le_bytes());
        for forged in [huge, short, body[..10].to_vec(), Vec::new(), body[..body.len() - 1].to_vec()] {
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
