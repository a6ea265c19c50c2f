//! Every question about a catalog (list, detail, read, resolve, search, completion, directory
//! listing), answered once for the CLI, the MCP resources and the MCP tools, so they can never
//! disagree (`content/docs/reference/uris.md`, `mcp.md` and `tools.md`).
//!
//! A [`Query`] wraps one verified [`Catalog`] plus the lookup maps built when it is opened.
//! Every request URI goes through [`crate::catalog::uri::parse`] first, so traversal attempts are
//! refused before any lookup. Errors are typed: [`QueryError::NotFound`] (the MCP server answers
//! `resource_not_found`), [`QueryError::InvalidParams`] (`-32602`) and [`QueryError::Corrupt`]
//! (`-32603`: a forged catalog, not a bad request); each carries a `repair` hint naming a real
//! next step.
//!
//! Performs no IO (except [`Query::open_file`], a convenience that reads one file) and knows
//! nothing of clap, rmcp or tokio.

mod complete;
mod cursor;
mod defining;
mod detail;
mod error;
mod filter;
mod kind;
mod list;
mod mapped;
mod open;
mod peek;
mod read;
mod resolve;
mod search;
mod semantic;
mod show;
mod snippet;
#[cfg(test)]
mod tamper_tests;
#[cfg(test)]
mod tests;
mod translations;

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::catalog::mdx::SearchBlanks;
use crate::catalog::{Catalog, Doc, Entry, Settings, Skill};

pub use complete::{ARGUMENTS as COMPLETION_ARGUMENTS, Completion, MAX_COMPLETIONS};
pub use cursor::{DEFAULT_LIMIT, MAX_LIMIT, Page};
pub use detail::{Detail, DocDetail, FileRecord, LinkRecord, SectionRecord, SkillDetail};
pub use error::QueryError;
pub(crate) use error::decoded;
pub use kind::Kind;
pub(crate) use kind::Owner;
pub use list::{DocSummary, ListParams, Record, SkillSummary, Sort};
pub use open::{load_catalog, read_catalog_bytes};
pub use peek::Peek;
pub use read::{DIRECTORY_MIME, DirEntry, ReadContent, ReadResult, Selection};
pub use resolve::Resolved;
pub use search::{Hit, MAX_QUERY_CHARS, SearchParams};
pub use semantic::{
    FULL_MEANING_WORDS, KEYWORD_ONLY_WORDS, KEYWORD_WEIGHT, MIN_CHARS_PER_PIECE, Mode, QueryEncoder,
    QueryVector, SEMANTIC_CANDIDATES, SearchMode,
};
pub use show::Shown;

/// A verified catalog with its lookup maps: the one handle every consumer queries.
///
/// Cheap to share: wrap it in an `Arc` (it is `Send + Sync`). Bodies are never copied out of the
/// buffer the catalog was opened from.
#[derive(Debug)]
pub struct Query {
    catalog: Catalog,
    catalog_hash: String,
    /// `owners[entry_idx]`: the doc or skill each entry belongs to; `None` for the generated
    /// singletons, which belong to neither.
    owners: Vec<Option<Owner>>,
    /// Indexes of the entries that have an owner, ascending: the unfiltered listing after the
    /// singletons, so a page of `resources/list` never scans the whole catalog.
    listed: Vec<u32>,
    /// Skill index by skill id (name).
    /// Skill indexes sorted by skill id (name), for binary search without a copy of the names.
    skill_by_name: Vec<u32>,
    /// Every tag, capability and category with how many docs/skills carry it (for completion).
    vocabulary: OnceLock<complete::Vocabulary>,
    /// Which docs translate one another, for search (built on the first search).
    translations: OnceLock<translations::Translations>,
    /// Per entry, what search blanks in an MDX body, found the first time a search shows it
    /// (see `search::searched_body`).
    search_blanks: OnceLock<Vec<OnceLock<SearchBlanks>>>,
    /// The encoder that embeds queries for the catalog's vectors, when one is attached
    /// ([`Query::attach_encoder`]).
    encoder: Option<Arc<dyn QueryEncoder>>,
    /// How many times a key (a name, a path, a URI) was looked up in the catalog: the figure
    /// tests read to show that each request resolves what it names once ([`Query::lookups`]).
    #[cfg(test)]
    lookups: std::sync::atomic::AtomicU64,
}

