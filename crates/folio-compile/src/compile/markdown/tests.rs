use super::*;

/// Renders what `analyze` found, one item a line, so tests compare short strings.
fn render(md: &Markdown) -> String {
    let mut out = Vec::new();
    if let Some(title) = &md.title {
        out.push(format!("title {title}"));
    }
    if let Some(p) = &md.first_paragraph {
        out.push(format!("para {p}"));
    }
    for s in &md.sections {
        out.push(format!("h{} {}-{} #{} {}", s.level, s.line_start, s.line_end, s.id, s.title));
    }
    for l in &md.links {
        let kind = match l.kind {
            LinkKind::Relative => "rel",
            LinkKind::SiteAbsolute => "abs",
            LinkKind::Wiki => "wiki",
            LinkKind::Anchor => "anchor",
            LinkKind::External => "ext",
        };
        let anchor = l.anchor().map(|a| format!(" #{a}")).unwrap_or_default();
        let include = if l.include { " include" } else { "" };
        out.push(format!("{}:{} {kind} {} [{}]{anchor}{include}", l.line, l.column, l.target, l.path()));
    }
    for id in &md.term_ids {
        out.push(format!("term-id {id}"));
    }
    for id in &md.html_ids {
        out.push(format!("html-id {id}"));
    }
    out.join("\n")
}

#[track_caller]
fn check(input: &str, expected: &str) {
    check_at(input, 1, expected);
}

#[track_caller]
fn check_at(input: &str, first_line: u32, expected: &str) {
    let actual = render(&analyze(input, first_line));
    assert_eq!(actual, expected.trim(), "\ninput:\n{input}\n");
}

/// Only the links, one a line.
#[track_caller]
fn check_links(input: &str, expected: &str) {
    let md = analyze(input, 1);
    let only = Markdown { links: md.links, ..Markdown::default() };
    assert_eq!(render(&only), expected.trim(), "\ninput:\n{input}\n");
}

#[track_caller]
fn check_slug(text: &str, expected: &str) {
    assert_eq!(slug(text), expected, "slug of {text:?}");
}

#[track_caller]
fn check_ids(input: &str, expected: &str) {
    let ids: Vec<_> = analyze(input, 1).sections.into_iter().map(|s| s.id).collect();
    assert_eq!(ids.join(" "), expected, "\ninput:\n{input}\n");
}

#[test]
fn slugs_follow_github() {
    check_slug("Hello World", "hello-world");
    check_slug("Smileys & Emotion", "smileys--emotion");
    check_slug("What's new?", "whats-new");
    check_slug("  padded  ", "--padded--");
    check_slug("snake_case and kebab-case", "snake_case-and-kebab-case");
    check_slug("C++ / Rust (2024)", "c--rust-2024");
    check_slug("v1.2.3", "v123");
    check_slug("`code` in heading", "code-in-heading");
    check_slug("Émoji 🎉 party", "émoji--party");
    check_slug("日本語の見出し", "日本語の見出し");
    check_slug("中文，标点。", "中文标点");
    check_slug("Ünïcödé Straße", "ünïcödé-straße");
    check_slug("ΣΊΣΥΦΟΣ", "σίσυφος");
    check_slug("हिन्दी भाषा", "हिन्दी-भाषा");
    check_slug("cafe\u{301}", "cafe\u{301}");
    check_slug("x² + ½", "x--");
    check_slug("tab\there", "tabhere");
    check_slug("non\u{a0}breaking", "nonbreaking");
    check_slug("🎉", "");
}

#[test]
fn duplicate_headings_get_numbered_like_github() {
    check_ids("# A\n## A\n## A", "a a-1 a-2");
    check_ids("# a\n# a\n# a-1", "a a-1 a-1-1");
    check_ids("# Foo!\n# foo", "foo foo-1");
}

