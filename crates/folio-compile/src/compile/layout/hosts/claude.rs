//! Claude Code plugins and plugin marketplaces, as Claude Code reads them
//! (<https://code.claude.com/docs/en/plugin-marketplaces>,
//! <https://code.claude.com/docs/en/plugins-reference>):
//!
//! - `.claude-plugin/marketplace.json` lists `plugins`, each with a `name` and a `source`: a
//!   path relative to the marketplace root (`./plugins/x`, with `metadata.pluginRoot` in front
//!   of a bare one), or an object naming another repository (`github`, `url`, `git-subdir`,
//!   `npm`), which is not in this tree and is named as not read.
//! - A plugin's manifest is `<plugin>/.claude-plugin/plugin.json` (optional; an entry with
//!   `"strict": false` is the whole definition). Its skills are `skills/<name>/SKILL.md`; a
//!   `skills` path (a string or a list, in the manifest or the marketplace entry) replaces that
//!   default, and may name a folder of skills or one skill's folder.
//! - Skills are scoped by their plugin: `/<plugin>:<skill>`. Two plugins may each ship `access`.
//!
//! Plugin folders that are not skills (`agents/`, `commands/`, `hooks/`, scripts) are not
//! mounted, so they are not read as skills. Reads the two JSON files as data (serde_json); must
//! not read any other file.

use std::path::Path;

use serde_json::Value;

use super::{Mount, Part, Preset, Read, inside, join};
use crate::compile::layout::beside;
use crate::compile::layout::config::read_text;

/// The marketplace file.
const MARKETPLACE: &str = ".claude-plugin/marketplace.json";
/// A plugin's manifest, relative to the plugin.
const MANIFEST: &str = ".claude-plugin/plugin.json";

/// A Claude Code plugin marketplace.
pub(super) struct Marketplace;

impl Preset for Marketplace {
    fn name(&self) -> &'static str {
        "Claude Code plugin marketplace"
    }

    fn marker(&self) -> &'static str {
        MARKETPLACE
    }

    fn read(&self, root: &Path) -> Read {
        let mut read = Read::default();
        let value = match json(root, MARKETPLACE) {
            Ok(value) => value,
            Err(why) => {
                read.error = Some(why);
                return read;
            }
        };
        let Some(plugins) = value.get("plugins").and_then(Value::as_array) else {
            read.error = Some("it has no `plugins` list".to_owned());
            return read;
        };
        let plugin_root = value.pointer("/metadata/pluginRoot").and_then(Value::as_str).unwrap_or("");
        for (i, entry) in plugins.iter().enumerate() {
            let Some(name) = entry.get("name").and_then(Value::as_str) else {
                read.unread.push((format!("plugins[{i}]"), "it has no `name`".to_owned()));
                continue;
            };
            let dir = match entry.get("source") {
                Some(Value::String(path)) => {
                    let path = if path.starts_with("./") || path.starts_with("../") || plugin_root.is_empty()
                    {
                        path.clone()
                    } else {
                        format!("{plugin_root}/{path}")
                    };
                    beside("", &path)
                }
                Some(Value::Object(source)) => {
                    let kind = source.get("source").and_then(Value::as_str).unwrap_or("another repository");
                    read.unread.push((name.to_owned(), format!("fetched from {kind}, not in this tree")));
                    continue;
                }
                _ => None,
            };
            let Some(dir) = dir else {
                read.unread.push((name.to_owned(), "its `source` is not a path inside the tree".to_owned()));
                continue;
            };
            if !root.join(&dir).is_dir() || !inside(root, &dir) {
                read.unread.push((name.to_owned(), format!("its source `{}` is not a folder", shown(&dir))));
                continue;
            }
            let strict = entry.get("strict").and_then(Value::as_bool).unwrap_or(true);
            plugin(root, &dir, Some(name), Some(entry), strict, &mut read);
        }
        read
    }
}

/// One Claude Code plugin at the root, with no marketplace.
pub(super) struct Plugin;

impl Preset for Plugin {
    fn name(&self) -> &'static str {
        "Claude Code plugin"
    }

    fn marker(&self) -> &'static str {
        MANIFEST
    }

    fn read(&self, root: &Path) -> Read {
        let mut read = Read::default();
        plugin(root, "", None, None, true, &mut read);
        read
    }
}

/// Reads the plugin in `dir` (content-relative): its name (the manifest's when it is strict and
/// has one, else the marketplace's) and its skills folders, added to `read` as mounts under
/// `<plugin>/`.
fn plugin(
    root: &Path,
    dir: &str,
    listed: Option<&str>,
    entry: Option<&Value>,
    strict: bool,
    read: &mut Read,
) {
    let manifest_path = join(dir, MANIFEST);
    let manifest = if strict && root.join(&manifest_path).is_file() {
        match json(root, &manifest_path) {
            Ok(value) => Some(value),
            Err(why) => {
                let who = listed.unwrap_or(dir);
                read.unread.push((who.to_owned(), format!("`{manifest_path}` {why}")));
                return;
            }
        }
    } else {
        None
    };
    let name = manifest.as_ref().and_then(|m| m.get("name")).and_then(Value::as_str).or(listed);
    let Some(name) = name.filter(|n| is_segment(n)) else {
        let who = listed.map_or_else(|| shown(dir), str::to_owned);
        read.unread.push((who, "its plugin name is missing or not a plain folder name".to_owned()));
        if manifest.is_none() && listed.is_none() {
            read.error = Some(format!("`{manifest_path}` has no `name`"));
        }
        return;
    };
    let mut paths: Vec<String> = Vec::new();
    for source in [manifest.as_ref(), entry] {
        match source.and_then(|v| v.get("skills")) {
            Some(Value::String(path)) => paths.push(path.clone()),
            Some(Value::Array(list)) => {
                paths.extend(list.iter().filter_map(Value::as_str).map(str::to_owned))
            }
            _ => {}
        }
    }
    if paths.is_empty() {
        paths.push("skills".to_owned());
    }
    read.plugins += 1;
    let before = read.mounts.len();
    for path in paths {
        let Some(folder) = beside(dir, &path) else { continue };
        if !root.join(&folder).is_dir() || !inside(root, &folder) {
            continue;
        }
        // A path may name one skill's folder rather than a folder of skills.
        let at = if root.join(&folder).join("SKILL.md").is_file() {
            join(name, folder.rsplit('/').next().unwrap_or(&folder))
        } else {
            name.to_owned()
        };
        let mount = Mount { part: Part::Skills, dir: folder, at };
        if !read.mounts.contains(&mount) {
            read.mounts.push(mount);
        }
    }
    if read.mounts.len() == before {
        // A plugin of agents, commands or hooks only: nothing of it is a skill.
        read.plugins -= 1;
    } else {
        read.roots.push((name.to_owned(), dir.to_owned()));
    }
}

/// A JSON file of the tree as data, or why not.
fn json(root: &Path, rel: &str) -> Result<Value, String> {
    let text = read_text(root, rel).map_err(|why| why.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("is not valid JSON: {e}"))
}

/// True for a name usable as one segment of a skill path.
fn is_segment(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', ':'])
}

fn shown(dir: &str) -> String {
    if dir.is_empty() { ".".to_owned() } else { format!("{dir}/") }
}
