//! The forms a written link target takes and the tree paths it may mean: case and wiki keys,
//! page candidates (`x/` → `x.md`, `x/index.md`, …), joining against a base, percent-decoding,
//! rewriting a target with a fix, and the edit distance behind did-you-mean.
//!
//! Pure string work: no tables, no diagnostics.

use std::borrow::Cow;

/// A did-you-mean for a path: the new last segment.
pub(super) struct Suggestion {
    pub(super) leaf: String,
    pub(super) is_dir: bool,
}

/// Exactly `s.to_lowercase()`, borrowed when that is `s` itself (ASCII without uppercase). Exact,
/// not just "no uppercase letter" (a titlecase `ǅ` lowercases too), because the index's keys
/// are matched against the lowercase form of what a link says.
pub(super) fn lowercase(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.to_lowercase())
    }
}

/// The key of a site path among aliases: without surrounding slashes, lowercase (Hugo serves
/// lowercase URLs).
pub(super) fn alias_key(path: &str) -> String {
    path.trim_matches('/').to_lowercase()
}

/// How a doc is named in a wiki link: relative to `docs/`, without a page extension.
pub(super) fn wiki_display(path: &str) -> String {
    let rel = path.strip_prefix("docs/").unwrap_or(path);
    strip_page_ext(rel).to_owned()
}

/// The case- and separator-insensitive key of a wiki target: lowercase, `_` and space read as
/// `-`, a page extension dropped; borrowed when that leaves the text as it is.
pub(super) fn wiki_key(s: &str) -> Cow<'_, str> {
    let stem = strip_page_ext(s.trim());
    if stem.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase() && b != b'_' && b != b' ') {
        return Cow::Borrowed(stem);
    }
    Cow::Owned(stem.to_lowercase().chars().map(|c| if c == '_' || c == ' ' { '-' } else { c }).collect())
}

pub(super) fn is_page(path: &str) -> bool {
    path.ends_with(".md") || path.ends_with(".mdx")
}

pub(super) fn strip_page_ext(s: &str) -> &str {
    s.strip_suffix(".md").or_else(|| s.strip_suffix(".mdx")).unwrap_or(s)
}

/// A file or directory name without a page extension, for comparing names.
pub(super) fn page_stem(name: &str) -> &str {
    strip_page_ext(name)
}

pub(super) fn parent(path: &str) -> Option<&str> {
    path.rsplit_once('/').map(|(dir, _)| dir)
}

pub(super) fn is_inside(path: &str, dir: &str) -> bool {
    path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
}

pub(super) fn to_path(segments: &[&str]) -> String {
    segments.join("/")
}

