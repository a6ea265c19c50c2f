//! Detail records: the one builder behind `resource://catalog/skills/{skill_id}`,
//! `resource://catalog/docs/{+path}` and the `get_pattern_by_id` tool.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Query;
use super::error::{QueryError, decoded};
use super::kind::{Kind, Owner};
use super::resolve::{not_found_doc, not_found_skill};
use crate::catalog::{Doc, Link, Section, Skill, uri};

/// A heading with its id, line range and the URI that reads just that section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionRecord {
    /// Section id (GitHub-style slug): the `?section=` value.
    pub id: String,
    /// Heading text.
    pub title: String,
    /// Heading level, 1 to 6.
    pub level: u8,
    /// First line (the heading), 1-based.
    pub line_start: u32,
    /// Last line, inclusive.
    pub line_end: u32,
    /// `<content uri>?section=<id>`.
    pub uri: String,
}

/// A link out of a doc or SKILL.md.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkRecord {
    /// The target as written.
    pub target: String,
    /// `relative`, `site_absolute`, `wiki`, `anchor` or `external`.
    pub kind: crate::catalog::LinkKind,
    /// Canonical URI of the catalog entry it resolves to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// The `#fragment`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// 1-based line of the link.
    pub line: u32,
}

/// A file of a skill, as the detail record and SEP-2640 manifests list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileRecord {
    /// Canonical URI (`skill://…`).
    pub uri: String,
    /// Alias URI (`resource://skills/{skill_id}/document` or `…/references/{ref_id}`).
    pub alias_uri: String,
    /// Reference id (`SKILL.md` for the skill document).
    pub ref_id: String,
    /// Path relative to the skill directory.
    pub path: String,
    /// MIME type.
    pub mime: String,
    /// Size in bytes.
    pub size: u64,
    /// blake3, hex.
    pub blake3: String,
    /// `sha256:<hex>` (SEP-2640 digest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Manifest title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Manifest description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Everything about one skill (the JSON of `resource://catalog/skills/{skill_id}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkillDetail {
    /// Always `skill`.
    pub kind: Kind,
    /// The skill id (its name).
    pub id: String,
    /// This record's URI: `resource://catalog/skills/{skill_id}`.
    pub detail_uri: String,
    /// Canonical URI of SKILL.md.
    pub uri: String,
    /// The skill directory URI (`skill://{skill_path}`), for `resources/directory/read`.
    pub directory_uri: String,
    /// Directory path under `skills/`.
    pub path: String,
    /// Title.
    pub title: String,
    /// Frontmatter `description`.
    pub description: String,
    /// Frontmatter `license`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Frontmatter `compatibility`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    /// Frontmatter `allowed-tools`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<String>,
    /// Frontmatter `metadata`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// Folio `tags`.
    pub tags: Vec<String>,
    /// Folio `capabilities`.
    pub capabilities: Vec<String>,
    /// Folio `version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Frontmatter date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// The whole frontmatter as JSON (keys sorted), as SEP-2640 serves it.
    pub frontmatter: serde_json::Value,
    /// SKILL.md first, then every other file sorted by path.
    pub files: Vec<FileRecord>,
    /// Headings of SKILL.md with section URIs.
    pub outline: Vec<SectionRecord>,
    /// Links out of SKILL.md.
    pub links: Vec<LinkRecord>,
    /// URIs of entries linking to SKILL.md.
    pub backlinks: Vec<String>,
}

/// Everything about one doc (the JSON of `resource://catalog/docs/{+path}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocDetail {
    /// Always `doc`.
    pub kind: Kind,
    /// Path relative to `docs/`.
    pub path: String,
    /// This record's URI: `resource://catalog/docs/{+path}`.
    pub detail_uri: String,
    /// Canonical URI of the bytes.
    pub uri: String,
    /// Title.
    pub title: String,
    /// Description.
    pub description: String,
    /// Frontmatter tags.
    pub tags: Vec<String>,
    /// Frontmatter category.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Its locale (`en`, `zh-cn`).
    pub locale: String,
    /// Frontmatter date.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Frontmatter aliases.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Other frontmatter keys.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, serde_json::Value>,
    /// MIME type.
    pub mime: String,
    /// Size in bytes.
    pub size: u64,
    /// blake3, hex.
    pub blake3: String,
    /// Number of lines.
    pub total_lines: u32,
    /// Sections with ids, line ranges and URIs.
    pub outline: Vec<SectionRecord>,
    /// Links out.
    pub links: Vec<LinkRecord>,
    /// URIs of entries linking here.
    pub backlinks: Vec<String>,
}

