//! "Did you mean": one rule for every suggestion Folio makes (frontmatter keys, lint codes, link
//! targets and anchors, ids and URIs a client asked for): a candidate is close enough to be a
//! typo when its optimal-string-alignment distance (strsim's: an insertion, deletion,
//! substitution or swap of two neighbours is one edit) is at most a third of what was written,
//! between 1 and 3 edits.
//!
//! Pure and std + strsim only (the compiler suggests, and so does the query layer). Must not
//! rank by anything but distance, then the caller's order, so answers are deterministic.

/// The most edits a candidate may be from `word` (counted in characters) to be suggested.
pub fn typo_limit(word: &str) -> usize {
    (word.chars().count() / 3).clamp(1, 3)
}

/// The edit distance between `a` and `b`, or `None` when it is over `limit`. Strings whose
/// lengths alone differ by more than `limit` are not compared (did-you-mean scans many).
pub fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    if a.chars().count().abs_diff(b.chars().count()) > limit {
        return None;
    }
    Some(strsim::osa_distance(a, b)).filter(|&d| d <= limit)
}

/// The value of the candidate whose key is closest to `want`, within [`typo_limit`]; ties go to
/// the first in iteration order (callers iterate sorted sets).
pub(crate) fn closest<'c, K: AsRef<str>>(
    want: &str,
    candidates: impl IntoIterator<Item = (K, &'c str)>,
) -> Option<&'c str> {
    let limit = typo_limit(want);
    let mut best: Option<(usize, &str)> = None;
    for (key, value) in candidates {
        let Some(d) = distance(want, key.as_ref(), limit) else { continue };
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, value));
        }
    }
    best.map(|(_, v)| v)
}

/// [`closest`] over plain names, ignoring case.
pub(crate) fn closest_name<'c>(want: &str, names: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    closest(&want.to_lowercase(), names.into_iter().map(|name| (name.to_lowercase(), name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_respect_their_limit_and_count_a_swap_as_one_edit() {
        assert_eq!(distance("kitten", "sitting", 3), Some(3));
        assert_eq!(distance("kitten", "sitting", 2), None);
        assert_eq!(distance("", "ab", 2), Some(2));
        assert_eq!(distance("日本", "日本語", 1), Some(1));
        assert_eq!(distance("titel", "title", 1), Some(1));
    }

    #[test]
    fn the_closest_name_is_a_typo_away_and_ties_go_to_the_first() {
        assert_eq!(closest_name("descripton", ["name", "description"]), Some("description"));
        assert_eq!(closest_name("NAME", ["name"]), Some("name"));
        assert_eq!(closest_name("ab", ["xy"]), None, "two edits of two characters is no typo");
        assert_eq!(closest_name("cat", ["bat", "car"]), Some("bat"));
        assert_eq!(typo_limit("a"), 1);
        assert_eq!(typo_limit("a-very-long-diagnostic-code"), 3);
    }
}
