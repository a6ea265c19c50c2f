//! Byte offsets in a body to 1-based line and column (in characters) in the whole file.
//!
//! Pure; no IO.

use std::cell::Cell;

/// Byte offset → (line, column) in the whole file.
///
/// Offsets are located from the last one located (a cursor), counting the newlines in between:
/// `analyze` asks in nearly source order, so each body is counted about once, with wide compares.
/// (A table of every line start cost a push per line and its reallocations, on every doc, for
/// the few dozen offsets a doc asks about.)
pub(super) struct LineIndex<'a> {
    body: &'a str,
    first_line: u32,
    /// The start of the line last located and its index (0-based, in the body).
    cursor: Cell<(usize, usize)>,
    /// The offset last located and its column: a later offset on the same line counts only
    /// the characters in between (a line of 100,000 links was counted from its start for
    /// each, quadratic in the line's length).
    column: Cell<(usize, usize)>,
}

impl<'a> LineIndex<'a> {
    pub(super) fn new(body: &'a str, first_line: u32) -> Self {
        LineIndex {
            body,
            first_line: first_line.max(1),
            cursor: Cell::new((0, 0)),
            column: Cell::new((0, 0)),
        }
    }

    /// 1-based line and character column of a byte offset.
    pub(super) fn locate(&self, offset: usize) -> (u32, u32) {
        let offset = offset.min(self.body.len());
        let bytes = self.body.as_bytes();
        let (mut line_start, mut idx) = self.cursor.get();
        let (last, last_column) = self.column.get();
        if offset >= line_start {
            // From the offset last located, which is on the cursor's line, when it is not past
            // this one: the bytes before it hold no newline.
            let from = if last >= line_start && last <= offset { last } else { line_start };
            let newlines = count_newlines(&bytes[from..offset]);
            if newlines > 0 {
                idx += newlines;
                line_start = memchr::memrchr(b'\n', &bytes[from..offset]).map_or(0, |i| from + i + 1);
            }
        } else {
            // Back over the newlines between the offset and the cursor's line (the one ending the
            // line before it included).
            idx -= count_newlines(&bytes[offset..line_start]);
            line_start = memchr::memrchr(b'\n', &bytes[..offset]).map_or(0, |i| i + 1);
        }
        self.cursor.set((line_start, idx));
        let between = if last > line_start && last <= offset { self.body.get(last..offset) } else { None };
        let column = match between {
            // Past the line's start, so a byte-order mark (which is not a column an editor
            // shows) is behind it already.
            Some(between) => last_column + between.chars().count(),
            None => {
                let prefix = self.body.get(line_start..offset).unwrap_or("");
                let prefix =
                    if idx == 0 { prefix.strip_prefix('\u{feff}').unwrap_or(prefix) } else { prefix };
                prefix.chars().count() + 1
            }
        };
        self.column.set((offset, column));
        (self.first_line.saturating_add(to_u32(idx)), to_u32(column))
    }

    /// The last line of the file: the line holding the body's last character.
    pub(super) fn last_line(&self) -> u32 {
        self.locate(self.body.len());
        // Lines are the newlines plus one, but a final `\n` ends the last line rather than
        // starting a new one.
        let lines = self.cursor.get().1 + 1 - usize::from(self.body.ends_with('\n'));
        self.first_line.saturating_add(to_u32(lines.max(1))).saturating_sub(1)
    }
}

pub(super) fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// How many `\n` bytes `bytes` holds.
pub(crate) fn count_newlines(bytes: &[u8]) -> usize {
    // memchr counts with the widest compares the CPU has (chosen at run time: AVX2 where there
    // is one), where a loop of ours compiles for the baseline's SSE2; counting into a `usize`
    // byte by byte did not vectorise at all and cost four instructions a byte.
    memchr::memchr_iter(b'\n', bytes).count()
}

#[cfg(test)]
mod tests {
    use super::count_newlines;

    #[test]
    fn newlines_are_counted_across_block_edges() {
        // Lengths around the vector widths (16, 32 bytes) and their multiples, all newlines and
        // none, and a mix.
        for len in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 254, 255, 256, 1000] {
            for text in
                [vec![b'\n'; len], vec![b'x'; len], (0..len).map(|i| [b'a', b'\n', b'\r'][i % 3]).collect()]
            {
                let expected = text.iter().filter(|&&b| b == b'\n').count();
                assert_eq!(count_newlines(&text), expected, "{len} bytes");
            }
        }
    }
}
