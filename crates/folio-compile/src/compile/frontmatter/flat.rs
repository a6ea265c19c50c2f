//! A fast path for the frontmatter nearly every doc has: a mapping, one `key: value` per line,
//! where each value is a one-line quoted or plain string or a one-line list of them
//! (`tags: ["a", "b"]`); and, as SKILL.md files have, a key whose value is an indented block
//! of such lines (`metadata:`) or a list of such blocks (`- id: …` items).
//! yaml-rust2 spends about 50,000 instructions on a doc's block and 150,000 on a skill's (its
//! scanner and parser are general, and allocate per token); reading them here costs about a
//! fifth of that, allocations included. Parsing frontmatter was a twentieth of a large build.
//!
//! What it must not do: accept anything yaml-rust2 would read differently. It gives up (returns
//! `None`, and [`super::parse_yaml`] runs yaml-rust2) on anything outside a deliberately small
//! subset: non-ASCII or control bytes, tabs, `\r`, comments, escapes, anchors, tags, block
//! scalars, nesting deeper than the above, indentation other than the above, multi-line values,
//! empty values, keys needing quotes. The tree it returns is the one `parse_yaml` builds from
//! yaml-rust2's events, positions included; a test compares the two on generated and real
//! frontmatter.

use super::{MAX_YAML_NODES, Node, NodeValue, Style};

/// Longest key read here. YAML bounds implicit keys at 1024 characters; shorter keys stay far
/// from that rule.
const MAX_KEY_BYTES: usize = 128;

/// The tree of `yaml` (whose first line is line `first_line` of the file) when it is a mapping
/// this module reads (see the module docs); `None` otherwise.
pub(super) fn parse(yaml: &str, first_line: u32) -> Option<Node> {
    // Tabs, `\r`, control bytes and non-ASCII text are left to yaml-rust2: columns here are
    // byte offsets, which equal its character columns only for ASCII.
    if !yaml.bytes().all(|b| b == b'\n' || (b' '..=b'~').contains(&b)) {
        return None;
    }
    let mut lines = Lines { lines: yaml.split('\n').enumerate().peekable(), first_line };
    let mut entries = Vec::new();
    while let Some((line_no, indent, line)) = lines.next_nonblank()? {
        if indent != 0 {
            return None;
        }
        let entry = match entry(line, 0, line_no) {
            Some(entry) => entry,
            // `key:` alone: its value is the indented block after it.
            None => (nested_key(line, line_no)?, block(&mut lines)?),
        };
        entries.push(entry);
    }
    let node = mapping(entries)?;
    (node.size <= MAX_YAML_NODES).then_some(node)
}

/// The lines of the YAML text, numbered in the file.
struct Lines<'a> {
    lines: std::iter::Peekable<std::iter::Enumerate<std::str::Split<'a, char>>>,
    first_line: u32,
}

impl<'a> Lines<'a> {
    /// The next line that is not blank: its number in the file, its indentation and the line.
    /// `Some(None)` at the end; `None` when the numbers overflow.
    fn next_nonblank(&mut self) -> Option<Option<(u32, usize, &'a str)>> {
        self.skip_blank();
        let Some((i, line)) = self.lines.next() else { return Some(None) };
        let line_no = self.first_line.checked_add(u32::try_from(i).ok()?)?;
        Some(Some((line_no, indent(line), line)))
    }

    /// The indentation of the next line that is not blank; `None` at the end.
    fn next_indent(&mut self) -> Option<usize> {
        self.skip_blank();
        self.lines.peek().map(|(_, line)| indent(line))
    }

    /// Moves past blank lines (nothing but spaces).
    fn skip_blank(&mut self) {
        while self.lines.next_if(|(_, line)| line.bytes().all(|b| b == b' ')).is_some() {}
    }
}

fn indent(line: &str) -> usize {
    line.bytes().take_while(|&b| b == b' ').count()
}

