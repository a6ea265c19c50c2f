//! Hugo, from its configuration reference (<https://gohugo.io/configuration/introduction/>,
//! `…/all/`, `…/module/`, `…/languages/`, `…/permalinks/`), the URL management guide
//! (<https://gohugo.io/content-management/urls/>) and `config/allconfig/load.go`: the config is
//! the first of `hugo.{toml,yaml,yml,json}` and `config.*`, with `config/_default/` (a file per
//! top-level key: `languages.toml`, `module.yaml`, …) merged over it; pages are the source of
//! the first module mount on `content` (or `contentDir`, `content/`), the default language's
//! `contentDir` when languages have their own; other languages are served at `/<lang>/`;
//! `baseURL`'s path is where the site lives; `staticDir` (`static/`) and each `theme`'s
//! `static/` (in `themesDir`) are served at `/`;
//! `permalinks` move a section's pages; taxonomies (`tags`, `categories`) are lists Hugo makes.
//! A link render hook under `layouts/` that compares a destination with a fixed string
//! rewrites that destination (hugoDocs's glossary links).

use std::path::Path;

use super::{Preset, Project, Spec, url_path};
use crate::compile::layout::config::{self, Map, Value};
use crate::compile::layout::site::Mount;

pub(super) struct Hugo;

/// Files Hugo writes whatever the content: feeds, the sitemap, robots.txt.
const OUTPUTS: &[&str] =
    &["/index.xml", "/sitemap.xml", "/robots.txt", "/404.html", "/feed.xml", "/index.json"];

