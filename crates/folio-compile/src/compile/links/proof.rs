//! What a missed link proves. A link that matches no file is a `broken-link` error only when
//! Folio can prove the site has no such page: the target would be a file of the folders it
//! reads, under routing rules it read completely. Where the site makes pages Folio does not read
//! (a blog, archived versions, pages a build script writes, another book on the same host) or
//! routes it could not read (a config value only running the generator would tell), the link is
//! *unverified*: one `unverified-link` warning per reason, naming the first link and counting
//! the others, never an error.
//!
//! Pure: decides from the link and the rules the layout read; reads no file (the questions
//! that need the disk, "would git ignore this path", "is the file there", are asked through
//! [`Unverifiable::disk`]).

use std::collections::BTreeMap;

use super::forms::{join, parent, percent_decode, to_path};
use super::site::Site;
use super::{LinkSource, Miss, Origin, Unverifiable};
use crate::catalog::LinkKind;
use crate::compile::diagnostic::{Code, Diagnostic};
use crate::compile::markdown::RawLink;

impl Unverifiable {
    /// True when the relative link `raw` of `source`, which names nothing Folio reads, names a
    /// file of the repository on disk.
    pub(super) fn exists_on_disk(&self, source: &LinkSource<'_>, raw: &RawLink) -> bool {
        if raw.kind != LinkKind::Relative {
            return false;
        }
        let decoded = percent_decode(raw.path());
        let path = decoded.split('?').next().unwrap_or("");
        self.disk.as_ref().is_some_and(|disk| disk.0.exists_beside(source.path, path))
    }

    /// Why the missed link `raw` of `source` cannot be proved broken, if it cannot (or that the
    /// site serves it from a folder Folio does not compile). `rerouted`
    /// is a site-absolute link's path below the pages' own route, when the site serves its pages
    /// under one (`/docs/x` → `/x`).
    pub(super) fn why(
        &self,
        site: &Site<'_>,
        source: &LinkSource<'_>,
        raw: &RawLink,
        rerouted: Option<&str>,
    ) -> Option<Miss> {
        let unverified = |why: &String| Some(Miss::Unverified(why.clone()));
        if raw.kind == LinkKind::Relative
            && let Some((nav, why)) = &self.created_by_nav
            && source.path.rsplit('/').next() == Some(nav.as_str())
        {
            return unverified(why);
        }
        if raw.kind == LinkKind::Relative
            && let Some((pages, why)) = &self.fragments
            && pages.binary_search_by(|p| p.as_str().cmp(source.path)).is_ok()
        {
            return unverified(why);
        }
        let decoded = percent_decode(raw.path());
        let path = decoded.split('?').next().unwrap_or("");
        let absolute = raw.kind == LinkKind::SiteAbsolute;
        if absolute {
            let route = site.without_base(path).filter(|r| !r.is_empty()).unwrap_or(path);
            let route = route.trim_end_matches('/');
            for (prefix, why) in &self.routes {
                if route == prefix || route.strip_prefix(prefix.as_str()).is_some_and(|r| r.starts_with('/'))
                {
                    return unverified(why);
                }
            }
            if let Some(why) = &self.all_routes {
                return unverified(why);
            }
            if let Some(why) = self
                .outside_base
                .as_ref()
                .filter(|_| !site.base.is_empty() && site.without_base(path).is_none())
            {
                return unverified(why);
            }
            if let Some((owned, why)) = &self.owned {
                let inside = owned.iter().any(|prefix| {
                    route == prefix || route.strip_prefix(prefix.as_str()).is_some_and(|r| r.starts_with('/'))
                });
                if !inside && !names_a_static_file(route) {
                    return unverified(why);
                }
            }
        }
        // A relative link to a route (`../rules/indent`, not a file by its extension) is
        // resolved by the browser against the page's own route, which is as unknown as any
        // other route when the site's routes could not be read.
        if raw.kind == LinkKind::Relative
            && !names_a_file(path)
            && let Some(why) = &self.all_routes
        {
            return unverified(why);
        }
        let written: Vec<&str> = rerouted.unwrap_or(path).split('/').collect();
        let from: Vec<&str> = if absolute {
            vec!["docs"]
        } else {
            parent(source.path).map_or_else(Vec::new, |dir| dir.split('/').collect())
        };
        let doc = source.origin == Origin::Doc;
        match join(&from, &written) {
            None if doc => return self.above_pages.as_ref().and_then(unverified),
            None => {}
            Some(joined) => {
                let joined = to_path(&joined);
                if doc
                    && !absolute
                    && !(joined == "docs" || joined.starts_with("docs/"))
                    && let Some(why) = &self.above_pages
                {
                    return unverified(why);
                }
                let markdown = [".md", ".mdx"].iter().any(|e| path.trim_end_matches('/').ends_with(e));
                let route = absolute || !markdown;
                if let Some(miss) = self.disk.as_ref().and_then(|disk| disk.0.generated(&joined, route)) {
                    return Some(miss);
                }
            }
        }
        if let Some(why) = &self.any_file {
            return unverified(why);
        }
        if !names_a_file(path) {
            return self.non_files.as_ref().and_then(unverified);
        }
        if absolute
            && let Some(why) = &self.html_files
            && path.trim_end_matches('/').ends_with(".html")
        {
            return unverified(why);
        }
        None
    }
}

