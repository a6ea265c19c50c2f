//! Where a tree keeps its content: which folder of the content root is the catalog's `docs/`,
//! which folders hold skills (`skills/`), and which folders a site serves at `/` (static assets).
//! Decided once per compile, before the walk, from (first to last) the command line
//! (`--docs`, `--skills`), `folio.toml` (`[docs] dir`, `static`, `generator`, `[skills] dirs`),
//! the config file of a site generator found in the root or one folder below it (`detect`), the
//! markers of the agent hosts' skill layouts at the root (`hosts`: Claude Code plugins,
//! `.claude/skills/`, `.agents/skills/`…), and Folio's own layout (`docs/`, `skills/`).
//!
//! The catalog has one namespace whatever the layout: a page is `docs/…` and a skill file
//! `skills/…`, wherever the folder sits in the repository (an mdBook's `guide/src/intro.md` is
//! the catalog's `docs/intro.md`, served as `resource://docs/intro.md`). Diagnostics are
//! reported at the files' real paths ([`Layout::translate`]), so an editor opens the right file.
//!
//! Reads only `folio.toml`, the names in the root and one level below it, and the small config
//! files it detects; must not read content (that is `source`).

mod accounting;
pub(crate) mod config;
mod detect;
pub(crate) mod excluded;
mod generated;
mod generators;
pub(crate) mod hosts;
mod site;
mod version;

use std::path::Path;

pub use accounting::LeftOut;
pub(crate) use accounting::left_out;
pub(crate) use generators::Generator;
pub(crate) use hosts::PluginRoot;
pub(crate) use site::{Miss, SiteRules, Unverifiable};
pub use version::SiteVersion;

use super::diagnostic::{Code, Diagnostic};
use super::settings::LayoutKeys;

/// A part of the catalog a folder of the tree is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Part {
    /// Pages: the catalog's `docs/`.
    Docs,
    /// Skills: the catalog's `skills/`.
    Skills,
    /// Static assets a site serves at `/` (`public/`, `static/`): valid link targets, not served.
    Assets,
}

impl Part {
    /// The catalog path the folder's files are under.
    pub(crate) fn logical(self) -> &'static str {
        match self {
            Part::Docs => "docs",
            Part::Skills => "skills",
            Part::Assets => "static",
        }
    }
}

/// One folder of the tree read as a part of the catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mount {
    /// What its files are.
    pub part: Part,
    /// Its path relative to the content root, `/`-separated; empty for the root itself.
    pub dir: String,
    /// The path below the part's catalog folder its files are mounted at: empty, or a host's
    /// scope (a Claude Code plugin's skills are `skills/<plugin>/…`).
    pub at: String,
}

impl Mount {
    /// A folder read as `part`, at the part's own catalog folder.
    pub(crate) fn new(part: Part, dir: impl Into<String>) -> Mount {
        Mount { part, dir: dir.into(), at: String::new() }
    }

    /// The catalog path its files are under: `skills`, or `skills/<plugin>`.
    pub(crate) fn logical(&self) -> String {
        join(self.part.logical(), &self.at)
    }
}

/// What the command line asks for, which wins over `folio.toml` and detection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requested {
    /// `--docs DIR`.
    pub docs: Option<String>,
    /// `--skills DIR` (repeatable).
    pub skills: Vec<String>,
    /// `--version NAME`: the version to read of a site that keeps versions (Docusaurus:
    /// `current` for the docs folder, or a name of `versions.json`); `None` reads the site as
    /// its generator builds its current docs.
    pub version: Option<String>,
}

/// The folders a compile reads, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Every folder read, docs first, then skills, then assets.
    pub(crate) mounts: Vec<Mount>,
    /// The site generator whose rules apply, when one was detected or named.
    pub(crate) generator: Option<Generator>,
    /// The config file the generator was detected from (content-relative), when it was.
    pub(crate) detected_from: Option<String>,
    /// How the site routes and renders its pages: the generator's preset, with `folio.toml`
    /// `[site]` over it.
    pub(crate) site: SiteRules,
    /// Folders of the site (content-relative) whose pages are not read, each with why: archived
    /// versions, a blog, translations, other sites of the repository.
    pub(crate) unread: Vec<(String, String)>,
    /// The agent hosts' layouts of skills read (Claude Code plugins, `.claude/skills/`…), found
    /// from their markers when neither the command line nor `folio.toml` names skills folders.
    pub(crate) hosts: Vec<hosts::Found>,
    /// Skill folders (content-relative) not read because an earlier host folder holds a skill
    /// of the same path (`.agents/skills/x` beside `.claude/skills/x`): each with the one read.
    pub(crate) shadowed: Vec<(String, String)>,
    /// The versions the site keeps, newest first as its generator lists them (empty for a site
    /// without versions).
    pub(crate) versions: Vec<SiteVersion>,
}

