//! Transports: stdio (the default; newline-delimited JSON-RPC on stdin/stdout through the line
//! transport of `stdio`, logs on stderr) here, and Streamable HTTP in `server::http` (re-exported
//! here: [`serve_http`], [`router`], [`HttpOptions`], [`MAX_BODY_BYTES`]), and [`shutdown_signal`]
//! (Ctrl-C or SIGTERM) to stop it.
//!
//! Also the public entry points a binary uses to serve its own embedded catalog in a few lines:
//! [`serve_stdio`] (blocking) or [`run_stdio`] / [`serve_http`] inside a Tokio runtime.
//! Nothing here prints to stdout.

use std::future::Future;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion};
use rmcp::service::{RoleServer, ServerInitializeError};
use rmcp::transport::{IntoTransport as _, Transport};

use super::FolioServer;
pub use super::http::{HttpOptions, MAX_BODY_BYTES, ServeError, router, serve_http};

/// Serves `catalog.msgpack` bytes over stdio until stdin closes: the whole server for a binary
/// that embeds its own catalog (`include_bytes!`; bodies are served from those bytes without a
/// copy). Builds its own Tokio runtime; logs, if the caller installs a subscriber, go where it
/// says (never stdout: that is the protocol).
///
/// Fails when the bytes are not a valid catalog or stdio cannot be used.
pub fn serve_stdio(catalog_bytes: &'static [u8]) -> Result<(), ServeError> {
    run_stdio_blocking(FolioServer::from_static(catalog_bytes)?)
}

/// [`serve_stdio`], telling clients the server is `identity` (`serverInfo`): what a project that
/// embeds its own catalog passes `folio::crate_identity!()` for, so clients see its name and
/// version rather than Folio's.
///
/// Fails like [`serve_stdio`].
pub fn serve_stdio_as(catalog_bytes: &'static [u8], identity: super::Identity) -> Result<(), ServeError> {
    run_stdio_blocking(FolioServer::from_static(catalog_bytes)?.with_identity(identity))
}

fn run_stdio_blocking(server: FolioServer) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let res = runtime.block_on(run_stdio(server));
    // A read on a terminal stdin cannot be cancelled; don't let it hold the process open.
    runtime.shutdown_timeout(Duration::from_millis(100));
    res
}

/// Serves over stdin/stdout until stdin reaches EOF (or the client disconnects).
///
/// Fails only on an IO error of the standard streams.
pub async fn run_stdio(server: FolioServer) -> Result<(), ServeError> {
    let (read, write) = rmcp::transport::stdio_pipes();
    run_on_pipes(server, read, write).await
}

/// Serves newline-delimited JSON-RPC on any byte stream (a socket, an in-process duplex) until
/// it closes, exactly as on stdio: bounded lines, an answer for every bad line, and no more
/// than a bounded number of requests read ahead of the answers the client has read.
pub async fn run_on<S>(server: FolioServer, stream: S) -> Result<(), ServeError>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
{
    let (read, write) = tokio::io::split(stream);
    run_on_pipes(server, read, write).await
}

/// [`run_on`] with the two directions apart (stdin and stdout).
pub async fn run_on_pipes<R, W>(server: FolioServer, read: R, write: W) -> Result<(), ServeError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    run_transport(server, super::stdio::LineTransport::new(read, write)).await
}

/// Serves any rmcp message transport until it closes. Messages that are not requests before
/// the lifecycle starts are dropped instead of ending the connection.
pub async fn run_transport<T, E, A>(server: FolioServer, transport: T) -> Result<(), ServeError>
where
    T: rmcp::transport::IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let guarded = LifecycleGuard { inner: transport.into_transport(), started: false };
    // One connection is one session: its own legacy `resources/subscribe` set.
    let server = server.for_session();
    let (live, session) = (std::sync::Arc::clone(&server.live), server.session.clone());
    match server.serve(guarded).await {
        Ok(running) => {
            // Legacy sessions get change notifications pushed; the task ends with the session.
            let pusher = match session {
                Some(session) if live.mode().can_change() => {
                    Some(tokio::spawn(super::notify::push_legacy(live, session, running.peer().clone())))
                }
                _ => None,
            };
            let result = running.waiting().await;
            if let Some(pusher) = pusher {
                pusher.abort();
            }
            result?;
            Ok(())
        }
        // The client went away before its first request: nothing to do, not an error.
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Serves a shelf over stdin/stdout until stdin reaches EOF, as [`run_stdio`] serves one catalog.
///
/// Fails only on an IO error of the standard streams.
pub async fn run_shelf_stdio(server: super::ShelfServer) -> Result<(), ServeError> {
    let (read, write) = rmcp::transport::stdio_pipes();
    run_shelf_on_pipes(server, read, write).await
}

/// [`run_shelf_stdio`] on any pair of byte streams.
pub async fn run_shelf_on_pipes<R, W>(server: super::ShelfServer, read: R, write: W) -> Result<(), ServeError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let transport = super::stdio::LineTransport::new(read, write);
    let guarded = LifecycleGuard { inner: transport.into_transport(), started: false };
    match server.serve(guarded).await {
        Ok(running) => {
            running.waiting().await?;
            Ok(())
        }
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Drops notifications and responses that arrive before the first request that selects a
/// lifecycle (rmcp ends the connection on them); afterwards it is transparent.
struct LifecycleGuard<T> {
    inner: T,
    started: bool,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for LifecycleGuard<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<RoleServer>> {
        loop {
            let msg = self.inner.receive().await?;
            if self.started {
                return Some(msg);
            }
            match &msg {
                ClientJsonRpcMessage::Request(req) => {
                    self.started = match &req.request {
                        ClientRequest::InitializeRequest(_) => true,
                        ClientRequest::DiscoverRequest(_) | ClientRequest::PingRequest(_) => false,
                        other => {
                            let meta = other.get_meta();
                            meta.missing_required_keys(&ProtocolVersion::V_2026_07_28).is_empty()
                                && meta
                                    .protocol_version()
                                    .is_some_and(|v| ProtocolVersion::KNOWN_VERSIONS.contains(&v))
                        }
                    };
                    return Some(msg);
                }
                _ => tracing::debug!("dropping a message that is not a request before the lifecycle started"),
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// Resolves on SIGINT or SIGTERM (Ctrl-C only, off Unix).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! { () = ctrl_c => {}, () = term => {} }
    }
    #[cfg(not(unix))]
    ctrl_c.await;
}
