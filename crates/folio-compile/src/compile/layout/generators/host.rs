//! Redirects the host serves, whatever the generator: Netlify's `_redirects` (in the site's
//! static folders, its pages folder or its project folder, <https://docs.netlify.com/routing/redirects/>) and
//! `netlify.toml` `[[redirects]]`, and Vercel's `vercel.json` `redirects` and `rewrites`
//! (<https://vercel.com/docs/project-configuration>). A route one of them answers exists on the
//! site, and so does every route a pattern of theirs matches (`/docs/*`, `/:lang/docs/:splat`,
//! `/api/(.*)`, `/docs/:path*.mdx`), except a pattern of every route (`/*`, a single-page app's
//! fallback), which answers anything and so tells nothing about a page.
//!
//! Reads those files only, as data (`netlify.toml` and `vercel.json`) or as the line format
//! Netlify documents (`_redirects`).

use super::{Project, Spec};
use crate::compile::layout::config::Value;

/// Adds the routes the host's redirect files answer to `spec`.
pub(super) fn read(project: &Project<'_>, spec: &mut Spec) {
    // Each redirect's source, and its destination when the file names one.
    let mut sources: Vec<(String, Option<String>)> = Vec::new();
    let mut places: Vec<String> = vec![project.dir.clone(), String::new()];
    places.extend(spec.assets.iter().cloned());
    // MkDocs and mdBook serve the pages folder's other files as they are.
    places.push(spec.docs.clone());
    places.sort();
    places.dedup();
    for dir in &places {
        let redirects = super::super::join(dir, "_redirects");
        if project.is_file(&redirects)
            && let Ok(text) = crate::compile::layout::config::read_text(project.root, &redirects)
        {
            for line in text.lines() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let mut fields = line.split_whitespace();
                if let Some(from) = fields.next() {
                    sources.push((from.to_owned(), fields.next().map(str::to_owned)));
                }
            }
        }
        let netlify = super::super::join(dir, "netlify.toml");
        if project.is_file(&netlify)
            && let Ok(file) = project.read(&netlify)
        {
            if let Some(command) = file.value.at(&["build", "command"]).and_then(Value::str) {
                built_by(&netlify, command, spec);
            }
            for redirect in file.value.get("redirects").map_or(&[][..], Value::items) {
                if let Some(from) = redirect.get("from").and_then(Value::str) {
                    let to = redirect.get("to").and_then(Value::str).map(str::to_owned);
                    sources.push((from.to_owned(), to));
                }
            }
        }
        let vercel = super::super::join(dir, "vercel.json");
        if project.is_file(&vercel)
            && let Ok(file) = project.read(&vercel)
        {
            if let Some(command) = file.value.get("buildCommand").and_then(Value::str) {
                built_by(&vercel, command, spec);
            }
            for key in ["redirects", "rewrites"] {
                for redirect in file.value.get(key).map_or(&[][..], Value::items) {
                    if let Some(from) = redirect.get("source").and_then(Value::str) {
                        let to = redirect.get("destination").and_then(Value::str).map(str::to_owned);
                        sources.push((from.to_owned(), to));
                    }
                }
            }
        }
    }
    let rules = &mut spec.rules;
    for (from, to) in sources {
        // Only paths of this site: not `https://other.example/*`.
        let Some(path) = from.strip_prefix('/').map(|p| format!("/{p}")) else { continue };
        let path = match rules.base.as_str() {
            "" => path,
            base => match path.strip_prefix(&format!("/{base}")) {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.to_owned(),
                _ => path,
            },
        };
        if let Some(at) = path.find(['*', ':', '(']) {
            // A pattern of every route (`/* /index.html 200`, a single-page app's fallback)
            // answers anything, so it tells nothing about a page.
            if !path[..at].trim_matches('/').is_empty() {
                if let Some(to) = to {
                    rules.redirects.push((path.clone(), to));
                }
                rules.extra_patterns.push(path);
            }
        } else {
            if let Some(to) = to {
                rules.redirects.push((path.clone(), to));
            }
            rules.extra_routes.push(path);
        }
    }
}

/// Notes a host build command that runs a script of the repository's own (`./hack/build.sh`,
/// `make docs`, `python tools/build.py`) rather than the generator and package installs: such a
/// script may move, copy or write pages before the generator runs, so no route that matches
/// nothing can be proved missing.
fn built_by(file: &str, command: &str, spec: &mut Spec) {
    // Words that start a step that only installs, changes folder or runs a package's tool (not
    // `curl`: a download may be a page, as knative's script fetches its API reference).
    const TOOLS: &[&str] = &[
        "mkdocs",
        "hugo",
        "mdbook",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "npx",
        "pnpx",
        "bunx",
        "corepack",
        "pip",
        "pip3",
        "uv",
        "poetry",
        "pipenv",
        "cd",
        "docusaurus",
        "vitepress",
        "astro",
        "next",
        "nuxt",
        "nuxi",
        "cargo",
        "go",
        "echo",
        "export",
        "true",
        "node_modules/.bin/next",
        "turbo",
        "git",
        "rustup",
    ];
    // Files of the host's own that a step may copy into the output (`cp _redirects ./build`):
    // they move no page (and `_redirects` is read where it is).
    const HOST_FILES: &[&str] =
        &["_redirects", "_headers", "CNAME", "robots.txt", ".nojekyll", "netlify.toml"];
    let copies_host_files = |step: &str| {
        let mut words = step.split_whitespace().filter(|w| !w.starts_with('-'));
        matches!(words.next(), Some("cp" | "mv")) && {
            let operands: Vec<&str> = words.collect();
            operands.len() >= 2
                && operands[..operands.len() - 1]
                    .iter()
                    .all(|f| HOST_FILES.contains(&f.rsplit('/').next().unwrap_or(f)))
        }
    };
    let script = command
        .split(['&', ';', '|'])
        .map(str::trim)
        .filter(|step| !step.is_empty() && !copies_host_files(step))
        .filter_map(|step| step.split_whitespace().find(|w| !w.contains('=')))
        .find(|word| !(TOOLS.contains(word) || matches!(*word, "python" | "python3")))
        .or_else(|| {
            // `python -m mkdocs build` is the generator; `python tools/build.py` is a script.
            command.split(['&', ';', '|']).map(str::trim).find_map(|step| {
                let mut words = step.split_whitespace();
                matches!(words.next(), Some("python" | "python3"))
                    .then(|| words.next())
                    .flatten()
                    .filter(|w| *w != "-m")
            })
        });
    if let Some(word) = script {
        spec.rules.unverifiable.all_routes.get_or_insert_with(|| {
            format!("the host builds the site with `{command}` (`{file}`): `{word}` may move or write pages")
        });
    }
}
