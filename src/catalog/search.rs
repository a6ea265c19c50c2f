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
//! # Building
//! Bodies, and docs' small fields, are tokenized by [`Indexer`]s, one per compiler thread, each
//! into its own [`TermDict`] while the file is still in cache; [`build_with`] tokenizes the rest
//! (skills' small fields, which depend on their manifests) on all cores the same way, merges the
//! dictionaries by sorting their terms (a term's id is its rank) and fills the postings in
//! contiguous runs of documents, one per core, joined per term.
//! Neither the split nor the scheduling reaches the bytes: [`build`] (everything on one
//! thread's indexer) writes the same index, which a test checks.
//!
//! Performs no IO; mounted by `build.rs`.

use serde::{Deserialize, Serialize};

use super::codec::Body;

// The load-time check of the index tables (`SearchIndex::check`).
#[path = "search/check.rs"]
mod check;
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
const MAGIC: &[u8; 4] = b"FSI2";
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

/// The fields of one indexed document, in field order (the body last).
struct Fields<'a> {
    entry: u32,
    parts: [Vec<&'a str>; FIELDS],
}

fn heading_titles(outline: &[Section]) -> Vec<&str> {
    outline.iter().map(|s| s.title.as_str()).collect()
}

/// The strings of a frontmatter value: itself, or the strings of a list.
fn string_values(value: Option<&serde_json::Value>) -> impl Iterator<Item = &str> {
    let values = match value {
        Some(serde_json::Value::Array(items)) => items.as_slice(),
        Some(one) => std::slice::from_ref(one),
        None => &[],
    };
    values.iter().filter_map(serde_json::Value::as_str)
}

/// A doc's small fields: title, description, keywords (tags, category, the frontmatter's
/// `keywords` and `linkTitle`, the path's words) and headings.
fn doc_small_fields(doc: &Doc) -> [Vec<&str>; FIELDS - 1] {
    let mut keywords: Vec<&str> = doc.tags.iter().map(String::as_str).collect();
    keywords.extend(doc.category.as_deref());
    for key in ["keywords", "linkTitle", "link_title"] {
        keywords.extend(string_values(doc.extra.get(key)));
    }
    keywords.push(doc.path.rsplit_once('.').map_or(doc.path.as_str(), |(stem, _)| stem));
    [vec![&doc.title], vec![&doc.description], keywords, heading_titles(&doc.outline)]
}

