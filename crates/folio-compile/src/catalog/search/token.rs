//! The tokenizer both sides share: what a token is (Unicode-aware words, CJK bigrams), the stop
//! words and the light plural stemmer (rules in the parent module's docs). The compile-time
//! indexer repeats this loop with a memo for speed, and a property test holds it to this one.
//!
//! Pure: text in, tokens to a callback.

use super::MAX_TERM_BYTES;
use crate::catalog::mdx::Fence;

/// English words too common to help ranking.
pub(super) const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how", "i", "if",
    "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when", "where",
    "which", "with", "you", "your",
];

/// Length in bytes of the longest stop word (`where`, `which`); checked by a unit test.
pub(super) const MAX_STOP_WORD_BYTES: usize = 5;

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
pub(super) fn is_stop_word(term: &str) -> bool {
    term.len() <= MAX_STOP_WORD_BYTES && STOP_KEYS.contains(&pack_short(term.as_bytes()))
}

/// True for a Han, kana or Hangul character: scripts written without spaces between words.
pub fn is_cjk(c: char) -> bool {
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

/// True for a byte that joins two words into one identifier (`astro.config`, `snake_case`,
/// `client:load`) when a word character follows it; in fenced code (`in_code`), only `.` and `:`
/// do (see `tokenize_body`, which the tests hold the indexer to).
pub(crate) fn is_connector(b: u8, in_code: bool) -> bool {
    matches!(b, b'.' | b':') || (b == b'_' && !in_code)
}

/// Like [`tokenize`], but stops as soon as `f` returns `false` (snippets stop at the first window
/// that holds every query term instead of tokenizing a whole long document).
///
/// Tokens come in text order, an identifier's whole form before its parts: `Astro.props` yields
/// `astro.props` (0..11), `astro` (0..5), `prop` (6..11), and `getStaticPaths` yields
/// `getstaticpath` (0..14), then `get`, `static`, `path`. A part's range lies inside its
/// identifier's, which is how [`query_words`] groups them.
pub fn tokenize_until(text: &str, keep_stop_words: bool, mut f: impl FnMut(usize, usize, &str) -> bool) {
    // One buffer for every token: case folding writes into it, so tokenizing allocates nothing
    // per token (this runs over every byte of every document at compile time).
    let mut term = String::new();
    tokenize_span(text, 0..text.len(), false, keep_stop_words, &mut term, &mut f);
}

/// How a markdown body is indexed: as [`tokenize`] (without stop words), except that inside
/// fenced code blocks (a line of three or more backticks or tildes opens and closes one) `_`
/// does not join words into identifiers, while `.` and `:` still do. In a code sample, `Astro.url` or `os.path` is the API a reader looks up,
/// but `translation_thread = release(x)` names a local variable nobody searches for: joining
/// those multiplied a large generated tree's distinct terms sevenfold and its build time by a
/// third. In prose, inline code, headings and titles, `snake_case` is joined.
#[cfg(test)]
pub(crate) fn tokenize_body(text: &str, mut f: impl FnMut(usize, usize, &str)) {
    let mut term = String::new();
    let mut emit = |start: usize, end: usize, t: &str| {
        f(start, end, t);
        true
    };
    for_each_span(text, |span, code| {
        tokenize_span(text, span, code, false, &mut term, &mut emit);
    });
}

/// Calls `f(range, in_code)` for the consecutive spans of whole lines of `text` that are inside
/// a fenced code block (its fence lines included) or outside one: a line opens or closes a
/// fence after any indentation (lists and JSX indent them) by [`Fence`]'s rule, and an unclosed
/// fence runs to the end.
pub(crate) fn for_each_span(text: &str, mut f: impl FnMut(std::ops::Range<usize>, bool)) {
    let bytes = text.as_bytes();
    let mut open: Option<Fence> = None;
    let mut span_start = 0;
    // Only lines with a backtick or a tilde can be fences: jump to them (most bodies have few),
    // instead of walking every line.
    let mut from = 0;
    while let Some(at) = memchr::memchr2(b'`', b'~', &bytes[from..]).map(|i| from + i) {
        let start = memchr::memrchr(b'\n', &bytes[from..at]).map_or(from, |i| from + i + 1);
        let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1);
        from = end;
        if !bytes[start..at].iter().all(|&b| b == b' ' || b == b'\t') {
            continue;
        }
        let line = &bytes[at..end];
        match open {
            None => {
                if let Some(fence) = Fence::opened_by(line) {
                    if start > span_start {
                        f(span_start..start, false);
                    }
                    span_start = start;
                    open = Some(fence);
                }
            }
            Some(fence) => {
                if fence.closed_by(line) {
                    f(span_start..end, true);
                    span_start = end;
                    open = None;
                }
            }
        }
    }
    if bytes.len() > span_start {
        f(span_start..bytes.len(), open.is_some());
    }
}

