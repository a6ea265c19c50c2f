//! The tools of a shelf (`content/docs/reference/tools.md`, "On a shelf"): `find_library`, which
//! finds a library by name or description and picks its version, and every tool of one catalog
//! with a `catalog` argument (a shelf URI in `uri` or `id` names it too). `search_patterns`
//! without a catalog searches every catalog and names the catalog in each hit.
//!
//! A catalog's tool runs on that catalog's own server (`crate::server::tools`), so a tool answers
//! on a shelf what it answers on one catalog, with the catalog named in its URIs.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::rewrite;
use super::{Shelf, Slot};
use crate::catalog::uri::shelf::{from_shelf, text_to_shelf};
use crate::server::tool_names::ToolName;
use crate::server::{errors, tools};

/// The shelf's own tool.
pub(crate) const FIND_LIBRARY: &str = "find_library";

/// What the model reads about the `catalog` argument every catalog's tool takes on a shelf.
const CATALOG_ARGUMENT: &str = "Catalog: a name (its latest version) or name@version, from find_library.";

/// The shelf's tools, sorted by name: `find_library` and each catalog tool with `catalog`.
pub(super) fn list() -> Vec<Tool> {
    let mut out: Vec<Tool> = tools::list()
        .into_iter()
        .map(|mut tool| {
            let mut schema = (*tool.input_schema).clone();
            let searched = tool.name == ToolName::SearchPatterns.as_str();
            let description = if searched {
                format!("{CATALOG_ARGUMENT} Without it, every catalog is searched.")
            } else {
                CATALOG_ARGUMENT.to_owned()
            };
            if let Some(Value::Object(properties)) = schema.get_mut("properties") {
                properties
                    .insert("catalog".to_owned(), json!({ "type": "string", "description": description }));
            }
            tool.input_schema = Arc::new(schema);
            tool
        })
        .collect();
    let output = json!({"type": "object", "properties": {
        "libraries": {"type": "array", "items": {"type": "object"}},
        "total": {"type": "integer"},
    }, "required": ["libraries"]});
    let Value::Object(output) = output else { unreachable!("an object literal") };
    out.push(
        Tool::new(
            FIND_LIBRARY,
            "Find a library on this shelf by name or words of its description: its versions (newest \
             first) and the catalog to pass to the other tools (the latest version, or `version`).",
            Arc::new(tools::input_schema::<FindArgs>()),
        )
        .with_raw_output_schema(Arc::new(output))
        .with_annotations(
            ToolAnnotations::new().read_only(true).idempotent(true).destructive(false).open_world(false),
        ),
    );
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
struct FindArgs {
    /// A library's name or words of its title or description; empty lists every library.
    query: Option<String>,
    /// Pick this version rather than the latest.
    version: Option<String>,
    #[schemars(range(min = 1, max = 100))]
    limit: Option<usize>,
}

/// Runs one tool on `shelf`. Unknown tools are a protocol error; everything else is a result.
pub(super) fn call(shelf: &Shelf, name: &str, mut args: JsonObject) -> Result<CallToolResult, McpError> {
    if name == FIND_LIBRARY {
        return Ok(match serde_json::from_value::<FindArgs>(Value::Object(args)) {
            Ok(a) => find_library(shelf, a),
            Err(e) => failure(
                format!(
                    "Invalid arguments: {}. See this tool's inputSchema in tools/list.",
                    errors::clip_quoted(&e.to_string())
                ),
                json!({ "method": "tools/list" }),
            ),
        });
    }
    if ToolName::from_name(name).is_none() {
        return Err(errors::unknown_tool(name));
    }
    let catalog = match args.remove("catalog") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => return Ok(failure("`catalog` is a string: name or name@version".into(), find_hint())),
    };
    // A shelf URI names its catalog; the catalog's own tool reads the catalog's own URI.
    let mut named: Option<String> = None;
    for key in ["uri", "id"] {
        let split = match args.get(key) {
            Some(Value::String(s)) => from_shelf(s).map(|(id, inner)| (id.to_owned(), inner)),
            _ => None,
        };
        if let Some((id, inner)) = split {
            named = Some(id);
            args.insert(key.to_owned(), Value::String(inner));
        }
    }
    let Some(id) = named.or(catalog) else {
        if name == ToolName::SearchPatterns.as_str() {
            return search_across(shelf, args);
        }
        return Ok(failure(
            format!("Name the catalog: pass `catalog` (name or name@version) or a shelf URI to {name}."),
            find_hint(),
        ));
    };
    let Some(slot) = shelf.resolve(&id) else {
        return Ok(failure(format!("No catalog `{}` on this shelf.", errors::printable(&id)), find_hint()));
    };
    let out = tools::call(&slot.opened()?.state(), name, args)?;
    Ok(shelved(slot, name, out))
}

/// A catalog tool's result with the catalog named: in its URIs, and as `catalog` beside them.
fn shelved(slot: &Slot, name: &str, mut out: CallToolResult) -> CallToolResult {
    let failed = out.is_error == Some(true);
    if let Some(value) = out.structured_content.as_mut() {
        if failed {
            rewrite::texts(&slot.id, value);
        } else {
            rewrite::uris(&slot.id, value);
        }
        if let Some(map) = value.as_object_mut() {
            map.insert("catalog".to_owned(), json!(slot.id));
        }
    }
    // The text of a read is the entry's bytes: served as they are. Everything else is Folio's.
    let body = !failed
        && (name == ToolName::ReadResource.as_str() || name == ToolName::GetSkillDocumentById.as_str());
    if !body {
        let detail = !failed && name == ToolName::GetPatternById.as_str();
        for block in &mut out.content {
            let Ok(mut v) = serde_json::to_value(&*block) else { continue };
            if let Some(Value::String(text)) = v.get_mut("text") {
                *text =
                    if detail { rewrite::json_text(&slot.id, text) } else { text_to_shelf(&slot.id, text) };
                if let Ok(b) = serde_json::from_value(v) {
                    *block = b;
                }
            }
        }
    }
    out
}

