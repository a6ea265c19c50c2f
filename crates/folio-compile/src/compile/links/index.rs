//! The lookup tables one resolve builds over the targets ([`Index`]) and the resolution of one
//! link against them: files, page forms, Hugo's `GetPage` rules, wiki keys, anchors, orphans,
//! and the did-you-mean a miss gets.
//!
//! The rules themselves are listed in the parent module's docs; this module must keep to them and
//! must not read files or report anything the parent does not turn into a diagnostic.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::forms::{
    Suggestion, alias_key, candidate_forms, candidates, closest, fix_case, is_inside, is_page, join, list_or,
    lowercase, page_stem, parent, percent_decode, rewrite_leaf, strip_page_ext, to_path, wiki_key,
};
use super::site::Site;
use super::{Anchors, Chunk, LinkSource, Origin, Outcome, Problem, Targets};
use crate::catalog::{Link, LinkKind, mdx};
use crate::compile::diagnostic::{Code, Diagnostic};
use crate::compile::markdown::RawLink;
use crate::lookup::LookupMap;

mod misses;
mod routes;
mod wiki;

/// Lookup tables over the targets, built once per resolve. Keys borrow from the targets when
/// they equal a path or a slice of it (most paths are lowercase already), so a large tree's
/// index is not a copy of all its paths.
pub(super) struct Index<'t> {
    targets: &'t Targets<'t>,
    /// Every file of the tree (served or not) by its exact path: the lookups made several
    /// times per link, hashed once instead of compared against some 25 long, shared-prefix
    /// keys of a sorted map.
    files: LookupMap<&'t str, FileTarget<'t>>,
    /// What only a link that matches no file needs, built on the first such link (a tree whose
    /// links all resolve never builds it).
    misses: std::sync::OnceLock<Misses<'t>>,
    /// Wiki keys of paths relative to `docs/`, and of file names alone. Hashed, not sorted, for
    /// the lookup every wiki link makes; sorted on the rare miss that suggests a key.
    wiki_full: LookupMap<Cow<'t, str>, Vec<&'t str>>,
    wiki_name: LookupMap<Cow<'t, str>, Vec<&'t str>>,
    /// `wiki_full`'s keys with their first path, sorted, for did-you-mean: made on the first
    /// wiki link that matches nothing.
    wiki_sorted: std::sync::OnceLock<Vec<(Cow<'t, str>, &'t str)>>,
    /// How the tree's site maps routes to files (Hugo's rules, locale folders).
    site: Site<'t>,
    /// Anchors of pages that include other files: their own plus the included files'.
    merged_anchors: BTreeMap<String, Anchors<'t>>,
    /// Pages under `docs/` by their route ([`super::site::route_key`]), when the site routes
    /// without ordering prefixes; the first page in path order keeps a route.
    routes: BTreeMap<String, &'t str>,
    /// Pages whose anchors cannot be known: content written in at build time (a plugin
    /// directive, an include of a file outside the folders Folio reads).
    open_anchors: BTreeSet<&'t str>,
    /// Routes the site serves that no page holds ([`normal_route`] of
    /// [`SiteRules::extra_routes`](crate::compile::layout::SiteRules)).
    extra_routes: BTreeSet<String>,
}

/// Lookup tables for links that match no file: case twins, directories, did-you-mean.
struct Misses<'t> {
    /// Every known path by its lowercase form, for `case-mismatch`.
    by_lowercase: BTreeMap<Cow<'t, str>, Vec<&'t str>>,
    /// Names of the files and directories in each directory, for did-you-mean.
    children: BTreeMap<&'t str, BTreeSet<&'t str>>,
    /// Site forms of pages under `docs/` (`guides/install` for `guides/install/_index.md`), by
    /// their lowercase last segment, for did-you-mean.
    pages_by_leaf: BTreeMap<Cow<'t, str>, Vec<&'t str>>,
}

