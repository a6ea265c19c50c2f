//! MkDocs (1.6, with Material and the common plugins), from its configuration reference
//! (<https://www.mkdocs.org/user-guide/configuration/>), `mkdocs/config/base.py` and
//! `mkdocs/structure/files.py`: the config is `mkdocs.yml` (or `.yaml`), merged over the file its
//! `INHERIT` names (mappings merged, lists replaced, relative paths the child's); pages are
//! `docs_dir` (`docs/`, relative to the config file), every other file of it served as it is;
//! `site_url`'s path is where the site lives; `use_directory_urls` (on) serves `x.md` at `x/`;
//! `nav` lists the navigation (all pages when absent). Plugins that move pages: mkdocs-static-i18n
//! (`languages`, locale folders), mkdocs-redirects (`redirect_maps`: old pages that still
//! answer), Material's blog (posts at date routes), mkdocs-gen-files (pages a script writes).

use std::path::Path;

use super::{Preset, Project, Spec, url_path};
use crate::compile::layout::config::{self, Map, Value};
use crate::compile::layout::excluded::Excluded;
use crate::compile::markdown::HeadingIds;

pub(super) struct MkDocs;

impl Preset for MkDocs {
    fn id(&self) -> &'static str {
        "mkdocs"
    }

    fn name(&self) -> &'static str {
        "MkDocs"
    }

    fn config_files(&self) -> &'static [&'static str] {
        &["mkdocs.yml", "mkdocs.yaml"]
    }

    /// MkDocs reads `mkdocs.yml` unless `--config-file` names another (`mkdocs/config/base.py`):
    /// a folder holding only `mkdocs-online.yml`, `mkdocs-offline.yml`… is built from one a
    /// script passes. A config is a file that sets `site_name` (MkDocs's one required setting)
    /// itself or through `INHERIT`; of several, the one no other inherits; of several such
    /// builds, the config they all inherit (what every build shares), else the first by name.
    fn config_variant(&self, root: &Path, dir: &str, names: &[(String, bool)]) -> Option<String> {
        let files: Vec<(String, Option<String>, bool)> = names
            .iter()
            .filter(|(name, is_dir)| {
                !is_dir && name.starts_with("mkdocs") && (name.ends_with(".yml") || name.ends_with(".yaml"))
            })
            .filter_map(|(name, _)| {
                let path = super::super::join(dir, name);
                let value = config::read(root, &path).ok()?.value;
                let parent = value.get("INHERIT").and_then(Value::str).and_then(|p| super::beside(dir, p));
                Some((path, parent, value.get("site_name").is_some()))
            })
            .collect();
        // A file's own path, then what it inherits, up to eight files.
        let chain = |path: &str| -> Vec<String> {
            let mut out = vec![path.to_owned()];
            while out.len() < 8 {
                let last = out.last().map(String::as_str).unwrap_or_default();
                let Some(parent) =
                    files.iter().find(|(p, ..)| p == last).and_then(|(_, parent, _)| parent.clone())
                else {
                    break;
                };
                if out.contains(&parent) {
                    break;
                }
                out.push(parent);
            }
            out
        };
        let named = |path: &str| chain(path).iter().any(|p| files.iter().any(|(f, _, name)| f == p && *name));
        let leaves: Vec<&str> = files
            .iter()
            .map(|(path, ..)| path.as_str())
            .filter(|path| {
                named(path) && !files.iter().any(|(_, parent, _)| parent.as_deref() == Some(*path))
            })
            .collect();
        let (first, others) = leaves.split_first()?;
        let shared = chain(first).into_iter().find(|p| {
            files.iter().any(|(f, _, name)| f == p && *name) && others.iter().all(|o| chain(o).contains(p))
        });
        Some(shared.unwrap_or_else(|| (*first).to_owned()))
    }

    fn read(&self, project: &Project<'_>) -> Spec {
        let config = inherited(project, project.value().clone(), &project.config, 0);
        let docs_dir = config.get("docs_dir").and_then(Value::str).unwrap_or("docs");
        let mut spec = Spec {
            docs: project.at(docs_dir).unwrap_or_else(|| project.at("docs").unwrap_or_default()),
            ..Spec::default()
        };
        let rules = &mut spec.rules;
        rules.heading_ids = HeadingIds::PythonMarkdown;
        rules.directory_urls = config.get("use_directory_urls").and_then(Value::bool).unwrap_or(true);
        rules.base = config.get("site_url").and_then(url_path).unwrap_or_default();
        match config.get("nav") {
            Some(nav @ Value::List(_)) => {
                let mut unknown = false;
                nav.walk(&mut |v| {
                    unknown |= v.unknown().is_some();
                });
                rules.nav_links = nav
                    .strings()
                    .into_iter()
                    .filter(|s| {
                        !s.contains("://") && (s.ends_with(".md") || s.ends_with('/') || s.contains(".md#"))
                    })
                    .map(str::to_owned)
                    .collect();
                if unknown {
                    rules.nav_dirs = vec![String::new()];
                }
            }
            // No `nav`: MkDocs lists every page.
            _ => rules.nav_dirs = vec![String::new()],
        }
        if !rules.base.is_empty() {
            rules.unverifiable.outside_base = Some(format!(
                "a site path outside the site's `site_url` path (`/{}/`): another part of the host, as MkDocs leaves such links as written",
                rules.base
            ));
        }
        if let Some(hooks) = config.get("hooks").filter(|h| !h.items().is_empty()) {
            let first = hooks.items().iter().find_map(Value::str).unwrap_or("hooks");
            rules.unverifiable.non_files = Some(format!(
                "a destination that names no file, which the hook `{first}` of `{}` may rewrite",
                project.config
            ));
        }
        // MkDocs always leaves out `docs_dir/templates/` (and hidden files, which Folio does
        // not read either), then what `exclude_docs` lists.
        let why = format!("`exclude_docs` of `{}`", project.config);
        let mut excluded = Excluded::from_gitignore("/templates/", "MkDocs's own `/templates/` exclusion");
        for line in config.get("exclude_docs").and_then(Value::str).unwrap_or("").lines() {
            excluded = excluded.zip(Excluded::from_gitignore(line, &why)).map(|(mut a, b)| {
                a.extend(b);
                a
            });
        }
        rules.excluded = excluded.unwrap_or_default();
        for (name, options) in plugins(&config) {
            match name {
                // mkdocs-exclude: `fnmatch` globs on the path below `docs_dir` (a `*` crosses
                // folders). Its `regex` list is not read: those files are compiled.
                "exclude" => {
                    let globs = options.and_then(|o| o.get("glob")).map_or(&[][..], Value::items);
                    rules.excluded.extend(globs.iter().filter_map(Value::str).map(|glob| Excluded {
                        glob: glob.to_owned(),
                        separator: false,
                        why: format!("the `exclude` plugin's `{glob}` in `{}`", project.config),
                    }));
                }
                "i18n" => {
                    let folder =
                        options.and_then(|o| o.get("docs_structure")).and_then(Value::str) == Some("folder");
                    let languages = options.and_then(|o| o.get("languages")).map_or(&[][..], Value::items);
                    let others: Vec<String> = languages
                        .iter()
                        .filter(|l| l.get("default").and_then(Value::bool) != Some(true))
                        .filter_map(|l| l.get("locale").and_then(Value::str).map(str::to_owned))
                        .collect();
                    if folder && !others.is_empty() {
                        rules.locales = Some(others);
                    }
                }
                "redirects" => {
                    let maps = options.and_then(|o| o.get("redirect_maps")).map_or(&[][..], Value::entries);
                    rules
                        .extra_routes
                        .extend(maps.iter().map(|(old, _)| format!("/{}", old.trim_start_matches('/'))));
                }
                "blog" | "material/blog" => {
                    let dir = options.and_then(|o| o.get("blog_dir")).and_then(Value::str).unwrap_or("blog");
                    let dir = dir.trim_matches('/');
                    rules.unverifiable.routes.push((
                        format!("/{dir}"),
                        format!("a route of the blog plugin (`{dir}/`: posts served by date, archives, categories)"),
                    ));
                }
                "gen-files" | "mkdocs-gen-files" => {
                    let why = format!(
                        "a page the `gen-files` plugin of `{}` may write at build time",
                        project.config
                    );
                    rules.unverifiable.all_routes = Some(why.clone());
                    rules.unverifiable.any_file = Some(why);
                }
                _ => {}
            }
        }
        spec
    }
}

