//! MCP server benchmark (issue 4's performance targets; ARCHITECTURE.md, "Performance") against the real `folio` binary.
//!
//! Per corpus (default: the large one), it builds the catalog with `folio build`, then:
//! - **stdio**: spawns `folio serve --catalog FILE` and speaks raw JSON-RPC lines with the modern
//!   (2026-07-28) per-request `_meta`: spawn → first `resources/list` answer (median of several
//!   fresh processes), full paginated `resources/list` walks once the server has answered a first
//!   request (the first walk, the median of five, and the server's CPU time per walk from
//!   `/proc/<pid>/task/*/schedstat`), `resources/read` p50/p99 over 1,000
//!   random reads, `search_patterns` p50/p99 over 200 searches, a full `skills/list` walk, and the
//!   server's peak RSS (`VmHWM` from `/proc/<pid>/status` before it exits);
//! - **HTTP**: spawns `folio serve --catalog FILE --http 127.0.0.1:PORT` and runs 32 concurrent
//!   clients (plain HTTP/1.1 over `TcpStream`, keep-alive) doing `resources/read` POSTs to `/mcp`.
//!
//! Latencies are client round trips (write the request line, read the answer line), so they bound
//! the server-side time from above. The binary is the one cargo builds for this bench
//! (`CARGO_BIN_EXE_folio`, with the bench profile, which has the `dist` settings); set
//! `FOLIO_BIN` to bench another one.
//!
//! ```text
//! cargo bench --bench server                                # large corpus
//! FOLIO_BENCH_SIZES=small cargo bench --bench server        # quick smoke run
//! FOLIO_BENCH_HTTP_READS=6400 …                             # total HTTP reads (default 3,200)
//! FOLIO_BENCH_SEARCH_BUDGET_S=600 …                         # search time budget (default 60 s)
//! ```
#![allow(clippy::print_stdout, reason = "a benchmark reports its table on stdout")]

use folio_bench_corpus as corpus;

mod support;

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use corpus::Size;
use serde_json::{Value, json};
use support::{
    PROTOCOL_VERSION, StdioServer, drain_stderr, median, request_meta, result_of, truncate, vm_hwm, walk,
};

const READS: usize = 1_000;
const SEARCHES: usize = 200;
const READY_SPAWNS: usize = 5;
const LIST_WALKS: usize = 5;
const HTTP_CLIENTS: usize = 32;

fn main() {
    let sizes = Size::from_env(&[Size::Large]);
    let bin = std::env::var_os("FOLIO_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_folio")), PathBuf::from);
    let mut reports = Vec::new();
    for size in sizes {
        match bench_size(&bin, size) {
            Ok(report) => reports.push(report),
            Err(e) => {
                eprintln!("{}: server bench failed: {e}", size.name());
                reports.push(Report::for_size(size));
            }
        }
    }
    print_report(&reports);
}

#[derive(Default)]
struct Report {
    size: Option<Size>,
    catalog_mb: f64,
    resources: usize,
    skills: usize,
    ready: Option<Duration>,
    list_walk: Option<(Duration, usize)>,
    list_walk_first: Option<Duration>,
    list_walk_cpu: Option<Duration>,
    read: Option<Latencies>,
    search: Option<Latencies>,
    skills_walk: Option<(Duration, usize)>,
    stdio_rss_kib: Option<u64>,
    http: Option<HttpResult>,
    http_rss_kib: Option<u64>,
    notes: Vec<String>,
}

// `Report { size, .. }` needs `size: Option<Size>`; this keeps call sites short.
impl Report {
    fn for_size(size: Size) -> Report {
        Report { size: Some(size), ..Report::default() }
    }
}

struct Latencies {
    p50: Duration,
    p99: Duration,
    max: Duration,
    errors: usize,
    first_error: Option<String>,
    count: usize,
}

struct HttpResult {
    total: usize,
    ok: usize,
    elapsed: Duration,
    latencies: Latencies,
}

