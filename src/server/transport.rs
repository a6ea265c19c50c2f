//! Transports: stdio (the default; newline-delimited JSON-RPC on stdin/stdout through the line
//! transport of `stdio`, logs on stderr)
//! and Streamable HTTP at `/mcp` on axum (stateless, JSON responses, Origin and Host validation,
//! body size limit, optional bearer token, `GET /healthz`, graceful shutdown), with the
//! per-client bounds of `limits`.
//!
//! Also the public entry points a binary uses to serve its own embedded catalog in a few lines:
//! [`serve_stdio`] (blocking) or [`run_stdio`] / [`serve_http`] inside a Tokio runtime.
//! Nothing here prints to stdout.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request, State as AxumState};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion};
use rmcp::service::{RoleServer, ServerInitializeError};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt};

use super::FolioServer;
use super::limits::{self, HttpLimits};

/// Any failure to start or run a server (a refused catalog, an IO or bind error).
pub type ServeError = Box<dyn std::error::Error + Send + Sync>;

/// Largest accepted POST body: MCP requests to a catalog are small; anything bigger is refused
/// with 413 before it is parsed.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Serves `catalog.msgpack` bytes over stdio until stdin closes: the whole server for a binary
/// that embeds its own catalog (`include_bytes!`; bodies are served from those bytes without a
/// copy). Builds its own Tokio runtime; logs, if the caller installs a subscriber, go where it
/// says (never stdout: that is the protocol).
///
/// Fails when the bytes are not a valid catalog or stdio cannot be used.
pub fn serve_stdio(catalog_bytes: &'static [u8]) -> Result<(), ServeError> {
    let server = FolioServer::from_static(catalog_bytes)?;
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
    match server.serve(guarded).await {
        Ok(running) => {
            running.waiting().await?;
            Ok(())
        }
        // The client went away before its first request: nothing to do, not an error.
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

/// Browser origins always accepted: pages served from this machine (any port). Any other present
/// `Origin` is refused with 403 unless `--allow-origin` names it; requests without `Origin`
/// (every non-browser client) pass.
pub const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Options of the Streamable HTTP transport.
#[derive(Debug, Clone, Default)]
pub struct HttpOptions {
    /// What each client may hold (timeouts, connections, request rate).
    pub limits: HttpLimits,
    /// Browser origins allowed besides [`LOOPBACK_ORIGINS`] (e.g. `https://app.example.com`).
    pub allow_origins: Vec<String>,
    /// `Host` values accepted besides `localhost`, `127.0.0.1` and `::1`.
    pub allow_hosts: Vec<String>,
    /// When set, every `/mcp` request needs `Authorization: Bearer <token>` (401 otherwise).
    pub bearer_token: Option<String>,
}

/// The axum router: `/mcp` (Streamable HTTP, stateless) and `GET /healthz`, plus a function that
/// ends every open stream (call it when shutting down, or idle listen streams hold the drain).
pub fn router(server: FolioServer, options: &HttpOptions) -> (Router, impl FnOnce() + Send + 'static) {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(options.allow_hosts.iter().cloned());
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(hosts)
        .with_allowed_origins(
            LOOPBACK_ORIGINS.iter().map(|o| (*o).to_owned()).chain(options.allow_origins.iter().cloned()),
        )
        .enforce_origin_validation()
        .with_max_request_body_bytes(MAX_BODY_BYTES);
    let token = config.cancellation_token.clone();
    let health = health_body(&server);
    let factory = move || Ok(server.clone());
    let mcp = StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config);
    // Layers run last-added first: the rate is checked before the token (so guessing tokens
    // is rate-limited too), and the token before the body is read.
    let body_limits = (options.limits.body_read_timeout, MAX_BODY_BYTES);
    let mut mcp_router = Router::new()
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn(super::params::mark_http))
        .layer(middleware::from_fn_with_state(body_limits, limits::read_body_within));
    if let Some(token) = options.bearer_token.clone() {
        mcp_router = mcp_router.layer(middleware::from_fn_with_state(Arc::new(token), require_bearer));
    }
    if let Some(rate) = options.limits.requests_per_second {
        let limiter = Arc::new(limits::RateLimiter::new(rate));
        mcp_router = mcp_router.layer(middleware::from_fn_with_state(limiter, limits::limit_rate));
    }
    let app = Router::new()
        .route(
            "/healthz",
            get(move || std::future::ready(([(header::CONTENT_TYPE, "application/json")], health.clone()))),
        )
        .merge(mcp_router);
    (app, move || token.cancel())
}

