//! Defining headings: among a search's best hits, the pages whose heading names exactly what
//! the query asks for (`` ## `astro add` ``, `` ### `getStaticPaths()` ``) rank above pages that
//! only mention it.
//!
//! Pure, over an open catalog. Must not score text (the index does) nor order hits (`search`
//! does, after this raises scores).

use super::Query;
use super::kind::Owner;
use crate::catalog::Section;
use crate::catalog::search::{QueryWord, query_words};

/// How many of the best hits are checked for a heading that names what the query asks for
/// (20 left `astro add`'s reference page unchecked on the Astro set; 50 did no better than 30).
pub(super) const HEADING_CHECK: usize = 30;
/// Score factor of a page with a heading that names exactly what the query asks for
/// (`` ## `astro add` ``, `` ### `getStaticPaths()` ``): the page that defines it, rather than
/// pages that mention it.
const HEADING_BOOST: f32 = 2.0;

/// Multiplies by [`HEADING_BOOST`] the score of each hit titled with the query's words as written,
/// and of each hit with a heading that names the query
/// ([`Wanted::named_by`]): written as code (in backticks), or asked for by an identifier query
/// (`Astro.props`, `getStaticPaths`). A prose heading that happens to equal a prose query
/// (`## Environment variables` in a guide about something else) is ordinary evidence, which the
/// headings field already counts. True when a score changed.
/// `headed` (sorted) are the entries whose headings hold every query word: the others are not
/// looked at (reading a hit's outline and tokenizing its headings is most of the cost).
pub(super) fn boost_defining_headings(
    query: &Query,
    text: &str,
    words: &[QueryWord],
    headed: &[u32],
    hits: &mut [(u32, f32)],
) -> bool {
    let catalog = &query.catalog;
    let wanted = Wanted::new(words);
    let written = Some(written_words(text)).filter(|w| !w.is_empty());
    // Searches verify the index before they rank; one that failed knows no word.
    let index_ok = query.verified_index().is_ok();
    let known = |word: &str| {
        index_ok
            && query_words(word).first().is_none_or(|w| {
                catalog.search.terms_with_prefix(&w.term, 1).first().is_some_and(|t| *t == w.term)
            })
    };
    let mut boosted = false;
    for (entry, score) in hits.iter_mut() {
        let (title, outline) = match query.owner(*entry as usize) {
            Some(Owner::Doc(d)) => (&catalog.docs[d as usize].title, catalog.docs[d as usize].outline.get()),
            Some(Owner::Skill(s, None)) => {
                (&catalog.skills[s as usize].title, catalog.skills[s as usize].outline.get())
            }
            _ => continue,
        };
        // A page titled with the words the query is written in is the page about it, prose or
        // code: "Store" asks for the page titled "Store" over "Redux Fundamentals, Part 4:
        // Store" and the long pages that say "store" a hundred times (BM25's saturation makes
        // them all alike). The words as written, not their stems: "permalinks" asks for
        // "Configure permalinks" as much as for the four pages titled "Permalink", and a typo
        // ("taxonmoy") must not rank differently from the word.
        if written.as_ref().is_some_and(|w| titled(w, &written_words(title), &known)) {
            *score *= HEADING_BOOST;
            boosted = true;
            continue;
        }
        if headed.binary_search(entry).is_err() {
            continue;
        }
        let text = || catalog.entries.get(*entry as usize).and_then(|e| e.text()).unwrap_or("");
        let is_code = |line: u32| text().split('\n').nth(line as usize - 1).is_some_and(|l| l.contains('`'));
        let names =
            |s: &Section| wanted.named_by(&s.title, title) && (wanted.identifier || is_code(s.line_start));
        // An outline that does not decode (a forged catalog) earns nothing; reading the hit
        // reports it.
        if outline.is_ok_and(|sections| sections.iter().any(names)) {
            *score *= HEADING_BOOST;
            boosted = true;
        }
    }
    boosted
}

/// The words of `text` as written (lowercased, split at anything not a letter or digit), sorted.
fn written_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    words.sort_unstable();
    words
}

