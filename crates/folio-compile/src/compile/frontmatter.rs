//! Frontmatter: split the `---` block off a markdown file, parse its YAML into a located tree
//! (`yaml`), and read it into the typed [`DocMeta`] here or [`SkillMeta`] (`skill`).
//!
//! The YAML is read with yaml-rust2's event parser (the engine gray_matter uses) rather than
//! through gray_matter, for three reasons: every event carries a position, so each diagnostic
//! points at the offending key or value; aliases are expanded under a node budget, so an alias
//! bomb ("billion laughs") is refused after a few thousand nodes instead of exhausting memory; and
//! gray_matter's `Pod` keeps maps in `HashMap`s, while output must be ordered. The fence is
//! [`crate::catalog::fence`]'s (gray_matter's drops CRLF, line numbers and an unclosed block's
//! first line); a property test there holds the two together where their rules meet.
//!
//! This file owns the split into block and body, the top-level mapping (with duplicate keys), the field readers both
//! schemas share, and the doc schema. It must not grow skill rules (they are `skill`'s) or YAML
//! scalar typing (`yaml`'s). Pure: no IO. Diagnostics name the file given by the caller.

use std::collections::BTreeMap;

use serde_json::Value;

use super::diagnostic::{Code, Diagnostic, Severity};
use crate::lookup::LookupMap;

mod date;
mod flat;
mod skill;
mod toml_block;
pub(crate) mod yaml;

pub(crate) use date::parse_date;
pub(crate) use skill::{SkillMeta, parse_skill};
pub(crate) use yaml::{Node, NodeValue, Style, yaml11_non_string};
use yaml::{YamlError, parse_events};

/// Most YAML nodes one frontmatter block may hold once aliases are expanded. Real frontmatter
/// has tens of nodes; an alias bomb reaches millions after a few lines.
pub(crate) const MAX_YAML_NODES: usize = 10_000;

/// Deepest nesting of sequences and mappings accepted in frontmatter.
pub(crate) const MAX_YAML_DEPTH: usize = 64;

// The two parsers meet here, in the module that owns both: `flat` reads the common small
// subset without yaml-rust2, `yaml` reads the rest; neither calls the other.

/// Parses one YAML document into a located tree. `first_line` is the file line of the YAML's
/// first line. An empty document is an empty mapping.
///
/// Fails on a syntax error, more than one document, nesting deeper than [`MAX_YAML_DEPTH`], or
/// aliases expanding past [`MAX_YAML_NODES`] nodes.
pub(crate) fn parse_yaml(yaml: &str, first_line: u32) -> Result<Node, YamlError> {
    if let Some(node) = flat::parse(yaml, first_line) {
        return Ok(node);
    }
    parse_events(yaml, first_line)
}

/// [`parse_yaml`], retried once with flow closers at column 1 indented by a space when the first
/// attempt fails. yaml-rust2 refuses a `]` or `}` at the start of a line inside a block mapping
/// (`aliases: [` … `]`), which libyaml, PyYAML and Go's yaml (Hugo) all accept; a line starting
/// with `]` or `}` can only be such a closer, so the retry changes no value.
fn parse_lenient(yaml: &str, first_line: u32) -> Result<Node, YamlError> {
    let err = match parse_yaml(yaml, first_line) {
        Ok(node) => return Ok(node),
        Err(e) => e,
    };
    if !yaml.lines().any(|l| l.starts_with([']', '}'])) {
        return Err(err);
    }
    let mut fixed = String::with_capacity(yaml.len() + 16);
    for line in yaml.split_inclusive('\n') {
        if line.starts_with([']', '}']) {
            fixed.push(' ');
        }
        fixed.push_str(line);
    }
    parse_yaml(&fixed, first_line).map_err(|_| err)
}

/// Where the frontmatter block and the body of a markdown file are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Split<'a> {
    /// The YAML between the fences, if the file opens with a closed `---` block.
    pub yaml: Option<&'a str>,
    /// 1-based line of the first YAML line (the line after the opening fence).
    pub yaml_line: u32,
    /// The markdown after the block (or the whole file without its BOM).
    pub body: &'a str,
    /// 1-based line of the body's first line.
    pub body_line: u32,
    /// True when the file opens with `---` (or `+++`) that is never closed.
    pub unclosed: bool,
    /// True when the block is Hugo's TOML (`+++`), not YAML.
    pub toml: bool,
}

