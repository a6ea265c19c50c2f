//! `folio browse`'s web view over plain HTTP on a real socket: what a person sees on each page
//! (index, skill, skill file, doc, search), that every value from the tree is inert (titles,
//! bodies and files holding script and raw HTML), that nothing outside the catalog is reachable
//! and raw answers are the catalog's bytes, and the Host and Origin rules. The real browser
//! test is `tests/browser/` (see README.md).

use std::net::SocketAddr;

use folio::compile::{Config, compile};
use folio::server::FolioServer;
use tokio::sync::oneshot;

use crate::mcp_http::{Reply, exchange};
use crate::support::repo;

/// A web view serving `server` on 127.0.0.1:0 until dropped.
struct Running {
    addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

async fn start(server: FolioServer) -> Running {
    start_with(server, folio::web::WebOptions::default()).await
}

async fn start_with(server: FolioServer, options: folio::web::WebOptions) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        folio::web::serve_web(listener, server, &options, async {
            let _ = stopped.await;
        })
        .await
    });
    Running { addr, _stop: stop }
}

fn fixture_server(name: &str) -> FolioServer {
    let compiled = compile(&Config::new(repo().join("tests/fixtures").join(name).join("content")));
    FolioServer::from_catalog(compiled.catalog.expect("the fixture compiles")).unwrap()
}

/// One request on a fresh connection (the MCP transport tests' raw HTTP/1.1 client).
async fn get(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    exchange(addr, method, path, headers, b"").await
}

async fn page(addr: SocketAddr, path: &str) -> String {
    let reply = get(addr, "GET", path, &[]).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.body);
    assert_eq!(reply.header("content-type"), Some("text/html; charset=utf-8"), "{path}");
    reply.body
}

/// The `<main>` of a page: what differs between pages.
fn main_of(page: &str) -> &str {
    let start = page.find("<main>").expect("a main element");
    &page[start..page.find("</main>").expect("a closed main")]
}

#[tokio::test]
async fn the_index_lists_skills_and_docs_and_a_skill_leads_to_its_files_and_back() {
    let web = start(fixture_server("basic")).await;
    let index = page(web.addr, "/").await;
    let main = main_of(&index);
    assert!(main.contains("<a class=\"name\" href=\"/skills/fill-forms/\">fill-forms</a>"), "{main}");
    assert!(main.contains(
        "<p>Fill PDF forms from structured data. Use when a user asks to complete a PDF form.</p>"
    ));
    assert!(main.contains("<span>3 files</span>"), "SKILL.md, a reference and an asset: {main}");
    assert!(main.contains("<a href=\"/docs/guides/\">guides/</a> <small>2 docs</small>"), "{main}");
    // The skill: SKILL.md rendered, its link to the reference a link to the reference's page.
    let skill = page(web.addr, "/skills/fill-forms/").await;
    let main = main_of(&skill);
    assert!(main.contains("<h1 id=\"fill-forms\">Fill forms</h1>"), "{main}");
    assert!(
        main.contains("<a href=\"/skills/fill-forms/references/fields.md\">the field reference</a>"),
        "{main}"
    );
    assert!(main.contains("<li class=\"dir\">references/<ul>"), "the file tree: {main}");
    assert!(main.contains("<dt>license</dt><dd>Apache-2.0</dd>"), "{main}");
    // The reference: rendered, and linked from SKILL.md (a backlink the catalog does not record
    // for skill files).
    let reference = page(web.addr, "/skills/fill-forms/references/fields.md").await;
    let main = main_of(&reference);
    assert!(main.contains("<h2>Linked from</h2>\n<ul class=\"plain backlinks\">\n<li><a href=\"/skills/fill-forms/\">fill-forms</a></li>"), "{main}");
    // A binary asset is offered, not shown as text.
    let logo = page(web.addr, "/skills/fill-forms/assets/logo.png").await;
    assert!(
        main_of(&logo).contains("<img src=\"/raw/skills/fill-forms/assets/logo.png\""),
        "{}",
        main_of(&logo)
    );
}

#[tokio::test]
async fn a_doc_page_has_its_sections_links_and_backlinks_and_search_finds_it() {
    let web = start(fixture_server("basic")).await;
    let install = page(web.addr, "/docs/guides/install.md").await;
    let main = main_of(&install);
    assert!(main.contains("<nav class=\"crumbs\"><a href=\"/\">Index</a> / <a href=\"/docs/\">docs</a> / <a href=\"/docs/guides/\">guides</a></nav>"), "{main}");
    assert!(main.contains("<h2>Linked from</h2>"), "{main}");
    let search = page(web.addr, "/search?q=install").await;
    let main = main_of(&search);
    assert!(main.contains("<ol class=\"hits\">\n<li><a href=\"/docs/guides/install.md"), "{main}");
    assert!(main.contains("<mark>"), "matched words are marked: {main}");
    // Search as you type asks for the results alone.
    let partial = get(web.addr, "GET", "/search?partial=1&q=install", &[]).await.body;
    assert!(partial.starts_with("<div id=\"results\">") && !partial.contains("<html"), "{partial}");
    let none = main_of(&page(web.addr, "/search?q=zzzqqq").await).to_owned();
    assert!(none.contains("0 results for <q>zzzqqq</q>"), "{none}");
}

