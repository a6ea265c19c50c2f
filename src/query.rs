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
mod filter;
mod list;
mod mapped;
mod open;
mod read;
mod resolve;
mod search;
mod semantic;
mod snippet;
#[cfg(test)]
mod tests;
mod translations;

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::Serialize;

use crate::catalog::codec::DecodeError;
use crate::catalog::mdx::SearchBlanks;
use crate::catalog::{Catalog, Doc, Entry, EntryKind, Settings, Skill};

pub use complete::{ARGUMENTS as COMPLETION_ARGUMENTS, Completion};
pub use detail::{Detail, DocDetail, FileRecord, LinkRecord, SectionRecord, SkillDetail};
pub use list::{DocSummary, ListParams, Record, SkillSummary, Sort};
pub use open::{load_catalog, read_catalog_bytes};
pub use read::{DIRECTORY_MIME, DirEntry, ReadContent, ReadResult, Selection};
pub use resolve::Resolved;
pub use search::{Hit, MAX_QUERY_CHARS, SearchParams};
pub use semantic::{
    FULL_MEANING_WORDS, KEYWORD_ONLY_WORDS, KEYWORD_WEIGHT, MIN_CHARS_PER_PIECE, Mode, QueryEncoder,
    QueryVector, SEMANTIC_CANDIDATES, SearchMode,
};

/// Default number of items per page when the caller gives no `limit`.
pub const DEFAULT_LIMIT: usize = 50;
/// Largest accepted `limit`; larger values are clamped to it.
pub const MAX_LIMIT: usize = 1000;
/// Most values one completion answer holds (MCP `completion/complete`).
pub const MAX_COMPLETIONS: usize = 100;

/// What a record, hit or filter is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A generated catalog resource (`resource://catalog/about`, the two indexes).
    Catalog,
    /// A doc under `docs/`.
    Doc,
    /// A skill, represented by its `SKILL.md`.
    Skill,
    /// A skill file other than `SKILL.md`.
    SkillFile,
}

impl Kind {
    /// The stable lowercase name (`catalog`, `doc`, `skill`, `skill_file`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Catalog => "catalog",
            Kind::Doc => "doc",
            Kind::Skill => "skill",
            Kind::SkillFile => "skill_file",
        }
    }

    /// Parses a kind name; `all` and the empty string mean no filter (`Ok(None)`).
    ///
    /// Fails with [`QueryError::InvalidParams`] on any other name.
    pub fn parse_filter(name: &str) -> Result<Option<Kind>, QueryError> {
        match name {
            "" | "all" => Ok(None),
            "catalog" => Ok(Some(Kind::Catalog)),
            "doc" | "docs" => Ok(Some(Kind::Doc)),
            "skill" | "skills" => Ok(Some(Kind::Skill)),
            "skill_file" | "skill-file" => Ok(Some(Kind::SkillFile)),
            other => Err(QueryError::invalid(
                "kind",
                format!("unknown kind `{other}` (expected doc, skill, skill_file, catalog or all)"),
            )),
        }
    }

    fn of_entry(kind: EntryKind) -> Kind {
        match kind {
            EntryKind::Doc => Kind::Doc,
            EntryKind::SkillDocument => Kind::Skill,
            EntryKind::SkillFile => Kind::SkillFile,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One page of results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page<T> {
    /// The items of this page, in the query's deterministic order.
    pub items: Vec<T>,
    /// Opaque cursor for the next page; absent on the last page (never `""`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How many items match in total, over all pages.
    pub total: usize,
}

/// Why a query could not be answered. Never a panic, never content from outside the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// Nothing in the catalog has this id or URI (MCP: `resource_not_found` with `data.uri`).
    NotFound {
        /// The id or URI as the caller gave it.
        uri: String,
        /// What was looked for, for messages (`skill \`pdff\``, `doc \`guide.md\``).
        what: String,
        /// Nearby ids or URIs that do exist, best first (at most 5).
        suggestions: Vec<String>,
    },
    /// The request is malformed (MCP: `-32602`): traversal, a bad cursor, a bad line range, an
    /// unknown section, an unknown parameter value.
    InvalidParams {
        /// The parameter at fault (`uri`, `cursor`, `lines`, `section`, `limit`, `query`, …).
        param: &'static str,
        /// Why, as a sentence fragment (lowercase, no trailing period).
        reason: String,
        /// A real next step (a URI to read or a call to make).
        repair: String,
    },
    /// The catalog holds what its compiler cannot have written (MCP: `-32603`): a lazily decoded
    /// field that does not decode, a section range past the end of its file. Only a forged or
    /// damaged file gets here; its hash proves nothing about who wrote it. The request is fine.
    Corrupt {
        /// The URI of the record at fault.
        uri: String,
        /// What is wrong, as a sentence fragment (lowercase, no trailing period).
        reason: String,
    },
}

impl QueryError {
    fn invalid(param: &'static str, reason: impl Into<String>) -> QueryError {
        let repair = match param {
            "cursor" => "restart from the first page: repeat the call without `cursor`".to_owned(),
            "uri" => format!(
                "read `{}` for the URI families, or call search_patterns / list_resources",
                crate::catalog::uri::ABOUT
            ),
            "mode" => format!(
                "leave `mode` out or pass `keyword`: both rank by words where meaning cannot be used \
                 (`{}` says which search this catalog has)",
                crate::catalog::uri::ABOUT
            ),
            _ => "fix the parameter and retry; call list_resources or search_patterns to see what \
                  exists"
                .to_owned(),
        };
        QueryError::InvalidParams { param, reason: reason.into(), repair }
    }

    fn invalid_with(param: &'static str, reason: impl Into<String>, repair: impl Into<String>) -> QueryError {
        QueryError::InvalidParams { param, reason: reason.into(), repair: repair.into() }
    }

    /// A hint naming a real next step: a URI to read or a tool to call.
    pub fn repair(&self) -> String {
        match self {
            QueryError::NotFound { suggestions, .. } if !suggestions.is_empty() => format!(
                "did you mean {}? Call search_patterns or list_resources to see what exists",
                suggestions.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
            ),
            QueryError::NotFound { .. } => {
                "call search_patterns or list_resources to see what exists".to_owned()
            }
            QueryError::InvalidParams { repair, .. } => repair.clone(),
            QueryError::Corrupt { .. } => "rebuild the catalog with `folio build`".to_owned(),
        }
    }

    /// True for [`QueryError::NotFound`].
    pub fn is_not_found(&self) -> bool {
        matches!(self, QueryError::NotFound { .. })
    }

    /// True for [`QueryError::Corrupt`]: the catalog is at fault, not the request.
    pub fn is_corrupt_catalog(&self) -> bool {
        matches!(self, QueryError::Corrupt { .. })
    }
}

/// The value of `field`, the `what` (outline, links, …) of the record served at `uri`, decoded
/// on first use. A field that does not decode (a forged catalog: its hash proves nothing) is
/// [`QueryError::Corrupt`], never an empty value served as if it were the record's.
pub(crate) fn decoded<'a, T: serde::de::DeserializeOwned + Default>(
    field: &'a crate::catalog::Lazy<T>,
    uri: &str,
    what: &str,
) -> Result<&'a T, QueryError> {
    field.get().map_err(|e| {
        let why = match e {
            DecodeError::Body(why) | DecodeError::Corrupt(why) => why,
            other => other.to_string(),
        };
        QueryError::Corrupt {
            uri: uri.to_owned(),
            reason: format!("the {what} of `{uri}` does not decode ({why})"),
        }
    })
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::NotFound { what, suggestions, .. } => {
                write!(f, "no {what}")?;
                if let Some(first) = suggestions.first() {
                    write!(f, "; did you mean `{first}`?")?;
                }
                Ok(())
            }
            QueryError::InvalidParams { param, reason, .. } => write!(f, "invalid `{param}`: {reason}"),
            QueryError::Corrupt { reason, .. } => write!(f, "catalog is corrupt: {reason}"),
        }
    }
}

