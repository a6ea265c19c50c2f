//! The Skills extension (SEP-2640): the `skills/list` / `skills/get` entries and the directory tree
//! `resources/directory/read` walks, all precomputed from the catalog when it is opened.
//!
//! Each entry's frontmatter is the compiled frontmatter object verbatim, and its manifest lists
//! SKILL.md plus every other file of the skill with the `sha256:` digest and size of the exact
//! bytes `resources/read` serves, so hosts can verify what they fetch. No IO.

use std::collections::{BTreeMap, BTreeSet};

use rmcp::model::{
    DIRECTORY_MIME_TYPE, Resource, Skill, SkillFrontmatter, SkillResource, SkillResources, sha256_digest,
};

use crate::catalog::{Catalog, Entry, uri};

/// Page size of `skills/list`: entries are atomic (a manifest is never split across pages).
pub(crate) const SKILL_PAGE: usize = 100;

/// Builds the SEP-2640 entry of every skill and the direct children of every skill directory.
///
/// A skill whose entry breaks a structural rule of the extension (which `folio check` should have
/// reported) is left out of the extension with a warning on stderr; its files stay readable.
pub(crate) fn build(
    catalog: &Catalog,
    resources: &[Resource],
    resource_index: &BTreeMap<String, usize>,
) -> (Vec<Skill>, BTreeMap<String, Vec<Resource>>) {
    let mut skills = Vec::with_capacity(catalog.skills.len());
    let mut directories: BTreeMap<String, BTreeMap<String, Resource>> = BTreeMap::new();
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
        let entry = Skill::new(document.uri.clone(), frontmatter(skill), SkillResources::Files(files));
        if let Err(err) = entry.validate() {
            tracing::warn!(skill = %skill.path, error = %err, "skill breaks SEP-2640; not listed in skills/list");
            continue;
        }
        if !seen.insert(entry.uri.clone()) {
            tracing::warn!(skill = %skill.path, "skill URI listed twice; second one dropped");
            continue;
        }
        // Directory tree: every file's parent chain up to the skill root.
        let root = uri::skill_dir(&skill.path);
        let files = std::iter::once(("SKILL.md", skill.document))
            .chain(skill.files.iter().map(|f| (f.rel_path.as_str(), f.entry)));
        for (rel, entry_idx) in files {
            let Some(file_uri) = catalog.entries.get(entry_idx as usize).map(|e| &e.uri) else {
                continue;
            };
            let Some(record) = resource_index.get(file_uri).map(|&i| resources[i].clone()) else {
                continue;
            };
            let mut parent = root.clone();
            let mut segments = rel.split('/').peekable();
            while let Some(segment) = segments.next() {
                let children = directories.entry(parent.clone()).or_default();
                if segments.peek().is_none() {
                    children.insert(record.uri.clone(), record.clone());
                } else {
                    let child = format!("{parent}/{}", uri::encode_component(segment));
                    children.entry(child.clone()).or_insert_with(|| {
                        Resource::new(child.clone(), segment).with_mime_type(DIRECTORY_MIME_TYPE)
                    });
                    parent = child;
                }
            }
        }
        skills.push(entry);
    }
    let directories = directories.into_iter().map(|(k, v)| (k, v.into_values().collect())).collect();
    (skills, directories)
}

fn manifest_file(entry: &Entry) -> SkillResource {
    let digest = entry.sha256.clone().unwrap_or_else(|| sha256_digest(&entry.bytes));
    SkillResource::new(entry.uri.clone(), digest, entry.size)
}

/// The frontmatter as the author wrote it (SEP-2640: verbatim as a JSON object; hosts compare it
/// field by field with their own parse of the served SKILL.md).
fn frontmatter(skill: &crate::catalog::Skill) -> SkillFrontmatter {
    let mut extra = match &skill.frontmatter {
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

/// The skill a `skill://…/SKILL.md` URI probably meant, for "did you mean" hints: the served skill
/// with the same final segment or the closest name.
pub(crate) fn suggest<'a>(skills: &'a [Skill], uri: &str) -> Option<&'a str> {
    let wanted = rmcp::model::skill_name_from_uri(uri)
        .or_else(|| uri.trim_end_matches('/').rsplit('/').next())?
        .to_ascii_lowercase();
    skills
        .iter()
        .map(|s| (super::content::edit_distance(&wanted, s.name()), s))
        .filter(|(d, s)| *d <= (s.name().len() / 3).max(2))
        .min_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.uri.cmp(&b.1.uri)))
        .map(|(_, s)| s.uri.as_str())
}
