//! A flipped byte in each region of a catalog file is refused when that region is first used,
//! never served: the header and the metadata (with its table of contents and the vectors it
//! holds) at open, an entry's bytes when that entry is read, the search index when it is
//! searched. A damaged entry does not stop another from being served.

use super::tests::fixture;
use super::{Query, SearchParams, Selection};
use crate::catalog::codec::{self, DecodeError};
use crate::catalog::vectors::{ModelId, Quantized, Unit, Vectors};

const INSTALL: &str = "resource://docs/guides/install.md";
const PDF: &str = "skill://pdf/SKILL.md";

/// The fixture catalog's file, and the ranges of its regions.
fn file() -> (Vec<u8>, codec::Plan) {
    let bytes = codec::encode(&fixture()).msgpack;
    let plan = plan(&bytes);
    (bytes, plan)
}

fn plan(bytes: &[u8]) -> codec::Plan {
    let suffix = &bytes[bytes.len() - codec::PLAN_SUFFIX..];
    codec::plan(&bytes[..codec::PLAN_PREFIX], suffix, bytes.len() as u64).expect("laid out as written")
}

fn flipped(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    bytes[at] ^= 0x01;
    bytes
}

/// Where `needle` first occurs in `bytes`, from `from` on.
fn find(bytes: &[u8], needle: &[u8], from: usize) -> usize {
    from + bytes[from..].windows(needle.len()).position(|w| w == needle).expect("present")
}

fn search(q: &Query, text: &str) -> Result<usize, super::QueryError> {
    q.search(&SearchParams { query: text.into(), ..SearchParams::default() }).map(|page| page.total)
}

#[test]
fn a_flipped_header_byte_is_refused_at_open() {
    let (bytes, _) = file();
    // `folio-catalog` becomes `golio-catalog`.
    let at = find(&bytes, b"folio-catalog", 0);
    let err = Query::open(flipped(&bytes, at)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "not a folio catalog (format is `golio-catalog`); rebuild it with `folio build`"
    );
    // A digit of the recorded hash.
    let at = find(&bytes, b"catalog_hash", 0) + 14;
    assert!(matches!(Query::open(flipped(&bytes, at)), Err(DecodeError::HashMismatch { .. })));
}

#[test]
fn a_catalog_of_an_older_format_is_refused_with_the_way_to_rebuild_it() {
    let (bytes, _) = file();
    let at = find(&bytes, b"version", 0) + 7;
    let mut older = bytes.clone();
    older[at] = 10;
    assert_eq!(
        Query::open(older).unwrap_err().to_string(),
        format!(
            "catalog format version 10 is not supported (this folio reads version {}); rebuild it with \
             `folio build`",
            crate::catalog::FORMAT_VERSION
        )
    );
}

#[test]
fn a_flipped_byte_in_the_table_of_contents_is_refused_at_open() {
    let (bytes, plan) = file();
    // The lengths of the bodies and of the index, the file's last 16 bytes.
    for at in [bytes.len() - 16, bytes.len() - 1] {
        let err = Query::open(flipped(&bytes, at)).unwrap_err();
        assert!(matches!(err, DecodeError::HashMismatch { .. }), "{err}");
    }
    // The metadata's own table: its part count and the parts' lengths.
    for at in [plan.meta.start, plan.meta.start + 4] {
        let err = Query::open(flipped(&bytes, at)).unwrap_err();
        assert!(matches!(err, DecodeError::HashMismatch { .. }), "{err}");
    }
}

#[test]
fn a_flipped_metadata_byte_is_refused_at_open() {
    let (bytes, plan) = file();
    // A doc's title, in the metadata.
    let at = find(&bytes, b"Install Folio", plan.meta.start);
    let err = Query::open(flipped(&bytes, at)).unwrap_err();
    assert!(
        err.to_string().starts_with("catalog is corrupted or was modified: its metadata hashes to "),
        "{err}"
    );
}

#[test]
fn a_flipped_body_byte_refuses_that_entry_when_read_and_serves_the_others() {
    let (bytes, plan) = file();
    let at = find(&bytes, b"Download the binary", plan.body.start);
    assert!(at < plan.meta.start, "a body byte");
    let q = Query::open(flipped(&bytes, at)).expect("bodies are checked when served, not at open");
    for _ in 0..2 {
        let err = q.read(INSTALL, &Selection::default()).unwrap_err();
        assert!(err.is_corrupt_catalog(), "{err}");
        assert!(
            err.to_string().starts_with(&format!("catalog is corrupt: the bytes of `{INSTALL}` hash to ")),
            "{err}"
        );
    }
    let section = Selection { section: Some("linux".into()), ..Selection::default() };
    assert!(q.read(INSTALL, &section).unwrap_err().is_corrupt_catalog());
    // Another entry is served, and the listing and search still answer from the metadata.
    assert!(q.read(PDF, &Selection::default()).unwrap().text().unwrap().contains("pdf"));
    assert_eq!(search(&q, "homebrew").unwrap(), 1);
}

#[test]
fn a_flipped_search_index_byte_refuses_search_and_serves_reads() {
    let (bytes, plan) = file();
    let index = &fixture().search.data;
    let at = find(&bytes, &index[..16], plan.body.start) + index.len() / 2;
    assert!(at < plan.meta.start, "an index byte");
    let q = Query::open(flipped(&bytes, at)).expect("the index is checked when searched, not at open");
    assert!(q.read(INSTALL, &Selection::default()).is_ok());
    for _ in 0..2 {
        let err = search(&q, "homebrew").unwrap_err();
        assert!(err.is_corrupt_catalog(), "{err}");
        assert!(
            err.to_string().starts_with("catalog is corrupt: the search index's bytes hash to "),
            "{err}"
        );
    }
}

#[test]
fn a_flipped_vector_byte_is_refused_at_open() {
    let mut catalog = fixture();
    let model = ModelId { name: "m".into(), hash: "00".repeat(32), dims: 4, max_tokens: 8 };
    let mut vectors = Vectors::new(model);
    let unit = Unit { entry: 0, section: String::new(), text_hash: "11".repeat(32) };
    vectors.push(unit, &Quantized::new(&[0.25, -0.5, 0.75, 1.0]));
    let codes = vectors.codes.clone();
    catalog.vectors = Some(vectors);
    let bytes = codec::encode(&catalog).msgpack;
    let at = find(&bytes, &codes, plan(&bytes).meta.start);
    assert!(Query::open(bytes.clone()).is_ok());
    assert!(matches!(Query::open(flipped(&bytes, at)), Err(DecodeError::HashMismatch { .. })));
}