/// A detail record of either kind (what `get_pattern_by_id` returns).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Detail {
    /// A skill's detail.
    Skill(Box<SkillDetail>),
    /// A doc's detail.
    Doc(Box<DocDetail>),
}

impl Detail {
    /// The detail record's own URI.
    pub fn detail_uri(&self) -> &str {
        match self {
            Detail::Skill(s) => &s.detail_uri,
            Detail::Doc(d) => &d.detail_uri,
        }
    }

    /// The JSON text served for the detail URI: pretty, trailing newline. Resources and tools
    /// both use this, so their answers are byte-identical.
    pub fn to_json(&self) -> String {
        let mut out = serde_json::to_string_pretty(self).expect("detail records always serialize");
        out.push('\n');
        out
    }
}

pub(super) fn sections(outline: &[Section], content_uri: &str) -> Vec<SectionRecord> {
    outline
        .iter()
        .map(|s| SectionRecord {
            id: s.id.clone(),
            title: s.title.clone(),
            level: s.level,
            line_start: s.line_start,
            line_end: s.line_end,
            uri: uri::with_section(content_uri, &s.id),
        })
        .collect()
}

fn links(links: &[Link]) -> Vec<LinkRecord> {
    links
        .iter()
        .map(|l| LinkRecord {
            target: l.target.clone(),
            kind: l.kind,
            uri: l.resolved.clone(),
            anchor: l.anchor.clone(),
            line: l.line,
        })
        .collect()
}

/// The file records of a skill: SKILL.md first, then the other files by path.
pub(super) fn file_records(query: &Query, skill: &Skill) -> Vec<FileRecord> {
    let entries = &query.catalog.entries;
    let document = &entries[skill.document as usize];
    let mut out = vec![FileRecord {
        uri: document.uri.clone(),
        alias_uri: uri::skill_document_alias(&skill.name),
        ref_id: "SKILL.md".to_owned(),
        path: "SKILL.md".to_owned(),
        mime: document.mime.clone(),
        size: document.size,
        blake3: document.blake3.clone(),
        sha256: document.sha256.clone(),
        title: None,
        description: None,
    }];
    out.extend(skill.files.iter().map(|file| {
        let entry = &entries[file.entry as usize];
        FileRecord {
            uri: entry.uri.clone(),
            alias_uri: uri::skill_reference_alias(&skill.name, &file.ref_id),
            ref_id: file.ref_id.clone(),
            path: file.rel_path.clone(),
            mime: entry.mime.clone(),
            size: entry.size,
            blake3: entry.blake3.clone(),
            sha256: entry.sha256.clone(),
            title: file.title.clone(),
            description: file.description.clone(),
        }
    }));
    out
}

impl Query {
    /// Detail record of a skill by id (the JSON of `resource://catalog/skills/{skill_id}`).
    ///
    /// Fails with [`QueryError::NotFound`] (with suggestions) for an unknown id.
    pub fn skill_detail(&self, skill_id: &str) -> Result<SkillDetail, QueryError> {
        let skill = self.skill(skill_id).ok_or_else(|| not_found_skill(self, skill_id))?;
        self.skill_detail_of(skill)
    }