impl<'t> Misses<'t> {
    pub(super) fn new(targets: &'t Targets<'t>) -> Self {
        let mut misses = Misses {
            by_lowercase: BTreeMap::new(),
            children: BTreeMap::new(),
            pages_by_leaf: BTreeMap::new(),
        };
        for &path in targets.uri_by_path.keys().chain(&targets.other_files) {
            misses.by_lowercase.entry(lowercase(path)).or_default().push(path);
            // Register every ancestor directory as a child of its parent (the root is ""). A
            // directory already registered had its ancestors registered with it.
            let mut child = path;
            loop {
                let (parent, name) = child.rsplit_once('/').unwrap_or(("", child));
                if !misses.children.entry(parent).or_default().insert(name) || parent.is_empty() {
                    break;
                }
                child = parent;
            }
            if let Some(rel) = path.strip_prefix("docs/").filter(|rel| is_page(rel)) {
                let form = strip_page_ext(rel);
                let form = ["/index", "/_index", "/README"]
                    .iter()
                    .find_map(|suffix| form.strip_suffix(suffix))
                    .unwrap_or(form);
                let leaf = lowercase(form.rsplit('/').next().unwrap_or(form));
                misses.pages_by_leaf.entry(leaf).or_default().push(form);
            }
        }
        misses
    }
}

/// What a link resolved to a file needs of it.
#[derive(Clone, Copy)]
struct FileTarget<'t> {
    /// Position among the served files in path order, then the other files.
    id: u32,
    /// The path as stored (borrowed for the life of the targets).
    path: &'t str,
    /// Its URI when served.
    uri: Option<&'t str>,
    /// Its anchors when it is analysed markdown.
    anchors: Option<&'t Anchors<'t>>,
}

/// The warning for a link from the skill at `skill_dir` into the skill at `other`.
fn cross_skill(target: &str, skill_dir: &str, other: &str) -> Problem {
    Problem {
        code: Code::CrossSkillLink,
        message: format!(
            "link `{target}` reaches into another skill, `{other}`: it resolves here, but a host that \
             installs `{skill_dir}` alone loses the target"
        ),
        help: Some(format!(
            "copy the file into `{skill_dir}` to make the skill self-contained, or set `cross-skill-link = \"allow\"` \
             under [lints] in folio.toml if the skills are always installed together"
        )),
    }
}

/// True for a Claude Code plugin command written as a link: `/plugin:command`, each part made of
/// letters, digits, `-`, `_` and `.`, with no other `/`.
fn is_plugin_command(target: &str) -> bool {
    let Some(rest) = target.strip_prefix('/') else { return false };
    let Some((plugin, command)) = rest.split_once(':') else { return false };
    let part = |s: &str| {
        !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
    };
    part(plugin) && !plugin.contains(':') && part(command)
}

impl<'t> Index<'t> {
    pub(super) fn new(targets: &'t Targets<'t>) -> Self {
        let mut files = LookupMap::with_capacity_and_hasher(
            targets.uri_by_path.len() + targets.other_files.len(),
            Default::default(),
        );
        let served = targets.uri_by_path.iter().map(|(&path, &uri)| (path, Some(uri)));
        let other = targets.other_files.iter().map(|&path| (path, None));
        let mut wiki_full: LookupMap<Cow<'t, str>, Vec<&'t str>> = LookupMap::default();
        let mut wiki_name: LookupMap<Cow<'t, str>, Vec<&'t str>> = LookupMap::default();
        for (id, (path, uri)) in served.chain(other).enumerate() {
            let id = u32::try_from(id).expect("fewer than 2^32 files");
            // A path is served or not, never both; were it both, the served one (first) stays.
            files.entry(path).or_insert(FileTarget {
                id,
                path,
                uri,
                anchors: targets.anchors_by_path.get(path),
            });
            if let Some(rel) = path.strip_prefix("docs/") {
                wiki_full.entry(wiki_key(rel)).or_default().push(path);
                let name = rel.rsplit('/').next().unwrap_or(rel);
                wiki_name.entry(wiki_key(name)).or_default().push(path);
            }
        }
        let site = Site::of(targets);
        let mut routes = BTreeMap::new();
        if site.ordering_prefixes
            || targets.site.slugged_routes
            || targets.site.route_groups
            || targets.site.case_insensitive_routes
        {
            for &path in targets.uri_by_path.keys().filter(|p| p.starts_with("docs/") && is_page(p)) {
                routes.entry(routes::route_key_of(targets, site.ordering_prefixes, path)).or_insert(path);
            }
        }
        let extra_routes = targets.site.extra_routes.iter().map(|r| routes::normal_route(r)).collect();
        Index {
            open_anchors: targets.open_anchors.clone(),
            routes,
            targets,
            files,
            misses: std::sync::OnceLock::new(),
            wiki_full,
            wiki_name,
            wiki_sorted: std::sync::OnceLock::new(),
            merged_anchors: BTreeMap::new(),
            site,
            extra_routes,
        }
    }

