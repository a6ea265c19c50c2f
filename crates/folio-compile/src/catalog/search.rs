//! The full-text index: built at compile time from the catalog's docs and skills and stored in
//! it, queried at run time (ARCHITECTURE.md, "Search").
//!
//! # Model
//! Every text entry (doc, SKILL.md, text skill file) is one indexed document with five fields:
//! title, description, keywords (tags, category, capabilities, frontmatter `keywords` and
//! `linkTitle`, the skill name and the path's words), headings, and body (frontmatter removed).
//! Ranking is BM25F: each field's term frequency is length-normalised and weighted
//! ([`FIELD_WEIGHTS`]), summed, then saturated once with `k1`, times the term's idf.
//!
//! # Tokens
//! Unicode-aware: a token is a run of alphanumeric characters, lowercased with full Unicode case
//! folding (`char::to_lowercase`); ASCII words longer than three letters lose a plural ending
//! (Harman's S-stemmer: `taxonomies` → `taxonomy`, `shortcodes` → `shortcode`). Runs of Han,
//! Hiragana, Katakana or Hangul characters, which have no spaces between words, become
//! overlapping character bigrams (a lone character stays a unigram), so CJK text is findable by
//! any two-character substring. A few English stop words are not indexed.
//!
//! # Stored layout (little-endian, in the catalog's blob area, read in place)
//! ```text
//! magic "FSI2" | n_docs u32 | n_terms u32 | avg field length f32 × 5
//! docs:     n_docs × (entry u32, field length u32 × 5)
//! terms:    (n_terms + 1) × (string offset u32, postings offset u32, df u32); the last row is a
//!           sentinel holding the end offsets; rows sorted by term bytes
//! strings:  the terms' UTF-8 bytes, concatenated
//! postings: per term, df × posting, where a posting is one varint `delta << 3 | tf` when the
//!           term is in the body alone with a frequency of 1 to 7 (most postings), else
//!           the varint `delta << 3`, the field mask u8 and a tf varint per set field
//! ```
//! Doc deltas and varints keep the index small, and folding the common posting into one byte
//! halves the postings (they are most of the index, which an open catalog holds in memory);
//! fixed-width rows let a lookup binary-search the terms without decoding anything at open.
//!
//! # Who owns what
//! This module holds what both sides read: the model, the layout and its constants, the
//! tokenizer (`token`), the load-time check of the tables (`check`) and the scorer. Building the
//! index (indexers, term dictionaries, postings) is the compiler's: `crate::compile::index`. This
//! module must not grow build-time code: the server links it to answer queries.
//!
//! Performs no IO.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use bytes::Bytes;

use super::verdict::Verdict;

// The load-time check of the index tables (`SearchIndex::check`).
mod check;
mod token;

pub use token::is_cjk;
#[cfg(test)]
pub(crate) use token::tokenize_body;
pub use token::{QueryWord, query_terms, query_words, tokenize, tokenize_until, word_terms};
pub(crate) use token::{for_each_span, is_connector};

/// The search index stored in the catalog.
///
/// Its bytes live in `data`, an area the codec stores after the entry bodies, so opening a
/// catalog neither decodes nor copies them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchIndex {
    /// blake3 of `data`, lowercase hex (empty for an index of no bytes): stored in the
    /// metadata, which the catalog hash covers, so the index is checked on first use.
    pub blake3: String,
    /// The encoded index (layout in the module docs); stored in the catalog's blob area.
    #[serde(skip)]
    pub data: Bytes,
    /// Whether `data` hashes to `blake3` and its tables fit (`check`), decided on first use.
    #[serde(skip)]
    pub verdict: Verdict,
}

