//! A markdown entry as an HTML page body: pulldown-cmark's writer over the entry's body (without
//! its frontmatter; MDX without its module lines and JSX tags), with
//! - headings given the ids the compiler gave them (the catalog's outline), so `#anchors` work;
//! - links to entries as links to their pages, resolved by the compiler's own record of the link
//!   (the site's rules), else relative to the file; a link the catalog cannot follow shown as
//!   broken; `http(s):` and `mailto:` links as they are; any other scheme (`javascript:`) as text;
//! - images of the catalog from `/raw/`, images from elsewhere as a link (nothing is fetched from
//!   outside);
//! - raw HTML shown as text, never as markup, and HTML comments left out;
//! - code blocks highlighted.
//!
//! Reads the catalog; must not decide what a page around the body shows (`pages`).

use std::fmt::Write as _;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use rustc_hash::FxHashMap;

use super::highlight::highlight;
use super::html::escape;
use super::sitemap::Sitemap;
use crate::catalog::uri::percent_decode;
use crate::catalog::{Catalog, Link, LinkKind, Section};

/// What a body is rendered with.
pub(crate) struct Context<'a> {
    pub(crate) catalog: &'a Catalog,
    pub(crate) sitemap: &'a Sitemap,
    /// The content path of the entry (`docs/guides/a.md`): relative links start from its folder.
    pub(crate) path: &'a str,
    /// The headings' ids, in order.
    pub(crate) outline: &'a [Section],
    /// The links the compiler found and resolved (docs and SKILL.md; empty for other files).
    pub(crate) links: &'a [Link],
}

/// Where a link leads in the view.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// A page of the view (`/docs/a.md#x`), and the entry it shows (none for `#anchor` alone).
    Page(String, Option<u32>),
    /// A site elsewhere (`https:`, `mailto:`).
    External(String),
    /// Nothing in this catalog (a broken link, or a file the catalog does not hold).
    Broken,
    /// A scheme a page must not follow (`javascript:`, `data:`): shown as text.
    Refused,
}

/// The compiler's records of a body's links, indexed once per render: a link event finds its
/// record in constant time, so a page of many links renders in time linear in them.
struct Records<'a> {
    /// (line, target as written) → the first record of it.
    exact: FxHashMap<(u32, &'a str), &'a Link>,
    /// line → the wiki links recorded on it, in order (a wiki link is recorded as written
    /// between the brackets, which a link event may not repeat exactly).
    wiki: FxHashMap<u32, Vec<&'a Link>>,
}

impl<'a> Records<'a> {
    fn new(links: &'a [Link]) -> Records<'a> {
        let mut exact: FxHashMap<(u32, &str), &Link> = FxHashMap::default();
        let mut wiki: FxHashMap<u32, Vec<&Link>> = FxHashMap::default();
        for link in links {
            exact.entry((link.line, link.target.as_str())).or_insert(link);
            if link.kind == LinkKind::Wiki {
                wiki.entry(link.line).or_default().push(link);
            }
        }
        Records { exact, wiki }
    }

    /// The record of the link to `dest` written on `line`.
    fn find(&self, line: u32, dest: &str) -> Option<&'a Link> {
        if let Some(link) = self.exact.get(&(line, dest)) {
            return Some(link);
        }
        self.wiki.get(&line)?.iter().copied().find(|l| dest.ends_with(l.target.as_str()))
    }
}

/// The options the compiler parses with.
fn options() -> Options {
    crate::compile::markdown::options()
}