impl Preset for Hugo {
    fn id(&self) -> &'static str {
        "hugo"
    }

    fn name(&self) -> &'static str {
        "Hugo"
    }

    fn config_files(&self) -> &'static [&'static str] {
        &[
            "hugo.toml",
            "hugo.yaml",
            "hugo.yml",
            "hugo.json",
            "config/_default/hugo.toml",
            "config/_default/hugo.yaml",
            "config/_default/hugo.yml",
            "config/_default/hugo.json",
            "config/_default/config.toml",
            "config/_default/config.yaml",
            "config/_default/config.yml",
            "config/_default/config.json",
            "config.toml",
            "config.yaml",
            "config.yml",
            "config.json",
        ]
    }

    /// A `config.*` file of the old name is Hugo's only when it has a key only Hugo reads.
    fn accepts(&self, root: &Path, _dir: &str, config: &str) -> bool {
        let name = config.rsplit('/').next().unwrap_or(config);
        if name.starts_with("hugo.") || config.contains("config/_default/") {
            return true;
        }
        let Ok(file) = config::read(root, config) else { return false };
        file.value.entries().iter().any(|(k, _)| {
            matches!(
                k.to_ascii_lowercase().as_str(),
                "baseurl" | "contentdir" | "languagecode" | "theme" | "module"
            )
        })
    }

    fn read(&self, project: &Project<'_>) -> Spec {
        let config = merged(project);
        let key = |name: &str| {
            config.entries().iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v)
        };
        let default_language =
            key("defaultContentLanguage").and_then(Value::str).unwrap_or("en").to_ascii_lowercase();
        let languages = key("languages").map_or(&[][..], Value::entries);
        let language_dir = |lang: &str| {
            languages
                .iter()
                .find(|(l, _)| l.eq_ignore_ascii_case(lang))
                .and_then(|(_, v)| v.entries().iter().find(|(k, _)| k.eq_ignore_ascii_case("contentDir")))
                .and_then(|(_, v)| v.str())
        };
        let mounts = content_mounts(key("module").and_then(|m| m.get("mounts")));
        let ours = |m: &&ContentMount| {
            m.languages.as_ref().is_none_or(|l| l.iter().any(|p| glob(p, &default_language)))
        };
        let primary = mounts.iter().filter(ours).find(|m| m.sub.is_empty());
        // Without mounts or a `contentDir` per language, a folder per language under `content/`
        // (`content/en/`, `content/ja/`) is mapped by configuration Folio did not find (a mounts
        // file written by a build step): `content/<default>/` is read as the default language's
        // pages, and no site path can be proved missing.
        let by_folder = (mounts.is_empty()
            && languages.len() > 1
            && languages.iter().all(|(l, _)| language_dir(l).is_none()))
        .then(|| {
            let base = key("contentDir").and_then(Value::str).unwrap_or("content");
            let dir = project.at(&format!("{base}/{default_language}"))?;
            let others = languages
                .iter()
                .filter(|(l, _)| !l.eq_ignore_ascii_case(&default_language))
                .filter_map(|(l, _)| project.at(&format!("{base}/{}", l.to_ascii_lowercase())))
                .filter(|d| project.is_dir(d))
                .count();
            (project.is_dir(&dir) && others > 0).then_some((base.to_owned(), dir))
        })
        .flatten();
        let content = match (&primary, &by_folder) {
            (Some(mount), _) => mount.source.clone(),
            (None, Some((base, _))) => format!("{base}/{default_language}"),
            (None, None) => language_dir(&default_language)
                .or_else(|| key("contentDir").and_then(Value::str))
                .unwrap_or("content")
                .to_owned(),
        };
        let mut spec = Spec { docs: project.at(&content).unwrap_or_default(), ..Spec::default() };
        if let Some((base, _)) = &by_folder {
            spec.rules.unverifiable.all_routes = Some(format!(
                "the languages of `{}` have folders under `{base}/` but no `contentDir` or module mount maps them \
                 (a mounts file a build step writes?): Folio reads `{content}/` as the `{default_language}` pages and \
                 cannot prove a site path missing",
                project.config
            ));
            for (lang, _) in languages.iter().filter(|(l, _)| !l.eq_ignore_ascii_case(&default_language)) {
                let lang = lang.to_ascii_lowercase();
                if let Some(dir) = project.at(&format!("{base}/{lang}")).filter(|d| project.is_dir(d)) {
                    spec.unread.push((dir, format!("the `{lang}` translation, a folder of `{base}/`")));
                }
            }
        }
        mount_others(project, &mounts, primary, &default_language, &mut spec);
        let statics: Vec<String> = match key("staticDir") {
            Some(Value::Str(dir)) => vec![dir.clone()],
            Some(Value::List(dirs)) => dirs.iter().filter_map(Value::str).map(str::to_owned).collect(),
            _ => vec!["static".to_owned()],
        };
        spec.assets = statics.iter().filter_map(|s| project.at(s)).filter(|s| project.is_dir(s)).collect();
        // A theme's own `static/` is merged into the site's (Hugo's union file system): the
        // themes named by `theme` (a name or a list), in `themesDir` (`themes/`).
        let themes_dir = key("themesDir").and_then(Value::str).unwrap_or("themes").to_owned();
        let themes: Vec<&str> = match key("theme") {
            Some(Value::Str(theme)) => vec![theme.as_str()],
            Some(Value::List(themes)) => themes.iter().filter_map(Value::str).collect(),
            _ => Vec::new(),
        };
        for theme in themes {
            if let Some(dir) =
                project.at(&format!("{themes_dir}/{theme}/static")).filter(|d| project.is_dir(d))
                && !spec.assets.contains(&dir)
            {
                spec.assets.push(dir);
            }
        }
        let rules = &mut spec.rules;
        rules.case_insensitive_routes = true;
        rules.routes_from_root = true;
        rules.directory_urls = true;
        rules.base = key("baseURL").and_then(url_path).unwrap_or_default();
        rules.extra_routes.extend(OUTPUTS.iter().map(|r| (*r).to_owned()));
        for (lang, _) in languages.iter().filter(|(l, _)| !l.eq_ignore_ascii_case(&default_language)) {
            let lang = lang.to_ascii_lowercase();
            rules
                .unverifiable
                .routes
                .push((format!("/{lang}"), format!("the `{lang}` translation of the site")));
            if let Some(dir) = language_dir(&lang).and_then(|d| project.at(d)) {
                spec.unread.push((dir, format!("the `{lang}` translation, `languages.{lang}.contentDir`")));
            }
        }
        // Taxonomies: lists Hugo makes (`/tags/x/`), unless turned off.
        let disabled: Vec<String> = key("disableKinds")
            .map_or(&[][..], Value::items)
            .iter()
            .filter_map(Value::str)
            .map(str::to_ascii_lowercase)
            .collect();
        if !disabled.iter().any(|k| k == "taxonomy" || k == "term") {
            let taxonomies: Vec<String> = match key("taxonomies") {
                Some(Value::Map(map)) => {
                    map.entries.iter().filter_map(|(_, plural)| plural.str().map(str::to_owned)).collect()
                }
                _ => vec!["tags".to_owned(), "categories".to_owned()],
            };
            for plural in taxonomies {
                rules
                    .unverifiable
                    .routes
                    .push((format!("/{plural}"), format!("a list Hugo makes for the `{plural}` taxonomy")));
            }
        }
        // Permalinks move a section's pages: `posts = '/:year/:month/:slug/'`, or per kind
        // (`[permalinks.page] posts = ...`); the first section named is the reason.
        let first_section = key("permalinks").and_then(|p| p.entries().first()).map(|(section, pattern)| {
            pattern.entries().first().map_or(section.as_str(), |(inner, _)| inner.as_str())
        });
        if let Some(section) = first_section {
            rules.unverifiable.all_routes.get_or_insert_with(|| {
                format!(
                    "`permalinks` in `{}` moves the pages of `{section}` to routes only Hugo works out",
                    project.config
                )
            });
        }
        // A `_redirects` file the site writes from a template (an output format named so): any
        // path may be redirected.
        let redirects =
            key("outputFormats").map_or(&[][..], Value::entries).iter().find_map(|(name, format)| {
                let base =
                    format.entries().iter().find(|(k, _)| k.eq_ignore_ascii_case("baseName"))?.1.str()?;
                matches!(base, "_redirects" | "netlify").then_some(name.clone())
            });
        if let Some(name) = redirects {
            rules.unverifiable.all_routes.get_or_insert_with(|| {
                format!(
                    "the site writes Netlify's `_redirects` from a template (`outputFormats.{name}` in `{}`), so any path may redirect",
                    project.config
                )
            });
        }
        rules.unverifiable.fragments = fragments(project, key("cascade"), &spec.docs);
        rules.hook_links = hook_links(project.root, &project.dir);
        rules.unverifiable.includes = include_reason(project);
        if key("uglyURLs").and_then(Value::bool) != Some(true) {
            rules.unverifiable.html_files = Some(
                "an `.html` file that no page makes (Hugo serves pages at folder URLs) and no static folder holds: \
                 another build step writes it"
                    .to_owned(),
            );
        }
        spec
    }
}

