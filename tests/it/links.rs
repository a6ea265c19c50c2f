//! Link resolution through the real binary: every link code with its path, line, column, message
//! and help, `[check] ignore_links`, and the link reports on the vendored corpora (which pin the
//! false positives fixed on hugo-docs).

use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{Tree, corpora, folio};

const LINK_CODES: &[&str] = &["broken-link", "broken-anchor", "case-mismatch", "orphan-doc"];

/// `folio check` in `dir` (content root `root`) as JSON: the link diagnostics, one a line.
#[track_caller]
fn link_report(dir: &Path, root: &str) -> Vec<String> {
    let out = folio(dir, &["check", root, "--format", "json"]);
    assert!(matches!(out.code, Some(0 | 1)), "check must exit 0 or 1, got {:?}\n{}", out.code, out.stderr);
    let diags: Vec<serde_json::Value> =
        serde_json::from_str(&out.stdout).expect("--format json prints one array");
    diags
        .iter()
        .filter(|d| LINK_CODES.contains(&d["code"].as_str().unwrap()))
        .map(|d| {
            let help = d["help"].as_str().map(|h| format!(" (help: {h})")).unwrap_or_default();
            format!(
                "{}:{}:{}: {}[{}]: {}{help}",
                d["path"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["severity"].as_str().unwrap(),
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

const SKILL: &str = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nSee [the reference](Reference.md#api) and [forms](forms.md).\n";

#[test]
fn every_link_code_points_at_the_link_target() {
    let tree = Tree::new();
    tree.file("content/docs/README.md", "# Docs\n\n[Install](guides/install.md) and [[Usage Guide]].\n")
        .file(
            "content/docs/guides/install.md",
            "---\ntitle: Install\n---\n# Install\n\n## Linux\n\nSee [usage](../usage_guide.md#optoins), \
             [setup](setup.md) and [Top](../readme.md).\n",
        )
        .file("content/docs/usage_guide.md", "# Usage\n\n## Options\n")
        .file("content/docs/lonely.md", "# Lonely\n")
        .file("content/skills/pdf/SKILL.md", SKILL)
        .file("content/skills/pdf/reference.md", "# Reference\n\n## API\n")
        .file("content/skills/pdf/forms.md", "# Forms\n");
    assert_eq!(
        link_report(tree.path(), "content"),
        [
            "content/docs/guides/install.md:8:13: warning[broken-anchor]: `docs/usage_guide.md` has no heading \
             with id `optoins` (help: did you mean `#options`?)",
            "content/docs/guides/install.md:8:49: error[broken-link]: link `setup.md` matches no file: no \
             `docs/guides/setup.md`",
            "content/docs/guides/install.md:8:69: error[case-mismatch]: link `../readme.md` matches \
             `docs/README.md` only when case is ignored; servers and unpacked skills compare case \
             (help: did you mean `../README.md`?)",
            "content/docs/lonely.md:1:1: warning[orphan-doc]: no other doc or skill links to `docs/lonely.md` \
             (help: link to it from a related doc or an index page, or remove it; if the site's navigation is \
             generated (a sidebar), set `orphan-doc = \"allow\"` under [lints] in folio.toml)",
            "content/skills/pdf/SKILL.md:7:21: error[case-mismatch]: link `Reference.md#api` matches \
             `skills/pdf/reference.md` only when case is ignored; servers and unpacked skills compare case \
             (help: did you mean `reference.md#api`?)",
        ]
    );
}

#[test]
fn markdown_files_of_a_skill_are_checked_too() {
    let tree = Tree::new();
    tree.file(
        "content/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nSee [fields](references/api.md#felds).\n",
    )
    .file(
        "content/skills/pdf/references/api.md",
        "---\ntitle: API\n---\n# API\n\n## Fields\n\n[common](../../common/x.md) [ok](../scripts/fill.py)\n",
    )
    .file("content/skills/pdf/scripts/fill.py", "print()\n")
    // A template the skill copies into its output: its links are not meant to resolve here.
    .file("content/skills/pdf/assets/report.template.md", "See [details](references/details.md).\n");
    assert_eq!(
        link_report(tree.path(), "content"),
        [
            "content/skills/pdf/SKILL.md:7:14: warning[broken-anchor]: `skills/pdf/references/api.md` has no \
             heading with id `felds` (help: did you mean `#fields`?)",
            "content/skills/pdf/references/api.md:8:10: error[broken-link]: link `../../common/x.md` leaves the \
             skill directory `skills/pdf` (help: a skill is installed on its own: copy the file into \
             `skills/pdf` or link to it by URL)",
        ]
    );
}

#[test]
fn ignore_links_in_folio_toml_leaves_targets_unchecked() {
    let tree = Tree::new();
    tree.file("content/folio.toml", "[check]\nignore_links = [\"g\", \"/api/*\"]\n")
        .file("content/docs/README.md", "A [term](g), the [API](/api/v2/) and [gone](gone.md).\n");
    assert_eq!(
        link_report(tree.path(), "content"),
        [
            "content/docs/README.md:1:45: error[broken-link]: link `gone.md` matches no file: no `docs/gone.md`"
        ]
    );
}

#[test]
fn files_beside_docs_are_valid_targets_though_not_served() {
    let tree = Tree::new();
    tree.file(
        "content/docs/README.md",
        "![logo](img/logo.png) [data](/files/data.csv) ![typo](img/lgo.png)\n",
    )
    .file("content/docs/img/logo.png", b"\x89PNG\r\n")
    .file("content/docs/files/data.csv", "a,b\n");
    assert_eq!(
        link_report(tree.path(), "content"),
        ["content/docs/README.md:1:55: error[broken-link]: link `img/lgo.png` matches no file: no \
          `docs/img/lgo.png` (help: did you mean `img/logo.png`?)"]
    );
}

/// Counts of link diagnostics on a corpus, by code and, for `broken-link`, by kind of target.
fn corpus_counts(name: &str) -> (BTreeMap<String, usize>, Vec<String>) {
    let report = link_report(&corpora().join(name), ".");
    let mut counts = BTreeMap::new();
    let mut rest = Vec::new();
    for line in &report {
        let code = line.split_once('[').unwrap().1.split_once(']').unwrap().0;
        let key = if line.contains("link `g` matches no file") {
            format!("{code} g")
        } else if line.contains(".png` matches no file") {
            format!("{code} png")
        } else {
            rest.push(line.clone());
            code.to_owned()
        };
        *counts.entry(key).or_insert(0) += 1;
    }
    (counts, rest)
}

#[test]
fn hugo_docs_link_report_holds_only_true_problems() {
    let (counts, rest) = corpus_counts("hugo-docs");
    // `[term](g)`: hugoDocs' glossary render hook (silenced with `ignore_links = ["g"]`);
    // `*.png`: page-bundle images the corpus copy left out (it holds markdown only).
    let expected: BTreeMap<String, usize> =
        [("broken-link g", 748), ("broken-link png", 54), ("broken-link", 1), ("broken-anchor", 1)]
            .map(|(k, v)| (k.to_owned(), v))
            .into();
    assert_eq!(counts, expected, "{rest:#?}");
    assert_eq!(
        rest,
        [
            // The glossary page's entries are generated by a template from its child pages.
            "docs/about/features.md:126:35: warning[broken-anchor]: `docs/quick-reference/glossary/_index.md` \
             has no heading with id `sites-matrix`",
            // The corpus left this page out (SOURCE.txt).
            "docs/commands/hugo_mod_npm_pack.md:19:28: error[broken-link]: link \
             `/hugo-modules/nodejs-dependencies/` matches no file: no `docs/hugo-modules/nodejs-dependencies.md`, \
             `docs/hugo-modules/nodejs-dependencies/index.md` or `docs/hugo-modules/nodejs-dependencies/_index.md`",
        ]
    );
}

#[test]
fn agent_skills_links_all_resolve() {
    let (counts, rest) = corpus_counts("agent-skills");
    assert!(counts.is_empty(), "{rest:#?}");
}

#[test]
fn links_in_raw_html_are_checked_where_they_are_written() {
    let tree = Tree::new();
    tree.file(
        "content/docs/README.md",
        "# Readme\n\n<p align=\"center\">\n  <img src=\"img/lgo.png\" width=\"120\">\n  \
         <a href=\"install.md#setup\">Install</a>\n</p>\n\n<!-- <a href=\"old.md\">old</a> -->\n",
    )
    .file("content/docs/img/logo.png", b"\x89PNG\r\n")
    .file("content/docs/install.md", "# Install\n\n## Set up\n");
    assert_eq!(
        link_report(tree.path(), "content"),
        [
            "content/docs/README.md:4:13: error[broken-link]: link `img/lgo.png` matches no file: no \
             `docs/img/lgo.png` (help: did you mean `img/logo.png`?)",
            "content/docs/README.md:5:12: warning[broken-anchor]: `docs/install.md` has no heading with id \
             `setup` (help: did you mean `#set-up`?)",
        ]
    );
}

/// The site model on small trees: each rule turned on by the tree (or its config), a link it
/// makes resolve, and one it still reports.
#[test]
fn the_site_model_resolves_what_each_site_serves_and_still_reports_the_rest() {
    // Static folders at `/`, from folio.toml; a frontmatter slug; a numbered tree.
    let tree = Tree::new();
    tree.file("content/folio.toml", "[docs]\nstatic = [\"public\"]\n")
        .file("content/public/img/logo.svg", "<svg/>")
        .file(
            "content/docs/index.md",
            "# Home\n\n![logo](/img/logo.svg) [gone](/img/gone.svg) [setup](/start/install) \
             [moved](/setup-guide) [typo](/start/instal)\n",
        )
        .file("content/docs/1.start/2.install.md", "---\nslug: /setup-guide\n---\n# Install\n")
        .file("content/docs/1.start/3.upgrade.md", "# Upgrade\n")
        .file("content/docs/2.api/1.fetch.md", "# Fetch\n")
        .file("content/docs/2.api/2.cache.md", "# Cache\n");
    assert_eq!(
        link_report(tree.path(), "content"),
        [
            "content/docs/index.md:3:31: error[broken-link]: link `/img/gone.svg` matches no file: no `docs/img/gone.svg`",
            "content/docs/index.md:3:99: error[broken-link]: link `/start/instal` matches no file: no `docs/start/instal.md`, `docs/start/instal/index.md` or `docs/start/instal/_index.md`",
        ]
    );
    // Translations as file-name suffixes with Fumadocs ids: a Japanese page's link reaches the
    // Japanese translation and its anchors (so `c.mdx`, linked only from Japanese, is an
    // orphan in English), and translations are reached as their pages are.
    let tree = Tree::new();
    for page in ["a", "b", "c", "d"] {
        tree.file(format!("content/docs/{page}.mdx"), format!("# {page}\n\n## Usage [#usage]\n"));
        tree.file(format!("content/docs/{page}.ja.mdx"), format!("# {page}\n\n## 使い方 [#usage-ja]\n"));
    }
    tree.file("content/docs/index.mdx", "# Home\n\n[a](/docs/a#usage) [b](/docs/b)\n").file(
        "content/docs/index.ja.mdx",
        "# ホーム\n\n[a](/ja/docs/a#usage-ja) [b](/docs/b#usage) [c](/docs/c)\n",
    );
    assert_eq!(
        link_report(tree.path(), "content"),
        [
            "content/docs/c.mdx:1:1: warning[orphan-doc]: no other doc or skill links to `docs/c.mdx` (help: link to it from a related doc or an index page, or remove it; if the site's navigation is generated (a sidebar), set `orphan-doc = \"allow\"` under [lints] in folio.toml)",
            "content/docs/d.mdx:1:1: warning[orphan-doc]: no other doc or skill links to `docs/d.mdx` (help: link to it from a related doc or an index page, or remove it; if the site's navigation is generated (a sidebar), set `orphan-doc = \"allow\"` under [lints] in folio.toml)",
            "content/docs/index.ja.mdx:3:30: warning[broken-anchor]: `docs/b.ja.mdx` has no heading with id `usage`",
        ]
    );
}

/// `folio check` of `dir` as JSON: every diagnostic as `path:line:col: code: message`.
#[track_caller]
fn all_diagnostics(dir: &Path) -> Vec<String> {
    let out = folio(dir, &["check", ".", "--format", "json", "--allow", "orphan-doc"]);
    let diags: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).expect("one JSON array");
    diags
        .iter()
        .map(|d| {
            format!(
                "{}:{}:{}: {}: {}",
                d["path"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_miss_is_an_error_only_where_the_site_has_no_such_page() {
    // A Docusaurus site as its config defines it: docs at /docs/, a blog, an archived version,
    // the newest version's pages served at /docs/ too (a link to one is served, no word), a page written in code, a redirect
    // pattern, and a file a build step writes (git ignores it).
    let tree = Tree::new();
    tree.file(
        "website/docusaurus.config.js",
        "module.exports = { baseUrl: '/', presets: [['classic', { docs: { path: '../docs' } }]],\n\
         plugins: [['@docusaurus/plugin-client-redirects', { redirects: [{ from: '/old', to: '/docs/intro' }] }]] };\n",
    )
    .file("website/versions.json", "[\"2.0\", \"1.0\"]")
    .file("website/versioned_docs/version-2.0/only-newest.md", "# Only in 2.0\n")
    .file("website/src/pages/help.js", "export default () => null;\n")
    .file("website/static/_redirects", "/legacy/*  /docs/:splat  301\n")
    .file(".gitignore", "/docs/api/\n")
    .file(
        "docs/intro.md",
        "# Intro\n\n[a](/docs/only-newest) [b](only-newest.md) [c](/blog/2020/x) [d](/docs/1.0/x)\n\
         [e](/help) [f](/old) [g](/legacy/a/b) [h](api/index.md) [i](/docs/missing) [j](/showcase)\n",
    );
    let report = all_diagnostics(tree.path());
    assert_eq!(
        report,
        [
            "docs/intro.md:3:28: broken-link: link `only-newest.md` matches no file: no `docs/only-newest.md`",
            "docs/intro.md:3:48: unverified-link: link `/blog/2020/x` not verified: pages of the blog (`blog/`), which Folio does not read",
            "docs/intro.md:3:66: unverified-link: link `/docs/1.0/x` not verified: archived version `1.0` of the docs (`versioned_docs/`), which Folio does not read",
            "docs/intro.md:4:43: unverified-link: link `api/index.md` not verified: a path `.gitignore` ignores: a file made when the site is built",
            "docs/intro.md:4:61: broken-link: link `/docs/missing` matches no file: no `docs/missing.md`, `docs/missing/index.md` or `docs/missing/_index.md`",
            "docs/intro.md:4:80: unverified-link: link `/showcase` not verified: outside the docs' routes (`/docs/`): a page of another plugin or of the host, which Folio does not read",
        ],
        "{report:#?}"
    );
}

#[test]
fn a_hugo_site_is_read_with_its_mounts_aliases_and_include_fragments() {
    // Pages of a mounted folder are served, a relative alias redirects from the page's folder,
    // an include fragment's relative links are the includer's, an include resolved by the
    // site's own template is not Folio's to check; a miss of the pages' own is still an error.
    let tree = Tree::new();
    tree.file(
        "site/hugo.yaml",
        "baseURL: https://x.example/\nmodule:\n  mounts:\n    - { source: content, target: content }\n\
         \x20   - { source: ../specs, target: content/docs/specs }\n\
         cascade:\n  - build: { render: never }\n    target: { path: '{,/**}/_includes{,/**}' }\n",
    )
    .file("specs/trace.md", "# Trace\n")
    .file("site/layouts/_shortcodes/include.html", "{{ partial \"find-include.html\" . }}\n")
    .file("site/content/docs/_includes/part.md", "See [the API](../api/).\n")
    .file("site/content/blog/2023/new.md", "---\naliases: [old-name]\n---\n# New\n")
    .file(
        "site/content/docs/intro.md",
        "# Intro\n\n[a](/docs/specs/trace/) [b](specs/trace.md) [c](/blog/2023/old-name/) [d](/docs/missing/)\n\n\
         {{% include \"part.md\" %}}\n",
    );
    let report = all_diagnostics(tree.path());
    assert_eq!(
        report,
        [
            "site/content/docs/_includes/part.md:1:15: unverified-link: link `../api/` not verified: a fragment `cascade` in `site/hugo.yaml` keeps from being rendered (`build.render: never`): its relative links resolve from the page that includes it",
            "site/content/docs/intro.md:3:75: broken-link: link `/docs/missing/` matches no file: no `site/content/docs/missing.md`, `site/content/docs/missing/index.md` or `site/content/docs/missing/_index.md`",
            "site/content/docs/intro.md:5:14: unverified-link: link `part.md` not verified: the site's `include` shortcode (`site/layouts/_shortcodes/include.html`) finds the file its own way, which Folio does not run",
        ],
        "{report:#?}"
    );
}

#[test]
fn import_aliases_app_router_pages_and_static_files_resolve_as_the_site_serves_them() {
    let tree = Tree::new();
    tree.file("astro.config.mjs", "export default { integrations: [starlight({ title: 'x' })] };\n")
        .file(
            "tsconfig.json",
            "{ \"compilerOptions\": { \"paths\": { \"@assets/*\": [\"src/assets/*\"], } } }\n",
        )
        .file("src/assets/logo.svg", "<svg/>\n")
        .file("src/content/docs/index.md", "# Home\n\n![a](@assets/logo.svg) ![b](@assets/gone.svg)\n");
    assert_eq!(
        all_diagnostics(tree.path()),
        [
            "src/content/docs/index.md:3:29: broken-link: link `@assets/gone.svg` matches no file: `@assets/*` stands for `src/assets/*` (`compilerOptions.paths` of `tsconfig.json`), and there is no `src/assets/gone.svg`"
        ]
    );
    // Next.js's app router: `guide/page.mdx` is served at `/guide` (no trailing slash), and
    // `../img/x.png` from `learn/intro.md` at `/learn/intro` is `/img/x.png` of `public/`.
    let next = Tree::new();
    next.file("next.config.mjs", "export default {};\n")
        .file("public/img/x.png", "png")
        .file("app/page.mdx", "# Home\n\n[g](/guide)\n")
        .file("app/guide/page.mdx", "# Guide\n\n[s](./setup) [h](../) ![x](../img/x.png) [m](./missing)\n")
        .file("app/setup/page.mdx", "# Setup\n");
    assert_eq!(
        all_diagnostics(next.path()),
        [
            "app/guide/page.mdx:3:46: broken-link: link `./missing` matches no file: no `app/guide/missing.mdx`, `app/guide/missing/index.mdx` or `app/guide/missing/_index.mdx`"
        ]
    );
}

#[test]
fn every_markdown_file_is_read_named_or_counted_and_a_left_out_skill_fails_the_run() {
    let tree = Tree::new();
    tree.file("docs/index.md", "# Home\n")
        .file(
            "skills/kept/SKILL.md",
            "---\nname: kept\ndescription: Use when a skill is read.\n---\n# Kept\n",
        )
        .file("README.md", "# Repo\n")
        .file("packages/a/README.md", "# A\n")
        .file("packages/b/CHANGELOG.md", "# B\n")
        .file(
            "plugins/review/skills/pr/SKILL.md",
            "---\nname: pr\ndescription: Use when reviewing.\n---\n# PR\n",
        )
        .file(
            "plugins/review/skills/lint/SKILL.md",
            "---\nname: lint\ndescription: Use when linting.\n---\n# L\n",
        )
        .file("tests/fixtures/sample/SKILL.md", "---\nname: sample\ndescription: A sample.\n---\n")
        .file("build/out.md", "# Output\n")
        .file(".gitignore", "/build/\n");
    let out = folio(tree.path(), &["check", "."]);
    assert_eq!(out.code, Some(1), "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "plugins/review/skills/lint/SKILL.md:1:1: error[skill-left-out]: `plugins/review/skills/lint/SKILL.md` and 1 more is not served: no skills folder Folio reads holds it"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("help: read its folder with `--skills plugins/review/skills`"),
        "{}",
        out.stdout
    );
    // Git's ignored build output is not the tree; the sample skill is counted, not an error.
    assert!(
        out.stdout.trim_end().ends_with(
            "1 doc, 1 skill, 0 links checked: docs from docs/, skills from skills/; left out: 6 markdown files outside the folders read (packages/ 2, plugins/ 2, the root 1, tests/ 1)"
        ),
        "{}",
        out.stdout
    );
    // Reading them serves them: nothing is left out then but what is not a skill.
    let out = folio(tree.path(), &["check", ".", "--skills", "skills", "--skills", "plugins/review/skills"]);
    assert_eq!(out.code, Some(0), "{}", out.stdout);
    assert!(!out.stdout.contains("skill-left-out"), "{}", out.stdout);
}

#[test]
fn the_no_content_hint_names_the_folder_of_many_content_roots_not_one_of_them() {
    let tree = Tree::new();
    for plugin in ["alpha", "beta", "gamma"] {
        tree.file(
            format!("plugins/{plugin}/skills/x/SKILL.md"),
            "---\nname: x\ndescription: Use when testing.\n---\n# X\n",
        );
    }
    let out = folio(tree.path(), &["check", "."]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stdout.contains(
            "help: 3 folders of `plugins/` are each laid out as a content root (`<folder>/docs/` or `<folder>/skills/`): name each with `--docs` and `--skills` (repeatable), or point Folio at one"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("help: read their folders with `--skills DIR` for each of the 3 folders that hold them (`plugins/alpha/skills`, …)"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_link_above_a_pages_folder_given_as_the_root_says_it_leaves_the_root() {
    let tree = Tree::new();
    tree.file("README.md", "# Repo\n").file("docs/a.md", "# A\n\n[r](../README.md) [m](missing.md)\n");
    let out = folio(&tree.path().join("docs"), &["check", ".", "--docs", ".", "--allow", "orphan-doc"]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stdout.contains(
            "a.md:3:5: error[broken-link]: link `../README.md` leaves the content root: the pages folder is the root Folio was given, and the link names a file above it\n"
        ),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("help: check from the folder that holds both (the repository root), naming the pages with `--docs DIR`"), "{}", out.stdout);
    // A miss inside the root keeps its own message.
    assert!(
        out.stdout.contains("error[broken-link]: link `missing.md` matches no file: no `missing.md`"),
        "{}",
        out.stdout
    );
}

#[test]
fn routes_a_config_leaves_unknown_are_unverified_and_static_files_a_build_writes_too() {
    // A Next.js app whose root catch-all renders pages from its own data, whose redirects are
    // read in full, and whose package script writes `public/rss.xml` (git ignores it): a route
    // it may answer is unverified, a static file it does not serve is still broken.
    let tree = Tree::new();
    tree.file(
        "next.config.js",
        "module.exports = { async redirects() { return [{ source: '/old', destination: '/' }] } };\n",
    )
    .file("package.json", "{ \"dependencies\": { \"next\": \"15\" } }\n")
    .file("app/[...slug]/page.tsx", "export default function Page() { return null }\n")
    .file("public/logo.png", "")
    .file(".gitignore", "public/rss.xml\n")
    .file(
        "content/docs/intro.md",
        "# Intro\n\n[a](/roadmap) [b](/rss.xml) [c](/logo.png) [d](/missing.png) [e](/old)\n",
    );
    let report = all_diagnostics(tree.path());
    assert_eq!(
        report,
        [
            "content/docs/intro.md:3:5: unverified-link: link `/roadmap` not verified: a route that `app/[...slug]/page.tsx` makes from its parameters",
            "content/docs/intro.md:3:19: unverified-link: link `/rss.xml` not verified: a path `.gitignore` ignores: a file made when the site is built",
            "content/docs/intro.md:3:48: broken-link: link `/missing.png` matches no file: no `content/missing.png`",
        ],
        "{report:#?}"
    );
    // The summary says the routes were not all read, and why, before the reader meets a warning.
    let out = crate::support::folio(tree.path(), &["check", "."]);
    let text = format!("{}{}", out.stdout, out.stderr);
    let summary = text.lines().last().unwrap_or_default();
    assert!(
        summary.ends_with(
            "(Next.js, detected from next.config.js); routes not all read: a route that `app/[...slug]/page.tsx` makes from its parameters"
        ),
        "{text}"
    );
    // A VitePress site whose `srcDir` only running its config tells: a relative link to a
    // route is resolved against a page route Folio cannot know.
    let vitepress = Tree::new();
    vitepress
        .file(
            "docs/.vitepress/config.ts",
            "export default defineConfig({ srcDir: fileURLToPath(new URL('../..', import.meta.url)) });\n",
        )
        .file("docs/guide/upgrade.md", "# Upgrade\n\n[a](../rules/indent) [b](./missing.md)\n");
    let report = all_diagnostics(vitepress.path());
    assert_eq!(
        report,
        [
            "docs/guide/upgrade.md:3:5: unverified-link: link `../rules/indent` not verified: `srcDir` in `docs/.vitepress/config.ts` is a call to a function",
            "docs/guide/upgrade.md:3:26: broken-link: link `./missing.md` matches no file: no `docs/guide/missing.md`",
        ],
        "{report:#?}"
    );
}

#[test]
fn a_hugo_page_is_served_at_the_url_its_frontmatter_sets() {
    let tree = Tree::new();
    tree.file("hugo.toml", "baseURL = 'https://example.org/'\ntitle = 'x'\n")
        .file(
            "content/events/past/2024/gsoc.md",
            "+++\ntitle = \"GSoC 2024\"\n# kept where it was before the move\nurl = \"/events/gsoc-2024/\"\n+++\n# GSoC\n",
        )
        .file("content/events/next.md", "# Next\n\n[a](/events/gsoc-2024/) [b](/events/gsoc-2023/)\n")
        // Blank lines before a `+++` block, which Hugo skips; a pretty URL's `index.html`.
        .file("content/events/past/_index.md", "\n+++\ntitle = \"Past\"\naliases = [\"/past/\"]\n+++\n# Past\n")
        .file(
            "content/events/past/2024/notes/index.md",
            "# Notes\n\n[a](/past/) [b](../../../next/index.html) [c](../../../gone/index.html)\n",
        )
        // A bundle's file under a folder Hugo lowercases in its URL.
        .file("content/events/Photos/_index.md", "# Photos\n")
        .file("content/events/Photos/team.png", "")
        .file("content/events/gallery.md", "# Gallery\n\n![a](/events/photos/team.png) ![b](/events/photos/Team.png)\n")
        // A folder with a space: Hugo's URL has a hyphen (`urlize`).
        .file("content/Useful Utilities/Systemd-start.md", "# Systemd\n")
        .file("content/events/past/setup.md", "# Setup\n\n[a](../../../Useful-Utilities/Systemd-start) [b](/useful-utilities/systemd-start/)\n");
    let report = all_diagnostics(tree.path());
    assert_eq!(
        report,
        [
            "content/events/gallery.md:3:36: case-mismatch: link `/events/photos/Team.png` matches `content/events/Photos/team.png` only when case is ignored; servers and unpacked skills compare case",
            "content/events/next.md:3:29: broken-link: link `/events/gsoc-2023/` matches no file: no `content/events/gsoc-2023.md`, `content/events/gsoc-2023/index.md` or `content/events/gsoc-2023/_index.md`",
            "content/events/past/2024/notes/index.md:3:47: broken-link: link `../../../gone/index.html` matches no file: no `content/events/gone/index.html`, `content/events/gone/index.md` or `content/events/gone/index.mdx`",
        ],
        "{report:#?}"
    );
}

#[test]
fn an_app_router_page_is_its_folders_route_across_route_groups() {
    // Next.js's app router: `(docs)` is no route segment, `uploading-files/page.mdx` is the
    // page of `/uploading-files` (uploadthing's docs).
    let tree = Tree::new();
    tree.file("docs/next.config.js", "module.exports = {};\n")
        .file("docs/src/app/(docs)/uploading-files/page.mdx", "# Uploading\n\n## Client side uploads\n")
        .file(
            "docs/src/app/(docs)/api-reference/client/page.mdx",
            "# Client\n\n[a](/uploading-files#client-side-uploads) [b](/uploading-files#server) [c](/file-routes)\n",
        );
    let report = all_diagnostics(tree.path());
    assert_eq!(
        report,
        [
            "docs/src/app/(docs)/api-reference/client/page.mdx:3:47: broken-anchor: `docs/src/app/(docs)/uploading-files/page.mdx` has no heading with id `server`",
            "docs/src/app/(docs)/api-reference/client/page.mdx:3:76: broken-link: link `/file-routes` matches no file: no `docs/src/app/file-routes.mdx`, `docs/src/app/file-routes/index.mdx` or `docs/src/app/file-routes/_index.mdx`",
        ],
        "{report:#?}"
    );
}

#[test]
fn a_chapter_summary_md_lists_that_mdbook_creates_is_unverified_unless_create_missing_is_off() {
    let tree = Tree::new();
    tree.file("book.toml", "[book]\ntitle = 'x'\n")
        .file("src/SUMMARY.md", "# Summary\n\n- [Intro](./intro.md)\n- [Layout](./layout.md)\n")
        .file("src/intro.md", "# Intro\n\n[gone](./gone.md)\n");
    let report = all_diagnostics(tree.path());
    assert_eq!(
        report,
        [
            "src/SUMMARY.md:4:12: unverified-link: link `./layout.md` not verified: a chapter `SUMMARY.md` lists that mdBook creates, empty, when it is missing (`build.create-missing` of `book.toml`)",
            "src/intro.md:3:8: broken-link: link `./gone.md` matches no file: no `src/gone.md`",
        ],
        "{report:#?}"
    );
    let strict = Tree::new();
    strict
        .file("book.toml", "[book]\ntitle = 'x'\n[build]\ncreate-missing = false\n")
        .file("src/SUMMARY.md", "# Summary\n\n- [Layout](./layout.md)\n");
    let report = all_diagnostics(strict.path());
    assert_eq!(
        report,
        ["src/SUMMARY.md:3:12: broken-link: link `./layout.md` matches no file: no `src/layout.md`"],
        "{report:#?}"
    );
}
