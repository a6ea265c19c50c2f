//! Streamable HTTP against hostile or broken clients, on a real socket (127.0.0.1:0) with raw
//! HTTP/1.1: the shutdown deadline, the listen-stream budget, the connection budget under a
//! slowloris from loopback, early 413, JSON-RPC answers for bodies that are not JSON-RPC, and
//! the Host and Origin rules. The limits are scaled down through [`HttpLimits`] so each test
//! opens a handful of sockets.

use std::net::SocketAddr;
use std::time::Duration;

use folio::server::{FolioServer, HttpLimits, HttpOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;
use tokio::time::timeout;

use super::mcp::{V_MODERN, modern_meta};
use super::mcp_http::{Running, exchange, open_listen, parse_reply, read_until_closed, rpc};
use super::support::Tree;

/// A guard against a test hanging, not a measure of speed: far longer than anything here waits
/// for legitimately. The behaviour under test is one that, when broken, never ends (a wait for an
/// hour-long timeout), so a broken build fails here instead of blocking the suite.
const HANG: Duration = Duration::from_secs(60);

/// A content tree whose one doc is read whole in a single answer of about 8 MB (4 MB of `"`,
/// each escaped in JSON): more than a loopback socket's buffers hold, so the answer to a
/// client that does not read stays half-written.
fn big_tree() -> Tree {
    let tree = Tree::new();
    let line = format!("{}\n", "\"".repeat(99));
    tree.file("folio.toml", "[server]\nmax_read_bytes = 16777216\n").file(
        "docs/big.md",
        format!("---\ntitle: Big\ndescription: One large doc.\n---\n\n# Big\n\n{}", line.repeat(40_000)),
    );
    tree
}

fn big_server(tree: &Tree) -> FolioServer {
    let compilation = folio::compile::compile(&folio::compile::Config::new(tree.path().to_path_buf()));
    FolioServer::from_catalog(compilation.catalog.expect("the big tree compiles")).unwrap()
}

/// The raw request for the whole big doc.
fn big_read(port: u16) -> Vec<u8> {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "resources/read",
        "params": { "uri": "resource://docs/big.md", "_meta": modern_meta() },
    })
    .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {V_MODERN}\r\n\
         Mcp-Method: resources/read\r\nMcp-Name: resource://docs/big.md\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A client that pipelines `requests` reads of the big doc, reads the first status line and
/// then stops reading (with a small receive buffer), so the server's answer never finishes.
async fn stalled_reader(addr: SocketAddr, requests: usize) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    stream.write_all(&big_read(addr.port()).repeat(requests)).await.unwrap();
    let mut status = [0u8; 12];
    timeout(Duration::from_secs(10), stream.read_exact(&mut status))
        .await
        .expect("the answer starts")
        .unwrap();
    assert_eq!(&status, b"HTTP/1.1 200");
    stream
}

// issue 20, item 5 (in process)
#[tokio::test]
async fn shutdown_drops_connections_that_stop_reading_after_the_deadline() {
    let tree = big_tree();
    let limits = HttpLimits::default().with_shutdown_timeout(Duration::from_millis(300));
    let srv = Running::start_with(big_server(&tree), HttpOptions::default().with_limits(limits)).await;
    let mut stalled = stalled_reader(srv.addr, 2).await;
    // `shutdown` allows 10 s; the deadline ends the drain long before.
    srv.shutdown().await;
    // The connection was dropped, not finished: reading now ends before the whole answer.
    let mut rest = Vec::new();
    let _ = timeout(Duration::from_secs(10), stalled.read_to_end(&mut rest)).await.expect("closed");
    assert!(rest.len() < 8_000_000, "the answer was finished ({} bytes)", rest.len());
}

