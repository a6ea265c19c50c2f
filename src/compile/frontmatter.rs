//! Frontmatter: split the `---` block off a markdown file, parse its YAML into a located tree,
//! convert it to deterministic JSON and into the typed [`DocMeta`] and [`SkillMeta`].
//!
//! The YAML is read with yaml-rust2's event parser (the engine gray_matter uses) instead of its
//! tree loader, for two reasons: every event carries a position, so each diagnostic points at the
//! offending key or value; and aliases are expanded here under a node budget, so an alias bomb
//! ("billion laughs") is refused after a few thousand nodes instead of exhausting memory.
//! gray_matter's `Pod` is never serialized: its maps are `HashMap`s, and output must be ordered.
//!
//! Pure: no IO. Diagnostics name the file given by the caller.

use std::collections::BTreeMap;

use serde_json::Value;
use yaml_rust2::Event;
use yaml_rust2::parser::Parser;
use yaml_rust2::scanner::TScalarStyle;

use super::diagnostic::Diagnostic;
use crate::lookup::LookupMap;

#[path = "frontmatter/flat.rs"]
mod flat;

/// Most YAML nodes one frontmatter block may hold once aliases are expanded. Real frontmatter
/// has tens of nodes; an alias bomb reaches millions after a few lines.
pub const MAX_YAML_NODES: usize = 10_000;

/// Deepest nesting of sequences and mappings accepted in frontmatter.
pub const MAX_YAML_DEPTH: usize = 64;

/// Most characters a skill `name` may have (Agent Skills specification).
pub const MAX_NAME_CHARS: usize = 64;
/// Most characters a skill `description` may have (Agent Skills specification).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Most characters a skill `compatibility` may have (Agent Skills specification).
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// Where the frontmatter block and the body of a markdown file are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the fences, if the file opens with a closed `---` block.
    pub yaml: Option<&'a str>,
    /// 1-based line of the first YAML line (the line after the opening fence).
    pub yaml_line: u32,
    /// The markdown after the block (or the whole file without its BOM).
    pub body: &'a str,
    /// 1-based line of the body's first line.
    pub body_line: u32,
    /// True when the file opens with `---` that is never closed.
    pub unclosed: bool,
}

/// Splits a file into its frontmatter block and its body. A UTF-8 BOM is skipped; CRLF and LF
/// line endings are both accepted; the closing fence is `---` or `...`.
pub fn split(text: &str) -> Split<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let whole = Split { yaml: None, yaml_line: 2, body: text, body_line: 1, unclosed: false };
    let first_end = text.find('\n').map_or(text.len(), |i| i + 1);
    if trim_line(&text[..first_end]) != "---" {
        return whole;
    }
    let mut at = first_end;
    let mut line = 2;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let fence = trim_line(&text[at..end]);
        if fence == "---" || fence == "..." {
            return Split {
                yaml: Some(&text[first_end..at]),
                yaml_line: 2,
                body: &text[end..],
                body_line: line + 1,
                unclosed: false,
            };
        }
        at = end;
        line += 1;
    }
    Split { unclosed: true, ..whole }
}

fn trim_line(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r', ' ', '\t'])
}

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Unquoted: its type depends on the YAML schema of the reader.
    Plain,
    /// Single- or double-quoted, or a `|`/`>` block: always a string.
    Quoted,
}