/// Splits a file into its frontmatter block and its body, by the one fence rule
/// ([`crate::catalog::fence`]): a UTF-8 BOM is skipped; CRLF and LF line endings are both
/// accepted; the closing fence is `---` or `...`.
pub(crate) fn split(text: &str) -> Split<'_> {
    use crate::catalog::fence::{Fence, fence};
    match fence(text) {
        Fence::None(body) => {
            Split { yaml: None, yaml_line: 2, body, body_line: 1, unclosed: false, toml: false }
        }
        Fence::Unclosed(body) => {
            let toml = body.starts_with("+++");
            Split { yaml: None, yaml_line: 2, body, body_line: 1, unclosed: true, toml }
        }
        Fence::Closed { yaml, body, body_line, toml } => {
            // The block's first line: line 2, or later after the blank lines Hugo skips.
            let yaml_line = body_line - 1 - yaml.matches('\n').count() as u32;
            Split { yaml: Some(yaml), yaml_line, body, body_line, unclosed: false, toml }
        }
    }
}

/// A value with the position it was written at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located<T> {
    /// The value.
    pub value: T,
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based column in the file.
    pub column: u32,
}

/// Typed frontmatter of a doc.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct DocMeta {
    /// `title`.
    pub title: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `tags`.
    pub tags: Vec<String>,
    /// `category`.
    pub category: Option<String>,
    /// `updated` or `last_updated`, normalised (see [`parse_date`]).
    pub updated: Option<String>,
    /// `aliases`.
    pub aliases: Vec<String>,
    /// `lang`, lowercased, when it is a BCP 47 tag (`invalid-lang` otherwise).
    pub lang: Option<String>,
    /// `translationKey`: the page's identity across locales.
    pub translation_key: Option<String>,
    /// Every other key, as JSON.
    pub extra: BTreeMap<String, Value>,
}

/// A markdown file's typed frontmatter and its body (what the split left after the block).
#[derive(Debug, Clone)]
pub(crate) struct Frontmatter<'a, M> {
    /// The typed metadata (defaults where the frontmatter was absent or broken).
    pub meta: M,
    /// The body after the frontmatter.
    pub body: &'a str,
    /// 1-based line of the body's first line.
    pub body_line: u32,
}

/// Splits and parses the frontmatter of one file into its top-level mapping, reporting
/// `frontmatter-unclosed`, `frontmatter-syntax` and `frontmatter-type`. `None` when the block is
/// broken (so callers do not pile "missing field" reports on top of the real problem).
fn parse_block<'a>(
    path: &str,
    text: &'a str,
    open_block: bool,
    diags: &mut Vec<Diagnostic>,
) -> (Split<'a>, Option<Vec<(Node, Node)>>) {
    let mut split = split(text);
    if split.unclosed && open_block && !split.toml {
        // The YAML is the rest of the file after the opening line; the body is empty.
        let opening = split.body.find('\n').map_or(split.body.len(), |i| i + 1);
        let lines = split.body.matches('\n').count() as u32;
        let end = split.body.len();
        split = Split {
            yaml: Some(&split.body[opening..]),
            yaml_line: split.yaml_line,
            body: &split.body[end..],
            body_line: lines + 1 + u32::from(!split.body.ends_with('\n')),
            unclosed: false,
            toml: false,
        };
    }
    let fence = if split.toml { "+++" } else { "---" };
    if split.unclosed {
        diags.push(
            Diagnostic::error(
                Code::FrontmatterUnclosed,
                path,
                1,
                1,
                format!("frontmatter opened with `{fence}` is never closed"),
            )
            .with_help(format!("end the frontmatter with a line holding only `{fence}`")),
        );
        return (split, None);
    }
    let Some(yaml) = split.yaml else { return (split, Some(Vec::new())) };
    let parsed = if split.toml {
        toml_block::parse_toml(yaml, split.yaml_line)
    } else {
        parse_lenient(yaml, split.yaml_line)
    };
    match parsed {
        Err(e) => {
            let last = split.body_line.saturating_sub(1).max(1);
            diags.push(Diagnostic::error(
                Code::FrontmatterSyntax,
                path,
                e.line.min(last),
                e.column,
                e.message,
            ));
            (split, None)
        }
        Ok(node) if node.is_null() => (split, Some(Vec::new())),
        Ok(Node { value: NodeValue::Map(entries), .. }) => (split, Some(entries)),
        Ok(node) => {
            diags.push(Diagnostic::error(
                Code::FrontmatterType,
                path,
                node.line,
                node.column,
                format!("frontmatter must be a mapping of keys to values, found {}", node.type_name()),
            ));
            (split, None)
        }
    }
}

/// Keeps the last value of each key and reports the later ones: YAML forbids duplicate keys
/// and parsers disagree on which one wins. In a doc that is a `frontmatter-ambiguous` warning;
/// in a SKILL.md (`Severity::Error`) a `duplicate-key` error, as hosts and the official validator
/// refuse such a file.
fn dedup_keys(
    path: &str,
    entries: Vec<(Node, Node)>,
    severity: Severity,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(String, Node, Node)> {
    let mut seen: LookupMap<String, usize> = LookupMap::default();
    let mut out: Vec<(String, Node, Node)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let key = k.key_text();
        if let Some(&i) = seen.get(&key) {
            diags.push(skill::duplicate_key(path, &key, &k, out[i].1.line, severity));
            out[i] = (key, k, v);
        } else {
            seen.insert(key.clone(), out.len());
            out.push((key, k, v));
        }
    }
    out
}

