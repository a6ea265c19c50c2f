//! A shelf: many catalogs served by one server (`folio serve --shelf DIR`,
//! `content/docs/guides/shelves.md`). Each catalog is `<name>@<version>` (its `[catalog] name`
//! and `version`; `<name>` alone without a version), and its URIs name it as their authority
//! (`catalog::uri::shelf`).
//!
//! This module owns [`Shelf`]: which catalog files are on it, what is listed about each (read
//! with [`Query::peek_file`], not by opening it), picking a version, and opening a catalog on its
//! first use, kept open afterwards while at most [`Shelf::cap_open`] catalogs are (the least
//! recently used one is closed to make room; a request in flight keeps its catalog until it
//! ends). `handler` answers MCP over a shelf by handing each request
//! to the catalog it names, and `tools` holds the shelf's tools.
//!
//! Must not: open a catalog before a request needs it (a shelf of a thousand starts from their
//! first and last bytes), or change a catalog's answers beyond naming the catalog in its URIs.

mod handler;
mod http;
mod rewrite;
mod tools;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use super::{FolioServer, OpenError};
use crate::catalog::uri::shelf::{catalog_id, compare_versions, split_catalog_id};
use crate::query::{Peek, Query};
pub use handler::ShelfServer;
pub use http::{serve_shelf_http, shelf_router};

/// How a shelf opens a catalog file on its first use (the CLI's reads it or maps it, and gives
/// it the search model it asked for).
pub type Opener = Arc<dyn Fn(&Path) -> Result<Query, String> + Send + Sync>;

/// The file name `folio build --out DIR` writes, looked for one level down a shelf folder.
pub const CATALOG_FILE: &str = "catalog.msgpack";

/// The catalogs one server serves, each listed from its first bytes and opened on first use.
pub struct Shelf {
    /// Sorted by name, then newest version first.
    slots: Vec<Arc<Slot>>,
    /// Names the set of catalogs (ids and hashes): a cursor across the shelf carries it.
    generation: String,
    /// The bound on open catalogs, shared with the shelves made from this one.
    keeper: Arc<Keeper>,
}

/// One catalog of a shelf.
pub(crate) struct Slot {
    /// `<name>@<version>` (or `<name>`), as URIs write it.
    pub(crate) id: String,
    /// The file it is read from.
    pub(crate) path: PathBuf,
    /// What the listing shows, read without opening it.
    pub(crate) peek: Peek,
    opener: Opener,
    /// The catalog, once a request needed it (or why it could not be opened); `None` again
    /// after the keeper closed it.
    server: Mutex<Option<Result<FolioServer, String>>>,
    /// When a request last used it, on the keeper's clock.
    used: AtomicU64,
    /// The shelf's bound on open catalogs, shared by every slot (and kept across rescans).
    keeper: Arc<Keeper>,
    /// This slot, for the keeper's list of open ones.
    me: Weak<Slot>,
}

/// How many catalogs of a shelf may be open at once, and which are.
struct Keeper {
    max_open: AtomicUsize,
    clock: AtomicU64,
    open: Mutex<Vec<Weak<Slot>>>,
}

impl Keeper {
    /// Notes `slot` as open, then closes the least recently used others past the bound.
    fn opened(&self, slot: &Weak<Slot>) {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        open.retain(|s| s.strong_count() > 0 && !s.ptr_eq(slot));
        open.push(slot.clone());
        let max = self.max_open.load(Ordering::Relaxed).max(1);
        while open.len() > max {
            let oldest = open
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.ptr_eq(slot))
                .min_by_key(|(_, s)| s.upgrade().map_or(0, |s| s.used.load(Ordering::Relaxed)))
                .map(|(i, _)| i);
            let Some(i) = oldest else { break };
            if let Some(closed) = open.swap_remove(i).upgrade() {
                closed.close();
            }
        }
    }
}

/// Why a shelf could not be made.
#[derive(Debug)]
pub struct ShelfError(String);

impl std::fmt::Display for ShelfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ShelfError {}

