//! The search page: the same search as the MCP tools and `folio search` (the query layer's),
//! results with their snippets, a link to the next page, and the filters a person can set
//! (kind, language). `partial` answers only the results, for search as you type.

use std::fmt::Write as _;

use super::View;
use super::html::{escape, snippet};
use crate::query::{Kind, SearchParams};

/// What the address `/search?…` asks.
#[derive(Debug, Default)]
pub(crate) struct Asked {
    pub(crate) q: String,
    pub(crate) kind: Option<String>,
    pub(crate) lang: Option<String>,
    pub(crate) cursor: Option<String>,
}

impl Asked {
    /// From a query string (`q=a+b&kind=doc`); unknown keys are ignored.
    pub(crate) fn parse(query: &str) -> Asked {
        let mut asked = Asked::default();
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = value.replace('+', " ");
            let value = crate::catalog::uri::percent_decode(&value).unwrap_or_default();
            match key {
                "q" => asked.q = value,
                "kind" if !value.is_empty() && value != "all" => asked.kind = Some(value),
                "lang" if !value.is_empty() => asked.lang = Some(value),
                "cursor" if !value.is_empty() => asked.cursor = Some(value),
                _ => {}
            }
        }
        asked
    }
}

/// The results of `asked` as HTML (the list, or why there is none).
pub(crate) fn results(view: &View<'_>, asked: &Asked) -> String {
    if asked.q.trim().is_empty() {
        return "<div id=\"results\"><p class=\"empty\">Type words to search for.</p></div>\n".to_owned();
    }
    let kind = match asked.kind.as_deref().map(Kind::parse_filter) {
        Some(Ok(kind)) => kind,
        Some(Err(e)) => {
            return format!("<div id=\"results\"><p class=\"error\">{}</p></div>\n", escape(&e.to_string()));
        }
        None => None,
    };
    let params = SearchParams {
        query: asked.q.clone(),
        kind,
        lang: asked.lang.clone(),
        cursor: asked.cursor.clone(),
        limit: Some(20),
        ..SearchParams::default()
    };
    let page = match view.query.search(&params) {
        Ok(page) => page,
        Err(e) => {
            return format!("<div id=\"results\"><p class=\"error\">{}</p></div>\n", escape(&e.to_string()));
        }
    };
    let mut out = format!(
        "<div id=\"results\">\n<p class=\"count\">{} {} for <q>{}</q></p>\n",
        page.total,
        if page.total == 1 { "result" } else { "results" },
        escape(&asked.q)
    );
    if page.items.is_empty() {
        out.push_str("<p class=\"empty\">Nothing matches. Try other words, or fewer.</p>\n");
    }
    out.push_str("<ol class=\"hits\">\n");
    for hit in &page.items {
        let Some(mut href) = view.sitemap.page_of_uri(view.catalog, &hit.uri) else { continue };
        if let Some(section) =
            hit.section_uri.as_deref().and_then(|s| s.split_once("?section=")).map(|(_, id)| id)
        {
            let _ = write!(href, "#{}", crate::catalog::uri::percent_decode(section).unwrap_or_default());
        }
        let label = match hit.kind {
            Kind::Skill => "skill",
            Kind::Doc => "doc",
            Kind::SkillFile => "skill file",
            Kind::Catalog => "catalog",
        };
        let locale = hit.locale.as_deref().map(|l| format!(" · {}", escape(l))).unwrap_or_default();
        let _ = writeln!(
            out,
            "<li><a href=\"{}\">{}</a> <span class=\"kind\">{label}{locale}</span><p class=\"uri\">{}</p><p>{}</p></li>",
            escape(&href),
            escape(&hit.title),
            escape(&hit.uri),
            snippet(&hit.snippet)
        );
    }
    out.push_str("</ol>\n");
    if let Some(next) = &page.next_cursor {
        let mut href = format!("/search?q={}", crate::catalog::uri::encode_query_value(&asked.q));
        for (key, value) in [("kind", &asked.kind), ("lang", &asked.lang)] {
            if let Some(value) = value {
                let _ = write!(href, "&{key}={}", crate::catalog::uri::encode_query_value(value));
            }
        }
        let _ = write!(href, "&cursor={}", crate::catalog::uri::encode_query_value(next));
        let _ = writeln!(out, "<p><a class=\"next\" href=\"{}\">More results</a></p>", escape(&href));
    }
    out.push_str("</div>\n");
    out
}

/// The whole search page: filters, then [`results`].
pub(crate) fn page(view: &View<'_>, asked: &Asked) -> (String, String) {
    let mut out =
        String::from("<h1>Search</h1>\n<form class=\"filters\" action=\"/search\" method=\"get\">\n");
    let _ = writeln!(
        out,
        "<input type=\"search\" name=\"q\" value=\"{}\" aria-label=\"Search words\">",
        escape(&asked.q)
    );
    out.push_str("<select name=\"kind\" aria-label=\"Kind\">");
    for (value, label) in
        [("all", "Everything"), ("skill", "Skills"), ("doc", "Docs"), ("skill_file", "Skill files")]
    {
        let selected = if asked.kind.as_deref().unwrap_or("all") == value { " selected" } else { "" };
        let _ = write!(out, "<option value=\"{value}\"{selected}>{label}</option>");
    }
    out.push_str("</select>\n");
    let mut locales: Vec<&str> = view.catalog.docs.iter().map(|d| d.locale.as_str()).collect();
    locales.sort_unstable();
    locales.dedup();
    if locales.len() > 1 {
        out.push_str(
            "<select name=\"lang\" aria-label=\"Language\"><option value=\"\">Any language</option>",
        );
        for locale in locales {
            let selected = if asked.lang.as_deref() == Some(locale) { " selected" } else { "" };
            let _ = write!(out, "<option value=\"{0}\"{selected}>{0}</option>", escape(locale));
        }
        out.push_str("</select>\n");
    }
    out.push_str("<button type=\"submit\">Search</button>\n</form>\n");
    out.push_str(&results(view, asked));
    let title = if asked.q.is_empty() { "Search".to_owned() } else { format!("Search: {}", asked.q) };
    (title, out)
}
