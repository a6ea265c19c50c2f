//! Translations: which docs are one page in several locales (they share a translation key),
//! which locale a query is likely written in, and the collapse of a ranked list into one hit
//! per page in that locale (ARCHITECTURE.md, "Search"; the manual's search reference).
//!
//! Pure, over an open catalog. Must not score text (that is the index's) nor filter (that is
//! `filter`'s): it reorders and merges hits it is given.

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::catalog::Catalog;

/// How much a hit outside the query's preferred locale counts: enough to keep a page only
/// another locale has, never enough to push the preferred locale's equal match down.
const OTHER_LOCALE_WEIGHT: f32 = 0.5;

/// A translation of a hit's page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Translation {
    /// Its locale (`ja`, `zh-cn`).
    pub locale: String,
    /// Its canonical URI.
    pub uri: String,
}

/// The translation groups of a catalog, built once per open catalog on the first search.
#[derive(Debug, Default)]
pub(super) struct Translations {
    /// Per doc (by index in `Catalog::docs`): its group, when the catalog has several locales.
    group_of: Vec<u32>,
    /// Per group: its docs, sorted by locale.
    groups: Vec<Vec<u32>>,
    /// Every locale with its number of docs, sorted by locale.
    locales: Vec<(String, usize)>,
    /// The catalog's default locale.
    default: String,
}

impl Translations {
    pub(super) fn new(catalog: &Catalog) -> Translations {
        let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for doc in &catalog.docs {
            *counts.entry(doc.locale.as_str()).or_default() += 1;
        }
        let locales: Vec<(String, usize)> = counts.into_iter().map(|(l, n)| (l.to_owned(), n)).collect();
        let default = catalog.settings.default_locale.clone();
        if locales.len() < 2 {
            // One language: every page is its own group, and nothing collapses.
            return Translations { locales, default, ..Translations::default() };
        }
        let mut by_key: FxHashMap<&str, u32> = FxHashMap::default();
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut group_of = Vec::with_capacity(catalog.docs.len());
        for (d, doc) in catalog.docs.iter().enumerate() {
            let g = *by_key.entry(doc.translation_key.as_str()).or_insert_with(|| {
                groups.push(Vec::new());
                (groups.len() - 1) as u32
            });
            groups[g as usize].push(d as u32);
            group_of.push(g);
        }
        for group in &mut groups {
            group.sort_by(|&a, &b| catalog.docs[a as usize].locale.cmp(&catalog.docs[b as usize].locale));
        }
        Translations { group_of, groups, locales, default }
    }

    /// The other docs of a doc's page, sorted by locale.
    pub(super) fn of(&self, catalog: &Catalog, doc: u32) -> Vec<Translation> {
        let Some(&g) = self.group_of.get(doc as usize) else { return Vec::new() };
        self.groups[g as usize]
            .iter()
            .filter(|&&d| d != doc)
            .map(|&d| {
                let other = &catalog.docs[d as usize];
                let uri =
                    catalog.entries.get(other.entry as usize).map_or_else(String::new, |e| e.uri.clone());
                Translation { locale: other.locale.clone(), uri }
            })
            .collect()
    }

    /// The catalog locale a query is most likely written in (see the module docs of the
    /// manual's search page): from the script of its letters; `None` when the catalog has one
    /// locale or none of the guessed language.
    pub(super) fn preferred(&self, text: &str) -> Option<&str> {
        if self.locales.len() < 2 {
            return None;
        }
        let script = dominant_script(text);
        let languages: &[&str] = match script {
            Script::Latin => return Some(self.default.as_str()).filter(|d| self.has(d)),
            Script::Kana => &["ja"],
            Script::Hangul => &["ko"],
            Script::Han => &["zh", "ja"],
            Script::Cyrillic => &["ru", "uk", "bg", "sr", "mk", "be", "kk", "ky", "mn", "tg"],
            Script::Greek => &["el"],
            Script::Arabic => &["ar", "fa", "ur", "ps"],
            Script::Hebrew => &["he", "yi"],
            Script::Thai => &["th"],
            Script::Devanagari => &["hi", "mr", "ne", "sa"],
        };
        // The first language that has locales; among its locales, the one with the most docs.
        languages.iter().find_map(|lang| {
            self.locales
                .iter()
                .filter(|(l, _)| l.split('-').next() == Some(lang))
                .max_by_key(|(l, n)| (*n, std::cmp::Reverse(l.as_str())))
                .map(|(l, _)| l.as_str())
        })
    }

    /// True when the catalog's docs are in more than one locale.
    pub(super) fn multilingual(&self) -> bool {
        self.locales.len() > 1
    }

