//! How the site a docs tree is written for maps routes to files: one model, whose rules the
//! tree selects, rather than a special case per site generator.
//!
//! The rules a generator may turn on:
//! - **Section pages**: `x/_index.md` is the page of the section `x/`, and the pages of a section
//!   are listed on it (Hugo). A section's pages are reached without a link, those of folders
//!   below it without an `_index.md` of their own too.
//! - **Case-insensitive routes**: page links match files ignoring case (Hugo serves lowercase
//!   URLs and `GetPage` ignores case).
//! - **Routes from the root**: a relative page link that fails against the page's directory is
//!   tried against `docs/` (Hugo's `GetPage`).
//! - **Locale roots**: each locale folder (`docs/ja/`) is a site of its own: its home page is
//!   reached without a link, and a page it lacks is rendered from the default locale's folder
//!   (Starlight, Docusaurus, Hugo's multilingual mode).
//!
//! - **Static files**: a site-absolute link is tried against the folders the site serves at `/`
//!   (`public/`, `static/`, read as the catalog's `static/`) after `docs/`.
//! - **Base path**: a site served under `/mdBook/` or `/docs/4.x/` writes links with that
//!   prefix; it is dropped before a site-absolute link is resolved.
//! - **Ordering prefixes**: `1.getting-started/2.install.md` (Nuxt Content) or
//!   `01-app/01-intro.mdx` (Next.js) is routed without the numbers (`getting-started/install`).
//! - **Navigation files**: `SUMMARY.md` (mdBook) is the site's navigation: it is reached without
//!   a link, and a page it links to is linked. A `404` page at the site root is reached by the
//!   server, never by a link.
//!
//! The rules come from the generator's preset and `folio.toml` `[site]`
//! ([`SiteRules`](crate::compile::layout::SiteRules)); a Hugo tree (`docs/` holds an
//! `_index.md`) turns on the first three, a tree with locale folders the fourth, a tree most of
//! whose names carry a number prefix the ordering rule. Pure: decides from paths, never reads
//! files nor reports anything.

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
    /// The site serves static folders at `/` (the catalog's `static/`).
    pub(super) assets: bool,
    /// The base path, without slashes around it; empty for `/`.
    pub(super) base: std::borrow::Cow<'t, str>,
    /// The base path was inferred from the tree's links, which write whole site paths: a
    /// site-absolute link outside it is to another section of the site, not checked.
    pub(super) base_inferred: bool,
    /// Names carry ordering prefixes the routes leave out.
    pub(super) ordering_prefixes: bool,
    /// Navigation files, relative to `docs/`.
    pub(super) nav_files: &'t [String],
    /// Locales written as file-name suffixes.
    pub(super) locale_suffixes: &'t [&'t str],
    /// Folders of `docs/` whose pages the navigation lists on its own.
    pub(super) nav_dirs: &'t [String],
    /// Pages are served at folder URLs (see [`SiteRules::directory_urls`](crate::compile::layout::SiteRules)).
    pub(super) directory_urls: bool,
    /// Pages may be `page.mdx` files served at their folder's route (Next.js's app router).
    pub(super) page_files: bool,
    /// The route the pages folder is served at, without slashes (`docs` for Docusaurus).
    pub(super) route_base: &'t str,
    /// Sections as Hugo makes them (the site is Hugo's by its config, not only by its
    /// `_index.md` files): a folder without `_index.md` belongs to the section above it.
    pub(super) hugo_sections: bool,
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
        let rules = &targets.site;
        let pages = || targets.uri_by_path.keys().filter_map(|p| p.strip_prefix("docs/"));
        Site {
            case_insensitive_routes: hugo || rules.case_insensitive_routes,
            routes_from_root: hugo || rules.routes_from_root,
            locales,
            assets: targets.other_files.iter().any(|p| p.starts_with("static/")),
            base: std::borrow::Cow::Borrowed(&rules.base),
            base_inferred: false,
            ordering_prefixes: rules.ordering_prefixes.unwrap_or_else(|| mostly_ordered(pages())),
            nav_files: &rules.nav_files,
            nav_dirs: &rules.nav_dirs,
            locale_suffixes: &targets.locale_suffixes,
            directory_urls: rules.directory_urls,
            page_files: rules.route_groups,
            route_base: &rules.route_base,
            hugo_sections: rules.case_insensitive_routes,
        }
    }

    /// A site-absolute path without the site's base path (`/mdBook/cli/` → `/cli/`), when it
    /// starts with it.
    pub(super) fn without_base<'p>(&self, path: &'p str) -> Option<&'p str> {
        if self.base.is_empty() {
            return None;
        }
        let rest = path.strip_prefix('/')?.strip_prefix(self.base.as_ref())?;
        (rest.is_empty() || rest.starts_with('/')).then_some(rest)
    }

    /// The directories a doc's page link is resolved against, in order, as path segments: for a
    /// site path `docs/`, then the content root (a repository-absolute link); for a relative one
    /// the linking file's directory, then `docs/` when routes resolve from the root.
    pub(super) fn bases(&self, linking_path: &'t str, doc: bool, absolute: bool) -> Vec<Vec<&'t str>> {
        if absolute {
            let mut bases = vec![vec!["docs"]];
            // The default locale's folder is served at the site root (VitePress rewrites
            // `en/` there; Docusaurus and Starlight serve the default locale without a prefix).
            if let Some((folders, default)) = self.locales
                && folders.contains(&default)
            {
                bases.push(vec!["docs", default]);
            }
            if self.assets {
                bases.push(vec!["static"]);
            }
            bases.push(vec![]);
            return bases;
        }
        let mut bases = vec![parent(linking_path).map_or_else(Vec::new, |dir| dir.split('/').collect())];
        // Hugo's `GetPage` looks a leaf bundle's relative links up from the bundle's parent
        // (`blog/2019/a/index.md` links `b` for `blog/2019/b/`).
        if doc
            && self.case_insensitive_routes
            && let Some(dir) = parent(linking_path).filter(|_| page_stem(linking_path).ends_with("/index"))
            && let Some(grand) = parent(dir)
        {
            bases.push(grand.split('/').collect());
        }
        // An app router page (`docs/guide/page.mdx`) is served at `/guide`, with no trailing
        // slash: the browser resolves its relative links from the folder's parent.
        if doc
            && self.page_files
            && page_stem(linking_path).ends_with("/page")
            && let Some(grand) = parent(linking_path).and_then(parent)
        {
            bases.push(grand.split('/').collect());
        }
        if doc && self.routes_from_root {
            bases.push(vec!["docs"]);
        }
        // The page's URL folder among the static files: `../images/x.png` from
        // `docs/learn/intro.md`, served at `/learn/intro`, is `/images/x.png`.
        if doc
            && self.assets
            && let Some(dir) = parent(linking_path)
            && let Some(below) = dir.strip_prefix("docs").filter(|r| r.is_empty() || r.starts_with('/'))
        {
            let mut base = vec!["static"];
            base.extend(self.route_base.split('/').filter(|s| !s.is_empty()));
            base.extend(below.split('/').filter(|s| !s.is_empty()));
            bases.push(base);
        }
        // The page's own URL folder (`docs/guide/install/` for `docs/guide/install.md`), where
        // a browser resolves what the generator left as written.
        if doc && self.directory_urls {
            let stem = page_stem(linking_path);
            if !matches!(stem.rsplit('/').next(), Some("index" | "_index" | "README")) && stem != linking_path
            {
                bases.push(stem.split('/').collect());
                // And that URL folder among the static files: `values.yaml` from
                // `docs/install/best-practice.md`, served at `/install/best-practice/`, is
                // `/install/best-practice/values.yaml`.
                if self.assets
                    && let Some(below) = stem.strip_prefix("docs").filter(|r| r.starts_with('/'))
                {
                    let mut base = vec!["static"];
                    base.extend(self.route_base.split('/').filter(|s| !s.is_empty()));
                    base.extend(below.split('/').filter(|s| !s.is_empty()));
                    bases.push(base);
                }
            }
        }
        bases
    }

    /// `written` joined onto `base` as a browser resolves a URL the generator left as written
    /// (a relative link that names no markdown file, on a site served at folder URLs from the
    /// host's root): a `..` above the site root stays at the root (RFC 3986's
    /// `remove_dot_segments`), so `../../../css_types/x` from `/styles/grid/` is `/css_types/x`.
    /// `None` where that does not apply, or where no `..` climbed above the root (the plain
    /// join is then the same).
    pub(super) fn clamped<'a>(
        &self,
        base: &[&'a str],
        written: &[&'a str],
        doc: bool,
        path: &str,
    ) -> Option<Vec<&'a str>> {
        let markdown = [".md", ".mdx"].iter().any(|e| path.trim_end_matches('/').ends_with(e));
        // Under a base path the root is the host's, outside the site: nothing to resolve to.
        if !doc || !self.directory_urls || markdown || !self.base.is_empty() {
            return None;
        }
        let floor = match base.first() {
            // Pages served below a route of their own (`/docs/`): the host's root is not theirs.
            Some(&"docs") if self.route_base.is_empty() => 1,
            Some(&"static") => 1,
            _ => return None,
        };
        if base.len() < floor {
            return None;
        }
        let mut out: Vec<&str> = base.to_vec();
        let mut clamped = false;
        for segment in written {
            match *segment {
                "" | "." => {}
                ".." if out.len() > floor => {
                    out.pop();
                }
                ".." => clamped = true,
                s => out.push(s),
            }
        }
        clamped.then_some(out)
    }

    /// The page a route into a locale that lacks it is rendered from: `docs/ja/guides/x` →
    /// (`docs/en/guides/x`, `ja`). `None` outside a non-default locale folder.
    pub(super) fn locale_fallback(&self, joined: &str) -> Option<(String, &'t str)> {
        let (folders, default) = self.locales?;
        let (locale, page) = joined.strip_prefix("docs/")?.split_once('/')?;
        let lacking = folders.iter().copied().find(|f| *f == locale && *f != default)?;
        // A default locale at the root of `docs/` (Starlight's own docs) has no folder.
        if folders.contains(&default) {
            Some((format!("docs/{default}/{page}"), lacking))
        } else {
            Some((format!("docs/{page}"), lacking))
        }
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
        // Numbered names exist to order a sidebar made from the folders: every page is in it.
        if self.ordering_prefixes && path.starts_with("docs/") {
            return true;
        }
        // A translation written as a suffix (`guide.ja.mdx`) is served at its page's route, in
        // its locale: reached as that page is.
        if let Some((tag, base)) = crate::compile::locales::split_suffix(path)
            && self.locale_suffixes.contains(&tag)
            && exists(&base)
        {
            return true;
        }
        let rel = path.strip_prefix("docs/").unwrap_or(path);
        if self.nav_files.iter().any(|nav| nav == rel) || ((dir == "docs" || locale_root) && stem == "404") {
            return true;
        }
        // Within a locale folder, the navigation lists the translations of the same folders.
        let in_locale = self
            .locales
            .and_then(|(folders, _)| folders.iter().find_map(|l| rel.strip_prefix(l)?.strip_prefix('/')))
            .unwrap_or(rel);
        let listed = |nav: &String| {
            nav.is_empty()
                || [rel, in_locale]
                    .iter()
                    .any(|r| r.strip_prefix(nav.as_str()).is_some_and(|r| r.starts_with('/')))
        };
        if path.starts_with("docs/") && self.nav_dirs.iter().any(listed) {
            return true;
        }
        // A page bundle `x/index.md` is a page of the section above it. In Hugo a folder
        // without `_index.md` is no section: its pages belong to the nearest one above, and
        // every folder right under the pages folder is a section of its own.
        let mut section = if stem == "index" { parent(dir).unwrap_or("") } else { dir };
        loop {
            if ["_index.md", "_index.mdx"].iter().any(|index| exists(&format!("{section}/{index}"))) {
                return true;
            }
            if !self.hugo_sections {
                return false;
            }
            match parent(section) {
                Some("docs") => return true,
                Some(up) if up.starts_with("docs/") => section = up,
                _ => return false,
            }
        }
    }
}

