//! The rules of Streamable HTTP at an MCP path, each with its exact status (checklist #21):
//! stateless JSON answers, Host and Origin checks, methods, notifications, the `Mcp-Method` and
//! `Mcp-Name` headers, versions, body limits. Each rule set is a function of the path, so a
//! shelf's `/mcp/<name>@<version>` is held to the rules of one catalog's `/mcp` (tests/it/shelf.rs).

use std::net::SocketAddr;

use folio::server::HttpOptions;
use serde_json::json;

use crate::mcp::{V_MODERN, modern_meta};
use crate::mcp_http::{Reply, Running, exchange, rpc_at};

// checklist #21
#[tokio::test]
async fn http_serves_modern_requests_statelessly_as_json() {
    let srv = Running::start(HttpOptions::default()).await;
    stateless_json_at(srv.addr, "/mcp").await;
    srv.shutdown().await;
}

/// The server at `path` answers modern requests statelessly as JSON, JSON-RPC errors in a 200.
pub(crate) async fn stateless_json_at(addr: SocketAddr, path: &str) {
    let r = rpc_at(addr, path, "server/discover", json!({}), &[]).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.header("content-type").unwrap().starts_with("application/json"));
    assert!(r.header("mcp-session-id").is_none(), "never a session id");
    let v = r.json();
    assert_eq!(v["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "corpora");
    assert_eq!(v["result"]["cacheScope"], "public");
    let r = rpc_at(addr, path, "resources/read", json!({ "uri": "resource://catalog/about" }), &[]).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(r.json()["result"]["contents"][0]["text"].as_str().unwrap().starts_with("# "));
    let r = rpc_at(
        addr,
        path,
        "tools/call",
        json!({ "name": "search_patterns", "arguments": { "query": "hugo" } }),
        &[],
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["isError"], json!(false));
    // Unknown resource: a JSON-RPC error in a 200 (not a transport error).
    let r = rpc_at(addr, path, "resources/read", json!({ "uri": "resource://docs/none.md" }), &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], json!(-32602));
    // Unknown tool: -32602 in a 200, never a 404.
    let r = rpc_at(addr, path, "tools/call", json!({ "name": "nope", "arguments": {} }), &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], json!(-32602));
    // Malformed params on a known method: -32602, not a 404.
    let r = rpc_at(addr, path, "skills/get", json!({}), &[]).await;
    assert_eq!(r.json()["error"]["code"], json!(-32602), "{r:?}");
}

// checklist #21
#[tokio::test]
async fn http_transport_rules_give_exact_statuses() {
    let srv = Running::start(HttpOptions::default()).await;
    let a = srv.addr;
    transport_rules_at(a, "/mcp").await;
    // Health.
    let h = exchange(a, "GET", "/healthz", &[], b"").await;
    assert_eq!(h.status, 200);
    assert_eq!(h.json()["status"], "ok");
    assert_eq!(h.json()["name"], "corpora", "the project the catalog names");
    let hash = h.json()["catalog_hash"].as_str().unwrap().to_owned();
    assert!(hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()), "the catalog it serves: {hash}");
    // It names the server and what it serves: a foreign Host or Origin is refused, as on /mcp.
    for foreign in [("Host", "evil.example.com"), ("Origin", "https://evil.example")] {
        let h = exchange(a, "GET", "/healthz", &[foreign], b"").await;
        assert_eq!(h.status, 403, "{foreign:?}: {h:?}");
        assert!(!h.body.contains("corpora"), "{foreign:?}: {h:?}");
    }
    srv.shutdown().await;
}

/// The transport rules of Streamable HTTP at `path`, each with its exact status.
pub(crate) async fn transport_rules_at(a: SocketAddr, path: &str) {
    // Foreign Host (DNS rebinding) and foreign Origin → 403.
    assert_eq!(
        rpc_at(a, path, "server/discover", json!({}), &[("Host", "evil.example.com")]).await.status,
        403
    );
    assert_eq!(
        rpc_at(a, path, "server/discover", json!({}), &[("Origin", "https://evil.example")]).await.status,
        403
    );
    assert_eq!(
        rpc_at(a, path, "server/discover", json!({}), &[("Origin", "http://localhost.evil.example")])
            .await
            .status,
        403
    );
    assert_eq!(rpc_at(a, path, "server/discover", json!({}), &[("Origin", "null")]).await.status, 403);
    // Pages on this machine are browser origins like any other: none is allowed by default.
    assert_eq!(
        rpc_at(a, path, "server/discover", json!({}), &[("Origin", "http://localhost:3000")]).await.status,
        403
    );
    assert_eq!(
        rpc_at(a, path, "server/discover", json!({}), &[("Origin", "http://127.0.0.1:8080")]).await.status,
        403
    );
    // GET and DELETE → 405.
    let get = exchange(a, "GET", path, &[("Accept", "text/event-stream")], b"").await;
    assert_eq!(get.status, 405);
    assert!(get.header("allow").is_some_and(|v| v.contains("POST")), "{get:?}");
    assert_eq!(exchange(a, "DELETE", path, &[], b"").await.status, 405);
    // A notification → 202 with an empty body.
    let body = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 1, "_meta": modern_meta() } });
    let r = post(
        a,
        path,
        &[("MCP-Protocol-Version", V_MODERN), ("Mcp-Method", "notifications/cancelled")],
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(r.status, 202, "{r:?}");
    assert!(r.body.is_empty());
    // Missing or mismatched Mcp-Method / Mcp-Name → 400 with -32020.
    let body =
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": modern_meta() } })
            .to_string();
    let r = post(a, path, &[("MCP-Protocol-Version", V_MODERN)], body.as_bytes()).await;
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["code"], json!(-32020));
    let r = rpc_at(a, path, "tools/list", json!({}), &[("Mcp-Method", "resources/list")]).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], json!(-32020));
    let r = rpc_at(
        a,
        path,
        "resources/read",
        json!({ "uri": "resource://catalog/about" }),
        &[("Mcp-Name", "resource://x")],
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], json!(-32020));
    // Unknown method → 404 with -32601.
    let r = rpc_at(a, path, "resources/delete", json!({}), &[]).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["code"], json!(-32601));
    // Unsupported protocol version → 400 with -32022.
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let body =
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": meta } }).to_string();
    let r = post(
        a,
        path,
        &[("MCP-Protocol-Version", "1900-01-01"), ("Mcp-Method", "tools/list")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["code"], json!(-32022));
    // Missing clientCapabilities → 400 with -32602.
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": { "io.modelcontextprotocol/protocolVersion": V_MODERN } } }).to_string();
    let r =
        post(a, path, &[("MCP-Protocol-Version", V_MODERN), ("Mcp-Method", "tools/list")], body.as_bytes())
            .await;
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["code"], json!(-32602));
    // Bodies over the limit → 413; the server keeps serving.
    let huge = vec![b' '; folio::server::transport::MAX_BODY_BYTES + 1024];
    let r = post(a, path, &[("MCP-Protocol-Version", V_MODERN), ("Mcp-Method", "tools/list")], &huge).await;
    assert_eq!(r.status, 413, "{r:?}");
    assert_eq!(rpc_at(a, path, "tools/list", json!({}), &[]).await.status, 200);
}

/// A POST to `path` with the headers every MCP request has (JSON in, JSON or SSE accepted) and
/// `headers`.
async fn post(a: SocketAddr, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut all =
        vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    all.extend_from_slice(headers);
    exchange(a, "POST", path, &all, body).await
}
