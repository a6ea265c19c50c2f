//! The full-text index: built at compile time from the catalog's docs and skills and stored in
//! it, queried at run time (DESIGN §8).
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
//! magic "FSI1" | n_docs u32 | n_terms u32 | avg field length f32 × 5
//! docs:     n_docs × (entry u32, field length u32 × 5)
//! terms:    (n_terms + 1) × (string offset u32, postings offset u32, df u32); the last row is a
//!           sentinel holding the end offsets; rows sorted by term bytes
//! strings:  the terms' UTF-8 bytes, concatenated
//! postings: per term, df × (doc delta varint, field mask u8, tf varint per set field)
//! ```
//! Doc deltas and varints keep the index small; fixed-width rows let a lookup binary-search
//! the terms without decoding anything at open.
//!
//! Performs no IO; mounted by `build.rs`.

use serde::{Deserialize, Serialize};

use super::codec::Body;
use super::{Doc, Entry, Section, Skill};

/// The search index stored in the catalog.
///
/// Its bytes live in `data`, an area the codec stores after the entry bodies, so opening a
/// catalog neither decodes nor copies them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SearchIndex {
    /// The encoded index (layout in the module docs); stored in the catalog's blob area.
    #[serde(skip)]
    pub data: Body,
}

/// Number of indexed fields.
pub const FIELDS: usize = 5;
/// Field names, in index order.
pub const FIELD_NAMES: [&str; FIELDS] = ["title", "description", "keywords", "headings", "body"];
/// BM25F weight of each field: a match in a title counts like many in the body. Tuned on the
/// labeled Hugo query set (`tests/search/hugo-queries.json`) together with `K1`: with weights
/// this large, a `K1` near 1 saturates a single title hit as much as a few body hits, so the title
/// stops mattering; `K1 = 5` keeps them apart.
pub const FIELD_WEIGHTS: [f32; FIELDS] = [15.0, 4.0, 6.0, 4.0, 1.0];
/// BM25F length normalisation of each field (0: none, 1: full).
const FIELD_B: [f32; FIELDS] = [0.5, 0.5, 0.3, 0.6, 0.75];
/// BM25 term-frequency saturation.
const K1: f32 = 5.0;
/// Terms longer than this (in bytes) are not indexed: they are hashes, base64 or noise.
const MAX_TERM_BYTES: usize = 48;
const MAGIC: &[u8; 4] = b"FSI1";
const HEADER: usize = 4 + 4 + 4 + 4 * FIELDS;
const DOC_ROW: usize = 4 + 4 * FIELDS;
const TERM_ROW: usize = 12;

/// English words too common to help ranking.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how", "i", "if",
    "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when", "where",
    "which", "with", "you", "your",
];

/// Length in bytes of the longest stop word (`where`, `which`); checked by a unit test.
const MAX_STOP_WORD_BYTES: usize = 5;

/// A word of at most 7 bytes packed into an integer (bytes, then the length), so the stop-word
/// test is integer compares rather than a string compare per stop word (which, run for every
/// short token of every document, was the top symbol of the compile profile).
const fn pack_short(word: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < word.len() {
        key = (key << 8) | word[i] as u64;
        i += 1;
    }
    (key << 8) | word.len() as u64
}

/// [`STOP_WORDS`] packed with [`pack_short`].
const STOP_KEYS: [u64; STOP_WORDS.len()] = {
    let mut keys = [0u64; STOP_WORDS.len()];
    let mut i = 0;
    while i < STOP_WORDS.len() {
        keys[i] = pack_short(STOP_WORDS[i].as_bytes());
        i += 1;
    }
    keys
};

/// True for a (lowercased) stop word.
fn is_stop_word(term: &str) -> bool {
    term.len() <= MAX_STOP_WORD_BYTES && STOP_KEYS.contains(&pack_short(term.as_bytes()))
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x1100..=0x11FF    // Hangul jamo
        | 0x3130..=0x318F    // Hangul compatibility jamo
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x2FA1F  // CJK extensions B–F, compatibility supplement
    )
}