impl Shelf {
    /// The catalog files of a shelf folder: each `*.msgpack` in it and each
    /// `<dir>/catalog.msgpack` one level down (what `folio build --out DIR/<name>` writes),
    /// sorted by path. Hidden entries are skipped.
    ///
    /// Fails when the folder cannot be read.
    pub fn files_in(dir: &Path) -> Result<Vec<PathBuf>, ShelfError> {
        let read = std::fs::read_dir(dir).map_err(|e| ShelfError(format!("{}: {e}", dir.display())))?;
        let mut out = Vec::new();
        for entry in read.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                let inner = path.join(CATALOG_FILE);
                if inner.is_file() {
                    out.push(inner);
                }
            } else if path.extension().is_some_and(|e| e == "msgpack") {
                out.push(path);
            }
        }
        out.sort();
        Ok(out)
    }

    /// A shelf of `files`, each listed from its first and last bytes ([`Query::peek_file`]);
    /// `opener` opens one when a request first needs it.
    ///
    /// Fails when a file is not a catalog, or two files are the same `name@version` (the
    /// message names both).
    pub fn open(files: &[PathBuf], opener: Opener) -> Result<Shelf, ShelfError> {
        Shelf::reopen(files, opener, None)
    }

    /// [`Shelf::open`], keeping the catalogs of `previous` already open whose file and hash are
    /// unchanged (a folder scanned again after a change).
    ///
    /// Fails like [`Shelf::open`].
    pub fn reopen_from(files: &[PathBuf], opener: Opener, previous: &Shelf) -> Result<Shelf, ShelfError> {
        Shelf::reopen(files, opener, Some(previous))
    }

    fn reopen(files: &[PathBuf], opener: Opener, previous: Option<&Shelf>) -> Result<Shelf, ShelfError> {
        let keeper =
            previous.and_then(|p| p.slots.first().map(|s| Arc::clone(&s.keeper))).unwrap_or_else(|| {
                Arc::new(Keeper {
                    max_open: AtomicUsize::new(usize::MAX),
                    clock: AtomicU64::new(0),
                    open: Mutex::new(Vec::new()),
                })
            });
        let mut slots: Vec<Arc<Slot>> = Vec::with_capacity(files.len());
        for path in files {
            let peek = Query::peek_file(path).map_err(|e| ShelfError(e.to_string()))?;
            let id = catalog_id(&peek.name, peek.version.as_deref());
            let kept = previous.and_then(|p| {
                p.slots.iter().find(|s| s.path == *path && s.peek == peek && s.id == id).cloned()
            });
            let slot = kept.unwrap_or_else(|| {
                Arc::new_cyclic(|me| Slot {
                    id,
                    path: path.clone(),
                    peek,
                    opener: Arc::clone(&opener),
                    server: Mutex::new(None),
                    used: AtomicU64::new(0),
                    keeper: Arc::clone(&keeper),
                    me: me.clone(),
                })
            });
            slots.push(slot);
        }
        slots.sort_by(|a, b| {
            a.peek
                .name
                .cmp(&b.peek.name)
                .then_with(|| newest_first(&a.peek, &b.peek))
                .then(a.path.cmp(&b.path))
        });
        if let Some(w) = slots.windows(2).find(|w| w[0].id == w[1].id) {
            return Err(ShelfError(format!(
                "{} and {} are both `{}`: give one another `[catalog] name` or `version`",
                w[0].path.display(),
                w[1].path.display(),
                w[0].id
            )));
        }
        let mut hasher = blake3::Hasher::new();
        for slot in &slots {
            hasher
                .update(slot.id.as_bytes())
                .update(b"\0")
                .update(slot.peek.catalog_hash.as_bytes())
                .update(b"\n");
        }
        let generation = hasher.finalize().to_hex()[..16].to_owned();
        Ok(Shelf { slots, generation, keeper })
    }

    /// Keeps at most `max` catalogs open (at least one): opening one more closes the least
    /// recently used. Kept by the shelves [`Shelf::reopen_from`] makes of this one.
    pub fn cap_open(&self, max: usize) {
        self.keeper.max_open.store(max.max(1), Ordering::Relaxed);
    }

    /// How many catalogs are open now.
    pub fn open_count(&self) -> usize {
        self.slots.iter().filter(|s| s.is_open()).count()
    }

    /// How many catalogs the shelf holds.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when the shelf holds no catalog.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Every catalog's id (`name@version`), by name, newest version first.
    pub fn ids(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.id.clone()).collect()
    }

    /// The opened catalog `id` names (`name@version`, or `name` for its latest version), opened
    /// now if no request has opened it yet.
    ///
    /// Fails when no catalog is named so, or it cannot be opened (the message says why).
    pub fn server(&self, id: &str) -> Result<FolioServer, OpenError> {
        let slot = self.resolve(id).ok_or_else(|| OpenError(format!("no catalog `{id}` on this shelf")))?;
        slot.server().map_err(OpenError)
    }

    /// The catalogs in order (by name, newest version first).
    pub(crate) fn slots(&self) -> &[Arc<Slot>] {
        &self.slots
    }

    pub(crate) fn generation(&self) -> &str {
        &self.generation
    }

    /// The catalog a request names: the exact id, else `name@version` by its decoded parts,
    /// else `name` alone for the name's latest version.
    pub(crate) fn resolve(&self, id: &str) -> Option<&Arc<Slot>> {
        if let Some(slot) = self.slots.iter().find(|s| s.id == id) {
            return Some(slot);
        }
        let (name, version) = split_catalog_id(id)?;
        match version {
            Some(version) => self
                .slots
                .iter()
                .find(|s| s.peek.name == name && s.peek.version.as_deref() == Some(version.as_str())),
            // Slots are newest first within a name.
            None => self.slots.iter().find(|s| s.peek.name == name),
        }
    }

    /// The names on the shelf with their slots (newest first), in name order.
    pub(crate) fn libraries(&self) -> Vec<&[Arc<Slot>]> {
        self.slots.chunk_by(|a, b| a.peek.name == b.peek.name).collect()
    }
}

