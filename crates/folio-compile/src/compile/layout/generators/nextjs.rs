//! Next.js with MDX pages, and the two docs frameworks built on it, from Next.js's config
//! reference (<https://nextjs.org/docs/app/api-reference/config/next-config-js>, `basePath`,
//! `redirects`, `pageExtensions`), its project-structure guide, Fumadocs's source API
//! (<https://fumadocs.dev/docs/headless/source-api>: `source.config.ts` `defineDocs({ dir })`,
//! `loader({ baseUrl })`) and Nextra's content-directory convention
//! (<https://nextra.site/docs/file-conventions/content-directory>): pages are Fumadocs's `dir`
//! (`content/docs/`), else the first of `content/`, `docs/`, `pages/`, `app/`, `src/pages/`,
//! `src/app/`, `src/content/` that holds markdown; the site lives at `basePath`; `public/` is served at `/`; `redirects()` answers
//! old routes; the app's own route files are routes of their own; the navigation is made from
//! the folders (every page is in it).

use super::{Preset, Project, Spec, url_path};
use crate::compile::layout::config::Value;

pub(super) struct NextJs;

/// Where the pages may be, in the order they are looked for (after Fumadocs's `dir`).
const PAGE_DIRS: &[&str] = &["content", "docs", "pages", "app", "src/pages", "src/app", "src/content"];

