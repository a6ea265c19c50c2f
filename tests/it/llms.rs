//! `llms.txt` and `llms-full.txt`: `folio build` writes them beside the catalog, deterministic;
//! they follow the llmstxt.org format (held here to its rules, on a fixture and on Folio's own
//! manual); `browse` and `serve --http` answer them at `/llms.txt` and `/llms-full.txt`, and the
//! links of `llms.txt` lead to each page's markdown in `browse`.

use folio::compile::{Config, compile};
use folio::server::{FolioServer, HttpOptions};

use crate::mcp_http::{Running, exchange};
use crate::support::{Tree, folio, repo};

/// What the llmstxt.org format asks of a file: an H1 first (the only H1), then optionally a
/// blockquote summary, then free text without headings, then H2 sections, each a list of
/// `- [name](url)` or `- [name](url): notes`. Returns every link (name, url, notes).
fn format_rules(text: &str) -> Vec<(String, String, String)> {
    let mut lines = text.lines().peekable();
    let h1 = lines.next().expect("a first line");
    assert!(h1.starts_with("# ") && h1.len() > 2, "the first line is an H1 with the title: {h1:?}");
    let mut links = Vec::new();
    let mut section: Option<&str> = None;
    let mut blockquote_seen = false;
    for line in lines {
        assert!(!line.starts_with("# "), "one H1 only: {line:?}");
        if let Some(name) = line.strip_prefix("## ") {
            assert!(!name.trim().is_empty(), "an H2 names its section");
            section = Some(name);
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        assert!(!line.starts_with('#'), "H1 then H2 sections, no other heading: {line:?}");
        match section {
            None => {
                if line.starts_with("> ") {
                    assert!(!blockquote_seen, "one blockquote summary: {line:?}");
                    blockquote_seen = true;
                }
            }
            Some(section) => {
                let item =
                    line.strip_prefix("- [").unwrap_or_else(|| panic!("{section}: a list item: {line:?}"));
                // The name ends at the first `]` not escaped.
                let mut end = None;
                let mut escaped = false;
                for (i, c) in item.char_indices() {
                    match c {
                        '\\' if !escaped => escaped = true,
                        ']' if !escaped => {
                            end = Some(i);
                            break;
                        }
                        _ => escaped = false,
                    }
                }
                let end = end.unwrap_or_else(|| panic!("a closed link name: {line:?}"));
                let (name, rest) = (&item[..end], &item[end + 1..]);
                let rest = rest.strip_prefix('(').unwrap_or_else(|| panic!("a link: {line:?}"));
                let close = rest.find(')').unwrap_or_else(|| panic!("a closed URL: {line:?}"));
                let (url, notes) = (&rest[..close], &rest[close + 1..]);
                assert!(!url.is_empty() && !url.contains(char::is_whitespace), "a URL: {line:?}");
                let notes = if notes.is_empty() {
                    ""
                } else {
                    notes.strip_prefix(": ").unwrap_or_else(|| panic!("notes after `: `: {line:?}"))
                };
                links.push((name.to_owned(), url.to_owned(), notes.to_owned()));
            }
        }
    }
    assert!(section.is_some(), "at least one H2 section");
    links
}

#[test]
fn build_writes_llms_txt_by_the_formats_rules_and_the_same_bytes_each_time() {
    let tree = Tree::new();
    let content = repo().join("tests/fixtures/basic/content");
    for out in ["a", "b"] {
        let built = folio(tree.path(), &["build", content.to_str().unwrap(), "--out", out]);
        assert_eq!(built.code, Some(0), "{}", built.stderr);
        assert_eq!(built.stdout, "", "nothing on stdout");
    }
    let llms = std::fs::read_to_string(tree.join("a/llms.txt")).unwrap();
    let full = std::fs::read_to_string(tree.join("a/llms-full.txt")).unwrap();
    assert_eq!(llms, std::fs::read_to_string(tree.join("b/llms.txt")).unwrap(), "deterministic");
    assert_eq!(full, std::fs::read_to_string(tree.join("b/llms-full.txt")).unwrap(), "deterministic");
    let links = format_rules(&llms);
    let catalog = compile(&Config::new(&content)).catalog.unwrap();
    assert!(llms.starts_with(&format!("# {}\n", catalog.settings.title)), "{llms}");
    // Every doc once, with its description; every skill with its description.
    assert_eq!(links.len(), catalog.docs.len() + catalog.skills.len(), "{llms}");
    for doc in &catalog.docs {
        let url = format!("raw/docs/{}", doc.path);
        assert!(links.iter().any(|(_, u, n)| *u == url && *n == doc.description), "{url}: {llms}");
        assert!(full.contains(&format!("Source: {url}\n")), "{full}");
    }
    for skill in &catalog.skills {
        assert!(
            llms.contains(&format!("## Skills\n\n- [{}](raw/skills/{}/): ", skill.name, skill.name)),
            "{llms}"
        );
        assert!(links.iter().any(|(n, _, d)| *n == skill.name && *d == skill.description), "{llms}");
    }
    // A section per folder of docs.
    assert!(llms.contains("\n## Docs\n") && llms.contains("\n## guides\n"), "{llms}");
    // The full text holds each page's body, without frontmatter.
    let install = std::fs::read_to_string(content.join("docs/guides/install.md")).unwrap();
    assert!(full.contains(folio::catalog::fence::body(&install).trim()), "{full}");
    assert!(!full.contains("\n---\ntitle:"), "no frontmatter: {full}");
}

#[test]
fn the_manuals_llms_txt_follows_the_format() {
    let catalog = compile(&Config::new(repo().join("content"))).catalog.unwrap();
    let llms = folio::llms::llms_txt(&catalog);
    assert!(llms.starts_with("# "), "{llms}");
    assert!(llms.contains("\n> "), "the manual has a summary: {llms}");
    let links = format_rules(&llms);
    assert_eq!(links.len(), catalog.docs.len() + catalog.skills.len());
    assert!(
        links.iter().all(|(_, _, notes)| !notes.is_empty()),
        "every page of the manual has a description"
    );
    // The committed catalog's copy is this one (catalog/ is the output of `folio build content`).
    let committed = std::fs::read_to_string(repo().join("catalog/llms.txt")).unwrap_or_default();
    assert_eq!(committed, llms, "catalog/llms.txt is stale: run `cargo run -- build content --out catalog`");
}

#[tokio::test]
async fn browse_and_serve_http_answer_llms_txt_and_its_links_lead_to_the_pages() {
    let content = repo().join("tests/fixtures/basic/content");
    let catalog = compile(&Config::new(&content)).catalog.unwrap();
    let llms = folio::llms::llms_txt(&catalog);
    let full = folio::llms::llms_full_txt(&catalog);
    // serve --http, with a token: the files need it, as /healthz does.
    let server = FolioServer::from_catalog(catalog.clone()).unwrap();
    let srv =
        Running::start_with(server, HttpOptions::default().with_bearer_token(Some("t0ken".into()))).await;
    assert_eq!(exchange(srv.addr, "GET", "/llms.txt", &[], b"").await.status, 401);
    for (path, expected) in [("/llms.txt", &llms), ("/llms-full.txt", &full)] {
        let reply = exchange(srv.addr, "GET", path, &[("Authorization", "Bearer t0ken")], b"").await;
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.header("content-type"), Some("text/plain; charset=utf-8"));
        assert_eq!(&reply.body, expected, "{path}");
    }
    srv.shutdown().await;
    // browse: the same files, and each link is the page's markdown.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = FolioServer::from_catalog(catalog.clone()).unwrap();
    tokio::spawn(async move {
        folio::web::serve_web(listener, server, &folio::web::WebOptions::default(), async {
            let _ = stopped.await;
        })
        .await
    });
    for (path, expected) in [("/llms.txt", &llms), ("/llms-full.txt", &full)] {
        let reply = exchange(addr, "GET", path, &[], b"").await;
        assert_eq!((reply.status, &reply.body), (200, expected), "{path}");
    }
    for (_, url, _) in format_rules(&llms) {
        let reply = exchange(addr, "GET", &format!("/{url}"), &[], b"").await;
        assert_eq!(reply.status, 200, "{url}");
        let entry = catalog.entries.iter().find(|e| e.text() == Some(reply.body.as_str()));
        assert!(entry.is_some(), "{url} answers a page's exact markdown");
    }
    let _ = stop.send(());
}
