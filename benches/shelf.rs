//! Shelf benchmark (issue 48's figures), against the real `folio` binary.
//!
//! - **shelf**: generates a shelf of `FOLIO_BENCH_SHELF_CATALOGS` catalogs (default 1,000: 500
//!   libraries at two versions each) of `FOLIO_BENCH_SHELF_DOCS` small docs each (default 2,000),
//!   written into `target/bench-shelf/<catalogs>x<docs>/shelf/<name>@<version>/` (one compiled
//!   tree encoded again under each name), then times `folio serve --shelf DIR` from spawn to its
//!   first `find_library` answer, which lists every catalog (median of fresh processes), and
//!   reads its resident set then, before any catalog is read (target: <= 1 s, <= 100 MB); then
//!   the first read in one catalog and a search across the shelf, and the resident set after.
//! - **replicas**: three `folio serve --catalog FILE --mmap` of one bench corpus (default large)
//!   that each list and read every resource; their PSS added up (`/proc/<pid>/smaps_rollup`:
//!   a shared page counts once in the sum), against the corpus's bytes (target: <= 1.2x).
//!
//! ```text
//! cargo bench --features jemalloc --bench shelf
//! FOLIO_BENCH_SHELF_CATALOGS=100 FOLIO_BENCH_SIZES=small cargo bench --bench shelf   # quick run
//! FOLIO_BENCH_SECTIONS=shelf …                      # one section (shelf, replicas)
//! ```
#![allow(clippy::print_stdout, reason = "a benchmark reports its table on stdout")]

mod support;

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use folio_bench_corpus as corpus;
use serde_json::{Value, json};
use support::{StdioServer, median, proc_status_kib, pss_kib, result_of, truncate, walk};

const READY_SPAWNS: usize = 5;
const REPLICAS: usize = 3;

fn main() {
    let bin = std::env::var_os("FOLIO_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_folio")), PathBuf::from);
    let sections = std::env::var("FOLIO_BENCH_SECTIONS").unwrap_or_else(|_| "shelf,replicas".into());
    let mut report = String::new();
    if sections.split(',').any(|s| s == "shelf") {
        match bench_shelf(&bin) {
            Ok(table) => report.push_str(&table),
            Err(e) => eprintln!("shelf: bench failed: {e}"),
        }
    }
    if sections.split(',').any(|s| s == "replicas") {
        for size in corpus::Size::from_env(&[corpus::Size::Large]) {
            match bench_replicas(&bin, size) {
                Ok(table) => report.push_str(&table),
                Err(e) => eprintln!("{}: replicas bench failed: {e}", size.name()),
            }
        }
    }
    print!("{report}");
}

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn target_dir() -> PathBuf {
    corpus::corpus_dir(corpus::Size::Small)
        .parent()
        .and_then(Path::parent)
        .expect("the corpus folder is two below the target folder")
        .to_path_buf()
}

// ---------------------------------------------------------------------------------------------
// Shelf