/// The fields of every indexed document whose small fields were not tokenized ahead, and the
/// entries of those whose were (`small_ready`; their body was too). A body tokenized ahead
/// (`has_body`) is left empty: only its entry's `is_text` matters then (a text entry is valid
/// UTF-8), which spares a UTF-8 check of every body. Both lists are in entry order.
fn collect_fields<'a>(
    entries: &'a [Entry],
    docs: &'a [Doc],
    skills: &'a [Skill],
    has_body: impl Fn(u32) -> bool,
    small_ready: impl Fn(u32) -> bool,
) -> (Vec<Fields<'a>>, Vec<u32>) {
    let mut out = Vec::new();
    let mut ready = Vec::new();
    let text_of = |idx: u32| match entries.get(idx as usize) {
        Some(e) if e.is_text && has_body(idx) => Some(""),
        Some(e) => e.text(),
        None => None,
    };
    let body_of = |idx: u32| text_of(idx).map(strip_frontmatter);
    for doc in docs {
        let Some(body) = body_of(doc.entry) else { continue };
        if small_ready(doc.entry) && has_body(doc.entry) {
            ready.push(doc.entry);
            continue;
        }
        let [title, description, keywords, headings] = doc_small_fields(doc);
        out.push(Fields { entry: doc.entry, parts: [title, description, keywords, headings, vec![body]] });
    }
    for skill in skills {
        if let Some(body) = body_of(skill.document) {
            let mut keywords: Vec<&str> = vec![&skill.name];
            keywords.extend(skill.tags.iter().map(String::as_str));
            keywords.extend(skill.capabilities.iter().map(String::as_str));
            keywords.push(&skill.path);
            out.push(Fields {
                entry: skill.document,
                parts: [
                    vec![&skill.title],
                    vec![&skill.description],
                    keywords,
                    heading_titles(&skill.outline),
                    vec![body],
                ],
            });
        }
        for file in &skill.files {
            let Some(body) = text_of(file.entry) else { continue };
            let title = file.title.as_deref().unwrap_or(&file.rel_path);
            out.push(Fields {
                entry: file.entry,
                parts: [
                    vec![title],
                    file.description.iter().map(String::as_str).collect(),
                    vec![&skill.name, &file.rel_path],
                    Vec::new(),
                    vec![body],
                ],
            });
        }
    }
    // Index order is entry order, so postings (sorted by doc ordinal) are also in URI order.
    out.sort_by_key(|f| f.entry);
    ready.sort_unstable();
    (out, ready)
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends `v` as a LEB128 varint (7 bits per byte, low bits first).
fn put_varint(out: &mut Vec<u8>, v: impl Into<u64>) {
    let mut v = v.into();
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Bits of a posting's first varint below the document delta (see the module docs).
const INLINE_TF_BITS: u32 = 3;
/// Largest body-only term frequency stored in a posting's first varint.
const INLINE_TF_MAX: u32 = (1 << INLINE_TF_BITS) - 1;
/// Field mask of a body-only posting.
const BODY_ONLY: u8 = 1 << (FIELDS - 1);

/// Writes a posting's first varint: `delta` shifted above `inline_tf` (0, or a body-only
/// frequency up to [`INLINE_TF_MAX`]). 64 bits wide, so no delta overflows it.
fn put_posting_head(out: &mut Vec<u8>, delta: u32, inline_tf: u32) {
    put_varint(out, (u64::from(delta) << INLINE_TF_BITS) | u64::from(inline_tf));
}

/// The length of what [`put_posting_head`] writes, without writing it (the index is sized
/// before it is filled).
fn posting_head_len(delta: u32, inline_tf: u32) -> usize {
    let v = (u64::from(delta) << INLINE_TF_BITS) | u64::from(inline_tf);
    // 7 bits per byte; a zero still takes one byte.
    (64 - (v | 1).leading_zeros()).div_ceil(7) as usize
}

/// Reads a posting's first varint as `(delta, inline tf)`; `None` when the bytes end inside it
/// or it is longer than [`put_posting_head`] writes (malformed index bytes).
fn get_posting_head(bytes: &[u8], at: &mut usize) -> Option<(u64, u32)> {
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
fn get_varint(bytes: &[u8], at: &mut usize) -> u32 {
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

/// A fast, deterministic hash for interning terms (FxHash's mixing over 8-byte words). Which
/// hash is used cannot change the index bytes: dictionaries are only looked up, and terms are
/// sorted before they are written.
fn term_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut tail = [0u8; 8];
        tail[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    }
    // A product's low bits depend only on its inputs' low bits, and slots are picked by the low
    // bits: rotate the well-mixed middle bits down (as rustc-hash 2 does).
    h.rotate_left(26)
}

/// Interns terms to dense ids in first-seen order: an [`Indexer`]'s terms (looked up once per
/// new spelling and per non-ASCII token) and, in [`build_with`], every indexer's terms merged.
/// Open addressing over small slots (hash tag and id) keeps the probed array small enough for
/// the core's cache; each term's first 16 bytes are stored by id, so a lookup rarely compares
/// against the separately stored bytes.
#[derive(Debug, Default)]
pub struct TermDict {
    /// Open-addressing slots; the length is a power of two, at least twice the terms.
    slots: Vec<Slot>,
    /// Per term id: its first 16 bytes, zero-padded.
    heads: Vec<[u64; 2]>,
    /// Every term, concatenated.
    text: String,
    /// Per term id: its end offset in `text`.
    ends: Vec<usize>,
}

/// A [`TermDict`] slot.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// High bits of the hash, and the length (capped at 255) in the low byte.
    tag: u32,
    /// Term id, or [`EMPTY`].
    id: u32,
}

const EMPTY: u32 = u32::MAX;
const EMPTY_SLOT: Slot = Slot { tag: 0, id: EMPTY };

/// What a [`TermDict`] lookup compares: the hash, the slot tag and the first 16 bytes.
#[derive(Debug, Clone, Copy)]
struct Key {
    hash: u64,
    /// High bits of the hash, and the length (capped at 255) in the low byte.
    tag: u32,
    /// The first 16 bytes, zero-padded.
    head: [u64; 2],
}

impl Key {
    fn of(bytes: &[u8]) -> Key {
        let mut head = [0u8; 16];
        let n = bytes.len().min(16);
        head[..n].copy_from_slice(&bytes[..n]);
        let head = [
            u64::from_le_bytes(head[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(head[8..].try_into().expect("8 bytes")),
        ];
        if (1..=16).contains(&bytes.len()) {
            return Key::short(head, bytes.len());
        }
        Key::with_hash(term_hash(bytes), head, bytes.len())
    }

    /// The key of a term of 1 to 16 bytes given as its zero-padded little-endian words: what
    /// [`Key::of`] computes, without reading the bytes again ([`term_hash`] unrolled).
    #[inline]
    fn short(head: [u64; 2], len: usize) -> Key {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = ((len as u64).rotate_left(5) ^ head[0]).wrapping_mul(K);
        if len > 8 {
            h = (h.rotate_left(5) ^ head[1]).wrapping_mul(K);
        }
        Key::with_hash(h.rotate_left(26), head, len)
    }

    #[inline]
    fn with_hash(hash: u64, head: [u64; 2], len: usize) -> Key {
        Key { hash, tag: ((hash >> 32) as u32 & !0xff) | len.min(0xff) as u32, head }
    }
}

/// True for the bytes a word is made of: ASCII letters and digits, and every byte of a
/// non-ASCII character (those pieces go through [`tokenize`]). The definition the fast scans
/// ([`word_lanes`], [`Words`]) are tested against.
#[cfg(test)]
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// Bit 7 of every byte of a `u64`: the lanes [`word_lanes`] marks.
const LANE_HIGH: u64 = 0x8080_8080_8080_8080;
/// 1 in every byte of a `u64`.
const LANE_ONES: u64 = 0x0101_0101_0101_0101;

/// The word bytes (ASCII letters and digits, bytes of non-ASCII characters) among the 8 bytes
/// of `w` (read little-endian), as bit 7 of their lanes.
///
/// Eight bytes are classified at once (SWAR): with bit 7 cleared, each lane holds 0..=127, so
/// `(lane | 0x80) - n` never borrows from the next lane and keeps bit 7 exactly when
/// `lane >= n`. Letters are tested after OR-ing 0x20, which maps `A..=Z` onto `a..=z` and no
/// other byte into that range.
#[inline]
fn word_lanes(w: u64) -> u64 {
    let at_least = |x: u64, n: u8| ((x | LANE_HIGH) - LANE_ONES * u64::from(n)) & LANE_HIGH;
    let low = w & !LANE_HIGH;
    let digit = at_least(low, b'0') & !at_least(low, b'9' + 1);
    let folded = low | (LANE_ONES * 0x20);
    let letter = at_least(folded, b'a') & !at_least(folded, b'z' + 1);
    // Bytes of 0x80 and above (parts of non-ASCII characters) count as word bytes.
    (digit | letter | w) & LANE_HIGH
}

/// The bit 7s of `lanes` (one per byte, as [`word_lanes`] sets them) gathered into the low 8
/// bits, lane `i` to bit `i`. The multiply moves each lane's bit to bit `56 + i` without
/// carries (every lane/shift pair lands on its own bit), like SSE2's `movemask`.
#[inline]
fn gather_lanes(lanes: u64) -> u64 {
    ((lanes >> 7) & LANE_ONES).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// One bit per byte of the 64 bytes at `at` (past the end: zeros, which are not word bytes):
/// the word bytes (see [`word_lanes`]).
#[inline]
fn block_mask(bytes: &[u8], at: usize) -> u64 {
    let mut padded = [0u8; 64];
    let block: &[u8] = match bytes.get(at..at + 64) {
        Some(block) => block,
        None => {
            let rest = bytes.get(at..).unwrap_or_default();
            padded[..rest.len()].copy_from_slice(rest);
            &padded
        }
    };
    let mut word = 0u64;
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        word |= gather_lanes(word_lanes(w)) << (8 * i);
    }
    word
}

/// The runs of word bytes of a text, as `start..end`, found 64 bytes at a time: each block is
/// classified once into a bit mask, and the runs are read off it with bit scans, so finding a
/// word costs a few instructions and no branch per byte. (Scanning byte by byte, or 8 bytes at
/// a time, was half of the tokenizer's time on a large tree.) Whether a run is ASCII is left to
/// the caller, which reads its bytes anyway.
struct Words<'a> {
    bytes: &'a [u8],
    /// Offset of the block `rest` describes.
    base: usize,
    /// The block's word bytes not yet yielded.
    rest: u64,
}

impl<'a> Words<'a> {
    fn new(bytes: &'a [u8]) -> Words<'a> {
        Words { bytes, base: 0, rest: block_mask(bytes, 0) }
    }

    /// Moves to the next block; false past the end of the text.
    #[inline]
    fn advance(&mut self) -> bool {
        self.base += 64;
        if self.base >= self.bytes.len() {
            return false;
        }
        self.rest = block_mask(self.bytes, self.base);
        true
    }
}

impl Iterator for Words<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        while self.rest == 0 {
            if !self.advance() {
                return None;
            }
        }
        let from = self.rest.trailing_zeros();
        let run = (self.rest >> from).trailing_ones();
        let start = self.base + from as usize;
        // Adding the run's lowest bit carries through the run and clears it (a carry out of
        // bit 63 is the run reaching the block's end), leaving the bits above it.
        self.rest &= self.rest.wrapping_add(1 << from);
        if from + run < 64 {
            return Some((start, start + run as usize));
        }
        // The run goes on into the next blocks (or ends with the text).
        loop {
            if !self.advance() {
                return Some((start, self.bytes.len()));
            }
            let run = self.rest.trailing_ones();
            if run < 64 {
                self.rest &= self.rest.wrapping_add(1);
                return Some((start, self.base + run as usize));
            }
        }
    }
}

/// The key of the ASCII word `bytes[start..end]` (at most 16 bytes), read as two words when
/// 16 bytes are there to read, masked to the word.
#[inline]
fn ascii_key(bytes: &[u8], start: usize, end: usize) -> Key {
    /// Per length up to 16: the mask keeping that many bytes of two little-endian words.
    const MASKS: [[u64; 2]; 17] = {
        let mut masks = [[0u64; 2]; 17];
        let mut len = 1;
        while len <= 16 {
            let mask = u128::MAX >> (128 - 8 * len);
            masks[len] = [mask as u64, (mask >> 64) as u64];
            len += 1;
        }
        masks
    };
    let len = end - start;
    let (Some(window), Some(mask)) = (bytes.get(start..start + 16), MASKS.get(len)) else {
        return Key::of(&bytes[start..end]);
    };
    let word = |i: usize| u64::from_le_bytes(window[i..i + 8].try_into().expect("8 bytes"));
    Key::short([word(0) & mask[0], word(8) & mask[1]], len)
}

impl TermDict {
    /// Number of distinct terms.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no term was interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn term(&self, id: usize) -> &str {
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.text[start..self.ends[id]]
    }

    /// The id of `term`, adding it if new.
    pub fn intern(&mut self, term: &str) -> u32 {
        self.intern_key(term, Key::of(term.as_bytes()))
    }

    fn ensure_slots(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![EMPTY_SLOT; 1024];
        }
    }

    /// [`TermDict::intern`] with the key computed.
    fn intern_key(&mut self, term: &str, key: Key) -> u32 {
        self.ensure_slots();
        let mask = self.slots.len() - 1;
        let mut i = key.hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.id == EMPTY {
                break;
            }
            if slot.tag == key.tag && self.matches(slot.id, term, key) {
                return slot.id;
            }
            i = (i + 1) & mask;
        }
        let id =
            u32::try_from(self.ends.len()).ok().filter(|&id| id != EMPTY).expect("fewer than 2^32 - 1 terms");
        self.text.push_str(term);
        self.ends.push(self.text.len());
        self.heads.push(key.head);
        self.slots[i] = Slot { tag: key.tag, id };
        if self.ends.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    /// True when term `id` is `term` (whose tag already matched, so whose length did).
    fn matches(&self, id: u32, term: &str, key: Key) -> bool {
        // Equal length and first 16 bytes: equal unless longer than that.
        self.heads[id as usize] == key.head && (term.len() <= 16 || self.term(id as usize) == term)
    }

    fn grow(&mut self) {
        let mut slots = vec![EMPTY_SLOT; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for slot in self.slots.iter().filter(|s| s.id != EMPTY) {
            let hash = term_hash(self.term(slot.id as usize).as_bytes());
            let mut i = hash as usize & mask;
            while slots[i].id != EMPTY {
                i = (i + 1) & mask;
            }
            slots[i] = *slot;
        }
        self.slots = slots;
    }
}

/// The body of one indexed document, tokenized ahead of [`build_with`] (on the compiler's
/// parallel per-file stage, while the file is in cache): its token count and its distinct terms
/// with their frequencies, as ids of the [`Indexer`] that produced it.
#[derive(Debug, Default)]
pub struct BodyTerms {
    /// Which indexer's dictionary the ids belong to ([`Indexer::new`]'s `id`).
    dict: u32,
    /// Tokens in the body (its BM25F field length).
    tokens: u32,
    /// `(term id, frequency)` pairs as varints, in first-occurrence order.
    pairs: Vec<u8>,
}

/// Tokenizes text into one [`TermDict`], counting term frequencies without sorting: one per
/// thread, so tokenizing needs no locks, and the dictionaries are merged by [`build_with`].
///
/// Tokens are the ones [`tokenize`] yields, found faster: text is cut at ASCII bytes that are
/// not letters or digits (which always end a token, so the pieces tokenize independently), and a
/// piece of at most 16 ASCII letters and digits (nearly every word) is looked up as written in a
/// memo of spellings, so lowercasing, the stop-word test and stemming run once per distinct
/// spelling rather than once per token. A spelling's slot holds all a token needs (its bytes,
/// its term and its count in the current text): one cache line per token. Counts move to their
/// terms once per spelling (`Indexer::fold`), not once per token.
#[derive(Debug, Default)]
pub struct Indexer {
    id: u32,
    dict: TermDict,
    /// Open-addressing memo of ASCII spellings; the length is a power of two, at least twice
    /// `n_spellings`.
    spellings: Vec<Spelling>,
    n_spellings: usize,
    /// Slots of the spellings counted since the last fold, in first-occurrence order: the
    /// first `n_seen`. As long as the memo (a slot is kept at most once between folds), so the
    /// counting loop never grows it.
    seen: Vec<u32>,
    n_seen: usize,
    /// Per term id, at [`tf_slot`]: its frequency in the text being counted (zeroed after
    /// each text).
    tf: Vec<u32>,
    /// Term ids seen in the text being counted, in first-occurrence order: the first
    /// `n_touched` (the rest is scratch for [`Indexer::add`]).
    touched: Vec<u32>,
    n_touched: usize,
    /// The texts of a field, joined for one scan ([`Indexer::count`]); kept for its capacity.
    joined: String,
    /// [`Indexer::body`]'s encoding buffer; kept for its capacity.
    pairs: Vec<u8>,
    /// [`Indexer::small`]'s list of terms; kept for its capacity.
    terms: Vec<(u32, u8, u32)>,
}

/// One ASCII word as written, in [`Indexer`]'s memo. 32 bytes, aligned: two per cache line,
/// never straddling one.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
struct Spelling {
    /// The word's bytes, zero-padded (all of them: only words of at most 16 bytes are memoized).
    head: [u64; 2],
    /// [`Key::tag`]; 0 for an empty slot (a word has at least one byte, so its tag is not 0).
    tag: u32,
    /// The term it normalises to, or [`DROPPED`].
    term: u32,
    /// Occurrences since the last [`Indexer::fold`].
    tf: u32,
}

/// The longest ASCII word the [`Spelling`] memo holds: its key is its bytes.
const MEMO_MAX_BYTES: usize = 16;

/// In [`Spelling::term`]: a word that yields no token (a stop word).
const DROPPED: u32 = u32::MAX;

/// Where [`Indexer::tf`] counts term `id`: one past it, so that [`DROPPED`] wraps to slot 0,
/// which nothing reads.
fn tf_slot(id: u32) -> usize {
    id.wrapping_add(1) as usize
}

/// The small fields of one indexed document (title, description, keywords, headings), tokenized
/// ahead of [`build_with`] like a [`BodyTerms`].
#[derive(Debug, Default)]
pub struct SmallTerms {
    /// Which indexer's dictionary the ids belong to.
    dict: u32,
    /// `(term id, field, frequency)`, each field's terms in first-occurrence order.
    terms: Vec<(u32, u8, u32)>,
    /// Tokens per field.
    lengths: [u32; FIELDS - 1],
}

impl BodyTerms {
    /// Tokens in the body (its length as the index counts it).
    pub fn tokens(&self) -> u32 {
        self.tokens
    }
}

impl Indexer {
    /// An indexer whose [`BodyTerms`] say `id`; the ids of the indexers given to one
    /// [`build_with`] are their positions in its list.
    pub fn new(id: u32) -> Indexer {
        Indexer { id, ..Indexer::default() }
    }

    /// Gives up the dictionary, for [`Pretokenized::dicts`].
    pub fn into_dict(self) -> TermDict {
        self.dict
    }

    /// Tokenizes an indexed document's body (what [`build`] indexes as the body field: a doc's or
    /// SKILL.md's text without frontmatter, a skill file's whole text).
    pub fn body(&mut self, text: &str) -> BodyTerms {
        // Encoded into a buffer kept for its capacity, then copied once at its size: growing
        // each body's own list by doubling cost a reallocation and a copy per step.
        let mut scratch = std::mem::take(&mut self.pairs);
        scratch.clear();
        let tokens = self.count([text].into_iter(), |id, tf| {
            put_varint(&mut scratch, id);
            put_varint(&mut scratch, tf);
        });
        let pairs = scratch.clone();
        self.pairs = scratch;
        BodyTerms { dict: self.id, tokens, pairs }
    }

    /// Tokenizes a doc's small fields (what [`build`] indexes as its title, description,
    /// keywords and headings).
    pub fn doc(&mut self, doc: &Doc) -> SmallTerms {
        let [title, description, keywords, headings] = doc_small_fields(doc);
        self.small([&title, &description, &keywords, &headings])
    }

    /// Tokenizes small fields, each given as its texts.
    fn small(&mut self, fields: [&Vec<&str>; FIELDS - 1]) -> SmallTerms {
        // Gathered in a buffer kept for its capacity and copied once at its size, like a
        // body's pairs: grown from empty, each doc's list was reallocated several times.
        let mut scratch = std::mem::take(&mut self.terms);
        scratch.clear();
        let mut lengths = [0; FIELDS - 1];
        for (field, (texts, length)) in fields.into_iter().zip(&mut lengths).enumerate() {
            *length = self.count(texts.iter().copied(), |id, tf| scratch.push((id, field as u8, tf)));
        }
        let terms = scratch.clone();
        self.terms = scratch;
        SmallTerms { dict: self.id, terms, lengths }
    }

    /// Tokenizes `texts` as one field, calls `emit(term id, frequency)` once per distinct term
    /// in first-occurrence order, and returns the number of tokens.
    fn count<'a>(&mut self, texts: impl Iterator<Item = &'a str>, mut emit: impl FnMut(u32, u32)) -> u32 {
        let mut tokens = 0u32;
        let mut texts = texts.peekable();
        match texts.next() {
            Some(only) if texts.peek().is_none() => self.scan(only, &mut tokens),
            Some(first) => {
                // Several short texts (a doc's headings) are scanned as one, joined by spaces:
                // a space ends any token, so the tokens are the same, and scanning costs
                // something per text (a large tree has hundreds of thousands of headings).
                let mut joined = std::mem::take(&mut self.joined);
                joined.clear();
                joined.push_str(first);
                for text in texts {
                    joined.push(' ');
                    joined.push_str(text);
                }
                self.scan(&joined, &mut tokens);
                self.joined = joined;
            }
            None => {}
        }
        for &id in &self.touched[..self.n_touched] {
            emit(id, std::mem::take(&mut self.tf[tf_slot(id)]));
        }
        self.n_touched = 0;
        tokens
    }

    fn scan(&mut self, text: &str, tokens: &mut u32) {
        let bytes = text.as_bytes();
        if self.spellings.is_empty() {
            self.spellings = vec![Spelling::default(); 1024];
            self.seen = vec![0; 1024];
        }
        // Counted here and added once (the count saturates; a word is at least a byte, so this
        // one cannot overflow).
        let mut counted = 0u64;
        for (start, end) in Words::new(bytes) {
            let len = end - start;
            if len <= MEMO_MAX_BYTES {
                let key = ascii_key(bytes, start, end);
                // The key holds the word's bytes: ASCII when none has bit 7 set.
                if (key.head[0] | key.head[1]) & LANE_HIGH == 0 {
                    let at = self.spelling(text, start..end, key);
                    // No branch on "first time since the fold" (taken for most rare words, in
                    // no predictable order): the slot is written every time and kept only when
                    // new. (`seen` is as long as the memo: a fold keeps a slot in it at most
                    // once.)
                    self.seen[self.n_seen] = at as u32;
                    let spelling = &mut self.spellings[at];
                    self.n_seen += usize::from(spelling.tf == 0);
                    spelling.tf += 1;
                    // Nor on stop words (a third of the words): they count as no token.
                    counted += u64::from(spelling.term != DROPPED);
                    continue;
                }
            } else if len > MAX_TERM_BYTES && bytes[start..end].is_ascii() {
                continue;
            }
            // Keep first-occurrence order: the words before this piece are counted first.
            self.fold();
            let Indexer { dict, tf, touched, n_touched, .. } = self;
            // `start` and `end` are on char boundaries: both are at (or past) ASCII bytes.
            tokenize(&text[start..end], false, |_, _, term| {
                counted += 1;
                Self::add(tf, touched, n_touched, dict.intern(term), 1);
            });
        }
        self.fold();
        *tokens = tokens.saturating_add(u32::try_from(counted).unwrap_or(u32::MAX));
    }

    /// The memo slot of the ASCII word `text[word]` (at most [`MEMO_MAX_BYTES`]), whose key is
    /// `key`; a new spelling is tokenized once and added. The word's `&str` is made only then:
    /// slicing a `str` checks both ends for char boundaries, on every word.
    #[inline]
    fn spelling(&mut self, text: &str, word: std::ops::Range<usize>, key: Key) -> usize {
        loop {
            let mask = self.spellings.len() - 1;
            let mut at = key.hash as usize & mask;
            loop {
                let slot = &self.spellings[at];
                if slot.tag == key.tag && slot.head == key.head {
                    return at;
                }
                if slot.tag == 0 {
                    break;
                }
                at = (at + 1) & mask;
            }
            if (self.n_spellings + 1) * 2 > self.spellings.len() {
                // Slots move: the counts noted by slot go to their terms first.
                self.fold();
                self.grow_spellings();
                continue;
            }
            let mut term = DROPPED;
            tokenize(&text[word.clone()], false, |_, _, t| term = self.dict.intern(t));
            self.spellings[at] = Spelling { head: key.head, tag: key.tag, term, tf: 0 };
            self.n_spellings += 1;
            return at;
        }
    }

    /// Doubles the memo (with no counts pending: [`Indexer::fold`] ran).
    fn grow_spellings(&mut self) {
        let mut slots = vec![Spelling::default(); self.spellings.len() * 2];
        let mask = slots.len() - 1;
        for slot in self.spellings.iter().filter(|s| s.tag != 0) {
            let len = (slot.tag & 0xff) as usize;
            let mut at = Key::short(slot.head, len).hash as usize & mask;
            while slots[at].tag != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = *slot;
        }
        self.seen.resize(slots.len(), 0);
        self.spellings = slots;
    }

    /// Moves the counts of the spellings seen since the last fold to their terms, in the
    /// spellings' first-occurrence order (so the terms keep theirs).
    fn fold(&mut self) {
        let Indexer { spellings, seen, n_seen, tf, touched, n_touched, .. } = self;
        for &at in &seen[..*n_seen] {
            let spelling = &mut spellings[at as usize];
            let count = std::mem::take(&mut spelling.tf);
            Self::add(tf, touched, n_touched, spelling.term, count);
        }
        *n_seen = 0;
    }

    /// Counts `count` (at least 1) occurrences of term `id` (or nothing, for [`DROPPED`]),
    /// noting it in `touched[..n_touched]` the first time.
    // Always: with the release profile's one codegen unit, the inliner kept this out of line in
    // `fold`, and its calls (one per spelling per text) cost as many instructions as its body.
    #[inline(always)]
    fn add(tf: &mut Vec<u32>, touched: &mut Vec<u32>, n_touched: &mut usize, id: u32, count: u32) {
        let slot = tf_slot(id);
        if slot >= tf.len() {
            tf.resize(slot + 1, 0);
        }
        // Without a branch on "first time in this text": it is taken for most rare words and
        // was mispredicted often enough to show in the profile. The id is written at the end
        // every time and kept only when it is new (never for a dropped word, in slot 0).
        if *n_touched == touched.len() {
            touched.push(0);
        }
        touched[*n_touched] = id;
        *n_touched += usize::from((tf[slot] == 0) & (slot != 0));
        tf[slot] = tf[slot].saturating_add(count);
    }
}

