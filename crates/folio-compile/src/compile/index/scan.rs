//! A SWAR scan for ASCII word bytes, eight at a time: where the indexer's fast path finds words
//! without a table lookup per byte. Measured, and tested against the byte table it replaces.
//!
//! Pure; no IO.

/// True for the bytes a word is made of: ASCII letters and digits, and every byte of a
/// non-ASCII character (those pieces go through [`tokenize`]). The definition the fast scans
/// ([`word_lanes`], [`Words`]) are tested against.
#[cfg(test)]
pub(super) fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// Bit 7 of every byte of a `u64`: the lanes [`word_lanes`] marks.
pub(super) const LANE_HIGH: u64 = 0x8080_8080_8080_8080;
/// 1 in every byte of a `u64`.
pub(super) const LANE_ONES: u64 = 0x0101_0101_0101_0101;

/// The word bytes (ASCII letters and digits, bytes of non-ASCII characters) among the 8 bytes
/// of `w` (read little-endian), as bit 7 of their lanes.
///
/// Eight bytes are classified at once (SWAR): with bit 7 cleared, each lane holds 0..=127, so
/// `(lane | 0x80) - n` never borrows from the next lane and keeps bit 7 exactly when
/// `lane >= n`. Letters are tested after OR-ing 0x20, which maps `A..=Z` onto `a..=z` and no
/// other byte into that range.
#[inline]
pub(super) fn word_lanes(w: u64) -> u64 {
    let at_least = |x: u64, n: u8| ((x | LANE_HIGH) - LANE_ONES * u64::from(n)) & LANE_HIGH;
    let low = w & !LANE_HIGH;
    let digit = at_least(low, b'0') & !at_least(low, b'9' + 1);
    let folded = low | (LANE_ONES * 0x20);
    let letter = at_least(folded, b'a') & !at_least(folded, b'z' + 1);
    // Bytes of 0x80 and above (parts of non-ASCII characters) count as word bytes.
    (digit | letter | w) & LANE_HIGH
}

/// The bit 7s of `lanes` (one per byte, as [`word_lanes`] sets them) gathered into the low 8
/// bits, lane `i` to bit `i`. The multiply moves each lane's bit to bit `56 + i` without
/// carries (every lane/shift pair lands on its own bit), like SSE2's `movemask`.
#[inline]
pub(super) fn gather_lanes(lanes: u64) -> u64 {
    ((lanes >> 7) & LANE_ONES).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// One bit per byte of the 64 bytes at `at` (past the end: zeros, which are not word bytes):
/// the word bytes (see [`word_lanes`]).
#[inline]
pub(super) fn block_mask(bytes: &[u8], at: usize) -> u64 {
    let mut padded = [0u8; 64];
    let block: &[u8] = match bytes.get(at..at + 64) {
        Some(block) => block,
        None => {
            let rest = bytes.get(at..).unwrap_or_default();
            padded[..rest.len()].copy_from_slice(rest);
            &padded
        }
    };
    let mut word = 0u64;
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        word |= gather_lanes(word_lanes(w)) << (8 * i);
    }
    word
}

/// The runs of word bytes of a text, as `start..end`, found 64 bytes at a time: each block is
/// classified once into a bit mask, and the runs are read off it with bit scans, so finding a
/// word costs a few instructions and no branch per byte. (Scanning byte by byte, or 8 bytes at
/// a time, was half of the tokenizer's time on a large tree.) Whether a run is ASCII is left to
/// the caller, which reads its bytes anyway.
pub(super) struct Words<'a> {
    pub(super) bytes: &'a [u8],
    /// Offset of the block `rest` describes.
    pub(super) base: usize,
    /// The block's word bytes not yet yielded.
    pub(super) rest: u64,
}

impl<'a> Words<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Words<'a> {
        Words { bytes, base: 0, rest: block_mask(bytes, 0) }
    }

    /// Moves to the next block; false past the end of the text, with nothing left to yield.
    #[inline]
    pub(super) fn advance(&mut self) -> bool {
        self.base += 64;
        if self.base >= self.bytes.len() {
            // A run through a whole last block leaves its bits set: cleared here, or the next
            // call would yield an empty run at the end (a text of 128 bytes ending in a long word).
            self.rest = 0;
            return false;
        }
        self.rest = block_mask(self.bytes, self.base);
        true
    }
}

impl Iterator for Words<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        while self.rest == 0 {
            if !self.advance() {
                return None;
            }
        }
        let from = self.rest.trailing_zeros();
        let run = (self.rest >> from).trailing_ones();
        let start = self.base + from as usize;
        // Adding the run's lowest bit carries through the run and clears it (a carry out of
        // bit 63 is the run reaching the block's end), leaving the bits above it.
        self.rest &= self.rest.wrapping_add(1 << from);
        if from + run < 64 {
            return Some((start, start + run as usize));
        }
        // The run goes on into the next blocks (or ends with the text).
        loop {
            if !self.advance() {
                return Some((start, self.bytes.len()));
            }
            let run = self.rest.trailing_ones();
            if run < 64 {
                self.rest &= self.rest.wrapping_add(1);
                return Some((start, self.base + run as usize));
            }
        }
    }
}
