//! `cargo run -p folio-bench-corpus -- <small|medium|large>`: generates (or reuses) a benchmark
//! corpus and prints its path, for scripts that measure whole processes (the memory and
//! failover figures of `deploy/`).

use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(size) = folio_bench_corpus::Size::from_name(&name) else {
        eprintln!("usage: folio-bench-corpus <small|medium|large>");
        return ExitCode::from(2);
    };
    let (dir, stats) = folio_bench_corpus::ensure(size);
    eprintln!("{} docs, {} skills, {} files, {} bytes", stats.docs, stats.skills, stats.files, stats.bytes);
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{}", dir.display()).is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
