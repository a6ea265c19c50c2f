//! A live catalog in process: `FolioServer::replace` swaps compiled trees under a client on the
//! line transport, and each client sees exactly the notifications it asked for
//! (`subscriptions/listen` for 2026-07-28, `resources/subscribe` for legacy 2025-11-25 sessions).
//!
//! No timers: every swap is followed by a swap of a sentinel doc the client also watches, so
//! "nothing else was sent" is "the next message is the sentinel's update".

use folio::query::Query;
use folio::server::{FolioServer, LiveMode};
use serde_json::{Value, json};

use crate::mcp::{Wire, modern_meta};
use crate::support::Tree;

const SENTINEL: &str = "resource://docs/zz-sentinel.md";

/// A tree with two docs, a sentinel doc and one skill with a reference file.
fn tree() -> Tree {
    let t = Tree::new();
    t.file("docs/a.md", "# A\n\nSee [b](b.md) and [the sentinel](zz-sentinel.md).\n")
        .file("docs/b.md", "# B\n\nBack to [a](a.md).\n")
        .file("docs/zz-sentinel.md", "# Sentinel\n\nBack to [a](a.md).\n")
        .file(
            "skills/demo/SKILL.md",
            "---\nname: demo\ndescription: Shows a skill.\n---\n# Demo\n\nRead [the guide](references/guide.md).\n",
        )
        .file("skills/demo/references/guide.md", "# Guide\n\nSteps.\n");
    t
}

fn query_of(tree: &Tree) -> Query {
    let compilation = folio::compile::compile(&folio::compile::Config::new(tree.path()));
    let errors: Vec<_> =
        compilation.diagnostics.iter().filter(|d| d.severity == folio::compile::Severity::Error).collect();
    assert!(errors.is_empty(), "the tree compiles: {errors:?}");
    Query::from_catalog(compilation.catalog.expect("a catalog"))
}

fn live_server(tree: &Tree) -> FolioServer {
    FolioServer::from_query(query_of(tree)).unwrap().with_live_mode(LiveMode::Watched).unwrap()
}

/// Opens a listen stream with `notifications` and checks the acknowledgement.
async fn listen(w: &mut Wire, notifications: Value) -> Value {
    w.send(&json!({
        "jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
        "params": { "_meta": modern_meta(), "notifications": notifications },
    }))
    .await;
    let ack = w.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen");
    ack["params"]["notifications"].clone()
}

