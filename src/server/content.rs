//! The bridge from the query layer (`crate::query`) to MCP: every payload an agent reads is built
//! by [`Query`], and this module only converts its answers (reads, records, errors) into protocol
//! types. `resources/read` and the tools both read through [`Query::read`], so the same URI read
//! both ways returns identical text.
//!
//! No IO and no payload logic of its own: if a read, a detail record, an index or a search
//! answer must change, it changes in `crate::query`.

use base64::Engine as _;
use rmcp::ErrorData as McpError;
use rmcp::model::{MetaObject, ResourceContents};
use serde_json::{Value, json};

use super::errors;
use super::tool_names::ToolName;
use crate::catalog::uri;
use crate::query::{Query, QueryError, ReadContent, ReadResult, Selection};

/// The answer to `resources/read` of `uri`: one read, which looks the entry up once and carries
/// everything the content item needs; or the protocol error for a failed one.
pub(crate) fn read_resource(query: &Query, uri: &str) -> Result<ResourceContents, McpError> {
    let read = query.read(uri, &Selection::default()).map_err(|e| read_error(query, uri, &e))?;
    Ok(to_contents(&read))
}

/// The single MCP content item of a read, with our `_meta` (`dev.folio/…`), from the read alone:
/// what it read is not looked up again.
fn to_contents(read: &ReadResult) -> ResourceContents {
    let contents = match &read.content {
        ReadContent::Text(text) => ResourceContents::text(text.clone(), read.uri.clone()),
        ReadContent::Blob(bytes) => ResourceContents::blob(
            base64::engine::general_purpose::STANDARD.encode(&bytes[..]),
            read.uri.clone(),
        ),
    }
    .with_mime_type(read.mime.clone());
    let mut meta = MetaObject::new();
    meta.insert("dev.folio/blake3".to_owned(), json!(read.blake3));
    if let Some(path) = &read.path {
        meta.insert("dev.folio/path".to_owned(), json!(path));
    }
    if let Some(ref_id) = &read.ref_id {
        meta.insert("dev.folio/ref_id".to_owned(), json!(ref_id));
    }
    if read.total_lines > 0 {
        meta.insert("dev.folio/total_lines".to_owned(), json!(read.total_lines));
    }
    if read.truncated {
        meta.insert("dev.folio/truncated".to_owned(), json!(true));
        if let Some(next) = &read.next {
            meta.insert("dev.folio/next".to_owned(), json!(next));
        }
    }
    contents.with_meta(meta)
}

/// The `resources/read` error for a failed query: unknown → `resource_not_found` (`-32602` for
/// modern peers, `-32002` for legacy sessions) with `data.uri`; malformed → `-32602`. Both carry
/// `data.repair`.
pub(crate) fn read_error(query: &Query, uri: &str, err: &QueryError) -> McpError {
    match err {
        QueryError::NotFound { what, suggestions, .. } => {
            match suggestions.iter().find_map(|s| suggested_uri(query, uri, s)) {
                Some(s) => {
                    errors::resource_not_found(uri, Some(&s), &format!("no {what}; did you mean `{s}`?"))
                }
                None => errors::resource_not_found(uri, None, &err.to_string()),
            }
        }
        QueryError::InvalidParams { param, .. } => {
            errors::invalid_read(uri, param, &err.to_string(), &err.repair())
        }
        QueryError::Corrupt { uri: at, .. } => errors::corrupt_catalog(at, &err.to_string()),
    }
}

/// A suggestion (an id, a path or a URI) as a URI of the family the request used.
fn suggested_uri(query: &Query, request: &str, suggestion: &str) -> Option<String> {
    if suggestion.contains("://") {
        return Some(suggestion.to_owned());
    }
    let skill = query.skill(suggestion);
    let doc = query.doc(suggestion);
    if request.starts_with(uri::SKILL_DETAIL_PREFIX) {
        skill.map(|s| uri::skill_detail(&s.name))
    } else if request.starts_with(uri::SKILL_ALIAS_PREFIX) {
        skill.map(|s| uri::skill_document_alias(&s.name))
    } else if request.starts_with(uri::SKILL_PREFIX) {
        skill.and_then(|s| query.catalog().entries.get(s.document as usize)).map(|e| e.uri.clone())
    } else if request.starts_with(uri::DOC_DETAIL_PREFIX) {
        doc.map(|d| uri::doc_detail(&d.path))
    } else if request.starts_with(uri::DOCS_PREFIX) {
        doc.map(|d| uri::doc(&d.path))
    } else {
        None
    }
}

