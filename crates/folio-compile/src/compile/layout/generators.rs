//! The site generators Folio knows, one type each: what config file makes a folder its project,
//! and what the config says about where the pages are, how they are routed, what ids their
//! headings get, which folders are served at `/`, what the navigation links to, and where the
//! site has pages Folio does not read. Each generator is a [`Preset`] in a file of its own,
//! written from the generator's own configuration reference and source (cited in its module
//! docs and its manual page under `content/docs/sites/`); [`Generator::preset`] is the registry,
//! checked at compile time by its `match`.
//!
//! Reads the config file through `config` (as data) and looks at names in the tree (does a
//! folder exist, which files a `src/pages/` folder holds); must not read content.

mod docusaurus;
mod host;
mod hugo;
mod mdbook;
mod mkdocs;
mod nextjs;
mod nuxt;
mod starlight;
mod vitepress;

use std::path::Path;

use super::config::{self, ConfigFile, ReadError, Value};
use super::site::SiteRules;

/// A site generator Folio knows the rules of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Generator {
    /// mdBook (`book.toml`).
    MdBook,
    /// VitePress (`.vitepress/config.*`).
    VitePress,
    /// Docusaurus (`docusaurus.config.*`).
    Docusaurus,
    /// MkDocs, with or without Material (`mkdocs.yml`).
    MkDocs,
    /// Astro Starlight (`astro.config.*` with the `starlight()` integration).
    Starlight,
    /// Hugo (`hugo.toml`, `config/_default/`, or `config.toml` with a `baseURL`).
    Hugo,
    /// Nuxt Content (`content.config.*` or `nuxt.config.*` beside `content/`).
    NuxtContent,
    /// Next.js with MDX pages (`next.config.*`; Fumadocs and Nextra).
    NextJs,
}

impl Generator {
    /// Every generator, in the order detection tries them in one folder.
    pub(crate) const ALL: [Generator; 8] = [
        Generator::MdBook,
        Generator::VitePress,
        Generator::Docusaurus,
        Generator::MkDocs,
        Generator::Starlight,
        Generator::Hugo,
        Generator::NuxtContent,
        Generator::NextJs,
    ];

    /// Its preset: the one place a generator's rules are found.
    pub(super) fn preset(self) -> &'static dyn Preset {
        match self {
            Generator::MdBook => &mdbook::MdBook,
            Generator::VitePress => &vitepress::VitePress,
            Generator::Docusaurus => &docusaurus::Docusaurus,
            Generator::MkDocs => &mkdocs::MkDocs,
            Generator::Starlight => &starlight::Starlight,
            Generator::Hugo => &hugo::Hugo,
            Generator::NuxtContent => &nuxt::NuxtContent,
            Generator::NextJs => &nextjs::NextJs,
        }
    }

    /// How `folio.toml` `[docs] generator` spells it.
    pub(crate) fn id(self) -> &'static str {
        self.preset().id()
    }

    /// Its own name, for messages.
    pub(crate) fn name(self) -> &'static str {
        self.preset().name()
    }

    /// Parses `[docs] generator`: `Some(None)` for `"none"` (no generator's rules).
    pub(crate) fn parse(id: &str) -> Option<Option<Generator>> {
        if id == "none" {
            return Some(None);
        }
        Generator::ALL.iter().copied().find(|g| g.id() == id).map(Some)
    }

    /// Every id, for help text.
    pub(crate) fn names() -> String {
        Generator::ALL.iter().map(|g| format!("\"{}\"", g.id())).collect::<Vec<_>>().join(", ")
    }
}

/// One generator's rules.
pub(super) trait Preset: Sync {
    /// How `folio.toml` spells it.
    fn id(&self) -> &'static str;
    /// Its own name.
    fn name(&self) -> &'static str;
    /// The config files that make a folder its project, relative to the folder, in the
    /// generator's own lookup order.
    fn config_files(&self) -> &'static [&'static str];
    /// Whether the folder `dir` (content-relative) holding `config` is a project of this
    /// generator, beyond the file's name (an `astro.config.mjs` is Starlight's only with its
    /// integration). Reads the config when it must.
    fn accepts(&self, _root: &Path, _dir: &str, _config: &str) -> bool {
        true
    }
    /// A config file of another name the folder `dir` (content-relative, holding `names`)
    /// is built from, when none of [`Preset::config_files`] is there: MkDocs builds
    /// `mkdocs-online.yml` when a script passes it with `--config-file`. `None` by default.
    fn config_variant(&self, _root: &Path, _dir: &str, _names: &[(String, bool)]) -> Option<String> {
        None
    }
    /// The project folder of a config file found at `config` in `dir`: VitePress's config sits
    /// in `.vitepress/` inside its project.
    fn project_dir(&self, dir: &str) -> String {
        dir.to_owned()
    }
    /// Reads the site of the project, without what the host adds ([`read`]).
    fn read(&self, project: &Project<'_>) -> Spec;
}

/// The site of `project` as `generator` builds it and its host serves it (redirect files).
pub(super) fn read(generator: Generator, project: &Project<'_>) -> Spec {
    let mut spec = generator.preset().read(project);
    // A config Folio could not read at all (it does not parse): the site was read with the
    // generator's defaults, so no site path can be proved missing.
    if let Value::Unknown(why) = project.value().unwrapped() {
        spec.rules.unverifiable.all_routes = Some(format!("the config could not be read: {why}"));
        spec.rules.nav_dirs = vec![String::new()];
    }
    host::read(project, &mut spec);
    if let Err(why) = &project.value
        && *why != ReadError::Unreadable
    {
        spec.config_error = Some(why.clone());
    }
    spec
}

