//! The MCP server: an rmcp `ServerHandler` over an opened catalog answering resources, templates,
//! the Skills extension (SEP-2640), completion and the fallback tools (`content/docs/reference/mcp.md`, `tools.md`, `security.md`).
//!
//! This module owns [`FolioServer`] (cheap to clone: it holds one `Arc` of everything precomputed
//! at open time) and the public entry points other binaries use to serve their own embedded
//! catalog ([`serve_stdio`], [`serve_http`]). It never reads the content tree and never prints to
//! stdout: in stdio mode stdout is the protocol, logs go to stderr through `tracing`.
//!
//! Every payload an agent reads comes from the query layer (`crate::query`); the resource
//! handlers and the tools call the same functions, so the same URI read both ways returns
//! identical text.

mod completion;
mod content;
mod errors;
mod handler;
pub(crate) mod http;
mod limits;
mod live;
mod notify;
mod params;
mod prompts;
mod resources;
pub mod shelf;
mod skills;
mod state;
mod stdio;
mod templates;
mod tool_names;
mod tools;
pub mod transport;
mod wire;

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::query::Query;
pub use limits::HttpLimits;
pub use notify::Swapped;
pub use shelf::{Shelf, ShelfServer, serve_shelf_http, shelf_router};
pub(crate) use state::State;
pub use state::{LiveMode, WATCH_TTL_MS};
pub use transport::{
    HttpOptions, ServeError, router, run_on, run_on_pipes, run_shelf_on_pipes, run_shelf_stdio, run_stdio,
    run_transport, serve_http, serve_stdio, serve_stdio_as, shutdown_signal,
};

/// The `_meta` key of the server identity the 2026-07-28 spec asks for on every result. rmcp keeps
/// its constant private, so the literal lives here once.
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// Folio's own name: the server's name on the wire when the catalog names no project (never
/// rmcp's), and always under [`FOLIO_META_KEY`] for diagnosis.
pub const SERVER_NAME: &str = "folio";
/// Folio's own version, reported like [`SERVER_NAME`].
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The `_meta` key naming the Folio build that serves, whatever project the server is.
pub const FOLIO_META_KEY: &str = "dev.folio/server";

/// The project a server is to its clients: `serverInfo.name` and `version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
}

impl Identity {
    /// The identity a catalog gives: `[catalog] name` and `version` of its `folio.toml`. A catalog
    /// that names no project (`name` left at `folio`) is Folio's own; without a `version`, Folio's
    /// version is reported.
    pub fn of_catalog(catalog: &Catalog) -> Identity {
        let settings = &catalog.settings;
        Identity {
            name: settings.name.clone(),
            version: settings.version.clone().unwrap_or_else(|| SERVER_VERSION.to_owned()),
        }
    }
}

