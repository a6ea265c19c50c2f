//! A catalog file opened as a read-only memory map instead of read into memory
//! ([`Query::open_file_mapped`], `folio serve --mmap`), so that replicas on one machine share
//! one copy of its pages (the kernel's page cache) instead of holding one each: the bodies and
//! the search index, most of an open catalog, stay ranges of the map.
//!
//! This is the one module of the workspace that may use `unsafe` (the workspace denies it
//! everywhere else), for one call: `Mmap::map`. Why it is sound here, and what it relies on:
//! - A map is only sound while no one writes to or truncates the mapped file: Rust would see
//!   bytes behind a `&[u8]` change, and a read past a truncated end raises SIGBUS. A catalog is
//!   an immutable, hash-named artifact: `folio build` writes a new file beside the old one and
//!   renames it into place, so a running server keeps the old inode, unchanged, until it reloads
//!   (then it maps the new one). Deployments mount catalogs read-only (`deploy/`).
//! - What is not covered is a person or program rewriting the file in place (`cp` over it,
//!   `truncate`, an editor saving without a rename). That is why the map is opt-in, and the
//!   manual (guides/scaling.md) says so: a server reading such a file may serve changed bytes or
//!   be killed by SIGBUS, where a server that read the file into memory (the default) is not
//!   affected until it reloads, and then refuses the changed file by its hash.
//! - The bytes are verified exactly as a read file's are: the header and metadata at open,
//!   each entry's bytes and the search index against their own blake3 when first served.
//!
//! Must not: map anything but a regular catalog file that `open_checked` accepted, or write.

#![expect(
    unsafe_code,
    reason = "mapping a file is unsafe (it may change under the map); the terms it is used on are above"
)]

use std::path::Path;
use std::sync::Arc;

use super::Query;
use super::open::open_checked;
use crate::catalog::codec;
use crate::error::Error;

/// The map, shared by the catalog's bodies (through `Bytes`) and the opener (to advise it).
struct Shared(Arc<memmap2::Mmap>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Query {
    /// Opens a `catalog.msgpack` file as a read-only memory map (see `query/mapped.rs` for when
    /// that is sound). Checked and verified exactly as [`Query::open_file`] does.
    pub fn open_file_mapped(path: &Path) -> Result<Query, Error> {
        let (file, _len, _prefix) = open_checked(path)?;
        // SAFETY: the map is read-only and the file is a regular catalog file, which Folio's
        // writers only ever replace by rename (a new inode), never change in place; the module
        // docs say what an in-place writer would cause and the manual warns against it.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        if map.len() as u64 > codec::MAX_FILE_BYTES {
            return Err(Error::io(
                path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, "larger than a catalog can be"),
            ));
        }
        let map = Arc::new(map);
        let refused = |source| Error::Catalog { path: path.to_owned(), source };
        let catalog_hash = codec::catalog_hash(&map[..]).map_err(refused)?;
        let catalog =
            codec::decode_shared(bytes::Bytes::from_owner(Shared(Arc::clone(&map)))).map_err(refused)?;
        // Verified and decoded: the metadata's pages are dropped from this process (they stay in
        // the page cache, shared), so a replica holds only the pages its requests touch. Bodies
        // are then read in no particular order: no read-ahead.
        // SAFETY: `DontNeed` on a read-only, shared file map only unmaps pages; the next access
        // maps the file's page again (it never reads zeroes: that happens only to anonymous or
        // written private pages, and this map has neither).
        let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        let _ = map.advise(memmap2::Advice::Random);
        Ok(Query::with_hash(catalog, catalog_hash))
    }
}