/// A plural-only stemmer for ASCII words longer than three letters, after Harman's S-stemmer:
/// `-ies` → `-y`; `-xes`, `-shes`, `-sses`, `-zzes` and `-ches` after a consonant lose `-es`;
/// other `-es` and `-s` lose the `s` (`-ss` stays). Queries are stemmed the same way, so a
/// conflation it makes (`status` → `statu`) is harmless.
fn stem(word: &mut String) {
    if word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return;
    }
    let consonant_ches = word.ends_with("ches")
        && word.len() > 4
        && !matches!(word.as_bytes()[word.len() - 5], b'a' | b'e' | b'i' | b'o' | b'u');
    if word.ends_with("ies") && !word.ends_with("eies") && !word.ends_with("aies") {
        word.truncate(word.len() - 3);
        word.push('y');
    } else if consonant_ches || ["xes", "shes", "sses", "zzes"].iter().any(|e| word.ends_with(e)) {
        word.truncate(word.len() - 2);
    } else if word.ends_with('s') && !word.ends_with("ss") {
        word.truncate(word.len() - 1);
    }
}

/// Splits text into normalised tokens, calling `f(start, end, term)` with the byte range of
/// each token in `text`. Stop words are skipped unless `keep_stop_words`.
pub fn tokenize(text: &str, keep_stop_words: bool, mut f: impl FnMut(usize, usize, &str)) {
    tokenize_until(text, keep_stop_words, |start, end, term| {
        f(start, end, term);
        true
    });
}

/// Like [`tokenize`], but stops as soon as `f` returns `false` (snippets stop at the first window
/// that holds every query term instead of tokenizing a whole long document).
pub fn tokenize_until(text: &str, keep_stop_words: bool, mut f: impl FnMut(usize, usize, &str) -> bool) {
    // One buffer for every token: case folding writes into it, so tokenizing allocates nothing
    // per token (this runs over every byte of every document at compile time).
    let mut term = String::new();
    let bytes = text.as_bytes();
    let mut pos = 0;
    while pos < bytes.len() {
        let b = bytes[pos];
        if b < 0x80 {
            if !b.is_ascii_alphanumeric() {
                pos += 1;
                continue;
            }
            // Fast path for the common case, a word of ASCII letters and digits ended by ASCII
            // (or the end): the same token the general path below yields, without decoding chars.
            let mut end = pos + 1;
            while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
                end += 1;
            }
            if end == bytes.len() || bytes[end] < 0x80 {
                term.clear();
                term.push_str(&text[pos..end]);
                term.make_ascii_lowercase();
                let start = pos;
                pos = end;
                if !emit_word(&mut term, start, end, keep_stop_words, &mut f) {
                    return;
                }
                continue;
            }
        }
        // General path: `pos` is on a char boundary (only whole chars are consumed above).
        let base = pos;
        let mut chars = text[base..].char_indices().map(|(i, c)| (base + i, c)).peekable();
        let Some((start, c)) = chars.next() else { return };
        pos = start + c.len_utf8();
        if !c.is_alphanumeric() {
            continue;
        }
        if is_cjk(c) {
            // A CJK run: overlapping bigrams, or the lone character.
            let mut prev = (start, c);
            let mut lone = true;
            while let Some(&(i, next)) = chars.peek() {
                if !is_cjk(next) || !next.is_alphanumeric() {
                    break;
                }
                chars.next();
                pos = i + next.len_utf8();
                term.clear();
                term.push(prev.1);
                term.push(next);
                if !f(prev.0, i + next.len_utf8(), &term) {
                    return;
                }
                prev = (i, next);
                lone = false;
            }
            if lone {
                term.clear();
                term.push(c);
                if !f(start, start + c.len_utf8(), &term) {
                    return;
                }
            }
            continue;
        }
        term.clear();
        term.extend(c.to_lowercase());
        let mut end = start + c.len_utf8();
        while let Some(&(i, next)) = chars.peek() {
            if !next.is_alphanumeric() || is_cjk(next) {
                break;
            }
            chars.next();
            term.extend(next.to_lowercase());
            end = i + next.len_utf8();
        }
        pos = end;
        if !emit_word(&mut term, start, end, keep_stop_words, &mut f) {
            return;
        }
    }
}

