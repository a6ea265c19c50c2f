//! The pages of skills: a skill (its facts, its file tree and its SKILL.md rendered) and one of
//! its files (markdown rendered, scripts and other text highlighted, images shown, other bytes
//! offered for download).
//!
//! Each function returns the page's title and body (escaped HTML); `web` puts it in the frame.

use std::fmt::Write as _;

use super::View;
use super::highlight::{highlight, language_of_path};
use super::html::{escape, size, tags};
use super::markdown::{self, Context};
use super::pages::{backlinks_html, facts_html, links_html, outline_html};
use crate::catalog::{Link, Section, Skill, SkillFile};

/// A skill: facts from its frontmatter, its files, SKILL.md rendered, links out and backlinks.
pub(crate) fn skill(view: &View<'_>, skill: &Skill) -> (String, String) {
    let catalog = view.catalog;
    let outline: &[Section] = skill.outline.get().map(Vec::as_slice).unwrap_or(&[]);
    let links: &[Link] = skill.links.get().map(Vec::as_slice).unwrap_or(&[]);
    let backlinks: &[String] = skill.backlinks.get().map(Vec::as_slice).unwrap_or(&[]);
    let mut out = String::from(
        "<nav class=\"crumbs\"><a href=\"/\">Index</a> / <a href=\"/#skills\">skills</a></nav>\n",
    );
    let _ = writeln!(
        out,
        "<header class=\"skill\"><h1>{}</h1><p class=\"lead\">{}</p></header>",
        escape(&skill.name),
        escape(&skill.description)
    );
    out.push_str("<div class=\"entry\">\n<article>\n");
    if let Some(entry) = catalog.entries.get(skill.document as usize) {
        let cx = Context { catalog, sitemap: view.sitemap, path: &entry.path, outline, links };
        out.push_str(&markdown::render(&cx, entry.text().unwrap_or("")));
    }
    out.push_str("</article>\n<aside>\n");
    let mut facts = vec![("path", escape(&skill.path))];
    if !skill.tags.is_empty() {
        facts.push(("tags", tags(&skill.tags)));
    }
    for (name, value) in [
        ("license", &skill.license),
        ("compatibility", &skill.compatibility),
        ("allowed tools", &skill.allowed_tools),
        ("version", &skill.version),
        ("updated", &skill.updated),
    ] {
        if let Some(value) = value {
            facts.push((name, escape(value)));
        }
    }
    for (key, value) in &skill.metadata {
        facts.push(("metadata", format!("{}: {}", escape(key), escape(value))));
    }
    out.push_str(&facts_html(&facts));
    out.push_str("<h2>Files</h2>\n");
    out.push_str(&file_tree(view, skill, None));
    out.push_str(&outline_html(outline));
    out.push_str(&links_html(view, links));
    out.push_str(&backlinks_html(view, backlinks));
    out.push_str("</aside>\n</div>\n");
    (skill.name.clone(), out)
}

/// The files of `skill` as a tree of folders, SKILL.md first; `current` is marked.
fn file_tree(view: &View<'_>, skill: &Skill, current: Option<&str>) -> String {
    let mut out = String::from("<ul class=\"tree\">\n");
    let mark = |rel: &str| if current == Some(rel) { " aria-current=\"page\"" } else { "" };
    let _ = writeln!(
        out,
        "<li><a href=\"{}\"{}>SKILL.md</a></li>",
        escape(view.sitemap.page(skill.document)),
        if current.is_none() { " aria-current=\"page\"" } else { "" }
    );
    let mut open: Vec<&str> = Vec::new();
    for file in &skill.files {
        let parts: Vec<&str> = file.rel_path.split('/').collect();
        let (name, dirs) = parts.split_last().unwrap_or((&"", &[]));
        let common = open.iter().zip(dirs.iter()).take_while(|(a, b)| a == b).count();
        while open.len() > common {
            open.pop();
            out.push_str("</ul></li>\n");
        }
        for dir in &dirs[common..] {
            let _ = writeln!(out, "<li class=\"dir\">{}/<ul>", escape(dir));
            open.push(dir);
        }
        let entry_size = view.catalog.entries.get(file.entry as usize).map_or(0, |e| e.size);
        let _ = writeln!(
            out,
            "<li><a href=\"{}\"{}>{}</a> <small>{}</small></li>",
            escape(view.sitemap.page(file.entry)),
            mark(&file.rel_path),
            escape(name),
            size(entry_size)
        );
    }
    for _ in open {
        out.push_str("</ul></li>\n");
    }
    out.push_str("</ul>\n");
    out
}

/// One file of a skill.
pub(crate) fn file(view: &View<'_>, skill: &Skill, file: &SkillFile) -> (String, String) {
    let catalog = view.catalog;
    let mut out = format!(
        "<nav class=\"crumbs\"><a href=\"/\">Index</a> / <a href=\"/#skills\">skills</a> / <a href=\"{}\">{}</a> / {}</nav>\n",
        escape(view.sitemap.page(skill.document)),
        escape(&skill.name),
        escape(&file.rel_path)
    );
    let Some(entry) = catalog.entries.get(file.entry as usize) else {
        return (file.rel_path.clone(), out);
    };
    let raw = format!("/raw{}", view.sitemap.page(file.entry));
    out.push_str("<div class=\"entry\">\n<article>\n");
    let is_markdown = crate::catalog::is_markdown(&file.rel_path);
    let mut outline: Vec<Section> = Vec::new();
    match entry.text() {
        Some(text) if is_markdown => {
            // Reference files carry no outline in the catalog: their ids are worked out the
            // compiler's way here, so their `#anchors` work.
            let body = crate::catalog::search::written_body_of(&entry.path, text);
            let first_line = text[..text.len() - body.len()].matches('\n').count() as u32 + 1;
            let dialect = crate::compile::markdown::Dialect::of(&entry.path);
            outline = crate::compile::markdown::analyze_in(body, first_line, dialect).sections;
            let cx =
                Context { catalog, sitemap: view.sitemap, path: &entry.path, outline: &outline, links: &[] };
            out.push_str(&markdown::render(&cx, text));
        }
        Some(text) => {
            let lang = language_of_path(&file.rel_path);
            let _ = writeln!(
                out,
                "<h1>{}</h1>\n<pre class=\"file\"><code class=\"language-{}\">{}</code></pre>",
                escape(&file.rel_path),
                escape(lang),
                highlight(text, lang)
            );
        }
        None if entry.mime.starts_with("image/") => {
            let _ = writeln!(
                out,
                "<h1>{}</h1>\n<p><img src=\"{}\" alt=\"{}\"></p>",
                escape(&file.rel_path),
                escape(&raw),
                escape(&file.rel_path)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "<h1>{}</h1>\n<p class=\"empty\">A binary file ({}, {}).</p>",
                escape(&file.rel_path),
                escape(&entry.mime),
                size(entry.size)
            );
        }
    }
    out.push_str("</article>\n<aside>\n");
    let facts = [
        ("type", escape(&entry.mime)),
        ("size", size(entry.size)),
        ("sha256", escape(entry.sha256.as_deref().unwrap_or(""))),
    ];
    out.push_str(&facts_html(&facts));
    out.push_str("<h2>Files</h2>\n");
    out.push_str(&file_tree(view, skill, Some(&file.rel_path)));
    out.push_str(&outline_html(&outline));
    out.push_str(&backlinks_html(view, &view.backlinks_of(file.entry)));
    let _ = writeln!(out, "<p><a href=\"{}\">Raw file</a></p>", escape(&raw));
    out.push_str("</aside>\n</div>\n");
    (format!("{} · {}", skill.name, file.rel_path), out)
}
