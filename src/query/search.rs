//! `search`: the compile-time index queried with filters, deterministic ranking, snippets with
//! the matched terms marked, and cursors (ARCHITECTURE.md, "Search").

use serde::Serialize;

use super::filter::{Facets, Filter};
use super::{Kind, Owner, Page, Query, QueryError, cursor, decoded, page_limit, three_sentences};
use crate::catalog::search::{body_of, query_terms, tokenize, tokenize_until};
use crate::catalog::{Section, uri};

/// Longest accepted query, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;
/// Most query terms used; the rest of a very long query is ignored.
const MAX_TERMS: usize = 32;
/// Target length of a snippet, in bytes.
const SNIPPET_BYTES: usize = 220;
/// How much of a document is scanned for the snippet window.
const SNIPPET_SCAN_BYTES: usize = 48 * 1024;

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
    /// Page size (default 10, clamped to [`super::MAX_LIMIT`]).
    pub limit: Option<usize>,
    /// Cursor from a previous page.
    pub cursor: Option<String>,
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
    /// BM25F score (higher is better); comparable within one query only.
    pub score: f32,
    /// Size in bytes.
    pub size: u64,
    /// The section holding the best match (`<uri>?section=<id>`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_uri: Option<String>,
    /// The skill this hit belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill_id: Option<String>,
}

fn checked_terms(text: &str) -> Result<Vec<String>, QueryError> {
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
    let mut terms = query_terms(text);
    if terms.is_empty() {
        return Err(QueryError::invalid(
            "query",
            format!("`{text}` has no words to search for (only punctuation or symbols)"),
        ));
    }
    terms.truncate(MAX_TERMS);
    Ok(terms)
}

/// Entries matching `text`, best first (ties by URI), optionally of one kind; unpaginated.
pub(super) fn ranked_entries(
    query: &Query,
    text: &str,
    kind: Option<Kind>,
) -> Result<Vec<(u32, f32)>, QueryError> {
    let params = SearchParams { query: text.to_owned(), kind, ..SearchParams::default() };
    let terms = checked_terms(text)?;
    Ok(ranked(query, &params, &terms, usize::MAX))
}

/// Matching entries; the first `top` of them in rank order (best first, ties by URI), the rest
/// after them in no particular order. `hits.len()` is always the total number of matches.
fn ranked(query: &Query, params: &SearchParams, terms: &[String], top: usize) -> Vec<(u32, f32)> {
    let catalog = &query.catalog;
    let scored = catalog.search.score(terms);
    let filter = params.filter();
    let filtered = filter != Filter::default();
    let mut hits: Vec<(u32, f32)> = Vec::with_capacity(scored.len());
    hits.extend(
        scored
            .iter()
            .filter(|s| {
                let idx = s.entry as usize;
                let Some(owner) = query.owner(idx) else { return false };
                // A common word matches most of the catalog: without filters the owner table
                // (12 bytes an entry) is all a hit needs, not its entry and doc records.
                if !filtered {
                    return true;
                }
                let Some(entry) = catalog.entries.get(idx) else { return false };
                filter.keeps(Kind::of_entry(entry.kind), &Facets::of(catalog, owner))
            })
            .map(|s| (s.entry, s.score)),
    );
    // Best first; equal scores by URI (entries are sorted by URI, so by entry index), which makes
    // the order total and identical on every machine.
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if top < hits.len() {
        // Only the requested pages need an order: select them, then sort just those.
        hits.select_nth_unstable_by(top, order);
        hits[..top].sort_by(order);
    } else {
        hits.sort_by(order);
    }
    hits
}

pub(super) fn search(query: &Query, params: &SearchParams) -> Result<Page<Hit>, QueryError> {
    let limit = page_limit(Some(params.limit.unwrap_or(10)))?;
    let terms = checked_terms(&params.query)?;
    // Offsets come from cursors this function issued, so `offset + limit` bounds what must be
    // ordered; an invalid cursor is refused below before anything is returned.
    let wanted = params.cursor.as_deref().map_or(0, cursor::offset_hint);
    let hits = ranked(query, params, &terms, wanted.saturating_add(limit));
    let filters = params.filter().fingerprint(&terms);
    let offset = match &params.cursor {
        Some(c) => cursor::decode(c, &query.catalog_hash, "search", &filters, hits.len())?,
        None => 0,
    };
    let (range, next_cursor) =
        cursor::page(&query.catalog_hash, "search", &filters, offset, limit, hits.len());
    let items = hits[range]
        .iter()
        .map(|&(entry, score)| hit(query, entry as usize, score, &terms))
        .collect::<Result<_, _>>()?;
    Ok(Page { items, next_cursor, total: hits.len() })
}

