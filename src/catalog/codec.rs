//! Catalog ⇄ bytes: `catalog.msgpack` (what the server loads) and `manifest.json` (what a PR
//! diff shows), and the integrity check that refuses a truncated, corrupted or tampered file.
//!
//! `catalog.msgpack` is a msgpack map with named fields:
//! `{format: "folio-catalog", version: u32, catalog_hash: hex, body: bin}`, where `body` is the
//! msgpack encoding of [`Catalog`] and `catalog_hash` is blake3 of `body`. Keeping the envelope
//! tiny means a reader checks the magic, version and hash before it decodes anything large.
//!
//! This module performs no IO: callers read and write the bytes.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Catalog, EntryKind, FORMAT_VERSION};

/// The `format` field every catalog file starts with.
pub const FORMAT_NAME: &str = "folio-catalog";

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
pub fn encode(catalog: &Catalog) -> Encoded {
    let body = rmp_serde::to_vec_named(catalog).expect("catalog types always serialize");
    let catalog_hash = blake3::hash(&body).to_hex().to_string();
    let envelope =
        Envelope { format: FORMAT_NAME, version: FORMAT_VERSION, catalog_hash: &catalog_hash, body: &body };
    let msgpack = rmp_serde::to_vec_named(&envelope).expect("envelope always serializes");
    let manifest = manifest_json(catalog, &catalog_hash);
    Encoded { msgpack, manifest, catalog_hash }
}

/// Decodes and verifies `catalog.msgpack` bytes.
///
/// Fails when the bytes are not a folio catalog, are of another format version, do not match
/// their recorded hash, or do not decode.
pub fn decode(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    let envelope: Envelope<'_> =
        rmp_serde::from_slice(bytes).map_err(|e| DecodeError::NotACatalog(e.to_string()))?;
    if envelope.format != FORMAT_NAME {
        return Err(DecodeError::NotACatalog(format!("format is `{}`", envelope.format)));
    }
    if envelope.version != FORMAT_VERSION {
        return Err(DecodeError::Version { found: envelope.version });
    }
    let actual = blake3::hash(envelope.body).to_hex().to_string();
    if actual != envelope.catalog_hash {
        return Err(DecodeError::HashMismatch { expected: envelope.catalog_hash.to_owned(), actual });
    }
    rmp_serde::from_slice(envelope.body).map_err(|e| DecodeError::Body(e.to_string()))
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

/// Serializes `Vec<u8>` as a msgpack `bin` (serde's default would write an array of integers,
/// doubling the size and the decode time).
pub mod bytes {
    use serde::{Deserializer, Serializer};

    /// Writes the bytes as one `bin` value.
    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    /// Reads a `bin` (or, leniently, a sequence of integers) into a `Vec<u8>`.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_byte_buf(ByteBufVisitor)
    }

    struct ByteBufVisitor;

    impl<'de> serde::de::Visitor<'de> for ByteBufVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("bytes")
        }

        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }

        fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(b) = seq.next_element()? {
                out.push(b);
            }
            Ok(out)
        }
    }
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
                bytes,
            }],
            docs: Vec::new(),
            skills: Vec::new(),
            search: SearchIndex::default(),
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
}
