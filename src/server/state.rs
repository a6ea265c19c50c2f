//! What a server answers without work per request: [`State`], computed once when a catalog is
//! opened (or swapped in), with the capabilities, identity and instructions it declares, the
//! [`LiveMode`] that decides them, and the fingerprints of its listed sets ([`SetVersions`])
//! that `notify` compares across a swap. A leaf of the server's modules: the tool list comes
//! from the caller, so that the tools, which read a `State`, are not imported here.
//!
//! Must not: do IO, or change once built (a reload builds a new one and swaps it in, see `live`).

use std::sync::{Arc, OnceLock};

use rmcp::model::{Implementation, MetaObject, ResourceTemplate, ServerCapabilities, ServerConfig, Tool};
use serde_json::json;

use super::{
    FOLIO_META_KEY, Identity, OpenError, SERVER_INFO_KEY, SERVER_NAME, SERVER_VERSION, skills, templates,
    tool_names,
};
use crate::catalog::Catalog;
use crate::query::Query;

/// Everything answered without work per request, computed once when the catalog is opened.
pub(crate) struct State {
    /// The opened catalog, which every payload comes from.
    pub(super) query: Arc<Query>,
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
    /// The fallback tools ([`tool_names::ToolName`]), sorted by name.
    pub(crate) tools: Vec<Tool>,
    /// What a swap compares to decide which notifications it causes.
    pub(crate) versions: SetVersions,
}

impl State {
    /// Precomputes everything a request needs from `query`, as `identity` (else the catalog's).
    pub(super) fn build(
        query: Arc<Query>,
        mode: LiveMode,
        identity: Option<&Identity>,
        tools: Vec<Tool>,
    ) -> Result<State, OpenError> {
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
        let versions = SetVersions::of(catalog);
        tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "server state ready");
        Ok(State {
            query,
            ttl_ms,
            info,
            meta,
            templates: templates::list(),
            skills: OnceLock::new(),
            tools,
            versions,
        })
    }
}

/// What this server declares: resources, tools, completions and the Skills extension with
/// `directoryRead`; `listChanged`/`subscribe` only when the catalog can change (a fixed one could
/// never send such a notification). Prompts, when served, get `listChanged` on the same terms.
pub(crate) fn capabilities(mode: LiveMode) -> ServerCapabilities {
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
         Without resource support use the tools: {tools}.",
        tools = tool_names::ToolName::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", "),
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

/// Whether, and how, the served catalog can change. Capabilities and cache hints follow it: a
/// server whose catalog never changes declares no `listChanged` or `subscribe`, because it could
/// never send such a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LiveMode {
    /// The catalog is fixed for the life of the process (the embedded catalog, a library user's).
    #[default]
    Fixed,
    /// The catalog is replaced on request (SIGHUP, or [`super::FolioServer::replace`]).
    Reloadable,
    /// The catalog follows the files it comes from (`--watch`): like `Reloadable`, and results
    /// carry a short `ttlMs` ([`WATCH_TTL_MS`] at most) since the next edit can land any time.
    Watched,
}

impl LiveMode {
    /// True when a swap can happen, so change notifications are declared.
    pub fn can_change(self) -> bool {
        self != LiveMode::Fixed
    }
}

/// `ttlMs` while watching: a client that caches a read should ask again soon, because an author is
/// editing the files behind it.
pub const WATCH_TTL_MS: u64 = 2_000;

/// Fingerprints of the two sets whose change is a `list_changed`.
pub(crate) struct SetVersions {
    /// blake3 over every entry URI, in order.
    pub(crate) uris: blake3::Hash,
    /// blake3 over every skill name, in order.
    pub(crate) skills: blake3::Hash,
}

impl SetVersions {
    pub(crate) fn of(catalog: &Catalog) -> SetVersions {
        let mut uris = blake3::Hasher::new();
        for entry in &catalog.entries {
            uris.update(entry.uri.as_bytes()).update(b"\n");
        }
        let mut names: Vec<&str> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        let mut skills = blake3::Hasher::new();
        for name in names {
            skills.update(name.as_bytes()).update(b"\n");
        }
        SetVersions { uris: uris.finalize(), skills: skills.finalize() }
    }
}