/// Filters (length, stop words), stems and emits one lowercased non-CJK word; `false` when `f`
/// asked to stop.
fn emit_word(
    term: &mut String,
    start: usize,
    end: usize,
    keep_stop_words: bool,
    f: &mut impl FnMut(usize, usize, &str) -> bool,
) -> bool {
    if term.len() > MAX_TERM_BYTES {
        return true;
    }
    // The length test first: most terms are longer than any stop word, and scanning the list
    // for every token of every document was a visible share of the compile (bench).
    if !keep_stop_words && is_stop_word(term) {
        return true;
    }
    stem(term);
    f(start, end, term)
}

/// The distinct terms of a query, in first-occurrence order. Stop words are dropped unless the
/// query has nothing else.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    tokenize(query, false, |_, _, t| {
        if !terms.iter().any(|x| x == t) {
            terms.push(t.to_owned());
        }
    });
    if terms.is_empty() {
        tokenize(query, true, |_, _, t| {
            if !terms.iter().any(|x| x == t) {
                terms.push(t.to_owned());
            }
        });
    }
    terms
}

/// The text of a markdown file without its leading frontmatter block.
pub fn strip_frontmatter(text: &str) -> &str {
    let rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(after) = rest.strip_prefix("---\n").or_else(|| rest.strip_prefix("---\r\n")) else {
        return text;
    };
    let mut at = 0;
    for line in after.split_inclusive('\n') {
        at += line.len();
        if line.trim_end() == "---" || line.trim_end() == "..." {
            return &after[at..];
        }
    }
    text
}

/// The fields of one indexed document.
struct Fields<'a> {
    entry: u32,
    parts: [Vec<&'a str>; FIELDS],
    owned: Vec<String>,
}

fn heading_titles(outline: &[Section]) -> Vec<&str> {
    outline.iter().map(|s| s.title.as_str()).collect()
}

fn string_values(value: Option<&serde_json::Value>) -> Vec<String> {
    match value {
        Some(serde_json::Value::String(s)) => vec![s.clone()],
        Some(serde_json::Value::Array(items)) => {
            items.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
        }
        _ => Vec::new(),
    }
}

fn collect_fields<'a>(entries: &'a [Entry], docs: &'a [Doc], skills: &'a [Skill]) -> Vec<Fields<'a>> {
    let mut out = Vec::new();
    let body_of = |idx: u32| entries.get(idx as usize).and_then(|e| e.text()).map(strip_frontmatter);
    for doc in docs {
        let Some(body) = body_of(doc.entry) else { continue };
        let mut owned: Vec<String> = Vec::new();
        for key in ["keywords", "linkTitle", "link_title"] {
            owned.extend(string_values(doc.extra.get(key)));
        }
        owned.push(doc.path.rsplit_once('.').map_or(doc.path.as_str(), |(stem, _)| stem).to_owned());
        let mut keywords: Vec<&str> = doc.tags.iter().map(String::as_str).collect();
        keywords.extend(doc.category.as_deref());
        out.push(Fields {
            entry: doc.entry,
            parts: [
                vec![&doc.title],
                vec![&doc.description],
                keywords,
                heading_titles(&doc.outline),
                vec![body],
            ],
            owned,
        });
    }
    for skill in skills {
        if let Some(body) = body_of(skill.document) {
            let mut keywords: Vec<&str> = vec![&skill.name];
            keywords.extend(skill.tags.iter().map(String::as_str));
            keywords.extend(skill.capabilities.iter().map(String::as_str));
            out.push(Fields {
                entry: skill.document,
                parts: [
                    vec![&skill.title],
                    vec![&skill.description],
                    keywords,
                    heading_titles(&skill.outline),
                    vec![body],
                ],
                owned: vec![skill.path.clone()],
            });
        }
        for file in &skill.files {
            let Some(body) = entries.get(file.entry as usize).and_then(|e| e.text()) else { continue };
            let title = file.title.as_deref().unwrap_or(&file.rel_path);
            out.push(Fields {
                entry: file.entry,
                parts: [
                    vec![title],
                    file.description.iter().map(String::as_str).collect(),
                    vec![&skill.name],
                    Vec::new(),
                    vec![body],
                ],
                owned: vec![file.rel_path.clone()],
            });
        }
    }
    // Index order is entry order, so postings (sorted by doc ordinal) are also in URI order.
    out.sort_by_key(|f| f.entry);
    out
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A fast, deterministic hash for interning terms while building (FxHash's mixing step).
/// SipHash, std's default, was a visible share of the compile; the map is never iterated into
/// the output, so the hash function cannot change the index bytes.
#[derive(Default)]
struct TermHasher(u64);

impl std::hash::Hasher for TermHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(tail) ^ rest.len() as u64).wrapping_mul(K);
    }

    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        // A product's low bits depend only on its inputs' low bits; the table picks buckets by
        // the low bits, so rotate the well-mixed middle bits down (as rustc-hash 2 does).
        self.0.rotate_left(26)
    }
}

