//! Nuxt Content (2 and 3), from its collection references
//! (<https://content.nuxt.com/docs/collections/define>, `…/sources`, `…/types#path-generation`)
//! and Nuxt's configuration reference (<https://nuxt.com/docs/api/nuxt-config>): a
//! `content.config.*` or `nuxt.config.*` beside `content/`; pages are `content/` (a collection's
//! `source.cwd` naming another folder is not read), routed without their ordering prefixes
//! (`1.getting-started/2.install.md` is `/getting-started/install`); the app lives at
//! `app.baseURL`; `public/` is served at `/`; `routeRules` redirects answer old routes; the
//! app's own `pages/` files are routes of their own.

use super::{Preset, Project, Spec, file_route, url_path};
use crate::compile::layout::config::Value;

pub(super) struct NuxtContent;

/// Nuxt's own config files, in its lookup order.
const NUXT_CONFIGS: &[&str] = &["nuxt.config.ts", "nuxt.config.mts", "nuxt.config.js", "nuxt.config.mjs"];

impl Preset for NuxtContent {
    fn id(&self) -> &'static str {
        "nuxt-content"
    }

    fn name(&self) -> &'static str {
        "Nuxt Content"
    }

    fn config_files(&self) -> &'static [&'static str] {
        &[
            "content.config.ts",
            "content.config.mts",
            "content.config.js",
            "content.config.mjs",
            "nuxt.config.ts",
            "nuxt.config.mts",
            "nuxt.config.js",
            "nuxt.config.mjs",
        ]
    }

    fn accepts(&self, root: &std::path::Path, dir: &str, _config: &str) -> bool {
        // Nuxt Content's `content.config.*` sits at the root of a Nuxt project, beside its
        // `nuxt.config.*`; Astro's content collections use the same name in `src/` of an Astro
        // project (`src/content.config.ts`), with no Nuxt config beside it.
        let nuxt_config = NUXT_CONFIGS.iter().any(|n| root.join(super::super::join(dir, n)).is_file());
        nuxt_config && root.join(super::super::join(dir, "content")).is_dir()
    }

    fn read(&self, project: &Project<'_>) -> Spec {
        let nuxt_path = NUXT_CONFIGS.iter().filter_map(|n| project.at(n)).find(|p| project.is_file(p));
        let nuxt_config = nuxt_path.as_ref().and_then(|p| project.read(p).ok()).map(|f| f.value);
        let nuxt_file = nuxt_path.as_deref().unwrap_or(&project.config);
        let nuxt = nuxt_config.as_ref().unwrap_or(project.value()).unwrapped();
        let mut spec = Spec { docs: project.at("content").unwrap_or_default(), ..Spec::default() };
        let public = project.at("public").unwrap_or_default();
        if project.is_dir(&public) {
            spec.assets.push(public);
        }
        let rules = &mut spec.rules;
        rules.directory_urls = true;
        // Often one section of a larger app, served under a path its config does not name.
        rules.base_unknown = true;
        // Nuxt Content routes every file without its ordering prefix (`1.guide/` is `/guide`).
        rules.ordering_prefixes = Some(true);
        rules.base = nuxt.at(&["app", "baseURL"]).and_then(url_path).unwrap_or_default();
        // Route rules built at run time (`...readFileSync('_redirects')…`): any path may redirect.
        match nuxt.get("routeRules") {
            Some(Value::Map(map)) if map.partial.is_some() => {
                rules.unverifiable.all_routes = Some(format!(
                    "`routeRules` in `{nuxt_file}` is partly {}: any path may redirect",
                    map.partial.as_deref().unwrap_or_default()
                ));
            }
            Some(other @ (Value::Unknown(_) | Value::Call(..) | Value::Func(_))) => {
                let what = other.unknown().unwrap_or("a value Folio does not read");
                rules.unverifiable.all_routes = Some(format!("`routeRules` in `{nuxt_file}` is {what}"));
            }
            _ => {}
        }
        for (route, rule) in nuxt.get("routeRules").map_or(&[][..], Value::entries) {
            if rule.get("redirect").is_some() {
                rules.extra_routes.push(route.trim_end_matches("/**").to_owned());
            }
        }
        // The app's pages: a catch-all (`[...slug].vue`) serves the content; others are routes.
        for dir in ["app/pages", "pages"] {
            let Some(pages) = project.at(dir) else { continue };
            for file in project.files_below(&pages, 2000) {
                if !file.ends_with(".vue") {
                    continue;
                }
                let route = file_route(&file);
                match route.find('[') {
                    Some(at) if at > 1 => rules.unverifiable.routes.push((
                        route[..at].trim_end_matches('/').to_owned(),
                        format!("a route that `{pages}/{file}` makes from its parameters"),
                    )),
                    Some(_) => {}
                    None => rules.extra_routes.push(route),
                }
            }
        }
        spec
    }
}
