//! A catalog's answers as a shelf serves them: every URI it wrote named with its catalog
//! (`catalog::uri::shelf`), and the cursors of lists that run across catalogs.
//!
//! Must not: touch an entry's bytes (a doc read through a shelf is the same bytes), or decide
//! which catalog answers (that is `handler`'s).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalog::uri::shelf::{text_to_shelf, to_shelf};

/// Every string of `value` that is a catalog URI (it starts with a scheme Folio serves) written
/// for catalog `id`.
pub(super) fn uris(id: &str, value: &mut Value) {
    match value {
        Value::String(s) if s.starts_with("resource://") || s.starts_with("skill://") => *s = to_shelf(id, s),
        Value::Array(items) => items.iter_mut().for_each(|v| uris(id, v)),
        Value::Object(map) => map.values_mut().for_each(|v| uris(id, v)),
        _ => {}
    }
}

/// Every catalog URI anywhere in the strings of `value` (a message, a repair hint) written for
/// catalog `id`.
pub(super) fn texts(id: &str, value: &mut Value) {
    match value {
        Value::String(s) => *s = text_to_shelf(id, s),
        Value::Array(items) => items.iter_mut().for_each(|v| texts(id, v)),
        Value::Object(map) => map.values_mut().for_each(|v| texts(id, v)),
        _ => {}
    }
}

/// A protocol item or result of catalog `id` as the shelf answers it: its URIs named with the
/// catalog (a result's `_meta` is then set by the caller). Kept as it was should it not
/// round-trip (it always does).
pub(super) fn item<T: Serialize + DeserializeOwned>(id: &str, out: T) -> T {
    let Ok(mut value) = serde_json::to_value(&out) else { return out };
    uris(id, &mut value);
    serde_json::from_value(value).unwrap_or(out)
}

/// A JSON record Folio wrote (an index page, a detail record: pretty JSON) with the URIs its
/// string values start with named for catalog `id`, and nothing else changed (not the order of
/// its keys, not its layout).
pub(super) fn json_text(id: &str, text: &str) -> String {
    text.replace("\"resource://", &format!("\"resource://{id}/"))
        .replace("\"skill://", &format!("\"skill://{id}/"))
}

/// An error of catalog `id`: the URIs in its message and data named with the catalog.
pub(super) fn error(id: &str, mut error: rmcp::ErrorData) -> rmcp::ErrorData {
    error.message = text_to_shelf(id, &error.message).into();
    if let Some(data) = error.data.as_mut() {
        texts(id, data);
    }
    error
}

/// Where a list across the catalogs of a shelf goes on: the catalog (its position on the
/// shelf) and the catalog's own cursor, tied to the shelf's generation so that a cursor from
/// before the shelf changed is refused, not misread.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Cursor {
    pub(super) slot: usize,
    pub(super) inner: Option<String>,
}

impl Cursor {
    /// `s1~<generation>~<slot>~<inner cursor>`.
    pub(super) fn encode(&self, generation: &str) -> String {
        format!("s1~{generation}~{}~{}", self.slot, self.inner.as_deref().unwrap_or(""))
    }

    /// `Err(true)` when the cursor is from another generation of the shelf (start again),
    /// `Err(false)` when it is no cursor of a shelf.
    pub(super) fn decode(cursor: &str, generation: &str) -> Result<Cursor, bool> {
        let mut parts = cursor.splitn(4, '~');
        if parts.next() != Some("s1") {
            return Err(false);
        }
        let (Some(tag), Some(slot), Some(inner)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(false);
        };
        if tag != generation {
            return Err(true);
        }
        let slot = slot.parse().map_err(|_| false)?;
        Ok(Cursor { slot, inner: (!inner.is_empty()).then(|| inner.to_owned()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn uris_are_named_and_prose_is_not() {
        let mut v = json!({"uri": "resource://docs/a.md", "title": "see resource://docs/b.md", "n": 1,
            "items": [{"uri": "skill://pdf/SKILL.md"}]});
        uris("a@1", &mut v);
        assert_eq!(v["uri"], "resource://a@1/docs/a.md");
        assert_eq!(v["title"], "see resource://docs/b.md");
        assert_eq!(v["items"][0]["uri"], "skill://a@1/pdf/SKILL.md");
        assert_eq!(
            json_text(
                "a@1",
                "{\n  \"uri\": \"resource://docs/a.md\",\n  \"z\": \"x resource://docs/b.md\"\n}"
            ),
            "{\n  \"uri\": \"resource://a@1/docs/a.md\",\n  \"z\": \"x resource://docs/b.md\"\n}"
        );
    }

    #[test]
    fn cursors_round_trip_and_name_their_generation() {
        let c = Cursor { slot: 3, inner: Some("c1.abc.list~x".to_owned()) };
        assert_eq!(Cursor::decode(&c.encode("g1"), "g1"), Ok(c));
        let first = Cursor { slot: 1, inner: None };
        assert_eq!(Cursor::decode(&first.encode("g1"), "g1"), Ok(first));
        assert_eq!(Cursor::decode(&Cursor { slot: 0, inner: None }.encode("g1"), "g2"), Err(true));
        assert_eq!(Cursor::decode("garbage", "g1"), Err(false));
    }
}
