//! The five read-only fallback tools (`content/docs/reference/tools.md`) for clients that can call tools but cannot attach
//! resources: their hand-written JSON schemas (kept tight: `tools/list` is part of every model
//! context) and the dispatch of `tools/call`.
//!
//! Every payload comes from `content.rs`, the builder the resource handlers use, so a tool and a
//! resource never answer differently for the same entry. Problems the caller can fix (unknown id,
//! bad argument) are `isError: true` results with a sentence and a structured `repair`; only an
//! unknown tool name is a protocol error (`-32602`).

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use base64::Engine as _;

use super::{State, content, errors, resources, templates};
use crate::catalog::uri::echo;
use crate::query::{Kind, ListParams, Mode, QueryError, ReadContent, SearchParams, Selection, Sort};

/// The tools, sorted by name (`tools/list` is deterministic).
pub(crate) fn list() -> Vec<Tool> {
    let mut tools = vec![
        tool(
            "get_pattern_by_id",
            "Detail record of a skill or doc: metadata, outline (section ids, line ranges), files, links. \
             Same JSON as resource://catalog/skills/{id} or resource://catalog/docs/{path}.",
            json!({"id": {"type": "string", "description": "Skill id, doc path (guides/install.md) or any catalog URI."}}),
            &["id"],
            json!({"type": "object", "properties": {"kind": {"type": "string"}, "uri": {"type": "string"}}, "required": ["kind", "uri"]}),
        ),
        tool(
            "get_skill_document_by_id",
            "A skill's SKILL.md text (byte-identical to skill://…/SKILL.md) and its file list. Read references only when SKILL.md asks.",
            json!({
                "skill_id": {"type": "string", "description": "Skill name, e.g. from search_patterns."},
                "section": {"type": "string", "description": "Only this heading id."},
            }),
            &["skill_id"],
            json!({"type": "object", "properties": {
                "skill_id": {"type": "string"}, "uri": {"type": "string"}, "text": {"type": "string"},
                "files": {"type": "array", "items": {"type": "object"}},
            }, "required": ["skill_id", "uri", "text", "files"]}),
        ),
        tool(
            "list_resources",
            "List catalog URIs with title and size, filtered and paginated, plus the URI templates (first page).",
            json!({
                "kind": {"enum": ["skill", "skill_file", "doc", "catalog", "all"]},
                "prefix": {"type": "string", "description": "Path prefix, e.g. guides/."},
                "tag": {"type": "string"},
                "category": {"type": "string"},
                "lang": {"type": "string", "description": "Only docs in this locale, e.g. ja or zh-cn."},
                "updated_since": {"type": "string", "description": "YYYY-MM-DD."},
                "sort": {"enum": ["path", "updated"]},
                "cursor": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 500},
            }),
            &[],
            json!({"type": "object", "properties": {
                "resources": {"type": "array", "items": {"type": "object"}},
                "templates": {"type": "array", "items": {"type": "object"}},
                "next_cursor": {"type": "string"},
            }, "required": ["resources"]}),
        ),
        tool(
            "read_resource",
            "Read a catalog URI: the same text resources/read returns. Large docs are bounded; \
             use section or start_line/end_line (see total_lines, next).",
            json!({
                "uri": {"type": "string", "description": "e.g. resource://docs/guides/install.md or skill://pdf/SKILL.md"},
                "section": {"type": "string", "description": "Heading id from the detail record."},
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1},
            }),
            &["uri"],
            json!({"type": "object", "properties": {
                "uri": {"type": "string"}, "mime_type": {"type": "string"}, "text": {"type": "string"},
                "blob": {"type": "string"}, "total_lines": {"type": "integer"}, "start_line": {"type": "integer"},
                "end_line": {"type": "integer"}, "blake3": {"type": "string"}, "truncated": {"type": "boolean"},
                "next": {"type": "string"},
            }, "required": ["uri", "mime_type", "truncated"]}),
        ),
        tool(
            "search_patterns",
            "Ranked search over skills and docs: uri, kind, title, snippet, score, size. In a catalog built \
             with vectors, words and meaning are ranked together (mode hybrid); mode semantic ranks by \
             meaning alone and gives each hit's distance.",
            json!({
                "query": {"type": "string"},
                "mode": {"enum": ["hybrid", "keyword", "semantic"]},
                "kind": {"enum": ["skill", "skill_file", "doc", "all"]},
                "tag": {"type": "string"},
                "capability": {"type": "string"},
                "category": {"type": "string"},
                "lang": {"type": "string", "description": "Only docs in this locale, e.g. ja or zh-cn."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                "cursor": {"type": "string"},
            }),
            &["query"],
            json!({"type": "object", "properties": {
                "hits": {"type": "array", "items": {"type": "object"}},
                "next_cursor": {"type": "string"},
            }, "required": ["hits"]}),
        ),
    ];
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    tools
}

