//! MDX syntax that is not markdown, in one place for every reader of an `.mdx` body: the
//! compiler (headings, sections, links, first paragraph), search (indexing, snippets, at build
//! time and at run time) and anything else that parses MDX.
//!
//! What it knows:
//! - the ESM `import`/`export` statements at the top of a body (`skip_esm`), which are module
//!   code, not prose;
//! - JSX flow elements: a line holding only tags (`<Tabs>`, `</Fragment>`, `<TabItem
//!   label="npm">`, `<Steps>`, `<LinkCard href="/x/" />`, `<div>`), possibly indented and a tag
//!   possibly spanning several lines, and a line holding only an expression (`{/* comment */}`,
//!   `{frontmatter.title}`). MDX reads the markdown between such tags as markdown; CommonMark
//!   would start an HTML block at the tag that runs to the next blank line and swallows it (a
//!   code fence opened inside it is never seen to open, and its closing fence opens one that runs
//!   to the end of the file). [`jsx_flow`] finds them so a markdown parser can be given the body
//!   with those lines blanked: spaces in place of every byte but line endings, so every offset,
//!   line and column stays the same.
//!
//! The rule, as MDX's own (micromark) parser has it: a flow line starts, after any indentation,
//! with a tag or an expression, and holds nothing but tags, expressions and whitespace; it may
//! interrupt a paragraph. A line inside a fenced code block is code. A tag ends at its `>` outside
//! quoted attribute values and `{…}` expressions, so `>` in `title="a > b"` or `{a > b}` does not
//! end it. A tag that is followed by text on its line (`<Since v="1.0" /> text`) is inline JSX in
//! a paragraph, left to the markdown parser, unless CommonMark would start an HTML block at it
//! (`<summary>Show me</summary>`, `<p>Text.</p>`, `<Aside>Note.</Aside>`: an HTML block name,
//! in any case); then the leading tags alone are blanked and the text stays. After a tag or expression that never closes (MDX
//! rejects such a file), no later line is read as JSX: the scan stays linear in the body.
//!
//! Search reads a body with those lines blanked too, but for the quoted attribute values of their
//! tags, which the page shows ([`JsxFlow::search_blanks`]).
//!
//! Pure: no IO, no markdown parsing (that is the compiler's).

use std::ops::Range;

/// True for an `.mdx` path (any case).
pub fn is_mdx(path: &str) -> bool {
    path.len() >= 4 && path.as_bytes()[path.len() - 4..].eq_ignore_ascii_case(b".mdx")
}

/// `body` after the MDX `import`/`export` statements at its top (and the blank lines around
/// them); `body` itself when it does not start with one. A statement runs over several lines
/// while its brackets are open (`import {\n  a,\n} from 'x';`).
pub(crate) fn skip_esm(body: &str) -> &str {
    let mut at = 0;
    let mut end = 0;
    let mut depth: i64 = 0;
    let mut in_statement = false;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim();
        if !in_statement {
            if trimmed.is_empty() {
                at += line.len();
                continue;
            }
            let starts = ["import ", "import{", "export "].iter().any(|k| trimmed.starts_with(k));
            if !starts {
                break;
            }
            in_statement = true;
        }
        for c in line.chars() {
            match c {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        at += line.len();
        if depth <= 0 {
            depth = 0;
            in_statement = false;
            end = at;
        }
    }
    if end == 0 {
        return body;
    }
    // The blank lines after the last statement go with it.
    let rest = &body[end..];
    let blank: usize = rest.split_inclusive('\n').take_while(|l| l.trim().is_empty()).map(str::len).sum();
    &rest[blank..]
}

/// The markdown files an MDX body imports to render in place (`import Intro from
/// './_intro.mdx';`, the partials of Docusaurus, Starlight and Nextra), as (offset of the path,
/// path), in source order: a statement at the start of a line whose module is a relative path to
/// a `.md` or `.mdx` file. Other imports (components, packages, aliases such as `@site/`) are
/// code. The caller leaves out statements inside code blocks.
pub(crate) fn markdown_imports(body: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        let start = at;
        at += line.len();
        if !line.starts_with("import ") {
            continue;
        }
        let Some(from) = line.rfind(" from ") else { continue };
        let rest = line[from + 6..].trim_start();
        let Some(quote) = rest.chars().next().filter(|c| matches!(c, '"' | '\'')) else { continue };
        let Some(len) = rest[1..].find(quote) else { continue };
        // A JavaScript string: `\_` is `_` (Docusaurus's docs escape the underscore of a
        // partial's name, as markdown would need).
        let path = unescape_js(&rest[1..1 + len]);
        if super::is_markdown(&path) && (path.starts_with("./") || path.starts_with("../")) {
            out.push((start + (line.len() - rest.len()) + 1, path));
        }
    }
    out
}

