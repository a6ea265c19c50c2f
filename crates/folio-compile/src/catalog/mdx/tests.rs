use proptest::prelude::*;

use super::*;

/// The lines of `body` that [`jsx_flow`] blanks, as written.
fn flow_lines(body: &str) -> Vec<&str> {
    jsx_flow(body).blanked.into_iter().map(|r| &body[r]).collect()
}

fn tags(body: &str) -> Vec<&str> {
    jsx_flow(body).tags.into_iter().map(|r| &body[r]).collect()
}

#[test]
fn skips_module_statements_at_the_top_only() {
    let body = "\nimport Since from '~/components/Since.astro';\nimport {\n  Tabs,\n  TabItem,\n} from \
                '@astrojs/starlight/components';\nexport const x = { a: 1 };\n\n# Routing\n\nimport is a word.\n";
    assert_eq!(skip_esm(body), "# Routing\n\nimport is a word.\n");
    assert_eq!(skip_esm("# Title\nimport x from 'y'\n"), "# Title\nimport x from 'y'\n");
    assert_eq!(skip_esm("\n\nText\n"), "\n\nText\n", "nothing skipped: the body is kept as it is");
    assert!(is_mdx("docs/a.MDX") && is_mdx("a.mdx") && !is_mdx("a.md") && !is_mdx("mdx"));
}

#[test]
fn tag_lines_are_flow_with_any_indentation() {
    let body = "<PackageManagerTabs>\n  <Fragment slot=\"npm\">\n  ```shell\n  npm create astro\n  ```\n  \
                </Fragment>\n</PackageManagerTabs>\n";
    assert_eq!(
        flow_lines(body),
        ["<PackageManagerTabs>", "  <Fragment slot=\"npm\">", "  </Fragment>", "</PackageManagerTabs>"]
    );
    assert_eq!(
        tags(body),
        ["<PackageManagerTabs>", "<Fragment slot=\"npm\">", "</Fragment>", "</PackageManagerTabs>"]
    );
}

#[test]
fn self_closing_fragments_lowercase_and_several_tags_on_a_line() {
    for line in [
        "<Steps>",
        "</Steps>",
        "<LinkCard title=\"Deploy\" href=\"/en/guides/deploy/\" />",
        "<div>",
        "</div>",
        "<>",
        "</>",
        "<TabItem label=\"npm\"><Code code={x} /></TabItem>",
        "<Tabs syncKey=\"pkg\">\t",
        "<ReadMore>  </ReadMore>",
        "<Astro.Fragment>",
        "<svg:rect width={1} />",
        "<Card {...props} client:load />",
        "{/* A comment. */}",
        "{frontmatter.title}",
        "<Since v=\"4.0\" />{' '}",
    ] {
        assert_eq!(flow_lines(line), [line], "{line}");
        let crlf = format!("{line}\r\ntext\r\n");
        assert_eq!(jsx_flow(&crlf).blanked, vec![(0..line.len())], "{line}");
    }
}

#[test]
fn a_tag_over_several_lines_is_one_flow_construct() {
    let body = "Intro.\n<LinkCard\n  title=\"a > b\"\n  description={`x ${y > 1 ? '}' : \"\"}`}\n  \
                href='/x/'\n/>\n## Heading\n";
    assert_eq!(
        flow_lines(body),
        ["<LinkCard\n  title=\"a > b\"\n  description={`x ${y > 1 ? '}' : \"\"}`}\n  href='/x/'\n/>"]
    );
    let comment = "{/*\n  <Tabs> is not opened here;\n  a } in a comment is no brace\n*/}\n# Title\n";
    assert_eq!(
        flow_lines(comment),
        ["{/*\n  <Tabs> is not opened here;\n  a } in a comment is no brace\n*/}"]
    );
    assert_eq!(tags(comment), Vec::<&str>::new(), "an expression's text holds no tags");
}

#[test]
fn inline_jsx_code_and_non_jsx_are_left_alone() {
    for body in [
        "text <Since v=\"1.0\" /> text",
        "<Since v=\"1.0\" /> is new in 1.0",
        "<Badge text=\"New\" /> **bold**",
        "<https://astro.build>",
        "<mailto:a@b.c>",
        "<!-- an HTML comment -->",
        "< 5 ms",
        "<3",
        "{not closed",
        "<Tabs unclosed=\"",
        "- <Tabs>",
        "> <Tabs>",
        "```mdx\n<Tabs>\n  <TabItem label=\"a\">\n```",
        "~~~~\n<Tabs>\n~~~\n</Tabs>\n~~~~",
        "    ```\n    <Aside>\n    ```",
    ] {
        assert_eq!(flow_lines(body), Vec::<&str>::new(), "{body}");
    }
    // After the fence closes, tags are flow again.
    assert_eq!(flow_lines("```\n<Tabs>\n```\n<Tabs>\n"), ["<Tabs>"]);
    assert_eq!(jsx_flow("```\n<Tabs>\n```\n<Tabs>\n").blanked, vec![(15..21)]);
}