/// Joins written segments onto a base directory, applying `.` and `..`; `None` when `..` climbs
/// above the content root.
pub(super) fn join<'a>(base: &[&'a str], written: &[&'a str]) -> Option<Vec<&'a str>> {
    let mut out: Vec<&str> = base.to_vec();
    for segment in written {
        match *segment {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out)
}

/// The files a path may name, most specific first (see the module docs). The first three are the
/// ones a broken-link message names.
pub(super) fn candidates(path: &str, trailing_slash: bool) -> Vec<String> {
    candidate_forms(path, trailing_slash).map(|(stem, suffix)| format!("{stem}{suffix}")).collect()
}

/// [`candidates`] without allocating: each as a prefix of `path` and a suffix to append.
pub(super) fn candidate_forms(
    path: &str,
    trailing_slash: bool,
) -> impl Iterator<Item = (&str, &'static str)> {
    let mut forms = [("", ""); 8];
    let mut n = 0;
    let mut add = |stem, suffix| {
        forms[n] = (stem, suffix);
        n += 1;
    };
    let leaf = path.rsplit('/').next().unwrap_or(path);
    let html = leaf.strip_suffix(".html").or_else(|| leaf.strip_suffix(".htm"));
    match html {
        Some(stem_leaf) if !trailing_slash => {
            let stem = &path[..path.len() - leaf.len() + stem_leaf.len()];
            add(path, "");
            add(stem, ".md");
            add(stem, ".mdx");
            // `x/index.html` is the page of the folder `x/`, whichever index file it has
            // (mdBook renders `README.md` as `index.html`).
            if stem_leaf == "index" {
                let dir = &path[..path.len() - leaf.len()];
                add(dir, "README.md");
                add(dir, "_index.md");
            }
        }
        _ if !trailing_slash && leaf.contains('.') => add(path, ""),
        _ => {
            add(path, ".md");
            add(path, "/index.md");
            add(path, "/_index.md");
            if !trailing_slash {
                // A file without an extension is the rare case, so it is not named in messages.
                add(path, "");
            }
            add(path, "/README.md");
            add(path, "/index.mdx");
            add(path, "/_index.mdx");
            add(path, ".mdx");
        }
    }
    forms.into_iter().take(n)
}

/// `a`, `b` or `c` (at most `max` items, `…` when there are more).
pub(super) fn list_or(items: &[String], max: usize) -> String {
    let shown: Vec<String> = items.iter().take(max).map(|i| format!("`{i}`")).collect();
    match shown.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The written target with its path spelled like `actual`, which differs only in case from the
/// path the link named (joined from `base` and the written segments).
pub(super) fn fix_case(target: &str, base: &[&str], written: &[&str], actual: &str) -> String {
    // Rebuild the join, remembering which output segment came from which written segment.
    let mut out: Vec<Option<usize>> = base.iter().map(|_| None).collect();
    for (i, segment) in written.iter().enumerate() {
        match *segment {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            _ => out.push(Some(i)),
        }
    }
    let actual: Vec<&str> = actual.split('/').collect();
    let mut fixed: Vec<String> = written.iter().map(|s| (*s).to_owned()).collect();
    for (pos, origin) in out.iter().enumerate() {
        if let (Some(i), Some(real)) = (origin, actual.get(pos))
            && real.eq_ignore_ascii_case(written[*i])
        {
            fixed[*i] = (*real).to_owned();
        }
    }
    // `actual` may be longer (`x/` → `x/index.md`); the written part is what the author fixes.
    let path_end = target.find(['?', '#']).unwrap_or(target.len());
    format!("{}{}", fixed.join("/"), &target[path_end..])
}

/// The written target with its last path segment replaced by a suggestion, keeping the author's
/// style: a trailing slash, an extension or none, the query and fragment.
pub(super) fn rewrite_leaf(target: &str, suggestion: &Suggestion) -> String {
    let path_end = target.find(['?', '#']).unwrap_or(target.len());
    let (path, rest) = target.split_at(path_end);
    let trimmed = path.trim_end_matches('/');
    let slash = &path[trimmed.len()..];
    let (dir, leaf) = trimmed.rsplit_once('/').map_or(("", trimmed), |(d, l)| (d, l));
    let new_leaf = if suggestion.is_dir || !leaf.contains('.') {
        page_stem(&suggestion.leaf).to_owned()
    } else {
        suggestion.leaf.clone()
    };
    let sep = if trimmed.contains('/') { "/" } else { "" };
    format!("{dir}{sep}{new_leaf}{slash}{rest}")
}

pub(super) use crate::suggest::closest;

/// Decodes `%XX` escapes once. Invalid escapes stay as written; a result that is not UTF-8
/// leaves the whole input as written.
pub(super) fn percent_decode(s: &str) -> Cow<'_, str> {
    percent_encoding::percent_decode_str(s).decode_utf8().unwrap_or(Cow::Borrowed(s))
}

/// The site path an `aliases` entry redirects from: one without a leading `/` is relative to
/// the folder of the page's own path, as Hugo reads it (`renderAliases`: the page's link, `..`,
/// then the alias), so `aliases: [old]` of `docs/blog/2023/new.md` is `/blog/2023/old`.
pub(crate) fn page_alias(alias: &str, path: &str) -> String {
    if alias.starts_with('/') || alias.contains("://") {
        return alias.to_owned();
    }
    let rel = path.strip_prefix("docs/").unwrap_or(path);
    let stem = rel.rsplit_once('.').map_or(rel, |(stem, _)| stem);
    let page = ["/_index", "/index"].iter().find_map(|s| stem.strip_suffix(s)).unwrap_or(stem);
    let page = if matches!(page, "_index" | "index") { "" } else { page };
    let mut parts: Vec<&str> = page.split('/').filter(|s| !s.is_empty()).collect();
    parts.pop();
    for part in alias.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod alias_tests {
    use super::page_alias;

    #[test]
    fn a_relative_alias_is_read_from_the_folder_of_the_page() {
        assert_eq!(page_alias("docsy-0.7", "docs/blog/2023/0.7.x.md"), "/blog/2023/docsy-0.7");
        assert_eq!(page_alias("../readme", "docs/project/about/readme.md"), "/project/readme");
        assert_eq!(page_alias("old", "docs/guide/_index.md"), "/old");
        assert_eq!(page_alias("old", "docs/guide/bundle/index.md"), "/guide/old");
        assert_eq!(page_alias("/abs/x/", "docs/a/b.md"), "/abs/x/");
    }
}
