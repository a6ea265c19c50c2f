//! `search`: the compile-time index queried with filters, deterministic ranking, snippets with
//! the matched terms marked, and cursors (ARCHITECTURE.md, "Search"). Skills are ranked for
//! routing: the field weights of skills' entries, a SKILL.md above its own files, one skill's
//! hits after its best scored down.
//!
//! Must not: score text itself (the index's scorer does, with the weights chosen here), or
//! order hits by anything but score and URI.

use std::borrow::Cow;
use std::sync::OnceLock;

use serde::Serialize;

use super::Query;
use super::cursor::{self, Page, page_limit};
use super::defining::{HEADING_CHECK, boost_defining_headings};
use super::error::{QueryError, decoded};
use super::filter::{Facets, Filter};
use super::kind::{Kind, Owner};
use super::semantic::{
    FULL_MEANING_WORDS, KEYWORD_ONLY_WORDS, KEYWORD_WEIGHT, Mode, SEMANTIC_CANDIDATES, Similarities,
};
use super::snippet::{mark, snippet, three_sentences};
use super::translations::{Translation, Translations};
use crate::catalog::search::{FIELD_WEIGHTS, FIELDS, QueryWord, query_words, word_terms, written_body_of};
use crate::catalog::{Section, mdx, uri};

/// Longest accepted query, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;
/// Most query words used; the rest of a very long query is ignored.
const MAX_TERMS: usize = 32;

/// A search request. Filters are optional and all must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchParams {
    /// Free text.
    pub query: String,
    /// Only hits of this kind.
    pub kind: Option<Kind>,
    /// Only docs and skills carrying this tag (case-insensitive).
    pub tag: Option<String>,
    /// Only skills declaring this capability.
    pub capability: Option<String>,
    /// Only docs of this category.
    pub category: Option<String>,
    /// Only docs in this locale (`ja`, `zh-cn`; case-insensitive).
    pub lang: Option<String>,
    /// Page size (default 10, clamped to [`cursor::MAX_LIMIT`]).
    pub limit: Option<usize>,
    /// Cursor from a previous page.
    pub cursor: Option<String>,
    /// How to rank: hybrid (the default), keyword or semantic.
    pub mode: Mode,
}

impl SearchParams {
    /// The request's filters.
    fn filter(&self) -> Filter<'_> {
        Filter {
            kind: self.kind,
            tag: self.tag.as_deref(),
            category: self.category.as_deref(),
            capability: self.capability.as_deref(),
            since: None,
            lang: self.lang.as_deref(),
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Canonical URI of the matching entry.
    pub uri: String,
    /// What it is.
    pub kind: Kind,
    /// Title.
    pub title: String,
    /// Text around the best match, matched terms as `**term**`.
    pub snippet: String,
    /// The ranking score (higher is better; BM25F, fused with vector similarity in a hybrid
    /// search, the cosine similarity in a semantic one); comparable within one query only.
    pub score: f32,
    /// In a semantic search: the cosine distance (1 − similarity) of the query to the hit's
    /// closest section, 0 (same meaning) to 2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<f32>,
    /// Size in bytes.
    pub size: u64,
    /// The section holding the best match (`<uri>?section=<id>`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_uri: Option<String>,
    /// The skill this hit belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill_id: Option<String>,
    /// A doc's locale, in a catalog of several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// The other locales' versions of a doc's page, sorted by locale (see the manual's search
    /// reference: one hit per page).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub translations: Vec<Translation>,
}

/// A query's words (what the index scores) and their distinct terms (what snippets mark).
struct Terms {
    words: Vec<QueryWord>,
    marks: Vec<String>,
}

fn checked_terms(text: &str) -> Result<Terms, QueryError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(QueryError::invalid("query", "is empty; give one or more words to search for"));
    }
    if text.chars().count() > MAX_QUERY_CHARS {
        return Err(QueryError::invalid(
            "query",
            format!("is longer than {MAX_QUERY_CHARS} characters; search for a few distinctive words"),
        ));
    }
    let mut words = query_words(text);
    if words.is_empty() {
        return Err(QueryError::invalid(
            "query",
            format!("`{text}` has no words to search for (only punctuation or symbols)"),
        ));
    }
    words.truncate(MAX_TERMS);
    let marks = word_terms(&words);
    Ok(Terms { words, marks })
}

