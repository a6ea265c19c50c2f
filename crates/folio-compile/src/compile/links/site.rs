//! How the site a docs tree is written for maps routes to files: one model, whose rules the
//! tree selects, rather than a special case per site generator.
//!
//! The rules a generator may turn on:
//! - **Section pages**: `x/_index.md` is the page of the section `x/`, and the pages of a section
//!   are listed on it (Hugo). A section's pages are reached without a link.
//! - **Case-insensitive routes**: page links match files ignoring case (Hugo serves lowercase
//!   URLs and `GetPage` ignores case).
//! - **Routes from the root**: a relative page link that fails against the page's directory is
//!   tried against `docs/` (Hugo's `GetPage`).
//! - **Locale roots**: each locale folder (`docs/ja/`) is a site of its own: its home page is
//!   reached without a link, and a page it lacks is rendered from the default locale's folder
//!   (Starlight, Docusaurus, Hugo's multilingual mode).
//!
//! A Hugo tree (`docs/` holds an `_index.md`) turns on the first three; a tree with locale
//! folders the fourth. Pure: decides from paths, never reads files nor reports anything.

use super::Targets;
use super::forms::{page_stem, parent};

/// The routing rules of one docs tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Site<'t> {
    /// Page routes match files ignoring case.
    pub(super) case_insensitive_routes: bool,
    /// A relative page link is also tried against `docs/`.
    pub(super) routes_from_root: bool,
    /// Locale folders under `docs/` (`ja`) and the default one, when the tree has them.
    pub(super) locales: Option<(&'t [&'t str], &'t str)>,
}

impl<'t> Site<'t> {
    /// The rules of the tree the targets describe.
    pub(super) fn of(targets: &'t Targets<'t>) -> Site<'t> {
        let hugo = targets
            .uri_by_path
            .keys()
            .any(|p| p.starts_with("docs/") && (p.ends_with("/_index.md") || p.ends_with("/_index.mdx")));
        let locales = match (targets.default_locale, targets.locale_folders.is_empty()) {
            (Some(default), false) => Some((&targets.locale_folders[..], default)),
            _ => None,
        };
        Site { case_insensitive_routes: hugo, routes_from_root: hugo, locales }
    }

    /// The directories a doc's page link is resolved against, in order, as path segments: for a
    /// site path `docs/`, then the content root (a repository-absolute link); for a relative one
    /// the linking file's directory, then `docs/` when routes resolve from the root.
    pub(super) fn bases(&self, linking_path: &'t str, doc: bool, absolute: bool) -> Vec<Vec<&'t str>> {
        if absolute {
            return vec![vec!["docs"], vec![]];
        }
        let mut bases = vec![parent(linking_path).map_or_else(Vec::new, |dir| dir.split('/').collect())];
        if doc && self.routes_from_root {
            bases.push(vec!["docs"]);
        }
        bases
    }

    /// The page a route into a locale that lacks it is rendered from: `docs/ja/guides/x` →
    /// (`docs/en/guides/x`, `ja`). `None` outside a non-default locale folder.
    pub(super) fn locale_fallback(&self, joined: &str) -> Option<(String, &'t str)> {
        let (folders, default) = self.locales?;
        let (locale, page) = joined.strip_prefix("docs/")?.split_once('/')?;
        let lacking = folders.iter().copied().find(|f| *f == locale && *f != default)?;
        Some((format!("docs/{default}/{page}"), lacking))
    }

    /// True when a reader reaches the doc at `path` without a link (the `orphan-doc`
    /// exemptions): the home page of the site or of a locale, every `README.md` (hosts show it
    /// for its directory), every section page, and every page of a section. `exists` says
    /// whether a path is a file of the tree.
    pub(super) fn reached_without_link(&self, path: &str, exists: impl Fn(&str) -> bool) -> bool {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let stem = page_stem(name);
        let home = matches!(stem, "index" | "_index" | "README");
        let locale_root = self
            .locales
            .is_some_and(|(folders, _)| dir.strip_prefix("docs/").is_some_and(|l| folders.contains(&l)));
        if home && (dir == "docs" || locale_root) {
            return true;
        }
        if matches!(stem, "README" | "_index") {
            return true;
        }
        // A page bundle `x/index.md` is a page of the section above it.
        let section = if stem == "index" { parent(dir).unwrap_or("") } else { dir };
        ["_index.md", "_index.mdx"].iter().any(|index| exists(&format!("{section}/{index}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_model_for_hugo_and_locale_sites() {
        let plain = Site::default();
        assert_eq!(plain.bases("docs/a/b.md", true, false), [vec!["docs", "a"]]);
        assert_eq!(plain.bases("docs/a/b.md", true, true), [vec!["docs"], vec![]]);
        let hugo = Site { case_insensitive_routes: true, routes_from_root: true, locales: None };
        assert_eq!(hugo.bases("docs/a/b.md", true, false), [vec!["docs", "a"], vec!["docs"]]);
        assert_eq!(hugo.bases("skills/s/SKILL.md", false, false), [vec!["skills", "s"]]);
        let folders = ["en", "ja"];
        let site = Site { locales: Some((&folders, "en")), ..Site::default() };
        assert_eq!(site.locale_fallback("docs/ja/guides/x"), Some(("docs/en/guides/x".to_owned(), "ja")));
        assert_eq!(site.locale_fallback("docs/en/guides/x"), None);
        assert_eq!(site.locale_fallback("docs/guides/x"), None);
        let none = |_: &str| false;
        assert!(site.reached_without_link("docs/ja/index.mdx", none));
        assert!(!site.reached_without_link("docs/ja/guides/index.mdx", none));
        assert!(!plain.reached_without_link("docs/ja/index.mdx", none));
        assert!(plain.reached_without_link("docs/index.md", none));
        let sections = |p: &str| p == "docs/guides/_index.md";
        assert!(plain.reached_without_link("docs/guides/x.md", sections));
        assert!(plain.reached_without_link("docs/guides/bundle/index.md", sections));
    }
}