/// `search_patterns` over the latest version of every library: each catalog's best hits, merged
/// by score (each catalog ranks within itself, so scores compare roughly), each hit naming its
/// catalog. Older versions are searched when named (`catalog`).
fn search_across(shelf: &Shelf, args: JsonObject) -> Result<CallToolResult, McpError> {
    if args.get("cursor").is_some_and(|c| !c.is_null()) {
        return Ok(failure(
            "A cursor pages one catalog's hits: pass the `catalog` it came from with it.".into(),
            find_hint(),
        ));
    }
    let limit = args.get("limit").and_then(Value::as_u64).map_or(10, |n| n.clamp(1, 50) as usize);
    let mut hits: Vec<Value> = Vec::new();
    let mut total = 0;
    for versions in shelf.libraries() {
        let slot = &versions[0];
        let out = tools::call(&slot.opened()?.state(), ToolName::SearchPatterns.as_str(), args.clone())?;
        if out.is_error == Some(true) {
            // The arguments are wrong for every catalog alike: say so once.
            return Ok(shelved(slot, ToolName::SearchPatterns.as_str(), out));
        }
        let Some(mut found) = out.structured_content else { continue };
        total += found["total"].as_u64().unwrap_or(0);
        rewrite::uris(&slot.id, &mut found);
        if let Some(Value::Array(items)) = found.get_mut("hits").map(Value::take) {
            for mut hit in items {
                hit["catalog"] = json!(slot.id);
                hits.push(hit);
            }
        }
    }
    let score = |h: &Value| h["score"].as_f64().unwrap_or(0.0);
    hits.sort_by(|a, b| {
        score(b)
            .total_cmp(&score(a))
            .then_with(|| a["catalog"].as_str().cmp(&b["catalog"].as_str()))
            .then_with(|| a["uri"].as_str().cmp(&b["uri"].as_str()))
    });
    hits.truncate(limit);
    let mut text = String::new();
    for (i, hit) in hits.iter().enumerate() {
        let s = |k: &str| hit[k].as_str().unwrap_or_default().to_owned();
        text.push_str(&format!("{}. {} — {} ({})\n", i + 1, s("title"), s("uri"), s("catalog")));
        if !s("snippet").is_empty() {
            text.push_str(&format!("   {}\n", s("snippet")));
        }
    }
    if hits.is_empty() {
        text.push_str("No match in any catalog. Try fewer or other words, or call find_library.\n");
    }
    let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
    out.structured_content = Some(json!({ "hits": hits, "total": total }));
    Ok(out)
}

fn find_library(shelf: &Shelf, a: FindArgs) -> CallToolResult {
    let query = a.query.unwrap_or_default().to_lowercase();
    let words: Vec<&str> = query.split_whitespace().collect();
    let mut found: Vec<(u8, Value)> = Vec::new();
    for versions in shelf.libraries() {
        let latest = &versions[0].peek;
        let name = latest.name.to_lowercase();
        let about = format!("{name} {} {}", latest.title, latest.description).to_lowercase();
        let rank = if words.is_empty() {
            1
        } else if name == query.trim() {
            4
        } else if words.iter().all(|w| name.contains(w)) {
            3
        } else if words.iter().all(|w| about.contains(w)) {
            2
        } else {
            continue;
        };
        let picked = match &a.version {
            None => Some(&versions[0]),
            Some(v) => versions.iter().find(|s| s.peek.version.as_deref() == Some(v.as_str())),
        };
        found.push((
            rank,
            json!({
                "name": latest.name,
                "title": latest.title,
                "description": latest.description,
                "versions": versions.iter().filter_map(|s| s.peek.version.clone()).collect::<Vec<_>>(),
                "latest": latest.version,
                "catalog": picked.map(|s| s.id.clone()),
            }),
        ));
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1["name"].as_str().cmp(&b.1["name"].as_str())));
    let total = found.len();
    found.truncate(a.limit.unwrap_or(10).clamp(1, 100));
    let mut text = String::new();
    for (_, lib) in &found {
        let versions: Vec<&str> =
            lib["versions"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        text.push_str(&format!(
            "{} — {} (versions: {}; catalog: {})\n",
            lib["name"].as_str().unwrap_or_default(),
            lib["title"].as_str().unwrap_or_default(),
            if versions.is_empty() { "none named".to_owned() } else { versions.join(", ") },
            lib["catalog"].as_str().unwrap_or("no such version"),
        ));
        if let Some(d) = lib["description"].as_str().filter(|d| !d.is_empty()) {
            text.push_str(&format!("   {d}\n"));
        }
    }
    if found.is_empty() {
        text.push_str("No library matches. Call find_library without a query to list them all.\n");
    }
    let libraries: Vec<Value> = found.into_iter().map(|(_, v)| v).collect();
    let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
    out.structured_content = Some(json!({ "libraries": libraries, "total": total }));
    out
}

fn find_hint() -> Value {
    json!({ "tool": FIND_LIBRARY, "arguments": {} })
}

/// A failure the caller can fix, as the catalog tools give one.
fn failure(message: String, repair: Value) -> CallToolResult {
    let mut out = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
    out.structured_content = Some(json!({ "error": message, "repair": repair }));
    out
}