impl Default for Layout {
    /// Folio's own layout: `docs/` and `skills/`.
    fn default() -> Self {
        Layout {
            mounts: vec![Mount::new(Part::Docs, "docs"), Mount::new(Part::Skills, "skills")],
            generator: None,
            detected_from: None,
            site: SiteRules::default(),
            unread: Vec::new(),
            hosts: Vec::new(),
            shadowed: Vec::new(),
            versions: Vec::new(),
        }
    }
}

impl Layout {
    /// Works out the layout of the tree at `root` (canonical). Problems (a folder that does not
    /// exist, an unknown generator) are `invalid-config` errors; what cannot be used falls back
    /// to what detection or the default gives.
    pub(crate) fn resolve(
        root: &Path,
        keys: &LayoutKeys,
        requested: &Requested,
    ) -> (Layout, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let mut generator = None;
        let mut named = false;
        if let Some((name, line, column)) = &keys.generator {
            match Generator::parse(name) {
                Some(g) => {
                    generator = g;
                    named = true;
                }
                None => diags.push(
                    Diagnostic::error(
                        Code::InvalidConfig,
                        "folio.toml",
                        *line,
                        *column,
                        format!("invalid `folio.toml` [docs]: unknown generator `{name}`"),
                    )
                    .with_help(format!("known generators: {}, or \"none\"", Generator::names())),
                ),
            }
        }
        let read = if named {
            generator.map(|g| {
                let preset = g.preset();
                let config =
                    preset.config_files().iter().find(|c| root.join(c).is_file()).copied().unwrap_or("");
                let project = generators::Project::open(root, String::new(), config.to_owned())
                    .with_version(requested.version.clone());
                (None, generators::read(g, &project), Vec::new())
            })
        } else {
            pick(root, detect::find(root), requested.version.as_deref())
        };
        let mut layout = match read {
            Some((found, spec, unread)) => {
                if let (Some(why), Some(f)) = (&spec.config_error, &found) {
                    diags.push(match why {
                        config::ReadError::TooLarge(size) => {
                            super::source::bounded::config_too_large(&f.config, *size)
                        }
                        why => Diagnostic::error(
                            Code::InvalidConfig,
                            &f.config,
                            1,
                            1,
                            format!("`{}` is not read: {why}", f.config),
                        )
                        .with_help("fix the file, or its site is read with the generator's defaults"),
                    });
                }
                let mut mounts = vec![Mount::new(Part::Docs, spec.docs.clone())];
                mounts.push(Mount::new(Part::Skills, "skills"));
                mounts.extend(spec.assets.iter().map(|dir| Mount::new(Part::Assets, dir.clone())));
                let found: Option<detect::Found> = found;
                Layout {
                    mounts,
                    generator: found.as_ref().map(|f| f.generator).or(generator),
                    detected_from: found.map(|f| f.config),
                    site: spec.rules,
                    unread: spec.unread.into_iter().chain(unread).collect(),
                    hosts: Vec::new(),
                    shadowed: Vec::new(),
                    versions: spec.versions,
                }
            }
            None => Layout { generator, ..Layout::default() },
        };
        diags.extend(version::unknown(requested.version.as_deref(), &layout.versions));
        let mut folder = |dir: &str, what: &str, at: Option<(u32, u32)>| -> Option<String> {
            let checked = check_dir(root, dir);
            if let Err(why) = &checked {
                diags.push(
                    match at {
                        Some((line, column)) => Diagnostic::error(
                            Code::InvalidConfig,
                            "folio.toml",
                            line,
                            column,
                            format!("invalid `folio.toml`: {what} `{dir}` {why}"),
                        ),
                        None => {
                            Diagnostic::error(Code::InvalidConfig, ".", 1, 1, format!("{what} `{dir}` {why}"))
                        }
                    }
                    .with_help(
                        "name a folder inside the content root, relative to it (`.` for the root itself)",
                    ),
                );
            }
            checked.ok()
        };
        let docs = match (&requested.docs, &keys.docs) {
            (Some(dir), _) => folder(dir, "--docs", None),
            (None, Some((dir, line, column))) => folder(dir, "[docs] dir", Some((*line, *column))),
            (None, None) => None,
        };
        if let Some(dir) = docs {
            layout.mounts.retain(|m| m.part != Part::Docs);
            layout.mounts.insert(0, Mount::new(Part::Docs, dir));
        }
        let skills: Option<Vec<String>> = if requested.skills.is_empty() {
            keys.skills.as_ref().map(|(dirs, line, column)| {
                dirs.iter().filter_map(|d| folder(d, "[skills] dirs", Some((*line, *column)))).collect()
            })
        } else {
            Some(requested.skills.iter().filter_map(|d| folder(d, "--skills", None)).collect())
        };
        let named_skills = skills.is_some();
        if let Some(dirs) = skills {
            layout.mounts.retain(|m| m.part != Part::Skills);
            layout.mounts.extend(dirs.into_iter().map(|dir| Mount::new(Part::Skills, dir)));
        }
        if let Some((dirs, line, column)) = &keys.assets {
            let dirs: Vec<String> =
                dirs.iter().filter_map(|d| folder(d, "[docs] static", Some((*line, *column)))).collect();
            layout.mounts.retain(|m| m.part != Part::Assets);
            layout.mounts.extend(dirs.into_iter().map(|dir| Mount::new(Part::Assets, dir)));
        }
        if !named_skills {
            layout.read_hosts(root, &mut diags);
        }
        layout.mounts.sort_by_key(|m| m.part);
        layout.mounts.dedup();
        let docs = layout.docs_dir().to_owned();
        layout.unread.retain(|(dir, _)| strip_dir(dir, &docs).is_none() && strip_dir(&docs, dir).is_none());
        let (site, keys) = (&mut layout.site, &keys.site);
        if let Some(rule) = keys.heading_ids {
            site.heading_ids = rule;
        }
        if let Some(base) = &keys.base {
            site.base.clone_from(base);
        }
        if let Some(nav) = &keys.nav_files {
            site.nav_files.clone_from(nav);
        }
        site.ordering_prefixes = keys.ordering_prefixes.or(site.ordering_prefixes);
        site.case_insensitive_routes = keys.case_insensitive_routes.unwrap_or(site.case_insensitive_routes);
        site.routes_from_root = keys.routes_from_root.unwrap_or(site.routes_from_root);
        site.directory_urls = keys.directory_urls.unwrap_or(site.directory_urls);
        // Without a generator's config nothing says where the site is served.
        if layout.generator.is_none() {
            layout.site.base_unknown = true;
        }
        layout.site.pages_at_root = layout.docs_dir().is_empty();
        layout.site.unverifiable.disk = Some(generated::hook(root, &layout));
        (layout, diags)
    }

