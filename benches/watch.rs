//! Live reload benchmark (`serve --watch`, ARCHITECTURE.md "Performance") against the real
//! `folio` binary.
//!
//! Per corpus (default: the medium one, ~2,000 docs), it copies the generated tree to a scratch
//! directory, spawns `folio serve --content DIR --watch`, opens a `subscriptions/listen` stream
//! subscribed to one doc, and then:
//! - **save → notification**: saves that doc (written beside it and renamed over it, as editors
//!   do) and times until `notifications/resources/updated` for it arrives on stdout, which spans
//!   the debounce, the recompile, the swap and the notification (p50, p90 and max over
//!   `FOLIO_BENCH_EDITS` saves, default 20);
//! - **full vs incremental**: in process, on `FOLIO_BENCH_INCREMENTAL_SIZE` (default large,
//!   ~20,000 docs): a full `compile::compile` against `compile::compile_incremental` after a
//!   one-doc edit (medians of `FOLIO_BENCH_RUNS`, default 3);
//! - **memory**: the server's resident set (`VmRSS` from `/proc/<pid>/status`) after the first
//!   save and after every further tenth of `FOLIO_BENCH_MEMORY_EDITS` saves (default 1,000, on
//!   the small corpus unless `FOLIO_BENCH_MEMORY_SIZE` names another), to show it does not grow.
//!
//! ```text
//! cargo bench --bench watch                                    # medium corpus, then memory on small
//! FOLIO_BENCH_SIZES=large FOLIO_BENCH_EDITS=5 cargo bench --bench watch
//! ```
#![allow(clippy::print_stdout, reason = "a benchmark reports its table on stdout")]

use folio_bench_corpus as corpus;

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use corpus::Size;
use serde_json::{Value, json};

const PROTOCOL_VERSION: &str = "2026-07-28";
/// The longest any one answer or notification may take before the run is declared failed.
const WAIT: Duration = Duration::from_secs(120);

