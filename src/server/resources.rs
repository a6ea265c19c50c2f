//! Resource records (the `Resource` entries of `resources/list`, `resources/directory/read` and the
//! `list_resources` tool) and the opaque, catalog-tagged cursors every paginated method uses.
//!
//! Records use native MCP fields only: `uri`, `name`, `title`, `description`, `mimeType`, `size`,
//! `annotations` (audience, priority for triage, `lastModified` from frontmatter dates, never the
//! clock) and `_meta` under our `dev.folio/` prefix. No IO, no per-request work beyond slicing.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rmcp::model::{Annotations, MetaObject, Resource, Role};
use serde_json::Value;

use crate::catalog::uri;
use crate::query::{Kind, Query, Record};

/// Page size of `resources/list` and `resources/directory/read`.
pub(crate) const RESOURCE_PAGE: usize = 500;

/// Longest cursor worth decoding; anything longer was not issued by us.
const MAX_CURSOR_LEN: usize = 256;

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

/// Encodes a page offset as an opaque cursor tagged with the catalog.
pub(crate) fn encode_cursor(tag: &str, offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!("{tag}:{offset}"))
}

/// Decodes a cursor issued by [`encode_cursor`] for this catalog; `None` for anything else
/// (garbage, a cursor of another catalog, one past the end, or absurdly long input).
pub(crate) fn decode_cursor(tag: &str, cursor: &str, len: usize) -> Option<usize> {
    if cursor.len() > MAX_CURSOR_LEN {
        return None;
    }
    let raw = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    let raw = std::str::from_utf8(&raw).ok()?;
    let (found_tag, offset) = raw.rsplit_once(':')?;
    let offset: usize = offset.parse().ok()?;
    (found_tag == tag && offset > 0 && offset < len).then_some(offset)
}

/// One page of `items` starting at the decoded `cursor`, plus the next cursor (never `""`).
/// Fails (with `None`) on a cursor this catalog did not issue.
pub(crate) fn page<'a, T>(
    items: &'a [T],
    cursor: Option<&str>,
    page_size: usize,
    tag: &str,
) -> Option<(&'a [T], Option<String>)> {
    let start = match cursor {
        None => 0,
        Some(c) => decode_cursor(tag, c, items.len())?,
    };
    let end = (start + page_size).min(items.len());
    let next = (end < items.len()).then(|| encode_cursor(tag, end));
    Some((&items[start..end], next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_foreign_input() {
        let c = encode_cursor("abcd", 500);
        assert_eq!(decode_cursor("abcd", &c, 1000), Some(500));
        assert_eq!(decode_cursor("other", &c, 1000), None, "cursor of another catalog");
        assert_eq!(decode_cursor("abcd", &c, 500), None, "cursor past the end");
        assert_eq!(decode_cursor("abcd", "garbage!", 1000), None);
        assert_eq!(decode_cursor("abcd", "", 1000), None);
        assert_eq!(decode_cursor("abcd", &"A".repeat(10_000), 1000), None);
        assert_eq!(decode_cursor("abcd", &encode_cursor("abcd", 0), 1000), None, "page one has no cursor");
    }

    #[test]
    fn pages_cover_every_item_once_and_never_end_with_an_empty_cursor() {
        let items: Vec<u32> = (0..1201).collect();
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let (items, next) = page(&items, cursor.as_deref(), 500, "t").unwrap();
            seen.extend_from_slice(items);
            match next {
                Some(c) => {
                    assert!(!c.is_empty());
                    cursor = Some(c);
                }
                None => break,
            }
        }
        assert_eq!(seen, items);
        assert!(page(&[] as &[u32], None, 500, "t").unwrap().1.is_none());
    }

    #[test]
    fn bare_dates_become_midnight_utc() {
        assert_eq!(iso_8601("2024-03-01"), "2024-03-01T00:00:00Z");
        assert_eq!(iso_8601("2024-03-01T10:00:00+02:00"), "2024-03-01T10:00:00+02:00");
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn page_cursors_round_trip_and_garbage_never_panics(
                offset in 1usize..100_000, extra in 1usize..1000, tag in "[0-9a-f]{16}", raw in "\\PC*",
            ) {
                let len = offset + extra;
                prop_assert_eq!(decode_cursor(&tag, &encode_cursor(&tag, offset), len), Some(offset));
                let _ = decode_cursor(&tag, &raw, len);
            }
        }
    }
}