fn bench_shelf(bin: &Path) -> Result<String, String> {
    let catalogs = env_count("FOLIO_BENCH_SHELF_CATALOGS", 1_000).max(1);
    let docs = env_count("FOLIO_BENCH_SHELF_DOCS", 2_000).max(1);
    let shelf = ensure_shelf(bin, catalogs, docs)?;
    let bytes = folder_bytes(&shelf);
    eprintln!("shelf: {catalogs} catalogs of {docs} docs, {:.1} MB on disk", bytes as f64 / 1e6);

    let args = [OsStr::new("--shelf"), shelf.as_os_str()];
    let mut ready = Vec::with_capacity(READY_SPAWNS);
    let mut rss_ready = Vec::with_capacity(READY_SPAWNS);
    for _ in 0..READY_SPAWNS {
        let t = Instant::now();
        let mut server = StdioServer::spawn_with(bin, args)?;
        // `find_library` lists every catalog: the whole shelf has been read.
        let found =
            server.request("tools/call", json!({ "name": "find_library", "arguments": { "limit": 1 } }))?;
        ready.push(t.elapsed());
        // `total` counts libraries: two versions each.
        let total = result_of(&found)?.pointer("/structuredContent/total").and_then(Value::as_u64);
        if total != Some(catalogs.div_ceil(2) as u64) {
            return Err(format!("find_library saw {total:?} libraries; the shelf has {catalogs} catalogs"));
        }
        rss_ready.push(proc_status_kib(server.child.id(), "VmRSS").unwrap_or(0));
        server.finish();
    }
    let ready = median(&mut ready);
    rss_ready.sort_unstable();
    let rss_ready = rss_ready[rss_ready.len() / 2];

    // One server on: list the shelf's libraries, read a doc of one catalog (opening it), search
    // across the shelf.
    let mut server = StdioServer::spawn_with(bin, args)?;
    result_of(&server.request("tools/list", json!({}))?)?;
    let t = Instant::now();
    let first_page = server.request("resources/list", json!({}))?;
    let list_first = t.elapsed();
    let resources =
        result_of(&first_page)?.get("resources").and_then(Value::as_array).cloned().unwrap_or_default();
    let doc = resources
        .iter()
        .filter_map(|r| r.get("uri").and_then(Value::as_str))
        .find(|uri| uri.ends_with(".md"))
        .ok_or("the shelf's first resources/list page names no doc")?
        .to_string();
    let t = Instant::now();
    result_of(&server.request("resources/read", json!({ "uri": doc }))?)?;
    let first_read = t.elapsed();
    let t = Instant::now();
    result_of(&server.request("resources/read", json!({ "uri": doc }))?)?;
    let second_read = t.elapsed();
    let rss_read = proc_status_kib(server.child.id(), "VmRSS").unwrap_or(0);
    let t = Instant::now();
    let search = server
        .request("tools/call", json!({ "name": "search_patterns", "arguments": { "query": "lantern" } }))?;
    let search_all = t.elapsed();
    let search_note = match result_of(&search) {
        Ok(r) if r.get("isError") == Some(&Value::Bool(true)) => {
            format!("isError: {}", truncate(&r.to_string()))
        }
        Ok(_) => "ok".to_string(),
        Err(e) => e,
    };
    let rss_search = proc_status_kib(server.child.id(), "VmRSS").unwrap_or(0);
    server.finish();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n### `folio serve --shelf`: {catalogs} catalogs of {docs} docs ({:.0} MB)\n",
        bytes as f64 / 1e6
    );
    let _ = writeln!(out, "| measurement | result | target |\n| --- | --- | --- |");
    let _ = writeln!(
        out,
        "| spawn → first `find_library` answer, median of {READY_SPAWNS} | {} ms | ≤ 1,000 ms |",
        ms(ready)
    );
    let _ = writeln!(
        out,
        "| RSS then, before any read (median) | {:.1} MiB | ≤ 100 MB |",
        rss_ready as f64 / 1024.0
    );
    let _ = writeln!(out, "| first `resources/list` page | {} ms | |", ms(list_first));
    let _ = writeln!(out, "| first read of a doc (opens its catalog) | {} ms | |", ms(first_read));
    let _ = writeln!(out, "| the same read again | {} ms | |", ms(second_read));
    let _ = writeln!(out, "| RSS after that read | {:.1} MiB | |", rss_read as f64 / 1024.0);
    let _ = writeln!(out, "| `search_patterns` across the shelf ({search_note}) | {} ms | |", ms(search_all));
    let _ = writeln!(out, "| RSS after that search | {:.1} MiB | |", rss_search as f64 / 1024.0);
    Ok(out)
}

/// The shelf's folder: one compiled tree of small docs written again under each library's name
/// and version (each a valid catalog with its own hash), reused while the binary still opens it.
fn ensure_shelf(bin: &Path, catalogs: usize, docs: usize) -> Result<PathBuf, String> {
    let root = target_dir().join("bench-shelf").join(format!("{catalogs}x{docs}"));
    let shelf = root.join("shelf");
    let marker = root.join("complete");
    if marker.is_file() && opens(bin, &shelf.join(format!("{}/catalog.msgpack", catalog_dir_name(0)))) {
        return Ok(shelf);
    }
    let _ = std::fs::remove_dir_all(&root);
    let tree = root.join("tree");
    write_tree(&tree, docs)?;
    let started = Instant::now();
    let compilation = folio::compile::compile(&folio::compile::Config::new(&tree));
    let mut catalog = compilation.catalog.ok_or("the bench tree does not compile")?;
    for i in 0..catalogs {
        let (name, version) = (format!("lib{:04}", i / 2), format!("{}.0.0", i % 2 + 1));
        catalog.settings.description =
            format!("Synthetic library {name}, version {version}, for the shelf bench.");
        catalog.settings.title = format!("Library {}", i / 2);
        catalog.settings.name = name;
        catalog.settings.version = Some(version);
        let out = shelf.join(catalog_dir_name(i));
        std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
        let encoded = folio::catalog::codec::encode(&catalog);
        std::fs::write(out.join("catalog.msgpack"), encoded.msgpack).map_err(|e| e.to_string())?;
    }
    eprintln!("shelf: wrote {catalogs} catalogs in {:.1?}", started.elapsed());
    std::fs::write(&marker, b"").map_err(|e| e.to_string())?;
    Ok(shelf)
}

/// Library `i / 2` at version `1.0.0` or `2.0.0`, as `folio build --versions` names the folder.
fn catalog_dir_name(i: usize) -> String {
    format!("lib{:04}@{}.0.0", i / 2, i % 2 + 1)
}

