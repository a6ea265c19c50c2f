//! The per-thread indexer: tokenizes a body or a doc's small fields into its own term
//! dictionary with a memo of recent spellings, counting what [`crate::catalog::search::tokenize`]
//! yields (a property test holds the two together).
//!
//! Pure; no IO.

use super::scan::{LANE_HIGH, Words};
use super::terms::{Key, TermDict, ascii_key};
use super::{doc_small_fields, put_varint};
use crate::catalog::Doc;
use crate::catalog::search::{FIELDS, MAX_TERM_BYTES, for_each_span, is_connector, tokenize};

/// The body of one indexed document, tokenized ahead of [`build_with`](super::build_with) (on the compiler's
/// parallel per-file stage, while the file is in cache): its token count and its distinct terms
/// with their frequencies, as ids of the [`Indexer`] that produced it.
#[derive(Debug, Default, Clone)]
pub(crate) struct BodyTerms {
    /// Which indexer's dictionary the ids belong to ([`Indexer::new`]'s `id`).
    pub(super) dict: u32,
    /// Tokens in the body (its BM25F field length).
    pub(super) tokens: u32,
    /// `(term id, frequency)` pairs as varints, one per distinct term, in no promised order (the
    /// order never reaches the index: each term has its own postings list).
    pub(super) pairs: Vec<u8>,
}

/// Tokenizes text into one [`TermDict`], counting term frequencies without sorting: one per
/// thread, so tokenizing needs no locks, and the dictionaries are merged by [`build_with`](super::build_with).
///
/// Tokens are the ones [`tokenize`] yields, found faster: text is cut at ASCII bytes that are
/// not letters or digits (which always end a token, so the pieces tokenize independently), and a
/// piece of at most 16 ASCII letters and digits (nearly every word) is looked up as written in a
/// memo of spellings, so lowercasing, the stop-word test and stemming run once per distinct
/// spelling rather than once per token. A spelling's slot holds all a token needs (its bytes,
/// its term and its count in the current text): one cache line per token. Counts move to their
/// terms once per spelling (`Indexer::fold`), not once per token.
#[derive(Debug, Default)]
pub(crate) struct Indexer {
    pub(super) id: u32,
    pub(super) dict: TermDict,
    /// Open-addressing memo of ASCII spellings; the length is a power of two, at least twice
    /// `n_spellings`.
    pub(super) spellings: Vec<Spelling>,
    pub(super) n_spellings: usize,
    /// Slots of the spellings counted since the last fold, in first-occurrence order: the
    /// first `n_seen`. As long as the memo (a slot is kept at most once between folds), so the
    /// counting loop never grows it.
    pub(super) seen: Vec<u32>,
    pub(super) n_seen: usize,
    /// Per term id, at [`tf_slot`]: its frequency in the text being counted (zeroed after
    /// each text).
    pub(super) tf: Vec<u32>,
    /// Term ids seen in the text being counted, in the order they were first counted: the first
    /// `n_touched` (the rest is scratch for [`Indexer::add`]).
    pub(super) touched: Vec<u32>,
    pub(super) n_touched: usize,
    /// The terms of the spellings that yield several tokens (an identifier such as
    /// `astro.config` or `getStaticPaths`, [`Spelling::tokens`] > 1), each spelling's in a run.
    pub(super) multi: Vec<u32>,
    /// The texts of a field, joined for one scan ([`Indexer::count`]); kept for its capacity.
    pub(super) joined: String,
    /// [`Indexer::body`]'s encoding buffer; kept for its capacity.
    pub(super) pairs: Vec<u8>,
    /// [`Indexer::small`]'s list of terms; kept for its capacity.
    pub(super) terms: Vec<(u32, u8, u32)>,
}

