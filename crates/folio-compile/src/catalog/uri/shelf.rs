//! The URIs of a shelf (`folio serve --shelf DIR`, `content/docs/reference/uris.md`): every
//! catalog's URIs with the catalog named as the URI's authority, `<name>@<version>` (or `<name>`
//! for a catalog without a version). `resource://docs/a.md` of `mylib` 2.1 is
//! `resource://mylib@2.1/docs/a.md` on a shelf, `skill://pdf/SKILL.md` is
//! `skill://mylib@2.1/pdf/SKILL.md`: one rule for every family, so a catalog's URIs map to the
//! shelf's and back without knowing the family, and stay unique across catalogs.
//!
//! Must not: know which catalogs a shelf holds, or parse the catalog part of a URI (that is
//! `super`'s, once the catalog is taken off).

/// The URI schemes a catalog serves, each followed by `://`.
const SCHEMES: [&str; 2] = ["resource://", "skill://"];

/// The name of a catalog on a shelf: `<name>@<version>`, or `<name>` without a version. Each
/// part is percent-encoded so that it stays one URI authority (no `/`, `?`, `#`, `@` or `:`).
pub fn catalog_id(name: &str, version: Option<&str>) -> String {
    match version {
        Some(version) => format!("{}@{}", encode_part(name), encode_part(version)),
        None => encode_part(name),
    }
}

/// A catalog's name and version as a request writes them: `name@version`, or `name` alone
/// (which a shelf reads as the latest version). The parts are percent-decoded; `None` for an
/// empty name or version or a malformed escape.
pub fn split_catalog_id(id: &str) -> Option<(String, Option<String>)> {
    let (name, version) = match id.rsplit_once('@') {
        Some((name, version)) => (name, Some(version)),
        None => (id, None),
    };
    let name = super::percent_decode(name).ok().filter(|n| !n.is_empty())?;
    let version = match version {
        Some(v) => Some(super::percent_decode(v).ok().filter(|v| !v.is_empty())?),
        None => None,
    };
    Some((name, version))
}

/// A catalog's URI (`resource://docs/a.md`) as the shelf serves it for catalog `id`
/// (`resource://mylib@2.1/docs/a.md`). Anything that is not a catalog URI comes back as it was.
pub fn to_shelf(id: &str, uri: &str) -> String {
    for scheme in SCHEMES {
        if let Some(rest) = uri.strip_prefix(scheme) {
            return format!("{scheme}{id}/{rest}");
        }
    }
    uri.to_owned()
}

/// Every catalog URI inside `text` (text Folio wrote: a listing, a message) written as the shelf
/// serves it for catalog `id`. Never for an entry's own bytes, which are served as they are.
pub fn text_to_shelf(id: &str, text: &str) -> String {
    let mut out = text.to_owned();
    for scheme in SCHEMES {
        out = out.replace(scheme, &format!("{scheme}{id}/"));
    }
    out
}

/// A shelf URI split into the catalog it names (as written: `mylib@2.1` or `mylib`) and the
/// catalog's own URI (`resource://docs/a.md`); `None` when it names no catalog.
pub fn from_shelf(uri: &str) -> Option<(&str, String)> {
    for scheme in SCHEMES {
        if let Some(rest) = uri.strip_prefix(scheme) {
            let (id, inner) = rest.split_once('/')?;
            if id.is_empty() || id.contains(['?', '#']) {
                return None;
            }
            return Some((id, format!("{scheme}{inner}")));
        }
    }
    None
}

/// Orders two versions: numerically where both look like versions (`v` optional, then numbers
/// separated by dots: `2.10` after `2.9`, `1.0.0` after `1.0.0-rc.1`), else as strings.
pub fn compare_versions(a: &str, b: &str) -> std::cmp::Ordering {
    match (numeric(a), numeric(b)) {
        (Some((na, pre_a)), Some((nb, pre_b))) => na.cmp(&nb).then_with(|| match (pre_a, pre_b) {
            // A release ranks after its pre-releases (semver's rule).
            (None, None) => std::cmp::Ordering::Equal,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(_), None) => std::cmp::Ordering::Less,
            (Some(x), Some(y)) => x.cmp(y),
        }),
        _ => a.cmp(b),
    }
}

