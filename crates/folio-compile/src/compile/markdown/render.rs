//! How a site renders its pages, as far as the analysis must know ([`Render`]), and the parts of
//! a heading's text a site leaves out of its id.
//!
//! Pure; no IO.

use std::borrow::Cow;

use super::HeadingIds;

/// How a site renders its pages, as far as the analysis must know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Render {
    /// How heading and footnote ids are made.
    pub ids: HeadingIds,
    /// `[[x]]` is a wiki link (Folio's own trees, Obsidian-style notes); site generators have
    /// none, and there `[[1]](url)` is a link whose text is `[1]`.
    pub wiki_links: bool,
    /// A site generator's includes and plugin directives are read (mdBook's `{{#include}}`,
    /// VitePress's `<!--@include:-->`, snippets, `::: module`): only under a generator's rules,
    /// where they mean something (in Folio's own trees they are text).
    pub includes: bool,
    /// A `---` block never closed is front matter to the end of the file (gray-matter's
    /// reading), not a `frontmatter-unclosed` error.
    pub open_frontmatter: bool,
}

impl Default for Render {
    fn default() -> Self {
        Render { ids: HeadingIds::GitHub, wiki_links: true, includes: false, open_frontmatter: false }
    }
}

/// Heading text without MDC inline components (`tryUseNuxtApp :badge[v3.10]{color="info"}`),
/// which Nuxt Content renders as elements of their own, outside the heading's id.
pub(super) fn without_inline_components(text: &str) -> Cow<'_, str> {
    let Some(start) = text.find(" :") else { return Cow::Borrowed(text) };
    let rest = &text[start + 2..];
    let name_len = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'-').count();
    if name_len == 0 || !rest[name_len..].starts_with(['[', '{']) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text[..start].trim_end().to_owned())
}
