//! Streamable HTTP at `/mcp` on a real socket (127.0.0.1:0) with a raw HTTP/1.1 client (which
//! `mcp_http_rules.rs` holds to the transport rules, checklist #21): bearer tokens, body limits,
//! misbehaving clients, graceful shutdown, and the real binary bound on loopback by default.

use std::net::SocketAddr;
use std::time::Duration;

use folio::server::{HttpLimits, HttpOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use super::mcp::{V_MODERN, modern_meta, server};

pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), folio::server::ServeError>>,
}

impl Running {
    pub(crate) async fn start(options: HttpOptions) -> Running {
        Running::start_with(server(), options).await
    }

    /// Serves `served` (another catalog than the shared fixture's).
    pub(crate) async fn start_with(served: folio::server::FolioServer, options: HttpOptions) -> Running {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            folio::server::serve_http(listener, served, &options, async {
                let _ = stopped.await;
            })
            .await
        });
        Running { addr, stop: Some(stop), task }
    }

    /// Stops the server and waits (bounded) for the graceful drain to finish.
    pub(crate) async fn shutdown(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("graceful shutdown finishes")
            .unwrap()
            .expect("server ran cleanly");
    }
}

#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
    /// The body's bytes as sent (dechunked), for answers that are not text.
    pub(crate) bytes: Vec<u8>,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.body))
    }
}

/// One HTTP/1.1 exchange on a fresh connection (`Connection: close`), read to the end.
pub(crate) async fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: 127.0.0.1:{}\r\n", addr.port()));
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    // The server may answer (413) before reading the whole body; a failed write is fine then.
    let _ = stream.write_all(body).await;
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("reply within 20 s")
        .unwrap();
    parse_reply(&raw)
}

