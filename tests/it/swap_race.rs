//! Issue 30, finding 1: a directory inside a watched skill exchanged for a symlink to a directory
//! outside the root (`renameat2(RENAME_EXCHANGE)` in a loop) while `folio serve --content DIR
//! --watch` recompiles, over stdio and HTTP at once. No answer and no line on stderr may ever
//! hold a byte of the outside files, during the race or once the link is left in place. Bounded
//! by counts: the client rounds end the race, the swapper stops at a fixed maximum.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use rustix::fs::{CWD, RenameFlags, renameat_with};
use serde_json::{Value, json};

use crate::live_serve::{Served, lines};
use crate::mcp::modern_meta;
use crate::support::Tree;

/// What every outside file holds; never served, never printed.
const SECRET: &str = "OUTSIDE-SECRET-7f3a";
/// Client rounds per transport (a list and a read of every listed resource each).
const ROUNDS: usize = 150;
/// The swapper's upper bound, whatever the clients do.
const MAX_SWAPS: usize = 2_000_000;

fn tree() -> Tree {
    let t = Tree::new();
    t.file(
        "content/skills/demo/SKILL.md",
        "---\nname: demo\ndescription: Shows a skill.\n---\n# Demo\n\nSee [the notes](refs/a.md).\n",
    )
    .file("content/skills/demo/refs/a.md", "# Inside\n")
    .file("content/skills/demo/refs/b.md", "# Inside too\n")
    .file("outside/keys/a.md", format!("# {SECRET}\n"))
    .file("outside/keys/id_key.md", format!("{SECRET}\n"))
    .file("outside/keys/more/c.md", format!("{SECRET}\n"));
    // The link waits outside the root; each exchange puts it where `refs` was, and back.
    t.symlink(t.join("outside/keys"), "link");
    t
}

/// One HTTP exchange with a fresh connection: the answer's body.
fn post(addr: SocketAddr, method: &str, params: Value) -> String {
    let mut params = params;
    params["_meta"] = modern_meta();
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {}\r\nMcp-Method: {method}\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        crate::mcp::V_MODERN,
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    raw
}

/// A child process killed when dropped, so that a failing assertion leaves no server behind.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `folio serve --http 0` on `content`; returns the child, its address and its stderr.
fn http_server(cwd: &Path) -> (Killed, SocketAddr, std::sync::mpsc::Receiver<String>) {
    let mut child = Killed(
        Command::new(env!("CARGO_BIN_EXE_folio"))
            .args(["serve", "--http", "0", "--content", "content", "--watch"])
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stderr = lines(child.0.stderr.take().unwrap());
    loop {
        let line = stderr.recv_timeout(Duration::from_secs(30)).expect("the HTTP server starts");
        if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
            let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").parse().unwrap();
            return (child, addr, stderr);
        }
    }
}

/// The URIs a `resources/list` result names.
fn uris(result: &Value) -> Vec<String> {
    result["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_owned()).collect()
}

fn assert_clean(what: &str, text: &str) {
    assert!(!text.contains(SECRET), "an outside byte was {what}: {text}");
}

#[test]
fn a_directory_swapped_for_an_outside_link_never_serves_or_prints_an_outside_byte() {
    let t = tree();
    let mut stdio = Served::start(t.path(), &["serve", "--content", "content", "--watch"]);
    let (_http, addr, http_stderr) = http_server(t.path());

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let swapper = {
        let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
        let (dir, link) = (t.join("content/skills/demo/refs"), t.join("link"));
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) && n < MAX_SWAPS {
                renameat_with(CWD, &dir, CWD, &link, RenameFlags::EXCHANGE).expect("exchange");
                n += 1;
                swaps.store(n, Ordering::Relaxed);
            }
            n
        })
    };

    let mut reads = 0;
    for _ in 0..ROUNDS {
        let listed = stdio.ok("resources/list", json!({}));
        assert_clean("listed over stdio", &listed.to_string());
        for uri in uris(&listed) {
            let msg = json!({ "uri": uri });
            // A resource listed a moment ago may be gone after a reload: an error is fine,
            // an outside byte is not.
            let answer = post(addr, "resources/read", msg.clone());
            assert_clean("served over HTTP", &answer);
            reads += 1;
        }
        assert_clean("listed over HTTP", &post(addr, "resources/list", json!({})));
    }
    stop.store(true, Ordering::Relaxed);
    let total = swapper.join().unwrap();
    assert!(total > 0 && swaps.load(Ordering::Relaxed) == total);
    assert!(reads >= ROUNDS, "every round read something ({reads} reads)");

    // Left in place: the link where `refs` was. The tree is refused or the skill left out; the
    // outside bytes are neither served nor printed, on either transport.
    if std::fs::symlink_metadata(t.join("content/skills/demo/refs")).unwrap().is_dir() {
        renameat_with(CWD, t.join("content/skills/demo/refs"), CWD, t.join("link"), RenameFlags::EXCHANGE)
            .unwrap();
    }
    assert!(std::fs::symlink_metadata(t.join("content/skills/demo/refs")).unwrap().file_type().is_symlink());
    // A save after the race: once the server has served it, every reload before it is done.
    std::fs::write(t.join("content/skills/demo/extra.txt"), "after the race\n").unwrap();
    let mut settled = false;
    for _ in 0..600 {
        let listed = stdio.ok("resources/list", json!({}));
        assert_clean("listed over stdio", &listed.to_string());
        let uris = uris(&listed);
        for uri in &uris {
            // Listed a moment ago, perhaps left out by a reload since: an error is fine here too.
            assert_clean(
                "served over stdio",
                &stdio.answer("resources/read", json!({ "uri": uri })).to_string(),
            );
            assert_clean("served over HTTP", &post(addr, "resources/read", json!({ "uri": uri })));
        }
        if uris.iter().any(|u| u.ends_with("/extra.txt"))
            || uris.iter().all(|u| !u.starts_with("skill://demo/"))
        {
            settled = true;
            break;
        }
        // Wait for the reload on an event, not a clock: the next stderr line of the server.
        let _ = stdio.stderr.recv_timeout(Duration::from_millis(200));
    }
    assert!(settled, "the server reloaded after the race");
    for line in stdio.stderr.try_iter().chain(http_stderr.try_iter()) {
        assert_clean("printed on stderr", &line);
    }
}