#[test]
fn explicit_heading_ids_are_honoured() {
    check_ids("## Install {#setup}\n## Setup", "setup setup-1");
    check_ids("## Title {#custom-id .class}", "custom-id");
    check_ids("## Options {#1}", "1");
    // Fumadocs's `[#id]`, with or without a space before it (its rule is `\s*\[#…]\s*$`).
    check_ids("## Usage [#usage-id]\n## Revalidate on Mount[#on-mount]", "usage-id on-mount");
    check_ids("## See [#a b]", "see-a-b");
}

#[test]
fn definition_terms_get_ids_from_the_heading_counter() {
    check(
        "`options`\n: (`map`) the options\n\n## Options\n\nStep 2\n: do it",
        "h2 4-7 #options-1 Options\nterm-id options\nterm-id step-2",
    );
}

#[test]
fn heading_text_drops_markup_but_keeps_code() {
    check(
        "# The `folio` *CLI* [guide](x.md)",
        "title The folio CLI guide\nh1 1-1 #the-folio-cli-guide The folio CLI guide\n1:29 rel x.md [x.md]",
    );
    check("## Foo <small>bar</small>", "h2 1-1 #foo-bar Foo bar");
}

#[test]
fn sections_span_to_the_next_heading_of_same_or_higher_level() {
    check(
        "# Top\nintro\n## A\na\n### A.1\nx\n## B\nb\n",
        "title Top\npara intro\nh1 1-8 #top Top\nh2 3-6 #a A\nh3 5-6 #a1 A.1\nh2 7-8 #b B",
    );
}

#[test]
fn section_lines_count_the_frontmatter() {
    check_at("# Title\n\n## Next\ntext", 5, "title Title\npara text\nh1 5-8 #title Title\nh2 7-8 #next Next");
}

#[test]
fn last_section_ends_at_the_last_line_without_a_trailing_newline() {
    check("## A\nx", "para x\nh2 1-2 #a A");
    check("## A\nx\n\n", "para x\nh2 1-3 #a A");
}

#[test]
fn setext_headings_start_on_their_text_line() {
    check("Title\n=====\n\nSub\n---\n", "title Title\nh1 1-5 #title Title\nh2 4-5 #sub Sub");
}

#[test]
fn crlf_bodies_count_lines_and_columns_the_same() {
    check(
        "# T\r\n\r\nSee [x](a.md).\r\n## B\r\n",
        "title T\npara See x.\nh1 1-4 #t T\nh2 4-4 #b B\n3:9 rel a.md [a.md]",
    );
}

#[test]
fn first_paragraph_is_plain_text_of_the_first_top_level_paragraph() {
    check("> quoted\n\nReal **bold** `code`\nnext line.\n\nSecond.", "para Real bold code next line.");
    check("- item\n\n![](img.png)\n\nText.", "para Text.\n3:5 rel img.png [img.png]");
    check("Term\n: defined\n\nBody.", "para Body.\nterm-id term");
}

#[test]
fn links_of_every_kind_with_line_and_column() {
    check_links("[a](../x.md#sec)", "1:5 rel ../x.md#sec [../x.md] #sec");
    check_links("[a](./x)", "1:5 rel ./x [./x]");
    check_links("see [a](/guides/install/)", "1:9 abs /guides/install/ [/guides/install/]");
    check_links("[a](#local)", "1:5 anchor #local [] #local");
    check_links("[a](https://e.com/x#y)", "1:5 ext https://e.com/x#y [https://e.com/x] #y");
    check_links(
        "[a](mailto:me@e.com) [b](tel:+123)",
        "1:5 ext mailto:me@e.com [mailto:me@e.com]\n1:26 ext tel:+123 [tel:+123]",
    );
    check_links("[a](//cdn.e.com/x.js)", "1:5 ext //cdn.e.com/x.js [//cdn.e.com/x.js]");
    check_links("[a]( <with space.md> \"t\")", "1:7 rel with space.md [with space.md]");
    check_links("[a](x.md 'title')", "1:5 rel x.md [x.md]");
    check_links("[a]()", "1:5 anchor  []");
}

#[test]
fn columns_count_characters_not_bytes() {
    check_links("日本 [é](x.md)", "1:8 rel x.md [x.md]");
}

