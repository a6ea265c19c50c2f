//! Resource records (the `Resource` entries of `resources/list`, `resources/directory/read` and the
//! `list_resources` tool) and the paging of the lists the server holds itself (templates, tools,
//! skills), with the query layer's cursors.
//!
//! Records use native MCP fields only: `uri`, `name`, `title`, `description`, `mimeType`, `size`,
//! `annotations` (audience, priority for triage, `lastModified` from frontmatter dates, never the
//! clock) and `_meta` under our `dev.folio/` prefix. No IO, no per-request work beyond slicing.

use rmcp::model::{Annotations, MetaObject, Resource, Role};
use serde_json::Value;

use crate::catalog::uri;
use crate::query::{Kind, Query, Record};

/// Page size of `resources/list` and `resources/directory/read`.
pub(crate) const RESOURCE_PAGE: usize = 500;

/// Triage priorities (0 = optional, 1 = effectively required): the entry points first.
const PRIORITY_ABOUT: f32 = 1.0;
const PRIORITY_INDEX: f32 = 0.9;
const PRIORITY_SKILL_DOCUMENT: f32 = 0.7;
const PRIORITY_DOC: f32 = 0.5;
const PRIORITY_SKILL_FILE: f32 = 0.3;

/// The query layer's record of the entry with this canonical URI.
pub(crate) fn record_of(query: &Query, uri: &str) -> Option<Record> {
    let idx = query.catalog().entries.binary_search_by(|e| e.uri.as_str().cmp(uri)).ok()?;
    query.record(idx)
}

/// The MCP record of one query-layer record: the same for `resources/list`,
/// `resources/directory/read` and the `list_resources` tool. Takes the record by value: a full
/// `resources/list` walk builds one per entry, and moving its strings saves a copy of each.
pub(crate) fn resource(record: Record) -> Resource {
    let priority = match record.kind {
        Kind::Catalog if record.uri == uri::ABOUT => PRIORITY_ABOUT,
        Kind::Catalog => PRIORITY_INDEX,
        Kind::Doc => PRIORITY_DOC,
        Kind::Skill => PRIORITY_SKILL_DOCUMENT,
        Kind::SkillFile => PRIORITY_SKILL_FILE,
    };
    let annotations = annotations(priority, record.updated.as_deref());
    let mut meta = MetaObject::new();
    if let Some(b) = record.blake3 {
        meta.insert("dev.folio/blake3".to_owned(), Value::String(b));
    }
    if let Some(p) = record.path {
        meta.insert("dev.folio/path".to_owned(), Value::String(p));
    }
    if let Some(r) = record.ref_id {
        meta.insert("dev.folio/ref_id".to_owned(), Value::String(r));
    }
    let mut res = Resource::new(record.uri, record.name).with_mime_type(record.mime);
    res.title = Some(record.title).filter(|t| !t.is_empty());
    res.description = Some(record.description).filter(|d| !d.is_empty());
    res.size = record.size;
    res.annotations = Some(annotations);
    res.meta = Some(meta).filter(|m| !m.is_empty());
    res
}

fn annotations(priority: f32, updated: Option<&str>) -> Annotations {
    let mut out = Annotations::default().with_audience(vec![Role::Assistant]).with_priority(priority);
    out.last_modified = updated.map(iso_8601);
    out
}

/// Frontmatter dates are `YYYY-MM-DD` or RFC 3339; a bare date becomes midnight UTC so every
/// client's ISO 8601 parser accepts it.
pub(crate) fn iso_8601(date: &str) -> String {
    if date.len() == 10 { format!("{date}T00:00:00Z") } else { date.to_owned() }
}

/// One page of `items` (a list `method` answers) at `cursor`, plus the next cursor, with the
/// query layer's cursor codec; a cursor this catalog did not issue for `method` is `-32602`.
pub(crate) fn page<'a, T>(
    query: &Query,
    method: &str,
    items: &'a [T],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(&'a [T], Option<String>), rmcp::ErrorData> {
    query.page_of(method, items, cursor, page_size).map_err(|_| super::errors::bad_cursor(method))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_every_item_once_and_refuse_cursors_of_other_lists() {
        let query = crate::query::fixture_query();
        let items: Vec<u32> = (0..1201).collect();
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let (page_items, next) = page(&query, "tools/list", &items, cursor.as_deref(), 500).unwrap();
            seen.extend_from_slice(page_items);
            match next {
                Some(c) => {
                    assert!(!c.is_empty());
                    let other = page(&query, "skills/list", &items, Some(&c), 500).unwrap_err();
                    assert_eq!(other.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{other:?}");
                    cursor = Some(c);
                }
                None => break,
            }
        }
        assert_eq!(seen, items);
        assert!(page(&query, "tools/list", &[] as &[u32], None, 500).unwrap().1.is_none());
        for garbage in ["", "garbage!", &"A".repeat(10_000)] {
            assert!(page(&query, "tools/list", &items, Some(garbage), 500).is_err(), "{garbage:?}");
        }
    }

    #[test]
    fn bare_dates_become_midnight_utc() {
        assert_eq!(iso_8601("2024-03-01"), "2024-03-01T00:00:00Z");
        assert_eq!(iso_8601("2024-03-01T10:00:00+02:00"), "2024-03-01T10:00:00+02:00");
    }
}
