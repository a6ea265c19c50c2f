//! The compiler: `compile(&Config) -> Compilation`. Runs the stages in order (walk sources, parse
//! frontmatter and markdown, validate, build the catalog) and nothing else.
//!
//! Synchronous, no network, no async runtime: a build script calls it (the `folio` package's
//! `build.rs` compiles the manual with it).
//! Reading, hashing, parsing, making each file's entry and doc record, and tokenizing bodies for
//! the search index run on every core ([`std::thread::scope`]); the walker thread checks the
//! file names meanwhile. Results are merged back in path order, and the index is rebuilt by
//! term, so the output never depends on scheduling.

pub(crate) mod assemble;
mod cache;
pub(crate) mod diagnostic;
pub(crate) mod frontmatter;
pub(crate) mod index;
pub(crate) mod layout;
pub(crate) mod lenient;
pub(crate) mod links;
pub mod lints;
pub(crate) mod locales;
pub mod markdown;
pub(crate) mod mentions;
mod process;
mod processed;
pub(crate) mod settings;
pub mod source;
pub(crate) mod validate;

use std::path::PathBuf;

use crate::catalog::Catalog;
pub use diagnostic::{Code, Diagnostic, Severity, counts as count_diagnostics, sort as sort_diagnostics};
use frontmatter::DocMeta;
pub use index::build as search_index;
pub use layout::{Layout, LeftOut, Requested, SiteVersion};
pub use lenient::{Lenient, lenient, lenient_incremental};
pub use settings::{catalog_name, search_model};
use source::{Found, Kind};

pub use cache::Cache;
use process::process_all;
pub(crate) use processed::{Parsed, Processed};

/// What to compile: [`Config::new`] and the `with_` methods. (It will gain fields: build it with
/// those, not with a struct literal.)
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Config {
    /// The content root (the directory holding `docs/`, `skills/`, `folio.toml`).
    pub root: PathBuf,
    /// Lint levels from the command line (`--allow/--warn/--deny CODE`); they win over
    /// `folio.toml` `[lints]`. Refused ones (see [`lints::refusal`]) are ignored: check them
    /// first.
    pub lints: Vec<lints::Request>,
    /// Which errors keep the catalog from being made.
    pub gate: lints::Gate,
    /// Catalog paths left out of the catalog: a file, or a directory ending in `/`.
    /// They stay valid link targets, without a URI (see [`lenient()`]).
    pub exclude: Vec<String>,
    /// Where the content is, as the command line says (`--docs`, `--skills`); it wins over
    /// `folio.toml` and detection ([`Layout`]).
    pub layout: layout::Requested,
    /// The catalog's version (`Settings::version`), over `folio.toml` `[catalog] version`: the
    /// version a build of one of a tree's versions names (`folio build --versions`).
    pub version: Option<String>,
}

impl Config {
    /// Compiles `root` with the default levels, refusing every error.
    pub fn new(root: impl Into<PathBuf>) -> Config {
        Config { root: root.into(), ..Config::default() }
    }

    /// `self` with the command line's lint levels ([`Config::lints`]).
    #[must_use]
    pub fn with_lints(mut self, lints: Vec<lints::Request>) -> Config {
        self.lints = lints;
        self
    }

    /// `self` with the gate that says which errors keep the catalog from being made.
    #[must_use]
    pub fn with_gate(mut self, gate: lints::Gate) -> Config {
        self.gate = gate;
        self
    }

    /// `self` with paths left out of the catalog ([`Config::exclude`]).
    #[must_use]
    pub fn with_exclude(mut self, exclude: Vec<String>) -> Config {
        self.exclude = exclude;
        self
    }

    /// `self` with the folders the command line names ([`Config::layout`]).
    #[must_use]
    pub fn with_layout(mut self, layout: layout::Requested) -> Config {
        self.layout = layout;
        self
    }

    /// `self` naming the catalog's version ([`Config::version`]).
    #[must_use]
    pub fn with_version(mut self, version: Option<String>) -> Config {
        self.version = version;
        self
    }

    /// The versions of the docs the tree keeps side by side (a Docusaurus site's
    /// `versions.json`), newest first as the site lists them; empty for a tree without.
    pub fn site_versions(&self) -> Vec<layout::SiteVersion> {
        self.resolve_layout().0.versions
    }

    /// The layout of the tree, and the problems naming its folders: from the command line,
    /// `folio.toml` (read here for its `[docs]` and `[skills]` keys alone; the compile reads it
    /// again in full) and detection.
    pub(crate) fn resolve_layout(&self) -> (layout::Layout, Vec<Diagnostic>) {
        let Ok(root) = self.root.canonicalize() else { return (layout::Layout::default(), Vec::new()) };
        let keys = source::read_inside(&root, "folio.toml")
            .map(|bytes| settings::parse("folio.toml", &bytes, &mut Vec::new()).layout)
            .unwrap_or_default();
        layout::Layout::resolve(&root, &keys, &self.layout)
    }