#[test]
fn images_are_links() {
    check_links("![alt](img/a.png)", "1:8 rel img/a.png [img/a.png]");
    check_links("[![badge](b.svg)](https://ci)", "1:11 rel b.svg [b.svg]\n1:19 ext https://ci [https://ci]");
}

#[test]
fn link_text_with_brackets_and_code() {
    check_links("[`a](b)` x](y.md)", "1:13 rel y.md [y.md]");
    check_links("[a\\]](y.md)", "1:7 rel y.md [y.md]");
}

#[test]
fn reference_links_point_at_their_definition() {
    check_links("[a][r] and [R][]\n\n[r]: /x/ \"t\"", "3:6 abs /x/ [/x/]\n3:6 abs /x/ [/x/]");
    check_links("[short]\n\n[short]:\n  <../y.md#z>", "4:4 rel ../y.md#z [../y.md] #z");
}

#[test]
fn autolinks_are_external() {
    check_links(
        "<https://e.com> <me@e.com>",
        "1:2 ext https://e.com [https://e.com]\n1:18 ext mailto:me@e.com [mailto:me@e.com]",
    );
}

#[test]
fn wiki_links() {
    check_links("[[Target]]", "1:3 wiki Target [Target]");
    check_links("x [[Some Page|label]] y", "1:5 wiki Some Page [Some Page]");
    check_links("[[Page#Section]]", "1:3 wiki Page#Section [Page] #Section");
    check_links("![[diagram.png]]", "1:4 wiki diagram.png [diagram.png]");
    // The path is trimmed, and taken before the anchor; the target stays as written.
    check_links("[[ Some Page #Sec]]", "1:3 wiki  Some Page #Sec [Some Page] #Sec");
    check_links("[[ ]]", "1:3 wiki   []");
    // An email autolink is external whatever it holds.
    check_links("<a#b@e.com>", "1:2 ext mailto:a#b@e.com [mailto:a#b@e.com]");
}

#[test]
fn wiki_links_split_across_text_runs_are_found() {
    // Emphasis and escapes split the text into several events.
    check_links("[[my_*page*]]", "1:3 wiki my_*page* [my_*page*]");
    check_links("[[a\\_b|*label*]]", "1:3 wiki a\\_b [a\\_b]");
    check_links("line\n[[multi\nline]]", "2:3 wiki multi\nline [multi\nline]");
}

#[test]
fn links_in_code_are_ignored() {
    check_links("`[[Target]]` and `[a](b.md)`", "");
    check_links("```\n[[Target]]\n[a](b.md)\n```", "");
    check_links("    [a](b.md)", "");
}

#[test]
fn link_lines_count_the_frontmatter() {
    let md = analyze("text\n\n  [a](b.md)", 4);
    assert_eq!((md.links[0].line, md.links[0].column), (6, 7));
}

#[test]
fn byte_order_mark_is_not_a_column() {
    check_links("\u{feff}[a](b.md)", "1:5 rel b.md [b.md]");
}

#[test]
fn html_ids_are_anchors() {
    check(
        "<a id=\"one\"></a>\n\ntext <span name='two'>x</span> <b data-id=\"no\">",
        "para text x\nhtml-id one\nhtml-id two",
    );
}

#[test]
fn raw_html_links_are_links() {
    // Block HTML, spanning lines, with single, double and no quotes, any case.
    check_links(
        "<p align=\"center\">\n  <IMG alt=\"x\" SRC='img/logo.png' width=200>\n  <a\n    href=guide.md#install>Guide</a>\n</p>",
        "2:21 rel img/logo.png [img/logo.png]\n4:10 rel guide.md#install [guide.md] #install",
    );
    // Inline, among markdown links, in source order; character references decoded.
    check_links(
        "See <a href=\"/x/?a=1&amp;b=2\">x</a> and [y](y.md) <img src=\" z.png \">.",
        "1:14 abs /x/?a=1&b=2 [/x/?a=1&b=2]\n1:45 rel y.md [y.md]\n1:62 rel z.png [z.png]",
    );
    check_links(
        "<video src=\"v.mp4\"><source src=\"v.webm\"></video>",
        "1:13 rel v.mp4 [v.mp4]\n1:33 rel v.webm [v.webm]",
    );
    check_links("<a href=\"https://e.com\">e</a>", "1:10 ext https://e.com [https://e.com]");
}

