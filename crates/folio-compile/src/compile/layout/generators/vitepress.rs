//! VitePress, from its site-config reference (<https://vitepress.dev/reference/site-config>),
//! routing guide (<https://vitepress.dev/guide/routing>), i18n guide and `src/node/config.ts`:
//! the project is the folder holding `.vitepress/`, whose `config.{js,ts,mjs,mts}` (or
//! `config/index.*`) is read; pages are in `srcDir` (the project folder by default) and served
//! at `base`; `srcDir/public/` is served at `/`; `locales` names the locale folders (`root` is
//! the site root); `rewrites` moves pages to other routes; the sidebar and nav of
//! `themeConfig` (and of each locale) are the navigation, an item's relative `link` being below
//! its group's `base`.

use super::{Preset, Project, Spec, url_path};
use crate::compile::layout::config::Value;
use crate::compile::layout::excluded::Excluded;
use crate::compile::markdown::HeadingIds;

pub(super) struct VitePress;

impl Preset for VitePress {
    fn id(&self) -> &'static str {
        "vitepress"
    }

    fn name(&self) -> &'static str {
        "VitePress"
    }

    fn config_files(&self) -> &'static [&'static str] {
        &[
            ".vitepress/config/index.js",
            ".vitepress/config.js",
            ".vitepress/config/index.ts",
            ".vitepress/config.ts",
            ".vitepress/config/index.mjs",
            ".vitepress/config.mjs",
            ".vitepress/config/index.mts",
            ".vitepress/config.mts",
        ]
    }

    fn read(&self, project: &Project<'_>) -> Spec {
        let value = project.value().unwrapped();
        let src_dir = value.get("srcDir").and_then(Value::str).unwrap_or(".");
        let docs = project.at(src_dir).filter(|d| project.is_dir(d)).unwrap_or_else(|| project.dir.clone());
        let public = super::super::join(&docs, "public");
        let mut spec = Spec {
            assets: if project.is_dir(&public) { vec![public] } else { Vec::new() },
            docs,
            ..Spec::default()
        };
        let rules = &mut spec.rules;
        rules.heading_ids = HeadingIds::VitePress;
        // VitePress reads front matter with gray-matter: a block never closed runs to the end.
        rules.open_frontmatter = true;
        // A `srcDir` only running the config tells (`fileURLToPath(new URL('../..', …))`):
        // the pages are read from the project folder, but which file a route is, is unknown.
        if let Some(src_dir) = value.get("srcDir").filter(|v| v.str().is_none()) {
            rules.unverifiable.all_routes = Some(project.unknown("srcDir", src_dir));
        }
        // `srcExclude`: globs below `srcDir` (tinyglobby's: a `*` stops at `/`).
        for glob in value.get("srcExclude").map_or(&[][..], Value::items).iter().filter_map(Value::str) {
            rules.excluded.push(Excluded {
                glob: glob.trim_start_matches("./").to_owned(),
                separator: true,
                why: format!("`srcExclude`'s `{glob}` in `{}`", project.config),
            });
        }
        rules.base = value.get("base").and_then(url_path).unwrap_or_default();
        if let Some(base) = value.get("base").filter(|b| b.unknown().is_some()) {
            rules.unverifiable.all_routes = Some(project.unknown("base", base));
        }
        // `rewrites` moves pages: a folder moved whole (`'en/:rest*': ':rest*'`,
        // `'packages/:p*': 'pkg/:p*'`) is a route alias; any other pattern or a function makes
        // routes only VitePress works out.
        match value.get("rewrites") {
            None | Some(Value::Null) => {}
            Some(Value::Map(map)) if map.partial.is_none() => {
                for (from, to) in &map.entries {
                    match (folder_move(from), to.str().and_then(folder_move)) {
                        (Some(from), Some(to)) => {
                            if !to.is_empty() {
                                rules.route_aliases.push((format!("/{to}"), from.to_owned()));
                            } else if !from.is_empty() {
                                rules.route_aliases.push(("/".to_owned(), from.to_owned()));
                            }
                        }
                        _ => {
                            rules.unverifiable.all_routes.get_or_insert_with(|| {
                                format!("the rewrite `{from}` in `{}` moves pages to routes only VitePress works out", project.config)
                            });
                        }
                    }
                }
            }
            Some(_) => {
                rules.unverifiable.all_routes =
                    Some(format!("`rewrites` in `{}` moves pages to other routes", project.config));
            }
        }
        let locales: Vec<&(String, Value)> = value
            .get("locales")
            .map_or(&[][..], Value::entries)
            .iter()
            .filter(|(k, _)| k != "root")
            .collect();
        if !locales.is_empty() {
            rules.locales = Some(locales.iter().map(|(k, _)| k.trim_matches('/').to_owned()).collect());
        }
        let mut nav = Nav::default();
        let theme_configs = std::iter::once(value.get("themeConfig"))
            .chain(
                value
                    .get("locales")
                    .map_or(&[][..], Value::entries)
                    .iter()
                    .map(|(_, l)| l.get("themeConfig")),
            )
            .flatten();
        // VitePress 2 also loads every `config.*` under the pages folder as the config of its
        // folder (`gatherAdditionalConfig`): a locale's sidebar in `docs/en/config.ts`.
        let folder_configs: Vec<Value> = project
            .files_below(&spec.docs, 2000)
            .into_iter()
            .filter(|f| {
                let name = f.rsplit('/').next().unwrap_or(f);
                ["config.js", "config.ts", "config.mjs", "config.mts"].contains(&name)
            })
            .filter_map(|f| project.read(&super::super::join(&spec.docs, &f)).ok())
            .map(|c| c.value)
            .collect();
        let theme_configs =
            theme_configs.chain(folder_configs.iter().filter_map(|v| v.unwrapped().get("themeConfig")));
        for theme in theme_configs {
            for key in ["sidebar", "nav"] {
                if let Some(items) = theme.get(key) {
                    nav.items(items, "");
                }
            }
        }
        // A navigation Folio cannot read whole may list any page.
        if nav.unknown.is_some() {
            rules.nav_dirs = vec![String::new()];
        }
        rules.nav_links = nav.links;
        if value.get("themeConfig").is_none() && value.unknown().is_some() {
            rules.nav_dirs = vec![String::new()];
        }
        spec
    }
}

