//! The pulldown-cmark pass over a markdown body: title, first paragraph, sections with
//! GitHub-style ids and line ranges, and every link with its line and column.
//!
//! Pure: no IO, no knowledge of other files (resolving links is `links.rs`'s job).
//!
//! Dialect: CommonMark plus the GitHub extensions real docs use (tables, footnotes,
//! strikethrough, task lists, alerts), definition lists (on in Hugo's goldmark; their terms get
//! ids like headings, shared counter included, as with Hugo's `autoDefinitionTermID`, so a
//! heading after a term of the same text is `-1`), heading attributes (`# Title {#custom-id}`) and
//! Obsidian-style wiki links (`[[Target]]`, `[[Target|label]]`, `![[image.png]]`), which
//! pulldown-cmark parses itself, so a wiki link split over several text runs is found and one in a
//! code span or code block is not.
//!
//! Hugo: the inner text of a block shortcode written with angle brackets
//! (`{{< code-toggle >}}` … `{{< /code-toggle >}}`) is raw input to a template, not markdown, so
//! it is blanked before parsing (byte offsets are kept). `[a]({{< ref "x" >}})` is not a
//! CommonMark link (its destination has spaces), so it is left alone; a space-less shortcode
//! target (`{{<ref"x">}}`) is recorded as written and the resolver leaves it alone. Include
//! shortcodes (`{{% include "/_common/x.md" %}}`) are recorded as links marked `include`: the
//! resolver checks them and lends the included file's anchors to the page.
//!
//! MDX (`.mdx`, [`Dialect::Mdx`]): a line holding only JSX tags or an expression (`<Tabs>`,
//! `</Fragment>`, `<TabItem label="npm">` over several lines, `{/* note */}`) is a JSX flow
//! element, and the markdown between such lines is markdown; CommonMark would start an HTML block
//! there that swallows the next lines up to a blank one. Those lines are blanked before parsing
//! (the rule and the scan are `crate::catalog::mdx`'s, shared with search); their tags' attributes
//! are still read for links and ids, as raw HTML's are. MDX has no indented code blocks, so lines
//! indented four columns or more are moved left before parsing (`markdown/indented.rs`). `.md`
//! files are parsed as CommonMark.
//!
//! Raw HTML: `<a href>`, `<img src>` and the `src` of `<source>`, `<video>` and `<audio>` are
//! links too (outside comments, and unless the value is a template: `{{ .Permalink }}`); in MDX,
//! so is a component's `href` (`<LinkCard href="/guides/deploy/">`) and `<Link to>`.
//! Not extracted: bare URLs without `<>`.
//!
//! Lines are counted by `\n` (so `\r\n` files count the same), columns in characters.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

use super::mentions;
pub use super::mentions::Mention;

use crate::catalog::{LinkKind, Section, mdx};

mod html;
mod hugo;
mod includes;
mod indented;
pub(crate) mod lines;
mod render;
mod slug;

use html::{decode_character_references, html_attributes, is_link};
#[cfg(test)]
use hugo::find_ascii;
use hugo::{hugo_includes, mask_hugo_block_shortcodes};
use lines::LineIndex;
pub(crate) use render::Render;
use render::without_inline_components;
pub(crate) use slug::HeadingIds;
use slug::Slugger;
#[cfg(test)]
use slug::slug;

/// What one markdown body says about itself. (It will gain fields: read it, do not build it.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Markdown {
    /// Plain text of the first H1, if any.
    pub title: Option<String>,
    /// Plain text of the first paragraph, if any (before truncation to 3 sentences).
    pub first_paragraph: Option<String>,
    /// Every heading with its id and line range, line numbers relative to the whole file.
    pub sections: Vec<Section>,
    /// Every link, in source order.
    pub links: Vec<RawLink>,
    /// Ids of definition-list terms (`Term` followed by `: definition`), which Hugo's goldmark
    /// gives GitHub-style ids from the same counter as headings (`autoDefinitionTermID`).
    pub(crate) term_ids: Vec<String>,
    /// Ids declared in raw HTML (`<a id="x">`, `<a name="x">`, `<span id='x'>`), and the ids
    /// footnotes are rendered with by the site's rule, which are link targets as well as heading
    /// ids are.
    pub html_ids: Vec<String>,
    /// File names and paths written in the text, for the mention lint: filled only by
    /// [`analyze_with_mentions`] (a skill's markdown).
    pub mentions: Vec<Mention>,
    /// True when a plugin directive writes content into the page at build time
    /// (`::: module.path`): it has headings this analysis cannot see.
    pub(crate) generated: bool,
}

