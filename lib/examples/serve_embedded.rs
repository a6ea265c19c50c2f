//! Serve your own docs and skills from your own binary, in a few lines.
//!
//! Your crate's `build.rs` compiles its `content/` with Folio's compiler and writes the catalog
//! into `OUT_DIR` (the way this package's `build.rs` does):
//!
//! ```ignore
//! let compilation = folio::compile::compile(&folio::compile::Config::new("content"));
//! let catalog = compilation.catalog.expect("content/ has no errors");
//! let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
//! std::fs::write(out.join("catalog.msgpack"), folio::catalog::codec::encode(&catalog).msgpack).unwrap();
//! ```
//!
//! Then embed the bytes and serve them over stdio (or `--http 127.0.0.1:8090` for Streamable
//! HTTP):
//!
//! ```text
//! cargo run -p folio-core --features server --example serve_embedded   # stdio, for an MCP client
//! cargo run -p folio-core --features server --example serve_embedded -- --http 127.0.0.1:8090
//! ```

use std::process::ExitCode;

/// The catalog compiled at build time, embedded in the binary.
static CATALOG: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/catalog.msgpack"));

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let res = match args.iter().position(|a| a == "--http") {
        // stdio: the whole server is one call. Clients see this crate's name and version.
        None => folio::server::serve_stdio_as(CATALOG, folio::crate_identity!()),
        Some(i) => serve_http(args.get(i + 1).map_or("127.0.0.1:8090", String::as_str)),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(2)
        }
    }
}

/// Streamable HTTP at `/mcp`, stopped by Ctrl-C or SIGTERM.
fn serve_http(addr: &str) -> Result<(), folio::server::ServeError> {
    let server = folio::server::FolioServer::from_static(CATALOG)?.with_identity(folio::crate_identity!());
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        eprintln!("serving http://{}/mcp", listener.local_addr()?);
        let options = folio::server::HttpOptions::default();
        folio::server::serve_http(listener, server, &options, folio::server::shutdown_signal()).await
    })
}
