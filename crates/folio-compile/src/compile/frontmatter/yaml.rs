//! YAML for frontmatter: the located node tree, yaml-rust2's events turned into it (aliases
//! expanded under [`MAX_YAML_NODES`], nesting bounded by [`MAX_YAML_DEPTH`]), and the typing of
//! plain scalars under the YAML 1.2 core schema (with the YAML 1.1 readings other parsers still
//! apply flagged by [`yaml11_non_string`]).
//!
//! Knows no schema: which keys a doc or a skill may hold is the parent module's and `skill`'s
//! business. Pure: no IO, no diagnostics (errors are [`YamlError`]s the caller locates).

use std::collections::BTreeMap;

use serde_json::Value;
use yaml_rust2::Event;
use yaml_rust2::parser::Parser;
use yaml_rust2::scanner::TScalarStyle;

use super::{MAX_YAML_DEPTH, MAX_YAML_NODES, parse_date};

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Unquoted: its type depends on the YAML schema of the reader.
    Plain,
    /// Single- or double-quoted, or a `|`/`>` block: always a string.
    Quoted,
}

/// A YAML node with the position it was written at (1-based line and column in the file).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// The value.
    pub value: NodeValue,
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based column in the file, in characters.
    pub column: u32,
    /// The explicit tag, resolved (`tag:yaml.org,2002:str` for `!!str`, `!custom`, `!` for the
    /// non-specific tag).
    pub tag: Option<String>,
    /// A flow collection (`[a, b]`, `{a: b}`) rather than a block one.
    pub flow: bool,
    /// Defines an anchor (`&name`).
    pub anchored: bool,
    /// Is an alias (`*name`), expanded in place.
    pub aliased: bool,
    /// Nodes in this subtree, itself included (the alias expansion budget).
    pub(super) size: usize,
}

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NodeValue {
    /// A scalar, as written (before schema resolution).
    Scalar(String, Style),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order (duplicates kept, see [`super::parse_yaml`]).
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// A node of `size` nodes at `line`:`column` as most are: untagged, block style, neither
    /// anchored nor an alias.
    pub(super) fn plain(value: NodeValue, line: u32, column: u32, size: usize) -> Node {
        Node { value, line, column, tag: None, flow: false, anchored: false, aliased: false, size }
    }

    /// The scalar text and style, if this is a scalar.
    pub(crate) fn scalar(&self) -> Option<(&str, Style)> {
        match &self.value {
            NodeValue::Scalar(s, style) => Some((s, *style)),
            _ => None,
        }
    }

    /// True for a plain `null`, `~` or empty scalar.
    pub(crate) fn is_null(&self) -> bool {
        matches!(&self.value, NodeValue::Scalar(s, Style::Plain) if matches!(s.as_str(), "" | "~" | "null" | "Null" | "NULL"))
    }

    /// The value as JSON, resolved with the YAML 1.2 core schema (explicit core tags such as
    /// `!!str` and `!!int` honoured); mapping keys are sorted.
    pub(crate) fn to_json(&self) -> Value {
        match &self.value {
            NodeValue::Scalar(s, style) => resolve_scalar(s, *style, self.tag.as_deref()),
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
    pub(crate) fn key_text(&self) -> String {
        match &self.value {
            NodeValue::Scalar(s, _) => s.clone(),
            _ => self.to_json().to_string(),
        }
    }

    /// A short description of the node's type for messages.
    pub(crate) fn type_name(&self) -> &'static str {
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

/// The tag prefix `!!` stands for.
const CORE_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// Resolves a scalar as a YAML 1.2 core-schema loader does. An explicit core tag decides the
/// type (`!!str 123` is the string "123", `!!int "7"` the number 7; a value the tag's type cannot
/// hold stays text); the non-specific tag `!` makes a string; a quoted or block scalar is a
/// string; a plain one is typed by its form. Other (local) tags do not change the value.
fn resolve_scalar(s: &str, style: Style, tag: Option<&str>) -> Value {
    let typed = resolve_plain(s);
    match tag.and_then(|t| t.strip_prefix(CORE_TAG_PREFIX)).or(tag.filter(|t| *t == "!")) {
        Some("str" | "!") => Value::String(s.to_owned()),
        Some("int") if typed.is_i64() => typed,
        Some("float") if typed.is_number() => typed,
        Some("bool") if typed.is_boolean() => typed,
        Some("null") if typed.is_null() => typed,
        Some("int" | "float" | "bool" | "null") => Value::String(s.to_owned()),
        _ if style == Style::Quoted => Value::String(s.to_owned()),
        _ => typed,
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
pub(crate) fn yaml11_non_string(s: &str) -> bool {
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
pub(crate) struct YamlError {
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

/// [`super::parse_yaml`] through yaml-rust2's events: any YAML.
pub(super) fn parse_events(yaml: &str, first_line: u32) -> Result<Node, YamlError> {
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
        let blank = |value| Node::plain(value, line, column, 1);
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
                node.tag = tag.map(tag_text);
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
                node.tag = tag.map(tag_text);
                // A flow collection's start mark is at its `[` or `{`; a block one's is not.
                node.flow = matches!(yaml.chars().nth(mark.index()), Some('[' | '{'));
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
    Ok(root.unwrap_or(Node::plain(NodeValue::Map(Vec::new()), first_line, 1, 1)))
}

/// A resolved tag as one string: `tag:yaml.org,2002:str`, `!custom`, `!` (non-specific).
fn tag_text(tag: yaml_rust2::parser::Tag) -> String {
    if tag.handle.is_empty() && tag.suffix == "!" { "!".to_owned() } else { tag.handle + &tag.suffix }
}
