//! A shelf's start: a generated shelf of `FOLIO_BENCH_SHELF_CATALOGS` catalogs (default 1,000)
//! of `FOLIO_BENCH_SHELF_DOCS` docs each (default 2,000), served by the real
//! `folio serve --shelf DIR` over stdio: spawn → first `find_library` answer (which lists every
//! catalog, so the whole shelf has been read), and the server's RSS then, before any catalog is
//! read (median of five spawns). Then the first read of one catalog (which opens it) and the
//! RSS after it.
//!
//! The catalogs are one compiled tree of small docs written again under a thousand names (each
//! a valid catalog with its own hash), into `target/bench-shelf/`, reused while their count and
//! size are the same. Set `FOLIO_BIN` to bench another binary.

#![allow(clippy::print_stdout, reason = "a benchmark reports its table on stdout")]

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

fn main() {
    let catalogs = env_usize("FOLIO_BENCH_SHELF_CATALOGS", 1_000);
    let docs = env_usize("FOLIO_BENCH_SHELF_DOCS", 2_000);
    let bin = std::env::var_os("FOLIO_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_folio")), PathBuf::from);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-shelf").join(format!("{catalogs}x{docs}"));
    let bytes = generate(&dir, catalogs, docs);
    let shelf = dir.join("shelf");
    let mut starts = Vec::new();
    let mut rss = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let mut server = Server::spawn(&bin, &shelf);
        let found = server.call("tools/call", json!({ "name": "find_library", "arguments": { "limit": 1 } }));
        starts.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(found["result"]["structuredContent"]["total"], json!(catalogs), "{found}");
        rss.push(server.rss_mib());
    }
    let mut server = Server::spawn(&bin, &shelf);
    server.call("server/discover", json!({}));
    let started = Instant::now();
    let read = server.call("resources/read", json!({ "uri": "resource://lib0500@1.0/docs/d0001.md" }));
    let first_read = started.elapsed().as_secs_f64() * 1000.0;
    assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");
    let after_read = server.rss_mib();
    println!(
        "| shelf of {catalogs} catalogs × {docs} docs ({:.0} MiB of catalogs) | |",
        bytes as f64 / 1048576.0
    );
    println!("| --- | --- |");
    println!("| spawn → first `find_library` answer (median of 5) | {:.0} ms |", median(&mut starts));
    println!("| RSS then, before any catalog is read (median of 5) | {:.1} MiB |", median(&mut rss));
    println!("| first read of one catalog (opens it) | {first_read:.0} ms |");
    println!("| RSS after it | {after_read:.1} MiB |");
}

/// Writes the shelf (unless the same one is there) and returns its size in bytes.
fn generate(dir: &Path, catalogs: usize, docs: usize) -> u64 {
    let shelf = dir.join("shelf");
    let done = dir.join("done");
    if !done.is_file() {
        let _ = std::fs::remove_dir_all(dir);
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("docs")).unwrap();
        for i in 0..docs {
            let text = format!(
                "# Page {i}\n\nThe page {i} of the shelf bench: widgets, gadgets and word{} in a short paragraph.\n",
                i % 97
            );
            std::fs::write(src.join(format!("docs/d{i:04}.md")), text).unwrap();
        }
        let compilation = folio::compile::compile(&folio::compile::Config::new(&src));
        let mut catalog = compilation.catalog.expect("the bench tree compiles");
        std::fs::create_dir_all(&shelf).unwrap();
        for i in 0..catalogs {
            catalog.settings.name = format!("lib{i:04}");
            catalog.settings.version = Some("1.0".to_owned());
            catalog.settings.description = format!("Library {i} of the shelf bench.");
            let encoded = folio::catalog::codec::encode(&catalog);
            std::fs::write(shelf.join(format!("lib{i:04}.msgpack")), encoded.msgpack).unwrap();
        }
        std::fs::write(&done, "").unwrap();
    }
    std::fs::read_dir(&shelf).unwrap().flatten().map(|e| e.metadata().map_or(0, |m| m.len())).sum()
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn spawn(bin: &Path, shelf: &Path) -> Server {
        let mut child = Command::new(bin)
            .args(["serve", "--shelf"])
            .arg(shelf)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("folio serve starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server { child, stdin, stdout, next_id: 1 }
    }

    fn call(&mut self, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { "name": "bench", "version": "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the server ended");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// The server's resident set, from `/proc` (0 where there is none).
    fn rss_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0.0);
        kib / 1024.0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
