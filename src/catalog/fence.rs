//! The frontmatter fence: where a markdown file's leading `---` block starts and ends. One rule
//! for the compiler (which reads the YAML, with positions) and for search (which indexes and
//! snippets only the body, at build time and at run time), so a block is metadata to both or
//! body text to both.
//!
//! The rule: a UTF-8 byte-order mark is skipped; the first line is `---` (trailing spaces, tabs
//! and `\r` ignored); the block ends at the first later line that is `---` or `...` (the same
//! trimming). A file whose opening fence is never closed has no frontmatter. Pure; must not read
//! the YAML.

/// Where a file's frontmatter block and body are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fence<'a> {
    /// No frontmatter: the whole file (without its BOM) is body.
    None(&'a str),
    /// A closed block.
    Closed {
        /// The YAML between the fences (starting on line 2).
        yaml: &'a str,
        /// The text after the closing fence.
        body: &'a str,
        /// 1-based line of the body's first line.
        body_line: u32,
    },
    /// An opening `---` never closed: the whole file (without its BOM) is body.
    Unclosed(&'a str),
}

/// Finds the frontmatter block of `text`.
pub fn fence(text: &str) -> Fence<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first_end = text.find('\n').map_or(text.len(), |i| i + 1);
    if trim_line(&text[..first_end]) != "---" {
        return Fence::None(text);
    }
    let mut at = first_end;
    let mut line = 2;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let fence = trim_line(&text[at..end]);
        if fence == "---" || fence == "..." {
            return Fence::Closed { yaml: &text[first_end..at], body: &text[end..], body_line: line + 1 };
        }
        at = end;
        line += 1;
    }
    Fence::Unclosed(text)
}

/// The body of `text`: after its frontmatter block, if it has a closed one.
pub fn body(text: &str) -> &str {
    match fence(text) {
        Fence::None(body) | Fence::Unclosed(body) | Fence::Closed { body, .. } => body,
    }
}

fn trim_line(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r', ' ', '\t'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_found_with_one_rule() {
        assert_eq!(body("---\ntitle: x\n---\nbody\n"), "body\n");
        assert_eq!(body("--- \r\ntitle: x\r\n...\r\nbody\r\n"), "body\r\n", "trailing blanks, CRLF, `...`");
        assert_eq!(body("\u{feff}---\ntitle: x\n---\nbody"), "body");
        assert_eq!(body("no frontmatter\n"), "no frontmatter\n");
        assert_eq!(body("---\nunclosed\n"), "---\nunclosed\n");
        assert_eq!(body("----\nx\n---\nbody"), "----\nx\n---\nbody", "four dashes open nothing");
        assert_eq!(
            fence("---\na: 1\n---\n# T\n"),
            Fence::Closed { yaml: "a: 1\n", body: "# T\n", body_line: 4 }
        );
    }
}