#[tokio::test]
async fn markup_and_script_from_the_tree_are_shown_as_text() {
    let web = start(fixture_server("web-hostile")).await;
    let mut pages = Vec::new();
    for path in [
        "/",
        "/docs/index.md",
        "/skills/inert-skill/",
        "/skills/inert-skill/scripts/run.sh",
        "/search?q=script",
    ] {
        pages.push((path, page(web.addr, path).await));
    }
    for (path, html) in &pages {
        for live in [
            "<script>alert",
            "<div onclick",
            "<img src=x",
            "<iframe",
            "href=\"javascript:",
            "href=\"data:",
            "<b>bold",
            "<i>catalog",
            "<em>heading",
            "a comment nobody",
        ] {
            assert!(!html.contains(live), "{path} holds `{live}` as markup:\n{html}");
        }
        // The only script a page loads is this server's.
        assert_eq!(html.matches("<script").count(), 1, "{path}");
    }
    let doc = &pages[1].1;
    assert!(doc.contains("<title>&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; Index · Hostile &lt;i&gt;catalog&lt;/i&gt;</title>"), "{doc}");
    assert!(doc.contains("<pre class=\"raw-html\">&lt;div onclick=&quot;alert(1)&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;Raw block&lt;/div&gt;"), "{doc}");
    assert!(
        doc.contains(
            "<span class=\"refused\" title=\"not followed: `javascript:alert(4)`\">script link</span>"
        ),
        "{doc}"
    );
    assert!(doc.contains("<span class=\"broken\" title=\"not in this catalog: `nope.md` (a broken link, or a file the catalog does not hold)\">missing page</span>"), "{doc}");
    assert!(doc.contains("<a href=\"/skills/inert-skill/\">the skill</a>"), "{doc}");
    assert!(doc.contains("<a class=\"external\" href=\"https://example.com/a?b=1&amp;c=2\" rel=\"noreferrer\">outside site</a>"), "{doc}");
    assert!(!doc.contains("<pre class=\"raw-html\"></pre>"), "a comment leaves no empty block: {doc}");
    assert!(
        doc.contains("[image: an outside image]") && !doc.contains("<img src=\"https:"),
        "nothing fetched from elsewhere: {doc}"
    );
    let skill = &pages[2].1;
    assert!(skill.contains("&quot;&gt;&lt;script&gt;alert(5)&lt;/script&gt;"), "{skill}");
    assert!(skill.contains("<img src=\"/raw/skills/inert-skill/assets/pic.svg\""), "{skill}");
    let script = &pages[3].1;
    assert!(
        script.contains("<span class=\"s\">&quot;&lt;script&gt;alert(8)&lt;/script&gt;&quot;</span>"),
        "{script}"
    );
    // An SVG opened on its own runs nothing: sandboxed, typed, not sniffed.
    let svg = get(web.addr, "GET", "/raw/skills/inert-skill/assets/pic.svg", &[]).await;
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    assert!(svg.header("content-security-policy").unwrap().ends_with("sandbox"));
    assert_eq!(svg.header("x-content-type-options"), Some("nosniff"));
    // Every page forbids inline script and anything from elsewhere.
    let index = get(web.addr, "GET", "/", &[]).await;
    assert!(
        index
            .header("content-security-policy")
            .unwrap()
            .starts_with("default-src 'none'; script-src 'self';")
    );
}

