//! The catalog `build.rs` compiled from `content/` and embedded in this binary.

/// The bytes of `catalog.msgpack` as compiled from this crate's `content/` at build time.
pub static CATALOG_MSGPACK: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/catalog.msgpack"));