fn main() {
    let bin = std::env::var_os("FOLIO_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_folio")), PathBuf::from);
    let edits = env_usize("FOLIO_BENCH_EDITS", 20);
    for size in Size::from_env(&[Size::Medium]) {
        match latency(&bin, size, edits) {
            Ok(line) => println!("{line}"),
            Err(e) => println!("{}: save → notification bench failed: {e}", size.name()),
        }
    }
    let incremental_size = std::env::var("FOLIO_BENCH_INCREMENTAL_SIZE")
        .ok()
        .and_then(|s| Size::from_name(&s))
        .unwrap_or(Size::Large);
    match full_vs_incremental(incremental_size, env_usize("FOLIO_BENCH_RUNS", 3).max(1)) {
        Ok(line) => println!("{line}"),
        Err(e) => println!("{}: full vs incremental bench failed: {e}", incremental_size.name()),
    }
    let memory_size = std::env::var("FOLIO_BENCH_MEMORY_SIZE")
        .ok()
        .and_then(|s| Size::from_name(&s))
        .unwrap_or(Size::Small);
    let memory_edits = env_usize("FOLIO_BENCH_MEMORY_EDITS", 1_000);
    if memory_edits > 0 {
        match memory(&bin, memory_size, memory_edits) {
            Ok(line) => println!("{line}"),
            Err(e) => println!("{}: memory bench failed: {e}", memory_size.name()),
        }
    }
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// A scratch copy of the generated corpus (edits must not touch the shared one).
fn scratch_copy(size: Size) -> Result<PathBuf, String> {
    let (dir, _stats) = corpus::ensure(size);
    let scratch = dir.with_file_name(format!("watch-{}", size.name()));
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    }
    for entry in walk(&dir) {
        let target = scratch.join(entry.strip_prefix(&dir).map_err(|e| e.to_string())?);
        std::fs::create_dir_all(target.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::copy(&entry, &target).map_err(|e| format!("{}: {e}", entry.display()))?;
    }
    Ok(scratch)
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else { continue };
        for entry in read.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// The first doc of the tree (sorted), as (path relative to the root, URI).
fn first_doc(root: &Path) -> Result<(PathBuf, String), String> {
    let mut docs: Vec<PathBuf> =
        walk(&root.join("docs")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    docs.sort();
    let doc = docs.into_iter().next().ok_or("no doc in the corpus")?;
    let rel = doc.strip_prefix(root).map_err(|e| e.to_string())?.to_path_buf();
    let under_docs = rel.strip_prefix("docs").map_err(|e| e.to_string())?;
    Ok((rel.clone(), format!("resource://docs/{}", under_docs.to_string_lossy())))
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Server {
    fn start(bin: &Path, root: &Path) -> Result<Server, String> {
        let mut child = Command::new(bin)
            .args(["serve", "--content"])
            .arg(root)
            .arg("--watch")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Server { child, stdin, lines })
    }

    fn send(&mut self, msg: &Value) -> Result<(), String> {
        writeln!(self.stdin, "{msg}").and_then(|()| self.stdin.flush()).map_err(|e| e.to_string())
    }

    fn recv(&mut self) -> Result<Value, String> {
        let line = self.lines.recv_timeout(WAIT).map_err(|_| "no message in time".to_owned())?;
        serde_json::from_str(&line).map_err(|e| format!("{e}: {line}"))
    }

    /// Opens the listen stream for `uri`: returns once it is acknowledged.
    fn listen(&mut self, uri: &str) -> Result<(), String> {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { "name": "folio-bench", "version": "0" },
        });
        self.send(
            &json!({ "jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": { "_meta": meta } }),
        )?;
        self.recv()?;
        self.send(&json!({
            "jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
            "params": { "_meta": meta, "notifications": { "resourceSubscriptions": [uri] } },
        }))?;
        let ack = self.recv()?;
        if ack["method"] != "notifications/subscriptions/acknowledged" {
            return Err(format!("no acknowledgement: {ack}"));
        }
        Ok(())
    }

    /// Saves `path` with a new last line and waits for its update: the elapsed time.
    fn save_and_wait(&mut self, root: &Path, rel: &Path, uri: &str, n: usize) -> Result<Duration, String> {
        let path = root.join(rel);
        let mut bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
        bytes.extend_from_slice(format!("\nEdit {n}.\n").as_bytes());
        let temp = path.with_file_name(".folio-bench-save");
        std::fs::write(&temp, &bytes).map_err(|e| e.to_string())?;
        let started = Instant::now();
        std::fs::rename(&temp, &path).map_err(|e| e.to_string())?;
        loop {
            let msg = self.recv()?;
            if msg["method"] == "notifications/resources/updated" && msg["params"]["uri"] == uri {
                return Ok(started.elapsed());
            }
        }
    }

    fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn latency(bin: &Path, size: Size, edits: usize) -> Result<String, String> {
    let root = scratch_copy(size)?;
    let (rel, uri) = first_doc(&root)?;
    let mut server = Server::start(bin, &root)?;
    server.listen(&uri)?;
    // One save first: the first recompile also warms the page cache and the allocator.
    server.save_and_wait(&root, &rel, &uri, 0)?;
    let mut times = Vec::with_capacity(edits);
    for n in 1..=edits {
        times.push(server.save_and_wait(&root, &rel, &uri, n)?);
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    Ok(format!(
        "{}: save → notification over {edits} saves: p50 {:.0} ms, p90 {:.0} ms, max {:.0} ms",
        size.name(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.9).as_secs_f64() * 1e3,
        at(1.0).as_secs_f64() * 1e3,
    ))
}

fn memory(bin: &Path, size: Size, edits: usize) -> Result<String, String> {
    let root = scratch_copy(size)?;
    let (rel, uri) = first_doc(&root)?;
    let mut server = Server::start(bin, &root)?;
    server.listen(&uri)?;
    server.save_and_wait(&root, &rel, &uri, 0)?;
    let mut samples = vec![(1, server.rss_kib().ok_or("no /proc status")?)];
    let step = (edits / 10).max(1);
    for n in 1..=edits {
        server.save_and_wait(&root, &rel, &uri, n)?;
        if n % step == 0 {
            samples.push((n + 1, server.rss_kib().ok_or("no /proc status")?));
        }
    }
    let list: Vec<String> =
        samples.iter().map(|(n, kib)| format!("{n}: {:.1} MiB", *kib as f64 / 1024.0)).collect();
    Ok(format!("{}: RSS after save N over {} saves: {}", size.name(), edits + 1, list.join(", ")))
}

fn full_vs_incremental(size: Size, runs: usize) -> Result<String, String> {
    use folio::compile::{self, Cache, Config};
    let root = scratch_copy(size)?;
    let (rel, _) = first_doc(&root)?;
    // Files modified in the two seconds before a compile are hashed, not trusted by their time:
    // let the copy age first, as a tree being edited has.
    std::thread::sleep(Duration::from_secs(3));
    let config = Config::new(root.clone());
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let mut full = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let c = compile::compile(&config);
        full.push(started.elapsed());
        c.catalog.ok_or("the corpus has errors")?;
    }
    let mut cache = Cache::default();
    compile::compile_incremental(&config, &mut cache).catalog.ok_or("the corpus has errors")?;
    let mut incremental = Vec::new();
    let path = root.join(&rel);
    for n in 0..runs {
        let mut bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
        bytes.extend_from_slice(format!("\nEdit {n}.\n").as_bytes());
        std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
        let started = Instant::now();
        let c = compile::compile_incremental(&config, &mut cache);
        incremental.push(started.elapsed());
        c.catalog.ok_or("the edit broke the corpus")?;
    }
    let (reused, compiled) = cache.counts();
    Ok(format!(
        "{}: one-doc edit: full compile {:.0} ms, incremental {:.0} ms ({compiled} file compiled, {reused} reused; medians of {runs})",
        size.name(),
        median(full).as_secs_f64() * 1e3,
        median(incremental).as_secs_f64() * 1e3,
    ))
}
