//! The tokenizer both sides share: what a token is (Unicode-aware words, CJK bigrams), the stop
//! words and the light plural stemmer (rules in the parent module's docs). The compile-time
//! indexer repeats this loop with a memo for speed, and a property test holds it to this one.
//!
//! Pure: text in, tokens to a callback.

use super::MAX_TERM_BYTES;

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
