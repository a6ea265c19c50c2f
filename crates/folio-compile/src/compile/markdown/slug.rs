//! Heading ids: GitHub's slug rules (which characters stay, lowercase, spaces to `-`) and its
//! deduplication with `-1`, `-2`, for every script.
//!
//! Pure; no IO.

use crate::lookup::LookupMap;

/// Turns heading text into GitHub-style ids, deduplicated like github.com does.
#[derive(Debug, Default)]
pub(super) struct Slugger {
    /// How many times each base slug was handed out, as in github-slugger's `occurrences`.
    occurrences: LookupMap<String, u32>,
}

impl Slugger {
    /// The id of the next heading with this text: `slug(text)`, then `-1`, `-2`, … for repeats.
    pub(super) fn slug(&mut self, text: &str) -> String {
        if self.occurrences.capacity() == 0 {
            // Room for a doc's usual headings at once: growing from a few slots rehashed the
            // ids several times per doc.
            self.occurrences.reserve(16);
        }
        let base = slug(text);
        // The common case, a first occurrence, without the retry loop's copies.
        if !self.occurrences.contains_key(&base) {
            self.occurrences.insert(base.clone(), 0);
            return base;
        }
        let mut candidate = base.clone();
        // github-slugger: while the candidate is taken, bump the base's counter and retry, so
        // `a`, `a`, `a-1` yield `a`, `a-1`, `a-1-1`.
        while self.occurrences.contains_key(&candidate) {
            let n = self.occurrences.entry(base.clone()).or_insert(0);
            *n += 1;
            candidate = format!("{base}-{n}");
        }
        self.occurrences.insert(candidate.clone(), 0);
        candidate
    }

    /// Records an explicit id (`{#custom-id}`) so later generated ids avoid it; returns it as is.
    pub(crate) fn claim(&mut self, id: &str) -> String {
        self.occurrences.entry(id.to_owned()).or_insert(0);
        id.to_owned()
    }
}

/// The GitHub heading slug of `text`: lowercase; keep letters, marks, decimal and letter numbers,
/// connector punctuation, `-` and spaces; drop everything else; each space becomes `-`.
/// This is github-slugger's rule (`[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc} -]` removed).
pub(super) fn slug(text: &str) -> String {
    if text.is_ascii() {
        // Most headings: one pass over the bytes, one allocation at the most it can take
        // (collecting a filter grew the string by doubling, from nothing).
        let mut out = String::with_capacity(text.len());
        for b in text.bytes().filter(|&b| keep_ascii_in_slug(b)) {
            out.push(if b == b' ' { '-' } else { char::from(b.to_ascii_lowercase()) });
        }
        return out;
    }
    text.to_lowercase().chars().filter(|&c| keep_in_slug(c)).map(|c| if c == ' ' { '-' } else { c }).collect()
}

/// [`keep_in_slug`] for an ASCII byte: inlined into [`slug`]'s loop over a heading's bytes.
#[inline]
pub(super) fn keep_ascii_in_slug(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b' ')
}

pub(super) fn keep_in_slug(c: char) -> bool {
    if c.is_ascii() {
        return keep_ascii_in_slug(c as u8);
    }
    if is_other_number(c) {
        return false;
    }
    c.is_alphanumeric() || is_mark(c) || is_connector_punctuation(c)
}

/// Unicode `No` (other numbers: superscripts, fractions, circled digits), which std counts as
/// numeric but GitHub drops. The common ranges; rarer ones are kept, which errs towards GitHub's
/// behaviour for letters.
pub(super) fn is_other_number(c: char) -> bool {
    matches!(c,
        '\u{B2}' | '\u{B3}' | '\u{B9}' | '\u{BC}'..='\u{BE}'
        | '\u{2070}' | '\u{2074}'..='\u{2079}' | '\u{2080}'..='\u{2089}'
        | '\u{2150}'..='\u{215F}' | '\u{2189}'
        | '\u{2460}'..='\u{249B}' | '\u{24EA}'..='\u{24FF}' | '\u{2776}'..='\u{2793}'
        | '\u{2CFD}' | '\u{3192}'..='\u{3195}' | '\u{3220}'..='\u{3229}' | '\u{3248}'..='\u{324F}'
        | '\u{3251}'..='\u{325F}' | '\u{3280}'..='\u{3289}' | '\u{32B1}'..='\u{32BF}'
        | '\u{1F100}'..='\u{1F10C}')
}

/// Unicode `Mn`/`Mc` marks that std does not count as alphabetic: the combining blocks, and the
/// non-alphabetic signs (viramas, nuktas) of the Brahmic scripts, minus their dandas.
pub(super) fn is_mark(c: char) -> bool {
    match c {
        '\u{300}'..='\u{36F}'
        | '\u{483}'..='\u{487}'
        | '\u{591}'..='\u{5BD}'
        | '\u{610}'..='\u{61A}'
        | '\u{64B}'..='\u{65F}'
        | '\u{1AB0}'..='\u{1AFF}'
        | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20DC}'
        | '\u{20E1}'
        | '\u{20E5}'..='\u{20F0}'
        | '\u{302A}'..='\u{302F}'
        | '\u{3099}'..='\u{309A}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FE20}'..='\u{FE2F}' => true,
        '\u{964}' | '\u{965}' | '\u{970}' | '\u{E3F}' | '\u{E4F}' | '\u{E5A}' | '\u{E5B}' => false,
        '\u{900}'..='\u{DFF}' | '\u{E00}'..='\u{EFF}' | '\u{1000}'..='\u{109F}' => {
            !c.is_alphanumeric() && !is_brahmic_symbol(c)
        }
        _ => false,
    }
}

/// Currency signs and other symbols inside the Brahmic blocks, which GitHub drops.
pub(super) fn is_brahmic_symbol(c: char) -> bool {
    matches!(c, '\u{9F2}'..='\u{9FB}' | '\u{AF1}' | '\u{BF3}'..='\u{BFA}' | '\u{D4F}' | '\u{D79}')
}

/// Unicode `Pc` besides `_`.
pub(super) fn is_connector_punctuation(c: char) -> bool {
    matches!(
        c,
        '\u{203F}' | '\u{2040}' | '\u{2054}' | '\u{FE33}' | '\u{FE34}' | '\u{FE4D}'..='\u{FE4F}' | '\u{FF3F}'
    )
}
