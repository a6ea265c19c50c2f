use std::path::{Path, PathBuf};

use super::*;

/// A scratch tree under the system's temporary folder, removed when dropped.
struct Tree(PathBuf);

impl Tree {
    fn new(name: &str, files: &[&str]) -> Tree {
        let dir = std::env::temp_dir().join(format!("folio-layout-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for file in files {
            let path = dir.join(file);
            if file.ends_with('/') {
                std::fs::create_dir_all(&path).unwrap();
            } else {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, "x = 1\n").unwrap();
            }
        }
        std::fs::create_dir_all(&dir).unwrap();
        Tree(dir.canonicalize().unwrap())
    }

    fn root(&self) -> &Path {
        &self.0
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn resolve(tree: &Tree, keys: &LayoutKeys, requested: &Requested) -> (Layout, Vec<Diagnostic>) {
    Layout::resolve(tree.root(), keys, requested)
}

fn mounts(layout: &Layout) -> Vec<(Part, &str)> {
    layout.mounts.iter().map(|m| (m.part, m.dir.as_str())).collect()
}

#[test]
fn each_generator_is_found_by_its_config_file_in_the_root_or_one_folder_below() {
    let cases: &[(&[&str], Generator, &str, &[&str])] = &[
        (&["guide/book.toml", "guide/src/SUMMARY.md"], Generator::MdBook, "guide/src", &[]),
        (&["docs/.vitepress/config.ts", "docs/public/"], Generator::VitePress, "docs", &["docs/public"]),
        (&[".vitepress/config.mts", "index.md"], Generator::VitePress, "", &[]),
        (
            &["website/docusaurus.config.ts", "website/docs/", "website/static/"],
            Generator::Docusaurus,
            "website/docs",
            &["website/static"],
        ),
        (&["mkdocs.yml", "docs/"], Generator::MkDocs, "docs", &[]),
        (
            &["docs/astro.config.mjs", "docs/src/content/docs/", "docs/public/"],
            Generator::Starlight,
            "docs/src/content/docs",
            &["docs/public"],
        ),
        (&["hugo.toml", "content/", "static/"], Generator::Hugo, "content", &["static"]),
        (&["nuxt.config.ts", "content/"], Generator::NuxtContent, "content", &[]),
        (&["next.config.mjs", "pages/", "public/"], Generator::NextJs, "pages", &["public"]),
    ];
    for (i, (files, generator, docs, assets)) in cases.iter().enumerate() {
        let tree = Tree::new(&format!("gen{i}"), files);
        let (layout, diags) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(layout.generator, Some(*generator), "{files:?}");
        assert_eq!(layout.docs_dir(), *docs, "{files:?}");
        let found: Vec<&str> =
            layout.mounts.iter().filter(|m| m.part == Part::Assets).map(|m| m.dir.as_str()).collect();
        assert_eq!(found, *assets, "{files:?}");
    }
}

#[test]
fn settings_in_the_config_file_move_the_pages() {
    let tree = Tree::new("book-src", &["book.toml", "pages/"]);
    std::fs::write(tree.root().join("book.toml"), "[book]\ntitle = \"x\"\nsrc = \"pages\"\n").unwrap();
    let (layout, _) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
    assert_eq!(layout.docs_dir(), "pages");
    let tree = Tree::new("hugo-mount", &["hugo.toml", "content/en/"]);
    std::fs::write(
        tree.root().join("hugo.toml"),
        "baseURL = 'https://x/'\n[module]\n  [[module.mounts]]\n    source = 'assets'\n    target = 'assets'\n  \
         [[module.mounts]]\n    source = 'content/en'\n    target = 'content'\n",
    )
    .unwrap();
    let (layout, _) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
    assert_eq!(layout.docs_dir(), "content/en");
    let tree = Tree::new("mkdocs-dir", &["mkdocs.yml", "documentation/"]);
    std::fs::write(tree.root().join("mkdocs.yml"), "site_name: x\ndocs_dir: documentation # here\n").unwrap();
    let (layout, _) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
    assert_eq!(layout.docs_dir(), "documentation");
    // Docusaurus in `website/` with its pages beside it (`path: '../docs'`), as Redux is laid out;
    // a path that would leave the root falls back to the preset's folder.
    let tree = Tree::new("docusaurus-path", &["website/docusaurus.config.ts", "docs/", "website/docs/"]);
    let config = tree.root().join("website/docusaurus.config.ts");
    std::fs::write(
        &config,
        "export default {\n  presets: [['classic', { docs: {\n    path: '../docs',\n  } }]],\n};\n",
    )
    .unwrap();
    assert_eq!(resolve(&tree, &LayoutKeys::default(), &Requested::default()).0.docs_dir(), "docs");
    std::fs::write(&config, "export default { presets: [['classic', { docs: { path: '../../docs' } }]] };\n")
        .unwrap();
    assert_eq!(resolve(&tree, &LayoutKeys::default(), &Requested::default()).0.docs_dir(), "website/docs");
}

#[test]
fn the_command_line_wins_over_folio_toml_which_wins_over_detection() {
    let tree = Tree::new("precedence", &["mkdocs.yml", "docs/", "manual/", "other/", "agents/"]);
    let keys = LayoutKeys {
        docs: Some(("manual".to_owned(), 2, 7)),
        skills: Some((vec!["agents".to_owned()], 4, 8)),
        ..LayoutKeys::default()
    };
    let (layout, diags) = resolve(&tree, &keys, &Requested::default());
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(mounts(&layout), [(Part::Docs, "manual"), (Part::Skills, "agents")]);
    let requested = Requested { docs: Some("./other/".to_owned()), ..Requested::default() };
    let (layout, _) = resolve(&tree, &keys, &requested);
    assert_eq!(layout.docs_dir(), "other");
    let requested = Requested { docs: Some(".".to_owned()), ..Requested::default() };
    assert_eq!(resolve(&tree, &keys, &requested).0.docs_dir(), "");
}

#[test]
fn a_folder_that_is_not_there_is_an_error_at_its_key() {
    let tree = Tree::new("missing", &["docs/"]);
    let keys = LayoutKeys {
        docs: Some(("site".to_owned(), 2, 7)),
        generator: Some(("jekyll".to_owned(), 3, 13)),
        ..LayoutKeys::default()
    };
    let (layout, diags) = resolve(&tree, &keys, &Requested::default());
    let got: Vec<_> = diags.iter().map(|d| (d.path.as_str(), d.line, d.column, d.message.as_str())).collect();
    assert_eq!(
        got,
        [
            ("folio.toml", 3, 13, "invalid `folio.toml` [docs]: unknown generator `jekyll`"),
            ("folio.toml", 2, 7, "invalid `folio.toml`: [docs] dir `site` does not exist"),
        ]
    );
    assert_eq!(layout.docs_dir(), "docs");
    let requested = Requested { docs: Some("../x".to_owned()), ..Requested::default() };
    let (_, diags) = resolve(&tree, &LayoutKeys::default(), &requested);
    assert_eq!(diags[0].message, "--docs `../x` leaves the content root");
}

#[test]
fn catalog_paths_and_real_paths_map_both_ways() {
    let tree = Tree::new("paths", &["guide/book.toml", "guide/src/intro.md", "skills/a/SKILL.md"]);
    let (layout, _) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
    assert_eq!(layout.real(tree.root(), "docs/intro.md"), "guide/src/intro.md");
    assert_eq!(layout.real(tree.root(), "skills/a/SKILL.md"), "skills/a/SKILL.md");
    assert_eq!(layout.real(tree.root(), "folio.toml"), "folio.toml");
    assert_eq!(layout.logical("guide/src/intro.md").as_deref(), Some("docs/intro.md"));
    assert_eq!(layout.logical("guide/book.toml"), None);
    let mut diags = vec![
        Diagnostic::error(
            Code::BrokenLink,
            "docs/intro.md",
            3,
            1,
            "link `x` matches no file: no `docs/x.md`",
        )
        .with_help("did you mean `docs/y.md`?"),
    ];
    layout.translate(tree.root(), &mut diags);
    assert_eq!(diags[0].path, "guide/src/intro.md");
    assert_eq!(diags[0].message, "link `x` matches no file: no `guide/src/x.md`");
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `guide/src/y.md`?"));
    assert_eq!(
        layout.describe(),
        "docs from guide/src/, skills from skills/ (mdBook, detected from guide/book.toml)"
    );
}

#[test]
fn an_empty_result_names_the_folder_the_markdown_is_in() {
    let tree = Tree::new(
        "empty",
        &["README.md", "guide/book.toml", "guide/src/a.md", "guide/src/b/c.md", "src/lib.rs"],
    );
    let layout = Layout::default();
    let d = layout.nothing_found(tree.root());
    assert_eq!((d.code, d.path.as_str()), (Code::NoContent, "."));
    assert_eq!(
        d.message,
        "found no docs and no skills (read docs from docs/, skills from skills/), but the tree holds 3 markdown \
         files elsewhere, such as `README.md`"
    );
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .starts_with("if the pages are in `guide/src/`, run with `--docs guide/src`")
    );
    // Skills are pointed at with `--skills`, a content root one folder down with a run on it.
    let skills =
        Tree::new("skills-only", &["agents/pdf/SKILL.md", "agents/pdf/reference.md", "agents/csv/SKILL.md"]);
    let help = layout.nothing_found(skills.root()).help.unwrap();
    assert!(
        help.starts_with("`agents/` holds skill folders (`<name>/SKILL.md`): run with `--skills agents`"),
        "{help}"
    );
    let nested = Tree::new("nested-root", &["content/skills/pdf/SKILL.md", "content/docs/a.md", "README.md"]);
    let help = layout.nothing_found(nested.root()).help.unwrap();
    assert!(help.starts_with("`content/` is laid out as a content root"), "{help}");
    assert!(help.contains("point Folio at it"), "{help}");
    let bare = Tree::new("bare", &["src/lib.rs"]);
    let d = layout.nothing_found(bare.root());
    assert!(d.message.ends_with("the tree holds no markdown"), "{}", d.message);
}

#[test]
fn a_config_file_too_large_or_broken_is_an_error_and_the_defaults_apply() {
    let tree = Tree::new("config-bounds", &["site/mkdocs.yml", "site/docs/"]);
    let big = "a: 1\n".repeat(super::config::MAX_CONFIG_BYTES as usize / 5 + 1);
    std::fs::write(tree.root().join("site/mkdocs.yml"), big).unwrap();
    let (layout, diags) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
    assert_eq!(layout.docs_dir(), "site/docs");
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!((diags[0].code, diags[0].path.as_str()), (Code::InvalidConfig, "site/mkdocs.yml"));
    assert!(diags[0].message.contains("more than the 1048576-byte (1 MiB) limit"), "{}", diags[0].message);
    std::fs::write(tree.root().join("site/mkdocs.yml"), "nav: [a\n").unwrap();
    let (_, diags) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
    assert!(diags[0].message.starts_with("`site/mkdocs.yml` is not read: it does not parse"), "{diags:?}");
}

#[test]
fn projects_are_found_down_to_four_folders_and_not_in_examples_or_dependencies() {
    let tree = Tree::new(
        "deep",
        &[
            "a/b/c/site/book.toml",
            "a/b/c/site/src/",
            "examples/demo/mkdocs.yml",
            "examples/demo/docs/",
            "node_modules/x/book.toml",
            "node_modules/x/src/",
            "a/b/c/d/e/mkdocs.yml",
        ],
    );
    std::fs::write(tree.root().join("a/b/c/site/src/intro.md"), "# Intro\n").unwrap();
    let (layout, diags) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(layout.generator, Some(Generator::MdBook));
    assert_eq!(layout.docs_dir(), "a/b/c/site/src");
    assert_eq!(layout.detected_from.as_deref(), Some("a/b/c/site/book.toml"));
}

#[test]
fn of_several_sites_the_one_with_most_pages_is_read_and_the_others_named() {
    let tree = Tree::new(
        "several",
        &[
            "website/docusaurus.config.js",
            "website/docs/",
            "book/book.toml",
            "book/src/",
            "docs/en/mkdocs.yml",
            "docs/fr/mkdocs.yml",
        ],
    );
    for (i, dir) in [
        "book/src",
        "book/src",
        "docs/en/docs",
        "docs/en/docs",
        "docs/en/docs",
        "docs/fr/docs",
        "website/docs",
    ]
    .iter()
    .enumerate()
    {
        std::fs::create_dir_all(tree.root().join(dir)).unwrap();
        std::fs::write(tree.root().join(format!("{dir}/p{i}.md")), "# P\n").unwrap();
    }
    let (layout, _) = resolve(&tree, &LayoutKeys::default(), &Requested::default());
    assert_eq!(layout.generator, Some(Generator::MkDocs));
    assert_eq!(layout.docs_dir(), "docs/en/docs");
    let unread: Vec<(&str, &str)> = layout.unread.iter().map(|(d, w)| (d.as_str(), w.as_str())).collect();
    assert_eq!(
        unread,
        [
            ("book/src", "another site: mdBook, `book/book.toml`"),
            ("website/docs", "another site: Docusaurus, `website/docusaurus.config.js`"),
            ("docs/fr/docs", "the `fr` translation, `docs/fr/mkdocs.yml`"),
        ]
    );
    assert!(layout.site.unverifiable.routes.iter().any(|(r, _)| r == "/fr"));
}
