//! The binary this crate builds, driven over stdio as an MCP client drives it: it names itself
//! (its own package name and version, not Folio's), and serves the docs and the skill its build
//! script compiled, byte for byte.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// The answers of a fresh server to `requests`, in the order asked.
fn ask(requests: &[(&str, Value)]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hello-docs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example's binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "hello-docs-tests", "version": "0" },
    });
    for (id, (method, params)) in requests.iter().enumerate() {
        let mut params = params.clone();
        params["_meta"] = meta.clone();
        let line = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let mut answers: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success(), "the server exits when stdin closes");
    // Requests are answered as they finish, not in order: put each answer at its request.
    answers.sort_by_key(|answer| answer["id"].as_u64());
    let ids: Vec<Option<u64>> = answers.iter().map(|answer| answer["id"].as_u64()).collect();
    assert_eq!(
        ids,
        (0..requests.len() as u64).map(Some).collect::<Vec<_>>(),
        "one answer per request: {answers:?}"
    );
    answers
}

#[test]
fn the_binary_names_itself_and_serves_its_own_docs_byte_for_byte() {
    let answers = ask(&[
        ("server/discover", json!({})),
        ("resources/read", json!({ "uri": "resource://docs/index.md" })),
        ("resources/read", json!({ "uri": "skill://say-hello/SKILL.md" })),
        ("resources/list", json!({})),
    ]);
    let info = &answers[0]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
    assert_eq!(
        (info["name"].as_str(), info["version"].as_str(), info["title"].as_str()),
        (Some("hello-docs"), Some("0.3.1"), Some("Hello docs manual")),
        "its package's name and version, its folio.toml's title: {info}"
    );
    for (answer, file) in
        [(&answers[1], "content/docs/index.md"), (&answers[2], "content/skills/say-hello/SKILL.md")]
    {
        // The crate's directory as cargo names it now, not as it was when the test was built.
        let manifest =
            std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
        let on_disk = std::fs::read_to_string(std::path::Path::new(&manifest).join(file)).unwrap();
        assert_eq!(answer["result"]["contents"][0]["text"].as_str(), Some(on_disk.as_str()), "{file}");
    }
    let mut uris: Vec<&str> = answers[3]["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .filter(|u| u.starts_with("resource://docs/") || u.starts_with("skill://"))
        .collect();
    uris.sort_unstable();
    assert_eq!(
        uris,
        ["resource://docs/greeting.md", "resource://docs/index.md", "skill://say-hello/SKILL.md"]
    );
}
