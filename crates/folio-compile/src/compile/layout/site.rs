//! The site model's rules: how the site a docs tree is built into renders heading ids, where it
//! is served (its base path), and which of its files are navigation rather than pages. Each
//! generator's preset ([`SiteRules::preset`]) fills them; `folio.toml` `[site]` sets any of them
//! (`links::site` applies the routing rules, `markdown` the heading ids).
//!
//! Reads only the config file the generator was detected from, for its base path.

use std::path::Path;

use super::Generator;
use crate::compile::markdown::HeadingIds;

/// How a site renders and routes its pages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteRules {
    /// How heading and footnote ids are made.
    pub heading_ids: HeadingIds,
    /// The path the site is served under (`/mdBook/`, `/docs/4.x/`), without slashes around it:
    /// a site-absolute link that starts with it is read without it. Empty for `/`.
    pub base: String,
    /// Files of the pages folder that are the site's navigation, not pages (mdBook's
    /// `SUMMARY.md`): their links count for `orphan-doc`, and they are reached without a link.
    pub nav_files: Vec<String>,
    /// Page routes match files ignoring case (Hugo).
    pub case_insensitive_routes: bool,
    /// A relative page link that fails against the page's folder is tried from the site root
    /// (Hugo's `GetPage`).
    pub routes_from_root: bool,
    /// Pages are served at folder URLs (`guide/install.md` at `guide/install/`), so a link the
    /// generator leaves as written (in raw HTML) is relative to that folder: such a relative
    /// link is also tried from there.
    pub directory_urls: bool,
    /// File and folder names may carry an ordering prefix the route leaves out
    /// (`1.getting-started/`, `01-app/`): `None` to decide from the tree (most names carry one).
    pub ordering_prefixes: Option<bool>,
}

impl SiteRules {
    /// The rules of `generator`, with the base path its config file at `config` (content-
    /// relative) sets, where it is plain to read.
    pub fn preset(generator: Option<Generator>, root: &Path, config: Option<&str>) -> SiteRules {
        let Some(generator) = generator else { return SiteRules::default() };
        let text = config
            .and_then(|c| crate::compile::source::read_inside(root, c))
            .and_then(|b| String::from_utf8(b).ok());
        let base = text.as_deref().and_then(|t| base_path(generator, t)).unwrap_or_default();
        let mut rules = SiteRules { base, ..SiteRules::default() };
        match generator {
            Generator::MdBook => {
                rules.heading_ids = HeadingIds::MdBook;
                rules.nav_files = vec!["SUMMARY.md".to_owned()];
            }
            Generator::VitePress => rules.heading_ids = HeadingIds::VitePress,
            Generator::MkDocs => {
                rules.heading_ids = HeadingIds::PythonMarkdown;
                rules.directory_urls = true;
            }
            Generator::Hugo => {
                rules.case_insensitive_routes = true;
                rules.routes_from_root = true;
                rules.directory_urls = true;
            }
            Generator::Docusaurus | Generator::Starlight | Generator::NuxtContent | Generator::NextJs => {
                rules.directory_urls = true;
            }
        }
        rules
    }
}

/// The base path a generator's config file sets: mdBook's `site-url`, VitePress's and Astro's
/// `base`, Docusaurus's `baseUrl`, MkDocs's `site_url` path, Hugo's `baseURL` path. Read as text
/// (a JavaScript config is never run): the first string given to the key.
fn base_path(generator: Generator, text: &str) -> Option<String> {
    let key = match generator {
        Generator::MdBook => "site-url",
        Generator::VitePress | Generator::Starlight => "base",
        Generator::Docusaurus => "baseUrl",
        Generator::MkDocs => "site_url",
        Generator::Hugo => "baseURL",
        Generator::NuxtContent | Generator::NextJs => "basePath",
    };
    let value = text.lines().find_map(|line| string_value(line.trim_start(), key))?;
    // A full URL's path (`https://www.mkdocs.org/` → ``).
    let path = match value.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => value.as_str(),
    };
    let path = path.trim_matches('/');
    (!path.is_empty() && !path.contains(['$', '{', '`'])).then(|| path.to_owned())
}

/// The quoted string of `key = "…"`, `key: '…'` or `"key": "…"` at the start of `line`.
fn string_value(line: &str, key: &str) -> Option<String> {
    let rest = line.strip_prefix(key).or_else(|| line.strip_prefix(&format!("\"{key}\"")))?;
    let rest = rest.trim_start().strip_prefix([':', '='])?.trim_start();
    match rest.chars().next()? {
        quote @ ('"' | '\'') => Some(rest[1..].split(quote).next()?.to_owned()),
        // YAML's plain scalars: a path or a URL only (a JavaScript expression is not read).
        _ if rest.starts_with('/') || rest.starts_with("http") => {
            Some(rest.split([' ', '#', ',']).next()?.to_owned())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_paths_are_read_from_each_config_file_as_text() {
        let cases = [
            (Generator::MdBook, "[output.html]\nsite-url = \"/mdBook/\"\n", Some("mdBook")),
            (Generator::VitePress, "export default {\n  base: '/vitepress/',\n}\n", Some("vitepress")),
            (Generator::Docusaurus, "  baseUrl: '/',\n", None),
            (Generator::Docusaurus, "  baseUrl: \"/docs/\",\n", Some("docs")),
            (Generator::MkDocs, "site_url: https://www.mkdocs.org/\n", None),
            (Generator::MkDocs, "site_url: https://x.github.io/proj/\n", Some("proj")),
            (Generator::Hugo, "baseURL = 'https://gohugo.io/'\n", None),
            (Generator::VitePress, "  base: `/${x}/`,\n", None),
            (Generator::Starlight, "export default defineConfig({ site: 'x' })\n", None),
        ];
        for (generator, text, want) in cases {
            assert_eq!(base_path(generator, text).as_deref(), want, "{text}");
        }
    }
}
