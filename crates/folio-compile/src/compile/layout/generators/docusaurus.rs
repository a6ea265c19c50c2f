//! Docusaurus 3, from its config reference (<https://docusaurus.io/docs/api/docusaurus-config>),
//! the content plugins' references (`plugin-content-docs`, `-blog`, `-pages`,
//! `plugin-client-redirects` under <https://docusaurus.io/docs/api/plugins/>), the versioning and
//! i18n guides, and `packages/docusaurus-plugin-content-docs/src/options.ts`: the docs plugin's
//! `path` (`docs/`, relative to the site folder) is served at `baseUrl` + `routeBasePath`
//! (`docs`); `versions.json` moves the current docs to `next/` and serves archived versions from
//! `versioned_docs/`; the blog (`blog/` at `/blog`) and other docs instances are sites Folio does
//! not read; `src/pages/` files are routes of their own; translations live in `i18n/<locale>/`
//! and are served at `/<locale>/`; `staticDirectories` (`static/`) are served at `/`; the
//! sidebar file lists the navigation.

use super::{Preset, Project, Spec, file_route, url_path};
use crate::compile::layout::config::Value;
use crate::compile::layout::site::Mount;

pub(super) struct Docusaurus;

/// A content plugin instance: its options (`None` for the defaults).
struct Instance<'v> {
    options: Option<&'v Value>,
}

impl<'v> Instance<'v> {
    fn get(&self, key: &str) -> Option<&'v Value> {
        self.options.and_then(|o| o.get(key))
    }

    fn string(&self, key: &str, default: &'static str) -> Result<String, &'v Value> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(default.to_owned()),
            Some(Value::Str(s)) => Ok(s.clone()),
            Some(other) => Err(other),
        }
    }

    fn id(&self) -> String {
        self.get("id").and_then(Value::str).unwrap_or("default").to_owned()
    }
}

/// The instances of the content plugin `kind` (`docs`, `blog`, `pages`): from each preset's
/// options (`presets: [['classic', { docs: {…} }]]`, on unless `false`) and from `plugins`
/// (`['@docusaurus/plugin-content-docs', {…}]`).
fn instances<'v>(config: &'v Value, kind: &str) -> Vec<Instance<'v>> {
    let mut out = Vec::new();
    for preset in config.get("presets").map_or(&[][..], Value::items) {
        let (name, options) = plugin_entry(preset);
        if name.is_some_and(|n| n.contains("classic") || n.contains("preset")) {
            match options.and_then(|o| o.get(kind)) {
                Some(Value::Bool(false)) => {}
                Some(o @ Value::Map(_)) => out.push(Instance { options: Some(o) }),
                _ => out.push(Instance { options: None }),
            }
        }
    }
    for plugin in config.get("plugins").map_or(&[][..], Value::items) {
        let (name, options) = plugin_entry(plugin);
        if name.is_some_and(|n| n.contains(&format!("content-{kind}"))) {
            out.push(Instance { options });
        }
    }
    out
}

/// A preset or plugin entry's name and options: `'name'`, `['name', {…}]`,
/// `[require.resolve('name'), {…}]`.
fn plugin_entry(entry: &Value) -> (Option<&str>, Option<&Value>) {
    match entry {
        Value::Str(name) => (Some(name), None),
        Value::List(items) => {
            let name = items.first().and_then(|n| match n {
                Value::Str(s) => Some(s.as_str()),
                Value::Call(_, args) => args.first().and_then(Value::str),
                _ => None,
            });
            (name, items.get(1))
        }
        _ => (None, None),
    }
}