/// The plugins a config enables, each with its options: `- search`, `- i18n: {…}`, or a
/// mapping `plugins: { search: {} }`.
fn plugins(config: &Value) -> Vec<(&str, Option<&Value>)> {
    match config.get("plugins") {
        Some(Value::List(items)) => items
            .iter()
            .filter_map(|item| match item {
                Value::Str(name) => Some((name.as_str(), None)),
                Value::Map(map) => map.entries.first().map(|(name, options)| (name.as_str(), Some(options))),
                _ => None,
            })
            .collect(),
        Some(Value::Map(map)) => {
            map.entries.iter().map(|(name, options)| (name.as_str(), Some(options))).collect()
        }
        _ => Vec::new(),
    }
}

/// `config` (of the file `file`) merged over the file its `INHERIT` names, as MkDocs merges
/// them: mappings key by key, anything else the child's.
fn inherited(project: &Project<'_>, config: Value, file: &str, depth: usize) -> Value {
    let Some(parent) = config.get("INHERIT").and_then(Value::str) else { return config };
    let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
    let Some(parent_file) = super::beside(dir, parent) else { return config };
    if depth >= 8 {
        return config;
    }
    let Ok(parent_config) = project.read(&parent_file) else { return config };
    let parent_config = inherited(project, parent_config.value, &parent_file, depth + 1);
    merge(parent_config, config)
}

fn merge(base: Value, over: Value) -> Value {
    match (base, over) {
        (Value::Map(mut base), Value::Map(over)) => {
            for (key, value) in over.entries {
                match base.entries.iter().position(|(k, _)| *k == key) {
                    Some(i) => {
                        let old = std::mem::replace(&mut base.entries[i].1, Value::Null);
                        base.entries[i].1 = merge(old, value);
                    }
                    None => base.entries.push((key, value)),
                }
            }
            Value::Map(Map { entries: base.entries, partial: base.partial.or(over.partial) })
        }
        (_, over) => over,
    }
}