impl Markdown {
    /// Every fragment a link may point at in this body: section ids, term ids, then HTML ids.
    pub fn anchors(&self) -> impl Iterator<Item = &str> {
        self.sections
            .iter()
            .map(|s| s.id.as_str())
            .chain(self.term_ids.iter().map(String::as_str))
            .chain(self.html_ids.iter().map(String::as_str))
    }
}

/// A link as written, located in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RawLink {
    /// The target as written (`../x.md#a`, `/guides/install/`, `Target` of `[[Target|l]]`), after
    /// CommonMark's backslash-escape and entity decoding; an email autolink gets `mailto:`.
    pub target: String,
    /// How it was written.
    pub kind: LinkKind,
    /// Where [`RawLink::path`] is in `target`. (Ranges, not strings of their own: a large tree
    /// has hundreds of thousands of links, and two more allocations each showed in the profile.)
    path: (u32, u32),
    /// Where [`RawLink::anchor`] starts in `target`, if there is one.
    anchor: Option<u32>,
    /// 1-based line in the whole file of the target text. For a reference link (`[a][r]`) that
    /// is the destination in its definition (`[r]: x.md`), where a fix is made.
    pub line: u32,
    /// 1-based column (in characters) of the start of the target text.
    pub column: u32,
    /// True for an include (Hugo's `{{% include "/_common/x.md" %}}`, mdBook's `{{#include}}`,
    /// VitePress's `<!--@include:-->`, a snippet): the target's text becomes part of this page,
    /// headings and all.
    pub(crate) include: bool,
    /// True for a snippet's path, relative to the repository root (written here as a
    /// site-absolute path).
    pub(crate) from_root: bool,
    /// True for a link written from a Claude Code plugin's root (`${CLAUDE_PLUGIN_ROOT}/…`):
    /// the plugin is installed whole, so the link may leave its skill for a file of the plugin.
    pub(crate) plugin_root: bool,
}

impl RawLink {
    /// The same link pointing at `target` instead (located where the original was): how a
    /// placeholder a host fills in is read (`{baseDir}/x.md` in a skill's file).
    pub(crate) fn retarget(&self, target: String) -> RawLink {
        let mut link = RawLink::new(target, false, false, (self.line, self.column), self.include);
        link.from_root = self.from_root;
        link
    }

    /// A link to `target`, classified by how it is written: a wiki link (`[[target]]`), an email
    /// autolink (always external), or anything else.
    fn new(target: String, wiki: bool, email: bool, (line, column): (u32, u32), include: bool) -> RawLink {
        let (kind, path, anchor) =
            if email { (LinkKind::External, (0, target.len()), None) } else { Self::classify(&target, wiki) };
        // A target is part of a file, and files are far smaller than 4 GiB.
        let at = |i: usize| u32::try_from(i).expect("a link target under 4 GiB");
        RawLink {
            kind,
            path: (at(path.0), at(path.1)),
            anchor: anchor.map(at),
            target,
            line,
            column,
            include,
            from_root: false,
            plugin_root: false,
        }
    }

    /// The target without its `#fragment` (empty for a pure `#anchor` link; trimmed in a wiki
    /// link).
    pub fn path(&self) -> &str {
        &self.target[self.path.0 as usize..self.path.1 as usize]
    }

    /// The fragment without `#`, if any.
    pub fn anchor(&self) -> Option<&str> {
        self.anchor.map(|at| &self.target[at as usize..])
    }