// issue 20, item 5 (the real binary, SIGTERM)
#[tokio::test]
async fn sigterm_ends_the_binary_although_a_client_stops_reading() {
    let tree = big_tree();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["serve", "--http", "0", "--shutdown-timeout", "1", "--content"])
        .arg(tree.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("serving Streamable HTTP") {
        line.clear();
        let n =
            timeout(Duration::from_secs(20), stderr.read_line(&mut line)).await.expect("startup").unwrap();
        assert!(n > 0, "the server exited before serving");
    }
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap();
    let addr: SocketAddr = url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
    let _stalled = stalled_reader(addr, 3).await;
    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("exits within the shutdown timeout although a client stops reading")
        .unwrap();
    assert!(status.success(), "{status}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).await.unwrap();
    assert!(rest.contains("folio: shut down"), "{rest}");
}

/// The body of a `subscriptions/listen` request with id 9.
fn listen_body() -> String {
    json!({
        "jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
        "params": { "_meta": modern_meta(), "notifications": { "resourcesListChanged": true } },
    })
    .to_string()
}

const LISTEN_HEADERS: [(&str, &str); 4] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
    ("MCP-Protocol-Version", V_MODERN),
    ("Mcp-Method", "subscriptions/listen"),
];

// issue 20, item 6
#[tokio::test]
async fn listen_streams_have_their_own_cap_and_leave_connection_slots_to_requests() {
    let limits = HttpLimits::default().with_max_connections(2).with_max_listen_streams(3);
    let srv = Running::start(HttpOptions::default().with_limits(limits)).await;
    // More listen streams than connection slots are open at once.
    let mut streams = Vec::new();
    for _ in 0..3 {
        streams.push(timeout(Duration::from_secs(5), open_listen(srv.addr)).await.expect("stream opened"));
    }
    // One past their own cap is refused at once, with a JSON-RPC error and when to retry.
    let refused = timeout(
        Duration::from_secs(5),
        exchange(srv.addr, "POST", "/mcp", &LISTEN_HEADERS, listen_body().as_bytes()),
    )
    .await
    .expect("refused at once");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("5"));
    assert_eq!(refused.header("content-type"), Some("application/json"));
    assert_eq!(
        refused.json(),
        json!({ "jsonrpc": "2.0", "id": 9, "error": { "code": -32000,
            "message": "too many `subscriptions/listen` streams are open (at most 3); retry in 5 s" } })
    );
    // Ordinary requests still have both connection slots.
    let (a, b) = tokio::join!(
        rpc(srv.addr, "tools/list", json!({}), &[]),
        rpc(srv.addr, "resources/read", json!({ "uri": "resource://catalog/about" }), &[]),
    );
    assert_eq!((a.status, b.status), (200, 200));
    srv.shutdown().await;
    drop(streams);
}

// issue 20, item 6 (idle limit)
#[tokio::test]
async fn an_idle_listen_stream_ends_and_frees_its_place() {
    let limits =
        HttpLimits::default().with_max_listen_streams(1).with_listen_idle_timeout(Duration::from_millis(200));
    let srv = Running::start(HttpOptions::default().with_limits(limits)).await;
    let (mut reader, headers, ack) = open_listen(srv.addr).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert!(headers.contains(&("connection".into(), "close".into())), "{headers:?}");
    // Nothing happens on it: the server ends it, and closes the connection.
    let mut rest = String::new();
    timeout(Duration::from_secs(5), reader.read_to_string(&mut rest))
        .await
        .expect("the idle stream ends")
        .unwrap();
    assert!(rest.ends_with("0\r\n\r\n"), "a complete chunked body: {rest:?}");
    // Its place is free again.
    let (_reader, _, ack) = timeout(Duration::from_secs(5), open_listen(srv.addr)).await.expect("reopened");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    srv.shutdown().await;
}

// issue 20, item 7
#[tokio::test]
async fn a_full_connection_budget_closes_the_connection_idle_longest_for_a_new_client() {
    // The head timeout is an hour: were the new client to wait for a slow one to time out, the
    // test would hang (and its guard below fail), whatever the machine's speed.
    let limits =
        HttpLimits::default().with_max_connections(3).with_header_read_timeout(Duration::from_secs(3600));
    let srv = Running::start(HttpOptions::default().with_limits(limits)).await;
    // Slowloris from loopback (no per-client cap there): six connections trickle a head.
    let mut slow = Vec::new();
    for _ in 0..6 {
        let mut s = TcpStream::connect(srv.addr).await.unwrap();
        s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
        slow.push(s);
    }
    let r = timeout(HANG, rpc(srv.addr, "tools/list", json!({}), &[]))
        .await
        .expect("served while slow connections fill the budget");
    assert_eq!(r.status, 200, "{r:?}");
    // The oldest slow connection was closed, without an answer, to make room.
    assert_eq!(read_until_closed(&mut slow[0]).await, b"");
    srv.shutdown().await;
}