/// A YAML node with the position it was written at (1-based line and column in the file).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: NodeValue,
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based column in the file, in characters.
    pub column: u32,
    /// Carries an explicit tag (`!!str`, `!custom`).
    pub tagged: bool,
    /// Defines an anchor (`&name`).
    pub anchored: bool,
    /// Is an alias (`*name`), expanded in place.
    pub aliased: bool,
    /// Nodes in this subtree, itself included (the alias expansion budget).
    size: usize,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum NodeValue {
    /// A scalar, as written (before schema resolution).
    Scalar(String, Style),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order (duplicates kept, see [`parse_yaml`]).
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The scalar text and style, if this is a scalar.
    pub fn scalar(&self) -> Option<(&str, Style)> {
        match &self.value {
            NodeValue::Scalar(s, style) => Some((s, *style)),
            _ => None,
        }
    }

    /// True for a plain `null`, `~` or empty scalar.
    pub fn is_null(&self) -> bool {
        matches!(&self.value, NodeValue::Scalar(s, Style::Plain) if matches!(s.as_str(), "" | "~" | "null" | "Null" | "NULL"))
    }

    /// The value as JSON, resolved with the YAML 1.2 core schema; mapping keys are sorted.
    pub fn to_json(&self) -> Value {
        match &self.value {
            NodeValue::Scalar(s, Style::Quoted) => Value::String(s.clone()),
            NodeValue::Scalar(s, Style::Plain) => resolve_plain(s),
            NodeValue::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeValue::Map(entries) => {
                // Later duplicates win, as in yaml-rust2's loader; BTreeMap sorts the keys so the
                // JSON is the same whatever serde_json's map implementation is.
                let sorted: BTreeMap<String, Value> =
                    entries.iter().map(|(k, v)| (k.key_text(), v.to_json())).collect();
                Value::Object(sorted.into_iter().collect())
            }
        }
    }

    /// The text of a mapping key: a scalar as written, anything else as compact JSON.
    pub fn key_text(&self) -> String {
        match &self.value {
            NodeValue::Scalar(s, _) => s.clone(),
            _ => self.to_json().to_string(),
        }
    }

    /// A short description of the node's type for messages.
    pub fn type_name(&self) -> &'static str {
        match &self.value {
            NodeValue::Scalar(..) => match self.to_json() {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                _ => "a string",
            },
            NodeValue::Seq(_) => "a list",
            NodeValue::Map(_) => "a mapping",
        }
    }
}

/// Resolves a plain scalar with the YAML 1.2 core schema (null, bool, int, float, else string).
fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && let Ok(n) = s.parse::<i64>()
    {
        return Value::from(n);
    }
    let radix = |prefix: &str, radix: u32| {
        s.strip_prefix(prefix).filter(|d| !d.is_empty()).and_then(|d| i64::from_str_radix(d, radix).ok())
    };
    if let Some(n) = radix("0x", 16).or_else(|| radix("0o", 8)) {
        return Value::from(n);
    }
    if is_core_float(s)
        && let Some(n) = s.parse::<f64>().ok().and_then(serde_json::Number::from_f64)
    {
        return Value::Number(n);
    }
    // `.inf` and `.nan` are floats in YAML but have no JSON form: keep the text.
    Value::String(s.to_owned())
}

// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn is_core_float(s: &str) -> bool {
    let b = s.strip_prefix(['-', '+']).unwrap_or(s).as_bytes();
    let mut i = 0;
    let int_digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let exp = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len()
}

/// True when a YAML 1.1 reader (PyYAML, many hosts) would read this plain scalar as something
/// other than a string: booleans like `yes`/`off`, nulls, numbers (also `1_000`, `0x1f`,
/// sexagesimal `1:30`) and timestamps.
pub fn yaml11_non_string(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False",
        "FALSE", "on", "On", "ON", "off", "Off", "OFF", "", "~", "null", "Null", "NULL", ".inf", ".Inf",
        ".INF", "-.inf", "+.inf", ".nan", ".NaN", ".NAN",
    ];
    if WORDS.contains(&s) {
        return true;
    }
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let plain_number = body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && body.len() > usize::from(body.starts_with('.'))
        && is_core_float(&body.replace('_', ""));
    let radix = ["0x", "0b", "0o"].iter().any(|p| {
        body.strip_prefix(p)
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_hexdigit() || c == '_'))
    });
    let sexagesimal = body.contains(':')
        && body.split(':').all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()));
    plain_number || radix || sexagesimal || parse_date(s).is_some()
}

/// A YAML syntax problem, located in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based column in the file.
    pub column: u32,
    /// What is wrong.
    pub message: String,
}

enum Frame {
    Seq { node: Node, anchor: usize, items: Vec<Node> },
    Map { node: Node, anchor: usize, entries: Vec<(Node, Node)>, key: Option<Node> },
}

/// Parses one YAML document into a located tree. `first_line` is the file line of the YAML's
/// first line. An empty document is an empty mapping.
///
/// Fails on a syntax error, more than one document, nesting deeper than [`MAX_YAML_DEPTH`], or
/// aliases expanding past [`MAX_YAML_NODES`] nodes.
pub fn parse_yaml(yaml: &str, first_line: u32) -> Result<Node, YamlError> {
    if let Some(node) = flat::parse(yaml, first_line) {
        return Ok(node);
    }
    parse_events(yaml, first_line)
}

