//! `list` (every resource, filtered and paginated) and the two catalog indexes
//! (`resource://catalog/skills_index`, `resource://catalog/docs_index`).

use serde::Serialize;

use super::Query;
use super::cursor::{self, Page, page_limit};
use super::error::QueryError;
use super::filter::{Facets, Filter, check_date};
use super::kind::{Kind, Owner};
use super::search::ranked_entries;
use super::semantic::Mode;
use super::snippet::three_sentences;
use super::translations::{Translation, Translations};
use crate::catalog::{Entry, uri};

/// Order of a listing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sort {
    /// By URI (catalog singletons first, then `resource://docs/…`, then `skill://…`).
    #[default]
    Path,
    /// Most recently updated first (frontmatter dates); undated entries last; ties by URI.
    Updated,
}

impl Sort {
    /// Parses `path` or `updated`. Fails with [`QueryError::InvalidParams`] otherwise.
    pub fn parse(name: &str) -> Result<Sort, QueryError> {
        match name {
            "" | "path" => Ok(Sort::Path),
            "updated" => Ok(Sort::Updated),
            other => {
                Err(QueryError::invalid("sort", format!("unknown sort `{other}` (expected path or updated)")))
            }
        }
    }
}

/// Filters and paging of [`Query::list`]. Every filter is optional; all given filters must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListParams {
    /// Only records of this kind (`None`: everything, catalog singletons included).
    pub kind: Option<Kind>,
    /// Only records whose path starts with this: the doc path (`guides/`), the content path
    /// (`docs/guides/`, `skills/acme/`), the skill path (`acme/`) or the URI.
    pub prefix: Option<String>,
    /// Only docs and skills carrying this tag (case-insensitive).
    pub tag: Option<String>,
    /// Only docs of this category (case-insensitive).
    pub category: Option<String>,
    /// Only docs in this locale (`ja`, `zh-cn`; case-insensitive).
    pub lang: Option<String>,
    /// Only skills declaring this capability (case-insensitive).
    pub capability: Option<String>,
    /// Only entries updated on or after this date (`YYYY-MM-DD` or RFC 3339).
    pub updated_since: Option<String>,
    /// Order of the records.
    pub sort: Sort,
    /// Cursor from a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// Page size (default [`cursor::DEFAULT_LIMIT`], clamped to [`cursor::MAX_LIMIT`]).
    pub limit: Option<usize>,
}

/// One resource as `resources/list` and `list_resources` describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    /// Canonical URI.
    pub uri: String,
    /// What it is.
    pub kind: Kind,
    /// Short machine name: doc path, skill id, `{skill_id}/{rel_path}`, or the singleton's name.
    pub name: String,
    /// Human title.
    pub title: String,
    /// At most three sentences.
    pub description: String,
    /// MIME type.
    pub mime: String,
    /// Size in bytes (absent for generated catalog resources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// blake3 of the bytes, hex (absent for generated catalog resources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blake3: Option<String>,
    /// Frontmatter date (`annotations.lastModified`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Content-relative path (`docs/guides/install.md`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The skill this record belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill_id: Option<String>,
    /// The skill file's reference id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ref_id: Option<String>,
    /// Tags of the doc or skill.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// A skill in `resource://catalog/skills_index`: what an agent needs to choose it, never bodies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillSummary {
    /// The skill id (its name): the `{skill_id}` of the alias and detail URIs.
    pub id: String,
    /// Frontmatter `name`.
    pub name: String,
    /// Title for listings.
    pub title: String,
    /// Frontmatter `description`.
    pub description: String,
    /// Folio `tags`.
    pub tags: Vec<String>,
    /// Folio `capabilities`.
    pub capabilities: Vec<String>,
    /// Folio `version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Frontmatter date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Total bytes of every file of the skill.
    pub size: u64,
    /// Number of files, SKILL.md included.
    pub files: usize,
    /// Canonical URI of SKILL.md (`skill://…/SKILL.md`).
    pub uri: String,
    /// Detail record: `resource://catalog/skills/{skill_id}`.
    pub detail_uri: String,
    /// Alias of SKILL.md: `resource://skills/{skill_id}/document`.
    pub document_uri: String,
}