/// Number of indexed fields.
pub const FIELDS: usize = 5;
/// The headings field's index.
const HEADINGS: usize = 3;
/// BM25F weight of each field: a match in a title counts like many in the body. Tuned on the
/// labeled Hugo query set (`tests/search/hugo-queries.json`) together with `K1`: with weights
/// this large, a `K1` near 1 saturates a single title hit as much as a few body hits, so the title
/// stops mattering; `K1 = 5` keeps them apart. Headings went from 4 to 8 on the multilingual
/// Astro set (`tests/fixtures/search-eval`): reference pages name their API in headings
/// (overall MRR@10 +0.003 there, +0.016 on Hugo; 6 and 10 did no better, 12 worse).
pub const FIELD_WEIGHTS: [f32; FIELDS] = [15.0, 4.0, 6.0, 8.0, 1.0];
/// The field weights of a document, by its entry (see [`SearchIndex::score_with`]).
pub type Weights<'w> = dyn Fn(u32) -> &'w [f32; FIELDS] + 'w;
/// BM25F length normalisation of each field (0: none, 1: full). The body's went from 0.75 to
/// 0.5 on the Astro set: short pages (a translated error page naming an API) outranked the long
/// reference page that defines it (MRR@10 +0.009, API-name recall@5 0.870 -> 0.935; 0.3 lost
/// on Hugo, 0.6 and 0.9 lost on both).
const FIELD_B: [f32; FIELDS] = [0.5, 0.5, 0.3, 0.6, 0.5];
/// BM25 term-frequency saturation.
const K1: f32 = 5.0;
/// Terms longer than this (in bytes) are not indexed: they are hashes, base64 or noise.
pub(crate) const MAX_TERM_BYTES: usize = 48;
pub(crate) const MAGIC: &[u8; 4] = b"FSI2";
pub(crate) const HEADER: usize = 4 + 4 + 4 + 4 * FIELDS;
pub(crate) const DOC_ROW: usize = 4 + 4 * FIELDS;
pub(crate) const TERM_ROW: usize = 12;

/// Bits of a posting's first varint below the document delta (see the module docs).
pub(crate) const INLINE_TF_BITS: u32 = 3;
/// Largest body-only term frequency stored in a posting's first varint.
pub(crate) const INLINE_TF_MAX: u32 = (1 << INLINE_TF_BITS) - 1;
/// Field mask of a body-only posting.
pub(crate) const BODY_ONLY: u8 = 1 << (FIELDS - 1);

/// The text of a markdown file without its leading frontmatter block (the compiler's fence:
/// [`super::fence`]).
pub fn strip_frontmatter(text: &str) -> &str {
    super::fence::body(text)
}

/// The body text of a markdown file as search reads it: [`written_body_of`], and for MDX
/// (`.mdx`) with its JSX flow lines blanked but for their quoted attribute values
/// ([`super::mdx::JsxFlow::search_blanks`]). It has the length of the written body, so offsets
/// in it are offsets from `text.len() - body.len()`.
pub fn body_of<'t>(path: &str, text: &'t str) -> Cow<'t, str> {
    let body = written_body_of(path, text);
    if !super::mdx::is_mdx(path) {
        return Cow::Borrowed(body);
    }
    super::mdx::jsx_flow(body).search_blanks(body).apply(body).map_or(Cow::Borrowed(body), Cow::Owned)
}

/// The body of a markdown file as written, where search reads it: without its frontmatter and,
/// for MDX, without the `import`/`export` statements at its top (module code, not prose). A
/// suffix of `text`.
pub fn written_body_of<'t>(path: &str, text: &'t str) -> &'t str {
    let body = strip_frontmatter(text);
    if super::mdx::is_mdx(path) { super::mdx::skip_esm(body) } else { body }
}

/// Reads a posting's first varint as `(delta, inline tf)`; `None` when the bytes end inside it
/// or it is longer than [`put_posting_head`] writes (malformed index bytes).
pub(crate) fn get_posting_head(bytes: &[u8], at: &mut usize) -> Option<(u64, u32)> {
    let v = get_checked_varint(bytes, at)?;
    Some((v >> INLINE_TF_BITS, (v & u64::from(INLINE_TF_MAX)) as u32))
}

/// Reads a varint of up to 64 bits from stored bytes; `None` when the bytes end inside it or it
/// is longer than [`put_varint`] writes.
fn get_checked_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// Reads a varint written by [`put_varint`] from bytes this module wrote itself.
pub(crate) fn get_varint(bytes: &[u8], at: &mut usize) -> u32 {
    let mut v = 0u32;
    let mut shift = 0;
    while let Some(&b) = bytes.get(*at) {
        *at += 1;
        v |= u32::from(b & 0x7f) << shift;
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    v
}

/// One scored document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// Index into `Catalog::entries`.
    pub entry: u32,
    /// BM25F score (higher is better), times the share of the query's words matched.
    pub score: f32,
    /// How many of the query's words matched (wholly or by a part).
    pub matched: u32,
    /// True when every query word is in the document's headings (wholly or by a part): only
    /// then can one of its headings name the query.
    pub headed: bool,
}

/// A validated, in-place view of the index bytes.
struct View<'a> {
    n_docs: usize,
    n_terms: usize,
    avg: [f32; FIELDS],
    docs: &'a [u8],
    table: &'a [u8],
    strings: &'a [u8],
    postings: &'a [u8],
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).map_or(0, |b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
}

