//! The Streamable HTTP transport: `/mcp` on axum (stateless, JSON responses), `GET /healthz`,
//! and `GET /llms.txt` and `/llms-full.txt` (the catalog in the llmstxt.org format, `crate::llms`),
//! with the rules every request passes first (`guard`: Host and Origin allow-lists, bearer
//! token; `limits`: rate, body size and time), JSON-RPC answers for bodies that are not
//! JSON-RPC (`rpc_errors`), the listen-stream budget (`listen`) and an accept loop of our own
//! (the connection budget of `budget`, hyper's header read timeout, a shutdown deadline).
//!
//! Nothing here prints to stdout or knows what the catalog holds; answers come from rmcp,
//! [`FolioServer`] and `crate::llms`.

mod budget;
pub(crate) mod guard;
mod listen;
mod rpc_errors;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::http::header;
use axum::middleware;
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::FolioServer;
use super::limits::{self, HttpLimits};

/// Any failure to start or run a server (a refused catalog, an IO or bind error). Defined here,
/// below `transport` (which re-exports it with the rest of the serving API), so that the HTTP
/// server does not import the module that re-exports it.
pub type ServeError = Box<dyn std::error::Error + Send + Sync>;

/// Largest accepted POST body: MCP requests to a catalog are small; anything bigger is refused
/// with 413 before it is parsed (before it is read, when `Content-Length` says so).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The content type of `/llms.txt` and `/llms-full.txt`: markdown, read as text.
const LLMS_TYPE: &str = "text/plain; charset=utf-8";

/// Options of the Streamable HTTP transport. [`Default`] is what `folio serve --http` runs with;
/// the `with_` methods change one each. (It will gain fields: build it from [`Default`], not with
/// a struct literal.)
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HttpOptions {
    /// What each client may hold (timeouts, connections, request rate, listen streams).
    pub limits: HttpLimits,
    /// Browser origins allowed (e.g. `https://app.example.com`, or `http://localhost:*` for any
    /// port) besides the server's own (the `Host` a request came to); none by default, so a
    /// request carrying any other `Origin` is refused with 403. Requests without `Origin`
    /// (every non-browser client) are not concerned.
    pub allow_origins: Vec<String>,
    /// `Host` values accepted besides `localhost`, `127.0.0.1` and `::1`.
    pub allow_hosts: Vec<String>,
    /// When set, every `/mcp`, `/healthz`, `/llms.txt` and `/llms-full.txt` request needs `Authorization: Bearer <token>`
    /// (401 otherwise).
    pub bearer_token: Option<String>,
}

impl HttpOptions {
    /// `self` with [`HttpOptions::limits`] set to `value`.
    #[must_use]
    pub fn with_limits(mut self, value: HttpLimits) -> Self {
        self.limits = value;
        self
    }

    /// `self` with [`HttpOptions::allow_origins`] set to `value`.
    #[must_use]
    pub fn with_allow_origins(mut self, value: Vec<String>) -> Self {
        self.allow_origins = value;
        self
    }

    /// `self` with [`HttpOptions::allow_hosts`] set to `value`.
    #[must_use]
    pub fn with_allow_hosts(mut self, value: Vec<String>) -> Self {
        self.allow_hosts = value;
        self
    }

    /// `self` with [`HttpOptions::bearer_token`] set to `value`.
    #[must_use]
    pub fn with_bearer_token(mut self, value: Option<String>) -> Self {
        self.bearer_token = value;
        self
    }
}

/// The axum router: `/mcp` (Streamable HTTP, stateless) and `GET /healthz`, plus a function that
/// ends every open stream (call it when shutting down, or idle listen streams hold the drain).
pub fn router(server: FolioServer, options: &HttpOptions) -> (Router, impl FnOnce() + Send + 'static) {
    let config = mcp_config(options);
    let health_server = server.clone();
    let (llms_server, llms_full_server) = (server.clone(), server.clone());
    let factory = move || Ok(server.clone());
    let mcp = StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config.clone());
    // Built per request: a reload changes the counts and the catalog.
    let public = Router::new()
        .route(
            "/healthz",
            get(move || {
                std::future::ready((
                    [(header::CONTENT_TYPE, "application/json")],
                    health_body(&health_server),
                ))
            }),
        )
        .route(
            "/llms.txt",
            get(move || {
                let text = crate::llms::llms_txt(llms_server.state().query().catalog());
                std::future::ready(([(header::CONTENT_TYPE, LLMS_TYPE)], text))
            }),
        )
        .route(
            "/llms-full.txt",
            get(move || {
                let text = crate::llms::llms_full_txt(llms_full_server.state().query().catalog());
                std::future::ready(([(header::CONTENT_TYPE, LLMS_TYPE)], text))
            }),
        );
    guarded(Router::new().nest_service("/mcp", mcp), public, config, options)
}

