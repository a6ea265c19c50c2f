//! `folio serve`: open a catalog (embedded, `--catalog FILE` or compiled from `--content DIR`) and
//! serve it over stdio (default) or Streamable HTTP (`--http ADDR`), reloading it on SIGHUP and,
//! with `--watch`, when its files change (`reload`). Status lines go to stderr: in stdio mode
//! stdout belongs to the protocol.

use std::io::IsTerminal as _;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};

use super::ServeArgs;
use super::reload::{Reloader, Source, Trigger};
use folio::compile;
use folio::server::{FolioServer, HttpLimits, HttpOptions, LiveMode};
use tracing_subscriber::filter::Targets;

/// A catalog opened to be served: the server in its live mode, the runtime, and the reloader
/// that follows its source (SIGHUP, and file events when watched). `serve` and `browse` start
/// this way.
pub(crate) struct Started {
    pub(crate) server: FolioServer,
    pub(crate) runtime: tokio::runtime::Runtime,
    /// True when the catalog has a source to follow (`--catalog`, `--content`).
    pub(crate) followed: bool,
    /// Follows the source while it is held: keep it as long as the catalog is served.
    pub(crate) reloader: Option<std::sync::Arc<Reloader>>,
}

/// Opens the catalog `source` names (`--catalog`, opened as a map with `mapped`; `--content`,
/// refusing any error with `strict`; else the embedded or bundled one), sets its live mode and
/// starts the runtime and the reloader: with `watch` it follows file events, else SIGHUP only.
/// `Ok(Err(code))` when `--content` has errors (already printed).
pub(crate) fn start(
    source: &super::SourceArgs,
    strict: bool,
    mapped: bool,
    watch: bool,
) -> anyhow::Result<Result<Started, ExitCode>> {
    let started = std::time::Instant::now();
    source.load_model()?;
    let followed = match (source.catalog()?, source.config()?) {
        (Some(file), _) => Some(Source::Catalog { path: file.clone(), mapped }),
        (None, Some(config)) => Some(Source::Content { config, strict }),
        (None, None) => None,
    };
    let mut cache = compile::Cache::default();
    let (server, left_out) = match open(source, strict, mapped, &mut cache)? {
        Ok(opened) => opened,
        Err(code) => return Ok(Err(code)),
    };
    let mode = match (&followed, watch) {
        (None, _) => LiveMode::Fixed,
        (Some(_), false) => LiveMode::Reloadable,
        (Some(_), true) => LiveMode::Watched,
    };
    let server = server.with_live_mode(mode).map_err(|e| anyhow!("{e}"))?;
    tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "catalog opened");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // In place before the first request is read: a SIGHUP or an edit after that is never lost.
    let reloader = match followed {
        Some(followed) => {
            let reloader =
                std::sync::Arc::new(Reloader::start(server.clone(), followed, cache, watch, left_out)?);
            let _guard = runtime.enter();
            reload_on_sighup(std::sync::Arc::clone(&reloader))?;
            Some(reloader)
        }
        None => None,
    };
    Ok(Ok(Started { server, runtime, followed: reloader.is_some(), reloader }))
}

/// Runs `folio serve`.
pub(crate) fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    init_tracing();
    if args.mmap && args.source.catalog.is_empty() {
        bail!("--mmap maps a catalog file: pass --catalog FILE or --shelf DIR");
    }
    if args.watch && args.source.catalog.is_empty() && args.source.content.is_none() {
        bail!("--watch follows --content DIR or --catalog FILE; the embedded catalog never changes");
    }
    let Started { server, runtime, reloader: _reloader, .. } =
        match start(&args.source, args.content_args.strict, args.mmap, args.watch)? {
            Ok(started) => started,
            Err(code) => return Ok(code),
        };
    let res = match &args.http {
        None => {
            if std::io::stdin().is_terminal() {
                eprintln!(
                    "folio: serving {} skills and {} docs over stdio and waiting for an MCP client on stdin; \
                     configure `folio serve` as a stdio server in your MCP client (Ctrl-D quits)",
                    server.query().catalog().skills.len(),
                    server.query().catalog().docs.len()
                );
            }
            runtime
                .block_on(folio::server::run_stdio(server))
                .map_err(|e| anyhow!("stdio transport failed: {e}"))
        }
        Some(addr) => runtime.block_on(serve_http(server, addr, &args)),
    };
    // A pending read of a terminal stdin cannot be cancelled: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    res.map(|()| ExitCode::SUCCESS)
}