#[test]
fn raw_html_that_is_not_a_link_is_ignored() {
    // Comments (inline, block, spanning lines), templates, other attributes and elements,
    // and code.
    check_links("x <!-- <a href=\"gone.md\"> --> y", "");
    check_links("<!--\n<img src=\"old.png\">\n-->", "");
    check_links("<a href=\"{{ .RelPermalink }}\">x</a>", "");
    // JSX attribute expressions (MDX) are code; the attributes after them are still read.
    check_links("<a href={url}>x</a> <a href={`/${lang}/x/`} class=\"a\">y</a>", "");
    check_links(
        "<a href={ {a: '}'}['a'] } title=\"t\"><img src={logo} /><img src=\"b.png\"></a>",
        "1:65 rel b.png [b.png]",
    );
    check_links("<a href={unclosed>x</a>", "");
    check_links("<a data-href=\"x.md\" title=\"src=y.md\">x</a> <div src=\"z.md\"></div>", "");
    check_links("`<a href=\"x.md\">` and\n\n```html\n<img src=\"y.png\">\n```", "");
    // Not a complete tag, so not HTML for CommonMark: text.
    check_links("<a href=\"unterminated", "");
    // Broken HTML inside an HTML block does not panic and finds what it can.
    check_links("<div>\n<a href=\"x.md>\n</div>", "2:10 rel x.md>\n</div> [x.md>\n</div>]");
    check_links("<a href=>x</a> <a href = é.md> <img src", "1:26 rel é.md [é.md]");
    assert_eq!(decode_character_references("a&amp;b&#x41;&#66;&bogus;&"), "a&bAB&bogus;&");
}

#[test]
fn hugo_block_shortcode_bodies_are_not_markdown() {
    check_links(
        "{{< code-toggle file=hugo >}}\n[[module.mounts]]\nsource = 'x'\n{{< /code-toggle >}}\n[a](b.md)",
        "5:5 rel b.md [b.md]",
    );
    // Inline shortcodes and `{{% %}}` (whose body is markdown) are left alone.
    check_links("{{% note %}}\n[[Page]]\n{{% /note %}}", "2:3 wiki Page [Page]");
    check_links("{{< kbd >}}[a](b.md){{< /kbd >}}", "1:16 rel b.md [b.md]");
    // A self-closing shortcode has no body, even when a later one of the same name closes.
    check_links(
        "{{< code-toggle config=x />}}\n\n[[a]]\n\n{{< code-toggle >}}\nk = 1\n{{</ code-toggle >}}",
        "3:3 wiki a [a]",
    );
    // An unclosed shortcode hides nothing.
    check_links("{{< code-toggle >}}\n[[x]]", "2:3 wiki x [x]");
}

#[test]
fn hugo_shortcode_targets_are_left_alone() {
    // Hugo expands shortcodes before markdown; to CommonMark a destination with spaces is no link.
    check_links("[a]({{< ref \"x.md\" >}})", "");
    check_links("[a]({{<ref\"x\">}})", "1:5 rel {{<ref\"x\">}} [{{<ref\"x\">}}]");
}

#[test]
fn hugo_includes_are_links() {
    check_links("{{% include \"/_common/x.md\" %}}", "1:14 abs /_common/x.md [/_common/x.md] include");
    check_links(
        "a\n\n{{< include '_common/y.md' >}} {{% readfile file=\"z.md\" %}}",
        "3:14 rel _common/y.md [_common/y.md] include\n3:51 rel z.md [z.md] include",
    );
    // Escaped (shown literally) or in code: not an include.
    check_links(
        "{{%/* include \"x.md\" */%}}\n\n`{{% include \"y.md\" %}}`\n\n```\n{{% include \"z.md\" %}}\n```",
        "",
    );
    check_links("{{% include %}} {{% include x.md %}} {{% include \"open", "");
}

