//! Links in raw HTML: the elements and attributes whose values are links (`<a href>`, `<img src>`,
//! …, and in MDX a component's `href`) found in an HTML block, inline HTML or a JSX tag, and HTML
//! character references decoded in them.
//!
//! A scanner, not an HTML parser: it must only find attribute values, never judge the HTML.
//! Pure; no IO.

/// The elements and attributes whose value is a link to check: what a page links to or embeds.
const HTML_LINK_ATTRIBUTES: &[(&str, &str)] =
    &[("a", "href"), ("img", "src"), ("source", "src"), ("video", "src"), ("audio", "src")];

/// True when `attribute` of `element` holds a link: an HTML pair above (in any case); and with
/// `jsx` (an MDX file), a component's `href` (Starlight's `<LinkCard>` and `<LinkButton>`,
/// Docusaurus's `<Link>`) or Docusaurus's `<Link to>`. Components are the elements named with
/// a capital letter, and their props are case-sensitive, as JSX has them.
pub(super) fn is_link(element: &str, attribute: &str, jsx: bool) -> bool {
    let component = jsx && element.starts_with(|c: char| c.is_ascii_uppercase());
    (component && (attribute == "href" || (element == "Link" && attribute == "to")))
        || HTML_LINK_ATTRIBUTES
            .iter()
            .any(|(e, a)| e.eq_ignore_ascii_case(element) && a.eq_ignore_ascii_case(attribute))
}

/// Calls `f(element, attribute, offset of the value in html, value as written)` for every
/// attribute with a value of every tag in a piece of raw HTML (`<a href="x.md">`,
/// `<img src='i.png'>`, `<div id=intro>`), in any case, quoting and spacing. Comments are skipped.
pub(super) fn html_attributes(html: &str, mut f: impl FnMut(&str, &str, usize, &str)) {
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
            if bytes.get(at) == Some(&b'{') {
                // A JSX attribute expression (`href={url}` in MDX) is code, not a link: skipped
                // to its closing brace.
                at = jsx_expression_end(bytes, at);
                continue;
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

/// The offset just after the JSX expression that opens at `bytes[start] == b'{'`: braces are
/// counted, and skipped inside string and template literals. The end of the input when it
/// never closes.
fn jsx_expression_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut quote = None;
    let mut at = start;
    while at < bytes.len() {
        let b = bytes[at];
        match quote {
            Some(_) if b == b'\\' => at += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'"' | b'\'' | b'`' => quote = Some(b),
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return at + 1;
                    }
                }
                _ => {}
            },
        }
        at += 1;
    }
    bytes.len()
}

/// `raw` with HTML character references decoded: the named ones a URL holds in practice
/// (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`) and numeric ones. Others are kept as written.
pub(super) fn decode_character_references(raw: &str) -> String {
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
