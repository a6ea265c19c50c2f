//! Request parameters the server must refuse with exact answers: control characters in URIs,
//! huge client input (never echoed back whole) and cursors of the wrong JSON type on every
//! paginated method. Runs over the in-process line client of `mcp`.

use serde_json::{Value, json};

use crate::mcp::{V_MODERN, Wire, error_of, fixture, modern_meta, server};

/// The message of an error answer and its `data.uri`.
#[track_caller]
fn message_and_uri(res: &Value) -> (String, Value) {
    let (code, message, data) = error_of(res);
    assert_eq!(code, -32602, "{res}");
    (message, data["uri"].clone())
}

#[tokio::test]
async fn control_characters_in_uris_get_their_own_message() {
    let doc = &fixture().catalog.docs[0].path;
    let mut w = Wire::start();
    let control =
        "invalid `uri`: contains a control character (such as CR, LF or NUL), raw or percent-encoded";
    for uri in [
        format!("resource://docs/{doc}\r\nX-Injected: 1"),
        "resource://docs/a\nb.md".to_owned(),
        "resource://docs/a\u{0}b.md".to_owned(),
        "resource://docs/a%00b.md".to_owned(),
        "resource://docs/a%0D%0Ab.md".to_owned(),
        format!("resource://docs/{doc}?section=a%00"),
    ] {
        let res = w.call("resources/read", json!({ "uri": uri })).await;
        assert_eq!(message_and_uri(&res), (control.to_owned(), json!(uri)), "{uri:?}");
    }
    // `..` keeps its own message, which no longer names NUL.
    let res = w.call("resources/read", json!({ "uri": "resource://docs/../x.md" })).await;
    assert_eq!(
        message_and_uri(&res).0,
        "invalid `uri`: path has a `.` or `..` segment, an empty segment or a backslash"
    );
}

#[tokio::test]
async fn huge_client_input_is_never_echoed_back_whole() {
    let mut w = Wire::start();
    let head = "y".repeat(256);
    // Over the URI limit: refused before any lookup, echoed capped.
    let uri = format!("resource://docs/{}.md", "y".repeat(15 << 20));
    let res = w.call("resources/read", json!({ "uri": uri })).await;
    let capped = format!("resource://docs/{}…({} bytes)", &head[..240], uri.len());
    assert_eq!(
        message_and_uri(&res),
        (
            format!("invalid `uri`: is {} bytes long; catalog URIs are at most 32768 bytes", uri.len()),
            json!(capped)
        )
    );
    // Under the URI limit but unknown: the quoted path and `data.uri` are capped.
    let path = "y".repeat(30_000);
    let uri = format!("resource://docs/{path}.md");
    let res = w.call("resources/read", json!({ "uri": uri })).await;
    let (message, data_uri) = message_and_uri(&res);
    assert_eq!(message, format!("no doc `{head}…(30003 bytes)`"));
    assert_eq!(data_uri, json!(format!("resource://docs/{}…({} bytes)", &head[..240], uri.len())));
    assert!(res.to_string().len() < 4096, "the whole answer is small: {} bytes", res.to_string().len());
    // Every other place a client string comes back.
    let name = "t".repeat(100_000);
    for (method, params) in [
        ("tools/call", json!({ "name": name, "arguments": {} })),
        ("skills/get", json!({ "uri": format!("skill://{name}/SKILL.md") })),
        ("resources/directory/read", json!({ "uri": format!("skill://{name}") })),
        ("tools/call", json!({ "name": "get_pattern_by_id", "arguments": { "id": name } })),
        ("tools/call", json!({ "name": "list_resources", "arguments": { name.clone(): 1 } })),
        ("tools/call", json!({ "name": "search_patterns", "arguments": { "query": name } })),
        (
            "completion/complete",
            json!({ "ref": { "type": "ref/resource", "uri": name }, "argument": { "name": "x", "value": "" } }),
        ),
        (name.as_str(), json!({})),
    ] {
        let res = w.call(method, params).await;
        let size = res.to_string().len();
        assert!(size < 8192, "{}: answer is {size} bytes", &method[..method.len().min(20)]);
    }
    // rmcp's own answer to an unknown protocol version quotes it: capped on the way out.
    let mut meta = crate::mcp::modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!(name);
    let res = w.call_raw("tools/list", json!({ "_meta": meta })).await;
    assert_eq!(res["error"]["code"], json!(-32022), "{}", &res.to_string()[..200]);
    assert_eq!(res["error"]["data"]["requested"], json!(format!("{}…(100000 bytes)", &name[..256])));
}

