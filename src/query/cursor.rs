//! Paging: one [`Page`] of results, the limits a caller may ask for, and the opaque, stable
//! cursors that lead from one page to the next.
//!
//! A cursor is `<version>.<catalog hash prefix>.<scope>.<filter fingerprint>.<offset>`: tagged with
//! the catalog hash so a cursor from another catalog (or from before a reload) is refused cleanly,
//! with the query scope (list, search, directory, …) so a cursor of one call is not replayed on
//! another, and with a fingerprint of the filters so a cursor is only valid for the query that
//! produced it. Offsets into a deterministic order make pages stable for a given catalog.

use serde::Serialize;

use super::error::QueryError;

/// Default number of items per page when the caller gives no `limit`.
pub const DEFAULT_LIMIT: usize = 50;
/// Largest accepted `limit`; larger values are clamped to it.
pub const MAX_LIMIT: usize = 1000;

/// One page of results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page<T> {
    /// The items of this page, in the query's deterministic order.
    pub items: Vec<T>,
    /// Opaque cursor for the next page; absent on the last page (never `""`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How many items match in total, over all pages.
    pub total: usize,
}

/// Clamps a caller's limit into `1..=MAX_LIMIT`, defaulting to [`DEFAULT_LIMIT`].
pub(super) fn page_limit(limit: Option<usize>) -> Result<usize, QueryError> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(0) => Err(QueryError::invalid("limit", "must be at least 1")),
        Some(n) => Ok(n.min(MAX_LIMIT)),
    }
}

const VERSION: &str = "c1";
/// Hex digits of the catalog hash kept in a cursor: enough to tell catalogs apart.
const HASH_DIGITS: usize = 16;

/// Builds the cursor for the page starting at `offset`.
pub(super) fn encode(catalog_hash: &str, scope: &str, filters: &str, offset: usize) -> String {
    let fingerprint = &blake3::hash(filters.as_bytes()).to_hex()[..8];
    format!(
        "{VERSION}.{}.{scope}.{fingerprint}.{offset}",
        &catalog_hash[..HASH_DIGITS.min(catalog_hash.len())]
    )
}

/// Reads a cursor back into an offset, checking it belongs to this catalog, scope and filters.
///
/// Fails with [`QueryError::InvalidParams`] (param `cursor`) on anything else: garbage, another
/// catalog, another scope, other filters, or an offset past `total`.
pub(super) fn decode(
    cursor: &str,
    catalog_hash: &str,
    scope: &str,
    filters: &str,
    total: usize,
) -> Result<usize, QueryError> {
    let garbage = || {
        QueryError::invalid(
            "cursor",
            "not a cursor this server issued; pass back `next_cursor` exactly as received",
        )
    };
    if cursor.len() > 128 {
        return Err(garbage());
    }
    let parts: Vec<&str> = cursor.split('.').collect();
    let [version, hash, cursor_scope, fingerprint, offset] = parts[..] else { return Err(garbage()) };
    if version != VERSION {
        return Err(garbage());
    }
    if hash != &catalog_hash[..HASH_DIGITS.min(catalog_hash.len())] {
        return Err(QueryError::invalid(
            "cursor",
            "the cursor belongs to another version of the catalog (it was rebuilt or reloaded)",
        ));
    }
    if cursor_scope != scope {
        return Err(QueryError::invalid(
            "cursor",
            format!("the cursor belongs to another call (`{cursor_scope}`, not `{scope}`)"),
        ));
    }
    if fingerprint != &blake3::hash(filters.as_bytes()).to_hex()[..8] {
        return Err(QueryError::invalid(
            "cursor",
            "the cursor belongs to the same call with other filters; repeat the filters of the \
             first page",
        ));
    }
    let offset: usize = offset.parse().map_err(|_| garbage())?;
    if offset == 0 || offset > total || offset.to_string() != parts[4] {
        return Err(garbage());
    }
    Ok(offset)
}

