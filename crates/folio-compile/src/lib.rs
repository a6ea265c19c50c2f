//! The compiler of Folio and the catalog it writes: a tree of markdown docs and Agent Skills in,
//! a deterministic, content-hashed [`catalog::Catalog`] out, with a diagnostic for every problem.
//!
//! This crate is what a build script needs: std and the parsing and hashing crates, no async
//! runtime, no network, no command line. The `folio` crate re-exports [`catalog`] and [`compile`]
//! and adds the query layer and the MCP server on top; a crate that embeds its own docs calls
//! [`compile::compile`] from its `build.rs` and [`catalog::codec::encode`] to write the bytes it
//! includes (see the `folio` crate's embedding guide).
//!
//! Must not: do IO outside the content tree it is given, or depend on anything the runtime
//! alone needs (rmcp, tokio, axum, clap): a build script compiles every crate named here.
//!
//! # Pipeline
//! ```text
//! content/ ─walk─▶ sources ─parse─▶ documents ─validate─▶ diagnostics
//!                                       └─build─▶ Catalog ─encode─▶ catalog/ (msgpack + json)
//! ```

pub mod catalog;
pub mod compile;
mod lookup;
// Helpers the `folio` crate's query layer shares with the compiler: public for it, not API
// (hidden from the docs, no stability promise).
#[doc(hidden)]
pub mod parallel;
#[doc(hidden)]
pub mod suggest;
