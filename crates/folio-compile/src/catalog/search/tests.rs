//! Tests of the search index's text handling (`super`): tokens, identifiers and their parts,
//! stop words, fenced code, front matter, malformed index bytes.

use proptest::prelude::*;

use super::token::{MAX_STOP_WORD_BYTES, STOP_WORDS, is_stop_word};
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
    check("hugo.toml baseURL", "hugo.toml@hugo.toml hugo@hugo toml@toml baseurl@baseURL base@base url@URL");
    check("ÉCOLE Straße", "école@ÉCOLE straße@Straße");
    check(
        "status class boxes matches caches menus",
        "statu@status class@class box@boxes match@matches cache@caches menu@menus",
    );
    check("日本語の文書", "日本@日本 本語@本語 語の@語の の文@の文 文書@文書");
    check("한국어 검색", "한국@한국 국어@국어 검색@검색");
    check("a 字 b", "字@字 b@b");
    check("v0.123.0 x86_64", "v0.123.0@v0.123.0 v0@v0 123@123 0@0 x86_64@x86_64 x86@x86 64@64");
    check("...!!!", "");
}

#[test]
fn identifiers_yield_their_whole_form_then_their_parts() {
    // camelCase and PascalCase, with an upper-case run and digits; `()` is not part of it.
    check("getStaticPaths()", "getstaticpath@getStaticPaths get@get static@Static path@Paths");
    check(
        "HTMLElement Vue3Component",
        "htmlelement@HTMLElement html@HTML element@Element vue3component@Vue3Component vue3@Vue3 component@Component",
    );
    // Dotted, snake_case and `:` directives; a part that is a stop word is left out, the
    // whole form never is (it is not a word).
    check("Astro.props", "astro.props@Astro.props astro@Astro prop@props");
    check("astro.config.mjs", "astro.config.mjs@astro.config.mjs astro@astro config@config mjs@mjs");
    check(
        "snake_case client:load is_set",
        "snake_case@snake_case snake@snake case@case client:load@client:load client@client load@load is_set@is_set set@set",
    );
    check(
        "context.locals.myValue",
        "context.locals.myvalue@context.locals.myValue context@context local@locals myvalue@myValue my@my value@Value",
    );
    // A connector joins only when a word follows it: sentence ends, URLs, `__init__`.
    check(
        "End. Next: https://x.io __init__ a_ _b",
        "end@End next@Next http@https x.io@x.io x@x io@io init@init b@b",
    );
    // CJK is never part of an identifier; an identifier over 48 bytes keeps its parts.
    check("日本.config", "日本@日本 config@config");
    let long = format!("{}.b", "a".repeat(48));
    check(&long, &format!("{a}@{a} b@b", a = "a".repeat(48)));
    check(&"xY".repeat(25), "");
}

#[test]
fn bodies_join_identifiers_outside_fenced_code_only() {
    fn spans(text: &str) -> Vec<(&str, bool)> {
        let mut got = Vec::new();
        token::for_each_span(text, |span, code| got.push((&text[span], code)));
        got
    }
    let text = "Use `p.q`.\n  ```js\nlet x_y = p.q;\n```\nThen c_d.\n~~~\n```\nstill code\n";
    assert_eq!(
        spans(text),
        [
            ("Use `p.q`.\n", false),
            ("  ```js\nlet x_y = p.q;\n```\n", true),
            ("Then c_d.\n", false),
            ("~~~\n```\nstill code\n", true),
        ]
    );
    // A backtick run with a backtick after it is inline code, not a fence; a closing fence
    // must be as long as the opening one.
    assert_eq!(spans("```a``` b\n"), [("```a``` b\n", false)]);
    assert_eq!(spans("````\n```\nx\n````\ny\n"), [("````\n```\nx\n````\n", true), ("y\n", false)]);
    let mut got = Vec::new();
    tokenize_body(text, |_, _, t| got.push(t.to_owned()));
    assert_eq!(
        got.join(" "),
        "use p.q p q js let x y p.q p q then c_d c d still code",
        "`_` joins in prose and inline code, not in fenced code; `.` joins in both"
    );
}

/// [`token::for_each_span`] as a walk over every line: what the jumps to backticks and
/// tildes must find.
fn spans_line_by_line(text: &str) -> Vec<(std::ops::Range<usize>, bool)> {
    let mut out = Vec::new();
    let (mut open, mut span_start, mut at): (Option<(char, usize)>, usize, usize) = (None, 0, 0);
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim_start_matches([' ', '\t']);
        let Some(c) = trimmed.chars().next().filter(|&c| c == '`' || c == '~') else { continue };
        let run = trimmed.chars().take_while(|&x| x == c).count();
        let rest = &trimmed[run..];
        if run < 3 {
            continue;
        }
        match open {
            None if c == '~' || !rest.contains('`') => {
                if start > span_start {
                    out.push((span_start..start, false));
                }
                (span_start, open) = (start, Some((c, run)));
            }
            Some((fence, len)) if c == fence && run >= len && rest.trim().is_empty() => {
                out.push((span_start..at, true));
                (span_start, open) = (at, None);
            }
            _ => {}
        }
    }
    if at > span_start {
        out.push((span_start..at, open.is_some()));
    }
    out
}

proptest! {
    #[test]
    fn fence_spans_are_the_ones_a_line_walk_finds(
        pieces in proptest::collection::vec(
            proptest::prop_oneof![
                Just("```"), Just("~~~"), Just("`"), Just("~"), Just("\n"), Just(" "), Just("\t"),
                Just("js"), Just("x_y"), Just("é"),
            ],
            0..60,
        )
    ) {
        let text = pieces.concat();
        let mut got = Vec::new();
        token::for_each_span(&text, |span, code| got.push((span, code)));
        prop_assert_eq!(got, spans_line_by_line(&text), "{:?}", text);
    }
}

#[test]
fn query_words_group_an_identifier_with_its_parts() {
    let words = query_words("getStaticPaths() astro.config getStaticPaths the");
    let got: Vec<(&str, Vec<&str>)> =
        words.iter().map(|w| (w.term.as_str(), w.parts.iter().map(String::as_str).collect())).collect();
    assert_eq!(
        got,
        [("getstaticpath", vec!["get", "static", "path"]), ("astro.config", vec!["astro", "config"])]
    );
    assert_eq!(query_terms("Astro.props"), ["astro.props", "astro", "prop"]);
}

#[test]
fn strips_frontmatter() {
    assert_eq!(strip_frontmatter("---\ntitle: x\n---\nbody\n"), "body\n");
    assert_eq!(strip_frontmatter("no frontmatter\n"), "no frontmatter\n");
    assert_eq!(strip_frontmatter("---\nunclosed\n"), "---\nunclosed\n");
    let mdx = "---\ntitle: x\n---\n\nimport Since from '~/components/Since.astro';\nimport {\n  Tabs,\n  TabItem,\n} from '@astrojs/starlight/components';\nexport const x = { a: 1 };\n\n# Routing\n\nimport is a word here.\n";
    assert_eq!(body_of("docs/a.mdx", mdx), "# Routing\n\nimport is a word here.\n");
    assert_eq!(body_of("docs/a.md", mdx), &mdx[17..], "only MDX has module statements");
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
        let index = SearchIndex::new(data.to_vec().into());
        assert!(index.score(&query_words("x")).is_empty());
        assert!(index.terms_with_prefix("", 10).is_empty());
    }
}