/// The offset a cursor says it starts at, read without checking anything else: how many hits
/// a search must rank before the cursor itself is checked by [`decode`]. 0 for anything that is
/// not a cursor of this shape.
pub(super) fn offset_hint(cursor: &str) -> usize {
    cursor.rsplit('.').next().and_then(|o| o.parse::<usize>().ok()).unwrap_or(0)
}

/// Splits `total` items into the page at `offset`: the range and the next cursor, if any.
pub(super) fn page(
    catalog_hash: &str,
    scope: &str,
    filters: &str,
    offset: usize,
    limit: usize,
    total: usize,
) -> (std::ops::Range<usize>, Option<String>) {
    let end = offset.saturating_add(limit).min(total);
    let next = (end < total).then(|| encode(catalog_hash, scope, filters, end));
    (offset.min(total)..end, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[track_caller]
    fn check(cursor: &str, expected: &str) {
        let got = match decode(cursor, HASH, "list", "kind=doc", 100) {
            Ok(offset) => offset.to_string(),
            Err(err) => err.to_string(),
        };
        assert_eq!(got, expected, "cursor {cursor:?}");
    }

    #[test]
    fn round_trips_and_refuses_foreign_cursors() {
        let good = encode(HASH, "list", "kind=doc", 50);
        check(&good, "50");
        let garbage =
            "invalid `cursor`: not a cursor this server issued; pass back `next_cursor` exactly as received";
        check("", garbage);
        check("hello", garbage);
        check(&"x".repeat(500), garbage);
        check(&good.replace(".50", ".500"), garbage);
        check(&good.replace(".50", ".050"), garbage);
        check(&good.replace(".50", ".0"), garbage);
        check(&good.replace(".50", ".-1"), garbage);
        check(
            &encode(&HASH.replace('0', "f"), "list", "kind=doc", 50),
            "invalid `cursor`: the cursor belongs to another version of the catalog (it was rebuilt or reloaded)",
        );
        check(
            &encode(HASH, "search", "kind=doc", 50),
            "invalid `cursor`: the cursor belongs to another call (`search`, not `list`)",
        );
        check(
            &encode(HASH, "list", "kind=skill", 50),
            "invalid `cursor`: the cursor belongs to the same call with other filters; repeat the filters of the first page",
        );
    }

    #[test]
    fn pages_end_without_a_cursor() {
        let (range, next) = page(HASH, "list", "", 0, 10, 25);
        assert_eq!((range, next.is_some()), (0..10, true));
        let (range, next) = page(HASH, "list", "", 20, 10, 25);
        assert_eq!((range, next), (20..25, None));
        let (range, next) = page(HASH, "list", "", 0, 10, 0);
        assert_eq!((range, next), (0..0, None));
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn any_string_decodes_or_is_refused_without_panicking(raw in "\\PC*", dotted in "[a-z0-9.]{0,40}") {
                let _ = decode(&raw, HASH, "list", "kind=doc", 100);
                let _ = decode(&dotted, HASH, "list", "kind=doc", 100);
                let _ = decode(&format!("c1.{}.list.{dotted}", &HASH[..16]), HASH, "list", "", usize::MAX);
            }

            #[test]
            fn every_cursor_issued_decodes_to_its_offset(
                offset in 1usize..1_000_000, extra in 0usize..1000, scope in "[a-z]{1,10}", filters in ".*",
            ) {
                let total = offset + extra;
                let cursor = encode(HASH, &scope, &filters, offset);
                prop_assert_eq!(decode(&cursor, HASH, &scope, &filters, total).ok(), Some(offset));
                // The same cursor is refused for other filters or another catalog.
                let other_filters = format!("{filters}x");
                prop_assert!(decode(&cursor, HASH, &scope, &other_filters, total).is_err());
                prop_assert!(decode(&cursor, &HASH.replace('0', "9"), &scope, &filters, total).is_err());
            }
        }
    }
}
