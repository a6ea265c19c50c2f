//! What the parallel stage makes of one file ([`Processed`]): the data the stage runner,
//! the incremental cache and assembly pass between them.
//!
//! Data only, so that `process` (which makes it) and `cache` (which keeps it and hands it back)
//! both build on it without needing each other. Must not: read, parse or decide anything.

use super::frontmatter::SkillMeta;
use super::index;
use super::markdown::Markdown;
use super::source::Found;
use crate::catalog::{Doc, Entry};

/// One file after the parallel stage: read, hashed, and (for markdown) parsed.
#[derive(Debug, Clone)]
pub(crate) struct Processed {
    /// Where it came from and what it is.
    pub found: Found,
    /// The exact bytes (empty when the catalog is compiled without bodies).
    pub bytes: Vec<u8>,
    /// Their length.
    pub size: u64,
    /// blake3 of `bytes` (`None` when only checking: no diagnostic needs it).
    pub blake3: Option<blake3::Hash>,
    /// Its catalog entry, but for the bytes (`None` for `folio.toml`, which is not served).
    pub entry: Option<Entry>,
    /// What the markdown passes found.
    pub parsed: Parsed,
    /// The search index's body field of a text doc, SKILL.md or skill file, tokenized here
    /// while the bytes are in cache (only when a catalog is assembled).
    pub body_terms: Option<index::BodyTerms>,
    /// The search index's small fields of a text doc, tokenized here with its body (a skill's
    /// depend on its manifest, which is read later).
    pub small_terms: Option<index::SmallTerms>,
}

/// Frontmatter and markdown of a doc or SKILL.md.
#[derive(Debug, Clone)]
pub(crate) enum Parsed {
    /// Not markdown, or markdown that could not be parsed (not UTF-8).
    None,
    /// A doc: its record (with no entry or links yet), and what link resolution needs.
    Doc(Box<Doc>, Markdown),
    /// A SKILL.md (its markdown holds the file names its text mentions).
    Skill(Box<SkillMeta>, Markdown),
    /// Another markdown file of a skill (`references/api.md`): its links, anchors and mentions,
    /// its title and its description.
    SkillMarkdown(Markdown, Option<String>, Option<String>),
}

/// One worker's processed files, each with its number (`None` once taken out).
pub(crate) type WorkerResults = Vec<(usize, Option<Processed>)>;
