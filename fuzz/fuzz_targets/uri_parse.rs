//! Every URI or id a client sends goes through one parser (`catalog::uri`) and the resolution
//! behind `resources/read` and `folio show`: any text is an answer or an error, never a panic.
//! The catalog they are resolved against is the `basic` fixture, compiled once.

#![no_main]

use std::sync::OnceLock;

use folio::query::{Query, Selection};
use libfuzzer_sys::fuzz_target;

fn query() -> &'static Query {
    static QUERY: OnceLock<Query> = OnceLock::new();
    QUERY.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/basic/content");
        let compiled = folio::compile::compile(&folio::compile::Config::new(root));
        Query::from_catalog(compiled.catalog.expect("the basic fixture compiles"))
    })
}

fuzz_target!(|text: &str| {
    let query = query();
    let _ = query.resolve(text);
    let _ = query.read(text, &Selection::default());
});