fn hit(query: &Query, idx: usize, score: f32, terms: &[String]) -> Result<Hit, QueryError> {
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
    let text = entry.text().unwrap_or("");
    let body = body_of(&entry.path, text);
    let body_offset = text.len() - body.len();
    let (snippet, section_uri) = match snippet(body, terms) {
        Some((snippet, at)) => {
            let line = 1 + text.as_bytes()[..body_offset + at].iter().filter(|&&b| b == b'\n').count() as u32;
            // The innermost section holding the match: the last one starting at or before it.
            let section = outline.iter().rev().find(|s| s.line_start <= line && line <= s.line_end);
            (snippet, section.map(|s| uri::with_section(&entry.uri, &s.id)))
        }
        None => (mark(&three_sentences(&description), terms), None),
    };
    Ok(Hit {
        uri: entry.uri.clone(),
        kind: Kind::of_entry(entry.kind),
        title,
        snippet,
        score: (score * 1000.0).round() / 1000.0,
        size: entry.size,
        section_uri,
        skill_id,
    })
}

fn matches(term: &str, terms: &[String]) -> bool {
    terms.iter().any(|q| term == q || (q.chars().count() >= 3 && term.starts_with(q.as_str())))
}

/// The best window of `text` for `terms` (the one with the most distinct terms, earliest on ties),
/// with the terms marked, and the byte offset of its first match. `None` when nothing matches.
///
/// Tokenizing a whole long document for every hit would dominate search time, so the likely
/// region is found first by plain substring search on an ASCII-lowercased copy (offsets are
/// preserved), and only that region is tokenized. When the fast search finds nothing the
/// tokenizer can confirm (a match only Unicode case folding reveals), the first 48 KiB are
/// tokenized instead.
fn snippet(text: &str, terms: &[String]) -> Option<(String, usize)> {
    if let Some((a, b)) = locate(text, terms)
        && let Some(found) = snippet_in(text, a, b, terms)
    {
        return Some(found);
    }
    let mut scan = text.len().min(SNIPPET_SCAN_BYTES);
    while !text.is_char_boundary(scan) {
        scan -= 1;
    }
    snippet_in(text, 0, scan, terms)
}

/// Bytes of a document lowercased at a time by [`locate`]: a long document is searched through
/// one small reused buffer instead of a lowercased copy of all of it.
const LOCATE_CHUNK: usize = 16 * 1024;
/// Occurrences of one term [`locate`] considers; later ones cannot improve the window much.
const LOCATE_HITS: usize = 64;

/// The region of `text` most likely to hold the best window: around the substring occurrence of
/// query terms (at word starts) with the most distinct terms nearby.
///
/// Per term, it considers the first [`LOCATE_HITS`] word-start occurrences of the
/// leftmost-non-overlapping matches in the ASCII-lowercased text, exactly as `match_indices` on
/// a lowercased copy would, but lowercases chunk by chunk and stops once every term has enough.
fn locate(text: &str, terms: &[String]) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    // Stems are prefixes of their words, except `-ies` → `-y`: search without the `y`.
    let probes: Vec<&str> = terms
        .iter()
        .map(|term| match term.strip_suffix('y') {
            Some(p) if p.len() >= 3 => p,
            _ => term.as_str(),
        })
        .collect();
    let longest = probes.iter().map(|p| p.len()).max().unwrap_or(0);
    // Per term: where its next match may start, and how many word-start matches it has.
    let mut from = vec![0usize; probes.len()];
    let mut counts = vec![0usize; probes.len()];
    let mut hits: Vec<(usize, usize)> = Vec::new();
    let mut window = String::with_capacity(LOCATE_CHUNK + longest + 4);
    let mut chunk_start = 0;
    while chunk_start < text.len() && counts.iter().any(|&n| n < LOCATE_HITS) {
        let mut chunk_end = (chunk_start + LOCATE_CHUNK).min(text.len());
        while !text.is_char_boundary(chunk_end) {
            chunk_end += 1;
        }
        // A match starting in this chunk may end up to `longest - 1` bytes after it.
        let mut window_end = (chunk_end + longest.saturating_sub(1)).min(text.len());
        while !text.is_char_boundary(window_end) {
            window_end += 1;
        }
        window.clear();
        window.push_str(&text[chunk_start..window_end]);
        window.make_ascii_lowercase();
        for (i, probe) in probes.iter().enumerate() {
            let ascii = probe.is_ascii();
            while counts[i] < LOCATE_HITS && from[i] < chunk_end {
                // `from` is always a char boundary: a chunk start or the end of a match.
                let Some(found) = window[from[i].max(chunk_start) - chunk_start..].find(probe) else {
                    break;
                };
                let pos = from[i].max(chunk_start) + found;
                if pos >= chunk_end {
                    // Found again, in full, when the next chunk is searched.
                    break;
                }
                from[i] = pos + probe.len();
                if !ascii || pos == 0 || !bytes[pos - 1].is_ascii_alphanumeric() {
                    hits.push((pos, i));
                    counts[i] += 1;
                }
            }
            from[i] = from[i].max(chunk_end);
        }
        chunk_start = chunk_end;
    }
    region_around(text, hits)
}

