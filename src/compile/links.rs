//! Link resolution across the whole tree: relative, site-absolute and wiki links to files and
//! anchors; `broken-link`, `broken-anchor`, `case-mismatch` and `orphan-doc` diagnostics.
//!
//! Pure: works on the paths and anchors the other stages found, performs no IO.
//!
//! The rules (`content/docs/reference/links.md`), in the order they apply to one link:
//! - External links (`https:`, `mailto:`, `//host`) are recorded, never fetched. Targets that are
//!   Hugo shortcodes (`{{< ref "x" >}}`) are recorded and left alone: only Hugo can expand them.
//!   So are targets the project lists in `[check] ignore_links` (exact, or `prefix*`).
//! - The path is percent-decoded once; a `?query` is dropped.
//! - Relative links resolve against the linking file's directory; `..` above the content root is a
//!   `broken-link`. Site-absolute links resolve against `docs/`, then against the content root
//!   (`/docs/x.md`, as GitHub reads a repository-absolute link).
//! - A site-absolute path that a doc lists in its frontmatter `aliases` resolves to that doc
//!   (Hugo serves a redirect there).
//! - A link to a directory of the tree without an index page is valid (GitHub lists it; MCP
//!   clients read skill directories) and has no URI.
//! - A path that names a page rather than a file resolves like static site generators do:
//!   `x` or `x/` → `x.md`, `x/index.md`, `x/_index.md`, `x/README.md` (and `.mdx`); `x.html` →
//!   `x.md`. A path with another extension must name that file exactly.
//! - Wiki links match doc paths relative to `docs/` without the extension, ignoring case and
//!   treating `_`, `-` and space as one character: first the whole path, then, when it is unique,
//!   the file name alone. Several matches are a `broken-link` naming the candidates.
//! - Matching is case-sensitive everywhere (servers and unpacked skills are): a path that exists
//!   only in another case is a `case-mismatch` with the right spelling as help.
//! - Hugo trees (`docs/` holds an `_index.md`) are read the way Hugo's link render hooks read
//!   them, through `GetPage`: a doc's page links match ignoring case (Hugo serves lowercase
//!   URLs), and a relative page link that fails against the doc's directory is tried against
//!   `docs/` (`[x](methods/page/date/)` from any page).
//! - A skill's markdown must not link outside its directory: skills are installed on their own.
//! - An anchor must be a heading id (or definition-term or HTML id) of the target, or of a file
//!   the target includes with a Hugo include shortcode: else `broken-anchor` (a warning: the
//!   page still opens). `#top` always works in browsers.
//! - A file present in the tree but not served (an image under `docs/`) is a valid target with
//!   no URI; a path nothing in the tree holds is a `broken-link`, even when a site generator
//!   might serve it from elsewhere (Hugo's `static/`): Folio can only vouch for what it serves.
//!
//! `orphan-doc` (warning): a doc that no other doc or skill links to. Exempt are pages a reader
//! reaches without a link: `index.md`, `_index.md` and `README.md` at the root of `docs/`,
//! every `README.md` (hosts show it for its directory), every `_index.md` (a Hugo section page,
//! reached from the generated navigation), and every page of a directory that has an `_index.md`
//! (Hugo lists a section's pages on its section page; for a page bundle `x/index.md`, the section
//! is the bundle's parent). A file another page includes (Hugo include shortcode) is linked.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::diagnostic::Diagnostic;
use super::markdown::RawLink;
use crate::catalog::{Link, LinkKind};
use crate::lookup::LookupMap;

/// What a linking file is, which decides how its links resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A doc under `docs/`.
    Doc,
    /// A skill's SKILL.md; `skill_dir` is its directory, content-relative (`skills/acme/billing`).
    /// Local links must stay inside the skill and match case exactly.
    SkillDocument {
        /// The skill directory, content-relative.
        skill_dir: String,
    },
    /// Another markdown file of a skill (`references/api.md`); same rules as its SKILL.md.
    SkillFile {
        /// The skill directory, content-relative.
        skill_dir: String,
    },
}