#[tokio::test]
async fn raw_answers_are_the_catalogs_bytes_and_nothing_else_is_reachable() {
    let server = fixture_server("basic");
    let query = server.query();
    let web = start(server).await;
    let catalog = query.catalog();
    for (i, entry) in catalog.entries.iter().enumerate() {
        let page = match entry.kind {
            folio::catalog::EntryKind::Doc => format!("/docs/{}", entry.path.strip_prefix("docs/").unwrap()),
            _ => {
                let skill = catalog
                    .skills
                    .iter()
                    .find(|s| s.document as usize == i || s.files.iter().any(|f| f.entry as usize == i))
                    .unwrap();
                match skill.files.iter().find(|f| f.entry as usize == i) {
                    Some(file) => format!("/skills/{}/{}", skill.name, file.rel_path),
                    None => format!("/skills/{}/SKILL.md", skill.name),
                }
            }
        };
        let reply = get(web.addr, "GET", &format!("/raw{page}"), &[]).await;
        assert_eq!(reply.status, 200, "{page}");
        assert_eq!(reply.bytes, entry.bytes.as_ref(), "{page} is served byte for byte");
        assert_eq!(reply.header("etag"), Some(format!("\"{}\"", entry.blake3).as_str()));
    }
    for path in [
        "/raw/../Cargo.toml",
        "/raw/docs/../../Cargo.toml",
        "/raw/docs/%2e%2e/%2e%2e/folio.toml",
        "/docs/../../../../etc/passwd",
        "/raw/skills/fill-forms/../../folio.toml",
        "/raw/skills/fill-forms/%2e%2e%2f%2e%2e%2ffolio.toml",
        "/folio.toml",
        "/raw/folio.toml",
        "/skills/nope/",
        "/raw/docs/guides/",
    ] {
        let reply = get(web.addr, "GET", path, &[]).await;
        assert_eq!(reply.status, 404, "{path}: {}", reply.body);
        assert!(!reply.body.contains("[catalog]"), "{path}");
    }
    let post = get(web.addr, "POST", "/", &[("Content-Length", "0")]).await;
    assert_eq!((post.status, post.header("allow")), (405, Some("GET, HEAD")));
}

#[tokio::test]
async fn foreign_hosts_and_origins_are_refused_with_the_flag_that_allows_them() {
    let web = start(fixture_server("basic")).await;
    let evil = get(web.addr, "GET", "/", &[("Host", "evil.example")]).await;
    assert_eq!(evil.status, 403);
    assert!(evil.body.contains("--allow-host evil.example"), "{}", evil.body);
    let origin = get(web.addr, "GET", "/search?q=install", &[("Origin", "https://evil.example")]).await;
    assert_eq!(origin.status, 403);
    let own = format!("http://127.0.0.1:{}", web.addr.port());
    let same = get(web.addr, "GET", "/search?partial=1&q=install", &[("Origin", own.as_str())]).await;
    assert_eq!(same.status, 200, "the page's own origin: {}", same.body);
    let localhost = get(web.addr, "GET", "/", &[("Host", "localhost")]).await;
    assert_eq!(localhost.status, 200);
}

#[test]
fn the_binary_prints_its_address_and_follows_the_content_it_browses() {
    use std::io::BufRead as _;
    let tree = crate::support::Tree::new();
    crate::support::copy_dir(&repo().join("tests/fixtures/basic"), tree.path());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_folio"))
        .args(["browse", "--port", "0", "--content", "content"])
        .current_dir(tree.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().to_owned();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with('/'), "{url:?}");
    let addr: SocketAddr = url.trim_start_matches("http://").trim_end_matches('/').parse().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let version = get(addr, "GET", "/_/version", &[]).await.body;
        let index = page(addr, "/").await;
        assert!(index.contains("data-live=\"1\""), "pages reload when the tree changes");
        // An edit is compiled and served: the version moves and the page shows the new title.
        tree.file("content/docs/guides/install.md", "# Set it up\n\nNew words.\n");
        // The page's script asks for the version after its own: answered once the reload lands.
        let now = get(addr, "GET", &format!("/_/version?after={version}"), &[]).await.body;
        assert_ne!(now, version, "the edit was not picked up within the wait");
        assert!(
            main_of(&page(addr, "/docs/guides/install.md").await)
                .contains("<h1 id=\"set-it-up\">Set it up</h1>")
        );
    });
    let _ = child.kill();
    let _ = child.wait();
}

/// Requests waiting for a reload (`/_/version?after=`, one per open page) are held up to a cap
/// of their own, half the connections at most: on a server of eight connections, eight such
/// requests leave four held and four answered at once (with `Retry-After`), and a page is
/// answered beside them. Before the cap, the eight held every connection and a page waited for
/// them to time out.
#[tokio::test]
async fn waiting_version_requests_have_a_cap_of_their_own_and_leave_room_for_pages() {
    let mut options = folio::web::WebOptions::default();
    options.limits.max_connections = 8;
    let web = start_with(fixture_server("basic"), options).await;
    let addr = web.addr;
    let version = get(addr, "GET", "/_/version", &[]).await.body;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..8 {
        let (tx, path) = (tx.clone(), format!("/_/version?after={version}"));
        tokio::spawn(async move {
            let _ = tx.send(get(addr, "GET", &path, &[]).await);
        });
    }
    drop(tx);
    for _ in 0..4 {
        let reply = rx.recv().await.expect("four answered at once");
        assert_eq!((reply.status, reply.body.as_str()), (200, version.as_str()));
        assert_eq!(reply.header("retry-after"), Some("5"));
    }
    let index = get(addr, "GET", "/", &[]).await;
    assert_eq!(index.status, 200, "a page is answered while four requests are held");
    assert!(rx.try_recv().is_err(), "the other four are still held");
    // Shutdown ends the held ones, with the version and no `Retry-After`.
    drop(web);
    for _ in 0..4 {
        let reply = rx.recv().await.expect("answered at shutdown");
        assert_eq!((reply.body.as_str(), reply.header("retry-after")), (version.as_str(), None));
    }
}