impl Preset for NextJs {
    fn id(&self) -> &'static str {
        "nextjs"
    }

    fn name(&self) -> &'static str {
        "Next.js"
    }

    fn config_files(&self) -> &'static [&'static str] {
        &["next.config.js", "next.config.mjs", "next.config.ts", "next.config.mts", "next.config.cjs"]
    }

    fn accepts(&self, root: &std::path::Path, dir: &str, _config: &str) -> bool {
        PAGE_DIRS.iter().any(|d| root.join(super::super::join(dir, d)).is_dir())
    }

    fn read(&self, project: &Project<'_>) -> Spec {
        let config = project.value().unwrapped();
        // Fumadocs: `export const docs = defineDocs({ dir: 'content/docs' })`.
        let fumadocs = ["source.config.ts", "source.config.mts", "source.config.js", "source.config.mjs"]
            .iter()
            .filter_map(|n| project.at(n))
            .find(|p| project.is_file(p));
        let fumadocs_dir = fumadocs.as_ref().map(|file| {
            let docs = crate::compile::layout::config::read_export(project.root, file, "docs")
                .unwrap_or(Value::Null);
            docs.get("dir").and_then(Value::str).unwrap_or("content/docs").to_owned()
        });
        // The first of them that holds markdown: an app whose `pages/` is code reading
        // `src/content/` (react.dev) has its pages there.
        let candidates: Vec<String> = fumadocs_dir
            .into_iter()
            .chain(PAGE_DIRS.iter().map(|d| (*d).to_owned()))
            .filter_map(|d| project.at(&d))
            .filter(|d| project.is_dir(d))
            .collect();
        let has_markdown = |dir: &String| {
            project.files_below(dir, 5000).iter().any(|f| f.ends_with(".md") || f.ends_with(".mdx"))
        };
        let conventional = candidates.iter().find(|d| has_markdown(d)).cloned();
        // No conventional folder holds markdown: the app's code reads its MDX from a folder of
        // its own choosing (radix-ui's `data/`). The folder of the project holding the most
        // markdown is the pages; which route each is, only the code tells.
        let by_code = conventional.is_none().then(|| most_markdown(project)).flatten();
        let docs =
            conventional.or_else(|| by_code.clone()).or(candidates.first().cloned()).unwrap_or_default();
        let mut spec = Spec { docs, ..Spec::default() };
        if let Some(dir) = &by_code {
            spec.rules.unverifiable.all_routes = Some(format!(
                "the pages are markdown in `{dir}/` that the app's code reads, at routes only the code tells"
            ));
        }
        let public = project.at("public").unwrap_or_default();
        if project.is_dir(&public) {
            spec.assets.push(public);
        }
        let rules = &mut spec.rules;
        rules.directory_urls = true;
        // Often one section of a larger app, served under a path its config does not name.
        rules.base_unknown = true;
        rules.route_groups = true;
        // Fumadocs and Nextra make the sidebar from the folders: every page is in it.
        rules.nav_dirs = vec![String::new()];
        rules.base = config.get("basePath").and_then(url_path).unwrap_or_default();
        // Fumadocs serves its pages at the `baseUrl` of `loader({ baseUrl, source })`.
        if fumadocs.is_some() {
            let loader = [
                "lib/source.ts",
                "lib/source.tsx",
                "lib/source/index.ts",
                "lib/source/index.tsx",
                "src/lib/source.ts",
                "src/lib/source.tsx",
            ]
            .iter()
            .filter_map(|n| project.at(n))
            .find(|p| project.is_file(p))
            .and_then(|p| crate::compile::layout::config::read_export(project.root, &p, "source").ok());
            // `loader({ baseUrl, source })`, or `loader(source, { baseUrl })`.
            if let Some(base_url) = loader
                .as_ref()
                .and_then(|l| l.call_args("loader"))
                .and_then(|args| args.iter().find_map(|a| a.get("baseUrl")))
                .and_then(url_path)
            {
                rules.route_base = base_url;
            }
        }
        // The app's root catch-all renders the pages folder itself under Nextra's content
        // convention (`app/[[...mdxPath]]/page.jsx`) and under Fumadocs served at `/`; any
        // other renders what its own code loads.
        let renders_docs = fumadocs.is_some() || depends_on(project, "nextra");
        app_routes(project, &spec.docs, renders_docs, &mut spec.rules);
        let rules = &mut spec.rules;
        if !rules.route_base.is_empty() {
            rules.unverifiable.owned = Some((
                vec![format!("/{}", rules.route_base)],
                format!(
                    "outside the docs' routes (`/{}/`): a page of the app that no route file of it names",
                    rules.route_base
                ),
            ));
        }
        // `redirects()` answers old routes; `rewrites()` serves routes from elsewhere (a list,
        // or `{ beforeFiles, afterFiles, fallback }`). Either read only in part may answer any
        // path.
        for key in ["redirects", "rewrites"] {
            let Some(value) = config.get(key) else { continue };
            let returned = match value {
                Value::Func(returned) => &**returned,
                other => other,
            };
            let lists: Vec<&Value> = match returned {
                Value::Map(map) if map.partial.is_none() => map.entries.iter().map(|(_, v)| v).collect(),
                other => vec![other],
            };
            for list in lists {
                let Value::List(items) = list else {
                    rules.unverifiable.all_routes.get_or_insert_with(|| unread_table(project, key, list));
                    continue;
                };
                for item in items {
                    match item.get("source") {
                        Some(Value::Str(source)) if answers_any_path(source) => {
                            rules.unverifiable.all_routes.get_or_insert_with(|| {
                                format!("`{key}` in `{}` answers `{source}`, any path", project.config)
                            });
                        }
                        Some(Value::Str(source)) if source.contains([':', '*', '(']) => {
                            rules.extra_patterns.push(source.clone());
                        }
                        Some(Value::Str(source)) => rules.extra_routes.push(source.clone()),
                        _ => {
                            rules
                                .unverifiable
                                .all_routes
                                .get_or_insert_with(|| unread_table(project, key, item));
                        }
                    }
                }
            }
        }
        spec
    }
}

/// True for a source pattern that matches every path: one segment at the root that is a
/// parameter of any number of segments (`/:path*`, `/:slug+`, `/(.*)`).
fn answers_any_path(source: &str) -> bool {
    let only = source.trim_start_matches('/');
    !only.contains('/')
        && ((only.starts_with(':') && (only.ends_with('*') || only.ends_with('+')))
            || only == "(.*)"
            || only == "*")
}

/// The folder directly in the project holding the most markdown files (at least one), outside
/// hidden, dependency and test folders.
fn most_markdown(project: &Project<'_>) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for (name, is_dir) in project.entries(&project.dir) {
        if !is_dir || crate::compile::layout::detect::SKIPPED.contains(&name.as_str()) {
            continue;
        }
        let dir = super::super::join(&project.dir, &name);
        let count = project
            .files_below(&dir, 5000)
            .iter()
            .filter(|f| f.ends_with(".md") || f.ends_with(".mdx"))
            .count();
        if count > 0 && best.as_ref().is_none_or(|(n, _)| count > *n) {
            best = Some((count, dir));
        }
    }
    best.map(|(_, dir)| dir)
}