#[test]
fn bad_input_does_not_panic() {
    for input in [
        "",
        "\n",
        "[",
        "[[",
        "]]",
        "[[|]]",
        "![[",
        "[a](",
        "[a]: ",
        "#",
        "# {#}",
        "\r",
        "{{<",
        "{{< x >}}\n{{<",
    ] {
        let _ = analyze(input, 1);
    }
    assert_eq!(analyze("", 3), Markdown::default());
}

/// Tokens that exercise every scanner in this module.
const TOKENS: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    "[[",
    "]]",
    "|",
    "!",
    "#",
    "{#",
    "}",
    "{{<",
    ">}}",
    "{{%",
    "%}}",
    "/*",
    "*/",
    "/",
    "include ",
    "readfile ",
    "file=",
    "\"",
    "'",
    "`",
    "```",
    "\n",
    "\r\n",
    "\r",
    " ",
    ": ",
    "é",
    "日本",
    "<a id=",
    "name='",
    ">",
    "\\",
    "x.md",
    "../",
    "<",
    "&amp;",
    "*",
    "_",
    "-",
    "\u{feff}",
    "\t",
    "\n# ",
    "\n## ",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3_000))]

    /// Any sequence of those tokens scans without a panic, into links and sections at real
    /// positions.
    #[test]
    fn random_markdown_never_panics(
        parts in proptest::collection::vec(proptest::sample::select(TOKENS), 0..64),
        first_line in 1u32..6,
    ) {
        let input = parts.concat();
        let md = analyze(&input, first_line);
        for link in &md.links {
            proptest::prop_assert!(link.line >= 1 && link.column >= 1, "{:?}: {:?}", input, link);
        }
        for s in &md.sections {
            proptest::prop_assert!(s.line_start <= s.line_end, "{:?}: {:?}", input, s);
        }
    }
}

#[test]
fn find_ascii_finds_what_str_find_finds() {
    let hays = ["", "{{<", "x{{{< y >}}", "é{{ü{{<", "{ {{ }}", "日本{{%語%}}", "no braces"];
    for hay in hays {
        for needle in ["{{<", "{{", ">}}", "%}}"] {
            assert_eq!(find_ascii(hay, needle), hay.find(needle), "{needle:?} in {hay:?}");
        }
    }
}

#[test]
fn whitespace_collapses_to_single_spaces_and_is_trimmed() {
    assert_eq!(collapse_whitespace("  Install \t the\n\n  CLI  "), "Install the CLI");
    assert_eq!(collapse_whitespace("日本語\u{3000}テキスト"), "日本語 テキスト");
    assert_eq!(collapse_whitespace(" \n\t "), "");
    assert_eq!(collapse_whitespace("one"), "one");
    // The fast path (text already collapsed) against the definition, on strings of spaces,
    // other whitespace (ASCII and not) and letters.
    let pieces =
        [" ", "  ", "a", "bc", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{a0}", "\u{3000}", "é", "\u{1c}"];
    let mut state = 7usize;
    for _ in 0..20_000 {
        let mut s = String::new();
        for _ in 0..state % 7 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            s.push_str(pieces[(state >> 8) % pieces.len()]);
        }
        let expected = s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(collapse_whitespace(&s), expected, "{s:?}");
        let mut in_place = s.clone();
        collapse_whitespace_in_place(&mut in_place);
        assert_eq!(in_place, expected, "{s:?}");
    }
}

