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
//! - How a site maps routes to files is one model (`site.rs`) whose rules the tree selects. Hugo
//!   trees (`docs/` holds an `_index.md`) are read the way Hugo's link render hooks read them,
//!   through `GetPage`: a doc's page links match ignoring case (Hugo serves lowercase URLs), and
//!   a relative page link that fails against the doc's directory is tried against `docs/`
//!   (`[x](methods/page/date/)` from any page). Trees with locale folders fall back to the
//!   default locale (below).
//! - A doc link into a locale folder that lacks the page (`/ja/guides/x/` where only
//!   `docs/en/guides/x.md` exists) resolves to the default locale's page, as Starlight, Docusaurus
//!   and Hugo render it, with a `locale-fallback` diagnostic (`allow` unless a level turns it on).
//! - A skill's markdown should not link outside its directory: skills are installed on their own.
//!   A relative link into another skill of the catalog resolves to that skill's file and is a
//!   `cross-skill-link` warning (the skill is not self-contained); a link that leaves every skill
//!   is a `broken-link`.
//! - A host command reference written as a link, `/plugin:skill` (Claude Code's plugin commands)
//!   or `/name` where `name` is a skill of the catalog and no file matches, is not a file link:
//!   it is recorded and left alone.
//! - An anchor must be a heading id (or definition-term or HTML id) of the target, or of a file
//!   the target includes with a Hugo include shortcode: else `broken-anchor` (a warning: the
//!   page still opens). `#top` always works in browsers.
//! - A file present in the tree but not served (an image under `docs/`) is a valid target with
//!   no URI; a path nothing in the tree holds is a `broken-link`, even when a site generator
//!   might serve it from elsewhere (Hugo's `static/`): Folio can only vouch for what it serves.
//!
//! `orphan-doc` (warning): a doc that no other doc or skill links to. Exempt are pages a reader
//! reaches without a link: `index.md`, `_index.md` and `README.md` at the root of `docs/` (and of
//! each locale folder),
//! every `README.md` (hosts show it for its directory), every `_index.md` (a Hugo section page,
//! reached from the generated navigation), and every page of a directory that has an `_index.md`
//! (Hugo lists a section's pages on its section page; for a page bundle `x/index.md`, the section
//! is the bundle's parent). A file another page includes (Hugo include shortcode) is linked.

use std::collections::{BTreeMap, BTreeSet};

use super::diagnostic::{Code, Diagnostic};
use super::markdown::RawLink;
use crate::catalog::Link;

mod forms;
mod index;
mod pattern;
mod proof;
mod site;

pub(crate) use super::layout::{Miss, Unverifiable};

/// Where the site's navigation (the links its config files list) is resolved from: a page at the
/// root of `docs/` that no tree holds (hidden names are never walked). Its links are not counted
/// and its problems not reported: they are the config's.
pub(crate) const NAVIGATION: &str = "docs/.navigation";

use forms::alias_key;
pub(crate) use forms::page_alias;
#[cfg(test)]
use forms::{is_page, parent};
use index::Index;

/// What a linking file is, which decides how its links resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
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
pub(crate) struct LinkSource<'a> {
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
pub(crate) struct Targets<'a> {
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
    /// Every skill directory (content-relative, `skills/acme/billing`), sorted: where a link out
    /// of one skill may land in another.
    pub skill_dirs: Vec<&'a str>,
    /// Skill names and skill directory names, for `/name` command references.
    pub skill_names: BTreeSet<&'a str>,
    /// The locale folders of `docs/` (`en`, `ja`), empty for a single-language tree.
    pub locale_folders: Vec<&'a str>,
    /// The default locale's folder, when there are locale folders.
    pub default_locale: Option<&'a str>,
    /// How the site routes its pages ([`SiteRules`](super::layout::SiteRules)).
    pub site: super::layout::SiteRules,
    /// Locales written as file-name suffixes (`guide.ja.mdx`): a page of such a locale links to
    /// its own locale's translation of a page when there is one.
    pub locale_suffixes: Vec<&'a str>,
    /// Pages whose anchors cannot be known (a plugin directive writes content into them):
    /// links to their anchors are not checked.
    pub open_anchors: BTreeSet<&'a str>,
}

