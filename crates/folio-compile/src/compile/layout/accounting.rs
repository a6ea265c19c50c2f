//! Every markdown file of the tree accounted for: a walk of the content root that finds the
//! markdown files (`.md`, `.mdx`, `.markdown`) outside the folders the layout reads, so a run
//! never leaves part of a tree out in silence. Files in a folder the layout already names as not
//! read (a translation, an archived version, another site) are counted under that folder's
//! reason; the others are grouped by the top folder that holds them. A `SKILL.md` left out this
//! way is a `skill-left-out` error, unless it sits in a folder site detection skips (tests,
//! fixtures, examples, templates, vendored and built files: samples and copies, not the
//! project's skills), or in a plugin a host layout reads, whose manifest names the
//! folders its skills are in (counted only).
//!
//! Reads folder listings and `.gitignore` files (a path git ignores is build output, not the
//! tree); reads no file's content, and does not go into `.git/` or `node_modules/`.

use std::collections::BTreeMap;
use std::path::Path;

use super::{Layout, detect, strip_dir};
use crate::compile::diagnostic::{Code, Diagnostic};

/// Entries walked at most: a tree larger than this is accounted for in part, and says so.
const MAX_ENTRIES: usize = 500_000;

/// The markdown files a compile did not read, by where they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// How many markdown files, by folder (content-relative, `""` for the root's own files),
    /// most first, then by name.
    pub(crate) folders: Vec<(String, usize)>,
    /// The `SKILL.md` files a host would load that no skills folder read holds
    /// (content-relative, sorted).
    pub(crate) skills: Vec<String>,
    /// The walk stopped at its bound (500,000 entries).
    pub(crate) partial: bool,
    /// How many pages the site's config excludes (`exclude_docs`, `srcExclude`), by the
    /// pattern's source, most first.
    pub(crate) excluded: Vec<(String, usize)>,
}

impl LeftOut {
    /// How many markdown files were left out.
    pub(crate) fn total(&self) -> usize {
        self.folders.iter().map(|(_, n)| n).sum()
    }

    /// The summary's clause: `; left out: 12 markdown files outside the folders read (tests/ 8,
    /// README.md 1, packages/ 3)`, then the pages the config excludes; empty when nothing was.
    pub fn describe(&self) -> String {
        let mut out = self.describe_outside();
        if !self.excluded.is_empty() {
            let total: usize = self.excluded.iter().map(|(_, n)| n).sum();
            let shown: Vec<String> =
                self.excluded.iter().take(3).map(|(why, n)| format!("{why} {n}")).collect();
            let more = if self.excluded.len() > 3 { ", …" } else { "" };
            let files = if total == 1 { "page" } else { "pages" };
            out.push_str(&format!(
                "; {total} {files} the site's config excludes ({}{more})",
                shown.join(", ")
            ));
        }
        out
    }

    fn describe_outside(&self) -> String {
        let total = self.total();
        if total == 0 {
            return String::new();
        }
        let shown: Vec<String> = self
            .folders
            .iter()
            .take(4)
            .map(|(dir, n)| if dir.is_empty() { format!("the root {n}") } else { format!("{dir}/ {n}") })
            .collect();
        let more = if self.folders.len() > 4 {
            format!(" and {} more folders", self.folders.len() - 4)
        } else {
            String::new()
        };
        let files = if total == 1 { "markdown file" } else { "markdown files" };
        let partial = if self.partial { ", at least" } else { "" };
        format!("; left out{partial}: {total} {files} outside the folders read ({}{more})", shown.join(", "))
    }