/// Tokenizes `text[span]` (whole lines, or all of `text`), joining words into identifiers by
/// the connectors of fenced code when `in_code` ([`is_connector`]); `false` when `f` asked to
/// stop.
fn tokenize_span(
    text: &str,
    span: std::ops::Range<usize>,
    in_code: bool,
    keep_stop_words: bool,
    term: &mut String,
    f: &mut impl FnMut(usize, usize, &str) -> bool,
) -> bool {
    let bytes = &text.as_bytes()[..span.end];
    let mut pos = span.start;
    while pos < bytes.len() {
        let b = bytes[pos];
        let c = if b < 0x80 {
            b as char
        } else {
            // `pos` is on a char boundary: only whole chars are consumed.
            text[pos..].chars().next().expect("a char at a boundary")
        };
        if !c.is_alphanumeric() {
            pos += c.len_utf8();
            continue;
        }
        if is_cjk(c) {
            match cjk_run(text, pos, term, f) {
                Some(end) => pos = end,
                None => return false,
            }
            continue;
        }
        // A word, and the words connectors join to it: one identifier. (A span ends with a
        // line end or the text, so no word runs past it.)
        let start = pos;
        let mut end = word_end(text, pos);
        let mut compound = false;
        while let Some(next) = joined_word(text, end, in_code) {
            end = word_end(text, next);
            compound = true;
        }
        pos = end;
        if !emit_identifier(text, start..end, compound, keep_stop_words, term, f) {
            return false;
        }
    }
    true
}

/// A CJK run from `start`: overlapping bigrams, or the lone character. Returns where the run
/// ends, or `None` when `f` asked to stop.
fn cjk_run(
    text: &str,
    start: usize,
    term: &mut String,
    f: &mut impl FnMut(usize, usize, &str) -> bool,
) -> Option<usize> {
    let mut chars = text[start..].char_indices().map(|(i, c)| (start + i, c));
    let (_, first) = chars.next()?;
    let mut prev = (start, first);
    let mut end = start + first.len_utf8();
    let mut lone = true;
    for (i, next) in chars {
        if !is_cjk(next) || !next.is_alphanumeric() {
            break;
        }
        end = i + next.len_utf8();
        term.clear();
        term.push(prev.1);
        term.push(next);
        if !f(prev.0, end, term) {
            return None;
        }
        prev = (i, next);
        lone = false;
    }
    if lone {
        term.clear();
        term.push(first);
        if !f(start, end, term) {
            return None;
        }
    }
    Some(end)
}

/// The end of the word (a run of alphanumeric characters that are not CJK) starting at `pos`.
fn word_end(text: &str, pos: usize) -> usize {
    let bytes = text.as_bytes();
    let mut end = pos;
    loop {
        while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
            end += 1;
        }
        match text.get(end..).and_then(|rest| rest.chars().next()) {
            Some(c) if !c.is_ascii() && c.is_alphanumeric() && !is_cjk(c) => end += c.len_utf8(),
            _ => return end,
        }
    }
}

/// Where the next word of an identifier starts, when the word ending at `end` is followed by a
/// connector and then a word character (not CJK).
fn joined_word(text: &str, end: usize, in_code: bool) -> Option<usize> {
    if !is_connector(*text.as_bytes().get(end)?, in_code) {
        return None;
    }
    let c = text.get(end + 1..)?.chars().next()?;
    (c.is_alphanumeric() && !is_cjk(c)).then_some(end + 1)
}

/// Lowercases `word` into `term` (ASCII in place; otherwise full Unicode case folding).
fn lower_into(term: &mut String, word: &str) {
    term.clear();
    if word.is_ascii() {
        term.push_str(word);
        term.make_ascii_lowercase();
    } else {
        term.extend(word.chars().flat_map(char::to_lowercase));
    }
}

/// Emits an identifier: for a compound (`astro.config.mjs`), its whole form (unstemmed; left
/// out past [`MAX_TERM_BYTES`]), then each word of it as [`emit_word`] does.
fn emit_identifier(
    text: &str,
    range: std::ops::Range<usize>,
    compound: bool,
    keep_stop_words: bool,
    term: &mut String,
    f: &mut impl FnMut(usize, usize, &str) -> bool,
) -> bool {
    if !compound {
        return emit_word(text, range.start, range.end, keep_stop_words, term, f);
    }
    lower_into(term, &text[range.clone()]);
    if term.len() <= MAX_TERM_BYTES && !f(range.start, range.end, term) {
        return false;
    }
    let mut at = range.start;
    while at < range.end {
        let end = word_end(text, at);
        if !emit_word(text, at, end, keep_stop_words, term, f) {
            return false;
        }
        // Past the connector.
        at = end + 1;
    }
    true
}