/// Reads a scalar as text, or reports `frontmatter-type`. A null value counts as absent.
fn text_of(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    if v.is_null() {
        return None;
    }
    match v.scalar() {
        Some((s, _)) => Some(s.to_owned()),
        None => {
            diags.push(Diagnostic::error(
                Code::FrontmatterType,
                path,
                v.line,
                v.column,
                format!("`{key}` must be a string, found {}", v.type_name()),
            ));
            None
        }
    }
}

/// Reads a list of scalars, or reports `frontmatter-type`.
fn list_of(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Vec<Located<String>> {
    match &v.value {
        _ if v.is_null() => Vec::new(),
        NodeValue::Seq(items) => {
            let mut out = Vec::new();
            for item in items {
                match item.scalar() {
                    Some((s, _)) if !item.is_null() => {
                        out.push(Located { value: s.to_owned(), line: item.line, column: item.column })
                    }
                    _ => diags.push(Diagnostic::error(
                        Code::FrontmatterType,
                        path,
                        item.line,
                        item.column,
                        format!("items of `{key}` must be strings, found {}", item.type_name()),
                    )),
                }
            }
            out
        }
        _ => {
            diags.push(
                Diagnostic::error(
                    Code::FrontmatterType,
                    path,
                    v.line,
                    v.column,
                    format!("`{key}` must be a list of strings, found {}", v.type_name()),
                )
                .with_help(format!("write `{key}: [{}]`", v.scalar().map_or("…", |(s, _)| s))),
            );
            Vec::new()
        }
    }
}

/// Reads a date (`updated`), normalising it, or reports `invalid-date`.
fn date_of(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let text = text_of(path, key, v, diags)?;
    match parse_date(&text) {
        Some(date) => Some(date),
        None => {
            diags.push(
                Diagnostic::error(
                    Code::InvalidDate,
                    path,
                    v.line,
                    v.column,
                    format!("`{key}` is not a valid date: `{text}`"),
                )
                .with_help("use `YYYY-MM-DD` or an RFC 3339 date-time such as `2026-01-31T09:30:00Z`"),
            );
            None
        }
    }
}

/// Reads a doc's `lang`, lowercased, or reports `invalid-lang` (a warning: the doc keeps the
/// locale of its folder).
fn lang_of(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let text = text_of(path, key, v, diags)?;
    if super::locales::is_tag(&text) {
        return Some(text.to_ascii_lowercase());
    }
    diags.push(
        Diagnostic::warning(
            Code::InvalidLang,
            path,
            v.line,
            v.column,
            format!("`{key}` is not a BCP 47 language tag: `{text}`; the doc keeps its folder's locale"),
        )
        .with_help("write a language tag such as `en`, `ja`, `zh-cn` or `pt-br`"),
    );
    None
}

/// Parses a doc's frontmatter. Docs are lenient: any key is accepted (unknown keys go to
/// `extra`), scalars of any type are read as written where text is expected.
///
/// `open_block`: a `---` block never closed runs to the end of the file (gray-matter's reading,
/// for VitePress and Docusaurus), instead of being `frontmatter-unclosed`.
pub(crate) fn parse_doc<'a>(
    path: &str,
    text: &'a str,
    open_block: bool,
    diags: &mut Vec<Diagnostic>,
) -> Frontmatter<'a, DocMeta> {
    let (split, entries) = parse_block(path, text, open_block, diags);
    let entries = entries.unwrap_or_default();
    let mut meta = DocMeta::default();
    let mut last_updated = None;
    for (key, _k, v) in dedup_keys(path, entries, Severity::Warning, diags) {
        match key.as_str() {
            "title" => meta.title = text_of(path, &key, &v, diags),
            "description" => meta.description = text_of(path, &key, &v, diags),
            "category" => meta.category = text_of(path, &key, &v, diags),
            "tags" => meta.tags = list_of(path, &key, &v, diags).into_iter().map(|l| l.value).collect(),
            "aliases" => meta.aliases = list_of(path, &key, &v, diags).into_iter().map(|l| l.value).collect(),
            "updated" => meta.updated = date_of(path, &key, &v, diags),
            "last_updated" => last_updated = date_of(path, &key, &v, diags),
            "lang" => meta.lang = lang_of(path, &key, &v, diags),
            "translationKey" => meta.translation_key = text_of(path, &key, &v, diags),
            _ => {
                meta.extra.insert(key, v.to_json());
            }
        }
    }
    meta.updated = meta.updated.or(last_updated);
    Frontmatter { meta, body: split.body, body_line: split.body_line }
}

#[cfg(test)]
mod tests;