/// The Streamable HTTP configuration every `/mcp` service runs with (one cancellation token for
/// all of a router's services).
pub(crate) fn mcp_config(options: &HttpOptions) -> StreamableHttpServerConfig {
    // rmcp checks the Host list again after `guard`. Origins are `guard`'s alone: rmcp's list
    // cannot express the server's own origin, and with none given it checks none.
    StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_allowed_hosts(allowed_hosts(options))
        .with_max_request_body_bytes(MAX_BODY_BYTES)
}

fn allowed_hosts(options: &HttpOptions) -> Vec<String> {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(options.allow_hosts.iter().cloned());
    hosts
}

/// `mcp` (the MCP routes) and `public` (health and the like) behind the rules every request
/// passes, plus the function that ends the open streams of `config`'s services.
pub(crate) fn guarded(
    mcp: Router,
    public: Router,
    config: StreamableHttpServerConfig,
    options: &HttpOptions,
) -> (Router, impl FnOnce() + Send + 'static) {
    let hosts = allowed_hosts(options);
    let allowed = Arc::new(guard::Allowed::new(
        hosts.iter().map(String::as_str),
        options.allow_origins.iter().map(String::as_str),
    ));
    let token = config.cancellation_token.clone();
    let listen =
        listen::ListenBudget::new(options.limits.max_listen_streams, options.limits.listen_idle_timeout);
    // Layers run last-added first: the rate is checked before the token (so guessing tokens
    // is rate-limited too), Host and Origin before the token, the token before the body is
    // read; the rest look at a body already read.
    let body_limits = (options.limits.body_read_timeout, MAX_BODY_BYTES);
    let mut mcp_router = mcp
        // Marks a paginated request whose cursor is not a string: rmcp would drop its params.
        .layer(middleware::from_fn(super::params::mark_http))
        .layer(middleware::from_fn_with_state(listen, listen::gate_listen_streams))
        .layer(middleware::from_fn(rpc_errors::explain_bad_bodies))
        .layer(middleware::from_fn(budget::mark_working))
        .layer(middleware::from_fn_with_state(body_limits, limits::read_body_within));
    let mut health_router = public;
    if let Some(token) = options.bearer_token.clone() {
        // Health and llms.txt answers need the token too: they name the server and what it serves. A load
        // balancer that probes it can send the header, or probe the TCP port instead.
        let token = Arc::new(token);
        mcp_router =
            mcp_router.layer(middleware::from_fn_with_state(Arc::clone(&token), guard::require_bearer));
        health_router = health_router.layer(middleware::from_fn_with_state(token, guard::require_bearer));
    }
    // The health answer names the server and what it serves: a foreign Host (DNS rebinding) or
    // Origin is refused there as on `/mcp`.
    health_router = health_router
        .layer(middleware::from_fn_with_state(Arc::clone(&allowed), guard::check_host_and_origin));
    mcp_router = mcp_router.layer(middleware::from_fn_with_state(allowed, guard::check_host_and_origin));
    if let Some(rate) = options.limits.requests_per_second {
        let limiter = Arc::new(limits::RateLimiter::new(rate));
        mcp_router = mcp_router.layer(middleware::from_fn_with_state(limiter, limits::limit_rate));
    }
    (health_router.merge(mcp_router), move || token.cancel())
}

fn health_body(server: &FolioServer) -> String {
    let state = server.state();
    let catalog = state.query().catalog();
    let body = serde_json::json!({
        "status": "ok",
        "name": state.info.server_info.name,
        "version": state.info.server_info.version,
        "skills": catalog.skills.len(),
        "docs": catalog.docs.len(),
        // Which catalog this replica serves: a rolling update is done when every replica's
        // readiness answer names the new one.
        "catalog_hash": state.query().catalog_hash(),
    });
    format!("{body}\n")
}

/// Serves Streamable HTTP on an already bound listener until `shutdown` resolves, then stops
/// accepting, cancels open streams and drains in-flight requests for at most
/// `shutdown_timeout`; connections still open then are dropped.
///
/// The accept loop is axum's `serve` plus what it cannot be told ([`HttpLimits`]): at most
/// `max_connections` connections at once (when all are taken, the one waiting on its client
/// the longest makes room: see `budget`) and `max_connections_per_client` from one remote
/// client, and a timer for hyper's header read timeout (without one, hyper never times out a
/// connection that sends nothing). Each request carries its peer's address ([`ConnectInfo`])
/// for the rate limit.
///
/// Returns once `shutdown` has resolved and the open connections have drained or been
/// dropped. An error accepting a connection (out of file descriptors) is logged and retried a
/// second later, as axum does, so the result is always `Ok` today; it stays a `Result` for the
/// callers.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    server: FolioServer,
    options: &HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let (app, stop) = router(server, options);
    serve_router(listener, app, stop, &options.limits, shutdown).await
}

