//! `resolve`: turning what a person or an agent typed (a skill id, a doc path, a URI) into one
//! catalog entry, with "did you mean" suggestions when nothing matches.

use super::Query;
use super::error::{QueryError, uri_error};
use super::filter::Filter;
use super::kind::{Kind, Owner};
use super::search::ranked_entries;
use super::semantic::Mode;
use crate::catalog::uri::{self, Target};
use crate::catalog::{Doc, Skill, SkillFile};
use crate::suggest::distance;

/// What an id or URI names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A generated catalog resource (`resource://catalog/about`, an index).
    Catalog {
        /// Its URI, without query parameters.
        uri: String,
    },
    /// A doc.
    Doc {
        /// Path relative to `docs/`.
        path: String,
        /// Canonical URI of its bytes.
        uri: String,
    },
    /// A skill, or one file of it.
    Skill {
        /// The skill id.
        skill_id: String,
        /// Canonical URI of the named file (SKILL.md when the skill itself was named).
        uri: String,
        /// The file's ref id, when a file other than SKILL.md was named.
        ref_id: Option<String>,
    },
}

/// A [`Resolved`] with the index of its entry in `Catalog::entries` (`None` for a generated
/// resource): what a caller reads or describes next, without a second lookup.
pub(super) struct At {
    /// What the id or URI names.
    pub(super) resolved: Resolved,
    /// Its entry.
    pub(super) entry: Option<usize>,
}

impl Resolved {
    /// The canonical URI of the entry (or the singleton).
    pub fn uri(&self) -> &str {
        match self {
            Resolved::Catalog { uri } | Resolved::Doc { uri, .. } | Resolved::Skill { uri, .. } => uri,
        }
    }

    /// The kind of what was named.
    pub fn kind(&self) -> Kind {
        match self {
            Resolved::Catalog { .. } => Kind::Catalog,
            Resolved::Doc { .. } => Kind::Doc,
            Resolved::Skill { ref_id: None, .. } => Kind::Skill,
            Resolved::Skill { .. } => Kind::SkillFile,
        }
    }
}

impl Query {
    /// Resolves an id the way a person types it: a skill id, a skill path, a doc path (with or
    /// without `docs/` and the extension), or any catalog URI.
    ///
    /// Fails with [`QueryError::NotFound`] with "did you mean" suggestions, or
    /// [`QueryError::InvalidParams`] for traversal.
    pub fn resolve(&self, id: &str) -> Result<Resolved, QueryError> {
        self.resolve_at(id).map(|at| at.resolved)
    }

    /// [`Query::resolve`], with the index of the entry resolved (when it is one): what a caller
    /// reads or describes next without looking the entry up again.
    pub(super) fn resolve_at(&self, id: &str) -> Result<At, QueryError> {
        let id = id.trim();
        if id.is_empty() {
            return Err(QueryError::invalid("id", "is empty; give a skill id, a doc path or a catalog URI"));
        }
        if id.contains("://") {
            return resolve_uri(self, id);
        }
        // Plain ids get the same traversal checks as URI paths, before any lookup.
        uri::check_path(id.trim_end_matches('/')).map_err(|e| QueryError::invalid("id", e.to_string()))?;
        let id = id.trim_end_matches('/');
        if let Some(skill) = self.skill(id) {
            return Ok(skill_resolved(self, skill, None));
        }
        let bare = id.strip_prefix("docs/").unwrap_or(id);
        let doc_candidates = [
            bare.to_owned(),
            format!("{bare}.md"),
            format!("{bare}.mdx"),
            format!("{bare}/index.md"),
            format!("{bare}/_index.md"),
        ];
        for candidate in &doc_candidates {
            if let Some(doc) = self.doc(candidate) {
                return Ok(doc_resolved(self, doc));
            }
        }
        let skill_path = id.strip_prefix("skills/").unwrap_or(id);
        let skill_path = skill_path.strip_suffix("/SKILL.md").unwrap_or(skill_path);
        if let Some(skill) = self.skill_by_path(skill_path) {
            return Ok(skill_resolved(self, skill, None));
        }
        // A skill file by content path (`skills/acme/billing/references/api.md`) or skill path.
        if let Some(idx) = self
            .catalog
            .entries
            .iter()
            .position(|e| e.path == id || e.path.strip_prefix("skills/") == Some(id))
        {
            return Ok(entry_resolved(self, idx));
        }
        // Case-insensitive, when it names exactly one thing.
        let lower = id.to_lowercase();
        let mut folded = self.catalog.skills.iter().filter(|s| s.name.to_lowercase() == lower);
        if let (Some(skill), None) = (folded.next(), folded.next()) {
            return Ok(skill_resolved(self, skill, None));
        }
        let lower_bare = bare.to_lowercase();
        let mut folded = self.catalog.docs.iter().filter(|d| {
            let p = d.path.to_lowercase();
            p == lower_bare
                || p.strip_suffix(".md") == Some(&lower_bare)
                || p.strip_suffix(".mdx") == Some(&lower_bare)
        });
        if let (Some(doc), None) = (folded.next(), folded.next()) {
            return Ok(doc_resolved(self, doc));
        }
        Err(explain_left_out(
            self,
            id,
            QueryError::NotFound {
                uri: id.to_owned(),
                what: format!("skill or doc `{id}`"),
                suggestions: suggest(self, id),
            },
        ))
    }
}

