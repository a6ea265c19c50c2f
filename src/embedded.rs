//! Folio's own manual: the catalog `build.rs` compiled from `content/` (the `manual` feature).

/// The bytes of `catalog.msgpack` as compiled from this crate's `content/` at build time.
pub static CATALOG_MSGPACK: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/catalog.msgpack"));
