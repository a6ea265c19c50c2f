//! The resource templates of every URI family in `content/docs/reference/uris.md` (RFC 6570 level 3: `{+path}` is
//! reserved expansion so a multi-segment path keeps its `/`; `{?a,b}` is form-style query
//! expansion). rmcp ships no template matcher; reads resolve concrete URIs in `content.rs`.

use rmcp::model::{Annotations, ResourceTemplate, Role};

/// One template family: its URI template and the variables `completion/complete` answers for.
pub(crate) struct Family {
    /// The RFC 6570 template, exactly as listed.
    pub(crate) template: &'static str,
    /// Programmatic name.
    pub(crate) name: &'static str,
    /// Display title.
    pub(crate) title: &'static str,
    /// What a read of an expansion returns.
    pub(crate) description: &'static str,
    /// MIME type of every expansion, when uniform.
    pub(crate) mime: Option<&'static str>,
    /// Every variable of the template, in order.
    pub(crate) variables: &'static [&'static str],
}

/// Every template family, in listing order.
pub(crate) const FAMILIES: &[Family] = &[
    Family {
        template: "resource://catalog/skills_index{?q,tag,capability,cursor,limit}",
        name: "skills_index_query",
        title: "Skills index (filtered)",
        description: "Skill summary records filtered by text query, tag or capability; paginated (next_cursor in the body).",
        mime: Some("application/json"),
        variables: &["q", "tag", "capability", "cursor", "limit"],
    },
    Family {
        template: "resource://catalog/skills/{skill_id}",
        name: "skill_detail",
        title: "Skill detail",
        description: "One skill: frontmatter, files (uri, ref_id, size, blake3, sha256, mime), outline, links.",
        mime: Some("application/json"),
        variables: &["skill_id"],
    },
    Family {
        template: "resource://catalog/docs_index{?q,tag,category,lang,prefix,updated_since,cursor,limit}",
        name: "docs_index_query",
        title: "Docs index (filtered)",
        description: "Doc summary records filtered by query, tag, category, locale, path prefix or update date; paginated.",
        mime: Some("application/json"),
        variables: &["q", "tag", "category", "lang", "prefix", "updated_since", "cursor", "limit"],
    },
    Family {
        template: "resource://catalog/docs/{+path}",
        name: "doc_detail",
        title: "Doc detail",
        description: "One doc: metadata, outline (section ids with line ranges), links out, backlinks.",
        mime: Some("application/json"),
        variables: &["path"],
    },
    Family {
        template: "resource://docs/{+path}",
        name: "doc",
        title: "Doc",
        description: "A doc's exact bytes (bounded: large docs end with a marker naming the next range).",
        mime: Some("text/markdown"),
        variables: &["path"],
    },
    Family {
        template: "resource://docs/{+path}{?section,lines}",
        name: "doc_part",
        title: "Doc section or line range",
        description: "One section of a doc (section=<heading id>) or a line range (lines=40-80).",
        mime: Some("text/markdown"),
        variables: &["path", "section", "lines"],
    },
    Family {
        template: "skill://{+skill_path}/SKILL.md",
        name: "skill_document",
        title: "Skill document",
        description: "A skill's SKILL.md (SEP-2640 canonical URI).",
        mime: Some("text/markdown"),
        variables: &["skill_path"],
    },
    Family {
        template: "skill://{+skill_path}/{+file}",
        name: "skill_file",
        title: "Skill file",
        description: "Any file of a skill, by its path inside the skill directory (SEP-2640 canonical URI).",
        mime: None,
        variables: &["skill_path", "file"],
    },
    Family {
        template: "resource://skills/{skill_id}/document",
        name: "skill_document_by_id",
        title: "Skill document by id",
        description: "The SKILL.md bytes of a skill by id; identical to its skill:// URI.",
        mime: Some("text/markdown"),
        variables: &["skill_id"],
    },
    Family {
        template: "resource://skills/{skill_id}/references/{ref_id}",
        name: "skill_reference",
        title: "Skill reference by id",
        description: "A skill file by ref_id (a `/` in a ref_id is written %2F); identical to its skill:// URI.",
        mime: None,
        variables: &["skill_id", "ref_id"],
    },
];

/// The family of a template string, by exact match.
pub(crate) fn family(template: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.template == template)
}

/// Every template, as `resources/templates/list` returns it.
pub(crate) fn list() -> Vec<ResourceTemplate> {
    FAMILIES
        .iter()
        .map(|f| {
            let t = ResourceTemplate::new(f.template, f.name)
                .with_title(f.title)
                .with_description(f.description)
                .with_annotations(Annotations::default().with_audience(vec![Role::Assistant]));
            match f.mime {
                Some(mime) => t.with_mime_type(mime),
                None => t,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variable_appears_in_its_template() {
        for f in FAMILIES {
            for v in f.variables {
                assert!(
                    f.template.contains(&format!("{{{v}}}"))
                        || f.template.contains(&format!("{{+{v}}}"))
                        || f.template.contains(&format!(",{v}"))
                        || f.template.contains(&format!("{{?{v}")),
                    "{v} not in {}",
                    f.template
                );
            }
        }
    }
}