    fn has(&self, locale: &str) -> bool {
        self.locales.iter().any(|(l, _)| l == locale)
    }

    /// `hits` (entry, score) with the preferred locale favoured and translations of one page
    /// merged: a hit outside `preferred` counts [`OTHER_LOCALE_WEIGHT`] of its score, and of a
    /// page's matching docs the one in `preferred` (else the default locale, else the best)
    /// stands for them all with the best score among them. Unordered, like its input.
    pub(super) fn collapse(
        &self,
        catalog: &Catalog,
        doc_of: impl Fn(u32) -> Option<u32>,
        hits: Vec<(u32, f32)>,
        preferred: Option<&str>,
    ) -> Vec<(u32, f32)> {
        if self.group_of.is_empty() {
            return hits;
        }
        let locale_of = |entry: u32| doc_of(entry).map(|d| catalog.docs[d as usize].locale.as_str());
        let rank = |locale: Option<&str>| match locale {
            Some(l) if Some(l) == preferred => 0,
            Some(l) if l == self.default => 1,
            _ => 2,
        };
        // Per group: where its hit is in `out`.
        let mut slot_of: FxHashMap<u32, usize> = FxHashMap::default();
        // (entry, the page's best raw score)
        let mut out: Vec<(u32, f32)> = Vec::with_capacity(hits.len());
        for (entry, score) in hits {
            let Some(doc) = doc_of(entry) else {
                out.push((entry, score));
                continue;
            };
            let group = self.group_of[doc as usize];
            match slot_of.get(&group) {
                None => {
                    slot_of.insert(group, out.len());
                    out.push((entry, score));
                }
                Some(&at) => {
                    let (held, best) = out[at];
                    let better = (rank(locale_of(entry)), std::cmp::Reverse(FloatOrd(score)), entry)
                        < (rank(locale_of(held)), std::cmp::Reverse(FloatOrd(best)), held);
                    out[at] = (if better { entry } else { held }, best.max(score));
                }
            }
        }
        if let Some(preferred) = preferred {
            for (entry, score) in &mut out {
                if locale_of(*entry).is_some_and(|l| l != preferred) {
                    *score *= OTHER_LOCALE_WEIGHT;
                }
            }
        }
        out
    }
}

/// An `f32` ordered by [`f32::total_cmp`], for tuple comparisons.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FloatOrd(f32);

impl Eq for FloatOrd {}

impl PartialOrd for FloatOrd {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for FloatOrd {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// A writing system a query's language is guessed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Kana,
    Hangul,
    Han,
    Cyrillic,
    Greek,
    Arabic,
    Hebrew,
    Thai,
    Devanagari,
}

fn script_of(c: char) -> Option<Script> {
    Some(match c as u32 {
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Kana,
        0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => Script::Hangul,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F => Script::Han,
        0x0400..=0x052F => Script::Cyrillic,
        0x0370..=0x03FF | 0x1F00..=0x1FFF => Script::Greek,
        0x0600..=0x06FF | 0x0750..=0x077F => Script::Arabic,
        0x0590..=0x05FF => Script::Hebrew,
        0x0E00..=0x0E7F => Script::Thai,
        0x0900..=0x097F => Script::Devanagari,
        _ if c.is_alphabetic() => Script::Latin,
        _ => return None,
    })
}

/// The script of a query: any kana makes it Japanese (Japanese mixes kana with Han), any Hangul
/// Korean; otherwise the script of most of its letters, Latin when it has none.
fn dominant_script(text: &str) -> Script {
    let mut counts: Vec<(Script, usize)> = Vec::new();
    for script in text.chars().filter_map(script_of) {
        match counts.iter_mut().find(|(s, _)| *s == script) {
            Some((_, n)) => *n += 1,
            None => counts.push((script, 1)),
        }
    }
    for decisive in [Script::Kana, Script::Hangul] {
        if counts.iter().any(|(s, _)| *s == decisive) {
            return decisive;
        }
    }
    // Latin letters in a CJK or Cyrillic query are usually code (`useState の使い方`).
    let non_latin = counts.iter().filter(|(s, _)| *s != Script::Latin).max_by_key(|(_, n)| *n);
    non_latin.map_or(Script::Latin, |(s, _)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_script_names_its_language() {
        assert_eq!(dominant_script("getStaticPaths"), Script::Latin);
        assert_eq!(dominant_script("コンポーネントの props"), Script::Kana);
        assert_eq!(dominant_script("環境変数"), Script::Han);
        assert_eq!(dominant_script("배포 netlify"), Script::Hangul);
        assert_eq!(dominant_script("Astro.props и компоненты"), Script::Cyrillic);
        assert_eq!(dominant_script("404"), Script::Latin);
    }
}