/// One (doc ordinal, field, term frequency) posting.
type Posting = (u32, u8, u32);

/// The postings of a contiguous run of documents, indexed by one thread.
struct Partial {
    /// Term id → term.
    terms: Vec<Box<str>>,
    /// Term ids sorted by term bytes.
    order: Vec<u32>,
    /// Per term id: postings in (doc ordinal, field) order.
    postings: Vec<Vec<Posting>>,
    /// Per document of the run: token count of each field.
    lengths: Vec<[u32; FIELDS]>,
}

/// Tokenizes `fields` (documents `first..first + fields.len()` of the index) into postings.
fn index_part(fields: &[Fields<'_>], first: u32) -> Partial {
    // Term → id while indexing; ids are sorted by term bytes below, so the map's iteration
    // order never reaches the output.
    #[expect(
        clippy::disallowed_types,
        reason = "interning only: terms are built in a HashMap and emitted sorted, so output order is deterministic"
    )]
    let mut ids: std::collections::HashMap<Box<str>, u32, std::hash::BuildHasherDefault<TermHasher>> =
        std::collections::HashMap::default();
    let mut terms: Vec<Box<str>> = Vec::new();
    let mut postings: Vec<Vec<Posting>> = Vec::new();
    let mut lengths: Vec<[u32; FIELDS]> = Vec::with_capacity(fields.len());
    let mut counts: Vec<u32> = Vec::new();
    for (offset, doc) in fields.iter().enumerate() {
        let ordinal = first + offset as u32;
        let mut len = [0u32; FIELDS];
        for (field, field_len) in len.iter_mut().enumerate() {
            counts.clear();
            let owned = if field == 2 { &doc.owned[..] } else { &[] };
            for text in doc.parts[field].iter().copied().chain(owned.iter().map(String::as_str)) {
                tokenize(text, false, |_, _, term| {
                    *field_len += 1;
                    let id = match ids.get(term) {
                        Some(&id) => id,
                        None => {
                            let id = terms.len() as u32;
                            let key: Box<str> = term.into();
                            terms.push(key.clone());
                            ids.insert(key, id);
                            postings.push(Vec::new());
                            id
                        }
                    };
                    counts.push(id);
                });
            }
            counts.sort_unstable();
            let mut i = 0;
            while i < counts.len() {
                let id = counts[i];
                let run = counts[i..].iter().take_while(|&&x| x == id).count();
                postings[id as usize].push((ordinal, field as u8, run as u32));
                i += run;
            }
        }
        lengths.push(len);
    }
    let mut order: Vec<u32> = (0..terms.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| terms[a as usize].as_bytes().cmp(terms[b as usize].as_bytes()));
    Partial { terms, order, postings, lengths }
}

