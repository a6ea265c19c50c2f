//! The rmcp `ServerHandler` implementation: one method per MCP request, each a thin adapter from
//! protocol types to the precomputed state and the shared content builder.
//!
//! Every result gets `ttlMs`/`cacheScope: public` where the spec defines them and `_meta` with
//! `io.modelcontextprotocol/serverInfo`; every error carries `data.repair`. Handlers never panic
//! on request data and never cache anything about the peer (2026-07-28 is stateless per request).

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    CustomRequest, CustomResult, DiscoverResult, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

use super::resources::{self, RESOURCE_PAGE, page};
use super::skills::SKILL_PAGE;
use super::{FolioServer, completion, content, errors, notify, params, prompts, skills, tools};
use crate::query::{ListParams, QueryError, Selection};

/// Methods this server answers. A request for one of them whose params do not deserialize reaches
/// `on_custom_request`, which must answer `-32602`, not rmcp's default `-32601` (HTTP 404).
/// `initialize` is not here: a well-formed one still works for legacy clients, but for a
/// 2026-07-28 peer it is a removed method and must stay `-32601` / 404 (SEP-2575).
const KNOWN_METHODS: &[&str] = &[
    "server/discover",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/directory/read",
    "tools/list",
    "tools/call",
    "completion/complete",
    "skills/list",
    "skills/get",
    "prompts/list",
    "prompts/get",
    "subscriptions/listen",
];

impl ServerHandler for FolioServer {
    fn get_info(&self) -> ServerConfig {
        self.state().info.clone()
    }

    async fn discover(&self, _ctx: RequestContext<RoleServer>) -> Result<DiscoverResult, McpError> {
        let st = self.state();
        Ok(DiscoverResult::from_server_info(self.supported_protocol_versions().into_owned(), st.info.clone())
            .with_ttl_ms(st.ttl_ms)
            .with_cache_scope(CacheScope::Public))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        params::check(&ctx, "resources/list")?;
        let st = &*self.state();
        let cursor = request.and_then(|r| r.cursor);
        let params =
            ListParams { cursor: cursor.clone(), limit: Some(RESOURCE_PAGE), ..ListParams::default() };
        let listing = st.query().list(&params).map_err(|e| match e {
            QueryError::InvalidParams { param: "cursor", .. } => {
                self.bad_cursor("resources/list", cursor.as_deref())
            }
            other => McpError::internal_error(errors::clip_quoted(&other.to_string()), None),
        })?;
        let mut out =
            ListResourcesResult::with_all_items(listing.items.into_iter().map(resources::resource).collect())
                .with_ttl_ms(st.ttl_ms)
                .with_cache_scope(CacheScope::Public);
        out.next_cursor = listing.next_cursor;
        out.meta = st.meta();
        Ok(out)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        params::check(&ctx, "resources/templates/list")?;
        let st = &*self.state();
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) =
            page(st.query(), "resources/templates/list", &st.templates, cursor.as_deref(), RESOURCE_PAGE)
                .map_err(|_| self.bad_cursor("resources/templates/list", cursor.as_deref()))?;
        let mut out = ListResourceTemplatesResult::with_all_items(items.to_vec())
            .with_ttl_ms(st.ttl_ms)
            .with_cache_scope(CacheScope::Public);
        out.next_cursor = next;
        out.meta = st.meta();
        Ok(out)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let st = &*self.state();
        let contents = content::read_resource(st.query(), &request.uri)?;
        let mut out = ReadResourceResult::new(vec![contents])
            .with_ttl_ms(st.ttl_ms)
            .with_cache_scope(CacheScope::Public);
        out.meta = st.meta();
        Ok(out.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let st = self.state();
        let info = completion::complete(&st, &request)?;
        let mut out = CompleteResult::new(info);
        out.meta = st.meta();
        Ok(out)
    }

