//! What the process benches share: a `folio serve` child spoken to over stdio, the answers'
//! plumbing, and the `/proc` readings (peak and current RSS, PSS) that their figures come from.
//!
//! Each bench is its own crate and uses part of this; nothing here measures on its own.

#![allow(dead_code, reason = "each bench uses part of the shared helpers")]

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The protocol revision the benches speak (per-request `_meta`, no `initialize`).
pub(crate) const PROTOCOL_VERSION: &str = "2026-07-28";

/// A `folio serve` child speaking newline-delimited JSON-RPC on stdin/stdout.
pub(crate) struct StdioServer {
    pub(crate) child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    next_id: u64,
    line: String,
}

impl StdioServer {
    /// `folio serve --catalog FILE`.
    pub(crate) fn spawn(bin: &Path, catalog: &Path) -> Result<StdioServer, String> {
        StdioServer::spawn_with(bin, [OsStr::new("--catalog"), catalog.as_os_str()])
    }

    /// `folio serve ARGS…`.
    pub(crate) fn spawn_with<'a>(
        bin: &Path,
        args: impl IntoIterator<Item = &'a OsStr>,
    ) -> Result<StdioServer, String> {
        let mut child = Command::new(bin)
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot spawn {}: {e}", bin.display()))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().expect("piped stdout"));
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        drain_stderr(child.stderr.take().expect("piped stderr"), Arc::clone(&stderr));
        Ok(StdioServer { child, stdin, stdout, stderr, next_id: 1, line: String::new() })
    }

    /// Sends one request and returns the answer with the same id (skipping notifications).
    pub(crate) fn request(&mut self, method: &str, mut params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        params["_meta"] = request_meta();
        let mut line =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
                .expect("request serializes");
        line.push(b'\n');
        let stdin = self.stdin.as_mut().ok_or("stdin closed")?;
        stdin.write_all(&line).and_then(|()| stdin.flush()).map_err(|e| self.died(&format!("write: {e}")))?;
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line).map_err(|e| self.died(&format!("read: {e}")))?;
            if n == 0 {
                return Err(self.died("stdout closed"));
            }
            let answer: Value = serde_json::from_str(&self.line)
                .map_err(|e| format!("{method}: answer is not JSON ({e}): {}", truncate(&self.line)))?;
            if answer.get("id").and_then(Value::as_u64) == Some(id) {
                return Ok(answer);
            }
        }
    }

    fn died(&self, what: &str) -> String {
        let tail: Vec<String> = self.stderr.lock().expect("stderr lock").iter().cloned().collect();
        format!("server {what}; stderr tail:\n{}", tail.join("\n"))
    }

    /// Closes stdin (the server should exit on EOF) and reaps the process.
    pub(crate) fn finish(mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        eprintln!("server did not exit within 5 s of stdin EOF; killing it");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Keeps the last 20 lines a child wrote to stderr, for the message when it dies.
pub(crate) fn drain_stderr(stderr: impl Read + Send + 'static, tail: Arc<Mutex<VecDeque<String>>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let mut tail = tail.lock().expect("stderr lock");
            if tail.len() == 20 {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });
}

/// The modern per-request `_meta` (MCP 2026-07-28; ARCHITECTURE.md, "Protocol versions").
pub(crate) fn request_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "folio-bench", "version": "0"},
    })
}

/// The `result` of an answer, or its error as a one-line message.
pub(crate) fn result_of(answer: &Value) -> Result<&Value, String> {
    if let Some(result) = answer.get("result") {
        return Ok(result);
    }
    Err(match answer.get("error") {
        Some(e) => format!("error {}: {}", e.get("code").unwrap_or(&Value::Null), truncate(&e.to_string())),
        None => format!("neither result nor error: {}", truncate(&answer.to_string())),
    })
}

/// Walks a paginated list method to its end and returns every item of `field`.
pub(crate) fn walk(server: &mut StdioServer, method: &str, field: &str) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        if page > 100_000 {
            return Err(format!("{method}: more than 100,000 pages; cursor loop?"));
        }
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let mut answer = server.request(method, params)?;
        result_of(&answer).map_err(|e| format!("{method} page {page}: {e}"))?;
        let result = &mut answer["result"];
        // Moved out of the parsed answer, not deep-copied: the walk times the server and the
        // parse every client does, not a copy of every item.
        let Some(Value::Array(list)) = result.get_mut(field).map(Value::take) else {
            return Err(format!("{method}: no `{field}` array"));
        };
        items.extend(list);
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    Ok(items)
}

/// A `kB` figure of `/proc/<pid>/status`: `VmHWM` (peak resident set) or `VmRSS` (now), in KiB.
pub(crate) fn proc_status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Peak resident set of a live process, in KiB.
pub(crate) fn vm_hwm(pid: u32) -> Option<u64> {
    proc_status_kib(pid, "VmHWM")
}

/// Proportional set size of a live process, in KiB (`/proc/<pid>/smaps_rollup`): its private
/// pages plus its share of every page it shares, so the PSS of processes sharing a mapped file
/// adds up to what they hold together.
pub(crate) fn pss_kib(pid: u32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    rollup
        .lines()
        .find_map(|l| l.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The median of `times` (sorts them).
pub(crate) fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// `s` trimmed and cut to 300 characters, for one-line messages.
pub(crate) fn truncate(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
