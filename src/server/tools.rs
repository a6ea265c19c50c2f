//! The read-only fallback tools (`content/docs/reference/tools.md`) for clients that can call
//! tools but cannot attach resources: their argument
//! types with the input schemas derived from them (kept tight: `tools/list` is part of every
//! model context), and the dispatch of `tools/call`.
//!
//! Every payload comes from `content.rs`, the builder the resource handlers use, so a tool and a
//! resource never answer differently for the same entry. Problems the caller can fix (unknown id,
//! bad argument) are `isError: true` results with a sentence and a structured `repair`; only an
//! unknown tool name is a protocol error (`-32602`).

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::JsonSchema;
use rmcp::schemars::generate::SchemaSettings;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use base64::Engine as _;

use super::tool_names::ToolName;
use super::{State, content, errors, resources, templates};
use crate::catalog::uri::echo;
use crate::query::{Kind, ListParams, Mode, QueryError, ReadContent, SearchParams, Selection, Sort};

/// Declares each tool's arguments and handler: one line each, `Variant, Arguments, handler;`,
/// over the names in [`ToolName`]. Listing and dispatch both match on every variant, so a tool
/// cannot be named without a handler or called with arguments other than those its schema was
/// derived from.
macro_rules! tools {
    ($($variant:ident, $args:ty, $run:ident;)*) => {
        impl ToolName {
            /// Its input schema, derived from its arguments.
            fn input_schema(self) -> JsonObject {
                match self {
                    $(ToolName::$variant => input_schema::<$args>(),)*
                }
            }

            fn run(self, state: &State, args: JsonObject) -> Result<CallToolResult, Failure> {
                match self {
                    $(ToolName::$variant => parse::<$args>(args).and_then(|a| $run(state, a)),)*
                }
            }
        }
    };
}

tools! {
    GetPatternById, PatternArgs, get_pattern_by_id;
    GetSkillDocumentById, SkillDocArgs, get_skill_document_by_id;
    ListResources, ListArgs, list_resources;
    ReadResource, ReadArgs, read_resource;
    SearchPatterns, SearchArgs, search_patterns;
}

/// The tools, sorted by name (`tools/list` is deterministic).
pub(crate) fn list() -> Vec<Tool> {
    ToolName::ALL.iter().map(|&name| tool(name, description(name), output_schema(name))).collect()
}

/// What the model reads about a tool.
fn description(name: ToolName) -> &'static str {
    match name {
        ToolName::GetPatternById => {
            "Detail record of a skill or doc: metadata, outline (section ids, line ranges), files, links. \
             Same JSON as resource://catalog/skills/{id} or resource://catalog/docs/{path}."
        }
        ToolName::GetSkillDocumentById => {
            "A skill's SKILL.md text (byte-identical to skill://…/SKILL.md) and its file list. Read references only when SKILL.md asks."
        }
        ToolName::ListResources => {
            "List catalog URIs with title and size, filtered and paginated, plus the URI templates (first page)."
        }
        ToolName::ReadResource => {
            "Read a catalog URI: the same text resources/read returns. Large docs are bounded; \
             use section or start_line/end_line (see total_lines, next)."
        }
        ToolName::SearchPatterns => {
            "Ranked search over skills and docs: uri, kind, title, snippet, score, size. In a catalog built \
             with vectors, words and meaning are ranked together (mode hybrid); mode semantic ranks by \
             meaning alone and gives each hit's distance."
        }
    }
}

/// The shape of a tool's `structuredContent` (built with `json!`, so written by hand).
fn output_schema(name: ToolName) -> Value {
    match name {
        ToolName::GetPatternById => {
            json!({"type": "object", "properties": {"kind": {"type": "string"}, "uri": {"type": "string"}}, "required": ["kind", "uri"]})
        }
        ToolName::GetSkillDocumentById => json!({"type": "object", "properties": {
            "skill_id": {"type": "string"}, "uri": {"type": "string"}, "text": {"type": "string"},
            "files": {"type": "array", "items": {"type": "object"}},
        }, "required": ["skill_id", "uri", "text", "files"]}),
        ToolName::ListResources => json!({"type": "object", "properties": {
            "resources": {"type": "array", "items": {"type": "object"}},
            "templates": {"type": "array", "items": {"type": "object"}},
            "next_cursor": {"type": "string"},
        }, "required": ["resources"]}),
        ToolName::ReadResource => json!({"type": "object", "properties": {
            "uri": {"type": "string"}, "mime_type": {"type": "string"}, "text": {"type": "string"},
            "blob": {"type": "string"}, "total_lines": {"type": "integer"}, "start_line": {"type": "integer"},
            "end_line": {"type": "integer"}, "blake3": {"type": "string"}, "truncated": {"type": "boolean"},
            "next": {"type": "string"},
        }, "required": ["uri", "mime_type", "truncated"]}),
        ToolName::SearchPatterns => json!({"type": "object", "properties": {
            "hits": {"type": "array", "items": {"type": "object"}},
            "next_cursor": {"type": "string"},
        }, "required": ["hits"]}),
    }
}