    /// How many files the tree holds (served or not): the length of a per-file table.
    pub(super) fn n_files(&self) -> usize {
        self.files.len()
    }

    fn misses(&self) -> &Misses<'t> {
        self.misses.get_or_init(|| Misses::new(self.targets))
    }

    /// Resolves the links of some sources; records them only when `keep_links`.
    pub(super) fn resolve_chunk(&self, sources: &[LinkSource<'t>], keep_links: bool) -> Chunk {
        let mut out = Chunk {
            links: Vec::with_capacity(sources.len()),
            served: Vec::with_capacity(sources.len()),
            diagnostics: Vec::new(),
            linked: Vec::new(),
            checked: 0,
            unverified: super::proof::Tally::default(),
        };
        for source in sources {
            // Reference-style links that share a definition report the same spot once.
            let mut seen = BTreeSet::new();
            let mut links = Vec::with_capacity(if keep_links { source.links.len() } else { 0 });
            let mut served = Vec::new();
            for raw in source.links {
                let outcome = match self.resolve_link(source, raw) {
                    Outcome::Found(path) => Outcome::Found(self.localized(source, path)),
                    other => other,
                };
                let navigation = source.path == super::NAVIGATION;
                if !matches!(outcome, Outcome::Unchecked) && !navigation {
                    out.checked += 1;
                }
                let (resolved_path, problem) = match outcome {
                    Outcome::Unchecked => (None, None),
                    Outcome::Unverified(_) if navigation => (None, None),
                    Outcome::Unverified(why) => {
                        let spot = super::proof::Spot {
                            path: source.path.to_owned(),
                            line: raw.line,
                            column: raw.column,
                            target: raw.target.clone(),
                        };
                        out.unverified.add(why, spot);
                        (None, None)
                    }
                    Outcome::Found(path) => (Some(path), self.check_anchor(source, raw, path)),
                    Outcome::FoundWith(path, note) => {
                        if seen.insert((raw.line, raw.column, note.code)) {
                            out.diagnostics.push(note.into_diagnostic(source.path, raw.line, raw.column));
                        }
                        (Some(path), self.check_anchor(source, raw, path))
                    }
                    Outcome::Problem(problem) => (None, Some(problem)),
                };
                // A directory (or an alias) resolves to no file here.
                let file = resolved_path.and_then(|p| self.files.get(p));
                if let Some(file) = file
                    && file.path != source.path
                {
                    out.linked.push(file.id);
                }
                if let Some(problem) = problem
                    && seen.insert((raw.line, raw.column, problem.code))
                {
                    out.diagnostics.push(problem.into_diagnostic(source.path, raw.line, raw.column));
                }
                if !keep_links {
                    continue;
                }
                // Served files come first among the targets, so their ids are their positions
                // in `uri_by_path`.
                if let Some(file) = file
                    && file.uri.is_some()
                    && file.path != source.path
                {
                    served.push(file.id);
                }
                links.push(Link {
                    target: raw.target.clone(),
                    kind: raw.kind,
                    resolved: file.and_then(|f| f.uri).map(str::to_owned),
                    anchor: raw.anchor().map(str::to_owned),
                    line: raw.line,
                });
            }
            out.links.push(links);
            out.served.push(served);
        }
        out
    }

    /// Gives every page that includes other files (`{{% include %}}`) the anchors of those files,
    /// transitively, since their headings are rendered into the page.
    pub(super) fn lend_included_anchors(&mut self, sources: &[LinkSource<'t>]) {
        let mut included: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for source in sources {
            for raw in source.links.iter().filter(|l| l.include) {
                match self.resolve_link(source, raw) {
                    Outcome::Found(path) | Outcome::FoundWith(path, _) => {
                        included.entry(source.path).or_default().push(path.to_owned());
                    }
                    Outcome::Unchecked | Outcome::Unverified(_) => {
                        self.open_anchors.insert(source.path);
                    }
                    Outcome::Problem(_) => {}
                }
            }
        }
        for page in included.keys() {
            let mut anchors = Vec::new();
            let mut seen = BTreeSet::new();
            let mut stack = vec![(*page).to_owned()];
            while let Some(path) = stack.pop() {
                if !seen.insert(path.clone()) {
                    continue;
                }
                if let Some(own) = self.targets.anchors_by_path.get(path.as_str()) {
                    anchors.extend(own.iter());
                }
                stack.extend(included.get(path.as_str()).into_iter().flatten().cloned());
            }
            self.merged_anchors.insert((*page).to_owned(), anchors.into_iter().collect());
        }
    }

    /// The stored spelling of `path` when a file of the tree has exactly that path.
    fn existing(&self, path: &str) -> Option<&'t str> {
        self.files.get(path).map(|f| f.path)
    }

    fn exists(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    fn resolve_link(&self, source: &LinkSource<'t>, raw: &RawLink) -> Outcome<'t> {
        if self.targets.ignores(&raw.target) {
            return Outcome::Unchecked;
        }
        match raw.kind {
            LinkKind::External => Outcome::Unchecked,
            LinkKind::Anchor => Outcome::Found(source.path),
            LinkKind::Wiki => self.resolve_wiki(source, raw),
            LinkKind::Relative | LinkKind::SiteAbsolute => {
                // A destination a template writes (`/docs/{{% param latest %}}/x/`).
                if raw.target.contains("{{") {
                    return Outcome::Unchecked;
                }
                if raw.kind == LinkKind::SiteAbsolute && is_plugin_command(&raw.target) {
                    return Outcome::Unchecked;
                }
                // Another section of a site whose docs are one part of it.
                if raw.kind == LinkKind::SiteAbsolute
                    && self.site.base_inferred
                    && self.site.without_base(raw.path()).is_none()
                {
                    return Outcome::Unchecked;
                }
                if raw.kind == LinkKind::Relative
                    && let Some((prefix, dir)) = self
                        .targets
                        .site
                        .path_aliases
                        .iter()
                        .find(|(p, _)| raw.path().starts_with(p.as_str()))
                {
                    return self.resolve_alias(raw, prefix, dir);
                }
                let outcome = self.resolve_path(source, raw);
                self.explain_miss(source, raw, outcome)
            }
        }
    }

    fn resolve_path(&self, source: &LinkSource<'t>, raw: &RawLink) -> Outcome<'t> {
        let decoded = percent_decode(raw.path());
        let path = decoded.split('?').next().unwrap_or("");
        if path.is_empty() {
            // `?query` alone, like `#anchor` alone, points at the page itself.
            return Outcome::Found(source.path);
        }
        let absolute = raw.kind == LinkKind::SiteAbsolute;
        // A site served under a base path: the link without it.
        let path = match self.site.without_base(path).filter(|_| absolute) {
            Some("") => "/",
            Some(rest) => rest,
            None => path,
        };
        // Another route for the pages (Docusaurus's `/docs/next/` when it keeps versions), and
        // the route the pages are served at (`routeBasePath`); the path as written still names
        // a static file (`/docs/assets/x.png` in `static/docs/assets/`).
        if let Some(route) = self.site_route(path).filter(|_| absolute) {
            return match self.resolve_written(source, raw, &route, absolute) {
                Outcome::Problem(problem) => match self.resolve_written(source, raw, path, absolute) {
                    // Found as written, or a more telling problem (a case twin of a static file).
                    Outcome::Problem(p) if p.code == Code::BrokenLink => Outcome::Problem(problem),
                    outcome => outcome,
                },
                outcome => outcome,
            };
        }
        self.resolve_written(source, raw, path, absolute)
    }

    /// [`Index::resolve_path`] of a site path whose pages route is dealt with.
    fn resolve_written(
        &self,
        source: &LinkSource<'t>,
        raw: &RawLink,
        path: &str,
        absolute: bool,
    ) -> Outcome<'t> {
        // A locale written as a file-name suffix is served under a path prefix (`/ja/docs/x`).
        let path = match path.strip_prefix('/').and_then(|p| p.split_once('/')) {
            Some((locale, rest)) if absolute && self.targets.locale_suffixes.contains(&locale) => {
                &path[locale.len() + 1..][..rest.len() + 1]
            }
            _ => path,
        };
        if let Some(found) = self.found_from_first_base(source, path, absolute) {
            debug_assert!(
                matches!(self.resolve_path_in_full(source, raw, path, absolute), Outcome::Found(f) if f == found),
                "the quick lookup of `{}` from `{}` found `{found}`, the full one something else",
                raw.target,
                source.path
            );
            return Outcome::Found(found);
        }
        self.resolve_path_in_full(source, raw, path, absolute)
    }

    /// [`Index::resolve_path`] of `path` (the link's path, decoded and without its query).
    fn resolve_path_in_full(
        &self,
        source: &LinkSource<'t>,
        raw: &RawLink,
        path: &str,
        absolute: bool,
    ) -> Outcome<'t> {
        let written: Vec<&str> = path.split('/').collect();
        let doc = source.origin == Origin::Doc;
        let case_insensitive_page = doc && self.site.case_insensitive_routes;
        let bases = self.site.bases(source.path, doc, absolute);
        let mut first_joined = None;
        // The other skill a link out of this one lands in.
        let mut other_skill = None;
        for base in &bases {
            if let Some(clamped) = self.site.clamped(base, &written, doc, path) {
                let clamped = to_path(&clamped);
                let found = candidates(&clamped, path.ends_with('/')).iter().find_map(|c| self.existing(c));
                if let Some(found) = found.or_else(|| self.route(&clamped)) {
                    return Outcome::Found(found);
                }
            }
            let Some(joined) = join(base, &written) else {
                if first_joined.is_none() {
                    return Outcome::Problem(Problem::broken(
                        format!("link `{}` escapes the content root", raw.target),
                        None,
                    ));
                }
                continue;
            };
            let joined_path = to_path(&joined);
            if let Some(skill_dir) = source.origin.skill_dir()
                && !is_inside(&joined_path, skill_dir)
                && !raw.plugin_root
            {
                match self.skill_of(&joined_path) {
                    Some(other) => other_skill = Some((skill_dir, other)),
                    None => {
                        return Outcome::Problem(Problem::broken(
                            format!("link `{}` leaves the skill directory `{skill_dir}`", raw.target),
                            Some(format!(
                                "a skill is installed on its own: copy the file into `{skill_dir}` or link to it by URL"
                            )),
                        ));
                    }
                }
            }
            let candidates = candidates(&joined_path, path.ends_with('/'));
            if let Some(found) = candidates.iter().find_map(|c| self.existing(c)) {
                if let Some((skill_dir, other)) = other_skill {
                    return Outcome::FoundWith(found, cross_skill(&raw.target, skill_dir, other));
                }
                return Outcome::Found(found);
            }
            if let Some(found) = self.route(&joined_path) {
                return Outcome::Found(found);
            }
            // On a site served at folder URLs, `x/index.html` is the file the page `x.md` is
            // written to (Hugo's and MkDocs's pretty URLs).
            if doc
                && self.site.directory_urls
                && let Some(page) = joined_path.strip_suffix("/index.html")
                && let Some(found) =
                    [".md", ".mdx"].iter().find_map(|ext| self.existing(&format!("{page}{ext}")))
            {
                return Outcome::Found(found);
            }
            // A page's own route from its frontmatter (`slug`, `id`), reached relatively.
            if let Some(rel) = joined_path.strip_prefix("docs/")
                && let Some(doc) = self.targets.aliases.get(&alias_key(rel))
            {
                return Outcome::Found(doc);
            }
            if doc && let Some((found, lacking)) = self.locale_fallback(&joined_path, path.ends_with('/')) {
                let message = format!(
                    "link `{}` names a page locale `{lacking}` lacks; it resolves to the default locale's `{found}`, \
                     as the site renders it",
                    raw.target
                );
                return Outcome::FoundWith(
                    found,
                    Problem { code: Code::LocaleFallback, message, help: None },
                );
            }
            for candidate in &candidates {
                if let Some(actual) = self.case_twin(candidate) {
                    // Hugo looks pages up ignoring case and serves them at lowercase URLs.
                    if case_insensitive_page && is_page(actual) {
                        return Outcome::Found(actual);
                    }
                    // A page bundle's file is published below the page's URL, which Hugo
                    // lowercases: only its folders' case may differ (`Concepts/x.png` is at
                    // `/docs/concepts/x.png`), not its own name.
                    if case_insensitive_page
                        && actual.starts_with("docs/")
                        && actual.rsplit('/').next() == candidate.rsplit('/').next()
                    {
                        return Outcome::Found(actual);
                    }
                    let fixed = fix_case(&raw.target, base, &written, actual);
                    return Outcome::Problem(Problem {
                        code: Code::CaseMismatch,
                        message: format!(
                            "link `{}` matches `{actual}` only when case is ignored; servers and unpacked skills compare case",
                            raw.target
                        ),
                        help: Some(format!("did you mean `{fixed}`?")),
                    });
                }
            }
            // A directory without an index page is still a place: GitHub lists it, and MCP
            // clients read a skill's directories (`resources/directory/read`).
            if let Some((dir, _)) = self.misses().children.get_key_value(joined_path.as_str())
                && !dir.is_empty()
            {
                if let Some((skill_dir, other)) = other_skill {
                    return Outcome::FoundWith(dir, cross_skill(&raw.target, skill_dir, other));
                }
                return Outcome::Found(dir);
            }
            first_joined.get_or_insert((joined, candidates));
        }
        // A site path a doc names among its `aliases` redirects there.
        if absolute && let Some(doc) = self.targets.aliases.get(&alias_key(path)) {
            return Outcome::Found(doc);
        }
        let Some((joined, mut candidates)) = first_joined else {
            return Outcome::Problem(Problem::broken(
                format!("link `{}` escapes the content root", raw.target),
                None,
            ));
        };
        let suggestion = match self.suggest_path(&joined) {
            Some(s) => Some(rewrite_leaf(&raw.target, &s)),
            None if absolute => self.suggest_site_path(&raw.target),
            None => None,
        };
        let help = suggestion.map(|s| format!("did you mean `{s}`?"));
        // The message names three of the files tried: from an MDX page, the MDX ones (the page
        // a Starlight or Docusaurus author would add), shortest first, else the markdown ones.
        if mdx::is_mdx(source.path) {
            candidates.sort_by_key(|c| (!mdx::is_mdx(c), c.len()));
        }
        Outcome::Problem(Problem::broken(
            format!("link `{}` matches no file: no {}", raw.target, list_or(&candidates, 3)),
            help,
        ))
    }

    /// What [`Index::resolve_path`] finds when the link names an existing file from its first
    /// base directory (the linking file's, or `docs/` for a site path), which is where most
    /// links resolve: found here with one or two allocations rather than a dozen. `None` for
    /// anything else (a path above the root or outside the skill, a case twin, a directory, a
    /// later base, a miss), which `resolve_path` then works out in full.
    fn found_from_first_base(&self, source: &LinkSource<'t>, path: &str, absolute: bool) -> Option<&'t str> {
        let base = if absolute { "docs" } else { parent(source.path).unwrap_or("") };
        // `join` and `to_path` on a string: the same segments, `/`-separated.
        let mut joined = String::with_capacity(base.len() + path.len() + 1);
        joined.push_str(base);
        for segment in path.split('/') {
            match segment {
                "" | "." => {}
                ".." if joined.is_empty() => return None,
                ".." => joined.truncate(joined.rfind('/').unwrap_or(0)),
                s => {
                    if !joined.is_empty() {
                        joined.push('/');
                    }
                    joined.push_str(s);
                }
            }
        }
        if source.origin.skill_dir().is_some_and(|dir| !is_inside(&joined, dir)) {
            return None;
        }
        let mut name = String::new();
        candidate_forms(&joined, path.ends_with('/')).find_map(|(stem, suffix)| {
            if suffix.is_empty() {
                return self.existing(stem);
            }
            name.clear();
            name.push_str(stem);
            name.push_str(suffix);
            self.existing(&name)
        })
    }

    /// The default locale's page for a page path under a locale folder that lacks it
    /// (`docs/ja/guides/x` → `docs/en/guides/x.md`), with the lacking locale.
    fn locale_fallback(&self, joined: &str, dir_form: bool) -> Option<(&'t str, &'t str)> {
        let (fallback, lacking) = self.site.locale_fallback(joined)?;
        let found = candidates(&fallback, dir_form).iter().find_map(|c| self.existing(c))?;
        Some((found, lacking))
    }

    /// The deepest skill directory `path` is, or is inside of.
    fn skill_of(&self, path: &str) -> Option<&'t str> {
        let skill = self.targets.skill_dirs.iter().copied();
        skill.filter(|dir| path == *dir || is_inside(path, dir)).max_by_key(|dir| dir.len())
    }

    /// The existing path equal to `path` ignoring case, when `path` itself does not exist.
    fn case_twin(&self, path: &str) -> Option<&'t str> {
        self.misses().by_lowercase.get(&*lowercase(path))?.iter().copied().find(|p| *p != path)
    }

    /// A close name (file or directory) in the directory the link points into.
    fn suggest_path(&self, joined: &[&str]) -> Option<Suggestion> {
        let (leaf, dir) = joined.split_last()?;
        let dir_path = to_path(dir);
        let children = self.misses().children.get(dir_path.as_str())?;
        // `refrence.md` is compared with whole names, `instal` (a page link) with stems.
        let whole = leaf.contains('.');
        let key = |name: &'t str| lowercase(if whole { name } else { page_stem(name) });
        let want = lowercase(if whole { leaf } else { page_stem(leaf) });
        let best =
            closest(&want, children.iter().filter(|name| *name != leaf).map(|name| (key(name), *name)))?;
        let is_dir = !self.exists(&format!("{dir_path}/{best}"));
        Some(Suggestion { leaf: best.to_owned(), is_dir })
    }

    /// For a site-absolute link whose directory does not exist either: the closest page
    /// anywhere under `docs/`, written as a site-absolute link in the author's style.
    fn suggest_site_path(&self, target: &str) -> Option<String> {
        let path_end = target.find(['?', '#']).unwrap_or(target.len());
        let (path, rest) = target.split_at(path_end);
        let want = strip_page_ext(path.trim_matches('/')).to_lowercase();
        // Only pages whose last segment is the one written: the typo is in a directory (the
        // directory does not exist), and comparing with every page would cost O(docs) per link.
        let leaf = want.rsplit('/').next().unwrap_or(&want);
        let pages = self.misses().pages_by_leaf.get(leaf)?;
        let best = closest(&want, pages.iter().map(|form| (lowercase(form), *form)))?;
        let ext = if path.ends_with(".md") { ".md" } else { "" };
        let slash = if path.ends_with('/') { "/" } else { "" };
        Some(format!("/{best}{ext}{slash}{rest}"))
    }

    fn check_anchor(&self, source: &LinkSource<'_>, raw: &RawLink, path: &str) -> Option<Problem> {
        if self.open_anchors.contains(path) {
            return None;
        }
        let anchor = percent_decode(raw.anchor()?);
        // An empty fragment and `#top` scroll to the top of any HTML page.
        if anchor.is_empty() || anchor.eq_ignore_ascii_case("top") {
            return None;
        }
        // Only markdown targets have known anchors (a PDF's `#page=2` is not ours to check).
        let anchors = match self.merged_anchors.get(path) {
            Some(merged) => merged,
            None => self.files.get(path).and_then(|f| f.anchors)?,
        };
        if anchors.contains(&anchor) {
            return None;
        }
        let suggestion = anchors
            .iter()
            .find(|a| a.eq_ignore_ascii_case(&anchor))
            .or_else(|| closest(&anchor.to_lowercase(), anchors.iter().map(|a| (a, a))));
        let place = if path == source.path { "this file".to_owned() } else { format!("`{path}`") };
        Some(Problem {
            code: Code::BrokenAnchor,
            message: format!("{place} has no heading with id `{anchor}`"),
            help: suggestion.map(|s| format!("did you mean `#{s}`?")),
        })
    }

    /// `linked` is indexed by [`FileTarget::id`]: served files come first, in path order.
    pub(super) fn orphans(&self, linked: &[bool]) -> Vec<Diagnostic> {
        let served = self.targets.uri_by_path.keys().zip(linked);
        let docs = served.filter(|(p, _)| p.starts_with("docs/") && is_page(p));
        docs.filter(|&(p, &linked)| !linked && !self.reached_without_link(p))
            .map(|(p, _)| {
                Diagnostic::warning(Code::OrphanDoc, p, 1, 1, format!("no other doc or skill links to `{p}`"))
                    .with_help(
                        "link to it from a related doc or an index page, or remove it; if the site's navigation \
                         is generated (a sidebar), set `orphan-doc = \"allow\"` under [lints] in folio.toml",
                    )
            })
            .collect()
    }

    /// The `orphan-doc` exemptions (see the module docs and [`Site::reached_without_link`]).
    fn reached_without_link(&self, path: &str) -> bool {
        self.site.reached_without_link(path, |p| self.exists(p))
    }
}