/// Entries matching `text` that `filter` keeps and `keep` accepts (by owner), one per page
/// across its translations, unpaginated: the first `top` best first (ties by URI), the rest
/// after them in no particular order. What the index templates' `q` orders by, and where
/// "did you mean" looks when no name is near.
pub(super) fn ranked_entries(
    query: &Query,
    text: &str,
    filter: &Filter<'_>,
    keep: &dyn Fn(Owner) -> bool,
    mode: Mode,
    top: usize,
) -> Result<Vec<(u32, f32)>, QueryError> {
    let terms = checked_terms(text)?;
    query.verified_index()?;
    let sims = query.similarities(text, mode)?;
    Ok(ranked(query, text, filter, keep, &terms.words, sims.as_ref(), mode, top))
}

/// Matching entries; the first `top` of them in rank order (best first, ties by URI), the rest
/// after them in no particular order. `hits.len()` is always the total number of matches.
///
/// Filtered before translations collapse: a page stands for its translations only among the
/// docs the request keeps, so `lang=ja` (or a `prefix` of `ja/`) keeps the Japanese version of
/// a page a Latin-script query would otherwise be answered with in English.
///
/// With `sims` (the query's similarities, see `semantic`), a hybrid search fuses each entry's
/// BM25 score with its best section's similarity and adds the most similar entries BM25 did not
/// match; a semantic search ranks by similarity alone.
#[expect(
    clippy::too_many_arguments,
    reason = "one ranking pass over the filter, the words and the similarities; a struct would only name them again"
)]
fn ranked(
    query: &Query,
    text: &str,
    filter: &Filter<'_>,
    keep: impl Fn(Owner) -> bool,
    words: &[QueryWord],
    sims: Option<&Similarities>,
    mode: Mode,
    top: usize,
) -> Vec<(u32, f32)> {
    let catalog = &query.catalog;
    let semantic = mode == Mode::Semantic && sims.is_some();
    let scored = if semantic {
        Vec::new()
    } else {
        catalog.search.score_with(words, &|entry| field_weights(query.owner(entry as usize)))
    };
    // The entries that can have a heading naming the query (every word is in their headings).
    let mut headed: Vec<u32> = scored.iter().filter(|s| s.headed).map(|s| s.entry).collect();
    headed.sort_unstable();
    let filtered = *filter != Filter::default();
    let passes = |entry: u32| {
        let idx = entry as usize;
        let Some(owner) = query.owner(idx) else { return false };
        // A common word matches most of the catalog: without filters the owner table
        // (12 bytes an entry) is all a hit needs, not its entry and doc records.
        if !filtered {
            return keep(owner);
        }
        let Some(entry) = catalog.entries.get(idx) else { return false };
        filter.keeps(Kind::of_entry(entry.kind), &Facets::of(catalog, owner)) && keep(owner)
    };
    let mut hits: Vec<(u32, f32)> = Vec::with_capacity(scored.len());
    hits.extend(scored.iter().filter(|s| passes(s.entry)).map(|s| (s.entry, s.score)));
    if let Some(sims) = sims {
        hits = fused(hits, sims, semantic, &passes, catalog.entries.len(), text.split_whitespace().count());
    }
    // One hit per page, in the language the query is written in (when the catalog has several).
    let translations = query.translations.get_or_init(|| Translations::new(catalog));
    let preferred = match filter.lang {
        Some(_) => None,
        None => translations.preferred(text),
    };
    let doc_of = |entry: u32| match query.owner(entry as usize) {
        Some(Owner::Doc(d)) => Some(d),
        _ => None,
    };
    let mut hits = translations.collapse(catalog, doc_of, hits, preferred);
    lift_skill_documents(query, &mut hits);
    demote_same_skill(query, &mut hits);
    // Best first; equal scores by URI (entries are sorted by URI, so by entry index), which makes
    // the order total and identical on every machine.
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    let checked = HEADING_CHECK.min(hits.len());
    let top = top.max(checked);
    if top < hits.len() {
        // Only the requested pages need an order: select them, then sort just those.
        hits.select_nth_unstable_by(top, order);
        hits[..top].sort_by(order);
    } else {
        hits.sort_by(order);
    }
    // Boosting only raises scores, so the boosted best stay above everything after them.
    if !semantic && boost_defining_headings(query, text, words, &headed, &mut hits[..checked]) {
        hits[..checked].sort_by(order);
    }
    hits
}

