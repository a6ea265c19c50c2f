//! Finding the site generators' projects of a tree: every folder down to [`MAX_DEPTH`] below the
//! content root is asked, in name order, whether it holds a generator's config file (in the
//! generator's own lookup order, [`Generator::ALL`] order between generators), outside
//! dependency, build, test and example folders. A repository may hold several sites (one per
//! language, a website and a book); the caller picks the one it reads and reports the others.
//!
//! Reads folder listings and, where a generator must look inside to tell (an `astro.config`
//! without Starlight, a `config.toml` that is not Hugo's), that config file.

use std::path::Path;

use super::Generator;

/// How many folders below the content root a config file is looked for.
pub(super) const MAX_DEPTH: usize = 4;

/// Projects found at most: a monorepo of many sites is reported by its first ones.
const MAX_PROJECTS: usize = 24;

/// Folders never searched: dependencies, build output, tests, examples and templates (which
/// hold sample sites, not the project's). A `SKILL.md` in one is a sample too
/// (`accounting`).
pub(super) const SKIPPED: &[&str] = &[
    "node_modules",
    "vendor",
    "third_party",
    "target",
    "dist",
    "build",
    "out",
    "test",
    "tests",
    "__tests__",
    "fixtures",
    "__fixtures__",
    "testdata",
    "examples",
    "example",
    "templates",
    "template",
    "e2e",
    "playground",
    "playgrounds",
    "starters",
    "starter",
];

/// A generator's config file, found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Found {
    pub(super) generator: Generator,
    /// The project folder, content-relative.
    pub(super) dir: String,
    /// The config file, content-relative.
    pub(super) config: String,
    /// How many folders below the root the project is.
    pub(super) depth: usize,
}

/// Every generator project of the tree at `root`, shallowest first, then in name order.
pub(super) fn find(root: &Path) -> Vec<Found> {
    let mut out = Vec::new();
    let mut level = vec![String::new()];
    for depth in 0..=MAX_DEPTH {
        let mut next = Vec::new();
        for dir in &level {
            let names = names_in(root, dir);
            if let Some(found) = project_in(root, dir, &names, depth) {
                out.push(found);
                if out.len() >= MAX_PROJECTS {
                    return out;
                }
            }
            for (name, is_dir) in &names {
                if *is_dir && !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                    next.push(super::join(dir, name));
                }
            }
        }
        level = next;
    }
    out
}

/// The generator whose config file is in `dir` (the first in [`Generator::ALL`] order).
pub(super) fn project_in(root: &Path, dir: &str, names: &[(String, bool)], depth: usize) -> Option<Found> {
    for generator in Generator::ALL {
        let preset = generator.preset();
        for config in preset.config_files() {
            let first = config.split('/').next().unwrap_or(config);
            if !names.iter().any(|(name, _)| name == first) {
                continue;
            }
            let path = super::join(dir, config);
            if root.join(&path).is_file() && preset.accepts(root, dir, &path) {
                return Some(Found { generator, dir: preset.project_dir(dir), config: path, depth });
            }
            if root.join(&path).is_file() {
                // This generator's file, but not its project: the next generator may claim it.
                break;
            }
        }
        if !preset.config_files().iter().any(|c| names.iter().any(|(name, _)| name == c))
            && let Some(path) = preset.config_variant(root, dir, names)
        {
            return Some(Found { generator, dir: preset.project_dir(dir), config: path, depth });
        }
    }
    None
}

/// The names in the folder `dir` (content-relative), hidden ones included, sorted, each with
/// whether it is a folder (links are not followed).
pub(super) fn names_in(root: &Path, dir: &str) -> Vec<(String, bool)> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else { return Vec::new() };
    let mut out: Vec<(String, bool)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.file_type().ok()?.is_dir())))
        .collect();
    out.sort();
    out
}
