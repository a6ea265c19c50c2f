//! The protocol itself: lifecycle and versions, subscriptions, bad input on the wire,
//! rmcp's own client, and the real binary over stdio.

use super::*;

// ---------------------------------------------------------------------------------------------
// Lifecycle, identity, versions.
// ---------------------------------------------------------------------------------------------

// checklist #1, #24
#[tokio::test]
async fn discover_announces_identity_capabilities_instructions_and_cache_hints() {
    let mut w = Wire::start();
    let r = w.ok("server/discover", json!({})).await;
    assert_eq!(r["resultType"], "complete");
    assert!(r["supportedVersions"].as_array().unwrap().contains(&json!(V_MODERN)));
    assert!(r["supportedVersions"].as_array().unwrap().contains(&json!("2025-11-25")));
    let caps = &r["capabilities"];
    assert!(caps["resources"].is_object() && caps["tools"].is_object() && caps["completions"].is_object());
    assert_eq!(caps["extensions"]["io.modelcontextprotocol/skills"], json!({ "directoryRead": true }));
    assert_eq!(caps["prompts"], json!({}), "prompts, with no listChanged: the catalog never changes");
    assert!(caps.get("logging").is_none());
    assert!(caps["resources"].get("listChanged").is_none() && caps["resources"].get("subscribe").is_none());
    assert_eq!(r["ttlMs"], json!(300_000));
    assert_eq!(r["cacheScope"], "public");
    assert_server_info(&r);
    assert_eq!(r["_meta"]["io.modelcontextprotocol/serverInfo"]["title"], "Folio test corpora");
    let instructions = r["instructions"].as_str().unwrap();
    for needle in
        ["Discovery order", "skills_index", "at most two skill documents", "?section=", "search_patterns"]
    {
        assert!(instructions.contains(needle), "instructions mention {needle}: {instructions}");
    }
    audit_meta_keys(&r);
}

// checklist #2
#[tokio::test]
async fn unsupported_protocol_version_is_refused_with_the_supported_list() {
    let mut w = Wire::start();
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let res = w.call_raw("resources/list", json!({ "_meta": meta })).await;
    let (code, _, data) = error_of(&res);
    assert_eq!(code, -32022);
    assert_eq!(data["requested"], "1900-01-01");
    assert!(data["supported"].as_array().unwrap().contains(&json!(V_MODERN)));
    // The connection keeps serving.
    w.ok("resources/templates/list", json!({})).await;
}

// checklist #3
#[tokio::test]
async fn modern_request_without_client_capabilities_is_invalid_params() {
    let mut w = Wire::start();
    let res = w
        .call_raw(
            "resources/list",
            json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": V_MODERN } }),
        )
        .await;
    let (code, message, _) = error_of(&res);
    assert_eq!(code, -32602);
    assert!(message.contains("clientCapabilities"), "{message}");
}

// checklist #4, #9 (legacy half), #24
#[tokio::test]
async fn legacy_initialize_negotiates_a_handshake_version_and_drops_result_type() {
    for (asked, answered) in
        [("2025-11-25", "2025-11-25"), (V_MODERN, "2025-11-25"), ("2025-06-18", "2025-06-18")]
    {
        let mut w = Wire::start();
        let res = w
            .call_raw(
                "initialize",
                json!({ "protocolVersion": asked, "capabilities": {}, "clientInfo": { "name": "legacy", "version": "1" } }),
            )
            .await;
        let init = &res["result"];
        assert_eq!(init["protocolVersion"], answered, "initialize {asked}");
        assert_eq!(init["serverInfo"]["name"], "corpora", "the project the catalog names");
        assert_server_info(init);
        assert!(init["instructions"].as_str().unwrap().contains("Discovery order"));
        w.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
        let list = w.call_raw("resources/list", json!({})).await;
        assert!(list["result"].get("resultType").is_none(), "legacy results carry no resultType");
        assert_server_info(&list["result"]);
        let missing = w.call_raw("resources/read", json!({ "uri": "resource://docs/no/such.md" })).await;
        assert_eq!(error_of(&missing).0, -32002, "legacy sessions keep -32002 for unknown resources");
        assert_eq!(error_of(&missing).2["uri"], "resource://docs/no/such.md");
        let ping = w.call_raw("ping", json!({})).await;
        assert_eq!(ping["result"], json!({}));
        let listen = w.call_raw("subscriptions/listen", json!({ "notifications": {} })).await;
        assert_eq!(error_of(&listen).0, -32601, "listen is modern-only");
    }
}

// ---------------------------------------------------------------------------------------------
// Subscriptions.
// ---------------------------------------------------------------------------------------------