#[test]
fn leading_tags_that_would_open_an_html_block_are_blanked_and_the_text_kept() {
    let body = "    <summary>Show me the [code](/x/)</summary>\n<Aside type=\"tip\">Note.</Aside>\n<Card>Text</Card>\n";
    let flow = jsx_flow(body);
    let blanked: Vec<&str> = flow.blanked.iter().map(|r| &body[r.clone()]).collect();
    assert_eq!(blanked, ["<summary>", "<Aside type=\"tip\">"], "`Card` opens no HTML block");
    assert_eq!(
        flow.blank(body).unwrap(),
        format!(
            "{}Show me the [code](/x/)</summary>\n{}Note.</Aside>\n<Card>Text</Card>\n",
            " ".repeat(13),
            " ".repeat(18)
        )
    );
}

#[test]
fn nothing_after_a_construct_that_never_closes_is_flow() {
    assert_eq!(flow_lines("<Tabs>\n{oops\n<Tabs>\n"), ["<Tabs>"]);
    assert_eq!(flow_lines("<A title=\"x\n</A>\n"), Vec::<&str>::new());
}

#[test]
fn blanking_keeps_every_offset() {
    let body = "# Title\n\n<Tabs>\r\n  <TabItem label=\"日本語\">\n\nText.\n  </TabItem>\n</Tabs>";
    let blanked = jsx_flow(body).blank(body).unwrap();
    assert_eq!(
        blanked,
        format!("# Title\n\n      \r\n{}\n\nText.\n{}\n{}", " ".repeat(29), " ".repeat(12), " ".repeat(7))
    );
    assert_eq!(jsx_flow("# Title\n\nText.\n").blank("# Title\n\nText.\n"), None);
}

#[test]
fn search_reads_the_quoted_values_of_blanked_tags_and_nothing_else_of_them() {
    let body = "<LinkCard\n  title=\"Deploy > Netlify\"\n  href='/x/' icon={`${a}`}\n/>\n\
                Text <Since v=\"1\" /> here.\n<PackageManagerTabs>\n  <Fragment slot=\"npm\">\n\
                ```sh\n<Tabs label=\"code\">\n```\n  </Fragment>\n{/* \"note\" */}\n";
    let searchable = jsx_flow(body).search_blanks(body).apply(body).unwrap();
    assert_eq!(searchable.len(), body.len());
    let lines: Vec<&str> = searchable.lines().map(str::trim_end).collect();
    assert_eq!(
        lines,
        [
            "",
            "         Deploy > Netlify",
            "        /x/",
            "",
            // Inline JSX is the paragraph's, and code is code: neither is blanked.
            "Text <Since v=\"1\" /> here.",
            "",
            "                  npm",
            "```sh",
            "<Tabs label=\"code\">",
            "```",
            "",
            "",
        ]
    );
    assert_eq!(jsx_flow("Text.\n").search_blanks("Text.\n").apply("Text.\n"), None);
}

