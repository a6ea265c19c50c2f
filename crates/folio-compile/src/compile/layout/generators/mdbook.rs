//! mdBook, from its guide's `book.toml` reference
//! (<https://rust-lang.github.io/mdBook/format/configuration/index.html>) and its renderer
//! (`src/renderer/html_handlebars/`, mdBook 0.4 and 0.5): the pages are `[book] src` (`src/`),
//! `SUMMARY.md` is the navigation, `x.md` is served as `x.html` (`README.md` as `index.html`),
//! the book lives at `[output.html] site-url`, `[output.html.redirect]` serves old pages, and a
//! `[preprocessor.*]` other than mdBook's own may rewrite a chapter's links before they are
//! rendered.

use super::{Preset, Project, Spec, url_path};
use crate::compile::markdown::HeadingIds;

pub(super) struct MdBook;

/// Preprocessors known to leave links that name no file alone: mdBook's own (`links`,
/// `index`) and common ones that add markup (math, diagrams, admonitions, tables of contents).
const LINK_SAFE_PREPROCESSORS: &[&str] = &[
    "links",
    "index",
    "katex",
    "mathjax",
    "mermaid",
    "admonish",
    "toc",
    "pagetoc",
    "footnote",
    "graphviz",
    "plantuml",
    "open-on-gh",
    "last-changed",
    "tabs",
    "alerts",
    "yml-header",
    "svgbob",
    "kroki-preprocessor",
    "catppuccin",
    "codeblocks",
    "cmdrun",
    "i18n",
    "gettext",
    "template",
    "variables",
    "embed",
    "indexing",
];

impl Preset for MdBook {
    fn id(&self) -> &'static str {
        "mdbook"
    }

    fn name(&self) -> &'static str {
        "mdBook"
    }

    fn config_files(&self) -> &'static [&'static str] {
        &["book.toml"]
    }

    fn read(&self, project: &Project<'_>) -> Spec {
        let value = project.value();
        let src = value.at(&["book", "src"]).and_then(|v| v.str()).unwrap_or("src");
        let mut spec = Spec {
            docs: project.at(src).unwrap_or_else(|| project.at("src").unwrap_or_default()),
            ..Spec::default()
        };
        let rules = &mut spec.rules;
        rules.heading_ids = HeadingIds::MdBook;
        rules.nav_files = vec!["SUMMARY.md".to_owned()];
        // `build.create-missing` (on by default) writes every chapter `SUMMARY.md` lists that
        // does not exist, empty, before building.
        if value.at(&["build", "create-missing"]).and_then(|v| v.bool()) != Some(false) {
            rules.unverifiable.created_by_nav = Some((
                "SUMMARY.md".to_owned(),
                format!(
                    "a chapter `SUMMARY.md` lists that mdBook creates, empty, when it is missing (`build.create-missing` of `{}`)",
                    project.config
                ),
            ));
        }
        rules.base = value.at(&["output", "html", "site-url"]).and_then(url_path).unwrap_or_default();
        for (from, _) in value.at(&["output", "html", "redirect"]).map_or(&[][..], |v| v.entries()) {
            let route = from.split('#').next().unwrap_or(from);
            rules.extra_routes.push(format!("/{}", route.trim_matches('/')));
        }
        if !rules.base.is_empty() {
            rules.unverifiable.outside_base = Some(format!(
                "a site path outside the book's `site-url` (`/{}/`): another part of the host",
                rules.base
            ));
        }
        rules.unverifiable.above_pages = Some(format!(
            "a page above the book's `{src}/`, another book or site of the same host (the book is served at \
             its `site-url`)"
        ));
        let rewriting: Vec<&str> = value
            .get("preprocessor")
            .map_or(&[][..], |v| v.entries())
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| !LINK_SAFE_PREPROCESSORS.contains(name))
            .collect();
        if let Some(first) = rewriting.first() {
            rules.unverifiable.non_files = Some(format!(
                "a destination that names no file, which the `{first}` preprocessor of `{}` may rewrite",
                project.config
            ));
        }
        spec
    }
}