/// The sentence a tool returns for a failed query, and its structured repair.
pub(crate) fn tool_failure(err: &QueryError, tool: &str, argument: &str) -> (String, Value) {
    match err {
        QueryError::NotFound { what, suggestions, .. } => {
            let message = match suggestions.first() {
                Some(s) => format!(
                    "No {what}. Did you mean `{s}`? Call search_patterns or list_resources to see what exists."
                ),
                None => format!("No {what}. Call search_patterns or list_resources to see what exists."),
            };
            let repair = match suggestions.first() {
                Some(s) => json!({ "tool": tool, "arguments": { argument: s }, "hint": err.repair() }),
                None => {
                    json!({ "tool": ToolName::SearchPatterns.as_str(), "arguments": { "query": search_words(err) }, "hint": err.repair() })
                }
            };
            (message, repair)
        }
        QueryError::InvalidParams { param, repair, .. } => (
            format!("{}. Fix `{param}`: {repair}.", capitalize(&err.to_string())),
            json!({ "param": param, "hint": repair }),
        ),
        QueryError::Corrupt { .. } => (
            format!("{}. The server's operator must {}.", capitalize(&err.to_string()), err.repair()),
            json!({ "hint": err.repair() }),
        ),
    }
}

/// The id or URI that was not found, as words for a search.
fn search_words(err: &QueryError) -> String {
    let QueryError::NotFound { uri, .. } = err else { return String::new() };
    let tail = uri.trim_end_matches("/SKILL.md").rsplit(['/', ':']).find(|s| !s.is_empty()).unwrap_or(uri);
    let tail = tail.split(['?', '#']).next().unwrap_or(tail);
    let stem = tail.rsplit_once('.').map_or(tail, |(stem, _)| stem);
    stem.replace(['-', '_'], " ").chars().take(100).collect()
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use rmcp::model::ResourceContents;

    use super::read_resource;

    /// One `resources/read`, through an alias or a canonical URI, of a doc, a SKILL.md or
    /// another skill file, looks its entry up once, and the content item still carries the
    /// entry's path and ref id.
    #[test]
    fn a_read_looks_its_entry_up_once() {
        let query = crate::query::fixture_query();
        for (uri, path, ref_id) in [
            ("resource://docs/guides/install.md", "docs/guides/install.md", None),
            ("resource://docs/guides/install.md?section=macos", "docs/guides/install.md", None),
            ("skill://pdf/SKILL.md", "skills/pdf/SKILL.md", None),
            ("resource://skills/pdf/document", "skills/pdf/SKILL.md", None),
            ("skill://pdf/references/api.md", "skills/pdf/references/api.md", Some("references/api.md")),
            (
                "resource://skills/pdf/references/references%2Fapi.md",
                "skills/pdf/references/api.md",
                Some("references/api.md"),
            ),
        ] {
            let before = query.lookups();
            let contents = read_resource(&query, uri).unwrap_or_else(|e| panic!("{uri}: {e:?}"));
            assert_eq!(query.lookups() - before, 1, "lookups of one read of {uri}");
            let meta = match &contents {
                ResourceContents::TextResourceContents { meta, .. }
                | ResourceContents::BlobResourceContents { meta, .. } => meta.clone().unwrap_or_default(),
                other => panic!("{uri}: neither text nor blob: {other:?}"),
            };
            assert_eq!(meta.get("dev.folio/path").and_then(|v| v.as_str()), Some(path), "{uri}");
            assert_eq!(meta.get("dev.folio/ref_id").and_then(|v| v.as_str()), ref_id, "{uri}");
        }
    }
}