    /// How pages are rendered: the site's heading-id rule; wiki links only where no site
    /// generator's rules apply, its includes only where one does.
    pub(crate) fn render(&self) -> crate::compile::markdown::Render {
        crate::compile::markdown::Render {
            ids: self.site.heading_ids,
            wiki_links: self.generator.is_none(),
            includes: self.generator.is_some(),
            open_frontmatter: self.site.open_frontmatter,
        }
    }

    /// True for Folio's own layout (`docs/` and `skills/`, no generator), whatever else the
    /// compile learned about the tree.
    pub fn is_folios_own(&self) -> bool {
        let own = Layout::default();
        self.mounts == own.mounts && self.generator.is_none() && self.site.base.is_empty()
    }

    /// The versions the site keeps side by side, newest first as its generator lists them;
    /// empty for a site without versions.
    pub fn versions(&self) -> &[SiteVersion] {
        &self.versions
    }

    /// The folder read as `docs/`.
    pub(crate) fn docs_dir(&self) -> &str {
        self.mounts.iter().find(|m| m.part == Part::Docs).map_or("docs", |m| m.dir.as_str())
    }

    /// True when every folder is where the catalog puts it (`docs/` is `docs/`, skills are in
    /// `skills/`), so paths need no translation.
    fn is_identity(&self) -> bool {
        self.mounts.iter().all(|m| m.dir == m.part.logical() && m.at.is_empty())
    }