/// [`parse_yaml`] through yaml-rust2's events: any YAML.
fn parse_events(yaml: &str, first_line: u32) -> Result<Node, YamlError> {
    let at = |line: usize, col: usize| {
        // Marker lines are 1-based and columns 0-based, both relative to the YAML text.
        (first_line + u32::try_from(line).unwrap_or(u32::MAX - first_line).saturating_sub(1), col as u32 + 1)
    };
    let mut parser = Parser::new_from_str(yaml);
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: BTreeMap<usize, Node> = BTreeMap::new();
    let mut root: Option<Node> = None;
    let mut nodes = 0usize;
    let mut documents = 0;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            let (line, column) = at(e.marker().line(), e.marker().col());
            YamlError { line, column, message: format!("invalid YAML: {}", e.info()) }
        })?;
        let (line, column) = at(mark.line(), mark.col());
        let fail = |message: String| YamlError { line, column, message };
        let is_seq = matches!(event, Event::SequenceStart(..));
        let blank =
            |value| Node { value, line, column, tagged: false, anchored: false, aliased: false, size: 1 };
        let (done, anchor) = match event {
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(fail("frontmatter holds more than one YAML document".to_owned()));
                }
                continue;
            }
            Event::StreamStart | Event::DocumentEnd | Event::Nothing => continue,
            Event::Scalar(text, style, anchor, tag) => {
                let style = if style == TScalarStyle::Plain { Style::Plain } else { Style::Quoted };
                let mut node = blank(NodeValue::Scalar(text, style));
                node.tagged = tag.is_some();
                (node, anchor)
            }
            Event::Alias(id) => {
                let Some(target) = anchors.get(&id) else {
                    return Err(fail("alias refers to an unknown anchor".to_owned()));
                };
                if nodes + target.size > MAX_YAML_NODES {
                    return Err(fail(format!(
                        "aliases expand to more than {MAX_YAML_NODES} YAML nodes (an alias bomb?); \
                         write the values out instead"
                    )));
                }
                let mut node = target.clone();
                (node.line, node.column, node.aliased) = (line, column, true);
                nodes += node.size - 1;
                (node, 0)
            }
            Event::SequenceStart(anchor, tag) | Event::MappingStart(anchor, tag) => {
                if stack.len() >= MAX_YAML_DEPTH {
                    return Err(fail(format!("frontmatter nests deeper than {MAX_YAML_DEPTH} levels")));
                }
                nodes += 1;
                if nodes > MAX_YAML_NODES {
                    return Err(fail(format!("frontmatter holds more than {MAX_YAML_NODES} YAML nodes")));
                }
                let mut node = blank(NodeValue::Seq(Vec::new()));
                node.tagged = tag.is_some();
                stack.push(if is_seq {
                    Frame::Seq { node, anchor, items: Vec::new() }
                } else {
                    Frame::Map { node, anchor, entries: Vec::new(), key: None }
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Seq { mut node, anchor, items }) => {
                    node.size = 1 + items.iter().map(|n| n.size).sum::<usize>();
                    node.value = NodeValue::Seq(items);
                    (node, anchor)
                }
                Some(Frame::Map { mut node, anchor, entries, .. }) => {
                    // A block mapping's start mark lies after its first key; point at that key.
                    if let Some((k, _)) = entries.first() {
                        (node.line, node.column) = (
                            node.line.min(k.line),
                            if k.line < node.line { k.column } else { node.column.min(k.column) },
                        );
                    }
                    node.size = 1 + entries.iter().map(|(k, v)| k.size + v.size).sum::<usize>();
                    node.value = NodeValue::Map(entries);
                    (node, anchor)
                }
                None => return Err(fail("unbalanced YAML collection".to_owned())),
            },
        };
        let mut done = done;
        if matches!(done.value, NodeValue::Scalar(..)) && !done.aliased {
            nodes += 1;
            if nodes > MAX_YAML_NODES {
                return Err(fail(format!("frontmatter holds more than {MAX_YAML_NODES} YAML nodes")));
            }
        }
        if anchor > 0 {
            done.anchored = true;
            anchors.insert(anchor, done.clone());
        }
        match stack.last_mut() {
            None => root = Some(done),
            Some(Frame::Seq { items, .. }) => items.push(done),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(done),
                Some(k) => entries.push((k, done)),
            },
        }
    }
    Ok(root.unwrap_or(Node {
        value: NodeValue::Map(Vec::new()),
        line: first_line,
        column: 1,
        tagged: false,
        anchored: false,
        aliased: false,
        size: 1,
    }))
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

