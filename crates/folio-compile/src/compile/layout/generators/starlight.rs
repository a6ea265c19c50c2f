//! Astro Starlight, from its configuration reference
//! (<https://starlight.astro.build/reference/configuration/>), pages and i18n guides, Astro's
//! configuration reference (<https://docs.astro.build/en/reference/configuration-reference/>)
//! and `packages/astro/src/content/utils.ts`: an `astro.config.*` whose `integrations` hold
//! `starlight({…})`; pages are `<srcDir>/content/docs/` (`src/`), each route the file's path
//! with every segment slugified (github-slugger: `Guides/1.0 Notes.md` is `/guides/10-notes/`);
//! the site lives at `base`; `public/` is served at `/`; `locales` names the locale folders
//! (`root` is the site root); `redirects` answers old routes; `src/pages/` files are routes of
//! their own (a `[param]` in one makes routes only running it tells); the sidebar's `link`,
//! `slug` and `autogenerate.directory` are the navigation.

use super::{Preset, Project, Spec, file_route, url_path};
use crate::compile::layout::config::Value;

pub(super) struct Starlight;

/// Starlight plugins that add pages of their own, with the route they add them at by default.
const PAGE_PLUGINS: &[(&str, &str, &str)] = &[
    ("starlightBlog", "blog", "prefix"),
    ("starlightTypeDoc", "api", "output"),
    ("starlightOpenAPI", "api", "base"),
    ("starlightChangelogs", "changelog", "base"),
];

impl Preset for Starlight {
    fn id(&self) -> &'static str {
        "starlight"
    }

    fn name(&self) -> &'static str {
        "Starlight"
    }

    fn config_files(&self) -> &'static [&'static str] {
        &[
            "astro.config.mjs",
            "astro.config.js",
            "astro.config.ts",
            "astro.config.mts",
            "astro.config.cjs",
            "astro.config.cts",
        ]
    }

    /// An Astro site is Starlight's when its config uses the integration, or (a config Folio
    /// cannot read) when `src/content/docs/` exists.
    fn accepts(&self, root: &std::path::Path, dir: &str, config: &str) -> bool {
        let project = Project::open(root, dir.to_owned(), config.to_owned());
        if starlight_options(project.value()).is_some() {
            return true;
        }
        let src = project.value().unwrapped().get("srcDir").and_then(Value::str).unwrap_or("src");
        project.at(src).is_some_and(|s| project.is_dir(&super::super::join(&s, "content/docs")))
    }

    fn read(&self, project: &Project<'_>) -> Spec {
        let config = project.value().unwrapped();
        let src = config.get("srcDir").and_then(Value::str).unwrap_or("src");
        let src_dir = project.at(src).unwrap_or_default();
        let public =
            project.at(config.get("publicDir").and_then(Value::str).unwrap_or("public")).unwrap_or_default();
        let mut spec = Spec {
            docs: super::super::join(&src_dir, "content/docs"),
            assets: if project.is_dir(&public) { vec![public] } else { Vec::new() },
            ..Spec::default()
        };
        let rules = &mut spec.rules;
        rules.directory_urls = true;
        rules.slugged_routes = true;
        rules.base = config.get("base").and_then(url_path).unwrap_or_default();
        let options = starlight_options(project.value());
        if let Some(options) = options {
            let locales: Vec<String> = options
                .get("locales")
                .map_or(&[][..], Value::entries)
                .iter()
                .filter(|(k, _)| k != "root")
                .map(|(k, _)| k.clone())
                .collect();
            if !locales.is_empty() {
                rules.locales = Some(locales);
            }
            let mut unknown = false;
            if let Some(sidebar) = options.get("sidebar") {
                sidebar_links(sidebar, &mut rules.nav_links, &mut rules.nav_dirs, &mut unknown);
            } else {
                // No sidebar: Starlight lists every page.
                rules.nav_dirs.push(String::new());
            }
            if unknown {
                rules.nav_dirs.push(String::new());
            }
            for plugin in options.get("plugins").map_or(&[][..], Value::items) {
                let Value::Call(name, args) = plugin else { continue };
                if let Some((_, route, key)) = PAGE_PLUGINS.iter().find(|(n, ..)| n == name) {
                    let route = args.first().and_then(|a| a.get(key)).and_then(Value::str).unwrap_or(route);
                    rules.unverifiable.routes.push((
                        format!("/{}", route.trim_matches('/')),
                        format!("a page the `{name}` plugin of `{}` makes", project.config),
                    ));
                }
            }
        } else {
            rules.nav_dirs.push(String::new());
        }
        rules.path_aliases = tsconfig_aliases(project);
        for (from, _) in config.get("redirects").map_or(&[][..], Value::entries) {
            rules.extra_routes.push(from.clone());
        }
        // Routes of `src/pages/`: the file's path, or a prefix whose routes a parameter makes.
        let pages = super::super::join(&src_dir, "pages");
        for file in project.files_below(&pages, 5000) {
            if file.split('/').any(|s| s.starts_with('_')) {
                continue;
            }
            let route = file_route(&file);
            let route = route.strip_suffix(".html").unwrap_or(&route);
            match route.find('[') {
                Some(at) => {
                    let prefix = route[..at].trim_end_matches('/');
                    let why = format!("a route that `{pages}/{file}` makes from its parameters");
                    let suffix = route.rsplit(']').next().unwrap_or("");
                    if prefix.is_empty() && !suffix.is_empty() && !suffix.contains('/') {
                        // An endpoint that answers only paths ending its way
                        // (`[...entry].md.ts`: every `/<entry>.md`), not every route.
                        rules.extra_patterns.push(astro_pattern(route));
                    } else if prefix.is_empty() {
                        rules.unverifiable.all_routes.get_or_insert(why);
                    } else {
                        rules.unverifiable.routes.push((prefix.to_owned(), why));
                    }
                }
                None => rules.extra_routes.push(route.to_owned()),
            }
        }
        spec
    }
}