/// One ASCII word (or identifier: words joined by connectors) as written, in [`Indexer`]'s memo.
/// 32 bytes, aligned: two per cache line, never straddling one.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
pub(super) struct Spelling {
    /// The word's bytes, zero-padded (all of them: only words of at most 16 bytes are memoized).
    pub(super) head: [u64; 2],
    /// [`Key::tag`]; 0 for an empty slot (a word has at least one byte, so its tag is not 0).
    pub(super) tag: u32,
    /// The term it normalises to, or [`DROPPED`] (no token); for a spelling of several
    /// tokens, where their terms start in [`Indexer::multi`].
    pub(super) term: u32,
    /// Occurrences since the last [`Indexer::fold`].
    pub(super) tf: u32,
    /// How many tokens it yields: 0 (a stop word), 1, or more (an identifier).
    pub(super) tokens: u32,
}

/// The longest ASCII word the [`Spelling`] memo holds: its key is its bytes.
pub(super) const MEMO_MAX_BYTES: usize = 16;

/// Pieces `Indexer::scan_span` cuts and keys ahead of their memo lookups.
const BATCH: usize = 32;

/// In [`Spelling::term`]: a word that yields no token (a stop word).
pub(super) const DROPPED: u32 = u32::MAX;

/// Where [`Indexer::tf`] counts term `id`: one past it, so that [`DROPPED`] wraps to slot 0,
/// which nothing reads.
pub(super) fn tf_slot(id: u32) -> usize {
    id.wrapping_add(1) as usize
}

/// The small fields of one indexed document (title, description, keywords, headings), tokenized
/// ahead of [`build_with`](super::build_with) like a [`BodyTerms`].
#[derive(Debug, Default, Clone)]
pub(crate) struct SmallTerms {
    /// Which indexer's dictionary the ids belong to.
    pub(super) dict: u32,
    /// `(term id, field, frequency)`, each field's terms together, in no promised order.
    pub(super) terms: Vec<(u32, u8, u32)>,
    /// Tokens per field.
    pub(super) lengths: [u32; FIELDS - 1],
}

impl Indexer {
    /// An indexer whose [`BodyTerms`] say `id`; the ids of the indexers given to one
    /// [`build_with`](super::build_with) are their positions in its list.
    pub(crate) fn new(id: u32) -> Indexer {
        Indexer { id, ..Indexer::default() }
    }

    /// Gives up the dictionary, for [`Pretokenized::dicts`](super::Pretokenized::dicts).
    pub(crate) fn into_dict(self) -> TermDict {
        self.dict
    }

    /// The same terms as `terms` (tokenized by an indexer whose dictionary is `from`), as ids of
    /// this indexer: how an incremental compile reuses a file's tokens without tokenizing it
    /// again. The pairs keep their order, so the index built from them is the same.
    pub(crate) fn reintern_body(&mut self, terms: &BodyTerms, from: &TermDict) -> BodyTerms {
        let mut pairs = Vec::with_capacity(terms.pairs.len());
        let mut at = 0;
        while at < terms.pairs.len() {
            let id = crate::catalog::search::get_varint(&terms.pairs, &mut at);
            let tf = crate::catalog::search::get_varint(&terms.pairs, &mut at);
            put_varint(&mut pairs, self.dict.intern(from.term(id as usize)));
            put_varint(&mut pairs, tf);
        }
        BodyTerms { dict: self.id, tokens: terms.tokens, pairs }
    }

    /// [`Indexer::reintern_body`] for a doc's small fields.
    pub(crate) fn reintern_small(&mut self, terms: &SmallTerms, from: &TermDict) -> SmallTerms {
        let mapped = terms
            .terms
            .iter()
            .map(|&(id, field, tf)| (self.dict.intern(from.term(id as usize)), field, tf))
            .collect();
        SmallTerms { dict: self.id, terms: mapped, lengths: terms.lengths }
    }

    /// Which indexer's dictionary a body's ids belong to.
    pub(crate) fn dict_of_body(terms: &BodyTerms) -> usize {
        terms.dict as usize
    }