#[test]
fn line_index_locates_offsets_in_any_order() {
    // Against the definition (count the newlines before the offset; count the characters since
    // the last one), for offsets asked forwards, backwards and at random, from any cursor.
    let body = "\u{feff}é one\n\ntwo ü\r\nthree\n\n";
    let naive = |offset: usize| {
        let before = &body[..offset];
        let line = before.matches('\n').count();
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        let prefix = &body[start..offset];
        let prefix = if line == 0 { prefix.strip_prefix('\u{feff}').unwrap_or(prefix) } else { prefix };
        (7 + line as u32, prefix.chars().count() as u32 + 1)
    };
    let offsets: Vec<usize> = (0..=body.len()).filter(|&i| body.is_char_boundary(i)).collect();
    let mut orders = vec![offsets.clone(), offsets.iter().rev().copied().collect()];
    let mut state = 17usize;
    orders.push(
        (0..200)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                offsets[(state >> 8) % offsets.len()]
            })
            .collect(),
    );
    for order in orders {
        let lines = LineIndex::new(body, 7);
        for offset in order {
            assert_eq!(lines.locate(offset), naive(offset), "offset {offset}");
        }
        assert_eq!(lines.last_line(), 11);
        // Past the end is the end.
        assert_eq!(lines.locate(body.len() + 5), naive(body.len()));
    }
    assert_eq!(LineIndex::new("a\nb", 1).last_line(), 2);
    assert_eq!(LineIndex::new("", 3).last_line(), 3);
    assert_eq!(LineIndex::new("\n", 3).last_line(), 3);
}

mod jsx {
    use proptest::prelude::*;

    use super::super::analyze;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// However JSX expressions nest, close or fail to close, an attribute written as an
        /// expression is never a link, and scanning never panics.
        #[test]
        fn jsx_attribute_expressions_are_never_links(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("<a href={".to_owned()),
                    Just("<img src={".to_owned()),
                    Just("}".to_owned()),
                    Just("{".to_owned()),
                    Just("'}'".to_owned()),
                    Just("`${x}`".to_owned()),
                    Just(">".to_owned()),
                    Just(" />".to_owned()),
                    Just("\n".to_owned()),
                    "[a-z/.:]{0,6}",
                ],
                0..16,
            )
        ) {
            let text = parts.concat();
            let md = analyze(&text, 1);
            for link in &md.links {
                prop_assert!(!link.target.starts_with('{'), "{:?} from {:?}", link.target, text);
            }
        }
    }
}

mod mdx {
    use proptest::prelude::*;

    use super::super::{Dialect, analyze, analyze_in};

    /// Lines of MDX as docs write it: tags, expressions, fences, headings, links, indentation.
    fn mdx_line() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("<Tabs>".to_owned()),
            Just("  <TabItem label=\"a > b\">".to_owned()),
            Just("</TabItem>".to_owned()),
            Just("<summary>See [x](y.md)</summary>".to_owned()),
            Just("  <LinkCard title=\"x\" href=\"/a/b/\" />".to_owned()),
            Just("{/* c */}".to_owned()),
            Just("```".to_owned()),
            Just("    ```sh".to_owned()),
            Just("  \t```".to_owned()),
            Just("# Heading".to_owned()),
            Just("        ## Deep [l](/a/)".to_owned()),
            Just("    - [item](b.md)".to_owned()),
            Just("1. Step".to_owned()),
            Just(String::new()),
            "[ \t]{0,6}[^\n]{0,16}",
        ]
    }

    /// Lines with nothing MDX reads differently: no tag or expression at a line start, no
    /// indentation of four columns or more.
    fn plain_line() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("# Heading".to_owned()),
            Just("```".to_owned()),
            Just("  - [item](b.md#x)".to_owned()),
            Just("Text with <Since v=\"1\" /> and {x}.".to_owned()),
            Just("> quote <b>".to_owned()),
            Just(String::new()),
            "[a-z#\\[\\]()<>{} ]{0,16}".prop_filter("no tag or expression first", |l| {
                !l.trim_start().starts_with(['<', '{']) && !l.starts_with("    ")
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Whatever the MDX, every section and link is located on a line of the file, at a
        /// column of that line, and section ranges are ordered.
        #[test]
        fn mdx_locations_stay_in_the_file(lines in proptest::collection::vec(mdx_line(), 0..16)) {
            let text = lines.join("\n");
            let md = analyze_in(&text, 1, Dialect::Mdx);
            let file: Vec<&str> = text.split('\n').collect();
            for s in &md.sections {
                prop_assert!(1 <= s.line_start && s.line_start <= s.line_end);
                prop_assert!(s.line_end as usize <= file.len().max(1));
            }
            for l in &md.links {
                let line = file[l.line as usize - 1];
                prop_assert!(l.column as usize <= line.chars().count() + 1, "{:?} in {:?}", l, text);
                let at: String = line.chars().skip(l.column as usize - 1).collect();
                prop_assert!(at.starts_with(l.path()), "{:?} not at {:?} in {:?}", l, at, text);
            }
        }

        /// A body with nothing MDX reads differently reads the same as `.mdx` and as `.md`.
        #[test]
        fn mdx_without_jsx_or_deep_indentation_reads_as_commonmark(
            lines in proptest::collection::vec(plain_line(), 0..16)
        ) {
            let text = lines.join("\n");
            prop_assert_eq!(analyze_in(&text, 1, Dialect::Mdx), analyze(&text, 1));
        }
    }
}