/// The JSON Schema (2020-12, MCP's default dialect) of a tool's arguments, derived from the type
/// `tools/call` deserializes them into: subschemas inline (no `$defs` for a model to chase), and
/// without `$schema` (the default dialect) or the type's own title and doc (noise in every
/// model context). Optional arguments accept `null`, as serde does.
pub(crate) fn input_schema<T: JsonSchema>() -> JsonObject {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let Ok(Value::Object(mut schema)) = serde_json::to_value(schema) else {
        unreachable!("a derived schema is a JSON object")
    };
    schema.remove("title");
    schema.remove("description");
    schema
}

fn tool(name: ToolName, description: &'static str, output: Value) -> Tool {
    let Value::Object(output) = output else { unreachable!("output schemas are object literals") };
    Tool::new(name.as_str(), description, Arc::new(name.input_schema()))
        .with_raw_output_schema(Arc::new(output))
        .with_annotations(
            ToolAnnotations::new().read_only(true).idempotent(true).destructive(false).open_world(false),
        )
}

/// Runs one tool. Unknown tools are a protocol error; everything else is a result.
pub(crate) fn call(state: &State, name: &str, args: JsonObject) -> Result<CallToolResult, McpError> {
    let Some(tool) = ToolName::from_name(name) else { return Err(errors::unknown_tool(name)) };
    Ok(tool.run(state, args).unwrap_or_else(Failure::into_result))
}

/// A failure the caller can fix: one sentence for the model plus a structured next step.
pub(crate) struct Failure {
    message: String,
    repair: Value,
}

impl Failure {
    fn new(message: impl Into<String>, repair: Value) -> Self {
        Failure { message: message.into(), repair }
    }

    /// From a query-layer error, with the tool and argument a suggestion would go to. What the
    /// caller asked for is quoted in the message, capped ([`errors::clip_quoted`]).
    fn query(err: &QueryError, tool: &str, argument: &str) -> Self {
        let (message, repair) = content::tool_failure(err, tool, argument);
        Failure { message: errors::clip_quoted(&message), repair }
    }

    fn into_result(self) -> CallToolResult {
        let mut out = CallToolResult::error(vec![ContentBlock::text(self.message.clone())]);
        out.structured_content = Some(json!({ "error": self.message, "repair": self.repair }));
        out
    }
}

fn parse<T: DeserializeOwned>(args: JsonObject) -> Result<T, Failure> {
    serde_json::from_value(Value::Object(args)).map_err(|e| {
        Failure::new(
            // serde quotes the offending value or field name: cap it like any echo.
            format!(
                "Invalid arguments: {}. See this tool's inputSchema in tools/list.",
                echo(&e.to_string())
            ),
            json!({ "method": "tools/list" }),
        )
    })
}

// The arguments of each tool. Their doc comments are the `description`s of `tools/list`: an
// argument whose name says enough has none (every byte of the list is in every model context).

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
struct ListArgs {
    kind: Option<ListKind>,
    /// Path prefix, e.g. guides/.
    prefix: Option<String>,
    tag: Option<String>,
    category: Option<String>,
    /// Only docs in this locale, e.g. ja or zh-cn.
    lang: Option<String>,
    /// YYYY-MM-DD.
    updated_since: Option<String>,
    sort: Option<ListSort>,
    cursor: Option<String>,
    #[schemars(range(min = 1, max = 500))]
    limit: Option<usize>,
}

// Which entries `list_resources` lists (the aliases are the CLI's spellings, accepted as before).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "snake_case")]
enum ListKind {
    #[serde(alias = "skills")]
    Skill,
    #[serde(alias = "skill-file")]
    SkillFile,
    #[serde(alias = "docs")]
    Doc,
    Catalog,
    All,
}

