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
mod http;
mod limits;
mod live;
mod notify;
mod params;
mod prompts;
mod resources;
mod skills;
mod stdio;
mod templates;
mod tools;
pub mod transport;
mod wire;

use std::sync::{Arc, OnceLock};

use rmcp::model::{Implementation, MetaObject, ResourceTemplate, ServerCapabilities, ServerConfig, Tool};
use serde_json::json;

use crate::catalog::Catalog;
use crate::query::Query;
pub use limits::HttpLimits;
pub use live::{LiveMode, WATCH_TTL_MS};
pub use notify::Swapped;
pub use transport::{
    HttpOptions, ServeError, router, run_on, run_on_pipes, run_stdio, run_transport, serve_http, serve_stdio,
    serve_stdio_as, shutdown_signal,
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

/// Everything answered without work per request, computed once when the catalog is opened.
pub(crate) struct State {
    /// The opened catalog, which every payload comes from.
    query: Arc<Query>,
    /// `ttlMs` of every cacheable result (`[server] ttl_ms`).
    pub(crate) ttl_ms: u64,
    /// What `get_info` returns (capabilities, identity, instructions, `_meta`).
    pub(crate) info: ServerConfig,
    /// `_meta` with `io.modelcontextprotocol/serverInfo`, stamped on every result.
    pub(crate) meta: MetaObject,
    /// Every resource template (`content/docs/reference/uris.md`).
    pub(crate) templates: Vec<ResourceTemplate>,
    /// The SEP-2640 entries, built on the first skills request (not at startup: a server is ready
    /// as soon as the catalog is open).
    skills: OnceLock<skills::Skills>,
    /// The five fallback tools, sorted by name.
    pub(crate) tools: Vec<Tool>,
    /// What a swap compares to decide which notifications it causes.
    pub(crate) versions: notify::SetVersions,
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
        let state = State::build(Arc::new(query), LiveMode::Fixed, None)?;
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
        let state = State::build(query, mode, identity.as_ref())?;
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
        match State::build(query, mode, Some(&identity)) {
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
        if !self.live.mode().can_change() {
            return Err(OpenError(
                "this server's catalog is fixed; serve it with a live mode to replace it".into(),
            ));
        }
        let current = self.live.load();
        if current.query().catalog_hash() == query.catalog_hash() {
            return Ok(Swapped::unchanged(&current));
        }
        let state = State::build(Arc::new(query), self.live.mode(), self.live.identity())?;
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

impl State {
    /// Precomputes everything a request needs from `query`, as `identity` (else the catalog's).
    fn build(query: Arc<Query>, mode: LiveMode, identity: Option<&Identity>) -> Result<State, OpenError> {
        let started = std::time::Instant::now();
        let catalog = query.catalog();
        if let Some(w) = catalog.entries.windows(2).find(|w| w[0].uri >= w[1].uri) {
            let what = if w[0].uri == w[1].uri { "twice" } else { "out of order" };
            return Err(OpenError(format!(
                "catalog lists `{}` {what}; rebuild it with `folio build`",
                w[1].uri
            )));
        }
        let ttl_ms = match mode {
            LiveMode::Watched => catalog.settings.ttl_ms.min(WATCH_TTL_MS),
            LiveMode::Fixed | LiveMode::Reloadable => catalog.settings.ttl_ms,
        };
        let identity = identity.cloned().unwrap_or_else(|| Identity::of_catalog(catalog));
        let (info, meta) = info_and_meta(catalog, &identity, mode);
        let versions = notify::SetVersions::of(catalog);
        tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "server state ready");
        Ok(State {
            query,
            ttl_ms,
            info,
            meta,
            templates: templates::list(),
            skills: OnceLock::new(),
            tools: tools::list(),
            versions,
        })
    }
}

/// What this server declares: resources, tools, completions and the Skills extension with
/// `directoryRead`; `listChanged`/`subscribe` only when the catalog can change (a fixed one could
/// never send such a notification). Prompts, when served, get `listChanged` on the same terms.
fn capabilities(mode: LiveMode) -> ServerCapabilities {
    let mut caps = ServerCapabilities::builder()
        .enable_completions()
        .enable_prompts()
        .enable_resources()
        .enable_tools()
        .enable_skills_with_directory_read()
        .build();
    if mode.can_change() {
        if let Some(resources) = caps.resources.as_mut() {
            resources.list_changed = Some(true);
            resources.subscribe = Some(true);
        }
        if let Some(prompts) = caps.prompts.as_mut() {
            prompts.list_changed = Some(true);
        }
    }
    caps
}

/// What `initialize`/`discover` answer and the `_meta` every result carries: the project's
/// identity under `serverInfo`, Folio's own under [`FOLIO_META_KEY`].
fn info_and_meta(catalog: &Catalog, identity: &Identity, mode: LiveMode) -> (ServerConfig, MetaObject) {
    let identity = implementation(catalog, identity);
    let mut meta = MetaObject::new();
    // The same identity discover reports, on every other result too.
    meta.insert(
        SERVER_INFO_KEY.to_owned(),
        serde_json::to_value(&identity)
            .unwrap_or_else(|_| json!({ "name": SERVER_NAME, "version": SERVER_VERSION })),
    );
    meta.insert(FOLIO_META_KEY.to_owned(), json!({ "name": SERVER_NAME, "version": SERVER_VERSION }));
    let mut info = ServerConfig::new(capabilities(mode))
        .with_server_info(identity)
        .with_instructions(instructions(catalog));
    info.meta = Some(meta.clone());
    (info, meta)
}

fn implementation(catalog: &Catalog, identity: &Identity) -> Implementation {
    let mut imp = Implementation::new(identity.name.clone(), identity.version.clone());
    if !catalog.settings.title.is_empty() {
        imp = imp.with_title(catalog.settings.title.clone());
    }
    if !catalog.settings.description.is_empty() {
        imp = imp.with_description(catalog.settings.description.clone());
    }
    imp
}

/// The model-facing instructions: the discovery order and the context-bounding rules (`content/docs/reference/mcp.md`),
/// then the catalog's own `[catalog] instructions`.
fn instructions(catalog: &Catalog) -> String {
    let n_skills = catalog.skills.len();
    let n_docs = catalog.docs.len();
    let mut out = format!(
        "{title}: {n_skills} skills and {n_docs} docs, read-only.\n\
         Discovery order (stop as soon as you have what you need):\n\
         1. Index: read resource://catalog/skills_index or resource://catalog/docs_index \
         (filter with ?q=,tag=,category=; or call search_patterns).\n\
         2. Detail: read resource://catalog/skills/{{skill_id}} or resource://catalog/docs/{{+path}} \
         (outline with section ids and line ranges, files, links).\n\
         3. Document: read the skill's SKILL.md (skill://…/SKILL.md) or the doc (resource://docs/…).\n\
         4. References: read a skill's other files only when its SKILL.md tells you to.\n\
         Context budget: load at most two skill documents per step. For large docs read one section \
         (resource://docs/{{+path}}?section=ID) or a line range (?lines=40-80) instead of the whole file; \
         reads over the size bound end with a marker naming the next range.\n\
         Without resource support use the tools: search_patterns, list_resources, get_pattern_by_id, \
         get_skill_document_by_id, read_resource.",
        title = if catalog.settings.title.is_empty() { "Folio catalog" } else { &catalog.settings.title },
    );
    if let Some(extra) = catalog.settings.instructions.as_deref().filter(|s| !s.trim().is_empty()) {
        out.push_str("\n\n");
        out.push_str(extra.trim());
    }
    out
}

impl State {
    /// The opened catalog: every question a request asks is one of its methods.
    pub(crate) fn query(&self) -> &Query {
        &self.query
    }

    /// A fresh copy of the `_meta` every result carries.
    pub(crate) fn meta(&self) -> Option<MetaObject> {
        Some(self.meta.clone())
    }

    /// The SEP-2640 entries (built once, on first use).
    pub(crate) fn skills(&self) -> &skills::Skills {
        self.skills.get_or_init(|| skills::Skills::build(self.query().catalog()))
    }
}
