//! The real `folio serve --shelf DIR` over stdio, on a shelf of catalogs built by `folio build`
//! (`alpha` at 2.9 and 2.10, `beta` at 0.3, `gamma` without a version, as a bare `.msgpack`):
//! the listing, reads by shelf URI, version picking, search within one catalog and across the
//! shelf with the catalog named in each hit, the SEP-2640 skills, and a folder change served
//! without a restart.

use serde_json::{Value, json};

use crate::live_serve::Served;
use crate::support::{Tree, folio};

/// A doc's bytes in the tree of `name` at `version`.
fn guide(name: &str, version: &str) -> String {
    format!("# Guide {name} {version}\n\nThe {name} guide explains widgets for {name} users.\n")
}

/// Builds the tree of `name` (at `version`) into `out` (relative to the tree's root).
fn build(t: &Tree, name: &str, version: Option<&str>, about: &str, out: &str) {
    let src = format!("src-{name}-{}", version.unwrap_or("none"));
    let version_line = version.map(|v| format!("version = \"{v}\"\n")).unwrap_or_default();
    t.file(
        format!("{src}/folio.toml"),
        format!("[catalog]\nname = \"{name}\"\n{version_line}title = \"The {name} library\"\ndescription = \"{about}\"\n"),
    )
    .file(format!("{src}/docs/guide.md"), guide(name, version.unwrap_or("none")))
    .file(
        format!("{src}/skills/tool-{name}/SKILL.md"),
        format!("---\nname: tool-{name}\ndescription: Uses the {name} tools.\n---\n# Tool\n\nDo it.\n"),
    );
    let res = folio(t.path(), &["build", &src, "--out", out]);
    assert_eq!(res.code, Some(0), "{}", res.stderr);
}

fn shelf() -> Tree {
    let t = Tree::new();
    build(&t, "alpha", Some("2.9"), "Parses documents.", "shelf/alpha-2.9");
    build(&t, "alpha", Some("2.10"), "Parses documents.", "shelf/alpha-2.10");
    build(&t, "beta", Some("0.3"), "Talks to the network.", "shelf/beta");
    build(&t, "gamma", None, "Draws charts.", "built/gamma");
    std::fs::rename(t.join("built/gamma/catalog.msgpack"), t.join("shelf/gamma.msgpack")).unwrap();
    t
}

fn call(s: &mut Served, tool: &str, arguments: Value) -> Value {
    let res = s.ok("tools/call", json!({ "name": tool, "arguments": arguments }));
    assert_ne!(res["isError"], json!(true), "{tool}: {res}");
    res["structuredContent"].clone()
}