/// The numbers of a version and its pre-release part (after `-`), when it looks like a version.
fn numeric(version: &str) -> Option<(Vec<u64>, Option<&str>)> {
    let version = version.strip_prefix(['v', 'V']).unwrap_or(version);
    // Build metadata (after `+`) does not order versions.
    let version = version.split_once('+').map_or(version, |(v, _)| v);
    let (release, pre) = match version.split_once('-') {
        Some((release, pre)) => (release, Some(pre)),
        None => (version, None),
    };
    let numbers: Option<Vec<u64>> = release.split('.').map(|n| n.parse().ok()).collect();
    // Trailing zeros do not make a version newer: 2 and 2.0 are the same.
    let mut numbers = numbers.filter(|n| !n.is_empty())?;
    while numbers.len() > 1 && numbers.last() == Some(&0) {
        numbers.pop();
    }
    Some((numbers, pre))
}

/// Percent-encodes one part of a catalog id: unreserved characters and `+` stay.
fn encode_part(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for &b in part.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'!') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering::{Equal, Greater, Less};

    #[test]
    fn every_family_maps_to_the_shelf_and_back() {
        for uri in [
            "resource://docs/guides/a.md?section=x",
            "resource://catalog/about",
            "resource://catalog/docs_index?q=a",
            "resource://skills/pdf/document",
            "skill://acme/pdf/SKILL.md",
        ] {
            let shelf = to_shelf("mylib@2.1", uri);
            assert_eq!(from_shelf(&shelf), Some(("mylib@2.1", uri.to_owned())), "{shelf}");
        }
        assert_eq!(to_shelf("a@1", "resource://docs/x.md"), "resource://a@1/docs/x.md");
        assert_eq!(to_shelf("a@1", "skill://pdf/SKILL.md"), "skill://a@1/pdf/SKILL.md");
        assert_eq!(to_shelf("a@1", "https://example.com"), "https://example.com");
        assert_eq!(from_shelf("resource://mylib"), None);
        assert_eq!(from_shelf("https://x/y"), None);
    }

    #[test]
    fn ids_stay_one_authority() {
        assert_eq!(catalog_id("mylib", Some("2.1.0")), "mylib@2.1.0");
        assert_eq!(catalog_id("mylib", None), "mylib");
        assert_eq!(catalog_id("@scope/pkg", Some("1.0+b:2")), "%40scope%2Fpkg@1.0+b%3A2");
        let id = catalog_id("@scope/pkg", Some("1 0"));
        assert_eq!(split_catalog_id(&id), Some(("@scope/pkg".to_owned(), Some("1 0".to_owned()))));
        assert_eq!(split_catalog_id("mylib"), Some(("mylib".to_owned(), None)));
        assert_eq!(split_catalog_id("mylib@"), None);
        assert_eq!(split_catalog_id("@1"), None);
    }

    #[test]
    fn versions_compare_as_numbers_where_they_are_numbers() {
        assert_eq!(compare_versions("2.10", "2.9"), Greater);
        assert_eq!(compare_versions("v3", "2.99.1"), Greater);
        assert_eq!(compare_versions("1.0.0-rc.1", "1.0.0"), Less);
        assert_eq!(compare_versions("2", "2.0"), Equal);
        assert_eq!(compare_versions("next", "current"), Greater);
    }

    #[test]
    fn text_names_the_catalog_in_every_uri() {
        assert_eq!(
            text_to_shelf("a@1", "read resource://docs/x.md or skill://p/SKILL.md"),
            "read resource://a@1/docs/x.md or skill://a@1/p/SKILL.md"
        );
    }
}
