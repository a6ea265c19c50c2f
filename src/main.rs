//! The `folio` binary: parse the command line, run it, map the outcome to an exit code. The
//! command line ([`cli`]) is the binary's own: the library (`folio`) has none.

use std::process::ExitCode;

mod cli;

/// With the `jemalloc` feature (published binaries, benchmark figures), jemalloc rather than the
/// system allocator. A build makes and frees millions of small
/// records across threads (parse trees, analyses, posting lists), which glibc's malloc serves
/// with costly consolidation and a larger, more fragmented footprint: on a 20,000-doc tree
/// `folio build` took 8% less time and CPU, and 43 MB less peak memory, with jemalloc (14
/// paired runs). rustc links jemalloc for the same reason. The library itself does not choose
/// an allocator; its users (a build script, another binary) keep theirs.
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    // A bundle (`folio bundle`) recognises itself first: it must never run as plain folio, and
    // one that does not check is refused before anything is served.
    if let Err(err) = cli::bundle::detect() {
        eprintln!("error: {err:#}");
        return ExitCode::from(2);
    }
    let args = cli::Cli::parse_args();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(2)
        }
    }
}