    /// Splits a target into its kind, the range of its path and where its anchor starts.
    fn classify(target: &str, wiki: bool) -> (LinkKind, (usize, usize), Option<usize>) {
        let (path, anchor) = match target.split_once('#') {
            Some((path, _)) => (path, Some(path.len() + 1)),
            None => (target, None),
        };
        let kind = if wiki {
            LinkKind::Wiki
        } else if path.is_empty() {
            LinkKind::Anchor
        } else if path.starts_with("//") || has_scheme(path) {
            LinkKind::External
        } else if path.starts_with('/') {
            LinkKind::SiteAbsolute
        } else {
            LinkKind::Relative
        };
        // A wiki link's path is trimmed: `[[ Target ]]` is `Target`.
        let start = if wiki { path.len() - path.trim_start().len() } else { 0 };
        let end = if wiki { path.trim_end().len() } else { path.len() };
        (kind, (start, end.max(start)), anchor)
    }
}

/// True when `s` starts with a URI scheme (`https:`, `mailto:`, `tel:`): RFC 3986 §3.1,
/// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`. A single letter is a scheme too, but on
/// a path it is far more likely a Windows drive (`C:`), which is not a valid link either way.
fn has_scheme(s: &str) -> bool {
    let Some((scheme, _)) = s.split_once(':') else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// The markdown extensions Folio reads (see the module docs). Public for the compile benchmark,
/// which times the parser alone with them.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_GFM
        | Options::ENABLE_DEFINITION_LIST
        | Options::ENABLE_WIKILINKS
}

/// The markdown a file is written in, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// CommonMark with the extensions in the module docs: `.md` and every other extension.
    Markdown,
    /// MDX (`.mdx`): JSX flow lines are not HTML blocks (see the module docs).
    Mdx,
}

impl Dialect {
    /// The dialect of a file at `path`.
    pub fn of(path: &str) -> Dialect {
        if mdx::is_mdx(path) { Dialect::Mdx } else { Dialect::Markdown }
    }
}

/// Analyses a CommonMark body: [`analyze_in`] with [`Dialect::Markdown`].
pub(crate) fn analyze(body: &str, first_line: u32) -> Markdown {
    analyze_in(body, first_line, Dialect::Markdown)
}

/// Analyses a markdown body written in `dialect`. `first_line` is the 1-based line of the body's
/// first line in the file (after any frontmatter), so every reported line is a line of the whole
/// file.
pub fn analyze_in(body: &str, first_line: u32, dialect: Dialect) -> Markdown {
    analyze_site(body, first_line, dialect, Render::default(), false)
}

/// [`analyze_in`], also collecting [`Markdown::mentions`] (the mention lint's words, on the same
/// parse: a skill's markdown is read once).
pub fn analyze_with_mentions(body: &str, first_line: u32, dialect: Dialect) -> Markdown {
    analyze_site(body, first_line, dialect, Render::default(), true)
}

/// [`analyze_in`] for a page of a site that renders it by `render`; with `mentions`, also
/// [`Markdown::mentions`].
pub(crate) fn analyze_site(
    body: &str,
    first_line: u32,
    dialect: Dialect,
    render: Render,
    mentions: bool,
) -> Markdown {
    analyze_body(body, first_line, dialect, render, mentions)
}