/// `bm25`'s hits with the vectors' view added (the rule and its reasons: `semantic`'s module
/// doc). In a semantic search, the entries most similar to the query (at most
/// [`SEMANTIC_CANDIDATES`]) scored by similarity. In a hybrid one, every BM25 hit and every such
/// candidate scored `w · bm25 / best_bm25 + (1 − w) · s`, where `s` is the similarity scaled
/// over the candidates (the least similar 0, the most similar 1; below the least, 0) and `w`
/// grows from [`KEYWORD_WEIGHT`] to 1 as the query gets shorter ([`keyword_weight`]).
/// Only entries that `passes` keeps are added.
fn fused(
    bm25: Vec<(u32, f32)>,
    sims: &Similarities,
    semantic: bool,
    passes: &dyn Fn(u32) -> bool,
    entries: usize,
    words: usize,
) -> Vec<(u32, f32)> {
    let mut by_similarity: Vec<(u32, f32)> = (0..entries as u32)
        .filter_map(|e| sims.of_entry(e).map(|(sim, _)| (e, sim)))
        .filter(|&(e, _)| passes(e))
        .collect();
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if by_similarity.len() > SEMANTIC_CANDIDATES {
        by_similarity.select_nth_unstable_by(SEMANTIC_CANDIDATES, order);
        by_similarity.truncate(SEMANTIC_CANDIDATES);
    }
    if semantic {
        return by_similarity;
    }
    let w = keyword_weight(words);
    if w >= 1.0 {
        return bm25;
    }
    let (low, high) =
        by_similarity.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &(_, s)| (lo.min(s), hi.max(s)));
    let scaled = |sim: f32| if high > low { ((sim - low) / (high - low)).max(0.0) } else { 0.0 };
    let similarity = |e: u32| sims.of_entry(e).map_or(0.0, |(sim, _)| scaled(sim));
    let best = bm25.iter().map(|h| h.1).fold(0.0f32, f32::max);
    let mut matched = vec![false; entries];
    let mut out: Vec<(u32, f32)> = bm25
        .into_iter()
        .map(|(e, score)| {
            matched[e as usize] = true;
            let keyword = if best > 0.0 { score / best } else { 0.0 };
            (e, w * keyword + (1.0 - w) * similarity(e))
        })
        .collect();
    out.extend(
        by_similarity
            .into_iter()
            .filter(|&(e, _)| !matched[e as usize])
            .map(|(e, sim)| (e, (1.0 - w) * scaled(sim))),
    );
    out
}

/// The weight of BM25 in a hybrid score for a query of `words` words (as typed): 1 up to
/// [`KEYWORD_ONLY_WORDS`], falling linearly to [`KEYWORD_WEIGHT`] at [`FULL_MEANING_WORDS`] and
/// beyond. A query of a word or two names what it wants (`vercel adapter`); a sentence says it
/// in its own words.
pub(super) fn keyword_weight(words: usize) -> f32 {
    let ramp = (words as f32 - KEYWORD_ONLY_WORDS as f32) / (FULL_MEANING_WORDS - KEYWORD_ONLY_WORDS) as f32;
    1.0 - (1.0 - KEYWORD_WEIGHT) * ramp.clamp(0.0, 1.0)
}