/// A value with the position it was written at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based column in the file.
    pub column: u32,
}

/// Typed frontmatter of a doc.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocMeta {
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
    /// Every other key, as JSON.
    pub extra: BTreeMap<String, Value>,
}

/// One entry of a skill's explicit reference manifest (`references:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefDecl {
    /// `id`, unique within the skill.
    pub id: Located<String>,
    /// `path`, relative to the skill directory, as written.
    pub path: Located<String>,
    /// `title`.
    pub title: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `mime_type`.
    pub mime_type: Option<String>,
}

/// Typed frontmatter of a SKILL.md.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillMeta {
    /// `name`, with its position.
    pub name: Option<Located<String>>,
    /// `description`.
    pub description: Option<String>,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// `metadata` (string → string).
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`.
    pub allowed_tools: Option<String>,
    /// `tags`.
    pub tags: Vec<String>,
    /// `capabilities`.
    pub capabilities: Vec<String>,
    /// `version`.
    pub version: Option<String>,
    /// `updated`/`last_updated`, else `metadata.updated`, normalised.
    pub updated: Option<String>,
    /// The explicit reference manifest, if declared, and the position of its `references` key.
    pub references: Option<(Vec<RefDecl>, u32, u32)>,
    /// The whole frontmatter as a JSON object with sorted keys (SEP-2640 `frontmatter`).
    pub frontmatter: Value,
}

/// A parsed markdown file: its split, and diagnostics about the frontmatter.
#[derive(Debug, Clone)]
pub struct Parsed<'a, M> {
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
    diags: &mut Vec<Diagnostic>,
) -> (Split<'a>, Option<Vec<(Node, Node)>>) {
    let split = split(text);
    if split.unclosed {
        diags.push(
            Diagnostic::error(
                "frontmatter-unclosed",
                path,
                1,
                1,
                "frontmatter opened with `---` is never closed",
            )
            .with_help("end the frontmatter with a line holding only `---`"),
        );
        return (split, None);
    }
    let Some(yaml) = split.yaml else { return (split, Some(Vec::new())) };
    match parse_lenient(yaml, split.yaml_line) {
        Err(e) => {
            let last = split.body_line.saturating_sub(1).max(1);
            diags.push(Diagnostic::error("frontmatter-syntax", path, e.line.min(last), e.column, e.message));
            (split, None)
        }
        Ok(node) if node.is_null() => (split, Some(Vec::new())),
        Ok(Node { value: NodeValue::Map(entries), .. }) => (split, Some(entries)),
        Ok(node) => {
            diags.push(Diagnostic::error(
                "frontmatter-type",
                path,
                node.line,
                node.column,
                format!("frontmatter must be a mapping of keys to values, found {}", node.type_name()),
            ));
            (split, None)
        }
    }
}

/// Keeps the last value of each key and reports the earlier ones (`frontmatter-ambiguous`: YAML
/// forbids duplicate keys and parsers disagree on which one wins).
fn dedup_keys(
    path: &str,
    entries: Vec<(Node, Node)>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(String, Node, Node)> {
    // A block has a handful of keys: looking each up among the keys kept so far costs less
    // than hashing, and copying, every key into a map (a share of the build on a large tree).
    // A wide block (thousands of keys) gets the map, so it is not quadratic.
    let mut seen: Option<LookupMap<String, usize>> = (entries.len() > FEW_KEYS).then(LookupMap::default);
    let mut out: Vec<(String, Node, Node)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let key = k.key_text();
        let first = match &seen {
            Some(seen) => seen.get(&key).copied(),
            None => out.iter().position(|(kept, ..)| *kept == key),
        };
        if let Some(i) = first {
            diags.push(
                Diagnostic::warning(
                    "frontmatter-ambiguous",
                    path,
                    k.line,
                    k.column,
                    format!(
                        "key `{key}` appears twice (first on line {}); YAML parsers disagree on which wins",
                        out[i].1.line
                    ),
                )
                .with_help("keep one of them"),
            );
            out[i] = (key, k, v);
        } else {
            if let Some(seen) = &mut seen {
                seen.insert(key.clone(), out.len());
            }
            out.push((key, k, v));
        }
    }
    out
}

/// Up to this many keys, [`dedup_keys`] finds repeats by a linear scan.
const FEW_KEYS: usize = 32;

/// Reads a scalar as text, or reports `frontmatter-type`. A null value counts as absent.
fn text_of(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    if v.is_null() {
        return None;
    }
    match v.scalar() {
        Some((s, _)) => Some(s.to_owned()),
        None => {
            diags.push(Diagnostic::error(
                "frontmatter-type",
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
                        "frontmatter-type",
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
                    "frontmatter-type",
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
                    "invalid-date",
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

/// Parses and normalises a date: `YYYY-MM-DD` stays as is; a date-time (`T` or one space between
/// date and time, optional fraction, `Z`/`±HH:MM`/`±HHMM` or no offset) becomes RFC 3339 with `T`,
/// and `Z` when no offset was given (frontmatter dates carry no zone, UTC is the only neutral
/// choice). Returns `None` for anything else, including impossible days like `2026-02-30`.
pub fn parse_date(s: &str) -> Option<String> {
    let s = s.trim();
    let num = |part: &str, len: usize| {
        (part.len() == len && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse::<u32>().ok())
            .flatten()
    };
    let (date, time) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(s[i + 1..].trim_start())),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let (y, m, d) = (num(parts.next()?, 4)?, num(parts.next()?, 2)?, num(parts.next()?, 2)?);
    if parts.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    let Some(time) = time else { return Some(date.to_owned()) };
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(i) => (&time[..i], &time[i..]),
        None => (time, ""),
    };
    let (hms, fraction) = match clock.split_once('.') {
        Some((hms, f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => (hms, Some(f)),
        Some(_) => return None,
        None => (clock, None),
    };
    let mut parts = hms.split(':');
    let (h, mi, sec) = (num(parts.next()?, 2)?, num(parts.next()?, 2)?, num(parts.next()?, 2)?);
    if parts.next().is_some() || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let offset = match offset {
        "" | "Z" | "z" => "Z".to_owned(),
        o => {
            let sign = &o[..1];
            let rest = o[1..].replace(':', "");
            let (oh, om) = (num(rest.get(..2)?, 2)?, num(rest.get(2..)?, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            format!("{sign}{oh:02}:{om:02}")
        }
    };
    let fraction = fraction.map(|f| format!(".{f}")).unwrap_or_default();
    Some(format!("{date}T{h:02}:{mi:02}:{sec:02}{fraction}{offset}"))
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Parses a doc's frontmatter. Docs are lenient: any key is accepted (unknown keys go to
/// `extra`), scalars of any type are read as written where text is expected.
pub fn parse_doc<'a>(path: &str, text: &'a str, diags: &mut Vec<Diagnostic>) -> Parsed<'a, DocMeta> {
    let (split, entries) = parse_block(path, text, diags);
    let entries = entries.unwrap_or_default();
    let mut meta = DocMeta::default();
    let mut last_updated = None;
    for (key, _k, v) in dedup_keys(path, entries, diags) {
        match key.as_str() {
            "title" => meta.title = text_of(path, &key, &v, diags),
            "description" => meta.description = text_of(path, &key, &v, diags),
            "category" => meta.category = text_of(path, &key, &v, diags),
            "tags" => meta.tags = list_of(path, &key, &v, diags).into_iter().map(|l| l.value).collect(),
            "aliases" => meta.aliases = list_of(path, &key, &v, diags).into_iter().map(|l| l.value).collect(),
            "updated" => meta.updated = date_of(path, &key, &v, diags),
            "last_updated" => last_updated = date_of(path, &key, &v, diags),
            _ => {
                meta.extra.insert(key, v.to_json());
            }
        }
    }
    meta.updated = meta.updated.or(last_updated);
    Parsed { meta, body: split.body, body_line: split.body_line }
}

/// Keys a SKILL.md may hold: the Agent Skills fields, then Folio's catalog fields.
pub const SKILL_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "tags",
    "capabilities",
    "version",
    "references",
    "updated",
    "last_updated",
];

/// Parses a SKILL.md's frontmatter and checks its fields: `missing-name`, `invalid-name`,
/// `name-mismatch` (against `dir_name`, the skill directory's name), `missing-description`,
/// `description-too-long`, `compatibility-too-long`, `unknown-field`, `frontmatter-type`,
/// `invalid-date`, and `frontmatter-ambiguous` for YAML that parsers read differently.
pub fn parse_skill<'a>(
    path: &str,
    dir_name: &str,
    text: &'a str,
    diags: &mut Vec<Diagnostic>,
) -> Parsed<'a, SkillMeta> {
    let (split, entries) = parse_block(path, text, diags);
    let mut meta = SkillMeta {
        name: None,
        description: None,
        license: None,
        compatibility: None,
        metadata: BTreeMap::new(),
        allowed_tools: None,
        tags: Vec::new(),
        capabilities: Vec::new(),
        version: None,
        updated: None,
        references: None,
        frontmatter: Value::Object(serde_json::Map::new()),
    };
    let broken = entries.is_none();
    let entries = dedup_keys(path, entries.unwrap_or_default(), diags);
    let sorted: BTreeMap<String, Value> = entries.iter().map(|(k, _, v)| (k.clone(), v.to_json())).collect();
    meta.frontmatter = Value::Object(sorted.into_iter().collect());
    let mut description_at = None;
    let mut last_updated = None;
    for (key, k, v) in &entries {
        flag_yaml_features(path, v, diags);
        let key = key.as_str();
        match key {
            "name" | "description" | "license" | "compatibility" | "allowed-tools" | "version" => {
                let value = skill_text(path, key, v, diags);
                match key {
                    "name" => {
                        meta.name = value.map(|value| Located { value, line: v.line, column: v.column })
                    }
                    "description" => {
                        description_at = Some((v.line, v.column));
                        meta.description = value;
                    }
                    "license" => meta.license = value,
                    "compatibility" => {
                        if let Some(c) = &value {
                            let n = c.chars().count();
                            if n > MAX_COMPATIBILITY_CHARS {
                                diags.push(Diagnostic::error(
                                    "compatibility-too-long",
                                    path,
                                    v.line,
                                    v.column,
                                    format!("`compatibility` has {n} characters, more than {MAX_COMPATIBILITY_CHARS}"),
                                ));
                            }
                        }
                        meta.compatibility = value;
                    }
                    "allowed-tools" => meta.allowed_tools = value,
                    _ => meta.version = value,
                }
            }
            "tags" | "capabilities" => {
                let items = list_of(path, key, v, diags);
                if let NodeValue::Seq(nodes) = &v.value {
                    for item in nodes {
                        flag_plain_non_string(path, key, item, diags);
                    }
                }
                let items = items.into_iter().map(|l| l.value).collect();
                if key == "tags" { meta.tags = items } else { meta.capabilities = items }
            }
            "metadata" => meta.metadata = skill_metadata(path, v, diags),
            "references" => meta.references = Some((references(path, v, diags), k.line, k.column)),
            "updated" => meta.updated = date_of(path, key, v, diags),
            "last_updated" => last_updated = date_of(path, key, v, diags),
            _ => diags.push(
                Diagnostic::warning(
                    "unknown-field",
                    path,
                    k.line,
                    k.column,
                    format!("unknown field `{key}` in SKILL.md"),
                )
                .with_help(match closest(key, SKILL_KEYS.iter().copied()) {
                    Some(near) => format!("did you mean `{near}`? known fields: {}", SKILL_KEYS.join(", ")),
                    None => {
                        format!("known fields: {}; put custom keys under `metadata`", SKILL_KEYS.join(", "))
                    }
                }),
            ),
        }
    }
    meta.updated =
        meta.updated.or(last_updated).or_else(|| meta.metadata.get("updated").and_then(|d| parse_date(d)));
    if !broken {
        check_skill_fields(path, dir_name, &mut meta, description_at, diags);
    }
    Parsed { meta, body: split.body, body_line: split.body_line }
}

fn check_skill_fields(
    path: &str,
    dir_name: &str,
    meta: &mut SkillMeta,
    description_at: Option<(u32, u32)>,
    diags: &mut Vec<Diagnostic>,
) {
    match &meta.name {
        None => diags.push(
            Diagnostic::error("missing-name", path, 1, 1, "SKILL.md frontmatter lacks `name`")
                .with_help(format!("add `name: {}` to the frontmatter", suggested_name(dir_name))),
        ),
        Some(name) if name.value.trim().is_empty() => diags.push(
            Diagnostic::error("missing-name", path, name.line, name.column, "SKILL.md `name` is empty")
                .with_help(format!("set `name: {}`", suggested_name(dir_name))),
        ),
        Some(name) if !is_valid_name(&name.value) => {
            let n = name.value.chars().count();
            let why = if n > MAX_NAME_CHARS {
                format!("has {n} characters, more than {MAX_NAME_CHARS}")
            } else {
                "must be lowercase letters, digits and single hyphens (`^[a-z0-9]+(-[a-z0-9]+)*$`)".to_owned()
            };
            diags.push(
                Diagnostic::error(
                    "invalid-name",
                    path,
                    name.line,
                    name.column,
                    format!("skill name `{}` {why}", name.value),
                )
                .with_help(format!("use `{}`", suggested_name(&name.value))),
            );
        }
        Some(name) if name.value != dir_name => diags.push(
            Diagnostic::error(
                "name-mismatch",
                path,
                name.line,
                name.column,
                format!("skill name `{}` differs from its directory name `{dir_name}`", name.value),
            )
            .with_help(format!("rename the directory to `{}` or set `name: {dir_name}`", name.value)),
        ),
        Some(_) => {}
    }
    match (&meta.description, description_at) {
        (Some(d), Some((line, column))) if !d.trim().is_empty() => {
            let n = d.chars().count();
            if n > MAX_DESCRIPTION_CHARS {
                diags.push(
                    Diagnostic::error(
                        "description-too-long",
                        path,
                        line,
                        column,
                        format!("`description` has {n} characters, more than {MAX_DESCRIPTION_CHARS}"),
                    )
                    .with_help("say what the skill does and when to use it in a few sentences; move detail into the body"),
                );
            }
        }
        (_, at) => {
            let (line, column) = at.unwrap_or((1, 1));
            diags.push(
                Diagnostic::error(
                    "missing-description",
                    path,
                    line,
                    column,
                    "SKILL.md frontmatter lacks a `description`",
                )
                .with_help("add `description:` saying what the skill does and when an agent should use it"),
            );
            meta.description = None;
        }
    }
}

/// True for a valid skill name: `^[a-z0-9]+(-[a-z0-9]+)*$`, at most 64 characters.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name.split('-').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// A valid name close to `s`: lowercased, other characters turned into single hyphens.
fn suggested_name(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(MAX_NAME_CHARS).collect();
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() { "my-skill".to_owned() } else { out }
}

/// A text field of a skill: must be a scalar; a plain scalar that some reader would not take as a
/// string is a `frontmatter-ambiguous` warning (the text as written is used).
fn skill_text(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let text = text_of(path, key, v, diags)?;
    flag_plain_non_string(path, key, v, diags);
    Some(text)
}

fn flag_plain_non_string(path: &str, key: &str, v: &Node, diags: &mut Vec<Diagnostic>) {
    if let Some((s, Style::Plain)) = v.scalar()
        && !v.is_null()
        && yaml11_non_string(s)
    {
        diags.push(
            Diagnostic::warning(
                "frontmatter-ambiguous",
                path,
                v.line,
                v.column,
                format!("`{key}` value `{s}` is unquoted, and some YAML parsers read it as {}", kind_for(s)),
            )
            .with_help(format!("quote it: `\"{s}\"`")),
        );
    }
}

