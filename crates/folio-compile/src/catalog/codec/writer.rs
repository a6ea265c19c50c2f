//! The streaming writer: `catalog.msgpack` written front to back while the compiler still
//! reads the files, then the search index, the metadata (which records each body's blake3 and
//! the index's) and the real envelope, whose hash covers the metadata. [`super::encode`] and
//! [`super::hash_of`] are this writer over memory and over a counting sink: there is one way to
//! write a catalog.
//!
//! Must not: decide what the metadata holds (that is `meta.rs`), or keep bodies in memory
//! beyond one block.

use std::io::{Seek, SeekFrom, Write};

use super::FORMAT_NAME;
use super::meta::{self, TAIL};
use crate::catalog::search::SearchIndex;
use crate::catalog::{Catalog, Entry, FORMAT_VERSION};
use crate::lookup::LookupMap;

/// The most bytes a msgpack `bin` holds (its length is a `u32`).
pub(super) const BIN_LIMIT: u64 = u32::MAX as u64;

/// Bytes of the envelope before the body ([`envelope_head`] always writes this many).
pub(super) const ENVELOPE_HEAD_BYTES: u64 = 120;

/// The largest `catalog.msgpack` there can be: the envelope and a body as large as a msgpack
/// `bin` holds (4 GiB). A reader refuses a larger file before reading any of it.
pub const MAX_FILE_BYTES: u64 = ENVELOPE_HEAD_BYTES + BIN_LIMIT;

/// How many bytes of bodies [`Writer`] gathers before it writes them: its writes of
/// bodies are whole multiples of this, but for the last.
pub const STAGE_BYTES: usize = 1 << 20;

/// How entry bodies are ordered in the body area: by path, compared component by component
/// (`docs/a/x.md` before `docs/a-b.md`). That is the order of a walk sorted by file name,
/// which is the order the compiler reads files in, so `folio build` writes each body as soon
/// as it is read.
pub fn source_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/').cmp(b.split('/'))
}

/// Entry indices in body order ([`source_order`] of their paths).
pub(super) fn body_order(catalog: &Catalog) -> Vec<usize> {
    let mut order: Vec<usize> = (0..catalog.entries.len()).collect();
    order.sort_by(|&a, &b| source_order(&catalog.entries[a].path, &catalog.entries[b].path));
    order
}

/// Writes `catalog.msgpack` front to back while the entry bodies are still being produced:
/// `folio build` hands each file's bytes to [`Writer::body`] as the compiler reads it (in
/// [`source_order`]), so the bodies are neither kept in memory nor read twice, and
/// [`Writer::finish`] adds the search index and the metadata once the catalog is assembled.
///
/// The envelope comes first in the file but holds the hash and length of what follows it, so
/// it is written as a placeholder of the same length and rewritten at the end: `out` must seek
/// back to where it started. The bodies are not hashed here: each entry's blake3, which the
/// compiler computed from the same bytes, is in the metadata the catalog hash covers.
pub struct Writer<W: Write + Seek> {
    pub(super) out: W,
    /// Where the envelope starts in `out`.
    start: u64,
    /// Bodies not yet written, gathered into blocks of exactly [`STAGE_BYTES`]: a write of a
    /// whole block goes past a `BufWriter` of at most that capacity without being copied into
    /// it. (A block a little short of a megabyte was copied into `folio build`'s 1 MiB buffer
    /// first: every body copied once more.)
    staged: Vec<u8>,
    /// Path and length of each body written, in order.
    pub(super) written: Vec<(String, u64)>,
    /// Bytes of bodies written.
    bodies_len: u64,
    /// The most bytes the body may hold: [`BIN_LIMIT`] (smaller in tests, which cannot write
    /// 4 GiB).
    pub(super) limit: u64,
}

