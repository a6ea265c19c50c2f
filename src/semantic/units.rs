//! What is embedded: a catalog cut into units, each with the text the encoder reads.
//!
//! - every doc and every skill's `SKILL.md`: a **lead** unit (title, description and the text
//!   before the first heading; for a skill its name and description first) and one unit per
//!   section (the path of headings down to it, then its own text, up to the next heading of any
//!   level);
//! - every markdown file of a skill: one lead unit (its title and text).
//!
//! Text is read as search reads it (no frontmatter, MDX imports and JSX blanked); link
//! destinations are dropped (a URL is noise to a sentence encoder) and whitespace runs folded.
//! The encoder reads at most its window of tokens, so a unit's text is cut at
//! [`MAX_UNIT_CHARS`] first: the tokenizer need not read what the model will never see.
//!
//! Must not: embed (that is `build.rs`) or read files (the catalog's bytes are the source).

use crate::catalog::is_markdown;
use crate::catalog::search::body_of;
use crate::catalog::{Catalog, EntryKind, Section};

/// Characters of a unit's text handed to the tokenizer: well past what a 512-token window holds.
pub const MAX_UNIT_CHARS: usize = 4000;

/// One unit and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitText {
    /// The entry it belongs to.
    pub entry: u32,
    /// The section's id; empty for the lead.
    pub section: String,
    /// What the encoder reads.
    pub text: String,
}

/// Every unit of `catalog`, sorted by entry, lead first, then sections in document order.
/// `text_of` gives an entry's text (entries whose bytes were streamed away are skipped when it
/// returns `None`).
pub fn units<'c>(catalog: &'c Catalog, text_of: &dyn Fn(u32) -> Option<&'c str>) -> Vec<UnitText> {
    let mut out = Vec::new();
    for doc in &catalog.docs {
        let Some(text) = text_of(doc.entry) else { continue };
        let outline = doc.outline.get().map(Vec::as_slice).unwrap_or_default();
        let path = &catalog.entries[doc.entry as usize].path;
        document(&mut out, doc.entry, path, text, &[&doc.title, &doc.description], &doc.title, outline);
    }
    for skill in &catalog.skills {
        if let Some(text) = text_of(skill.document) {
            let outline = skill.outline.get().map(Vec::as_slice).unwrap_or_default();
            let path = &catalog.entries[skill.document as usize].path;
            let lead = [skill.name.as_str(), &skill.title, &skill.description];
            document(&mut out, skill.document, path, text, &lead, &skill.title, outline);
        }
        for file in &skill.files {
            let entry = &catalog.entries[file.entry as usize];
            if entry.kind != EntryKind::SkillFile || !is_markdown(&entry.path) {
                continue;
            }
            let Some(text) = text_of(file.entry) else { continue };
            let title = file.title.as_deref().unwrap_or(&file.rel_path);
            let lead = [skill.name.as_str(), title, file.description.as_deref().unwrap_or_default()];
            let body = body_of(&entry.path, text);
            out.push(UnitText { entry: file.entry, section: String::new(), text: joined(&lead, &body) });
        }
    }
    out.sort_by_key(|u| u.entry);
    out
}

/// A document's lead and section units.
fn document(
    out: &mut Vec<UnitText>,
    entry: u32,
    path: &str,
    text: &str,
    lead: &[&str],
    title: &str,
    outline: &[Section],
) {
    let body = body_of(path, text);
    let body_start_line = 1 + text[..text.len() - body.len()].matches('\n').count() as u32;
    let lines: Vec<&str> = body.split('\n').collect();
    // Lines of the body from file line `from` up to (not including) file line `to`.
    let slice = |from: u32, to: u32| -> String {
        let a = from.saturating_sub(body_start_line) as usize;
        let b = (to.saturating_sub(body_start_line) as usize).min(lines.len());
        if a >= b { String::new() } else { lines[a..b].join("\n") }
    };
    let first_heading = outline.first().map_or(u32::MAX, |s| s.line_start);
    out.push(UnitText {
        entry,
        section: String::new(),
        text: joined(lead, &slice(body_start_line, first_heading)),
    });
    // The headings above each section: a stack of (level, title).
    let mut path_to: Vec<(u8, &str)> = Vec::new();
    for (i, section) in outline.iter().enumerate() {
        while path_to.last().is_some_and(|(level, _)| *level >= section.level) {
            path_to.pop();
        }
        path_to.push((section.level, &section.title));
        let next = outline.get(i + 1).map_or(u32::MAX, |s| s.line_start);
        let mut heads: Vec<&str> = vec![title];
        heads.extend(path_to.iter().map(|(_, t)| *t).filter(|t| *t != title));
        let own = slice(section.line_start + 1, next);
        out.push(UnitText { entry, section: section.id.clone(), text: joined(&[&heads.join(" > ")], &own) });
    }
}

/// `parts` (the non-empty ones) and `body`, cleaned: link destinations dropped, whitespace
/// folded, cut at [`MAX_UNIT_CHARS`].
fn joined(parts: &[&str], body: &str) -> String {
    let mut text = String::new();
    for part in parts.iter().filter(|p| !p.trim().is_empty()) {
        push_words(&mut text, part);
        text.push_str(". ");
    }
    push_words(&mut text, &without_destinations(body));
    let text = text.trim_end();
    match text.char_indices().nth(MAX_UNIT_CHARS) {
        Some((at, _)) => text[..at].to_owned(),
        None => text.to_owned(),
    }
}

/// Appends `s` with its whitespace runs folded to one space.
fn push_words(out: &mut String, s: &str) {
    for word in s.split_whitespace() {
        if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// `s` with the destinations of inline links and images (`](…)`) removed, their text kept.
fn without_destinations(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..=at]);
        let after = &rest[at + 2..];
        // A destination ends at its closing parenthesis, on the same line.
        match after.find([')', '\n']) {
            Some(end) if after.as_bytes()[end] == b')' => rest = &after[end + 1..],
            _ => rest = &rest[at + 1..],
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_destinations_are_dropped_and_their_text_kept() {
        assert_eq!(
            without_destinations("see [the guide](../guide.md#x) and ![a](b.png)."),
            "see [the guide] and ![a]."
        );
        assert_eq!(without_destinations("a ](b\nc) d"), "a ](b\nc) d");
    }

    #[test]
    fn units_carry_their_heading_path_and_own_text() {
        let mut out = Vec::new();
        let text = "---\ntitle: T\n---\nIntro line.\n\n## Install\n\nRun it.\n\n### On Linux\n\nUse apt.\n\n## Use\n\nCall [it](x.md).\n";
        let section = |id: &str, title: &str, level, line_start, line_end| Section {
            id: id.into(),
            title: title.into(),
            level,
            line_start,
            line_end,
        };
        let outline = [
            section("install", "Install", 2, 6, 13),
            section("on-linux", "On Linux", 3, 10, 13),
            section("use", "Use", 2, 14, 17),
        ];
        document(&mut out, 3, "docs/t.md", text, &["T", "About T"], "T", &outline);
        let texts: Vec<(&str, &str)> = out.iter().map(|u| (u.section.as_str(), u.text.as_str())).collect();
        assert_eq!(
            texts,
            [
                ("", "T. About T. Intro line."),
                ("install", "T > Install. Run it."),
                ("on-linux", "T > Install > On Linux. Use apt."),
                ("use", "T > Use. Call [it]."),
            ]
        );
    }
}
