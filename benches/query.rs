//! Query-layer benchmarks (issue 3; ARCHITECTURE.md, "Performance"), with criterion, on the generated corpora:
//! open (verify + build maps, zero-copy from `'static` bytes, from a file and from a map), list (first page
//! and a full walk), detail, read (whole doc and a section) and search.
//!
//! Before criterion runs, it prints per corpus the catalog size, then the median over 5 fresh
//! child processes of the open time and of the memory the open catalog holds (read into memory,
//! as `folio serve` does, and mapped, as `folio serve --mmap` does), and search
//! latency percentiles over the corpus's sample queries (criterion reports means; the issue's
//! target is a p99). The memory is measured two ways in the child, so the compile does not
//! pollute it: the growth of `RssAnon` (the heap and buffers the catalog lives in), and the
//! growth of `VmRSS`, which also counts the pages of the binary's own code that the open runs
//! for the first time (about 1.7 MB here; shared, and not part of the catalog).
//!
//! ```text
//! cargo bench --bench query                                  # small, medium, large
//! FOLIO_BENCH_SIZES=medium cargo bench --bench query         # one corpus
//! cargo bench --bench query -- search                        # only the search benches
//! ```
//! Corpora come from the `folio-bench-corpus` crate (`target/bench-corpus/<size>/`); each compiled
//! catalog is cached beside them as `<size>.v<format>.catalog.msgpack`.
#![allow(clippy::print_stdout, reason = "a benchmark reports its table on stdout")]

use folio_bench_corpus as corpus;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use folio::catalog::{FORMAT_VERSION, codec};
use folio::compile::{Config, compile};
use folio::query::{ListParams, Query, SearchParams, Selection};

use corpus::Size;

/// The allocator the `folio` binary runs with (src/main.rs), so this measures what users get.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const CHILD_ENV: &str = "FOLIO_QUERY_BENCH_OPEN";
/// Set in a child to open the catalog as a memory map (`folio serve --mmap`) instead of reading it.
const MAPPED_ENV: &str = "FOLIO_QUERY_BENCH_MAPPED";
/// Fresh processes per corpus for the open time and memory (the median is reported).
const CHILD_RUNS: usize = 5;

/// Compiles a corpus once and caches the catalog file next to it.
fn catalog_file(size: Size) -> (PathBuf, corpus::Stats) {
    let (dir, stats) = corpus::ensure(size);
    let file = dir.with_file_name(format!("{}.v{FORMAT_VERSION}.catalog.msgpack", size.name()));
    let fresh = std::fs::read(&file).ok().is_some_and(|bytes| Query::open(bytes).is_ok());
    if !fresh {
        let started = Instant::now();
        let compilation = compile(&Config::new(dir.clone()));
        let catalog = compilation.catalog.unwrap_or_else(|| panic!("corpus {} has errors", dir.display()));
        std::fs::write(&file, codec::encode(&catalog).msgpack).expect("write the catalog");
        eprintln!("compiled {} in {:.1?}", size.name(), started.elapsed());
    }
    (file, stats)
}

fn vm_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()))
        .unwrap_or(0)
}

