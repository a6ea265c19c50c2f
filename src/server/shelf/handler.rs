//! [`ShelfServer`]: the rmcp `ServerHandler` of a shelf. A request that names a catalog (a URI's
//! authority, a prompt's `<catalog>/` prefix, a tool's `catalog`) is handed to that catalog's own
//! server, opened on first use, and its answer comes back with the catalog named in every URI
//! (`rewrite`); a list (`resources/list`, `skills/list`, `prompts/list`) runs through the
//! catalogs in shelf order, one catalog's page at a time.
//!
//! Must not: answer from anything but the catalogs' own servers, or open a catalog a request does
//! not reach.

use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    CompletionInfo, CustomRequest, CustomResult, DiscoverResult, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, Implementation, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, MetaObject, PaginatedRequestParams,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourceContents, ResourceTemplate, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::rewrite::{self, Cursor};
use super::{Shelf, Slot};
use crate::catalog::uri::shelf::{from_shelf, text_to_shelf, to_shelf};
use crate::server::{
    FOLIO_META_KEY, FolioServer, LiveMode, SERVER_INFO_KEY, SERVER_NAME, SERVER_VERSION, WATCH_TTL_MS,
    errors, params, prompts, state, templates,
};

/// An MCP server over a [`Shelf`]. Cloning is cheap (an `Arc`); clones share the shelf, which
/// [`ShelfServer::replace`] can swap while it serves.
#[derive(Clone)]
pub struct ShelfServer {
    inner: Arc<Inner>,
}

struct Inner {
    current: watch::Sender<Arc<Shelf>>,
    mode: LiveMode,
    info: ServerConfig,
    meta: MetaObject,
    tools: Vec<Tool>,
    templates: Vec<ResourceTemplate>,
}

impl ShelfServer {
    /// Serves `shelf`; `mode` other than [`LiveMode::Fixed`] declares `listChanged` (the folder
    /// is followed and [`ShelfServer::replace`] is called when it changes).
    pub fn new(shelf: Shelf, mode: LiveMode) -> ShelfServer {
        let mut meta = MetaObject::new();
        let identity = Implementation::new(SERVER_NAME, SERVER_VERSION)
            .with_title("Folio shelf")
            .with_description("Many Folio catalogs, each named `<name>@<version>` in its URIs.");
        meta.insert(SERVER_INFO_KEY.to_owned(), serde_json::to_value(&identity).unwrap_or(Value::Null));
        meta.insert(FOLIO_META_KEY.to_owned(), json!({ "name": SERVER_NAME, "version": SERVER_VERSION }));
        // The tools are the same whatever the shelf holds: only resources and prompts change.
        let caps = state::capabilities(mode);
        let mut info = ServerConfig::new(caps).with_server_info(identity).with_instructions(instructions());
        info.meta = Some(meta.clone());
        ShelfServer {
            inner: Arc::new(Inner {
                current: watch::Sender::new(Arc::new(shelf)),
                mode,
                info,
                meta,
                tools: super::tools::list(),
                templates: shelf_templates(),
            }),
        }
    }

    /// The shelf new requests answer from.
    pub fn shelf(&self) -> Arc<Shelf> {
        Arc::clone(&self.inner.current.borrow())
    }

    /// Serves `shelf` from now on (requests in flight finish on the old one); listen streams are
    /// told the lists changed. False, and nothing sent, when it holds the same catalogs.
    pub fn replace(&self, shelf: Shelf) -> bool {
        if shelf.generation() == self.shelf().generation() {
            return false;
        }
        self.inner.current.send_replace(Arc::new(shelf));
        true
    }

    /// A receiver that wakes when the shelf is replaced.
    pub(crate) fn changes(&self) -> watch::Receiver<Arc<Shelf>> {
        self.inner.current.subscribe()
    }

    /// How this shelf can change.
    pub fn live_mode(&self) -> LiveMode {
        self.inner.mode
    }

    fn ttl_ms(&self) -> u64 {
        match self.inner.mode {
            LiveMode::Watched => WATCH_TTL_MS,
            LiveMode::Fixed | LiveMode::Reloadable => crate::catalog::Settings::default().ttl_ms,
        }
    }

    fn meta(&self) -> Option<MetaObject> {
        Some(self.inner.meta.clone())
    }