// The mention lint (`mentions`) on the mentions this analysis collects: `mentions` must not
// import the analysis that calls it, so its tests that parse live here.

/// A markdown body's file mentions (`body_line` is the file line of its first line).
fn find(body: &str, body_line: u32) -> Vec<mentions::Mention> {
    analyze_with_mentions(body, body_line, Dialect::Markdown).mentions
}

fn report(files: &[&str], text: &str) -> Vec<String> {
    let mut diags = Vec::new();
    mentions::check("skills/pdf/SKILL.md", "skills/pdf", "", files, &find(text, 5), &mut diags);
    diags.iter().map(|d| format!("{}:{} {}", d.line, d.column, d.message)).collect()
}

#[test]
fn case_and_typo_mentions_are_reported_with_did_you_mean() {
    let files = ["SKILL.md", "reference.md", "forms.md", "scripts/fill_form.py"];
    let text =
        "# PDF\n\nFor details, see REFERENCE.md. Then read `FORMS.md`\nand run `scripts/fil_form.py`.\n";
    assert_eq!(
        report(&files, text),
        [
            "7:18 `REFERENCE.md` names no file of skill `skills/pdf`; did you mean `reference.md`?",
            "7:43 `FORMS.md` names no file of skill `skills/pdf`; did you mean `forms.md`?",
            "8:10 `scripts/fil_form.py` names no file of skill `skills/pdf`; did you mean `scripts/fill_form.py`?",
        ]
    );
}

#[test]
fn exact_names_outside_files_code_blocks_and_links_are_quiet() {
    let files = ["SKILL.md", "reference.md", "config.yaml", "a.md", "b.md"];
    let text = "See reference.md and [ref](REFERENCE.md).\n\n```sh\ncat REFERENCE.md\n```\n\n\
                Edit package.json, config.yml, c.md, https://x.org/REFERENCE.md, ../Reference.md, /tmp/a.md.\n";
    assert_eq!(report(&files, text), Vec::<String>::new());
}

#[test]
fn reference_files_resolve_against_their_directory_and_bare_names_anywhere() {
    let files = ["SKILL.md", "references/api.md", "references/errors.md"];
    let mut diags = Vec::new();
    let found = find("See errors.md and api.md, and Errors.md.\n", 1);
    mentions::check("skills/pdf/references/api.md", "skills/pdf", "references", &files, &found, &mut diags);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(diags[0].message.contains("did you mean `references/errors.md`?"), "{diags:?}");
}

#[test]
fn mentions_come_from_the_parse_the_analysis_makes() {
    // An MDX reference file: its JSX lines are not HTML blocks that would hide the text
    // after them, and a wiki link is a link (its target is `links`'s), not text.
    let body = "<Tabs>\n  <TabItem>\nSee Forms.md and [[REFERENCE.md]].\n  </TabItem>\n</Tabs>\n";
    let md = analyze_with_mentions(body, 3, Dialect::Mdx);
    assert_eq!(md.mentions, [mentions::Mention { text: "Forms.md".into(), line: 5, column: 5 }]);
    assert_eq!(md.links.len(), 1, "{:?}", md.links);
    let plain = analyze_in(body, 3, Dialect::Mdx);
    assert!(plain.mentions.is_empty(), "only asked for, for a skill's markdown");
}