/// The method and URI of the next message, which must be a notification of the listen stream.
async fn next_note(w: &mut Wire, stream: bool) -> (String, Option<String>) {
    let msg = w.recv().await;
    assert!(msg.get("id").is_none(), "a notification, not an answer: {msg}");
    if stream {
        assert_eq!(msg["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen", "{msg}");
    }
    (msg["method"].as_str().unwrap().to_owned(), msg["params"]["uri"].as_str().map(str::to_owned))
}

fn updated(uri: &str) -> (String, Option<String>) {
    ("notifications/resources/updated".to_owned(), Some(uri.to_owned()))
}

fn list_changed() -> (String, Option<String>) {
    ("notifications/resources/list_changed".to_owned(), None)
}

/// Swaps in the tree as it is now.
fn swap(server: &FolioServer, tree: &Tree) {
    let swapped = server.replace(query_of(tree)).unwrap();
    assert!(swapped.swapped, "the tree changed");
}

/// Edits the sentinel and swaps, then checks that its update is the next notification: nothing
/// else was pending.
async fn expect_quiet(w: &mut Wire, server: &FolioServer, tree: &Tree, n: usize, stream: bool) {
    tree.file("docs/zz-sentinel.md", format!("# Sentinel\n\nBack to [a](a.md). Edit {n}.\n"));
    swap(server, tree);
    assert_eq!(next_note(w, stream).await, updated(SENTINEL), "nothing but the sentinel was sent");
}

#[tokio::test]
async fn a_watched_catalog_declares_change_notifications_and_a_fixed_one_does_not() {
    let t = tree();
    let fixed = FolioServer::from_query(query_of(&t)).unwrap();
    let mut w = Wire::start_with(fixed);
    let caps = w.ok("server/discover", json!({})).await["capabilities"].clone();
    assert_eq!(caps["resources"], json!({}));
    assert!(caps.get("prompts").is_none_or(|p| p.get("listChanged").is_none()));
    let granted =
        listen(&mut w, json!({ "resourcesListChanged": true, "resourceSubscriptions": [SENTINEL] })).await;
    assert_eq!(granted, json!({}), "a fixed catalog grants nothing");

    let mut w = Wire::start_with(live_server(&t));
    let discover = w.ok("server/discover", json!({})).await;
    assert_eq!(discover["capabilities"]["resources"], json!({ "listChanged": true, "subscribe": true }));
    assert_eq!(discover["capabilities"]["prompts"], json!({ "listChanged": true }));
    assert_eq!(discover["ttlMs"], json!(folio::server::WATCH_TTL_MS), "a short ttlMs while watching");
}

#[tokio::test]
async fn a_subscriber_sees_exactly_the_changes_it_asked_for() {
    let t = tree();
    let server = live_server(&t);
    let mut w = Wire::start_with(server.clone());
    let granted =
        listen(&mut w, json!({ "resourceSubscriptions": ["resource://docs/b.md", SENTINEL] })).await;
    assert_eq!(granted, json!({ "resourceSubscriptions": ["resource://docs/b.md", SENTINEL] }));

    // An edit to another doc: nothing for b.md.
    t.file("docs/a.md", "# A\n\nSee [b](b.md) and [the sentinel](zz-sentinel.md). Edited.\n");
    swap(&server, &t);
    expect_quiet(&mut w, &server, &t, 1, true).await;

    // An edit to b.md: one update; no list_changed (not asked for, and the URI set is the same).
    t.file("docs/b.md", "# B\n\nBack to [a](a.md). Edited.\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, updated("resource://docs/b.md"));
    expect_quiet(&mut w, &server, &t, 2, true).await;

    // A new doc: no list_changed for a stream that did not ask for it.
    t.file("docs/c.md", "# C\n\n[a](a.md)\n");
    swap(&server, &t);
    expect_quiet(&mut w, &server, &t, 3, true).await;

    // b.md deleted: its subscriber hears of it.
    std::fs::remove_file(t.join("docs/b.md")).unwrap();
    t.file("docs/a.md", "# A\n\nSee [the sentinel](zz-sentinel.md).\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, updated("resource://docs/b.md"));
    expect_quiet(&mut w, &server, &t, 4, true).await;
}

#[tokio::test]
async fn list_changed_follows_the_set_of_uris_not_their_bytes() {
    let t = tree();
    let server = live_server(&t);
    let mut w = Wire::start_with(server.clone());
    listen(&mut w, json!({ "resourcesListChanged": true, "resourceSubscriptions": [SENTINEL] })).await;

    t.file("docs/b.md", "# B\n\nBack to [a](a.md). Only bytes change.\n");
    swap(&server, &t);
    expect_quiet(&mut w, &server, &t, 1, true).await;

    // Added.
    t.file("docs/c.md", "# C\n\n[a](a.md)\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, list_changed());
    expect_quiet(&mut w, &server, &t, 2, true).await;

    // Renamed: the set changes again.
    std::fs::rename(t.join("docs/c.md"), t.join("docs/d.md")).unwrap();
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, list_changed());
    expect_quiet(&mut w, &server, &t, 3, true).await;

    // A skill file added, then renamed.
    t.file("skills/demo/references/more.md", "# More\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, list_changed());
    std::fs::rename(t.join("skills/demo/references/more.md"), t.join("skills/demo/references/most.md"))
        .unwrap();
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, list_changed());
    expect_quiet(&mut w, &server, &t, 4, true).await;
}

#[tokio::test]
async fn an_edit_to_a_skill_file_updates_its_skill_md_subscribers() {
    let t = tree();
    let server = live_server(&t);
    let mut w = Wire::start_with(server.clone());
    let skill_md = "skill://demo/SKILL.md";
    let guide = "skill://demo/references/guide.md";
    listen(&mut w, json!({ "resourceSubscriptions": [skill_md, guide, SENTINEL] })).await;

    // The guide's bytes change: the guide and the SKILL.md whose manifest lists it.
    t.file("skills/demo/references/guide.md", "# Guide\n\nMore steps.\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, updated(skill_md));
    assert_eq!(next_note(&mut w, true).await, updated(guide));
    expect_quiet(&mut w, &server, &t, 1, true).await;

    // SKILL.md itself: only its subscribers.
    t.file(
        "skills/demo/SKILL.md",
        "---\nname: demo\ndescription: Shows a skill, edited.\n---\n# Demo\n\nRead [the guide](references/guide.md).\n",
    );
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, updated(skill_md));
    expect_quiet(&mut w, &server, &t, 2, true).await;

    // A new file in the skill changes its manifest too.
    t.file("skills/demo/assets/extra.txt", "extra\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, updated(skill_md));
    expect_quiet(&mut w, &server, &t, 3, true).await;
}

#[tokio::test]
async fn legacy_sessions_get_the_same_notifications_through_resources_subscribe() {
    let t = tree();
    let server = live_server(&t);
    let mut w = Wire::start_with(server.clone());
    let init = w
        .call_raw(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "legacy", "version": "1" } }),
        )
        .await;
    assert_eq!(
        init["result"]["capabilities"]["resources"],
        json!({ "listChanged": true, "subscribe": true })
    );
    w.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    for uri in ["resource://docs/a.md", SENTINEL] {
        let res = w.call_raw("resources/subscribe", json!({ "uri": uri })).await;
        assert_eq!(res["result"], json!({}), "{res}");
    }
    let bad = w.call_raw("resources/subscribe", json!({ "uri": "resource://docs/../x.md" })).await;
    assert_eq!(bad["error"]["code"], -32602, "a malformed URI is refused: {bad}");

    t.file("docs/a.md", "# A\n\nSee [b](b.md) and [the sentinel](zz-sentinel.md). Edited.\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, false).await, updated("resource://docs/a.md"));
    expect_quiet(&mut w, &server, &t, 1, false).await;

    // list_changed as declared at initialize, without asking.
    t.file("docs/c.md", "# C\n\n[a](a.md)\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, false).await, list_changed());
    expect_quiet(&mut w, &server, &t, 2, false).await;

    let res = w.call_raw("resources/unsubscribe", json!({ "uri": "resource://docs/a.md" })).await;
    assert_eq!(res["result"], json!({}));
    t.file("docs/a.md", "# A\n\nSee [b](b.md) and [the sentinel](zz-sentinel.md). Again.\n");
    swap(&server, &t);
    expect_quiet(&mut w, &server, &t, 3, false).await;
}

#[tokio::test]
async fn a_cursor_from_a_replaced_catalog_is_refused_with_restart_the_listing() {
    let t = tree();
    // More URIs than one page of resources/list holds.
    for i in 0..500 {
        t.file(format!("docs/many/{i:03}.md"), format!("# Doc {i}\n"));
    }
    let server = live_server(&t);
    let mut w = Wire::start_with(server.clone());
    let page = w.ok("skills/list", json!({})).await;
    assert!(page.get("nextCursor").is_none());
    let first = w.ok("resources/list", json!({})).await;
    let cursor = first["nextCursor"].as_str().expect("resources/list has a second page").to_owned();
    t.file("docs/b.md", "# B\n\nBack to [a](a.md). Edited.\n");
    swap(&server, &t);
    let stale = w.call("resources/list", json!({ "cursor": cursor })).await;
    assert_eq!(stale["error"]["code"], -32602, "{stale}");
    let message = stale["error"]["message"].as_str().unwrap();
    assert!(message.contains("restart the listing from the first page"), "{message}");
    let garbage = w.call("resources/list", json!({ "cursor": "not-a-cursor" })).await;
    assert!(!garbage["error"]["message"].as_str().unwrap().contains("restart the listing"), "{garbage}");
}

#[tokio::test]
async fn a_request_answers_from_one_catalog_and_the_next_sees_the_new_one() {
    let t = tree();
    let server = live_server(&t);
    let snapshot = server.query();
    t.file("docs/c.md", "# C\n\n[a](a.md)\n");
    let swapped = server.replace(query_of(&t)).unwrap();
    assert_eq!((swapped.added, swapped.removed, swapped.modified), (1, 0, 0));
    // A snapshot taken before the swap (what a request in flight holds) still answers the old one.
    assert!(snapshot.entry("resource://docs/c.md").is_none());
    assert!(server.query().entry("resource://docs/c.md").is_some());
    let mut w = Wire::start_with(server.clone());
    let read = w.ok("resources/read", json!({ "uri": "resource://docs/c.md" })).await;
    assert_eq!(read["contents"][0]["text"], "# C\n\n[a](a.md)\n");
    // The same catalog again swaps nothing.
    assert!(!server.replace(query_of(&t)).unwrap().swapped);
    // A fixed server refuses to change.
    let fixed = FolioServer::from_query(query_of(&t)).unwrap();
    assert!(fixed.replace(query_of(&t)).is_err());
}

#[tokio::test]
async fn an_http_listen_stream_gets_the_notifications_too() {
    use tokio::io::AsyncBufReadExt as _;

    use crate::mcp_http::{Running, open_listen, rpc};
    let t = tree();
    let server = live_server(&t);
    let srv = Running::start_with(server.clone(), folio::server::HttpOptions::default()).await;
    let (mut reader, _, ack) = open_listen(srv.addr).await;
    assert_eq!(
        ack["params"]["notifications"],
        json!({ "resourcesListChanged": true }),
        "declared, so granted"
    );

    t.file("docs/c.md", "# C\n\n[a](a.md)\n");
    swap(&server, &t);
    let event = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(reader.read_line(&mut line).await.unwrap() > 0, "the stream stays open");
            if let Some((_, data)) = line.trim_end().split_once("data:")
                && !data.trim().is_empty()
            {
                return serde_json::from_str::<Value>(data.trim()).unwrap();
            }
        }
    })
    .await
    .expect("a notification within 20 s");
    assert_eq!(event["method"], "notifications/resources/list_changed", "{event}");
    assert_eq!(event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], json!(9));
    // New requests see the new catalog.
    let read = rpc(srv.addr, "resources/read", json!({ "uri": "resource://docs/c.md" }), &[]).await;
    assert!(read.body.contains(r"# C\n\n[a](a.md)\n"), "{}", read.body);
    srv.shutdown().await;
}

