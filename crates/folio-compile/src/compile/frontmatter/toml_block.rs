//! Hugo's TOML frontmatter (a `+++` block): parsed with the `toml` crate's spanned parser into
//! the same located tree as YAML ([`Node`]), so the doc schema reads it with the same field
//! readers and its diagnostics point at the key or value written.
//!
//! Hugo reads a page's front matter as YAML between `---`, TOML between `+++` or JSON in braces
//! (<https://gohugo.io/content-management/front-matter/>); Folio reads the first two. Strings are
//! quoted scalars (never retyped), integers and floats are plain scalars of their decimal value,
//! dates are quoted scalars of their RFC 3339 text. Must not: read anything but the block, or
//! accept TOML for a skill (the Agent Skills specification is YAML only; `skill` refuses it).

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::yaml::{Node, NodeValue, Style, YamlError};

/// Parses the TOML of a `+++` block whose first line is file line `first_line` into a located
/// mapping. Fails on a TOML syntax error, at its position.
pub(crate) fn parse_toml(block: &str, first_line: u32) -> Result<Node, YamlError> {
    let at = |offset: usize| position(block, offset, first_line);
    let table = DeTable::parse(block).map_err(|e| {
        let (line, column) = at(e.span().map_or(0, |s| s.start));
        YamlError { line, column, message: format!("TOML frontmatter: {}", e.message().trim_end()) }
    })?;
    let (line, column) = at(table.span().start);
    Ok(table_node(table.get_ref(), line, column, &at))
}

fn table_node(table: &DeTable<'_>, line: u32, column: u32, at: &dyn Fn(usize) -> (u32, u32)) -> Node {
    let mut size = 1;
    let entries: Vec<(Node, Node)> = table
        .iter()
        .map(|(key, value)| {
            let (kl, kc) = at(key.span().start);
            let key = Node::plain(NodeValue::Scalar(key.get_ref().to_string(), Style::Quoted), kl, kc, 1);
            let value = value_node(value, at);
            size += 1 + value.size;
            (key, value)
        })
        .collect();
    Node::plain(NodeValue::Map(entries), line, column, size)
}

fn value_node(value: &Spanned<DeValue<'_>>, at: &dyn Fn(usize) -> (u32, u32)) -> Node {
    let (line, column) = at(value.span().start);
    let scalar = |text: String, style: Style| Node::plain(NodeValue::Scalar(text, style), line, column, 1);
    match value.get_ref() {
        DeValue::String(s) => scalar(s.to_string(), Style::Quoted),
        DeValue::Integer(i) => {
            let digits = i.as_str().replace('_', "");
            let text = i64::from_str_radix(&digits, i.radix()).map_or(digits, |n| n.to_string());
            scalar(text, Style::Plain)
        }
        DeValue::Float(f) => scalar(f.as_str().replace('_', ""), Style::Plain),
        DeValue::Boolean(b) => scalar(b.to_string(), Style::Plain),
        DeValue::Datetime(d) => scalar(d.to_string(), Style::Quoted),
        DeValue::Array(items) => {
            let items: Vec<Node> = items.iter().map(|item| value_node(item, at)).collect();
            let size = 1 + items.iter().map(|n| n.size).sum::<usize>();
            Node::plain(NodeValue::Seq(items), line, column, size)
        }
        DeValue::Table(table) => table_node(table, line, column, at),
    }
}

/// The 1-based file line and column (in characters) of byte `offset` of `block`.
fn position(block: &str, offset: usize, first_line: u32) -> (u32, u32) {
    let before = &block[..block.floor_char_boundary(offset.min(block.len()))];
    let line = first_line + before.matches('\n').count() as u32;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() as u32 + 1;
    (line, column)
}