pub(crate) fn parse_reply(raw: &[u8]) -> Reply {
    let split =
        raw.windows(4).position(|w| w == b"\r\n\r\n").map_or((raw.len(), raw.len()), |at| (at, at + 4));
    let head = String::from_utf8_lossy(&raw[..split.0]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let text = String::from_utf8_lossy(&raw[split.1..]).into_owned();
    let (body, bytes) = if chunked {
        let body = dechunk(&text);
        let bytes = body.clone().into_bytes();
        (body, bytes)
    } else {
        (text, raw[split.1..].to_vec())
    };
    Reply { status, headers, body, bytes }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A modern JSON-RPC POST with the standard headers for `method`.
pub(crate) async fn rpc(addr: SocketAddr, method: &str, params: Value, extra: &[(&str, &str)]) -> Reply {
    rpc_at(addr, "/mcp", method, params, extra).await
}

/// [`rpc`] to another path (a shelf's `/mcp/<catalog>`).
pub(crate) async fn rpc_at(
    addr: SocketAddr,
    path: &str,
    method: &str,
    params: Value,
    extra: &[(&str, &str)],
) -> Reply {
    let mut params = params;
    params["_meta"] = modern_meta();
    let name = params.get("name").or_else(|| params.get("uri")).and_then(Value::as_str).map(str::to_owned);
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string();
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", V_MODERN),
        ("Mcp-Method", method),
    ];
    if let Some(name) = &name
        && matches!(method, "tools/call" | "resources/read")
    {
        headers.push(("Mcp-Name", name.as_str()));
    }
    for (k, v) in extra {
        headers.retain(|(h, _)| !h.eq_ignore_ascii_case(k));
        headers.push((k, v));
    }
    exchange(addr, "POST", path, &headers, body.as_bytes()).await
}

#[tokio::test]
async fn allow_origin_widens_origin_validation() {
    let srv =
        Running::start(HttpOptions::default().with_allow_origins(vec!["https://app.example.com".into()]))
            .await;
    assert_eq!(
        rpc(srv.addr, "server/discover", json!({}), &[("Origin", "https://app.example.com")]).await.status,
        200
    );
    assert_eq!(
        rpc(srv.addr, "server/discover", json!({}), &[("Origin", "https://other.example.com")]).await.status,
        403
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn allow_host_widens_the_host_allow_list() {
    let srv = Running::start(HttpOptions::default().with_allow_hosts(vec!["docs.example.com".into()])).await;
    assert_eq!(
        rpc(srv.addr, "server/discover", json!({}), &[("Host", "docs.example.com")]).await.status,
        200
    );
    assert_eq!(
        rpc(srv.addr, "server/discover", json!({}), &[("Host", "evil.example.com")]).await.status,
        403
    );
    srv.shutdown().await;
}

#[tokio::test]
async fn bearer_token_is_required_when_configured() {
    let srv = Running::start(HttpOptions::default().with_bearer_token(Some("s3cret".into()))).await;
    let r = rpc(srv.addr, "server/discover", json!({}), &[]).await;
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    assert_eq!(
        rpc(srv.addr, "server/discover", json!({}), &[("Authorization", "Bearer wrong")]).await.status,
        401
    );
    assert_eq!(
        rpc(srv.addr, "server/discover", json!({}), &[("Authorization", "Bearer s3cret")]).await.status,
        200
    );
    // Health needs the token too (it names the server and what it serves).
    let h = exchange(srv.addr, "GET", "/healthz", &[], b"").await;
    assert_eq!((h.status, h.header("www-authenticate")), (401, Some("Bearer")), "{h:?}");
    let h = exchange(srv.addr, "GET", "/healthz", &[("Authorization", "Bearer s3cret")], b"").await;
    assert_eq!(h.status, 200, "{h:?}");
    assert_eq!(h.json()["status"], "ok");
    srv.shutdown().await;
}

/// Sends a listen request and returns the open stream after reading its head and first event.
pub(crate) async fn open_listen(addr: SocketAddr) -> (BufReader<TcpStream>, Vec<(String, String)>, Value) {
    open_listen_at(addr, "/mcp").await
}

/// [`open_listen`] at the endpoint `path` (a shelf's `/mcp/<catalog>`).
pub(crate) async fn open_listen_at(
    addr: SocketAddr,
    path: &str,
) -> (BufReader<TcpStream>, Vec<(String, String)>, Value) {
    let body = json!({
        "jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
        "params": { "_meta": modern_meta(), "notifications": { "resourcesListChanged": true } },
    })
    .to_string();
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {V_MODERN}\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        addr.port(),
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut reader = BufReader::new(stream);
    let mut headers = Vec::new();
    let mut first_event = None;
    tokio::time::timeout(Duration::from_secs(20), async {
        let mut line = String::new();
        reader.read_line(&mut line).await.unwrap();
        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
        loop {
            line.clear();
            reader.read_line(&mut line).await.unwrap();
            if line == "\r\n" {
                break;
            }
            let (k, v) = line.split_once(':').unwrap();
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
        while first_event.is_none() {
            line.clear();
            assert!(reader.read_line(&mut line).await.unwrap() > 0, "stream ended before the ack");
            if let Some(data) = line.trim_end().split_once("data:").map(|(_, d)| d.trim())
                && !data.is_empty()
            {
                first_event = Some(serde_json::from_str::<Value>(data).unwrap());
            }
        }
    })
    .await
    .expect("ack within 20 s");
    (reader, headers, first_event.unwrap())
}

// checklist #19 (HTTP), #21 (SSE header), graceful shutdown with an open stream
#[tokio::test]
async fn listen_streams_the_ack_and_shutdown_ends_open_streams() {
    let srv = Running::start(HttpOptions::default()).await;
    let (mut reader, headers, ack) = open_listen(srv.addr).await;
    let header = |k: &str| headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.as_str());
    assert!(header("content-type").unwrap().starts_with("text/event-stream"));
    assert_eq!(header("x-accel-buffering"), Some("no"));
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json!(9));
    assert_ne!(
        ack["params"]["notifications"]["resourcesListChanged"],
        json!(true),
        "not declared, not accepted"
    );
    // Other requests are served while the stream is open.
    assert_eq!(rpc(srv.addr, "tools/list", json!({}), &[]).await.status, 200);
    // Shutdown completes although the stream is idle, and the stream ends.
    srv.shutdown().await;
    let mut rest = String::new();
    tokio::time::timeout(Duration::from_secs(10), reader.read_to_string(&mut rest))
        .await
        .expect("stream closed by shutdown")
        .ok();
}

#[tokio::test]
async fn slow_and_disconnecting_clients_do_not_stop_the_server() {
    let srv = Running::start(HttpOptions::default()).await;
    // Half a request head, then gone.
    let mut s = TcpStream::connect(srv.addr).await.unwrap();
    s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le").await.unwrap();
    drop(s);
    // A body promised but never sent, connection kept open (slow client).
    let mut slow = TcpStream::connect(srv.addr).await.unwrap();
    slow.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{",
            srv.addr.port()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    // A listen stream whose client disappears.
    let (reader, _, _) = open_listen(srv.addr).await;
    drop(reader);
    // Garbage bytes.
    let mut g = TcpStream::connect(srv.addr).await.unwrap();
    g.write_all(b"\x00\xff\xfegarbage\r\n\r\n").await.unwrap();
    let mut sink = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), g.read_to_end(&mut sink)).await;
    // 32 concurrent clients are all served meanwhile.
    let mut tasks = Vec::new();
    for i in 0..32 {
        let addr = srv.addr;
        tasks.push(tokio::spawn(async move {
            let uri = if i % 2 == 0 { "resource://catalog/about" } else { "resource://catalog/skills_index" };
            rpc(addr, "resources/read", json!({ "uri": uri }), &[]).await.status
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 200);
    }
    drop(slow);
    srv.shutdown().await;
}

// checklist #21 (loopback by default), graceful SIGTERM
#[tokio::test]
async fn the_binary_binds_loopback_by_default_and_stops_on_sigterm() {
    let fx = super::mcp::fixture();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["serve", "--http", "0", "--catalog"])
        .arg(&fx.catalog_file)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(20), stderr.read_line(&mut line))
        .await
        .expect("startup line")
        .unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{line}"));
    let authority = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let addr: SocketAddr = authority.parse().unwrap();
    assert!(addr.ip().is_loopback(), "bound to {addr}");
    assert_eq!(rpc(addr, "server/discover", json!({}), &[]).await.status, 200);
    let pid = child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let status =
        tokio::time::timeout(Duration::from_secs(10), child.wait()).await.expect("exits on SIGTERM").unwrap();
    assert!(status.success(), "{status}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).await.unwrap();
    assert!(rest.contains("shut down"), "{rest}");
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).await.unwrap();
    assert!(stdout.is_empty(), "nothing on stdout in HTTP mode either");
}

/// Reads until the server closes the connection (bounded), returning what it sent.
pub(crate) async fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .expect("the server closes the connection")
        .unwrap();
    raw
}