#[tokio::test]
async fn prompts_list_changed_follows_the_set_of_skills() {
    let t = tree();
    let server = live_server(&t);
    let mut w = Wire::start_with(server.clone());
    listen(&mut w, json!({ "promptsListChanged": true, "resourceSubscriptions": [SENTINEL] })).await;
    // A skill's bytes change: the set of skills does not.
    t.file("skills/demo/references/guide.md", "# Guide\n\nMore steps.\n");
    swap(&server, &t);
    expect_quiet(&mut w, &server, &t, 1, true).await;
    // A new skill.
    t.file("skills/other/SKILL.md", "---\nname: other\ndescription: Another skill.\n---\n# Other\n");
    swap(&server, &t);
    assert_eq!(next_note(&mut w, true).await, ("notifications/prompts/list_changed".to_owned(), None));
    expect_quiet(&mut w, &server, &t, 2, true).await;
}

#[tokio::test]
async fn a_session_watches_at_most_1024_uris() {
    let t = tree();
    let server = live_server(&t);
    // Legacy: the 1025th distinct URI is refused with the limit; one already held, or one freed
    // by unsubscribing, is fine.
    let mut w = Wire::start_with(server.clone());
    w.call_raw(
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "legacy", "version": "1" } }),
    )
    .await;
    w.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    let uri = |n: usize| format!("resource://docs/page-{n}.md");
    for n in 0..1024 {
        let res = w.call_raw("resources/subscribe", json!({ "uri": uri(n) })).await;
        assert_eq!(res["result"], json!({}), "{n}: {res}");
    }
    let refused = w.call_raw("resources/subscribe", json!({ "uri": uri(1024) })).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(refused["error"]["data"]["limit"], 1024, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "this session already watches 1024 URIs, the most one session may; unsubscribe from one \
         first, or watch `notifications/resources/list_changed` instead"
    );
    let again = w.call_raw("resources/subscribe", json!({ "uri": uri(7) })).await;
    assert_eq!(again["result"], json!({}), "subscribing again to a held URI: {again}");
    w.call_raw("resources/unsubscribe", json!({ "uri": uri(7) })).await;
    let freed = w.call_raw("resources/subscribe", json!({ "uri": uri(1024) })).await;
    assert_eq!(freed["result"], json!({}), "{freed}");

    // A listen stream accepts the first 1024 distinct URIs asked for, and says so.
    let mut w = Wire::start_with(server.clone());
    let mut asked: Vec<String> = (0..1100).map(uri).collect();
    asked.insert(1, uri(0));
    let accepted = listen(&mut w, json!({ "resourceSubscriptions": asked })).await;
    let accepted: Vec<&str> =
        accepted["resourceSubscriptions"].as_array().unwrap().iter().map(|u| u.as_str().unwrap()).collect();
    assert_eq!(accepted.len(), 1025, "the first 1024 distinct, as asked (one twice)");
    assert_eq!(accepted[..3].to_vec(), vec![uri(0), uri(0), uri(1)]);
    assert_eq!(accepted.last().copied(), Some(uri(1023).as_str()));
}