// checklist #19
#[tokio::test]
async fn listen_is_acknowledged_with_an_empty_filter_and_ends_silently_on_cancel() {
    let mut w = Wire::start();
    w.send(&json!({
        "jsonrpc": "2.0", "id": 42, "method": "subscriptions/listen",
        "params": {
            "_meta": modern_meta(),
            "notifications": { "resourcesListChanged": true, "toolsListChanged": true, "resourceSubscriptions": ["resource://catalog/about"] },
        },
    }))
    .await;
    let ack = w.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json!(42));
    let accepted = ack["params"]["notifications"].as_object().cloned().unwrap_or_default();
    assert!(
        accepted.values().all(|v| v == &json!(false) || v.is_null() || v == &json!([])),
        "a static catalog accepts no notification type: {ack}"
    );
    w.send(&json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 42 } }))
        .await;
    // The next message is the answer to the next request: nothing more for the cancelled listen.
    let next = w.call("tools/list", json!({})).await;
    assert!(next["result"]["tools"].is_array(), "{next}");
    audit_meta_keys(&ack);
}

// ---------------------------------------------------------------------------------------------
// Bad input on the wire.
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn bad_input_is_answered_or_ignored_and_the_server_keeps_serving() {
    let mut w = Wire::start();
    // Before any request: garbage, half lines and non-UTF-8 get a parse error (with the id when
    // it can be read); notifications and stray responses are dropped.
    for (line, id) in [
        (&b"this is not json"[..], Value::Null),
        (br#"{"jsonrpc":"2.0","id":1,"method":"resources/li"#, json!(1)),
        (&[0xff, 0xfe, 0x00, b'{'], Value::Null),
    ] {
        w.send_line(line).await;
        let res = w.recv().await;
        assert_eq!((&res["error"]["code"], &res["id"]), (&json!(-32700), &id), "{res}");
    }
    w.send_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    w.send_line(br#"{"jsonrpc":"2.0","id":99,"result":{}}"#).await;
    let ok = w.call("server/discover", json!({})).await;
    assert_eq!(ok["result"]["resultType"], "complete", "{ok}");
    // JSON that is not JSON-RPC, and batches: -32600 with a null id.
    for line in [&br#"{"foo":1}"#[..], br#"[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]"#, b"[]", b"42"] {
        w.send_line(line).await;
        let res = w.recv().await;
        assert_eq!(res["error"]["code"], json!(-32600), "{}: {res}", String::from_utf8_lossy(line));
        assert_eq!(res["id"], Value::Null);
    }
    // A 17 MiB line is discarded and answered without killing the connection.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"pad":"{}"}}}}"#,
        "x".repeat(17 << 20)
    );
    w.send_line(big.as_bytes()).await;
    let res = w.recv().await;
    assert_eq!((&res["error"]["code"], &res["id"]), (&json!(-32600), &json!(7)), "{res}");
    // Unknown methods: -32601 with a repair.
    let res = w.call("resources/delete", json!({})).await;
    assert_eq!(error_of(&res).0, -32601);
    assert_repair(&res);
    let res = w.call("logging/setLevel", json!({ "level": "debug" })).await;
    assert_eq!(error_of(&res).0, -32601, "logging is not declared");
    let res = w.call("sampling/createMessage", json!({})).await;
    assert_eq!(error_of(&res).0, -32601, "a client method");
    // Still serving.
    let res = w.ok("resources/read", json!({ "uri": "resource://catalog/about" })).await;
    assert!(res["contents"][0]["text"].as_str().unwrap().starts_with("# "));
}

// checklist #24
#[tokio::test]
async fn every_result_carries_server_info() {
    let fx = fixture();
    let skill_uri = fx.catalog.entries[fx.catalog.skills[0].document as usize].uri.clone();
    let mut w = Wire::start();
    for (method, params) in [
        ("server/discover", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({ "uri": "resource://catalog/about" })),
        ("resources/read", json!({ "uri": "resource://catalog/docs_index?limit=1" })),
        ("tools/list", json!({})),
        ("tools/call", json!({ "name": "search_patterns", "arguments": { "query": "hugo" } })),
        ("tools/call", json!({ "name": "get_pattern_by_id", "arguments": { "id": "zzzz" } })),
        (
            "completion/complete",
            json!({ "ref": { "type": "ref/resource", "uri": "resource://docs/{+path}" }, "argument": { "name": "path", "value": "" } }),
        ),
        ("skills/list", json!({})),
        ("skills/get", json!({ "uri": skill_uri })),
        ("resources/directory/read", json!({ "uri": skill_uri.strip_suffix("/SKILL.md").unwrap() })),
    ] {
        let r = w.ok(method, params).await;
        assert_server_info(&r);
    }
    for msg in &w.seen {
        audit_meta_keys(msg);
    }
}

// ---------------------------------------------------------------------------------------------
// rmcp's own client.
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn rmcp_client_walks_reads_completes_and_calls_tools() {
    let client = rmcp_client().await;
    rmcp_walk(&client, &Walk { server: ("corpora", env!("CARGO_PKG_VERSION")), shelf: None }).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn rmcp_client_walks_a_catalog_over_http() {
    let running = crate::mcp_http::Running::start(folio::server::HttpOptions::default()).await;
    let client = rmcp_http_client(running.addr, "/mcp").await;
    rmcp_walk(&client, &Walk { server: ("corpora", env!("CARGO_PKG_VERSION")), shelf: None }).await;
    client.cancel().await.unwrap();
    running.shutdown().await;
}

// ---------------------------------------------------------------------------------------------
// The real binary over stdio.
// ---------------------------------------------------------------------------------------------

// checklist #20, #22
#[tokio::test]
async fn the_binary_speaks_pure_json_rpc_on_stdout_and_exits_on_stdin_eof() {
    use tokio::io::AsyncReadExt as _;
    let fx = fixture();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["serve", "--catalog"])
        .arg(&fx.catalog_file)
        .env("RUST_LOG", "trace")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let requests = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": modern_meta() } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": { "_meta": modern_meta() } }),
        json!({ "jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": { "_meta": modern_meta(), "uri": "resource://catalog/about" } }),
        json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": { "_meta": modern_meta(), "name": "search_patterns", "arguments": { "query": "hugo" } } }),
        json!({ "jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": { "_meta": modern_meta(), "uri": "resource://docs/nope.md" } }),
    ];
    let mut input = String::from("garbage line\n");
    for r in &requests {
        input.push_str(&r.to_string());
        input.push('\n');
    }
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin); // EOF
    let mut stdout = String::new();
    let mut stderr = String::new();
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let (a, b) = tokio::join!(async { BufReader::new(out).read_to_string(&mut stdout).await }, async {
        BufReader::new(err).read_to_string(&mut stderr).await
    });
    a.unwrap();
    b.unwrap();
    let status = tokio::time::timeout(Duration::from_secs(5), child.wait())
        .await
        .expect("exits within 5 s of stdin EOF")
        .unwrap();
    assert!(status.success(), "exit status {status}; stderr:\n{stderr}");
    let mut ids = BTreeSet::new();
    for line in stdout.lines() {
        let msg: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(msg["jsonrpc"], "2.0", "{line}");
        assert_ne!(msg["method"], "notifications/message", "no logging notifications");
        // The garbage line's parse error has no id to carry.
        ids.insert(msg["id"].as_i64().unwrap_or_else(|| msg["error"]["code"].as_i64().unwrap()));
    }
    assert_eq!(ids, [-32700, 1, 2, 3, 4, 5].into_iter().collect::<BTreeSet<i64>>(), "one answer per line");
    assert!(stderr.contains("TRACE") || stderr.contains("DEBUG"), "logs go to stderr with RUST_LOG=trace");
}

