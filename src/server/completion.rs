//! `completion/complete` for every variable of every resource template (DESIGN §6): values come
//! from the catalog, scoped by already resolved variables where the design says (`file` by
//! `skill_path`, `ref_id` by `skill_id`, `section` and `lines` by `path`), ranked (exact, then
//! prefix, then substring; shorter and then lexically smaller first), at most 100 with
//! `total`/`hasMore`. Free-form variables (`q`, `cursor`, `limit`, `updated_since`) complete to
//! nothing. No IO.

use std::collections::BTreeSet;

use rmcp::ErrorData as McpError;
use rmcp::model::{CompleteRequestParams, CompletionInfo};

use super::{State, errors, templates};
use crate::catalog::Catalog;

/// Answers one completion request.
pub(crate) fn complete(state: &State, request: &CompleteRequestParams) -> Result<CompletionInfo, McpError> {
    let Some(template) = request.r#ref.as_resource_uri() else {
        return Err(errors::bad_completion("this server has no prompts; complete a resource template"));
    };
    let Some(family) = templates::family(template) else {
        return Err(errors::bad_completion(&format!(
            "unknown resource template `{}`",
            errors::printable(template)
        )));
    };
    let name = request.argument.name.as_str();
    if !family.variables.contains(&name) {
        return Err(errors::bad_completion(&format!(
            "template `{}` has no variable `{}` (it has: {})",
            family.template,
            errors::printable(name),
            family.variables.join(", ")
        )));
    }
    let context = |key: &str| -> Option<String> {
        request.context.as_ref().and_then(|c| c.arguments.as_ref()).and_then(|a| a.get(key)).cloned()
    };
    let catalog = state.content.catalog();
    let candidates = candidates(catalog, family.template, name, &context);
    Ok(rank(candidates, &request.argument.value))
}

fn candidates(
    catalog: &Catalog,
    template: &str,
    variable: &str,
    context: &dyn Fn(&str) -> Option<String>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    match variable {
        "skill_id" => out.extend(catalog.skills.iter().map(|s| s.name.clone())),
        "skill_path" => out.extend(catalog.skills.iter().map(|s| s.path.clone())),
        "file" => {
            let scope = context("skill_path");
            for skill in catalog.skills.iter().filter(|s| scope.as_deref().is_none_or(|p| p == s.path)) {
                out.insert("SKILL.md".to_owned());
                out.extend(skill.files.iter().map(|f| f.rel_path.clone()));
            }
        }
        "ref_id" => {
            let scope = context("skill_id");
            for skill in catalog.skills.iter().filter(|s| scope.as_deref().is_none_or(|id| id == s.name)) {
                out.extend(skill.files.iter().map(|f| f.ref_id.clone()));
            }
        }
        "path" => out.extend(catalog.docs.iter().map(|d| d.path.clone())),
        "section" | "lines" => {
            let Some(doc) = context("path").and_then(|p| catalog.doc(&p).cloned()) else {
                // Without a path there is no meaningful scope: sections are per doc.
                return out;
            };
            for section in &doc.outline {
                out.insert(if variable == "section" {
                    section.id.clone()
                } else {
                    format!("{}-{}", section.line_start, section.line_end)
                });
            }
        }
        "tag" if template.contains("skills_index") => {
            out.extend(catalog.skills.iter().flat_map(|s| s.tags.iter().cloned()));
        }
        "tag" => out.extend(catalog.docs.iter().flat_map(|d| d.tags.iter().cloned())),
        "capability" => out.extend(catalog.skills.iter().flat_map(|s| s.capabilities.iter().cloned())),
        "category" => out.extend(catalog.docs.iter().filter_map(|d| d.category.clone())),
        "prefix" => {
            for doc in &catalog.docs {
                let mut end = 0;
                while let Some(i) = doc.path[end..].find('/') {
                    end += i + 1;
                    out.insert(doc.path[..end].to_owned());
                }
            }
        }
        // q, cursor, limit, updated_since: free-form, nothing to suggest.
        _ => {}
    }
    out
}

/// Ranks candidates against what the user typed and keeps at most 100.
fn rank(candidates: BTreeSet<String>, typed: &str) -> CompletionInfo {
    let typed_lower = typed.to_lowercase();
    let mut scored: Vec<(u8, usize, String)> = candidates
        .into_iter()
        .filter_map(|c| {
            let lower = c.to_lowercase();
            let tier = if c == typed {
                0
            } else if c.starts_with(typed) {
                1
            } else if lower.starts_with(&typed_lower) {
                2
            } else if lower.contains(&typed_lower) {
                3
            } else {
                return None;
            };
            Some((tier, c.len(), c))
        })
        .collect();
    scored.sort();
    let total = scored.len();
    let values: Vec<String> =
        scored.into_iter().take(CompletionInfo::MAX_VALUES).map(|(_, _, c)| c).collect();
    let has_more = total > values.len();
    CompletionInfo::with_pagination(values, Some(u32::try_from(total).unwrap_or(u32::MAX)), has_more)
        .expect("at most MAX_VALUES values")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(candidates: &[&str], typed: &str, expected: &[&str]) {
        let info = rank(candidates.iter().map(|s| (*s).to_owned()).collect(), typed);
        assert_eq!(info.values, expected);
        assert_eq!(info.total, Some(expected.len() as u32));
        assert_eq!(info.has_more, Some(false));
    }

    #[test]
    fn ranks_exact_then_prefix_then_substring() {
        check(&["pdf-forms", "pdf", "xlsx-pdf", "docx"], "pdf", &["pdf", "pdf-forms", "xlsx-pdf"]);
        check(&["Guides/a.md", "guides/b.md"], "guides", &["guides/b.md", "Guides/a.md"]);
        check(&["b", "a"], "", &["a", "b"]);
        check(&["a"], "zzz", &[]);
    }

    #[test]
    fn caps_at_one_hundred_and_reports_the_total() {
        let many: BTreeSet<String> = (0..250).map(|i| format!("tag-{i:03}")).collect();
        let info = rank(many, "tag");
        assert_eq!(info.values.len(), 100);
        assert_eq!(info.total, Some(250));
        assert_eq!(info.has_more, Some(true));
    }
}
