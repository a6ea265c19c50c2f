//! The integration test binary (one binary keeps link time down): one module per area.

mod bench_corpus;