/// Appends one term's postings (`lists` in doc order, each in (ordinal, field) order, no
/// document split across two lists) in the stored format; returns the document frequency.
fn encode_postings(lists: &[&[Posting]], out: &mut Vec<u8>) -> u32 {
    let mut df = 0u32;
    let mut prev = 0u32;
    for list in lists {
        let mut i = 0;
        while i < list.len() {
            let ordinal = list[i].0;
            let mut mask = 0u8;
            let mut tfs = [0u32; FIELDS];
            while i < list.len() && list[i].0 == ordinal {
                mask |= 1 << list[i].1;
                tfs[list[i].1 as usize] = list[i].2;
                i += 1;
            }
            put_varint(out, ordinal - prev);
            prev = ordinal;
            out.push(mask);
            for (f, tf) in tfs.iter().enumerate() {
                if mask & (1 << f) != 0 {
                    put_varint(out, *tf);
                }
            }
            df += 1;
        }
    }
    df
}

/// Below this many documents the index is built on one thread (spawning costs more).
const PARALLEL_MIN_DOCS: usize = 256;

/// Builds the index over every doc and skill. Deterministic: the output depends only on the
/// inputs' content and order (terms are sorted before they are written).
///
/// Tokenizing is split over two threads, each indexing a contiguous half of the documents; the
/// halves' sorted term lists are merged, and a term's postings are the first half's followed by
/// the second's, so the bytes are the same as a single pass in document order.
pub fn build(entries: &[Entry], docs: &[Doc], skills: &[Skill]) -> SearchIndex {
    let fields = collect_fields(entries, docs, skills);
    let n_docs = fields.len();
    let parallel = n_docs >= PARALLEL_MIN_DOCS
        && std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get) > 1;
    let parts: Vec<Partial> = if parallel {
        let (head, tail) = fields.split_at(n_docs / 2);
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| index_part(tail, head.len() as u32));
            let first = index_part(head, 0);
            // A panic in the worker is a bug in this module; re-raise it on this thread.
            let second = worker.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
            vec![first, second]
        })
    } else {
        vec![index_part(&fields, 0)]
    };

    let mut avg = [0f32; FIELDS];
    for len in parts.iter().flat_map(|p| &p.lengths) {
        for f in 0..FIELDS {
            avg[f] += len[f] as f32;
        }
    }
    for a in &mut avg {
        *a = if n_docs == 0 { 1.0 } else { (*a / n_docs as f32).max(1.0) };
    }

    // Merge the parts' sorted term lists; equal terms are joined, postings in part order.
    let mut strings = Vec::new();
    let mut posting_bytes = Vec::new();
    let mut table = Vec::new();
    let mut n_terms = 0u32;
    let mut cursors = vec![0usize; parts.len()];
    let mut lists: Vec<&[Posting]> = Vec::with_capacity(parts.len());
    loop {
        let next = parts
            .iter()
            .zip(&cursors)
            .filter_map(|(p, &c)| p.order.get(c).map(|&id| &*p.terms[id as usize]))
            .min();
        let Some(term) = next else { break };
        lists.clear();
        for (p, c) in parts.iter().zip(&mut cursors) {
            if let Some(&id) = p.order.get(*c)
                && *p.terms[id as usize] == *term
            {
                lists.push(&p.postings[id as usize]);
                *c += 1;
            }
        }
        put_u32(&mut table, strings.len() as u32);
        put_u32(&mut table, posting_bytes.len() as u32);
        strings.extend_from_slice(term.as_bytes());
        let df = encode_postings(&lists, &mut posting_bytes);
        put_u32(&mut table, df);
        n_terms += 1;
    }
    put_u32(&mut table, strings.len() as u32);
    put_u32(&mut table, posting_bytes.len() as u32);
    put_u32(&mut table, 0);

    let mut data =
        Vec::with_capacity(HEADER + n_docs * DOC_ROW + table.len() + strings.len() + posting_bytes.len());
    data.extend_from_slice(MAGIC);
    put_u32(&mut data, n_docs as u32);
    put_u32(&mut data, n_terms);
    for a in avg {
        data.extend_from_slice(&a.to_le_bytes());
    }
    for (doc, len) in fields.iter().zip(parts.iter().flat_map(|p| &p.lengths)) {
        put_u32(&mut data, doc.entry);
        for l in len {
            put_u32(&mut data, *l);
        }
    }
    data.extend_from_slice(&table);
    data.extend_from_slice(&strings);
    data.extend_from_slice(&posting_bytes);
    SearchIndex { data: data.into() }
}