fn bench_size(bin: &Path, size: Size) -> Result<Report, String> {
    let mut report = Report::for_size(size);
    let (dir, stats) = corpus::ensure(size);
    eprintln!(
        "{}: corpus {} docs + {} skills, {:.1} MB",
        size.name(),
        stats.docs,
        stats.skills,
        stats.bytes as f64 / 1e6
    );
    let catalog = build_catalog(bin, &dir, size)?;
    report.catalog_mb = std::fs::metadata(&catalog).map_or(0.0, |m| m.len() as f64 / 1e6);

    // Ready time: several fresh processes, page cache warm after the first.
    let mut ready = Vec::new();
    for _ in 0..READY_SPAWNS {
        let t = Instant::now();
        let mut server = StdioServer::spawn(bin, &catalog)?;
        let answer = server.request("resources/list", json!({}))?;
        ready.push(t.elapsed());
        result_of(&answer)?;
        server.finish();
    }
    report.ready = Some(median(&mut ready));
    eprintln!("{}: ready in {:.1?} (median)", size.name(), report.ready.unwrap_or_default());

    let mut server = StdioServer::spawn(bin, &catalog)?;
    // Wait until the server has opened its catalog (that is the ready time above): a walk timed
    // from the spawn would count the open too.
    result_of(&server.request("tools/list", json!({}))?)?;
    // Full resources/list walks: the first on a fresh server, then the median of all, with the
    // server's own CPU time per walk (robust to other load on the machine).
    let mut walks = Vec::with_capacity(LIST_WALKS);
    let mut cpu = Vec::with_capacity(LIST_WALKS);
    let mut uris = Vec::new();
    for _ in 0..LIST_WALKS {
        let before = cpu_time(server.child.id());
        let t = Instant::now();
        uris = walk(&mut server, "resources/list", "resources")?;
        walks.push(t.elapsed());
        if let (Some(a), Some(b)) = (before, cpu_time(server.child.id())) {
            cpu.push(b.saturating_sub(a));
        }
    }
    report.list_walk_first = walks.first().copied();
    report.list_walk = Some((median(&mut walks), uris.len()));
    report.list_walk_cpu = (!cpu.is_empty()).then(|| median(&mut cpu));
    eprintln!(
        "{}: resources/list walk: {} resources, first {:.1?}, median of {LIST_WALKS} {:.1?}, server CPU {:.1?}",
        size.name(),
        uris.len(),
        report.list_walk_first.unwrap_or_default(),
        report.list_walk.map(|w| w.0).unwrap_or_default(),
        report.list_walk_cpu.unwrap_or_default()
    );
    report.resources = uris.len();
    let readable: Vec<&Value> = uris.iter().collect();
    if readable.is_empty() {
        return Err("resources/list returned no resources".into());
    }

    // Random reads.
    let mut rng = corpus_rng(0x7ead);
    let mut times = Vec::with_capacity(READS);
    let mut errors = (0, None);
    for _ in 0..READS {
        let item = readable[(rng() % readable.len() as u64) as usize];
        let uri = item.get("uri").and_then(Value::as_str).unwrap_or_default().to_string();
        let t = Instant::now();
        let answer = server.request("resources/read", json!({ "uri": uri }))?;
        times.push(t.elapsed());
        match result_of(&answer) {
            Ok(r) if r.get("contents").and_then(Value::as_array).is_some_and(|c| !c.is_empty()) => {}
            Ok(_) => note_error(&mut errors, format!("{uri}: empty contents")),
            Err(e) => note_error(&mut errors, format!("{uri}: {e}")),
        }
    }
    report.read = Some(latencies(times, errors));
    eprintln!("{}: {READS} reads done", size.name());

    // Searches through the fallback tool.
    // A slow search (a linear scan instead of an index) must not stall the run: stop after a
    // time budget and report how many queries ran.
    let budget = Duration::from_secs(
        std::env::var("FOLIO_BENCH_SEARCH_BUDGET_S").ok().and_then(|v| v.parse().ok()).unwrap_or(60),
    );
    let mut times = Vec::with_capacity(SEARCHES);
    let mut errors = (0, None);
    let started = Instant::now();
    for query in corpus::sample_queries(SEARCHES, 42) {
        if started.elapsed() > budget {
            report.notes.push(format!(
                "search_patterns: stopped after {} of {SEARCHES} queries (budget {budget:?}; \
                 FOLIO_BENCH_SEARCH_BUDGET_S raises it)",
                times.len()
            ));
            break;
        }
        let t = Instant::now();
        let answer = server
            .request("tools/call", json!({ "name": "search_patterns", "arguments": { "query": query } }))?;
        times.push(t.elapsed());
        match result_of(&answer) {
            Ok(r) if r.get("isError") == Some(&Value::Bool(true)) => {
                note_error(&mut errors, format!("`{query}`: isError: {}", truncate(&r.to_string())))
            }
            Ok(_) => {}
            Err(e) => note_error(&mut errors, format!("`{query}`: {e}")),
        }
    }
    report.search = Some(latencies(times, errors));
    eprintln!("{}: searches done", size.name());

    // Full skills/list walk (SEP-2640).
    let t = Instant::now();
    match walk(&mut server, "skills/list", "skills") {
        Ok(skills) => {
            report.skills_walk = Some((t.elapsed(), skills.len()));
            report.skills = skills.len();
        }
        Err(e) => report.notes.push(format!("skills/list: {e}")),
    }
    report.stdio_rss_kib = vm_hwm(server.child.id());
    server.finish();

    // HTTP throughput.
    match bench_http(bin, &catalog, &uris) {
        Ok((http, rss)) => {
            report.http = Some(http);
            report.http_rss_kib = rss;
        }
        Err(e) => report.notes.push(format!("http: {e}")),
    }
    Ok(report)
}