#[tokio::test]
async fn an_email_autolink_is_a_mailto_link() {
    let tree = crate::support::Tree::new();
    tree.file("docs/a.md", "# A\n\nWrite to <team@docs.example> or [us](mailto:us@docs.example).\n");
    let server = FolioServer::from_catalog(compile(&Config::new(tree.path())).catalog.unwrap()).unwrap();
    let web = start(server).await;
    let main = main_of(&page(web.addr, "/docs/a.md").await).to_owned();
    assert!(
        main.contains(
            "<a class=\"external\" href=\"mailto:team@docs.example\" rel=\"noreferrer\">team@docs.example</a>"
        ),
        "{main}"
    );
    assert!(main.contains("href=\"mailto:us@docs.example\""), "{main}");
    assert!(!main.contains("class=\"broken\""), "{main}");
}

/// A doc of 120,000 links (4 MB): 20,000 to a page of the catalog, the rest to sites elsewhere.
fn link_heavy_server() -> FolioServer {
    use std::fmt::Write as _;
    let tree = crate::support::Tree::new();
    let mut big = String::from("# Links\n\n");
    for i in 0..120_000 {
        if i % 6 == 0 {
            let _ = writeln!(big, "[s{i}](small.md#more)");
        } else {
            let _ = writeln!(big, "[e{i}](https://e.example/{i})");
        }
    }
    tree.file("docs/links.md", big).file("docs/small.md", "# Small\n\n## More\n\nA small page.\n");
    let compiled = compile(&Config::new(tree.path()));
    FolioServer::from_catalog(compiled.catalog.expect("the tree compiles")).unwrap()
}

/// A page is rendered off the async workers, in time linear in its links: with two renders of a
/// 120,000-link page in flight on a server of one async worker, a small page asked for after them
/// is answered before the first byte of either big answer arrives (an answer's head is sent once
/// its page is rendered: before the fix, the small page waited for the first big one); and the big page is whole (every link drawn, each site listed once).
#[test]
fn a_small_page_is_answered_while_a_page_of_120000_links_renders() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let server_runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let web = server_runtime.block_on(async { start(link_heavy_server()).await });
    let addr = web.addr;
    let client = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (events, bigs) = client.block_on(async move {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut readers = Vec::new();
        for name in ["big 1", "big 2"] {
            // Each request is written whole before the next one is sent.
            let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            let head = format!(
                "GET /docs/links.md HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
                addr.port()
            );
            stream.write_all(head.as_bytes()).await.unwrap();
            // A round trip that needs no page: the server has taken the big request before it
            // answers this one (connections are accepted in order), so it is on its way.
            assert_eq!(get(addr, "GET", "/_/style.css", &[]).await.status, 200);
            let tx = tx.clone();
            readers.push(tokio::spawn(async move {
                let mut raw = vec![0u8; 1];
                stream.read_exact(&mut raw).await.unwrap();
                let _ = tx.send(format!("{name} begins"));
                stream.read_to_end(&mut raw).await.unwrap();
                crate::mcp_http::parse_reply(&raw)
            }));
        }
        let small = get(addr, "GET", "/docs/small.md", &[]).await;
        assert_eq!(small.status, 200);
        assert!(main_of(&small.body).contains("<h1 id=\"small\">Small</h1>"));
        let _ = tx.send("small answered".to_owned());
        let mut bigs = Vec::new();
        for reader in readers {
            bigs.push(reader.await.unwrap());
        }
        drop(tx);
        let mut events = Vec::new();
        while let Some(event) = rx.recv().await {
            events.push(event);
        }
        (events, bigs)
    });
    assert_eq!(events[0], "small answered", "the small page waited for a big one: {events:?}");
    for big in &bigs {
        assert_eq!(big.status, 200);
        let main = main_of(&big.body);
        assert_eq!(
            main.matches("<a class=\"external\" href=\"https://e.example/").count(),
            2 * 100_000,
            "each drawn in the body and listed once under Links out"
        );
        assert_eq!(main.matches("<a href=\"/docs/small.md#more\">s").count(), 20_000);
        assert!(main.contains(
            "<a class=\"external\" href=\"https://e.example/119999\" rel=\"noreferrer\">e119999</a>"
        ));
        let links_out = &main[main.find("<h2>Links out</h2>").expect("links out")..];
        assert_eq!(links_out.matches("<li><a href=\"/docs/small.md\">Small</a></li>").count(), 1);
        assert_eq!(links_out.matches("<li><a class=\"external\" href=\"https://e.example/1\" ").count(), 1);
    }
    drop(web);
}