#[tokio::test]
async fn connections_that_do_not_send_a_request_in_time_are_closed() {
    let limits = HttpLimits::default()
        .with_header_read_timeout(Duration::from_millis(300))
        .with_body_read_timeout(Duration::from_millis(300));
    let srv = Running::start(HttpOptions::default().with_limits(limits)).await;
    // Silent, and trickling a head (slowloris): both closed without an answer.
    let mut silent = TcpStream::connect(srv.addr).await.unwrap();
    let mut trickle = TcpStream::connect(srv.addr).await.unwrap();
    trickle.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    assert_eq!(read_until_closed(&mut silent).await, b"");
    assert_eq!(read_until_closed(&mut trickle).await, b"");
    // A head in time but a body that stops: 408, and the connection is closed.
    let mut slow_body = TcpStream::connect(srv.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\"",
        srv.addr.port()
    );
    slow_body.write_all(head.as_bytes()).await.unwrap();
    let reply = parse_reply(&read_until_closed(&mut slow_body).await);
    assert_eq!(reply.status, 408, "{reply:?}");
    assert_eq!(reply.header("connection"), Some("close"));
    // A kept-alive connection is served, then closed once idle for the same time.
    let mut kept = TcpStream::connect(srv.addr).await.unwrap();
    kept.write_all(
        format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", srv.addr.port()).as_bytes(),
    )
    .await
    .unwrap();
    let reply = parse_reply(&read_until_closed(&mut kept).await);
    assert_eq!(reply.status, 200, "{reply:?}");
    // Prompt clients are unaffected.
    assert_eq!(rpc(srv.addr, "tools/list", json!({}), &[]).await.status, 200);
    srv.shutdown().await;
}