/// Builds the corpus's catalog with `folio build` into `target/bench-catalog/<size>/`.
fn build_catalog(bin: &Path, dir: &Path, size: Size) -> Result<PathBuf, String> {
    let out =
        corpus::corpus_dir(size).parent().expect("corpus dir has a parent").with_file_name("bench-catalog");
    let out = out.join(size.name());
    let t = Instant::now();
    let res = Command::new(bin)
        .arg("build")
        .arg(dir)
        .arg("--out")
        .arg(&out)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    if !res.status.success() {
        return Err(format!(
            "`folio build` failed ({}): {}",
            res.status,
            truncate(&String::from_utf8_lossy(&res.stderr))
        ));
    }
    eprintln!("{}: `folio build` took {:.2?}", size.name(), t.elapsed());
    let catalog = out.join("catalog.msgpack");
    if !catalog.is_file() {
        return Err(format!("`folio build` wrote no {}", catalog.display()));
    }
    Ok(catalog)
}

/// CPU time (user + system) a live process's threads have used so far, from
/// `/proc/<pid>/task/*/schedstat` (nanoseconds, unlike the 10 ms ticks of `/proc/<pid>/stat`).
fn cpu_time(pid: u32) -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

// ---------------------------------------------------------------------------------------------
// HTTP

fn bench_http(bin: &Path, catalog: &Path, uris: &[Value]) -> Result<(HttpResult, Option<u64>), String> {
    // Pick a free port by binding it ourselves, then hand it to the server.
    let port =
        TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = Command::new(bin)
        .arg("serve")
        .arg("--catalog")
        .arg(catalog)
        .arg("--http")
        .arg(&addr)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot spawn {}: {e}", bin.display()))?;
    let stderr = Arc::new(Mutex::new(VecDeque::new()));
    drain_stderr(child.stderr.take().expect("piped stderr"), Arc::clone(&stderr));
    let result = run_http_load(&addr, uris, &mut child);
    let rss = vm_hwm(child.id());
    let _ = child.kill();
    let _ = child.wait();
    match result {
        Ok(r) => Ok((r, rss)),
        Err(e) => {
            let tail: Vec<String> = stderr.lock().expect("stderr lock").iter().cloned().collect();
            Err(format!("{e}; server stderr tail:\n{}", tail.join("\n")))
        }
    }
}

