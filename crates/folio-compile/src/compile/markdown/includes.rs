//! What a site generator pulls into a page when it builds it, beyond Hugo's shortcodes (`hugo`):
//! mdBook's `{{#include path}}` (and `#rustdoc_include`), VitePress's `<!--@include: path-->`,
//! and PyMdown Snippets' `--8<-- "path"` (MkDocs). Each is a link marked `include`: the resolver
//! checks it, counts the file as linked, and lends its headings to the page. A plugin directive
//! that writes a page's content at build time (`::: module.path`, mkdocstrings and
//! mkdocs-click) makes the page's headings unknowable ([`generates_content`]).
//!
//! Pure; no IO. Must not expand anything: finding the paths is all.

use super::hugo::find_ascii;

/// The includes of a body, as (offset of the path, path, whether the path is relative to the
/// repository root rather than the page: a snippet's), in source order. A path's selector
/// (`file.rs:2:10`, `file.md{3,5}`, `file.md#region`, `file.md:anchor`) is not part of it.
pub(super) fn includes(text: &str) -> Vec<(usize, String, bool)> {
    let mut out = Vec::new();
    for (open, close) in [("{{#include ", "}}"), ("{{#rustdoc_include ", "}}"), ("<!--@include:", "-->")] {
        let mut search = 0;
        while let Some(rel) = find_ascii(&text[search..], open) {
            let start = search + rel + open.len();
            search = start;
            // `\{{#include x}}` is mdBook's escape: shown as written, not included.
            if text[..start - open.len()].ends_with('\\') {
                continue;
            }
            let Some(len) = find_ascii(&text[start..], close) else { break };
            let inner = &text[start..start + len];
            let lead = inner.len() - inner.trim_start().len();
            let path = inner.trim().split([':', '{', '#']).next().unwrap_or("").trim_end();
            if !path.is_empty() && !path.contains('\n') {
                // VitePress's `@/` is the source folder: a site-absolute path from `docs/`.
                let path = path.strip_prefix('@').filter(|p| p.starts_with('/')).unwrap_or(path);
                out.push((start + lead, path.to_owned(), false));
            }
        }
    }
    // Snippets: `--8<-- "path"` on a line of its own (a `;` before the quote marks a disabled one).
    let mut search = 0;
    while let Some(rel) = find_ascii(&text[search..], "--8<--") {
        let at = search + rel;
        search = at + 6;
        if text[..at].ends_with(';') {
            continue;
        }
        let rest = &text[search..];
        let line = rest.split('\n').next().unwrap_or("");
        let trimmed = line.trim_start();
        let Some(quote) = trimmed.chars().next().filter(|c| matches!(c, '"' | '\'')) else { continue };
        let value_start = search + (line.len() - trimmed.len()) + 1;
        let Some(len) = text[value_start..].split('\n').next().and_then(|l| l.find(quote)) else { continue };
        let path = text[value_start..value_start + len].split(':').next().unwrap_or("");
        if !path.is_empty() {
            out.push((value_start, path.to_owned(), true));
        }
    }
    out.sort_by_key(|(at, ..)| *at);
    out
}

/// True when a line of the body is a plugin directive that writes content into the page when
/// the site is built (`::: mkdocs.__main__`, `::: my_package.module`): the page has headings
/// Folio cannot see.
pub(super) fn generates_content(text: &str) -> bool {
    // Found with memchr's search, not a walk over every line: this runs on every page.
    let mut search = 0;
    std::iter::from_fn(|| {
        let at = search + find_ascii(&text[search..], "::: ")?;
        search = at + 4;
        Some(at)
    })
    .filter(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n')
    .any(|at| {
        let line = text[at..].split('\n').next().unwrap_or("");
        line.strip_prefix("::: ").is_some_and(|rest| {
            let name = rest.trim();
            !name.is_empty()
                && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | ':'))
                && name.contains(['.', '_', '-'])
        })
    })
}

/// attr_list's ids anywhere in a body (`{ #id }`, `{: #id .class }`, `{#id}`), with where each
/// is. Heading ids are read by the parser; these are the ids of other elements.
pub(super) fn attr_list_ids(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(rel) = text[search..].find('{') {
        let at = search + rel;
        search = at + 1;
        let Some(len) = text[at..].find('}') else { break };
        let inner = text[at + 1..at + len].trim_start();
        let inner = inner.strip_prefix(':').unwrap_or(inner).trim_start();
        if inner.contains('\n') {
            continue;
        }
        for word in inner.split_whitespace() {
            if let Some(id) = word.strip_prefix('#').filter(|id| !id.is_empty()) {
                out.push((at, id.to_owned()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_include_syntax_gives_its_path_and_where_it_is() {
        let text = "# A\n\n{{#include ../examples/x.rs:2:10}}\n\n<!--@include: ./parts/basics.md{3,}-->\n\n\
                    --8<-- \"CONTRIBUTING.md\"\n\n;--8<-- \"off.md\"\n{{#rustdoc_include y.rs:anchor}}\n\\{{#include shown.rs}}\n";
        let all = includes(text);
        let found: Vec<(&str, &str)> =
            all.iter().map(|(at, p, _)| (&text[*at..*at + p.len()], p.as_str())).collect();
        assert_eq!(
            found,
            [
                ("../examples/x.rs", "../examples/x.rs"),
                ("./parts/basics.md", "./parts/basics.md"),
                ("CONTRIBUTING.md", "CONTRIBUTING.md"),
                ("y.rs", "y.rs"),
            ]
        );
    }

    #[test]
    fn attr_list_ids_are_found_on_any_element() {
        let ids: Vec<String> =
            attr_list_ids("*   **`locale`**{ #mkdocs-locale }: x\n\nText {: #para .note }\n{ not an id }\n")
                .into_iter()
                .map(|(_, id)| id)
                .collect();
        assert_eq!(ids, ["mkdocs-locale", "para"]);
    }

    #[test]
    fn plugin_directives_generate_content_and_admonitions_do_not() {
        assert!(generates_content("# CLI\n\n::: mkdocs-click\n    :module: x\n"));
        assert!(generates_content("::: my_package.module\n"));
        assert!(!generates_content("::: tip\nhello\n:::\n"));
        assert!(!generates_content("text ::: a.b\n"));
    }
}
