//! The MCP server end to end: a raw JSON-RPC line client (exact protocol answers) and rmcp's own
//! client, both in process over `tokio::io::duplex`, against a catalog compiled from the vendored
//! corpora (agent-skills + hugo-docs); one test spawns the real binary over stdio.
//!
//! Each test names the item of ARCHITECTURE.md's MCP conformance checklist it covers
//! (`// checklist #N`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use base64::Engine as _;
use folio::catalog::{Catalog, EntryKind};
use folio::server::FolioServer;
use rmcp::model::{SkillResource, SkillResources};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream, ReadHalf, WriteHalf};

use crate::support::{copy_dir, corpora};

// ---------------------------------------------------------------------------------------------
// Fixture: the vendored corpora compiled once per test run.
// ---------------------------------------------------------------------------------------------

pub(crate) struct Fixture {
    /// `catalog.msgpack` bytes.
    pub(crate) bytes: Vec<u8>,
    /// The decoded catalog (the oracle).
    pub(crate) catalog: Catalog,
    /// The content root the catalog was compiled from.
    pub(crate) root: PathBuf,
    /// Where the catalog file was written (for `serve --catalog`).
    pub(crate) catalog_file: PathBuf,
}

static FIXTURE: OnceLock<Fixture> = OnceLock::new();

/// The fixture's settings: a name, a title and instructions that must reach the client.
const FOLIO_TOML: &str = "\
[catalog]
name = \"corpora\"
title = \"Folio test corpora\"
description = \"Agent Skills and the Hugo documentation.\"
instructions = \"Prefer the Hugo docs for questions about templates.\"

[check]
ignore_links = [\"*\"]
";
static SERVER: OnceLock<FolioServer> = OnceLock::new();

/// agent-skills' `skills/` and hugo-docs' `docs/` in one content root, compiled with the real
/// compiler. Files the compiler refuses (a real corpus has a few) are removed (a whole skill for a
/// skill file) and the tree is recompiled, so the server is tested on everything that compiles.
pub(crate) fn fixture() -> &'static Fixture {
    FIXTURE.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mcp-content-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let corpora = corpora();
        copy_dir(&corpora.join("agent-skills/skills"), &root.join("skills"));
        copy_dir(&corpora.join("hugo-docs/docs"), &root.join("docs"));
        // Hugo docs link through site features (shortcode targets, glossary terms) that no
        // static resolver can follow; link checking is the compiler's business, not the server's.
        std::fs::write(root.join("folio.toml"), FOLIO_TOML).unwrap();
        let mut removed = Vec::new();
        let catalog = loop {
            let compilation = folio::compile::compile(&folio::compile::Config::new(root.clone()));
            let errors: BTreeSet<String> = compilation
                .diagnostics
                .iter()
                .filter(|d| d.severity == folio::compile::Severity::Error)
                .map(|d| d.path.clone())
                .collect();
            if errors.is_empty() {
                break compilation.catalog.expect("no errors, so a catalog");
            }
            assert!(removed.len() < 10, "too many files refused by the compiler: {removed:?} + {errors:?}");
            for path in errors {
                let mut target = root.join(&path);
                if path.starts_with("skills/") {
                    while let Some(parent) = target.parent() {
                        target = parent.to_path_buf();
                        if target.join("SKILL.md").is_file() || target == root.join("skills") {
                            break;
                        }
                    }
                }
                if target.is_dir() && target != root.join("skills") {
                    std::fs::remove_dir_all(&target).unwrap();
                } else if target.is_file() {
                    std::fs::remove_file(&target).unwrap();
                }
                removed.push(path);
            }
        };
        assert!(catalog.skills.len() >= 5, "the agent-skills corpus should give several skills");
        assert!(catalog.docs.len() >= 100, "the hugo corpus should give many docs");
        let bytes = folio::catalog::codec::encode(&catalog).msgpack;
        let catalog_file = root.with_extension("msgpack");
        std::fs::write(&catalog_file, &bytes).unwrap();
        let catalog = folio::catalog::codec::decode(&bytes).expect("our own catalog decodes");
        Fixture { bytes, catalog, root, catalog_file }
    })
}

pub(crate) fn server() -> FolioServer {
    SERVER.get_or_init(|| FolioServer::from_bytes(&fixture().bytes).expect("fixture catalog opens")).clone()
}

// ---------------------------------------------------------------------------------------------
// A raw JSON-RPC line client: exact bytes in, exact answers out.
// ---------------------------------------------------------------------------------------------

pub(crate) const V_MODERN: &str = "2026-07-28";

pub(crate) fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V_MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "folio-tests", "version": "0" },
    })
}

pub(crate) struct Wire {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    next_id: i64,
    /// Every message received, for the `_meta` audits.
    seen: Vec<Value>,
}

impl Wire {
    pub(crate) fn start() -> Wire {
        Wire::start_with(server())
    }

    pub(crate) fn start_with(server: FolioServer) -> Wire {
        let (server_end, client_end) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            let _ = folio::server::run_on(server, server_end).await;
        });
        let (read, writer) = tokio::io::split(client_end);
        Wire { reader: BufReader::new(read), writer, next_id: 1, seen: Vec::new() }
    }

    pub(crate) async fn send_line(&mut self, line: &[u8]) {
        self.writer.write_all(line).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
        self.writer.flush().await.unwrap();
    }

    pub(crate) async fn send(&mut self, msg: &Value) {
        self.send_line(msg.to_string().as_bytes()).await;
    }

    /// The next line from the server, `\n` included (fails the test after 20 s instead of
    /// hanging).
    pub(crate) async fn recv_line(&mut self) -> String {
        let mut line = String::new();
        let n = tokio::time::timeout(Duration::from_secs(20), self.reader.read_line(&mut line))
            .await
            .expect("server answered within 20 s")
            .unwrap();
        assert!(n > 0, "server closed the stream");
        line
    }

    /// The next message from the server (fails the test after 20 s instead of hanging).
    pub(crate) async fn recv(&mut self) -> Value {
        let line = self.recv_line().await;
        let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        self.seen.push(value.clone());
        value
    }

    /// Sends a request with the modern `_meta` merged into `params`, returns the whole response.
    pub(crate) async fn call(&mut self, method: &str, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = modern_meta();
        self.call_raw(method, params).await
    }

    /// Sends a request with exactly these params.
    pub(crate) async fn call_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        let res = self.recv().await;
        assert_eq!(res["id"], json!(id), "answer to {method} carries its id: {res}");
        res
    }

    /// A successful result, or the test fails naming the error.
    pub(crate) async fn ok(&mut self, method: &str, params: Value) -> Value {
        let res = self.call(method, params).await;
        assert!(res.get("error").is_none(), "{method} failed: {res}");
        res["result"].clone()
    }

    /// Every item of a paginated method, and every page.
    pub(crate) async fn walk(&mut self, method: &str, key: &str, params: Value) -> (Vec<Value>, Vec<Value>) {
        let mut items = Vec::new();
        let mut pages = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut p = params.clone();
            if let Some(c) = &cursor {
                p["cursor"] = json!(c);
            }
            let page = self.ok(method, p).await;
            items.extend(
                page[key].as_array().unwrap_or_else(|| panic!("{method} page has {key}")).iter().cloned(),
            );
            pages.push(page.clone());
            match page.get("nextCursor") {
                Some(Value::String(c)) => {
                    assert!(!c.is_empty(), "{method} never sends nextCursor \"\"");
                    cursor = Some(c.clone());
                }
                None => break,
                Some(other) => panic!("nextCursor must be a string: {other}"),
            }
            assert!(pages.len() < 10_000, "{method} pagination does not end");
        }
        (items, pages)
    }
}