    /// A list across the catalogs: the page of the catalog `cursor` points at (the first when
    /// none), as that catalog's own server lists it (`one`, given the catalog's cursor),
    /// skipping catalogs with nothing to list, and the cursor after it.
    async fn across<T>(
        &self,
        method: &str,
        cursor: Option<&str>,
        mut one: impl AsyncFnMut(
            &Slot,
            FolioServer,
            PaginatedRequestParams,
        ) -> Result<(Vec<T>, Option<String>), McpError>,
    ) -> Result<(Vec<T>, Option<String>), McpError> {
        let shelf = self.shelf();
        let mut at = match cursor {
            None => Cursor { slot: 0, inner: None },
            Some(c) => Cursor::decode(c, shelf.generation()).map_err(|stale| {
                if stale { errors::stale_cursor(method) } else { errors::bad_cursor(method) }
            })?,
        };
        while let Some(slot) = shelf.slots().get(at.slot) {
            let page = PaginatedRequestParams::default().with_cursor(at.inner.take());
            let (items, next) =
                one(slot, slot.opened()?, page).await.map_err(|e| rewrite::error(&slot.id, e))?;
            let after = match next {
                Some(inner) => Some(Cursor { slot: at.slot, inner: Some(inner) }),
                None => (at.slot + 1 < shelf.len()).then_some(Cursor { slot: at.slot + 1, inner: None }),
            };
            if !items.is_empty() || after.is_none() {
                return Ok((items, after.map(|c| c.encode(shelf.generation()))));
            }
            at = after.unwrap_or(Cursor { slot: shelf.len(), inner: None });
        }
        Ok((Vec::new(), None))
    }

    /// The catalog a shelf URI names and the catalog's own URI, or a not-found naming the form.
    fn locate(&self, uri: &str) -> Result<(Arc<Slot>, FolioServer, String), McpError> {
        let shelf = self.shelf();
        let unnamed = || {
            errors::resource_not_found(
                uri,
                None,
                "on a shelf every URI names its catalog: resource://<name>@<version>/docs/… or \
                 skill://<name>@<version>/…; call find_library or read resources/list",
            )
        };
        let Some((id, inner)) = from_shelf(uri) else { return Err(unnamed()) };
        // `resource://docs/…` is a catalog's own URI, not one of a catalog named `docs`.
        let family = uri.starts_with("resource://") && matches!(id, "docs" | "catalog" | "skills");
        let Some(slot) = shelf.resolve(id) else {
            if family {
                return Err(unnamed());
            }
            return Err(errors::resource_not_found(
                uri,
                None,
                &format!("no catalog `{}` on this shelf; call find_library", errors::printable(id)),
            ));
        };
        Ok((Arc::clone(slot), slot.opened()?, inner))
    }
}

/// The model-facing instructions of a shelf.
fn instructions() -> String {
    "A shelf of Folio catalogs (libraries at versions), read-only. Each catalog is named \
     `<name>@<version>` and every URI names it: resource://<name>@<version>/docs/…, \
     skill://<name>@<version>/…/SKILL.md, resource://<name>@<version>/catalog/about.\n\
     1. Find the library: call find_library (by name or words of its description); it gives each \
     library's versions and the catalog to use (the latest unless you name a version).\n\
     2. Search: call search_patterns with `catalog` (or without it, across the shelf: each hit \
     names its catalog).\n\
     3. Read: read the hit's URI (resources/read or read_resource); pass `catalog` to the other \
     tools."
        .to_owned()
}

/// Every template of a catalog with its catalog as a variable: `resource://{catalog}/docs/{+path}`.
fn shelf_templates() -> Vec<ResourceTemplate> {
    templates::list()
        .into_iter()
        .map(|mut t| {
            t.uri_template = to_shelf("{catalog}", &t.uri_template);
            t
        })
        .collect()
}

impl ServerHandler for ShelfServer {
    fn get_info(&self) -> ServerConfig {
        self.inner.info.clone()
    }

