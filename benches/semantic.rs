//! Semantic search's costs (feature `semantic`), on every vendored docs tree
//! (`tests/fixtures/sites/*`) with the real all-MiniLM-L6-v2 model:
//!
//! - **build**: `folio build` without vectors (median of 3), with vectors from scratch, and again
//!   with the previous catalog as the cache (nothing changed); the units embedded and the
//!   embedding throughput (units per second of the difference);
//! - **size**: catalog bytes without and with vectors, and per 1,000 units;
//! - **query**: in process, hybrid `search` (the query embedded, fused with BM25) p50/p99 over
//!   every question of the paraphrase set, several rounds; the query embedding alone, p50;
//! - **memory**: the real `folio serve --catalog FILE [--model DIR]` over stdio after one search
//!   (`VmRSS` from `/proc/<pid>/status`), without and with vectors and model;
//! - **quantization**: on the mdBook tree, every unit embedded again in 32-bit floats and each
//!   question's ten nearest units by the float vectors against by the stored 8-bit ones (the
//!   same first unit, the overlap of the ten, the largest difference in cosine).
//!
//! The model is `FOLIO_BENCH_MODEL` (default `target/models/all-MiniLM-L6-v2`, which
//! `packaging/fetch-model.sh` fetches). The binary is the one cargo builds for this bench; set
//! `FOLIO_BIN` to bench another.
//!
//! ```text
//! packaging/fetch-model.sh
//! cargo bench --features semantic,jemalloc --bench semantic
//! ```
#![allow(clippy::print_stdout, reason = "a benchmark reports its table on stdout")]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use folio::query::{Mode, Query, QueryEncoder, SearchParams};
use folio::semantic::Encoder;

const ROUNDS: usize = 3;

fn main() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let model = std::env::var_os("FOLIO_BENCH_MODEL")
        .map_or_else(|| repo.join("target/models/all-MiniLM-L6-v2"), PathBuf::from);
    if !model.join("model.safetensors").is_file() {
        eprintln!("no model at {}: run packaging/fetch-model.sh (or set FOLIO_BENCH_MODEL)", model.display());
        std::process::exit(1);
    }
    let bin = std::env::var_os("FOLIO_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_folio")), PathBuf::from);
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-semantic");
    let _ = std::fs::remove_dir_all(&scratch);
    let questions = questions(&repo);
    let encoder = Arc::new(Encoder::load(&model).expect("the model loads"));

    println!(
        "{:<11} {:>5} {:>9} {:>10} {:>9} {:>8} {:>9} {:>9} {:>12} {:>9} {:>9}",
        "tree",
        "units",
        "build",
        "+vectors",
        "cached",
        "units/s",
        "catalog",
        "+vectors",
        "per 1k units",
        "q p50",
        "q p99"
    );
    let mut sites: Vec<PathBuf> =
        std::fs::read_dir(repo.join("tests/fixtures/sites")).unwrap().map(|e| e.unwrap().path()).collect();
    sites.sort();
    let mut largest: Option<(usize, PathBuf, PathBuf)> = None;
    for site in &sites {
        let name = site.file_name().unwrap().to_string_lossy().into_owned();
        let plain = scratch.join(&name).join("plain");
        let vectors = scratch.join(&name).join("vectors");
        let build = |out: &Path, with_model: bool| -> Duration {
            let mut cmd = Command::new(&bin);
            cmd.arg("build").arg(site).arg("--out").arg(out).args(["--allow", "broken-link"]);
            if with_model {
                cmd.arg("--model").arg(&model);
            }
            let started = Instant::now();
            let out = cmd.stderr(Stdio::piped()).output().expect("folio runs");
            assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            started.elapsed()
        };
        let mut plain_times: Vec<Duration> = (0..3).map(|_| build(&plain, false)).collect();
        plain_times.sort();
        let fresh = build(&vectors, true);
        let cached = build(&vectors, true);
        let catalog = vectors.join("catalog.msgpack");
        let query = Query::open_file(&catalog).unwrap();
        let units = query.catalog().vectors.as_ref().map_or(0, |v| v.units.len());
        drop(query);
        let size = |dir: &Path| std::fs::metadata(dir.join("catalog.msgpack")).unwrap().len();
        let (plain_size, vector_size) = (size(&plain), size(&vectors));
        let embedding = fresh.saturating_sub(plain_times[1]);
        let latencies = search_latencies(&catalog, &encoder, &questions);
        println!(
            "{:<11} {:>5} {:>7.0}ms {:>8.1}s {:>7.0}ms {:>8.1} {:>7.0}KB {:>7.0}KB {:>10.0}KB {:>7.1}ms {:>7.1}ms",
            name,
            units,
            plain_times[1].as_secs_f64() * 1e3,
            fresh.as_secs_f64(),
            cached.as_secs_f64() * 1e3,
            units as f64 / embedding.as_secs_f64(),
            plain_size as f64 / 1e3,
            vector_size as f64 / 1e3,
            (vector_size - plain_size) as f64 / 1e3 / (units as f64 / 1000.0),
            percentile(&latencies, 50) * 1e3,
            percentile(&latencies, 99) * 1e3,
        );
        if largest.as_ref().is_none_or(|(n, _, _)| units > *n) {
            largest = Some((units, plain.join("catalog.msgpack"), catalog));
        }
    }
    let mut embed_only: Vec<f64> = Vec::new();
    for q in &questions {
        let started = Instant::now();
        encoder.embed_query(q).unwrap();
        embed_only.push(started.elapsed().as_secs_f64());
    }
    embed_only.sort_by(f64::total_cmp);
    println!(
        "\nquery embedding alone ({} questions): p50 {:.1} ms, p99 {:.1} ms",
        questions.len(),
        percentile(&embed_only, 50) * 1e3,
        percentile(&embed_only, 99) * 1e3
    );
    quantization(&scratch.join("mdbook/vectors/catalog.msgpack"), &encoder, &questions);
    if let Some((units, plain, vectors)) = largest {
        let without = serve_rss(&bin, &plain, None);
        let with = serve_rss(&bin, &vectors, Some(&model));
        println!(
            "server RSS after one search, largest tree ({units} units): {:.1} MiB keyword, {:.1} MiB hybrid \
             (model loaded): {:.1} MiB more, of which the vectors are {:.2} MiB per 1,000 units",
            without as f64 / 1024.0,
            with as f64 / 1024.0,
            (with - without) as f64 / 1024.0,
            (std::fs::metadata(&vectors).unwrap().len() - std::fs::metadata(&plain).unwrap().len()) as f64
                / 1_048_576.0
                / (units as f64 / 1000.0),
        );
    }
}