#[track_caller]
pub(crate) fn error_of(res: &Value) -> (i64, String, Value) {
    let err = res.get("error").unwrap_or_else(|| panic!("expected an error, got {res}"));
    (err["code"].as_i64().unwrap(), err["message"].as_str().unwrap_or("").to_owned(), err["data"].clone())
}

/// Every error must carry `data.repair` naming a real next step.
#[track_caller]
pub(crate) fn assert_repair(res: &Value) {
    let (_, message, data) = error_of(res);
    let repair = &data["repair"];
    assert!(repair.is_object(), "error `{message}` has data.repair: {res}");
    let method = repair["method"].as_str().expect("repair names a method");
    assert!(
        [
            "resources/read",
            "resources/list",
            "resources/templates/list",
            "tools/call",
            "tools/list",
            "skills/list",
            "skills/get",
            "server/discover",
            "completion/complete",
            "subscriptions/listen",
            "resources/directory/read",
            "prompts/list",
            "prompts/get",
        ]
        .contains(&method),
        "repair names a method this server answers: {method}"
    );
}

#[track_caller]
pub(crate) fn assert_server_info(result: &Value) {
    // The fixture's folio.toml names the project `corpora` (and no version: Folio's is reported);
    // Folio itself is named under `dev.folio/server`.
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("corpora"),
        "result carries serverInfo _meta: {result}"
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["version"],
        json!(env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(
        result["_meta"]["dev.folio/server"],
        json!({ "name": "folio", "version": env!("CARGO_PKG_VERSION") }),
        "{result}"
    );
}

/// checklist #23: every `_meta` key we emit is ours (`dev.folio/`) or a reserved key the spec defines.
fn audit_meta_keys(v: &Value) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                if k == "_meta"
                    && let Value::Object(meta) = child
                {
                    for key in meta.keys() {
                        assert!(
                            key.starts_with("dev.folio/")
                                || key == "io.modelcontextprotocol/serverInfo"
                                || key == "io.modelcontextprotocol/subscriptionId",
                            "foreign _meta key `{key}`"
                        );
                    }
                }
                // Skill frontmatter is the author's data, not our _meta.
                if k != "frontmatter" {
                    audit_meta_keys(child);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(audit_meta_keys),
        _ => {}
    }
}

fn decode_contents(content: &Value) -> Vec<u8> {
    if let Some(text) = content["text"].as_str() {
        text.as_bytes().to_vec()
    } else {
        base64::engine::general_purpose::STANDARD
            .decode(content["blob"].as_str().expect("text or blob"))
            .unwrap()
    }
}

/// A small JSON Schema check for the subset our tool schemas use (type, enum, properties,
/// required, items, additionalProperties: false).
#[track_caller]
fn check_schema(schema: &Value, value: &Value, at: &str) {
    if let Some(options) = schema["enum"].as_array() {
        assert!(options.contains(value), "{at}: {value} not in {options:?}");
    }
    match schema["type"].as_str() {
        Some("object") => {
            let obj = value.as_object().unwrap_or_else(|| panic!("{at}: expected an object, got {value}"));
            for req in schema["required"].as_array().into_iter().flatten() {
                assert!(obj.contains_key(req.as_str().unwrap()), "{at}: missing required `{req}`");
            }
            let props = schema["properties"].as_object();
            for (k, v) in obj {
                match props.and_then(|p| p.get(k)) {
                    Some(s) => check_schema(s, v, &format!("{at}.{k}")),
                    None => {
                        assert_ne!(schema["additionalProperties"], json!(false), "{at}: unexpected `{k}`")
                    }
                }
            }
        }
        Some("string") => assert!(value.is_string(), "{at}: expected a string, got {value}"),
        Some("integer") => {
            assert!(value.is_i64() || value.is_u64(), "{at}: expected an integer, got {value}")
        }
        Some("boolean") => assert!(value.is_boolean(), "{at}: expected a boolean, got {value}"),
        Some("array") => {
            for (i, item) in
                value.as_array().unwrap_or_else(|| panic!("{at}: expected an array")).iter().enumerate()
            {
                check_schema(&schema["items"], item, &format!("{at}[{i}]"));
            }
        }
        _ => {}
    }
}

fn listed_uris(catalog: &Catalog) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = catalog.entries.iter().map(|e| e.uri.clone()).collect();
    out.extend(
        ["resource://catalog/about", "resource://catalog/skills_index", "resource://catalog/docs_index"]
            .map(str::to_owned),
    );
    out
}

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
// Resources.
// ---------------------------------------------------------------------------------------------

// checklist #5, #23, #24
#[tokio::test]
async fn resources_list_walk_lists_every_resource_once_identically_across_connections() {
    let fx = fixture();
    let mut first = Wire::start();
    let (items, pages) = first.walk("resources/list", "resources", json!({})).await;
    assert!(pages.len() >= 2, "the fixture spans several pages");
    for page in &pages {
        assert_eq!(page["resultType"], "complete");
        assert_eq!(page["ttlMs"], json!(300_000));
        assert_eq!(page["cacheScope"], "public", "one cacheScope for every page");
        assert_server_info(page);
        audit_meta_keys(page);
    }
    let uris: Vec<String> = items.iter().map(|r| r["uri"].as_str().unwrap().to_owned()).collect();
    let unique: BTreeSet<String> = uris.iter().cloned().collect();
    assert_eq!(unique.len(), uris.len(), "no resource is listed twice");
    assert_eq!(unique, listed_uris(&fx.catalog), "every entry and catalog singleton, nothing else");
    // Alias families are templates only.
    assert!(
        uris.iter()
            .all(|u| !u.starts_with("resource://skills/") && !u.starts_with("resource://catalog/skills/"))
    );
    // Byte-identical on another connection and on a repeated walk.
    let mut second = Wire::start();
    let (_, pages_again) = second.walk("resources/list", "resources", json!({})).await;
    assert_eq!(serde_json::to_string(&pages).unwrap(), serde_json::to_string(&pages_again).unwrap());
    let (_, pages_thrice) = first.walk("resources/list", "resources", json!({})).await;
    assert_eq!(pages, pages_thrice);
    // Native fields: size and blake3 of docs match the catalog, lastModified never the clock.
    for r in &items {
        let uri = r["uri"].as_str().unwrap();
        if let Some(e) = fx.catalog.entries.iter().find(|e| e.uri == uri) {
            assert_eq!(r["size"], json!(e.size), "{uri}");
            assert_eq!(r["mimeType"], json!(e.mime), "{uri}");
            assert_eq!(r["_meta"]["dev.folio/blake3"], json!(e.blake3), "{uri}");
            assert_eq!(r["_meta"]["dev.folio/path"], json!(e.path), "{uri}");
        }
    }
    for doc in fx.catalog.docs.iter().filter(|d| d.updated.is_some()).take(20) {
        let r = items.iter().find(|r| r["name"] == json!(doc.path)).unwrap();
        let stamp = r["annotations"]["lastModified"].as_str().unwrap();
        assert!(stamp.starts_with(doc.updated.as_deref().unwrap()), "{stamp} comes from frontmatter");
    }
}