    /// Which indexer's dictionary small fields' ids belong to.
    pub(crate) fn dict_of_small(terms: &SmallTerms) -> usize {
        terms.dict as usize
    }

    /// Tokenizes an indexed document's body (what [`build`](super::build) indexes as the body field: a doc's or
    /// SKILL.md's text without frontmatter, a skill file's whole text).
    pub(crate) fn body(&mut self, text: &str) -> BodyTerms {
        // Encoded into a buffer kept for its capacity, then copied once at its size: growing
        // each body's own list by doubling cost a reallocation and a copy per step.
        let mut scratch = std::mem::take(&mut self.pairs);
        scratch.clear();
        let tokens = self.count([text].into_iter(), true, |id, tf| {
            put_varint(&mut scratch, id);
            put_varint(&mut scratch, tf);
        });
        let pairs = scratch.clone();
        self.pairs = scratch;
        BodyTerms { dict: self.id, tokens, pairs }
    }

    /// Tokenizes a doc's small fields (what [`build`](super::build) indexes as its title, description,
    /// keywords and headings).
    pub(crate) fn doc(&mut self, doc: &Doc) -> SmallTerms {
        let [title, description, keywords, headings] = doc_small_fields(doc);
        self.small([&title, &description, &keywords, &headings])
    }

    /// Tokenizes small fields, each given as its texts.
    pub(super) fn small(&mut self, fields: [&Vec<&str>; FIELDS - 1]) -> SmallTerms {
        // Gathered in a buffer kept for its capacity and copied once at its size, like a
        // body's pairs: grown from empty, each doc's list was reallocated several times.
        let mut scratch = std::mem::take(&mut self.terms);
        scratch.clear();
        let mut lengths = [0; FIELDS - 1];
        for (field, (texts, length)) in fields.into_iter().zip(&mut lengths).enumerate() {
            *length = self.count(texts.iter().copied(), false, |id, tf| scratch.push((id, field as u8, tf)));
        }
        let terms = scratch.clone();
        self.terms = scratch;
        SmallTerms { dict: self.id, terms, lengths }
    }

