//! Completion values for template variables (MCP `completion/complete`, `content/docs/reference/mcp.md`): ranked,
//! at most [`MAX_COMPLETIONS`], scoped by already-chosen variables where the manual says.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Query;
use super::error::{QueryError, decoded};

/// Most values one completion answer holds (MCP `completion/complete`).
pub const MAX_COMPLETIONS: usize = 100;

/// The answer to [`Query::complete`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Completion {
    /// Best first, at most 100.
    pub values: Vec<String>,
    /// How many values match in all.
    pub total: usize,
    /// True when `total` exceeds `values.len()`.
    pub has_more: bool,
}

/// Every variable name the templates use.
pub const ARGUMENTS: [&str; 10] =
    ["skill_id", "skill_path", "file", "ref_id", "path", "section", "tag", "capability", "category", "lang"];

impl Query {
    /// Completion values for a template variable (`skill_id`, `skill_path`, `file`, `ref_id`,
    /// `path`, `section`, `tag`, `capability`, `category`), ranked, at most
    /// [`MAX_COMPLETIONS`]. `context` holds already-chosen variables: `file` is scoped by
    /// `skill_path`, `ref_id` by `skill_id`, `section` by `path`.
    ///
    /// Fails with [`QueryError::InvalidParams`] for an unknown variable name.
    pub fn complete(
        &self,
        argument: &str,
        value: &str,
        context: &BTreeMap<String, String>,
    ) -> Result<Completion, QueryError> {
        let catalog = &self.catalog;
        let ctx = |key: &str| context.get(key).map(String::as_str).filter(|v| !v.is_empty());
        // The skill a scoped variable belongs to: by `skill_id`, else by `skill_path`.
        let scoped_skill = || {
            ctx("skill_id")
                .and_then(|id| self.skill(id))
                .or_else(|| ctx("skill_path").and_then(|p| self.skill_by_path(p)))
        };
        let candidates: Vec<(String, usize)> = match argument {
            "skill_id" => catalog.skills.iter().map(|s| (s.name.clone(), 0)).collect(),
            "skill_path" => catalog.skills.iter().map(|s| (s.path.clone(), 0)).collect(),
            "file" => match scoped_skill() {
                Some(skill) => std::iter::once(("SKILL.md".to_owned(), 1))
                    .chain(skill.files.iter().map(|f| (f.rel_path.clone(), 0)))
                    .collect(),
                None => Vec::new(),
            },
            "ref_id" => match scoped_skill() {
                Some(skill) => skill.files.iter().map(|f| (f.ref_id.clone(), 0)).collect(),
                None => Vec::new(),
            },
            "path" => catalog.docs.iter().map(|d| (d.path.clone(), 0)).collect(),
            "section" => {
                let outline = match ctx("path").and_then(|p| self.doc(p)) {
                    Some(doc) => decoded(&doc.outline, &catalog.entries[doc.entry as usize].uri, "outline")?,
                    None => match scoped_skill() {
                        Some(s) => decoded(&s.outline, &catalog.entries[s.document as usize].uri, "outline")?,
                        None => &[][..],
                    },
                };
                // Document order is the natural order of sections; weight keeps it among equals.
                let n = outline.len();
                outline.iter().enumerate().map(|(i, s)| (s.id.clone(), n - i)).collect()
            }
            "tag" => self.vocabulary().tags.iter().map(|(t, n)| (t.clone(), *n)).collect(),
            "capability" => self.vocabulary().capabilities.iter().map(|(t, n)| (t.clone(), *n)).collect(),
            "category" => self.vocabulary().categories.iter().map(|(t, n)| (t.clone(), *n)).collect(),
            "lang" => {
                let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                for doc in &catalog.docs {
                    *counts.entry(doc.locale.as_str()).or_default() += 1;
                }
                counts.into_iter().map(|(l, n)| (l.to_owned(), n)).collect()
            }
            other => {
                return Err(QueryError::invalid(
                    "argument",
                    format!("no template variable `{other}` (known: {})", ARGUMENTS.join(", ")),
                ));
            }
        };
        Ok(rank(candidates, value))
    }
}

/// Ranks candidates against what was typed: exact, then prefix, then prefix of a path segment
/// or word, then substring (all case-insensitive); within a tier by weight (e.g. how many
/// entries carry a tag), then shorter, then alphabetically, so the order is total.
fn rank(candidates: Vec<(String, usize)>, value: &str) -> Completion {
    let typed = value.to_lowercase();
    let mut scored: Vec<(u8, std::cmp::Reverse<usize>, usize, String)> = candidates
        .into_iter()
        .filter_map(|(candidate, weight)| {
            let lower = candidate.to_lowercase();
            let tier = if typed.is_empty() || lower == typed {
                0
            } else if lower.starts_with(&typed) {
                1
            } else if lower
                .match_indices(&typed)
                .any(|(i, _)| lower[..i].ends_with(['/', '-', '_', '.', ' ']))
            {
                2
            } else if lower.contains(&typed) {
                3
            } else {
                return None;
            };
            let len = if typed.is_empty() { 0 } else { candidate.len() };
            Some((tier, std::cmp::Reverse(weight), len, candidate))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.3 == b.3);
    let total = scored.len();
    let values: Vec<String> = scored.into_iter().take(MAX_COMPLETIONS).map(|s| s.3).collect();
    Completion { has_more: total > values.len(), values, total }
}

/// The tag, capability and category names of a catalog, with how many docs/skills carry each.
#[derive(Debug, Default)]
pub(super) struct Vocabulary {
    tags: BTreeMap<String, usize>,
    capabilities: BTreeMap<String, usize>,
    categories: BTreeMap<String, usize>,
}

impl Query {
    /// Every tag, capability and category with its count, built on the first completion that
    /// needs it: an open catalog does not hold a second copy of them until then.
    fn vocabulary(&self) -> &Vocabulary {
        self.vocabulary.get_or_init(|| {
            let mut vocabulary = Vocabulary::default();
            for doc in &self.catalog.docs {
                for tag in &doc.tags {
                    *vocabulary.tags.entry(tag.clone()).or_default() += 1;
                }
                if let Some(category) = &doc.category {
                    *vocabulary.categories.entry(category.clone()).or_default() += 1;
                }
            }
            for skill in &self.catalog.skills {
                for tag in &skill.tags {
                    *vocabulary.tags.entry(tag.clone()).or_default() += 1;
                }
                for capability in &skill.capabilities {
                    *vocabulary.capabilities.entry(capability.clone()).or_default() += 1;
                }
            }
            vocabulary
        })
    }
}