/// A JavaScript string literal's text with its escapes read: `\x` is `x` for any character a
/// path holds (the escapes that stand for other characters, `\n` or `\u0041`, have no place in
/// an import path and are read the same way).
fn unescape_js(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// The JSX flow lines of an MDX body (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JsxFlow {
    /// Byte ranges to blank, in order: the flow constructs' lines, from the start of the first
    /// line to the end of the last one (its `\n` or `\r\n` excluded), and the leading tags of a
    /// line of inline JSX that CommonMark would read as the start of an HTML block
    /// (`<summary>Show me</summary>`, `<p>Text.</p>`, `<Aside>Note.</Aside>`).
    pub blanked: Vec<Range<usize>>,
    /// Byte ranges of the tags in those ranges (`<a href="x">`), in order: their attributes are
    /// still links and ids.
    pub tags: Vec<Range<usize>>,
    /// True when a line outside code fences is indented four columns or more, or will be once
    /// its leading tags are blanked: only then can CommonMark read indented code where MDX has
    /// none.
    pub deep_indent: bool,
}

impl JsxFlow {
    /// `body` with the [`JsxFlow::blanked`] ranges blanked (every byte but `\r` and `\n` a
    /// space), or `None` when there is none. Lengths, offsets and line numbers are those of `body`.
    pub fn blank(&self, body: &str) -> Option<String> {
        blank(body, &self.blanked, &[])
    }

    /// What search blanks in `body` (the body these lines were found in): the same ranges, but
    /// for the quoted attribute values of their tags (`Deploy` in `<LinkCard title="Deploy" />`),
    /// text the page shows. Tag and prop names and expressions are markup: `<PackageManagerTabs>`
    /// is no match for "package manager".
    pub fn search_blanks(&self, body: &str) -> SearchBlanks {
        let mut kept = Vec::new();
        for tag in &self.tags {
            // The tags were read by `tag_end` when they were found: this reads them again.
            let _ = tag_end_with(body.as_bytes(), tag.start, &mut |value| kept.push(value));
        }
        SearchBlanks { blanked: self.blanked.clone(), kept }
    }
}

/// What search blanks in one MDX body ([`JsxFlow::search_blanks`]): found once, applied to that
/// body as often as it is read (the scan that finds them costs several times the copy).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchBlanks {
    /// Ranges blanked, as [`JsxFlow::blanked`].
    blanked: Vec<Range<usize>>,
    /// Ranges inside them kept as written.
    kept: Vec<Range<usize>>,
}

impl SearchBlanks {
    /// `body` as search reads it: `None` when nothing is blanked. Lengths, offsets and lines are
    /// `body`'s.
    pub fn apply(&self, body: &str) -> Option<String> {
        blank(body, &self.blanked, &self.kept)
    }
}

/// `body` with every byte of the `blanked` ranges but `\r` and `\n` a space, except the bytes of
/// the `kept` ranges inside them; `None` when nothing is blanked.
fn blank(body: &str, blanked: &[Range<usize>], kept: &[Range<usize>]) -> Option<String> {
    if blanked.is_empty() {
        return None;
    }
    let mut bytes = body.as_bytes().to_vec();
    for range in blanked {
        for b in bytes.get_mut(range.clone()).unwrap_or_default() {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    for value in kept {
        if let (Some(to), Some(from)) = (bytes.get_mut(value.clone()), body.as_bytes().get(value.clone())) {
            to.copy_from_slice(from);
        }
    }
    // A multi-byte character is blanked byte by byte, and whole values are copied back: still
    // valid UTF-8.
    Some(String::from_utf8(bytes).unwrap_or_else(|_| body.to_owned()))
}

/// Finds the JSX flow lines of an MDX body: the lines a markdown parser must not read as HTML
/// blocks (see the module docs).
pub fn jsx_flow(body: &str) -> JsxFlow {
    let bytes = body.as_bytes();
    let mut flow = JsxFlow::default();
    let mut fence: Option<Fence> = None;
    let mut unclosed = false;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        let indent = line.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
        if fence.is_none() && !flow.deep_indent && indent < line.len() && !matches!(line[indent], b'\r') {
            flow.deep_indent = line[..indent].contains(&b'\t') || indent >= 4;
        }
        if let Some(open) = fence {
            if open.closed_by(&line[indent..]) {
                fence = None;
            }
        } else if let Some(open) = Fence::opened_by(&line[indent..]) {
            fence = Some(open);
        } else if !unclosed && matches!(line.get(indent), Some(b'<' | b'{')) {
            match flow_line(bytes, start + indent) {
                Scan::Flow(last, tags) => {
                    let next = memchr::memchr(b'\n', &bytes[last..]).map_or(bytes.len(), |i| last + i);
                    let line_end = if next > last && bytes[next - 1] == b'\r' { next - 1 } else { next };
                    flow.blanked.push(start..line_end);
                    flow.tags.extend(tags);
                    start = next + 1;
                    continue;
                }
                Scan::Unclosed => unclosed = true,
                Scan::Inline(lead, tags) => {
                    if tags.first().is_some_and(|tag| starts_html_block(&bytes[tag.clone()])) {
                        flow.blanked.push(start + indent..lead);
                        flow.tags.extend(tags);
                        // The text now starts as deep as the tags were long.
                        flow.deep_indent |= lead - start >= 4;
                        // The tags may span lines: go on after the line their text is on.
                        start = memchr::memchr(b'\n', &bytes[lead..]).map_or(bytes.len(), |i| lead + i + 1);
                        continue;
                    }
                }
            }
        }
        start = end + 1;
    }
    flow
}

/// An open code fence: its character and length. The one fence rule of MDX reading and of
/// search's bodies (`search::tokenize_body`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fence {
    char: u8,
    len: usize,
}

