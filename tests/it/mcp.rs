//! The MCP server end to end: a raw JSON-RPC line client (exact protocol answers) and rmcp's own
//! client, both in process over `tokio::io::duplex`, against a catalog compiled from the vendored
//! corpora (agent-skills + hugo-docs); one test spawns the real binary over stdio. rmcp's client
//! walk (`rmcp_walk`) also runs over Streamable HTTP (`rmcp_http_client`), on one catalog's `/mcp`
//! and on a shelf's (tests/it/shelf.rs).
//!
//! Each test names the item of ARCHITECTURE.md's MCP conformance checklist it covers
//! (`// checklist #N`). This file holds what they share (the fixture, the line client, the
//! checks every answer passes); the tests live in `mcp/{wire,resources,tools,skills}.rs`.

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

/// rmcp's own client over Streamable HTTP, to `path` on the server at `addr`.
pub(crate) async fn rmcp_http_client(
    addr: std::net::SocketAddr,
    path: &str,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ClientServiceExt as _;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{}{path}", addr.port()));
    let transport = rmcp::transport::StreamableHttpClientTransport::with_client(HttpPost(addr), config);
    ().serve_with_lifecycle(
        transport,
        rmcp::ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("discover lifecycle over HTTP")
}

/// The HTTP exchanges under rmcp's Streamable HTTP client: each message POSTed with the headers
/// rmcp sets, on a fresh connection by the raw client of `mcp_http` (rmcp's own HTTP clients
/// would bring reqwest, or hyper's client half, into the tree for the tests alone). Folio
/// answers a POST with JSON and opens no GET stream, so SSE is not spoken here.
#[derive(Clone)]
struct HttpPost(std::net::SocketAddr);

#[expect(clippy::disallowed_types, reason = "rmcp's StreamableHttpClient trait takes a std HashMap")]
type Headers = std::collections::HashMap<axum::http::HeaderName, axum::http::HeaderValue>;
type HttpError = rmcp::transport::streamable_http_client::StreamableHttpError<std::io::Error>;

impl rmcp::transport::streamable_http_client::StreamableHttpClient for HttpPost {
    type Error = std::io::Error;

    async fn post_message(
        &self,
        uri: std::sync::Arc<str>,
        message: rmcp::model::ClientJsonRpcMessage,
        session_id: Option<std::sync::Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<rmcp::transport::streamable_http_client::StreamableHttpPostResponse, HttpError> {
        use rmcp::transport::streamable_http_client::StreamableHttpPostResponse;
        let path = uri.splitn(4, '/').nth(3).map_or("/".to_owned(), |p| format!("/{p}"));
        let mut headers: Vec<(String, String)> = custom_headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_owned()))
            .collect();
        headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
        headers.push(("Accept".to_owned(), "application/json, text/event-stream".to_owned()));
        if let Some(session) = session_id {
            headers.push(("Mcp-Session-Id".to_owned(), session.to_string()));
        }
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let body = serde_json::to_vec(&message)?;
        let reply = crate::mcp_http::exchange(self.0, "POST", &path, &headers, &body).await;
        let session = reply.header("mcp-session-id").map(str::to_owned);
        if reply.status == 202 {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        // JSON-RPC errors come with 4xx statuses and are answers all the same.
        match reply.header("content-type") {
            Some(kind) if kind.starts_with("application/json") => {
                Ok(StreamableHttpPostResponse::Json(serde_json::from_str(&reply.body)?, session))
            }
            other => Err(HttpError::UnexpectedContentType(other.map(str::to_owned))),
        }
    }

    async fn delete_session(
        &self,
        _uri: std::sync::Arc<str>,
        _session_id: std::sync::Arc<str>,
        _auth_header: Option<String>,
        _custom_headers: Headers,
    ) -> Result<(), HttpError> {
        Ok(())
    }

    async fn get_stream(
        &self,
        _uri: std::sync::Arc<str>,
        _session_id: Option<std::sync::Arc<str>>,
        _last_event_id: Option<String>,
        _auth_header: Option<String>,
        _custom_headers: Headers,
    ) -> Result<rmcp::transport::common::client_side_sse::BoxedSseResponse, HttpError> {
        Err(HttpError::ServerDoesNotSupportSse)
    }
}

/// What [`rmcp_walk`] expects of the server behind a client.
pub(crate) struct Walk<'a> {
    /// The `serverInfo` name and version it reports.
    pub(crate) server: (&'a str, &'a str),
    /// The catalogs it serves, each compiled from the fixture's content: `None` for one catalog
    /// with its own URIs, or the ids (`<name>@<version>`) of a shelf's, which its URIs name.
    pub(crate) shelf: Option<&'a [&'a str]>,
}

/// rmcp's own client through a server of the fixture's content: every resource and template
/// listed, a doc read as a resource and through the `read_resource` tool and its path completed
/// (in each catalog of a shelf), the tools listed.
pub(crate) async fn rmcp_walk(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>, walk: &Walk<'_>) {
    use rmcp::model::{
        CallToolRequestParams, CompletionContext, ReadResourceRequestParams, ResourceContents,
    };
    let fx = fixture();
    let info = client.peer_info().expect("discover result");
    let identity = info.server_info.as_ref().map(|i| (i.name.as_str(), i.version.as_str()));
    assert_eq!(identity, Some(walk.server));
    let catalogs: Vec<Option<&str>> =
        walk.shelf.map_or(vec![None], |ids| ids.iter().copied().map(Some).collect());
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), catalogs.len() * listed_uris(&fx.catalog).len());
    let listed: BTreeSet<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(listed.len(), resources.len(), "no URI listed twice");
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 10);
    let doc = &fx.catalog.docs[0];
    for catalog in catalogs {
        let (uri, template) = match catalog {
            None => (format!("resource://docs/{}", doc.path), "resource://docs/{+path}"),
            Some(id) => (format!("resource://{id}/docs/{}", doc.path), "resource://{catalog}/docs/{+path}"),
        };
        assert!(listed.contains(uri.as_str()), "{uri} is listed");
        let read = client.read_resource(ReadResourceRequestParams::new(uri.clone())).await.unwrap();
        let ResourceContents::TextResourceContents { text, uri: read_uri, .. } = &read.contents[0] else {
            panic!("docs are text")
        };
        assert_eq!(read_uri, &uri);
        assert_eq!(text.as_bytes(), &fx.catalog.entries[doc.entry as usize].bytes[..]);
        let mut args = serde_json::Map::new();
        args.insert("uri".to_owned(), json!(uri));
        let called =
            client.call_tool(CallToolRequestParams::new("read_resource").with_arguments(args)).await.unwrap();
        assert_eq!(called.structured_content.unwrap()["text"].as_str(), Some(text.as_str()));
        // On a shelf the path completes within the catalog the template's `catalog` names.
        let context = catalog.map(|id| {
            CompletionContext::with_arguments([("catalog".to_owned(), id.to_owned())].into_iter().collect())
        });
        let values =
            client.complete_resource_argument(template, "path", &doc.path, context).await.unwrap().values;
        assert_eq!(values.first(), Some(&doc.path), "{uri}");
        if let Some(id) = catalog {
            let ids = client.complete_resource_simple(template, "catalog", "").await.unwrap();
            assert!(ids.iter().any(|c| c == id), "{id} in {ids:?}");
        }
    }
    let tools = client.list_all_tools().await.unwrap();
    // A shelf adds `find_library` to the catalog tools.
    assert_eq!(tools.len(), if walk.shelf.is_some() { 6 } else { 5 });
}

mod resources;
mod skills;
mod tools;
mod wire;