#[tokio::test]
async fn remote_clients_over_the_rate_get_429_with_retry_after() {
    use tower::ServiceExt as _;
    let limits = HttpLimits::default().with_requests_per_second(Some(1));
    let (app, _stop) = folio::server::router(server(), &HttpOptions::default().with_limits(limits));
    let call = |peer: &str| {
        let peer: SocketAddr = peer.parse().unwrap();
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": modern_meta() } });
        let mut request = axum::http::Request::post("/mcp")
            .header("Host", "localhost")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", V_MODERN)
            .header("Mcp-Method", "tools/list")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
        app.clone().oneshot(request)
    };
    // A burst of twice the rate passes; the next request is refused until a token refills.
    for _ in 0..2 {
        assert_eq!(call("203.0.113.7:4000").await.unwrap().status(), 200);
    }
    let refused = call("203.0.113.7:4001").await.unwrap();
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.headers()["retry-after"], "1");
    // Other clients, and loopback ones, are not held back by it.
    assert_eq!(call("198.51.100.1:4000").await.unwrap().status(), 200);
    for _ in 0..5 {
        assert_eq!(call("127.0.0.1:5000").await.unwrap().status(), 200);
    }
}

#[tokio::test]
async fn shutdown_closes_idle_kept_alive_connections_at_once() {
    // The head timeout and the shutdown deadline are an hour: a drain that waited for either
    // would not end, and the guard of `shutdown` would fail, on any machine.
    let limits = HttpLimits::default()
        .with_header_read_timeout(Duration::from_secs(3600))
        .with_shutdown_timeout(Duration::from_secs(3600));
    let srv = Running::start(HttpOptions::default().with_limits(limits)).await;
    // A client that made a request and keeps the connection open for more.
    let mut kept = TcpStream::connect(srv.addr).await.unwrap();
    kept.write_all(
        format!("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", srv.addr.port()).as_bytes(),
    )
    .await
    .unwrap();
    let mut head = [0u8; 12];
    kept.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    // The drain closes it rather than waiting for its next request.
    srv.shutdown().await;
    let mut rest = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(60), kept.read_to_end(&mut rest)).await.expect("closed");
}

/// An address of this machine other than loopback (the one it would route from), if any.
fn non_loopback_ip() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    // Connecting a UDP socket sends nothing; it only picks the route and the local address.
    socket.connect("192.0.2.1:9").ok()?;
    Some(socket.local_addr().ok()?.ip()).filter(|ip| !ip.is_loopback() && !ip.is_unspecified())
}

/// Loopback clients are exempt, so the server listens on (and the test connects from) this
/// machine's own network address: a machine with loopback alone cannot run it, so it is not in
/// the default run. `.ci/run` runs it (`cargo test -- --ignored`), and fails if it cannot.
#[tokio::test]
#[ignore = "needs an address of this machine other than loopback; run with `-- --ignored`"]
async fn a_remote_client_is_held_to_its_connections_and_its_rate() {
    let ip = non_loopback_ip().expect("this test needs an address of this machine other than loopback");
    let listener = tokio::net::TcpListener::bind((ip, 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let limits = HttpLimits::default().with_max_connections_per_client(2).with_requests_per_second(Some(1));
    let options = HttpOptions::default().with_limits(limits);
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        folio::server::serve_http(listener, server(), &options, async {
            let _ = stopped.await;
        })
        .await
    });
    let srv = Running { addr, stop: Some(stop), task };

    // Two connections held; a third is answered 429 at once and closed.
    let first = TcpStream::connect(addr).await.unwrap();
    let _second = TcpStream::connect(addr).await.unwrap();
    let mut third = TcpStream::connect(addr).await.unwrap();
    let reply = parse_reply(&read_until_closed(&mut third).await);
    assert_eq!(reply.status, 429, "{reply:?}");
    assert_eq!(reply.header("retry-after"), Some("1"));
    // Closing one frees a place: the next request is served. The burst is twice the rate.
    drop(first);
    let mut served = None;
    for _ in 0..200 {
        // The server notices the close a moment later; until then the answer is 429.
        let r = rpc(addr, "tools/list", json!({}), &[]).await;
        if r.status != 429 || r.body.contains("requests per second") {
            served = Some(r.status);
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(served, Some(200));
    // Requests over the rate (1 per second, bursts of 2) are refused with 429.
    let mut statuses = Vec::new();
    for _ in 0..3 {
        statuses.push(rpc(addr, "tools/list", json!({}), &[]).await.status);
    }
    assert!(statuses.contains(&429), "{statuses:?}");
    srv.shutdown().await;
}