    fn excludes(&self, path: &str) -> bool {
        self.exclude.iter().any(|e| match e.strip_suffix('/') {
            Some(dir) => path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/')),
            None => path == e,
        })
    }
}

/// The result of a compile: the catalog when there were no errors, and every diagnostic. (It
/// will gain fields: read it, do not build it.)
#[derive(Debug)]
#[non_exhaustive]
pub struct Compilation {
    /// The catalog; `None` when any diagnostic is an error.
    pub catalog: Option<Catalog>,
    /// Every problem found, sorted by (path, line, column, code).
    pub diagnostics: Vec<Diagnostic>,
    /// `[check] deny_warnings` from `folio.toml`.
    pub deny_warnings: bool,
    /// The lint levels in force (`folio.toml` and the command line), already applied to
    /// `diagnostics`.
    pub levels: lints::Levels,
    /// The folders that were read, and why ([`Layout`]).
    pub layout: layout::Layout,
    /// How many docs and skills were found (also when there is no catalog).
    pub found: (usize, usize),
    /// The markdown files of the tree outside the folders read (not worked out for an
    /// incremental compile, which follows a tree already accounted for).
    pub left_out: layout::LeftOut,
    /// How many links to files, routes and anchors of the tree were checked, and how many of
    /// those matched nothing but could not be proved broken (`unverified-link`).
    pub links: (usize, usize),
    /// True when the tree changed while it was being read (an editor's save, a rename), so the
    /// result shows no single moment of it: a file reported as unreadable is gone or readable by
    /// the end of the compile, or (in an incremental compile) a file read has changed since. A
    /// caller following a live tree compiles again instead of serving it.
    pub unsettled: bool,
}

impl Compilation {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compiles a content tree. Content problems are diagnostics, never an early return.
pub fn compile(config: &Config) -> Compilation {
    run(config, Mode::Catalog, None)
}

/// Compiles a content tree like [`compile`], reusing from `cache` every file unchanged since the
/// compile that filled it (same size and modification time, or same bytes), and leaving this
/// compile's results in it for the next one: what `serve --watch` runs on every save. The result
/// is the one [`compile`] gives for the same tree, byte for byte; a one-file edit costs reading
/// that file plus the passes over every file (links, backlinks, the search index).
pub fn compile_incremental(config: &Config, cache: &mut Cache) -> Compilation {
    run(config, Mode::Catalog, Some(cache))
}

/// Compiles a content tree like [`compile`], handing each entry's bytes to `body` as soon as
/// they are read instead of keeping them: what `folio build` uses, so a large tree is never held
/// in memory whole nor read twice. `body(path, bytes)` runs once per entry (on whichever
/// compiler thread finished the next body, never two at once), in
/// [`codec::source_order`](crate::catalog::codec::source_order) of the paths: the order a
/// [`codec::Writer`](crate::catalog::codec::Writer) takes them in. Every `Entry::bytes` of the
/// result is empty (`size` and hashes are set), so it must not be encoded or served as it is.
pub fn compile_streaming(config: &Config, body: &mut (dyn FnMut(&str, &[u8]) + Send)) -> Compilation {
    run(config, Mode::Streaming(body), None)
}

/// Checks a content tree: every diagnostic [`compile`] reports, without assembling the catalog
/// or building its search index (the costliest stage on large trees), so `catalog` is `None`.
pub fn check(config: &Config) -> Compilation {
    run(config, Mode::Check, None)
}

/// The callback [`compile_streaming`] hands each entry's path and bytes to.
type BodySink<'a> = &'a mut (dyn FnMut(&str, &[u8]) + Send);

/// What [`run`] produces.
enum Mode<'a> {
    /// A catalog holding every body.
    Catalog,
    /// A catalog without bodies, which are handed to the callback instead.
    Streaming(BodySink<'a>),
    /// Diagnostics only.
    Check,
}

impl Mode<'_> {
    /// True when a catalog is assembled (bodies hashed and tokenized).
    fn assembles(&self) -> bool {
        !matches!(self, Mode::Check)
    }
}