fn health_body(server: &FolioServer) -> String {
    let info = server.get_info();
    let body = serde_json::json!({
        "status": "ok",
        "name": info.server_info.name,
        "version": info.server_info.version,
        "skills": server.catalog().skills.len(),
        "docs": server.catalog().docs.len(),
    });
    format!("{body}\n")
}

async fn require_bearer(AxumState(token): AxumState<Arc<String>>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim);
    match presented {
        Some(p) if constant_time_eq(p.as_bytes(), token.as_bytes()) => next.run(request).await,
        _ => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "Unauthorized: send `Authorization: Bearer <token>`\n",
        )
            .into_response(),
    }
}

/// Compares secrets without an early exit that would leak the matching prefix length.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Serves Streamable HTTP on an already bound listener until `shutdown` resolves, then stops
/// accepting, cancels open streams and drains in-flight requests.
///
/// The accept loop is axum's `serve` plus what it cannot be told ([`HttpLimits`]): at most
/// `max_connections` connections at once and `max_connections_per_client` from one remote
/// client, and a timer for hyper's header read timeout (without one, hyper never times out a
/// connection that sends nothing). Each request carries its
/// peer's address ([`ConnectInfo`]) for the rate limit.
///
/// Returns once `shutdown` has resolved and the open connections have drained. An error
/// accepting a connection (out of file descriptors) is logged and retried a second later, as
/// axum does, so the result is always `Ok` today; it stays a `Result` for the callers.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    server: FolioServer,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let (app, stop) = router(server, options);
    let limits = options.limits.clone();
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    let per_client = limits::ConnectionCounts::new(limits.max_connections_per_client);
    let (draining, drain) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // The client gave up before it was accepted: nothing to do.
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                    ) {
                        continue;
                    }
                    // Out of file descriptors or similar: retrying at once would spin.
                    tracing::error!(error = %e, "cannot accept a connection; retrying in 1 s");
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_secs(1)) => continue,
                        () = &mut shutdown => break,
                    }
                }
            },
            () = &mut shutdown => break,
        };
        // Finished connections are reaped as new ones come, so the set stays small.
        while connections.try_join_next().is_some() {}
        let Some(client) = per_client.open(peer.ip()) else {
            // Answered without reading the request: what it asks does not matter. The write
            // is a few bytes into a fresh socket's buffer, so it does not wait; the connection
            // and its slot are released when `stream` drops.
            let _ = stream.try_write(TOO_MANY_CONNECTIONS);
            continue;
        };
        let connection =
            Connection { app: app.clone(), peer, header_read_timeout: limits.header_read_timeout };
        connections.spawn(connection.serve(stream, drain.clone(), (slot, client)));
    }
    // Listen streams idle until cancelled: end them so the drain can finish.
    stop();
    let _ = draining.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// The whole answer to a connection over its client's limit.
const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\nConnection: close\r\nRetry-After: 1\r\n\
Content-Type: text/plain\r\nContent-Length: 57\r\n\r\nToo Many Requests: this client holds too many connections";

/// One accepted HTTP/1.1 connection.
struct Connection {
    app: Router,
    peer: std::net::SocketAddr,
    header_read_timeout: Duration,
}

impl Connection {
    /// Serves requests until the client closes, a head is late, or `drain` turns true (then
    /// the request in flight is finished first). Holds `_slots` (its place among all
    /// connections and among its client's) until it ends.
    async fn serve(
        self,
        stream: tokio::net::TcpStream,
        mut drain: tokio::sync::watch::Receiver<bool>,
        _slots: (tokio::sync::OwnedSemaphorePermit, limits::ClientSlot),
    ) {
        use tower::ServiceExt as _;
        // Small JSON answers: send them now rather than wait for more to coalesce.
        let _ = stream.set_nodelay(true);
        let Connection { app, peer, header_read_timeout } = self;
        let service = hyper::service::service_fn(move |mut request: Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(request.map(axum::body::Body::new))
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(header_read_timeout);
        let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        let mut connection = std::pin::pin!(connection);
        // The borrow `wait_for` returns is dropped inside, so the future stays `Send`.
        let drained = async move {
            let _ = drain.wait_for(|draining| *draining).await;
        };
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(%peer, error = %e, "connection ended with an error");
                }
            }
            () = drained => {
                connection.as_mut().graceful_shutdown();
                let _ = connection.await;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_comparison_is_exact() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
    }

    #[test]
    fn the_too_many_connections_answer_is_well_formed() {
        let text = std::str::from_utf8(TOO_MANY_CONNECTIONS).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 429 Too Many Requests\r\n"));
        let length = head.lines().find_map(|l| l.strip_prefix("Content-Length: ")).unwrap();
        assert_eq!(length.parse::<usize>().unwrap(), body.len());
    }
}