/// Lines of MDX-looking text: tags, expressions, fences, prose and their pieces.
fn mdx_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<Tabs>".to_owned()),
        Just("  <TabItem label=\"a > b\">".to_owned()),
        Just("</TabItem>".to_owned()),
        Just("<Card".to_owned()),
        Just("  title={`x`}".to_owned()),
        Just("/>".to_owned()),
        Just("{/* c */}".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("```".to_owned()),
        Just("~~~".to_owned()),
        Just("# Heading".to_owned()),
        Just(String::new()),
        "[^\n]{0,24}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// What is skipped is whole lines of module statements and blank lines: the rest is a
    /// suffix of the body that starts at a line, and a body whose first non-blank line is
    /// not a statement is kept whole.
    #[test]
    fn skipping_module_lines_keeps_a_suffix_at_a_line_start(
        lines in proptest::collection::vec(
            prop_oneof![
                Just("import X from 'y';".to_owned()),
                Just("import {".to_owned()),
                Just("  a,".to_owned()),
                Just("} from 'z';".to_owned()),
                Just("export const x = [1, {a: 2}];".to_owned()),
                Just(String::new()),
                "[^\n]{0,20}",
            ],
            0..12,
        )
    ) {
        let body = lines.join("\n");
        let rest = skip_esm(&body);
        prop_assert!(body.ends_with(rest));
        let skipped = &body[..body.len() - rest.len()];
        prop_assert!(skipped.is_empty() || skipped.ends_with('\n') || rest.is_empty());
        let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if !["import ", "import{", "export "].iter().any(|k| first.trim().starts_with(k)) {
            prop_assert_eq!(rest, body.as_str());
        }
    }

    /// Blanking keeps the length, every line ending and every byte outside the flow lines; the
    /// flow lines are whole lines, in order, and each tag lies inside one of them.
    #[test]
    fn blanking_keeps_length_lines_and_the_rest(
        lines in proptest::collection::vec(mdx_line(), 0..16),
        crlf in any::<bool>(),
    ) {
        let body = lines.join(if crlf { "\r\n" } else { "\n" });
        let flow = jsx_flow(&body);
        let blanked = flow.blank(&body).unwrap_or_else(|| body.clone());
        prop_assert_eq!(blanked.len(), body.len());
        prop_assert_eq!(blanked.lines().count(), body.lines().count());
        // Each range starts after only whitespace on its line and is past the one before; a
        // range that holds a whole flow line ends at its line's end.
        let mut last = 0;
        for range in &flow.blanked {
            let line_start = body[..range.start].rfind('\n').map_or(0, |i| i + 1);
            prop_assert!(range.start >= last && body[line_start..range.start].trim().is_empty());
            last = range.end;
        }
        for (i, (a, b)) in body.bytes().zip(blanked.bytes()).enumerate() {
            let inside = flow.blanked.iter().any(|r| r.contains(&i));
            if !inside || a == b'\n' || a == b'\r' {
                prop_assert_eq!(a, b);
            } else {
                prop_assert_eq!(b, b' ');
            }
        }
        for tag in &flow.tags {
            prop_assert!(flow.blanked.iter().any(|r| r.start <= tag.start && tag.end <= r.end));
            prop_assert_eq!(body.as_bytes()[tag.start], b'<');
        }
        // What search reads differs from the blanked text only where the body shows through.
        let searchable = flow.search_blanks(&body).apply(&body).unwrap_or_else(|| body.clone());
        prop_assert_eq!(searchable.len(), body.len());
        for (i, ((a, b), s)) in body.bytes().zip(blanked.bytes()).zip(searchable.bytes()).enumerate() {
            prop_assert!(s == b || s == a, "byte {} of {:?}", i, body);
        }
    }
}

#[test]
fn deep_indentation_outside_fences_is_reported() {
    assert!(jsx_flow("<Steps>\n    ```sh\n    npm i\n    ```\n</Steps>\n").deep_indent);
    assert!(jsx_flow("Text\n\n\tcode?\n").deep_indent, "a tab is four columns");
    assert!(jsx_flow("<summary>Show me</summary>\n").deep_indent, "blanking the tag indents the text");
    assert!(!jsx_flow("```js\n    if (x) {}\n```\n  - item\n   three\n").deep_indent);
    assert!(!jsx_flow("<Tabs>\n</Tabs>\n<p>x</p>\n").deep_indent, "`<p>` is three columns");
}

#[test]
fn imports_of_markdown_partials_are_found_with_where_their_path_is() {
    let body = "import Warning from \"../../components/_Warning.mdx\";\nimport Tabs from '@theme/Tabs';\n\
                import Intro from './_intro.md'\nimport Alias from '@site/docs/_x.mdx';\n  import Indented from './_y.mdx'\n\
                Text that says import x from './_z.mdx'.\n";
    let found = markdown_imports(body);
    let paths: Vec<&str> = found.iter().map(|(_, p)| p.as_str()).collect();
    assert_eq!(paths, ["../../components/_Warning.mdx", "./_intro.md"]);
    for (at, path) in &found {
        assert!(body[*at..].starts_with(path.as_str()), "{at} points at {path}");
    }
}

#[test]
fn markdown_is_md_and_mdx_in_any_case_and_nothing_else() {
    for yes in ["docs/a.md", "docs/a.MD", "docs/a.mdx", "skills/pdf/SKILL.Md", "a.MDX"] {
        assert!(crate::catalog::is_markdown(yes), "{yes}");
    }
    for no in ["docs/a.markdown", "docs/a.txt", "md", ".m", "docs/amd", "docs/a.mdxx"] {
        assert!(!crate::catalog::is_markdown(no), "{no}");
    }
}
