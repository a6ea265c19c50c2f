//! Every JSON-RPC error the server sends, built in one place so each carries `data.repair`: a real
//! next step (a method, a tool call or a URI) a client or model can take to recover.
//!
//! Protocol errors only: tool failures are `isError` results (see `tools.rs`), never these.

use rmcp::ErrorData as McpError;
use serde_json::{Value, json};

use super::tool_names::ToolName;
use crate::catalog::uri::echo;

/// A recovery hint: what to call next, with which arguments.
pub(crate) fn repair(method: &str, params: Value, hint: &str) -> Value {
    json!({ "method": method, "params": params, "hint": hint })
}

/// Unknown resource URI: `resource_not_found` (`-32602` for 2026-07-28 peers, `-32002` for legacy
/// sessions; rmcp rewrites the code per peer) with `data.uri`.
pub(crate) fn resource_not_found(uri: &str, suggestion: Option<&str>, message: &str) -> McpError {
    let next = match suggestion {
        Some(s) => repair("resources/read", json!({ "uri": s }), "read the suggested URI"),
        None => repair(
            "tools/call",
            json!({ "name": ToolName::SearchPatterns.as_str(), "arguments": { "query": last_segment(uri) } }),
            "search the catalog, or call resources/list to see every URI",
        ),
    };
    McpError::resource_not_found(clip_quoted(message), Some(json!({ "uri": echo(uri), "repair": next })))
}

/// A read whose URI is malformed, attempts traversal, or selects what does not exist: `-32602`.
pub(crate) fn invalid_read(uri: &str, param: &str, message: &str, hint: &str) -> McpError {
    let next = match param {
        // Sections and line ranges are listed by the entry's detail record.
        "section" | "lines" | "start_line" | "end_line" => repair(
            "tools/call",
            json!({ "name": ToolName::GetPatternById.as_str(), "arguments": { "id": strip_query(uri) } }),
            hint,
        ),
        // An index page: the same URI without the offending parameter is a valid read.
        "cursor" | "limit" if uri.contains('?') => {
            repair("resources/read", json!({ "uri": without_param(uri, param) }), hint)
        }
        _ => repair("resources/templates/list", json!({}), hint),
    };
    McpError::invalid_params(
        clip_quoted(message),
        Some(json!({ "uri": echo(uri), "param": param, "repair": next })),
    )
}

/// A record the catalog holds but cannot serve (a forged or damaged file): `-32603`, since the
/// request is sound and another read may succeed.
pub(crate) fn corrupt_catalog(uri: &str, message: &str) -> McpError {
    McpError::internal_error(
        message.to_owned(),
        Some(
            json!({ "uri": uri, "repair": { "hint": "the server's operator must rebuild the catalog with `folio build`" } }),
        ),
    )
}

/// `uri` with every `param=…` pair of its query string removed.
fn without_param(uri: &str, param: &str) -> String {
    let Some((base, query)) = uri.split_once('?') else { return uri.to_owned() };
    let kept: Vec<&str> =
        query.split('&').filter(|pair| !pair.is_empty() && pair.split('=').next() != Some(param)).collect();
    if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) }
}

fn strip_query(uri: &str) -> &str {
    uri.split_once('?').map_or(uri, |(base, _)| base)
}

/// A cursor this server did not issue (or issued for another catalog): `-32602`.
pub(crate) fn bad_cursor(method: &str) -> McpError {
    McpError::invalid_params(
        format!("invalid cursor for `{method}`: it was not issued by this catalog"),
        Some(json!({
            "repair": repair(method, json!({}), "start again from the first page (omit `cursor`)"),
        })),
    )
}

/// A cursor issued by a catalog that has since been replaced (`serve --watch`, SIGHUP): `-32602`.
pub(crate) fn stale_cursor(method: &str) -> McpError {
    McpError::invalid_params(
        format!(
            "stale cursor for `{method}`: the catalog changed since this cursor was issued; restart the \
             listing from the first page"
        ),
        Some(json!({
            "repair": repair(method, json!({}), "restart the listing: call it again without `cursor`"),
        })),
    )
}