impl<'a> View<'a> {
    /// Checks the header and section bounds; `None` for an empty or malformed index (which
    /// then matches nothing rather than panicking).
    fn new(data: &'a [u8]) -> Option<View<'a>> {
        if data.len() < HEADER || &data[..4] != MAGIC {
            return None;
        }
        let n_docs = u32_at(data, 4) as usize;
        let n_terms = u32_at(data, 8) as usize;
        let mut avg = [0f32; FIELDS];
        for (f, a) in avg.iter_mut().enumerate() {
            *a = f32::from_bits(u32_at(data, 12 + 4 * f)).max(1.0);
        }
        let docs_end = HEADER.checked_add(n_docs.checked_mul(DOC_ROW)?)?;
        let table_end = docs_end.checked_add((n_terms + 1).checked_mul(TERM_ROW)?)?;
        let table = data.get(docs_end..table_end)?;
        let strings_len = u32_at(table, n_terms * TERM_ROW) as usize;
        let strings_end = table_end.checked_add(strings_len)?;
        let postings_len = u32_at(table, n_terms * TERM_ROW + 4) as usize;
        let postings = data.get(strings_end..strings_end.checked_add(postings_len)?)?;
        Some(View {
            n_docs,
            n_terms,
            avg,
            docs: data.get(HEADER..docs_end)?,
            table,
            strings: data.get(table_end..strings_end)?,
            postings,
        })
    }

    fn term(&self, i: usize) -> &'a [u8] {
        let start = u32_at(self.table, i * TERM_ROW) as usize;
        let end = u32_at(self.table, (i + 1) * TERM_ROW) as usize;
        self.strings.get(start..end).unwrap_or(&[])
    }

    /// Index of the first term `>= key`.
    fn lower_bound(&self, key: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.n_terms);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.term(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn find(&self, term: &str) -> Option<usize> {
        let i = self.lower_bound(term.as_bytes());
        (i < self.n_terms && self.term(i) == term.as_bytes()).then_some(i)
    }

    /// Calls `f(ordinal, tfs)` for every posting of term `i`.
    fn postings(&self, i: usize, f: impl FnMut(usize, &[u32; FIELDS])) {
        let start = u32_at(self.table, i * TERM_ROW + 4) as usize;
        let end = u32_at(self.table, (i + 1) * TERM_ROW + 4) as usize;
        if let Some(bytes) = self.postings.get(start..end) {
            decode_postings(bytes, self.n_docs, f);
        }
    }

    fn df(&self, i: usize) -> u32 {
        u32_at(self.table, i * TERM_ROW + 8)
    }

    fn doc_entry(&self, ordinal: usize) -> u32 {
        u32_at(self.docs, ordinal * DOC_ROW)
    }

    fn doc_len(&self, ordinal: usize, field: usize) -> f32 {
        u32_at(self.docs, ordinal * DOC_ROW + 4 + 4 * field) as f32
    }
}

/// Calls `f(ordinal, tfs)` for each posting of one term's list (the layout in the module docs),
/// stopping at the first malformed byte or ordinal of `n_docs` or more: a corrupted index loses
/// matches, it never panics.
pub(crate) fn decode_postings(bytes: &[u8], n_docs: usize, mut f: impl FnMut(usize, &[u32; FIELDS])) {
    let varint = |at: &mut usize| get_checked_varint(bytes, at).and_then(|v| u32::try_from(v).ok());
    let mut at = 0;
    let mut ordinal = 0usize;
    while at < bytes.len() {
        let Some((delta, inline_tf)) = get_posting_head(bytes, &mut at) else { return };
        let Some(next) = usize::try_from(delta).ok().and_then(|d| ordinal.checked_add(d)) else { return };
        ordinal = next;
        let mut tfs = [0u32; FIELDS];
        if inline_tf != 0 {
            tfs[FIELDS - 1] = inline_tf;
        } else {
            let Some(&mask) = bytes.get(at) else { return };
            at += 1;
            for (field, tf) in tfs.iter_mut().enumerate() {
                if mask & (1 << field) != 0 {
                    let Some(v) = varint(&mut at) else { return };
                    *tf = v;
                }
            }
        }
        if ordinal >= n_docs {
            return;
        }
        f(ordinal, &tfs);
    }
}

/// Most index terms one query term may expand to (by prefix, or as a typo).
const MAX_EXPANSIONS: usize = 16;
/// Weight of a match by an identifier's part (`static` in `getStaticPaths`) instead of its whole
/// form: the page that names the identifier ranks above pages that use its words.
const PART_WEIGHT: f32 = 0.3;
/// Weight of a match by an indexed term the query term is a prefix of.
const PREFIX_WEIGHT: f32 = 0.5;
/// Weight of a match by an indexed term a typo away.
const TYPO_WEIGHT: f32 = 0.4;
/// Shortest query term (in characters) looked up as a typo when nothing else matches it.
const TYPO_MIN_CHARS: usize = 5;

impl View<'_> {
    /// The indexed terms `term` matches, with their weights: itself; else (with `expand`) up to
    /// [`MAX_EXPANSIONS`] terms it is a prefix of (3+ characters); else (5+ characters) those
    /// a typo away that share its first character, closest first.
    fn expansions(&self, term: &str, expand: bool) -> Vec<(usize, f32)> {
        if let Some(i) = self.find(term) {
            return vec![(i, 1.0)];
        }
        let chars = term.chars().count();
        if !expand || chars < 3 {
            return Vec::new();
        }
        let first = self.lower_bound(term.as_bytes());
        let prefixed: Vec<(usize, f32)> = (first..self.n_terms)
            .take_while(|&i| self.term(i).starts_with(term.as_bytes()))
            .take(MAX_EXPANSIONS)
            .map(|i| (i, PREFIX_WEIGHT))
            .collect();
        if !prefixed.is_empty() || chars < TYPO_MIN_CHARS {
            return prefixed;
        }
        let lead = &term[..term.chars().next().map_or(0, char::len_utf8)];
        let limit = crate::suggest::typo_limit(term);
        let mut close: Vec<(usize, usize)> = (self.lower_bound(lead.as_bytes())..self.n_terms)
            .map_while(|i| Some((i, std::str::from_utf8(self.term(i)).ok()?)))
            .take_while(|(_, t)| t.starts_with(lead))
            .filter_map(|(i, t)| Some((crate::suggest::distance(term, t, limit)?, i)))
            .collect();
        close.sort_unstable();
        close.into_iter().take(MAX_EXPANSIONS).map(|(_, i)| (i, TYPO_WEIGHT)).collect()
    }

