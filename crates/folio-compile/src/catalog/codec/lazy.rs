//! [`Lazy`]: a record's heavy metadata (outline, links, backlinks, extra frontmatter), kept as
//! the msgpack it was written as until a reader first asks for it, and the bounded msgpack
//! decoding every part of the codec uses.
//!
//! Must not: hide a field that does not decode. [`Lazy::get`] returns the error, and the query
//! layer answers it as a corrupt catalog; nothing here turns bad bytes into an empty value.

use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::error::DecodeError;

/// A record's heavy metadata (outline, links, backlinks, extra frontmatter): decoded only
/// when a detail, section or search-snippet read first asks for it, then kept.
///
/// Opening a catalog decodes only what listing, search and resolve need; these fields stay the
/// raw positional msgpack they were written as (one small copy per field, no per-string
/// allocation) until first read with [`Lazy::get`]. A catalog built in memory holds the value
/// directly. In msgpack the field is a `bin` holding the value's own msgpack, so re-encoding a
/// decoded catalog gives the same bytes; human-readable formats (JSON) see the plain value.
///
/// The raw bytes were verified with the rest of the body at open, but a verified hash proves
/// nothing about a file from elsewhere: should they not decode, [`Lazy::get`] says so, every
/// time it is asked.
///
/// The value is boxed: an open catalog holds four of these per doc and skill, nearly all still
/// raw, so the cell costs one pointer rather than the size of the value. A field whose msgpack
/// is the default value's (an empty list or map, most backlinks and extra frontmatter) holds
/// neither bytes nor a value until it is first read.
pub struct Lazy<T> {
    value: OnceLock<Box<T>>,
    raw: Option<Box<[u8]>>,
}

/// How deeply the catalog's own msgpack may nest: its types are a few levels deep, so this
/// bounds only what a forged file could add (an unknown field's value is skipped recursively).
pub(super) const META_DEPTH: usize = 32;

/// How deeply a [`Lazy`] field's msgpack may nest: frontmatter rendered as JSON is the deepest
/// (the compiler refuses YAML nested more than 64 levels), with room to spare.
const LAZY_DEPTH: usize = 160;

impl<T> Lazy<T> {
    /// A field holding `value` (already decoded).
    pub fn new(value: T) -> Self {
        Lazy { value: OnceLock::from(Box::new(value)), raw: None }
    }

    /// A field still in its msgpack form, decoded on first use.
    pub(super) fn from_raw(raw: Box<[u8]>) -> Self {
        Lazy { value: OnceLock::new(), raw: Some(raw) }
    }

    /// A field holding the default value, materialised on first use.
    fn empty() -> Self {
        Lazy { value: OnceLock::new(), raw: None }
    }

    /// Whether the value has been decoded (or was never raw), for tests of the laziness.
    #[cfg(test)]
    pub(super) fn is_decoded(&self) -> bool {
        self.value.get().is_some()
    }

    /// Whether the field holds neither bytes nor a value (a default value read from a file).
    #[cfg(test)]
    pub(super) fn holds_nothing(&self) -> bool {
        self.value.get().is_none() && self.raw.is_none()
    }
}

impl<T: serde::de::DeserializeOwned + Default> Lazy<T> {
    /// The value, decoding it now if this is its first use. Fails with [`DecodeError::Body`]
    /// when the raw bytes do not decode as a `T` (a forged catalog, or a bug): the error is not
    /// kept, so each read that needs the field reports it.
    pub fn get(&self) -> Result<&T, DecodeError> {
        if let Some(value) = self.value.get() {
            return Ok(value);
        }
        let value = match &self.raw {
            Some(raw) => from_slice_bounded(raw, LAZY_DEPTH)
                .map_err(|e| DecodeError::Body(super::super::consistency::shown(&e.to_string())))?,
            None => T::default(),
        };
        // Another thread may have decoded it meanwhile: both values are the same.
        Ok(self.value.get_or_init(|| Box::new(value)))
    }

    /// The value, to change it. Fails like [`Lazy::get`].
    pub fn get_mut(&mut self) -> Result<&mut T, DecodeError> {
        self.get()?;
        // The value may change now: the raw form no longer describes it.
        self.raw = None;
        Ok(self.value.get_mut().expect("decoded just above"))
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

// Two fields are equal when they decode to equal values, or both fail with the same error.
impl<T: serde::de::DeserializeOwned + Default + PartialEq> PartialEq for Lazy<T> {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl<T: serde::de::DeserializeOwned + Default + Eq> Eq for Lazy<T> {}

impl<T: serde::de::DeserializeOwned + Default + fmt::Debug> fmt::Debug for Lazy<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.get() {
            Ok(value) => value.fmt(f),
            Err(e) => write!(f, "Lazy(<{e}>)"),
        }
    }
}

impl<T: Serialize + serde::de::DeserializeOwned + Default> Serialize for Lazy<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            return self.get().map_err(serde::ser::Error::custom)?.serialize(serializer);
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
        // default value is not even stored: `get` makes it on first use, and it encodes to
        // these same bytes.
        if raw.len() == 1
            && let Ok(value) = rmp_serde::from_slice::<T>(&raw)
        {
            return Ok(if value == T::default() { Lazy::empty() } else { Lazy::new(value) });
        }
        Ok(Lazy::from_raw(raw))
    }
}

/// `rmp_serde::from_slice`, refusing msgpack nested deeper than `depth`. Decoding recurses once
/// per level, so a forged catalog of deeply nested arrays would otherwise overflow the stack of
/// the thread decoding it (2 MiB for a spawned thread) and abort the process.
pub(super) fn from_slice_bounded<'de, T: Deserialize<'de>>(
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
