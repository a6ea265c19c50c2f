//! Locales of a docs tree: which `docs/<locale>/` folders are translations of one site (detected
//! from their names, or listed in `folio.toml` `[docs] locales`), which locale is the default
//! (`[docs] default_locale`), and each doc's locale.
//!
//! Pure: works on doc paths. Must not resolve links (that is `links`, whose site model renders
//! a page a locale lacks from the default locale's folder).

/// ISO 639-1 language codes: the first subtag of a folder name that is detected as a locale.
/// (Three-letter languages are accepted when listed in `[docs] locales`.)
const ISO_639_1: &str = "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr \
    cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu \
    hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo \
    lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu \
    rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt \
    tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu";

/// True when `name` has the shape of a BCP 47 language tag: a language (2-3 letters), then
/// optional subtags of 2-8 letters or digits (`en`, `zh-cn`, `pt-BR`, `zh-Hant-TW`, `es-419`).
pub(crate) fn is_tag(name: &str) -> bool {
    let mut parts = name.split('-');
    let language = parts.next().unwrap_or("");
    (2..=3).contains(&language.len())
        && language.bytes().all(|b| b.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// True when `name` is detected as a locale folder (or a translation's site folder): a BCP 47 tag whose language is an ISO 639-1
/// code, with at most a script (4 letters) and a region (2 letters or 3 digits).
pub(crate) fn is_detected_tag(name: &str) -> bool {
    let mut parts = name.split('-');
    let language = parts.next().unwrap_or("").to_ascii_lowercase();
    if language.len() != 2 || !ISO_639_1.split(' ').any(|code| code == language) {
        return false;
    }
    let rest: Vec<&str> = parts.collect();
    let script = |p: &str| p.len() == 4 && p.bytes().all(|b| b.is_ascii_alphabetic());
    let region = |p: &str| {
        (p.len() == 2 && p.bytes().all(|b| b.is_ascii_alphabetic()))
            || (p.len() == 3 && p.bytes().all(|b| b.is_ascii_digit()))
    };
    match rest.as_slice() {
        [] => true,
        [a] => script(a) || region(a),
        [a, b] => script(a) && region(b),
        _ => false,
    }
}

/// How many pages are outside every locale folder.
fn counts_outside(counts: &std::collections::BTreeMap<&str, usize>, folders: &[String]) -> usize {
    counts.iter().filter(|(top, _)| !folders.iter().any(|f| f == *top)).map(|(_, n)| n).sum()
}

/// The locale used when a tree says nothing: docs are in English unless `[docs] default_locale`
/// says otherwise.
pub(crate) const FALLBACK_DEFAULT: &str = "en";

/// The locales of a docs tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Locales {
    /// The locale folders under `docs/`, as named, sorted; empty for a single-language tree.
    pub folders: Vec<String>,
    /// The default locale: a member of `folders` when there are any.
    pub default: String,
    /// Locales written as a suffix of the file name beside the default page (`guide.ja.mdx`
    /// beside `guide.mdx`: Fumadocs, Nextra), sorted; empty when the tree has none.
    pub suffixes: Vec<String>,
}

/// The locale suffix of a page path and the path of its default-locale page:
/// `docs/guide.ja.mdx` → (`ja`, `docs/guide.mdx`), when the suffix has a locale's shape.
pub(crate) fn split_suffix(path: &str) -> Option<(&str, String)> {
    let (stem, ext) = path.rsplit_once('.')?;
    let (base, tag) = stem.rsplit_once('.')?;
    let shaped = (2..=7).contains(&tag.len())
        && tag.split('-').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphabetic()))
        && !base.ends_with('/');
    shaped.then(|| (tag, format!("{base}.{ext}")))
}

