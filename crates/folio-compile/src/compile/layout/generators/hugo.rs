//! Hugo, from its configuration reference (<https://gohugo.io/configuration/introduction/>,
//! `…/all/`, `…/module/`, `…/languages/`, `…/permalinks/`), the URL management guide
//! (<https://gohugo.io/content-management/urls/>) and `config/allconfig/load.go`: the config is
//! the first of `hugo.{toml,yaml,yml,json}` and `config.*`, with `config/_default/` (a file per
//! top-level key: `languages.toml`, `module.yaml`, …) merged over it; pages are the source of
//! the first module mount on `content` (or `contentDir`, `content/`), the default language's
//! `contentDir` when languages have their own; other languages are served at `/<lang>/`;
//! `baseURL`'s path is where the site lives; `staticDir` (`static/`) is served at `/`;
//! `permalinks` move a section's pages; taxonomies (`tags`, `categories`) are lists Hugo makes.
//! A link render hook under `layouts/` that compares a destination with a fixed string
//! rewrites that destination (hugoDocs's glossary links).

use std::path::Path;

use super::{Preset, Project, Spec, url_path};
use crate::compile::layout::config::{self, Map, Value};

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
        let mounted = key("module").and_then(|m| m.get("mounts")).and_then(|mounts| {
            mounts.items().iter().find_map(|mount| {
                let target = mount.get("target")?.str()?.trim_matches('/');
                let lang = mount.get("lang").or_else(|| mount.get("sites")).and_then(Value::str);
                (target == "content" && lang.is_none_or(|l| l == default_language))
                    .then(|| mount.get("source")?.str().map(str::to_owned))?
            })
        });
        let content = mounted
            .or_else(|| language_dir(&default_language).map(str::to_owned))
            .or_else(|| key("contentDir").and_then(Value::str).map(str::to_owned))
            .unwrap_or_else(|| "content".to_owned());
        let mut spec = Spec { docs: project.at(&content).unwrap_or_default(), ..Spec::default() };
        let statics: Vec<String> = match key("staticDir") {
            Some(Value::Str(dir)) => vec![dir.clone()],
            Some(Value::List(dirs)) => dirs.iter().filter_map(Value::str).map(str::to_owned).collect(),
            _ => vec!["static".to_owned()],
        };
        spec.assets = statics.iter().filter_map(|s| project.at(s)).filter(|s| project.is_dir(s)).collect();
        let rules = &mut spec.rules;
        rules.case_insensitive_routes = true;
        rules.routes_from_root = true;
        rules.directory_urls = true;
        rules.base = key("baseURL").and_then(url_path).unwrap_or_default();
        rules.extra_routes = OUTPUTS.iter().map(|r| (*r).to_owned()).collect();
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
        rules.hook_links = hook_links(project.root, &project.dir);
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

/// The destinations a Hugo link render hook compares the link with (`{{ if eq $u.String "g" }}`,
/// `eq .Destination "x"`): links the hook rewrites, which only Hugo can resolve. Read from the
/// template's `eq` calls on the destination.
fn hook_links(root: &Path, site_dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    for hook in ["layouts/_markup/render-link.html", "layouts/_default/_markup/render-link.html"] {
        let rel = super::super::join(site_dir, hook);
        let Ok(text) = config::read_text(root, &rel) else { continue };
        for (at, _) in text.match_indices("eq ") {
            let rest = &text[at + 3..];
            let Some((subject, tail)) = rest.split_once(' ') else { continue };
            if !["Destination", ".String", ".Path"].iter().any(|d| subject.contains(d)) {
                continue;
            }
            let Some(value) = tail.trim_start().strip_prefix('"').and_then(|v| v.split('"').next()) else {
                continue;
            };
            if !value.is_empty() && !value.contains([' ', '/', ':']) {
                out.push(value.to_owned());
            }
        }
    }
    out.sort();
    out.dedup();
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
             {{ if eq .Destination \"api\" }}{{ end }}",
        )
        .unwrap();
        let root = dir.canonicalize().unwrap();
        assert_eq!(hook_links(&root, "site"), ["api", "g"]);
        assert!(hook_links(&root, "").is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