impl Origin {
    fn skill_dir(&self) -> Option<&str> {
        match self {
            Origin::Doc => None,
            Origin::SkillDocument { skill_dir } | Origin::SkillFile { skill_dir } => Some(skill_dir),
        }
    }
}

/// One file's links, to be resolved.
#[derive(Debug, Clone)]
pub struct LinkSource<'a> {
    /// Content-relative path of the linking file (`docs/guides/install.md`).
    pub path: &'a str,
    /// What the linking file is.
    pub origin: Origin,
    /// Its links as the markdown pass found them.
    pub links: &'a [RawLink],
}

/// Everything a link may point at, borrowed from the entries and analyses it was gathered from
/// (copying every path, URI and anchor of a large tree cost more than resolving its links).
#[derive(Debug, Clone, Default)]
pub struct Targets<'a> {
    /// Canonical URI of every served file, by content-relative path.
    pub uri_by_path: BTreeMap<&'a str, &'a str>,
    /// Anchors of every analysed markdown file (heading, term and HTML ids:
    /// `Markdown::anchors`), by content-relative path.
    pub anchors_by_path: BTreeMap<&'a str, Anchors<'a>>,
    /// Content-relative paths of files that exist in the tree but are not served (an image
    /// under `docs/`): valid link targets without a URI.
    pub other_files: BTreeSet<&'a str>,
    /// Link targets not to check, as written: exact, or a prefix ending in `*`
    /// (`folio.toml` `[check] ignore_links`). For destinations a site's own render hooks
    /// rewrite, such as hugoDocs' glossary links `[term](g)`.
    pub ignore: Vec<String>,
    /// Old site paths that redirect to a doc (frontmatter `aliases`, as Hugo serves them), by
    /// [`Targets::add_alias`]'s key, to the doc's content-relative path.
    pub aliases: BTreeMap<String, &'a str>,
}

impl<'a> Targets<'a> {
    /// Records that the site path `alias` (`/getting-started/glossary/`) redirects to the doc at
    /// `doc_path`. The first doc to claim an alias keeps it.
    pub fn add_alias(&mut self, alias: &str, doc_path: &'a str) {
        self.aliases.entry(alias_key(alias)).or_insert(doc_path);
    }

    fn ignores(&self, target: &str) -> bool {
        self.ignore.iter().any(|pattern| match pattern.strip_suffix('*') {
            Some(prefix) => target.starts_with(prefix),
            None => target == pattern,
        })
    }
}

/// The anchors of one file, sorted and without repeats: one allocation per file rather than a
/// tree node per anchor (a large tree has hundreds of thousands).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Anchors<'a>(Box<[&'a str]>);

impl<'a> Anchors<'a> {
    fn contains(&self, anchor: &str) -> bool {
        self.0.binary_search(&anchor).is_ok()
    }

    fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.0.iter().copied()
    }
}

impl<'a> FromIterator<&'a str> for Anchors<'a> {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut anchors: Vec<&'a str> = iter.into_iter().collect();
        anchors.sort_unstable();
        anchors.dedup();
        Anchors(anchors.into_boxed_slice())
    }
}

impl<'a, const N: usize> From<[&'a str; N]> for Anchors<'a> {
    fn from(anchors: [&'a str; N]) -> Self {
        anchors.into_iter().collect()
    }
}

/// The outcome of resolving every link of the tree.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// Resolved links, one vector per [`LinkSource`], in the same order.
    pub links: Vec<Vec<Link>>,
    /// Per [`LinkSource`], like `links`: the served files its links resolve to, but for itself,
    /// as positions in [`Targets::uri_by_path`] (path order), with repeats. What backlinks are
    /// made of, without looking each link's URI up again.
    pub served: Vec<Vec<u32>>,
    /// `broken-link`, `broken-anchor`, `case-mismatch` and `orphan-doc` diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Resolves every link of every source against the targets.
pub fn resolve<'t>(sources: &[LinkSource<'t>], targets: &'t Targets<'t>) -> Resolution {
    run(sources, targets, true)
}

