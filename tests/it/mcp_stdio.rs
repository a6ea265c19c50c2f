//! The stdio line transport on an in-process duplex: every bad line gets its exact JSON-RPC
//! answer (with the id when it can be recovered) and the connection goes on; a client that
//! never reads stops being read after a bounded number of requests, and everything is answered
//! once it reads again.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

use crate::mcp::{Wire, modern_meta, server};

/// The `data` every answer to a bad line carries.
const LINE_REPAIR: &str = r#""data":{"repair":{"hint":"send one JSON-RPC 2.0 object per line: UTF-8 JSON with `jsonrpc`, `id`, `method` and `params`","method":"server/discover","params":{}}}"#;

fn parse_error(id: &str, why: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0",{id}"error":{{"code":-32700,"message":"parse error: {why}",{LINE_REPAIR}}}}}"#
    ) + "\n"
}

fn invalid_request(id: &str, why: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0",{id}"error":{{"code":-32600,"message":"invalid request: {why}",{LINE_REPAIR}}}}}"#
    ) + "\n"
}

const NOT_A_MESSAGE: &str =
    "not a JSON-RPC 2.0 request, notification or response (batches are not supported)";

#[tokio::test]
async fn every_unparsable_line_is_answered_with_its_id_and_the_connection_goes_on() {
    let mut w = Wire::start();
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"ping","params":{}{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let cases: Vec<(Vec<u8>, String)> = vec![
        // A lone surrogate: serde reads `\ud800` as the start of a pair.
        (
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"s":"\ud800"}}"#.to_vec(),
            parse_error(r#""id":1,"#, "unexpected end of hex escape at line 1 column 68"),
        ),
        // A raw 0xFF byte inside a string, the id after it.
        (
            b"{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\",\"params\":{\"s\":\"\xff\"},\"id\":\"two\"}"
                .to_vec(),
            parse_error(r#""id":"two","#, "invalid unicode code point at line 1 column 55"),
        ),
        (deep.into_bytes(), parse_error(r#""id":"deep","#, "recursion limit exceeded at line 1 column 181")),
        (
            br#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"n":1e400}}"#.to_vec(),
            parse_error(r#""id":4,"#, "number out of range at line 1 column 65"),
        ),
        // No recoverable id: an id that is itself unreadable, or no object at all.
        (
            br#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#.to_vec(),
            parse_error("", "number out of range at line 1 column 27"),
        ),
        (b"this is not json".to_vec(), parse_error("", "expected ident at line 1 column 2")),
        (
            br#"{"jsonrpc":"2.0","id":9,"method":"resources/li"#.to_vec(),
            parse_error(r#""id":9,"#, "EOF while parsing a string at line 1 column 46"),
        ),
        // Valid JSON that is not a JSON-RPC message.
        (br#"{"jsonrpc":"2.0","id":5,"method":7}"#.to_vec(), invalid_request(r#""id":5,"#, NOT_A_MESSAGE)),
        (br#"{"foo":1}"#.to_vec(), invalid_request("", NOT_A_MESSAGE)),
        (br#"[{"jsonrpc":"2.0","id":6,"method":"tools/list"}]"#.to_vec(), invalid_request("", NOT_A_MESSAGE)),
        // What serde would read without a word: a member given twice, an id that is no integer.
        (
            br#"{"jsonrpc":"2.0","id":8,"method":"ping","method":"tools/list"}"#.to_vec(),
            invalid_request(
                r#""id":8,"#,
                "the member `method` is given twice; send each member of the object once",
            ),
        ),
        (
            br#"{"jsonrpc":"2.0","id":1e-999999,"method":"ping"}"#.to_vec(),
            invalid_request(
                "",
                "`id` 1e-999999 is not an integer or a string (MCP request ids are strings or integers)",
            ),
        ),
    ];
    for (line, expected) in cases {
        w.send_line(&line).await;
        assert_eq!(
            w.recv_line().await,
            expected,
            "line {}",
            String::from_utf8_lossy(&line[..line.len().min(80)])
        );
    }
    // A line over 16 MiB is discarded as it arrives and answered with the id of its start.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"pad":"{}"}}}}"#,
        "x".repeat(17 << 20)
    );
    w.send_line(big.as_bytes()).await;
    assert_eq!(w.recv_line().await, invalid_request(r#""id":7,"#, "the line is longer than 16777216 bytes"));
    // Blank lines and notifications that do not parse are not answered; the next request is.
    w.send_line(b"   ").await;
    w.send_line(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#).await;
    let res = w.call("resources/read", json!({ "uri": "resource://catalog/about" })).await;
    assert!(res["result"]["contents"][0]["text"].as_str().is_some_and(|t| t.starts_with("# ")), "{res}");
}

/// A request line of the raw client below: cheap to answer (an unknown method).
fn request(id: usize) -> Vec<u8> {
    let mut line =
        json!({ "jsonrpc": "2.0", "id": id, "method": "nothing/here", "params": { "_meta": modern_meta() } })
            .to_string()
            .into_bytes();
    line.push(b'\n');
    line
}

#[tokio::test]
async fn a_client_that_never_reads_stops_being_read_and_is_answered_once_it_reads() {
    const SENT: usize = 3000;
    // Small pipes both ways, as between processes.
    let (server_end, client_end) = tokio::io::duplex(4096);
    tokio::spawn(folio::server::run_on(server(), server_end));
    let (read, mut write) = tokio::io::split(client_end);
    // The writer reports each request it got into the pipe.
    let (progress, mut written) = tokio::sync::mpsc::unbounded_channel();
    let writer = tokio::spawn(async move {
        for id in 1..=SENT {
            write.write_all(&request(id)).await.unwrap();
            let _ = progress.send(id);
        }
        write
    });
    // The server stops taking input when no request gets through for half a second.
    let mut stalled_at = 0;
    while let Ok(Some(id)) = tokio::time::timeout(Duration::from_millis(500), written.recv()).await {
        stalled_at = id;
    }
    // 32 open requests, plus what the pipe and the 64 KiB read buffer hold: a few hundred.
    assert!(stalled_at < 1000, "the server kept reading: {stalled_at} of {SENT} requests written");
    // Reading again: every request is answered exactly once.
    let mut lines = BufReader::new(read).lines();
    let mut seen = vec![false; SENT + 1];
    for _ in 0..SENT {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("answers keep coming")
            .unwrap()
            .expect("the stream stays open");
        let res: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(res["error"]["code"], json!(-32601), "{line}");
        let id = res["id"].as_u64().unwrap() as usize;
        assert!(!std::mem::replace(&mut seen[id], true), "request {id} answered twice");
    }
    assert!(seen[1..].iter().all(|s| *s));
    writer.await.unwrap();
}