fn run_http_load(addr: &str, uris: &[Value], child: &mut Child) -> Result<HttpResult, String> {
    // Wait until the server answers /healthz (polling: the server gives no other ready signal).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("server exited before listening ({status})"));
        }
        if let Ok(mut conn) = HttpConn::connect(addr)
            && let Ok((200, _)) = conn.send("GET", "/healthz", &[], b"")
        {
            break;
        }
        if Instant::now() > deadline {
            return Err("server not listening after 30 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }

    let total: usize =
        std::env::var("FOLIO_BENCH_HTTP_READS").ok().and_then(|v| v.parse().ok()).unwrap_or(3_200);
    let per_client = total.div_ceil(HTTP_CLIENTS);
    let uris: Vec<String> =
        uris.iter().filter_map(|u| u.get("uri").and_then(Value::as_str)).map(str::to_string).collect();
    let started = Instant::now();
    let results: Vec<(Vec<Duration>, usize, Option<String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..HTTP_CLIENTS)
            .map(|client| {
                let uris = &uris;
                scope.spawn(move || http_client(addr, uris, client, per_client))
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("http client panicked")).collect()
    });
    let elapsed = started.elapsed();
    let mut times = Vec::new();
    let mut errors = (0, None);
    for (t, errs, first) in results {
        times.extend(t);
        errors.0 += errs;
        if errors.1.is_none() {
            errors.1 = first;
        }
    }
    let total = times.len();
    let ok = total - errors.0;
    Ok(HttpResult { total, ok, elapsed, latencies: latencies(times, errors) })
}

/// One HTTP client: `n` reads of random URIs over one keep-alive connection (reconnecting when
/// the server closes it). Returns latencies, the error count and the first error.
fn http_client(
    addr: &str,
    uris: &[String],
    client: usize,
    n: usize,
) -> (Vec<Duration>, usize, Option<String>) {
    let mut rng = corpus_rng(0x4777 + client as u64);
    let mut times = Vec::with_capacity(n);
    let mut errors = (0, None);
    let mut conn: Option<HttpConn> = None;
    for i in 0..n {
        let uri = &uris[(rng() % uris.len() as u64) as usize];
        let body = serde_json::to_vec(&json!({
            "jsonrpc": "2.0", "id": i + 1, "method": "resources/read",
            "params": { "uri": uri, "_meta": request_meta() },
        }))
        .expect("request serializes");
        let headers = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", PROTOCOL_VERSION),
            ("Mcp-Method", "resources/read"),
            ("Mcp-Name", uri.as_str()),
        ];
        let t = Instant::now();
        let res = (|| {
            if conn.as_ref().is_none_or(|c| c.closed) {
                conn = Some(HttpConn::connect(addr)?);
            }
            let res = conn.as_mut().expect("connected").send("POST", "/mcp", &headers, &body);
            if res.is_err() {
                // A closed keep-alive connection: retry once on a fresh one.
                conn = Some(HttpConn::connect(addr)?);
                return conn.as_mut().expect("connected").send("POST", "/mcp", &headers, &body);
            }
            res
        })();
        times.push(t.elapsed());
        match res {
            Ok((200, body)) => match serde_json::from_slice::<Value>(sse_payload(&body)) {
                Ok(answer) => {
                    if let Err(e) = result_of(&answer) {
                        note_error(&mut errors, format!("{uri}: {e}"));
                    }
                }
                Err(e) => note_error(&mut errors, format!("{uri}: body is not JSON ({e})")),
            },
            Ok((status, body)) => note_error(
                &mut errors,
                format!("{uri}: HTTP {status}: {}", truncate(&String::from_utf8_lossy(&body))),
            ),
            Err(e) => {
                conn = None;
                note_error(&mut errors, format!("{uri}: {e}"));
            }
        }
    }
    (times, errors.0, errors.1)
}