fn run(config: &Config, mut mode: Mode<'_>, cache: Option<&mut Cache>) -> Compilation {
    let started = std::time::SystemTime::now();
    let incremental = cache.is_some();
    let assemble = mode.assembles();
    let (layout, mut diagnostics) = config.resolve_layout();
    let layout = &layout;
    // The tree is walked on its own thread while the files found so far are processed (docs as
    // soon as they are found, the rest once the walk ends): on a large tree the walk is a tenth
    // of a second that no longer delays everything else. Each file is numbered in the order it
    // is found, which is `codec::source_order` (a walk sorted by file name, then the other files
    // sorted the same way), so streamed bodies can be put back in that order.
    let mut cache = cache;
    let render = layout.render();
    if let Some(cache) = cache.as_deref_mut() {
        cache.use_render(render);
    }
    let reuse = cache.as_deref();
    let (walk, rank, n_skills, mut results, dicts, mut fresh) = std::thread::scope(|scope| {
        let (to_workers, found) = std::sync::mpsc::channel::<(usize, Found)>();
        let walker = scope.spawn(move || {
            // A closed channel means the workers stopped, which only a panic does; `join`
            // below re-raises it.
            let mut seq = 0;
            let mut n_skills = 0;
            let mut paths = Vec::new();
            let mut excluded = Vec::new();
            let mut send = |file: Found| {
                if config.excludes(&file.path) {
                    excluded.push(file.path);
                    return;
                }
                paths.push(file.path.clone());
                let _ = to_workers.send((seq, file));
                seq += 1;
            };
            let mut walk = source::walk(&config.root, layout, &mut send);
            // What the walk says of a left-out entry is among the reasons it was left out.
            if !config.exclude.is_empty() {
                walk.diagnostics.retain(|d| !config.excludes(&d.path));
            }
            for file in std::mem::take(&mut walk.files) {
                n_skills += usize::from(matches!(file.kind, Kind::SkillDocument { .. }));
                send(file);
            }
            // Left-out files are still in the tree: valid link targets without a URI.
            if !excluded.is_empty() {
                walk.unserved.append(&mut excluded);
                walk.unserved.sort();
            }
            // The names are checked, and each file's place in path order worked out, here while
            // the files are processed rather than once they all are (serial stretches of the
            // build). An unreadable file's name is checked too.
            let mut order: Vec<usize> = (0..paths.len()).collect();
            order.sort_unstable_by(|&a, &b| paths[a].cmp(&paths[b]));
            let sorted: Vec<&str> = order.iter().map(|&i| paths[i].as_str()).collect();
            validate::portable_names(&sorted, &mut walk.diagnostics);
            // `rank[number]` is the file's place in path order.
            let mut rank = vec![0; order.len()];
            for (place, &number) in order.iter().enumerate() {
                rank[number] = place;
            }
            (walk, rank, n_skills)
        });
        let (results, dicts, fresh) = process_all(found, &mut mode, &mut diagnostics, reuse, render);
        let (walk, rank, n_skills) = crate::parallel::join(walker);
        (walk, rank, n_skills, results, dicts, fresh)
    });
    // Files read from a live tree may have changed since (an editor saving several files):
    // looked at again once all are read, so that a caller does not serve two moments of it.
    let mut changed = false;
    if let Some(cache) = cache.take() {
        cache.refill(&results, &mut fresh, &dicts, started);
        changed = cache.changed_since_read();
    }
    diagnostics.extend(walk.diagnostics);
    // The results are taken out in path order as the catalog is assembled, from each worker's
    // own list; `places` says where each is. A record is half a kilobyte: sorting them by path,
    // moving them into a sorted vector first, or even gathering the workers' lists into one
    // (16 MB copied on a large tree, on one core) was a serial stretch of its own.
    let mut places = vec![(u32::MAX, 0); rank.len()];
    let mut n_docs = 0;
    for (worker, out) in results.iter().enumerate() {
        for (i, (number, processed)) in out.iter().enumerate() {
            places[rank[*number]] = (worker as u32, i as u32);
            n_docs += usize::from(processed.as_ref().is_some_and(|p| p.found.kind == Kind::Doc));
        }
    }
    places.retain(|&(worker, _)| worker != u32::MAX);
    // The iterator owns the results, so they are freed as soon as the catalog's loop over them
    // ends (kept to the end of the compile, they were 16 MB more at its peak on a large tree).
    let files = places.into_iter().map(move |(worker, i)| {
        results[worker as usize][i as usize].1.take().expect("each result is taken once")
    });
    let built =
        assemble::build(files, n_docs, dicts, &walk.unserved, assemble, (config, layout), &mut diagnostics);
    let found = (n_docs, n_skills);
    let mut layout = layout.clone();
    if let Some(base) = built.inferred_base.clone() {
        layout.site.base = base;
        layout.site.base_inferred = true;
    }
    let layout = &layout;
    // An empty catalog is never a quiet success; an error of its own already says why.
    if found == (0, 0) && !diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.push(layout.nothing_found(&config.root));
    }
    layout.translate(&config.root, &mut diagnostics);
    // Every markdown file accounted for: a `SKILL.md` no skills folder holds is never left out
    // in silence.
    let left_out =
        if incremental { layout::LeftOut::default() } else { layout::left_out(&config.root, layout) };
    diagnostics.extend(left_out.diagnostics());
    let unsettled = changed
        || diagnostics
            .iter()
            .any(|d| d.code == Code::UnreadableFile && source::moved_since(&config.root, &d.path));
    built.levels.apply(&mut diagnostics);
    diagnostic::sort(&mut diagnostics);
    let catalog = if diagnostics.iter().any(|d| config.gate.blocks(d)) { None } else { built.catalog };
    Compilation {
        catalog,
        diagnostics,
        deny_warnings: built.deny_warnings,
        levels: built.levels,
        layout: layout.clone(),
        found,
        left_out,
        links: built.links,
        unsettled,
    }
}