/// A doc in `resource://catalog/docs_index`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocSummary {
    /// Path relative to `docs/`.
    pub path: String,
    /// Canonical URI (`resource://docs/{+path}`).
    pub uri: String,
    /// Detail record: `resource://catalog/docs/{+path}`.
    pub detail_uri: String,
    /// Title.
    pub title: String,
    /// At most three sentences.
    pub description: String,
    /// Frontmatter tags.
    pub tags: Vec<String>,
    /// Frontmatter category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Its locale (`en`, `zh-cn`).
    pub locale: String,
    /// Frontmatter date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Size in bytes.
    pub size: u64,
    /// Number of lines.
    pub total_lines: u32,
    /// The other locales' versions of its page, sorted by locale (in a catalog of several).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub translations: Vec<Translation>,
}

/// The generated catalog resources, in URI order.
pub(super) const SINGLETONS: [(&str, &str, &str, &str); 3] = [
    (
        uri::ABOUT,
        "about",
        "About this catalog",
        "What this server serves, counts, the catalog hash and the discovery order.",
    ),
    (
        uri::DOCS_INDEX,
        "docs_index",
        "Docs index",
        "One summary record per doc, filterable with q, tag, category, lang, prefix and updated_since.",
    ),
    (
        uri::SKILLS_INDEX,
        "skills_index",
        "Skills index",
        "One summary record per skill: id, description, tags, capabilities and follow-up URIs.",
    ),
];

fn singleton_record(idx: usize) -> Record {
    let (uri, name, title, description) = SINGLETONS[idx];
    Record {
        uri: uri.to_owned(),
        kind: Kind::Catalog,
        name: name.to_owned(),
        title: title.to_owned(),
        description: description.to_owned(),
        mime: if idx == 0 { "text/markdown" } else { "application/json" }.to_owned(),
        size: None,
        blake3: None,
        updated: None,
        path: None,
        skill_id: None,
        ref_id: None,
        tags: Vec::new(),
    }
}

impl Query {
    /// The record of one entry.
    pub fn record(&self, entry_idx: usize) -> Option<Record> {
        let entry = self.catalog.entries.get(entry_idx)?;
        let owner = self.owner(entry_idx)?;
        let mut record = Record {
            uri: entry.uri.clone(),
            kind: Kind::of_entry(entry.kind),
            name: String::new(),
            title: String::new(),
            description: String::new(),
            mime: entry.mime.clone(),
            size: Some(entry.size),
            blake3: Some(entry.blake3.clone()),
            updated: None,
            path: Some(entry.path.clone()),
            skill_id: None,
            ref_id: None,
            tags: Vec::new(),
        };
        match owner {
            Owner::Doc(doc_idx) => {
                let doc = &self.catalog.docs[doc_idx as usize];
                record.name = doc.path.clone();
                record.title = doc.title.clone();
                record.description = three_sentences(&doc.description);
                record.updated = doc.updated.clone();
                record.tags = doc.tags.clone();
            }
            Owner::Skill(skill_idx, file) => {
                let skill = &self.catalog.skills[skill_idx as usize];
                record.skill_id = Some(skill.name.clone());
                record.updated = skill.updated.clone();
                match file {
                    None => {
                        record.name = skill.name.clone();
                        record.title = skill.title.clone();
                        record.description = three_sentences(&skill.description);
                        record.tags = skill.tags.clone();
                    }
                    Some(file_idx) => {
                        let file = &skill.files[file_idx as usize];
                        record.name = format!("{}/{}", skill.name, file.rel_path);
                        record.title = file.title.clone().unwrap_or_else(|| file.rel_path.clone());
                        record.description = match &file.description {
                            Some(description) => three_sentences(description),
                            None => format!("File `{}` of skill `{}`.", file.rel_path, skill.name),
                        };
                        record.ref_id = Some(file.ref_id.clone());
                    }
                }
            }
        }
        Some(record)
    }

