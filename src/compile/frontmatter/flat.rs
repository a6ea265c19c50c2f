//! A fast path for the frontmatter nearly every doc has: a flat mapping, one `key: value` per
//! line, where each value is a one-line quoted or plain string or a one-line list of them
//! (`tags: ["a", "b"]`). yaml-rust2 spends about 50,000 instructions on such a block (its
//! scanner and parser are general, and allocate per token); reading it here costs about a fifth
//! of that, allocations included. Parsing frontmatter was a twentieth of a large build.
//!
//! What it must not do: accept anything yaml-rust2 would read differently. It gives up (returns
//! `None`, and [`super::parse_yaml`] runs yaml-rust2) on anything outside a deliberately small
//! subset: non-ASCII or control bytes, tabs, `\r`, comments, escapes, anchors, tags, block
//! scalars, nesting, multi-line values, empty values, keys needing quotes. The tree it returns is
//! the one `parse_yaml` builds from yaml-rust2's events, positions included; a test compares the
//! two on generated and real frontmatter.

use super::{MAX_YAML_NODES, Node, NodeValue, Style};

/// Longest key read here. YAML bounds implicit keys at 1024 characters; shorter keys stay far
/// from that rule.
const MAX_KEY_BYTES: usize = 128;

/// The tree of `yaml` (whose first line is line `first_line` of the file) when it is a flat
/// mapping this module reads; `None` otherwise.
pub(super) fn parse(yaml: &str, first_line: u32) -> Option<Node> {
    // Tabs, `\r`, control bytes and non-ASCII text are left to yaml-rust2: columns here are
    // byte offsets, which equal its character columns only for ASCII.
    if !yaml.bytes().all(|b| b == b'\n' || (b' '..=b'~').contains(&b)) {
        return None;
    }
    let mut entries = Vec::new();
    let mut size = 1;
    for (i, line) in yaml.split('\n').enumerate() {
        if line.bytes().all(|b| b == b' ') {
            continue;
        }
        let line_no = first_line.checked_add(u32::try_from(i).ok()?)?;
        let (key, value) = entry(line, line_no)?;
        size += key.size + value.size;
        entries.push((key, value));
    }
    let first = entries.first()?;
    if size > MAX_YAML_NODES {
        return None;
    }
    let (line, column) = (first.0.line, first.0.column);
    Some(Node {
        value: NodeValue::Map(entries),
        line,
        column,
        tagged: false,
        anchored: false,
        aliased: false,
        size,
    })
}

/// One `key: value` line (ASCII, at least one non-space byte).
fn entry(line: &str, line_no: u32) -> Option<(Node, Node)> {
    let bytes = line.as_bytes();
    let key_len = bytes.iter().position(|&b| !is_key_byte(b))?;
    // Key bytes are letters, digits, `_` and `-`; a key starting with `-` is left to yaml-rust2.
    if key_len == 0 || key_len > MAX_KEY_BYTES || bytes[0] == b'-' {
        return None;
    }
    // `key:` then at least one space (a `:` with no space after it is part of a plain scalar).
    if bytes.get(key_len..key_len + 2) != Some(b": ") {
        return None;
    }
    let start = key_len + 2 + bytes[key_len + 2..].iter().take_while(|&&b| b == b' ').count();
    let key = scalar(&line[..key_len], Style::Plain, line_no, 0);
    let value = match bytes.get(start)? {
        b'"' | b'\'' => {
            let (text, end) = quoted(line, start)?;
            trailing_spaces(bytes, end)?;
            scalar(text, Style::Quoted, line_no, start)
        }
        b'[' => list(line, start, line_no)?,
        _ => {
            let text = line[start..].trim_end_matches(' ');
            if !text.bytes().enumerate().all(|(i, b)| is_plain_byte(b, i == 0)) {
                return None;
            }
            scalar(text, Style::Plain, line_no, start)
        }
    };
    Some((key, value))
}

/// A one-line flow sequence `[item, item]` starting at `start`, of quoted strings and plain
/// words, with nothing but spaces after it.
fn list(line: &str, start: usize, line_no: u32) -> Option<Node> {
    let bytes = line.as_bytes();
    let skip_spaces = |at: usize| at + bytes[at..].iter().take_while(|&&b| b == b' ').count();
    let mut items = Vec::new();
    let mut at = skip_spaces(start + 1);
    if bytes.get(at) != Some(&b']') {
        loop {
            let (item, end) = match *bytes.get(at)? {
                b'"' | b'\'' => {
                    let (text, end) = quoted(line, at)?;
                    (scalar(text, Style::Quoted, line_no, at), end)
                }
                _ => {
                    let len = bytes[at..].iter().take_while(|&&b| is_word_byte(b)).count();
                    if len == 0 || !bytes[at].is_ascii_alphanumeric() {
                        return None;
                    }
                    (scalar(&line[at..at + len], Style::Plain, line_no, at), at + len)
                }
            };
            items.push(item);
            at = skip_spaces(end);
            match bytes.get(at)? {
                b',' => at = skip_spaces(at + 1),
                b']' => break,
                _ => return None,
            }
        }
    }
    trailing_spaces(bytes, at + 1)?;
    let size = 1 + items.len();
    Some(Node {
        value: NodeValue::Seq(items),
        line: line_no,
        column: column(start),
        tagged: false,
        anchored: false,
        aliased: false,
        size,
    })
}

/// The text of the quoted string opening at `start` (`"` or `'`), and the offset past its
/// closing quote. `None` for an escape (`\` in double quotes, `''` in single ones), which this
/// module does not decode, and for a string not closed on its line.
fn quoted(line: &str, start: usize) -> Option<(&str, usize)> {
    let quote = line.as_bytes()[start];
    let len = line[start + 1..].find(char::from(quote))?;
    let text = &line[start + 1..start + 1 + len];
    let end = start + 2 + len;
    if quote == b'"' && text.contains('\\') || quote == b'\'' && line.as_bytes().get(end) == Some(&b'\'') {
        return None;
    }
    Some((text, end))
}

/// `Some` when `bytes[at..]` is only spaces.
fn trailing_spaces(bytes: &[u8], at: usize) -> Option<()> {
    bytes.get(at..)?.iter().all(|&b| b == b' ').then_some(())
}

fn scalar(text: &str, style: Style, line: u32, at: usize) -> Node {
    Node {
        value: NodeValue::Scalar(text.to_owned(), style),
        line,
        column: column(at),
        tagged: false,
        anchored: false,
        aliased: false,
        size: 1,
    }
}

/// The 1-based column of byte offset `at` of an ASCII line.
fn column(at: usize) -> u32 {
    u32::try_from(at + 1).unwrap_or(u32::MAX)
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

/// A byte of a plain word in a list: letters, digits, `-`, `_`, `.`.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// A byte of a plain value read here: it starts with a letter or digit and holds no byte that
/// YAML gives a meaning to (`:`, `#`, brackets, quotes…), so it is text whatever follows.
fn is_plain_byte(b: u8, first: bool) -> bool {
    if first {
        return b.is_ascii_alphanumeric();
    }
    b.is_ascii_alphanumeric() || matches!(b, b' ' | b'_' | b'-' | b'.' | b'/' | b'+' | b'(' | b')' | b',')
}