impl Fence {
    /// The fence a line (without its indentation) opens: three or more backticks (with no
    /// backtick in the info string after them) or tildes.
    pub(crate) fn opened_by(line: &[u8]) -> Option<Fence> {
        let char = *line.first().filter(|&&c| c == b'`' || c == b'~')?;
        let len = line.iter().take_while(|&&b| b == char).count();
        (len >= 3 && (char == b'~' || !line[len..].contains(&b'`'))).then_some(Fence { char, len })
    }

    /// True when a line (without its indentation) closes this fence: at least as many of its
    /// characters, then only whitespace.
    pub(crate) fn closed_by(self, line: &[u8]) -> bool {
        let len = line.iter().take_while(|&&b| b == self.char).count();
        len >= self.len && line[len..].iter().all(u8::is_ascii_whitespace)
    }
}

/// What [`flow_line`] found.
enum Scan {
    /// A flow line: the offset of the end of its last construct (on its last line) and the
    /// ranges of its tags.
    Flow(usize, Vec<Range<usize>>),
    /// A tag or an expression that never closes.
    Unclosed,
    /// Not a flow line: text after the constructs that end at the offset, or something that is
    /// not a tag. The ranges of the leading tags.
    Inline(usize, Vec<Range<usize>>),
}

/// Reads the constructs of a line that starts with `<` or `{` at `at`: tags and expressions
/// separated by spaces, then the end of the line.
fn flow_line(bytes: &[u8], mut at: usize) -> Scan {
    let mut tags = Vec::new();
    loop {
        while matches!(bytes.get(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        let end = match bytes.get(at) {
            None | Some(b'\n' | b'\r') => return Scan::Flow(at, tags),
            Some(b'<') => tag_end(bytes, at),
            Some(b'{') => expression_end(bytes, at),
            _ => return Scan::Inline(at, tags),
        };
        match end {
            Ok(end) => {
                if bytes[at] == b'<' {
                    tags.push(at..end);
                }
                at = end;
            }
            Err(Unclosed) => return Scan::Unclosed,
            Err(NotJsx) => return Scan::Inline(at, tags),
        }
    }
}

/// True when a tag's name is one that starts a CommonMark HTML block even with text after it on
/// its line (types 1 and 6: `<pre`, `<div`, `<p`, `<summary`, `</aside`, in any case). MDX reads
/// that text as a paragraph; CommonMark's block would run to the next blank line.
fn starts_html_block(tag: &[u8]) -> bool {
    const NAMES: &[&str] = &[
        "address",
        "article",
        "aside",
        "base",
        "basefont",
        "blockquote",
        "body",
        "caption",
        "center",
        "col",
        "colgroup",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frame",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "head",
        "header",
        "hr",
        "html",
        "iframe",
        "legend",
        "li",
        "link",
        "main",
        "menu",
        "menuitem",
        "nav",
        "noframes",
        "ol",
        "optgroup",
        "option",
        "p",
        "param",
        "pre",
        "script",
        "search",
        "section",
        "source",
        "style",
        "summary",
        "table",
        "tbody",
        "td",
        "textarea",
        "tfoot",
        "th",
        "thead",
        "title",
        "tr",
        "track",
        "ul",
    ];
    let at = skip_whitespace(tag, 1);
    let at = if tag.get(at) == Some(&b'/') { skip_whitespace(tag, at + 1) } else { at };
    let name = &tag[at..name_end(tag, at)];
    NAMES.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(name))
}

/// Why a construct was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// The input ends inside it.
    Unclosed,
    /// It is not JSX (`<https://x>`, `<!-- x -->`, `<3`).
    NotJsx,
}
use Failure::{NotJsx, Unclosed};

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// True for a byte that may start a JSX name: an ASCII letter, `$` or `_`. (JavaScript allows
/// any script; docs name their components in ASCII, and prose that opens a line with `<` and a
/// letter of another script is far more likely than such a component.)
fn name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'$' || b == b'_'
}