fn analyze_body(body: &str, first_line: u32, dialect: Dialect, render: Render, mentions: bool) -> Markdown {
    let ids = render.ids;
    let options = if render.wiki_links { options() } else { options() - Options::ENABLE_WIKILINKS };
    let (text, shifts, jsx_tags) = prepare(body, dialect);
    let text = text.as_ref();
    let lines = LineIndex::new(body, first_line);
    let locate = |offset: usize| lines.locate(shifts.to_file(offset));
    let mut acc =
        Analysis { mentions: mentions.then(Vec::new), jsx: dialect == Dialect::Mdx, ..Analysis::default() };
    acc.slugs.rule = ids;
    let mut footnotes = 0;
    // The blanked tags' attributes, read from the body as written (links are sorted below).
    for tag in jsx_tags {
        acc.push_html(body, tag, &|offset| lines.locate(offset));
    }
    let mut iter = Parser::new_ext(text, options).into_offset_iter();
    while let Some((event, range)) = iter.next() {
        // Every open link's text ends at or after this event: that is how the target of an inline
        // link is found (it starts after the `](` following the text). A link's own end event
        // spans the whole link, so it only counts for the links around it (below).
        if !matches!(event, Event::End(TagEnd::Link | TagEnd::Image)) {
            acc.extend_open_links(range.end);
        }
        match event {
            Event::Start(Tag::Heading { level, id, attrs, .. }) => {
                // `{#id}`, or attr_list's `{ id="9.7.0" }` (MkDocs).
                let attr_id = attrs.iter().find(|(key, _)| key.as_ref() == "id").and_then(|(_, value)| {
                    let value = value.as_deref()?.trim_matches(['"', '\'']);
                    (!value.is_empty()).then(|| value.to_owned())
                });
                acc.heading = Some(OpenHeading {
                    level: heading_level(level),
                    explicit_id: id.map(|id| id.into_string()).or(attr_id),
                    // Located now, in source order with the links (see `LineIndex`).
                    line: locate(range.start).0,
                    text: String::new(),
                });
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some(heading) = acc.heading.take() {
                    acc.finish_heading(heading);
                }
            }
            Event::Start(Tag::DefinitionListTitle) => acc.term = Some(String::new()),
            Event::End(TagEnd::DefinitionListTitle) => {
                if let Some(term) = acc.term.take() {
                    let id = acc.slugs.slug(&collapse_whitespace(&term));
                    acc.term_ids.push(id);
                }
            }
            Event::Start(Tag::Paragraph) if acc.first_paragraph.is_none() && acc.block_depth == 0 => {
                acc.paragraph = Some(String::new());
            }
            Event::End(TagEnd::Paragraph) => {
                if let Some(mut paragraph) = acc.paragraph.take() {
                    collapse_whitespace_in_place(&mut paragraph);
                    if !paragraph.is_empty() {
                        acc.first_paragraph = Some(paragraph);
                    }
                }
            }
            // The first paragraph is a top-level one: not a quote, list item, footnote, table cell
            // or definition.
            Event::Start(Tag::FootnoteDefinition(ref label)) => {
                footnotes += 1;
                acc.html_ids.extend(ids.footnote_ids(label, footnotes));
                acc.block_depth += 1;
            }
            Event::Start(Tag::BlockQuote(_) | Tag::List(_) | Tag::Table(_) | Tag::DefinitionList) => {
                acc.block_depth += 1
            }
            Event::End(
                TagEnd::BlockQuote(_)
                | TagEnd::List(_)
                | TagEnd::FootnoteDefinition
                | TagEnd::Table
                | TagEnd::DefinitionList,
            ) => acc.block_depth = acc.block_depth.saturating_sub(1),
            Event::Start(Tag::Link { link_type, dest_url, id, .. })
            | Event::Start(Tag::Image { link_type, dest_url, id, .. }) => {
                let image = text.as_bytes().get(range.start) == Some(&b'!');
                let target_at = match link_type {
                    LinkType::Inline => None,
                    LinkType::Reference
                    | LinkType::ReferenceUnknown
                    | LinkType::Collapsed
                    | LinkType::CollapsedUnknown
                    | LinkType::Shortcut
                    | LinkType::ShortcutUnknown => Some(
                        iter.reference_definitions()
                            .get(&id)
                            .map(|def| definition_target(text, def.span.clone()))
                            .unwrap_or(range.start),
                    ),
                    LinkType::Autolink | LinkType::Email => Some(range.start + 1),
                    LinkType::WikiLink { .. } => Some(range.start + if image { 3 } else { 2 }),
                };
                let target = match link_type {
                    LinkType::Email => format!("mailto:{dest_url}"),
                    _ => dest_url.into_string(),
                };
                acc.open_links.push(OpenLink {
                    target,
                    wiki: matches!(link_type, LinkType::WikiLink { .. }),
                    email: link_type == LinkType::Email,
                    start: range.start,
                    target_at,
                    text_end: range.start + if image { 2 } else { 1 },
                });
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if let Some(open) = acc.open_links.pop() {
                    let at = open.target_at.unwrap_or_else(|| inline_target(text, open.text_end, open.start));
                    acc.links.push(RawLink::new(open.target, open.wiki, open.email, locate(at), false));
                }
                acc.extend_open_links(range.end);
            }
            Event::Text(t) => {
                acc.push_mentions(&t, text, range, &locate);
                acc.push_text(&t);
            }
            Event::Code(t) => {
                acc.push_mentions(&t, text, range.clone(), &locate);
                acc.code.push(range);
                acc.push_text(&t);
            }
            Event::Start(Tag::CodeBlock(_)) => {
                acc.code.push(range);
                acc.code_blocks += 1;
            }
            Event::End(TagEnd::CodeBlock) => acc.code_blocks = acc.code_blocks.saturating_sub(1),
            Event::SoftBreak | Event::HardBreak => acc.push_text(" "),
            // A block is read from its whole source at its start (its `Html` events are its
            // lines, and a comment or tag may span several); an inline tag or comment is one
            // event.
            Event::Start(Tag::HtmlBlock) | Event::InlineHtml(_) => acc.push_html(text, range, &locate),
            _ => {}
        }
    }
    for (at, target) in hugo_includes(text) {
        if acc.code.iter().any(|r| r.contains(&at)) {
            continue;
        }
        acc.links.push(RawLink::new(target, false, false, locate(at), true));
    }
    // An MDX page's imports of markdown partials are includes; a generator that reads `.md` as
    // MDX (Docusaurus) writes them in `.md` pages too.
    if dialect == Dialect::Mdx || render.includes {
        // Read from the body as written (JSX blanking moves indented lines, not these).
        for (at, target) in mdx::markdown_imports(body) {
            if !acc.code.iter().any(|r| r.contains(&at)) {
                acc.links.push(RawLink::new(target, false, false, lines.locate(at), true));
            }
        }
    }
    // mdBook's includes are written inside code blocks as often as outside.
    let found = if render.includes { includes::includes(text) } else { Vec::new() };
    for (at, target, from_root) in found {
        // A snippet's path is relative to the repository root: read as a site-absolute path,
        // which is tried against `docs/` and then the content root.
        let target = if from_root { format!("/{}", target.trim_start_matches('/')) } else { target };
        let mut link = RawLink::new(target, false, false, locate(at), true);
        link.from_root = from_root;
        acc.links.push(link);
    }
    let generated = render.includes && includes::generates_content(text);
    // attr_list (MkDocs) gives any element an id: `**term**{ #term-id }`.
    if ids == HeadingIds::PythonMarkdown {
        let in_code = |at: usize| acc.code.iter().any(|r| r.contains(&at));
        acc.html_ids.extend(
            includes::attr_list_ids(text).into_iter().filter(|(at, _)| !in_code(*at)).map(|(_, id)| id),
        );
    }
    // Links close inner-first; report them in source order.
    acc.links.sort_by_key(|l| (l.line, l.column));
    let mut md = acc.finish(&lines);
    md.generated = generated;
    md
}