impl<W: Write + Seek> Writer<W> {
    /// Starts a catalog file at `out`'s position with a placeholder envelope. A buffered `out`
    /// should hold at most [`STAGE_BYTES`], so that blocks of bodies go past its buffer.
    pub fn new(mut out: W) -> std::io::Result<Writer<W>> {
        let start = out.stream_position()?;
        out.write_all(&envelope_head(&"0".repeat(64), 0)?)?;
        Ok(Writer { out, start, staged: Vec::new(), written: Vec::new(), bodies_len: 0, limit: BIN_LIMIT })
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
        let written = std::mem::take(&mut self.written);
        let search = &catalog.search.data[..];
        // The index's hash is recorded from its bytes as written, whatever the catalog says.
        let index = SearchIndex::new(catalog.search.data.clone());
        // The offsets are worked out and the metadata encoded (on another thread) while the
        // index is written here.
        let meta = std::thread::scope(|scope| {
            let meta = scope.spawn(|| {
                let offsets = body_offsets(&catalog.entries, &written).map_err(|why| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("the bodies written do not match the catalog: {why}"),
                    )
                })?;
                Ok(meta::encode(catalog, &index, &offsets))
            });
            let wrote = self.out.write_all(search);
            // Encoding does not panic; if it ever did, re-raise it here.
            let meta = crate::parallel::join(meta);
            wrote.and(meta)
        })?;
        let mut tail = [0u8; TAIL];
        tail[..8].copy_from_slice(&self.bodies_len.to_le_bytes());
        tail[8..].copy_from_slice(&(search.len() as u64).to_le_bytes());
        let meta_len: usize = meta.iter().map(Vec::len).sum();
        let hashed = self.write_hashed(meta.iter().map(Vec::as_slice).chain([&tail[..]]))?;
        let body_len = self.bodies_len + (search.len() + meta_len + TAIL) as u64;
        if body_len > self.limit {
            return Err(too_large(body_len, self.limit));
        }
        let body_len = usize::try_from(body_len).map_err(|_| too_large(body_len, self.limit))?;
        let catalog_hash = hashed.to_hex().to_string();
        let envelope = envelope_head(&catalog_hash, body_len)?;
        let end = self.out.stream_position()?;
        self.out.seek(SeekFrom::Start(self.start))?;
        self.out.write_all(&envelope)?;
        self.out.seek(SeekFrom::Start(end))?;
        Ok((self.out, catalog_hash))
    }

    /// Writes `pieces` and returns their blake3: the last stretch of the build, on one core, so
    /// the hashing runs on another thread while the pieces are written here.
    fn write_hashed<'p>(
        &mut self,
        pieces: impl Iterator<Item = &'p [u8]> + Clone + Send,
    ) -> std::io::Result<blake3::Hash> {
        let mut hasher = blake3::Hasher::new();
        let out = &mut self.out;
        let (hasher, wrote) = std::thread::scope(|scope| {
            let to_hash = pieces.clone();
            let hashed = scope.spawn(move || {
                for piece in to_hash {
                    hasher.update(piece);
                }
                hasher
            });
            let wrote = pieces.into_iter().try_for_each(|piece| out.write_all(piece));
            // Hashing does not panic; if it ever did, re-raise it here.
            (crate::parallel::join(hashed), wrote)
        });
        wrote.map(|()| hasher.finalize())
    }

    /// Writes the bodies gathered so far.
    fn write_staged(&mut self) -> std::io::Result<()> {
        self.out.write_all(&self.staged)?;
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

/// A sink that only counts, for [`super::hash_of`]: the writer seeks back to its envelope, so
/// `std::io::sink()` will not do.
#[derive(Default)]
pub(super) struct Discard {
    at: u64,
    len: u64,
}

impl Write for Discard {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.at += buf.len() as u64;
        self.len = self.len.max(self.at);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for Discard {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.at = match pos {
            SeekFrom::Start(at) => at,
            SeekFrom::End(d) => self.len.saturating_add_signed(d),
            SeekFrom::Current(d) => self.at.saturating_add_signed(d),
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

/// The envelope's fields before the hash's value: what a reader of a planned file expects to
/// find first (see [`super::plan()`]).
pub(super) fn envelope_prefix() -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    // Writing to a `Vec` does not fail.
    let _ = rmp::encode::write_map_len(&mut out, 4);
    let _ = rmp::encode::write_str(&mut out, "format");
    let _ = rmp::encode::write_str(&mut out, FORMAT_NAME);
    let _ = rmp::encode::write_str(&mut out, "version");
    let _ = rmp::encode::write_uint(&mut out, u64::from(FORMAT_VERSION));
    let _ = rmp::encode::write_str(&mut out, "catalog_hash");
    out
}

/// The envelope's bytes up to the body's: what `rmp_serde` writes for an [`super::Envelope`] holding
/// a body of `body_len` bytes, except that the body's length is always a `bin32` header (5
/// bytes), which msgpack readers accept for any length. A fixed-size envelope is what lets
/// [`Writer`] write a placeholder first and the real one last, for catalogs of any size.
pub(super) fn envelope_head(catalog_hash: &str, body_len: usize) -> std::io::Result<Vec<u8>> {
    let n = u32::try_from(body_len).map_err(|_| too_large(body_len as u64, BIN_LIMIT))?;
    let mut head = envelope_prefix();
    // Writing to a `Vec` does not fail.
    let _ = rmp::encode::write_str(&mut head, catalog_hash);
    let _ = rmp::encode::write_str(&mut head, "body");
    head.push(rmp::Marker::Bin32.to_u8());
    head.extend_from_slice(&n.to_be_bytes());
    Ok(head)
}
