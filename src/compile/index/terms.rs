//! Term interning: [`TermDict`] maps terms to dense ids in first-seen order, with open addressing
//! over small slots and each term's first 16 bytes kept by id, and the hash that places them.
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
/// Open addressing over small slots (hash tag and id) keeps the probed array small enough for
/// the core's cache; each term's first 16 bytes are stored by id, so a lookup rarely compares
/// against the separately stored bytes.
#[derive(Debug, Default, Clone)]
pub struct TermDict {
    /// Open-addressing slots; the length is a power of two, at least twice the terms.
    pub(super) slots: Vec<Slot>,
    /// Per term id: its first 16 bytes, zero-padded.
    pub(super) heads: Vec<[u64; 2]>,
    /// Every term, concatenated.
    pub(super) text: String,
    /// Per term id: its end offset in `text`.
    pub(super) ends: Vec<usize>,
}

/// A [`TermDict`] slot.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    /// High bits of the hash, and the length (capped at 255) in the low byte.
    pub(super) tag: u32,
    /// Term id, or [`EMPTY`].
    pub(super) id: u32,
}

pub(super) const EMPTY: u32 = u32::MAX;
pub(super) const EMPTY_SLOT: Slot = Slot { tag: 0, id: EMPTY };

/// What a [`TermDict`] lookup compares: the hash, the slot tag and the first 16 bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Key {
    pub(super) hash: u64,
    /// High bits of the hash, and the length (capped at 255) in the low byte.
    pub(super) tag: u32,
    /// The first 16 bytes, zero-padded.
    pub(super) head: [u64; 2],
}

impl Key {
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
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no term was interned.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub(super) fn term(&self, id: usize) -> &str {
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.text[start..self.ends[id]]
    }

    /// The id of `term`, adding it if new.
    pub fn intern(&mut self, term: &str) -> u32 {
        self.intern_key(term, Key::of(term.as_bytes()))
    }

    pub(super) fn ensure_slots(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![EMPTY_SLOT; 1024];
        }
    }

    /// [`TermDict::intern`] with the key computed.
    pub(super) fn intern_key(&mut self, term: &str, key: Key) -> u32 {
        self.ensure_slots();
        let mask = self.slots.len() - 1;
        let mut i = key.hash as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.id == EMPTY {
                break;
            }
            if slot.tag == key.tag && self.matches(slot.id, term, key) {
                return slot.id;
            }
            i = (i + 1) & mask;
        }
        let id =
            u32::try_from(self.ends.len()).ok().filter(|&id| id != EMPTY).expect("fewer than 2^32 - 1 terms");
        self.text.push_str(term);
        self.ends.push(self.text.len());
        self.heads.push(key.head);
        self.slots[i] = Slot { tag: key.tag, id };
        if self.ends.len() * 2 > self.slots.len() {
            self.grow();
        }
        id
    }

    /// True when term `id` is `term` (whose tag already matched, so whose length did).
    pub(super) fn matches(&self, id: u32, term: &str, key: Key) -> bool {
        // Equal length and first 16 bytes: equal unless longer than that.
        self.heads[id as usize] == key.head && (term.len() <= 16 || self.term(id as usize) == term)
    }

    pub(super) fn grow(&mut self) {
        let mut slots = vec![EMPTY_SLOT; self.slots.len() * 2];
        let mask = slots.len() - 1;
        for slot in self.slots.iter().filter(|s| s.id != EMPTY) {
            let hash = term_hash(self.term(slot.id as usize).as_bytes());
            let mut i = hash as usize & mask;
            while slots[i].id != EMPTY {
                i = (i + 1) & mask;
            }
            slots[i] = *slot;
        }
        self.slots = slots;
    }
}
