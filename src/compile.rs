//! The compiler: `compile(&Config) -> Compilation`. Runs the stages in order (walk sources, parse
//! frontmatter and markdown, validate, build the catalog) and nothing else.
//!
//! Synchronous, no network, depends only on std and the compiler crates: `build.rs` mounts it.

#[path = "compile/diagnostic.rs"]
pub mod diagnostic;
#[path = "compile/links.rs"]
pub mod links;
#[path = "compile/markdown.rs"]
pub mod markdown;

use std::path::PathBuf;

use crate::catalog::Catalog;
pub use diagnostic::{Diagnostic, Severity};

/// What to compile.
#[derive(Debug, Clone)]
pub struct Config {
    /// The content root (the directory holding `docs/`, `skills/`, `folio.toml`).
    pub root: PathBuf,
}

/// The result of a compile: the catalog when there were no errors, and every diagnostic.
#[derive(Debug)]
pub struct Compilation {
    /// The catalog; `None` when any diagnostic is an error.
    pub catalog: Option<Catalog>,
    /// Every problem found, sorted by (path, line, column, code).
    pub diagnostics: Vec<Diagnostic>,
}

/// Compiles a content tree. Content problems are diagnostics, never an early return.
pub fn compile(config: &Config) -> Compilation {
    let _ = config;
    let catalog = Catalog {
        settings: crate::catalog::Settings::default(),
        source_fingerprint: String::new(),
        entries: Vec::new(),
        docs: Vec::new(),
        skills: Vec::new(),
        search: crate::catalog::SearchIndex::default(),
    };
    Compilation { catalog: Some(catalog), diagnostics: Vec::new() }
}