#[test]
fn a_shelf_lists_reads_picks_versions_and_searches_across_catalogs() {
    let t = shelf();
    let mut s = Served::start(t.path(), &["serve", "--shelf", "shelf"]);

    // Finding a library: by name (newest version first, numerically) or by its description.
    let found = call(&mut s, "find_library", json!({ "query": "alpha" }));
    assert_eq!(found["libraries"][0]["catalog"], "alpha@2.10", "{found}");
    assert_eq!(found["libraries"][0]["versions"], json!(["2.10", "2.9"]));
    let older = call(&mut s, "find_library", json!({ "query": "alpha", "version": "2.9" }));
    assert_eq!(older["libraries"][0]["catalog"], "alpha@2.9");
    let by_words = call(&mut s, "find_library", json!({ "query": "network" }));
    assert_eq!(by_words["libraries"][0]["name"], "beta", "{by_words}");
    let all = call(&mut s, "find_library", json!({}));
    assert_eq!(all["total"], 3, "{all}");

    // Reads: a name alone is its latest version; the answer names the version read.
    let latest = s.ok("resources/read", json!({ "uri": "resource://alpha/docs/guide.md" }));
    assert_eq!(latest["contents"][0]["uri"], "resource://alpha@2.10/docs/guide.md");
    assert_eq!(latest["contents"][0]["text"], guide("alpha", "2.10"));
    assert_eq!(s.text("resource://alpha@2.9/docs/guide.md"), guide("alpha", "2.9"));
    assert_eq!(s.text("resource://gamma/docs/guide.md"), guide("gamma", "none"));
    // A URI that names no catalog is not found, and says how URIs are written on a shelf.
    let unnamed = s.answer("resources/read", json!({ "uri": "resource://docs/guide.md" }));
    assert!(unnamed["error"]["message"].as_str().unwrap().contains("names its catalog"), "{unnamed}");
    let unknown = s.answer("resources/read", json!({ "uri": "resource://delta@1/docs/guide.md" }));
    assert!(unknown["error"]["message"].as_str().unwrap().contains("no catalog `delta@1`"), "{unknown}");
    // Records Folio writes name the catalog in their URIs.
    let index: Value = serde_json::from_str(&s.text("resource://beta@0.3/catalog/docs_index")).unwrap();
    assert_eq!(index["items"][0]["uri"], "resource://beta@0.3/docs/guide.md", "{index}");

    // Search across the shelf: the latest version of each library, each hit naming its catalog.
    let across = call(&mut s, "search_patterns", json!({ "query": "widgets" }));
    let hits = across["hits"].as_array().unwrap();
    let catalogs: Vec<&str> = hits.iter().map(|h| h["catalog"].as_str().unwrap()).collect();
    assert_eq!(catalogs.len(), 3, "{across}");
    for catalog in ["alpha@2.10", "beta@0.3", "gamma"] {
        assert!(catalogs.contains(&catalog), "{catalog} in {catalogs:?}");
    }
    for hit in hits {
        let catalog = hit["catalog"].as_str().unwrap();
        let uri = hit["uri"].as_str().unwrap();
        assert!(uri.starts_with(&format!("resource://{catalog}/")), "{hit}");
        // The hit is the catalog's it names: its URI reads that catalog's page.
        let (name, version) = catalog.split_once('@').unwrap_or((catalog, "none"));
        assert_eq!(s.text(uri), guide(name, version), "{hit}");
    }
    // Search within one catalog, any version.
    let within = call(&mut s, "search_patterns", json!({ "query": "widgets", "catalog": "alpha@2.9" }));
    assert_eq!(within["hits"][0]["uri"], "resource://alpha@2.9/docs/guide.md", "{within}");
    assert_eq!(within["catalog"], "alpha@2.9");

    // The catalog tools take the catalog, or read it from a shelf URI.
    let read = call(&mut s, "read_resource", json!({ "uri": "resource://beta@0.3/docs/guide.md" }));
    assert_eq!(read["text"], guide("beta", "0.3"));
    let detail = call(&mut s, "get_pattern_by_id", json!({ "id": "guide.md", "catalog": "beta" }));
    assert_eq!(detail["detail_uri"], "resource://beta@0.3/catalog/docs/guide.md", "{detail}");
    let no_catalog = s.ok("tools/call", json!({ "name": "list_resources", "arguments": {} }));
    assert_eq!(no_catalog["isError"], true, "{no_catalog}");

    // Every catalog's resources, page after page, each URI naming its catalog once.
    let mut uris = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({ "cursor": c }));
        let page = s.ok("resources/list", params);
        uris.extend(
            page["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    for uri in [
        "resource://alpha@2.9/docs/guide.md",
        "resource://alpha@2.10/catalog/about",
        "skill://beta@0.3/tool-beta/SKILL.md",
        "resource://gamma/docs/guide.md",
    ] {
        assert!(uris.contains(&uri.to_owned()), "{uri} in {uris:?}");
    }
    let mut unique = uris.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), uris.len(), "no URI twice");

    // SEP-2640 skills of every catalog under the shelf's URIs.
    let skills = s.ok("skills/list", json!({}));
    let first = skills["skills"][0]["uri"].as_str().unwrap().to_owned();
    assert_eq!(first, "skill://alpha@2.10/tool-alpha/SKILL.md", "{skills}");
    let got = s.ok("skills/get", json!({ "uri": first }));
    assert_eq!(got["skill"]["uri"], first, "{got}");
    assert_eq!(
        s.text(&first),
        "---\nname: tool-alpha\ndescription: Uses the alpha tools.\n---\n# Tool\n\nDo it.\n"
    );

    // Templates carry the catalog as a variable.
    let templates = s.ok("resources/templates/list", json!({}));
    let forms: Vec<&str> = templates["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert!(forms.contains(&"resource://{catalog}/docs/{+path}"), "{forms:?}");
}

#[test]
fn the_tools_of_a_shelf_are_the_catalog_tools_with_a_catalog_and_find_library() {
    let t = shelf();
    let mut s = Served::start(t.path(), &["serve", "--shelf", "shelf"]);
    let tools = s.ok("tools/list", json!({}))["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "find_library",
            "get_pattern_by_id",
            "get_skill_document_by_id",
            "list_resources",
            "read_resource",
            "search_patterns"
        ]
    );
    for tool in &tools[1..] {
        assert_eq!(tool["inputSchema"]["properties"]["catalog"]["type"], "string", "{tool}");
    }
}

