//! Compile benchmark (issue 2's performance targets; ARCHITECTURE.md, "Performance"): per generated corpus, the compile time
//! (median of N in-process runs), throughput, catalog size and peak RSS, and the time of
//! `folio check`'s work (every diagnostic, no catalog), next to the physical
//! floor measured in the same run: walking the tree, reading every file and blake3-hashing it on
//! every core; and a parser floor, the same plus pulldown-cmark over every markdown file.
//!
//! Peak RSS is measured per compile in a fresh child process: the bench re-executes itself with
//! `FOLIO_BENCH_CHILD=<size>`, the child compiles and writes the catalog once and prints its `VmHWM` from
//! `/proc/self/status` (std has no `getrusage`, and the crate forbids `unsafe`).
//!
//! ```text
//! cargo bench --bench compile                                  # small, medium, large
//! FOLIO_BENCH_SIZES=small,medium cargo bench --bench compile   # quick smoke run
//! FOLIO_BENCH_RUNS=3 …                                         # runs per measurement (default 5; 3 on large)
//! ```
//! Corpora are generated once into `target/bench-corpus/<size>/` and reused.
#![allow(clippy::print_stdout, reason = "a benchmark reports its table on stdout")]

use folio_bench_corpus as corpus;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use corpus::Size;
use folio::catalog::codec;
use folio::compile::{Compilation, Config, Severity, check, compile_streaming};

/// The allocator the `folio` binary runs with (src/main.rs), so this measures what users get.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Environment variable that turns the bench binary into the one-shot compile child.
const CHILD_ENV: &str = "FOLIO_BENCH_CHILD";

fn main() {
    if let Ok(size) = std::env::var(CHILD_ENV) {
        child(&size);
        return;
    }
    let sizes = Size::from_env(&Size::ALL);
    let load_before = load_average();
    let mut rows = Vec::new();
    for size in sizes {
        rows.push(measure(size));
    }
    print_report(&rows);
    println!(
        "1-minute load average: {load_before} before, {} after (2 cores; above ~2, other processes \
         compete for the CPU and wall times stretch)",
        load_average()
    );
}

/// One corpus's measurements.
struct Row {
    size: Size,
    stats: corpus::Stats,
    runs: usize,
    floor: Duration,
    /// The floor on one thread: the work itself, without the second core's help.
    floor_one: Duration,
    /// The floor plus running pulldown-cmark (with the compiler's extensions) over every markdown
    /// file: what any compile that must parse the markdown costs at least.
    parse_floor: Duration,
    /// The parser floor plus tokenizing every markdown body as the search index does
    /// ([`folio::catalog::search::tokenize`], without interning the terms): what any compile
    /// that parses and indexes the text costs at least.
    index_floor: Duration,
    /// CPU time (user + system, all threads) of one floor run and one build: less
    /// sensitive than wall time to other processes competing for the cores.
    floor_cpu: Duration,
    build_cpu: Duration,
    /// Median over the runs of build ÷ floor, each build paired with floors measured just
    /// before it (2 threads, then 1): the ratio the target is judged by. The machines drift in
    /// speed by 10-20% over minutes, which moves the ratio of medians taken minutes apart.
    paired: f64,
    paired_one: f64,
    compile: Duration,
    encode: Duration,
    /// `folio check`'s work: every diagnostic, without assembling a catalog or its search index.
    check: Duration,
    catalog_bytes: Option<usize>,
    errors: usize,
    warnings: usize,
    first_codes: Vec<String>,
    peak_rss_kib: Option<u64>,
}