impl ListKind {
    fn filter(self) -> Option<Kind> {
        match self {
            ListKind::Skill => Some(Kind::Skill),
            ListKind::SkillFile => Some(Kind::SkillFile),
            ListKind::Doc => Some(Kind::Doc),
            ListKind::Catalog => Some(Kind::Catalog),
            ListKind::All => None,
        }
    }
}

// The order of `list_resources`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "snake_case")]
enum ListSort {
    Path,
    Updated,
}

fn list_resources(state: &State, a: ListArgs) -> Result<CallToolResult, Failure> {
    let query = state.query();
    let fail = |e: QueryError| Failure::query(&e, ToolName::ListResources.as_str(), "prefix");
    let params = ListParams {
        kind: a.kind.and_then(ListKind::filter),
        prefix: a.prefix,
        tag: a.tag,
        category: a.category,
        lang: a.lang,
        capability: None,
        updated_since: a.updated_since,
        sort: match a.sort {
            None | Some(ListSort::Path) => Sort::Path,
            Some(ListSort::Updated) => Sort::Updated,
        },
        cursor: a.cursor.clone(),
        limit: Some(a.limit.unwrap_or(DEFAULT_LIST_LIMIT).min(500)),
    };
    let page = query.list(&params).map_err(fail)?;
    let mut text = String::new();
    let mut records = Vec::with_capacity(page.items.len());
    for record in page.items {
        text.push_str(&record.uri);
        if !record.title.is_empty() {
            text.push_str(" — ");
            text.push_str(&record.title);
        }
        text.push('\n');
        records.push(serde_json::to_value(resources::resource(record)).unwrap_or(Value::Null));
    }
    let mut out = json!({ "resources": records });
    if a.cursor.is_none() {
        out["templates"] = json!(
            templates::FAMILIES
                .iter()
                .map(|f| json!({ "uriTemplate": f.template, "description": f.description }))
                .collect::<Vec<_>>()
        );
    }
    if let Some(next) = &page.next_cursor {
        out["next_cursor"] = json!(next);
        text.push_str(&format!(
            "More ({} in all): call list_resources with cursor \"{next}\".\n",
            page.total
        ));
    }
    if records.is_empty() {
        text.push_str("No resources match these filters.\n");
    }
    Ok(structured(out, text))
}

/// Default page of `list_resources` (the query layer's default is for the indexes).
const DEFAULT_LIST_LIMIT: usize = 100;

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    /// e.g. resource://docs/guides/install.md or skill://pdf/SKILL.md
    uri: String,
    /// Heading id from the detail record.
    section: Option<String>,
    #[schemars(range(min = 1))]
    start_line: Option<u32>,
    #[schemars(range(min = 1))]
    end_line: Option<u32>,
}

fn read_resource(state: &State, a: ReadArgs) -> Result<CallToolResult, Failure> {
    let selection = Selection { section: a.section, start_line: a.start_line, end_line: a.end_line };
    let read = state
        .query()
        .read(&a.uri, &selection)
        .map_err(|e| Failure::query(&e, ToolName::ReadResource.as_str(), "uri"))?;
    let mut out = json!({
        "uri": read.uri,
        "mime_type": read.mime,
        "truncated": read.truncated,
        "total_lines": read.total_lines,
        "blake3": read.blake3,
    });
    let text = match &read.content {
        ReadContent::Text(t) => {
            out["text"] = json!(t);
            t.clone()
        }
        ReadContent::Blob(b) => {
            out["blob"] = json!(base64::engine::general_purpose::STANDARD.encode(&b[..]));
            format!(
                "{} is binary ({}, {} bytes); its base64 bytes are in structuredContent.blob.",
                read.uri,
                read.mime,
                b.len()
            )
        }
    };
    if let Some((start, end)) = read.range {
        out["start_line"] = json!(start);
        out["end_line"] = json!(end);
    }
    if let Some(next) = &read.next {
        out["next"] = json!(next);
    }
    Ok(structured(out, text))
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    query: String,
    mode: Option<SearchMode>,
    kind: Option<SearchKind>,
    tag: Option<String>,
    capability: Option<String>,
    category: Option<String>,
    /// Only docs in this locale, e.g. ja or zh-cn.
    lang: Option<String>,
    #[schemars(range(min = 1, max = 50))]
    limit: Option<usize>,
    cursor: Option<String>,
}

