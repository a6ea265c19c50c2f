//! MCP prompts: one prompt per skill, so clients that show prompts as slash commands (and do not
//! speak SEP-2640) can offer every skill. A prompt is named after its skill, described by the
//! skill's description, and takes one optional argument, `task`; `prompts/get` answers the
//! skill's SKILL.md as an embedded resource (the exact text `resources/read` serves, under its
//! `skill://` URI), then the task.
//!
//! Built from the catalog on each request (a record per skill on the page, no state of its own),
//! so it reads whatever catalog the server holds. Owns the prompt records, `prompts/list`
//! paging, `prompts/get` and the completion of prompt arguments; must not read the content tree
//! or hold a catalog.

use rmcp::ErrorData as McpError;
use rmcp::model::{
    CacheScope, CompletionInfo, ContentBlock, GetPromptResult, ListPromptsResult, Prompt, PromptArgument,
    PromptMessage, ResourceContents, Role,
};
use serde_json::json;

use super::resources::page;
use super::{State, errors};
use crate::catalog::Skill;

/// Page size of `prompts/list`.
pub(crate) const PROMPT_PAGE: usize = 100;

/// The one argument every prompt takes.
pub(crate) const TASK: &str = "task";

/// The prompt record of a skill. Beyond the description it costs 98 bytes and the name: one
/// short argument, whose `required` is left out (it defaults to false), so listing every skill
/// stays cheap.
fn record(skill: &Skill) -> Prompt {
    let mut task = PromptArgument::new(TASK);
    task.description = Some("what to do with the skill".to_owned());
    let mut prompt = Prompt::new(skill.name.clone(), Some(skill.description.clone()), Some(vec![task]));
    prompt.title = None;
    prompt
}

/// `prompts/list`: a page of prompts, in skill-path order, with the same cache hints as every
/// other list.
pub(crate) fn list(state: &State, cursor: Option<&str>) -> Result<ListPromptsResult, McpError> {
    let query = state.query();
    let (skills, next) = page(query, "prompts/list", &query.catalog().skills, cursor, PROMPT_PAGE)?;
    let mut out = ListPromptsResult::with_all_items(skills.iter().map(record).collect())
        .with_ttl_ms(state.ttl_ms)
        .with_cache_scope(CacheScope::Public);
    out.next_cursor = next;
    out.meta = state.meta();
    Ok(out)
}

/// `prompts/get`: the skill's SKILL.md, embedded, then what to do. An unknown prompt or argument,
/// or a `task` that is not a string, is `-32602`.
pub(crate) fn get(
    state: &State,
    name: &str,
    arguments: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Result<GetPromptResult, McpError> {
    let catalog = state.query().catalog();
    let skill = find(state, name)?;
    let mut task = None;
    for (key, value) in arguments.into_iter().flatten() {
        match (key.as_str(), value) {
            (TASK, serde_json::Value::String(s)) => task = Some(s.as_str()).filter(|s| !s.trim().is_empty()),
            (TASK, serde_json::Value::Null) => {}
            (TASK, _) => return Err(bad_argument(name, "argument `task` must be a string")),
            (other, _) => {
                return Err(bad_argument(
                    name,
                    &format!(
                        "prompt `{name}` has no argument `{}`; its only argument is `task`",
                        errors::printable(other)
                    ),
                ));
            }
        }
    }
    let document = catalog.entries.get(skill.document as usize).and_then(|e| Some((e, e.text()?)));
    let Some((entry, text)) = document else {
        return Err(McpError::internal_error(format!("the SKILL.md of skill `{name}` is not text"), None));
    };
    let resource = ResourceContents::TextResourceContents {
        uri: entry.uri.clone(),
        mime_type: Some(entry.mime.clone()),
        text: text.to_owned(),
        meta: None,
    };
    let ask = match task {
        Some(task) => format!("Follow the `{name}` skill above for this task:\n\n{task}"),
        None => format!("Follow the `{name}` skill above. Ask me what to apply it to if that is not clear."),
    };
    let messages = vec![
        PromptMessage::new(Role::User, ContentBlock::resource(resource)),
        PromptMessage::new_text(Role::User, ask),
    ];
    let mut out = GetPromptResult::new(messages).with_description(skill.description.clone());
    out.meta = state.meta();
    Ok(out)
}

/// `completion/complete` for a prompt argument: `task` is free text, so there is nothing to
/// offer; an unknown prompt or argument is `-32602`.
pub(crate) fn complete(state: &State, prompt: &str, argument: &str) -> Result<CompletionInfo, McpError> {
    find(state, prompt)?;
    if argument != TASK {
        return Err(errors::bad_completion(&format!(
            "prompt `{}` has no argument `{}` (it has: task)",
            errors::printable(prompt),
            errors::printable(argument)
        )));
    }
    CompletionInfo::new(Vec::new()).map_err(|e| McpError::internal_error(e, None))
}

/// The skill a prompt is named after, or `-32602` with the nearest name.
fn find<'a>(state: &'a State, name: &str) -> Result<&'a Skill, McpError> {
    let query = state.query();
    if let Some(skill) = query.skill(name) {
        return Ok(skill);
    }
    let near = query.nearest_skill_names(name).into_iter().next();
    let message = match &near {
        Some(n) => format!("unknown prompt `{}`; did you mean `{n}`?", errors::printable(name)),
        None => format!("unknown prompt `{}`; prompts/list names every prompt", errors::printable(name)),
    };
    let repair = match near {
        Some(n) => errors::repair("prompts/get", json!({ "name": n }), "get the suggested prompt"),
        None => errors::repair("prompts/list", json!({}), "list the prompts: one per skill"),
    };
    Err(McpError::invalid_params(message, Some(json!({ "name": errors::printable(name), "repair": repair }))))
}

fn bad_argument(name: &str, message: &str) -> McpError {
    McpError::invalid_params(
        message.to_owned(),
        Some(json!({
            "repair": errors::repair("prompts/get", json!({ "name": name, "arguments": { "task": "…" } }), "pass only `task`, as a string"),
        })),
    )
}
