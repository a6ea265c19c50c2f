//! The one filter behind every listing and search: which entries a `kind`, `tag`, `category`,
//! `capability`, `lang` and `updated_since` keep, and the fingerprint of those choices that a cursor
//! carries, so a cursor is only ever replayed on the query that issued it.
//!
//! What an entry offers to filter on is its owner's ([`Facets`]): a doc's tags, category and date;
//! a skill's tags, capabilities and date on its SKILL.md; a skill's other files only the date.
//! Tags, categories and capabilities match without regard to case.
//!
//! Must not rank, page or build records: listings and search do that with what this keeps.

use super::error::QueryError;
use super::kind::{Kind, Owner};
use crate::catalog::Catalog;

/// What the filters look at for one entry, taken from its owner.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Facets<'c> {
    pub(super) tags: &'c [String],
    pub(super) category: Option<&'c str>,
    pub(super) capabilities: &'c [String],
    pub(super) updated: Option<&'c str>,
    /// A doc's locale; skills have none.
    pub(super) lang: Option<&'c str>,
}

impl<'c> Facets<'c> {
    /// The facets of the entry `owner` names. A skill's files other than SKILL.md carry no tags
    /// or capabilities of their own: only the skill's date.
    pub(super) fn of(catalog: &'c Catalog, owner: Owner) -> Facets<'c> {
        match owner {
            Owner::Doc(d) => {
                let doc = &catalog.docs[d as usize];
                Facets {
                    tags: &doc.tags,
                    category: doc.category.as_deref(),
                    capabilities: &[],
                    updated: doc.updated.as_deref(),
                    lang: Some(&doc.locale),
                }
            }
            Owner::Skill(s, file) => {
                let skill = &catalog.skills[s as usize];
                let document = file.is_none();
                Facets {
                    tags: if document { &skill.tags } else { &[] },
                    category: None,
                    capabilities: if document { &skill.capabilities } else { &[] },
                    updated: skill.updated.as_deref(),
                    lang: None,
                }
            }
        }
    }
}

/// The filters of one request; `None` keeps everything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Filter<'p> {
    pub(super) kind: Option<Kind>,
    pub(super) tag: Option<&'p str>,
    pub(super) category: Option<&'p str>,
    pub(super) capability: Option<&'p str>,
    /// `updated_since`, checked by [`check_date`].
    pub(super) since: Option<&'p str>,
    /// A locale (`ja`, `zh-CN`): only docs in it.
    pub(super) lang: Option<&'p str>,
}

impl Filter<'_> {
    /// True when no filter is set beyond the entry kind.
    pub(super) fn keeps_every_owner(&self) -> bool {
        self.tag.is_none()
            && self.category.is_none()
            && self.capability.is_none()
            && self.since.is_none()
            && self.lang.is_none()
    }

    /// True when an entry of `kind` with these facets passes every filter.
    pub(super) fn keeps(&self, kind: Kind, facets: &Facets<'_>) -> bool {
        self.kind.is_none_or(|k| k == kind)
            && self.tag.is_none_or(|t| facets.tags.iter().any(|x| same(x, t)))
            && self.category.is_none_or(|c| facets.category.is_some_and(|x| same(x, c)))
            && self.capability.is_none_or(|c| facets.capabilities.iter().any(|x| same(x, c)))
            && self.since.is_none_or(|s| facets.updated.is_some_and(|u| u >= s))
            && self.lang.is_none_or(|l| facets.lang.is_some_and(|x| same_locale(x, l)))
    }

    /// What a cursor carries of this filter, with `rest` (a query's other choices: its terms, a
    /// prefix, a sort order): equal only for the same request.
    pub(super) fn fingerprint(&self, rest: impl std::fmt::Debug) -> String {
        format!("{self:?}|{rest:?}")
    }
}

/// Case-insensitive equality (Unicode lowercase), for tag, category and capability filters.
pub(super) fn same(a: &str, b: &str) -> bool {
    a == b || a.to_lowercase() == b.to_lowercase()
}

/// Locale tags compare without regard to case or `_` for `-` (`zh-CN`, `zh_cn`, `zh-cn`).
fn same_locale(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes().zip(b.bytes()).all(|(x, y)| {
            let norm = |c: u8| if c == b'_' { b'-' } else { c.to_ascii_lowercase() };
            norm(x) == norm(y)
        })
}

/// Checks an `updated_since` value: `YYYY-MM-DD`, optionally followed by an RFC 3339 time.
pub(super) fn check_date(value: &str) -> Result<&str, QueryError> {
    let b = value.as_bytes();
    let shape = b.len() >= 10
        && b[..10]
            .iter()
            .enumerate()
            .all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
        && (b.len() == 10 || b[10] == b'T' || b[10] == b' ');
    let month = value.get(5..7).and_then(|m| m.parse::<u8>().ok()).unwrap_or(0);
    let day = value.get(8..10).and_then(|d| d.parse::<u8>().ok()).unwrap_or(0);
    if shape && (1..=12).contains(&month) && (1..=31).contains(&day) {
        Ok(value)
    } else {
        Err(QueryError::invalid(
            "updated_since",
            format!("`{value}` is not a date (expected YYYY-MM-DD, e.g. 2025-01-31)"),
        ))
    }
}