    /// The paths a `prefix` filter is matched against, besides the URI.
    fn relative_path(&self, entry_idx: usize) -> Option<&str> {
        let entry = &self.catalog.entries[entry_idx];
        match self.owner(entry_idx)? {
            Owner::Doc(_) => entry.path.strip_prefix("docs/"),
            Owner::Skill(..) => entry.path.strip_prefix("skills/"),
        }
    }
}

impl Query {
    /// Lists catalog resources (singletons, docs, skill documents, skill files) with filters and
    /// stable cursors. See [`ListParams`].
    ///
    /// Fails with [`QueryError::InvalidParams`] on a bad cursor, limit or `updated_since`.
    pub fn list(&self, params: &ListParams) -> Result<Page<Record>, QueryError> {
        let limit = page_limit(params.limit)?;
        let since = params.updated_since.as_deref().map(check_date).transpose()?;
        let prefix = params.prefix.as_deref().filter(|p| !p.is_empty());
        let catalog = &self.catalog;
        let filter = Filter {
            kind: params.kind,
            tag: params.tag.as_deref(),
            category: params.category.as_deref(),
            capability: params.capability.as_deref(),
            since,
            lang: params.lang.as_deref(),
        };

        let singletons = (0..SINGLETONS.len()).filter(|&i| {
            filter.kind.is_none_or(|k| k == Kind::Catalog)
                && prefix.is_none_or(|p| SINGLETONS[i].0.starts_with(p))
                && filter.keeps_every_owner()
        });
        let entries = (0..catalog.entries.len()).filter(|&idx| {
            let entry = &catalog.entries[idx];
            let Some(owner) = self.owner(idx) else { return false };
            let in_prefix = prefix.is_none_or(|p| {
                entry.uri.starts_with(p)
                    || entry.path.starts_with(p)
                    || self.relative_path(idx).is_some_and(|r| r.starts_with(p))
            });
            in_prefix && filter.keeps(Kind::of_entry(entry.kind), &Facets::of(catalog, owner))
        });
        let filters = filter.fingerprint((prefix, params.sort));
        let unfiltered = filter == Filter::default() && prefix.is_none();
        if unfiltered && params.sort == Sort::Path {
            // Every page of `resources/list` lands here: the order is the singletons, then every
            // listed entry, precomputed at open, so a page costs its records, not a scan of the
            // catalog (a full walk would otherwise be quadratic in the number of entries).
            let total = SINGLETONS.len() + self.listed.len();
            let offset = match &params.cursor {
                Some(c) => cursor::decode(c, &self.catalog_hash, "list", &filters, total)?,
                None => 0,
            };
            let (range, next_cursor) =
                cursor::page(&self.catalog_hash, "list", &filters, offset, limit, total);
            let records = range
                .map(|i| match i.checked_sub(SINGLETONS.len()) {
                    None => singleton_record(i),
                    Some(j) => self.record(self.listed[j] as usize).expect("listed entries have owners"),
                })
                .collect();
            return Ok(Page { items: records, next_cursor, total });
        }
        // Singletons are encoded as `usize::MAX - i` so both kinds share one ordered list.
        let mut items: Vec<usize> = singletons.map(|i| usize::MAX - i).chain(entries).collect();
        if params.sort == Sort::Updated {
            let updated = |item: usize| -> Option<&str> {
                if item > catalog.entries.len() {
                    return None;
                }
                match self.owner(item)? {
                    Owner::Doc(d) => catalog.docs[d as usize].updated.as_deref(),
                    Owner::Skill(s, _) => catalog.skills[s as usize].updated.as_deref(),
                }
            };
            let uri_of = |item: usize| -> &str {
                if item > catalog.entries.len() {
                    SINGLETONS[usize::MAX - item].0
                } else {
                    &catalog.entries[item].uri
                }
            };
            // Newest first; undated last; ties by URI so the order is total and stable.
            items.sort_by(|&a, &b| {
                updated(b)
                    .is_some()
                    .cmp(&updated(a).is_some())
                    .then_with(|| updated(b).cmp(&updated(a)))
                    .then_with(|| uri_of(a).cmp(uri_of(b)))
            });
        }
        let offset = match &params.cursor {
            Some(c) => cursor::decode(c, &self.catalog_hash, "list", &filters, items.len())?,
            None => 0,
        };
        let (range, next_cursor) =
            cursor::page(&self.catalog_hash, "list", &filters, offset, limit, items.len());
        let records = items[range]
            .iter()
            .map(|&item| {
                if item > catalog.entries.len() {
                    singleton_record(usize::MAX - item)
                } else {
                    self.record(item).expect("listed entries have owners")
                }
            })
            .collect();
        Ok(Page { items: records, next_cursor, total: items.len() })
    }
}

