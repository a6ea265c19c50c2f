//! MDX has no indented code blocks: a line indented by four or more columns is whatever it would
//! be without them (a paragraph, a heading, a code fence), which is how MDX docs indent the
//! markdown inside JSX (`<TabItem>` content, four spaces deep). CommonMark reads such a line
//! after a blank one as code, and a fence opened on it is then never seen to open, so its closing
//! fence opens one that runs to the end of the file.
//!
//! pulldown-cmark cannot turn indented code off, so for an `.mdx` body every line it reads as
//! indented code has the four columns it strips moved to the end of the line (as spaces), and the
//! body is parsed again, until no indented code is left (nested content needs a pass per level).
//! Line lengths and line numbers stay those of the file; [`Shifts`] maps an offset in the
//! rewritten text back to the file, so columns stay right too.
//!
//! Pure; no IO. Only the markdown pass uses it, and only for MDX.

use std::borrow::Cow;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

/// At most this many passes: one per level of nesting, and no real doc nests this deep.
const MAX_PASSES: usize = 8;

/// Where lines of the rewritten text moved their content left: for each such line, sorted by
/// its start, the offset in the rewritten text from which its content sits `shift` bytes before
/// where it is in the file, up to the end of the line.
#[derive(Debug, Default, Clone)]
pub(super) struct Shifts(Vec<Moved>);

#[derive(Debug, Clone, Copy)]
struct Moved {
    line_start: usize,
    from: usize,
    line_end: usize,
    shift: usize,
}

impl Shifts {
    /// The offset in the file of `offset` in the rewritten text.
    pub(super) fn to_file(&self, offset: usize) -> usize {
        let i = self.0.partition_point(|m| m.line_start <= offset);
        match i.checked_sub(1).map(|i| self.0[i]) {
            Some(m) if m.from <= offset && offset < m.line_end => offset + m.shift,
            _ => offset,
        }
    }

    /// Records that the content of the line `line_start..line_end` moved `moved` bytes left, to
    /// `from` (a line may move in several passes).
    fn add(&mut self, line_start: usize, from: usize, line_end: usize, moved: usize) {
        let at = Moved { line_start, from, line_end, shift: moved };
        match self.0.binary_search_by_key(&line_start, |m| m.line_start) {
            Ok(i) => self.0[i] = Moved { shift: self.0[i].shift + moved, ..at },
            Err(i) => self.0.insert(i, at),
        }
    }
}

/// `text` rewritten until pulldown-cmark finds no indented code in it (see the module docs), with
/// where content moved; `None` when it has none. The rewritten text keeps the length and the line
/// endings of `text`.
pub(super) fn unindent_code(text: &str) -> Option<(String, Shifts)> {
    let mut text = Cow::Borrowed(text);
    let mut shifts = Shifts::default();
    for _ in 0..MAX_PASSES {
        let starts = indented_code_lines(&text);
        if starts.is_empty() {
            break;
        }
        let mut bytes = text.into_owned().into_bytes();
        for content in starts {
            let line_start = memchr::memrchr(b'\n', &bytes[..content]).map_or(0, |i| i + 1);
            // The whitespace pulldown stripped: four columns before the content, a tab reaching
            // the next multiple of four.
            let mut from = content;
            let mut columns = 0;
            while from > line_start && columns < 4 && matches!(bytes[from - 1], b' ' | b'\t') {
                columns += if bytes[from - 1] == b'\t' { 4 } else { 1 };
                from -= 1;
            }
            let moved = content - from;
            if moved == 0 {
                continue;
            }
            let line_end = memchr::memchr(b'\n', &bytes[content..]).map_or(bytes.len(), |i| content + i);
            let line_end =
                if line_end > content && bytes[line_end - 1] == b'\r' { line_end - 1 } else { line_end };
            bytes.copy_within(content..line_end, from);
            bytes[line_end - moved..line_end].fill(b' ');
            shifts.add(line_start, from, line_end, moved);
        }
        // Only ASCII whitespace moved, and whole characters after it: still UTF-8.
        text = Cow::Owned(String::from_utf8(bytes).expect("moving ASCII whitespace keeps UTF-8"));
    }
    match text {
        Cow::Owned(text) => Some((text, shifts)),
        Cow::Borrowed(_) => None,
    }
}

/// Offsets where the content of each line of an indented code block starts.
fn indented_code_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut inside = false;
    for (event, range) in Parser::new_ext(text, super::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Indented)) => inside = true,
            Event::End(TagEnd::CodeBlock) => inside = false,
            // A line's text (a tab's leftover columns come as spaces of their own).
            Event::Text(t) if inside && !t.trim().is_empty() => {
                let at_line_start = range.start == 0
                    || text[..range.start].ends_with([' ', '\t'])
                    || text.as_bytes()[range.start - 1] == b'\n';
                if at_line_start {
                    out.push(range.start);
                }
            }
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