/// The text pulldown-cmark parses for a body, the same length with the same lines: for MDX, JSX
/// flow lines blanked and indented lines moved left (with the map back to the body, and the
/// blanked tags, whose attributes are still read); in any dialect, Hugo block shortcodes blanked.
fn prepare(body: &str, dialect: Dialect) -> (Cow<'_, str>, indented::Shifts, Vec<Range<usize>>) {
    let jsx = match dialect {
        Dialect::Mdx => mdx::jsx_flow(body),
        Dialect::Markdown => mdx::JsxFlow::default(),
    };
    let mut text = jsx.blank(body).map_or(Cow::Borrowed(body), Cow::Owned);
    // Only MDX reports deep indentation (`JsxFlow::default()` has none).
    if let Some(masked) = mask_hugo_block_shortcodes(&text) {
        text = Cow::Owned(masked);
    }
    let mut shifts = indented::Shifts::default();
    if jsx.deep_indent
        && let Some((unindented, moved)) = indented::unindent_code(&text)
    {
        (text, shifts) = (Cow::Owned(unindented), moved);
    }
    (text, shifts, jsx.tags)
}

/// Accumulator for [`analyze`].
#[derive(Default)]
struct Analysis {
    title: Option<String>,
    first_paragraph: Option<String>,
    paragraph: Option<String>,
    block_depth: u32,
    heading: Option<OpenHeading>,
    /// Text of the open definition-list term.
    term: Option<String>,
    term_ids: Vec<String>,
    headings: Vec<(OpenHeading, String)>,
    slugs: Slugger,
    open_links: Vec<OpenLink>,
    links: Vec<RawLink>,
    /// Byte ranges of code spans and code blocks.
    code: Vec<Range<usize>>,
    /// Code blocks open (their text is no mention).
    code_blocks: u32,
    html_ids: Vec<String>,
    /// MDX: a component's link props are links too (`html::is_link`).
    jsx: bool,
    /// The mentions found, when asked for.
    mentions: Option<Vec<Mention>>,
}