/// The folder a rewrite pattern moves whole: `en/:rest*` → `en`, `:rest*` → ``; `None` for
/// any other pattern.
fn folder_move(pattern: &str) -> Option<&str> {
    let (folder, param) = match pattern.rsplit_once('/') {
        Some((folder, param)) => (folder, param),
        None => ("", pattern),
    };
    let whole = param.starts_with(':')
        && param.ends_with('*')
        && param[1..param.len() - 1].chars().all(|c| c.is_alphanumeric() || c == '_');
    (whole && !folder.contains([':', '*', '(', '['])).then_some(folder)
}

/// The links of a sidebar or nav: items (`{ text, link, items, base }`), lists of them, or a
/// sidebar per path (`{ '/guide/': [...] }`).
#[derive(Default)]
pub(super) struct Nav {
    pub(super) links: Vec<String>,
    /// What of the navigation could not be read.
    pub(super) unknown: Option<String>,
}

impl Nav {
    pub(super) fn items(&mut self, value: &Value, base: &str) {
        match value {
            Value::List(items) => items.iter().for_each(|item| self.items(item, base)),
            Value::Map(map) => {
                let is_item = ["text", "link", "items", "base"].iter().any(|k| value.get(k).is_some());
                if !is_item {
                    // A sidebar per path prefix.
                    map.entries.iter().for_each(|(_, v)| self.items(v, base));
                    return;
                }
                let base = value.get("base").and_then(Value::str).unwrap_or(base);
                if let Some(link) = value.get("link").and_then(Value::str)
                    && !link.contains("://")
                    && !link.starts_with('#')
                {
                    self.links.push(if link.starts_with('/') {
                        link.to_owned()
                    } else {
                        format!("{base}{link}")
                    });
                }
                if let Some(items) = value.get("items") {
                    self.items(items, base);
                }
                if let Some(why) = map.partial.as_ref() {
                    self.unknown.get_or_insert_with(|| why.clone());
                }
            }
            Value::Str(link) if link.starts_with('/') => self.links.push(link.clone()),
            other => {
                if let Some(why) = other.unknown() {
                    self.unknown.get_or_insert_with(|| why.to_owned());
                }
            }
        }
    }
}