fn runs_for(size: Size) -> usize {
    std::env::var("FOLIO_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(if size == Size::Large { 3 } else { 5 })
}

fn measure(size: Size) -> Row {
    let started = Instant::now();
    let (dir, stats) = corpus::ensure(size);
    eprintln!(
        "{}: corpus ready in {:.2?} ({} docs, {} skills, {} files, {:.1} MB) at {}",
        size.name(),
        started.elapsed(),
        stats.docs,
        stats.skills,
        stats.files,
        mb(stats.bytes as usize),
        dir.display()
    );
    let runs = runs_for(size);

    // The floor first, once untimed: it also warms the page cache for everything after it.
    let files = content_files(&dir);
    let _ = floor(&files);
    let cpu = cpu_time();
    let floor_time = median((0..runs).map(|_| floor_timed(&dir)).collect());
    let floor_cpu = (cpu_time() - cpu) / runs as u32;
    let floor_one =
        median((0..runs).map(|_| timed(|| floor_then(&content_files(&dir), 1, |_, _| 0))).collect());
    let parse_floor =
        median((0..runs).map(|_| timed(|| floor_with_parser(&content_files(&dir), false))).collect());
    let index_floor =
        median((0..runs).map(|_| timed(|| floor_with_parser(&content_files(&dir), true))).collect());

    let config = Config::new(dir.clone());
    let mut compile_times = Vec::new();
    let mut encode_times = Vec::new();
    let (mut paired, mut paired_one) = (Vec::new(), Vec::new());
    let mut catalog_bytes = None;
    let mut build_cpu = Duration::ZERO;
    let (mut errors, mut warnings, mut first_codes) = (0, 0, Vec::new());
    for run in 0..runs {
        let floor = floor_timed(&dir);
        let floor_one = timed(|| floor_then(&content_files(&dir), 1, |_, _| 0));
        let cpu = cpu_time();
        let built = build_catalog(size);
        build_cpu += cpu_time() - cpu;
        let build = (built.compiled + built.finished).as_secs_f64();
        paired.push(build / floor.as_secs_f64());
        paired_one.push(build / floor_one.as_secs_f64());
        compile_times.push(built.compiled);
        if run == 0 {
            let diagnostics = &built.compilation.diagnostics;
            errors = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
            warnings = diagnostics.len() - errors;
            first_codes = summarize_codes(diagnostics);
        }
        if let Some(bytes) = built.bytes {
            encode_times.push(built.finished);
            catalog_bytes = Some(bytes);
        }
        // Dropping a large catalog takes time too; `build_catalog` leaves it outside the timings.
        drop(built);
    }
    let build_cpu = build_cpu / runs as u32;
    let check_time = median((0..runs).map(|_| timed(|| check(&config))).collect());
    let peak_rss_kib = child_peak_rss(size);
    Row {
        size,
        stats,
        runs,
        floor: floor_time,
        floor_one,
        parse_floor,
        index_floor,
        floor_cpu,
        build_cpu,
        paired: median_f64(paired),
        paired_one: median_f64(paired_one),
        compile: median(compile_times),
        encode: if encode_times.is_empty() { Duration::ZERO } else { median(encode_times) },
        check: check_time,
        catalog_bytes,
        errors,
        warnings,
        first_codes,
        peak_rss_kib,
    }
}

/// "code ×count" for the most frequent diagnostic codes, so an unclean corpus is visible.
fn summarize_codes(diagnostics: &[folio::compile::Diagnostic]) -> Vec<String> {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for d in diagnostics {
        *counts.entry(d.code.to_string()).or_default() += 1;
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts.into_iter().take(6).map(|(code, n)| format!("{code} ×{n}")).collect()
}

/// Every non-hidden file under `dir`, sorted (what the compiler reads).
fn content_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, acc: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with('.')) {
                continue;
            }
            if path.is_dir() {
                walk(&path, acc);
            } else {
                acc.push(path);
            }
        }
    }
    let mut acc = Vec::new();
    walk(dir, &mut acc);
    acc
}

/// The floor, walk included: list the tree, then read and blake3 every file on every core.
fn floor_timed(dir: &Path) -> Duration {
    let t = Instant::now();
    let files = content_files(dir);
    let bytes = floor(&files);
    let elapsed = t.elapsed();
    assert!(bytes > 0, "empty corpus at {}", dir.display());
    elapsed
}

fn timed<T>(f: impl FnOnce() -> T) -> Duration {
    let t = Instant::now();
    std::hint::black_box(f());
    t.elapsed()
}

/// Reads and hashes `files` on every core; returns the bytes read (so nothing is optimised away).
fn floor(files: &[PathBuf]) -> u64 {
    floor_then(files, cores(), |_, _| 0)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// [`floor`], also parsing every markdown file with pulldown-cmark as the compiler configures it,
/// and with `index`, tokenizing each markdown body (frontmatter removed) as the compiler does for
/// the search index (the terms counted, not interned: the compiler's indexer is not its API).
fn floor_with_parser(files: &[PathBuf], index: bool) -> u64 {
    use folio::catalog::search::{strip_frontmatter, tokenize};
    let options = folio::compile::markdown::options();
    floor_then(files, cores(), |path, bytes| {
        let is_markdown = path.to_str().is_some_and(folio::catalog::is_markdown);
        match std::str::from_utf8(bytes) {
            Ok(text) if is_markdown => {
                let events = pulldown_cmark::Parser::new_ext(text, options).into_offset_iter().count() as u64;
                let tokens = if index {
                    let mut tokens = 0u32;
                    tokenize(strip_frontmatter(text), false, |_, _, _| tokens += 1);
                    tokens
                } else {
                    0
                };
                events + u64::from(tokens)
            }
            _ => 0,
        }
    })
}

/// Reads and hashes `files` on `threads` threads, calling `then(path, bytes)` on each file's
/// bytes; returns the bytes read plus what `then` returned (so nothing is optimised away).
fn floor_then(files: &[PathBuf], threads: usize, then: impl Fn(&Path, &[u8]) -> u64 + Sync) -> u64 {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut total = 0u64;
                    let mut acc = 0u8;
                    while let Some(path) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let bytes =
                            fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                        acc ^= blake3::hash(&bytes).as_bytes()[0];
                        total += bytes.len() as u64 + then(path, &bytes);
                    }
                    std::hint::black_box(acc);
                    total
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("floor worker panicked")).sum()
    })
}

