//! Snippets: the window of a hit's text that best shows a query's terms, cut at word or sentence
//! boundaries in every script, with the matched terms marked `**like this**` (adjacent marks
//! merged into one); and the three-sentence cut of a record's description.
//!
//! Pure: text and terms in, a string out. Must not rank (that is `search`).

use crate::catalog::search::{is_cjk, tokenize, tokenize_until};

/// Target length of a snippet, in bytes.
const SNIPPET_BYTES: usize = 220;
/// How much of a document is scanned for the snippet window.
const SNIPPET_SCAN_BYTES: usize = 48 * 1024;

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
pub(super) fn snippet(text: &str, terms: &[String]) -> Option<(String, usize)> {
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
    // Open after a sentence end before the match, else at the first word boundary, so the
    // snippet does not open mid-word (in any script).
    if a + start > 0 {
        start = match sentence_end(&text[start..first.0]) {
            Some(at) => start + at,
            None => (start..first.0)
                .filter(|&p| text.is_char_boundary(p))
                .find(|&p| is_boundary(full, a + p))
                .unwrap_or(first.0),
        };
    }
    let mut end = (start + SNIPPET_BYTES).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    // Close at a sentence end that keeps at least half the snippet, else at the last word
    // boundary, and never before the first match.
    let keep = start.max(first.1);
    if a + end < full_len && keep < end {
        let mut half = (start + SNIPPET_BYTES / 2).clamp(keep, end);
        while !text.is_char_boundary(half) {
            half += 1;
        }
        end = match sentence_end(&text[half..end]) {
            Some(at) => half + at,
            None => (keep..=end)
                .rev()
                .filter(|&p| text.is_char_boundary(p))
                .find(|&p| is_boundary(full, a + p))
                .unwrap_or(end),
        };
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

/// Where a snippet may open or close in `text`: between two characters that are not both part
/// of one word (one of them is not a letter or digit, or either is CJK, whose words are not
/// separated by spaces).
fn is_boundary(text: &str, at: usize) -> bool {
    let (Some(before), Some(after)) = (text[..at].chars().next_back(), text[at..].chars().next()) else {
        return true;
    };
    !before.is_alphanumeric() || !after.is_alphanumeric() || is_cjk(before) || is_cjk(after)
}

/// The offset just past the last sentence end in `text` (`.`, `!` or `?` before a space or line
/// end, `。`, `！`, `？`, or a blank line); `None` when there is none.
fn sentence_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    text.char_indices().rev().find_map(|(i, c)| {
        let after = i + c.len_utf8();
        let ends = match c {
            '。' | '！' | '？' => true,
            '.' | '!' | '?' => bytes.get(after).is_some_and(|b| b.is_ascii_whitespace()),
            '\n' => bytes.get(after) == Some(&b'\n'),
            _ => false,
        };
        ends.then_some(after)
    })
}

/// Marks every token of `text` matching a query term as `**token**`, one mark over adjacent
/// matches (overlapping CJK bigrams, an identifier's parts, words with only blanks between
/// them), and collapses whitespace. The text's own `**` are dropped, so they cannot pair with
/// the marks. A lone CJK bigram is not marked when the query has longer CJK text: `ント` in
/// `クライアント` is not a match for `コンポーネント`.
pub(super) fn mark(text: &str, terms: &[String]) -> String {
    let cjk_bigrams = terms.iter().filter(|t| t.chars().count() == 2 && t.chars().all(is_cjk)).count();
    // (start, end, tokens merged)
    let mut marks: Vec<(usize, usize, usize)> = Vec::new();
    tokenize(text, true, |start, end, term| {
        if !matches(term, terms) {
            return;
        }
        match marks.last_mut() {
            Some(last) if start <= last.1 || text[last.1..start].trim().is_empty() => {
                last.1 = last.1.max(end);
                last.2 += 1;
            }
            _ => marks.push((start, end, 1)),
        }
    });
    if cjk_bigrams > 1 {
        marks.retain(|&(start, end, n)| n > 1 || !text[start..end].chars().all(is_cjk));
    }
    let mut out = String::with_capacity(text.len() + 4 * marks.len());
    let mut at = 0;
    for (start, end, _) in marks {
        out.push_str(&text[at..start].replace("**", ""));
        out.push_str("**");
        out.push_str(&text[start..end]);
        out.push_str("**");
        at = end;
    }
    out.push_str(&text[at..].replace("**", ""));
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts text to at most three sentences (resource descriptions, `content/docs/reference/mcp.md`).
///
/// A sentence ends at `.`, `!`, `?` or `。` followed by whitespace or the end. Scanned as bytes
/// (every `resources/list` record runs this): ASCII bytes and the lead byte of `。` never occur
/// inside another character's UTF-8 sequence, so each match is at a character boundary.
pub(super) fn three_sentences(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::search::query_terms;

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
            "25 Install the binary. Then **configure menus**.",
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

    #[test]
    fn adjacent_marks_merge_in_every_script() {
        // Overlapping bigrams are one mark, not `**コン****ポー****ネン**ト`.
        check(
            "Astroコンポーネントは、HTMLです。",
            "コンポーネント",
            "5 Astro**コンポーネント**は、HTMLです。",
        );
        // An identifier's parts, and words with only blanks between them.
        check("Use getStaticPaths() here.", "static paths", "7 Use get**StaticPaths**() here.");
        check("Deploy your site to Netlify.", "deploy site", "0 **Deploy** your **site** to Netlify.");
        check("Get started. Getting started!", "getting started", "4 Get **started**. **Getting started**!");
    }

    proptest::proptest! {
        /// On any mix of scripts, sentence ends and identifiers, a snippet cuts at char
        /// boundaries (no panic), points at a match, and holds only the document's words.
        #[test]
        fn snippets_cut_any_text_cleanly(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::Just("コンポーネント"), proptest::prelude::Just("。"),
                    proptest::prelude::Just("あい"), proptest::prelude::Just(" "),
                    proptest::prelude::Just("word"), proptest::prelude::Just(". "),
                    proptest::prelude::Just("é"), proptest::prelude::Just("getStaticPaths"),
                    proptest::prelude::Just("\n\n"), proptest::prelude::Just("！"),
                ],
                0..300,
            ),
            query in proptest::prop_oneof![
                proptest::prelude::Just("コンポーネント"), proptest::prelude::Just("word static"),
                proptest::prelude::Just("é あい"),
            ],
        ) {
            let text = pieces.concat();
            if let Some((got, at)) = snippet(&text, &query_terms(query)) {
                proptest::prop_assert!(text.is_char_boundary(at) && at < text.len());
                let plain = got.replace("**", "").replace('…', "");
                for word in plain.split(' ') {
                    proptest::prop_assert!(text.contains(word), "{:?} not in the text", word);
                }
            }
        }
    }

    #[test]
    fn snippets_open_and_close_at_sentence_or_word_boundaries() {
        // Japanese: after the `。` before the match, and at a `。` after it.
        let ja = format!(
            "{}コンポーネントを使います。{}",
            "あいうえおかきくけこ。".repeat(20),
            "さしすせそ。".repeat(40)
        );
        let (got, _) = snippet(&ja, &query_terms("コンポーネント")).unwrap();
        assert!(got.starts_with("…**コンポーネント**を使います。"), "{got}");
        assert!(got.ends_with("。…"), "{got}");
        // English: after the sentence end before the match; at a word boundary after it.
        let en =
            format!("{}The needle is here and{}", "Some words here. ".repeat(20), " more words".repeat(40));
        let (got, _) = snippet(&en, &query_terms("needle")).unwrap();
        assert!(got.starts_with("…The **needle** is here"), "{got}");
        assert!(got.ends_with(" words…") || got.ends_with(" more…"), "{got}");
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