/// Opens the catalog the arguments name: the server, and the lines naming the entries a lenient
/// compile left out (reported here; the reloader repeats them only when they change).
/// `Ok(Err(code))` when `--content` has errors (already printed, like `folio check`). A compiled
/// tree leaves its files in `cache`, so the first reload reads only what changed.
pub(crate) fn open(
    source: &super::SourceArgs,
    strict: bool,
    mapped: bool,
    cache: &mut compile::Cache,
) -> anyhow::Result<Result<(FolioServer, Vec<String>), ExitCode>> {
    if let Some(bundled) = super::bundle::query() {
        super::bundle::refuse_other_sources(source)?;
        let server = FolioServer::from_query(bundled?).map_err(|e| anyhow!("the bundled catalog: {e}"))?;
        return Ok(Ok((server, Vec::new())));
    }
    if let Some(path) = source.catalog()? {
        let query = if mapped {
            folio::query::Query::open_file_mapped(path)?
        } else {
            folio::query::Query::open_file(path)?
        };
        let query = super::semantic::searchable(query).map_err(|e| anyhow!("{}: {e:#}", path.display()))?;
        let server = FolioServer::from_query(query).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        return Ok(Ok((server, Vec::new())));
    }
    if let Some(config) = source.config()? {
        let root = &config.root;
        if !root.is_dir() {
            bail!(
                "{}: not a directory (expected a content root holding `docs/` and/or `skills/`)",
                root.display()
            );
        }
        let (catalog, left_out) = match super::reload::compile_content(&config, strict, cache, None) {
            Ok(compiled) => compiled,
            Err(errors) => {
                for line in &errors {
                    eprintln!("{line}");
                }
                eprintln!(
                    "folio: {} has {} errors{}; not serving it (run `folio check` for details)",
                    root.display(),
                    errors.len(),
                    if strict { "" } else { " that no left-out entry explains" }
                );
                return Ok(Err(ExitCode::from(1)));
            }
        };
        report_left_out(root, &left_out);
        let query = super::semantic::query_of_compiled(catalog)?;
        let server = FolioServer::from_query(query).map_err(|e| anyhow!("{}: {e}", root.display()))?;
        return Ok(Ok((server, super::reload::left_out_lines(root, &left_out))));
    }
    let server = FolioServer::embedded().map_err(|e| anyhow!("<embedded>: {e}"))?;
    Ok(Ok((server, Vec::new())))
}

/// Says, once, what `serve --content` left out: one line per reason, not one per entry.
fn report_left_out(root: &std::path::Path, left_out: &[folio::catalog::LeftOut]) {
    if left_out.is_empty() {
        return;
    }
    let mut text = format!(
        "folio: {}: left out {} {} with errors of {} own (serving the rest; --strict refuses instead; `folio check` reports each error):\n",
        root.display(),
        left_out.len(),
        if left_out.len() == 1 { "entry" } else { "entries" },
        if left_out.len() == 1 { "its" } else { "their" },
    );
    for line in super::reload::left_out_summary(left_out) {
        text.push_str(&format!("  {line}\n"));
    }
    eprint!("{text}");
}

async fn serve_http(server: FolioServer, addr: &str, args: &ServeArgs) -> anyhow::Result<()> {
    let (listener, options) = http_listener(addr, args).await?;
    folio::server::serve_http(listener, server, &options, folio::server::shutdown_signal())
        .await
        .map_err(|e| anyhow!("http server failed: {e}"))?;
    eprintln!("folio: shut down");
    Ok(())
}