/// The HTML of `text`, the whole file of the entry at `cx.path`.
pub(crate) fn render(cx: &Context<'_>, text: &str) -> String {
    let body = crate::catalog::search::written_body_of(cx.path, text);
    let first_line = text[..text.len() - body.len()].matches('\n').count() as u32 + 1;
    let blanked = crate::catalog::mdx::is_mdx(cx.path)
        .then(|| crate::catalog::mdx::jsx_flow(body).blank(body))
        .flatten();
    let source = blanked.as_deref().unwrap_or(body);
    let line_starts: Vec<usize> =
        std::iter::once(0).chain(source.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let line_of = |offset: usize| first_line + line_starts.partition_point(|&s| s <= offset) as u32 - 1;

    let records = Records::new(cx.links);
    let mut out = String::with_capacity(source.len() * 3 / 2);
    let mut events: Vec<Event<'_>> = Vec::new();
    let mut headings = cx.outline.iter();
    let mut code: Option<(String, String)> = None;
    let mut image: Option<(Target, String, String)> = None;
    let mut open_links: Vec<&'static str> = Vec::new();
    let mut raw_block: Option<String> = None;
    for (event, range) in Parser::new_ext(source, options()).into_offset_iter() {
        if image.is_some() {
            match event {
                Event::End(TagEnd::Image) => {
                    if let Some((target, alt, title)) = image.take() {
                        events.push(Event::Html(CowStr::from(image_html(cx, target, &alt, &title))));
                    }
                }
                Event::Text(t) | Event::Code(t) => {
                    if let Some((_, alt, _)) = &mut image {
                        alt.push_str(&t);
                    }
                }
                _ => {}
            }
            continue;
        }
        if code.is_some() {
            match event {
                Event::Text(t) => {
                    if let Some((_, buffer)) = &mut code {
                        buffer.push_str(&t);
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, buffer) = code.take().unwrap_or_default();
                    let class = if lang.is_empty() {
                        String::new()
                    } else {
                        format!(" class=\"language-{}\"", escape(&lang))
                    };
                    events.push(Event::Html(CowStr::from(format!(
                        "<pre><code{class}>{}</code></pre>\n",
                        highlight(&buffer, &lang)
                    ))));
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let n = level as u8;
                let id = headings.find(|s| s.level == n).map(|s| s.id.as_str());
                let id = id.map(|id| format!(" id=\"{}\"", escape(id))).unwrap_or_default();
                events.push(Event::Html(CowStr::from(format!("<h{n}{id}>"))));
            }
            Event::End(TagEnd::Heading(level)) => {
                events.push(Event::Html(CowStr::from(format!("</h{}>\n", level as u8))));
            }
            Event::Start(Tag::Link { link_type, dest_url, .. }) => {
                // An email autolink (`<x@y.example>`) carries the address alone, as the compiler
                // records it with `mailto:`.
                let dest_url = match link_type {
                    LinkType::Email => CowStr::from(format!("mailto:{dest_url}")),
                    _ => dest_url,
                };
                let target = resolve(cx, &records, &dest_url, line_of(range.start));
                let (open, close) = match &target {
                    Target::Page(href, _) => (format!("<a href=\"{}\">", escape(href)), "</a>"),
                    Target::External(href) => (
                        format!("<a class=\"external\" href=\"{}\" rel=\"noreferrer\">", escape(href)),
                        "</a>",
                    ),
                    Target::Broken => (
                        format!(
                            "<span class=\"broken\" title=\"{}\">",
                            escape(&format!(
                                "not in this catalog: `{dest_url}` (a broken link, or a file the catalog does not hold)"
                            ))
                        ),
                        "</span>",
                    ),
                    Target::Refused => (
                        format!(
                            "<span class=\"refused\" title=\"{}\">",
                            escape(&format!("not followed: `{dest_url}`"))
                        ),
                        "</span>",
                    ),
                };
                open_links.push(close);
                events.push(Event::Html(CowStr::from(open)));
            }
            Event::End(TagEnd::Link) => {
                events.push(Event::Html(CowStr::from(open_links.pop().unwrap_or("</a>"))));
            }
            Event::Start(Tag::Image { dest_url, title, .. }) => {
                let target = resolve(cx, &records, &dest_url, line_of(range.start));
                image = Some((target, String::new(), title.to_string()));
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split([' ', ',', '{']).next().unwrap_or("").trim().to_owned()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((lang, String::new()));
            }
            // Raw HTML is the tree's: shown as the text it is, never as markup.
            // A block is shown once whole (a comment alone shows nothing); an inline tag as text.
            Event::Start(Tag::HtmlBlock) => raw_block = Some(String::new()),
            Event::End(TagEnd::HtmlBlock) => {
                let block = raw_block.take().unwrap_or_default();
                if !block.trim().is_empty() {
                    let html = format!("<pre class=\"raw-html\">{}</pre>\n", escape(&block));
                    events.push(Event::Html(CowStr::from(html)));
                }
            }
            Event::Html(raw) | Event::InlineHtml(raw) => {
                let comment = raw.trim_start().starts_with("<!--");
                match &mut raw_block {
                    Some(block) if !comment => block.push_str(&raw),
                    Some(_) => {}
                    None if comment => {}
                    None => events.push(Event::Text(raw)),
                }
            }
            other => events.push(other),
        }
    }
    pulldown_cmark::html::push_html(&mut out, events.into_iter());
    out
}

/// An image: the catalog's own from `/raw/`; anything else a link or text.
fn image_html(cx: &Context<'_>, target: Target, alt: &str, title: &str) -> String {
    let alt_text = if alt.is_empty() { "image".to_owned() } else { alt.to_owned() };
    match target {
        Target::Page(href, entry) => {
            let is_image =
                |i: &u32| cx.catalog.entries.get(*i as usize).is_some_and(|e| e.mime.starts_with("image/"));
            match entry.filter(is_image) {
                Some(idx) => format!(
                    "<img src=\"/raw{}\" alt=\"{}\" title=\"{}\">",
                    escape(cx.sitemap.page(idx)),
                    escape(alt),
                    escape(title)
                ),
                None => format!("<a href=\"{}\">{}</a>", escape(&href), escape(&alt_text)),
            }
        }
        Target::External(href) => format!(
            "<a class=\"external\" href=\"{}\" rel=\"noreferrer\">[image: {}]</a>",
            escape(&href),
            escape(&alt_text)
        ),
        Target::Broken | Target::Refused => {
            format!(
                "<span class=\"broken\" title=\"not in this catalog\">[image: {}]</span>",
                escape(&alt_text)
            )
        }
    }
}

/// Where `dest`, written on `line` of the entry, leads.
fn resolve(cx: &Context<'_>, records: &Records<'_>, dest: &str, line: u32) -> Target {
    let dest = dest.trim();
    if let Some(anchor) = dest.strip_prefix('#') {
        return Target::Page(format!("#{anchor}"), None);
    }
    if let Some((scheme, _)) = dest.split_once(':')
        && !scheme.is_empty()
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !scheme.contains('/')
    {
        return match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" | "mailto" => Target::External(dest.to_owned()),
            _ => Target::Refused,
        };
    }
    if dest.starts_with("//") {
        return Target::External(format!("https:{dest}"));
    }
    // The compiler's record of this link: resolved by the site's rules.
    if let Some(link) = records.find(line, dest) {
        return match (&link.resolved, link.kind) {
            (Some(uri), _) => match cx.sitemap.entry_of_uri(cx.catalog, uri) {
                Some(idx) => Target::Page(
                    with_anchor(cx.sitemap.page(idx).to_owned(), link.anchor.as_deref()),
                    Some(idx),
                ),
                None => Target::Broken,
            },
            (None, LinkKind::External) => Target::External(dest.to_owned()),
            (None, _) => Target::Broken,
        };
    }
    relative(cx, dest).unwrap_or(Target::Broken)
}

/// `dest` resolved against the entry's folder (or, starting with `/`, against `docs/`), trying
/// the forms a page is linked by (`x`, `x.md`, `x/index.md`, `x/README.md`).
fn relative(cx: &Context<'_>, dest: &str) -> Option<Target> {
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (dest, None),
    };
    let path = path.split('?').next().unwrap_or(path);
    let path = percent_decode(path).ok()?;
    let mut parts: Vec<&str> = if path.starts_with('/') {
        vec!["docs"]
    } else {
        cx.path.split('/').collect::<Vec<_>>().split_last().map(|(_, dir)| dir.to_vec()).unwrap_or_default()
    };
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    let candidates =
        [joined.clone(), format!("{joined}.md"), format!("{joined}/index.md"), format!("{joined}/README.md")];
    let idx = candidates.iter().find_map(|c| cx.sitemap.at_path(c))?;
    Some(Target::Page(with_anchor(cx.sitemap.page(idx).to_owned(), anchor), Some(idx)))
}

fn with_anchor(mut page: String, anchor: Option<&str>) -> String {
    if let Some(anchor) = anchor.filter(|a| !a.is_empty()) {
        let _ = write!(page, "#{anchor}");
    }
    page
}