/// Runs one build in a fresh copy of this binary and returns its peak RSS in KiB.
fn child_peak_rss(size: Size) -> Option<u64> {
    let exe = std::env::current_exe().expect("path of the running bench binary");
    let out = Command::new(exe)
        .env(CHILD_ENV, size.name())
        .output()
        .unwrap_or_else(|e| panic!("cannot re-run the bench binary as a child: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        eprintln!(
            "{}: RSS child failed ({}): {}",
            size.name(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let summary: Vec<&str> = stdout.lines().collect();
    eprintln!("{}: RSS child: {}", size.name(), summary.join(", "));
    stdout.lines().find_map(|l| l.strip_prefix("vmhwm_kib=")).and_then(|v| v.trim().parse().ok())
}

/// What [`build_catalog`] did.
struct Built {
    compilation: Compilation,
    /// The compile, which streams every body to the file as it reads it.
    compiled: Duration,
    /// Writing the rest once the catalog is assembled: search index, metadata, envelope.
    finished: Duration,
    /// The file's size; `None` when the tree has errors.
    bytes: Option<usize>,
}

/// Compiles the corpus and writes `catalog.msgpack` into `target/bench-out/<size>/` as
/// `folio build` does: each body goes to the file as the compiler reads it, and the rest is
/// written once the catalog is assembled.
fn build_catalog(size: Size) -> Built {
    let root = corpus::corpus_dir(size);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-out").join(size.name());
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let path = dir.join("catalog.msgpack");
    let fail = |e: std::io::Error| -> ! { panic!("cannot write {}: {e}", path.display()) };
    let file = fs::File::create(&path).unwrap_or_else(|e| fail(e));
    let mut out = std::io::BufWriter::with_capacity(codec::STAGE_BYTES, file);
    let t = Instant::now();
    let mut writer = codec::Writer::new(&mut out).unwrap_or_else(|e| fail(e));
    let compilation = compile_streaming(&Config::new(root), &mut |path, bytes| {
        writer.body(path, bytes).unwrap_or_else(|e| fail(e))
    });
    let compiled = t.elapsed();
    let t = Instant::now();
    let done = compilation.catalog.as_ref().map(|c| writer.finish(c).unwrap_or_else(|e| fail(e)));
    drop(done);
    let file = out.into_inner().unwrap_or_else(|e| fail(e.into_error()));
    let finished = t.elapsed();
    // Untimed: the catalog's quarter gigabyte goes to the disk now rather than whenever the
    // kernel's writeback gets to it, on the cores of a later measurement.
    file.sync_all().unwrap_or_else(|e| fail(e));
    let bytes = compilation.catalog.as_ref().map(|_| file.metadata().map_or(0, |m| m.len() as usize));
    Built { compilation, compiled, finished, bytes }
}

/// The child: compile and write the catalog once (as `folio build` does) and report
/// its peak RSS, plus the RSS after each stage so a miss can be attributed.
fn child(size: &str) {
    let size = Size::from_name(size).unwrap_or_else(|| panic!("{CHILD_ENV}: unknown size `{size}`"));
    let built = build_catalog(size);
    let after_build = proc_status();
    std::hint::black_box(built.bytes);
    let show = |v: Option<u64>| v.map_or("unavailable".to_string(), |k| k.to_string());
    println!("compile_ms={:.1}", ms(built.compiled));
    println!("finish_ms={:.1}", ms(built.finished));
    println!("rss_after_build_kib={}", show(after_build.0));
    println!("vmhwm_kib={}", show(after_build.1));
}

/// (VmRSS, VmHWM) of this process in KiB.
fn proc_status() -> (Option<u64>, Option<u64>) {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The 1-minute load average from `/proc/loadavg`, as text.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string())
}

/// CPU time of this process so far (user + system, every thread, exited ones included), from
/// `/proc/self/stat` in clock ticks (100 per second on Linux).
fn cpu_time() -> Duration {
    let stat = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i - 3).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    Duration::from_millis((ticks(14) + ticks(15)) * 10)
}

fn median_f64(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print_report(rows: &[Row]) {
    println!();
    println!(
        "| corpus | docs + skills | files | corpus MB | floor ms | floor MB/s | 1-thread floor ms | parser floor ms | index floor ms | check ms | compile ms | finish ms | build MB/s | \
         catalog MB | peak RSS MB | build/floor | build/1-thread floor | CPU build/floor | RSS/corpus | diagnostics |"
    );
    println!(
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
    for r in rows {
        let corpus_mb = mb(r.stats.bytes as usize);
        let build = r.compile + r.encode;
        let rss_mb = r.peak_rss_kib.map(|k| k as f64 * 1024.0 / 1e6);
        let diagnostics = if r.errors + r.warnings == 0 {
            "clean".to_string()
        } else {
            format!("{} errors, {} warnings: {}", r.errors, r.warnings, r.first_codes.join(", "))
        };
        println!(
            "| {} | {} + {} | {} | {:.1} | {:.1} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} | {:.0} | {} | {} | {:.2}× | {:.2}× | {} | {} | {} |",
            r.size.name(),
            r.stats.docs,
            r.stats.skills,
            r.stats.files,
            corpus_mb,
            ms(r.floor),
            corpus_mb / r.floor.as_secs_f64(),
            ms(r.floor_one),
            ms(r.parse_floor),
            ms(r.index_floor),
            ms(r.check),
            ms(r.compile),
            ms(r.encode),
            corpus_mb / build.as_secs_f64(),
            r.catalog_bytes.map_or("n/a (errors)".to_string(), |b| format!("{:.1}", mb(b))),
            rss_mb.map_or("n/a".to_string(), |m| format!("{m:.0}")),
            r.paired,
            r.paired_one,
            if r.floor_cpu < Duration::from_millis(100) {
                "n/a (too short)".to_string()
            } else {
                format!(
                    "{:.2}× ({:.2} s / {:.2} s)",
                    r.build_cpu.as_secs_f64() / r.floor_cpu.as_secs_f64(),
                    r.build_cpu.as_secs_f64(),
                    r.floor_cpu.as_secs_f64()
                )
            },
            rss_mb.map_or("n/a".to_string(), |m| format!("{:.2}×", m / corpus_mb)),
            diagnostics,
        );
    }
    let threads = cores();
    println!();
    println!(
        "median of {} runs per cell ({} on large); floor = walk + read + blake3 on {threads} threads (1-thread floor: on one); \
         parser floor = the floor plus pulldown-cmark over every markdown file (no analysis); \
         index floor = the parser floor plus tokenizing every markdown body for the search index; \
         check = `folio check`'s work (every diagnostic; no catalog, no search index); \
         build = compile + finish, as `folio build` does them (the compile streams each body to the catalog file as it reads it; the finish writes the search index, metadata and envelope); \
         build/floor = the median of each build's ratio to floors measured just before it (robust to the machine's speed drifting between blocks of runs); CPU = user + system time \
         of all threads per run (10 ms ticks; robust to other load on the machine); peak RSS from a fresh child \
         process doing one build.",
        rows.first().map_or(5, |r| r.runs),
        runs_for(Size::Large)
    );
    if let Some(r) = rows.iter().find(|r| r.size == Size::Large) {
        let build = (r.compile + r.encode).as_secs_f64();
        let (ratio, ratio_one) = (r.paired, r.paired_one);
        let verdict = |ratio: f64| if ratio <= 4.0 { "MET" } else { "MISSED" };
        println!(
            "target (large): build ≤ 4× floor → {ratio:.2}× the {threads}-thread floor {}, {ratio_one:.2}× \
             the 1-thread floor {} (build {build:.2} s; the issue puts 4× the floor at about 2 s); \
             peak RSS ≤ 2× corpus → {}",
            verdict(ratio),
            verdict(ratio_one),
            r.peak_rss_kib.map_or("n/a".to_string(), |k| {
                let ratio = k as f64 * 1024.0 / r.stats.bytes as f64;
                format!("{ratio:.2}× {}", if ratio <= 2.0 { "MET" } else { "MISSED" })
            })
        );
        println!(
            "parsing the markdown alone (parser floor) takes {:.2}× the floor, and parsing and \
             tokenizing it (index floor) {:.2}×; the build takes {:.2}× the index floor; checking \
             (`folio check`) takes {:.2}× the floor",
            r.parse_floor.as_secs_f64() / r.floor.as_secs_f64(),
            r.index_floor.as_secs_f64() / r.floor.as_secs_f64(),
            build / r.index_floor.as_secs_f64(),
            r.check.as_secs_f64() / r.floor.as_secs_f64()
        );
    }
}