/// The region of `text` around the hit (`(offset, term index)`) with the most distinct terms in
/// the half-snippet after it; `None` without hits.
fn region_around(text: &str, mut hits: Vec<(usize, usize)>) -> Option<(usize, usize)> {
    hits.sort_unstable();
    let mut best = (0u32, *hits.first()?);
    for (k, &(pos, _)) in hits.iter().enumerate() {
        let seen = hits[k..]
            .iter()
            .take_while(|h| h.0 < pos + SNIPPET_BYTES / 2)
            .fold(0u64, |acc, h| acc | 1 << (h.1 % 64));
        if seen.count_ones() > best.0 {
            best = (seen.count_ones(), hits[k]);
        }
    }
    let pos = best.1.0;
    let mut a = pos.saturating_sub(SNIPPET_BYTES);
    while !text.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = (pos + 2 * SNIPPET_BYTES).min(text.len());
    while !text.is_char_boundary(b) {
        b += 1;
    }
    Some((a, b))
}

/// [`snippet`] over `text[a..b]`, with offsets and ellipses relative to the whole `text`.
fn snippet_in(full: &str, a: usize, b: usize, terms: &[String]) -> Option<(String, usize)> {
    let full_len = full.len();
    let text = &full[a..b];
    let mut found: Vec<(usize, usize, usize)> = Vec::new();
    let all = (1u64 << terms.len().min(63)) - 1;
    tokenize_until(text, true, |start, end, term| {
        let Some(i) = terms.iter().position(|q| matches(term, std::slice::from_ref(q))) else {
            return true;
        };
        found.push((start, end, i));
        // Stop at the first window holding every term: no later window beats it, and a long
        // document need not be tokenized to its end.
        let seen = found
            .iter()
            .rev()
            .take_while(|m| m.0 + SNIPPET_BYTES / 2 > start)
            .fold(0u64, |acc, m| acc | 1 << (m.2 % 64));
        seen & all != all
    });
    let mut best = (0usize, 0usize);
    for i in 0..found.len() {
        let mut seen = 0u64;
        for m in found[i..].iter().take_while(|m| m.0 < found[i].0 + SNIPPET_BYTES / 2) {
            seen |= 1 << (m.2 % 64);
        }
        let distinct = seen.count_ones() as usize;
        if distinct > best.0 {
            best = (distinct, i);
        }
    }
    let first = found.get(best.1)?;
    let mut start = first.0.saturating_sub(SNIPPET_BYTES / 4);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    // Start at a word boundary so the snippet does not open mid-word.
    if a + start > 0
        && let Some(space) = text[start..first.0].find(char::is_whitespace)
    {
        start += space + 1;
    }
    let mut end = (start + SNIPPET_BYTES).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    // End at a word boundary after the first match, so the snippet does not close mid-word.
    let keep = start.max(first.1);
    if a + end < full_len
        && keep < end
        && let Some(space) = text[keep..end].rfind(char::is_whitespace)
    {
        end = keep + space;
    }
    let end = end.max(first.1);
    let mut out = String::new();
    if a + start > 0 {
        out.push('…');
    }
    out.push_str(&mark(&text[start..end], terms));
    if a + end < full_len {
        out.push('…');
    }
    Some((out, a + first.0))
}