// issue 20, item 7 (a connection waits on its client again once its answer is sent)
#[tokio::test]
async fn a_kept_alive_connection_gives_its_place_once_answered() {
    // An idle kept-alive connection would otherwise hold its place for the head timeout: an hour.
    let limits =
        HttpLimits::default().with_max_connections(1).with_header_read_timeout(Duration::from_secs(3600));
    let srv = Running::start(HttpOptions::default().with_limits(limits)).await;
    let mut kept = TcpStream::connect(srv.addr).await.unwrap();
    let request = format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", srv.addr.port());
    kept.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    timeout(Duration::from_secs(5), kept.read_exact(&mut head)).await.expect("answered").unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // Answered and idle: the next client takes its place at once.
    let r = timeout(HANG, rpc(srv.addr, "tools/list", json!({}), &[]))
        .await
        .expect("served while an idle kept-alive connection held the only slot");
    assert_eq!(r.status, 200);
    srv.shutdown().await;
}

// issue 20, item 7 (what eviction must not do)
#[tokio::test]
async fn connections_with_a_request_in_hand_are_kept_and_new_clients_wait() {
    let tree = big_tree();
    let limits = HttpLimits::default().with_max_connections(1);
    let srv = Running::start_with(big_server(&tree), HttpOptions::default().with_limits(limits)).await;
    // The only slot holds an answer being written...
    let stalled = stalled_reader(srv.addr, 1).await;
    let addr = srv.addr;
    let mut waiting = tokio::spawn(async move { rpc(addr, "tools/list", json!({}), &[]).await.status });
    // ...so the next client waits instead of taking it. Something that must not happen has no
    // event to wait for: the server gets 300 ms to (wrongly) serve it. A slow machine can only
    // make this pass wrongly, never fail wrongly; the order below is checked by state.
    assert!(
        timeout(Duration::from_millis(300), &mut waiting).await.is_err(),
        "a connection with a request in hand was closed for a new client"
    );
    // ...until it is free.
    drop(stalled);
    let status = timeout(Duration::from_secs(10), waiting).await.expect("served once the slot frees");
    assert_eq!(status.unwrap(), 200);
    srv.shutdown().await;
}