/// Child mode: open the catalog file once, print the RSS growth and the open time.
fn child(path: &Path) {
    let before = vm_kib("VmRSS:");
    let anon_before = vm_kib("RssAnon:");
    let started = Instant::now();
    let query = if std::env::var_os(MAPPED_ENV).is_some() {
        Query::open_file_mapped(path).expect("map the catalog")
    } else {
        Query::open_file(path).expect("open the catalog")
    };
    let elapsed = started.elapsed();
    let after = vm_kib("VmRSS:");
    let anon_after = vm_kib("RssAnon:");
    black_box(&query);
    println!(
        "{} {} {} {}",
        after.saturating_sub(before),
        elapsed.as_micros(),
        vm_kib("VmHWM:"),
        anon_after.saturating_sub(anon_before)
    );
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    if let Ok(path) = std::env::var(CHILD_ENV) {
        child(Path::new(&path));
        return;
    }
    let sizes = Size::from_env(&Size::ALL);
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    println!(
        "| corpus | docs | skills | corpus MB | catalog MB | open (child) | open RSS growth | RSS / corpus | anonymous / corpus | open --mmap (child) | --mmap RSS growth | search p50 | search p99 |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut opened = Vec::new();
    for size in sizes {
        let (file, stats) = catalog_file(size);
        let bytes = std::fs::read(&file).expect("read the catalog");
        // One fresh process is one sample of first-touch page faults and thread start-up, which
        // vary run to run on these VMs: report the median of several.
        // Read and mapped children alternate, so a burst of load on the machine hits both.
        let samples: Vec<(Vec<u64>, Vec<u64>)> = (0..CHILD_RUNS)
            .map(|_| {
                let run = |mapped: bool| {
                    let mut child = Command::new(std::env::current_exe().expect("own path"));
                    child.env(CHILD_ENV, &file);
                    if mapped {
                        child.env(MAPPED_ENV, "1");
                    }
                    let out = child.output().expect("spawn the open child");
                    let line = String::from_utf8_lossy(&out.stdout);
                    line.split_whitespace().filter_map(|n| n.parse().ok()).collect::<Vec<u64>>()
                };
                (run(false), run(true))
            })
            .collect();
        let median_of = |mapped: bool, field: usize| {
            let mut values: Vec<u64> = samples
                .iter()
                .map(|(read, map)| if mapped { map } else { read }.get(field).copied().unwrap_or(0))
                .collect();
            values.sort_unstable();
            values[values.len() / 2]
        };
        let median = |field: usize| median_of(false, field);
        let (rss_kib, open_us, anon_kib) = (median(0), median(1), median(3));
        let (mapped_rss_kib, mapped_us) = (median_of(true, 0), median_of(true, 1));
        // Leaked once per corpus so the zero-copy `open_static` path can be measured.
        let leaked: &'static [u8] = Box::leak(bytes.clone().into_boxed_slice());
        let query = Query::open_static(leaked).expect("open");
        let queries = corpus::sample_queries(200, 7);
        let mut times: Vec<Duration> = queries
            .iter()
            .map(|q| {
                let started = Instant::now();
                black_box(query.search(&SearchParams { query: q.clone(), ..SearchParams::default() }).ok());
                started.elapsed()
            })
            .collect();
        times.sort();
        let mb = |b: u64| b as f64 / 1e6;
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} ms | {:.1} MB | {:.2}× | {:.2}× | {:.1} ms | {:.1} MB | {:.2?} | {:.2?} |",
            size.name(),
            stats.docs,
            stats.skills,
            mb(stats.bytes),
            mb(bytes.len() as u64),
            open_us as f64 / 1000.0,
            rss_kib as f64 / 1024.0,
            (rss_kib * 1024) as f64 / stats.bytes as f64,
            (anon_kib * 1024) as f64 / stats.bytes as f64,
            mapped_us as f64 / 1000.0,
            mapped_rss_kib as f64 / 1024.0,
            percentile(&times, 0.5),
            percentile(&times, 0.99),
        );
        opened.push((size, file, leaked, query, queries));
    }

    for (size, file, leaked, query, queries) in &opened {
        let name = size.name();
        let mut group = criterion.benchmark_group(format!("query/{name}"));
        group.bench_function("open_static", |b| b.iter(|| Query::open_static(leaked).expect("open")));
        group.bench_function("open_file", |b| b.iter(|| Query::open_file(file).expect("open")));
        group.bench_function("open_file_mapped", |b| b.iter(|| Query::open_file_mapped(file).expect("map")));
        group.bench_function("list_first_page", |b| {
            b.iter(|| query.list(&ListParams { limit: Some(50), ..ListParams::default() }).expect("list"))
        });
        group.bench_function("list_full_walk", |b| {
            b.iter(|| {
                let mut params = ListParams { limit: Some(1000), ..ListParams::default() };
                let mut n = 0;
                loop {
                    let page = query.list(&params).expect("list");
                    n += page.items.len();
                    match page.next_cursor {
                        Some(c) => params.cursor = Some(c),
                        None => break n,
                    }
                }
            })
        });
        let docs = &query.catalog().docs;
        let step = (docs.len() / 97).max(1);
        let sample: Vec<&folio::catalog::Doc> = docs.iter().step_by(step).take(97).collect();
        let mut i = 0;
        group.bench_function("doc_detail", |b| {
            b.iter(|| {
                i = (i + 1) % sample.len();
                query.doc_detail(&sample[i].path).expect("detail")
            })
        });
        let uris: Vec<String> = sample.iter().map(|d| folio::catalog::uri::doc(&d.path)).collect();
        group.bench_function("read_doc", |b| {
            b.iter(|| {
                i = (i + 1) % uris.len();
                query.read(&uris[i], &Selection::default()).expect("read")
            })
        });
        let sections: Vec<String> = sample
            .iter()
            .filter_map(|d| {
                d.outline
                    .get()
                    .ok()
                    .and_then(|o| o.last())
                    .map(|s| folio::catalog::uri::with_section(&folio::catalog::uri::doc(&d.path), &s.id))
            })
            .collect();
        group.bench_function("read_section", |b| {
            b.iter(|| {
                i = (i + 1) % sections.len();
                query.read(&sections[i], &Selection::default()).expect("read")
            })
        });
        for q in queries.iter().take(3) {
            group.bench_with_input(BenchmarkId::new("search", q), q, |b, q| {
                b.iter(|| {
                    query
                        .search(&SearchParams { query: q.clone(), ..SearchParams::default() })
                        .expect("search")
                })
            });
        }
        group.finish();
    }
    criterion.final_summary();
}