impl std::error::Error for QueryError {}

/// Which doc or skill an entry belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// Index into `Catalog::docs`.
    Doc(u32),
    /// Index into `Catalog::skills`, and into its `files` (`None` for SKILL.md).
    Skill(u32, Option<u32>),
}

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
        let skills = &self.catalog.skills;
        let found = self.skill_by_name.binary_search_by(|&i| skills[i as usize].name.as_str().cmp(skill_id));
        found.ok().map(|at| &skills[self.skill_by_name[at] as usize])
    }

    /// The doc with this path, relative to `docs/` (`docs/` itself is also accepted as prefix).
    pub fn doc(&self, path: &str) -> Option<&Doc> {
        self.catalog.doc(path).or_else(|| path.strip_prefix("docs/").and_then(|p| self.catalog.doc(p)))
    }

    /// The entry with this canonical URI.
    pub fn entry(&self, uri: &str) -> Option<&Entry> {
        self.catalog.entry(uri)
    }

    fn entry_idx(&self, uri: &str) -> Option<usize> {
        self.catalog.entries.binary_search_by(|e| e.uri.as_str().cmp(uri)).ok()
    }

    fn owner(&self, entry_idx: usize) -> Option<Owner> {
        self.owners.get(entry_idx).copied().flatten()
    }
}

/// Clamps a caller's limit into `1..=MAX_LIMIT`, defaulting to [`DEFAULT_LIMIT`].
fn page_limit(limit: Option<usize>) -> Result<usize, QueryError> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(0) => Err(QueryError::invalid("limit", "must be at least 1")),
        Some(n) => Ok(n.min(MAX_LIMIT)),
    }
}

/// Cuts text to at most three sentences (resource descriptions, `content/docs/reference/mcp.md`).
///
/// A sentence ends at `.`, `!`, `?` or `。` followed by whitespace or the end. Scanned as bytes
/// (every `resources/list` record runs this): ASCII bytes and the lead byte of `。` never occur
/// inside another character's UTF-8 sequence, so each match is at a character boundary.
fn three_sentences(text: &str) -> String {
    const IDEOGRAPHIC_FULL_STOP: &[u8] = "。".as_bytes();
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        let len = match bytes[i] {
            b'.' | b'!' | b'?' => 1,
            0xE3 if bytes[i..].starts_with(IDEOGRAPHIC_FULL_STOP) => IDEOGRAPHIC_FULL_STOP.len(),
            _ => {
                i += 1;
                continue;
            }
        };
        let end = i + len;
        if text[end..].chars().next().is_none_or(char::is_whitespace) {
            count += 1;
            if count == 3 {
                return text[..end].to_owned();
            }
        }
        i = end;
    }
    text.to_owned()
}

/// The query layer's fixture catalog, opened: for the unit tests of the layers above (the
/// server's), which must not depend on the manual.
#[cfg(test)]
pub(crate) fn fixture_query() -> Query {
    Query::from_catalog(tests::fixture())
}
