//! The skill-routing evaluation (tests/fixtures/skill-routing/README.md) with hybrid ranking and
//! the real all-MiniLM-L6-v2 model: every collection's vectors come from the committed cache
//! (`vectors/`, checked by [`super::cached_vectors`]), and hybrid routing must keep its own floor
//! and do better than keywords alone. Must not change the keyword floor, which the keyword test
//! owns.

use std::sync::Arc;

use folio::query::{Mode, Query};
use folio::semantic::Encoder;

use crate::skill_routing::{collections, evaluate, fixture_path};

#[test]
#[ignore = "needs the all-MiniLM-L6-v2 model: FOLIO_TEST_MODEL=DIR (.ci/run fetches it)"]
fn hybrid_search_routes_task_queries_better_than_keywords_alone() {
    let encoder = Arc::new(Encoder::load(&super::real_model()).unwrap());
    let how_to_rewrite = "rewrite them with FOLIO_EVAL_WRITE=1 FOLIO_TEST_MODEL=DIR cargo test --features \
                          semantic --test it routing -- --ignored (a few minutes on 2 cores)";
    let mut collections = collections();
    let queries: Vec<Query> = collections
        .iter_mut()
        .map(|c| {
            let cache = fixture_path(&format!("vectors/{}.all-MiniLM-L6-v2.vectors", c.name));
            super::cached_vectors(&mut c.catalog, &encoder, &cache, how_to_rewrite);
            let mut query = Query::from_catalog(c.catalog.clone());
            query.attach_encoder(encoder.clone()).unwrap();
            query
        })
        .collect();
    let keyword = evaluate(&collections, &queries, Mode::Keyword, "floor-keyword.toml", None);
    let test = Some("--features semantic --test it routing -- --ignored");
    let hybrid = evaluate(&collections, &queries, Mode::Hybrid, "floor-hybrid.toml", test);
    for part in ["part.tune", "part.held-out", "overall"] {
        let (k, h) = (keyword[part], hybrid[part]);
        assert!(
            h.top1 >= k.top1 && h.top3 >= k.top3 && (h.top1, h.top3) != (k.top1, k.top3),
            "{part}: hybrid routing ({h:?}) is not better than keyword routing ({k:?})"
        );
    }
}