    /// The real path (content-relative) of the catalog path `logical`: `docs/intro.md` →
    /// `guide/src/intro.md`. Where several folders are read as one part (two skills folders),
    /// the one that holds the path on disk.
    pub(crate) fn real(&self, root: &Path, logical: &str) -> String {
        if self.is_identity() {
            return logical.to_owned();
        }
        let mut first = None;
        // The deepest catalog folder first: `skills/<plugin>` before `skills`.
        let mut mounts: Vec<(&Mount, String)> = self.mounts.iter().map(|m| (m, m.logical())).collect();
        mounts.sort_by_key(|(_, at)| std::cmp::Reverse(at.len()));
        for (mount, at) in &mounts {
            let Some(rest) = strip_dir(logical, at) else { continue };
            let real = join(&mount.dir, rest);
            if self.mounts.iter().filter(|m| m.part == mount.part && m.at == mount.at).count() == 1
                || std::fs::symlink_metadata(root.join(&real)).is_ok()
            {
                return real;
            }
            first.get_or_insert(real);
        }
        first.unwrap_or_else(|| logical.to_owned())
    }

    /// The catalog path of a real path (content-relative), when a folder of the layout holds it:
    /// the deepest such folder decides.
    pub(crate) fn logical(&self, real: &str) -> Option<String> {
        if matches!(real, "." | "folio.toml") {
            return None;
        }
        let mount = self
            .mounts
            .iter()
            .filter(|m| m.part != Part::Assets && strip_dir(real, &m.dir).is_some())
            .max_by_key(|m| m.dir.len())?;
        Some(join(&mount.logical(), strip_dir(real, &mount.dir).unwrap_or("")))
    }

    /// Rewrites diagnostics from catalog paths to real ones: the path, and the paths named in
    /// backticks in the message and help (`` `docs/intro.md` `` → `` `src/intro.md` ``).
    pub(crate) fn translate(&self, root: &Path, diagnostics: &mut [Diagnostic]) {
        if self.is_identity() {
            return;
        }
        let mut renames: Vec<(String, String)> = self
            .mounts
            .iter()
            .filter(|m| m.part == Part::Docs && m.dir != "docs")
            .map(|m| {
                ("`docs/".to_owned(), if m.dir.is_empty() { "`".to_owned() } else { format!("`{}/", m.dir) })
            })
            .collect();
        // A plugin's skills (`skills/<plugin>/…`), deepest first.
        let mut scoped: Vec<&Mount> =
            self.mounts.iter().filter(|m| m.part == Part::Skills && !m.at.is_empty()).collect();
        scoped.sort_by_key(|m| std::cmp::Reverse(m.at.len()));
        renames.extend(scoped.into_iter().map(|m| (format!("`{}/", m.logical()), format!("`{}/", m.dir))));
        for d in diagnostics {
            d.path = self.real(root, &d.path);
            // Its reasons name the repository's own files (`docs/nuxt.config.ts`), already real.
            if d.code == Code::UnverifiedLink {
                continue;
            }
            for (from, to) in &renames {
                if d.message.contains(from.as_str()) {
                    d.message = d.message.replace(from.as_str(), to);
                }
                if let Some(help) = &mut d.help
                    && help.contains(from.as_str())
                {
                    *help = help.replace(from.as_str(), to);
                }
            }
        }
    }