/// Why a `redirects()` or `rewrites()` table read only in part leaves every route unverified.
fn unread_table(project: &Project<'_>, key: &str, value: &Value) -> String {
    let what = value.unknown().unwrap_or("a value Folio does not read");
    format!("`{key}` in `{}` holds {what}, so any path may be answered by it", project.config)
}

/// Whether the project's `package.json` lists `package` among its dependencies.
fn depends_on(project: &Project<'_>, package: &str) -> bool {
    let Some(manifest) = project.at("package.json").and_then(|p| project.read(&p).ok()) else { return false };
    ["dependencies", "devDependencies"]
        .iter()
        .any(|k| manifest.value.get(k).and_then(|d| d.get(package)).is_some())
}

/// The routes of the app's own route files: `page.*` and `route.*` under `app/` (route groups
/// and `@slots` left out, `_private` folders skipped), every file of `pages/`; a `[param]`
/// makes the routes under its fixed prefix, which only running the app tells.
fn app_routes(
    project: &Project<'_>,
    docs: &str,
    renders_docs: bool,
    rules: &mut crate::compile::layout::SiteRules,
) {
    for (dir, app) in [("app", true), ("src/app", true), ("pages", false), ("src/pages", false)] {
        // The pages folder itself is read for its markdown pages; an app folder that is the
        // pages folder (Nextra's `app/**/page.mdx`) still has route files in code and
        // parameter folders (`app/docs/[name]/page.tsx`).
        let Some(dir) = project.at(dir).filter(|d| (app || d != docs) && project.is_dir(d)) else { continue };
        let pages_folder = dir == docs;
        for file in project.files_below(&dir, 5000) {
            let (folder, name) = file.rsplit_once('/').unwrap_or(("", file.as_str()));
            let stem = name.split('.').next().unwrap_or(name);
            if app && !matches!(stem, "page" | "route") {
                continue;
            }
            if pages_folder && [".md", ".mdx"].iter().any(|e| name.ends_with(e)) {
                continue;
            }
            if !app && (stem.starts_with('_') || folder.split('/').next() == Some("api")) {
                continue;
            }
            let mut segments: Vec<&str> = Vec::new();
            let mut private = false;
            for segment in folder.split('/').filter(|s| !s.is_empty()) {
                if segment.starts_with('_') {
                    private = true;
                }
                if !(segment.starts_with('(') && segment.ends_with(')') || segment.starts_with('@')) {
                    segments.push(segment);
                }
            }
            if private {
                continue;
            }
            if !app && stem != "index" {
                segments.push(stem);
            }
            let route = format!("/{}", segments.join("/"));
            match route.find('[') {
                Some(at) => {
                    let prefix = route[..at].trim_end_matches('/').to_owned();
                    // At the docs' route, a catch-all renders the pages folder: Fumadocs's
                    // `app/docs/[[...slug]]`, Nextra's root `[[...mdxPath]]`, and a pages-router
                    // `pages/[...slug].jsx` whose `getStaticPaths` lists the content files (the
                    // shape of Next.js's own docs examples). An app-router catch-all at the root
                    // of any other app renders what its code loads (pages from JSON data).
                    let catch_all_of_docs = prefix.trim_start_matches('/') == rules.route_base
                        && (!rules.route_base.is_empty() || renders_docs || !app);
                    if catch_all_of_docs {
                        continue;
                    }
                    let why = format!("a route that `{dir}/{file}` makes from its parameters");
                    if prefix.is_empty() {
                        // A catch-all at the root answers any path but the files served at
                        // `/` (`public/`), which Next.js serves before any route.
                        if rules.route_base.is_empty() {
                            rules.unverifiable.owned.get_or_insert((Vec::new(), why));
                        }
                    } else {
                        rules.unverifiable.routes.push((prefix, why));
                    }
                }
                None => rules.extra_routes.push(route),
            }
        }
    }
}