/// The config: the root file, with every file of `config/_default/` merged over it (a file per
/// top-level key; `hugo.*` and `config.*` are the root).
fn merged(project: &Project<'_>) -> Value {
    let mut root = match project.value() {
        Value::Map(map) => map.clone(),
        _ => Map::default(),
    };
    let dir = super::super::join(&project.dir, "config/_default");
    for (name, is_dir) in project.entries(&dir) {
        let Some((stem, ext)) = name.rsplit_once('.') else { continue };
        if is_dir || !matches!(ext, "toml" | "yaml" | "yml" | "json") {
            continue;
        }
        let rel = super::super::join(&dir, &name);
        if rel == project.config {
            continue;
        }
        let Ok(file) = project.read(&rel) else { continue };
        if matches!(stem, "hugo" | "config") {
            root.entries.extend(file.value.entries().iter().cloned());
        } else {
            let key = if stem == "menu" { "menus" } else { stem };
            // A file whose only key is its own name holds that key's value.
            let value = match file.value.entries() {
                [(only, inner)] if only == key => inner.clone(),
                _ => file.value,
            };
            root.entries.push((key.to_owned(), value));
        }
    }
    Value::Map(root)
}

/// A module mount into `content` (`module.mounts` entries whose `target` is `content` or below
/// it), as the config writes it.
#[derive(Debug)]
struct ContentMount {
    /// The source, relative to the project folder as written.
    source: String,
    /// The target below `content`, without slashes around it.
    sub: String,
    /// The languages it is mounted for (`lang`, or `sites.matrix.languages`: glob patterns);
    /// `None` for every language.
    languages: Option<Vec<String>>,
}

