//! Request parameters the server must refuse with exact answers: control characters in URIs and
//! huge client input (never echoed back whole). Runs over the in-process line client of `mcp`.

use serde_json::{Value, json};

use crate::mcp::{Wire, error_of, fixture};

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
}