/// Fields tokenized ahead of [`build_with`]: the indexers' dictionaries (by [`Indexer::new`]
/// id) and, by entry index, each text entry's [`BodyTerms`] and each doc's [`SmallTerms`].
#[derive(Debug, Default)]
pub struct Pretokenized {
    /// The dictionaries, in indexer-id order.
    pub dicts: Vec<TermDict>,
    /// By index into `Catalog::entries`: the body, when tokenized ahead.
    pub bodies: Vec<Option<BodyTerms>>,
    /// By index into `Catalog::entries`: a doc's small fields, when tokenized ahead (used only
    /// with its body).
    pub small: Vec<Option<SmallTerms>>,
}

/// One document of the index while it is built: its small fields and its body.
struct DocTerms {
    entry: u32,
    small: SmallTerms,
    body: BodyTerms,
}

impl DocTerms {
    /// Tokens per field (the BM25F field lengths).
    fn lengths(&self) -> [u32; FIELDS] {
        let mut lengths = [0; FIELDS];
        lengths[..FIELDS - 1].copy_from_slice(&self.small.lengths);
        lengths[FIELDS - 1] = self.body.tokens;
        lengths
    }
}

/// Tokenizes the small fields of `fields` (and each body missing from `bodies`, which is
/// parallel to `fields`) with a new indexer numbered `dict`.
fn doc_terms_of(
    fields: &[Fields<'_>],
    bodies: &mut [Option<BodyTerms>],
    dict: u32,
) -> (Vec<DocTerms>, TermDict) {
    let mut own = Indexer::new(dict);
    let mut out = Vec::with_capacity(fields.len());
    for (doc, body) in fields.iter().zip(bodies) {
        let [title, description, keywords, headings, body_text] = &doc.parts;
        let small = own.small([title, description, keywords, headings]);
        let body = match body.take() {
            Some(body) => body,
            None => own.body(body_text.first().copied().unwrap_or_default()),
        };
        out.push(DocTerms { entry: doc.entry, small, body });
    }
    (out, own.into_dict())
}

/// Builds the index over every doc and skill. Deterministic: the output depends only on the
/// inputs' content and order (terms are sorted before they are written).
pub fn build(entries: &[Entry], docs: &[Doc], skills: &[Skill]) -> SearchIndex {
    build_with(entries, docs, skills, Pretokenized::default())
}

/// [`build`], with some or all bodies tokenized ahead (a body missing from `pre` is tokenized
/// here). The bytes are the same either way, however the bodies were spread over indexers.
pub fn build_with(entries: &[Entry], docs: &[Doc], skills: &[Skill], pre: Pretokenized) -> SearchIndex {
    let Pretokenized { mut dicts, mut bodies, mut small } = pre;
    let (fields, ready) = collect_fields(
        entries,
        docs,
        skills,
        |entry| bodies.get(entry as usize).is_some_and(Option::is_some),
        |entry| small.get(entry as usize).is_some_and(Option::is_some),
    );
    let n_docs = fields.len() + ready.len();
    // Documents tokenized ahead, whole.
    let mut doc_terms: Vec<DocTerms> = Vec::with_capacity(n_docs);
    doc_terms.extend(ready.into_iter().map(|entry| DocTerms {
        entry,
        small: small[entry as usize].take().expect("ready"),
        body: bodies[entry as usize].take().expect("ready"),
    }));
    drop(small);

    // The other documents' small fields (and bodies not tokenized ahead) are tokenized on all
    // cores, in contiguous chunks of documents, each chunk into its own indexer numbered after
    // the given ones.
    let mut taken: Vec<Option<BodyTerms>> =
        fields.iter().map(|f| bodies.get_mut(f.entry as usize).and_then(Option::take)).collect();
    drop(bodies);
    // Threads for the two parallel passes (small fields, postings).
    let threads = if n_docs >= PARALLEL_MIN_DOCS {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).min(4)
    } else {
        1
    };
    let chunk = fields.len().div_ceil(threads).max(1);
    let base = dicts.len();
    let tokenized: Vec<(Vec<DocTerms>, TermDict)> = std::thread::scope(|scope| {
        let workers: Vec<_> = fields
            .chunks(chunk)
            .zip(taken.chunks_mut(chunk))
            .enumerate()
            .map(|(i, (fields, bodies))| scope.spawn(move || doc_terms_of(fields, bodies, (base + i) as u32)))
            .collect();
        // A panic in a worker is a bug in this module; re-raise it on this thread.
        workers.into_iter().map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    drop(taken);
    drop(fields);
    for (terms, dict) in tokenized {
        doc_terms.extend(terms);
        dicts.push(dict);
    }
    // Two runs in entry order (the documents tokenized ahead, then the others): the stable sort
    // finds both runs and merges them in one pass.
    doc_terms.sort_by_key(|doc| doc.entry);

    // One sorted dictionary over all of them; `remap[d][id]` is the global id (the term's rank).
    // The dictionaries are deduplicated by interning (one lookup per term) and only the distinct
    // terms are sorted: sorting every dictionary's terms and binary-searching each was a
    // serial stretch of the index build.
    let mut unique = TermDict::default();
    let ids: Vec<Vec<u32>> =
        dicts.iter().map(|d| (0..d.len()).map(|i| unique.intern(d.term(i))).collect()).collect();
    let mut order: Vec<u32> = (0..unique.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| unique.term(a as usize).cmp(unique.term(b as usize)));
    let mut rank = vec![0u32; order.len()];
    for (r, &id) in order.iter().enumerate() {
        rank[id as usize] = r as u32;
    }
    let remap: Vec<Vec<u32>> =
        ids.into_iter().map(|ids| ids.into_iter().map(|id| rank[id as usize]).collect()).collect();
    drop(rank);
    let all: Vec<&str> = order.iter().map(|&id| unique.term(id as usize)).collect();
    drop(order);
    let n_terms = all.len();

    // Postings, filled on several threads, each over a contiguous run of documents; the runs'
    // lists are joined per term below, so the bytes do not depend on the split.
    let parts = fill_runs(&doc_terms, &remap, n_terms, threads);
    drop(remap);

    let mut avg = [0f32; FIELDS];
    for doc in &doc_terms {
        for (a, len) in avg.iter_mut().zip(doc.lengths()) {
            *a += len as f32;
        }
    }
    for a in &mut avg {
        *a = if n_docs == 0 { 1.0 } else { (*a / n_docs as f32).max(1.0) };
    }

    let strings_len: usize = all.iter().map(|t| t.len()).sum();
    let sizes: Vec<(usize, u32)> = (0..n_terms).map(|t| join_runs(&parts, t, None)).collect();
    let postings_len: usize = sizes.iter().map(|s| s.0).sum();
    let mut data =
        Vec::with_capacity(HEADER + n_docs * DOC_ROW + (n_terms + 1) * TERM_ROW + strings_len + postings_len);
    data.extend_from_slice(MAGIC);
    put_u32(&mut data, n_docs as u32);
    put_u32(&mut data, n_terms as u32);
    for a in avg {
        data.extend_from_slice(&a.to_le_bytes());
    }
    for doc in &doc_terms {
        put_u32(&mut data, doc.entry);
        for l in doc.lengths() {
            put_u32(&mut data, l);
        }
    }
    let (mut string_at, mut posting_at) = (0usize, 0usize);
    for (term, &(len, df)) in all.iter().zip(&sizes) {
        put_u32(&mut data, string_at as u32);
        put_u32(&mut data, posting_at as u32);
        put_u32(&mut data, df);
        string_at += term.len();
        posting_at += len;
    }
    put_u32(&mut data, string_at as u32);
    put_u32(&mut data, posting_at as u32);
    put_u32(&mut data, 0);
    for term in &all {
        data.extend_from_slice(term.as_bytes());
    }
    for term in 0..n_terms {
        join_runs(&parts, term, Some(&mut data));
    }
    // Tens of thousands of lists: freeing them here kept the catalog waiting.
    super::free_in_background((doc_terms, parts));
    SearchIndex { data: data.into() }
}

/// Below this many documents postings are filled on one thread (spawning costs more).
const PARALLEL_MIN_DOCS: usize = 256;

/// The postings of a contiguous run of documents, per global term id.
struct PostingRun {
    terms: Vec<TermRun>,
}

/// One term's postings in a [`PostingRun`] (one record, so filling touches one cache line).
#[derive(Clone, Default)]
struct TermRun {
    /// The stored format, except that the first posting's document delta is the absolute
    /// ordinal (joined to the previous run's list by [`join_runs`]).
    list: Vec<u8>,
    /// Ordinal of the run's last document holding the term.
    last: u32,
    /// Documents of the run holding the term.
    df: u32,
}

impl TermRun {
    /// Appends the posting of document `ordinal`: `tfs` holds the frequency of each field set
    /// in `mask`, in field order.
    fn push(&mut self, ordinal: u32, mask: u8, tfs: impl Iterator<Item = u32>) {
        let prev = if self.df == 0 {
            // Most terms are rare: their whole list fits here, without the growth steps from 8
            // bytes (a realloc each, over tens of thousands of terms).
            self.list.reserve(32);
            0
        } else {
            self.last
        };
        let delta = ordinal - prev;
        let mut tfs = tfs.peekable();
        match tfs.peek() {
            Some(&tf) if mask == BODY_ONLY && (1..=INLINE_TF_MAX).contains(&tf) => {
                put_posting_head(&mut self.list, delta, tf);
            }
            _ => {
                put_posting_head(&mut self.list, delta, 0);
                self.list.push(mask);
                for tf in tfs {
                    put_varint(&mut self.list, tf);
                }
            }
        }
        self.last = ordinal;
        self.df += 1;
    }
}

/// Fills the postings of `docs` as up to `runs` contiguous runs, each on its own thread.
fn fill_runs(docs: &[DocTerms], remap: &[Vec<u32>], n_terms: usize, runs: usize) -> Vec<PostingRun> {
    let runs = split_runs(docs, runs);
    std::thread::scope(|scope| {
        let workers: Vec<_> = runs
            .iter()
            .skip(1)
            .map(|run| scope.spawn(|| fill_postings(&docs[run.clone()], run.start, remap, n_terms)))
            .collect();
        let first = runs.first().map(|run| fill_postings(&docs[run.clone()], 0, remap, n_terms));
        // A panic in a worker is a bug in this module; re-raise it on this thread.
        first
            .into_iter()
            .chain(workers.into_iter().map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))))
            .collect()
    })
}

