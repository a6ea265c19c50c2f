//! Term interning: [`TermDict`] maps terms to dense ids in first-seen order (a
//! [`hashbrown::HashTable`] of ids), and the hash and [`Key`] that place terms and spellings.
//!
//! Pure; no IO. Which hash is used never reaches the index bytes: terms are sorted before they
//! are written.

/// A fast, deterministic hash for interning terms (FxHash's mixing over 8-byte words). Which
/// hash is used cannot change the index bytes: dictionaries are only looked up, and terms are
/// sorted before they are written.
pub(super) fn term_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut tail = [0u8; 8];
        tail[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    }
    // A product's low bits depend only on its inputs' low bits, and slots are picked by the low
    // bits: rotate the well-mixed middle bits down (as rustc-hash 2 does).
    h.rotate_left(26)
}

/// Interns terms to dense ids in first-seen order: an [`Indexer`](super::Indexer)'s terms (looked up once per
/// new spelling and per non-ASCII token) and, in [`build_with`](super::build_with), every indexer's terms merged.
/// A [`hashbrown::HashTable`] of ids placed by the hash of their term; the terms themselves are kept
/// once, concatenated, so the table's slots stay four bytes each.
#[derive(Debug, Default, Clone)]
pub(crate) struct TermDict {
    /// Term ids, placed by the [`term_hash`] of their term.
    table: hashbrown::HashTable<u32>,
    /// Every term, concatenated.
    text: String,
    /// Per term id: its end offset in `text`.
    ends: Vec<usize>,
}

/// What the indexer's spelling memo compares (see `Spelling` in the indexer): the hash, a tag
/// and the first 16 bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Key {
    pub(super) hash: u64,
    /// High bits of the hash, and the length (capped at 255) in the low byte.
    pub(super) tag: u32,
    /// The first 16 bytes, zero-padded.
    pub(super) head: [u64; 2],
}

impl Key {
    /// A placeholder (the key of no word: a piece too long for the memo is not keyed).
    pub(super) const EMPTY: Key = Key { hash: 0, tag: 0, head: [0; 2] };

    pub(super) fn of(bytes: &[u8]) -> Key {
        let mut head = [0u8; 16];
        let n = bytes.len().min(16);
        head[..n].copy_from_slice(&bytes[..n]);
        let head = [
            u64::from_le_bytes(head[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(head[8..].try_into().expect("8 bytes")),
        ];
        if (1..=16).contains(&bytes.len()) {
            return Key::short(head, bytes.len());
        }
        Key::with_hash(term_hash(bytes), head, bytes.len())
    }

    /// The key of a term of 1 to 16 bytes given as its zero-padded little-endian words: what
    /// [`Key::of`] computes, without reading the bytes again ([`term_hash`] unrolled).
    #[inline]
    pub(super) fn short(head: [u64; 2], len: usize) -> Key {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = ((len as u64).rotate_left(5) ^ head[0]).wrapping_mul(K);
        if len > 8 {
            h = (h.rotate_left(5) ^ head[1]).wrapping_mul(K);
        }
        Key::with_hash(h.rotate_left(26), head, len)
    }

    #[inline]
    pub(super) fn with_hash(hash: u64, head: [u64; 2], len: usize) -> Key {
        Key { hash, tag: ((hash >> 32) as u32 & !0xff) | len.min(0xff) as u32, head }
    }
}

/// The key of the ASCII word `bytes[start..end]` (at most 16 bytes), read as two words when
/// 16 bytes are there to read, masked to the word.
#[inline]
pub(super) fn ascii_key(bytes: &[u8], start: usize, end: usize) -> Key {
    /// Per length up to 16: the mask keeping that many bytes of two little-endian words.
    const MASKS: [[u64; 2]; 17] = {
        let mut masks = [[0u64; 2]; 17];
        let mut len = 1;
        while len <= 16 {
            let mask = u128::MAX >> (128 - 8 * len);
            masks[len] = [mask as u64, (mask >> 64) as u64];
            len += 1;
        }
        masks
    };
    let len = end - start;
    let (Some(window), Some(mask)) = (bytes.get(start..start + 16), MASKS.get(len)) else {
        return Key::of(&bytes[start..end]);
    };
    let word = |i: usize| u64::from_le_bytes(window[i..i + 8].try_into().expect("8 bytes"));
    Key::short([word(0) & mask[0], word(8) & mask[1]], len)
}

impl TermDict {
    /// Number of distinct terms.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn term(&self, id: usize) -> &str {
        term_at(&self.text, &self.ends, id)
    }

    /// The id of `term`, adding it if new.
    pub(crate) fn intern(&mut self, term: &str) -> u32 {
        let hash = term_hash(term.as_bytes());
        let (text, ends) = (&self.text, &self.ends);
        let term_of = |id: u32| term_at(text, ends, id as usize);
        let entry =
            self.table.entry(hash, |&id| term_of(id) == term, |&id| term_hash(term_of(id).as_bytes()));
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => *found.get(),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                let id = u32::try_from(self.ends.len()).expect("fewer than 2^32 terms");
                slot.insert(id);
                self.text.push_str(term);
                self.ends.push(self.text.len());
                id
            }
        }
    }
}

/// Term `id` of a [`TermDict`]'s `text` and `ends`.
fn term_at<'a>(text: &'a str, ends: &[usize], id: usize) -> &'a str {
    let start = if id == 0 { 0 } else { ends[id - 1] };
    &text[start..ends[id]]
}