/// The mounts into `content`, in the config's order (Hugo takes a file from the first mount
/// that has it). Hugo's default mount of `contentDir` is replaced when the project mounts
/// anything into `content`.
fn content_mounts(mounts: Option<&Value>) -> Vec<ContentMount> {
    let Some(mounts) = mounts else { return Vec::new() };
    mounts
        .items()
        .iter()
        .filter_map(|mount| {
            let target = mount.get("target")?.str()?.trim_matches('/');
            let sub = target.strip_prefix("content")?;
            if !(sub.is_empty() || sub.starts_with('/')) {
                return None;
            }
            let languages = match (mount.get("lang"), mount.get("sites")) {
                (Some(lang), _) => lang.str().map(|l| vec![l.to_ascii_lowercase()]),
                (None, Some(sites)) => {
                    sites.get("matrix").and_then(|m| m.get("languages")).map(|l| match l {
                        Value::Str(one) => vec![one.to_ascii_lowercase()],
                        other => {
                            other.items().iter().filter_map(Value::str).map(str::to_ascii_lowercase).collect()
                        }
                    })
                }
                (None, None) => None,
            };
            Some(ContentMount {
                source: mount.get("source")?.str()?.to_owned(),
                sub: sub.trim_matches('/').to_owned(),
                languages,
            })
        })
        .collect()
}