/// One term's stored postings: its runs' lists in order, each run's first posting (which holds
/// its absolute ordinal) turned into a delta from the previous run's last one. Appends them to
/// `out` when given; returns their length and the document frequency.
fn join_runs(parts: &[PostingRun], term: usize, mut out: Option<&mut Vec<u8>>) -> (usize, u32) {
    let (mut len, mut df, mut last) = (0usize, 0u32, 0u32);
    for part in parts {
        let run = &part.terms[term];
        if run.list.is_empty() {
            continue;
        }
        let mut at = 0;
        let (first, inline_tf) = get_posting_head(&run.list, &mut at).expect("this module wrote the run");
        // A run's first delta is its absolute ordinal, which fits the u32 it was made from.
        let delta = first as u32 - last;
        len += posting_head_len(delta, inline_tf) + run.list.len() - at;
        if let Some(out) = out.as_deref_mut() {
            put_posting_head(out, delta, inline_tf);
            out.extend_from_slice(&run.list[at..]);
        }
        df += run.df;
        last = run.last;
    }
    (len, df)
}

/// Splits documents into at most `n` contiguous runs of about equal tokenized size.
fn split_runs(docs: &[DocTerms], n: usize) -> Vec<std::ops::Range<usize>> {
    let weight = |d: &DocTerms| d.body.pairs.len() + d.small.terms.len() * 4 + 16;
    let total: usize = docs.iter().map(weight).sum();
    let mut runs = Vec::with_capacity(n);
    let (mut start, mut acc) = (0, 0);
    for (i, doc) in docs.iter().enumerate() {
        acc += weight(doc);
        if runs.len() + 1 < n && acc * n >= total * (runs.len() + 1) {
            runs.push(start..i + 1);
            start = i + 1;
        }
    }
    runs.push(start..docs.len());
    runs
}

