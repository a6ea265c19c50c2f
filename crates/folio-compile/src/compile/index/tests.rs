use proptest::prelude::Just;

use super::postings::{PostingRun, TermRun};
use super::scan::{Words, gather_lanes, is_word_byte};
use super::terms::{Key, ascii_key, term_hash};
use super::*;
use crate::catalog::search::{
    BODY_ONLY, INLINE_TF_MAX, decode_postings, get_varint, tokenize, tokenize_body,
};

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

/// What [`tokenize`] yields over each of `texts` (a field's): the token count, and each
/// distinct term with its frequency, sorted by term (what an [`Indexer`] must count, in any
/// order: the order of a text's terms never reaches the index).
fn tokens_of(texts: &[&str]) -> (u32, Vec<(String, u32)>) {
    let mut terms: Vec<(String, u32)> = Vec::new();
    let mut n = 0;
    for text in texts {
        tokenize(text, false, |_, _, t| count_term(&mut n, &mut terms, t));
    }
    terms.sort();
    (n, terms)
}

/// [`tokens_of`] for a body: what [`tokenize_body`] yields.
fn body_tokens_of(text: &str) -> (u32, Vec<(String, u32)>) {
    let mut terms: Vec<(String, u32)> = Vec::new();
    let mut n = 0;
    tokenize_body(text, |_, _, t| count_term(&mut n, &mut terms, t));
    terms.sort();
    (n, terms)
}

fn count_term(n: &mut u32, terms: &mut Vec<(String, u32)>, t: &str) {
    *n += 1;
    match terms.iter_mut().find(|(x, _)| x == t) {
        Some((_, tf)) => *tf += 1,
        None => terms.push((t.to_owned(), 1)),
    }
}

/// A body's `(term, frequency)` pairs, with the terms spelled out from `indexer`'s dictionary,
/// sorted by term.
fn terms_of(indexer: &Indexer, body: &BodyTerms) -> Vec<(String, u32)> {
    let mut terms = Vec::new();
    let mut at = 0;
    while at < body.pairs.len() {
        let id = get_varint(&body.pairs, &mut at);
        let tf = get_varint(&body.pairs, &mut at);
        terms.push((indexer.dict.term(id as usize).to_owned(), tf));
    }
    terms.sort();
    terms
}

/// What `indexer` counts over `texts` as one field: the token count, and `(term, frequency)`
/// sorted by term.
fn counted(indexer: &mut Indexer, texts: &[&str]) -> (u32, Vec<(String, u32)>) {
    let mut got = Vec::new();
    let tokens = indexer.count(texts.iter().copied(), false, |id, tf| got.push((id, tf)));
    let mut got: Vec<(String, u32)> =
        got.into_iter().map(|(id, tf)| (indexer.dict.term(id as usize).to_owned(), tf)).collect();
    got.sort();
    (tokens, got)
}

#[test]
fn indexer_counts_the_tokens_tokenize_yields() {
    let text = "The Shortcodes and shortcodes: taxonomies, Überblick 日本語 x2 the_end \
                averyveryveryveryveryveryveryveryveryveryverylongwordthatisdropped";
    let (n, expected) = body_tokens_of(text);
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
    let (n, expected) = body_tokens_of(&text);
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
    assert_eq!(counted(&mut indexer, &texts), (n, expected));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// On any text (identifiers with connectors and camelCase, stop words, Unicode case
    /// folding, CJK, words of 16 and 17 bytes around the memo's limit, separators, code
    /// fences), the indexer counts exactly the tokens and terms [`tokenize_body`] yields for a
    /// body and [`tokenize`] for a field.
    #[test]
    fn indexer_counts_what_tokenize_yields_on_any_text(
        pieces in proptest::collection::vec(
            proptest::prop_oneof![
                Just("getStaticPaths"), Just("HTMLElement"), Just("the"), Just("Is"), Just("a"),
                Just("Straße"), Just("ÉCOLE"), Just("日本語"), Just("검색"), Just("x86"),
                Just("abcdefghijklmnop"), Just("abcdefghijklmnopq"), Just("Menus"), Just("é"),
                Just("."), Just("_"), Just(":"), Just(" "), Just("-"), Just("()"), Just("\n"),
                Just("—"), Just("0"), Just("\n```js\n"), Just("\n~~~~\n"), Just("\n  ```\n"),
                Just("```"), Just("snake_case"),
            ],
            0..40,
        ),
        cut in 0usize..64,
    ) {
        let text: String = pieces.concat();
        let (n, expected) = body_tokens_of(&text);
        let mut indexer = Indexer::new(0);
        let body = indexer.body(&text);
        proptest::prop_assert_eq!((body.tokens, terms_of(&indexer, &body)), (n, expected), "{:?}", text);
        // Split in two at a char boundary and counted as one field of two texts.
        let mut at = cut.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let texts = [&text[..at], &text[at..]];
        let (n, expected) = tokens_of(&texts);
        proptest::prop_assert_eq!(counted(&mut indexer, &texts), (n, expected), "{:?}", texts);
    }
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
        for len in [1, 19, 63, 64, 65, 128, 130] {
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
    assert_eq!(Words::new(b"").count(), 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1_000))]

    /// Runs of every length from every offset, across several blocks: the SWAR scanner finds
    /// the words the byte table finds.
    #[test]
    fn words_are_the_runs_the_byte_table_finds(
        bytes in proptest::collection::vec(
            proptest::prop_oneof![Just(b' '), Just(b'-'), Just(0xe6u8), (b'a'..=b'z')],
            0..300,
        )
    ) {
        proptest::prop_assert_eq!(Words::new(&bytes).collect::<Vec<_>>(), runs_by_table(&bytes), "{:?}", bytes);
    }
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
