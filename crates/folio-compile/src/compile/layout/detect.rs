//! Which site generator a tree is written for, from the config file that generator reads, and
//! where that generator keeps the pages and the static files: each generator's own defaults
//! (mdBook's `src/`, Docusaurus's `docs/` and `static/`, Starlight's `src/content/docs/` and
//! `public/`, …), with the one setting that moves them read from the config file where it is
//! plain data (`book.toml` `[book] src`, `mkdocs.yml` `docs_dir`, Hugo's `contentDir`).
//!
//! Looks in the content root, then in each folder directly below it (a repository whose site
//! lives in `guide/`, `website/` or `docs/`), in name order; the first config file found wins.
//! Reads nothing but those names and the small config files named above; JavaScript and
//! TypeScript configs are never evaluated, only found.

use std::path::Path;

/// A site generator Folio knows the rules of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Generator {
    /// mdBook (`book.toml`).
    MdBook,
    /// VitePress (`.vitepress/config.*`).
    VitePress,
    /// Docusaurus (`docusaurus.config.*`).
    Docusaurus,
    /// MkDocs, with or without Material (`mkdocs.yml`).
    MkDocs,
    /// Astro Starlight (`astro.config.*` beside `src/content/docs/`).
    Starlight,
    /// Hugo (`hugo.toml`, or `config.toml` beside `content/`).
    Hugo,
    /// Nuxt Content (`nuxt.config.*` or `content.config.*` beside `content/`).
    NuxtContent,
    /// Next.js with MDX pages (`next.config.*`).
    NextJs,
}

const ALL: [Generator; 8] = [
    Generator::MdBook,
    Generator::VitePress,
    Generator::Docusaurus,
    Generator::MkDocs,
    Generator::Starlight,
    Generator::Hugo,
    Generator::NuxtContent,
    Generator::NextJs,
];

impl Generator {
    /// How `folio.toml` `[docs] generator` spells it.
    pub fn id(self) -> &'static str {
        match self {
            Generator::MdBook => "mdbook",
            Generator::VitePress => "vitepress",
            Generator::Docusaurus => "docusaurus",
            Generator::MkDocs => "mkdocs",
            Generator::Starlight => "starlight",
            Generator::Hugo => "hugo",
            Generator::NuxtContent => "nuxt-content",
            Generator::NextJs => "nextjs",
        }
    }

    /// Its own name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Generator::MdBook => "mdBook",
            Generator::VitePress => "VitePress",
            Generator::Docusaurus => "Docusaurus",
            Generator::MkDocs => "MkDocs",
            Generator::Starlight => "Starlight",
            Generator::Hugo => "Hugo",
            Generator::NuxtContent => "Nuxt Content",
            Generator::NextJs => "Next.js",
        }
    }

    /// Parses `[docs] generator`: `Some(None)` for `"none"` (no generator's rules).
    pub fn parse(id: &str) -> Option<Option<Generator>> {
        if id == "none" {
            return Some(None);
        }
        ALL.iter().copied().find(|g| g.id() == id).map(Some)
    }

    /// Every id, for help text.
    pub fn names() -> String {
        ALL.iter().map(|g| format!("\"{}\"", g.id())).collect::<Vec<_>>().join(", ")
    }

    /// Where its pages are, relative to the folder of its config file.
    pub fn default_docs(self) -> &'static str {
        match self {
            Generator::MdBook => "src",
            Generator::VitePress => "",
            Generator::Docusaurus | Generator::MkDocs => "docs",
            Generator::Starlight => "src/content/docs",
            Generator::Hugo | Generator::NuxtContent | Generator::NextJs => "content",
        }
    }

    /// The folders it serves at `/`, for pages in `docs` (root-relative).
    pub fn default_assets(self, docs: &str) -> Vec<String> {
        let within = |dir: &str| if docs.is_empty() { dir.to_owned() } else { format!("{docs}/{dir}") };
        match self {
            Generator::MdBook | Generator::MkDocs => Vec::new(),
            Generator::VitePress => vec![within("public")],
            Generator::Docusaurus | Generator::Hugo => vec!["static".to_owned()],
            Generator::Starlight | Generator::NuxtContent | Generator::NextJs => vec!["public".to_owned()],
        }
    }
}

/// A generator found by its config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Detected {
    pub(super) generator: Generator,
    /// Its config file, content-relative.
    pub(super) config: String,
    /// Its pages' folder, content-relative.
    pub(super) docs: String,
    /// The folders it serves at `/` that exist, content-relative.
    pub(super) assets: Vec<String>,
}

/// The generator the tree at `root` is written for, when a config file says so and the folder
/// its pages would be in exists.
pub(super) fn detect(root: &Path) -> Option<Detected> {
    let below =
        super::visible_entries(root, "").into_iter().filter(|(_, is_dir)| *is_dir).map(|(name, _)| name);
    std::iter::once(String::new()).chain(below).find_map(|dir| detect_in(root, &dir))
}