/// A path without its page extension, index name and ordering prefixes, lowercase:
/// `docs/1.Guide/2.install.md` → `docs/guide/install`, `docs/01-app/index.mdx` → `docs/app`.
pub(super) fn route_key(path: &str) -> String {
    let path = page_stem(path);
    let path = ["/index", "/_index", "/README"].iter().find_map(|s| path.strip_suffix(s)).unwrap_or(path);
    let segments: Vec<&str> = path.split('/').map(strip_order).collect();
    // Route segments are slugs of the names: the symbols slugify spells out (`$fetch.md` is
    // served at `dollarfetch`, as Nuxt Content routes it).
    let mut key = String::with_capacity(path.len());
    for c in segments.join("/").chars() {
        match c {
            '$' => key.push_str("dollar"),
            '&' => key.push_str("and"),
            '%' => key.push_str("percent"),
            '<' => key.push_str("less"),
            '>' => key.push_str("greater"),
            '|' => key.push_str("or"),
            c => key.extend(c.to_lowercase()),
        }
    }
    key
}

/// The route of a page path when the site slugifies every segment (Starlight):
/// `docs/Guides/1.0 Notes.md` → `docs/guides/10-notes`; a link's path, already slugged, keys the
/// same.
pub(super) fn slug_key(path: &str) -> String {
    let path = page_stem(path);
    let path = path.strip_suffix("/index").unwrap_or(path);
    path.split('/')
        .map(|segment| crate::compile::markdown::HeadingIds::GitHub.slug(segment))
        .collect::<Vec<_>>()
        .join("/")
}