    /// The detail record of `skill`, found already. Fails only when a field does not decode.
    fn skill_detail_of(&self, skill: &Skill) -> Result<SkillDetail, QueryError> {
        let document_uri = self.catalog.entries[skill.document as usize].uri.clone();
        Ok(SkillDetail {
            kind: Kind::Skill,
            id: skill.name.clone(),
            detail_uri: uri::skill_detail(&skill.name),
            directory_uri: uri::skill_dir(&skill.path),
            path: skill.path.clone(),
            title: skill.title.clone(),
            description: skill.description.clone(),
            license: skill.license.clone(),
            compatibility: skill.compatibility.clone(),
            allowed_tools: skill.allowed_tools.clone(),
            metadata: skill.metadata.clone(),
            tags: skill.tags.clone(),
            capabilities: skill.capabilities.clone(),
            version: skill.version.clone(),
            updated: skill.updated.clone(),
            frontmatter: decoded(&skill.frontmatter, &document_uri, "frontmatter")?.clone(),
            files: file_records(self, skill),
            outline: sections(decoded(&skill.outline, &document_uri, "outline")?, &document_uri),
            links: links(decoded(&skill.links, &document_uri, "links")?),
            backlinks: decoded(&skill.backlinks, &document_uri, "backlinks")?.clone(),
            uri: document_uri,
        })
    }
}

impl Query {
    /// Detail record of a doc by path (the JSON of `resource://catalog/docs/{+path}`).
    ///
    /// Fails with [`QueryError::NotFound`] for an unknown path, [`QueryError::InvalidParams`] for
    /// a path with traversal.
    pub fn doc_detail(&self, path: &str) -> Result<DocDetail, QueryError> {
        crate::catalog::uri::check_path(path).map_err(|e| QueryError::invalid("path", e.to_string()))?;
        let doc = self.doc(path).ok_or_else(|| not_found_doc(self, path))?;
        self.doc_detail_of(doc)
    }

    /// The detail record of `doc`, found already. Fails only when a field does not decode.
    fn doc_detail_of(&self, doc: &Doc) -> Result<DocDetail, QueryError> {
        let entry = &self.catalog.entries[doc.entry as usize];
        Ok(DocDetail {
            kind: Kind::Doc,
            path: doc.path.clone(),
            detail_uri: uri::doc_detail(&doc.path),
            uri: entry.uri.clone(),
            title: doc.title.clone(),
            description: doc.description.clone(),
            tags: doc.tags.clone(),
            category: doc.category.clone(),
            locale: doc.locale.clone(),
            updated: doc.updated.clone(),
            aliases: doc.aliases.clone(),
            extra: decoded(&doc.extra, &entry.uri, "frontmatter")?.clone(),
            mime: entry.mime.clone(),
            size: entry.size,
            blake3: entry.blake3.clone(),
            total_lines: entry.total_lines,
            outline: sections(decoded(&doc.outline, &entry.uri, "outline")?, &entry.uri),
            links: links(decoded(&doc.links, &entry.uri, "links")?),
            backlinks: decoded(&doc.backlinks, &entry.uri, "backlinks")?.clone(),
        })
    }
}

impl Query {
    /// Detail record of anything an id names: a skill id, a doc path, or any catalog URI (a skill
    /// file's URI gives its skill's detail). What the `get_pattern_by_id` tool returns.
    ///
    /// Fails like [`Query::resolve`].
    pub fn detail(&self, id: &str) -> Result<Detail, QueryError> {
        let at = self.resolve_at(id)?;
        match at.entry.and_then(|idx| self.detail_at(idx)) {
            Some(detail) => detail,
            None => {
                let uri = at.resolved.uri();
                Err(QueryError::invalid_with(
                    "id",
                    format!("`{uri}` is a generated catalog resource and has no detail record"),
                    format!("read `{uri}` directly"),
                ))
            }
        }
    }

    /// The detail record of the doc or skill entry `idx` belongs to (a skill file's is its
    /// skill's); `None` for an entry of neither.
    pub(super) fn detail_at(&self, idx: usize) -> Option<Result<Detail, QueryError>> {
        Some(match self.owner(idx)? {
            Owner::Doc(d) => {
                self.doc_detail_of(&self.catalog.docs[d as usize]).map(|d| Detail::Doc(Box::new(d)))
            }
            Owner::Skill(s, _) => {
                self.skill_detail_of(&self.catalog.skills[s as usize]).map(|s| Detail::Skill(Box::new(s)))
            }
        })
    }
}