// issue 20, item 9
#[tokio::test]
async fn a_declared_body_over_the_limit_is_refused_before_it_is_read() {
    let srv = Running::start(HttpOptions::default()).await;
    let mut stream = TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 10000000\r\n\r\n{{",
        srv.addr.port()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    timeout(Duration::from_secs(3), stream.read_to_end(&mut raw))
        .await
        .expect("refused without waiting for the body")
        .unwrap();
    let reply = parse_reply(&raw);
    assert_eq!(reply.status, 413, "{reply:?}");
    assert_eq!(reply.header("connection"), Some("close"));
    assert_eq!(reply.body, "Payload Too Large: request bodies are limited to 1048576 bytes\n");
    srv.shutdown().await;
}

/// A POST to `/mcp` with the standard headers of a `tools/list` and this body.
async fn post(addr: SocketAddr, content_type: &str, body: &[u8]) -> super::mcp_http::Reply {
    let headers = [
        ("Content-Type", content_type),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", V_MODERN),
        ("Mcp-Method", "tools/list"),
    ];
    exchange(addr, "POST", "/mcp", &headers, body).await
}

// issue 20, item 10
#[tokio::test]
async fn bodies_that_are_not_json_rpc_get_400_with_a_json_rpc_error() {
    let srv = Running::start(HttpOptions::default()).await;
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#;
    let cases: [(&[u8], i64, Value, &str); 5] = [
        (b"", -32700, Value::Null, "parse error: the request body is empty; send one JSON-RPC message"),
        (
            br#"{"jsonrpc":"2.0","id":1,"#,
            -32700,
            Value::Null,
            "parse error: the request body is not valid JSON (EOF while parsing a value at line 1 column 24)",
        ),
        (
            b"hello",
            -32700,
            Value::Null,
            "parse error: the request body is not valid JSON (expected value at line 1 column 1)",
        ),
        (
            batch,
            -32600,
            Value::Null,
            "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 and later removed \
             batching); send one message per POST",
        ),
        (
            br#"{"id":5,"method":"tools/list"}"#,
            -32600,
            json!(5),
            "invalid request: the body is not a JSON-RPC 2.0 request, notification or response (it \
             needs `\"jsonrpc\": \"2.0\"` and a `method`, or a `result` or `error`)",
        ),
    ];
    for (body, code, id, message) in cases {
        let r = post(srv.addr, "application/json", body).await;
        assert_eq!(r.status, 400, "{r:?}");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(
            r.json(),
            json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
        );
    }
    // A wrong media type is still 415.
    let r = post(srv.addr, "text/plain", br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).await;
    assert_eq!(r.status, 415, "{r:?}");
    srv.shutdown().await;
}

// issue 20, item 13
#[tokio::test]
async fn origins_must_be_allowed_explicitly_and_every_host_form_is_checked() {
    let options = HttpOptions::default().with_allow_origins(vec!["http://localhost:3000".into()]);
    let srv = Running::start(options).await;
    let a = srv.addr;
    let host = format!("127.0.0.1:{}", a.port());
    assert_eq!(rpc(a, "tools/list", json!({}), &[("Origin", "http://localhost:3000")]).await.status, 200);
    // Another port of the same machine is another origin; the refusal names the flag.
    let r = rpc(a, "tools/list", json!({}), &[("Origin", "http://localhost:3001")]).await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.body,
        "Forbidden: Origin `http://localhost:3001` is not allowed; start the server with \
         `--allow-origin http://localhost:3001` to accept requests from pages of that origin\n"
    );
    // The server's own origin is not foreign (only its own pages could send it); the same
    // port under another name is.
    let own_origin = format!("http://{host}");
    assert_eq!(rpc(a, "tools/list", json!({}), &[("Origin", own_origin.as_str())]).await.status, 200);
    let other_name = format!("http://localhost:{}", a.port());
    assert_eq!(rpc(a, "tools/list", json!({}), &[("Origin", other_name.as_str())]).await.status, 403);
    // IPv6 loopback is a loopback name like the others.
    assert_eq!(rpc(a, "tools/list", json!({}), &[("Host", "[::1]:8090")]).await.status, 200);
    // A second Host header, in either order, is refused.
    for hosts in [[host.as_str(), "evil.example"], ["evil.example", host.as_str()]] {
        let r = exchange(a, "POST", "/mcp", &[("Host", hosts[0]), ("Host", hosts[1])], b"{}").await;
        assert_eq!(r.status, 400, "{hosts:?}: {r:?}");
        assert_eq!(r.body, "Bad Request: a request needs exactly one `Host` header\n");
    }
    // An absolute-form target names the host too, and must be allowed like `Host`.
    let body =
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": modern_meta() } })
            .to_string();
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", V_MODERN),
        ("Mcp-Method", "tools/list"),
    ];
    let r = exchange(a, "POST", "http://evil.example/mcp", &headers, body.as_bytes()).await;
    assert_eq!(r.status, 403, "{r:?}");
    assert_eq!(
        r.body,
        "Forbidden: host `evil.example` is not allowed (DNS rebinding protection); start the server \
         with `--allow-host evil.example` if clients reach it under that name\n"
    );
    let own = format!("http://{host}/mcp");
    assert_eq!(exchange(a, "POST", &own, &headers, body.as_bytes()).await.status, 200);
    // No Host at all.
    let mut s = TcpStream::connect(a).await.unwrap();
    s.write_all(b"POST /mcp HTTP/1.1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").await.unwrap();
    assert_eq!(parse_reply(&read_until_closed(&mut s).await).status, 400);
    srv.shutdown().await;
}