fn kind_for(s: &str) -> &'static str {
    if parse_date(s).is_some() {
        "a date"
    } else if s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
        "a number"
    } else {
        "a boolean or null"
    }
}

/// Reports anchors, aliases and tags anywhere under a skill field (`frontmatter-ambiguous`):
/// hosts re-parse SKILL.md with their own YAML reader and compare field by field.
fn flag_yaml_features(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) {
    let what = if v.aliased {
        Some("an alias (`*name`)")
    } else if v.anchored {
        Some("an anchor (`&name`)")
    } else if v.tagged {
        Some("a tag (`!tag`)")
    } else {
        None
    };
    if let Some(what) = what {
        diags.push(
            Diagnostic::warning(
                "frontmatter-ambiguous",
                path,
                v.line,
                v.column,
                format!("SKILL.md frontmatter uses {what}, which YAML readers do not all support alike"),
            )
            .with_help("write the value out in full"),
        );
        // One warning per written feature: an alias's expansion is not reported again.
        if v.aliased {
            return;
        }
    }
    match &v.value {
        NodeValue::Scalar(..) => {}
        NodeValue::Seq(items) => items.iter().for_each(|i| flag_yaml_features(path, i, diags)),
        NodeValue::Map(entries) => entries.iter().for_each(|(k, v)| {
            flag_yaml_features(path, k, diags);
            flag_yaml_features(path, v, diags);
        }),
    }
}

