//! `folio serve --shelf DIR` (and `--catalog FILE` given several times): many catalogs served by
//! one server (`folio::server::shelf`), over stdio or Streamable HTTP. The folder is scanned
//! again on SIGHUP and, with `--watch`, when a file in it changes: a catalog added is served, a
//! catalog removed is withdrawn, and clients are told the lists changed. Status lines go to
//! stderr.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use anyhow::{Context as _, anyhow};
use folio::query::Query;
use folio::server::shelf::Opener;
use folio::server::{LiveMode, Shelf, ShelfServer};
use notify::{RecursiveMode, Watcher as _};

use super::ServeArgs;

/// How long the folder must be quiet after a change before it is scanned again (a catalog being
/// copied in is not read half written; `folio build` renames a finished file into place).
const QUIET: Duration = Duration::from_millis(200);

/// Runs `folio serve` over a shelf.
pub(crate) fn serve(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    super::serve::init_tracing();
    if args.source.content.is_some() {
        anyhow::bail!("--shelf serves built catalogs: build each tree with `folio build --out DIR/<name>`");
    }
    args.source.load_model()?;
    let opener = opener(args.mmap);
    let files = files(args)?;
    let shelf = Shelf::open(&files, Arc::clone(&opener)).map_err(|e| anyhow!("{e}"))?;
    shelf.cap_open(args.max_open as usize);
    let count = shelf.len();
    let mode = match (&args.shelf, args.watch) {
        (None, false) => LiveMode::Fixed,
        (None, true) => anyhow::bail!("--watch follows --shelf DIR (a list of --catalog files is fixed)"),
        (Some(_), false) => LiveMode::Reloadable,
        (Some(_), true) => LiveMode::Watched,
    };
    let server = ShelfServer::new(shelf, mode);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // In place before the first request is read: a change after that is never lost.
    let (rescans, queue) = mpsc::channel::<()>();
    let _watcher = match &args.shelf {
        Some(dir) => {
            let watcher = if args.watch { Some(watch(dir, rescans.clone())?) } else { None };
            let _guard = runtime.enter();
            rescan_on_sighup(rescans)?;
            let (server, opener, args_files) = (server.clone(), opener, args.source.catalog.clone());
            let dir = dir.clone();
            std::thread::spawn(move || follow(&queue, &server, &dir, &args_files, &opener));
            watcher
        }
        None => None,
    };
    eprintln!("folio: serving a shelf of {count} catalogs");
    let res = match &args.http {
        None => runtime
            .block_on(folio::server::run_shelf_stdio(server))
            .map_err(|e| anyhow!("stdio transport failed: {e}")),
        Some(addr) => runtime.block_on(async {
            let (listener, options) = super::serve::http_listener(addr, args).await?;
            folio::server::serve_shelf_http(listener, server, &options, folio::server::shutdown_signal())
                .await
                .map_err(|e| anyhow!("http server failed: {e}"))?;
            eprintln!("folio: shut down");
            Ok(())
        }),
    };
    runtime.shutdown_timeout(Duration::from_millis(100));
    res.map(|()| ExitCode::SUCCESS)
}

/// How a shelf opens a catalog on first use: read or mapped, with the search model asked for.
fn opener(mapped: bool) -> Opener {
    Arc::new(move |path| {
        let query = if mapped { Query::open_file_mapped(path) } else { Query::open_file(path) };
        let query = query.map_err(|e| e.to_string())?;
        super::semantic::searchable(query).map_err(|e| format!("{}: {e:#}", path.display()))
    })
}

/// The shelf `folio browse --shelf DIR` shows (fixed: reload the page after a change by
/// starting again).
pub(crate) fn browsed(dir: &std::path::Path, source: &super::SourceArgs) -> anyhow::Result<ShelfServer> {
    source.load_model()?;
    let files = files_of(Some(dir), &source.catalog)?;
    let shelf = Shelf::open(&files, opener(false)).map_err(|e| anyhow!("{e}"))?;
    Ok(ShelfServer::new(shelf, LiveMode::Fixed))
}

/// The shelf folder's catalog files, then each `--catalog FILE`.
fn files(args: &ServeArgs) -> anyhow::Result<Vec<PathBuf>> {
    files_of(args.shelf.as_deref(), &args.source.catalog)
}

/// The catalog files of `dir` (if any), then `catalogs`.
fn files_of(dir: Option<&std::path::Path>, catalogs: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = match dir {
        Some(dir) => Shelf::files_in(dir).map_err(|e| anyhow!("{e}"))?,
        None => Vec::new(),
    };
    out.extend(catalogs.iter().cloned());
    Ok(out)
}

/// Scans the folder again each time `queue` says so (once it has been quiet for [`QUIET`]) and
/// serves what it holds; a shelf that cannot be made (a file that is not a catalog, two files of
/// one `name@version`) keeps the catalogs served so far and says why.
fn follow(
    queue: &mpsc::Receiver<()>,
    server: &ShelfServer,
    dir: &std::path::Path,
    extra: &[PathBuf],
    opener: &Opener,
) {
    while queue.recv().is_ok() {
        while queue.recv_timeout(QUIET).is_ok() {}
        let current = server.shelf();
        let next = files_of(Some(dir), extra).and_then(|files| {
            Shelf::reopen_from(&files, Arc::clone(opener), &current).map_err(|e| anyhow!("{e}"))
        });
        match next {
            Ok(shelf) => {
                let count = shelf.len();
                if server.replace(shelf) {
                    eprintln!("folio: the shelf changed: serving {count} catalogs");
                }
            }
            Err(e) => eprintln!("folio: {e:#}; still serving the {} catalogs before it", current.len()),
        }
    }
}

/// Watches the shelf folder and the folders one level down (a catalog's own folder).
fn watch(dir: &std::path::Path, rescans: mpsc::Sender<()>) -> anyhow::Result<notify::RecommendedWatcher> {
    let handler = move |event: notify::Result<notify::Event>| {
        let relevant = match &event {
            Ok(event) => !event.kind.is_access(),
            Err(_) => true,
        };
        if relevant {
            let _ = rescans.send(());
        }
    };
    let mut watcher =
        notify::recommended_watcher(handler).with_context(|| format!("cannot watch {}", dir.display()))?;
    watcher
        .watch(dir, RecursiveMode::Recursive)
        .with_context(|| format!("cannot watch {}", dir.display()))?;
    Ok(watcher)
}

/// Asks for a scan on every SIGHUP. Call inside the runtime.
#[cfg(unix)]
fn rescan_on_sighup(rescans: mpsc::Sender<()>) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut hangups = signal(SignalKind::hangup()).context("cannot listen for SIGHUP")?;
    tokio::spawn(async move {
        while hangups.recv().await.is_some() {
            let _ = rescans.send(());
        }
    });
    Ok(())
}

/// No SIGHUP off Unix: `--watch` is the way to rescan there.
#[cfg(not(unix))]
fn rescan_on_sighup(_rescans: mpsc::Sender<()>) -> anyhow::Result<()> {
    Ok(())
}
