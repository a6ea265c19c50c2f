//! The consistency check a decoded catalog passes before anything reads it: every index one
//! table holds into another is in range and points at the right kind of record, and every table
//! a reader binary-searches is sorted.
//!
//! The integrity hash proves only that the body is the one its envelope names, and anyone who
//! edits a catalog can recompute it. A catalog from elsewhere is therefore untrusted input: the
//! codec runs [`check`] on every catalog it decodes, so the query layer may index with what it
//! checked here and never panics on a forged file.
//!
//! What is checked stays cheap: one pass over the tables, no allocation, nothing decoded that
//! opening would not decode anyway. Entry bodies are not rescanned and the lazily decoded fields
//! (outlines, links, backlinks, frontmatter) are not decoded here; their readers treat what they
//! find as untrusted (a section's line range is checked against the file when it is read). The
//! search index's tables are checked with its hash when it is first used
//! ([`super::search::SearchIndex::verify`]), not here: its bytes are not read at open, and its
//! postings are decoded defensively by its reader.
//!
//! Names in its messages come from the file, so they are shown escaped and cut short.
//!
//! Performs no IO.

use super::{Catalog, EntryKind};

/// Checks `catalog`'s cross-references and orders. `Err` says what is wrong, as a sentence
/// fragment naming the record (lowercase, no trailing period).
pub(crate) fn check(catalog: &Catalog) -> Result<(), String> {
    let entries = &catalog.entries;
    if let Some(w) = entries.windows(2).find(|w| w[0].uri >= w[1].uri) {
        let what = if w[0].uri == w[1].uri { "twice" } else { "out of order" };
        return Err(format!("entry `{}` is listed {what}", shown(&w[1].uri)));
    }
    // The index of `what`'s entry, checked to be in range and of `kind`.
    let entry = |index: u32, kind: EntryKind, what: &dyn Fn() -> String| {
        let Some(entry) = entries.get(index as usize) else {
            return Err(format!(
                "{} points at entry {index}, but the catalog has {} entries",
                what(),
                entries.len()
            ));
        };
        if entry.kind != kind {
            return Err(format!(
                "{} points at `{}`, which is a {}, not a {}",
                what(),
                shown(&entry.uri),
                entry.kind.as_str(),
                kind.as_str()
            ));
        }
        Ok(entry)
    };
    if let Some(w) = catalog.docs.windows(2).find(|w| w[0].path >= w[1].path) {
        return Err(format!("doc `{}` is listed twice or out of order", shown(&w[1].path)));
    }
    for doc in &catalog.docs {
        let found = entry(doc.entry, EntryKind::Doc, &|| format!("doc `{}`", shown(&doc.path)))?;
        if !names_file(&found.path, &doc.path) {
            return Err(format!(
                "doc `{}` points at the bytes of `{}`",
                shown(&doc.path),
                shown(&found.path)
            ));
        }
    }
    if let Some(w) = catalog.skills.windows(2).find(|w| w[0].path >= w[1].path) {
        return Err(format!("skill `{}` is listed twice or out of order", shown(&w[1].path)));
    }
    for skill in &catalog.skills {
        let what = || format!("skill `{}`", shown(&skill.path));
        let document = entry(skill.document, EntryKind::SkillDocument, &what)?;
        if !names_file(&document.path, "SKILL.md") {
            return Err(format!("{} points at the bytes of `{}`", what(), shown(&document.path)));
        }
        for file in &skill.files {
            let what = || format!("file `{}` of skill `{}`", shown(&file.rel_path), shown(&skill.path));
            let found = entry(file.entry, EntryKind::SkillFile, &what)?;
            if !names_file(&found.path, &file.rel_path) {
                return Err(format!("{} points at the bytes of `{}`", what(), shown(&found.path)));
            }
        }
    }
    match catalog.vectors.as_ref().and_then(|v| v.inconsistency(entries.len())) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// Most characters of a name from the catalog a message shows.
pub(crate) const SHOWN_CHARS: usize = 120;

/// A name read from the catalog, as a message shows it: control characters escaped (a forged
/// name must not drive the terminal it is printed on) and cut to [`SHOWN_CHARS`] characters.
pub(crate) fn shown(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if i == SHOWN_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// True when the content path `path` is the file `tail` names (`docs/guides/x.md` and
/// `guides/x.md`): it ends with `/` and then `tail`.
fn names_file(path: &str, tail: &str) -> bool {
    path.strip_suffix(tail).is_some_and(|head| head.ends_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_shown_escaped_and_cut() {
        assert_eq!(shown("docs/a.md"), "docs/a.md");
        assert_eq!(shown("a\u{1b}[31mred\n\0"), "a\\u{1b}[31mred\\n\\u{0}");
        let long = "é".repeat(500);
        assert_eq!(shown(&long), format!("{}…", "é".repeat(SHOWN_CHARS)));
    }
}
