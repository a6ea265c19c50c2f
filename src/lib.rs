//! Folio compiles a tree of markdown docs and Agent Skills into a deterministic, content-hashed
//! catalog, and serves that catalog to AI agents over the Model Context Protocol.
//!
//! # Glossary
//! - **Source**: a file of the content tree, read once as exact bytes.
//! - **Doc**: a markdown file under `docs/`, served as `resource://docs/{+path}`.
//! - **Skill**: a directory under `skills/` holding `SKILL.md`, served as
//!   `skill://{+skill_path}/{+file}` (the MCP Skills extension, SEP-2640).
//! - **Entry**: one served file (a doc, a SKILL.md, or another skill file) with its bytes and hashes.
//! - **Catalog**: every entry plus metadata, outlines, links and the search index; the only thing
//!   the runtime reads.
//! - **Diagnostic**: a content problem with a stable code and a location.
//! - **Query** ([`query::Query`]): an opened, verified catalog with what is derived from it once
//!   opened (lookups, filters, the search index). Every question (list, detail, read, resolve,
//!   search) is one of its methods, answered the same way for the CLI, the MCP resources and the
//!   MCP tools; the server holds one and calls it by that name.
//!
//! # Pipeline
//! ```text
//! content/ ─walk─▶ sources ─parse─▶ documents ─validate─▶ diagnostics
//!                                       └─build─▶ Catalog ─encode─▶ catalog/ (msgpack + json)
//! build.rs ─ same compiler ─▶ embedded manual ─▶ query ─▶ server (MCP) | the binary's cli
//! ```
//!
//! The compiler and the catalog model are the `folio-compile` crate, re-exported here as
//! [`compile`] and [`catalog`]; this crate adds the query layer and the server. The command line
//! is the `folio` binary's own (`src/cli`), not part of the library.
//!
//! # Features
//! - `server`: the MCP server ([`server`]), over stdio and Streamable HTTP.
//! - `manual`: Folio's own manual, compiled by `build.rs` and embedded ([`embedded`]); what
//!   `folio serve` serves when given nothing else.
//! - `web`: the web view `folio browse` serves ([`web`]): pages rendered from the catalog.
//! - `cli` (default): what the `folio` binary needs (`server`, `web`, `manual`, clap, notify).
//! - `semantic`: the sentence encoder of semantic search (`folio::semantic`; candle, tokenizers), with
//!   which `folio build --model DIR` stores section vectors and search fuses them with BM25.
//!
//! A crate that serves its own docs takes `default-features = false, features = ["server"]`.

pub use folio_compile::{catalog, compile};
#[cfg(feature = "manual")]
pub mod embedded;
pub mod error;
pub mod llms;
pub mod query;
#[cfg(feature = "semantic")]
pub mod semantic;
#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "web")]
pub mod web;

// The compiler crate's helpers the runtime shares (one rule for joins, lookups and suggestions).
use folio_compile::{parallel, suggest};
