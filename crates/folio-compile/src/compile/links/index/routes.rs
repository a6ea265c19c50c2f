//! The site model's routes as one resolve uses them: the base path worked out from the links,
//! pages found by their route (ordering prefixes left out), a locale's translation of a page
//! (file-name suffixes), and includes that reach outside the folders the catalog is read from.
//!
//! `impl` blocks of [`Index`]: the rules are `links::site`'s; this module must not add its own.

use std::collections::BTreeMap;

use super::super::forms::{candidate_forms, candidates, join, parent, percent_decode, to_path};
use super::super::{LinkSource, Origin};
use super::super::{Outcome, pattern};
use super::Index;
use crate::catalog::LinkKind;
use crate::compile::markdown::RawLink;

impl<'t> Index<'t> {
    /// Works out the base path of a site whose pages write whole site paths
    /// (`/docs/4.x/api/use-fetch` for `docs/4.api/use-fetch.md`, the docs being one section of
    /// a larger site): the one or two leading segments that, left out, make the most of the
    /// site-absolute links that match nothing resolve (at least three, and half of them).
    /// Returns it, and uses it, when the site has no base of its own.
    pub(in crate::compile::links) fn infer_base(&mut self, sources: &[LinkSource<'t>]) -> Option<String> {
        // A site whose config says where it and its pages are served has nothing to infer.
        let rules = &self.targets.site;
        if !self.site.base.is_empty() || !rules.route_base.is_empty() || !rules.base_unknown {
            return None;
        }
        let mut missing = 0usize;
        let mut hits: BTreeMap<String, usize> = BTreeMap::new();
        for source in sources.iter().filter(|s| s.origin == Origin::Doc) {
            for raw in source.links.iter().filter(|l| l.kind == LinkKind::SiteAbsolute && !l.include) {
                let decoded = percent_decode(raw.path());
                let path = decoded.split('?').next().unwrap_or("");
                if self.page_exists(path) {
                    continue;
                }
                missing += 1;
                let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
                for k in 1..=2.min(segments.len().saturating_sub(1)) {
                    let rest = format!("/{}", segments[k..].join("/"));
                    if self.page_exists(&rest) {
                        *hits.entry(segments[..k].join("/")).or_default() += 1;
                    }
                }
            }
        }
        let (base, n) = hits.into_iter().max_by_key(|(base, n)| (*n, std::cmp::Reverse(base.clone())))?;
        if n < 3 || n * 2 < missing || self.exists(&format!("docs/{base}")) {
            return None;
        }
        self.site.base = std::borrow::Cow::Owned(base.clone());
        self.site.base_inferred = true;
        Some(base)
    }

    /// True when the site-absolute `path` names a file or page of `docs/` (by its file forms
    /// or its route).
    fn page_exists(&self, path: &str) -> bool {
        let joined = format!("docs/{}", path.trim_matches('/'));
        let joined = joined.trim_end_matches('/');
        candidate_forms(joined, path.ends_with('/'))
            .any(|(stem, suffix)| self.exists(&format!("{stem}{suffix}")))
            || self.route(joined).is_some()
    }

    /// True when the place an include names is outside the folders the catalog is read from
    /// (`docs/`, `skills/`, `static/`): from every base it is resolved against, or, for a
    /// snippet, from the repository root.
    pub(super) fn leaves_the_catalog(&self, source: &LinkSource<'t>, raw: &RawLink) -> bool {
        let decoded = percent_decode(raw.path());
        let written: Vec<&str> = decoded.split('/').collect();
        let outside = |base: &[&str]| {
            join(base, &written).is_none_or(|joined| {
                !matches!(joined.first(), Some(&("docs" | "skills" | "static"))) || joined.len() < 2
            })
        };
        if raw.from_root {
            return outside(&[]);
        }
        let absolute = raw.kind == LinkKind::SiteAbsolute;
        self.site.bases(source.path, source.origin == Origin::Doc, absolute).iter().all(|base| outside(base))
    }

    /// `found` as the linking page's locale has it, when locales are file-name suffixes: from
    /// `docs/guide.ja.mdx`, a link to `docs/cache.mdx` is to `docs/cache.ja.mdx` where that
    /// exists (the site serves it at the same route in that locale).
    pub(super) fn localized(&self, source: &LinkSource<'t>, found: &'t str) -> &'t str {
        if self.targets.locale_suffixes.is_empty() || source.origin != Origin::Doc {
            return found;
        }
        let Some((locale, _)) = crate::compile::locales::split_suffix(source.path) else { return found };
        if !self.targets.locale_suffixes.contains(&locale)
            || crate::compile::locales::split_suffix(found)
                .is_some_and(|(t, _)| self.targets.locale_suffixes.contains(&t))
        {
            return found;
        }
        let Some((stem, ext)) = found.rsplit_once('.') else { return found };
        self.existing(&format!("{stem}.{locale}.{ext}")).unwrap_or(found)
    }