// Which entries `search_patterns` ranks (the catalog's own records are not searched).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "snake_case")]
enum SearchKind {
    #[serde(alias = "skills")]
    Skill,
    #[serde(alias = "skill-file")]
    SkillFile,
    #[serde(alias = "docs")]
    Doc,
    All,
}

// How `search_patterns` ranks (`bm25` is the CLI's older name for keyword).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "snake_case")]
enum SearchMode {
    Hybrid,
    #[serde(alias = "bm25")]
    Keyword,
    Semantic,
}

fn search_patterns(state: &State, a: SearchArgs) -> Result<CallToolResult, Failure> {
    let fail = |e: QueryError| Failure::query(&e, ToolName::SearchPatterns.as_str(), "query");
    let params = SearchParams {
        query: a.query.clone(),
        kind: match a.kind {
            None | Some(SearchKind::All) => None,
            Some(SearchKind::Skill) => Some(Kind::Skill),
            Some(SearchKind::SkillFile) => Some(Kind::SkillFile),
            Some(SearchKind::Doc) => Some(Kind::Doc),
        },
        tag: a.tag,
        capability: a.capability,
        category: a.category,
        lang: a.lang,
        limit: Some(a.limit.unwrap_or(10).min(50)),
        cursor: a.cursor,
        mode: match a.mode {
            None | Some(SearchMode::Hybrid) => Mode::Hybrid,
            Some(SearchMode::Keyword) => Mode::Keyword,
            Some(SearchMode::Semantic) => Mode::Semantic,
        },
    };
    let page = state.query().search(&params).map_err(fail)?;
    let mut text = String::new();
    for (i, hit) in page.items.iter().enumerate() {
        text.push_str(&format!("{}. {} — {}\n", i + 1, hit.title, hit.uri));
        if !hit.translations.is_empty() {
            let others: Vec<&str> = hit.translations.iter().map(|t| t.locale.as_str()).collect();
            text.push_str(&format!("   also in: {}\n", others.join(", ")));
        }
        if !hit.snippet.is_empty() {
            text.push_str(&format!("   {}\n", hit.snippet));
        }
    }
    if page.items.is_empty() {
        text.push_str(&format!(
            "No match for `{}`. Try fewer or other words, or call list_resources.\n",
            errors::printable(&a.query)
        ));
    }
    let mut out = json!({ "hits": page.items, "total": page.total });
    if let Some(next) = page.next_cursor {
        text.push_str(&format!("More: call search_patterns with cursor \"{next}\".\n"));
        out["next_cursor"] = json!(next);
    }
    Ok(structured(out, text))
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
struct PatternArgs {
    /// Skill id, doc path (guides/install.md) or any catalog URI.
    id: String,
}

fn get_pattern_by_id(state: &State, a: PatternArgs) -> Result<CallToolResult, Failure> {
    let detail = state
        .query()
        .detail(&a.id)
        .map_err(|e| Failure::query(&e, ToolName::GetPatternById.as_str(), "id"))?;
    // The exact text `resources/read` returns for the detail URI.
    let text = detail.to_json();
    let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
    out.structured_content = serde_json::to_value(&detail).ok();
    Ok(out)
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
struct SkillDocArgs {
    /// Skill name, e.g. from search_patterns.
    skill_id: String,
    /// Only this heading id.
    section: Option<String>,
}

fn get_skill_document_by_id(state: &State, a: SkillDocArgs) -> Result<CallToolResult, Failure> {
    let query = state.query();
    let detail = query
        .skill_detail(&a.skill_id)
        .map_err(|e| Failure::query(&e, ToolName::GetSkillDocumentById.as_str(), "skill_id"))?;
    let selection = Selection { section: a.section, ..Selection::default() };
    let read = state
        .query()
        .read(&detail.uri, &selection)
        .map_err(|e| Failure::query(&e, ToolName::GetSkillDocumentById.as_str(), "skill_id"))?;
    let text = read.text().unwrap_or_default().to_owned();
    let out = json!({
        "skill_id": detail.id,
        "uri": detail.uri,
        "text": text,
        "files": detail.files,
    });
    let mut res = CallToolResult::success(vec![ContentBlock::text(text)]);
    res.structured_content = Some(out);
    Ok(res)
}

/// A success with `structuredContent` and a concise text rendering for the model.
fn structured(value: Value, text: String) -> CallToolResult {
    let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
    out.structured_content = Some(value);
    out
}
