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
use crate::compile::layout::SiteVersion;
use crate::compile::layout::config::Value;
use crate::compile::layout::site::Mount;

/// The name Docusaurus gives the version in the docs folder (`CURRENT_VERSION_NAME` of
/// `plugin-content-docs/src/constants.ts`).
const CURRENT: &str = "current";

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

    /// The string option `key` of the version `name` (`versions: { current: { label: '3.x' } }`).
    fn at_version(&self, name: &str, key: &str) -> Option<&'v str> {
        self.get("versions")?.get(name)?.get(key)?.str()
    }
}

/// The names `versions.json` lists (`<id>_versions.json` for a docs instance other than the
/// default), newest first; empty when there is none or it lists none.
fn archived_versions(project: &Project<'_>, prefix: &str) -> Vec<String> {
    let file = project.at(&format!("{prefix}versions.json")).unwrap_or_default();
    if !project.is_file(&file) {
        return Vec::new();
    }
    let Ok(file) = project.read(&file) else { return Vec::new() };
    file.value.items().iter().filter_map(Value::str).map(str::to_owned).collect()
}

/// The versions the site builds, newest first: the current docs (unless
/// `includeCurrentVersion: false`), then the archived ones, kept to `onlyIncludeVersions` when
/// it is set; each labelled as the config says (`versions.<name>.label`), else `Next` for the
/// current docs and its name for the others.
fn site_versions(
    docs: &Instance<'_>,
    archived: &[String],
    current_dir: &str,
    versioned_dir: &str,
) -> Vec<SiteVersion> {
    let include_current = docs.get("includeCurrentVersion").and_then(Value::bool).unwrap_or(true);
    let only: Option<Vec<&str>> =
        docs.get("onlyIncludeVersions").map(|v| v.items().iter().filter_map(Value::str).collect());
    let names = include_current.then_some(CURRENT).into_iter().chain(archived.iter().map(String::as_str));
    names
        .filter(|name| only.as_ref().is_none_or(|only| only.contains(name)))
        .map(|name| SiteVersion {
            name: name.to_owned(),
            label: docs
                .at_version(name, "label")
                .unwrap_or(if name == CURRENT { "Next" } else { name })
                .to_owned(),
            dir: if name == CURRENT {
                current_dir.to_owned()
            } else {
                super::super::join(versioned_dir, &format!("version-{name}"))
            },
        })
        .collect()
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
        let mut route_base = match docs.string("routeBasePath", "docs") {
            Ok(route) => route.trim_matches('/').to_owned(),
            Err(v) => {
                unknown.push(project.unknown("routeBasePath", v));
                "docs".to_owned()
            }
        };
        let rules = &mut spec.rules;
        rules.directory_urls = true;
        rules.routes_from_root = true;
        // Docusaurus reads front matter with gray-matter (`@docusaurus/utils`'s
        // `parseFrontMatter`): a block never closed runs to the end of the file.
        rules.open_frontmatter = true;
        // `@site/` is the site folder in an image or link of a page, as in an import
        // (`![x](@site/static/img/x.png)`).
        rules
            .path_aliases
            .push(("@site/".to_owned(), format!("{}/", project.dir).trim_start_matches('/').to_owned()));
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
        // Versions (<https://docusaurus.io/docs/versioning>): `versions.json` lists the archived
        // versions newest first, each in `versioned_docs/version-<name>/` with its sidebar in
        // `versioned_sidebars/version-<name>-sidebars.json`; the docs folder is the version
        // `current`. `lastVersion` (the newest archived one by default) is served at the docs'
        // route, every other at `<route>/<path>` (`next` for the current docs).
        let id = docs.id();
        let prefix = if id == "default" { String::new() } else { format!("{id}_") };
        let archived = archived_versions(project, &prefix);
        let versioned_dir = project.at(&format!("{prefix}versioned_docs")).unwrap_or_default();
        let selected =
            project.version.as_deref().filter(|v| *v != CURRENT && archived.iter().any(|a| a == v));
        let mut archived_sidebar = None;
        if !archived.is_empty() {
            let versions = site_versions(docs, &archived, &spec.docs, &versioned_dir);
            let last = docs.get("lastVersion").and_then(Value::str).unwrap_or(&archived[0]).to_owned();
            let path_of = |name: &str| -> String {
                let set = docs.at_version(name, "path");
                match set {
                    Some(path) => path.trim_matches('/').to_owned(),
                    None if name == last => String::new(),
                    None if name == CURRENT => "next".to_owned(),
                    None => name.to_owned(),
                }
            };
            match selected {
                // The current docs, as the site builds them: the newest archived version is
                // served at the docs' own routes.
                None => {
                    rules.route_aliases.push((under("next"), route_base.clone()));
                    for version in &archived[1..] {
                        rules.unverifiable.routes.push((
                            under(version),
                            format!("archived version `{version}` of the docs (`{prefix}versioned_docs/`), which Folio does not read"),
                        ));
                    }
                    rules.mounts.push(Mount {
                        route: String::new(),
                        dir: super::super::join(&versioned_dir, &format!("version-{}", archived[0])),
                        files: false,
                    });
                    spec.unread.push((
                        versioned_dir.clone(),
                        "archived versions of the docs, `versions.json`".to_owned(),
                    ));
                }
                // An archived version, read as a site of its own: its pages are served at its
                // route, the other versions' routes are theirs (not read, so not checked).
                Some(name) => {
                    let path = path_of(name);
                    for other in versions.iter().filter(|v| v.name != name) {
                        spec.unread
                            .push((other.dir.clone(), format!("version `{}` of the docs", other.name)));
                        let other_path = path_of(&other.name);
                        if path.is_empty() && !other_path.is_empty() {
                            rules.unverifiable.routes.push((
                                under(&other_path),
                                format!(
                                    "version `{}` of the docs, which this version's catalog does not hold",
                                    other.name
                                ),
                            ));
                        }
                    }
                    spec.docs = super::super::join(&versioned_dir, &format!("version-{name}"));
                    if !path.is_empty() {
                        route_base =
                            if route_base.is_empty() { path } else { format!("{route_base}/{path}") };
                        rules.route_base = route_base.clone();
                    }
                    archived_sidebar =
                        project.at(&format!("{prefix}versioned_sidebars/version-{name}-sidebars.json"));
                }
            }
            spec.versions = versions;
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
                match selected {
                    Some(name) => format!(
                        "outside the routes of version `{name}` (`/{route_base}/`): another version of the docs, a page of another plugin or of the host, which this catalog does not hold"
                    ),
                    None => format!(
                        "outside the docs' routes (`/{route_base}/`): a page of another plugin or of the host, which Folio does not read"
                    ),
                },
            ));
        }
        if let Some(first) = unknown.into_iter().next() {
            rules.unverifiable.all_routes = Some(first);
        }
        // The sidebar: the pages the navigation lists.
        let sidebar = match docs.get("sidebarPath") {
            Some(Value::Bool(false)) => None,
            // An archived version's own sidebar, when it has one.
            _ if selected.is_some() => archived_sidebar.filter(|p| project.is_file(p)).map(|p| (p, true)),
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