/// `resources/subscribe` outside a session (a stateless request): `-32600`, with the 2026-07-28
/// way to get the same notifications.
pub(crate) fn needs_session(method: &str) -> McpError {
    McpError::invalid_request(
        format!(
            "`{method}` needs a 2025-11-25 session (stdio); stateless requests subscribe with `subscriptions/listen`"
        ),
        Some(json!({
            "repair": repair(
                "subscriptions/listen",
                json!({ "notifications": { "resourceSubscriptions": [] } }),
                "open a listen stream naming the URIs to watch",
            ),
        })),
    )
}

/// `resources/subscribe` past the per-session cap (`limit`, notify's): `-32602`, with the limit
/// and what to do.
pub(crate) fn too_many_subscriptions(limit: usize) -> McpError {
    McpError::invalid_params(
        format!(
            "this session already watches {limit} URIs, the most one session may; \
             unsubscribe from one first, or watch `notifications/resources/list_changed` instead"
        ),
        Some(json!({
            "limit": limit,
            "repair": repair("resources/unsubscribe", json!({ "uri": "<a subscribed URI>" }), "free a subscription first"),
        })),
    )
}

/// A `cursor` that is not a string (rmcp would read it as no cursor and answer the first page).
/// `uri` is the request's `uri` param, kept in the repair of `resources/directory/read`.
pub(crate) fn cursor_type(method: &str, kind: &str, uri: Option<&str>) -> McpError {
    let params = match uri {
        Some(uri) => json!({ "uri": echo(uri) }),
        None => json!({}),
    };
    McpError::invalid_params(
        format!(
            "invalid `cursor` for `{method}`: {kind}, not a string; pass back `nextCursor` exactly as received"
        ),
        Some(json!({
            "param": "cursor",
            "repair": repair(method, params, "start again from the first page (omit `cursor`)"),
        })),
    )
}

/// Unknown tool name: `-32602` (never `-32601`, which HTTP maps to 404).
pub(crate) fn unknown_tool(name: &str) -> McpError {
    McpError::invalid_params(
        format!("unknown tool `{}`", printable(name)),
        Some(json!({
            "tool": echo(name),
            "repair": repair("tools/list", json!({}), "call one of the tools tools/list names"),
        })),
    )
}

/// `skills/get` or `resources/directory/read` on something that is not a served skill or directory.
pub(crate) fn not_a_skill(uri: &str, suggestion: Option<&str>) -> McpError {
    let message = match suggestion {
        Some(s) => format!("no skill is served at `{}`; did you mean `{s}`?", printable(uri)),
        None => format!("no skill is served at `{}`", printable(uri)),
    };
    let next = match suggestion {
        Some(s) => repair("skills/get", json!({ "uri": s }), "get the suggested skill"),
        None => repair("skills/list", json!({}), "list the served skills"),
    };
    McpError::invalid_params(message, Some(json!({ "uri": echo(uri), "repair": next })))
}

/// `resources/directory/read` on a URI that is not a skill directory, or with a bad cursor.
pub(crate) fn not_a_directory(uri: &str, message: &str, bad_cursor: bool) -> McpError {
    let next = if bad_cursor {
        repair(
            "resources/directory/read",
            json!({ "uri": uri }),
            "start again from the first page (omit `cursor`)",
        )
    } else {
        repair("skills/list", json!({}), "skill directories are the skill URIs without `/SKILL.md`")
    };
    McpError::invalid_params(clip_quoted(message), Some(json!({ "uri": echo(uri), "repair": next })))
}

/// `completion/complete` for a template or argument this server does not define (`what` quotes
/// client input already capped, with [`printable`] or [`clip_quoted`]).
pub(crate) fn bad_completion(what: &str) -> McpError {
    McpError::invalid_params(
        what.to_owned(),
        Some(json!({
            "repair": repair("resources/templates/list", json!({}), "complete a variable of a listed template"),
        })),
    )
}