struct OpenHeading {
    level: u8,
    explicit_id: Option<String>,
    /// 1-based line of its first character in the file.
    line: u32,
    text: String,
}

struct OpenLink {
    target: String,
    wiki: bool,
    email: bool,
    start: usize,
    /// Offset of the target text when known without looking at the link text.
    target_at: Option<usize>,
    /// Largest end offset of any event inside the link: the end of the link text.
    text_end: usize,
}

impl Analysis {
    fn extend_open_links(&mut self, end: usize) {
        for open in &mut self.open_links {
            open.text_end = open.text_end.max(end);
        }
    }

    /// Records the links and ids of the raw HTML at `range` of `text`.
    /// `locate` gives the line and column of an offset in `text`.
    fn push_html(&mut self, text: &str, range: Range<usize>, locate: &dyn Fn(usize) -> (u32, u32)) {
        let Some(html) = text.get(range.clone()) else { return };
        html_attributes(html, |element, attribute, at, value| {
            if attribute.eq_ignore_ascii_case("id") || attribute.eq_ignore_ascii_case("name") {
                if !value.is_empty() {
                    self.html_ids.push(value.to_owned());
                }
                return;
            }
            // A template (`{{ .RelPermalink }}`) only a site generator can fill in.
            if !is_link(element, attribute, self.jsx) || value.contains("{{") {
                return;
            }
            // URLs in attributes are trimmed of surrounding whitespace (HTML's "valid URL
            // potentially surrounded by spaces"); the location is that of the URL itself.
            let lead = value.len() - value.trim_start().len();
            let target = decode_character_references(value.trim());
            self.links.push(RawLink::new(target, false, false, locate(range.start + at + lead), false));
        });
    }

    /// Collects the mentions of a text or code run (`run`, at `range` of `text`), unless it is
    /// in a code block or a link's text (a link's target is `links`'s to check).
    fn push_mentions(
        &mut self,
        run: &str,
        text: &str,
        range: Range<usize>,
        locate: &dyn Fn(usize) -> (u32, u32),
    ) {
        if let Some(out) = &mut self.mentions
            && self.code_blocks == 0
            && self.open_links.is_empty()
        {
            mentions::scan(run, &text[range.clone()], range.start, locate, out);
        }
    }

    fn push_text(&mut self, text: &str) {
        if let Some(heading) = &mut self.heading {
            heading.text.push_str(text);
        }
        if let Some(paragraph) = &mut self.paragraph {
            paragraph.push_str(text);
        }
        if let Some(term) = &mut self.term {
            term.push_str(text);
        }
    }

