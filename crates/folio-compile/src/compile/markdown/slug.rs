//! Heading ids: how each site renderer turns a heading's text into its id and keeps ids unique
//! in a page ([`HeadingIds`]): GitHub's rule (github-slugger, which Docusaurus, Starlight and
//! Hugo's default follow) for every script, VitePress's, Python-Markdown's (MkDocs) and mdBook's.
//!
//! Pure; no IO.

use unicode_normalization::UnicodeNormalization as _;

use crate::lookup::LookupMap;

/// The rule a site renders heading ids with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) enum HeadingIds {
    /// github-slugger: lowercase; letters, marks, numbers, `_` and `-` stay; spaces become `-`;
    /// repeats get `-1`, `-2`. GitHub, Docusaurus, Starlight, Next.js (rehype-slug), Hugo.
    #[default]
    GitHub,
    /// VitePress (`@mdit-vue/shared` slugify): NFKD without combining marks; each run of spaces
    /// and ASCII punctuation becomes one `-` (`server.host` → `server-host`); no `-` at either
    /// end; `_` before a leading digit; repeats get `-1`, `-2`.
    VitePress,
    /// Python-Markdown's `toc` extension (MkDocs): NFKD folded to ASCII; characters other than
    /// letters, digits, `_`, `-` and spaces dropped; each run of `-` and spaces becomes one `-`
    /// (`Caret, Mark & Tilde` → `caret-mark-tilde`); repeats get `_1`, `_2`.
    PythonMarkdown,
    /// mdBook: letters, digits, `_` and `-` stay (ASCII lowercased), each space becomes `-`,
    /// everything else is dropped; repeats get `-1`, `-2`.
    MdBook,
}

impl HeadingIds {
    /// How `folio.toml` `[site] heading_ids` spells it.
    pub(crate) fn id(self) -> &'static str {
        match self {
            HeadingIds::GitHub => "github",
            HeadingIds::VitePress => "vitepress",
            HeadingIds::PythonMarkdown => "python-markdown",
            HeadingIds::MdBook => "mdbook",
        }
    }

    /// Parses `[site] heading_ids`.
    pub(crate) fn parse(id: &str) -> Option<HeadingIds> {
        [HeadingIds::GitHub, HeadingIds::VitePress, HeadingIds::PythonMarkdown, HeadingIds::MdBook]
            .into_iter()
            .find(|rule| rule.id() == id)
    }

    /// The id of a heading with this text, before deduplication.
    pub(crate) fn slug(self, text: &str) -> String {
        match self {
            HeadingIds::GitHub => slug(text),
            HeadingIds::VitePress => vitepress_slug(text),
            HeadingIds::PythonMarkdown => python_markdown_slug(text),
            HeadingIds::MdBook => text
                .chars()
                .filter_map(|c| match c {
                    c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c.to_ascii_lowercase()),
                    c if c.is_whitespace() => Some('-'),
                    _ => None,
                })
                .collect(),
        }
    }

    /// The ids a footnote labelled `label`, the `n`th defined in its page, is rendered with
    /// (its definition's and its first reference's), so a link to either is not broken.
    pub(crate) fn footnote_ids(self, label: &str, n: usize) -> Vec<String> {
        match self {
            // remark-gfm and github.com.
            HeadingIds::GitHub => {
                vec![format!("user-content-fn-{label}"), format!("user-content-fnref-{label}")]
            }
            // markdown-it-footnote numbers them in order.
            HeadingIds::VitePress => vec![format!("fn{n}"), format!("fnref{n}")],
            HeadingIds::PythonMarkdown => vec![format!("fn:{label}"), format!("fnref:{label}")],
            HeadingIds::MdBook => vec![label.to_owned(), format!("fr-{label}-1")],
        }
    }
}

/// VitePress's slugify (`@mdit-vue/shared`).
fn vitepress_slug(text: &str) -> String {
    let special = |c: char| {
        c.is_whitespace() || "~`!@#$%^&*()-_+=[]{}|\\;:\"'\u{201c}\u{201d}\u{2018}\u{2019}<>,.?/".contains(c)
    };
    let mut out = String::with_capacity(text.len());
    for c in text.nfkd() {
        if ('\u{300}'..='\u{36f}').contains(&c) || ('\u{0}'..='\u{1f}').contains(&c) {
            continue;
        }
        if special(c) {
            if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
            continue;
        }
        out.push(c);
    }
    let trimmed = out.trim_end_matches('-');
    let mut slug = String::with_capacity(trimmed.len() + 1);
    if trimmed.starts_with(|c: char| c.is_ascii_digit()) {
        slug.push('_');
    }
    slug.push_str(&trimmed.to_lowercase());
    slug
}

/// Python-Markdown's `toc.slugify` with its defaults (`-` separator, ASCII).
fn python_markdown_slug(text: &str) -> String {
    let ascii: String = text.nfkd().filter(char::is_ascii).collect();
    let kept: String = ascii
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-') || c.is_whitespace())
        .collect();
    let mut out = String::with_capacity(kept.len());
    for c in kept.trim().to_ascii_lowercase().chars() {
        if c == '-' || c.is_whitespace() {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Turns heading text into ids by a site's rule, unique in the page the way that site makes
/// them.
#[derive(Debug, Default)]
pub(super) struct Slugger {
    /// The rule.
    pub(super) rule: HeadingIds,
    /// How many times each base slug was handed out, as in github-slugger's `occurrences`.
    occurrences: LookupMap<String, u32>,
}

impl Slugger {
    /// The id of the next heading with this text: its slug, then, for repeats, the rule's
    /// suffixes.
    pub(super) fn slug(&mut self, text: &str) -> String {
        if self.occurrences.capacity() == 0 {
            // Room for a doc's usual headings at once: growing from a few slots rehashed the
            // ids several times per doc.
            self.occurrences.reserve(16);
        }
        let base = self.rule.slug(text);
        if self.rule == HeadingIds::PythonMarkdown {
            return self.python_markdown_unique(base);
        }
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

    /// Python-Markdown's `unique`: an empty or taken id gets `_1`, then its number raised
    /// (`a`, `a_1`, `a_2`).
    fn python_markdown_unique(&mut self, mut id: String) -> String {
        while id.is_empty() || self.occurrences.contains_key(&id) {
            id = match id.rsplit_once('_') {
                Some((stem, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                    format!("{stem}_{}", n.parse::<u64>().map_or(1, |n| n.saturating_add(1)))
                }
                _ => format!("{id}_1"),
            };
        }
        self.occurrences.insert(id.clone(), 0);
        id
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