/// How much weaker than the best of its own files a skill's SKILL.md may score and still be put
/// above them: a file must answer twice as well as its skill's SKILL.md to rank above it. Chosen
/// on the tuning part of the skill-routing evaluation (tests/fixtures/skill-routing): 0.67, the
/// value before, left a skill third under two of its own reference files; 0.4 did no better.
const SIMILAR: f32 = 0.5;

/// The BM25F field weights of a skill's SKILL.md: its description (what the skill does and when
/// to use it, the text an agent chooses a skill by) counts as much as a title, and its body half
/// as much as a page's, so a long SKILL.md that mentions a task in passing does not outrank the
/// skill whose description names it. On the routing evaluation's tuning part, top 1 went from
/// 0.754 to 0.825 with the description alone (a weight of 25 did no better than 15), and to
/// 0.895 (top 3 0.904 to 0.974) with the bodies halved, [`SIMILAR`] and [`SAME_SKILL`].
const SKILL_WEIGHTS: [f32; FIELDS] = [15.0, 15.0, 6.0, 8.0, 0.5];
/// A skill's other markdown files (references, examples): a page's weights, the body halved like
/// SKILL.md's, so a long reference file does not outweigh its skill.
const SKILL_FILE_WEIGHTS: [f32; FIELDS] = [15.0, 4.0, 6.0, 8.0, 0.5];

/// The BM25F field weights of an entry, by what owns it.
fn field_weights(owner: Option<Owner>) -> &'static [f32; FIELDS] {
    match owner {
        Some(Owner::Skill(_, None)) => &SKILL_WEIGHTS,
        Some(Owner::Skill(_, Some(_))) => &SKILL_FILE_WEIGHTS,
        _ => &FIELD_WEIGHTS,
    }
}

/// Score factor of each of a skill's hits after its best one.
const SAME_SKILL: f32 = 0.5;

/// Halves the score of every hit of a skill but its best (SKILL.md or a file): a page lists
/// different skills before a second file of the same one, unless that file scores more than
/// twice as well as the others. Run after [`lift_skill_documents`], over every hit, so each page
/// of a paginated search sees the same order.
fn demote_same_skill(query: &Query, hits: &mut [(u32, f32)]) {
    // (skill, its best hit's index), by skill.
    let mut best: std::collections::BTreeMap<u32, usize> = std::collections::BTreeMap::new();
    for (i, &(entry, score)) in hits.iter().enumerate() {
        if let Some(Owner::Skill(skill, _)) = query.owner(entry as usize) {
            let b = best.entry(skill).or_insert(i);
            let (held, held_score) = hits[*b];
            if score > held_score || (score == held_score && entry < held) {
                *b = i;
            }
        }
    }
    if best.is_empty() {
        return;
    }
    for (i, (entry, score)) in hits.iter_mut().enumerate() {
        if let Some(Owner::Skill(skill, _)) = query.owner(*entry as usize)
            && best.get(&skill) != Some(&i)
        {
            *score *= SAME_SKILL;
        }
    }
}

/// Puts a skill's SKILL.md just above its own reference files when it scores at least
/// [`SIMILAR`] times the best of them: the skill is what a person asking for it means, its files are details of
/// it. Scores only rise, and only to just above that file's, so nothing else moves.
fn lift_skill_documents(query: &Query, hits: &mut [(u32, f32)]) {
    let mut best_file: std::collections::BTreeMap<u32, f32> = std::collections::BTreeMap::new();
    for &(entry, score) in hits.iter() {
        if let Some(Owner::Skill(skill, Some(_))) = query.owner(entry as usize) {
            let best = best_file.entry(skill).or_insert(score);
            *best = best.max(score);
        }
    }
    if best_file.is_empty() {
        return;
    }
    for (entry, score) in hits.iter_mut() {
        if let Some(Owner::Skill(skill, None)) = query.owner(*entry as usize)
            && let Some(&best) = best_file.get(&skill)
            && *score < best
            && *score >= best * SIMILAR
        {
            *score = best.next_up();
        }
    }
}