#[tokio::test]
async fn cursors_of_the_wrong_json_type_are_invalid_params_on_every_paginated_method() {
    let fx = fixture();
    let dir = format!("skill://{}", fx.catalog.skills[0].path);
    let mut w = Wire::start();
    for (method, base) in [
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("tools/list", json!({})),
        ("skills/list", json!({})),
        ("prompts/list", json!({})),
        ("resources/directory/read", json!({ "uri": dir })),
    ] {
        for (cursor, kind) in [
            (json!(123), "a number"),
            (json!({}), "an object"),
            (json!([1]), "an array"),
            (json!(true), "a boolean"),
        ] {
            let mut params = base.clone();
            params["cursor"] = cursor.clone();
            let res = w.call(method, params).await;
            let (code, message, data) = error_of(&res);
            assert_eq!(
                (code, message.as_str()),
                (-32602, format!("invalid `cursor` for `{method}`: {kind}, not a string; pass back `nextCursor` exactly as received").as_str()),
                "{method} cursor {cursor}"
            );
            assert_eq!(data["repair"]["method"], json!(method), "{res}");
        }
        // `null` is an absent cursor: the first page.
        let mut params = base.clone();
        params["cursor"] = Value::Null;
        let res = w.call(method, params).await;
        assert!(res.get("result").is_some(), "{method} cursor null: {res}");
    }
    // The fallback tools take cursors as arguments: a wrong type is a tool error naming the
    // argument (tool input errors are results with `isError`, as for every other argument).
    for tool in ["list_resources", "search_patterns"] {
        for cursor in [json!(123), json!({}), json!([1]), json!(true)] {
            let mut arguments = json!({ "cursor": cursor });
            if tool == "search_patterns" {
                arguments["query"] = json!("install");
            }
            let res = w.ok("tools/call", json!({ "name": tool, "arguments": arguments })).await;
            assert_eq!(res["isError"], json!(true), "{tool} cursor {cursor}: {res}");
            let text = res["content"][0]["text"].as_str().unwrap();
            assert!(text.starts_with("Invalid arguments: invalid type: "), "{tool}: {text}");
            assert!(text.contains("expected a string"), "{tool}: {text}");
        }
    }
}

/// One modern JSON-RPC request through the HTTP router, in process: status and body.
async fn http_call(method: &str, params: Value) -> (u16, Value) {
    let mut params = params;
    params["_meta"] = modern_meta();
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string();
    http_post(method, &body).await
}

/// `body` POSTed to `/mcp` through the router, in process, as a `method` request: status and
/// body.
async fn http_post(method: &str, body: &str) -> (u16, Value) {
    use tower::ServiceExt as _;
    let request = axum::http::Request::post("/mcp")
        .header("Host", "localhost")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", V_MODERN)
        .header("Mcp-Method", method)
        .body(axum::body::Body::from(body.to_owned()))
        .unwrap();
    let (router, _stop) = folio::server::router(server(), &folio::server::HttpOptions::default());
    let response = router.oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 24).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn over_http_too_a_cursor_of_the_wrong_type_is_invalid_params() {
    let dir = format!("skill://{}", fixture().catalog.skills[0].path);
    for (method, base) in [
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("tools/list", json!({})),
        ("skills/list", json!({})),
        ("prompts/list", json!({})),
        ("resources/directory/read", json!({ "uri": dir })),
    ] {
        let mut params = base.clone();
        params["cursor"] = json!(123);
        let (status, res) = http_call(method, params).await;
        assert_eq!(status, 200, "{method}: {res}");
        assert_eq!(
            res["error"]["message"],
            json!(format!(
                "invalid `cursor` for `{method}`: a number, not a string; pass back `nextCursor` exactly as received"
            )),
            "{method}: {res}"
        );
        let (status, res) = http_call(method, base).await;
        assert_eq!((status, res.get("result").is_some()), (200, true), "{method} without a cursor: {res}");
    }
}

/// A raw body POSTed as a `server/discover` request.
async fn http_post_raw(body: &str) -> (u16, Value) {
    http_post("server/discover", body).await
}

#[tokio::test]
async fn over_http_a_fractional_id_and_a_member_given_twice_are_invalid_requests() {
    let meta = modern_meta();
    let (status, res) = http_post_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":1e-999999,"method":"server/discover","params":{{"_meta":{meta}}}}}"#
    ))
    .await;
    assert_eq!(status, 400, "{res}");
    assert_eq!(
        res,
        json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32600, "message":
            "invalid request: `id` 1e-999999 is not an integer or a string (MCP request ids are strings or integers)" } })
    );
    let (status, res) = http_post_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{{"_meta":{meta}}},"params":{{}}}}"#
    ))
    .await;
    assert_eq!(status, 400, "{res}");
    assert_eq!(
        res,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32600, "message":
            "invalid request: the member `params` is given twice; send each member of the object once" } })
    );
    // The same request written once is answered.
    let (status, res) = http_post_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{{"_meta":{meta}}}}}"#
    ))
    .await;
    assert_eq!((status, res["id"].clone(), res.get("result").is_some()), (200, json!(3), true), "{res}");
}