#[tokio::test]
async fn serve_refuses_a_corrupted_catalog_naming_the_file() {
    let fx = fixture();
    let path = fx.catalog_file.with_extension("corrupt.msgpack");
    let mut bytes = fx.bytes.clone();
    let at = bytes.len() - 10;
    bytes[at] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["serve", "--catalog"])
        .arg(&path)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&path.display().to_string()), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout");
}

#[tokio::test]
async fn serve_from_a_content_tree_and_its_refusals() {
    use tokio::io::AsyncReadExt as _;
    let fx = fixture();
    // `--content DIR` compiles in memory and serves the same catalog.
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["serve", "--content"])
        .arg(&fx.root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let req =
        json!({ "jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": { "_meta": modern_meta() } });
    stdin.write_all(format!("{req}\n").as_bytes()).await.unwrap();
    drop(stdin);
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).await.unwrap();
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait()).await.unwrap().unwrap();
    assert!(status.success());
    let res: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(res["result"]["skills"].as_array().unwrap().len(), fx.catalog.skills.len());

    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_folio"));
        cmd.args(args).stdin(std::process::Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), out.stdout.is_empty())
    };
    // A bearer-token variable that is not set.
    let (code, stderr, _) =
        run(&["serve", "--http", "0", "--bearer-token-env", "FOLIO_TEST_NO_SUCH_VAR"], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("`FOLIO_TEST_NO_SUCH_VAR` is not set"), "{stderr}");
    // With `--strict`, a content tree with errors is not served: exit 1, diagnostics on stderr.
    let bad = fx.root.with_extension("bad");
    let _ = std::fs::remove_dir_all(&bad);
    std::fs::create_dir_all(bad.join("skills/x")).unwrap();
    std::fs::write(bad.join("skills/x/SKILL.md"), "---\nname: y\n---\n# X\n").unwrap();
    let (code, stderr, quiet) = run(&["serve", "--strict", "--content", bad.to_str().unwrap()], &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("skills/x/SKILL.md:"), "diagnostics name the file: {stderr}");
    assert!(quiet, "nothing on stdout");
    // A missing catalog file is named.
    let (code, stderr, _) = run(&["serve", "--catalog", "/nonexistent/catalog.msgpack"], &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("/nonexistent/catalog.msgpack"), "{stderr}");
}
