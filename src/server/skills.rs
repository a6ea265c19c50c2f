//! The Skills extension (SEP-2640): the `skills/list` / `skills/get` entries, precomputed from the
//! catalog when it is opened (`resources/directory/read` is answered by the query layer).
//!
//! Each entry's frontmatter is the compiled frontmatter object verbatim, and its manifest lists
//! SKILL.md plus every other file of the skill with the `sha256:` digest and size of the exact
//! bytes `resources/read` serves, so hosts can verify what they fetch. No IO.

use std::collections::{BTreeMap, BTreeSet};

use rmcp::model::{Skill, SkillFrontmatter, SkillResource, SkillResources, sha256_digest};

use crate::catalog::{Catalog, Entry};
use crate::query::{Query, QueryError};

/// Page size of `skills/list`: entries are atomic (a manifest is never split across pages).
pub(crate) const SKILL_PAGE: usize = 100;

/// The SEP-2640 entries and their index by exact SKILL.md URI.
pub(crate) struct Skills {
    /// Every valid skill entry, in skill-path order.
    pub(crate) list: Vec<Skill>,
    /// Index into `list` by the exact SKILL.md URI.
    pub(crate) by_uri: BTreeMap<String, usize>,
}

impl Skills {
    /// Builds every entry from the catalog.
    pub(crate) fn build(catalog: &Catalog) -> Skills {
        let list = build(catalog);
        let by_uri = list.iter().enumerate().map(|(i, s)| (s.uri.clone(), i)).collect();
        Skills { list, by_uri }
    }
}

/// Builds the SEP-2640 entry of every skill.
///
/// A skill whose entry breaks a structural rule of the extension (which `folio check` should have
/// reported) is left out of the extension with a warning on stderr; its files stay readable.
pub(crate) fn build(catalog: &Catalog) -> Vec<Skill> {
    let mut skills = Vec::with_capacity(catalog.skills.len());
    let mut seen = BTreeSet::new();
    for skill in &catalog.skills {
        let Some(document) = catalog.entries.get(skill.document as usize) else {
            tracing::warn!(skill = %skill.path, "skill document index out of range; skill not listed");
            continue;
        };
        let mut files = vec![manifest_file(document)];
        for file in &skill.files {
            if let Some(entry) = catalog.entries.get(file.entry as usize) {
                files.push(manifest_file(entry));
            }
        }
        // Decoded on first use: a forged catalog's may not decode, and is not served as empty.
        let raw = match skill.frontmatter.get() {
            Ok(raw) => raw,
            Err(err) => {
                tracing::warn!(skill = %skill.path, error = %err, "skill frontmatter does not decode; not listed in skills/list");
                continue;
            }
        };
        let entry = Skill::new(document.uri.clone(), frontmatter(skill, raw), SkillResources::Files(files));
        if let Err(err) = entry.validate() {
            tracing::warn!(skill = %skill.path, error = %err, "skill breaks SEP-2640; not listed in skills/list");
            continue;
        }
        if !seen.insert(entry.uri.clone()) {
            tracing::warn!(skill = %skill.path, "skill URI listed twice; second one dropped");
            continue;
        }
        skills.push(entry);
    }
    skills
}

fn manifest_file(entry: &Entry) -> SkillResource {
    let digest = entry.sha256.clone().unwrap_or_else(|| sha256_digest(&entry.bytes));
    SkillResource::new(entry.uri.clone(), digest, entry.size)
}

/// The frontmatter as the author wrote it (SEP-2640: verbatim as a JSON object; hosts compare it
/// field by field with their own parse of the served SKILL.md).
fn frontmatter(skill: &crate::catalog::Skill, raw: &serde_json::Value) -> SkillFrontmatter {
    let mut extra = match raw {
        serde_json::Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    let name = match extra.remove("name") {
        Some(serde_json::Value::String(s)) => s,
        _ => skill.name.clone(),
    };
    let description = match extra.remove("description") {
        Some(serde_json::Value::String(s)) => s,
        _ => skill.description.clone(),
    };
    let mut out = SkillFrontmatter::new(name, description);
    out.extra = extra;
    out
}

/// The served skill a `skill://…/SKILL.md` URI probably meant, for "did you mean" hints: the
/// query layer's suggestion for the URI's final segment.
pub(crate) fn suggest(query: &Query, uri: &str) -> Option<String> {
    let name =
        rmcp::model::skill_name_from_uri(uri).or_else(|| uri.trim_end_matches('/').rsplit('/').next())?;
    match query.skill_detail(name) {
        Ok(detail) => Some(detail.uri),
        Err(QueryError::NotFound { suggestions, .. }) => suggestions
            .iter()
            .find_map(|s| query.skill(s).map(|_| s))
            .and_then(|id| query.skill_detail(id).ok())
            .map(|d| d.uri),
        Err(_) => None,
    }
}