/// The JSON of a response body: itself, or the `data:` of the first SSE event.
fn sse_payload(body: &[u8]) -> &[u8] {
    let text = std::str::from_utf8(body).unwrap_or("");
    if text.trim_start().starts_with('{') {
        return body;
    }
    for line in text.lines() {
        if let Some(data) = line.strip_prefix("data:") {
            let data = data.trim_start();
            let start = data.as_ptr() as usize - body.as_ptr() as usize;
            return &body[start..start + data.len()];
        }
    }
    body
}

/// A minimal HTTP/1.1 keep-alive client: Content-Length and chunked bodies.
struct HttpConn {
    reader: BufReader<TcpStream>,
    host: String,
    /// The server said `Connection: close` (or ended the body with EOF): reconnect next time.
    closed: bool,
}

impl HttpConn {
    fn connect(addr: &str) -> Result<HttpConn, String> {
        let stream = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        stream.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| e.to_string())?;
        Ok(HttpConn {
            reader: BufReader::with_capacity(1 << 16, stream),
            host: addr.to_string(),
            closed: false,
        })
    }

    fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Result<(u16, Vec<u8>), String> {
        let mut req =
            format!("{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Length: {}\r\n", self.host, body.len());
        for (k, v) in headers {
            req.push_str(k);
            req.push_str(": ");
            req.push_str(v);
            req.push_str("\r\n");
        }
        req.push_str("\r\n");
        let stream = self.reader.get_mut();
        stream
            .write_all(req.as_bytes())
            .and_then(|()| stream.write_all(body))
            .map_err(|e| format!("write: {e}"))?;

        let mut line = String::new();
        self.read_line(&mut line)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("bad status line `{}`", line.trim()))?;
        let (mut length, mut chunked, mut close) = (None, false, false);
        loop {
            line.clear();
            self.read_line(&mut line)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap_or((header, ""));
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            } else if name.eq_ignore_ascii_case("connection") {
                close = value.eq_ignore_ascii_case("close");
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                self.read_line(&mut line)?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| format!("bad chunk size `{}`", line.trim()))?;
                let start = body.len();
                body.resize(start + size, 0);
                self.reader.read_exact(&mut body[start..]).map_err(|e| format!("read chunk: {e}"))?;
                line.clear();
                self.read_line(&mut line)?;
                if size == 0 {
                    break;
                }
            }
        } else if let Some(n) = length {
            body.resize(n, 0);
            self.reader.read_exact(&mut body).map_err(|e| format!("read body: {e}"))?;
        } else {
            self.reader.read_to_end(&mut body).map_err(|e| format!("read body: {e}"))?;
            close = true;
        }
        self.closed = close;
        Ok((status, body))
    }

    fn read_line(&mut self, line: &mut String) -> Result<(), String> {
        match self.reader.read_line(line) {
            Ok(0) => Err("connection closed".into()),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("read: {e}")),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Statistics and report

fn corpus_rng(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn note_error(errors: &mut (usize, Option<String>), message: String) {
    errors.0 += 1;
    if errors.1.is_none() {
        errors.1 = Some(message);
    }
}

fn latencies(mut times: Vec<Duration>, errors: (usize, Option<String>)) -> Latencies {
    times.sort();
    let n = times.len().max(1);
    let at =
        |q: f64| times.get(((n as f64 * q).ceil() as usize).saturating_sub(1)).copied().unwrap_or_default();
    Latencies {
        p50: at(0.5),
        p99: at(0.99),
        max: times.last().copied().unwrap_or_default(),
        errors: errors.0,
        first_error: errors.1,
        count: times.len(),
    }
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

fn verdict(ok: bool) -> &'static str {
    if ok { "MET" } else { "MISSED" }
}

fn print_report(reports: &[Report]) {
    for r in reports {
        let Some(size) = r.size else { continue };
        println!();
        println!(
            "### `folio serve` on the {} corpus ({} resources, {} skills, catalog {:.1} MB)",
            size.name(),
            r.resources,
            r.skills,
            r.catalog_mb
        );
        println!();
        println!("| measurement | result | target |");
        println!("| --- | --- | --- |");
        if let Some(d) = r.ready {
            println!(
                "| spawn → first `resources/list` answer (median of {READY_SPAWNS}) | {} ms | ≤ 300 ms {} |",
                ms(d),
                verdict(d <= Duration::from_millis(300))
            );
        }
        if let (Some(first), Some((median, n))) = (r.list_walk_first, r.list_walk) {
            let cpu = r.list_walk_cpu.map_or_else(|| "—".to_owned(), ms);
            println!(
                "| full `resources/list` walk ({n} resources): first on a fresh server (median of \
                 {LIST_WALKS}; server CPU {cpu} ms per walk) | {} ms ({} ms) | ≤ 500 ms {} |",
                ms(first),
                ms(median),
                verdict(first <= Duration::from_millis(500))
            );
        }
        if let Some(l) = &r.read {
            println!(
                "| `resources/read` round trip, {} random reads | p50 {} ms, p99 {} ms, max {} ms, {} errors | p50 ≤ 0.5 ms {} |",
                l.count,
                ms(l.p50),
                ms(l.p99),
                ms(l.max),
                l.errors,
                verdict(l.p50 <= Duration::from_micros(500) && l.errors == 0)
            );
        }
        if let Some(l) = &r.search {
            println!(
                "| `search_patterns` round trip, {} queries | p50 {} ms, p99 {} ms, max {} ms, {} errors | — |",
                l.count,
                ms(l.p50),
                ms(l.p99),
                ms(l.max),
                l.errors
            );
        }
        if let Some((d, n)) = r.skills_walk {
            println!(
                "| full `skills/list` walk ({n} skills) | {} ms | ≤ 300 ms {} |",
                ms(d),
                verdict(d <= Duration::from_millis(300))
            );
        }
        if let Some(kib) = r.stdio_rss_kib {
            println!(
                "| peak RSS, stdio server after the runs above | {:.0} MB | — |",
                kib as f64 * 1024.0 / 1e6
            );
        }
        if let Some(h) = &r.http {
            println!(
                "| HTTP: {HTTP_CLIENTS} concurrent clients, {} `resources/read` POSTs | {}/{} ok, {:.0} req/s, p50 {} ms, p99 {} ms | all succeed {} |",
                h.total,
                h.ok,
                h.total,
                h.total as f64 / h.elapsed.as_secs_f64(),
                ms(h.latencies.p50),
                ms(h.latencies.p99),
                verdict(h.ok == h.total && h.total >= 200)
            );
        }
        if let Some(kib) = r.http_rss_kib {
            println!("| peak RSS, HTTP server after the load | {:.0} MB | — |", kib as f64 * 1024.0 / 1e6);
        }
        for l in [&r.read, &r.search].into_iter().flatten() {
            if let Some(e) = &l.first_error {
                println!("\nfirst error: {e}");
            }
        }
        if let Some(e) = r.http.as_ref().and_then(|h| h.latencies.first_error.as_ref()) {
            println!("\nfirst HTTP error: {e}");
        }
        for note in &r.notes {
            println!("\nnote: {note}");
        }
    }
    println!();
    println!(
        "Round trips are measured by the client (write the request line, read the answer line), so \
         they bound server-side latency from above."
    );
}