impl fmt::Debug for dyn QueryEncoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "QueryEncoder({})", self.model().name)
    }
}

impl Query {
    /// The catalog behind this handle.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// blake3 of the catalog body, hex: the catalog's version (cursors are tagged with it).
    pub fn catalog_hash(&self) -> &str {
        &self.catalog_hash
    }

    /// The page of `items` (a list the caller holds: templates, tools, skills) at `cursor`, and
    /// the next page's cursor, with the same cursor codec as every listing here: tagged with
    /// the catalog and with `scope` (the method), so a cursor of another list or catalog is
    /// refused.
    ///
    /// Fails with [`QueryError::InvalidParams`] (param `cursor`) on a cursor this catalog did not
    /// issue for `scope`.
    pub fn page_of<'a, T>(
        &self,
        scope: &str,
        items: &'a [T],
        cursor_in: Option<&str>,
        limit: usize,
    ) -> Result<(&'a [T], Option<String>), QueryError> {
        let offset = match cursor_in {
            None => 0,
            Some(c) => cursor::decode(c, &self.catalog_hash, scope, "", items.len())?,
        };
        let (range, next) = cursor::page(&self.catalog_hash, scope, "", offset, limit, items.len());
        Ok((&items[range], next))
    }

    /// The catalog's settings (`ttl_ms`, `max_read_bytes`, names).
    pub fn settings(&self) -> &Settings {
        &self.catalog.settings
    }

    /// The skill with this id (its name).
    pub fn skill(&self, skill_id: &str) -> Option<&Skill> {
        self.skill_idx(skill_id).map(|at| &self.catalog.skills[at])
    }

    /// The index into `Catalog::skills` of the skill with this id.
    fn skill_idx(&self, skill_id: &str) -> Option<usize> {
        self.looked_up();
        let skills = &self.catalog.skills;
        let found = self.skill_by_name.binary_search_by(|&i| skills[i as usize].name.as_str().cmp(skill_id));
        found.ok().map(|at| self.skill_by_name[at] as usize)
    }

    /// The skill whose folder is `path`, relative to `skills/`.
    fn skill_by_path(&self, path: &str) -> Option<&Skill> {
        self.looked_up();
        self.catalog.skill_by_path(path)
    }

    /// The doc with this path, relative to `docs/` (`docs/` itself is also accepted as prefix).
    pub fn doc(&self, path: &str) -> Option<&Doc> {
        self.looked_up();
        self.catalog.doc(path).or_else(|| path.strip_prefix("docs/").and_then(|p| self.catalog.doc(p)))
    }

    /// The entry with this canonical URI.
    pub fn entry(&self, uri: &str) -> Option<&Entry> {
        self.entry_idx(uri).map(|idx| &self.catalog.entries[idx])
    }

    fn entry_idx(&self, uri: &str) -> Option<usize> {
        self.looked_up();
        self.catalog.entries.binary_search_by(|e| e.uri.as_str().cmp(uri)).ok()
    }

    /// Counts one lookup of a key in the catalog (in tests; nothing otherwise).
    #[inline]
    fn looked_up(&self) {
        #[cfg(test)]
        self.lookups.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// How many keys were looked up in the catalog so far: each request should add one.
    #[cfg(test)]
    pub(crate) fn lookups(&self) -> u64 {
        self.lookups.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The doc or skill entry `entry_idx` belongs to (`None` for generated singletons).
    pub(crate) fn owner(&self, entry_idx: usize) -> Option<Owner> {
        self.owners.get(entry_idx).copied().flatten()
    }
}

/// The query layer's fixture catalog, opened: for the unit tests of the layers above (the
/// server's), which must not depend on the manual.
#[cfg(test)]
pub(crate) fn fixture_query() -> Query {
    Query::from_catalog(tests::fixture())
}