    /// One line saying what was read: `docs from guide/src (mdBook, detected from
    /// guide/book.toml)`.
    pub fn describe(&self) -> String {
        let shown = |dir: &str| if dir.is_empty() { ".".to_owned() } else { format!("{dir}/") };
        let mut out = format!("docs from {}", shown(self.docs_dir()));
        let skills: Vec<String> = self
            .mounts
            .iter()
            .filter(|m| m.part == Part::Skills && m.at.is_empty())
            .map(|m| shown(&m.dir))
            .collect();
        if !skills.is_empty() {
            out.push_str(&format!(", skills from {}", skills.join(", ")));
        }
        let assets: Vec<String> =
            self.mounts.iter().filter(|m| m.part == Part::Assets).map(|m| shown(&m.dir)).collect();
        if !assets.is_empty() {
            out.push_str(&format!(", static files from {}", assets.join(", ")));
        }
        if !self.site.base.is_empty() {
            let how = if self.site.base_inferred { " (inferred from its links)" } else { "" };
            out.push_str(&format!(", served under /{}/{how}", self.site.base));
        }
        match (self.generator, &self.detected_from) {
            (Some(g), Some(file)) => out.push_str(&format!(" ({}, detected from {file})", g.name())),
            (Some(g), None) => out.push_str(&format!(" ({}, as folio.toml says)", g.name())),
            (None, _) => {}
        }
        // What of the site is not read, and why: never a silent part of the tree.
        let unread: Vec<String> =
            self.unread.iter().take(4).map(|(dir, why)| format!("{} ({why})", shown(dir))).collect();
        if !unread.is_empty() {
            out.push_str(&format!("; not read: {}", unread.join(", ")));
            if self.unread.len() > 4 {
                out.push_str(&format!(" and {} more", self.unread.len() - 4));
            }
        }
        // Whether every route could be checked: a config read only in part leaves routes
        // unverified, and the reader should know before reading the warnings.
        let partial = self.site.unverifiable.all_routes.as_deref().or(self
            .site
            .unverifiable
            .owned
            .as_ref()
            .filter(|(owned, _)| owned.is_empty())
            .map(|(_, why)| why.as_str()));
        if let Some(why) = partial {
            out.push_str(&format!("; routes not all read: {why}"));
        }
        out.push_str(&hosts::describe(self));
        out
    }
}

impl Layout {
    /// `no-content`: the error for a compile that found no doc and no skill. When the tree holds
    /// markdown elsewhere, it names some, and the hint says what to run: on the folder laid out as
    /// a content root, with `--skills` for a folder of skill folders, or `--docs` for pages.
    pub(crate) fn nothing_found(&self, root: &Path) -> Diagnostic {
        let found = markdown_in(root);
        let message = match found.first() {
            None => {
                format!("found no docs and no skills (read {}); the tree holds no markdown", self.describe())
            }
            Some(example) => format!(
                "found no docs and no skills (read {}), but the tree holds {}{} elsewhere, such as `{example}`",
                self.describe(),
                if found.len() >= MARKDOWN_SCAN { "at least " } else { "" },
                if found.len() == 1 {
                    "1 markdown file".to_owned()
                } else {
                    format!("{} markdown files", found.len())
                }
            ),
        };
        let help = match where_content_is(&found) {
            Some(Found::Root(dir)) => format!(
                "`{dir}/` is laid out as a content root (it holds `{dir}/docs/` or `{dir}/skills/`): point Folio \
                 at it, or name its folders with `--docs` and `--skills`"
            ),
            Some(Found::Roots(parent, n)) => {
                let shown = if parent.is_empty() { ".".to_owned() } else { format!("{parent}/") };
                format!(
                    "{n} folders of `{shown}` are each laid out as a content root (`<folder>/docs/` or \
                     `<folder>/skills/`): name each with `--docs` and `--skills` (repeatable), or point Folio at one"
                )
            }
            Some(Found::Skills(dir)) => format!(
                "`{dir}/` holds skill folders (`<name>/SKILL.md`): run with `--skills {dir}` or set \
                 `[skills] dirs = [\"{dir}\"]` in folio.toml"
            ),
            Some(Found::Docs(dir)) => format!(
                "if the pages are in `{dir}/`, run with `--docs {dir}` or set `[docs] dir = \"{dir}\"` in folio.toml"
            ),
            None => {
                "Folio reads pages from `docs/` and skills from `skills/<name>/SKILL.md`; name other folders \
                     with `--docs DIR`, `--skills DIR`, or `[docs] dir` and `[skills] dirs` in folio.toml"
                    .to_owned()
            }
        };
        Diagnostic::error(Code::NoContent, ".", 1, 1, message).with_help(help)
    }
}

/// The project a tree is read as (none when a generator is named and not detected), its site,
/// and the pages folders of the other sites found, with why they are not read.
type Picked = (Option<detect::Found>, generators::Spec, Vec<(String, String)>);

