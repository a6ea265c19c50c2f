//! Catalog bytes from elsewhere are untrusted (`serve --catalog FILE`): opening any bytes is an
//! error or a catalog, never a panic, and an opened catalog answers every read without one.
//! Seeds: the `basic` fixture compiled by this checkout (`fuzz/run` builds it).

#![no_main]

use folio::query::{ListParams, Query, SearchParams, Selection};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(query) = Query::open(data.to_vec()) else { return };
    let mut cursor = None;
    for _ in 0..20 {
        let Ok(page) = query.list(&ListParams { cursor: cursor.take(), ..ListParams::default() }) else {
            break;
        };
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    for entry in &query.catalog().entries {
        let _ = query.read(&entry.uri, &Selection::default());
        let _ = query.detail(&entry.uri);
    }
    let _ = query.search(&SearchParams { query: "install forms".to_owned(), ..SearchParams::default() });
});