    /// Each document's best BM25F score for `term` over its [`View::expansions`], by ordinal,
    /// and whether that match is in its headings.
    fn term_scores(&self, term: &str, expand: bool, weights: &Weights<'_>) -> Vec<(usize, f32, bool)> {
        let expansions = self.expansions(term, expand);
        let n = self.n_docs as f32;
        // One expansion (the usual case) yields each document once, in order: no sort.
        let single = expansions.len() == 1;
        let mut best: Vec<(usize, f32, bool)> = Vec::new();
        for (i, weight) in expansions {
            let df = self.df(i) as f32;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            self.postings(i, |ordinal, tfs| {
                let field_weights = weights(self.doc_entry(ordinal));
                let mut tf = 0f32;
                for f in 0..FIELDS {
                    if tfs[f] > 0 {
                        let norm = 1.0 - FIELD_B[f] + FIELD_B[f] * self.doc_len(ordinal, f) / self.avg[f];
                        tf += field_weights[f] * tfs[f] as f32 / norm;
                    }
                }
                best.push((ordinal, weight * idf * tf / (K1 + tf), tfs[HEADINGS] > 0));
            });
        }
        if !single {
            best.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
            best.dedup_by_key(|b| b.0);
        }
        best
    }

    /// Each document's score and coordination credit for one query word, by ordinal: the whole
    /// form's score plus [`PART_WEIGHT`] times its parts'; credit 1 for the whole form, else the
    /// share of the parts matched; and whether the whole form or a part is in its headings.
    fn word_scores(&self, word: &QueryWord, weights: &Weights<'_>) -> Vec<(usize, f32, f32, bool)> {
        let whole = self.term_scores(&word.term, true, weights);
        if word.parts.is_empty() {
            return whole.into_iter().map(|(ordinal, s, headed)| (ordinal, s, 1.0, headed)).collect();
        }
        // (ordinal, which: 0 for the whole form, else the part's number, score, in headings)
        let mut all: Vec<(usize, usize, f32, bool)> =
            whole.into_iter().map(|(o, s, h)| (o, 0, s, h)).collect();
        for (k, part) in word.parts.iter().enumerate() {
            all.extend(self.term_scores(part, false, weights).into_iter().map(|(o, s, h)| (o, k + 1, s, h)));
        }
        all.sort_by_key(|a| (a.0, a.1));
        let share = 1.0 / word.parts.len() as f32;
        let mut out: Vec<(usize, f32, f32, bool)> = Vec::new();
        for (ordinal, which, s, headed) in all {
            if out.last().is_none_or(|last| last.0 != ordinal) {
                out.push((ordinal, 0.0, 0.0, false));
            }
            let last = out.last_mut().expect("pushed");
            last.3 |= headed;
            if which == 0 {
                last.1 += s;
                last.2 = 1.0;
            } else {
                last.1 += PART_WEIGHT * s;
                if last.2 < 1.0 {
                    last.2 = (last.2 + share).min(1.0);
                }
            }
        }
        out
    }
}