/// The project the tree is read as, of those found: the one whose pages folder holds the most
/// markdown (then the shallowest, then the first in name order); with its site, and the
/// others' pages folders as unread.
fn pick(root: &Path, found: Vec<detect::Found>, version: Option<&str>) -> Option<Picked> {
    let mut read: Vec<(detect::Found, generators::Spec, usize)> = found
        .into_iter()
        .map(|f| {
            let project = generators::Project::open(root, f.dir.clone(), f.config.clone())
                .with_version(version.map(str::to_owned));
            let spec = generators::read(f.generator, &project);
            let pages = project
                .files_below(&spec.docs, 10_000)
                .iter()
                .filter(|p| p.ends_with(".md") || p.ends_with(".mdx"))
                .count();
            (f, spec, pages)
        })
        .collect();
    let best = (0..read.len())
        .max_by_key(|&i| (read[i].2, std::cmp::Reverse(read[i].0.depth), std::cmp::Reverse(i)))?;
    let (found, mut spec, _) = read.remove(best);
    let mut unread = Vec::new();
    for (other, other_spec, pages) in read {
        if pages == 0 {
            continue;
        }
        let name = other.generator.name();
        // A sibling folder named like a locale is the same site in another language (MkDocs
        // builds one site per language: `docs/en/mkdocs.yml`, `docs/fr/mkdocs.yml`).
        let lang = other.dir.rsplit('/').next().unwrap_or("");
        let sibling = other.generator == found.generator
            && other.dir.rsplit_once('/').map(|(p, _)| p) == found.dir.rsplit_once('/').map(|(p, _)| p)
            && super::locales::is_detected_tag(lang);
        if sibling {
            spec.rules.unverifiable.routes.push((
                format!("/{}", lang.to_ascii_lowercase()),
                format!("the `{lang}` translation, built as a site of its own from `{}`", other.config),
            ));
            unread.push((other_spec.docs, format!("the `{lang}` translation, `{}`", other.config)));
        } else {
            unread.push((other_spec.docs, format!("another site: {name}, `{}`", other.config)));
        }
    }
    Some((Some(found), spec, unread))
}

/// How many markdown files [`Layout::nothing_found`] looks for at most.
const MARKDOWN_SCAN: usize = 1000;

/// Up to [`MARKDOWN_SCAN`] markdown files of the tree (content-relative, in name order, at most
/// eight folders deep), outside hidden and dependency folders, from their names alone (links are
/// not followed).
fn markdown_in(root: &Path) -> Vec<String> {
    fn scan(root: &Path, rel: &str, depth: usize, out: &mut Vec<String>) {
        for (name, is_dir) in visible_entries(root, rel) {
            if out.len() >= MARKDOWN_SCAN {
                return;
            }
            let path = join(rel, &name);
            if is_dir && depth < 8 {
                scan(root, &path, depth + 1, out);
            } else if !is_dir && (name.ends_with(".md") || name.ends_with(".mdx")) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    scan(root, "", 0, &mut out);
    out
}

/// The entries of the folder `rel` (content-relative) a person's content can be in, sorted by
/// name, each with whether it is a directory: no hidden entry and no dependency or build folder
/// (`node_modules`, `target`); names only (links are not followed, nothing is read).
fn visible_entries(root: &Path, rel: &str) -> Vec<(String, bool)> {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else { return Vec::new() };
    let mut out: Vec<(String, bool)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.file_type().ok()?)))
        .filter(|(name, kind)| {
            (kind.is_dir() || kind.is_file())
                && !name.starts_with('.')
                && !matches!(name.as_str(), "node_modules" | "target")
        })
        .map(|(name, kind)| (name, kind.is_dir()))
        .collect();
    out.sort();
    out
}

/// What the markdown of a tree that yielded nothing looks like, for the hint.
enum Found {
    /// A folder laid out as a content root: it holds `docs/` pages or `skills/<name>/SKILL.md`.
    Root(String),
    /// Several such folders side by side in one folder (`plugins/<name>/skills/`), and how many.
    Roots(String, usize),
    /// A folder of skill folders (`<dir>/<name>/SKILL.md`).
    Skills(String),
    /// The folder most pages are in.
    Docs(String),
}