#[test]
fn two_catalogs_of_one_name_and_version_are_refused_naming_both() {
    let t = shelf();
    std::fs::copy(t.join("shelf/beta/catalog.msgpack"), t.join("shelf/beta-copy.msgpack")).unwrap();
    let res = folio(t.path(), &["serve", "--shelf", "shelf"]);
    assert_eq!(res.code, Some(2), "{}", res.stderr);
    assert!(
        res.stderr.contains("beta-copy.msgpack") && res.stderr.contains("beta/catalog.msgpack"),
        "{}",
        res.stderr
    );
    assert!(res.stderr.contains("`beta@0.3`"), "{}", res.stderr);
}

#[test]
fn a_catalog_added_to_or_removed_from_a_watched_shelf_is_served_or_withdrawn() {
    let t = shelf();
    let mut s = Served::start(t.path(), &["serve", "--shelf", "shelf", "--watch"]);
    s.listen(json!({ "resourcesListChanged": true }));
    // A catalog moved in (as `folio build` finishes one: renamed into place).
    build(&t, "delta", Some("1.0"), "Reads tables.", "built/delta");
    std::fs::rename(t.join("built/delta/catalog.msgpack"), t.join("shelf/delta.msgpack")).unwrap();
    assert_eq!(s.note(), crate::live_serve::list_changed());
    assert_eq!(s.text("resource://delta@1.0/docs/guide.md"), guide("delta", "1.0"));
    // And removed.
    std::fs::remove_file(t.join("shelf/delta.msgpack")).unwrap();
    assert_eq!(s.note(), crate::live_serve::list_changed());
    let gone = s.answer("resources/read", json!({ "uri": "resource://delta@1.0/docs/guide.md" }));
    assert!(gone["error"]["message"].as_str().unwrap().contains("no catalog"), "{gone}");
}

/// `serve --shelf DIR --http` in process on `127.0.0.1:0`: its address, and what stops it.
struct HttpShelf {
    addr: std::net::SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), folio::server::ServeError>>,
}

/// How the tests open a shelf's catalogs: read from the file.
fn opener() -> folio::server::shelf::Opener {
    std::sync::Arc::new(|path| folio::query::Query::open_file(path).map_err(|e| e.to_string()))
}

impl HttpShelf {
    async fn start(dir: &std::path::Path, catalogs: usize) -> HttpShelf {
        HttpShelf::serve(dir, catalogs, folio::server::LiveMode::Fixed).await.0
    }

    /// The shelf of `dir` served in `mode`, with its server (to replace the shelf as a watched
    /// folder's change does).
    async fn serve(
        dir: &std::path::Path,
        catalogs: usize,
        mode: folio::server::LiveMode,
    ) -> (HttpShelf, folio::server::ShelfServer) {
        use folio::server::{HttpOptions, Shelf, ShelfServer};
        let files = Shelf::files_in(dir).unwrap();
        let shelf = Shelf::open(&files, opener()).unwrap();
        assert_eq!(shelf.len(), catalogs);
        let server = ShelfServer::new(shelf, mode);
        let served = server.clone();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            folio::server::serve_shelf_http(listener, server, &HttpOptions::default(), async {
                let _ = stopped.await;
            })
            .await
        });
        (HttpShelf { addr, stop, task }, served)
    }

    async fn shutdown(self) {
        let _ = self.stop.send(());
        tokio::time::timeout(std::time::Duration::from_secs(10), self.task).await.unwrap().unwrap().unwrap();
    }
}