/// The identity of the crate this macro is written in: its Cargo package name and version. For a
/// project that embeds its catalog in its own binary:
/// `FolioServer::from_static(CATALOG)?.with_identity(folio::crate_identity!())`.
#[macro_export]
macro_rules! crate_identity {
    () => {
        $crate::server::Identity {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    };
}

/// An MCP server over one opened catalog, which [`FolioServer::replace`] can swap for another
/// while it serves. Cloning is cheap (an `Arc`), which matters because the Streamable HTTP
/// transport builds a handler per stateless request; clones share the catalog holder.
#[derive(Clone)]
pub struct FolioServer {
    live: Arc<live::Live>,
    /// The `resources/subscribe` set of one legacy (2025-11-25) stdio session; `None` outside a
    /// session (stateless HTTP has none).
    session: Option<Arc<notify::Session>>,
}

/// Why a catalog could not be served.
#[derive(Debug)]
pub struct OpenError(String);

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenError {}

impl FolioServer {
    /// Opens `catalog.msgpack` bytes read at run time (e.g. `--catalog FILE`).
    ///
    /// Fails when the bytes are not a valid catalog (truncated, corrupted, tampered, another format
    /// version) or when the catalog names one URI twice.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, OpenError> {
        Self::from_query(Query::open(bytes.to_vec()).map_err(|e| OpenError(e.to_string()))?)
    }

    /// Opens `catalog.msgpack` bytes the caller owns (a file just read), without copying them.
    ///
    /// Fails like [`FolioServer::from_bytes`].
    pub fn from_vec(bytes: Vec<u8>) -> Result<Self, OpenError> {
        Self::from_query(Query::open(bytes).map_err(|e| OpenError(e.to_string()))?)
    }

    /// Opens catalog bytes embedded in a binary (`include_bytes!`) without copying their bodies.
    ///
    /// Fails like [`FolioServer::from_bytes`].
    pub fn from_static(bytes: &'static [u8]) -> Result<Self, OpenError> {
        Self::from_query(Query::open_static(bytes).map_err(|e| OpenError(e.to_string()))?)
    }

    /// Opens the catalog embedded in this binary at build time.
    ///
    /// Fails only if the embedded catalog does not verify, which a build never produces.
    #[cfg(feature = "manual")]
    pub fn embedded() -> Result<Self, OpenError> {
        Self::from_static(crate::embedded::CATALOG_MSGPACK)
    }

    /// Serves a catalog compiled in memory (`serve --content DIR`).
    ///
    /// Fails when the catalog names one URI twice (ARCHITECTURE.md, invariant "Unique URIs").
    pub fn from_catalog(catalog: Catalog) -> Result<Self, OpenError> {
        Self::from_query(Query::from_catalog(catalog))
    }

    /// Serves an opened query handle; everything listed is precomputed here, once. The catalog is
    /// fixed ([`LiveMode::Fixed`]) until [`FolioServer::with_live_mode`] says otherwise.
    ///
    /// Fails when the catalog names one URI twice (ARCHITECTURE.md, invariant "Unique URIs").
    pub fn from_query(query: Query) -> Result<Self, OpenError> {
        let state = State::build(Arc::new(query), LiveMode::Fixed, None, tools::list())?;
        Ok(FolioServer { live: Arc::new(live::Live::new(state, LiveMode::Fixed, None)), session: None })
    }

    /// The same catalog, served in `mode`: a catalog that can change declares
    /// `resources.listChanged`, `resources.subscribe` and `prompts.listChanged`, and a watched
    /// one carries a short `ttlMs`. Call it before serving: clones made earlier keep the old mode.
    ///
    /// Fails like [`FolioServer::from_query`] (it cannot, for a catalog that opened).
    pub fn with_live_mode(self, mode: LiveMode) -> Result<Self, OpenError> {
        let identity = self.live.identity().cloned();
        let query = Arc::clone(&self.live.load().query);
        let state = State::build(query, mode, identity.as_ref(), tools::list())?;
        Ok(FolioServer { live: Arc::new(live::Live::new(state, mode, identity)), session: None })
    }

    /// The same server, telling clients it is `identity` (`serverInfo.name` and `version`) rather
    /// than what the catalog's `[catalog]` says: for a project that serves its docs from its own
    /// binary (`with_identity(folio::crate_identity!())`). Folio's own name and version stay in
    /// every result's `_meta` under [`FOLIO_META_KEY`]. Kept across reloads.
    #[must_use]
    pub fn with_identity(self, identity: Identity) -> Self {
        let mode = self.live.mode();
        let query = Arc::clone(&self.live.load().query);
        match State::build(query, mode, Some(&identity), tools::list()) {
            Ok(state) => {
                FolioServer { live: Arc::new(live::Live::new(state, mode, Some(identity))), session: None }
            }
            // The catalog opened once, so it opens again; keep the server as it was otherwise.
            Err(_) => self,
        }
    }

    /// How this server's catalog can change.
    pub fn live_mode(&self) -> LiveMode {
        self.live.mode()
    }

    /// Swaps the served catalog for `query` (a recompiled tree, a reloaded file): requests in
    /// flight finish on the old one, requests after this call see the new one, and listen
    /// streams and subscribed sessions get the notifications the change calls for. A catalog
    /// with the same hash as the served one changes nothing.
    ///
    /// Fails, keeping the old catalog, when the new one names a URI twice or the server's
    /// catalog is [`LiveMode::Fixed`].
    pub fn replace(&self, query: Query) -> Result<Swapped, OpenError> {
        self.replace_shared(Arc::new(query))
    }

    /// [`FolioServer::replace`] with a catalog another server also serves (a shelf's).
    pub(crate) fn replace_shared(&self, query: Arc<Query>) -> Result<Swapped, OpenError> {
        if !self.live.mode().can_change() {
            return Err(OpenError(
                "this server's catalog is fixed; serve it with a live mode to replace it".into(),
            ));
        }
        let current = self.live.load();
        if current.query().catalog_hash() == query.catalog_hash() {
            return Ok(Swapped::unchanged(&current));
        }
        let state = State::build(query, self.live.mode(), self.live.identity(), tools::list())?;
        let swapped = Swapped::between(&current, &state);
        drop(current);
        // Freed here (the reload thread) unless a request in flight still holds it.
        drop(self.live.swap(state));
        Ok(swapped)
    }

    /// The catalog new requests answer from (a snapshot: a later swap does not change it).
    pub fn query(&self) -> Arc<Query> {
        Arc::clone(&self.live.load().query)
    }

    /// A receiver that wakes when a reload replaces the catalog (after this call).
    #[cfg(feature = "web")]
    pub(crate) fn swaps(&self) -> tokio::sync::watch::Receiver<Arc<State>> {
        self.live.subscribe()
    }

    /// The snapshot one request answers from.
    pub(crate) fn state(&self) -> Arc<State> {
        self.live.load()
    }

    /// A handler for one connection (stdio, a socket): same catalog, its own legacy
    /// `resources/subscribe` set.
    pub(crate) fn for_session(&self) -> FolioServer {
        FolioServer { live: Arc::clone(&self.live), session: Some(Arc::new(notify::Session::default())) }
    }
}