    /// The page a route names when the site routes without ordering prefixes
    /// (`docs/guide/install` → `docs/1.guide/2.install.md`).
    pub(super) fn route(&self, joined: &str) -> Option<&'t str> {
        if self.routes.is_empty() {
            return None;
        }
        let joined = joined.trim_end_matches('/');
        let joined = joined.strip_suffix(".html").unwrap_or(joined);
        self.routes.get(&route_key_of(self.targets, self.site.ordering_prefixes, joined)).copied()
    }

    /// The site path `path` with the route of the pages folder (and its aliases) left out, when
    /// it has them: `/docs/next/intro` → `/intro` for a site whose pages are at `/docs`.
    pub(super) fn site_route(&self, path: &str) -> Option<String> {
        let rules = &self.targets.site;
        let strip = |path: &str, prefix: &str| -> Option<String> {
            let prefix = prefix.trim_matches('/');
            if prefix.is_empty() {
                return None;
            }
            let rest = path.strip_prefix('/')?.strip_prefix(prefix)?;
            (rest.is_empty() || rest.starts_with('/'))
                .then(|| if rest.is_empty() { "/".to_owned() } else { rest.to_owned() })
        };
        let mut path = path.to_owned();
        let mut changed = false;
        for (from, to) in &rules.route_aliases {
            // The whole site moved into a folder (VitePress's `'en/:rest*': ':rest*'`).
            let rest =
                if from.trim_matches('/').is_empty() { Some(path.clone()) } else { strip(&path, from) };
            if let Some(rest) = rest {
                path = format!("/{}{}", to.trim_matches('/'), if rest == "/" { "" } else { &rest });
                changed = true;
                break;
            }
        }
        if let Some(rest) = strip(&path, &rules.route_base) {
            path = rest;
            changed = true;
        }
        changed.then_some(path)
    }

    /// True when the site-absolute link names a route the site serves that no page holds.
    pub(super) fn is_extra_route(&self, raw: &RawLink) -> bool {
        if self.extra_routes.is_empty() && self.targets.site.extra_patterns.is_empty() {
            return false;
        }
        let decoded = percent_decode(raw.path());
        let path = decoded.split('?').next().unwrap_or("");
        let path = self.site.without_base(path).filter(|p| !p.is_empty()).unwrap_or(path);
        self.extra_routes.contains(&normal_route(path))
            || self.targets.site.extra_patterns.iter().any(|p| super::super::pattern::matches(p, path))
    }

    /// What the host makes of the relative link `raw` of `source` when it names a page file of
    /// the pages folder that the tree lacks: `None` when no route or redirect of the site
    /// answers it. A route the site serves without a page answers it (`Unchecked`); so does a
    /// redirect to another host, or to a page of the tree (Netlify's
    /// `/v1.2-docs/contributing/* /docs/contributing/` for a page an archived version dropped).
    /// A redirect to a route no page holds leaves the link broken (`None`): `/docs/*` to
    /// `/docs/dom/:splat` answers only where `/docs/dom/<rest>` exists. One whose destination
    /// Folio cannot work out (a named placeholder) leaves it unverified.
    pub(super) fn redirected_page(&self, source: &LinkSource<'_>, raw: &RawLink) -> Option<Outcome<'t>> {
        let rules = &self.targets.site;
        if self.extra_routes.is_empty() && rules.redirects.is_empty() {
            return None;
        }
        let decoded = percent_decode(raw.path());
        let path = decoded.split('?').next().unwrap_or("");
        let from: Vec<&str> = parent(source.path).map_or_else(Vec::new, |dir| dir.split('/').collect());
        let written: Vec<&str> = path.split('/').collect();
        let joined = to_path(&join(&from, &written)?);
        let rel = joined.strip_prefix("docs/")?;
        let route_base = rules.route_base.trim_matches('/');
        let route = if route_base.is_empty() { format!("/{rel}") } else { format!("/{route_base}/{rel}") };
        let route = normal_route(&route);
        // `README.md` and Hugo's `_index.md` stand for their folder, as `index.md` does.
        let route = ["/README", "/_index"].iter().find_map(|s| route.strip_suffix(s)).unwrap_or(&route);
        if self.extra_routes.contains(route) {
            return Some(Outcome::Unchecked);
        }
        for (from, to) in &rules.redirects {
            let pattern = from.contains(['*', ':', '(']);
            let hit = if pattern { pattern::matches(from, route) } else { normal_route(from) == route };
            if !hit {
                continue;
            }
            if to.contains("://") {
                return Some(Outcome::Unchecked);
            }
            // Netlify's splat: what `*` at the end of the source matched.
            let to = match from.strip_suffix("/*") {
                Some(prefix) => {
                    let rest = route.strip_prefix(prefix.trim_end_matches('/')).unwrap_or("");
                    to.replace(":splat", rest.trim_start_matches('/'))
                }
                None => to.clone(),
            };
            if to.contains([':', '*', '(']) {
                return Some(Outcome::Unverified(format!(
                    "the host redirects `{from}` to `{to}`, a destination Folio does not work out"
                )));
            }
            return self.page_at_route(&to).then_some(Outcome::Unchecked);
        }
        None
    }

    /// True when the site route `route` (`/docs/contributing/`, as a redirect names it) is a
    /// page of the tree.
    fn page_at_route(&self, route: &str) -> bool {
        let route = route.split(['#', '?']).next().unwrap_or("");
        let route = self.site.without_base(route).unwrap_or(route);
        let route_base = self.targets.site.route_base.trim_matches('/');
        let below = if route_base.is_empty() {
            Some(route)
        } else {
            route
                .strip_prefix('/')
                .and_then(|r| r.strip_prefix(route_base))
                .filter(|r| r.is_empty() || r.starts_with('/'))
        };
        let Some(below) = below else { return false };
        let joined = format!("docs/{}", below.trim_matches('/'));
        let joined = joined.trim_end_matches('/');
        candidates(joined, true).iter().any(|c| self.existing(c).is_some()) || self.route(joined).is_some()
    }
}