/// The locale suffixes of a tree: tags that at least five pages carry beside a page of the
/// same name without one.
fn detect_suffixes<'a>(paths: impl Iterator<Item = &'a str>) -> Vec<String> {
    let paths: Vec<&str> = paths.collect();
    let all: std::collections::BTreeSet<&str> = paths.iter().copied().collect();
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for path in &paths {
        if let Some((tag, base)) = split_suffix(path)
            && all.contains(base.as_str())
        {
            *counts.entry(tag).or_default() += 1;
        }
    }
    counts.into_iter().filter(|(_, n)| *n >= 5).map(|(tag, _)| tag.to_owned()).collect()
}

impl Locales {
    /// Works out the locales from the doc paths (relative to `docs/`) and `folio.toml`'s
    /// `[docs] locales` and `default_locale` (already checked). Without `locales`, the top
    /// folders of `docs/` named like a locale are the locales, when there are at least two (one
    /// folder named `ml/` is a topic, not a translation).
    pub(crate) fn new<'a>(
        doc_paths: impl Iterator<Item = &'a str>,
        configured: Option<&[String]>,
        default: Option<&str>,
    ) -> Locales {
        let doc_paths: Vec<&str> = doc_paths.collect();
        let suffixes = detect_suffixes(doc_paths.iter().copied());
        let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
        for path in doc_paths {
            // Pages directly in `docs/` count under "".
            let top = path.split_once('/').map_or("", |(top, _)| top);
            *counts.entry(top).or_default() += 1;
        }
        let folders: Vec<String> = match configured {
            Some(list) => {
                let mut list = list.to_vec();
                list.sort();
                list.dedup();
                list
            }
            None => {
                let found: Vec<String> =
                    counts.keys().filter(|name| is_detected_tag(name)).map(|s| (*s).to_owned()).collect();
                if found.len() >= 2 { found } else { Vec::new() }
            }
        };
        // Pages outside every locale folder, as many as the largest locale has: the default
        // locale is at the root of `docs/` (Starlight's own docs), not in a folder.
        let at_root = counts_outside(&counts, &folders);
        let largest = folders.iter().map(|f| counts.get(f.as_str()).copied().unwrap_or(0)).max().unwrap_or(0);
        let default = match default {
            Some(d) => d.to_owned(),
            None if folders.is_empty()
                || folders.iter().any(|f| f == FALLBACK_DEFAULT)
                || (largest > 0 && at_root >= largest) =>
            {
                FALLBACK_DEFAULT.to_owned()
            }
            // The locale with the most pages: the one the others translate.
            None => folders
                .iter()
                .max_by_key(|f| (counts.get(f.as_str()).copied().unwrap_or(0), std::cmp::Reverse(f.as_str())))
                .cloned()
                .unwrap_or_else(|| FALLBACK_DEFAULT.to_owned()),
        };
        Locales { folders, default, suffixes }
    }

    /// The locale suffix of a doc path (relative to `docs/`) and its default page, when the
    /// tree writes locales as suffixes and this is one.
    pub(crate) fn suffix_of<'p>(&self, doc_path: &'p str) -> Option<(&'p str, String)> {
        split_suffix(doc_path).filter(|(tag, _)| self.suffixes.iter().any(|s| s == tag))
    }

    /// The locale folder a doc path (relative to `docs/`) is in, if any.
    pub(crate) fn folder_of<'p>(&self, doc_path: &'p str) -> Option<&'p str> {
        let (top, _) = doc_path.split_once('/')?;
        self.folders.iter().any(|f| f == top).then_some(top)
    }

    /// A doc's page across locales: its path below its locale folder, without the extension
    /// (`ja/guides/deploy.mdx` → `guides/deploy`), so its translations share it.
    pub(crate) fn page_of(&self, doc_path: &str) -> String {
        if let Some((_, base)) = self.suffix_of(doc_path) {
            return base.rsplit_once('.').map_or(base.as_str(), |(stem, _)| stem).to_owned();
        }
        let below = match self.folder_of(doc_path) {
            Some(folder) => &doc_path[folder.len() + 1..],
            None => doc_path,
        };
        below.rsplit_once('.').map_or(below, |(stem, _)| stem).to_owned()
    }

    /// A doc's locale, lowercase: its locale folder, else the default locale.
    pub(crate) fn locale_of(&self, doc_path: &str) -> String {
        if let Some((tag, _)) = self.suffix_of(doc_path) {
            return tag.to_ascii_lowercase();
        }
        self.folder_of(doc_path).unwrap_or(&self.default).to_ascii_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_have_the_bcp_47_shape() {
        for good in ["en", "ja", "zh-cn", "pt-BR", "zh-Hant-TW", "es-419", "fil"] {
            assert!(is_tag(good), "{good}");
        }
        for bad in ["", "e", "english", "en_US", "en-", "en-x", "guides"] {
            assert!(!is_tag(bad), "{bad}");
        }
        assert!(is_detected_tag("zh-cn") && is_detected_tag("pt-br") && is_detected_tag("zh-Hant-TW"));
        assert!(!is_detected_tag("js") && !is_detected_tag("go") && !is_detected_tag("api"));
        assert!(!is_detected_tag("en-guides"));
    }

    #[test]
    fn locale_suffixes_are_detected_beside_their_default_pages() {
        let mut paths = vec!["index.mdx", "notes.v2.md", "notes.md"];
        for page in ["a", "b", "c", "d", "e"] {
            paths.extend(
                [format!("{page}.mdx"), format!("{page}.ja.mdx"), format!("{page}.zh-CN.mdx")]
                    .map(|p| &*p.leak()),
            );
        }
        let locales = Locales::new(paths.iter().copied(), None, None);
        assert_eq!(locales.suffixes, ["ja", "zh-CN"]);
        assert_eq!(locales.locale_of("a.ja.mdx"), "ja");
        assert_eq!(locales.page_of("a.zh-CN.mdx"), "a");
        assert_eq!(locales.locale_of("a.mdx"), "en");
        // One page with a dot in its name is not a locale.
        assert_eq!(locales.locale_of("notes.v2.md"), "en");
    }

    #[test]
    fn locale_folders_are_detected_when_there_are_two() {
        let paths = ["en/a.md", "en/b.md", "ja/a.md", "zh-cn/a.md", "guides/x.md", "index.md"];
        let locales = Locales::new(paths.iter().copied(), None, None);
        assert_eq!(locales.folders, ["en", "ja", "zh-cn"]);
        assert_eq!(locales.default, "en");
        assert_eq!(locales.locale_of("zh-cn/a.md"), "zh-cn");
        assert_eq!(locales.locale_of("guides/x.md"), "en");
        // One folder named like a language is a topic.
        let one = Locales::new(["ml/intro.md", "guides/x.md"].iter().copied(), None, None);
        assert_eq!((one.folders.len(), one.default.as_str()), (0, "en"));
        assert_eq!(one.locale_of("ml/intro.md"), "en");
        // Without `en`, the locale with the most pages is the default.
        let fr = Locales::new(["fr/a.md", "fr/b.md", "de/a.md"].iter().copied(), None, None);
        assert_eq!(fr.default, "fr");
        // A default locale at the root of `docs/`, others in folders (Starlight's own docs).
        let root =
            ["index.mdx", "guides/a.mdx", "guides/b.mdx", "de/index.mdx", "de/guides/a.mdx", "ja/index.mdx"];
        let root = Locales::new(root.iter().copied(), None, None);
        assert_eq!(
            (root.folders.clone(), root.default.as_str()),
            (vec!["de".to_owned(), "ja".to_owned()], "en")
        );
        assert_eq!(root.locale_of("guides/a.mdx"), "en");
        // Configured: exactly those, with the default given.
        let set = Locales::new(paths.iter().copied(), Some(&["ja".to_owned(), "en".to_owned()]), Some("ja"));
        assert_eq!(
            (set.folders.clone(), set.default.as_str()),
            (vec!["en".to_owned(), "ja".to_owned()], "ja")
        );
        assert_eq!(set.locale_of("zh-cn/a.md"), "ja");
    }
}