impl Query {
    /// Full-text search (ARCHITECTURE.md, "Search"): BM25 over title, description, tags, headings and body,
    /// filtered, ranked deterministically (ties by URI), with snippets and cursors.
    ///
    /// Fails with [`QueryError::InvalidParams`] for an empty or punctuation-only query, a query
    /// over 1,000 characters, or a bad cursor.
    pub fn search(&self, params: &SearchParams) -> Result<Page<Hit>, QueryError> {
        let limit = page_limit(Some(params.limit.unwrap_or(10)))?;
        let terms = checked_terms(&params.query)?;
        self.verified_index()?;
        let sims = self.similarities(&params.query, params.mode)?;
        let semantic = params.mode == Mode::Semantic;
        // Offsets come from cursors this function issued, so `offset + limit` bounds what must be
        // ordered; an invalid cursor is refused below before anything is returned.
        let wanted = params.cursor.as_deref().map_or(0, cursor::offset_hint);
        let hits = ranked(
            self,
            &params.query,
            &params.filter(),
            |_| true,
            &terms.words,
            sims.as_ref(),
            params.mode,
            wanted.saturating_add(limit),
        );
        // A cursor of one mode is not a cursor of another: the orders differ.
        let mut filters = params.filter().fingerprint(&terms.marks);
        if sims.is_some() {
            filters.push_str(params.mode.as_str());
        }
        let offset = match &params.cursor {
            Some(c) => cursor::decode(c, &self.catalog_hash, "search", &filters, hits.len())?,
            None => 0,
        };
        let (range, next_cursor) =
            cursor::page(&self.catalog_hash, "search", &filters, offset, limit, hits.len());
        let items = hits[range]
            .iter()
            .map(|&(entry, score)| {
                let best = sims.as_ref().and_then(|s| s.of_entry(entry));
                let mut hit = hit(
                    self,
                    entry as usize,
                    score,
                    &terms.marks,
                    best.map(|b| b.1),
                    semantic && best.is_some(),
                )?;
                if semantic {
                    hit.distance = best.map(|(sim, _)| ((1.0 - sim) * 10_000.0).round() / 10_000.0);
                }
                Ok(hit)
            })
            .collect::<Result<_, _>>()?;
        Ok(Page { items, next_cursor, total: hits.len() })
    }
}

/// The body of entry `idx` (at `path`, whose text is `text`) as the index read it
/// ([`body_of`](crate::catalog::search::body_of)), for its snippet. For MDX, what to blank is
/// found once per entry and kept with the open catalog: the scan costs several times the copy,
/// and a hit shown once is likely shown again.
fn searched_body<'t>(query: &Query, idx: usize, path: &str, text: &'t str) -> Cow<'t, str> {
    let body = written_body_of(path, text);
    if !mdx::is_mdx(path) {
        return Cow::Borrowed(body);
    }
    let per_entry =
        query.search_blanks.get_or_init(|| query.catalog.entries.iter().map(|_| OnceLock::new()).collect());
    let found =
        per_entry.get(idx).map(|blanks| blanks.get_or_init(|| mdx::jsx_flow(body).search_blanks(body)));
    found.and_then(|blanks| blanks.apply(body)).map_or(Cow::Borrowed(body), Cow::Owned)
}