/// The accept loop of [`serve_http`] for any router: what `folio browse`'s web view is served
/// with too, under the same connection budget, header read timeout and shutdown drain. `stop`
/// ends the router's open streams when shutdown begins.
pub(crate) async fn serve_router(
    listener: tokio::net::TcpListener,
    app: Router,
    stop: impl FnOnce(),
    limits: &HttpLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let limits = limits.clone();
    let budget = budget::Budget::new(limits.max_connections);
    let per_client = limits::ConnectionCounts::new(limits.max_connections_per_client);
    let (draining, drain) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
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
            // is released when `stream` drops.
            let _ = stream.try_write(TOO_MANY_CONNECTIONS);
            continue;
        };
        // Accepted before a slot is free, so that a full budget sees the newcomer and makes
        // room; at most this one connection waits here (the rest wait in the backlog).
        let admitted = tokio::select! {
            admitted = budget.admit() => admitted,
            () = &mut shutdown => break,
        };
        let connection =
            Connection { app: app.clone(), peer, header_read_timeout: limits.header_read_timeout };
        connections.spawn(connection.serve(stream, drain.clone(), (admitted, client)));
    }
    // Listen streams idle until cancelled: end them so the drain can finish.
    stop();
    let _ = draining.send(true);
    budget.close_waiting();
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(limits.shutdown_timeout, drained).await.is_err() {
        // A client that stops reading holds its response (and the drain) forever.
        tracing::warn!(
            open = connections.len(),
            "dropping the connections still open {} s after shutdown began",
            limits.shutdown_timeout.as_secs_f64()
        );
        connections.shutdown().await;
    }
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

/// Counts a request from the moment hyper hands it over, and tells the budget the answer's
/// body has ended when dropped, which hyper does with a response body once it has taken its
/// last frame (or when the connection ends).
struct Answered(Arc<budget::Tracked>);

impl Answered {
    fn new(tracked: Arc<budget::Tracked>) -> Answered {
        tracked.request_started();
        Answered(tracked)
    }
}

impl Drop for Answered {
    fn drop(&mut self) {
        self.0.answered();
    }
}

/// A response body that holds [`Answered`] until hyper drops it; otherwise the body itself
/// (its length too, so answers keep their `Content-Length`).
struct Answering {
    inner: axum::body::Body,
    _answered: Answered,
}

impl axum::body::HttpBody for Answering {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        std::pin::Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

impl Connection {
    /// Serves requests until the client closes, a head is late, the connection is chosen to
    /// make room for a new one, or `drain` turns true (then the request in flight is finished
    /// first). Holds `slots` (its place in the budget and among its client's connections)
    /// until it ends.
    async fn serve(
        self,
        stream: tokio::net::TcpStream,
        mut drain: tokio::sync::watch::Receiver<bool>,
        slots: (budget::Admitted, limits::ClientSlot),
    ) {
        use tower::ServiceExt as _;
        // Small JSON answers: send them now rather than wait for more to coalesce.
        let _ = stream.set_nodelay(true);
        let Connection { app, peer, header_read_timeout } = self;
        let tracked = Arc::clone(slots.0.tracked());
        let service = hyper::service::service_fn(move |mut request: Request<hyper::body::Incoming>| {
            let (app, tracked) = (app.clone(), Arc::clone(&tracked));
            async move {
                use axum::body::HttpBody as _;
                // Without a body the request is complete now; otherwise once `read_body_within`
                // has read it (`budget::mark_working`).
                let answered = Answered::new(Arc::clone(&tracked));
                if request.body().is_end_stream() {
                    tracked.start_working();
                }
                request.extensions_mut().insert(ConnectInfo(peer));
                request.extensions_mut().insert(tracked);
                let response = app.oneshot(request.map(axum::body::Body::new)).await?;
                Ok::<_, std::convert::Infallible>(
                    response.map(|inner| axum::body::Body::new(Answering { inner, _answered: answered })),
                )
            }
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(header_read_timeout);
        let io = budget::Watched::new(stream, Arc::clone(slots.0.tracked()));
        let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(io), service);
        let mut connection = std::pin::pin!(connection);
        let tracked = Arc::clone(slots.0.tracked());
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
            () = tracked.evicted() => {
                // It was waiting on its client (no request in hand): closing loses nothing.
                tracing::debug!(%peer, "connection closed to make room for a new one");
            }
            () = drained => {
                connection.as_mut().graceful_shutdown();
                tokio::select! {
                    _ = connection => {}
                    // Nothing in hand after all (see `Budget::close_waiting`).
                    () = tracked.evicted() => {}
                }
            }
        }
        drop(slots);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_too_many_connections_answer_is_well_formed() {
        let text = std::str::from_utf8(TOO_MANY_CONNECTIONS).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 429 Too Many Requests\r\n"));
        let length = head.lines().find_map(|l| l.strip_prefix("Content-Length: ")).unwrap();
        assert_eq!(length.parse::<usize>().unwrap(), body.len());
    }
}