/// Where the content of a tree is, from its markdown files: a content root when a folder holds
/// `docs/` or `skills/` with markdown in them, else the folder of most skill folders when there
/// are `SKILL.md` files, else the folder most pages are in.
fn where_content_is(files: &[String]) -> Option<Found> {
    let most = |dirs: Vec<String>| {
        let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        for dir in dirs {
            *counts.entry(dir).or_default() += 1;
        }
        counts.into_iter().max_by_key(|(dir, n)| (*n, std::cmp::Reverse(dir.clone()))).map(|(dir, _)| dir)
    };
    let roots: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let (dir, _) = f.split_once("/docs/").or_else(|| f.split_once("/skills/"))?;
            (!dir.is_empty()).then(|| dir.to_owned())
        })
        .collect();
    // One of many content roots (a plugin per folder) is not where the content is: name them
    // all by the folder that holds them.
    let distinct: std::collections::BTreeSet<&String> = roots.iter().collect();
    if distinct.len() > 1 {
        let parents: std::collections::BTreeSet<&str> =
            distinct.iter().map(|d| d.rsplit_once('/').map_or("", |(p, _)| p)).collect();
        if let [parent] = parents.into_iter().collect::<Vec<_>>()[..] {
            return Some(Found::Roots(parent.to_owned(), distinct.len()));
        }
    }
    if let Some(root) = most(roots) {
        return Some(Found::Root(root));
    }
    let skill_dirs: Vec<String> = files
        .iter()
        .filter_map(|f| f.strip_suffix("/SKILL.md"))
        .map(|skill| skill.rsplit_once('/').map_or(String::new(), |(dir, _)| dir.to_owned()))
        .collect();
    if !skill_dirs.is_empty() {
        return most(skill_dirs).filter(|d| !d.is_empty()).map(Found::Skills);
    }
    busiest_folder(files).map(Found::Docs)
}

/// The folder most of `files` are in: the top folder holding the most, then down while one
/// folder below holds nine in ten of them and the folder itself holds none directly (`guide` →
/// `guide/src`). `None` when most files are in the root itself.
fn busiest_folder(files: &[String]) -> Option<String> {
    let mut dir = String::new();
    loop {
        let below: Vec<&str> = files.iter().filter_map(|f| strip_dir(f, &dir)).collect();
        let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        let mut direct = 0;
        for path in &below {
            match path.split_once('/') {
                Some((top, _)) => *counts.entry(top).or_default() += 1,
                None => direct += 1,
            }
        }
        let (top, n) = counts.iter().max_by_key(|(name, n)| (**n, std::cmp::Reverse(**name)))?;
        let descend = if dir.is_empty() { *n > direct } else { direct == 0 && *n * 10 >= below.len() * 9 };
        if !descend {
            return (!dir.is_empty()).then_some(dir);
        }
        dir = join(&dir, top);
    }
}

/// `written`, a path relative to the folder `dir` (content-relative), as a content-relative
/// path: `..` steps out of `dir` (Docusaurus's `path: '../docs'` from `website/`), never out of
/// the root.
pub(crate) fn beside(dir: &str, written: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in written.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// `path` below the folder `dir` (`""` is the root): the rest of the path, or `None` when it is
/// not inside. The folder itself gives `""`.
fn strip_dir<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    if dir.is_empty() {
        return Some(path);
    }
    match path.strip_prefix(dir)? {
        "" => Some(""),
        rest => rest.strip_prefix('/'),
    }
}

fn join(dir: &str, rest: &str) -> String {
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (false, true) => dir.to_owned(),
        (false, false) => format!("{dir}/{rest}"),
    }
}

/// A folder name as written (`./guide/src/`, `.`) in the layout's form (`guide/src`, ``), when
/// it is a directory inside the root; else why not.
fn check_dir(root: &Path, written: &str) -> Result<String, &'static str> {
    let mut parts = Vec::new();
    for part in written.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err("leaves the content root"),
            p => parts.push(p),
        }
    }
    if written.starts_with('/') {
        return Err("is an absolute path; write it relative to the content root");
    }
    let dir = parts.join("/");
    let at = root.join(&dir);
    match at.canonicalize() {
        Ok(resolved) if !resolved.starts_with(root) => Err("leaves the content root"),
        Ok(resolved) if resolved.is_dir() => Ok(dir),
        Ok(_) => Err("is not a directory"),
        Err(_) => Err("does not exist"),
    }
}

#[cfg(test)]
mod tests;