    /// Tokenizes `texts` as one field (a markdown body when `fenced`: `tokenize_body` of `catalog::search`; else
    /// as [`tokenize`] does), calls `emit(term id, frequency)` once per distinct term (in no
    /// promised order), and returns the number of tokens.
    pub(super) fn count<'a>(
        &mut self,
        texts: impl Iterator<Item = &'a str>,
        fenced: bool,
        mut emit: impl FnMut(u32, u32),
    ) -> u32 {
        let mut tokens = 0u32;
        let mut texts = texts.peekable();
        match texts.next() {
            Some(only) if texts.peek().is_none() => self.scan(only, fenced, &mut tokens),
            Some(first) => {
                // Several short texts (a doc's headings) are scanned as one, joined by spaces:
                // a space ends any token, so the tokens are the same, and scanning costs
                // something per text (a large tree has hundreds of thousands of headings).
                let mut joined = std::mem::take(&mut self.joined);
                joined.clear();
                joined.push_str(first);
                for text in texts {
                    joined.push(' ');
                    joined.push_str(text);
                }
                self.scan(&joined, fenced, &mut tokens);
                self.joined = joined;
            }
            None => {}
        }
        for &id in &self.touched[..self.n_touched] {
            emit(id, std::mem::take(&mut self.tf[tf_slot(id)]));
        }
        self.n_touched = 0;
        tokens
    }

    pub(super) fn scan(&mut self, text: &str, fenced: bool, tokens: &mut u32) {
        if self.spellings.is_empty() {
            self.spellings = vec![Spelling::default(); 1024];
            self.seen = vec![0; 1024];
        }
        // Counted here and added once (the count saturates; a word is at least a byte, so this
        // one cannot overflow).
        let mut counted = 0u64;
        if fenced {
            for_each_span(text, |span, code| self.scan_span(&text[span], code, &mut counted));
        } else {
            self.scan_span(text, false, &mut counted);
        }
        self.fold();
        *tokens = tokens.saturating_add(u32::try_from(counted).unwrap_or(u32::MAX));
    }

    /// Counts the tokens of `text` (whole lines of a body, or a whole field), joining words into
    /// identifiers by the connectors of fenced code when `in_code`.
    fn scan_span(&mut self, text: &str, in_code: bool, counted: &mut u64) {
        let bytes = text.as_bytes();
        let mut words = Words::new(bytes);
        let mut next = words.next();
        let mut batch = [(0usize, 0usize, Key::EMPTY); BATCH];
        loop {
            // Cut the next pieces, and compute their keys, before any is looked up.
            let mut n = 0;
            while n < BATCH
                && let Some((start, mut end)) = next
            {
                next = words.next();
                // Runs joined by a connector are one identifier (`astro.config.mjs`), tokenized
                // as one piece: `tokenize` joins them only there, and never across a piece's
                // edge (another non-word ASCII byte, or a connector no word byte follows).
                while let Some((from, to)) = next
                    && from == end + 1
                    && is_connector(bytes[end], in_code)
                {
                    end = to;
                    next = words.next();
                }
                let key =
                    if end - start <= MEMO_MAX_BYTES { ascii_key(bytes, start, end) } else { Key::EMPTY };
                batch[n] = (start, end, key);
                n += 1;
            }
            if n == 0 {
                break;
            }
            // Then touch their memo slots in a loop of independent loads, so their cache misses
            // overlap (on a large tree the memo is megabytes; one miss at a time, they were most
            // of the scan's time).
            let mask = self.spellings.len() - 1;
            let mut touched = 0u32;
            for &(_, _, key) in &batch[..n] {
                touched ^= self.spellings[key.hash as usize & mask].tag;
            }
            std::hint::black_box(touched);
            for &(start, end, key) in &batch[..n] {
                self.count_piece(text, start, end, key, counted);
            }
        }
    }

    /// Counts the piece `text[start..end]`, whose key is `key` when it is at most
    /// [`MEMO_MAX_BYTES`].
    #[inline(always)]
    fn count_piece(&mut self, text: &str, start: usize, end: usize, key: Key, counted: &mut u64) {
        let bytes = text.as_bytes();
        let len = end - start;
        if len <= MEMO_MAX_BYTES {
            // The key holds the word's bytes: ASCII when none has bit 7 set.
            if (key.head[0] | key.head[1]) & LANE_HIGH == 0 {
                let at = self.spelling(text, start..end, key);
                // No branch on "first time since the fold" (taken for most rare words, in
                // no predictable order): the slot is written every time and kept only when
                // new. (`seen` is as long as the memo: a fold keeps a slot in it at most
                // once.)
                self.seen[self.n_seen] = at as u32;
                let spelling = &mut self.spellings[at];
                self.n_seen += usize::from(spelling.tf == 0);
                spelling.tf += 1;
                // Nor on stop words (a third of the words): they count as no token.
                *counted += u64::from(spelling.tokens);
                return;
            }
        } else if len > MAX_TERM_BYTES && bytes[start..end].iter().all(u8::is_ascii_alphanumeric) {
            // One ASCII word too long to index (an identifier this long still has parts).
            return;
        }
        // Counted at once, ahead of the memo's words pending since the last fold: the order of
        // a text's terms never reaches the index (each goes to its own postings list, and the
        // dictionaries are sorted before they are written), and folding here, before every
        // non-ASCII or long piece, was about 1% of a build's instructions (callgrind).
        let Indexer { dict, tf, touched, n_touched, .. } = self;
        // `start` and `end` are on char boundaries: both are at (or past) ASCII bytes.
        tokenize(&text[start..end], false, |_, _, term| {
            *counted += 1;
            Self::add(tf, touched, n_touched, dict.intern(term), 1);
        });
    }

    /// The memo slot of the ASCII word `text[word]` (at most [`MEMO_MAX_BYTES`]), whose key is
    /// `key`; a new spelling is tokenized once and added. The word's `&str` is made only then:
    /// slicing a `str` checks both ends for char boundaries, on every word.
    #[inline]
    pub(super) fn spelling(&mut self, text: &str, word: std::ops::Range<usize>, key: Key) -> usize {
        loop {
            let mask = self.spellings.len() - 1;
            let mut at = key.hash as usize & mask;
            loop {
                let slot = &self.spellings[at];
                if slot.tag == key.tag && slot.head == key.head {
                    return at;
                }
                if slot.tag == 0 {
                    break;
                }
                at = (at + 1) & mask;
            }
            if (self.n_spellings + 1) * 2 > self.spellings.len() {
                // Slots move: the counts noted by slot go to their terms first.
                self.fold();
                self.grow_spellings();
                continue;
            }
            // Its terms go to `multi`; a spelling of one token keeps its term in the slot.
            let first = self.multi.len();
            let Indexer { dict, multi, .. } = self;
            tokenize(&text[word.clone()], false, |_, _, t| multi.push(dict.intern(t)));
            let tokens = (self.multi.len() - first) as u32;
            let term = match tokens {
                0 => DROPPED,
                1 => self.multi.pop().expect("one term"),
                _ => first as u32,
            };
            self.spellings[at] = Spelling { head: key.head, tag: key.tag, term, tf: 0, tokens };
            self.n_spellings += 1;
            return at;
        }
    }

    /// Doubles the memo (with no counts pending: [`Indexer::fold`] ran).
    pub(super) fn grow_spellings(&mut self) {
        let mut slots = vec![Spelling::default(); self.spellings.len() * 2];
        let mask = slots.len() - 1;
        for slot in self.spellings.iter().filter(|s| s.tag != 0) {
            let len = (slot.tag & 0xff) as usize;
            let mut at = Key::short(slot.head, len).hash as usize & mask;
            while slots[at].tag != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = *slot;
        }
        self.seen.resize(slots.len(), 0);
        self.spellings = slots;
    }

    /// Moves the counts of the spellings seen since the last fold to their terms, in the
    /// spellings' first-occurrence order.
    pub(super) fn fold(&mut self) {
        let Indexer { spellings, seen, n_seen, tf, touched, n_touched, multi, .. } = self;
        for &at in &seen[..*n_seen] {
            let spelling = &mut spellings[at as usize];
            let count = std::mem::take(&mut spelling.tf);
            if spelling.tokens <= 1 {
                Self::add(tf, touched, n_touched, spelling.term, count);
            } else {
                let first = spelling.term as usize;
                for &id in &multi[first..first + spelling.tokens as usize] {
                    Self::add(tf, touched, n_touched, id, count);
                }
            }
        }
        *n_seen = 0;
    }

    /// Counts `count` (at least 1) occurrences of term `id` (or nothing, for [`DROPPED`]),
    /// noting it in `touched[..n_touched]` the first time.
    // Always: with the release profile's one codegen unit, the inliner kept this out of line in
    // `fold`, and its calls (one per spelling per text) cost as many instructions as its body.
    #[inline(always)]
    pub(super) fn add(tf: &mut Vec<u32>, touched: &mut Vec<u32>, n_touched: &mut usize, id: u32, count: u32) {
        let slot = tf_slot(id);
        if slot >= tf.len() {
            tf.resize(slot + 1, 0);
        }
        // Without a branch on "first time in this text": it is taken for most rare words and
        // was mispredicted often enough to show in the profile. The id is written at the end
        // every time and kept only when it is new (never for a dropped word, in slot 0).
        if *n_touched == touched.len() {
            touched.push(0);
        }
        touched[*n_touched] = id;
        *n_touched += usize::from((tf[slot] == 0) & (slot != 0));
        tf[slot] = tf[slot].saturating_add(count);
    }
}
