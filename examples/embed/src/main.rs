//! hello-docs: serves its own manual, compiled into the binary by build.rs, over MCP (stdio,
//! or Streamable HTTP with `--http ADDR`).

use folio::server::{FolioServer, HttpOptions, ServeError, serve_http, shutdown_signal};

static CATALOG: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/catalog.msgpack"));

fn main() -> Result<(), ServeError> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--http") {
        // Verifies the catalog (format version and hash), then serves MCP over stdio until stdin
        // closes. Logs go to stderr; stdout carries only the protocol. Clients see this crate's
        // name and version (`serverInfo`), not Folio's.
        None => folio::server::serve_stdio_as(CATALOG, folio::crate_identity!()),
        Some(at) => http(args.get(at + 1).map_or("127.0.0.1:8090", String::as_str)),
    }
}

/// Streamable HTTP at `/mcp` and `GET /healthz` until Ctrl-C or SIGTERM.
#[tokio::main]
async fn http(addr: &str) -> Result<(), ServeError> {
    let server = FolioServer::from_static(CATALOG)?.with_identity(folio::crate_identity!());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    // Require a token when one is set (a bind other than loopback should).
    let options = HttpOptions::default().with_bearer_token(std::env::var("HELLO_DOCS_TOKEN").ok());
    eprintln!("serving http://{}/mcp", listener.local_addr()?);
    serve_http(listener, server, &options, shutdown_signal()).await
}
