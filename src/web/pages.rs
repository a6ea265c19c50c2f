//! The pages of docs: the index of everything (skills, then docs by locale and folder), a folder
//! of docs, and a doc with its sections, the links out of it and the pages that link to it.
//!
//! Each function returns the page's title and body (escaped HTML); `web` puts it in the frame.
//! Reads the catalog through [`View`]; must not touch the network or the file system.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use rustc_hash::FxHashSet;

use super::View;
use super::html::{escape, size, tags};
use super::markdown::{self, Context};
use super::sitemap::Sitemap;
use crate::catalog::{Doc, Link, LinkKind, Section};

/// The index: the catalog's skills, then its docs by locale and top folder.
pub(crate) fn index(view: &View<'_>) -> (String, String) {
    let catalog = view.catalog;
    let settings = &catalog.settings;
    let mut out = format!("<h1>{}</h1>\n", escape(&settings.title));
    if !settings.description.is_empty() {
        let _ = writeln!(out, "<p class=\"lead\">{}</p>", escape(&settings.description));
    }
    let _ = writeln!(out, "<section id=\"skills\">\n<h2>Skills <small>{}</small></h2>", catalog.skills.len());
    if catalog.skills.is_empty() {
        out.push_str("<p class=\"empty\">This catalog has no skills.</p>\n");
    } else {
        out.push_str("<ul class=\"cards\">\n");
        for skill in &catalog.skills {
            let tag_spans = tags(&skill.tags);
            let files = skill.files.len() + 1;
            let _ = writeln!(
                out,
                "<li><a class=\"name\" href=\"{}\">{}</a><p>{}</p><p class=\"meta\">{tag_spans}<span>{files} {}</span></p></li>",
                escape(view.sitemap.page(skill.document)),
                escape(&skill.name),
                escape(&skill.description),
                if files == 1 { "file" } else { "files" },
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
    let _ = writeln!(out, "<section id=\"docs\">\n<h2>Docs <small>{}</small></h2>", catalog.docs.len());
    if catalog.docs.is_empty() {
        out.push_str("<p class=\"empty\">This catalog has no docs.</p>\n");
    }
    let mut by_locale: BTreeMap<&str, Vec<&Doc>> = BTreeMap::new();
    for doc in &catalog.docs {
        by_locale.entry(doc.locale.as_str()).or_default().push(doc);
    }
    let several = by_locale.len() > 1;
    // The default locale first, the others in tag order.
    let mut locales: Vec<&str> = by_locale.keys().copied().collect();
    locales.sort_by_key(|l| (*l != settings.default_locale, *l));
    for locale in locales {
        if several {
            let _ = writeln!(
                out,
                "<h3 lang=\"{0}\">{0} <small>{1}</small></h3>",
                escape(locale),
                by_locale[locale].len()
            );
        }
        out.push_str(&folder_listing(view.sitemap, &by_locale[locale], ""));
    }
    out.push_str("</section>\n");
    if !settings.left_out.is_empty() {
        out.push_str("<section id=\"left-out\">\n<h2>Left out</h2>\n<p>These entries have errors of their own and are not served:</p>\n<ul>\n");
        for left in &settings.left_out {
            let _ = writeln!(
                out,
                "<li><code>{}</code><ul>{}</ul></li>",
                escape(&left.path),
                left.reasons.iter().map(|r| format!("<li>{}</li>", escape(r))).collect::<String>()
            );
        }
        out.push_str("</ul>\n</section>\n");
    }
    (settings.title.clone(), out)
}

/// The folder `folder` of docs (relative to `docs/`): its subfolders and its docs.
pub(crate) fn folder(view: &View<'_>, folder: &str) -> (String, String) {
    let docs: Vec<&Doc> = view.catalog.docs.iter().collect();
    let mut out = breadcrumb(folder, true);
    let _ = writeln!(out, "<h1>{}/</h1>", escape(folder));
    out.push_str(&folder_listing(view.sitemap, &docs, folder));
    (format!("{folder}/"), out)
}

/// The subfolders of `folder` among `docs` (with how many docs each holds) and the docs directly
/// in it.
fn folder_listing(sitemap: &Sitemap, docs: &[&Doc], folder: &str) -> String {
    let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
    let mut folders: BTreeMap<&str, usize> = BTreeMap::new();
    let mut here: Vec<&Doc> = Vec::new();
    for doc in docs {
        let Some(rest) = doc.path.strip_prefix(prefix.as_str()) else { continue };
        match rest.split_once('/') {
            Some((sub, _)) => *folders.entry(sub).or_default() += 1,
            None => here.push(doc),
        }
    }
    let mut out = String::new();
    if !folders.is_empty() {
        out.push_str("<ul class=\"folders\">\n");
        for (sub, n) in &folders {
            let _ = writeln!(
                out,
                "<li><a href=\"/docs/{}/\">{}/</a> <small>{n} {}</small></li>",
                escape(&crate::catalog::uri::encode_path(&format!("{prefix}{sub}"))),
                escape(sub),
                if *n == 1 { "doc" } else { "docs" }
            );
        }
        out.push_str("</ul>\n");
    }
    if !here.is_empty() {
        out.push_str("<ul class=\"docs\">\n");
        for doc in here {
            let _ = writeln!(
                out,
                "<li><a href=\"{}\">{}</a> <small>{}</small><p>{}</p></li>",
                escape(sitemap.page(doc.entry)),
                escape(&doc.title),
                escape(&doc.path),
                escape(&doc.description)
            );
        }
        out.push_str("</ul>\n");
    }
    out
}

/// `docs / a / b` for the folder `path` (or the folders of the doc `path`).
fn breadcrumb(path: &str, is_folder: bool) -> String {
    let mut out = String::from("<nav class=\"crumbs\"><a href=\"/\">Index</a> / <a href=\"/docs/\">docs</a>");
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let folders = if is_folder { parts.len() } else { parts.len().saturating_sub(1) };
    for i in 0..folders {
        let _ = write!(
            out,
            " / <a href=\"/docs/{}/\">{}</a>",
            escape(&crate::catalog::uri::encode_path(&parts[..=i].join("/"))),
            escape(parts[i])
        );
    }
    out.push_str("</nav>\n");
    out
}

/// A doc: its body, sections, facts, translations, links out and backlinks.
pub(crate) fn doc(view: &View<'_>, doc: &Doc) -> (String, String) {
    let catalog = view.catalog;
    let Some(entry) = catalog.entries.get(doc.entry as usize) else {
        return (
            doc.title.clone(),
            "<p class=\"empty\">This entry is missing from the catalog.</p>".to_owned(),
        );
    };
    let outline: &[Section] = doc.outline.get().map(Vec::as_slice).unwrap_or(&[]);
    let links: &[Link] = doc.links.get().map(Vec::as_slice).unwrap_or(&[]);
    let backlinks: &[String] = doc.backlinks.get().map(Vec::as_slice).unwrap_or(&[]);
    let mut out = breadcrumb(&doc.path, false);
    out.push_str("<div class=\"entry\">\n<article>\n");
    let text = entry.text().unwrap_or("");
    let cx = Context { catalog, sitemap: view.sitemap, path: &entry.path, outline, links };
    out.push_str(&markdown::render(&cx, text));
    out.push_str("</article>\n<aside>\n");
    let mut facts =
        vec![("path", escape(&doc.path)), ("locale", escape(&doc.locale)), ("size", size(entry.size))];
    if !doc.tags.is_empty() {
        facts.push(("tags", tags(&doc.tags)));
    }
    if let Some(updated) = &doc.updated {
        facts.push(("updated", escape(updated)));
    }
    if let Some(category) = &doc.category {
        facts.push(("category", escape(category)));
    }
    out.push_str(&facts_html(&facts));
    let translations: Vec<&Doc> = catalog
        .docs
        .iter()
        .filter(|d| d.translation_key == doc.translation_key && d.path != doc.path)
        .collect();
    if !translations.is_empty() {
        out.push_str("<h2>Translations</h2>\n<ul class=\"plain\">\n");
        for t in translations {
            let _ = writeln!(
                out,
                "<li><a href=\"{}\" lang=\"{}\">{} · {}</a></li>",
                escape(view.sitemap.page(t.entry)),
                escape(&t.locale),
                escape(&t.locale),
                escape(&t.title)
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str(&outline_html(outline));
    out.push_str(&links_html(view, links));
    out.push_str(&backlinks_html(view, backlinks));
    let _ = writeln!(out, "<p><a href=\"/raw{}\">Source</a></p>", escape(view.sitemap.page(doc.entry)));
    out.push_str("</aside>\n</div>\n");
    (doc.title.clone(), out)
}

/// A definition list of facts whose values are HTML already.
pub(crate) fn facts_html(facts: &[(&str, String)]) -> String {
    let mut out = String::from("<dl class=\"facts\">\n");
    for (name, value) in facts {
        let _ = writeln!(out, "<dt>{name}</dt><dd>{value}</dd>");
    }
    out.push_str("</dl>\n");
    out
}

/// "On this page": the sections below the title.
pub(crate) fn outline_html(outline: &[Section]) -> String {
    let shown: Vec<&Section> = outline.iter().filter(|s| (2..=3).contains(&s.level)).collect();
    if shown.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>On this page</h2>\n<ul class=\"outline\">\n");
    for s in shown {
        let _ = writeln!(
            out,
            "<li class=\"l{}\"><a href=\"#{}\">{}</a></li>",
            s.level,
            escape(&s.id),
            escape(&s.title)
        );
    }
    out.push_str("</ul>\n");
    out
}

/// The links out of an entry: to pages of the catalog (by title), broken ones, and sites
/// elsewhere, each once.
pub(crate) fn links_html(view: &View<'_>, links: &[Link]) -> String {
    let mut inside: BTreeMap<String, String> = BTreeMap::new();
    let mut broken: Vec<&Link> = Vec::new();
    let mut outside: Vec<&str> = Vec::new();
    let mut seen_outside: FxHashSet<&str> = FxHashSet::default();
    for link in links {
        match (&link.resolved, link.kind) {
            (Some(uri), _) => {
                if let Some(page) = view.sitemap.page_of_uri(view.catalog, uri) {
                    inside.entry(page).or_insert_with(|| view.title_of_uri(uri));
                }
            }
            (None, LinkKind::External) => {
                if seen_outside.insert(&link.target) {
                    outside.push(&link.target);
                }
            }
            (None, LinkKind::Anchor) => {}
            (None, _) => broken.push(link),
        }
    }
    if inside.is_empty() && broken.is_empty() && outside.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>Links out</h2>\n<ul class=\"plain links-out\">\n");
    for (page, title) in &inside {
        let _ = writeln!(out, "<li><a href=\"{}\">{}</a></li>", escape(page), escape(title));
    }
    for link in broken {
        let _ = writeln!(
            out,
            "<li><span class=\"broken\" title=\"not in this catalog (a broken link, or a file the catalog does not hold)\">{}</span> <small>line {}</small></li>",
            escape(&link.target),
            link.line
        );
    }
    for target in outside {
        let shown =
            if target.starts_with("http:") || target.starts_with("https:") || target.starts_with("mailto:") {
                format!("<a class=\"external\" href=\"{0}\" rel=\"noreferrer\">{0}</a>", escape(target))
            } else {
                escape(target)
            };
        let _ = writeln!(out, "<li>{shown}</li>");
    }
    out.push_str("</ul>\n");
    out
}

/// "Linked from": the entries whose links lead here.
pub(crate) fn backlinks_html(view: &View<'_>, backlinks: &[String]) -> String {
    if backlinks.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>Linked from</h2>\n<ul class=\"plain backlinks\">\n");
    for uri in backlinks {
        if let Some(page) = view.sitemap.page_of_uri(view.catalog, uri) {
            let _ = writeln!(
                out,
                "<li><a href=\"{}\">{}</a></li>",
                escape(&page),
                escape(&view.title_of_uri(uri))
            );
        }
    }
    out.push_str("</ul>\n");
    out
}
