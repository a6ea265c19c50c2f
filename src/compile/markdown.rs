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
//! Raw HTML: `<a href>`, `<img src>` and the `src` of `<source>`, `<video>` and `<audio>` are
//! links too (outside comments, and unless the value is a template: `{{ .Permalink }}`).
//! Not extracted: bare URLs without `<>`.
//!
//! Lines are counted by `\n` (so `\r\n` files count the same), columns in characters.

use std::cell::Cell;
use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

use super::count_newlines;
use crate::catalog::{LinkKind, Section};
use crate::lookup::LookupMap;

/// What one markdown body says about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    pub term_ids: Vec<String>,
    /// Ids declared in raw HTML (`<a id="x">`, `<a name="x">`, `<span id='x'>`), which are link
    /// targets as well as heading ids are.
    pub html_ids: Vec<String>,
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
    /// True for a Hugo include shortcode (`{{% include "/_common/x.md" %}}`): the target's text
    /// becomes part of this page, headings and all.
    pub include: bool,
}

impl RawLink {
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

/// Analyses a markdown body. `first_line` is the 1-based line of the body's first line in the file
/// (after any frontmatter), so every reported line is a line of the whole file.
pub fn analyze(body: &str, first_line: u32) -> Markdown {
    let masked = mask_hugo_block_shortcodes(body);
    let text = masked.as_deref().unwrap_or(body);
    let lines = LineIndex::new(body, first_line);
    let mut acc = Analysis::default();
    let mut iter = Parser::new_ext(text, options()).into_offset_iter();
    while let Some((event, range)) = iter.next() {
        // Every open link's text ends at or after this event: that is how the target of an inline
        // link is found (it starts after the `](` following the text). A link's own end event
        // spans the whole link, so it only counts for the links around it (below).
        if !matches!(event, Event::End(TagEnd::Link | TagEnd::Image)) {
            acc.extend_open_links(range.end);
        }
        match event {
            Event::Start(Tag::Heading { level, id, .. }) => {
                acc.heading = Some(OpenHeading {
                    level: heading_level(level),
                    explicit_id: id.map(|id| id.into_string()),
                    // Located now, in source order with the links (see `LineIndex`).
                    line: lines.locate(range.start).0,
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
            Event::Start(
                Tag::BlockQuote(_)
                | Tag::List(_)
                | Tag::FootnoteDefinition(_)
                | Tag::Table(_)
                | Tag::DefinitionList,
            ) => acc.block_depth += 1,
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
                    acc.links.push(RawLink::new(open.target, open.wiki, open.email, lines.locate(at), false));
                }
                acc.extend_open_links(range.end);
            }
            Event::Text(t) => acc.push_text(&t),
            Event::Code(t) => {
                acc.code.push(range);
                acc.push_text(&t);
            }
            Event::Start(Tag::CodeBlock(_)) => acc.code.push(range),
            Event::SoftBreak | Event::HardBreak => acc.push_text(" "),
            // A block is read from its whole source at its start (its `Html` events are its
            // lines, and a comment or tag may span several); an inline tag or comment is one
            // event.
            Event::Start(Tag::HtmlBlock) | Event::InlineHtml(_) => acc.push_html(text, range, &lines),
            _ => {}
        }
    }
    for (at, target) in hugo_includes(text) {
        if acc.code.iter().any(|r| r.contains(&at)) {
            continue;
        }
        acc.links.push(RawLink::new(target, false, false, lines.locate(at), true));
    }
    // Links close inner-first; report them in source order.
    acc.links.sort_by_key(|l| (l.line, l.column));
    acc.finish(&lines)
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
    html_ids: Vec<String>,
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
    fn push_html(&mut self, text: &str, range: Range<usize>, lines: &LineIndex) {
        let Some(html) = text.get(range.clone()) else { return };
        html_attributes(html, |element, attribute, at, value| {
            if attribute.eq_ignore_ascii_case("id") || attribute.eq_ignore_ascii_case("name") {
                if !value.is_empty() {
                    self.html_ids.push(value.to_owned());
                }
                return;
            }
            let is_link = HTML_LINK_ATTRIBUTES
                .iter()
                .any(|(e, a)| e.eq_ignore_ascii_case(element) && a.eq_ignore_ascii_case(attribute));
            // A template (`{{ .RelPermalink }}`) only a site generator can fill in.
            if !is_link || value.contains("{{") {
                return;
            }
            // URLs in attributes are trimmed of surrounding whitespace (HTML's "valid URL
            // potentially surrounded by spaces"); the location is that of the URL itself.
            let lead = value.len() - value.trim_start().len();
            let target = decode_character_references(value.trim());
            self.links.push(RawLink::new(target, false, false, lines.locate(range.start + at + lead), false));
        });
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
        if heading.level == 1 && self.title.is_none() && !heading.text.is_empty() {
            self.title = Some(heading.text.clone());
        }
        let id = match &heading.explicit_id {
            Some(id) => self.slugs.claim(id),
            None => self.slugs.slug(&heading.text),
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

/// The elements and attributes whose value is a link to check: what a page links to or embeds.
const HTML_LINK_ATTRIBUTES: &[(&str, &str)] =
    &[("a", "href"), ("img", "src"), ("source", "src"), ("video", "src"), ("audio", "src")];

/// Calls `f(element, attribute, offset of the value in html, value as written)` for every
/// attribute with a value of every tag in a piece of raw HTML (`<a href="x.md">`,
/// `<img src='i.png'>`, `<div id=intro>`), in any case, quoting and spacing. Comments are skipped.
fn html_attributes(html: &str, mut f: impl FnMut(&str, &str, usize, &str)) {
    let bytes = html.as_bytes();
    let mut at = 0;
    while let Some(rel) = html.get(at..).and_then(|rest| rest.find('<')) {
        at += rel + 1;
        if html[at..].starts_with("!--") {
            at = html[at..].find("-->").map_or(html.len(), |end| at + end + 3);
            continue;
        }
        let name_end = at + html[at..].find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(html.len() - at);
        let name = &html[at..name_end];
        at = name_end;
        if name.is_empty() {
            continue;
        }
        // Attributes up to the end of the tag: `name`, `name=value`, `name="value"`.
        loop {
            while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
                at += 1;
            }
            if at >= bytes.len() || bytes[at] == b'>' || bytes[at] == b'<' {
                break;
            }
            let attr_start = at;
            while at < bytes.len()
                && !matches!(bytes[at], b'=' | b'>' | b'<' | b'/')
                && !bytes[at].is_ascii_whitespace()
            {
                at += 1;
            }
            let attribute = &html[attr_start..at];
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            if bytes.get(at) != Some(&b'=') {
                // A bare attribute (`<a download>`) or a stray character: go on after it.
                at = at.max(attr_start + 1).min(bytes.len());
                continue;
            }
            at += 1;
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            let (value_start, value_end, next) = match bytes.get(at) {
                Some(&q @ (b'"' | b'\'')) => match html[at + 1..].find(q as char) {
                    Some(len) => (at + 1, at + 1 + len, at + 2 + len),
                    None => (at + 1, html.len(), html.len()),
                },
                _ => {
                    let end = at
                        + html[at..]
                            .find(|c: char| c.is_ascii_whitespace() || c == '>')
                            .unwrap_or(html.len() - at);
                    (at, end, end)
                }
            };
            at = next;
            f(name, attribute, value_start, &html[value_start..value_end]);
        }
    }
}

/// `raw` with HTML character references decoded: the named ones a URL holds in practice
/// (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`) and numeric ones. Others are kept as written.
fn decode_character_references(raw: &str) -> String {
    if !raw.contains('&') {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest.find(';').and_then(|semi| {
            let name = &rest[1..semi];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let number = name.strip_prefix('#')?;
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => number.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            }?;
            Some((c, semi + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Blanks the inner text of Hugo block shortcodes written with angle brackets
/// (`{{< name … >}}` ending its line, up to the matching `{{< /name >}}`), keeping newlines so
/// every offset still points at the same line and column. Hugo passes that text to a template
/// unrendered, so it holds TOML or HTML (`[[module.mounts]]`), not links. Returns `None` when
/// the body has no such shortcode, which is the common case.
fn mask_hugo_block_shortcodes(body: &str) -> Option<String> {
    // The common case: no angle-bracket shortcode at all.
    find_ascii(body, "{{<")?;
    let mut out: Option<Vec<u8>> = None;
    let mut search = 0;
    while let Some(rel) = find_ascii(&body[search..], "{{<") {
        let open = search + rel;
        search = open + 3;
        let Some(close_rel) = find_ascii(&body[open..], ">}}") else { break };
        let tag_end = open + close_rel + 3;
        let inner = body[open + 3..open + close_rel].trim();
        // `{{</* x */>}}` is Hugo's escape for showing a shortcode literally; `{{< /x >}}` closes;
        // `{{< x />}}` is self-closing.
        if inner.starts_with('/') || inner.ends_with('/') {
            continue;
        }
        let name: String = inner.chars().take_while(|c| !c.is_whitespace()).collect();
        if name.is_empty() {
            continue;
        }
        // Only block shortcodes: the opening tag ends its line.
        let rest_of_line = body[tag_end..].split('\n').next().unwrap_or("");
        if !rest_of_line.trim().is_empty() {
            continue;
        }
        let Some(end) = find_closing_shortcode(body, tag_end, &name) else { continue };
        let bytes = out.get_or_insert_with(|| body.as_bytes().to_vec());
        for b in &mut bytes[tag_end..end] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
        search = end;
    }
    // Multi-byte characters are blanked byte by byte, which is still valid UTF-8.
    out.map(|bytes| String::from_utf8(bytes).unwrap_or_else(|_| body.to_owned()))
}

/// Hugo include shortcodes: `{{% include "path" %}}`, `{{< include "path" >}}`,
/// `{{% readfile file="path" %}}`, as (offset of the path, path). The shortcode names are the
/// ones Hugo sites use for this (hugoDocs and Docsy); Hugo itself has no built-in include.
fn hugo_includes(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(rel) = find_ascii(&text[search..], "{{") {
        let open = search + rel;
        search = open + 2;
        let Some(delim) = text[open + 2..].chars().next().filter(|c| matches!(c, '%' | '<')) else {
            continue;
        };
        let close = if delim == '%' { "%}}" } else { ">}}" };
        let Some(end) = find_ascii(&text[open + 3..], close) else { break };
        let inner_start = open + 3;
        let inner = &text[inner_start..inner_start + end];
        let trimmed = inner.trim_start();
        let name: String = trimmed.chars().take_while(|c| !c.is_whitespace()).collect();
        if name != "include" && name != "readfile" {
            continue;
        }
        let args_start = inner_start + (inner.len() - trimmed.len()) + name.len();
        let args = &text[args_start..inner_start + end];
        let args_trimmed = args.trim_start();
        let args_trimmed = args_trimmed.strip_prefix("file=").unwrap_or(args_trimmed);
        let Some(quote) = args_trimmed.chars().next().filter(|c| matches!(c, '"' | '\'' | '`')) else {
            continue;
        };
        let value_start = args_start + (args.len() - args_trimmed.len()) + 1;
        if let Some(len) = text[value_start..inner_start + end].find(quote) {
            out.push((value_start, text[value_start..value_start + len].to_owned()));
        }
    }
    out
}

/// `haystack.find(needle)` for a non-empty ASCII needle, with memchr's SIMD substring search:
/// `str::find` runs the two-way algorithm over every byte, and these scans cover every doc of
/// the tree. (An ASCII needle only matches at char boundaries.)
fn find_ascii(haystack: &str, needle: &str) -> Option<usize> {
    debug_assert!(!needle.is_empty() && needle.is_ascii());
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes())
}

/// Offset of the `{{<` of the `{{< /name >}}` that closes a shortcode opened before `from`.
fn find_closing_shortcode(body: &str, from: usize, name: &str) -> Option<usize> {
    let mut search = from;
    while let Some(rel) = find_ascii(&body[search..], "{{<") {
        let at = search + rel;
        let close = find_ascii(&body[at..], ">}}")?;
        let inner = body[at + 3..at + close].trim();
        if inner.strip_prefix('/').map(str::trim) == Some(name) {
            return Some(at);
        }
        search = at + 3;
    }
    None
}

/// Turns heading text into GitHub-style ids, deduplicated like github.com does.
#[derive(Debug, Default)]
pub(crate) struct Slugger {
    /// How many times each base slug was handed out, as in github-slugger's `occurrences`.
    occurrences: LookupMap<String, u32>,
}

impl Slugger {
    /// The id of the next heading with this text: `slug(text)`, then `-1`, `-2`, … for repeats.
    pub(crate) fn slug(&mut self, text: &str) -> String {
        if self.occurrences.capacity() == 0 {
            // Room for a doc's usual headings at once: growing from a few slots rehashed the
            // ids several times per doc.
            self.occurrences.reserve(16);
        }
        let base = slug(text);
        // The common case, a first occurrence, without the retry loop's copies.
        if !self.occurrences.contains_key(&base) {
            self.occurrences.insert(base.clone(), 0);
            return base;
        }
        let mut candidate = base.clone();
        // github-slugger: while the candidate is taken, bump the base's counter and retry, so
        // `a`, `a`, `a-1` yield `a`, `a-1`, `a-1-1`.
        while self.occurrences.contains_key(&candidate) {
            let n = self.occurrences.entry(base.clone()).or_insert(0);
            *n += 1;
            candidate = format!("{base}-{n}");
        }
        self.occurrences.insert(candidate.clone(), 0);
        candidate
    }

    /// Records an explicit id (`{#custom-id}`) so later generated ids avoid it; returns it as is.
    pub(crate) fn claim(&mut self, id: &str) -> String {
        self.occurrences.entry(id.to_owned()).or_insert(0);
        id.to_owned()
    }
}

/// The GitHub heading slug of `text`: lowercase; keep letters, marks, decimal and letter numbers,
/// connector punctuation, `-` and spaces; drop everything else; each space becomes `-`.
/// This is github-slugger's rule (`[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc} -]` removed).
pub(crate) fn slug(text: &str) -> String {
    if text.is_ascii() {
        // Most headings: one pass over the bytes, one allocation at the most it can take
        // (collecting a filter grew the string by doubling, from nothing).
        let mut out = String::with_capacity(text.len());
        for b in text.bytes().filter(|&b| keep_ascii_in_slug(b)) {
            out.push(if b == b' ' { '-' } else { char::from(b.to_ascii_lowercase()) });
        }
        return out;
    }
    text.to_lowercase().chars().filter(|&c| keep_in_slug(c)).map(|c| if c == ' ' { '-' } else { c }).collect()
}

/// [`keep_in_slug`] for an ASCII byte: inlined into [`slug`]'s loop over a heading's bytes.
#[inline]
fn keep_ascii_in_slug(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b' ')
}

fn keep_in_slug(c: char) -> bool {
    if c.is_ascii() {
        return keep_ascii_in_slug(c as u8);
    }
    if is_other_number(c) {
        return false;
    }
    c.is_alphanumeric() || is_mark(c) || is_connector_punctuation(c)
}

/// Unicode `No` (other numbers: superscripts, fractions, circled digits), which std counts as
/// numeric but GitHub drops. The common ranges; rarer ones are kept, which errs towards GitHub's
/// behaviour for letters.
fn is_other_number(c: char) -> bool {
    matches!(c,
        '\u{B2}' | '\u{B3}' | '\u{B9}' | '\u{BC}'..='\u{BE}'
        | '\u{2070}' | '\u{2074}'..='\u{2079}' | '\u{2080}'..='\u{2089}'
        | '\u{2150}'..='\u{215F}' | '\u{2189}'
        | '\u{2460}'..='\u{249B}' | '\u{24EA}'..='\u{24FF}' | '\u{2776}'..='\u{2793}'
        | '\u{2CFD}' | '\u{3192}'..='\u{3195}' | '\u{3220}'..='\u{3229}' | '\u{3248}'..='\u{324F}'
        | '\u{3251}'..='\u{325F}' | '\u{3280}'..='\u{3289}' | '\u{32B1}'..='\u{32BF}'
        | '\u{1F100}'..='\u{1F10C}')
}

/// Unicode `Mn`/`Mc` marks that std does not count as alphabetic: the combining blocks, and the
/// non-alphabetic signs (viramas, nuktas) of the Brahmic scripts, minus their dandas.
fn is_mark(c: char) -> bool {
    match c {
        '\u{300}'..='\u{36F}'
        | '\u{483}'..='\u{487}'
        | '\u{591}'..='\u{5BD}'
        | '\u{610}'..='\u{61A}'
        | '\u{64B}'..='\u{65F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20DC}'
        | '\u{20E1}'
        | '\u{20E5}'..='\u{20F0}'
        | '\u{302A}'..='\u{302F}'
        | '\u{3099}'..='\u{309A}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FE20}'..='\u{FE2F}' => true,
        '\u{964}' | '\u{965}' | '\u{970}' | '\u{E3F}' | '\u{E4F}' | '\u{E5A}' | '\u{E5B}' => false,
        '\u{900}'..='\u{DFF}' | '\u{E00}'..='\u{EFF}' | '\u{1000}'..='\u{109F}' => {
            !c.is_alphanumeric() && !is_brahmic_symbol(c)
        }
        _ => false,
    }
}

/// Currency signs and other symbols inside the Brahmic blocks, which GitHub drops.
fn is_brahmic_symbol(c: char) -> bool {
    matches!(c, '\u{9F2}'..='\u{9FB}' | '\u{AF1}' | '\u{BF3}'..='\u{BFA}' | '\u{D4F}' | '\u{D79}')
}

/// Unicode `Pc` besides `_`.
fn is_connector_punctuation(c: char) -> bool {
    matches!(
        c,
        '\u{203F}' | '\u{2040}' | '\u{2054}' | '\u{FE33}' | '\u{FE34}' | '\u{FE4D}'..='\u{FE4F}' | '\u{FF3F}'
    )
}

/// Byte offset → (line, column) in the whole file.
///
/// Offsets are located from the last one located (a cursor), counting the newlines in between:
/// `analyze` asks in nearly source order, so each body is counted about once, with wide compares.
/// (A table of every line start cost a push per line and its reallocations, on every doc, for
/// the few dozen offsets a doc asks about.)
struct LineIndex<'a> {
    body: &'a str,
    first_line: u32,
    /// The start of the line last located and its index (0-based, in the body).
    cursor: Cell<(usize, usize)>,
    /// The offset last located and its column: a later offset on the same line counts only
    /// the characters in between (a line of 100,000 links was counted from its start for
    /// each, quadratic in the line's length).
    column: Cell<(usize, usize)>,
}

impl<'a> LineIndex<'a> {
    fn new(body: &'a str, first_line: u32) -> Self {
        LineIndex {
            body,
            first_line: first_line.max(1),
            cursor: Cell::new((0, 0)),
            column: Cell::new((0, 0)),
        }
    }

    /// 1-based line and character column of a byte offset.
    fn locate(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.body.len());
        let bytes = self.body.as_bytes();
        let (mut line_start, mut idx) = self.cursor.get();
        let (last, last_column) = self.column.get();
        if offset >= line_start {
            // From the offset last located, which is on the cursor's line, when it is not past
            // this one: the bytes before it hold no newline.
            let from = if last >= line_start && last <= offset { last } else { line_start };
            let newlines = count_newlines(&bytes[from..offset]);
            if newlines > 0 {
                idx += newlines;
                line_start = memchr::memrchr(b'\n', &bytes[from..offset]).map_or(0, |i| from + i + 1);
            }
        } else {
            // Back over the newlines between the offset and the cursor's line (the one ending the
            // line before it included).
            idx -= count_newlines(&bytes[offset..line_start]);
            line_start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |i| i + 1);
        }
        self.cursor.set((line_start, idx));
        let between = if last > line_start && last <= offset { self.body.get(last..offset) } else { None };
        let column = match between {
            // Past the line's start, so a byte-order mark (which is not a column an editor
            // shows) is behind it already.
            Some(between) => last_column + between.chars().count(),
            None => {
                let prefix = self.body.get(line_start..offset).unwrap_or("");
                let prefix =
                    if idx == 0 { prefix.strip_prefix('\u{feff}').unwrap_or(prefix) } else { prefix };
                prefix.chars().count() + 1
            }
        };
        self.column.set((offset, column));
        (self.first_line.saturating_add(to_u32(idx)), to_u32(column))
    }

    /// The last line of the file: the line holding the body's last character.
    fn last_line(&self) -> u32 {
        self.locate(self.body.len());
        // Lines are the newlines plus one, but a final `\n` ends the last line rather than
        // starting a new one.
        let lines = self.cursor.get().1 + 1 - usize::from(self.body.ends_with('\n'));
        self.first_line.saturating_add(to_u32(lines.max(1))).saturating_sub(1)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
#[path = "markdown/tests.rs"]
mod tests;