/// Writes `docs` small docs (a title, two sections, a link to the next doc) into `tree/docs/`.
fn write_tree(tree: &Path, docs: usize) -> Result<(), String> {
    let dir = tree.join("docs");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let words = corpus::sample_queries(64, 7);
    for i in 0..docs {
        let a = &words[i % words.len()];
        let b = &words[(i * 7 + 3) % words.len()];
        let body = format!(
            "---\ntitle: Page {i}\ndescription: How {a} relates to {b}.\n---\n\n# Page {i}\n\n\
             This page explains {a} and {b}, with a lantern for the search bench.\n\n\
             ## Usage\n\nCall `{a}` before `{b}`; see [the next page](page-{next:05}.md).\n\n\
             ## Notes\n\nNothing here is real: the shelf bench needs many small catalogs.\n",
            next = (i + 1) % docs
        );
        std::fs::write(dir.join(format!("page-{i:05}.md")), body).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Whether `folio list --catalog FILE` opens `catalog` (a shelf built by an older format is
/// rebuilt).
fn opens(bin: &Path, catalog: &Path) -> bool {
    Command::new(bin).args(["list", "--catalog"]).arg(catalog).output().is_ok_and(|o| o.status.success())
}

fn folder_bytes(dir: &Path) -> u64 {
    walk_files(dir).iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum()
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => out.push(entry.path()),
                _ => {}
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Replicas

fn bench_replicas(bin: &Path, size: corpus::Size) -> Result<String, String> {
    let (dir, stats) = corpus::ensure(size);
    let out = target_dir().join("bench-catalog").join(size.name());
    if !opens(bin, &out.join("catalog.msgpack")) {
        let res = Command::new(bin)
            .arg("build")
            .arg(&dir)
            .arg("--out")
            .arg(&out)
            .output()
            .map_err(|e| e.to_string())?;
        if !res.status.success() {
            return Err(format!("`folio build` failed: {}", truncate(&String::from_utf8_lossy(&res.stderr))));
        }
    }
    let catalog = out.join("catalog.msgpack");
    let catalog_bytes = std::fs::metadata(&catalog).map_err(|e| e.to_string())?.len();
    let args = [OsStr::new("--catalog"), catalog.as_os_str(), OsStr::new("--mmap")];
    let mut servers = Vec::with_capacity(REPLICAS);
    let mut rss_open = Vec::new();
    for _ in 0..REPLICAS {
        let mut server = StdioServer::spawn_with(bin, args)?;
        result_of(&server.request("tools/list", json!({}))?)?;
        rss_open.push(proc_status_kib(server.child.id(), "VmRSS").unwrap_or(0));
        servers.push(server);
    }
    let started = Instant::now();
    let mut reads = 0usize;
    for server in &mut servers {
        for resource in walk(server, "resources/list", "resources")? {
            let Some(uri) = resource.get("uri").and_then(Value::as_str) else { continue };
            result_of(&server.request("resources/read", json!({ "uri": uri }))?)
                .map_err(|e| format!("{uri}: {e}"))?;
            reads += 1;
        }
    }
    let read_all = started.elapsed();
    let pss: Vec<u64> = servers.iter().map(|s| pss_kib(s.child.id()).unwrap_or(0)).collect();
    let rss: Vec<u64> = servers.iter().map(|s| proc_status_kib(s.child.id(), "VmRSS").unwrap_or(0)).collect();
    for server in servers {
        server.finish();
    }
    let total_pss = pss.iter().sum::<u64>() as f64 * 1024.0;
    let mib = |b: f64| b / (1024.0 * 1024.0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n### {REPLICAS} replicas of the {} corpus, `--mmap` (corpus {:.1} MiB, catalog {:.1} MiB)\n",
        size.name(),
        mib(stats.bytes as f64),
        mib(catalog_bytes as f64)
    );
    let _ = writeln!(out, "| measurement | result | target |\n| --- | --- | --- |");
    let _ = writeln!(out, "| RSS of each after open | {} MiB | ≤ 20 MB |", list_mib(&rss_open));
    let _ =
        writeln!(out, "| every resource read by each ({reads} reads) | {:.1} s | |", read_all.as_secs_f64());
    let _ = writeln!(out, "| RSS of each after the reads | {} MiB | |", list_mib(&rss));
    let _ = writeln!(out, "| PSS of each after the reads | {} MiB | |", list_mib(&pss));
    let _ = writeln!(
        out,
        "| PSS added up, against the corpus | {:.1} MiB, {:.2}× | ≤ 1.2× |",
        mib(total_pss),
        total_pss / stats.bytes as f64
    );
    Ok(out)
}

fn list_mib(kib: &[u64]) -> String {
    kib.iter().map(|k| format!("{:.1}", *k as f64 / 1024.0)).collect::<Vec<_>>().join(", ")
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}