/// The generator whose config file is in the folder `dir` (content-relative).
fn detect_in(root: &Path, dir: &str) -> Option<Detected> {
    let at = |name: &str| if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") };
    let is_file = |rel: &str| root.join(rel).is_file();
    let is_dir = |rel: &str| root.join(rel).is_dir();
    let first = |names: &[&str]| names.iter().map(|n| at(n)).find(|p| is_file(p));
    let js = |stem: &str| {
        ["ts", "mts", "js", "mjs", "cjs", "cts"]
            .iter()
            .map(|ext| at(&format!("{stem}.{ext}")))
            .find(|p| is_file(p))
    };
    let found = |generator: Generator, config: String, docs: String| {
        let assets = generator.default_assets(&docs);
        // A generator's static folder sits beside its config file, its pages' folder for VitePress.
        let assets =
            assets
                .into_iter()
                .map(|a| {
                    if generator == Generator::VitePress || dir.is_empty() { a } else { format!("{dir}/{a}") }
                })
                .filter(|a| is_dir(a))
                .collect();
        is_dir(&docs).then_some(Detected { generator, config, docs, assets })
    };
    if let Some(config) = first(&["book.toml"]) {
        let src =
            read_small(root, &config).and_then(|text| book_src(&text)).unwrap_or_else(|| "src".to_owned());
        return found(Generator::MdBook, config, at(&src));
    }
    if let Some(config) = js(".vitepress/config") {
        return found(Generator::VitePress, config, dir.to_owned());
    }
    if let Some(config) = js("docusaurus.config") {
        // The docs plugin's `path` (`path: '../docs'`), relative to the config's folder.
        let docs = read_small(root, &config)
            .and_then(|text| {
                text.lines().find_map(|line| {
                    let value = line.trim_start().strip_prefix("path:")?.trim().trim_end_matches(',');
                    let value = value.strip_prefix(['\'', '"'])?.strip_suffix(['\'', '"'])?;
                    super::check_dir(root, &beside(dir, value)?).ok()
                })
            })
            .unwrap_or_else(|| at("docs"));
        return found(Generator::Docusaurus, config, docs);
    }
    if let Some(config) = first(&["mkdocs.yml", "mkdocs.yaml"]) {
        let docs = read_small(root, &config).and_then(|text| yaml_key(&text, "docs_dir"));
        return found(Generator::MkDocs, config, at(docs.as_deref().unwrap_or("docs")));
    }
    if let Some(config) = js("astro.config")
        && is_dir(&at("src/content/docs"))
    {
        return found(Generator::Starlight, config, at("src/content/docs"));
    }
    let hugo = first(&["hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json"]).or_else(|| {
        first(&["config.toml", "config.yaml", "config.yml"])
            .filter(|c| read_small(root, c).is_some_and(|t| t.to_ascii_lowercase().contains("baseurl")))
    });
    if let Some(config) = hugo {
        let text = read_small(root, &config);
        // A module mount of a folder onto `content` (`source = 'content/en'`), Hugo's own way of
        // saying where the pages are; else `contentDir`.
        let content = text.as_deref().and_then(|t| hugo_mount(t, "content")).or_else(|| {
            text.as_deref().and_then(|t| toml_key(t, "contentDir").or_else(|| yaml_key(t, "contentDir")))
        });
        return found(Generator::Hugo, config, at(content.as_deref().unwrap_or("content")));
    }
    if let Some(config) = js("content.config").or_else(|| js("nuxt.config"))
        && is_dir(&at("content"))
    {
        return found(Generator::NuxtContent, config, at("content"));
    }
    if let Some(config) = js("next.config") {
        let docs = ["content", "docs", "pages", "app", "src/pages", "src/app"]
            .iter()
            .map(|d| at(d))
            .find(|d| is_dir(d))?;
        return found(Generator::NextJs, config, docs);
    }
    None
}

/// `written`, a path relative to the folder `dir` (content-relative), as a content-relative
/// path: `..` steps out of `dir` (Docusaurus's `path: '../docs'` from `website/`), never out of
/// the root.
fn beside(dir: &str, written: &str) -> Option<String> {
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

/// A config file's text, read the way the compile reads content (a regular file inside the root,
/// through no link that leaves it) but at most [`MAX_CONFIG_BYTES`] of it, when it is UTF-8. A
/// larger one is not read (`Layout::resolve` reports it).
///
/// [`MAX_CONFIG_BYTES`]: crate::compile::source::MAX_CONFIG_BYTES
fn read_small(root: &Path, rel: &str) -> Option<String> {
    match crate::compile::source::read_config(root, rel) {
        crate::compile::source::ConfigFile::Read(bytes) => String::from_utf8(bytes).ok(),
        _ => None,
    }
}

/// The source of the first `[[module.mounts]]` of a TOML Hugo config whose target is `target`.
fn hugo_mount(text: &str, target: &str) -> Option<String> {
    let value: toml::Table = toml::from_str(text).ok()?;
    let mounts = value.get("module")?.get("mounts")?.as_array()?;
    mounts.iter().find_map(|mount| {
        (mount.get("target")?.as_str()?.trim_matches('/') == target)
            .then(|| mount.get("source")?.as_str().map(|s| s.trim_matches('/').to_owned()))?
    })
}

/// `book.toml` `[book] src`.
fn book_src(text: &str) -> Option<String> {
    let value: toml::Table = toml::from_str(text).ok()?;
    let src = value.get("book")?.get("src")?.as_str()?;
    Some(src.trim_matches('/').to_owned())
}

/// A top-level `key: value` of a YAML file, read as a line (MkDocs files carry `!!python/name`
/// tags a YAML parser without Python refuses).
fn yaml_key(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix(key)?.trim_start().strip_prefix(':')?;
        let value = value.split(" #").next().unwrap_or(value).trim().trim_matches(['"', '\'']);
        (!value.is_empty()).then(|| value.trim_matches('/').to_owned())
    })
}

/// A top-level string key of a TOML file.
fn toml_key(text: &str, key: &str) -> Option<String> {
    let value: toml::Table = toml::from_str(text).ok()?;
    Some(value.get(key)?.as_str()?.trim_matches('/').to_owned())
}
