//! `completion/complete` for every variable of every resource template (`content/docs/reference/mcp.md`, "Completion"). The query
//! layer answers the catalog vocabularies (ids, paths, files, ref ids, sections, tags,
//! capabilities, categories), scoped by already chosen variables; this module adds `lines` (each
//! section's range of the doc named by `path`) and `prefix` (doc directories), ranked exact, then
//! prefix, then substring, at most 100 with `total`/`hasMore`. Free-form variables (`q`,
//! `cursor`, `limit`, `updated_since`) complete to nothing. No IO.

use std::collections::{BTreeMap, BTreeSet};

use rmcp::ErrorData as McpError;
use rmcp::model::{CompleteRequestParams, CompletionInfo};

use super::{State, errors, prompts, templates};

/// Answers one completion request.
pub(crate) fn complete(state: &State, request: &CompleteRequestParams) -> Result<CompletionInfo, McpError> {
    if let Some(prompt) = request.r#ref.as_prompt_name() {
        return prompts::complete(state, prompt, &request.argument.name);
    }
    let Some(template) = request.r#ref.as_resource_uri() else {
        return Err(errors::bad_completion("complete a resource template or a prompt argument"));
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
    let context: BTreeMap<String, String> = request
        .context
        .as_ref()
        .and_then(|c| c.arguments.as_ref())
        .map(|a| a.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let query = state.query();
    let typed = request.argument.value.as_str();
    if crate::query::COMPLETION_ARGUMENTS.contains(&name) {
        let done = query
            .complete(name, typed, &context)
            .map_err(|e| errors::bad_completion(&errors::clip_quoted(&e.to_string())))?;
        let total = Some(u32::try_from(done.total).unwrap_or(u32::MAX));
        return CompletionInfo::with_pagination(done.values, total, done.has_more)
            .map_err(|e| McpError::internal_error(e, None));
    }
    // Variables the query layer has no vocabulary for.
    let mut candidates = BTreeSet::new();
    match name {
        // Line ranges worth reading: each section's range in the doc named by `path`.
        "lines" => {
            if let Some(doc) = context.get("path").and_then(|p| query.doc(p)) {
                let uri = &query.catalog().entries[doc.entry as usize].uri;
                let outline = crate::query::decoded(&doc.outline, uri, "outline")
                    .map_err(|e| errors::bad_completion(&e.to_string()))?;
                candidates.extend(outline.iter().map(|s| format!("{}-{}", s.line_start, s.line_end)));
            }
        }
        // Directory prefixes of doc paths.
        "prefix" => {
            for doc in &query.catalog().docs {
                let mut end = 0;
                while let Some(i) = doc.path[end..].find('/') {
                    end += i + 1;
                    candidates.insert(doc.path[..end].to_owned());
                }
            }
        }
        // q, cursor, limit, updated_since: free-form, nothing to suggest.
        _ => {}
    }
    Ok(rank(candidates, typed))
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