    /// One `skill-left-out` error, at the first such `SKILL.md`, naming how many.
    pub(crate) fn diagnostics(&self) -> Vec<Diagnostic> {
        let Some(first) = self.skills.first() else { return Vec::new() };
        let others = match self.skills.len() - 1 {
            0 => String::new(),
            1 => " and 1 more".to_owned(),
            n => format!(" and {n} more"),
        };
        // The folders of skill folders that hold them: `plugins/review/skills` for
        // `plugins/review/skills/pr/SKILL.md`.
        let parents: std::collections::BTreeSet<&str> = self
            .skills
            .iter()
            .map(|s| {
                let dir = s.rsplit_once('/').map_or("", |(d, _)| d);
                dir.rsplit_once('/').map_or(".", |(p, _)| p)
            })
            .collect();
        let parent = parents.first().copied().unwrap_or(".");
        let read = if parents.len() > 1 {
            format!(
                "read their folders with `--skills DIR` for each of the {} folders that hold them (`{parent}`, …)",
                parents.len()
            )
        } else {
            format!(
                "read its folder with `--skills {parent}` or `[skills] dirs = [\"{parent}\"]` in folio.toml"
            )
        };
        vec![
            Diagnostic::error(
                Code::SkillLeftOut,
                first,
                1,
                1,
                format!("`{first}`{others} is not served: no skills folder Folio reads holds it"),
            )
            .with_help(format!(
                "{read}, or set `skill-left-out = \"warn\"` under [lints] if these skills are not meant to be served"
            )),
        ]
    }
}

/// The markdown files under `root` that `layout` does not read.
pub(crate) fn left_out(root: &Path, layout: &Layout) -> LeftOut {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let excluded_set = super::excluded::ExcludedSet::new(&layout.site.excluded);
    let mut excluded: BTreeMap<String, usize> = BTreeMap::new();
    let mut skills = Vec::new();
    let mut partial = false;
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(false)
        .parents(false)
        .require_git(false)
        .ignore(false)
        .follow_links(false)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some(".git" | "node_modules")))
        .build();
    for (seen, entry) in walker.enumerate() {
        if seen >= MAX_ENTRIES {
            partial = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        let Some(rel) = rel.to_str().map(|r| r.replace('\\', "/")) else { continue };
        let name = rel.rsplit('/').next().unwrap_or(&rel);
        if !written_as_markdown(name) {
            continue;
        }
        if let Some(logical) = layout.logical(&rel) {
            if let Some(why) = logical.strip_prefix("docs/").and_then(|page| excluded_set.why(page)) {
                *excluded.entry(why.to_owned()).or_default() += 1;
            }
            continue;
        }
        let unread = layout.unread.iter().find(|(dir, _)| strip_dir(&rel, dir).is_some());
        let folder = match unread {
            Some((dir, _)) => dir.clone(),
            None => rel.split_once('/').map_or("", |(top, _)| top).to_owned(),
        };
        *counts.entry(folder).or_default() += 1;
        // Inside a plugin the host reads, the plugin's manifest says which folders hold its
        // skills: another `SKILL.md` of it is one the host does not load either.
        let in_plugin = layout
            .hosts
            .iter()
            .flat_map(|f| f.read.roots.iter())
            .any(|(_, dir)| strip_dir(&rel, dir).is_some());
        if name == "SKILL.md"
            && unread.is_none()
            && !in_plugin
            && !rel.split('/').any(|s| detect::SKIPPED.contains(&s))
        {
            skills.push(rel);
        }
    }
    let mut folders: Vec<(String, usize)> = counts.into_iter().collect();
    folders.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    skills.sort();
    let mut excluded: Vec<(String, usize)> = excluded.into_iter().collect();
    excluded.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    LeftOut { folders, skills, partial, excluded }
}

/// True for a file a person would call markdown: `.md`, `.mdx` and `.markdown`, in any case.
/// Wider than [`crate::catalog::is_markdown`] on purpose: a `.markdown` file is not read as a doc,
/// and that is exactly what the account of left-out files must tell.
fn written_as_markdown(name: &str) -> bool {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e).to_ascii_lowercase();
    matches!(ext.as_str(), "md" | "mdx" | "markdown")
}