/// Whether the language `lang` matches a `sites.matrix.languages` pattern (`*`, `e*`, `en`).
/// A pattern with glob syntax Folio does not read (`{en,fr}`, `[a-z]`) is taken to match: the
/// mount's pages may then be served, and nothing is called broken for them.
fn glob(pattern: &str, lang: &str) -> bool {
    if pattern.contains(['{', '[', '!', '?']) {
        return true;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern.eq_ignore_ascii_case(lang);
    }
    let lang = lang.to_ascii_lowercase();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    let mut rest = match lang.strip_prefix(first) {
        Some(rest) => rest,
        None => return false,
    };
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// The mounts other than the pages folder: the default language's as mounted folders (served,
/// not compiled) or routes Folio cannot see (a source not in this checkout, a git submodule),
/// the other languages' as translations not read.
fn mount_others(
    project: &Project<'_>,
    mounts: &[ContentMount],
    primary: Option<&ContentMount>,
    default_language: &str,
    spec: &mut Spec,
) {
    for mount in mounts {
        if primary.is_some_and(|p| std::ptr::eq(p, mount)) {
            continue;
        }
        let Some(source) = project.at(&mount.source) else { continue };
        let ours = mount.languages.as_ref().is_none_or(|l| l.iter().any(|p| glob(p, default_language)));
        if !ours {
            if project.is_dir(&source) && source != spec.docs {
                let langs = mount.languages.as_deref().unwrap_or_default().join("`, `");
                spec.unread.push((source, format!("the `{langs}` translation, a module mount")));
            }
            continue;
        }
        let rules = &mut spec.rules;
        if project.is_dir(&source) {
            rules.mounts.push(Mount { route: mount.sub.clone(), dir: source, files: true });
        } else if project.is_file(&source) {
            // A file mounted as a page: served at its target's route.
            let route = mount.sub.rsplit_once('.').map_or(mount.sub.as_str(), |(stem, _)| stem);
            rules.extra_routes.push(format!("/{route}"));
            rules.mounts.push(Mount { route: mount.sub.clone(), dir: source, files: true });
        } else {
            let why = format!(
                "mounted from `{}` (`module.mounts` of `{}`), which is not in this checkout (a git submodule, or a \
                 folder a build step writes?)",
                mount.source, project.config
            );
            if mount.sub.is_empty() {
                rules.unverifiable.all_routes.get_or_insert(why);
            } else {
                rules.unverifiable.routes.push((format!("/{}", mount.sub), why));
            }
        }
    }
}

/// The destinations a Hugo link render hook compares the link with (`{{ if eq $u.String "g" }}`,
/// `eq .Destination "x"`): links the hook rewrites, which only Hugo can resolve. Read from the
/// template's actions: each `eq` whose operands are the destination and a string.
fn hook_links(root: &Path, site_dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    for hook in ["layouts/_markup/render-link.html", "layouts/_default/_markup/render-link.html"] {
        let rel = super::super::join(site_dir, hook);
        let Ok(text) = config::read_text(root, &rel) else { continue };
        for action in actions(&text) {
            let tokens = tokens(action);
            for (i, token) in tokens.iter().enumerate() {
                if *token != Token::Word("eq") {
                    continue;
                }
                let Some((a, next)) = operand(&tokens, i + 1) else { continue };
                let Some((b, _)) = operand(&tokens, next) else { continue };
                let literal = match (a, b) {
                    (Operand::Expr(w), Operand::Str(s)) | (Operand::Str(s), Operand::Expr(w))
                        if ["Destination", ".String", ".Path"].iter().any(|d| w.contains(d)) =>
                    {
                        s
                    }
                    _ => continue,
                };
                if !literal.is_empty() && !literal.contains([' ', '/', ':']) {
                    out.push(literal.to_owned());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Why a missed include shortcode is not checked, unless the site's `include` (and `readfile`)
/// shortcode finds its file with `GetPage`, the lookup Folio models (hugoDocs's: the page's
/// own path, then the site's). Hugo has no built-in include: a template of another kind (a
/// partial that searches `_includes` folders), or one only a theme holds, is the site's own.
fn include_reason(project: &Project<'_>) -> Option<String> {
    let mut reason = None;
    for name in ["include", "readfile"] {
        let found = ["layouts/_shortcodes", "layouts/shortcodes"].iter().find_map(|dir| {
            let rel = super::super::join(&project.dir, &format!("{dir}/{name}.html"));
            config::read_text(project.root, &rel).ok().map(|text| (rel, text))
        });
        let why = match found {
            Some((rel, text)) => {
                let uses_get_page = actions(&text)
                    .iter()
                    .any(|a| tokens(a).iter().any(|t| matches!(t, Token::Word(w) if w.ends_with("GetPage"))));
                (!uses_get_page).then(|| {
                    format!("the site's `{name}` shortcode (`{rel}`) finds the file its own way, which Folio does not run")
                })
            }
            None if name == "include" => {
                Some("the site's include shortcodes (`include`, `readfile`) are a theme's, which Folio does not read".to_owned())
            }
            None => None,
        };
        reason = reason.or(why);
    }
    reason
}

/// The pages `cascade` keeps from being rendered (`build: { render: never }` with a
/// `target.path` glob, Hugo's way to keep include fragments), as catalog paths, sorted; with
/// why their relative links are not checked.
fn fragments(project: &Project<'_>, cascade: Option<&Value>, docs: &str) -> Option<(Vec<String>, String)> {
    let entries: Vec<&Value> = match cascade? {
        Value::List(items) => items.iter().collect(),
        map @ Value::Map(_) => vec![map],
        _ => return None,
    };
    let mut globs = globset::GlobSetBuilder::new();
    let mut any = false;
    for entry in entries {
        let build = entry.get("build").or_else(|| entry.get("_build"));
        let render = build.and_then(|b| b.get("render"));
        let never = matches!(render, Some(Value::Bool(false)))
            || render.and_then(Value::str).is_some_and(|r| r == "never" || r == "false");
        let path = entry
            .get("target")
            .or_else(|| entry.get("_target"))
            .and_then(|t| t.get("path"))
            .and_then(Value::str);
        let (true, Some(path)) = (never, path) else { continue };
        let Ok(glob) = globset::GlobBuilder::new(path).literal_separator(true).case_insensitive(true).build()
        else {
            continue;
        };
        globs.add(glob);
        any = true;
    }
    if !any {
        return None;
    }
    let globs = globs.build().ok()?;
    let mut pages: Vec<String> = project
        .files_below(docs, 50_000)
        .into_iter()
        .filter(|file| file.ends_with(".md") || file.ends_with(".markdown"))
        .filter(|file| {
            let stem = file.rsplit_once('.').map_or(file.as_str(), |(stem, _)| stem);
            let page = stem.strip_suffix("/_index").or_else(|| stem.strip_suffix("/index")).unwrap_or(stem);
            let page = if matches!(page, "_index" | "index") { "" } else { page };
            globs.is_match(format!("/{page}"))
        })
        .map(|file| format!("docs/{file}"))
        .collect();
    pages.sort();
    (!pages.is_empty()).then(|| {
        (
            pages,
            format!(
                "a fragment `cascade` in `{}` keeps from being rendered (`build.render: never`): its relative links resolve from the page that includes it",
                project.config
            ),
        )
    })
}

/// The actions of a Go template (`{{ … }}`, with `{{-` and `-}}` trimming), without comments.
fn actions(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        let action = after[..end].trim_start_matches('-').trim_end_matches('-').trim();
        if !action.starts_with("/*") {
            out.push(action);
        }
        rest = &after[end + 2..];
    }
    out
}

/// A token of a template action.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Str(&'a str),
    Open,
    Close,
}

/// An argument of a template function: a string literal, or anything else as the words it is
/// made of (`(urls.Parse .Destination).Path` is `urls.Parse .Destination .Path`).
enum Operand<'a> {
    Str(&'a str),
    Expr(String),
}

/// The argument starting at `tokens[at]`, and the index after it.
fn operand<'a>(tokens: &[Token<'a>], at: usize) -> Option<(Operand<'a>, usize)> {
    match tokens.get(at)? {
        Token::Str(s) => Some((Operand::Str(s), at + 1)),
        Token::Word(w) => Some((Operand::Expr((*w).to_owned()), at + 1)),
        Token::Close => None,
        Token::Open => {
            let (mut depth, mut words, mut i) = (0usize, Vec::new(), at);
            loop {
                match tokens.get(i)? {
                    Token::Open => depth += 1,
                    Token::Close => depth -= 1,
                    Token::Word(w) => words.push(*w),
                    Token::Str(_) => {}
                }
                i += 1;
                if depth == 0 {
                    break;
                }
            }
            // A field of the parenthesised value: `(…).Path`.
            if let Some(Token::Word(field)) =
                tokens.get(i).filter(|t| matches!(t, Token::Word(w) if w.starts_with('.')))
            {
                words.push(field);
                i += 1;
            }
            Some((Operand::Expr(words.join(" ")), i))
        }
    }
}

/// The tokens of an action: words, string literals (`"…"`, `` `…` ``) and parentheses; pipes
/// and spaces split words.
fn tokens(action: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut rest = action;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '|');
        let Some(first) = rest.chars().next() else { break };
        match first {
            '"' | '`' => {
                let body = &rest[1..];
                let end = body.find(first).unwrap_or(body.len());
                out.push(Token::Str(&body[..end]));
                rest = body.get(end + 1..).unwrap_or("");
            }
            '(' | ')' => {
                out.push(if first == '(' { Token::Open } else { Token::Close });
                rest = &rest[1..];
            }
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '|' | '"' | '`'))
                    .unwrap_or(rest.len());
                out.push(Token::Word(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_render_hook_keeps_the_destinations_it_compares_with() {
        let dir = std::env::temp_dir().join(format!("folio-hook-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("site/layouts/_markup")).unwrap();
        std::fs::write(
            dir.join("site/layouts/_markup/render-link.html"),
            "{{- if eq $u.String \"g\" }}glossary{{ end }}{{ if eq $errorLevel \"warning\" }}{{ end }}\n\
             {{ if eq .Destination \"api\" }}{{ end }}{{/* eq .Destination \"comment\" */}} eq .Destination \"text\"\n\
             {{- if (eq (urls.Parse .Destination).Path `ref`) -}}{{ end }}",
        )
        .unwrap();
        let root = dir.canonicalize().unwrap();
        assert_eq!(hook_links(&root, "site"), ["api", "g", "ref"]);
        assert!(hook_links(&root, "").is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
