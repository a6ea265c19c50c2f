//! JSON-RPC error answers the HTTP layer gives itself: a body that is not a JSON-RPC message
//! (400 with `-32700` parse error or `-32600` invalid request), and the shape every such
//! answer shares (`application/json`, the request's `id` when it can be read, `null`
//! otherwise, as JSON-RPC 2.0 says).
//!
//! rmcp answers 415 both for a wrong `Content-Type` and for a body it cannot deserialize; only
//! the first is a media-type problem, so [`explain_bad_bodies`] rewrites the second. It also
//! refuses what rmcp would take although JSON-RPC does not: a member given twice and an `id`
//! that is a number but not an integer (see `wire::malformed`).

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::server::limits::ReadBody;

/// JSON-RPC 2.0: the body is not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: JSON, but not a valid request object.
pub(crate) const INVALID_REQUEST: i64 = -32600;

/// A JSON-RPC error object as an HTTP answer with `status` and `headers`.
pub(crate) fn error_response(
    status: StatusCode,
    headers: &[(HeaderName, HeaderValue)],
    id: Value,
    code: i64,
    message: &str,
) -> Response {
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
    let mut response =
        (status, [(header::CONTENT_TYPE, "application/json")], format!("{body}\n")).into_response();
    for (name, value) in headers {
        response.headers_mut().insert(name.clone(), value.clone());
    }
    response
}

/// The `id` of a JSON-RPC message when it is a string or a number, `null` otherwise.
pub(crate) fn request_id(body: &[u8]) -> Value {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<Value>,
    }
    match serde_json::from_slice::<IdOnly>(body) {
        Ok(IdOnly { id: Some(id @ (Value::String(_) | Value::Number(_))) }) => id,
        _ => Value::Null,
    }
}

/// True when `Content-Type` is `application/json` (parameters aside), as rmcp requires.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or_default().trim())
        .is_some_and(|essence| essence.eq_ignore_ascii_case("application/json"))
}

/// Middleware (inside `read_body_within`): when rmcp refuses a JSON-typed body it could not
/// deserialize (its 415), answers 400 with what JSON-RPC says instead: `-32700` for a body that
/// is not JSON (empty, truncated, not JSON at all), `-32600` for JSON that is not one JSON-RPC
/// message (a batch array, an object without `jsonrpc` or `method`). The happy path costs
/// nothing: the body is looked at only after such a refusal.
pub(crate) async fn explain_bad_bodies(request: Request, next: Next) -> Response {
    let json_typed = is_json(request.headers());
    let body = request.extensions().get::<ReadBody>().map(|b| b.0.clone());
    // What rmcp would take without a word: a member given twice, a fractional id.
    if let Some(bad) = body.as_deref().filter(|_| json_typed).and_then(crate::server::wire::malformed) {
        let id = bad.id.map_or(Value::Null, |id| id.into_json_value());
        return error_response(
            StatusCode::BAD_REQUEST,
            &[],
            id,
            INVALID_REQUEST,
            &format!("invalid request: {}", bad.why),
        );
    }
    let response = next.run(request).await;
    match body {
        Some(body) if json_typed && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            let (code, message) = classify(&body);
            let id = if code == PARSE_ERROR { Value::Null } else { request_id(&body) };
            error_response(StatusCode::BAD_REQUEST, &[], id, code, &message)
        }
        _ => response,
    }
}

/// Why `body` is not a JSON-RPC message: its code and a message saying what to send instead.
fn classify(body: &[u8]) -> (i64, String) {
    if body.iter().all(u8::is_ascii_whitespace) {
        return (PARSE_ERROR, "parse error: the request body is empty; send one JSON-RPC message".into());
    }
    match serde_json::from_slice::<Value>(body) {
        Err(e) => (PARSE_ERROR, format!("parse error: the request body is not valid JSON ({e})")),
        Ok(Value::Array(_)) => (
            INVALID_REQUEST,
            "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 and later removed \
             batching); send one message per POST"
                .into(),
        ),
        Ok(_) => (
            INVALID_REQUEST,
            "invalid request: the body is not a JSON-RPC 2.0 request, notification or response \
             (it needs `\"jsonrpc\": \"2.0\"` and a `method`, or a `result` or `error`)"
                .into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_classified_as_json_rpc_says() {
        assert_eq!(classify(b"").0, PARSE_ERROR);
        assert_eq!(classify(b" \r\n").0, PARSE_ERROR);
        let (code, message) = classify(b"{\"jsonrpc\":\"2.0\",");
        assert_eq!(code, PARSE_ERROR);
        assert!(message.contains("line 1 column 17"), "{message}");
        assert_eq!(classify(b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]").0, INVALID_REQUEST);
        assert_eq!(classify(b"{\"id\":1}").0, INVALID_REQUEST);
        assert_eq!(classify(b"42").0, INVALID_REQUEST);
    }

    #[test]
    fn only_string_and_number_ids_are_echoed() {
        assert_eq!(request_id(b"{\"id\":7,\"x\":[1]}"), json!(7));
        assert_eq!(request_id(b"{\"id\":\"a\"}"), json!("a"));
        for body in [&b"{\"id\":{}}"[..], b"{\"id\":null}", b"[]", b"nope", b"{}"] {
            assert_eq!(request_id(body), Value::Null);
        }
    }
}
