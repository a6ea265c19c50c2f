//! `llms.txt` and `llms-full.txt` (the format of <https://llmstxt.org>) of a catalog: what
//! `folio build` writes beside `catalog.msgpack`, and what `serve --http` and `browse` answer at
//! `/llms.txt` and `/llms-full.txt`.
//!
//! `llms.txt`: an H1 with the catalog's title, a blockquote with its description, then one H2
//! section per folder of docs (`Docs` for the root of `docs/`, else the folder's path) and one
//! for skills, each a list of `- [title](url): description`. `llms-full.txt`: the same heading
//! and summary, then every doc and `SKILL.md` in full (without frontmatter), each under an H2 of
//! its title with the URL it was read from.
//!
//! Links are relative to where the file is served: `raw/docs/<path>` and `raw/skills/<name>/`,
//! the addresses at which `folio browse` answers a page's exact markdown.
//!
//! Must not: read the file system or depend on anything but the catalog (the same catalog gives
//! the same bytes), or put a line break inside a title or description.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::catalog::Catalog;
use crate::catalog::uri::encode_path;

/// The `llms.txt` of `catalog`.
pub fn llms_txt(catalog: &Catalog) -> String {
    let mut out = heading(catalog);
    let mut folders: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, doc) in catalog.docs.iter().enumerate() {
        let folder = doc.path.rsplit_once('/').map_or("", |(folder, _)| folder);
        folders.entry(folder).or_default().push(i);
    }
    for (folder, docs) in &folders {
        let _ = writeln!(out, "\n## {}\n", if folder.is_empty() { "Docs" } else { folder });
        for &i in docs {
            let doc = &catalog.docs[i];
            link(&mut out, &doc.title, &doc_url(&doc.path), &doc.description);
        }
    }
    if !catalog.skills.is_empty() {
        out.push_str("\n## Skills\n\n");
        for skill in &catalog.skills {
            link(&mut out, &skill.name, &skill_url(&skill.name), &skill.description);
        }
    }
    out
}

/// The `llms-full.txt` of `catalog`: every doc, then every skill's `SKILL.md`, in full.
pub fn llms_full_txt(catalog: &Catalog) -> String {
    let mut out = heading(catalog);
    let text = |entry: u32| -> &str {
        let text = catalog.entries.get(entry as usize).and_then(|e| e.text()).unwrap_or("");
        crate::catalog::fence::body(text).trim()
    };
    for doc in &catalog.docs {
        let _ = write!(
            out,
            "\n## {}\n\nSource: {}\n\n{}\n",
            one_line(&doc.title),
            doc_url(&doc.path),
            text(doc.entry)
        );
    }
    for skill in &catalog.skills {
        let _ = write!(
            out,
            "\n## Skill: {}\n\nSource: {}\n\n{}\n\n{}\n",
            one_line(&skill.name),
            skill_url(&skill.name),
            one_line(&skill.description),
            text(skill.document)
        );
    }
    out
}

/// `# Title`, then `> description` when there is one.
fn heading(catalog: &Catalog) -> String {
    let settings = &catalog.settings;
    let title = one_line(if settings.title.is_empty() { &settings.name } else { &settings.title });
    let mut out = format!("# {title}\n");
    let summary = one_line(&settings.description);
    if !summary.is_empty() {
        let _ = writeln!(out, "\n> {summary}");
    }
    out
}

/// `- [title](url): description` (without `: description` when there is none).
fn link(out: &mut String, title: &str, url: &str, description: &str) {
    let title = one_line(title).replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]");
    let description = one_line(description);
    if description.is_empty() {
        let _ = writeln!(out, "- [{title}]({url})");
    } else {
        let _ = writeln!(out, "- [{title}]({url}): {description}");
    }
}

fn doc_url(path: &str) -> String {
    link_safe(&format!("raw/docs/{}", encode_path(path)))
}

fn skill_url(name: &str) -> String {
    link_safe(&format!("raw/skills/{}/", encode_path(name)))
}

/// A URL that cannot end a markdown link early: parentheses and spaces percent-encoded.
fn link_safe(url: &str) -> String {
    url.replace('(', "%28").replace(')', "%29").replace(' ', "%20")
}

/// `text` on one line, its runs of whitespace (line breaks included) as one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
