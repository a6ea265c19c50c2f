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
//! - **Query**: one question about a catalog (list, detail, read, resolve, search), answered the
//!   same way for the CLI, the MCP resources and the MCP tools.
//!
//! # Pipeline
//! ```text
//! content/ ─walk─▶ sources ─parse─▶ documents ─validate─▶ diagnostics
//!                                       └─build─▶ Catalog ─encode─▶ catalog/ (msgpack + json)
//! build.rs ─ same compiler ─▶ embedded catalog ─▶ query ─▶ cli (list/show/search) | server (MCP)
//! ```

pub mod catalog;
#[cfg(feature = "cli")]
pub mod cli;
pub mod compile;
pub mod embedded;
pub mod error;
mod lookup;
mod parallel;
pub mod query;
#[cfg(feature = "server")]
pub mod server;
mod suggest;