/// One scored document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    /// Index into `Catalog::entries`.
    pub entry: u32,
    /// BM25F score (higher is better), times the fraction of query terms matched.
    pub score: f32,
    /// How many distinct query terms matched.
    pub matched: u32,
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
    fn postings(&self, i: usize, mut f: impl FnMut(usize, &[u32; FIELDS])) {
        let start = u32_at(self.table, i * TERM_ROW + 4) as usize;
        let end = u32_at(self.table, (i + 1) * TERM_ROW + 4) as usize;
        let Some(bytes) = self.postings.get(start..end) else { return };
        let mut at = 0;
        let mut ordinal = 0usize;
        let varint = |at: &mut usize| -> Option<u32> {
            let mut v = 0u32;
            for shift in (0..35).step_by(7) {
                let b = *bytes.get(*at)?;
                *at += 1;
                v |= u32::from(b & 0x7f) << shift;
                if b & 0x80 == 0 {
                    return Some(v);
                }
            }
            None
        };
        while at < bytes.len() {
            let Some(delta) = varint(&mut at) else { return };
            ordinal += delta as usize;
            let Some(&mask) = bytes.get(at) else { return };
            at += 1;
            let mut tfs = [0u32; FIELDS];
            for (field, tf) in tfs.iter_mut().enumerate() {
                if mask & (1 << field) != 0 {
                    let Some(v) = varint(&mut at) else { return };
                    *tf = v;
                }
            }
            if ordinal >= self.n_docs {
                return;
            }
            f(ordinal, &tfs);
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

/// Most index terms one query term may expand to by prefix.
const MAX_EXPANSIONS: usize = 16;

impl SearchIndex {
    /// Number of indexed documents.
    pub fn len(&self) -> usize {
        View::new(&self.data).map_or(0, |v| v.n_docs)
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of distinct terms.
    pub fn n_terms(&self) -> usize {
        View::new(&self.data).map_or(0, |v| v.n_terms)
    }

    /// Scores every document matching at least one of `terms` (from [`query_terms`]), unordered.
    ///
    /// A term absent from the index is expanded to up to 16 indexed terms it is a prefix of (at
    /// half weight), so partially typed words still match. The BM25F sum is multiplied by the
    /// fraction of the query's terms the document matches (coordination).
    pub fn score(&self, terms: &[String]) -> Vec<Scored> {
        let Some(view) = View::new(&self.data) else { return Vec::new() };
        let mut scores = vec![0f32; view.n_docs];
        let mut matched = vec![0u32; view.n_docs];
        let mut touched: Vec<usize> = Vec::new();
        let n = view.n_docs as f32;
        for term in terms {
            let mut expansions: Vec<(usize, f32)> = Vec::new();
            match view.find(term) {
                Some(i) => expansions.push((i, 1.0)),
                None if term.chars().count() >= 3 => {
                    let first = view.lower_bound(term.as_bytes());
                    expansions.extend(
                        (first..view.n_terms)
                            .take_while(|&i| view.term(i).starts_with(term.as_bytes()))
                            .take(MAX_EXPANSIONS)
                            .map(|i| (i, 0.5)),
                    );
                }
                None => {}
            }
            // Each document counts a query term once, with its best expansion. One expansion
            // (the usual case) yields each document once, in order, so it needs no sort.
            let single = expansions.len() == 1;
            let mut best: Vec<(usize, f32)> = Vec::new();
            for (i, weight) in expansions {
                let df = view.df(i) as f32;
                let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                view.postings(i, |ordinal, tfs| {
                    let mut tf = 0f32;
                    for f in 0..FIELDS {
                        if tfs[f] > 0 {
                            let norm = 1.0 - FIELD_B[f] + FIELD_B[f] * view.doc_len(ordinal, f) / view.avg[f];
                            tf += FIELD_WEIGHTS[f] * tfs[f] as f32 / norm;
                        }
                    }
                    best.push((ordinal, weight * idf * tf / (K1 + tf)));
                });
            }
            if !single {
                best.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
                best.dedup_by_key(|b| b.0);
            }
            for (ordinal, s) in best {
                if matched[ordinal] == 0 {
                    touched.push(ordinal);
                }
                scores[ordinal] += s;
                matched[ordinal] += 1;
            }
        }
        let n_terms = terms.len().max(1) as f32;
        touched
            .into_iter()
            .map(|ordinal| {
                let coord = matched[ordinal] as f32 / n_terms;
                Scored {
                    entry: view.doc_entry(ordinal),
                    score: scores[ordinal] * coord,
                    matched: matched[ordinal],
                }
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
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expected: &str) {
        let mut got = Vec::new();
        tokenize(text, false, |s, e, t| got.push(format!("{t}@{}", &text[s..e])));
        assert_eq!(got.join(" "), expected, "tokens of {text:?}");
    }

    #[test]
    fn stop_word_length_bound_covers_every_stop_word() {
        assert_eq!(STOP_WORDS.iter().map(|w| w.len()).max(), Some(MAX_STOP_WORD_BYTES));
    }

    #[test]
    fn stop_word_test_matches_the_list() {
        for word in STOP_WORDS {
            assert!(is_stop_word(word), "{word}");
        }
        for word in ["", "b", "ab", "th", "thee", "whe", "wheree", "yours", "x\0", "a\0"] {
            assert!(!is_stop_word(word), "{word:?}");
        }
    }

    #[test]
    fn tokenizes_unicode_text() {
        check("Hello, World!", "hello@Hello world@World");
        check("The taxonomies of shortcodes", "taxonomy@taxonomies shortcode@shortcodes");
        check("hugo.toml baseURL", "hugo@hugo toml@toml baseurl@baseURL");
        check("ÉCOLE Straße", "école@ÉCOLE straße@Straße");
        check(
            "status class boxes matches caches menus",
            "statu@status class@class box@boxes match@matches cache@caches menu@menus",
        );
        check("日本語の文書", "日本@日本 本語@本語 語の@語の の文@の文 文書@文書");
        check("한국어 검색", "한국@한국 국어@국어 검색@검색");
        check("a 字 b", "字@字 b@b");
        check("v0.123.0 x86_64", "v0@v0 123@123 0@0 x86@x86 64@64");
        check("...!!!", "");
    }

    #[test]
    fn strips_frontmatter() {
        assert_eq!(strip_frontmatter("---\ntitle: x\n---\nbody\n"), "body\n");
        assert_eq!(strip_frontmatter("no frontmatter\n"), "no frontmatter\n");
        assert_eq!(strip_frontmatter("---\nunclosed\n"), "---\nunclosed\n");
    }

    #[test]
    fn query_terms_keep_stop_words_only_when_alone() {
        assert_eq!(query_terms("how to install the theme"), ["install", "theme"]);
        assert_eq!(query_terms("the"), ["the"]);
        assert_eq!(query_terms("Menus menu MENUS"), ["menu"]);
        assert!(query_terms("?!").is_empty());
    }

    #[test]
    fn malformed_index_bytes_match_nothing() {
        for data in [&b""[..], b"FSI1", b"FSI1\xff\xff\xff\xff\xff\xff\xff\xff", &[0u8; 64]] {
            let index = SearchIndex { data: data.to_vec().into() };
            assert!(index.score(&["x".to_owned()]).is_empty());
            assert!(index.terms_with_prefix("", 10).is_empty());
        }
    }
}
