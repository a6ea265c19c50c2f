//! `folio.toml`: catalog settings (`[catalog]`, `[server]`), check settings (`[check]`) and lint
//! levels (`[lints]`, checked by `lints`).
//!
//! Pure: parses bytes the walk read. A malformed file is an `invalid-config` diagnostic at the
//! line and column the TOML parser names; unknown keys are refused so typos do not pass silently.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::diagnostic::{Code, Diagnostic};
use super::{lints, validate};
use crate::catalog::Settings;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    catalog: CatalogTable,
    #[serde(default)]
    server: ServerTable,
    #[serde(default)]
    check: CheckTable,
    #[serde(default)]
    lints: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    docs: DocsTable,
    #[serde(default)]
    skills: SkillsTable,
    #[serde(default)]
    site: SiteTable,
    #[serde(default)]
    search: SearchTable,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchTable {
    model: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SiteTable {
    heading_ids: Option<Spanned<String>>,
    base: Option<String>,
    nav_files: Option<Vec<String>>,
    ordering_prefixes: Option<bool>,
    case_insensitive_routes: Option<bool>,
    routes_from_root: Option<bool>,
    directory_urls: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocsTable {
    locales: Option<Spanned<Vec<String>>>,
    default_locale: Option<Spanned<String>>,
    dir: Option<Spanned<String>>,
    #[serde(rename = "static")]
    static_dirs: Option<Spanned<Vec<String>>>,
    generator: Option<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SkillsTable {
    dirs: Option<Spanned<Vec<String>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogTable {
    name: Option<String>,
    version: Option<String>,
    title: Option<String>,
    description: Option<String>,
    instructions: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerTable {
    ttl_ms: Option<u64>,
    max_read_bytes: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckTable {
    deny_warnings: Option<bool>,
    ignore_links: Option<Vec<String>>,
}

/// Settings from `folio.toml`, with what `folio check` needs besides the catalog's own settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Project {
    /// The catalog settings.
    pub settings: Settings,
    /// `[check] deny_warnings`.
    pub deny_warnings: bool,
    /// `[check] ignore_links`: link targets the resolver leaves alone (exact, or `prefix*`).
    pub ignore_links: Vec<String>,
    /// `[lints]`: the levels asked for, in file order, refused ones left out (and reported).
    pub lints: Vec<lints::Request>,
    /// `[docs] locales`: the locale folders of `docs/`, instead of detecting them.
    pub locales: Option<Vec<String>>,
    /// `[docs] default_locale`.
    pub default_locale: Option<String>,
    /// `[docs] dir`, `static` and `generator`, `[skills] dirs`: where the content is, checked
    /// against the tree by [`layout`](super::layout).
    pub layout: LayoutKeys,
    /// `[search] model`: the sentence encoder's directory, relative to the content root (read
    /// by the `folio` binary's semantic search; the compiler runs no model).
    pub search_model: Option<String>,
}

/// The layout keys of `folio.toml`, each with the line and column of its value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LayoutKeys {
    /// `[docs] dir`: the folder holding the pages, relative to the content root.
    pub docs: Option<(String, u32, u32)>,
    /// `[docs] static`: folders a site serves at `/`.
    pub assets: Option<(Vec<String>, u32, u32)>,
    /// `[docs] generator`: the site generator whose rules apply, or `"none"`.
    pub generator: Option<(String, u32, u32)>,
    /// `[skills] dirs`: folders holding skills.
    pub skills: Option<(Vec<String>, u32, u32)>,
    /// `[site]`: the site model's rules, each over the generator's preset.
    pub site: SiteKeys,
}

/// `folio.toml` `[site]`: each key, when given, replaces the detected generator's rule.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SiteKeys {
    /// `heading_ids`, checked.
    pub heading_ids: Option<super::markdown::HeadingIds>,
    /// `base`.
    pub base: Option<String>,
    /// `nav_files`.
    pub nav_files: Option<Vec<String>>,
    /// `ordering_prefixes`.
    pub ordering_prefixes: Option<bool>,
    /// `case_insensitive_routes`.
    pub case_insensitive_routes: Option<bool>,
    /// `routes_from_root`.
    pub routes_from_root: Option<bool>,
    /// `directory_urls`.
    pub directory_urls: Option<bool>,
}

/// `[search] model` of the `folio.toml` at the root of `canonical_root`, read as the compiler
/// reads it (a regular file inside the root); `None` when there is none. Problems with the file
/// are the compile's to report: here only the key is read.
pub fn search_model(canonical_root: &std::path::Path) -> Option<String> {
    let bytes = super::source::bounded::read_inside(canonical_root, "folio.toml")?;
    parse("folio.toml", &bytes, &mut Vec::new()).search_model
}

/// `[catalog] name` of the `folio.toml` at the root of `canonical_root`, as the compile reads it
/// (the default name when there is none): the name a catalog built from the tree will have.
pub fn catalog_name(canonical_root: &std::path::Path) -> String {
    let bytes = super::source::bounded::read_inside(canonical_root, "folio.toml").unwrap_or_default();
    parse("folio.toml", &bytes, &mut Vec::new()).settings.name
}

/// Parses `folio.toml` (path `path`, exact bytes). Problems are diagnostics; the defaults are used
/// for whatever could not be read.
pub(crate) fn parse(path: &str, bytes: &[u8], diags: &mut Vec<Diagnostic>) -> Project {
    let mut out = Project::default();
    // Bounded before parsing: a parse costs far more memory than the text.
    if bytes.len() as u64 > crate::compile::source::bounded::MAX_CONFIG_BYTES {
        diags.push(crate::compile::source::bounded::config_too_large(path, bytes.len() as u64));
        return out;
    }
    if let Some(d) = validate::utf8(path, bytes) {
        diags.push(d);
        return out;
    }
    let text = std::str::from_utf8(bytes).unwrap_or_default();
    let file: File = match toml::from_str(text) {
        Ok(file) => file,
        Err(e) => {
            let (line, column) = e.span().map_or((1, 1), |span| line_column(text, span.start));
            let message = e.message().trim().replace('\n', "; ");
            diags.push(
                Diagnostic::error(
                    Code::InvalidConfig,
                    path,
                    line,
                    column,
                    format!("invalid `folio.toml`: {message}"),
                )
                .with_help(
                    "known keys: [catalog] name, version, title, description, instructions; [server] ttl_ms, \
                         max_read_bytes; [check] deny_warnings, ignore_links; [lints] CODE = \"error\" | \"warn\" | \"allow\"; [docs] dir, static, generator, locales, \
                         default_locale; [skills] dirs; [site] heading_ids, base, nav_files, ordering_prefixes, \
                         case_insensitive_routes, routes_from_root, directory_urls; [search] model",
                ),
            );
            return out;
        }
    };
    let s = &mut out.settings;
    if let Some(v) = file.catalog.name {
        s.name = v;
    }
    s.version = file.catalog.version;
    if let Some(v) = file.catalog.title {
        s.title = v;
    }
    if let Some(v) = file.catalog.description {
        s.description = v;
    }
    s.instructions = file.catalog.instructions;
    if let Some(v) = file.server.ttl_ms {
        s.ttl_ms = v;
    }
    if let Some(v) = file.server.max_read_bytes {
        s.max_read_bytes = v;
    }
    out.deny_warnings = file.check.deny_warnings.unwrap_or(false);
    out.search_model = file.search.model;
    out.ignore_links = file.check.ignore_links.unwrap_or_default();
    out.lints = lint_requests(path, text, file.lints, diags);
    let at = |span: std::ops::Range<usize>| line_column(text, span.start);
    // Each value with the line and column it is at, where a problem with the folder it names
    // is reported.
    fn located<T: Clone>(text: &str, v: &Spanned<T>) -> (T, u32, u32) {
        let (line, column) = line_column(text, v.span().start);
        (v.get_ref().clone(), line, column)
    }
    out.layout = LayoutKeys {
        docs: file.docs.dir.as_ref().map(|v| located(text, v)),
        assets: file.docs.static_dirs.as_ref().map(|v| located(text, v)),
        generator: file.docs.generator.as_ref().map(|v| located(text, v)),
        skills: file.skills.dirs.as_ref().map(|v| located(text, v)),
        site: SiteKeys {
            heading_ids: file.site.heading_ids.and_then(|rule| {
                let parsed = super::markdown::HeadingIds::parse(rule.get_ref());
                if parsed.is_none() {
                    let (line, column) = at(rule.span());
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidConfig,
                            path,
                            line,
                            column,
                            format!(
                                "invalid `folio.toml` [site]: unknown heading_ids rule `{}`",
                                rule.get_ref()
                            ),
                        )
                        .with_help(
                            "the rules are \"github\", \"vitepress\", \"python-markdown\" and \"mdbook\"",
                        ),
                    );
                }
                parsed
            }),
            base: file.site.base.map(|b| b.trim_matches('/').to_owned()),
            nav_files: file.site.nav_files,
            ordering_prefixes: file.site.ordering_prefixes,
            case_insensitive_routes: file.site.case_insensitive_routes,
            routes_from_root: file.site.routes_from_root,
            directory_urls: file.site.directory_urls,
        },
    };
    (out.locales, out.default_locale) = docs_locales(path, text, file.docs, diags);
    out
}

/// `[docs] locales` and `default_locale`, checked: each a BCP 47 tag, the default one of the
/// locales when both are set. What fails is an `invalid-config` error and is not used.
fn docs_locales(
    path: &str,
    text: &str,
    docs: DocsTable,
    diags: &mut Vec<Diagnostic>,
) -> (Option<Vec<String>>, Option<String>) {
    let mut bad = |span: std::ops::Range<usize>, message: String| {
        let (line, column) = line_column(text, span.start);
        diags.push(
            Diagnostic::error(Code::InvalidConfig, path, line, column, format!("invalid `folio.toml` [docs]: {message}"))
                .with_help("locales are folder names under docs/ that are BCP 47 tags, such as `en`, `ja`, `zh-cn`, `pt-br`"),
        );
    };
    let locales = docs.locales.and_then(|list| {
        let span = list.span();
        let list = list.into_inner();
        match list.iter().find(|l| !super::locales::is_tag(l)) {
            Some(l) => {
                bad(span, format!("`{l}` is not a BCP 47 language tag"));
                None
            }
            None => Some(list),
        }
    });
    let default = docs.default_locale.and_then(|d| {
        let span = d.span();
        let d = d.into_inner();
        if !super::locales::is_tag(&d) {
            bad(span, format!("`default_locale` `{d}` is not a BCP 47 language tag"));
            return None;
        }
        if let Some(list) = &locales
            && !list.contains(&d)
        {
            bad(span, format!("`default_locale` `{d}` is not one of `locales`"));
            return None;
        }
        Some(d)
    });
    (locales, default)
}

/// The `[lints]` table's requests, in file order; an unknown code or level, or a code that
/// cannot be lowered, is an `invalid-config` error at its key or value.
fn lint_requests(
    path: &str,
    text: &str,
    table: BTreeMap<Spanned<String>, Spanned<String>>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<lints::Request> {
    let mut entries: Vec<_> = table.into_iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    let mut out = Vec::new();
    for (key, value) in entries {
        let (line, column) = line_column(text, key.span().start);
        let Some(level) = lints::Level::parse(value.get_ref()) else {
            let (line, column) = line_column(text, value.span().start);
            diags.push(
                Diagnostic::error(
                    Code::InvalidConfig,
                    path,
                    line,
                    column,
                    format!(
                        "invalid `folio.toml`: unknown lint level `{}` for `{}`",
                        value.get_ref(),
                        key.get_ref()
                    ),
                )
                .with_help("a lint level is \"error\", \"warn\" or \"allow\""),
            );
            continue;
        };
        let request = lints::Request {
            code: key.get_ref().clone(),
            level,
            set_by: lints::SetBy::Config { line, column },
        };
        if let Some(why) = lints::refusal(&request) {
            diags.push(
                Diagnostic::error(Code::InvalidConfig, path, line, column, format!("invalid `folio.toml` [lints]: {why}"))
                    .with_help("every code is listed in the diagnostics reference (`folio show docs/diagnostics/index.md`)"),
            );
            continue;
        }
        out.push(request);
    }
    out
}

/// 1-based line and character column of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (u32::try_from(line).unwrap_or(u32::MAX), u32::try_from(column).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_section() {
        let mut diags = Vec::new();
        let text = "[catalog]\nname = \"acme\"\ntitle = \"Acme\"\ninstructions = \"be brief\"\n\
                    [server]\nttl_ms = 1000\nmax_read_bytes = 4096\n[check]\ndeny_warnings = true\n";
        let parsed = parse("folio.toml", text.as_bytes(), &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(parsed.settings.name, "acme");
        assert_eq!(parsed.settings.instructions.as_deref(), Some("be brief"));
        assert_eq!((parsed.settings.ttl_ms, parsed.settings.max_read_bytes), (1000, 4096));
        assert!(parsed.deny_warnings);
    }

    #[test]
    fn bad_toml_is_located() {
        let mut diags = Vec::new();
        parse("folio.toml", b"[server]\nttl_ms = \"soon\"\n", &mut diags);
        assert_eq!((diags[0].code, diags[0].line, diags[0].column), (Code::InvalidConfig, 2, 10));
        diags.clear();
        parse("folio.toml", b"[catalog]\nnmae = \"x\"\n", &mut diags);
        assert_eq!((diags[0].line, diags[0].column), (2, 1));
        diags.clear();
        parse("folio.toml", b"[catalog\n", &mut diags);
        assert_eq!(diags[0].line, 1);
    }

    #[test]
    fn lints_are_read_in_file_order_and_checked() {
        let mut diags = Vec::new();
        let text = "[lints]\norphan-doc = \"allow\"\nbroken-link = \"warn\"\nduplicate-uri = \"warn\"\n\
                    broken-anchor = \"loud\"\nbroken-lnk = \"warn\"\n";
        let parsed = parse("folio.toml", text.as_bytes(), &mut diags);
        let got: Vec<_> =
            parsed.lints.iter().map(|r| (r.code.as_str(), r.level, r.set_by.to_string())).collect();
        assert_eq!(
            got,
            [
                ("orphan-doc", lints::Level::Allow, "folio.toml:2:1".to_owned()),
                ("broken-link", lints::Level::Warn, "folio.toml:3:1".to_owned())
            ]
        );
        let found: Vec<_> = diags.iter().map(|d| (d.line, d.column, d.message.as_str())).collect();
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!((found[0].0, found[0].1), (4, 1));
        assert!(found[0].2.contains("`duplicate-uri` cannot be lowered to `warn`"));
        assert_eq!((found[1].0, found[1].1), (5, 17));
        assert!(found[2].2.contains("did you mean `broken-link`?"));
    }
}