impl Slot {
    /// The catalog, opened on the first call; the same one (or the same refusal) afterwards,
    /// until the keeper closes it to make room (the next call opens it again).
    pub(crate) fn server(&self) -> Result<FolioServer, String> {
        self.used.store(self.keeper.clock.fetch_add(1, Ordering::Relaxed) + 1, Ordering::Relaxed);
        let opened = {
            let mut cell = self.server.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(known) = cell.as_ref() {
                return known.clone();
            }
            let opened = (self.opener)(&self.path).and_then(|query| {
                FolioServer::from_query(query).map_err(|e| format!("{}: {e}", self.path.display()))
            });
            *cell = Some(opened.clone());
            opened
        };
        if opened.is_ok() {
            self.keeper.opened(&self.me);
        }
        opened
    }

    /// Drops the open catalog (requests in flight keep theirs until they end).
    fn close(&self) {
        self.server.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    }

    /// [`Slot::server`] for a request: a catalog that cannot be opened is an internal error
    /// naming it.
    pub(crate) fn opened(&self) -> Result<FolioServer, rmcp::ErrorData> {
        self.server().map_err(|e| {
            rmcp::ErrorData::internal_error(
                format!("catalog `{}` cannot be opened: {}", self.id, super::errors::clip_quoted(&e)),
                Some(serde_json::json!({
                    "repair": { "hint": "rebuild the catalog with `folio build` and replace its file" }
                })),
            )
        })
    }

    /// True while it is open (or was refused).
    pub(crate) fn is_open(&self) -> bool {
        self.server.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_some()
    }
}

/// Newest version first; a catalog without a version ranks below any with one.
fn newest_first(a: &Peek, b: &Peek) -> std::cmp::Ordering {
    match (&a.version, &b.version) {
        (Some(x), Some(y)) => compare_versions(y, x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}