impl<'a> Targets<'a> {
    /// Records that the site path `alias` (`/getting-started/glossary/`) redirects to the doc at
    /// `doc_path`. The first doc to claim an alias keeps it.
    pub(crate) fn add_alias(&mut self, alias: &str, doc_path: &'a str) {
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
pub(crate) struct Anchors<'a>(Box<[&'a str]>);

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
pub(crate) struct Resolution {
    /// Resolved links, one vector per [`LinkSource`], in the same order.
    pub links: Vec<Vec<Link>>,
    /// Per [`LinkSource`], like `links`: the served files its links resolve to, but for itself,
    /// as positions in [`Targets::uri_by_path`] (path order), with repeats. What backlinks are
    /// made of, without looking each link's URI up again.
    pub served: Vec<Vec<u32>>,
    /// `broken-link`, `broken-anchor`, `case-mismatch` and `orphan-doc` diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// The base path worked out from the links, when the site had none and its links write
    /// whole site paths (see `Index::infer_base`).
    pub inferred_base: Option<String>,
    /// Links checked: every link to a file, route or anchor of the tree (not an external or
    /// ignored one).
    pub checked: usize,
    /// Of those, the links that matched nothing but could not be proved broken
    /// (`unverified-link`).
    pub unverified: usize,
}

/// Resolves every link of every source against the targets.
pub(crate) fn resolve<'t>(sources: &[LinkSource<'t>], targets: &'t Targets<'t>) -> Resolution {
    run(sources, targets, true)
}

/// The diagnostics of [`resolve`] alone: no [`Link`] records are made (`folio check` has no
/// catalog to put them in), so `links` and `served` hold one empty vector per source.
pub(crate) fn diagnose<'t>(sources: &[LinkSource<'t>], targets: &'t Targets<'t>) -> Resolution {
    run(sources, targets, false)
}

fn run<'t>(sources: &[LinkSource<'t>], targets: &'t Targets<'t>, keep_links: bool) -> Resolution {
    let mut index = Index::new(targets);
    index.lend_included_anchors(sources);
    let res = resolve_all(&index, sources, keep_links);
    // A base path is worked out only for a tree whose links miss (most trees pay nothing for
    // it), and the links are then resolved again with it.
    let misses = res.diagnostics.iter().filter(|d| d.code == Code::BrokenLink).count();
    if misses < 3 {
        return res;
    }
    let mut index = Index::new(targets);
    let Some(base) = index.infer_base(sources) else { return res };
    index.lend_included_anchors(sources);
    let mut res = resolve_all(&index, sources, keep_links);
    res.inferred_base = Some(base);
    res
}

/// Resolves every source against `index`, on all cores.
fn resolve_all<'t>(index: &Index<'t>, sources: &[LinkSource<'t>], keep_links: bool) -> Resolution {
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
        workers.into_iter().flat_map(crate::parallel::join).collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    let chunks = done.into_iter().map(|(_, chunk)| chunk);
    let mut res = Resolution::default();
    let mut linked = vec![false; index.n_files()];
    let mut unverified = proof::Tally::default();
    for part in chunks {
        res.links.extend(part.links);
        res.served.extend(part.served);
        res.diagnostics.extend(part.diagnostics);
        res.checked += part.checked;
        unverified.extend(part.unverified);
        for id in part.linked {
            linked[id as usize] = true;
        }
    }
    res.unverified = unverified.count();
    res.diagnostics.extend(unverified.into_diagnostics());
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
    /// Links checked (see [`Resolution::checked`]).
    checked: usize,
    /// Links that matched nothing but could not be proved broken.
    unverified: proof::Tally,
}

/// A problem with one link.
struct Problem {
    code: Code,
    message: String,
    help: Option<String>,
}

impl Problem {
    /// The diagnostic at a link's target, at its code's default severity: `broken-anchor` (the
    /// page still opens) and `cross-skill-link` (the target is served) are warnings; every other
    /// link problem is an error (each link code has one default, see [`Code`]).
    fn into_diagnostic(self, path: &str, line: u32, column: u32) -> Diagnostic {
        let severity = self.code.default_severities()[0];
        let diagnostic = Diagnostic::new(severity, self.code, path, line, column, self.message);
        match self.help {
            Some(help) => diagnostic.with_help(help),
            None => diagnostic,
        }
    }

    fn broken(message: String, help: Option<String>) -> Self {
        Problem { code: Code::BrokenLink, message, help }
    }
}

enum Outcome<'t> {
    /// Not ours to check (external, a Hugo shortcode).
    Unchecked,
    /// Matches nothing, but the site may still have it: why Folio cannot tell.
    Unverified(String),
    /// The content-relative path of the target.
    Found(&'t str),
    /// Found, with a warning about how (`cross-skill-link`).
    FoundWith(&'t str, Problem),
    Problem(Problem),
}

#[cfg(test)]
mod tests;