/// Reads the shared index parameters, refusing unknown keys (the URI parser already did, but the
/// index functions are public and must not trust their caller).
fn param<'a>(params: &'a [(String, String)], key: &str) -> Option<&'a str> {
    params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty())
}

fn limit_param(params: &[(String, String)]) -> Result<Option<usize>, QueryError> {
    param(params, "limit")
        .map(|v| {
            v.parse::<usize>()
                .map_err(|_| QueryError::invalid("limit", format!("`{v}` is not a positive integer")))
        })
        .transpose()
}

impl Query {
    /// Summary records of skills (the JSON of `resource://catalog/skills_index`).
    ///
    /// `params` holds the index's query parameters (`q`, `tag`, `capability`, `cursor`, `limit`).
    /// Fails with [`QueryError::InvalidParams`] on a bad value.
    pub fn skills_index(&self, params: &[(String, String)]) -> Result<Page<SkillSummary>, QueryError> {
        reject_unknown(params, &["q", "tag", "capability", "cursor", "limit"])?;
        let limit = page_limit(limit_param(params)?)?;
        let filter = Filter {
            kind: Some(Kind::Skill),
            tag: param(params, "tag"),
            capability: param(params, "capability"),
            ..Filter::default()
        };
        let skills = &self.catalog.skills;
        let order: Vec<usize> = match param(params, "q") {
            Some(q) => ranked_entries(self, q, &filter, &|_| true, Mode::Hybrid, usize::MAX)?
                .into_iter()
                .filter_map(|(entry, _)| match self.owner(entry as usize) {
                    Some(Owner::Skill(s, None)) => Some(s as usize),
                    _ => None,
                })
                .collect(),
            None => (0..skills.len())
                .filter(|&s| {
                    filter.keeps(Kind::Skill, &Facets::of(&self.catalog, Owner::Skill(s as u32, None)))
                })
                .collect(),
        };
        let filters = filter.fingerprint(param(params, "q"));
        let offset = match param(params, "cursor") {
            Some(c) => cursor::decode(c, &self.catalog_hash, "skills_index", &filters, order.len())?,
            None => 0,
        };
        let (range, next_cursor) =
            cursor::page(&self.catalog_hash, "skills_index", &filters, offset, limit, order.len());
        let items = order[range].iter().map(|&s| skill_summary(self, s)).collect();
        Ok(Page { items, next_cursor, total: order.len() })
    }
}

fn skill_summary(query: &Query, skill_idx: usize) -> SkillSummary {
    let skill = &query.catalog.skills[skill_idx];
    let entries = &query.catalog.entries;
    let size = entries[skill.document as usize].size
        + skill.files.iter().map(|f| entries[f.entry as usize].size).sum::<u64>();
    SkillSummary {
        id: skill.name.clone(),
        name: skill.name.clone(),
        title: skill.title.clone(),
        description: skill.description.clone(),
        tags: skill.tags.clone(),
        capabilities: skill.capabilities.clone(),
        version: skill.version.clone(),
        updated: skill.updated.clone(),
        size,
        files: skill.files.len() + 1,
        uri: entries[skill.document as usize].uri.clone(),
        detail_uri: uri::skill_detail(&skill.name),
        document_uri: uri::skill_document_alias(&skill.name),
    }
}