#[tokio::test]
async fn over_http_mcp_serves_the_shelf_and_mcp_name_one_catalog_with_its_own_uris() {
    use crate::mcp_http::{exchange, rpc_at};

    let t = shelf();
    let served = HttpShelf::start(&t.join("shelf"), 4).await;
    let addr = served.addr;
    let text = |reply: crate::mcp_http::Reply| {
        let v = reply.json();
        (v["result"]["contents"][0]["uri"].as_str().unwrap_or_default().to_owned(), v)
    };

    // `/mcp`: the shelf, its URIs naming the catalog.
    let read =
        rpc_at(addr, "/mcp", "resources/read", json!({ "uri": "resource://beta@0.3/docs/guide.md" }), &[])
            .await;
    assert_eq!(text(read).0, "resource://beta@0.3/docs/guide.md");
    // `/mcp/<name>`: the latest version, with the catalog's own URIs and tools.
    let (uri, v) = text(
        rpc_at(addr, "/mcp/alpha", "resources/read", json!({ "uri": "resource://docs/guide.md" }), &[]).await,
    );
    assert_eq!(uri, "resource://docs/guide.md");
    assert_eq!(v["result"]["contents"][0]["text"], guide("alpha", "2.10"));
    let (_, v) = text(
        rpc_at(addr, "/mcp/alpha@2.9", "resources/read", json!({ "uri": "resource://docs/guide.md" }), &[])
            .await,
    );
    assert_eq!(v["result"]["contents"][0]["text"], guide("alpha", "2.9"));
    let tools = rpc_at(addr, "/mcp/gamma", "tools/list", json!({}), &[]).await.json();
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(!names.contains(&"find_library"), "one catalog's tools: {names:?}");
    // An unknown catalog is a 404 naming those there are.
    let missing = rpc_at(addr, "/mcp/delta", "server/discover", json!({}), &[]).await;
    assert_eq!(missing.status, 404, "{missing:?}");
    assert!(missing.body.contains("alpha@2.10"), "{}", missing.body);
    let health = exchange(addr, "GET", "/healthz", &[], b"").await.json();
    assert_eq!(health["catalogs"], 4);
    assert_eq!(health["open"], 4, "beta, alpha@2.10, alpha@2.9 and gamma were asked for: {health}");
    served.shutdown().await;
}

/// Each catalog of a shelf at `/mcp/<name>@<version>` passes the HTTP tests of one catalog's
/// `/mcp`: the transport rules, stateless JSON answers, and rmcp's own client walking it; and
/// rmcp's client walks the shelf itself at `/mcp`. The shelf holds the MCP tests' corpora at two
/// versions, so the single-catalog tests apply to each unchanged.
#[tokio::test]
async fn each_catalog_of_a_shelf_passes_the_http_tests_of_one_catalog() {
    use crate::mcp::{Walk, fixture, rmcp_http_client, rmcp_walk};
    use crate::mcp_http_rules::{stateless_json_at, transport_rules_at};

    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rmcp-shelf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let versions = ["1.0", "2.0"];
    for version in versions {
        let mut config = folio::compile::Config::new(fixture().root.clone());
        config.version = Some(version.to_owned());
        let catalog = folio::compile::compile(&config).catalog.expect("the fixture compiles");
        let bytes = folio::catalog::codec::encode(&catalog).msgpack;
        std::fs::write(dir.join(format!("corpora-{version}.msgpack")), bytes).unwrap();
    }
    let served = HttpShelf::start(&dir, 2).await;

    for version in versions {
        let path = format!("/mcp/corpora@{version}");
        transport_rules_at(served.addr, &path).await;
        stateless_json_at(served.addr, &path).await;
        let client = rmcp_http_client(served.addr, &path).await;
        rmcp_walk(&client, &Walk { server: ("corpora", version), shelf: None }).await;
        client.cancel().await.unwrap();
    }
    let client = rmcp_http_client(served.addr, "/mcp").await;
    let ids = versions.map(|v| format!("corpora@{v}"));
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    rmcp_walk(&client, &Walk { server: ("folio", env!("CARGO_PKG_VERSION")), shelf: Some(&ids) }).await;
    client.cancel().await.unwrap();
    served.shutdown().await;
}