impl SearchIndex {
    /// The index stored as `data`, with its hash.
    pub fn new(data: Bytes) -> SearchIndex {
        let blake3 = if data.is_empty() { String::new() } else { blake3::hash(&data).to_hex().to_string() };
        SearchIndex { blake3, data, verdict: Verdict::default() }
    }

    /// Checks, the first time, that the index's bytes hash to its recorded `blake3` and that
    /// its tables fit a catalog of `n_entries` entries ([`SearchIndex::check`]); later calls
    /// return the remembered verdict. The query layer asks before every use: an index that
    /// fails is never searched. `Err` says what is wrong (a fragment naming the index).
    pub fn verify(&self, n_entries: usize) -> Result<(), String> {
        self.verdict.get_or_check(|| {
            if !(self.data.is_empty() && self.blake3.is_empty()) {
                super::verdict::blake3_matches(&self.data, &self.blake3, "the search index's bytes")?;
            }
            self.check(n_entries).map_err(|why| format!("the search index {why}"))
        })
    }

    /// Number of indexed documents.
    pub fn len(&self) -> usize {
        View::new(&self.data).map_or(0, |v| v.n_docs)
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Scores every document matching at least one of `words` (from [`query_words`]), unordered.
    ///
    /// A word absent from the index is expanded to up to 16 indexed terms it is a prefix of (at
    /// half weight), so partially typed words still match, and a word of 5+ characters that
    /// matches nothing that way to the terms a typo away. An identifier's parts match too, at
    /// 0.3 of the weight. The BM25F sum is multiplied by the share of the query's words the
    /// document matches (coordination; a word matched only by some of its parts counts that
    /// share of them).
    pub fn score(&self, words: &[QueryWord]) -> Vec<Scored> {
        self.score_with(words, &|_| &FIELD_WEIGHTS)
    }

    /// [`SearchIndex::score`] with each document's field weights chosen by its entry (an index
    /// into `Catalog::entries`): the query layer weighs a skill's description above a page's.
    pub fn score_with(&self, words: &[QueryWord], weights: &Weights<'_>) -> Vec<Scored> {
        let Some(view) = View::new(&self.data) else { return Vec::new() };
        let mut scores = vec![0f32; view.n_docs];
        let mut credit = vec![0f32; view.n_docs];
        let mut matched = vec![0u32; view.n_docs];
        let mut headed = vec![0u32; view.n_docs];
        let mut touched: Vec<usize> = Vec::new();
        for word in words {
            for (ordinal, s, c, h) in view.word_scores(word, weights) {
                if matched[ordinal] == 0 {
                    touched.push(ordinal);
                }
                scores[ordinal] += s;
                credit[ordinal] += c;
                matched[ordinal] += 1;
                headed[ordinal] += u32::from(h);
            }
        }
        let n_words = words.len().max(1) as f32;
        touched
            .into_iter()
            .map(|ordinal| Scored {
                entry: view.doc_entry(ordinal),
                score: scores[ordinal] * credit[ordinal] / n_words,
                matched: matched[ordinal],
                headed: headed[ordinal] as usize == words.len(),
            })
            .collect()
    }

    /// Indexed terms starting with `prefix`, in byte order, at most `max`.
    pub fn terms_with_prefix(&self, prefix: &str, max: usize) -> Vec<String> {
        let Some(view) = View::new(&self.data) else { return Vec::new() };
        let first = view.lower_bound(prefix.as_bytes());
        (first..view.n_terms)
            .map(|i| view.term(i))
            .take_while(|t| t.starts_with(prefix.as_bytes()))
            .take(max)
            .map(|t| String::from_utf8_lossy(t).into_owned())
            .collect()
    }
}

#[cfg(test)]
mod tests;