/// True when `title` is the words `written`, in any order: each the same word, or for a word the
/// index does not know (a typo: "taxonmoy") one a typo away, as search corrects it.
fn titled(written: &[String], title: &[String], known: &dyn Fn(&str) -> bool) -> bool {
    if written.len() != title.len() {
        return false;
    }
    let mut left: Vec<&str> = title.iter().map(String::as_str).collect();
    written.iter().all(|word| {
        let at = left.iter().position(|t| t == word).or_else(|| {
            if known(word) {
                return None;
            }
            let limit = crate::suggest::typo_limit(word);
            left.iter().position(|t| crate::suggest::distance(word, t, limit).is_some())
        });
        at.map(|i| left.swap_remove(i)).is_some()
    })
}

/// What a heading must say to name a query.
struct Wanted {
    /// The query's words' terms, sorted.
    terms: Vec<String>,
    /// True when a query word is an identifier (it has parts).
    identifier: bool,
    /// For a query of one dotted name (`Astro.props`): its object's term and its member's
    /// (`astro`, `prop`). Reference pages document members under the member's own heading
    /// (`` ### `props` `` on a page titled "Astro render context").
    member: Option<(String, String)>,
}

impl Wanted {
    fn new(words: &[QueryWord]) -> Wanted {
        let mut terms: Vec<String> = words.iter().map(|w| w.term.clone()).collect();
        terms.sort_unstable();
        let member = match words {
            [only] => only.term.split_once('.').and_then(|(object, _)| {
                let (_, member) = only.term.rsplit_once('.')?;
                let term = |text: &str| query_words(text).into_iter().next().map(|w| w.term);
                Some((term(object)?, term(member)?))
            }),
            _ => None,
        };
        Wanted { terms, identifier: words.iter().any(|w| !w.parts.is_empty()), member }
    }

    /// True when `heading`'s words are the query's; or, for a dotted name, when the heading is
    /// its member and the page's `title` names its object.
    fn named_by(&self, heading: &str, title: &str) -> bool {
        let mut got: Vec<String> = query_words(heading).into_iter().map(|w| w.term).collect();
        got.sort_unstable();
        if got == self.terms {
            return true;
        }
        match &self.member {
            Some((object, member)) => {
                got.len() == 1 && &got[0] == member && query_words(title).iter().any(|w| &w.term == object)
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_names_a_query_by_its_words_or_a_dotted_name_by_its_member() {
        let wanted = |q: &str| Wanted::new(&query_words(q));
        assert!(wanted("getStaticPaths").named_by("getStaticPaths()", "Routing Reference"));
        assert!(wanted("astro add").named_by("astro add", "CLI Commands"));
        assert!(wanted("add astro").named_by("astro add", "CLI Commands"), "in any order");
        assert!(!wanted("astro add").named_by("astro add --help", "CLI Commands"));
        // `Astro.props` is documented under `props` on a page about `Astro`, not elsewhere.
        assert!(wanted("Astro.props").named_by("props", "Astro render context"));
        assert!(wanted("Astro.redirect()").named_by("redirect()", "Astro render context"));
        assert!(!wanted("Astro.props").named_by("props", "Component props"));
        assert!(!wanted("Astro.props other").named_by("props", "Astro render context"));
        assert!(wanted("getStaticPaths").identifier && !wanted("astro add").identifier);
    }

    #[test]
    fn a_title_is_the_query_as_written_or_a_typo_of_an_unknown_word() {
        let known = |w: &str| w != "taxonmoy";
        let titled = |q: &str, t: &str| titled(&written_words(q), &written_words(t), &known);
        assert!(titled("store", "Store"));
        assert!(titled("combineReducers", "combineReducers"));
        assert!(titled("server rendering", "Rendering, server"), "in any order, punctuation aside");
        assert!(!titled("permalinks", "Permalink"), "a word the index knows is matched as written");
        assert!(!titled("store", "Part 4: Store"));
        assert!(titled("taxonmoy", "Taxonomy"), "a typo is matched as search corrects it");
    }
}