/// Marks every token of `text` matching a query term as `**token**` and collapses whitespace.
fn mark(text: &str, terms: &[String]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut at = 0;
    tokenize(text, true, |start, end, term| {
        if start >= at && matches(term, terms) {
            out.push_str(&text[at..start]);
            out.push_str("**");
            out.push_str(&text[start..end]);
            out.push_str("**");
            at = end;
        }
    });
    out.push_str(&text[at..]);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, query: &str, expected: &str) {
        let got = snippet(text, &query_terms(query)).map(|(s, at)| format!("{at} {s}"));
        assert_eq!(got.as_deref().unwrap_or("none"), expected);
    }

    #[test]
    fn snippets_find_and_mark_the_best_window() {
        check(
            "Install the binary.\nThen configure menus.\n",
            "configure menus",
            "25 Install the binary. Then **configure** **menus**.",
        );
        check("Taxonomies group content.", "taxonomy", "0 **Taxonomies** group content.");
        check("alpha beta", "gamma", "none");
        // Deep inside a long document, found by the fast locator, with ellipses on both sides.
        let long = format!("{}needle in a haystack{}", "hay ".repeat(30_000), " hay".repeat(100));
        let got = snippet(&long, &query_terms("needle")).unwrap();
        assert_eq!(got.1, 120_000);
        assert!(got.0.starts_with('…') && got.0.ends_with('…') && got.0.contains("**needle**"), "{}", got.0);
        // Only Unicode case folding reveals this match: the tokenizer fallback finds it.
        check("Die ÉCOLE ist hier.", "école", "4 Die **ÉCOLE** ist hier.");
        // CJK terms are found without word boundaries.
        check("日本語の文書を検索できます。", "文書", "12 日本語の**文書**を検索できます。");
    }

    /// What `locate` computed before it searched chunk by chunk: `match_indices` on a lowercased
    /// copy of the whole text.
    fn locate_whole(text: &str, terms: &[String]) -> Option<(usize, usize)> {
        let lower = text.to_ascii_lowercase();
        let bytes = lower.as_bytes();
        let mut hits: Vec<(usize, usize)> = Vec::new();
        for (i, term) in terms.iter().enumerate() {
            let probe = match term.strip_suffix('y') {
                Some(p) if p.len() >= 3 => p,
                _ => term.as_str(),
            };
            let ascii = probe.is_ascii();
            hits.extend(
                lower
                    .match_indices(probe)
                    .filter(|(pos, _)| !ascii || *pos == 0 || !bytes[pos - 1].is_ascii_alphanumeric())
                    .take(LOCATE_HITS)
                    .map(|(pos, _)| (pos, i)),
            );
        }
        region_around(text, hits)
    }

    #[test]
    fn chunked_locate_finds_what_a_whole_copy_finds() {
        let terms = |q: &[&str]| q.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let mut texts = Vec::new();
        // Matches straddling every chunk boundary, at every offset around it.
        for shift in 0..8 {
            let mut t = "x".repeat(LOCATE_CHUNK - 4 + shift);
            t.push_str(" Needle aaaa Menus ");
            texts.push(t.repeat(3));
        }
        // Multi-byte characters at the boundaries, self-overlapping probes, many occurrences.
        texts.push(format!("{}aaaaaaa needle", "é".repeat(LOCATE_CHUNK / 2 + 1)));
        texts.push(" needle menu".repeat(LOCATE_CHUNK / 4));
        texts.push(format!("{} 文書 needle", "日本語".repeat(LOCATE_CHUNK / 5)));
        texts.push(String::new());
        let queries = [
            terms(&["needle"]),
            terms(&["aaa", "menus"]),
            terms(&["menu", "needle", "文書"]),
            terms(&["taxonomy"]),
            terms(&["aa"]),
        ];
        for text in &texts {
            for q in &queries {
                assert_eq!(locate(text, q), locate_whole(text, q), "{q:?} in a text of {} bytes", text.len());
            }
        }
    }
}