/// Rankings by float vectors against by the catalog's 8-bit ones, for every question.
fn quantization(catalog: &Path, encoder: &Encoder, questions: &[String]) {
    let query = Query::open_file(catalog).unwrap();
    let catalog = query.catalog();
    let vectors = catalog.vectors.as_ref().unwrap();
    let units = folio::semantic::units(catalog, &|e| catalog.entries[e as usize].text());
    let floats: Vec<Vec<f32>> = units.iter().map(|u| encoder.embed(&u.text).unwrap()).collect();
    let (mut same_first, mut overlap, mut max_delta) = (0, 0.0, 0.0f32);
    for q in questions {
        let qv = encoder.embed(q).unwrap();
        let exact: Vec<f32> = floats.iter().map(|v| v.iter().zip(&qv).map(|(a, b)| a * b).sum()).collect();
        let stored = vectors.similarities(&qv);
        let top = |sims: &[f32]| {
            let mut order: Vec<usize> = (0..sims.len()).collect();
            order.sort_by(|&a, &b| sims[b].total_cmp(&sims[a]).then(a.cmp(&b)));
            order.truncate(10);
            order
        };
        let (a, b) = (top(&exact), top(&stored));
        same_first += usize::from(a[0] == b[0]);
        overlap += a.iter().filter(|i| b.contains(i)).count() as f64 / 10.0;
        max_delta = exact.iter().zip(&stored).fold(max_delta, |m, (x, y)| m.max((x - y).abs()));
    }
    println!(
        "quantization, mdbook ({} units, {} questions): same nearest unit {}/{}, top-10 overlap {:.1}%, \
         largest cosine difference {:.4}",
        units.len(),
        questions.len(),
        same_first,
        questions.len(),
        100.0 * overlap / questions.len() as f64,
        max_delta
    );
}

/// The paraphrase set's questions: realistic query lengths.
fn questions(repo: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(repo.join("tests/fixtures/search-eval/paraphrases.toml")).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("q = \""))
        .map(|q| q.trim_end_matches('"').to_owned())
        .collect()
}

/// Seconds per hybrid search, sorted, over `ROUNDS` rounds of every question.
fn search_latencies(catalog: &Path, encoder: &Arc<Encoder>, questions: &[String]) -> Vec<f64> {
    let mut query = Query::open_file(catalog).unwrap();
    query.attach_encoder(encoder.clone()).unwrap();
    let mut out = Vec::new();
    for _ in 0..ROUNDS {
        for q in questions {
            let params = SearchParams { query: q.clone(), mode: Mode::Hybrid, ..SearchParams::default() };
            let started = Instant::now();
            let page = query.search(&params).unwrap();
            out.push(started.elapsed().as_secs_f64());
            std::hint::black_box(page);
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

fn percentile(sorted: &[f64], p: usize) -> f64 {
    sorted[((sorted.len() - 1) * p).div_ceil(100)]
}

/// `VmRSS` (KiB) of `folio serve --catalog` over stdio after it answered one search.
fn serve_rss(bin: &Path, catalog: &Path, model: Option<&Path>) -> u64 {
    let mut cmd = Command::new(bin);
    cmd.arg("serve").arg("--catalog").arg(catalog);
    if let Some(model) = model {
        cmd.arg("--model").arg(model);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_patterns","arguments":{"query":"how do I configure the build output"}}}"#,
    ];
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answered = 0;
    let mut line = String::new();
    while answered < 2 {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        answered += usize::from(line.contains("\"id\":"));
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    drop(stdin);
    let _ = child.wait();
    rss
}