/// Where the camelCase hump starting at `from` in the ASCII `word` ends: before an upper-case
/// letter that follows a lower-case letter or a digit (`get|Static`), or that starts a
/// capitalised word after an upper-case run (`HTML|Element`).
fn hump_end(word: &[u8], from: usize) -> usize {
    (from + 1..word.len())
        .find(|&i| {
            let (before, at) = (word[i - 1], word[i]);
            at.is_ascii_uppercase()
                && (before.is_ascii_lowercase()
                    || before.is_ascii_digit()
                    || (before.is_ascii_uppercase() && word.get(i + 1).is_some_and(u8::is_ascii_lowercase)))
        })
        .unwrap_or(word.len())
}

/// Emits one word (`text[start..end]`, alphanumeric, not CJK): lowercased, filtered and stemmed
/// by [`emit_term`], then, for an ASCII camelCase word (`getStaticPaths`), each of its humps
/// the same way. `false` when `f` asked to stop.
fn emit_word(
    text: &str,
    start: usize,
    end: usize,
    keep_stop_words: bool,
    term: &mut String,
    f: &mut impl FnMut(usize, usize, &str) -> bool,
) -> bool {
    let word = &text[start..end];
    lower_into(term, word);
    if !emit_term(term, start, end, keep_stop_words, f) {
        return false;
    }
    // A word too long to index is noise (hashes, base64), not an identifier to split.
    if word.len() > MAX_TERM_BYTES || !word.is_ascii() {
        return true;
    }
    let bytes = word.as_bytes();
    let mut at = hump_end(bytes, 0);
    if at == bytes.len() {
        return true;
    }
    let mut from = 0;
    while from < bytes.len() {
        lower_into(term, &word[from..at]);
        if !emit_term(term, start + from, start + at, keep_stop_words, f) {
            return false;
        }
        from = at;
        at = hump_end(bytes, from);
    }
    true
}

/// Filters (length, stop words), stems and emits one lowercased non-CJK word; `false` when `f`
/// asked to stop.
fn emit_term(
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

/// One word of a query: the term it is indexed as and, for an identifier, the terms of its
/// parts, which a document also matches by (with less weight): `astro.config` → `astro`,
/// `config`; `getStaticPaths` → `get`, `static`, `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryWord {
    /// The word's own term (an identifier's whole form).
    pub term: String,
    /// Its parts' terms, distinct, without `term`; empty for a plain word.
    pub parts: Vec<String>,
}

/// The distinct words of a query, in first-occurrence order. Stop words are dropped unless the
/// query has nothing else.
pub fn query_words(query: &str) -> Vec<QueryWord> {
    let words = |keep_stop_words| {
        let mut words: Vec<QueryWord> = Vec::new();
        // The range of the last word, and its index in `words` (`None` for a repeated word,
        // whose parts are already there).
        let mut last: Option<(usize, usize, Option<usize>)> = None;
        tokenize(query, keep_stop_words, |start, end, term| {
            // A token inside the last word's range is one of its parts (tokens come whole
            // first: `tokenize_until`).
            if let Some((s, e, at)) = last
                && s <= start
                && end <= e
                && (start, end) != (s, e)
            {
                if let Some(word) = at.map(|i| &mut words[i])
                    && word.term != term
                    && !word.parts.iter().any(|p| p == term)
                {
                    word.parts.push(term.to_owned());
                }
                return;
            }
            let at = match words.iter().any(|w| w.term == term) {
                true => None,
                false => {
                    words.push(QueryWord { term: term.to_owned(), parts: Vec::new() });
                    Some(words.len() - 1)
                }
            };
            last = Some((start, end, at));
        });
        words
    };
    let found = words(false);
    if found.is_empty() { words(true) } else { found }
}

/// The distinct terms of a query, words and their parts, in first-occurrence order (what
/// snippets mark). Stop words are dropped unless the query has nothing else.
pub fn query_terms(query: &str) -> Vec<String> {
    word_terms(&query_words(query))
}

/// The distinct terms of `words` and their parts, in order.
pub fn word_terms(words: &[QueryWord]) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for term in words.iter().flat_map(|w| std::iter::once(&w.term).chain(&w.parts)) {
        if !terms.contains(term) {
            terms.push(term.clone());
        }
    }
    terms
}