/// The key a page is found by its route: its slugged segments (Starlight), or its path without
/// ordering prefixes.
pub(in crate::compile::links) fn route_key_of(
    targets: &super::super::Targets<'_>,
    ordering: bool,
    path: &str,
) -> String {
    let grouped;
    let path = if targets.site.route_groups {
        // Next.js's app router: `(group)` folders are no segment, and `x/page.mdx` is the page
        // of the route `x` (as `x/index.md` is elsewhere).
        let joined = path
            .split('/')
            .filter(|s| !(s.starts_with('(') && s.ends_with(')')))
            .collect::<Vec<_>>()
            .join("/");
        grouped = ["/page.mdx", "/page.md"]
            .iter()
            .find_map(|page| joined.strip_suffix(page).map(|stem| format!("{stem}{}", &page[5..])))
            .unwrap_or(joined);
        grouped.as_str()
    } else {
        path
    };
    if targets.site.slugged_routes && !ordering {
        super::super::site::slug_key(path)
    } else if targets.site.case_insensitive_routes {
        // Hugo makes a page's URL from its path with `urlize`: lowercased, spaces as hyphens
        // (`Useful Utilities/Systemd-start.md` is at `/useful-utilities/systemd-start/`).
        super::super::site::route_key(&path.replace(' ', "-"))
    } else {
        super::super::site::route_key(path)
    }
}

/// A site route in one form for comparing: no `#anchor` or `?query`, no trailing `/`, no
/// `.html`, `.md` or `.mdx`, no trailing `/index`; `/` for the root.
pub(in crate::compile::links) fn normal_route(route: &str) -> String {
    let route = route.split(['#', '?']).next().unwrap_or("");
    let route = route.trim_end_matches('/');
    let route = [".html", ".md", ".mdx"].iter().find_map(|e| route.strip_suffix(e)).unwrap_or(route);
    let route = route.strip_suffix("/index").unwrap_or(route);
    if route.is_empty() {
        "/".to_owned()
    } else if route.starts_with('/') {
        route.to_owned()
    } else {
        format!("/{route}")
    }
}