impl Preset for Docusaurus {
    fn id(&self) -> &'static str {
        "docusaurus"
    }

    fn name(&self) -> &'static str {
        "Docusaurus"
    }

    fn config_files(&self) -> &'static [&'static str] {
        &[
            "docusaurus.config.ts",
            "docusaurus.config.mts",
            "docusaurus.config.cts",
            "docusaurus.config.js",
            "docusaurus.config.mjs",
            "docusaurus.config.cjs",
        ]
    }

    fn read(&self, project: &Project<'_>) -> Spec {
        let config = project.value();
        let mut spec = Spec::default();
        let mut unknown = Vec::new();
        let docs_instances = instances(config, "docs");
        // The default instance is the one without an `id` (or `id: 'default'`).
        let main = docs_instances.iter().position(|i| i.id() == "default").unwrap_or(0);
        let docs = docs_instances.get(main).unwrap_or(&Instance { options: None });
        let path = match docs.string("path", "docs") {
            Ok(path) => path,
            Err(v) => {
                unknown.push(project.unknown("path", v));
                "docs".to_owned()
            }
        };
        spec.docs = project
            .at(&path)
            .filter(|d| project.is_dir(d))
            .unwrap_or_else(|| project.at("docs").unwrap_or_default());
        let route_base = match docs.string("routeBasePath", "docs") {
            Ok(route) => route.trim_matches('/').to_owned(),
            Err(v) => {
                unknown.push(project.unknown("routeBasePath", v));
                "docs".to_owned()
            }
        };
        let rules = &mut spec.rules;
        rules.directory_urls = true;
        rules.routes_from_root = true;
        rules.route_base = route_base.clone();
        rules.base = config.get("baseUrl").and_then(url_path).unwrap_or_default();
        if let Some(v) = config.get("baseUrl").filter(|v| v.unknown().is_some()) {
            unknown.push(project.unknown("baseUrl", v));
        }
        let statics: Vec<String> = match config.get("staticDirectories") {
            Some(Value::List(items)) => items.iter().filter_map(Value::str).map(str::to_owned).collect(),
            _ => vec!["static".to_owned()],
        };
        spec.assets = statics.iter().filter_map(|s| project.at(s)).filter(|s| project.is_dir(s)).collect();

        let under = |route: &str| {
            if route_base.is_empty() { format!("/{route}") } else { format!("/{route_base}/{route}") }
        };
        // Versions: the newest is served at the docs' route, the current docs at `next/`.
        let id = docs.id();
        let prefix = if id == "default" { String::new() } else { format!("{id}_") };
        let versions_file = project.at(&format!("{prefix}versions.json")).unwrap_or_default();
        if project.is_file(&versions_file)
            && let Ok(file) = project.read(&versions_file)
        {
            let versions: Vec<&str> = file.value.items().iter().filter_map(Value::str).collect();
            if !versions.is_empty() {
                rules.route_aliases.push((under("next"), route_base.clone()));
                for version in &versions[1..] {
                    rules.unverifiable.routes.push((
                        under(version),
                        format!("archived version `{version}` of the docs (`{prefix}versioned_docs/`), which Folio does not read"),
                    ));
                }
                let dir = project.at(&format!("{prefix}versioned_docs")).unwrap_or_default();
                rules.mounts.push(Mount {
                    route: String::new(),
                    dir: super::super::join(&dir, &format!("version-{}", versions[0])),
                    files: false,
                });
                spec.unread.push((dir, "archived versions of the docs, `versions.json`".to_owned()));
            }
        }
        // Other docs instances and the blog: sites of their own on the same host.
        for (_, other) in docs_instances.iter().enumerate().filter(|(i, _)| *i != main) {
            let (Ok(path), Ok(route)) = (other.string("path", "docs"), other.string("routeBasePath", "docs"))
            else {
                unknown.push(format!(
                    "a docs plugin instance of `{}` has a `path` or `routeBasePath` Folio cannot read",
                    project.config
                ));
                continue;
            };
            let id = other.id();
            rules.unverifiable.routes.push((
                format!("/{}", route.trim_matches('/')),
                format!("pages of the docs plugin instance `{id}` (`{path}/`), which Folio does not read"),
            ));
            if let Some(dir) = project.at(&path) {
                spec.unread.push((dir, format!("the docs plugin instance `{id}`")));
            }
        }
        for blog in instances(config, "blog") {
            let path = blog.string("path", "blog").unwrap_or_else(|_| "blog".to_owned());
            let route = blog.string("routeBasePath", "blog").unwrap_or_else(|_| "blog".to_owned());
            rules.unverifiable.routes.push((
                format!("/{}", route.trim_matches('/')),
                format!("pages of the blog (`{path}/`), which Folio does not read"),
            ));
            if let Some(dir) = project.at(&path) {
                spec.unread.push((dir, "the blog".to_owned()));
            }
        }
        // Pages written as files of `src/pages/`: routes of their own.
        for pages in instances(config, "pages") {
            let path = pages.string("path", "src/pages").unwrap_or_else(|_| "src/pages".to_owned());
            let route = pages.string("routeBasePath", "/").unwrap_or_else(|_| "/".to_owned());
            let Some(dir) = project.at(&path) else { continue };
            for file in project.files_below(&dir, 5000) {
                let is_page = [".js", ".jsx", ".ts", ".tsx", ".md", ".mdx"].iter().any(|e| file.ends_with(e));
                let partial = file.split('/').any(|s| s.starts_with('_')) || file.contains("__tests__");
                if is_page && !partial {
                    let page = file_route(&file);
                    let route = route.trim_matches('/');
                    rules.extra_routes.push(if route.is_empty() { page } else { format!("/{route}{page}") });
                }
            }
        }
        // Translations: `i18n/<locale>/`, served at `/<locale>/`.
        let default_locale = config.at(&["i18n", "defaultLocale"]).and_then(Value::str).unwrap_or("en");
        for locale in
            config.at(&["i18n", "locales"]).map_or(&[][..], Value::items).iter().filter_map(Value::str)
        {
            if locale != default_locale {
                rules.unverifiable.routes.push((
                    format!("/{locale}"),
                    format!("the `{locale}` translation (`i18n/{locale}/`), which Folio does not read"),
                ));
            }
        }
        if let Some(dir) = project.at("i18n").filter(|d| project.is_dir(d)) {
            spec.unread.push((dir, "translations, `i18n.locales`".to_owned()));
        }
        // Client redirects.
        for plugin in config.get("plugins").map_or(&[][..], Value::items) {
            let (name, options) = plugin_entry(plugin);
            if !name.is_some_and(|n| n.contains("client-redirects")) {
                continue;
            }
            for redirect in options.and_then(|o| o.get("redirects")).map_or(&[][..], Value::items) {
                match redirect.get("from") {
                    Some(Value::Str(from)) => rules.extra_routes.push(from.clone()),
                    Some(Value::List(froms)) => {
                        rules.extra_routes.extend(froms.iter().filter_map(Value::str).map(str::to_owned))
                    }
                    _ => {}
                }
            }
            if options.and_then(|o| o.get("createRedirects")).is_some() {
                unknown.push(format!(
                    "`createRedirects` in `{}` makes redirects only running it tells",
                    project.config
                ));
            }
        }
        // The routes outside the docs are other plugins' (and the host's).
        if !route_base.is_empty() {
            rules.unverifiable.owned = Some((
                vec![format!("/{route_base}")],
                format!(
                    "outside the docs' routes (`/{route_base}/`): a page of another plugin or of the host, which Folio does not read"
                ),
            ));
        }
        if let Some(first) = unknown.into_iter().next() {
            rules.unverifiable.all_routes = Some(first);
        }
        // The sidebar: the pages the navigation lists.
        let sidebar = match docs.get("sidebarPath") {
            Some(Value::Bool(false)) => None,
            Some(Value::Str(path)) => {
                // `require.resolve('./sidebars.js')` is content-relative already; a plain string is the site folder's.
                let rel = if project.is_file(path) { Some(path.clone()) } else { project.at(path) };
                rel.map(|r| (r, true))
            }
            Some(_) => Some((String::new(), false)),
            None => ["sidebars.js", "sidebars.ts", "sidebars.json", "sidebars.mjs", "sidebars.cjs"]
                .iter()
                .filter_map(|n| project.at(n))
                .find(|p| project.is_file(p))
                .map(|p| (p, true)),
        };
        match sidebar {
            Some((file, true)) => match project.read(&file) {
                Ok(file) => sidebar_links(&file.value, &mut rules.nav_links, &mut rules.nav_dirs),
                Err(_) => rules.nav_dirs = vec![String::new()],
            },
            // No sidebar file: Docusaurus makes one from the folders.
            _ => rules.nav_dirs = vec![String::new()],
        }
        spec
    }
}