fn resolve_uri(query: &Query, raw: &str) -> Result<At, QueryError> {
    let generated = |uri: &str| At { resolved: Resolved::Catalog { uri: uri.to_owned() }, entry: None };
    match uri::parse(raw).map_err(uri_error)? {
        Target::About => Ok(generated(uri::ABOUT)),
        Target::SkillsIndex(_) => Ok(generated(uri::SKILLS_INDEX)),
        Target::DocsIndex(_) => Ok(generated(uri::DOCS_INDEX)),
        Target::SkillDetail { skill_id } | Target::SkillDocument { skill_id, .. } => {
            let skill = query.skill(&skill_id).ok_or_else(|| not_found_skill(query, &skill_id))?;
            Ok(skill_resolved(query, skill, None))
        }
        Target::DocDetail { path } | Target::Doc { path, .. } => {
            let doc = query.doc(&path).ok_or_else(|| not_found_doc(query, &path))?;
            Ok(doc_resolved(query, doc))
        }
        Target::SkillReference { skill_id, ref_id, .. } => {
            let (skill, file) = skill_file(query, raw, &skill_id, &ref_id)?;
            Ok(skill_resolved(query, skill, Some(file.ref_id.clone())))
        }
        Target::Skill { path, .. } => {
            if let Some(idx) = query.entry_idx(&skill_uri(&path)) {
                return Ok(entry_resolved(query, idx));
            }
            if let Some(skill) = query.skill_by_path(&path) {
                return Ok(skill_resolved(query, skill, None));
            }
            Err(not_found_skill_path(query, raw, &path))
        }
    }
}

/// The file `ref_id` of skill `skill_id`, named by the alias URI `raw`: `NotFound` with the
/// nearest skill ids or ref ids when either is unknown.
fn skill_file<'q>(
    query: &'q Query,
    raw: &str,
    skill_id: &str,
    ref_id: &str,
) -> Result<(&'q Skill, &'q SkillFile), QueryError> {
    let skill = query.skill(skill_id).ok_or_else(|| not_found_skill(query, skill_id))?;
    let file = skill.files.iter().find(|f| f.ref_id == ref_id).ok_or_else(|| {
        let mut near = nearest(skill.files.iter().map(|f| f.ref_id.as_str()), ref_id);
        if near.is_empty() {
            near = skill.files.iter().take(5).map(|f| f.ref_id.clone()).collect();
        }
        QueryError::NotFound {
            uri: raw.to_owned(),
            what: format!("reference `{ref_id}` in skill `{skill_id}`"),
            suggestions: near.iter().map(|id| uri::skill_reference_alias(&skill.name, id)).collect(),
        }
    })?;
    Ok((skill, file))
}

/// `NotFound` for the `skill://` URI `raw` of `path`, which names no file and no skill: the
/// nearest skill URIs, else search hits, or why it was left out.
fn not_found_skill_path(query: &Query, raw: &str, path: &str) -> QueryError {
    let mut suggestions = nearest(
        query.catalog.entries.iter().filter(|e| e.uri.starts_with(uri::SKILL_PREFIX)).map(|e| e.uri.as_str()),
        &format!("{}{}", uri::SKILL_PREFIX, path),
    );
    if suggestions.is_empty() {
        suggestions = search_suggestions(query, path);
    }
    explain_left_out(
        query,
        path,
        QueryError::NotFound { uri: raw.to_owned(), what: format!("skill file `{raw}`"), suggestions },
    )
}

/// The canonical `skill://` URI of the file at `path` (relative to `skills/`).
fn skill_uri(path: &str) -> String {
    format!("{}{}", uri::SKILL_PREFIX, uri::encode_path(path))
}

/// What a parsed URI names once it is looked up: one entry of the catalog, with the URI's own
/// `?section=`/`?lines=`, or a resource generated from the catalog.
pub(super) enum Located {
    /// The entry at this index of `Catalog::entries`.
    Entry {
        /// Index into `Catalog::entries`.
        idx: usize,
        /// The URI's query parameters.
        params: Vec<(String, String)>,
    },
    /// A resource generated from the catalog (the URI's target, unchanged).
    Generated(Target),
}

