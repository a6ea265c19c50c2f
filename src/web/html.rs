//! HTML text: escaping, and the page every view is written into (header with the search box,
//! the stylesheet and script of `assets/`, nothing from elsewhere).
//!
//! Every value from the tree (titles, descriptions, paths, bodies) reaches a page through
//! [`escape`] or through pulldown-cmark's writer, which escapes text and attributes too. Nothing
//! here reads the catalog.

use std::fmt::Write as _;

/// `text` with `& < > " '` escaped: safe inside an element and inside a quoted attribute.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// What a page shows around its body.
pub(crate) struct Shell<'a> {
    /// The catalog's title (`[catalog] title`), in the header and the window title.
    pub(crate) site: &'a str,
    /// The page's own title.
    pub(crate) title: &'a str,
    /// What the search box holds (the query of a results page).
    pub(crate) query: &'a str,
    /// The catalog can change (`--content`, `--catalog` reloads): the script reloads the page
    /// when it does.
    pub(crate) live: bool,
    /// The catalog's hash: the version the script compares with `/_/version`.
    pub(crate) version: &'a str,
}

impl Shell<'_> {
    /// The whole document: `body` (HTML already escaped) in the page frame.
    pub(crate) fn page(&self, body: &str) -> String {
        let mut out = String::with_capacity(body.len() + 1024);
        let title = if self.title == self.site {
            escape(self.site)
        } else {
            format!("{} · {}", escape(self.title), escape(self.site))
        };
        let _ = write!(
            out,
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{title}</title>\n<link rel=\"stylesheet\" href=\"/_/style.css\">\n\
             <script src=\"/_/browse.js\" defer></script>\n</head>\n\
             <body data-version=\"{version}\"{live}>\n<header class=\"top\">\n\
             <a class=\"home\" href=\"/\">{site}</a>\n\
             <form class=\"search\" action=\"/search\" method=\"get\" role=\"search\">\n\
             <input type=\"search\" name=\"q\" value=\"{query}\" placeholder=\"Search\" aria-label=\"Search\" \
             autocomplete=\"off\">\n<button type=\"submit\">Search</button>\n</form>\n</header>\n\
             <div id=\"suggest\" class=\"suggest\" hidden></div>\n<main>\n",
            version = escape(self.version),
            live = if self.live { " data-live=\"1\"" } else { "" },
            site = escape(self.site),
            query = escape(self.query),
        );
        out.push_str(body);
        out.push_str("</main>\n</body>\n</html>\n");
        out
    }
}

/// A snippet as search writes it (matched terms as `**term**`) in HTML: escaped, the marks as
/// `<mark>`.
pub(crate) fn snippet(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split("**").enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<mark>{}</mark>", escape(part));
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

/// Tags as the pages show them: each in its own escaped `<span class="tag">`.
pub(crate) fn tags(tags: &[String]) -> String {
    tags.iter().map(|t| format!("<span class=\"tag\">{}</span>", escape(t))).collect()
}

/// `n` bytes as a person reads them.
pub(crate) fn size(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / 1024.0),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_elements_and_quoted_attributes() {
        assert_eq!(
            escape("<script>alert('x&y')</script>\""),
            "&lt;script&gt;alert(&#39;x&amp;y&#39;)&lt;/script&gt;&quot;"
        );
        assert_eq!(snippet("a **<b>** c"), "a <mark>&lt;b&gt;</mark> c");
    }

    #[test]
    fn a_page_escapes_its_titles_and_query() {
        let shell = Shell { site: "S<1>", title: "T\"2", query: "q<", live: true, version: "abc" };
        let page = shell.page("<p>body</p>");
        assert!(page.contains("<title>T&quot;2 · S&lt;1&gt;</title>"), "{page}");
        assert!(page.contains("value=\"q&lt;\""));
        assert!(page.contains("data-live=\"1\""));
        assert!(!page.contains("http://") && !page.contains("https://"), "no asset from elsewhere");
    }
}