    /// Everything requested that the capabilities declare, with at most
    /// 1,024 resource subscriptions (`notify::MAX_SUBSCRIPTIONS`). A fixed catalog declares no
    /// `listChanged`/`subscribe`, so its acknowledgement grants nothing (rather than `-32601`
    /// for clients that always open a stream) and the stream idles until cancelled.
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(notify::capped(requested.supported_by(&self.state().info.capabilities)))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        notify::listen(&self.live, context).await
    }

    /// Legacy (2025-11-25) stdio sessions: adds `uri` to the session's set; from now on each
    /// swap that changes what it serves sends `notifications/resources/updated`. A URI that
    /// serves nothing yet is accepted (it is notified when it appears); a malformed one is not.
    #[allow(deprecated, reason = "legacy sessions have no other way to subscribe")]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        let session = self.legacy_session("resources/subscribe")?;
        let st = self.state();
        if let Err(e) = st.query().read(&request.uri, &Selection::default())
            && !e.is_not_found()
        {
            return Err(content::read_error(st.query(), &request.uri, &e));
        }
        if !session.subscribe(&st, &request.uri) {
            return Err(errors::too_many_subscriptions(notify::MAX_SUBSCRIPTIONS));
        }
        Ok(())
    }

    #[allow(deprecated, reason = "legacy sessions have no other way to unsubscribe")]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.legacy_session("resources/unsubscribe")?.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        params::check(&ctx, "tools/list")?;
        let st = &*self.state();
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = page(st.query(), "tools/list", &st.tools, cursor.as_deref(), RESOURCE_PAGE)
            .map_err(|_| self.bad_cursor("tools/list", cursor.as_deref()))?;
        let mut out = ListToolsResult::with_all_items(items.to_vec())
            .with_ttl_ms(st.ttl_ms)
            .with_cache_scope(CacheScope::Public);
        out.next_cursor = next;
        out.meta = st.meta();
        Ok(out)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.state().tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let st = self.state();
        let mut out = tools::call(&st, &request.name, request.arguments.unwrap_or_default())?;
        out.meta = st.meta();
        Ok(out.into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        params::check(&ctx, "prompts/list")?;
        let cursor = request.and_then(|r| r.cursor);
        prompts::list(&self.state(), cursor.as_deref())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        Ok(prompts::get(&self.state(), &request.name, request.arguments.as_ref())?.into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        params::check(&ctx, "skills/list")?;
        let st = &*self.state();
        let cursor = request.and_then(|r| r.cursor);
        let (items, next) = page(st.query(), "skills/list", &st.skills().list, cursor.as_deref(), SKILL_PAGE)
            .map_err(|_| self.bad_cursor("skills/list", cursor.as_deref()))?;
        let mut out = ListSkillsResult::with_all_items(items.to_vec())
            .with_ttl_ms(st.ttl_ms)
            .with_cache_scope(CacheScope::Public);
        out.next_cursor = next;
        out.meta = st.meta();
        Ok(out)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let st = &*self.state();
        // Exact match only: rmcp refuses an answer whose URI differs from the request by one byte.
        let skills = st.skills();
        let Some(&i) = skills.by_uri.get(&request.uri) else {
            let suggestion = skills::suggest(st.query(), &request.uri);
            return Err(errors::not_a_skill(&request.uri, suggestion.as_deref()));
        };
        let mut out = GetSkillResult::new(skills.list[i].clone())
            .with_ttl_ms(st.ttl_ms)
            .with_cache_scope(CacheScope::Public);
        out.meta = st.meta();
        Ok(out)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        params::check(&ctx, "resources/directory/read")?;
        let st = &*self.state();
        let listing = st
            .query()
            .directory(&request.uri, request.cursor.as_deref(), Some(RESOURCE_PAGE))
            .map_err(|e| {
                let bad_cursor = matches!(e, QueryError::InvalidParams { param: "cursor", .. });
                errors::not_a_directory(&request.uri, &e.to_string(), bad_cursor)
            })?;
        let items: Vec<Resource> = listing
            .items
            .iter()
            .map(|child| match resources::record_of(st.query(), &child.uri) {
                // Files carry the same record resources/list gives them.
                Some(record) if !child.is_directory => resources::resource(record),
                _ => Resource::new(child.uri.clone(), child.name.clone()).with_mime_type(child.mime.clone()),
            })
            .collect();
        let next = listing.next_cursor;
        let mut out = ReadResourceDirectoryResult::with_all_items(items)
            .with_ttl_ms(st.ttl_ms)
            .with_cache_scope(CacheScope::Public);
        out.next_cursor = next;
        out.meta = st.meta();
        Ok(out)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        custom_request(&request, &ctx)
    }
}

/// A request rmcp did not route: a known method whose params did not deserialize (`-32602`),
/// or an unknown method (`-32601`). A shelf answers the same.
pub(crate) fn custom_request(
    request: &CustomRequest,
    ctx: &RequestContext<RoleServer>,
) -> Result<CustomResult, McpError> {
    if KNOWN_METHODS.contains(&request.method.as_str()) {
        // `resources/directory/read` with a cursor that is not a string lands here.
        params::check(ctx, &request.method)?;
        Err(errors::malformed_params(&request.method))
    } else {
        Err(errors::unknown_method(&request.method))
    }
}

impl FolioServer {
    /// A refused cursor: "restart the listing" when an earlier catalog issued it, "not a cursor"
    /// otherwise.
    fn bad_cursor(&self, method: &str, cursor: Option<&str>) -> McpError {
        if cursor.is_some_and(|c| self.live.is_stale(c)) {
            errors::stale_cursor(method)
        } else {
            errors::bad_cursor(method)
        }
    }

    /// The session a legacy subscription belongs to; stateless requests have none.
    fn legacy_session(&self, method: &str) -> Result<&notify::Session, McpError> {
        if !self.live.mode().can_change() {
            // Not declared: the catalog never changes, so there is nothing to subscribe to.
            return Err(errors::unknown_method(method));
        }
        self.session.as_deref().ok_or_else(|| errors::needs_session(method))
    }
}