fn skill_metadata(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match &v.value {
        _ if v.is_null() => {}
        NodeValue::Map(entries) => {
            for (k, val) in entries {
                let key = k.key_text();
                if let Some(text) = skill_text(path, &format!("metadata.{key}"), val, diags) {
                    out.insert(key, text);
                }
            }
        }
        _ => diags.push(Diagnostic::error(
            "frontmatter-type",
            path,
            v.line,
            v.column,
            format!("`metadata` must be a mapping of strings to strings, found {}", v.type_name()),
        )),
    }
    out
}

/// Parses the explicit reference manifest; shape problems are `frontmatter-type`.
fn references(path: &str, v: &Node, diags: &mut Vec<Diagnostic>) -> Vec<RefDecl> {
    let NodeValue::Seq(items) = &v.value else {
        if !v.is_null() {
            diags.push(
                Diagnostic::error(
                    "frontmatter-type",
                    path,
                    v.line,
                    v.column,
                    format!(
                        "`references` must be a list of `{{id, path}}` mappings, found {}",
                        v.type_name()
                    ),
                )
                .with_help("write `references:` followed by `- id: api` / `  path: references/api.md` items"),
            );
        }
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let NodeValue::Map(entries) = &item.value else {
            diags.push(Diagnostic::error(
                "frontmatter-type",
                path,
                item.line,
                item.column,
                format!("each reference must be a mapping with `id` and `path`, found {}", item.type_name()),
            ));
            continue;
        };
        let (mut id, mut file, mut title, mut description, mut mime_type) = (None, None, None, None, None);
        for (k, val) in entries {
            let key = k.key_text();
            let field = format!("references.{key}");
            let located = |text: Option<String>| {
                text.map(|value| Located { value, line: val.line, column: val.column })
            };
            match key.as_str() {
                "id" => id = located(skill_text(path, &field, val, diags)),
                "path" => file = located(skill_text(path, &field, val, diags)),
                "title" => title = skill_text(path, &field, val, diags),
                "description" => description = skill_text(path, &field, val, diags),
                "mime_type" => mime_type = skill_text(path, &field, val, diags),
                _ => diags.push(
                    Diagnostic::warning(
                        "unknown-field",
                        path,
                        k.line,
                        k.column,
                        format!("unknown reference field `{key}`"),
                    )
                    .with_help("known fields: id, path, title, description, mime_type"),
                ),
            }
        }
        if let Some(id) = &id {
            let ok = !id.value.is_empty()
                && id
                    .value
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'));
            if !ok {
                diags.push(Diagnostic::error(
                    "frontmatter-type",
                    path,
                    id.line,
                    id.column,
                    format!("reference id `{}` must match `[a-z0-9._-]+`", id.value),
                ));
            }
        }
        match (id, file) {
            (Some(id), Some(file)) => out.push(RefDecl { id, path: file, title, description, mime_type }),
            (id, file) => {
                let missing = if id.is_none() && file.is_none() {
                    "`id` and `path`"
                } else if id.is_none() {
                    "`id`"
                } else {
                    "`path`"
                };
                diags.push(Diagnostic::error(
                    "frontmatter-type",
                    path,
                    item.line,
                    item.column,
                    format!("reference lacks {missing}"),
                ));
            }
        }
    }
    out
}

/// The candidate closest to `word` by edit distance, if it is close enough to be a typo.
pub fn closest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let word_lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&word_lower, &c.to_lowercase()), c))
        .filter(|&(d, c)| d <= (c.chars().count().max(3) / 3).max(1))
        .min()
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
#[path = "frontmatter/tests.rs"]
mod tests;