/// The diagnostics of [`resolve`] alone: no [`Link`] records are made (`folio check` has no
/// catalog to put them in), so `links` and `served` hold one empty vector per source.
pub fn diagnose<'t>(sources: &[LinkSource<'t>], targets: &'t Targets<'t>) -> Resolution {
    run(sources, targets, false)
}

fn run<'t>(sources: &[LinkSource<'t>], targets: &'t Targets<'t>, keep_links: bool) -> Resolution {
    let mut index = Index::new(targets);
    index.lend_included_anchors(sources);
    let index = index;
    // Sources are independent once the index is built, so they are resolved on all cores. Link
    // counts vary a lot between files, so the sources are cut into many small chunks handed
    // out one at a time (a fixed half per core left one idle); the chunks are joined in order,
    // so the result does not depend on the number of threads.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 16);
    let chunk = sources.len().div_ceil(threads * 16).max(64);
    let parts: Vec<&[LinkSource<'t>]> = sources.chunks(chunk).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, Chunk)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(parts.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(part) = parts.get(i) else { break };
                        out.push((i, index.resolve_chunk(part, keep_links)));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    let chunks = done.into_iter().map(|(_, chunk)| chunk);
    let mut res = Resolution::default();
    let mut linked = vec![false; index.files.len()];
    for part in chunks {
        res.links.extend(part.links);
        res.served.extend(part.served);
        res.diagnostics.extend(part.diagnostics);
        for id in part.linked {
            linked[id as usize] = true;
        }
    }
    res.diagnostics.extend(index.orphans(&linked));
    res
}

/// What resolving a run of sources yields.
struct Chunk {
    links: Vec<Vec<Link>>,
    /// See [`Resolution::served`].
    served: Vec<Vec<u32>>,
    diagnostics: Vec<Diagnostic>,
    /// Files linked from another file, as [`FileTarget::id`]s (with repeats).
    linked: Vec<u32>,
}

/// A problem with one link.
struct Problem {
    code: &'static str,
    message: String,
    help: Option<String>,
}

impl Problem {
    /// The diagnostic at a link's target. `broken-anchor` is a warning (the page still opens);
    /// every other link problem is an error.
    fn into_diagnostic(self, path: &str, line: u32, column: u32) -> Diagnostic {
        let diagnostic = if self.code == "broken-anchor" {
            Diagnostic::warning(self.code, path, line, column, self.message)
        } else {
            Diagnostic::error(self.code, path, line, column, self.message)
        };
        match self.help {
            Some(help) => diagnostic.with_help(help),
            None => diagnostic,
        }
    }

    fn broken(message: String, help: Option<String>) -> Self {
        Problem { code: "broken-link", message, help }
    }
}

enum Outcome<'t> {
    /// Not ours to check (external, a Hugo shortcode).
    Unchecked,
    /// The content-relative path of the target.
    Found(&'t str),
    Problem(Problem),
}

/// Lookup tables over the targets, built once per resolve. Keys borrow from the targets when
/// they equal a path or a slice of it (most paths are lowercase already), so a large tree's
/// index is not a copy of all its paths.
struct Index<'t> {
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
    /// True for a Hugo tree (`docs/` holds an `_index.md`): page links follow `GetPage`.
    hugo: bool,
    /// Anchors of pages that include other files: their own plus the included files'.
    merged_anchors: BTreeMap<String, Anchors<'t>>,
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
    fn new(targets: &'t Targets<'t>) -> Self {
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

impl<'t> Index<'t> {
    fn new(targets: &'t Targets<'t>) -> Self {
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
        Index {
            targets,
            files,
            misses: std::sync::OnceLock::new(),
            wiki_full,
            wiki_name,
            wiki_sorted: std::sync::OnceLock::new(),
            merged_anchors: BTreeMap::new(),
            hugo: targets
                .uri_by_path
                .keys()
                .any(|p| p.starts_with("docs/") && (p.ends_with("/_index.md") || p.ends_with("/_index.mdx"))),
        }
    }

    fn misses(&self) -> &Misses<'t> {
        self.misses.get_or_init(|| Misses::new(self.targets))
    }

    /// Resolves the links of some sources; records them only when `keep_links`.
    fn resolve_chunk(&self, sources: &[LinkSource<'t>], keep_links: bool) -> Chunk {
        let mut out = Chunk {
            links: Vec::with_capacity(sources.len()),
            served: Vec::with_capacity(sources.len()),
            diagnostics: Vec::new(),
            linked: Vec::new(),
        };
        for source in sources {
            // Reference-style links that share a definition report the same spot once.
            let mut seen = BTreeSet::new();
            let mut links = Vec::with_capacity(if keep_links { source.links.len() } else { 0 });
            let mut served = Vec::new();
            for raw in source.links {
                let (resolved_path, problem) = match self.resolve_link(source, raw) {
                    Outcome::Unchecked => (None, None),
                    Outcome::Found(path) => (Some(path), self.check_anchor(source, raw, path)),
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
    fn lend_included_anchors(&mut self, sources: &[LinkSource<'t>]) {
        let mut included: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for source in sources {
            for raw in source.links.iter().filter(|l| l.include) {
                if let Outcome::Found(path) = self.resolve_link(source, raw) {
                    included.entry(source.path).or_default().push(path.to_owned());
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
                if raw.target.trim_start().starts_with("{{") {
                    return Outcome::Unchecked;
                }
                self.resolve_path(source, raw)
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
        let hugo_page = self.hugo && source.origin == Origin::Doc;
        let mut bases: Vec<Vec<&str>> = if absolute {
            vec![vec!["docs"], vec![]]
        } else {
            vec![parent(source.path).map_or_else(Vec::new, |dir| dir.split('/').collect())]
        };
        if hugo_page && !absolute {
            // Hugo's `GetPage` (which its link render hooks call) tries a relative path against
            // the page's directory, then against the content root.
            bases.push(vec!["docs"]);
        }
        let mut first_joined = None;
        for base in &bases {
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
            {
                return Outcome::Problem(Problem::broken(
                    format!("link `{}` leaves the skill directory `{skill_dir}`", raw.target),
                    Some(format!(
                        "a skill is installed on its own: copy the file into `{skill_dir}` or link to it by URL"
                    )),
                ));
            }
            let candidates = candidates(&joined_path, path.ends_with('/'));
            if let Some(found) = candidates.iter().find_map(|c| self.existing(c)) {
                return Outcome::Found(found);
            }
            for candidate in &candidates {
                if let Some(actual) = self.case_twin(candidate) {
                    // Hugo looks pages up ignoring case and serves them at lowercase URLs.
                    if hugo_page && is_page(actual) {
                        return Outcome::Found(actual);
                    }
                    let fixed = fix_case(&raw.target, base, &written, actual);
                    return Outcome::Problem(Problem {
                        code: "case-mismatch",
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
                return Outcome::Found(dir);
            }
            first_joined.get_or_insert((joined, candidates));
        }
        // A site path a doc names among its `aliases` redirects there.
        if absolute && let Some(doc) = self.targets.aliases.get(&alias_key(path)) {
            return Outcome::Found(doc);
        }
        let Some((joined, candidates)) = first_joined else {
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

    fn resolve_wiki(&self, source: &LinkSource<'t>, raw: &RawLink) -> Outcome<'t> {
        let target = raw.path().trim().trim_start_matches('/');
        if target.is_empty() {
            return Outcome::Found(source.path);
        }
        // Only a problem's message shows the link: not formatted for the links that resolve.
        let shown = || format!("[[{}]]", raw.target);
        let key = wiki_key(target);
        // In a skill, a wiki link names a file of that skill (relative to its directory).
        if let Some(skill_dir) = source.origin.skill_dir() {
            let prefix = format!("{skill_dir}/");
            // Only the skill's own files: a range of the sorted maps, not a scan of the tree.
            let from = (std::ops::Bound::Included(prefix.as_str()), std::ops::Bound::Unbounded);
            let served = self.targets.uri_by_path.range::<str, _>(from).map(|(p, _)| p);
            let other = self.targets.other_files.range::<str, _>(from);
            let in_skill = served
                .take_while(|p| p.starts_with(&prefix))
                .chain(other.take_while(|p| p.starts_with(&prefix)));
            let matches: Vec<&str> = in_skill
                .copied()
                .filter(|p| p.strip_prefix(&prefix).is_some_and(|rel| wiki_key(rel) == key))
                .collect();
            return match matches.as_slice() {
                [one] => Outcome::Found(one),
                [] => Outcome::Problem(Problem::broken(
                    format!("wiki link `{}` matches no file in the skill directory `{skill_dir}`", shown()),
                    None,
                )),
                many => Outcome::Problem(ambiguous(&shown(), many)),
            };
        }
        if let Some(found) = self.wiki_full.get(&*key) {
            return match found.as_slice() {
                [one] => Outcome::Found(one),
                many => Outcome::Problem(ambiguous(&shown(), many)),
            };
        }
        if !target.contains('/')
            && let Some(found) = self.wiki_name.get(&*key)
        {
            return match found.as_slice() {
                [one] => Outcome::Found(one),
                many => Outcome::Problem(ambiguous(&shown(), many)),
            };
        }
        // In key order, as a sorted map would give them: the first of equally close keys wins.
        let sorted = self.wiki_sorted.get_or_init(|| {
            let mut keys: Vec<(Cow<'t, str>, &'t str)> =
                self.wiki_full.iter().map(|(k, paths)| (k.clone(), paths[0])).collect();
            keys.sort_unstable();
            keys
        });
        let help = closest(&key, sorted.iter().map(|(k, path)| (k, *path)))
            .map(|path| format!("did you mean `[[{}]]`?", wiki_display(path)));
        Outcome::Problem(Problem::broken(format!("wiki link `{}` matches no doc", shown()), help))
    }

    fn check_anchor(&self, source: &LinkSource<'_>, raw: &RawLink, path: &str) -> Option<Problem> {
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
            code: "broken-anchor",
            message: format!("{place} has no heading with id `{anchor}`"),
            help: suggestion.map(|s| format!("did you mean `#{s}`?")),
        })
    }

    /// `linked` is indexed by [`FileTarget::id`]: served files come first, in path order.
    fn orphans(&self, linked: &[bool]) -> Vec<Diagnostic> {
        let served = self.targets.uri_by_path.keys().zip(linked);
        let docs = served.filter(|(p, _)| p.starts_with("docs/") && is_page(p));
        docs.filter(|&(p, &linked)| !linked && !self.reached_without_link(p))
            .map(|(p, _)| {
                Diagnostic::warning("orphan-doc", p, 1, 1, format!("no other doc or skill links to `{p}`"))
                    .with_help("link to it from a related doc or an index page, or remove it")
            })
            .collect()
    }

    /// The `orphan-doc` exemptions (see the module docs).
    fn reached_without_link(&self, path: &str) -> bool {
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let stem = page_stem(name);
        if dir == "docs" && matches!(stem, "index" | "_index" | "README") {
            return true;
        }
        if matches!(stem, "README" | "_index") {
            return true;
        }
        let section = if stem == "index" { parent(dir).unwrap_or("") } else { dir };
        ["_index.md", "_index.mdx"].iter().any(|index| self.exists(&format!("{section}/{index}")))
    }
}

/// A did-you-mean for a path: the new last segment.
struct Suggestion {
    leaf: String,
    is_dir: bool,
}

fn ambiguous(shown: &str, many: &[&str]) -> Problem {
    let listed: Vec<String> = many.iter().map(|p| format!("`{p}`")).collect();
    Problem::broken(
        format!("wiki link `{shown}` is ambiguous: it matches {}", listed.join(", ")),
        Some(format!("write more of the path, for example `[[{}]]`", wiki_display(many[0]))),
    )
}

/// Exactly `s.to_lowercase()`, borrowed when that is `s` itself (ASCII without uppercase). Exact,
/// not just "no uppercase letter" (a titlecase `ǅ` lowercases too), because the index's keys
/// are matched against the lowercase form of what a link says.
fn lowercase(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.to_lowercase())
    }
}

/// The key of a site path among aliases: without surrounding slashes, lowercase (Hugo serves
/// lowercase URLs).
fn alias_key(path: &str) -> String {
    path.trim_matches('/').to_lowercase()
}

/// How a doc is named in a wiki link: relative to `docs/`, without a page extension.
fn wiki_display(path: &str) -> String {
    let rel = path.strip_prefix("docs/").unwrap_or(path);
    strip_page_ext(rel).to_owned()
}

/// The case- and separator-insensitive key of a wiki target: lowercase, `_` and space read as
/// `-`, a page extension dropped; borrowed when that leaves the text as it is.
fn wiki_key(s: &str) -> Cow<'_, str> {
    let stem = strip_page_ext(s.trim());
    if stem.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase() && b != b'_' && b != b' ') {
        return Cow::Borrowed(stem);
    }
    Cow::Owned(stem.to_lowercase().chars().map(|c| if c == '_' || c == ' ' { '-' } else { c }).collect())
}

fn is_page(path: &str) -> bool {
    path.ends_with(".md") || path.ends_with(".mdx")
}

fn strip_page_ext(s: &str) -> &str {
    s.strip_suffix(".md").or_else(|| s.strip_suffix(".mdx")).unwrap_or(s)
}

/// A file or directory name without a page extension, for comparing names.
fn page_stem(name: &str) -> &str {
    strip_page_ext(name)
}

fn parent(path: &str) -> Option<&str> {
    path.rsplit_once('/').map(|(dir, _)| dir)
}

fn is_inside(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

fn to_path(segments: &[&str]) -> String {
    segments.join("/")
}

/// Joins written segments onto a base directory, applying `.` and `..`; `None` when `..` climbs
/// above the content root.
fn join<'a>(base: &[&'a str], written: &[&'a str]) -> Option<Vec<&'a str>> {
    let mut out: Vec<&str> = base.to_vec();
    for segment in written {
        match *segment {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out)
}

/// The files a path may name, most specific first (see the module docs). The first three are the
/// ones a broken-link message names.
fn candidates(path: &str, trailing_slash: bool) -> Vec<String> {
    candidate_forms(path, trailing_slash).map(|(stem, suffix)| format!("{stem}{suffix}")).collect()
}

/// [`candidates`] without allocating: each as a prefix of `path` and a suffix to append.
fn candidate_forms(path: &str, trailing_slash: bool) -> impl Iterator<Item = (&str, &'static str)> {
    let mut forms = [("", ""); 8];
    let mut n = 0;
    let mut add = |stem, suffix| {
        forms[n] = (stem, suffix);
        n += 1;
    };
    let leaf = path.rsplit('/').next().unwrap_or(path);
    let html = leaf.strip_suffix(".html").or_else(|| leaf.strip_suffix(".htm"));
    match html {
        Some(stem) if !trailing_slash => {
            let stem = &path[..path.len() - leaf.len() + stem.len()];
            add(path, "");
            add(stem, ".md");
            add(stem, ".mdx");
        }
        _ if !trailing_slash && leaf.contains('.') => add(path, ""),
        _ => {
            add(path, ".md");
            add(path, "/index.md");
            add(path, "/_index.md");
            if !trailing_slash {
                // A file without an extension is the rare case, so it is not named in messages.
                add(path, "");
            }
            add(path, "/README.md");
            add(path, "/index.mdx");
            add(path, "/_index.mdx");
            add(path, ".mdx");
        }
    }
    forms.into_iter().take(n)
}

/// `a`, `b` or `c` (at most `max` items, `…` when there are more).
fn list_or(items: &[String], max: usize) -> String {
    let shown: Vec<String> = items.iter().take(max).map(|i| format!("`{i}`")).collect();
    match shown.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The written target with its path spelled like `actual`, which differs only in case from the
/// path the link named (joined from `base` and the written segments).
fn fix_case(target: &str, base: &[&str], written: &[&str], actual: &str) -> String {
    // Rebuild the join, remembering which output segment came from which written segment.
    let mut out: Vec<Option<usize>> = base.iter().map(|_| None).collect();
    for (i, segment) in written.iter().enumerate() {
        match *segment {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            _ => out.push(Some(i)),
        }
    }
    let actual: Vec<&str> = actual.split('/').collect();
    let mut fixed: Vec<String> = written.iter().map(|s| (*s).to_owned()).collect();
    for (pos, origin) in out.iter().enumerate() {
        if let (Some(i), Some(real)) = (origin, actual.get(pos))
            && real.eq_ignore_ascii_case(written[*i])
        {
            fixed[*i] = (*real).to_owned();
        }
    }
    // `actual` may be longer (`x/` → `x/index.md`); the written part is what the author fixes.
    let path_end = target.find(['?', '#']).unwrap_or(target.len());
    format!("{}{}", fixed.join("/"), &target[path_end..])
}

/// The written target with its last path segment replaced by a suggestion, keeping the author's
/// style: a trailing slash, an extension or none, the query and fragment.
fn rewrite_leaf(target: &str, suggestion: &Suggestion) -> String {
    let path_end = target.find(['?', '#']).unwrap_or(target.len());
    let (path, rest) = target.split_at(path_end);
    let trimmed = path.trim_end_matches('/');
    let slash = &path[trimmed.len()..];
    let (dir, leaf) = trimmed.rsplit_once('/').map_or(("", trimmed), |(d, l)| (d, l));
    let new_leaf = if suggestion.is_dir || !leaf.contains('.') {
        page_stem(&suggestion.leaf).to_owned()
    } else {
        suggestion.leaf.clone()
    };
    let sep = if trimmed.contains('/') { "/" } else { "" };
    format!("{dir}{sep}{new_leaf}{slash}{rest}")
}

/// The candidate closest to `want` by edit distance, when it is close enough to be a typo:
/// at most a third of `want`'s length, and at most 3 edits. Ties go to the first candidate
/// in iteration order (callers iterate sorted sets, so the answer is deterministic).
fn closest<'c, K: AsRef<str>>(want: &str, candidates: impl Iterator<Item = (K, &'c str)>) -> Option<&'c str> {
    let limit = (want.chars().count() / 3).clamp(1, 3);
    let mut best: Option<(usize, &str)> = None;
    for (key, value) in candidates {
        let key = key.as_ref();
        // A character is at most 4 bytes: a larger length gap cannot be within the limit.
        if key.len().abs_diff(want.len()) > 4 * limit {
            continue;
        }
        let Some(d) = levenshtein(want, key, limit) else { continue };
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, value));
        }
    }
    best.map(|(_, v)| v)
}

/// Edit distance between `a` and `b` counting a swap of two neighbours as one edit (optimal
/// string alignment, since transpositions are the commonest typo), or `None` above `limit`.
fn levenshtein(a: &str, b: &str, limit: usize) -> Option<usize> {
    if a.is_ascii() && b.is_ascii() {
        return osa(a.as_bytes(), b.as_bytes(), limit);
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    osa(&a, &b, limit)
}

/// Optimal string alignment distance over three rolling rows, stopping once a whole row exceeds
/// `limit` (did-you-mean runs it over many candidates).
fn osa<T: PartialEq>(a: &[T], b: &[T], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d;
            row_min = row_min.min(d);
        }
        if row_min > limit {
            return None;
        }
        // Rotate: before <- prev <- cur.
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|d| *d <= limit)
}

/// Decodes `%XX` escapes once. Invalid escapes stay as written; a result that is not UTF-8
/// leaves the whole input as written.
fn percent_decode(s: &str) -> Cow<'_, str> {
    if !s.contains('%') {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = s.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_or(Cow::Borrowed(s), Cow::Owned)
}

#[cfg(test)]
#[path = "links/tests.rs"]
mod tests;