/// The bound listener and the options `--http` and its flags ask for (a status line says where).
pub(crate) async fn http_listener(
    addr: &str,
    args: &ServeArgs,
) -> anyhow::Result<(tokio::net::TcpListener, HttpOptions)> {
    let addr = parse_addr(addr)?;
    let bearer_token = match &args.bearer_token_env {
        None => None,
        Some(var) => {
            let token = std::env::var(var).map_err(|_| anyhow!("environment variable `{var}` is not set"))?;
            if token.trim().is_empty() {
                bail!("environment variable `{var}` is empty");
            }
            Some(token.trim().to_owned())
        }
    };
    if !addr.ip().is_loopback() {
        if bearer_token.is_none() {
            eprintln!(
                "folio: warning: {addr} is reachable from other machines and no --bearer-token-env is set"
            );
        }
        if args.allow_host.is_empty() {
            // The Host allow-list (DNS-rebinding protection) only knows loopback names so far.
            eprintln!(
                "folio: note: only Host localhost/127.0.0.1/::1 is accepted; add --allow-host NAME for the \
                 names remote clients use"
            );
        }
    }
    let listener =
        tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot bind {addr}"))?;
    let local = listener.local_addr().with_context(|| format!("cannot read the address bound for {addr}"))?;
    eprintln!("folio: serving Streamable HTTP at http://{local}/mcp (health: http://{local}/healthz)");
    let limits = HttpLimits::default()
        .with_max_connections(args.max_connections as usize)
        .with_max_connections_per_client(args.max_connections_per_client as usize)
        .with_requests_per_second((args.rate_limit > 0).then_some(args.rate_limit))
        .with_max_listen_streams(args.max_listen_streams as usize)
        .with_shutdown_timeout(Duration::from_secs(args.shutdown_timeout));
    let options = HttpOptions::default()
        .with_limits(limits)
        .with_allow_origins(args.allow_origin.clone())
        .with_allow_hosts(args.allow_host.clone())
        .with_bearer_token(bearer_token);
    Ok((listener, options))
}

/// Asks `reloader` for a reload on every SIGHUP (the handler is installed before this returns;
/// without it SIGHUP would end the process). Call inside the runtime.
#[cfg(unix)]
pub(crate) fn reload_on_sighup(reloader: std::sync::Arc<Reloader>) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut hangups = signal(SignalKind::hangup()).context("cannot listen for SIGHUP")?;
    tokio::spawn(async move {
        while hangups.recv().await.is_some() {
            reloader.trigger(Trigger::Signal);
        }
    });
    Ok(())
}

/// No SIGHUP off Unix: `--watch` is the way to reload there.
#[cfg(not(unix))]
fn reload_on_sighup(_reloader: std::sync::Arc<Reloader>) -> anyhow::Result<()> {
    Ok(())
}

/// `127.0.0.1:8090`, `[::1]:8090`, `localhost:8090`, or a bare port (bound on 127.0.0.1).
fn parse_addr(addr: &str) -> anyhow::Result<SocketAddr> {
    let addr = addr.trim();
    if let Ok(port) = addr.trim_start_matches(':').parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Some(port) = addr.strip_prefix("localhost:") {
        let port: u16 = port.parse().map_err(|_| anyhow!("invalid port in `{addr}`"))?;
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    addr.parse().map_err(|_| anyhow!("invalid address `{addr}` (expected e.g. 127.0.0.1:8090)"))
}

/// Logs go to stderr only (stdout is the protocol); `RUST_LOG` overrides the default levels.
///
/// `RUST_LOG` takes a level and `target=level` pairs (`debug`, `warn,rmcp=debug`): tracing's
/// `Targets` filter, not `EnvFilter`, whose span and field directives no one needs here and whose
/// regex engine cost a first build about 15 s of CPU. A value that does not parse is ignored.
pub(crate) fn init_tracing() {
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let from_env = std::env::var("RUST_LOG").ok().and_then(|v| v.parse::<Targets>().ok());
    let filter = from_env.unwrap_or_else(|| {
        Targets::new().with_default(tracing::Level::WARN).with_target("rmcp", tracing::Level::ERROR)
    });
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let _ = tracing_subscriber::registry().with(fmt).with(filter).try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_default_to_loopback() {
        assert_eq!(parse_addr("8090").unwrap(), SocketAddr::from(([127, 0, 0, 1], 8090)));
        assert_eq!(parse_addr(":8090").unwrap(), SocketAddr::from(([127, 0, 0, 1], 8090)));
        assert_eq!(parse_addr("localhost:1").unwrap(), SocketAddr::from(([127, 0, 0, 1], 1)));
        assert_eq!(parse_addr("0.0.0.0:80").unwrap(), SocketAddr::from(([0, 0, 0, 0], 80)));
        assert!(parse_addr("nope").is_err());
    }
}
