//! `folio browse`: the web view of a catalog (the library's `folio::web`) on 127.0.0.1, for a
//! person. The catalog is opened as `folio serve` opens it; `--content DIR` is recompiled when its
//! files change and `--catalog FILE` reloaded when it is replaced (open pages reload themselves).
//! Prints the address on stdout; status lines go to stderr.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, anyhow};

use super::BrowseArgs;
use folio::web::WebOptions;

/// Runs `folio browse`.
pub(crate) fn browse(args: BrowseArgs) -> anyhow::Result<ExitCode> {
    super::serve::init_tracing();
    if let Some(dir) = &args.shelf {
        return browse_shelf(dir, &args);
    }
    // `--content` is served leniently, as `serve --content` does; both sources are followed.
    let super::serve::Started { server, runtime, followed, reloader: _reloader } =
        match super::serve::start(&args.source, false, false, true)? {
            Ok(started) => started,
            Err(code) => return Ok(code),
        };
    if !followed && super::bundle::current().is_none() {
        eprintln!(
            "note: browsing the embedded catalog `{}`; pass --content DIR or --catalog FILE to browse another",
            server.query().settings().name
        );
    }
    let options = WebOptions::default().with_allow_hosts(args.allow_host.clone());
    let res = runtime.block_on(async {
        let (listener, url) = listen(args.port).await?;
        eprintln!(
            "folio: browse {} docs and {} skills at {url} (Ctrl-C stops)",
            server.query().catalog().docs.len(),
            server.query().catalog().skills.len()
        );
        if args.open {
            open_browser(&url);
        }
        folio::web::serve_web(listener, server, &options, folio::server::shutdown_signal())
            .await
            .map_err(|e| anyhow!("web view failed: {e}"))
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    res.map(|()| ExitCode::SUCCESS)
}

/// `folio browse --shelf DIR`: the index of the shelf and each catalog's pages under its prefix.
fn browse_shelf(dir: &std::path::Path, args: &BrowseArgs) -> anyhow::Result<ExitCode> {
    let shelf = super::shelf::browsed(dir, &args.source)?;
    let count = shelf.shelf().len();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let options = WebOptions::default().with_allow_hosts(args.allow_host.clone());
    let res = runtime.block_on(async {
        let (listener, url) = listen(args.port).await?;
        eprintln!("folio: browse a shelf of {count} catalogs at {url} (Ctrl-C stops)");
        if args.open {
            open_browser(&url);
        }
        folio::web::serve_shelf_web(listener, shelf, &options, folio::server::shutdown_signal())
            .await
            .map_err(|e| anyhow!("web view failed: {e}"))
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    res.map(|()| ExitCode::SUCCESS)
}

/// Binds 127.0.0.1:`port` and prints the view's address on stdout, flushed: the address is
/// the command's answer, for a script to read.
async fn listen(port: u16) -> anyhow::Result<(tokio::net::TcpListener, String)> {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| {
        format!("cannot listen on {addr} (another program may hold the port; --port 0 picks a free one)")
    })?;
    let local = listener.local_addr().context("cannot read the bound address")?;
    let url = format!("http://{local}/");
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{url}").and_then(|()| stdout.flush()).context("cannot write to stdout")?;
    Ok((listener, url))
}

/// Asks the system to open `url` in its browser; says so when there is none.
fn open_browser(url: &str) {
    let candidates: &[(&str, &[&str])] = if cfg!(target_os = "macos") {
        &[("open", &[])]
    } else if cfg!(windows) {
        &[("cmd", &["/C", "start", ""])]
    } else {
        &[("xdg-open", &[]), ("sensible-browser", &[]), ("x-www-browser", &[])]
    };
    for (program, args) in candidates {
        let spawned = std::process::Command::new(program)
            .args(*args)
            .arg(url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if spawned.is_ok() {
            return;
        }
    }
    eprintln!("folio: no web browser could be started here; open {url} yourself");
}