// checklist #6
#[tokio::test]
async fn every_skill_document_is_listed_with_its_frontmatter_name_and_description() {
    let fx = fixture();
    let mut w = Wire::start();
    let (items, _) = w.walk("resources/list", "resources", json!({})).await;
    for skill in &fx.catalog.skills {
        let uri = &fx.catalog.entries[skill.document as usize].uri;
        let r = items.iter().find(|r| r["uri"] == json!(uri)).unwrap_or_else(|| panic!("{uri} listed"));
        assert_eq!(r["mimeType"], "text/markdown");
        assert_eq!(r["name"], json!(skill.frontmatter.get().unwrap()["name"]));
        assert_eq!(r["description"], json!(skill.frontmatter.get().unwrap()["description"]));
    }
}

// checklist #8, #23, #24, and the same-URI-both-ways identity on every entry
#[tokio::test]
async fn every_listed_uri_reads_back_its_exact_bytes_and_the_tool_returns_identical_text() {
    let fx = fixture();
    let max = fx.catalog.settings.max_read_bytes;
    let mut w = Wire::start();
    let mut blobs = 0;
    for uri in listed_uris(&fx.catalog) {
        let read = w.ok("resources/read", json!({ "uri": uri })).await;
        assert_eq!(read["resultType"], "complete");
        assert_eq!(read["ttlMs"], json!(300_000));
        assert_eq!(read["cacheScope"], "public");
        assert_server_info(&read);
        audit_meta_keys(&read);
        let contents = read["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 1, "{uri}");
        let c = &contents[0];
        assert_eq!(c["uri"], json!(uri));
        let bytes = decode_contents(c);
        if let Some(e) = fx.catalog.entries.iter().find(|e| e.uri == uri) {
            assert_eq!(c["mimeType"], json!(e.mime), "{uri}");
            assert_eq!(c["_meta"]["dev.folio/blake3"], json!(e.blake3));
            if e.kind == EntryKind::Doc && e.size > max {
                assert!(
                    c["text"].as_str().unwrap().contains("[folio: truncated at line"),
                    "{uri} is bounded"
                );
            } else {
                assert_eq!(bytes.len() as u64, e.size, "{uri} size");
                assert_eq!(blake3::hash(&bytes).to_hex().to_string(), e.blake3, "{uri} bytes");
                if let Some(sha) = &e.sha256 {
                    assert_eq!(&rmcp::model::sha256_digest(&bytes), sha, "{uri} sha256");
                }
            }
            if c.get("blob").is_some() {
                blobs += 1;
                assert!(!e.is_text, "{uri}: only non-text entries are blobs");
            }
        }
        // The same URI through the tool: identical text (or blob).
        let tool = w.ok("tools/call", json!({ "name": "read_resource", "arguments": { "uri": uri } })).await;
        assert_eq!(tool["isError"], json!(false), "{uri}: {tool}");
        let sc = &tool["structuredContent"];
        match c["text"].as_str() {
            Some(text) => {
                assert_eq!(sc["text"].as_str(), Some(text), "{uri}: tool text differs from resources/read");
                assert_eq!(tool["content"][0]["text"].as_str(), Some(text), "{uri}: text block differs");
            }
            None => assert_eq!(sc["blob"], c["blob"], "{uri}: tool blob differs"),
        }
        assert_eq!(sc["mime_type"], c["mimeType"]);
    }
    assert!(blobs > 0, "the agent-skills corpus has binary files (fonts, images)");
}

// checklist #7, #11
#[tokio::test]
async fn every_template_expanded_with_completed_values_is_readable() {
    let mut w = Wire::start();
    let (templates, pages) = w.walk("resources/templates/list", "resourceTemplates", json!({})).await;
    assert_eq!(pages[0]["ttlMs"], json!(300_000));
    assert_server_info(&pages[0]);
    let names: BTreeSet<&str> = templates.iter().map(|t| t["uriTemplate"].as_str().unwrap()).collect();
    for expected in [
        "resource://catalog/skills_index{?q,tag,capability,cursor,limit}",
        "resource://catalog/skills/{skill_id}",
        "resource://catalog/docs_index{?q,tag,category,lang,prefix,updated_since,cursor,limit}",
        "resource://catalog/docs/{+path}",
        "resource://docs/{+path}",
        "resource://docs/{+path}{?section,lines}",
        "skill://{+skill_path}/SKILL.md",
        "skill://{+skill_path}/{+file}",
        "resource://skills/{skill_id}/document",
        "resource://skills/{skill_id}/references/{ref_id}",
    ] {
        assert!(names.contains(expected), "{expected} listed");
    }
    let mut reads = 0;
    for t in &templates {
        let template = t["uriTemplate"].as_str().unwrap();
        let vars = variables(template);
        // Complete the first variable, then each following one in the context of the previous.
        let mut context = serde_json::Map::new();
        let mut chosen: Vec<(String, Vec<String>)> = Vec::new();
        for var in &vars {
            let res = w
                .ok(
                    "completion/complete",
                    json!({
                        "ref": { "type": "ref/resource", "uri": template },
                        "argument": { "name": var, "value": "" },
                        "context": { "arguments": context },
                    }),
                )
                .await;
            assert_server_info(&res);
            let values: Vec<String> = res["completion"]["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect();
            assert!(values.len() <= 100);
            assert_eq!(
                res["completion"]["hasMore"],
                json!(res["completion"]["total"].as_u64().unwrap() > 100)
            );
            if let Some(first) = values.first() {
                context.insert(var.clone(), json!(first));
            }
            chosen.push((var.clone(), values));
        }
        // Expand with up to 5 values of the last completable variable, the others fixed.
        let Some(last_idx) = chosen.iter().rposition(|(_, v)| !v.is_empty()) else {
            // Only free-form variables: the template without them is the index itself.
            let uri = expand(template, &BTreeMap::new());
            w.ok("resources/read", json!({ "uri": uri })).await;
            reads += 1;
            continue;
        };
        for value in chosen[last_idx].1.iter().take(5) {
            let mut values = BTreeMap::new();
            for (i, (var, vals)) in chosen.iter().enumerate() {
                if i == last_idx {
                    values.insert(var.clone(), value.clone());
                } else if let Some(first) = vals.first()
                    && !template.contains(&format!("?{var}"))
                    && !template.contains(&format!(",{var}"))
                {
                    values.insert(var.clone(), first.clone());
                }
            }
            let uri = expand(template, &values);
            let res = w.call("resources/read", json!({ "uri": uri })).await;
            assert!(res.get("error").is_none(), "{template} with {values:?} → {uri} is readable: {res}");
            reads += 1;
        }
    }
    assert!(reads >= 20, "expanded and read {reads} URIs");
}

/// The variables of an RFC 6570 template, in order.
fn variables(template: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in template.split('{').skip(1) {
        let inner = part.split('}').next().unwrap();
        for v in inner.trim_start_matches(['+', '?']).split(',') {
            out.push(v.to_owned());
        }
    }
    out
}

/// RFC 6570 expansion for the operators our templates use: `{x}` (unreserved only), `{+x}`
/// (reserved kept), `{?a,b}` (form-style query; undefined variables are skipped).
fn expand(template: &str, values: &BTreeMap<String, String>) -> String {
    fn enc(s: &str, keep_reserved: bool) -> String {
        s.bytes()
            .map(|b| {
                let unreserved = b.is_ascii_alphanumeric() || b"-._~".contains(&b);
                let reserved = b":/?#[]@!$&'()*+,;=".contains(&b);
                if unreserved || (keep_reserved && reserved) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect()
    }
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').unwrap() + start;
        let expr = &rest[start + 1..end];
        if let Some(names) = expr.strip_prefix('?') {
            let pairs: Vec<String> = names
                .split(',')
                .filter_map(|n| values.get(n).map(|v| format!("{n}={}", enc(v, false))))
                .collect();
            if !pairs.is_empty() {
                out.push('?');
                out.push_str(&pairs.join("&"));
            }
        } else if let Some(name) = expr.strip_prefix('+') {
            out.push_str(&enc(values.get(name).map_or("", String::as_str), true));
        } else {
            out.push_str(&enc(values.get(expr).map_or("", String::as_str), false));
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

// checklist #9
#[tokio::test]
async fn unknown_resource_is_invalid_params_with_its_uri_and_a_repair() {
    let mut w = Wire::start();
    for uri in [
        "resource://docs/no/such/page.md",
        "skill://no-such-skill/SKILL.md",
        "resource://catalog/skills/no-such-skill",
        "resource://catalog/docs/nope.md",
        "resource://skills/no-such-skill/document",
        "https://example.com/x",
        "",
    ] {
        let res = w.call("resources/read", json!({ "uri": uri })).await;
        let (code, _, data) = error_of(&res);
        assert_eq!(code, -32602, "{uri}");
        assert_eq!(data["uri"], json!(uri));
        assert_repair(&res);
        assert!(res.get("result").is_none(), "never an empty contents");
    }
}

#[tokio::test]
async fn misspelled_ids_get_a_did_you_mean() {
    let fx = fixture();
    let name = &fx.catalog.skills[0].name;
    let typo = format!("{name}x");
    let mut w = Wire::start();
    let res = w.call("resources/read", json!({ "uri": format!("resource://catalog/skills/{typo}") })).await;
    let (_, message, data) = error_of(&res);
    assert!(message.contains(&format!("did you mean `resource://catalog/skills/{name}`")), "{message}");
    assert_eq!(data["repair"]["params"]["uri"], json!(format!("resource://catalog/skills/{name}")));
    let tool = w
        .ok("tools/call", json!({ "name": "get_skill_document_by_id", "arguments": { "skill_id": typo } }))
        .await;
    assert_eq!(tool["isError"], json!(true));
    let text = tool["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        text,
        format!(
            "No skill `{typo}`. Did you mean `{name}`? Call search_patterns or list_resources to see what exists."
        )
    );
    assert_eq!(tool["structuredContent"]["repair"]["tool"], "get_skill_document_by_id");
    assert_eq!(tool["structuredContent"]["repair"]["arguments"]["skill_id"], json!(name));
}

#[tokio::test]
async fn traversal_and_malformed_uris_are_refused_before_any_lookup() {
    let fx = fixture();
    let doc = &fx.catalog.docs[0].path;
    let skill = &fx.catalog.skills[0];
    let mut w = Wire::start();
    for uri in [
        "resource://docs/../secret.md".to_owned(),
        "resource://docs/%2e%2e/secret.md".to_owned(),
        "resource://docs/%2E%2E%2Fsecret.md".to_owned(),
        format!("resource://docs/{doc}/../{doc}"),
        "resource://docs/a//b.md".to_owned(),
        "resource://docs/./a.md".to_owned(),
        "resource://docs/a\\b.md".to_owned(),
        "resource://docs/a%5Cb.md".to_owned(),
        "resource://docs/a\u{0}b.md".to_owned(),
        "resource://docs/a%00b.md".to_owned(),
        "resource://docs/%ff%fe.md".to_owned(),
        "resource://docs/%zz.md".to_owned(),
        format!("skill://{}/../../etc/passwd", skill.path),
        format!("skill://{}/%2e%2e/%2e%2e/etc/passwd", skill.path),
        "resource://catalog/skills/a%2F..%2Fb".to_owned(),
        "resource://skills/x%2F..%2Fy/document".to_owned(),
        format!("resource://docs/{doc}?lines=9-1"),
        format!("resource://docs/{doc}?nope=1"),
        format!("resource://docs/{doc}#frag"),
    ] {
        let res = w.call("resources/read", json!({ "uri": uri })).await;
        let (code, message, data) = error_of(&res);
        assert_eq!(code, -32602, "{uri:?}: {message}");
        assert_eq!(data["uri"], json!(uri));
        assert_repair(&res);
        assert!(!message.contains('\0') && !message.contains('\n'), "messages are one printable line");
    }
    // A legitimately encoded path (`%2F` decodes to `/` once) still reads.
    let encoded = doc.replace('/', "%2F");
    w.ok("resources/read", json!({ "uri": format!("resource://docs/{encoded}") })).await;
}

#[tokio::test]
async fn sections_and_line_ranges_select_exact_lines() {
    let fx = fixture();
    let doc =
        fx.catalog.docs.iter().find(|d| d.outline.get().unwrap().len() >= 3).expect("a doc with sections");
    let entry = &fx.catalog.entries[doc.entry as usize];
    let text = std::str::from_utf8(&entry.bytes).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut w = Wire::start();
    let section = &doc.outline.get().unwrap()[1];
    let uri = format!("resource://docs/{}?section={}", doc.path, section.id);
    let read = w.ok("resources/read", json!({ "uri": uri })).await;
    let expected: String = lines[section.line_start as usize - 1..section.line_end as usize].concat();
    assert_eq!(read["contents"][0]["text"].as_str().unwrap(), expected);
    let tool = w
        .ok("tools/call", json!({ "name": "read_resource", "arguments": { "uri": format!("resource://docs/{}", doc.path), "section": section.id } }))
        .await;
    assert_eq!(tool["structuredContent"]["text"].as_str().unwrap(), expected, "tool and resource agree");
    assert_eq!(tool["structuredContent"]["start_line"], json!(section.line_start));
    assert_eq!(tool["structuredContent"]["total_lines"], json!(entry.total_lines));
    let read =
        w.ok("resources/read", json!({ "uri": format!("resource://docs/{}?lines=2-3", doc.path) })).await;
    assert_eq!(read["contents"][0]["text"].as_str().unwrap(), lines[1..3].concat());
    let tool = w
        .ok("tools/call", json!({ "name": "read_resource", "arguments": { "uri": format!("resource://docs/{}", doc.path), "start_line": 2, "end_line": 3 } }))
        .await;
    assert_eq!(tool["structuredContent"]["text"].as_str().unwrap(), lines[1..3].concat());
    let bad = w
        .call(
            "resources/read",
            json!({ "uri": format!("resource://docs/{}?section=no-such-heading", doc.path) }),
        )
        .await;
    let (code, message, data) = error_of(&bad);
    assert_eq!(code, -32602);
    assert!(message.contains("no section `no-such-heading`"), "{message}");
    assert_eq!(data["param"], "section");
    assert_eq!(data["repair"]["params"]["name"], "get_pattern_by_id", "the outline lists the section ids");
    assert_eq!(data["repair"]["params"]["arguments"]["id"], json!(format!("resource://docs/{}", doc.path)));
}

#[tokio::test]
async fn large_docs_are_bounded_with_a_marker_naming_the_next_range() {
    // A catalog whose bound is small enough that a real doc exceeds it.
    let fx = fixture();
    let mut catalog = fx.catalog.clone();
    catalog.settings.max_read_bytes = 2048;
    let server = FolioServer::from_catalog(catalog).unwrap();
    let doc = fx
        .catalog
        .docs
        .iter()
        .find(|d| fx.catalog.entries[d.entry as usize].size > 8192)
        .expect("a doc over 8 KiB");
    let entry = &fx.catalog.entries[doc.entry as usize];
    let uri = format!("resource://docs/{}", doc.path);
    let mut w = Wire::start_with(server);
    let read = w.ok("resources/read", json!({ "uri": uri })).await;
    let text = read["contents"][0]["text"].as_str().unwrap();
    let (kept, marker) = text.rsplit_once("<!-- folio: truncated at ").expect("marker present");
    assert!(kept.len() <= 2048 + 1 && kept.ends_with('\n'), "cut on a line boundary within the bound");
    let whole = std::str::from_utf8(&entry.bytes).unwrap();
    assert!(whole.starts_with(kept), "the kept part is the doc's first bytes");
    let last_line = kept.split_inclusive('\n').count();
    let next = format!("{uri}?lines={}-{}", last_line + 1, entry.total_lines);
    assert!(marker.contains(&next), "marker names {next}: {marker}");
    assert_eq!(read["contents"][0]["_meta"]["dev.folio/next"], json!(next));
    // The tool says the same.
    let tool = w.ok("tools/call", json!({ "name": "read_resource", "arguments": { "uri": uri } })).await;
    assert_eq!(tool["structuredContent"]["truncated"], json!(true));
    assert_eq!(tool["structuredContent"]["next"], json!(next));
    assert_eq!(tool["structuredContent"]["text"].as_str(), Some(text));
    // Skill files are exempt: hosts verify the whole file.
    let skill_file =
        fx.catalog.entries.iter().find(|e| e.kind != EntryKind::Doc && e.is_text && e.size > 2048).unwrap();
    let read = w.ok("resources/read", json!({ "uri": skill_file.uri })).await;
    assert_eq!(read["contents"][0]["text"].as_str().unwrap().len() as u64, skill_file.size);
}

// ---------------------------------------------------------------------------------------------
// Pagination and malformed params.
// ---------------------------------------------------------------------------------------------

// checklist #10
#[tokio::test]
async fn garbage_cursors_and_malformed_params_are_invalid_params() {
    let fx = fixture();
    let dir = format!("skill://{}", fx.catalog.skills[0].path);
    let mut w = Wire::start();
    let huge = "A".repeat(1 << 20);
    for (method, mut params) in [
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("tools/list", json!({})),
        ("skills/list", json!({})),
        ("resources/directory/read", json!({ "uri": dir })),
    ] {
        for cursor in ["garbage", "", "eyJ4IjoxfQ", huge.as_str()] {
            params["cursor"] = json!(cursor);
            let res = w.call(method, params.clone()).await;
            let (code, message, _) = error_of(&res);
            assert_eq!(code, -32602, "{method} cursor {:?}: {message}", &cursor[..cursor.len().min(10)]);
            assert_repair(&res);
        }
    }
    // An index resource with a bad cursor: the repair is the same read without it.
    let res =
        w.call("resources/read", json!({ "uri": "resource://catalog/docs_index?tag=x&cursor=zz" })).await;
    let (code, _, data) = error_of(&res);
    assert_eq!(code, -32602);
    assert_eq!(data["repair"]["params"]["uri"], "resource://catalog/docs_index?tag=x");
    // A cursor issued for another method's list still only works where its offset exists.
    let (_, pages) = w.walk("resources/list", "resources", json!({})).await;
    let cursor = pages[0]["nextCursor"].as_str().unwrap().to_owned();
    let res = w.call("resources/templates/list", json!({ "cursor": cursor })).await;
    assert_eq!(error_of(&res).0, -32602);
    for (method, params) in [
        ("resources/read", json!({})),
        ("resources/read", json!({ "uri": 7 })),
        ("tools/call", json!({})),
        ("tools/call", json!({ "arguments": {} })),
        ("skills/get", json!({})),
        ("resources/directory/read", json!({})),
        ("completion/complete", json!({})),
        (
            "completion/complete",
            json!({ "ref": { "type": "ref/nothing" }, "argument": { "name": "x", "value": "" } }),
        ),
    ] {
        let res = w.call(method, params.clone()).await;
        let (code, message, _) = error_of(&res);
        assert_eq!(code, -32602, "{method} {params}: {message}");
        assert_repair(&res);
    }
}

// ---------------------------------------------------------------------------------------------
// Completion.
// ---------------------------------------------------------------------------------------------

// checklist #11
#[tokio::test]
async fn completion_is_ranked_scoped_and_rejects_unknown_templates_and_arguments() {
    let fx = fixture();
    let mut w = Wire::start();
    let complete = |template: &str, name: &str, value: &str, context: Value| {
        json!({
            "ref": { "type": "ref/resource", "uri": template },
            "argument": { "name": name, "value": value },
            "context": { "arguments": context },
        })
    };
    // Prefix match over doc paths, capped at 100 with the true total.
    let res = w.ok("completion/complete", complete("resource://docs/{+path}", "path", "", json!({}))).await;
    assert_eq!(res["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(res["completion"]["total"], json!(fx.catalog.docs.len()));
    assert_eq!(res["completion"]["hasMore"], json!(true));
    let first_doc = &fx.catalog.docs[0].path;
    let prefix: String = first_doc.chars().take(first_doc.find('/').map_or(3, |i| i + 1)).collect();
    let res =
        w.ok("completion/complete", complete("resource://docs/{+path}", "path", &prefix, json!({}))).await;
    for v in res["completion"]["values"].as_array().unwrap() {
        assert!(v.as_str().unwrap().to_lowercase().contains(&prefix.to_lowercase()));
    }
    // Exact match ranks first.
    let name = &fx.catalog.skills[0].name;
    let res = w
        .ok(
            "completion/complete",
            complete("resource://catalog/skills/{skill_id}", "skill_id", name, json!({})),
        )
        .await;
    assert_eq!(res["completion"]["values"][0], json!(name));
    // Sections are scoped by path.
    let doc = fx.catalog.docs.iter().find(|d| d.outline.get().unwrap().len() >= 2).unwrap();
    let res = w
        .ok(
            "completion/complete",
            complete("resource://docs/{+path}{?section,lines}", "section", "", json!({ "path": doc.path })),
        )
        .await;
    let got: BTreeSet<String> = res["completion"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let want: BTreeSet<String> = doc.outline.get().unwrap().iter().map(|s| s.id.clone()).take(100).collect();
    assert_eq!(got, want);
    // Files are scoped by the skill.
    let skill = fx.catalog.skills.iter().max_by_key(|s| s.files.len()).unwrap();
    let res = w
        .ok(
            "completion/complete",
            complete("skill://{+skill_path}/{+file}", "file", "", json!({ "skill_path": skill.path })),
        )
        .await;
    let got: BTreeSet<String> = res["completion"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let mut want: BTreeSet<String> = skill.files.iter().map(|f| f.rel_path.clone()).collect();
    want.insert("SKILL.md".to_owned());
    assert_eq!(got, want.into_iter().take(100).collect());
    // Unknown template or argument → -32602.
    for bad in [
        complete("resource://nothing/{x}", "x", "", json!({})),
        complete("resource://docs/{+path}", "nope", "", json!({})),
        json!({ "ref": { "type": "ref/prompt", "name": "x" }, "argument": { "name": "x", "value": "" } }),
    ] {
        let res = w.call("completion/complete", bad).await;
        assert_eq!(error_of(&res).0, -32602);
        assert_repair(&res);
    }
}

// ---------------------------------------------------------------------------------------------
// Tools.
// ---------------------------------------------------------------------------------------------

// checklist #12
#[tokio::test]
async fn tools_list_is_stable_sorted_read_only_and_small() {
    let mut w = Wire::start();
    let first = w.call("tools/list", json!({})).await;
    let again = w.call("tools/list", json!({})).await;
    assert_eq!(first["result"], again["result"]);
    let r = &first["result"];
    assert_eq!(r["ttlMs"], json!(300_000));
    assert_eq!(r["cacheScope"], "public");
    assert_server_info(r);
    let tools = r["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "get_pattern_by_id",
            "get_skill_document_by_id",
            "list_resources",
            "read_resource",
            "search_patterns"
        ]
    );
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object");
        assert_eq!(t["inputSchema"]["additionalProperties"], json!(false));
        assert_eq!(t["outputSchema"]["type"], "object");
        assert_eq!(t["annotations"]["readOnlyHint"], json!(true));
        assert_eq!(t["annotations"]["idempotentHint"], json!(true));
        assert_eq!(t["annotations"]["openWorldHint"], json!(false));
        assert_eq!(t["annotations"]["destructiveHint"], json!(false));
    }
    let size = serde_json::to_string(r).unwrap().len();
    assert!(size < 6 * 1024, "tools/list is {size} bytes; keep it under 6 KiB");
}

// checklist #13
#[tokio::test]
async fn tool_calls_validate_against_their_output_schemas_and_fail_actionably() {
    let fx = fixture();
    let mut w = Wire::start();
    let tools = w.ok("tools/list", json!({})).await["tools"].as_array().unwrap().clone();
    let schema =
        |name: &str| tools.iter().find(|t| t["name"] == json!(name)).unwrap()["outputSchema"].clone();
    let skill = &fx.catalog.skills[0];
    let doc = &fx.catalog.docs[0];
    for (name, args) in [
        ("list_resources", json!({})),
        ("list_resources", json!({ "kind": "skill", "limit": 5 })),
        ("list_resources", json!({ "kind": "doc", "sort": "updated", "limit": 3 })),
        ("read_resource", json!({ "uri": format!("resource://docs/{}", doc.path) })),
        ("search_patterns", json!({ "query": "template", "limit": 5 })),
        ("get_pattern_by_id", json!({ "id": skill.name })),
        ("get_pattern_by_id", json!({ "id": doc.path })),
        ("get_pattern_by_id", json!({ "id": format!("resource://docs/{}", doc.path) })),
        ("get_skill_document_by_id", json!({ "skill_id": skill.name })),
    ] {
        let res = w.ok("tools/call", json!({ "name": name, "arguments": args })).await;
        assert_eq!(res["isError"], json!(false), "{name} {args}: {res}");
        assert_server_info(&res);
        check_schema(&schema(name), &res["structuredContent"], name);
        let text = res["content"][0]["text"].as_str().unwrap();
        assert!(!text.is_empty(), "{name} has a text rendering");
    }
    // get_pattern_by_id returns exactly the detail resource.
    let detail =
        w.ok("resources/read", json!({ "uri": format!("resource://catalog/skills/{}", skill.name) })).await;
    let tool =
        w.ok("tools/call", json!({ "name": "get_pattern_by_id", "arguments": { "id": skill.name } })).await;
    assert_eq!(tool["content"][0]["text"], detail["contents"][0]["text"]);
    // get_skill_document_by_id returns exactly SKILL.md.
    let uri = &fx.catalog.entries[skill.document as usize].uri;
    let read = w.ok("resources/read", json!({ "uri": uri })).await;
    let tool = w
        .ok(
            "tools/call",
            json!({ "name": "get_skill_document_by_id", "arguments": { "skill_id": skill.name } }),
        )
        .await;
    assert_eq!(tool["structuredContent"]["text"], read["contents"][0]["text"]);
    assert_eq!(tool["structuredContent"]["files"].as_array().unwrap().len(), skill.files.len() + 1);
    // Unknown tool → -32602 (never -32601).
    let res = w.call("tools/call", json!({ "name": "rm_rf", "arguments": {} })).await;
    assert_eq!(error_of(&res).0, -32602);
    assert_repair(&res);
    // Invalid arguments → isError with a sentence and a repair.
    for (name, args) in [
        ("read_resource", json!({})),
        ("read_resource", json!({ "uri": 5 })),
        ("read_resource", json!({ "uri": "resource://docs/x.md", "bogus": 1 })),
        ("search_patterns", json!({ "query": "" })),
        ("search_patterns", json!({ "query": "x", "limit": 0 })),
        ("list_resources", json!({ "kind": "everything" })),
        ("list_resources", json!({ "cursor": "garbage" })),
        ("get_pattern_by_id", json!({ "id": "zzzz-nothing-like-this" })),
        ("read_resource", json!({ "uri": "resource://docs/../x" })),
    ] {
        let res = w.ok("tools/call", json!({ "name": name, "arguments": args })).await;
        assert_eq!(res["isError"], json!(true), "{name} {args}: {res}");
        assert!(res["content"][0]["text"].as_str().unwrap().ends_with('.'), "a sentence: {res}");
        assert!(res["structuredContent"]["repair"].is_object(), "structured repair: {res}");
    }
}

#[tokio::test]
async fn search_and_list_pagination_walk_every_result_once() {
    let fx = fixture();
    let mut w = Wire::start();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({ "kind": "doc", "limit": 500 });
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let res = w.ok("tools/call", json!({ "name": "list_resources", "arguments": args })).await;
        let sc = &res["structuredContent"];
        seen.extend(
            sc["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_owned()),
        );
        assert_eq!(sc.get("templates").is_some(), cursor.is_none(), "templates on the first page only");
        match sc["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen.len(), fx.catalog.docs.len());
    assert_eq!(seen.iter().collect::<BTreeSet<_>>().len(), seen.len());
    let hits =
        w.ok("tools/call", json!({ "name": "search_patterns", "arguments": { "query": "shortcode" } })).await;
    let hits = hits["structuredContent"]["hits"].as_array().unwrap().clone();
    assert!(!hits.is_empty(), "the hugo docs mention shortcodes");
    for h in &hits {
        assert!(h["uri"].is_string() && h["score"].is_number() && h["snippet"].is_string());
    }
}

// ---------------------------------------------------------------------------------------------
// Skills extension.
// ---------------------------------------------------------------------------------------------

/// The YAML frontmatter of a SKILL.md as JSON, parsed by a second YAML implementation.
fn parse_frontmatter(text: &str) -> Value {
    let matter = gray_matter::Matter::<gray_matter::engine::YAML>::new();
    matter.parse::<Value>(text).expect("frontmatter parses").data.expect("SKILL.md has frontmatter")
}

// checklist #14, #16, #18
#[tokio::test]
async fn skills_list_manifests_verify_against_the_bytes_resources_read_returns() {
    let fx = fixture();
    let mut w = Wire::start();
    let (skills, pages) = w.walk("skills/list", "skills", json!({})).await;
    for page in &pages {
        assert_eq!(page["resultType"], "complete");
        assert_eq!(page["ttlMs"], json!(300_000));
        assert_eq!(page["cacheScope"], "public");
        assert_server_info(page);
    }
    assert_eq!(skills.len(), fx.catalog.skills.len(), "every skill is listed");
    let name_rule = |n: &str| {
        !n.is_empty()
            && n.len() <= 64
            && n.split('-').all(|part| {
                !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            })
    };
    let mut verified_blobs = 0;
    for skill in &skills {
        let uri = skill["uri"].as_str().unwrap();
        let name = skill["frontmatter"]["name"].as_str().unwrap();
        assert!(
            uri.ends_with(&format!("/{name}/SKILL.md")) || uri == format!("skill://{name}/SKILL.md"),
            "{uri}"
        );
        assert!(name_rule(name), "{name} follows the Agent Skills name rule (ASCII)");
        let description = skill["frontmatter"]["description"].as_str().unwrap();
        assert!(!description.is_empty() && description.chars().count() <= 1024);
        let manifest: Vec<SkillResource> = serde_json::from_value(skill["resources"].clone()).unwrap();
        assert!(manifest.len() <= 512);
        assert!(manifest.iter().map(|r| r.size).sum::<u64>() <= 16 * 1024 * 1024);
        let unique: BTreeSet<&str> = manifest.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(unique.len(), manifest.len(), "each file once");
        assert!(unique.contains(uri), "the manifest lists SKILL.md itself");
        let root = uri.strip_suffix("SKILL.md").unwrap();
        for file in &manifest {
            assert!(file.uri.starts_with(root), "{} is inside the skill", file.uri);
            assert!(rmcp::model::is_sha256_digest(&file.digest), "{}", file.digest);
            let read = w.ok("resources/read", json!({ "uri": file.uri })).await;
            let c = &read["contents"][0];
            let bytes = decode_contents(c);
            file.verify(&bytes).unwrap_or_else(|e| panic!("{} fails verification: {e}", file.uri));
            if c.get("blob").is_some() {
                verified_blobs += 1;
            }
            if file.uri == uri {
                // Hosts re-parse SKILL.md and compare the frontmatter field by field.
                let served = parse_frontmatter(c["text"].as_str().unwrap());
                assert_eq!(served, skill["frontmatter"], "{uri}: frontmatter differs from the served YAML");
            }
        }
        // The skill's files on disk are exactly the manifest (no file left out).
        let dir = fx
            .root
            .join("skills")
            .join(uri.strip_prefix("skill://").unwrap().strip_suffix("/SKILL.md").unwrap());
        let on_disk = walkdir::WalkDir::new(&dir)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .filter(|e| {
                !e.path()
                    .strip_prefix(&dir)
                    .unwrap()
                    .components()
                    .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
            })
            .count();
        assert_eq!(on_disk, manifest.len(), "{uri}: manifest lists every file of the skill directory");
    }
    assert!(verified_blobs > 0, "binary skill files are verified too");
    // The rmcp client reads the same entries.
    let client = rmcp_client().await;
    let typed = client.list_all_skills().await.unwrap();
    assert_eq!(typed.len(), skills.len());
    for s in &typed {
        assert!(matches!(s.resources, SkillResources::Files(_)));
    }
    client.cancel().await.unwrap();
}

// checklist #15
#[tokio::test]
async fn skills_get_returns_the_listed_entry_and_refuses_anything_else() {
    let fx = fixture();
    let mut w = Wire::start();
    let (skills, _) = w.walk("skills/list", "skills", json!({})).await;
    for skill in &skills {
        let got = w.ok("skills/get", json!({ "uri": skill["uri"] })).await;
        assert_eq!(got["skill"], *skill);
        assert_eq!(got["ttlMs"], json!(300_000));
        assert_eq!(got["cacheScope"], "public");
        assert_server_info(&got);
    }
    let skill = &fx.catalog.skills[0];
    let file = skill.files.first().map(|f| fx.catalog.entries[f.entry as usize].uri.clone());
    for bad in [
        Some("skill://no-such-skill/SKILL.md".to_owned()),
        Some(format!("skill://{}x/SKILL.md", skill.path)),
        Some(format!("skill://{}/skill.md", skill.path)),
        Some(format!("skill://{}", skill.path)),
        file,
    ]
    .into_iter()
    .flatten()
    {
        let res = w.call("skills/get", json!({ "uri": bad })).await;
        let (code, message, _) = error_of(&res);
        assert_eq!(code, -32602, "{bad}: {message}");
    }
    let res = w.call("skills/get", json!({ "uri": format!("skill://{}x/SKILL.md", skill.path) })).await;
    assert_repair(&res);
}

// checklist #17
#[tokio::test]
async fn directory_read_lists_exactly_the_direct_children_of_every_skill_directory() {
    let mut w = Wire::start();
    let (skills, _) = w.walk("skills/list", "skills", json!({})).await;
    let mut dirs_checked = 0;
    for skill in &skills {
        let root = skill["uri"].as_str().unwrap().strip_suffix("/SKILL.md").unwrap().to_owned();
        let files: Vec<String> = skill["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap().to_owned())
            .collect();
        // Expected tree from the manifest: every directory and its direct children.
        let mut expected: BTreeMap<String, BTreeSet<(String, bool)>> = BTreeMap::new();
        expected.entry(root.clone()).or_default();
        for f in &files {
            let rel = f.strip_prefix(&format!("{root}/")).unwrap();
            let mut parent = root.clone();
            let parts: Vec<&str> = rel.split('/').collect();
            for (i, part) in parts.iter().enumerate() {
                let child = format!("{parent}/{part}");
                let is_dir = i + 1 < parts.len();
                expected.entry(parent.clone()).or_default().insert((child.clone(), is_dir));
                if is_dir {
                    expected.entry(child.clone()).or_default();
                }
                parent = child;
            }
        }
        for (dir, children) in &expected {
            let (items, pages) = w.walk("resources/directory/read", "resources", json!({ "uri": dir })).await;
            assert_server_info(&pages[0]);
            let got: BTreeSet<(String, bool)> = items
                .iter()
                .map(|r| (r["uri"].as_str().unwrap().to_owned(), r["mimeType"] == json!("inode/directory")))
                .collect();
            assert_eq!(&got, children, "{dir}");
            for (child, _) in &got {
                assert!(!child.ends_with('/'), "no trailing slash: {child}");
            }
            dirs_checked += 1;
        }
        // A file or an unknown URI is not a directory.
        for bad in [files[0].clone(), format!("{root}-nope"), format!("{root}/")] {
            let res = w.call("resources/directory/read", json!({ "uri": bad })).await;
            assert_eq!(error_of(&res).0, -32602, "{bad}");
            assert_repair(&res);
        }
    }
    assert!(dirs_checked > skills.len(), "some skills have subdirectories");
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

async fn rmcp_client() -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ClientServiceExt as _;
    let (server_end, client_end) = tokio::io::duplex(1 << 20);
    let server = server();
    tokio::spawn(async move {
        let _ = folio::server::run_on(server, server_end).await;
    });
    ().serve_with_lifecycle(
        client_end,
        rmcp::ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("discover lifecycle")
}

#[tokio::test]
async fn rmcp_client_walks_reads_completes_and_calls_tools() {
    use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
    let fx = fixture();
    let client = rmcp_client().await;
    let info = client.peer_info().expect("discover result");
    assert_eq!(info.server_info.as_ref().map(|i| i.name.as_str()), Some("corpora"));
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), listed_uris(&fx.catalog).len());
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 10);
    let doc = &fx.catalog.docs[0];
    let uri = format!("resource://docs/{}", doc.path);
    let read = client.read_resource(ReadResourceRequestParams::new(uri.clone())).await.unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &read.contents[0] else {
        panic!("docs are text")
    };
    assert_eq!(text.as_bytes(), &fx.catalog.entries[doc.entry as usize].bytes[..]);
    let mut args = serde_json::Map::new();
    args.insert("uri".to_owned(), json!(uri));
    let called =
        client.call_tool(CallToolRequestParams::new("read_resource").with_arguments(args)).await.unwrap();
    assert_eq!(called.structured_content.unwrap()["text"].as_str(), Some(text.as_str()));
    let values = client.complete_resource_simple("resource://docs/{+path}", "path", &doc.path).await.unwrap();
    assert_eq!(values.first(), Some(&doc.path));
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 5);
    client.cancel().await.unwrap();
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

#[tokio::test]
async fn skill_alias_uris_return_the_canonical_bytes() {
    let fx = fixture();
    let mut w = Wire::start();
    let mut checked = 0;
    for skill in &fx.catalog.skills {
        let canonical = &fx.catalog.entries[skill.document as usize].uri;
        let alias = format!("resource://skills/{}/document", skill.name);
        let a = w.ok("resources/read", json!({ "uri": alias })).await;
        let c = w.ok("resources/read", json!({ "uri": canonical })).await;
        assert_eq!(a["contents"][0]["text"], c["contents"][0]["text"], "{alias}");
        assert_eq!(a["contents"][0]["uri"], json!(alias), "the alias is echoed");
        for file in &skill.files {
            let canonical = &fx.catalog.entries[file.entry as usize].uri;
            let alias =
                format!("resource://skills/{}/references/{}", skill.name, file.ref_id.replace('/', "%2F"));
            let a = w.ok("resources/read", json!({ "uri": alias })).await;
            let c = w.ok("resources/read", json!({ "uri": canonical })).await;
            assert_eq!(decode_contents(&a["contents"][0]), decode_contents(&c["contents"][0]), "{alias}");
            assert_eq!(a["contents"][0]["mimeType"], c["contents"][0]["mimeType"]);
            checked += 1;
        }
    }
    assert!(checked > 10, "skill files checked through their ref_id aliases: {checked}");
}