/// The pages a sidebar file lists: doc ids (bare strings, `id:`), links (`href:` on the site),
/// and folders (`{ type: 'autogenerated', dirName }`); a sidebar Folio cannot read whole lists
/// everything.
fn sidebar_links(value: &Value, links: &mut Vec<String>, dirs: &mut Vec<String>) {
    let mut unknown = false;
    fn walk(value: &Value, links: &mut Vec<String>, dirs: &mut Vec<String>, unknown: &mut bool) {
        match value {
            Value::Str(id) => links.push(id.clone()),
            Value::List(items) => items.iter().for_each(|i| walk(i, links, dirs, unknown)),
            Value::Map(map) => {
                if value.get("type").and_then(Value::str) == Some("autogenerated") {
                    let dir = value.get("dirName").and_then(Value::str).unwrap_or(".");
                    dirs.push(if dir == "." { String::new() } else { dir.trim_matches('/').to_owned() });
                }
                for (key, v) in &map.entries {
                    match (key.as_str(), v) {
                        ("id", Value::Str(id)) => links.push(id.clone()),
                        ("href", Value::Str(href)) if href.starts_with('/') => links.push(href.clone()),
                        ("items" | "link", v) => walk(v, links, dirs, unknown),
                        (_, v @ (Value::List(_) | Value::Map(_)))
                            if !matches!(key.as_str(), "customProps") =>
                        {
                            walk(v, links, dirs, unknown)
                        }
                        (_, v) if v.unknown().is_some() => *unknown = true,
                        _ => {}
                    }
                }
                *unknown |= map.partial.is_some();
            }
            other => *unknown |= other.unknown().is_some(),
        }
    }
    walk(value, links, dirs, &mut unknown);
    if unknown {
        dirs.push(String::new());
    }
}