/// Hit `idx` with its snippet: around the best match of `terms`, or else (a hit found by meaning,
/// with none of the query's words) the start of its closest section, `unit` of the vectors. A
/// hit ranked `by_meaning` alone is always shown by that section.
fn hit(
    query: &Query,
    idx: usize,
    score: f32,
    terms: &[String],
    unit: Option<u32>,
    by_meaning: bool,
) -> Result<Hit, QueryError> {
    let catalog = &query.catalog;
    let entry = &catalog.entries[idx];
    let (title, description, outline, skill_id): (String, String, &[Section], Option<String>) = match query
        .owner(idx)
    {
        Some(Owner::Doc(d)) => {
            let doc = &catalog.docs[d as usize];
            (doc.title.clone(), doc.description.clone(), decoded(&doc.outline, &entry.uri, "outline")?, None)
        }
        Some(Owner::Skill(s, None)) => {
            let skill = &catalog.skills[s as usize];
            let outline = decoded(&skill.outline, &entry.uri, "outline")?;
            (skill.title.clone(), skill.description.clone(), outline, Some(skill.name.clone()))
        }
        Some(Owner::Skill(s, Some(f))) => {
            let skill = &catalog.skills[s as usize];
            let file = &skill.files[f as usize];
            let title = file.title.clone().unwrap_or_else(|| format!("{} · {}", skill.name, file.rel_path));
            (title, file.description.clone().unwrap_or_default(), &[], Some(skill.name.clone()))
        }
        None => (entry.path.clone(), String::new(), &[], None),
    };
    let translations = query.translations.get_or_init(|| Translations::new(catalog));
    let (locale, translations) = match query.owner(idx) {
        Some(Owner::Doc(d)) if translations.multilingual() => {
            (Some(catalog.docs[d as usize].locale.clone()), translations.of(catalog, d))
        }
        _ => (None, Vec::new()),
    };
    let text = entry.text().unwrap_or("");
    let body = searched_body(query, idx, &entry.path, text);
    let body_offset = text.len() - body.len();
    // The start of the section nearest the query in meaning, marked.
    let nearest = |section: &Section| {
        let start = text.split('\n').take(section.line_start as usize).map(|l| l.len() + 1).sum::<usize>();
        let own = text.get(start.min(text.len())..).unwrap_or_default();
        let lead = three_sentences(own.trim_start());
        let shown = if lead.is_empty() { three_sentences(&description) } else { lead };
        (mark(&shown, terms), Some(uri::with_section(&entry.uri, &section.id)))
    };
    let closest = closest_section(query, unit, outline);
    let (snippet, section_uri) = match (snippet(&body, terms), closest) {
        // Ranked by meaning alone, a hit is shown by the section that ranked it.
        (_, Some(section)) if by_meaning => nearest(section),
        (Some((snippet, at)), _) => {
            let line = 1 + text.as_bytes()[..body_offset + at].iter().filter(|&&b| b == b'\n').count() as u32;
            // The innermost section holding the match: the last one starting at or before it.
            let section = outline.iter().rev().find(|s| s.line_start <= line && line <= s.line_end);
            (snippet, section.map(|s| uri::with_section(&entry.uri, &s.id)))
        }
        (None, Some(section)) => nearest(section),
        (None, None) => (mark(&three_sentences(&description), terms), None),
    };
    Ok(Hit {
        uri: entry.uri.clone(),
        kind: Kind::of_entry(entry.kind),
        title,
        snippet,
        score: (score * 1000.0).round() / 1000.0,
        distance: None,
        size: entry.size,
        section_uri,
        skill_id,
        locale,
        translations,
    })
}

/// The section of `outline` that vector unit `unit` stands for, when it is a section (not a lead).
fn closest_section<'o>(query: &Query, unit: Option<u32>, outline: &'o [Section]) -> Option<&'o Section> {
    let vectors = query.catalog.vectors.as_ref()?;
    let id = &vectors.units.get(unit? as usize)?.section;
    if id.is_empty() {
        return None;
    }
    outline.iter().find(|s| &s.id == id)
}