/// An Astro route with parameters as a route pattern: `[...entry]` is `:entry*`, `[slug]` is
/// `:slug` (`/[...entry].md` → `/:entry*.md`).
fn astro_pattern(route: &str) -> String {
    let mut out = String::with_capacity(route.len());
    let mut rest = route;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find(']') else { break };
        let param = &rest[open + 1..open + close];
        match param.strip_prefix("...") {
            Some(name) => out.push_str(&format!(":{name}*")),
            None => out.push_str(&format!(":{param}")),
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The import aliases of the project's `tsconfig.json` (`compilerOptions.paths`, relative to
/// `baseUrl`, else to the file's folder), which Astro applies to the images and links of its
/// pages: `"@assets/*": ["src/assets/*"]` is `("@assets/", "<project>/src/assets/")`. Only the
/// first target of a pattern, as TypeScript tries them in order; `extends` is not followed (an
/// alias from a package's base config is not seen, and such links stay unchecked as before).
fn tsconfig_aliases(project: &Project<'_>) -> Vec<(String, String)> {
    let Some(rel) = project.at("tsconfig.json") else { return Vec::new() };
    let Ok(file) = project.read(&rel) else { return Vec::new() };
    let options = file.value.get("compilerOptions");
    let base = options.and_then(|o| o.get("baseUrl")).and_then(Value::str).unwrap_or(".");
    let Some(base) = project.at(base) else { return Vec::new() };
    let mut out = Vec::new();
    for (pattern, targets) in options.and_then(|o| o.get("paths")).map_or(&[][..], Value::entries) {
        let Some(target) = targets.items().first().and_then(Value::str) else { continue };
        let (Some(prefix), Some(dir)) = (pattern.strip_suffix('*'), target.strip_suffix('*')) else {
            continue;
        };
        if prefix.is_empty() || prefix.contains('*') || dir.contains('*') {
            continue;
        }
        let Some(dir) = super::beside(&base, dir.trim_start_matches("./")) else { continue };
        let dir = if dir.is_empty() || target.ends_with("/*") { format!("{dir}/") } else { dir };
        out.push((prefix.to_owned(), dir.trim_start_matches('/').to_owned()));
    }
    out
}

/// The options given to `starlight(…)` in the config's `integrations`.
fn starlight_options(config: &Value) -> Option<&Value> {
    config.unwrapped().get("integrations")?.items().iter().find_map(|i| i.call_args("starlight")?.first())
}

/// The links of a Starlight sidebar: items with `link` or `slug`, groups with `items`, and
/// `autogenerate: { directory }` folders.
fn sidebar_links(value: &Value, links: &mut Vec<String>, dirs: &mut Vec<String>, unknown: &mut bool) {
    match value {
        Value::List(items) => items.iter().for_each(|i| sidebar_links(i, links, dirs, unknown)),
        Value::Str(slug) => links.push(format!("/{}", slug.trim_start_matches('/'))),
        Value::Map(map) => {
            if let Some(link) = value.get("link").and_then(Value::str).filter(|l| !l.contains("://")) {
                links.push(link.to_owned());
            }
            if let Some(slug) = value.get("slug").and_then(Value::str) {
                links.push(format!("/{}", slug.trim_start_matches('/')));
            }
            if let Some(dir) = value.at(&["autogenerate", "directory"]).and_then(Value::str) {
                dirs.push(dir.trim_matches('/').to_owned());
            }
            if let Some(items) = value.get("items") {
                sidebar_links(items, links, dirs, unknown);
            }
            *unknown |= map.partial.is_some();
        }
        other => *unknown |= other.unknown().is_some(),
    }
}