fn tool(
    name: &'static str,
    description: &'static str,
    properties: Value,
    required: &[&str],
    output: Value,
) -> Tool {
    let mut input = JsonObject::new();
    input.insert("type".to_owned(), json!("object"));
    input.insert("properties".to_owned(), properties);
    if !required.is_empty() {
        input.insert("required".to_owned(), json!(required));
    }
    input.insert("additionalProperties".to_owned(), json!(false));
    let Value::Object(output) = output else { unreachable!("output schemas are object literals") };
    Tool::new(name, description, Arc::new(input)).with_raw_output_schema(Arc::new(output)).with_annotations(
        ToolAnnotations::new().read_only(true).idempotent(true).destructive(false).open_world(false),
    )
}

/// Runs one tool. Unknown tools are a protocol error; everything else is a result.
pub(crate) fn call(state: &State, name: &str, args: JsonObject) -> Result<CallToolResult, McpError> {
    let res = match name {
        "list_resources" => parse(args).and_then(|a| list_resources(state, a)),
        "read_resource" => parse(args).and_then(|a| read_resource(state, a)),
        "search_patterns" => parse(args).and_then(|a| search_patterns(state, a)),
        "get_pattern_by_id" => parse(args).and_then(|a| get_pattern_by_id(state, a)),
        "get_skill_document_by_id" => parse(args).and_then(|a| get_skill_document_by_id(state, a)),
        _ => return Err(errors::unknown_tool(name)),
    };
    Ok(res.unwrap_or_else(Failure::into_result))
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    kind: Option<String>,
    prefix: Option<String>,
    tag: Option<String>,
    category: Option<String>,
    lang: Option<String>,
    updated_since: Option<String>,
    sort: Option<String>,
    cursor: Option<String>,
    limit: Option<usize>,
}

fn list_resources(state: &State, a: ListArgs) -> Result<CallToolResult, Failure> {
    let query = state.query();
    let fail = |e: QueryError| Failure::query(&e, "list_resources", "prefix");
    let params = ListParams {
        kind: Kind::parse_filter(a.kind.as_deref().unwrap_or("all")).map_err(fail)?,
        prefix: a.prefix,
        tag: a.tag,
        category: a.category,
        lang: a.lang,
        capability: None,
        updated_since: a.updated_since,
        sort: Sort::parse(a.sort.as_deref().unwrap_or("path")).map_err(fail)?,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    uri: String,
    section: Option<String>,
    start_line: Option<u32>,
    end_line: Option<u32>,
}

fn read_resource(state: &State, a: ReadArgs) -> Result<CallToolResult, Failure> {
    let selection = Selection { section: a.section, start_line: a.start_line, end_line: a.end_line };
    let read =
        state.query().read(&a.uri, &selection).map_err(|e| Failure::query(&e, "read_resource", "uri"))?;
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    query: String,
    kind: Option<String>,
    tag: Option<String>,
    capability: Option<String>,
    category: Option<String>,
    lang: Option<String>,
    limit: Option<usize>,
    cursor: Option<String>,
    mode: Option<String>,
}

fn search_patterns(state: &State, a: SearchArgs) -> Result<CallToolResult, Failure> {
    let fail = |e: QueryError| Failure::query(&e, "search_patterns", "query");
    let params = SearchParams {
        query: a.query.clone(),
        kind: match a.kind.as_deref() {
            None | Some("all") => None,
            Some(k) => Kind::parse_filter(k).map_err(fail)?,
        },
        tag: a.tag,
        capability: a.capability,
        category: a.category,
        lang: a.lang,
        limit: Some(a.limit.unwrap_or(10).min(50)),
        cursor: a.cursor,
        mode: Mode::parse(a.mode.as_deref().unwrap_or_default()).map_err(fail)?,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatternArgs {
    id: String,
}

fn get_pattern_by_id(state: &State, a: PatternArgs) -> Result<CallToolResult, Failure> {
    let detail = state.query().detail(&a.id).map_err(|e| Failure::query(&e, "get_pattern_by_id", "id"))?;
    // The exact text `resources/read` returns for the detail URI.
    let text = detail.to_json();
    let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
    out.structured_content = serde_json::to_value(&detail).ok();
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SkillDocArgs {
    skill_id: String,
    section: Option<String>,
}

fn get_skill_document_by_id(state: &State, a: SkillDocArgs) -> Result<CallToolResult, Failure> {
    let query = state.query();
    let detail = query
        .skill_detail(&a.skill_id)
        .map_err(|e| Failure::query(&e, "get_skill_document_by_id", "skill_id"))?;
    let selection = Selection { section: a.section, ..Selection::default() };
    let read = state
        .query()
        .read(&detail.uri, &selection)
        .map_err(|e| Failure::query(&e, "get_skill_document_by_id", "skill_id"))?;
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