/// Fills the postings of `docs`, whose first has ordinal `first`. A term in a small field
/// waits until the document's body is seen (one posting holds all of a document's fields); a
/// body-only term, the common case, is written at once.
fn fill_postings(docs: &[DocTerms], first: usize, remap: &[Vec<u32>], n_terms: usize) -> PostingRun {
    const BODY: usize = FIELDS - 1;
    let mut masks = vec![0u8; n_terms];
    let mut tfs = vec![[0u32; FIELDS]; n_terms];
    let mut touched: Vec<u32> = Vec::new();
    let mut decoded: Vec<(u32, u32)> = Vec::new();
    let mut run = PostingRun { terms: vec![TermRun::default(); n_terms] };
    for (offset, doc) in docs.iter().enumerate() {
        let ordinal = (first + offset) as u32;
        let small_remap = &remap[doc.small.dict as usize];
        for &(id, field, tf) in &doc.small.terms {
            let g = small_remap[id as usize] as usize;
            if masks[g] == 0 {
                touched.push(g as u32);
            }
            masks[g] |= 1 << field;
            tfs[g][field as usize] = tf;
        }
        // The body's pairs are decoded (and their ids made global) in a pass of their own before
        // the postings are appended: with the varint decoding out of the appending loop, the
        // core overlaps the appends to different lists (fill 15-30% faster, measured alone).
        let body_remap = &remap[doc.body.dict as usize];
        let mut at = 0;
        decoded.clear();
        while at < doc.body.pairs.len() {
            let id = get_varint(&doc.body.pairs, &mut at);
            let tf = get_varint(&doc.body.pairs, &mut at);
            decoded.push((body_remap[id as usize], tf));
        }
        for &(g, tf) in &decoded {
            let g = g as usize;
            if masks[g] == 0 {
                run.terms[g].push(ordinal, BODY_ONLY, std::iter::once(tf));
            } else {
                masks[g] |= 1 << BODY;
                tfs[g][BODY] = tf;
            }
        }
        for &g in &touched {
            let g = g as usize;
            let mask = std::mem::take(&mut masks[g]);
            let set = tfs[g].iter().enumerate().filter(|&(f, _)| mask & (1 << f) != 0).map(|(_, &tf)| tf);
            run.terms[g].push(ordinal, mask, set);
        }
        touched.clear();
    }
    run
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
fn decode_postings(bytes: &[u8], n_docs: usize, mut f: impl FnMut(usize, &[u32; FIELDS])) {
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
    fn keys_read_from_words_equal_keys_of_the_bytes() {
        let text = "abcdefghijklmnopqrstuvwxyz0123456789 tail";
        for start in 0..8 {
            for end in start + 1..=(start + 16).min(text.len()) {
                let bytes = &text.as_bytes()[start..end];
                let (a, b) = (ascii_key(text.as_bytes(), start, end), Key::of(bytes));
                assert_eq!((a.hash, a.tag, a.head), (b.hash, b.tag, b.head), "{:?}", &text[start..end]);
                assert_eq!(a.hash, term_hash(bytes));
            }
        }
        assert_eq!(Key::of(b"").hash, term_hash(b""));
    }

    #[test]
    fn term_dict_tells_apart_terms_sharing_a_long_prefix() {
        let mut dict = TermDict::default();
        let long_a = "configurationsettinga".repeat(2);
        let long_b = "configurationsettingb".repeat(2);
        let terms: Vec<String> = (0..5000).map(|i| format!("t{i}")).chain([long_a, long_b]).collect();
        for (i, t) in terms.iter().enumerate() {
            assert_eq!(dict.intern(t), i as u32, "{t} is new");
        }
        // Lookups after the table grew several times find every term again.
        for (i, t) in terms.iter().enumerate() {
            assert_eq!(dict.intern(t), i as u32, "{t} is known");
            assert_eq!(dict.term(i), t);
        }
        assert_eq!(dict.len(), terms.len());
    }

    /// What [`tokenize`] yields over each of `texts`: the token count, and each distinct term
    /// with its frequency in first-occurrence order (what an [`Indexer`] must count).
    fn tokens_of(texts: &[&str]) -> (u32, Vec<(String, u32)>) {
        let mut terms: Vec<(String, u32)> = Vec::new();
        let mut n = 0;
        for text in texts {
            tokenize(text, false, |_, _, t| {
                n += 1;
                match terms.iter_mut().find(|(x, _)| x == t) {
                    Some((_, tf)) => *tf += 1,
                    None => terms.push((t.to_owned(), 1)),
                }
            });
        }
        (n, terms)
    }

    /// A body's `(term, frequency)` pairs, with the terms spelled out from `indexer`'s dictionary.
    fn terms_of(indexer: &Indexer, body: &BodyTerms) -> Vec<(String, u32)> {
        let mut terms = Vec::new();
        let mut at = 0;
        while at < body.pairs.len() {
            let id = get_varint(&body.pairs, &mut at);
            let tf = get_varint(&body.pairs, &mut at);
            terms.push((indexer.dict.term(id as usize).to_owned(), tf));
        }
        terms
    }

    #[test]
    fn indexer_counts_the_tokens_tokenize_yields() {
        let text = "The Shortcodes and shortcodes: taxonomies, Überblick 日本語 x2 the_end \
                    averyveryveryveryveryveryveryveryveryveryverylongwordthatisdropped";
        let (n, expected) = tokens_of(&[text]);
        let mut indexer = Indexer::new(0);
        let body = indexer.body(text);
        assert_eq!(body.tokens, n);
        assert_eq!(terms_of(&indexer, &body), expected);
    }

    #[test]
    fn indexer_counts_what_tokenize_yields_as_its_memo_grows() {
        // Thousands of distinct spellings (the memo starts at 1,024 slots), each seen again in
        // another case, with words of exactly 16 and 17 bytes (the longest the memo holds, and
        // the shortest tokenized without it), words alike in their first 8 bytes, and stop
        // words among them.
        let mut text = String::new();
        for i in 0..3000u32 {
            let word = format!("w{i:x}ord sharedpre{i}");
            let long = format!("{:x<16}", format!("p{i}"));
            let longer = format!("{:y<17}", format!("q{i}"));
            text.push_str(&format!(
                "{word} {} {long} {longer} {} the ",
                word.to_uppercase(),
                longer.to_uppercase()
            ));
        }
        let (n, expected) = tokens_of(&[&text]);
        let mut indexer = Indexer::new(0);
        let body = indexer.body(&text);
        assert!(indexer.spellings.len() > 4096, "the memo grew: {} slots", indexer.spellings.len());
        assert_eq!((body.tokens, terms_of(&indexer, &body)), (n, expected));
    }

    #[test]
    fn a_field_of_several_texts_counts_the_tokens_of_each() {
        // Joined for one scan, the texts must not merge at their edges: `日本` + `語` is not
        // the bigram run `日本語`, and `end` + `ing` is not `ending`.
        let texts = ["Getting Started", "日本", "語 x2", "the end", "", "ing Überblick"];
        let (n, expected) = tokens_of(&texts);
        let mut indexer = Indexer::new(0);
        let mut got = Vec::new();
        let tokens = indexer.count(texts.into_iter(), |id, tf| got.push((id, tf)));
        let got: Vec<(String, u32)> =
            got.into_iter().map(|(id, tf)| (indexer.dict.term(id as usize).to_owned(), tf)).collect();
        assert_eq!((tokens, got), (n, expected));
    }

    /// The runs of word bytes, one byte at a time: what [`Words`] must find.
    fn runs_by_table(bytes: &[u8]) -> Vec<(usize, usize)> {
        let mut runs = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            if !is_word_byte(bytes[at]) {
                at += 1;
                continue;
            }
            let end = (at..bytes.len()).find(|&i| !is_word_byte(bytes[i])).unwrap_or(bytes.len());
            runs.push((at, end));
            at = end;
        }
        runs
    }

    #[test]
    fn word_scan_finds_the_runs_the_byte_table_finds() {
        // Every byte value at every position around the first block boundary (covering a
        // full block, the padded tail and a run that crosses into the next block), between
        // word bytes and separators.
        for fill in [b'a', b' ', 0xc3] {
            for len in [1, 19, 63, 64, 65, 130] {
                for at in (0..len).filter(|&at| at < 3 || at + 3 > len || (60..68).contains(&at)) {
                    for b in 0..=255u8 {
                        let mut bytes = vec![fill; len];
                        bytes[at] = b;
                        let got: Vec<_> = Words::new(&bytes).collect();
                        assert_eq!(got, runs_by_table(&bytes), "{b:#x} at {at} of {len} in {fill:#x}");
                    }
                }
            }
        }
        // Runs of every length from every offset, across several blocks.
        let mut state = 7u64;
        for _ in 0..2000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = (state >> 33) as usize % 300;
            let bytes: Vec<u8> = (0..len)
                .map(|i| match (state >> (i % 60)) % 5 {
                    0 => b' ',
                    1 => b'-',
                    2 => 0xe6,
                    _ => b'a' + (i % 26) as u8,
                })
                .collect();
            assert_eq!(Words::new(&bytes).collect::<Vec<_>>(), runs_by_table(&bytes), "{bytes:?}");
        }
        assert_eq!(Words::new(b"").count(), 0);
    }

    #[test]
    fn gathered_lanes_are_one_bit_per_byte_in_order() {
        for lanes in 0..=255u64 {
            let spread: u64 = (0..8).filter(|i| lanes >> i & 1 == 1).map(|i| 0x80u64 << (8 * i)).sum();
            assert_eq!(gather_lanes(spread), lanes);
        }
    }

    #[test]
    fn posting_head_len_is_what_put_posting_head_writes() {
        for delta in [0, 1, 15, 16, 2047, 2048, 1 << 20, u32::MAX] {
            for tf in [0, 1, INLINE_TF_MAX] {
                let mut out = Vec::new();
                put_posting_head(&mut out, delta, tf);
                assert_eq!(posting_head_len(delta, tf), out.len(), "delta {delta}, tf {tf}");
            }
        }
    }

    #[test]
    fn postings_joined_from_runs_equal_one_run() {
        let mut indexer = Indexer::new(0);
        let docs: Vec<DocTerms> = (0..40u32)
            .map(|i| {
                // Terms in every doc, every third doc and only this doc; doc 17 is empty.
                let text = if i == 17 { String::new() } else { format!("common w{} u{i} common", i % 3) };
                DocTerms {
                    entry: i,
                    small: SmallTerms { dict: 1, ..SmallTerms::default() },
                    body: indexer.body(&text),
                }
            })
            .collect();
        let n_terms = indexer.dict.len();
        let remap = vec![(0..n_terms as u32).collect(), Vec::new()];
        let one = fill_runs(&docs, &remap, n_terms, 1);
        for runs in [2, 3, 7] {
            let many = fill_runs(&docs, &remap, n_terms, runs);
            assert_eq!(many.len(), runs);
            for term in 0..n_terms {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                assert_eq!(join_runs(&one, term, Some(&mut a)), join_runs(&many, term, Some(&mut b)));
                assert_eq!(a, b, "term {} split in {runs} runs", indexer.dict.term(term));
            }
        }
    }

    #[test]
    fn postings_decode_to_what_was_pushed() {
        // Body-only frequencies around the inline limit, other fields, deltas of 1, 2 and 3+
        // varint bytes, and a posting at ordinal 0.
        let mut tf = [0u32; FIELDS];
        let mut postings: Vec<(u32, [u32; FIELDS])> = Vec::new();
        for (ordinal, body) in [(0, 1), (1, 7), (2, 8), (3, 200), (20, 1), (20_000, 3), (5_000_000, 9)] {
            tf[FIELDS - 1] = body;
            postings.push((ordinal, tf));
        }
        postings.push((5_000_001, [2, 0, 0, 1, 0]));
        postings.push((5_000_002, [0, 1, 0, 0, 4]));
        postings.push((5_000_003, [0, 0, 300, 0, 0]));
        let mut run = TermRun::default();
        for (ordinal, tfs) in &postings {
            let mask = (0..FIELDS).filter(|&f| tfs[f] > 0).fold(0u8, |m, f| m | 1 << f);
            run.push(*ordinal, mask, tfs.iter().copied().filter(|&t| t > 0));
        }
        let mut joined = Vec::new();
        join_runs(&[PostingRun { terms: vec![run] }], 0, Some(&mut joined));
        let mut got = Vec::new();
        decode_postings(&joined, 5_000_004, |ordinal, tfs| got.push((ordinal as u32, *tfs)));
        assert_eq!(got, postings);
        // Body-only frequencies up to 7 take one byte with their delta.
        let mut small = TermRun::default();
        small.push(0, BODY_ONLY, std::iter::once(7));
        small.push(15, BODY_ONLY, std::iter::once(1));
        assert_eq!(small.list.len(), 2);
        // A truncated list stops early; an ordinal past the documents ends it.
        let mut seen = 0;
        decode_postings(&joined[..joined.len() - 1], 5_000_004, |_, _| seen += 1);
        assert_eq!(seen, postings.len() - 1);
        seen = 0;
        decode_postings(&joined, 21, |_, _| seen += 1);
        assert_eq!(seen, 5);
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
        for data in [&b""[..], b"FSI2", b"FSI2\xff\xff\xff\xff\xff\xff\xff\xff", &[0u8; 64]] {
            let index = SearchIndex { data: data.to_vec().into() };
            assert!(index.score(&["x".to_owned()]).is_empty());
            assert!(index.terms_with_prefix("", 10).is_empty());
        }
    }
}