/// Extensions a link names a file by: pages, and the files sites serve beside them.
const FILE_EXTENSIONS: &[&str] = &[
    "md", "mdx", "markdown", "html", "htm", "xhtml", "png", "jpg", "jpeg", "gif", "svg", "webp", "avif",
    "ico", "bmp", "tif", "tiff", "pdf", "txt", "csv", "tsv", "json", "jsonc", "json5", "yml", "yaml", "toml",
    "xml", "rss", "atom", "js", "mjs", "cjs", "ts", "tsx", "jsx", "css", "scss", "wasm", "zip", "gz", "tgz",
    "tar", "bz2", "xz", "7z", "mp4", "webm", "mov", "mp3", "ogg", "wav", "woff", "woff2", "ttf", "otf",
    "eot", "rs", "py", "go", "java", "kt", "c", "h", "cpp", "hpp", "cs", "rb", "php", "sh", "bash", "ps1",
    "bat", "sql", "proto", "graphql", "ipynb", "lock", "cfg", "ini", "conf", "env", "log", "diff", "patch",
    "epub", "docx", "xlsx", "pptx", "key", "pem", "crt", "jar", "dmg", "exe", "msi", "deb", "rpm", "apk",
    "whl", "vue", "svelte", "astro", "rst", "adoc", "tex", "bib", "drawio",
];

/// True when the last segment of a link's path names a file by a common extension
/// (`guide/intro.md`, `/img/logo.png`), not a route or an id with dots (`expr.closure`).
fn names_a_file(path: &str) -> bool {
    let leaf = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    leaf.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
    })
}

/// True when the last segment of a site path has a file extension other than a page's
/// (`/img/logo.png`, not `/guide/intro.html` nor `/guide/intro`).
fn names_a_static_file(route: &str) -> bool {
    let leaf = route.rsplit('/').next().unwrap_or("");
    leaf.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && !matches!(ext, "md" | "mdx" | "html" | "htm")
            && ext.len() <= 5
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// The missed links that could not be proved broken, by reason, in the order first met.
#[derive(Debug, Default)]
pub(super) struct Tally {
    reasons: Vec<(String, Vec<Spot>)>,
    index: BTreeMap<String, usize>,
}

/// Where an unverified link is.
#[derive(Debug, Clone)]
pub(super) struct Spot {
    pub(super) path: String,
    pub(super) line: u32,
    pub(super) column: u32,
    pub(super) target: String,
}

impl Tally {
    pub(super) fn add(&mut self, reason: String, spot: Spot) {
        match self.index.get(&reason) {
            Some(&i) => self.reasons[i].1.push(spot),
            None => {
                self.index.insert(reason.clone(), self.reasons.len());
                self.reasons.push((reason, vec![spot]));
            }
        }
    }

    pub(super) fn extend(&mut self, other: Tally) {
        for (reason, spots) in other.reasons {
            for spot in spots {
                self.add(reason.clone(), spot);
            }
        }
    }

    /// How many links were left unverified.
    pub(super) fn count(&self) -> usize {
        self.reasons.iter().map(|(_, spots)| spots.len()).sum()
    }

    /// One `unverified-link` warning per reason, at the first link that had it.
    pub(super) fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.reasons
            .into_iter()
            .map(|(reason, spots)| {
                let first = &spots[0];
                let others = match spots.len() - 1 {
                    0 => String::new(),
                    1 => " and 1 more link".to_owned(),
                    n => format!(" and {n} more links"),
                };
                Diagnostic::warning(
                    Code::UnverifiedLink,
                    &first.path,
                    first.line,
                    first.column,
                    format!("link `{}`{others} not verified: {reason}", first.target),
                )
                .with_help(
                    "Folio reports a link broken only when it can prove the site has no such page; \
                     to skip these links, list them in `[check] ignore_links` (a prefix ends in `*`), \
                     or set `unverified-link = \"allow\"` under [lints]",
                )
            })
            .collect()
    }
}
