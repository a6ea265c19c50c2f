//! What a client writes to `folio serve` on stdio, as bytes: the line framing (bounded lines, a
//! carriage return, a byte order mark), the JSON-RPC checks before rmcp sees a message, and
//! the answers. Any input is served until it ends, never a panic and never a hang (libFuzzer's
//! timeout reports one). The catalog served is the `basic` fixture, compiled once.

#![no_main]

use std::sync::OnceLock;

use folio::server::FolioServer;
use libfuzzer_sys::fuzz_target;

struct Fixture {
    runtime: tokio::runtime::Runtime,
    server: FolioServer,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/basic/content");
        let compiled = folio::compile::compile(&folio::compile::Config::new(root));
        let catalog = compiled.catalog.expect("the basic fixture compiles");
        Fixture {
            runtime: tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime"),
            server: FolioServer::from_catalog(catalog).expect("the basic fixture serves"),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    let input = std::io::Cursor::new(data.to_vec());
    let served = folio::server::transport::run_on_pipes(fixture.server.clone(), input, tokio::io::sink());
    // An IO error of the pipes is an answer too; only a panic or a hang is a finding.
    let _ = fixture.runtime.block_on(served);
});