/// A known method whose params do not deserialize (rmcp routes those to `on_custom_request`).
pub(crate) fn malformed_params(method: &str) -> McpError {
    let example = match method {
        "resources/read" => json!({ "uri": "resource://catalog/about" }),
        "tools/call" => {
            json!({ "name": ToolName::SearchPatterns.as_str(), "arguments": { "query": "install" } })
        }
        "skills/get" => json!({ "uri": "skill://<skill-path>/SKILL.md" }),
        "prompts/get" => json!({ "name": "<skill-name>", "arguments": { "task": "…" } }),
        "resources/directory/read" => json!({ "uri": "skill://<skill-path>" }),
        "completion/complete" => json!({
            "ref": { "type": "ref/resource", "uri": "resource://docs/{+path}" },
            "argument": { "name": "path", "value": "" },
        }),
        "subscriptions/listen" => json!({ "notifications": {} }),
        _ => json!({}),
    };
    McpError::invalid_params(
        format!("invalid params for `{method}`"),
        Some(json!({ "method": method, "repair": repair(method, example, "send params shaped like this") })),
    )
}

/// An unknown method: `-32601`, with the methods this server does answer.
pub(crate) fn unknown_method(method: &str) -> McpError {
    McpError::new(
        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
        format!("unknown method `{}`", printable(method)),
        Some(json!({
            "method": echo(method),
            "repair": repair("server/discover", json!({}), "see the capabilities this server declares"),
        })),
    )
}

/// The last path segment of a URI without its extension, as a search query.
fn last_segment(uri: &str) -> String {
    let tail = uri.trim_end_matches("/SKILL.md").rsplit(['/', ':']).find(|s| !s.is_empty()).unwrap_or(uri);
    let tail = tail.split(['?', '#']).next().unwrap_or(tail);
    let stem = tail.rsplit_once('.').map_or(tail, |(stem, _)| stem);
    stem.replace(['-', '_'], " ").chars().take(100).collect()
}

/// Caps the fields of an error's `data` that echo client input, whoever built the error: ours
/// are capped already, but rmcp's unsupported-version error echoes the requested version whole.
pub(crate) fn cap_echoes(error: &mut McpError) {
    if let Some(Value::Object(data)) = &mut error.data {
        for key in ["requested", "uri", "method", "tool"] {
            if let Some(Value::String(s)) = data.get_mut(key)
                && s.len() > crate::catalog::uri::ECHO_BYTES
            {
                *s = echo(s).into_owned();
            }
        }
    }
}

/// A value safe to echo in a one-line message: capped like every echo of client input
/// ([`echo`]), control characters escaped.
pub(crate) fn printable(s: &str) -> String {
    echo(s).chars().flat_map(char::escape_debug).collect()
}

/// A message whose backquoted names (client input, by the house style) are each capped with
/// [`echo`]: the query layer quotes what the client asked for, and a 16 MiB name must not come
/// back whole.
pub(crate) fn clip_quoted(message: &str) -> String {
    if message.len() <= crate::catalog::uri::ECHO_BYTES {
        return message.to_owned();
    }
    let mut out = String::with_capacity(message.len().min(4096));
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        // Odd parts are inside backquotes.
        out.push_str(if i % 2 == 1 { echo(part) } else { std::borrow::Cow::Borrowed(part) }.as_ref());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_hint_uses_the_last_segment() {
        assert_eq!(last_segment("resource://docs/guides/getting-started.md"), "getting started");
        assert_eq!(last_segment("skill://pdff/SKILL.md"), "pdff");
        assert_eq!(last_segment("resource://docs/a.md?section=x"), "a");
    }

    #[test]
    fn repairs_drop_the_offending_parameter() {
        let index = "resource://catalog/docs_index";
        assert_eq!(without_param(&format!("{index}?q=x&cursor=zz"), "cursor"), format!("{index}?q=x"));
        assert_eq!(without_param(&format!("{index}?cursor=zz"), "cursor"), index);
        assert_eq!(without_param("resource://catalog/about", "cursor"), "resource://catalog/about");
    }

    #[test]
    fn printable_escapes_control_characters_and_truncates() {
        assert_eq!(printable("a\0b\n"), "a\\0b\\n");
        assert_eq!(printable(&"x".repeat(300)), format!("{}…(300 bytes)", "x".repeat(256)));
    }

    #[test]
    fn quoted_names_in_messages_are_capped() {
        let long = "y".repeat(1000);
        assert_eq!(
            clip_quoted(&format!("no doc `{long}.md`; did you mean `a.md`?")),
            format!("no doc `{}…(1003 bytes)`; did you mean `a.md`?", "y".repeat(256))
        );
        assert_eq!(clip_quoted("no doc `a.md`"), "no doc `a.md`");
    }
}