    async fn discover(&self, _ctx: RequestContext<RoleServer>) -> Result<DiscoverResult, McpError> {
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.inner.info.clone(),
        )
        .with_ttl_ms(self.ttl_ms())
        .with_cache_scope(CacheScope::Public))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        params::check(&ctx, "resources/list")?;
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = self
            .across("resources/list", cursor.as_deref(), async move |slot, server, page| {
                let out = server.list_resources(Some(page), ctx.clone()).await?;
                Ok((out.resources.into_iter().map(|r| rewrite::item(&slot.id, r)).collect(), out.next_cursor))
            })
            .await?;
        let mut out = ListResourcesResult::with_all_items(items)
            .with_ttl_ms(self.ttl_ms())
            .with_cache_scope(CacheScope::Public);
        out.next_cursor = next;
        out.meta = self.meta();
        Ok(out)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        params::check(&ctx, "resources/templates/list")?;
        if request.and_then(|r| r.cursor).is_some() {
            // Every template fits on the first page: no cursor was ever issued.
            return Err(errors::bad_cursor("resources/templates/list"));
        }
        let mut out = ListResourceTemplatesResult::with_all_items(self.inner.templates.clone())
            .with_ttl_ms(self.ttl_ms())
            .with_cache_scope(CacheScope::Public);
        out.meta = self.meta();
        Ok(out)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let (slot, server, inner) = self.locate(&request.uri)?;
        let st = server.state();
        let contents = crate::server::content::read_resource(st.query(), &inner)
            .map_err(|e| rewrite::error(&slot.id, e))?;
        // The canonical URI of what was read (a name without a version reads the latest).
        // `resource://catalog/…` records are Folio's writing; every other URI serves an entry.
        let generated = inner.starts_with("resource://catalog/");
        // Records Folio writes name URIs; an entry's own bytes are served as they are.
        let mut value = serde_json::to_value(&contents).unwrap_or(Value::Null);
        if let Some(Value::String(uri)) = value.get_mut("uri") {
            *uri = to_shelf(&slot.id, uri);
        }
        let json = value.get("mimeType").and_then(Value::as_str) == Some("application/json");
        if let Some(Value::String(text)) = value.get_mut("text").filter(|_| generated) {
            *text = if json { rewrite::json_text(&slot.id, text) } else { text_to_shelf(&slot.id, text) };
        }
        let contents: ResourceContents = serde_json::from_value(value).unwrap_or(contents);
        let mut out = ReadResourceResult::new(vec![contents])
            .with_ttl_ms(self.ttl_ms())
            .with_cache_scope(CacheScope::Public);
        out.meta = self.meta();
        Ok(out.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let shelf = self.shelf();
        let typed = request.argument.value.as_str();
        let info = if request.argument.name == "catalog" && request.r#ref.as_resource_uri().is_some() {
            let values: Vec<String> =
                shelf.ids().into_iter().filter(|id| id.starts_with(typed)).take(100).collect();
            CompletionInfo::with_all_values(values).map_err(|e| McpError::internal_error(e, None))?
        } else if let Some((id, name)) = request.r#ref.as_prompt_name().and_then(|p| p.split_once('/')) {
            let slot =
                shelf.resolve(id).ok_or_else(|| errors::bad_completion("no such catalog on this shelf"))?;
            prompts::complete(&slot.opened()?.state(), name, &request.argument.name)?
        } else {
            // Other variables of a template complete within the catalog its `catalog` names.
            let catalog =
                request.context.as_ref().and_then(|c| c.arguments.as_ref()).and_then(|a| a.get("catalog"));
            let template = request.r#ref.as_resource_uri().and_then(from_shelf);
            match (catalog.and_then(|c| shelf.resolve(c)), template) {
                (Some(slot), Some((_, inner))) => {
                    let mut inner_request = request.clone();
                    inner_request.r#ref = rmcp::model::Reference::for_resource(inner);
                    crate::server::completion::complete(&slot.opened()?.state(), &inner_request)?
                }
                _ => CompletionInfo::default(),
            }
        };
        let mut out = CompleteResult::new(info);
        out.meta = self.meta();
        Ok(out)
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(crate::server::notify::capped(requested.supported_by(&self.inner.info.capabilities)))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        crate::server::notify::listen_changes(self.changes(), context).await
    }

    #[allow(deprecated, reason = "legacy sessions have no other way to subscribe")]
    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Err(errors::unknown_method("resources/subscribe"))
    }

    #[allow(deprecated, reason = "legacy sessions have no other way to unsubscribe")]
    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Err(errors::unknown_method("resources/unsubscribe"))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        params::check(&ctx, "tools/list")?;
        if request.and_then(|r| r.cursor).is_some() {
            return Err(errors::bad_cursor("tools/list"));
        }
        let mut out = ListToolsResult::with_all_items(self.inner.tools.clone())
            .with_ttl_ms(self.ttl_ms())
            .with_cache_scope(CacheScope::Public);
        out.meta = self.meta();
        Ok(out)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let shelf = self.shelf();
        let mut out = super::tools::call(&shelf, &request.name, request.arguments.unwrap_or_default())?;
        out.meta = self.meta();
        Ok(out.into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        params::check(&ctx, "prompts/list")?;
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = self
            .across("prompts/list", cursor.as_deref(), async move |slot, server, page| {
                let mut out = server.list_prompts(Some(page), ctx.clone()).await?;
                for prompt in &mut out.prompts {
                    prompt.name = format!("{}/{}", slot.id, prompt.name);
                }
                Ok((rewrite::item(&slot.id, out.prompts), out.next_cursor))
            })
            .await?;
        let mut out = ListPromptsResult::with_all_items(items)
            .with_ttl_ms(self.ttl_ms())
            .with_cache_scope(CacheScope::Public);
        out.next_cursor = next;
        out.meta = self.meta();
        Ok(out)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let shelf = self.shelf();
        let found = request.name.split_once('/').and_then(|(id, name)| Some((shelf.resolve(id)?, name)));
        let Some((slot, name)) = found else {
            return Err(McpError::invalid_params(
                format!(
                    "no prompt `{}`: on a shelf a prompt is `<catalog>/<skill>`",
                    errors::printable(&request.name)
                ),
                Some(json!({ "repair": errors::repair("prompts/list", json!({}), "list the prompts") })),
            ));
        };
        let out = prompts::get(&slot.opened()?.state(), name, request.arguments.as_ref())
            .map_err(|e| rewrite::error(&slot.id, e))?;
        let mut out = rewrite::item(&slot.id, out);
        out.meta = self.meta();
        Ok(out.into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        params::check(&ctx, "skills/list")?;
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = self
            .across("skills/list", cursor.as_deref(), async move |slot, server, page| {
                let out = server.list_skills(Some(page), ctx.clone()).await?;
                Ok((rewrite::item(&slot.id, out.skills), out.next_cursor))
            })
            .await?;
        let mut out = ListSkillsResult::with_all_items(items)
            .with_ttl_ms(self.ttl_ms())
            .with_cache_scope(CacheScope::Public);
        out.next_cursor = next;
        out.meta = self.meta();
        Ok(out)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let (slot, server, inner) =
            self.locate(&request.uri).map_err(|_| errors::not_a_skill(&request.uri, None))?;
        // Exact match only, as for one catalog: the answer's URI must be the request's.
        if slot.id != from_shelf(&request.uri).map(|(id, _)| id).unwrap_or_default() {
            return Err(errors::not_a_skill(&request.uri, Some(&to_shelf(&slot.id, &inner))));
        }
        let st = server.state();
        let skills = st.skills();
        let Some(&i) = skills.by_uri.get(&inner) else {
            let suggestion =
                crate::server::skills::suggest(st.query(), &inner).map(|s| to_shelf(&slot.id, &s));
            return Err(errors::not_a_skill(&request.uri, suggestion.as_deref()));
        };
        let skill = rewrite::item(&slot.id, skills.list[i].clone());
        let mut out =
            GetSkillResult::new(skill).with_ttl_ms(self.ttl_ms()).with_cache_scope(CacheScope::Public);
        out.meta = self.meta();
        Ok(out)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        params::check(&ctx, "resources/directory/read")?;
        let (slot, server, inner) = self
            .locate(&request.uri)
            .map_err(|e| errors::not_a_directory(&request.uri, &e.message, false))?;
        let mut inner_request = request.clone();
        inner_request.uri = inner;
        let out = server
            .read_resource_directory(inner_request, ctx)
            .await
            .map_err(|e| rewrite::error(&slot.id, e))?;
        let mut out = rewrite::item(&slot.id, out);
        out.meta = self.meta();
        Ok(out)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        // The same methods, the same answers as one catalog's server.
        crate::server::handler::custom_request(&request, &ctx)
    }
}