impl Query {
    /// Summary records of docs (the JSON of `resource://catalog/docs_index`).
    ///
    /// `params` holds `q`, `tag`, `category`, `prefix`, `updated_since`, `cursor`, `limit`.
    /// Fails with [`QueryError::InvalidParams`] on a bad value.
    pub fn docs_index(&self, params: &[(String, String)]) -> Result<Page<DocSummary>, QueryError> {
        reject_unknown(
            params,
            &["q", "tag", "category", "lang", "prefix", "updated_since", "cursor", "limit"],
        )?;
        let limit = page_limit(limit_param(params)?)?;
        let filter = Filter {
            kind: Some(Kind::Doc),
            tag: param(params, "tag"),
            category: param(params, "category"),
            lang: param(params, "lang"),
            since: param(params, "updated_since").map(check_date).transpose()?,
            ..Filter::default()
        };
        let prefix = param(params, "prefix");
        let docs = &self.catalog.docs;
        let under_prefix = |idx: usize| {
            let path = &docs[idx].path;
            prefix.is_none_or(|p| {
                path.starts_with(p) || p.strip_prefix("docs/").is_some_and(|p| path.starts_with(p))
            })
        };
        let order: Vec<usize> = match param(params, "q") {
            Some(q) => {
                let keep = |owner| matches!(owner, Owner::Doc(d) if under_prefix(d as usize));
                ranked_entries(self, q, &filter, &keep, Mode::Hybrid, usize::MAX)?
                    .into_iter()
                    .filter_map(|(entry, _)| match self.owner(entry as usize) {
                        Some(Owner::Doc(d)) => Some(d as usize),
                        _ => None,
                    })
                    .collect()
            }
            None => (0..docs.len())
                .filter(|&d| {
                    under_prefix(d)
                        && filter.keeps(Kind::Doc, &Facets::of(&self.catalog, Owner::Doc(d as u32)))
                })
                .collect(),
        };
        let filters = filter.fingerprint((param(params, "q"), prefix));
        let offset = match param(params, "cursor") {
            Some(c) => cursor::decode(c, &self.catalog_hash, "docs_index", &filters, order.len())?,
            None => 0,
        };
        let (range, next_cursor) =
            cursor::page(&self.catalog_hash, "docs_index", &filters, offset, limit, order.len());
        let items = order[range].iter().map(|&d| doc_summary(self, d)).collect();
        Ok(Page { items, next_cursor, total: order.len() })
    }
}

fn doc_summary(query: &Query, doc_idx: usize) -> DocSummary {
    let doc = &query.catalog.docs[doc_idx];
    let entry: &Entry = &query.catalog.entries[doc.entry as usize];
    let translations = query
        .translations
        .get_or_init(|| Translations::new(&query.catalog))
        .of(&query.catalog, doc_idx as u32);
    DocSummary {
        path: doc.path.clone(),
        uri: entry.uri.clone(),
        detail_uri: uri::doc_detail(&doc.path),
        title: doc.title.clone(),
        description: three_sentences(&doc.description),
        tags: doc.tags.clone(),
        category: doc.category.clone(),
        locale: doc.locale.clone(),
        updated: doc.updated.clone(),
        size: entry.size,
        total_lines: entry.total_lines,
        translations,
    }
}

fn reject_unknown(params: &[(String, String)], allowed: &[&str]) -> Result<(), QueryError> {
    match params.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        None => Ok(()),
        Some((key, _)) => Err(QueryError::invalid(
            "uri",
            format!("unknown query parameter `{key}` (accepted: {})", allowed.join(", ")),
        )),
    }
}
