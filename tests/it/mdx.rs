//! MDX bodies read the way MDX reads them: the data-driven snippets of `tests/fixtures/mdx`
//! (JSX flow tags, expressions, indented JSX children, inline JSX, code) against their
//! `.expected` outlines, the real Astro install page whose tabs once hid half of it, link
//! components checked like links, and search reading MDX without its JSX markup.

use folio::catalog::LinkKind;
use folio::compile::markdown::{Dialect, Markdown, analyze_in};
use folio::query::{Query, SearchParams};

use crate::support::{Tree, corpora, expect_file, folio};

/// What the markdown pass found, one item a line: the first paragraph, every section and link.
fn render(md: &Markdown) -> String {
    let mut out = Vec::new();
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
        out.push(format!("{}:{} {kind} {}", l.line, l.column, l.target));
    }
    for id in &md.html_ids {
        out.push(format!("html-id {id}"));
    }
    out.join("\n") + "\n"
}

#[test]
fn mdx_snippets_match_their_expected_outlines() {
    let dir = crate::support::repo().join("tests/fixtures/mdx");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".mdx").map(str::to_owned))
        .collect();
    names.sort();
    assert!(names.len() >= 4, "{names:?}");
    for name in names {
        let text = std::fs::read_to_string(dir.join(format!("{name}.mdx"))).unwrap();
        let md = analyze_in(&text, 1, Dialect::Mdx);
        expect_file(&format!("tests/fixtures/mdx/{name}.expected"), &render(&md));
    }
}

#[test]
fn the_same_text_in_a_md_file_is_commonmark() {
    let text = "<Tabs>\n  ```sh\n  # a comment\n\n  # another\n  ```\n</Tabs>\n\n## Real\n";
    assert_eq!(Dialect::of("docs/a.md"), Dialect::Markdown);
    assert_eq!(Dialect::of("docs/a.MDX"), Dialect::Mdx);
    let ids = |dialect| -> Vec<String> {
        analyze_in(text, 1, dialect).sections.into_iter().map(|s| s.id).collect()
    };
    // CommonMark: an HTML block to the blank line, then a heading, then a fence to the end.
    assert_eq!(ids(Dialect::Markdown), ["another"]);
    assert_eq!(ids(Dialect::Mdx), ["real"]);
}

#[test]
fn the_astro_install_page_has_its_manual_setup_section() {
    let out = folio(
        &corpora(),
        &["show", "resource://docs/en/install-and-setup.mdx", "--content", "astro-docs", "--json"],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let shown: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let outline: Vec<String> = shown["detail"]["outline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}-{}", s["id"].as_str().unwrap(), s["line_start"], s["line_end"]))
        .collect();
    assert_eq!(
        outline,
        [
            "prerequisites 22-27",
            "browser-compatibility 28-31",
            "install-from-the-cli-wizard 32-86",
            "cli-installation-flags 87-157",
            "add-integrations 93-119",
            "use-a-theme-or-starter-template 120-157",
            "manual-setup 158-328",
        ]
    );
}

#[test]
fn a_link_components_href_is_checked_like_a_link() {
    let tree = Tree::new();
    tree.file("content/docs/guides/deploy.mdx", "# Deploy\n")
        .file(
            "content/docs/index.mdx",
            "# Start\n\n<CardGrid>\n  <LinkCard title=\"Deploy\" href=\"/guides/deploy/\" />\n  <LinkCard\n    \
             title=\"Gone\"\n    href=\"/guides/gone/\"\n  />\n</CardGrid>\n",
        )
        .file("content/docs/notes.md", "# Notes\n\n[home](index.mdx) <LinkCard href=\"nowhere.md\" />\n");
    let out = folio(tree.path(), &["check", "content"]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    // In `.md`, `<LinkCard>` is an unknown HTML element: its attributes are not links. From an
    // MDX page, the message names the MDX files it tried.
    let errors: Vec<&str> = out.stdout.lines().filter(|l| l.contains("error[")).collect();
    assert_eq!(
        errors,
        ["content/docs/index.mdx:7:11: error[broken-link]: link `/guides/gone/` matches no file: no \
          `docs/guides/gone.mdx`, `docs/guides/gone/index.mdx` or `docs/guides/gone/_index.mdx`"]
    );
}

#[test]
fn search_reads_mdx_without_its_jsx_markup_and_the_same_every_time() {
    let tree = Tree::new();
    tree.file(
        "content/docs/install.mdx",
        "import { Tabs } from 'x';\n\n# Install\n\nRun the install command with your package manager.\n\n\
         <PackageManagerTabs>\n  <Fragment slot=\"npm\">\n\n```sh\nnpm install astro\n```\n\n  </Fragment>\n\
         </PackageManagerTabs>\n",
    )
    .file(
        "content/docs/tabs.mdx",
        "# Tabs\n\n<PackageManagerTabs>\n  <LinkCard title=\"Switching tabs\" href=\"/install/\" />\n\
         </PackageManagerTabs>\n",
    );
    let lenient = folio::compile::lenient(&folio::compile::Config::new(tree.join("content")));
    let query = Query::from_catalog(lenient.compilation.catalog.expect("the tree compiles"));
    let search = |q: &str| -> Vec<(String, String)> {
        let params = SearchParams { query: q.to_owned(), ..SearchParams::default() };
        query.search(&params).unwrap().items.into_iter().map(|h| (h.uri, h.snippet)).collect()
    };
    // `<PackageManagerTabs>` is markup: only the page that says "package manager" matches, and
    // its snippet shows no tag.
    let first = search("package manager");
    assert_eq!(
        first,
        [(
            "resource://docs/install.mdx".to_owned(),
            "# Install Run the install command with your **package manager**. npm ```sh npm install \
             astro ```"
                .to_owned()
        )]
    );
    // A prop's quoted value is text the page shows.
    assert_eq!(search("switching")[0].0, "resource://docs/tabs.mdx");
    // What to blank is kept per entry after the first search: the second reads the same text.
    assert_eq!(search("package manager"), first);
}