/// A name without an ordering prefix: digits then `.` or `-` (`1.guide`, `01-app`), when
/// something follows.
fn strip_order(name: &str) -> &str {
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    match name.as_bytes().get(digits) {
        Some(b'.' | b'-') if digits > 0 && name.len() > digits + 1 => &name[digits + 1..],
        _ => name,
    }
}

/// True when most page names below `docs/` (files and folders) carry an ordering prefix.
fn mostly_ordered<'p>(pages: impl Iterator<Item = &'p str>) -> bool {
    let (mut ordered, mut names) = (0usize, 0usize);
    let mut seen = std::collections::BTreeSet::new();
    for page in pages {
        for name in page.split('/') {
            if seen.insert(name) {
                names += 1;
                ordered += usize::from(strip_order(name) != name);
            }
        }
    }
    names >= 4 && ordered * 2 > names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_leave_out_ordering_prefixes_and_index_names() {
        assert_eq!(route_key("docs/1.Guide/2.install.md"), "docs/guide/install");
        assert_eq!(route_key("docs/01-app/01-getting-started/index.mdx"), "docs/app/getting-started");
        assert_eq!(route_key("docs/4.api/2.composables/use-fetch.md"), "docs/api/composables/use-fetch");
        // A name that is only a number, or a version, keeps it.
        assert_eq!(route_key("docs/404.md"), "docs/404");
        assert_eq!(route_key("docs/4.api/3.utils/$fetch.md"), "docs/api/utils/dollarfetch");
        assert_eq!(strip_order("2024-recap"), "recap");
        assert!(mostly_ordered(["1.a/1.x.md", "1.a/2.y.md", "2.b/index.md"].into_iter()));
        assert!(!mostly_ordered(["guide/x.md", "guide/y.md", "2024-notes.md", "z.md"].into_iter()));
        let site = Site { base: "docs/4.x".into(), ..Site::default() };
        assert_eq!(site.without_base("/docs/4.x/api/x"), Some("/api/x"));
        assert_eq!(site.without_base("/docs/4.xy/api"), None);
        assert_eq!(Site::default().without_base("/a"), None);
    }

    #[test]
    fn one_model_for_hugo_and_locale_sites() {
        let plain = Site::default();
        assert_eq!(plain.bases("docs/a/b.md", true, false), [vec!["docs", "a"]]);
        assert_eq!(plain.bases("docs/a/b.md", true, true), [vec!["docs"], vec![]]);
        let hugo = Site { case_insensitive_routes: true, routes_from_root: true, ..Site::default() };
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
        // A folder without `_index.md` belongs to the section above it, in Hugo only; a folder
        // right under the pages folder is a section of its own there.
        assert!(!plain.reached_without_link("docs/guides/2023/x.md", sections));
        let hugo = Site { hugo_sections: true, ..hugo };
        assert!(hugo.reached_without_link("docs/guides/2023/x.md", sections));
        assert!(hugo.reached_without_link("docs/blog/2023/x.md", none));
        assert!(!hugo.reached_without_link("docs/x.md", none));
    }
}
