//! What may reach a terminal, and how wide it is: the escaping of characters that would drive
//! it (control characters, bidirectional overrides), character widths (Unicode's East Asian
//! Width, through `unicode-width`), wrapping and fitting text to columns, and colour. Every line
//! the binary prints about content goes through here (`browse` for catalogs, `render` for
//! diagnostics), so a hostile tree cannot drive the terminal.
//!
//! No IO beyond asking whether stdout is a terminal.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::IsTerminal as _;

/// True for a character that must not reach a terminal or a log as it is: control characters
/// (ESC starts terminal escape sequences; CR and backspace overwrite what was printed) and the
/// bidirectional overrides and isolates, which reorder what is shown.
pub(crate) fn unprintable(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unprintable character written as a Rust escape (`\u{1b}`, `\n`).
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unprintable) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unprintable(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Output styling: terminal width and whether to use colour.
pub(crate) struct Style {
    pub(crate) width: usize,
    pub(crate) color: bool,
}

impl Style {
    pub(crate) fn for_stdout() -> Style {
        let width = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse().ok()).filter(|&w| w >= 40);
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Style { width: width.unwrap_or(100), color }
    }

    pub(crate) fn paint(&self, code: &str, text: &str) -> String {
        if self.color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
    }

    /// Renders `**term**` marks as bold on a terminal; keeps them as-is otherwise.
    pub(crate) fn marks(&self, text: &str) -> String {
        if !self.color {
            return text.to_owned();
        }
        let mut out = String::new();
        for (i, part) in text.split("**").enumerate() {
            if i % 2 == 1 {
                let _ = write!(out, "\x1b[1m{part}\x1b[22m");
            } else {
                out.push_str(part);
            }
        }
        out
    }
}

/// Columns a character takes in a terminal (Unicode's East Asian Width, as terminals apply it:
/// 2 for wide characters, 0 for combining marks). Control characters count 1: they are shown
/// escaped, never sent as they are.
fn char_width(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(1)
}

/// Columns `text` takes in a terminal.
pub(crate) fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// `text` in at most `max` lines of at most `width` columns: broken at spaces, and inside a
/// word wider than a line (CJK text has no spaces). A `**mark**` a break splits is closed at the
/// end of its line and opened again on the next, so each line's marks pair up.
pub(crate) fn wrap(text: &str, width: usize, max: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    let mut words = text.split(' ').peekable();
    'words: while let Some(word) = words.next() {
        if used > 0 && used + 1 + text_width(word) > width {
            lines.push(std::mem::take(&mut line));
            used = 0;
        } else if used > 0 {
            line.push(' ');
            used += 1;
        }
        for c in word.chars() {
            let w = char_width(c);
            if used > 0 && used + w > width {
                lines.push(std::mem::take(&mut line));
                used = 0;
            }
            if lines.len() == max {
                break 'words;
            }
            line.push(c);
            used += w;
        }
        if words.peek().is_none() && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
    }
    lines.truncate(max);
    let mut open = false;
    for line in &mut lines {
        if open {
            line.insert_str(0, "**");
        }
        open = line.matches("**").count() % 2 == 1;
        if open {
            line.push_str("**");
        }
    }
    lines
}

/// Cuts `text` to at most `width` columns, ending with `…` when cut, and pads it to `width`.
/// Control characters are shown escaped (`\u{1b}`).
pub(crate) fn fit(text: &str, width: usize) -> String {
    // Control characters (an ESC in a title from a catalog built elsewhere) are escaped the way
    // diagnostics escape them, never sent to the terminal.
    let text = printable(text);
    let mut out = String::new();
    let mut used = 0;
    if text_width(&text) <= width {
        out.push_str(&text);
        used = text_width(&text);
    } else {
        for c in text.chars() {
            let w = char_width(c);
            if used + w + 1 > width {
                break;
            }
            out.push(c);
            used += w;
        }
        out.push('…');
        used += 1;
    }
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
    out
}