    fn finish_heading(&mut self, mut heading: OpenHeading) {
        collapse_whitespace_in_place(&mut heading.text);
        // Fumadocs's custom id: `## Usage [#usage]` (or `Usage[#usage]`: its rule is
        // `\s*\[#(?<slug>[^]+?)]\s*$`), not part of the title.
        if heading.explicit_id.is_none()
            && let Some((title, id)) = heading.text.strip_suffix(']').and_then(|t| t.rsplit_once("[#"))
            && !id.is_empty()
            && !id.contains([' ', '[', ']'])
        {
            heading.explicit_id = Some(id.to_owned());
            heading.text = title.trim_end().to_owned();
        }
        if heading.level == 1 && self.title.is_none() && !heading.text.is_empty() {
            self.title = Some(heading.text.clone());
        }
        let id = match &heading.explicit_id {
            Some(id) => self.slugs.claim(id),
            None => self.slugs.slug(&without_inline_components(&heading.text)),
        };
        self.headings.push((heading, id));
    }

    fn finish(self, lines: &LineIndex) -> Markdown {
        let starts: Vec<(u8, u32)> = self.headings.iter().map(|(h, _)| (h.level, h.line)).collect();
        let sections = self
            .headings
            .into_iter()
            .enumerate()
            .map(|(i, (heading, id))| {
                let (level, line_start) = starts[i];
                // A section runs to the line before the next heading of the same or a higher
                // level (a smaller number), or to the end of the file.
                let line_end = starts[i + 1..]
                    .iter()
                    .find(|(next_level, _)| *next_level <= level)
                    .map_or(lines.last_line(), |(_, next_start)| {
                        next_start.saturating_sub(1).max(line_start)
                    });
                Section { id, title: heading.text, level, line_start, line_end }
            })
            .collect();
        let mut html_ids = self.html_ids;
        html_ids.sort();
        html_ids.dedup();
        Markdown {
            title: self.title,
            first_paragraph: self.first_paragraph,
            sections,
            links: self.links,
            term_ids: self.term_ids,
            html_ids,
            mentions: self.mentions.unwrap_or_default(),
            generated: false,
        }
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Trims and collapses every run of whitespace to one space. One pass into one allocation: it
/// runs on every heading and first paragraph of a tree.
pub(crate) fn collapse_whitespace(s: &str) -> String {
    if is_collapsed(s) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// [`collapse_whitespace`] in place: most headings need no change, and then keep their string.
fn collapse_whitespace_in_place(s: &mut String) {
    if !is_collapsed(s) {
        *s = collapse_whitespace(s);
    }
}

/// True when [`collapse_whitespace`] would return `s` unchanged: ASCII (where the only
/// whitespace is ASCII's), with single spaces between words and none at either end. A scan of
/// the bytes, where splitting decodes every character and copies every word.
fn is_collapsed(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    let mut space_before = false;
    for &b in bytes {
        if b == b' ' {
            if space_before {
                return false;
            }
            space_before = true;
        } else if b.is_ascii_whitespace() || b == 0x0b || !b.is_ascii() {
            return false;
        } else {
            space_before = false;
        }
    }
    true
}

/// Offset of the destination of an inline link `[text](dest)`: after the `](` that follows the
/// link text (which ends at `text_end`), past optional whitespace and an opening `<`.
fn inline_target(text: &str, text_end: usize, fallback: usize) -> usize {
    let bytes = text.as_bytes();
    let Some(rel) = text.get(text_end..).and_then(|rest| rest.find("](")) else { return fallback };
    let mut at = text_end + rel + 2;
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    if bytes.get(at) == Some(&b'<') {
        at += 1;
    }
    at
}

/// Offset of the destination in a link reference definition `[label]: dest "title"`.
fn definition_target(text: &str, span: Range<usize>) -> usize {
    let Some(def) = text.get(span.clone()) else { return span.start };
    let bytes = def.as_bytes();
    // A label cannot hold an unescaped `]`, so the first one not preceded by `\` ends it.
    let mut i = 0;
    while i + 1 < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b']' if bytes[i + 1] == b':' => break,
            _ => i += 1,
        }
    }
    let mut at = i + 2;
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    if bytes.get(at) == Some(&b'<') {
        at += 1;
    }
    span.start + at.min(bytes.len())
}

#[cfg(test)]
mod tests;