impl Query {
    /// Looks up what `target` (parsed from `raw`) names, once: every read starts here and
    /// carries the entry's index on, so nothing downstream looks it up again.
    ///
    /// Fails with [`QueryError::NotFound`] (with suggestions) for what the catalog does not
    /// hold, and [`QueryError::InvalidParams`] for a skill directory (listed, never read).
    pub(super) fn locate(&self, raw: &str, target: Target) -> Result<Located, QueryError> {
        match target {
            Target::About
            | Target::SkillsIndex(_)
            | Target::DocsIndex(_)
            | Target::SkillDetail { .. }
            | Target::DocDetail { .. } => Ok(Located::Generated(target)),
            Target::Doc { path, params } => {
                let doc = self.doc(&path).ok_or_else(|| not_found_doc(self, &path))?;
                Ok(Located::Entry { idx: doc.entry as usize, params })
            }
            Target::SkillDocument { skill_id, params } => {
                let skill = self.skill(&skill_id).ok_or_else(|| not_found_skill(self, &skill_id))?;
                Ok(Located::Entry { idx: skill.document as usize, params })
            }
            Target::SkillReference { skill_id, ref_id, params } => {
                let (_, file) = skill_file(self, raw, &skill_id, &ref_id)?;
                Ok(Located::Entry { idx: file.entry as usize, params })
            }
            Target::Skill { path, params } => {
                if let Some(idx) = self.entry_idx(&skill_uri(&path)) {
                    return Ok(Located::Entry { idx, params });
                }
                if self.skill_by_path(&path).is_none() {
                    return Err(not_found_skill_path(self, raw, &path));
                }
                // A skill directory is listed by `resources/directory/read`, never read.
                Err(QueryError::invalid_with(
                    "uri",
                    format!("`{raw}` is a skill directory, not a file"),
                    format!("list it with resources/directory/read, or read `{raw}/SKILL.md`"),
                ))
            }
        }
    }
}

// The record itself is passed in, not looked up again by name or path: what a lookup found is
// what is resolved, whatever the catalog holds. Entry indexes were checked when it was opened
// (`catalog::consistency`); a missing one resolves to an empty URI rather than a panic.

fn skill_resolved(query: &Query, skill: &Skill, ref_id: Option<String>) -> At {
    let entry = match &ref_id {
        None => skill.document,
        Some(r) => skill.files.iter().find(|f| &f.ref_id == r).map_or(skill.document, |f| f.entry),
    };
    let (uri, entry) = entry_uri(query, entry);
    At { resolved: Resolved::Skill { skill_id: skill.name.clone(), uri, ref_id }, entry }
}

fn doc_resolved(query: &Query, doc: &Doc) -> At {
    let (uri, entry) = entry_uri(query, doc.entry);
    At { resolved: Resolved::Doc { path: doc.path.clone(), uri }, entry }
}

/// The URI of entry `entry`, and its index when there is one.
fn entry_uri(query: &Query, entry: u32) -> (String, Option<usize>) {
    match query.catalog.entries.get(entry as usize) {
        Some(e) => (e.uri.clone(), Some(entry as usize)),
        None => (String::new(), None),
    }
}

fn entry_resolved(query: &Query, idx: usize) -> At {
    match query.owner(idx) {
        Some(Owner::Doc(d)) => doc_resolved(query, &query.catalog.docs[d as usize]),
        Some(Owner::Skill(s, file)) => {
            let skill = &query.catalog.skills[s as usize];
            let ref_id = file.map(|f| skill.files[f as usize].ref_id.clone());
            skill_resolved(query, skill, ref_id)
        }
        None => {
            let (uri, entry) = entry_uri(query, idx as u32);
            At { resolved: Resolved::Catalog { uri }, entry }
        }
    }
}

/// `NotFound` for a skill id, suggesting the nearest skill ids.
pub(super) fn not_found_skill(query: &Query, skill_id: &str) -> QueryError {
    let mut suggestions = nearest(query.catalog.skills.iter().map(|s| s.name.as_str()), skill_id);
    if suggestions.is_empty() {
        suggestions =
            search_suggestions(query, skill_id).into_iter().filter(|s| query.skill(s).is_some()).collect();
    }
    explain_left_out(
        query,
        skill_id,
        QueryError::NotFound {
            uri: uri::skill_detail(skill_id),
            what: format!("skill `{skill_id}`"),
            suggestions,
        },
    )
}

