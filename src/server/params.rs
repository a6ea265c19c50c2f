//! The one request parameter rmcp cannot check for us: the JSON type of `cursor`.
//!
//! rmcp reads paginated params into an optional, flattened struct, and serde turns a field of
//! the wrong type there into "no params at all": `{"cursor":123}` would list the first page. So
//! each transport looks at the raw message first and marks a request whose `cursor` is present,
//! not `null` and not a string with [`BadCursor`] (stdio on the request itself, HTTP on the HTTP
//! request rmcp hands to the handler), and the handler of every paginated method answers such a
//! request `-32602` ([`check`]). The answer comes from the handler, after rmcp's own checks of
//! the request (protocol version, lifecycle, Origin and Host).

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use rmcp::ErrorData as McpError;
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetExtensions as _};
use rmcp::service::RequestContext;
use serde::Deserialize;
use serde_json::Value;

use super::errors;

/// Methods whose params carry a `cursor`.
const PAGINATED: &[&str] = &[
    "resources/list",
    "resources/templates/list",
    "resources/directory/read",
    "tools/list",
    "skills/list",
    "prompts/list",
];

/// A request whose `cursor` is of the wrong JSON type: what it was, and the request's `uri`
/// (kept in the repair of `resources/directory/read`).
#[derive(Debug, Clone)]
pub(crate) struct BadCursor {
    kind: &'static str,
    uri: Option<String>,
}

/// The [`BadCursor`] of a paginated request's raw JSON, if its cursor is of the wrong type.
pub(crate) fn find(message: &[u8]) -> Option<BadCursor> {
    #[derive(Deserialize)]
    struct Probe {
        method: Option<String>,
        params: Option<Params>,
    }
    #[derive(Deserialize)]
    struct Params {
        cursor: Option<Value>,
        uri: Option<Value>,
    }
    // Params of another shape (or no JSON at all) are rmcp's to refuse.
    let probe = serde_json::from_slice::<Probe>(message).ok()?;
    if !PAGINATED.contains(&probe.method?.as_str()) {
        return None;
    }
    let params = probe.params?;
    let kind = match params.cursor? {
        Value::Null | Value::String(_) => return None,
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let uri = match params.uri {
        Some(Value::String(uri)) => Some(uri),
        _ => None,
    };
    Some(BadCursor { kind, uri })
}

/// Marks a request read from a line (stdio) when its cursor is of the wrong type.
pub(crate) fn mark(line: &[u8], message: &mut ClientJsonRpcMessage) {
    let ClientJsonRpcMessage::Request(request) = message else { return };
    let method = match &request.request {
        ClientRequest::CustomRequest(custom) => custom.method.as_str(),
        other => other.method(),
    };
    // Only paginated requests are read a second time.
    if PAGINATED.contains(&method)
        && let Some(bad) = find(line)
    {
        request.request.extensions_mut().insert(bad);
    }
}

/// Middleware of `/mcp`, inside the one that reads the body within its limits: marks the HTTP
/// request when its body is a paginated request with a cursor of the wrong type.
pub(crate) async fn mark_http(request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    // The body is already in memory (read within the size limit by the outer layer).
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return next.run(Request::from_parts(parts, axum::body::Body::empty())).await;
    };
    if let Some(bad) = find(&bytes) {
        parts.extensions.insert(bad);
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

/// `-32602` when the request being handled was marked [`BadCursor`] by its transport.
pub(crate) fn check(ctx: &RequestContext<RoleServer>, method: &str) -> Result<(), McpError> {
    let bad = ctx.extensions.get::<BadCursor>().or_else(|| {
        ctx.extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<BadCursor>())
    });
    match bad {
        Some(bad) => Err(errors::cursor_type(method, bad.kind, bad.uri.as_deref())),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_wrong_types_on_paginated_methods_are_marked() {
        let kind = |line: &str| find(line.as_bytes()).map(|b| b.kind);
        assert_eq!(kind(r#"{"method":"tools/list","params":{"cursor":1}}"#), Some("a number"));
        assert_eq!(kind(r#"{"method":"skills/list","params":{"cursor":{}}}"#), Some("an object"));
        assert_eq!(kind(r#"{"method":"prompts/list","params":{"cursor":123}}"#), Some("a number"));
        assert_eq!(kind(r#"{"params":{"cursor":[1]},"method":"resources/list"}"#), Some("an array"));
        assert_eq!(
            kind(r#"{"method":"resources/templates/list","params":{"cursor":true}}"#),
            Some("a boolean")
        );
        for fine in [
            r#"{"method":"tools/list","params":{"cursor":"c"}}"#,
            r#"{"method":"tools/list","params":{"cursor":null}}"#,
            r#"{"method":"tools/list","params":{}}"#,
            r#"{"method":"tools/list"}"#,
            r#"{"method":"tools/call","params":{"cursor":1}}"#,
            r#"{"method":"tools/list","params":[1]}"#,
            "not json",
        ] {
            assert_eq!(kind(fine), None, "{fine}");
        }
        let bad = find(br#"{"method":"resources/directory/read","params":{"uri":"skill://a","cursor":2}}"#);
        assert_eq!(bad.and_then(|b| b.uri).as_deref(), Some("skill://a"));
    }
}