#[tokio::test]
async fn browse_shows_an_index_of_the_shelf_and_each_catalog_under_its_prefix() {
    use tower::ServiceExt as _;

    let t = shelf();
    let files = folio::server::Shelf::files_in(&t.join("shelf")).unwrap();
    let opener: folio::server::shelf::Opener =
        std::sync::Arc::new(|path| folio::query::Query::open_file(path).map_err(|e| e.to_string()));
    let server = folio::server::ShelfServer::new(
        folio::server::Shelf::open(&files, opener).unwrap(),
        folio::server::LiveMode::Fixed,
    );
    let app = folio::web::shelf_router(server, &folio::web::WebOptions::default());
    let get = |path: &str| {
        let request = axum::http::Request::get(path)
            .header("host", "localhost")
            .body(axum::body::Body::empty())
            .unwrap();
        let app = app.clone();
        async move {
            let response = app.oneshot(request).await.unwrap();
            let status = response.status().as_u16();
            let body = axum::body::to_bytes(response.into_body(), 1 << 24).await.unwrap();
            (status, String::from_utf8(body.to_vec()).unwrap())
        }
    };
    let (status, index) = get("/").await;
    assert_eq!(status, 200);
    for link in ["href=\"/alpha@2.10/\"", "href=\"/alpha@2.9/\"", "href=\"/beta@0.3/\"", "href=\"/gamma/\""] {
        assert!(index.contains(link), "{link} in {index}");
    }
    let (status, page) = get("/alpha@2.9/docs/guide.md").await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("The alpha guide explains widgets"), "{page}");
    assert!(page.contains("href=\"/alpha@2.9/docs/\""), "links stay under the catalog: {page}");
    assert!(!page.contains("href=\"/docs/"), "{page}");
    let (status, _) = get("/delta/").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn mcp_name_follows_the_latest_version_and_tells_its_listen_streams() {
    use crate::mcp_http::{open_listen_at, rpc_at};
    use tokio::io::AsyncBufReadExt as _;

    let t = shelf();
    let (served, server) = HttpShelf::serve(&t.join("shelf"), 4, folio::server::LiveMode::Watched).await;
    let addr = served.addr;
    let discover = rpc_at(addr, "/mcp/alpha", "server/discover", json!({}), &[]).await.json();
    assert_eq!(discover["result"]["capabilities"]["resources"]["listChanged"], true, "{discover}");
    let (mut stream, _, ack) = open_listen_at(addr, "/mcp/alpha").await;
    assert_eq!(ack["params"]["notifications"]["resourcesListChanged"], true, "{ack}");

    // alpha 3.0, with a page 2.10 lacks, lands on the shelf, as a watched folder's change
    // replaces it.
    t.file("src-alpha-3.0/docs/streaming.md", "# Streaming\n\nNew in 3.0.\n");
    build(&t, "alpha", Some("3.0"), "Parses documents.", "shelf/alpha-3.0");
    let files = folio::server::Shelf::files_in(&t.join("shelf")).unwrap();
    assert!(server.replace(folio::server::Shelf::reopen_from(&files, opener(), &server.shelf()).unwrap()));
    let note = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(stream.read_line(&mut line).await.unwrap() > 0, "stream ended");
            if let Some(data) = line.trim_end().strip_prefix("data:") {
                return serde_json::from_str::<Value>(data.trim()).unwrap();
            }
        }
    })
    .await
    .expect("a notification within 20 s");
    assert_eq!(note["method"], "notifications/resources/list_changed", "{note}");
    let read =
        rpc_at(addr, "/mcp/alpha", "resources/read", json!({ "uri": "resource://docs/guide.md" }), &[])
            .await
            .json();
    assert_eq!(read["result"]["contents"][0]["text"], guide("alpha", "3.0"));
    // A pinned version stays where it was.
    let pinned =
        rpc_at(addr, "/mcp/alpha@2.10", "resources/read", json!({ "uri": "resource://docs/guide.md" }), &[])
            .await
            .json();
    assert_eq!(pinned["result"]["contents"][0]["text"], guide("alpha", "2.10"));
    served.shutdown().await;
}

#[test]
fn a_shelf_keeps_at_most_max_open_catalogs_open_closing_the_least_recently_used() {
    let t = shelf();
    let files = folio::server::Shelf::files_in(&t.join("shelf")).unwrap();
    let shelf = folio::server::Shelf::open(&files, opener()).unwrap();
    shelf.cap_open(2);
    let read = |id: &str| {
        let server = shelf.server(id).unwrap();
        let query = server.query();
        query.entry("resource://docs/guide.md").unwrap().text().unwrap().to_owned()
    };
    assert_eq!(read("alpha@2.9"), guide("alpha", "2.9"));
    assert_eq!(read("beta"), guide("beta", "0.3"));
    assert_eq!(read("alpha@2.9"), guide("alpha", "2.9"));
    assert_eq!(shelf.open_count(), 2);
    // A third closes the least recently used (beta), not the one read just before.
    assert_eq!(read("gamma"), guide("gamma", "none"));
    assert_eq!(shelf.open_count(), 2);
    assert_eq!(read("alpha@2.9"), guide("alpha", "2.9"));
    // A closed catalog opens again when asked for.
    assert_eq!(read("beta"), guide("beta", "0.3"));
    assert_eq!(shelf.open_count(), 2);
    // It keeps its bound across a rescan of the folder.
    let again = folio::server::Shelf::reopen_from(&files, opener(), &shelf).unwrap();
    for id in ["alpha@2.9", "alpha@2.10", "beta", "gamma"] {
        again.server(id).unwrap();
    }
    assert_eq!(again.open_count(), 2);
}