/// The key of a top-level `key:` line with no value (an indented block follows).
fn nested_key(line: &str, line_no: u32) -> Option<Node> {
    let key_len = key_len(line.as_bytes(), 0)?;
    (line.as_bytes()[key_len] == b':' && trailing_spaces(line.as_bytes(), key_len + 1).is_some())
        .then(|| scalar(&line[..key_len], Style::Plain, line_no, 0))
}

/// The indented block after a top-level `key:` line: `key: value` lines all indented alike, or
/// a list of such blocks, each opened by `- ` at one indentation with the rest of its lines two
/// columns further in. `None` for anything else, an empty block included (a null value).
fn block(lines: &mut Lines<'_>) -> Option<Node> {
    let n = lines.next_indent().filter(|&n| n > 0)?;
    let (line_no, _, line) = lines.next_nonblank()??;
    if line.as_bytes().get(n..n + 2) != Some(b"- ") {
        // A mapping: every line at indentation `n`.
        let mut entries = vec![entry(line, n, line_no)?];
        while lines.next_indent().is_some_and(|indent| indent > 0) {
            let (line_no, indent, line) = lines.next_nonblank()??;
            if indent != n {
                return None;
            }
            entries.push(entry(line, n, line_no)?);
        }
        return mapping(entries);
    }
    // A list of mappings: an item's first key follows its `- `, its other keys line up with it.
    let (seq_line, seq_column) = (line_no, column(n));
    let mut items = Vec::new();
    let mut entries = vec![entry(line, n + 2, line_no)?];
    while lines.next_indent().is_some_and(|indent| indent > 0) {
        let (line_no, indent, line) = lines.next_nonblank()??;
        if indent == n + 2 {
            entries.push(entry(line, indent, line_no)?);
        } else if indent == n && line.as_bytes().get(n..n + 2) == Some(b"- ") {
            items.push(mapping(std::mem::take(&mut entries))?);
            entries.push(entry(line, n + 2, line_no)?);
        } else {
            return None;
        }
    }
    items.push(mapping(entries)?);
    let size = 1 + items.iter().map(|item| item.size).sum::<usize>();
    Some(Node::plain(NodeValue::Seq(items), seq_line, seq_column, size))
}

/// A mapping of `entries` (at least one), placed at its first key.
fn mapping(entries: Vec<(Node, Node)>) -> Option<Node> {
    let (line, column) = entries.first().map(|(key, _)| (key.line, key.column))?;
    let size = 1 + entries.iter().map(|(k, v)| k.size + v.size).sum::<usize>();
    Some(Node::plain(NodeValue::Map(entries), line, column, size))
}

/// The length of the key starting at byte `at`: letters, digits, `_` and `-`, not starting
/// with `-` (a key that does is left to yaml-rust2), at most [`MAX_KEY_BYTES`].
fn key_len(bytes: &[u8], at: usize) -> Option<usize> {
    let len = bytes.get(at..)?.iter().position(|&b| !is_key_byte(b))?;
    (len > 0 && len <= MAX_KEY_BYTES && bytes[at] != b'-').then_some(len)
}

/// One `key: value` line whose key starts at byte `at` (ASCII, at least one non-space byte).
fn entry(line: &str, at: usize, line_no: u32) -> Option<(Node, Node)> {
    let bytes = line.as_bytes();
    let key_len = key_len(bytes, at)?;
    // `key:` then at least one space (a `:` with no space after it is part of a plain scalar).
    if bytes.get(at + key_len..at + key_len + 2) != Some(b": ") {
        return None;
    }
    let after = at + key_len + 2;
    let start = after + bytes[after..].iter().take_while(|&&b| b == b' ').count();
    let key = scalar(&line[at..at + key_len], Style::Plain, line_no, at);
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
    Some(Node { flow: true, ..Node::plain(NodeValue::Seq(items), line_no, column(start), size) })
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
    Node::plain(NodeValue::Scalar(text.to_owned(), style), line, column(at), 1)
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