/// `err` (a [`QueryError::NotFound`] for `key`, a skill path or a doc path) saying, when the
/// entry was left out of the catalog for errors of its own (a lenient compile), that it was and
/// why, without suggesting another entry in its place.
pub(super) fn explain_left_out(query: &Query, key: &str, err: QueryError) -> QueryError {
    let QueryError::NotFound { uri, what, .. } = &err else { return err };
    let key = key.trim_matches('/');
    let key = key.strip_prefix("skills/").or_else(|| key.strip_prefix("docs/")).unwrap_or(key);
    if key.is_empty() {
        return err;
    }
    // The entry or a folder above it (`review/references/x.md` is in the skill `review`).
    let mut ancestors = std::iter::successors(Some(key), |k| k.rsplit_once('/').map(|(dir, _)| dir));
    let Some(left) = ancestors.find_map(|k| {
        let suffix = format!("/{k}");
        query.catalog.settings.left_out.iter().find(|l| l.path == k || l.path.ends_with(&suffix))
    }) else {
        return err;
    };
    QueryError::NotFound {
        uri: uri.clone(),
        what: format!(
            "{what}: `{}` was left out of this catalog for errors of its own ({})",
            left.path,
            left.reasons.join("; ")
        ),
        suggestions: Vec::new(),
    }
}

/// `NotFound` for a doc path, suggesting the nearest doc paths.
pub(super) fn not_found_doc(query: &Query, path: &str) -> QueryError {
    let mut suggestions = nearest(query.catalog.docs.iter().map(|d| d.path.as_str()), path);
    if suggestions.is_empty() {
        suggestions = search_suggestions(query, path);
    }
    explain_left_out(
        query,
        path,
        QueryError::NotFound { uri: uri::doc(path), what: format!("doc `{path}`"), suggestions },
    )
}

impl Query {
    /// The skill names nearest `name` by edit distance, best first (at most 5): the "did you
    /// mean" of a prompt or skill named by its name alone.
    pub fn nearest_skill_names(&self, name: &str) -> Vec<String> {
        nearest(self.catalog.skills.iter().map(|s| s.name.as_str()), name)
    }
}

/// Longest id, path or URI "did you mean" suggestions are computed for, in bytes.
const MAX_SUGGESTION_INPUT: usize = 1024;

/// Up to 5 ids or paths: skill ids and doc paths near `id` by edit distance, else search hits.
pub(super) fn suggest(query: &Query, id: &str) -> Vec<String> {
    let candidates = query
        .catalog
        .skills
        .iter()
        .map(|s| s.name.as_str())
        .chain(query.catalog.docs.iter().map(|d| d.path.as_str()));
    let near = nearest(candidates, id.strip_prefix("docs/").unwrap_or(id));
    if near.is_empty() { search_suggestions(query, id) } else { near }
}

/// Skill ids or doc paths of the best search hits for `text` (spaces for separators).
///
/// Each hit is resolved from its entry, never by looking its URI up again: a lookup that fails
/// suggests, which searches, so in a forged catalog whose hits do not resolve that recursed
/// until the stack overflowed.
fn search_suggestions(query: &Query, text: &str) -> Vec<String> {
    const HITS: usize = 3;
    if text.len() > MAX_SUGGESTION_INPUT {
        return Vec::new();
    }
    let words: String = text.chars().map(|c| if c.is_alphanumeric() { c } else { ' ' }).collect();
    let Ok(hits) = ranked_entries(query, &words, &Filter::default(), &|_| true, Mode::Keyword, HITS) else {
        return Vec::new();
    };
    hits.iter()
        .take(HITS)
        .map(|&(entry, _)| match entry_resolved(query, entry as usize).resolved {
            Resolved::Skill { skill_id, ref_id: None, .. } => skill_id,
            Resolved::Doc { path, .. } => path,
            other => other.uri().to_owned(),
        })
        .collect()
}

/// The candidates nearest to `target` (as a whole, or by their stem or last segment): a typo away
/// ([`crate::suggest`]), or containing it; best first, ties by name; at most 5.
pub(super) fn nearest<'a>(candidates: impl Iterator<Item = &'a str>, target: &str) -> Vec<String> {
    // Nothing in a catalog is near a name this long, and comparing it with every candidate
    // would cost seconds per request.
    if target.len() > MAX_SUGGESTION_INPUT {
        return Vec::new();
    }
    let target = target.to_lowercase();
    let max = crate::suggest::typo_limit(&target);
    let mut scored: Vec<(usize, &str)> = candidates
        .filter_map(|c| {
            let lower = c.to_lowercase();
            let stem = lower.rsplit_once('.').map_or(lower.as_str(), |(s, _)| s);
            let base = stem.rsplit_once('/').map_or(stem, |(_, b)| b);
            let d = [lower.as_str(), stem, base]
                .into_iter()
                .filter_map(|form| distance(form, &target, max))
                .min();
            if let Some(d) = d {
                Some((d, c))
            } else if target.chars().count() >= 3 && lower.contains(&target) {
                Some((max + 1, c))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(5).map(|(_, c)| c.to_owned()).collect()
}