/// The end of a JSX name (`Tabs`, `my-element`, `Astro.Fragment`, `svg:rect`) starting at `at`.
fn name_end(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|&b| name_start(b) || b.is_ascii_digit() || matches!(b, b'-' | b'.' | b':'))
    {
        at += 1;
    }
    at
}

/// The offset just after the tag that opens at `bytes[start] == b'<'`: `<Name attr="v" {...x}>`,
/// `</Name>`, `<Name />`, `<>` or `</>`.
fn tag_end(bytes: &[u8], start: usize) -> Result<usize, Failure> {
    tag_end_with(bytes, start, &mut |_| {})
}

/// [`tag_end`], calling `string_value` with the range of the text of each quoted attribute
/// value (`Deploy` in `title="Deploy"`), in order.
fn tag_end_with(
    bytes: &[u8],
    start: usize,
    string_value: &mut dyn FnMut(Range<usize>),
) -> Result<usize, Failure> {
    let mut at = skip_whitespace(bytes, start + 1);
    let closing = bytes.get(at) == Some(&b'/');
    if closing {
        at = skip_whitespace(bytes, at + 1);
    }
    match bytes.get(at) {
        Some(b'>') => return Ok(at + 1),
        Some(&b) if name_start(b) => at = name_end(bytes, at),
        None => return Err(Unclosed),
        Some(_) => return Err(NotJsx),
    }
    // A name ending in `:` or `.` was not one (`<https://x>`).
    if matches!(bytes[at - 1], b':' | b'.') {
        return Err(NotJsx);
    }
    loop {
        at = skip_whitespace(bytes, at);
        match bytes.get(at) {
            None => return Err(Unclosed),
            Some(b'>') => return Ok(at + 1),
            Some(b'/') => {
                at = skip_whitespace(bytes, at + 1);
                return match bytes.get(at) {
                    Some(b'>') => Ok(at + 1),
                    None => Err(Unclosed),
                    Some(_) => Err(NotJsx),
                };
            }
            Some(b'{') => at = expression_end(bytes, at)?,
            Some(&b) if name_start(b) => {
                at = skip_whitespace(bytes, name_end(bytes, at));
                if bytes.get(at) != Some(&b'=') {
                    continue;
                }
                at = skip_whitespace(bytes, at + 1);
                at = match bytes.get(at) {
                    Some(&q @ (b'"' | b'\'')) => {
                        // JSX strings have no escapes and may span lines.
                        let len = memchr::memchr(q, &bytes[at + 1..]).ok_or(Unclosed)?;
                        string_value(at + 1..at + 1 + len);
                        at + 2 + len
                    }
                    Some(b'{') => expression_end(bytes, at)?,
                    None => return Err(Unclosed),
                    Some(_) => return Err(NotJsx),
                };
            }
            Some(_) => return Err(NotJsx),
        }
    }
}

/// The offset just after the expression that opens at `bytes[start] == b'{'`: braces are
/// counted outside JavaScript strings, template literals and comments.
fn expression_end(bytes: &[u8], start: usize) -> Result<usize, Failure> {
    let mut depth = 0usize;
    let mut at = start;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(at + 1);
                }
            }
            b'"' | b'\'' => {
                // A quoted string ends at its line: an apostrophe in JSX text inside an
                // expression (`{x && <p>don't</p>}`) must not hide the rest of the body.
                let rest = &bytes[at + 1..];
                let line = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
                at += 1 + string_end(&rest[..line], b).unwrap_or(line);
            }
            b'`' => at += 1 + string_end(&bytes[at + 1..], b'`').ok_or(Unclosed)?,
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                let len = memchr::memmem::find(&bytes[at + 2..], b"*/").ok_or(Unclosed)?;
                at += 2 + len + 1;
            }
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at += memchr::memchr(b'\n', &bytes[at..]).ok_or(Unclosed)?;
            }
            _ => {}
        }
        at += 1;
    }
    Err(Unclosed)
}

/// Offset in `bytes` of the `quote` that ends a string whose text starts at `bytes[0]`, past
/// backslash escapes.
fn string_end(bytes: &[u8], quote: u8) -> Option<usize> {
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        if b == b'\\' {
            at += 2;
            continue;
        }
        if b == quote {
            return Some(at);
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests;