/// A generator's project: its folder and its config file, read.
pub(super) struct Project<'r> {
    /// The content root (canonical).
    pub(super) root: &'r Path,
    /// The project folder, content-relative (`""` for the root).
    pub(super) dir: String,
    /// The config file, content-relative.
    pub(super) config: String,
    /// The config as data, or why it could not be read.
    pub(super) value: Result<Value, ReadError>,
    /// The version of the site to read (`--version`), for a generator that keeps versions.
    pub(super) version: Option<String>,
}

impl<'r> Project<'r> {
    /// Reads the config file at `config` of the project in `dir`.
    pub(super) fn open(root: &'r Path, dir: String, config: String) -> Project<'r> {
        let value = config::read(root, &config).map(|c| c.value);
        Project { root, dir, config, value, version: None }
    }

    /// `self` reading the version `version` of a site that keeps versions.
    pub(super) fn with_version(mut self, version: Option<String>) -> Project<'r> {
        self.version = version;
        self
    }

    /// The config's value (`Null` when it could not be read).
    pub(super) fn value(&self) -> &Value {
        static NULL: Value = Value::Null;
        self.value.as_ref().unwrap_or(&NULL)
    }

    /// `written`, a path relative to the project folder, as a content-relative path; `None`
    /// when it leaves the root. A leading `/` or `./` is read as the project folder's.
    pub(super) fn at(&self, written: &str) -> Option<String> {
        beside(&self.dir, written.trim_start_matches('/'))
    }

    /// True when the content-relative `rel` is a folder.
    pub(super) fn is_dir(&self, rel: &str) -> bool {
        self.root.join(rel).is_dir()
    }

    /// True when the content-relative `rel` is a file.
    pub(super) fn is_file(&self, rel: &str) -> bool {
        self.root.join(rel).is_file()
    }

    /// Reads another config file of the project (content-relative).
    pub(super) fn read(&self, rel: &str) -> Result<ConfigFile, ReadError> {
        config::read(self.root, rel)
    }

    /// The names in the folder `rel` (content-relative), sorted, each with whether it is a
    /// folder; hidden names and dependency folders left out.
    pub(super) fn entries(&self, rel: &str) -> Vec<(String, bool)> {
        super::visible_entries(self.root, rel)
    }

    /// Every file below the folder `rel` (content-relative), relative to it, in name order, at
    /// most `limit` of them and eight folders deep.
    pub(super) fn files_below(&self, rel: &str, limit: usize) -> Vec<String> {
        fn walk(
            project: &Project<'_>,
            base: &str,
            rel: &str,
            depth: usize,
            limit: usize,
            out: &mut Vec<String>,
        ) {
            for (name, is_dir) in project.entries(&super::join(base, rel)) {
                if out.len() >= limit {
                    return;
                }
                let path = super::join(rel, &name);
                if is_dir {
                    if depth < 8 {
                        walk(project, base, &path, depth + 1, limit, out);
                    }
                } else {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(self, rel, "", 0, limit, &mut out);
        out
    }

    /// The part of the config that could not be read, said once: `docusaurus.config.ts: a call
    /// to \`getDocsPath()\``.
    pub(super) fn unknown(&self, key: &str, value: &Value) -> String {
        let what = value.unknown().unwrap_or("a value Folio does not read");
        format!("`{key}` in `{}` is {what}", self.config)
    }
}

/// What a preset read: the folders, and the site's rules.
#[derive(Debug, Clone, Default)]
pub(super) struct Spec {
    /// The pages folder, content-relative.
    pub(super) docs: String,
    /// The folders served at `/` that exist, content-relative.
    pub(super) assets: Vec<String>,
    /// How the site routes, renders and navigates.
    pub(super) rules: SiteRules,
    /// Folders of the site holding pages Folio does not read, content-relative, each with why
    /// (archived versions, a blog, translations built as sites of their own).
    pub(super) unread: Vec<(String, String)>,
    /// Why the config file could not be read at all (the site is then read with the
    /// generator's defaults).
    pub(super) config_error: Option<ReadError>,
    /// The versions the site keeps side by side, newest first.
    pub(super) versions: Vec<super::SiteVersion>,
}

pub(super) use super::beside;

/// The path of a URL or site path, without slashes around it (`https://x.github.io/proj/` →
/// `proj`, `/docs/` → `docs`, `https://www.mkdocs.org/` → ``); `None` for a value that is not
/// a plain string.
pub(super) fn url_path(value: &Value) -> Option<String> {
    let value = value.str()?;
    let path = match value.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => value,
    };
    let path = path.split(['?', '#']).next().unwrap_or("").trim_matches('/');
    Some(path.to_owned())
}

/// The site route of a page file below its pages folder, as most generators make it: the path
/// without its extension, `index` and `README` standing for their folder. `guide/intro.md` →
/// `/guide/intro`, `guide/index.mdx` → `/guide`.
pub(super) fn file_route(rel: &str) -> String {
    let stem = rel.rsplit_once('.').map_or(rel, |(stem, _)| stem);
    let stem = stem.strip_suffix("/index").or_else(|| (stem == "index").then_some("")).unwrap_or(stem);
    format!("/{stem}")
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_routes;
